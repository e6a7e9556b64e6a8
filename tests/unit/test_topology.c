/* SPDX-License-Identifier: MIT */
/*
 * test_topology.c - MADT, SRAT, SLIT and MCFG interpretation, on hand-built
 * tables and on the real machines in tests/data/acpi.
 *
 * The machine tables are read from $SIDECORE_ACPI_DATA, by default
 * tests/data/acpi relative to the working directory (the repository root,
 * where `make check` runs the tests).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/topology.h"
#include "tests/unit/acpi_fixture.h"
#include "tests/unit/expected_machines.h"
#include "tests/unit/support/stderr_capture.h"

static struct acpi_tables tables;
static struct topology topo;
static struct fixture_table madt, srat, slit, mcfg;
static char log_text[4096];

static void add_table(struct fixture_table *t)
{
	assert_true(acpi_tables_add(&tables, fixture_finish(t), t->length));
}

/* topology_build() with its log captured into log_text. */
static int build_logged(void)
{
	int status;

	stderr_capture_begin();
	status = topology_build(&topo, &tables);
	stderr_capture_end(log_text, sizeof(log_text));
	return status;
}

/* An MADT with CPUs at APIC IDs 0, 2 (both enabled), 4 (disabled), 1. */
static void add_small_madt(void)
{
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_madt_lapic(&madt, 1, 2, 1);
	fixture_madt_lapic(&madt, 2, 4, 0);
	fixture_madt_lapic(&madt, 3, 1, 1);
	add_table(&madt);
}

static int reset(void **state)
{
	(void)state;
	acpi_tables_init(&tables);
	memset(&topo, 0xa5, sizeof(topo));	/* topology_build() must clear it */
	return 0;
}

/* --- MADT ---------------------------------------------------------------- */

static void test_madt_missing_fails(void **state)
{
	(void)state;
	assert_int_equal(build_logged(), -1);
	assert_non_null(strstr(log_text, "no MADT"));
}

static void test_madt_cpus_in_table_order(void **state)
{
	(void)state;
	add_small_madt();
	assert_int_equal(topology_build(&topo, &tables), 0);

	assert_int_equal(topo.cpu_count, 3);
	assert_int_equal(topo.cpu[0].apic_id, 0);
	assert_int_equal(topo.cpu[1].apic_id, 2);
	assert_int_equal(topo.cpu[2].apic_id, 1);
	assert_int_equal(topo.cpu[2].acpi_uid, 3);
	assert_false(topo.cpu[2].x2apic_entry);
	assert_int_equal(topo.lapic_address, 0xfee00000);
	assert_true(topo.pcat_compat);
	assert_int_equal(topology_cpu_of_apic_id(&topo, 1), 2);
	assert_int_equal(topology_cpu_of_apic_id(&topo, 4), -1);
}

static void test_madt_x2apic_entries(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 0);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_madt_x2apic(&madt, 300, 0x100, 1);
	fixture_madt_x2apic(&madt, 301, 0x101, 0);	/* disabled */
	fixture_madt_x2apic(&madt, 302, 0x102, 2);	/* online capable only */
	fixture_madt_x2apic(&madt, 303, 0xabcdef01, 3);
	add_table(&madt);
	assert_int_equal(topology_build(&topo, &tables), 0);

	assert_false(topo.pcat_compat);
	assert_int_equal(topo.cpu_count, 3);
	assert_int_equal(topo.cpu[1].apic_id, 0x100);
	assert_int_equal(topo.cpu[1].acpi_uid, 300);
	assert_true(topo.cpu[1].x2apic_entry);
	assert_int_equal(topo.cpu[2].apic_id, 0xabcdef01);
	assert_int_equal(topo.cpu[2].acpi_uid, 303);
}

static void test_madt_duplicate_apic_id_ignored(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_madt_lapic(&madt, 1, 1, 1);
	fixture_madt_x2apic(&madt, 1, 1, 1);
	add_table(&madt);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.cpu_count, 2);
	assert_false(topo.cpu[1].x2apic_entry);
	assert_non_null(strstr(log_text, "twice"));
}

static void test_madt_lapic_address_override(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic_override(&madt, 0x1234fee00000ull);
	fixture_madt_lapic(&madt, 0, 0, 1);
	add_table(&madt);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.lapic_address, 0x1234fee00000ull);
}

static void test_madt_ioapics_and_overrides(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_madt_ioapic(&madt, 8, 0xfec00000, 0);
	fixture_madt_ioapic(&madt, 9, 0xfec01000, 24);
	fixture_madt_irq_override(&madt, 0, 0, 2, 0);
	fixture_madt_irq_override(&madt, 0, 9, 9, 0xd);	/* level, active high */
	fixture_madt_irq_override(&madt, 1, 4, 30, 0);	/* not ISA: ignored */
	add_table(&madt);
	assert_int_equal(build_logged(), 0);

	assert_int_equal(topo.ioapic_count, 2);
	assert_int_equal(topo.ioapic[0].id, 8);
	assert_int_equal(topo.ioapic[0].address, 0xfec00000);
	assert_int_equal(topo.ioapic[1].gsi_base, 24);
	assert_int_equal(topo.isa_irq[0].gsi, 2);
	assert_int_equal(topo.isa_irq[4].gsi, 4);
	assert_int_equal(topo.isa_irq[4].flags, 0);
	assert_int_equal(topo.isa_irq[9].flags, 0xd);
	assert_int_equal(topo.isa_irq[15].gsi, 15);
	assert_non_null(strstr(log_text, "bus 1 IRQ 4"));
}

