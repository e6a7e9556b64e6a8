/* SPDX-License-Identifier: MIT */
/*
 * test_virtio_console.c - unit tests for hv/virtio/virtio_console.c, through
 * the device core (hv/virtio/virtio_dev.c) as the glue drives it: a
 * test driver plays Linux's virtio console (virtio 1.1 §5.3). Transmitted
 * bytes become lines across buffers and chains, buffers come back used
 * with nothing written, interrupts follow the driver's wishes, the
 * receiveq asks for no kicks, and a malformed transmit chain marks the
 * device for a reset without printing a byte of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/virtio_config.h>

#include "tests/unit/support/stderr_capture.h"
#include "tests/unit/support/vring_driver.h"
#include "virtio/virtio_console.h"

#define GUEST_MEM	0x40000ull	/* 256 KiB: rx half, tx half */
#define QSIZE		16
#define FEATURES	(1ull << VIRTIO_F_VERSION_1)
#define LINES		32

struct world {
	struct guest_mem mem;
	struct vring_driver rx, tx;
	unsigned int interrupts[VIRTIO_CONSOLE_QUEUES];
	unsigned int config_changes;	/* a failure tells the driver once */
	unsigned int lines;
	char line[LINES][TEXT_LINE_MAX];
	struct virtio_console dev;
};

static void record_line(void *ctx, const char *line)
{
	struct world *w = ctx;

	assert_true(w->lines < LINES);
	assert_true(strlen(line) < TEXT_LINE_MAX);
	strcpy(w->line[w->lines++], line);
}

static void record_interrupt(struct virtio_dev *dev, unsigned int source)
{
	struct world *w = dev->ctx;

	if (source == VIRTIO_DEV_CONFIG_CHANGE) {
		w->config_changes++;
		return;
	}
	assert_true(source < VIRTIO_CONSOLE_QUEUES);
	w->interrupts[source]++;
}

/* The driver's bring-up (§3.1.1): queues laid out, then DRIVER_OK. */
static void world_configure(struct world *w)
{
	struct virtq_layout rx, tx;

	vring_driver_init(&w->rx, &w->mem, QSIZE, 0, GUEST_MEM / 2);
	vring_driver_init(&w->tx, &w->mem, QSIZE, GUEST_MEM / 2, GUEST_MEM);
	assert_true(virtio_dev_set_features(&w->dev.vdev, FEATURES));
	rx = vring_driver_layout(&w->rx);
	tx = vring_driver_layout(&w->tx);
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, VIRTIO_CONSOLE_RX_QUEUE, &rx), 0);
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE, &tx), 0);
	virtio_dev_start(&w->dev.vdev);
}

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct virtio_dev_params params = { .name = "g", .interrupt = record_interrupt,
					    .sink = record_line };

	if (!w)
		return -1;
	w->mem.size = GUEST_MEM;
	w->mem.base = calloc(1, GUEST_MEM);	/* exactly: ASan sees any stray access */
	if (!w->mem.base)
		return -1;
	params.mem = &w->mem;
	params.ctx = w;
	params.sink_ctx = w;
	assert_null(virtio_console_ops.init(&w->dev.vdev, &params));
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

/* Posts text as one transmit chain, split into buffers at each '|'. */
static uint16_t post_text(struct world *w, const char *text)
{
	struct vring_buf bufs[8];
	unsigned int count = 0;
	const char *p = text;

	while (*p || count == 0) {
		size_t n = strcspn(p, "|");

		assert_true(count < 8);
		bufs[count].gpa = vring_driver_alloc(&w->tx, (uint32_t)n);
		bufs[count].len = (uint32_t)n;
		bufs[count].writable = false;
		memcpy(vring_driver_ptr(&w->tx, bufs[count].gpa), p, n);
		count++;
		p += n;
		if (*p != '|')
			break;
		p++;
	}
	return vring_driver_post(&w->tx, bufs, count, false);
}

static void test_config(void **state)
{
	struct world *w = *state;

	assert_int_equal(virtio_dev_read_config(&w->dev.vdev, 0, 2), 0);	/* cols */
	assert_int_equal(virtio_dev_read_config(&w->dev.vdev, 2, 2), 0);	/* rows */
	assert_int_equal(virtio_dev_read_config(&w->dev.vdev, 4, 4), 1);	/* max_nr_ports */
	assert_int_equal(virtio_dev_read_config(&w->dev.vdev, 12, 4), 0);	/* past the end */
	assert_int_equal(virtio_dev_read_config(&w->dev.vdev, 10, 4), 0);
}

/* The transmitq asks for every kick; the receiveq for none (§2.6.10). */
static void test_notify_wishes(void **state)
{
	struct world *w = *state;

	assert_int_equal(w->tx.used->flags, 0);
	assert_int_equal(w->rx.used->flags, VRING_USED_F_NO_NOTIFY);
}

