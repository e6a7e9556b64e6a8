/* SPDX-License-Identifier: MIT */
/*
 * operator.h - commands typed at the hypervisor's serial console: list the
 * guests, print counters, stop, start and restart a guest
 * (docs/operator.md).
 */
#ifndef SIDECORE_INIT_OPERATOR_H
#define SIDECORE_INIT_OPERATOR_H

#include <stdint.h>

#include "platform/topology.h"

/**
 * operator_start() - take commands at the console from now on
 * @topo: the machine's I/O APICs, to route the UART's IRQ
 * @cpu: the console's drainer, which reads and runs the commands
 * @port: the console UART's first I/O port, for the messages
 * @irq: its ISA IRQ, or CONSOLE_PORT_NO_IRQ when none is known
 *
 * Without an IRQ, or an I/O APIC line for it, it says so and takes none.
 */
void operator_start(const struct topology *topo, unsigned int cpu, uint16_t port,
		    uint8_t irq);

#endif
