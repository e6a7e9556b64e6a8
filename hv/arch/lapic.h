/* SPDX-License-Identifier: MIT */
/*
 * lapic.h - the host's local APIC, in x2APIC mode where the CPU has it and
 * xAPIC (MMIO) mode otherwise (Nehalem).
 */
#ifndef SIDECORE_ARCH_LAPIC_H
#define SIDECORE_ARCH_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

/**
 * lapic_init() - enable this CPU's local APIC
 *
 * Call on each CPU, the BSP first. Switches to x2APIC mode where CPUID
 * reports it, accepts every priority and sets the spurious vector.
 */
void lapic_init(void);

/**
 * lapic_is_x2apic() - whether the local APIC runs in x2APIC mode
 *
 * Return: true for x2APIC (MSR access), false for xAPIC (MMIO).
 */
bool lapic_is_x2apic(void);

/**
 * lapic_id() - this CPU's local APIC ID
 *
 * Return: the full 32-bit ID in x2APIC mode, the 8-bit one in xAPIC mode.
 */
uint32_t lapic_id(void);

/**
 * lapic_eoi() - signal the end of the interrupt being serviced
 */
void lapic_eoi(void);

/**
 * lapic_in_service() - whether this core's APIC has a vector in service
 * @vector: the vector
 *
 * Return: its bit in the in-service register (SDM Vol. 3A §11.8.4): set
 * from the interrupt's delivery until its EOI, never for an exception.
 */
bool lapic_in_service(uint8_t vector);

/**
 * lapic_send_ipi() - send a fixed-vector interrupt to one core
 * @apic_id: local APIC ID of the destination
 * @vector: interrupt vector to deliver
 *
 * In xAPIC mode waits until the APIC has accepted the ICR write.
 */
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);

/**
 * lapic_send_nmi() - send an NMI to one core
 * @apic_id: local APIC ID of the destination
 */
void lapic_send_nmi(uint32_t apic_id);

/**
 * lapic_send_init() - send an INIT IPI to one core, to start an AP
 * @apic_id: local APIC ID of the destination
 */
void lapic_send_init(uint32_t apic_id);

/**
 * lapic_send_sipi() - send a startup IPI to one core
 * @apic_id: local APIC ID of the destination
 * @page: number of the 4 KiB page below 1 MiB where the AP starts
 */
void lapic_send_sipi(uint32_t apic_id, uint8_t page);

/**
 * lapic_reg_read() - read one of this core's APIC registers
 * @reg: its xAPIC offset (SDM Vol. 3A Table 11-1); in x2APIC mode the
 *       MSR 0x800 + @reg / 16 is read instead
 *
 * Return: the register's low 32 bits.
 */
uint32_t lapic_reg_read(uint32_t reg);

/**
 * lapic_reg_write() - write one of this core's APIC registers
 * @reg: its xAPIC offset, as for lapic_reg_read()
 * @value: the value
 */
void lapic_reg_write(uint32_t reg, uint32_t value);

/**
 * lapic_timer_khz() - the APIC timer's count rate at divide 1
 *
 * Measured against the TSC by the first call on any core (tsc_init() must
 * have run), with that core's timer masked and left stopped at divide 1.
 *
 * Return: ticks per millisecond.
 */
uint64_t lapic_timer_khz(void);

/**
 * lapic_timer_init() - set up this core's one-shot host timer
 *
 * The timer interrupts on VECTOR_TIMER, to sample a sidecore's profile
 * (docs/data-path.md, "Profile"). It uses TSC-deadline mode where the CPU has
 * it; otherwise one-shot mode, whose rate the first call measures against
 * the TSC (Nehalem), so tsc_init() must have run.
 */
void lapic_timer_init(void);

/**
 * lapic_timer_arm() - make the host timer fire once at a TSC value
 * @tsc_deadline: host TSC value to fire at; one already past fires at once
 *
 * Replaces any deadline armed before.
 */
void lapic_timer_arm(uint64_t tsc_deadline);

/**
 * lapic_scrub() - leave no trace of a guest that owned this core's APIC
 *
 * Masks every LVT entry, stops the timer, clears TPR and the error
 * status, restores the host's SVR, ends every interrupt in service and
 * takes (and drops) every one still requested, with interrupts enabled
 * for that moment only. Call with interrupts disabled.
 *
 * Return: true when the APIC then reads as expected: every LVT masked,
 * nothing in service or requested.
 */
bool lapic_scrub(void);

#endif
