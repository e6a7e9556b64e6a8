/* SPDX-License-Identifier: MIT */
/* gdt.c - descriptors per SDM Vol. 3A §3.4.5 and §8.2.3 (64-bit TSS). */
#include <string.h>

#include "arch/gdt.h"
#include "boot/boot.h"

#define DESC_CODE64	0x00af9a000000ffffull	/* L=1, present, DPL 0, exec/read */
#define DESC_DATA	0x00cf92000000ffffull
#define TSS_TYPE_AVAILABLE 0x89ull		/* present, 64-bit available TSS */

void gdt_load(struct cpu_tables *t)
{
	uint64_t base = (uintptr_t)&t->tss;
	uint64_t limit = sizeof(t->tss) - 1;
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) desc = { sizeof(t->gdt) - 1, (uintptr_t)t->gdt };

	memset(t, 0, sizeof(*t));
	t->tss.iomap_base = sizeof(t->tss);	/* no I/O permission bitmap */
	t->gdt[GDT_CODE64 / 8] = DESC_CODE64;
	t->gdt[GDT_DATA / 8] = DESC_DATA;
	t->gdt[GDT_TSS / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
			      (TSS_TYPE_AVAILABLE << 40) | ((base >> 24 & 0xff) << 56);
	t->gdt[GDT_TSS / 8 + 1] = base >> 32;

	asm volatile("lgdt %0\n\t"
		     "pushq %1\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "lretq\n"
		     "1:\n\t"
		     "movl %2, %%eax\n\t"
		     "movl %%eax, %%ds\n\t"
		     "movl %%eax, %%es\n\t"
		     "movl %%eax, %%ss\n\t"
		     "movw %3, %%ax\n\t"
		     "ltr %%ax\n\t"
		     : : "m"(desc), "i"(GDT_CODE64), "i"(GDT_DATA), "i"(GDT_TSS)
		     : "rax", "memory");
}
