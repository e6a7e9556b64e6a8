// SPDX-License-Identifier: MIT
/*
 * fuzz_virtq.c - a guest that writes anything at all into its rings.
 *
 * The input is a 16-byte header followed by the guest's RAM image:
 *
 *   byte 0   bits 3:0: log2 of the queue size; bits 5:4: what runs on the
 *            image (0: the bare queue, 1: virtio-net transmit, 2: virtio-net
 *            receive, 3: all three, each on a fresh copy); bit 6: EVENT_IDX;
 *            bit 7: INDIRECT_DESC
 *   byte 1   bit 0: MRG_RXBUF; bit 1: CSUM and HOST_TSO4/6; bit 2:
 *            GUEST_CSUM and GUEST_TSO4/6; bit 3: a device of two queue
 *            pairs with CTRL_VQ and MQ, whose runs put the image's ring
 *            under the queue of both pairs and under the control queue too
 *   2-7      guest-physical addresses of descriptor table, available and
 *            used ring (16-bit little-endian each)
 *   8-9      length of the frame the receive run delivers (little-endian,
 *            at least ETH_HLEN)
 *   10, 11   its gso_type and flags
 *   12-15    its gso_size, csum_start (little-endian)
 *
 * The RAM is a heap block of exactly the image's size, so AddressSanitizer
 * reports any access outside it. Beyond that: every segment handed out lies
 * inside the RAM, holds at least a byte and follows the readable-then-writable
 * order, every packet the switch passes on is readable to its end and no
 * longer than NET_FRAME_MAX, a malformed chain breaks its queue (needing a
 * reset is a valid outcome) and a broken queue stays broken, with its reason
 * and its device down, a control command never sets more pairs than the
 * device has, and every loop ends. A broken rule aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/virtio_config.h>

#include "net/net.h"
#include "virtio/virtio_net.h"
#include "virtio/virtq.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define HEADER_BYTES	16
#define F(bit)		(1ull << (bit))

enum mode { MODE_QUEUE, MODE_TRANSMIT, MODE_RECEIVE, MODE_ALL };

struct fuzz_input {
	struct virtq_layout layout;
	uint64_t features;
	enum mode mode;
	unsigned int pairs;
	struct virtio_net_hdr_v1 rx_hdr;
	uint32_t rx_len;
};

static struct guest_mem mem;
static struct net_switch sw;
static struct virtio_net dev;
static struct net_port sink;
static uint8_t frame[NET_FRAME_MAX];

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static bool inside_guest(const uint8_t *p, uint32_t len)
{
	return p >= mem.base && len <= mem.size && (uint64_t)(p - mem.base) <= mem.size - len;
}

static void check_chain(const struct virtq_chain *chain)
{
	uint64_t readable = 0, writable = 0;
	bool seen_writable = false;

	CHECK(chain->count <= VIRTQ_CHAIN_MAX_SEGMENTS);
	for (unsigned int i = 0; i < chain->count; i++) {
		const struct virtq_segment *seg = &chain->segment[i];

		CHECK(seg->len && inside_guest(seg->data, seg->len));
		CHECK(seg->writable || !seen_writable);
		seen_writable |= seg->writable;
		if (seg->writable)
			writable += seg->len;
		else
			readable += seg->len;
	}
	CHECK(readable == chain->readable && writable == chain->writable);
}

/* Pops, returns, takes back and publishes until the ring is empty or broken. */
static void run_queue(const struct fuzz_input *in)
{
	struct virtq_chain chain;
	struct virtq vq;

	virtq_init(&vq, &mem, "fuzz", 0);
	if (virtq_enable(&vq, &in->layout, in->features) < 0) {
		CHECK(virtq_is_broken(&vq) && virtq_pop(&vq, &chain) == -1);
		return;
	}
	for (uint32_t i = 0; i < 2 * in->layout.size + 8; i++) {
		int got = virtq_pop(&vq, &chain);

		if (got < 0) {
			CHECK(virtq_is_broken(&vq) && virtq_pop(&vq, &chain) == -1);
			CHECK(!virtq_pending(&vq) && !virtq_needs_interrupt(&vq));
			return;
		}
		if (got == 0)
			break;
		check_chain(&chain);
		if (i % 7 == 6) {
			virtq_unpop(&vq, 1);
			continue;
		}
		virtq_push(&vq, chain.head, chain.writable);
		if (i % 3 == 0) {
			virtq_publish(&vq);
			virtq_needs_interrupt(&vq);
		}
	}
	virtq_publish(&vq);
	virtq_needs_interrupt(&vq);
	virtq_enable_notify(&vq);
	virtq_disable_notify(&vq);
}

