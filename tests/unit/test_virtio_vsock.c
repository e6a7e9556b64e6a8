/* SPDX-License-Identifier: MIT */
/*
 * test_virtio_vsock.c - unit tests for hv/virtio/virtio_vsock.c: guests A,
 * B and C (CIDs 3, 4, 5), A and B served by one sidecore and C by another,
 * each with its own RAM and
 * rings and a test driver playing its vsock driver. Features and config
 * (virtio 1.1 §5.10.3, §5.10.4), delivery between guests byte for byte,
 * headers cut anywhere, 64 KiB packets cut into 4 KiB receive buffers,
 * spoofed sources, RSTs for CIDs no one has, senders waiting for a
 * receiver's buffers without loss (and busy for its sidecore's pass while
 * they wait), the echo and discard services on CID 2
 * with their credit, and a guest breaking its rings without disturbing the
 * others.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/support/stderr_capture.h"
#include "tests/unit/support/virtio_model.h"
#include "tests/unit/support/vring_driver.h"
#include "virtio/virtio_vsock.h"

#define GUEST_MEM	0x200000ull	/* 2 MiB each: rx, tx and event rings and buffers */
#define RX_END		0xc0000ull
#define TX_END		0x1c0000ull
#define QSIZE		64
#define HDR		sizeof(struct virtio_vsock_hdr)
#define RX_PAYLOAD	4096	/* what Linux posts after each header */
#define F(bit)		(1ull << (bit))
#define BASIC		F(VIRTIO_F_VERSION_1)
#define ALL		VIRTIO_VSOCK_DEVICE_FEATURES
#define GUESTS		3
#define A		0
#define B		1
#define C		2
#define BIG		(64 * 1024)
#define STALL		100	/* the devices' stall timeout, in w->now units */
#define COUNTERS_EVERY	50	/* the counters' interval, in w->now units */

struct guest {
	struct guest_mem mem;
	struct vring_driver rx, tx, event;
	struct virtio_vsock dev;
	unsigned int interrupts[VIRTIO_VSOCK_QUEUES + 1];
	uint64_t cid;
	unsigned int snapshots;	/* times the counters' text was formatted */
};

/* A sidecore's lock as the devices see it; busy: another core holds it. */
struct domain {
	struct virtio_vsock_domain ops;
	bool busy;
	unsigned int held;	/* taken by the device model and not given back */
	unsigned int tries;
	unsigned int waited;	/* waits for it while another core held it */
};

struct world {
	struct virtio_vsock_table table;
	struct domain domain[2];	/* A and B are served under the first, C the second */
	struct net_meter meter[2];	/* the domains' passes', unlimited unless a test sets one */
	struct guest *g[GUESTS];
	uint64_t now;		/* the clock run_pass() hands to flush */
	uint8_t sent[BIG];
	uint8_t received[BIG];
};

/* How a transmitted packet is cut into descriptors. */
struct tx_shape {
	uint32_t first;		/* bytes in the first descriptor; 0: same as piece */
	uint32_t piece;		/* bytes in each further descriptor; 0: all in one */
	bool indirect;
};

static const struct tx_shape linux_shape = { HDR, 0, false };	/* header, then payload */

/* A configuration change is counted after the queues' interrupts. */
#define CONFIG_CHANGE	VIRTIO_VSOCK_QUEUES

static void record_interrupt(struct virtio_dev *dev, unsigned int source)
{
	struct guest *g = dev->ctx;

	if (source == VIRTIO_DEV_CONFIG_CHANGE)
		source = CONFIG_CHANGE;
	assert_true(source <= CONFIG_CHANGE);
	g->interrupts[source]++;
}

/* The driver's bring-up (virtio 1.1 §3.1.1): features, queues, DRIVER_OK. */
static void guest_configure(struct guest *g, uint64_t features)
{
	struct virtq_layout layout;

	assert_true(virtio_dev_set_features(&g->dev.vdev, features));
	vring_driver_init(&g->rx, &g->mem, QSIZE, 0, RX_END);
	vring_driver_init(&g->tx, &g->mem, QSIZE, RX_END, TX_END);
	vring_driver_init(&g->event, &g->mem, QSIZE, TX_END, GUEST_MEM);
	layout = vring_driver_layout(&g->rx);
	assert_int_equal(virtio_dev_enable_queue(&g->dev.vdev, VIRTIO_VSOCK_RX_QUEUE, &layout), 0);
	layout = vring_driver_layout(&g->tx);
	assert_int_equal(virtio_dev_enable_queue(&g->dev.vdev, VIRTIO_VSOCK_TX_QUEUE, &layout), 0);
	layout = vring_driver_layout(&g->event);
	assert_int_equal(virtio_dev_enable_queue(&g->dev.vdev, VIRTIO_VSOCK_EVENT_QUEUE, &layout), 0);
	virtio_dev_start(&g->dev.vdev);
}

/* A driver that starts its device with only the transmitq enabled. */
static void guest_configure_tx_only(struct guest *g)
{
	struct virtq_layout layout;

	assert_true(virtio_dev_set_features(&g->dev.vdev, ALL));
	vring_driver_init(&g->tx, &g->mem, QSIZE, RX_END, TX_END);
	layout = vring_driver_layout(&g->tx);
	assert_int_equal(virtio_dev_enable_queue(&g->dev.vdev, VIRTIO_VSOCK_TX_QUEUE, &layout), 0);
	virtio_dev_start(&g->dev.vdev);
}

/* Waiting for a busy lock: its holder lets go first, as another core would. */
static void domain_lock(struct virtio_vsock_domain *ops)
{
	struct domain *d = (struct domain *)ops;

	assert_int_equal(d->held, 0);
	d->waited += d->busy;
	d->held++;
}

static bool domain_trylock(struct virtio_vsock_domain *ops)
{
	struct domain *d = (struct domain *)ops;

	d->tries++;
	if (d->busy || d->held)
		return false;
	d->held++;
	return true;
}

static void domain_unlock(struct virtio_vsock_domain *ops)
{
	struct domain *d = (struct domain *)ops;

	assert_int_equal(d->held, 1);
	d->held--;
}

/* The hypervisor's counters, as the glue would write them. */
static unsigned int fake_snapshot(void *ctx, char *buf, unsigned int size)
{
	struct guest *g = ctx;
	int len = snprintf(buf, size, "counters: vsock cid %lu snapshot %u\n",
			   (unsigned long)g->cid, ++g->snapshots);

	return len < 0 ? 0 : (unsigned int)len;
}

static struct guest *guest_new(struct world *w, unsigned int n)
{
	static const char *const names[GUESTS] = { "A", "B", "C" };
	struct guest *g = calloc(1, sizeof(*g));
	struct virtio_vsock_params params = {
		.cid = 3 + n,
		.table = &w->table,
		.domain = &w->domain[n == C].ops,
		.snapshot = fake_snapshot,
		.stall_timeout = STALL,
		.counters_interval = COUNTERS_EVERY,
	};

	assert_non_null(g);
	g->mem.size = GUEST_MEM;
	g->mem.base = malloc(GUEST_MEM);	/* exactly: ASan sees any stray access */
	assert_non_null(g->mem.base);
	memset(g->mem.base, 0, GUEST_MEM);
	g->cid = params.cid;
	assert_true(virtio_model_init(&virtio_vsock_ops, &g->dev.vdev,
				      names[n], &g->mem, record_interrupt, g, &params));
	assert_true(virtio_vsock_table_add(&w->table, &g->dev));
	return g;
}

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	for (unsigned int i = 0; i < 2; i++) {
		w->meter[i] = NET_METER_UNLIMITED;
		w->domain[i].ops = (struct virtio_vsock_domain){ domain_lock, domain_trylock,
								 domain_unlock, i, &w->meter[i] };
	}
	for (unsigned int i = 0; i < GUESTS; i++)
		w->g[i] = guest_new(w, i);
	*state = w;
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;

	for (unsigned int i = 0; i < GUESTS; i++) {
		free(w->g[i]->mem.base);
		free(w->g[i]);
	}
	free(w);
	return 0;
}

static void configure_all(struct world *w, uint64_t features)
{
	for (unsigned int i = 0; i < GUESTS; i++)
		guest_configure(w->g[i], features);
}

/* Receive buffers as Linux posts them: a header, then RX_PAYLOAD bytes. */
static void post_rx_buffers(struct guest *g, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++) {
		struct vring_buf bufs[2] = {
			{ vring_driver_alloc(&g->rx, HDR), HDR, true },
			{ vring_driver_alloc(&g->rx, RX_PAYLOAD), RX_PAYLOAD, true },
		};

		vring_driver_post(&g->rx, bufs, 2, false);
	}
}

/* A header from g to dst_cid (ports 1000 to 2000) with credit fields set. */
static struct virtio_vsock_hdr header(const struct guest *g, uint64_t dst_cid, uint16_t op,
				      uint32_t len)
{
	return (struct virtio_vsock_hdr){
		.src_cid = g->cid,
		.dst_cid = dst_cid,
		.src_port = 1000,
		.dst_port = 2000,
		.len = len,
		.type = VIRTIO_VSOCK_TYPE_STREAM,
		.op = op,
		.buf_alloc = 262144,
		.fwd_cnt = 77,
	};
}

/*
 * Posts hdr and payload bytes (a pattern kept in w->sent) on g's transmitq,
 * cut as shape says. payload may differ from hdr->len for malformed packets.
 */
static void guest_send_shaped(struct world *w, struct guest *g,
			      const struct virtio_vsock_hdr *hdr, uint32_t payload,
			      const struct tx_shape *shape)
{
	struct vring_buf bufs[VIRTQ_CHAIN_MAX_SEGMENTS];
	uint32_t total = HDR + payload, off = 0;
	uint64_t gpa = vring_driver_alloc(&g->tx, total);
	uint8_t *p = vring_driver_ptr(&g->tx, gpa);
	unsigned int count = 0;

	for (uint32_t i = 0; i < payload; i++)
		w->sent[i] = (uint8_t)(i * 7 + payload + g->cid);
	memcpy(p, hdr, HDR);
	memcpy(p + HDR, w->sent, payload);
	while (off < total) {
		uint32_t n = shape->piece ? shape->piece : total;

		if (count == 0 && shape->first)
			n = shape->first;
		if (n > total - off)
			n = total - off;
		bufs[count++] = (struct vring_buf){ gpa + off, n, false };
		off += n;
	}
	vring_driver_post(&g->tx, bufs, count, shape->indirect);
}

static void guest_send(struct world *w, struct guest *g, uint64_t dst_cid, uint16_t op,
		       uint32_t len)
{
	struct virtio_vsock_hdr hdr = header(g, dst_cid, op, len);

	guest_send_shaped(w, g, &hdr, len, &linux_shape);
}

