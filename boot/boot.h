/* SPDX-License-Identifier: MIT */
/* boot.h - constants shared by the assembly entry paths and C. */
#ifndef SIDECORE_BOOT_BOOT_H
#define SIDECORE_BOOT_BOOT_H

#define BOOT_STACK_SIZE	(16 * 1024)

#define GDT_CODE64	0x08
#define GDT_DATA	0x10

/* SDM Vol. 3A §4.5: paging-structure entry bits. */
#define PTE_PRESENT	(1 << 0)
#define PTE_WRITE	(1 << 1)
#define PTE_PWT		(1 << 3)	/* with PCD and PAT 0: PAT entry 3, UC (§11.12.3) */
#define PTE_PCD		(1 << 4)
#define PTE_LARGE	(1 << 7)

/* C code takes these from arch/x86.h. */
#ifdef __ASSEMBLY__
#define CR0_PE		(1 << 0)
#define CR0_NW		(1 << 29)
#define CR0_CD		(1 << 30)
#define CR0_PG		(1 << 31)
#define CR4_PAE		(1 << 5)
#define MSR_EFER	0xc0000080
#define EFER_LME	(1 << 8)
#endif

#endif
