/* SPDX-License-Identifier: MIT */
/*
 * test_trap.c - unit tests for hv/arch/trap.c, the host IDT's choice for
 * every vector 0-255 with and without its bit in the local APIC's
 * in-service register: no guest interrupt reaches the panic path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "arch/idt.h"
#include "arch/trap.h"

static enum trap_action expected(unsigned int vector, bool in_service)
{
	if (vector == VECTOR_NMI)
		return TRAP_KICK;
	if (vector == VECTOR_SPURIOUS && !in_service)
		return TRAP_SPURIOUS;
	if (vector >= 32)
		return TRAP_INTERRUPT;
	return vector >= 16 && in_service ? TRAP_LATE_GUEST : TRAP_EXCEPTION;
}

static void test_every_vector(void **state)
{
	(void)state;
	for (unsigned int vector = 0; vector < 256; vector++)
		for (unsigned int bit = 0; bit < 2; bit++)
			assert_int_equal(trap_classify(vector, bit), expected(vector, bit));
	/* The in-service bit is read where it decides, and only there. */
	for (unsigned int vector = 0; vector < 256; vector++)
		assert_int_equal(trap_needs_isr(vector),
				 trap_classify(vector, false) != trap_classify(vector, true));
}

/* A guest's fixed interrupt on 0xff is in service and needs its EOI. */
static void test_spurious_vector(void **state)
{
	(void)state;
	assert_int_equal(trap_classify(VECTOR_SPURIOUS, false), TRAP_SPURIOUS);
	assert_int_equal(trap_classify(VECTOR_SPURIOUS, true), TRAP_INTERRUPT);
}

/*
 * The vectors whose exceptions push an error code, 17, 21, 29 and 30 among
 * them, are a guest's interrupt when the APIC has them in service, and an
 * exception (here never raised by the host) otherwise.
 */
static void test_error_code_vectors(void **state)
{
	static const unsigned int with_error[] = { 8, 10, 11, 12, 13, 14, 17, 21, 29, 30 };

	(void)state;
	for (unsigned int i = 0; i < sizeof(with_error) / sizeof(with_error[0]); i++) {
		unsigned int v = with_error[i];

		assert_int_equal(trap_classify(v, false), TRAP_EXCEPTION);
		assert_int_equal(trap_classify(v, true), v >= 16 ? TRAP_LATE_GUEST : TRAP_EXCEPTION);
	}
	/* The trigger: vector 0x10 from a sibling or SELF_IPI. */
	assert_int_equal(trap_classify(0x10, true), TRAP_LATE_GUEST);
	/* No vector outside 0-255 comes from a stub; none is an interrupt. */
	assert_int_equal(trap_classify(256, true), TRAP_EXCEPTION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_vector),
		cmocka_unit_test(test_error_code_vectors),
		cmocka_unit_test(test_spurious_vector),
	};

	return cmocka_run_group_tests_name("host IDT dispatch", tests, NULL, NULL);
}
