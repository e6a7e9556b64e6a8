/* SPDX-License-Identifier: MIT */
/*
 * test_ixgbe.c - the 82599 driver (drivers/net/ixgbe.c) against the
 * register-level model (tests/models/ixgbe_model.c): init (MAC, link,
 * queues), a thousand frames each way, TSO of 64 KiB over IPv4 and IPv6,
 * checksum offload both ways and its software fallback, refused offloads,
 * VMDq steering of two MACs to two queue pairs (broadcast and multicast to
 * both, unknown unicast dropped), link down and up, a full transmit ring
 * and a receive ring without descriptors, both recovering in order, one
 * TDT write per pair per committed batch, and write-backs that lie about
 * lengths and frame boundaries.
 *
 * Every test ends by checking that the driver broke none of the rules the
 * model enforces (ixgbe_model_errors()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/net/ixgbe.h"
#include "drivers/net/ixgbe_regs.h"
#include "tests/models/ixgbe_model.h"
#include "tests/unit/support/test_packets.h"

#define QUEUES		2
#define ARENA_BYTES	(8u << 20)
#define RX_KEEP		128		/* frames a receive callback remembers */
#define BIG		70000		/* room for a GSO frame */

static const uint8_t nic_mac[ETH_ALEN] = { 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c };
static const uint8_t mac_a[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_peer[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };
static const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* What a receive callback saw. */
struct rx_log {
	unsigned int count;
	uint32_t len[RX_KEEP];
	uint8_t flags[RX_KEEP];
	uint8_t frame[RX_KEEP][IXGBE_BUF_SIZE];
	uint32_t max_len;
};

struct fixture {
	struct ixgbe_model *m;
	struct nic nic;
	struct rx_log rx;
	struct ixgbe_model_frame wire;
	uint8_t buf[BIG];
};

static int fixture_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->m = ixgbe_model_create(nic_mac, ARENA_BYTES);
	if (!f->m)
		return -1;
	f->nic.ops = &ixgbe_ops;
	f->nic.io = ixgbe_model_io(f->m);
	f->nic.queues = QUEUES;
	if (f->nic.ops->init(&f->nic) != 0)
		return -1;
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	if (!f->nic.ops->add_mac(&f->nic, mac_a, 0) || !f->nic.ops->add_mac(&f->nic, mac_b, 1))
		return -1;
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;
	char first[200];
	unsigned int errors = ixgbe_model_finish(f->m, first, sizeof(first));

	free(f);
	if (errors)
		fail_msg("the driver broke %u rule(s) of the model, first: %s", errors, first);
	return 0;
}

static void record_rx(void *ctx, struct net_packet *pkt)
{
	struct rx_log *log = ctx;
	unsigned int i = log->count % RX_KEEP;

	assert_int_equal(pkt->count, 1);
	assert_int_equal(pkt->segment[0].len, pkt->len);
	assert_true(pkt->len <= IXGBE_BUF_SIZE);
	if (pkt->len > log->max_len)
		log->max_len = pkt->len;
	log->len[i] = pkt->len;
	log->flags[i] = pkt->hdr.flags;
	/* Reads every byte it was lent: ASan sees any overrun. */
	net_packet_read(pkt, 0, log->frame[i], pkt->len);
	assert_memory_equal(log->frame[i], pkt->eth, ETH_HLEN);
	log->count++;
}

static unsigned int rx_all(struct fixture *f, unsigned int q)
{
	unsigned int n, total = 0;

	while ((n = f->nic.ops->rx_burst(&f->nic, q, record_rx, &f->rx, 32)) > 0)
		total += n;
	return total;
}

/* A packet of one segment over buf. */
static struct net_packet one_segment(const uint8_t *buf, uint32_t len)
{
	struct net_packet pkt = { .len = len, .count = 1 };

	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	pkt.segment[0] = (struct net_segment){ buf, len };
	net_packet_snapshot(&pkt);
	return pkt;
}

/* Queues one frame and commits it at once: a pass that sent one frame. */
static bool tx_now(struct fixture *f, unsigned int q, const struct net_packet *pkt)
{
	bool queued = f->nic.ops->tx(&f->nic, q, pkt);

	f->nic.ops->commit(&f->nic, q);
	return queued;
}

/* A plain Ethernet frame: header, then a counter-stamped pattern. */
static uint32_t plain_frame(uint8_t *buf, const uint8_t dst[ETH_ALEN], const uint8_t src[ETH_ALEN],
			    uint32_t len, uint32_t n)
{
	memcpy(buf, dst, ETH_ALEN);
	memcpy(buf + 6, src, ETH_ALEN);
	buf[12] = 0x88;
	buf[13] = 0xb5;		/* local experimental ethertype */
	for (uint32_t i = ETH_HLEN; i < len; i++)
		buf[i] = (uint8_t)(n + i * 13);
	if (len >= ETH_HLEN + 4)
		memcpy(buf + ETH_HLEN, &n, 4);
	return len;
}

/* --- init ------------------------------------------------------------------ */

static void test_init(void **state)
{
	struct fixture *f = *state;

	assert_memory_equal(f->nic.mac, nic_mac, ETH_ALEN);
	assert_true(f->nic.ops->link(&f->nic));
	assert_true(f->nic.link_up);
	assert_int_equal(f->nic.speed_mbps, 10000);
	for (unsigned int q = 0; q < QUEUES; q++) {
		unsigned int hwq = IXGBE_HW_QUEUE(q);

		assert_true(ixgbe_model_peek(f->m, IXGBE_RXDCTL(hwq)) & IXGBE_RXDCTL_ENABLE);
		assert_true(ixgbe_model_peek(f->m, IXGBE_TXDCTL(hwq)) & IXGBE_TXDCTL_ENABLE);
		assert_int_equal(ixgbe_model_peek(f->m, IXGBE_RDT(hwq)), IXGBE_RX_RING_SIZE - 1);
	}
	assert_true(ixgbe_model_peek(f->m, IXGBE_RXCTRL) & IXGBE_RXCTRL_RXEN);
	/* Only the pools in use take frames. */
	assert_int_equal(ixgbe_model_peek(f->m, IXGBE_PFVFRE(0)), (1u << QUEUES) - 1);
	assert_int_equal(ixgbe_model_peek(f->m, IXGBE_PFVFRE(1)), 0);
}

