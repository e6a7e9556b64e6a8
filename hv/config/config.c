/* SPDX-License-Identifier: MIT */
/*
 * config.c - the configuration file reader: lines, comments, sections, the
 * global keys, and the checks that span guests (unique MACs and CIDs).
 * Guest keys are in config_guest.c, what both read a line with in
 * config_lex.c. Pure C: it runs in the hypervisor on the `config` boot
 * module and in the host tool.
 */
#include <stdint.h>
#include <string.h>

#include "config/config.h"
#include "config/config_guest.h"
#include "config/config_lex.h"
#include "lib/log.h"
#include "platform/console_port.h"

/* Longer lines are refused; a cmdline always fits its field. */
#define CONFIG_LINE_MAX 2048
_Static_assert(CONFIG_LINE_MAX <= CONFIG_CMDLINE_MAX, "a cmdline value must fit its field");

/* The 16550 divides a 1.8432 MHz clock by 16 and by an integer divisor. */
#define CONFIG_CONSOLE_BAUD_BASE 115200

/* --- global keys ---------------------------------------------------------- */

static const char *config_key_sidecores(struct config *config, const char *value)
{
	unsigned int count;
	const char *problem = config_parse_cpu_list(value, config->sidecore_cpu,
						    CONFIG_MAX_SIDECORES, &count,
						    "more than "
						    LIMIT_TEXT(CONFIG_MAX_SIDECORES) " sidecores");

	if (problem)
		return problem;
	config->sidecore_count = count;
	return NULL;
}

static const char *config_key_sidecore_sibling(struct config *config, const char *value)
{
	if (!strcmp(value, "idle"))
		config->sidecore_sibling = CONFIG_SIBLING_IDLE;
	else if (!strcmp(value, "vcpu"))
		config->sidecore_sibling = CONFIG_SIBLING_VCPU;
	else
		return "expected idle or vcpu";
	return NULL;
}

static const char *config_key_console_baud(struct config *config, const char *value)
{
	unsigned int baud;

	if (!config_parse_whole_uint(value, &baud))
		return "expected a number of bits per second, e.g. 115200";
	if (baud == 0 || baud > CONFIG_CONSOLE_BAUD_BASE || CONFIG_CONSOLE_BAUD_BASE % baud)
		return "must divide 115200 (the UART's divisor is an integer), e.g. 9600, 38400, 115200";
	config->console_baud = baud;
	return NULL;
}

/* A 16550's 8 registers start on an 8-port boundary and fit below 64 Ki ports. */
#define CONFIG_UART_PORTS	8
#define CONFIG_IO_PORT_LIMIT	0x10000

static const char *config_key_console(struct config *config, const char *value)
{
	const char *bad = "expected com1, com2 or a 16550's first I/O port in hex, e.g. 0x2f8";
	unsigned long port = 0;
	const char *p;

	if (!strcmp(value, "com1")) {
		config->console_port = CONSOLE_PORT_COM1;
		return NULL;
	}
	if (!strcmp(value, "com2")) {
		config->console_port = CONSOLE_PORT_COM2;
		return NULL;
	}
	if (value[0] != '0' || (value[1] != 'x' && value[1] != 'X') || !value[2])
		return bad;
	for (p = value + 2; *p; p++) {
		int digit = config_hex_digit(*p);

		if (digit < 0)
			return bad;
		port = port * 16 + (unsigned long)digit;
		if (port >= CONFIG_IO_PORT_LIMIT)
			return "I/O ports end at 0xffff";
	}
	if (!port || port % CONFIG_UART_PORTS || port > CONFIG_IO_PORT_LIMIT - CONFIG_UART_PORTS)
		return "a 16550's 8 ports start at a multiple of 8 between 0x8 and 0xfff8";
	config->console_port = (uint16_t)port;
	return NULL;
}

/*
 * Bus numbers are 8 bits (two hex digits hold them all), devices 5 bits,
 * functions 3 (PCI Local Bus spec 3.0 §3.2.2.3.2, configuration mechanism #1).
 */
