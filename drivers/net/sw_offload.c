/* SPDX-License-Identifier: MIT */
/*
 * sw_offload.c - checksums and segmentation in software (sw_offload.h).
 */
#include <string.h>

#include <asm-generic/errno-base.h>
#include <linux/in.h>

#include "drivers/net/sw_offload.h"
#include "net/headers.h"

#define IPV6_HLEN		40

/* RFC 793 §3.1: the flags byte of the TCP header. */
#define TCP_FLAGS_OFF		13
#define TCP_FIN			0x01
#define TCP_PSH			0x08
#define TCP_CWR			0x80	/* RFC 3168 §6.1 */
/* Where each L4 protocol keeps its checksum, past its header's start. */
#define TCP_CSUM_OFF		16
#define UDP_CSUM_OFF		6

uint32_t sw_csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t acc = sum;

	for (; len >= 2; p += 2, len -= 2)
		acc += net_get_be16(p);
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

	net_put_be16(field, csum ? csum : 0xffff);
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
 * Finds the IP header and the L4 header behind it, in the copied headers:
 * a whole IPv4 datagram or an IPv6 packet without extension headers, whose
 * pseudo-header sw_csum_pseudo() knows. False for anything else.
 */
static bool parse_ip(struct sw_offload *so, uint32_t have, struct net_headers *h)
{
	net_headers_parse(h, so->hdr, have);
	if (h->l3_kind == NET_L3_NONE || !h->l4 || h->fragment || h->ipv6_ext)
		return false;
	so->l3 = h->l3;
	so->ipv6 = h->l3_kind == NET_L3_IPV6;
	return true;
}

/* A TSO or USO packet: the headers every frame repeats, and how many frames. */
static int begin_gso(struct sw_offload *so, const struct virtio_net_hdr_v1 *hdr)
{
	uint32_t len = so->pkt->len, have;
	uint8_t gso = hdr->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	struct net_headers h;

	if (hdr->gso_size == 0 || hdr->hdr_len > len)
		return -EINVAL;
	have = len < SW_OFFLOAD_HDR_MAX ? len : SW_OFFLOAD_HDR_MAX;
	if (net_packet_read(so->pkt, 0, so->hdr, have) != have)
		return -EINVAL;
	if (!parse_ip(so, have, &h))
		return -EINVAL;
	if (gso == VIRTIO_NET_HDR_GSO_TCPV4 || gso == VIRTIO_NET_HDR_GSO_TCPV6) {
		if (h.proto != IPPROTO_TCP || so->ipv6 != (gso == VIRTIO_NET_HDR_GSO_TCPV6))
			return -EINVAL;
		so->kind = SW_OFFLOAD_TCP;
		so->csum_offset = TCP_CSUM_OFF;
	} else if (gso == VIRTIO_NET_HDR_GSO_UDP_L4) {
		if (h.proto != IPPROTO_UDP || hdr->gso_type & VIRTIO_NET_HDR_GSO_ECN)
			return -EINVAL;
		so->kind = SW_OFFLOAD_UDP;
		so->csum_offset = UDP_CSUM_OFF;
	} else {
		/* GSO_UDP (IP fragmentation) and anything unknown. */
		return -EINVAL;
	}
	/* A checksum request must name the L4 checksum parsed here. */
	if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM &&
	    (hdr->csum_start != h.l4 || hdr->csum_offset != so->csum_offset))
		return -EINVAL;
	/* The L4 header, cut short or with a bad TCP data offset. */
	if (!h.l4_len)
		return -EINVAL;
	so->csum_start = h.l4;
	so->hdr_len = h.l4 + h.l4_len;
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
		net_put_be16(ip + 4, (uint16_t)(len - so->l3 - IPV6_HLEN));
	} else {
		uint32_t ihl = (ip[0] & 0xf) * 4u;

		net_put_be16(ip + 2, (uint16_t)(len - so->l3));
		net_put_be16(ip + 4, (uint16_t)(net_get_be16(ip + 4) + i));
		net_put_be16(ip + 10, 0);
		net_put_be16(ip + 10, (uint16_t)~sw_csum_fold(sw_csum_add(0, ip, ihl)));
	}
	if (so->kind == SW_OFFLOAD_TCP) {
		net_put_be32(l4 + 4, net_get_be32(l4 + 4) + off);
		if (!last)
			l4[TCP_FLAGS_OFF] &= (uint8_t)~(TCP_FIN | TCP_PSH);
		if (i)
			l4[TCP_FLAGS_OFF] &= (uint8_t)~TCP_CWR;
	} else {
		net_put_be16(l4 + 4, (uint16_t)l4_len);
	}
	/* The sender's field held the whole packet's pseudo-header; each frame has its own. */
	field = l4 + so->csum_offset;
	net_put_be16(field, sw_csum_fold(sw_csum_pseudo(ip, so->ipv6, l4_len)));
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
