// SPDX-License-Identifier: MIT
/*
 * test_realmode.c - unit tests for hv/vmx/realmode.c.
 *
 * The table holds the privileged instructions of Linux 6.1's AP trampoline
 * and verify_cpu as the Debian kernel encodes them, their prefixed forms,
 * and what must be refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vmx/realmode.h"

struct realmode_case {
	const char *name;
	uint8_t code[REALMODE_MAX_LENGTH + 2];
	unsigned int code_len;
	enum realmode_status status;
	struct realmode_insn want;	/* checked when status is REALMODE_OK */
};

#define CODE(...)	.code = { __VA_ARGS__ }, .code_len = sizeof((uint8_t[]){ __VA_ARGS__ })
#define FAILS(st)	.status = st

static const struct realmode_case cases[] = {
	/* The trampoline (arch/x86/realmode/rm/trampoline_64.S). */
	{ "wbinvd", CODE(0x0f, 0x09), .want = { .op = REALMODE_WBINVD, .length = 2 } },
	{ "lidtl 0x60", CODE(0x66, 0x0f, 0x01, 0x1e, 0x60, 0x00),
	  .want = { .op = REALMODE_LIDT, .length = 6, .operand32 = true, .offset = 0x60 } },
	{ "lgdtl 0x30", CODE(0x66, 0x0f, 0x01, 0x16, 0x30, 0x00),
	  .want = { .op = REALMODE_LGDT, .length = 6, .operand32 = true, .offset = 0x30 } },
	{ "mov %eax,%cr0", CODE(0x0f, 0x22, 0xc0),
	  .want = { .op = REALMODE_MOV_TO_CR, .length = 3, .cr = 0, .gpr = 0 } },
	{ "rdmsr", CODE(0x0f, 0x32), .want = { .op = REALMODE_RDMSR, .length = 2 } },
	{ "wrmsr", CODE(0x0f, 0x30), .want = { .op = REALMODE_WRMSR, .length = 2 } },
	{ "hlt", CODE(0xf4), .want = { .op = REALMODE_HLT, .length = 1 } },

	/* Other forms of the same. */
	{ "lgdtw 0x1234", CODE(0x0f, 0x01, 0x16, 0x34, 0x12),
	  .want = { .op = REALMODE_LGDT, .length = 5, .offset = 0x1234 } },
	{ "addr32 lgdtl 0x12345678", CODE(0x67, 0x66, 0x0f, 0x01, 0x15, 0x78, 0x56, 0x34, 0x12),
	  .want = { .op = REALMODE_LGDT, .length = 9, .operand32 = true, .address32 = true,
		    .offset = 0x12345678 } },
	{ "mov %esp,%cr4", CODE(0x66, 0x0f, 0x22, 0xe4),
	  .want = { .op = REALMODE_MOV_TO_CR, .length = 4, .operand32 = true, .cr = 4,
		    .gpr = 4 } },
	{ "mov %edi,%cr3, mod bits ignored", CODE(0x0f, 0x22, 0x1f),
	  .want = { .op = REALMODE_MOV_TO_CR, .length = 3, .cr = 3, .gpr = 7 } },
	{ "repeated prefixes", CODE(0x66, 0x66, 0x67, 0x66, 0xf4),
	  .want = { .op = REALMODE_HLT, .length = 5, .operand32 = true, .address32 = true } },
	{ "trailing bytes ignored", CODE(0x0f, 0x09, 0x0f, 0x0b),
	  .want = { .op = REALMODE_WBINVD, .length = 2 } },

	/* Refused. */
	{ "mov %eax,%cr2", CODE(0x0f, 0x22, 0xd0), FAILS(REALMODE_UNSUPPORTED) },
	{ "mov %eax,%cr8", CODE(0x0f, 0x22, 0xf8), FAILS(REALMODE_UNSUPPORTED) },
	{ "mov %cr0,%eax", CODE(0x0f, 0x20, 0xc0), FAILS(REALMODE_UNSUPPORTED) },
	{ "lgdt (%bx)", CODE(0x0f, 0x01, 0x17), FAILS(REALMODE_UNSUPPORTED) },
	{ "lgdt 0x10(%bp)", CODE(0x0f, 0x01, 0x56, 0x10), FAILS(REALMODE_UNSUPPORTED) },
	{ "addr32 lgdt (%esi)", CODE(0x67, 0x0f, 0x01, 0x16), FAILS(REALMODE_UNSUPPORTED) },
	{ "sgdt", CODE(0x0f, 0x01, 0x06, 0x30, 0x00), FAILS(REALMODE_UNSUPPORTED) },
	{ "lmsw", CODE(0x0f, 0x01, 0xf0), FAILS(REALMODE_UNSUPPORTED) },
	{ "clts", CODE(0x0f, 0x06), FAILS(REALMODE_UNSUPPORTED) },
	{ "invd", CODE(0x0f, 0x08), FAILS(REALMODE_UNSUPPORTED) },
	{ "in $0x80,%al", CODE(0xe4, 0x80), FAILS(REALMODE_UNSUPPORTED) },
	{ "int $0x10", CODE(0xcd, 0x10), FAILS(REALMODE_UNSUPPORTED) },
	{ "cs segment override", CODE(0x2e, 0x0f, 0x01, 0x16, 0x30, 0x00),
	  FAILS(REALMODE_UNSUPPORTED) },
	{ "lock prefix", CODE(0xf0, 0x0f, 0x09), FAILS(REALMODE_UNSUPPORTED) },
	{ "fifteen prefixes", CODE(0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
				   0x66, 0x66, 0x66, 0x66, 0x66, 0xf4),
	  FAILS(REALMODE_TOO_LONG) },
	{ "addr32 lgdt past 15 bytes", CODE(0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67, 0x67,
					   0x0f, 0x01, 0x15, 0, 0, 0, 0),
	  FAILS(REALMODE_TOO_LONG) },

	/* Cut short: the page ends, or RAM does. */
	{ "nothing", .code_len = 0, FAILS(REALMODE_TRUNCATED) },
	{ "prefix alone", CODE(0x66), FAILS(REALMODE_TRUNCATED) },
	{ "0f alone", CODE(0x0f), FAILS(REALMODE_TRUNCATED) },
	{ "0f 01 alone", CODE(0x66, 0x0f, 0x01), FAILS(REALMODE_TRUNCATED) },
	{ "lgdt missing a displacement byte", CODE(0x66, 0x0f, 0x01, 0x16, 0x30),
	  FAILS(REALMODE_TRUNCATED) },
	{ "addr32 lgdt missing displacement bytes", CODE(0x67, 0x0f, 0x01, 0x15, 0x30, 0x00),
	  FAILS(REALMODE_TRUNCATED) },
	{ "0f 22 alone", CODE(0x0f, 0x22), FAILS(REALMODE_TRUNCATED) },
};

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct realmode_case *c = &cases[i];
		struct realmode_insn insn;
		enum realmode_status status = realmode_decode(c->code, c->code_len, &insn);

		print_message("%s\n", c->name);
		assert_int_equal(status, c->status);
		if (status != REALMODE_OK)
			continue;
		assert_int_equal(insn.op, c->want.op);
		assert_int_equal(insn.length, c->want.length);
		assert_int_equal(insn.operand32, c->want.operand32);
		assert_int_equal(insn.address32, c->want.address32);
		assert_int_equal(insn.cr, c->want.cr);
		assert_int_equal(insn.gpr, c->want.gpr);
		assert_int_equal(insn.offset, c->want.offset);
	}
}

