/* SPDX-License-Identifier: MIT */
/*
 * test_sidecore_poll.c - unit tests for hv/sidecore/poll.c with ports of the
 * test's own: only live ports are polled, and of those only the busy ones
 * and those whose watched word moved, each up to its batch in turns of a
 * quantum; dirty ports, and those whose deadline is due, are flushed after a pass, the first port rotates,
 * a sidecore takes no more ports than it can serve, and a port whose
 * packets cost more than its bytes of a pass waits while the others go on;
 * a pass with nothing ready still refills a spent credit and moves the
 * first port on, and sidecore_poll() counts the hop of passes that moved
 * packets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/container.h"
#include "net/net.h"
#include "sidecore/sidecore.h"

#define PORTS		3
#define CALLS_MAX	64

struct fake_port {
	struct sidecore_port port;
	unsigned int id;
	uint16_t avail;			/* the driver's word: packets it queued so far */
	uint16_t taken;			/* the device's: packets it took */
	unsigned int polls;
	uint32_t bytes;			/* what each of them costs the pass in copies */
	unsigned int flushes;
	uint64_t flushed_at;
};

/* Every poll call of a pass, in order. */
static unsigned int call_port[CALLS_MAX], call_budget[CALLS_MAX], calls;
/* The sidecore's meter, which the ports' copies are charged to. */
static struct net_meter *meter;
/* The switch whose clock the pass hands each poll. */
static struct net_switch *clock_sw;

/* The driver queues n packets: its watched word moves. */
static void fake_queue(struct fake_port *f, unsigned int n)
{
	f->avail = (uint16_t)(f->avail + n);
}

static unsigned int fake_pending(const struct fake_port *f)
{
	return (uint16_t)(f->avail - f->taken);
}

static unsigned int fake_poll(struct sidecore_port *port, unsigned int budget, uint64_t now)
{
	struct fake_port *f = container_of(port, struct fake_port, port);
	unsigned int n = 0;

	assert_true(port->live);
	assert_int_equal(now, net_switch_now(clock_sw, 0));
	f->polls++;
	if (calls < CALLS_MAX) {
		call_port[calls] = f->id;
		call_budget[calls] = budget;
	}
	calls++;
	/* As a device does: no packet started once the meter is spent. */
	while (n < budget && fake_pending(f) && !net_meter_spent(meter)) {
		net_meter_charge(meter, f->bytes, 1);
		f->taken++;
		n++;
	}
	port->dirty |= n > 0;
	return n;
}

static void fake_flush(struct sidecore_port *port, uint64_t now)
{
	struct fake_port *f = container_of(port, struct fake_port, port);

	f->flushes++;
	f->flushed_at = now;
	port->dirty = false;
}

static void fake_print_counters(const struct sidecore_port *port, unsigned int sidecore)
{
	(void)port;
	(void)sidecore;
}

static const struct sidecore_port_ops fake_ops = {
	.poll = fake_poll,
	.flush = fake_flush,
	.print_counters = fake_print_counters,
};

struct world {
	struct net_switch sw;
	struct sidecore sc;
	struct fake_port port[PORTS];
};

static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	net_switch_init(&w->sw);
	w->sc.sw = &w->sw;
	for (unsigned int i = 0; i < PORTS; i++) {
		w->port[i].port.ops = &fake_ops;
		w->port[i].port.watch[0] = (struct sidecore_watch){ &w->port[i].avail,
								    &w->port[i].taken };
		w->port[i].port.watches = 1;
		w->port[i].id = i;
		assert_true(sidecore_attach(&w->sc, &w->port[i].port));
	}
	calls = 0;
	meter = net_switch_meter(&w->sw, 0);
	clock_sw = &w->sw;
	net_switch_set_now(&w->sw, 0, 777);
}

/* Every port live, nothing queued. */
static void world_init_live(struct world *w)
{
	world_init(w);
	for (unsigned int i = 0; i < PORTS; i++)
		w->port[i].port.live = true;
}

/* One pass; returns the packets it moved. */
static unsigned int run_pass(struct world *w)
{
	unsigned int batches;
	bool live = false;

	return sidecore_poll_pass(&w->sc, &live, &batches);
}

