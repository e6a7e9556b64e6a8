/* SPDX-License-Identifier: MIT */
/*
 * test_config.c - the configuration file parser: every key, every error
 * with its line and key, sections that go bad while the others stand, and
 * the defaults.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "config/config_guest.h"
#include "net/net.h"
#include "tests/unit/support/stderr_capture.h"

static struct config config;
static char log_text[16384];

/* config_parse() on text, its log captured into log_text. */
static int parse(const char *text)
{
	int errors;

	config_init(&config);
	stderr_capture_begin();
	errors = config_parse(&config, text, strlen(text));
	stderr_capture_end(log_text, sizeof(log_text));
	return errors;
}

/* How many messages the log holds; each names its line first. */
static int logged_errors(void)
{
	int count = 0;

	for (const char *p = log_text; (p = strstr(p, "config line ")); p++)
		count++;
	return count;
}

/* The text parses with exactly one error, reported as expected. */
static void assert_one_error(const char *text, const char *expected)
{
	assert_int_equal(parse(text), 1);
	assert_int_equal(logged_errors(), 1);
	if (!strstr(log_text, expected))
		fail_msg("expected \"%s\" in the log, got \"%s\"", expected, log_text);
}

static const struct config_guest *guest_named(const char *name)
{
	for (unsigned int i = 0; i < config.guest_count; i++)
		if (!strcmp(config.guest[i].name, name))
			return &config.guest[i];
	fail_msg("no guest '%s'", name);
	return NULL;
}

#define GOOD_GUEST(name) "[guest " name "]\nkernel = vmlinuz\nmemory = 256M\n"

/* --- globals ---------------------------------------------------------------- */

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(config.console_baud, 115200);
	assert_int_equal(config.console_baud_line, 0);
	assert_int_equal(config.sidecore_count, 0);
	assert_int_equal(config.sidecores_line, 0);
	assert_int_equal(config.sidecore_sibling, CONFIG_SIBLING_IDLE);
	assert_int_equal(config.sidecore_sibling_line, 0);
	assert_int_equal(config.guest_count, 0);
}

static void test_comments_blank_lines_crlf(void **state)
{
	(void)state;
	assert_int_equal(parse("# a comment\n\n   \t\n  # indented comment\r\n"
			       "console_baud = 9600 # trailing comment\r\n"), 0);
	assert_int_equal(config.console_baud, 9600);
	assert_int_equal(config.console_baud_line, 5);
	assert_string_equal(log_text, "");
}

static void test_no_final_newline(void **state)
{
	(void)state;
	assert_int_equal(parse("console_baud=57600"), 0);
	assert_int_equal(config.console_baud, 57600);
}

static void test_nic(void **state)
{
	(void)state;
	assert_int_equal(parse(""), 0);
	assert_int_equal(config.nic, CONFIG_NIC_NONE);
	assert_int_equal(config.nic_line, 0);
	assert_int_equal(parse("\nnic = first\n"), 0);
	assert_int_equal(config.nic, CONFIG_NIC_FIRST);
	assert_int_equal(config.nic_line, 2);
	assert_int_equal(parse("nic = 00:03.0\n"), 0);
	assert_int_equal(config.nic, CONFIG_NIC_PCI);
	assert_int_equal(config.nic_bus, 0);
	assert_int_equal(config.nic_device, 3);
	assert_int_equal(config.nic_function, 0);
	assert_int_equal(parse("nic = 8a:1F.7\n"), 0);
	assert_int_equal(config.nic_bus, 0x8a);
	assert_int_equal(config.nic_device, 0x1f);
	assert_int_equal(config.nic_function, 7);
	assert_int_equal(parse("nic = 3:4.1\n"), 0);
	assert_int_equal(config.nic_bus, 3);
	assert_int_equal(config.nic_device, 4);
	assert_int_equal(config.nic_function, 1);
}

static void test_nic_errors(void **state)
{
	static const char *const bad[] = {
		"nic = none", "nic = 00:03", "nic = 00:03.", "nic = 000:03.0", "nic = 00.03.0",
		"nic = 00:03.0 x", "nic = 0000:00:03.0", "nic = FIRST", "nic = 00:0g.0",
	};
	char text[64];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "%s\n", bad[i]);
		assert_one_error(text, "config line 1: key 'nic': expected 'first' or a PCI "
				       "address BB:DD.F in hex, e.g. 00:03.0");
		assert_int_equal(config.nic, CONFIG_NIC_NONE);
		assert_int_equal(config.nic_line, 0);
	}
	assert_one_error("nic = 00:20.0\n",
			 "config line 1: key 'nic': device must be 00 to 1f and function 0 to 7");
	assert_one_error("nic = 00:03.8\n", "config line 1: key 'nic': device must be");
	assert_one_error("nic = first\nnic = 00:03.0\n",
			 "config line 2: key 'nic': given twice (first at line 1)");
	assert_int_equal(config.nic, CONFIG_NIC_FIRST);
	assert_one_error("[guest a]\nkernel = k\nmemory = 64M\nuplink = maybe\n",
			 "config line 4: key 'uplink': expected yes or no");
	assert_false(config.guest[0].valid);
}

static void test_uplink(void **state)
{
	(void)state;
	assert_int_equal(parse("nic = first\n" GOOD_GUEST("a") "uplink = yes\n"
			       GOOD_GUEST("b") "uplink = no\n" GOOD_GUEST("c")), 0);
	assert_true(guest_named("a")->uplink);
	assert_int_equal(guest_named("a")->key_line[CONFIG_KEY_UPLINK], 5);
	assert_false(guest_named("b")->uplink);
	assert_false(guest_named("c")->uplink);
}

