/* SPDX-License-Identifier: MIT */
/*
 * vcpu_exit.c - VM-exit handlers (SDM Vol. 3C chapter 27 for the exit
 * information, appendix C for the reasons). Every exit is counted by the
 * run loop; a handler either emulates and returns to the guest, injects a
 * fault the real hardware would raise, or stops the guest with a reason.
 */
#include <stdarg.h>
#include <string.h>

#include "arch/lapic.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "core/console.h"
#include "core/guests.h"
#include "lib/printf.h"
#include "vm/guest_layout.h"
#include "vm/vm.h"
#include "vmx/cpuid_filter.h"
#include "vmx/decode.h"
#include "vmx/vmcs.h"

#define VECTOR_UD	6
#define VECTOR_GP	13

#define MSR_IA32_TSC		0x010
#define MSR_IA32_PLATFORM_ID	0x017
#define MSR_IA32_TSC_ADJUST	0x03b
#define MSR_IA32_BIOS_SIGN_ID	0x08b	/* microcode revision */
#define MSR_IA32_MISC_ENABLE	0x1a0
#define APIC_BASE_BSP		(1ull << 8)
#define APIC_BASE_ENABLE	(1ull << 11)
#define MISC_ENABLE_FAST_STRINGS (1ull << 0)

#define SLEEP_ENABLE		(1u << 5)	/* ACPI 6.x §4.8.3.7 */
#define SLEEP_TYPE_SHIFT	2
#define SLEEP_TYPE_MASK		7u

/* Exit qualification fields (§28.2.1, tables 28-3, 28-5, 28-7). */
#define CR_ACCESS_CR(q)		((q) & 0xf)
#define CR_ACCESS_TYPE(q)	(((q) >> 4) & 3)
#define CR_ACCESS_GPR(q)	(((q) >> 8) & 0xf)
#define IO_SIZE(q)		(((q) & 7) + 1)
#define IO_IN			(1u << 3)
#define IO_STRING		(1u << 4)
#define IO_PORT(q)		((uint16_t)((q) >> 16))
#define EPT_ACCESS_WRITE	(1u << 1)
#define APIC_ACCESS_OFFSET(q)	((q) & 0xfff)
#define APIC_ACCESS_TYPE(q)	(((q) >> 12) & 0xf)
#define APIC_ACCESS_LINEAR_WRITE 1