/* A 64-bit address held in a low and a high register. */
static uint64_t reg_pair(struct fixture *f, uint32_t low, uint32_t high)
{
	return (uint64_t)ixgbe_model_peek(f->m, high) << 32 | ixgbe_model_peek(f->m, low);
}

/*
 * Each queue pair's rings and receive buffers are asked for with its own
 * number, so the hypervisor can put them on the node of the sidecore that
 * polls the pair.
 */
static void test_queue_memory(void **state)
{
	struct fixture *f = *state;

	for (unsigned int q = 0; q < QUEUES; q++) {
		unsigned int hwq = IXGBE_HW_QUEUE(q);
		uint64_t rx = reg_pair(f, IXGBE_RDBAL(hwq), IXGBE_RDBAH(hwq));
		uint64_t tx = reg_pair(f, IXGBE_TDBAL(hwq), IXGBE_TDBAH(hwq));
		const uint64_t *desc = ixgbe_model_dma(f->m, rx, 16);

		assert_non_null(desc);
		assert_int_equal(ixgbe_model_dma_queue(f->m, rx), q);
		assert_int_equal(ixgbe_model_dma_queue(f->m, tx), q);
		/* §7.1.6.1: a read descriptor starts with its packet buffer's address. */
		assert_int_equal(ixgbe_model_dma_queue(f->m, desc[0]), q);
	}
}

static void test_init_again(void **state)
{
	struct fixture *f = *state;

	/* A second init resets the NIC and reuses rings and buffers. */
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	assert_true(f->nic.ops->link(&f->nic));
	assert_true(f->nic.ops->add_mac(&f->nic, mac_a, 0));
	plain_frame(f->buf, mac_a, mac_peer, 100, 1);
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, 100), 1);
	assert_int_equal(rx_all(f, 0), 1);
}

static void test_init_bad_queues(void **state)
{
	struct ixgbe_model *m = ixgbe_model_create(nic_mac, ARENA_BYTES);
	struct nic nic = { .ops = &ixgbe_ops };

	(void)state;
	assert_non_null(m);
	nic.io = ixgbe_model_io(m);
	assert_true(nic.ops->init(&nic) < 0);
	nic.queues = NIC_MAX_QUEUES + 1;
	assert_true(nic.ops->init(&nic) < 0);
	ixgbe_model_destroy(m);
}

static void test_init_out_of_memory(void **state)
{
	struct ixgbe_model *m = ixgbe_model_create(nic_mac, 1u << 20);
	struct nic nic = { .ops = &ixgbe_ops, .queues = NIC_MAX_QUEUES };

	(void)state;
	assert_non_null(m);
	nic.io = ixgbe_model_io(m);
	assert_true(nic.ops->init(&nic) < 0);
	ixgbe_model_destroy(m);
}

/* --- a thousand frames each way ------------------------------------------- */

static void test_thousand_tx(void **state)
{
	struct fixture *f = *state;

	for (uint32_t n = 0; n < 1000; n++) {
		uint32_t len = 60 + (n * 37) % (1514 - 60 + 1);
		struct net_packet pkt;

		plain_frame(f->buf, mac_peer, mac_a, len, n);
		pkt = one_segment(f->buf, len);
		assert_true(tx_now(f, 0, &pkt));
		/* The sender's buffer is free at once. */
		memset(f->buf, 0xee, len);
		assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
		plain_frame(f->buf, mac_peer, mac_a, len, n);
		assert_int_equal(f->wire.len, len);
		assert_memory_equal(f->wire.data, f->buf, len);
		assert_true(f->wire.fcs);
		assert_int_equal(f->wire.queue, IXGBE_HW_QUEUE(0));
	}
	assert_int_equal(f->nic.stats[0].tx_packets, 1000);
	assert_int_equal(f->nic.stats[0].tx_drops, 0);
	assert_int_equal(f->nic.stats[0].ring_full, 0);
}

static void test_thousand_rx(void **state)
{
	struct fixture *f = *state;
	uint64_t bytes = 0;
	unsigned int got = 0;

	for (uint32_t n = 0; n < 1000; n++) {
		uint32_t len = 60 + (n * 53) % (1514 - 60 + 1);

		plain_frame(f->buf, mac_b, mac_peer, len, n);
		assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
		bytes += len;
		/* Drain every 100 frames: the ring holds 255. */
		if (n % 100 == 99) {
			unsigned int before = f->rx.count;

			assert_int_equal(rx_all(f, 1), 100);
			for (unsigned int k = 0; k < 100; k++) {
				unsigned int i = (before + k) % RX_KEEP;
				uint32_t seen = n - 99 + k;
				uint32_t l = 60 + (seen * 53) % (1514 - 60 + 1);

				plain_frame(f->buf, mac_b, mac_peer, l, seen);
				assert_int_equal(f->rx.len[i], l);
				assert_memory_equal(f->rx.frame[i], f->buf, l);
			}
			got += 100;
		}
	}
	assert_int_equal(got, 1000);
	assert_int_equal(rx_all(f, 0), 0);
	assert_int_equal(f->nic.stats[1].rx_packets, 1000);
	assert_int_equal(f->nic.stats[1].rx_bytes, bytes);
	assert_int_equal(f->nic.stats[1].rx_drops, 0);
}

