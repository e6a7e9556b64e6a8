/* SPDX-License-Identifier: MIT */
/*
 * vcpu.c - one vCPU: its VMCS (controls derived from the capability MSRs,
 * SDM Vol. 3D appendix A), the 64-bit Linux entry state, event injection
 * and the run loop.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/gdt.h"
#include "arch/lapic.h"
#include "arch/percpu.h"
#include "arch/x86.h"
#include "boot/boot.h"
#include "guest/guest.h"
#include "guest/guest_log.h"
#include "mm/page_alloc.h"
#include "vmx/cpuid_filter.h"
#include "vmx/exit_rules.h"
#include "vmx/vmcs.h"
#include "vmx/vmx.h"

#define PAT_DEFAULT	0x0007040600070406ull	/* power-on value, SDM Vol. 3A §13.12.4 */
#define EFER_LME	(1ull << 8)
#define EFER_LMA	(1ull << 10)
#define CR0_ET		(1ull << 4)
#define RFLAGS_RESERVED	(1ull << 1)

/* Segment access rights (§25.4.1): type, S, DPL, P, L/DB, G, unusable. */
#define AR_CODE64	0xa09b
#define AR_DATA		0xc093
#define AR_TSS_BUSY	0x008b
#define AR_UNUSABLE	0x10000
#define AR_REAL_CODE	0x009b	/* real mode after INIT (§9.1.1): present, accessed, read */
#define AR_REAL_DATA	0x0093
#define REAL_MODE_LIMIT	0xffff

/* 0: a VM exit; 1: VMfail; 2: not entered, the core was kicked. */
int vmx_enter(struct guest_regs *regs, int launched, const uint8_t *kicked);
extern const char vmx_exit[];

uint64_t *vcpu_gpr(struct vcpu *v, unsigned int index)
{
	return &((uint64_t *)&v->regs)[index & 15];
}

/* allowed-0 bits (low word) must be 1; allowed-1 bits (high word) may be 1. */
static bool vcpu_control(uint64_t cap, uint32_t want, uint32_t must, const char *what,
			 uint32_t *out)
{
	uint32_t allowed0 = (uint32_t)cap, allowed1 = (uint32_t)(cap >> 32);

	if (must & ~allowed1) {
		printk("vmx: required %s controls %#x missing\n", what, must & ~allowed1);
		return false;
	}
	*out = ((want | must) | allowed0) & allowed1;
	return true;
}

static bool vcpu_alloc(struct vcpu *v, uint64_t *page, unsigned int pages)
{
	*page = page_alloc_node(v->guest->node, pages * PAGE_SIZE, PAGE_SIZE);
	if (!*page)
		return false;
	memset((void *)(uintptr_t)*page, 0, pages * PAGE_SIZE);
	return true;
}

/* The MSR bitmap's bit for RDMSR (or WRMSR) of msr (§25.6.9). */
static uint8_t *vcpu_msr_bit(struct vcpu *v, uint32_t msr, bool write, uint8_t *bit)
{
	uint8_t *bitmap = (uint8_t *)(uintptr_t)v->msr_bitmap;
	unsigned int base = (msr >= 0xc0000000 ? 1024 : 0) + (write ? 2048 : 0);
	uint32_t index = msr & 0x1fff;

	*bit = (uint8_t)(1u << (index % 8));
	return &bitmap[base + index / 8];
}

/* Lets RDMSR (or WRMSR) of msr through without an exit. */
static void vcpu_msr_pass(struct vcpu *v, uint32_t msr, bool write)
{
	uint8_t bit, *byte = vcpu_msr_bit(v, msr, write, &bit);

	*byte &= (uint8_t)~bit;
}

void vcpu_msr_exits(struct vcpu *v, uint32_t msr, bool exits)
{
	for (unsigned int write = 0; write < 2; write++) {
		uint8_t bit, *byte = vcpu_msr_bit(v, msr, write, &bit);

		*byte = exits ? (uint8_t)(*byte | bit) : (uint8_t)(*byte & ~bit);
	}
}

