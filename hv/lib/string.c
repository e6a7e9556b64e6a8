/* SPDX-License-Identifier: MIT */
/*
 * string.c - memory and string primitives for the freestanding build.
 *
 * The compiler may emit calls to memcpy/memset on its own, so these must exist
 * even where the code never names them. string.h maps the names to the
 * compiler's builtins, hence the parentheses: (memcpy) is this function.
 */
#include <stdint.h>
#include <string.h>

#include "lib/copy.h"

/*
 * Up to SMALL_COPY bytes, plain loads and stores, one branch a size class;
 * up to MEDIUM_COPY, 32 from each end. A REP string instruction spends
 * tens of cycles starting up before its first byte (Intel Optimization
 * Reference Manual, "Enhanced REP MOVSB and STOSB Operation"; SDM Vol. 1
 * §7.3.9.3), and the qword form with its byte tail starts two: longer than
 * such a copy takes. Under Bochs, which steps once per REP iteration, a
 * medium copy's sixteen moves cost a few steps more than REP MOVSQ and its
 * tail; above 64 bytes REP MOVSQ's step per qword is the cheaper, and on
 * silicon its start-up is paid off, so larger sizes keep it (copy.h).
 */
#define SMALL_COPY	32
#define MEDIUM_COPY	64

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void store64(uint8_t *p, uint64_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void store32(uint8_t *p, uint32_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

static inline uint16_t load16(const uint8_t *p)
{
	uint16_t v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

static inline void store16(uint8_t *p, uint16_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

/*
 * Copies n <= SMALL_COPY bytes as pieces from each end that overlap as n
 * needs (one byte alone). Every load comes before every store, so
 * memmove's overlapping ranges are copied right too.
 */
static inline void copy_small(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n > 16) {
		uint64_t a = load64(s), b = load64(s + 8);
		uint64_t y = load64(s + n - 16), z = load64(s + n - 8);

		store64(d, a);
		store64(d + 8, b);
		store64(d + n - 16, y);
		store64(d + n - 8, z);
	} else if (n >= 8) {
		uint64_t a = load64(s), z = load64(s + n - 8);

		store64(d, a);
		store64(d + n - 8, z);
	} else if (n >= 4) {
		uint32_t a = load32(s), z = load32(s + n - 4);

		store32(d, a);
		store32(d + n - 4, z);
	} else if (n >= 2) {
		uint16_t a = load16(s), z = load16(s + n - 2);

		store16(d, a);
		store16(d + n - 2, z);
	} else if (n) {
		*d = *s;
	}
}

/*
 * Copies SMALL_COPY < n <= MEDIUM_COPY bytes: the first and the last 32,
 * overlapping as n needs, every load before every store as in copy_small().
 */
static inline void copy_medium(uint8_t *d, const uint8_t *s, size_t n)
{
	uint64_t a = load64(s), b = load64(s + 8), c = load64(s + 16), e = load64(s + 24);
	uint64_t w = load64(s + n - 32), x = load64(s + n - 24);
	uint64_t y = load64(s + n - 16), z = load64(s + n - 8);

	store64(d, a);
	store64(d + 8, b);
	store64(d + 16, c);
	store64(d + 24, e);
	store64(d + n - 32, w);
	store64(d + n - 24, x);
	store64(d + n - 16, y);
	store64(d + n - 8, z);
}

/* Fills n <= SMALL_COPY bytes the way copy_small() copies them. */
static inline void fill_small(uint8_t *d, uint8_t c, size_t n)
{
	uint64_t pattern = 0x0101010101010101ull * c;

	if (n > 16) {
		store64(d, pattern);
		store64(d + 8, pattern);
		store64(d + n - 16, pattern);
		store64(d + n - 8, pattern);
	} else if (n >= 8) {
		store64(d, pattern);
		store64(d + n - 8, pattern);
	} else if (n >= 4) {
		store32(d, (uint32_t)pattern);
		store32(d + n - 4, (uint32_t)pattern);
	} else if (n >= 2) {
		store16(d, (uint16_t)pattern);
		store16(d + n - 2, (uint16_t)pattern);
	} else if (n) {
		*d = c;
	}
}

/* Fills SMALL_COPY < n <= MEDIUM_COPY bytes: the first and the last 32. */
static inline void fill_medium(uint8_t *d, uint8_t c, size_t n)
{
	fill_small(d, c, SMALL_COPY);
	fill_small(d + n - SMALL_COPY, c, SMALL_COPY);
}

void *(memcpy)(void *dst, const void *src, size_t n)
{
	if (n <= SMALL_COPY)
		copy_small(dst, src, n);
	else if (n <= MEDIUM_COPY)
		copy_medium(dst, src, n);
	else
		copy_qwords(dst, src, n);
	return dst;
}

void *(memmove)(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n <= SMALL_COPY) {
		copy_small(d, s, n);
		return dst;
	}
	if (n <= MEDIUM_COPY) {
		copy_medium(d, s, n);
		return dst;
	}
	/* Below src, or clear of it: a forward copy reads each byte before it is written. */
	if ((uintptr_t)d - (uintptr_t)s >= n) {
		copy_qwords(d, s, n);
		return dst;
	}
	while (n--)
		d[n] = s[n];
	return dst;
}

void *(memset)(void *dst, int c, size_t n)
{
	if (n <= SMALL_COPY)
		fill_small(dst, (uint8_t)c, n);
	else if (n <= MEDIUM_COPY)
		fill_medium(dst, (uint8_t)c, n);
	else
		fill_qwords(dst, (uint8_t)c, n);
	return dst;
}

int (memcmp)(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}
