/* SPDX-License-Identifier: MIT */
/*
 * copy.h - bulk copy and fill with the CPU's string instructions: what
 * memcpy and memset are. The data path moves every payload byte once
 * (docs/data-path.md); docs/results.md says why the word form is used on
 * every CPU model.
 */
#ifndef SIDECORE_LIB_COPY_H
#define SIDECORE_LIB_COPY_H

#include <stddef.h>
#include <stdint.h>

/* REP MOVSQ for the 8-byte words, then REP MOVSB for the tail. */
void copy_qwords(void *dst, const void *src, size_t n);
/* REP STOSQ for the 8-byte words, then REP STOSB for the tail. */
void fill_qwords(void *dst, uint8_t c, size_t n);

#endif