/* The other end of every packet the device transmits. */
static bool sink_deliver(struct net_port *port, const struct net_packet *pkt)
{
	const struct virtio_net_hdr_v1 *hdr = &pkt->hdr;
	uint8_t copy[256];
	uint64_t total = 0;

	(void)port;
	CHECK(pkt->len >= ETH_HLEN && pkt->len <= NET_FRAME_MAX);
	CHECK(pkt->count <= NET_PACKET_MAX_SEGMENTS);
	for (uint32_t i = 0; i < pkt->count; i++) {
		CHECK(inside_guest(pkt->segment[i].data, pkt->segment[i].len));
		total += pkt->segment[i].len;
	}
	CHECK(total == pkt->len);
	CHECK(!(hdr->flags & ~VIRTIO_NET_HDR_F_NEEDS_CSUM));
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		CHECK((uint32_t)hdr->csum_start + hdr->csum_offset + 2 <= pkt->len);
	if (hdr->gso_type != VIRTIO_NET_HDR_GSO_NONE)
		CHECK(hdr->gso_size && hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM);
	CHECK(net_packet_read(pkt, 0, copy, sizeof(copy)) ==
	      (pkt->len < sizeof(copy) ? pkt->len : sizeof(copy)));
	return true;
}

static void interrupt(struct virtio_dev *d, unsigned int source)
{
	CHECK(source < d->num_queues || source == VIRTIO_DEV_CONFIG_CHANGE);
}

/* A device that needs a reset is down and has a queue that says why. */
static void check_broken_device(void)
{
	bool reason = dev.ctrl.broken_reason != NULL;

	CHECK(dev.active_pairs >= 1 && dev.active_pairs <= dev.max_pairs);
	if (!virtio_dev_needs_reset(&dev.vdev))
		return;
	for (unsigned int i = 0; i < 2 * dev.max_pairs; i++)
		reason |= dev.queue[i].broken_reason != NULL;
	CHECK(reason);
	CHECK(!net_port_is_up(&dev.port));
	CHECK(virtio_net_poll_tx(&dev, 64) == 0);
}

/*
 * A switch with the device under test and the sink; pair 0's queue of the
 * kind given (receive or transmit) uses the image's ring, and with two pairs
 * pair 1's and the control queue use it as well.
 */
static bool net_setup(const struct fuzz_input *in, unsigned int queue)
{
	const unsigned int queues[] = { queue, queue + 2, 2 * in->pairs };
	struct virtio_net_params params = {
		.mac = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 },
		.sw = &sw,
		.max_pairs = in->pairs,
	};
	struct virtio_dev_params common = { .name = "fuzz", .mem = &mem, .interrupt = interrupt,
					    .type = &params };

	net_switch_init(&sw);
	memset(&sink, 0, sizeof(sink));
	memcpy(sink.mac, (uint8_t[ETH_ALEN]){ 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 }, ETH_ALEN);
	sink.deliver = sink_deliver;
	sink.uplink = true;	/* the wire: its frames may carry any source MAC and size */
	CHECK(net_switch_add_port(&sw, &sink));
	net_port_set_up(&sink, true);
	CHECK(!virtio_net_ops.init(&dev.vdev, &common));
	dev.port.wire = true;	/* a guest with `uplink = yes`: the sink's frames reach it */
	CHECK(net_switch_add_port(&sw, &dev.port));
	/* The walker alone takes indirect tables; virtio-net does not offer them. */
	CHECK(virtio_dev_set_features(&dev.vdev, in->features & dev.vdev.offered));
	for (unsigned int i = 0; i < (in->pairs > 1 ? 3 : 1); i++) {
		if (virtio_dev_enable_queue(&dev.vdev, queues[i], &in->layout) < 0) {
			check_broken_device();
			CHECK(virtio_dev_needs_reset(&dev.vdev));
			return false;
		}
	}
	virtio_dev_start(&dev.vdev);
	return true;
}

