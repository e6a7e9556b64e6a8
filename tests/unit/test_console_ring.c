/* SPDX-License-Identifier: MIT */
/*
 * test_console_ring.c - unit tests for hv/lib/log_ring.c, the console's
 * lossy ring: bytes come out as they went in (across the wrap), a line that
 * does not fit is dropped whole and counted, and one notice with the counts
 * precedes the next line that fits.
 *
 * The flood tests run in simulated time: a poll loop does one unit of packet
 * work per pass and then drains the ring into a fake UART that takes 16
 * bytes (its FIFO) per UART_PERIOD time units, and every look at the UART
 * costs a unit. A producer floods the ring meanwhile. A drain that waited
 * for the UART, or for the whole ring, would stretch a pass without bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/log_ring.h"

#define RING_SIZE	4096
#define UART_FIFO	16	/* PC16550D transmit FIFO */
#define UART_PERIOD	8	/* time units the UART takes to send its FIFO */
#define OUT_MAX		(1 << 20)
#define PASSES		20000
/* A pass: its packet work, then at most two looks at the UART (the wrap). */
#define PASS_MAX_COST	3

struct fake_uart {
	uint64_t now;		/* simulated time */
	uint64_t empty_at;	/* when the FIFO is next empty */
	unsigned int room;
	unsigned long calls;
	char *out;
	size_t out_len;
};

struct sim {
	struct log_ring ring;
	char buf[RING_SIZE];
	struct fake_uart uart;
	unsigned long packets;		/* units of packet work done */
	unsigned long lines_made, bytes_made;
	unsigned long lines_refused, bytes_refused;
};

static uint64_t fake_uart_sink(void *ctx, const char *s, uint64_t len)
{
	struct fake_uart *u = ctx;
	uint64_t n;

	u->calls++;
	u->now++;
	/* The FIFO empties at the end of each period, and is refilled once in it. */
	if (u->now >= u->empty_at) {
		u->room = UART_FIFO;
		u->empty_at = (u->now / UART_PERIOD + 1) * UART_PERIOD;
	}
	n = len < u->room ? len : u->room;
	assert_true(u->out_len + n <= OUT_MAX);
	memcpy(u->out + u->out_len, s, n);
	u->out_len += n;
	u->room -= n;
	return n;
}

static int sim_setup(void **state)
{
	struct sim *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	s->uart.out = malloc(OUT_MAX);
	if (!s->uart.out) {
		free(s);
		return -1;
	}
	s->ring = (struct log_ring)LOG_RING_INIT(s->buf, RING_SIZE);
	*state = s;
	return 0;
}

static int sim_teardown(void **state)
{
	struct sim *s = *state;

	free(s->uart.out);
	free(s);
	return 0;
}

static void sim_append(struct sim *s, const char *line)
{
	size_t len = strlen(line);

	s->lines_made++;
	s->bytes_made += len;
	if (!log_ring_append(&s->ring, line, len)) {
		s->lines_refused++;
		s->bytes_refused += len;
	}
}

/*
 * One pass of the poll loop: packet work, perhaps a line of the loop's own
 * (a printk on the draining core), then a bounded drain.
 */
static void sim_pass_logging(struct sim *s, const char *own_line)
{
	uint64_t start = s->uart.now;
	unsigned long calls = s->uart.calls, packets = s->packets;

	s->packets++;
	s->uart.now++;
	if (own_line)
		sim_append(s, own_line);
	log_ring_take(&s->ring, fake_uart_sink, &s->uart);
	assert_int_equal(s->packets, packets + 1);
	assert_true(s->uart.calls - calls <= 2);
	assert_true(s->uart.now - start <= PASS_MAX_COST);
}

static void sim_pass(struct sim *s)
{
	sim_pass_logging(s, NULL);
}

/* Passes until the ring is empty; a bound keeps a broken drain from hanging the test. */
static void sim_drain(struct sim *s)
{
	for (unsigned long i = 0; i < RING_SIZE * UART_PERIOD && !log_ring_empty(&s->ring); i++)
		sim_pass(s);
	assert_true(log_ring_empty(&s->ring));
}

