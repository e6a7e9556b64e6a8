/* SPDX-License-Identifier: MIT */
/*
 * guest_vsock.h - a guest's virtio-vsock device: the shared glue's device
 * (guest_virtio.h) served by a sidecore, and its entry in the CID table
 * through which every guest's device reaches it.
 */
#ifndef SIDECORE_GUEST_GUEST_VSOCK_H
#define SIDECORE_GUEST_GUEST_VSOCK_H

#include <stdbool.h>
#include <stdint.h>

struct guest;
struct sidecore;

/**
 * guest_vsock_create() - gives a guest a virtio-vsock device served by a sidecore
 * @g: the guest, created and not yet running
 * @sc: the sidecore of the guest's node, handed down by whoever placed it
 * @cid: the guest's CID (the config's `cid`), 3 or more
 *
 * The device's memory comes from the guest's node. It is registered with
 * the guest (its PCI slot, BAR and restart reset), put in the CID table,
 * so that the other guests reach it, and attached to @sc.
 *
 * Return: false (reported) when any of that fails.
 */
bool guest_vsock_create(struct guest *g, struct sidecore *sc, uint32_t cid);

#endif
