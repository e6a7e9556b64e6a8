// SPDX-License-Identifier: MIT
/*
 * fuzz_uart.c - arbitrary port traffic against the guest's 8250 UART
 * (hv/vdev/uart.c).
 *
 * The input is a sequence of 2-byte operations: byte 0 bit 0 selects a write
 * (else a read), bits 4:1 the offset from the base (0-15: 8-15 lie beyond the
 * eight ports), byte 1 is the value written. The input ends with
 * uart_flush(), as a stopping guest does.
 *
 * The fuzzer keeps its own copy of the line being typed and of LCR and MCR,
 * from what it wrote, and checks that:
 *
 * - every line the sink gets is NUL-terminated within TEXT_LINE_MAX bytes,
 *   holds no CR, LF or other C0, DEL or C1 control but tab, and is exactly the
 *   characters transmitted since the previous line (nothing lost, nothing
 *   added), cut at TEXT_LINE_MAX - 1;
 * - only a data write outside DLAB and loopback transmits, and only a
 *   newline, a full line or the flush hands one over;
 * - LSR always reads transmitter empty, IIR reports each THRE at most once
 *   and only while IER enables it, LCR reads what was written, ports past
 *   the eighth read all ones.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vdev/uart.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define OP_BYTES	2
#define LCR_DLAB	0x80
#define MCR_LOOP	0x10
#define IER_THR_EMPTY	0x02

struct model {
	char line[TEXT_LINE_MAX];	/* what the sink must get next */
	unsigned int len;
	unsigned int lines;		/* sink calls so far */
	uint8_t lcr, mcr, ier;
};

static void sink(void *ctx, const char *line)
{
	struct model *m = ctx;
	size_t n = strnlen(line, TEXT_LINE_MAX);

	CHECK(n < TEXT_LINE_MAX);
	for (size_t i = 0; i < n; i++)
		CHECK(((unsigned char)line[i] >= 0x20 && ((unsigned char)line[i] < 0x7f ||
							   (unsigned char)line[i] > 0x9f)) ||
		      line[i] == '\t');
	CHECK(n == m->len && memcmp(line, m->line, n) == 0);
	m->len = 0;
	m->lines++;
}

/* What one transmitted character must do to the line. */
static void model_transmit(struct model *m, uint8_t c, unsigned int *want_lines)
{
	if (c == '\n') {
		++*want_lines;
		return;
	}
	if (c == '\r')
		return;
	m->line[m->len++] = (c < 0x20 && c != '\t') || (c >= 0x7f && c <= 0x9f) ? '.' : (char)c;
	if (m->len == TEXT_LINE_MAX - 1)
		++*want_lines;
}

static void run_op(struct uart *u, struct model *m, const uint8_t *op)
{
	unsigned int offset = (op[0] >> 1) & 15, want_lines = m->lines;
	bool dlab = m->lcr & LCR_DLAB;
	uint8_t value = op[1];

	if (!(op[0] & 1)) {
		uint8_t r = uart_read(u, offset);

		if (offset >= UART_PORTS)
			CHECK(r == 0xff);
		else if (offset == 2)
			CHECK((r & 0x0f) == 0x01 || ((r & 0x0f) == 0x02 && (m->ier & IER_THR_EMPTY)));
		else if (offset == 3)
			CHECK(r == m->lcr);
		else if (offset == 4)
			CHECK(r == m->mcr);
		else if (offset == 5)
			CHECK(r == 0x60);
		/* Reading IIR consumed any THRE it had. */
		if (offset == 2)
			CHECK((uart_read(u, 2) & 0x0f) == 0x01);
		CHECK(m->lines == want_lines);
		return;
	}
	if (offset == 0 && !dlab && !(m->mcr & MCR_LOOP))
		model_transmit(m, value, &want_lines);
	else if (offset == 1 && !dlab)
		m->ier = value & 0x0f;
	else if (offset == 3)
		m->lcr = value;
	else if (offset == 4)
		m->mcr = value & 0x1f;
	uart_write(u, offset, value);
	CHECK(m->lines == want_lines);
	CHECK(m->len < TEXT_LINE_MAX - 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct uart u;
	static struct model m;
	unsigned int lines;
	bool pending;

	memset(&m, 0, sizeof(m));
	uart_init(&u, sink, &m);
	for (size_t at = 0; at + OP_BYTES <= size; at += OP_BYTES)
		run_op(&u, &m, data + at);
	lines = m.lines;
	pending = m.len;
	uart_flush(&u);
	CHECK(m.lines == lines + pending);
	CHECK(m.len == 0);
	return 0;
}
