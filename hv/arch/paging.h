/* SPDX-License-Identifier: MIT */
/* paging.h - the hypervisor's own address space: an identity map of RAM. */
#ifndef SIDECORE_ARCH_PAGING_H
#define SIDECORE_ARCH_PAGING_H

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

#endif
