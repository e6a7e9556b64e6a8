/* SPDX-License-Identifier: MIT */
/*
 * headers.c - one walk over a frame's headers (headers.h).
 */
#include <string.h>

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/in6.h>

#include "net/headers.h"

#define ETH_TYPE_OFF		(2 * ETH_ALEN)
#define VLAN_HLEN		4u	/* tag control, then the next ethertype */
#define IPV4_MIN_HLEN		20u
#define IPV4_FRAG_OFF		6
#define IPV4_FRAG_MASK		0x3fff	/* RFC 791: More Fragments and the offset */
#define IPV4_PROTO_OFF		9
#define IPV6_HLEN		40u
#define IPV6_NEXT_OFF		6
#define IPV6_FRAG_HLEN		8u
#define IPV6_FRAG_MASK		0xfff9	/* RFC 8200 §4.5: the offset and the M flag */
#define TCP_MIN_HLEN		20u
#define TCP_DOFF_OFF		12
#define UDP_HLEN		8u

static bool headers_is_tag(uint16_t type)
{
	return type == ETH_P_8021Q || type == ETH_P_8021AD;
}

static void headers_ipv4(struct net_headers *h, const uint8_t *buf, uint32_t len)
{
	const uint8_t *ip = buf + h->l3;
	uint32_t ihl;

	if (len < h->l3 + IPV4_MIN_HLEN || ip[0] >> 4 != 4)
		return;
	ihl = (ip[0] & 0xfu) * 4;
	if (ihl < IPV4_MIN_HLEN)
		return;
	h->l3_kind = NET_L3_IPV4;
	h->proto = ip[IPV4_PROTO_OFF];
	h->fragment = net_get_be16(ip + IPV4_FRAG_OFF) & IPV4_FRAG_MASK;
	if (h->l3 + ihl <= len)
		h->l4 = (uint16_t)(h->l3 + ihl);
}

/*
 * The extension header at @off, which h->proto names: its length; 0 when an
 * upper-layer header lies there; -1 when the walk ends with none (bytes run
 * out, or a fragment, whose next header goes to h->proto).
 */
static int headers_ipv6_ext(struct net_headers *h, const uint8_t *buf, uint32_t len,
			    uint32_t off)
{
	switch (h->proto) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_DSTOPTS:
		/* RFC 8200 §4.3-4.6: 8-octet units, not counting the first. */
		return off + 2 <= len ? (buf[off + 1] + 1) * 8 : -1;
	case IPPROTO_AH:
		/* RFC 4302 §2.2: 4-octet units, less 2. */
		return off + 2 <= len ? (buf[off + 1] + 2) * 4 : -1;
	case IPPROTO_FRAGMENT:
		if (off + IPV6_FRAG_HLEN > len)
			return -1;
		if (net_get_be16(buf + off + 2) & IPV6_FRAG_MASK) {
			/* What follows is the datagram's, not a header. */
			h->fragment = true;
			h->proto = buf[off];
			return -1;
		}
		return IPV6_FRAG_HLEN;
	default:
		return 0;
	}
}

static void headers_ipv6(struct net_headers *h, const uint8_t *buf, uint32_t len)
{
	uint32_t off = h->l3 + IPV6_HLEN;

	if (len < off || buf[h->l3] >> 4 != 6)
		return;
	h->l3_kind = NET_L3_IPV6;
	h->proto = buf[h->l3 + IPV6_NEXT_OFF];
	for (unsigned int n = 0;; n++) {
		int ext = headers_ipv6_ext(h, buf, len, off);

		if (ext == 0)
			h->l4 = (uint16_t)off;
		if (ext <= 0 || n == NET_IPV6_EXT_MAX || off + (uint32_t)ext > len)
			return;
		h->ipv6_ext = true;
		h->proto = buf[off];
		off += (uint32_t)ext;
	}
}

static void headers_l4(struct net_headers *h, const uint8_t *buf, uint32_t len)
{
	if (h->proto == IPPROTO_TCP && h->l4 + TCP_MIN_HLEN <= len) {
		uint32_t doff = (buf[h->l4 + TCP_DOFF_OFF] >> 4) * 4u;

		if (doff >= TCP_MIN_HLEN && h->l4 + doff <= len)
			h->l4_len = (uint8_t)doff;
	} else if (h->proto == IPPROTO_UDP && h->l4 + UDP_HLEN <= len) {
		h->l4_len = UDP_HLEN;
	}
}

void net_headers_parse(struct net_headers *h, const uint8_t *buf, uint32_t len)
{
	uint32_t off = ETH_HLEN;

	memset(h, 0, sizeof(*h));
	if (len < ETH_HLEN)
		return;
	h->ethertype = net_get_be16(buf + ETH_TYPE_OFF);
	while (headers_is_tag(h->ethertype) && h->tags < NET_VLAN_TAGS_MAX) {
		if (len < off + VLAN_HLEN)
			return;
		h->ethertype = net_get_be16(buf + off + 2);
		off += VLAN_HLEN;
		h->tags++;
	}
	h->l3 = (uint16_t)off;
	if (h->ethertype == ETH_P_IP)
		headers_ipv4(h, buf, len);
	else if (h->ethertype == ETH_P_IPV6)
		headers_ipv6(h, buf, len);
	if (h->l4 && !h->fragment)
		headers_l4(h, buf, len);
}
