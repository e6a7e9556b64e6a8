/* SPDX-License-Identifier: MIT */
/* idt.h - interrupt descriptor table shared by every CPU. */
#ifndef SIDECORE_ARCH_IDT_H
#define SIDECORE_ARCH_IDT_H

#include <stdint.h>

/* Vectors the hypervisor owns; exceptions take 0-31. */
#define VECTOR_NMI	2	/* a kick (arch/kick.c) */
#define VECTOR_TIMER	0xef	/* host LAPIC timer */
#define VECTOR_WAKEUP	0xf0	/* IPI that only ends a HLT */
#define VECTOR_CONSOLE	0xf1	/* the console UART: the operator typed (arch/console.c) */
#define VECTOR_SPURIOUS	0xff

/* Register state saved by the entry stubs, lowest address first. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error_code;
	uint64_t rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

/**
 * idt_init() - build the interrupt descriptor table
 *
 * Runs once, on the BSP, before any CPU loads the table: one gate per
 * exception and one per vector the hypervisor owns.
 */
void idt_init(void);

/**
 * idt_load() - load the shared table into this CPU's IDTR
 *
 * Every CPU calls it, after idt_init() has run on the BSP.
 */
void idt_load(void);

#endif
