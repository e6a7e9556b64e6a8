/* SPDX-License-Identifier: MIT */
/*
 * guest_virtio.h - what every virtio device's glue does the same way: its
 * MSI-X messages through the guest's one delivery path, BAR accesses and
 * the restart reset under the lock that guards the device.
 */
#ifndef SIDECORE_GUEST_GUEST_VIRTIO_H
#define SIDECORE_GUEST_GUEST_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "virtio/virtio_pci.h"

struct guest;

/**
 * guest_virtio_send_msi() - delivers a device's MSI-X message to its guest
 * @g: the guest
 * @device: the device's name, for the report ("virtio-net")
 * @bad_msi: the device's count of messages dropped; the first is reported
 * @address: the message address, as the guest programmed it
 * @data: the message data, likewise
 */
void guest_virtio_send_msi(struct guest *g, const char *device, uint64_t *bad_msi,
			   uint64_t address, uint32_t data);

/**
 * guest_virtio_mmio() - a vCPU's access to a function's BAR
 * @fn: the function
 * @lock: the lock that guards it
 * @gpa: the guest-physical address accessed
 * @size: 1, 2, 4 or 8 bytes
 * @write: a store (@value holds it) or a load (@value receives it)
 * @value: the data
 *
 * Decode and access happen under one hold of @lock: a config write on
 * another vCPU may move the BAR.
 *
 * Return: VIRTIO_PCI_NO_NOTIFY for an access that notified no queue, the
 * queue a store notified, or -2 when the BAR is not at @gpa.
 */
int guest_virtio_mmio(struct virtio_pci *fn, struct spinlock *lock, uint64_t gpa,
		      unsigned int size, bool write, uint64_t *value);

/* guest_virtio_mmio(): no BAR of this function is at the address. */
#define GUEST_VIRTIO_UNCLAIMED	(-2)

/**
 * guest_virtio_reset() - a restart's reset of a function, as the driver's
 * write of 0 to device_status would do (virtio 1.1 §2.1.2)
 * @fn: the function
 * @lock: the lock that guards it
 */
void guest_virtio_reset(struct virtio_pci *fn, struct spinlock *lock);

#endif