/*
 * Takes the next packet off g's used receive ring: the header into hdr, the
 * payload appended to w->received at offset at. Returns the payload length,
 * or -1 when nothing was received.
 */
static int guest_receive(struct world *w, struct guest *g, struct virtio_vsock_hdr *hdr,
			 uint32_t at)
{
	uint8_t packet[HDR + RX_PAYLOAD];
	uint32_t id, len, got = 0;
	uint16_t d;

	if (!vring_driver_take_used(&g->rx, &id, &len))
		return -1;
	assert_true(len >= HDR && len <= sizeof(packet));
	for (d = (uint16_t)id; got < len; d = g->rx.desc[d].next) {
		uint32_t n = g->rx.desc[d].len < len - got ? g->rx.desc[d].len : len - got;

		memcpy(packet + got, vring_driver_ptr(&g->rx, g->rx.desc[d].addr), n);
		got += n;
	}
	memcpy(hdr, packet, HDR);
	assert_int_equal(hdr->len, len - HDR);
	assert_true(at + hdr->len <= BIG);
	memcpy(w->received + at, packet + HDR, hdr->len);
	return (int)hdr->len;
}

/*
 * One poll pass of the sidecore: the transmitq of each device its hint
 * says may have work (sidecore/port.h), then publish.
 */
static void run_pass(struct world *w)
{
	for (unsigned int i = 0; i < GUESTS; i++) {
		const struct sidecore_port *port = &w->g[i]->dev.vdev.port;

		if (port->live && sidecore_port_ready(port))
			virtio_vsock_poll_tx(&w->g[i]->dev, 32);
	}
	for (unsigned int i = 0; i < GUESTS; i++)
		virtio_vsock_flush(&w->g[i]->dev, w->now);
}

static void assert_nothing_received(struct world *w, struct guest *g)
{
	struct virtio_vsock_hdr hdr;

	assert_int_equal(guest_receive(w, g, &hdr, 0), -1);
}

/* Received header equal to the sent one, but for len. */
static void assert_header(const struct virtio_vsock_hdr *got, const struct virtio_vsock_hdr *sent,
			  uint32_t len)
{
	struct virtio_vsock_hdr want = *sent;

	want.len = len;
	assert_memory_equal(got, &want, HDR);
}

/* --- device identity -------------------------------------------------------- */

static void test_features(void **state)
{
	struct world *w = *state;
	struct virtio_vsock *dev = &w->g[A]->dev;

	assert_int_equal(ALL, F(VIRTIO_F_VERSION_1) | F(VIRTIO_VSOCK_F_SEQPACKET) |
			      F(VIRTIO_RING_F_EVENT_IDX));
	assert_false(virtio_dev_set_features(&dev->vdev, ALL | F(VIRTIO_RING_F_INDIRECT_DESC)));
	assert_false(virtio_dev_set_features(&dev->vdev, ALL & ~F(VIRTIO_F_VERSION_1)));
	assert_false(virtio_dev_set_features(&dev->vdev, BASIC | F(VIRTIO_F_RING_PACKED)));
	assert_int_equal(dev->vdev.features, 0);
	assert_true(virtio_dev_set_features(&dev->vdev, BASIC));
	assert_true(virtio_dev_set_features(&dev->vdev, ALL));
	assert_int_equal(dev->vdev.features, ALL);
}

static void test_init_and_table(void **state)
{
	struct world *w = *state;
	struct virtio_vsock_params params = {
		.cid = 2,
		.table = &w->table,
		.domain = &w->domain[0].ops,
	};
	struct virtio_dev_params common = { .name = "D", .mem = &w->g[A]->mem, .type = &params };
	struct virtio_vsock dev;
	const struct guest_mem *mem = &w->g[A]->mem;

	assert_false(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				       "D", mem, record_interrupt, NULL, &params));	/* the host's CID */
	params.cid = 4;
	params.table = NULL;
	assert_false(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				       "D", mem, record_interrupt, NULL, &params));
	params.table = &w->table;
	params.domain = NULL;
	assert_false(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				       "D", mem, record_interrupt, NULL, &params));
	params.domain = &w->domain[0].ops;
	assert_false(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				       "D", mem, record_interrupt, NULL, NULL));
	assert_non_null(virtio_vsock_ops.init(&dev.vdev, &common));	/* no interrupt */
	assert_true(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				      "D", mem, record_interrupt, NULL, &params));
	assert_false(virtio_dev_active(&dev.vdev));
	assert_false(virtio_vsock_table_add(&w->table, &dev));	/* B has CID 4 */
	assert_int_equal(w->table.count, GUESTS);
}

/* §5.10.4: guest_cid, a little-endian 64-bit value. */
static void test_config_space(void **state)
{
	struct world *w = *state;
	struct virtio_vsock_params params = {
		.cid = 0x100000003ull,
		.table = &w->table,
		.domain = &w->domain[0].ops,
	};
	const struct guest_mem *mem = &w->g[A]->mem;
	struct virtio_vsock dev;

	assert_int_equal(virtio_dev_read_config(&w->g[B]->dev.vdev, 0, 4), 4);
	assert_int_equal(virtio_dev_read_config(&w->g[B]->dev.vdev, 4, 4), 0);
	/* virtio 1.2 §5.10.4: the upper 32 bits are reserved, 0xffffffff too. */
	assert_false(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				       "D", mem, record_interrupt, NULL, &params));
	params.cid = UINT32_MAX;
	assert_false(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				       "D", mem, record_interrupt, NULL, &params));
	params.cid = 0xfedcba98;
	assert_true(virtio_model_init(&virtio_vsock_ops, &dev.vdev,
				      "D", mem, record_interrupt, NULL, &params));
	assert_int_equal(virtio_dev_read_config(&dev.vdev, 0, 4), 0xfedcba98);
	assert_int_equal(virtio_dev_read_config(&dev.vdev, 4, 4), 0);
	assert_int_equal(virtio_dev_read_config(&dev.vdev, 1, 1), 0xba);
	assert_int_equal(virtio_dev_read_config(&dev.vdev, 6, 4), 0);
	assert_int_equal(virtio_dev_read_config(&dev.vdev, UINT32_MAX - 1, 4), 0);
}

/* --- delivery ----------------------------------------------------------------- */

/* A connects to B and writes: B gets A's headers and bytes as they were sent. */
static void test_deliver_a_to_b(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr sent = header(a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0), got;
	uint32_t id, len;

	configure_all(w, ALL);
	post_rx_buffers(b, 4);
	post_rx_buffers(w->g[C], 4);
	guest_send_shaped(w, a, &sent, 0, &linux_shape);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 1);
	assert_int_equal(vring_driver_used_idx(&b->rx), 0);	/* not published before flush */
	virtio_vsock_flush(&a->dev, w->now);
	virtio_vsock_flush(&b->dev, w->now);
	assert_int_equal(b->interrupts[VIRTIO_VSOCK_RX_QUEUE], 1);
	assert_int_equal(a->interrupts[VIRTIO_VSOCK_TX_QUEUE], 1);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	assert_header(&got, &sent, 0);
	assert_true(vring_driver_take_used(&a->tx, &id, &len));
	assert_int_equal(len, 0);

	sent = header(a, b->cid, VIRTIO_VSOCK_OP_RW, 3000);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 3000);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 3000);
	assert_header(&got, &sent, 3000);
	assert_memory_equal(w->received, w->sent, 3000);
	assert_nothing_received(w, b);
	assert_nothing_received(w, w->g[C]);
	assert_nothing_received(w, a);
	assert_int_equal(a->dev.stats.packets, 2);
	assert_int_equal(a->dev.stats.bytes, 3000);
	assert_int_equal(a->dev.stats.rsts, 0);
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
}

/* The header may have a descriptor alone or be cut anywhere (§2.6.4). */
static void test_header_split(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	const struct tx_shape shapes[] = {
		{ 5, 39, false },	/* header in two, payload in its own */
		{ 0, 7, false },	/* everything in 7-byte pieces */
		{ HDR + 10, 1000, false },	/* payload starts with the header */
		{ 1, 0, false },	/* one byte, then the rest */
		{ 0, 0, false },	/* all in one */
	};
	struct virtio_vsock_hdr sent = header(a, b->cid, VIRTIO_VSOCK_OP_RW, 300), got;

	configure_all(w, ALL);
	post_rx_buffers(b, 8);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		guest_send_shaped(w, a, &sent, 300, &shapes[i]);
		run_pass(w);
		assert_int_equal(guest_receive(w, b, &got, 0), 300);
		assert_header(&got, &sent, 300);
		assert_memory_equal(w->received, w->sent, 300);
	}
	assert_int_equal(a->dev.stats.packets, 5);
}

/* A 64 KiB write reaches B cut into its 4 KiB buffers, in order, credit intact. */
static void test_large_packet_cut(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr sent = header(a, b->cid, VIRTIO_VSOCK_OP_RW, BIG), got;
	uint32_t at = 0;

	configure_all(w, ALL);
	post_rx_buffers(b, 20);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, BIG);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&b->rx), BIG / RX_PAYLOAD);
	while (at < BIG) {
		assert_int_equal(guest_receive(w, b, &got, at), RX_PAYLOAD);
		assert_header(&got, &sent, RX_PAYLOAD);
		at += RX_PAYLOAD;
	}
	assert_memory_equal(w->received, w->sent, BIG);
	assert_nothing_received(w, b);
	assert_int_equal(a->dev.stats.packets, 1);
	assert_int_equal(a->dev.stats.bytes, BIG);
	assert_int_equal(b->interrupts[VIRTIO_VSOCK_RX_QUEUE], 1);
}

/* SOCK_SEQPACKET: a message cut in pieces ends (EOM, EOR) with its last one only. */
static void test_seqpacket_marks(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr sent = header(a, b->cid, VIRTIO_VSOCK_OP_RW, 10000), got;

	configure_all(w, ALL);
	post_rx_buffers(b, 4);
	sent.type = VIRTIO_VSOCK_TYPE_SEQPACKET;
	sent.flags = VIRTIO_VSOCK_SEQ_EOM | VIRTIO_VSOCK_SEQ_EOR;
	guest_send_shaped(w, a, &sent, 10000, &linux_shape);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), RX_PAYLOAD);
	assert_int_equal(got.flags, 0);
	assert_int_equal(got.type, VIRTIO_VSOCK_TYPE_SEQPACKET);
	assert_int_equal(guest_receive(w, b, &got, RX_PAYLOAD), RX_PAYLOAD);
	assert_int_equal(got.flags, 0);
	assert_int_equal(guest_receive(w, b, &got, 2 * RX_PAYLOAD), 10000 - 2 * RX_PAYLOAD);
	assert_header(&got, &sent, 10000 - 2 * RX_PAYLOAD);
	assert_memory_equal(w->received, w->sent, 10000);
}

