/* SPDX-License-Identifier: MIT */
/*
 * printf.h - formatted output into a buffer: %d %i %u %x %X %p %s %c %%,
 * with flags '-', '0' and '#', a width, and the length modifiers l, ll and z.
 */
#ifndef SIDECORE_LIB_PRINTF_H
#define SIDECORE_LIB_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
