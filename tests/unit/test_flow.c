/* SPDX-License-Identifier: MIT */
/*
 * test_flow.c - unit tests for hv/net/flow.c: every frame of a flow gets
 * one hash, wherever its bytes lie and whatever its payload; distinct flows
 * spread over the low bits a queue number is taken from; a reply hashes as
 * its request does; ports count behind IPv6 extension headers, and every
 * IPv4 or IPv6 fragment of a datagram hashes alike; frames that are not IP,
 * and IP headers cut short, hash to 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/flow.h"
#include "tests/unit/support/test_packets.h"

#define FLOWS	64

static uint8_t frame[2048];

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Builds spec's frame with source port sport and returns its hash. */
static uint32_t hash_of(const struct tp_spec *spec, uint16_t sport, uint32_t piece)
{
	struct net_packet pkt;
	struct tp_frame f;
	uint32_t len = tp_build(frame, spec);

	tp_layout(spec, &f);
	put16(frame + f.l4, sport);
	if (piece)
		tp_packet_pieces(&pkt, frame, len, piece);
	else
		tp_packet(&pkt, frame, len);
	return net_flow_hash(&pkt);
}

/*
 * One flow, any payload, any cut into segments (64 segments of 3 bytes
 * still reach past the ports): one hash.
 */
static void test_flow_stable(void **state)
{
	const struct tp_spec kinds[] = {
		{ .payload = 100 },
		{ .udp = true, .payload = 100 },
		{ .ipv6 = true, .payload = 100 },
		{ .ipv6 = true, .udp = true, .payload = 100 },
		{ .vlan = true, .payload = 100 },
		{ .ip_opts = 40, .payload = 100 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct tp_spec spec = kinds[k];
		uint32_t h = hash_of(&spec, 40000, 0);

		assert_int_not_equal(h, 0);
		spec.seq = 123456;
		spec.seed = 7;
		spec.payload = 1000;
		spec.tcp_flags = TP_TCP_ACK | TP_TCP_PSH;
		assert_int_equal(hash_of(&spec, 40000, 0), h);
		assert_int_equal(hash_of(&spec, 40000, 7), h);
		assert_int_equal(hash_of(&spec, 40000, 3), h);
	}
}

/*
 * Flows that differ only in their source port spread over both halves, and
 * over all four quarters, of the hash's low bits.
 */
static void test_flow_spread(void **state)
{
	const struct tp_spec kinds[] = {
		{ .payload = 10 },
		{ .udp = true, .payload = 10 },
		{ .ipv6 = true, .payload = 10 },
		{ .ipv6 = true, .udp = true, .payload = 10 },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		unsigned int quarter[4] = { 0 };

		for (uint16_t i = 0; i < FLOWS; i++)
			quarter[hash_of(&kinds[k], (uint16_t)(40000 + i), 0) % 4]++;
		for (unsigned int q = 0; q < 4; q++)
			assert_true(quarter[q] >= FLOWS / 8);
	}
}

/* Addresses and the destination port count too. */
static void test_flow_fields(void **state)
{
	const struct tp_spec spec = { .payload = 10 };
	struct net_packet pkt;
	struct tp_frame f;
	uint32_t len, h;

	(void)state;
	h = hash_of(&spec, 40000, 0);
	tp_layout(&spec, &f);
	len = tp_build(frame, &spec);
	put16(frame + f.l4, 40000);
	frame[f.l3 + 15] ^= 1;		/* source address */
	tp_packet(&pkt, frame, len);
	assert_int_not_equal(net_flow_hash(&pkt), h);
	frame[f.l3 + 15] ^= 1;
	frame[f.l3 + 19] ^= 1;		/* destination address */
	tp_packet(&pkt, frame, len);
	assert_int_not_equal(net_flow_hash(&pkt), h);
	frame[f.l3 + 19] ^= 1;
	put16(frame + f.l4 + 2, 5002);	/* destination port */
	tp_packet(&pkt, frame, len);
	assert_int_not_equal(net_flow_hash(&pkt), h);
	put16(frame + f.l4 + 2, 5001);
	tp_packet(&pkt, frame, len);
	assert_int_equal(net_flow_hash(&pkt), h);
}

/* Swaps n bytes at a and b. */
static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	uint8_t tmp[16];

	memcpy(tmp, a, n);
	memcpy(a, b, n);
	memcpy(b, tmp, n);
}

