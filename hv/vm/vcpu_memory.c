/* SPDX-License-Identifier: MIT */
/*
 * vcpu_memory.c - guest memory seen from the hypervisor: guest-physical
 * addresses checked against the guest's RAM, and guest-virtual addresses
 * walked through the guest's 4-level page tables (SDM Vol. 3A §4.5) to
 * fetch the instruction an MMIO exit must emulate.
 */
#include <string.h>

#include "vm/vm.h"
#include "vmx/vmcs.h"

#define PTE_P		(1ull << 0)
#define PTE_PS		(1ull << 7)
#define PTE_ADDR	0x000ffffffffff000ull

void *guest_gpa_to_host(const struct guest *g, uint64_t gpa, uint64_t len)
{
	if (gpa >= g->ram_size || len > g->ram_size - gpa)
		return NULL;
	return (void *)(uintptr_t)(g->ram_hpa + gpa);
}

/* Guest-physical address of gva, or ~0 when it is not mapped. */
static uint64_t vcpu_translate(struct vcpu *v, uint64_t gva)
{
	uint64_t table = vmcs_read(VMCS_GUEST_CR3) & PTE_ADDR;

	for (int level = 4; level >= 1; level--) {
		unsigned int shift = 12 + 9 * (level - 1);
		uint64_t *entry = guest_gpa_to_host(v->guest, table + ((gva >> shift) & 511) * 8, 8);

		if (!entry || !(*entry & PTE_P))
			return ~0ull;
		if (level == 1 || ((level == 2 || level == 3) && (*entry & PTE_PS))) {
			uint64_t page_mask = (1ull << shift) - 1;

			return ((*entry & PTE_ADDR) & ~page_mask) | (gva & page_mask);
		}
		table = *entry & PTE_ADDR;
	}
	return ~0ull;
}

bool vcpu_read_guest_virtual(struct vcpu *v, uint64_t gva, void *buf, unsigned int len)
{
	uint8_t *out = buf;

	while (len) {
		unsigned int chunk = 4096 - (gva & 4095);
		uint64_t gpa = vcpu_translate(v, gva);
		void *src;

		if (chunk > len)
			chunk = len;
		src = gpa == ~0ull ? NULL : guest_gpa_to_host(v->guest, gpa, chunk);
		if (!src)
			return false;
		memcpy(out, src, chunk);
		out += chunk;
		gva += chunk;
		len -= chunk;
	}
	return true;
}
