/* SPDX-License-Identifier: MIT */
/*
 * guest_net.h - a guest's virtio-net NIC: the virtio-pci function on its
 * PCI bus, the device model behind it, and its port on the switch.
 */
#ifndef SIDECORE_VM_GUEST_NET_H
#define SIDECORE_VM_GUEST_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "virtio/guest_mem.h"
#include "virtio/virtio_net.h"
#include "virtio/virtio_pci.h"

#define GUEST_NET_PCI_SLOT	1

struct guest;
struct spinlock;

/*
 * The sidecore that polls a NIC's queues, as the NIC sees it. Whoever
 * places the guest (core/guests.c) hands it down: the vm layer never calls
 * up into the sidecore.
 */
struct guest_net_sidecore {
	unsigned int index;		/* the switch's sidecore number */
	struct net_switch *sw;
	struct spinlock *lock;		/* held for each poll pass; guards the device */
	uint64_t tx_holdoff;		/* TSC ticks a transmit completion may wait */
	void (*wake)(void *ctx);	/* the device went live: leave HLT */
	void *ctx;			/* wake's */
};

struct guest_net {
	struct guest *guest;
	struct guest_net_sidecore sidecore;	/* polls the queues */
	struct guest_mem mem;
	struct virtio_pci pci;
	struct virtio_net net;
	bool needs_reset_reported;
	uint64_t bad_msi;		/* MSI-X messages the guest misprogrammed */
};

/*
 * Puts the NIC on g's PCI bus and its port on sidecore->sw, served by
 * sidecore (copied). False (reported) on failure.
 */
bool guest_net_create(struct guest_net *gn, struct guest *g,
		      const struct guest_net_sidecore *sidecore, const uint8_t mac[6]);
/* Resets the device to its power-on state (guest restart). */
void guest_net_reset(struct guest_net *gn);
/*
 * An access of size bytes at gpa in the PCI MMIO window, from the vCPU.
 * Returns false when no BAR is there. *notify is set for a doorbell write.
 */
bool guest_net_mmio(struct guest_net *gn, uint64_t gpa, unsigned int size, bool write,
		    uint64_t *value, bool *notify);
/* The sidecore's half, under its lock: forward up to budget transmitted packets. */
unsigned int guest_net_poll(struct guest_net *gn, unsigned int budget);
/* After a poll pass at TSC now: publish what is due (virtio_net_flush()), report a broken device. */
void guest_net_flush(struct guest_net *gn, uint64_t now);
bool guest_net_active(const struct guest_net *gn);

#endif