/* A packet may go to the sender's own CID. */
static void test_deliver_to_self(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 2);
	guest_send(w, a, a->cid, VIRTIO_VSOCK_OP_RW, 100);
	run_pass(w);
	assert_int_equal(guest_receive(w, a, &got, 0), 100);
	assert_int_equal(got.src_cid, a->cid);
	assert_memory_equal(w->received, w->sent, 100);
}

/*
 * To itself, into a receive buffer one byte past its own transmit payload:
 * the copy overlaps, and must read every byte before overwriting it.
 */
static void test_deliver_to_self_overlapping(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr hdr = header(a, a->cid, VIRTIO_VSOCK_OP_RW, 1000), got;
	struct vring_buf tx[2], rx;
	uint8_t *payload, sent[1000];
	uint64_t h, p;

	configure_all(w, ALL);
	h = vring_driver_alloc(&a->tx, HDR);
	p = vring_driver_alloc(&a->tx, 1100);
	tx[0] = (struct vring_buf){ h, HDR, false };
	tx[1] = (struct vring_buf){ p, 1000, false };
	rx = (struct vring_buf){ p + 1 - HDR, HDR + 1000, true };
	payload = vring_driver_ptr(&a->tx, p);
	for (unsigned int i = 0; i < sizeof(sent); i++)
		sent[i] = payload[i] = (uint8_t)(i * 13 + 1);
	memcpy(vring_driver_ptr(&a->tx, h), &hdr, HDR);
	vring_driver_post(&a->rx, &rx, 1, false);
	vring_driver_post(&a->tx, tx, 2, false);
	run_pass(w);
	/* The header, written first, took the payload's first byte. */
	assert_int_equal(guest_receive(w, a, &got, 0), 1000);
	assert_memory_equal(w->received + 1, sent + 1, 999);
	assert_int_equal(w->received[0], ((const uint8_t *)&hdr)[HDR - 1]);
}

/* --- spoofing, RSTs, waiting -------------------------------------------------- */

/* A guest writing another's CID as its source: dropped and counted, nothing broken. */
static void test_spoofed_cid_dropped(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	struct virtio_vsock_hdr forged = header(c, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0), got;
	uint32_t id, len;

	configure_all(w, ALL);
	post_rx_buffers(a, 2);
	post_rx_buffers(b, 2);
	guest_send_shaped(w, a, &forged, 0, &linux_shape);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 1);
	virtio_vsock_flush(&a->dev, w->now);
	virtio_vsock_flush(&b->dev, w->now);
	assert_int_equal(a->dev.stats.spoofed, 1);
	assert_int_equal(a->dev.stats.packets, 0);
	assert_nothing_received(w, b);
	assert_nothing_received(w, a);		/* no RST for a forgery either */
	assert_true(vring_driver_take_used(&a->tx, &id, &len));
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));

	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 64);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 64);
	assert_int_equal(got.src_cid, a->cid);
}

/* No one at the CID (or at the host's): an RST comes back, from the address tried. */
static void test_rst_for_unknown_cid(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	const uint64_t nowhere[] = { 9, VIRTIO_VSOCK_HOST_CID, UINT32_MAX };
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 4);
	for (size_t i = 0; i < sizeof(nowhere) / sizeof(nowhere[0]); i++) {
		guest_send(w, a, nowhere[i], VIRTIO_VSOCK_OP_REQUEST, 0);
		run_pass(w);
		assert_int_equal(guest_receive(w, a, &got, 0), 0);
		assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
		assert_int_equal(got.type, VIRTIO_VSOCK_TYPE_STREAM);
		assert_true(got.src_cid == nowhere[i]);
		assert_true(got.dst_cid == a->cid);
		assert_int_equal(got.src_port, 2000);
		assert_int_equal(got.dst_port, 1000);
		assert_int_equal(got.flags, 0);
		assert_int_equal(got.buf_alloc, 0);
		assert_int_equal(got.fwd_cnt, 0);
	}
	assert_int_equal(a->dev.stats.rsts, 3);
	assert_int_equal(a->dev.stats.packets, 0);

	/* An RST to no one is not answered: dropped and counted. */
	guest_send(w, a, 9, VIRTIO_VSOCK_OP_RST, 0);
	run_pass(w);
	assert_nothing_received(w, a);
	assert_int_equal(a->dev.stats.rsts, 3);
	assert_int_equal(a->dev.stats.dropped, 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), 4);
}

/* A receiver whose driver is not up (or was reset) is no one. */
static void test_rst_for_stopped_receiver(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr got;

	guest_configure(a, ALL);
	post_rx_buffers(a, 2);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
	run_pass(w);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_true(got.src_cid == b->cid);

	guest_configure(b, ALL);
	post_rx_buffers(b, 2);
	virtio_dev_reset(&b->dev.vdev);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
	run_pass(w);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_int_equal(a->dev.stats.rsts, 2);
}

/*
 * B has one buffer: A's first packet goes, the second waits in A's
 * transmitq (nothing taken from B), A stops there; with buffers again, the
 * rest follows in order.
 */
static void test_receiver_without_buffers_stalls(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	uint8_t expected[3 * 1000];
	struct virtio_vsock_hdr got;
	uint32_t at = 0;

	configure_all(w, ALL);
	post_rx_buffers(b, 1);
	for (unsigned int i = 0; i < 3; i++) {
		guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 1000 + i);
		memcpy(expected + i * 1000, w->sent, 1000);
	}
	/* All three are taken; the two that do not fit wait in order, parked. */
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 3);
	assert_int_equal(a->dev.stats.credit_stalls, 1);
	assert_int_equal(a->dev.parked_count, 2);
	run_pass(w);
	assert_int_equal(a->dev.stats.credit_stalls, 2);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(vring_driver_used_idx(&b->rx), 1);

	post_rx_buffers(b, 4);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 3);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(guest_receive(w, b, &got, at), 1000 + i);
		assert_memory_equal(w->received + at, expected + i * 1000, 1000);
		at += 1000 + i;
	}
	assert_nothing_received(w, b);
	assert_int_equal(a->dev.stats.packets, 3);
	assert_int_equal(a->dev.stats.credit_stalls, 2);
}

/*
 * The port's hint (sidecore/port.h): the transmitq is watched; a parked
 * packet keeps the sender busy until it is delivered, and what a pass
 * hands back leaves both ports dirty until their flush.
 */
static void test_port_hint(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct sidecore_port *pa = &a->dev.vdev.port, *pb = &b->dev.vdev.port;

	configure_all(w, ALL);
	assert_true(pa->live);
	assert_int_equal(pa->watches, 1);
	assert_false(sidecore_port_ready(pa));
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 100);
	assert_true(sidecore_port_ready(pa));
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 1);
	assert_int_equal(a->dev.parked_count, 1);
	assert_true(pa->busy);
	assert_false(pa->dirty);
	post_rx_buffers(b, 1);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 1);
	assert_false(pa->busy);
	assert_true(pa->dirty);
	assert_true(pb->dirty);
	run_pass(w);
	assert_false(pa->dirty);
	assert_false(pb->dirty);
	assert_false(sidecore_port_ready(pa));
}

/*
 * A packet for B that does not fit is parked: A's packet to C behind it
 * goes on, and A's next for B waits behind the first, so B's stream keeps
 * its order. A's transmit buffers come back out of order (§2.6.8).
 */
static void test_parked_lets_others_pass(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	const uint32_t order[4] = { 0, 4, 2, 6 };	/* heads: two descriptors a chain */
	uint8_t expected[2][2000];
	struct virtio_vsock_hdr got;
	uint32_t id, len;

	configure_all(w, ALL);
	post_rx_buffers(b, 1);
	post_rx_buffers(c, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 100);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 2000);
	memcpy(expected[0], w->sent, 2000);
	guest_send(w, a, c->cid, VIRTIO_VSOCK_OP_RW, 30);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 1999);
	memcpy(expected[1], w->sent, 1999);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 100);
	assert_int_equal(guest_receive(w, c, &got, 0), 30);
	assert_int_equal(a->dev.parked_count, 2);
	assert_int_equal(a->dev.stats.credit_stalls, 1);
	post_rx_buffers(b, 2);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 2000);
	assert_memory_equal(w->received, expected[0], 2000);
	assert_int_equal(guest_receive(w, b, &got, 0), 1999);
	assert_memory_equal(w->received, expected[1], 1999);
	assert_int_equal(a->dev.parked_count, 0);
	for (unsigned int i = 0; i < 4; i++) {
		assert_true(vring_driver_take_used(&a->tx, &id, &len));
		assert_int_equal(id, order[i]);
	}
	assert_int_equal(a->dev.stats.packets, 4);
}

/*
 * An RST flood does not starve a stream: while A's packet waits for B's
 * buffers, C's RSTs to B are dropped, so the buffers B posts go to A's
 * packet; once it is in, RSTs reach B again.
 */
static void test_rsts_give_way_to_a_waiting_stream(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(b, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 3 * RX_PAYLOAD);
	run_pass(w);
	assert_nothing_received(w, b);
	for (unsigned int i = 0; i < 4; i++)
		guest_send(w, c, b->cid, VIRTIO_VSOCK_OP_RST, 0);
	post_rx_buffers(b, 2);
	/* C's pass comes first: B's three buffers would have gone to its RSTs. */
	virtio_vsock_poll_tx(&c->dev, 32);
	assert_int_equal(c->dev.stats.dropped, 4);
	run_pass(w);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(guest_receive(w, b, &got, 0), RX_PAYLOAD);
		assert_true(got.src_cid == a->cid);
	}
	assert_nothing_received(w, b);
	post_rx_buffers(b, 1);
	guest_send(w, c, b->cid, VIRTIO_VSOCK_OP_RST, 0);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_int_equal(c->dev.stats.dropped, 4);
}

/* A packet needing three buffers where two are posted takes none of them. */
static void test_partial_room_taken_back(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	uint8_t untouched[HDR + RX_PAYLOAD];
	struct virtio_vsock_hdr got;
	uint64_t gpa[2];

	configure_all(w, ALL);
	memset(untouched, 0xee, sizeof(untouched));
	for (unsigned int i = 0; i < 2; i++) {
		gpa[i] = vring_driver_post_rx(&b->rx, HDR + RX_PAYLOAD);
		memset(vring_driver_ptr(&b->rx, gpa[i]), 0xee, sizeof(untouched));
	}
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 3 * RX_PAYLOAD);
	run_pass(w);
	/* Room is counted before anything is copied. */
	for (unsigned int i = 0; i < 2; i++)
		assert_memory_equal(vring_driver_ptr(&b->rx, gpa[i]), untouched,
				    sizeof(untouched));
	assert_int_equal(vring_driver_used_idx(&b->rx), 0);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	assert_int_equal(b->interrupts[VIRTIO_VSOCK_RX_QUEUE], 0);
	assert_int_equal(a->dev.stats.credit_stalls, 1);

	post_rx_buffers(b, 1);
	run_pass(w);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(guest_receive(w, b, &got, i * RX_PAYLOAD), RX_PAYLOAD);
	assert_memory_equal(w->received, w->sent, 3 * RX_PAYLOAD);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
}

