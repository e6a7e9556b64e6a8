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
	bool ept, vpid, unrestricted_guest;
	bool x2apic_virtualization, virtual_interrupt_delivery;
	bool ept_1g_pages, ept_ad_bits;
};

/**
 * vmx_probe() - find out what VMX offers on this core
 * @caps: filled in; caps->ok says whether VMX works, caps->reason why not
 * @vmxon_region: a 4 KiB page, identity-mapped, for the trial VMXON
 *
 * Reads the capability MSRs of this core, enables VMX in
 * IA32_FEATURE_CONTROL when firmware left it unlocked, and proves it works
 * with VMXON/VMXOFF on vmxon_region. The core leaves VMX operation again.
 */
void vmx_probe(struct vmx_caps *caps, uint64_t vmxon_region);

/**
 * vmx_enable() - enter VMX root operation on this core for good
 * @caps: this core's capabilities, from vmx_probe()
 * @vmxon_region: the page vmx_probe() used
 *
 * The core runs vCPUs from now on. Also sets CR4.OSXSAVE where the CPU has
 * XSAVE, since the guest's XSETBV is emulated with XSETBV.
 *
 * Return: false if the probe failed or VMXON does now.
 */
bool vmx_enable(const struct vmx_caps *caps, uint64_t vmxon_region);

#endif
