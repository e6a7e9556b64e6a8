/* SPDX-License-Identifier: MIT */
/*
 * vmcs.h - VMCS field encodings (SDM Vol. 3D appendix B), control bits
 * (Vol. 3C chapter 25), exit reasons (appendix C) and the accessors.
 */
#ifndef SIDECORE_VMX_VMCS_H
#define SIDECORE_VMX_VMCS_H

#include <stdbool.h>
#include <stdint.h>

/* 16-bit fields */
#define VMCS_VPID			0x0000
#define VMCS_GUEST_ES_SELECTOR		0x0800
#define VMCS_GUEST_CS_SELECTOR		0x0802
#define VMCS_GUEST_SS_SELECTOR		0x0804
#define VMCS_GUEST_DS_SELECTOR		0x0806
#define VMCS_GUEST_FS_SELECTOR		0x0808
#define VMCS_GUEST_GS_SELECTOR		0x080a
#define VMCS_GUEST_LDTR_SELECTOR	0x080c
#define VMCS_GUEST_TR_SELECTOR		0x080e
#define VMCS_HOST_ES_SELECTOR		0x0c00
#define VMCS_HOST_CS_SELECTOR		0x0c02
#define VMCS_HOST_SS_SELECTOR		0x0c04
#define VMCS_HOST_DS_SELECTOR		0x0c06
#define VMCS_HOST_FS_SELECTOR		0x0c08
#define VMCS_HOST_GS_SELECTOR		0x0c0a
#define VMCS_HOST_TR_SELECTOR		0x0c0c

/* 64-bit fields */
#define VMCS_IO_BITMAP_A		0x2000
#define VMCS_IO_BITMAP_B		0x2002
#define VMCS_MSR_BITMAP			0x2004
#define VMCS_EXIT_MSR_STORE_ADDR	0x2006
#define VMCS_EXIT_MSR_LOAD_ADDR		0x2008
#define VMCS_ENTRY_MSR_LOAD_ADDR	0x200a
#define VMCS_EPT_POINTER		0x201a
#define VMCS_GUEST_PHYSICAL_ADDR	0x2400
#define VMCS_LINK_POINTER		0x2800
#define VMCS_GUEST_IA32_PAT		0x2804
#define VMCS_GUEST_IA32_EFER		0x2806
#define VMCS_HOST_IA32_PAT		0x2c00
#define VMCS_HOST_IA32_EFER		0x2c02

/* 32-bit fields */
#define VMCS_PIN_CONTROLS		0x4000
#define VMCS_PROC_CONTROLS		0x4002
#define VMCS_EXCEPTION_BITMAP		0x4004
#define VMCS_CR3_TARGET_COUNT		0x400a
#define VMCS_EXIT_CONTROLS		0x400c
#define VMCS_EXIT_MSR_STORE_COUNT	0x400e
#define VMCS_EXIT_MSR_LOAD_COUNT	0x4010
#define VMCS_ENTRY_CONTROLS		0x4012
#define VMCS_ENTRY_MSR_LOAD_COUNT	0x4014
#define VMCS_ENTRY_INTR_INFO		0x4016
#define VMCS_ENTRY_EXCEPTION_ERROR	0x4018
#define VMCS_ENTRY_INSTRUCTION_LEN	0x401a
#define VMCS_PROC_CONTROLS2		0x401e
#define VMCS_INSTRUCTION_ERROR		0x4400
#define VMCS_EXIT_REASON		0x4402
#define VMCS_EXIT_INTR_INFO		0x4404
#define VMCS_EXIT_INTR_ERROR		0x4406
#define VMCS_IDT_VECTORING_INFO		0x4408
#define VMCS_IDT_VECTORING_ERROR	0x440a
#define VMCS_EXIT_INSTRUCTION_LEN	0x440c
#define VMCS_EXIT_INSTRUCTION_INFO	0x440e
#define VMCS_GUEST_ES_LIMIT		0x4800
#define VMCS_GUEST_CS_LIMIT		0x4802
#define VMCS_GUEST_SS_LIMIT		0x4804
#define VMCS_GUEST_DS_LIMIT		0x4806
#define VMCS_GUEST_FS_LIMIT		0x4808
#define VMCS_GUEST_GS_LIMIT		0x480a
#define VMCS_GUEST_LDTR_LIMIT		0x480c
#define VMCS_GUEST_TR_LIMIT		0x480e
#define VMCS_GUEST_GDTR_LIMIT		0x4810
#define VMCS_GUEST_IDTR_LIMIT		0x4812
#define VMCS_GUEST_ES_AR		0x4814
#define VMCS_GUEST_CS_AR		0x4816
#define VMCS_GUEST_SS_AR		0x4818
#define VMCS_GUEST_DS_AR		0x481a
#define VMCS_GUEST_FS_AR		0x481c
#define VMCS_GUEST_GS_AR		0x481e
#define VMCS_GUEST_LDTR_AR		0x4820
#define VMCS_GUEST_TR_AR		0x4822
#define VMCS_GUEST_INTERRUPTIBILITY	0x4824
#define VMCS_GUEST_ACTIVITY_STATE	0x4826
#define VMCS_GUEST_SYSENTER_CS		0x482a
#define VMCS_HOST_SYSENTER_CS		0x4c00

