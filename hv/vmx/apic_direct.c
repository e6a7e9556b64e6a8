/* SPDX-License-Identifier: MIT */
/*
 * apic_direct.c - the x2APIC register policy of a guest that owns its
 * core's local APIC (docs/vmx.md, "Direct interrupts").
 */
#include "vmx/apic_direct.h"

/* ICR fields, §11.6.1 Figure 11-12 and §11.12.9. */
#define ICR_VECTOR(icr)		((uint8_t)(icr))
#define ICR_DELIVERY(icr)	(((icr) >> 8) & 7)
#define ICR_LOGICAL		(1ull << 11)
#define ICR_SHORTHAND(icr)	(((icr) >> 18) & 3)
#define ICR_DEST(icr)		((uint32_t)((icr) >> 32))
#define ICR_RESERVED		(0xfff32000ull)	/* bits 12-13, 16-17, 20-31 */
#define ICR_BROADCAST		0xffffffffu	/* §11.12.9: every x2APIC, either mode */
#define DELIVERY_FIXED		0
#define DELIVERY_INIT		5
#define DELIVERY_STARTUP	6
#define SHORTHAND_NONE		0
#define SHORTHAND_SELF		1
#define SHORTHAND_ALL		2
#define SHORTHAND_ALL_BUT_SELF	3

#define LVT_WRITABLE		0x1a7ffu	/* bits 0-10, 13, 15, 16 */
#define LVT_TIMER_WRITABLE	0x300ffu	/* vector, mask, periodic */
#define LVT_TIMER_DEADLINE	0x40000u	/* TSC-deadline mode, §11.5.4.1 */
#define LVT_TIMER_MODE(v)	(((v) >> 17) & 3)
#define LVT_TIMER_MODE_RESERVED	3
#define LVT_MASKED		0x10000u
#define SVR_WRITABLE		0x11ffu		/* vector, software enable, bit 12 */

/* The shadowed LVT entries, in shadow-index order. */
static const uint32_t shadowed[APIC_DIRECT_SHADOWS] = {
	X2APIC_LVT_CMCI, X2APIC_LVT_THERMAL, X2APIC_LVT_PMC,
	X2APIC_LVT_LINT0, X2APIC_LVT_LINT1, X2APIC_LVT_ERROR,
};

static int apic_direct_shadow_index(uint32_t msr)
{
	for (unsigned int i = 0; i < APIC_DIRECT_SHADOWS; i++)
		if (shadowed[i] == msr)
			return (int)i;
	return -1;
}

/* Registers that exist in x2APIC mode (Table 11-6); ICR is one 64-bit MSR. */
static bool apic_direct_exists(uint32_t msr)
{
	switch (msr) {
	case X2APIC_ID: case X2APIC_VERSION: case X2APIC_TPR: case X2APIC_PPR:
	case X2APIC_EOI: case X2APIC_LDR: case X2APIC_SVR: case X2APIC_ESR:
	case X2APIC_LVT_CMCI: case X2APIC_ICR: case X2APIC_LVT_TIMER:
	case X2APIC_LVT_THERMAL: case X2APIC_LVT_PMC: case X2APIC_LVT_LINT0:
	case X2APIC_LVT_LINT1: case X2APIC_LVT_ERROR: case X2APIC_TIMER_ICR:
	case X2APIC_TIMER_CCR: case X2APIC_TIMER_DCR: case X2APIC_SELF_IPI:
		return true;
	default:
		return msr >= X2APIC_ISR0 && msr <= X2APIC_IRR7;
	}
}

bool apic_direct_passes(uint32_t msr, bool write)
{
	if (msr == MSR_TSC_DEADLINE)
		return true;
	if (!apic_direct_exists(msr))
		return false;
	if (!write)
		return apic_direct_shadow_index(msr) < 0 && msr != X2APIC_SELF_IPI &&
		       msr != X2APIC_EOI;
	/* SELF_IPI and the LVT timer carry a vector, which the exit checks. */
	switch (msr) {
	case X2APIC_TPR: case X2APIC_EOI: case X2APIC_ESR: case X2APIC_TIMER_ICR:
	case X2APIC_TIMER_DCR:
		return true;
	default:
		return false;
	}
}

