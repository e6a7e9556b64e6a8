/* SPDX-License-Identifier: MIT */
/*
 * test_virtio_net_mq.c - unit tests for virtio-net multiqueue
 * (hv/virtio/virtio_net.c, virtio 1.2 §5.1): the offer that follows the
 * vCPU count, the queue layout of §5.1.2, the control queue's
 * VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET and everything it must refuse
 * (§5.1.6.5.5), receive steering by flow, transmit queues polled in turns,
 * per-queue counters, moderation and interrupts per pair, and a reset back
 * to one pair.
 *
 * Guest S has one vCPU, so one pair; guest M has PAIRS. Both are on
 * sidecore 0, so the switch delivers straight into the receiver's queues.
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
#include "tests/unit/support/test_packets.h"
#include "tests/unit/support/virtio_model.h"
#include "tests/unit/support/vring_driver.h"
#include "virtio/virtio_net.h"

#define GUEST_MEM	0x800000ull	/* 8 MiB: a 256 KiB area per ring */
#define AREA		0x40000ull
#define QSIZE		64
#define PAIRS		4
#define HDR		sizeof(struct virtio_net_hdr_v1)
#define F(bit)		(1ull << (bit))
#define ONE_PAIR	VIRTIO_NET_DEVICE_FEATURES
#define MQ		(VIRTIO_NET_DEVICE_FEATURES | VIRTIO_NET_MQ_FEATURES)
#define HOLDOFF		100
#define FLOWS		16
#define SPORT		40000

/* A configuration change is counted after every queue's interrupts. */
#define CONFIG_CHANGE	VIRTIO_NET_MAX_QUEUES

struct guest {
	struct guest_mem mem;
	/* By the transport's index, and one past every queue a device can have. */
	struct vring_driver q[VIRTIO_NET_MAX_QUEUES + 1];
	unsigned int ctrl;				/* the control queue's index */
	struct virtio_net dev;
	unsigned int interrupts[CONFIG_CHANGE + 1];
	uint8_t mac[ETH_ALEN];
};

struct world {
	struct net_switch sw;
	struct guest *s, *m;
	uint8_t frame[2048];
	uint8_t received[2048];
};

static void record_interrupt(struct virtio_dev *dev, unsigned int source)
{
	struct guest *g = dev->ctx;

	if (source == VIRTIO_DEV_CONFIG_CHANGE)
		source = CONFIG_CHANGE;
	assert_true(source <= CONFIG_CHANGE);
	g->interrupts[source]++;
}

/* A guest of pairs queue pairs; its port goes on the switch when attach says so. */
static struct guest *guest_new(struct world *w, const char *name, uint8_t n, unsigned int pairs,
			       bool attach)
{
	struct guest *g = calloc(1, sizeof(*g));
	struct virtio_net_params params = {
		.sw = &w->sw,
		.max_pairs = pairs,
	};

	assert_non_null(g);
	g->mem.size = GUEST_MEM;
	g->mem.base = calloc(1, GUEST_MEM);
	assert_non_null(g->mem.base);
	memcpy(g->mac, (const uint8_t[]){ 0x52, 0x54, 0x00, 0x12, 0x34, n }, ETH_ALEN);
	memcpy(params.mac, g->mac, ETH_ALEN);
	assert_true(virtio_model_init(&virtio_net_ops, &g->dev.vdev,
				      name, &g->mem, record_interrupt, g, &params));
	if (attach)
		assert_true(net_switch_add_port(&w->sw, &g->dev.port));
	return g;
}

static void guest_free(struct guest *g)
{
	free(g->mem.base);
	free(g);
}

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	net_switch_init(&w->sw);
	w->s = guest_new(w, "S", 1, 1, true);
	w->m = guest_new(w, "M", 2, PAIRS, true);
	*state = w;
	return 0;
}

static int world_teardown(void **state)
{
	struct world *w = *state;

	guest_free(w->s);
	guest_free(w->m);
	free(w);
	return 0;
}

/* Enables queue index with a ring in its own area; returns what the device said. */
static int ring_enable(struct guest *g, unsigned int index)
{
	struct virtq_layout layout;

	vring_driver_init(&g->q[index], &g->mem, QSIZE, index * AREA, (index + 1) * AREA);
	layout = vring_driver_layout(&g->q[index]);
	return virtio_dev_enable_queue(&g->dev.vdev, index, &layout);
}

/*
 * The driver's bring-up (§3.1.1): features, every queue the features give
 * it (§5.1.2), each receiveq with buffers, DRIVER_OK.
 */
static void guest_configure(struct guest *g, uint64_t features)
{
	unsigned int pairs = features & F(VIRTIO_NET_F_MQ) ? g->dev.max_pairs : 1;

	assert_true(virtio_dev_set_features(&g->dev.vdev, features));
	for (unsigned int i = 0; i < 2 * pairs; i++)
		assert_int_equal(ring_enable(g, i), 0);
	g->ctrl = 2 * pairs;
	if (features & F(VIRTIO_NET_F_CTRL_VQ))
		assert_int_equal(ring_enable(g, g->ctrl), 0);
	for (unsigned int i = 0; i < pairs; i++) {
		for (unsigned int b = 0; b < 16; b++)
			vring_driver_post_rx(&g->q[VIRTIO_NET_RXQ(i)], 2048);
	}
	virtio_dev_start(&g->dev.vdev);
}

