/* SPDX-License-Identifier: MIT */
/*
 * test_virtio_net.c - unit tests for hv/virtio/virtio_net.c with the switch:
 * guests with their own RAM and rings, a test driver playing each guest's
 * virtio-net driver. Feature negotiation (virtio 1.1 §5.1.3), config space
 * (§5.1.4), transmit (§5.1.6.2), receive with and without MRG_RXBUF
 * (§5.1.6.3, §5.1.6.4), 64 KiB TSO segments passed through untouched,
 * flooding of group addresses, unknown unicast reaching no guest, drops,
 * the hint the device keeps for its sidecore's pass, and a guest breaking
 * its rings without disturbing others.
 *
 * Guests A, B and C share sidecore 0; D is on sidecore 1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/virtio_config.h>

#include "net/spsc_ring.h"
#include "tests/unit/support/stderr_capture.h"
#include "tests/unit/support/virtio_model.h"
#include "tests/unit/support/vring_driver.h"
#include "virtio/virtio_net.h"

#define GUEST_MEM	0x100000ull	/* 1 MiB each: rx half, tx half */
#define QSIZE		64
#define HDR		sizeof(struct virtio_net_hdr_v1)
#define F(bit)		(1ull << (bit))
#define BASIC		(F(VIRTIO_F_VERSION_1) | F(VIRTIO_NET_F_MAC) | F(VIRTIO_NET_F_STATUS))
#define MERGEABLE	(BASIC | F(VIRTIO_NET_F_MRG_RXBUF))
#define ALL		VIRTIO_NET_DEVICE_FEATURES
#define GUESTS		4
#define A		0
#define B		1
#define C		2
#define D		3

/* A configuration change is counted after every queue's interrupts. */
#define CONFIG_CHANGE	VIRTIO_NET_MAX_QUEUES

struct guest {
	struct guest_mem mem;
	struct vring_driver rx, tx;
	struct virtio_net dev;
	unsigned int interrupts[CONFIG_CHANGE + 1];
	uint8_t mac[ETH_ALEN];
};

struct world {
	struct net_switch sw;
	struct spsc_ring *ring01, *ring10;
	struct guest *g[GUESTS];
	uint8_t *frame;		/* last frame sent */
	uint8_t *received;	/* last frame received */
};

static const uint8_t broadcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static void mac_of(uint8_t mac[ETH_ALEN], unsigned int n)
{
	const uint8_t base[ETH_ALEN] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0x00 };

	memcpy(mac, base, ETH_ALEN);
	mac[5] = (uint8_t)n;
}

static void record_interrupt(struct virtio_dev *dev, unsigned int source)
{
	struct guest *g = dev->ctx;

	if (source == VIRTIO_DEV_CONFIG_CHANGE)
		source = CONFIG_CHANGE;
	assert_true(source <= CONFIG_CHANGE);
	g->interrupts[source]++;
}

/* The driver's features, and its rings laid out in its RAM. */
static void guest_lay_out(struct guest *g, uint64_t features, struct virtq_layout *rx,
			  struct virtq_layout *tx)
{
	assert_true(virtio_dev_set_features(&g->dev.vdev, features));
	vring_driver_init(&g->rx, &g->mem, QSIZE, 0, GUEST_MEM / 2);
	vring_driver_init(&g->tx, &g->mem, QSIZE, GUEST_MEM / 2, GUEST_MEM);
	*rx = vring_driver_layout(&g->rx);
	*tx = vring_driver_layout(&g->tx);
}

/* The driver's bring-up (virtio 1.1 §3.1.1): features, queues, DRIVER_OK. */
static void guest_configure(struct guest *g, uint64_t features)
{
	struct virtq_layout rx, tx;

	guest_lay_out(g, features, &rx, &tx);
	assert_int_equal(virtio_dev_enable_queue(&g->dev.vdev, VIRTIO_NET_RX_QUEUE, &rx), 0);
	assert_int_equal(virtio_dev_enable_queue(&g->dev.vdev, VIRTIO_NET_TX_QUEUE, &tx), 0);
	virtio_dev_start(&g->dev.vdev);
}

static struct guest *guest_new(struct world *w, unsigned int n, unsigned int sidecore)
{
	static const char *const names[GUESTS] = { "A", "B", "C", "D" };
	struct guest *g = calloc(1, sizeof(*g));
	struct virtio_net_params params = {
		.sidecore = sidecore,
		.sw = &w->sw,
	};

	assert_non_null(g);
	g->mem.size = GUEST_MEM;
	g->mem.base = malloc(GUEST_MEM);	/* exactly: ASan sees any stray access */
	assert_non_null(g->mem.base);
	memset(g->mem.base, 0, GUEST_MEM);
	mac_of(g->mac, n);
	memcpy(params.mac, g->mac, ETH_ALEN);
	assert_true(virtio_model_init(&virtio_net_ops, &g->dev.vdev,
				      names[n], &g->mem, record_interrupt, g, &params));
	assert_true(net_switch_add_port(&w->sw, &g->dev.port));
	return g;
}

static int world_setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	if (!w)
		return -1;
	w->ring01 = aligned_alloc(NET_CACHE_LINE, sizeof(struct spsc_ring));
	w->ring10 = aligned_alloc(NET_CACHE_LINE, sizeof(struct spsc_ring));
	w->frame = malloc(NET_FRAME_MAX);
	w->received = malloc(NET_FRAME_MAX);
	if (!w->ring01 || !w->ring10 || !w->frame || !w->received)
		return -1;
	spsc_ring_init(w->ring01);
	spsc_ring_init(w->ring10);
	net_switch_init(&w->sw);
	net_switch_add_ring(&w->sw, 0, 1, w->ring01);
	net_switch_add_ring(&w->sw, 1, 0, w->ring10);
	for (unsigned int i = 0; i < GUESTS; i++)
		w->g[i] = guest_new(w, i, i == D);
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
	free(w->ring01);
	free(w->ring10);
	free(w->frame);
	free(w->received);
	free(w);
	return 0;
}

/* Brings up every guest with the same features. */
static void configure_all(struct world *w, uint64_t features)
{
	for (unsigned int i = 0; i < GUESTS; i++)
		guest_configure(w->g[i], features);
}

static void post_rx_buffers(struct guest *g, unsigned int count, uint32_t size)
{
	for (unsigned int i = 0; i < count; i++)
		vring_driver_post_rx(&g->rx, size);
}

/* How a transmitted buffer is cut into descriptors. */
struct tx_shape {
	uint32_t first;		/* bytes in the first descriptor; 0: same as piece */
	uint32_t piece;		/* bytes in each further descriptor; 0: all in one */
	bool indirect;
};