/*
 * A reply, its addresses and ports swapped, hashes as its request does;
 * swapping the ports alone is another flow.
 */
static void test_flow_symmetric(void **state)
{
	const struct tp_spec kinds[] = {
		{ .payload = 10 },
		{ .udp = true, .payload = 10 },
		{ .ipv6 = true, .payload = 10 },
		{ .ipv6 = true, .udp = true, .payload = 10 },
		{ .vlan = true, .payload = 10 },
		{ .ip_opts = 8, .payload = 10 },
	};
	struct net_packet pkt;
	struct tp_frame f;

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		uint32_t len = tp_build(frame, &kinds[k]), alen = kinds[k].ipv6 ? 16 : 4, h;
		uint8_t *src;

		tp_layout(&kinds[k], &f);
		src = frame + f.l3 + (kinds[k].ipv6 ? 8 : 12);
		tp_packet(&pkt, frame, len);
		h = net_flow_hash(&pkt);
		swap_bytes(frame + f.l4, frame + f.l4 + 2, 2);
		tp_packet(&pkt, frame, len);
		assert_int_not_equal(net_flow_hash(&pkt), h);
		swap_bytes(src, src + alen, alen);
		tp_packet(&pkt, frame, len);
		assert_int_equal(net_flow_hash(&pkt), h);
		swap_bytes(frame + f.l4, frame + f.l4 + 2, 2);
		tp_packet(&pkt, frame, len);
		assert_int_not_equal(net_flow_hash(&pkt), h);
	}
}

/* Every fragment of a datagram goes where the others go: no ports. */
static void test_flow_ipv4_fragments(void **state)
{
	const struct tp_spec spec = { .udp = true, .payload = 200 };
	struct net_packet pkt;
	struct tp_frame f;
	uint32_t len, first, later;

	(void)state;
	tp_layout(&spec, &f);
	len = tp_build(frame, &spec);
	put16(frame + f.l3 + 6, 0x2000);	/* More Fragments, offset 0 */
	tp_packet(&pkt, frame, len);
	first = net_flow_hash(&pkt);
	put16(frame + f.l3 + 6, 0x0010);	/* the last, at 128 bytes */
	memset(frame + f.l4, 0x55, 4);		/* payload where ports were */
	tp_packet(&pkt, frame, len);
	later = net_flow_hash(&pkt);
	assert_int_not_equal(first, 0);
	assert_int_equal(first, later);
}

/* An IPv6 next header other than TCP or UDP: addresses alone. */
static void test_flow_ipv6_other(void **state)
{
	const struct tp_spec spec = { .ipv6 = true, .udp = true, .payload = 20 };
	struct net_packet pkt;
	struct tp_frame f;
	uint32_t len, h;

	(void)state;
	tp_layout(&spec, &f);
	len = tp_build(frame, &spec);
	frame[f.l3 + 6] = 58;			/* ICMPv6 */
	tp_packet(&pkt, frame, len);
	h = net_flow_hash(&pkt);
	assert_int_not_equal(h, 0);
	put16(frame + f.l4, 1);
	tp_packet(&pkt, frame, len);
	assert_int_equal(net_flow_hash(&pkt), h);
}

/*
 * Puts an 8-byte IPv6 extension header of @type in front of a built frame's
 * L4 header; its fragment field (a fragment header's) is @frag.
 */
static uint32_t add_ipv6_ext(const struct tp_frame *f, uint8_t type, uint16_t frag)
{
	memmove(frame + f->l4 + 8, frame + f->l4, f->len - f->l4);
	memset(frame + f->l4, 0, 8);
	frame[f->l4] = frame[f->l3 + 6];
	put16(frame + f->l4 + 2, frag);
	frame[f->l3 + 6] = type;
	return f->len + 8;
}

/*
 * Behind an IPv6 extension header the ports still count; every fragment of
 * an IPv6 datagram, the first included, goes where the others go.
 */
