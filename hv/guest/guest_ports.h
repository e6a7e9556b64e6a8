/* SPDX-License-Identifier: MIT */
/*
 * guest_ports.h - the guest platform's I/O ports (docs/guest-platform.md):
 * which device each emulated port belongs to, as the map the exit rules
 * (hv/vmx/exit_rules.h) judge an IN or OUT against.
 */
#ifndef SIDECORE_GUEST_GUEST_PORTS_H
#define SIDECORE_GUEST_GUEST_PORTS_H

#include "vmx/exit_rules.h"

/* The devices behind the platform's ports. */
enum guest_io_device {
	GUEST_IO_NONE = EXIT_IO_NONE,
	GUEST_IO_UART,
	GUEST_IO_PCI,		/* CONFIG_ADDRESS and CONFIG_DATA */
	GUEST_IO_SLEEP_CONTROL,
	GUEST_IO_SLEEP_STATUS,
	GUEST_IO_COUNTERS,
};

/*
 * Every guest's map: the UART takes byte accesses only; the PCI
 * configuration ports take accesses that stay within CF8H-CFFH; the sleep
 * and counters ports are matched on the first port.
 */
extern const struct exit_io_map guest_io_map;

#endif
