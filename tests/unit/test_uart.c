/* SPDX-License-Identifier: MIT */
/*
 * test_uart.c - unit tests for hv/vdev/uart.c: line assembly towards the
 * host console, and the register behaviour (PC16550D datasheet, TI16750
 * FIFO extension) that Linux's 8250 driver probes for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/text_line.h"
#include "vdev/uart.h"

#define REG_DATA	0
#define REG_IER		1
#define REG_IIR		2	/* FCR on writes */
#define REG_LCR		3
#define REG_MCR		4
#define REG_LSR		5
#define REG_MSR		6
#define REG_SCR		7

#define LCR_8N1		0x03
#define LCR_DLAB	0x80
#define IER_THRI	0x02
#define IIR_NO_INT	0x01
#define IIR_THRI	0x02
#define IIR_FIFO_ENABLED 0xc0
#define IIR_64BYTE_FIFO	0x20
#define FCR_ENABLE_FIFO	0x01
#define FCR_CLEAR_RCVR	0x02
#define FCR_CLEAR_XMIT	0x04
#define FCR7_64BYTE	0x20
#define MCR_DTR		0x01
#define MCR_RTS		0x02
#define MCR_OUT1	0x04
#define MCR_OUT2	0x08
#define MCR_LOOP	0x10
#define MSR_CTS		0x10
#define MSR_DSR		0x20
#define MSR_RI		0x40
#define MSR_DCD		0x80
#define LSR_THRE	0x20
#define LSR_TEMT	0x40

#define MAX_LINES	8

/* What the sink received, line by line. */
struct console {
	unsigned int lines;
	char line[MAX_LINES][TEXT_LINE_MAX];
};

static void console_sink(void *ctx, const char *line)
{
	struct console *c = ctx;

	assert_true(c->lines < MAX_LINES);
	assert_true(strlen(line) < TEXT_LINE_MAX);
	strcpy(c->line[c->lines++], line);
}

static void uart_start(struct uart *u, struct console *c)
{
	memset(c, 0, sizeof(*c));
	memset(u, 0xa5, sizeof(*u));
	uart_init(u, console_sink, c);
}

static void uart_puts(struct uart *u, const char *s)
{
	while (*s)
		uart_write(u, REG_DATA, (uint8_t)*s++);
}

/* --- line assembly ---------------------------------------------------------- */

static void test_lines_reach_the_sink(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_puts(&u, "hello");
	assert_int_equal(c.lines, 0);	/* nothing until the line ends */
	uart_puts(&u, "\nworld\n");
	assert_int_equal(c.lines, 2);
	assert_string_equal(c.line[0], "hello");
	assert_string_equal(c.line[1], "world");
	/* An empty line is still a line. */
	uart_puts(&u, "\n");
	assert_int_equal(c.lines, 3);
	assert_string_equal(c.line[2], "");
}

static void test_carriage_return_dropped(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_puts(&u, "a\r\nb\r\n\r\r\n");
	assert_int_equal(c.lines, 3);
	assert_string_equal(c.line[0], "a");
	assert_string_equal(c.line[1], "b");
	assert_string_equal(c.line[2], "");
}

/* Control characters other than tab would garble the host console. */
static void test_control_characters_replaced(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_puts(&u, "x\x1b[1mbold\x07\tend\b\x7f\xc3\xa9\n");
	uart_write(&u, REG_DATA, 0x00);
	uart_puts(&u, "\n");
	assert_int_equal(c.lines, 2);
	assert_string_equal(c.line[0], "x.[1mbold.\tend..\xc3\xa9");
	assert_string_equal(c.line[1], ".");
}

/*
 * C1 controls steer a terminal as C0's do: 0x9b alone is CSI, and 0xc2 0x9b
 * is CSI in UTF-8. Every byte 0x80-0x9f goes; 0xa0 and up stay.
 */
static void test_c1_controls_replaced(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_puts(&u, "\x9b" "31m\x80\x9f\xa0\xff\xc2\x9b" "2J\x8d\n");
	assert_int_equal(c.lines, 1);
	assert_string_equal(c.line[0], ".31m..\xa0\xff\xc2.2J.");
	for (unsigned int b = 0; b < 256; b++)
		assert_int_equal(text_line_is_control((uint8_t)b),
				 (b < 0x20 && b != '\t') || (b >= 0x7f && b <= 0x9f));
}

