/* SPDX-License-Identifier: MIT */
/*
 * test_stat_parse.c - `sidecore stat`'s reading of the console's "stat:"
 * samples (docs/operator.md, "Live counters"): a hand-made excerpt and one
 * recorded under Bochs, and their rates, the rate maths on each line's own TSC, and lines the serial line
 * cut, mangled or never finished, none of which may crash the reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/sidecore/stat_parse.h"

#define EXCERPT "tests/data/stat/haswell-excerpt.log"
/* The Bochs haswell scenario's console from `stat on` to TCP_RR's last sample. */
#define RECORDED "tests/data/stat/haswell-tcp-rr.log"

static struct stat_reader *reader;
static struct stat_rates *rates;

static int setup(void **state)
{
	(void)state;
	reader = malloc(sizeof(*reader));
	rates = malloc(sizeof(*rates));
	stat_reader_init(reader);
	return reader && rates ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(reader);
	free(rates);
	return 0;
}

static const struct stat_rate_item *find(const char *kind, const char *name)
{
	for (unsigned int i = 0; i < rates->count; i++)
		if (!strcmp(rates->item[i].kind, kind) && !strcmp(rates->item[i].name, name))
			return &rates->item[i];
	return NULL;
}

static double reason(const struct stat_rate_item *item, const char *key)
{
	for (unsigned int i = 0; i < item->count; i++)
		if (item->value[i].reason && !strcmp(item->value[i].key, key))
			return item->value[i].value;
	return -1;
}

static void feed_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		stat_reader_line(reader, line);
	fclose(f);
}

static void feed(const char *const *lines, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		stat_reader_line(reader, lines[i]);
}

/* The excerpt's two samples, 2 s of a 2 GHz TSC apart, each line 1 s after its twin. */
static void test_recorded_excerpt(void **state)
{
	const struct stat_rate_item *alpha, *port, *sc;
	struct stat_traffic t;

	(void)state;
	feed_file(EXCERPT);
	assert_int_equal(reader->samples, 2);
	assert_int_equal(reader->malformed, 0);
	assert_true(stat_rates(&reader->last[0], &reader->last[1], rates));
	assert_int_equal(rates->seq, 2);
	assert_int_equal(rates->count, 7);

	alpha = find("guest", "alpha");
	assert_non_null(alpha);
	assert_string_equal(alpha->state, "running");
	assert_float_equal(alpha->seconds, 1.0, 1e-9);
	assert_float_equal(stat_rate_value(alpha, "exits"), 100, 1e-9);
	assert_float_equal(stat_rate_value(alpha, "irqs"), 500, 1e-9);
	assert_float_equal(reason(alpha, "io_instruction"), 50, 1e-9);
	assert_float_equal(reason(alpha, "cpuid"), 0, 1e-9);
	/* Not in the older line: it counted none then. */
	assert_float_equal(reason(alpha, "cr_access"), 50, 1e-9);

	port = find("port", "beta");
	assert_non_null(port);
	assert_float_equal(stat_rate_value(port, "sidecore"), 0, 1e-9);
	assert_float_equal(stat_rate_value(port, "tx_bytes"), 200000, 1e-6);

	/* A guest's traffic is its NIC's and its vsock device's together. */
	stat_guest_traffic(rates, "beta", &t);
	assert_float_equal(t.rx_packets, 2000, 1e-9);
	assert_float_equal(t.tx_packets, 2020, 1e-9);
	assert_float_equal(t.tx_bytes, 202000, 1e-6);
	stat_guest_traffic(rates, "alpha", &t);
	assert_float_equal(t.drops, 2, 1e-9);

	sc = find("sidecore", "0");
	assert_non_null(sc);
	assert_float_equal(stat_rate_value(sc, "cpu"), 0, 1e-9);
	assert_float_equal(stat_rate_value(sc, "busy_tsc") / (double)rates->hz, 0.5, 1e-9);
	assert_float_equal(stat_rate_value(sc, "packets"), 4000, 1e-9);
}

/*
 * A real console: samples among counters blocks and guest lines. Its last
 * second is TCP_RR 1 KiB, which netperf put at 939.75 transactions a
 * second: a frame each way per transaction, the sidecore moving both.
 */
