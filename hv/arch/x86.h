/* SPDX-License-Identifier: MIT */
/*
 * x86.h - the thin layer between C and the processor: CPUID, MSRs, control
 * registers, port I/O and MMIO. Everything that touches hardware goes
 * through here, so pure modules never do.
 */
#ifndef SIDECORE_ARCH_X86_H
#define SIDECORE_ARCH_X86_H

#include <stdbool.h>
#include <stdint.h>

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

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t value)
{
	asm volatile("wrmsr"
		     : : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
		     : "memory");
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
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

static inline void pio_out8(uint16_t port, uint8_t v)
{
	asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t pio_in8(uint16_t port)
{
	uint8_t v;

	asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void pio_out32(uint16_t port, uint32_t v)
{
	asm volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t pio_in32(uint16_t port)
{
	uint32_t v;

	asm volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t mmio_read32(uintptr_t addr)
{
	return *(volatile uint32_t *)addr;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
	*(volatile uint32_t *)addr = v;
}

static inline void cpu_relax(void)
{
	asm volatile("pause" ::: "memory");
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
