/* SPDX-License-Identifier: MIT */
/*
 * serial.c - 16550 UART console (PC16550D datasheet, register map in §8).
 * Polled: the console must work before interrupts and from any CPU.
 */
#include "arch/x86.h"
#include "drivers/serial.h"

#define UART_THR	0	/* transmit holding (DLAB=0) */
#define UART_DLL	0	/* divisor latch low (DLAB=1) */
#define UART_IER	1
#define UART_DLM	1	/* divisor latch high (DLAB=1) */
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5

#define LCR_8N1		0x03
#define LCR_DLAB	0x80
#define FCR_ENABLE_CLEAR 0x07	/* enable FIFOs, clear both */
#define MCR_DTR_RTS	0x03
#define LSR_THR_EMPTY	0x20
#define UART_CLOCK	115200	/* 1.8432 MHz crystal / 16 */

static uint16_t serial_port;

void serial_init(uint16_t port, uint32_t baud)
{
	uint16_t divisor = UART_CLOCK / baud;

	serial_port = port;
	pio_out8(port + UART_IER, 0);
	pio_out8(port + UART_LCR, LCR_DLAB);
	pio_out8(port + UART_DLL, divisor & 0xff);
	pio_out8(port + UART_DLM, divisor >> 8);
	pio_out8(port + UART_LCR, LCR_8N1);
	pio_out8(port + UART_FCR, FCR_ENABLE_CLEAR);
	pio_out8(port + UART_MCR, MCR_DTR_RTS);
}

static void serial_put(char c)
{
	while (!(pio_in8(serial_port + UART_LSR) & LSR_THR_EMPTY))
		cpu_relax();
	pio_out8(serial_port + UART_THR, c);
}

void serial_write(const char *s, unsigned long len)
{
	if (!serial_port)
		return;
	while (len--) {
		if (*s == '\n')
			serial_put('\r');
		serial_put(*s++);
	}
}
