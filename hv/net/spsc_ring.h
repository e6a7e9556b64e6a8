/* SPDX-License-Identifier: MIT */
/*
 * spsc_ring.h - a lock-free single-producer, single-consumer packet ring
 * between two sidecores.
 *
 * The ring owns its buffers: a power-of-two array of fixed-size cells. The
 * producer copies a packet into consecutive cells (a record header, then the
 * frame, wrapping from the last cell to the first), so the sender's guest
 * buffers can be handed back at once. The consumer delivers straight from the
 * cells and frees them by moving its tail on. Producer and consumer indexes
 * live on cache lines of their own; each side also keeps a cached copy of the
 * other's index and re-reads the shared one only when the cache says the ring
 * is full (producer) or empty (consumer).
 */
#ifndef SIDECORE_NET_SPSC_RING_H
#define SIDECORE_NET_SPSC_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "net/net.h"

/* 2 KiB holds a record header and a 1514-byte frame; a 64 KiB one takes 33. */
#define SPSC_RING_CELL_SIZE	2048
#define SPSC_RING_CELLS		512	/* a power of 2 */
/* Record destination meaning every guest port of the consuming sidecore. */
#define SPSC_RING_FLOOD		0xffff
/* The same for a flood from the wire: only the guest ports that may reach it. */
#define SPSC_RING_FLOOD_WIRE	0xfffe

struct spsc_ring {
	/* Written by the producer. */
	uint32_t head __attribute__((aligned(NET_CACHE_LINE)));	/* cells filled */
	uint32_t tail_cache;
	uint64_t sent;
	uint64_t full_drops;	/* packets refused for lack of free cells */

	/* Written by the consumer. */
	uint32_t tail __attribute__((aligned(NET_CACHE_LINE)));	/* cells freed */
	uint32_t head_cache;
	uint64_t received;

	/* The cells, back to back: a frame runs on from one into the next. */
	uint8_t cells[SPSC_RING_CELLS * SPSC_RING_CELL_SIZE]
		__attribute__((aligned(NET_CACHE_LINE)));
};

/**
 * spsc_ring_init() - an empty ring.
 * @ring: memory for the ring (best on the consumer's NUMA node)
 */
void spsc_ring_init(struct spsc_ring *ring);

/**
 * spsc_ring_send() - copy a packet into the ring (producer side).
 * @ring: the ring
 * @port: destination port index, SPSC_RING_FLOOD or SPSC_RING_FLOOD_WIRE
 * @pkt: the packet, snapshotted (net_packet_snapshot()); its buffers are
 *       not referenced after this returns
 *
 * Return: false, counted in full_drops, when the free cells do not hold it.
 */
bool spsc_ring_send(struct spsc_ring *ring, uint16_t port, const struct net_packet *pkt);

/**
 * spsc_ring_pending() - whether a packet waits (consumer side).
 * @ring: the ring
 *
 * A look for a poll loop with nothing to do: it writes nothing, and reads
 * the producer's line only when the packets seen so far are taken.
 *
 * Return: true when spsc_ring_peek() would find a packet.
 */
static inline bool spsc_ring_pending(const struct spsc_ring *ring)
{
	return ring->tail != ring->head_cache ||
	       ring->tail != __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
}

/**
 * spsc_ring_peek() - look at the oldest packet (consumer side).
 * @ring: the ring
 * @pkt: filled to point into the ring's cells (one or two segments), and
 *       snapshotted
 * @port: filled with the destination the producer gave
 *
 * The packet stays valid until spsc_ring_release().
 *
 * Return: false when the ring is empty.
 */
bool spsc_ring_peek(struct spsc_ring *ring, struct net_packet *pkt, uint16_t *port);

/**
 * spsc_ring_release() - free the packet spsc_ring_peek() returned.
 * @ring: the ring
 */
void spsc_ring_release(struct spsc_ring *ring);

#endif