static void configure_both(struct world *w)
{
	guest_configure(w->s, ONE_PAIR);
	guest_configure(w->m, MQ);
}

/* --- the control queue, as the driver uses it -------------------------------- */

/*
 * Posts a command as Linux's virtnet_send_command() does: the class and
 * command, the data, then the one-byte ack, three descriptors (two without
 * data). Returns the ack's address.
 */
static uint64_t ctrl_post(struct guest *g, uint8_t class, uint8_t command, const void *data,
			  uint32_t len)
{
	struct vring_driver *c = &g->q[g->ctrl];
	struct vring_buf bufs[3];
	unsigned int count = 0;
	uint64_t hdr = vring_driver_alloc(c, 2), ack = vring_driver_alloc(c, 1);
	uint8_t *p = vring_driver_ptr(c, hdr);

	p[0] = class;
	p[1] = command;
	bufs[count++] = (struct vring_buf){ hdr, 2, false };
	if (len) {
		uint64_t gpa = vring_driver_alloc(c, len);

		memcpy(vring_driver_ptr(c, gpa), data, len);
		bufs[count++] = (struct vring_buf){ gpa, len, false };
	}
	*(uint8_t *)vring_driver_ptr(c, ack) = 0xee;
	bufs[count++] = (struct vring_buf){ ack, 1, true };
	vring_driver_post(c, bufs, count, false);
	return ack;
}

/* The ack of the next used control entry, which must have 1 byte written. */
static uint8_t ctrl_answer(struct guest *g, uint64_t ack)
{
	uint32_t id, len;

	assert_true(vring_driver_take_used(&g->q[g->ctrl], &id, &len));
	assert_int_equal(len, 1);
	return *(uint8_t *)vring_driver_ptr(&g->q[g->ctrl], ack);
}

/* A command served by one poll, as the sidecore serves it; returns the ack. */
static uint8_t ctrl_command(struct guest *g, uint8_t class, uint8_t command, const void *data,
			    uint32_t len)
{
	uint64_t ack = ctrl_post(g, class, command, data, len);

	virtio_net_poll_tx(&g->dev, 32);
	return ctrl_answer(g, ack);
}

static uint8_t pairs_set(struct guest *g, unsigned int pairs)
{
	const uint8_t data[2] = { (uint8_t)pairs, (uint8_t)(pairs >> 8) };

	return ctrl_command(g, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, data, 2);
}

/* --- frames ------------------------------------------------------------------ */

/* A TCP (or UDP) frame from one guest to another, its source port sport. */
static uint32_t flow_frame(struct world *w, const struct guest *from, const struct guest *to,
			   uint16_t sport, uint32_t seq, bool udp)
{
	struct tp_spec spec = { .payload = 100, .seq = seq, .udp = udp, .seed = (uint8_t)seq };
	struct tp_frame f;
	uint32_t len;

	memcpy(spec.dst, to->mac, ETH_ALEN);
	memcpy(spec.src, from->mac, ETH_ALEN);
	tp_layout(&spec, &f);
	len = tp_build(w->frame, &spec);
	w->frame[f.l4] = (uint8_t)(sport >> 8);
	w->frame[f.l4 + 1] = (uint8_t)sport;
	return len;
}

/* An ARP-typed frame: no flow to hash. */
static uint32_t arp_frame(struct world *w, const struct guest *from, const struct guest *to)
{
	memset(w->frame, 0, 60);
	memcpy(w->frame, to->mac, ETH_ALEN);
	memcpy(w->frame + ETH_ALEN, from->mac, ETH_ALEN);
	w->frame[12] = 0x08;
	w->frame[13] = 0x06;
	return 60;
}

/* Posts the frame in w->frame, behind hdr, on pair's transmitq. */
static void send_hdr(struct world *w, struct guest *g, unsigned int pair, uint32_t len,
		     const struct virtio_net_hdr_v1 *hdr)
{
	struct vring_driver *tx = &g->q[VIRTIO_NET_TXQ(pair)];
	uint64_t gpa = vring_driver_alloc(tx, HDR + len);
	uint8_t *p = vring_driver_ptr(tx, gpa);
	struct vring_buf buf = { gpa, HDR + len, false };

	memcpy(p, hdr, HDR);
	memcpy(p + HDR, w->frame, len);
	vring_driver_post(tx, &buf, 1, false);
}

static void send_on(struct world *w, struct guest *g, unsigned int pair, uint32_t len)
{
	const struct virtio_net_hdr_v1 plain = { 0 };

	send_hdr(w, g, pair, len, &plain);
}

/* The next frame on pair's receiveq, into w->received: its length, or -1. */
static int receive_on(struct world *w, struct guest *g, unsigned int pair)
{
	struct vring_driver *rx = &g->q[VIRTIO_NET_RXQ(pair)];
	struct virtio_net_hdr_v1 hdr;
	uint32_t id, len;
	const uint8_t *p;

	if (!vring_driver_take_used(rx, &id, &len))
		return -1;
	p = vring_driver_ptr(rx, rx->desc[id].addr);
	memcpy(&hdr, p, HDR);
	assert_int_equal(hdr.num_buffers, 1);
	memcpy(w->received, p + HDR, len - HDR);
	return (int)(len - HDR);
}

/* Which of M's receiveqs holds a frame now; fails unless exactly one does. */
static unsigned int received_on(struct world *w, struct guest *g)
{
	unsigned int found = PAIRS;

	for (unsigned int q = 0; q < g->dev.max_pairs; q++) {
		if (receive_on(w, g, q) < 0)
			continue;
		assert_int_equal(found, PAIRS);
		found = q;
	}
	assert_int_not_equal(found, PAIRS);
	return found;
}

