/* SPDX-License-Identifier: MIT */
/*
 * test_ixgbe_bringup.c - the 82599 driver against what real hardware would
 * refuse, as the strict model (tests/models/ixgbe_model.c) enforces it:
 * TSO that leaves with IP and TCP checksums right (checked here by a
 * verifier of the test's own, not the model's code), the receive enable
 * erratum, relaxed ordering, pause frames, the
 * SFP+ bring-up for every supported device ID and module (NVM defaults
 * that leave the link disabled and the laser off, SW_FW_SYNC against the
 * firmware, a first attempt that misses, a module plugged in late) and a
 * link flap under load that hangs the transmit queues until the watchdog
 * starts them again.
 *
 * Each test checks the model's rules at the step it is about
 * (assert_no_new_errors()), and the fixture once more at the end.
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
#define BIG		70000
#define LINK_CHECK_US	100000		/* uplink.c reads the link every 100 ms */

static const uint8_t nic_mac[ETH_ALEN] = { 0x00, 0x1b, 0x21, 0x0a, 0x0b, 0x0c };
static const uint8_t mac_a[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_peer[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };

struct fixture {
	struct ixgbe_model *m;
	struct nic nic;
	struct ixgbe_model_frame wire;
	unsigned int rx_count;
	uint8_t buf[BIG];
	uint8_t stream[BIG];	/* a TSO frame's payload, put back together */
};

static void assert_no_new_errors(struct fixture *f, unsigned int before)
{
	unsigned int now = ixgbe_model_errors(f->m, NULL);

	if (now != before)
		fail_msg("%u new rule(s) broken, the last: %s", now - before,
			 ixgbe_model_last_error(f->m));
}

/* A model of @device with @module, and the driver initialised on it. */
static struct fixture *port_up(uint16_t device, enum ixgbe_model_module module)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->m = ixgbe_model_create(nic_mac, ARENA_BYTES);
	assert_non_null(f->m);
	ixgbe_model_set_port(f->m, device, module);
	f->nic.ops = &ixgbe_ops;
	f->nic.io = ixgbe_model_io(f->m);
	f->nic.queues = QUEUES;
	return f;
}

static void port_down(struct fixture *f)
{
	char first[200];
	unsigned int errors = ixgbe_model_finish(f->m, first, sizeof(first));

	free(f);
	if (errors)
		fail_msg("the driver broke %u rule(s) of the model, first: %s", errors, first);
}

/* Link checks as uplink.c makes them, 100 ms apart; true once the link is up. */
static bool link_within(struct fixture *f, unsigned int checks)
{
	for (unsigned int i = 0; i < checks; i++) {
		if (f->nic.ops->link(&f->nic))
			return true;
		ixgbe_model_advance(f->m, LINK_CHECK_US);
	}
	return f->nic.ops->link(&f->nic);
}

