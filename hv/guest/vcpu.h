/* SPDX-License-Identifier: MIT */
/*
 * vcpu.h - a guest's vCPU: its state, its run loop and its exit handlers.
 * Each vCPU is pinned to a core of its own and owns that core's local APIC
 * (docs/vmx.md); its guest is in guest.h.
 */
#ifndef SIDECORE_GUEST_VCPU_H
#define SIDECORE_GUEST_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "vmx/apic_direct.h"
#include "vmx/gpt_walk.h"
#include "vmx/vmcs.h"

/* Layout fixed by vmx_entry.S. */
struct guest_regs {
	uint64_t rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi;
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
};

/* Why a vCPU left its run loop. */
enum vcpu_stop {
	VCPU_STOP_NONE,
	VCPU_STOP_POWEROFF,
	VCPU_STOP_CRASH,
	VCPU_STOP_REQUEST,	/* the operator asked (guest_request()) */
};

/* What the operator asks of a guest's vCPUs (docs/operator.md). */
enum guest_request {
	GUEST_REQUEST_NONE,
	GUEST_REQUEST_STOP,	/* leave the guest; wait for a restart */
	GUEST_REQUEST_RESTART,	/* leave or leave the wait, reload, run */
	GUEST_REQUEST_CRASH,	/* to vCPU 0: another vCPU crashed, end the life as crashed */
};

struct guest;

struct vcpu {
	struct guest *guest;
	unsigned int index;
	unsigned int cpu;		/* the physical core it is pinned to */
	uint32_t apic_id;		/* its core's, which the guest reads */
	uint16_t vpid;
	struct guest_regs regs;
	bool launched;
	/*
	 * A vCPU but the first starts when another vCPU of its guest sends it
	 * a SIPI (guest_start_vcpu(), guest.life). real_mode: it was entered
	 * in real mode, so CR0.PE and PG are the guest's own (unrestricted
	 * guest, docs/vmx.md "Secondary vCPUs").
	 */
	bool real_mode;
	/*
	 * Without unrestricted guest a started vCPU runs from its SIPI to
	 * long mode in the start window (hv/guest/vcpu_start.c): virtual-8086
	 * mode, then protected mode, on the hypervisor's identity page
	 * directory, with the guest's CR3 and EFER kept here and its CR0 and
	 * CR4 in the read shadows. proc_controls: the processor-based
	 * controls the vCPU returns to when the window closes.
	 */
	struct vcpu_window {
		bool active;
		uint64_t cr3;
		uint64_t efer;
		uint64_t proc_controls;
	} window;

	uint64_t vmcs;			/* host-physical pages, identity-mapped */
	uint64_t msr_bitmap;
	uint64_t io_bitmap;		/* two pages: A then B */
	uint32_t cpu_controls;		/* GUEST_CPU_*: instructions VMX lets through */
	/*
	 * The vCPU owns its core's local APIC, seen as x2APIC: interrupts,
	 * timer and HLT stay in the guest (docs/vmx.md, "Direct interrupts").
	 * lvt_shadow holds the LVT entries the guest sees but the core never
	 * gets. On an xAPIC host timer_initial is the initial count the guest
	 * wrote; the core's own is scaled to its timer's rate
	 * (hv/guest/vcpu_apic.c).
	 */
	uint32_t lvt_shadow[APIC_DIRECT_SHADOWS];
	uint32_t timer_initial;
	uint64_t ipis_refused;		/* ICR writes refused (apic_direct_ipi()) */
	uint64_t vectors_refused;	/* SELF_IPI and LVT timer writes refused */
	uint64_t irqs_sent;		/* vectors sent to the core for the guest */

	uint64_t exits[EXIT_REASON_COUNT];
	uint64_t exits_total;
	uint64_t exceptions_injected;
	uint64_t doorbells;		/* virtqueue notifications the guest wrote */
	enum vcpu_stop stop;
	char stop_reason[96];
	enum guest_request request;	/* set by guest_request() from another core */
};

/* vcpu.c: VMCS life cycle and the run loop. */

/**
 * vcpu_create() - allocate a vCPU's VMX pages
 * @v: the vCPU, with its guest set
 *
 * The VMCS and the MSR and I/O bitmaps come from the guest's node. Every
 * MSR exits but a few the hypervisor does not use and, on an x2APIC host,
 * the x2APIC registers that act only on the vCPU's own core; every I/O
 * port exits.
 *
 * Return: false if memory ran out.
 */
bool vcpu_create(struct vcpu *v);

