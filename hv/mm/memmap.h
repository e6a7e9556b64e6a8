/* SPDX-License-Identifier: MIT */
/*
 * memmap.h - sets of physical address ranges.
 *
 * A memmap keeps its ranges sorted, non-overlapping and merged, so "RAM minus
 * the image minus the modules" is a sequence of memmap_add/memmap_remove calls.
 */
#ifndef SIDECORE_MM_MEMMAP_H
#define SIDECORE_MM_MEMMAP_H

#include <stdbool.h>
#include <stdint.h>

#define MEMMAP_MAX_RANGES 128

struct mem_range {
	uint64_t base;
	uint64_t length;
};

struct memmap {
	struct mem_range range[MEMMAP_MAX_RANGES];
	unsigned int count;
};

void memmap_init(struct memmap *map);
/* Adds [base, base+length); merges neighbours. False when the table is full or the range wraps. */
bool memmap_add(struct memmap *map, uint64_t base, uint64_t length);
/*
 * Removes [base, base+length) wherever it overlaps; may split a range. False,
 * with the map unchanged, when a split needs a slot in a full table or the
 * range wraps.
 */
bool memmap_remove(struct memmap *map, uint64_t base, uint64_t length);
/*
 * Keeps only the parts of map that lie inside [base, base+length); a window
 * that wraps ends at the top of the address space.
 */
void memmap_clip(struct memmap *map, uint64_t base, uint64_t length);
uint64_t memmap_total(const struct memmap *map);
/* True when every byte of [base, base+length) is in map; true for length 0. */
bool memmap_contains(const struct memmap *map, uint64_t base, uint64_t length);
/* True when any byte of [base, base+length) is in map. */
bool memmap_overlaps(const struct memmap *map, uint64_t base, uint64_t length);

#endif
