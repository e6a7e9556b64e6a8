/* SPDX-License-Identifier: MIT */
/*
 * test_sw_offload.c - unit tests for drivers/net/sw_offload.c: frames copied
 * as they are, partial checksums completed (0 stored as 0xffff) or left for
 * a NIC, TSO over IPv4 and IPv6 (with a VLAN tag, IP and TCP options, a
 * payload that is and is not a multiple of the MSS, scattered input) and USO
 * cut into frames whose lengths, IDs, sequence numbers, flags and checksums
 * are checked by the tests' own routines, and hostile headers refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "drivers/net/sw_offload.h"
#include "tests/unit/support/test_packets.h"

#define BUF_MAX		(NET_FRAME_MAX + 64)

static uint8_t frame[BUF_MAX];
static uint8_t out[BUF_MAX];
static uint8_t joined[BUF_MAX];

static const uint8_t mac_a[ETH_ALEN] = { 0x52, 0x54, 0x00, 0xaa, 0x00, 0x01 };
static const uint8_t mac_b[ETH_ALEN] = { 0x52, 0x54, 0x00, 0xbb, 0x00, 0x02 };

static struct tp_spec spec_tcp(bool ipv6, uint32_t payload)
{
	struct tp_spec s = { .ipv6 = ipv6, .seq = 0xfffff000u, .ip_id = 0xfffe,
			     .tcp_flags = TP_TCP_ACK, .payload = payload, .seed = 3 };

	memcpy(s.dst, mac_b, ETH_ALEN);
	memcpy(s.src, mac_a, ETH_ALEN);
	return s;
}

/* --- single frames --------------------------------------------------------- */

static void test_copy_as_is(void **state)
{
	struct tp_spec s = spec_tcp(false, 900);
	struct net_packet pkt;
	struct sw_offload so;
	uint32_t len = tp_build(frame, &s);

	(void)state;
	tp_packet_pieces(&pkt, frame, len, 20);
	assert_int_equal(sw_offload_begin(&so, &pkt), 0);
	assert_int_equal(so.kind, SW_OFFLOAD_COPY);
	assert_int_equal(so.frames, 1);
	assert_int_equal(so.max_frame, len);
	assert_int_equal(sw_offload_next(&so, out, len, 0), len);
	assert_memory_equal(out, frame, len);
	assert_int_equal(sw_offload_next(&so, out, len, 0), 0);
}

static void test_checksum_completed(void **state)
{
	static const bool v6[] = { false, true, false, true };
	static const bool udp[] = { false, false, true, true };

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		struct tp_spec s = spec_tcp(v6[i], 333);
		struct net_packet pkt;
		struct sw_offload so;
		uint32_t len;

		s.udp = udp[i];
		len = tp_build(frame, &s);
		tp_packet_pieces(&pkt, frame, len, 50);
		tp_make_partial(frame, len, &pkt.hdr, 0);
		assert_false(tp_checksums_ok(frame, len));
		assert_int_equal(sw_offload_begin(&so, &pkt), 0);
		assert_int_equal(so.kind, SW_OFFLOAD_CSUM);
		assert_int_equal(sw_offload_next(&so, out, sizeof(out), 0), len);
		assert_true(tp_checksums_ok(out, len));
		/* Only the checksum field changed. */
		assert_memory_equal(out, frame, pkt.hdr.csum_start + pkt.hdr.csum_offset);
		assert_memory_equal(out + pkt.hdr.csum_start + pkt.hdr.csum_offset + 2,
				    frame + pkt.hdr.csum_start + pkt.hdr.csum_offset + 2,
				    len - pkt.hdr.csum_start - pkt.hdr.csum_offset - 2);
	}
}

/* A sum that completes to 0 goes out as 0xffff, as UDP (RFC 768) needs. */
static void test_zero_checksum_sent_as_ffff(void **state)
{
	struct tp_spec s = spec_tcp(false, 64);
	struct net_packet pkt;
	struct sw_offload so;
	uint32_t len, field;
	uint16_t rest;

	(void)state;
	s.udp = true;
	len = tp_build(frame, &s);
	tp_packet(&pkt, frame, len);
	tp_make_partial(frame, len, &pkt.hdr, 0);
	field = pkt.hdr.csum_start + pkt.hdr.csum_offset;
	/* Choose the last payload word so that everything sums to 0xffff. */
	frame[len - 2] = frame[len - 1] = 0;
	rest = tp_sum(0, frame + pkt.hdr.csum_start, len - pkt.hdr.csum_start);
	frame[len - 2] = (uint8_t)((0xffff - rest) >> 8);
	frame[len - 1] = (uint8_t)(0xffff - rest);
	assert_int_equal(tp_sum(0, frame + pkt.hdr.csum_start, len - pkt.hdr.csum_start), 0xffff);
	assert_int_equal(sw_offload_begin(&so, &pkt), 0);
	assert_int_equal(sw_offload_next(&so, out, sizeof(out), 0), len);
	assert_int_equal(out[field], 0xff);
	assert_int_equal(out[field + 1], 0xff);
}

