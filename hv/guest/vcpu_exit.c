/* SPDX-License-Identifier: MIT */
/*
 * vcpu_exit.c - VM-exit handlers (SDM Vol. 3C chapter 27 for the exit
 * information, appendix C for the reasons). Every exit is counted by the
 * run loop; a handler either emulates and returns to the guest, injects a
 * fault the real hardware would raise, or stops the guest with a reason.
 */
#include <stdarg.h>
#include <string.h>

#include "arch/console.h"
#include "arch/safe_insn.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "config/guest_layout.h"
#include "guest/guest.h"
#include "guest/guest_log.h"
#include "guest/guest_ports.h"
#include "guest/vcpu.h"
#include "lib/printf.h"
#include "vmx/cpuid_filter.h"
#include "vmx/decode.h"
#include "vmx/exit_rules.h"
#include "vmx/vmcs.h"

#define VECTOR_UD	6
#define VECTOR_GP	13

#define EFER_SCE		(1ull << 0)
#define EFER_LME		(1ull << 8)
#define EFER_LMA		(1ull << 10)
#define EFER_NXE		(1ull << 11)
#define CPUID_NX		(1u << 20)	/* CPUID.80000001H:EDX */
#define CS_AR_L			(1u << 13)	/* 64-bit code segment (§24.4.1) */

/* Exit qualification fields (§28.2.1, tables 28-3, 28-7). */
#define CR_ACCESS_CR(q)		((q) & 0xf)
#define CR_ACCESS_TYPE(q)	(((q) >> 4) & 3)
#define CR_ACCESS_GPR(q)	(((q) >> 8) & 0xf)
#define EPT_ACCESS_WRITE	(1u << 1)

bool vcpu_fail(struct vcpu *v, const char *fmt, ...)
{
	char reason[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	/* A guest that crashes in a loop pays a token for each report. */
	if (guest_log_allow(v->guest)) {
		printk("[%s] stopping: %s\n", v->guest->name, reason);
		vcpu_dump(v);
	}
	vcpu_stop(v, VCPU_STOP_CRASH, reason);
	return false;
}

/* CR4 as the guest set it: the shadow for the bits VMX owns, the real bits elsewhere. */
static uint64_t vcpu_guest_cr4(void)
{
	uint64_t mask = vmcs_read(VMCS_CR4_MASK);

	return (vmcs_read(VMCS_GUEST_CR4) & ~mask) | (vmcs_read(VMCS_CR4_READ_SHADOW) & mask);
}

static struct cpuid_filter_regs vcpu_host_cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid_regs r = cpuid(leaf, subleaf);

	return (struct cpuid_filter_regs){ r.eax, r.ebx, r.ecx, r.edx };
}

/*
 * The fewest low APIC ID bits that leave all the guest's vCPUs one package
 * ID: its cores' IDs are the host's (1 and 2, say), not 0..n-1.
 */
static uint32_t vcpu_core_id_bits(const struct guest *g)
{
	uint32_t bits = 0, differ = 0;

	for (unsigned int i = 1; i < g->vcpu_count; i++)
		differ |= g->vcpu[i].apic_id ^ g->vcpu[0].apic_id;
	while (bits < 32 && (differ >> bits))
		bits++;
	return bits;
}

/* The guest's CPUID for one leaf: the host's, through cpuid_filter_leaf(). */
static struct cpuid_filter_regs vcpu_guest_cpuid(const struct vcpu *v, uint32_t leaf,
						 uint32_t subleaf)
{
	struct cpuid_filter_regs host = vcpu_host_cpuid(leaf, subleaf);
	struct guest_cpu_model model = {
		.vcpu_count = v->guest->vcpu_count,
		.apic_id = v->apic_id,
		.core_id_bits = vcpu_core_id_bits(v->guest),
		.tsc_hz = tsc_hz(),
		.host_max_basic_leaf = cpuid(0, 0).eax,
		.host_max_extended_leaf = cpuid(0x80000000, 0).eax,
		.controls = v->cpu_controls,
		.host_leaf1 = vcpu_host_cpuid(1, 0),
	};

	if (model.host_max_basic_leaf >= 7)
		model.host_leaf7 = vcpu_host_cpuid(7, 0);
	return cpuid_filter_leaf(&model, vcpu_guest_cr4(), leaf, subleaf, &host);
}

