// SPDX-License-Identifier: MIT
/*
 * realmode.c - the decoder behind the virtual-8086 start of a secondary
 * vCPU (realmode.h). Pure: the caller fetches the bytes and carries the
 * instruction out.
 */
#include "vmx/realmode.h"

#define PREFIX_OPERAND	0x66
#define PREFIX_ADDRESS	0x67

#define MODRM_MOD(m)	((m) >> 6)
#define MODRM_REG(m)	(((m) >> 3) & 7)
#define MODRM_RM(m)	((m) & 7)

/* The direct-offset forms (SDM Vol. 2A tables 2-1 and 2-2). */
#define RM16_DISP16	6
#define RM32_DISP32	5

static uint32_t realmode_le(const uint8_t *p, unsigned int bytes)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

/* 0F 01 /2 or /3 at code[at]: the ModRM byte and a direct offset. */
static enum realmode_status realmode_decode_table(const uint8_t *code, unsigned int len,
						  unsigned int at, struct realmode_insn *insn)
{
	unsigned int disp = insn->address32 ? 4 : 2;
	uint8_t modrm;

	if (at >= len)
		return REALMODE_TRUNCATED;
	modrm = code[at];
	if (MODRM_REG(modrm) != 2 && MODRM_REG(modrm) != 3)
		return REALMODE_UNSUPPORTED;
	if (MODRM_MOD(modrm) != 0 ||
	    MODRM_RM(modrm) != (insn->address32 ? RM32_DISP32 : RM16_DISP16))
		return REALMODE_UNSUPPORTED;
	if (at + 1 + disp > REALMODE_MAX_LENGTH)
		return REALMODE_TOO_LONG;
	if (at + 1 + disp > len)
		return REALMODE_TRUNCATED;
	insn->op = MODRM_REG(modrm) == 2 ? REALMODE_LGDT : REALMODE_LIDT;
	insn->offset = realmode_le(&code[at + 1], disp);
	insn->length = (uint8_t)(at + 1 + disp);
	return REALMODE_OK;
}

/* 0F 22: MOV to CRn from the register in r/m. */
static enum realmode_status realmode_decode_mov_cr(const uint8_t *code, unsigned int len,
						   unsigned int at, struct realmode_insn *insn)
{
	uint8_t modrm;

	if (at >= len)
		return REALMODE_TRUNCATED;
	modrm = code[at];
	if (MODRM_REG(modrm) != 0 && MODRM_REG(modrm) != 3 && MODRM_REG(modrm) != 4)
		return REALMODE_UNSUPPORTED;
	insn->op = REALMODE_MOV_TO_CR;
	insn->cr = MODRM_REG(modrm);
	insn->gpr = MODRM_RM(modrm);
	insn->length = (uint8_t)(at + 1);
	return REALMODE_OK;
}

static enum realmode_status realmode_decode_0f(const uint8_t *code, unsigned int len,
					       unsigned int at, struct realmode_insn *insn)
{
	if (at >= len)
		return REALMODE_TRUNCATED;
	switch (code[at]) {
	case 0x01:
		return realmode_decode_table(code, len, at + 1, insn);
	case 0x09:
		insn->op = REALMODE_WBINVD;
		break;
	case 0x22:
		return realmode_decode_mov_cr(code, len, at + 1, insn);
	case 0x30:
		insn->op = REALMODE_WRMSR;
		break;
	case 0x32:
		insn->op = REALMODE_RDMSR;
		break;
	default:
		return REALMODE_UNSUPPORTED;
	}
	insn->length = (uint8_t)(at + 1);
	return REALMODE_OK;
}

enum realmode_status realmode_decode(const uint8_t *code, unsigned int len,
				     struct realmode_insn *insn)
{
	unsigned int at = 0;

	*insn = (struct realmode_insn){ 0 };
	for (;; at++) {
		if (at >= REALMODE_MAX_LENGTH)
			return REALMODE_TOO_LONG;
		if (at >= len)
			return REALMODE_TRUNCATED;
		if (code[at] == PREFIX_OPERAND)
			insn->operand32 = true;
		else if (code[at] == PREFIX_ADDRESS)
			insn->address32 = true;
		else
			break;
	}
	switch (code[at]) {
	case 0x0f:
		return realmode_decode_0f(code, len, at + 1, insn);
	case 0xf4:
		insn->op = REALMODE_HLT;
		insn->length = (uint8_t)(at + 1);
		return REALMODE_OK;
	default:
		return REALMODE_UNSUPPORTED;
	}
}

void realmode_table(const struct realmode_insn *insn, const uint8_t *bytes, uint64_t *base,
		    uint16_t *limit)
{
	*limit = (uint16_t)realmode_le(bytes, 2);
	*base = realmode_le(&bytes[2], 4) & (insn->operand32 ? 0xffffffffu : 0x00ffffffu);
}

const char *realmode_status_name(enum realmode_status status)
{
	switch (status) {
	case REALMODE_OK:
		return "ok";
	case REALMODE_TRUNCATED:
		return "instruction cut short";
	case REALMODE_TOO_LONG:
		return "instruction too long";
	case REALMODE_UNSUPPORTED:
		return "instruction not emulated";
	}
	return "unknown";
}