static void test_flow_ipv6_extensions(void **state)
{
	const struct tp_spec spec = { .ipv6 = true, .udp = true, .payload = 200 };
	struct net_packet pkt;
	struct tp_frame f;
	uint32_t len, h, first;

	(void)state;
	tp_layout(&spec, &f);
	tp_build(frame, &spec);
	len = add_ipv6_ext(&f, 0, 0);		/* hop-by-hop options */
	tp_packet(&pkt, frame, len);
	h = net_flow_hash(&pkt);
	assert_int_not_equal(h, 0);
	put16(frame + f.l4 + 8, 4242);		/* another source port */
	tp_packet(&pkt, frame, len);
	assert_int_not_equal(net_flow_hash(&pkt), h);

	tp_build(frame, &spec);
	len = add_ipv6_ext(&f, 44, 0x0001);	/* the first fragment */
	tp_packet(&pkt, frame, len);
	first = net_flow_hash(&pkt);
	assert_int_not_equal(first, 0);
	put16(frame + f.l4 + 2, 0x0010);	/* the last, at 16 bytes */
	memset(frame + f.l4 + 8, 0x55, 4);	/* payload where ports were */
	tp_packet(&pkt, frame, len);
	assert_int_equal(net_flow_hash(&pkt), first);
}

/* Not IP, not the IP version its type says, or cut short: 0. */
static void test_flow_not_ip(void **state)
{
	const struct tp_spec v4 = { .payload = 10 }, v6 = { .ipv6 = true, .payload = 10 };
	struct net_packet pkt;
	uint32_t len;

	(void)state;
	len = tp_build(frame, &v4);
	put16(frame + 12, 0x0806);		/* ARP */
	tp_packet(&pkt, frame, len);
	assert_int_equal(net_flow_hash(&pkt), 0);

	len = tp_build(frame, &v4);
	frame[ETH_HLEN] = 0x65;			/* IPv6 under an IPv4 type */
	tp_packet(&pkt, frame, len);
	assert_int_equal(net_flow_hash(&pkt), 0);
	frame[ETH_HLEN] = 0x44;			/* IHL 4: shorter than the header */
	tp_packet(&pkt, frame, len);
	assert_int_equal(net_flow_hash(&pkt), 0);

	len = tp_build(frame, &v4);
	tp_packet(&pkt, frame, ETH_HLEN + 19);
	assert_int_equal(net_flow_hash(&pkt), 0);
	len = tp_build(frame, &v6);
	tp_packet(&pkt, frame, ETH_HLEN + 39);
	assert_int_equal(net_flow_hash(&pkt), 0);
	tp_packet(&pkt, frame, ETH_HLEN - 1);
	assert_int_equal(net_flow_hash(&pkt), 0);
	put16(frame + 12, 0x8100);		/* a tag and nothing after it */
	tp_packet(&pkt, frame, ETH_HLEN + 2);
	assert_int_equal(net_flow_hash(&pkt), 0);
	(void)len;
}

/* IPv4 with its header whole but the ports cut off: addresses alone. */
static void test_flow_ports_cut(void **state)
{
	const struct tp_spec spec = { .payload = 10 };
	struct net_packet pkt;
	struct tp_frame f;

	(void)state;
	tp_layout(&spec, &f);
	tp_build(frame, &spec);
	tp_packet(&pkt, frame, f.l4 + 3);
	assert_int_not_equal(net_flow_hash(&pkt), 0);
	assert_int_not_equal(net_flow_hash(&pkt), hash_of(&spec, 40000, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_stable),
		cmocka_unit_test(test_flow_spread),
		cmocka_unit_test(test_flow_fields),
		cmocka_unit_test(test_flow_symmetric),
		cmocka_unit_test(test_flow_ipv4_fragments),
		cmocka_unit_test(test_flow_ipv6_other),
		cmocka_unit_test(test_flow_ipv6_extensions),
		cmocka_unit_test(test_flow_not_ip),
		cmocka_unit_test(test_flow_ports_cut),
	};

	return cmocka_run_group_tests_name("flow hash", tests, NULL, NULL);
}