static void test_partial_left_alone(void **state)
{
	struct tp_spec s = spec_tcp(true, 500);
	struct net_packet pkt;
	struct sw_offload so;
	uint32_t len = tp_build(frame, &s);

	(void)state;
	tp_packet(&pkt, frame, len);
	tp_make_partial(frame, len, &pkt.hdr, 0);
	assert_int_equal(sw_offload_begin(&so, &pkt), 0);
	assert_int_equal(so.csum_start, pkt.hdr.csum_start);
	assert_int_equal(so.csum_offset, 16);
	assert_int_equal(sw_offload_next(&so, out, sizeof(out), SW_OFFLOAD_PARTIAL), len);
	assert_memory_equal(out, frame, len);
}

/* --- segmentation ---------------------------------------------------------- */

/*
 * Cuts the packet built from @s (its hdr asking for @gso) and checks every
 * frame against the original: lengths, IDs, sequence numbers, flags,
 * checksums (completed by the test from the pseudo-header when @partial),
 * and the payloads, which joined must be the original payload.
 */
static void check_segmentation(const struct tp_spec *s, uint16_t mss, uint32_t piece,
			       bool partial)
{
	struct net_packet pkt;
	struct sw_offload so;
	struct tp_frame orig, f;
	uint32_t len = tp_build(frame, s), joined_len = 0, frames;
	int got;

	assert_true(tp_parse(frame, len, &orig));
	tp_packet_pieces(&pkt, frame, len, piece);
	tp_make_partial(frame, len, &pkt.hdr, mss);
	assert_int_equal(sw_offload_begin(&so, &pkt), 0);
	frames = s->payload ? (s->payload + mss - 1) / mss : 1;
	assert_int_equal(so.frames, frames);
	assert_int_equal(so.hdr_len, orig.data);
	assert_int_equal(so.max_frame, orig.data + (s->payload < mss ? s->payload : mss));
	for (uint32_t i = 0; i < frames; i++) {
		uint32_t want = s->payload - i * mss < mss ? s->payload - i * mss : mss;

		got = sw_offload_next(&so, out, so.max_frame, partial ? SW_OFFLOAD_PARTIAL : 0);
		assert_int_equal(got, orig.data + want);
		assert_true(tp_parse(out, (uint32_t)got, &f));
		if (partial) {
			/* The field holds the frame's pseudo-header sum; complete it here. */
			uint32_t field = f.l4 + (f.udp ? 6 : 16);
			uint16_t sum = tp_sum(0, out + f.l4, (uint32_t)got - f.l4);

			out[field] = (uint8_t)(~sum >> 8);
			out[field + 1] = (uint8_t)~sum;
		}
		assert_true(tp_checksums_ok(out, (uint32_t)got));
		assert_memory_equal(out, frame, ETH_HLEN);
		assert_int_equal(f.data_len, want);
		if (!s->ipv6)
			assert_int_equal(f.ip_id, (uint16_t)(s->ip_id + i));
		if (!s->udp) {
			uint8_t flags = s->tcp_flags;

			assert_int_equal(f.seq, s->seq + i * mss);
			if (i + 1 < frames)
				flags &= (uint8_t)~(TP_TCP_FIN | TP_TCP_PSH);
			if (i > 0)
				flags &= (uint8_t)~TP_TCP_CWR;
			assert_int_equal(f.tcp_flags, flags);
		}
		memcpy(joined + joined_len, out + f.data, f.data_len);
		joined_len += f.data_len;
	}
	assert_int_equal(sw_offload_next(&so, out, sizeof(out), 0), 0);
	assert_int_equal(joined_len, s->payload);
	assert_memory_equal(joined, frame + orig.data, s->payload);
}

static void test_tso_ipv4_64k(void **state)
{
	struct tp_spec s = spec_tcp(false, 65535 - 20 - 20);

	(void)state;
	s.tcp_flags = TP_TCP_ACK | TP_TCP_PSH | TP_TCP_FIN | TP_TCP_CWR | TP_TCP_ECE;
	check_segmentation(&s, 1448, 1100, false);
	check_segmentation(&s, 1460, 65536, true);
}

static void test_tso_ipv6_64k(void **state)
{
	/* NET_FRAME_MAX bounds it: 14 + 40 + 20 + 65476 bytes. */
	struct tp_spec s = spec_tcp(true, NET_FRAME_MAX - 14 - 40 - 20);

	(void)state;
	s.tcp_flags = TP_TCP_ACK | TP_TCP_PSH | TP_TCP_CWR;
	check_segmentation(&s, 1440, 4096, false);
	check_segmentation(&s, 1440, 1100, true);
}

