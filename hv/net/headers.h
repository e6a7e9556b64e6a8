/* SPDX-License-Identifier: MIT */
/*
 * headers.h - where a frame's headers lie (Ethernet, 802.1Q tags, IPv4 or
 * IPv6 with its extension headers, TCP or UDP) and the big-endian fields
 * they are made of.
 *
 * The parser reads a copy the caller made of the frame's first bytes
 * (net_packet_read()), never the packet's segments, which a sender may
 * still write: what it finds stays true of the bytes the caller goes on to
 * use. It reads nothing past the copy's length and trusts no length field:
 * a header that claims more than the copy holds ends the walk. The flow
 * hash (flow.h), software offload (drivers/net/sw_offload.h) and the 82599
 * driver's offload plan all start from it.
 */
#ifndef SIDECORE_NET_HEADERS_H
#define SIDECORE_NET_HEADERS_H

#include <stdbool.h>
#include <stdint.h>

/* IEEE 802.1ad: a service tag, then a customer tag. */
#define NET_VLAN_TAGS_MAX	2
/* RFC 8200 §4.1: each extension header at most once, destination options twice. */
#define NET_IPV6_EXT_MAX	8
/*
 * The most header bytes a reader copies: Ethernet (14), two tags (8), IPv4
 * with options (60) and TCP with options (60) are 142.
 */
#define NET_HEADERS_MAX		160

enum net_l3 {
	NET_L3_NONE,		/* not IP, or its fixed header cut short or malformed */
	NET_L3_IPV4,
	NET_L3_IPV6,
};

/* What net_headers_parse() found; offsets count from the frame's first byte. */
struct net_headers {
	uint16_t ethertype;	/* behind the tags walked */
	uint8_t tags;		/* 802.1Q / 802.1ad tags walked */
	enum net_l3 l3_kind;
	uint16_t l3;		/* the IP header: past Ethernet and the tags */
	uint16_t l4;		/* past IPv4's options or IPv6's extension headers; 0:
				 * they run past the bytes, or an IPv6 fragment's rest */
	uint8_t proto;		/* IPv4 protocol; the last IPv6 next header reached */
	bool ipv6_ext;		/* IPv6 extension headers lie between l3 and l4 */
	bool fragment;		/* a piece of a datagram: its L4 header is not whole here */
	uint8_t l4_len;		/* TCP with options, UDP's 8, when the bytes hold them
				 * whole; 0 for other protocols and for fragments */
};

/**
 * net_headers_parse() - find a frame's headers in a copy of its first bytes.
 * @h: filled in here
 * @buf: the copy
 * @len: bytes in it
 *
 * Walks up to NET_VLAN_TAGS_MAX 802.1Q or 802.1ad tags, an IPv4 header
 * (version 4, IHL at least 5) or an IPv6 header and up to NET_IPV6_EXT_MAX
 * of its extension headers (hop-by-hop, routing, destination options,
 * authentication; a fragment header that is not atomic, RFC 6946, ends the
 * walk with its next header as @h->proto), then TCP's or UDP's header. An
 * IPv4 datagram with More Fragments or an offset is a fragment.
 */
void net_headers_parse(struct net_headers *h, const uint8_t *buf, uint32_t len);

/**
 * net_get_be16() - a 16-bit field in network byte order.
 * @p: its first byte
 *
 * Return: its value.
 */
static inline uint16_t net_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/**
 * net_get_be32() - a 32-bit field in network byte order.
 * @p: its first byte
 *
 * Return: its value.
 */
static inline uint32_t net_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/**
 * net_put_be16() - store a 16-bit field in network byte order.
 * @p: its first byte
 * @v: the value
 */
static inline void net_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * net_put_be32() - store a 32-bit field in network byte order.
 * @p: its first byte
 * @v: the value
 */
static inline void net_put_be32(uint8_t *p, uint32_t v)
{
	net_put_be16(p, (uint16_t)(v >> 16));
	net_put_be16(p + 2, (uint16_t)v);
}

#endif
