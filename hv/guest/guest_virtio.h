/* SPDX-License-Identifier: MIT */
/*
 * guest_virtio.h - the glue of every virtio device of a guest: a device
 * model behind a virtio-pci function on the guest's bus (struct
 * guest_virtio), its MSI-X messages through the guest's one delivery path,
 * BAR accesses and the restart reset under the lock that guards it, and
 * its sidecore port when a sidecore polls it.
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
struct sidecore;

/*
 * A device model on a guest's bus: one page-rounded allocation from the
 * guest's node holds this and, after it, the model (its ops->size bytes).
 * One lock guards the function and the model: any of the guest's vCPUs may
 * reach them at once, through the BAR or through config space (the bus
 * takes it as the function's lock, vdev/vpci.h). A model served on the vCPU
 * that kicks it has a lock of its own; one a sidecore polls has the
 * sidecore's, which its pass holds (docs/data-path.md, "Locking"). The
 * model's sink and the MSI path run under it and take only the console's
 * locks.
 */
struct guest_virtio {
	struct guest *guest;
	struct sidecore *sidecore;	/* polls the model; NULL: served on the kicking vCPU */
	struct spinlock lock;		/* a vCPU-served model's */
	struct spinlock *guard;		/* the lock that guards it: lock or the sidecore's */
	struct guest_device dev;	/* in the guest's registry */
	struct guest_mem mem;
	struct log_gate log_gate;	/* the guest's bucket, for mem and pci */
	struct virtio_pci pci;
	uint64_t bad_msi;		/* MSI-X messages the guest misprogrammed */
	struct guest_msi_memo msi_memo;	/* under guard, like the messages */
	uint64_t bytes;			/* of the allocation */
	/* Undoes what the device type's glue added (a switch port, a CID); NULL: nothing. */
	void (*unlink)(struct guest_virtio *gv);
	struct virtio_dev *vdev;	/* the model, in the same allocation */
};

/**
 * guest_virtio_create() - gives a guest a virtio device
 * @g: the guest, created and not yet running
 * @sc: the sidecore that polls its port (its ops have port_ops), handed down
 *	by whoever placed the guest; NULL for a device served on the vCPU
 *	that kicks it (its ops have kick)
 * @ops: the device type (virtio_console_ops, virtio_rng_ops, virtio_vsock_ops)
 * @type: the device type's own parameters, or NULL
 *
 * The device's memory comes from the guest's node. It is registered with
 * the guest (its PCI slot, BAR and restart reset) and attached to @sc. A
 * kick of a vCPU-served device is served before the kicking vCPU returns
 * to the guest.
 *
 * Return: the device, or NULL (reported, with the model's reason when it
 * refuses to exist) when any of that fails; a device registered before the
 * failure is released by guest_device_remove_all().
 */
struct guest_virtio *guest_virtio_create(struct guest *g, struct sidecore *sc,
					 const struct virtio_dev_ops *ops, const void *type);

/**
 * guest_virtio_find() - a guest's device of a type
 * @g: the guest
 * @ops: the device type
 *
 * Return: its first device of that type, or NULL.
 */
const struct guest_virtio *guest_virtio_find(const struct guest *g,
					     const struct virtio_dev_ops *ops);

#endif
