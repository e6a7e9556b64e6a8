/* SPDX-License-Identifier: MIT */
/*
 * uplink.h - the physical NIC as the sidecores' way to the wire
 * (docs/nic.md). Sidecore q polls the NIC's queue pair q, as far as the
 * driver has pairs (the 82599 one per sidecore, the e1000 one), like a
 * guest's virtio-net device; each pair is also a port of the switch marked
 * uplink. Guests with `uplink = yes` reach their own sidecore's pair, or
 * through the rings the first one where their sidecore has none.
 */
#ifndef SIDECORE_SIDECORE_UPLINK_H
#define SIDECORE_SIDECORE_UPLINK_H

#include "config/config.h"

/**
 * uplink_probe() - find the NIC the config names and map its registers
 * @config: the parsed configuration; nothing happens without a `nic` key
 *
 * Scans the PCI buses, decodes BAR0, maps it uncached and turns on memory
 * decoding and bus mastering. Runs on the boot CPU before the APs start,
 * as the page-table change must reach them. Problems are reported with the
 * config's line and key; the hypervisor then runs without an uplink.
 */
void uplink_probe(const struct config *config);

/**
 * uplink_start() - bring the NIC up as the sidecores' uplink
 *
 * After sidecore_setup() and guests_create(): resets and starts the NIC
 * with a queue pair for each sidecore the driver has room for, each pair's
 * rings on its sidecore's node, gives it the MAC of every guest port that
 * may reach the wire (steered to that guest's sidecore's pair), and adds
 * each pair to the switch and to its sidecore. Does nothing when
 * uplink_probe() found no NIC.
 */
void uplink_start(void);

/**
 * uplink_print_summary() - the boot summary's `nic:` and `nic queue:` lines
 *
 * Nothing when no NIC was asked for; `nic: none` with the reason when one
 * was but is not in use.
 */
void uplink_print_summary(void);

#endif
