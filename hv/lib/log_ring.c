/* SPDX-License-Identifier: MIT */
/*
 * log_ring.c - the console's lossy line ring (see log_ring.h). The head is
 * published with release order after the bytes it covers, the tail after
 * the sink is done with them, so appender and taker need no common lock.
 */
#include <string.h>

#include "lib/log_ring.h"

/* "console: " + two 20-digit counts + the words fit well within this. */
#define NOTICE_MAX 80

static uint64_t log_ring_free(struct log_ring *r)
{
	return r->size - (r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
}

/* Copies len bytes in at the head, wrapping at the end of the buffer. */
static void log_ring_copy_in(struct log_ring *r, uint64_t at, const char *s, uint64_t len)
{
	uint64_t start = at & (r->size - 1);
	uint64_t first = len < r->size - start ? len : r->size - start;

	memcpy(r->buf + start, s, first);
	memcpy(r->buf, s + first, len - first);
}

static unsigned int log_ring_put_u64(char *out, uint64_t v)
{
	char digits[20];
	unsigned int n = 0, len = 0;

	do {
		digits[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		out[len++] = digits[--n];
	return len;
}

static unsigned int log_ring_put_str(char *out, const char *s)
{
	unsigned int len = strlen(s);

	memcpy(out, s, len);
	return len;
}

/* "console: N lines dropped (M bytes)\n" */
static unsigned int log_ring_notice(const struct log_ring *r, char *out)
{
	unsigned int len = 0;

	len += log_ring_put_str(out + len, "console: ");
	len += log_ring_put_u64(out + len, r->dropped_lines);
	len += log_ring_put_str(out + len, " lines dropped (");
	len += log_ring_put_u64(out + len, r->dropped_bytes);
	len += log_ring_put_str(out + len, " bytes)\n");
	return len;
}

/**
 * log_ring_append() - queue one line, or drop it whole if it does not fit.
 * @r: the ring; the caller holds off other appenders.
 * @line: the bytes, normally ending in a newline.
 * @len: their number.
 *
 * Never waits. After drops, the line goes in only together with the notice
 * that counts them (the notice first); otherwise it is counted too.
 *
 * Return: true if the line was queued, false if it was dropped.
 */
bool log_ring_append(struct log_ring *r, const char *line, uint64_t len)
{
	uint64_t room = log_ring_free(r), head = r->head;
	char notice[NOTICE_MAX];
	unsigned int notice_len = 0;

	if (r->dropped_lines)
		notice_len = log_ring_notice(r, notice);
	if (len > room || notice_len > room - len) {
		r->dropped_lines++;
		r->dropped_bytes += len;
		return false;
	}
	log_ring_copy_in(r, head, notice, notice_len);
	log_ring_copy_in(r, head + notice_len, line, len);
	r->dropped_lines = 0;
	r->dropped_bytes = 0;
	__atomic_store_n(&r->head, head + notice_len + len, __ATOMIC_RELEASE);
	return true;
}

/**
 * log_ring_take() - hand the sink as much of the queue as it accepts now.
 * @r: the ring; the caller holds off other takers.
 * @sink: writes a prefix of what it is offered, without waiting.
 * @ctx: passed to @sink.
 *
 * Stops as soon as the sink takes less than offered, so the work done is
 * bounded by what the sink accepts, not by what is queued: at most two calls
 * (the queue may wrap) when the sink is full.
 *
 * Return: bytes taken.
 */
uint64_t log_ring_take(struct log_ring *r, log_ring_sink_fn sink, void *ctx)
{
	uint64_t taken = 0;

	for (;;) {
		uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		uint64_t tail = r->tail, start = tail & (r->size - 1);
		uint64_t len = head - tail, n;

		if (!len)
			break;
		if (len > r->size - start)
			len = r->size - start;
		n = sink(ctx, r->buf + start, len);
		if (n > len)
			n = len;
		__atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
		taken += n;
		if (n < len)
			break;
	}
	return taken;
}

/**
 * log_ring_empty() - whether everything appended has been taken.
 * @r: the ring.
 *
 * Return: true if nothing is queued.
 */
bool log_ring_empty(struct log_ring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) ==
	       __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}
