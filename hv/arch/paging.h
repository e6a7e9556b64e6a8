/* SPDX-License-Identifier: MIT */
/* paging.h - the hypervisor's own address space: an identity map of RAM. */
#ifndef SIDECORE_ARCH_PAGING_H
#define SIDECORE_ARCH_PAGING_H

#include <stdbool.h>
#include <stdint.h>

/* The first 2 MiB, page 0 of the map: unmapped once boot is done. */
#define PAGE_ZERO_END	(2ull << 20)

/**
 * paging_init() - build the hypervisor's page tables and switch to them
 * @limit: end of the address space to map; rounded up to 1 GiB, at most 512 GiB
 *
 * Identity-maps [0, limit) with 2 MiB pages, page tables from node 0, and
 * switches this CPU to it. Panics when node 0 runs out of pages.
 */
void paging_init(uint64_t limit);

/**
 * paging_cr3() - the CR3 value of the hypervisor's address space
 *
 * The APs switch to it as they start.
 *
 * Return: the physical address of the top-level table; 0 before paging_init().
 */
uint64_t paging_cr3(void);

/**
 * paging_limit() - how much of the address space is mapped
 *
 * Return: the end of the identity map, or 0 before paging_init() (the boot
 * page tables then map the first 4 GiB).
 */
uint64_t paging_limit(void);

/**
 * paging_map_uncached() - map a device's registers uncached
 * @base: physical address of the MMIO range
 * @size: its length in bytes
 *
 * The identity map is write-back by its page attributes and leaves MMIO to
 * the MTRRs; a BAR the firmware left out of its UC MTRRs, or above the end
 * of RAM, would be cached or absent. This maps every 2 MiB page the range
 * touches, itself included, as UC (PCD and PWT: PAT entry 3, SDM Vol. 3A
 * §11.12.3), adding tables where the range lies beyond the map. The whole
 * 2 MiB pages change, so the range must lie in an MMIO hole, not beside RAM.
 * Boot CPU only, before the APs load the page tables.
 *
 * Return: false when the range is beyond 512 GiB or no page is left for a table.
 */
bool paging_map_uncached(uint64_t base, uint64_t size);

/**
 * paging_unmap_page_zero() - take the first 2 MiB out of the identity map
 *
 * Once nothing reads below 2 MiB (the APs are past their trampoline, no
 * boot module lies there, the page pools start at 2 MiB), a NULL pointer
 * or a small offset from one faults instead of reading the BIOS area
 * (docs/boot.md). Flushes this CPU's TLB; every other CPU must flush its
 * own before it relies on the fault. Boot CPU only.
 *
 * Return: true when a read of address 0 then faults, as a probe through
 * the exception table shows.
 */
bool paging_unmap_page_zero(void);

#endif
