/* SPDX-License-Identifier: MIT */
/*
 * copy.h - bulk copy and fill with the CPU's string instructions. The data
 * path moves every payload byte once (docs/data-path.md); memcpy and memset
 * use these above 32 bytes, plain moves below (docs/data-path.md "Copies").
 *
 * REP MOVSQ/STOSQ move 8 bytes an iteration, then REP MOVSB/STOSB the tail.
 * With fast strings (IA32_MISC_ENABLE bit 0, SDM Vol. 1 §7.3.9.3) a large
 * REP MOVSQ runs as fast as REP MOVSB does on ERMS CPUs; under Bochs, whose
 * clock advances once per iteration, it costs an eighth as much, and a
 * sidecore that serves many guests spends much of its time here
 * (docs/results.md), so the word form is used whatever CPUID says.
 */
#ifndef SIDECORE_LIB_COPY_H
#define SIDECORE_LIB_COPY_H

#include <stddef.h>
#include <stdint.h>

/**
 * copy_qwords() - copy bytes with REP MOVSQ, then REP MOVSB for the tail
 * @dst: destination; must not overlap @src
 * @src: source
 * @n: bytes to copy
 */
void copy_qwords(void *dst, const void *src, size_t n);

/**
 * fill_qwords() - fill bytes with REP STOSQ, then REP STOSB for the tail
 * @dst: destination
 * @c: the byte to store
 * @n: bytes to fill
 */
void fill_qwords(void *dst, uint8_t c, size_t n);

#endif
