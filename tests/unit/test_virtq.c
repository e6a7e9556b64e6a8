/* SPDX-License-Identifier: MIT */
/*
 * test_virtq.c - unit tests for hv/virtio/virtq.c: split virtqueue chains,
 * direct and indirect (virtio 1.1 §2.6.5), used ring and interrupt
 * suppression (§2.6.7, §2.6.8), notification suppression (§2.6.10), 16-bit
 * index wrap-around, and every malformed ring ending in a broken queue.
 *
 * The guest memory is one malloc() of exactly its size, so AddressSanitizer
 * reports any byte the walker touches outside it.
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
#include "virtio/virtq.h"

#define MEM_SIZE	0x10000ull	/* 64 KiB of guest RAM */
#define RING_SIZE	8
#define F_EVENT_IDX	(1ull << VIRTIO_RING_F_EVENT_IDX)
#define F_INDIRECT	(1ull << VIRTIO_RING_F_INDIRECT_DESC)

struct fixture {
	struct guest_mem mem;
	struct vring_driver drv;
	struct virtq vq;
	bool event_idx;
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->mem.size = MEM_SIZE;
	f->mem.base = malloc(MEM_SIZE);
	if (!f->mem.base)
		return -1;
	memset(f->mem.base, 0xa5, MEM_SIZE);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;

	free(f->mem.base);
	free(f);
	return 0;
}

/* Lays out rings of size entries at gpa 0 and enables the device side. */
static void start(struct fixture *f, uint32_t size, uint64_t features)
{
	struct virtq_layout layout;

	vring_driver_init(&f->drv, &f->mem, size, 0, MEM_SIZE);
	layout = vring_driver_layout(&f->drv);
	virtq_init(&f->vq, &f->mem, "test", 0);
	f->event_idx = features & F_EVENT_IDX;
	assert_int_equal(virtq_enable(&f->vq, &layout, features), 0);
}

static struct vring_buf rbuf(struct fixture *f, uint32_t len)
{
	return (struct vring_buf){ vring_driver_alloc(&f->drv, len), len, false };
}

static struct vring_buf wbuf(struct fixture *f, uint32_t len)
{
	return (struct vring_buf){ vring_driver_alloc(&f->drv, len), len, true };
}

static void assert_segment(struct fixture *f, const struct virtq_segment *seg,
			   const struct vring_buf *buf)
{
	assert_ptr_equal(seg->data, f->mem.base + buf->gpa);
	assert_int_equal(seg->len, buf->len);
	assert_int_equal(seg->writable, buf->writable);
}

/* Posts one writable buffer and returns its head. */
static uint16_t post_rx_head(struct fixture *f)
{
	vring_driver_post_rx(&f->drv, 64);
	return f->drv.avail->ring[(uint16_t)(f->drv.avail_idx - 1) & (f->drv.size - 1)];
}

/* Pops, pushes written bytes back and publishes: one driver request served. */
static void serve_one(struct fixture *f, uint32_t written)
{
	struct virtq_chain chain;

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	virtq_push(&f->vq, chain.head, written);
	virtq_publish(&f->vq);
}

/* --- chains ---------------------------------------------------------------- */

static void test_empty_ring(void **state)
{
	struct fixture *f = *state;
	struct virtq_chain chain;

	start(f, RING_SIZE, 0);
	assert_false(virtq_pending(&f->vq));
	assert_int_equal(virtq_pop(&f->vq, &chain), 0);
	assert_false(virtq_is_broken(&f->vq));
}

static void test_disabled_queue_is_empty(void **state)
{
	struct fixture *f = *state;
	struct virtq_chain chain;

	virtq_init(&f->vq, &f->mem, "test", 0);
	assert_false(virtq_pending(&f->vq));
	assert_int_equal(virtq_pop(&f->vq, &chain), 0);
	assert_false(virtq_needs_interrupt(&f->vq));
}

static void test_direct_chain(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[4];
	struct virtq_chain chain;
	uint32_t id, len;
	uint16_t head;

	start(f, RING_SIZE, 0);
	bufs[0] = rbuf(f, 12);
	bufs[1] = rbuf(f, 100);
	bufs[2] = wbuf(f, 200);
	bufs[3] = wbuf(f, 1);
	head = vring_driver_post(&f->drv, bufs, 4, false);
	assert_true(virtq_pending(&f->vq));

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_int_equal(chain.head, head);
	assert_int_equal(chain.count, 4);
	assert_int_equal(chain.readable, 112);
	assert_int_equal(chain.writable, 201);
	for (unsigned int i = 0; i < 4; i++)
		assert_segment(f, &chain.segment[i], &bufs[i]);
	assert_false(virtq_pending(&f->vq));

	virtq_push(&f->vq, chain.head, 150);
	assert_false(vring_driver_take_used(&f->drv, &id, &len));	/* not published yet */
	virtq_publish(&f->vq);
	assert_true(vring_driver_take_used(&f->drv, &id, &len));
	assert_int_equal(id, head);
	assert_int_equal(len, 150);
}