/* Natural-width fields */
#define VMCS_CR0_MASK			0x6000
#define VMCS_CR4_MASK			0x6002
#define VMCS_CR0_READ_SHADOW		0x6004
#define VMCS_CR4_READ_SHADOW		0x6006
#define VMCS_EXIT_QUALIFICATION		0x6400
#define VMCS_GUEST_LINEAR_ADDR		0x640a
#define VMCS_GUEST_CR0			0x6800
#define VMCS_GUEST_CR3			0x6802
#define VMCS_GUEST_CR4			0x6804
#define VMCS_GUEST_ES_BASE		0x6806
#define VMCS_GUEST_CS_BASE		0x6808
#define VMCS_GUEST_SS_BASE		0x680a
#define VMCS_GUEST_DS_BASE		0x680c
#define VMCS_GUEST_FS_BASE		0x680e
#define VMCS_GUEST_GS_BASE		0x6810
#define VMCS_GUEST_LDTR_BASE		0x6812
#define VMCS_GUEST_TR_BASE		0x6814
#define VMCS_GUEST_GDTR_BASE		0x6816
#define VMCS_GUEST_IDTR_BASE		0x6818
#define VMCS_GUEST_DR7			0x681a
#define VMCS_GUEST_RSP			0x681c
#define VMCS_GUEST_RIP			0x681e
#define VMCS_GUEST_RFLAGS		0x6820
#define VMCS_GUEST_PENDING_DBG		0x6822
#define VMCS_GUEST_SYSENTER_ESP		0x6824
#define VMCS_GUEST_SYSENTER_EIP		0x6826
#define VMCS_HOST_CR0			0x6c00
#define VMCS_HOST_CR3			0x6c02
#define VMCS_HOST_CR4			0x6c04
#define VMCS_HOST_FS_BASE		0x6c06
#define VMCS_HOST_GS_BASE		0x6c08
#define VMCS_HOST_TR_BASE		0x6c0a
#define VMCS_HOST_GDTR_BASE		0x6c0c
#define VMCS_HOST_IDTR_BASE		0x6c0e
#define VMCS_HOST_SYSENTER_ESP		0x6c10
#define VMCS_HOST_SYSENTER_EIP		0x6c12
#define VMCS_HOST_RSP			0x6c14
#define VMCS_HOST_RIP			0x6c16

/* Pin-based controls (§25.6.1) */
#define PIN_NMI_EXITING			(1u << 3)
#define PIN_VIRTUAL_NMIS		(1u << 5)

/* Primary processor-based controls (§25.6.2) */
#define PROC_MWAIT_EXITING		(1u << 10)
#define PROC_RDPMC_EXITING		(1u << 11)
#define PROC_CR3_LOAD_EXITING		(1u << 15)
#define PROC_CR3_STORE_EXITING		(1u << 16)
#define PROC_CR8_LOAD_EXITING		(1u << 19)
#define PROC_CR8_STORE_EXITING		(1u << 20)
#define PROC_MOV_DR_EXITING		(1u << 23)
#define PROC_UNCONDITIONAL_IO_EXITING	(1u << 24)
#define PROC_IO_BITMAPS			(1u << 25)
#define PROC_MSR_BITMAPS		(1u << 28)
#define PROC_MONITOR_EXITING		(1u << 29)
#define PROC_SECONDARY_CONTROLS		(1u << 31)

/* Secondary processor-based controls */
#define PROC2_EPT			(1u << 1)
#define PROC2_RDTSCP			(1u << 3)
#define PROC2_VPID			(1u << 5)
#define PROC2_WBINVD_EXITING		(1u << 6)
#define PROC2_UNRESTRICTED_GUEST	(1u << 7)
#define PROC2_INVPCID			(1u << 12)
#define PROC2_XSAVES			(1u << 20)

/* VM-exit controls (§25.7.1) */
#define EXIT_HOST_ADDRESS_SPACE_SIZE	(1u << 9)
#define EXIT_SAVE_PAT			(1u << 18)
#define EXIT_LOAD_PAT			(1u << 19)
#define EXIT_SAVE_EFER			(1u << 20)
#define EXIT_LOAD_EFER			(1u << 21)

/* VM-entry controls (§25.8.1) */
#define ENTRY_IA32E_MODE_GUEST		(1u << 9)
#define ENTRY_LOAD_PAT			(1u << 14)
#define ENTRY_LOAD_EFER			(1u << 15)

