/* SPDX-License-Identifier: MIT */
/*
 * config.c - parser for the configuration file. Pure C: it runs in the
 * hypervisor on the `config` boot module and in the host tool.
 */
#include <stdint.h>
#include <string.h>

#include "config/config.h"
#include "lib/log.h"

#define CONFIG_LINE_MAX 512

struct config_line {
	unsigned int number;
	const char *key;
	const char *value;
};

typedef bool (*config_key_fn)(struct config *config, const struct config_line *line);

static bool config_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *config_trim(char *s)
{
	char *end;

	while (config_is_space(*s))
		s++;
	end = s + strlen(s);
	while (end > s && config_is_space(end[-1]))
		*--end = '\0';
	return s;
}

static void config_error(const struct config_line *line, const char *what)
{
	log_msg("config line %u: key '%s': %s", line->number, line->key, what);
}

/* Parses an unsigned decimal number; false on anything else or overflow. */
static bool config_parse_uint(const char **s, unsigned int *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (*p++ - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (unsigned int)v;
	*s = p;
	return true;
}

static bool config_key_sidecores(struct config *config, const struct config_line *line)
{
	const char *p = line->value;
	unsigned int count = 0, cpu;

	for (;;) {
		while (config_is_space(*p))
			p++;
		if (!config_parse_uint(&p, &cpu)) {
			config_error(line, "expected a comma-separated list of cpu numbers");
			return false;
		}
		if (count == CONFIG_MAX_SIDECORES) {
			config_error(line, "too many sidecores");
			return false;
		}
		for (unsigned int i = 0; i < count; i++) {
			if (config->sidecore_cpu[i] == cpu) {
				config_error(line, "cpu listed twice");
				return false;
			}
		}
		config->sidecore_cpu[count++] = cpu;
		while (config_is_space(*p))
			p++;
		if (!*p)
			break;
		if (*p++ != ',') {
			config_error(line, "expected a comma-separated list of cpu numbers");
			return false;
		}
	}
	config->sidecore_count = count;
	config->sidecores_line = line->number;
	return true;
}

static const struct {
	const char *name;
	config_key_fn parse;
} config_global_keys[] = {
	{ "sidecores", config_key_sidecores },
};

static bool config_apply(struct config *config, const struct config_line *line)
{
	for (size_t i = 0; i < sizeof(config_global_keys) / sizeof(config_global_keys[0]); i++)
		if (!strcmp(config_global_keys[i].name, line->key))
			return config_global_keys[i].parse(config, line);
	config_error(line, "unknown key");
	return false;
}

static bool config_parse_line(struct config *config, char *text, unsigned int number)
{
	struct config_line line = { .number = number, .key = "", .value = "" };
	char *eq, *hash = strchr(text, '#');

	if (hash)
		*hash = '\0';
	text = config_trim(text);
	if (!*text)
		return true;
	eq = strchr(text, '=');
	if (!eq) {
		line.key = text;
		config_error(&line, "expected 'key = value'");
		return false;
	}
	*eq = '\0';
	line.key = config_trim(text);
	line.value = config_trim(eq + 1);
	if (!*line.key) {
		config_error(&line, "missing key before '='");
		return false;
	}
	if (!*line.value) {
		config_error(&line, "missing value");
		return false;
	}
	return config_apply(config, &line);
}

void config_init(struct config *config)
{
	memset(config, 0, sizeof(*config));
}

int config_parse(struct config *config, const char *text, size_t len)
{
	char buf[CONFIG_LINE_MAX];
	unsigned int number = 0;
	int errors = 0;
	size_t pos = 0;

	while (pos < len) {
		size_t start = pos, n;

		while (pos < len && text[pos] != '\n')
			pos++;
		n = pos - start;
		pos++;
		number++;
		if (n >= sizeof(buf)) {
			struct config_line line = { .number = number, .key = "" };

			config_error(&line, "line too long");
			errors++;
			continue;
		}
		memcpy(buf, text + start, n);
		buf[n] = '\0';
		if (memchr(buf, '\0', n)) {
			struct config_line line = { .number = number, .key = "" };

			config_error(&line, "NUL byte in line");
			errors++;
			continue;
		}
		if (!config_parse_line(config, buf, number))
			errors++;
	}
	return errors;
}
