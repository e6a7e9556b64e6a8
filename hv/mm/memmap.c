/* SPDX-License-Identifier: MIT */
/*
 * memmap.c - sets of physical address ranges.
 *
 * Invariants kept by every function here: ranges are sorted by base, none is
 * empty, and no two overlap or touch (touching ranges are merged). Every
 * stored range also ends at or below UINT64_MAX, so base + length never
 * overflows; a request that would cross the top of the address space is
 * refused instead of being stored in a form the next caller cannot compute.
 *
 * A function that cannot finish (table full, range wraps) checks that before
 * it changes anything, so a failed call leaves the map exactly as it was.
 */
#include <stddef.h>
#include <string.h>

#include "mm/memmap.h"

static uint64_t range_end(const struct mem_range *range)
{
	return range->base + range->length;
}

/* True when [base, base+length) crosses the top of the address space. */
static bool range_wraps(uint64_t base, uint64_t length)
{
	return length > UINT64_MAX - base;
}

/* Opens a hole at index, shifting the ranges above it up by one. */
static void memmap_insert_slot(struct memmap *map, unsigned int index)
{
	memmove(&map->range[index + 1], &map->range[index],
		(map->count - index) * sizeof(map->range[0]));
	map->count++;
}

/* Deletes count ranges starting at index, shifting the rest down. */
static void memmap_delete_slots(struct memmap *map, unsigned int index,
				unsigned int count)
{
	memmove(&map->range[index], &map->range[index + count],
		(map->count - index - count) * sizeof(map->range[0]));
	map->count -= count;
}

/**
 * memmap_init() - make a map empty
 * @map: the map
 */
void memmap_init(struct memmap *map)
{
	map->count = 0;
}

/**
 * memmap_add() - add a range, merging it with every range it overlaps or touches
 * @map: the map
 * @base: first address of the range
 * @length: length in bytes; zero adds nothing and succeeds
 *
 * Return: true on success; false, with the map unchanged, when the range
 * wraps past the top of the address space or would need a slot in a full
 * table.
 */
bool memmap_add(struct memmap *map, uint64_t base, uint64_t length)
{
	uint64_t end, merged_base, merged_end;
	unsigned int first, last;

	if (range_wraps(base, length))
		return false;
	if (length == 0)
		return true;
	end = base + length;

	/* Ranges ending before base and not touching it stay untouched. */
	for (first = 0; first < map->count; first++)
		if (range_end(&map->range[first]) >= base)
			break;

	/* [first, last) are the ranges that overlap or touch the new one. */
	for (last = first; last < map->count; last++)
		if (map->range[last].base > end)
			break;

	if (first == last) {
		if (map->count == MEMMAP_MAX_RANGES)
			return false;
		memmap_insert_slot(map, first);
		map->range[first].base = base;
		map->range[first].length = length;
		return true;
	}

	merged_base = map->range[first].base < base ? map->range[first].base : base;
	merged_end = range_end(&map->range[last - 1]);
	if (merged_end < end)
		merged_end = end;
	map->range[first].base = merged_base;
	map->range[first].length = merged_end - merged_base;
	memmap_delete_slots(map, first + 1, last - first - 1);
	return true;
}

/**
 * memmap_remove() - remove a range wherever it overlaps the map
 * @map: the map
 * @base: first address of the range
 * @length: length in bytes; zero removes nothing and succeeds
 *
 * Removing from the middle of a range splits it in two, which needs a slot.
 *
 * Return: true on success; false, with the map unchanged, when the range
 * wraps or when a split is needed and the table is full.
 */
bool memmap_remove(struct memmap *map, uint64_t base, uint64_t length)
{
	uint64_t end;
	unsigned int i;

	if (range_wraps(base, length))
		return false;
	if (length == 0)
		return true;
	end = base + length;

	i = 0;
	while (i < map->count) {
		struct mem_range *range = &map->range[i];
		uint64_t r_base = range->base, r_end = range_end(range);

		if (r_end <= base) {
			i++;
			continue;
		}
		if (r_base >= end)
			break;

		if (r_base < base && r_end > end) {
			/* Only one range can strictly contain the hole. */
			if (map->count == MEMMAP_MAX_RANGES)
				return false;
			memmap_insert_slot(map, i + 1);
			map->range[i].length = base - r_base;
			map->range[i + 1].base = end;
			map->range[i + 1].length = r_end - end;
			return true;
		}
		if (r_base < base) {
			range->length = base - r_base;
			i++;
		} else if (r_end > end) {
			range->base = end;
			range->length = r_end - end;
			i++;
		} else {
			memmap_delete_slots(map, i, 1);
		}
	}
	return true;
}

/**
 * memmap_clip() - keep only the parts of the map inside a window
 * @map: the map
 * @base: first address of the window
 * @length: length of the window in bytes
 *
 * A window that would cross the top of the address space is taken to end
 * there, which loses nothing because no stored range goes beyond it.
 */
void memmap_clip(struct memmap *map, uint64_t base, uint64_t length)
{
	uint64_t end = range_wraps(base, length) ? UINT64_MAX : base + length;
	unsigned int i, kept = 0;

	for (i = 0; i < map->count; i++) {
		uint64_t r_base = map->range[i].base;
		uint64_t r_end = range_end(&map->range[i]);

		if (r_base < base)
			r_base = base;
		if (r_end > end)
			r_end = end;
		if (r_base >= r_end)
			continue;
		map->range[kept].base = r_base;
		map->range[kept].length = r_end - r_base;
		kept++;
	}
	map->count = kept;
}

/**
 * memmap_total() - number of bytes in the map
 * @map: the map
 *
 * Return: the sum of all range lengths. It cannot overflow: the ranges are
 * disjoint and all end at or below UINT64_MAX.
 */
uint64_t memmap_total(const struct memmap *map)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < map->count; i++)
		total += map->range[i].length;
	return total;
}

/**
 * memmap_contains() - whether a range lies wholly inside the map
 * @map: the map
 * @base: first address of the range
 * @length: length in bytes
 *
 * Because touching ranges are merged, a range is covered only if a single
 * stored range covers it.
 *
 * Return: true when every byte of [base, base+length) is in the map; an
 * empty range is contained, a wrapping one never is.
 */
bool memmap_contains(const struct memmap *map, uint64_t base, uint64_t length)
{
	unsigned int i;

	if (range_wraps(base, length))
		return false;
	if (length == 0)
		return true;
	for (i = 0; i < map->count; i++) {
		const struct mem_range *range = &map->range[i];

		if (range->base > base)
			break;
		if (base + length <= range_end(range))
			return true;
	}
	return false;
}

/**
 * memmap_overlaps() - whether any byte of a range is in the map
 * @map: the map
 * @base: first address of the range
 * @length: length in bytes
 *
 * Return: true when [base, base+length) shares at least one byte with the
 * map; a wrapping range is tested up to the top of the address space.
 */
bool memmap_overlaps(const struct memmap *map, uint64_t base, uint64_t length)
{
	uint64_t end = range_wraps(base, length) ? UINT64_MAX : base + length;
	unsigned int i;

	if (length == 0)
		return false;
	for (i = 0; i < map->count; i++) {
		const struct mem_range *range = &map->range[i];

		if (range->base >= end)
			break;
		if (range_end(range) > base)
			return true;
	}
	return false;
}
