/* SPDX-License-Identifier: MIT */
/*
 * test_fair.c - unit tests for hv/net/fair.c: sources take turns of a
 * quantum up to their budget, a dry source leaves the pass, the pass stops
 * at its total, the first source rotates, and a flooding port shares a
 * receiver evenly with a quiet one, only sources marked ready take turns;
 * with a meter, the bytes and segments a
 * source's packets cost end its turn, and a debt skips its next passes;
 * a lone ready source takes the same turns.
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
	/* With a meter: what one packet of each source costs, charged as it moves. */
	struct net_meter *meter;
	uint64_t full[NET_FAIR_WORDS];	/* the pass's marks of whole credit */
	uint32_t bytes[SOURCES];
	uint32_t segments[SOURCES];
};

static unsigned int fake_poll(void *ctx, unsigned int source, unsigned int max)
{
	struct fake *f = ctx;
	unsigned int n = 0;

	if (f->calls < CALLS_MAX) {
		f->call_source[f->calls] = source;
		f->call_max[f->calls] = max;
	}
	f->calls++;
	/* As a port does: no packet started once the meter is spent. */
	while (n < max && f->pending[source] && !net_meter_spent(f->meter)) {
		net_meter_charge(f->meter, f->bytes[source], f->segments[source]);
		f->pending[source]--;
		n++;
	}
	for (unsigned int i = 0; i < n && f->room; i++, f->room--)
		f->delivered[source]++;
	return n;
}

static struct net_fair_pass pass_of(struct fake *f, unsigned int sources, unsigned int quantum,
				    unsigned int budget, unsigned int total)
{
	return (struct net_fair_pass){
		.sources = sources,
		.quantum = quantum,
		.budget = budget,
		.total = total,
		.poll = fake_poll,
		.ctx = f,
	};
}

/* A metered pass: each source gains share bytes and segments per pass. */
static struct net_fair_pass metered_pass_of(struct fake *f, unsigned int sources,
					    struct net_meter *meter, struct net_meter *credit,
					    int64_t bytes, int64_t segments)
{
	struct net_fair_pass pass = pass_of(f, sources, 8, 32, 1000);

	f->meter = meter;
	pass.meter = meter;
	pass.credit = credit;
	pass.full = f->full;
	pass.share = (struct net_meter){ bytes, segments };
	return pass;
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

/*
 * Source 0's packets cost 50,000 bytes each, source 1's 100: with 65,536
 * bytes a pass, source 0 starts a second packet on what is left and owes
 * the overdraft to the next pass, source 1 moves its 32 packets.
 */
static void test_bytes_end_a_turn(void **state)
{
	struct fake f = { .pending = { 100, 100 }, .bytes = { 50000, 100 }, .segments = { 1, 1 } };
	struct net_meter meter = NET_METER_UNLIMITED, credit[2] = { { 0, 0 }, { 0, 0 } };
	const struct net_fair_pass pass = metered_pass_of(&f, 2, &meter, credit, 65536, 1024);
	unsigned int start = 0, batches;

	(void)state;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 34);
	assert_int_equal(f.pending[0], 98);
	assert_int_equal(f.pending[1], 68);
	assert_int_equal(credit[0].bytes, 65536 - 100000);
	assert_int_equal(meter.bytes, NET_METER_UNLIMITED.bytes);
	assert_int_equal(meter.segments, NET_METER_UNLIMITED.segments);
	/* 31,072 bytes of credit: one packet. */
	assert_int_equal(net_fair_run(&pass, &start, &batches), 33);
	assert_int_equal(f.pending[0], 97);
	assert_int_equal(credit[0].bytes, 65536 - 100000 + 65536 - 50000);
}

/*
 * A broadcast's copies cost 200,000 bytes: the source moves one, then is
 * asked for nothing (max 0, so that it can say it has work) until the
 * passes' credit has paid for it, and moves one again: one in three
 * passes, 65,536 bytes a pass on average.
 */