static void test_madt_too_many_cpus(void **state)
{
	unsigned int i;

	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	for (i = 0; i < TOPO_MAX_CPUS + 10; i++)
		fixture_madt_x2apic(&madt, i, i, 1);
	add_table(&madt);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.cpu_count, TOPO_MAX_CPUS);
	assert_int_equal(topo.cpu[TOPO_MAX_CPUS - 1].apic_id, TOPO_MAX_CPUS - 1);
	assert_non_null(strstr(log_text, "10 enabled CPUs beyond"));
}

static void test_madt_without_enabled_cpu_fails(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 0);
	add_table(&madt);
	assert_int_equal(build_logged(), -1);
	assert_non_null(strstr(log_text, "no enabled CPU"));
}

static void test_madt_too_short_fails(void **state)
{
	(void)state;
	fixture_start(&madt, "APIC", 4);
	fixture_put_u32(&madt, 0xfee00000);
	add_table(&madt);
	assert_int_equal(build_logged(), -1);
	assert_non_null(strstr(log_text, "too short"));
}

/* An MADT with one good CPU followed by raw bytes must be refused. */
static void assert_madt_tail_refused(const uint8_t *tail, size_t n)
{
	reset(NULL);
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_put(&madt, tail, n);
	add_table(&madt);
	assert_int_equal(build_logged(), -1);
	assert_non_null(strstr(log_text, "MADT"));
}

static void test_madt_malformed_subtables(void **state)
{
	static const uint8_t zero_length[] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t length_one[] = { 0, 1, 0, 0, 0, 0, 0, 0 };
	static const uint8_t past_end[] = { 0, 9, 1, 1, 1, 0, 0, 0 };
	static const uint8_t short_lapic[] = { 0, 6, 1, 1, 1, 0 };
	static const uint8_t short_x2apic[] = { 9, 12, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0 };
	static const uint8_t short_override[] = { 5, 8, 0, 0, 0, 0, 0xe0, 0xfe };
	static const uint8_t stray_byte[] = { 0 };

	(void)state;
	assert_madt_tail_refused(zero_length, sizeof(zero_length));
	assert_madt_tail_refused(length_one, sizeof(length_one));
	assert_madt_tail_refused(past_end, sizeof(past_end));
	assert_madt_tail_refused(short_lapic, sizeof(short_lapic));
	assert_madt_tail_refused(short_x2apic, sizeof(short_x2apic));
	assert_madt_tail_refused(short_override, sizeof(short_override));
	assert_madt_tail_refused(stray_byte, sizeof(stray_byte));
}

static void test_madt_unknown_and_longer_subtables_accepted(void **state)
{
	/* An I/O APIC (type 1), a future type, and a local APIC with extra bytes. */
	static const uint8_t tail[] = {
		1, 12, 8, 0, 0x00, 0x00, 0xc0, 0xfe, 0, 0, 0, 0,
		0x7f, 2,
		0, 10, 7, 7, 1, 0, 0, 0, 0xaa, 0xbb,
	};

	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_put(&madt, tail, sizeof(tail));
	add_table(&madt);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.cpu_count, 2);
	assert_int_equal(topo.cpu[1].apic_id, 7);
}

/* --- SRAT ---------------------------------------------------------------- */

static void test_no_srat_single_node(void **state)
{
	unsigned int i;

	(void)state;
	add_small_madt();
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_false(topo.has_srat);
	assert_int_equal(topo.node_count, 1);
	assert_int_equal(topo.node[0].domain, 0);
	assert_int_equal(topo.node[0].cpu_count, 3);
	assert_int_equal(topo.node[0].mem_bytes, 0);
	assert_int_equal(topo.mem_count, 0);
	for (i = 0; i < topo.cpu_count; i++)
		assert_int_equal(topo.cpu[i].node, 0);
	assert_int_equal(topology_node_of_address(&topo, 0), -1);
	assert_int_equal(topo.slit_localities, 0);
	assert_int_equal(topo.mcfg_count, 0);
}

