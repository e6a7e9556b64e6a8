/* SPDX-License-Identifier: MIT */
/*
 * copy.h - bulk copy and fill with the CPU's string instructions. The data
 * path moves every payload byte once (docs/data-path.md); memcpy and memset
 * use these above 64 bytes, plain moves below (docs/data-path.md "Copies").
 *
 * REP MOVSQ/STOSQ move 8 bytes an iteration; the ends are plain moves.
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

/*
 * Inline, in memcpy and memset alike: under Bochs a call and its return
 * would cost every large copy two steps more than the small sizes' test.
 * DF is clear in every context that uses these (the ABI keeps it clear
 * across calls; interrupt and exit entry never set it).
 */

/*
 * Copies n >= 8 bytes forward, so dst may lie below src. REP MOVSQ moves
 * the qwords from dst's first 8-byte boundary on: with the destination
 * unaligned it runs at half speed or worse where source and destination
 * lie differently within a qword, as a guest's buffers do. The unaligned
 * head and the tail are one 8-byte move each, loaded before and stored
 * after the REP so an overlap reads only bytes not yet written; no second
 * REP for the tail.
 */
static inline void copy_qwords(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t head = -(uintptr_t)d & 7, words = (n - head) / 8;
	uint64_t first, last;

	__builtin_memcpy(&first, s, sizeof(first));
	__builtin_memcpy(&last, s + n - 8, sizeof(last));
	d += head;
	s += head;
	asm volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(words) : : "memory");
	__builtin_memcpy(dst, &first, sizeof(first));
	__builtin_memcpy((uint8_t *)dst + n - 8, &last, sizeof(last));
}

/* Fills n >= 8 bytes with c: REP STOSQ from dst's first 8-byte boundary, the ends as one store each. */
static inline void fill_qwords(void *dst, uint8_t c, size_t n)
{
	uint64_t pattern = 0x0101010101010101ull * c;
	uint8_t *d = dst;
	size_t head = -(uintptr_t)d & 7, words = (n - head) / 8;

	__builtin_memcpy(d, &pattern, sizeof(pattern));
	__builtin_memcpy(d + n - 8, &pattern, sizeof(pattern));
	d += head;
	asm volatile("rep stosq" : "+D"(d), "+c"(words) : "a"(pattern) : "memory");
}

#endif
