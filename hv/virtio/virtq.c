/* SPDX-License-Identifier: MIT */
/*
 * virtq.c - split virtqueue, device side (virtio 1.1 §2.6).
 *
 * The guest writes the descriptor table and the available ring while we read
 * them, so each descriptor is copied out once and only the copy is checked
 * and used. Memory ordering follows the driver's side of the protocol
 * (virtio 1.1 §2.6.13): avail->idx is read with acquire before the entries it
 * covers, used entries are written before used->idx with release, and a full
 * fence separates publishing used->idx from reading the driver's interrupt
 * suppression (the store-load order x86 does not give for free).
 */
#include <string.h>

#include <linux/virtio_config.h>

#include "lib/log.h"
#include "virtio/virtq.h"

/* Pops ahead of the one served that virtq_prefetch() reaches (docs/data-path.md). */
#define PREFETCH_DESC	4
#define PREFETCH_BUF	2
#define PREFETCH_BYTES	192	/* a small frame and its header, three lines */
#define PREFETCH_LINE	64

/* Set at boot, before any device runs; read only after. */
static bool prefetchw;

void virtq_use_prefetchw(bool present)
{
	prefetchw = present;
}

/* A line about to be written, fetched for ownership where the CPU can. */
static inline void virtq_prefetch_write(const void *p)
{
	if (prefetchw)
		asm volatile("prefetchw %0" : : "m"(*(const char *)p));
	else
		__builtin_prefetch(p, 1);
}

/*
 * With notifications disabled under EVENT_IDX, avail_event is parked where
 * the driver cannot reach it. The driver notifies when avail_event lies in
 * [old, new), old being its index at its previous notify check and new its
 * index now (virtio 1.1 §2.6.10.2). We consume while it adds, so old may be
 * well behind last_avail_idx: parking just behind last_avail_idx catches a
 * batch we drained halfway. But new is never more than the queue size ahead
 * of last_avail_idx, so a value the queue size plus the re-park interval
 * ahead of it stays out of every window until we re-park; only a batch of
 * more than 65535 minus that many entries between two checks could span it.
 */
#define AVAIL_EVENT_REPARK	0x1000

void virtq_break(struct virtq *vq, const char *reason, uint64_t detail)
{
	if (vq->broken)
		return;
	vq->broken = true;
	vq->broken_reason = reason;
	/* A guest can reset and break a queue again at will: each time costs it a token. */
	if (log_gate_allow(vq->mem->log))
		log_msg("virtio %s: queue %u: %s (%llu), stopped until device reset",
			vq->name, vq->index, reason, (unsigned long long)detail);
}

/* virtq_break() for return statements in functions that report -1. */
static int virtq_fail(struct virtq *vq, const char *reason, uint64_t detail)
{
	virtq_break(vq, reason, detail);
	return -1;
}

void virtq_init(struct virtq *vq, const struct guest_mem *mem, const char *name,
		unsigned int index)
{
	memset(vq, 0, sizeof(*vq));
	vq->mem = mem;
	vq->name = name;
	vq->index = index;
}

void virtq_reset(struct virtq *vq)
{
	virtq_init(vq, vq->mem, vq->name, vq->index);
}

int virtq_enable(struct virtq *vq, const struct virtq_layout *layout, uint64_t features)
{
	uint32_t size = layout->size;

	if (vq->broken)
		return -1;
	/* virtio 1.1 §2.6: sizes and alignments of the three parts. */
	if (size == 0 || size > VIRTQ_MAX_SIZE || (size & (size - 1)))
		return virtq_fail(vq, "queue size is not a power of 2 up to 32768", size);
	if (layout->desc % 16 || layout->avail % 2 || layout->used % 4)
		return virtq_fail(vq, "misaligned ring", layout->desc | layout->avail | layout->used);
	vq->desc = guest_mem_map(vq->mem, layout->desc, 16ull * size);
	vq->avail = guest_mem_map(vq->mem, layout->avail, 6 + 2ull * size);
	vq->used = guest_mem_map(vq->mem, layout->used, 6 + 8ull * size);
	if (!vq->desc || !vq->avail || !vq->used)
		return virtq_fail(vq, "ring outside guest memory",
				  !vq->desc ? layout->desc : !vq->avail ? layout->avail : layout->used);

	vq->size = size;
	vq->used_event = &vq->avail->ring[size];
	vq->avail_event = (__virtio16 *)&vq->used->ring[size];
	vq->event_idx = features & (1ull << VIRTIO_RING_F_EVENT_IDX);
	vq->indirect = features & (1ull << VIRTIO_RING_F_INDIRECT_DESC);
	vq->ready = true;
	virtq_disable_notify(vq);
	return 0;
}

