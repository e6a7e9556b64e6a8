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

bool text_line_is_control(uint8_t c)
{
	/*
	 * ECMA-48 §5: C0 is 0x00-0x1f, DEL 0x7f, C1 0x80-0x9f (0x9b is CSI
	 * in one byte). A C1 byte also ends the UTF-8 form of every C1 code
	 * (0xc2 0x80-0x9f), so replacing those bytes disarms both, at the
	 * price of some other UTF-8 characters coming out garbled.
	 */
	return (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f);
}

void text_line_put(struct text_line *t, uint8_t c)
{
	if (c == '\n') {
		text_line_emit(t);
		return;
	}
	if (c == '\r')
		return;
	if (text_line_is_control(c))
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