static void test_lines_across_buffers_and_chains(void **state)
{
	struct world *w = *state;
	uint16_t h1, h2;
	uint32_t id, len;

	h1 = post_text(w, "hel|lo\r\nwor");
	h2 = post_text(w, "ld\n\x1b[1mx\n");
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);

	assert_int_equal(w->lines, 3);
	assert_string_equal(w->line[0], "hello");
	assert_string_equal(w->line[1], "world");
	assert_string_equal(w->line[2], ".[1mx");
	assert_true(vring_driver_take_used(&w->tx, &id, &len));
	assert_int_equal(id, h1);
	assert_int_equal(len, 0);
	assert_true(vring_driver_take_used(&w->tx, &id, &len));
	assert_int_equal(id, h2);
	assert_int_equal(len, 0);
	assert_false(vring_driver_take_used(&w->tx, &id, &len));
	assert_int_equal(w->interrupts[VIRTIO_CONSOLE_TX_QUEUE], 1);
	assert_int_equal(w->dev.stats.tx_chains, 2);
	assert_int_equal(w->dev.stats.tx_bytes, 19);
}

static void test_no_interrupt_when_suppressed(void **state)
{
	struct world *w = *state;
	uint32_t id, len;

	w->tx.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	post_text(w, "quiet\n");
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);
	assert_int_equal(w->lines, 1);
	assert_true(vring_driver_take_used(&w->tx, &id, &len));
	assert_int_equal(w->interrupts[VIRTIO_CONSOLE_TX_QUEUE], 0);
}

/* Only a kick on the transmitq of a running device prints. */
static void test_kicks_that_do_nothing(void **state)
{
	struct world *w = *state;
	uint32_t id, len;

	post_text(w, "later\n");
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_RX_QUEUE);
	virtio_console_ops.kick(&w->dev.vdev, 7);
	assert_int_equal(w->lines, 0);
	assert_false(vring_driver_take_used(&w->tx, &id, &len));
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);
	assert_int_equal(w->lines, 1);
	assert_string_equal(w->line[0], "later");
}

/* A chain's bytes past VIRTIO_CONSOLE_CHAIN_MAX are counted, not printed. */
static void test_long_chain_truncated(void **state)
{
	struct world *w = *state;
	struct vring_buf buf = { .len = VIRTIO_CONSOLE_CHAIN_MAX + 100 };
	uint32_t id, len;

	buf.gpa = vring_driver_alloc(&w->tx, buf.len);
	memset(vring_driver_ptr(&w->tx, buf.gpa), 'a', buf.len);
	vring_driver_post(&w->tx, &buf, 1, false);
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);
	assert_int_equal(w->dev.stats.tx_bytes, VIRTIO_CONSOLE_CHAIN_MAX);
	assert_int_equal(w->dev.stats.tx_truncated, 100);
	assert_int_equal(w->lines, VIRTIO_CONSOLE_CHAIN_MAX / (TEXT_LINE_MAX - 1));
	assert_true(vring_driver_take_used(&w->tx, &id, &len));
}

/* A device-writable buffer on the transmitq breaks the device, not the host. */
static void test_writable_transmit_chain(void **state)
{
	struct world *w = *state;
	struct vring_buf bufs[2] = { { .len = 4 }, { .len = 4, .writable = true } };
	uint32_t id, len;

	bufs[0].gpa = vring_driver_alloc(&w->tx, 4);
	bufs[1].gpa = vring_driver_alloc(&w->tx, 4);
	memcpy(vring_driver_ptr(&w->tx, bufs[0].gpa), "bad\n", 4);
	vring_driver_post(&w->tx, bufs, 2, false);
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);
	assert_true(virtio_dev_needs_reset(&w->dev.vdev));
	assert_int_equal(w->config_changes, 1);
	assert_int_equal(w->lines, 0);
	assert_false(vring_driver_take_used(&w->tx, &id, &len));

	/* Nothing more is served until a reset and a new bring-up. */
	post_text(w, "after\n");
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);
	assert_int_equal(w->lines, 0);
	virtio_dev_reset(&w->dev.vdev);
	assert_false(virtio_dev_needs_reset(&w->dev.vdev));
	memset(w->mem.base, 0, GUEST_MEM);
	world_configure(w);
	post_text(w, "again\n");
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);
	assert_int_equal(w->lines, 1);
	assert_string_equal(w->line[0], "again");
}

static void test_rings_outside_ram(void **state)
{
	struct world *w = *state;
	struct virtq_layout bad = { .size = QSIZE, .desc = GUEST_MEM, .avail = 0, .used = 0x1000 };
	char log[256];

	virtio_dev_reset(&w->dev.vdev);
	stderr_capture_begin();
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE, &bad), -1);
	stderr_capture_end(log, sizeof(log));
	assert_true(virtio_dev_needs_reset(&w->dev.vdev));
	assert_int_equal(virtio_dev_enable_queue(&w->dev.vdev, 2, &bad), -1);
}

/* A reset hands over the partial line: nothing the guest printed is lost. */
static void test_reset_flushes_partial_line(void **state)
{
	struct world *w = *state;

	post_text(w, "no newline");
	virtio_console_ops.kick(&w->dev.vdev, VIRTIO_CONSOLE_TX_QUEUE);
	assert_int_equal(w->lines, 0);
	virtio_dev_reset(&w->dev.vdev);
	assert_int_equal(w->lines, 1);
	assert_string_equal(w->line[0], "no newline");
	assert_false(w->dev.vdev.running);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)
	const struct CMUnitTest tests[] = {
		T(test_config),
		T(test_notify_wishes),
		T(test_lines_across_buffers_and_chains),
		T(test_no_interrupt_when_suppressed),
		T(test_kicks_that_do_nothing),
		T(test_long_chain_truncated),
		T(test_writable_transmit_chain),
		T(test_rings_outside_ram),
		T(test_reset_flushes_partial_line),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
