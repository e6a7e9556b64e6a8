/* SPDX-License-Identifier: MIT */
/*
 * test_vpci_race.c - hv/vdev/vpci.c entered from several cores at once, as
 * the vCPUs of one guest do: one sizes a 64-bit BAR through CF8/CFC (PCI
 * 3.0 §6.2.5.1) while others move it through ECAM, read it back, and move
 * the shared CF8 latch. Each access must be atomic, as on a host bridge: a
 * device's written hook runs alone, and no read returns a register torn
 * between two writes.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vdev/vpci.h"

#define DEV_SLOT	3
#define BAR0_SIZE	0x4000ull
#define ADDRESS_A	0xfe000000u
#define ADDRESS_B	0xfe004000u
#define BAR0_SIZED	((uint32_t)~(BAR0_SIZE - 1) | PCI_BASE_ADDRESS_MEM_TYPE_64)
#define BRIDGE_ID	0x12378086u	/* 440FX: vendor 8086, device 1237 */

#define ROUNDS		4
#define HOOK_SPIN	20000	/* the hook's work, in loop turns */
#define HOOK_YIELDS	2	/* turns it offers another core to come in */
#define THREADS		4

/*
 * Rounds are ordered by barriers, which sleep: spinning waiters would
 * starve a loaded host of the cores the lock holder needs.
 */
struct race {
	struct vpci_bus bus;
	struct vpci_device bridge, dev;
	pthread_barrier_t round;
	int in_hook;
	int hook_overlaps;
	int hook_out_of_range;
	int torn;
	uint32_t torn_value;
};

static uint32_t cf8(unsigned int slot, unsigned int reg)
{
	return 1u << 31 | slot << 11 | reg;
}

static uint64_t ecam(unsigned int slot, unsigned int reg)
{
	return (uint64_t)slot << 15 | reg;
}

/* A device hook with work to do (virtio's sends MSI-X messages). */
static void slow_hook(struct vpci_device *dev, unsigned int offset, unsigned int size)
{
	struct race *r = dev->ctx;

	if (__atomic_fetch_add(&r->in_hook, 1, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&r->hook_overlaps, 1, __ATOMIC_RELAXED);
	if (offset + size > PCI_CFG_SPACE_SIZE)
		__atomic_fetch_add(&r->hook_out_of_range, 1, __ATOMIC_RELAXED);
	for (volatile unsigned int i = 0; i < HOOK_SPIN; i++)
		;
	for (unsigned int i = 0; i < HOOK_YIELDS &&
	     __atomic_load_n(&r->in_hook, __ATOMIC_ACQUIRE) < 2; i++)
		sched_yield();
	__atomic_fetch_sub(&r->in_hook, 1, __ATOMIC_ACQ_REL);
}

static void check(struct race *r, uint32_t v, bool whole)
{
	if (whole)
		return;
	__atomic_store_n(&r->torn_value, v, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->torn, 1, __ATOMIC_RELAXED);
}

static bool bar0_low(uint32_t v)
{
	return v == BAR0_SIZED || v == (ADDRESS_A | PCI_BASE_ADDRESS_MEM_TYPE_64) ||
	       v == (ADDRESS_B | PCI_BASE_ADDRESS_MEM_TYPE_64);
}

/* The sizer's data writes land wherever the latch points: in the high half too. */
static bool bar0_high(uint32_t v)
{
	return v == 0 || v == 0xffffffff || v == ADDRESS_B;
}

/* Whole values of the registers the latch may point at: BAR 0's halves, the bridge's ID. */
static void check_value(struct race *r, uint32_t v)
{
	check(r, v, bar0_low(v) || bar0_high(v) || v == BRIDGE_ID);
}

/* BAR sizing the way Linux does it, through the latch other cores move. */
static void sizer_round(struct race *r)
{
	vpci_io_write(&r->bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(DEV_SLOT, PCI_BASE_ADDRESS_0));
	vpci_io_write(&r->bus, VPCI_CONFIG_DATA_PORT, 4, 0xffffffff);
	check_value(r, vpci_io_read(&r->bus, VPCI_CONFIG_DATA_PORT, 4));
	vpci_io_write(&r->bus, VPCI_CONFIG_DATA_PORT, 4, ADDRESS_B);
}

/* Moves BAR 0 through ECAM, high half included. */
static void mover_round(struct race *r)
{
	vpci_ecam_write(&r->bus, ecam(DEV_SLOT, PCI_BASE_ADDRESS_0), 4, ADDRESS_A);
	vpci_ecam_write(&r->bus, ecam(DEV_SLOT, PCI_BASE_ADDRESS_0 + 4), 4, 0);
}

static void reader_round(struct race *r)
{
	uint32_t lo = vpci_ecam_read(&r->bus, ecam(DEV_SLOT, PCI_BASE_ADDRESS_0), 4);
	uint32_t hi = vpci_ecam_read(&r->bus, ecam(DEV_SLOT, PCI_BASE_ADDRESS_0 + 4), 4);

	check(r, lo, bar0_low(lo));
	check(r, hi, bar0_high(hi));
}

/* Points the latch elsewhere and reads through it, as a second driver would. */
static void latch_round(struct race *r)
{
	uint32_t latch;

	vpci_io_write(&r->bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, 0));
	check_value(r, vpci_io_read(&r->bus, VPCI_CONFIG_DATA_PORT, 4));
	vpci_io_write(&r->bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(DEV_SLOT, PCI_BASE_ADDRESS_0 + 4));
	check_value(r, vpci_io_read(&r->bus, VPCI_CONFIG_DATA_PORT, 4));
	latch = vpci_io_read(&r->bus, VPCI_CONFIG_ADDRESS_PORT, 4);
	check(r, latch, latch == cf8(0, 0) || latch == cf8(DEV_SLOT, PCI_BASE_ADDRESS_0) ||
			latch == cf8(DEV_SLOT, PCI_BASE_ADDRESS_0 + 4));
}

