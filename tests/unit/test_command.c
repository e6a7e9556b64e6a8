/* SPDX-License-Identifier: MIT */
/*
 * test_command.c - the operator's console lines: each command and its
 * argument, and a clear error naming the word for everything else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "config/command.h"

static struct command cmd;
static char error[96];

static bool parse(const char *line)
{
	memset(&cmd, 0x5a, sizeof(cmd));
	error[0] = '\0';
	return command_parse(line, &cmd, error, sizeof(error));
}

static void test_commands_without_argument(void **state)
{
	(void)state;
	assert_true(parse("help"));
	assert_int_equal(cmd.verb, COMMAND_HELP);
	assert_true(parse("  guests "));
	assert_int_equal(cmd.verb, COMMAND_GUESTS);
	assert_string_equal(cmd.guest, "");
	assert_true(parse("counters"));
	assert_int_equal(cmd.verb, COMMAND_COUNTERS);
}

static void test_commands_with_guest(void **state)
{
	(void)state;
	assert_true(parse("stop rogue"));
	assert_int_equal(cmd.verb, COMMAND_STOP);
	assert_string_equal(cmd.guest, "rogue");
	assert_true(parse("start   alpha"));
	assert_int_equal(cmd.verb, COMMAND_START);
	assert_string_equal(cmd.guest, "alpha");
	assert_true(parse("restart beta  "));
	assert_int_equal(cmd.verb, COMMAND_RESTART);
	assert_string_equal(cmd.guest, "beta");
}

static void test_wrong_argument_count(void **state)
{
	(void)state;
	assert_false(parse("stop"));
	assert_string_equal(error, "stop takes one guest name");
	assert_false(parse("restart a b"));
	assert_string_equal(error, "restart takes one guest name");
	assert_false(parse("guests all"));
	assert_string_equal(error, "guests takes no argument");
	assert_false(parse("help me now please"));
	assert_string_equal(error, "help takes no argument");
}

static void test_stat_switch(void **state)
{
	(void)state;
	assert_true(parse("stat on"));
	assert_int_equal(cmd.verb, COMMAND_STAT);
	assert_true(cmd.stat_on);
	assert_true(parse(" stat  off"));
	assert_int_equal(cmd.verb, COMMAND_STAT);
	assert_false(cmd.stat_on);
	assert_false(parse("stat"));
	assert_string_equal(error, "stat takes on or off");
	assert_false(parse("stat maybe"));
	assert_string_equal(error, "stat takes on or off");
	assert_false(parse("stat on off"));
	assert_string_equal(error, "stat takes on or off");
}

static void test_unknown_and_empty(void **state)
{
	(void)state;
	assert_false(parse("frobnicate x"));
	assert_string_equal(error, "unknown command 'frobnicate' (help lists the commands)");
	assert_false(parse("STOP rogue"));
	assert_non_null(strstr(error, "'STOP'"));
	assert_false(parse("stops rogue"));
	assert_false(parse("   "));
	assert_string_equal(error, "empty line (help lists the commands)");
}

static void test_too_long(void **state)
{
	char line[200];

	(void)state;
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	assert_false(parse(line));
	assert_string_equal(error, "line longer than 127 characters");

	strcpy(line, "stop ");
	memset(line + 5, 'n', CONFIG_NAME_MAX);
	line[5 + CONFIG_NAME_MAX] = '\0';
	assert_false(parse(line));
	assert_non_null(strstr(error, "is too long"));
	line[5 + CONFIG_NAME_MAX - 1] = '\0';
	assert_true(parse(line));
	assert_int_equal(strlen(cmd.guest), CONFIG_NAME_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commands_without_argument),
		cmocka_unit_test(test_commands_with_guest),
		cmocka_unit_test(test_wrong_argument_count),
		cmocka_unit_test(test_stat_switch),
		cmocka_unit_test(test_unknown_and_empty),
		cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
