/* SPDX-License-Identifier: MIT */
/* guest_ports.c - the guest platform's I/O-port map; pure, shared with the tests. */
#include "config/guest_layout.h"
#include "guest/guest_ports.h"
#include "vdev/vpci.h"
#include "vdev/uart.h"

#define BYTES_ONLY	(1u << 1)
#define PCI_CONFIG_PORTS (VPCI_CONFIG_DATA_PORT + 4 - VPCI_CONFIG_ADDRESS_PORT)

static const struct exit_io_range guest_io_ranges[] = {
	{ UART_COM1_BASE, UART_PORTS, BYTES_ONLY, false, GUEST_IO_UART },
	{ VPCI_CONFIG_ADDRESS_PORT, PCI_CONFIG_PORTS, EXIT_IO_ANY_SIZE, true, GUEST_IO_PCI },
	{ GUEST_SLEEP_CONTROL_PORT, 1, EXIT_IO_ANY_SIZE, false, GUEST_IO_SLEEP_CONTROL },
	{ GUEST_SLEEP_STATUS_PORT, 1, EXIT_IO_ANY_SIZE, false, GUEST_IO_SLEEP_STATUS },
	{ GUEST_COUNTERS_PORT, 1, EXIT_IO_ANY_SIZE, false, GUEST_IO_COUNTERS },
};

const struct exit_io_map guest_io_map = {
	.ranges = guest_io_ranges,
	.count = sizeof(guest_io_ranges) / sizeof(guest_io_ranges[0]),
};
