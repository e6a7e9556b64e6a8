// SPDX-License-Identifier: MIT
/*
 * test_decode.c - unit tests for hv/vmx/decode.c.
 *
 * The table holds encodings as compilers emit them for MMIO accessors
 * (Linux's readl() is "8b 07", writeb() "40 88 37", the xAPIC fixmap
 * accesses use an absolute SIB address) next to rarer forms, each with what
 * the decoder must say about it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vmx/decode.h"

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

struct decode_case {
	const char *name;
	enum decode_mode mode;
	uint8_t code[DECODE_MAX_LENGTH + 2];
	size_t code_len;
	enum decode_status status;
	struct decode_insn want;	/* checked when status is DECODE_OK */
};

#define CODE(...)	.code = { __VA_ARGS__ }, .code_len = sizeof((uint8_t[]){ __VA_ARGS__ })
#define M64		.mode = DECODE_MODE_64
#define M32		.mode = DECODE_MODE_32
#define M16		.mode = DECODE_MODE_16

/* Loads and stores of a register. */
#define LOAD(len, sz, r)	.want = { .length = len, .size = sz, .reg_size = sz, .reg = r }
#define STORE(len, sz, r)	.want = { .length = len, .size = sz, .reg_size = sz, .reg = r, \
					  .write = true }
#define LOAD_HIGH(len, r)	.want = { .length = len, .size = 1, .reg_size = 1, .reg = r, \
					  .high_byte = true }
#define STORE_HIGH(len, r)	.want = { .length = len, .size = 1, .reg_size = 1, .reg = r, \
					  .high_byte = true, .write = true }
#define STORE_IMM(len, sz, imm)	.want = { .length = len, .size = sz, .reg_size = sz, \
					  .write = true, .immediate_source = true, \
					  .immediate = imm }
#define LOAD_EXT(len, sz, rsz, r, ext) \
	.want = { .length = len, .size = sz, .reg_size = rsz, .reg = r, .extend = ext }
#define FAILS(st)		.status = st