uint64_t vcpu_cr4_allowed(struct vcpu *v)
{
	struct cpuid_filter_regs leaf1 = vcpu_guest_cpuid(v, 1, 0);
	struct cpuid_filter_regs leaf7 = vcpu_guest_cpuid(v, 7, 0);

	return exit_rules_cr4_allowed(&leaf1, &leaf7);
}

static bool vcpu_handle_cpuid(struct vcpu *v)
{
	struct cpuid_filter_regs out = vcpu_guest_cpuid(v, (uint32_t)v->regs.rax,
							(uint32_t)v->regs.rcx);

	v->regs.rax = out.eax;
	v->regs.rbx = out.ebx;
	v->regs.rcx = out.ecx;
	v->regs.rdx = out.edx;
	vmcs_skip_instruction();
	return true;
}

/*
 * EFER in the start window (hv/guest/vcpu_start.c): the guest's own until
 * it turns paging on, while the processor's keeps LME clear (§26.3.1.1).
 * SCE, LME and NXE where the guest's CPUID has NX are what it may set.
 */
static bool vcpu_window_efer(struct vcpu *v, bool write, uint64_t *value)
{
	uint64_t allowed = EFER_SCE | EFER_LME;

	if (!write) {
		*value = v->window.efer;
		return true;
	}
	if (vcpu_guest_cpuid(v, 0x80000001, 0).edx & CPUID_NX)
		allowed |= EFER_NXE;
	if (*value & ~allowed)
		return false;
	v->window.efer = *value;
	return true;
}

bool vcpu_msr_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	struct exit_msr_result r = exit_rules_rdmsr(msr, v->index == 0);

	if (v->window.active && msr == MSR_EFER)
		return vcpu_window_efer(v, false, value);
	switch (r.action) {
	case EXIT_MSR_X2APIC:
		return vcpu_apic_msr(v, msr, false, value);
	case EXIT_MSR_TSC:
		*value = rdtsc();	/* the core's: no TSC offset */
		return true;
	case EXIT_MSR_VALUE:
		*value = r.value;
		return true;
	default:
		return false;
	}
}

bool vcpu_msr_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
	if (v->window.active && msr == MSR_EFER)
		return vcpu_window_efer(v, true, &value);
	switch (exit_rules_wrmsr(msr, value)) {
	case EXIT_MSR_X2APIC:
		return vcpu_apic_msr(v, msr, true, &value);
	case EXIT_MSR_IGNORE:
		return true;
	default:
		return false;
	}
}

/* RDMSR of an intercepted MSR; exit_rules_rdmsr() says which and what. */
static bool vcpu_handle_rdmsr(struct vcpu *v)
{
	uint64_t value;

	if (!vcpu_msr_read(v, (uint32_t)v->regs.rcx, &value)) {
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	}
	v->regs.rax = (uint32_t)value;
	v->regs.rdx = value >> 32;
	vmcs_skip_instruction();
	return true;
}

/* WRMSR of an intercepted MSR; exit_rules_wrmsr() says whether and how. */
static bool vcpu_handle_wrmsr(struct vcpu *v)
{
	if (!vcpu_msr_write(v, (uint32_t)v->regs.rcx, (v->regs.rdx << 32) | (uint32_t)v->regs.rax)) {
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	}
	vmcs_skip_instruction();
	return true;
}

/*
 * Writes that change a CR0/CR4 bit the hypervisor owns land here
 * (exit_rules_cr4_owned()); the shadow keeps the guest's view and the CR
 * the value exit_rules_cr*_write() allows.
 */