/* CID 2's counters service is off unless asked for, and only with a vsock device. */
static void test_vsock_counters(void **state)
{
	(void)state;
	assert_int_equal(parse(GOOD_GUEST("a") "cid = 3\nvsock_counters = yes\n"
			       GOOD_GUEST("b") "cid = 4\nvsock_counters = no\n"
			       GOOD_GUEST("c") "cid = 5\n"), 0);
	assert_true(guest_named("a")->vsock_counters);
	assert_false(guest_named("b")->vsock_counters);
	assert_false(guest_named("c")->vsock_counters);
	assert_one_error("[guest a]\nkernel = k\nmemory = 64M\nvsock_counters = yes\n",
			 "config line 4: key 'vsock_counters': needs a `cid` too");
	assert_false(config.guest[0].valid);
	assert_int_equal(parse(GOOD_GUEST("a") "vsock_counters = no\n"), 0);
}

/* An entropy device only for a guest that asks; errors name line and key. */
static void test_rng(void **state)
{
	(void)state;
	assert_int_equal(parse(GOOD_GUEST("a") "rng = yes\n" GOOD_GUEST("b") "rng = no\n"
			       GOOD_GUEST("c")), 0);
	assert_true(guest_named("a")->rng);
	assert_false(guest_named("b")->rng);
	assert_false(guest_named("c")->rng);
	assert_one_error("[guest a]\nkernel = k\nmemory = 64M\nrng = 1\n",
			 "config line 4: key 'rng': expected yes or no");
	assert_false(config.guest[0].valid);
}

/* Storm control's rates: the default, two numbers, or none; anything else names the line. */
static void test_broadcast_limit(void **state)
{
	static const char *const bad[] = { "500", "500 0", "0 1048576", "500 1048576 7",
					   "yes", "500 1000000001", "-1 1048576", "500x 1048576" };
	char text[128];

	(void)state;
	assert_int_equal(parse(GOOD_GUEST("a") "broadcast_limit = 20 65536\n"
			       GOOD_GUEST("b") "broadcast_limit = no\n" GOOD_GUEST("c")), 0);
	assert_int_equal(guest_named("a")->broadcast_limit[0], 20);
	assert_int_equal(guest_named("a")->broadcast_limit[1], 65536);
	assert_int_equal(guest_named("b")->broadcast_limit[0], 0);
	assert_int_equal(guest_named("b")->broadcast_limit[1], 0);
	assert_int_equal(guest_named("c")->broadcast_limit[0], CONFIG_BROADCAST_FRAMES);
	assert_int_equal(guest_named("c")->broadcast_limit[1], CONFIG_BROADCAST_BYTES);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[guest a]\nkernel = k\nmemory = 64M\n"
			 "broadcast_limit = %s\n", bad[i]);
		assert_one_error(text, "config line 4: key 'broadcast_limit': expected `no` or "
				 "frames and bytes a second");
		assert_false(config.guest[0].valid);
	}
}

static void test_sidecores(void **state)
{
	(void)state;
	assert_int_equal(parse("\n sidecores = 1, 7 ,3\n"), 0);
	assert_int_equal(config.sidecore_count, 3);
	assert_int_equal(config.sidecore_cpu[0], 1);
	assert_int_equal(config.sidecore_cpu[1], 7);
	assert_int_equal(config.sidecore_cpu[2], 3);
	assert_int_equal(config.sidecores_line, 2);
}

static void test_sidecores_errors(void **state)
{
	(void)state;
	assert_one_error("sidecores = 1,1\n",
			 "config line 1: key 'sidecores': cpu listed twice");
	assert_int_equal(config.sidecore_count, 0);
	assert_int_equal(config.sidecores_line, 0);
	assert_one_error("sidecores = 1,\n",
			 "config line 1: key 'sidecores': expected a comma-separated list of cpu numbers");
	assert_one_error("sidecores = one\n",
			 "config line 1: key 'sidecores': expected a comma-separated list of cpu numbers");
	assert_one_error("sidecores = 1 2\n",
			 "config line 1: key 'sidecores': expected a comma-separated list of cpu numbers");
	assert_one_error("sidecores = 99999999999\n",
			 "config line 1: key 'sidecores': expected a comma-separated list of cpu numbers");
	assert_one_error("sidecores = 0,1,2,3,4,5,6,7,8\n",
			 "config line 1: key 'sidecores': more than 8 sidecores");
	assert_int_equal(config.sidecore_count, 0);
	/* The switch is built for as many sidecores as the file may name. */
	assert_int_equal(CONFIG_MAX_SIDECORES, NET_MAX_SIDECORES);
	assert_int_equal(parse("sidecores = 7,6,5,4,3,2,1,0\n"), 0);
	assert_int_equal(config.sidecore_count, NET_MAX_SIDECORES);
}

static void test_sidecore_sibling(void **state)
{
	(void)state;
	assert_int_equal(parse("\nsidecore_sibling = vcpu\n"), 0);
	assert_int_equal(config.sidecore_sibling, CONFIG_SIBLING_VCPU);
	assert_int_equal(config.sidecore_sibling_line, 2);
	assert_int_equal(parse("sidecore_sibling = idle\n"), 0);
	assert_int_equal(config.sidecore_sibling, CONFIG_SIBLING_IDLE);
	assert_one_error("sidecore_sibling = busy\n",
			 "config line 1: key 'sidecore_sibling': expected idle or vcpu");
	assert_int_equal(config.sidecore_sibling, CONFIG_SIBLING_IDLE);
	assert_one_error(GOOD_GUEST("a") "sidecore_sibling = vcpu\n",
			 "config line 4: key 'sidecore_sibling': is a global key");
}

