/* SPDX-License-Identifier: MIT */
/*
 * gpt_walk.c - 4-level paging (SDM Vol. 3A §4.5) walked in software over
 * guest memory the caller maps, and the identity of a vCPU without paging.
 * Accessed and dirty flags are left alone: the hypervisor reads on the
 * guest's behalf only to emulate an access the processor already translated.
 */
#include <string.h>

#include "vmx/gpt_walk.h"

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1ull << PAGE_SHIFT)
#define LEVELS		4
#define INDEX_BITS	9
#define ENTRY_SIZE	8

/* Paging-structure entry flags (§4.5, Tables 4-15 to 4-20). */
#define PTE_P		(1ull << 0)
#define PTE_PS		(1ull << 7)
/* Bits 51:12: the next table or the page frame (MAXPHYADDR at most 52). */
#define PTE_ADDR	0x000ffffffffff000ull

/*
 * Bits §4.5.4 reserves in each level's entry, beyond MAXPHYADDR: PS in a
 * PML4E (Table 4-15); in a PDPTE that maps a 1-GByte page bits 29:13
 * (Table 4-16); in a PDE that maps a 2-MByte page bits 20:13 (Table 4-18).
 * Bit 12 of a large-page entry is its PAT bit. Bits past the guest's RAM
 * need no mask: the map function refuses them.
 */
#define PML4E_RESERVED		PTE_PS
#define PDPTE_1G_RESERVED	0x3fffe000ull
#define PDE_2M_RESERVED		0x001fe000ull

#define CR0_PG		(1ull << 31)	/* SDM Vol. 3A §2.5 */
#define CR4_PAE		(1ull << 5)
#define EFER_LMA	(1ull << 10)	/* SDM Vol. 3A §2.2.1 */
/* Without paging, outside IA-32e mode, linear addresses have 32 bits (§4.1.1). */
#define LINEAR_32	0xffffffffull

enum gpt_mode gpt_mode_of(uint64_t cr0, uint64_t cr4, uint64_t efer)
{
	if (!(cr0 & CR0_PG))
		return GPT_MODE_NONE;
	if ((cr4 & CR4_PAE) && (efer & EFER_LMA))
		return GPT_MODE_4LEVEL;
	return GPT_MODE_LEGACY;
}

/* Bits 63:47 are all copies of bit 47 (§3.3.7.1). */
static bool gpt_canonical(uint64_t gva)
{
	uint64_t top = gva >> 47;

	return top == 0 || top == 0x1ffff;
}

/* Reads one table entry; the guest may rewrite it meanwhile, so once. */
static enum gpt_status gpt_entry(const struct gpt_space *space, uint64_t table,
				 unsigned int index, uint64_t *entry)
{
	const void *p = space->map(space->ctx, table + (uint64_t)index * ENTRY_SIZE, ENTRY_SIZE);

	if (!p)
		return GPT_OUTSIDE_RAM;
	memcpy(entry, p, ENTRY_SIZE);
	/* A copy of fixed size is plain moves: keep the compiler from reading p again. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return GPT_OK;
}

/* The reserved bits of a present entry at level (4 = PML4 .. 1 = PT). */
static uint64_t gpt_reserved(unsigned int level, uint64_t entry)
{
	if (level == 4)
		return PML4E_RESERVED;
	if (level == 3 && (entry & PTE_PS))
		return PDPTE_1G_RESERVED;
	if (level == 2 && (entry & PTE_PS))
		return PDE_2M_RESERVED;
	return 0;
}

enum gpt_status gpt_translate(const struct gpt_space *space, uint64_t gva, uint64_t *gpa)
{
	uint64_t table = space->cr3 & PTE_ADDR;

	if (space->mode == GPT_MODE_NONE) {
		*gpa = gva & LINEAR_32;
		return GPT_OK;
	}
	if (space->mode != GPT_MODE_4LEVEL)
		return GPT_LEGACY_PAGING;
	if (!gpt_canonical(gva))
		return GPT_NONCANONICAL;
	for (unsigned int level = LEVELS;; level--) {
		unsigned int shift = PAGE_SHIFT + INDEX_BITS * (level - 1);
		unsigned int index = (gva >> shift) & ((1u << INDEX_BITS) - 1);
		enum gpt_status status;
		uint64_t entry;

		status = gpt_entry(space, table, index, &entry);
		if (status != GPT_OK)
			return status;
		if (!(entry & PTE_P))
			return GPT_NOT_PRESENT;
		if (entry & gpt_reserved(level, entry))
			return GPT_RESERVED;
		if (level == 1 || (entry & PTE_PS)) {
			uint64_t offset = (1ull << shift) - 1;

			*gpa = (entry & PTE_ADDR & ~offset) | (gva & offset);
			return GPT_OK;
		}
		table = entry & PTE_ADDR;
	}
}

enum gpt_status gpt_read(const struct gpt_space *space, uint64_t gva, void *buf,
			 unsigned int len)
{
	uint8_t *out = buf;

	while (len) {
		unsigned int chunk = PAGE_SIZE - (gva & (PAGE_SIZE - 1));
		enum gpt_status status;
		const void *src;
		uint64_t gpa;

		if (chunk > len)
			chunk = len;
		status = gpt_translate(space, gva, &gpa);
		if (status != GPT_OK)
			return status;
		src = space->map(space->ctx, gpa, chunk);
		if (!src)
			return GPT_OUTSIDE_RAM;
		memcpy(out, src, chunk);
		out += chunk;
		gva += chunk;
		len -= chunk;
	}
	return GPT_OK;
}