/* --- TSO --------------------------------------------------------------------- */

/*
 * One GSO frame as the guest hands it: NEEDS_CSUM with the full-length
 * pseudo-header seed, in 4000-byte segments.
 */
static struct net_packet gso_packet(struct fixture *f, const struct tp_spec *s, uint32_t mss,
				    uint8_t gso_type)
{
	uint32_t len = tp_build(f->buf, s);
	struct net_packet pkt;
	struct tp_frame l;

	assert_true(len <= sizeof(f->buf));
	tp_layout(s, &l);
	tp_packet_pieces(&pkt, f->buf, len, 4000);
	/* The seed and NEEDS_CSUM; the GSO fields are the test's, right or wrong. */
	tp_make_partial(f->buf, len, &pkt.hdr, 0);
	assert_int_equal(pkt.hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	pkt.hdr.gso_type = gso_type;
	pkt.hdr.gso_size = (uint16_t)mss;
	pkt.hdr.hdr_len = (uint16_t)l.data;
	return pkt;
}

/*
 * Sends the largest TCP frame virtio allows and checks each wire frame
 * against one built independently: headers, sequence numbers, IP IDs,
 * flags, lengths and checksums.
 */
static void tso_case(struct fixture *f, bool ipv6, bool vlan)
{
	struct tp_spec s = {
		.ipv6 = ipv6, .vlan = vlan, .tcp_opts = 12,
		.seq = 0xffff0000u, .ip_id = 0xffe0,	/* both wrap along the way */
		.tcp_flags = TP_TCP_ACK | TP_TCP_PSH | TP_TCP_FIN,
	};
	struct tp_frame l;
	uint32_t mss, hdr, segs;
	struct net_packet pkt;
	static uint8_t expect[IXGBE_BUF_SIZE];

	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	tp_layout(&s, &l);
	hdr = l.data;
	s.payload = NET_FRAME_MAX - hdr;
	if (!ipv6 && s.payload > 65535 - 20 - 32)
		s.payload = 65535 - 20 - 32;	/* IPv4 total length */
	mss = NET_MTU - (ipv6 ? 40 : 20) - 32;
	pkt = gso_packet(f, &s, mss, ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4);
	assert_true(pkt.len > 65000);
	assert_true(tx_now(f, 0, &pkt));

	segs = (s.payload + mss - 1) / mss;
	assert_int_equal(ixgbe_model_wire_count(f->m), segs);
	for (uint32_t k = 0; k < segs; k++) {
		struct tp_spec seg = s;
		bool last = k == segs - 1;

		seg.offset = k * mss;
		seg.payload = last ? s.payload - k * mss : mss;
		seg.seq = s.seq + k * mss;
		seg.ip_id = (uint16_t)(s.ip_id + k);
		seg.tcp_flags = last ? s.tcp_flags : TP_TCP_ACK;
		assert_int_equal(tp_build(expect, &seg), hdr + seg.payload);

		assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
		assert_int_equal(f->wire.len, hdr + seg.payload);
		assert_true(f->wire.len <= ETH_HLEN + (vlan ? NET_VLAN_HLEN : 0) + NET_MTU);
		assert_true(tp_checksums_ok(f->wire.data, f->wire.len));
		assert_memory_equal(f->wire.data, expect, f->wire.len);
	}
	assert_int_equal(f->nic.stats[0].tx_packets, segs);
	assert_int_equal(f->nic.stats[0].tx_bytes, pkt.len + (segs - 1) * hdr);
}

static void test_tso_ipv4(void **state)
{
	tso_case(*state, false, false);
}

static void test_tso_ipv6(void **state)
{
	tso_case(*state, true, false);
}

static void test_tso_vlan(void **state)
{
	tso_case(*state, false, true);
}

/* Frames the NIC cannot segment, or that would not fit the MTU, are refused. */
static void test_gso_refused(void **state)
{
	struct fixture *f = *state;
	struct tp_spec s = { .udp = true, .payload = 8000 };
	struct net_packet pkt;

	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	pkt = gso_packet(f, &s, 1472, VIRTIO_NET_HDR_GSO_UDP);
	assert_int_equal(pkt.hdr.csum_offset, 6);
	assert_false(tx_now(f, 0, &pkt));

	s.udp = false;
	pkt = gso_packet(f, &s, 1460, VIRTIO_NET_HDR_GSO_TCPV6);	/* an IPv4 frame */
	assert_false(tx_now(f, 0, &pkt));
	pkt = gso_packet(f, &s, 1461, VIRTIO_NET_HDR_GSO_TCPV4);	/* 1501-byte packets */
	assert_false(tx_now(f, 0, &pkt));
	pkt = gso_packet(f, &s, 0, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_false(tx_now(f, 0, &pkt));
	pkt = gso_packet(f, &s, 1460, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_true(tx_now(f, 0, &pkt));

	assert_int_equal(f->nic.stats[0].tx_drops, 4);
	assert_int_equal(f->nic.stats[0].tx_packets, (8000 + 1459) / 1460);
}

/* --- checksum offload ----------------------------------------------------- */

/* Sends a NEEDS_CSUM frame; the wire must carry exactly the reference frame. */
static void csum_case(struct fixture *f, const struct tp_spec *s)
{
	static uint8_t expect[IXGBE_BUF_SIZE];
	uint32_t len = tp_build(expect, s);
	struct tp_frame l;
	struct net_packet pkt;

	tp_layout(s, &l);
	memcpy(f->buf, expect, len);
	pkt = one_segment(f->buf, len);
	tp_make_partial(f->buf, len, &pkt.hdr, 0);
	assert_int_equal(pkt.hdr.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(pkt.hdr.csum_start, l.l4);
	assert_int_equal(pkt.hdr.csum_offset, s->udp ? 6 : 16);
	assert_true(tx_now(f, 1, &pkt));
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_int_equal(f->wire.len, len);
	assert_true(tp_checksums_ok(f->wire.data, f->wire.len));
	assert_memory_equal(f->wire.data, expect, len);
}

static void test_tx_csum_offload(void **state)
{
	struct fixture *f = *state;
	struct tp_spec s = { .payload = 1000, .seq = 7 };

	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_b, ETH_ALEN);
	csum_case(f, &s);
	s.udp = true;
	csum_case(f, &s);
	s.ipv6 = true;
	csum_case(f, &s);
	s.udp = false;
	s.tcp_opts = 12;
	s.payload = 1500 - 40 - 32;
	csum_case(f, &s);
	s.vlan = true;
	s.ipv6 = false;
	s.payload = 1;
	csum_case(f, &s);
	assert_int_equal(f->nic.stats[1].tx_packets, 5);
}

/* A checksum the NIC cannot place is computed by the driver. */
static void test_tx_csum_software(void **state)
{
	struct fixture *f = *state;
	uint32_t len = plain_frame(f->buf, mac_peer, mac_a, 300, 42);
	struct net_packet pkt;
	uint8_t expect[300];
	uint16_t c;

	f->buf[24] = f->buf[25] = 0;
	memcpy(expect, f->buf, len);
	c = (uint16_t)~tp_sum(0, expect + 20, len - 20);
	expect[24] = (uint8_t)(c >> 8);
	expect[25] = (uint8_t)c;
	pkt = one_segment(f->buf, len);
	pkt.hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	pkt.hdr.csum_start = 20;
	pkt.hdr.csum_offset = 4;
	assert_true(tx_now(f, 0, &pkt));
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_memory_equal(f->wire.data, expect, len);
	assert_int_equal(tp_sum(0, f->wire.data + 20, len - 20), 0xffff);

	/* The sender's frame is left as it was. */
	assert_int_equal(f->buf[24], 0);
}

static void test_tx_malformed(void **state)
{
	struct fixture *f = *state;
	uint32_t len = plain_frame(f->buf, mac_peer, mac_a, 200, 1);
	struct net_packet pkt = one_segment(f->buf, len);

	pkt.hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	pkt.hdr.csum_start = 190;
	pkt.hdr.csum_offset = 9;		/* field past the end */
	assert_false(tx_now(f, 0, &pkt));

	pkt = one_segment(f->buf, len);
	pkt.len = len + 10;			/* segments shorter than the frame */
	assert_false(tx_now(f, 0, &pkt));

	pkt = one_segment(f->buf, 10);		/* no whole Ethernet header */
	assert_false(tx_now(f, 0, &pkt));

	plain_frame(f->buf, mac_peer, mac_a, ETH_HLEN + NET_MTU + 1, 2);
	pkt = one_segment(f->buf, ETH_HLEN + NET_MTU + 1);	/* over the MTU, untagged */
	assert_true(tx_now(f, 0, &pkt));		/* could be tagged: the NIC decides */
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	pkt = one_segment(f->buf, ETH_HLEN + NET_VLAN_HLEN + NET_MTU + 1);
	assert_false(tx_now(f, 0, &pkt));

	assert_false(tx_now(f, QUEUES, &pkt));	/* no such queue */
	assert_int_equal(f->nic.stats[0].tx_drops, 4);
	assert_int_equal(f->nic.stats[0].tx_packets, 1);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);

	/* Refusals leave the ring as it was. */
	len = plain_frame(f->buf, mac_peer, mac_a, 64, 3);
	pkt = one_segment(f->buf, len);
	assert_true(tx_now(f, 0, &pkt));
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_memory_equal(f->wire.data, f->buf, len);
}

static void test_tx_short_padded(void **state)
{
	/* 14-16 bytes: never handed to the NIC as they are (it takes 17 and up). */
	static const uint32_t lens[] = { ETH_HLEN, 15, 16, 42 };
	struct fixture *f = *state;

	for (unsigned int k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		unsigned int errors = ixgbe_model_errors(f->m, NULL);
		uint32_t len = plain_frame(f->buf, mac_peer, mac_a, lens[k], 9);
		struct net_packet pkt = one_segment(f->buf, len);

		assert_true(tx_now(f, 0, &pkt));
		assert_int_equal(ixgbe_model_errors(f->m, NULL), errors);
		assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
		assert_int_equal(f->wire.len, 60);
		assert_memory_equal(f->wire.data, f->buf, len);
		for (uint32_t i = len; i < 60; i++)
			assert_int_equal(f->wire.data[i], 0);
	}
}

static void test_rx_csum(void **state)
{
	struct fixture *f = *state;
	struct tp_spec s = { .payload = 500 };
	uint32_t len;

	memcpy(s.dst, mac_a, ETH_ALEN);
	memcpy(s.src, mac_peer, ETH_ALEN);
	len = tp_build(f->buf, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	s.ipv6 = true;
	s.udp = true;
	len = tp_build(f->buf, &s);
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	f->buf[len - 1] ^= 0x40;		/* a bad UDP checksum */
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	s.ipv6 = false;
	len = tp_build(f->buf, &s);
	f->buf[14 + 10] ^= 1;			/* a bad IPv4 header checksum */
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	len = plain_frame(f->buf, mac_a, mac_peer, 100, 0);	/* not IP */
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);

	assert_int_equal(rx_all(f, 0), 5);
	assert_int_equal(f->rx.flags[0], VIRTIO_NET_HDR_F_DATA_VALID);
	assert_int_equal(f->rx.flags[1], VIRTIO_NET_HDR_F_DATA_VALID);
	/* Bad checksums are the stack's to see: delivered, not marked. */
	assert_int_equal(f->rx.flags[2], 0);
	assert_int_equal(f->rx.flags[3], 0);
	assert_int_equal(f->rx.flags[4], 0);
	assert_int_equal(f->nic.stats[0].rx_drops, 0);
}

/* --- steering ---------------------------------------------------------------- */

/* Receives a frame for dst; returns a bitmap of the queue pairs it reached. */
static unsigned int steer(struct fixture *f, const uint8_t dst[ETH_ALEN], uint32_t n)
{
	uint32_t len = plain_frame(f->buf, dst, mac_peer, 128, n);
	unsigned int reached = 0;

	ixgbe_model_receive(f->m, f->buf, len);
	for (unsigned int q = 0; q < QUEUES; q++) {
		unsigned int before = f->rx.count;

		if (rx_all(f, q)) {
			assert_int_equal(f->rx.count, before + 1);
			assert_memory_equal(f->rx.frame[before % RX_KEEP], f->buf, len);
			reached |= 1u << q;
		}
	}
	return reached;
}

static void test_steering(void **state)
{
	struct fixture *f = *state;
	const uint8_t mcast[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };
	const uint8_t mcast6[ETH_ALEN] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };

	for (uint32_t n = 0; n < 20; n++) {
		assert_int_equal(steer(f, mac_a, n), 1u << 0);
		assert_int_equal(steer(f, mac_b, n), 1u << 1);
		assert_int_equal(steer(f, bcast, n), 3u);
		assert_int_equal(steer(f, n % 2 ? mcast : mcast6, n), 3u);
		/* Unknown unicast: dropped by the NIC, in no queue. */
		assert_int_equal(steer(f, mac_peer, n), 0);
	}
	assert_int_equal(ixgbe_model_stats(f->m).rx_filtered, 20);
	/* The NIC's own address goes nowhere until named. */
	assert_int_equal(steer(f, nic_mac, 0), 0);
	assert_true(f->nic.ops->add_mac(&f->nic, nic_mac, 1));
	assert_int_equal(steer(f, nic_mac, 1), 1u << 1);
	/* Naming an address again moves it. */
	assert_true(f->nic.ops->add_mac(&f->nic, mac_a, 1));
	assert_int_equal(steer(f, mac_a, 2), 1u << 1);
	assert_true(f->nic.ops->add_mac(&f->nic, mac_a, 0));
	assert_int_equal(steer(f, mac_a, 3), 1u << 0);
	assert_int_equal(f->nic.stats[0].rx_drops + f->nic.stats[1].rx_drops, 0);
}

static void test_add_mac_checks(void **state)
{
	struct fixture *f = *state;
	const uint8_t zero[ETH_ALEN] = { 0 };
	uint8_t mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0 };
	unsigned int added = 0;

	assert_false(f->nic.ops->add_mac(&f->nic, bcast, 0));
	assert_false(f->nic.ops->add_mac(&f->nic, zero, 0));
	assert_false(f->nic.ops->add_mac(&f->nic, mac, QUEUES));
	/* 128 entries: the NIC's own, A, B and 125 more. */
	for (unsigned int i = 0; i < 200; i++) {
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		if (f->nic.ops->add_mac(&f->nic, mac, i % QUEUES))
			added++;
	}
	assert_int_equal(added, IXGBE_RAR_ENTRIES - 3);
	/* The last one that fitted works; the first that did not is dropped. */
	mac[4] = 0;
	mac[5] = (uint8_t)(added - 1);
	assert_int_equal(steer(f, mac, 0), 1u << ((added - 1) % QUEUES));
	mac[5] = (uint8_t)added;
	assert_int_equal(steer(f, mac, 1), 0);
}

