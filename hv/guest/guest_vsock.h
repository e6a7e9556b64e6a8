/* SPDX-License-Identifier: MIT */
/*
 * guest_vsock.h - a guest's virtio-vsock device: the virtio-pci function on
 * its PCI bus, the device model behind it, its entry in the CID table of
 * the sidecore that serves it and its port on that sidecore.
 */
#ifndef SIDECORE_GUEST_GUEST_VSOCK_H
#define SIDECORE_GUEST_GUEST_VSOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "guest/guest_device.h"
#include "sidecore/port.h"
#include "virtio/guest_mem.h"
#include "virtio/virtio_pci.h"
#include "virtio/virtio_vsock.h"

struct guest;
struct sidecore;

struct guest_vsock {
	struct guest *guest;
	struct sidecore *sidecore;	/* polls the queues; its lock guards the device */
	struct guest_device dev;	/* in the guest's registry */
	struct sidecore_port port;	/* in the sidecore's loop */
	struct guest_mem mem;
	struct log_gate log_gate;	/* the guest's bucket, for mem and pci */
	struct virtio_pci pci;
	struct virtio_vsock vsock;
	bool needs_reset_reported;
	uint64_t bad_msi;		/* MSI-X messages the guest misprogrammed */
};

/**
 * guest_vsock_create() - gives a guest a virtio-vsock device served by a sidecore
 * @g: the guest, created and not yet running
 * @sc: the sidecore of the guest's node, handed down by whoever placed it
 * @cid: the guest's CID (the config's `cid`), 3 or more
 *
 * The device's memory comes from the guest's node. It is registered with
 * the guest (its PCI slot, BAR and restart reset), put in @sc's CID table,
 * so that the other guests @sc serves reach it, and attached to @sc.
 *
 * Return: false (reported) when any of that fails.
 */
bool guest_vsock_create(struct guest *g, struct sidecore *sc, uint32_t cid);

#endif