static int setup(void **state)
{
	struct fixture *f = port_up(0x10fb, IXGBE_MODULE_DAC);

	if (f->nic.ops->init(&f->nic) != 0 || !link_within(f, 10) ||
	    !f->nic.ops->add_mac(&f->nic, mac_a, 0) || !f->nic.ops->add_mac(&f->nic, mac_b, 1)) {
		ixgbe_model_destroy(f->m);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	port_down(*state);
	return 0;
}

static bool tx_now(struct fixture *f, unsigned int q, const struct net_packet *pkt)
{
	bool queued = f->nic.ops->tx(&f->nic, q, pkt);

	f->nic.ops->commit(&f->nic, q);
	return queued;
}

/* --- an independent checksum verifier (RFC 1071, RFC 791, RFC 793, RFC 8200) --- */

static uint32_t ck_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static bool ck_ok(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

static uint16_t ck_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* One TCP segment off the wire: what the checks found. */
struct ck_segment {
	bool ip_ok, tcp_ok, lengths_ok;
	uint32_t seq;
	const uint8_t *data;
	uint32_t data_len;
};

/*
 * Verifies an Ethernet frame carrying IPv4 or IPv6 TCP (one 802.1Q tag at
 * most): the IPv4 header checksum, the IP lengths against the frame's, and
 * the TCP checksum over the pseudo-header.
 */
static void ck_frame(const uint8_t *f, uint32_t len, struct ck_segment *out)
{
	uint32_t l3 = ETH_HLEN, l4, tcp_len, sum;
	uint16_t type = ck_be16(f + 12);

	memset(out, 0, sizeof(*out));
	if (type == 0x8100) {
		type = ck_be16(f + 16);
		l3 += 4;
	}
	if (type == 0x0800) {
		uint32_t ihl = (f[l3] & 0xfu) * 4u;

		out->ip_ok = ck_ok(ck_add(0, f + l3, ihl));
		out->lengths_ok = ck_be16(f + l3 + 2) == len - l3 && f[l3 + 9] == 6;
		l4 = l3 + ihl;
		tcp_len = len - l4;
		sum = ck_add(0, f + l3 + 12, 8);
	} else {
		assert_int_equal(type, 0x86dd);
		out->ip_ok = true;
		out->lengths_ok = ck_be16(f + l3 + 4) == len - l3 - 40 && f[l3 + 6] == 6;
		l4 = l3 + 40;
		tcp_len = len - l4;
		sum = ck_add(0, f + l3 + 8, 32);
	}
	sum += 6 + tcp_len;
	out->tcp_ok = ck_ok(ck_add(sum, f + l4, tcp_len));
	out->seq = (uint32_t)ck_be16(f + l4 + 4) << 16 | ck_be16(f + l4 + 6);
	out->data = f + l4 + (f[l4 + 12] >> 4) * 4u;
	out->data_len = (uint32_t)(f + len - out->data);
}

/* --- TSO: a 64 KiB segment round trip -------------------------------------------- */

/*
 * A guest's largest TCP segment, as virtio hands it (a full IPv4 header
 * checksum, the pseudo-header seed, NEEDS_CSUM), goes out as frames whose
 * checksums all verify and whose payloads, in sequence, are the guest's.
 */
static void round_trip(struct fixture *f, bool ipv6)
{
	struct tp_spec s = { .ipv6 = ipv6, .tcp_opts = 12, .seq = 0xffff8000u, .ip_id = 7,
			     .tcp_flags = TP_TCP_ACK | TP_TCP_PSH };
	unsigned int errors = ixgbe_model_errors(f->m, NULL);
	uint32_t len, mss = NET_MTU - (ipv6 ? 40 : 20) - 32, got = 0, frames = 0;
	struct net_packet pkt;
	struct tp_frame l;

	memcpy(s.dst, mac_peer, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	tp_layout(&s, &l);
	s.payload = NET_FRAME_MAX - l.data;
	if (!ipv6 && s.payload > 65535 - (l.data - l.l3))
		s.payload = 65535 - (l.data - l.l3);	/* the IPv4 total length */
	len = tp_build(f->buf, &s);
	memcpy(f->stream, f->buf + l.data, s.payload);
	tp_packet_pieces(&pkt, f->buf, len, 3000);
	tp_make_partial(f->buf, len, &pkt.hdr, 0);
	pkt.hdr.gso_type = ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
	pkt.hdr.gso_size = (uint16_t)mss;
	pkt.hdr.hdr_len = (uint16_t)l.data;
	if (!ipv6)
		assert_int_not_equal(ck_be16(f->buf + l.l3 + 10), 0);	/* the guest's own checksum */
	assert_true(pkt.len > 64000);

	assert_true(tx_now(f, 0, &pkt));
	assert_no_new_errors(f, errors);
	while (ixgbe_model_wire_pop(f->m, &f->wire)) {
		struct ck_segment seg;

		ck_frame(f->wire.data, f->wire.len, &seg);
		assert_true(seg.ip_ok);
		assert_true(seg.tcp_ok);
		assert_true(seg.lengths_ok);
		assert_int_equal(seg.seq, s.seq + got);
		assert_true(seg.data_len <= mss);
		assert_memory_equal(seg.data, f->stream + got, seg.data_len);
		got += seg.data_len;
		frames++;
	}
	assert_int_equal(got, s.payload);
	assert_int_equal(frames, (s.payload + mss - 1) / mss);
}

static void test_tso_round_trip_ipv4(void **state)
{
	round_trip(*state, false);
}

static void test_tso_round_trip_ipv6(void **state)
{
	round_trip(*state, true);
}

/* --- what the NIC must not be handed, or must be told ------------------------------ */

/* A second init with the link up enables receive the erratum's way. */
static void test_rx_enable_erratum(void **state)
{
	struct fixture *f = *state;
	unsigned int errors = ixgbe_model_errors(f->m, NULL);

	assert_true(f->nic.ops->link(&f->nic));
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	assert_no_new_errors(f, errors);
	assert_int_equal(ixgbe_model_peek(f->m, IXGBE_SECRXCTRL) & IXGBE_SECRXCTRL_RX_DIS, 0);
	assert_true(ixgbe_model_peek(f->m, IXGBE_RXCTRL) & IXGBE_RXCTRL_RXEN);
}

static void count_rx(void *ctx, struct net_packet *pkt)
{
	struct fixture *f = ctx;

	(void)pkt;
	f->rx_count++;
}

static unsigned int rx_all(struct fixture *f)
{
	unsigned int total = 0, n;

	for (unsigned int q = 0; q < QUEUES; q++)
		while ((n = f->nic.ops->rx_burst(&f->nic, q, count_rx, f, 32)) > 0)
			total += n;
	return total;
}

/*
 * Pause frames and other MAC control frames are the port's business: none
 * reaches a guest. Other multicast still does, to both pools.
 */
static void test_mac_control_filtered(void **state)
{
	static const uint8_t pause_dst[ETH_ALEN] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
	struct fixture *f = *state;

	memset(f->buf, 0, 64);
	memcpy(f->buf, pause_dst, ETH_ALEN);
	memcpy(f->buf + ETH_ALEN, mac_peer, ETH_ALEN);
	f->buf[12] = 0x88;
	f->buf[13] = 0x08;
	f->buf[15] = 0x01;	/* PAUSE */
	f->buf[16] = 0xff;	/* for a long time */
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, 60), 0);
	f->buf[14] = 0x01;	/* 0x0101: priority flow control, another MAC control frame */
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, 60), 0);
	assert_int_equal(rx_all(f), 0);
	f->buf[12] = 0x88;
	f->buf[13] = 0xb5;
	assert_int_equal(ixgbe_model_receive(f->m, f->buf, 60), QUEUES);
	assert_int_equal(rx_all(f), QUEUES);
}