static void test_debt_skips_passes(void **state)
{
	struct fake f = { .pending = { 100 }, .bytes = { 200000 }, .segments = { 1 } };
	struct net_meter meter = NET_METER_UNLIMITED, credit[1] = { { 0, 0 } };
	const struct net_fair_pass pass = metered_pass_of(&f, 1, &meter, credit, 65536, 1024);
	const unsigned int moved[] = { 1, 0, 0, 1, 0, 0, 1, 0, 0 };
	unsigned int start = 0, batches;

	(void)state;
	for (unsigned int p = 0; p < sizeof(moved) / sizeof(moved[0]); p++) {
		f.calls = 0;
		assert_int_equal(net_fair_run(&pass, &start, &batches), moved[p]);
		assert_int_equal(f.calls, 1);
		assert_int_equal(f.call_max[0], moved[p] ? 8 : 0);
	}
	assert_int_equal(f.pending[0], 97);
}

/* Unused credit does not pile up: a quiet source gains one share at most. */
static void test_credit_does_not_pile_up(void **state)
{
	struct fake f = { .pending = { 0 }, .bytes = { 1000 }, .segments = { 1 } };
	struct net_meter meter = NET_METER_UNLIMITED, credit[1] = { { 0, 0 } };
	const struct net_fair_pass pass = metered_pass_of(&f, 1, &meter, credit, 4000, 1024);
	unsigned int start = 0, batches;

	(void)state;
	for (unsigned int p = 0; p < 10; p++)
		net_fair_run(&pass, &start, &batches);
	assert_int_equal(credit[0].bytes, 4000);
	f.pending[0] = 32;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 4);
}

/* Segments are a budget of their own: 64-segment packets, 1,024 segments a pass. */
static void test_segments_end_a_turn(void **state)
{
	struct fake f = { .pending = { 100 }, .bytes = { 60 }, .segments = { 64 } };
	struct net_meter meter = NET_METER_UNLIMITED, credit[1] = { { 0, 0 } };
	const struct net_fair_pass pass = metered_pass_of(&f, 1, &meter, credit, 65536, 1024);
	unsigned int start = 0, batches;

	(void)state;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 16);
	assert_int_equal(credit[0].segments, 0);
}

/*
 * Only the sources that spent are refilled: a whole credit is marked, an
 * idle pass leaves every mark, and a source that spends is marked again
 * once the passes have made its credit whole.
 */
static void test_refills_only_what_was_spent(void **state)
{
	struct fake f = { .pending = { 0, 0, 0 }, .bytes = { 3000, 3000, 3000 },
			  .segments = { 1, 1, 1 } };
	struct net_meter meter = NET_METER_UNLIMITED, credit[3] = { { 0, 0 } };
	const struct net_fair_pass pass = metered_pass_of(&f, 3, &meter, credit, 4000, 1024);
	unsigned int start = 0, batches;

	(void)state;
	net_fair_run(&pass, &start, &batches);
	assert_int_equal(f.full[0], 0x7);
	for (unsigned int p = 0; p < 3; p++)
		assert_int_equal(net_fair_run(&pass, &start, &batches), 0);
	assert_int_equal(f.full[0], 0x7);
	/* Source 1 sends two packets: 6,000 bytes, 2,000 of them owed. */
	f.pending[1] = 2;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 2);
	assert_int_equal(f.full[0], 0x5);
	assert_int_equal(credit[1].bytes, -2000);
	net_fair_run(&pass, &start, &batches);
	assert_int_equal(credit[1].bytes, 2000);
	assert_int_equal(f.full[0], 0x5);
	net_fair_run(&pass, &start, &batches);
	assert_int_equal(credit[1].bytes, 4000);
	assert_int_equal(f.full[0], 0x7);
}

/* Sources 0 and 2 are marked: 1 and 3, whatever they hold, get no turn. */
static void test_only_ready_sources_take_turns(void **state)
{
	struct fake f = { .pending = { 10, 10, 10, 10 } };
	const uint64_t ready[NET_FAIR_WORDS] = { 1u << 0 | 1u << 2 };
	struct net_fair_pass pass = pass_of(&f, 4, 8, 32, 1000);
	const unsigned int expected[][2] = { { 2, 8 }, { 0, 8 }, { 2, 8 }, { 0, 8 } };
	unsigned int start = 1, batches;

	(void)state;
	pass.ready = ready;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 20);
	assert_calls(&f, expected, 4);
	assert_int_equal(batches, 2);
	assert_int_equal(f.pending[1], 10);
	assert_int_equal(f.pending[3], 10);
	assert_int_equal(start, 2);
}