/* Every MSR exits except those whose state VMX switches or the core owns alone. */
static void vcpu_msr_passthrough(struct vcpu *v, uint32_t msr)
{
	vcpu_msr_pass(v, msr, false);
	vcpu_msr_pass(v, msr, true);
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

	memset((void *)(uintptr_t)v->msr_bitmap, 0xff, PAGE_SIZE);
	for (unsigned int i = 0; i < sizeof(passthrough) / sizeof(passthrough[0]); i++)
		vcpu_msr_passthrough(v, passthrough[i]);
	/*
	 * The vCPU reaches its own APIC's registers (vmx/apic_direct.c) where
	 * the core's APIC is in x2APIC mode; on an xAPIC core every access
	 * exits and vcpu_apic_msr() carries it out.
	 */
	for (uint32_t msr = X2APIC_MSR_FIRST; lapic_is_x2apic() && msr <= X2APIC_MSR_LAST;
	     msr++) {
		if (apic_direct_passes(msr, false))
			vcpu_msr_pass(v, msr, false);
		if (apic_direct_passes(msr, true))
			vcpu_msr_pass(v, msr, true);
	}
	vcpu_msr_passthrough(v, MSR_TSC_DEADLINE);
	memset((void *)(uintptr_t)v->io_bitmap, 0xff, 2 * PAGE_SIZE);
}

bool vcpu_create(struct vcpu *v)
{
	if (!vcpu_alloc(v, &v->vmcs, 1) || !vcpu_alloc(v, &v->msr_bitmap, 1) ||
	    !vcpu_alloc(v, &v->io_bitmap, 2))
		return false;
	vcpu_setup_bitmaps(v);
	return true;
}

/*
 * The guest owns its core's APIC (docs/vmx.md, "Direct interrupts"): its
 * interrupts arrive through its own IDT and its HLT halts the core, so
 * neither exits (external-interrupt and HLT exiting stay off); NMIs, the
 * hypervisor's kicks, still do.
 */
static bool vcpu_setup_controls(struct vcpu *v, const struct vmx_caps *caps)
{
	uint32_t pin, proc, proc2 = 0, exit, entry;
	uint32_t want2 = PROC2_EPT | PROC2_VPID | PROC2_WBINVD_EXITING;

	/* Instructions the guest can see in CPUID must not #UD under VMX. */
	if (cpuid(0x80000001, 0).edx & (1u << 27))
		want2 |= PROC2_RDTSCP;
	if (cpuid(7, 0).ebx & (1u << 10))
		want2 |= PROC2_INVPCID;
	if (cpuid(0xd, 1).eax & (1u << 3))
		want2 |= PROC2_XSAVES;

	if (!vcpu_control(caps->pinbased, 0, PIN_NMI_EXITING, "pin-based", &pin) ||
	    !vcpu_control(caps->procbased, PROC_MWAIT_EXITING | PROC_RDPMC_EXITING |
			  PROC_MONITOR_EXITING,
			  PROC_IO_BITMAPS | PROC_MSR_BITMAPS | PROC_SECONDARY_CONTROLS,
			  "processor-based", &proc) ||
	    !vcpu_control(caps->procbased2, want2, PROC2_EPT | PROC2_VPID, "secondary", &proc2) ||
	    !vcpu_control(caps->exit_ctls, 0, EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_PAT |
			  EXIT_LOAD_PAT | EXIT_SAVE_EFER | EXIT_LOAD_EFER, "exit", &exit) ||
	    !vcpu_control(caps->entry_ctls, 0, ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_PAT |
			  ENTRY_LOAD_EFER, "entry", &entry))
		return false;

	vmcs_write(VMCS_PIN_CONTROLS, pin);
	vmcs_write(VMCS_PROC_CONTROLS, proc);
	vmcs_write(VMCS_PROC_CONTROLS2, proc2);
	v->cpu_controls = (proc2 & PROC2_RDTSCP ? GUEST_CPU_RDTSCP : 0) |
			  (proc2 & PROC2_INVPCID ? GUEST_CPU_INVPCID : 0) |
			  (proc2 & PROC2_XSAVES ? GUEST_CPU_XSAVES : 0);
	vmcs_write(VMCS_EXIT_CONTROLS, exit);
	vmcs_write(VMCS_ENTRY_CONTROLS, entry);
	vmcs_write(VMCS_EXCEPTION_BITMAP, 0);
	vmcs_write(VMCS_CR3_TARGET_COUNT, 0);
	vmcs_write(VMCS_EXIT_MSR_STORE_COUNT, 0);
	vmcs_write(VMCS_EXIT_MSR_LOAD_COUNT, 0);
	vmcs_write(VMCS_ENTRY_MSR_LOAD_COUNT, 0);
	vmcs_write(VMCS_ENTRY_INTR_INFO, 0);
	vmcs_write(VMCS_IO_BITMAP_A, v->io_bitmap);
	vmcs_write(VMCS_IO_BITMAP_B, v->io_bitmap + PAGE_SIZE);
	vmcs_write(VMCS_MSR_BITMAP, v->msr_bitmap);
	vmcs_write(VMCS_EPT_POINTER, ept_pointer(&v->guest->ept));
	vmcs_write(VMCS_VPID, v->vpid);
	return true;
}

