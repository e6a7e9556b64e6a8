/* SPDX-License-Identifier: MIT */
/* tsc.h - TSC frequency and busy-wait delays. */
#ifndef SIDECORE_ARCH_TSC_H
#define SIDECORE_ARCH_TSC_H

#include <stdint.h>

enum tsc_source {
	TSC_SOURCE_CPUID_15H,	/* crystal ratio: exact */
	TSC_SOURCE_CPUID_16H,	/* nominal base frequency */
	TSC_SOURCE_PIT,		/* measured */
};

/* Determines the TSC frequency once, on the BSP. */
void tsc_init(void);
uint64_t tsc_hz(void);
enum tsc_source tsc_source(void);
const char *tsc_source_name(void);
void tsc_delay_us(uint64_t us);

#endif
