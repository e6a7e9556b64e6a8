/* SPDX-License-Identifier: MIT */
/*
 * uart.c - 8250/16550 register file (PC16550D datasheet §8). The
 * transmitter is always empty, so the guest never waits; received data is
 * never ready. With no interrupt line, Linux's 8250 driver polls IIR and
 * sends the next character when it reports THR empty.
 */
#include <string.h>

#include "vdev/uart.h"

#define REG_DATA	0	/* THR/RBR, or DLL with DLAB */
#define REG_IER		1	/* or DLM with DLAB */
#define REG_IIR		2
#define REG_LCR		3
#define REG_MCR		4
#define REG_LSR		5
#define REG_MSR		6
#define REG_SCR		7

#define LCR_DLAB	0x80
#define IIR_NO_INTERRUPT 0x01
#define IIR_THR_EMPTY	0x02
#define IER_THR_EMPTY	0x02
#define FCR_FIFO_ENABLE	0x01
#define FCR_FIFO_64	0x20	/* TI16750: settable only with DLAB set */
#define IIR_FIFOS	0xc0	/* both bits set: FIFOs enabled (16550A and later) */
#define IIR_FIFO_64	0x20
#define LSR_THR_EMPTY	0x20
#define LSR_TX_EMPTY	0x40
#define MCR_DTR		0x01
#define MCR_RTS		0x02
#define MCR_OUT1	0x04
#define MCR_OUT2	0x08
#define MCR_LOOP	0x10
#define MSR_CTS		0x10
#define MSR_DSR		0x20
#define MSR_RI		0x40
#define MSR_DCD		0x80
#define MSR_DCD_DSR_CTS	0xb0

/*
 * In loopback the modem inputs are wired to the outputs: RTS->CTS, DTR->DSR,
 * OUT1->RI, OUT2->DCD (PC16550D, MCR bit 4). The 8250 probe checks that
 * RTS|OUT2 reads back as CTS|DCD.
 */
static uint8_t uart_loopback_msr(uint8_t mcr)
{
	return (mcr & MCR_RTS ? MSR_CTS : 0) | (mcr & MCR_DTR ? MSR_DSR : 0) |
	       (mcr & MCR_OUT1 ? MSR_RI : 0) | (mcr & MCR_OUT2 ? MSR_DCD : 0);
}

void uart_init(struct uart *u, text_line_fn sink, void *ctx)
{
	memset(u, 0, sizeof(*u));
	text_line_init(&u->out, sink, ctx);
}

static uint8_t uart_read_locked(struct uart *u, unsigned int offset)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (offset) {
	case REG_DATA:	return dlab ? u->dll : 0;
	case REG_IER:	return dlab ? u->dlm : u->ier;
	case REG_IIR: {
		/*
		 * FIFO state in bits 7:5 is how Linux tells a 16750 (64-byte
		 * FIFO) from older parts; reading IIR clears a THRE interrupt
		 * it reports (PC16550D §8.6).
		 */
		uint8_t fifo = u->fcr & FCR_FIFO_ENABLE ?
			       IIR_FIFOS | (u->fcr & FCR_FIFO_64 ? IIR_FIFO_64 : 0) : 0;

		if (u->thr_empty_pending) {
			u->thr_empty_pending = false;
			return fifo | IIR_THR_EMPTY;
		}
		return fifo | IIR_NO_INTERRUPT;
	}
	case REG_LCR:	return u->lcr;
	case REG_MCR:	return u->mcr;
	case REG_LSR:	return LSR_THR_EMPTY | LSR_TX_EMPTY;
	case REG_MSR:	return u->mcr & MCR_LOOP ? uart_loopback_msr(u->mcr) :
						   MSR_DCD_DSR_CTS;
	case REG_SCR:	return u->scr;
	default:	return 0xff;
	}
}

static void uart_write_locked(struct uart *u, unsigned int offset, uint8_t value)
{
	bool dlab = u->lcr & LCR_DLAB;

	switch (offset) {
	case REG_DATA:
		if (dlab) {
			u->dll = value;	/* the divisor latch leaves THRE alone */
			break;
		}
		if (!(u->mcr & MCR_LOOP))
			text_line_put(&u->out, value);
		/* The character leaves at once: THR is empty again. */
		u->thr_empty_pending = u->ier & IER_THR_EMPTY;
		break;
	case REG_IER:
		if (dlab) {
			u->dlm = value;
			break;
		}
		/* Enabling THRE while THR is empty raises it straight away. */
		if ((value & IER_THR_EMPTY) && !(u->ier & IER_THR_EMPTY))
			u->thr_empty_pending = true;
		if (!(value & IER_THR_EMPTY))
			u->thr_empty_pending = false;
		u->ier = value & 0x0f;
		break;
	case REG_IIR:	/* FCR on writes */
		u->fcr = (value & FCR_FIFO_ENABLE) |
			 (dlab ? value & FCR_FIFO_64 : u->fcr & FCR_FIFO_64);
		if (!(value & FCR_FIFO_ENABLE))
			u->fcr = 0;
		break;
	case REG_LCR:	u->lcr = value; break;
	case REG_MCR:	u->mcr = value & 0x1f; break;
	case REG_SCR:	u->scr = value; break;
	default:	break;
	}
}

/**
 * uart_read() - a guest's IN from one of the UART's eight ports
 * @u: the UART
 * @offset: port - base, 0-7; anything else reads an undriven bus
 *
 * Return: the register's value. Reading IIR acknowledges a THRE interrupt.
 */
uint8_t uart_read(struct uart *u, unsigned int offset)
{
	uint8_t value;

	spin_lock(&u->lock);
	value = uart_read_locked(u, offset);
	spin_unlock(&u->lock);
	return value;
}

/**
 * uart_write() - a guest's OUT to one of the UART's eight ports
 * @u: the UART
 * @offset: port - base, 0-7; anything else is ignored
 * @value: the byte written
 *
 * A byte written to THR may complete a line, which goes to the sink before
 * this returns, with the UART's lock still held.
 */
void uart_write(struct uart *u, unsigned int offset, uint8_t value)
{
	spin_lock(&u->lock);
	uart_write_locked(u, offset, value);
	spin_unlock(&u->lock);
}

/**
 * uart_flush() - hand a partial line to the sink
 * @u: the UART
 *
 * Used when the guest stops, so nothing it printed is lost. Does nothing
 * when no byte is buffered.
 */
void uart_flush(struct uart *u)
{
	spin_lock(&u->lock);
	text_line_flush(&u->out);
	spin_unlock(&u->lock);
}
