/* SPDX-License-Identifier: MIT */
/*
 * log_ring.h - the console's byte ring: whole lines in, what the UART takes
 * out. Appending never waits: a line that does not fit is dropped whole and
 * counted, and the next line that fits is preceded by one notice saying how
 * many were lost. Taking hands a sink only what it accepts at once, so a
 * drainer's pass is bounded by the sink, not by how much is queued.
 *
 * One appender at a time and one taker at a time (callers serialise each
 * side); the two sides may run concurrently on different cores.
 */
#ifndef SIDECORE_LIB_LOG_RING_H
#define SIDECORE_LIB_LOG_RING_H

#include <stdbool.h>
#include <stdint.h>

struct log_ring {
	char *buf;
	uint64_t size;			/* a power of two */
	uint64_t head;			/* bytes ever appended (appender side) */
	uint64_t tail;			/* bytes ever taken (taker side) */
	uint64_t dropped_lines;		/* lost since the last notice (appender side) */
	uint64_t dropped_bytes;
};

/*
 * Writes a prefix of s (len bytes) without waiting; returns how many bytes
 * it took, at most len. Taking fewer than offered means "no more for now".
 */
typedef uint64_t (*log_ring_sink_fn)(void *ctx, const char *s, uint64_t len);

#define LOG_RING_INIT(b, n) { .buf = (b), .size = (n) }

bool log_ring_append(struct log_ring *r, const char *line, uint64_t len);
uint64_t log_ring_take(struct log_ring *r, log_ring_sink_fn sink, void *ctx);
bool log_ring_empty(struct log_ring *r);

#endif