static const struct tx_shape one_piece = { 0, 0, false };

/*
 * Sends a frame of len bytes from g to dst: header, Ethernet header, then a
 * pattern. The frame is kept in w->frame for comparison.
 */
static void guest_send_shaped(struct world *w, struct guest *g, const uint8_t dst[ETH_ALEN],
			      uint32_t len, const struct virtio_net_hdr_v1 *hdr,
			      const struct tx_shape *shape)
{
	struct vring_buf bufs[VIRTQ_CHAIN_MAX_SEGMENTS];
	uint32_t total = HDR + len, off = 0;
	uint64_t gpa = vring_driver_alloc(&g->tx, total);
	uint8_t *p = vring_driver_ptr(&g->tx, gpa);
	unsigned int count = 0;

	for (uint32_t i = 0; i < len; i++)
		w->frame[i] = (uint8_t)(i * 13 + len);
	if (len >= 2 * ETH_ALEN) {
		memcpy(w->frame, dst, ETH_ALEN);
		memcpy(w->frame + ETH_ALEN, g->mac, ETH_ALEN);
	}
	memcpy(p, hdr, HDR);
	memcpy(p + HDR, w->frame, len);
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

static void guest_send(struct world *w, struct guest *g, const uint8_t dst[ETH_ALEN],
		       uint32_t len)
{
	const struct virtio_net_hdr_v1 plain = { 0 };

	guest_send_shaped(w, g, dst, len, &plain, &one_piece);
}

/*
 * Takes the next received packet off g's used ring: the header, and the
 * frame gathered from num_buffers buffers into w->received.
 * Returns the frame length, or -1 when nothing was received.
 */
static int guest_receive(struct world *w, struct guest *g, struct virtio_net_hdr_v1 *hdr)
{
	uint32_t id, len, got = 0;

	if (!vring_driver_take_used(&g->rx, &id, &len))
		return -1;
	assert_true(len >= HDR);
	memcpy(hdr, vring_driver_ptr(&g->rx, g->rx.desc[id].addr), HDR);
	for (unsigned int i = 0; i < hdr->num_buffers; i++) {
		const uint8_t *data;

		if (i > 0)
			assert_true(vring_driver_take_used(&g->rx, &id, &len));
		data = vring_driver_ptr(&g->rx, g->rx.desc[id].addr);
		if (i == 0) {
			data += HDR;
			len -= HDR;
		}
		assert_true(got + len <= NET_FRAME_MAX);
		memcpy(w->received + got, data, len);
		got += len;
	}
	return (int)got;
}

/* One poll pass on sidecore 0 (or 1): transmit, rings, publish. */
static void run_sidecore(struct world *w, unsigned int sidecore)
{
	for (unsigned int i = 0; i < GUESTS; i++) {
		if (w->g[i]->dev.port.sidecore == sidecore)
			virtio_net_poll_tx(&w->g[i]->dev, 32);
	}
	net_switch_poll_rings(&w->sw, sidecore, 32);
	for (unsigned int i = 0; i < GUESTS; i++) {
		if (w->g[i]->dev.port.sidecore == sidecore)
			virtio_net_flush(&w->g[i]->dev, 0);
	}
}

static void assert_nothing_received(struct world *w, struct guest *g)
{
	struct virtio_net_hdr_v1 hdr;

	assert_int_equal(guest_receive(w, g, &hdr), -1);
}

/* --- device identity -------------------------------------------------------- */

/* One queue pair (guests here have one vCPU): no control queue, no MQ. */
static void test_features_offered(void **state)
{
	struct world *w = *state;

	assert_int_equal(w->g[A]->dev.vdev.num_queues, 2);
	assert_int_equal(w->g[A]->dev.vdev.offered,
			 F(VIRTIO_F_VERSION_1) | F(VIRTIO_NET_F_MAC) | F(VIRTIO_NET_F_STATUS) |
			 F(VIRTIO_NET_F_MRG_RXBUF) | F(VIRTIO_NET_F_CSUM) |
			 F(VIRTIO_NET_F_GUEST_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |
			 F(VIRTIO_NET_F_HOST_TSO6) | F(VIRTIO_NET_F_GUEST_TSO4) |
			 F(VIRTIO_NET_F_GUEST_TSO6) | F(VIRTIO_RING_F_EVENT_IDX));
}

static void test_init_checks_params(void **state)
{
	struct world *w = *state;
	struct virtio_net_params params = {
		.mac = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },
		.sw = &w->sw,
	};
	const struct guest_mem *mem = &w->g[A]->mem;
	struct virtio_dev_params common = { .name = "E", .mem = mem, .type = &params };
	struct virtio_net dev;

	assert_false(virtio_model_init(&virtio_net_ops, &dev.vdev,
				       "E", mem, record_interrupt, NULL, &params));	/* a group address */
	params.mac[0] = 0x02;
	assert_non_null(virtio_net_ops.init(&dev.vdev, &common));	/* no interrupt */
	params.sw = NULL;
	assert_false(virtio_model_init(&virtio_net_ops, &dev.vdev,
				       "E", mem, record_interrupt, NULL, &params));
	params.sw = &w->sw;
	assert_false(virtio_model_init(&virtio_net_ops, &dev.vdev,
				       "E", mem, record_interrupt, NULL, NULL));
	assert_true(virtio_model_init(&virtio_net_ops, &dev.vdev,
				      "E", mem, record_interrupt, NULL, &params));
	assert_false(net_port_is_up(&dev.port));
	assert_ptr_equal(dev.port.ctx, &dev);
	assert_memory_equal(dev.port.mac, params.mac, ETH_ALEN);
}

static void test_features_negotiation(void **state)
{
	struct world *w = *state;
	struct virtio_net *dev = &w->g[A]->dev;

	assert_false(virtio_dev_set_features(&dev->vdev, ALL & ~F(VIRTIO_F_VERSION_1)));
	assert_false(virtio_dev_set_features(&dev->vdev, BASIC | F(VIRTIO_NET_F_CTRL_VQ)));
	assert_false(virtio_dev_set_features(&dev->vdev, BASIC | F(VIRTIO_NET_F_HOST_TSO4)));
	assert_false(virtio_dev_set_features(&dev->vdev, BASIC | F(VIRTIO_NET_F_HOST_TSO6)));
	assert_false(virtio_dev_set_features(&dev->vdev, BASIC | F(VIRTIO_NET_F_GUEST_TSO4)));
	assert_false(virtio_dev_set_features(&dev->vdev, BASIC | F(VIRTIO_NET_F_GUEST_TSO6)));
	assert_int_equal(dev->vdev.features, 0);
	assert_true(virtio_dev_set_features(&dev->vdev, F(VIRTIO_F_VERSION_1)));
	assert_true(virtio_dev_set_features(&dev->vdev, BASIC | F(VIRTIO_NET_F_CSUM) |
					    F(VIRTIO_NET_F_HOST_TSO6)));
	assert_true(virtio_dev_set_features(&dev->vdev, ALL));
	assert_int_equal(dev->vdev.features, ALL);
}

static void test_config_space(void **state)
{
	struct world *w = *state;
	const struct virtio_net *dev = &w->g[C]->dev;

	for (unsigned int i = 0; i < ETH_ALEN; i++)
		assert_int_equal(virtio_dev_read_config(&dev->vdev, i, 1), w->g[C]->mac[i]);
	assert_int_equal(virtio_dev_read_config(&dev->vdev, 0, 4), 0xab005452);
	assert_int_equal(virtio_dev_read_config(&dev->vdev, 4, 2), 0x02cd);
	assert_int_equal(virtio_dev_read_config(&dev->vdev, offsetof(struct virtio_net_config, status), 2),
			 VIRTIO_NET_S_LINK_UP);
	assert_int_equal(virtio_dev_read_config(&dev->vdev, offsetof(struct virtio_net_config,
							       max_virtqueue_pairs), 2), 1);
	assert_int_equal(virtio_dev_read_config(&dev->vdev, sizeof(struct virtio_net_config) - 1, 4), 0);
	assert_int_equal(virtio_dev_read_config(&dev->vdev, 0x100, 4), 0);
	assert_int_equal(virtio_dev_read_config(&dev->vdev, UINT32_MAX - 1, 4), 0);
}

/* --- forwarding between guests ---------------------------------------------- */

/* A to B: one frame over three 512-byte MRG_RXBUF buffers (§5.1.6.4). */
static void test_unicast_mergeable(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;
	uint32_t id, len;

	configure_all(w, MERGEABLE);
	post_rx_buffers(b, 8, 512);
	post_rx_buffers(w->g[C], 8, 512);
	guest_send(w, a, b->mac, 1400);

	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);
	assert_int_equal(vring_driver_used_idx(&b->rx), 0);	/* not published yet */
	assert_int_equal(b->interrupts[VIRTIO_NET_RX_QUEUE], 0);
	virtio_net_flush(&b->dev, 0);
	assert_int_equal(b->interrupts[VIRTIO_NET_RX_QUEUE], 1);

	assert_int_equal(vring_driver_used_idx(&b->rx), 3);
	assert_int_equal(b->rx.used->ring[0].len, 512);
	assert_int_equal(b->rx.used->ring[1].len, 512);
	assert_int_equal(b->rx.used->ring[2].len, HDR + 1400 - 1024);
	assert_int_equal(guest_receive(w, b, &hdr), 1400);
	assert_int_equal(hdr.num_buffers, 3);
	assert_int_equal(hdr.flags, 0);
	assert_int_equal(hdr.gso_type, VIRTIO_NET_HDR_GSO_NONE);
	assert_memory_equal(w->received, w->frame, 1400);
	assert_nothing_received(w, w->g[C]);

	/* A's buffer is back, nothing written into it, and A was interrupted. */
	assert_true(vring_driver_take_used(&a->tx, &id, &len));
	assert_int_equal(len, 0);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 1);
	assert_int_equal(a->dev.port.stats.tx_packets, 1);
	assert_int_equal(a->dev.port.stats.tx_bytes, 1400);
	assert_int_equal(b->dev.port.stats.rx_packets, 1);
	assert_int_equal(b->dev.port.stats.rx_bytes, 1400);
}