/* --- link ----------------------------------------------------------------------- */

static void test_link_down_up(void **state)
{
	struct fixture *f = *state;
	uint32_t len = plain_frame(f->buf, mac_peer, mac_a, 100, 5);
	struct net_packet pkt = one_segment(f->buf, len);
	struct ixgbe_hw_stats hw;

	assert_true(f->nic.ops->link(&f->nic));
	/* The link goes with a frame handed to the NIC and not yet sent. */
	ixgbe_model_set_tx_paused(f->m, true);
	assert_true(tx_now(f, 0, &pkt));
	ixgbe_model_set_cable(f->m, false);
	ixgbe_model_set_tx_paused(f->m, false);
	assert_false(f->nic.ops->link(&f->nic));
	assert_false(f->nic.link_up);
	assert_int_equal(f->nic.speed_mbps, 0);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	/* Nothing arrives either. */
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 0);

	ixgbe_model_set_cable(f->m, true);
	assert_false(f->nic.ops->link(&f->nic));	/* negotiating */
	ixgbe_model_advance(f->m, IXGBE_MODEL_LINK_US);
	assert_true(f->nic.ops->link(&f->nic));
	assert_int_equal(f->nic.speed_mbps, 10000);
	/*
	 * The queue hung with the frame when the link went: the watchdog sees
	 * TDH stand still and has the queue started again; the frame is lost,
	 * the next one goes.
	 */
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	for (unsigned int i = 0; i < 3; i++)
		assert_true(f->nic.ops->link(&f->nic));
	f->nic.ops->commit(&f->nic, 0);
	ixgbe_read_hw_stats(&f->nic, &hw);
	assert_int_equal(hw.tx_hang_resets, 1);
	assert_true(tx_now(f, 0, &pkt));
	assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
	assert_memory_equal(f->wire.data, f->buf, len);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
}

