/* SPDX-License-Identifier: MIT */
/*
 * spsc_ring.c - the packet ring between two sidecores.
 *
 * head and tail count cells and run freely (wrapping at 2^32, a multiple of
 * the ring size); head - tail is the number of cells in use. The producer
 * publishes a packet by a release store of head after copying it in; the
 * consumer frees cells by a release store of tail after delivering from them.
 * Each side reads the other's index with acquire, so the consumer sees the
 * whole record and the producer never overwrites a cell still being read.
 */
#include <string.h>

#include "net/spsc_ring.h"

#define RING_BYTES	(SPSC_RING_CELLS * SPSC_RING_CELL_SIZE)
#define CELL_MASK	(SPSC_RING_CELLS - 1)

_Static_assert((SPSC_RING_CELLS & CELL_MASK) == 0, "SPSC_RING_CELLS must be a power of 2");

/* At the start of a packet's first cell; the frame follows it. */
struct spsc_record {
	struct virtio_net_hdr_v1 hdr;
	uint16_t port;
	uint16_t cells;
	uint32_t len;
};

_Static_assert(sizeof(struct spsc_record) < SPSC_RING_CELL_SIZE,
	       "a record header must fit in one cell");
_Static_assert((sizeof(struct spsc_record) + NET_FRAME_MAX) / SPSC_RING_CELL_SIZE <
	       SPSC_RING_CELLS, "the largest frame must fit in the ring");

void spsc_ring_init(struct spsc_ring *ring)
{
	ring->head = 0;
	ring->tail_cache = 0;
	ring->sent = 0;
	ring->full_drops = 0;
	ring->tail = 0;
	ring->head_cache = 0;
	ring->received = 0;
}

static uint32_t record_cells(uint32_t len)
{
	return (sizeof(struct spsc_record) + len + SPSC_RING_CELL_SIZE - 1) / SPSC_RING_CELL_SIZE;
}

/*
 * Copies the frame to byte offset of the ring, wrapping at its end; the
 * Ethernet header comes from the packet's snapshot (net_packet_read()).
 */
static void ring_copy_in(struct spsc_ring *ring, uint32_t offset, const struct net_packet *pkt)
{
	uint32_t first = pkt->len < RING_BYTES - offset ? pkt->len : RING_BYTES - offset;

	net_packet_read(pkt, 0, ring->cells + offset, first);
	net_packet_read(pkt, first, ring->cells, pkt->len - first);
}

bool spsc_ring_send(struct spsc_ring *ring, uint16_t port, const struct net_packet *pkt)
{
	uint32_t head = ring->head, cells = record_cells(pkt->len);
	uint32_t offset = (head & CELL_MASK) * SPSC_RING_CELL_SIZE;
	struct spsc_record *rec;

	if (cells > SPSC_RING_CELLS - (head - ring->tail_cache)) {
		ring->tail_cache = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
		if (cells > SPSC_RING_CELLS - (head - ring->tail_cache)) {
			ring->full_drops++;
			return false;
		}
	}
	rec = (struct spsc_record *)(ring->cells + offset);
	rec->hdr = pkt->hdr;
	rec->port = port;
	rec->cells = cells;
	rec->len = pkt->len;
	ring_copy_in(ring, offset + sizeof(*rec), pkt);
	__atomic_store_n(&ring->head, head + cells, __ATOMIC_RELEASE);
	ring->sent++;
	return true;
}

bool spsc_ring_peek(struct spsc_ring *ring, struct net_packet *pkt, uint16_t *port)
{
	uint32_t tail = ring->tail, offset, first;
	const struct spsc_record *rec;

	if (tail == ring->head_cache) {
		ring->head_cache = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
		if (tail == ring->head_cache)
			return false;
	}
	offset = (tail & CELL_MASK) * SPSC_RING_CELL_SIZE;
	rec = (const struct spsc_record *)(ring->cells + offset);
	offset += sizeof(*rec);
	first = rec->len < RING_BYTES - offset ? rec->len : RING_BYTES - offset;

	pkt->hdr = rec->hdr;
	pkt->len = rec->len;
	pkt->count = 0;
	if (first)
		pkt->segment[pkt->count++] = (struct net_segment){ ring->cells + offset, first };
	if (rec->len > first)
		pkt->segment[pkt->count++] = (struct net_segment){ ring->cells, rec->len - first };
	/* The cells are the hypervisor's: nothing changes them until release. */
	net_packet_snapshot(pkt);
	*port = rec->port;
	return true;
}

void spsc_ring_release(struct spsc_ring *ring)
{
	uint32_t tail = ring->tail;
	const struct spsc_record *rec =
		(const struct spsc_record *)(ring->cells + (tail & CELL_MASK) * SPSC_RING_CELL_SIZE);

	__atomic_store_n(&ring->tail, tail + rec->cells, __ATOMIC_RELEASE);
	ring->received++;
}
