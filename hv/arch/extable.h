/* SPDX-License-Identifier: MIT */
/*
 * extable.h - the exception table: instructions in VMX root operation that
 * may fault on a value a guest chose, each with the address execution
 * resumes at when it does. The entries live in the .extable section, which
 * the linker script gathers between __extable_start and __extable_end; the
 * exception handler looks a faulting RIP up here before it gives up on the
 * machine (docs/vmx.md, "Faults in the hypervisor").
 */
#ifndef SIDECORE_ARCH_EXTABLE_H
#define SIDECORE_ARCH_EXTABLE_H

#include <stdint.h>

struct extable_entry {
	uint64_t fault;		/* the instruction that may fault */
	uint64_t fixup;		/* where execution resumes when it does */
};

/*
 * One entry, as assembler text for an asm statement: FAULT and FIXUP are
 * labels of that statement ("1b", "2b").
 */
#define EXTABLE_ENTRY(fault, fixup)					\
	".pushsection .extable, \"a\"\n\t"				\
	".balign 8\n\t"							\
	".quad " fault ", " fixup "\n\t"				\
	".popsection\n\t"

uint64_t extable_search(const struct extable_entry *start, const struct extable_entry *end,
			uint64_t rip);

#endif