static void test_tso_multiple_of_mss(void **state)
{
	struct tp_spec s = spec_tcp(false, 45 * 1448);

	(void)state;
	s.tcp_flags = TP_TCP_ACK | TP_TCP_PSH | TP_TCP_FIN;
	check_segmentation(&s, 1448, 2048, false);
	s.payload = 1448;
	check_segmentation(&s, 1448, 2048, false);
}

static void test_tso_options_and_vlan(void **state)
{
	struct tp_spec s = spec_tcp(false, 20000);

	(void)state;
	s.vlan = true;
	s.ip_opts = 40;
	s.tcp_opts = 40;
	s.tcp_flags = TP_TCP_ACK | TP_TCP_PSH;
	check_segmentation(&s, 1000, 333, false);	/* segment edges inside headers */
	s.ipv6 = true;
	s.ip_opts = 0;
	check_segmentation(&s, 1000, 401, true);
}

static void test_tso_small(void **state)
{
	struct tp_spec s = spec_tcp(false, 0);

	(void)state;
	s.tcp_flags = TP_TCP_ACK | TP_TCP_FIN;
	check_segmentation(&s, 1448, 64, false);	/* headers only: one frame */
	s.payload = 100;
	check_segmentation(&s, 1448, 64, false);	/* shorter than the MSS */
	s.payload = 3;
	check_segmentation(&s, 1, 64, false);		/* an MSS of one byte */
}

static void test_uso(void **state)
{
	struct tp_spec s = spec_tcp(false, 30000);

	(void)state;
	s.udp = true;
	check_segmentation(&s, 1472, 512, false);
	check_segmentation(&s, 1472, 512, true);
	s.ipv6 = true;
	check_segmentation(&s, 1452, 700, false);
}

/* --- what is refused ------------------------------------------------------- */

/* A valid TSO packet over frame[], for the tests to spoil. */
static uint32_t good_tso(struct net_packet *pkt, bool ipv6)
{
	struct tp_spec s = spec_tcp(ipv6, 5000);
	uint32_t len = tp_build(frame, &s);

	tp_packet(pkt, frame, len);
	tp_make_partial(frame, len, &pkt->hdr, 1448);
	return len;
}

static void assert_refused(const struct net_packet *pkt)
{
	struct sw_offload so;

	assert_int_equal(sw_offload_begin(&so, pkt), -EINVAL);
}

static void test_hostile_headers(void **state)
{
	struct net_packet pkt;
	uint32_t len;

	(void)state;
	len = good_tso(&pkt, false);
	pkt.hdr.hdr_len = (uint16_t)(len + 1);
	assert_refused(&pkt);
	good_tso(&pkt, false);
	pkt.hdr.gso_size = 0;
	assert_refused(&pkt);
	good_tso(&pkt, false);
	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;	/* on an IPv4 frame */
	assert_refused(&pkt);
	good_tso(&pkt, true);
	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;	/* on an IPv6 frame */
	assert_refused(&pkt);
	good_tso(&pkt, false);
	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_UDP;	/* UFO: fragmentation */
	assert_refused(&pkt);
	good_tso(&pkt, false);
	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;	/* a TCP frame */
	assert_refused(&pkt);
	good_tso(&pkt, false);
	pkt.hdr.gso_type = 77;
	assert_refused(&pkt);
	good_tso(&pkt, false);
	pkt.hdr.csum_start += 4;			/* not the TCP header */
	assert_refused(&pkt);
	good_tso(&pkt, false);
	pkt.hdr.csum_offset = 6;
	assert_refused(&pkt);
	good_tso(&pkt, false);
	frame[ETH_HLEN + 6] = 0x20;			/* More Fragments */
	net_packet_snapshot(&pkt);
	assert_refused(&pkt);
	good_tso(&pkt, false);
	frame[ETH_HLEN + 20 + 12] = 0x40;		/* TCP data offset 4 words */
	assert_refused(&pkt);
	good_tso(&pkt, false);
	frame[ETH_HLEN] = 0x4f;				/* IHL 15: TCP header moves past */
	pkt.hdr.csum_start = ETH_HLEN + 60;
	pkt.len = ETH_HLEN + 60 + 10;			/* ...the frame's end */
	pkt.segment[0].len = pkt.len;
	pkt.hdr.hdr_len = 0;
	assert_refused(&pkt);
	good_tso(&pkt, true);
	frame[ETH_HLEN + 6] = 0;			/* IPv6 hop-by-hop header */
	assert_refused(&pkt);
	good_tso(&pkt, false);
	frame[12] = 0x88;				/* not IP at all */
	net_packet_snapshot(&pkt);
	assert_refused(&pkt);
}