/* One pass of the sidecore: both transmit sides, then the flushes. */
static void run_pass(struct world *w, uint64_t now)
{
	virtio_net_poll_tx(&w->s->dev, 32);
	virtio_net_poll_tx(&w->m->dev, 32);
	virtio_net_flush(&w->s->dev, now);
	virtio_net_flush(&w->m->dev, now);
}

/* --- the offer and the layout ------------------------------------------------ */

/* A vCPU count of 0 or 1 gets today's device; more get MQ, capped at 8 pairs. */
static void test_mq_offer_follows_pairs(void **state)
{
	struct world *w = *state;
	const struct {
		unsigned int vcpus, pairs, queues;
		uint64_t features;
	} cases[] = {
		{ 0, 1, 2, ONE_PAIR },
		{ 1, 1, 2, ONE_PAIR },
		{ 2, 2, 5, MQ },
		{ 8, 8, 17, MQ },
		{ 9, 8, 17, MQ },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct guest *g = guest_new(w, "G", 9, cases[i].vcpus, false);

		assert_int_equal(g->dev.vdev.offered, cases[i].features);
		assert_int_equal(g->dev.vdev.num_queues, cases[i].queues);
		assert_int_equal(virtio_dev_read_config(&g->dev.vdev,
			offsetof(struct virtio_net_config, max_virtqueue_pairs), 2),
			cases[i].pairs);
		assert_int_equal(g->dev.active_pairs, 1);
		guest_free(g);
	}
	assert_int_equal(VIRTIO_NET_MQ_FEATURES, F(VIRTIO_NET_F_CTRL_VQ) | F(VIRTIO_NET_F_MQ));
}

/* §5.1.3.1: MQ needs CTRL_VQ; a one-pair device offers neither. */
static void test_mq_feature_dependencies(void **state)
{
	struct world *w = *state;

	assert_false(virtio_dev_set_features(&w->m->dev.vdev, MQ & ~F(VIRTIO_NET_F_CTRL_VQ)));
	assert_true(virtio_dev_set_features(&w->m->dev.vdev, MQ & ~F(VIRTIO_NET_F_MQ)));
	assert_true(virtio_dev_set_features(&w->m->dev.vdev, MQ));
	assert_false(virtio_dev_set_features(&w->s->dev.vdev, ONE_PAIR | F(VIRTIO_NET_F_CTRL_VQ)));
	assert_false(virtio_dev_set_features(&w->s->dev.vdev, MQ));
}

/*
 * §5.1.2: with MQ the control queue follows all the pairs; with CTRL_VQ
 * alone it follows the first; without either there is none.
 */
static void test_mq_queue_layout(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;

	assert_true(virtio_dev_set_features(&m->dev.vdev, MQ));
	for (unsigned int i = 0; i <= 2 * PAIRS; i++)
		assert_int_equal(ring_enable(m, i), 0);
	assert_true(m->dev.ctrl.ready);
	assert_int_equal(m->dev.ctrl.index, 2 * PAIRS);
	assert_int_equal(ring_enable(m, 2 * PAIRS + 1), -1);
	assert_int_equal(ring_enable(m, VIRTIO_NET_MAX_QUEUES), -1);
	/* A queue the features do not give is refused, as the transport refuses it. */
	assert_true(virtio_dev_needs_reset(&m->dev.vdev));

	virtio_dev_reset(&m->dev.vdev);
	assert_false(m->dev.ctrl.ready);
	assert_true(virtio_dev_set_features(&m->dev.vdev, MQ & ~F(VIRTIO_NET_F_MQ)));
	assert_int_equal(ring_enable(m, 0), 0);
	assert_int_equal(ring_enable(m, 1), 0);
	assert_int_equal(ring_enable(m, 2), 0);
	assert_true(m->dev.ctrl.ready);
	assert_int_equal(m->dev.ctrl.index, 2);
	assert_int_equal(ring_enable(m, 3), -1);

	virtio_dev_reset(&m->dev.vdev);
	assert_true(virtio_dev_set_features(&m->dev.vdev, ONE_PAIR));
	assert_int_equal(ring_enable(m, 2), -1);
	assert_false(m->dev.ctrl.ready);
}

/* --- VQ_PAIRS_SET --------------------------------------------------------------- */

/* Every count from 1 to the maximum is taken, and answered OK. */
static void test_mq_pairs_set_ok(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;

	configure_both(w);
	for (unsigned int n = PAIRS; n >= 1; n--) {
		assert_int_equal(pairs_set(m, n), VIRTIO_NET_OK);
		assert_int_equal(m->dev.active_pairs, n);
	}
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	assert_int_equal(m->dev.active_pairs, PAIRS);
	assert_false(virtio_dev_needs_reset(&m->dev.vdev));
}

