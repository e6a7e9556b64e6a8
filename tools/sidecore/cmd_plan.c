/* SPDX-License-Identifier: MIT */
/*
 * cmd_plan.c - `sidecore plan [--mem MIB] CONFIG ACPI`: where the guests of
 * a configuration would run on a machine, from its ACPI tables.
 *
 * Output, one fact per line, for people and for scripts:
 *
 *   sidecore cpu 0 node 0
 *   idle cpu 8 node 0: smt sibling of sidecore 0
 *   guest alpha: node 0 cpus 1,2 memory 256 MiB sidecore 0
 *   guest beta: not placed
 *   guest gamma: invalid
 *   node 0: free cpus 3,4 memory 1792 MiB
 *
 * Why a guest is not placed or invalid is on stderr, with its line and key.
 * `sidecore check CONFIG ACPI` places the same way and prints nothing of it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/plan.h"
#include "platform/topology.h"
#include "tools/sidecore/acpi_load.h"
#include "tools/sidecore/commands.h"

/* Guest RAM is counted in MiB; anything past this is a typo. */
#define PLAN_MEM_MAX_MIB (1ull << 30)

static void plan_print_cpu_list(const unsigned int *cpu, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++)
		printf("%s%u", i ? "," : "", cpu[i]);
}

static void plan_print(const struct config *config, const struct plan_machine *machine,
		       const struct plan *plan)
{
	const struct topology *topo = machine->topo;

	for (unsigned int c = 0; c < topo->cpu_count; c++)
		if (machine->cpu_sidecore[c])
			printf("sidecore cpu %u node %" PRIu32 "\n", c, topo->cpu[c].node);
	for (unsigned int c = 0; c < topo->cpu_count; c++)
		if (machine->cpu_idle_sibling[c])
			printf("idle cpu %u node %" PRIu32 ": smt sibling of sidecore %d\n", c,
			       topo->cpu[c].node, plan_sidecore_of_sibling(machine, c));

	for (unsigned int i = 0; i < config->guest_count; i++) {
		const struct config_guest *guest = &config->guest[i];
		const struct plan_guest *placed = &plan->guest[i];

		if (guest->name[0])
			printf("guest %s: ", guest->name);
		else
			printf("guest at line %u: ", guest->line);
		if (!guest->valid) {
			printf("invalid\n");
			continue;
		}
		if (!placed->placed) {
			printf("not placed\n");
			continue;
		}
		printf("node %u cpus ", placed->node);
		plan_print_cpu_list(placed->cpu, placed->vcpu_count);
		printf(" memory %" PRIu64 " MiB sidecore %u\n", placed->memory_bytes >> 20,
		       placed->sidecore);
	}

	for (unsigned int n = 0; n < topo->node_count; n++) {
		unsigned int free_cpu[TOPO_MAX_CPUS], count = 0;

		for (unsigned int c = 0; c < topo->cpu_count; c++)
			if (topo->cpu[c].node == n && plan_cpu_is_free(plan, machine, c))
				free_cpu[count++] = c;
		printf("node %u: free cpus ", n);
		if (count)
			plan_print_cpu_list(free_cpu, count);
		else
			printf("none");
		printf(" memory %" PRIu64 " MiB\n", plan->node_free_bytes[n] >> 20);
	}
}

/**
 * command_parse_mem() - take a leading `--mem MIB` off the arguments.
 * @argc: the argument count; reduced by what was taken.
 * @argv: the arguments; advanced past what was taken.
 * @bytes: receives MIB in bytes, or 0 without `--mem`.
 *
 * Return: false (after saying why) when `--mem` has no whole number from 1
 * to 2^30 after it.
 */
bool command_parse_mem(int *argc, char ***argv, uint64_t *bytes)
{
	const char *text;
	char *end;
	unsigned long long mib;

	*bytes = 0;
	if (*argc < 1 || strcmp((*argv)[0], "--mem") != 0)
		return true;
	text = *argc >= 2 ? (*argv)[1] : "";
	mib = strtoull(text, &end, 10);
	if (*text < '0' || *text > '9' || *end || mib == 0 || mib > PLAN_MEM_MAX_MIB) {
		fprintf(stderr, "sidecore: --mem takes a number of MiB\n");
		return false;
	}
	*bytes = (uint64_t)mib << 20;
	*argc -= 2;
	*argv += 2;
	return true;
}

/**
 * command_place() - place a parsed configuration on a machine's tables.
 * @config: from command_load_config().
 * @acpi_path: a folder of *.dat tables or an acpidump text file.
 * @mem_bytes: what each node gives guests, or 0 for its SRAT memory.
 * @print: print the plan on stdout (`sidecore plan`) or not (`check`).
 *
 * Each guest that cannot be placed, and each sidecore that cannot be had,
 * is reported on stderr with its line and key.
 *
 * Return: the number of such errors, or -1 after saying why the tables
 * cannot be used (or, without an SRAT or @mem_bytes, how much memory).
 */
int command_place(const struct config *config, const char *acpi_path, uint64_t mem_bytes,
		  bool print)
{
	static struct acpi_image_set set;
	static struct topology topo;
	static struct plan_machine machine;
	static struct plan plan;
	int errors = -1;

	if (acpi_load_path(&set, acpi_path) != 0)
		return -1;
	if (topology_build(&topo, &set.tables) != 0) {
		fprintf(stderr, "sidecore: %s: no usable topology\n", acpi_path);
		goto out;
	}
	plan_init_machine(&machine, &topo);
	if (mem_bytes) {
		for (unsigned int n = 0; n < topo.node_count; n++)
			machine.node_free_bytes[n] = mem_bytes;
	} else if (!topo.has_srat) {
		fprintf(stderr, "sidecore: %s: no SRAT, so the tables do not say how much "
			"memory the machine has; give it with --mem MIB\n", acpi_path);
		goto out;
	}
	errors = plan_choose_sidecores(&machine, config);
	errors += plan_place_guests(&plan, &machine, config);
	if (print)
		plan_print(config, &machine, &plan);
out:
	acpi_load_release(&set);
	return errors;
}

static int plan_usage(void)
{
	fprintf(stderr, "usage: sidecore plan [--mem MIB] CONFIG ACPI\n");
	return TOOL_EXIT_USAGE;
}

/**
 * command_plan() - place a configuration's guests on a machine.
 * @argc: argument count after the command name.
 * @argv: optional `--mem MIB` (memory each node gives guests, instead of
 *	  its SRAT memory; needed without an SRAT), then the configuration
 *	  file and a folder of *.dat tables or an acpidump text file.
 *
 * Return: TOOL_EXIT_OK when the file is clean and every guest is placed,
 * TOOL_EXIT_REJECTED otherwise, TOOL_EXIT_USAGE when an input cannot be used.
 */
int command_plan(int argc, char **argv)
{
	static struct config config;
	uint64_t mem_bytes;
	int config_errors, place_errors;

	if (!command_parse_mem(&argc, &argv, &mem_bytes) || argc != 2)
		return plan_usage();
	config_errors = command_load_config(argv[0], &config);
	if (config_errors < 0)
		return TOOL_EXIT_USAGE;
	place_errors = command_place(&config, argv[1], mem_bytes, true);
	if (place_errors < 0)
		return TOOL_EXIT_USAGE;
	return config_errors + place_errors ? TOOL_EXIT_REJECTED : TOOL_EXIT_OK;
}