static void test_console_baud(void **state)
{
	(void)state;
	assert_int_equal(parse("console_baud = 115200\n"), 0);
	assert_int_equal(config.console_baud, 115200);
	assert_int_equal(parse("console_baud = 300\n"), 0);
	assert_int_equal(config.console_baud, 300);
	assert_one_error("console_baud = 1000\n",
			 "config line 1: key 'console_baud': must divide 115200");
	assert_int_equal(config.console_baud, 115200);
	assert_one_error("console_baud = 0\n", "config line 1: key 'console_baud': must divide");
	assert_one_error("console_baud = 230400\n", "config line 1: key 'console_baud': must divide");
	assert_one_error("console_baud = fast\n",
			 "config line 1: key 'console_baud': expected a number of bits per second");
}

static void test_console(void **state)
{
	(void)state;
	assert_int_equal(parse("\n"), 0);
	assert_int_equal(config.console_port, 0);
	assert_int_equal(parse("console = com1\n"), 0);
	assert_int_equal(config.console_port, 0x3f8);
	assert_int_equal(parse("\nconsole = com2\n"), 0);
	assert_int_equal(config.console_port, 0x2f8);
	assert_int_equal(config.console_port_line, 2);
	assert_int_equal(parse("console = 0xE010\n"), 0);
	assert_int_equal(config.console_port, 0xe010);
	assert_int_equal(parse("console = 0xfff8\n"), 0);
	assert_int_equal(config.console_port, 0xfff8);
	assert_one_error("console = com3\n",
			 "config line 1: key 'console': expected com1, com2 or a 16550's first I/O port in hex");
	assert_int_equal(config.console_port, 0);
	assert_one_error("console = 0x\n", "config line 1: key 'console': expected com1");
	assert_one_error("console = 2f8\n", "config line 1: key 'console': expected com1");
	assert_one_error("console = 0x2fg\n", "config line 1: key 'console': expected com1");
	assert_one_error("console = 0x2f9\n",
			 "config line 1: key 'console': a 16550's 8 ports start at a multiple of 8");
	assert_one_error("console = 0x0\n", "config line 1: key 'console': a 16550's 8 ports");
	assert_one_error("console = 0x10000\n", "config line 1: key 'console': I/O ports end at 0xffff");
	assert_one_error("console = 0x100000000000000003f8\n",
			 "config line 1: key 'console': I/O ports end at 0xffff");
	assert_one_error("console = com2\nconsole = com1\n",
			 "config line 2: key 'console': given twice (first at line 1)");
	assert_int_equal(config.console_port, 0x2f8);
}

static void test_global_key_twice(void **state)
{
	(void)state;
	assert_one_error("console_baud = 9600\n# x\nconsole_baud = 19200\n",
			 "config line 3: key 'console_baud': given twice (first at line 1)");
	assert_int_equal(config.console_baud, 9600);
}

static void test_line_errors(void **state)
{
	(void)state;
	assert_one_error("colour = blue\n", "config line 1: key 'colour': unknown key");
	assert_one_error("\n\njust words\n", "config line 3: key 'just words': expected 'key = value'");
	assert_one_error("= 3\n", "config line 1: key '': missing key before '='");
	assert_one_error("console_baud =   # nothing\n",
			 "config line 1: key 'console_baud': missing value");
	assert_one_error("memory = 256M\n",
			 "config line 1: key 'memory': belongs in a [guest NAME] section");
}

static void test_line_too_long(void **state)
{
	static char text[4096];

	(void)state;
	memset(text, 'x', 3000);
	memcpy(text + 3000, "\nconsole_baud = 9600\n", 22);
	assert_one_error(text, "config line 1: key '': line too long");
	assert_int_equal(config.console_baud, 9600);
}

static void test_control_characters(void **state)
{
	static const char with_nul[] = "console_baud = 96\0" "00\nsidecores = 2\n";

	(void)state;
	config_init(&config);
	stderr_capture_begin();
	assert_int_equal(config_parse(&config, with_nul, sizeof(with_nul) - 1), 1);
	stderr_capture_end(log_text, sizeof(log_text));
	assert_non_null(strstr(log_text, "config line 1: key '': control character in line"));
	assert_int_equal(config.console_baud, 115200);
	assert_int_equal(config.sidecore_count, 1);

	assert_one_error("sidecores = 1\x1b[0m\n", "config line 1: key '': control character in line");
	assert_one_error("console_baud = 9600\rsidecores = 1\n",
			 "config line 1: key '': control character in line");
}

/* A bad line is skipped; the lines after it still apply. */
static void test_global_errors_skip_only_their_line(void **state)
{
	(void)state;
	assert_int_equal(parse("sidecores = x\nconsole_baud = 9600\nwhat\nsidecores = 4\n"), 2);
	assert_int_equal(logged_errors(), 2);
	assert_int_equal(config.console_baud, 9600);
	assert_int_equal(config.sidecore_count, 1);
	assert_int_equal(config.sidecore_cpu[0], 4);
	assert_int_equal(config.sidecores_line, 4);
}

/* --- guests: keys ------------------------------------------------------------- */

