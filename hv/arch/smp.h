/* SPDX-License-Identifier: MIT */
/* smp.h - bringing the application processors up. */
#ifndef SIDECORE_ARCH_SMP_H
#define SIDECORE_ARCH_SMP_H

#include <stdint.h>

#include "platform/topology.h"

/* Trampoline code size; the page at trampoline_page must be below 1 MiB. */
uint64_t smp_trampoline_size(void);

/*
 * Starts every enabled CPU of topo except the caller, one at a time, with
 * INIT-SIPI-SIPI through the trampoline copied to trampoline_page. Each AP
 * runs ap_main(cpu). Returns the number of APs that reported in.
 */
unsigned int smp_start_aps(const struct topology *topo, unsigned int bsp_cpu,
			   uint64_t trampoline_page, void (*ap_main)(unsigned int cpu));

#endif