/* Registers an NVM or a previous driver may have left otherwise. */
static void test_registers_set_explicitly(void **state)
{
	struct fixture *f = *state;
	uint32_t fctrl = ixgbe_model_peek(f->m, IXGBE_FCTRL);

	for (unsigned int q = 0; q < QUEUES; q++) {
		unsigned int hwq = IXGBE_HW_QUEUE(q);

		assert_int_equal(ixgbe_model_peek(f->m, IXGBE_DCA_RXCTRL(hwq)) &
				 (IXGBE_DCA_RXCTRL_DATA_WRO | IXGBE_DCA_RXCTRL_HEAD_WRO |
				  IXGBE_DCA_RXCTRL_BIT12), 0);
		assert_int_equal(ixgbe_model_peek(f->m, IXGBE_DCA_TXCTRL(hwq)) &
				 IXGBE_DCA_TXCTRL_DESC_WRO, 0);
	}
	assert_true(fctrl & IXGBE_FCTRL_DPF);
	assert_false(fctrl & IXGBE_FCTRL_PMCF);
	assert_int_equal(ixgbe_model_peek(f->m, IXGBE_PFDTXGSWC), 0);
	assert_int_equal(ixgbe_model_peek(f->m, IXGBE_AUTOC2) & IXGBE_AUTOC2_LINK_DISABLE_MASK, 0);
	assert_int_equal(ixgbe_model_peek(f->m, IXGBE_SW_FW_SYNC), 0);	/* given back */
}

/* --- link bring-up ------------------------------------------------------------------ */