/* Interruption information (§25.8.3, §27.2.2) */
#define INTR_INFO_VALID			(1u << 31)
#define INTR_INFO_ERROR_CODE		(1u << 11)
#define INTR_TYPE_MASK			(7u << 8)
#define INTR_TYPE_NMI			(2u << 8)
#define INTR_TYPE_HARD_EXCEPTION	(3u << 8)

/* Guest interruptibility state (§25.4.2) */
#define INTERRUPTIBILITY_STI		(1u << 0)
#define INTERRUPTIBILITY_MOV_SS		(1u << 1)
#define INTERRUPTIBILITY_NMI		(1u << 3)

/* Basic exit reasons (appendix C) */
#define EXIT_REASON_EXCEPTION_NMI	0
#define EXIT_REASON_EXTERNAL_INTERRUPT	1
#define EXIT_REASON_TRIPLE_FAULT	2
#define EXIT_REASON_INIT		3
#define EXIT_REASON_SIPI		4
#define EXIT_REASON_INTERRUPT_WINDOW	7
#define EXIT_REASON_CPUID		10
#define EXIT_REASON_HLT			12
#define EXIT_REASON_INVD		13
#define EXIT_REASON_INVLPG		14
#define EXIT_REASON_RDPMC		15
#define EXIT_REASON_VMCALL		18
#define EXIT_REASON_CR_ACCESS		28
#define EXIT_REASON_IO			30
#define EXIT_REASON_RDMSR		31
#define EXIT_REASON_WRMSR		32
#define EXIT_REASON_ENTRY_BAD_GUEST	33
#define EXIT_REASON_ENTRY_BAD_MSR	34
#define EXIT_REASON_MWAIT		36
#define EXIT_REASON_MONITOR		39
#define EXIT_REASON_TPR_BELOW_THRESHOLD	43
#define EXIT_REASON_APIC_ACCESS		44
#define EXIT_REASON_EPT_VIOLATION	48
#define EXIT_REASON_EPT_MISCONFIG	49
#define EXIT_REASON_WBINVD		54
#define EXIT_REASON_APIC_WRITE		56
#define EXIT_REASON_XSETBV		55
#define EXIT_REASON_PREEMPTION_TIMER	52
#define EXIT_REASON_COUNT		70
#define EXIT_REASON_ENTRY_FAILED	(1u << 31)

static inline uint64_t vmcs_read(uint32_t field)
{
	uint64_t value;

	asm volatile("vmread %1, %0" : "=rm"(value) : "r"((uint64_t)field) : "cc");
	return value;
}

static inline void vmcs_write(uint32_t field, uint64_t value)
{
	asm volatile("vmwrite %1, %0" : : "r"((uint64_t)field), "rm"(value) : "cc");
}

/**
 * vmcs_clear() - VMCLEAR a VMCS
 * @vmcs: physical address of the VMCS region
 *
 * Puts the region in the clear state, so the next VM entry with it must be
 * a VMLAUNCH.
 *
 * Return: false on VMfail (CF or ZF set).
 */
bool vmcs_clear(uint64_t vmcs);

/**
 * vmcs_load() - VMPTRLD: make a VMCS this core's current one
 * @vmcs: physical address of the VMCS region
 *
 * vmcs_read() and vmcs_write() act on the current VMCS.
 *
 * Return: false on VMfail (CF or ZF set).
 */
bool vmcs_load(uint64_t vmcs);

/**
 * vmcs_exit_reason_name() - a basic exit reason as the counters print it
 * @reason: the basic exit reason (low 16 bits of the exit reason field)
 *
 * Return: a static lower-case name, or "other" for a reason without one.
 */
const char *vmcs_exit_reason_name(unsigned int reason);

/**
 * vmcs_skip_instruction() - move the guest past the instruction that exited
 *
 * Advances the current VMCS's guest RIP by the exit's instruction length
 * and ends any STI or MOV SS interrupt shadow, as executing it would have.
 */
void vmcs_skip_instruction(void);

/**
 * vmcs_inject_exception() - deliver a hardware exception at the next entry
 * @vector: the exception vector
 * @has_error: whether the exception pushes an error code
 * @error: the error code, if it does
 */
void vmcs_inject_exception(uint8_t vector, bool has_error, uint32_t error);

/**
 * vmcs_reinject_event() - deliver again an event an exit cut short
 *
 * An event that was being delivered when the exit happened (the
 * IDT-vectoring information, SDM Vol. 3C §28.2.4) is injected at the next
 * entry, unless an exception is already queued. Only after an exit: the
 * caller skips it before the first entry.
 */
void vmcs_reinject_event(void);

/**
 * vmcs_sync_long_mode() - the "IA-32e mode guest" control from the saved EFER
 *
 * A guest that owns CR0.PG turns long mode on by itself; the VM entry must
 * then say IA-32e mode (§26.3.1.1: EFER.LMA equals the control), so the
 * control follows the EFER the exit saved.
 */
void vmcs_sync_long_mode(void);

#endif
