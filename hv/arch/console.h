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
 * that (early boot) and after a panic it is written through at once.
 */
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

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

#endif