/* Every module kind links at 10 Gb/s from the NVM's defaults, each with its own pins. */
static void test_link_modules(void **state)
{
	static const struct {
		enum ixgbe_model_module module;
		enum ixgbe_sfp sfp;
	} cases[] = {
		{ IXGBE_MODULE_DAC, IXGBE_SFP_DAC },
		{ IXGBE_MODULE_SR_INTEL, IXGBE_SFP_INTEL_DUAL_RATE },
		{ IXGBE_MODULE_SR_OTHER, IXGBE_SFP_SR_LR },
		{ IXGBE_MODULE_LR, IXGBE_SFP_SR_LR },
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fixture *f = port_up(0x10fb, cases[i].module);
		struct ixgbe_link_report rep;

		assert_int_equal(f->nic.ops->init(&f->nic), 0);
		assert_true(link_within(f, 1));
		assert_int_equal(f->nic.speed_mbps, 10000);
		ixgbe_link_report(&f->nic, &rep);
		assert_int_equal(rep.sfp, cases[i].sfp);
		assert_int_equal(rep.sfp_id, 0x03);
		assert_true(rep.links & IXGBE_LINKS_UP);
		assert_int_equal(rep.autoc & IXGBE_AUTOC_LMS_MASK, IXGBE_AUTOC_LMS_10G_SERIAL);
		assert_int_equal(rep.autoc2 & IXGBE_AUTOC2_PMA_PMD_MASK, IXGBE_AUTOC2_PMA_PMD_SFI);
		if (cases[i].module != IXGBE_MODULE_DAC)
			assert_int_equal(rep.esdp & (IXGBE_ESDP_SDP3_DIR | IXGBE_ESDP_SDP3),
					 IXGBE_ESDP_SDP3_DIR);	/* laser on */
		if (cases[i].module == IXGBE_MODULE_SR_INTEL)
			assert_true(rep.esdp & IXGBE_ESDP_SDP5);	/* 10 Gb/s rate */
		port_down(f);
	}
}

/* Every device ID the driver claims comes up; the parts it cannot bring up are not claimed. */
static void test_link_device_ids(void **state)
{
	static const uint16_t not_sfp[] = { 0x10f7, 0x10f8, 0x10f9, 0x10fc, 0x1514, 0x1517,
					    0x151c, 0x152a };

	(void)state;
	for (unsigned int i = 0; i < ixgbe_pci_id_count; i++) {
		struct fixture *f = port_up(ixgbe_pci_ids[i].device, IXGBE_MODULE_SR_INTEL);

		assert_int_equal(f->nic.ops->init(&f->nic), 0);
		assert_true(link_within(f, 1));
		port_down(f);
	}
	for (unsigned int i = 0; i < sizeof(not_sfp) / sizeof(not_sfp[0]); i++)
		assert_false(ixgbe_pci_supported(IXGBE_VENDOR_INTEL, not_sfp[i]));
}

/* A first auto-negotiation that never completes: retried until the link is up. */
static void test_link_first_attempt_misses(void **state)
{
	struct fixture *f = port_up(0x10fb, IXGBE_MODULE_SR_OTHER);
	struct ixgbe_hw_stats hw;
	uint64_t retries;

	(void)state;
	ixgbe_model_set_link_misses(f->m, 2);
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	assert_false(link_within(f, 3));
	assert_true(link_within(f, 30));
	ixgbe_read_hw_stats(&f->nic, &hw);
	assert_true(hw.link_retries >= 1);
	retries = hw.link_retries;
	/* Up: no more retries. */
	for (unsigned int i = 0; i < 50; i++)
		assert_true(link_within(f, 0));
	ixgbe_read_hw_stats(&f->nic, &hw);
	assert_int_equal(hw.link_retries, retries);
	port_down(f);
}

/* No module at init: the port comes up once one is plugged in. */
static void test_link_module_late(void **state)
{
	struct fixture *f = port_up(0x10fb, IXGBE_MODULE_NONE);
	struct ixgbe_link_report rep;

	(void)state;
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	assert_false(link_within(f, 20));
	ixgbe_link_report(&f->nic, &rep);
	assert_int_equal(rep.sfp, IXGBE_SFP_NONE);
	assert_string_equal(rep.sfp_name, "none");
	ixgbe_model_set_port(f->m, 0x10fb, IXGBE_MODULE_LR);
	assert_true(link_within(f, 100));
	ixgbe_link_report(&f->nic, &rep);
	assert_int_equal(rep.sfp, IXGBE_SFP_SR_LR);
	port_down(f);
}

/* Management firmware holds the MAC's registers at init: the driver waits its turn. */
static void test_link_firmware_busy(void **state)
{
	struct fixture *f = port_up(0x10fb, IXGBE_MODULE_DAC);

	(void)state;
	ixgbe_model_set_fw_busy(f->m, 30000);
	assert_int_equal(f->nic.ops->init(&f->nic), 0);
	assert_true(link_within(f, 1));
	port_down(f);
}

/* --- a link flap under load ---------------------------------------------------------- */

