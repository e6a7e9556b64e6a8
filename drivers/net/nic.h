/* SPDX-License-Identifier: MIT */
/*
 * nic.h - what a sidecore needs of a physical NIC, and nothing more.
 *
 * A driver (ixgbe.c, e1000.c) fills in a struct nic_ops; the sidecore that
 * owns a queue pair polls it: no NIC interrupt is used on the data path.
 *
 * Every register access and every DMA allocation goes through struct nic_io,
 * so the same driver runs against the hardware in the hypervisor (a mapped
 * BAR, identity-mapped RAM) and against a register-level model in the host
 * tests (tests/models/).
 *
 * Frames are the switch's struct net_packet in both directions:
 *  - transmit copies the frame into buffers the driver owns, so the sender's
 *    buffers are free again when nic_ops.tx() returns, as net_switch_forward()
 *    promises its callers; the virtio-net header asks for checksum offload
 *    and TSO, which the driver hands to the NIC or does in software; the
 *    frames go out when nic_ops.commit() rings the doorbell, once a burst;
 *  - receive lends each frame to a callback for the time of the call; the
 *    buffer goes back to the ring when it returns.
 */
#ifndef SIDECORE_DRIVERS_NET_NIC_H
#define SIDECORE_DRIVERS_NET_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

#define NIC_MAX_QUEUES	8	/* queue pairs a driver may be asked for */
#define NIC_NAME_MAX	16
#define NIC_DMA_SHARED	(-1)	/* dma_alloc() for no queue pair in particular */

struct nic;

/*
 * The bus a driver sees. In the hypervisor: volatile accesses to the BAR and
 * page_alloc_node(); in a host test: the model's registers and its memory.
 */
struct nic_io {
	uint32_t (*read32)(void *ctx, uint32_t offset);
	void (*write32)(void *ctx, uint32_t offset, uint32_t value);
	/*
	 * Zeroed memory the NIC may DMA to and from, aligned to @align (a power
	 * of two), for queue pair @queue or, with NIC_DMA_SHARED, for the NIC
	 * as a whole; NULL when none is left. *bus is the address the NIC
	 * uses. A queue pair's rings and buffers go on the node of the sidecore
	 * that polls it, so its frames never cross the interconnect. Never
	 * freed: a driver allocates its memory once, at init.
	 */
	void *(*dma_alloc)(void *ctx, int queue, size_t bytes, size_t align, uint64_t *bus);
	/* Busy-waits at least @us microseconds (reset and link handshakes). */
	void (*delay_us)(void *ctx, unsigned int us);
	void *ctx;
};

/* Per queue pair, written only by the sidecore that owns the pair. */
struct nic_queue_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t rx_drops;	/* frames the NIC had no descriptor for, or with errors */
	uint64_t tx_packets;	/* frames on the wire, each TSO segment counted */
	uint64_t tx_bytes;
	uint64_t tx_drops;	/* refused: malformed offload request, too long */
	uint64_t ring_full;	/* tx() found too few free descriptors */
};

/*
 * The frame a receive callback is lent. pkt->hdr.flags carries
 * VIRTIO_NET_HDR_F_DATA_VALID when the NIC checked the L4 checksum.
 */
typedef void (*nic_rx_fn)(void *ctx, struct net_packet *pkt);

struct nic_ops {
	const char *name;	/* "ixgbe", "e1000" */
	/*
	 * Resets the NIC and brings up nic->queues queue pairs, receiving only
	 * for addresses add_mac() names (broadcast and multicast to every
	 * pair). Returns 0 or a negative errno-style code; the NIC is then left
	 * with bus mastering off its rings.
	 */
	int (*init)(struct nic *nic);
	/* Reads the link state into nic->link_up and nic->speed_mbps; true if up. */
	bool (*link)(struct nic *nic);
	/*
	 * Hands up to @budget received frames of queue @q to @fn, one call each,
	 * and gives their buffers back to the NIC. Returns how many.
	 */
	unsigned int (*rx_burst)(struct nic *nic, unsigned int q, nic_rx_fn fn, void *ctx,
				 unsigned int budget);
	/*
	 * Queues one frame on queue @q (a TSO frame as its segments), without
	 * telling the NIC: it goes out at the next commit(). False when it was
	 * not queued: the ring is full (counted in ring_full, try again after
	 * reclaiming) or the frame is malformed (tx_drops).
	 */
	bool (*tx)(struct nic *nic, unsigned int q, const struct net_packet *pkt);
	/*
	 * Hands the NIC every frame tx() queued on queue @q since the last
	 * commit, with one write of the transmit tail register; nothing when
	 * none was queued. A tail write is a trip across PCIe, so a caller
	 * queues a burst and commits it once, as ixy and DPDK do; frames not
	 * yet committed are not sent.
	 */
	void (*commit)(struct nic *nic, unsigned int q);
	/* Steers unicast frames for @mac to queue @q; false when no filter is left. */
	bool (*add_mac)(struct nic *nic, const uint8_t mac[ETH_ALEN], unsigned int q);
};

struct nic {
	const struct nic_ops *ops;
	struct nic_io io;
	void *priv;			/* the driver's state, from io.dma_alloc() or static */
	char name[NIC_NAME_MAX];	/* for the boot summary: the PCI address */
	unsigned int queues;		/* queue pairs wanted, 1..NIC_MAX_QUEUES */
	uint8_t mac[ETH_ALEN];		/* the NIC's own, read at init */
	bool link_up;
	unsigned int speed_mbps;
	struct nic_queue_stats stats[NIC_MAX_QUEUES];
};

static inline uint32_t nic_read(const struct nic *nic, uint32_t offset)
{
	return nic->io.read32(nic->io.ctx, offset);
}

static inline void nic_write(const struct nic *nic, uint32_t offset, uint32_t value)
{
	nic->io.write32(nic->io.ctx, offset, value);
}

/**
 * nic_wait() - poll a register until (value & @mask) == @want
 * @nic: the NIC
 * @offset: the register
 * @mask: the bits to look at
 * @want: their wanted value
 * @timeout_us: give up after about this long
 *
 * Return: true when the bits took the wanted value in time.
 */
bool nic_wait(const struct nic *nic, uint32_t offset, uint32_t mask, uint32_t want,
	      unsigned int timeout_us);

#endif
