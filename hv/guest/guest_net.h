/* SPDX-License-Identifier: MIT */
/*
 * guest_net.h - a guest's virtio-net NIC: the shared glue's device
 * (guest_virtio.h) served by a sidecore, and its port on the switch.
 */
#ifndef SIDECORE_GUEST_GUEST_NET_H
#define SIDECORE_GUEST_GUEST_NET_H

#include <stdbool.h>
#include <stdint.h>

struct guest;
struct sidecore;

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
