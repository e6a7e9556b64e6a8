/* SPDX-License-Identifier: MIT */
/*
 * Interrupt entry stubs. Each pushes its vector; isr_common then adds a
 * zero error code where the CPU pushed none, so every frame has one shape.
 * Whether it pushed one is read from the frame, not assumed from the
 * vector: a guest's interrupt can arrive on a vector whose exception has
 * an error code (17, 21, 29, 30), and an interrupt never pushes one. In
 * 64-bit mode the CPU aligns RSP to 16 bytes before it pushes SS, RSP,
 * RFLAGS, CS and RIP (SDM Vol. 3A §6.14.2), so after those five and the
 * vector RSP is 16-byte aligned exactly when no error code lies between.
 */
	.text

	.balign 16
	.globl isr_stubs
isr_stubs:
	.set vector, 0
	.rept 256
	.balign 16
	pushq	$vector
	jmp	isr_common
	.set vector, vector + 1
	.endr

isr_common:
	testq	$15, %rsp
	jnz	1f
	pushq	(%rsp)			/* the vector, one slot lower */
	movq	$0, 8(%rsp)		/* and the zero error code where it was */
1:
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
	.section .note.GNU-stack, "", @progbits
