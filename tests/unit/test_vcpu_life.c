/* SPDX-License-Identifier: MIT */
/*
 * test_vcpu_life.c - hv/guest/vcpu_life.c, the start and stop protocol of
 * a guest's vCPUs, run on one thread per vCPU. vCPU 0 ends and begins
 * lives in a loop, as the operator's stop and restart make it, while every
 * vCPU storms start signals at its siblings. No vCPU may run in a life
 * after vCPU 0 has reported that life stopped, and a vCPU started in a
 * new life must have been started by a signal sent in that life.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "guest/vcpu_life.h"

#define LIVES		500
#define VCPUS		4
#define LIFE_STEPS	64	/* vCPU 0's signals in each life */
#define BURST_MAX	8	/* signals a vCPU sends between two exits */
#define WIPE_YIELDS	8	/* turns the others get while "RAM is rewritten" */
#define WAIT_TURNS	200000ul	/* one parking that long is a hang */

struct world {
	struct guest_life life;
	uint32_t reported;	/* the last life vCPU 0 reported stopped */
	int done;
	/* Counted by the vCPU threads. */
	unsigned long escapes;	/* steps run in a life already reported stopped */
	unsigned long stale;	/* lives started by a signal of an older life */
	unsigned long started;	/* secondaries started, over all lives */
	unsigned long refused;	/* signals that found no life open */
	unsigned long asked;
	unsigned long turns;	/* vCPU 0's waiting in the parking under way */
	unsigned long hangs;	/* parkings given up */
};

struct vcpu_thread {
	struct world *w;
	unsigned int index;
	unsigned int seed;
};

/* A sibling other than the sender, chosen at random; vCPU 0 takes no signal. */
static void storm(struct vcpu_thread *t, uint32_t life)
{
	unsigned int target = 1 + rand_r(&t->seed) % (VCPUS - 1);

	if (target == t->index)
		return;
	/* The vector names the sender's life, so a late start is seen. */
	if (vcpu_life_start(&t->w->life, target, (uint8_t)life) == VCPU_LIFE_ENDING)
		__atomic_add_fetch(&t->w->refused, 1, __ATOMIC_RELAXED);
}

static void *secondary(void *arg)
{
	struct vcpu_thread *t = arg;
	struct world *w = t->w;
	uint8_t vector;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
		uint32_t life;

		vcpu_life_park(&w->life, t->index);
		while (!vcpu_life_take(&w->life, t->index, &vector)) {
			if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
				return NULL;
			sched_yield();
		}
		life = w->life.vcpu[t->index].ran;
		__atomic_add_fetch(&w->started, 1, __ATOMIC_RELAXED);
		if (vector != (uint8_t)life)
			__atomic_add_fetch(&w->stale, 1, __ATOMIC_RELAXED);
		/*
		 * Guest code, between two exits: a burst of signals, with the
		 * thread descheduled at random as a kick takes its time to
		 * land. It runs until the life it was started in ends.
		 */
		while (vcpu_life_current(&w->life, t->index) &&
		       !__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
			unsigned int burst = 1 + rand_r(&t->seed) % BURST_MAX;

			for (unsigned int b = 0; b < burst; b++) {
				if (__atomic_load_n(&w->reported, __ATOMIC_SEQ_CST) >= life)
					__atomic_add_fetch(&w->escapes, 1, __ATOMIC_RELAXED);
				storm(t, life);
				if (rand_r(&t->seed) % 2 == 0)
					sched_yield();
			}
		}
	}
	return NULL;
}

static void ask(void *ctx, unsigned int i)
{
	struct world *w = ctx;

	(void)i;
	__atomic_add_fetch(&w->asked, 1, __ATOMIC_RELAXED);
}

static bool wait_turn(void *ctx, unsigned int i)
{
	struct world *w = ctx;

	(void)i;
	sched_yield();
	return ++w->turns < WAIT_TURNS;
}

