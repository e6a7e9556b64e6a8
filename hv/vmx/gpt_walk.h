/* SPDX-License-Identifier: MIT */
/*
 * gpt_walk.h - guest-virtual to guest-physical translation through the
 * guest's own page tables, for the exit handlers that must read guest memory
 * by the address the guest used (the instruction at RIP of an MMIO exit).
 *
 * A guest's boot vCPU runs in IA-32e mode from its first instruction, and
 * CPUID hides LA57, so its paging is 4-level paging (SDM Vol. 3A §4.5). A
 * secondary vCPU starts in real mode and may stay out of long mode as long
 * as it likes: without paging a linear address is the physical one (§4.1.1)
 * and is used as it is; 32-bit and PAE paging are not walked, and a read
 * under them fails as such, for the caller to refuse by name. Every table
 * entry is read through the caller's map function, which decides what
 * guest-physical memory exists; the walker trusts nothing in the tables.
 */
#ifndef SIDECORE_VMX_GPT_WALK_H
#define SIDECORE_VMX_GPT_WALK_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Host pointer to len bytes at guest-physical gpa, or NULL when any of them
 * lies outside guest RAM.
 */
typedef const void *(*gpt_map_fn)(void *ctx, uint64_t gpa, uint64_t len);

/* The paging modes of SDM Vol. 3A §4.1.1, Table 4-1. */
enum gpt_mode {
	GPT_MODE_4LEVEL = 0,	/* CR0.PG, CR4.PAE and EFER.LMA: IA-32e mode */
	GPT_MODE_NONE,		/* CR0.PG clear: linear addresses (32 bits) are physical */
	GPT_MODE_LEGACY,	/* 32-bit or PAE paging: not walked */
};

/* A guest's address space as one vCPU sees it. */
struct gpt_space {
	enum gpt_mode mode;	/* from gpt_mode_of() */
	uint64_t cr3;		/* the guest's CR3: bits 51:12 locate the PML4 table */
	gpt_map_fn map;
	void *ctx;
};

enum gpt_status {
	GPT_OK = 0,
	GPT_NONCANONICAL,	/* bits 63:47 of the address differ: #GP on hardware */
	GPT_NOT_PRESENT,	/* an entry on the way has P = 0 */
	GPT_RESERVED,		/* an entry sets a bit §4.5.4 reserves */
	GPT_OUTSIDE_RAM,	/* a table or the data lies outside guest RAM */
	GPT_LEGACY_PAGING,	/* 32-bit or PAE paging, which the walker refuses */
};

/**
 * gpt_mode_of() - the paging mode a vCPU's control registers select
 * @cr0: the guest's CR0 as the processor uses it
 * @cr4: the guest's CR4 as the processor uses it
 * @efer: the guest's IA32_EFER
 *
 * Return: GPT_MODE_NONE without CR0.PG, GPT_MODE_4LEVEL with CR0.PG,
 * CR4.PAE and EFER.LMA, GPT_MODE_LEGACY otherwise.
 */
enum gpt_mode gpt_mode_of(uint64_t cr0, uint64_t cr4, uint64_t efer);

/**
 * gpt_translate() - the guest-physical address of a guest-virtual one.
 * @space: the address space
 * @gva: the guest-virtual (linear) address
 * @gpa: filled with the translation when the walk succeeds
 *
 * A walk reads at most four entries, so tables that point back at themselves
 * end it like any others.
 *
 * Return: GPT_OK, or why the address has no translation.
 */
enum gpt_status gpt_translate(const struct gpt_space *space, uint64_t gva, uint64_t *gpa);

/**
 * gpt_read() - copy guest-virtual memory into a buffer.
 * @space: the address space
 * @gva: the first byte's guest-virtual address
 * @buf: the destination
 * @len: bytes to copy
 *
 * Each 4 KiB page the range touches is translated on its own, so a range may
 * span pages mapped anywhere.
 *
 * Return: GPT_OK with all len bytes copied, or the first page's failure.
 */
enum gpt_status gpt_read(const struct gpt_space *space, uint64_t gva, void *buf,
			 unsigned int len);

#endif
