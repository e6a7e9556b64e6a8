/* SPDX-License-Identifier: MIT */
/*
 * cmd_check.c - `sidecore check CONFIG`: read a configuration file the way
 * the hypervisor will, before it goes on a boot image.
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

static void check_print_summary(const char *path, const struct config *config)
{
	printf("%s: ok, ", path);
	if (config->guest_count == 0)
		printf("no guests");
	else
		printf("%u guest%s (", config->guest_count, config->guest_count == 1 ? "" : "s");
	for (unsigned int i = 0; i < config->guest_count; i++)
		printf("%s%s", i ? ", " : "", config->guest[i].name);
	printf("%s\n", config->guest_count ? ")" : "");
}

/**
 * command_check() - check a configuration file.
 * @argc: argument count after the command name; must be 1.
 * @argv: argv[0] is the configuration file.
 *
 * Prints every error (on stderr, with its line and key) and a count, or one
 * line saying the file is good and which guests it defines.
 *
 * Return: a TOOL_EXIT_* status.
 */
int command_check(int argc, char **argv)
{
	static struct config config;
	int errors;

	if (argc != 1) {
		fprintf(stderr, "usage: sidecore check CONFIG\n");
		return TOOL_EXIT_USAGE;
	}
	errors = command_load_config(argv[0], &config);
	if (errors < 0)
		return TOOL_EXIT_USAGE;
	if (errors > 0) {
		fprintf(stderr, "%s: %d error%s\n", argv[0], errors, errors == 1 ? "" : "s");
		return TOOL_EXIT_REJECTED;
	}
	check_print_summary(argv[0], &config);
	return TOOL_EXIT_OK;
}