static void test_srat_two_nodes(void **state)
{
	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	fixture_srat_cpu(&srat, 1, 2, 1);
	fixture_srat_cpu(&srat, 0, 0, 1);
	fixture_srat_cpu(&srat, 0, 1, 1);
	fixture_srat_memory(&srat, 0, 0, 0xa0000, 1);
	fixture_srat_memory(&srat, 1, 0x100000000ull, 0x40000000, 1 | 2);
	fixture_srat_memory(&srat, 0, 0x100000, 0x7ff00000, 1 | 4);
	add_table(&srat);
	assert_int_equal(topology_build(&topo, &tables), 0);

	assert_true(topo.has_srat);
	assert_int_equal(topo.node_count, 2);
	assert_int_equal(topo.node[0].domain, 0);
	assert_int_equal(topo.node[1].domain, 1);
	assert_int_equal(topo.cpu[0].node, 0);
	assert_int_equal(topo.cpu[1].node, 1);
	assert_int_equal(topo.cpu[2].node, 0);
	assert_int_equal(topo.node[0].cpu_count, 2);
	assert_int_equal(topo.node[1].cpu_count, 1);
	assert_int_equal(topo.node[0].mem_bytes, 0xa0000 + 0x7ff00000);
	assert_int_equal(topo.node[1].mem_bytes, 0x40000000);

	assert_int_equal(topo.mem_count, 3);
	assert_int_equal(topo.mem[1].base, 0x100000000ull);
	assert_int_equal(topo.mem[1].node, 1);
	assert_true(topo.mem[1].hot_pluggable);
	assert_false(topo.mem[1].non_volatile);
	assert_false(topo.mem[2].hot_pluggable);
	assert_true(topo.mem[2].non_volatile);

	assert_int_equal(topology_node_of_address(&topo, 0x9ffff), 0);
	assert_int_equal(topology_node_of_address(&topo, 0xa0000), -1);
	assert_int_equal(topology_node_of_address(&topo, 0x100000000ull), 1);
	assert_int_equal(topology_node_of_address(&topo, 0x13fffffffull), 1);
	assert_int_equal(topology_node_of_address(&topo, 0x140000000ull), -1);
}

static void test_srat_placeholders_ignored(void **state)
{
	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 1);
	fixture_srat_cpu(&srat, 0, 0, 1);
	fixture_srat_cpu(&srat, 0, 2, 1);
	fixture_srat_cpu(&srat, 0, 1, 1);
	/* AMI-style padding: disabled CPUs and memory naming domains 1..3. */
	fixture_srat_cpu(&srat, 1, 0xff, 0);
	fixture_srat_cpu(&srat, 2, 0xff, 0);
	fixture_srat_memory(&srat, 3, 0, 0, 0);
	fixture_srat_memory(&srat, 2, 0x200000000ull, 0x1000, 0);
	/* Enabled but empty memory, and an enabled CPU the MADT disables. */
	fixture_srat_memory(&srat, 5, 0x300000000ull, 0, 1);
	fixture_srat_cpu(&srat, 6, 4, 1);
	fixture_srat_memory(&srat, 0, 0, 0x80000000, 1);
	add_table(&srat);
	assert_int_equal(topology_build(&topo, &tables), 0);

	assert_true(topo.has_srat);
	assert_int_equal(topo.node_count, 1);
	assert_int_equal(topo.node[0].domain, 0);
	assert_int_equal(topo.node[0].cpu_count, 3);
	assert_int_equal(topo.mem_count, 1);
}

static void test_srat_domains_sorted(void **state)
{
	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	fixture_srat_cpu(&srat, 7, 0, 1);
	fixture_srat_cpu(&srat, 3, 2, 1);
	fixture_srat_cpu(&srat, 7, 1, 1);
	fixture_srat_memory(&srat, 5, 0, 0x1000, 1);	/* memory-only node */
	add_table(&srat);
	assert_int_equal(topology_build(&topo, &tables), 0);

	assert_int_equal(topo.node_count, 3);
	assert_int_equal(topo.node[0].domain, 3);
	assert_int_equal(topo.node[1].domain, 5);
	assert_int_equal(topo.node[2].domain, 7);
	assert_int_equal(topo.cpu[0].node, 2);
	assert_int_equal(topo.cpu[1].node, 0);
	assert_int_equal(topo.node[1].cpu_count, 0);
	assert_int_equal(topo.node[1].mem_bytes, 0x1000);
	assert_int_equal(topology_node_of_address(&topo, 0), 1);
}

static void test_srat_x2apic_affinity(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_madt_x2apic(&madt, 1, 0x200, 1);
	add_table(&madt);
	fixture_srat_start(&srat, 3);
	fixture_srat_cpu(&srat, 0, 0, 1);
	fixture_srat_x2apic(&srat, 0x10000, 0x200, 1);
	fixture_srat_x2apic(&srat, 0x20000, 0x300, 1);	/* not in the MADT */
	add_table(&srat);
	assert_int_equal(topology_build(&topo, &tables), 0);

	assert_int_equal(topo.node_count, 2);
	assert_int_equal(topo.node[1].domain, 0x10000);
	assert_int_equal(topo.cpu[1].node, 1);
}