static void test_only_live_ports_are_polled(void **state)
{
	struct world w;
	unsigned int batches;
	bool live = false;

	(void)state;
	world_init(&w);
	w.port[1].port.live = true;
	fake_queue(&w.port[1], 5);
	fake_queue(&w.port[2], 5);		/* not live: its packets stay */

	assert_int_equal(sidecore_poll_pass(&w.sc, &live, &batches), 5);
	assert_true(live);
	assert_int_equal(batches, 1);
	assert_int_equal(fake_pending(&w.port[2]), 5);
	for (unsigned int i = 0; i < calls; i++)
		assert_int_equal(call_port[i], 1);
}

static void test_nothing_live_is_an_idle_pass(void **state)
{
	struct world w;
	unsigned int batches;
	bool live = false;

	(void)state;
	world_init(&w);
	assert_int_equal(sidecore_poll_pass(&w.sc, &live, &batches), 0);
	assert_false(live);
	assert_int_equal(calls, 0);
}

static void test_busy_ports_take_turns_up_to_their_batch(void **state)
{
	struct world w;
	unsigned int batches;
	bool live = false;

	(void)state;
	world_init(&w);
	for (unsigned int i = 0; i < 2; i++) {
		w.port[i].port.live = true;
		fake_queue(&w.port[i], 1000);
	}

	assert_int_equal(sidecore_poll_pass(&w.sc, &live, &batches), 2 * SIDECORE_BATCH);
	assert_int_equal(fake_pending(&w.port[0]), 1000 - SIDECORE_BATCH);
	assert_int_equal(fake_pending(&w.port[1]), 1000 - SIDECORE_BATCH);
	/* Turns of a quantum each, alternating: 0, 1, 0, 1, ... */
	assert_int_equal(calls, 2 * SIDECORE_BATCH / SIDECORE_QUANTUM);
	for (unsigned int i = 0; i < calls; i++) {
		assert_int_equal(call_port[i], i % 2);
		assert_int_equal(call_budget[i], SIDECORE_QUANTUM);
	}
}

static void test_first_port_rotates(void **state)
{
	struct world w;
	unsigned int batches;
	bool live;

	(void)state;
	world_init(&w);
	for (unsigned int i = 0; i < PORTS; i++) {
		w.port[i].port.live = true;
		fake_queue(&w.port[i], 1000);
	}
	sidecore_poll_pass(&w.sc, &live, &batches);
	assert_int_equal(call_port[0], 0);
	calls = 0;
	sidecore_poll_pass(&w.sc, &live, &batches);
	assert_int_equal(call_port[0], 1);
}

/* A port that moved packets, and one marked dirty by another's delivery, are flushed. */
static void test_flush_reaches_dirty_ports(void **state)
{
	struct world w;

	(void)state;
	world_init_live(&w);
	fake_queue(&w.port[0], 2);
	w.port[2].port.dirty = true;
	run_pass(&w);
	sidecore_flush_ports(&w.sc, 1234);
	assert_int_equal(w.port[0].flushes, 1);
	assert_int_equal(w.port[0].flushed_at, 1234);
	assert_int_equal(w.port[1].flushes, 0);
	assert_int_equal(w.port[2].flushes, 1);
	/* Nothing new: nobody is flushed. */
	sidecore_flush_ports(&w.sc, 1300);
	assert_int_equal(w.port[0].flushes + w.port[2].flushes, 2);
}

/* A port clean but for a deadline is flushed from the deadline on, not before. */
static void test_flush_at_deadline(void **state)
{
	struct world w;

	(void)state;
	world_init_live(&w);
	w.port[1].port.deadline = 2000;
	sidecore_flush_ports(&w.sc, 1999);
	assert_int_equal(w.port[1].flushes, 0);
	sidecore_flush_ports(&w.sc, 2000);
	assert_int_equal(w.port[1].flushes, 1);
	sidecore_flush_ports(&w.sc, 2500);
	assert_int_equal(w.port[1].flushes, 2);
	assert_int_equal(w.port[0].flushes + w.port[2].flushes, 0);
}