static void test_lives_under_a_signal_storm(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct vcpu_thread t[VCPUS];
	pthread_t thread[VCPUS];
	struct vcpu_life_ops ops = { .ask = ask, .wait = wait_turn };
	unsigned int stuck = 0;

	(void)state;
	assert_non_null(w);
	ops.ctx = w;
	vcpu_life_init(&w->life, VCPUS);
	for (unsigned int i = 1; i < VCPUS; i++) {
		t[i] = (struct vcpu_thread){ .w = w, .index = i, .seed = i };
		assert_int_equal(pthread_create(&thread[i], NULL, secondary, &t[i]), 0);
	}
	t[0] = (struct vcpu_thread){ .w = w, .index = 0, .seed = 0 };
	for (unsigned int n = 0; n < LIVES; n++) {
		uint32_t life;

		vcpu_life_begin(&w->life);
		life = __atomic_load_n(&w->life.gen, __ATOMIC_RELAXED);
		for (unsigned int s = 0; s < LIFE_STEPS; s++) {
			storm(&t[0], life);
			if (s % 8 == 0)
				sched_yield();
		}
		w->turns = 0;
		if (!vcpu_life_end(&w->life, &ops, &stuck)) {
			w->hangs++;
			break;
		}
		__atomic_store_n(&w->reported, life, __ATOMIC_SEQ_CST);
		for (unsigned int y = 0; y < WIPE_YIELDS; y++)
			sched_yield();
	}
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 1; i < VCPUS; i++)
		assert_int_equal(pthread_join(thread[i], NULL), 0);

	print_message("%lu starts, %lu signals refused as their life ended\n", w->started,
		      w->refused);
	assert_int_equal(w->hangs, 0);
	assert_int_equal(w->escapes, 0);
	assert_int_equal(w->stale, 0);
	assert_int_equal(w->asked, (unsigned long)LIVES * (VCPUS - 1));
	/* The storm did reach the lives: most secondaries start in most of them. */
	assert_true(w->started >= LIVES);
	free(w);
}

/* The first signal of a life wins; a repeat, or one to a closed life, does nothing. */
static void test_one_signal_a_life(void **state)
{
	struct guest_life life;
	uint8_t vector = 0;

	(void)state;
	vcpu_life_init(&life, 2);
	vcpu_life_park(&life, 1);
	assert_int_equal(vcpu_life_start(&life, 1, 0x9a), VCPU_LIFE_ENDING);
	assert_false(vcpu_life_take(&life, 1, &vector));
	vcpu_life_begin(&life);
	assert_int_equal(vcpu_life_start(&life, 1, 0x9a), VCPU_LIFE_STARTED);
	assert_int_equal(vcpu_life_start(&life, 1, 0x9b), VCPU_LIFE_IGNORED);
	assert_true(vcpu_life_take(&life, 1, &vector));
	assert_int_equal(vector, 0x9a);
	assert_true(vcpu_life_current(&life, 1));
	/* Stopped within its life (a crash): it is not started again in it. */
	vcpu_life_park(&life, 1);
	assert_false(vcpu_life_take(&life, 1, &vector));
	assert_int_equal(vcpu_life_start(&life, 1, 0x9c), VCPU_LIFE_IGNORED);
}

/* A signal that landed as the life closed starts nothing in the next. */
static void test_old_signal_dropped(void **state)
{
	struct guest_life life;
	struct vcpu_life_ops ops = { .ask = ask, .wait = wait_turn };
	struct world w = { 0 };
	unsigned int stuck = 0;
	uint8_t vector = 0;

	(void)state;
	ops.ctx = &w;
	vcpu_life_init(&life, 2);
	vcpu_life_park(&life, 1);
	vcpu_life_begin(&life);
	assert_int_equal(vcpu_life_start(&life, 1, 0x9a), VCPU_LIFE_STARTED);
	assert_true(vcpu_life_end(&life, &ops, &stuck));
	assert_false(vcpu_life_take(&life, 1, &vector));
	vcpu_life_begin(&life);
	assert_false(vcpu_life_take(&life, 1, &vector));
	assert_int_equal(vcpu_life_start(&life, 1, 0x9b), VCPU_LIFE_STARTED);
	assert_true(vcpu_life_take(&life, 1, &vector));
	assert_int_equal(vector, 0x9b);
}

static bool give_up(void *ctx, unsigned int i)
{
	(void)ctx;
	(void)i;
	return false;
}

/* A vCPU that never parks is named, and vCPU 0 does not wait for ever. */
static void test_stuck_vcpu_named(void **state)
{
	struct guest_life life;
	struct world w = { 0 };
	struct vcpu_life_ops ops = { .ask = ask, .wait = give_up, .ctx = &w };
	unsigned int stuck = 0;

	(void)state;
	vcpu_life_init(&life, 3);
	vcpu_life_park(&life, 1);
	vcpu_life_begin(&life);
	assert_false(vcpu_life_end(&life, &ops, &stuck));
	assert_int_equal(stuck, 2);
	assert_int_equal(vcpu_life_start(&life, 1, 0x9a), VCPU_LIFE_ENDING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_signal_a_life),
		cmocka_unit_test(test_old_signal_dropped),
		cmocka_unit_test(test_stuck_vcpu_named),
		cmocka_unit_test(test_lives_under_a_signal_storm),
	};

	return cmocka_run_group_tests_name("vCPU start signals and parking", tests, NULL, NULL);
}