static const struct decode_case cases[] = {
	/* Linux MMIO accessors (arch/x86/include/asm/io.h) as built for x86-64. */
	{ "readb: movzbl (%rdi),%eax", M64, CODE(0x0f, 0xb6, 0x07),
	  LOAD_EXT(3, 1, 4, RAX, DECODE_EXTEND_ZERO) },
	{ "readw: movzwl (%rdi),%eax", M64, CODE(0x0f, 0xb7, 0x07),
	  LOAD_EXT(3, 2, 4, RAX, DECODE_EXTEND_ZERO) },
	{ "readl: mov (%rdi),%eax", M64, CODE(0x8b, 0x07), LOAD(2, 4, RAX) },
	{ "readq: mov (%rdi),%rax", M64, CODE(0x48, 0x8b, 0x07), LOAD(3, 8, RAX) },
	{ "writeb: mov %sil,(%rdi)", M64, CODE(0x40, 0x88, 0x37), STORE(3, 1, RSI) },
	{ "writew: mov %si,(%rdi)", M64, CODE(0x66, 0x89, 0x37), STORE(3, 2, RSI) },
	{ "writel: mov %esi,(%rdi)", M64, CODE(0x89, 0x37), STORE(2, 4, RSI) },
	{ "writeq: mov %rsi,(%rdi)", M64, CODE(0x48, 0x89, 0x37), STORE(3, 8, RSI) },

	/* Register and ModRM forms. */
	{ "mov %ecx,(%rdi)", M64, CODE(0x89, 0x0f), STORE(2, 4, RCX) },
	{ "mov %dl,(%rax)", M64, CODE(0x88, 0x10), STORE(2, 1, RDX) },
	{ "mov %ax,(%rdi)", M64, CODE(0x66, 0x89, 0x07), STORE(3, 2, RAX) },
	{ "mov 0x8(%rdi),%rax", M64, CODE(0x48, 0x8b, 0x47, 0x08), LOAD(4, 8, RAX) },
	{ "mov 0x4(%rax),%r8d", M64, CODE(0x44, 0x8b, 0x40, 0x04), LOAD(4, 4, R8) },
	{ "mov 0x12345678(%rip),%eax", M64, CODE(0x8b, 0x05, 0x78, 0x56, 0x34, 0x12),
	  LOAD(6, 4, RAX) },
	{ "mov 0x10(%rip),%r15", M64, CODE(0x4c, 0x8b, 0x3d, 0x10, 0x00, 0x00, 0x00),
	  LOAD(7, 8, R15) },
	{ "REX.B keeps rm 101 RIP-relative", M64,
	  CODE(0x41, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00), LOAD(7, 4, RAX) },
	{ "mov 0x100(%rsp),%eax: SIB, disp32", M64,
	  CODE(0x8b, 0x84, 0x24, 0x00, 0x01, 0x00, 0x00), LOAD(7, 4, RAX) },
	{ "mov 0x10(%rsi,%rcx,4),%eax: SIB, disp8", M64,
	  CODE(0x8b, 0x44, 0x8e, 0x10), LOAD(4, 4, RAX) },
	{ "mov (%r12),%eax: SIB needed for r12", M64, CODE(0x41, 0x8b, 0x04, 0x24),
	  LOAD(4, 4, RAX) },
	{ "mov 0x0(%r13),%eax: disp8 needed for r13", M64, CODE(0x41, 0x8b, 0x45, 0x00),
	  LOAD(4, 4, RAX) },
	{ "mov %r9d,0x8(%r12)", M64, CODE(0x45, 0x89, 0x4c, 0x24, 0x08), STORE(5, 4, R9) },
	{ "mov 0x0(,%r13,1),%eax: SIB base 101, mod 00", M64,
	  CODE(0x42, 0x8b, 0x04, 0x2d, 0x00, 0x00, 0x00, 0x00), LOAD(8, 4, RAX) },
	{ "mov 0x7fffffff(%rax,%rax,8),%rdx", M64,
	  CODE(0x48, 0x8b, 0x94, 0xc0, 0xff, 0xff, 0xff, 0x7f), LOAD(8, 8, RDX) },

	/* The xAPIC page through Linux's fixmap: absolute disp32, sign-extended. */
	{ "apic write: mov %edi,0xffffffffff5fc0b0", M64,
	  CODE(0x89, 0x3c, 0x25, 0xb0, 0xc0, 0x5f, 0xff), STORE(7, 4, RDI) },
	{ "apic read: mov 0xffffffffff5fc020,%eax", M64,
	  CODE(0x8b, 0x04, 0x25, 0x20, 0xc0, 0x5f, 0xff), LOAD(7, 4, RAX) },

	/* Byte registers: AH..BH without REX, SPL..DIL and r8b.. with one. */
	{ "mov (%rax),%ah", M64, CODE(0x8a, 0x20), LOAD_HIGH(2, RAX) },
	{ "mov %bh,(%rsi)", M64, CODE(0x88, 0x3e), STORE_HIGH(2, RBX) },
	{ "mov %ch,(%rdi)", M64, CODE(0x88, 0x2f), STORE_HIGH(2, RCX) },
	{ "mov (%rdx),%dh", M64, CODE(0x8a, 0x32), LOAD_HIGH(2, RDX) },
	{ "mov %dil,(%rsi): bare REX", M64, CODE(0x40, 0x88, 0x3e), STORE(3, 1, RDI) },
	{ "mov (%rax),%spl", M64, CODE(0x40, 0x8a, 0x20), LOAD(3, 1, RSP) },
	{ "mov %r12b,(%rax)", M64, CODE(0x44, 0x88, 0x20), STORE(3, 1, R12) },
	{ "mov (%rax),%bl", M64, CODE(0x8a, 0x18), LOAD(2, 1, RBX) },
	{ "REX.W ignored for byte MOV", M64, CODE(0x48, 0x88, 0x07), STORE(3, 1, RAX) },

	/* Immediates. */
	{ "movl $0x1,(%rdi)", M64, CODE(0xc7, 0x07, 0x01, 0x00, 0x00, 0x00),
	  STORE_IMM(6, 4, 1) },
	{ "movl $0x80000000,0x300(%rdi)", M64,
	  CODE(0xc7, 0x87, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80),
	  STORE_IMM(10, 4, 0x80000000) },
	{ "movq $-1,(%rdi): imm32 sign-extended", M64,
	  CODE(0x48, 0xc7, 0x07, 0xff, 0xff, 0xff, 0xff), STORE_IMM(7, 8, UINT64_MAX) },
	{ "movq $0x7fffffff,(%rdi)", M64, CODE(0x48, 0xc7, 0x07, 0xff, 0xff, 0xff, 0x7f),
	  STORE_IMM(7, 8, 0x7fffffff) },
	{ "movw $0x1234,(%rdi)", M64, CODE(0x66, 0xc7, 0x07, 0x34, 0x12),
	  STORE_IMM(5, 2, 0x1234) },
	{ "movb $0xab,(%rdi)", M64, CODE(0xc6, 0x07, 0xab), STORE_IMM(3, 1, 0xab) },
	{ "movb $0x0,0x10(%rip)", M64, CODE(0xc6, 0x05, 0x10, 0x00, 0x00, 0x00, 0x00),
	  STORE_IMM(7, 1, 0) },
	{ "movl $0x5,0x8(%rsp): SIB then imm", M64,
	  CODE(0xc7, 0x44, 0x24, 0x08, 0x05, 0x00, 0x00, 0x00), STORE_IMM(8, 4, 5) },

	/* MOVZX and MOVSX. */
	{ "movzbl 0x3(%rdi),%ecx", M64, CODE(0x0f, 0xb6, 0x4f, 0x03),
	  LOAD_EXT(4, 1, 4, RCX, DECODE_EXTEND_ZERO) },
	{ "movzbw (%rdi),%ax", M64, CODE(0x66, 0x0f, 0xb6, 0x07),
	  LOAD_EXT(4, 1, 2, RAX, DECODE_EXTEND_ZERO) },
	{ "movzwq (%rdi),%r10", M64, CODE(0x4c, 0x0f, 0xb7, 0x17),
	  LOAD_EXT(4, 2, 8, R10, DECODE_EXTEND_ZERO) },
	{ "movsbl (%rdi),%eax", M64, CODE(0x0f, 0xbe, 0x07),
	  LOAD_EXT(3, 1, 4, RAX, DECODE_EXTEND_SIGN) },
	{ "movswq (%rdi),%rax", M64, CODE(0x48, 0x0f, 0xbf, 0x07),
	  LOAD_EXT(4, 2, 8, RAX, DECODE_EXTEND_SIGN) },
	{ "movsbw (%rdi),%si", M64, CODE(0x66, 0x0f, 0xbe, 0x37),
	  LOAD_EXT(4, 1, 2, RSI, DECODE_EXTEND_SIGN) },
	{ "movzww (%rdi),%ax: as wide as the source", M64, CODE(0x66, 0x0f, 0xb7, 0x07),
	  LOAD_EXT(4, 2, 2, RAX, DECODE_EXTEND_ZERO) },
	{ "16: movsx (%bx),%cx", M16, CODE(0x0f, 0xbf, 0x0f),
	  LOAD_EXT(3, 2, 2, RCX, DECODE_EXTEND_SIGN) },
	{ "movzbl (%rdi),%esp: no high byte for MOVZX", M64, CODE(0x0f, 0xb6, 0x27),
	  LOAD_EXT(3, 1, 4, RSP, DECODE_EXTEND_ZERO) },

	/* Direct offsets: 8 bytes in 64-bit mode, 4 with 67. */
	{ "movabs 0xfee00020,%eax", M64,
	  CODE(0xa1, 0x20, 0x00, 0xe0, 0xfe, 0x00, 0x00, 0x00, 0x00), LOAD(9, 4, RAX) },
	{ "movabs %rax,0xfee000b0", M64,
	  CODE(0x48, 0xa3, 0xb0, 0x00, 0xe0, 0xfe, 0x00, 0x00, 0x00, 0x00), STORE(10, 8, RAX) },
	{ "movabs 0x1,%al", M64, CODE(0xa0, 1, 0, 0, 0, 0, 0, 0, 0), LOAD(9, 1, RAX) },
	{ "movabs %al,0x1: REX.B does not move AL", M64,
	  CODE(0x41, 0xa2, 1, 0, 0, 0, 0, 0, 0, 0), STORE(10, 1, RAX) },
	{ "addr32 mov 0xfee00020,%ax", M64,
	  CODE(0x66, 0x67, 0xa1, 0x20, 0x00, 0xe0, 0xfe), LOAD(7, 2, RAX) },

	/* Prefixes that change nothing here, and REX placement. */
	{ "mov %gs:0x10,%eax", M64, CODE(0x65, 0x8b, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00),
	  LOAD(8, 4, RAX) },
	{ "cs ds es ss fs prefixes", M64, CODE(0x2e, 0x3e, 0x26, 0x36, 0x64, 0x8b, 0x07),
	  LOAD(7, 4, RAX) },
	{ "addr32 mov (%edi),%eax", M64, CODE(0x67, 0x8b, 0x07), LOAD(3, 4, RAX) },
	{ "REX.W beats 66", M64, CODE(0x66, 0x48, 0x89, 0x07), STORE(4, 8, RAX) },
	{ "REX before 66 is ignored", M64, CODE(0x48, 0x66, 0x89, 0x07), STORE(4, 2, RAX) },
	{ "REX before a segment prefix is ignored", M64, CODE(0x4c, 0x65, 0x89, 0x07),
	  STORE(4, 4, RAX) },
	{ "ignored REX leaves BH as BH", M64, CODE(0x40, 0x2e, 0x88, 0x3e),
	  STORE_HIGH(4, RBX) },
	{ "the last of two REX counts", M64, CODE(0x48, 0x44, 0x8b, 0x07), LOAD(4, 4, R8) },
	{ "fifteen bytes: 13 prefixes", M64,
	  CODE(0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	       0x8b, 0x07), LOAD(15, 4, RAX) },

	/* 32-bit protected mode. */
	{ "32: mov (%edi),%eax", M32, CODE(0x8b, 0x07), LOAD(2, 4, RAX) },
	{ "32: mov %ax,(%edi)", M32, CODE(0x66, 0x89, 0x07), STORE(3, 2, RAX) },
	{ "32: mov 0xfee00020,%eax: disp32, not RIP", M32,
	  CODE(0x8b, 0x05, 0x20, 0x00, 0xe0, 0xfe), LOAD(6, 4, RAX) },
	{ "32: mov 0xfee00020,%eax: moffs32", M32, CODE(0xa1, 0x20, 0x00, 0xe0, 0xfe),
	  LOAD(5, 4, RAX) },
	{ "32: addr16 moffs16", M32, CODE(0x67, 0xa1, 0x00, 0x10), LOAD(4, 4, RAX) },
	{ "32: addr16 mov 0x10(%bx),%eax", M32, CODE(0x67, 0x8b, 0x47, 0x10),
	  LOAD(4, 4, RAX) },
	{ "32: addr16 mov 0x1234,%eax", M32, CODE(0x67, 0x8b, 0x06, 0x34, 0x12),
	  LOAD(5, 4, RAX) },
	{ "32: addr16 mov 0x1234(%bp,%si),%eax", M32,
	  CODE(0x67, 0x8b, 0x82, 0x34, 0x12), LOAD(5, 4, RAX) },
	{ "32: addr16 mov (%bx,%si),%eax", M32, CODE(0x67, 0x8b, 0x00), LOAD(3, 4, RAX) },
	{ "32: mov %ah,(%eax)", M32, CODE(0x88, 0x20), STORE_HIGH(2, RAX) },
	{ "32: movl $0x1,(%edi)", M32, CODE(0xc7, 0x07, 0x01, 0x00, 0x00, 0x00),
	  STORE_IMM(6, 4, 1) },
	{ "32: 40 is INC, not REX", M32, CODE(0x40, 0x8b, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "32: 48 is DEC, not REX", M32, CODE(0x48, 0x89, 0x07), FAILS(DECODE_UNSUPPORTED) },

	/* 16-bit code. */
	{ "16: mov (%bx),%ax", M16, CODE(0x8b, 0x07), LOAD(2, 2, RAX) },
	{ "16: mov %eax,(%bx)", M16, CODE(0x66, 0x89, 0x07), STORE(3, 4, RAX) },
	{ "16: addr32 mov (%edi),%ax", M16, CODE(0x67, 0x8b, 0x07), LOAD(3, 2, RAX) },
	{ "16: movw $0x1,(%bx)", M16, CODE(0xc7, 0x07, 0x01, 0x00), STORE_IMM(4, 2, 1) },
	{ "16: moffs16", M16, CODE(0xa3, 0x20, 0x00), STORE(3, 2, RAX) },

	/* Truncated input: the caller may fetch more. */
	{ "empty", M64, .code_len = 0, FAILS(DECODE_TRUNCATED) },
	{ "prefix only", M64, CODE(0x66), FAILS(DECODE_TRUNCATED) },
	{ "REX only", M64, CODE(0x48), FAILS(DECODE_TRUNCATED) },
	{ "no ModRM", M64, CODE(0x8b), FAILS(DECODE_TRUNCATED) },
	{ "no SIB", M64, CODE(0x8b, 0x04), FAILS(DECODE_TRUNCATED) },
	{ "short disp32", M64, CODE(0x8b, 0x84, 0x24, 0x00, 0x01), FAILS(DECODE_TRUNCATED) },
	{ "short immediate", M64, CODE(0xc7, 0x07, 0x01, 0x00), FAILS(DECODE_TRUNCATED) },
	{ "short moffs64", M64, CODE(0xa1, 0x20, 0x00, 0xe0, 0xfe), FAILS(DECODE_TRUNCATED) },
	{ "0F alone", M64, CODE(0x0f), FAILS(DECODE_TRUNCATED) },

	/* Longer than 15 bytes. */
	{ "sixteen bytes: 14 prefixes", M64,
	  CODE(0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x2e,
	       0x2e, 0x8b, 0x07), FAILS(DECODE_TOO_LONG) },
	{ "sixteen bytes: disp and imm", M64,
	  CODE(0x2e, 0x2e, 0x2e, 0x2e, 0x2e, 0x48, 0xc7, 0x84, 0x24,
	       0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00), FAILS(DECODE_TOO_LONG) },

	/* Register operands cannot cause an MMIO exit. */
	{ "mov %ecx,%eax", M64, CODE(0x89, 0xc8), FAILS(DECODE_NOT_MEMORY) },
	{ "movzbl %al,%eax", M64, CODE(0x0f, 0xb6, 0xc0), FAILS(DECODE_NOT_MEMORY) },
	{ "mov $1,%eax (C7 C0)", M64, CODE(0xc7, 0xc0, 0x01, 0x00, 0x00, 0x00),
	  FAILS(DECODE_NOT_MEMORY) },

	/* Everything else. */
	{ "add %eax,(%rdi)", M64, CODE(0x01, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "and (%rdi),%eax", M64, CODE(0x23, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "test %eax,(%rdi)", M64, CODE(0x85, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "incl (%rdi)", M64, CODE(0xff, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "movsb", M64, CODE(0xa4), FAILS(DECODE_UNSUPPORTED) },
	{ "rep stos", M64, CODE(0xf3, 0xab), FAILS(DECODE_UNSUPPORTED) },
	{ "lock mov", M64, CODE(0xf0, 0x89, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "xrelease mov", M64, CODE(0xf3, 0x89, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "repne mov", M64, CODE(0xf2, 0x8b, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "popcnt (F3 0F B8)", M64, CODE(0xf3, 0x0f, 0xb8, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "C6 /7 (XABORT)", M64, CODE(0xc6, 0xf8, 0x00), FAILS(DECODE_UNSUPPORTED) },
	{ "C7 /1", M64, CODE(0xc7, 0x0f, 0x00, 0x00, 0x00, 0x00), FAILS(DECODE_UNSUPPORTED) },
	{ "ud2", M64, CODE(0x0f, 0x0b), FAILS(DECODE_UNSUPPORTED) },
	{ "movnti", M64, CODE(0x0f, 0xc3, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "VEX vmovdqu", M64, CODE(0xc5, 0xfe, 0x6f, 0x07), FAILS(DECODE_UNSUPPORTED) },
	{ "mov to segment register", M64, CODE(0x8e, 0x07), FAILS(DECODE_UNSUPPORTED) },
};

static void check_insn(const struct decode_case *c, const struct decode_insn *got)
{
	const struct decode_insn *want = &c->want;

	if (got->length != want->length || got->size != want->size ||
	    got->reg_size != want->reg_size || got->reg != want->reg ||
	    got->high_byte != want->high_byte || got->write != want->write ||
	    got->immediate_source != want->immediate_source ||
	    got->extend != want->extend || got->immediate != want->immediate)
		fail_msg("%s: got length %u size %u reg_size %u reg %u high %d write %d "
			 "imm_src %d extend %d imm %#llx; want length %u size %u reg_size %u "
			 "reg %u high %d write %d imm_src %d extend %d imm %#llx", c->name,
			 got->length, got->size, got->reg_size, got->reg, got->high_byte,
			 got->write, got->immediate_source, got->extend,
			 (unsigned long long)got->immediate, want->length, want->size,
			 want->reg_size, want->reg, want->high_byte, want->write,
			 want->immediate_source, want->extend,
			 (unsigned long long)want->immediate);
}

static void test_table(void **state)
{
	struct decode_insn insn;
	enum decode_status status;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct decode_case *c = &cases[i];

		status = decode_instruction(&insn, c->code, c->code_len, c->mode);
		if (status != c->status)
			fail_msg("%s: status \"%s\", want \"%s\"", c->name,
				 decode_status_name(status), decode_status_name(c->status));
		if (status == DECODE_OK)
			check_insn(c, &insn);
	}
}

/* Every proper prefix of a valid instruction is truncated, never misread. */
static void test_every_prefix_is_truncated(void **state)
{
	struct decode_insn insn;
	enum decode_status status;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct decode_case *c = &cases[i];

		if (c->status != DECODE_OK)
			continue;
		for (len = 0; len < c->code_len; len++) {
			status = decode_instruction(&insn, c->code, len, c->mode);
			if (status != DECODE_TRUNCATED)
				fail_msg("%s: first %zu bytes gave \"%s\"", c->name, len,
					 decode_status_name(status));
		}
	}
}

/* Bytes after the instruction (the next one, or unmapped garbage) are ignored. */
static void test_trailing_bytes_ignored(void **state)
{
	uint8_t code[64];
	struct decode_insn insn;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct decode_case *c = &cases[i];

		if (c->status != DECODE_OK)
			continue;
		memset(code, 0xcc, sizeof(code));
		memcpy(code, c->code, c->code_len);
		assert_int_equal(decode_instruction(&insn, code, sizeof(code), c->mode),
				 DECODE_OK);
		check_insn(c, &insn);
	}
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(decode_status_name(DECODE_OK), "ok");
	assert_non_null(strstr(decode_status_name(DECODE_TRUNCATED), "end early"));
	assert_non_null(strstr(decode_status_name(DECODE_TOO_LONG), "15 bytes"));
	assert_non_null(strstr(decode_status_name(DECODE_UNSUPPORTED), "unsupported"));
	assert_non_null(strstr(decode_status_name(DECODE_NOT_MEMORY), "memory"));
	assert_string_equal(decode_status_name((enum decode_status)99), "unknown status");
}

/* Decodes code, which must succeed, into insn. */
static void decode_ok(struct decode_insn *insn, const uint8_t *code, size_t len,
		      enum decode_mode mode)
{
	assert_int_equal(decode_instruction(insn, code, len, mode), DECODE_OK);
}

static void fill_gprs(uint64_t gprs[DECODE_GPR_COUNT])
{
	unsigned int i;

	for (i = 0; i < DECODE_GPR_COUNT; i++)
		gprs[i] = 0x1111111111111111ull * ((i % 15) + 1);
}

/* Applies a load and checks that no register but want_reg changed. */
static void complete_and_check(const uint8_t *code, size_t len, enum decode_mode mode,
			       uint64_t value, unsigned int want_reg, uint64_t before,
			       uint64_t want)
{
	uint64_t gprs[DECODE_GPR_COUNT], saved[DECODE_GPR_COUNT];
	struct decode_insn insn;
	unsigned int i;

	decode_ok(&insn, code, len, mode);
	assert_false(insn.write);
	fill_gprs(gprs);
	gprs[want_reg] = before;
	memcpy(saved, gprs, sizeof(saved));
	decode_read_complete(&insn, gprs, value);
	assert_int_equal(gprs[want_reg], want);
	for (i = 0; i < DECODE_GPR_COUNT; i++)
		if (i != want_reg)
			assert_int_equal(gprs[i], saved[i]);
}

static void test_read_widths(void **state)
{
	const uint64_t before = 0xaaaaaaaaaaaaaaaaull;

	(void)state;
	/* 32-bit loads zero bits 63:32; the device's extra bits are dropped. */
	complete_and_check((const uint8_t[]){ 0x8b, 0x07 }, 2, DECODE_MODE_64,
			   0xdeadbeef12345678ull, RAX, before, 0x12345678);
	complete_and_check((const uint8_t[]){ 0x44, 0x8b, 0x40, 0x04 }, 4, DECODE_MODE_64,
			   0xffffffff, R8, before, 0xffffffff);
	/* 64-bit loads replace the register. */
	complete_and_check((const uint8_t[]){ 0x48, 0x8b, 0x07 }, 3, DECODE_MODE_64,
			   0x0123456789abcdefull, RAX, before, 0x0123456789abcdefull);
	/* 16- and 8-bit loads merge. */
	complete_and_check((const uint8_t[]){ 0x66, 0x8b, 0x0f }, 3, DECODE_MODE_64,
			   0x55661234, RCX, before, 0xaaaaaaaaaaaa1234ull);
	complete_and_check((const uint8_t[]){ 0x8a, 0x18 }, 2, DECODE_MODE_64,
			   0x1234, RBX, before, 0xaaaaaaaaaaaaaa34ull);
	complete_and_check((const uint8_t[]){ 0x44, 0x8a, 0x3f }, 3, DECODE_MODE_64,
			   0x7f, R15, before, 0xaaaaaaaaaaaaaa7full);
	/* AH..BH merge into bits 15:8 of rAX..rBX. */
	complete_and_check((const uint8_t[]){ 0x8a, 0x20 }, 2, DECODE_MODE_64,
			   0x5c, RAX, before, 0xaaaaaaaaaaaa5caaull);
	complete_and_check((const uint8_t[]){ 0x8a, 0x3e }, 2, DECODE_MODE_64,
			   0x01, RBX, before, 0xaaaaaaaaaaaa01aaull);
	/* With a REX, encoding 7 is DIL: the low byte of rdi. */
	complete_and_check((const uint8_t[]){ 0x40, 0x8a, 0x3e }, 3, DECODE_MODE_64,
			   0x01, RDI, before, 0xaaaaaaaaaaaaaa01ull);
	/* 32-bit mode: a 32-bit load still clears the bits no one can see. */
	complete_and_check((const uint8_t[]){ 0x8b, 0x07 }, 2, DECODE_MODE_32,
			   0x89abcdef, RAX, before, 0x89abcdef);
}

static void test_read_extensions(void **state)
{
	const uint64_t before = 0xaaaaaaaaaaaaaaaaull;

	(void)state;
	/* MOVZX */
	complete_and_check((const uint8_t[]){ 0x0f, 0xb6, 0x07 }, 3, DECODE_MODE_64,
			   0xfff0, RAX, before, 0xf0);
	complete_and_check((const uint8_t[]){ 0x0f, 0xb7, 0x07 }, 3, DECODE_MODE_64,
			   0x18000, RAX, before, 0x8000);
	complete_and_check((const uint8_t[]){ 0x66, 0x0f, 0xb6, 0x07 }, 4, DECODE_MODE_64,
			   0x80, RAX, before, 0xaaaaaaaaaaaa0080ull);
	complete_and_check((const uint8_t[]){ 0x48, 0x0f, 0xb7, 0x07 }, 4, DECODE_MODE_64,
			   0xffff, RAX, before, 0xffff);
	/* MOVSX: the sign fills the destination's width, then the usual rules apply. */
	complete_and_check((const uint8_t[]){ 0x0f, 0xbe, 0x07 }, 3, DECODE_MODE_64,
			   0x80, RAX, before, 0xffffff80);
	complete_and_check((const uint8_t[]){ 0x0f, 0xbe, 0x07 }, 3, DECODE_MODE_64,
			   0x7f, RAX, before, 0x7f);
	complete_and_check((const uint8_t[]){ 0x48, 0x0f, 0xbe, 0x07 }, 4, DECODE_MODE_64,
			   0x80, RAX, before, 0xffffffffffffff80ull);
	complete_and_check((const uint8_t[]){ 0x48, 0x0f, 0xbf, 0x07 }, 4, DECODE_MODE_64,
			   0x8000, RAX, before, 0xffffffffffff8000ull);
	complete_and_check((const uint8_t[]){ 0x0f, 0xbf, 0x07 }, 3, DECODE_MODE_64,
			   0x12348001, RAX, before, 0xffff8001);
	complete_and_check((const uint8_t[]){ 0x66, 0x0f, 0xbe, 0x37 }, 4, DECODE_MODE_64,
			   0xfe, RSI, before, 0xaaaaaaaaaaaafffeull);
}

/* Decodes a store and returns the value it sends, from a known register file. */
static uint64_t store_value(const uint8_t *code, size_t len, enum decode_mode mode,
			    unsigned int reg, uint64_t reg_value)
{
	uint64_t gprs[DECODE_GPR_COUNT];
	struct decode_insn insn;

	decode_ok(&insn, code, len, mode);
	assert_true(insn.write);
	fill_gprs(gprs);
	gprs[reg] = reg_value;
	return decode_write_value(&insn, gprs);
}

static void test_write_values(void **state)
{
	const uint64_t value = 0x0123456789abcdefull;

	(void)state;
	assert_int_equal(store_value((const uint8_t[]){ 0x89, 0x37 }, 2, DECODE_MODE_64,
				     RSI, value), 0x89abcdef);
	assert_int_equal(store_value((const uint8_t[]){ 0x48, 0x89, 0x37 }, 3,
				     DECODE_MODE_64, RSI, value), value);
	assert_int_equal(store_value((const uint8_t[]){ 0x66, 0x89, 0x37 }, 3,
				     DECODE_MODE_64, RSI, value), 0xcdef);
	assert_int_equal(store_value((const uint8_t[]){ 0x40, 0x88, 0x37 }, 3,
				     DECODE_MODE_64, RSI, value), 0xef);
	assert_int_equal(store_value((const uint8_t[]){ 0x88, 0x3e }, 2, DECODE_MODE_64,
				     RBX, value), 0xcd);
	assert_int_equal(store_value((const uint8_t[]){ 0x88, 0x20 }, 2, DECODE_MODE_64,
				     RAX, value), 0xcd);
	assert_int_equal(store_value((const uint8_t[]){ 0x45, 0x89, 0x4c, 0x24, 0x08 }, 5,
				     DECODE_MODE_64, R9, value), 0x89abcdef);
	assert_int_equal(store_value((const uint8_t[]){ 0x48, 0xa3, 0, 0, 0xe0, 0xfe, 0, 0,
							0, 0 }, 10, DECODE_MODE_64,
				     RAX, value), value);
	/* Immediates ignore the register file. */
	assert_int_equal(store_value((const uint8_t[]){ 0xc7, 0x07, 0x01, 0, 0, 0 }, 6,
				     DECODE_MODE_64, RAX, value), 1);
	assert_int_equal(store_value((const uint8_t[]){ 0x48, 0xc7, 0x07, 0x00, 0x00,
							0x00, 0x80 }, 7, DECODE_MODE_64,
				     RAX, value), 0xffffffff80000000ull);
	assert_int_equal(store_value((const uint8_t[]){ 0xc6, 0x07, 0x80 }, 3,
				     DECODE_MODE_64, RAX, value), 0x80);
}

int main(void)
{
	const struct CMUnitTest decode_tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_every_prefix_is_truncated),
		cmocka_unit_test(test_trailing_bytes_ignored),
		cmocka_unit_test(test_status_names),
	};
	const struct CMUnitTest register_tests[] = {
		cmocka_unit_test(test_read_widths),
		cmocka_unit_test(test_read_extensions),
		cmocka_unit_test(test_write_values),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("decode_instruction", decode_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("decode_registers", register_tests, NULL, NULL);
	return failed;
}