/* The same command cut otherwise: a big ack buffer, the command in one or four descriptors. */
static void test_mq_pairs_set_shapes(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;
	struct vring_driver *c;
	const uint8_t cmd[4] = { VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, 3, 0 };
	uint64_t gpa, ack;

	configure_both(w);
	c = &m->q[m->ctrl];
	for (unsigned int shape = 0; shape < 3; shape++) {
		struct vring_buf bufs[5];
		unsigned int count = 0;

		gpa = vring_driver_alloc(c, 4);
		memcpy(vring_driver_ptr(c, gpa), cmd, 4);
		ack = vring_driver_alloc(c, 64);
		memset(vring_driver_ptr(c, ack), 0xee, 64);
		if (shape == 2) {
			for (unsigned int i = 0; i < 4; i++)
				bufs[count++] = (struct vring_buf){ gpa + i, 1, false };
		} else {
			bufs[count++] = (struct vring_buf){ gpa, 4, false };
		}
		bufs[count++] = (struct vring_buf){ ack, shape ? 64 : 1, true };
		vring_driver_post(c, bufs, count, false);
		m->dev.active_pairs = 1;
		virtio_net_poll_tx(&m->dev, 32);
		assert_int_equal(ctrl_answer(m, ack), VIRTIO_NET_OK);
		assert_int_equal(((uint8_t *)vring_driver_ptr(c, ack))[1], 0xee);
		assert_int_equal(m->dev.active_pairs, 3);
	}
}

/* Counts out of range, other commands and classes, chains of the wrong size: ERR, no change. */
static void test_mq_pairs_set_err(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;
	const uint8_t pairs2[2] = { 2, 0 };
	const uint8_t three[3] = { 2, 0, 0 };

	configure_both(w);
	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_OK);
	assert_int_equal(pairs_set(m, 0), VIRTIO_NET_ERR);
	assert_int_equal(pairs_set(m, PAIRS + 1), VIRTIO_NET_ERR);
	assert_int_equal(pairs_set(m, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX), VIRTIO_NET_ERR);
	assert_int_equal(pairs_set(m, 0xffff), VIRTIO_NET_ERR);
	assert_int_equal(pairs_set(m, 0x0102), VIRTIO_NET_ERR);	/* little-endian: 258 */
	/* RSS_CONFIG and HASH_CONFIG need features the device does not offer. */
	assert_int_equal(ctrl_command(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG,
				      pairs2, 2), VIRTIO_NET_ERR);
	assert_int_equal(ctrl_command(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_HASH_CONFIG,
				      pairs2, 2), VIRTIO_NET_ERR);
	for (uint8_t class = 0; class < 8; class++) {
		if (class != VIRTIO_NET_CTRL_MQ)
			assert_int_equal(ctrl_command(m, class, 0, pairs2, 2), VIRTIO_NET_ERR);
	}
	assert_int_equal(ctrl_command(m, 0xff, 0xff, pairs2, 2), VIRTIO_NET_ERR);
	/* No data, a byte short, a byte too many. */
	assert_int_equal(ctrl_command(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
				      NULL, 0), VIRTIO_NET_ERR);
	assert_int_equal(ctrl_command(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
				      pairs2, 1), VIRTIO_NET_ERR);
	assert_int_equal(ctrl_command(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
				      three, 3), VIRTIO_NET_ERR);
	assert_int_equal(m->dev.active_pairs, 2);
	assert_false(virtio_dev_needs_reset(&m->dev.vdev));
}

/* Chains with nothing or one byte readable: answered ERR too. */
static void test_mq_ctrl_short_chains(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;
	struct vring_driver *c;

	configure_both(w);
	c = &m->q[m->ctrl];
	for (uint32_t readable = 0; readable < 2; readable++) {
		struct vring_buf bufs[2];
		unsigned int count = 0;
		uint64_t ack;

		if (readable) {
			uint64_t gpa = vring_driver_alloc(c, 1);

			*(uint8_t *)vring_driver_ptr(c, gpa) = VIRTIO_NET_CTRL_MQ;
			bufs[count++] = (struct vring_buf){ gpa, 1, false };
		}
		ack = vring_driver_alloc(c, 1);
		bufs[count++] = (struct vring_buf){ ack, 1, true };
		vring_driver_post(c, bufs, count, false);
		virtio_net_poll_tx(&m->dev, 32);
		assert_int_equal(ctrl_answer(m, ack), VIRTIO_NET_ERR);
	}
	assert_int_equal(m->dev.active_pairs, 1);
	assert_false(virtio_dev_needs_reset(&m->dev.vdev));
}

/* CTRL_VQ without MQ: the control queue is at 2 and the MQ class is not the driver's. */
static void test_mq_pairs_set_without_mq(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;

	guest_configure(m, MQ & ~F(VIRTIO_NET_F_MQ));
	assert_int_equal(m->ctrl, 2);
	assert_int_equal(pairs_set(m, 1), VIRTIO_NET_ERR);
	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_ERR);
	assert_int_equal(m->dev.active_pairs, 1);
}

/*
 * A control chain with no byte for the answer breaks the queue: the device
 * needs a reset, the log says why, S goes on.
 */