static bool vcpu_handle_cr_access(struct vcpu *v)
{
	uint64_t q = vmcs_read(VMCS_EXIT_QUALIFICATION);
	uint64_t *gpr = vcpu_gpr(v, CR_ACCESS_GPR(q));
	uint64_t value = CR_ACCESS_GPR(q) == 4 ? vmcs_read(VMCS_GUEST_RSP) : *gpr;
	struct exit_cr_context ctx = {
		.cr3 = vmcs_read(VMCS_GUEST_CR3),
		.cr4 = vcpu_guest_cr4(),
		.long_mode = vmcs_read(VMCS_GUEST_IA32_EFER) & EFER_LMA,
		.code64 = vmcs_read(VMCS_GUEST_CS_AR) & CS_AR_L,
	};
	struct exit_cr_result r;
	uint32_t shadow, guest;

	if (CR_ACCESS_TYPE(q) != 0)
		return vcpu_fail(v, "unexpected CR access, qualification %#lx", q);

	switch (CR_ACCESS_CR(q)) {
	case 0:
		ctx.fixed0 = rdmsr(MSR_IA32_VMX_CR0_FIXED0);
		ctx.fixed1 = rdmsr(MSR_IA32_VMX_CR0_FIXED1);
		r = exit_rules_cr0_write(value, &ctx);
		shadow = VMCS_CR0_READ_SHADOW;
		guest = VMCS_GUEST_CR0;
		break;
	case 4:
		ctx.fixed0 = rdmsr(MSR_IA32_VMX_CR4_FIXED0);
		ctx.fixed1 = rdmsr(MSR_IA32_VMX_CR4_FIXED1);
		r = exit_rules_cr4_write(value, vcpu_cr4_allowed(v), &ctx);
		shadow = VMCS_CR4_READ_SHADOW;
		guest = VMCS_GUEST_CR4;
		break;
	default:
		return vcpu_fail(v, "unexpected write to CR%lu", CR_ACCESS_CR(q));
	}
	if (r.verdict == EXIT_CR_FAULT) {
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	}
	if (r.verdict != EXIT_CR_OK)
		return vcpu_fail(v, "CR%lu value %#lx cannot run under VMX", CR_ACCESS_CR(q),
				 value);
	vmcs_write(shadow, value);
	vmcs_write(guest, r.hw);
	vmcs_skip_instruction();
	return true;
}

static void vcpu_log_port_once(struct vcpu *v, uint16_t port, bool in)
{
	uint8_t bit = (uint8_t)(1u << (port % 8));

	/* Atomic: the guest's vCPUs share the bitmap, and a port is reported once. */
	if (__atomic_fetch_or(&v->guest->io_port_logged[port / 8], bit, __ATOMIC_RELAXED) & bit)
		return;
	guest_log(v->guest, "unclaimed i/o port %#x (%s): reads all ones, writes ignored\n",
		  port, in ? "in" : "out");
}

static uint32_t vcpu_io_in(struct vcpu *v, uint16_t port, unsigned int size)
{
	struct guest *g = v->guest;

	switch (exit_rules_io_device(&guest_io_map, port, size)) {
	case GUEST_IO_UART:
		return uart_read(&g->uart, port - UART_COM1_BASE);
	case GUEST_IO_PCI:
		return vpci_io_read(&g->pci, port, size);
	case GUEST_IO_SLEEP_CONTROL:
	case GUEST_IO_SLEEP_STATUS:
		return 0;
	default:
		vcpu_log_port_once(v, port, true);
		return 0xffffffff;
	}
}

static void vcpu_io_out(struct vcpu *v, uint16_t port, unsigned int size, uint32_t value)
{
	struct guest *g = v->guest;

	switch (exit_rules_io_device(&guest_io_map, port, size)) {
	case GUEST_IO_UART:
		uart_write(&g->uart, port - UART_COM1_BASE, (uint8_t)value);
		break;
	case GUEST_IO_PCI:
		vpci_io_write(&g->pci, port, size, value);
		break;
	case GUEST_IO_SLEEP_CONTROL:
		if (exit_rules_sleep_is_poweroff(value))
			vcpu_stop(v, VCPU_STOP_POWEROFF, "powered off");
		break;
	case GUEST_IO_COUNTERS:
		/* A dump is a few dozen lines: one of the guest's console tokens. */
		if (guest_log_allow(g))
			g->print_counters(value & 0xff);
		break;
	case GUEST_IO_SLEEP_STATUS:
		break;
	default:
		vcpu_log_port_once(v, port, false);
		break;
	}
}

