/* SPDX-License-Identifier: MIT */
/*
 * test_page_alloc.c - unit tests for hv/mm/page_alloc.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mm/page_alloc.h"
#include "tests/unit/support/stderr_capture.h"

#define MIB 0x100000ull
#define GIB 0x40000000ull

static struct page_pool pool;
static char log_text[4096];

static int pool_setup(void **state)
{
	(void)state;
	page_pool_init(&pool);
	return 0;
}

static void assert_pool_consistent(const struct page_pool *p)
{
	unsigned int i;

	assert_true(page_pool_free_bytes(p) <= p->total_bytes);
	for (i = 0; i < p->free.count; i++) {
		assert_int_equal(p->free.range[i].base % PAGE_SIZE, 0);
		assert_int_equal(p->free.range[i].length % PAGE_SIZE, 0);
		assert_true(p->free.range[i].base != 0);
		if (i > 0)
			assert_true(p->free.range[i - 1].base + p->free.range[i - 1].length <
				    p->free.range[i].base);
	}
}

static void test_add_takes_whole_pages(void **state)
{
	(void)state;
	page_pool_add(&pool, 0x10234, 0x5000);	/* [0x10234, 0x15234) */
	assert_int_equal(pool.free.count, 1);
	assert_int_equal(pool.free.range[0].base, 0x11000);
	assert_int_equal(pool.free.range[0].length, 0x4000);
	assert_int_equal(pool.total_bytes, 0x4000);

	page_pool_add(&pool, 0x20001, 0xffe);	/* no whole page */
	page_pool_add(&pool, 0x30000, 0);
	assert_int_equal(pool.total_bytes, 0x4000);
	assert_int_equal(page_pool_free_bytes(&pool), 0x4000);
}

static void test_add_skips_page_zero(void **state)
{
	(void)state;
	page_pool_add(&pool, 0, 0x10000);
	assert_int_equal(page_pool_free_bytes(&pool), 0xf000);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE), 0x1000);
	page_pool_add(&pool, 0, PAGE_SIZE);
	assert_int_equal(pool.total_bytes, 0xf000);
}

static void test_add_refuses_bad_ranges(void **state)
{
	(void)state;
	page_pool_add(&pool, MIB, MIB);

	stderr_capture_begin();
	page_pool_add(&pool, MIB + 0x3000, MIB);	/* overlaps the pool */
	page_pool_add(&pool, UINT64_MAX - 0xfff, 0x2000);	/* wraps */
	stderr_capture_end(log_text, sizeof(log_text));

	assert_non_null(strstr(log_text, "already in the pool"));
	assert_non_null(strstr(log_text, "wraps"));
	assert_int_equal(pool.total_bytes, MIB);
	assert_int_equal(page_pool_free_bytes(&pool), MIB);

	/* The highest page that has an end address below 2^64. */
	page_pool_add(&pool, UINT64_MAX - 0x1fff, 0x1fff);
	assert_int_equal(pool.total_bytes, MIB + PAGE_SIZE);
	assert_pool_consistent(&pool);
}

static void test_alloc_lowest_first(void **state)
{
	uint64_t a, b, c;

	(void)state;
	page_pool_add(&pool, 16 * MIB, MIB);
	page_pool_add(&pool, MIB, MIB);
	a = page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE);
	b = page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE);
	c = page_pool_alloc(&pool, 4 * PAGE_SIZE, PAGE_SIZE);
	assert_int_equal(a, MIB);
	assert_int_equal(b, MIB + PAGE_SIZE);
	assert_int_equal(c, MIB + 2 * PAGE_SIZE);
	assert_int_equal(page_pool_free_bytes(&pool), 2 * MIB - 6 * PAGE_SIZE);

	/* Too big for the low extent: comes from the high one. */
	assert_int_equal(page_pool_alloc(&pool, MIB, PAGE_SIZE), 16 * MIB);
	assert_pool_consistent(&pool);
}

static void test_alloc_2m_alignment(void **state)
{
	uint64_t big, small;

	(void)state;
	page_pool_add(&pool, 0x1000, 8 * MIB - 0x1000);
	big = page_pool_alloc(&pool, PAGE_SIZE_2M, PAGE_SIZE_2M);
	assert_int_equal(big, PAGE_SIZE_2M);
	assert_int_equal(pool.free.count, 2);	/* split around it */
	assert_int_equal(page_pool_alloc(&pool, 2 * PAGE_SIZE_2M, PAGE_SIZE_2M),
			 2 * PAGE_SIZE_2M);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE_2M, PAGE_SIZE_2M), 0);

	/* The hole below the first 2 MiB page is still there for small blocks. */
	small = page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE);
	assert_int_equal(small, 0x1000);
	assert_int_equal(page_pool_alloc(&pool, 0x10000, 0x10000), 0x10000);
	assert_int_equal(page_pool_free_bytes(&pool),
			 PAGE_SIZE_2M - 0x1000 - PAGE_SIZE - 0x10000);
	assert_pool_consistent(&pool);

	page_pool_free(&pool, big, PAGE_SIZE_2M);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE_2M, PAGE_SIZE_2M), big);
}

