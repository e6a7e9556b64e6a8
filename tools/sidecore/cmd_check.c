/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `sidecore check [--mem MIB] CONFIG [ACPI]`: read a
 * configuration file the way the hypervisor will, before it goes on a boot
 * image; with a machine's ACPI tables, also place its guests there as
 * `sidecore plan` does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "tools/sidecore/commands.h"

/* Far more than any real file; the bound keeps a wrong path from filling memory. */
#define CHECK_CONFIG_MAX_BYTES (1u << 20)

/**
 * command_load_config() - read and parse a configuration file.
 * @path: the file.
 * @config: receives what config_parse() makes of it.
 *
 * The parser's complaints go to stderr.
 *
 * Return: the number of errors in the file, or -1 after printing why it
 * could not be read.
 */
int command_load_config(const char *path, struct config *config)
{
	FILE *file = fopen(path, "rb");
	char *text;
	size_t len;
	int errors;

	if (!file) {
		fprintf(stderr, "sidecore: %s: %s\n", path, strerror(errno));
		return -1;
	}
	text = malloc(CHECK_CONFIG_MAX_BYTES + 1);
	if (!text) {
		fprintf(stderr, "sidecore: out of memory\n");
		fclose(file);
		return -1;
	}
	len = fread(text, 1, CHECK_CONFIG_MAX_BYTES + 1, file);
	if (ferror(file) || len > CHECK_CONFIG_MAX_BYTES) {
		fprintf(stderr, "sidecore: %s: %s\n", path,
			ferror(file) ? "read error" : "larger than 1 MiB");
		free(text);
		fclose(file);
		return -1;
	}
	fclose(file);
	config_init(config);
	errors = config_parse(config, text, len);
	free(text);
	return errors;
}

static void check_print_summary(const char *path, const struct config *config,
				const char *acpi_path)
{
	printf("%s: ok, ", path);
	if (config->guest_count == 0)
		printf("no guests");
	else
		printf("%u guest%s (", config->guest_count, config->guest_count == 1 ? "" : "s");
	for (unsigned int i = 0; i < config->guest_count; i++)
		printf("%s%s", i ? ", " : "", config->guest[i].name);
	printf("%s", config->guest_count ? ")" : "");
	if (acpi_path)
		printf(", all placed on %s", acpi_path);
	printf("\n");
}

/**
 * command_check() - check a configuration file.
 * @argc: argument count after the command name.
 * @argv: optional `--mem MIB` (as for plan), the configuration file, and
 *	  optionally a machine's ACPI tables to place its guests on.
 *
 * Prints every error (on stderr, with its line and key) and a count, or one
 * line saying the file is good and which guests it defines. With ACPI, a
 * guest that cannot be placed there (as `sidecore plan` would place it) is
 * an error too.
 *
 * Return: a TOOL_EXIT_* status.
 */
int command_check(int argc, char **argv)
{
	static struct config config;
	const char *acpi_path;
	uint64_t mem_bytes;
	int errors, place_errors = 0;

	if (!command_parse_mem(&argc, &argv, &mem_bytes) || argc < 1 || argc > 2 ||
	    (mem_bytes && argc == 1)) {
		fprintf(stderr, "usage: sidecore check [--mem MIB] CONFIG [ACPI]\n");
		return TOOL_EXIT_USAGE;
	}
	acpi_path = argc == 2 ? argv[1] : NULL;
	errors = command_load_config(argv[0], &config);
	if (errors < 0)
		return TOOL_EXIT_USAGE;
	if (acpi_path) {
		place_errors = command_place(&config, acpi_path, mem_bytes, false);
		if (place_errors < 0)
			return TOOL_EXIT_USAGE;
	}
	errors += place_errors;
	if (errors > 0) {
		fprintf(stderr, "%s: %d error%s\n", argv[0], errors, errors == 1 ? "" : "s");
		return TOOL_EXIT_REJECTED;
	}
	check_print_summary(argv[0], &config, acpi_path);
	return TOOL_EXIT_OK;
}