/* Live ports with nothing queued cost no poll, yet keep the sidecore awake. */
static void test_idle_live_ports_are_not_polled(void **state)
{
	struct world w;
	unsigned int batches;
	bool live = false;

	(void)state;
	world_init_live(&w);
	assert_int_equal(sidecore_poll_pass(&w.sc, &live, &batches), 0);
	assert_true(live);
	assert_int_equal(calls, 0);
}

/* Only the port whose word moved is polled, and only until it caught up. */
static void test_moved_watch_is_polled(void **state)
{
	struct world w;

	(void)state;
	world_init_live(&w);
	fake_queue(&w.port[1], 3);
	assert_int_equal(run_pass(&w), 3);
	assert_int_equal(calls, 1);
	assert_int_equal(call_port[0], 1);
	assert_int_equal(run_pass(&w), 0);
	assert_int_equal(calls, 1);
}

/* A busy port is polled every pass, with nothing queued. */
static void test_busy_port_is_polled(void **state)
{
	struct world w;

	(void)state;
	world_init_live(&w);
	w.port[2].port.busy = true;
	for (unsigned int pass = 0; pass < 3; pass++)
		assert_int_equal(run_pass(&w), 0);
	assert_int_equal(w.port[2].polls, 3);
	assert_int_equal(w.port[0].polls + w.port[1].polls, 0);
}

/*
 * The hint is read as the pass starts: a packet queued after it waits for
 * the next pass, which takes it; and one left by a full batch is taken on.
 */
static void test_stale_hint_is_served_next_pass(void **state)
{
	struct world w;

	(void)state;
	world_init_live(&w);
	assert_int_equal(run_pass(&w), 0);
	fake_queue(&w.port[0], SIDECORE_BATCH + 1);
	assert_int_equal(run_pass(&w), SIDECORE_BATCH);
	assert_int_equal(run_pass(&w), 1);
	assert_int_equal(fake_pending(&w.port[0]), 0);
}

/* A word wrapped past 65535 still differs from what the device took. */
static void test_watch_wraps(void **state)
{
	struct world w;

	(void)state;
	world_init_live(&w);
	w.port[0].avail = w.port[0].taken = 0xffff;
	fake_queue(&w.port[0], 2);
	assert_int_equal(run_pass(&w), 2);
	assert_int_equal(w.port[0].taken, 1);
}

static void test_attach_stops_at_the_limit(void **state)
{
	static struct fake_port many[SIDECORE_MAX_PORTS + 1];
	static struct sidecore sc;

	(void)state;
	for (unsigned int i = 0; i < SIDECORE_MAX_PORTS; i++)
		assert_true(sidecore_attach(&sc, &many[i].port));
	assert_false(sidecore_attach(&sc, &many[SIDECORE_MAX_PORTS].port));
	assert_int_equal(sc.port_count, SIDECORE_MAX_PORTS);
}

/*
 * Port 0 broadcasts 64 KiB frames to 15 others, port 1 sends small ones.
 * Port 0 sends one, owes the rest of its copies, and is asked for nothing
 * (but still counts as live) until it has paid; port 1 sends its 32 a pass
 * throughout. The meter is left unlimited between passes.
 */
static void test_costly_port_waits_its_turn(void **state)
{
	struct world w;
	unsigned int batches, sent = 0;
	bool live;

	(void)state;
	world_init(&w);
	w.port[0].port.live = w.port[1].port.live = true;
	fake_queue(&w.port[0], 100);
	w.port[0].bytes = 15 * NET_FRAME_MAX;
	w.port[1].bytes = 100;
	for (unsigned int p = 0; p < 14; p++) {
		fake_queue(&w.port[1], 32);
		live = false;
		sent = fake_pending(&w.port[0]);
		assert_int_equal(sidecore_poll_pass(&w.sc, &live, &batches),
				 32 + (p % 7 == 0 ? 1 : 0));
		assert_true(live);
		assert_int_equal(sent - fake_pending(&w.port[0]), p % 7 == 0 ? 1 : 0);
		assert_int_equal(fake_pending(&w.port[1]), 0);
		assert_int_equal(meter->bytes, NET_METER_UNLIMITED.bytes);
	}
	assert_int_equal(fake_pending(&w.port[0]), 98);
}

