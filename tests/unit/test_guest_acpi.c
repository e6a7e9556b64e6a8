/* SPDX-License-Identifier: MIT */
/*
 * test_guest_acpi.c - the guest's ACPI tables (hv/guest/guest_acpi.c): layout,
 * checksums and contents per ACPI 6.5, and a round trip through the
 * hypervisor's own ACPI parser and topology builder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "config/guest_layout.h"
#include "guest/guest_acpi.h"
#include "platform/acpi.h"
#include "platform/topology.h"

#define BUF_GPA GUEST_ACPI_GPA

static uint8_t buf[GUEST_ACPI_SIZE];
static uint32_t apic_ids[GUEST_ACPI_MAX_VCPUS + 1];
static size_t used;
static uint64_t rsdp_gpa;

static size_t build(unsigned int vcpu_count)
{
	struct guest_acpi_params params = { .vcpu_count = vcpu_count, .apic_ids = apic_ids };

	rsdp_gpa = 0;
	used = guest_acpi_build(buf, sizeof(buf), BUF_GPA, &params, &rsdp_gpa);
	return used;
}

static int setup(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < GUEST_ACPI_MAX_VCPUS + 1; i++)
		apic_ids[i] = i;
	memset(buf, 0xcc, sizeof(buf));
	return 0;
}

static uint8_t byte_sum(const uint8_t *p, size_t n)
{
	uint8_t sum = 0;

	while (n--)
		sum = (uint8_t)(sum + *p++);
	return sum;
}

/* The table at guest-physical gpa, which must lie in what was built. */
static const uint8_t *table_at(uint64_t gpa)
{
	uint32_t length;

	assert_true(gpa >= BUF_GPA && gpa - BUF_GPA + ACPI_HEADER_SIZE <= used);
	length = acpi_read_u32(buf + (gpa - BUF_GPA) + 4);
	assert_true(gpa - BUF_GPA + length <= used);
	assert_int_equal((gpa - BUF_GPA) % 16, 0);
	return buf + (gpa - BUF_GPA);
}

static const uint8_t *xsdt(void)
{
	return table_at(acpi_read_u64(buf + 24));
}

/* The table the XSDT lists with this signature. */
static const uint8_t *find_table(const char signature[4])
{
	const uint8_t *root = xsdt();
	uint32_t offset;

	for (offset = ACPI_HEADER_SIZE; offset < acpi_read_u32(root + 4); offset += 8) {
		const uint8_t *table = table_at(acpi_read_u64(root + offset));

		if (memcmp(table, signature, 4) == 0)
			return table;
	}
	fail_msg("no %.4s in the XSDT", signature);
	return NULL;
}

static const uint8_t *dsdt(void)
{
	return table_at(acpi_read_u64(find_table("FACP") + 140));
}

static void assert_header(const uint8_t *table, const char *signature, uint32_t length,
			  uint8_t revision)
{
	assert_memory_equal(table, signature, 4);
	assert_int_equal(acpi_read_u32(table + 4), length);
	assert_int_equal(table[8], revision);
	assert_memory_equal(table + 10, "SIDECR", 6);
	assert_memory_equal(table + 16, "SIDECORE", 8);
	assert_int_equal(byte_sum(table, length), 0);
}

static void test_rsdp(void **state)
{
	(void)state;
	assert_true(build(1) > 0);
	assert_int_equal(rsdp_gpa, BUF_GPA);
	assert_memory_equal(buf, "RSD PTR ", 8);
	assert_int_equal(byte_sum(buf, 20), 0);		/* ACPI 1.0 checksum */
	assert_int_equal(byte_sum(buf, 36), 0);		/* extended checksum */
	assert_memory_equal(buf + 9, "SIDECR", 6);
	assert_int_equal(buf[15], 2);
	assert_int_equal(acpi_read_u32(buf + 16), 0);	/* no RSDT */
	assert_int_equal(acpi_read_u32(buf + 20), 36);
	assert_memory_equal(xsdt(), "XSDT", 4);
}

static void test_xsdt_lists_fadt_madt_mcfg(void **state)
{
	const uint8_t *root;

	(void)state;
	assert_true(build(1) > 0);
	root = xsdt();
	assert_header(root, "XSDT", 36 + 3 * 8, 1);
	assert_memory_equal(table_at(acpi_read_u64(root + 36)), "FACP", 4);
	assert_memory_equal(table_at(acpi_read_u64(root + 44)), "APIC", 4);
	assert_memory_equal(table_at(acpi_read_u64(root + 52)), "MCFG", 4);
}

static void test_every_checksum(void **state)
{
	static const char *const signatures[] = { "XSDT", "FACP", "APIC", "MCFG", "DSDT" };
	const uint8_t *tables[5];
	unsigned int i;

	(void)state;
	assert_true(build(4) > 0);
	tables[0] = xsdt();
	tables[1] = find_table("FACP");
	tables[2] = find_table("APIC");
	tables[3] = find_table("MCFG");
	tables[4] = dsdt();
	for (i = 0; i < 5; i++) {
		assert_memory_equal(tables[i], signatures[i], 4);
		assert_int_equal(byte_sum(tables[i], acpi_read_u32(tables[i] + 4)), 0);
	}
}

