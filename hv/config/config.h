/* SPDX-License-Identifier: MIT */
/*
 * config.h - the sidecore configuration file (docs/config.md).
 *
 * Line oriented: `key = value`, `# comments`, blank lines. Keys before any
 * section header are global. Every error names its line and key; a bad
 * line is reported and skipped, the rest of the file still applies.
 */
#ifndef SIDECORE_CONFIG_CONFIG_H
#define SIDECORE_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_MAX_SIDECORES 16

struct config {
	unsigned int sidecore_cpu[CONFIG_MAX_SIDECORES];	/* CPU numbers */
	unsigned int sidecore_count;	/* 0: one per node, its first CPU */
	unsigned int sidecores_line;	/* where `sidecores` was set */
};

void config_init(struct config *config);

/* Parses text of len bytes (need not be NUL-terminated). Returns the number of errors. */
int config_parse(struct config *config, const char *text, size_t len);

#endif
