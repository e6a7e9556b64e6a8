/* SPDX-License-Identifier: MIT */
/*
 * vcpu.c - one vCPU: what its VMCS is to allow (the choices that
 * hv/vmx/vmcs_setup.c turns into VMCS contents), its MSR bitmap, its
 * start states and the run loop.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/x86.h"
#include "guest/guest.h"
#include "guest/guest_log.h"
#include "guest/vcpu.h"
#include "mm/page_alloc.h"
#include "vmx/cpuid_filter.h"
#include "vmx/ept.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"
#include "vmx/vmx.h"

/* 0: a VM exit; 1: VMfail; 2: not entered, the core was kicked. */
int vmx_enter(struct guest_regs *regs, int launched, const uint8_t *kicked);

uint64_t *vcpu_gpr(struct vcpu *v, unsigned int index)
{
	return &((uint64_t *)&v->regs)[index & 15];
}

static bool vcpu_alloc(struct vcpu *v, uint64_t *page, unsigned int pages)
{
	*page = page_alloc_node(v->guest->node, pages * PAGE_SIZE, PAGE_SIZE);
	if (!*page)
		return false;
	memset((void *)(uintptr_t)*page, 0, pages * PAGE_SIZE);
	return true;
}

void vcpu_msr_exits(struct vcpu *v, uint32_t msr, bool exits)
{
	uint8_t *bitmap = (uint8_t *)(uintptr_t)v->msr_bitmap;

	vmcs_msr_bitmap_set(bitmap, msr, false, exits);
	vmcs_msr_bitmap_set(bitmap, msr, true, exits);
}

static void vcpu_setup_bitmaps(struct vcpu *v)
{
	/* Pass-through: the vCPU's core never runs host code that uses these. */
	static const uint32_t passthrough[] = {
		0xc0000080,	/* EFER: saved and loaded by VMX */
		0xc0000081,	/* STAR */
		0xc0000082,	/* LSTAR */
		0xc0000083,	/* CSTAR */
		0xc0000084,	/* FMASK */
		0xc0000100,	/* FS base: in the VMCS */
		0xc0000101,	/* GS base: in the VMCS */
		0xc0000102,	/* kernel GS base */
		0xc0000103,	/* TSC_AUX */
		0x277,		/* PAT: saved and loaded by VMX */
	};
	uint8_t *msr_bitmap = (uint8_t *)(uintptr_t)v->msr_bitmap;

	vmcs_msr_bitmap_init(msr_bitmap, passthrough,
			     sizeof(passthrough) / sizeof(passthrough[0]));
	/*
	 * The vCPU reaches its own APIC's registers (vmx/apic_direct.c) where
	 * the core's APIC is in x2APIC mode; on an xAPIC core every access
	 * exits and vcpu_apic_msr() carries it out.
	 */
	for (uint32_t msr = X2APIC_MSR_FIRST; lapic_is_x2apic() && msr <= X2APIC_MSR_LAST;
	     msr++) {
		if (apic_direct_passes(msr, false))
			vmcs_msr_bitmap_set(msr_bitmap, msr, false, false);
		if (apic_direct_passes(msr, true))
			vmcs_msr_bitmap_set(msr_bitmap, msr, true, false);
	}
	vcpu_msr_exits(v, MSR_TSC_DEADLINE, false);
	vmcs_io_bitmap_init((uint8_t *)(uintptr_t)v->io_bitmap);
}

bool vcpu_create(struct vcpu *v)
{
	if (!vcpu_alloc(v, &v->vmcs, 1) || !vcpu_alloc(v, &v->msr_bitmap, 1) ||
	    !vcpu_alloc(v, &v->io_bitmap, 2))
		return false;
	vcpu_setup_bitmaps(v);
	return true;
}

bool vcpu_setup_startup(struct vcpu *v, uint8_t vector)
{
	if (this_cpu()->vmx->unrestricted_guest) {
		vmcs_setup_real_mode(vector);
		v->real_mode = true;
	} else if (!vcpu_window_enter(v, vector)) {
		return false;
	}
	memset(&v->regs, 0, sizeof(v->regs));
	v->regs.rdx = cpuid(1, 0).eax;	/* Table 9-1: EDX holds the processor's signature */
	return true;
}

bool vcpu_reset(struct vcpu *v)
{
	const struct vmx_caps *caps = this_cpu()->vmx;
	const struct guest *g = v->guest;
	/*
	 * The guest policy: instructions the guest can see in CPUID must not
	 * #UD under VMX; the EPT, VPID and bitmaps are the vCPU's; vCPU 0
	 * enters Linux where the loader left it.
	 */
	const struct vmcs_setup_choices choices = {
		.rdtscp = cpuid(0x80000001, 0).edx & (1u << 27),
		.invpcid = cpuid(7, 0).ebx & (1u << 10),
		.xsaves = cpuid(0xd, 1).eax & (1u << 3),
		.io_bitmap = v->io_bitmap,
		.msr_bitmap = v->msr_bitmap,
		.ept_pointer = ept_pointer(&g->ept),
		.vpid = v->vpid,
		.entry = {
			.rip = g->boot.rip, .cr3 = g->boot.cr3, .gdt_base = g->boot.gdt_base,
			.gdt_limit = g->boot.gdt_limit, .cs = g->boot.cs, .ds = g->boot.ds,
		},
	};
	struct vmcs_controls controls;

	*(uint32_t *)(uintptr_t)v->vmcs = caps->revision;
	if (!vmcs_clear(v->vmcs) || !vmcs_load(v->vmcs)) {
		printk("vmx: cannot load the VMCS of %s.%u\n", v->guest->name, v->index);
		return false;
	}
	v->launched = false;
	v->real_mode = false;
	v->window.active = false;
	vcpu_msr_exits(v, MSR_EFER, false);	/* a life may have ended in the window */
	v->stop = VCPU_STOP_NONE;
	v->stop_reason[0] = '\0';
	vcpu_apic_reset(v);
	if (!vmcs_setup(caps, &choices, &controls))
		return false;
	v->cpu_controls = (controls.proc2 & PROC2_RDTSCP ? GUEST_CPU_RDTSCP : 0) |
			  (controls.proc2 & PROC2_INVPCID ? GUEST_CPU_INVPCID : 0) |
			  (controls.proc2 & PROC2_XSAVES ? GUEST_CPU_XSAVES : 0);
	memset(&v->regs, 0, sizeof(v->regs));
	v->regs.rsi = g->boot.rsi;
	return true;
}