static void test_srat_wide_domain_needs_revision_2(void **state)
{
	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 2);
	fixture_srat_cpu(&srat, 0x00000100, 0, 1);
	fixture_srat_cpu(&srat, 0x00000100, 1, 1);
	fixture_srat_cpu(&srat, 0x01000000, 2, 1);
	add_table(&srat);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.node_count, 2);
	assert_int_equal(topo.node[0].domain, 0x100);
	assert_int_equal(topo.node[1].domain, 0x1000000);

	/* Revision 1: the high bytes are reserved, every domain here is 0. */
	reset(NULL);
	add_small_madt();
	fixture_srat_start(&srat, 1);
	fixture_srat_cpu(&srat, 0x00000100, 0, 1);
	fixture_srat_cpu(&srat, 0x00000100, 1, 1);
	fixture_srat_cpu(&srat, 0x01000000, 2, 1);
	add_table(&srat);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.node_count, 1);
	assert_int_equal(topo.node[0].domain, 0);
}

static void test_srat_cpu_missing_goes_to_node_0(void **state)
{
	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	fixture_srat_cpu(&srat, 4, 0, 1);
	fixture_srat_cpu(&srat, 9, 2, 1);
	add_table(&srat);
	assert_int_equal(build_logged(), 0);

	assert_int_equal(topo.node_count, 2);
	assert_int_equal(topo.cpu[2].node, 0);
	assert_int_equal(topo.node[0].cpu_count, 2);
	assert_non_null(strstr(log_text, "CPU 2 (APIC ID 0x1) is not in the SRAT"));
}

/* The SRAT is unusable: one node with every CPU, no memory ranges. */
static void assert_srat_ignored(void)
{
	unsigned int i;

	assert_int_equal(build_logged(), 0);
	assert_non_null(strstr(log_text, "SRAT"));
	assert_false(topo.has_srat);
	assert_int_equal(topo.node_count, 1);
	assert_int_equal(topo.node[0].domain, 0);
	assert_int_equal(topo.node[0].cpu_count, topo.cpu_count);
	assert_int_equal(topo.mem_count, 0);
	for (i = 0; i < topo.cpu_count; i++)
		assert_int_equal(topo.cpu[i].node, 0);
}

static void test_srat_malformed_ignored(void **state)
{
	static const uint8_t short_memory[] = { 1, 24, 1, 0, 0, 0 };

	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	fixture_srat_cpu(&srat, 1, 2, 1);
	fixture_put(&srat, short_memory, sizeof(short_memory));
	fixture_put(&srat, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 18);
	add_table(&srat);
	assert_srat_ignored();

	reset(NULL);
	add_small_madt();
	fixture_start(&srat, "SRAT", 3);
	fixture_put_u32(&srat, 1);
	add_table(&srat);
	assert_srat_ignored();

	reset(NULL);
	add_small_madt();
	fixture_srat_start(&srat, 3);
	fixture_srat_cpu(&srat, 1, 2, 1);
	fixture_put_u8(&srat, 0);
	add_table(&srat);
	assert_srat_ignored();
}

static void test_srat_without_real_domain_ignored(void **state)
{
	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	fixture_srat_cpu(&srat, 1, 0xff, 0);
	fixture_srat_memory(&srat, 1, 0, 0, 0);
	add_table(&srat);
	assert_srat_ignored();
}

static void test_srat_too_many_domains_ignored(void **state)
{
	unsigned int i;

	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	for (i = 0; i <= TOPO_MAX_NODES; i++)
		fixture_srat_memory(&srat, i, (uint64_t)i << 32, 0x1000, 1);
	add_table(&srat);
	assert_srat_ignored();
}

static void test_srat_wrapping_memory_ignored(void **state)
{
	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	fixture_srat_memory(&srat, 0, 0, 0x1000, 1);
	fixture_srat_memory(&srat, 1, 0xfffffffffffff000ull, 0x2000, 1);
	add_table(&srat);
	assert_int_equal(build_logged(), 0);
	assert_non_null(strstr(log_text, "wraps"));
	assert_int_equal(topo.node_count, 1);
	assert_int_equal(topo.mem_count, 1);
}

static void test_srat_too_many_ranges(void **state)
{
	unsigned int i;

	(void)state;
	add_small_madt();
	fixture_srat_start(&srat, 3);
	for (i = 0; i < TOPO_MAX_MEM_RANGES + 2; i++)
		fixture_srat_memory(&srat, 0, (uint64_t)i << 30, 1u << 30, 1);
	add_table(&srat);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.mem_count, TOPO_MAX_MEM_RANGES);
	assert_non_null(strstr(log_text, "2 memory ranges beyond"));
	assert_int_equal(topology_node_of_address(&topo, (uint64_t)TOPO_MAX_MEM_RANGES << 30), -1);
}

/* --- SLIT ---------------------------------------------------------------- */

