/* SPDX-License-Identifier: MIT */
/*
 * test_guest_devices.c - a guest is created with all its devices or with
 * none. Its virtio-net and virtio console come up, its vsock function then
 * fails, registered (its CID is another guest's) or not (no PCI slot left);
 * after guest_device_remove_all() nothing of the guest stays on its
 * sidecore, the switch, the vsock table or its bus, every page it took is
 * free again, and the other guest's port and device are where they were.
 *
 * guest_device.c, guest_net.c, guest_vsock.c and guest_virtio.c are
 * glue, not pure modules: they are compiled in here, with stand-ins for the console, the TSC and the vCPUs they call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "guest/guest_device.c"
#include "guest/guest_net.c"
#include "guest/guest_virtio.c"
#include "guest/guest_vsock.c"
#include "tests/unit/support/glue_stubs.h"
#include "virtio/virtio_console.h"

#define GUEST_RAM	(1u << 20)
#define POOL_BYTES	(4u << 20)
#define OTHER_CID	7

void vcpu_send_interrupt(struct vcpu *v, uint8_t vector)
{
	(void)v;
	(void)vector;
}

struct world {
	void *pool_memory;
	uint64_t pool_free;		/* before the guest's devices */
	struct sidecore sidecore;
	struct net_switch sw;
	struct net_port other_port;	/* another guest's, added first */
	struct virtio_vsock other_vsock;
	struct guest guest;
	struct config_guest config;
	void *ram;
};

static int world_setup(void **state)
{
	static const uint8_t other_mac[6] = { 0x52, 0x54, 0, 0, 0, 2 };
	struct world *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	w->pool_memory = aligned_alloc(PAGE_SIZE, POOL_BYTES);
	w->ram = calloc(1, GUEST_RAM);
	if (!w->pool_memory || !w->ram)
		return -1;
	page_alloc_init(1);
	page_pool_add(page_alloc_pool(0), (uintptr_t)w->pool_memory, POOL_BYTES);
	w->pool_free = page_pool_free_bytes(page_alloc_pool(0));

	net_switch_init(&w->sw);
	w->sidecore.sw = &w->sw;
	w->sidecore.tx_holdoff = 1000;
	memcpy(w->other_port.mac, other_mac, sizeof(other_mac));
	if (!net_switch_add_port(&w->sw, &w->other_port))
		return -1;
	memset(&guest_vsock_table, 0, sizeof(guest_vsock_table));
	w->other_vsock.cid = OTHER_CID;
	if (!virtio_vsock_table_add(&guest_vsock_table, &w->other_vsock))
		return -1;

	strcpy(w->guest.name, "partial");
	w->guest.config = &w->config;
	w->guest.ram_hpa = (uintptr_t)w->ram;
	w->guest.ram_size = GUEST_RAM;
	w->guest.vcpu_count = 1;
	w->guest.vcpu[0] = (struct vcpu){ .guest = &w->guest };
	vpci_bus_init(&w->guest.pci);
	*state = w;
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;

	free(w->pool_memory);
	free(w->ram);
	free(w);
	return 0;
}

/* The first two devices come up and hold what a running guest's hold. */
static void create_first_two(struct world *w)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 1 };
	static const uint32_t storm[2] = { 0, 0 };

	assert_true(guest_net_create(&w->guest, &w->sidecore, mac, false, storm));
	assert_non_null(guest_virtio_create(&w->guest, NULL, &virtio_console_ops, NULL));
	assert_int_equal(w->guest.device_count, 2);
	assert_int_equal(w->sidecore.port_count, 1);
	assert_int_equal(w->sw.count, 2);
	assert_true(page_pool_free_bytes(page_alloc_pool(0)) < w->pool_free);
}

/* Nothing of the guest is left anywhere; the other guest is untouched. */
static void assert_nothing_left(struct world *w)
{
	assert_int_equal(w->guest.device_count, 0);
	for (unsigned int slot = 0; slot < VPCI_SLOTS; slot++)
		assert_null(w->guest.pci.slot[slot]);
	assert_int_equal(w->sidecore.port_count, 0);
	assert_int_equal(w->sw.count, 1);
	assert_ptr_equal(w->sw.port[0], &w->other_port);
	assert_int_equal(w->other_port.index, 0);
	assert_int_equal(guest_vsock_table.count, 1);
	assert_ptr_equal(guest_vsock_table.dev[0], &w->other_vsock);
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(0)), w->pool_free);
}

/* The vsock function is on the bus when its CID turns out to be taken. */
static void test_third_device_fails_registered(void **state)
{
	struct world *w = *state;

	create_first_two(w);
	assert_false(guest_vsock_create(&w->guest, &w->sidecore, OTHER_CID));
	assert_int_equal(w->guest.device_count, 3);
	guest_device_remove_all(&w->guest);
	assert_nothing_left(w);
}

/* The bus has no slot left for it: it is freed at once, the others after. */
static void test_third_device_fails_unregistered(void **state)
{
	static struct vpci_device filler[VPCI_SLOTS];
	struct world *w = *state;

	create_first_two(w);
	for (unsigned int slot = 3; slot < VPCI_SLOTS; slot++)
		assert_true(vpci_bus_add(&w->guest.pci, slot, &filler[slot]));
	assert_false(guest_vsock_create(&w->guest, &w->sidecore, OTHER_CID + 1));
	assert_int_equal(w->guest.device_count, 2);
	for (unsigned int slot = 3; slot < VPCI_SLOTS; slot++)
		vpci_bus_remove(&w->guest.pci, slot);
	guest_device_remove_all(&w->guest);
	assert_nothing_left(w);
}

/* A guest whose three devices all came up keeps them, CID and all. */
static void test_all_three_stay(void **state)
{
	struct world *w = *state;

	create_first_two(w);
	assert_true(guest_vsock_create(&w->guest, &w->sidecore, OTHER_CID + 1));
	assert_int_equal(w->guest.device_count, 3);
	assert_int_equal(w->sidecore.port_count, 2);
	assert_int_equal(guest_vsock_table.count, 2);
	guest_device_remove_all(&w->guest);
	assert_nothing_left(w);
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_third_device_fails_registered),
		T(test_third_device_fails_unregistered),
		T(test_all_three_stay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