/* --- full rings ------------------------------------------------------------------ */

static void test_tx_ring_full(void **state)
{
	struct fixture *f = *state;
	struct tp_spec s = { .payload = 20000 };
	unsigned int sent = 0, refused = 0, n = 0;
	struct net_packet pkt;

	ixgbe_model_set_tx_paused(f->m, true);
	for (; n < IXGBE_TX_RING_SIZE + 10; n++) {
		uint32_t len = plain_frame(f->buf, mac_peer, mac_a, 80 + n, n);

		pkt = one_segment(f->buf, len);
		if (tx_now(f, 0, &pkt))
			sent++;
		else
			break;
	}
	/* One descriptor a frame, one kept free. */
	assert_int_equal(sent, IXGBE_TX_RING_SIZE - 1);
	assert_int_equal(f->nic.stats[0].ring_full, 1);
	/* A refused frame may be retried: still full. */
	assert_false(tx_now(f, 0, &pkt));
	refused = 2;
	assert_int_equal(f->nic.stats[0].ring_full, refused);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);

	ixgbe_model_set_tx_paused(f->m, false);
	assert_int_equal(ixgbe_model_wire_count(f->m), sent);
	/* Now it fits, after the frames before it. */
	assert_true(tx_now(f, 0, &pkt));
	/* A TSO frame too (21 descriptors with its context). */
	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	pkt = gso_packet(f, &s, 1460, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_true(tx_now(f, 0, &pkt));

	for (unsigned int i = 0; i <= sent; i++) {
		uint32_t len = plain_frame(f->buf, mac_peer, mac_a, 80 + i, i);

		assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
		assert_int_equal(f->wire.len, len);
		assert_memory_equal(f->wire.data, f->buf, len);
	}
	assert_int_equal(ixgbe_model_wire_count(f->m), (20000 + 1459) / 1460);
	assert_int_equal(f->nic.stats[0].ring_full, refused);
	assert_int_equal(f->nic.stats[0].tx_drops, 0);
}

