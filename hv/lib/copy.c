/* SPDX-License-Identifier: MIT */
/*
 * copy.c - string-instruction copies. Pure: built into the hypervisor and
 * the unit tests, which check every alignment and length against a
 * reference. DF is clear in every context that calls these (the ABI keeps
 * it clear across calls; interrupt and exit entry never set it).
 */
#include "lib/copy.h"

void copy_qwords(void *dst, const void *src, size_t n)
{
	size_t words = n / 8, tail = n % 8;

	asm volatile("rep movsq\n\t"
		     "mov %[tail], %%rcx\n\t"
		     "rep movsb"
		     : "+D"(dst), "+S"(src), "+c"(words)
		     : [tail] "r"(tail)
		     : "memory");
}

void fill_qwords(void *dst, uint8_t c, size_t n)
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
