/* SPDX-License-Identifier: MIT */
/*
 * test_acpi.c - table validation and the RSDP -> XSDT/RSDT walk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "platform/acpi.h"
#include "tests/unit/acpi_fixture.h"
#include "tests/unit/support/stderr_capture.h"

/* Shared by the tests below; each test rebuilds what it uses. */
static struct acpi_tables tables;
static struct fixture_table table, root, other;
static struct fixture_memory memory;

static void set_u32(uint8_t *p, uint32_t value)
{
	memcpy(p, &value, sizeof(value));
}

/* The image must be refused with a message naming the table and the reason. */
static void assert_add_refused(const void *image, size_t size, const char *signature,
			       const char *reason)
{
	char log[512];
	bool added;

	stderr_capture_begin();
	added = acpi_tables_add(&tables, image, size);
	stderr_capture_end(log, sizeof(log));
	assert_false(added);
	assert_non_null(strstr(log, signature));
	assert_non_null(strstr(log, reason));
}

static void test_add_accepts_valid_table(void **state)
{
	const uint8_t *image;

	(void)state;
	fixture_madt_start(&table, 0xfee00000, 1);
	fixture_madt_lapic(&table, 0, 0, 1);
	image = fixture_finish(&table);
	acpi_tables_init(&tables);

	assert_true(acpi_tables_add(&tables, image, table.length));
	assert_int_equal(tables.count, 1);
	assert_memory_equal(tables.table[0].signature, "APIC", 4);
	assert_ptr_equal(tables.table[0].data, image);
	assert_int_equal(tables.table[0].length, table.length);
}

static void test_add_accepts_bare_header(void **state)
{
	(void)state;
	fixture_start(&table, "FACP", 1);
	acpi_tables_init(&tables);
	assert_true(acpi_tables_add(&tables, fixture_finish(&table), ACPI_HEADER_SIZE));
}

static void test_add_rejects_bad_checksum(void **state)
{
	(void)state;
	fixture_madt_start(&table, 0xfee00000, 1);
	fixture_finish(&table);
	table.data[40] ^= 1;
	acpi_tables_init(&tables);
	assert_add_refused(table.data, table.length, "APIC", "checksum");
	assert_int_equal(tables.count, 0);

	/* A signature the console cannot show is logged with '?' in its place. */
	fixture_start(&table, "\x01PI\n", 1);
	fixture_finish(&table);
	table.data[9]++;
	assert_add_refused(table.data, table.length, "?PI?", "checksum");
}

static void test_add_rejects_image_shorter_than_header(void **state)
{
	(void)state;
	fixture_start(&table, "SRAT", 3);
	fixture_finish(&table);
	acpi_tables_init(&tables);
	assert_add_refused(table.data, ACPI_HEADER_SIZE - 1, "SRAT", "shorter than a header");
	assert_add_refused(table.data, 0, "????", "shorter than a header");
	assert_int_equal(tables.count, 0);
}

/* Re-checksums the table after forcing its length field. */
static void force_length(struct fixture_table *t, uint32_t length)
{
	set_u32(t->data + ACPI_HEADER_LENGTH_OFFSET, length);
	t->data[9] = 0;
	t->data[9] = fixture_checksum(t->data, t->length, 9);
}

static void test_add_rejects_length_below_header(void **state)
{
	(void)state;
	fixture_mcfg_start(&table);
	fixture_finish(&table);
	force_length(&table, ACPI_HEADER_SIZE - 1);
	acpi_tables_init(&tables);
	assert_add_refused(table.data, table.length, "MCFG", "length 35 out of range");
}

static void test_add_rejects_length_beyond_image(void **state)
{
	(void)state;
	fixture_mcfg_start(&table);
	fixture_mcfg_allocation(&table, 0xe0000000, 0, 0, 255);
	fixture_finish(&table);
	acpi_tables_init(&tables);
	assert_add_refused(table.data, table.length - 1, "MCFG", "exceeds the 59 bytes");
}