/* One buffer a chain, the common case, readable and writable. */
static void test_single_buffer_chains(void **state)
{
	struct fixture *f = *state;
	struct vring_buf r, w;
	struct virtq_chain chain;

	start(f, RING_SIZE, 0);
	r = rbuf(f, 1526);
	w = wbuf(f, 1);
	vring_driver_post(&f->drv, &r, 1, false);
	vring_driver_post(&f->drv, &w, 1, false);

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_int_equal(chain.count, 1);
	assert_int_equal(chain.readable, 1526);
	assert_int_equal(chain.writable, 0);
	assert_segment(f, &chain.segment[0], &r);
	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_int_equal(chain.count, 1);
	assert_int_equal(chain.readable, 0);
	assert_int_equal(chain.writable, 1);
	assert_segment(f, &chain.segment[0], &w);
	assert_int_equal(virtq_pop(&f->vq, &chain), 0);
	assert_false(virtq_is_broken(&f->vq));
}

/*
 * The descriptor after the one popped is read ahead only as a hint: the
 * driver may rewrite it before its turn, and the walk goes by what it
 * finds then.
 */
static void test_read_ahead_is_a_hint(void **state)
{
	struct fixture *f = *state;
	struct vring_buf next;
	struct virtq_chain chain;
	uint16_t head;

	start(f, RING_SIZE, 0);
	vring_driver_post_rx(&f->drv, 64);
	head = post_rx_head(f);
	post_rx_head(f);
	next = wbuf(f, 300);

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	f->drv.desc[head] = (struct vring_desc){ next.gpa, next.len, VRING_DESC_F_WRITE, 0 };
	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_int_equal(chain.head, head);
	assert_segment(f, &chain.segment[0], &next);
	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_false(virtq_is_broken(&f->vq));
}

static void test_indirect_chain(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[3];
	struct virtq_chain chain;
	uint16_t head;

	start(f, RING_SIZE, F_INDIRECT);
	bufs[0] = rbuf(f, 10);
	bufs[1] = rbuf(f, 20);
	bufs[2] = wbuf(f, 30);
	head = vring_driver_post(&f->drv, bufs, 3, true);

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_int_equal(chain.head, head);
	assert_int_equal(chain.count, 3);
	assert_int_equal(chain.readable, 30);
	assert_int_equal(chain.writable, 30);
	for (unsigned int i = 0; i < 3; i++)
		assert_segment(f, &chain.segment[i], &bufs[i]);
}

/* virtio 1.1 §2.6.5.3.2: direct descriptors may lead to one indirect table. */
static void test_direct_then_indirect(void **state)
{
	struct fixture *f = *state;
	struct vring_buf first, inner[2];
	struct virtq_chain chain;
	uint16_t table_desc;

	start(f, RING_SIZE, F_INDIRECT);
	first = rbuf(f, 8);
	inner[0] = rbuf(f, 16);
	inner[1] = wbuf(f, 32);
	table_desc = vring_driver_add_indirect(&f->drv, inner, 2);
	f->drv.desc[5] = (struct vring_desc){ first.gpa, first.len, VRING_DESC_F_NEXT, table_desc };
	vring_driver_make_available(&f->drv, 5);

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_int_equal(chain.head, 5);
	assert_int_equal(chain.count, 3);
	assert_segment(f, &chain.segment[0], &first);
	assert_segment(f, &chain.segment[1], &inner[0]);
	assert_segment(f, &chain.segment[2], &inner[1]);
}

/* Returned chains come back in the same order; unpublished entries vanish. */
static void test_unpop_and_unpush(void **state)
{
	struct fixture *f = *state;
	struct virtq_chain a, b;
	uint16_t head0, head1;
	uint32_t id, len;

	start(f, RING_SIZE, 0);
	head0 = post_rx_head(f);
	head1 = post_rx_head(f);

	assert_int_equal(virtq_pop(&f->vq, &a), 1);
	assert_int_equal(virtq_pop(&f->vq, &b), 1);
	virtq_push(&f->vq, a.head, 10);
	virtq_push(&f->vq, b.head, 20);
	virtq_unpush(&f->vq, 2);
	virtq_unpop(&f->vq, 2);
	assert_true(virtq_pending(&f->vq));
	virtq_publish(&f->vq);
	assert_false(vring_driver_take_used(&f->drv, &id, &len));

	assert_int_equal(virtq_pop(&f->vq, &a), 1);
	assert_int_equal(a.head, head0);
	assert_int_equal(virtq_pop(&f->vq, &b), 1);
	assert_int_equal(b.head, head1);
	virtq_push(&f->vq, a.head, 1);
	virtq_publish(&f->vq);
	assert_true(vring_driver_take_used(&f->drv, &id, &len));
	assert_int_equal(id, head0);
	assert_false(vring_driver_take_used(&f->drv, &id, &len));
}

