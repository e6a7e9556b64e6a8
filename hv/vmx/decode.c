// SPDX-License-Identifier: MIT
/*
 * decode.c - the x86 instructions a guest uses to touch emulated MMIO.
 *
 * An instruction is legacy prefixes, in 64-bit mode an optional REX, the
 * opcode (one byte, or 0F and a second), then for the forms handled here a
 * ModRM byte with its optional SIB and displacement, or a direct memory
 * offset, and last an optional immediate (SDM Vol. 2A §2.1, Figure 2-1).
 * The decoder reads them in that order and refuses anything outside the
 * small MOV family it knows; it never computes an address.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmx/decode.h"

/* Legacy prefixes (SDM Vol. 2A §2.1.1). */
#define PREFIX_ES		0x26
#define PREFIX_CS		0x2e
#define PREFIX_SS		0x36
#define PREFIX_DS		0x3e
#define PREFIX_FS		0x64
#define PREFIX_GS		0x65
#define PREFIX_OPERAND_SIZE	0x66
#define PREFIX_ADDRESS_SIZE	0x67
#define PREFIX_LOCK		0xf0
#define PREFIX_REPNE		0xf2
#define PREFIX_REP		0xf3

/* REX is 0100WRXB, 64-bit mode only (SDM Vol. 2A §2.2.1, Table 2-4). */
#define REX_MASK		0xf0
#define REX_BASE		0x40
#define REX_W			0x08
#define REX_R			0x04

/* Opcodes (SDM Vol. 2D, Tables; Vol. 2B, MOV, MOVZX, MOVSX). */
#define OP_MOV_RM8_R8		0x88	/* MOV r/m8, r8 */
#define OP_MOV_RM_R		0x89	/* MOV r/m16/32/64, r */
#define OP_MOV_R8_RM8		0x8a	/* MOV r8, r/m8 */
#define OP_MOV_R_RM		0x8b	/* MOV r, r/m16/32/64 */
#define OP_MOV_AL_MOFFS		0xa0	/* MOV AL, moffs8 */
#define OP_MOV_AX_MOFFS		0xa1	/* MOV rAX, moffs */
#define OP_MOV_MOFFS_AL		0xa2	/* MOV moffs8, AL */
#define OP_MOV_MOFFS_AX		0xa3	/* MOV moffs, rAX */
#define OP_MOV_RM8_IMM8		0xc6	/* MOV r/m8, imm8 (group 11, /0) */
#define OP_MOV_RM_IMM		0xc7	/* MOV r/m, imm16/32 (group 11, /0) */
#define OP_TWO_BYTE		0x0f
#define OP2_MOVZX_R_RM8		0xb6
#define OP2_MOVZX_R_RM16	0xb7
#define OP2_MOVSX_R_RM8		0xbe
#define OP2_MOVSX_R_RM16	0xbf

/* ModRM is mod(7:6) reg(5:3) rm(2:0); SIB is scale(7:6) index(5:3) base(2:0). */
#define MODRM_MOD(b)		((b) >> 6)
#define MODRM_REG(b)		(((b) >> 3) & 7)
#define MODRM_RM(b)		((b) & 7)
#define SIB_BASE(b)		((b) & 7)
#define MOD_REGISTER		3	/* the operand is a register, not memory */
#define RM_SIB			4	/* 32/64-bit addressing: a SIB byte follows */
#define RM_DISP32		5	/* with mod 0: disp32 (RIP-relative in 64-bit mode) */
#define SIB_BASE_NONE		5	/* with mod 0: no base, disp32 */
#define RM16_DISP16		6	/* 16-bit addressing, mod 0: disp16 only */

/* AH, CH, DH and BH encode as registers 4-7 when no REX is present. */
#define BYTE_REG_HIGH_FIRST	4

/* Reads bytes in order, never past the caller's length nor the 15-byte limit. */
struct cursor {
	const uint8_t *code;
	size_t limit;
	size_t pos;
};

