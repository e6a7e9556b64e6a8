/* SPDX-License-Identifier: MIT */
/*
 * vcpu_apic.c - a direct vCPU's x2APIC (docs/vmx.md, "Direct interrupts"):
 * the core's own APIC, with the MSR bitmap letting through what touches
 * only this core and the exits below judging the rest (vmx/apic_direct.c).
 */
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/x86.h"
#include "guest/guest.h"
#include "guest/guest_log.h"

void vcpu_apic_reset(struct vcpu *v)
{
	for (unsigned int i = 0; i < APIC_DIRECT_SHADOWS; i++)
		v->lvt_shadow[i] = APIC_DIRECT_LVT_MASKED;
}

/* An IPI the guest asked for: sent if it stays inside the guest, else counted. */
static void vcpu_apic_ipi(struct vcpu *v, uint64_t icr)
{
	struct guest *g = v->guest;
	uint32_t ids[GUEST_MAX_VCPUS];
	struct apic_direct_ipi ipi;

	for (unsigned int i = 0; i < g->vcpu_count; i++)
		ids[i] = g->vcpu[i].apic_id;
	ipi = apic_direct_ipi(icr, ids, g->vcpu_count, v->index);
	if (ipi.refused) {
		if (!v->ipis_refused++)
			guest_log(g, "IPI %#lx refused: %s\n", icr, ipi.refused);
		return;
	}
	lapic_send_ipi(percpu[g->vcpu[ipi.target].cpu].apic_id, ipi.vector);
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
		wrmsr(X2APIC_SVR, apic_direct_svr(*value));
		return true;
	case APIC_DIRECT_ICR:
		vcpu_apic_ipi(v, *value);
		return true;
	case APIC_DIRECT_PASS:
		*value = rdmsr(msr);
		return true;
	default:
		return false;
	}
}