/*
 * 70000 requests through a ring of size entries: every 16-bit index wraps.
 * Every third comes with a second one where the ring has room for two.
 */
static void serve_wrapping(struct fixture *f, uint32_t size)
{
	bool pairs = size > 1;
	struct vring_buf buf;
	uint32_t id, len;

	start(f, size, F_EVENT_IDX);
	buf = wbuf(f, 32);
	for (uint32_t i = 0; i < 70000; i++) {
		uint16_t head = vring_driver_post(&f->drv, &buf, 1, false);

		if (pairs && i % 3 == 0)
			vring_driver_post(&f->drv, &buf, 1, false);
		serve_one(f, i & 31);
		if (pairs && i % 3 == 0)
			serve_one(f, 0);
		assert_true(vring_driver_take_used(&f->drv, &id, &len));
		assert_int_equal(id, head);
		assert_int_equal(len, i & 31);
		if (pairs && i % 3 == 0)
			assert_true(vring_driver_take_used(&f->drv, &id, &len));
	}
	assert_false(virtq_is_broken(&f->vq));
	assert_int_equal(f->vq.used_idx, (uint16_t)(70000 + (pairs ? 70000 / 3 + 1 : 0)));
}

static void test_index_wraparound(void **state)
{
	serve_wrapping(*state, 4);
}

/* A queue of one entry: the masks are 0 and nothing is read ahead. */
static void test_queue_of_one(void **state)
{
	serve_wrapping(*state, 1);
}

/* --- interrupts (used buffer notifications, §2.6.7) ------------------------ */

static void test_interrupt_flag(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	assert_false(virtq_needs_interrupt(&f->vq));	/* nothing published */
	vring_driver_post_rx(&f->drv, 16);
	serve_one(f, 0);
	assert_true(virtq_needs_interrupt(&f->vq));
	assert_false(virtq_needs_interrupt(&f->vq));	/* nothing new since */

	f->drv.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	vring_driver_post_rx(&f->drv, 16);
	serve_one(f, 0);
	assert_false(virtq_needs_interrupt(&f->vq));

	f->drv.avail->flags = 0;
	vring_driver_post_rx(&f->drv, 16);
	serve_one(f, 0);
	assert_true(virtq_needs_interrupt(&f->vq));
}

static void test_interrupt_used_event(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, F_EVENT_IDX);
	/* The driver wants to hear when entry 2 is used (§2.6.7.1). */
	vring_driver_set_used_event(&f->drv, 2);
	f->drv.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;	/* ignored with EVENT_IDX */
	for (int i = 0; i < 5; i++)
		vring_driver_post_rx(&f->drv, 16);

	serve_one(f, 0);
	assert_false(virtq_needs_interrupt(&f->vq));	/* used idx 1 */
	serve_one(f, 0);
	assert_false(virtq_needs_interrupt(&f->vq));	/* used idx 2 */
	serve_one(f, 0);
	assert_true(virtq_needs_interrupt(&f->vq));	/* entry 2 written */
	serve_one(f, 0);
	assert_false(virtq_needs_interrupt(&f->vq));	/* past it */

	/* A batch that jumps over used_event still interrupts once. */
	vring_driver_set_used_event(&f->drv, 4);
	for (int i = 0; i < 3; i++)
		vring_driver_post_rx(&f->drv, 16);
	for (int i = 0; i < 4; i++) {
		struct virtq_chain chain;

		assert_int_equal(virtq_pop(&f->vq, &chain), 1);
		virtq_push(&f->vq, chain.head, 0);
	}
	virtq_publish(&f->vq);
	assert_true(virtq_needs_interrupt(&f->vq));
	assert_false(virtq_needs_interrupt(&f->vq));
}

/*
 * The driver has taken every used entry when its used_event names the next
 * one; Linux's 0 while it polls, or an old value, says it may not have.
 * Without EVENT_IDX the device cannot tell.
 */
static void test_all_taken(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, F_EVENT_IDX);
	assert_true(virtq_all_taken(&f->vq));		/* nothing used yet */
	for (int i = 0; i < 3; i++)
		vring_driver_post_rx(&f->drv, 16);
	serve_one(f, 0);
	serve_one(f, 0);
	assert_false(virtq_all_taken(&f->vq));
	vring_driver_set_used_event(&f->drv, 1);
	assert_false(virtq_all_taken(&f->vq));
	vring_driver_set_used_event(&f->drv, 2);
	assert_true(virtq_all_taken(&f->vq));
	serve_one(f, 0);
	assert_false(virtq_all_taken(&f->vq));

	virtq_break(&f->vq, "test", 0);
	vring_driver_set_used_event(&f->drv, 3);
	assert_false(virtq_all_taken(&f->vq));
	start(f, RING_SIZE, 0);
	assert_false(virtq_all_taken(&f->vq));
}

