/* SPDX-License-Identifier: MIT */
/*
 * guest_virtio.h - what every virtio device's glue does the same way: its
 * MSI-X messages through the guest's one delivery path, BAR accesses and
 * the restart reset under the lock that guards the device; and the one
 * creation of a device model behind a virtio-pci function on the guest's
 * bus (struct guest_virtio), served on the vCPU that kicks it.
 */
#ifndef SIDECORE_GUEST_GUEST_VIRTIO_H
#define SIDECORE_GUEST_GUEST_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/spinlock.h"
#include "guest/guest_device.h"
#include "lib/log.h"
#include "virtio/guest_mem.h"
#include "virtio/virtio_dev.h"
#include "virtio/virtio_pci.h"

struct guest;

/*
 * A device model on a guest's bus, served on the vCPU that kicks it: one
 * page-rounded allocation from the guest's node holds this and, after it,
 * the model (its ops->size bytes). The lock guards the function and the
 * model: any of the guest's vCPUs may reach them at once, through the BAR
 * or through config space (the bus takes it as the function's lock,
 * vdev/pci.h). The model's sink and the MSI path run under it and take
 * only the console's locks.
 */
struct guest_virtio {
	struct guest *guest;
	struct spinlock lock;
	struct guest_device dev;	/* in the guest's registry */
	struct guest_mem mem;
	struct log_gate log_gate;	/* the guest's bucket, for mem and pci */
	struct virtio_pci_device_ops pci_ops;	/* the transport's view of the model */
	struct virtio_pci pci;
	uint64_t bad_msi;		/* MSI-X messages the guest misprogrammed */
	uint64_t bytes;			/* of the allocation */
	struct virtio_dev *vdev;	/* the model, in the same allocation */
};

/**
 * guest_virtio_create() - gives a guest a device of a type served on the kicking vCPU
 * @g: the guest, created and not yet running
 * @ops: the device type (virtio_console_ops, virtio_rng_ops)
 *
 * The device's memory comes from the guest's node. It is registered with
 * the guest: its PCI slot, BAR and restart reset. A kick is served before
 * the kicking vCPU returns to the guest.
 *
 * Return: false (reported, with the model's reason when it refuses to
 * exist) when any of that fails.
 */
bool guest_virtio_create(struct guest *g, const struct virtio_dev_ops *ops);

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
