/* SPDX-License-Identifier: MIT */
/*
 * vring_driver.h - the driver's side of a split virtqueue, for tests.
 *
 * Lays out descriptor table, available and used ring in a fake guest RAM
 * (virtio 1.1 §2.6), hands out guest memory for buffers, posts chains (direct
 * or through an indirect table) and collects used entries, the way a guest
 * driver would. Tests that need a malformed ring write the descriptors
 * themselves through desc[] and publish them with vring_driver_make_available().
 */
#ifndef SIDECORE_TESTS_VRING_DRIVER_H
#define SIDECORE_TESTS_VRING_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/virtio_ring.h>

#include "virtio/guest_mem.h"
#include "virtio/virtq.h"

struct vring_buf {
	uint64_t gpa;
	uint32_t len;
	bool writable;
};

struct vring_driver {
	const struct guest_mem *mem;
	uint32_t size;
	uint64_t desc_gpa, avail_gpa, used_gpa;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t next_desc;	/* descriptors are handed out round-robin */
	uint16_t avail_idx;
	uint16_t last_used;
	uint64_t heap, heap_end;	/* guest memory for buffers and tables */
};

/*
 * Rings of size entries at gpa base (16-aligned); buffers come from the
 * rest of [base, end). Aborts if the rings do not fit.
 */
void vring_driver_init(struct vring_driver *drv, const struct guest_mem *mem, uint32_t size,
		       uint64_t base, uint64_t end);
struct virtq_layout vring_driver_layout(const struct vring_driver *drv);

/* len bytes of guest memory, 16-aligned; aborts when the area is used up. */
uint64_t vring_driver_alloc(struct vring_driver *drv, uint32_t len);
void *vring_driver_ptr(const struct vring_driver *drv, uint64_t gpa);

/* Writes a chain of count descriptors (or one pointing at an indirect table). */
uint16_t vring_driver_add_chain(struct vring_driver *drv, const struct vring_buf *bufs,
				unsigned int count);
uint16_t vring_driver_add_indirect(struct vring_driver *drv, const struct vring_buf *bufs,
				   unsigned int count);
/* Puts head into the available ring and moves avail->idx on. */
void vring_driver_make_available(struct vring_driver *drv, uint16_t head);
/* add_chain or add_indirect, then make_available. */
uint16_t vring_driver_post(struct vring_driver *drv, const struct vring_buf *bufs,
			   unsigned int count, bool indirect);
/* One writable buffer of len bytes, posted; returns its gpa. */
uint64_t vring_driver_post_rx(struct vring_driver *drv, uint32_t len);

/* The next used entry, if the device published one. */
bool vring_driver_take_used(struct vring_driver *drv, uint32_t *id, uint32_t *len);
uint16_t vring_driver_used_idx(const struct vring_driver *drv);

/* The event index words (VIRTIO_RING_F_EVENT_IDX, virtio 1.1 §2.6.7, §2.6.10). */
void vring_driver_set_used_event(struct vring_driver *drv, uint16_t value);
uint16_t vring_driver_avail_event(const struct vring_driver *drv);
/* Whether a driver would notify after publishing old..avail_idx (§2.6.10.1). */
bool vring_driver_must_notify(const struct vring_driver *drv, uint16_t old, bool event_idx);

#endif
