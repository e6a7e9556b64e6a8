/* SPDX-License-Identifier: MIT */
/*
 * test_memmap.c - unit tests for hv/mm/memmap.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mm/memmap.h"

#define KIB 0x400ull
#define MIB 0x100000ull
#define GIB 0x40000000ull

/* Sorted, non-empty, non-overlapping, non-touching, and no range past the top. */
static void assert_map_valid(const struct memmap *map)
{
	unsigned int i;

	assert_true(map->count <= MEMMAP_MAX_RANGES);
	for (i = 0; i < map->count; i++) {
		assert_true(map->range[i].length > 0);
		assert_true(map->range[i].length <= UINT64_MAX - map->range[i].base);
		if (i > 0)
			assert_true(map->range[i - 1].base + map->range[i - 1].length <
				    map->range[i].base);
	}
}

static void assert_range(const struct memmap *map, unsigned int index,
			 uint64_t base, uint64_t length)
{
	assert_true(index < map->count);
	assert_int_equal(map->range[index].base, base);
	assert_int_equal(map->range[index].length, length);
}

/* Fills the table with MEMMAP_MAX_RANGES ranges [i*2M, i*2M+1M). */
static void fill_map(struct memmap *map)
{
	unsigned int i;

	memmap_init(map);
	for (i = 0; i < MEMMAP_MAX_RANGES; i++)
		assert_true(memmap_add(map, i * 2 * MIB, MIB));
	assert_int_equal(map->count, MEMMAP_MAX_RANGES);
}

static void test_init_is_empty(void **state)
{
	struct memmap map;

	(void)state;
	memset(&map, 0xa5, sizeof(map));
	memmap_init(&map);
	assert_int_equal(map.count, 0);
	assert_int_equal(memmap_total(&map), 0);
	assert_false(memmap_contains(&map, 0, 1));
	assert_false(memmap_overlaps(&map, 0, UINT64_MAX));
}

static void test_add_keeps_order(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 4 * GIB, GIB));
	assert_true(memmap_add(&map, MIB, MIB));
	assert_true(memmap_add(&map, GIB, GIB));
	assert_map_valid(&map);
	assert_int_equal(map.count, 3);
	assert_range(&map, 0, MIB, MIB);
	assert_range(&map, 1, GIB, GIB);
	assert_range(&map, 2, 4 * GIB, GIB);
	assert_int_equal(memmap_total(&map), 2 * GIB + MIB);
}

static void test_add_merges_touching(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x1000, 0x1000));
	assert_true(memmap_add(&map, 0x2000, 0x1000));	/* touches the end */
	assert_true(memmap_add(&map, 0x0, 0x1000));	/* touches the start */
	assert_int_equal(map.count, 1);
	assert_range(&map, 0, 0, 0x3000);
}

static void test_add_bridges_several(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x1000, 0x1000));
	assert_true(memmap_add(&map, 0x3000, 0x1000));
	assert_true(memmap_add(&map, 0x5000, 0x1000));
	assert_true(memmap_add(&map, 0x9000, 0x1000));
	assert_true(memmap_add(&map, 0x1800, 0x4000));	/* overlaps three */
	assert_map_valid(&map);
	assert_int_equal(map.count, 2);
	assert_range(&map, 0, 0x1000, 0x5000);
	assert_range(&map, 1, 0x9000, 0x1000);
}

static void test_add_overlap_and_inside(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x10000, 0x10000));
	assert_true(memmap_add(&map, 0x14000, 0x1000));	/* inside */
	assert_range(&map, 0, 0x10000, 0x10000);
	assert_true(memmap_add(&map, 0x8000, 0x10000));	/* overlaps the start */
	assert_true(memmap_add(&map, 0x1f000, 0x4000));	/* overlaps the end */
	assert_true(memmap_add(&map, 0x0, 0x100000));	/* swallows everything */
	assert_int_equal(map.count, 1);
	assert_range(&map, 0, 0, 0x100000);
}

static void test_add_zero_length(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x1000, 0));
	assert_int_equal(map.count, 0);
	fill_map(&map);
	assert_true(memmap_add(&map, 0x7000000000ull, 0));
	assert_int_equal(map.count, MEMMAP_MAX_RANGES);
}

static void test_add_wrap_refused(void **state)
{
	struct memmap map, before;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, GIB, MIB));
	before = map;
	assert_false(memmap_add(&map, UINT64_MAX - 0xfff, 0x2000));
	assert_false(memmap_add(&map, 1, UINT64_MAX));
	assert_false(memmap_add(&map, UINT64_MAX, UINT64_MAX));
	/* Ending exactly at the top of the address space would need 2^64. */
	assert_false(memmap_add(&map, UINT64_MAX - 0xfff, 0x1000));
	assert_memory_equal(&map, &before, sizeof(map));

	/* The highest range that can be stored ends at UINT64_MAX. */
	assert_true(memmap_add(&map, UINT64_MAX - 0x1000, 0x1000));
	assert_true(memmap_add(&map, 0, UINT64_MAX));
	assert_int_equal(map.count, 1);
	assert_range(&map, 0, 0, UINT64_MAX);
	assert_int_equal(memmap_total(&map), UINT64_MAX);
}