/* A line longer than the buffer goes out in pieces, none of them lost. */
static void test_long_line_flushed_at_limit(void **state)
{
	char expected[TEXT_LINE_MAX];
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	for (unsigned int i = 0; i < 300; i++)
		uart_write(&u, REG_DATA, (uint8_t)('a' + i % 26));
	assert_int_equal(c.lines, 1);
	assert_int_equal(strlen(c.line[0]), TEXT_LINE_MAX - 1);
	for (unsigned int i = 0; i < TEXT_LINE_MAX - 1; i++)
		expected[i] = (char)('a' + i % 26);
	expected[TEXT_LINE_MAX - 1] = '\0';
	assert_string_equal(c.line[0], expected);
	uart_puts(&u, "\n");
	assert_int_equal(c.lines, 2);
	assert_int_equal(strlen(c.line[1]), 300 - (TEXT_LINE_MAX - 1));
	assert_int_equal(c.line[1][0], 'a' + (TEXT_LINE_MAX - 1) % 26);
}

static void test_flush_hands_over_partial_line(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_flush(&u);		/* nothing buffered: no empty line */
	assert_int_equal(c.lines, 0);
	uart_puts(&u, "login: ");
	uart_flush(&u);
	assert_int_equal(c.lines, 1);
	assert_string_equal(c.line[0], "login: ");
	uart_flush(&u);
	assert_int_equal(c.lines, 1);
	uart_puts(&u, "root\n");
	assert_int_equal(c.lines, 2);
	assert_string_equal(c.line[1], "root");
}

/*
 * However len came to run past the buffer (a core racing another, were the
 * lock ever missing), the next byte stores inside line[]: the buffer goes
 * out first, clamped, and the byte starts a new line.
 */
static void test_overlong_len_stays_in_buffer(void **state)
{
	struct console c;
	/* Exactly its size on the heap: AddressSanitizer guards its end. */
	struct uart *u = test_malloc(sizeof(*u));

	(void)state;
	memset(&c, 0, sizeof(c));
	uart_init(u, console_sink, &c);
	uart_puts(u, "boot");
	u->out.len = TEXT_LINE_MAX + 40;
	uart_puts(u, "x\n");
	assert_int_equal(c.lines, 2);
	assert_string_equal(c.line[0], "boot");
	assert_string_equal(c.line[1], "x");
	u->out.len = TEXT_LINE_MAX;
	uart_flush(u);
	assert_int_equal(c.lines, 3);
	assert_string_equal(c.line[2], "x");	/* what the buffer held */
	test_free(u);
}

/* --- registers ----------------------------------------------------------------- */

static void test_reset_registers(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	assert_int_equal(uart_read(&u, REG_IER), 0);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
	assert_int_equal(uart_read(&u, REG_LCR), 0);
	assert_int_equal(uart_read(&u, REG_MCR), 0);
	/* The transmitter is always idle and nothing is ever received. */
	assert_int_equal(uart_read(&u, REG_LSR), LSR_THRE | LSR_TEMT);
	assert_int_equal(uart_read(&u, REG_DATA), 0);
	assert_int_equal(uart_read(&u, REG_MSR), MSR_DCD | MSR_DSR | MSR_CTS);
	/* Past the eight registers: an undriven bus. */
	assert_int_equal(uart_read(&u, 8), 0xff);
	uart_write(&u, 8, 0x12);
	assert_int_equal(c.lines, 0);
}