static bool vcpu_fail(struct vcpu *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Stops the guest as crashed, with a reason and its register state. */
static bool vcpu_fail(struct vcpu *v, const char *fmt, ...)
{
	char reason[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	printk("[%s] stopping: %s\n", v->guest->name, reason);
	vcpu_dump(v);
	vcpu_stop(v, VCPU_STOP_CRASH, reason);
	return false;
}

/* CR4 as the guest set it: the shadow for the bits VMX owns, the real bits elsewhere. */
static uint64_t vcpu_guest_cr4(void)
{
	uint64_t mask = vmcs_read(VMCS_CR4_MASK);

	return (vmcs_read(VMCS_GUEST_CR4) & ~mask) | (vmcs_read(VMCS_CR4_READ_SHADOW) & mask);
}

static bool vcpu_handle_cpuid(struct vcpu *v)
{
	static uint32_t host_max_basic, host_max_extended;
	uint32_t leaf = (uint32_t)v->regs.rax, subleaf = (uint32_t)v->regs.rcx;
	struct cpuid_regs r = cpuid(leaf, subleaf);
	struct cpuid_filter_regs host = { r.eax, r.ebx, r.ecx, r.edx }, out;
	struct guest_cpu_model model;

	if (!host_max_basic) {
		host_max_extended = cpuid(0x80000000, 0).eax;
		host_max_basic = cpuid(0, 0).eax;
	}
	model = (struct guest_cpu_model){
		.vcpu_count = v->guest->vcpu_count,
		.apic_id = v->apic_id,
		.tsc_hz = tsc_hz(),
		.host_max_basic_leaf = host_max_basic,
		.host_max_extended_leaf = host_max_extended,
		.controls = v->cpu_controls,
	};
	out = cpuid_filter_leaf(&model, vcpu_guest_cr4(), leaf, subleaf, &host);
	v->regs.rax = out.eax;
	v->regs.rbx = out.ebx;
	v->regs.rcx = out.ecx;
	v->regs.rdx = out.edx;
	vmx_skip_instruction();
	return true;
}

/* MSRs a stock kernel reads without a fault handler, and the APIC timer. */
static bool vcpu_msr_read(struct vcpu *v, uint32_t msr, uint64_t *value)
{
	switch (msr) {
	case MSR_IA32_TSC:
		*value = vcpu_guest_tsc(v);
		return true;
	case MSR_IA32_TSC_ADJUST:
		/* The guest's adjustments are all there is between its TSC and the host's. */
		*value = v->tsc_offset;
		return true;
	case MSR_IA32_APIC_BASE:
		*value = GUEST_LAPIC_GPA | APIC_BASE_ENABLE | (v->index ? 0 : APIC_BASE_BSP);
		return true;
	case MSR_IA32_TSC_DEADLINE:
		*value = vlapic_read_tsc_deadline(&v->lapic);
		return true;
	case MSR_IA32_MISC_ENABLE:
		*value = MISC_ENABLE_FAST_STRINGS;
		return true;
	case MSR_IA32_FEATURE_CONTROL:
		*value = 1;	/* locked, VMX off */
		return true;
	case MSR_IA32_BIOS_SIGN_ID:
	case MSR_IA32_PLATFORM_ID:
		*value = 0;
		return true;
	default:
		return false;
	}
}

static bool vcpu_msr_write(struct vcpu *v, uint32_t msr, uint64_t value)
{
	switch (msr) {
	case MSR_IA32_TSC:	/* SDM Vol. 3B §18.17.3: a TSC write moves TSC_ADJUST too */
		vcpu_set_tsc_offset(v, value - rdtsc());
		return true;
	case MSR_IA32_TSC_ADJUST:
		vcpu_set_tsc_offset(v, value);
		return true;
	case MSR_IA32_TSC_DEADLINE:
		vlapic_write_tsc_deadline(&v->lapic, value);
		return true;
	case MSR_IA32_APIC_BASE:
		/* The APIC stays enabled, in xAPIC mode, at its address. */
		return (value & ~APIC_BASE_BSP) == (GUEST_LAPIC_GPA | APIC_BASE_ENABLE);
	case MSR_IA32_BIOS_SIGN_ID:	/* Linux clears it before reading the revision */
	case MSR_IA32_MISC_ENABLE:
		return true;
	default:
		return false;
	}
}

static bool vcpu_handle_rdmsr(struct vcpu *v)
{
	uint64_t value;

	if (!vcpu_msr_read(v, (uint32_t)v->regs.rcx, &value)) {
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	}
	v->regs.rax = (uint32_t)value;
	v->regs.rdx = value >> 32;
	vmx_skip_instruction();
	return true;
}

static bool vcpu_handle_wrmsr(struct vcpu *v)
{
	uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;

	if (!vcpu_msr_write(v, (uint32_t)v->regs.rcx, value)) {
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	}
	vmx_skip_instruction();
	return true;
}

/* Writes to CR0/CR4 bits that VMX owns land here; the shadow keeps the guest's view. */
static bool vcpu_handle_cr_access(struct vcpu *v)
{
	uint64_t q = vmcs_read(VMCS_EXIT_QUALIFICATION);
	uint64_t *gpr = vcpu_gpr(v, CR_ACCESS_GPR(q));
	uint64_t value = CR_ACCESS_GPR(q) == 4 ? vmcs_read(VMCS_GUEST_RSP) : *gpr;

	if (CR_ACCESS_TYPE(q) != 0)
		return vcpu_fail(v, "unexpected CR access, qualification %#lx", q);

	switch (CR_ACCESS_CR(q)) {
	case 0:
		vmcs_write(VMCS_CR0_READ_SHADOW, value);
		vmcs_write(VMCS_GUEST_CR0, (value | rdmsr(MSR_IA32_VMX_CR0_FIXED0)) &
					   rdmsr(MSR_IA32_VMX_CR0_FIXED1));
		break;
	case 4:
		if (value & CR4_VMXE) {
			vcpu_inject_exception(v, VECTOR_GP, true, 0);
			return true;
		}
		vmcs_write(VMCS_CR4_READ_SHADOW, value);
		vmcs_write(VMCS_GUEST_CR4, (value | rdmsr(MSR_IA32_VMX_CR4_FIXED0)) &
					   rdmsr(MSR_IA32_VMX_CR4_FIXED1));
		break;
	default:
		return vcpu_fail(v, "unexpected write to CR%lu", CR_ACCESS_CR(q));
	}
	vmx_skip_instruction();
	return true;
}

static void vcpu_log_port_once(struct vcpu *v, uint16_t port, bool in)
{
	uint8_t *logged = &v->guest->io_port_logged[port / 8];

	if (*logged & (1u << (port % 8)))
		return;
	*logged |= 1u << (port % 8);
	printk("[%s] unclaimed i/o port %#x (%s): reads all ones, writes ignored\n",
	       v->guest->name, port, in ? "in" : "out");
}

static uint32_t vcpu_io_in(struct vcpu *v, uint16_t port, unsigned int size)
{
	struct guest *g = v->guest;

	if (port >= UART_COM1_BASE && port < UART_COM1_BASE + UART_PORTS && size == 1)
		return uart_read(&g->uart, port - UART_COM1_BASE);
	if (port >= PCI_CONFIG_ADDRESS_PORT && port < PCI_CONFIG_DATA_PORT + 4) {
		uint32_t value;

		guest_pci_lock(g);
		value = pci_io_read(&g->pci, port, size);
		guest_pci_unlock(g);
		return value;
	}
	if (port == GUEST_SLEEP_CONTROL_PORT || port == GUEST_SLEEP_STATUS_PORT)
		return 0;
	vcpu_log_port_once(v, port, true);
	return 0xffffffff;
}

static void vcpu_io_out(struct vcpu *v, uint16_t port, unsigned int size, uint32_t value)
{
	struct guest *g = v->guest;

	if (port >= UART_COM1_BASE && port < UART_COM1_BASE + UART_PORTS && size == 1) {
		uart_write(&g->uart, port - UART_COM1_BASE, (uint8_t)value);
	} else if (port >= PCI_CONFIG_ADDRESS_PORT && port < PCI_CONFIG_DATA_PORT + 4) {
		guest_pci_lock(g);
		pci_io_write(&g->pci, port, size, value);
		guest_pci_unlock(g);
	} else if (port == GUEST_SLEEP_CONTROL_PORT) {
		if ((value & SLEEP_ENABLE) &&
		    ((value >> SLEEP_TYPE_SHIFT) & SLEEP_TYPE_MASK) == GUEST_SLP_TYP_S5)
			vcpu_stop(v, VCPU_STOP_POWEROFF, "powered off");
	} else if (port == GUEST_COUNTERS_PORT) {
		guests_print_counters(value & 0xff);
	} else if (port != GUEST_SLEEP_STATUS_PORT) {
		vcpu_log_port_once(v, port, false);
	}
}

static bool vcpu_handle_io(struct vcpu *v)
{
	uint64_t q = vmcs_read(VMCS_EXIT_QUALIFICATION);
	unsigned int size = IO_SIZE(q);
	uint32_t mask = size == 4 ? 0xffffffffu : (1u << (8 * size)) - 1;

	if (q & IO_STRING)
		return vcpu_fail(v, "string i/o on port %#x is not emulated", IO_PORT(q));
	if (q & IO_IN) {
		uint32_t value = vcpu_io_in(v, IO_PORT(q), size) & mask;

		v->regs.rax = size == 4 ? value : (v->regs.rax & ~(uint64_t)mask) | value;
	} else {
		vcpu_io_out(v, IO_PORT(q), size, (uint32_t)v->regs.rax & mask);
	}
	vmx_skip_instruction();
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

	/* The decoder sees the register file with RSP in its slot. */
	v->regs.rsp = vmcs_read(VMCS_GUEST_RSP);
	/* Near the end of a mapping, fetch only what is there. */
	while (len && !vcpu_read_guest_virtual(v, rip, code, len))
		len--;
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

static uint32_t vcpu_mmio_mask(unsigned int size)
{
	return size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
}

/* A BAR of an emulated PCI function: the guest's virtio-net device. */
static bool vcpu_emulate_bar(struct vcpu *v, uint64_t gpa, const struct decode_insn *insn)
{
	struct guest *g = v->guest;
	uint64_t value = insn->write ? decode_write_value(insn, (uint64_t *)&v->regs) : 0;
	bool notify;

	if (!g->has_net || !guest_net_mmio(&g->net, gpa, insn->size, insn->write, &value,
					   &notify))
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
		guest_pci_lock(v->guest);
		if (insn.write)
			pci_ecam_write(&v->guest->pci, gpa - GUEST_ECAM_GPA, insn.size,
				       (uint32_t)decode_write_value(&insn, (uint64_t *)&v->regs));
		else
			vcpu_mmio_load(v, &insn, pci_ecam_read(&v->guest->pci,
							       gpa - GUEST_ECAM_GPA, insn.size));
		guest_pci_unlock(v->guest);
	}
	vmcs_write(VMCS_GUEST_RIP, vmcs_read(VMCS_GUEST_RIP) + insn.length);
	return true;
}

/* A register write to the virtual APIC, from either exit that carries one. */
static void vcpu_apic_write(struct vcpu *v, uint32_t offset, uint32_t value)
{
	struct vlapic_ipi ipi = vlapic_write(&v->lapic, offset, value, vcpu_guest_tsc(v));

	if (ipi.valid)
		printk("[%s] IPI %#x to apic %u dropped: single-vCPU guest\n",
		       v->guest->name, ipi.icr_low, ipi.destination);
}

/* Without APIC-register virtualization every xAPIC access exits (§30.4.1). */
static bool vcpu_handle_apic_access(struct vcpu *v)
{
	uint64_t q = vmcs_read(VMCS_EXIT_QUALIFICATION);
	uint32_t offset = APIC_ACCESS_OFFSET(q);
	struct decode_insn insn;

	if (APIC_ACCESS_TYPE(q) > APIC_ACCESS_LINEAR_WRITE)
		return vcpu_fail(v, "APIC access of type %lu", APIC_ACCESS_TYPE(q));
	if (!vcpu_decode_mmio(v, GUEST_LAPIC_GPA + offset, &insn))
		return false;
	if (insn.write) {
		vcpu_apic_write(v, offset & ~0xfu,
				(uint32_t)decode_write_value(&insn, (uint64_t *)&v->regs));
	} else {
		vcpu_mmio_load(v, &insn, vlapic_read(&v->lapic, offset & ~0xfu, vcpu_guest_tsc(v)) &
				     vcpu_mmio_mask(insn.size));
	}
	vmcs_write(VMCS_GUEST_RIP, vmcs_read(VMCS_GUEST_RIP) + insn.length);
	return true;
}

/* Trap-like: the write is already in the virtual-APIC page (§30.4.3.3). */
static bool vcpu_handle_apic_write(struct vcpu *v)
{
	uint32_t offset = APIC_ACCESS_OFFSET(vmcs_read(VMCS_EXIT_QUALIFICATION)) & ~0xfu;

	vcpu_apic_write(v, offset, v->lapic.page[offset / 4]);
	return true;
}

/*
 * HLT: the core sleeps until the guest's APIC has something to deliver,
 * woken by the host LAPIC timer at the guest's deadline or by an IPI.
 */
static bool vcpu_handle_hlt(struct vcpu *v)
{
	vmx_skip_instruction();
	if (!(vmcs_read(VMCS_GUEST_RFLAGS) & RFLAGS_IF)) {
		vcpu_stop(v, VCPU_STOP_POWEROFF, "halted with interrupts disabled");
		return false;
	}
	for (;;) {
		vcpu_collect_posted(v);
		vlapic_timer_poll(&v->lapic, vcpu_guest_tsc(v));
		if (vlapic_pending(&v->lapic) >= 0 || v->stop != VCPU_STOP_NONE)
			break;
		if (v->lapic.timer_deadline)
			lapic_timer_arm(v->lapic.timer_deadline - v->tsc_offset);
		cpu_idle();
	}
	lapic_timer_disarm();
	return true;
}

/* XCR0 must name x87, keep AVX with SSE, and stay within what the CPU has (§13.3). */
static bool vcpu_handle_xsetbv(struct vcpu *v)
{
	uint64_t value = (v->regs.rdx << 32) | (uint32_t)v->regs.rax;
	struct cpuid_regs xsave = cpuid(0xd, 0);
	uint64_t supported = ((uint64_t)xsave.edx << 32) | xsave.eax;

	if ((uint32_t)v->regs.rcx != 0 || !(value & 1) || (value & ~supported) ||
	    ((value & 4) && !(value & 2))) {
		vcpu_inject_exception(v, VECTOR_GP, true, 0);
		return true;
	}
	asm volatile("xsetbv" : : "c"(0), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)));
	vmx_skip_instruction();
	return true;
}

