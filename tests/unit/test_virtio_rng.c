/* SPDX-License-Identifier: MIT */
/*
 * test_virtio_rng.c - unit tests for hv/virtio/virtio_rng.c, through the
 * device core as the glue drives it: a test driver plays Linux's
 * virtio-rng (virtio 1.1 §5.4). CPUID picks RDRAND, else RDSEED, else no
 * device; requests come back filled across buffers, capped per chain and
 * short when the source stays dry; a device-readable buffer fails the
 * device once. A stand-in source makes the bytes known; the host's own
 * RDRAND or RDSEED is tried once where it has one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>

#include "arch/x86.h"
#include "tests/unit/support/vring_driver.h"
#include "virtio/virtio_rng.h"

#define GUEST_MEM	0x40000ull
#define QSIZE		16
#define FEATURES	(1ull << VIRTIO_F_VERSION_1)

struct world {
	struct guest_mem mem;
	struct vring_driver rq;
	unsigned int interrupts;
	unsigned int config_changes;
	struct virtio_rng dev;
};

/* Words 0x0101..01, 0x0202..02, ...; dry after stand_in_left of them. */
static uint8_t stand_in_next;
static unsigned int stand_in_left;

static bool stand_in_source(uint64_t *word)
{
	if (!stand_in_left)
		return false;
	stand_in_left--;
	stand_in_next++;
	*word = 0x0101010101010101ull * stand_in_next;
	return true;
}

static void record_interrupt(struct virtio_dev *dev, unsigned int source)
{
	struct world *w = dev->ctx;

	if (source == VIRTIO_DEV_CONFIG_CHANGE)
		w->config_changes++;
	else
		w->interrupts++;
}

static void world_configure(struct world *w)
{
	struct virtq_layout layout;

	vring_driver_init(&w->rq, &w->mem, QSIZE, 0, GUEST_MEM);
	layout = vring_driver_layout(&w->rq);
	assert_true(virtio_dev_set_features(&w->dev.vdev, FEATURES));
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, VIRTIO_RNG_QUEUE, &layout), 0);
	virtio_dev_start(&w->dev.vdev);
}

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct virtio_dev_params params = { .name = "g", .interrupt = record_interrupt };
	const char *refused;

	if (!w)
		return -1;
	w->mem.size = GUEST_MEM;
	w->mem.base = calloc(1, GUEST_MEM);	/* exactly: ASan sees any stray access */
	if (!w->mem.base)
		return -1;
	params.mem = &w->mem;
	params.ctx = w;
	refused = virtio_rng_ops.init(&w->dev.vdev, &params);
	if (refused) {
		/* A host without either instruction gets no device: nothing more to drive. */
		assert_string_equal(refused, "the host has neither RDRAND nor RDSEED");
		free(w->mem.base);
		free(w);
		return -1;
	}
	w->dev.source = stand_in_source;
	stand_in_next = 0;
	stand_in_left = 1000;
	world_configure(w);
	*state = w;
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;

	free(w->mem.base);
	free(w);
	return 0;
}

/* Posts one chain of device-writable buffers of the given lengths. */
static uint16_t post_request(struct world *w, const uint32_t *lens, unsigned int count,
			     struct vring_buf *bufs)
{
	for (unsigned int i = 0; i < count; i++) {
		bufs[i].len = lens[i];
		bufs[i].gpa = vring_driver_alloc(&w->rq, lens[i]);
		bufs[i].writable = true;
	}
	return vring_driver_post(&w->rq, bufs, count, false);
}

static void test_cpuid_picks_the_source(void **state)
{
	virtio_rng_source_fn rdrand = virtio_rng_pick_source(1u << 30, 0);
	virtio_rng_source_fn rdseed = virtio_rng_pick_source(0, 1u << 18);
	struct cpuid_regs leaf1 = cpuid(1, 0);
	virtio_rng_source_fn host;
	uint64_t word = 0;

	(void)state;
	assert_non_null(rdrand);
	assert_non_null(rdseed);
	assert_ptr_not_equal(rdrand, rdseed);
	assert_ptr_equal(virtio_rng_pick_source(1u << 30, 1u << 18), rdrand);
	assert_null(virtio_rng_pick_source(~(1u << 30), ~(1u << 18)));
	/* This host's own instruction, where it has one, gives a word. */
	host = virtio_rng_pick_source(leaf1.ecx, cpuid(0, 0).eax >= 7 ? cpuid(7, 0).ebx : 0);
	if (host)
		assert_true(host(&word));
}

/* The core's view: one queue, no config, nothing offered beyond VERSION_1. */
static void test_identity(void **state)
{
	struct world *w = *state;
	struct virtq_layout layout = vring_driver_layout(&w->rq);

	assert_int_equal(w->dev.vdev.ops->device_id, VIRTIO_ID_RNG);
	assert_int_equal(w->dev.vdev.num_queues, 1);
	assert_int_equal(w->dev.vdev.offered, FEATURES);
	assert_int_equal(virtio_dev_read_config(&w->dev.vdev, 0, 4), 0);
	assert_false(virtio_dev_set_features(&w->dev.vdev, FEATURES | 1ull << VIRTIO_F_RING_PACKED));
	assert_int_equal(w->rq.used->flags, 0);	/* every request is kicked */
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, 1, &layout), -1);
	assert_true(virtio_dev_needs_reset(&w->dev.vdev));
	assert_int_equal(w->config_changes, 1);
}