static void test_divisor_latch(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IER, 0x05);
	uart_write(&u, REG_LCR, LCR_DLAB | LCR_8N1);
	assert_int_equal(uart_read(&u, REG_LCR), LCR_DLAB | LCR_8N1);
	uart_write(&u, REG_DATA, 0x01);		/* 115200 baud */
	uart_write(&u, REG_IER, 0x00);
	assert_int_equal(uart_read(&u, REG_DATA), 0x01);
	assert_int_equal(uart_read(&u, REG_IER), 0x00);
	uart_write(&u, REG_DATA, 0x0c);		/* 9600 baud */
	uart_write(&u, REG_IER, 0x34);
	assert_int_equal(uart_read(&u, REG_DATA), 0x0c);
	assert_int_equal(uart_read(&u, REG_IER), 0x34);
	uart_write(&u, REG_LCR, LCR_8N1);
	/* The latch wrote neither THR nor IER. */
	assert_int_equal(uart_read(&u, REG_IER), 0x05);
	assert_int_equal(uart_read(&u, REG_DATA), 0);
	uart_flush(&u);
	assert_int_equal(c.lines, 0);
	/* And the latch survives. */
	uart_write(&u, REG_LCR, LCR_DLAB | LCR_8N1);
	assert_int_equal(uart_read(&u, REG_DATA), 0x0c);
	assert_int_equal(uart_read(&u, REG_IER), 0x34);
}

static void test_scratch_register(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	assert_int_equal(uart_read(&u, REG_SCR), 0);
	uart_write(&u, REG_SCR, 0x55);
	assert_int_equal(uart_read(&u, REG_SCR), 0x55);
	uart_write(&u, REG_SCR, 0xaa);
	assert_int_equal(uart_read(&u, REG_SCR), 0xaa);
	uart_write(&u, REG_LCR, LCR_DLAB);	/* not banked */
	assert_int_equal(uart_read(&u, REG_SCR), 0xaa);
}

static void test_register_masks(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IER, 0xff);
	assert_int_equal(uart_read(&u, REG_IER), 0x0f);
	uart_write(&u, REG_MCR, 0xff);
	assert_int_equal(uart_read(&u, REG_MCR), 0x1f);
	uart_write(&u, REG_LCR, 0x7f);
	assert_int_equal(uart_read(&u, REG_LCR), 0x7f);
	/* LSR and MSR are read-only. */
	uart_write(&u, REG_LSR, 0);
	assert_int_equal(uart_read(&u, REG_LSR), LSR_THRE | LSR_TEMT);
}

/* --- the THRE interrupt (PC16550D, IIR and IER) ------------------------------ */

static void test_thre_pending_and_cleared_by_read(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	/* Enabling the interrupt while THR is empty raises it at once. */
	uart_write(&u, REG_IER, IER_THRI);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_THRI);
	/* Reading IIR while it reports THRE clears it. */
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
	/* Reading LSR does not clear or raise it. */
	assert_int_equal(uart_read(&u, REG_LSR), LSR_THRE | LSR_TEMT);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
}

static void test_thr_write_reraises_thre(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IER, IER_THRI);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_THRI);
	/* The character leaves at once, so THR is empty again. */
	uart_write(&u, REG_DATA, 'x');
	assert_int_equal(uart_read(&u, REG_IIR), IIR_THRI);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
	/* Disabled in IER: no interrupt however much is written. */
	uart_write(&u, REG_IER, 0);
	uart_write(&u, REG_DATA, 'y');
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
}

/* Disabling THRI takes back a THRE interrupt not yet read. */
static void test_ier_disable_clears_thre(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IER, IER_THRI);
	uart_write(&u, REG_IER, 0);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
	/* Enabling other sources alone raises nothing. */
	uart_write(&u, REG_IER, 0x0d);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
}

/*
 * Linux's serial8250_do_startup() test for UART_BUG_THRE: enable THRI, read
 * IIR (THRE), disable, enable again and read IIR: a real 16550 reasserts THRE.
 */
static void test_linux_thre_sequence(void **state)
{
	struct console c;
	struct uart u;
	uint8_t iir1, iir2;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IER, IER_THRI);
	iir1 = uart_read(&u, REG_IIR);
	uart_write(&u, REG_IER, 0);
	uart_write(&u, REG_IER, IER_THRI);
	iir2 = uart_read(&u, REG_IIR);
	uart_write(&u, REG_IER, 0);
	assert_false(iir1 & IIR_NO_INT);
	assert_false(iir2 & IIR_NO_INT);
	assert_int_equal(iir1 & 0x0f, IIR_THRI);
	assert_int_equal(iir2 & 0x0f, IIR_THRI);
	/* The UART_BUG_TXEN test right after: THRI on, then LSR and IIR. */
	uart_write(&u, REG_IER, IER_THRI);
	assert_true(uart_read(&u, REG_LSR) & LSR_TEMT);
	assert_false(uart_read(&u, REG_IIR) & IIR_NO_INT);
	uart_write(&u, REG_IER, 0);
}