static void vcpu_setup_host_state(void)
{
	struct percpu *cpu = this_cpu();
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) idtr;

	asm volatile("sidt %0" : "=m"(idtr));
	vmcs_write(VMCS_HOST_CR0, read_cr0());
	vmcs_write(VMCS_HOST_CR3, read_cr3());
	vmcs_write(VMCS_HOST_CR4, read_cr4());
	vmcs_write(VMCS_HOST_CS_SELECTOR, GDT_CODE64);
	vmcs_write(VMCS_HOST_SS_SELECTOR, GDT_DATA);
	vmcs_write(VMCS_HOST_DS_SELECTOR, GDT_DATA);
	vmcs_write(VMCS_HOST_ES_SELECTOR, GDT_DATA);
	vmcs_write(VMCS_HOST_FS_SELECTOR, 0);
	vmcs_write(VMCS_HOST_GS_SELECTOR, 0);
	vmcs_write(VMCS_HOST_TR_SELECTOR, GDT_TSS);
	vmcs_write(VMCS_HOST_FS_BASE, 0);
	vmcs_write(VMCS_HOST_GS_BASE, (uintptr_t)cpu);
	vmcs_write(VMCS_HOST_TR_BASE, (uintptr_t)&cpu->tables.tss);
	vmcs_write(VMCS_HOST_GDTR_BASE, (uintptr_t)cpu->tables.gdt);
	vmcs_write(VMCS_HOST_IDTR_BASE, idtr.base);
	vmcs_write(VMCS_HOST_SYSENTER_CS, 0);
	vmcs_write(VMCS_HOST_SYSENTER_ESP, 0);
	vmcs_write(VMCS_HOST_SYSENTER_EIP, 0);
	vmcs_write(VMCS_HOST_IA32_EFER, rdmsr(MSR_EFER));
	vmcs_write(VMCS_HOST_IA32_PAT, rdmsr(0x277));
	vmcs_write(VMCS_HOST_RIP, (uintptr_t)vmx_exit);
}

static void vcpu_set_segment(uint32_t selector_field, uint16_t selector, uint32_t ar)
{
	/* Selector, base, limit and access rights fields keep the same order (B.1-B.4). */
	unsigned int index = (selector_field - VMCS_GUEST_ES_SELECTOR) / 2;

	vmcs_write(selector_field, selector);
	vmcs_write(VMCS_GUEST_ES_BASE + 2 * index, 0);
	vmcs_write(VMCS_GUEST_ES_LIMIT + 2 * index, ar == AR_TSS_BUSY ? 0xff : 0xffffffff);
	vmcs_write(VMCS_GUEST_ES_AR + 2 * index, ar);
}

void vcpu_setup_cr_masks(void)
{
	vmcs_write(VMCS_CR0_MASK, rdmsr(MSR_IA32_VMX_CR0_FIXED0) | CR0_NE);
	vmcs_write(VMCS_CR4_MASK, exit_rules_cr4_owned(rdmsr(MSR_IA32_VMX_CR4_FIXED0)));
}