/* --- notifications (available buffer notifications, §2.6.10) --------------- */

static void test_notify_flag(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	assert_int_equal(f->drv.used->flags, VRING_USED_F_NO_NOTIFY);
	assert_false(vring_driver_must_notify(&f->drv, 0, false));

	assert_false(virtq_enable_notify(&f->vq));
	assert_int_equal(f->drv.used->flags, 0);
	vring_driver_post_rx(&f->drv, 16);
	assert_true(vring_driver_must_notify(&f->drv, 0, false));
	assert_true(virtq_enable_notify(&f->vq));	/* a buffer arrived meanwhile */

	virtq_disable_notify(&f->vq);
	assert_int_equal(f->drv.used->flags, VRING_USED_F_NO_NOTIFY);
}

/* With EVENT_IDX a polled queue never gets a kick, through index wrap-around. */
static void test_notify_event_idx(void **state)
{
	struct fixture *f = *state;
	struct vring_buf buf;
	uint32_t id, len, posted = 0;
	uint16_t old;

	start(f, RING_SIZE, F_EVENT_IDX);
	assert_int_equal(f->drv.used->flags, 0);	/* §2.6.10.2: flags stay 0 */
	buf = wbuf(f, 16);
	for (unsigned int batch = 1; posted < 140000; batch = batch % RING_SIZE + 1) {
		old = f->drv.avail_idx;
		for (unsigned int j = 0; j < batch; j++)
			vring_driver_post(&f->drv, &buf, 1, false);
		assert_false(vring_driver_must_notify(&f->drv, old, true));
		for (unsigned int j = 0; j < batch; j++)
			serve_one(f, 0);
		while (vring_driver_take_used(&f->drv, &id, &len))
			;
		posted += batch;
	}

	/* Going idle: the driver's next buffer must notify. */
	assert_false(virtq_enable_notify(&f->vq));
	old = f->drv.avail_idx;
	vring_driver_post(&f->drv, &buf, 1, false);
	assert_true(vring_driver_must_notify(&f->drv, old, true));
	assert_true(virtq_enable_notify(&f->vq));

	/* Polling again: no more notifications. */
	virtq_disable_notify(&f->vq);
	serve_one(f, 0);
	old = f->drv.avail_idx;
	vring_driver_post(&f->drv, &buf, 1, false);
	assert_false(vring_driver_must_notify(&f->drv, old, true));
}

/*
 * A driver that adds while the device consumes: Linux checks once per batch,
 * and the device may have drained the batch halfway by then (and, for
 * virtio-vsock's receive queue, popped and given back a buffer to count
 * room). Batches of every length, longer than the ring too, through index
 * wrap-around: never a notification.
 */
static void test_notify_event_idx_concurrent(void **state)
{
	struct fixture *f = *state;
	struct vring_buf buf;
	struct virtq_chain chain;
	uint32_t id, len, posted = 0;
	uint16_t old;

	start(f, RING_SIZE, F_EVENT_IDX);
	buf = wbuf(f, 16);
	for (unsigned int batch = 1; posted < 140000; batch = batch % (5 * RING_SIZE) + 1) {
		old = f->drv.avail_idx;
		for (unsigned int j = 0; j < batch; j++) {
			vring_driver_post(&f->drv, &buf, 1, false);
			if (j % 3 == 1) {
				assert_int_equal(virtq_pop(&f->vq, &chain), 1);
				virtq_unpop(&f->vq, 1);
			}
			serve_one(f, 0);
			while (vring_driver_take_used(&f->drv, &id, &len))
				;
		}
		assert_false(vring_driver_must_notify(&f->drv, old, true));
		posted += batch;
	}
}

/* --- broken rings ---------------------------------------------------------- */

/*
 * The queue must be broken for reason, say so in the log exactly once (at
 * the first pop, or earlier when already_logged), and from now on leave
 * used->idx alone.
 */
static void check_broken(struct fixture *f, const char *reason, bool already_logged)
{
	uint16_t used = vring_driver_used_idx(&f->drv);
	struct virtq_chain chain;
	const char *first;
	char log[512];

	stderr_capture_begin();
	assert_int_equal(virtq_pop(&f->vq, &chain), -1);
	assert_int_equal(virtq_pop(&f->vq, &chain), -1);
	stderr_capture_end(log, sizeof(log));
	assert_true(virtq_is_broken(&f->vq));
	assert_non_null(strstr(f->vq.broken_reason, reason));
	first = strstr(log, reason);
	if (already_logged) {
		assert_null(first);
	} else {
		assert_non_null(first);
		assert_null(strstr(first + 1, reason));
	}

	virtq_push(&f->vq, 0, 0);
	virtq_publish(&f->vq);
	assert_int_equal(vring_driver_used_idx(&f->drv), used);
	assert_false(virtq_needs_interrupt(&f->vq));
	assert_false(virtq_pending(&f->vq));
}

