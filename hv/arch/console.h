/* SPDX-License-Identifier: MIT */
/*
 * console.h - printk and panic. Each call's text reaches the serial port
 * whole and in order, so the boot summary stays machine-readable under SMP;
 * when output outruns the UART, whole lines are dropped and counted.
 */
#ifndef SIDECORE_ARCH_CONSOLE_H
#define SIDECORE_ARCH_CONSOLE_H

#include <stdbool.h>

/**
 * printk() - queue formatted text for the serial console
 * @fmt: printf-style format (lib/printf.c); the text is cut at 511 bytes
 * @...: the format's arguments
 *
 * Never waits on the UART once a drainer is named: the text goes into the
 * console ring, and a drainer on another core is woken with an IPI. Before
 * that (early boot), and after a panic that left no drainer, it is written
 * through at once.
 */
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Where this core's printk() text goes instead of the console, while set. */
struct console_capture {
	char *buf;
	unsigned int size;
	unsigned int len;	/* whole lines kept so far */
	bool full;		/* a line did not fit: the rest is dropped */
};

/**
 * console_capture() - send this core's printk() text to a buffer, or back
 * @capture: the buffer, or NULL for the console again
 *
 * For a report a guest reads rather than the operator (the counters on
 * CID 2): the same lines the console would get, none of them on it.
 */
void console_capture(struct console_capture *capture);

/**
 * console_set_drainer() - name the core that writes the console out
 * @cpu: topology CPU number of the drainer
 *
 * From now on only that core moves queued lines to the UART, through
 * console_drain() on each pass of its loop; the others only queue lines
 * and wake it with an IPI.
 */
void console_set_drainer(unsigned int cpu);
/* On the drainer, writes what the UART takes now; true while output is left. */
bool console_drain(void);

/**
 * console_set_tick() - run a function on each pass of the drainer's loop
 * @tick: called first in console_drain() on the drainer, NULL for none;
 *        while it returns true the drainer does not halt
 *
 * Set on the drainer itself (from a typed line): the periodic counters of
 * docs/operator.md, "Live counters".
 */
void console_set_tick(bool (*tick)(void));

#define CONSOLE_INPUT_MAX 80	/* longest command line, terminator included */

/**
 * console_enable_input() - hand typed lines to a function
 * @line: called on the drainer, from console_drain(), once per line the
 *        operator ends with CR or LF; the text has no line end
 *
 * Turns on the UART's receive interrupt. Its vector (VECTOR_CONSOLE) only
 * marks input waiting; the drainer reads it. The caller routes the UART's
 * IRQ to the drainer (arch/ioapic.h). Unprintable bytes are dropped, and a
 * line longer than CONSOLE_INPUT_MAX - 1 is cut there.
 */
void console_enable_input(void (*line)(const char *text));

/**
 * console_input_interrupt() - the handler of VECTOR_CONSOLE: marks input waiting
 */
void console_input_interrupt(void);

#endif
