/* SPDX-License-Identifier: MIT */
/*
 * config_guest.c - the keys of a `[guest NAME]` section, their defaults and
 * the keys every guest must have. Whether the machine can hold the guest
 * (cores, memory, node) is decided later, by plan.c.
 */
#include <stdint.h>
#include <string.h>

#include "config/config.h"
#include "config/config_guest.h"
#include "config/config_lex.h"
#include "config/guest_layout.h"
#include "lib/log.h"
#include "lib/net_mac.h"

_Static_assert(CONFIG_MAC_BYTES == ETH_ALEN, "a guest's MAC is an Ethernet address");

/* The limit the messages below quote: guest RAM ends below the MMIO window. */
_Static_assert(GUEST_RAM_MAX == 3ull << 30, "update the 'memory' message");

/* VMADDR_CID_ANY: a socket bound to it accepts any CID. */
#define CONFIG_CID_ANY UINT32_MAX

#define CONFIG_FNV1A_OFFSET 0xcbf29ce484222325ull
#define CONFIG_FNV1A_PRIME 0x100000001b3ull

/* A multiboot2 module name, as tools/mkiso accepts it. */
static const char *config_copy_module_name(char *out, const char *value)
{
	size_t len = strlen(value);

	if (len >= CONFIG_MODULE_NAME_MAX)
		return "module name longer than 63 characters";
	for (size_t i = 0; i < len; i++) {
		char c = value[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return "expected a module name of A-Z a-z 0-9 . _ -";
	}
	memcpy(out, value, len + 1);
	return NULL;
}

static const char *config_key_kernel(struct config_guest *guest, const char *value)
{
	return config_copy_module_name(guest->kernel, value);
}

static const char *config_key_initrd(struct config_guest *guest, const char *value)
{
	return config_copy_module_name(guest->initrd, value);
}

/* Lines are never longer than the field (config.c asserts it). */
static const char *config_key_cmdline(struct config_guest *guest, const char *value)
{
	memcpy(guest->cmdline, value, strlen(value) + 1);
	return NULL;
}

static const char *config_key_memory(struct config_guest *guest, const char *value)
{
	const char *bad = "expected a size such as 256M (suffix K, M or G)";
	uint64_t number = 0, bytes;
	unsigned int shift;

	if (*value < '0' || *value > '9')
		return bad;
	/* Saturate: anything past 2^33 units is too big whatever the unit. */
	for (; *value >= '0' && *value <= '9'; value++)
		if (number < (1ull << 33))
			number = number * 10 + (uint64_t)(*value - '0');
	switch (*value++) {
	case 'K':
	case 'k':
		shift = 10;
		break;
	case 'M':
	case 'm':
		shift = 20;
		break;
	case 'G':
	case 'g':
		shift = 30;
		break;
	default:
		return bad;
	}
	if (*value)
		return bad;
	bytes = number << shift;
	if (bytes < CONFIG_GUEST_MEMORY_MIN)
		return "must be at least 64M";
	if (bytes > GUEST_RAM_MAX)
		return "must be at most 3G (guest RAM ends below the MMIO window)";
	if (bytes % CONFIG_GUEST_MEMORY_ALIGN)
		return "must be a multiple of 2M (guest RAM is mapped in 2 MiB pages)";
	guest->memory_bytes = bytes;
	return NULL;
}

static const char *config_key_vcpus(struct config_guest *guest, const char *value)
{
	unsigned int count;

	if (!config_parse_whole_uint(value, &count) || count < 1 || count > CONFIG_MAX_VCPUS)
		return "expected a number of vCPUs from 1 to 8";
	guest->vcpu_count = count;
	return NULL;
}

static const char *config_key_cpus(struct config_guest *guest, const char *value)
{
	return config_parse_cpu_list(value, guest->cpu, CONFIG_MAX_VCPUS, &guest->vcpu_count,
				     "more than the 8 vCPUs a guest may have");
}

static const char *config_key_node(struct config_guest *guest, const char *value)
{
	if (!config_parse_whole_uint(value, &guest->node))
		return "expected a node number";
	return NULL;
}

static const char *config_key_mac(struct config_guest *guest, const char *value)
{
	uint8_t mac[CONFIG_MAC_BYTES];

	for (unsigned int i = 0; i < CONFIG_MAC_BYTES; i++) {
		int high = config_hex_digit(value[0]);
		int low = high < 0 ? -1 : config_hex_digit(value[1]);
		char separator = i + 1 < CONFIG_MAC_BYTES ? ':' : '\0';

		if (low < 0 || value[2] != separator)
			return "expected six hex bytes such as 02:00:00:00:00:01";
		mac[i] = (uint8_t)(high << 4 | low);
		value += 3;
	}
	if (net_mac_is_group(mac))
		return "must be unicast (the first byte's lowest bit clear)";
	if (!net_mac_is_usable(mac))
		return "must not be all zeros";
	memcpy(guest->mac, mac, sizeof(mac));
	return NULL;
}

static const char *config_key_cid(struct config_guest *guest, const char *value)
{
	unsigned int cid;

	if (!config_parse_whole_uint(value, &cid))
		return "expected a vsock CID, a number from 3";
	if (cid < CONFIG_FIRST_GUEST_CID)
		return "must be 3 or more (0 to 2 are reserved)";
	if (cid == CONFIG_CID_ANY)
		return "4294967295 means any CID; pick another";
	guest->cid = cid;
	return NULL;
}

static const char *config_parse_action(enum config_action *action, const char *value)
{
	if (!strcmp(value, "stop"))
		*action = CONFIG_ACTION_STOP;
	else if (!strcmp(value, "restart"))
		*action = CONFIG_ACTION_RESTART;
	else
		return "expected stop or restart";
	return NULL;
}

static const char *config_key_on_crash(struct config_guest *guest, const char *value)
{
	return config_parse_action(&guest->on_crash, value);
}

static const char *config_key_on_poweroff(struct config_guest *guest, const char *value)
{
	return config_parse_action(&guest->on_poweroff, value);
}

/* A yes/no key's value into *flag. */
static const char *config_parse_yes_no(bool *flag, const char *value)
{
	if (!strcmp(value, "yes"))
		*flag = true;
	else if (!strcmp(value, "no"))
		*flag = false;
	else
		return "expected yes or no";
	return NULL;
}

static const char *config_key_uplink(struct config_guest *guest, const char *value)
{
	return config_parse_yes_no(&guest->uplink, value);
}

static const char *config_key_vsock_counters(struct config_guest *guest, const char *value)
{
	return config_parse_yes_no(&guest->vsock_counters, value);
}

static const char *config_key_rng(struct config_guest *guest, const char *value)
{
	return config_parse_yes_no(&guest->rng, value);
}

/* Two numbers a second, or `no` for no limit. */
static const char *config_key_broadcast_limit(struct config_guest *guest, const char *value)
{
	static const char expected[] = "expected `no` or frames and bytes a second, "
				       "two numbers from 1 to 1000000000 such as 500 1048576";
	char frames[16];
	const char *space = strchr(value, ' ');
	unsigned int limit[2];
	bool on;

	if (!config_parse_yes_no(&on, value) && !on) {
		guest->broadcast_limit[0] = guest->broadcast_limit[1] = 0;
		return NULL;
	}
	if (!space || (size_t)(space - value) >= sizeof(frames))
		return expected;
	memcpy(frames, value, (size_t)(space - value));
	frames[space - value] = '\0';
	while (*space == ' ')
		space++;
	if (!config_parse_whole_uint(frames, &limit[0]) || !config_parse_whole_uint(space, &limit[1]))
		return expected;
	for (unsigned int i = 0; i < 2; i++)
		if (limit[i] < 1 || limit[i] > CONFIG_BROADCAST_MAX)
			return expected;
	guest->broadcast_limit[0] = limit[0];
	guest->broadcast_limit[1] = limit[1];
	return NULL;
}

static const struct {
	const char *name;
	const char *(*parse)(struct config_guest *guest, const char *value);
} config_guest_keys[CONFIG_GUEST_KEY_COUNT] = {
	[CONFIG_KEY_KERNEL] = { "kernel", config_key_kernel },
	[CONFIG_KEY_INITRD] = { "initrd", config_key_initrd },
	[CONFIG_KEY_CMDLINE] = { "cmdline", config_key_cmdline },
	[CONFIG_KEY_MEMORY] = { "memory", config_key_memory },
	[CONFIG_KEY_VCPUS] = { "vcpus", config_key_vcpus },
	[CONFIG_KEY_CPUS] = { "cpus", config_key_cpus },
	[CONFIG_KEY_NODE] = { "node", config_key_node },
	[CONFIG_KEY_MAC] = { "mac", config_key_mac },
	[CONFIG_KEY_CID] = { "cid", config_key_cid },
	[CONFIG_KEY_ON_CRASH] = { "on_crash", config_key_on_crash },
	[CONFIG_KEY_ON_POWEROFF] = { "on_poweroff", config_key_on_poweroff },
	[CONFIG_KEY_UPLINK] = { "uplink", config_key_uplink },
	[CONFIG_KEY_VSOCK_COUNTERS] = { "vsock_counters", config_key_vsock_counters },
	[CONFIG_KEY_RNG] = { "rng", config_key_rng },
	[CONFIG_KEY_BROADCAST_LIMIT] = { "broadcast_limit", config_key_broadcast_limit },
};

/**
 * config_find_guest_key() - look up a guest key by its spelling in the file.
 * @name: the key as written, already trimmed.
 *
 * Return: the key, or -1 when no guest key has that name (it may still be
 * a global one).
 */
int config_find_guest_key(const char *name)
{
	for (int key = 0; key < CONFIG_GUEST_KEY_COUNT; key++)
		if (!strcmp(config_guest_keys[key].name, name))
			return key;
	return -1;
}

/**
 * config_apply_guest() - read one key of the current guest's section.
 * @parser: the parser's state; parser->guest is the section's guest.
 * @line: the `key = value` line.
 * @key: the key, as config_find_guest_key() named it.
 *
 * A key given twice, vcpus beside cpus, or a bad value is reported and
 * makes the guest invalid. The key's line is recorded even when its value
 * is bad, so later messages name it.
 */
void config_apply_guest(struct config_parser *parser, const struct config_line *line,
			enum config_guest_key key)
{
	struct config_guest *guest = parser->guest;
	const char *problem;

	if (guest->key_line[key]) {
		log_msg(CONFIG_ERROR_FORMAT "given twice (first at line %u)",
			line->number, line->key, guest->key_line[key]);
		config_count_error(parser);
		return;
	}
	guest->key_line[key] = line->number;
	if ((key == CONFIG_KEY_VCPUS && guest->key_line[CONFIG_KEY_CPUS]) ||
	    (key == CONFIG_KEY_CPUS && guest->key_line[CONFIG_KEY_VCPUS])) {
		config_error(parser, line, "give either vcpus or cpus, not both");
		return;
	}
	problem = config_guest_keys[key].parse(guest, line->value);
	if (problem)
		config_error(parser, line, problem);
}

/**
 * config_init_guest() - give a new section's guest its defaults.
 * @guest: the guest to reset; valid until an error says otherwise.
 * @header_line: the line of its `[guest NAME]` header.
 */
void config_init_guest(struct config_guest *guest, unsigned int header_line)
{
	memset(guest, 0, sizeof(*guest));
	guest->line = header_line;
	guest->valid = true;
	guest->vcpu_count = 1;
	guest->on_crash = CONFIG_ACTION_STOP;
	guest->on_poweroff = CONFIG_ACTION_STOP;
	guest->broadcast_limit[0] = CONFIG_BROADCAST_FRAMES;
	guest->broadcast_limit[1] = CONFIG_BROADCAST_BYTES;
}

/**
 * config_finish_guest() - end the section being read, if any.
 * @parser: the parser's state; nothing happens when parser->guest is NULL.
 *
 * Reports each required key the section lacks, on the header's line, and
 * `vsock_counters = yes` without a `cid`, and derives the MAC from the
 * name when none was given.
 */
void config_finish_guest(struct config_parser *parser)
{
	static const enum config_guest_key required[] = { CONFIG_KEY_KERNEL, CONFIG_KEY_MEMORY };
	struct config_guest *guest = parser->guest;

	if (!guest)
		return;
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		if (guest->key_line[required[i]])
			continue;
		log_msg(CONFIG_ERROR_FORMAT "missing; every guest needs one",
			guest->line, config_guest_keys[required[i]].name);
		config_count_error(parser);
	}
	/* The service is CID 2's, reached only through the guest's vsock device. */
	if (guest->vsock_counters && !guest->key_line[CONFIG_KEY_CID]) {
		log_msg(CONFIG_ERROR_FORMAT "needs a `cid` too: only a guest with a vsock device "
			"reaches CID 2", guest->key_line[CONFIG_KEY_VSOCK_COUNTERS], "vsock_counters");
		config_count_error(parser);
	}
	if (!guest->key_line[CONFIG_KEY_MAC])
		config_derive_mac(guest->name, guest->mac);
}