static void expect_broken(struct fixture *f, const char *reason)
{
	check_broken(f, reason, false);
}

/* Publishes a one-descriptor chain at index 0 with these fields. */
static void post_raw(struct fixture *f, uint64_t addr, uint32_t len, uint16_t flags,
		     uint16_t next)
{
	f->drv.desc[0] = (struct vring_desc){ addr, len, flags, next };
	vring_driver_make_available(&f->drv, 0);
}

/* Publishes index 0 pointing at an indirect table of count descriptors. */
static struct vring_desc *post_indirect_raw(struct fixture *f, unsigned int count,
					    uint32_t table_len)
{
	uint64_t gpa = vring_driver_alloc(&f->drv, 16 * count);

	post_raw(f, gpa, table_len, VRING_DESC_F_INDIRECT, 0);
	return vring_driver_ptr(&f->drv, gpa);
}

static void test_broken_buffer_outside_memory(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	post_raw(f, MEM_SIZE, 1, 0, 0);
	expect_broken(f, "buffer outside guest memory");
}

static void test_broken_buffer_past_end(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	post_raw(f, MEM_SIZE - 8, 9, VRING_DESC_F_WRITE, 0);
	expect_broken(f, "buffer outside guest memory");
}

static void test_broken_buffer_wraps(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	post_raw(f, UINT64_MAX - 3, 16, 0, 0);
	expect_broken(f, "buffer outside guest memory");
}

static void test_broken_next_out_of_range(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	post_raw(f, 0x8000, 16, VRING_DESC_F_NEXT, RING_SIZE);
	expect_broken(f, "descriptor index out of range");
}

static void test_broken_head_out_of_range(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	vring_driver_make_available(&f->drv, 0xffff);
	expect_broken(f, "descriptor index out of range");
}

/* A head out of range read ahead breaks nothing until its own pop. */
static void test_broken_head_out_of_range_after_good(void **state)
{
	struct fixture *f = *state;
	struct virtq_chain chain;

	start(f, RING_SIZE, 0);
	vring_driver_post_rx(&f->drv, 16);
	vring_driver_make_available(&f->drv, 0xffff);
	vring_driver_post_rx(&f->drv, 16);

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	assert_false(virtq_is_broken(&f->vq));
	expect_broken(f, "descriptor index out of range");
}

/* A good descriptor read ahead, rewritten to point outside RAM before its pop. */
static void test_broken_rewritten_after_read_ahead(void **state)
{
	struct fixture *f = *state;
	struct virtq_chain chain;
	uint16_t head;

	start(f, RING_SIZE, 0);
	vring_driver_post_rx(&f->drv, 16);
	head = post_rx_head(f);

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	f->drv.desc[head].addr = MEM_SIZE;
	expect_broken(f, "buffer outside guest memory");
}

static void test_broken_loop(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	f->drv.desc[1] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 2 };
	f->drv.desc[2] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 1 };
	post_raw(f, 0x8000, 16, VRING_DESC_F_NEXT, 1);
	expect_broken(f, "descriptor chain loops");
}

static void test_broken_self_loop(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	post_raw(f, 0x8000, 16, VRING_DESC_F_NEXT, 0);
	expect_broken(f, "descriptor chain loops");
}

static void test_broken_indirect_loop(void **state)
{
	struct fixture *f = *state;
	struct vring_desc *table;

	start(f, RING_SIZE, F_INDIRECT);
	table = post_indirect_raw(f, 2, 32);
	table[0] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 1 };
	table[1] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 0 };
	expect_broken(f, "descriptor chain loops");
}

/*
 * In a table of more entries than a chain may hold buffers, a loop is still
 * named a loop: two descriptors pointing at each other, and a loop that
 * closes only after more than VIRTQ_CHAIN_MAX_SEGMENTS descriptors.
 */
static void test_broken_loop_in_large_ring(void **state)
{
	struct fixture *f = *state;

	start(f, 256, 0);
	f->drv.desc[1] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 2 };
	f->drv.desc[2] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 1 };
	post_raw(f, 0x8000, 16, VRING_DESC_F_NEXT, 1);
	expect_broken(f, "descriptor chain loops");
}

static void test_broken_late_loop_in_large_ring(void **state)
{
	struct fixture *f = *state;

	start(f, 256, 0);
	for (unsigned int i = 1; i < 100; i++)
		f->drv.desc[i] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT,
						      (uint16_t)(i + 1) };
	f->drv.desc[100] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 50 };
	post_raw(f, 0x8000, 16, VRING_DESC_F_NEXT, 1);
	expect_broken(f, "descriptor chain loops");
}

