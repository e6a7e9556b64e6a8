/* SPDX-License-Identifier: MIT */
/*
 * console_port.c - the console's port from the ACPI SPCR table.
 *
 * Layout per Microsoft's "Serial Port Console Redirection Table (SPCR)",
 * revision 2 onward (the fields read here are the same in every revision);
 * interface types per the DBG2 table's serial port subtypes. The table
 * comes from firmware, so every field is checked before use.
 */
#include "lib/log.h"
#include "platform/console_port.h"

/* SPCR: fields past the 36-byte ACPI header. */
#define SPCR_INTERFACE_TYPE	36
#define SPCR_BASE_ADDRESS	40	/* Generic Address Structure, 12 bytes */
#define SPCR_INTERRUPT_TYPE	52
#define SPCR_PC_IRQ		53
#define SPCR_BAUD_RATE		58
#define SPCR_MIN_LENGTH		59	/* through the baud rate */

/* DBG2 serial port subtypes a 16550 driver serves. */
#define SPCR_16550		0x00	/* full 16550 */
#define SPCR_16450		0x01	/* 16550 subset (16450), no FIFO */
#define SPCR_16550_GAS		0x12	/* 16550 with its registers described by the GAS */

/* ACPI 6.5, 5.2.3.2 Generic Address Structure. */
#define GAS_SPACE		0
#define GAS_BIT_WIDTH		1
#define GAS_ADDRESS		4
#define GAS_SPACE_IO		1
#define UART_REGISTERS		8	/* a 16550's registers take 8 ports */

/* SPCR Interrupt Type bit 0: a PC-AT dual-8259 IRQ is in the IRQ field. */
#define SPCR_INTERRUPT_8259	0x01
#define ISA_IRQ_COUNT		16

/* The port a PC's COM3 and COM4 use, sharing COM1's and COM2's IRQ. */
#define CONSOLE_PORT_COM3	0x3e8
#define CONSOLE_PORT_COM4	0x2e8

uint8_t console_port_isa_irq(uint16_t port)
{
	if (port == CONSOLE_PORT_COM1 || port == CONSOLE_PORT_COM3)
		return CONSOLE_PORT_COM1_IRQ;
	if (port == CONSOLE_PORT_COM2 || port == CONSOLE_PORT_COM4)
		return CONSOLE_PORT_COM2_IRQ;
	return CONSOLE_PORT_NO_IRQ;
}

/* SPCR Configured Baud Rate: 0 is "as is", the others are codes. */
static bool console_port_spcr_baud(uint8_t code, uint32_t *baud)
{
	static const uint32_t speed[] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };

	if (code >= sizeof(speed) / sizeof(speed[0]) || (code && !speed[code]))
		return false;
	*baud = speed[code];
	return true;
}

bool console_port_from_spcr(const struct acpi_tables *tables, struct console_port *out)
{
	const struct acpi_table *t = acpi_tables_find(tables, "SPCR");
	const uint8_t *gas;
	uint64_t address;
	uint8_t type, width;

	if (!t)
		return false;
	if (t->length < SPCR_MIN_LENGTH) {
		log_msg("spcr: table of %u bytes is too short, ignored", t->length);
		return false;
	}
	type = t->data[SPCR_INTERFACE_TYPE];
	if (type != SPCR_16550 && type != SPCR_16450 && type != SPCR_16550_GAS) {
		log_msg("spcr: interface type %#x is not a 16550, ignored", type);
		return false;
	}
	gas = t->data + SPCR_BASE_ADDRESS;
	address = acpi_read_u64(gas + GAS_ADDRESS);
	if (gas[GAS_SPACE] != GAS_SPACE_IO) {
		log_msg("spcr: UART at %#llx in address space %u, not I/O ports, ignored",
			(unsigned long long)address, gas[GAS_SPACE]);
		return false;
	}
	width = gas[GAS_BIT_WIDTH];
	if (!address || address > UINT16_MAX + 1 - UART_REGISTERS || (width && width != 8)) {
		log_msg("spcr: UART at I/O port %#llx, %u-bit registers, is not one a 16550 has, ignored",
			(unsigned long long)address, width);
		return false;
	}
	if (!console_port_spcr_baud(t->data[SPCR_BAUD_RATE], &out->baud)) {
		log_msg("spcr: baud rate code %u unknown, ignored", t->data[SPCR_BAUD_RATE]);
		return false;
	}
	out->port = (uint16_t)address;
	out->irq = console_port_isa_irq(out->port);
	if ((t->data[SPCR_INTERRUPT_TYPE] & SPCR_INTERRUPT_8259) &&
	    t->data[SPCR_PC_IRQ] < ISA_IRQ_COUNT)
		out->irq = t->data[SPCR_PC_IRQ];
	out->source = CONSOLE_PORT_SPCR;
	return true;
}

const char *console_port_name(uint16_t port)
{
	if (port == CONSOLE_PORT_COM1)
		return "com1";
	if (port == CONSOLE_PORT_COM2)
		return "com2";
	return "port";
}

const char *console_port_source_name(enum console_port_source source)
{
	switch (source) {
	case CONSOLE_PORT_SPCR:
		return "SPCR";
	case CONSOLE_PORT_CONFIG:
		return "config";
	default:
		return "default";
	}
}
