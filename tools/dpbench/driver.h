/* SPDX-License-Identifier: MIT */
/*
 * driver.h - a guest's virtio-net or virtio-vsock driver for tools/dpbench,
 * run by a host thread on another core than the sidecore's: split rings
 * with event index, receive buffers (mergeable for virtio-net) refilled in
 * batches from a pool of free buffers, the available index published with
 * release and the used index read with acquire, as Linux's virtio_net,
 * vsock transport and virtio_ring do (docs/data-path.md, "On the host's
 * CPU"). Each packet received is sent back in the buffers it arrived in,
 * as testpmd's mac forwarding sends the mbuf it received: a frame with its
 * MAC addresses swapped, a vsock packet with its CIDs and ports.
 */
#ifndef SIDECORE_TOOLS_DPBENCH_DRIVER_H
#define SIDECORE_TOOLS_DPBENCH_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/if_ether.h>
#include <linux/virtio_ring.h>

#include "virtio/guest_mem.h"
#include "virtio/virtio_vsock.h"
#include "virtio/virtq.h"

#define DRV_QUEUE_MAX	256	/* virtio-net's queues; vsock's are 128 */
#define DRV_POOL_MAX	(2 * DRV_QUEUE_MAX)	/* a full receiveq and a full transmitq */
#define DRV_NAPI_BUDGET	64	/* receive entries a NAPI poll takes */
#define DRV_CHAIN_MAX	4	/* buffers of one received packet the driver sends back */

/* What a guest's device is, and so what its driver sends and answers. */
enum drv_kind { DRV_NET, DRV_VSOCK };

/*
 * One split virtqueue, the driver's side (virtio 1.2 §2.7), with what
 * Linux keeps beside it (desc_extra): the free descriptors, and for each
 * descriptor in use the pool buffer it holds and the next of its chain.
 */
struct drv_queue {
	uint16_t size;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint64_t desc_gpa, avail_gpa, used_gpa;
	uint16_t avail_idx;	/* the driver's copy, published with release */
	uint16_t kicked_at;	/* avail_idx when a notification was last considered */
	uint16_t last_used;
	uint16_t free[DRV_QUEUE_MAX];	/* descriptors not in use */
	unsigned int nfree;
	uint16_t buf[DRV_QUEUE_MAX];	/* DRV_NO_BUF: not in use, or not a pool buffer */
	uint16_t next[DRV_QUEUE_MAX];	/* DRV_NO_BUF: the chain's last */
	uint64_t notifies;	/* doorbells the driver would have written */
};

#define DRV_NO_BUF	0xffffu

/* What the driver did; written by its thread only, read with relaxed loads. */
struct drv_stats {
	uint64_t sent;		/* frames made available on the transmitq */
	uint64_t received;	/* frames taken from the receiveq */
	uint64_t rx_irqs;	/* interrupts that scheduled the receive poll */
	uint64_t tx_irqs;
	uint64_t bad;		/* frames not the peer's or of the wrong length, used entries not ours */
};

struct drv_guest {
	struct guest_mem mem;	/* the guest's RAM: one host buffer */
	enum drv_kind kind;
	struct drv_queue rx, tx, event;	/* event: vsock's eventq */
	uint32_t hdr_size;	/* the device's header before each packet's data */
	uint32_t buf_size;	/* bytes of each buffer */
	uint64_t bufs;		/* gpa of buffer 0; buffer i follows at i * buf_size */
	uint16_t pool[DRV_POOL_MAX];	/* buffers on neither queue, last freed on top */
	unsigned int pool_n;
	bool napi;		/* the receive poll is scheduled */
	uint8_t mac[ETH_ALEN];	/* virtio-net's addresses */
	uint8_t peer[ETH_ALEN];
	uint64_t cid, peer_cid;	/* vsock's */
	uint32_t fwd_cnt;	/* vsock: payload bytes the driver took (the credit it returns) */
	uint32_t frame_len;	/* bytes after the header: a frame, or a vsock payload */
	/* Raised by the device (the interrupt callback), taken by the driver. */
	unsigned int rx_irq_pending, tx_irq_pending;	/* atomic */
	struct drv_stats stats;
};

/**
 * drv_guest_init() - lays out a guest's rings and buffers in its RAM
 * @g: the guest, zeroed
 * @kind: its device
 * @ram: host memory standing for the guest's RAM, mapped 1:1 from gpa 0
 * @ram_size: its size; drv_guest_ram_size() is enough
 * @self: the guest's MAC (virtio-net) or its CID, a uint64_t (vsock)
 * @peer: the same of where its first burst goes
 * @len: bytes of each frame (virtio-net) or payload (vsock) it sends
 */
void drv_guest_init(struct drv_guest *g, enum drv_kind kind, uint8_t *ram, uint64_t ram_size,
		    const void *self, const void *peer, uint32_t len);

/**
 * drv_guest_ram_size() - bytes of guest RAM drv_guest_init() lays out
 *
 * Return: the size.
 */
uint64_t drv_guest_ram_size(void);

/**
 * drv_guest_layout() - where a queue's rings are, for the device
 * @q: the queue
 *
 * Return: its layout, as the driver writes it to the transport.
 */
struct virtq_layout drv_guest_layout(const struct drv_queue *q);

/**
 * drv_guest_fill_rx() - fills the receive queue from the pool, once the device runs
 * @g: the guest
 */
void drv_guest_fill_rx(struct drv_guest *g);

/**
 * drv_guest_burst() - sends packets to the peer, as "start tx_first" does
 * @g: the guest
 * @count: packets, at most the free transmit descriptors and pool buffers
 *
 * Return: packets sent.
 */
unsigned int drv_guest_burst(struct drv_guest *g, unsigned int count);

/**
 * drv_guest_step() - one turn of the guest's driver
 * @g: the guest
 * @echo: send each received frame back; false drains without answering
 *
 * Reclaims transmit buffers into the pool; runs the receive poll when an
 * interrupt scheduled it (or it did not finish), sending each packet back
 * to where it came from in its own buffers while transmit descriptors are
 * free, and refills the receive queue from the pool once half a budget of
 * it is free; publishes both queues once and counts the notifications
 * event index would have asked for.
 *
 * Return: frames received.
 */
unsigned int drv_guest_step(struct drv_guest *g, bool echo);

/**
 * drv_guest_interrupt() - the device raised a queue's interrupt
 * @g: the guest
 * @rx: the receive queue's, else the transmit queue's
 *
 * Called on the sidecore's thread; the flag is what a vCPU's IDT would see.
 */
void drv_guest_interrupt(struct drv_guest *g, bool rx);

#endif
