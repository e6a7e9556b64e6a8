/* SPDX-License-Identifier: MIT */
/*
 * virtq.h - the device side of a split virtqueue (virtio 1.1 §2.6).
 *
 * A sidecore polls the available ring, turns each descriptor chain into a
 * list of host pointers (every address checked against the guest's RAM),
 * and hands finished chains back through the used ring. Nothing here blocks
 * or allocates. A guest that breaks a ring rule gets its queue marked broken:
 * from then on every call is a no-op until virtq_reset(), and the transport
 * reports DEVICE_NEEDS_RESET (virtio 1.1 §2.1.2).
 *
 * One sidecore owns a queue; the calls below are not safe against each other
 * from two cores. Enable and reset happen while the owner is not polling it.
 */
#ifndef SIDECORE_VIRTIO_VIRTQ_H
#define SIDECORE_VIRTIO_VIRTQ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <linux/virtio_ring.h>

#include "virtio/guest_mem.h"

/* virtio 1.1 §2.6: a split queue's size is a power of 2, at most 32768. */
#define VIRTQ_MAX_SIZE			32768

/*
 * The most buffers one chain may map. Linux's virtio-net never builds more
 * than MAX_SKB_FRAGS + 2 (19); a longer chain is treated as malformed.
 */
#define VIRTQ_CHAIN_MAX_SEGMENTS	64

/* One guest buffer of a chain, mapped into the hypervisor. */
struct virtq_segment {
	uint8_t *data;
	uint32_t len;
	bool writable;		/* VRING_DESC_F_WRITE: the device fills it */
};

/*
 * A descriptor chain as virtq_pop() found it. Readable segments come first
 * (virtio 1.1 §2.6.4.2); every segment holds at least one byte (a
 * zero-length descriptor breaks the queue).
 */
struct virtq_chain {
	uint16_t head;		/* descriptor index to hand back in virtq_push() */
	uint16_t count;		/* segments in use */
	uint32_t readable;	/* bytes in the device-readable segments */
	uint32_t writable;	/* bytes in the device-writable segments */
	struct virtq_segment segment[VIRTQ_CHAIN_MAX_SEGMENTS];
};

/* What the driver programmed through the transport (queue_size, queue_desc...). */
struct virtq_layout {
	uint32_t size;
	uint64_t desc;		/* guest-physical addresses of the three parts */
	uint64_t avail;
	uint64_t used;
};

struct virtq {
	const struct guest_mem *mem;
	const char *name;	/* the device's name, for messages */
	unsigned int index;	/* queue index within the device */

	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	__virtio16 *used_event;	/* avail->ring[size], with EVENT_IDX */
	__virtio16 *avail_event;	/* after used->ring[size], with EVENT_IDX */
	uint32_t size;

	uint16_t avail_idx;	/* last avail->idx read */
	uint16_t last_avail_idx;	/* next avail ring entry to consume */
	uint16_t used_idx;	/* next used ring entry to fill */
	uint16_t signalled_used;	/* used_idx when interrupts were last considered */
	uint16_t avail_event_base;	/* last_avail_idx when avail_event was written */

	bool ready;
	bool event_idx;		/* VIRTIO_RING_F_EVENT_IDX negotiated */
	bool indirect;		/* VIRTIO_RING_F_INDIRECT_DESC negotiated */
	bool notify;		/* the driver is asked to notify (kick) */
	bool broken;
	const char *broken_reason;
};

/**
 * virtq_use_prefetchw() - say whether the CPU has PREFETCHW, once at boot.
 * @present: CPUID.80000001H:ECX.PRFCHW[bit 8]
 *
 * A receive buffer is then fetched ahead in the state a store needs,
 * rather than shared with the driver's core and taken from it again at
 * the copy (docs/data-path.md, "One pass of the poll loop"). Without it
 * the instruction may fault, and a plain prefetch stands in.
 */
void virtq_use_prefetchw(bool present);

/**
 * virtq_init() - prepare a queue slot of a device; the queue starts disabled.
 * @vq: the queue
 * @mem: the guest's RAM, which every ring and buffer address must lie in
 * @name: the device's name, quoted in messages (kept, not copied)
 * @index: the queue's index within the device, quoted in messages
 */
void virtq_init(struct virtq *vq, const struct guest_mem *mem, const char *name,
		unsigned int index);

/**
 * virtq_reset() - forget the driver's layout and any breakage (device reset).
 * @vq: the queue
 */
void virtq_reset(struct virtq *vq);

/**
 * virtq_enable() - start serving a queue the driver has laid out.
 * @vq: the queue, freshly reset
 * @layout: size and addresses the driver programmed
 * @features: the negotiated feature bits (EVENT_IDX and INDIRECT_DESC matter)
 *
 * Checks the size and the placement of all three parts, then asks the driver
 * not to notify: the sidecore polls.
 *
 * Return: 0, or -1 with the queue broken.
 */
int virtq_enable(struct virtq *vq, const struct virtq_layout *layout, uint64_t features);

/**
 * virtq_pending() - whether the driver has made buffers available.
 * @vq: the queue
 *
 * A cheap look at avail->idx for a poll loop; virtq_pop() does the checking.
 *
 * Return: true when virtq_pop() has something to look at.
 */
bool virtq_pending(const struct virtq *vq);

/**
 * virtq_avail_idx() - the driver's available index as it stands now.
 * @vq: the queue, enabled
 *
 * An unchecked look for a caller that only asks whether the driver added
 * buffers since it last looked; virtq_pop() does the checking.
 *
 * Return: avail->idx.
 */
