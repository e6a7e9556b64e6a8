/* SPDX-License-Identifier: MIT */
/*
 * vpci.h - a guest's PCI bus 0: configuration space through the CF8/CFC
 * ports and through ECAM, for the host bridge and the emulated devices.
 *
 * Every vCPU of a guest may reach its bus at once. The bus lock makes each
 * configuration access atomic, as a host bridge does: the CF8 latch, the
 * slot table and the config[] bytes a guest access reads or writes are
 * touched only under it, and a device's written hook runs inside it, so the
 * hook must not call back into the bus. A function whose state another
 * core also touches (the virtio-net function, which its sidecore updates,
 * config bytes included) names that lock as its own: the bus takes it
 * inside the bus lock around each access to the function's config space
 * and its written hook (hv/guest/guest_net.c). Its owner never takes the bus
 * lock while holding it.
 */
#ifndef SIDECORE_VDEV_VPCI_H
#define SIDECORE_VDEV_VPCI_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/pci_regs.h>

#include "arch/spinlock.h"

#define VPCI_SLOTS		32
#define VPCI_CONFIG_ADDRESS_PORT	0xcf8
#define VPCI_CONFIG_DATA_PORT	0xcfc

struct vpci_device;

/* Called after the guest wrote config space (e.g. to move a BAR), bus lock held. */
typedef void (*vpci_config_written_fn)(struct vpci_device *dev, unsigned int offset,
				      unsigned int size);

struct vpci_device {
	uint8_t config[PCI_CFG_SPACE_SIZE];
	uint8_t write_mask[PCI_CFG_SPACE_SIZE];	/* bits the guest may change */
	vpci_config_written_fn written;
	void *ctx;
	struct spinlock *lock;			/* the function's own (above), or NULL */
};

struct vpci_bus {
	struct spinlock lock;		/* guards the fields below and the devices' config */
	struct vpci_device *slot[VPCI_SLOTS];
	uint32_t config_address;	/* last value written to CF8 */
};

/**
 * vpci_bus_init() - bring up an empty bus
 * @bus: the bus; its old contents are lost
 *
 * Every slot starts empty, the CF8 latch disabled and the lock free.
 */
void vpci_bus_init(struct vpci_bus *bus);

/**
 * vpci_bus_add() - put a function on the bus
 * @bus: the bus
 * @slot: the device number, below VPCI_SLOTS
 * @dev: the function, set up with vpci_device_init(); it stays the caller's
 *
 * Return: true when @dev now answers at @slot; false, changing nothing,
 * when @slot is out of range or already taken.
 */
bool vpci_bus_add(struct vpci_bus *bus, unsigned int slot, struct vpci_device *dev);

/**
 * vpci_bus_remove() - take a function off the bus
 * @bus: the bus
 * @slot: where the function answers; an empty or out-of-range slot stays as it is
 */
void vpci_bus_remove(struct vpci_bus *bus, unsigned int slot);

/* Accesses through CF8-CFF; size is 1, 2 or 4. Unclaimed reads are all ones. */
uint32_t vpci_io_read(struct vpci_bus *bus, uint16_t port, unsigned int size);
void vpci_io_write(struct vpci_bus *bus, uint16_t port, unsigned int size, uint32_t value);
/* Accesses at offset into the ECAM window (bus 0 only). */
uint32_t vpci_ecam_read(struct vpci_bus *bus, uint64_t offset, unsigned int size);
void vpci_ecam_write(struct vpci_bus *bus, uint64_t offset, unsigned int size, uint32_t value);

/**
 * vpci_device_init() - fill in a function's identity
 * @dev: the function; its old contents are lost
 * @vendor: the Vendor ID
 * @device: the Device ID
 * @class_code: base class, subclass and programming interface, bits 23:0
 * @revision: the Revision ID
 *
 * The rest of the type 0 header reads 0, and the guest may change only
 * COMMAND's I/O, memory, bus master and INTx disable bits. The written
 * hook, ctx and lock start NULL; BARs are added with vpci_device_set_bar64().
 */
void vpci_device_init(struct vpci_device *dev, uint16_t vendor, uint16_t device,
		     uint32_t class_code, uint8_t revision);

/**
 * vpci_device_set_bar64() - give a function a 64-bit memory BAR
 * @dev: the function
 * @bar: the BAR number of the low half, 0 to 4; @bar + 1 holds the high half
 * @size: the BAR's size in bytes, a power of two of 16 or more
 * @address: where it starts, aligned to @size
 *
 * The write mask lets the guest size the BAR and move it to any
 * @size-aligned address.
 */
void vpci_device_set_bar64(struct vpci_device *dev, unsigned int bar, uint64_t size,
			  uint64_t address);

/**
 * vpci_device_bar64() - where a 64-bit memory BAR is now
 * @dev: the function
 * @bar: the BAR number of the low half, as given to vpci_device_set_bar64()
 *
 * Return: the base address the guest last left in the BAR pair, without
 * the type bits, whether or not COMMAND enables memory decoding.
 */
uint64_t vpci_device_bar64(const struct vpci_device *dev, unsigned int bar);

/**
 * vpci_host_bridge_init() - set up the host bridge for slot 0
 * @dev: the function; its old contents are lost
 *
 * Gives it the Intel 440FX's identity, which every guest kernel knows to
 * need no driver, and no BARs.
 */
void vpci_host_bridge_init(struct vpci_device *dev);

#endif