/* Running out at the architectural limit means too long, before it truncated. */
static enum decode_status cursor_end_status(const struct cursor *cur)
{
	return cur->limit == DECODE_MAX_LENGTH ? DECODE_TOO_LONG : DECODE_TRUNCATED;
}

static enum decode_status cursor_next(struct cursor *cur, uint8_t *byte)
{
	if (cur->pos >= cur->limit)
		return cursor_end_status(cur);
	*byte = cur->code[cur->pos++];
	return DECODE_OK;
}

/* Reads a little-endian field of count bytes (1-8). */
static enum decode_status cursor_next_le(struct cursor *cur, unsigned int count,
					 uint64_t *value)
{
	unsigned int i;

	if (cur->limit - cur->pos < count)
		return cursor_end_status(cur);
	*value = 0;
	for (i = 0; i < count; i++)
		*value |= (uint64_t)cur->code[cur->pos + i] << (8 * i);
	cur->pos += count;
	return DECODE_OK;
}

static enum decode_status cursor_skip(struct cursor *cur, unsigned int count)
{
	if (cur->limit - cur->pos < count)
		return cursor_end_status(cur);
	cur->pos += count;
	return DECODE_OK;
}

/* What the prefixes say; an opcode's handler reads the rest. */
struct prefixes {
	uint8_t rex;		/* 0 when absent or cancelled */
	uint8_t operand_size;	/* 2, 4 or 8 */
	uint8_t address_size;	/* 2, 4 or 8 */
};

