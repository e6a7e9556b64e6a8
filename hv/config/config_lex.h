/* SPDX-License-Identifier: MIT */
/*
 * config_lex.h - what both halves of the parser read a line with (config.c
 * the file and the global keys, config_guest.c the guest keys): the
 * parser's state, error reporting, spaces, numbers and CPU lists. Calls
 * nothing in either half; not for use outside hv/config.
 */
#ifndef SIDECORE_CONFIG_CONFIG_LEX_H
#define SIDECORE_CONFIG_CONFIG_LEX_H

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

/* A decimal number below 2^32 that fills all of s. */
bool config_parse_whole_uint(const char *s, unsigned int *out);

/* The value of a hex digit, or -1. */
int config_hex_digit(char c);

/*
 * A comma-separated list of distinct numbers, at most max of them, into
 * cpu[] and *count. Returns NULL, or what is wrong (too_many when the list
 * is longer than max).
 */
const char *config_parse_cpu_list(const char *s, unsigned int *cpu, unsigned int max,
				  unsigned int *count, const char *too_many);

/* True for the blanks a line may hold around its words: space and tab. */
bool config_is_space(char c);

/* Cuts the blanks at both ends of s, in place; returns where s now starts. */
char *config_trim(char *s);

#endif
