/* SPDX-License-Identifier: MIT */
/*
 * test_ratelimit.c - unit tests for hv/lib/ratelimit.c, the token bucket
 * that limits a guest's console lines: a full burst goes through, then one
 * event per interval; refused events are counted and handed to the next
 * allowed one; the bucket never holds more than its burst, a clock that
 * goes back earns nothing, and huge gaps do not overflow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/ratelimit.h"

#define BURST		5
#define INTERVAL	100

static void test_burst_then_refused(void **state)
{
	struct ratelimit rl;
	uint64_t suppressed = 99;

	(void)state;
	ratelimit_init(&rl, BURST, INTERVAL, 1000);
	for (int i = 0; i < BURST; i++) {
		assert_true(ratelimit_allow(&rl, 1000, &suppressed));
		assert_int_equal(suppressed, 0);
	}
	for (int i = 0; i < 7; i++)
		assert_false(ratelimit_allow(&rl, 1000 + INTERVAL - 1, &suppressed));
	assert_int_equal(rl.suppressed, 7);
	/* One interval after the burst earns one event, which learns of the seven. */
	assert_true(ratelimit_allow(&rl, 1000 + INTERVAL, &suppressed));
	assert_int_equal(suppressed, 7);
	assert_int_equal(rl.suppressed, 0);
	assert_false(ratelimit_allow(&rl, 1000 + INTERVAL, &suppressed));
}

/* Tokens come at the interval's pace, partial intervals carried over. */
static void test_refill_pace(void **state)
{
	struct ratelimit rl;
	uint64_t suppressed, now = 0;
	unsigned int allowed = 0;

	(void)state;
	ratelimit_init(&rl, BURST, INTERVAL, 0);
	for (int i = 0; i < BURST; i++)
		assert_true(ratelimit_allow(&rl, 0, &suppressed));
	/* Asking every 30 ticks for 100 intervals: exactly 100 more events. */
	while (now < 100 * INTERVAL) {
		now += 30;
		allowed += ratelimit_allow(&rl, now, &suppressed);
	}
	assert_int_equal(allowed, 100);
}

/* A long quiet spell refills to the burst, no further. */
static void test_refill_capped_at_burst(void **state)
{
	struct ratelimit rl;
	uint64_t suppressed;
	unsigned int allowed = 0;

	(void)state;
	ratelimit_init(&rl, BURST, INTERVAL, 0);
	for (int i = 0; i < BURST; i++)
		assert_true(ratelimit_allow(&rl, 0, &suppressed));
	for (int i = 0; i < 3 * BURST; i++)
		allowed += ratelimit_allow(&rl, 1000 * INTERVAL, &suppressed);
	assert_int_equal(allowed, BURST);
}

/* A full bucket left alone does not bank time for after it is spent. */
static void test_full_bucket_banks_nothing(void **state)
{
	struct ratelimit rl;
	uint64_t suppressed;

	(void)state;
	ratelimit_init(&rl, 1, INTERVAL, 0);
	assert_true(ratelimit_allow(&rl, 50 * INTERVAL, &suppressed));
	assert_false(ratelimit_allow(&rl, 50 * INTERVAL + INTERVAL - 1, &suppressed));
	assert_true(ratelimit_allow(&rl, 51 * INTERVAL, &suppressed));
}

/* A clock seen going back (another core's TSC) earns nothing and breaks nothing. */
static void test_clock_going_back(void **state)
{
	struct ratelimit rl;
	uint64_t suppressed;

	(void)state;
	ratelimit_init(&rl, 1, INTERVAL, 10 * INTERVAL);
	assert_true(ratelimit_allow(&rl, 10 * INTERVAL, &suppressed));
	assert_false(ratelimit_allow(&rl, 0, &suppressed));
	assert_false(ratelimit_allow(&rl, 10 * INTERVAL + INTERVAL - 1, &suppressed));
	assert_true(ratelimit_allow(&rl, 11 * INTERVAL, &suppressed));
	assert_int_equal(suppressed, 2);
}

/* The whole 64-bit range at once, and a zero interval, stay sane. */
static void test_extremes(void **state)
{
	struct ratelimit rl;
	uint64_t suppressed;

	(void)state;
	ratelimit_init(&rl, UINT32_MAX, 1, 0);
	rl.tokens = 0;
	assert_true(ratelimit_allow(&rl, UINT64_MAX, &suppressed));
	assert_int_equal(rl.tokens, UINT32_MAX - 1);

	ratelimit_init(&rl, 2, 0, 0);
	assert_int_equal(rl.interval, 1);
	assert_true(ratelimit_allow(&rl, 0, &suppressed));
	assert_true(ratelimit_allow(&rl, 0, &suppressed));
	assert_false(ratelimit_allow(&rl, 0, &suppressed));
	assert_true(ratelimit_allow(&rl, 1, &suppressed));

	ratelimit_init(&rl, 0, INTERVAL, 0);
	assert_false(ratelimit_allow(&rl, UINT64_MAX, &suppressed));
	assert_int_equal(rl.suppressed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_then_refused),
		cmocka_unit_test(test_refill_pace),
		cmocka_unit_test(test_refill_capped_at_burst),
		cmocka_unit_test(test_full_bucket_banks_nothing),
		cmocka_unit_test(test_clock_going_back),
		cmocka_unit_test(test_extremes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
