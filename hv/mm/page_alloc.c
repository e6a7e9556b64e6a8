/* SPDX-License-Identifier: MIT */
/*
 * page_alloc.c - physical page allocator, one pool per NUMA node.
 *
 * A pool's free memory is a memmap of page-aligned extents. Allocation takes
 * the lowest address that satisfies the alignment and splits the extent;
 * freeing merges the pages back. A second memmap remembers everything ever
 * added, so a free is checked two ways: it must lie inside memory the pool
 * owns (not another node's, not a stray pointer) and must not overlap memory
 * that is already free (a double free). A bad free is reported and ignored,
 * so one buggy caller cannot make the pool hand the same page out twice.
 *
 * Physical page 0 is never put in a pool: 0 is the "no memory" answer.
 */
#include <stddef.h>

#include "lib/log.h"
#include "mm/page_alloc.h"

#define PAGE_MASK (PAGE_SIZE - 1)

static struct page_pool page_pools[PAGE_ALLOC_MAX_NODES];
static unsigned int page_pool_count;

static bool is_power_of_two(uint64_t value)
{
	return value && !(value & (value - 1));
}

/**
 * page_pool_init() - make a pool empty
 * @pool: the pool
 */
void page_pool_init(struct page_pool *pool)
{
	memmap_init(&pool->free);
	memmap_init(&pool->added);
	pool->total_bytes = 0;
}

/**
 * page_pool_add() - give memory to a pool
 * @pool: the pool
 * @base: first address of the memory
 * @length: length in bytes
 *
 * Only the whole pages inside [base, base+length) are taken; partial pages at
 * either end are dropped. Memory that wraps, that was added before, or that
 * does not fit the extent tables is reported and not added.
 */
void page_pool_add(struct page_pool *pool, uint64_t base, uint64_t length)
{
	uint64_t start, end;

	if (length > UINT64_MAX - base) {
		log_msg("page_alloc: range 0x%llx+0x%llx wraps, not added",
			(unsigned long long)base, (unsigned long long)length);
		return;
	}
	end = (base + length) & ~PAGE_MASK;
	if (base >= end)
		return;
	/* end is page-aligned and above base, so rounding base up cannot overflow. */
	start = (base + PAGE_MASK) & ~PAGE_MASK;
	if (start == 0)
		start = PAGE_SIZE;
	if (start >= end)
		return;

	if (memmap_overlaps(&pool->added, start, end - start)) {
		log_msg("page_alloc: range 0x%llx-0x%llx is already in the pool, not added",
			(unsigned long long)start, (unsigned long long)end);
		return;
	}
	if (!memmap_add(&pool->free, start, end - start)) {
		log_msg("page_alloc: extent table full, range 0x%llx-0x%llx lost",
			(unsigned long long)start, (unsigned long long)end);
		return;
	}
	if (!memmap_add(&pool->added, start, end - start)) {
		/*
		 * Undoing the add restores the free map's earlier shape, which
		 * fitted, so this remove cannot run out of slots.
		 */
		memmap_remove(&pool->free, start, end - start);
		log_msg("page_alloc: ownership table full, range 0x%llx-0x%llx lost",
			(unsigned long long)start, (unsigned long long)end);
		return;
	}
	pool->total_bytes += end - start;
}

/*
 * Where in free extent @range a block of @bytes aligned to @align can go, or
 * 0. The lowest fit is preferred; when the extent table is full it would need
 * a split that cannot be recorded, so the fit flush with the extent's end is
 * tried instead, which only shrinks the extent.
 */
static uint64_t page_pool_fit(const struct page_pool *pool,
			      const struct mem_range *range,
			      uint64_t bytes, uint64_t align)
{
	uint64_t end = range->base + range->length;
	uint64_t start, top;

	if (range->base > UINT64_MAX - (align - 1))
		return 0;
	start = (range->base + align - 1) & ~(align - 1);
	if (start > end || end - start < bytes)
		return 0;

	if (start == range->base || start + bytes == end ||
	    pool->free.count < MEMMAP_MAX_RANGES)
		return start;

	top = (end - bytes) & ~(align - 1);
	if (top >= start && top + bytes == end)
		return top;
	return 0;
}

/**
 * page_pool_alloc() - take memory from a pool
 * @pool: the pool
 * @bytes: size of the block, a non-zero multiple of PAGE_SIZE
 * @align: alignment of the block, a power of two no smaller than PAGE_SIZE
 *
 * Return: physical address of the lowest block that fits, or 0 when none
 * does or the arguments are invalid.
 */