/*
 * Checks that the output is whole lines, each a line made or a drop notice,
 * and that made = printed + dropped, lines and bytes alike.
 */
static void sim_check_output(struct sim *s)
{
	unsigned long printed_lines = 0, printed_bytes = 0;
	unsigned long dropped_lines = 0, dropped_bytes = 0, last_flood = 0;
	char *p = s->uart.out, *end = p + s->uart.out_len;

	assert_true(s->uart.out_len == 0 || end[-1] == '\n');
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		size_t len = nl - p + 1;
		unsigned long a, b;
		char tail;

		assert_non_null(nl);
		if (sscanf(p, "console: %lu lines dropped (%lu bytes%c", &a, &b, &tail) == 3) {
			assert_int_equal(tail, ')');
			assert_true(a > 0);
			dropped_lines += a;
			dropped_bytes += b;
		} else {
			if (sscanf(p, "flood %lu", &a) == 1) {
				assert_true(a > last_flood);
				last_flood = a;
			} else {
				assert_true(sscanf(p, "drainer %lu", &a) == 1 ||
					    strncmp(p, "after\n", 6) == 0);
			}
			printed_lines++;
			printed_bytes += len;
		}
		p = nl + 1;
	}
	assert_int_equal(dropped_lines, s->lines_refused);
	assert_int_equal(dropped_bytes, s->bytes_refused);
	assert_int_equal(printed_lines + dropped_lines, s->lines_made);
	assert_int_equal(printed_bytes + dropped_bytes, s->bytes_made);
}

/*
 * A producer appends faster than the UART sends, and the draining core
 * logs lines of its own: every pass still does its packet work at bounded
 * cost, the excess is dropped and counted, and once the flood stops the
 * counts are reported before the next line.
 */
static void test_flood_never_stalls_the_poll_loop(void **state)
{
	struct sim *s = *state;
	unsigned long flood = 0;
	char line[32];

	for (unsigned long pass = 0; pass < PASSES; pass++) {
		for (int i = 0; i < 4; i++) {
			snprintf(line, sizeof(line), "flood %06lu\n", ++flood);
			sim_append(s, line);
		}
		snprintf(line, sizeof(line), "drainer %lu\n", pass);
		sim_pass_logging(s, pass % 16 == 0 ? line : NULL);
		assert_int_equal(s->packets, pass + 1);
	}
	assert_true(s->lines_refused > 0);
	assert_true(s->ring.dropped_lines > 0);
	assert_true(s->ring.dropped_lines <= s->lines_refused);
	/* The UART ran flat out: the poll loop gave it all it could take. */
	assert_true(s->uart.out_len >= (s->uart.now / UART_PERIOD - 1) * UART_FIFO);

	sim_drain(s);
	sim_append(s, "after\n");
	sim_drain(s);
	assert_int_equal(s->ring.dropped_lines, 0);
	sim_check_output(s);
}

/* Below the UART's pace nothing is lost and the bytes come out unchanged. */
static void test_no_pressure_loses_nothing(void **state)
{
	struct sim *s = *state;
	char *expect = malloc(OUT_MAX);
	size_t expect_len = 0;
	unsigned long flood = 0;

	assert_non_null(expect);
	for (unsigned long pass = 0; pass < PASSES; pass++) {
		if (pass % 16 == 0) {
			int n = snprintf(expect + expect_len, 32, "flood %06lu\n", ++flood);

			sim_append(s, expect + expect_len);
			expect_len += n;
		}
		sim_pass(s);
	}
	sim_drain(s);
	assert_int_equal(s->lines_refused, 0);
	assert_int_equal(s->uart.out_len, expect_len);
	assert_memory_equal(s->uart.out, expect, expect_len);
	sim_check_output(s);
	free(expect);
}

static uint64_t sink_all(void *ctx, const char *s, uint64_t len)
{
	struct fake_uart *u = ctx;

	memcpy(u->out + u->out_len, s, len);
	u->out_len += len;
	return len;
}

