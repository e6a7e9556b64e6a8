/* SPDX-License-Identifier: MIT */
/*
 * flow.c - the flow hash of a frame (flow.h).
 */
#include <string.h>

#include "net/flow.h"

#define ETH_TYPE_OFF		12
#define ETH_TYPE_VLAN		0x8100	/* IEEE 802.1Q */
#define ETH_TYPE_IPV4		0x0800
#define ETH_TYPE_IPV6		0x86dd
#define VLAN_HLEN		4
#define IPV4_MIN_HLEN		20
#define IPV4_FRAG_OFF		6
#define IPV4_FRAG_MASK		0x3fff	/* RFC 791: More Fragments and the offset */
#define IPV4_PROTO_OFF		9
#define IPV4_ADDRS_OFF		12	/* source, then destination: 8 bytes */
#define IPV6_HLEN		40
#define IPV6_NEXT_OFF		6
#define IPV6_ADDRS_OFF		8	/* source, then destination: 32 bytes */
#define PROTO_TCP		6
#define PROTO_UDP		17
#define PORTS_LEN		4	/* source and destination port, TCP and UDP alike */
/* The most a hash reads: Ethernet, a tag, the largest IPv4 header, ports. */
#define FLOW_HEAD_MAX		(ETH_HLEN + VLAN_HLEN + 60 + PORTS_LEN)

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* One multiply-and-shift round per 32-bit word of the flow's identity. */
static uint32_t flow_mix(uint32_t h, const uint8_t *p, unsigned int len)
{
	for (unsigned int i = 0; i + 4 <= len; i += 4) {
		h ^= (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 |
		     p[i + 3];
		h *= 0x9e3779b1u;
		h ^= h >> 15;
	}
	return h;
}

/*
 * MurmurHash3's finaliser: every input bit reaches the low bits, which are
 * all a queue number modulo a few pairs looks at.
 */
static uint32_t flow_finish(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* Swaps the two halves of p, len bytes each (at most an IPv6 address). */
static void flow_swap(uint8_t *p, unsigned int len)
{
	uint8_t tmp[16];

	memcpy(tmp, p, len);
	memcpy(p, p + len, len);
	memcpy(p + len, tmp, len);
}

/*
 * The two endpoints in one order whichever way the frame goes: (address,
 * port) pairs compared, the lower first. addr holds the source address then
 * the destination's, alen bytes each; ports the two ports, or NULL.
 */
static void flow_order(uint8_t *addr, unsigned int alen, uint8_t *ports)
{
	int order = memcmp(addr, addr + alen, alen);

	if (!order && ports)
		order = memcmp(ports, ports + 2, 2);
	if (order <= 0)
		return;
	flow_swap(addr, alen);
	if (ports)
		flow_swap(ports, 2);
}

uint32_t net_flow_hash(const struct net_packet *pkt)
{
	uint8_t head[FLOW_HEAD_MAX];
	uint32_t got = (uint32_t)net_packet_read(pkt, 0, head, sizeof(head));
	uint32_t l3 = ETH_HLEN, l4, addr, alen, seed;
	uint8_t *ports = NULL;
	uint16_t type;
	uint8_t proto;
	bool has_ports;

	if (got < ETH_HLEN)
		return 0;
	type = get16(head + ETH_TYPE_OFF);
	if (type == ETH_TYPE_VLAN) {
		if (got < ETH_HLEN + VLAN_HLEN)
			return 0;
		type = get16(head + ETH_TYPE_OFF + VLAN_HLEN);
		l3 += VLAN_HLEN;
	}
	if (type == ETH_TYPE_IPV4) {
		uint32_t ihl;

		if (got < l3 + IPV4_MIN_HLEN || head[l3] >> 4 != 4)
			return 0;
		ihl = (head[l3] & 0xfu) * 4;
		if (ihl < IPV4_MIN_HLEN)
			return 0;
		proto = head[l3 + IPV4_PROTO_OFF];
		has_ports = !(get16(head + l3 + IPV4_FRAG_OFF) & IPV4_FRAG_MASK);
		seed = proto;
		addr = l3 + IPV4_ADDRS_OFF;
		alen = 4;
		l4 = l3 + ihl;
	} else if (type == ETH_TYPE_IPV6) {
		if (got < l3 + IPV6_HLEN || head[l3] >> 4 != 6)
			return 0;
		proto = head[l3 + IPV6_NEXT_OFF];
		has_ports = true;
		seed = (uint32_t)proto << 8;
		addr = l3 + IPV6_ADDRS_OFF;
		alen = 16;
		l4 = l3 + IPV6_HLEN;
	} else {
		return 0;
	}
	if (has_ports && (proto == PROTO_TCP || proto == PROTO_UDP) && l4 + PORTS_LEN <= got)
		ports = head + l4;
	flow_order(head + addr, alen, ports);
	seed = flow_mix(seed, head + addr, 2 * alen);
	if (ports)
		seed = flow_mix(seed, ports, PORTS_LEN);
	return flow_finish(seed);
}
