/* SPDX-License-Identifier: MIT */
/*
 * trap.h - what the host IDT does with a vector (arch/idt.c). Pure, so the
 * unit tests judge every vector the way the hypervisor does.
 */
#ifndef SIDECORE_ARCH_TRAP_H
#define SIDECORE_ARCH_TRAP_H

#include <stdbool.h>
#include <stdint.h>

enum trap_action {
	TRAP_KICK,		/* an NMI: nothing else is sent as one (arch/kick.c) */
	TRAP_SPURIOUS,		/* a spurious interrupt: no EOI (SDM Vol. 3A §11.9) */
	TRAP_INTERRUPT,		/* a host interrupt, or a late guest one: EOI */
	TRAP_LATE_GUEST,	/* a guest interrupt on an exception vector: EOI, drop, count */
	TRAP_EXCEPTION,		/* the exception table's fixup, or a panic */
};

/**
 * trap_needs_isr() - whether trap_classify() needs the vector's in-service bit
 * @vector: the vector the entry stub pushed
 *
 * Return: true for 16-31 and the spurious vector, the ones a guest's
 * interrupt can share with something that is not one.
 */
bool trap_needs_isr(uint64_t vector);

/**
 * trap_classify() - what the host IDT does with an entry
 * @vector: the vector the entry stub pushed
 * @in_service: the vector's bit in the local APIC's in-service register
 *
 * Vectors 32-255 are interrupts. A vector 16-31 is a guest's interrupt
 * that reached its core after the guest left it when the APIC has it in
 * service, since an exception never sets an in-service bit (SDM Vol. 3A
 * §11.8.4); otherwise it is an exception, as every vector 0-15 is (the
 * APIC delivers none of them, §11.5.2). The spurious vector is spurious
 * only when not in service (§11.9): a guest's fixed interrupt on it needs
 * its EOI like any other, or the core's APIC would not read clean after
 * the guest.
 *
 * Return: the action.
 */
enum trap_action trap_classify(uint64_t vector, bool in_service);

#endif