static void test_broken_loop_in_large_indirect_table(void **state)
{
	struct fixture *f = *state;
	struct vring_desc *table;

	start(f, 256, F_INDIRECT);
	table = post_indirect_raw(f, 128, 16 * 128);
	for (unsigned int i = 0; i < 128; i++)
		table[i] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT,
						(uint16_t)((i + 1) % 128) };
	expect_broken(f, "descriptor chain loops");
}

/* A long chain that does end is too many buffers; one leaving the table is out of range. */
static void test_broken_long_chain_ends_or_leaves(void **state)
{
	struct fixture *f = *state;

	start(f, 256, 0);
	for (unsigned int i = 1; i < 100; i++)
		f->drv.desc[i] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT,
						      (uint16_t)(i + 1) };
	f->drv.desc[100] = (struct vring_desc){ 0x8000, 16, 0, 0 };
	post_raw(f, 0x8000, 16, VRING_DESC_F_NEXT, 1);
	expect_broken(f, "chain has too many buffers");

	start(f, 256, 0);
	for (unsigned int i = 1; i < 100; i++)
		f->drv.desc[i] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT,
						      (uint16_t)(i + 1) };
	f->drv.desc[100] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 256 };
	post_raw(f, 0x8000, 16, VRING_DESC_F_NEXT, 1);
	expect_broken(f, "descriptor index out of range");
}

static void test_broken_indirect_next_out_of_range(void **state)
{
	struct fixture *f = *state;
	struct vring_desc *table;

	start(f, RING_SIZE, F_INDIRECT);
	table = post_indirect_raw(f, 2, 32);
	table[0] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_NEXT, 2 };
	expect_broken(f, "descriptor index out of range");
}

static void test_broken_nested_indirect(void **state)
{
	struct fixture *f = *state;
	struct vring_desc *table;

	start(f, RING_SIZE, F_INDIRECT);
	table = post_indirect_raw(f, 1, 16);
	table[0] = (struct vring_desc){ 0x8000, 16, VRING_DESC_F_INDIRECT, 0 };
	expect_broken(f, "indirect table inside an indirect table");
}

static void test_broken_indirect_length_not_multiple(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, F_INDIRECT);
	post_indirect_raw(f, 2, 24);
	expect_broken(f, "bad indirect table length");
}

static void test_broken_indirect_too_long(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, F_INDIRECT);
	post_indirect_raw(f, RING_SIZE + 1, 16 * (RING_SIZE + 1));
	expect_broken(f, "bad indirect table length");
}

static void test_broken_indirect_empty(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, F_INDIRECT);
	post_indirect_raw(f, 1, 0);
	expect_broken(f, "bad indirect table length");
}

static void test_broken_indirect_outside_memory(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, F_INDIRECT);
	post_raw(f, MEM_SIZE - 16, 32, VRING_DESC_F_INDIRECT, 0);
	expect_broken(f, "indirect table outside guest memory");
}

static void test_broken_indirect_wraps(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, F_INDIRECT);
	post_raw(f, UINT64_MAX - 15, 32, VRING_DESC_F_INDIRECT, 0);
	expect_broken(f, "indirect table outside guest memory");
}

static void test_broken_indirect_with_next(void **state)
{
	struct fixture *f = *state;
	uint64_t gpa;

	start(f, RING_SIZE, F_INDIRECT);
	gpa = vring_driver_alloc(&f->drv, 16);
	post_raw(f, gpa, 16, VRING_DESC_F_INDIRECT | VRING_DESC_F_NEXT, 1);
	expect_broken(f, "indirect descriptor with NEXT");
}

static void test_broken_indirect_not_negotiated(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	post_indirect_raw(f, 1, 16);
	expect_broken(f, "indirect descriptor without INDIRECT_DESC");
}

static void test_broken_readable_after_writable(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[2];

	start(f, RING_SIZE, 0);
	bufs[0] = wbuf(f, 16);
	bufs[1] = rbuf(f, 16);
	vring_driver_post(&f->drv, bufs, 2, false);
	expect_broken(f, "readable descriptor after a writable one");
}

static void test_broken_readable_after_writable_indirect(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[3];

	start(f, RING_SIZE, F_INDIRECT);
	bufs[0] = rbuf(f, 16);
	bufs[1] = wbuf(f, 16);
	bufs[2] = rbuf(f, 16);
	vring_driver_post(&f->drv, bufs, 3, true);
	expect_broken(f, "readable descriptor after a writable one");
}

/* A buffer of no bytes, wherever it sits in the chain, breaks the queue. */
static void test_broken_zero_length(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[3];

	start(f, RING_SIZE, 0);
	bufs[0] = rbuf(f, 64);
	bufs[1] = rbuf(f, 0);
	bufs[2] = wbuf(f, 64);
	vring_driver_post(&f->drv, bufs, 3, false);
	expect_broken(f, "zero-length descriptor");
}

