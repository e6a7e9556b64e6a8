/* SPDX-License-Identifier: MIT */
/*
 * ept.c - EPT paging structures (SDM Vol. 3C §29.3.2). Guest RAM uses 2 MiB
 * leaves; anything left unmapped is emulated MMIO and ends in an EPT
 * violation the vCPU decodes.
 */
#include <string.h>

#include "mm/page_alloc.h"
#include "vmx/ept.h"

#define EPT_READ	(1ull << 0)
#define EPT_WRITE	(1ull << 1)
#define EPT_EXECUTE	(1ull << 2)
#define EPT_RWX		(EPT_READ | EPT_WRITE | EPT_EXECUTE)
#define EPT_MEMTYPE_WB	(6ull << 3)	/* leaf memory type, §29.3.7 */
#define EPT_LARGE	(1ull << 7)
#define EPT_ADDR_MASK	0x000ffffffffff000ull
#define EPTP_WB		6ull
#define EPTP_WALK_4	(3ull << 3)	/* page-walk length minus one */
#define ENTRIES		512

static uint64_t *ept_table(uint64_t entry)
{
	return (uint64_t *)(uintptr_t)(entry & EPT_ADDR_MASK);
}

static uint64_t ept_alloc_table(struct ept *ept)
{
	uint64_t page = page_alloc_node(ept->node, PAGE_SIZE, PAGE_SIZE);

	if (page)
		memset((void *)(uintptr_t)page, 0, PAGE_SIZE);
	return page;
}

/* The table at level (3 = PDPT ... 1 = PT) covering gpa, created on demand. */
static uint64_t *ept_walk(struct ept *ept, uint64_t gpa, int level)
{
	uint64_t *table = (uint64_t *)(uintptr_t)ept->pml4;

	for (int l = 4; l > level; l--) {
		uint64_t *entry = &table[(gpa >> (12 + 9 * (l - 1))) & (ENTRIES - 1)];

		if (*entry & EPT_LARGE)
			return NULL;	/* already a large leaf */
		if (!(*entry & EPT_RWX)) {
			uint64_t page = ept_alloc_table(ept);

			if (!page)
				return NULL;
			*entry = page | EPT_RWX;
		}
		table = ept_table(*entry);
	}
	return table;
}

bool ept_init(struct ept *ept, unsigned int node)
{
	ept->node = node;
	ept->pml4 = ept_alloc_table(ept);
	return ept->pml4 != 0;
}

bool ept_map_ram(struct ept *ept, uint64_t gpa, uint64_t hpa, uint64_t size)
{
	if ((gpa | hpa | size) & (PAGE_SIZE_2M - 1))
		return false;
	for (uint64_t off = 0; off < size; off += PAGE_SIZE_2M) {
		uint64_t *pd = ept_walk(ept, gpa + off, 2);

		if (!pd)
			return false;
		pd[((gpa + off) >> 21) & (ENTRIES - 1)] =
			(hpa + off) | EPT_RWX | EPT_MEMTYPE_WB | EPT_LARGE;
	}
	return true;
}

bool ept_map_page(struct ept *ept, uint64_t gpa, uint64_t hpa)
{
	uint64_t *pt = ept_walk(ept, gpa, 1);

	if (!pt)
		return false;
	pt[(gpa >> 12) & (ENTRIES - 1)] = hpa | EPT_RWX | EPT_MEMTYPE_WB;
	return true;
}

uint64_t ept_pointer(const struct ept *ept)
{
	return ept->pml4 | EPTP_WB | EPTP_WALK_4;
}

static void ept_free_level(struct ept *ept, uint64_t table, int level)
{
	uint64_t *entries = (uint64_t *)(uintptr_t)table;

	for (int i = 0; level > 1 && i < ENTRIES; i++)
		if ((entries[i] & EPT_RWX) && !(entries[i] & EPT_LARGE))
			ept_free_level(ept, entries[i] & EPT_ADDR_MASK, level - 1);
	page_free_node(ept->node, table, PAGE_SIZE);
}

void ept_destroy(struct ept *ept)
{
	if (ept->pml4)
		ept_free_level(ept, ept->pml4, 4);
	ept->pml4 = 0;
}
