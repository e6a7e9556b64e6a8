/* SPDX-License-Identifier: MIT */
/*
 * vmx_probe.c - VMX capability discovery (SDM Vol. 3D appendix A) and a
 * VMXON/VMXOFF round trip (SDM Vol. 3C §24.7, §24.8).
 */
#include <string.h>

#include "arch/x86.h"
#include "vmx/vmx.h"

#define CPUID_1_ECX_VMX			(1u << 5)
#define CPUID_1_ECX_XSAVE		(1u << 26)
#define CR4_OSXSAVE			(1ull << 18)

#define FEATURE_CONTROL_LOCK		(1ull << 0)
#define FEATURE_CONTROL_VMX_OUTSIDE_SMX	(1ull << 2)

#define VMX_BASIC_TRUE_CTLS		(1ull << 55)

/* Allowed-1 settings live in the high 32 bits of each control MSR. */
#define PROC_SECONDARY_CONTROLS		(1ull << (32 + 31))
#define PROC2_ENABLE_EPT		(1ull << (32 + 1))
#define PROC2_VIRTUALIZE_X2APIC		(1ull << (32 + 4))
#define PROC2_ENABLE_VPID		(1ull << (32 + 5))
#define PROC2_UNRESTRICTED_GUEST	(1ull << (32 + 7))
#define PROC2_VIRTUAL_INTR_DELIVERY	(1ull << (32 + 9))

/* IA32_VMX_EPT_VPID_CAP (appendix A.10). */
#define EPT_CAP_1G_PAGES		(1ull << 17)
#define EPT_CAP_AD_BITS			(1ull << 21)

static bool vmx_enable_in_feature_control(struct vmx_caps *caps)
{
	uint64_t fc = rdmsr(MSR_IA32_FEATURE_CONTROL);

	if (fc & FEATURE_CONTROL_LOCK) {
		if (fc & FEATURE_CONTROL_VMX_OUTSIDE_SMX)
			return true;
		caps->reason = "disabled and locked by firmware";
		return false;
	}
	wrmsr(MSR_IA32_FEATURE_CONTROL,
	      fc | FEATURE_CONTROL_VMX_OUTSIDE_SMX | FEATURE_CONTROL_LOCK);
	return true;
}

static void vmx_read_caps(struct vmx_caps *caps)
{
	bool true_ctls;

	caps->basic = rdmsr(MSR_IA32_VMX_BASIC);
	caps->revision = caps->basic & 0x7fffffff;
	true_ctls = caps->basic & VMX_BASIC_TRUE_CTLS;
	caps->pinbased = rdmsr(true_ctls ? MSR_IA32_VMX_TRUE_PINBASED_CTLS :
					   MSR_IA32_VMX_PINBASED_CTLS);
	caps->procbased = rdmsr(true_ctls ? MSR_IA32_VMX_TRUE_PROCBASED_CTLS :
					    MSR_IA32_VMX_PROCBASED_CTLS);
	caps->exit_ctls = rdmsr(true_ctls ? MSR_IA32_VMX_TRUE_EXIT_CTLS :
					    MSR_IA32_VMX_EXIT_CTLS);
	caps->entry_ctls = rdmsr(true_ctls ? MSR_IA32_VMX_TRUE_ENTRY_CTLS :
					     MSR_IA32_VMX_ENTRY_CTLS);
	if (caps->procbased & PROC_SECONDARY_CONTROLS)
		caps->procbased2 = rdmsr(MSR_IA32_VMX_PROCBASED_CTLS2);

	caps->ept = caps->procbased2 & PROC2_ENABLE_EPT;
	/* EPT_VPID_CAP exists only if EPT or VPID can be enabled (A.10). */
	if (caps->ept || (caps->procbased2 & PROC2_ENABLE_VPID))
		caps->ept_vpid = rdmsr(MSR_IA32_VMX_EPT_VPID_CAP);
	caps->vpid = caps->procbased2 & PROC2_ENABLE_VPID;
	caps->unrestricted_guest = caps->procbased2 & PROC2_UNRESTRICTED_GUEST;
	caps->x2apic_virtualization = caps->procbased2 & PROC2_VIRTUALIZE_X2APIC;
	caps->virtual_interrupt_delivery = caps->procbased2 & PROC2_VIRTUAL_INTR_DELIVERY;
	caps->ept_1g_pages = caps->ept && (caps->ept_vpid & EPT_CAP_1G_PAGES);
	caps->ept_ad_bits = caps->ept && (caps->ept_vpid & EPT_CAP_AD_BITS);
}

/* §23.8: CR0 and CR4 must respect the FIXED0 (must be 1) / FIXED1 (may be 1) MSRs. */
static uint64_t vmx_fix_cr(uint64_t value, uint32_t fixed0_msr, uint32_t fixed1_msr)
{
	return (value | rdmsr(fixed0_msr)) & rdmsr(fixed1_msr);
}

/* Leaves the core in VMX root operation on success; CR0/CR4 untouched on failure. */
static bool vmx_on(uint64_t vmxon_region, uint32_t revision)
{
	uint64_t cr0 = read_cr0(), cr4 = read_cr4();
	uint64_t rflags;

	/* §25.11.5: the VMXON region starts with the VMCS revision identifier. */
	memset((void *)(uintptr_t)vmxon_region, 0, 4096);
	*(uint32_t *)(uintptr_t)vmxon_region = revision;
	write_cr0(vmx_fix_cr(cr0, MSR_IA32_VMX_CR0_FIXED0, MSR_IA32_VMX_CR0_FIXED1));
	write_cr4(vmx_fix_cr(cr4 | CR4_VMXE, MSR_IA32_VMX_CR4_FIXED0,
			     MSR_IA32_VMX_CR4_FIXED1));

	asm volatile("vmxon %1; pushfq; popq %0"
		     : "=r"(rflags) : "m"(vmxon_region) : "cc", "memory");
	if (rflags & (RFLAGS_CF | RFLAGS_ZF)) {
		write_cr4(cr4);
		write_cr0(cr0);
		return false;
	}
	return true;
}

bool vmx_enable(const struct vmx_caps *caps, uint64_t vmxon_region)
{
	/* XSETBV exits are emulated with XSETBV, which needs CR4.OSXSAVE here. */
	if (cpuid(1, 0).ecx & CPUID_1_ECX_XSAVE)
		write_cr4(read_cr4() | CR4_OSXSAVE);
	return caps->ok && vmx_on(vmxon_region, caps->revision);
}

void vmx_probe(struct vmx_caps *caps, uint64_t vmxon_region)
{
	memset(caps, 0, sizeof(*caps));
	if (!(cpuid(1, 0).ecx & CPUID_1_ECX_VMX)) {
		caps->reason = "cpu has no VMX";
		return;
	}
	if (!vmx_enable_in_feature_control(caps))
		return;
	vmx_read_caps(caps);

	if (!vmx_on(vmxon_region, caps->revision)) {
		caps->reason = "VMXON failed";
		return;
	}
	asm volatile("vmxoff" ::: "cc", "memory");
	write_cr4(read_cr4() & ~CR4_VMXE);
	caps->ok = true;
}