static void test_slit_matrix(void **state)
{
	static const uint8_t matrix[] = { 10, 21, 31, 21, 10, 255, 31, 255, 10 };

	(void)state;
	add_small_madt();
	fixture_slit(&slit, 3, matrix, sizeof(matrix));
	add_table(&slit);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.slit_localities, 3);
	assert_int_equal(topo.slit[0][1], 21);
	assert_int_equal(topo.slit[2][0], 31);
	assert_int_equal(topo.slit[1][2], 255);
	assert_int_equal(topo.slit[2][2], 10);
}

static void assert_slit_ignored(uint64_t n, const uint8_t *matrix, size_t bytes)
{
	reset(NULL);
	add_small_madt();
	fixture_slit(&slit, n, matrix, bytes);
	add_table(&slit);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.slit_localities, 0);
	assert_non_null(strstr(log_text, "SLIT"));
}

static void test_slit_malformed_ignored(void **state)
{
	static const uint8_t good[] = { 10, 21, 21, 10, 10 };
	static const uint8_t bad_diagonal[] = { 10, 21, 21, 11 };
	static const uint8_t reserved_distance[] = { 10, 9, 21, 10 };
	static uint8_t large[TOPO_MAX_LOCALITIES + 1][TOPO_MAX_LOCALITIES + 1];

	(void)state;
	assert_slit_ignored(2, good, 3);			/* short */
	assert_slit_ignored(2, good, 5);			/* long */
	assert_slit_ignored(1, good, 4);			/* N disagrees */
	assert_slit_ignored(0x100000001ull, good, 4);		/* N*N overflows */
	assert_slit_ignored(2, bad_diagonal, 4);
	assert_slit_ignored(2, reserved_distance, 4);
	memset(large, 20, sizeof(large));
	assert_slit_ignored(TOPO_MAX_LOCALITIES + 1, &large[0][0], sizeof(large));

	reset(NULL);
	add_small_madt();
	fixture_start(&slit, "SLIT", 1);
	fixture_put_u32(&slit, 0);
	add_table(&slit);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.slit_localities, 0);
	assert_non_null(strstr(log_text, "too short"));
}

/* --- MCFG ---------------------------------------------------------------- */

static void test_mcfg_allocations(void **state)
{
	(void)state;
	add_small_madt();
	fixture_mcfg_start(&mcfg);
	fixture_mcfg_allocation(&mcfg, 0xe0000000, 0, 0, 63);
	fixture_mcfg_allocation(&mcfg, 0x3ff00000000ull, 1, 0x80, 0xff);
	add_table(&mcfg);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.mcfg_count, 2);
	assert_int_equal(topo.mcfg[0].base, 0xe0000000);
	assert_int_equal(topo.mcfg[0].end_bus, 63);
	assert_int_equal(topo.mcfg[1].base, 0x3ff00000000ull);
	assert_int_equal(topo.mcfg[1].segment, 1);
	assert_int_equal(topo.mcfg[1].start_bus, 0x80);
	assert_int_equal(topo.mcfg[1].end_bus, 0xff);
}

static void test_mcfg_malformed(void **state)
{
	unsigned int i;

	(void)state;
	add_small_madt();
	fixture_mcfg_start(&mcfg);
	fixture_mcfg_allocation(&mcfg, 0xe0000000, 0, 0, 63);
	fixture_put_u8(&mcfg, 0);
	add_table(&mcfg);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.mcfg_count, 0);
	assert_non_null(strstr(log_text, "MCFG"));

	reset(NULL);
	add_small_madt();
	fixture_mcfg_start(&mcfg);
	fixture_mcfg_allocation(&mcfg, 0xe0000000, 0, 10, 9);
	fixture_mcfg_allocation(&mcfg, 0xf0000000, 0, 0, 0);
	add_table(&mcfg);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.mcfg_count, 1);
	assert_int_equal(topo.mcfg[0].base, 0xf0000000);

	reset(NULL);
	add_small_madt();
	fixture_mcfg_start(&mcfg);
	for (i = 0; i < TOPO_MAX_MCFG + 1; i++)
		fixture_mcfg_allocation(&mcfg, 0xe0000000, (uint16_t)i, 0, 255);
	add_table(&mcfg);
	assert_int_equal(build_logged(), 0);
	assert_int_equal(topo.mcfg_count, TOPO_MAX_MCFG);
	assert_non_null(strstr(log_text, "more than 16"));
}

/* --- SMT ------------------------------------------------------------------ */

/* add_small_madt() enables APIC IDs 0, 2 and 1: 0 and 1 are one core's threads. */
static void test_smt_inferred_from_a_pair(void **state)
{
	(void)state;
	add_small_madt();
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.smt_bits, 1);
	assert_int_equal(topology_core_id(&topo, 0), topology_core_id(&topo, 2));
	assert_int_not_equal(topology_core_id(&topo, 0), topology_core_id(&topo, 1));
}

