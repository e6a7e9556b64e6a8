/* SPDX-License-Identifier: MIT */
/*
 * guest_mem.h - a guest's RAM as device models see it: guest-physical
 * [0, size) at host address base. Every address a guest hands a device goes
 * through guest_mem_map(), which refuses anything outside that range.
 */
#ifndef SIDECORE_VIRTIO_GUEST_MEM_H
#define SIDECORE_VIRTIO_GUEST_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "lib/log.h"

struct guest_mem {
	uint8_t *base;
	uint64_t size;
	/* The guest's bucket for lines about what it did with its rings; NULL: none. */
	const struct log_gate *log;
};

/* Host pointer to [gpa, gpa+len), or NULL when any byte lies outside the guest's RAM. */
static inline void *guest_mem_map(const struct guest_mem *mem, uint64_t gpa, uint64_t len)
{
	if (gpa >= mem->size || len > mem->size - gpa)
		return NULL;
	return mem->base + gpa;
}

#endif
