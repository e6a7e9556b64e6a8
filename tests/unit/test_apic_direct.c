/* SPDX-License-Identifier: MIT */
/*
 * test_apic_direct.c - unit tests for hv/vmx/apic_direct.c: which x2APIC
 * registers a direct vCPU reaches without an exit, what the intercepted
 * ones do, and which IPIs it may send.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "vmx/apic_direct.h"

static void test_passthrough(void **state)
{
	static const uint32_t write_passes[] = {
		X2APIC_TPR, X2APIC_EOI, X2APIC_ESR, X2APIC_TIMER_ICR, X2APIC_TIMER_DCR,
		MSR_TSC_DEADLINE,
	};
	/* SELF_IPI and the LVT timer carry a vector: they exit to be checked. */
	static const uint32_t write_exits[] = {
		X2APIC_SELF_IPI, X2APIC_LVT_TIMER, X2APIC_ID, X2APIC_VERSION, X2APIC_PPR, X2APIC_LDR, X2APIC_SVR, X2APIC_ICR,
		X2APIC_LVT_CMCI, X2APIC_LVT_THERMAL, X2APIC_LVT_PMC, X2APIC_LVT_LINT0,
		X2APIC_LVT_LINT1, X2APIC_LVT_ERROR, X2APIC_TIMER_CCR, X2APIC_ISR0,
		X2APIC_IRR7, 0x801, 0x840, 0x8ff,
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(write_passes) / sizeof(write_passes[0]); i++)
		assert_true(apic_direct_passes(write_passes[i], true));
	for (unsigned int i = 0; i < sizeof(write_exits) / sizeof(write_exits[0]); i++)
		assert_false(apic_direct_passes(write_exits[i], true));
	/* Reads: every register but the shadowed LVTs and the write-only ones. */
	assert_true(apic_direct_passes(X2APIC_ID, false));
	assert_true(apic_direct_passes(X2APIC_ICR, false));
	assert_true(apic_direct_passes(X2APIC_ISR0 + 3, false));
	assert_true(apic_direct_passes(X2APIC_LVT_TIMER, false));
	assert_true(apic_direct_passes(MSR_TSC_DEADLINE, false));
	assert_false(apic_direct_passes(X2APIC_LVT_LINT0, false));
	assert_false(apic_direct_passes(X2APIC_LVT_PMC, false));
	assert_false(apic_direct_passes(X2APIC_EOI, false));
	assert_false(apic_direct_passes(0x801, false));
}

static void test_intercepted(void **state)
{
	unsigned int shadow = 99;

	(void)state;
	assert_int_equal(apic_direct_access(X2APIC_LVT_LINT1, true, 0x400, &shadow),
			 APIC_DIRECT_SHADOW);
	assert_int_equal(shadow, 4);
	assert_int_equal(apic_direct_access(X2APIC_LVT_CMCI, false, 0, &shadow),
			 APIC_DIRECT_SHADOW);
	assert_int_equal(shadow, 0);
	assert_int_equal(apic_direct_access(X2APIC_LVT_ERROR, true, 1ull << 32, &shadow),
			 APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_SVR, true, 0x1ff, &shadow), APIC_DIRECT_SVR);
	assert_int_equal(apic_direct_access(X2APIC_ICR, true, 0x30, &shadow), APIC_DIRECT_ICR);
	assert_int_equal(apic_direct_access(X2APIC_ICR, true, 0x30 | 1u << 13, &shadow),
			 APIC_DIRECT_FAULT);
	/* Read-only, write-only and absent registers. */
	assert_int_equal(apic_direct_access(X2APIC_ID, true, 0, &shadow), APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_LDR, true, 0, &shadow), APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_EOI, false, 0, &shadow), APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_SELF_IPI, false, 0, &shadow),
			 APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(0x801, false, 0, &shadow), APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_ID, false, 0, &shadow), APIC_DIRECT_PASS);
}

