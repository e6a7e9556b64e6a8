/* SPDX-License-Identifier: MIT */
/*
 * sw_offload.c - checksums and segmentation in software (sw_offload.h).
 */
#include <string.h>

#include <asm-generic/errno-base.h>

#include "drivers/net/sw_offload.h"

#define ETH_P_8021Q_TAG		0x8100
#define VLAN_HLEN		4
#define IPV4_MIN_HLEN		20
#define IPV6_HLEN		40
#define TCP_MIN_HLEN		20
#define UDP_HLEN		8
#define PROTO_TCP		6
#define PROTO_UDP		17

/* RFC 793 §3.1: the flags byte of the TCP header. */
#define TCP_FLAGS_OFF		13
#define TCP_FIN			0x01
#define TCP_PSH			0x08
#define TCP_CWR			0x80	/* RFC 3168 §6.1 */
/* Where each L4 protocol keeps its checksum, past its header's start. */
#define TCP_CSUM_OFF		16
#define UDP_CSUM_OFF		6
/* RFC 791: the fragment offset and More Fragments bits. */
#define IPV4_FRAG_MASK		0x3fff

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

uint32_t sw_csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t acc = sum;

	for (; len >= 2; p += 2, len -= 2)
		acc += get16(p);
	if (len)
		acc += (uint32_t)p[0] << 8;
	/* Carries are folded back in, so the sum keeps fitting 32 bits. */
	while (acc >> 32)
		acc = (acc & 0xffffffffu) + (acc >> 32);
	return (uint32_t)acc;
}

uint16_t sw_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

void sw_csum_complete(uint8_t *start, uint32_t len, uint8_t *field)
{
	uint16_t csum = (uint16_t)~sw_csum_fold(sw_csum_add(0, start, len));

	put16(field, csum ? csum : 0xffff);
}

/* Bytes the packet's segments really hold, at most NET_FRAME_MAX + 1. */
static uint32_t packet_bytes(const struct net_packet *pkt)
{
	uint64_t total = 0;

	for (uint32_t i = 0; i < pkt->count && i < NET_PACKET_MAX_SEGMENTS; i++)
		total += pkt->segment[i].len;
	return total > NET_FRAME_MAX ? NET_FRAME_MAX + 1 : (uint32_t)total;
}

/* The one frame of a packet without GSO. */
static int begin_single(struct sw_offload *so, const struct virtio_net_hdr_v1 *hdr)
{
	uint32_t len = so->pkt->len;

	if (hdr->gso_type != VIRTIO_NET_HDR_GSO_NONE)
		return -EINVAL;
	so->kind = SW_OFFLOAD_COPY;
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		/* virtio 1.1 §5.1.6.2: the 16-bit field lies inside the frame. */
		if ((uint32_t)hdr->csum_start + hdr->csum_offset + 2 > len)
			return -EINVAL;
		so->kind = SW_OFFLOAD_CSUM;
		so->csum_start = hdr->csum_start;
		so->csum_offset = hdr->csum_offset;
	}
	so->frames = 1;
	so->max_frame = len;
	return 0;
}

/*
 * Finds the IP header (behind at most one 802.1Q tag) and the L4 header
 * behind it, in the copied headers. Returns the L4 protocol, or -1.
 */
static int parse_ip(struct sw_offload *so, uint32_t have, uint32_t *l4)
{
	const uint8_t *h = so->hdr;
	uint32_t l3 = ETH_HLEN;
	uint16_t type = get16(h + 12);

	if (type == ETH_P_8021Q_TAG) {
		if (have < ETH_HLEN + VLAN_HLEN)
			return -1;
		type = get16(h + 16);
		l3 += VLAN_HLEN;
	}
	so->l3 = (uint16_t)l3;
	if (type == ETH_P_IP) {
		uint32_t ihl;

		if (have < l3 + IPV4_MIN_HLEN || h[l3] >> 4 != 4)
			return -1;
		ihl = (h[l3] & 0xf) * 4u;
		if (ihl < IPV4_MIN_HLEN || get16(h + l3 + 6) & IPV4_FRAG_MASK)
			return -1;
		so->ipv6 = false;
		*l4 = l3 + ihl;
		return h[l3 + 9];
	}
	if (type == ETH_P_IPV6) {
		if (have < l3 + IPV6_HLEN || h[l3] >> 4 != 6)
			return -1;
		so->ipv6 = true;
		*l4 = l3 + IPV6_HLEN;
		return h[l3 + 6];	/* no extension header is walked */
	}
	return -1;
}

