/* SPDX-License-Identifier: MIT */
/*
 * e1000.h - the Intel 82540EM (PCI 8086:100e) driver, the NIC Bochs and QEMU
 * emulate: a sidecore's uplink when the hypervisor runs in an emulator.
 *
 * One queue pair, polled, no interrupts. Receive uses legacy descriptors
 * with 2 KiB buffers, one frame per descriptor; transmit copies each frame
 * into a 2 KiB buffer of the driver's. Checksum offload goes to the NIC
 * through a context descriptor; TSO is cut in software (sw_offload.c), each
 * segment's TCP checksum still left to the NIC, because the emulators'
 * segmentation is wrong for IPv6 and adds an empty segment when the payload
 * is a multiple of the MSS (docs/nic-e1000.md).
 *
 * add_mac() takes a receive address register (RAR) per MAC; when none is
 * left (16 on the 82540EM, 4 in Bochs) the NIC goes unicast promiscuous
 * (RCTL.UPE) and add_mac() still succeeds: with one queue there is nothing
 * to steer, and the switch drops frames for MACs it does not know.
 */
#ifndef SIDECORE_DRIVERS_NET_E1000_H
#define SIDECORE_DRIVERS_NET_E1000_H

#include <stdint.h>

#include "drivers/net/nic.h"

#define E1000_PCI_VENDOR_INTEL	0x8086
#define E1000_PCI_DEVICE_82540EM 0x100e

#define E1000_RX_RING		256	/* descriptors per ring */
#define E1000_TX_RING		256
#define E1000_BUF_SIZE		2048	/* per descriptor, RCTL.BSIZE 2048 */
/* The longest frame sent: Ethernet header, one 802.1Q tag, the MTU. */
#define E1000_TX_FRAME_MAX	(ETH_HLEN + NET_VLAN_HLEN + NET_MTU)

/**
 * e1000_pci_supported() - whether e1000_ops drives a PCI function
 * @vendor: its vendor ID
 * @device: its device ID
 *
 * Return: true for the 82540EM (8086:100e), what Bochs and QEMU emulate.
 */
bool e1000_pci_supported(uint16_t vendor, uint16_t device);

extern const struct nic_ops e1000_ops;

#endif