/*
 * RSTs are not flow-controlled: the device's own, and a guest's, go at once
 * or are dropped and counted. Here A, posting no receive buffers, pokes B;
 * B's RST reply must not sit in B's transmitq ahead of B's traffic to C.
 */
static void test_rst_dropped_without_buffers(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	struct virtio_vsock_hdr got, rst;

	configure_all(w, ALL);
	guest_send(w, a, 9, VIRTIO_VSOCK_OP_REQUEST, 0);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(a->dev.stats.rsts, 0);
	assert_int_equal(a->dev.stats.dropped, 1);
	assert_int_equal(a->dev.stats.credit_stalls, 0);

	post_rx_buffers(b, 1);
	post_rx_buffers(c, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	rst = header(b, a->cid, VIRTIO_VSOCK_OP_RST, 0);
	guest_send_shaped(w, b, &rst, 0, &linux_shape);
	guest_send(w, b, c->cid, VIRTIO_VSOCK_OP_RW, 10);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&b->tx), 2);
	assert_int_equal(guest_receive(w, c, &got, 0), 10);
	assert_int_equal(b->dev.stats.dropped, 1);
	assert_int_equal(b->dev.stats.packets, 1);
	assert_int_equal(b->dev.stats.credit_stalls, 0);
}

/* A receiveq never enabled is no one there, not a receiver to wait for. */
static void test_rx_queue_not_enabled_is_no_one(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtq_layout layout;
	struct virtio_vsock_hdr got;

	guest_configure(a, ALL);
	post_rx_buffers(a, 1);
	assert_true(virtio_dev_set_features(&b->dev.vdev, ALL));
	vring_driver_init(&b->tx, &b->mem, QSIZE, RX_END, TX_END);
	layout = vring_driver_layout(&b->tx);
	assert_int_equal(virtio_dev_enable_queue(&b->dev.vdev, VIRTIO_VSOCK_TX_QUEUE, &layout), 0);
	virtio_dev_start(&b->dev.vdev);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 100);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_true(got.src_cid == b->cid);
	assert_int_equal(a->dev.stats.credit_stalls, 0);
}

/*
 * A packet waits for B's buffers STALL clock units at most; then it is
 * dropped and the connection reset: A gets an RST from B, A's later packets
 * on it are dropped even once B has buffers (B must not see a gap), a new
 * REQUEST on the same ports goes through, and A's traffic to C, stuck
 * behind, flows.
 */
static void test_stall_resets_connection(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 2);
	post_rx_buffers(c, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 1000);
	guest_send(w, a, c->cid, VIRTIO_VSOCK_OP_RW, 10);
	run_pass(w);
	/* A's packet to C goes past the one waiting for B. */
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(guest_receive(w, c, &got, 0), 10);
	w->now += STALL - 1;
	run_pass(w);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(a->dev.stats.credit_stalls, 3);
	w->now += 1;
	run_pass(w);		/* the flush before it brought the clock */
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 2);
	assert_int_equal(a->dev.parked_count, 0);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_true(got.src_cid == b->cid);
	assert_int_equal(got.src_port, 2000);
	assert_int_equal(got.dst_port, 1000);
	assert_int_equal(a->dev.stats.resets, 1);
	assert_int_equal(a->dev.stats.dropped, 2);	/* the packet, and B's RST: no buffer */
	assert_int_equal(a->dev.stats.rsts, 1);

	post_rx_buffers(b, 2);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 500);
	run_pass(w);
	assert_nothing_received(w, b);
	assert_int_equal(a->dev.stats.dropped, 3);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 500);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_REQUEST);
	assert_int_equal(guest_receive(w, b, &got, 0), 500);
	assert_int_equal(a->dev.stats.packets, 3);
}

/*
 * B's buffers are too small for A's 64 KiB write even with its whole ring
 * posted: the connection is reset at once, an RST to each end, instead of
 * A waiting for ever with its packet to C behind.
 */
static void test_small_buffers_reset_at_once(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	for (unsigned int i = 0; i < QSIZE; i++)
		vring_driver_post_rx(&b->rx, HDR + 100);
	post_rx_buffers(a, 1);
	post_rx_buffers(c, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, BIG);
	guest_send(w, a, c->cid, VIRTIO_VSOCK_OP_RW, 10);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 2);
	assert_int_equal(guest_receive(w, c, &got, 0), 10);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_true(got.src_cid == b->cid);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_true(got.src_cid == a->cid);
	assert_int_equal(got.src_port, 1000);
	assert_nothing_received(w, b);
	assert_int_equal(a->dev.stats.resets, 1);
	assert_int_equal(a->dev.stats.rsts, 2);
	assert_int_equal(a->dev.stats.credit_stalls, 0);
}

/*
 * A stalled packet is tried again only once B posts buffers: until then B's
 * ring is not even looked at, so a buffer B spoils meanwhile goes unseen;
 * the next post makes the device look, and find it.
 */
static void test_stall_retries_when_buffers_posted(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct vring_buf buf;
	uint16_t head;
	char log[512];

	configure_all(w, ALL);
	buf = (struct vring_buf){ vring_driver_alloc(&b->rx, HDR + 100), HDR + 100, true };
	head = vring_driver_post(&b->rx, &buf, 1, false);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 1000);
	run_pass(w);
	b->rx.desc[head].flags &= ~VRING_DESC_F_WRITE;
	run_pass(w);
	run_pass(w);
	assert_false(virtio_dev_needs_reset(&b->dev.vdev));
	assert_int_equal(a->dev.stats.credit_stalls, 3);
	vring_driver_post_rx(&b->rx, HDR + 4096);
	stderr_capture_begin();
	run_pass(w);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio B: queue 0: receive buffer with a device-readable part"));
	assert_true(virtio_dev_needs_reset(&b->dev.vdev));
}

/* Interrupts only where the driver asked (flags without EVENT_IDX, §2.6.7). */
static void test_interrupts_suppressed(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, BASIC);
	post_rx_buffers(b, 2);
	b->rx.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	a->tx.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 10);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&b->rx), 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(b->interrupts[VIRTIO_VSOCK_RX_QUEUE], 0);
	assert_int_equal(a->interrupts[VIRTIO_VSOCK_TX_QUEUE], 0);
}

#define HOLDOFF	100	/* the transmit holdoff the moderation tests set, in w->now units */

/*
 * Transmit completions are held (docs/data-path.md, "Completion
 * moderation"): packets go at once, their buffers come back at the
 * deadline, several passes' under one interrupt, and the port's deadline
 * says when its flush is due.
 */
static void test_tx_holdoff_deadline(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct sidecore_port *pa = &a->dev.vdev.port;
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, 4);
	w->now = 1000;
	for (unsigned int i = 0; i < 3; i++) {
		guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 100);
		run_pass(w);
		w->now += 10;
		assert_int_equal(guest_receive(w, b, &got, 0), 100);
	}
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	assert_int_equal(a->interrupts[VIRTIO_VSOCK_TX_QUEUE], 0);
	assert_int_equal(b->interrupts[VIRTIO_VSOCK_RX_QUEUE], 1);
	assert_false(pa->dirty);
	assert_int_equal(pa->deadline, 1000 + HOLDOFF);
	virtio_vsock_flush(&a->dev, 1000 + HOLDOFF - 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	virtio_vsock_flush(&a->dev, 1000 + HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&a->tx), 3);
	assert_int_equal(a->interrupts[VIRTIO_VSOCK_TX_QUEUE], 1);
	assert_int_equal(pa->deadline, 0);
}

/* Half the transmitq held goes back at once: a sender never runs dry. */
static void test_tx_holdoff_half_queue(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, QSIZE / 2);
	for (unsigned int i = 0; i < QSIZE / 2 - 1; i++)
		guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 10);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 10);
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), QSIZE / 2);
	assert_int_equal(a->interrupts[VIRTIO_VSOCK_TX_QUEUE], 1);
	assert_int_equal(vring_driver_used_idx(&b->rx), QSIZE / 2);
}

/* A reset forgets held completions: the new rings start empty. */
static void test_tx_holdoff_reset(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 10);
	run_pass(w);
	virtio_dev_reset(&a->dev.vdev);
	memset(a->mem.base, 0, GUEST_MEM);
	guest_configure(a, ALL);
	virtio_vsock_flush(&a->dev, 2 * HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	assert_int_equal(a->interrupts[VIRTIO_VSOCK_TX_QUEUE], 0);
	assert_int_equal(a->dev.vdev.port.deadline, 0);
}

static void test_tx_budget(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	post_rx_buffers(b, 8);
	for (unsigned int i = 0; i < 5; i++)
		guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 10);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 3), 3);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 3), 2);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 3), 0);
}

/* A's 30 packets to B parked, B without buffers; then B posts room for all of them. */
static void park_30_for_b(struct world *w)
{
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	for (unsigned int i = 0; i < 30; i++)
		guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 4000 + i);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 64), 30);
	assert_int_equal(a->dev.parked_count, 30);
	post_rx_buffers(b, 30);
}

/* B's stream as it arrived: every packet, in the order sent. */
static void assert_30_in_order(struct world *w)
{
	struct virtio_vsock_hdr got;

	virtio_vsock_flush(&w->g[B]->dev, w->now);
	for (unsigned int i = 0; i < 30; i++)
		assert_int_equal(guest_receive(w, w->g[B], &got, 0), 4000 + i);
	assert_nothing_received(w, w->g[B]);
}

/* Parked retries count against the budget: 20 of them a poll, the rest the next. */
static void test_parked_retries_budgeted(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];

	park_30_for_b(w);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 20), 20);
	assert_int_equal(a->dev.parked_count, 10);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 20), 10);
	assert_int_equal(a->dev.parked_count, 0);
	assert_30_in_order(w);
}

/*
 * And against the pass's meter: with 10,000 bytes left, three 4 KiB
 * packets go (the last overdraws), none once it is spent, the rest later.
 */
static void test_parked_retries_metered(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];

	park_30_for_b(w);
	w->meter[0] = (struct net_meter){ 10000, 1000 };
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 3);
	assert_int_equal(w->meter[0].bytes, 10000 - 3 * (int64_t)HDR - 3 * 4000 - 3);
	assert_int_equal(w->meter[0].segments, 1000 - 6);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 0);
	assert_int_equal(a->dev.parked_count, 27);
	w->meter[0] = NET_METER_UNLIMITED;
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 64), 27);
	assert_30_in_order(w);
}

