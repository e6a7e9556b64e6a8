/* SPDX-License-Identifier: MIT */
/*
 * config_parser.h - shared between the two halves of the parser (config.c
 * reads the file, config_guest.c the guest keys); not for use outside
 * hv/config.
 */
#ifndef SIDECORE_CONFIG_CONFIG_PARSER_H
#define SIDECORE_CONFIG_CONFIG_PARSER_H

#include <stdbool.h>

#include "config/config.h"

struct config_parser {
	struct config *config;
	struct config_guest *guest;	/* section being read; NULL in the global part */
	bool in_sections;		/* past the first header: no more global keys */
	int errors;
};

/* One `key = value` line, both trimmed. */
struct config_line {
	unsigned int number;
	const char *key;
	const char *value;
};

/* Reports what is wrong with a line; an error inside a section invalidates its guest. */
void config_error(struct config_parser *parser, const struct config_line *line,
		  const char *what);

/* Counts an error reported with log_msg() directly, as config_error() does. */
void config_count_error(struct config_parser *parser);

/* A decimal number below 2^32 at *s; *s moves past it. False if none or too big. */
bool config_parse_uint(const char **s, unsigned int *out);

/* As config_parse_uint(), for a string that must hold nothing else. */
bool config_parse_whole_uint(const char *s, unsigned int *out);

/*
 * A comma-separated list of distinct numbers, at most max of them, into
 * cpu[] and *count. Returns NULL, or what is wrong (too_many when the list
 * is longer than max).
 */
const char *config_parse_cpu_list(const char *s, unsigned int *cpu, unsigned int max,
				  unsigned int *count, const char *too_many);

/* The guest key with this name, or -1. */
int config_find_guest_key(const char *name);

/* Parses one key of the current guest's section. */
void config_apply_guest(struct config_parser *parser, const struct config_line *line,
			enum config_guest_key key);

/* Gives a new section's guest its defaults; header_line is where it starts. */
void config_init_guest(struct config_guest *guest, unsigned int header_line);

/* Ends the current section, if any: required keys, derived defaults. */
void config_finish_guest(struct config_parser *parser);

#endif
