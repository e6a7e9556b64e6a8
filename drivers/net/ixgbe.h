/* SPDX-License-Identifier: MIT */
/*
 * ixgbe.h - the Intel 82599 10 GbE driver (ixgbe.c): its nic_ops, the PCI
 * IDs it drives, and the NIC's own counters.
 *
 * Each queue pair q of nic->queues is VMDq pool q of the NIC, hardware
 * receive and transmit queue IXGBE_HW_QUEUE(q); add_mac() steers a unicast
 * MAC to one pool, broadcast and multicast reach every pool, and unicast
 * frames for a MAC no pool has are dropped by the NIC (docs/nic.md).
 */
#ifndef SIDECORE_DRIVERS_NET_IXGBE_H
#define SIDECORE_DRIVERS_NET_IXGBE_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/net/nic.h"

#define IXGBE_VENDOR_INTEL	0x8086

/* Descriptors per ring; the ring of each queue is 16 bytes a descriptor. */
#define IXGBE_RX_RING_SIZE	256
#define IXGBE_TX_RING_SIZE	256
/*
 * Every descriptor has a buffer of its own this big: a frame up to the MTU
 * fits in one, a 64 KiB TSO frame takes 33 (plus a context descriptor).
 */
#define IXGBE_BUF_SIZE		2048

/* With 64 pools of two queues (MRQC/MTQC), pool q's first queue. */
#define IXGBE_HW_QUEUE(q)	((q) * 2u)

struct ixgbe_pci_id {
	uint16_t device;
	const char *name;
};

/*
 * The 82599 parts the driver brings up, all vendor IXGBE_VENDOR_INTEL: the
 * SFP+ ones only (docs/nic.md), since the link is set up for SFI.
 */
extern const struct ixgbe_pci_id ixgbe_pci_ids[];
extern const unsigned int ixgbe_pci_id_count;

extern const struct nic_ops ixgbe_ops;

/*
 * The NIC's port-wide counters (82599 datasheet §8.2.3.23), summed since
 * init, and what the driver did to keep the port working.
 */
struct ixgbe_hw_stats {
	uint64_t rx_good;		/* GPRC */
	uint64_t rx_good_bytes;		/* GORC */
	uint64_t tx_good;		/* GPTC */
	uint64_t tx_good_bytes;		/* GOTC */
	uint64_t rx_missed;		/* MPC: no room in the packet buffer */
	uint64_t rx_crc_errors;		/* CRCERRS */
	uint64_t rx_length_errors;	/* RLEC */
	uint64_t link_retries;		/* link set up again after staying down */
	uint64_t tx_hang_resets;	/* transmit queues reset by the watchdog */
};

/* What the SFP+ module's EEPROM says it is (SFF-8472 bytes 0, 3, 6, 8, 37-39). */
enum ixgbe_sfp {
	IXGBE_SFP_NONE,			/* no module answers on I2C */
	IXGBE_SFP_UNSUPPORTED,		/* not an SFP, or neither copper nor SR/LR */
	IXGBE_SFP_DAC,			/* direct-attach copper */
	IXGBE_SFP_SR_LR,		/* 10GBASE-SR or -LR optics */
	IXGBE_SFP_INTEL_DUAL_RATE,	/* Intel 1G/10G optics: rate select needed */
};

/* The registers a person debugging a link wants, for one console line a port. */
struct ixgbe_link_report {
	uint32_t autoc;
	uint32_t autoc2;
	uint32_t esdp;
	uint32_t links;
	uint8_t sfp_id;			/* EEPROM byte 0: 0x03 is SFP/SFP+ */
	enum ixgbe_sfp sfp;
	const char *sfp_name;
};

/**
 * ixgbe_pci_supported() - whether the driver drives a PCI function.
 * @vendor: its vendor ID
 * @device: its device ID
 *
 * Return: true for the 82599 parts of ixgbe_pci_ids.
 */
bool ixgbe_pci_supported(uint16_t vendor, uint16_t device);

/**
 * ixgbe_read_hw_stats() - fold the NIC's port-wide counters into a total.
 * @nic: an initialised ixgbe NIC
 * @out: the totals since init, updated with what the clear-on-read
 *       registers counted since the last call
 *
 * Reads a handful of registers: for a status page, not the data path.
 */
void ixgbe_read_hw_stats(struct nic *nic, struct ixgbe_hw_stats *out);

/**
 * ixgbe_link_report() - the link registers and module of a port, for the console.
 * @nic: an initialised ixgbe NIC
 * @out: filled in; the module as last identified, the registers as now
 *
 * Reads four registers: at init and on a link change, not per frame.
 */
void ixgbe_link_report(struct nic *nic, struct ixgbe_link_report *out);

#endif