static void test_mq_ctrl_without_ack_breaks(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m, *s = w->s;
	struct vring_driver *c;
	struct vring_buf buf;
	uint32_t len;
	char log[512];

	configure_both(w);
	c = &m->q[m->ctrl];
	buf = (struct vring_buf){ vring_driver_alloc(c, 4), 4, false };
	memcpy(vring_driver_ptr(c, buf.gpa),
	       (const uint8_t[]){ VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, 2, 0 }, 4);
	vring_driver_post(c, &buf, 1, false);
	stderr_capture_begin();
	assert_int_equal(virtio_net_poll_tx(&m->dev, 32), 0);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio M: queue 8: control buffer without a device-writable ack"));
	assert_true(virtio_dev_needs_reset(&m->dev.vdev));
	assert_false(net_port_is_up(&m->dev.port));
	assert_int_equal(m->interrupts[CONFIG_CHANGE], 1);
	assert_int_equal(vring_driver_used_idx(c), 0);
	assert_int_equal(m->dev.active_pairs, 1);

	/* S's frames to M are dropped; S's queue goes on. */
	len = flow_frame(w, s, m, SPORT, 1, false);
	send_on(w, s, 0, len);
	run_pass(w, 0);
	assert_int_equal(s->dev.port.stats.tx_packets, 1);
	assert_int_equal(m->dev.port.stats.rx_packets, 0);
	assert_int_equal(vring_driver_used_idx(&s->q[VIRTIO_NET_TX_QUEUE]), 1);

	/* The driver resets and starts again. */
	virtio_dev_reset(&m->dev.vdev);
	guest_configure(m, MQ);
	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_OK);
}

/* Hostile control rings: never a crash (ASan watches), a reset at worst. */
static void test_mq_ctrl_hostile(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;
	struct vring_driver *c;
	struct vring_buf bufs[VIRTQ_CHAIN_MAX_SEGMENTS];
	uint64_t big, ack;
	char log[512];

	configure_both(w);
	c = &m->q[m->ctrl];

	/* 63 readable descriptors of 1 KiB: too long, ERR. */
	big = vring_driver_alloc(c, 63 * 1024);
	memset(vring_driver_ptr(c, big), VIRTIO_NET_CTRL_MQ, 63 * 1024);
	for (unsigned int i = 0; i < 63; i++)
		bufs[i] = (struct vring_buf){ big + i * 1024, 1024, false };
	ack = vring_driver_alloc(c, 1);
	bufs[63] = (struct vring_buf){ ack, 1, true };
	vring_driver_post(c, bufs, 64, false);
	virtio_net_poll_tx(&m->dev, 32);
	assert_int_equal(ctrl_answer(m, ack), VIRTIO_NET_ERR);

	/* A flood: CTRL_BUDGET (4) answered per poll, all of them in the end, in order. */
	for (unsigned int i = 0; i < 40; i++) {
		const uint8_t data[2] = { (uint8_t)(1 + i % PAIRS), 0 };

		ctrl_post(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, data, 2);
	}
	virtio_net_poll_tx(&m->dev, 32);
	assert_int_equal(vring_driver_used_idx(c), 1 + 4);
	for (unsigned int i = 0; i < 9; i++)
		virtio_net_poll_tx(&m->dev, 32);
	assert_int_equal(vring_driver_used_idx(c), 1 + 40);
	assert_int_equal(m->dev.active_pairs, 1 + 39 % PAIRS);

	/* A descriptor outside guest memory: the ring is broken, the device needs a reset. */
	c->desc[5] = (struct vring_desc){ GUEST_MEM - 2, 4, 0, 0 };
	vring_driver_make_available(c, 5);
	stderr_capture_begin();
	virtio_net_poll_tx(&m->dev, 32);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio M: queue 8: buffer outside guest memory"));
	assert_true(virtio_dev_needs_reset(&m->dev.vdev));
	assert_int_equal(virtio_net_poll_tx(&m->dev, 32), 0);
}

/* With EVENT_IDX every queue, the control queue too, asks for no kick. */
static void test_mq_no_kicks(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;
	uint16_t old;

	configure_both(w);
	for (unsigned int i = 0; i <= 2 * PAIRS; i++) {
		old = m->q[i].avail_idx;
		if (i == m->ctrl)
			ctrl_post(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET,
				  (const uint8_t[]){ PAIRS, 0 }, 2);
		else if (i % 2)
			send_on(w, m, i / 2, flow_frame(w, m, w->s, SPORT, 0, false));
		else
			vring_driver_post_rx(&m->q[i], 2048);
		assert_false(vring_driver_must_notify(&m->q[i], old, true));
	}
	virtio_net_poll_tx(&m->dev, 32);
	assert_int_equal(m->dev.active_pairs, PAIRS);
}

/* --- traffic ------------------------------------------------------------------ */

/*
 * §5.1.6.5.5: until VQ_PAIRS_SET only receiveq1 and transmitq1 are used,
 * whatever the flow; then the other pairs carry traffic too.
 */
static void test_mq_pair0_before_command(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	uint32_t len;

	configure_both(w);
	for (uint16_t i = 0; i < FLOWS; i++) {
		len = flow_frame(w, s, m, (uint16_t)(SPORT + i), 0, i % 2);
		send_on(w, s, 0, len);
	}
	run_pass(w, 0);
	for (unsigned int i = 0; i < FLOWS; i++)
		assert_true(receive_on(w, m, 0) > 0);
	for (unsigned int q = 1; q < PAIRS; q++)
		assert_int_equal(receive_on(w, m, q), -1);

	len = flow_frame(w, m, s, SPORT, 0, false);
	send_on(w, m, 1, len);
	run_pass(w, 0);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(1)]), 0);
	assert_int_equal(receive_on(w, s, 0), -1);

	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_OK);
	run_pass(w, 0);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(1)]), 1);
	assert_int_equal(receive_on(w, s, 0), len);
}

