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

#define TOOL_EXIT_OK 0
#define TOOL_EXIT_REJECTED 1
#define TOOL_EXIT_USAGE 2

/* sidecore topology PATH: the machine's topology and sidecore placement as JSON. */
int command_topology(int argc, char **argv);

/* sidecore guest-acpi DIR [VCPUS]: a guest's ACPI tables as binary files in DIR. */
int command_guest_acpi(int argc, char **argv);

/* sidecore check CONFIG: every error in a configuration file, or a summary. */
int command_check(int argc, char **argv);

/* sidecore plan [--mem MIB] CONFIG ACPI: where each guest would run. */
int command_plan(int argc, char **argv);

struct config;

/* Reads and parses a configuration file: its error count, or -1 if unreadable. */
int command_load_config(const char *path, struct config *config);

#endif
