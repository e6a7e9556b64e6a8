/* SPDX-License-Identifier: MIT */
/*
 * test_console_port.c - unit tests for hv/platform/console_port.c: the
 * console's port from SPCR tables built for the purpose (none of the real
 * machines' tables in tests/data/acpi carries an SPCR).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "platform/console_port.h"
#include "tests/unit/acpi_fixture.h"
#include "tests/unit/support/stderr_capture.h"

/* SPCR Interface Type values (DBG2 serial subtypes) and GAS address spaces. */
#define SPCR_16550	0x00
#define SPCR_16450	0x01
#define SPCR_PL011	0x03
#define SPCR_16550_GAS	0x12
#define GAS_MEMORY	0
#define GAS_IO		1
#define INTERRUPT_8259	0x01
#define INTERRUPT_APIC	0x02
#define BAUD_AS_IS	0
#define BAUD_9600	3
#define BAUD_115200	7

struct spcr {
	uint8_t type;
	uint8_t space;
	uint8_t width;
	uint64_t address;
	uint8_t interrupt_type;
	uint8_t irq;
	uint8_t baud;
};

static struct fixture_table table;
static struct acpi_tables tables;
static struct console_port port;
static char log_text[4096];

/* An 80-byte revision 2 SPCR, as firmware builds one. */
static void spcr_build(const struct spcr *s)
{
	fixture_start(&table, "SPCR", 2);
	fixture_put_u8(&table, s->type);
	fixture_put(&table, "\0\0\0", 3);
	fixture_put_u8(&table, s->space);
	fixture_put_u8(&table, s->width);
	fixture_put_u8(&table, 0);		/* bit offset */
	fixture_put_u8(&table, 1);		/* access size: byte */
	fixture_put_u64(&table, s->address);
	fixture_put_u8(&table, s->interrupt_type);
	fixture_put_u8(&table, s->irq);
	fixture_put_u32(&table, s->irq);	/* GSIV */
	fixture_put_u8(&table, s->baud);
	fixture_put(&table, "\0\1\0\0\0", 5);	/* parity, stop bits, flow, terminal, language */
	fixture_put_u16(&table, 0xffff);	/* not a PCI device */
	fixture_put_u16(&table, 0xffff);
	fixture_put(&table, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
	assert_int_equal(table.length, 80);
	fixture_finish(&table);
	acpi_tables_init(&tables);
	assert_true(acpi_tables_add(&tables, table.data, table.length));
}

static bool spcr_find(void)
{
	bool found;

	memset(&port, 0x5a, sizeof(port));
	stderr_capture_begin();
	found = console_port_from_spcr(&tables, &port);
	stderr_capture_end(log_text, sizeof(log_text));
	return found;
}

static void test_no_spcr(void **state)
{
	(void)state;
	acpi_tables_init(&tables);
	assert_false(spcr_find());
	assert_string_equal(log_text, "");
}

/* COM2 with its 8259 IRQ, as a server's BIOS sets console redirection up. */
static void test_com2(void **state)
{
	(void)state;
	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0x2f8, INTERRUPT_8259, 3, BAUD_115200 });
	assert_true(spcr_find());
	assert_int_equal(port.port, 0x2f8);
	assert_int_equal(port.irq, 3);
	assert_int_equal(port.baud, 115200);
	assert_int_equal(port.source, CONSOLE_PORT_SPCR);
	assert_string_equal(console_port_name(port.port), "com2");
	assert_string_equal(console_port_source_name(port.source), "SPCR");
}

/* A BMC's own UART at an odd port, IRQ 5: the table's IRQ, the table's speed. */
static void test_irq_from_table(void **state)
{
	(void)state;
	spcr_build(&(struct spcr){ SPCR_16450, GAS_IO, 0, 0xca8, INTERRUPT_8259 | INTERRUPT_APIC,
				   5, BAUD_9600 });
	assert_true(spcr_find());
	assert_int_equal(port.port, 0xca8);
	assert_int_equal(port.irq, 5);
	assert_int_equal(port.baud, 9600);
	assert_string_equal(console_port_name(port.port), "port");
}

