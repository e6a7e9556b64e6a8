/* SPDX-License-Identifier: MIT */
/*
 * config_lex.c - the pieces of a configuration line that both config.c and
 * config_guest.c read, and the one way either reports a bad line. Calls
 * neither, so the guest keys need nothing of the file reader.
 */
#include <stdint.h>
#include <string.h>

#include "config/config.h"
#include "config/config_lex.h"
#include "lib/log.h"

/**
 * config_error() - report what is wrong with a line.
 * @parser: the parser's state; its error count goes up.
 * @line: the line, named in the message by its number and key.
 * @what: the problem, e.g. "unknown key".
 *
 * An error inside a section makes its guest invalid; the other guests
 * still stand.
 */
void config_error(struct config_parser *parser, const struct config_line *line,
		  const char *what)
{
	log_msg(CONFIG_ERROR_FORMAT "%s", line->number, line->key, what);
	config_count_error(parser);
}

/**
 * config_count_error() - count an error already reported.
 * @parser: the parser's state.
 *
 * For messages a caller prints with log_msg() itself; an error inside a
 * section also makes its guest invalid, as config_error() does.
 */
void config_count_error(struct config_parser *parser)
{
	parser->errors++;
	if (parser->guest)
		parser->guest->valid = false;
}

/* A decimal number below 2^32 at *s; *s moves past it. False if none or too big. */
static bool config_parse_uint(const char **s, unsigned int *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned int)(*p++ - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (unsigned int)v;
	*s = p;
	return true;
}

/**
 * config_hex_digit() - the value of one hex digit, either case.
 * @c: the character.
 *
 * Return: 0 to 15, or -1 when @c is not a hex digit.
 */
int config_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * config_parse_whole_uint() - read a value that is one decimal number.
 * @s: the value; nothing may follow the digits.
 * @out: receives the number; left alone on failure.
 *
 * Return: false when @s is not all digits or the number is 2^32 or more.
 */
bool config_parse_whole_uint(const char *s, unsigned int *out)
{
	return config_parse_uint(&s, out) && !*s;
}

/**
 * config_is_space() - tell the blanks around a line's words.
 * @c: a character of the line.
 *
 * Return: true for space and tab.
 */
bool config_is_space(char c)
{
	return c == ' ' || c == '\t';
}

/**
 * config_parse_cpu_list() - read a comma-separated list of CPU numbers.
 * @s: the value, e.g. "2, 3,5"; blanks around each number are allowed.
 * @cpu: receives the numbers in the order given.
 * @max: how many @cpu holds.
 * @count: receives how many were listed; left alone on failure.
 * @too_many: the message for a list longer than @max, which names the
 *	      limit in the caller's terms.
 *
 * Return: NULL, or what is wrong: no number where one is due, a number
 * listed twice, or @too_many.
 */
const char *config_parse_cpu_list(const char *s, unsigned int *cpu, unsigned int max,
				  unsigned int *count, const char *too_many)
{
	unsigned int n = 0, value;

	for (;;) {
		while (config_is_space(*s))
			s++;
		if (!config_parse_uint(&s, &value))
			return "expected a comma-separated list of cpu numbers";
		if (n == max)
			return too_many;
		for (unsigned int i = 0; i < n; i++)
			if (cpu[i] == value)
				return "cpu listed twice";
		cpu[n++] = value;
		while (config_is_space(*s))
			s++;
		if (!*s)
			break;
		if (*s++ != ',')
			return "expected a comma-separated list of cpu numbers";
	}
	*count = n;
	return NULL;
}

/**
 * config_trim() - cut the blanks at both ends of a string.
 * @s: the string; its trailing blanks are overwritten with NULs.
 *
 * Return: the first character of @s that is not a blank.
 */
char *config_trim(char *s)
{
	char *end;

	while (config_is_space(*s))
		s++;
	end = s + strlen(s);
	while (end > s && config_is_space(end[-1]))
		*--end = '\0';
	return s;
}
