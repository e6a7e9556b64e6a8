/* SPDX-License-Identifier: MIT */
/*
 * pkt_build.h - Ethernet/IPv4/IPv6/TCP/UDP frames built and checked byte by
 * byte from the RFCs, for the NIC tests: the reference the driver's and
 * the model's output is compared with.
 */
#ifndef SIDECORE_TESTS_PKT_BUILD_H
#define SIDECORE_TESTS_PKT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PKT_PROTO_TCP	6
#define PKT_PROTO_UDP	17
#define PKT_TCP_FIN	0x01
#define PKT_TCP_PSH	0x08
#define PKT_TCP_ACK	0x10

struct pkt_spec {
	uint8_t dst[6];
	uint8_t src[6];
	bool ipv6;
	bool vlan;		/* an 802.1Q tag, VID 5 */
	uint8_t proto;		/* PKT_PROTO_TCP or PKT_PROTO_UDP */
	bool tcp_options;	/* 12 bytes of NOP, NOP, timestamp */
	uint32_t payload_len;
	uint32_t payload_offset;	/* payload byte i is pkt_payload_byte(offset + i) */
	uint32_t seq;
	uint16_t ip_id;
	uint8_t tcp_flags;
};

/* Offsets of the headers in a frame pkt_build() made. */
struct pkt_layout {
	uint32_t l3;
	uint32_t l4;
	uint32_t payload;	/* = header length */
};

/* The payload pattern: a function of the byte's offset in the stream. */
uint8_t pkt_payload_byte(uint32_t offset);

/* Where the headers of a frame built from @s lie. */
struct pkt_layout pkt_layout_of(const struct pkt_spec *s);

/*
 * Builds the frame into buf (cap bytes) with every length and checksum
 * right; returns its length, 0 if it does not fit. IPv4 total length and
 * IPv6 payload length saturate at 65535 for GSO-sized frames.
 */
size_t pkt_build(uint8_t *buf, size_t cap, const struct pkt_spec *s);

/*
 * Turns the L4 checksum into what virtio's NEEDS_CSUM promises: the
 * pseudo-header sum (with the L4 length), not complemented.
 */
void pkt_seed_partial(uint8_t *frame, size_t len, const struct pkt_spec *s);

/* RFC 1071 checksum of a byte range, complemented. */
uint16_t pkt_csum(const uint8_t *p, size_t len);

/*
 * Checks a frame the way a receiver would: IPv4 header checksum, lengths
 * against the frame, TCP/UDP checksum over the pseudo-header. Handles an
 * 802.1Q tag. Returns false (and says why on stderr) on the first fault.
 */
bool pkt_check(const uint8_t *frame, size_t len);

#endif
