/* SPDX-License-Identifier: MIT */
/*
 * text_line.c - line assembly for the guests' consoles (text_line.h).
 */
#include <string.h>

#include "lib/text_line.h"

void text_line_init(struct text_line *t, text_line_fn sink, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->sink = sink;
	t->ctx = ctx;
}

/*
 * Hands buf[] to the sink. The index is clamped rather than trusted: even a
 * len that ran past the buffer cannot write outside it.
 */
static void text_line_emit(struct text_line *t)
{
	unsigned int len = t->len < TEXT_LINE_MAX ? t->len : TEXT_LINE_MAX - 1;

	t->buf[len] = '\0';
	t->sink(t->ctx, t->buf);
	t->len = 0;
}

void text_line_put(struct text_line *t, uint8_t c)
{
	if (c == '\n') {
		text_line_emit(t);
		return;
	}
	if (c == '\r')
		return;
	if (c < 0x20 && c != '\t')
		c = '.';
	/* The check bounds the store below by itself, whatever len holds. */
	if (t->len >= TEXT_LINE_MAX - 1)
		text_line_emit(t);
	t->buf[t->len++] = (char)c;
	/* A full line leaves at once, so the console never lags a long line. */
	if (t->len >= TEXT_LINE_MAX - 1)
		text_line_emit(t);
}

void text_line_flush(struct text_line *t)
{
	if (t->len)
		text_line_emit(t);
}