enum apic_direct_action apic_direct_access(uint32_t msr, bool write, uint64_t value,
					   unsigned int *shadow)
{
	int index = apic_direct_shadow_index(msr);

	/* EOI and SELF_IPI are write-only (Table 11-6). */
	if (!apic_direct_exists(msr) || (!write && (msr == X2APIC_EOI || msr == X2APIC_SELF_IPI)))
		return APIC_DIRECT_FAULT;
	if (index >= 0) {
		if (write && (value >> 32))
			return APIC_DIRECT_FAULT;
		*shadow = (unsigned int)index;
		return APIC_DIRECT_SHADOW;
	}
	if (!write)
		return APIC_DIRECT_PASS;
	switch (msr) {
	case X2APIC_SVR:
		return value >> 32 ? APIC_DIRECT_FAULT : APIC_DIRECT_SVR;
	case X2APIC_ICR:
		return value & ICR_RESERVED ? APIC_DIRECT_FAULT : APIC_DIRECT_ICR;
	case X2APIC_EOI:
	case X2APIC_ESR:
		return value ? APIC_DIRECT_FAULT : APIC_DIRECT_WRITE;
	case X2APIC_TPR:
		return value > 0xff ? APIC_DIRECT_FAULT : APIC_DIRECT_WRITE;
	case X2APIC_SELF_IPI:
		if (value > 0xff)
			return APIC_DIRECT_FAULT;
		return value < APIC_DIRECT_VECTOR_MIN ? APIC_DIRECT_REFUSE : APIC_DIRECT_WRITE;
	case X2APIC_LVT_TIMER:
		if (value >> 32 || LVT_TIMER_MODE(value) == LVT_TIMER_MODE_RESERVED)
			return APIC_DIRECT_FAULT;
		/* A masked entry delivers nothing, whatever its vector (Linux writes 0x10000). */
		if (!(value & LVT_MASKED) && (uint8_t)value < APIC_DIRECT_VECTOR_MIN)
			return APIC_DIRECT_REFUSE;
		return APIC_DIRECT_WRITE;
	case X2APIC_TIMER_ICR:
	case X2APIC_TIMER_DCR:
		return value >> 32 ? APIC_DIRECT_FAULT : APIC_DIRECT_WRITE;
	default:
		return APIC_DIRECT_FAULT;	/* read-only */
	}
}

uint32_t apic_direct_timer_lvt(uint64_t value, bool deadline)
{
	return (uint32_t)value & (LVT_TIMER_WRITABLE | (deadline ? LVT_TIMER_DEADLINE : 0));
}

uint32_t apic_direct_lvt(uint64_t value)
{
	return (uint32_t)value & LVT_WRITABLE;
}

uint32_t apic_direct_svr(uint64_t value)
{
	return (uint32_t)value & SVR_WRITABLE;
}

/* §11.12.10.2: an x2APIC's logical ID, derived from its x2APIC ID. */
static uint32_t apic_direct_ldr(uint32_t id)
{
	return (id >> 4) << 16 | 1u << (id & 0xf);
}

/* The vCPUs a destination field names, in physical or logical mode. */
static uint32_t apic_direct_match(uint64_t icr, const uint32_t *ids, unsigned int count)
{
	uint32_t dest = ICR_DEST(icr), targets = 0;

	for (unsigned int i = 0; i < count; i++) {
		if (dest == ICR_BROADCAST) {
			targets |= 1u << i;
		} else if (icr & ICR_LOGICAL) {
			uint32_t ldr = apic_direct_ldr(ids[i]);

			/* Same cluster (bits 31:16) and its bit in the 16-bit mask. */
			if ((ldr >> 16) == (dest >> 16) && (ldr & dest & 0xffff))
				targets |= 1u << i;
		} else if (ids[i] == dest) {
			targets |= 1u << i;
		}
	}
	return targets;
}

/* The vCPUs a fixed interrupt goes to (§11.6.1, destination shorthand). */
static uint32_t apic_direct_fixed_targets(uint64_t icr, const uint32_t *ids, unsigned int count,
					  unsigned int self)
{
	uint32_t all = count >= 32 ? ~0u : (1u << count) - 1;

	switch (ICR_SHORTHAND(icr)) {
	case SHORTHAND_SELF:
		return 1u << self;
	case SHORTHAND_ALL:
		return all;
	case SHORTHAND_ALL_BUT_SELF:
		return all & ~(1u << self);
	default:
		return apic_direct_match(icr, ids, count);
	}
}

struct apic_direct_ipi apic_direct_ipi(uint64_t icr, const uint32_t *ids, unsigned int count,
				       unsigned int self)
{
	struct apic_direct_ipi ipi = { .vector = ICR_VECTOR(icr) };
	unsigned int i;

	if (count > 32 || self >= count) {
		ipi.refused = "no such sender";
		return ipi;
	}
	switch (ICR_DELIVERY(icr)) {
	case DELIVERY_FIXED:
		ipi.kind = APIC_DIRECT_IPI_FIXED;
		if (ipi.vector < APIC_DIRECT_VECTOR_MIN) {
			ipi.refused = "vector below 32";
			return ipi;
		}
		ipi.targets = apic_direct_fixed_targets(icr, ids, count, self);
		/* All-but-self in a one-vCPU guest reaches no one, as on hardware. */
		if (!ipi.targets && ICR_SHORTHAND(icr) == SHORTHAND_NONE)
			ipi.refused = "destination outside the guest";
		return ipi;
	case DELIVERY_INIT:
	case DELIVERY_STARTUP:
		ipi.kind = ICR_DELIVERY(icr) == DELIVERY_INIT ? APIC_DIRECT_IPI_INIT :
							      APIC_DIRECT_IPI_STARTUP;
		/* The AP start protocol names one processor (§8.4.4.1): no shorthand, no group. */
		if (ICR_SHORTHAND(icr) != SHORTHAND_NONE || (icr & ICR_LOGICAL)) {
			ipi.refused = "INIT or SIPI not to one processor";
			return ipi;
		}
		for (i = 0; i < count; i++)
			if (ids[i] == ICR_DEST(icr))
				break;
		if (i == count)
			ipi.refused = "destination outside the guest";
		else if (i == self)
			ipi.refused = "INIT or SIPI to itself";
		else
			ipi.targets = 1u << i;
		return ipi;
	default:
		ipi.refused = "not a fixed interrupt, INIT or SIPI";
		return ipi;
	}
}