/* The 64-bit boot protocol's entry state (Documentation/arch/x86/boot.rst). */
static void vcpu_setup_guest_state(struct vcpu *v)
{
	const struct guest *g = v->guest;
	uint64_t cr0 = CR0_PE | CR0_ET | CR0_NE | CR0_PG;
	uint64_t cr4 = CR4_PAE;

	vcpu_setup_cr_masks();
	vmcs_write(VMCS_CR0_READ_SHADOW, cr0);
	vmcs_write(VMCS_GUEST_CR0, (cr0 | rdmsr(MSR_IA32_VMX_CR0_FIXED0)) &
				   rdmsr(MSR_IA32_VMX_CR0_FIXED1));
	vmcs_write(VMCS_CR4_READ_SHADOW, cr4);
	vmcs_write(VMCS_GUEST_CR4, (cr4 | rdmsr(MSR_IA32_VMX_CR4_FIXED0)) &
				   rdmsr(MSR_IA32_VMX_CR4_FIXED1));
	vmcs_write(VMCS_GUEST_CR3, g->boot.cr3);
	vmcs_write(VMCS_GUEST_IA32_EFER, EFER_LME | EFER_LMA);
	vmcs_write(VMCS_GUEST_IA32_PAT, PAT_DEFAULT);

	vcpu_set_segment(VMCS_GUEST_CS_SELECTOR, g->boot.cs, AR_CODE64);
	vcpu_set_segment(VMCS_GUEST_DS_SELECTOR, g->boot.ds, AR_DATA);
	vcpu_set_segment(VMCS_GUEST_ES_SELECTOR, g->boot.ds, AR_DATA);
	vcpu_set_segment(VMCS_GUEST_SS_SELECTOR, g->boot.ds, AR_DATA);
	vcpu_set_segment(VMCS_GUEST_FS_SELECTOR, g->boot.ds, AR_DATA);
	vcpu_set_segment(VMCS_GUEST_GS_SELECTOR, g->boot.ds, AR_DATA);
	vcpu_set_segment(VMCS_GUEST_TR_SELECTOR, 0, AR_TSS_BUSY);
	vcpu_set_segment(VMCS_GUEST_LDTR_SELECTOR, 0, AR_UNUSABLE);
	vmcs_write(VMCS_GUEST_GDTR_BASE, g->boot.gdt_base);
	vmcs_write(VMCS_GUEST_GDTR_LIMIT, g->boot.gdt_limit);
	vmcs_write(VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write(VMCS_GUEST_IDTR_LIMIT, 0);

	vmcs_write(VMCS_GUEST_DR7, 0x400);
	vmcs_write(VMCS_GUEST_RSP, 0);
	vmcs_write(VMCS_GUEST_RIP, g->boot.rip);
	vmcs_write(VMCS_GUEST_RFLAGS, RFLAGS_RESERVED);
	vmcs_write(VMCS_GUEST_SYSENTER_CS, 0);
	vmcs_write(VMCS_GUEST_SYSENTER_ESP, 0);
	vmcs_write(VMCS_GUEST_SYSENTER_EIP, 0);
	vmcs_write(VMCS_GUEST_ACTIVITY_STATE, 0);
	vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, 0);
	vmcs_write(VMCS_GUEST_PENDING_DBG, 0);
	vmcs_write(VMCS_LINK_POINTER, ~0ull);

	memset(&v->regs, 0, sizeof(v->regs));
	v->regs.rsi = g->boot.rsi;
}

bool vcpu_setup_startup(struct vcpu *v, uint8_t vector)
{
	uint64_t fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0), fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
	/* PE and PG are the guest's, so it can leave real mode and turn paging on. */
	uint64_t owned = (fixed0 & ~(CR0_PE | CR0_PG)) | CR0_NE;
	uint64_t cr0 = CR0_ET | CR0_NE;

	if (!this_cpu()->vmx->unrestricted_guest)
		return vcpu_window_enter(v, vector);
	vmcs_write(VMCS_PROC_CONTROLS2, vmcs_read(VMCS_PROC_CONTROLS2) | PROC2_UNRESTRICTED_GUEST);
	vmcs_write(VMCS_ENTRY_CONTROLS,
		   vmcs_read(VMCS_ENTRY_CONTROLS) & ~(uint64_t)ENTRY_IA32E_MODE_GUEST);
	v->real_mode = true;

	/* Table 9-1, but NE set: it is owned, and Linux's trampoline sets it anyway. */
	vmcs_write(VMCS_CR0_MASK, owned);
	vmcs_write(VMCS_CR0_READ_SHADOW, cr0);
	vmcs_write(VMCS_GUEST_CR0, (cr0 | (fixed0 & owned)) & fixed1);
	vmcs_write(VMCS_CR4_READ_SHADOW, 0);
	vmcs_write(VMCS_GUEST_CR4, rdmsr(MSR_IA32_VMX_CR4_FIXED0) & rdmsr(MSR_IA32_VMX_CR4_FIXED1));
	vmcs_write(VMCS_GUEST_CR3, 0);
	vmcs_write(VMCS_GUEST_IA32_EFER, 0);

	/* Real-mode segments: 64 KiB limits; CS at the start page (§8.4.4.1). */
	vcpu_set_segment(VMCS_GUEST_CS_SELECTOR, (uint16_t)(vector << 8), AR_REAL_CODE);
	vmcs_write(VMCS_GUEST_CS_BASE, (uint64_t)vector << 12);
	vcpu_set_segment(VMCS_GUEST_DS_SELECTOR, 0, AR_REAL_DATA);
	vcpu_set_segment(VMCS_GUEST_ES_SELECTOR, 0, AR_REAL_DATA);
	vcpu_set_segment(VMCS_GUEST_SS_SELECTOR, 0, AR_REAL_DATA);
	vcpu_set_segment(VMCS_GUEST_FS_SELECTOR, 0, AR_REAL_DATA);
	vcpu_set_segment(VMCS_GUEST_GS_SELECTOR, 0, AR_REAL_DATA);
	vcpu_set_segment(VMCS_GUEST_TR_SELECTOR, 0, AR_TSS_BUSY);
	for (unsigned int i = 0; i < 6; i++)	/* ES, CS, SS, DS, FS, GS (B.3.3) */
		vmcs_write(VMCS_GUEST_ES_LIMIT + 2 * i, REAL_MODE_LIMIT);
	vmcs_write(VMCS_GUEST_TR_LIMIT, REAL_MODE_LIMIT);
	vmcs_write(VMCS_GUEST_GDTR_BASE, 0);
	vmcs_write(VMCS_GUEST_GDTR_LIMIT, REAL_MODE_LIMIT);
	vmcs_write(VMCS_GUEST_IDTR_BASE, 0);
	vmcs_write(VMCS_GUEST_IDTR_LIMIT, REAL_MODE_LIMIT);
	vmcs_write(VMCS_GUEST_RIP, 0);
	vmcs_write(VMCS_GUEST_RSP, 0);
	vmcs_write(VMCS_GUEST_RFLAGS, RFLAGS_RESERVED);

	memset(&v->regs, 0, sizeof(v->regs));
	v->regs.rdx = cpuid(1, 0).eax;	/* Table 9-1: EDX holds the processor's signature */
	return true;
}