static void test_recorded_haswell(void **state)
{
	const struct stat_rate_item *alpha, *beta, *port, *sc;

	(void)state;
	feed_file(RECORDED);
	assert_int_equal(reader->samples, 4);
	assert_int_equal(reader->malformed, 0);
	assert_true(stat_rates(&reader->last[0], &reader->last[1], rates));
	assert_int_equal(rates->seq, 4);
	assert_int_equal(rates->hz, 49996000);
	assert_int_equal(rates->count, 7);

	alpha = find("guest", "alpha");
	beta = find("guest", "beta");
	assert_non_null(alpha);
	assert_non_null(beta);
	assert_float_equal(alpha->seconds, 49997960.0 / 49996000, 1e-9);
	/* Direct interrupts: one rdmsr a second is all that exits. */
	assert_float_equal(stat_rate_value(alpha, "exits"), 1.0, 1e-3);
	assert_float_equal(reason(alpha, "rdmsr"), 1.0, 1e-3);
	assert_float_equal(reason(alpha, "io"), 0, 1e-9);
	assert_float_equal(stat_rate_value(beta, "irqs"), 1394.948, 1e-3);

	port = find("port", "alpha");
	assert_non_null(port);
	assert_float_equal(stat_rate_value(port, "rx_packets"), 940.965, 1e-3);
	assert_float_equal(stat_rate_value(port, "tx_bytes"), 1024561.576, 1e-3);
	assert_float_equal(stat_rate_value(port, "drops"), 0, 1e-9);
	assert_non_null(find("vsock", "beta"));

	sc = find("sidecore", "0");
	assert_non_null(sc);
	assert_float_equal(stat_rate_value(sc, "packets"), 1880.925, 1e-3);
	assert_float_equal(stat_rate_value(sc, "busy_tsc") / (double)rates->hz, 0.1596, 1e-4);
}

/* Each line's own TSC makes its interval; counters that went back give 0. */
static void test_rate_maths(void **state)
{
	static const char *const lines[] = {
		"stat: sample 7 tsc 1000 hz 1000\r\n",
		"stat: guest g tsc 1000 state running exits 500 irqs 10 hlt=3\r\n",
		"stat: port g tsc 1000 sidecore 2 rx_packets 100 rx_bytes 0 tx_packets 0 tx_bytes 0 drops 0\n",
		"stat: sidecore 1 tsc 1000 cpu 5 busy_tsc 0 packets 0",
		"stat: port gone tsc 1000 sidecore 0 rx_packets 1 rx_bytes 0 tx_packets 0 tx_bytes 0 drops 0",
		"stat: end 7",
		"stat: sample 8 tsc 2000 hz 1000",
		/* A restart began its vCPUs' counters afresh. */
		"stat: guest g tsc 1500 state starting exits 20 irqs 15",
		"stat: port g tsc 1250 sidecore 2 rx_packets 150 rx_bytes 0 tx_packets 0 tx_bytes 0 drops 0",
		/* Read no later than before: no interval, no rate. */
		"stat: sidecore 1 tsc 1000 cpu 5 busy_tsc 10 packets 10",
		"stat: port new tsc 2000 sidecore 0 rx_packets 1 rx_bytes 0 tx_packets 0 tx_bytes 0 drops 0",
		"stat: end 8",
	};
	const struct stat_rate_item *g, *p;

	(void)state;
	feed(lines, sizeof(lines) / sizeof(lines[0]));
	assert_int_equal(reader->samples, 2);
	assert_int_equal(reader->malformed, 0);
	assert_true(stat_rates(&reader->last[0], &reader->last[1], rates));
	assert_int_equal(rates->count, 2);

	g = find("guest", "g");
	assert_non_null(g);
	assert_float_equal(g->seconds, 0.5, 1e-12);
	assert_string_equal(g->state, "starting");
	assert_float_equal(stat_rate_value(g, "exits"), 0, 1e-12);
	assert_float_equal(stat_rate_value(g, "irqs"), 10, 1e-12);

	p = find("port", "g");
	assert_non_null(p);
	assert_float_equal(stat_rate_value(p, "rx_packets"), 200, 1e-9);
	assert_float_equal(stat_rate_value(p, "sidecore"), 2, 1e-12);
	assert_null(find("sidecore", "1"));
	assert_null(find("port", "new"));
	assert_null(find("port", "gone"));
	assert_float_equal(stat_rate_value(p, "no_such_field"), 0, 1e-12);

	/* Without a TSC rate nothing can be said per second. */
	reader->last[1].hz = 0;
	assert_false(stat_rates(&reader->last[0], &reader->last[1], rates));
}