static const char complete_example[] =
	"# the demo: two guests\n"					/* 1 */
	"sidecores = 0, 4\n"						/* 2 */
	"console_baud = 38400\n"					/* 3 */
	"\n"								/* 4 */
	"[guest alpha]\n"						/* 5 */
	"kernel = vmlinuz\n"						/* 6 */
	"initrd = initrd\n"						/* 7 */
	"memory = 256M\n"						/* 8 */
	"vcpus = 2\n"							/* 9 */
	"cmdline = console=ttyS0 quiet sidecore.ip=10.0.0.1/24\n"	/* 10 */
	"mac = 02:00:00:00:00:01\n"					/* 11 */
	"cid = 3\n"							/* 12 */
	"on_crash = restart\n"						/* 13 */
	"on_poweroff = stop\n"						/* 14 */
	"\n"								/* 15 */
	"[guest beta]\n"						/* 16 */
	"kernel = bzImage-6.1\n"					/* 17 */
	"memory = 1G\n"							/* 18 */
	"cpus = 5,6,7\n"						/* 19 */
	"node = 1\n"							/* 20 */
	"mac = 0A:1b:2C:3d:4E:5f\n"					/* 21 */
	"cid = 42\n"							/* 22 */
	"on_poweroff = restart\n";					/* 23 */

static void test_complete_example(void **state)
{
	const struct config_guest *alpha, *beta;
	static const uint8_t alpha_mac[] = { 2, 0, 0, 0, 0, 1 };
	static const uint8_t beta_mac[] = { 0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f };

	(void)state;
	assert_int_equal(parse(complete_example), 0);
	assert_string_equal(log_text, "");
	assert_int_equal(config.sidecore_count, 2);
	assert_int_equal(config.console_baud, 38400);
	assert_int_equal(config.guest_count, 2);

	alpha = &config.guest[0];
	assert_string_equal(alpha->name, "alpha");
	assert_true(alpha->valid);
	assert_int_equal(alpha->line, 5);
	assert_string_equal(alpha->kernel, "vmlinuz");
	assert_string_equal(alpha->initrd, "initrd");
	assert_int_equal(alpha->memory_bytes, 256ull << 20);
	assert_int_equal(alpha->vcpu_count, 2);
	assert_string_equal(alpha->cmdline, "console=ttyS0 quiet sidecore.ip=10.0.0.1/24");
	assert_memory_equal(alpha->mac, alpha_mac, 6);
	assert_int_equal(alpha->cid, 3);
	assert_int_equal(alpha->on_crash, CONFIG_ACTION_RESTART);
	assert_int_equal(alpha->on_poweroff, CONFIG_ACTION_STOP);
	assert_int_equal(alpha->key_line[CONFIG_KEY_KERNEL], 6);
	assert_int_equal(alpha->key_line[CONFIG_KEY_INITRD], 7);
	assert_int_equal(alpha->key_line[CONFIG_KEY_MEMORY], 8);
	assert_int_equal(alpha->key_line[CONFIG_KEY_VCPUS], 9);
	assert_int_equal(alpha->key_line[CONFIG_KEY_CMDLINE], 10);
	assert_int_equal(alpha->key_line[CONFIG_KEY_MAC], 11);
	assert_int_equal(alpha->key_line[CONFIG_KEY_CID], 12);
	assert_int_equal(alpha->key_line[CONFIG_KEY_ON_CRASH], 13);
	assert_int_equal(alpha->key_line[CONFIG_KEY_ON_POWEROFF], 14);
	assert_int_equal(alpha->key_line[CONFIG_KEY_CPUS], 0);
	assert_int_equal(alpha->key_line[CONFIG_KEY_NODE], 0);

	beta = &config.guest[1];
	assert_string_equal(beta->name, "beta");
	assert_true(beta->valid);
	assert_int_equal(beta->line, 16);
	assert_string_equal(beta->kernel, "bzImage-6.1");
	assert_string_equal(beta->initrd, "");
	assert_string_equal(beta->cmdline, "");
	assert_int_equal(beta->memory_bytes, 1ull << 30);
	assert_int_equal(beta->vcpu_count, 3);
	assert_int_equal(beta->cpu[0], 5);
	assert_int_equal(beta->cpu[1], 6);
	assert_int_equal(beta->cpu[2], 7);
	assert_int_equal(beta->node, 1);
	assert_memory_equal(beta->mac, beta_mac, 6);
	assert_int_equal(beta->cid, 42);
	assert_int_equal(beta->on_crash, CONFIG_ACTION_STOP);
	assert_int_equal(beta->on_poweroff, CONFIG_ACTION_RESTART);
	assert_int_equal(beta->key_line[CONFIG_KEY_CPUS], 19);
	assert_int_equal(beta->key_line[CONFIG_KEY_NODE], 20);
}

static void test_guest_defaults(void **state)
{
	const struct config_guest *guest;
	static const uint8_t alpha_mac[] = { 0x02, 0xbb, 0x85, 0xed, 0x20, 0x2b };

	(void)state;
	assert_int_equal(parse("\n" GOOD_GUEST("alpha")), 0);
	guest = &config.guest[0];
	assert_true(guest->valid);
	assert_int_equal(guest->line, 2);
	assert_string_equal(guest->initrd, "");
	assert_string_equal(guest->cmdline, "");
	assert_int_equal(guest->vcpu_count, 1);
	assert_int_equal(guest->on_crash, CONFIG_ACTION_STOP);
	assert_int_equal(guest->on_poweroff, CONFIG_ACTION_STOP);
	assert_memory_equal(guest->mac, alpha_mac, 6);
	assert_int_equal(guest->cid, 3);
	assert_false(guest->uplink);
	assert_false(guest->vsock_counters);
	assert_false(guest->rng);
	for (int key = 0; key < CONFIG_GUEST_KEY_COUNT; key++) {
		unsigned int given = key == CONFIG_KEY_KERNEL ? 3 : key == CONFIG_KEY_MEMORY ? 4 : 0;

		assert_int_equal(guest->key_line[key], given);
		assert_int_equal(config_guest_line(guest, (enum config_guest_key)key),
				 given ? given : 2);
	}
}

