/* SPDX-License-Identifier: MIT */
/*
 * vcpu_start.c - the start window: a secondary vCPU's real-mode and
 * 32-bit start on a host without unrestricted guest, run as KVM ran it
 * before that control existed (docs/vmx.md, "Secondary vCPUs").
 *
 * Without unrestricted guest, VM entry needs CR0.PE and CR0.PG set
 * (SDM Vol. 3C §26.3.1.1). Real mode therefore runs as a virtual-8086
 * task, whose privileged instructions raise #GP and are emulated
 * (hv/vmx/realmode.h); the unpaged protected mode that follows runs on an
 * identity page directory the hypervisor writes at GUEST_START_PD_GPA,
 * while the read shadows show the guest the CR0 and CR4 it wrote. The
 * window closes when the guest sets CR0.PG with EFER.LME: the vCPU is
 * then in IA-32e mode on its own page tables, with vCPU 0's controls.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/x86.h"
#include "config/guest_layout.h"
#include "guest/guest.h"
#include "guest/vcpu.h"
#include "lib/printf.h"
#include "mm/page_alloc.h"
#include "vmx/exit_rules.h"
#include "vmx/realmode.h"
#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"

#define VECTOR_GP	13

#define EFER_LME	(1ull << 8)
#define EFER_LMA	(1ull << 10)
#define RFLAGS_IOPL	(3ull << 12)
#define RFLAGS_VM	(1ull << 17)

/*
 * Segment access rights (§25.4.1) once the task leaves virtual-8086 mode:
 * in protected mode CS and SS have DPL 0, which is their RPL (§26.3.1.2).
 */
#define AR_CODE16	0x9b	/* present, DPL 0, execute/read, accessed */
#define AR_DATA16	0x93	/* present, DPL 0, read/write, accessed */
#define AR_DPL_SHIFT	5
#define SEGMENT_COUNT	6	/* ES, CS, SS, DS, FS, GS: the VMCS order (B.1.2) */
#define SEGMENT_CS	1

/* A 32-bit paging PDE for a 4 MiB page: P, R/W, U/S, A, D, PS (§4.3, table 4-4). */
#define PDE_4M		0xe7u
#define PDE_SHIFT	22
#define PD_ENTRIES	1024

/* Exit qualification of a control-register access (§28.2.1, table 28-3). */
#define CR_ACCESS_CR(q)		((unsigned int)(q) & 0xf)
#define CR_ACCESS_TYPE(q)	(((q) >> 4) & 3)
#define CR_ACCESS_GPR(q)	((unsigned int)((q) >> 8) & 0xf)
#define CR_ACCESS_TO		0
#define CR_ACCESS_FROM		1

#define GPR_RSP		4

static uint64_t vcpu_gpr_read(struct vcpu *v, unsigned int index)
{
	return index == GPR_RSP ? vmcs_read(VMCS_GUEST_RSP) : *vcpu_gpr(v, index);
}

static void vcpu_gpr_write(struct vcpu *v, unsigned int index, uint64_t value)
{
	if (index == GPR_RSP)
		vmcs_write(VMCS_GUEST_RSP, value);
	else
		*vcpu_gpr(v, index) = value;
}

bool vcpu_window_enter(struct vcpu *v, uint8_t vector)
{
	uint32_t *pd = guest_gpa_to_host(v->guest, GUEST_START_PD_GPA, PAGE_SIZE);

	if (!pd) {
		printk("vmx: %s.%u: no guest RAM at %#llx for the start page directory\n",
		       v->guest->name, v->index, GUEST_START_PD_GPA);
		return false;
	}
	/* Rewritten at each start: a guest that scribbled on it only hurt itself. */
	for (uint32_t i = 0; i < PD_ENTRIES; i++)
		pd[i] = (i << PDE_SHIFT) | PDE_4M;

	v->window = (struct vcpu_window){
		.active = true,
		.proc_controls = vmcs_read(VMCS_PROC_CONTROLS),
	};
	vmcs_write(VMCS_PROC_CONTROLS, v->window.proc_controls | PROC_CR3_LOAD_EXITING |
		   PROC_CR3_STORE_EXITING);
	vmcs_write(VMCS_EXCEPTION_BITMAP, 0xffffffff);
	vmcs_write(VMCS_CR0_MASK, ~0ull);
	vmcs_write(VMCS_CR4_MASK, ~0ull);
	vcpu_msr_exits(v, MSR_EFER, true);
	vmcs_write(VMCS_ENTRY_CONTROLS,
		   vmcs_read(VMCS_ENTRY_CONTROLS) & ~(uint64_t)ENTRY_IA32E_MODE_GUEST);

	vmcs_setup_vm86(vector, GUEST_START_PD_GPA);
	return true;
}