static void test_alloc_bad_arguments(void **state)
{
	struct page_pool before;

	(void)state;
	page_pool_add(&pool, MIB, MIB);
	before = pool;
	stderr_capture_begin();
	assert_int_equal(page_pool_alloc(&pool, 0, PAGE_SIZE), 0);
	assert_int_equal(page_pool_alloc(&pool, 100, PAGE_SIZE), 0);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, 0), 0);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, 0x800), 0);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, 0x3000), 0);
	stderr_capture_end(log_text, sizeof(log_text));
	assert_non_null(strstr(log_text, "bad request"));
	assert_memory_equal(&pool, &before, sizeof(pool));
}

static void test_alloc_huge_alignment(void **state)
{
	(void)state;
	page_pool_add(&pool, UINT64_MAX - 0x2fff, 0x2000);
	/* Rounding the extent base up to 2^63 must not overflow into a fit. */
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, 1ull << 63), 0);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE),
			 UINT64_MAX - 0x2fff);
}

static void test_exhaustion(void **state)
{
	uint64_t page[16];
	unsigned int i;

	(void)state;
	page_pool_add(&pool, MIB, 16 * PAGE_SIZE);
	for (i = 0; i < 16; i++) {
		page[i] = page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE);
		assert_int_equal(page[i], MIB + i * PAGE_SIZE);
	}
	assert_int_equal(page_pool_free_bytes(&pool), 0);
	assert_int_equal(pool.free.count, 0);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE), 0);

	page_pool_free(&pool, page[7], PAGE_SIZE);
	assert_int_equal(page_pool_alloc(&pool, 2 * PAGE_SIZE, PAGE_SIZE), 0);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE), page[7]);
}

static void test_fragmentation_and_refill(void **state)
{
	uint64_t page[64];
	unsigned int i;

	(void)state;
	page_pool_add(&pool, MIB, 64 * PAGE_SIZE);
	for (i = 0; i < 64; i++)
		page[i] = page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE);

	/* Every other page back: 32 single-page holes. */
	for (i = 0; i < 64; i += 2)
		page_pool_free(&pool, page[i], PAGE_SIZE);
	assert_int_equal(pool.free.count, 32);
	assert_int_equal(page_pool_free_bytes(&pool), 32 * PAGE_SIZE);
	assert_int_equal(page_pool_alloc(&pool, 2 * PAGE_SIZE, PAGE_SIZE), 0);
	assert_pool_consistent(&pool);

	/* The rest back: everything merges into one extent. */
	for (i = 1; i < 64; i += 2)
		page_pool_free(&pool, page[i], PAGE_SIZE);
	assert_int_equal(pool.free.count, 1);
	assert_int_equal(page_pool_free_bytes(&pool), 64 * PAGE_SIZE);
	assert_int_equal(page_pool_alloc(&pool, 64 * PAGE_SIZE, PAGE_SIZE), MIB);
}

static void test_double_free_detected(void **state)
{
	uint64_t a, b;

	(void)state;
	page_pool_add(&pool, MIB, MIB);
	a = page_pool_alloc(&pool, 4 * PAGE_SIZE, PAGE_SIZE);
	b = page_pool_alloc(&pool, 4 * PAGE_SIZE, PAGE_SIZE);
	page_pool_free(&pool, a, 4 * PAGE_SIZE);

	stderr_capture_begin();
	page_pool_free(&pool, a, 4 * PAGE_SIZE);		/* the same again */
	page_pool_free(&pool, a + PAGE_SIZE, PAGE_SIZE);	/* part of it */
	page_pool_free(&pool, b - PAGE_SIZE, 2 * PAGE_SIZE);	/* straddles */
	stderr_capture_end(log_text, sizeof(log_text));

	assert_non_null(strstr(log_text, "double free"));
	assert_int_equal(page_pool_free_bytes(&pool), MIB - 4 * PAGE_SIZE);
	assert_pool_consistent(&pool);

	/* The pool still hands each page out once. */
	assert_int_equal(page_pool_alloc(&pool, 4 * PAGE_SIZE, PAGE_SIZE), a);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE), b + 4 * PAGE_SIZE);
}