/* A TSO or USO packet: the headers every frame repeats, and how many frames. */
static int begin_gso(struct sw_offload *so, const struct virtio_net_hdr_v1 *hdr)
{
	uint32_t len = so->pkt->len, have, l4 = 0, l4_hlen;
	uint8_t gso = hdr->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	int proto;

	if (hdr->gso_size == 0 || hdr->hdr_len > len)
		return -EINVAL;
	have = len < SW_OFFLOAD_HDR_MAX ? len : SW_OFFLOAD_HDR_MAX;
	if (net_packet_read(so->pkt, 0, so->hdr, have) != have)
		return -EINVAL;
	proto = parse_ip(so, have, &l4);
	if (gso == VIRTIO_NET_HDR_GSO_TCPV4 || gso == VIRTIO_NET_HDR_GSO_TCPV6) {
		if (proto != PROTO_TCP || so->ipv6 != (gso == VIRTIO_NET_HDR_GSO_TCPV6))
			return -EINVAL;
		if (have < l4 + TCP_MIN_HLEN)
			return -EINVAL;
		l4_hlen = (so->hdr[l4 + 12] >> 4) * 4u;
		if (l4_hlen < TCP_MIN_HLEN)
			return -EINVAL;
		so->kind = SW_OFFLOAD_TCP;
		so->csum_offset = TCP_CSUM_OFF;
	} else if (gso == VIRTIO_NET_HDR_GSO_UDP_L4) {
		if (proto != PROTO_UDP || hdr->gso_type & VIRTIO_NET_HDR_GSO_ECN)
			return -EINVAL;
		l4_hlen = UDP_HLEN;
		so->kind = SW_OFFLOAD_UDP;
		so->csum_offset = UDP_CSUM_OFF;
	} else {
		/* GSO_UDP (IP fragmentation) and anything unknown. */
		return -EINVAL;
	}
	/* A checksum request must name the L4 checksum parsed here. */
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM &&
	    (hdr->csum_start != l4 || hdr->csum_offset != so->csum_offset))
		return -EINVAL;
	if (l4 + l4_hlen > have)
		return -EINVAL;
	so->csum_start = (uint16_t)l4;
	so->hdr_len = l4 + l4_hlen;
	so->mss = hdr->gso_size;
	so->payload = len - so->hdr_len;
	so->frames = so->payload ? (so->payload + so->mss - 1) / so->mss : 1;
	so->max_frame = so->hdr_len + (so->payload < so->mss ? so->payload : so->mss);
	/* Every frame's IP length must fit its 16-bit field. */
	if (so->max_frame - so->l3 > 0xffff)
		return -EINVAL;
	return 0;
}

int sw_offload_begin(struct sw_offload *so, const struct net_packet *pkt)
{
	struct virtio_net_hdr_v1 hdr = pkt->hdr;	/* read once */

	memset(so, 0, offsetof(struct sw_offload, hdr));
	so->pkt = pkt;
	if (pkt->len < ETH_HLEN || pkt->len > NET_FRAME_MAX || pkt->count > NET_PACKET_MAX_SEGMENTS ||
	    packet_bytes(pkt) < pkt->len)
		return -EINVAL;
	if ((hdr.gso_type & ~VIRTIO_NET_HDR_GSO_ECN) == VIRTIO_NET_HDR_GSO_NONE)
		return begin_single(so, &hdr);
	return begin_gso(so, &hdr);
}

