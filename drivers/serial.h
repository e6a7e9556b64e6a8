/* SPDX-License-Identifier: MIT */
/*
 * serial.h - 16550 UART, the hypervisor's console: polled transmit, and
 * receive on the UART's interrupt for the operator's commands.
 */
#ifndef SIDECORE_DRIVERS_SERIAL_H
#define SIDECORE_DRIVERS_SERIAL_H

#include <stdint.h>

void serial_init(uint16_t port, uint32_t baud);
unsigned int serial_tx_room(void);
unsigned long serial_write_room(const char *s, unsigned long len, unsigned int *room);
void serial_write(const char *s, unsigned long len);
void serial_rx_enable(void);
int serial_getc(void);

#endif