/* What passes on an x2APIC host is written for the guest on an xAPIC one. */
static void test_written_for_xapic_hosts(void **state)
{
	unsigned int shadow = 99;

	(void)state;
	assert_int_equal(apic_direct_access(X2APIC_EOI, true, 0, &shadow), APIC_DIRECT_WRITE);
	assert_int_equal(apic_direct_access(X2APIC_EOI, true, 1, &shadow), APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_ESR, true, 0, &shadow), APIC_DIRECT_WRITE);
	assert_int_equal(apic_direct_access(X2APIC_ESR, true, 4, &shadow), APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_TPR, true, 0xff, &shadow), APIC_DIRECT_WRITE);
	assert_int_equal(apic_direct_access(X2APIC_TPR, true, 0x100, &shadow), APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_SELF_IPI, true, 0xec, &shadow),
			 APIC_DIRECT_WRITE);
	assert_int_equal(apic_direct_access(X2APIC_SELF_IPI, true, 0x1ec, &shadow),
			 APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_TIMER_ICR, true, 0xffffffff, &shadow),
			 APIC_DIRECT_WRITE);
	assert_int_equal(apic_direct_access(X2APIC_TIMER_ICR, true, 1ull << 32, &shadow),
			 APIC_DIRECT_FAULT);
	assert_int_equal(apic_direct_access(X2APIC_LVT_TIMER, true, 0x200ef, &shadow),
			 APIC_DIRECT_WRITE);
	assert_int_equal(apic_direct_access(X2APIC_LVT_TIMER, true, 0x600ef, &shadow),
			 APIC_DIRECT_FAULT);	/* timer mode 11b is reserved */
	assert_int_equal(apic_direct_access(X2APIC_TIMER_DCR, true, 0xb, &shadow),
			 APIC_DIRECT_WRITE);
	/* Every write that passes on x2APIC hosts is one of these. */
	for (uint32_t msr = X2APIC_MSR_FIRST; msr <= X2APIC_MSR_LAST; msr++)
		if (apic_direct_passes(msr, true))
			assert_int_equal(apic_direct_access(msr, true, 0, &shadow),
					 APIC_DIRECT_WRITE);
	/*
	 * The timer keeps vector, mask and periodic mode; TSC-deadline mode
	 * only where the core's APIC is in x2APIC mode.
	 */
	assert_int_equal(apic_direct_timer_lvt(0xffffffffull, false), 0x300ff);
	assert_int_equal(apic_direct_timer_lvt(0x400ef, false), 0xef);
	assert_int_equal(apic_direct_timer_lvt(0x400ef, true), 0x400ef);
	assert_int_equal(apic_direct_timer_lvt(0xffffffffull, true), 0x700ff);
}

/* Every vector through SELF_IPI and the LVT timer: none below 32 is carried out. */
static void test_every_vector_written(void **state)
{
	unsigned int shadow = 99;

	(void)state;
	for (uint64_t vector = 0; vector < 256; vector++) {
		enum apic_direct_action want = vector < 32 ? APIC_DIRECT_REFUSE : APIC_DIRECT_WRITE;

		assert_int_equal(apic_direct_access(X2APIC_SELF_IPI, true, vector, &shadow), want);
		/* One-shot, periodic and TSC-deadline mode alike. */
		for (uint64_t mode = 0; mode < 3; mode++)
			assert_int_equal(apic_direct_access(X2APIC_LVT_TIMER, true,
							    mode << 17 | vector, &shadow),
					 want);
		/* A masked entry delivers nothing: Linux writes 0x10000 when it stops the timer. */
		assert_int_equal(apic_direct_access(X2APIC_LVT_TIMER, true, 0x10000 | vector,
						    &shadow),
				 APIC_DIRECT_WRITE);
	}
	assert_int_equal(apic_direct_access(X2APIC_SELF_IPI, true, 0x100, &shadow),
			 APIC_DIRECT_FAULT);
}

static void test_filters(void **state)
{
	(void)state;
	/* LVT: status and remote IRR are read-only, timer mode is the timer's own. */
	assert_int_equal(apic_direct_lvt(0xffffffffull), 0x1a7ff);
	assert_int_equal(apic_direct_lvt(APIC_DIRECT_LVT_MASKED | 0x31), 0x10031);
	/* SVR: vector, enable, EOI-broadcast suppression; no focus checking. */
	assert_int_equal(apic_direct_svr(0xffffffffull), 0x11ff);
}

