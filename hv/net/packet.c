/* SPDX-License-Identifier: MIT */
/*
 * packet.c - reading a packet that lies in pieces (guest buffers, ring cells).
 */
#include <string.h>

#include "net/net.h"

/* Copies frame bytes straight from the segments. */
static size_t packet_read_segments(const struct net_packet *pkt, uint32_t offset, uint8_t *out,
				   size_t len)
{
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

/* Frame bytes that net_packet_read() serves from the snapshot. */
static uint32_t packet_head_len(const struct net_packet *pkt)
{
	return pkt->len < ETH_HLEN ? pkt->len : ETH_HLEN;
}

bool net_packet_snapshot(struct net_packet *pkt)
{
	uint32_t head = packet_head_len(pkt);

	/*
	 * The header whole in the first segment, as a guest lays it out: a
	 * copy of fixed size, which the compiler makes plain moves
	 * (docs/data-path.md "Copies").
	 */
	if (head == ETH_HLEN && pkt->count && pkt->segment[0].len >= ETH_HLEN) {
		memcpy(pkt->eth, pkt->segment[0].data, ETH_HLEN);
		/* Decide on this copy only, whatever the guest writes next. */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		return true;
	}
	memset(pkt->eth, 0, ETH_HLEN);
	return packet_read_segments(pkt, 0, pkt->eth, head) == ETH_HLEN;
}

size_t net_packet_read(const struct net_packet *pkt, uint32_t offset, void *buf, size_t len)
{
	uint32_t head = packet_head_len(pkt);
	uint8_t *out = buf;
	size_t done = 0;

	if (offset == 0 && head == ETH_HLEN && len >= ETH_HLEN) {
		memcpy(out, pkt->eth, ETH_HLEN);
		/* A frame in one segment, as a guest sends a small one: no walk. */
		if (pkt->count == 1 && pkt->segment[0].len >= ETH_HLEN) {
			done = pkt->segment[0].len < len ? pkt->segment[0].len : len;
			memcpy(out + ETH_HLEN, pkt->segment[0].data + ETH_HLEN, done - ETH_HLEN);
			return done;
		}
		done = ETH_HLEN;
		offset = head;
	} else if (offset < head) {
		done = head - offset < len ? head - offset : len;
		memcpy(out, pkt->eth + offset, done);
		offset = head;
	}
	return done + packet_read_segments(pkt, offset, out + done, len - done);
}
