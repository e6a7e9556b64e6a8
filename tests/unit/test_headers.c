/* SPDX-License-Identifier: MIT */
/*
 * test_headers.c - unit tests for hv/net/headers.c: where the parser finds
 * the headers of TCP and UDP over IPv4 (with options) and IPv6, behind no,
 * one, two and three VLAN tags; IPv6 extension headers walked (hop-by-hop,
 * routing, destination options, authentication, an atomic fragment) up to
 * the limit; IPv4 and IPv6 fragments; malformed version, IHL and TCP data
 * offset; and every frame cut at every length, read from a buffer of
 * exactly that size, never claiming a header past the cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <linux/in.h>
#include <linux/in6.h>

#include "net/headers.h"
#include "tests/unit/support/test_packets.h"

#define FRAME_MAX	512
#define IPV6_L4		(ETH_HLEN + 40)

static uint8_t frame[FRAME_MAX];

/* An IPv6 extension header to insert: its type and length in bytes. */
struct ext {
	uint8_t type;
	uint32_t len;
	uint16_t frag;		/* IPPROTO_FRAGMENT: offset and M flag, as on the wire */
};

static struct tp_spec spec(bool ipv6, bool udp)
{
	struct tp_spec s = { .ipv6 = ipv6, .udp = udp, .payload = 64, .seed = 5,
			     .tcp_flags = TP_TCP_ACK };

	s.dst[0] = 0x52;
	s.src[0] = 0x52;
	s.src[5] = 1;
	return s;
}

/*
 * Builds an IPv6 frame of @s (no tag) with @n extension headers between the
 * IPv6 header and the L4 header; returns its length.
 */
static uint32_t build_ipv6_ext(const struct tp_spec *s, const struct ext *e, unsigned int n)
{
	uint32_t len = tp_build(frame, s), total = 0, off = IPV6_L4;
	uint8_t upper = frame[ETH_HLEN + 6];

	for (unsigned int i = 0; i < n; i++)
		total += e[i].len;
	assert_true(len + total <= FRAME_MAX);
	memmove(frame + IPV6_L4 + total, frame + IPV6_L4, len - IPV6_L4);
	frame[ETH_HLEN + 6] = n ? e[0].type : upper;
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *x = frame + off;

		memset(x, 0, e[i].len);
		x[0] = i + 1 < n ? e[i + 1].type : upper;
		if (e[i].type == IPPROTO_AH)
			x[1] = (uint8_t)(e[i].len / 4 - 2);
		else if (e[i].type == IPPROTO_FRAGMENT)
			net_put_be16(x + 2, e[i].frag);
		else
			x[1] = (uint8_t)(e[i].len / 8 - 1);
		off += e[i].len;
	}
	return len + total;
}

/* Parses the first @len bytes of frame from a buffer of exactly that size. */
static struct net_headers parse_cut(uint32_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct net_headers h;

	assert_non_null(copy);
	memcpy(copy, frame, len);
	net_headers_parse(&h, copy, len);
	free(copy);
	return h;
}

/*
 * Every cut of the frame: nothing claimed lies past it, and once a cut
 * holds enough to give the whole frame's answer, every longer one does.
 */
static void check_cuts(uint32_t len)
{
	struct net_headers whole = parse_cut(len);
	bool settled = false;

	for (uint32_t cut = 0; cut < len; cut++) {
		struct net_headers h = parse_cut(cut);
		bool same = h.ethertype == whole.ethertype && h.tags == whole.tags &&
			    h.l3_kind == whole.l3_kind && h.l3 == whole.l3 && h.l4 == whole.l4 &&
			    h.proto == whole.proto && h.ipv6_ext == whole.ipv6_ext &&
			    h.fragment == whole.fragment && h.l4_len == whole.l4_len;

		assert_true(h.l3 <= cut);
		assert_true(h.l4 + h.l4_len <= cut);
		if (h.l3_kind != NET_L3_NONE)
			assert_true(h.l4 == 0 || h.l4 >= h.l3 + 20);
		assert_true(same || !settled);
		settled = same;
	}
	assert_true(settled);
}

static void test_ipv4_and_ipv6(void **state)
{
	struct tp_spec s;
	struct net_headers h;
	uint32_t len;

	(void)state;
	s = spec(false, false);
	len = tp_build(frame, &s);
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.ethertype, ETH_P_IP);
	assert_int_equal(h.tags, 0);
	assert_int_equal(h.l3_kind, NET_L3_IPV4);
	assert_int_equal(h.l3, ETH_HLEN);
	assert_int_equal(h.l4, ETH_HLEN + 20);
	assert_int_equal(h.proto, IPPROTO_TCP);
	assert_int_equal(h.l4_len, 20);
	assert_false(h.fragment);
	check_cuts(len);

	s.ip_opts = 40;
	s.tcp_opts = 40;
	len = tp_build(frame, &s);
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l4, ETH_HLEN + 60);
	assert_int_equal(h.l4_len, 60);
	check_cuts(len);

	s = spec(true, true);
	len = tp_build(frame, &s);
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.ethertype, ETH_P_IPV6);
	assert_int_equal(h.l3_kind, NET_L3_IPV6);
	assert_int_equal(h.l4, IPV6_L4);
	assert_int_equal(h.proto, IPPROTO_UDP);
	assert_int_equal(h.l4_len, 8);
	assert_false(h.ipv6_ext);
	check_cuts(len);
}