/* --- broken guests -------------------------------------------------------------- */

/* B to C still works, and C to B. */
static void assert_b_and_c_forward(struct world *w)
{
	struct guest *b = w->g[B], *c = w->g[C];
	struct virtio_vsock_hdr got;

	post_rx_buffers(b, 1);
	post_rx_buffers(c, 1);
	guest_send(w, b, c->cid, VIRTIO_VSOCK_OP_RW, 500);
	guest_send(w, c, b->cid, VIRTIO_VSOCK_OP_RW, 600);
	run_pass(w);
	assert_int_equal(guest_receive(w, c, &got, 0), 500);
	assert_int_equal(guest_receive(w, b, &got, 0), 600);
	assert_memory_equal(w->received, w->sent, 600);
}

/*
 * A transmits what breaks its transmitq: A needs a reset, with a config
 * interrupt and the reason in the log, nothing goes anywhere, and B and C
 * carry on. Then A resets and works again.
 */
static void expect_a_broken(struct world *w, const char *message)
{
	struct guest *a = w->g[A], *b = w->g[B];
	uint16_t used = vring_driver_used_idx(&a->tx);
	struct virtio_vsock_hdr got;
	char log[512];

	stderr_capture_begin();
	run_pass(w);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, message));
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_false(virtio_dev_active(&a->dev.vdev));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), used);
	assert_nothing_received(w, b);
	assert_b_and_c_forward(w);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 0);

	virtio_dev_reset(&a->dev.vdev);
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
	guest_configure(a, ALL);
	memset(a->interrupts, 0, sizeof(a->interrupts));
	post_rx_buffers(b, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 70);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 70);
}

struct bad_packet {
	uint32_t hdr_len;	/* header's len */
	uint32_t payload;	/* bytes after the header */
	uint16_t type;
	uint16_t op;
	const char *message;
};

static void test_bad_headers(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	const struct bad_packet cases[] = {
		{ 200, 100, VIRTIO_VSOCK_TYPE_STREAM, VIRTIO_VSOCK_OP_RW,
		  "queue 1: header len is not the payload's (200)" },
		{ 50, 100, VIRTIO_VSOCK_TYPE_STREAM, VIRTIO_VSOCK_OP_RW,
		  "queue 1: header len is not the payload's (50)" },
		{ BIG + 1, BIG + 1, VIRTIO_VSOCK_TYPE_STREAM, VIRTIO_VSOCK_OP_RW,
		  "queue 1: packet longer than 64 KiB (65537)" },
		{ 10, 10, VIRTIO_VSOCK_TYPE_STREAM, VIRTIO_VSOCK_OP_REQUEST,
		  "queue 1: control packet with a payload (10)" },
		{ 1, 1, VIRTIO_VSOCK_TYPE_STREAM, VIRTIO_VSOCK_OP_SHUTDOWN,
		  "queue 1: control packet with a payload (1)" },
		{ 0, 0, VIRTIO_VSOCK_TYPE_STREAM, VIRTIO_VSOCK_OP_INVALID,
		  "queue 1: unknown operation (0)" },
		{ 0, 0, VIRTIO_VSOCK_TYPE_STREAM, 8, "queue 1: unknown operation (8)" },
	};

	configure_all(w, ALL);
	post_rx_buffers(b, 8);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct virtio_vsock_hdr hdr = header(a, b->cid, cases[i].op, cases[i].hdr_len);

		hdr.type = cases[i].type;
		/* An oversized payload, past the pattern buffer: its bytes do not matter. */
		if (cases[i].payload > BIG) {
			struct vring_buf bufs[2] = {
				{ vring_driver_alloc(&a->tx, HDR), HDR, false },
				{ vring_driver_alloc(&a->tx, cases[i].payload), cases[i].payload,
				  false },
			};

			memcpy(vring_driver_ptr(&a->tx, bufs[0].gpa), &hdr, HDR);
			vring_driver_post(&a->tx, bufs, 2, false);
		} else {
			guest_send_shaped(w, a, &hdr, cases[i].payload, &linux_shape);
		}
		expect_a_broken(w, cases[i].message);
	}
}

/* The upper halves of both CIDs are reserved and zero (virtio 1.2 §5.10.6). */
static void test_reserved_cid_bits(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr hdr = header(a, b->cid | 1ull << 32, VIRTIO_VSOCK_OP_REQUEST, 0);

	configure_all(w, ALL);
	post_rx_buffers(a, 2);
	guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	expect_a_broken(w, "virtio A: queue 1: CID with reserved upper bits (4294967300)");
	assert_nothing_received(w, a);
	hdr = header(a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
	hdr.src_cid |= 1ull << 63;
	guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	expect_a_broken(w, "virtio A: queue 1: CID with reserved upper bits (9223372036854775811)");
}

/*
 * A type the sender did not negotiate (SEQPACKET without the feature) or no
 * one knows gets an RST of that type back (virtio 1.2 §5.10.6.4), not a
 * broken queue; an RST of such a type is dropped and counted.
 */
static void test_unknown_type_answered(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	const uint16_t types[] = { VIRTIO_VSOCK_TYPE_SEQPACKET, 0, 3 };
	struct virtio_vsock_hdr hdr, got;

	configure_all(w, ALL);
	virtio_dev_reset(&a->dev.vdev);
	guest_configure(a, ALL & ~F(VIRTIO_VSOCK_F_SEQPACKET));
	post_rx_buffers(a, 4);
	post_rx_buffers(b, 4);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		hdr = header(a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
		hdr.type = types[i];
		guest_send_shaped(w, a, &hdr, 0, &linux_shape);
		run_pass(w);
		assert_int_equal(guest_receive(w, a, &got, 0), 0);
		assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
		assert_int_equal(got.type, types[i]);
		assert_true(got.src_cid == b->cid);
		assert_int_equal(got.src_port, 2000);
	}
	hdr = header(a, b->cid, VIRTIO_VSOCK_OP_RST, 0);
	hdr.type = 3;
	guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	run_pass(w);
	assert_nothing_received(w, a);
	assert_nothing_received(w, b);
	assert_int_equal(a->dev.stats.rsts, 3);
	assert_int_equal(a->dev.stats.dropped, 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), 4);
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
}

/*
 * SEQPACKET for a receiver that did not negotiate it: its driver would
 * answer with an RST of a type it does not know and break its own
 * transmitq. The sender gets the RST instead.
 */
static void test_seqpacket_to_receiver_without_it(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr hdr = header(a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0), got;

	guest_configure(a, ALL);
	guest_configure(b, BASIC);
	post_rx_buffers(a, 2);
	post_rx_buffers(b, 2);
	hdr.type = VIRTIO_VSOCK_TYPE_SEQPACKET;
	guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	run_pass(w);
	assert_nothing_received(w, b);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_int_equal(got.type, VIRTIO_VSOCK_TYPE_SEQPACKET);
	assert_true(got.src_cid == b->cid);
	assert_int_equal(a->dev.stats.rsts, 1);
	assert_int_equal(a->dev.stats.packets, 0);
}

static void test_tx_shorter_than_header(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct vring_buf buf;

	configure_all(w, ALL);
	buf = (struct vring_buf){ vring_driver_alloc(&a->tx, HDR - 1), HDR - 1, false };
	vring_driver_post(&a->tx, &buf, 1, false);
	expect_a_broken(w, "virtio A: queue 1: transmit buffer shorter than the header");
}

/* INDIRECT_DESC is not offered: a chain through a table breaks the queue (§2.6.5.3.1). */
static void test_tx_indirect_not_offered(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr hdr = header(a, w->g[B]->cid, VIRTIO_VSOCK_OP_RW, 0);
	struct tx_shape indirect = { HDR, 0, true };

	configure_all(w, ALL);
	guest_send_shaped(w, a, &hdr, 0, &indirect);
	expect_a_broken(w, "virtio A: queue 1: indirect descriptor without INDIRECT_DESC");
}

static void test_tx_writable_buffer(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr hdr = header(a, w->g[B]->cid, VIRTIO_VSOCK_OP_RW, 0);
	struct vring_buf bufs[2];

	configure_all(w, ALL);
	bufs[0] = (struct vring_buf){ vring_driver_alloc(&a->tx, HDR), HDR, false };
	bufs[1] = (struct vring_buf){ vring_driver_alloc(&a->tx, 64), 64, true };
	memcpy(vring_driver_ptr(&a->tx, bufs[0].gpa), &hdr, HDR);
	vring_driver_post(&a->tx, bufs, 2, false);
	expect_a_broken(w, "virtio A: queue 1: transmit buffer with a device-writable part");
}

/*
 * B's receiveq breaks while A sends to it: B needs a reset, A gets an RST
 * as from no one, C is untouched.
 */
static void expect_b_rx_broken(struct world *w, const char *message)
{
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	struct virtio_vsock_hdr got;
	char log[512];

	post_rx_buffers(a, 1);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RW, 100);
	stderr_capture_begin();
	run_pass(w);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, message));
	assert_true(virtio_dev_needs_reset(&b->dev.vdev));
	assert_int_equal(b->interrupts[CONFIG_CHANGE], 1);
	assert_int_equal(vring_driver_used_idx(&b->rx), 0);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
	post_rx_buffers(c, 1);
	guest_send(w, a, c->cid, VIRTIO_VSOCK_OP_RW, 100);
	run_pass(w);
	assert_int_equal(guest_receive(w, c, &got, 0), 100);
}

static void test_rx_readable_buffer(void **state)
{
	struct world *w = *state;
	struct guest *b = w->g[B];
	struct vring_buf buf;

	configure_all(w, ALL);
	buf = (struct vring_buf){ vring_driver_alloc(&b->rx, 4096), 4096, false };
	vring_driver_post(&b->rx, &buf, 1, false);
	expect_b_rx_broken(w, "virtio B: queue 0: receive buffer with a device-readable part");
}

/* Room for a header but none for payload: the queue could never carry it. */
static void test_rx_buffer_too_small(void **state)
{
	struct world *w = *state;

	configure_all(w, ALL);
	vring_driver_post_rx(&w->g[B]->rx, HDR);
	expect_b_rx_broken(w, "virtio B: queue 0: receive buffer too small for a packet (44)");
}

/* A header-sized buffer takes a packet without payload. */
static void test_rx_header_only_buffer(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	vring_driver_post_rx(&b->rx, HDR);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_CREDIT_UPDATE);
}

static void test_bad_queue_layout(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	const struct virtq_layout outside = { QSIZE, GUEST_MEM, 0x1000, 0x2000 };
	char log[256];

	assert_true(virtio_dev_set_features(&a->dev.vdev, ALL));
	stderr_capture_begin();
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_VSOCK_EVENT_QUEUE, &outside), -1);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio A: queue 2: ring outside guest memory"));
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_VSOCK_QUEUES, &outside), -1);
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);
	virtio_dev_start(&a->dev.vdev);
	assert_false(virtio_dev_active(&a->dev.vdev));
}

