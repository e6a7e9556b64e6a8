/* SPDX-License-Identifier: MIT */
/*
 * test_fair.c - unit tests for hv/net/fair.c: sources take turns of a
 * quantum up to their budget, a dry source leaves the pass, the pass stops
 * at its total, the first source rotates, and a flooding port shares a
 * receiver evenly with a quiet one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/fair.h"

#define SOURCES		4
#define CALLS_MAX	64

/* Fake sources: pending packets each, every call recorded. */
struct fake {
	unsigned int pending[SOURCES];
	unsigned int calls;
	unsigned int call_source[CALLS_MAX];
	unsigned int call_max[CALLS_MAX];
	/* A receiver all sources send to, with room for so many per pass. */
	unsigned int room;
	unsigned int delivered[SOURCES];
};

static unsigned int fake_poll(void *ctx, unsigned int source, unsigned int max)
{
	struct fake *f = ctx;
	unsigned int n = f->pending[source] < max ? f->pending[source] : max;

	if (f->calls < CALLS_MAX) {
		f->call_source[f->calls] = source;
		f->call_max[f->calls] = max;
	}
	f->calls++;
	f->pending[source] -= n;
	for (unsigned int i = 0; i < n && f->room; i++, f->room--)
		f->delivered[source]++;
	return n;
}

static struct net_fair_pass pass_of(struct fake *f, unsigned int sources, unsigned int quantum,
				    unsigned int budget, unsigned int total)
{
	return (struct net_fair_pass){ sources, quantum, budget, total, fake_poll, f };
}

static void assert_calls(const struct fake *f, const unsigned int (*expected)[2],
			 unsigned int count)
{
	assert_int_equal(f->calls, count);
	for (unsigned int i = 0; i < count; i++) {
		if (f->call_source[i] != expected[i][0] || f->call_max[i] != expected[i][1])
			fail_msg("call %u: source %u max %u, expected source %u max %u", i,
				 f->call_source[i], f->call_max[i], expected[i][0], expected[i][1]);
	}
}

static void test_turns_up_to_budget(void **state)
{
	struct fake f = { .pending = { 100, 100, 100 } };
	const struct net_fair_pass pass = pass_of(&f, 3, 8, 20, 1000);
	const unsigned int expected[][2] = {
		{ 0, 8 }, { 1, 8 }, { 2, 8 }, { 0, 8 }, { 1, 8 }, { 2, 8 },
		{ 0, 4 }, { 1, 4 }, { 2, 4 },
	};
	unsigned int start = 0, batches;

	(void)state;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 60);
	assert_calls(&f, expected, 9);
	assert_int_equal(batches, 3);
	assert_int_equal(f.pending[0], 80);
	assert_int_equal(start, 1);
}

static void test_dry_source_leaves_the_pass(void **state)
{
	struct fake f = { .pending = { 3, 0, 50 } };
	const struct net_fair_pass pass = pass_of(&f, 3, 8, 32, 1000);
	const unsigned int expected[][2] = {
		{ 0, 8 }, { 1, 8 }, { 2, 8 }, { 2, 8 }, { 2, 8 }, { 2, 8 },
	};
	unsigned int start = 0, batches;

	(void)state;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 35);
	assert_calls(&f, expected, 6);
	assert_int_equal(batches, 2);
}

static void test_total_bounds_the_pass(void **state)
{
	struct fake f = { .pending = { 100, 100 } };
	const struct net_fair_pass pass = pass_of(&f, 2, 1, 32, 5);
	const unsigned int expected[][2] = { { 1, 1 }, { 0, 1 }, { 1, 1 }, { 0, 1 }, { 1, 1 } };
	unsigned int start = 1, batches;

	(void)state;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 5);
	assert_calls(&f, expected, 5);
	assert_int_equal(f.pending[1], 97);
	assert_int_equal(start, 0);
}

static void test_first_source_rotates(void **state)
{
	struct fake f = { .pending = { 100, 100, 100, 100 } };
	const struct net_fair_pass pass = pass_of(&f, 3, 32, 32, 1000);
	unsigned int start = 0, batches;

	(void)state;
	for (unsigned int p = 0; p < 4; p++) {
		f.calls = 0;
		net_fair_run(&pass, &start, &batches);
		assert_int_equal(f.call_source[0], p % 3);
	}
	/* Fewer sources than before: the start wraps into range. */
	start = 7;
	f.calls = 0;
	net_fair_run(&pass, &start, &batches);
	assert_int_equal(f.call_source[0], 1);
	assert_int_equal(start, 2);
}

static void test_nothing_to_do(void **state)
{
	struct fake f = { .pending = { 0 } };
	struct net_fair_pass pass = pass_of(&f, 0, 8, 32, 1000);
	unsigned int start = 5, batches = 9;

	(void)state;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 0);
	assert_int_equal(batches, 0);
	assert_int_equal(f.calls, 0);
	pass = pass_of(&f, 2, 8, 32, 1000);
	assert_int_equal(net_fair_run(&pass, &start, &batches), 0);
	assert_int_equal(f.calls, 2);
	assert_int_equal(batches, 0);
}

/*
 * Port 0 floods, port 1 sends a batch's worth each pass; both send to a
 * receiver that has room for one batch per pass. Each gets half of it,
 * whichever port the pass starts with.
 */
static void test_flooder_shares_a_receiver(void **state)
{
	struct fake f = { .pending = { 1000000, 0 } };
	const struct net_fair_pass pass = pass_of(&f, 2, 8, 32, 64);
	unsigned int start = 0, batches;

	(void)state;
	for (unsigned int p = 0; p < 10; p++) {
		f.pending[1] = 32;
		f.room = 32;
		net_fair_run(&pass, &start, &batches);
	}
	assert_int_equal(f.delivered[0], 160);
	assert_int_equal(f.delivered[1], 160);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turns_up_to_budget),
		cmocka_unit_test(test_dry_source_leaves_the_pass),
		cmocka_unit_test(test_total_bounds_the_pass),
		cmocka_unit_test(test_first_source_rotates),
		cmocka_unit_test(test_nothing_to_do),
		cmocka_unit_test(test_flooder_shares_a_receiver),
	};

	return cmocka_run_group_tests_name("fair poll pass", tests, NULL, NULL);
}
