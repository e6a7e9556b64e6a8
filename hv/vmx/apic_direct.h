/* SPDX-License-Identifier: MIT */
/*
 * apic_direct.h - a guest that owns its core's local APIC in x2APIC mode
 * (docs/vmx.md, "Direct interrupts"): which x2APIC MSRs it reaches without
 * an exit, and what the hypervisor does with the rest. Pure: the exit
 * handler (hv/guest/vcpu_apic.c) carries the decisions out.
 *
 * Register numbers: SDM Vol. 3A §11.12.1.2, Table 11-6.
 */
#ifndef SIDECORE_VMX_APIC_DIRECT_H
#define SIDECORE_VMX_APIC_DIRECT_H

#include <stdbool.h>
#include <stdint.h>

#define X2APIC_MSR_FIRST	0x800
#define X2APIC_MSR_LAST		0x8ff
#define X2APIC_ID		0x802
#define X2APIC_VERSION		0x803
#define X2APIC_TPR		0x808
#define X2APIC_PPR		0x80a
#define X2APIC_EOI		0x80b
#define X2APIC_LDR		0x80d
#define X2APIC_SVR		0x80f
#define X2APIC_ISR0		0x810	/* ISR 0x810-0x817, TMR 0x818-0x81f, IRR 0x820-0x827 */
#define X2APIC_IRR7		0x827
#define X2APIC_ESR		0x828
#define X2APIC_LVT_CMCI		0x82f
#define X2APIC_ICR		0x830
#define X2APIC_LVT_TIMER	0x832
#define X2APIC_LVT_THERMAL	0x833
#define X2APIC_LVT_PMC		0x834
#define X2APIC_LVT_LINT0	0x835
#define X2APIC_LVT_LINT1	0x836
#define X2APIC_LVT_ERROR	0x837
#define X2APIC_TIMER_ICR	0x838
#define X2APIC_TIMER_CCR	0x839
#define X2APIC_TIMER_DCR	0x83e
#define X2APIC_SELF_IPI		0x83f
#define MSR_TSC_DEADLINE	0x6e0

/* LVT entries the guest sees but the core never gets: CMCI, thermal, PMC, LINT0/1, error. */
#define APIC_DIRECT_SHADOWS	6
#define APIC_DIRECT_LVT_MASKED	0x10000u	/* §11.5.1: the mask bit, the reset value */

/*
 * The lowest vector a guest may send or program. §11.5.2 makes 0-15
 * illegal; 16-31 are legal on hardware but are the architecture's
 * exception vectors, and one that reaches the core after the guest left it
 * lands in the host's exception stubs (docs/vmx.md, "Direct interrupts").
 */
#define APIC_DIRECT_VECTOR_MIN	32

/* What an intercepted access to an x2APIC MSR comes to. */
enum apic_direct_action {
	APIC_DIRECT_FAULT,	/* #GP, as the hardware raises for it */
	APIC_DIRECT_SHADOW,	/* the LVT entry kept in shadow[index] */
	APIC_DIRECT_SVR,	/* write the filtered value to the core's SVR */
	APIC_DIRECT_ICR,	/* an IPI: judge it with apic_direct_ipi() */
	APIC_DIRECT_PASS,	/* the core's register, read as it is */
	APIC_DIRECT_WRITE,	/* written for the guest: what apic_direct_passes() lets
				 * through where the MSR bitmap cannot (xAPIC hosts), and
				 * SELF_IPI and the LVT timer on every host */
	APIC_DIRECT_REFUSE,	/* dropped and counted: a vector below APIC_DIRECT_VECTOR_MIN
				 * in SELF_IPI or an unmasked LVT timer entry */
};

/**
 * apic_direct_passes() - whether the guest reaches an MSR without an exit
 * @msr: the MSR number
 * @write: WRMSR rather than RDMSR
 *
 * Reads pass for every register but the shadowed LVT entries. Writes pass
 * only for registers whose effect stays on the guest's own core and that
 * carry no vector: TPR, EOI, ESR, the timer's initial count and divide, and
 * IA32_TSC_DEADLINE. ICR, SVR, SELF_IPI and every LVT entry exit.
 *
 * Return: true when the MSR bitmap may clear the MSR's bit.
 */
