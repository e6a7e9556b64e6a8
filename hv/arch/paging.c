/* SPDX-License-Identifier: MIT */
/*
 * paging.c - identity map of all RAM and the MMIO below 4 GiB, 2 MiB pages
 * (SDM Vol. 3A §4.5; Nehalem has no 1 GiB pages). Memory types come from
 * the firmware's MTRRs, which mark MMIO uncacheable.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/paging.h"
#include "arch/safe_insn.h"
#include "arch/x86.h"
#include "boot/boot.h"
#include "mm/page_alloc.h"

#define GIB ((uint64_t)1 << 30)
#define ENTRIES 512

static uint64_t hv_cr3;
static uint64_t mapped_limit;

static uint64_t *paging_alloc_table(void)
{
	uint64_t phys = page_alloc_node(0, PAGE_SIZE, PAGE_SIZE);

	if (!phys)
		panic("paging: out of memory for page tables");
	memset((void *)phys, 0, PAGE_SIZE);
	return (uint64_t *)phys;
}

void paging_init(uint64_t limit)
{
	uint64_t *pml4 = paging_alloc_table();
	uint64_t *pdpt = NULL, *pd;

	limit = (limit + GIB - 1) & ~(GIB - 1);
	if (limit > 512 * GIB)
		panic("paging: %lu GiB of address space is beyond one PDPT", limit / GIB);

	for (uint64_t gib = 0; gib < limit / GIB; gib++) {
		if (gib % ENTRIES == 0) {
			pdpt = paging_alloc_table();
			pml4[gib / ENTRIES] = (uintptr_t)pdpt | PTE_PRESENT | PTE_WRITE;
		}
		pd = paging_alloc_table();
		pdpt[gib % ENTRIES] = (uintptr_t)pd | PTE_PRESENT | PTE_WRITE;
		for (uint64_t i = 0; i < ENTRIES; i++)
			pd[i] = (gib * GIB + i * PAGE_SIZE_2M) |
				PTE_PRESENT | PTE_WRITE | PTE_LARGE;
	}
	hv_cr3 = (uintptr_t)pml4;
	mapped_limit = limit;
	write_cr3(hv_cr3);
}

/* The table an entry points to, made (empty) when the entry is not present. */
static uint64_t *paging_next_table(uint64_t *entry)
{
	uint64_t phys;

	if (!(*entry & PTE_PRESENT)) {
		phys = page_alloc_node(0, PAGE_SIZE, PAGE_SIZE);
		if (!phys)
			return NULL;
		memset((void *)phys, 0, PAGE_SIZE);
		*entry = phys | PTE_PRESENT | PTE_WRITE;
	}
	return (uint64_t *)(uintptr_t)(*entry & ~(PAGE_SIZE - 1));
}

bool paging_map_uncached(uint64_t base, uint64_t size)
{
	uint64_t *pml4 = (uint64_t *)(uintptr_t)hv_cr3;
	uint64_t end = base + size;

	if (!size || end < base || end > 512 * GIB)
		return false;
	for (uint64_t page = base & ~(PAGE_SIZE_2M - 1); page < end; page += PAGE_SIZE_2M) {
		uint64_t *pdpt = paging_next_table(&pml4[page / (512 * GIB)]);
		uint64_t *pd = pdpt ? paging_next_table(&pdpt[page / GIB % ENTRIES]) : NULL;

		if (!pd)
			return false;
		pd[page / PAGE_SIZE_2M % ENTRIES] = page | PTE_PRESENT | PTE_WRITE | PTE_LARGE |
						    PTE_PCD | PTE_PWT;
	}
	write_cr3(hv_cr3);	/* drops the old translations from this CPU's TLB */
	return true;
}

bool paging_unmap_page_zero(void)
{
	const uint64_t *pml4 = (const uint64_t *)(uintptr_t)hv_cr3;
	const uint64_t *pdpt = (const uint64_t *)(uintptr_t)(pml4[0] & ~(PAGE_SIZE - 1));
	uint64_t *pd = (uint64_t *)(uintptr_t)(pdpt[0] & ~(PAGE_SIZE - 1));
	uint64_t value;

	pd[0] = 0;
	write_cr3(hv_cr3);
	return !safe_read_u64(0, &value);
}

uint64_t paging_cr3(void)
{
	return hv_cr3;
}

uint64_t paging_limit(void)
{
	return mapped_limit;
}