/* A frame that fits the first buffer is copied whole into it, header first. */
static void test_unicast_one_buffer(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;

	configure_all(w, MERGEABLE);
	post_rx_buffers(b, 8, 2048);
	guest_send(w, a, b->mac, 1400);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);
	virtio_net_flush(&b->dev, 0);
	assert_int_equal(vring_driver_used_idx(&b->rx), 1);
	assert_int_equal(b->rx.used->ring[0].len, HDR + 1400);
	assert_int_equal(guest_receive(w, b, &hdr), 1400);
	assert_int_equal(hdr.num_buffers, 1);
	assert_memory_equal(w->received, w->frame, 1400);
	assert_int_equal(b->dev.port.stats.rx_bytes, 1400);
}

/* The header may share a descriptor, have one alone, or straddle two (§2.6.4). */
static void test_tx_descriptor_layouts(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	const struct tx_shape shapes[] = {
		{ HDR, 0, false },	/* header alone, frame in one */
		{ HDR, 100, false },	/* header alone, frame in pieces */
		{ 5, 64, false },	/* header cut in two */
		{ 0, 7, false },	/* everything in 7-byte pieces */
		{ HDR + 1, 300, false },	/* first data byte with the header */
	};
	const struct virtio_net_hdr_v1 plain = { 0 };
	struct virtio_net_hdr_v1 hdr;

	configure_all(w, ALL);
	post_rx_buffers(b, 16, 2048);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		uint32_t len = i == 3 ? 300 : 1000;

		guest_send_shaped(w, a, b->mac, len, &plain, &shapes[i]);
		assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);
		virtio_net_flush(&b->dev, 0);
		assert_int_equal(guest_receive(w, b, &hdr), len);
		assert_memory_equal(w->received, w->frame, len);
	}
}

