/* SPDX-License-Identifier: MIT */
/* vmcs.c - VMCS pointer instructions and exit reason names. */
#include "arch/x86.h"
#include "vmx/vmcs.h"

static bool vmx_succeeded(uint64_t rflags)
{
	return !(rflags & (RFLAGS_CF | RFLAGS_ZF));
}

bool vmcs_clear(uint64_t vmcs)
{
	uint64_t rflags;

	asm volatile("vmclear %1; pushfq; popq %0"
		     : "=r"(rflags) : "m"(vmcs) : "cc", "memory");
	return vmx_succeeded(rflags);
}

bool vmcs_load(uint64_t vmcs)
{
	uint64_t rflags;

	asm volatile("vmptrld %1; pushfq; popq %0"
		     : "=r"(rflags) : "m"(vmcs) : "cc", "memory");
	return vmx_succeeded(rflags);
}

const char *vmcs_exit_reason_name(unsigned int reason)
{
	static const char *const names[EXIT_REASON_COUNT] = {
		[EXIT_REASON_EXCEPTION_NMI] = "exception_nmi",
		[EXIT_REASON_EXTERNAL_INTERRUPT] = "external_interrupt",
		[EXIT_REASON_TRIPLE_FAULT] = "triple_fault",
		[EXIT_REASON_INIT] = "init",
		[EXIT_REASON_SIPI] = "sipi",
		[EXIT_REASON_INTERRUPT_WINDOW] = "interrupt_window",
		[EXIT_REASON_CPUID] = "cpuid",
		[EXIT_REASON_HLT] = "hlt",
		[EXIT_REASON_INVD] = "invd",
		[EXIT_REASON_INVLPG] = "invlpg",
		[EXIT_REASON_RDPMC] = "rdpmc",
		[EXIT_REASON_VMCALL] = "vmcall",
		[EXIT_REASON_CR_ACCESS] = "cr_access",
		[EXIT_REASON_IO] = "io",
		[EXIT_REASON_RDMSR] = "rdmsr",
		[EXIT_REASON_WRMSR] = "wrmsr",
		[EXIT_REASON_ENTRY_BAD_GUEST] = "entry_bad_guest",
		[EXIT_REASON_ENTRY_BAD_MSR] = "entry_bad_msr",
		[EXIT_REASON_MWAIT] = "mwait",
		[EXIT_REASON_MONITOR] = "monitor",
		[EXIT_REASON_TPR_BELOW_THRESHOLD] = "tpr_below_threshold",
		[EXIT_REASON_APIC_ACCESS] = "apic_access",
		[EXIT_REASON_EPT_VIOLATION] = "ept_violation",
		[EXIT_REASON_EPT_MISCONFIG] = "ept_misconfig",
		[EXIT_REASON_PREEMPTION_TIMER] = "preemption_timer",
		[EXIT_REASON_WBINVD] = "wbinvd",
		[EXIT_REASON_XSETBV] = "xsetbv",
		[EXIT_REASON_APIC_WRITE] = "apic_write",
	};

	if (reason < EXIT_REASON_COUNT && names[reason])
		return names[reason];
	return "other";
}
