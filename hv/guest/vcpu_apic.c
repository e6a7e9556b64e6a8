/* SPDX-License-Identifier: MIT */
/*
 * vcpu_apic.c - a vCPU's x2APIC (docs/vmx.md, "Direct interrupts"):
 * the core's own APIC, with the MSR bitmap letting through what touches
 * only this core and the exits below judging the rest (vmx/apic_direct.c).
 *
 * On an xAPIC host (Nehalem) the guest still sees x2APIC, but no MSR can
 * pass: every access exits and is carried out here on the core's xAPIC
 * registers, so interrupts and HLT still stay in the guest, and EOI and
 * timer writes cost an exit each.
 */
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/safe_insn.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "guest/guest.h"
#include "guest/vcpu.h"
#include "guest/guest_log.h"
#include "vmx/cpuid_filter.h"

/* The xAPIC offset of an x2APIC MSR (SDM Vol. 3A §11.12.1.2). */
static uint32_t vcpu_apic_reg(uint32_t msr)
{
	return (msr - X2APIC_MSR_FIRST) << 4;
}

void vcpu_apic_reset(struct vcpu *v)
{
	for (unsigned int i = 0; i < APIC_DIRECT_SHADOWS; i++)
		v->lvt_shadow[i] = APIC_DIRECT_LVT_MASKED;
	v->timer_initial = 0;
	/* Measured here, before the guest owns the core's timer. */
	if (!lapic_is_x2apic())
		(void)lapic_timer_khz();
}

/*
 * The guest counts its timer in the crystal clock CPUID leaf 15H
 * advertises; the core's timer counts at its own rate.
 */
static uint64_t vcpu_apic_guest_timer_khz(void)
{
	return cpuid_filter_crystal_hz(tsc_hz()) / 1000 ?: 1;
}

/* A guest timer count in the core's ticks, saturated at 32 bits; never 0 for non-zero. */
static uint32_t vcpu_apic_to_core_ticks(uint32_t count)
{
	uint64_t ticks = (uint64_t)count * lapic_timer_khz() / vcpu_apic_guest_timer_khz();

	if (ticks > 0xffffffffull)
		return 0xffffffffu;
	return count && !ticks ? 1 : (uint32_t)ticks;
}

/* An x2APIC register read from the core's xAPIC. */
static uint64_t vcpu_apic_xapic_read(const struct vcpu *v, uint32_t msr)
{
	uint64_t ticks;

	switch (msr) {
	case X2APIC_ID:
		return v->apic_id;
	case X2APIC_LDR:
		/* §11.12.10.2: cluster ID ID[19:4] in bits 31:16, one bit for ID[3:0]. */
		return (v->apic_id >> 4) << 16 | 1u << (v->apic_id & 0xf);
	case X2APIC_ICR:
		return (uint64_t)(lapic_reg_read(vcpu_apic_reg(X2APIC_ICR) + 0x10) >> 24) << 32 |
		       lapic_reg_read(vcpu_apic_reg(X2APIC_ICR));
	case X2APIC_TIMER_ICR:
		return v->timer_initial;
	case X2APIC_TIMER_CCR:
		ticks = (uint64_t)lapic_reg_read(vcpu_apic_reg(msr)) * vcpu_apic_guest_timer_khz() /
			lapic_timer_khz();
		return ticks < v->timer_initial ? ticks : v->timer_initial;
	default:
		return lapic_reg_read(vcpu_apic_reg(msr));
	}
}

/* A write apic_direct_access() allowed, on the core's xAPIC. */
static void vcpu_apic_xapic_write(struct vcpu *v, uint32_t msr, uint32_t value)
{
	switch (msr) {
	case X2APIC_EOI:
		lapic_eoi();
		return;
	case X2APIC_SELF_IPI:
		lapic_send_ipi(percpu[v->cpu].apic_id, (uint8_t)value);
		return;
	case X2APIC_LVT_TIMER:
		lapic_reg_write(vcpu_apic_reg(msr), apic_direct_timer_lvt(value, false));
		return;
	case X2APIC_TIMER_ICR:
		v->timer_initial = value;
		lapic_reg_write(vcpu_apic_reg(msr), vcpu_apic_to_core_ticks(value));
		return;
	default:
		lapic_reg_write(vcpu_apic_reg(msr), value);	/* TPR, ESR, divide */
		return;
	}
}

/*
 * An IPI the guest asked for: sent if it stays inside the guest, else
 * counted and the first one reported. A fixed interrupt goes to each
 * target's core as its own vector. INIT is taken and dropped: a vCPU that
 * was not started waits for its SIPI anyway, and one that runs cannot be
 * reset under its guest. A SIPI starts the target (guest_start_vcpu()).
 */
static void vcpu_apic_ipi(struct vcpu *v, uint64_t icr)
{
	struct guest *g = v->guest;
	uint32_t ids[GUEST_MAX_VCPUS];
	struct apic_direct_ipi ipi;
	const char *refused;

	for (unsigned int i = 0; i < g->vcpu_count; i++)
		ids[i] = g->vcpu[i].apic_id;
	ipi = apic_direct_ipi(icr, ids, g->vcpu_count, v->index);
	refused = ipi.refused;
	if (!refused && ipi.kind == APIC_DIRECT_IPI_STARTUP)
		refused = guest_start_vcpu(&g->vcpu[__builtin_ctz(ipi.targets)], ipi.vector);
	if (refused) {
		if (!v->ipis_refused++)
			guest_log(g, "IPI %#lx refused: %s\n", icr, refused);
		return;
	}
	if (ipi.kind != APIC_DIRECT_IPI_FIXED)
		return;
	for (unsigned int i = 0; i < g->vcpu_count; i++)
		if (ipi.targets & (1u << i))
			vcpu_send_interrupt(&g->vcpu[i], ipi.vector);
}

bool vcpu_apic_msr(struct vcpu *v, uint32_t msr, bool write, uint64_t *value)
{
	unsigned int shadow = 0;

	switch (apic_direct_access(msr, write, *value, &shadow)) {
	case APIC_DIRECT_SHADOW:
		if (write)
			v->lvt_shadow[shadow] = apic_direct_lvt(*value);
		else
			*value = v->lvt_shadow[shadow];
		return true;
	case APIC_DIRECT_SVR:
		lapic_reg_write(vcpu_apic_reg(X2APIC_SVR), apic_direct_svr(*value));
		return true;
	case APIC_DIRECT_ICR:
		vcpu_apic_ipi(v, *value);
		return true;
	case APIC_DIRECT_PASS:
		*value = lapic_is_x2apic() ? rdmsr(msr) : vcpu_apic_xapic_read(v, msr);
		return true;
	case APIC_DIRECT_WRITE:
		if (!lapic_is_x2apic()) {
			vcpu_apic_xapic_write(v, msr, (uint32_t)*value);
			return true;
		}
		/*
		 * An x2APIC host intercepts only these two (vcpu_setup_bitmaps());
		 * the core faults where the guest's own WRMSR would have.
		 */
		if (msr == X2APIC_SELF_IPI)
			return safe_wrmsr(msr, *value);
		if (msr == X2APIC_LVT_TIMER)
			return safe_wrmsr(msr, apic_direct_timer_lvt(*value, true));
		return false;
	case APIC_DIRECT_REFUSE:
		/* §11.5.3: an illegal vector is not delivered; nor is one the host's IDT owns. */
		if (!v->vectors_refused++)
			guest_log(v->guest, "vCPU %u: vector %#lx in MSR %#x refused\n", v->index,
				  *value & 0xff, msr);
		return true;
	default:
		return false;
	}
}