static void test_free_foreign_memory(void **state)
{
	(void)state;
	page_pool_add(&pool, MIB, 2 * PAGE_SIZE);
	page_pool_add(&pool, 4 * MIB, 2 * PAGE_SIZE);
	assert_int_equal(page_pool_alloc(&pool, 2 * PAGE_SIZE, PAGE_SIZE), MIB);

	stderr_capture_begin();
	page_pool_free(&pool, 8 * MIB, PAGE_SIZE);		/* never in the pool */
	page_pool_free(&pool, MIB + PAGE_SIZE, 2 * PAGE_SIZE);	/* runs past its end */
	page_pool_free(&pool, 2 * MIB, 2 * MIB);		/* spans the gap */
	stderr_capture_end(log_text, sizeof(log_text));
	assert_non_null(strstr(log_text, "not memory of this pool"));
	assert_int_equal(page_pool_free_bytes(&pool), 2 * PAGE_SIZE);

	page_pool_free(&pool, MIB, 2 * PAGE_SIZE);
	assert_int_equal(page_pool_free_bytes(&pool), 4 * PAGE_SIZE);
}

static void test_bad_free_ignored(void **state)
{
	struct page_pool before;
	uint64_t a;

	(void)state;
	page_pool_add(&pool, MIB, MIB);
	a = page_pool_alloc(&pool, 2 * PAGE_SIZE, PAGE_SIZE);
	before = pool;

	stderr_capture_begin();
	page_pool_free(&pool, a + 1, PAGE_SIZE);
	page_pool_free(&pool, a, PAGE_SIZE + 1);
	page_pool_free(&pool, 0, PAGE_SIZE);
	page_pool_free(&pool, UINT64_MAX & ~(PAGE_SIZE - 1), 2 * PAGE_SIZE);
	stderr_capture_end(log_text, sizeof(log_text));

	assert_non_null(strstr(log_text, "bad free"));
	page_pool_free(&pool, a, 0);
	assert_memory_equal(&pool, &before, sizeof(pool));
}

/*
 * Free extents [k*8M + 4K, k*8M + 6M): the lowest 2 MiB fit (k*8M + 2M) would
 * split an extent, the one at k*8M + 4M would not.
 */
static void fill_pool_with_extents(unsigned int count)
{
	unsigned int k;

	for (k = 0; k < count; k++)
		page_pool_add(&pool, k * 8 * MIB + PAGE_SIZE, 6 * MIB - PAGE_SIZE);
	assert_int_equal(pool.free.count, count);
}

static void test_alloc_with_full_extent_table(void **state)
{
	uint64_t free_before;

	(void)state;
	fill_pool_with_extents(MEMMAP_MAX_RANGES);
	free_before = page_pool_free_bytes(&pool);

	/* No slot for a split: the block goes to the extent's end instead. */
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE_2M, PAGE_SIZE_2M), 4 * MIB);
	assert_int_equal(pool.free.count, MEMMAP_MAX_RANGES);
	assert_int_equal(page_pool_free_bytes(&pool), free_before - PAGE_SIZE_2M);
	/* Taken from the head, a page needs no slot either. */
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE, PAGE_SIZE), PAGE_SIZE);

	/* Freeing the 2 MiB block merges back into its extent. */
	page_pool_free(&pool, 4 * MIB, PAGE_SIZE_2M);
	assert_int_equal(pool.free.count, MEMMAP_MAX_RANGES);
	assert_pool_consistent(&pool);
}

static void test_alloc_lowest_fit_with_room(void **state)
{
	(void)state;
	fill_pool_with_extents(MEMMAP_MAX_RANGES - 1);
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE_2M, PAGE_SIZE_2M), 2 * MIB);
	assert_int_equal(pool.free.count, MEMMAP_MAX_RANGES);
	/* The table is now full; the upper half of the split extent needs no slot. */
	assert_int_equal(page_pool_alloc(&pool, PAGE_SIZE_2M, PAGE_SIZE_2M), 4 * MIB);
	assert_int_equal(pool.free.count, MEMMAP_MAX_RANGES - 1);
	assert_pool_consistent(&pool);
}

static int nodes_setup(void **state)
{
	(void)state;
	page_alloc_init(2);
	page_pool_add(page_alloc_pool(0), 0, GIB);
	page_pool_add(page_alloc_pool(1), 4 * GIB, GIB);
	return 0;
}

