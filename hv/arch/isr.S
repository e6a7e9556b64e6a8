/* SPDX-License-Identifier: MIT */
/*
 * Interrupt entry stubs. Each pushes a dummy error code where the CPU does
 * not (SDM Vol. 3A §6.13), then its vector, so every frame has one shape.
 */
	.text

.macro stub vector, has_error
	.balign 16
	.if \has_error == 0
	pushq	$0
	.endif
	pushq	$\vector
	jmp	isr_common
.endm

	.balign 16
	.globl isr_stubs
isr_stubs:
	stub 0, 0
	stub 1, 0
	stub 2, 0
	stub 3, 0
	stub 4, 0
	stub 5, 0
	stub 6, 0
	stub 7, 0
	stub 8, 1
	stub 9, 0
	stub 10, 1
	stub 11, 1
	stub 12, 1
	stub 13, 1
	stub 14, 1
	stub 15, 0
	stub 16, 0
	stub 17, 1
	stub 18, 0
	stub 19, 0
	stub 20, 0
	stub 21, 1
	stub 22, 0
	stub 23, 0
	stub 24, 0
	stub 25, 0
	stub 26, 0
	stub 27, 0
	stub 28, 0
	stub 29, 1
	stub 30, 1
	stub 31, 0
	/* Interrupts: the host's own, and a guest's that reach its core after it left. */
	.set vector, 32
	.rept 256 - 32
	stub vector, 0
	.set vector, vector + 1
	.endr

isr_common:
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, %rdi
	movq	%rsp, %rbx
	andq	$-16, %rsp		/* SysV call alignment */
	call	idt_dispatch
	movq	%rbx, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	addq	$16, %rsp		/* vector and error code */
	iretq