/* Before DRIVER_OK the device leaves the rings alone. */
static void test_not_running(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtq_layout layout;

	assert_true(virtio_dev_set_features(&a->dev.vdev, ALL));
	vring_driver_init(&a->tx, &a->mem, QSIZE, RX_END, TX_END);
	layout = vring_driver_layout(&a->tx);
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_VSOCK_TX_QUEUE, &layout), 0);
	guest_send(w, a, 9, VIRTIO_VSOCK_OP_REQUEST, 0);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 32), 0);
	virtio_vsock_flush(&a->dev, w->now);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
}

/* --- services on CID 2 ------------------------------------------------------ */

#define HOST	VIRTIO_VSOCK_HOST_CID
#define ECHO	VIRTIO_VSOCK_PORT_ECHO
#define DISCARD	VIRTIO_VSOCK_PORT_DISCARD

/* g's packet to CID 2's port with its own credit fields; payload from w->sent. */
static void host_send(struct world *w, struct guest *g, uint32_t port, uint16_t op,
		      uint32_t len, uint32_t buf_alloc, uint32_t fwd_cnt)
{
	struct virtio_vsock_hdr hdr = header(g, HOST, op, len);

	hdr.dst_port = port;
	hdr.buf_alloc = buf_alloc;
	hdr.fwd_cnt = fwd_cnt;
	guest_send_shaped(w, g, &hdr, len, &linux_shape);
}

/* The next packet g received: from CID 2's port to g's port 1000, op as said. */
static struct virtio_vsock_hdr host_expect(struct world *w, struct guest *g, uint32_t port,
					   uint16_t op, uint32_t at)
{
	struct virtio_vsock_hdr got;

	assert_true(guest_receive(w, g, &got, at) >= 0);
	assert_int_equal(got.op, op);
	assert_true(got.src_cid == HOST);
	assert_true(got.dst_cid == g->cid);
	assert_int_equal(got.src_port, port);
	assert_int_equal(got.dst_port, 1000);
	assert_int_equal(got.type, VIRTIO_VSOCK_TYPE_STREAM);
	return got;
}

/* A connection to port: REQUEST, then the service's RESPONSE with its credit. */
static void host_open(struct world *w, struct guest *g, uint32_t port, uint32_t buf_alloc)
{
	struct virtio_vsock_hdr got;

	host_send(w, g, port, VIRTIO_VSOCK_OP_REQUEST, 0, buf_alloc, 0);
	run_pass(w);
	got = host_expect(w, g, port, VIRTIO_VSOCK_OP_RESPONSE, 0);
	assert_int_equal(got.len, 0);
	assert_int_equal(got.fwd_cnt, 0);
	assert_int_equal(got.buf_alloc, port == ECHO ? VIRTIO_VSOCK_ECHO_BUF
						     : VIRTIO_VSOCK_DISCARD_BUF);
}

/*
 * Echo: a write comes back byte for byte in the same pass, its bytes
 * credited back; the open connection then costs the port no pass.
 */
static void test_host_echo(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 8);
	host_open(w, a, ECHO, 262144);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 3000, 262144, 0);
	run_pass(w);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 0);
	assert_int_equal(got.len, 3000);
	assert_int_equal(got.fwd_cnt, 3000);
	assert_memory_equal(w->received, w->sent, 3000);
	assert_nothing_received(w, a);
	assert_int_equal(a->dev.stats.echoed, 3000);
	assert_int_equal(a->dev.stats.packets, 2);
	assert_int_equal(a->dev.stats.rsts, 0);
	assert_nothing_received(w, w->g[B]);
	assert_false(a->dev.vdev.port.busy);
	assert_false(sidecore_port_ready(&a->dev.vdev.port));
}

/*
 * Request and response with echo: each answer comes in the pass that took
 * the request, the requests' buffers come back together at the deadline,
 * under one interrupt.
 */
static void test_host_echo_holdoff(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(a, 8);
	host_open(w, a, ECHO, 262144);
	for (unsigned int i = 0; i < 4; i++) {
		host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 1, 262144, i);
		run_pass(w);
		got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 0);
		assert_int_equal(got.len, 1);
	}
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	w->now = HOLDOFF;
	run_pass(w);
	assert_int_equal(vring_driver_used_idx(&a->tx), 5);
	assert_int_equal(a->interrupts[VIRTIO_VSOCK_TX_QUEUE], 1);
}

/*
 * A write to CID 2 is charged to the pass like any packet, and answered in
 * the same pass even when it overdraws the budget; a port that comes to a
 * pass still owing gets neither its packets nor CID 2's answers moved.
 */
static void test_host_echo_waits_for_budget(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 8);
	host_open(w, a, ECHO, 262144);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 3000, 262144, 0);
	w->meter[0] = (struct net_meter){ 2000, 1000 };
	run_pass(w);
	assert_true(w->meter[0].bytes <= 2000 - 3000 - (int64_t)HDR);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 0);
	assert_int_equal(got.len, 3000);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 2000, 262144, 0);
	w->meter[0] = (struct net_meter){ -1, 1000 };
	run_pass(w);
	assert_int_equal(w->meter[0].bytes, -1);
	assert_nothing_received(w, a);
	w->meter[0] = NET_METER_UNLIMITED;
	run_pass(w);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 0);
	assert_int_equal(got.len, 2000);
	assert_memory_equal(w->received, w->sent, 2000);
}

/* Writes that wrap the echo ring come back whole and in order, cut into 4 KiB buffers. */
static void test_host_echo_ring_wraps(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	static uint8_t expected[3 * 40000];
	uint32_t fwd = 0, got_bytes = 0;
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 1);
	host_open(w, a, ECHO, 262144);
	for (unsigned int i = 0; i < 3; i++) {
		post_rx_buffers(a, 12);
		host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 40000, 262144, fwd);
		memcpy(expected + i * 40000, w->sent, 40000);
		run_pass(w);
		while (guest_receive(w, a, &got, 0) > 0) {
			assert_int_equal(got.op, VIRTIO_VSOCK_OP_RW);
			assert_memory_equal(w->received, expected + got_bytes, got.len);
			got_bytes += got.len;
		}
		assert_int_equal(got_bytes, (i + 1) * 40000);
		fwd = got_bytes;
	}
	assert_int_equal(a->dev.stats.echoed, 3 * 40000);
}

/* Echo sends no more than the guest's credit; a CREDIT_UPDATE lets the rest through. */
static void test_host_echo_within_guest_credit(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 8);
	host_open(w, a, ECHO, 1000);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 2500, 1000, 0);
	run_pass(w);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 0);
	assert_int_equal(got.len, 1000);
	assert_nothing_received(w, a);
	/* The rest waits for credit, which comes on the transmitq: no pass is owed. */
	assert_false(sidecore_port_ready(&a->dev.vdev.port));
	run_pass(w);
	assert_nothing_received(w, a);

	/* The guest read those 1000 bytes and says so. */
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0, 1000, 1000);
	run_pass(w);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 1000);
	assert_int_equal(got.len, 1000);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0, 4000, 2000);
	run_pass(w);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 2000);
	assert_int_equal(got.len, 500);
	assert_int_equal(got.fwd_cnt, 2500);
	assert_int_equal(a->dev.stats.echoed, 2500);
}

/* Echoed bytes without a receive buffer wait for one; nothing is lost. */
static void test_host_echo_waits_for_buffers(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 1);
	host_open(w, a, ECHO, 262144);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 5000, 262144, 0);
	run_pass(w);
	assert_true(a->dev.vdev.port.busy);
	run_pass(w);
	assert_nothing_received(w, a);
	assert_int_equal(vring_driver_used_idx(&a->tx), 2);	/* the transmitq never waits */
	post_rx_buffers(a, 1);
	run_pass(w);
	assert_nothing_received(w, a);	/* 5000 bytes take two buffers */
	post_rx_buffers(a, 1);
	run_pass(w);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 0);
	assert_int_equal(got.len, RX_PAYLOAD);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, RX_PAYLOAD);
	assert_int_equal(got.len, 5000 - RX_PAYLOAD);
	assert_memory_equal(w->received, w->sent, 5000);
}

/* More than echo's credit is the guest breaking its stream: that connection is reset. */
static void test_host_echo_overrun_resets(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];

	configure_all(w, ALL);
	post_rx_buffers(a, 1);
	host_open(w, a, ECHO, 0);	/* the guest grants nothing: echo holds all */
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, BIG, 0, 0);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 1, 0, 0);
	post_rx_buffers(a, 1);
	run_pass(w);
	host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RST, 0);
	assert_nothing_received(w, a);
	assert_int_equal(a->dev.stats.resets, 1);
	assert_int_equal(a->dev.stats.echoed, 0);
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
	/* The slot is free: its later packets get an RST. */
	post_rx_buffers(a, 1);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 10, 262144, 0);
	run_pass(w);
	host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RST, 0);
}

/* Discard counts every byte and gives the credit back before the guest runs out. */
static void test_host_discard(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 4);
	host_open(w, a, DISCARD, 262144);
	/* Told once one largest packet's room is left, not per packet nor per half. */
	for (unsigned int i = 0; i < 2; i++) {
		host_send(w, a, DISCARD, VIRTIO_VSOCK_OP_RW, BIG, 262144, 0);
		run_pass(w);
		assert_nothing_received(w, a);
	}
	host_send(w, a, DISCARD, VIRTIO_VSOCK_OP_RW, BIG, 262144, 0);
	run_pass(w);
	got = host_expect(w, a, DISCARD, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0);
	assert_int_equal(got.fwd_cnt, 3 * BIG);
	assert_int_equal(got.buf_alloc, VIRTIO_VSOCK_DISCARD_BUF);
	assert_nothing_received(w, a);
	assert_int_equal(a->dev.stats.discarded, 3 * BIG);
	assert_int_equal(a->dev.stats.echoed, 0);

	/* Asked, it tells its credit at once. */
	host_send(w, a, DISCARD, VIRTIO_VSOCK_OP_RW, 10, 262144, 0);
	host_send(w, a, DISCARD, VIRTIO_VSOCK_OP_CREDIT_REQUEST, 0, 262144, 0);
	run_pass(w);
	got = host_expect(w, a, DISCARD, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0);
	assert_int_equal(got.fwd_cnt, 3 * BIG + 10);
}

