/* SPDX-License-Identifier: MIT */
/*
 * uart.h - a 16750-compatible UART good enough for the Linux console:
 * transmit only, its interrupt line unwired (the guest has no I/O APIC; the
 * driver polls IIR on a timer tick and refills the 64-byte FIFO each time).
 * Complete lines go to a sink.
 *
 * Every vCPU of a guest may reach the same UART at once. Each entry point
 * below takes the UART's lock for the whole access, sink call included, so
 * the register file and the line buffer change one access at a time and
 * lines reach the sink whole and in order. The sink therefore runs with the
 * lock held: it must not call back into this UART, and may take only locks
 * that are never held around a UART call (the console's).
 */
#ifndef SIDECORE_VDEV_UART_H
#define SIDECORE_VDEV_UART_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "lib/text_line.h"

#define UART_COM1_BASE	0x3f8
#define UART_PORTS	8

struct uart {
	struct spinlock lock;		/* guards every field below */
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
	bool thr_empty_pending;	/* the THRE interrupt condition (IIR 0x02) */
	struct text_line out;		/* last: in host tests an overrun hits a redzone */
};

/**
 * uart_init() - bring a UART up as after reset
 * @uart: the UART; its old contents are lost
 * @sink: receives each line as a string, without its newline; never NULL
 * @ctx: passed to @sink
 *
 * Called before any vCPU runs: the lock starts free, the line buffer empty
 * and every writable register 0.
 */
void uart_init(struct uart *uart, text_line_fn sink, void *ctx);

/* offset is port - base (0-7); reads return the register value. */
uint8_t uart_read(struct uart *uart, unsigned int offset);
void uart_write(struct uart *uart, unsigned int offset, uint8_t value);
/* Hands over a partial line (at stop, so nothing printed is lost). */
void uart_flush(struct uart *uart);

#endif
