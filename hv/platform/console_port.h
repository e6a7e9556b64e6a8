/* SPDX-License-Identifier: MIT */
/*
 * console_port.h - which 16550 the hypervisor's console is on: the
 * config's choice, else the port the firmware's ACPI SPCR table names,
 * else COM1 (docs/operator.md, "Where the console is").
 */
#ifndef SIDECORE_PLATFORM_CONSOLE_PORT_H
#define SIDECORE_PLATFORM_CONSOLE_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/acpi.h"

/* The PC's first two serial ports (IBM PC/AT Technical Reference, I/O map). */
#define CONSOLE_PORT_COM1	0x3f8
#define CONSOLE_PORT_COM2	0x2f8
#define CONSOLE_PORT_COM1_IRQ	4	/* their ISA IRQs, shared by COM3 and COM4 */
#define CONSOLE_PORT_COM2_IRQ	3
#define CONSOLE_PORT_NO_IRQ	0xff
#define CONSOLE_PORT_BAUD	115200	/* the UART's 1.8432 MHz clock / 16 */

enum console_port_source {
	CONSOLE_PORT_DEFAULT,	/* COM1: no config key, no usable SPCR */
	CONSOLE_PORT_SPCR,
	CONSOLE_PORT_CONFIG,
};

struct console_port {
	uint16_t port;		/* first I/O port of the 16550 */
	uint8_t irq;		/* ISA IRQ of its receive interrupt, or CONSOLE_PORT_NO_IRQ */
	uint32_t baud;		/* 0: leave the speed as it is */
	enum console_port_source source;
};

/**
 * console_port_isa_irq() - the PC's ISA IRQ of a serial port
 * @port: its first I/O port
 *
 * Return: 4 for COM1 and COM3, 3 for COM2 and COM4, CONSOLE_PORT_NO_IRQ
 * for any other port.
 */
uint8_t console_port_isa_irq(uint16_t port);

/**
 * console_port_from_spcr() - the console the firmware's SPCR table names
 * @tables: the machine's ACPI tables
 * @out: filled in when the table names a usable port
 *
 * Usable is a 16550 or a 16450 (interface types 0, 1 and 0x12) in system
 * I/O space. Its IRQ is the table's 8259 IRQ where the table gives one,
 * the PC's for the port otherwise; its speed is the table's, 0 when the
 * table says "as it is". A table that names something else is reported.
 *
 * Return: true when @out holds the table's port, false when there is no
 * SPCR or it names no usable port.
 */
bool console_port_from_spcr(const struct acpi_tables *tables, struct console_port *out);

/**
 * console_port_name() - how the summary names a port
 * @port: its first I/O port
 *
 * Return: "com1" or "com2" for those, "port" for any other.
 */
const char *console_port_name(uint16_t port);

/**
 * console_port_source_name() - where a choice came from, for the summary
 * @source: the choice's source
 *
 * Return: "config", "SPCR" or "default".
 */
const char *console_port_source_name(enum console_port_source source);

#endif