static void test_broken_zero_length_first(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	post_raw(f, MEM_SIZE + 4096, 0, VRING_DESC_F_WRITE, 0);	/* never mapped */
	expect_broken(f, "zero-length descriptor");
}

static void test_broken_zero_length_indirect(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[2];

	start(f, RING_SIZE, F_INDIRECT);
	bufs[0] = rbuf(f, 16);
	bufs[1] = wbuf(f, 0);
	vring_driver_post(&f->drv, bufs, 2, true);
	expect_broken(f, "zero-length descriptor");
}

/* Direct descriptors and the indirect table they lead to: at most size in all. */
static void test_broken_chain_longer_than_queue(void **state)
{
	struct fixture *f = *state;
	struct vring_buf first, inner[RING_SIZE];
	uint16_t table_desc;

	start(f, RING_SIZE, F_INDIRECT);
	first = rbuf(f, 8);
	for (unsigned int i = 0; i < RING_SIZE; i++)
		inner[i] = rbuf(f, 8);
	table_desc = vring_driver_add_indirect(&f->drv, inner, RING_SIZE);
	f->drv.desc[5] = (struct vring_desc){ first.gpa, first.len, VRING_DESC_F_NEXT, table_desc };
	vring_driver_make_available(&f->drv, 5);
	expect_broken(f, "chain longer than the queue size");
}

static void test_broken_avail_jump(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	f->drv.avail->idx = RING_SIZE + 1;
	expect_broken(f, "avail index ran more than the queue size ahead");
}

static void test_broken_avail_backwards(void **state)
{
	struct fixture *f = *state;

	start(f, RING_SIZE, 0);
	vring_driver_post_rx(&f->drv, 16);
	serve_one(f, 0);
	f->drv.avail->idx = 0;	/* taken back: 0 - 1 is 65535 ahead */
	expect_broken(f, "avail index ran more than the queue size ahead");
}

static void test_broken_chain_too_long(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[2];

	start(f, RING_SIZE, 0);
	bufs[0] = rbuf(f, 16);
	bufs[1] = (struct vring_buf){ 0x100, UINT32_MAX, false };
	vring_driver_post(&f->drv, bufs, 2, false);
	expect_broken(f, "chain longer than 4 GiB");
}

static void test_broken_too_many_segments(void **state)
{
	struct fixture *f = *state;
	struct vring_buf bufs[VIRTQ_CHAIN_MAX_SEGMENTS + 1];

	start(f, 128, 0);
	for (unsigned int i = 0; i <= VIRTQ_CHAIN_MAX_SEGMENTS; i++)
		bufs[i] = rbuf(f, 8);
	vring_driver_post(&f->drv, bufs, VIRTQ_CHAIN_MAX_SEGMENTS + 1, false);
	expect_broken(f, "chain has too many buffers");
}

/* A good request before the bad one is still served; after it, nothing. */
static void test_broken_after_good_chain(void **state)
{
	struct fixture *f = *state;
	struct virtq_chain chain;

	start(f, RING_SIZE, 0);
	vring_driver_post_rx(&f->drv, 16);
	f->drv.desc[5] = (struct vring_desc){ MEM_SIZE, 16, 0, 0 };
	vring_driver_make_available(&f->drv, 5);
	vring_driver_post_rx(&f->drv, 16);

	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
	virtq_push(&f->vq, chain.head, 4);
	virtq_publish(&f->vq);
	assert_int_equal(vring_driver_used_idx(&f->drv), 1);
	expect_broken(f, "buffer outside guest memory");
	assert_int_equal(vring_driver_used_idx(&f->drv), 1);
}

/* --- layout checks and reset ----------------------------------------------- */

static void expect_enable_fails(struct fixture *f, struct virtq_layout layout,
				const char *reason)
{
	char log[512];

	virtq_init(&f->vq, &f->mem, "test", 1);
	stderr_capture_begin();
	assert_int_equal(virtq_enable(&f->vq, &layout, 0), -1);
	stderr_capture_end(log, sizeof(log));
	assert_true(virtq_is_broken(&f->vq));
	assert_non_null(strstr(f->vq.broken_reason, reason));
	assert_non_null(strstr(log, "virtio test: queue 1: "));
	assert_non_null(strstr(log, reason));
	check_broken(f, reason, true);
}

