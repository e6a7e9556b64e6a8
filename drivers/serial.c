/* SPDX-License-Identifier: MIT */
/*
 * serial.c - 16550 UART console (PC16550D datasheet, register map in §8).
 * Polled: the console must work before interrupts and from any CPU. The
 * console's drainer fills only the room the transmitter has now; boot and
 * panic output waits for room instead.
 */
#include <stdbool.h>

#include "cpu/io.h"
#include "drivers/serial.h"

#define UART_THR	0	/* transmit holding (DLAB=0) */
#define UART_RBR	0	/* receive buffer (DLAB=0, read) */
#define UART_DLL	0	/* divisor latch low (DLAB=1) */
#define UART_IER	1
#define UART_DLM	1	/* divisor latch high (DLAB=1) */
#define UART_IIR	2	/* read */
#define UART_FCR	2	/* write */
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5

#define LCR_8N1		0x03
#define LCR_DLAB	0x80
#define FCR_ENABLE_CLEAR 0x07	/* enable FIFOs, clear both */
#define MCR_DTR_RTS	0x03
#define MCR_OUT2	0x08	/* a PC routes the UART's interrupt to its IRQ line only with OUT2 */
#define IER_RX_DATA	0x01	/* §8.5: interrupt while received data is available */
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20	/* §8.4, §8.13: in FIFO mode, the transmit FIFO is empty */
#define LSR_TX_IDLE	0x40	/* §8.4: FIFO and shift register both empty */
/* About 20 ms of port reads at ~1 us each: a byte at 9600 baud takes 1 ms. */
#define TX_IDLE_POLLS	20000
#define IIR_FIFOS_ON	0xc0	/* §8.6: IIR bits 7:6 read 1 while FCR0 enables the FIFOs */
#define UART_FIFO_DEPTH	16	/* §1: 16-byte transmit FIFO */
#define UART_CLOCK	115200	/* 1.8432 MHz crystal / 16 */

static uint16_t serial_port;
static unsigned int serial_fifo_depth;	/* bytes one empty transmitter takes */
static bool serial_cr_sent;		/* a line end's CR went out, its LF not yet */

/**
 * serial_init() - set the UART up for 8N1 at a baud rate, polled
 * @port: its first I/O port
 * @baud: a divisor of 115200
 *
 * Interrupts stay off until serial_rx_enable(); the FIFOs are used where
 * the UART has them. A UART set up before sends out what it holds first,
 * so the last line on the old port or speed arrives whole.
 */
void serial_init(uint16_t port, uint32_t baud)
{
	uint16_t divisor = UART_CLOCK / baud;

	for (unsigned int i = 0; serial_port && i < TX_IDLE_POLLS; i++)
		if (pio_in8(serial_port + UART_LSR) & LSR_TX_IDLE)
			break;

	serial_port = port;
	pio_out8(port + UART_IER, 0);
	pio_out8(port + UART_LCR, LCR_DLAB);
	pio_out8(port + UART_DLL, divisor & 0xff);
	pio_out8(port + UART_DLM, divisor >> 8);
	pio_out8(port + UART_LCR, LCR_8N1);
	pio_out8(port + UART_FCR, FCR_ENABLE_CLEAR);
	pio_out8(port + UART_MCR, MCR_DTR_RTS);
	/* An 8250 or 16450 has no FIFO: then only the holding register. */
	serial_fifo_depth = (pio_in8(port + UART_IIR) & IIR_FIFOS_ON) == IIR_FIFOS_ON ?
			    UART_FIFO_DEPTH : 1;
}

/**
 * serial_tx_room() - bytes the transmitter takes now without waiting.
 *
 * Return: the FIFO depth when the transmitter is empty, otherwise 0 (the
 * LSR says only "empty" or "not empty", not how full).
 */
unsigned int serial_tx_room(void)
{
	if (!serial_port || !(pio_in8(serial_port + UART_LSR) & LSR_THR_EMPTY))
		return 0;
	return serial_fifo_depth;
}

/**
 * serial_write_room() - write the start of a buffer into the room there is.
 * @s: the text; each '\n' goes out as CR LF.
 * @len: its length.
 * @room: transmitter slots left (from serial_tx_room()); decreased.
 *
 * Never waits. A line end may be split across calls (CR now, LF later).
 *
 * Return: bytes of @s consumed.
 */
unsigned long serial_write_room(const char *s, unsigned long len, unsigned int *room)
{
	unsigned long done = 0;

	while (done < len && *room) {
		if (s[done] == '\n' && !serial_cr_sent) {
			pio_out8(serial_port + UART_THR, '\r');
			serial_cr_sent = true;
			--*room;
			continue;
		}
		pio_out8(serial_port + UART_THR, s[done++]);
		serial_cr_sent = false;
		--*room;
	}
	return done;
}

/**
 * serial_write() - write a buffer, waiting for the transmitter as needed.
 * @s: the text; each '\n' goes out as CR LF.
 * @len: its length.
 *
 * For boot and panic output only: at 115200 baud a byte takes about 87 us.
 */
void serial_write(const char *s, unsigned long len)
{
	if (!serial_port)
		return;
	while (len) {
		unsigned int room = serial_tx_room();
		unsigned long done = serial_write_room(s, len, &room);

		s += done;
		len -= done;
		if (len)
			cpu_relax();
	}
}

/**
 * serial_rx_enable() - raise the UART's interrupt while received bytes wait
 *
 * Reading them all with serial_getc() ends the interrupt; the next byte
 * raises it again.
 */
void serial_rx_enable(void)
{
	if (!serial_port)
		return;
	pio_out8(serial_port + UART_MCR, MCR_DTR_RTS | MCR_OUT2);
	pio_out8(serial_port + UART_IER, IER_RX_DATA);
}

/**
 * serial_getc() - the next received byte
 *
 * Return: the byte, or -1 if none is waiting.
 */
int serial_getc(void)
{
	if (!serial_port || !(pio_in8(serial_port + UART_LSR) & LSR_DATA_READY))
		return -1;
	return pio_in8(serial_port + UART_RBR);
}