/* One TCP flow stays on one queue, in order; other flows use both queues. */
static void test_mq_flow_steering(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	unsigned int per_queue[2] = { 0 }, first;
	struct tp_frame f;
	uint32_t len;

	configure_both(w);
	for (unsigned int b = 0; b < 16; b++) {
		vring_driver_post_rx(&m->q[VIRTIO_NET_RXQ(0)], 2048);
		vring_driver_post_rx(&m->q[VIRTIO_NET_RXQ(1)], 2048);
	}
	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_OK);
	for (uint32_t seq = 0; seq < 8; seq++) {
		len = flow_frame(w, s, m, SPORT, seq * 100, false);
		send_on(w, s, 0, len);
	}
	run_pass(w, 0);
	len = flow_frame(w, s, m, SPORT, 0, false);
	first = received_on(w, m);
	for (uint32_t seq = 1; seq < 8; seq++) {
		assert_int_equal(receive_on(w, m, first), len);
		assert_true(tp_parse(w->received, len, &f));
		assert_int_equal(f.seq, seq * 100);
	}
	assert_int_equal(receive_on(w, m, 1 - first), -1);

	for (uint16_t i = 0; i < FLOWS; i++) {
		len = flow_frame(w, s, m, (uint16_t)(SPORT + 1 + i), 0, i % 2);
		send_on(w, s, 0, len);
		run_pass(w, 0);
		per_queue[received_on(w, m)]++;
	}
	assert_true(per_queue[0] > 0 && per_queue[1] > 0);

	/* Not IP: the first queue. */
	send_on(w, s, 0, arp_frame(w, s, m));
	run_pass(w, 0);
	assert_int_equal(received_on(w, m), 0);
}

/* The guest has taken all there was on pair's receiveq and waits for more. */
static void rx_drained(struct guest *g, unsigned int pair)
{
	struct vring_driver *rx = &g->q[VIRTIO_NET_RXQ(pair)];

	vring_driver_set_used_event(rx, vring_driver_used_idx(rx));
}

/* M sends the flow on pair, S replies: where M receives the reply. */
static unsigned int reply_pair(struct world *w, unsigned int pair, uint32_t seq)
{
	send_on(w, w->m, pair, flow_frame(w, w->m, w->s, SPORT, seq, false));
	run_pass(w, 0);
	assert_true(receive_on(w, w->s, 0) > 0);
	send_on(w, w->s, 0, flow_frame(w, w->s, w->m, SPORT, seq, false));
	run_pass(w, 0);
	return received_on(w, w->m);
}

/*
 * A flow's frames come in on the pair it last left from, whatever its hash
 * says (where Linux sends from is the vCPU its socket runs on), but only
 * once the guest has taken all that went to its previous receiveq, so no
 * frame overtakes another. A flow never seen leaving goes by its hash; so
 * does every flow after VQ_PAIRS_SET; what is not IP goes to the first
 * queue.
 */
static void test_mq_rx_follows_tx(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	unsigned int by_hash, other, first, next;

	configure_both(w);
	for (unsigned int b = 0; b < 16; b++)
		vring_driver_post_rx(&s->q[VIRTIO_NET_RX_QUEUE], 2048);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	send_on(w, s, 0, flow_frame(w, s, m, SPORT + 1, 0, false));
	run_pass(w, 0);
	other = received_on(w, m);
	send_on(w, s, 0, flow_frame(w, s, m, SPORT, 0, false));
	run_pass(w, 0);
	by_hash = received_on(w, m);

	/* Sent from another pair, while the guest has not yet said it took the last. */
	first = (by_hash + 1) % PAIRS;
	assert_int_equal(reply_pair(w, first, 1), by_hash);
	rx_drained(m, by_hash);
	assert_int_equal(reply_pair(w, first, 2), first);
	assert_int_equal(reply_pair(w, first, 3), first);

	next = (first + 1) % PAIRS;
	assert_int_equal(reply_pair(w, next, 4), first);
	rx_drained(m, first);
	assert_int_equal(reply_pair(w, next, 5), next);

	/* The other flow was never sent by M: its hash, as before. */
	send_on(w, s, 0, flow_frame(w, s, m, SPORT + 1, 1, false));
	run_pass(w, 0);
	assert_int_equal(received_on(w, m), other);

	/* A new count: every flow goes by its hash again. */
	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_OK);
	send_on(w, s, 0, flow_frame(w, s, m, SPORT, 6, false));
	run_pass(w, 0);
	assert_int_equal(received_on(w, m), by_hash % 2);

	send_on(w, m, 1, arp_frame(w, m, s));
	run_pass(w, 0);
	assert_true(receive_on(w, s, 0) > 0);
	send_on(w, s, 0, arp_frame(w, s, m));
	run_pass(w, 0);
	assert_int_equal(received_on(w, m), 0);
}

/*
 * The active transmitqs share the budget in turns: a full queue does not
 * starve the others, and takes what they leave.
 */
static void test_mq_tx_polled_fairly(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	uint32_t len;

	configure_both(w);
	for (unsigned int b = 0; b < 40; b++)
		vring_driver_post_rx(&s->q[VIRTIO_NET_RX_QUEUE], 2048);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	len = flow_frame(w, m, s, SPORT, 0, false);
	for (unsigned int i = 0; i < 30; i++)
		send_on(w, m, 0, len);
	for (unsigned int q = 1; q < PAIRS; q++) {
		send_on(w, m, q, len);
		send_on(w, m, q, len);
	}
	assert_int_equal(virtio_net_poll_tx(&m->dev, 8), 8);
	for (unsigned int q = 0; q < PAIRS; q++)
		assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(q)]), 2);
	assert_int_equal(virtio_net_poll_tx(&m->dev, 32), 28);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(0)]), 30);
	assert_int_equal(virtio_net_poll_tx(&m->dev, 32), 0);
	assert_int_equal(s->dev.port.stats.rx_packets, 36);
}