struct worker {
	struct race *race;
	void (*round)(struct race *r);
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;

	for (unsigned int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&w->race->round);
		w->round(w->race);
	}
	return NULL;
}

static void test_config_accesses_race(void **state)
{
	void (*const rounds[THREADS])(struct race *) = {
		sizer_round, mover_round, reader_round, latch_round,
	};
	struct worker worker[THREADS];
	pthread_t thread[THREADS];
	struct race *r = test_calloc(1, sizeof(*r));

	(void)state;
	assert_non_null(r);
	vpci_bus_init(&r->bus);
	vpci_host_bridge_init(&r->bridge);
	vpci_device_init(&r->dev, 0x1af4, 0x1041, 0x020000, 1);
	vpci_device_set_bar64(&r->dev, 0, BAR0_SIZE, ADDRESS_A);
	r->dev.written = slow_hook;
	r->dev.ctx = r;
	assert_true(vpci_bus_add(&r->bus, 0, &r->bridge));
	assert_true(vpci_bus_add(&r->bus, DEV_SLOT, &r->dev));
	assert_int_equal(pthread_barrier_init(&r->round, NULL, THREADS), 0);
	for (unsigned int i = 0; i < THREADS; i++) {
		worker[i] = (struct worker){ .race = r, .round = rounds[i] };
		assert_int_equal(pthread_create(&thread[i], NULL, worker_run, &worker[i]), 0);
	}
	for (unsigned int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(thread[i], NULL), 0);
	pthread_barrier_destroy(&r->round);

	assert_int_equal(r->hook_overlaps, 0);
	assert_int_equal(r->hook_out_of_range, 0);
	if (r->torn)
		fail_msg("%d reads returned a value no write left whole, e.g. %#x", r->torn,
			 r->torn_value);
	/* Each core's last word stands whole: BAR sizing still works. */
	vpci_ecam_write(&r->bus, ecam(DEV_SLOT, PCI_BASE_ADDRESS_0), 4, 0xffffffff);
	assert_int_equal(vpci_ecam_read(&r->bus, ecam(DEV_SLOT, PCI_BASE_ADDRESS_0), 4), BAR0_SIZED);
	test_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_accesses_race),
	};

	return cmocka_run_group_tests_name("pci config space entered from several cores", tests,
					   NULL, NULL);
}