/* Even IDs alone (HT off, or single-thread cores that skip bit 0): no SMT. */
static void test_smt_not_inferred_without_a_pair(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	fixture_madt_lapic(&madt, 0, 0, 1);
	fixture_madt_lapic(&madt, 1, 2, 1);
	fixture_madt_lapic(&madt, 2, 3, 0);	/* disabled: not listed for placement */
	fixture_madt_lapic(&madt, 3, 4, 1);
	add_table(&madt);
	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.smt_bits, 0);
	for (unsigned int c = 0; c < topo.cpu_count; c++)
		assert_int_equal(topology_core_id(&topo, c), topo.cpu[c].apic_id);
}

/* A wider SMT field (set from CPUID) groups four threads per core. */
static void test_smt_core_id_with_wider_field(void **state)
{
	(void)state;
	fixture_madt_start(&madt, 0xfee00000, 1);
	for (uint8_t id = 0; id < 8; id++)
		fixture_madt_lapic(&madt, id, id, 1);
	add_table(&madt);
	assert_int_equal(topology_build(&topo, &tables), 0);
	topo.smt_bits = 2;
	for (unsigned int c = 0; c < 8; c++)
		assert_int_equal(topology_core_id(&topo, c), c / 4);
}

#define LEAFB_SMT (1u << 8)
#define LEAFB_CORE (2u << 8)
#define LEAF1_HTT (1u << 28)

static void test_smt_bits_of_cpuid(void **state)
{
	/* Haswell-EP with HT: leaf 0BH level 0 is SMT, 1 bit, 2 threads. */
	struct topo_cpuid haswell = { .max_leaf = 0xf, .leafb_eax = 1, .leafb_ebx = 2,
				      .leafb_ecx = LEAFB_SMT };
	/* The same part with HT off in the BIOS: still SMT, one thread, width 1. */
	struct topo_cpuid ht_off = { .max_leaf = 0xf, .leafb_eax = 1, .leafb_ebx = 1,
				     .leafb_ecx = LEAFB_SMT };
	/* QEMU -smp threads=1: SMT level of width 0. */
	struct topo_cpuid qemu = { .max_leaf = 0xd, .leafb_eax = 0, .leafb_ebx = 1,
				   .leafb_ecx = LEAFB_SMT };
	/* Bochs with plain processors: the first level is not SMT (type 0). */
	struct topo_cpuid bochs = { .max_leaf = 0xd, .leafb_eax = 2, .leafb_ebx = 3 };
	/* First level is the core level: no SMT. */
	struct topo_cpuid cores = { .max_leaf = 0xb, .leafb_eax = 3, .leafb_ebx = 8,
				    .leafb_ecx = LEAFB_CORE };
	/* No leaf 0BH: 16 logical IDs over 8 core IDs per package (leaves 01H, 04H). */
	struct topo_cpuid legacy = { .max_leaf = 0xa, .leaf1_ebx = 16u << 16,
				     .leaf1_edx = LEAF1_HTT, .leaf4_eax = 7u << 26 };
	/* Leaf 0BH listed but empty (EBX 0): the legacy leaves decide. */
	struct topo_cpuid empty = { .max_leaf = 0xb, .leaf1_ebx = 4u << 16,
				    .leaf1_edx = LEAF1_HTT, .leaf4_eax = 3u << 26 };
	struct topo_cpuid no_htt = { .max_leaf = 0xa, .leaf1_ebx = 16u << 16,
				     .leaf4_eax = 7u << 26 };

	(void)state;
	assert_int_equal(topology_smt_bits_of_cpuid(&haswell), 1);
	assert_int_equal(topology_smt_bits_of_cpuid(&ht_off), 1);
	assert_int_equal(topology_smt_bits_of_cpuid(&qemu), 0);
	assert_int_equal(topology_smt_bits_of_cpuid(&bochs), 0);
	assert_int_equal(topology_smt_bits_of_cpuid(&cores), 0);
	assert_int_equal(topology_smt_bits_of_cpuid(&legacy), 1);
	assert_int_equal(topology_smt_bits_of_cpuid(&empty), 0);
	assert_int_equal(topology_smt_bits_of_cpuid(&no_htt), 0);
}

/* --- the machines in tests/data/acpi -------------------------------------- */

#define MACHINE_COUNT (sizeof(expected_machines) / sizeof(expected_machines[0]))

static const char *const machine_table_files[] = {
	"APIC.dat", "SRAT.dat", "SLIT.dat", "MCFG.dat", "FACP.dat", "DMAR.dat",
};
#define MACHINE_TABLE_FILES (sizeof(machine_table_files) / sizeof(machine_table_files[0]))

static uint8_t machine_images[MACHINE_TABLE_FILES][FIXTURE_MAX_LENGTH];
static struct fixture_memory machine_memory;

