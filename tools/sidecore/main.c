/* SPDX-License-Identifier: MIT */
/*
 * main.c - the sidecore host tool: looks at a machine or a config file the
 * way the hypervisor will, without booting it, and at a running one's
 * console.
 */
#include <stdio.h>
#include <string.h>

#include "tools/sidecore/commands.h"

struct tool_command {
	const char *name;
	const char *arguments;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct tool_command tool_commands[] = {
	{ "topology", "PATH",
	  "CPUs, NUMA nodes, SLIT, MCFG and sidecore placement as JSON; PATH is a\n"
	  "\t\tfolder of binary tables (*.dat) or an acpidump text file",
	  command_topology },
	{ "guest-acpi", "DIR [VCPUS]",
	  "a guest's ACPI tables as DIR/*.dat files for iasl -d", command_guest_acpi },
	{ "check", "[--mem MIB] CONFIG [ACPI]",
	  "every error in a configuration file, with its line and key; with\n"
	  "\t\tACPI (and --mem) as for plan, also every guest that cannot be placed",
	  command_check },
	{ "plan", "[--mem MIB] CONFIG ACPI",
	  "where each guest would run: node, cpus, memory, sidecore; ACPI as\n"
	  "\t\tfor topology, --mem the MiB each node gives guests (needed without SRAT)",
	  command_plan },
	{ "stat", "[--once] [--json] CONSOLE",
	  "live rates per guest (exits by reason, interrupts, packets, bytes,\n"
	  "\t\tdrops), port and sidecore (busy share), refreshed every second;\n"
	  "\t\tCONSOLE the hypervisor's serial device or pty (stat on is typed)\n"
	  "\t\tor its log; --once the latest rates, --json as JSON",
	  command_stat },
};

#define TOOL_COMMAND_COUNT (sizeof(tool_commands) / sizeof(tool_commands[0]))

static void tool_print_usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: sidecore COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < TOOL_COMMAND_COUNT; i++)
		fprintf(out, "  %s %s\n\t\t%s\n", tool_commands[i].name,
			tool_commands[i].arguments, tool_commands[i].summary);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		tool_print_usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		tool_print_usage(stdout);
		return TOOL_EXIT_OK;
	}
	for (i = 0; i < TOOL_COMMAND_COUNT; i++)
		if (strcmp(argv[1], tool_commands[i].name) == 0)
			return tool_commands[i].run(argc - 2, argv + 2);

	fprintf(stderr, "sidecore: unknown command '%s'\n\n", argv[1]);
	tool_print_usage(stderr);
	return TOOL_EXIT_USAGE;
}