static void run_transmit(const struct fuzz_input *in)
{
	if (!net_setup(in, VIRTIO_NET_TX_QUEUE))
		return;
	/* Completions held for two ticks of the flush clock (virtio_net_flush()). */
	dev.tx_holdoff = 2;
	for (int i = 0; i < 4 && virtio_net_poll_tx(&dev, 64) > 0; i++)
		virtio_net_flush(&dev, i);
	virtio_net_flush(&dev, 8);
	check_broken_device();
}

/* Delivers one frame, cut in three, from the sink to the device, again and again. */
static void run_receive(const struct fuzz_input *in)
{
	struct net_packet pkt = { .hdr = in->rx_hdr, .len = in->rx_len, .count = 3 };
	uint32_t third = in->rx_len / 3;

	if (!net_setup(in, VIRTIO_NET_RX_QUEUE))
		return;
	/* The control queue's commands, VQ_PAIRS_SET among them, come first. */
	virtio_net_poll_tx(&dev, 0);
	check_broken_device();
	memcpy(frame, dev.port.mac, ETH_ALEN);
	pkt.segment[0] = (struct net_segment){ frame, third };
	pkt.segment[1] = (struct net_segment){ frame + third, third };
	pkt.segment[2] = (struct net_segment){ frame + 2 * third, in->rx_len - 2 * third };
	for (int i = 0; i < 64 && net_port_is_up(&dev.port); i++) {
		uint64_t before = dev.port.stats.rx_packets + dev.port.stats.rx_drops;

		net_switch_forward(&sw, &sink, &pkt);
		CHECK(dev.port.stats.rx_packets + dev.port.stats.rx_drops == before + 1);
		if (i % 5 == 4)
			virtio_net_flush(&dev, 0);
	}
	virtio_net_flush(&dev, 0);
	check_broken_device();
	if (virtio_dev_needs_reset(&dev.vdev))
		CHECK(!virtio_net_deliver(&dev, &pkt));
}

static void parse(const uint8_t *h, struct fuzz_input *in)
{
	in->layout.size = 1u << (h[0] & 15);
	in->mode = (enum mode)((h[0] >> 4) & 3);
	in->features = F(VIRTIO_F_VERSION_1) | F(VIRTIO_NET_F_MAC) | F(VIRTIO_NET_F_STATUS);
	if (h[0] & 0x40)
		in->features |= F(VIRTIO_RING_F_EVENT_IDX);
	if (h[0] & 0x80)
		in->features |= F(VIRTIO_RING_F_INDIRECT_DESC);
	if (h[1] & 1)
		in->features |= F(VIRTIO_NET_F_MRG_RXBUF);
	if (h[1] & 2)
		in->features |= F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |
				F(VIRTIO_NET_F_HOST_TSO6);
	if (h[1] & 4)
		in->features |= F(VIRTIO_NET_F_GUEST_CSUM) | F(VIRTIO_NET_F_GUEST_TSO4) |
				F(VIRTIO_NET_F_GUEST_TSO6);
	in->pairs = h[1] & 8 ? 2 : 1;
	if (in->pairs > 1)
		in->features |= VIRTIO_NET_MQ_FEATURES;
	in->layout.desc = le16(h + 2);
	in->layout.avail = le16(h + 4);
	in->layout.used = le16(h + 6);
	in->rx_len = le16(h + 8) < ETH_HLEN ? ETH_HLEN : le16(h + 8);
	memset(&in->rx_hdr, 0, sizeof(in->rx_hdr));
	in->rx_hdr.gso_type = h[10];
	in->rx_hdr.flags = h[11];
	in->rx_hdr.gso_size = le16(h + 12);
	in->rx_hdr.csum_start = le16(h + 14);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void (*const runs[])(const struct fuzz_input *) = {
		run_queue, run_transmit, run_receive,
	};
	struct fuzz_input in;

	if (size < HEADER_BYTES)
		return 0;
	parse(data, &in);
	for (unsigned int i = 0; i < 3; i++) {
		if (in.mode != MODE_ALL && in.mode != (enum mode)i)
			continue;
		mem.size = size - HEADER_BYTES;
		mem.base = malloc(mem.size ? mem.size : 1);
		memcpy(mem.base, data + HEADER_BYTES, mem.size);
		runs[i](&in);
		free(mem.base);
	}
	return 0;
}