static bool vcpu_handle_io(struct vcpu *v)
{
	struct exit_io_access a = exit_rules_io_decode(vmcs_read(VMCS_EXIT_QUALIFICATION));
	uint32_t mask = a.size == 4 ? 0xffffffffu : (1u << (8 * a.size)) - 1;

	if (!a.valid)
		return vcpu_fail(v, "i/o exit on port %#x with no defined size", a.port);
	if (a.string)
		return vcpu_fail(v, "string i/o on port %#x is not emulated", a.port);
	if (a.in) {
		uint32_t value = vcpu_io_in(v, a.port, a.size) & mask;

		v->regs.rax = a.size == 4 ? value : (v->regs.rax & ~(uint64_t)mask) | value;
	} else {
		vcpu_io_out(v, a.port, a.size, (uint32_t)v->regs.rax & mask);
	}
	vmcs_skip_instruction();
	return true;
}

/* Fetches and decodes the instruction at RIP that touched emulated memory. */
static bool vcpu_decode_mmio(struct vcpu *v, uint64_t gpa, struct decode_insn *insn)
{
	uint8_t code[DECODE_MAX_LENGTH];
	uint64_t rip = vmcs_read(VMCS_GUEST_RIP) + vmcs_read(VMCS_GUEST_CS_BASE);
	uint64_t cs_ar = vmcs_read(VMCS_GUEST_CS_AR);
	enum decode_mode mode = cs_ar & (1u << 13) ? DECODE_MODE_64 :
				cs_ar & (1u << 14) ? DECODE_MODE_32 : DECODE_MODE_16;
	unsigned int len = DECODE_MAX_LENGTH;
	enum decode_status status;
	enum gpt_status fetch;

	/* The decoder sees the register file with RSP in its slot. */
	v->regs.rsp = vmcs_read(VMCS_GUEST_RSP);
	/* Near the end of a mapping, fetch only what is there. */
	while (len && (fetch = vcpu_read_guest_virtual(v, rip, code, len)) != GPT_OK) {
		if (fetch == GPT_LEGACY_PAGING)
			return vcpu_fail(v, "access to %#lx at rip %#lx: 32-bit or PAE paging "
					 "not emulated", gpa, rip);
		len--;
	}
	status = decode_instruction(insn, code, len, mode);
	if (status != DECODE_OK)
		return vcpu_fail(v, "cannot emulate the access to %#lx at rip %#lx: %s",
				 gpa, rip, decode_status_name(status));
	return true;
}

/* Completes an emulated load; a load into RSP goes back to the VMCS. */
static void vcpu_mmio_load(struct vcpu *v, const struct decode_insn *insn, uint64_t value)
{
	decode_read_complete(insn, (uint64_t *)&v->regs, value);
	if (insn->reg == 4 && !insn->high_byte)
		vmcs_write(VMCS_GUEST_RSP, v->regs.rsp);
}

/* A BAR of an emulated PCI function: whichever registered device claims it. */
static bool vcpu_emulate_bar(struct vcpu *v, uint64_t gpa, const struct decode_insn *insn)
{
	uint64_t value = insn->write ? decode_write_value(insn, (uint64_t *)&v->regs) : 0;
	bool notify;

	if (!guest_device_mmio(v->guest, gpa, insn->size, insn->write, &value, &notify))
		return vcpu_fail(v, "access to %#lx, where no BAR is", gpa);
	if (insn->write)
		v->doorbells += notify;
	else
		vcpu_mmio_load(v, insn, value);
	return true;
}

static bool vcpu_handle_ept_violation(struct vcpu *v)
{
	uint64_t gpa = vmcs_read(VMCS_GUEST_PHYSICAL_ADDR);
	bool ecam = gpa >= GUEST_ECAM_GPA && gpa < GUEST_ECAM_GPA + GUEST_ECAM_SIZE;
	bool bar = gpa >= GUEST_PCI_MMIO_GPA && gpa < GUEST_PCI_MMIO_GPA + GUEST_PCI_MMIO_SIZE;
	struct decode_insn insn;

	if (!ecam && !bar)
		return vcpu_fail(v, "access to unmapped guest-physical address %#lx (%s)", gpa,
				 vmcs_read(VMCS_EXIT_QUALIFICATION) & EPT_ACCESS_WRITE ?
				 "write" : "read");
	if (!vcpu_decode_mmio(v, gpa, &insn))
		return false;
	if (bar) {
		if (!vcpu_emulate_bar(v, gpa, &insn))
			return false;
	} else if (insn.size > 4) {
		return vcpu_fail(v, "%u-byte PCI configuration access", insn.size);
	} else {
		if (insn.write)
			vpci_ecam_write(&v->guest->pci, gpa - GUEST_ECAM_GPA, insn.size,
				       (uint32_t)decode_write_value(&insn, (uint64_t *)&v->regs));
		else
			vcpu_mmio_load(v, &insn, vpci_ecam_read(&v->guest->pci,
							       gpa - GUEST_ECAM_GPA, insn.size));
	}
	vmcs_write(VMCS_GUEST_RIP, vmcs_read(VMCS_GUEST_RIP) + insn.length);
	return true;
}

