/* SPDX-License-Identifier: MIT */
/*
 * vmcs_setup.h - a vCPU's VMCS from what its guest's policy chooses.
 *
 * The guest (hv/guest) decides what a vCPU may do: which instructions its
 * CPUID shows, which MSRs pass, its EPT, VPID and entry state. This file
 * turns those choices into VMCS contents: control words from the
 * capability MSRs (SDM Vol. 3D appendix A), the host state, the initial
 * guest state, and the bits of the MSR and I/O bitmaps. The control words
 * and the bitmaps are pure (vmcs_controls.c, host-tested); the writes are
 * in vmcs_setup.c.
 */
#ifndef SIDECORE_VMX_VMCS_SETUP_H
#define SIDECORE_VMX_VMCS_SETUP_H

#include <stdbool.h>
#include <stdint.h>

#include "vmx/vmx.h"

#define VMCS_MSR_BITMAP_SIZE	4096	/* one page (§25.6.9) */
#define VMCS_IO_BITMAP_SIZE	8192	/* A then B, a page each (§25.6.4) */

/* The 64-bit boot protocol's entry state the loader chose for vCPU 0. */
struct vmcs_entry_state {
	uint64_t rip, cr3, gdt_base;
	uint16_t gdt_limit, cs, ds;
};

/* What a guest's policy chooses for one vCPU's VMCS. */
struct vmcs_setup_choices {
	/* The guest's CPUID shows these, so they must not #UD under VMX. */
	bool rdtscp, invpcid, xsaves;
	uint64_t io_bitmap;	/* host-physical: VMCS_IO_BITMAP_SIZE bytes */
	uint64_t msr_bitmap;	/* host-physical: VMCS_MSR_BITMAP_SIZE bytes */
	uint64_t ept_pointer;
	uint16_t vpid;
	struct vmcs_entry_state entry;
};

/* The VM-execution, exit and entry control words (§25.6.1-25.6.2, 25.7.1, 25.8.1). */
struct vmcs_controls {
	uint32_t pin, proc, proc2, exit, entry;
	const char *missing;	/* which word lacks a required control, or NULL */
	uint32_t missing_bits;	/* the required controls it lacks */
};

/**
 * vmcs_controls_compute() - the control words a vCPU runs with
 * @caps: the core's VMX capability MSRs (vmx_probe())
 * @choices: what the guest's policy chose
 * @out: the words, or which required controls the core lacks
 *
 * Bits a capability MSR forces on are on; NMI exiting, I/O and MSR bitmaps,
 * secondary controls, EPT, VPID, a 64-bit host and saving and loading EFER
 * and PAT are required; MWAIT, RDPMC, MONITOR and WBINVD exiting, and the
 * instructions @choices lets through, are taken where the core has them.
 * External-interrupt and HLT exiting stay off (docs/vmx.md, "Direct
 * interrupts").
 *
 * Return: false, with @out->missing and @out->missing_bits set, when the
 * core lacks a required control.
 */
bool vmcs_controls_compute(const struct vmx_caps *caps,
			   const struct vmcs_setup_choices *choices, struct vmcs_controls *out);

/**
 * vmcs_msr_bitmap_init() - an MSR bitmap where every MSR exits but some
 * @bitmap: VMCS_MSR_BITMAP_SIZE bytes
 * @pass: MSRs whose RDMSR and WRMSR pass without an exit
 * @count: how many
 */
void vmcs_msr_bitmap_init(uint8_t *bitmap, const uint32_t *pass, unsigned int count);

/**
 * vmcs_msr_bitmap_set() - make RDMSR or WRMSR of one MSR exit, or pass
 * @bitmap: VMCS_MSR_BITMAP_SIZE bytes
 * @msr: the MSR; one outside the two ranges a bitmap covers always exits
 *	and is left alone
 * @write: WRMSR rather than RDMSR
 * @exits: true: the access exits; false: it passes
 */