#define CONFIG_PCI_DEVICE_MAX	31
#define CONFIG_PCI_FUNCTION_MAX	7

/* Reads 1 or 2 hex digits ending at @end; returns the value or -1. */
static int config_hex_field(const char *s, char end, const char **rest)
{
	int value = 0, digits = 0;

	for (; digits < 2; s++, digits++) {
		int digit = config_hex_digit(*s);

		if (digit < 0)
			break;
		value = value * 16 + digit;
	}
	if (!digits || *s != end)
		return -1;
	*rest = s + (end ? 1 : 0);
	return value;
}

static const char *config_key_nic(struct config *config, const char *value)
{
	const char *bad = "expected 'first' or a PCI address BB:DD.F in hex, e.g. 00:03.0";
	int bus, device, function;

	if (!strcmp(value, "first")) {
		config->nic = CONFIG_NIC_FIRST;
		return NULL;
	}
	bus = config_hex_field(value, ':', &value);
	device = bus < 0 ? -1 : config_hex_field(value, '.', &value);
	function = device < 0 ? -1 : config_hex_field(value, '\0', &value);
	if (function < 0)
		return bad;
	if (device > CONFIG_PCI_DEVICE_MAX || function > CONFIG_PCI_FUNCTION_MAX)
		return "device must be 00 to 1f and function 0 to 7";
	config->nic = CONFIG_NIC_PCI;
	config->nic_bus = (uint8_t)bus;
	config->nic_device = (uint8_t)device;
	config->nic_function = (uint8_t)function;
	return NULL;
}

static const struct config_global_key {
	const char *name;
	const char *(*parse)(struct config *config, const char *value);
	size_t line_offset;	/* of the field recording where the key was set */
} config_global_keys[] = {
	{ "sidecores", config_key_sidecores, offsetof(struct config, sidecores_line) },
	{ "sidecore_sibling", config_key_sidecore_sibling,
	  offsetof(struct config, sidecore_sibling_line) },
	{ "console_baud", config_key_console_baud, offsetof(struct config, console_baud_line) },
	{ "console", config_key_console, offsetof(struct config, console_port_line) },
	{ "nic", config_key_nic, offsetof(struct config, nic_line) },
};

#define CONFIG_GLOBAL_KEY_COUNT (sizeof(config_global_keys) / sizeof(config_global_keys[0]))

static const struct config_global_key *config_find_global_key(const char *name)
{
	for (size_t i = 0; i < CONFIG_GLOBAL_KEY_COUNT; i++)
		if (!strcmp(config_global_keys[i].name, name))
			return &config_global_keys[i];
	return NULL;
}

static void config_apply_global(struct config_parser *parser, const struct config_line *line,
				const struct config_global_key *key)
{
	unsigned int *set_at = (unsigned int *)((char *)parser->config + key->line_offset);
	const char *problem;

	if (*set_at) {
		log_msg(CONFIG_ERROR_FORMAT "given twice (first at line %u)",
			line->number, line->key, *set_at);
		config_count_error(parser);
		return;
	}
	problem = key->parse(parser->config, line->value);
	if (problem) {
		config_error(parser, line, problem);
		return;
	}
	*set_at = line->number;
}

static void config_apply(struct config_parser *parser, const struct config_line *line)
{
	const struct config_global_key *global = config_find_global_key(line->key);
	int guest_key = config_find_guest_key(line->key);

	if (parser->guest) {
		if (guest_key >= 0)
			config_apply_guest(parser, line, (enum config_guest_key)guest_key);
		else if (global)
			config_error(parser, line, "is a global key: set it before the first section");
		else
			config_error(parser, line, "unknown key");
	} else if (global) {
		config_apply_global(parser, line, global);
	} else if (guest_key >= 0) {
		config_error(parser, line, "belongs in a [guest NAME] section");
	} else {
		config_error(parser, line, "unknown key");
	}
}

/* --- sections ------------------------------------------------------------- */

static bool config_name_is_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= CONFIG_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

