/* SPDX-License-Identifier: MIT */
/*
 * guest_console.h - a guest's virtio console: the virtio-pci function on
 * its PCI bus and the device model behind it, served on the vCPU that
 * kicks it. Linux's hvc0 on it replaces the UART once the guest's init has
 * loaded the driver (docs/guest-platform.md, "Console").
 */
#ifndef SIDECORE_GUEST_GUEST_CONSOLE_H
#define SIDECORE_GUEST_GUEST_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "guest/guest_device.h"
#include "virtio/guest_mem.h"
#include "virtio/virtio_console.h"
#include "virtio/virtio_pci.h"

struct guest;

struct guest_console {
	struct guest *guest;
	/*
	 * Guards the function and the device: any of the guest's vCPUs may
	 * reach them at once, through the BAR or through config space (the
	 * bus takes it as the function's lock, vdev/pci.h). The line sink and
	 * the MSI path run under it and take only the console's locks.
	 */
	struct spinlock lock;
	struct guest_device dev;	/* in the guest's registry */
	struct guest_mem mem;
	struct log_gate log_gate;	/* the guest's bucket, for mem and pci */
	struct virtio_pci pci;
	bool needs_reset_reported;
	uint64_t bad_msi;		/* MSI-X messages the guest misprogrammed */
	struct virtio_console console;	/* last: its line buffer ends in a redzone in tests */
};

/**
 * guest_console_create() - gives a guest a virtio console
 * @g: the guest, created and not yet running
 *
 * The device's memory comes from the guest's node. It is registered with
 * the guest: its PCI slot, BAR and restart reset.
 *
 * Return: false (reported) when any of that fails.
 */
bool guest_console_create(struct guest *g);

#endif
