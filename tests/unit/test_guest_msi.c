// SPDX-License-Identifier: MIT
/*
 * guest_msi_send(): a device's message to its guest's vCPUs, decoded each
 * time or, for a message that named one vCPU, remembered in the device's
 * memo and sent again without decoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "guest/guest_device.c"
#include "vdev/msi.h"

#define SENDS_MAX	8

/* guest_device.c's registry reports through it; nothing here registers. */
void printk(const char *fmt, ...)
{
	(void)fmt;
}

static struct {
	struct vcpu *vcpu[SENDS_MAX];
	uint8_t vector[SENDS_MAX];
	unsigned int count;
} sends;

void vcpu_send_interrupt(struct vcpu *v, uint8_t vector)
{
	if (sends.count < SENDS_MAX) {
		sends.vcpu[sends.count] = v;
		sends.vector[sends.count] = vector;
	}
	sends.count++;
}

static struct guest g;

static int setup(void **state)
{
	(void)state;
	memset(&sends, 0, sizeof(sends));
	memset(&g, 0, sizeof(g));
	g.vcpu_count = 2;
	g.vcpu[0].apic_id = 4;
	g.vcpu[1].apic_id = 5;
	return 0;
}

static uint64_t address_of(unsigned int dest)
{
	return MSI_ADDRESS_BASE | (uint64_t)dest << 12;
}

/* Remembered: the same message again goes to the same vCPU, once. */
static void test_memo_repeats(void **state)
{
	struct guest_msi_memo memo = { 0 };

	(void)state;
	assert_null(guest_msi_send(&g, &memo, address_of(5), 0x41));
	assert_ptr_equal(memo.vcpu, &g.vcpu[1]);
	assert_int_equal(memo.vector, 0x41);
	assert_null(guest_msi_send(&g, &memo, address_of(5), 0x41));
	assert_int_equal(sends.count, 2);
	assert_ptr_equal(sends.vcpu[1], &g.vcpu[1]);
	assert_int_equal(sends.vector[1], 0x41);
}

/* The guest reprograms the entry: the new message is decoded, never the memo sent. */
static void test_memo_follows_the_guest(void **state)
{
	struct guest_msi_memo memo = { 0 };

	(void)state;
	assert_null(guest_msi_send(&g, &memo, address_of(5), 0x41));
	assert_null(guest_msi_send(&g, &memo, address_of(4), 0x41));
	assert_ptr_equal(sends.vcpu[1], &g.vcpu[0]);
	assert_null(guest_msi_send(&g, &memo, address_of(4), 0x42));
	assert_int_equal(sends.vector[2], 0x42);
	assert_ptr_equal(memo.vcpu, &g.vcpu[0]);
	assert_int_equal(memo.vector, 0x42);
	/* A bad message is refused every time and leaves the memo as it was. */
	assert_non_null(guest_msi_send(&g, &memo, address_of(4), 0x8042));
	assert_non_null(guest_msi_send(&g, &memo, address_of(4), 0x10));
	assert_string_equal(guest_msi_send(&g, &memo, address_of(9), 0x41), "names no vCPU");
	assert_int_equal(sends.count, 3);
	assert_ptr_equal(memo.vcpu, &g.vcpu[0]);
	assert_int_equal(memo.data, 0x42);
}

/* A broadcast reaches every vCPU each time; nothing is remembered for it. */
static void test_broadcast_not_remembered(void **state)
{
	struct guest_msi_memo memo = { 0 };

	(void)state;
	assert_null(guest_msi_send(&g, &memo, address_of(MSI_DEST_BROADCAST), 0x50));
	assert_null(guest_msi_send(&g, &memo, address_of(MSI_DEST_BROADCAST), 0x50));
	assert_int_equal(sends.count, 4);
	assert_null(memo.vcpu);
	/* Lowest priority: the first vCPU only, and that one is remembered. */
	assert_null(guest_msi_send(&g, &memo, address_of(MSI_DEST_BROADCAST), 0x150));
	assert_int_equal(sends.count, 5);
	assert_ptr_equal(memo.vcpu, &g.vcpu[0]);
}

/* Without a memo every message is decoded, as before. */
static void test_no_memo(void **state)
{
	(void)state;
	assert_null(guest_msi_send(&g, NULL, address_of(4), 0x41));
	assert_null(guest_msi_send(&g, NULL, address_of(MSI_DEST_BROADCAST), 0x41));
	assert_int_equal(sends.count, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_memo_repeats, setup),
		cmocka_unit_test_setup(test_memo_follows_the_guest, setup),
		cmocka_unit_test_setup(test_broadcast_not_remembered, setup),
		cmocka_unit_test_setup(test_no_memo, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