static void test_request_filled_across_buffers(void **state)
{
	struct world *w = *state;
	const uint32_t lens[] = { 5, 12 };
	struct vring_buf bufs[2];
	uint16_t head = post_request(w, lens, 2, bufs);
	const uint8_t *a = vring_driver_ptr(&w->rq, bufs[0].gpa);
	const uint8_t *b = vring_driver_ptr(&w->rq, bufs[1].gpa);
	uint32_t id, len;

	virtio_rng_ops.kick(&w->dev.vdev, VIRTIO_RNG_QUEUE);
	assert_true(vring_driver_take_used(&w->rq, &id, &len));
	assert_int_equal(id, head);
	assert_int_equal(len, 17);
	/* Five bytes of word 1, then words 2 and 3 (8 and 4 bytes of them). */
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(a[i], 1);
	for (unsigned int i = 0; i < 8; i++)
		assert_int_equal(b[i], 2);
	for (unsigned int i = 8; i < 12; i++)
		assert_int_equal(b[i], 3);
	assert_int_equal(w->interrupts, 1);
	assert_int_equal(w->dev.stats.requests, 1);
	assert_int_equal(w->dev.stats.bytes, 17);
}

static void test_chain_capped(void **state)
{
	struct world *w = *state;
	const uint32_t lens[] = { VIRTIO_RNG_CHAIN_MAX + 100 };
	struct vring_buf buf;
	uint32_t id, len;

	post_request(w, lens, 1, &buf);
	virtio_rng_ops.kick(&w->dev.vdev, VIRTIO_RNG_QUEUE);
	assert_true(vring_driver_take_used(&w->rq, &id, &len));
	assert_int_equal(len, VIRTIO_RNG_CHAIN_MAX);
	assert_int_equal(((const uint8_t *)vring_driver_ptr(&w->rq, buf.gpa))[VIRTIO_RNG_CHAIN_MAX], 0);
}

/* A source that stays dry hands the request back short, counted. */
static void test_dry_source(void **state)
{
	struct world *w = *state;
	const uint32_t lens[] = { 64 };
	struct vring_buf buf;
	uint32_t id, len;

	stand_in_left = 2;
	post_request(w, lens, 1, &buf);
	virtio_rng_ops.kick(&w->dev.vdev, VIRTIO_RNG_QUEUE);
	assert_true(vring_driver_take_used(&w->rq, &id, &len));
	assert_int_equal(len, 16);
	assert_int_equal(w->dev.stats.dry, 1);
	assert_false(virtio_dev_needs_reset(&w->dev.vdev));
}

/* §5.4.6.1: a device-readable buffer breaks the device, once, and nothing is written. */
static void test_readable_buffer_fails(void **state)
{
	struct world *w = *state;
	struct vring_buf bufs[2] = { { .len = 8 }, { .len = 8, .writable = true } };
	uint32_t id, len;

	bufs[0].gpa = vring_driver_alloc(&w->rq, 8);
	bufs[1].gpa = vring_driver_alloc(&w->rq, 8);
	vring_driver_post(&w->rq, bufs, 2, false);
	virtio_rng_ops.kick(&w->dev.vdev, VIRTIO_RNG_QUEUE);
	virtio_rng_ops.kick(&w->dev.vdev, VIRTIO_RNG_QUEUE);
	assert_true(virtio_dev_needs_reset(&w->dev.vdev));
	assert_int_equal(w->config_changes, 1);
	assert_false(vring_driver_take_used(&w->rq, &id, &len));
	assert_int_equal(w->dev.stats.bytes, 0);

	/* A reset and a new bring-up serve requests again. */
	virtio_dev_reset(&w->dev.vdev);
	assert_false(virtio_dev_needs_reset(&w->dev.vdev));
	memset(w->mem.base, 0, GUEST_MEM);
	world_configure(w);
	bufs[1].gpa = vring_driver_alloc(&w->rq, 8);
	vring_driver_post(&w->rq, &bufs[1], 1, false);
	virtio_rng_ops.kick(&w->dev.vdev, VIRTIO_RNG_QUEUE);
	assert_true(vring_driver_take_used(&w->rq, &id, &len));
	assert_int_equal(len, 8);
}

/* Only a kick on the requestq of a running device is served. */
static void test_kicks_that_do_nothing(void **state)
{
	struct world *w = *state;
	const uint32_t lens[] = { 8 };
	struct vring_buf buf;
	uint32_t id, len;

	post_request(w, lens, 1, &buf);
	virtio_rng_ops.kick(&w->dev.vdev, 1);
	assert_false(vring_driver_take_used(&w->rq, &id, &len));
	virtio_dev_reset(&w->dev.vdev);
	virtio_rng_ops.kick(&w->dev.vdev, VIRTIO_RNG_QUEUE);
	assert_false(vring_driver_take_used(&w->rq, &id, &len));
	assert_int_equal(w->dev.stats.requests, 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuid_picks_the_source),
		T(test_identity),
		T(test_request_filled_across_buffers),
		T(test_chain_capped),
		T(test_dry_source),
		T(test_readable_buffer_fails),
		T(test_kicks_that_do_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
