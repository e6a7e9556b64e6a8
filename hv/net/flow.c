/* SPDX-License-Identifier: MIT */
/*
 * flow.c - the flow hash of a frame (flow.h).
 */
#include <string.h>

#include <linux/in.h>

#include "net/flow.h"
#include "net/headers.h"

#define IPV4_ADDRS_OFF		12	/* source, then destination: 8 bytes */
#define IPV6_ADDRS_OFF		8	/* source, then destination: 32 bytes */
#define PORTS_LEN		4u	/* source and destination port, TCP and UDP alike */

/* One multiply-and-shift round per 32-bit word of the flow's identity. */
static uint32_t flow_mix(uint32_t h, const uint8_t *p, unsigned int len)
{
	for (unsigned int i = 0; i + 4 <= len; i += 4) {
		h ^= net_get_be32(p + i);
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
	uint8_t head[NET_HEADERS_MAX];
	uint32_t got = (uint32_t)net_packet_read(pkt, 0, head, sizeof(head));
	uint32_t addr, alen, seed;
	uint8_t *ports = NULL;
	struct net_headers h;

	net_headers_parse(&h, head, got);
	if (h.l3_kind == NET_L3_IPV4) {
		seed = h.proto;
		addr = h.l3 + IPV4_ADDRS_OFF;
		alen = 4;
	} else if (h.l3_kind == NET_L3_IPV6) {
		seed = (uint32_t)h.proto << 8;
		addr = h.l3 + IPV6_ADDRS_OFF;
		alen = 16;
	} else {
		return 0;
	}
	if (!h.fragment && h.l4 && (h.proto == IPPROTO_TCP || h.proto == IPPROTO_UDP) &&
	    h.l4 + PORTS_LEN <= got)
		ports = head + h.l4;
	flow_order(head + addr, alen, ports);
	seed = flow_mix(seed, head + addr, 2 * alen);
	if (ports)
		seed = flow_mix(seed, ports, PORTS_LEN);
	return flow_finish(seed);
}