static void test_enable_checks_layout(void **state)
{
	struct fixture *f = *state;
	/* A 16-entry queue: table 256 bytes, avail 38, used 134 (§2.6). */
	const struct {
		struct virtq_layout layout;
		const char *reason;
	} bad[] = {
		{ { 0, 0x1000, 0x2000, 0x3000 }, "queue size" },
		{ { 24, 0x1000, 0x2000, 0x3000 }, "queue size" },
		{ { 65536, 0x1000, 0x2000, 0x3000 }, "queue size" },
		{ { 16, 0x1008, 0x2000, 0x3000 }, "misaligned ring" },
		{ { 16, 0x1000, 0x2001, 0x3000 }, "misaligned ring" },
		{ { 16, 0x1000, 0x2000, 0x3002 }, "misaligned ring" },
		{ { 16, MEM_SIZE - 240, 0x2000, 0x3000 }, "ring outside guest memory" },
		{ { 16, 0x1000, MEM_SIZE - 36, 0x3000 }, "ring outside guest memory" },
		{ { 16, 0x1000, 0x2000, MEM_SIZE - 132 }, "ring outside guest memory" },
		{ { 16, 0x1000, 0x2000, UINT64_MAX - 3 }, "ring outside guest memory" },
	};
	struct virtq_layout up_to_the_end = { 16, MEM_SIZE - 256, MEM_SIZE - 38, MEM_SIZE - 136 };

	vring_driver_init(&f->drv, &f->mem, RING_SIZE, 0, MEM_SIZE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_enable_fails(f, bad[i].layout, bad[i].reason);
	virtq_init(&f->vq, &f->mem, "test", 1);
	assert_int_equal(virtq_enable(&f->vq, &up_to_the_end, 0), 0);
}

static void test_reset_clears_breakage(void **state)
{
	struct fixture *f = *state;
	struct virtq_layout layout;
	struct virtq_chain chain;

	start(f, RING_SIZE, 0);
	post_raw(f, MEM_SIZE, 1, 0, 0);
	expect_broken(f, "buffer outside guest memory");

	virtq_reset(&f->vq);
	assert_false(virtq_is_broken(&f->vq));
	assert_int_equal(virtq_pop(&f->vq, &chain), 0);	/* disabled until enabled */
	vring_driver_init(&f->drv, &f->mem, RING_SIZE, 0, MEM_SIZE);
	layout = vring_driver_layout(&f->drv);
	assert_int_equal(virtq_enable(&f->vq, &layout, 0), 0);
	vring_driver_post_rx(&f->drv, 16);
	assert_int_equal(virtq_pop(&f->vq, &chain), 1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest chains[] = {
		T(test_empty_ring),
		T(test_disabled_queue_is_empty),
		T(test_direct_chain),
		T(test_single_buffer_chains),
		T(test_queue_of_one),
		T(test_read_ahead_is_a_hint),
		T(test_indirect_chain),
		T(test_direct_then_indirect),
		T(test_unpop_and_unpush),
		T(test_index_wraparound),
	};
	const struct CMUnitTest suppression[] = {
		T(test_interrupt_flag),
		T(test_interrupt_used_event),
		T(test_all_taken),
		T(test_notify_flag),
		T(test_notify_event_idx),
		T(test_notify_event_idx_concurrent),
	};
	const struct CMUnitTest broken[] = {
		T(test_broken_buffer_outside_memory),
		T(test_broken_buffer_past_end),
		T(test_broken_buffer_wraps),
		T(test_broken_next_out_of_range),
		T(test_broken_head_out_of_range),
		T(test_broken_head_out_of_range_after_good),
		T(test_broken_rewritten_after_read_ahead),
		T(test_broken_loop),
		T(test_broken_self_loop),
		T(test_broken_indirect_loop),
		T(test_broken_loop_in_large_ring),
		T(test_broken_late_loop_in_large_ring),
		T(test_broken_loop_in_large_indirect_table),
		T(test_broken_long_chain_ends_or_leaves),
		T(test_broken_indirect_next_out_of_range),
		T(test_broken_nested_indirect),
		T(test_broken_indirect_length_not_multiple),
		T(test_broken_indirect_too_long),
		T(test_broken_indirect_empty),
		T(test_broken_indirect_outside_memory),
		T(test_broken_indirect_wraps),
		T(test_broken_indirect_with_next),
		T(test_broken_indirect_not_negotiated),
		T(test_broken_readable_after_writable),
		T(test_broken_readable_after_writable_indirect),
		T(test_broken_zero_length),
		T(test_broken_zero_length_first),
		T(test_broken_zero_length_indirect),
		T(test_broken_chain_longer_than_queue),
		T(test_broken_avail_jump),
		T(test_broken_avail_backwards),
		T(test_broken_chain_too_long),
		T(test_broken_too_many_segments),
		T(test_broken_after_good_chain),
		T(test_enable_checks_layout),
		T(test_reset_clears_breakage),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("virtq chains", chains, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtq notification suppression", suppression,
					      NULL, NULL);
	failed += cmocka_run_group_tests_name("virtq malformed rings", broken, NULL, NULL);
	return failed ? 1 : 0;
}
