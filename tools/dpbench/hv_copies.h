/* SPDX-License-Identifier: MIT */
/*
 * hv_copies.h - included first in every hypervisor source the bench
 * builds: a copy or fill the compiler does not turn into moves calls
 * hv/lib/string.c (linked under hv_ names), as it does in the hypervisor,
 * not the host C library's (docs/data-path.md, "On the host's CPU").
 */
#ifndef DPBENCH_HV_COPIES_H
#define DPBENCH_HV_COPIES_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n) __asm__("hv_memcpy");
void *memmove(void *dst, const void *src, size_t n) __asm__("hv_memmove");
void *memset(void *dst, int c, size_t n) __asm__("hv_memset");
int memcmp(const void *a, const void *b, size_t n) __asm__("hv_memcmp");

#endif