bool vcpu_handle_exit(struct vcpu *v, uint32_t reason)
{
	switch (reason) {
	case EXIT_REASON_EXTERNAL_INTERRUPT:
		/* Acknowledged on exit: the host's own timer or wake-up IPI. */
		lapic_eoi();
		return true;
	case EXIT_REASON_INTERRUPT_WINDOW:
	case EXIT_REASON_PREEMPTION_TIMER:
	case EXIT_REASON_TPR_BELOW_THRESHOLD:
		return true;	/* the run loop delivers what is pending */
	case EXIT_REASON_EXCEPTION_NMI:
		return true;	/* a host NMI: nothing to forward */
	case EXIT_REASON_TRIPLE_FAULT:
		return vcpu_fail(v, "triple fault");
	case EXIT_REASON_CPUID:
		return vcpu_handle_cpuid(v);
	case EXIT_REASON_HLT:
		return vcpu_handle_hlt(v);
	case EXIT_REASON_INVD:
	case EXIT_REASON_WBINVD:
		/* Guest RAM is write-back and coherent: nothing to flush for it. */
		vmx_skip_instruction();
		return true;
	case EXIT_REASON_CR_ACCESS:
		return vcpu_handle_cr_access(v);
	case EXIT_REASON_IO:
		return vcpu_handle_io(v);
	case EXIT_REASON_RDMSR:
		return vcpu_handle_rdmsr(v);
	case EXIT_REASON_WRMSR:
		return vcpu_handle_wrmsr(v);
	case EXIT_REASON_APIC_ACCESS:
		return vcpu_handle_apic_access(v);
	case EXIT_REASON_APIC_WRITE:
		return vcpu_handle_apic_write(v);
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
