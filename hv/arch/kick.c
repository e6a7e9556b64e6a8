/* SPDX-License-Identifier: MIT */
/*
 * kick.c - NMIs as the wake-up a vCPU's core gets.
 *
 * A vCPU's core looks at the operator's request (guest_request()) before
 * each VM entry and after each HLT of a stopped guest's wait, so a kick
 * only has to make it leave the guest or that HLT. A fixed-vector IPI is
 * no good for that: the core's APIC is the guest's and external-interrupt
 * exiting is off, so the guest would take the vector, or hold it back with
 * its interrupts disabled or its task priority (docs/vmx.md, "Kicks"). An
 * NMI always ends in a VM exit (NMI exiting is on). Outside the guest it
 * marks the core kicked, and one that lands inside a kick window (kick.h)
 * goes on at the window's resume address, so no wake-up is lost between a
 * look at the flag and the HLT or VM entry that follows.
 */
#include "arch/kick.h"
#include "arch/lapic.h"
#include "arch/percpu.h"

extern const struct kick_window __kick_windows_start[], __kick_windows_end[];

/* hv/arch/kick_idle.S */
void kick_idle_on(volatile uint8_t *kicked);

void kick_send(uint32_t apic_id)
{
	lapic_send_nmi(apic_id);
}

void kick_idle(void)
{
	kick_idle_on(&this_cpu()->kicked);
}

void kick_nmi(struct trap_frame *f)
{
	this_cpu()->kicked = 1;
	for (const struct kick_window *w = __kick_windows_start; w < __kick_windows_end; w++)
		if (f->rip >= w->start && f->rip < w->end)
			f->rip = w->resume;
}
