/* SPDX-License-Identifier: MIT */
/*
 * int vmx_enter(struct guest_regs *regs, int launched, const uint8_t *kicked)
 *
 * Loads the guest's general-purpose registers and enters the guest with
 * VMLAUNCH (first time) or VMRESUME. On a VM exit the CPU resumes at
 * vmx_exit with the host RSP from the VMCS, which points at the frame
 * built here: the registers are stored back and 0 is returned. A failed
 * entry falls through and returns 1 (SDM Vol. 3C §31.3, VMfail). If the
 * core was kicked (*kicked set, or a kick NMI landing between that test
 * and the entry: a kick window, hv/arch/kick.h) it does not enter and
 * returns 2, so that the caller looks at what the kick was for first.
 * struct guest_regs: rax rcx rdx rbx rsp (kept in the VMCS; synced for the MMIO decoder) rbp rsi rdi r8-r15.
 */
#define VMCS_HOST_RSP 0x6c14

/* Drops the saved regs pointer and restores the callee-saved registers. */
.macro restore_host
	popq	%rdi
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
.endm

#include "arch/kick.h"

	.text
	.globl vmx_enter
vmx_enter:
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	pushq	%rdi			/* regs, found again at 0(%rsp) on exit */

	movq	$VMCS_HOST_RSP, %rax
	vmwrite	%rsp, %rax

	movl	%esi, %r8d		/* launched? */
	movq	%rdi, %rax
.Lkick_test:
	cmpb	$0, (%rdx)
	jne	.Lkicked
	testl	%r8d, %r8d

	movq	1*8(%rax), %rcx
	movq	2*8(%rax), %rdx
	movq	3*8(%rax), %rbx
	movq	5*8(%rax), %rbp
	movq	6*8(%rax), %rsi
	movq	7*8(%rax), %rdi
	movq	8*8(%rax), %r8
	movq	9*8(%rax), %r9
	movq	10*8(%rax), %r10
	movq	11*8(%rax), %r11
	movq	12*8(%rax), %r12
	movq	13*8(%rax), %r13
	movq	14*8(%rax), %r14
	movq	15*8(%rax), %r15
	movq	0*8(%rax), %rax		/* MOVs leave the ZF from TEST alone */

	jnz	1f
	vmlaunch
	jmp	2f
1:	vmresume
2:	/* VMfail: the guest registers are live; discard them. */
	restore_host
	movl	$1, %eax
	ret
.Lkicked:			/* the guest registers may be live here too */
	restore_host
	movl	$2, %eax
	ret
	KICK_WINDOW .Lkick_test, 2b, .Lkicked

	.globl vmx_exit
vmx_exit:
	pushq	%rax
	movq	8(%rsp), %rax		/* regs */
	popq	0*8(%rax)
	movq	%rcx, 1*8(%rax)
	movq	%rdx, 2*8(%rax)
	movq	%rbx, 3*8(%rax)
	movq	%rbp, 5*8(%rax)
	movq	%rsi, 6*8(%rax)
	movq	%rdi, 7*8(%rax)
	movq	%r8, 8*8(%rax)
	movq	%r9, 9*8(%rax)
	movq	%r10, 10*8(%rax)
	movq	%r11, 11*8(%rax)
	movq	%r12, 12*8(%rax)
	movq	%r13, 13*8(%rax)
	movq	%r14, 14*8(%rax)
	movq	%r15, 15*8(%rax)
	restore_host
	xorl	%eax, %eax
	ret