static void test_add_full_table(void **state)
{
	struct memmap map, before;

	(void)state;
	fill_map(&map);
	assert_map_valid(&map);
	before = map;

	/* A new separate range needs a slot. */
	assert_false(memmap_add(&map, 1000 * GIB, MIB));
	assert_false(memmap_add(&map, MIB + 0x1000, 0x1000));
	assert_memory_equal(&map, &before, sizeof(map));

	/* Growing or merging needs none. */
	assert_true(memmap_add(&map, MIB, 0x1000));
	assert_int_equal(map.count, MEMMAP_MAX_RANGES);
	assert_range(&map, 0, 0, MIB + 0x1000);
	assert_true(memmap_add(&map, MIB, 3 * MIB));	/* bridges ranges 0, 1, 2 */
	assert_int_equal(map.count, MEMMAP_MAX_RANGES - 2);
	assert_range(&map, 0, 0, 5 * MIB);
	assert_map_valid(&map);
	assert_true(memmap_add(&map, 1000 * GIB, MIB));
	assert_int_equal(map.count, MEMMAP_MAX_RANGES - 1);
}

static void test_remove_cases(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x10000, 0x10000));

	assert_true(memmap_remove(&map, 0x8000, 0x9000));	/* head */
	assert_range(&map, 0, 0x11000, 0xf000);
	assert_true(memmap_remove(&map, 0x1f000, 0x8000));	/* tail */
	assert_range(&map, 0, 0x11000, 0xe000);
	assert_true(memmap_remove(&map, 0x14000, 0x2000));	/* middle: split */
	assert_int_equal(map.count, 2);
	assert_range(&map, 0, 0x11000, 0x3000);
	assert_range(&map, 1, 0x16000, 0x9000);
	assert_true(memmap_remove(&map, 0x100000, 0x1000));	/* no overlap */
	assert_true(memmap_remove(&map, 0x14000, 0x2000));	/* the hole again */
	assert_true(memmap_remove(&map, 0x11000, 0));		/* nothing */
	assert_int_equal(map.count, 2);
	assert_true(memmap_remove(&map, 0x11000, 0x3000));	/* exactly one range */
	assert_int_equal(map.count, 1);
	assert_range(&map, 0, 0x16000, 0x9000);
	assert_map_valid(&map);
}

static void test_remove_across_ranges(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x1000, 0x1000));
	assert_true(memmap_add(&map, 0x3000, 0x1000));
	assert_true(memmap_add(&map, 0x5000, 0x1000));
	assert_true(memmap_add(&map, 0x7000, 0x1000));
	assert_true(memmap_remove(&map, 0x1800, 0x4000));	/* [0x1800, 0x5800) */
	assert_map_valid(&map);
	assert_int_equal(map.count, 3);
	assert_range(&map, 0, 0x1000, 0x800);
	assert_range(&map, 1, 0x5800, 0x800);
	assert_range(&map, 2, 0x7000, 0x1000);
	assert_true(memmap_remove(&map, 0, UINT64_MAX));
	assert_int_equal(map.count, 0);
}

static void test_remove_wrap_refused(void **state)
{
	struct memmap map, before;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x1000, 0x10000));
	before = map;
	assert_false(memmap_remove(&map, 0x2000, UINT64_MAX));
	assert_memory_equal(&map, &before, sizeof(map));
}

static void test_remove_full_table(void **state)
{
	struct memmap map, before;

	(void)state;
	fill_map(&map);
	before = map;
	/* Splitting needs a slot that is not there. */
	assert_false(memmap_remove(&map, 0x1000, 0x1000));
	assert_memory_equal(&map, &before, sizeof(map));
	/* Trimming and deleting do not. */
	assert_true(memmap_remove(&map, 0, 0x1000));
	assert_range(&map, 0, 0x1000, MIB - 0x1000);
	assert_true(memmap_remove(&map, 2 * MIB, MIB));
	assert_int_equal(map.count, MEMMAP_MAX_RANGES - 1);
	/* Now a split fits. */
	assert_true(memmap_remove(&map, 0x2000, 0x1000));
	assert_int_equal(map.count, MEMMAP_MAX_RANGES);
	assert_map_valid(&map);
}

static void test_clip(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0, 0xa0000));
	assert_true(memmap_add(&map, MIB, 3 * GIB - MIB));
	assert_true(memmap_add(&map, 4 * GIB, 4 * GIB));

	memmap_clip(&map, 2 * GIB, 4 * GIB);
	assert_map_valid(&map);
	assert_int_equal(map.count, 2);
	assert_range(&map, 0, 2 * GIB, GIB);
	assert_range(&map, 1, 4 * GIB, 2 * GIB);

	memmap_clip(&map, 3 * GIB, GIB);	/* falls in the hole */
	assert_int_equal(map.count, 0);
}