uint64_t page_pool_alloc(struct page_pool *pool, uint64_t bytes, uint64_t align)
{
	unsigned int i;

	if (bytes == 0 || (bytes & PAGE_MASK) || align < PAGE_SIZE ||
	    !is_power_of_two(align)) {
		log_msg("page_alloc: bad request of 0x%llx bytes aligned to 0x%llx",
			(unsigned long long)bytes, (unsigned long long)align);
		return 0;
	}

	for (i = 0; i < pool->free.count; i++) {
		uint64_t phys = page_pool_fit(pool, &pool->free.range[i], bytes, align);

		if (phys) {
			/* page_pool_fit() chose a place that needs no slot it lacks. */
			memmap_remove(&pool->free, phys, bytes);
			return phys;
		}
	}
	return 0;
}

/**
 * page_pool_free() - give allocated memory back to a pool
 * @pool: the pool
 * @phys: address page_pool_alloc() returned
 * @bytes: size that was allocated
 *
 * A free that is misaligned, wraps, lies outside the memory added to this
 * pool, or overlaps memory that is already free is reported and ignored. If
 * the extent table is full the pages are reported as lost.
 */
void page_pool_free(struct page_pool *pool, uint64_t phys, uint64_t bytes)
{
	if (bytes == 0)
		return;
	if (phys == 0 || (phys & PAGE_MASK) || (bytes & PAGE_MASK) ||
	    bytes > UINT64_MAX - phys) {
		log_msg("page_alloc: bad free of 0x%llx bytes at 0x%llx, ignored",
			(unsigned long long)bytes, (unsigned long long)phys);
		return;
	}
	if (!memmap_contains(&pool->added, phys, bytes)) {
		log_msg("page_alloc: free of 0x%llx-0x%llx is not memory of this pool, ignored",
			(unsigned long long)phys, (unsigned long long)(phys + bytes));
		return;
	}
	if (memmap_overlaps(&pool->free, phys, bytes)) {
		log_msg("page_alloc: free of 0x%llx-0x%llx overlaps free memory (double free?), ignored",
			(unsigned long long)phys, (unsigned long long)(phys + bytes));
		return;
	}
	if (!memmap_add(&pool->free, phys, bytes))
		log_msg("page_alloc: extent table full, 0x%llx-0x%llx lost",
			(unsigned long long)phys, (unsigned long long)(phys + bytes));
}

/**
 * page_pool_free_bytes() - how much memory a pool has left
 * @pool: the pool
 *
 * Return: the number of free bytes.
 */
uint64_t page_pool_free_bytes(const struct page_pool *pool)
{
	return memmap_total(&pool->free);
}

/**
 * page_alloc_init() - set up the machine-wide pools, all empty
 * @node_count: number of NUMA nodes; more than PAGE_ALLOC_MAX_NODES is
 *              reported and cut to that limit
 */
void page_alloc_init(unsigned int node_count)
{
	unsigned int node;

	if (node_count > PAGE_ALLOC_MAX_NODES) {
		log_msg("page_alloc: %u nodes, only the first %u get a pool",
			node_count, PAGE_ALLOC_MAX_NODES);
		node_count = PAGE_ALLOC_MAX_NODES;
	}
	for (node = 0; node < PAGE_ALLOC_MAX_NODES; node++)
		page_pool_init(&page_pools[node]);
	page_pool_count = node_count;
}

/**
 * page_alloc_pool() - the pool of one node
 * @node: node number
 *
 * Return: the pool, or NULL when the node has none.
 */
struct page_pool *page_alloc_pool(unsigned int node)
{
	if (node >= page_pool_count)
		return NULL;
	return &page_pools[node];
}

/**
 * page_alloc_node_count() - number of nodes with a pool
 *
 * Return: the count given to page_alloc_init(), after its limit.
 */
unsigned int page_alloc_node_count(void)
{
	return page_pool_count;
}

/**
 * page_alloc_node() - take memory from one node's pool
 * @node: node number
 * @bytes: size of the block, a non-zero multiple of PAGE_SIZE
 * @align: alignment, a power of two no smaller than PAGE_SIZE
 *
 * Never falls back to another node: a guest placed on a node must get that
 * node's memory or a clear failure.
 *
 * Return: physical address of the block, or 0.
 */
uint64_t page_alloc_node(unsigned int node, uint64_t bytes, uint64_t align)
{
	struct page_pool *pool = page_alloc_pool(node);

	if (!pool) {
		log_msg("page_alloc: allocation from node %u, which has no pool", node);
		return 0;
	}
	return page_pool_alloc(pool, bytes, align);
}

/**
 * page_free_node() - give memory back to one node's pool
 * @node: node number the memory was allocated from
 * @phys: address page_alloc_node() returned
 * @bytes: size that was allocated
 */
void page_free_node(unsigned int node, uint64_t phys, uint64_t bytes)
{
	struct page_pool *pool = page_alloc_pool(node);

	if (!pool) {
		log_msg("page_alloc: free to node %u, which has no pool", node);
		return;
	}
	page_pool_free(pool, phys, bytes);
}