static void test_add_rejects_length_beyond_limit(void **state)
{
	(void)state;
	fixture_mcfg_start(&table);
	fixture_finish(&table);
	force_length(&table, ACPI_MAX_TABLE_LENGTH + 1);
	acpi_tables_init(&tables);
	assert_add_refused(table.data, FIXTURE_MAX_LENGTH, "MCFG", "out of range");
	force_length(&table, 0xffffffff);
	assert_add_refused(table.data, FIXTURE_MAX_LENGTH, "MCFG", "out of range");
}

static void test_add_uses_header_length_not_image_size(void **state)
{
	(void)state;
	fixture_start(&table, "SSDT", 2);
	fixture_put_u32(&table, 0x12345678);
	fixture_finish(&table);
	acpi_tables_init(&tables);
	/* Trailing bytes beyond the declared length are not part of the table. */
	assert_true(acpi_tables_add(&tables, table.data, table.length + 100));
	assert_int_equal(tables.table[0].length, ACPI_HEADER_SIZE + 4);
}

static void test_add_stops_when_full(void **state)
{
	unsigned int i;

	(void)state;
	fixture_start(&table, "SSDT", 2);
	fixture_finish(&table);
	acpi_tables_init(&tables);
	for (i = 0; i < ACPI_MAX_TABLES; i++)
		assert_true(acpi_tables_add(&tables, table.data, table.length));
	assert_add_refused(table.data, table.length, "SSDT", "more than 64 tables");
	assert_int_equal(tables.count, ACPI_MAX_TABLES);
}

static void test_find_returns_first_match(void **state)
{
	(void)state;
	fixture_start(&table, "SSDT", 2);
	fixture_finish(&table);
	fixture_start(&other, "SSDT", 2);
	fixture_put_u32(&other, 0);
	fixture_finish(&other);
	acpi_tables_init(&tables);
	assert_true(acpi_tables_add(&tables, table.data, table.length));
	assert_true(acpi_tables_add(&tables, other.data, other.length));

	assert_ptr_equal(acpi_tables_find(&tables, "SSDT")->data, table.data);
	assert_null(acpi_tables_find(&tables, "APIC"));
}

/*
 * Places an MADT and an SRAT in fake memory, plus an RSDT listing the MADT
 * only and an XSDT listing both, so the tests can tell which root was used.
 * Returns the addresses through rsdt and xsdt.
 */
static void place_two_roots(uint64_t base, uint32_t *rsdt, uint64_t *xsdt)
{
	uint64_t entries[2];

	fixture_memory_init(&memory, base);
	fixture_madt_start(&table, 0xfee00000, 1);
	fixture_madt_lapic(&table, 0, 0, 1);
	entries[0] = fixture_memory_place(&memory, fixture_finish(&table), table.length);
	fixture_srat_start(&table, 3);
	fixture_srat_cpu(&table, 0, 0, 1);
	entries[1] = fixture_memory_place(&memory, fixture_finish(&table), table.length);

	fixture_root(&root, "RSDT", entries, 1);
	*rsdt = (uint32_t)fixture_memory_place(&memory, root.data, root.length);
	fixture_root(&root, "XSDT", entries, 2);
	*xsdt = fixture_memory_place(&memory, root.data, root.length);
}

static void test_rsdp_v1_uses_rsdt(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	place_two_roots(0x1000, &rsdt, &xsdt);
	fixture_rsdp(rsdp, 0, rsdt, xsdt);
	acpi_tables_init(&tables);

	/* Revision 0: the XSDT field is not part of the structure, ignore it. */
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, 20, fixture_memory_map, &memory), 1);
	assert_non_null(acpi_tables_find(&tables, "APIC"));
	assert_null(acpi_tables_find(&tables, "SRAT"));
}

static void test_rsdp_v2_prefers_xsdt(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	place_two_roots(0x1000, &rsdt, &xsdt);
	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	acpi_tables_init(&tables);

	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 2);
	assert_non_null(acpi_tables_find(&tables, "APIC"));
	assert_non_null(acpi_tables_find(&tables, "SRAT"));
}

