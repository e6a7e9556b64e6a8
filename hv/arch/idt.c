/* SPDX-License-Identifier: MIT */
/*
 * idt.c - an exception on an instruction the exception table lists resumes
 * at its fixup; any other prints the CPU state and stops the machine. The
 * wake-up and spurious vectors only acknowledge, and a guest's interrupt on
 * an exception vector is dropped (arch/trap.h).
 */
#include <stdint.h>

#include "arch/console.h"
#include "arch/extable.h"
#include "arch/idt.h"
#include "arch/kick.h"
#include "arch/lapic.h"
#include "arch/paging.h"
#include "arch/percpu.h"
#include "arch/trap.h"
#include "arch/x86.h"
#include "boot/boot.h"

#define STUB_SIZE 16		/* .balign 16 in isr.S */
#define VECTOR_UD 6
#define VECTOR_GP 13
#define VECTOR_PF 14
#define GATE_INTERRUPT 0x8e	/* present, DPL 0, 64-bit interrupt gate */

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __attribute__((packed));

extern const char isr_stubs[];

extern const struct extable_entry __extable_start[], __extable_end[];

static struct idt_gate idt[256] __attribute__((aligned(16)));

static const char *const exception_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range", "#UD invalid opcode",
	"#NM device not available", "#DF double fault", "coprocessor overrun",
	"#TS invalid TSS", "#NP segment not present", "#SS stack fault",
	"#GP general protection", "#PF page fault", "reserved",
	"#MF x87 error", "#AC alignment check", "#MC machine check",
	"#XM SIMD exception", "#VE virtualization exception",
	"#CP control protection",
};

static void idt_set_gate(unsigned int vector, const void *handler)
{
	uintptr_t addr = (uintptr_t)handler;

	idt[vector] = (struct idt_gate){
		.offset_low = addr & 0xffff,
		.selector = GDT_CODE64,
		.type = GATE_INTERRUPT,
		.offset_mid = (addr >> 16) & 0xffff,
		.offset_high = addr >> 32,
	};
}

void idt_init(void)
{
	for (unsigned int v = 0; v < 256; v++)
		idt_set_gate(v, isr_stubs + v * STUB_SIZE);
}

void idt_load(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) desc = { sizeof(idt) - 1, (uintptr_t)idt };

	asm volatile("lidt %0" : : "m"(desc));
}

static void idt_dump_exception(const struct trap_frame *f)
{
	const char *name = f->vector < 32 && exception_names[f->vector] ?
			   exception_names[f->vector] : "exception";

	printk("\nexception: cpu %u vector %lu (%s) error 0x%lx\n",
	       this_cpu()->cpu, f->vector, name, f->error_code);
	printk("  rip %016lx cs %04lx rflags %016lx\n", f->rip, f->cs, f->rflags);
	printk("  rsp %016lx ss %04lx cr2 %016lx cr3 %016lx\n",
	       f->rsp, f->ss, read_cr2(), read_cr3());
	printk("  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n",
	       f->rax, f->rbx, f->rcx, f->rdx);
	printk("  rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n",
	       f->rsi, f->rdi, f->rbp, f->r8);
	printk("  r9  %016lx r10 %016lx r11 %016lx r12 %016lx\n",
	       f->r9, f->r10, f->r11, f->r12);
	printk("  r13 %016lx r14 %016lx r15 %016lx\n", f->r13, f->r14, f->r15);
	/* The first 2 MiB are unmapped after boot (paging_unmap_page_zero()). */
	if (f->vector == VECTOR_PF && read_cr2() < PAGE_ZERO_END)
		printk("  NULL dereference: cr2 %#lx lies in the unmapped first 2 MiB\n", read_cr2());
}

void idt_dispatch(struct trap_frame *f);

void idt_dispatch(struct trap_frame *f)
{
	bool in_service = trap_needs_isr(f->vector) && lapic_in_service(f->vector);

	switch (trap_classify(f->vector, in_service)) {
	case TRAP_KICK:
		kick_nmi(f);
		return;
	case TRAP_SPURIOUS:
		return;
	case TRAP_LATE_GUEST:
		__atomic_fetch_add(&this_cpu()->late_vectors, 1, __ATOMIC_RELAXED);
		lapic_eoi();
		return;
	case TRAP_INTERRUPT:
		/* A sidecore samples its profile on its timer (docs/data-path.md). */
		if (f->vector == VECTOR_TIMER && this_cpu()->timer_tick)
			this_cpu()->timer_tick(f->rip);
		if (f->vector == VECTOR_CONSOLE)
			console_input_interrupt();
		/*
		 * Every other interrupt only wakes or is dropped: a wake-up IPI,
		 * or a guest's interrupt that reached its core after the guest
		 * left it (docs/vmx.md, "Direct interrupts").
		 */
		lapic_eoi();
		return;
	case TRAP_EXCEPTION:
		break;
	}
	/*
	 * #GP, #UD and #PF are faults: the saved RIP is the instruction itself
	 * (SDM Vol. 3A §6.5), which the table may list. An NMI or machine
	 * check that happens to interrupt a listed instruction is no failure
	 * of it, so only these vectors are looked up.
	 */
	if (f->vector == VECTOR_GP || f->vector == VECTOR_UD || f->vector == VECTOR_PF) {
		uint64_t fixup = extable_search(__extable_start, __extable_end, f->rip);

		if (fixup) {
			f->rip = fixup;
			return;
		}
	}

	idt_dump_exception(f);
	panic("unhandled exception on cpu %u", this_cpu()->cpu);
}