/*
 * A real-mode-started guest turns long mode on by itself (CR0.PG is its
 * own): it is the VM entry that must then say IA-32e mode (§26.3.1.1,
 * EFER.LMA equal to the "IA-32e mode guest" control), so the control
 * follows the EFER the exit saved.
 */
static void vcpu_sync_long_mode(void)
{
	uint64_t entry = vmcs_read(VMCS_ENTRY_CONTROLS);

	if (vmcs_read(VMCS_GUEST_IA32_EFER) & EFER_LMA)
		entry |= ENTRY_IA32E_MODE_GUEST;
	else
		entry &= ~(uint64_t)ENTRY_IA32E_MODE_GUEST;
	vmcs_write(VMCS_ENTRY_CONTROLS, entry);
}

bool vcpu_reset(struct vcpu *v)
{
	const struct vmx_caps *caps = this_cpu()->vmx;

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
	if (!vcpu_setup_controls(v, caps))
		return false;
	vcpu_setup_host_state();
	vcpu_setup_guest_state(v);
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

void vmx_skip_instruction(void)
{
	uint64_t interruptibility = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);

	vmcs_write(VMCS_GUEST_RIP, vmcs_read(VMCS_GUEST_RIP) +
		   vmcs_read(VMCS_EXIT_INSTRUCTION_LEN));
	/* Emulating the instruction ends an STI or MOV SS shadow (§26.7.1.2). */
	if (interruptibility & (INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS))
		vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, interruptibility &
			   ~(uint64_t)(INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS));
}

void vcpu_inject_exception(struct vcpu *v, uint8_t vector, bool has_error, uint32_t error)
{
	v->exceptions_injected++;
	vmcs_write(VMCS_ENTRY_INTR_INFO, INTR_INFO_VALID | INTR_TYPE_HARD_EXCEPTION |
		   (has_error ? INTR_INFO_ERROR_CODE : 0) | vector);
	if (has_error)
		vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR, error);
}

/*
 * An event that was being delivered when the exit happened must be
 * delivered again (SDM Vol. 3C §28.2.4), unless an exception is already
 * queued. Interrupts need nothing else: the core's APIC delivers them.
 */
static void vcpu_reinject_event(struct vcpu *v)
{
	uint32_t idt_info = vmcs_read(VMCS_IDT_VECTORING_INFO);

	if (!v->launched || !(idt_info & INTR_INFO_VALID) ||
	    (vmcs_read(VMCS_ENTRY_INTR_INFO) & INTR_INFO_VALID))
		return;
	vmcs_write(VMCS_ENTRY_INTR_INFO, idt_info & ~(1u << 12));
	if (idt_info & INTR_INFO_ERROR_CODE)
		vmcs_write(VMCS_ENTRY_EXCEPTION_ERROR, vmcs_read(VMCS_IDT_VECTORING_ERROR));
	vmcs_write(VMCS_ENTRY_INSTRUCTION_LEN, vmcs_read(VMCS_EXIT_INSTRUCTION_LEN));
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
		vcpu_reinject_event(v);
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
			vcpu_sync_long_mode();
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
