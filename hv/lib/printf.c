/* SPDX-License-Identifier: MIT */
/*
 * printf.c - a small vsnprintf. Output is always NUL-terminated when size is
 * non-zero; the return value is the length the full output would have had.
 */
#include <stdbool.h>
#include <stdint.h>

#include "lib/printf.h"

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void out_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void out_padded(struct out *o, const char *s, size_t n, int width,
		       bool left, char pad)
{
	int fill = width > (int)n ? width - (int)n : 0;

	if (!left)
		while (fill-- > 0)
			out_char(o, pad);
	while (n--)
		out_char(o, *s++);
	if (left)
		while (fill-- > 0)
			out_char(o, ' ');
}

static void out_number(struct out *o, uint64_t v, bool negative, unsigned int base,
		       bool upper, int width, bool left, char pad)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v % base];
		v /= base;
	} while (v);
	if (negative) {
		if (pad == '0' && width > 0) {
			out_char(o, '-');
			width--;
		} else {
			tmp[--i] = '-';
		}
	}
	out_padded(o, tmp + i, sizeof(tmp) - i, width, left, pad);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		bool left = false, is_signed = false, alternate = false;
		char pad = ' ';
		int width = 0, longs = 0;
		unsigned int base = 10;
		uint64_t v;
		int64_t sv;
		const char *s;

		if (*fmt != '%') {
			out_char(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else if (*fmt == '#')
				alternate = true;
			else
				break;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		while (*fmt == 'l' || *fmt == 'z') {
			longs = *fmt == 'z' ? 2 : longs + 1;
			fmt++;
		}

		switch (*fmt) {
		case 'd':
		case 'i':
			is_signed = true;
			break;
		case 'u':
			break;
		case 'x':
		case 'X':
			base = 16;
			if (alternate) {
				out_padded(&o, "0x", 2, 0, false, ' ');
				width = width > 2 ? width - 2 : 0;
			}
			break;
		case 'p':
			out_padded(&o, "0x", 2, 0, false, ' ');
			out_number(&o, (uintptr_t)va_arg(ap, void *), false, 16,
				   false, width, left, pad);
			continue;
		case 's':
			s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			{
				size_t n = 0;

				while (s[n])
					n++;
				out_padded(&o, s, n, width, left, ' ');
			}
			continue;
		case 'c': {
			char c = (char)va_arg(ap, int);

			out_padded(&o, &c, 1, width, left, ' ');
			continue;
		}
		case '%':
			out_char(&o, '%');
			continue;
		default:
			/* Unknown conversion: show it rather than guess an argument. */
			out_char(&o, '%');
			if (!*fmt)
				goto done;
			out_char(&o, *fmt);
			continue;
		}

		if (is_signed) {
			sv = longs ? va_arg(ap, int64_t) : va_arg(ap, int);
			v = sv < 0 ? -(uint64_t)sv : (uint64_t)sv;
			out_number(&o, v, sv < 0, base, false, width, left, pad);
		} else {
			v = longs ? va_arg(ap, uint64_t) : va_arg(ap, unsigned int);
			out_number(&o, v, false, base, *fmt == 'X', width, left, pad);
		}
	}
done:
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