/**
 * vcpu_reset() - make the vCPU's VMCS current and set it up for a new life
 * @v: the vCPU, on its own core with VMX enabled
 *
 * Clears and loads the VMCS, then has vmcs_setup() write it from the
 * guest's choices: the instructions its CPUID shows, the vCPU's bitmaps,
 * EPT and VPID, and the 64-bit Linux entry state the loader left in the
 * guest's boot fields. Resets the guest's view of its APIC
 * (vcpu_apic_reset()).
 *
 * Return: false, with the reason printed, if the VMCS cannot be loaded or
 * the CPU lacks a VMX control the hypervisor requires.
 */
bool vcpu_reset(struct vcpu *v);

/**
 * vcpu_setup_startup() - the state a SIPI leaves a processor in
 * @v: the vCPU, after vcpu_reset() on its own core
 * @vector: the SIPI's vector
 *
 * Real mode at CS:IP = vector << 8:0 with the other registers as INIT
 * leaves them (SDM Vol. 3A §9.1.1, Table 9-1), run with unrestricted
 * guest, which lets the guest own CR0.PE and CR0.PG (§26.3.1.1). Without
 * it, vcpu_window_enter() runs the real-mode part in virtual-8086 mode.
 *
 * Return: false, with the reason printed, if the vCPU cannot be started.
 */
bool vcpu_setup_startup(struct vcpu *v, uint8_t vector);

/**
 * vcpu_msr_exits() - make RDMSR and WRMSR of one MSR exit, or pass
 * @v: the vCPU
 * @msr: the MSR
 * @exits: true: both exit; false: both pass through
 */
void vcpu_msr_exits(struct vcpu *v, uint32_t msr, bool exits);

/**
 * vcpu_window_enter() - start a vCPU in the start window
 * @v: the vCPU, after vcpu_reset() on its own core
 * @vector: the SIPI's vector
 *
 * For a host without unrestricted guest: the real-mode state of
 * vcpu_setup_startup() as a virtual-8086 task at CS = vector << 8, on an
 * identity page directory the hypervisor writes at GUEST_START_PD_GPA,
 * with every exception, CR0/CR4 write, CR3 access and EFER access exiting
 * (docs/vmx.md, "Secondary vCPUs").
 *
 * Return: false, with the reason printed, if the page directory's page is
 * not guest RAM.
 */
bool vcpu_window_enter(struct vcpu *v, uint8_t vector);

/**
 * vcpu_window_exception() - an exception exit
 * @v: the vCPU
 *
 * Only the start window intercepts exceptions. A #GP in virtual-8086 mode
 * is a privileged instruction of the trampoline (hv/vmx/realmode.h) and is
 * emulated; anything else stops the vCPU.
 *
 * Return: true to re-enter the guest, false when the vCPU was stopped.
 */
bool vcpu_window_exception(struct vcpu *v);

/**
 * vcpu_window_cr_access() - a control-register exit in the start window
 * @v: the vCPU, with v->window.active
 *
 * MOV to CR0/CR4 lands in the read shadows, MOV to and from CR3 in
 * v->window.cr3; setting CR0.PG with EFER.LME closes the window and enters
 * IA-32e mode.
 *
 * Return: true to re-enter the guest, false when the vCPU was stopped.
 */
bool vcpu_window_cr_access(struct vcpu *v);

/**
 * vcpu_fail() - stop a vCPU as crashed, with a reason and its register state
 * @v: the vCPU
 * @fmt: printf format of the reason
 *
 * Return: false, for the exit handler to return.
 */
