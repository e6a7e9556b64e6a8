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

/**
 * tsc_init() - determine the TSC frequency
 *
 * Runs once, on the BSP: from CPUID leaf 0x15 or 0x16 where the CPU
 * reports them, else measured against PIT channel 2. Panics if all fail.
 */
void tsc_init(void);

/**
 * tsc_hz() - the TSC frequency tsc_init() found
 *
 * Return: TSC ticks per second; 0 before tsc_init().
 */
uint64_t tsc_hz(void);

/**
 * tsc_source() - where tsc_init() took the frequency from
 *
 * Return: the source; meaningless before tsc_init().
 */
enum tsc_source tsc_source(void);

/**
 * tsc_source_name() - tsc_source() as the boot summary prints it
 *
 * Return: "cpuid-15h", "cpuid-16h" or "pit"; a static string.
 */
const char *tsc_source_name(void);

/**
 * tsc_delay_us() - busy-wait on the TSC
 * @us: microseconds to wait; needs tsc_init() first
 */
void tsc_delay_us(uint64_t us);

#endif