/* A 64 KiB TSO segment reaches B as it left A: header and bytes. */
static void test_gso_64k_untouched(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	const struct virtio_net_hdr_v1 tso = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = 66,
		.gso_size = 1448,
		.csum_start = 34,
		.csum_offset = 16,
		.num_buffers = 0,
	};
	const struct tx_shape pages = { HDR, 4096, false };
	struct virtio_net_hdr_v1 hdr;

	configure_all(w, ALL);
	post_rx_buffers(b, 20, 4096);
	guest_send_shaped(w, a, b->mac, NET_FRAME_MAX, &tso, &pages);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);
	virtio_net_flush(&b->dev, 0);

	assert_int_equal(guest_receive(w, b, &hdr), NET_FRAME_MAX);
	assert_int_equal(hdr.num_buffers, (HDR + NET_FRAME_MAX + 4095) / 4096);
	assert_int_equal(hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(hdr.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(hdr.hdr_len, 66);
	assert_int_equal(hdr.gso_size, 1448);
	assert_int_equal(hdr.csum_start, 34);
	assert_int_equal(hdr.csum_offset, 16);
	assert_memory_equal(w->received, w->frame, NET_FRAME_MAX);
	assert_int_equal(b->dev.port.stats.rx_bytes, NET_FRAME_MAX);
}

/* Offloads the receiver did not accept are dropped for it, and counted. */
static void test_offloads_not_accepted(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *c = w->g[C];
	const struct virtio_net_hdr_v1 tso = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV6,
		.gso_size = 1440,
		.csum_start = 54,
		.csum_offset = 16,
	};
	const struct virtio_net_hdr_v1 partial = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.csum_start = 34,
		.csum_offset = 6,
	};
	struct virtio_net_hdr_v1 hdr;

	guest_configure(a, ALL);
	guest_configure(c, MERGEABLE | F(VIRTIO_NET_F_GUEST_CSUM) | F(VIRTIO_NET_F_GUEST_TSO4));
	post_rx_buffers(c, 40, 4096);

	guest_send_shaped(w, a, c->mac, 20000, &tso, &one_piece);
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&c->dev, 0);
	assert_nothing_received(w, c);
	assert_int_equal(c->dev.stats.rx_offloads, 1);
	assert_int_equal(c->dev.port.stats.rx_drops, 1);

	/* A partial checksum is fine for C, which has GUEST_CSUM... */
	guest_send_shaped(w, a, c->mac, 400, &partial, &one_piece);
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&c->dev, 0);
	assert_int_equal(guest_receive(w, c, &hdr), 400);
	assert_int_equal(hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);

	/* ...but not for C without it, which still gets complete packets. */
	virtio_dev_reset(&c->dev.vdev);
	guest_configure(c, MERGEABLE);
	post_rx_buffers(c, 4, 4096);
	guest_send_shaped(w, a, c->mac, 400, &partial, &one_piece);
	guest_send(w, a, c->mac, 400);
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&c->dev, 0);
	assert_int_equal(guest_receive(w, c, &hdr), 400);
	assert_int_equal(hdr.flags, 0);
	assert_nothing_received(w, c);
	assert_int_equal(c->dev.stats.rx_offloads, 2);	/* counters outlive a reset */
}

/* Without MRG_RXBUF a packet takes exactly one buffer (§5.1.6.3.2). */
static void test_rx_without_mergeable(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;

	guest_configure(a, BASIC);
	guest_configure(b, BASIC);
	post_rx_buffers(b, 1, 2048);
	post_rx_buffers(b, 1, 100);
	guest_send(w, a, b->mac, 1000);
	guest_send(w, a, b->mac, 1000);		/* the 100-byte buffer is too small */
	guest_send(w, a, b->mac, 60);		/* but fits this one */
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 3);
	virtio_net_flush(&b->dev, 0);

	assert_int_equal(guest_receive(w, b, &hdr), 1000);
	assert_int_equal(hdr.num_buffers, 1);
	assert_int_equal(guest_receive(w, b, &hdr), 60);
	assert_int_equal(hdr.num_buffers, 1);
	assert_memory_equal(w->received, w->frame, 60);
	assert_int_equal(b->dev.stats.rx_too_big, 1);
	assert_int_equal(b->dev.port.stats.rx_drops, 1);
	assert_int_equal(b->dev.port.stats.rx_packets, 2);
}

static void test_broadcast(void **state)
{
	struct world *w = *state;
	struct virtio_net_hdr_v1 hdr;

	configure_all(w, MERGEABLE);
	for (unsigned int i = 0; i < GUESTS; i++)
		post_rx_buffers(w->g[i], 4, 1024);
	guest_send(w, w->g[A], broadcast, 342);
	run_sidecore(w, 0);
	run_sidecore(w, 1);

	assert_nothing_received(w, w->g[A]);
	for (unsigned int i = B; i <= D; i++) {
		assert_int_equal(guest_receive(w, w->g[i], &hdr), 342);
		assert_memory_equal(w->received, w->frame, 342);
	}
	assert_int_equal(w->ring01->sent, 1);
}

/* Unicast to a MAC no guest has is the wire's: with none, it reaches no one. */
static void test_unknown_unicast_reaches_no_guest(void **state)
{
	struct world *w = *state;
	uint8_t stranger[ETH_ALEN];

	mac_of(stranger, 0x77);
	configure_all(w, MERGEABLE);
	for (unsigned int i = 0; i < GUESTS; i++)
		post_rx_buffers(w->g[i], 4, 1024);
	guest_send(w, w->g[B], stranger, 90);
	run_sidecore(w, 0);
	run_sidecore(w, 1);

	for (unsigned int i = 0; i < GUESTS; i++)
		assert_nothing_received(w, w->g[i]);
	assert_int_equal(w->g[B]->dev.port.stats.tx_unknown, 1);
	assert_int_equal(w->ring01->sent, 0);
}

/* A to D crosses to sidecore 1 and arrives on its poll pass only. */
static void test_cross_sidecore(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *d = w->g[D];
	struct virtio_net_hdr_v1 hdr;
	uint32_t id, len;

	configure_all(w, ALL);
	post_rx_buffers(d, 4, 4096);
	guest_send(w, a, d->mac, 1514);
	run_sidecore(w, 0);
	assert_true(vring_driver_take_used(&a->tx, &id, &len));	/* A's buffer is free */
	assert_nothing_received(w, d);

	run_sidecore(w, 1);
	assert_int_equal(guest_receive(w, d, &hdr), 1514);
	assert_memory_equal(w->received, w->frame, 1514);
	assert_int_equal(d->interrupts[VIRTIO_NET_RX_QUEUE], 1);
}

/* --- drops ----------------------------------------------------------------- */

static void test_no_rx_buffers(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;
	uint32_t id, len;

	configure_all(w, MERGEABLE);
	guest_send(w, a, b->mac, 500);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);	/* never waits */
	virtio_net_flush(&b->dev, 0);
	assert_true(vring_driver_take_used(&a->tx, &id, &len));
	assert_int_equal(b->dev.stats.rx_no_buffers, 1);
	assert_int_equal(b->dev.port.stats.rx_drops, 1);
	assert_int_equal(b->interrupts[VIRTIO_NET_RX_QUEUE], 0);

	post_rx_buffers(b, 2, 1024);
	guest_send(w, a, b->mac, 500);
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&b->dev, 0);
	assert_int_equal(guest_receive(w, b, &hdr), 500);
}