static void assert_io_register(const uint8_t *gas, uint16_t port)
{
	assert_int_equal(gas[0], 1);		/* SystemIO */
	assert_int_equal(gas[1], 8);		/* bit width */
	assert_int_equal(gas[2], 0);		/* bit offset */
	assert_int_equal(gas[3], 1);		/* byte access */
	assert_int_equal(acpi_read_u64(gas + 4), port);
}

static void test_fadt(void **state)
{
	const uint8_t *fadt;

	(void)state;
	assert_true(build(1) > 0);
	fadt = find_table("FACP");
	assert_header(fadt, "FACP", 276, 6);
	assert_int_equal(fadt[131], 5);				/* minor version */
	assert_true(acpi_read_u32(fadt + 112) & (1u << 20));	/* HW_REDUCED_ACPI */
	assert_true(acpi_read_u32(fadt + 112) & (1u << 19));	/* physical destinations */
	assert_int_equal(acpi_read_u32(fadt + 112), 0x00180031);
	assert_int_equal(acpi_read_u16(fadt + 109), 0x24);	/* no VGA, no CMOS RTC */
	assert_int_equal(acpi_read_u32(fadt + 36), 0);		/* no FACS */
	assert_int_equal(acpi_read_u64(fadt + 132), 0);
	assert_int_equal(acpi_read_u32(fadt + 40), 0);		/* only X_DSDT is set */
	assert_int_equal(acpi_read_u16(fadt + 46), 0);		/* no SCI */
	assert_int_equal(acpi_read_u32(fadt + 76), 0);		/* no PM timer */
	assert_io_register(fadt + 244, GUEST_SLEEP_CONTROL_PORT);
	assert_io_register(fadt + 256, GUEST_SLEEP_STATUS_PORT);
	assert_memory_equal(fadt + 268, "SIDECORE", 8);
	assert_memory_equal(dsdt(), "DSDT", 4);
}

static void assert_madt(unsigned int vcpu_count)
{
	const uint8_t *madt;
	unsigned int i;

	assert_true(build(vcpu_count) > 0);
	madt = find_table("APIC");
	assert_header(madt, "APIC", 44 + 8 * vcpu_count, 6);
	assert_int_equal(acpi_read_u32(madt + 36), GUEST_LAPIC_GPA);
	assert_int_equal(acpi_read_u32(madt + 40), 0);	/* PCAT_COMPAT clear */
	for (i = 0; i < vcpu_count; i++) {
		const uint8_t *entry = madt + 44 + 8 * i;

		assert_int_equal(entry[0], 0);		/* Processor Local APIC */
		assert_int_equal(entry[1], 8);
		assert_int_equal(entry[2], i);		/* ACPI processor UID */
		assert_int_equal(entry[3], apic_ids[i]);
		assert_int_equal(acpi_read_u32(entry + 4), 1);	/* enabled */
	}
}

static void test_madt_one_vcpu(void **state)
{
	(void)state;
	assert_madt(1);
}

static void test_madt_four_vcpus(void **state)
{
	(void)state;
	apic_ids[0] = 0;
	apic_ids[1] = 2;
	apic_ids[2] = 4;
	apic_ids[3] = 6;
	assert_madt(4);
}

static void test_mcfg(void **state)
{
	const uint8_t *mcfg;

	(void)state;
	assert_true(build(2) > 0);
	mcfg = find_table("MCFG");
	assert_header(mcfg, "MCFG", 60, 1);
	assert_int_equal(acpi_read_u64(mcfg + 36), 0);		/* reserved */
	assert_int_equal(acpi_read_u64(mcfg + 44), GUEST_ECAM_GPA);
	assert_int_equal(acpi_read_u16(mcfg + 52), 0);		/* segment */
	assert_int_equal(mcfg[54], 0);				/* first bus */
	assert_int_equal(mcfg[55], 0);				/* last bus */
	assert_int_equal(acpi_read_u32(mcfg + 56), 0);
}

static const uint8_t *memmem_bytes(const uint8_t *haystack, size_t length,
				   const uint8_t *needle, size_t needle_length)
{
	size_t i;

	for (i = 0; i + needle_length <= length; i++)
		if (memcmp(haystack + i, needle, needle_length) == 0)
			return haystack + i;
	return NULL;
}

/*
 * The compiled DSDT: a valid header from iasl, the _S5 package with
 * GUEST_SLP_TYP_S5 and the root bridge's EISA ID (AML per ACPI 6.5 chapter
 * 20: NameOp, name, PackageOp, length, element count, BytePrefix value).
 */