/* Asks CID 2 for g's counters from g's port 1000 and checks the text that comes back. */
static void host_expect_counters(struct world *w, struct guest *g, const char *want)
{
	struct virtio_vsock_hdr got;

	host_send(w, g, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
	run_pass(w);
	host_expect(w, g, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_RESPONSE, 0);
	got = host_expect(w, g, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_RW, 0);
	assert_int_equal(got.len, strlen(want));
	assert_memory_equal(w->received, want, strlen(want));
	got = host_expect(w, g, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_SHUTDOWN, 0);
	assert_int_equal(got.flags, VIRTIO_VSOCK_SHUTDOWN_RCV | VIRTIO_VSOCK_SHUTDOWN_SEND);
	assert_nothing_received(w, g);
}

/* The counters service answers with the device's text, then ends the stream. */
static void test_host_counters(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];

	configure_all(w, ALL);
	post_rx_buffers(a, 16);
	host_expect_counters(w, a, "counters: vsock cid 3 snapshot 1\n");
	assert_int_equal(a->dev.stats.echoed, 0);

	/* Without a snapshot to give, the port is no service's. */
	a->dev.snapshot = NULL;
	host_send(w, a, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
	run_pass(w);
	host_expect(w, a, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_RST, 0);
}

/*
 * A flood of REQUESTs gets one text per interval: the formatting happens
 * once, the copies are charged to the port's turn, and a device reset
 * forgets the text.
 */
static void test_host_counters_bounded(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	const struct virtq *tx = &a->dev.queue[VIRTIO_VSOCK_TX_QUEUE];
	uint16_t taken;

	configure_all(w, ALL);
	post_rx_buffers(a, 64);
	host_expect_counters(w, a, "counters: vsock cid 3 snapshot 1\n");
	w->now += COUNTERS_EVERY - 1;
	run_pass(w);
	host_expect_counters(w, a, "counters: vsock cid 3 snapshot 1\n");
	assert_int_equal(a->snapshots, 1);
	w->now += 1;
	run_pass(w);
	host_expect_counters(w, a, "counters: vsock cid 3 snapshot 2\n");

	/* Each REQUEST ends the turn it came in: the second waits for the next poll. */
	host_send(w, a, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
	host_send(w, a, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
	taken = tx->last_avail_idx;
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 8), 8);
	assert_int_equal((uint16_t)(tx->last_avail_idx - taken), 1);
	assert_int_equal(virtio_vsock_poll_tx(&a->dev, 8), 8);
	assert_int_equal((uint16_t)(tx->last_avail_idx - taken), 2);
	assert_int_equal(a->snapshots, 2);

	virtio_dev_reset(&a->dev.vdev);
	guest_configure(a, ALL);
	post_rx_buffers(a, 16);
	host_expect_counters(w, a, "counters: vsock cid 3 snapshot 3\n");
}

/*
 * REQUESTs to CID 2 go at the device's rate: a burst, then one an
 * interval. The REQUEST past it is held, and the transmitq behind it with
 * it, so the flooder's own queue waits; another guest's packets go on.
 */
static void test_host_requests_rate(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	const struct virtq *tx = &a->dev.queue[VIRTIO_VSOCK_TX_QUEUE];
	const uint64_t every = 10;
	uint16_t taken;

	configure_all(w, ALL);
	post_rx_buffers(a, 64);
	post_rx_buffers(b, 4);
	a->dev.requests_bounded = true;
	ratelimit_init(&a->dev.requests, VIRTIO_VSOCK_HOST_BURST, every, w->now);
	taken = tx->last_avail_idx;
	for (unsigned int i = 0; i < 40; i++)
		host_send(w, a, VIRTIO_VSOCK_PORT_COUNTERS, VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
	/* A REQUEST for the counters ends its turn: one a pass while the burst lasts. */
	for (unsigned int i = 0; i < VIRTIO_VSOCK_HOST_BURST; i++)
		run_pass(w);
	assert_int_equal((uint16_t)(tx->last_avail_idx - taken), VIRTIO_VSOCK_HOST_BURST);
	assert_int_equal(a->dev.stats.held, 0);
	for (unsigned int i = 0; i < 5; i++)
		run_pass(w);
	assert_int_equal((uint16_t)(tx->last_avail_idx - taken), VIRTIO_VSOCK_HOST_BURST + 1);
	assert_int_equal(a->dev.stats.held, 1);
	assert_int_equal(a->dev.stats.packets, VIRTIO_VSOCK_HOST_BURST);

	/* The held queue is A's alone. */
	guest_send(w, b, a->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
	run_pass(w);
	assert_int_equal(b->dev.stats.packets, 1);

	/* An interval later the held one goes, and the next is held in its place. */
	w->now += every;
	run_pass(w);
	run_pass(w);
	assert_int_equal(a->dev.stats.packets, VIRTIO_VSOCK_HOST_BURST + 1);
	assert_int_equal((uint16_t)(tx->last_avail_idx - taken), VIRTIO_VSOCK_HOST_BURST + 2);
	assert_int_equal(a->dev.stats.held, 2);

	/* A reset drops the held chain with the queue; the bucket stays spent. */
	virtio_dev_reset(&a->dev.vdev);
	assert_false(a->dev.request_held);
	assert_int_equal(a->dev.requests.tokens, 0);
}

/*
 * A driver that never enables its receiveq still gets its REQUEST taken;
 * what the service owes waits, and nothing reads a ring that is not there.
 */
static void test_host_rx_never_enabled(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	static const uint32_t ports[] = { ECHO, VIRTIO_VSOCK_PORT_COUNTERS };

	guest_configure_tx_only(a);
	for (unsigned int i = 0; i < 2; i++) {
		host_send(w, a, ports[i], VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
		w->now += STALL;
		run_pass(w);
		run_pass(w);
	}
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
	assert_int_equal(a->dev.stats.packets, 2);
}

/* A REQUEST taken before the receiveq is enabled keeps the port busy: the RESPONSE goes once it is. */
static void test_host_rx_enabled_late(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtq_layout layout;

	guest_configure_tx_only(a);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
	run_pass(w);
	run_pass(w);
	assert_true(a->dev.vdev.port.busy);
	vring_driver_init(&a->rx, &a->mem, QSIZE, 0, RX_END);
	layout = vring_driver_layout(&a->rx);
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_VSOCK_RX_QUEUE, &layout), 0);
	post_rx_buffers(a, 1);
	run_pass(w);
	host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RESPONSE, 0);
	assert_false(sidecore_port_ready(&a->dev.vdev.port));
}

/* What no service takes gets an RST: a port without one, no connection, a full table, SEQPACKET. */
static void test_host_refuses(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr hdr = header(a, HOST, VIRTIO_VSOCK_OP_REQUEST, 0);

	configure_all(w, ALL);
	post_rx_buffers(a, 16);
	host_send(w, a, 8, VIRTIO_VSOCK_OP_REQUEST, 0, 262144, 0);
	run_pass(w);
	host_expect(w, a, 8, VIRTIO_VSOCK_OP_RST, 0);
	host_send(w, a, DISCARD, VIRTIO_VSOCK_OP_RW, 10, 262144, 0);
	run_pass(w);
	host_expect(w, a, DISCARD, VIRTIO_VSOCK_OP_RST, 0);
	hdr.dst_port = ECHO;
	hdr.type = VIRTIO_VSOCK_TYPE_SEQPACKET;
	guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	run_pass(w);
	assert_int_equal(guest_receive(w, a, &hdr, 0), 0);
	assert_int_equal(hdr.op, VIRTIO_VSOCK_OP_RST);
	assert_int_equal(hdr.type, VIRTIO_VSOCK_TYPE_SEQPACKET);
	assert_true(hdr.src_cid == HOST);
	for (unsigned int i = 0; i <= VIRTIO_VSOCK_HOST_CONNS; i++) {
		hdr = header(a, HOST, VIRTIO_VSOCK_OP_REQUEST, 0);
		hdr.dst_port = ECHO;
		hdr.src_port = 3000 + i;
		guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	}
	run_pass(w);
	/* The RST goes at once, the RESPONSEs at the end of the pass. */
	for (unsigned int i = 0; i <= VIRTIO_VSOCK_HOST_CONNS; i++) {
		struct virtio_vsock_hdr got;

		assert_int_equal(guest_receive(w, a, &got, 0), 0);
		if (i == 0) {
			assert_int_equal(got.dst_port, 3000 + VIRTIO_VSOCK_HOST_CONNS);
			assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
		} else {
			assert_int_equal(got.dst_port, 3000 + i - 1);
			assert_int_equal(got.op, VIRTIO_VSOCK_OP_RESPONSE);
		}
	}
	assert_int_equal(a->dev.stats.rsts, 4);
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
}

/*
 * A guest's close (SHUTDOWN both ways) gets an RST and frees the slot; a
 * shutdown of its sending side first gets its echo back, then a SHUTDOWN.
 */
static void test_host_shutdown(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct virtio_vsock_hdr hdr = header(a, HOST, VIRTIO_VSOCK_OP_SHUTDOWN, 0), got;

	configure_all(w, ALL);
	post_rx_buffers(a, 16);
	host_open(w, a, DISCARD, 262144);
	hdr.dst_port = DISCARD;
	hdr.flags = VIRTIO_VSOCK_SHUTDOWN_RCV | VIRTIO_VSOCK_SHUTDOWN_SEND;
	guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	run_pass(w);
	host_expect(w, a, DISCARD, VIRTIO_VSOCK_OP_RST, 0);

	host_open(w, a, ECHO, 0);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 100, 0, 0);
	hdr.dst_port = ECHO;
	hdr.flags = VIRTIO_VSOCK_SHUTDOWN_SEND;
	hdr.buf_alloc = 0;
	hdr.fwd_cnt = 0;
	guest_send_shaped(w, a, &hdr, 0, &linux_shape);
	run_pass(w);
	assert_nothing_received(w, a);	/* no credit for the echo yet, so no SHUTDOWN */
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0, 262144, 0);
	run_pass(w);
	assert_int_equal(host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 0).len, 100);
	got = host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_SHUTDOWN, 0);
	assert_int_equal(got.flags, VIRTIO_VSOCK_SHUTDOWN_RCV | VIRTIO_VSOCK_SHUTDOWN_SEND);
	/* The guest's RST answering it finds no connection, and is not answered. */
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RST, 0, 0, 0);
	run_pass(w);
	assert_nothing_received(w, a);
}

/* A device reset forgets its connections to CID 2; nothing of them reaches the next driver. */
static void test_host_reset_forgets(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];

	configure_all(w, ALL);
	post_rx_buffers(a, 1);
	host_open(w, a, ECHO, 0);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_RW, 500, 0, 0);
	run_pass(w);
	virtio_dev_reset(&a->dev.vdev);
	memset(a->mem.base, 0, GUEST_MEM);
	guest_configure(a, ALL);
	post_rx_buffers(a, 4);
	run_pass(w);
	assert_nothing_received(w, a);
	host_send(w, a, ECHO, VIRTIO_VSOCK_OP_CREDIT_UPDATE, 0, 262144, 0);
	run_pass(w);
	host_expect(w, a, ECHO, VIRTIO_VSOCK_OP_RST, 0);
	assert_nothing_received(w, a);
}