static uint64_t size_mask(unsigned int size)
{
	return size >= 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

/*
 * Skips legacy prefixes and REX, stopping at the first opcode byte. A REX
 * that is not the last prefix is ignored by the processor (SDM Vol. 2A
 * §2.2.1), so any later prefix cancels it. LOCK makes every MOV #UD, and
 * F2/F3 select other instructions in the 0F map (F3 0F B8 is POPCNT): no
 * MMIO accessor emits them, so they are refused rather than guessed at.
 */
static enum decode_status decode_prefixes(struct cursor *cur, enum decode_mode mode,
					  struct prefixes *pfx, uint8_t *opcode)
{
	bool operand_prefix = false, address_prefix = false;
	enum decode_status status;
	uint8_t byte;

	pfx->rex = 0;
	for (;;) {
		status = cursor_next(cur, &byte);
		if (status != DECODE_OK)
			return status;
		switch (byte) {
		case PREFIX_ES:
		case PREFIX_CS:
		case PREFIX_SS:
		case PREFIX_DS:
		case PREFIX_FS:
		case PREFIX_GS:
			pfx->rex = 0;
			continue;
		case PREFIX_OPERAND_SIZE:
			operand_prefix = true;
			pfx->rex = 0;
			continue;
		case PREFIX_ADDRESS_SIZE:
			address_prefix = true;
			pfx->rex = 0;
			continue;
		case PREFIX_LOCK:
		case PREFIX_REPNE:
		case PREFIX_REP:
			return DECODE_UNSUPPORTED;
		}
		if (mode == DECODE_MODE_64 && (byte & REX_MASK) == REX_BASE) {
			pfx->rex = byte;
			continue;
		}
		break;
	}
	*opcode = byte;

	/*
	 * REX.W beats 66; 66 toggles between 16 and 32 bits (SDM Vol. 1
	 * §3.6, Tables 3-3 and 3-4). The address size toggles likewise, with 64
	 * bits by default in 64-bit mode.
	 */
	if (pfx->rex & REX_W)
		pfx->operand_size = 8;
	else if (mode == DECODE_MODE_16)
		pfx->operand_size = operand_prefix ? 4 : 2;
	else
		pfx->operand_size = operand_prefix ? 2 : 4;
	if (mode == DECODE_MODE_64)
		pfx->address_size = address_prefix ? 4 : 8;
	else if (mode == DECODE_MODE_32)
		pfx->address_size = address_prefix ? 2 : 4;
	else
		pfx->address_size = address_prefix ? 4 : 2;
	return DECODE_OK;
}

/*
 * Walks the memory operand after a ModRM byte. 16-bit addressing has no SIB
 * and disp16 (SDM Vol. 2A Table 2-1). 32- and 64-bit addressing share one
 * layout (Tables 2-2 and 2-3): rm 100 brings a SIB byte, mod 00 with rm 101
 * a disp32 (RIP-relative in 64-bit mode, §2.2.1.6), mod 00 with SIB base 101
 * a disp32 and no base. REX.B never changes these lengths (Table 2-5).
 */
static enum decode_status decode_memory_operand(struct cursor *cur, uint8_t modrm,
						unsigned int address_size)
{
	unsigned int mod = MODRM_MOD(modrm), rm = MODRM_RM(modrm);
	enum decode_status status;
	uint8_t sib;

	if (mod == MOD_REGISTER)
		return DECODE_NOT_MEMORY;
	if (address_size == 2) {
		if (mod == 1)
			return cursor_skip(cur, 1);
		if (mod == 2 || rm == RM16_DISP16)
			return cursor_skip(cur, 2);
		return DECODE_OK;
	}
	if (rm == RM_SIB) {
		status = cursor_next(cur, &sib);
		if (status != DECODE_OK)
			return status;
		if (mod == 0 && SIB_BASE(sib) == SIB_BASE_NONE)
			return cursor_skip(cur, 4);
	}
	if (mod == 1)
		return cursor_skip(cur, 1);
	if (mod == 2 || (mod == 0 && rm == RM_DISP32))
		return cursor_skip(cur, 4);
	return DECODE_OK;
}

/* Reads ModRM and its memory operand; returns the reg field with REX.R. */
static enum decode_status decode_modrm(struct cursor *cur, const struct prefixes *pfx,
				       uint8_t *modrm, uint8_t *reg)
{
	enum decode_status status;

	status = cursor_next(cur, modrm);
	if (status != DECODE_OK)
		return status;
	*reg = MODRM_REG(*modrm) | ((pfx->rex & REX_R) ? 8 : 0);
	return decode_memory_operand(cur, *modrm, pfx->address_size);
}

/*
 * An 8-bit register operand: without any REX, encodings 4-7 name AH, CH, DH
 * and BH; with one (even a bare 40) they name SPL, BPL, SIL and DIL (SDM
 * Vol. 2A §2.2.1.2 and Table 3-1).
 */
static void decode_set_byte_register(struct decode_insn *insn, const struct prefixes *pfx,
				     uint8_t reg)
{
	insn->reg = reg;
	if (!pfx->rex && reg >= BYTE_REG_HIGH_FIRST) {
		insn->reg = reg - BYTE_REG_HIGH_FIRST;
		insn->high_byte = true;
	}
}

/* 88, 89, 8A, 8B: a register moved to or from memory. */
static enum decode_status decode_mov_register(struct cursor *cur, const struct prefixes *pfx,
					      uint8_t opcode, struct decode_insn *insn)
{
	bool byte_form = opcode == OP_MOV_RM8_R8 || opcode == OP_MOV_R8_RM8;
	enum decode_status status;
	uint8_t modrm, reg;

	status = decode_modrm(cur, pfx, &modrm, &reg);
	if (status != DECODE_OK)
		return status;
	insn->write = opcode == OP_MOV_RM8_R8 || opcode == OP_MOV_RM_R;
	insn->size = byte_form ? 1 : pfx->operand_size;
	if (byte_form)
		decode_set_byte_register(insn, pfx, reg);
	else
		insn->reg = reg;
	return DECODE_OK;
}

/*
 * C6 /0 ib and C7 /0 iw/id: an immediate stored to memory. With REX.W the
 * immediate stays 32 bits and is sign-extended to 64. Other reg fields are
 * other instructions (C6 F8 is XABORT).
 */
static enum decode_status decode_mov_immediate(struct cursor *cur, const struct prefixes *pfx,
					       uint8_t opcode, struct decode_insn *insn)
{
	enum decode_status status;
	unsigned int imm_size;
	uint8_t modrm;
	uint64_t imm;

	status = cursor_next(cur, &modrm);
	if (status != DECODE_OK)
		return status;
	if (MODRM_REG(modrm) != 0)
		return DECODE_UNSUPPORTED;
	status = decode_memory_operand(cur, modrm, pfx->address_size);
	if (status != DECODE_OK)
		return status;
	insn->size = opcode == OP_MOV_RM8_IMM8 ? 1 : pfx->operand_size;
	imm_size = insn->size == 8 ? 4 : insn->size;
	status = cursor_next_le(cur, imm_size, &imm);
	if (status != DECODE_OK)
		return status;
	if (insn->size == 8)
		imm = (uint64_t)(int64_t)(int32_t)(uint32_t)imm;
	insn->write = true;
	insn->immediate_source = true;
	insn->immediate = imm & size_mask(insn->size);
	return DECODE_OK;
}

/*
 * A0-A3: AL or rAX to or from an absolute offset as wide as the address
 * size, 8 bytes in 64-bit mode unless 67 (SDM Vol. 2A §2.2.1.4). REX.B does
 * not change the register.
 */
static enum decode_status decode_mov_offset(struct cursor *cur, const struct prefixes *pfx,
					    uint8_t opcode, struct decode_insn *insn)
{
	bool byte_form = opcode == OP_MOV_AL_MOFFS || opcode == OP_MOV_MOFFS_AL;

	insn->write = opcode == OP_MOV_MOFFS_AL || opcode == OP_MOV_MOFFS_AX;
	insn->size = byte_form ? 1 : pfx->operand_size;
	insn->reg = 0;
	return cursor_skip(cur, pfx->address_size);
}

/* 0F B6/B7/BE/BF: a byte or word loaded into a wider register. */
static enum decode_status decode_two_byte(struct cursor *cur, const struct prefixes *pfx,
					  struct decode_insn *insn)
{
	enum decode_status status;
	uint8_t opcode, modrm, reg;

	status = cursor_next(cur, &opcode);
	if (status != DECODE_OK)
		return status;
	switch (opcode) {
	case OP2_MOVZX_R_RM8:
	case OP2_MOVZX_R_RM16:
		insn->extend = DECODE_EXTEND_ZERO;
		break;
	case OP2_MOVSX_R_RM8:
	case OP2_MOVSX_R_RM16:
		insn->extend = DECODE_EXTEND_SIGN;
		break;
	default:
		return DECODE_UNSUPPORTED;
	}
	status = decode_modrm(cur, pfx, &modrm, &reg);
	if (status != DECODE_OK)
		return status;
	insn->size = (opcode == OP2_MOVZX_R_RM8 || opcode == OP2_MOVSX_R_RM8) ? 1 : 2;
	insn->reg_size = pfx->operand_size;
	insn->reg = reg;
	return DECODE_OK;
}

/**
 * decode_instruction() - decode the instruction that caused an MMIO exit
 * @insn: filled in on DECODE_OK; unspecified otherwise
 * @code: the instruction bytes at the guest RIP
 * @length: how many bytes of @code are valid; more than DECODE_MAX_LENGTH
 *	    are never read
 * @mode: the default operand and address size of the guest's code segment
 *
 * The memory operand's address is not computed: the exit already gives the
 * guest-physical address. Its encoding (ModRM, SIB, displacement, RIP-relative
 * or absolute offset) is walked only to find the instruction's length.
 *
 * Return: DECODE_OK, or why the instruction cannot be emulated.
 */
enum decode_status decode_instruction(struct decode_insn *insn, const uint8_t *code,
				      size_t length, enum decode_mode mode)
{
	struct cursor cur = {
		.code = code,
		.limit = length < DECODE_MAX_LENGTH ? length : DECODE_MAX_LENGTH,
		.pos = 0,
	};
	enum decode_status status;
	struct prefixes pfx;
	uint8_t opcode;

	*insn = (struct decode_insn){ .extend = DECODE_EXTEND_NONE };
	status = decode_prefixes(&cur, mode, &pfx, &opcode);
	if (status != DECODE_OK)
		return status;

	switch (opcode) {
	case OP_MOV_RM8_R8:
	case OP_MOV_RM_R:
	case OP_MOV_R8_RM8:
	case OP_MOV_R_RM:
		status = decode_mov_register(&cur, &pfx, opcode, insn);
		break;
	case OP_MOV_RM8_IMM8:
	case OP_MOV_RM_IMM:
		status = decode_mov_immediate(&cur, &pfx, opcode, insn);
		break;
	case OP_MOV_AL_MOFFS:
	case OP_MOV_AX_MOFFS:
	case OP_MOV_MOFFS_AL:
	case OP_MOV_MOFFS_AX:
		status = decode_mov_offset(&cur, &pfx, opcode, insn);
		break;
	case OP_TWO_BYTE:
		status = decode_two_byte(&cur, &pfx, insn);
		break;
	default:
		return DECODE_UNSUPPORTED;
	}
	if (status != DECODE_OK)
		return status;
	if (insn->reg_size == 0)
		insn->reg_size = insn->size;
	insn->length = (uint8_t)cur.pos;
	return DECODE_OK;
}

/**
 * decode_status_name() - a few words for a log message
 * @status: a value returned by decode_instruction()
 *
 * Return: a static string; "unknown status" for values outside the enum.
 */
const char *decode_status_name(enum decode_status status)
{
	switch (status) {
	case DECODE_OK:
		return "ok";
	case DECODE_TRUNCATED:
		return "instruction bytes end early";
	case DECODE_TOO_LONG:
		return "instruction longer than 15 bytes";
	case DECODE_UNSUPPORTED:
		return "unsupported instruction";
	case DECODE_NOT_MEMORY:
		return "no memory operand";
	}
	return "unknown status";
}

/**
 * decode_read_complete() - finish an emulated load
 * @insn: a load (!insn->write) returned by decode_instruction()
 * @gprs: the guest's registers, in encoding order
 * @value: what the device returned; bits above insn->size bytes are ignored
 *
 * Writes @value to the destination register as the processor would (SDM
 * Vol. 1 §3.4.1.1): widened as insn->extend says, then a 32-bit result
 * zero-extends to 64 bits while an 8- or 16-bit result leaves the rest of the
 * register alone (for AH..BH, every bit but 15:8).
 */
void decode_read_complete(const struct decode_insn *insn,
			  uint64_t gprs[DECODE_GPR_COUNT], uint64_t value)
{
	uint64_t *reg = &gprs[insn->reg];
	uint64_t sign;

	value &= size_mask(insn->size);
	if (insn->extend == DECODE_EXTEND_SIGN && insn->size < 8) {
		sign = 1ull << (8 * insn->size - 1);
		value = (value ^ sign) - sign;
	}
	switch (insn->reg_size) {
	case 1:
		if (insn->high_byte)
			*reg = (*reg & ~0xff00ull) | ((value & 0xff) << 8);
		else
			*reg = (*reg & ~0xffull) | (value & 0xff);
		break;
	case 2:
		*reg = (*reg & ~0xffffull) | (value & 0xffff);
		break;
	case 4:
		*reg = value & 0xffffffffull;
		break;
	default:
		*reg = value;
		break;
	}
}

/**
 * decode_write_value() - the value an emulated store sends to the device
 * @insn: a store (insn->write) returned by decode_instruction()
 * @gprs: the guest's registers, in encoding order
 *
 * Return: the immediate or the source register (bits 15:8 for AH..BH), cut
 * to insn->size bytes.
 */
uint64_t decode_write_value(const struct decode_insn *insn,
			    const uint64_t gprs[DECODE_GPR_COUNT])
{
	uint64_t value;

	if (insn->immediate_source)
		value = insn->immediate;
	else if (insn->high_byte)
		value = gprs[insn->reg] >> 8;
	else
		value = gprs[insn->reg];
	return value & size_mask(insn->size);
}