/* Loads the machine's tables that exist; each must pass validation. */
static void load_machine(const struct expected_machine *machine)
{
	const char *data = getenv("SIDECORE_ACPI_DATA");
	unsigned int i;

	if (!data)
		data = "tests/data/acpi";
	acpi_tables_init(&tables);
	for (i = 0; i < MACHINE_TABLE_FILES; i++) {
		char path[512];
		size_t size;
		FILE *file;

		snprintf(path, sizeof(path), "%s/%s/%s", data, machine->name,
			 machine_table_files[i]);
		file = fopen(path, "rb");
		if (!file) {
			if (i == 0)
				fail_msg("cannot open %s (run from the repository root or set SIDECORE_ACPI_DATA)",
					 path);
			continue;
		}
		size = fread(machine_images[i], 1, sizeof(machine_images[i]), file);
		fclose(file);
		assert_true(acpi_tables_add(&tables, machine_images[i], size));
	}
	assert_int_equal(acpi_tables_find(&tables, "SRAT") != NULL, machine->has_srat);
}

/* Real nodes, their CPUs, and their memory in SRAT order, as in expected.json. */
static void assert_machine_nodes(const struct expected_machine *machine)
{
	unsigned int i, j, range;

	assert_int_equal(topo.node_count, machine->node_count);
	for (i = 0; i < machine->node_count; i++) {
		const struct expected_node *node = &machine->nodes[i];
		uint64_t bytes = 0;

		assert_int_equal(topo.node[i].domain, node->domain);
		assert_int_equal(topo.node[i].cpu_count, node->apic_id_count);
		for (j = 0; j < node->apic_id_count; j++) {
			int cpu = topology_cpu_of_apic_id(&topo, node->apic_ids[j]);

			assert_true(cpu >= 0);
			assert_int_equal(topo.cpu[cpu].node, i);
		}

		j = 0;
		for (range = 0; range < topo.mem_count; range++) {
			const struct topo_mem_range *found = &topo.mem[range];

			if (found->node != i)
				continue;
			assert_true(j < node->memory_count);
			assert_int_equal(found->base, node->memory[j].base);
			assert_int_equal(found->length, node->memory[j].length);
			assert_int_equal(found->hot_pluggable, node->memory[j].hot_pluggable);
			assert_int_equal(found->non_volatile, node->memory[j].non_volatile);
			assert_int_equal(topology_node_of_address(&topo, found->base), i);
			bytes += found->length;
			j++;
		}
		assert_int_equal(j, node->memory_count);
		assert_int_equal(topo.node[i].mem_bytes, bytes);
	}
}

static void assert_machine_topology(const struct expected_machine *machine)
{
	unsigned int i, j;

	assert_int_equal(topology_build(&topo, &tables), 0);
	assert_int_equal(topo.lapic_address, machine->lapic_address);
	assert_int_equal(topo.pcat_compat, machine->pcat_compat);
	assert_true(topo.ioapic_count > 0);
	assert_true(topo.ioapic[0].gsi_base <= topo.isa_irq[4].gsi);

	assert_int_equal(topo.cpu_count, machine->cpu_count);
	for (i = 0; i < machine->cpu_count; i++) {
		assert_int_equal(topo.cpu[i].apic_id, machine->cpus[i].apic_id);
		assert_int_equal(topo.cpu[i].acpi_uid, machine->cpus[i].acpi_uid);
		assert_int_equal(topo.cpu[i].x2apic_entry, machine->cpus[i].x2apic_entry);
		assert_int_equal(topology_cpu_of_apic_id(&topo, machine->cpus[i].apic_id), i);
	}

	/* Each CPU shares its core with its sibling and no other. */
	assert_int_equal(topo.smt_bits, machine->smt_bits);
	for (i = 0; i < machine->cpu_count; i++)
		for (j = 0; j < machine->cpu_count; j++)
			assert_int_equal(topology_core_id(&topo, i) == topology_core_id(&topo, j),
					 i == j || (int)j == machine->cpus[i].sibling);

	assert_int_equal(topo.has_srat, machine->has_srat);
	if (machine->has_srat) {
		assert_machine_nodes(machine);
	} else {
		assert_int_equal(topo.node_count, 1);
		assert_int_equal(topo.node[0].domain, 0);
		assert_int_equal(topo.node[0].cpu_count, topo.cpu_count);
		assert_int_equal(topo.mem_count, 0);
	}

	assert_int_equal(topo.slit_localities, machine->slit_localities);
	for (i = 0; i < machine->slit_localities; i++)
		for (j = 0; j < machine->slit_localities; j++)
			assert_int_equal(topo.slit[i][j],
					 machine->slit[i * machine->slit_localities + j]);

	assert_int_equal(topo.mcfg_count, machine->mcfg_count);
	for (i = 0; i < machine->mcfg_count; i++) {
		assert_int_equal(topo.mcfg[i].base, machine->mcfg[i].base);
		assert_int_equal(topo.mcfg[i].segment, machine->mcfg[i].segment);
		assert_int_equal(topo.mcfg[i].start_bus, machine->mcfg[i].start_bus);
		assert_int_equal(topo.mcfg[i].end_bus, machine->mcfg[i].end_bus);
	}
}

static void test_machine_from_images(void **state)
{
	const struct expected_machine *machine = *state;

	load_machine(machine);
	assert_machine_topology(machine);
}

