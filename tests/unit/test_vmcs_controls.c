/* SPDX-License-Identifier: MIT */
/*
 * test_vmcs_controls.c - the control words and bitmaps of a vCPU's VMCS
 * from capability MSRs shaped as the Nehalem (no unrestricted guest) and
 * Haswell models report them, and a core lacking a required control.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vmx/vmcs.h"
#include "vmx/vmcs_setup.h"

/* allowed-0 settings in the low half, allowed-1 in the high (SDM Vol. 3D §A.3). */
#define CAP(must, may)	((uint64_t)(may) << 32 | (must))

/* Default-1 bits the TRUE_* MSRs still force (§A.2): bit 1, 2, 4 and the like. */
#define PIN_DEFAULT1	0x16u
#define PROC_DEFAULT1	0x0401e172u
#define EXIT_DEFAULT1	0x00036dffu
#define ENTRY_DEFAULT1	0x000011ffu

static const uint32_t pin_may = PIN_DEFAULT1 | 1u << 0 | PIN_NMI_EXITING | PIN_VIRTUAL_NMIS;
static const uint32_t proc_may = 0xfffffffeu;
static const uint32_t exit_may = EXIT_DEFAULT1 | EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_PAT |
				 EXIT_LOAD_PAT | EXIT_SAVE_EFER | EXIT_LOAD_EFER | 1u << 15;
static const uint32_t entry_may = ENTRY_DEFAULT1 | ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_PAT |
				  ENTRY_LOAD_EFER;

static struct vmx_caps caps_of(uint32_t proc2_may)
{
	return (struct vmx_caps){
		.ok = true,
		.pinbased = CAP(PIN_DEFAULT1, pin_may),
		.procbased = CAP(PROC_DEFAULT1 & ~(PROC_CR3_LOAD_EXITING | PROC_CR3_STORE_EXITING),
				 proc_may),
		.procbased2 = CAP(0, proc2_may),
		.exit_ctls = CAP(EXIT_DEFAULT1 & ~(1u << 15), exit_may),
		.entry_ctls = CAP(ENTRY_DEFAULT1 & ~(1u << 9), entry_may),
	};
}

/* Nehalem: EPT, RDTSCP, VPID, WBINVD exiting; no unrestricted guest, INVPCID, XSAVES. */
#define NEHALEM_PROC2	(PROC2_EPT | PROC2_RDTSCP | PROC2_VPID | PROC2_WBINVD_EXITING)
/* Haswell adds unrestricted guest and INVPCID among others. */
#define HASWELL_PROC2	(NEHALEM_PROC2 | PROC2_UNRESTRICTED_GUEST | PROC2_INVPCID | 0x100u)

static const struct vmcs_setup_choices every_instruction = {
	.rdtscp = true, .invpcid = true, .xsaves = true,
};

static void check_common(const struct vmcs_controls *c, const struct vmx_caps *caps)
{
	assert_null(c->missing);
	/* What sidecore requires is on; what it leaves off is off (docs/vmx.md). */
	assert_true(c->pin & PIN_NMI_EXITING);
	assert_false(c->pin & 1u << 0);		/* external-interrupt exiting */
	assert_false(c->pin & PIN_VIRTUAL_NMIS);
	assert_int_equal(c->proc & (PROC_IO_BITMAPS | PROC_MSR_BITMAPS | PROC_SECONDARY_CONTROLS),
			 PROC_IO_BITMAPS | PROC_MSR_BITMAPS | PROC_SECONDARY_CONTROLS);
	assert_true(c->proc & PROC_MWAIT_EXITING);
	assert_true(c->proc & PROC_RDPMC_EXITING);
	assert_true(c->proc & PROC_MONITOR_EXITING);
	assert_false(c->proc & 1u << 7);	/* HLT exiting */
	assert_false(c->proc & 1u << 3);	/* TSC offsetting */
	assert_false(c->proc & PROC_UNCONDITIONAL_IO_EXITING);
	assert_false(c->proc & (PROC_CR3_LOAD_EXITING | PROC_CR3_STORE_EXITING));
	assert_true(c->proc2 & PROC2_EPT);
	assert_true(c->proc2 & PROC2_VPID);
	assert_true(c->proc2 & PROC2_WBINVD_EXITING);
	assert_false(c->proc2 & PROC2_UNRESTRICTED_GUEST);	/* only for a SIPI start */
	assert_int_equal(c->exit & (EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_PAT | EXIT_LOAD_PAT |
				    EXIT_SAVE_EFER | EXIT_LOAD_EFER),
			 EXIT_HOST_ADDRESS_SPACE_SIZE | EXIT_SAVE_PAT | EXIT_LOAD_PAT |
			 EXIT_SAVE_EFER | EXIT_LOAD_EFER);
	assert_false(c->exit & 1u << 15);	/* acknowledge interrupt on exit */
	assert_int_equal(c->entry & (ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_PAT | ENTRY_LOAD_EFER),
			 ENTRY_IA32E_MODE_GUEST | ENTRY_LOAD_PAT | ENTRY_LOAD_EFER);
	/* Every forced bit is on, and nothing the core does not allow. */
	assert_int_equal(c->pin & (uint32_t)caps->pinbased, (uint32_t)caps->pinbased);
	assert_int_equal(c->proc & (uint32_t)caps->procbased, (uint32_t)caps->procbased);
	assert_int_equal(c->exit & (uint32_t)caps->exit_ctls, (uint32_t)caps->exit_ctls);
	assert_int_equal(c->entry & (uint32_t)caps->entry_ctls, (uint32_t)caps->entry_ctls);
	assert_int_equal(c->proc2 & ~(uint32_t)(caps->procbased2 >> 32), 0);
}