static inline uint16_t virtq_avail_idx(const struct virtq *vq)
{
	return __atomic_load_n(&vq->avail->idx, __ATOMIC_RELAXED);
}

/**
 * virtq_pop() - take the next available descriptor chain.
 * @vq: the queue
 * @chain: filled with the chain's head and mapped segments
 *
 * Return: 1 with @chain filled, 0 when the ring is empty (or the queue not
 * enabled), -1 when the queue is broken (now or before).
 */
int virtq_pop(struct virtq *vq, struct virtq_chain *chain);

/**
 * virtq_chain_at() - walk again a chain the device took and still holds
 * @vq: the queue
 * @head: the chain's head, as virtq_pop() gave it
 * @chain: filled in as by virtq_pop()
 *
 * For a device that completes chains out of order (§2.6.8: used buffers
 * need not follow the available order): the driver may have rewritten the
 * descriptors meanwhile, so everything is checked as on the first walk.
 *
 * Return: 0, or -1 when the chain is malformed now: the queue is broken.
 */
int virtq_chain_at(struct virtq *vq, uint16_t head, struct virtq_chain *chain);

/**
 * virtq_unpop() - give back the last chains taken, unused.
 * @vq: the queue
 * @count: how many of the most recent virtq_pop() results to return
 *
 * They become available again, so the next virtq_pop() sees them afresh.
 */
void virtq_unpop(struct virtq *vq, uint16_t count);

/**
 * virtq_push() - hand a chain back in the used ring.
 * @vq: the queue
 * @head: the chain's head, as virtq_pop() returned it
 * @written: bytes the device wrote into the chain's writable segments
 *
 * The driver sees it after the next virtq_publish().
 */
void virtq_push(struct virtq *vq, uint16_t head, uint32_t written);

/**
 * virtq_unpush() - take back the last used entries not yet published.
 * @vq: the queue
 * @count: how many of the most recent virtq_push() entries to drop
 */
void virtq_unpush(struct virtq *vq, uint16_t count);

/**
 * virtq_publish() - let the driver see every pushed entry (writes used->idx).
 * @vq: the queue
 */
void virtq_publish(struct virtq *vq);

/**
 * virtq_needs_interrupt() - whether the driver asked for an interrupt for
 * the entries published since this was last called.
 * @vq: the queue, just published
 *
 * Follows avail->flags, or used_event with EVENT_IDX (virtio 1.1 §2.6.7.2).
 *
 * Return: true when the caller should send the queue's interrupt.
 */
bool virtq_needs_interrupt(struct virtq *vq);

/**
 * virtq_all_taken() - whether the driver has taken every used entry.
 * @vq: the queue, everything pushed on it published
 *
 * With EVENT_IDX a driver that has taken all there was and waits for more
 * asks to be interrupted at the next entry: used_event equals the used
 * index (virtio 1.1 §2.6.7.2; Linux's virtqueue_enable_cb_prepare() when
 * its NAPI poll ends). A driver still polling has its used_event behind.
 *
 * Return: true when it has; false while it may not have, and always
 * without EVENT_IDX, where the device cannot tell.
 */
bool virtq_all_taken(const struct virtq *vq);

/**
 * virtq_disable_notify() - ask the driver not to notify (the default).
 * @vq: the queue
 *
 * Without EVENT_IDX this sets VRING_USED_F_NO_NOTIFY. With EVENT_IDX, where
 * used->flags must stay 0 (virtio 1.1 §2.6.10.2), avail_event is parked
 * beyond the entries the driver can add before virtq_pop() moves it on, so
 * its notify check never fires, even for a batch we consume while the
 * driver is still adding to it.
 */
void virtq_disable_notify(struct virtq *vq);

/**
 * virtq_enable_notify() - ask the driver to notify on its next buffer.
 * @vq: the queue, to be left idle until the notification
 *
 * For a sidecore about to stop polling. Call virtq_disable_notify() again
 * before popping.
 *
 * Return: true when buffers arrived meanwhile: poll again instead of waiting.
 */
bool virtq_enable_notify(struct virtq *vq);

/**
 * virtq_break() - mark a queue broken for a reason found above the ring level.
 * @vq: the queue
 * @reason: a constant string saying what the driver did wrong
 * @detail: a number that pins it down (an index, a length)
 *
 * Logs the first reason only.
 */
void virtq_break(struct virtq *vq, const char *reason, uint64_t detail);

/**
 * virtq_is_broken() - whether the driver broke a rule of the ring.
 * @vq: the queue
 *
 * Return: true from the first violation until virtq_reset(); broken_reason
 * then says which.
 */
static inline bool virtq_is_broken(const struct virtq *vq)
{
	return vq->broken;
}

/**
 * virtq_chain_head() - copy a chain's first bytes where its first segment holds them all.
 * @chain: the chain
 * @buf: destination
 * @len: bytes to copy
 *
 * Drivers lay a header out in one segment; with @len a constant the copy is
 * plain moves (docs/data-path.md "Copies"), and the caller walks the
 * segments only where this returns false. The guest may rewrite the
 * segment meanwhile: @buf is what to use.
 *
 * Return: whether it copied.
 */
static inline bool virtq_chain_head(const struct virtq_chain *chain, void *buf, uint32_t len)
{
	if (!chain->count || chain->segment[0].len < len)
		return false;
	memcpy(buf, chain->segment[0].data, len);
	/* Use only this copy, whatever the guest writes next. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

#endif