static void test_clip_window_wraps(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0, GIB));
	assert_true(memmap_add(&map, UINT64_MAX - GIB, GIB));
	/* A window running past the top keeps everything above its base. */
	memmap_clip(&map, GIB / 2, UINT64_MAX);
	assert_int_equal(map.count, 2);
	assert_range(&map, 0, GIB / 2, GIB / 2);
	assert_range(&map, 1, UINT64_MAX - GIB, GIB);
	memmap_clip(&map, 0, 0);
	assert_int_equal(map.count, 0);
}

static void test_contains(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x1000, 0x3000));
	assert_true(memmap_add(&map, 0x8000, 0x1000));
	assert_true(memmap_contains(&map, 0x1000, 0x3000));
	assert_true(memmap_contains(&map, 0x2000, 0x1000));
	assert_true(memmap_contains(&map, 0x8fff, 1));
	assert_true(memmap_contains(&map, 0x123456, 0));
	assert_false(memmap_contains(&map, 0x0fff, 2));
	assert_false(memmap_contains(&map, 0x3fff, 2));
	assert_false(memmap_contains(&map, 0x1000, 0x8000));	/* spans the gap */
	assert_false(memmap_contains(&map, 0x9000, 1));
	assert_false(memmap_contains(&map, 0x2000, UINT64_MAX));
}

static void test_overlaps(void **state)
{
	struct memmap map;

	(void)state;
	memmap_init(&map);
	assert_true(memmap_add(&map, 0x1000, 0x1000));
	assert_true(memmap_add(&map, UINT64_MAX - 0x1000, 0x1000));
	assert_true(memmap_overlaps(&map, 0x1fff, 0x10));
	assert_true(memmap_overlaps(&map, 0, 0x1001));
	assert_false(memmap_overlaps(&map, 0, 0x1000));
	assert_false(memmap_overlaps(&map, 0x2000, 0x1000));
	assert_false(memmap_overlaps(&map, 0x1000, 0));
	assert_true(memmap_overlaps(&map, 0x2000, UINT64_MAX));	/* wraps: up to the top */
	assert_false(memmap_overlaps(&map, UINT64_MAX, 1));
}

/*
 * Random operations on a small address space, checked after every step
 * against a byte-per-page model.
 */
#define MODEL_PAGES 512
#define MODEL_PAGE 0x1000ull

static uint32_t lcg_state = 12345;

static uint32_t lcg_next(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return lcg_state >> 8;
}

static void assert_map_matches_model(const struct memmap *map,
				     const unsigned char model[MODEL_PAGES])
{
	unsigned int page;

	assert_map_valid(map);
	for (page = 0; page < MODEL_PAGES; page++)
		assert_int_equal(memmap_contains(map, page * MODEL_PAGE, MODEL_PAGE),
				 model[page]);
	assert_true(memmap_total(map) <= MODEL_PAGES * MODEL_PAGE);
}

static void test_random_against_model(void **state)
{
	unsigned char model[MODEL_PAGES] = { 0 };
	struct memmap map;
	unsigned int step, page;

	(void)state;
	memmap_init(&map);
	for (step = 0; step < 20000; step++) {
		unsigned int first = lcg_next() % MODEL_PAGES;
		unsigned int count = lcg_next() % (MODEL_PAGES - first) % 24;
		unsigned int op = lcg_next() % 16;
		uint64_t base = first * MODEL_PAGE, length = count * MODEL_PAGE;

		if (op < 8) {
			assert_true(memmap_add(&map, base, length));
			memset(model + first, 1, count);
		} else if (op < 15) {
			assert_true(memmap_remove(&map, base, length));
			memset(model + first, 0, count);
		} else {
			count = MODEL_PAGES - first - lcg_next() % (MODEL_PAGES - first);
			memmap_clip(&map, first * MODEL_PAGE, count * MODEL_PAGE);
			for (page = 0; page < MODEL_PAGES; page++)
				if (page < first || page >= first + count)
					model[page] = 0;
		}
		assert_map_matches_model(&map, model);
	}
}

int main(void)
{
	const struct CMUnitTest add_tests[] = {
		cmocka_unit_test(test_init_is_empty),
		cmocka_unit_test(test_add_keeps_order),
		cmocka_unit_test(test_add_merges_touching),
		cmocka_unit_test(test_add_bridges_several),
		cmocka_unit_test(test_add_overlap_and_inside),
		cmocka_unit_test(test_add_zero_length),
		cmocka_unit_test(test_add_wrap_refused),
		cmocka_unit_test(test_add_full_table),
	};
	const struct CMUnitTest remove_tests[] = {
		cmocka_unit_test(test_remove_cases),
		cmocka_unit_test(test_remove_across_ranges),
		cmocka_unit_test(test_remove_wrap_refused),
		cmocka_unit_test(test_remove_full_table),
	};
	const struct CMUnitTest query_tests[] = {
		cmocka_unit_test(test_clip),
		cmocka_unit_test(test_clip_window_wraps),
		cmocka_unit_test(test_contains),
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_random_against_model),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("memmap_add", add_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("memmap_remove", remove_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("memmap_query", query_tests, NULL, NULL);
	return failed;
}