bool vcpu_fail(struct vcpu *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * vcpu_cr4_allowed() - the CR4 bits the vCPU may set
 * @v: the vCPU
 *
 * Return: exit_rules_cr4_allowed() for the guest's CPUID leaves 1 and 7.
 */
uint64_t vcpu_cr4_allowed(struct vcpu *v);

/**
 * vcpu_msr_read() - RDMSR of an intercepted MSR, as the guest sees it
 * @v: the vCPU
 * @msr: ECX
 * @value: the value read
 *
 * Return: false where the processor would raise #GP.
 */
bool vcpu_msr_read(struct vcpu *v, uint32_t msr, uint64_t *value);

/**
 * vcpu_msr_write() - WRMSR of an intercepted MSR
 * @v: the vCPU
 * @msr: ECX
 * @value: EDX:EAX
 *
 * Return: false where the processor would raise #GP.
 */
bool vcpu_msr_write(struct vcpu *v, uint32_t msr, uint64_t value);

/**
 * vcpu_run() - enter the guest and handle its exits until the vCPU stops
 * @v: the vCPU, after vcpu_reset() on this core
 *
 * Before each entry, re-injects an event whose delivery an exit cut short;
 * the core's APIC delivers interrupts itself. A kick that comes after the
 * loop clears the core's kicked flag cancels the entry, and the loop goes
 * round to look at the operator's request.
 *
 * Return: why it stopped (never VCPU_STOP_NONE); v->stop_reason says more.
 */
enum vcpu_stop vcpu_run(struct vcpu *v);

/**
 * vcpu_stop() - make vcpu_run() return after the current exit
 * @v: the vCPU
 * @why: power-off or crash
 * @reason: text for the console, cut to fit v->stop_reason
 */
void vcpu_stop(struct vcpu *v, enum vcpu_stop why, const char *reason);

/**
 * vcpu_send_interrupt() - raise a vector in a vCPU's APIC from any core
 * @v: the vCPU
 * @vector: the vector to raise
 *
 * Sends it as a fixed IPI to the vCPU's core, whose APIC delivers it to
 * the guest, and counts it.
 */
void vcpu_send_interrupt(struct vcpu *v, uint8_t vector);

/**
 * vcpu_inject_exception() - deliver a hardware exception at the next entry
 * @v: the vCPU, whose VMCS is current
 * @vector: the exception vector
 * @has_error: whether the exception pushes an error code
 * @error: the error code, if it does
 *
 * For faults real hardware would raise on the instruction that exited, so
 * the caller leaves the guest's RIP on that instruction.
 */
void vcpu_inject_exception(struct vcpu *v, uint8_t vector, bool has_error, uint32_t error);

/**
 * vcpu_gpr() - a guest register by its instruction encoding
 * @v: the vCPU
 * @index: 0 (RAX) to 15 (R15), as ModRM and exit qualifications encode it;
 *	higher bits are ignored
 *
 * The RSP slot is not the guest's RSP, which lives in the VMCS; callers
 * that may name register 4 read the VMCS instead.
 *
 * Return: where the register is saved while the guest is out.
 */
uint64_t *vcpu_gpr(struct vcpu *v, unsigned int index);

/**
 * vcpu_dump() - print a vCPU's registers and the VMCS state behind a stop
 * @v: the vCPU, whose VMCS is current
 */
void vcpu_dump(struct vcpu *v);

/* vcpu_apic.c: the vCPU's x2APIC (docs/vmx.md, "Direct interrupts"). */

/**
 * vcpu_apic_reset() - the guest-visible state of a vCPU's APIC at power-on
 * @v: the vCPU
 */
void vcpu_apic_reset(struct vcpu *v);

/**
 * vcpu_apic_msr() - an intercepted RDMSR or WRMSR of an x2APIC register
 * @v: the vCPU, on its own core
 * @msr: the register
 * @write: WRMSR rather than RDMSR
 * @value: the value written, or where the value read goes
 *
 * Return: false when the access raises #GP.
 */
bool vcpu_apic_msr(struct vcpu *v, uint32_t msr, bool write, uint64_t *value);

/* vcpu_exit.c: one handler per exit reason. */

/**
 * vcpu_handle_exit() - handle one VM exit
 * @v: the vCPU that exited, on its own core
 * @reason: the basic exit reason (the low 16 bits of the VMCS field)
 *
 * Emulates the instruction and returns to the guest, injects the fault
 * real hardware would raise, or stops the vCPU with a reason.
 *
 * Return: false when the handler stopped the vCPU; the run loop itself goes
 * by v->stop, which a handled power-off also sets.
 */
bool vcpu_handle_exit(struct vcpu *v, uint32_t reason);

/* vcpu_memory.c: guest memory as the vCPU sees it. */

/**
 * vcpu_read_guest_virtual() - copy bytes from a guest-virtual address
 * @v: the vCPU, whose VMCS is current (its CR3 is used)
 * @gva: guest-virtual address to read from
 * @buf: where the bytes go
 * @len: how many bytes
 *
 * Walks the guest's page tables in the paging mode its CR0, CR4 and EFER
 * select (none at all is the identity), so the fetch of an instruction to
 * emulate sees what the guest sees.
 *
 * Return: GPT_OK, or why some byte is not mapped or not guest RAM;
 * GPT_LEGACY_PAGING under 32-bit or PAE paging, which are not walked.
 */
enum gpt_status vcpu_read_guest_virtual(struct vcpu *v, uint64_t gva, void *buf,
					unsigned int len);

#endif
