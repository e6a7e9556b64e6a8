/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the sub-commands of the sidecore host tool.
 *
 * Each command gets the arguments after its name and returns the process
 * exit status: 0 success, 1 the input was read but is not acceptable,
 * 2 usage error or unreadable input.
 */
#ifndef SIDECORE_TOOL_COMMANDS_H
#define SIDECORE_TOOL_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

#define TOOL_EXIT_OK 0
#define TOOL_EXIT_REJECTED 1
#define TOOL_EXIT_USAGE 2

/* sidecore topology PATH: the machine's topology and sidecore placement as JSON. */
int command_topology(int argc, char **argv);

/* sidecore guest-acpi DIR [VCPUS]: a guest's ACPI tables as binary files in DIR. */
int command_guest_acpi(int argc, char **argv);

/*
 * sidecore check [--mem MIB] CONFIG [ACPI]: every error in a configuration
 * file, and with ACPI every guest that cannot be placed, or a summary.
 */
int command_check(int argc, char **argv);

/* sidecore plan [--mem MIB] CONFIG ACPI: where each guest would run. */
int command_plan(int argc, char **argv);

/*
 * sidecore stat [--once] [--json] CONSOLE: per guest, port and sidecore,
 * the rates between the hypervisor's last two "stat:" samples.
 */
int command_stat(int argc, char **argv);

struct config;

/* Reads and parses a configuration file: its error count, or -1 if unreadable. */
int command_load_config(const char *path, struct config *config);

/* Takes a leading `--mem MIB` off argc/argv (0 bytes without); false if malformed. */
bool command_parse_mem(int *argc, char ***argv, uint64_t *bytes);

/*
 * Places config's guests on the machine of the ACPI tables at acpi_path,
 * printing the plan when print is set: the placement errors (reported), or
 * -1 when the tables or the memory to place in are missing.
 */
int command_place(const struct config *config, const char *acpi_path, uint64_t mem_bytes,
		  bool print);

#endif
