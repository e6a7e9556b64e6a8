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

bool ept_init(struct ept *ept, unsigned int node);
/* Maps [gpa, gpa+size) to [hpa, ...) read/write/execute, write-back, 2 MiB pages. */
bool ept_map_ram(struct ept *ept, uint64_t gpa, uint64_t hpa, uint64_t size);
/* Maps one 4 KiB page (the APIC-access page). */
bool ept_map_page(struct ept *ept, uint64_t gpa, uint64_t hpa);
uint64_t ept_pointer(const struct ept *ept);
/* Returns every page-table page to the node. */
void ept_destroy(struct ept *ept);

#endif