static void test_key_names(void **state)
{
	static const char *const names[CONFIG_GUEST_KEY_COUNT] = {
		"kernel", "initrd", "cmdline", "memory", "vcpus", "cpus", "node", "mac",
		"cid", "on_crash", "on_poweroff", "uplink", "vsock_counters",
		"rng", "broadcast_limit",
	};

	(void)state;
	for (int key = 0; key < CONFIG_GUEST_KEY_COUNT; key++)
		assert_string_equal(config_guest_key_name((enum config_guest_key)key), names[key]);
}

static void test_memory_sizes(void **state)
{
	static const struct {
		const char *value;
		uint64_t bytes;
	} sizes[] = {
		{ "64M", 64ull << 20 }, { "65536K", 64ull << 20 }, { "1G", 1ull << 30 },
		{ "3G", 3ull << 30 }, { "3072M", 3ull << 30 }, { "258m", 258ull << 20 },
		{ "2g", 2ull << 30 }, { "131072k", 128ull << 20 },
	};
	char text[128];

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(text, sizeof(text), "[guest g]\nkernel = k\nmemory = %s\n", sizes[i].value);
		assert_int_equal(parse(text), 0);
		assert_int_equal(config.guest[0].memory_bytes, sizes[i].bytes);
	}
}

static void test_cmdline(void **state)
{
	(void)state;
	assert_int_equal(parse(GOOD_GUEST("g")
			       "cmdline =  console=ttyS0   root=/dev/vda a=b=c  # not for the kernel\n"), 0);
	assert_string_equal(config.guest[0].cmdline, "console=ttyS0   root=/dev/vda a=b=c");

	assert_int_equal(parse(GOOD_GUEST("g")
			       "cmdline = sidecore.msg=\"say #1 twice\" quiet # comment \"x\n"), 0);
	assert_string_equal(config.guest[0].cmdline, "sidecore.msg=\"say #1 twice\" quiet");

	assert_int_equal(parse(GOOD_GUEST("g") "cmdline = a#b\n"), 0);
	assert_string_equal(config.guest[0].cmdline, "a");
}

static void test_cmdline_longest(void **state)
{
	static char text[4096], expected[CONFIG_CMDLINE_MAX];
	size_t prefix, room;

	(void)state;
	prefix = (size_t)snprintf(text, sizeof(text), GOOD_GUEST("g") "cmdline=");
	room = 2047 - strlen("cmdline=");
	memset(expected, 'c', room);
	expected[room] = '\0';
	memcpy(text + prefix, expected, room + 1);
	assert_int_equal(parse(text), 0);
	assert_string_equal(config.guest[0].cmdline, expected);
}

static void test_mac_uppercase_and_lowercase(void **state)
{
	static const uint8_t mac[] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54 };

	(void)state;
	assert_int_equal(parse(GOOD_GUEST("g") "mac = FE:dc:Ba:98:76:54\n"), 0);
	assert_memory_equal(config.guest[0].mac, mac, 6);
}

static void test_module_names(void **state)
{
	(void)state;
	assert_int_equal(parse("[guest g]\nkernel = bzImage-6.1.0_amd64.efi\nmemory = 64M\n"
			       "initrd = initrd.img-6.1\n"), 0);
	assert_string_equal(config.guest[0].kernel, "bzImage-6.1.0_amd64.efi");
	assert_string_equal(config.guest[0].initrd, "initrd.img-6.1");
}

/* One bad value in the second of two guests: its line, its key, its guest only. */
static void assert_bad_value(const char *key_line, const char *expected)
{
	char text[512], message[512];

	snprintf(text, sizeof(text), GOOD_GUEST("first") GOOD_GUEST("second") "%s\n", key_line);
	snprintf(message, sizeof(message), "config line 7: %s", expected);
	assert_one_error(text, message);
	assert_int_equal(config.guest_count, 2);
	assert_true(config.guest[0].valid);
	assert_false(config.guest[1].valid);
}

