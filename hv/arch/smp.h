/* SPDX-License-Identifier: MIT */
/* smp.h - bringing the application processors up. */
#ifndef SIDECORE_ARCH_SMP_H
#define SIDECORE_ARCH_SMP_H

#include <stdint.h>

#include "platform/topology.h"

/**
 * smp_trampoline_size() - size of the AP trampoline's code
 *
 * Return: the bytes smp_start_aps() copies to the trampoline page; the page
 * at trampoline_page must be below 1 MiB.
 */
uint64_t smp_trampoline_size(void);

/**
 * smp_start_aps() - start the application processors
 * @topo: the CPUs to start, from the MADT
 * @bsp_cpu: topology CPU number of the caller, which is skipped
 * @trampoline_page: free page below 1 MiB that the trampoline is copied to
 * @ap_main: what each AP runs, with its topology CPU number, on its own stack
 *
 * Starts every enabled CPU of topo except the caller, one at a time, with
 * INIT-SIPI-SIPI through the trampoline copied to trampoline_page. An AP
 * reports in by setting its percpu online flag; one that does not within
 * the timeout is named on the console and left behind.
 *
 * Return: the number of APs that reported in.
 */
unsigned int smp_start_aps(const struct topology *topo, unsigned int bsp_cpu,
			   uint64_t trampoline_page, void (*ap_main)(unsigned int cpu));

#endif