static void test_nehalem(void **state)
{
	struct vmx_caps caps = caps_of(NEHALEM_PROC2);
	struct vmcs_controls c;

	(void)state;
	assert_true(vmcs_controls_compute(&caps, &every_instruction, &c));
	check_common(&c, &caps);
	assert_int_equal(c.pin, PIN_DEFAULT1 | PIN_NMI_EXITING);
	assert_int_equal(c.proc2, NEHALEM_PROC2);	/* no INVPCID, no XSAVES to enable */
}

static void test_haswell(void **state)
{
	struct vmx_caps caps = caps_of(HASWELL_PROC2);
	struct vmcs_controls c;

	(void)state;
	assert_true(vmcs_controls_compute(&caps, &every_instruction, &c));
	check_common(&c, &caps);
	assert_int_equal(c.proc2, NEHALEM_PROC2 | PROC2_INVPCID);
}

/* An instruction the guest's CPUID hides stays disabled even where the core has it. */
static void test_choices(void **state)
{
	struct vmx_caps caps = caps_of(HASWELL_PROC2 | PROC2_XSAVES);
	const struct vmcs_setup_choices none = { 0 }, xsaves = { .xsaves = true };
	struct vmcs_controls c;

	(void)state;
	assert_true(vmcs_controls_compute(&caps, &none, &c));
	assert_int_equal(c.proc2, PROC2_EPT | PROC2_VPID | PROC2_WBINVD_EXITING);
	assert_true(vmcs_controls_compute(&caps, &xsaves, &c));
	assert_int_equal(c.proc2, PROC2_EPT | PROC2_VPID | PROC2_WBINVD_EXITING | PROC2_XSAVES);
}

static void test_missing(void **state)
{
	struct vmx_caps caps = caps_of(NEHALEM_PROC2 & ~PROC2_VPID);
	struct vmcs_controls c;

	(void)state;
	assert_false(vmcs_controls_compute(&caps, &every_instruction, &c));
	assert_string_equal(c.missing, "secondary");
	assert_int_equal(c.missing_bits, PROC2_VPID);

	caps = caps_of(NEHALEM_PROC2);
	caps.exit_ctls &= ~((uint64_t)(EXIT_SAVE_EFER | EXIT_LOAD_PAT) << 32);
	assert_false(vmcs_controls_compute(&caps, &every_instruction, &c));
	assert_string_equal(c.missing, "exit");
	assert_int_equal(c.missing_bits, EXIT_SAVE_EFER | EXIT_LOAD_PAT);

	caps = caps_of(NEHALEM_PROC2);
	caps.pinbased &= ~((uint64_t)PIN_NMI_EXITING << 32);
	assert_false(vmcs_controls_compute(&caps, &every_instruction, &c));
	assert_string_equal(c.missing, "pin-based");
}

static void test_msr_bitmap(void **state)
{
	static const uint32_t pass[] = { 0xc0000080, 0x277 };
	uint8_t bitmap[VMCS_MSR_BITMAP_SIZE];

	(void)state;
	vmcs_msr_bitmap_init(bitmap, pass, 2);
	for (unsigned int w = 0; w < 2; w++) {
		assert_false(vmcs_msr_bitmap_exits(bitmap, 0xc0000080, w));
		assert_false(vmcs_msr_bitmap_exits(bitmap, 0x277, w));
		assert_true(vmcs_msr_bitmap_exits(bitmap, 0xc0000081, w));
		assert_true(vmcs_msr_bitmap_exits(bitmap, 0x276, w));
		assert_true(vmcs_msr_bitmap_exits(bitmap, 0x2000, w));	/* outside: always */
		assert_true(vmcs_msr_bitmap_exits(bitmap, 0xc0002000, w));
	}
	/* The four quarters (§25.6.9): low read, high read, low write, high write. */
	assert_int_equal(bitmap[0x277 / 8], (uint8_t)~(1u << (0x277 % 8)));
	assert_int_equal(bitmap[1024 + 0x80 / 8], (uint8_t)~(1u << 0));
	assert_int_equal(bitmap[2048 + 0x277 / 8], (uint8_t)~(1u << (0x277 % 8)));
	assert_int_equal(bitmap[3072 + 0x80 / 8], (uint8_t)~(1u << 0));

	vmcs_msr_bitmap_set(bitmap, 0x6e0, false, false);
	assert_false(vmcs_msr_bitmap_exits(bitmap, 0x6e0, false));
	assert_true(vmcs_msr_bitmap_exits(bitmap, 0x6e0, true));
	vmcs_msr_bitmap_set(bitmap, 0xc0000080, true, true);
	assert_true(vmcs_msr_bitmap_exits(bitmap, 0xc0000080, true));
	assert_false(vmcs_msr_bitmap_exits(bitmap, 0xc0000080, false));
	vmcs_msr_bitmap_set(bitmap, 0x12345678, false, false);	/* no range: untouched */
	assert_true(vmcs_msr_bitmap_exits(bitmap, 0x12345678, false));
}

static void test_io_bitmap(void **state)
{
	uint8_t bitmap[VMCS_IO_BITMAP_SIZE];

	(void)state;
	memset(bitmap, 0, sizeof(bitmap));
	vmcs_io_bitmap_init(bitmap);
	for (unsigned int i = 0; i < sizeof(bitmap); i++)
		assert_int_equal(bitmap[i], 0xff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nehalem),
		cmocka_unit_test(test_haswell),
		cmocka_unit_test(test_choices),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_msr_bitmap),
		cmocka_unit_test(test_io_bitmap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