/* One 802.1Q tag, an 802.1ad tag before it, and a third that is not walked. */
static void test_vlan_tags(void **state)
{
	struct tp_spec s = spec(false, true);
	struct net_headers h;
	uint32_t len;

	(void)state;
	s.vlan = true;
	len = tp_build(frame, &s);
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.tags, 1);
	assert_int_equal(h.l3, ETH_HLEN + 4);
	assert_int_equal(h.l4, ETH_HLEN + 4 + 20);
	check_cuts(len);

	/* A service tag in front: 802.1ad, then 802.1Q. */
	memmove(frame + 16, frame + 12, len - 12);
	net_put_be16(frame + 12, ETH_P_8021AD);
	net_put_be16(frame + 14, 7);
	len += 4;
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.tags, 2);
	assert_int_equal(h.ethertype, ETH_P_IP);
	assert_int_equal(h.l3, ETH_HLEN + 8);
	assert_int_equal(h.l4_len, 8);
	check_cuts(len);

	memmove(frame + 16, frame + 12, len - 12);
	net_put_be16(frame + 12, ETH_P_8021Q);
	len += 4;
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.tags, 2);
	assert_int_equal(h.ethertype, ETH_P_8021Q);
	assert_int_equal(h.l3_kind, NET_L3_NONE);
	assert_int_equal(h.l4, 0);
	check_cuts(len);
}

static void test_ipv6_extension_headers(void **state)
{
	const struct ext chain[] = {
		{ IPPROTO_HOPOPTS, 8, 0 },
		{ IPPROTO_DSTOPTS, 24, 0 },
		{ IPPROTO_ROUTING, 16, 0 },
		{ IPPROTO_FRAGMENT, 8, 0 },	/* atomic: offset 0, no M */
		{ IPPROTO_AH, 24, 0 },
		{ IPPROTO_DSTOPTS, 8, 0 },
	};
	struct tp_spec s = spec(true, false);
	struct net_headers h;
	uint32_t len = build_ipv6_ext(&s, chain, 6);

	(void)state;
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l3_kind, NET_L3_IPV6);
	assert_true(h.ipv6_ext);
	assert_false(h.fragment);
	assert_int_equal(h.l4, IPV6_L4 + 8 + 24 + 16 + 8 + 24 + 8);
	assert_int_equal(h.proto, IPPROTO_TCP);
	assert_int_equal(h.l4_len, 20);
	check_cuts(len);

	/* ICMPv6 behind a hop-by-hop header: found, no L4 length. */
	frame[IPV6_L4] = IPPROTO_ICMPV6;
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l4, IPV6_L4 + 8);
	assert_int_equal(h.proto, IPPROTO_ICMPV6);
	assert_int_equal(h.l4_len, 0);
}

/* A header claiming more than the frame holds ends the walk without an L4. */
static void test_ipv6_extension_too_long(void **state)
{
	const struct ext one = { IPPROTO_DSTOPTS, 8, 0 };
	struct tp_spec s = spec(true, false);
	struct net_headers h;
	uint32_t len;

	(void)state;
	s.payload = 0;
	len = build_ipv6_ext(&s, &one, 1);
	frame[IPV6_L4 + 1] = 255;		/* 2048 bytes */
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l3_kind, NET_L3_IPV6);
	assert_int_equal(h.l4, 0);
	assert_int_equal(h.l4_len, 0);
	check_cuts(len);
}

/* NET_IPV6_EXT_MAX extension headers are walked; one more is not. */
static void test_ipv6_extension_limit(void **state)
{
	struct ext many[NET_IPV6_EXT_MAX + 1];
	struct tp_spec s = spec(true, true);
	struct net_headers h;
	uint32_t len;

	(void)state;
	for (unsigned int i = 0; i <= NET_IPV6_EXT_MAX; i++)
		many[i] = (struct ext){ IPPROTO_DSTOPTS, 8, 0 };
	len = build_ipv6_ext(&s, many, NET_IPV6_EXT_MAX);
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l4, IPV6_L4 + 8 * NET_IPV6_EXT_MAX);
	assert_int_equal(h.l4_len, 8);

	len = build_ipv6_ext(&s, many, NET_IPV6_EXT_MAX + 1);
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l3_kind, NET_L3_IPV6);
	assert_int_equal(h.l4, 0);
	check_cuts(len);
}