/* Buffers taken for a packet that did not fit are handed back untouched. */
static void test_partial_buffers_returned(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;

	configure_all(w, MERGEABLE);
	post_rx_buffers(b, 2, 512);
	guest_send(w, a, b->mac, 1400);		/* needs three */
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&b->dev, 0);
	assert_int_equal(vring_driver_used_idx(&b->rx), 0);
	assert_int_equal(b->dev.stats.rx_no_buffers, 1);

	guest_send(w, a, b->mac, 900);		/* two will do */
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&b->dev, 0);
	assert_int_equal(guest_receive(w, b, &hdr), 900);
	assert_int_equal(hdr.num_buffers, 2);
	assert_memory_equal(w->received, w->frame, 900);
}

/* Bad headers and frame sizes are dropped; the buffers still come back. */
static void test_bad_tx_packets(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	const struct virtio_net_hdr_v1 partial = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 16,
	};
	const struct virtio_net_hdr_v1 tso4 = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.gso_size = 1448, .csum_start = 34, .csum_offset = 16,
	};
	const struct virtio_net_hdr_v1 past_end = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 90, .csum_offset = 9,
	};
	const struct virtio_net_hdr_v1 no_csum = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
						   .gso_size = 1448 };
	const struct virtio_net_hdr_v1 no_mss = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_TCPV6,
		.csum_start = 54, .csum_offset = 16,
	};
	const struct virtio_net_hdr_v1 ufo = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_UDP,
		.gso_size = 1448, .csum_start = 34, .csum_offset = 6,
	};
	const struct virtio_net_hdr_v1 ecn = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN,
		.gso_size = 1448, .csum_start = 34, .csum_offset = 16,
	};
	const struct virtio_net_hdr_v1 receive_flags = {
		.flags = VIRTIO_NET_HDR_F_DATA_VALID | VIRTIO_NET_HDR_F_RSC_INFO,
		.csum_start = 7, .csum_offset = 7, .num_buffers = 9,
	};
	struct virtio_net_hdr_v1 hdr;
	uint32_t id, len;

	guest_configure(a, BASIC);		/* no CSUM, no HOST_TSO */
	guest_configure(b, ALL);
	post_rx_buffers(b, 8, 2048);
	guest_send_shaped(w, a, b->mac, 100, &partial, &one_piece);
	guest_send_shaped(w, a, b->mac, 100, &tso4, &one_piece);
	guest_send(w, a, b->mac, ETH_HLEN - 1);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 3);
	assert_int_equal(a->dev.stats.tx_malformed, 3);

	virtio_dev_reset(&a->dev.vdev);
	guest_configure(a, ALL);
	guest_send_shaped(w, a, b->mac, 100, &past_end, &one_piece);
	guest_send_shaped(w, a, b->mac, 100, &no_csum, &one_piece);
	guest_send_shaped(w, a, b->mac, 100, &no_mss, &one_piece);
	guest_send_shaped(w, a, b->mac, 100, &ufo, &one_piece);
	guest_send_shaped(w, a, b->mac, 100, &ecn, &one_piece);
	/* Receive-side flags are ignored (§5.1.6.2.2), not passed on. */
	guest_send_shaped(w, a, b->mac, 100, &receive_flags, &one_piece);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 6);
	assert_int_equal(a->dev.stats.tx_malformed, 3 + 5);	/* counters outlive a reset */
	assert_int_equal(a->dev.port.stats.tx_drops, 3 + 5);
	assert_int_equal(a->dev.port.stats.tx_packets, 1);
	for (unsigned int i = 0; i < 6; i++) {
		assert_true(vring_driver_take_used(&a->tx, &id, &len));
		assert_int_equal(len, 0);
	}

	virtio_net_flush(&b->dev, 0);
	assert_int_equal(guest_receive(w, b, &hdr), 100);
	assert_int_equal(hdr.flags, 0);
	assert_int_equal(hdr.csum_start, 0);
	assert_int_equal(hdr.num_buffers, 1);
	assert_nothing_received(w, b);
}

static void test_tx_budget(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, MERGEABLE);
	post_rx_buffers(b, 16, 256);
	for (unsigned int i = 0; i < 10; i++)
		guest_send(w, a, b->mac, 64);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 4), 4);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 4), 4);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 4), 2);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 4), 0);
	assert_int_equal(b->dev.port.stats.rx_packets, 10);
}

/*
 * The pass's meter ends the poll: with 2,500 bytes left, the third
 * 1,000-byte frame overdraws it and no fourth is started; the rest wait
 * in the queue for the next pass, none dropped.
 */
static void test_tx_meter(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct net_meter *meter = net_switch_meter(&w->sw, 0);

	configure_all(w, MERGEABLE);
	post_rx_buffers(b, 16, 2048);
	for (unsigned int i = 0; i < 10; i++)
		guest_send(w, a, b->mac, 1000);
	*meter = (struct net_meter){ 2500, 1000 };
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 3);
	assert_int_equal(meter->bytes, -500);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 0);
	*meter = NET_METER_UNLIMITED;
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 7);
	assert_int_equal(b->dev.port.stats.rx_packets, 10);
	assert_int_equal(a->dev.port.stats.tx_drops, 0);
}

/*
 * A receiver's buffers of many tiny segments cost the pass a segment
 * each: a 200-byte frame into one buffer of 21 descriptors (the header's
 * 12 bytes, then 10 bytes each) charges 21 segments beside the sender's one.
 */
static void test_rx_tiny_segments_charged(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct net_meter *meter = net_switch_meter(&w->sw, 0);
	struct vring_buf bufs[21];
	struct virtio_net_hdr_v1 hdr;

	configure_all(w, MERGEABLE);
	bufs[0] = (struct vring_buf){ vring_driver_alloc(&b->rx, HDR), HDR, true };
	for (unsigned int i = 1; i < 21; i++)
		bufs[i] = (struct vring_buf){ vring_driver_alloc(&b->rx, 10), 10, true };
	vring_driver_post(&b->rx, bufs, 21, false);
	guest_send(w, a, b->mac, 200);
	*meter = (struct net_meter){ 100000, 1000 };
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);
	assert_int_equal(meter->bytes, 100000 - 200);
	assert_int_equal(meter->segments, 1000 - 1 - 21);
	*meter = NET_METER_UNLIMITED;
	virtio_net_flush(&b->dev, 0);
	assert_int_equal(guest_receive(w, b, &hdr), 200);
}

