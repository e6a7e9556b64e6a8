/* SPDX-License-Identifier: MIT */
/*
 * void kick_idle_on(volatile uint8_t *kicked)
 *
 * Halts unless *kicked is set, then clears it (kick_idle(), arch/kick.c).
 * The window runs from the test of the flag to the HLT: a kick NMI that
 * lands there goes on after the HLT instead of sleeping through.
 */
#include "arch/kick.h"

	.text
	.globl kick_idle_on
kick_idle_on:
1:	cmpb	$0, (%rdi)
	jne	2f
	sti
	hlt
2:	cli
	movb	$0, (%rdi)
	ret
	KICK_WINDOW 1b, 2b, 2b
