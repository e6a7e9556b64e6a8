/* SPDX-License-Identifier: MIT */
/*
 * safe_insn.h - RDMSR, WRMSR and XSETBV that report a fault instead of
 * taking the machine down. Each instruction has an exception-table entry
 * whose fixup skips the instruction that clears the failure flag, so a #GP
 * or #UD on it returns false. Whatever executes an MSR index or a value that
 * a guest chose goes through these. A load that reports a #PF as well
 * proves at boot that page 0 is unmapped.
 */
#ifndef SIDECORE_ARCH_SAFE_INSN_H
#define SIDECORE_ARCH_SAFE_INSN_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/extable.h"

/* RDMSR; false when it faulted (an absent MSR: SDM Vol. 2B, RDMSR). */
static inline bool safe_rdmsr(uint32_t msr, uint64_t *value)
{
	uint32_t lo = 0, hi = 0, failed = 1;

	asm volatile("1: rdmsr\n\t"
		     "xorl %[failed], %[failed]\n"
		     "2:\n\t"
		     EXTABLE_ENTRY("1b", "2b")
		     : [failed] "+r"(failed), "+a"(lo), "+d"(hi)
		     : "c"(msr)
		     : "cc");
	if (failed)
		return false;
	*value = ((uint64_t)hi << 32) | lo;
	return true;
}

/* WRMSR; false when it faulted (absent MSR or reserved bits: SDM Vol. 2D, WRMSR). */
static inline bool safe_wrmsr(uint32_t msr, uint64_t value)
{
	uint32_t failed = 1;

	asm volatile("1: wrmsr\n\t"
		     "xorl %[failed], %[failed]\n"
		     "2:\n\t"
		     EXTABLE_ENTRY("1b", "2b")
		     : [failed] "+r"(failed)
		     : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
		     : "cc", "memory");
	return !failed;
}

/* XSETBV; false when it faulted (SDM Vol. 2C, XSETBV: #GP for a bad XCR value). */
static inline bool safe_xsetbv(uint32_t xcr, uint64_t value)
{
	uint32_t failed = 1;

	asm volatile("1: xsetbv\n\t"
		     "xorl %[failed], %[failed]\n"
		     "2:\n\t"
		     EXTABLE_ENTRY("1b", "2b")
		     : [failed] "+r"(failed)
		     : "c"(xcr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32))
		     : "cc", "memory");
	return !failed;
}

/* A 64-bit load; false when it faulted (#PF on an unmapped page, #GP off canonical). */
static inline bool safe_read_u64(uintptr_t addr, uint64_t *value)
{
	uint64_t v = 0;
	uint32_t failed = 1;

	asm volatile("1: movq (%[addr]), %[v]\n\t"
		     "xorl %[failed], %[failed]\n"
		     "2:\n\t"
		     EXTABLE_ENTRY("1b", "2b")
		     : [failed] "+r"(failed), [v] "+r"(v)
		     : [addr] "r"(addr)
		     : "cc", "memory");
	if (failed)
		return false;
	*value = v;
	return true;
}

#endif