static void test_hostile_checksum_and_lengths(void **state)
{
	struct net_packet pkt;
	struct sw_offload so;
	uint32_t len;

	(void)state;
	len = good_tso(&pkt, false);
	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	pkt.hdr.csum_start = (uint16_t)(len - 1);	/* field past the end */
	pkt.hdr.csum_offset = 0;
	assert_refused(&pkt);
	pkt.hdr.csum_start = 0xffff;
	pkt.hdr.csum_offset = 0xffff;
	assert_refused(&pkt);
	pkt.hdr.csum_start = 0;
	pkt.hdr.csum_offset = (uint16_t)(len - 2);	/* the very last two bytes: fine */
	assert_int_equal(sw_offload_begin(&so, &pkt), 0);
	pkt.hdr.flags = 0;
	pkt.hdr.gso_type = VIRTIO_NET_HDR_GSO_ECN;	/* ECN without TSO */
	assert_refused(&pkt);

	/* The length claims more than the segments hold. */
	len = good_tso(&pkt, false);
	pkt.segment[0].len = len - 1;
	assert_refused(&pkt);
	pkt.segment[0].len = len;
	pkt.len = 10;					/* no whole Ethernet header */
	assert_refused(&pkt);
	pkt.len = NET_FRAME_MAX + 1;
	assert_refused(&pkt);
	pkt.len = len;
	pkt.count = NET_PACKET_MAX_SEGMENTS + 1;
	assert_refused(&pkt);

	/* A caller buffer too small is refused, not overrun. */
	good_tso(&pkt, false);
	assert_int_equal(sw_offload_begin(&so, &pkt), 0);
	assert_int_equal(sw_offload_next(&so, out, so.max_frame - 1, 0), -EINVAL);

	/* ECN on UDP makes no sense. */
	{
		struct tp_spec s = spec_tcp(false, 3000);

		s.udp = true;
		len = tp_build(frame, &s);
		tp_packet(&pkt, frame, len);
		tp_make_partial(frame, len, &pkt.hdr, 1000);
		assert_int_equal(sw_offload_begin(&so, &pkt), 0);
		pkt.hdr.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
		assert_refused(&pkt);
	}
}

/* The headers are read once: a sender rewriting them mid-way changes nothing. */
static void test_headers_read_once(void **state)
{
	struct net_packet pkt;
	struct sw_offload so;
	struct tp_frame f;
	int got;

	(void)state;
	good_tso(&pkt, false);
	assert_int_equal(sw_offload_begin(&so, &pkt), 0);
	memset(frame + ETH_HLEN, 0xee, 40);		/* IP and TCP headers scribbled */
	for (uint32_t i = 0; i < so.frames; i++) {
		got = sw_offload_next(&so, out, sizeof(out), 0);
		assert_true(got > 0);
		assert_true(tp_parse(out, (uint32_t)got, &f));
		assert_true(tp_checksums_ok(out, (uint32_t)got));
	}
}

/* Sums of odd lengths and across calls agree with the tests' own. */
static void test_csum_helpers(void **state)
{
	uint32_t sum;

	(void)state;
	for (uint32_t i = 0; i < 1001; i++)
		frame[i] = (uint8_t)(i * 31 + 7);
	for (uint32_t len = 0; len < 1001; len += 37)
		assert_int_equal(sw_csum_fold(sw_csum_add(0, frame, len)), tp_sum(0, frame, len));
	sum = sw_csum_add(0, frame, 500);
	sum = sw_csum_add(sum, frame + 500, 501);
	assert_int_equal(sw_csum_fold(sum), tp_sum(0, frame, 1001));
	memset(frame, 0xff, 65536);
	assert_int_equal(sw_csum_fold(sw_csum_add(0xffffffffu, frame, 65536)), 0xffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_as_is),
		cmocka_unit_test(test_checksum_completed),
		cmocka_unit_test(test_zero_checksum_sent_as_ffff),
		cmocka_unit_test(test_partial_left_alone),
		cmocka_unit_test(test_tso_ipv4_64k),
		cmocka_unit_test(test_tso_ipv6_64k),
		cmocka_unit_test(test_tso_multiple_of_mss),
		cmocka_unit_test(test_tso_options_and_vlan),
		cmocka_unit_test(test_tso_small),
		cmocka_unit_test(test_uso),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_hostile_checksum_and_lengths),
		cmocka_unit_test(test_headers_read_once),
		cmocka_unit_test(test_csum_helpers),
	};

	return cmocka_run_group_tests_name("sw_offload", tests, NULL, NULL);
}