static void config_check_guest_name(struct config_parser *parser, const struct config_line *line,
				    const char *name)
{
	struct config *config = parser->config;

	if (!config_name_is_valid(name)) {
		log_msg(CONFIG_ERROR_FORMAT "bad name '%s': use 1 to 31 of A-Z a-z 0-9 _ -",
			line->number, line->key, name);
		config_count_error(parser);
		return;
	}
	for (unsigned int i = 0; i + 1 < config->guest_count; i++) {
		if (!strcmp(config->guest[i].name, name)) {
			log_msg(CONFIG_ERROR_FORMAT "duplicate guest name '%s' (first at line %u)",
				line->number, line->key, name, config->guest[i].line);
			config_count_error(parser);
			return;
		}
	}
	memcpy(parser->guest->name, name, strlen(name) + 1);
}

/* Starts the section `[text]`; text is the line between the brackets. */
static void config_start_section(struct config_parser *parser, unsigned int number, char *text)
{
	struct config *config = parser->config;
	struct config_line line = { .number = number, .key = "guest", .value = "" };
	char *name;

	text = config_trim(text);
	name = text;
	while (*name && !config_is_space(*name))
		name++;
	if (*name)
		*name++ = '\0';
	if (strcmp(text, "guest")) {
		line.key = text;
		config_error(parser, &line, "unknown section; expected [guest NAME]");
		return;
	}
	if (config->guest_count == CONFIG_MAX_GUESTS) {
		config_error(parser, &line, "more than " LIMIT_TEXT(CONFIG_MAX_GUESTS)
			     " guests; section skipped");
		return;
	}
	parser->guest = &config->guest[config->guest_count++];
	config_init_guest(parser->guest, number);
	config_check_guest_name(parser, &line, config_trim(name));
}

/* --- lines ---------------------------------------------------------------- */

/*
 * Cuts text at its comment. '#' inside double quotes is kept: the guest
 * kernel's own command-line syntax quotes values that hold spaces, and the
 * quotes pass through to it. Returns false when a quote is left open.
 */
static bool config_strip_comment(char *text)
{
	bool quoted = false;

	for (; *text; text++) {
		if (*text == '"')
			quoted = !quoted;
		else if (*text == '#' && !quoted)
			break;
	}
	*text = '\0';
	return !quoted;
}

static void config_parse_line(struct config_parser *parser, char *text, unsigned int number)
{
	struct config_line line = { .number = number, .key = "", .value = "" };
	bool quotes_closed = config_strip_comment(text);
	char *eq, *end;

	text = config_trim(text);
	if (!*text)
		return;
	if (*text == '[') {
		/* Whatever the header holds, the previous section ends here. */
		config_finish_guest(parser);
		parser->guest = NULL;
		parser->in_sections = true;
		end = text + strlen(text) - 1;
		if (*end != ']') {
			line.key = "guest";
			config_error(parser, &line, "section header without ']'; section skipped");
			return;
		}
		*end = '\0';
		config_start_section(parser, number, text + 1);
		return;
	}
	if (parser->in_sections && !parser->guest)
		return;	/* inside a section already reported as unusable */
	eq = strchr(text, '=');
	if (!eq) {
		line.key = text;
		config_error(parser, &line, "expected 'key = value'");
		return;
	}
	*eq = '\0';
	line.key = config_trim(text);
	line.value = config_trim(eq + 1);
	if (!*line.key)
		config_error(parser, &line, "missing key before '='");
	else if (!*line.value)
		config_error(parser, &line, "missing value");
	else if (!quotes_closed)
		config_error(parser, &line, "unterminated '\"'");
	else
		config_apply(parser, &line);
}

/* --- checks across guests --------------------------------------------------- */

static bool config_mac_equal(const uint8_t *a, const uint8_t *b)
{
	return !memcmp(a, b, CONFIG_MAC_BYTES);
}