/* With EVENT_IDX the guests' used_event decides (virtio 1.1 §2.6.7.2). */
static void test_interrupts_suppressed(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	post_rx_buffers(b, 8, 2048);
	vring_driver_set_used_event(&a->tx, 5);
	vring_driver_set_used_event(&b->rx, 5);
	for (unsigned int i = 0; i < 5; i++)
		guest_send(w, a, b->mac, 64);
	run_sidecore(w, 0);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 0);
	assert_int_equal(b->interrupts[VIRTIO_NET_RX_QUEUE], 0);
	guest_send(w, a, b->mac, 64);
	run_sidecore(w, 0);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 1);
	assert_int_equal(b->interrupts[VIRTIO_NET_RX_QUEUE], 1);
}

/* --- transmit completion moderation ----------------------------------------- */

#define HOLDOFF	100

/* A held completion reaches the guest, and is signalled, at the deadline. */
static void test_tx_holdoff_deadline(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, 8, 2048);
	guest_send(w, a, b->mac, 300);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);
	virtio_net_flush(&a->dev, 1000);
	virtio_net_flush(&b->dev, 1000);
	assert_int_equal(guest_receive(w, b, &hdr), 300);	/* the frame is not held */
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	virtio_net_flush(&a->dev, 1000 + HOLDOFF - 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 0);
	virtio_net_flush(&a->dev, 1000 + HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 1);
	virtio_net_flush(&a->dev, 5000);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 1);
}

/*
 * The port's hint (sidecore/port.h): live with its transmitq watched from
 * DRIVER_OK on; ready while a frame waits there; the receiver dirty until
 * its flush; the sender dirty until its flush, then due at its held
 * completion's deadline; a broken device and a reset one are no longer live.
 */
static void test_port_hint(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct sidecore_port *pa = &a->dev.vdev.port, *pb = &b->dev.vdev.port;

	assert_false(pa->live);
	configure_all(w, ALL);
	assert_true(pa->live);
	assert_int_equal(pa->watches, 1);
	assert_false(sidecore_port_ready(pa));
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, 8, 2048);
	guest_send(w, a, b->mac, 300);
	assert_true(sidecore_port_ready(pa));
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 1);
	assert_false(sidecore_port_ready(pa));
	assert_true(pa->dirty);
	assert_true(pb->dirty);
	virtio_net_flush(&b->dev, 1000);
	assert_false(pb->dirty);
	virtio_net_flush(&a->dev, 1000);
	assert_false(pa->dirty);
	assert_int_equal(pa->deadline, 1000 + HOLDOFF);
	virtio_net_flush(&a->dev, 1000 + HOLDOFF);
	assert_false(pa->dirty);
	assert_int_equal(pa->deadline, 0);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_false(pa->busy);

	virtio_dev_fail(&a->dev.vdev);
	assert_false(pa->live);
	virtio_dev_reset(&b->dev.vdev);
	assert_false(pb->live);
	assert_int_equal(pb->watches, 0);
}

/* A queue enabled after DRIVER_OK is watched too; the port is live only while active. */
static void test_port_watch_late_queue(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct sidecore_port *pa = &a->dev.vdev.port;
	struct virtq_layout rx, tx;

	guest_lay_out(a, ALL, &rx, &tx);
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_NET_RX_QUEUE, &rx), 0);
	virtio_dev_start(&a->dev.vdev);
	assert_true(pa->live);
	assert_int_equal(pa->watches, 0);
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_NET_TX_QUEUE, &tx), 0);
	assert_int_equal(pa->watches, 1);
	guest_send(w, a, w->g[B]->mac, 100);
	assert_true(sidecore_port_ready(pa));
}

/* Both guests up with buffers posted, a's transmit completions held. */
static void holdoff_both(struct world *w, struct guest *a, struct guest *b)
{
	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(a, 8, 2048);
	post_rx_buffers(b, 8, 2048);
}

/*
 * A request from a to b at now, held at a, and b's response, delivered to
 * a ten clock units later.
 */
static void request_response(struct world *w, struct guest *a, struct guest *b, uint64_t now)
{
	guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&a->dev, now);
	virtio_net_flush(&b->dev, now);
	guest_send(w, b, a->mac, 80);
	virtio_net_poll_tx(&b->dev, 32);
	virtio_net_flush(&a->dev, now + 10);
}

/*
 * A receive publishes held completions with it; a driver that reclaims them
 * in its receive poll (and moves used_event past them) gets no transmit
 * interrupt at the deadline.
 */
static void test_tx_holdoff_rides_on_receive(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;
	uint32_t id, len;

	holdoff_both(w, a, b);
	vring_driver_set_used_event(&a->tx, 0);
	request_response(w, a, b, 0);
	assert_int_equal(vring_driver_used_idx(&a->tx), 1);
	assert_int_equal(a->interrupts[VIRTIO_NET_RX_QUEUE], 1);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 0);
	assert_int_equal(guest_receive(w, a, &hdr), 80);
	assert_true(vring_driver_take_used(&a->tx, &id, &len));
	vring_driver_set_used_event(&a->tx, 1);
	virtio_net_flush(&a->dev, HOLDOFF);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 0);
}

/*
 * Request/response: each request's completion rides with its response.
 * A deadline that finds only a completion held since the last ride gives
 * it a holdoff of its own instead of publishing and signalling it; only
 * a completion that waited a whole holdoff, or a used_event the driver
 * left behind, raises the transmit interrupt.
 */
static void test_tx_holdoff_fresh_after_ride(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;
	uint32_t id, len;

	holdoff_both(w, a, b);
	for (unsigned int i = 0; i < 2; i++) {
		/* The request's completion, held, rides with the response. */
		vring_driver_set_used_event(&a->tx, (uint16_t)i);
		request_response(w, a, b, i * HOLDOFF);
		assert_int_equal(vring_driver_used_idx(&a->tx), i + 1);
		assert_int_equal(guest_receive(w, a, &hdr), 80);
		assert_true(vring_driver_take_used(&a->tx, &id, &len));
	}
	/*
	 * The first deadline found the second request, held after a ride:
	 * it moved on. So does the next, for the third request.
	 */
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 0);
	vring_driver_set_used_event(&a->tx, 2);
	guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, 32);
	virtio_net_flush(&a->dev, 2 * HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&a->tx), 2);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 0);
	assert_int_equal(a->dev.vdev.port.deadline, 3 * HOLDOFF);
	/* Nothing carries it: published and signalled at its own deadline. */
	virtio_net_flush(&a->dev, 3 * HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&a->tx), 3);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 1);
}