static void test_bad_values(void **state)
{
	static const struct {
		const char *line;
		const char *message;
	} cases[] = {
		{ "kernel2 = x", "key 'kernel2': unknown key" },
		{ "initrd = my initrd", "key 'initrd': expected a module name of A-Z a-z 0-9 . _ -" },
		{ "initrd = a/b", "key 'initrd': expected a module name" },
		{ "initrd = 0123456789012345678901234567890123456789012345678901234567890123",
		  "key 'initrd': module name longer than 63 characters" },
		{ "cmdline = a \"b # c", "key 'cmdline': unterminated '\"'" },
		{ "vcpus = 0", "key 'vcpus': expected a number of vCPUs from 1 to 8" },
		{ "vcpus = 9", "key 'vcpus': expected a number of vCPUs from 1 to 8" },
		{ "vcpus = two", "key 'vcpus': expected a number of vCPUs from 1 to 8" },
		{ "vcpus = 2x", "key 'vcpus': expected a number of vCPUs from 1 to 8" },
		{ "cpus = 1,2,1", "key 'cpus': cpu listed twice" },
		{ "cpus = 1-3", "key 'cpus': expected a comma-separated list of cpu numbers" },
		{ "cpus = 1,2,3,4,5,6,7,8,9", "key 'cpus': more than the 8 vCPUs a guest may have" },
		{ "node = first", "key 'node': expected a node number" },
		{ "node = -1", "key 'node': expected a node number" },
		{ "mac = 02:00:00:00:00", "key 'mac': expected six hex bytes such as 02:00:00:00:00:01" },
		{ "mac = 02:00:00:00:00:01:02", "key 'mac': expected six hex bytes" },
		{ "mac = 02-00-00-00-00-01", "key 'mac': expected six hex bytes" },
		{ "mac = 2:0:0:0:0:1", "key 'mac': expected six hex bytes" },
		{ "mac = 02:00:00:00:00:0g", "key 'mac': expected six hex bytes" },
		{ "mac = 03:00:00:00:00:01", "key 'mac': must be unicast (the first byte's lowest bit clear)" },
		{ "mac = ff:ff:ff:ff:ff:ff", "key 'mac': must be unicast" },
		{ "mac = 00:00:00:00:00:00", "key 'mac': must not be all zeros" },
		{ "cid = 2", "key 'cid': must be 3 or more (0 to 2 are reserved)" },
		{ "cid = 0", "key 'cid': must be 3 or more" },
		{ "cid = 4294967295", "key 'cid': 4294967295 means any CID; pick another" },
		{ "cid = 4294967296", "key 'cid': expected a vsock CID, a number from 3" },
		{ "cid = x", "key 'cid': expected a vsock CID" },
		{ "on_crash = reboot", "key 'on_crash': expected stop or restart" },
		{ "on_poweroff = STOP", "key 'on_poweroff': expected stop or restart" },
		{ "uplink = true", "key 'uplink': expected yes or no" },
		{ "uplink = YES", "key 'uplink': expected yes or no" },
		{ "vsock_counters = on", "key 'vsock_counters': expected yes or no" },
		{ "nic = first", "key 'nic': is a global key" },
		{ "sidecores = 1", "key 'sidecores': is a global key: set it before the first section" },
		{ "console_baud = 9600", "key 'console_baud': is a global key" },
		{ "just words", "key 'just words': expected 'key = value'" },
		{ "initrd =", "key 'initrd': missing value" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_bad_value(cases[i].line, cases[i].message);
}

static void test_bad_memory(void **state)
{
	static const struct {
		const char *value;
		const char *message;
	} cases[] = {
		{ "256X", "expected a size such as 256M (suffix K, M or G)" },
		{ "256", "expected a size such as 256M" },
		{ "256 M", "expected a size such as 256M" },
		{ "256MB", "expected a size such as 256M" },
		{ "1.5G", "expected a size such as 256M" },
		{ "M", "expected a size such as 256M" },
		{ "-256M", "expected a size such as 256M" },
		{ "62M", "must be at least 64M" },
		{ "65535K", "must be at least 64M" },
		{ "4G", "must be at most 3G (guest RAM ends below the MMIO window)" },
		{ "3074M", "must be at most 3G" },
		{ "99999999999999999999G", "must be at most 3G" },
		{ "65M", "must be a multiple of 2M (guest RAM is mapped in 2 MiB pages)" },
		{ "66561K", "must be a multiple of 2M" },
	};
	char text[128], message[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[guest g]\nkernel = k\n\nmemory = %s\n", cases[i].value);
		snprintf(message, sizeof(message), "config line 4: key 'memory': %s", cases[i].message);
		assert_one_error(text, message);
		assert_false(config.guest[0].valid);
	}
}

static void test_missing_required_keys(void **state)
{
	(void)state;
	assert_one_error("\n[guest a]\nmemory = 64M\n",
			 "config line 2: key 'kernel': missing; every guest needs one");
	assert_false(config.guest[0].valid);
	assert_one_error("[guest a]\nkernel = k\n" GOOD_GUEST("b"),
			 "config line 1: key 'memory': missing; every guest needs one");
	assert_false(config.guest[0].valid);
	assert_true(config.guest[1].valid);

	assert_int_equal(parse("[guest a]\n[guest b]\n"), 4);
	assert_non_null(strstr(log_text, "config line 1: key 'kernel': missing"));
	assert_non_null(strstr(log_text, "config line 1: key 'memory': missing"));
	assert_non_null(strstr(log_text, "config line 2: key 'kernel': missing"));
	assert_non_null(strstr(log_text, "config line 2: key 'memory': missing"));
}

static void test_guest_key_twice(void **state)
{
	(void)state;
	assert_one_error(GOOD_GUEST("g") "memory = 512M\n",
			 "config line 4: key 'memory': given twice (first at line 3)");
	assert_false(config.guest[0].valid);
	assert_int_equal(config.guest[0].memory_bytes, 256ull << 20);
}

static void test_vcpus_and_cpus(void **state)
{
	(void)state;
	assert_one_error(GOOD_GUEST("g") "vcpus = 2\ncpus = 1,2\n",
			 "config line 5: key 'cpus': give either vcpus or cpus, not both");
	assert_false(config.guest[0].valid);
	assert_one_error(GOOD_GUEST("g") "cpus = 1,2\nvcpus = 2\n",
			 "config line 5: key 'vcpus': give either vcpus or cpus, not both");
}

/* --- guests: sections ----------------------------------------------------------- */

static void test_guest_names(void **state)
{
	(void)state;
	assert_int_equal(parse(GOOD_GUEST("Web_0-a")
			       GOOD_GUEST("abcdefghijklmnopqrstuvwxyz01234")
			       "[ guest\tspaced ]\nkernel = k\nmemory = 64M\n"), 0);
	assert_int_equal(config.guest_count, 3);
	assert_string_equal(config.guest[0].name, "Web_0-a");
	assert_string_equal(config.guest[1].name, "abcdefghijklmnopqrstuvwxyz01234");
	assert_string_equal(config.guest[2].name, "spaced");
}

static void test_bad_guest_names(void **state)
{
	static const char *const headers[] = {
		"[guest abcdefghijklmnopqrstuvwxyz012345]", "[guest a.b]", "[guest two words]",
		"[guest ]", "[guest]", "[guest \"q\"]",
	};
	char text[256];

	(void)state;
	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		snprintf(text, sizeof(text), GOOD_GUEST("ok") "%s\nkernel = k\nmemory = 64M\n",
			 headers[i]);
		assert_one_error(text, "config line 4: key 'guest': bad name '");
		assert_non_null(strstr(log_text, "': use 1 to 31 of A-Z a-z 0-9 _ -"));
		assert_int_equal(config.guest_count, 2);
		assert_true(config.guest[0].valid);
		assert_false(config.guest[1].valid);
		assert_string_equal(config.guest[1].name, "");
	}
}

static void test_duplicate_guest_name(void **state)
{
	(void)state;
	assert_one_error(GOOD_GUEST("a") GOOD_GUEST("b") GOOD_GUEST("a"),
			 "config line 7: key 'guest': duplicate guest name 'a' (first at line 1)");
	assert_int_equal(config.guest_count, 3);
	assert_true(config.guest[0].valid);
	assert_true(config.guest[1].valid);
	assert_false(config.guest[2].valid);
}

/* The keys of a section that cannot be read are not reported one by one. */
static void test_unknown_section_skipped(void **state)
{
	(void)state;
	assert_one_error(GOOD_GUEST("a") "[network]\nbridge = br0\nnonsense\n" GOOD_GUEST("b"),
			 "config line 4: key 'network': unknown section; expected [guest NAME]");
	assert_int_equal(config.guest_count, 2);
	assert_true(guest_named("a")->valid);
	assert_true(guest_named("b")->valid);
}

static void test_header_without_bracket(void **state)
{
	(void)state;
	assert_one_error(GOOD_GUEST("a") "[guest b\nkernel = k\nmemory = 64M\n",
			 "config line 4: key 'guest': section header without ']'; section skipped");
	assert_int_equal(config.guest_count, 1);
	assert_true(config.guest[0].valid);

	/* The section before it still ends there, missing keys and all. */
	assert_int_equal(parse("[guest a]\n[guest b\n"), 3);
	assert_non_null(strstr(log_text, "config line 1: key 'kernel': missing"));
	assert_non_null(strstr(log_text, "config line 1: key 'memory': missing"));
	assert_false(config.guest[0].valid);
}

static void test_too_many_guests(void **state)
{
	static char text[8192];
	size_t len = 0;

	(void)state;
	for (int i = 0; i < CONFIG_MAX_GUESTS + 1; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"[guest g%d]\nkernel = k\nmemory = 64M\n", i);
	assert_one_error(text, "config line 49: key 'guest': more than 16 guests; section skipped");
	assert_int_equal(config.guest_count, CONFIG_MAX_GUESTS);
	for (int i = 0; i < CONFIG_MAX_GUESTS; i++)
		assert_true(config.guest[i].valid);
}

/* A bad section between good ones: reported, marked, and nothing else is lost. */
static void test_bad_section_between_good_ones(void **state)
{
	(void)state;
	assert_int_equal(parse(GOOD_GUEST("a")
			       "[guest bad]\nkernel = k\nmemory = 256X\nvcpus = 99\nwhat = ever\n"
			       GOOD_GUEST("c") "vcpus = 2\n"), 3);
	assert_int_equal(logged_errors(), 3);
	assert_non_null(strstr(log_text, "config line 6: key 'memory':"));
	assert_non_null(strstr(log_text, "config line 7: key 'vcpus':"));
	assert_non_null(strstr(log_text, "config line 8: key 'what': unknown key"));
	assert_true(guest_named("a")->valid);
	assert_false(guest_named("bad")->valid);
	assert_true(guest_named("c")->valid);
	assert_int_equal(guest_named("c")->vcpu_count, 2);
	assert_int_equal(guest_named("c")->line, 9);
}

/* --- across guests: MACs and CIDs ------------------------------------------------- */

static void test_mac_derivation_is_stable(void **state)
{
	static const struct {
		const char *name;
		uint8_t mac[6];
	} known[] = {
		{ "alpha", { 0x02, 0xbb, 0x85, 0xed, 0x20, 0x2b } },
		{ "beta", { 0x02, 0x9b, 0x95, 0x46, 0x20, 0xa7 } },
		{ "web0", { 0x02, 0xf6, 0x19, 0xea, 0x41, 0xf3 } },
		{ "web1", { 0x02, 0xf6, 0x19, 0xea, 0x40, 0x40 } },
	};
	uint8_t mac[6];

	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		config_derive_mac(known[i].name, mac);
		assert_memory_equal(mac, known[i].mac, 6);
	}
	assert_int_equal(parse(GOOD_GUEST("web1") GOOD_GUEST("web0")), 0);
	assert_memory_equal(config.guest[0].mac, known[3].mac, 6);
	assert_memory_equal(config.guest[1].mac, known[2].mac, 6);
}