/* The same tables found the way the hypervisor finds them: RSDP -> XSDT. */
static void test_machine_from_rsdp(void **state)
{
	const struct expected_machine *machine = *state;
	uint64_t entries[ACPI_MAX_TABLES];
	struct fixture_table *xsdt = &madt;
	uint8_t rsdp[FIXTURE_RSDP_SIZE];
	unsigned int i, count;

	load_machine(machine);
	count = tables.count;
	fixture_memory_init(&machine_memory, 0x7f000000);
	for (i = 0; i < count; i++)
		entries[i] = fixture_memory_place(&machine_memory, tables.table[i].data,
						  tables.table[i].length);
	fixture_root(xsdt, "XSDT", entries, count);
	fixture_rsdp(rsdp, 2, 0, fixture_memory_place(&machine_memory, xsdt->data,
						      xsdt->length));
	acpi_tables_init(&tables);
	assert_int_equal(acpi_tables_from_rsdp(&tables, rsdp, sizeof(rsdp),
					       fixture_memory_map, &machine_memory),
			 (int)count);
	assert_machine_topology(machine);
}

int main(void)
{
	static const struct CMUnitTest madt_tests[] = {
		cmocka_unit_test_setup(test_madt_missing_fails, reset),
		cmocka_unit_test_setup(test_madt_cpus_in_table_order, reset),
		cmocka_unit_test_setup(test_madt_x2apic_entries, reset),
		cmocka_unit_test_setup(test_madt_duplicate_apic_id_ignored, reset),
		cmocka_unit_test_setup(test_madt_lapic_address_override, reset),
		cmocka_unit_test_setup(test_madt_ioapics_and_overrides, reset),
		cmocka_unit_test_setup(test_madt_too_many_cpus, reset),
		cmocka_unit_test_setup(test_madt_without_enabled_cpu_fails, reset),
		cmocka_unit_test_setup(test_madt_too_short_fails, reset),
		cmocka_unit_test_setup(test_madt_malformed_subtables, reset),
		cmocka_unit_test_setup(test_madt_unknown_and_longer_subtables_accepted, reset),
	};
	static const struct CMUnitTest srat_tests[] = {
		cmocka_unit_test_setup(test_no_srat_single_node, reset),
		cmocka_unit_test_setup(test_srat_two_nodes, reset),
		cmocka_unit_test_setup(test_srat_placeholders_ignored, reset),
		cmocka_unit_test_setup(test_srat_domains_sorted, reset),
		cmocka_unit_test_setup(test_srat_x2apic_affinity, reset),
		cmocka_unit_test_setup(test_srat_wide_domain_needs_revision_2, reset),
		cmocka_unit_test_setup(test_srat_cpu_missing_goes_to_node_0, reset),
		cmocka_unit_test_setup(test_srat_malformed_ignored, reset),
		cmocka_unit_test_setup(test_srat_without_real_domain_ignored, reset),
		cmocka_unit_test_setup(test_srat_too_many_domains_ignored, reset),
		cmocka_unit_test_setup(test_srat_wrapping_memory_ignored, reset),
		cmocka_unit_test_setup(test_srat_too_many_ranges, reset),
	};
	static const struct CMUnitTest slit_mcfg_tests[] = {
		cmocka_unit_test_setup(test_slit_matrix, reset),
		cmocka_unit_test_setup(test_slit_malformed_ignored, reset),
		cmocka_unit_test_setup(test_mcfg_allocations, reset),
		cmocka_unit_test_setup(test_mcfg_malformed, reset),
	};
	static const struct CMUnitTest smt_tests[] = {
		cmocka_unit_test_setup(test_smt_inferred_from_a_pair, reset),
		cmocka_unit_test_setup(test_smt_not_inferred_without_a_pair, reset),
		cmocka_unit_test_setup(test_smt_core_id_with_wider_field, reset),
		cmocka_unit_test(test_smt_bits_of_cpuid),
	};
	static struct CMUnitTest machine_tests[2 * MACHINE_COUNT];
	static char names[2 * MACHINE_COUNT][96];
	unsigned int i;
	int failed = 0;

	for (i = 0; i < 2 * MACHINE_COUNT; i++) {
		const struct expected_machine *machine = &expected_machines[i / 2];

		snprintf(names[i], sizeof(names[i]), "%s %s", machine->name,
			 i % 2 ? "via RSDP" : "from images");
		machine_tests[i].name = names[i];
		machine_tests[i].test_func = i % 2 ? test_machine_from_rsdp :
						     test_machine_from_images;
		machine_tests[i].initial_state = (void *)machine;
	}

	failed += cmocka_run_group_tests_name("MADT", madt_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("SRAT", srat_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("SLIT and MCFG", slit_mcfg_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("SMT", smt_tests, NULL, NULL);
	failed += _cmocka_run_group_tests("machines", machine_tests, 2 * MACHINE_COUNT,
					  NULL, NULL);
	return failed ? 1 : 0;
}