/* Each pair counts what it carried; the port counts the sum. */
static void test_mq_counters_per_queue(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	uint64_t rx_packets = 0, rx_bytes = 0;
	uint32_t len;

	configure_both(w);
	for (unsigned int b = 0; b < 8; b++)
		vring_driver_post_rx(&s->q[VIRTIO_NET_RX_QUEUE], 2048);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	len = flow_frame(w, m, s, SPORT, 0, false);
	send_on(w, m, 2, len);
	send_on(w, m, 2, len);
	send_on(w, m, 3, len);
	for (uint16_t i = 0; i < FLOWS; i++) {
		send_on(w, s, 0, flow_frame(w, s, m, (uint16_t)(SPORT + i), 0, false));
		run_pass(w, 0);
	}
	assert_int_equal(m->dev.pair[0].stats.tx_packets, 0);
	assert_int_equal(m->dev.pair[1].stats.tx_packets, 0);
	assert_int_equal(m->dev.pair[2].stats.tx_packets, 2);
	assert_int_equal(m->dev.pair[2].stats.tx_bytes, 2 * len);
	assert_int_equal(m->dev.pair[3].stats.tx_packets, 1);
	assert_int_equal(m->dev.port.stats.tx_packets, 3);
	for (unsigned int q = 0; q < PAIRS; q++) {
		unsigned int got = 0;

		while (receive_on(w, m, q) >= 0)
			got++;
		assert_int_equal(m->dev.pair[q].stats.rx_packets, got);
		rx_packets += m->dev.pair[q].stats.rx_packets;
		rx_bytes += m->dev.pair[q].stats.rx_bytes;
	}
	assert_int_equal(rx_packets, FLOWS);
	assert_int_equal(m->dev.port.stats.rx_packets, FLOWS);
	assert_int_equal(rx_bytes, m->dev.port.stats.rx_bytes);
}

/* Each queue's interrupt is raised with that queue's index. */
static void test_mq_interrupt_per_queue(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	unsigned int q;

	configure_both(w);
	for (unsigned int b = 0; b < 8; b++)
		vring_driver_post_rx(&s->q[VIRTIO_NET_RX_QUEUE], 2048);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	assert_int_equal(m->interrupts[m->ctrl], 1);	/* the ack, as asked (no used_event) */
	send_on(w, m, 3, flow_frame(w, m, s, SPORT, 0, false));
	run_pass(w, 0);
	assert_int_equal(m->interrupts[VIRTIO_NET_TXQ(3)], 1);
	assert_int_equal(m->interrupts[VIRTIO_NET_TXQ(0)], 0);
	send_on(w, s, 0, flow_frame(w, s, m, SPORT, 0, false));
	run_pass(w, 0);
	q = received_on(w, m);
	assert_int_equal(m->interrupts[VIRTIO_NET_RXQ(q)], 1);
	for (unsigned int i = 0; i < PAIRS; i++)
		assert_int_equal(m->interrupts[VIRTIO_NET_RXQ(i)], i == q);
}

/*
 * Held completions wait per pair: a receive on pair q publishes pair q's,
 * not the others', and each pair's deadline raises its own interrupt.
 */
static void test_mq_holdoff_per_pair(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	unsigned int q, other;
	uint32_t len;

	configure_both(w);
	for (unsigned int b = 0; b < 8; b++)
		vring_driver_post_rx(&s->q[VIRTIO_NET_RX_QUEUE], 2048);
	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_OK);
	m->dev.tx_holdoff = HOLDOFF;
	/* Which queue S's flow lands on. */
	send_on(w, s, 0, flow_frame(w, s, m, SPORT, 0, false));
	run_pass(w, 0);
	q = received_on(w, m);
	other = 1 - q;

	/* Another flow, so that S's still lands on q. */
	len = flow_frame(w, m, s, SPORT + 1, 0, false);
	send_on(w, m, 0, len);
	send_on(w, m, 1, len);
	run_pass(w, 1000);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(0)]), 0);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(1)]), 0);

	send_on(w, s, 0, flow_frame(w, s, m, SPORT, 1, false));
	run_pass(w, 1010);
	assert_int_equal(received_on(w, m), q);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(q)]), 1);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(other)]), 0);
	assert_int_equal(m->interrupts[VIRTIO_NET_TXQ(q)], 0);

	run_pass(w, 1000 + HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(other)]), 1);
	assert_int_equal(m->interrupts[VIRTIO_NET_TXQ(other)], 1);
}

/*
 * Fewer pairs later: the pairs switched off are no longer polled, and what
 * they held is still handed back.
 */
static void test_mq_fewer_pairs_later(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	uint32_t len;

	configure_both(w);
	for (unsigned int b = 0; b < 8; b++)
		vring_driver_post_rx(&s->q[VIRTIO_NET_RX_QUEUE], 2048);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	m->dev.tx_holdoff = HOLDOFF;
	len = flow_frame(w, m, s, SPORT, 0, false);
	send_on(w, m, 3, len);
	run_pass(w, 0);
	assert_int_equal(pairs_set(m, 2), VIRTIO_NET_OK);
	send_on(w, m, 3, len);
	run_pass(w, HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(3)]), 1);
	assert_int_equal(m->dev.pair[3].stats.tx_packets, 1);
	assert_int_equal(s->dev.port.stats.rx_packets, 1);
}

