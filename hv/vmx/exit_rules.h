/* SPDX-License-Identifier: MIT */
/*
 * exit_rules.h - what the VM-exit handlers decide, without the VMCS.
 *
 * Every value in these decisions is the guest's: the register it wrote to
 * CR0 or CR4, the XCR0 it passed to XSETBV, the MSR and value of RDMSR and
 * WRMSR, the port and width of IN and OUT. The functions only judge them
 * (an I/O access against the port map the guest platform hands in);
 * hv/guest/vcpu_exit.c reads the VMCS, calls them, and carries out the verdict
 * (emulate, inject #GP, or stop the guest).
 */
#ifndef SIDECORE_VMX_EXIT_RULES_H
#define SIDECORE_VMX_EXIT_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "vmx/cpuid_filter.h"

/* XCR0 state components (SDM Vol. 1 §13.1). */
#define XCR0_X87		(1ull << 0)
#define XCR0_SSE		(1ull << 1)
#define XCR0_AVX		(1ull << 2)
#define XCR0_BNDREGS		(1ull << 3)
#define XCR0_BNDCSR		(1ull << 4)
#define XCR0_OPMASK		(1ull << 5)
#define XCR0_ZMM_HI256		(1ull << 6)
#define XCR0_HI16_ZMM		(1ull << 7)
#define XCR0_PKRU		(1ull << 9)
#define XCR0_TILECFG		(1ull << 17)
#define XCR0_TILEDATA		(1ull << 18)
#define XCR0_MPX		(XCR0_BNDREGS | XCR0_BNDCSR)
#define XCR0_AVX512		(XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)
#define XCR0_AMX		(XCR0_TILECFG | XCR0_TILEDATA)

/* CR0 and CR4 bits (SDM Vol. 3A §2.5). */
#define EXIT_CR0_PE		(1ull << 0)
#define EXIT_CR0_NE		(1ull << 5)
#define EXIT_CR0_NW		(1ull << 29)
#define EXIT_CR0_CD		(1ull << 30)
#define EXIT_CR0_PG		(1ull << 31)
#define EXIT_CR4_VME		(1ull << 0)
#define EXIT_CR4_PVI		(1ull << 1)
#define EXIT_CR4_TSD		(1ull << 2)
#define EXIT_CR4_DE		(1ull << 3)
#define EXIT_CR4_PSE		(1ull << 4)
#define EXIT_CR4_PAE		(1ull << 5)
#define EXIT_CR4_MCE		(1ull << 6)
#define EXIT_CR4_PGE		(1ull << 7)
#define EXIT_CR4_PCE		(1ull << 8)
#define EXIT_CR4_OSFXSR		(1ull << 9)
#define EXIT_CR4_OSXMMEXCPT	(1ull << 10)
#define EXIT_CR4_UMIP		(1ull << 11)
#define EXIT_CR4_LA57		(1ull << 12)
#define EXIT_CR4_VMXE		(1ull << 13)
#define EXIT_CR4_SMXE		(1ull << 14)
#define EXIT_CR4_FSGSBASE	(1ull << 16)
#define EXIT_CR4_PCIDE		(1ull << 17)
#define EXIT_CR4_OSXSAVE	(1ull << 18)
#define EXIT_CR4_SMEP		(1ull << 20)
#define EXIT_CR4_SMAP		(1ull << 21)
#define EXIT_CR4_PKE		(1ull << 22)

/*
 * The CR4 bits a guest may ever own, each when its CPUID shows the feature.
 * MCE is not among them: machine checks are the host's and CPUID hides them.
 */
#define EXIT_CR4_GUEST_BITS	(EXIT_CR4_VME | EXIT_CR4_PVI | EXIT_CR4_TSD | EXIT_CR4_DE | \
				 EXIT_CR4_PSE | EXIT_CR4_PAE | EXIT_CR4_PGE | EXIT_CR4_PCE | \
				 EXIT_CR4_OSFXSR | EXIT_CR4_OSXMMEXCPT | EXIT_CR4_UMIP | \
				 EXIT_CR4_FSGSBASE | EXIT_CR4_PCIDE | EXIT_CR4_OSXSAVE | \
				 EXIT_CR4_SMEP | EXIT_CR4_SMAP | EXIT_CR4_PKE)

