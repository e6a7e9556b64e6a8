/* SPDX-License-Identifier: MIT */
/*
 * packet.c - reading a packet that lies in pieces (guest buffers, ring cells).
 */
#include <string.h>

#include "net/net.h"

size_t net_packet_read(const struct net_packet *pkt, uint32_t offset, void *buf, size_t len)
{
	uint8_t *out = buf;
	size_t done = 0;

	for (uint32_t i = 0; i < pkt->count && done < len; i++) {
		const struct net_segment *seg = &pkt->segment[i];
		size_t n;

		if (offset >= seg->len) {
			offset -= seg->len;
			continue;
		}
		n = seg->len - offset;
		if (n > len - done)
			n = len - done;
		memcpy(out + done, seg->data + offset, n);
		done += n;
		offset = 0;
	}
	return done;
}