/* Doorbells rung so far on queue pair @q. */
static uint64_t doorbells(const struct fixture *f, unsigned int q)
{
	return ixgbe_model_stats(f->m).tdt_writes[IXGBE_HW_QUEUE(q)];
}

/*
 * A pass queues frames on both pairs and commits each once: nothing leaves
 * before its pair's commit, one TDT write sends all of its frames in order,
 * and a commit with nothing new (or only refused frames) writes nothing.
 */
static void test_tx_one_doorbell_per_batch(void **state)
{
	struct fixture *f = *state;
	const unsigned int batch = 32;
	uint64_t before[QUEUES] = { doorbells(f, 0), doorbells(f, 1) };
	struct net_packet pkt;

	for (uint32_t n = 0; n < 2 * batch; n++) {
		unsigned int q = n % QUEUES;
		uint32_t len = plain_frame(f->buf, mac_peer, q ? mac_b : mac_a, 100 + n, n);

		pkt = one_segment(f->buf, len);
		assert_true(f->nic.ops->tx(&f->nic, q, &pkt));
	}
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	assert_int_equal(doorbells(f, 0), before[0]);
	f->nic.ops->commit(&f->nic, 0);
	assert_int_equal(doorbells(f, 0), before[0] + 1);
	assert_int_equal(doorbells(f, 1), before[1]);
	assert_int_equal(ixgbe_model_wire_count(f->m), batch);
	f->nic.ops->commit(&f->nic, 1);
	assert_int_equal(doorbells(f, 1), before[1] + 1);
	for (uint32_t n = 0; n < 2 * batch; n++) {
		unsigned int q = n < batch ? 0 : 1;
		uint32_t i = 2 * (n % batch) + q;
		uint32_t len = plain_frame(f->buf, mac_peer, q ? mac_b : mac_a, 100 + i, i);

		assert_true(ixgbe_model_wire_pop(f->m, &f->wire));
		assert_int_equal(f->wire.queue, IXGBE_HW_QUEUE(q));
		assert_int_equal(f->wire.len, len);
		assert_memory_equal(f->wire.data, f->buf, len);
	}

	f->nic.ops->commit(&f->nic, 0);
	pkt = one_segment(f->buf, ETH_HLEN - 1);
	assert_false(f->nic.ops->tx(&f->nic, 1, &pkt));
	f->nic.ops->commit(&f->nic, 1);
	f->nic.ops->commit(&f->nic, QUEUES);		/* no such pair */
	assert_int_equal(doorbells(f, 0), before[0] + 1);
	assert_int_equal(doorbells(f, 1), before[1] + 1);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
}

/*
 * A burst cut short by a full ring (nothing committed, so nothing reclaimed)
 * still goes out whole at its one commit, and the ring has room again.
 */
static void test_tx_full_burst_commits_once(void **state)
{
	struct fixture *f = *state;
	uint64_t before = doorbells(f, 0);
	unsigned int queued = 0;
	struct net_packet pkt;

	for (;; queued++) {
		uint32_t len = plain_frame(f->buf, mac_peer, mac_a, 80, queued);

		pkt = one_segment(f->buf, len);
		if (!f->nic.ops->tx(&f->nic, 0, &pkt))
			break;
	}
	assert_int_equal(queued, IXGBE_TX_RING_SIZE - 1);
	assert_int_equal(f->nic.stats[0].ring_full, 1);
	assert_int_equal(ixgbe_model_wire_count(f->m), 0);
	f->nic.ops->commit(&f->nic, 0);
	assert_int_equal(doorbells(f, 0), before + 1);
	assert_int_equal(ixgbe_model_wire_count(f->m), queued);
	assert_true(tx_now(f, 0, &pkt));
	assert_int_equal(ixgbe_model_wire_count(f->m), queued + 1);
}

