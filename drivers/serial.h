/* SPDX-License-Identifier: MIT */
/* serial.h - 16550 UART, polled transmit only: the hypervisor's console. */
#ifndef SIDECORE_DRIVERS_SERIAL_H
#define SIDECORE_DRIVERS_SERIAL_H

#include <stdint.h>

#define SERIAL_COM1 0x3f8

void serial_init(uint16_t port, uint32_t baud);
unsigned int serial_tx_room(void);
unsigned long serial_write_room(const char *s, unsigned long len, unsigned int *room);
void serial_write(const char *s, unsigned long len);

#endif
