/* SPDX-License-Identifier: MIT */
/*
 * vmcs.c - VMCS pointer instructions, exit reason names, and the event and
 * instruction bookkeeping every exit handler shares.
 */
#include "arch/x86.h"
#include "vmx/vmcs.h"

#define EFER_LMA	(1ull << 10)

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

void vmcs_skip_instruction(void)
{
	uint64_t interruptibility = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);

	vmcs_write(VMCS_GUEST_RIP, vmcs_read(VMCS_GUEST_RIP) +
		   vmcs_read(VMCS_EXIT_INSTRUCTION_LEN));
	/* Emulating the instruction ends an STI or MOV SS shadow (§26.7.1.2). */
	if (interruptibility & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS))
		vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, interruptibility &
			   ~(uint64_t)(INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS));
}

void vmcs_inject_exception(uint8_t vector, bool has_error, uint32_t error)
{
	vmcs_write(VMCS_ENTRY_INTR_INFO, INTR_INFO_VALID | INTR_TYPE_HARD_EXCEPTION |
		   (has_error ? INTR_INFO_ERROR_CODE : 0) | vector);
	if (has_error)
		vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR, error);
}

void vmcs_reinject_event(void)
{
	uint32_t idt_info = vmcs_read(VMCS_IDT_VECTORING_INFO);

	if (!(idt_info & INTR_INFO_VALID) || (vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID))
		return;
	vmcs_write(VMCS_ENTRY_INTR_INFO, idt_info & ~(1u << 12));
	if (idt_info & INTR_INFO_ERROR_CODE)
		vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR, vmcs_read(VMCS_IDT_VECTORING_ERROR));
	vmcs_write(VMCS_ENTRY_INSTRUCTION_LEN, vmcs_read(VMCS_EXIT_INSTRUCTION_LEN));
}

void vmcs_sync_long_mode(void)
{
	uint64_t entry = vmcs_read(VMCS_ENTRY_CONTROLS);

	if (vmcs_read(VMCS_GUEST_IA32_EFER) & EFER_LMA)
		entry |= ENTRY_IA32E_MODE_GUEST;
	else
		entry &= ~(uint64_t)ENTRY_IA32E_MODE_GUEST;
	vmcs_write(VMCS_ENTRY_CONTROLS, entry);
}