/* What a CR write comes to. */
enum exit_cr_verdict {
	EXIT_CR_OK,		/* load @hw into the guest's CR, the value into the shadow */
	EXIT_CR_FAULT,		/* the processor would raise #GP(0) */
	EXIT_CR_UNSUPPORTED,	/* legal, but VMX here cannot run it: stop the guest */
};

struct exit_cr_result {
	enum exit_cr_verdict verdict;
	uint64_t hw;		/* the value the guest's CR really holds (EXIT_CR_OK) */
};

/* The guest's state a CR write is judged against. */
struct exit_cr_context {
	uint64_t cr3;
	uint64_t cr4;		/* as the guest sees it (read shadow applied) */
	bool long_mode;		/* IA32_EFER.LMA */
	bool code64;		/* CS.L: 64-bit mode */
	uint64_t fixed0, fixed1; /* IA32_VMX_CRn_FIXED0/1 of the CR written */
};

/* What RDMSR and WRMSR come to. */
enum exit_msr_action {
	EXIT_MSR_FAULT,		/* inject #GP(0) */
	EXIT_MSR_VALUE,		/* read: the constant in .value */
	EXIT_MSR_IGNORE,	/* write: accepted, no effect */
	EXIT_MSR_TSC,		/* read: the core's TSC, which is the guest's */
	EXIT_MSR_X2APIC,	/* the vCPU's own x2APIC: apic_direct_access() */
};

struct exit_msr_result {
	enum exit_msr_action action;
	uint64_t value;
};

/*
 * The guest platform's I/O-port map, handed to exit_rules_io_device(): one
 * range per emulated device, each with the platform's own number for it.
 */
#define EXIT_IO_NONE		0u	/* unclaimed: reads all ones, writes ignored */
#define EXIT_IO_ANY_SIZE	(1u << 1 | 1u << 2 | 1u << 4)	/* 1, 2 and 4 bytes */

struct exit_io_range {
	uint16_t first;		/* its first port */
	uint16_t count;		/* how many ports */
	uint8_t sizes;		/* the access widths it takes, bit N for N bytes */
	bool contained;		/* an access must end within the range */
	unsigned int device;	/* the platform's number, never EXIT_IO_NONE */
};

struct exit_io_map {
	const struct exit_io_range *ranges;
	unsigned int count;
};

/* An I/O exit qualification, decoded (SDM Vol. 3C §28.2.1, table 28-5). */
struct exit_io_access {
	uint16_t port;
	unsigned int size;	/* 1, 2 or 4 */
	bool in;
	bool string;
	bool valid;		/* false: a size encoding the SDM does not define */
};

uint64_t exit_rules_xcr0_mask(const struct cpuid_filter_regs *guest_leaf_d,
			      const struct cpuid_filter_regs *host_leaf_d);
bool exit_rules_xsetbv(uint32_t xcr, uint64_t value, uint64_t guest_mask);

uint64_t exit_rules_cr4_allowed(const struct cpuid_filter_regs *guest_leaf1,
				const struct cpuid_filter_regs *guest_leaf7);
uint64_t exit_rules_cr4_owned(uint64_t fixed0);
struct exit_cr_result exit_rules_cr0_write(uint64_t value, const struct exit_cr_context *ctx);
struct exit_cr_result exit_rules_cr4_write(uint64_t value, uint64_t allowed,
					   const struct exit_cr_context *ctx);

uint64_t exit_rules_apic_base(bool bsp);
struct exit_msr_result exit_rules_rdmsr(uint32_t msr, bool bsp);
enum exit_msr_action exit_rules_wrmsr(uint32_t msr, uint64_t value);

struct exit_io_access exit_rules_io_decode(uint64_t qualification);
unsigned int exit_rules_io_device(const struct exit_io_map *map, uint16_t port,
				  unsigned int size);
bool exit_rules_sleep_is_poweroff(uint32_t value);

#endif
