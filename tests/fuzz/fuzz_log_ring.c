// SPDX-License-Identifier: MIT
/*
 * fuzz_log_ring.c - the console's lossy ring (hv/lib/log_ring.c) as the
 * console uses it (hv/arch/console.c): several cores append whole lines,
 * one at a time under the ring's lock, while the drainer takes on its own
 * core, as much as its sink accepts at each call.
 *
 * Input: byte 0 the ring's size, 2^(6 + byte 0 % 7) bytes (64 to 4096);
 * byte 1 the appenders, 1 + byte 1 % APPENDERS_MAX, each a thread; then
 * one byte per line: appender i makes lines from bytes i, i + n, i + 2n...
 * (n appenders), each byte the line's length past its tag (0 to 255). The
 * drainer, a thread of its own, accepts at each call the byte at its step
 * of the same bytes, modulo 64, so the sink may take nothing, part or all.
 * When the appenders are done the rest is taken whole.
 *
 * Each line is "p<appender> s<sequence> l<length> " and then filler that
 * depends on both, so a line cut, spliced or mixed with another is seen.
 * Invariants: the output is whole lines only, each either an intact line or
 * a drop notice; every line whose append succeeded comes out exactly once,
 * and none whose append failed; each appender's lines come out in its
 * order; the notices' counts plus the drops not yet noticed are exactly the
 * lines and bytes refused.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log_ring.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define APPENDERS_MAX	3
#define LINES_MAX	256		/* per appender */
#define RING_MAX	4096
#define LINE_MAX	320		/* tag and 255 bytes of filler */
#define OUT_MAX		(APPENDERS_MAX * LINES_MAX * (LINE_MAX + 80) + 1)

struct world;

struct appender {
	struct world *world;
	pthread_t thread;
	unsigned int id, lines;
	const uint8_t *lengths;		/* every n-th input byte */
	unsigned int stride;
	bool queued[LINES_MAX];
	uint64_t refused_lines, refused_bytes;
};

struct world {
	struct log_ring ring;
	char buf[RING_MAX];
	pthread_mutex_t lock;		/* the console's ring_lock */
	struct appender appender[APPENDERS_MAX];
	unsigned int appenders;
	int done;			/* appenders finished */
	const uint8_t *script;
	size_t script_len, step;
	char *out;
	size_t out_len;
};

static unsigned int line_make(char *line, unsigned int id, unsigned int seq, unsigned int fill)
{
	int len = snprintf(line, LINE_MAX, "p%u s%u l%u ", id, seq, fill);

	for (unsigned int i = 0; i < fill; i++)
		line[len + i] = (char)('a' + (id * 7 + seq + i) % 26);
	line[len + fill] = '\n';
	return (unsigned int)len + fill + 1;
}

static void *appender_run(void *arg)
{
	struct appender *a = arg;
	struct world *w = a->world;
	char line[LINE_MAX];

	for (unsigned int seq = 0; seq < a->lines; seq++) {
		unsigned int len = line_make(line, a->id, seq, a->lengths[seq * a->stride]);
		bool queued;

		pthread_mutex_lock(&w->lock);
		queued = log_ring_append(&w->ring, line, len);
		pthread_mutex_unlock(&w->lock);
		a->queued[seq] = queued;
		if (!queued) {
			a->refused_lines++;
			a->refused_bytes += len;
		}
	}
	return NULL;
}

/* The UART: takes what the script says, or everything once the appenders are done. */
static uint64_t sink(void *ctx, const char *s, uint64_t len)
{
	struct world *w = ctx;
	uint64_t n = len;

	if (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
		n = w->script[w->step++ % w->script_len] % 64;
		if (n > len)
			n = len;
	}
	CHECK(w->out_len + n < OUT_MAX);
	memcpy(w->out + w->out_len, s, n);
	w->out_len += n;
	return n;
}

static void *drainer_run(void *arg)
{
	struct world *w = arg;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		if (!log_ring_take(&w->ring, sink, w))
			sched_yield();	/* the appenders may share its core */
	return NULL;
}