/*
 * Nothing ready: no port is polled, yet a credit spent in the pass before
 * is refilled, and the first port moves on in every pass, as in one that
 * polls.
 */
static void test_idle_pass_refills_and_rotates(void **state)
{
	struct world w;

	(void)state;
	world_init_live(&w);
	w.port[0].bytes = 1000;
	fake_queue(&w.port[0], 1);
	assert_int_equal(run_pass(&w), 1);
	assert_int_equal(w.sc.credit[0].bytes, SIDECORE_BYTES - 1000);
	assert_int_equal(w.sc.next_source, 1);
	calls = 0;
	assert_int_equal(run_pass(&w), 0);
	assert_int_equal(w.sc.credit[0].bytes, SIDECORE_BYTES);
	assert_int_equal(w.sc.next_source, 2);
	for (unsigned int p = 0; p < PORTS + 1; p++)
		assert_int_equal(run_pass(&w), 0);
	assert_int_equal(w.sc.next_source, 2);
	assert_int_equal(calls, 0);
	assert_int_equal(w.sc.credit[0].bytes, SIDECORE_BYTES);
}

/*
 * sidecore_poll(): a pass that moved packets counts each in the hop, with
 * its time from the pass's start and from the start of the pass before;
 * an idle pass counts nothing. The flush runs at the pass's start.
 */
static void test_hop_counts_busy_passes(void **state)
{
	struct world w;
	bool live = false;
	uint64_t first;

	(void)state;
	world_init_live(&w);
	fake_queue(&w.port[0], 2);
	assert_int_equal(sidecore_poll(&w.sc, &live), 2);
	first = w.sc.busy_tsc;
	assert_int_equal(w.sc.hop.packets, 2);
	assert_int_equal(w.sc.hop.pass_sum, 2 * w.sc.hop.pass_max);
	assert_int_equal(w.sc.hop.pass_sum, 2 * w.sc.busy_tsc);
	/* The first pass has none before it. */
	assert_int_equal(w.sc.hop.interval_sum, 0);
	assert_int_equal(w.port[0].flushed_at, w.sc.pass_start);
	assert_int_equal(sidecore_poll(&w.sc, &live), 0);
	assert_int_equal(w.sc.hop.packets, 2);
	fake_queue(&w.port[1], 1);
	assert_int_equal(sidecore_poll(&w.sc, &live), 1);
	assert_int_equal(w.sc.hop.packets, 3);
	assert_true(w.sc.hop.interval_max > 0);
	assert_int_equal(w.sc.hop.interval_sum, w.sc.hop.interval_max);
	/* Each packet counts its own pass's time. */
	assert_int_equal(w.sc.hop.pass_sum, 2 * first + (w.sc.busy_tsc - first));
	assert_true(w.sc.hop.pass_max >= w.sc.busy_tsc - first);
	assert_int_equal(w.port[1].flushed_at, w.sc.pass_start);
	assert_int_equal(w.sw.sidecore[0].busy_polls, 2);
	assert_int_equal(w.sw.sidecore[0].idle_polls, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_live_ports_are_polled),
		cmocka_unit_test(test_nothing_live_is_an_idle_pass),
		cmocka_unit_test(test_busy_ports_take_turns_up_to_their_batch),
		cmocka_unit_test(test_first_port_rotates),
		cmocka_unit_test(test_flush_reaches_dirty_ports),
		cmocka_unit_test(test_flush_at_deadline),
		cmocka_unit_test(test_idle_live_ports_are_not_polled),
		cmocka_unit_test(test_moved_watch_is_polled),
		cmocka_unit_test(test_busy_port_is_polled),
		cmocka_unit_test(test_stale_hint_is_served_next_pass),
		cmocka_unit_test(test_watch_wraps),
		cmocka_unit_test(test_attach_stops_at_the_limit),
		cmocka_unit_test(test_costly_port_waits_its_turn),
		cmocka_unit_test(test_idle_pass_refills_and_rotates),
		cmocka_unit_test(test_hop_counts_busy_passes),
	};

	return cmocka_run_group_tests_name("sidecore poll pass", tests, NULL, NULL);
}
