/* SPDX-License-Identifier: MIT */
/*
 * printf.h - formatted output into a buffer: %d %i %u %x %X %p %s %c %%,
 * with flags '-', '0' and '#', a width, and the length modifiers l, ll and z.
 */
#ifndef SIDECORE_LIB_PRINTF_H
#define SIDECORE_LIB_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

/**
 * vsnprintf() - format into a buffer, like the C library's
 * @buf: where the text goes
 * @size: bytes at buf; the output is cut to size - 1 and NUL-terminated
 *	unless size is 0
 * @fmt: the format, with only the conversions listed above
 * @ap: the format's arguments
 *
 * Return: the length the whole output would have had, so a caller can tell
 * it was cut.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/**
 * snprintf() - vsnprintf() with its arguments inline
 * @buf: where the text goes
 * @size: bytes at buf
 * @fmt: the format
 * @...: its arguments
 *
 * Return: the length the whole output would have had.
 */
int snprintf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