/* A paused NIC and many TSO frames: the ring fills by descriptors, not frames. */
static void test_tx_ring_full_tso(void **state)
{
	struct fixture *f = *state;
	struct tp_spec s = { .payload = 60000 };
	unsigned int sent = 0, per_frame;
	struct net_packet pkt;

	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	pkt = gso_packet(f, &s, 1460, VIRTIO_NET_HDR_GSO_TCPV4);
	per_frame = (pkt.len + IXGBE_BUF_SIZE - 1) / IXGBE_BUF_SIZE + 1;
	ixgbe_model_set_tx_paused(f->m, true);
	while (tx_now(f, 0, &pkt))
		sent++;
	assert_int_equal(sent, (IXGBE_TX_RING_SIZE - 1) / per_frame);
	ixgbe_model_set_tx_paused(f->m, false);
	assert_int_equal(ixgbe_model_wire_count(f->m), sent * ((60000 + 1459) / 1460));
	assert_true(tx_now(f, 0, &pkt));
}

static void test_rx_no_descriptors(void **state)
{
	struct fixture *f = *state;
	const unsigned int total = 300, room = IXGBE_RX_RING_SIZE - 1;
	unsigned int got = 0, n;

	for (n = 0; n < total; n++) {
		uint32_t len = plain_frame(f->buf, mac_a, mac_peer, 100, n);

		ixgbe_model_receive(f->m, f->buf, len);
	}
	assert_int_equal(ixgbe_model_stats(f->m).rx_no_desc, total - room);
	/* The frames that found a descriptor, in order. */
	while ((n = f->nic.ops->rx_burst(&f->nic, 0, record_rx, &f->rx, 16)) > 0) {
		for (unsigned int k = 0; k < n; k++) {
			unsigned int i = (got + k) % RX_KEEP;
			uint32_t stamp;

			memcpy(&stamp, f->rx.frame[i] + ETH_HLEN, 4);
			assert_int_equal(stamp, got + k);
		}
		got += n;
	}
	assert_int_equal(got, room);
	assert_int_equal(f->nic.stats[0].rx_packets, room);
	assert_int_equal(f->nic.stats[0].rx_drops, total - room);
	/* And the ring is whole again. */
	for (n = 0; n < room; n++) {
		uint32_t len = plain_frame(f->buf, mac_a, mac_peer, 100, 1000 + n);

		assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	}
	assert_int_equal(rx_all(f, 0), room);
	assert_int_equal(f->nic.stats[0].rx_drops, total - room);
	/* The other queue never lost a frame. */
	assert_int_equal(f->nic.stats[1].rx_drops, 0);
}

static void test_rx_budget(void **state)
{
	struct fixture *f = *state;

	for (uint32_t n = 0; n < 10; n++) {
		uint32_t len = plain_frame(f->buf, mac_b, mac_peer, 70, n);

		ixgbe_model_receive(f->m, f->buf, len);
	}
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 1, record_rx, &f->rx, 4), 4);
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 1, record_rx, &f->rx, 4), 4);
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 1, record_rx, &f->rx, 4), 2);
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 1, record_rx, &f->rx, 4), 0);
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, QUEUES, record_rx, &f->rx, 4), 0);
}

/* --- write-backs that lie ------------------------------------------------------- */

static void test_rx_hostile_writeback(void **state)
{
	struct fixture *f = *state;
	static const uint32_t lies[] = { IXGBE_BUF_SIZE + 1, 4000, 65535, 0, 5 };
	struct ixgbe_model_faults fault = { .rx_len_set = true };
	uint32_t len;

	for (unsigned int i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		fault.rx_len = lies[i];
		ixgbe_model_set_faults(f->m, &fault);
		len = plain_frame(f->buf, mac_a, mac_peer, 100, i);
		assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
		assert_int_equal(rx_all(f, 0), 0);
	}
	/* A MAC error reported. */
	ixgbe_model_set_faults(f->m, &(struct ixgbe_model_faults){ .rx_errors = IXGBE_RXWB_ERR_RXE });
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	assert_int_equal(rx_all(f, 0), 0);
	/* Exactly the buffer is still a frame. */
	fault.rx_len = IXGBE_BUF_SIZE;
	ixgbe_model_set_faults(f->m, &fault);
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	assert_int_equal(rx_all(f, 0), 1);
	assert_int_equal(f->rx.max_len, IXGBE_BUF_SIZE);

	assert_int_equal(f->nic.stats[0].rx_drops, 6);
	assert_int_equal(f->nic.stats[0].rx_packets, 1);
	/* The ring goes on. */
	len = plain_frame(f->buf, mac_a, mac_peer, 1514, 77);
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	assert_int_equal(rx_all(f, 0), 1);
	assert_memory_equal(f->rx.frame[1], f->buf, len);
}

/* A frame over several descriptors (the NIC told to take jumbo frames) is dropped whole. */
static void test_rx_spanning_frame_dropped(void **state)
{
	struct fixture *f = *state;
	uint32_t len;

	nic_write(&f->nic, IXGBE_HLREG0, nic_read(&f->nic, IXGBE_HLREG0) | IXGBE_HLREG0_JUMBOEN);
	nic_write(&f->nic, IXGBE_MAXFRS, 9018u << IXGBE_MAXFRS_MFS_SHIFT);
	for (uint32_t n = 0; n < 2 * IXGBE_RX_RING_SIZE; n++) {
		len = plain_frame(f->buf, mac_a, mac_peer, 5000, n);
		assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
		len = plain_frame(f->buf, mac_a, mac_peer, 600, n);
		assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
		/* Three descriptors and one: drained as they come, across the wrap. */
		assert_int_equal(rx_all(f, 0), 1);
		assert_int_equal(f->rx.len[(f->rx.count - 1) % RX_KEEP], 600);
	}
	assert_int_equal(f->nic.stats[0].rx_drops, 2 * IXGBE_RX_RING_SIZE);
	assert_int_equal(f->rx.max_len, 600);
}

