// SPDX-License-Identifier: MIT
/*
 * fuzz_realmode.c - arbitrary bytes as the instruction a secondary vCPU
 * faulted on in its start window (hv/vmx/realmode.h).
 *
 * Whatever realmode_decode() accepts must lie within the bytes given,
 * decode the same from exactly its own bytes, be cut short by one byte
 * less, and name a CR the window emulates; refusals must have a name. An
 * LGDT or LIDT operand gives a base within its operand size. A broken
 * rule aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmx/realmode.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)
#define BASE24_MASK 0xffffffull

static bool same_insn(const struct realmode_insn *a, const struct realmode_insn *b)
{
	return a->op == b->op && a->length == b->length && a->operand32 == b->operand32 &&
	       a->address32 == b->address32 && a->cr == b->cr && a->gpr == b->gpr &&
	       a->offset == b->offset;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct realmode_insn insn, again;
	enum realmode_status status = realmode_decode(data, (unsigned int)size, &insn);
	uint8_t table[REALMODE_TABLE_BYTES] = { 0 };
	uint64_t base;
	uint16_t limit;

	CHECK(realmode_status_name(status) != NULL);
	if (status != REALMODE_OK)
		return 0;
	CHECK(insn.length >= 1 && insn.length <= size);
	CHECK(realmode_decode(data, insn.length, &again) == REALMODE_OK && same_insn(&insn, &again));
	CHECK(realmode_decode(data, insn.length - 1u, &again) == REALMODE_TRUNCATED);
	if (insn.op == REALMODE_MOV_TO_CR)
		CHECK((insn.cr == 0 || insn.cr == 3 || insn.cr == 4) && insn.gpr < 8);
	if (insn.op == REALMODE_LGDT || insn.op == REALMODE_LIDT) {
		memset(table, 0xff, sizeof(table));
		realmode_table(&insn, table, &base, &limit);
		CHECK(limit == 0xffff);
		CHECK(insn.operand32 ? base == 0xffffffffull : base == BASE24_MASK);
	}
	return 0;
}
