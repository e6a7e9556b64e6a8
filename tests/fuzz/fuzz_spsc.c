// SPDX-License-Identifier: MIT
/*
 * fuzz_spsc.c - the ring between two sidecores (hv/net/spsc_ring.c) under
 * any interleaving of producer and consumer steps, run from one thread.
 *
 * Input: bytes 0-3 the starting index (head and tail both; the free-running
 * 32-bit counters wrap after 2^32 cells, minutes of traffic), then 6-byte
 * operations; byte 0 modulo 4 chooses:
 *
 *   0  send: frame length bytes 1-2 plus 65536 * (byte 3 bit 0), at most
 *      NET_FRAME_MAX; byte 3 bits 7:1 cut it into that many segments (at
 *      least one); port bytes 4-5
 *   1  peek: the oldest packet, checked byte by byte
 *   2  release, when the last peek found a packet
 *   3  peek and release
 *
 * A model queue holds what was sent. Invariants: every send either lands in
 * the ring (counted in sent) or is refused exactly when its cells do not
 * fit in the free ones (counted in full_drops); packets come out in the
 * order they went in, with their length, port, offload header and every
 * byte; the segments peek returns lie inside the ring's cells; head - tail
 * is the cells in use and never exceeds the ring; received counts releases.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/spsc_ring.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define HEADER		4
#define OP_BYTES	6
#define QUEUE_MAX	SPSC_RING_CELLS	/* every packet takes a cell at least */
/* A record's header ahead of the frame, as the ring lays it out. */
#define RECORD_BYTES	(sizeof(struct virtio_net_hdr_v1) + 8)

struct sent {
	uint32_t len, seq, cells;
	uint16_t port;
};

struct model {
	struct sent q[QUEUE_MAX];
	unsigned int first, count;
	uint32_t cells_used, seq;
	bool peeked;
};

static struct spsc_ring ring;
static uint8_t frame[NET_FRAME_MAX];

/* Byte i of packet seq: its first four bytes are seq, the rest a pattern. */
static uint8_t pattern(uint32_t seq, uint32_t i)
{
	return i < 4 ? (uint8_t)(seq >> (8 * i)) : (uint8_t)(i * 7 + (i >> 8));
}

static void make_header(struct virtio_net_hdr_v1 *hdr, uint32_t seq)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->flags = (uint8_t)seq;
	hdr->gso_type = (uint8_t)(seq >> 8);
	hdr->hdr_len = (uint16_t)seq;
	hdr->gso_size = (uint16_t)(seq >> 16);
	hdr->csum_start = (uint16_t)(seq * 3);
	hdr->csum_offset = (uint16_t)(seq * 5);
}

static uint32_t cells_for(uint32_t len)
{
	return (RECORD_BYTES + len + SPSC_RING_CELL_SIZE - 1) / SPSC_RING_CELL_SIZE;
}

static void do_send(struct model *m, const uint8_t *op)
{
	uint32_t len = (op[1] | op[2] << 8 | (op[3] & 1u) << 16);
	unsigned int pieces = (op[3] >> 1) + 1, at = 0;
	uint16_t port = (uint16_t)(op[4] | op[5] << 8);
	struct net_packet pkt;
	uint64_t sent = ring.sent, drops = ring.full_drops;
	uint32_t cells;
	bool fits, ok;

	if (len > NET_FRAME_MAX)
		len = NET_FRAME_MAX;
	if (pieces > NET_PACKET_MAX_SEGMENTS)
		pieces = NET_PACKET_MAX_SEGMENTS;
	cells = cells_for(len);
	for (uint32_t i = 0; i < 4 && i < len; i++)
		frame[i] = pattern(m->seq, i);
	make_header(&pkt.hdr, m->seq);
	pkt.len = len;
	pkt.count = 0;
	/* Uneven pieces, the last one taking the rest; empty ones allowed. */
	for (unsigned int i = 0; i < pieces; i++) {
		uint32_t piece = i + 1 == pieces ? len - at : (len - at) / (pieces - i + 1);

		pkt.segment[pkt.count++] = (struct net_segment){ frame + at, piece };
		at += piece;
	}
	net_packet_snapshot(&pkt);	/* as the switch does before it sends */
	fits = cells <= SPSC_RING_CELLS - m->cells_used;
	ok = spsc_ring_send(&ring, port, &pkt);
	CHECK(ok == fits);
	if (!ok) {
		CHECK(ring.full_drops == drops + 1 && ring.sent == sent);
		return;
	}
	CHECK(ring.sent == sent + 1 && ring.full_drops == drops);
	CHECK(m->count < QUEUE_MAX);
	m->q[(m->first + m->count++) % QUEUE_MAX] = (struct sent){ len, m->seq, cells, port };
	m->cells_used += cells;
	m->seq++;
}

static bool inside_ring(const uint8_t *p, uint32_t len)
{
	return p >= ring.cells && len <= sizeof(ring.cells) &&
	       (size_t)(p - ring.cells) <= sizeof(ring.cells) - len;
}

static void do_peek(struct model *m)
{
	struct net_packet pkt;
	struct virtio_net_hdr_v1 hdr;
	const struct sent *want;
	uint32_t i = 0;
	uint16_t port;
	bool ok = spsc_ring_peek(&ring, &pkt, &port);

	CHECK(ok == (m->count > 0));
	m->peeked = ok;
	if (!ok)
		return;
	want = &m->q[m->first];
	make_header(&hdr, want->seq);
	CHECK(pkt.len == want->len && port == want->port);
	CHECK(memcmp(&pkt.hdr, &hdr, sizeof(hdr)) == 0);
	CHECK(pkt.count <= 2);
	for (uint32_t s = 0; s < pkt.count; s++) {
		const uint8_t *p = pkt.segment[s].data;
		uint32_t n = pkt.segment[s].len;

		CHECK(inside_ring(p, n));
		for (; n && i < 4; p++, n--, i++)
			CHECK(*p == pattern(want->seq, i));
		CHECK(i + n <= NET_FRAME_MAX && memcmp(p, frame + i, n) == 0);
		i += n;
	}
	CHECK(i == want->len);
}

static void do_release(struct model *m)
{
	uint64_t received = ring.received;

	if (!m->peeked)
		return;
	spsc_ring_release(&ring);
	CHECK(ring.received == received + 1);
	m->cells_used -= m->q[m->first].cells;
	m->first = (m->first + 1) % QUEUE_MAX;
	m->count--;
	m->peeked = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model m;
	uint32_t start;

	if (size < HEADER)
		return 0;
	if (frame[NET_FRAME_MAX - 1] != pattern(0, NET_FRAME_MAX - 1))
		for (uint32_t i = 0; i < NET_FRAME_MAX; i++)
			frame[i] = pattern(0, i);
	memset(&m, 0, sizeof(m));
	spsc_ring_init(&ring);
	start = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
		(uint32_t)data[3] << 24;
	ring.head = ring.tail = ring.tail_cache = ring.head_cache = start;
	for (size_t at = HEADER; at + OP_BYTES <= size; at += OP_BYTES) {
		const uint8_t *op = data + at;

		switch (op[0] % 4) {
		case 0:
			do_send(&m, op);
			break;
		case 1:
			do_peek(&m);
			break;
		case 2:
			do_release(&m);
			break;
		default:
			do_peek(&m);
			do_release(&m);
			break;
		}
		CHECK(ring.head - ring.tail == m.cells_used);
		CHECK(m.cells_used <= SPSC_RING_CELLS);
	}
	return 0;
}