/*
 * XSETBV runs in VMX root operation with the guest's value, so it is judged
 * first against the guest's CPUID leaf 0DH and the XCR0 rules
 * (exit_rules_xsetbv()). Should the processor still refuse it, the fault
 * ends at safe_xsetbv()'s fixup and stops this guest, not the machine.
 */
static bool vcpu_handle_xsetbv(struct vcpu *v)
{
	uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
	uint32_t xcr = (uint32_t)v->regs.rcx;
	struct cpuid_filter_regs guest = vcpu_guest_cpuid(v, 0xd, 0);
	struct cpuid_filter_regs host = vcpu_host_cpuid(0xd, 0);

	if (!exit_rules_xsetbv(xcr, value, exit_rules_xcr0_mask(&guest, &host))) {
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	}
	if (!safe_xsetbv(xcr, value))
		return vcpu_fail(v, "xsetbv of XCR%u value %#lx faulted in the hypervisor",
				 xcr, value);
	vmcs_skip_instruction();
	return true;
}

/*
 * An NMI exit is a kick (exceptions exit only in the start window). The
 * guest never takes an NMI, so it never blocks them; Bochs 2.7 saves the
 * exit's own blocking as the guest's, which would keep every later kick
 * out. The blocking the exit leaves in VMX root operation ends at an IRET.
 */
static bool vcpu_handle_kick(void)
{
	vmcs_write(VMCS_GUEST_INTERRUPTIBILITY,
		   vmcs_read(VMCS_GUEST_INTERRUPTIBILITY) & ~(uint64_t)INTERRUPTIBILITY_NMI);
	nmi_unblock();
	return true;
}

bool vcpu_handle_exit(struct vcpu *v, uint32_t reason)
{
	switch (reason) {
	case EXIT_REASON_EXCEPTION_NMI:
		if ((vmcs_read(VMCS_EXIT_INTR_INFO) & INTR_TYPE_MASK) != INTR_TYPE_NMI)
			return vcpu_window_exception(v);
		return vcpu_handle_kick();
	case EXIT_REASON_TRIPLE_FAULT:
		return vcpu_fail(v, "triple fault");
	case EXIT_REASON_CPUID:
		return vcpu_handle_cpuid(v);
	case EXIT_REASON_INVD:
	case EXIT_REASON_WBINVD:
		/* Guest RAM is write-back and coherent: nothing to flush for it. */
		vmcs_skip_instruction();
		return true;
	case EXIT_REASON_CR_ACCESS:
		if (v->window.active)
			return vcpu_window_cr_access(v);
		return vcpu_handle_cr_access(v);
	case EXIT_REASON_IO:
		return vcpu_handle_io(v);
	case EXIT_REASON_RDMSR:
		return vcpu_handle_rdmsr(v);
	case EXIT_REASON_WRMSR:
		return vcpu_handle_wrmsr(v);
	case EXIT_REASON_EPT_VIOLATION:
		return vcpu_handle_ept_violation(v);
	case EXIT_REASON_XSETBV:
		return vcpu_handle_xsetbv(v);
	case EXIT_REASON_VMCALL:
	case EXIT_REASON_MONITOR:
	case EXIT_REASON_MWAIT:
		vcpu_inject_exception(v, VECTOR_UD, false, 0);
		return true;
	case EXIT_REASON_RDPMC:
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	default:
		return vcpu_fail(v, "unhandled exit reason %u (%s), qualification %#lx",
				 reason, vmcs_exit_reason_name(reason),
				 vmcs_read(VMCS_EXIT_QUALIFICATION));
	}
}