/* Garbage in descriptors the NIC never wrote: DD with any length, no EOP. */
static void test_rx_garbage_ring(void **state)
{
	struct fixture *f = *state;
	unsigned int hwq = IXGBE_HW_QUEUE(1);
	uint64_t base = reg_pair(f, IXGBE_RDBAL(hwq), IXGBE_RDBAH(hwq));
	uint8_t *ring = ixgbe_model_dma(f->m, base, IXGBE_RX_RING_SIZE * 16);
	uint32_t len;

	assert_non_null(ring);
	for (unsigned int i = 0; i < IXGBE_RX_RING_SIZE; i++) {
		uint64_t wb = 0xffffffffffffffffull;

		if (i % 3 == 0)
			wb &= ~(uint64_t)IXGBE_RXWB_STAT_EOP;
		memcpy(ring + 16 * i + 8, &wb, 8);
	}
	/* One lap at most, nothing delivered, the ring re-armed. */
	assert_int_equal(f->nic.ops->rx_burst(&f->nic, 1, record_rx, &f->rx, 1000), 0);
	assert_int_equal(f->rx.count, 0);
	assert_true(f->nic.stats[1].rx_drops > 0);
	/*
	 * The last garbage descriptor had no EOP, so the next real one ends
	 * that "frame" and is dropped with it; the one after is delivered.
	 */
	for (uint32_t n = 0; n < 2; n++) {
		len = plain_frame(f->buf, mac_b, mac_peer, 200, n);
		assert_int_equal(ixgbe_model_receive(f->m, f->buf, len), 1);
	}
	assert_int_equal(rx_all(f, 1), 1);
	assert_memory_equal(f->rx.frame[0], f->buf, len);
}

/* --- counters ---------------------------------------------------------------------- */

static void test_hw_stats(void **state)
{
	struct fixture *f = *state;
	struct ixgbe_hw_stats hw;
	uint32_t len = plain_frame(f->buf, mac_a, mac_peer, 100, 0);
	struct net_packet pkt;

	for (unsigned int i = 0; i < 5; i++)
		ixgbe_model_receive(f->m, f->buf, len);
	pkt = one_segment(f->buf, len);
	assert_true(tx_now(f, 0, &pkt));
	ixgbe_read_hw_stats(&f->nic, &hw);
	assert_int_equal(hw.rx_good, 5);
	assert_int_equal(hw.rx_good_bytes, 5 * (len + 4));
	assert_int_equal(hw.tx_good, 1);
	assert_int_equal(hw.tx_good_bytes, len + 4);
	ixgbe_read_hw_stats(&f->nic, &hw);
	assert_int_equal(hw.rx_good, 5);
	assert_int_equal(rx_all(f, 0), 5);
}

static void test_pci_ids(void **state)
{
	(void)state;
	assert_true(ixgbe_pci_supported(0x8086, 0x10fb));
	assert_true(ixgbe_pci_supported(0x8086, 0x1557));
	assert_false(ixgbe_pci_supported(0x8086, 0x10ed));	/* the VF */
	assert_false(ixgbe_pci_supported(0x1af4, 0x10fb));
	for (unsigned int i = 0; i < ixgbe_pci_id_count; i++)
		assert_true(ixgbe_pci_supported(IXGBE_VENDOR_INTEL, ixgbe_pci_ids[i].device));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest init[] = {
		T(test_init),
		T(test_queue_memory),
		T(test_init_again),
		cmocka_unit_test(test_init_bad_queues),
		cmocka_unit_test(test_init_out_of_memory),
	};
	const struct CMUnitTest data[] = {
		T(test_thousand_tx),
		T(test_thousand_rx),
		T(test_rx_budget),
		T(test_tx_short_padded),
		T(test_hw_stats),
		cmocka_unit_test(test_pci_ids),
	};
	const struct CMUnitTest offload[] = {
		T(test_tso_ipv4),
		T(test_tso_ipv6),
		T(test_tso_vlan),
		T(test_gso_refused),
		T(test_tx_csum_offload),
		T(test_tx_csum_software),
		T(test_tx_malformed),
		T(test_rx_csum),
	};
	const struct CMUnitTest pools[] = {
		T(test_steering),
		T(test_add_mac_checks),
	};
	const struct CMUnitTest trouble[] = {
		T(test_link_down_up),
		T(test_tx_ring_full),
		T(test_tx_ring_full_tso),
		T(test_tx_one_doorbell_per_batch),
		T(test_tx_full_burst_commits_once),
		T(test_rx_no_descriptors),
		T(test_rx_hostile_writeback),
		T(test_rx_spanning_frame_dropped),
		T(test_rx_garbage_ring),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("ixgbe init", init, NULL, NULL);
	failed += cmocka_run_group_tests_name("ixgbe data path", data, NULL, NULL);
	failed += cmocka_run_group_tests_name("ixgbe offloads", offload, NULL, NULL);
	failed += cmocka_run_group_tests_name("ixgbe pools", pools, NULL, NULL);
	failed += cmocka_run_group_tests_name("ixgbe link, full rings, bad write-backs", trouble,
					      NULL, NULL);
	return failed ? 1 : 0;
}