static void test_dsdt(void **state)
{
	static const uint8_t pnp0a08[] = { 0x0c, 0x41, 0xd0, 0x0a, 0x08 };
	static const uint8_t s5_name[] = { 0x08, '_', 'S', '5', '_', 0x12 };
	const uint8_t *table, *s5;
	uint32_t length;

	(void)state;
	assert_true(build(1) > 0);
	table = dsdt();
	length = acpi_read_u32(table + 4);
	assert_header(table, "DSDT", length, 2);
	assert_non_null(memmem_bytes(table, length, pnp0a08, sizeof(pnp0a08)));
	s5 = memmem_bytes(table, length, s5_name, sizeof(s5_name));
	assert_non_null(s5);
	s5 += sizeof(s5_name) + 1;			/* one-byte package length */
	assert_int_equal(s5[0], 4);			/* elements */
	assert_int_equal(s5[1], 0x0a);			/* BytePrefix */
	assert_int_equal(s5[2], GUEST_SLP_TYP_S5);
}

static const void *map_buffer(uint64_t phys, uint64_t len, void *ctx)
{
	(void)ctx;
	if (phys < BUF_GPA || phys - BUF_GPA > used || len > used - (phys - BUF_GPA))
		return NULL;
	return buf + (phys - BUF_GPA);
}

/* What the hypervisor's own parser makes of the tables. */
static void test_round_trip_through_topology(void **state)
{
	static struct acpi_tables tables;
	static struct topology topo;
	unsigned int i;

	(void)state;
	apic_ids[0] = 3;
	apic_ids[1] = 1;
	apic_ids[2] = 0;
	assert_true(build(3) > 0);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, buf, 36, map_buffer, NULL), 3);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.lapic_address, GUEST_LAPIC_GPA);
	assert_false(topo.pcat_compat);
	assert_int_equal(topo.cpu_count, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(topo.cpu[i].apic_id, apic_ids[i]);
		assert_int_equal(topo.cpu[i].acpi_uid, i);
	}
	assert_int_equal(topo.mcfg_count, 1);
	assert_int_equal(topo.mcfg[0].base, GUEST_ECAM_GPA);
	assert_int_equal(topo.mcfg[0].segment, 0);
	assert_int_equal(topo.mcfg[0].start_bus, 0);
	assert_int_equal(topo.mcfg[0].end_bus, 0);
}

static void test_rejects_bad_params(void **state)
{
	struct guest_acpi_params params = { .vcpu_count = 1, .apic_ids = apic_ids };
	uint64_t gpa = 0;

	(void)state;
	assert_int_equal(build(0), 0);
	assert_int_equal(build(GUEST_ACPI_MAX_VCPUS + 1), 0);
	apic_ids[1] = 0xff;
	assert_int_equal(build(2), 0);
	apic_ids[1] = 0;
	assert_int_equal(build(2), 0);			/* duplicate APIC ID */
	apic_ids[1] = 1;
	assert_true(build(2) > 0);

	assert_int_equal(guest_acpi_build(buf, sizeof(buf), BUF_GPA, NULL, &gpa), 0);
	assert_int_equal(guest_acpi_build(buf, sizeof(buf), BUF_GPA, &params, NULL), 0);
	assert_int_equal(guest_acpi_build(buf, sizeof(buf), BUF_GPA + 8, &params, &gpa), 0);
	params.apic_ids = NULL;
	assert_int_equal(guest_acpi_build(buf, sizeof(buf), BUF_GPA, &params, &gpa), 0);
	assert_int_equal(gpa, 0);
}

static void test_fits_exactly(void **state)
{
	struct guest_acpi_params params = { .vcpu_count = 2, .apic_ids = apic_ids };
	size_t needed;
	uint64_t gpa = 0;

	(void)state;
	needed = build(2);
	assert_true(needed > 0);
	assert_int_equal(guest_acpi_build(buf, needed - 1, BUF_GPA, &params, &gpa), 0);
	assert_int_equal(guest_acpi_build(buf, needed, BUF_GPA, &params, &gpa), needed);
	assert_int_equal(gpa, BUF_GPA);

	/* The largest guest still fits below the start page directory's page. */
	assert_true(build(GUEST_ACPI_MAX_VCPUS) > 0);
	assert_true(used <= GUEST_START_PD_GPA - GUEST_ACPI_GPA);
	assert_madt(GUEST_ACPI_MAX_VCPUS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_rsdp, setup),
		cmocka_unit_test_setup(test_xsdt_lists_fadt_madt_mcfg, setup),
		cmocka_unit_test_setup(test_every_checksum, setup),
		cmocka_unit_test_setup(test_fadt, setup),
		cmocka_unit_test_setup(test_madt_one_vcpu, setup),
		cmocka_unit_test_setup(test_madt_four_vcpus, setup),
		cmocka_unit_test_setup(test_mcfg, setup),
		cmocka_unit_test_setup(test_dsdt, setup),
		cmocka_unit_test_setup(test_round_trip_through_topology, setup),
		cmocka_unit_test_setup(test_rejects_bad_params, setup),
		cmocka_unit_test_setup(test_fits_exactly, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