/* A later guest that reuses an earlier valid guest's MAC or CID is invalid. */
static void config_check_unique(struct config_parser *parser)
{
	struct config *config = parser->config;

	for (unsigned int i = 0; i < config->guest_count; i++) {
		struct config_guest *guest = &config->guest[i];

		parser->guest = guest;
		for (unsigned int j = 0; j < i && guest->valid; j++) {
			const struct config_guest *other = &config->guest[j];
			const uint8_t *m = guest->mac;

			if (!other->valid)
				continue;
			if (config_mac_equal(m, other->mac)) {
				log_msg(CONFIG_ERROR_FORMAT
					"%02x:%02x:%02x:%02x:%02x:%02x%s: already used by guest '%s'",
					config_guest_line(guest, CONFIG_KEY_MAC), "mac",
					m[0], m[1], m[2], m[3], m[4], m[5],
					guest->key_line[CONFIG_KEY_MAC] ? "" : " (derived from the name)",
					other->name);
				config_count_error(parser);
			} else if (guest->key_line[CONFIG_KEY_CID] &&
				   other->key_line[CONFIG_KEY_CID] && guest->cid == other->cid) {
				log_msg(CONFIG_ERROR_FORMAT "%u: already used by guest '%s'",
					guest->key_line[CONFIG_KEY_CID], "cid", guest->cid,
					other->name);
				config_count_error(parser);
			}
		}
	}
	parser->guest = NULL;
}

static bool config_cid_is_taken(const struct config *config, uint32_t cid)
{
	for (unsigned int i = 0; i < config->guest_count; i++)
		if (config->guest[i].valid && config->guest[i].cid == cid)
			return true;
	return false;
}

/* Valid guests without a `cid` get the lowest free one, in file order. */
static void config_assign_default_cids(struct config *config)
{
	for (unsigned int i = 0; i < config->guest_count; i++) {
		struct config_guest *guest = &config->guest[i];
		uint32_t cid = CONFIG_FIRST_GUEST_CID;

		if (!guest->valid || guest->key_line[CONFIG_KEY_CID])
			continue;
		while (config_cid_is_taken(config, cid))
			cid++;
		guest->cid = cid;
	}
}

/* --- entry points ------------------------------------------------------------ */

/**
 * config_init() - set every global key to its default, with no guests.
 * @config: the configuration to reset.
 */
void config_init(struct config *config)
{
	memset(config, 0, sizeof(*config));
	config->console_baud = CONFIG_DEFAULT_CONSOLE_BAUD;
}

/* True for bytes a text line may not hold. */
static bool config_is_control(char c)
{
	return ((unsigned char)c < 0x20 && c != '\t') || c == 0x7f;
}

/**
 * config_parse() - read a configuration file.
 * @config: set up by config_init(); receives the global keys and the guests.
 * @text: the file's bytes; they need not be NUL-terminated.
 * @len: how many bytes @text holds.
 *
 * Each problem is reported through log_msg() as
 * `config line N: key 'K': message`. A guest section with a problem is kept
 * with its valid flag clear; the other guests still stand.
 *
 * Return: the number of errors reported; 0 for a clean file.
 */
int config_parse(struct config *config, const char *text, size_t len)
{
	struct config_parser parser = { .config = config };
	char buf[CONFIG_LINE_MAX];
	unsigned int number = 0;
	size_t pos = 0;

	while (pos < len) {
		struct config_line line = { .key = "", .value = "" };
		size_t start = pos, n;

		while (pos < len && text[pos] != '\n')
			pos++;
		n = pos - start;
		pos++;
		line.number = ++number;
		if (n && text[start + n - 1] == '\r')
			n--;	/* CRLF line ends */
		if (n >= sizeof(buf)) {
			config_error(&parser, &line, "line too long");
			continue;
		}
		memcpy(buf, text + start, n);
		buf[n] = '\0';
		for (size_t i = 0; i < n; i++) {
			if (config_is_control(buf[i])) {
				config_error(&parser, &line, "control character in line");
				n = 0;
				break;
			}
		}
		if (n)
			config_parse_line(&parser, buf, number);
	}
	config_finish_guest(&parser);
	parser.guest = NULL;
	config_check_unique(&parser);
	config_assign_default_cids(config);
	return parser.errors;
}
