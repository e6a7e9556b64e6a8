/* SPDX-License-Identifier: MIT */
/*
 * console.h - printk and panic. One line is written atomically with respect
 * to other CPUs, so the boot summary stays machine-readable under SMP.
 */
#ifndef SIDECORE_CORE_CONSOLE_H
#define SIDECORE_CORE_CONSOLE_H

void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
