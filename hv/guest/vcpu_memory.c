/* SPDX-License-Identifier: MIT */
/*
 * vcpu_memory.c - guest memory seen from the hypervisor: guest-physical
 * addresses checked against the guest's RAM, and guest-virtual addresses
 * translated through the guest's page tables (hv/vmx/gpt_walk.c) to fetch
 * the instruction an MMIO exit must emulate.
 */
#include "guest/guest.h"
#include "guest/vcpu.h"
#include "vmx/gpt_walk.h"
#include "vmx/vmcs.h"

void *guest_gpa_to_host(const struct guest *g, uint64_t gpa, uint64_t len)
{
	if (gpa >= g->ram_size || len > g->ram_size - gpa)
		return NULL;
	return (void *)(uintptr_t)(g->ram_hpa + gpa);
}

static const void *vcpu_map_guest(void *ctx, uint64_t gpa, uint64_t len)
{
	return guest_gpa_to_host(ctx, gpa, len);
}

enum gpt_status vcpu_read_guest_virtual(struct vcpu *v, uint64_t gva, void *buf,
					unsigned int len)
{
	const struct gpt_space space = {
		.mode = gpt_mode_of(vmcs_read(VMCS_GUEST_CR0), vmcs_read(VMCS_GUEST_CR4),
				    vmcs_read(VMCS_GUEST_IA32_EFER)),
		.cr3 = vmcs_read(VMCS_GUEST_CR3),
		.map = vcpu_map_guest,
		.ctx = v->guest,
	};

	return gpt_read(&space, gva, buf, len);
}