void vcpu_send_interrupt(struct vcpu *v, uint8_t vector)
{
	/*
	 * The vCPU's core takes the guest's own vector: delivered by the
	 * processor in the guest, or held in the APIC while the core is in
	 * the hypervisor (docs/vmx.md, "Direct interrupts").
	 */
	__atomic_fetch_add(&v->irqs_sent, 1, __ATOMIC_RELAXED);
	lapic_send_ipi(percpu[v->cpu].apic_id, vector);
}

void vcpu_stop(struct vcpu *v, enum vcpu_stop why, const char *reason)
{
	unsigned int i = 0;

	v->stop = why;
	while (reason[i] && i < sizeof(v->stop_reason) - 1) {
		v->stop_reason[i] = reason[i];
		i++;
	}
	v->stop_reason[i] = '\0';
}

void vcpu_inject_exception(struct vcpu *v, uint8_t vector, bool has_error, uint32_t error)
{
	v->exceptions_injected++;
	vmcs_inject_exception(vector, has_error, error);
}

enum vcpu_stop vcpu_run(struct vcpu *v)
{
	volatile uint8_t *kicked = &this_cpu()->kicked;
	uint32_t reason;
	int entered;

	while (v->stop == VCPU_STOP_NONE) {
		/* A kick from here on stops the entry; what it was for is collected next. */
		*kicked = 0;
		/* A secondary runs only in the life it was started in (vcpu_life.h). */
		if (v->index && !vcpu_life_current(&v->guest->life, v->index)) {
			vcpu_stop(v, VCPU_STOP_REQUEST, "its guest's life ended");
			return v->stop;
		}
		switch (__atomic_load_n(&v->request, __ATOMIC_ACQUIRE)) {
		case GUEST_REQUEST_NONE:
			break;
		case GUEST_REQUEST_CRASH:
			vcpu_stop(v, VCPU_STOP_CRASH, "another vCPU crashed");
			return v->stop;
		default:
			vcpu_stop(v, VCPU_STOP_REQUEST, v->index ? "its guest's life ended" :
				  "asked by the operator");
			return v->stop;
		}
		/* Before the first entry no exit has left an event to deliver. */
		if (v->launched)
			vmcs_reinject_event();
		entered = vmx_enter(&v->regs, v->launched, (const uint8_t *)kicked);
		if (entered == 2)
			continue;
		if (entered) {
			if (guest_log_allow(v->guest)) {
				printk("[%s] vm entry failed: instruction error %lu\n",
				       v->guest->name, vmcs_read(VMCS_INSTRUCTION_ERROR));
				vcpu_dump(v);
			}
			vcpu_stop(v, VCPU_STOP_CRASH, "vm entry failed");
			break;
		}
		v->launched = true;
		reason = (uint32_t)vmcs_read(VMCS_EXIT_REASON);
		v->exits_total++;
		v->exits[(reason & 0xffff) < EXIT_REASON_COUNT ? reason & 0xffff : 0]++;
		if (reason & EXIT_REASON_ENTRY_FAILED) {
			if (guest_log_allow(v->guest)) {
				printk("[%s] vm entry failed: exit reason %u (%s), "
				       "qualification %#lx\n", v->guest->name, reason & 0xffff,
				       vmcs_exit_reason_name(reason & 0xffff),
				       vmcs_read(VMCS_EXIT_QUALIFICATION));
				vcpu_dump(v);
			}
			vcpu_stop(v, VCPU_STOP_CRASH, "vm entry failed");
			break;
		}
		vcpu_handle_exit(v, reason & 0xffff);
		if (v->real_mode)
			vmcs_sync_long_mode();
	}
	return v->stop;
}

void vcpu_dump(struct vcpu *v)
{
	const struct guest_regs *r = &v->regs;

	printk("[%s] vcpu %u: rip %#lx rsp %#lx rflags %#lx cr0 %#lx cr3 %#lx cr4 %#lx\n",
	       v->guest->name, v->index, vmcs_read(VMCS_GUEST_RIP), vmcs_read(VMCS_GUEST_RSP),
	       vmcs_read(VMCS_GUEST_RFLAGS), vmcs_read(VMCS_CR0_READ_SHADOW),
	       vmcs_read(VMCS_GUEST_CR3), vmcs_read(VMCS_CR4_READ_SHADOW));
	printk("[%s] vcpu %u: rax %#lx rbx %#lx rcx %#lx rdx %#lx rsi %#lx rdi %#lx\n",
	       v->guest->name, v->index, r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi);
	printk("[%s] vcpu %u: efer %#lx cs %#lx/%#lx idt-vectoring %#lx interruptibility %#lx\n",
	       v->guest->name, v->index, vmcs_read(VMCS_GUEST_IA32_EFER),
	       vmcs_read(VMCS_GUEST_CS_SELECTOR), vmcs_read(VMCS_GUEST_CS_AR),
	       vmcs_read(VMCS_IDT_VECTORING_INFO), vmcs_read(VMCS_GUEST_INTERRUPTIBILITY));
}