/*
 * CR0.PE set in virtual-8086 mode: the task becomes 16-bit protected mode
 * with the segments it has, as a processor keeps them until the far jump
 * that follows. §26.3.1.2 then wants CS.RPL = SS.RPL = SS.DPL = CS.DPL,
 * and data DPLs not below their RPLs.
 */
static bool vcpu_window_leave_vm86(struct vcpu *v)
{
	uint16_t cs = (uint16_t)vmcs_read(VMCS_GUEST_CS_SELECTOR);
	uint16_t ss = (uint16_t)vmcs_read(VMCS_GUEST_SS_SELECTOR);

	if ((cs | ss) & 3)
		return vcpu_fail(v, "protected mode entered with CS %#x SS %#x: RPL not 0", cs, ss);
	for (unsigned int i = 0; i < SEGMENT_COUNT; i++) {
		uint16_t selector = (uint16_t)vmcs_read(VMCS_GUEST_ES_SELECTOR + 2 * i);

		vmcs_write(VMCS_GUEST_ES_AR + 2 * i, i == SEGMENT_CS ? AR_CODE16 :
			   AR_DATA16 | (uint32_t)(selector & 3) << AR_DPL_SHIFT);
	}
	vmcs_write(VMCS_GUEST_RFLAGS,
		   vmcs_read(VMCS_GUEST_RFLAGS) & ~(RFLAGS_VM | RFLAGS_IOPL));
	return true;
}

/*
 * CR0.PG set with EFER.LME: the guest's CR0, CR3, CR4 and EFER go to the
 * processor, IA-32e mode with them (§10.8.5), and every control the window
 * changed goes back to what vCPU 0 runs with. CS is still the 32-bit
 * segment, so the guest continues in compatibility mode. Translations
 * cached from the identity directory under the vCPU's VPID may outlive
 * the window: they are not global, map each address to itself as the
 * trampoline's page table does for the low RAM it runs in, and the
 * kernel's first MOV to CR3 drops them (§4.10.4.1).
 */
static bool vcpu_window_close(struct vcpu *v, uint64_t cr0)
{
	uint64_t cr4 = vmcs_read(VMCS_CR4_READ_SHADOW);
	struct exit_cr_context ctx = {
		.cr3 = v->window.cr3,
		.cr4 = cr4,
		.long_mode = true,
		.fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0),
		.fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1),
	};
	struct exit_cr_result r;

	if (!(v->window.efer & EFER_LME))
		return vcpu_fail(v, "paging without long mode in the start window is not emulated");
	r = exit_rules_cr4_write(cr4, vcpu_cr4_allowed(v), &ctx);
	if (r.verdict != EXIT_CR_OK)
		return vcpu_fail(v, "long mode turned on with CR4 %#lx", cr4);

	vmcs_write(VMCS_GUEST_CR4, r.hw);
	vmcs_write(VMCS_GUEST_CR3, v->window.cr3);
	vmcs_write(VMCS_CR0_READ_SHADOW, cr0);
	vmcs_write(VMCS_GUEST_CR0, (cr0 | rdmsr(MSR_IA32_VMX_CR0_FIXED0)) &
				   rdmsr(MSR_IA32_VMX_CR0_FIXED1));
	vmcs_write(VMCS_GUEST_IA32_EFER, v->window.efer | EFER_LMA);
	vmcs_write(VMCS_ENTRY_CONTROLS, vmcs_read(VMCS_ENTRY_CONTROLS) | ENTRY_IA32E_MODE_GUEST);

	vmcs_setup_cr_masks();
	vmcs_write(VMCS_EXCEPTION_BITMAP, 0);
	vmcs_write(VMCS_PROC_CONTROLS, v->window.proc_controls);
	vcpu_msr_exits(v, MSR_EFER, false);
	v->window.active = false;
	return true;
}