/* --- devices of two sidecores ------------------------------------------------ */

/*
 * C is served under another, higher-ranked lock: A's packets to C wait for
 * it. C's packets to A only try A's lock: while another core holds it,
 * C's packet waits, however long, parked, neither lost nor reset.
 */
static void test_other_domain(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *c = w->g[C];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 4);
	post_rx_buffers(c, 4);
	w->domain[1].busy = true;
	guest_send(w, a, c->cid, VIRTIO_VSOCK_OP_RW, 700);
	run_pass(w);
	assert_int_equal(guest_receive(w, c, &got, 0), 700);
	assert_memory_equal(w->received, w->sent, 700);
	assert_int_equal(a->dev.stats.remote, 1);
	assert_int_equal(w->domain[1].waited, 1);
	assert_int_equal(w->domain[1].tries, 0);

	w->domain[0].busy = true;
	guest_send(w, c, a->cid, VIRTIO_VSOCK_OP_RW, 800);
	for (unsigned int i = 0; i < 3; i++) {
		run_pass(w);
		w->now += STALL;
	}
	assert_nothing_received(w, a);
	assert_nothing_received(w, c);
	assert_int_equal(c->dev.stats.busy, 3);
	assert_int_equal(c->dev.stats.resets, 0);
	assert_int_equal(c->dev.parked_count, 1);

	w->domain[0].busy = false;
	run_pass(w);
	assert_int_equal(guest_receive(w, a, &got, 0), 800);
	assert_memory_equal(w->received, w->sent, 800);
	assert_int_equal(c->dev.stats.remote, 1);
	assert_int_equal(w->domain[0].held + w->domain[1].held, 0);
}

/* Answers from another domain's device, RSTs included, come back to A under C's lock. */
static void test_other_domain_rst(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *c = w->g[C];
	struct virtio_vsock_hdr got;

	guest_configure(a, ALL);
	guest_configure(c, BASIC);	/* no SEQPACKET */
	post_rx_buffers(a, 2);
	post_rx_buffers(c, 2);
	guest_send_shaped(w, a, &(struct virtio_vsock_hdr){ .src_cid = 3, .dst_cid = 5,
		.type = VIRTIO_VSOCK_TYPE_SEQPACKET, .op = VIRTIO_VSOCK_OP_REQUEST }, 0,
		&linux_shape);
	run_pass(w);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_true(got.src_cid == c->cid);
	assert_nothing_received(w, c);
	assert_int_equal(w->domain[1].held, 0);
}

/* --- a guest that goes ------------------------------------------------------- */

/* A connects to B on ports 1000 -> 2000: REQUEST, then B's RESPONSE. */
static void connect_a_to_b(struct world *w)
{
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr response = header(b, a->cid, VIRTIO_VSOCK_OP_RESPONSE, 0), got;

	response.src_port = 2000;
	response.dst_port = 1000;
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_REQUEST, 0);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	guest_send_shaped(w, b, &response, 0, &linux_shape);
	run_pass(w);
	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RESPONSE);
}

/* A's end hears from B's, as an RST on the connection's own addresses. */
static void expect_rst_from_b(struct world *w)
{
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr got;

	assert_int_equal(guest_receive(w, a, &got, 0), 0);
	assert_int_equal(got.op, VIRTIO_VSOCK_OP_RST);
	assert_true(got.src_cid == b->cid);
	assert_true(got.dst_cid == a->cid);
	assert_int_equal(got.src_port, 2000);
	assert_int_equal(got.dst_port, 1000);
	assert_int_equal(got.type, VIRTIO_VSOCK_TYPE_STREAM);
	assert_nothing_received(w, a);
}

/* B's guest restarts: A's connection with it gets an RST at A's next pass, once. */
static void test_peer_reset_tells_the_other_end(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	post_rx_buffers(a, 4);
	post_rx_buffers(b, 4);
	post_rx_buffers(w->g[C], 4);
	connect_a_to_b(w);
	virtio_dev_reset(&b->dev.vdev);
	run_pass(w);
	expect_rst_from_b(w);
	assert_int_equal(a->dev.stats.peer_gone, 1);
	run_pass(w);
	assert_nothing_received(w, a);
	assert_nothing_received(w, w->g[C]);
	/* B's next life hears nothing of A's: its device starts with no links. */
	guest_configure(b, ALL);
	post_rx_buffers(b, 4);
	virtio_dev_reset(&a->dev.vdev);
	run_pass(w);
	assert_nothing_received(w, b);
}

/*
 * An open connection costs A's port no pass: it is neither busy nor ready
 * until a death moves the table's count, which it watches only while it
 * has links; after the pass that told A of B's, it watches it no more.
 */
static void test_peer_link_rests(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B], *c = w->g[C];
	const struct sidecore_port *pa = &a->dev.vdev.port, *pc = &c->dev.vdev.port;

	configure_all(w, ALL);
	post_rx_buffers(a, 4);
	post_rx_buffers(b, 4);
	connect_a_to_b(w);
	run_pass(w);
	assert_int_equal(pa->watches, 2);
	assert_int_equal(pc->watches, 1);
	assert_false(pa->busy);
	assert_false(sidecore_port_ready(pa));
	virtio_dev_reset(&b->dev.vdev);
	assert_true(sidecore_port_ready(pa));
	assert_false(sidecore_port_ready(pc));
	run_pass(w);
	expect_rst_from_b(w);
	assert_int_equal(pa->watches, 1);
	assert_false(sidecore_port_ready(pa));
}

/* A connection closed with an RST is forgotten: B going later tells A nothing. */
static void test_peer_rst_unlinks(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr got;

	configure_all(w, ALL);
	post_rx_buffers(a, 4);
	post_rx_buffers(b, 4);
	connect_a_to_b(w);
	guest_send(w, a, b->cid, VIRTIO_VSOCK_OP_RST, 0);
	run_pass(w);
	assert_int_equal(guest_receive(w, b, &got, 0), 0);
	assert_int_equal(a->dev.vdev.port.watches, 1);
	assert_int_equal(b->dev.vdev.port.watches, 1);
	virtio_dev_reset(&b->dev.vdev);
	run_pass(w);
	assert_nothing_received(w, a);
	assert_int_equal(a->dev.stats.peer_gone, 0);
}

/* B breaking its own queue ends its connections as a reset does. */
static void test_peer_broken_tells_the_other_end(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_vsock_hdr bad = header(b, a->cid, VIRTIO_VSOCK_OP_RW, 10);
	char log[512];

	configure_all(w, ALL);
	post_rx_buffers(a, 4);
	post_rx_buffers(b, 4);
	connect_a_to_b(w);
	bad.len = 11;	/* not the payload's */
	guest_send_shaped(w, b, &bad, 10, &linux_shape);
	stderr_capture_begin();
	run_pass(w);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "header len is not the payload's"));
	assert_true(virtio_dev_needs_reset(&b->dev.vdev));
	run_pass(w);
	expect_rst_from_b(w);
}

/* An RST for a gone peer without a buffer to take it waits for one. */
static void test_peer_rst_waits_for_a_buffer(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	post_rx_buffers(a, 1);
	post_rx_buffers(b, 4);
	connect_a_to_b(w);
	virtio_dev_reset(&b->dev.vdev);
	run_pass(w);
	run_pass(w);
	assert_nothing_received(w, a);
	post_rx_buffers(a, 1);
	run_pass(w);
	expect_rst_from_b(w);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)
	const struct CMUnitTest device[] = {
		T(test_features),
		T(test_init_and_table),
		T(test_config_space),
	};
	const struct CMUnitTest delivery[] = {
		T(test_deliver_a_to_b),
		T(test_header_split),
		T(test_large_packet_cut),
		T(test_seqpacket_marks),
		T(test_deliver_to_self),
		T(test_deliver_to_self_overlapping),
		T(test_spoofed_cid_dropped),
		T(test_rst_for_unknown_cid),
		T(test_rst_for_stopped_receiver),
		T(test_unknown_type_answered),
		T(test_seqpacket_to_receiver_without_it),
		T(test_receiver_without_buffers_stalls),
		T(test_parked_lets_others_pass),
		T(test_port_hint),
		T(test_rsts_give_way_to_a_waiting_stream),
		T(test_partial_room_taken_back),
		T(test_rst_dropped_without_buffers),
		T(test_rx_queue_not_enabled_is_no_one),
		T(test_stall_resets_connection),
		T(test_small_buffers_reset_at_once),
		T(test_stall_retries_when_buffers_posted),
		T(test_interrupts_suppressed),
		T(test_tx_holdoff_deadline),
		T(test_tx_holdoff_half_queue),
		T(test_tx_holdoff_reset),
		T(test_tx_budget),
		T(test_parked_retries_budgeted),
		T(test_parked_retries_metered),
	};
	const struct CMUnitTest host[] = {
		T(test_host_echo),
		T(test_host_echo_holdoff),
		T(test_host_echo_waits_for_budget),
		T(test_host_echo_ring_wraps),
		T(test_host_echo_within_guest_credit),
		T(test_host_echo_waits_for_buffers),
		T(test_host_echo_overrun_resets),
		T(test_host_discard),
		T(test_host_counters),
		T(test_host_counters_bounded),
		T(test_host_requests_rate),
		T(test_host_rx_never_enabled),
		T(test_host_rx_enabled_late),
		T(test_host_refuses),
		T(test_host_shutdown),
		T(test_host_reset_forgets),
	};
	const struct CMUnitTest domains[] = {
		T(test_other_domain),
		T(test_other_domain_rst),
	};
	const struct CMUnitTest peers[] = {
		T(test_peer_reset_tells_the_other_end),
		T(test_peer_link_rests),
		T(test_peer_rst_unlinks),
		T(test_peer_broken_tells_the_other_end),
		T(test_peer_rst_waits_for_a_buffer),
	};
	const struct CMUnitTest broken[] = {
		T(test_bad_headers),
		T(test_reserved_cid_bits),
		T(test_tx_shorter_than_header),
		T(test_tx_indirect_not_offered),
		T(test_tx_writable_buffer),
		T(test_rx_readable_buffer),
		T(test_rx_buffer_too_small),
		T(test_rx_header_only_buffer),
		T(test_bad_queue_layout),
		T(test_not_running),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("virtio-vsock device", device, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-vsock delivery", delivery, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-vsock services on CID 2", host, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-vsock two sidecores", domains, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-vsock a guest that goes", peers, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-vsock broken guests", broken, NULL, NULL);
	return failed ? 1 : 0;
}
