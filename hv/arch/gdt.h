/* SPDX-License-Identifier: MIT */
/*
 * gdt.h - per-CPU GDT and TSS. VM entry requires a usable host TR
 * (SDM Vol. 3C §28.2.3), so each core owns a TSS even though the hypervisor
 * never switches privilege.
 */
#ifndef SIDECORE_ARCH_GDT_H
#define SIDECORE_ARCH_GDT_H

#include <stdint.h>

#define GDT_TSS		0x18
#define GDT_ENTRIES	5	/* null, code64, data, 16-byte TSS */

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

struct cpu_tables {
	uint64_t gdt[GDT_ENTRIES];
	struct tss tss;
};

/**
 * gdt_load() - set up and load this CPU's GDT and TSS
 * @tables: this CPU's tables, filled in here; GDTR and TR point into them
 *
 * Loads GDTR, CS, DS, ES, SS and TR; the TSS is there only because VM entry
 * needs a usable host TR.
 */
void gdt_load(struct cpu_tables *tables);

#endif