static void test_duplicate_mac(void **state)
{
	(void)state;
	assert_one_error(GOOD_GUEST("a") "mac = 02:00:00:00:00:07\n"
			 GOOD_GUEST("b") "mac = 02:00:00:00:00:07\n",
			 "config line 8: key 'mac': 02:00:00:00:00:07: already used by guest 'a'");
	assert_true(config.guest[0].valid);
	assert_false(config.guest[1].valid);

	/* A derived MAC that someone else chose: the derived one gives way. */
	assert_one_error(GOOD_GUEST("b") "mac = 02:bb:85:ed:20:2b\n" GOOD_GUEST("alpha"),
			 "config line 5: key 'mac': 02:bb:85:ed:20:2b (derived from the name): "
			 "already used by guest 'b'");
	assert_true(guest_named("b")->valid);
	assert_false(guest_named("alpha")->valid);
}

static void test_duplicate_cid(void **state)
{
	(void)state;
	assert_one_error(GOOD_GUEST("a") "cid = 9\n" GOOD_GUEST("b") "\ncid = 9\n",
			 "config line 9: key 'cid': 9: already used by guest 'a'");
	assert_true(config.guest[0].valid);
	assert_false(config.guest[1].valid);
}

static void test_default_cids_avoid_given_ones(void **state)
{
	(void)state;
	assert_int_equal(parse(GOOD_GUEST("a") GOOD_GUEST("b") "cid = 3\n"
			       GOOD_GUEST("c") GOOD_GUEST("d") "cid = 5\n" GOOD_GUEST("e")), 0);
	assert_int_equal(guest_named("a")->cid, 4);
	assert_int_equal(guest_named("b")->cid, 3);
	assert_int_equal(guest_named("c")->cid, 6);
	assert_int_equal(guest_named("d")->cid, 5);
	assert_int_equal(guest_named("e")->cid, 7);
}

