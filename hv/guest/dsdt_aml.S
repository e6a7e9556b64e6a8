/* SPDX-License-Identifier: MIT */
/*
 * dsdt_aml.S - the guest DSDT as iasl compiled it from hv/guest/dsdt.asl.
 * hv/guest/rules.mk builds $(B)/gen/dsdt.aml and puts $(B)/gen on the include
 * path, where the assembler looks for .incbin files. The size is exported
 * as a number so C never subtracts pointers to two different objects.
 */
	.section .rodata, "a"

	.balign 16
	.globl guest_dsdt_aml
	.type guest_dsdt_aml, @object
guest_dsdt_aml:
	.incbin "dsdt.aml"
guest_dsdt_aml_end:
	.size guest_dsdt_aml, guest_dsdt_aml_end - guest_dsdt_aml

	.balign 4
	.globl guest_dsdt_aml_size
	.type guest_dsdt_aml_size, @object
guest_dsdt_aml_size:
	.long guest_dsdt_aml_end - guest_dsdt_aml
	.size guest_dsdt_aml_size, 4

	.section .note.GNU-stack, "", @progbits
