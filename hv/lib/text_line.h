/* SPDX-License-Identifier: MIT */
/*
 * text_line.h - bytes a guest writes to one of its consoles, gathered into
 * lines for the host console. Control characters (C0, DEL and C1, tab
 * excepted) become '.', so a guest cannot move the host console's cursor,
 * start an escape sequence or split its lines; a line longer than
 * TEXT_LINE_MAX - 1 bytes leaves in pieces.
 *
 * Not locked: each console device serialises its own calls.
 */
#ifndef SIDECORE_LIB_TEXT_LINE_H
#define SIDECORE_LIB_TEXT_LINE_H

#include <stdbool.h>
#include <stdint.h>

#define TEXT_LINE_MAX	256

/* Receives each line as a string, without its newline. */
typedef void (*text_line_fn)(void *ctx, const char *line);

struct text_line {
	unsigned int len;	/* bytes in buf[], below TEXT_LINE_MAX - 1 */
	text_line_fn sink;
	void *ctx;
	char buf[TEXT_LINE_MAX];	/* last: in host tests an overrun hits a redzone */
};

/**
 * text_line_init() - an empty line
 * @t: the line; its old contents are lost
 * @sink: receives each line; never NULL
 * @ctx: passed to @sink
 */
void text_line_init(struct text_line *t, text_line_fn sink, void *ctx);

/**
 * text_line_is_control() - whether a byte would steer the host's terminal
 * @c: the byte
 *
 * Return: true for C0 controls but tab, DEL and the C1 controls 0x80-0x9f.
 */
bool text_line_is_control(uint8_t c);

/**
 * text_line_put() - one byte of a guest's output
 * @t: the line
 * @c: the byte: '\n' ends the line, '\r' is dropped
 */
void text_line_put(struct text_line *t, uint8_t c);

/**
 * text_line_flush() - hands over a partial line, if there is one
 * @t: the line
 *
 * At a stop or a device reset, so nothing the guest printed is lost.
 */
void text_line_flush(struct text_line *t);

#endif