static void test_node_pools(void **state)
{
	(void)state;
	assert_int_equal(page_alloc_node_count(), 2);
	assert_non_null(page_alloc_pool(0));
	assert_non_null(page_alloc_pool(1));
	assert_ptr_not_equal(page_alloc_pool(0), page_alloc_pool(1));
	assert_null(page_alloc_pool(2));
	assert_int_equal(page_alloc_node(0, PAGE_SIZE_2M, PAGE_SIZE_2M), PAGE_SIZE_2M);
	assert_int_equal(page_alloc_node(1, PAGE_SIZE_2M, PAGE_SIZE_2M), 4 * GIB);
}

static void test_node_no_fallback(void **state)
{
	uint64_t rest;

	(void)state;
	rest = page_pool_free_bytes(page_alloc_pool(0));
	assert_int_equal(page_alloc_node(0, rest, PAGE_SIZE), PAGE_SIZE);
	/* Node 0 is empty; node 1 has plenty but is never used for node 0. */
	assert_int_equal(page_alloc_node(0, PAGE_SIZE, PAGE_SIZE), 0);
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(1)), GIB);

	page_free_node(0, PAGE_SIZE, PAGE_SIZE);
	assert_int_equal(page_alloc_node(0, PAGE_SIZE, PAGE_SIZE), PAGE_SIZE);
}

static void test_node_free_goes_home(void **state)
{
	uint64_t a;

	(void)state;
	a = page_alloc_node(1, MIB, PAGE_SIZE);
	stderr_capture_begin();
	page_free_node(0, a, MIB);	/* wrong node */
	stderr_capture_end(log_text, sizeof(log_text));
	assert_non_null(strstr(log_text, "not memory of this pool"));
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(0)), GIB - PAGE_SIZE);
	page_free_node(1, a, MIB);
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(1)), GIB);
}

static void test_node_out_of_range(void **state)
{
	(void)state;
	stderr_capture_begin();
	assert_int_equal(page_alloc_node(2, PAGE_SIZE, PAGE_SIZE), 0);
	page_free_node(7, PAGE_SIZE, PAGE_SIZE);
	page_alloc_init(PAGE_ALLOC_MAX_NODES + 3);
	stderr_capture_end(log_text, sizeof(log_text));
	assert_non_null(strstr(log_text, "node 2"));
	assert_non_null(strstr(log_text, "node 7"));
	assert_int_equal(page_alloc_node_count(), PAGE_ALLOC_MAX_NODES);
	assert_non_null(page_alloc_pool(PAGE_ALLOC_MAX_NODES - 1));
	assert_null(page_alloc_pool(PAGE_ALLOC_MAX_NODES));
	/* Re-initialising empties every pool. */
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(0)), 0);
	assert_int_equal(page_pool_free_bytes(page_alloc_pool(1)), 0);
}

int main(void)
{
	const struct CMUnitTest pool_tests[] = {
		cmocka_unit_test_setup(test_add_takes_whole_pages, pool_setup),
		cmocka_unit_test_setup(test_add_skips_page_zero, pool_setup),
		cmocka_unit_test_setup(test_add_refuses_bad_ranges, pool_setup),
		cmocka_unit_test_setup(test_alloc_lowest_first, pool_setup),
		cmocka_unit_test_setup(test_alloc_2m_alignment, pool_setup),
		cmocka_unit_test_setup(test_alloc_bad_arguments, pool_setup),
		cmocka_unit_test_setup(test_alloc_huge_alignment, pool_setup),
		cmocka_unit_test_setup(test_exhaustion, pool_setup),
		cmocka_unit_test_setup(test_fragmentation_and_refill, pool_setup),
		cmocka_unit_test_setup(test_double_free_detected, pool_setup),
		cmocka_unit_test_setup(test_free_foreign_memory, pool_setup),
		cmocka_unit_test_setup(test_bad_free_ignored, pool_setup),
		cmocka_unit_test_setup(test_alloc_with_full_extent_table, pool_setup),
		cmocka_unit_test_setup(test_alloc_lowest_fit_with_room, pool_setup),
	};
	const struct CMUnitTest node_tests[] = {
		cmocka_unit_test_setup(test_node_pools, nodes_setup),
		cmocka_unit_test_setup(test_node_no_fallback, nodes_setup),
		cmocka_unit_test_setup(test_node_free_goes_home, nodes_setup),
		cmocka_unit_test_setup(test_node_out_of_range, nodes_setup),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("page_pool", pool_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("page_alloc_node", node_tests, NULL, NULL);
	return failed;
}
