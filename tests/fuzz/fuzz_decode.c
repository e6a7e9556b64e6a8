// SPDX-License-Identifier: MIT
/*
 * fuzz_decode.c - arbitrary bytes as the instruction at a guest's RIP.
 *
 * The first input byte picks the code segment's mode, the rest are the
 * instruction bytes, as many as the exit handler could fetch. Whatever
 * decode_instruction() accepts must be self-consistent, decode the same from
 * exactly its own bytes, be truncated by one byte less, and emulate on a
 * register file touching only its register and only the bits its width
 * allows. A broken rule aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmx/decode.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

static bool valid_size(unsigned int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static uint64_t mask_of(unsigned int size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

static void check_insn(const struct decode_insn *insn, size_t available)
{
	CHECK(insn->length >= 1 && insn->length <= DECODE_MAX_LENGTH);
	CHECK(insn->length <= available);
	CHECK(valid_size(insn->size) && valid_size(insn->reg_size));
	CHECK(insn->reg_size >= insn->size);
	CHECK(insn->reg < DECODE_GPR_COUNT);
	CHECK(!insn->high_byte || (insn->reg < 4 && insn->size == 1 && insn->reg_size == 1));
	CHECK(insn->extend == DECODE_EXTEND_NONE || insn->extend == DECODE_EXTEND_ZERO ||
	      insn->extend == DECODE_EXTEND_SIGN);
	/* MOVZX/MOVSX may widen to their own size (66 0F B7 is MOVZX r16, m16). */
	CHECK(insn->extend != DECODE_EXTEND_NONE || insn->reg_size == insn->size);
	CHECK(!insn->immediate_source || insn->write);
	CHECK(!insn->write || insn->extend == DECODE_EXTEND_NONE);
	CHECK(insn->immediate_source || insn->immediate == 0);
	CHECK((insn->immediate & ~mask_of(insn->size)) == 0);
}

static bool same_insn(const struct decode_insn *a, const struct decode_insn *b)
{
	return a->length == b->length && a->size == b->size && a->reg_size == b->reg_size &&
	       a->reg == b->reg && a->high_byte == b->high_byte && a->write == b->write &&
	       a->immediate_source == b->immediate_source && a->extend == b->extend &&
	       a->immediate == b->immediate;
}

/* The instruction's own bytes decode the same; one byte fewer is truncated. */
static void check_exact_bytes(const struct decode_insn *insn, const uint8_t *code,
			      enum decode_mode mode)
{
	struct decode_insn again;

	CHECK(decode_instruction(&again, code, insn->length, mode) == DECODE_OK);
	CHECK(same_insn(&again, insn));
	CHECK(decode_instruction(&again, code, insn->length - 1u, mode) == DECODE_TRUNCATED);
}

/* Emulates the access on a register file drawn from the input itself. */
static void check_registers(const struct decode_insn *insn, const uint8_t *data, size_t size)
{
	uint64_t gprs[DECODE_GPR_COUNT], before[DECODE_GPR_COUNT];
	uint64_t value = 0, written, width_mask, shift, loaded, widened, sign;
	unsigned int i;

	for (i = 0; i < DECODE_GPR_COUNT; i++)
		gprs[i] = (0x9e3779b97f4a7c15ull * (i + 1)) ^ (size > i ? data[i] : 0);
	memcpy(before, gprs, sizeof(before));
	memcpy(&value, data, size < sizeof(value) ? size : sizeof(value));

	if (insn->write) {
		written = decode_write_value(insn, gprs);
		CHECK((written & ~mask_of(insn->size)) == 0);
		if (!insn->immediate_source)
			CHECK(written == ((gprs[insn->reg] >> (insn->high_byte ? 8 : 0)) &
					  mask_of(insn->size)));
		CHECK(memcmp(gprs, before, sizeof(gprs)) == 0);
		return;
	}

	decode_read_complete(insn, gprs, value);
	for (i = 0; i < DECODE_GPR_COUNT; i++)
		if (i != insn->reg)
			CHECK(gprs[i] == before[i]);
	shift = insn->high_byte ? 8 : 0;
	width_mask = mask_of(insn->reg_size) << shift;
	/* What the load wrote reads back; 8/16-bit loads keep the rest. */
	CHECK(((gprs[insn->reg] >> shift) & mask_of(insn->size)) == (value & mask_of(insn->size)));
	loaded = (gprs[insn->reg] >> shift) & mask_of(insn->reg_size);
	widened = loaded & ~mask_of(insn->size);
	sign = (value >> (8 * insn->size - 1)) & 1;
	if (insn->extend == DECODE_EXTEND_ZERO || (insn->extend == DECODE_EXTEND_SIGN && !sign))
		CHECK(widened == 0);
	else if (insn->extend == DECODE_EXTEND_SIGN)
		CHECK(widened == (mask_of(insn->reg_size) & ~mask_of(insn->size)));
	if (insn->reg_size <= 2)
		CHECK((gprs[insn->reg] & ~width_mask) == (before[insn->reg] & ~width_mask));
	else if (insn->reg_size == 4)
		CHECK((gprs[insn->reg] >> 32) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum decode_mode modes[] = {
		DECODE_MODE_64, DECODE_MODE_32, DECODE_MODE_16,
	};
	struct decode_insn insn;
	enum decode_status status;
	enum decode_mode mode;
	const uint8_t *code;
	size_t code_size;

	if (size < 1)
		return 0;
	mode = modes[data[0] % 3];
	code = data + 1;
	code_size = size - 1;

	status = decode_instruction(&insn, code, code_size, mode);
	CHECK(status == DECODE_OK || status == DECODE_TRUNCATED || status == DECODE_TOO_LONG ||
	      status == DECODE_UNSUPPORTED || status == DECODE_NOT_MEMORY);
	CHECK(decode_status_name(status) != NULL);
	if (status == DECODE_TOO_LONG)
		CHECK(code_size >= DECODE_MAX_LENGTH);
	if (status != DECODE_OK)
		return 0;
	check_insn(&insn, code_size);
	check_exact_bytes(&insn, code, mode);
	check_registers(&insn, code, code_size);
	return 0;
}
