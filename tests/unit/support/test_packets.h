/* SPDX-License-Identifier: MIT */
/*
 * test_packets.h - Ethernet/IPv4/IPv6/TCP/UDP frames built and checked by the
 * NIC tests: the reference that drivers' and models' output is compared
 * with. They have a checksum routine of their own (RFC 1071, one byte at a
 * time), so that the code under test is never checked against itself.
 */
#ifndef SIDECORE_TESTS_TEST_PACKETS_H
#define SIDECORE_TESTS_TEST_PACKETS_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net.h"

/* What tp_build() puts in a frame. */
struct tp_spec {
	bool ipv6;
	bool udp;
	bool vlan;		/* one 802.1Q tag */
	uint8_t dst[ETH_ALEN];
	uint8_t src[ETH_ALEN];
	uint32_t seq;		/* TCP */
	uint16_t ip_id;		/* IPv4 */
	uint8_t tcp_flags;
	uint32_t payload;	/* bytes after the L4 header */
	uint8_t seed;		/* payload byte i is tp_payload_byte(seed, offset + i) */
	uint32_t offset;	/* where in that stream the payload starts: a segment's */
	unsigned int ip_opts;	/* IPv4 option bytes, a multiple of 4 up to 40 */
	unsigned int tcp_opts;	/* TCP option bytes, a multiple of 4 up to 40 */
};

/* Where the parts of a frame lie, and what its headers say. */
struct tp_frame {
	uint32_t len;
	uint32_t l3, l4, data;	/* offsets of IP header, L4 header, payload */
	uint32_t data_len;
	bool ipv6, udp;
	uint16_t ip_id;
	uint32_t seq;
	uint8_t tcp_flags;
};

#define TP_TCP_FIN	0x01
#define TP_TCP_SYN	0x02
#define TP_TCP_PSH	0x08
#define TP_TCP_ACK	0x10
#define TP_TCP_ECE	0x40
#define TP_TCP_CWR	0x80

/* The payload stream's byte @i for a seed. */
uint8_t tp_payload_byte(uint8_t seed, uint32_t i);

/*
 * Where the parts of the frame tp_build() makes from @spec lie, and what its
 * headers say, without building it.
 */
void tp_layout(const struct tp_spec *spec, struct tp_frame *out);

/* Builds the frame in @buf with valid lengths and checksums; returns its length. */
uint32_t tp_build(uint8_t *buf, const struct tp_spec *spec);

/*
 * Makes a built frame look as a virtio driver hands it over for checksum
 * offload (virtio 1.1 §5.1.6.2): the L4 field holds the folded pseudo-header
 * sum, *hdr asks for NEEDS_CSUM at the L4 header. With @gso_size, also asks
 * for TSO/USO of the whole frame.
 */
void tp_make_partial(uint8_t *frame, uint32_t len, struct virtio_net_hdr_v1 *hdr,
		     uint16_t gso_size);

/* The one's complement sum of @len bytes, folded, not complemented. */
uint16_t tp_sum(uint32_t initial, const uint8_t *p, uint32_t len);

/*
 * Parses a frame built like tp_build()'s; false when a length field
 * disagrees with the frame's length or a header is cut short.
 */
bool tp_parse(const uint8_t *frame, uint32_t len, struct tp_frame *out);

/* Whether the IPv4 header checksum (true for IPv6) and the L4 checksum hold. */
bool tp_checksums_ok(const uint8_t *frame, uint32_t len);

/* A packet of one segment over @frame; snapshotted. */
void tp_packet(struct net_packet *pkt, const uint8_t *frame, uint32_t len);

/* A packet over @frame cut into segments of @piece bytes (the last shorter). */
void tp_packet_pieces(struct net_packet *pkt, const uint8_t *frame, uint32_t len,
		      uint32_t piece);

#endif
