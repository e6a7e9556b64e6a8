/* SPDX-License-Identifier: MIT */
/*
 * test_virtio_dev.c - unit tests for hv/virtio/virtio_dev.c, the lifecycle
 * every device model shares, over a fake model: init refuses what the
 * transport could not show; a feature set must be a subset of the offer
 * with VERSION_1 and keep the model's own rules; only a queue the features
 * map is enabled, asking for kicks where the model wants them; the first
 * failure alone stops the model and raises a configuration change;
 * DRIVER_OK starts only a device that is not broken, then runs the glue's
 * start hook; a reset forgets queues, features and failure; configuration
 * reads are byte-exact and bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/virtio_config.h>

#include "lib/container.h"
#include "tests/unit/support/stderr_capture.h"
#include "tests/unit/support/vring_driver.h"
#include "virtio/virtio_dev.h"

#define GUEST_MEM	0x30000ull	/* a ring area per queue */
#define AREA		0x10000u
#define QSIZE		16
#define F(bit)		(1ull << (bit))
#define F_EXTRA		0	/* maps queue 2 */
#define F_NEEDS_EXTRA	1	/* only with F_EXTRA */
#define VERSION_1	F(VIRTIO_F_VERSION_1)

struct fake {
	struct virtio_dev vdev;
	struct virtq queue[3];
	unsigned int starts, stops, resets, started;
	unsigned int interrupts, config_changes;
};

static struct fake *to_fake(const struct virtio_dev *vdev)
{
	return container_of(vdev, struct fake, vdev);
}

static struct virtq *fake_queue(struct virtio_dev *vdev, unsigned int index)
{
	if (index < 2 || (index == 2 && virtio_dev_has(vdev, F_EXTRA)))
		return &to_fake(vdev)->queue[index];
	return NULL;
}

static void fake_config(const struct virtio_dev *vdev, void *bytes)
{
	(void)vdev;
	memcpy(bytes, (const uint8_t[]){ 0x11, 0x22, 0x33, 0x44, 0x55, 0x66 }, 6);
}

static bool fake_features_ok(const struct virtio_dev *vdev, uint64_t features)
{
	(void)vdev;
	return !(features & F(F_NEEDS_EXTRA)) || features & F(F_EXTRA);
}

static void fake_start(struct virtio_dev *vdev)
{
	to_fake(vdev)->starts++;
}

static void fake_stop(struct virtio_dev *vdev)
{
	to_fake(vdev)->stops++;
}

static void fake_reset(struct virtio_dev *vdev)
{
	to_fake(vdev)->resets++;
}

static const struct virtio_dev_ops fake_ops = {
	.kind = "fake",
	.device_id = 1,
	.queue_size_max = QSIZE,
	.config_size = 6,
	.notify_queues = F(1),
	.size = sizeof(struct fake),
	.queue = fake_queue,
	.config = fake_config,
	.features_ok = fake_features_ok,
	.start = fake_start,
	.stop = fake_stop,
	.reset = fake_reset,
};

static void record_interrupt(struct virtio_dev *vdev, unsigned int source)
{
	if (source == VIRTIO_DEV_CONFIG_CHANGE)
		to_fake(vdev)->config_changes++;
	else
		to_fake(vdev)->interrupts++;
}

/* The glue's start hook: runs after the model's start. */
static void record_started(struct virtio_dev *vdev)
{
	assert_int_equal(to_fake(vdev)->starts, to_fake(vdev)->started + 1);
	to_fake(vdev)->started++;
}

struct world {
	struct guest_mem mem;
	struct vring_driver ring[3];
	struct fake dev;
};

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct virtio_dev_params params = { .name = "g", .interrupt = record_interrupt };

	if (!w)
		return -1;
	w->mem.size = GUEST_MEM;
	w->mem.base = calloc(1, GUEST_MEM);
	if (!w->mem.base)
		return -1;
	params.mem = &w->mem;
	if (!virtio_dev_init(&w->dev.vdev, &fake_ops, &params, F(F_EXTRA) | F(F_NEEDS_EXTRA), 3))
		return -1;
	w->dev.vdev.started = record_started;
	for (unsigned int i = 0; i < 3; i++)
		virtq_init(&w->dev.queue[i], &w->mem, "g", i);
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

static int ring_enable(struct world *w, unsigned int index)
{
	struct virtq_layout layout;

	vring_driver_init(&w->ring[index], &w->mem, QSIZE, index * AREA, (index + 1) * AREA);
	layout = vring_driver_layout(&w->ring[index]);
	return virtio_dev_enable_queue(&w->dev.vdev, index, &layout);
}

static void test_init_refusals(void **state)
{
	struct world *w = *state;
	struct virtio_dev_params params = { .name = "g", .mem = &w->mem,
					    .interrupt = record_interrupt };
	struct virtio_dev_ops big = fake_ops;
	struct virtio_dev dev;

	assert_int_equal(w->dev.vdev.offered, VERSION_1 | F(F_EXTRA) | F(F_NEEDS_EXTRA));
	assert_int_equal(w->dev.vdev.num_queues, 3);
	assert_false(virtio_dev_init(&dev, &fake_ops, &params, 0, 0));
	assert_false(virtio_dev_init(&dev, &fake_ops, &params, 0, 65));
	assert_true(virtio_dev_init(&dev, &fake_ops, &params, 0, 64));
	big.config_size = VIRTIO_DEV_CONFIG_MAX + 1;
	assert_false(virtio_dev_init(&dev, &big, &params, 0, 1));
	params.interrupt = NULL;
	assert_false(virtio_dev_init(&dev, &fake_ops, &params, 0, 1));
	params.interrupt = record_interrupt;
	params.mem = NULL;
	assert_false(virtio_dev_init(&dev, &fake_ops, &params, 0, 1));
}