/* Only a GSI given, or an 8259 IRQ out of range: the PC's IRQ for the port, if any. */
static void test_irq_by_port(void **state)
{
	(void)state;
	spcr_build(&(struct spcr){ SPCR_16550_GAS, GAS_IO, 8, 0x3f8, INTERRUPT_APIC, 4, BAUD_AS_IS });
	assert_true(spcr_find());
	assert_int_equal(port.port, 0x3f8);
	assert_int_equal(port.irq, 4);
	assert_int_equal(port.baud, 0);

	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0x2e8, INTERRUPT_8259, 16, BAUD_115200 });
	assert_true(spcr_find());
	assert_int_equal(port.irq, 3);

	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0xe000, 0, 0, BAUD_115200 });
	assert_true(spcr_find());
	assert_int_equal(port.irq, CONSOLE_PORT_NO_IRQ);
}

/* What a 16550 driver on I/O ports cannot serve is named and left out. */
static void test_unusable(void **state)
{
	(void)state;
	spcr_build(&(struct spcr){ SPCR_PL011, GAS_MEMORY, 32, 0x9000000, 0, 0, BAUD_115200 });
	assert_false(spcr_find());
	assert_non_null(strstr(log_text, "spcr: interface type 0x3 is not a 16550, ignored"));

	spcr_build(&(struct spcr){ SPCR_16550_GAS, GAS_MEMORY, 32, 0xfe030000, 0, 0, BAUD_115200 });
	assert_false(spcr_find());
	assert_non_null(strstr(log_text, "spcr: UART at 0xfe030000 in address space 0, not I/O ports"));

	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 32, 0x3f8, 0, 0, BAUD_115200 });
	assert_false(spcr_find());
	assert_non_null(strstr(log_text, "32-bit registers, is not one a 16550 has"));

	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0xfffc, 0, 0, BAUD_115200 });
	assert_false(spcr_find());
	assert_non_null(strstr(log_text, "port 0xfffc"));

	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0x1000003f8ull, 0, 0, BAUD_115200 });
	assert_false(spcr_find());

	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0, 0, 0, BAUD_115200 });
	assert_false(spcr_find());

	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0x3f8, 0, 0, 5 });
	assert_false(spcr_find());
	assert_non_null(strstr(log_text, "spcr: baud rate code 5 unknown"));
	spcr_build(&(struct spcr){ SPCR_16550, GAS_IO, 8, 0x3f8, 0, 0, 0xff });
	assert_false(spcr_find());
}

/* A table cut short of the baud rate: checksummed, but too short to read. */
static void test_short_table(void **state)
{
	(void)state;
	fixture_start(&table, "SPCR", 1);
	fixture_put_u8(&table, SPCR_16550);
	fixture_put(&table, "\0\0\0", 3);
	fixture_put_u8(&table, GAS_IO);
	fixture_finish(&table);
	acpi_tables_init(&tables);
	assert_true(acpi_tables_add(&tables, table.data, table.length));
	assert_false(spcr_find());
	assert_non_null(strstr(log_text, "spcr: table of 41 bytes is too short"));
}

static void test_isa_irq(void **state)
{
	(void)state;
	assert_int_equal(console_port_isa_irq(0x3f8), 4);
	assert_int_equal(console_port_isa_irq(0x3e8), 4);
	assert_int_equal(console_port_isa_irq(0x2f8), 3);
	assert_int_equal(console_port_isa_irq(0x2e8), 3);
	assert_int_equal(console_port_isa_irq(0x3f0), CONSOLE_PORT_NO_IRQ);
	assert_string_equal(console_port_name(0x3f8), "com1");
	assert_string_equal(console_port_source_name(CONSOLE_PORT_CONFIG), "config");
	assert_string_equal(console_port_source_name(CONSOLE_PORT_DEFAULT), "default");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_spcr),
		cmocka_unit_test(test_com2),
		cmocka_unit_test(test_irq_from_table),
		cmocka_unit_test(test_irq_by_port),
		cmocka_unit_test(test_unusable),
		cmocka_unit_test(test_short_table),
		cmocka_unit_test(test_isa_irq),
	};

	return cmocka_run_group_tests_name("console_port", tests, NULL, NULL);
}