static void test_rsdp_v2_xsdt_above_4g(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	/* Only the 64-bit XSDT can reach tables here; the RSDT is truncated. */
	place_two_roots(0x100000000ull, &rsdt, &xsdt);
	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 2);
}

static void test_rsdp_v2_bad_extended_checksum_falls_back_to_rsdt(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	place_two_roots(0x1000, &rsdt, &xsdt);
	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	rsdp[32]++;
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 1);
	assert_null(acpi_tables_find(&tables, "SRAT"));
}

static void test_rsdp_v2_bad_length_falls_back_to_rsdt(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	place_two_roots(0x1000, &rsdt, &xsdt);
	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	set_u32(rsdp + 20, 4096);	/* longer than the copy we hold */
	rsdp[8] = fixture_checksum(rsdp, 20, 8);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 1);

	/* A revision 2 RSDP truncated to the v1 size: same fallback. */
	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, 20,
					       fixture_memory_map, &memory), 1);
}

static void test_rsdp_v2_broken_xsdt_falls_back_to_rsdt(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	place_two_roots(0x1000, &rsdt, &xsdt);
	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	memory.bytes[xsdt - memory.base + 40] ^= 0x80;	/* checksum now wrong */
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 1);
	assert_null(acpi_tables_find(&tables, "SRAT"));

	/* An address that cannot be mapped. */
	fixture_rsdp(rsdp, 2, rsdt, 0xdead0000);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 1);

	/* A null XSDT address. */
	fixture_rsdp(rsdp, 2, rsdt, 0);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 1);

	/* The XSDT pointer leads to a valid table that is not an XSDT. */
	fixture_rsdp(rsdp, 2, rsdt, rsdt);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 1);
}

static void test_rsdp_rejects_bad_rsdp(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	place_two_roots(0x1000, &rsdt, &xsdt);
	acpi_tables_init(&tables);

	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	rsdp[0] = 'X';
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), -1);

	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	rsdp[8]++;
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), -1);

	fixture_rsdp(rsdp, 0, rsdt, 0);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, 19,
					       fixture_memory_map, &memory), -1);
	assert_int_equal(acpi_tables_from_rsdp(&tables, NULL, 0,
					       fixture_memory_map, &memory), -1);
	assert_int_equal(tables.count, 0);
}

static void test_rsdp_without_usable_root_fails(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint32_t rsdt;
	uint64_t xsdt;

	(void)state;
	place_two_roots(0x1000, &rsdt, &xsdt);
	memory.bytes[rsdt - memory.base + 9]++;		/* RSDT checksum */
	memory.bytes[xsdt - memory.base + 9]++;		/* XSDT checksum */
	fixture_rsdp(rsdp, 2, rsdt, xsdt);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), -1);

	fixture_rsdp(rsdp, 0, 0, 0);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), -1);
}

static void test_rsdp_skips_bad_entries(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint64_t entries[6], xsdt;

	(void)state;
	fixture_memory_init(&memory, 0x1000);
	fixture_madt_start(&table, 0xfee00000, 1);
	fixture_madt_lapic(&table, 0, 0, 1);
	entries[0] = fixture_memory_place(&memory, fixture_finish(&table), table.length);
	entries[1] = 0;					/* null pointer */
	entries[2] = 0xffffffffffff0000ull;		/* unmappable */
	fixture_start(&table, "BAD1", 1);
	fixture_finish(&table);
	table.data[9]++;				/* bad checksum */
	entries[3] = fixture_memory_place(&memory, table.data, table.length);
	fixture_start(&table, "BAD2", 1);
	fixture_finish(&table);
	set_u32(table.data + ACPI_HEADER_LENGTH_OFFSET, 0xfffffff0);	/* wild length */
	entries[4] = fixture_memory_place(&memory, table.data, table.length);
	fixture_mcfg_start(&table);
	fixture_mcfg_allocation(&table, 0xe0000000, 0, 0, 255);
	entries[5] = fixture_memory_place(&memory, fixture_finish(&table), table.length);
	fixture_root(&root, "XSDT", entries, 6);
	xsdt = fixture_memory_place(&memory, root.data, root.length);
	fixture_rsdp(rsdp, 2, 0, xsdt);
	acpi_tables_init(&tables);

	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), 2);
	assert_non_null(acpi_tables_find(&tables, "APIC"));
	assert_non_null(acpi_tables_find(&tables, "MCFG"));
	assert_true(memory.largest_map <= ACPI_MAX_TABLE_LENGTH);
}

