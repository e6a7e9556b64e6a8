/* SPDX-License-Identifier: MIT */
/* model_net.c - the NIC models' packet logic (model_net.h). */
#include "tests/models/model_net.h"

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t model_net_sum(uint32_t sum, const uint8_t *p, size_t len)
{
	uint64_t acc = sum;

	for (size_t i = 0; i + 1 < len; i += 2)
		acc += rd16(p + i);
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

uint32_t model_net_pseudo(const uint8_t *ip, bool ipv4, uint32_t proto, uint32_t l4_len)
{
	uint32_t addrs = ipv4 ? model_net_sum(0, ip + 12, 8) : model_net_sum(0, ip + 8, 32);

	return addrs + proto + l4_len;
}

uint32_t model_net_crc32(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

void model_net_tso_headers(uint8_t *seg, uint32_t len, uint32_t ip, bool ipv4, uint32_t l4,
			   bool tcp, uint32_t index, uint32_t offset, bool last)
{
	uint8_t *iph = seg + ip, *th = seg + l4;

	if (ipv4) {
		wr16(iph + 2, len - ip);
		wr16(iph + 4, rd16(iph + 4) + index);
	} else {
		/* Extension headers count in the payload length. */
		wr16(iph + 4, len - ip - 40);
	}
	if (tcp) {
		uint32_t seq = (uint32_t)rd16(th + 4) << 16 | rd16(th + 6);

		seq += offset;
		wr16(th + 4, seq >> 16);
		wr16(th + 6, seq);
		if (!last)
			th[13] &= (uint8_t)~0x09;	/* FIN, PSH */
	} else {
		wr16(th + 4, len - l4);
	}
}