/* Half a queue of completions does not wait for the deadline. */
static void test_tx_holdoff_half_queue(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, QSIZE, 2048);
	for (unsigned int i = 0; i < QSIZE / 2 - 1; i++)
		guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, QSIZE);
	virtio_net_flush(&a->dev, 0);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, QSIZE);
	virtio_net_flush(&a->dev, 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), QSIZE / 2);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 1);
}

/*
 * Completions held while a deadline runs leave the port clean: they wait
 * for that deadline, with no flush of their own in between, and are
 * published with the first ones. The next after it starts a deadline again.
 */
static void test_tx_holdoff_held_under_deadline(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct sidecore_port *pa = &a->dev.vdev.port;

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, 8, 2048);
	guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, 32);
	assert_true(pa->dirty);
	virtio_net_flush(&a->dev, 1000);
	assert_int_equal(pa->deadline, 1000 + HOLDOFF);
	guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, 32);
	assert_false(pa->dirty);
	assert_int_equal(pa->deadline, 1000 + HOLDOFF);
	virtio_net_flush(&a->dev, 1000 + HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&a->tx), 2);
	assert_int_equal(pa->deadline, 0);
	guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, 32);
	assert_true(pa->dirty);
}

/* A reset forgets held completions: the new rings start empty. */
static void test_tx_holdoff_reset(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	configure_all(w, ALL);
	a->dev.tx_holdoff = HOLDOFF;
	post_rx_buffers(b, 8, 2048);
	guest_send(w, a, b->mac, 64);
	virtio_net_poll_tx(&a->dev, 32);
	virtio_dev_reset(&a->dev.vdev);
	guest_configure(a, ALL);
	virtio_net_flush(&a->dev, 2 * HOLDOFF);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	assert_int_equal(a->interrupts[VIRTIO_NET_TX_QUEUE], 0);
}

/* --- broken guests ---------------------------------------------------------- */

/* B and C must still talk both ways, and nothing may go to A. */
static void assert_b_and_c_forward(struct world *w)
{
	struct guest *b = w->g[B], *c = w->g[C];
	struct virtio_net_hdr_v1 hdr;

	guest_send(w, b, c->mac, 700);
	guest_send(w, c, b->mac, 800);
	guest_send(w, b, w->g[A]->mac, 900);
	run_sidecore(w, 0);
	assert_int_equal(guest_receive(w, c, &hdr), 700);
	assert_int_equal(guest_receive(w, b, &hdr), 800);
	assert_nothing_received(w, w->g[A]);
}

static void test_malformed_tx_ring(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];
	struct virtio_net_hdr_v1 hdr;
	char log[512];

	configure_all(w, ALL);
	for (unsigned int i = A; i <= C; i++)
		post_rx_buffers(w->g[i], 8, 2048);
	guest_send(w, a, b->mac, 400);		/* served before the bad one */
	a->tx.desc[40] = (struct vring_desc){ GUEST_MEM - 8, 64, 0, 0 };
	vring_driver_make_available(&a->tx, 40);
	guest_send(w, a, b->mac, 400);		/* never looked at */

	stderr_capture_begin();
	run_sidecore(w, 0);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio A: queue 1: buffer outside guest memory"));
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_false(net_port_is_up(&a->dev.port));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);
	assert_int_equal(guest_receive(w, b, &hdr), 400);
	assert_nothing_received(w, b);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);

	assert_b_and_c_forward(w);
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 0);
	assert_false(virtio_net_deliver(&a->dev, &(struct net_packet){ .len = 60 }));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);

	/* The driver resets and sets the device up again. */
	virtio_dev_reset(&a->dev.vdev);
	assert_false(virtio_dev_needs_reset(&a->dev.vdev));
	guest_configure(a, ALL);
	post_rx_buffers(a, 2, 2048);
	guest_send(w, b, a->mac, 333);
	run_sidecore(w, 0);
	assert_int_equal(guest_receive(w, a, &hdr), 333);
}

/* Every guest up, with receive buffers on B and C; returns A. */
static struct guest *bring_up(struct world *w)
{
	configure_all(w, ALL);
	for (unsigned int i = B; i <= C; i++)
		post_rx_buffers(w->g[i], 8, 2048);
	return w->g[A];
}

/*
 * A transmit chain of the wrong shape breaks A's transmit queue: the device
 * needs a reset, the log names A and the reason, and B and C go on.
 */
static void expect_tx_broken(struct world *w, const struct vring_buf *bufs, unsigned int count,
			     bool indirect, const char *message)
{
	struct guest *a = w->g[A];
	char log[512];

	vring_driver_post(&a->tx, bufs, count, indirect);
	stderr_capture_begin();
	run_sidecore(w, 0);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, message));
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_false(net_port_is_up(&a->dev.port));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);
	assert_int_equal(vring_driver_used_idx(&a->tx), 0);
	assert_int_equal(a->dev.stats.tx_malformed, 0);
	assert_b_and_c_forward(w);
}

/* The first buffer (and so, readable ones first, every buffer) is device-writable. */
static void test_tx_writable_buffer(void **state)
{
	struct world *w = *state;
	struct guest *a = bring_up(w);
	struct vring_buf buf = { vring_driver_alloc(&a->tx, 200), 200, true };

	expect_tx_broken(w, &buf, 1, false,
			 "virtio A: queue 1: transmit buffer with a device-writable part");
}

/*
 * INDIRECT_DESC is not offered (docs/data-path.md, "The device the guest
 * sees"): a chain through an indirect table breaks the queue like any other
 * bad shape.
 */
static void test_tx_indirect_not_offered(void **state)
{
	struct world *w = *state;
	struct guest *a = bring_up(w);
	uint64_t gpa = vring_driver_alloc(&a->tx, 200);
	struct vring_buf bufs[2] = { { gpa, HDR, false }, { gpa + HDR, 200 - HDR, false } };

	expect_tx_broken(w, bufs, 2, true,
			 "virtio A: queue 1: indirect descriptor without INDIRECT_DESC");
}

/* Header and frame readable, then a writable tail. */
static void test_tx_writable_tail(void **state)
{
	struct world *w = *state;
	struct guest *a = bring_up(w);
	struct vring_buf bufs[2] = {
		{ vring_driver_alloc(&a->tx, 200), 200, false },
		{ vring_driver_alloc(&a->tx, 64), 64, true },
	};

	expect_tx_broken(w, bufs, 2, false,
			 "virtio A: queue 1: transmit buffer with a device-writable part");
}

