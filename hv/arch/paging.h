/* SPDX-License-Identifier: MIT */
/* paging.h - the hypervisor's own address space: an identity map of RAM. */
#ifndef SIDECORE_ARCH_PAGING_H
#define SIDECORE_ARCH_PAGING_H

#include <stdbool.h>
#include <stdint.h>

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

#endif
