// SPDX-License-Identifier: MIT
/*
 * exit_rules.c - the VM-exit handlers' decisions on guest-chosen values.
 *
 * Nothing here touches the processor: the callers pass the CPUID the guest
 * sees, the VMX fixed-bit MSRs and the guest state the VMCS holds, and get a
 * verdict back. What the real processor would refuse is refused with the
 * fault it would raise; what it would accept but VMX here cannot run stops
 * the guest; nothing a guest passes reaches an instruction in VMX root
 * operation before it is judged here.
 */
#include <stdbool.h>
#include <stdint.h>

#include "config/guest_layout.h"
#include "vmx/apic_direct.h"
#include "vmx/exit_rules.h"

/* SDM Vol. 4, the MSRs a guest reaches through an exit. */
#define MSR_IA32_TSC		0x010
#define MSR_IA32_PLATFORM_ID	0x017
#define MSR_IA32_APIC_BASE	0x01b
#define MSR_IA32_FEATURE_CONTROL 0x03a
#define MSR_IA32_TSC_ADJUST	0x03b
#define MSR_IA32_BIOS_SIGN_ID	0x08b	/* microcode revision */
#define MSR_IA32_MISC_ENABLE	0x1a0

/* IA32_APIC_BASE (SDM Vol. 3A §11.4.4): BSP flag, x2APIC enable, global enable. */
#define APIC_BASE_BSP		(1ull << 8)
#define APIC_BASE_EXTD		(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_ENABLE	(1ull << 11)
#define MISC_ENABLE_FAST_STRINGS (1ull << 0)
#define FEATURE_CONTROL_LOCKED	1ull	/* lock bit set, VMX off */

/* CPUID feature bits behind CR4 bits (SDM Vol. 2A, CPUID, tables 3-8, 3-10, 3-11). */
#define CPUID1_EDX_VME		(1u << 1)
#define CPUID1_EDX_DE		(1u << 2)
#define CPUID1_EDX_PSE		(1u << 3)
#define CPUID1_EDX_TSC		(1u << 4)
#define CPUID1_EDX_PAE		(1u << 6)
#define CPUID1_EDX_PGE		(1u << 13)
#define CPUID1_EDX_FXSR		(1u << 24)
#define CPUID1_EDX_SSE		(1u << 25)
#define CPUID1_ECX_PCID		(1u << 17)
#define CPUID1_ECX_XSAVE	(1u << 26)
#define CPUID7_EBX_FSGSBASE	(1u << 0)
#define CPUID7_EBX_SMEP		(1u << 7)
#define CPUID7_EBX_SMAP		(1u << 20)
#define CPUID7_ECX_UMIP		(1u << 2)
#define CPUID7_ECX_PKU		(1u << 3)

/* CR3 bits 11:0 must be zero when CR4.PCIDE is set (MOV to CR4, #GP conditions). */
#define CR3_PCID_MASK		0xfffull

/* I/O exit qualification (SDM Vol. 3C table 28-5). */
#define IO_SIZE_FIELD(q)	((q) & 7)
#define IO_IN			(1u << 3)
#define IO_STRING		(1u << 4)
#define IO_PORT(q)		((uint16_t)((q) >> 16))

/* Hardware-reduced sleep control register (ACPI 6.x §4.8.3.7): SLP_EN, SLP_TYP. */
#define SLEEP_ENABLE		(1u << 5)
#define SLEEP_TYPE_SHIFT	2
#define SLEEP_TYPE_MASK		7u

/**
 * exit_rules_xcr0_mask() - the XCR0 bits a guest may set
 * @guest_leaf_d: CPUID.(EAX=0DH,ECX=0) as the guest sees it
 * @host_leaf_d: CPUID.(EAX=0DH,ECX=0) on the host
 *
 * XCR0 bits the guest's CPUID does not list are refused even where the host
 * has them, and bits the host lacks even if the guest's CPUID were to show
 * them: XSETBV runs on the host.
 *
 * Return: the bits XSETBV may set, EDX:EAX of both leaves intersected.
 */
uint64_t exit_rules_xcr0_mask(const struct cpuid_filter_regs *guest_leaf_d,
			      const struct cpuid_filter_regs *host_leaf_d)
{
	uint64_t guest = ((uint64_t)guest_leaf_d->edx << 32) | guest_leaf_d->eax;
	uint64_t host = ((uint64_t)host_leaf_d->edx << 32) | host_leaf_d->eax;

	return guest & host;
}

