/* SPDX-License-Identifier: MIT */
/* trap.c - what the host IDT does with a vector (arch/trap.h). */
#include "arch/idt.h"
#include "arch/trap.h"

#define VECTOR_FIRST_DELIVERABLE	16	/* §11.5.2: 0-15 are illegal in the APIC */
#define VECTOR_FIRST_INTERRUPT		32

bool trap_needs_isr(uint64_t vector)
{
	return (vector >= VECTOR_FIRST_DELIVERABLE && vector < VECTOR_FIRST_INTERRUPT) ||
	       vector == VECTOR_SPURIOUS;
}

enum trap_action trap_classify(uint64_t vector, bool in_service)
{
	if (vector == VECTOR_NMI)
		return TRAP_KICK;
	/* A guest may send 0xff as a fixed interrupt; that one is in service. */
	if (vector == VECTOR_SPURIOUS && !in_service)
		return TRAP_SPURIOUS;
	if (vector >= VECTOR_FIRST_INTERRUPT && vector <= 0xff)
		return TRAP_INTERRUPT;
	if (vector >= VECTOR_FIRST_DELIVERABLE && vector < VECTOR_FIRST_INTERRUPT && in_service)
		return TRAP_LATE_GUEST;
	return TRAP_EXCEPTION;
}
