// SPDX-License-Identifier: MIT
/*
 * extable.c - looking a faulting instruction up in the exception table.
 * Pure: the table is passed in, so the unit tests build their own.
 */
#include <stdint.h>

#include "arch/extable.h"

/**
 * extable_search() - the fixup of a faulting instruction
 * @start: the first entry
 * @end: one past the last entry
 * @rip: the address of the instruction that faulted
 *
 * The linker keeps the entries in link order, not sorted; the table holds a
 * handful of them, so a linear search is all it needs.
 *
 * Return: the fixup address, or 0 when @rip is not in the table.
 */
uint64_t extable_search(const struct extable_entry *start, const struct extable_entry *end,
			uint64_t rip)
{
	for (const struct extable_entry *e = start; e < end; e++)
		if (e->fault == rip)
			return e->fixup;
	return 0;
}
