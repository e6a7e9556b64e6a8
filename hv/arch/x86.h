/* SPDX-License-Identifier: MIT */
/*
 * x86.h - the thin layer between C and the processor: CPUID, MSR numbers,
 * control registers, interrupts and halting, and (from cpu/io.h, which
 * drivers/ uses alone) port I/O, MMIO, MSR and TSC accessors. Everything
 * that touches hardware goes through here, so pure modules never do.
 */
#ifndef SIDECORE_ARCH_X86_H
#define SIDECORE_ARCH_X86_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu/io.h"

/* SDM Vol. 4, model-specific registers used by the hypervisor. */
#define MSR_IA32_FEATURE_CONTROL	0x03a
#define MSR_IA32_APIC_BASE		0x01b
#define MSR_IA32_TSC_DEADLINE		0x6e0
#define MSR_IA32_VMX_BASIC		0x480
#define MSR_IA32_VMX_PINBASED_CTLS	0x481
#define MSR_IA32_VMX_PROCBASED_CTLS	0x482
#define MSR_IA32_VMX_EXIT_CTLS		0x483
#define MSR_IA32_VMX_ENTRY_CTLS		0x484
#define MSR_IA32_VMX_CR0_FIXED0		0x486
#define MSR_IA32_VMX_CR0_FIXED1		0x487
#define MSR_IA32_VMX_CR4_FIXED0		0x488
#define MSR_IA32_VMX_CR4_FIXED1		0x489
#define MSR_IA32_VMX_PROCBASED_CTLS2	0x48b
#define MSR_IA32_VMX_EPT_VPID_CAP	0x48c
#define MSR_IA32_VMX_TRUE_PINBASED_CTLS	0x48d
#define MSR_IA32_VMX_TRUE_PROCBASED_CTLS 0x48e
#define MSR_IA32_VMX_TRUE_EXIT_CTLS	0x48f
#define MSR_IA32_VMX_TRUE_ENTRY_CTLS	0x490
#define MSR_EFER			0xc0000080
#define MSR_GS_BASE			0xc0000101

#define CR0_PE		(1ull << 0)
#define CR0_NE		(1ull << 5)
#define CR0_PG		(1ull << 31)
#define CR4_PAE		(1ull << 5)
#define CR4_VMXE	(1ull << 13)

#define RFLAGS_CF	(1ull << 0)
#define RFLAGS_ZF	(1ull << 6)
#define RFLAGS_IF	(1ull << 9)

/* CPUID.80000001H:ECX[8] (SDM Vol. 2A, CPUID): PREFETCHW exists. */
#define CPUID_80000001_ECX_PRFCHW	(1u << 8)

struct cpuid_regs {
	uint32_t eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r;

	asm volatile("cpuid"
		     : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
		     : "a"(leaf), "c"(subleaf));
	return r;
}

#define DEFINE_CR_ACCESSORS(n)						\
static inline uint64_t read_cr##n(void)					\
{									\
	uint64_t v;							\
	asm volatile("mov %%cr" #n ", %0" : "=r"(v));			\
	return v;							\
}									\
static inline void write_cr##n(uint64_t v)				\
{									\
	asm volatile("mov %0, %%cr" #n : : "r"(v) : "memory");		\
}
DEFINE_CR_ACCESSORS(0)
DEFINE_CR_ACCESSORS(3)
DEFINE_CR_ACCESSORS(4)
#undef DEFINE_CR_ACCESSORS

static inline uint64_t read_cr2(void)
{
	uint64_t v;

	asm volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static inline void irq_enable(void)
{
	asm volatile("sti" ::: "memory");
}

static inline void irq_disable(void)
{
	asm volatile("cli" ::: "memory");
}

/* STI's one-instruction shadow makes "sti; hlt" race-free against wake-up IPIs. */
static inline void cpu_idle(void)
{
	asm volatile("sti; hlt; cli" ::: "memory");
}

/* Takes any interrupt already pending (STI's shadow covers the NOP), then masks again. */
static inline void cpu_take_pending_irqs(void)
{
	asm volatile("sti; nop; cli" ::: "memory");
}

/*
 * An IRET to the next instruction. A VM exit caused by an NMI leaves
 * further NMIs blocked until the next IRET (SDM Vol. 3C §26.2, "NMI
 * exiting"): this ends that blocking.
 */
static inline void nmi_unblock(void)
{
	asm volatile("mov %%ss, %%eax\n\t"
		     "pushq %%rax\n\t"
		     "pushq %%rsp\n\t"
		     "addq $8, (%%rsp)\n\t"
		     "pushfq\n\t"
		     "mov %%cs, %%eax\n\t"
		     "pushq %%rax\n\t"
		     "leaq 1f(%%rip), %%rax\n\t"
		     "pushq %%rax\n\t"
		     "iretq\n"
		     "1:" ::: "rax", "memory", "cc");
}

static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	for (;;)
		asm volatile("cli; hlt");
}

#endif
