// SPDX-License-Identifier: MIT
/*
 * test_extable.c - unit tests for hv/arch/extable.c: the exception-table
 * lookup that turns a fault in the hypervisor into a return at its fixup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "arch/extable.h"

static const struct extable_entry table[] = {
	{ 0x201000, 0x201003 },
	{ 0x200800, 0x200802 },	/* link order: not sorted */
	{ 0x2ffffe, 0x300001 },
};

static const struct extable_entry *end = table + sizeof(table) / sizeof(table[0]);

static void test_listed_instructions_find_their_fixup(void **state)
{
	(void)state;
	assert_int_equal(extable_search(table, end, 0x201000), 0x201003);
	assert_int_equal(extable_search(table, end, 0x200800), 0x200802);
	assert_int_equal(extable_search(table, end, 0x2ffffe), 0x300001);
}

/* Any other address, the fixups themselves included, is a real fault. */
static void test_other_addresses_are_not_fixed(void **state)
{
	(void)state;
	assert_int_equal(extable_search(table, end, 0x201001), 0);
	assert_int_equal(extable_search(table, end, 0x201003), 0);
	assert_int_equal(extable_search(table, end, 0x2007ff), 0);
	assert_int_equal(extable_search(table, end, 0), 0);
	assert_int_equal(extable_search(table, end, ~0ull), 0);
}

static void test_empty_table(void **state)
{
	(void)state;
	assert_int_equal(extable_search(table, table, 0x201000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed_instructions_find_their_fixup),
		cmocka_unit_test(test_other_addresses_are_not_fixed),
		cmocka_unit_test(test_empty_table),
	};

	return cmocka_run_group_tests_name("extable", tests, NULL, NULL);
}