bool apic_direct_passes(uint32_t msr, bool write);

/**
 * apic_direct_access() - what an intercepted x2APIC MSR access does
 * @msr: the MSR number, X2APIC_MSR_FIRST..X2APIC_MSR_LAST
 * @write: WRMSR rather than RDMSR
 * @value: the value written (ignored for a read)
 * @shadow: set to the shadow index for APIC_DIRECT_SHADOW
 *
 * Writes to read-only or absent registers and writes with reserved bits
 * set fault, as in x2APIC mode on hardware (§11.12.1.2): a non-zero EOI or
 * ESR write, TPR or SELF_IPI above 0xff, anything above bit 31, and the
 * reserved timer mode 11b. A SELF_IPI, or an unmasked LVT timer entry,
 * with a vector below APIC_DIRECT_VECTOR_MIN is refused rather than
 * faulted: the hardware raises no #GP for an illegal vector but sets an
 * ESR bit and delivers nothing (§11.5.3).
 *
 * Return: the action.
 */
enum apic_direct_action apic_direct_access(uint32_t msr, bool write, uint64_t value,
					   unsigned int *shadow);

/**
 * apic_direct_lvt() - an LVT entry as the shadow keeps it
 * @value: what the guest wrote
 *
 * Return: the writable fields only (vector, delivery mode, polarity,
 * trigger mode, mask; §11.5.1 Figure 11-8).
 */
uint32_t apic_direct_lvt(uint64_t value);

/**
 * apic_direct_timer_lvt() - the guest's LVT timer write as the core gets it
 * @value: what the guest wrote, allowed by apic_direct_access()
 * @deadline: the core's APIC is in x2APIC mode, where the guest may use
 *            TSC-deadline mode
 *
 * Return: vector, mask and periodic mode (§11.5.4, Figure 11-8), and
 * TSC-deadline mode with @deadline: a core whose APIC is in xAPIC mode
 * here has none.
 */
uint32_t apic_direct_timer_lvt(uint64_t value, bool deadline);

/**
 * apic_direct_svr() - the guest's SVR write as the core gets it
 * @value: what the guest wrote
 *
 * Return: the vector, the software-enable and EOI-broadcast-suppression
 * bits (§11.9 Figure 11-23); focus checking does not exist in x2APIC mode.
 */
uint32_t apic_direct_svr(uint64_t value);

/* What an IPI the guest asked for does. */
enum apic_direct_ipi_kind {
	APIC_DIRECT_IPI_FIXED,		/* the vector, to every vCPU in targets */
	APIC_DIRECT_IPI_INIT,		/* INIT (assert or de-assert) to one vCPU */
	APIC_DIRECT_IPI_STARTUP,	/* SIPI: start one vCPU at vector << 12 */
};

/* An ICR write, judged. */
struct apic_direct_ipi {
	const char *refused;	/* NULL, or why it is not sent */
	enum apic_direct_ipi_kind kind;
	uint8_t vector;
	uint32_t targets;	/* bit i: the vCPU at index i in the guest's APIC IDs */
};

/**
 * apic_direct_ipi() - judges an IPI a guest asked for by writing the ICR
 * @icr: the 64-bit x2APIC ICR value (§11.12.9: destination in bits 63:32)
 * @ids: the x2APIC IDs of the guest's vCPUs
 * @count: how many, at most 32
 * @self: the index of the sender in @ids
 *
 * Fixed-mode interrupts with a vector of APIC_DIRECT_VECTOR_MIN or more go to the vCPUs of the same
 * guest that the destination names: a physical x2APIC ID, a logical
 * cluster and bitmap (§11.12.10.2, the LDR each x2APIC derives from its
 * ID), or a shorthand (self, all including self, all excluding self). A
 * broadcast reaches only the guest's own vCPUs; any other destination
 * that matches none of them is refused. INIT and STARTUP go to exactly one
 * other vCPU, named by its physical ID. NMI, SMI, lowest priority and the
 * reserved modes are refused.
 *
 * Return: the kind, vector and targets, or the reason it is refused.
 */
struct apic_direct_ipi apic_direct_ipi(uint64_t icr, const uint32_t *ids, unsigned int count,
				       unsigned int self);

#endif
