/* SPDX-License-Identifier: MIT */
/*
 * test_uart_race.c - hv/vdev/uart.c entered from several cores at once, as
 * the vCPUs of one guest do: threads write bytes and newlines to THR while
 * another polls IIR, and the sink is slow (the host console is a serial
 * line). The UART must hand the sink whole lines, one at a time, with every
 * byte written and nothing written outside its buffer.
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

#include "vdev/uart.h"

#define REG_DATA	0
#define REG_IER		1
#define REG_IIR		2
#define REG_LSR		5
#define IER_THRI	0x02

#define ROUNDS		6
#define RACING_BYTES	4	/* what the second writer sends each round */
#define IIR_POLLS	2	/* the poller's reads each round */
#define SINK_SPIN	20000	/* the sink's work per line, in loop turns */
#define SINK_YIELDS	4	/* turns it offers other cores to go on writing */

/*
 * Each round one writer fills the buffer to one byte short of full, then,
 * all at once, it sends the byte that fills it (so the sink runs), a second
 * writer sends a few bytes and a third thread polls IIR and LSR. Barriers,
 * which sleep, order the rounds: spinning waiters would starve a loaded
 * host of the cores the lock holder needs.
 */
struct race {
	struct uart *uart;
	pthread_barrier_t round;
	unsigned long writes;		/* the second writer's completed uart_write() calls */
	/* What the sink saw; it updates them only while it is alone. */
	int in_sink;
	int sink_overlaps;
	unsigned long lines, bytes, foreign_bytes;
	size_t longest;
};

/*
 * A serial console: slow enough that a racing core gets far meanwhile. It
 * gives the second writer a few turns to complete writes of its own; a
 * UART that serialises them holds them off, and the turns run out.
 */
static void slow_sink(void *ctx, const char *line)
{
	struct race *r = ctx;
	unsigned long writes = __atomic_load_n(&r->writes, __ATOMIC_ACQUIRE);
	size_t len;

	if (__atomic_fetch_add(&r->in_sink, 1, __ATOMIC_ACQ_REL))
		__atomic_fetch_add(&r->sink_overlaps, 1, __ATOMIC_RELAXED);
	for (volatile unsigned int i = 0; i < SINK_SPIN; i++)
		;
	for (unsigned int i = 0; i < SINK_YIELDS &&
	     __atomic_load_n(&r->writes, __ATOMIC_ACQUIRE) - writes < 2; i++)
		sched_yield();
	len = strlen(line);
	__atomic_fetch_add(&r->lines, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->bytes, len, __ATOMIC_RELAXED);
	for (size_t i = 0; i < len; i++)
		if (line[i] != 'a' && line[i] != 'b')
			__atomic_fetch_add(&r->foreign_bytes, 1, __ATOMIC_RELAXED);
	if (len > __atomic_load_n(&r->longest, __ATOMIC_RELAXED))
		__atomic_store_n(&r->longest, len, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&r->in_sink, 1, __ATOMIC_ACQ_REL);
}

static void *filler_run(void *arg)
{
	struct race *r = arg;

	for (unsigned int round = 0; round < ROUNDS; round++) {
		for (unsigned int i = 0; i < TEXT_LINE_MAX - 2; i++)
			uart_write(r->uart, REG_DATA, 'a');
		pthread_barrier_wait(&r->round);
		uart_write(r->uart, REG_DATA, 'a');
		pthread_barrier_wait(&r->round);
		uart_write(r->uart, REG_DATA, '\n');
	}
	return NULL;
}

static void *racer_run(void *arg)
{
	struct race *r = arg;

	for (unsigned int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&r->round);
		for (unsigned int i = 0; i < RACING_BYTES; i++) {
			uart_write(r->uart, REG_DATA, 'b');
			__atomic_fetch_add(&r->writes, 1, __ATOMIC_RELEASE);
		}
		pthread_barrier_wait(&r->round);
	}
	return NULL;
}

/* Linux's 8250 driver polls IIR and LSR from its timer while others print. */
static void *poller_run(void *arg)
{
	struct race *r = arg;

	for (unsigned int round = 0; round < ROUNDS; round++) {
		pthread_barrier_wait(&r->round);
		for (unsigned int i = 0; i < IIR_POLLS; i++) {
			uart_read(r->uart, REG_IIR);
			uart_read(r->uart, REG_LSR);
		}
		pthread_barrier_wait(&r->round);
	}
	return NULL;
}

static void test_writers_race_with_slow_sink(void **state)
{
	void *(*const run[])(void *) = { filler_run, racer_run, poller_run };
	pthread_t thread[3];
	struct race r = { 0 };

	(void)state;
	/* Exactly its size on the heap: AddressSanitizer guards its end. */
	r.uart = malloc(sizeof(*r.uart));
	assert_non_null(r.uart);
	uart_init(r.uart, slow_sink, &r);
	uart_write(r.uart, REG_IER, IER_THRI);
	assert_int_equal(pthread_barrier_init(&r.round, NULL, 3), 0);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&thread[i], NULL, run[i], &r), 0);
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(pthread_join(thread[i], NULL), 0);
	pthread_barrier_destroy(&r.round);
	uart_flush(r.uart);

	assert_int_equal(r.sink_overlaps, 0);
	assert_true(r.longest <= TEXT_LINE_MAX - 1);
	assert_int_equal(r.foreign_bytes, 0);
	/* Every byte arrives once: nothing lost, nothing from outside line[]. */
	assert_int_equal(r.bytes, (unsigned long)ROUNDS * (TEXT_LINE_MAX - 1 + RACING_BYTES));
	assert_true(r.lines >= ROUNDS);
	free(r.uart);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writers_race_with_slow_sink),
	};

	return cmocka_run_group_tests_name("uart entered from several cores", tests, NULL,
					   NULL);
}
