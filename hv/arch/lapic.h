/* SPDX-License-Identifier: MIT */
/*
 * lapic.h - the host's local APIC, in x2APIC mode where the CPU has it and
 * xAPIC (MMIO) mode otherwise (Nehalem).
 */
#ifndef SIDECORE_ARCH_LAPIC_H
#define SIDECORE_ARCH_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/* Call on each CPU; the BSP first. */
void lapic_init(void);
bool lapic_is_x2apic(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_nmi(uint32_t apic_id);
void lapic_send_init(uint32_t apic_id);
void lapic_send_sipi(uint32_t apic_id, uint8_t page);

/* A one-shot host timer on VECTOR_TIMER, to wake a halted vCPU's core. */
void lapic_timer_init(void);
void lapic_timer_arm(uint64_t tsc_deadline);
void lapic_timer_disarm(void);

#endif