/* Cut, mangled and unfinished lines are counted and left out; whole samples still count. */
static void test_malformed_lines(void **state)
{
	static const char *const lines[] = {
		"stat:",
		"stat: ",
		"stat: sample",
		"stat: sample x tsc 1 hz 2",
		"stat: sample 1 tsc 1 hz",
		"stat: sample 1 tsc -1 hz 5",
		"stat: end 1",				/* nothing open */
		"stat: guest a tsc 1 exits 3",		/* nothing open */
		"stat: sample 1 tsc 100 hz 100",
		"stat: guest",
		"stat: guest a",			/* no TSC */
		"stat: guest a tsc",
		"stat: guest a tsc 1 exits",
		"stat: guest a tsc 1 exits 99999999999999999999999",
		"stat: guest a tsc 1 exits 12x",
		"stat: guest a tsc 1 =5",
		"stat: guest a tsc 1 io_instruction=",
		"stat: guest a tsc 1 io_instruction=1=2",
		"stat: guest a tsc 1 state",
		"stat: guest a tsc 1 exits 5 io_instr",	/* cut at the console's line end */
		"stat: guest this-name-is-far-too-long-for-any-guest-the-config-allows tsc 1 exits 1",
		"stat: guest a tsc 1 an_exit_reason_name_longer_than_any_there_is=1",
		"stat: guest b tsc 100 exits 5",
		"stat: end 2",				/* another sample's */
		"stat: end 1",
		"stat: sample 2 tsc 200 hz 100",
		"stat: guest b tsc 200 exits 10",
		/* Its end line was lost: the next sample begins, this one is dropped. */
		"stat: sample 3 tsc 300 hz 100",
		"stat: guest b tsc 300 exits 20",
		"[b] stat: guest b tsc 300 exits 1000",	/* a guest's own line */
		"stat:guest b tsc 300 exits 1000",
		"stat: end 3",
	};
	const struct stat_rate_item *b;

	(void)state;
	feed(lines, sizeof(lines) / sizeof(lines[0]));
	assert_int_equal(reader->samples, 2);
	assert_int_equal(reader->malformed, 21);
	assert_int_equal(reader->last[0].seq, 1);
	assert_int_equal(reader->last[1].seq, 3);
	assert_int_equal(reader->last[1].count, 1);
	assert_true(stat_rates(&reader->last[0], &reader->last[1], rates));
	b = find("guest", "b");
	assert_non_null(b);
	assert_float_equal(stat_rate_value(b, "exits"), 7.5, 1e-12);
}

/* Lines too long, too many words, too many items, and noise: bounded, no crash. */
static void test_oversized_and_noise(void **state)
{
	char line[4096];
	unsigned int len;

	(void)state;
	stat_reader_line(reader, "stat: sample 1 tsc 1 hz 1");
	memcpy(line, "stat: guest a tsc 1", 19);
	len = 19;
	while (len < sizeof(line) - 8)
		len += (unsigned int)snprintf(line + len, sizeof(line) - len, " x=1");
	stat_reader_line(reader, line);		/* longer than any console line */
	snprintf(line, 1000, "stat: guest a tsc 1");
	for (len = strlen(line); len < 990; len += 4)
		memcpy(line + len, " k=1", 5);
	stat_reader_line(reader, line);		/* more pairs than an item keeps */
	for (unsigned int i = 0; i < STAT_ITEMS_MAX + 10; i++) {
		snprintf(line, sizeof(line), "stat: port p%u tsc 1 rx_packets %u", i, i);
		stat_reader_line(reader, line);
	}
	assert_int_equal(reader->open.count, STAT_ITEMS_MAX);
	assert_int_equal(reader->malformed, 2 + 10);

	srand(1);
	for (unsigned int i = 0; i < 20000; i++) {
		unsigned int n = 6 + (unsigned int)rand() % 120;

		memcpy(line, "stat: ", 6);
		for (unsigned int j = 6; j < n; j++) {
			static const char alphabet[] = "0123456789 =abcdeghinpstx\t\r\xff";

			line[j] = alphabet[rand() % (sizeof(alphabet) - 1)];
		}
		line[n] = '\0';
		stat_reader_line(reader, line);
	}
	assert_true(reader->open.count <= STAT_ITEMS_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recorded_excerpt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recorded_haswell, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_maths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized_and_noise, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
