/* SPDX-License-Identifier: MIT */
/*
 * page_alloc.h - physical page allocator, one pool per NUMA node.
 *
 * Each pool is a memmap of free page-aligned extents, so large contiguous
 * requests (guest RAM in 2 MiB pages) are as cheap as single pages.
 */
#ifndef SIDECORE_MM_PAGE_ALLOC_H
#define SIDECORE_MM_PAGE_ALLOC_H

#include <stdint.h>

#include "mm/memmap.h"

#define PAGE_SIZE 4096ull
#define PAGE_SIZE_2M (2ull << 20)
#define PAGE_ALLOC_MAX_NODES 8

struct page_pool {
	struct memmap free;
	struct memmap added;	/* everything ever added: a free must lie inside it */
	uint64_t total_bytes;	/* everything ever added */
};

void page_pool_init(struct page_pool *pool);
/* Adds the whole pages inside [base, base+length), never page 0 (0 means "none"). */
void page_pool_add(struct page_pool *pool, uint64_t base, uint64_t length);
/* Lowest free run of bytes (a multiple of PAGE_SIZE) aligned to align (a power of two >= PAGE_SIZE); 0 if none. */
uint64_t page_pool_alloc(struct page_pool *pool, uint64_t bytes, uint64_t align);
/* A free outside the pool's memory or overlapping free memory is reported and ignored. */
void page_pool_free(struct page_pool *pool, uint64_t phys, uint64_t bytes);
uint64_t page_pool_free_bytes(const struct page_pool *pool);

/*
 * The machine-wide pools, indexed by node number. They take no lock: the
 * hypervisor allocates only while it boots, on the boot CPU (guest RAM,
 * page tables, VMCS and VMXON pages, rings, stacks).
 */
void page_alloc_init(unsigned int node_count);
struct page_pool *page_alloc_pool(unsigned int node);
unsigned int page_alloc_node_count(void);
/* From node's pool only: NUMA placement is never silently changed. 0 if it does not fit. */
uint64_t page_alloc_node(unsigned int node, uint64_t bytes, uint64_t align);
void page_free_node(unsigned int node, uint64_t phys, uint64_t bytes);

#endif
