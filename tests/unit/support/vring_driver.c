/* SPDX-License-Identifier: MIT */
/*
 * vring_driver.c - a test driver for split virtqueues (virtio 1.1 §2.6.13).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/support/vring_driver.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static void *must_map(const struct vring_driver *drv, uint64_t gpa, uint64_t len)
{
	void *p = guest_mem_map(drv->mem, gpa, len);

	if (!p) {
		fprintf(stderr, "vring_driver: 0x%llx+0x%llx outside the test's guest memory\n",
			(unsigned long long)gpa, (unsigned long long)len);
		abort();
	}
	return p;
}

void vring_driver_init(struct vring_driver *drv, const struct guest_mem *mem, uint32_t size,
		       uint64_t base, uint64_t end)
{
	memset(drv, 0, sizeof(*drv));
	drv->mem = mem;
	drv->size = size;
	drv->desc_gpa = align_up(base, 16);
	drv->avail_gpa = drv->desc_gpa + 16ull * size;
	drv->used_gpa = align_up(drv->avail_gpa + 6 + 2ull * size, 4);
	drv->heap = align_up(drv->used_gpa + 6 + 8ull * size, 64);
	drv->heap_end = end;
	if (drv->heap > end)
		abort();
	drv->desc = must_map(drv, drv->desc_gpa, 16ull * size);
	drv->avail = must_map(drv, drv->avail_gpa, 6 + 2ull * size);
	drv->used = must_map(drv, drv->used_gpa, 6 + 8ull * size);
	memset(drv->desc, 0, drv->heap - drv->desc_gpa);
}

struct virtq_layout vring_driver_layout(const struct vring_driver *drv)
{
	return (struct virtq_layout){
		.size = drv->size,
		.desc = drv->desc_gpa,
		.avail = drv->avail_gpa,
		.used = drv->used_gpa,
	};
}

uint64_t vring_driver_alloc(struct vring_driver *drv, uint32_t len)
{
	uint64_t gpa = drv->heap;

	if (len > drv->heap_end - gpa) {
		fprintf(stderr, "vring_driver: out of guest memory for a %u-byte buffer\n", len);
		abort();
	}
	drv->heap = align_up(gpa + len, 16);
	if (drv->heap > drv->heap_end)
		drv->heap = drv->heap_end;
	return gpa;
}

void *vring_driver_ptr(const struct vring_driver *drv, uint64_t gpa)
{
	return must_map(drv, gpa, 1);
}

static void fill_desc(struct vring_desc *d, const struct vring_buf *buf, bool last,
		      uint16_t next)
{
	d->addr = buf->gpa;
	d->len = buf->len;
	d->flags = (buf->writable ? VRING_DESC_F_WRITE : 0) | (last ? 0 : VRING_DESC_F_NEXT);
	d->next = last ? 0 : next;
}

uint16_t vring_driver_add_chain(struct vring_driver *drv, const struct vring_buf *bufs,
				unsigned int count)
{
	uint16_t mask = drv->size - 1, head = drv->next_desc & mask;

	for (unsigned int i = 0; i < count; i++) {
		uint16_t index = (drv->next_desc + i) & mask;

		fill_desc(&drv->desc[index], &bufs[i], i + 1 == count, (index + 1) & mask);
	}
	drv->next_desc += count;
	return head;
}

uint16_t vring_driver_add_indirect(struct vring_driver *drv, const struct vring_buf *bufs,
				   unsigned int count)
{
	uint64_t table_gpa = vring_driver_alloc(drv, 16 * count);
	struct vring_desc *table = must_map(drv, table_gpa, 16ull * count);
	uint16_t head = drv->next_desc & (drv->size - 1);

	for (unsigned int i = 0; i < count; i++)
		fill_desc(&table[i], &bufs[i], i + 1 == count, i + 1);
	drv->desc[head] = (struct vring_desc){
		.addr = table_gpa,
		.len = 16 * count,
		.flags = VRING_DESC_F_INDIRECT,
	};
	drv->next_desc++;
	return head;
}

void vring_driver_make_available(struct vring_driver *drv, uint16_t head)
{
	drv->avail->ring[drv->avail_idx & (drv->size - 1)] = head;
	drv->avail_idx++;
	__atomic_store_n(&drv->avail->idx, drv->avail_idx, __ATOMIC_RELEASE);
}

uint16_t vring_driver_post(struct vring_driver *drv, const struct vring_buf *bufs,
			   unsigned int count, bool indirect)
{
	uint16_t head = indirect ? vring_driver_add_indirect(drv, bufs, count) :
				   vring_driver_add_chain(drv, bufs, count);

	vring_driver_make_available(drv, head);
	return head;
}

uint64_t vring_driver_post_rx(struct vring_driver *drv, uint32_t len)
{
	struct vring_buf buf = { vring_driver_alloc(drv, len), len, true };

	vring_driver_post(drv, &buf, 1, false);
	return buf.gpa;
}

bool vring_driver_take_used(struct vring_driver *drv, uint32_t *id, uint32_t *len)
{
	const struct vring_used_elem *elem;

	if (__atomic_load_n(&drv->used->idx, __ATOMIC_ACQUIRE) == drv->last_used)
		return false;
	elem = &drv->used->ring[drv->last_used & (drv->size - 1)];
	*id = elem->id;
	*len = elem->len;
	drv->last_used++;
	return true;
}

uint16_t vring_driver_used_idx(const struct vring_driver *drv)
{
	return __atomic_load_n(&drv->used->idx, __ATOMIC_ACQUIRE);
}

void vring_driver_set_used_event(struct vring_driver *drv, uint16_t value)
{
	drv->avail->ring[drv->size] = value;
}

uint16_t vring_driver_avail_event(const struct vring_driver *drv)
{
	return *(const __virtio16 *)&drv->used->ring[drv->size];
}

bool vring_driver_must_notify(const struct vring_driver *drv, uint16_t old, bool event_idx)
{
	if (event_idx)
		return vring_need_event(vring_driver_avail_event(drv), drv->avail_idx, old);
	return !(drv->used->flags & VRING_USED_F_NO_NOTIFY);
}
