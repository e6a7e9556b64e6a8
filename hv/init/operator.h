/* SPDX-License-Identifier: MIT */
/*
 * operator.h - commands typed at the hypervisor's serial console: list the
 * guests, print counters, stop, start and restart a guest
 * (docs/operator.md).
 */
#ifndef SIDECORE_INIT_OPERATOR_H
#define SIDECORE_INIT_OPERATOR_H

#include "platform/topology.h"

/**
 * operator_start() - take commands at the console from now on
 * @topo: the machine's I/O APICs, to route the UART's IRQ
 * @cpu: the console's drainer, which reads and runs the commands
 *
 * Without an I/O APIC line for COM1's IRQ 4 it says so and takes none.
 */
void operator_start(const struct topology *topo, unsigned int cpu);

#endif
