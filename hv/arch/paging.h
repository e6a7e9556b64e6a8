/* SPDX-License-Identifier: MIT */
/* paging.h - the hypervisor's own address space: an identity map of RAM. */
#ifndef SIDECORE_ARCH_PAGING_H
#define SIDECORE_ARCH_PAGING_H

#include <stdint.h>

/*
 * Identity-maps [0, limit) with 2 MiB pages, page tables from node 0, and
 * switches this CPU to it. limit is rounded up to 1 GiB.
 */
void paging_init(uint64_t limit);
uint64_t paging_cr3(void);
uint64_t paging_limit(void);

#endif