/* The divisor latch shares offset 0 with THR but is no transmission. */
static void test_divisor_write_keeps_thre(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IER, IER_THRI);
	uart_write(&u, REG_LCR, LCR_DLAB | LCR_8N1);
	uart_write(&u, REG_DATA, 0x01);
	uart_write(&u, REG_LCR, LCR_8N1);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_THRI);
	/* Nor does a latch write raise one. */
	uart_write(&u, REG_LCR, LCR_DLAB | LCR_8N1);
	uart_write(&u, REG_DATA, 0x01);
	uart_write(&u, REG_LCR, LCR_8N1);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
	assert_int_equal(c.lines, 0);
}

/* --- FIFOs ---------------------------------------------------------------------- */

static void test_fifo_bits_in_iir(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO | FCR_CLEAR_RCVR | FCR_CLEAR_XMIT);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_FIFO_ENABLED | IIR_NO_INT);
	uart_write(&u, REG_IER, IER_THRI);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_FIFO_ENABLED | IIR_THRI);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_FIFO_ENABLED | IIR_NO_INT);
	/* Disabling the FIFOs clears the bits. */
	uart_write(&u, REG_IIR, 0);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
	/* FCR is write-only: writing it does not change what LCR or IER read. */
	assert_int_equal(uart_read(&u, REG_LCR), 0);
	assert_int_equal(uart_read(&u, REG_IER), IER_THRI);
}

/*
 * TI16750: the 64-byte FIFO bit (FCR bit 5) is writable only with DLAB set.
 * Linux's autoconfig_16550a() tells a 16750 by exactly this: IIR & 0xe0 is
 * 0xc0 after FCR=0x21 without DLAB and 0xe0 after FCR=0x21 with DLAB.
 */
static void test_16750_fifo_needs_dlab(void **state)
{
	struct console c;
	struct uart u;
	uint8_t status1, status2;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_LCR, 0);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO | FCR7_64BYTE);
	status1 = uart_read(&u, REG_IIR) & (IIR_64BYTE_FIFO | IIR_FIFO_ENABLED);
	uart_write(&u, REG_IIR, 0);
	uart_write(&u, REG_LCR, LCR_DLAB);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO | FCR7_64BYTE);
	status2 = uart_read(&u, REG_IIR) & (IIR_64BYTE_FIFO | IIR_FIFO_ENABLED);
	uart_write(&u, REG_IIR, 0);
	uart_write(&u, REG_LCR, 0);
	assert_int_equal(status1, IIR_FIFO_ENABLED);
	assert_int_equal(status2, IIR_64BYTE_FIFO | IIR_FIFO_ENABLED);

	/* Set with DLAB, the bit survives FCR writes without it... */
	uart_write(&u, REG_LCR, LCR_DLAB);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO | FCR7_64BYTE);
	uart_write(&u, REG_LCR, LCR_8N1);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_64BYTE_FIFO | IIR_FIFO_ENABLED | IIR_NO_INT);
	/* ...and is cleared with DLAB, or by turning the FIFOs off. */
	uart_write(&u, REG_LCR, LCR_DLAB);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_FIFO_ENABLED | IIR_NO_INT);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO | FCR7_64BYTE);
	uart_write(&u, REG_LCR, LCR_8N1);
	uart_write(&u, REG_IIR, 0);
	uart_write(&u, REG_IIR, FCR_ENABLE_FIFO);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_FIFO_ENABLED | IIR_NO_INT);
	/* Without the FIFOs on, the 64-byte bit reads as nothing. */
	uart_write(&u, REG_LCR, LCR_DLAB);
	uart_write(&u, REG_IIR, FCR7_64BYTE);
	uart_write(&u, REG_LCR, LCR_8N1);
	assert_int_equal(uart_read(&u, REG_IIR), IIR_NO_INT);
}

