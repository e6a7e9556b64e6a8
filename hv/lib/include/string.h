/* SPDX-License-Identifier: MIT */
/* string.h - the subset of the C library the freestanding hypervisor provides. */
#ifndef SIDECORE_STRING_H
#define SIDECORE_STRING_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

/*
 * -ffreestanding takes these four from the compiler; the builtins give them
 * back, so a size known at compile time becomes plain moves (a MAC, a
 * descriptor, a header) and any other size calls the functions above
 * (docs/data-path.md "Copies"). string.c defines them as (memcpy) and so on.
 */
#define memcpy(dst, src, n)	__builtin_memcpy(dst, src, n)
#define memmove(dst, src, n)	__builtin_memmove(dst, src, n)
#define memset(dst, c, n)	__builtin_memset(dst, c, n)
#define memcmp(a, b, n)		__builtin_memcmp(a, b, n)

#endif
