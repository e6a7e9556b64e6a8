/* SPDX-License-Identifier: MIT */
/*
 * vmcs_controls.c - the control words and the bitmaps of a vCPU's VMCS,
 * computed from the capability MSRs and the guest's choices; pure, so
 * tests/unit/test_vmcs_controls.c runs it on Nehalem's and Haswell's.
 */
#include <string.h>

#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"

#define MSR_BITMAP_HIGH		1024	/* RDMSR of C0000000H-C0001FFFH (§25.6.9) */
#define MSR_BITMAP_WRITE	2048	/* the WRMSR half */
#define MSR_RANGE_LOW_END	0x2000u
#define MSR_RANGE_HIGH		0xc0000000u

/*
 * One control word: the capability MSR's low half (allowed-0 settings) has
 * the bits that must be 1, its high half (allowed-1) those that may be
 * (SDM Vol. 3D §A.3). Returns the bits of @must the core lacks.
 */
static uint32_t vmcs_control(uint64_t cap, uint32_t want, uint32_t must, uint32_t *out)
{
	uint32_t allowed0 = (uint32_t)cap, allowed1 = (uint32_t)(cap >> 32);

	*out = ((want | must) | allowed0) & allowed1;
	return must & ~allowed1;
}

bool vmcs_controls_compute(const struct vmx_caps *caps,
			   const struct vmcs_setup_choices *choices, struct vmcs_controls *out)
{
	uint32_t want2 = PROC2_EPT | PROC2_VPID | PROC2_WBINVD_EXITING;

	if (choices->rdtscp)
		want2 |= PROC2_RDTSCP;
	if (choices->invpcid)
		want2 |= PROC2_INVPCID;
	if (choices->xsaves)
		want2 |= PROC2_XSAVES;

	const struct {
		const char *name;
		uint64_t cap;
		uint32_t want, must;
		uint32_t *word;
	} words[] = {
		{ "pin-based", caps->pinbased, 0, PIN_NMI_EXITING, &out->pin },
		{ "processor-based", caps->procbased,
		  PROC_MWAIT_EXITING | PROC_RDPMC_EXITING | PROC_MONITOR_EXITING,
		  PROC_IO_BITMAPS | PROC_MSR_BITMAPS | PROC_SECONDARY_CONTROLS, &out->proc },
		{ "secondary", caps->procbased2, want2, PROC2_EPT | PROC2_VPID, &out->proc2 },
		{ "exit", caps->exit_ctls, 0, EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_PAT |
		  EXIT_LOAD_PAT | EXIT_SAVE_EFER | EXIT_LOAD_EFER, &out->exit },
		{ "entry", caps->entry_ctls, 0, ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_PAT |
		  ENTRY_LOAD_EFER, &out->entry },
	};

	*out = (struct vmcs_controls){ 0 };
	for (unsigned int i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		uint32_t lacking = vmcs_control(words[i].cap, words[i].want, words[i].must,
						words[i].word);

		if (lacking) {
			out->missing = words[i].name;
			out->missing_bits = lacking;
			return false;
		}
	}
	return true;
}

/* The byte and bit of RDMSR (or WRMSR) of @msr, or NULL outside both ranges (§25.6.9). */
static const uint8_t *vmcs_msr_bit(const uint8_t *bitmap, uint32_t msr, bool write,
				   uint8_t *bit)
{
	uint32_t index = msr & (MSR_RANGE_LOW_END - 1);
	unsigned int base = write ? MSR_BITMAP_WRITE : 0;

	if (msr >= MSR_RANGE_HIGH && msr - MSR_RANGE_HIGH < MSR_RANGE_LOW_END)
		base += MSR_BITMAP_HIGH;
	else if (msr >= MSR_RANGE_LOW_END)
		return NULL;
	*bit = (uint8_t)(1u << (index % 8));
	return &bitmap[base + index / 8];
}

void vmcs_msr_bitmap_set(uint8_t *bitmap, uint32_t msr, bool write, bool exits)
{
	uint8_t bit;
	uint8_t *byte = (uint8_t *)vmcs_msr_bit(bitmap, msr, write, &bit);

	if (byte)
		*byte = exits ? (uint8_t)(*byte | bit) : (uint8_t)(*byte & ~bit);
}

bool vmcs_msr_bitmap_exits(const uint8_t *bitmap, uint32_t msr, bool write)
{
	uint8_t bit;
	const uint8_t *byte = vmcs_msr_bit(bitmap, msr, write, &bit);

	return !byte || (*byte & bit);
}

void vmcs_msr_bitmap_init(uint8_t *bitmap, const uint32_t *pass, unsigned int count)
{
	memset(bitmap, 0xff, VMCS_MSR_BITMAP_SIZE);
	for (unsigned int i = 0; i < count; i++) {
		vmcs_msr_bitmap_set(bitmap, pass[i], false, false);
		vmcs_msr_bitmap_set(bitmap, pass[i], true, false);
	}
}

void vmcs_io_bitmap_init(uint8_t *bitmap)
{
	memset(bitmap, 0xff, VMCS_IO_BITMAP_SIZE);
}
