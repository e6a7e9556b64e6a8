/* SPDX-License-Identifier: MIT */
/*
 * guest_net.h - a guest's virtio-net NIC: the virtio-pci function on its
 * PCI bus, the device model behind it, its port on the switch and on the
 * sidecore that serves it.
 */
#ifndef SIDECORE_GUEST_GUEST_NET_H
#define SIDECORE_GUEST_GUEST_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "guest/guest_device.h"
#include "sidecore/port.h"
#include "virtio/guest_mem.h"
#include "virtio/virtio_net.h"
#include "virtio/virtio_pci.h"

struct guest;
struct sidecore;

struct guest_net {
	struct guest *guest;
	struct sidecore *sidecore;	/* polls the queues; its lock guards the device */
	struct guest_device dev;	/* in the guest's registry */
	struct sidecore_port port;	/* in the sidecore's loop */
	struct guest_mem mem;
	struct log_gate log_gate;	/* the guest's bucket, for mem and pci */
	struct virtio_pci_device_ops ops;	/* features and queues follow the vCPU count */
	struct virtio_pci pci;
	struct virtio_net net;
	bool needs_reset_reported;
	uint64_t bad_msi;		/* MSI-X messages the guest misprogrammed */
};

/**
 * guest_net_create() - gives a guest a virtio-net NIC served by a sidecore
 * @g: the guest, created and not yet running
 * @sc: the sidecore of the guest's node, handed down by whoever placed it
 * @mac: the NIC's address (the config's)
 * @wire: whether the guest may exchange frames with the uplink (`uplink = yes`)
 * @storm: its broadcast and multicast frames and bytes a second
 *         (`broadcast_limit`); { 0, 0 }: no limit
 *
 * The device's memory comes from the guest's node. It is registered with
 * the guest (its PCI slot, BAR and restart reset), gets a port on the
 * switch, and is attached to @sc. It offers a receive and transmit queue
 * pair per vCPU (VIRTIO_NET_F_MQ, up to VIRTIO_NET_MAX_PAIRS), and one pair
 * without a control queue to a guest of one vCPU.
 *
 * Return: false (reported) when any of that fails.
 */
bool guest_net_create(struct guest *g, struct sidecore *sc, const uint8_t mac[6], bool wire,
		      const uint32_t storm[2]);

/**
 * guest_net_print_own_counters() - print the counters of a guest's own NIC
 * @g: the guest
 *
 * The port's line and its queue lines, as the counters snapshot prints
 * them (docs/data-path.md, "Counters"), for @g's NIC alone; nothing when
 * it has none.
 */
void guest_net_print_own_counters(const struct guest *g);

#endif