/* Every accepted instruction, cut anywhere, is refused as cut short and never read past. */
static void test_every_prefix_is_truncated(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct realmode_case *c = &cases[i];
		struct realmode_insn insn;

		if (c->status != REALMODE_OK)
			continue;
		for (unsigned int len = 0; len < c->want.length; len++) {
			uint8_t *copy = test_malloc(len ? len : 1);

			memcpy(copy, c->code, len);
			print_message("%s, %u bytes\n", c->name, len);
			assert_int_equal(realmode_decode(copy, len, &insn), REALMODE_TRUNCATED);
			test_free(copy);
		}
	}
}

/* Hostile bytes: whatever they are, a result within the bytes or a refusal. */
static void test_hostile_bytes(void **state)
{
	uint8_t code[REALMODE_MAX_LENGTH];
	uint32_t seed = 1;

	(void)state;
	for (unsigned int round = 0; round < 200000; round++) {
		struct realmode_insn insn;
		unsigned int len = round % (REALMODE_MAX_LENGTH + 1);
		enum realmode_status status;

		for (unsigned int i = 0; i < len; i++) {
			seed = seed * 1103515245u + 12345u;
			/* Favour the bytes the decoder looks for. */
			code[i] = (uint8_t)((const uint8_t[]){ 0x66, 0x67, 0x0f, 0x01, 0x22,
							       0x16, 0x15, 0xf4,
							       (uint8_t)(seed >> 8) })[(seed >> 24) % 9];
		}
		status = realmode_decode(code, len, &insn);
		if (status == REALMODE_OK) {
			assert_true(insn.length >= 1 && insn.length <= len);
			assert_true(insn.length <= REALMODE_MAX_LENGTH);
		}
	}
}

static void test_table_base(void **state)
{
	const uint8_t bytes[REALMODE_TABLE_BYTES] = { 0x1f, 0x00, 0x30, 0x90, 0x09, 0xfe };
	struct realmode_insn insn = { .op = REALMODE_LGDT };
	uint64_t base;
	uint16_t limit;

	(void)state;
	realmode_table(&insn, bytes, &base, &limit);
	assert_int_equal(limit, 0x1f);
	assert_int_equal(base, 0x099030);	/* 16-bit operand: 24 bits */
	insn.operand32 = true;
	realmode_table(&insn, bytes, &base, &limit);
	assert_int_equal(limit, 0x1f);
	assert_int_equal(base, 0xfe099030);
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(realmode_status_name(REALMODE_OK), "ok");
	assert_string_equal(realmode_status_name(REALMODE_TRUNCATED), "instruction cut short");
	assert_string_equal(realmode_status_name(REALMODE_TOO_LONG), "instruction too long");
	assert_string_equal(realmode_status_name(REALMODE_UNSUPPORTED),
			    "instruction not emulated");
	assert_string_equal(realmode_status_name((enum realmode_status)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_every_prefix_is_truncated),
		cmocka_unit_test(test_hostile_bytes),
		cmocka_unit_test(test_table_base),
		cmocka_unit_test(test_status_names),
	};

	return cmocka_run_group_tests_name("realmode_decode", tests, NULL, NULL);
}
