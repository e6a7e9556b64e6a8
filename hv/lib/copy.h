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

/*
 * Inline, in memcpy and memset alike: under Bochs a call and its return
 * would cost every large copy two steps more than the small sizes' test.
 * DF is clear in every context that uses these (the ABI keeps it clear
 * across calls; interrupt and exit entry never set it).
 */

/* Copies n bytes with REP MOVSQ, then REP MOVSB the tail: forward, so dst may lie below src. */
static inline void copy_qwords(void *dst, const void *src, size_t n)
{
	size_t words = n / 8, tail = n % 8;

	asm volatile("rep movsq\n\t"
		     "mov %[tail], %%rcx\n\t"
		     "rep movsb"
		     : "+D"(dst), "+S"(src), "+c"(words)
		     : [tail] "r"(tail)
		     : "memory");
}

/* Fills n bytes with c by REP STOSQ, then REP STOSB for the tail. */
static inline void fill_qwords(void *dst, uint8_t c, size_t n)
{
	uint64_t pattern = 0x0101010101010101ull * c;
	size_t words = n / 8, tail = n % 8;

	asm volatile("rep stosq\n\t"
		     "mov %[tail], %%rcx\n\t"
		     "rep stosb"
		     : "+D"(dst), "+c"(words), "+a"(pattern)
		     : [tail] "r"(tail)
		     : "memory");
}

#endif
