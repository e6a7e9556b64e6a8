/* SPDX-License-Identifier: MIT */
/*
 * virtio_vsock_internal.h - what the device's data path (virtio_vsock.c)
 * and the hypervisor's own services on CID 2 (virtio_vsock_host.c) share:
 * cursors over a chain's bytes and the delivery into a receive queue.
 * Included only inside hv/virtio.
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_VSOCK_INTERNAL_H
#define SIDECORE_VIRTIO_VIRTIO_VSOCK_INTERNAL_H

#include "virtio/virtio_vsock.h"

#define VSOCK_HDR_SIZE	((uint32_t)sizeof(struct virtio_vsock_hdr))

/* What became of a packet handed to a receiver. */
enum vsock_delivery {
	VSOCK_DELIVERED,
	VSOCK_STALLED,		/* too few receive buffers: try again next pass */
	VSOCK_UNFIT,		/* its whole ring could not hold the packet */
	VSOCK_GONE,		/* the receiver broke its receiveq meanwhile */
	VSOCK_BUSY,		/* another domain's receiver, its lock taken: try again */
	VSOCK_HELD,		/* a REQUEST to CID 2 past the rate: the transmitq waits */
};

/* A position in a chain's bytes, counted across its segments. */
struct chain_cursor {
	const struct virtq_chain *chain;
	uint32_t segment;
	uint32_t offset;	/* within segment */
};

/**
 * vsock_cursor_init() - a cursor skip bytes into a chain
 * @c: the cursor
 * @chain: the chain whose segments it walks
 * @skip: bytes to pass over (VSOCK_HDR_SIZE: a transmit chain's payload)
 */
void vsock_cursor_init(struct chain_cursor *c, const struct virtq_chain *chain, uint32_t skip);

/**
 * vsock_cursor_read() - copy bytes out of a chain and move past them
 * @c: the cursor
 * @buf: where they go
 * @len: how many; the copy stops at the chain's end
 */
void vsock_cursor_read(struct chain_cursor *c, void *buf, uint32_t len);

/**
 * virtio_vsock_deliver() - copy a packet into a device's receive buffers
 * @dev: the receiver
 * @hdr: the checked header; every piece the packet is cut into repeats it
 * @src: hdr->len payload bytes at this cursor, NULL when there are none
 *
 * All or nothing: the room is counted before a byte is written.
 *
 * Return: what became of the packet.
 */
enum vsock_delivery virtio_vsock_deliver(struct virtio_vsock *dev,
					 const struct virtio_vsock_hdr *hdr,
					 struct chain_cursor *src);

/**
 * virtio_vsock_refuse() - answer a device's packet with an RST
 * @dev: the sender, whose receive buffers get the RST at once or never
 * @hdr: its packet; the RST comes from where it went. An RST gets none.
 */
void virtio_vsock_refuse(struct virtio_vsock *dev, const struct virtio_vsock_hdr *hdr);

/**
 * virtio_vsock_peers_note() - a packet went from one guest's device to another's
 * @dev: the sender
 * @dst: the receiver, its lock held
 * @hdr: the packet: a RESPONSE links the two ends, an RST unlinks them
 */
void virtio_vsock_peers_note(struct virtio_vsock *dev, struct virtio_vsock *dst,
			     const struct virtio_vsock_hdr *hdr);

/**
 * virtio_vsock_peers_watch() - the port's watch of the deaths, while it has links
 * @dev: the device, under its domain's lock
 *
 * A device with a link to another guest watches table->deaths after its
 * queues (sidecore/port.h), so a pass polls it once a device dies; one
 * without links pays no look. Called whenever its links change.
 */
void virtio_vsock_peers_watch(struct virtio_vsock *dev);

/**
 * virtio_vsock_peers_reap() - RSTs for the connections whose peer device went
 * @dev: the device, running, in its own domain's pass
 *
 * Looks only when some device reset or broke since the last look, or an
 * RST found no receive buffer then.
 */
void virtio_vsock_peers_reap(struct virtio_vsock *dev);

/**
 * virtio_vsock_peers_gone() - the device's driver lost every connection
 * @dev: the device, reset or broken
 */
void virtio_vsock_peers_gone(struct virtio_vsock *dev);

/**
 * virtio_vsock_host_receive() - a checked SOCK_STREAM packet for CID 2
 * @dev: its sender
 * @hdr: its header
 * @src: its payload, hdr->len bytes; NULL for a REQUEST, whose payload no
 *       service reads
 *
 * The services take every packet at once: what they owe in answer waits
 * in their connection until virtio_vsock_host_poll().
 *
 * Return: false when it was answered with an RST (no service, no slot,
 * no connection) rather than taken.
 */
bool virtio_vsock_host_receive(struct virtio_vsock *dev, const struct virtio_vsock_hdr *hdr,
			       struct chain_cursor *src);

/**
 * virtio_vsock_host_admit() - whether a device may make one more REQUEST to CID 2
 * @dev: the device, its clock at the last flush
 *
 * Spends a token of its request bucket (VIRTIO_VSOCK_HOST_REQUESTS a
 * second, VIRTIO_VSOCK_HOST_BURST at once) when the device has one.
 *
 * Return: true when the REQUEST may go, false while the bucket is empty.
 */
bool virtio_vsock_host_admit(struct virtio_vsock *dev);

/**
 * virtio_vsock_host_poll() - send what the services owe a device's driver
 * @dev: the device, running
 *
 * As far as its receive buffers and its sockets' credit allow; the rest
 * waits for the next pass, which looks again only once buffers were
 * posted or a packet for CID 2 came.
 */
void virtio_vsock_host_poll(struct virtio_vsock *dev);

/**
 * virtio_vsock_charge() - count a copy against the pass serving a device
 * @dev: the device whose pass made it
 * @bytes: bytes copied
 * @segments: buffers walked to copy them
 *
 * Charged to its domain's meter, when it has one (docs/data-path.md,
 * "Budgets in bytes").
 */
void virtio_vsock_charge(struct virtio_vsock *dev, uint32_t bytes, uint32_t segments);

/**
 * virtio_vsock_spent() - whether the pass serving a device may copy no more for it
 * @dev: the device
 *
 * Return: true once its domain's meter is spent.
 */
bool virtio_vsock_spent(const struct virtio_vsock *dev);

/**
 * virtio_vsock_host_reset() - forget a device's connections to CID 2
 * @dev: the device, being reset
 */
void virtio_vsock_host_reset(struct virtio_vsock *dev);

#endif
