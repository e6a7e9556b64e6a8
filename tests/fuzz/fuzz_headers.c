// SPDX-License-Identifier: MIT
/*
 * fuzz_headers.c - the header parser (hv/net/headers.c) and the flow hash
 * on it (hv/net/flow.c) over any frame a guest or the wire can send.
 *
 * Input: byte 0 the segment size (1-256) a packet of the frame is cut into
 * for the flow hash; the rest is the frame, parsed from a buffer of exactly
 * its size, so a read past it is an ASan report.
 *
 * Invariants: every offset found lies within the frame; the IP header
 * follows Ethernet and the tags walked; an L4 header lies past the whole
 * fixed IP header; an L4 length is UDP's 8 or a TCP data offset, and only
 * for a TCP or UDP header that is not in a fragment; the frame cut right
 * after the L4 header parses the same; the flow hash is the same for the
 * frame in one segment or in many, and 0 when no IP header is found.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/in.h>

#include "net/flow.h"
#include "net/headers.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

static bool same(const struct net_headers *a, const struct net_headers *b)
{
	return a->ethertype == b->ethertype && a->tags == b->tags && a->l3_kind == b->l3_kind &&
	       a->l3 == b->l3 && a->l4 == b->l4 && a->proto == b->proto &&
	       a->ipv6_ext == b->ipv6_ext && a->fragment == b->fragment && a->l4_len == b->l4_len;
}

static void check_parse(const struct net_headers *h, uint32_t len)
{
	CHECK(h->tags <= NET_VLAN_TAGS_MAX);
	CHECK(h->l3 <= len);
	CHECK(h->l3 == 0 || h->l3 == ETH_HLEN + 4u * h->tags);
	CHECK((uint32_t)h->l4 + h->l4_len <= len);
	if (h->l3_kind == NET_L3_NONE) {
		CHECK(!h->l4 && !h->l4_len && !h->fragment && !h->ipv6_ext);
		return;
	}
	CHECK(h->ethertype == (h->l3_kind == NET_L3_IPV4 ? ETH_P_IP : ETH_P_IPV6));
	CHECK(h->l3_kind == NET_L3_IPV6 || !h->ipv6_ext);
	CHECK(!h->l4 || h->l4 >= h->l3 + (h->l3_kind == NET_L3_IPV4 ? 20u : 40u));
	if (h->l4_len) {
		CHECK(h->l4 && !h->fragment);
		if (h->proto == IPPROTO_UDP)
			CHECK(h->l4_len == 8);
		else
			CHECK(h->proto == IPPROTO_TCP && h->l4_len >= 20 && h->l4_len <= 60 &&
			      h->l4_len % 4 == 0);
	}
}

/* A packet over @frame in segments of @piece bytes, as a guest's buffers. */
static void make_packet(struct net_packet *pkt, const uint8_t *frame, uint32_t len,
			uint32_t piece)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->len = len;
	for (uint32_t off = 0; off < len && pkt->count < NET_PACKET_MAX_SEGMENTS; off += piece) {
		uint32_t n = len - off < piece ? len - off : piece;

		/* The last segment takes what the others left. */
		if (pkt->count == NET_PACKET_MAX_SEGMENTS - 1)
			n = len - off;
		pkt->segment[pkt->count++] = (struct net_segment){ frame + off, n };
	}
	net_packet_snapshot(pkt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct net_packet whole, pieces;
	struct net_headers h, cut;
	uint32_t len, piece, hash;
	uint8_t *frame;

	if (size < 1 || size - 1 > NET_FRAME_MAX)
		return 0;
	piece = data[0] + 1u;
	len = (uint32_t)(size - 1);
	frame = malloc(len ? len : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 1, len);

	net_headers_parse(&h, frame, len);
	check_parse(&h, len);
	if (h.l4_len) {
		net_headers_parse(&cut, frame, (uint32_t)h.l4 + h.l4_len);
		CHECK(same(&cut, &h));
	}

	make_packet(&whole, frame, len, len ? len : 1);
	make_packet(&pieces, frame, len, piece);
	hash = net_flow_hash(&whole);
	CHECK(hash == net_flow_hash(&pieces));
	/* The hash reads a bounded copy: a frame's first NET_HEADERS_MAX bytes. */
	net_headers_parse(&cut, frame, len < NET_HEADERS_MAX ? len : NET_HEADERS_MAX);
	if (cut.l3_kind == NET_L3_NONE)
		CHECK(hash == 0);
	free(frame);
	return 0;
}
