/* SPDX-License-Identifier: MIT */
/*
 * console.h - printk and panic. Each call's text reaches the serial port
 * whole and in order, so the boot summary stays machine-readable under SMP.
 */
#ifndef SIDECORE_CORE_CONSOLE_H
#define SIDECORE_CORE_CONSOLE_H

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* From now on cpu writes the console out; the others only queue lines. */
void console_set_drainer(unsigned int cpu);
/* Writes out everything queued, when called on the drainer; otherwise nothing. */
void console_drain(void);

#endif