/* Fragments: the protocol is known, the L4 header is not claimed. */
static void test_fragments(void **state)
{
	const uint16_t frags[] = { 0x0001, 0x00b9, 0x00b8 };	/* first, middle, last */
	struct tp_spec s = spec(false, false);
	struct net_headers h;
	uint32_t len = tp_build(frame, &s);

	(void)state;
	net_put_be16(frame + ETH_HLEN + 6, 0x2000);		/* More Fragments */
	net_headers_parse(&h, frame, len);
	assert_true(h.fragment);
	assert_int_equal(h.proto, IPPROTO_TCP);
	assert_int_equal(h.l4_len, 0);
	net_put_be16(frame + ETH_HLEN + 6, 0x4000 | 185);	/* Don't Fragment, an offset */
	net_headers_parse(&h, frame, len);
	assert_true(h.fragment);
	net_put_be16(frame + ETH_HLEN + 6, 0x4000);		/* Don't Fragment alone */
	net_headers_parse(&h, frame, len);
	assert_false(h.fragment);
	assert_int_equal(h.l4_len, 20);

	s = spec(true, true);
	for (unsigned int i = 0; i < sizeof(frags) / sizeof(frags[0]); i++) {
		const struct ext chain[] = { { IPPROTO_HOPOPTS, 8, 0 }, { IPPROTO_FRAGMENT, 8, frags[i] } };

		len = build_ipv6_ext(&s, chain, 2);
		net_headers_parse(&h, frame, len);
		assert_true(h.fragment);
		assert_int_equal(h.proto, IPPROTO_UDP);
		assert_int_equal(h.l4, 0);
		assert_int_equal(h.l4_len, 0);
		check_cuts(len);
	}
}

static void test_malformed(void **state)
{
	struct tp_spec s = spec(false, false);
	struct net_headers h;
	uint32_t len = tp_build(frame, &s);

	(void)state;
	frame[ETH_HLEN + 20 + 12] = 4 << 4;			/* TCP data offset 16 */
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l4, ETH_HLEN + 20);
	assert_int_equal(h.l4_len, 0);
	frame[ETH_HLEN] = 0x44;					/* IHL 16 */
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l3_kind, NET_L3_NONE);
	frame[ETH_HLEN] = 0x65;					/* version 6 as IPv4 */
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l3_kind, NET_L3_NONE);

	s = spec(true, false);
	len = tp_build(frame, &s);
	frame[ETH_HLEN] = 0x45;					/* version 4 as IPv6 */
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.l3_kind, NET_L3_NONE);

	net_put_be16(frame + 12, ETH_P_ARP);
	net_headers_parse(&h, frame, len);
	assert_int_equal(h.ethertype, ETH_P_ARP);
	assert_int_equal(h.l3, ETH_HLEN);
	assert_int_equal(h.l3_kind, NET_L3_NONE);
	assert_int_equal(h.l4, 0);
}

static void test_byte_order(void **state)
{
	uint8_t b[4];

	(void)state;
	net_put_be32(b, 0x01020304);
	assert_int_equal(b[0], 1);
	assert_int_equal(b[3], 4);
	assert_int_equal(net_get_be32(b), 0x01020304);
	assert_int_equal(net_get_be16(b + 2), 0x0304);
	net_put_be16(b, 0xa1b2);
	assert_int_equal(b[0], 0xa1);
	assert_int_equal(net_get_be16(b), 0xa1b2);
}

static void test_mac(void **state)
{
	const uint8_t unicast[ETH_ALEN] = { 0x52, 0x54, 0, 0, 0, 1 };
	const uint8_t group[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0, 0, 1 };
	const uint8_t bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const uint8_t zero[ETH_ALEN] = { 0 };
	const uint8_t last[ETH_ALEN] = { 0, 0, 0, 0, 0, 1 };

	(void)state;
	assert_false(net_mac_is_group(unicast));
	assert_true(net_mac_is_group(group));
	assert_true(net_mac_is_group(bcast));
	assert_true(net_mac_is_usable(unicast));
	assert_true(net_mac_is_usable(last));
	assert_false(net_mac_is_usable(group));
	assert_false(net_mac_is_usable(bcast));
	assert_false(net_mac_is_usable(zero));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_and_ipv6),
		cmocka_unit_test(test_vlan_tags),
		cmocka_unit_test(test_ipv6_extension_headers),
		cmocka_unit_test(test_ipv6_extension_too_long),
		cmocka_unit_test(test_ipv6_extension_limit),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_byte_order),
		cmocka_unit_test(test_mac),
	};

	return cmocka_run_group_tests_name("headers", tests, NULL, NULL);
}
