/* SPDX-License-Identifier: MIT */
/*
 * vmx.h - what VMX offers on a core, and turning it on and off.
 */
#ifndef SIDECORE_VMX_VMX_H
#define SIDECORE_VMX_VMX_H

#include <stdbool.h>
#include <stdint.h>

struct vmx_caps {
	bool ok;		/* VMXON and VMXOFF succeeded */
	const char *reason;	/* why not, when !ok */
	uint32_t revision;	/* VMCS revision identifier */
	uint64_t basic;
	uint64_t pinbased;	/* TRUE_* variants where IA32_VMX_BASIC[55] */
	uint64_t procbased;
	uint64_t procbased2;
	uint64_t exit_ctls;
	uint64_t entry_ctls;
	uint64_t ept_vpid;
	uint64_t misc;
	bool ept, vpid, unrestricted_guest, preemption_timer;
	bool apic_access, virtual_interrupt_delivery, posted_interrupts;
	bool x2apic_virtualization, ept_1g_pages, ept_ad_bits;
};

/*
 * Reads the capability MSRs of this core, enables VMX in
 * IA32_FEATURE_CONTROL when firmware left it unlocked, and proves it works
 * with VMXON/VMXOFF on vmxon_region (a 4 KiB page, identity-mapped).
 */
void vmx_probe(struct vmx_caps *caps, uint64_t vmxon_region);

/* Enters VMX root operation on this core for good (it runs vCPUs from now on). */
bool vmx_enable(const struct vmx_caps *caps, uint64_t vmxon_region);

#endif
