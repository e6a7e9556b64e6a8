/* SPDX-License-Identifier: MIT */
/*
 * copy.h - bulk copy and fill with the CPU's string instructions. The data
 * path moves every payload byte once (docs/data-path.md); these are what
 * memcpy and memset use, chosen by copy_use_erms().
 */
#ifndef SIDECORE_LIB_COPY_H
#define SIDECORE_LIB_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True where CPUID.(EAX=7,ECX=0):EBX[9] reports enhanced REP MOVSB/STOSB. */
bool copy_cpu_has_erms(void);

/* REP MOVSB / REP STOSB: the fastest form on ERMS CPUs (SDM Vol. 1 §7.3.9.3). */
void copy_erms(void *dst, const void *src, size_t n);
void fill_erms(void *dst, uint8_t c, size_t n);

/* REP MOVSQ / REP STOSQ for the 8-byte words, then REP MOVSB / STOSB for the tail. */
void copy_qwords(void *dst, const void *src, size_t n);
void fill_qwords(void *dst, uint8_t c, size_t n);

#endif