/**
 * config_guest_key_name() - the spelling of a guest key in the file.
 * @key: a guest key.
 *
 * Return: the key's name, e.g. "kernel".
 */
const char *config_guest_key_name(enum config_guest_key key)
{
	return config_guest_keys[key].name;
}

/**
 * config_guest_line() - the line to name when reporting on a guest's key.
 * @guest: a guest of a parsed configuration.
 * @key: the key concerned.
 *
 * Return: the key's line, or the section header's when the key was left to
 * its default.
 */
unsigned int config_guest_line(const struct config_guest *guest, enum config_guest_key key)
{
	return guest->key_line[key] ? guest->key_line[key] : guest->line;
}

/**
 * config_derive_mac() - the default MAC of a guest.
 * @name: the guest's name.
 * @mac: receives 02 followed by the low 40 bits of the 64-bit FNV-1a hash of
 *	 @name, most significant byte first.
 *
 * FNV-1a spreads short, similar names (web0, web1) over the whole range, and
 * the result depends on the name alone, so a guest keeps its MAC across
 * reboots and config edits. The first byte, 02, is locally administered and
 * unicast, so no vendor's address can collide with it.
 */
void config_derive_mac(const char *name, uint8_t mac[CONFIG_MAC_BYTES])
{
	uint64_t hash = CONFIG_FNV1A_OFFSET;

	for (; *name; name++)
		hash = (hash ^ (uint8_t)*name) * CONFIG_FNV1A_PRIME;
	mac[0] = 0x02;
	for (unsigned int i = 1; i < CONFIG_MAC_BYTES; i++)
		mac[i] = (uint8_t)(hash >> (8 * (CONFIG_MAC_BYTES - 1 - i)));
}
