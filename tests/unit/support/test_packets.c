/* SPDX-License-Identifier: MIT */
/* test_packets.c - frames for the NIC tests (test_packets.h). */
#include <string.h>

#include "tests/unit/support/test_packets.h"

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

uint8_t tp_payload_byte(uint8_t seed, uint32_t i)
{
	return (uint8_t)(i * 7 + (i >> 8) * 13 + seed);
}

uint16_t tp_sum(uint32_t initial, const uint8_t *p, uint32_t len)
{
	uint64_t sum = initial;

	for (uint32_t i = 0; i < len; i++)
		sum += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The pseudo-header sum for an L4 segment of @l4_len bytes. */
static uint16_t pseudo(const uint8_t *frame, const struct tp_frame *f, uint32_t l4_len)
{
	const uint8_t *ip = frame + f->l3;
	uint8_t ph[40];

	memset(ph, 0, sizeof(ph));
	if (f->ipv6) {
		memcpy(ph, ip + 8, 32);
		ph[34] = (uint8_t)(l4_len >> 8);
		ph[35] = (uint8_t)l4_len;
		ph[39] = f->udp ? 17 : 6;
		return tp_sum(0, ph, 40);
	}
	memcpy(ph, ip + 12, 8);
	ph[9] = f->udp ? 17 : 6;
	ph[10] = (uint8_t)(l4_len >> 8);
	ph[11] = (uint8_t)l4_len;
	return tp_sum(0, ph, 12);
}

void tp_layout(const struct tp_spec *s, struct tp_frame *out)
{
	struct tp_frame f = { .ipv6 = s->ipv6, .udp = s->udp };

	f.l3 = ETH_HLEN + (s->vlan ? 4 : 0);
	f.l4 = f.l3 + (s->ipv6 ? 40 : 20 + s->ip_opts);
	f.data = f.l4 + (s->udp ? 8 : 20 + s->tcp_opts);
	f.data_len = s->payload;
	f.len = f.data + s->payload;
	if (!s->ipv6)
		f.ip_id = s->ip_id;
	if (!s->udp) {
		f.seq = s->seq;
		f.tcp_flags = s->tcp_flags;
	}
	*out = f;
}

uint32_t tp_build(uint8_t *buf, const struct tp_spec *s)
{
	struct tp_frame f;
	uint32_t l3, l4, data, len, ip_hlen, l4_hlen;
	uint8_t *ip, *t;

	tp_layout(s, &f);
	l3 = f.l3;
	l4 = f.l4;
	data = f.data;
	len = f.len;
	ip_hlen = l4 - l3;
	l4_hlen = data - l4;
	ip = buf + l3;
	t = buf + l4;

	memset(buf, 0, data);
	memcpy(buf, s->dst, ETH_ALEN);
	memcpy(buf + ETH_ALEN, s->src, ETH_ALEN);
	if (s->vlan) {
		wr16(buf + 12, 0x8100);
		wr16(buf + 14, 42);
	}
	wr16(buf + l3 - 2, s->ipv6 ? 0x86dd : 0x0800);
	if (s->ipv6) {
		ip[0] = 0x60;
		wr16(ip + 4, len - l3 - 40);
		ip[6] = s->udp ? 17 : 6;
		ip[7] = 64;
		for (unsigned int i = 0; i < 16; i++) {
			ip[8 + i] = (uint8_t)(0x20 + i);
			ip[24 + i] = (uint8_t)(0xa0 + i);
		}
	} else {
		ip[0] = (uint8_t)(0x40 | ip_hlen / 4);
		wr16(ip + 2, len - l3);
		wr16(ip + 4, s->ip_id);
		wr16(ip + 6, 0x4000);	/* DF */
		ip[8] = 64;
		ip[9] = s->udp ? 17 : 6;
		memcpy(ip + 12, (const uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
		for (unsigned int i = 20; i < ip_hlen; i++)
			ip[i] = 1;	/* NOP options */
		wr16(ip + 10, (uint16_t)~tp_sum(0, ip, ip_hlen));
	}
	wr16(t, 40000);
	wr16(t + 2, 5001);
	if (s->udp) {
		wr16(t + 4, len - l4);
	} else {
		wr16(t + 4, s->seq >> 16);
		wr16(t + 6, s->seq);
		wr16(t + 8, 0x1234);
		wr16(t + 10, 0x5678);
		t[12] = (uint8_t)(l4_hlen / 4 << 4);
		t[13] = s->tcp_flags;
		wr16(t + 14, 0xffff);
		for (unsigned int i = 20; i < l4_hlen; i++)
			t[i] = 1;
	}
	for (uint32_t i = 0; i < s->payload; i++)
		buf[data + i] = tp_payload_byte(s->seed, s->offset + i);
	{
		uint16_t sum = tp_sum(pseudo(buf, &f, len - l4), t, len - l4);
		uint16_t csum = (uint16_t)~sum;

		wr16(t + (s->udp ? 6 : 16), csum ? csum : 0xffff);
	}
	return len;
}

bool tp_parse(const uint8_t *frame, uint32_t len, struct tp_frame *out)
{
	struct tp_frame f = { .len = len, .l3 = ETH_HLEN };
	uint32_t type, proto;

	if (len < ETH_HLEN + 4)
		return false;
	type = rd16(frame + 12);
	if (type == 0x8100) {
		f.l3 += 4;
		type = rd16(frame + 16);
	}
	if (type == 0x86dd) {
		if (len < f.l3 + 40 || frame[f.l3] >> 4 != 6)
			return false;
		f.ipv6 = true;
		if (rd16(frame + f.l3 + 4) != len - f.l3 - 40)
			return false;
		proto = frame[f.l3 + 6];
		f.l4 = f.l3 + 40;
	} else if (type == 0x0800) {
		if (len < f.l3 + 20 || frame[f.l3] >> 4 != 4 || (frame[f.l3] & 0xf) < 5)
			return false;
		if (rd16(frame + f.l3 + 2) != len - f.l3)
			return false;
		f.ip_id = (uint16_t)rd16(frame + f.l3 + 4);
		proto = frame[f.l3 + 9];
		f.l4 = f.l3 + (frame[f.l3] & 0xf) * 4u;
	} else {
		return false;
	}
	if (proto == 17) {
		f.udp = true;
		if (len < f.l4 + 8 || rd16(frame + f.l4 + 4) != len - f.l4)
			return false;
		f.data = f.l4 + 8;
	} else if (proto == 6) {
		if (len < f.l4 + 20)
			return false;
		f.seq = rd16(frame + f.l4 + 4) << 16 | rd16(frame + f.l4 + 6);
		f.tcp_flags = frame[f.l4 + 13];
		f.data = f.l4 + (frame[f.l4 + 12] >> 4) * 4u;
		if (len < f.data)
			return false;
	} else {
		return false;
	}
	f.data_len = len - f.data;
	*out = f;
	return true;
}

bool tp_checksums_ok(const uint8_t *frame, uint32_t len)
{
	struct tp_frame f;

	if (!tp_parse(frame, len, &f))
		return false;
	if (!f.ipv6 && tp_sum(0, frame + f.l3, f.l4 - f.l3) != 0xffff)
		return false;
	return tp_sum(pseudo(frame, &f, len - f.l4), frame + f.l4, len - f.l4) == 0xffff;
}

void tp_make_partial(uint8_t *frame, uint32_t len, struct virtio_net_hdr_v1 *hdr,
		     uint16_t gso_size)
{
	struct tp_frame f;
	uint32_t field;

	memset(hdr, 0, sizeof(*hdr));
	if (!tp_parse(frame, len, &f))
		return;
	field = f.l4 + (f.udp ? 6 : 16);
	wr16(frame + field, pseudo(frame, &f, len - f.l4));
	hdr->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	hdr->csum_start = (uint16_t)f.l4;
	hdr->csum_offset = (uint16_t)(field - f.l4);
	if (gso_size) {
		hdr->gso_size = gso_size;
		hdr->hdr_len = (uint16_t)f.data;
		hdr->gso_type = f.udp ? 5 : f.ipv6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
			VIRTIO_NET_HDR_GSO_TCPV4;
	}
}

void tp_packet(struct net_packet *pkt, const uint8_t *frame, uint32_t len)
{
	tp_packet_pieces(pkt, frame, len, len);
}

void tp_packet_pieces(struct net_packet *pkt, const uint8_t *frame, uint32_t len,
		      uint32_t piece)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->len = len;
	for (uint32_t off = 0; off < len && pkt->count < NET_PACKET_MAX_SEGMENTS; off += piece) {
		uint32_t n = len - off < piece ? len - off : piece;

		pkt->segment[pkt->count++] = (struct net_segment){ frame + off, n };
	}
	net_packet_snapshot(pkt);
}