void vmcs_msr_bitmap_set(uint8_t *bitmap, uint32_t msr, bool write, bool exits);

/**
 * vmcs_msr_bitmap_exits() - does RDMSR or WRMSR of an MSR exit
 * @bitmap: VMCS_MSR_BITMAP_SIZE bytes
 * @msr: the MSR
 * @write: WRMSR rather than RDMSR
 *
 * Return: true when the access exits, as it always does outside the two
 * ranges a bitmap covers (§25.6.9).
 */
bool vmcs_msr_bitmap_exits(const uint8_t *bitmap, uint32_t msr, bool write);

/**
 * vmcs_io_bitmap_init() - I/O bitmaps where every port exits
 * @bitmap: VMCS_IO_BITMAP_SIZE bytes, A then B
 */
void vmcs_io_bitmap_init(uint8_t *bitmap);

/**
 * vmcs_setup() - write a vCPU's whole VMCS for a new life
 * @caps: this core's VMX capabilities
 * @choices: what the guest's policy chose
 * @controls: the control words written
 *
 * On the current VMCS, just cleared and loaded: the controls, the host
 * state of this core (its exits land at vmx_exit), then the 64-bit entry
 * state of @choices->entry with the CR masks of vmcs_setup_cr_masks().
 *
 * Return: false, with the missing control printed, when the core lacks a
 * required control; nothing is written then.
 */
bool vmcs_setup(const struct vmx_caps *caps, const struct vmcs_setup_choices *choices,
		struct vmcs_controls *controls);

/**
 * vmcs_setup_cr_masks() - the CR0 and CR4 guest/host masks of a running guest
 *
 * The bits VMX fixes, NE, and the CR4 bits no guest may own
 * (exit_rules_cr4_owned()); what every vCPU runs with once in long mode.
 */
void vmcs_setup_cr_masks(void);

/**
 * vmcs_setup_real_mode() - the state a SIPI leaves a processor in
 * @vector: the SIPI's vector
 *
 * On the current VMCS after vmcs_setup(): real mode at CS:IP =
 * vector << 8:0 (SDM Vol. 3A §9.1.1, Table 9-1), with "unrestricted guest"
 * on and CR0.PE and CR0.PG left to the guest (§26.3.1.1). The core must
 * have unrestricted guest.
 */
void vmcs_setup_real_mode(uint8_t vector);

/**
 * vmcs_vm86_cr0() - the CR0 a processor holds for a guest's CR0 in virtual-8086 mode
 * @cr0: the CR0 the guest sees (its read shadow)
 *
 * Return: @cr0 with PE, PG and the bits VMX fixes, as VM entry without
 * unrestricted guest needs them (§26.3.1.1).
 */
uint64_t vmcs_vm86_cr0(uint64_t cr0);

/**
 * vmcs_setup_vm86() - the state a SIPI leaves a processor in, as a virtual-8086 task
 * @vector: the SIPI's vector
 * @page_directory: guest-physical address of a 32-bit page directory that
 *	maps the guest's low 4 GiB to itself
 *
 * On the current VMCS after vmcs_setup(), for a core without unrestricted
 * guest: the real-mode state of vmcs_setup_real_mode() as virtual-8086
 * mode with IOPL 3 (CS = vector << 8, every segment's base its selector
 * << 4, a busy 32-bit TSS at 0), paging on @page_directory, the guest's CR0
 * and CR4 in the read shadows. Which exits the start takes is the caller's.
 */
void vmcs_setup_vm86(uint8_t vector, uint64_t page_directory);

/**
 * vmcs_set_segment() - load one guest segment register
 * @index: 0 (ES) to 7 (TR) in the VMCS's order (appendix B)
 * @selector: its selector
 * @base: its base
 * @limit: its limit
 * @ar: its access rights (§25.4.1)
 */
void vmcs_set_segment(unsigned int index, uint16_t selector, uint64_t base, uint32_t limit,
		      uint32_t ar);

#endif