/* One line of output: a notice (counts added) or an appender's, intact and in order. */
static void check_line(struct world *w, const char *line, size_t len, unsigned int next[],
		       uint64_t *noticed_lines, uint64_t *noticed_bytes)
{
	char copy[LINE_MAX + 80], expected[LINE_MAX];
	unsigned long lines, bytes;
	unsigned int id, seq, fill;
	int used = 0;

	CHECK(len < sizeof(copy));
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (sscanf(copy, "console: %lu lines dropped (%lu bytes)\n%n", &lines, &bytes, &used) == 2 &&
	    (size_t)used == len) {
		CHECK(lines > 0);
		*noticed_lines += lines;
		*noticed_bytes += bytes;
		return;
	}
	CHECK(sscanf(copy, "p%u s%u l%u ", &id, &seq, &fill) == 3);
	CHECK(id < w->appenders && seq < w->appender[id].lines && fill < 256);
	CHECK(line_make(expected, id, seq, fill) == len && !memcmp(expected, line, len));
	CHECK(fill == w->appender[id].lengths[seq * w->appender[id].stride]);
	/* In order, once, and only what was queued: the ones skipped were refused. */
	CHECK(seq >= next[id]);
	for (unsigned int s = next[id]; s < seq; s++)
		CHECK(!w->appender[id].queued[s]);
	CHECK(w->appender[id].queued[seq]);
	next[id] = seq + 1;
}

static void check_output(struct world *w)
{
	unsigned int next[APPENDERS_MAX] = { 0 };
	uint64_t noticed_lines = 0, noticed_bytes = 0, refused_lines = 0, refused_bytes = 0;
	size_t start = 0;

	for (size_t i = 0; i < w->out_len; i++) {
		if (w->out[i] != '\n')
			continue;
		check_line(w, w->out + start, i + 1 - start, next, &noticed_lines, &noticed_bytes);
		start = i + 1;
	}
	CHECK(start == w->out_len);	/* no partial line left behind */
	for (unsigned int id = 0; id < w->appenders; id++) {
		for (unsigned int s = next[id]; s < w->appender[id].lines; s++)
			CHECK(!w->appender[id].queued[s]);
		refused_lines += w->appender[id].refused_lines;
		refused_bytes += w->appender[id].refused_bytes;
	}
	CHECK(noticed_lines + w->ring.dropped_lines == refused_lines);
	CHECK(noticed_bytes + w->ring.dropped_bytes == refused_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct world w;
	static char out[OUT_MAX];
	pthread_t drainer;
	size_t lines;

	if (size < 3)
		return 0;
	memset(&w, 0, sizeof(w));
	w.ring = (struct log_ring)LOG_RING_INIT(w.buf, 64u << (data[0] % 7));
	w.appenders = 1 + data[1] % APPENDERS_MAX;
	w.script = data + 2;
	w.script_len = size - 2;
	w.out = out;
	lines = w.script_len / w.appenders;
	if (lines > LINES_MAX)
		lines = LINES_MAX;
	pthread_mutex_init(&w.lock, NULL);
	for (unsigned int i = 0; i < w.appenders; i++) {
		struct appender *a = &w.appender[i];

		a->world = &w;
		a->id = i;
		a->stride = w.appenders;
		a->lengths = w.script + i;
		a->lines = (unsigned int)lines;
	}
	CHECK(!pthread_create(&drainer, NULL, drainer_run, &w));
	for (unsigned int i = 0; i < w.appenders; i++)
		CHECK(!pthread_create(&w.appender[i].thread, NULL, appender_run, &w.appender[i]));
	for (unsigned int i = 0; i < w.appenders; i++)
		pthread_join(w.appender[i].thread, NULL);
	__atomic_store_n(&w.done, 1, __ATOMIC_RELEASE);
	pthread_join(drainer, NULL);
	/* What is left goes out whole, as at a write-through. */
	log_ring_take(&w.ring, sink, &w);
	CHECK(log_ring_empty(&w.ring));
	check_output(&w);
	pthread_mutex_destroy(&w.lock);
	return 0;
}