/**
 * exit_rules_xsetbv() - may the guest's XSETBV run
 * @xcr: ECX, the extended control register
 * @value: EDX:EAX
 * @guest_mask: exit_rules_xcr0_mask()
 *
 * The #GP conditions of XSETBV (SDM Vol. 2C, XSETBV) and the XCR0 rules of
 * SDM Vol. 1 §13.3: only XCR0 exists; x87 is always on; AVX needs SSE; the
 * two MPX components go together; the three AVX-512 components go together
 * and need AVX; the two AMX components go together; no bit the guest's CPUID
 * does not list.
 *
 * Return: true when XSETBV with @value cannot fault on the host.
 */
bool exit_rules_xsetbv(uint32_t xcr, uint64_t value, uint64_t guest_mask)
{
	uint64_t avx512 = value & XCR0_AVX512;

	if (xcr != 0 || !(value & XCR0_X87) || (value & ~guest_mask))
		return false;
	if ((value & XCR0_AVX) && !(value & XCR0_SSE))
		return false;
	if ((value & XCR0_MPX) && (value & XCR0_MPX) != XCR0_MPX)
		return false;
	if (avx512 && (avx512 != XCR0_AVX512 || !(value & XCR0_AVX)))
		return false;
	if ((value & XCR0_AMX) && (value & XCR0_AMX) != XCR0_AMX)
		return false;
	return true;
}

/**
 * exit_rules_cr4_allowed() - the CR4 bits this guest may set
 * @guest_leaf1: CPUID leaf 1 as the guest sees it
 * @guest_leaf7: CPUID leaf 7 subleaf 0 as the guest sees it
 *
 * A CR4 bit is allowed when its feature is in the guest's CPUID (SDM Vol. 3A
 * §2.5 and §2.6, "CPUID dependencies"). VMXE, SMXE, LA57, MCE, CET and the
 * reserved bits never are.
 *
 * Return: a subset of EXIT_CR4_GUEST_BITS.
 */