/* An invalid guest holds nothing a valid one wants. */
static void test_invalid_guest_claims_nothing(void **state)
{
	(void)state;
	assert_one_error("[guest a]\nkernel = k\nmemory = 1X\ncid = 3\nmac = 02:00:00:00:00:01\n"
			 GOOD_GUEST("b") "cid = 3\nmac = 02:00:00:00:00:01\n" GOOD_GUEST("c"),
			 "config line 3: key 'memory'");
	assert_false(guest_named("a")->valid);
	assert_true(guest_named("b")->valid);
	assert_true(guest_named("c")->valid);
	assert_int_equal(guest_named("b")->cid, 3);
	assert_int_equal(guest_named("c")->cid, 4);
}

/* --- the shipped example ------------------------------------------------------------ */

static void test_shipped_example(void **state)
{
	static char text[16384];
	FILE *file = fopen("docs/examples/sidecore.conf", "r");
	size_t len;

	(void)state;
	if (!file)
		fail_msg("cannot open docs/examples/sidecore.conf (run from the repository root)");
	len = fread(text, 1, sizeof(text) - 1, file);
	fclose(file);
	text[len] = '\0';
	assert_int_equal(parse(text), 0);
	assert_int_equal(config.guest_count, 2);
	assert_true(guest_named("alpha")->valid);
	assert_true(guest_named("beta")->valid);
	assert_string_equal(guest_named("alpha")->kernel, "vmlinuz");
	assert_string_equal(guest_named("beta")->initrd, "initrd");
	assert_int_equal(guest_named("alpha")->memory_bytes, 192ull << 20);
	assert_int_not_equal(guest_named("alpha")->cid, guest_named("beta")->cid);
	assert_memory_not_equal(guest_named("alpha")->mac, guest_named("beta")->mac, 6);
}

int main(void)
{
	static const struct CMUnitTest global_tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_comments_blank_lines_crlf),
		cmocka_unit_test(test_no_final_newline),
		cmocka_unit_test(test_sidecores),
		cmocka_unit_test(test_sidecores_errors),
		cmocka_unit_test(test_sidecore_sibling),
		cmocka_unit_test(test_console_baud),
		cmocka_unit_test(test_console),
		cmocka_unit_test(test_nic),
		cmocka_unit_test(test_nic_errors),
		cmocka_unit_test(test_uplink),
		cmocka_unit_test(test_vsock_counters),
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_broadcast_limit),
		cmocka_unit_test(test_global_key_twice),
		cmocka_unit_test(test_line_errors),
		cmocka_unit_test(test_line_too_long),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_global_errors_skip_only_their_line),
	};
	static const struct CMUnitTest guest_key_tests[] = {
		cmocka_unit_test(test_complete_example),
		cmocka_unit_test(test_guest_defaults),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_memory_sizes),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_cmdline_longest),
		cmocka_unit_test(test_mac_uppercase_and_lowercase),
		cmocka_unit_test(test_module_names),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_bad_memory),
		cmocka_unit_test(test_missing_required_keys),
		cmocka_unit_test(test_guest_key_twice),
		cmocka_unit_test(test_vcpus_and_cpus),
	};
	static const struct CMUnitTest section_tests[] = {
		cmocka_unit_test(test_guest_names),
		cmocka_unit_test(test_bad_guest_names),
		cmocka_unit_test(test_duplicate_guest_name),
		cmocka_unit_test(test_unknown_section_skipped),
		cmocka_unit_test(test_header_without_bracket),
		cmocka_unit_test(test_too_many_guests),
		cmocka_unit_test(test_bad_section_between_good_ones),
	};
	static const struct CMUnitTest across_tests[] = {
		cmocka_unit_test(test_mac_derivation_is_stable),
		cmocka_unit_test(test_duplicate_mac),
		cmocka_unit_test(test_duplicate_cid),
		cmocka_unit_test(test_default_cids_avoid_given_ones),
		cmocka_unit_test(test_invalid_guest_claims_nothing),
		cmocka_unit_test(test_shipped_example),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("config: global keys and lines", global_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("config: guest keys", guest_key_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("config: sections", section_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("config: across guests", across_tests, NULL, NULL);
	return failed ? 1 : 0;
}