/*
 * MOV to CR0 in the window. The processor keeps PE and PG set; the guest's
 * PE leaves virtual-8086 mode, its PG (with LME) closes the window.
 */
static bool vcpu_window_write_cr0(struct vcpu *v, uint64_t value)
{
	struct exit_cr_context ctx = {
		.fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0) & ~(CR0_PE | CR0_PG),
		.fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1),
	};
	bool vm86 = vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_VM;

	if (exit_rules_cr0_write(value, &ctx).verdict != EXIT_CR_OK)
		return vcpu_fail(v, "MOV to CR0 of %#lx faults in the start window", value);
	if (!(value & CR0_PE)) {
		if (!vm86)
			return vcpu_fail(v, "return to real mode is not emulated");
	} else if (value & CR0_PG) {
		if (vm86)
			return vcpu_fail(v, "paging turned on in real mode is not emulated");
		return vcpu_window_close(v, value);
	} else if (vm86 && !vcpu_window_leave_vm86(v)) {
		return false;
	}
	vmcs_write(VMCS_CR0_READ_SHADOW, value);
	vmcs_write(VMCS_GUEST_CR0, vmcs_vm86_cr0(value));
	return true;
}

/* MOV to CR4: judged as ever, kept in the shadow; the processor's stays 32-bit paging. */
static bool vcpu_window_write_cr4(struct vcpu *v, uint64_t value)
{
	struct exit_cr_context ctx = {
		.cr3 = v->window.cr3,
		.cr4 = vmcs_read(VMCS_CR4_READ_SHADOW),
		.fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0),
		.fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1),
	};

	if (exit_rules_cr4_write(value, vcpu_cr4_allowed(v), &ctx).verdict != EXIT_CR_OK)
		return vcpu_fail(v, "MOV to CR4 of %#lx faults in the start window", value);
	vmcs_write(VMCS_CR4_READ_SHADOW, value);
	return true;
}

static bool vcpu_window_write_cr(struct vcpu *v, unsigned int cr, uint32_t value)
{
	switch (cr) {
	case 0:
		return vcpu_window_write_cr0(v, value);
	case 3:
		v->window.cr3 = value;
		return true;
	case 4:
		return vcpu_window_write_cr4(v, value);
	default:
		return vcpu_fail(v, "MOV to CR%u in the start window", cr);
	}
}

bool vcpu_window_cr_access(struct vcpu *v)
{
	uint64_t q = vmcs_read(VMCS_EXIT_QUALIFICATION);
	unsigned int gpr = CR_ACCESS_GPR(q);

	switch (CR_ACCESS_TYPE(q)) {
	case CR_ACCESS_TO:
		if (!vcpu_window_write_cr(v, CR_ACCESS_CR(q), (uint32_t)vcpu_gpr_read(v, gpr)))
			return false;
		break;
	case CR_ACCESS_FROM:
		if (CR_ACCESS_CR(q) != 3)
			return vcpu_fail(v, "MOV from CR%u in the start window", CR_ACCESS_CR(q));
		vcpu_gpr_write(v, gpr, v->window.cr3);
		break;
	default:
		return vcpu_fail(v, "CLTS or LMSW in the start window");
	}
	vmcs_skip_instruction();
	return true;
}