static void test_features(void **state)
{
	struct virtio_dev *dev = &((struct world *)*state)->dev.vdev;

	assert_false(virtio_dev_set_features(dev, F(F_EXTRA)));		/* no VERSION_1 */
	assert_false(virtio_dev_set_features(dev, VERSION_1 | F(VIRTIO_F_RING_PACKED)));
	assert_false(virtio_dev_set_features(dev, VERSION_1 | F(F_NEEDS_EXTRA)));
	assert_int_equal(dev->features, 0);
	assert_true(virtio_dev_set_features(dev, VERSION_1 | F(F_EXTRA) | F(F_NEEDS_EXTRA)));
	assert_false(virtio_dev_set_features(dev, F(F_EXTRA)));
	assert_int_equal(dev->features, VERSION_1 | F(F_EXTRA) | F(F_NEEDS_EXTRA));
}

/* Queue 2 exists only with F_EXTRA; queue 1 asks for every kick, the others for none. */
static void test_queue_map_and_notify(void **state)
{
	struct world *w = *state;

	assert_true(virtio_dev_set_features(&w->dev.vdev, VERSION_1 | F(F_EXTRA)));
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(ring_enable(w, i), 0);
	assert_int_equal(w->ring[0].used->flags, VRING_USED_F_NO_NOTIFY);
	assert_int_equal(w->ring[1].used->flags, 0);
	assert_int_equal(w->ring[2].used->flags, VRING_USED_F_NO_NOTIFY);
	assert_false(virtio_dev_needs_reset(&w->dev.vdev));
	assert_ptr_equal(virtio_dev_queue(&w->dev.vdev, 2), &w->dev.queue[2]);
	assert_null(virtio_dev_queue(&w->dev.vdev, 3));

	virtio_dev_reset(&w->dev.vdev);
	assert_true(virtio_dev_set_features(&w->dev.vdev, VERSION_1));
	assert_null(virtio_dev_queue(&w->dev.vdev, 2));
	assert_int_equal(ring_enable(w, 2), -1);
	assert_true(virtio_dev_needs_reset(&w->dev.vdev));
}

/* The first failure stops the model and tells the driver; later ones do nothing. */
static void test_fail_once(void **state)
{
	struct world *w = *state;
	struct virtq_layout outside = { .size = QSIZE, .desc = GUEST_MEM, .avail = 0,
					.used = 0x1000 };
	char log[256];

	assert_true(virtio_dev_set_features(&w->dev.vdev, VERSION_1));
	stderr_capture_begin();
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, 0, &outside), -1);
	stderr_capture_end(log, sizeof(log));
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, 5, &outside), -1);
	virtio_dev_fail(&w->dev.vdev);
	assert_true(virtio_dev_needs_reset(&w->dev.vdev));
	assert_int_equal(w->dev.stops, 1);
	assert_int_equal(w->dev.config_changes, 1);

	/* DRIVER_OK on a broken device: running, not active, the model not started. */
	virtio_dev_start(&w->dev.vdev);
	assert_true(w->dev.vdev.running);
	assert_false(virtio_dev_active(&w->dev.vdev));
	assert_int_equal(w->dev.starts, 0);
	assert_int_equal(w->dev.started, 0);
}

static void test_start_and_reset(void **state)
{
	struct world *w = *state;

	assert_true(virtio_dev_set_features(&w->dev.vdev, VERSION_1 | F(F_EXTRA)));
	assert_int_equal(ring_enable(w, 2), 0);
	virtio_dev_start(&w->dev.vdev);
	assert_true(virtio_dev_active(&w->dev.vdev));
	assert_int_equal(w->dev.starts, 1);
	assert_int_equal(w->dev.started, 1);

	virtio_dev_reset(&w->dev.vdev);
	assert_false(w->dev.vdev.running);
	assert_false(virtio_dev_active(&w->dev.vdev));
	assert_int_equal(w->dev.vdev.features, 0);
	assert_false(w->dev.queue[2].ready);
	assert_int_equal(w->dev.stops, 1);
	assert_int_equal(w->dev.resets, 1);
	assert_int_equal(w->dev.config_changes, 0);
}

/* Little-endian, byte-exact, nothing past config_size. */
static void test_read_config(void **state)
{
	const struct virtio_dev *dev = &((struct world *)*state)->dev.vdev;

	assert_int_equal(virtio_dev_read_config(dev, 0, 4), 0x44332211);
	assert_int_equal(virtio_dev_read_config(dev, 1, 1), 0x22);
	assert_int_equal(virtio_dev_read_config(dev, 4, 2), 0x6655);
	assert_int_equal(virtio_dev_read_config(dev, 4, 4), 0x6655);
	assert_int_equal(virtio_dev_read_config(dev, 6, 4), 0);
	assert_int_equal(virtio_dev_read_config(dev, 0x7fffffff, 4), 0);
	assert_int_equal(virtio_dev_read_config(dev, 0, 8), 0x44332211);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_init_refusals),
		T(test_features),
		T(test_queue_map_and_notify),
		T(test_fail_once),
		T(test_start_and_reset),
		T(test_read_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
