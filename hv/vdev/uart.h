/* SPDX-License-Identifier: MIT */
/*
 * uart.h - a 16750-compatible UART good enough for the Linux console:
 * transmit only, its interrupt line unwired (the guest has no I/O APIC; the
 * driver polls IIR on a timer tick and refills the 64-byte FIFO each time).
 * Complete lines go to a sink.
 */
#ifndef SIDECORE_VDEV_UART_H
#define SIDECORE_VDEV_UART_H

#include <stdbool.h>
#include <stdint.h>

#define UART_COM1_BASE	0x3f8
#define UART_PORTS	8
#define UART_LINE_MAX	256

typedef void (*uart_line_fn)(void *ctx, const char *line);

struct uart {
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
	bool thr_empty_pending;	/* the THRE interrupt condition (IIR 0x02) */
	char line[UART_LINE_MAX];
	unsigned int len;
	uart_line_fn sink;
	void *ctx;
};

void uart_init(struct uart *uart, uart_line_fn sink, void *ctx);
/* offset is port - base (0-7); reads return the register value. */
uint8_t uart_read(struct uart *uart, unsigned int offset);
void uart_write(struct uart *uart, unsigned int offset, uint8_t value);
/* Hands over a partial line (at stop, so nothing printed is lost). */
void uart_flush(struct uart *uart);

#endif