static uint64_t sink_none(void *ctx, const char *s, uint64_t len)
{
	struct fake_uart *u = ctx;

	(void)s;
	(void)len;
	u->calls++;
	return 0;
}

/* Lines that straddle the end of the buffer come out whole and in order. */
static void test_wrap_keeps_bytes(void **state)
{
	struct sim *s = *state;
	char small[64], line[32];

	s->ring = (struct log_ring)LOG_RING_INIT(small, sizeof(small));
	for (int i = 0; i < 40; i++) {
		int n = snprintf(line, sizeof(line), "line %d of forty\n", i);

		s->uart.out_len = 0;
		assert_true(log_ring_append(&s->ring, line, n));
		assert_int_equal(log_ring_take(&s->ring, sink_all, &s->uart), n);
		assert_int_equal(s->uart.out_len, n);
		assert_memory_equal(s->uart.out, line, n);
	}
	assert_true(log_ring_empty(&s->ring));
}

/* A full sink ends the take at once; nothing is lost. */
static void test_take_stops_when_sink_is_full(void **state)
{
	struct sim *s = *state;

	assert_true(log_ring_append(&s->ring, "hello\n", 6));
	assert_int_equal(log_ring_take(&s->ring, sink_none, &s->uart), 0);
	assert_int_equal(s->uart.calls, 1);
	assert_false(log_ring_empty(&s->ring));
	assert_int_equal(log_ring_take(&s->ring, sink_all, &s->uart), 6);
	assert_memory_equal(s->uart.out, "hello\n", 6);
}

/*
 * A line longer than the ring never fits and is counted; so is a line that
 * fits alone but not behind the notice, which goes in first or not at all.
 */
static void test_drop_notice_comes_first(void **state)
{
	struct sim *s = *state;
	static const char expect[] = "console: 2 lines dropped (129 bytes)\nok\n";
	char small[64], big[100];

	s->ring = (struct log_ring)LOG_RING_INIT(small, sizeof(small));
	memset(big, 'x', sizeof(big));
	assert_false(log_ring_append(&s->ring, big, sizeof(big)));
	/* 29 bytes fit in 64, but not behind the 37-byte notice. */
	assert_false(log_ring_append(&s->ring, "0123456789012345678901234567\n", 29));
	assert_int_equal(s->ring.dropped_lines, 2);
	assert_int_equal(s->ring.dropped_bytes, 129);
	assert_true(log_ring_empty(&s->ring));
	assert_true(log_ring_append(&s->ring, "ok\n", 3));
	assert_int_equal(s->ring.dropped_lines, 0);
	assert_int_equal(s->ring.dropped_bytes, 0);
	assert_int_equal(log_ring_take(&s->ring, sink_all, &s->uart), sizeof(expect) - 1);
	assert_memory_equal(s->uart.out, expect, sizeof(expect) - 1);
}

/* Without drops a line exactly the ring's size fits; one byte more does not. */
static void test_exact_fit(void **state)
{
	struct sim *s = *state;
	char small[64], line[65];

	s->ring = (struct log_ring)LOG_RING_INIT(small, sizeof(small));
	memset(line, 'y', sizeof(line));
	assert_false(log_ring_append(&s->ring, line, 65));
	assert_int_equal(log_ring_take(&s->ring, sink_all, &s->uart), 0);
	s->ring = (struct log_ring)LOG_RING_INIT(small, sizeof(small));
	assert_true(log_ring_append(&s->ring, line, 64));
	assert_false(log_ring_append(&s->ring, "\n", 1));
	assert_int_equal(log_ring_take(&s->ring, sink_all, &s->uart), 64);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, sim_setup, sim_teardown)
	const struct CMUnitTest tests[] = {
		T(test_flood_never_stalls_the_poll_loop),
		T(test_no_pressure_loses_nothing),
		T(test_wrap_keeps_bytes),
		T(test_take_stops_when_sink_is_full),
		T(test_drop_notice_comes_first),
		T(test_exact_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