static void test_rsdp_rsdt_ignores_partial_entry(void **state)
{
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	uint64_t entry;
	uint32_t rsdt;

	(void)state;
	fixture_memory_init(&memory, 0x1000);
	fixture_madt_start(&table, 0xfee00000, 1);
	fixture_madt_lapic(&table, 0, 0, 1);
	entry = fixture_memory_place(&memory, fixture_finish(&table), table.length);
	fixture_start(&root, "RSDT", 1);
	fixture_put_u32(&root, (uint32_t)entry);
	fixture_put_u16(&root, 0x1234);		/* half an entry */
	fixture_finish(&root);
	rsdt = (uint32_t)fixture_memory_place(&memory, root.data, root.length);
	fixture_rsdp(rsdp, 0, rsdt, 0);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, 20, fixture_memory_map, &memory), 1);
}

static void test_rsdp_stops_when_full(void **state)
{
	uint64_t entries[ACPI_MAX_TABLES + 3], xsdt, ssdt;
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	unsigned int i;

	(void)state;
	fixture_memory_init(&memory, 0x1000);
	fixture_start(&table, "SSDT", 2);
	ssdt = fixture_memory_place(&memory, fixture_finish(&table), table.length);
	for (i = 0; i < ACPI_MAX_TABLES + 3; i++)
		entries[i] = ssdt;
	fixture_root(&root, "XSDT", entries, ACPI_MAX_TABLES + 3);
	xsdt = fixture_memory_place(&memory, root.data, root.length);
	fixture_rsdp(rsdp, 2, 0, xsdt);
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &memory), ACPI_MAX_TABLES);
}

int main(void)
{
	static const struct CMUnitTest add_tests[] = {
		cmocka_unit_test(test_add_accepts_valid_table),
		cmocka_unit_test(test_add_accepts_bare_header),
		cmocka_unit_test(test_add_rejects_bad_checksum),
		cmocka_unit_test(test_add_rejects_image_shorter_than_header),
		cmocka_unit_test(test_add_rejects_length_below_header),
		cmocka_unit_test(test_add_rejects_length_beyond_image),
		cmocka_unit_test(test_add_rejects_length_beyond_limit),
		cmocka_unit_test(test_add_uses_header_length_not_image_size),
		cmocka_unit_test(test_add_stops_when_full),
		cmocka_unit_test(test_find_returns_first_match),
	};
	static const struct CMUnitTest rsdp_tests[] = {
		cmocka_unit_test(test_rsdp_v1_uses_rsdt),
		cmocka_unit_test(test_rsdp_v2_prefers_xsdt),
		cmocka_unit_test(test_rsdp_v2_xsdt_above_4g),
		cmocka_unit_test(test_rsdp_v2_bad_extended_checksum_falls_back_to_rsdt),
		cmocka_unit_test(test_rsdp_v2_bad_length_falls_back_to_rsdt),
		cmocka_unit_test(test_rsdp_v2_broken_xsdt_falls_back_to_rsdt),
		cmocka_unit_test(test_rsdp_rejects_bad_rsdp),
		cmocka_unit_test(test_rsdp_without_usable_root_fails),
		cmocka_unit_test(test_rsdp_skips_bad_entries),
		cmocka_unit_test(test_rsdp_rsdt_ignores_partial_entry),
		cmocka_unit_test(test_rsdp_stops_when_full),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("acpi_tables_add", add_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("acpi_tables_from_rsdp", rsdp_tests, NULL, NULL);
	return failed ? 1 : 0;
}
