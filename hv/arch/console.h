/* SPDX-License-Identifier: MIT */
/*
 * console.h - printk and panic. Each call's text reaches the serial port
 * whole and in order, so the boot summary stays machine-readable under SMP;
 * when output outruns the UART, whole lines are dropped and counted.
 */
#ifndef SIDECORE_ARCH_CONSOLE_H
#define SIDECORE_ARCH_CONSOLE_H

#include <stdbool.h>

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* From now on cpu writes the console out; the others only queue lines. */
void console_set_drainer(unsigned int cpu);
/* On the drainer, writes what the UART takes now; true while output is left. */
bool console_drain(void);

#endif