uint64_t exit_rules_cr4_allowed(const struct cpuid_filter_regs *guest_leaf1,
				const struct cpuid_filter_regs *guest_leaf7)
{
	static const struct {
		uint64_t cr4;
		uint8_t reg;	/* 0: leaf 1 EDX, 1: leaf 1 ECX, 2: leaf 7 EBX, 3: leaf 7 ECX */
		uint32_t bit;
	} needs[] = {
		{ EXIT_CR4_VME, 0, CPUID1_EDX_VME },
		{ EXIT_CR4_PVI, 0, CPUID1_EDX_VME },
		{ EXIT_CR4_TSD, 0, CPUID1_EDX_TSC },
		{ EXIT_CR4_DE, 0, CPUID1_EDX_DE },
		{ EXIT_CR4_PSE, 0, CPUID1_EDX_PSE },
		{ EXIT_CR4_PAE, 0, CPUID1_EDX_PAE },
		{ EXIT_CR4_PGE, 0, CPUID1_EDX_PGE },
		{ EXIT_CR4_OSFXSR, 0, CPUID1_EDX_FXSR },
		{ EXIT_CR4_OSXMMEXCPT, 0, CPUID1_EDX_SSE },
		{ EXIT_CR4_PCIDE, 1, CPUID1_ECX_PCID },
		{ EXIT_CR4_OSXSAVE, 1, CPUID1_ECX_XSAVE },
		{ EXIT_CR4_FSGSBASE, 2, CPUID7_EBX_FSGSBASE },
		{ EXIT_CR4_SMEP, 2, CPUID7_EBX_SMEP },
		{ EXIT_CR4_SMAP, 2, CPUID7_EBX_SMAP },
		{ EXIT_CR4_UMIP, 3, CPUID7_ECX_UMIP },
		{ EXIT_CR4_PKE, 3, CPUID7_ECX_PKU },
	};
	const uint32_t regs[4] = { guest_leaf1->edx, guest_leaf1->ecx,
				   guest_leaf7->ebx, guest_leaf7->ecx };
	uint64_t allowed = EXIT_CR4_PCE;	/* RDPMC itself exits and faults */

	for (unsigned int i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (regs[needs[i].reg] & needs[i].bit)
			allowed |= needs[i].cr4;
	return allowed;
}

/**
 * exit_rules_cr4_owned() - the CR4 guest/host mask
 * @fixed0: IA32_VMX_CR4_FIXED0
 *
 * Writes that change an owned bit exit (SDM Vol. 3C §25.6.6): the bits VMX
 * needs set, and every bit outside EXIT_CR4_GUEST_BITS, so that the guest
 * cannot turn on VMXE, SMXE, LA57, MCE, CET or a reserved bit behind the
 * hypervisor's back.
 *
 * Return: the value for the VMCS CR4 guest/host mask.
 */
uint64_t exit_rules_cr4_owned(uint64_t fixed0)
{
	return fixed0 | ~EXIT_CR4_GUEST_BITS;
}

/**
 * exit_rules_cr0_write() - judge MOV to CR0
 * @value: the value written
 * @ctx: the guest's state and IA32_VMX_CR0_FIXED0/1
 *
 * #GP(0) as MOV to CR0 raises it (SDM Vol. 2B, MOV to/from control
 * registers): a bit in 63:32, PG without PE, NW without CD, PG cleared in
 * 64-bit mode, or a bit the processor cannot hold (FIXED1). Clearing PE or
 * PG anywhere else is legal but VMX without unrestricted guest cannot run
 * it, and the hypervisor keeps both set: unsupported. NE is forced on
 * behind the read shadow (Vol. 3C §24.8).
 *
 * Return: the verdict and, when it is EXIT_CR_OK, the CR0 to load.
 */
struct exit_cr_result exit_rules_cr0_write(uint64_t value, const struct exit_cr_context *ctx)
{
	struct exit_cr_result r = { EXIT_CR_FAULT, 0 };
	uint64_t required = ctx->fixed0 & ~EXIT_CR0_NE;

	if ((value >> 32) || (value & ~ctx->fixed1 & 0xffffffffull))
		return r;
	if ((value & EXIT_CR0_PG) && !(value & EXIT_CR0_PE))
		return r;
	if ((value & EXIT_CR0_NW) && !(value & EXIT_CR0_CD))
		return r;
	if (ctx->code64 && !(value & EXIT_CR0_PG))
		return r;
	if ((value & required) != required) {
		r.verdict = EXIT_CR_UNSUPPORTED;
		return r;
	}
	r.verdict = EXIT_CR_OK;
	r.hw = (value | ctx->fixed0) & ctx->fixed1;
	return r;
}

/**
 * exit_rules_cr4_write() - judge MOV to CR4
 * @value: the value written
 * @allowed: exit_rules_cr4_allowed() for the guest
 * @ctx: the guest's state and IA32_VMX_CR4_FIXED0/1
 *
 * #GP(0) as MOV to CR4 raises it (SDM Vol. 2B): a bit outside @allowed
 * (reserved, or a feature the guest's CPUID hides, VMXE included), a bit the
 * processor cannot hold (FIXED1), PAE cleared or LA57 changed in IA-32e
 * mode, PCIDE set outside IA-32e mode or with CR3[11:0] not zero.
 *
 * Return: the verdict and, when it is EXIT_CR_OK, the CR4 to load.
 */
struct exit_cr_result exit_rules_cr4_write(uint64_t value, uint64_t allowed,
					   const struct exit_cr_context *ctx)
{
	struct exit_cr_result r = { EXIT_CR_FAULT, 0 };
	bool pcide_on = (value & EXIT_CR4_PCIDE) && !(ctx->cr4 & EXIT_CR4_PCIDE);

	if ((value & ~allowed) || (value & ~ctx->fixed1))
		return r;
	if (ctx->long_mode && (!(value & EXIT_CR4_PAE) ||
			       ((value ^ ctx->cr4) & EXIT_CR4_LA57)))
		return r;
	if (pcide_on && (!ctx->long_mode || (ctx->cr3 & CR3_PCID_MASK)))
		return r;
	r.verdict = EXIT_CR_OK;
	r.hw = (value | ctx->fixed0) & ctx->fixed1;
	return r;
}

/**
 * exit_rules_apic_base() - IA32_APIC_BASE as the guest reads it
 * @bsp: the vCPU is the guest's bootstrap processor
 *
 * The vCPU owns its core's APIC, seen as x2APIC (docs/vmx.md, "Direct
 * interrupts").
 *
 * Return: the APIC's address, enabled, in x2APIC mode, as firmware that
 * enabled x2APIC leaves it.
 */
uint64_t exit_rules_apic_base(bool bsp)
{
	return GUEST_LAPIC_GPA | APIC_BASE_ENABLE | APIC_BASE_EXTD | (bsp ? APIC_BASE_BSP : 0);
}

/**
 * exit_rules_rdmsr() - what RDMSR of an intercepted MSR returns
 * @msr: ECX
 * @bsp: the vCPU is the guest's bootstrap processor
 *
 * The MSRs a stock kernel reads without a fault handler; any other MSR is
 * absent, and RDMSR of an absent MSR raises #GP. The x2APIC registers that
 * exit are the vCPU's own APIC's (docs/vmx.md, "Direct interrupts"). The
 * guest's TSC is the core's, so IA32_TSC_ADJUST reads 0.
 *
 * Return: the action, and the value for EXIT_MSR_VALUE.
 */
struct exit_msr_result exit_rules_rdmsr(uint32_t msr, bool bsp)
{
	struct exit_msr_result r = { EXIT_MSR_VALUE, 0 };

	if (msr >= X2APIC_MSR_FIRST && msr <= X2APIC_MSR_LAST) {
		r.action = EXIT_MSR_X2APIC;
		return r;
	}
	switch (msr) {
	case MSR_IA32_TSC:
		r.action = EXIT_MSR_TSC;
		break;
	case MSR_IA32_APIC_BASE:
		r.value = exit_rules_apic_base(bsp);
		break;
	case MSR_IA32_MISC_ENABLE:
		r.value = MISC_ENABLE_FAST_STRINGS;
		break;
	case MSR_IA32_FEATURE_CONTROL:
		r.value = FEATURE_CONTROL_LOCKED;
		break;
	case MSR_IA32_TSC_ADJUST:
	case MSR_IA32_BIOS_SIGN_ID:
	case MSR_IA32_PLATFORM_ID:
		break;
	default:
		r.action = EXIT_MSR_FAULT;
		break;
	}
	return r;
}

/**
 * exit_rules_wrmsr() - what WRMSR of an intercepted MSR does
 * @msr: ECX
 * @value: EDX:EAX
 *
 * The x2APIC registers that exit are the vCPU's own APIC's (docs/vmx.md,
 * "Direct interrupts"). IA32_TSC and IA32_TSC_ADJUST would move the TSC
 * (SDM Vol. 3B §18.17.3); the guest's TSC stays the core's, and such
 * writes are ignored. IA32_APIC_BASE keeps the APIC enabled, in x2APIC
 * mode, at its address: only the value it reads (the BSP flag either way)
 * is accepted. The microcode revision (Linux clears it before reading it)
 * and IA32_MISC_ENABLE take any value and keep theirs.
 * IA32_FEATURE_CONTROL is locked, and every other MSR is absent: #GP.
 *
 * Return: the action.
 */
enum exit_msr_action exit_rules_wrmsr(uint32_t msr, uint64_t value)
{
	if (msr >= X2APIC_MSR_FIRST && msr <= X2APIC_MSR_LAST)
		return EXIT_MSR_X2APIC;
	switch (msr) {
	case MSR_IA32_APIC_BASE:
		return (value & ~APIC_BASE_BSP) == exit_rules_apic_base(false) ?
		       EXIT_MSR_IGNORE : EXIT_MSR_FAULT;
	case MSR_IA32_TSC:
	case MSR_IA32_TSC_ADJUST:
	case MSR_IA32_BIOS_SIGN_ID:
	case MSR_IA32_MISC_ENABLE:
		return EXIT_MSR_IGNORE;
	default:
		return EXIT_MSR_FAULT;
	}
}

/**
 * exit_rules_io_decode() - the fields of an I/O exit qualification
 * @qualification: the exit qualification of an I/O instruction exit
 *
 * Return: port, size, direction and string flag; valid is false for the
 * size encoding 2, which the SDM leaves undefined.
 */
struct exit_io_access exit_rules_io_decode(uint64_t qualification)
{
	static const unsigned int sizes[8] = { 1, 2, 0, 4, 0, 0, 0, 0 };
	struct exit_io_access a = {
		.port = IO_PORT(qualification),
		.size = sizes[IO_SIZE_FIELD(qualification)],
		.in = qualification & IO_IN,
		.string = qualification & IO_STRING,
	};

	a.valid = a.size != 0;
	return a;
}

/**
 * exit_rules_io_device() - the emulated device an I/O access reaches
 * @map: the guest platform's port map
 * @port: the first port
 * @size: the access width in bytes
 *
 * The access belongs to the range its first port is in, if that range
 * takes its width and, where the range says so, the access ends within it.
 *
 * Return: the range's device, or EXIT_IO_NONE for an unclaimed access.
 */
unsigned int exit_rules_io_device(const struct exit_io_map *map, uint16_t port,
				  unsigned int size)
{
	for (unsigned int i = 0; i < map->count; i++) {
		const struct exit_io_range *r = &map->ranges[i];
		uint32_t end = (uint32_t)r->first + r->count;

		if (port < r->first || port >= end)
			continue;
		if (size >= 8 || !(r->sizes & (1u << size)))
			return EXIT_IO_NONE;
		if (r->contained && (uint32_t)port + size > end)
			return EXIT_IO_NONE;
		return r->device;
	}
	return EXIT_IO_NONE;
}

/**
 * exit_rules_sleep_is_poweroff() - does a sleep-control write power off
 * @value: the value written to the sleep control port
 *
 * Return: true when SLP_EN is set with the S5 sleep type of the DSDT.
 */
bool exit_rules_sleep_is_poweroff(uint32_t value)
{
	return (value & SLEEP_ENABLE) &&
	       ((value >> SLEEP_TYPE_SHIFT) & SLEEP_TYPE_MASK) == GUEST_SLP_TYP_S5;
}