/* LGDT or LIDT: the 6-byte operand at DS:offset, linear = guest-physical here. */
static bool vcpu_window_load_table(struct vcpu *v, const struct realmode_insn *insn)
{
	uint64_t linear = vmcs_read(VMCS_GUEST_DS_BASE) + insn->offset;
	const uint8_t *operand = guest_gpa_to_host(v->guest, linear, REALMODE_TABLE_BYTES);
	uint8_t bytes[REALMODE_TABLE_BYTES];
	uint64_t base;
	uint16_t limit;

	if (!operand)
		return vcpu_fail(v, "LGDT/LIDT operand at %#lx is not guest RAM", linear);
	memcpy(bytes, operand, sizeof(bytes));
	/* A copy of fixed size is plain moves: keep the compiler from reading operand again. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	realmode_table(insn, bytes, &base, &limit);
	vmcs_write(insn->op == REALMODE_LGDT ? VMCS_GUEST_GDTR_BASE : VMCS_GUEST_IDTR_BASE, base);
	vmcs_write(insn->op == REALMODE_LGDT ? VMCS_GUEST_GDTR_LIMIT : VMCS_GUEST_IDTR_LIMIT,
		   limit);
	return true;
}

static bool vcpu_window_run(struct vcpu *v, const struct realmode_insn *insn)
{
	uint32_t msr = (uint32_t)v->regs.rcx;
	uint64_t value;

	switch (insn->op) {
	case REALMODE_WBINVD:
		return true;	/* guest RAM is write-back and coherent */
	case REALMODE_LGDT:
	case REALMODE_LIDT:
		return vcpu_window_load_table(v, insn);
	case REALMODE_MOV_TO_CR:
		return vcpu_window_write_cr(v, insn->cr, (uint32_t)vcpu_gpr_read(v, insn->gpr));
	case REALMODE_RDMSR:
		if (!vcpu_msr_read(v, msr, &value))
			return vcpu_fail(v, "RDMSR of %#x faults in real mode", msr);
		v->regs.rax = (uint32_t)value;
		v->regs.rdx = value >> 32;
		return true;
	case REALMODE_WRMSR:
		if (!vcpu_msr_write(v, msr, (v->regs.rdx << 32) | (uint32_t)v->regs.rax))
			return vcpu_fail(v, "WRMSR of %#x faults in real mode", msr);
		return true;
	case REALMODE_HLT:
		return vcpu_fail(v, "HLT in real mode: the trampoline gave up");
	}
	return vcpu_fail(v, "real-mode instruction %u not emulated", insn->op);
}

/*
 * A #GP in virtual-8086 mode: the bytes at CS:IP are copied out of guest
 * RAM before they are decoded (another vCPU may be writing them), as many
 * as RAM holds there. IP is 16 bits and wraps.
 */
static bool vcpu_window_emulate(struct vcpu *v)
{
	uint64_t cs = vmcs_read(VMCS_GUEST_CS_SELECTOR), ip = vmcs_read(VMCS_GUEST_RIP) & 0xffff;
	uint64_t linear = vmcs_read(VMCS_GUEST_CS_BASE) + ip;
	uint8_t code[REALMODE_MAX_LENGTH];
	unsigned int len = REALMODE_MAX_LENGTH;
	const uint8_t *text = NULL;
	struct realmode_insn insn;
	enum realmode_status status;
	uint64_t interruptibility;

	while (len && !(text = guest_gpa_to_host(v->guest, linear, len)))
		len--;
	if (len)
		memcpy(code, text, len);
	status = realmode_decode(code, len, &insn);
	if (status != REALMODE_OK) {
		char bytes[3 * 6 + 1] = "";

		for (unsigned int i = 0; i < len && i < 6; i++)
			snprintf(bytes + 3 * i, sizeof(bytes) - 3 * i, " %02x", code[i]);
		return vcpu_fail(v, "#GP at %04lx:%04lx in real mode,%s: %s", cs, ip,
				 len ? bytes : " no RAM", realmode_status_name(status));
	}
	if (!vcpu_window_run(v, &insn))
		return false;
	vmcs_write(VMCS_GUEST_RIP, (ip + insn.length) & 0xffff);
	/* Emulating the instruction ends an STI or MOV SS shadow (§26.7.1.2). */
	interruptibility = vmcs_read(VMCS_GUEST_INTERRUPTIBILITY);
	vmcs_write(VMCS_GUEST_INTERRUPTIBILITY, interruptibility &
		   ~(uint64_t)(INTERRUPTIBILITY_STI | INTERRUPTIBILITY_MOV_SS));
	return true;
}

bool vcpu_window_exception(struct vcpu *v)
{
	uint32_t info = (uint32_t)vmcs_read(VMCS_EXIT_INTR_INFO);
	unsigned int vector = info & 0xff;

	if (!v->window.active)
		return vcpu_fail(v, "exception %u exit outside the start window", vector);
	if (vmcs_read(VMCS_IDT_VECTORING_INFO) & INTR_INFO_VALID)
		return vcpu_fail(v, "exception %u while delivering an event in the start window",
				 vector);
	if (vector == VECTOR_GP && (vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_VM))
		return vcpu_window_emulate(v);
	return vcpu_fail(v, "exception %u in the start window, error code %#lx", vector,
			 info & INTR_INFO_ERROR_CODE ? vmcs_read(VMCS_EXIT_INTR_ERROR) : 0ul);
}