static void test_tx_shorter_than_header(void **state)
{
	struct world *w = *state;
	struct guest *a = bring_up(w);
	struct vring_buf buf = { vring_driver_alloc(&a->tx, HDR - 1), HDR - 1, false };

	expect_tx_broken(w, &buf, 1, false, "virtio A: queue 1: transmit buffer shorter than the header");
}

/* A zero-length descriptor between header and frame. */
static void test_tx_zero_length_descriptor(void **state)
{
	struct world *w = *state;
	struct guest *a = bring_up(w);
	struct vring_buf bufs[3] = {
		{ vring_driver_alloc(&a->tx, HDR), HDR, false },
		{ vring_driver_alloc(&a->tx, 16), 0, false },
		{ vring_driver_alloc(&a->tx, 100), 100, false },
	};

	expect_tx_broken(w, bufs, 3, false, "virtio A: queue 1: zero-length descriptor");
}

static void test_rx_zero_length_descriptor(void **state)
{
	struct world *w = *state;
	struct guest *a = bring_up(w);
	struct vring_buf bufs[2] = {
		{ vring_driver_alloc(&a->rx, 2048), 2048, true },
		{ vring_driver_alloc(&a->rx, 16), 0, true },
	};
	char log[512];

	vring_driver_post(&a->rx, bufs, 2, false);
	guest_send(w, w->g[B], a->mac, 400);
	stderr_capture_begin();
	run_sidecore(w, 0);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio A: queue 0: zero-length descriptor"));
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);
	assert_int_equal(vring_driver_used_idx(&a->rx), 0);
	assert_b_and_c_forward(w);
}

static void test_malformed_rx_ring(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	struct vring_buf readable;
	char log[512];

	configure_all(w, ALL);
	for (unsigned int i = B; i <= C; i++)
		post_rx_buffers(w->g[i], 8, 2048);
	readable = (struct vring_buf){ vring_driver_alloc(&a->rx, 2048), 2048, false };
	vring_driver_post(&a->rx, &readable, 1, false);
	guest_send(w, w->g[B], a->mac, 400);

	stderr_capture_begin();
	run_sidecore(w, 0);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio A: queue 0: receive buffer with a device-readable part"));
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);
	assert_int_equal(a->dev.port.stats.rx_drops, 1);
	assert_b_and_c_forward(w);
}

static void test_rx_buffer_smaller_than_header(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	char log[256];

	configure_all(w, ALL);
	post_rx_buffers(a, 1, HDR - 1);
	guest_send(w, w->g[B], a->mac, 400);
	stderr_capture_begin();
	run_sidecore(w, 0);
	stderr_capture_end(log, sizeof(log));
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_string_equal(a->dev.queue[VIRTIO_NET_RX_QUEUE].broken_reason,
			    "receive buffer smaller than the header");
}

static void test_bad_queue_layout(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A];
	const struct virtq_layout outside = { QSIZE, GUEST_MEM, 0x1000, 0x2000 };
	char log[256];

	assert_true(virtio_dev_set_features(&a->dev.vdev, ALL));
	stderr_capture_begin();
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_NET_TX_QUEUE, &outside), -1);
	stderr_capture_end(log, sizeof(log));
	assert_non_null(strstr(log, "virtio A: queue 1: ring outside guest memory"));
	assert_int_equal(virtio_dev_enable_queue(&a->dev.vdev, VIRTIO_NET_RXQ(1), &outside), -1);
	assert_true(virtio_dev_needs_reset(&a->dev.vdev));
	assert_int_equal(a->interrupts[CONFIG_CHANGE], 1);
	virtio_dev_start(&a->dev.vdev);
	assert_false(net_port_is_up(&a->dev.port));
}

/* Before DRIVER_OK, and after a reset, the device leaves the rings alone. */
static void test_not_running(void **state)
{
	struct world *w = *state;
	struct guest *a = w->g[A], *b = w->g[B];

	guest_configure(b, MERGEABLE);
	post_rx_buffers(b, 4, 2048);
	assert_false(net_port_is_up(&a->dev.port));
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 0);

	guest_configure(a, MERGEABLE);
	guest_send(w, a, b->mac, 100);
	virtio_dev_reset(&a->dev.vdev);
	assert_false(net_port_is_up(&a->dev.port));
	assert_int_equal(virtio_net_poll_tx(&a->dev, 32), 0);
	guest_send(w, b, a->mac, 100);
	run_sidecore(w, 0);
	virtio_net_flush(&b->dev, 0);
	assert_nothing_received(w, b);
	assert_int_equal(virtio_dev_read_config(&a->dev.vdev, 0, 1), a->mac[0]);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, world_setup, world_teardown)
	const struct CMUnitTest device[] = {
		T(test_features_offered),
		T(test_init_checks_params),
		T(test_features_negotiation),
		T(test_config_space),
	};
	const struct CMUnitTest forwarding[] = {
		T(test_unicast_mergeable),
		T(test_unicast_one_buffer),
		T(test_tx_descriptor_layouts),
		T(test_gso_64k_untouched),
		T(test_offloads_not_accepted),
		T(test_rx_without_mergeable),
		T(test_broadcast),
		T(test_unknown_unicast_reaches_no_guest),
		T(test_cross_sidecore),
	};
	const struct CMUnitTest drops[] = {
		T(test_no_rx_buffers),
		T(test_partial_buffers_returned),
		T(test_bad_tx_packets),
		T(test_tx_budget),
		T(test_tx_meter),
		T(test_rx_tiny_segments_charged),
		T(test_interrupts_suppressed),
		T(test_tx_holdoff_deadline),
		T(test_tx_holdoff_rides_on_receive),
		T(test_tx_holdoff_fresh_after_ride),
		T(test_tx_holdoff_half_queue),
		T(test_tx_holdoff_held_under_deadline),
		T(test_tx_holdoff_reset),
		T(test_port_hint),
		T(test_port_watch_late_queue),
	};
	const struct CMUnitTest broken[] = {
		T(test_malformed_tx_ring),
		T(test_tx_writable_buffer),
		T(test_tx_indirect_not_offered),
		T(test_tx_writable_tail),
		T(test_tx_shorter_than_header),
		T(test_tx_zero_length_descriptor),
		T(test_rx_zero_length_descriptor),
		T(test_malformed_rx_ring),
		T(test_rx_buffer_smaller_than_header),
		T(test_bad_queue_layout),
		T(test_not_running),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("virtio-net device", device, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-net forwarding", forwarding, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-net drops and interrupts", drops, NULL, NULL);
	failed += cmocka_run_group_tests_name("virtio-net broken guests", broken, NULL, NULL);
	return failed ? 1 : 0;
}