bool virtq_pending(const struct virtq *vq)
{
	if (!vq->ready || vq->broken)
		return false;
	return vq->avail_idx != vq->last_avail_idx ||
	       __atomic_load_n(&vq->avail->idx, __ATOMIC_RELAXED) != vq->last_avail_idx;
}

/*
 * Re-reads avail->idx. The driver adds at most size entries beyond what we
 * consumed, and never takes any back (virtio 1.1 §2.6.6.1).
 */
static int virtq_fetch_avail(struct virtq *vq)
{
	uint16_t idx = __atomic_load_n(&vq->avail->idx, __ATOMIC_ACQUIRE);

	if ((uint16_t)(idx - vq->last_avail_idx) > vq->size)
		return virtq_fail(vq, "avail index ran more than the queue size ahead", idx);
	vq->avail_idx = idx;
	return idx != vq->last_avail_idx;
}

static void virtq_park_avail_event(struct virtq *vq)
{
	__atomic_store_n(vq->avail_event,
			 (uint16_t)(vq->last_avail_idx + vq->size + AVAIL_EVENT_REPARK), __ATOMIC_RELAXED);
	vq->avail_event_base = vq->last_avail_idx;
}

/* Copies descriptor index out of a table that may be anywhere (and anyhow aligned). */
static void virtq_read_desc(const uint8_t *table, uint32_t index, struct vring_desc *out)
{
	memcpy(out, table + (uint64_t)index * sizeof(*out), sizeof(*out));
	/* Use only this copy, whatever the guest writes next. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* State of a walk through one chain, direct table then maybe an indirect one. */
struct chain_walk {
	const uint8_t *table;
	uint32_t table_size;
	uint32_t visited;	/* descriptors read from this table */
	bool in_indirect;
	bool seen_writable;
	uint64_t total;
};

/* Switches the walk to the indirect table d points at (virtio 1.1 §2.6.5.3). */
static int virtq_enter_indirect(struct virtq *vq, struct chain_walk *w,
				const struct vring_desc *d)
{
	if (!vq->indirect)
		return virtq_fail(vq, "indirect descriptor without INDIRECT_DESC", d->len);
	if (w->in_indirect)
		return virtq_fail(vq, "indirect table inside an indirect table", d->len);
	if (d->flags & VRING_DESC_F_NEXT)
		return virtq_fail(vq, "indirect descriptor with NEXT", d->next);
	if (d->len == 0 || d->len % sizeof(struct vring_desc) ||
	    d->len / sizeof(struct vring_desc) > vq->size)
		return virtq_fail(vq, "bad indirect table length", d->len);
	w->table = guest_mem_map(vq->mem, d->addr, d->len);
	if (!w->table)
		return virtq_fail(vq, "indirect table outside guest memory", d->addr);
	w->table_size = d->len / sizeof(struct vring_desc);
	w->visited = 0;
	w->in_indirect = true;
	return 0;
}

/* Adds a buffer descriptor's segment to the chain. */
static int virtq_add_segment(struct virtq *vq, struct chain_walk *w,
			     struct virtq_chain *chain, const struct vring_desc *d)
{
	bool writable = d->flags & VRING_DESC_F_WRITE;
	struct virtq_segment *seg;

	/* virtio 1.1 §2.6.4.2: device-writable descriptors come last. */
	if (!writable && w->seen_writable)
		return virtq_fail(vq, "readable descriptor after a writable one", chain->head);
	w->seen_writable |= writable;
	/*
	 * A buffer of no bytes carries nothing, and no driver that works
	 * builds one (Linux maps only non-empty scatterlist entries): it is a
	 * driver bug or a probe, and it breaks the queue like any other.
	 */
	if (d->len == 0)
		return virtq_fail(vq, "zero-length descriptor", chain->head);
	/* virtio 1.1 §2.6.5.2: a chain holds less than 2^32 bytes. */
	w->total += d->len;
	if (w->total > UINT32_MAX)
		return virtq_fail(vq, "chain longer than 4 GiB", chain->head);
	/*
	 * virtio 1.1 §2.6.5.3.1: no chain is longer than the queue size, the
	 * descriptors before an indirect table and the table's together.
	 */
	if (chain->count == vq->size)
		return virtq_fail(vq, "chain longer than the queue size", chain->head);
	if (chain->count == VIRTQ_CHAIN_MAX_SEGMENTS)
		return virtq_fail(vq, "chain has too many buffers", chain->head);
	seg = &chain->segment[chain->count];
	seg->data = guest_mem_map(vq->mem, d->addr, d->len);
	if (!seg->data)
		return virtq_fail(vq, "buffer outside guest memory", d->addr);
	seg->len = d->len;
	seg->writable = writable;
	chain->count++;
	if (writable)
		chain->writable += d->len;
	else
		chain->readable += d->len;
	return 0;
}

/*
 * A chain with more buffers than a chain may hold (d, at index, being the
 * first one too many) is a long chain or a loop: in a table of more than
 * VIRTQ_CHAIN_MAX_SEGMENTS entries, only following its links to the end,
 * within the table's size, tells which. Reading links costs no more than
 * the walk of a legal chain as long as the table.
 */
static int virtq_too_many_buffers(struct virtq *vq, struct chain_walk *w,
				  const struct vring_desc *d, uint16_t head)
{
	struct vring_desc next = *d;

	while ((next.flags & VRING_DESC_F_NEXT) && !(next.flags & VRING_DESC_F_INDIRECT)) {
		if (next.next >= w->table_size)
			return virtq_fail(vq, "descriptor index out of range", next.next);
		if (++w->visited > w->table_size)
			return virtq_fail(vq, "descriptor chain loops", head);
		virtq_read_desc(w->table, next.next, &next);
	}
	return virtq_fail(vq, "chain has too many buffers", head);
}

/*
 * Walks on from d, the snapshot of descriptor index: zero or more direct
 * descriptors, possibly ending in one that points at an indirect table
 * (virtio 1.1 §2.6.5.3.2). A table can hold no longer chain than it has
 * entries, so a longer walk is a loop.
 */
static int virtq_walk_rest(struct virtq *vq, uint16_t head, struct virtq_chain *chain,
			   struct vring_desc d)
{
	struct chain_walk w = {
		.table = (const uint8_t *)vq->desc,
		.table_size = vq->size,
		.visited = 1,
	};
	uint32_t index;

	for (;;) {
		if (d.flags & VRING_DESC_F_INDIRECT) {
			if (virtq_enter_indirect(vq, &w, &d) < 0)
				return -1;
			index = 0;
		} else {
			if (chain->count == VIRTQ_CHAIN_MAX_SEGMENTS && chain->count < vq->size)
				return virtq_too_many_buffers(vq, &w, &d, head);
			if (virtq_add_segment(vq, &w, chain, &d) < 0)
				return -1;
			if (!(d.flags & VRING_DESC_F_NEXT))
				return 0;
			index = d.next;
		}
		if (index >= w.table_size)
			return virtq_fail(vq, "descriptor index out of range", index);
		if (++w.visited > w.table_size)
			return virtq_fail(vq, "descriptor chain loops", head);
		virtq_read_desc(w.table, index, &d);
	}
}

/*
 * The chain at head. Drivers mostly post one buffer per chain (Linux's
 * mergeable and vsock receive buffers, a small frame with its header):
 * that case takes a few checks inline, every other shape or a buffer that
 * fails them the full walk, from the same snapshot.
 */
static inline int virtq_walk_chain(struct virtq *vq, uint16_t head, struct virtq_chain *chain)
{
	struct vring_desc d;
	uint8_t *data;

	chain->head = head;
	chain->count = 0;
	chain->readable = 0;
	chain->writable = 0;
	if (head >= vq->size)
		return virtq_fail(vq, "descriptor index out of range", head);
	virtq_read_desc((const uint8_t *)vq->desc, head, &d);
	if (d.flags & (VRING_DESC_F_NEXT | VRING_DESC_F_INDIRECT) || !d.len)
		return virtq_walk_rest(vq, head, chain, d);
	data = guest_mem_map(vq->mem, d.addr, d.len);
	if (!data)
		return virtq_walk_rest(vq, head, chain, d);
	chain->segment[0] = (struct virtq_segment){ data, d.len, d.flags & VRING_DESC_F_WRITE };
	chain->count = 1;
	if (d.flags & VRING_DESC_F_WRITE)
		chain->writable = d.len;
	else
		chain->readable = d.len;
	return 0;
}

/*
 * While pop n is served, the descriptor of n + PREFETCH_DESC and the
 * first PREFETCH_BYTES of the buffer of n + PREFETCH_BUF are fetched into
 * the cache: the driver wrote them on another core, and a miss there
 * costs more than a pop's work, so several are kept in flight (beyond
 * them a long copy's stream is the hardware prefetcher's). Only published
 * entries are looked at; the descriptor read for the buffer's address is
 * a hint, bounds-checked like any address, and the walk reads and checks
 * it again.
 */
static void virtq_prefetch(const struct virtq *vq)
{
	uint16_t ahead = vq->avail_idx - vq->last_avail_idx, mask = (uint16_t)(vq->size - 1);
	struct vring_desc d;
	uint16_t next;
	uint8_t *data;
	uint32_t len;

	if (ahead > PREFETCH_DESC) {
		next = __atomic_load_n(&vq->avail->ring[(vq->last_avail_idx + PREFETCH_DESC) & mask],
				       __ATOMIC_RELAXED);
		__builtin_prefetch(&vq->desc[next & mask]);
	}
	if (ahead <= PREFETCH_BUF)
		return;
	next = __atomic_load_n(&vq->avail->ring[(vq->last_avail_idx + PREFETCH_BUF) & mask],
			       __ATOMIC_RELAXED);
	virtq_read_desc((const uint8_t *)vq->desc, next & mask, &d);
	len = d.len < PREFETCH_BYTES ? d.len : PREFETCH_BYTES;
	data = len ? guest_mem_map(vq->mem, d.addr, len) : NULL;
	if (!data)
		return;
	if (d.flags & VRING_DESC_F_WRITE) {
		for (uint32_t off = 0; off < len; off += PREFETCH_LINE)
			virtq_prefetch_write(data + off);
		return;
	}
	for (uint32_t off = 0; off < len; off += PREFETCH_LINE)
		__builtin_prefetch(data + off, 0);
}

int virtq_pop(struct virtq *vq, struct virtq_chain *chain)
{
	uint16_t head;
	int more;

	if (vq->broken)
		return -1;
	if (!vq->ready)
		return 0;
	if (vq->avail_idx == vq->last_avail_idx) {
		more = virtq_fetch_avail(vq);
		if (more <= 0)
			return more;
	}
	head = __atomic_load_n(&vq->avail->ring[vq->last_avail_idx & (vq->size - 1)],
			       __ATOMIC_RELAXED);
	if (virtq_walk_chain(vq, head, chain) < 0)
		return -1;
	vq->last_avail_idx++;
	virtq_prefetch(vq);
	if (vq->event_idx && !vq->notify &&
	    (uint16_t)(vq->last_avail_idx - vq->avail_event_base) >= AVAIL_EVENT_REPARK)
		virtq_park_avail_event(vq);
	return 1;
}

int virtq_chain_at(struct virtq *vq, uint16_t head, struct virtq_chain *chain)
{
	if (vq->broken)
		return -1;
	return virtq_walk_chain(vq, head, chain);
}

void virtq_unpop(struct virtq *vq, uint16_t count)
{
	vq->last_avail_idx -= count;
}

void virtq_push(struct virtq *vq, uint16_t head, uint32_t written)
{
	struct vring_used_elem *elem;

	if (!vq->ready || vq->broken)
		return;
	/* Ordered before used->idx by the release in virtq_publish(). */
	elem = &vq->used->ring[vq->used_idx & (vq->size - 1)];
	elem->id = head;
	elem->len = written;
	vq->used_idx++;
}

void virtq_unpush(struct virtq *vq, uint16_t count)
{
	vq->used_idx -= count;
}

void virtq_publish(struct virtq *vq)
{
	if (!vq->ready || vq->broken)
		return;
	__atomic_store_n(&vq->used->idx, vq->used_idx, __ATOMIC_RELEASE);
}

bool virtq_needs_interrupt(struct virtq *vq)
{
	uint16_t old = vq->signalled_used, new = vq->used_idx;

	if (!vq->ready || vq->broken || old == new)
		return false;
	vq->signalled_used = new;
	/* used->idx must be visible before we read what the driver asked for. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (vq->event_idx)
		return vring_need_event(__atomic_load_n(vq->used_event, __ATOMIC_RELAXED), new, old);
	return !(__atomic_load_n(&vq->avail->flags, __ATOMIC_RELAXED) & VRING_AVAIL_F_NO_INTERRUPT);
}

bool virtq_all_taken(const struct virtq *vq)
{
	if (!vq->ready || vq->broken || !vq->event_idx)
		return false;
	return __atomic_load_n(vq->used_event, __ATOMIC_RELAXED) == vq->used_idx;
}

void virtq_disable_notify(struct virtq *vq)
{
	if (!vq->ready || vq->broken)
		return;
	vq->notify = false;
	if (vq->event_idx)
		virtq_park_avail_event(vq);
	else
		__atomic_store_n(&vq->used->flags, VRING_USED_F_NO_NOTIFY, __ATOMIC_RELAXED);
}

bool virtq_enable_notify(struct virtq *vq)
{
	if (!vq->ready || vq->broken)
		return false;
	vq->notify = true;
	if (vq->event_idx)
		__atomic_store_n(vq->avail_event, vq->last_avail_idx, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&vq->used->flags, 0, __ATOMIC_RELAXED);
	/* The request must be visible before we look at avail->idx once more. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return virtq_pending(vq);
}