/* --- loopback (PC16550D, MCR bit 4) ------------------------------------------- */

static void test_loopback_mirrors_modem_lines(void **state)
{
	static const struct { uint8_t mcr, msr; } wiring[] = {
		{ 0, 0 },
		{ MCR_DTR, MSR_DSR },
		{ MCR_RTS, MSR_CTS },
		{ MCR_OUT1, MSR_RI },
		{ MCR_OUT2, MSR_DCD },
		{ MCR_RTS | MCR_OUT2, MSR_CTS | MSR_DCD },	/* Linux's probe: 0x90 */
		{ 0x0f, 0xf0 },
	};
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	for (size_t i = 0; i < sizeof(wiring) / sizeof(wiring[0]); i++) {
		uart_write(&u, REG_MCR, MCR_LOOP | wiring[i].mcr);
		assert_int_equal(uart_read(&u, REG_MSR) & 0xf0, wiring[i].msr);
	}
	/* Out of loopback the modem inputs read as a connected line again. */
	uart_write(&u, REG_MCR, MCR_OUT2 | MCR_RTS | MCR_DTR);
	assert_int_equal(uart_read(&u, REG_MSR), MSR_DCD | MSR_DSR | MSR_CTS);
}

/* What the 8250 probe sends in loopback must not reach the console. */
static void test_loopback_transmits_nothing(void **state)
{
	struct console c;
	struct uart u;

	(void)state;
	uart_start(&u, &c);
	uart_write(&u, REG_IER, IER_THRI);
	uart_read(&u, REG_IIR);
	uart_write(&u, REG_MCR, MCR_LOOP);
	uart_puts(&u, "probe\n");
	uart_flush(&u);
	assert_int_equal(c.lines, 0);
	/* THR still empties, so THRE is still raised. */
	assert_int_equal(uart_read(&u, REG_IIR), IIR_THRI);
	uart_write(&u, REG_MCR, MCR_OUT2);
	uart_puts(&u, "ok\n");
	assert_int_equal(c.lines, 1);
	assert_string_equal(c.line[0], "ok");
}

int main(void)
{
	const struct CMUnitTest lines[] = {
		cmocka_unit_test(test_lines_reach_the_sink),
		cmocka_unit_test(test_carriage_return_dropped),
		cmocka_unit_test(test_control_characters_replaced),
		cmocka_unit_test(test_c1_controls_replaced),
		cmocka_unit_test(test_long_line_flushed_at_limit),
		cmocka_unit_test(test_flush_hands_over_partial_line),
		cmocka_unit_test(test_overlong_len_stays_in_buffer),
	};
	const struct CMUnitTest registers[] = {
		cmocka_unit_test(test_reset_registers),
		cmocka_unit_test(test_divisor_latch),
		cmocka_unit_test(test_scratch_register),
		cmocka_unit_test(test_register_masks),
	};
	const struct CMUnitTest interrupts[] = {
		cmocka_unit_test(test_thre_pending_and_cleared_by_read),
		cmocka_unit_test(test_thr_write_reraises_thre),
		cmocka_unit_test(test_ier_disable_clears_thre),
		cmocka_unit_test(test_linux_thre_sequence),
		cmocka_unit_test(test_divisor_write_keeps_thre),
	};
	const struct CMUnitTest fifos_loopback[] = {
		cmocka_unit_test(test_fifo_bits_in_iir),
		cmocka_unit_test(test_16750_fifo_needs_dlab),
		cmocka_unit_test(test_loopback_mirrors_modem_lines),
		cmocka_unit_test(test_loopback_transmits_nothing),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("uart lines", lines, NULL, NULL);
	failed += cmocka_run_group_tests_name("uart registers", registers, NULL, NULL);
	failed += cmocka_run_group_tests_name("uart THRE interrupt", interrupts, NULL, NULL);
	failed += cmocka_run_group_tests_name("uart FIFOs and loopback", fifos_loopback,
					      NULL, NULL);
	return failed ? 1 : 0;
}