uint32_t sw_csum_pseudo(const uint8_t *ip, bool ipv6, uint32_t l4_len)
{
	uint32_t sum;

	if (ipv6) {
		/* RFC 8200 §8.1: addresses, 32-bit length, next header. */
		sum = sw_csum_add(0, ip + 8, 32);
		sum = sw_csum_add(sum, (const uint8_t[]){ 0, 0, (uint8_t)(l4_len >> 8),
							  (uint8_t)l4_len }, 4);
		return sw_csum_add(sum, (const uint8_t[]){ 0, ip[6] }, 2);
	}
	/* RFC 793 §3.1: addresses, zero, protocol, length. */
	sum = sw_csum_add(0, ip + 12, 8);
	return sw_csum_add(sum, (const uint8_t[]){ 0, ip[9], (uint8_t)(l4_len >> 8),
						   (uint8_t)l4_len }, 4);
}

/* Writes segment @i: the saved headers, fixed up, and its share of the payload. */
static int next_segment(struct sw_offload *so, uint8_t *buf, uint32_t i, unsigned int flags)
{
	uint32_t off = i * so->mss, n = so->payload - off, len, l4_len;
	uint8_t *ip = buf + so->l3, *l4 = buf + so->csum_start, *field;
	bool last = i + 1 == so->frames;

	if (n > so->mss)
		n = so->mss;
	len = so->hdr_len + n;
	l4_len = len - so->csum_start;
	memcpy(buf, so->hdr, so->hdr_len);
	if (net_packet_read(so->pkt, so->hdr_len + off, buf + so->hdr_len, n) != n)
		return -EINVAL;

	if (so->ipv6) {
		put16(ip + 4, (uint16_t)(len - so->l3 - IPV6_HLEN));
	} else {
		uint32_t ihl = (ip[0] & 0xf) * 4u;

		put16(ip + 2, (uint16_t)(len - so->l3));
		put16(ip + 4, (uint16_t)(get16(ip + 4) + i));
		put16(ip + 10, 0);
		put16(ip + 10, (uint16_t)~sw_csum_fold(sw_csum_add(0, ip, ihl)));
	}
	if (so->kind == SW_OFFLOAD_TCP) {
		put32(l4 + 4, get32(l4 + 4) + off);
		if (!last)
			l4[TCP_FLAGS_OFF] &= (uint8_t)~(TCP_FIN | TCP_PSH);
		if (i)
			l4[TCP_FLAGS_OFF] &= (uint8_t)~TCP_CWR;
	} else {
		put16(l4 + 4, (uint16_t)l4_len);
	}
	/* The sender's field held the whole packet's pseudo-header; each frame has its own. */
	field = l4 + so->csum_offset;
	put16(field, sw_csum_fold(sw_csum_pseudo(ip, so->ipv6, l4_len)));
	if (!(flags & SW_OFFLOAD_PARTIAL))
		sw_csum_complete(l4, l4_len, field);
	return (int)len;
}

int sw_offload_next(struct sw_offload *so, uint8_t *buf, uint32_t cap, unsigned int flags)
{
	uint32_t len = so->max_frame;	/* the packet's len, for a single frame */

	if (so->next >= so->frames)
		return 0;
	if (cap < so->max_frame)
		return -EINVAL;
	if (so->kind == SW_OFFLOAD_TCP || so->kind == SW_OFFLOAD_UDP)
		return next_segment(so, buf, so->next++, flags);

	if (net_packet_read(so->pkt, 0, buf, len) != len)
		return -EINVAL;
	so->next++;
	if (so->kind == SW_OFFLOAD_CSUM && !(flags & SW_OFFLOAD_PARTIAL))
		sw_csum_complete(buf + so->csum_start, len - so->csum_start,
				 buf + so->csum_start + so->csum_offset);
	return (int)len;
}
