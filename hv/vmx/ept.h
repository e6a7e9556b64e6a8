/* SPDX-License-Identifier: MIT */
/* ept.h - extended page tables for one guest. */
#ifndef SIDECORE_VMX_EPT_H
#define SIDECORE_VMX_EPT_H

#include <stdbool.h>
#include <stdint.h>

struct ept {
	uint64_t pml4;		/* host-physical, identity-mapped */
	unsigned int node;	/* page tables come from the guest's node */
};

/**
 * ept_init() - an empty EPT, its tables from one node
 * @ept: filled in
 * @node: NUMA node every page-table page comes from (the guest's)
 *
 * Nothing is mapped: every guest-physical access ends in an EPT violation,
 * which is how emulated MMIO reaches the vCPU.
 *
 * Return: false if the node has no page for the top-level table.
 */
bool ept_init(struct ept *ept, unsigned int node);

/**
 * ept_map_ram() - map guest RAM with 2 MiB pages
 * @ept: the EPT
 * @gpa: guest-physical start, 2 MiB aligned
 * @hpa: host-physical start, 2 MiB aligned
 * @size: bytes, a multiple of 2 MiB
 *
 * Maps [gpa, gpa+size) to [hpa, ...) read/write/execute, write-back.
 *
 * Return: false if an argument is not 2 MiB aligned or page tables ran
 * out; what was mapped before the failure stays.
 */
bool ept_map_ram(struct ept *ept, uint64_t gpa, uint64_t hpa, uint64_t size);

/**
 * ept_map_page() - map one 4 KiB page (the APIC-access page)
 * @ept: the EPT
 * @gpa: guest-physical address, 4 KiB aligned
 * @hpa: host-physical address, 4 KiB aligned
 *
 * Read/write/execute, write-back.
 *
 * Return: false if a 2 MiB page already covers gpa or page tables ran out.
 */
bool ept_map_page(struct ept *ept, uint64_t gpa, uint64_t hpa);

/**
 * ept_pointer() - the EPTP value for the VMCS
 * @ept: the EPT, after ept_init()
 *
 * Return: the top-level table's address with a 4-level walk and write-back
 * paging-structure accesses.
 */
uint64_t ept_pointer(const struct ept *ept);

/**
 * ept_destroy() - return every page-table page to the node
 * @ept: the EPT; empty afterwards, and ept_init() must run before its reuse
 */
void ept_destroy(struct ept *ept);

#endif
