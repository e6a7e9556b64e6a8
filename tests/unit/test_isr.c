/* SPDX-License-Identifier: MIT */
/*
 * test_isr.c - runs the real entry stubs (hv/arch/isr.S) in user mode: a
 * frame laid out as the CPU lays it out in 64-bit mode, with and without
 * an error code, enters each vector's stub, reaches idt_dispatch() (this
 * file's) with the vector and error code in their places, and returns
 * through the stubs' IRETQ, which user mode may execute to its own level.
 * A guest's interrupt on an exception vector whose exception pushes an
 * error code (17, 21, 29, 30) must not be misread.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "arch/idt.h"

#define STUB_SIZE 16	/* .balign 16 in isr.S */

extern const char isr_stubs[];

void idt_dispatch(struct trap_frame *f);

/* Volatile: only the stubs call the handler, which the compiler cannot see. */
static volatile struct trap_frame seen;
static volatile unsigned int calls;

void idt_dispatch(struct trap_frame *f)
{
	seen = *f;
	calls = calls + 1;
}

/*
 * Enters a stub as the CPU does (SDM Vol. 3A §6.14.2): RSP aligned to 16,
 * then SS, RSP, RFLAGS, CS, RIP and, for an exception that has one, the
 * error code. The red zone below RSP is stepped over first.
 */
static void enter(unsigned int vector, bool with_error, uint64_t error)
{
	const char *stub = isr_stubs + vector * STUB_SIZE;

	asm volatile("mov %%rsp, %%r11\n\t"
		     "lea -128(%%rsp), %%rsp\n\t"
		     "and $-16, %%rsp\n\t"
		     "mov %%ss, %%eax\n\t"
		     "push %%rax\n\t"
		     "push %%r11\n\t"
		     "pushfq\n\t"
		     "mov %%cs, %%eax\n\t"
		     "push %%rax\n\t"
		     "lea 1f(%%rip), %%rax\n\t"
		     "push %%rax\n\t"
		     "test %[with], %[with]\n\t"
		     "jz 2f\n\t"
		     "push %[error]\n\t"
		     "2:\n\t"
		     "jmp *%[stub]\n\t"
		     "1:"
		     :
		     : [stub] "r"(stub), [with] "r"((uint64_t)with_error), [error] "r"(error)
		     : "rax", "r11", "memory", "cc");
}

static uint64_t segment_cs(void)
{
	uint64_t cs = 0;

	asm volatile("mov %%cs, %%eax" : "=a"(cs));
	return cs;
}

static void test_every_vector(void **state)
{
	(void)state;
	for (unsigned int vector = 0; vector < 256; vector++) {
		for (unsigned int with_error = 0; with_error < 2; with_error++) {
			uint64_t error = with_error ? 0x5a5a0000u | vector : 0;

			calls = 0;
			enter(vector, with_error, error);
			assert_int_equal(calls, 1);
			assert_int_equal(seen.vector, vector);
			assert_int_equal(seen.error_code, error);
			assert_int_equal(seen.cs, segment_cs());
		}
	}
}

/* Registers reach the handler as they were, and come back unchanged. */
static void test_registers_kept(void **state)
{
	uint64_t rbx = 0x1111, r12 = 0x2222, r15 = 0x3333;

	(void)state;
	asm volatile("" : "+r"(rbx), "+r"(r12), "+r"(r15));
	enter(17, false, 0);
	asm volatile("" : "+r"(rbx), "+r"(r12), "+r"(r15));
	assert_int_equal(rbx, 0x1111);
	assert_int_equal(r12, 0x2222);
	assert_int_equal(r15, 0x3333);
	assert_int_equal(seen.vector, 17);
	assert_int_equal(seen.error_code, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_vector),
		cmocka_unit_test(test_registers_kept),
	};

	return cmocka_run_group_tests_name("host IDT entry stubs", tests, NULL, NULL);
}
