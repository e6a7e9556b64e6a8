/* SPDX-License-Identifier: MIT */
/*
 * test_msi.c - unit tests for hv/vdev/msi.c: what Linux programs decodes to
 * the right destination and vector, and every reserved or unsupported field
 * (Intel SDM Vol. 3A §11.11.1, §11.11.2) makes a message invalid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "vdev/msi.h"

#define BASE		0xfee00000ull
#define DEST(id)	((uint64_t)(id) << 12)
#define RH		(1u << 3)
#define DM_LOGICAL	(1u << 2)
#define LOWEST		(1u << 8)
#define LEVEL_ASSERT	(1u << 14)
#define TRIGGER_LEVEL	(1u << 15)

static struct msi_message decode_valid(uint64_t address, uint32_t data)
{
	struct msi_message msg;

	assert_null(msi_decode(address, data, &msg));
	return msg;
}

static void expect_invalid(uint64_t address, uint32_t data, const char *reason)
{
	struct msi_message msg;
	const char *why = msi_decode(address, data, &msg);

	assert_non_null(why);
	assert_string_equal(why, reason);
}

/* Today's Linux: physical destination, fixed delivery, edge, RH clear. */
static void test_physical_fixed(void **state)
{
	struct msi_message msg = decode_valid(BASE | DEST(3), 0x41);

	(void)state;
	assert_int_equal(msg.dest, 3);
	assert_false(msg.logical);
	assert_false(msg.redirection_hint);
	assert_false(msg.lowest_priority);
	assert_int_equal(msg.vector, 0x41);
}

/* Older Linux: flat logical, lowest priority with RH, level bit set (edge). */
static void test_logical_lowest_priority(void **state)
{
	struct msi_message msg = decode_valid(BASE | DEST(0x0f) | RH | DM_LOGICAL,
					      LEVEL_ASSERT | LOWEST | 0xef);

	(void)state;
	assert_int_equal(msg.dest, 0x0f);
	assert_true(msg.logical);
	assert_true(msg.redirection_hint);
	assert_true(msg.lowest_priority);
	assert_int_equal(msg.vector, 0xef);
}

/* Bits 1:0 of the address are "don't care"; vectors 32 and 255 are the bounds. */
static void test_edges(void **state)
{
	(void)state;
	assert_int_equal(decode_valid(BASE | 3, 32).vector, 32);
	assert_int_equal(decode_valid(BASE | DEST(0xff), 255).vector, 255);
	assert_int_equal(decode_valid(BASE | DEST(0xff), 0x30).dest, MSI_DEST_BROADCAST);
	assert_int_equal(decode_valid(BASE | DEST(0xff) | RH | DM_LOGICAL, 0x30).dest, 0xff);
}

/* SDM §11.11.1: the local APICs' messages have a zero upper address half. */
static void test_upper_address(void **state)
{
	(void)state;
	expect_invalid(1ull << 32 | BASE | DEST(1), 0x41, "address outside the local APIC range");
	expect_invalid(0xffffffff00000000ull | BASE, 0x41, "address outside the local APIC range");
	expect_invalid(1ull << 63 | BASE, 0x41, "address outside the local APIC range");
}

static void test_not_local_apic(void **state)
{
	(void)state;
	expect_invalid(0, 0x41, "address outside the local APIC range");
	expect_invalid(0xfed00000, 0x41, "address outside the local APIC range");
	expect_invalid(0xfef00000, 0x41, "address outside the local APIC range");
	expect_invalid(0x7ee00000, 0x41, "address outside the local APIC range");
}

static void test_reserved_bits(void **state)
{
	(void)state;
	for (unsigned int bit = 4; bit < 12; bit++)
		expect_invalid(BASE | 1u << bit, 0x41, "reserved address bits set");
	for (unsigned int bit = 11; bit < 32; bit++)
		if (bit != 14 && bit != 15)
			expect_invalid(BASE, 1u << bit | 0x41, "reserved data bits set");
	expect_invalid(BASE, TRIGGER_LEVEL | LEVEL_ASSERT | 0x41, "level-triggered");
}

static void test_delivery_modes(void **state)
{
	(void)state;
	for (uint32_t mode = 2; mode < 8; mode++)
		expect_invalid(BASE, mode << 8 | 0x41,
			       "delivery mode neither fixed nor lowest priority");
}

/* Every vector, both delivery modes: none below 32 reaches a core (the host's exceptions). */
static void test_every_vector(void **state)
{
	struct msi_message msg;

	(void)state;
	for (uint32_t vector = 0; vector < 256; vector++) {
		for (uint32_t mode = 0; mode < 2; mode++) {
			const char *why = msi_decode(BASE | DEST(1), mode << 8 | vector, &msg);

			if (vector < 32) {
				assert_non_null(why);
				assert_string_equal(why, "vector below 32");
			} else {
				assert_null(why);
				assert_int_equal(msg.vector, vector);
			}
		}
	}
}

/* SDM §11.11.1: with RH in physical mode the destination is not 0xff. */
static void test_redirection_hint_broadcast(void **state)
{
	(void)state;
	expect_invalid(BASE | DEST(0xff) | RH, 0x41,
		       "redirection hint with the broadcast destination");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_physical_fixed),
		cmocka_unit_test(test_logical_lowest_priority),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_upper_address),
		cmocka_unit_test(test_not_local_apic),
		cmocka_unit_test(test_reserved_bits),
		cmocka_unit_test(test_delivery_modes),
		cmocka_unit_test(test_every_vector),
		cmocka_unit_test(test_redirection_hint_broadcast),
	};

	return cmocka_run_group_tests_name("msi decode", tests, NULL, NULL);
}
