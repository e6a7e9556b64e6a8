/* SPDX-License-Identifier: MIT */
/*
 * test_tx_hold.c - unit tests for hv/virtio/tx_hold.h, the transmit
 * completions virtio-net's pairs and virtio-vsock hold back: which notes
 * ask for a flush, the deadline a flush starts, half a queue, the ride
 * along with a receive and the fresh holdoff after it, a hold that never
 * rides (vsock's), the port's earliest deadline and the reset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "virtio/tx_hold.h"

#define QSIZE		64
#define HOLDOFF		1000

/* One flush as the devices run it: whether it published, and whether it signalled. */
struct flush {
	bool published;
	bool due;
};

static struct flush flush_once(struct tx_hold *hold, uint64_t now, bool received)
{
	struct flush f;

	f.due = tx_hold_due(hold, now, HOLDOFF, QSIZE);
	f.published = tx_hold_release(hold, f.due, received);
	return f;
}

/* The first completions ask for a flush; those under a running deadline do not. */
static void test_note_asks_for_flush_once(void **state)
{
	struct tx_hold hold = { .held = 0 };

	(void)state;
	assert_true(tx_hold_note(&hold, 1, QSIZE));
	assert_false(flush_once(&hold, 0, false).due);
	assert_true(hold.waiting);
	assert_false(tx_hold_note(&hold, 1, QSIZE));
	assert_false(tx_hold_note(&hold, QSIZE / 2 - 3, QSIZE));
	assert_int_equal(hold.held, QSIZE / 2 - 1);
	/* Half the queue held: the flush must come now. */
	assert_true(tx_hold_note(&hold, 1, QSIZE));
}

/* Held from the first flush on for one holdoff, then published and signalled. */
static void test_deadline(void **state)
{
	struct tx_hold hold = { .held = 0 };
	struct flush f;

	(void)state;
	tx_hold_note(&hold, 3, QSIZE);
	f = flush_once(&hold, 100, false);
	assert_false(f.published);
	assert_false(f.due);
	assert_int_equal(hold.deadline, 100 + HOLDOFF);
	f = flush_once(&hold, 100 + HOLDOFF - 1, false);
	assert_false(f.published);
	f = flush_once(&hold, 100 + HOLDOFF, false);
	assert_true(f.published);
	assert_true(f.due);
	assert_int_equal(hold.held, 0);
	assert_false(hold.waiting);
	/* Nothing held, nothing starts. */
	f = flush_once(&hold, 200 + HOLDOFF, false);
	assert_false(f.published || f.due || hold.waiting);
}

/* Half a queue does not wait for the deadline. */
static void test_half_queue(void **state)
{
	struct tx_hold hold = { .held = 0 };
	struct flush f;

	(void)state;
	tx_hold_note(&hold, QSIZE / 2, QSIZE);
	f = flush_once(&hold, 0, false);
	assert_true(f.published);
	assert_true(f.due);
}

/*
 * A receive carries the held ones out, before their deadline, and leaves
 * the deadline running: with nothing held since, it ends there and the
 * interrupt is considered, with nothing left to publish.
 */
static void test_ride_along(void **state)
{
	struct tx_hold hold = { .held = 0 };
	struct flush f;

	(void)state;
	tx_hold_note(&hold, 2, QSIZE);
	f = flush_once(&hold, 0, true);
	assert_true(f.published);
	assert_false(f.due);
	assert_int_equal(hold.held, 0);
	assert_true(hold.rode);
	assert_int_equal(tx_hold_earliest(&hold, 0), HOLDOFF);
	f = flush_once(&hold, HOLDOFF, false);
	assert_false(f.published);
	assert_true(f.due);
	assert_false(hold.waiting || hold.rode);
}

/*
 * Held after a ride: the deadline gives them a holdoff of their own, and
 * the interrupt waits with them; they go out at that one.
 */
static void test_fresh_holdoff_after_ride(void **state)
{
	struct tx_hold hold = { .held = 0 };
	struct flush f;

	(void)state;
	tx_hold_note(&hold, 1, QSIZE);
	flush_once(&hold, 0, true);
	tx_hold_note(&hold, 1, QSIZE);
	f = flush_once(&hold, HOLDOFF, false);
	assert_false(f.published);
	assert_false(f.due);
	assert_false(hold.rode);
	assert_int_equal(hold.deadline, 2 * HOLDOFF);
	/* A ride again, then nothing: the next deadline moves on once more. */
	flush_once(&hold, HOLDOFF + 1, true);
	tx_hold_note(&hold, 1, QSIZE);
	f = flush_once(&hold, 2 * HOLDOFF, false);
	assert_false(f.published || f.due);
	f = flush_once(&hold, 3 * HOLDOFF, false);
	assert_true(f.published);
	assert_true(f.due);
}

/* Half a queue held after a ride goes out at once, ride or not. */
static void test_half_queue_after_ride(void **state)
{
	struct tx_hold hold = { .held = 0 };
	struct flush f;

	(void)state;
	tx_hold_note(&hold, 1, QSIZE);
	flush_once(&hold, 0, true);
	tx_hold_note(&hold, QSIZE / 2, QSIZE);
	f = flush_once(&hold, 1, false);
	assert_true(f.published);
	assert_true(f.due);
}

/* A hold no receive carries (vsock's) waits for its deadline and never moves it. */
static void test_never_rides(void **state)
{
	struct tx_hold hold = { .held = 0 };
	struct flush f;

	(void)state;
	tx_hold_note(&hold, 1, QSIZE);
	flush_once(&hold, 0, false);
	tx_hold_note(&hold, 1, QSIZE);
	f = flush_once(&hold, HOLDOFF - 1, false);
	assert_false(f.published);
	assert_false(hold.rode);
	f = flush_once(&hold, HOLDOFF, false);
	assert_true(f.published);
	assert_true(f.due);
}

/* The port's deadline is the earliest running one; none leaves it as it was. */
static void test_earliest(void **state)
{
	struct tx_hold a = { .held = 0 }, b = { .held = 0 };

	(void)state;
	assert_int_equal(tx_hold_earliest(&a, 0), 0);
	assert_int_equal(tx_hold_earliest(&a, 7), 7);
	tx_hold_note(&a, 1, QSIZE);
	flush_once(&a, 50, false);
	tx_hold_note(&b, 1, QSIZE);
	flush_once(&b, 20, false);
	assert_int_equal(tx_hold_earliest(&b, tx_hold_earliest(&a, 0)), 20 + HOLDOFF);
	assert_int_equal(tx_hold_earliest(&a, tx_hold_earliest(&b, 0)), 20 + HOLDOFF);
	assert_int_equal(tx_hold_earliest(&a, 5), 5);
}

/* A reset forgets what is held, the deadline and the ride. */
static void test_reset(void **state)
{
	struct tx_hold hold = { .held = 0 };

	(void)state;
	tx_hold_note(&hold, 1, QSIZE);
	flush_once(&hold, 0, true);
	tx_hold_note(&hold, 1, QSIZE);
	tx_hold_reset(&hold);
	assert_int_equal(hold.held, 0);
	assert_false(hold.waiting || hold.rode);
	assert_int_equal(tx_hold_earliest(&hold, 0), 0);
	assert_true(tx_hold_note(&hold, 1, QSIZE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_note_asks_for_flush_once),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_half_queue),
		cmocka_unit_test(test_ride_along),
		cmocka_unit_test(test_fresh_holdoff_after_ride),
		cmocka_unit_test(test_half_queue_after_ride),
		cmocka_unit_test(test_never_rides),
		cmocka_unit_test(test_earliest),
		cmocka_unit_test(test_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
