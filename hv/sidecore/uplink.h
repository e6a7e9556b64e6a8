/* SPDX-License-Identifier: MIT */
/*
 * uplink.h - the physical NIC as the sidecores' way to the wire
 * (docs/nic.md). Its queue pair is a port of sidecore 0, polled like a
 * guest's virtio-net device, and a port of the switch marked uplink; guests
 * with `uplink = yes` reach it, those of other sidecores through the rings.
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
 * uplink_start() - bring the NIC up as sidecore 0's uplink
 *
 * After sidecore_setup() and guests_create(): resets and starts the NIC
 * with its rings on sidecore 0's node, gives it the MAC of every guest port
 * that may reach the wire, and adds its queue pair to the switch and to
 * sidecore 0. Does nothing when uplink_probe() found no NIC.
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
