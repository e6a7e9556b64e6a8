/* SPDX-License-Identifier: MIT */
/*
 * realmode.h - the privileged instructions of Linux's AP trampoline, as
 * they fault in virtual-8086 mode.
 *
 * Without the "unrestricted guest" control a secondary vCPU runs its
 * real-mode start as a virtual-8086 task (docs/vmx.md, "Secondary
 * vCPUs"). There CPL is 3, so every privileged instruction raises #GP,
 * which exits; the exit handler fetches the bytes at CS:IP and asks
 * realmode_decode() what they are. Only what the trampoline and
 * verify_cpu execute is covered: WBINVD, LGDT, LIDT, MOV to CR0/CR3/CR4,
 * RDMSR, WRMSR and HLT, with optional 0x66 and 0x67 prefixes. Anything
 * else is refused and the caller stops the vCPU.
 */
#ifndef SIDECORE_VMX_REALMODE_H
#define SIDECORE_VMX_REALMODE_H

#include <stdbool.h>
#include <stdint.h>

/* Longer encodings raise #GP (SDM Vol. 2A §2.1: the limit is 15 bytes). */
#define REALMODE_MAX_LENGTH	15
/* An LGDT/LIDT operand: a 16-bit limit, then the base (SDM Vol. 2A, LGDT). */
#define REALMODE_TABLE_BYTES	6

enum realmode_status {
	REALMODE_OK = 0,
	REALMODE_TRUNCATED,	/* the bytes ran out before the instruction did */
	REALMODE_TOO_LONG,	/* prefixes past REALMODE_MAX_LENGTH */
	REALMODE_UNSUPPORTED,	/* not one of the instructions above */
};

enum realmode_op {
	REALMODE_WBINVD,
	REALMODE_LGDT,
	REALMODE_LIDT,
	REALMODE_MOV_TO_CR,
	REALMODE_RDMSR,
	REALMODE_WRMSR,
	REALMODE_HLT,
};

/* One decoded instruction. */
struct realmode_insn {
	enum realmode_op op;
	uint8_t length;		/* bytes, prefixes included: add to IP */
	bool operand32;		/* 0x66: 32-bit operand size */
	bool address32;		/* 0x67: 32-bit addressing */
	uint8_t cr;		/* MOV_TO_CR: 0, 3 or 4 */
	uint8_t gpr;		/* MOV_TO_CR: source register, encoding order (eax = 0) */
	uint32_t offset;	/* LGDT/LIDT: the operand's offset in DS */
};

/**
 * realmode_decode() - decode one instruction that faulted in virtual-8086 mode.
 * @code: the bytes at CS:IP.
 * @len: how many of them could be fetched.
 * @insn: filled in when REALMODE_OK is returned.
 *
 * LGDT and LIDT take only a direct offset: mod 00 r/m 110 (disp16), or
 * with 0x67 mod 00 r/m 101 (disp32), which is what an assembler emits for
 * "lgdtl symbol". MOV to CRn takes CR0, CR3 and CR4 (the mod bits are
 * ignored, as by the processor).
 *
 * Return: REALMODE_OK, or why the bytes were refused.
 */
enum realmode_status realmode_decode(const uint8_t *code, unsigned int len,
				     struct realmode_insn *insn);

/**
 * realmode_table() - the base and limit an LGDT or LIDT loads.
 * @insn: a decoded REALMODE_LGDT or REALMODE_LIDT.
 * @bytes: the REALMODE_TABLE_BYTES of the operand.
 * @base: the table's base: 24 bits, or 32 with an operand-size prefix
 *        (SDM Vol. 2A, LGDT: "If the operand-size attribute is 16 bits,
 *        ... the high-order byte is not used").
 * @limit: the table's limit.
 */
void realmode_table(const struct realmode_insn *insn, const uint8_t *bytes, uint64_t *base,
		    uint16_t *limit);

/**
 * realmode_status_name() - a short description of a decode result, for logs.
 * @status: a realmode_decode() result.
 *
 * Return: a static string.
 */
const char *realmode_status_name(enum realmode_status status);

#endif
