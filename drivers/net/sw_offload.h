/* SPDX-License-Identifier: MIT */
/*
 * sw_offload.h - what a NIC driver does in software when the NIC cannot do
 * what a packet's virtio-net header asks: complete a partial checksum, cut a
 * TSO or USO packet into wire frames.
 *
 * The packet lies in buffers its sender may still write, so its headers are
 * copied once, checked, and only the copy is used; payload bytes are copied
 * into the caller's buffer before they are summed, so a checksum always
 * covers the bytes that go out.
 *
 * Usage: sw_offload_begin() checks the packet and says how many frames it
 * becomes; each sw_offload_next() writes the next frame into a buffer.
 */
#ifndef SIDECORE_DRIVERS_NET_SW_OFFLOAD_H
#define SIDECORE_DRIVERS_NET_SW_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/headers.h"
#include "net/net.h"

/* virtio 1.2 §5.1.6.2: UDP segmentation (USO); older UAPI headers lack it. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4	5
#endif

/* The most header bytes a segment repeats. */
#define SW_OFFLOAD_HDR_MAX	NET_HEADERS_MAX

/* sw_offload_next() flags: leave the L4 checksum for the NIC to complete. */
#define SW_OFFLOAD_PARTIAL	1u

enum sw_offload_kind {
	SW_OFFLOAD_COPY,	/* one frame, as it is */
	SW_OFFLOAD_CSUM,	/* one frame, checksum completed */
	SW_OFFLOAD_TCP,		/* TCP segments */
	SW_OFFLOAD_UDP,		/* UDP datagrams (USO) */
};

/*
 * The state of one packet being turned into frames. csum_start and
 * csum_offset say where the L4 checksum of every frame lies (the same in
 * all of them) when kind is not SW_OFFLOAD_COPY: a NIC that completes it
 * sums from csum_start to the end of the frame and stores the result at
 * csum_start + csum_offset.
 */
struct sw_offload {
	const struct net_packet *pkt;
	enum sw_offload_kind kind;
	bool ipv6;
	uint16_t l3;		/* IP header, for TCP and UDP */
	uint16_t csum_start;
	uint16_t csum_offset;
	uint32_t hdr_len;	/* TCP, UDP: header bytes repeated in every frame */
	uint32_t mss;		/* TCP, UDP: payload bytes per frame, but the last */
	uint32_t payload;	/* TCP, UDP: payload bytes in all */
	uint32_t frames;	/* frames the packet becomes */
	uint32_t next;		/* the next frame's index */
	uint32_t max_frame;	/* the longest frame's length */
	uint8_t hdr[SW_OFFLOAD_HDR_MAX];	/* TCP, UDP: the headers, copied once */
};

/**
 * sw_offload_begin() - check a packet and its header, get ready to cut it.
 * @so: the state, filled in here
 * @pkt: the packet, snapshotted (net_packet_snapshot()); it must stay put
 *       until the last sw_offload_next()
 *
 * Refuses what a hostile sender could hand over: checksum or header fields
 * beyond the frame, gso_size 0, a GSO type that does not match the frame's
 * IP version or L4 protocol, IP fragments, IPv6 extension headers, an
 * ECN flag on anything but TCP. hdr_len is a hint (virtio 1.1 §5.1.6.2):
 * it must lie within the frame, but the headers repeated in each segment
 * are the ones parsed here.
 *
 * Return: 0, or -EINVAL when the packet cannot be sent.
 */
int sw_offload_begin(struct sw_offload *so, const struct net_packet *pkt);

/**
 * sw_offload_next() - write the packet's next wire frame.
 * @so: the state, from sw_offload_begin()
 * @buf: where the frame goes
 * @cap: bytes @buf holds; so->max_frame is always enough
 * @flags: SW_OFFLOAD_PARTIAL to leave the L4 checksum partial: the field
 *         then holds the sum of the pseudo-header (with this frame's
 *         length), as virtio 1.1 §5.1.6.2 has it, for a NIC to complete
 *
 * IPv4 total length, identification (the packet's, plus the frame's index)
 * and header checksum, IPv6 payload length, TCP sequence numbers, UDP
 * length are each frame's own; FIN and PSH stay on the last TCP segment
 * only, CWR on the first only. A checksum that comes out 0 is stored as
 * 0xffff, as UDP requires and TCP does not mind.
 *
 * Return: the frame's length; 0 once every frame was written; -EINVAL when
 * @cap is too small or the packet's segments hold fewer bytes than its len.
 */
int sw_offload_next(struct sw_offload *so, uint8_t *buf, uint32_t cap, unsigned int flags);

/**
 * sw_csum_add() - add bytes to a one's complement sum (RFC 1071).
 * @sum: the sum so far, 0 to start; every call but the last must be given
 *       an even number of bytes
 * @data: the bytes, read as big-endian 16-bit words
 * @len: how many
 *
 * Return: the sum, not yet folded.
 */
uint32_t sw_csum_add(uint32_t sum, const void *data, size_t len);

/**
 * sw_csum_fold() - fold a sum to 16 bits.
 * @sum: from sw_csum_add()
 *
 * Return: the folded sum, not complemented.
 */
uint16_t sw_csum_fold(uint32_t sum);

/**
 * sw_csum_pseudo() - sum the pseudo-header of a TCP or UDP segment.
 * @ip: the IPv4 or IPv6 header, which names the L4 protocol
 * @ipv6: which of the two it is
 * @l4_len: the segment's length, L4 header on; 0 leaves it out, as a NIC
 *          that adds each segment's own length wants the seed
 *
 * RFC 793 §3.1 (addresses, protocol, length) and RFC 8200 §8.1 (addresses,
 * 32-bit length, next header); no IPv6 extension header is walked.
 *
 * Return: the sum, not yet folded.
 */
uint32_t sw_csum_pseudo(const uint8_t *ip, bool ipv6, uint32_t l4_len);

/**
 * sw_csum_complete() - store the Internet checksum of a byte range.
 * @start: the first byte summed
 * @len: bytes summed, the checksum field among them
 * @field: where the checksum goes, inside the range; what it holds (a
 *         pseudo-header seed, or 0) is part of the sum
 *
 * A checksum that comes out 0 is stored as 0xffff: to UDP, 0 would mean
 * "no checksum", and TCP does not mind.
 */
void sw_csum_complete(uint8_t *start, uint32_t len, uint8_t *field);

#endif
