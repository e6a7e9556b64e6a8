/* SPDX-License-Identifier: MIT */
/*
 * kick.h - NMIs that make a vCPU's core leave its guest or its HLT, for
 * the operator's stop and restart requests and a stopped guest's wait for
 * a restart (docs/vmx.md, "Kicks").
 *
 * Code that tests the core's kicked flag and then commits to something a
 * kick must interrupt (HLT, VM entry) declares the stretch in between as a
 * kick window: a kick NMI whose return address lies in [start, end)
 * returns to resume instead. The windows live in the .kick_windows
 * section, which the linker script gathers between __kick_windows_start
 * and __kick_windows_end.
 */
#ifndef SIDECORE_ARCH_KICK_H
#define SIDECORE_ARCH_KICK_H

#ifdef __ASSEMBLY__

.macro KICK_WINDOW start, end, resume
	.pushsection .kick_windows, "a"
	.balign 8
	.quad \start, \end, \resume
	.popsection
.endm

#else

#include <stdint.h>

#include "arch/idt.h"

struct kick_window {
	uint64_t start, end;	/* the test of the flag up to the committing instruction */
	uint64_t resume;	/* where a kick that lands there continues */
};

/**
 * kick_send() - make a core leave its guest or its HLT
 * @apic_id: local APIC ID of the core to kick
 *
 * Sends an NMI. With NMI exiting on it ends in a VM exit whatever the
 * guest does with its interrupts; a fixed-vector IPI would go to the
 * guest, whose APIC is the core's.
 */
void kick_send(uint32_t apic_id);

/**
 * kick_idle() - halt until an interrupt or a kick
 *
 * Returns at once if a kick came since the core's kicked flag was last
 * cleared, and clears it. Called with interrupts disabled; returns so.
 */
void kick_idle(void);

/**
 * kick_nmi() - the NMI handler in VMX root operation
 * @f: the interrupted state; its RIP may move to a window's resume address
 *
 * Marks this core kicked. An NMI that interrupted a kick window returns to
 * the window's resume address instead, so the HLT or VM entry the window
 * leads to is never reached with the kick unseen.
 */
void kick_nmi(struct trap_frame *f);

#endif
#endif