/*
 * None marked: no source is asked, the first source still moves on, and a
 * source that spent its credit still regains it, as in a pass of dry ones.
 */
static void test_nothing_ready_polls_nobody(void **state)
{
	struct fake f = { .pending = { 10, 10 } };
	const uint64_t ready[NET_FAIR_WORDS] = { 0 };
	struct net_meter meter = NET_METER_UNLIMITED;
	struct net_meter credit[2] = { { 100, 100 }, { -50, 100 } };
	struct net_fair_pass pass = metered_pass_of(&f, 2, &meter, credit, 100, 100);
	unsigned int start = 0, batches;

	(void)state;
	pass.ready = ready;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 0);
	assert_int_equal(f.calls, 0);
	assert_int_equal(batches, 0);
	assert_int_equal(start, 1);
	assert_int_equal(credit[1].bytes, 50);
	assert_int_equal(meter.bytes, NET_METER_UNLIMITED.bytes);
}

/*
 * A lone ready source takes the turns it would take among others: a
 * quantum each up to its budget, none after its credit is spent, and a
 * turn short of its quantum ends its pass.
 */
static void test_lone_source_takes_its_turns(void **state)
{
	struct fake f = { .pending = { 0, 0, 100, 0 }, .bytes = { 0, 0, 10, 0 },
			  .segments = { 1, 1, 1, 1 } };
	const uint64_t ready[NET_FAIR_WORDS] = { 1u << 2 };
	struct net_meter meter = NET_METER_UNLIMITED, credit[SOURCES] = { { 0, 0 } };
	struct net_fair_pass pass = metered_pass_of(&f, SOURCES, &meter, credit, 100000, 1024);
	const unsigned int whole[][2] = { { 2, 8 }, { 2, 8 }, { 2, 8 }, { 2, 8 } };
	const unsigned int spent[][2] = { { 2, 8 }, { 2, 8 } };
	unsigned int start = 3, batches;

	(void)state;
	pass.ready = ready;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 32);
	assert_calls(&f, whole, 4);
	assert_int_equal(batches, 1);
	assert_int_equal(start, 0);
	/* 150 bytes of credit a pass: the turn that spends it is the last. */
	f.calls = 0;
	f.bytes[2] = 10;
	pass.share = (struct net_meter){ 150, 1024 };
	credit[2] = (struct net_meter){ 0, 0 };
	f.full[0] = 0;
	assert_int_equal(net_fair_run(&pass, &start, &batches), 15);
	assert_calls(&f, spent, 2);
	assert_int_equal(credit[2].bytes, 0);
	/* Dry after 5: one short turn. */
	f.calls = 0;
	f.pending[2] = 5;
	credit[2] = (struct net_meter){ 150, 1024 };
	pass.share = (struct net_meter){ 100000, 1024 };
	assert_int_equal(net_fair_run(&pass, &start, &batches), 5);
	assert_int_equal(f.calls, 1);
	assert_int_equal(batches, 1);
	assert_int_equal(meter.bytes, NET_METER_UNLIMITED.bytes);
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
		cmocka_unit_test(test_bytes_end_a_turn),
		cmocka_unit_test(test_debt_skips_passes),
		cmocka_unit_test(test_credit_does_not_pile_up),
		cmocka_unit_test(test_segments_end_a_turn),
		cmocka_unit_test(test_refills_only_what_was_spent),
		cmocka_unit_test(test_only_ready_sources_take_turns),
		cmocka_unit_test(test_nothing_ready_polls_nobody),
		cmocka_unit_test(test_lone_source_takes_its_turns),
	};

	return cmocka_run_group_tests_name("fair poll pass", tests, NULL, NULL);
}
