/* SPDX-License-Identifier: MIT */
/* pkt_build.c - reference frames for the NIC tests (pkt_build.h). */
#include <stdio.h>
#include <string.h>

#include "tests/unit/support/pkt_build.h"

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t add_words(uint64_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += get16(p + i);
	if (len & 1)
		sum += (uint64_t)p[len - 1] << 8;
	return sum;
}

static uint16_t fold64(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint16_t pkt_csum(const uint8_t *p, size_t len)
{
	return (uint16_t)~fold64(add_words(0, p, len));
}

uint8_t pkt_payload_byte(uint32_t offset)
{
	/* Not periodic in any power of two, so a misplaced segment shows. */
	return (uint8_t)(offset * 7 + offset / 251);
}

struct pkt_layout pkt_layout_of(const struct pkt_spec *s)
{
	struct pkt_layout l;
	uint32_t l4hdr = s->proto == PKT_PROTO_TCP ? 20u + (s->tcp_options ? 12u : 0u) : 8u;

	l.l3 = 14 + (s->vlan ? 4 : 0);
	l.l4 = l.l3 + (s->ipv6 ? 40 : 20);
	l.payload = l.l4 + l4hdr;
	return l;
}

/* Pseudo-header sum (RFC 793, RFC 8200 §8.1) of the frame's IP header. */
static uint64_t pseudo_sum(const uint8_t *ip, bool ipv6, uint8_t proto, uint32_t l4len)
{
	uint64_t sum = ipv6 ? add_words(0, ip + 8, 32) : add_words(0, ip + 12, 8);

	return sum + proto + l4len;
}

size_t pkt_build(uint8_t *buf, size_t cap, const struct pkt_spec *s)
{
	struct pkt_layout l = pkt_layout_of(s);
	size_t len = l.payload + s->payload_len;
	uint32_t l4len = (uint32_t)(len - l.l4);
	uint8_t *ip = buf + l.l3, *l4 = buf + l.l4;
	uint16_t c;

	if (len > cap)
		return 0;
	memset(buf, 0, l.payload);
	memcpy(buf, s->dst, 6);
	memcpy(buf + 6, s->src, 6);
	if (s->vlan) {
		put16(buf + 12, 0x8100);
		put16(buf + 14, 5);
	}
	put16(buf + l.l3 - 2, s->ipv6 ? 0x86dd : 0x0800);
	if (s->ipv6) {
		ip[0] = 0x60;
		put16(ip + 4, l4len > 0xffff ? 0xffff : l4len);
		ip[6] = s->proto;
		ip[7] = 64;
		for (int i = 0; i < 16; i++) {
			ip[8 + i] = (uint8_t)(0x20 + i);
			ip[24 + i] = (uint8_t)(0x40 + i);
		}
	} else {
		uint32_t tot = (uint32_t)(len - l.l3);

		ip[0] = 0x45;
		put16(ip + 2, tot > 0xffff ? 0xffff : tot);
		put16(ip + 4, s->ip_id);
		put16(ip + 6, 0x4000);	/* DF */
		ip[8] = 64;
		ip[9] = s->proto;
		memcpy(ip + 12, (const uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
		put16(ip + 10, pkt_csum(ip, 20));
	}
	put16(l4, 40000);
	put16(l4 + 2, 5001);
	if (s->proto == PKT_PROTO_TCP) {
		uint32_t hl = l.payload - l.l4;

		l4[4] = (uint8_t)(s->seq >> 24);
		l4[5] = (uint8_t)(s->seq >> 16);
		l4[6] = (uint8_t)(s->seq >> 8);
		l4[7] = (uint8_t)s->seq;
		l4[12] = (uint8_t)(hl / 4 << 4);
		l4[13] = s->tcp_flags;
		put16(l4 + 14, 65535);
		if (s->tcp_options)
			memcpy(l4 + 20, (const uint8_t[]){ 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 }, 12);
	} else {
		put16(l4 + 4, l4len > 0xffff ? 0 : l4len);
	}
	for (uint32_t i = 0; i < s->payload_len; i++)
		buf[l.payload + i] = pkt_payload_byte(s->payload_offset + i);
	c = (uint16_t)~fold64(add_words(pseudo_sum(ip, s->ipv6, s->proto, l4len), l4, l4len));
	if (s->proto == PKT_PROTO_UDP && c == 0)
		c = 0xffff;
	put16(l4 + (s->proto == PKT_PROTO_TCP ? 16 : 6), c);
	return len;
}

void pkt_seed_partial(uint8_t *frame, size_t len, const struct pkt_spec *s)
{
	struct pkt_layout l = pkt_layout_of(s);
	uint32_t l4len = (uint32_t)(len - l.l4);

	put16(frame + l.l4 + (s->proto == PKT_PROTO_TCP ? 16 : 6),
	      fold64(pseudo_sum(frame + l.l3, s->ipv6, s->proto, l4len)));
}

#define BAD(...) do { fprintf(stderr, "pkt_check: " __VA_ARGS__); fputc('\n', stderr); \
		      return false; } while (0)

bool pkt_check(const uint8_t *f, size_t len)
{
	uint32_t l3 = 14, l4, l4len;
	uint16_t type;
	uint8_t proto;
	bool ipv6;

	if (len < 14)
		BAD("%zu bytes", len);
	type = get16(f + 12);
	if (type == 0x8100) {
		type = get16(f + 16);
		l3 = 18;
	}
	if (type == 0x0800) {
		uint32_t ihl = (f[l3] & 0xfu) * 4, tot;

		if (len < l3 + 20 || (f[l3] >> 4) != 4 || ihl < 20)
			BAD("not an IPv4 header");
		tot = get16(f + l3 + 2);
		if (l3 + tot > len || tot < ihl)
			BAD("IPv4 total length %u in a %zu-byte frame", tot, len);
		if (fold64(add_words(0, f + l3, ihl)) != 0xffff)
			BAD("IPv4 header checksum 0x%04x wrong", get16(f + l3 + 10));
		ipv6 = false;
		proto = f[l3 + 9];
		l4 = l3 + ihl;
		l4len = tot - ihl;
	} else if (type == 0x86dd) {
		if (len < l3 + 40 || (f[l3] >> 4) != 6)
			BAD("not an IPv6 header");
		l4len = get16(f + l3 + 4);
		if (l3 + 40 + l4len > len)
			BAD("IPv6 payload length %u in a %zu-byte frame", l4len, len);
		ipv6 = true;
		proto = f[l3 + 6];
		l4 = l3 + 40;
	} else {
		BAD("ethertype 0x%04x", type);
	}
	if (proto != PKT_PROTO_TCP && proto != PKT_PROTO_UDP)
		BAD("protocol %u", proto);
	if (proto == PKT_PROTO_UDP && get16(f + l4 + 4) != l4len)
		BAD("UDP length %u, IP says %u", get16(f + l4 + 4), l4len);
	if (fold64(add_words(pseudo_sum(f + l3, ipv6, proto, l4len), f + l4, l4len)) != 0xffff)
		BAD("%s checksum 0x%04x wrong", proto == PKT_PROTO_TCP ? "TCP" : "UDP",
		    get16(f + l4 + (proto == PKT_PROTO_TCP ? 16 : 6)));
	return true;
}