/* A reset: one pair again, until the next VQ_PAIRS_SET; the counters stay. */
static void test_mq_reset_returns_to_one_pair(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;

	configure_both(w);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	m->dev.tx_holdoff = HOLDOFF;
	send_on(w, m, 2, flow_frame(w, m, s, SPORT, 0, false));
	run_pass(w, 0);
	assert_int_equal(m->dev.pair[2].tx_hold.held, 1);
	virtio_dev_reset(&m->dev.vdev);
	assert_int_equal(m->dev.active_pairs, 1);
	assert_int_equal(m->dev.pair[2].tx_hold.held, 0);
	assert_int_equal(m->dev.pair[2].stats.tx_packets, 1);
	assert_false(m->dev.ctrl.ready);

	guest_configure(m, MQ);
	for (uint16_t i = 0; i < FLOWS; i++)
		send_on(w, s, 0, flow_frame(w, s, m, (uint16_t)(SPORT + i), 0, false));
	run_pass(w, 2 * HOLDOFF);
	assert_int_equal(m->dev.pair[0].stats.rx_packets, FLOWS);
	assert_int_equal(vring_driver_used_idx(&m->q[VIRTIO_NET_TXQ(2)]), 0);
}

/* A broken transmitq of a later pair breaks the device, and names its queue. */
static void test_mq_broken_queue_needs_reset(void **state)
{
	struct world *w = *state;
	struct guest *m = w->m;
	struct vring_driver *tx;
	char log[512];

	configure_both(w);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	tx = &m->q[VIRTIO_NET_TXQ(2)];
	tx->desc[7] = (struct vring_desc){ GUEST_MEM - 8, 64, 0, 0 };
	vring_driver_make_available(tx, 7);
	stderr_capture_begin();
	run_pass(w, 0);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio M: queue 5: buffer outside guest memory"));
	assert_true(virtio_dev_needs_reset(&m->dev.vdev));
	assert_int_equal(m->interrupts[CONFIG_CHANGE], 1);
	/* Nothing is served until the driver resets, the control queue neither. */
	ctrl_post(m, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, (const uint8_t[]){ 1, 0 },
		  2);
	assert_int_equal(virtio_net_poll_tx(&m->dev, 32), 0);
	assert_int_equal(vring_driver_used_idx(&m->q[m->ctrl]), 1);
	assert_int_equal(m->dev.active_pairs, PAIRS);
}

/* The offload rules hold on every queue: a receiver without GUEST_CSUM gets no partial checksum. */
static void test_mq_offloads_per_queue(void **state)
{
	struct world *w = *state;
	struct guest *s = w->s, *m = w->m;
	struct virtio_net_hdr_v1 partial = { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM };
	uint64_t no_guest_offloads = MQ & ~(F(VIRTIO_NET_F_GUEST_CSUM) |
					     F(VIRTIO_NET_F_GUEST_TSO4) |
					     F(VIRTIO_NET_F_GUEST_TSO6));
	struct tp_frame f;
	uint32_t len;

	guest_configure(s, ONE_PAIR);
	guest_configure(m, no_guest_offloads);
	assert_int_equal(pairs_set(m, PAIRS), VIRTIO_NET_OK);
	for (uint16_t i = 0; i < FLOWS; i++) {
		struct tp_spec spec = { .payload = 100 };

		len = flow_frame(w, s, m, (uint16_t)(SPORT + i), 0, false);
		tp_layout(&spec, &f);
		partial.csum_start = (uint16_t)f.l4;
		partial.csum_offset = 16;
		send_hdr(w, s, 0, len, &partial);
	}
	run_pass(w, 0);
	assert_int_equal(m->dev.stats.rx_offloads, FLOWS);
	assert_int_equal(m->dev.port.stats.rx_drops, FLOWS);
	for (unsigned int q = 0; q < PAIRS; q++) {
		assert_int_equal(receive_on(w, m, q), -1);
		assert_int_equal(m->dev.pair[q].stats.rx_packets, 0);
	}
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)
	const struct CMUnitTest device[] = {
		T(test_mq_offer_follows_pairs),
		T(test_mq_feature_dependencies),
		T(test_mq_queue_layout),
	};
	const struct CMUnitTest control[] = {
		T(test_mq_pairs_set_ok),
		T(test_mq_pairs_set_shapes),
		T(test_mq_pairs_set_err),
		T(test_mq_ctrl_short_chains),
		T(test_mq_pairs_set_without_mq),
		T(test_mq_ctrl_without_ack_breaks),
		T(test_mq_ctrl_hostile),
		T(test_mq_no_kicks),
	};
	const struct CMUnitTest traffic[] = {
		T(test_mq_pair0_before_command),
		T(test_mq_flow_steering),
		T(test_mq_rx_follows_tx),
		T(test_mq_tx_polled_fairly),
		T(test_mq_counters_per_queue),
		T(test_mq_interrupt_per_queue),
		T(test_mq_holdoff_per_pair),
		T(test_mq_fewer_pairs_later),
		T(test_mq_reset_returns_to_one_pair),
		T(test_mq_broken_queue_needs_reset),
		T(test_mq_offloads_per_queue),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("virtio-net multiqueue device", device, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-net control queue", control, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-net multiqueue traffic", traffic, NULL, NULL);
	return failed ? 1 : 0;
}