static void test_ipi(void **state)
{
	static const uint32_t ids[] = { 4, 6, 0x13 };
	struct apic_direct_ipi ipi;

	(void)state;
	/* Fixed, physical, to a vCPU of the guest. */
	ipi = apic_direct_ipi(0x6ull << 32 | 0xfd, ids, 3, 0);
	assert_null(ipi.refused);
	assert_int_equal(ipi.kind, APIC_DIRECT_IPI_FIXED);
	assert_int_equal(ipi.vector, 0xfd);
	assert_int_equal(ipi.targets, 1u << 1);
	/* Shorthands: self, all, all but self. */
	ipi = apic_direct_ipi(1u << 18 | 0x40, ids, 3, 1);
	assert_null(ipi.refused);
	assert_int_equal(ipi.targets, 1u << 1);
	assert_int_equal(apic_direct_ipi(2u << 18 | 0x40, ids, 3, 0).targets, 7);
	assert_int_equal(apic_direct_ipi(3u << 18 | 0x40, ids, 3, 0).targets, 6);
	ipi = apic_direct_ipi(3u << 18 | 0x40, ids, 1, 0);
	assert_null(ipi.refused);
	assert_int_equal(ipi.targets, 0);
	/* Broadcast, physical or logical: the guest's vCPUs only. */
	assert_int_equal(apic_direct_ipi(0xffffffffull << 32 | 0x40, ids, 3, 0).targets, 7);
	assert_int_equal(apic_direct_ipi(0xffffffffull << 32 | 1u << 11 | 0x40, ids, 3, 0).targets,
			 7);
	/* Logical: cluster 0 bits 4 and 6 are vCPUs 0 and 1; cluster 1 bit 3 is 0x13. */
	ipi = apic_direct_ipi(0x50ull << 32 | 1u << 11 | 0x40, ids, 3, 2);
	assert_null(ipi.refused);
	assert_int_equal(ipi.targets, 3);
	assert_int_equal(apic_direct_ipi(0x10008ull << 32 | 1u << 11 | 0x40, ids, 3, 0).targets,
			 1u << 2);
	assert_non_null(apic_direct_ipi(0x20008ull << 32 | 1u << 11 | 0x40, ids, 3, 0).refused);
	/* INIT and SIPI: to one other vCPU of the guest, by physical ID. */
	ipi = apic_direct_ipi(6ull << 32 | 0xc500, ids, 3, 0);
	assert_null(ipi.refused);
	assert_int_equal(ipi.kind, APIC_DIRECT_IPI_INIT);
	assert_int_equal(ipi.targets, 1u << 1);
	ipi = apic_direct_ipi(0x13ull << 32 | 0x69a, ids, 3, 0);
	assert_null(ipi.refused);
	assert_int_equal(ipi.kind, APIC_DIRECT_IPI_STARTUP);
	assert_int_equal(ipi.vector, 0x9a);
	assert_int_equal(ipi.targets, 1u << 2);
	assert_non_null(apic_direct_ipi(4ull << 32 | 0x600, ids, 3, 0).refused);	/* itself */
	assert_non_null(apic_direct_ipi(5ull << 32 | 0x600, ids, 3, 0).refused);	/* foreign */
	assert_non_null(apic_direct_ipi(3u << 18 | 0x600, ids, 3, 0).refused);	/* all but self */
	assert_non_null(apic_direct_ipi(0x50ull << 32 | 1u << 11 | 0x500, ids, 3, 0).refused);
	/* Refused. */
	assert_non_null(apic_direct_ipi(5ull << 32 | 0x40, ids, 3, 0).refused);	/* foreign */
	assert_non_null(apic_direct_ipi(4ull << 32 | 0x400, ids, 3, 0).refused);	/* NMI */
	assert_non_null(apic_direct_ipi(4ull << 32 | 0x140, ids, 3, 0).refused);	/* lowest */
	assert_non_null(apic_direct_ipi(4ull << 32 | 0x0f, ids, 3, 0).refused);	/* vector */
	assert_non_null(apic_direct_ipi(4ull << 32 | 0x40, ids, 3, 3).refused);	/* no sender */
}

/*
 * Every vector, as a fixed IPI to itself (shorthand and by ID), to a
 * sibling, to all and to the broadcast ID: none below 32 is sent. INIT and
 * SIPI take their vector field as no vector and are judged on destination.
 */
static void test_ipi_every_vector(void **state)
{
	static const uint64_t fixed[] = {
		1u << 18, 4ull << 32, 6ull << 32, 2u << 18, 3u << 18, 0xffffffffull << 32,
		0x50ull << 32 | 1u << 11,
	};
	static const uint32_t ids[] = { 4, 6, 0x13 };

	(void)state;
	for (uint64_t vector = 0; vector < 256; vector++) {
		for (unsigned int i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
			struct apic_direct_ipi ipi = apic_direct_ipi(fixed[i] | vector, ids, 3, 0);

			if (vector < 32) {
				assert_non_null(ipi.refused);
				assert_string_equal(ipi.refused, "vector below 32");
				assert_int_equal(ipi.targets, 0);
			} else {
				assert_null(ipi.refused);
				assert_int_equal(ipi.vector, vector);
			}
		}
		assert_null(apic_direct_ipi(6ull << 32 | 0x600 | vector, ids, 3, 0).refused);
		/* Lowest priority, NMI and the rest are refused whatever the vector. */
		for (uint64_t mode = 1; mode < 8; mode++)
			if (mode != 5 && mode != 6)
				assert_non_null(apic_direct_ipi(6ull << 32 | mode << 8 | vector, ids,
								3, 0).refused);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passthrough),
		cmocka_unit_test(test_intercepted),
		cmocka_unit_test(test_written_for_xapic_hosts),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_ipi),
		cmocka_unit_test(test_every_vector_written),
		cmocka_unit_test(test_ipi_every_vector),
	};

	return cmocka_run_group_tests_name("x2APIC owned by a direct vCPU", tests, NULL, NULL);
}