#define FLAP_ROUNDS	40
#define FLAP_BURST	8

/*
 * Frames stamped with their queue and number go out on both queue pairs,
 * a burst a round, a link check a round; the cable is pulled in round
 * 10 with that round's bursts still in the queues, and is back in round
 * 15. The queues hang with what they held; the watchdog has each started
 * again, which loses the frames queued from the pull until then and no
 * others.
 */
static void test_link_flap_under_load(void **state)
{
	struct fixture *f = *state;
	static bool accepted[QUEUES][FLAP_ROUNDS * FLAP_BURST];
	static bool seen[QUEUES][FLAP_ROUNDS * FLAP_BURST];
	unsigned int lost = 0;
	struct ixgbe_hw_stats hw;

	memset(accepted, 0, sizeof(accepted));
	memset(seen, 0, sizeof(seen));
	for (unsigned int round = 0; round < FLAP_ROUNDS; round++) {
		/* In flight: queued and committed, not yet sent. */
		if (round == 10)
			ixgbe_model_set_tx_paused(f->m, true);
		if (round == 15)
			ixgbe_model_set_cable(f->m, true);
		for (unsigned int q = 0; q < QUEUES; q++) {
			for (unsigned int k = 0; k < FLAP_BURST; k++) {
				uint32_t n = round * FLAP_BURST + k;
				struct net_packet pkt;

				memcpy(f->buf, mac_peer, ETH_ALEN);
				memcpy(f->buf + ETH_ALEN, q ? mac_b : mac_a, ETH_ALEN);
				f->buf[12] = 0x88;
				f->buf[13] = 0xb5;
				memcpy(f->buf + ETH_HLEN, &n, 4);
				f->buf[ETH_HLEN + 4] = (uint8_t)q;
				memset(f->buf + ETH_HLEN + 5, 0x3c, 400);
				tp_packet(&pkt, f->buf, 420);
				accepted[q][n] = f->nic.ops->tx(&f->nic, q, &pkt);
			}
			f->nic.ops->commit(&f->nic, q);
		}
		if (round == 10) {
			ixgbe_model_set_cable(f->m, false);
			ixgbe_model_set_tx_paused(f->m, false);
		}
		ixgbe_model_advance(f->m, LINK_CHECK_US);
		(void)f->nic.ops->link(&f->nic);
		while (ixgbe_model_wire_pop(f->m, &f->wire)) {
			uint32_t n;

			memcpy(&n, f->wire.data + ETH_HLEN, 4);
			assert_true(n < FLAP_ROUNDS * FLAP_BURST);
			seen[f->wire.data[ETH_HLEN + 4]][n] = true;
		}
	}
	assert_true(f->nic.link_up);
	for (unsigned int q = 0; q < QUEUES; q++) {
		for (unsigned int n = 0; n < FLAP_ROUNDS * FLAP_BURST; n++) {
			if (!accepted[q][n] || seen[q][n])
				continue;
			/* Only frames queued while the link was down or the queue hung. */
			assert_true(n >= 10 * FLAP_BURST && n < 20 * FLAP_BURST);
			lost++;
		}
		/* Before the pull and well after: every frame. */
		for (unsigned int n = 0; n < 10 * FLAP_BURST; n++)
			assert_true(seen[q][n]);
		for (unsigned int n = 25 * FLAP_BURST; n < FLAP_ROUNDS * FLAP_BURST; n++)
			assert_true(accepted[q][n] && seen[q][n]);
	}
	assert_true(lost >= QUEUES * FLAP_BURST);
	ixgbe_read_hw_stats(&f->nic, &hw);
	assert_int_equal(hw.tx_hang_resets, QUEUES);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_tso_round_trip_ipv4),
		T(test_tso_round_trip_ipv6),
		T(test_rx_enable_erratum),
		T(test_mac_control_filtered),
		T(test_registers_set_explicitly),
		cmocka_unit_test(test_link_modules),
		cmocka_unit_test(test_link_device_ids),
		cmocka_unit_test(test_link_first_attempt_misses),
		cmocka_unit_test(test_link_module_late),
		cmocka_unit_test(test_link_firmware_busy),
		T(test_link_flap_under_load),
	};
#undef T

	return cmocka_run_group_tests_name("ixgbe on first contact", tests, NULL, NULL) ? 1 : 0;
}
