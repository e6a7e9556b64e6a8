/* SPDX-License-Identifier: MIT */
/*
 * decode.h - the x86 instructions a guest uses to touch emulated MMIO.
 *
 * An EPT violation on an emulated page tells the hypervisor the guest-physical
 * address and whether it was a read or a write, but not how many bytes move,
 * from or to which register, nor how long the instruction is. The exit handler
 * fetches up to DECODE_MAX_LENGTH bytes at the guest RIP and asks
 * decode_instruction(); anything it cannot describe exactly is refused, and
 * the caller stops the guest rather than guess.
 *
 * Covered: the loads and stores compilers emit for MMIO accessors (Linux's
 * readb..readq, writeb..writeq, the xAPIC page): MOV (88, 89, 8A, 8B, C6 /0,
 * C7 /0, A0-A3), MOVZX (0F B6, 0F B7) and MOVSX (0F BE, 0F BF), with
 * operand-size, address-size and segment-override prefixes and REX.
 *
 * Registers are numbered as in the instruction encoding, which is also the
 * order of the gprs[16] arrays below: rax rcx rdx rbx rsp rbp rsi rdi r8..r15.
 */
#ifndef SIDECORE_VMX_DECODE_H
#define SIDECORE_VMX_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longer encodings raise #GP (SDM Vol. 2A §2.1: the limit is 15 bytes). */
#define DECODE_MAX_LENGTH	15
#define DECODE_GPR_COUNT	16

/* The code segment's default sizes: CS.L=1 is 64-bit, else CS.D picks 32 or 16. */
enum decode_mode {
	DECODE_MODE_16,
	DECODE_MODE_32,
	DECODE_MODE_64,
};

enum decode_status {
	DECODE_OK = 0,
	DECODE_TRUNCATED,	/* the bytes ran out first: fetch more and retry */
	DECODE_TOO_LONG,	/* more than DECODE_MAX_LENGTH bytes */
	DECODE_UNSUPPORTED,	/* an opcode or prefix this decoder does not handle */
	DECODE_NOT_MEMORY,	/* the operand is a register: no MMIO access */
};

/* How a load narrower than its destination register is widened. */
enum decode_extend {
	DECODE_EXTEND_NONE,	/* MOV: memory and register have one size */
	DECODE_EXTEND_ZERO,	/* MOVZX */
	DECODE_EXTEND_SIGN,	/* MOVSX */
};

/* One decoded MMIO access. */
struct decode_insn {
	uint8_t length;		/* bytes, prefixes included: add to RIP */
	uint8_t size;		/* bytes moved to or from memory: 1, 2, 4 or 8 */
	uint8_t reg_size;	/* register width a load writes: size, or more for MOVZX/MOVSX */
	uint8_t reg;		/* register index, 0-15 */
	bool high_byte;		/* reg (0-3) is used as AH, CH, DH or BH: bits 15:8 */
	bool write;		/* true: a store to memory; false: a load into reg */
	bool immediate_source;	/* a store of immediate rather than of reg */
	enum decode_extend extend;
	uint64_t immediate;	/* the stored value, already cut to size */
};

/* Decodes the instruction at the guest RIP; see decode.c. */
enum decode_status decode_instruction(struct decode_insn *insn, const uint8_t *code,
				      size_t length, enum decode_mode mode);
const char *decode_status_name(enum decode_status status);
/* Loads: puts what the device returned into the destination register. */
void decode_read_complete(const struct decode_insn *insn,
			  uint64_t gprs[DECODE_GPR_COUNT], uint64_t value);
/* Stores: the value to send to the device. */
uint64_t decode_write_value(const struct decode_insn *insn,
			    const uint64_t gprs[DECODE_GPR_COUNT]);

#endif
