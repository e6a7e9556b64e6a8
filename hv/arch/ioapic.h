/* SPDX-License-Identifier: MIT */
/*
 * ioapic.h - the one line sidecore takes from an I/O APIC: the console
 * UART's, for the operator's commands (docs/operator.md).
 */
#ifndef SIDECORE_ARCH_IOAPIC_H
#define SIDECORE_ARCH_IOAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/topology.h"

/**
 * ioapic_route_isa() - deliver an ISA IRQ to one core as a fixed vector
 * @topo: the machine's I/O APICs and ISA overrides (MADT)
 * @irq: ISA IRQ number, 0-15
 * @vector: the vector the core takes
 * @apic_id: the core's APIC ID; without interrupt remapping at most 255
 *
 * Programs the redirection entry of the IRQ's GSI with the MADT's polarity
 * and trigger (ISA defaults: active high, edge). Returns false, touching
 * nothing, if no I/O APIC has the GSI or the APIC ID does not fit.
 */
bool ioapic_route_isa(const struct topology *topo, unsigned int irq, uint8_t vector,
		      uint32_t apic_id);

#endif
