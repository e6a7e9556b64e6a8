/* SPDX-License-Identifier: MIT */
/*
 * vpci.c - PCI configuration space (PCI Local Bus spec 3.0 chapter 6): type 0
 * headers with write masks, so BAR sizing (write all ones, read back the
 * mask) falls out of the masks alone.
 */
#include <string.h>

#include "vdev/vpci.h"

#define CF8_ENABLE		(1u << 31)
#define HOST_BRIDGE_CLASS	0x060000

void vpci_bus_init(struct vpci_bus *bus)
{
	memset(bus, 0, sizeof(*bus));
}

bool vpci_bus_add(struct vpci_bus *bus, unsigned int slot, struct vpci_device *dev)
{
	bool added = false;

	spin_lock(&bus->lock);
	if (slot < VPCI_SLOTS && !bus->slot[slot]) {
		bus->slot[slot] = dev;
		added = true;
	}
	spin_unlock(&bus->lock);
	return added;
}

void vpci_bus_remove(struct vpci_bus *bus, unsigned int slot)
{
	spin_lock(&bus->lock);
	if (slot < VPCI_SLOTS)
		bus->slot[slot] = NULL;
	spin_unlock(&bus->lock);
}

static void config_put(uint8_t *p, unsigned int offset, unsigned int size, uint32_t v)
{
	for (unsigned int i = 0; i < size; i++)
		p[offset + i] = (uint8_t)(v >> (8 * i));
}

void vpci_device_init(struct vpci_device *dev, uint16_t vendor, uint16_t device,
		     uint32_t class_code, uint8_t revision)
{
	memset(dev, 0, sizeof(*dev));
	config_put(dev->config, PCI_VENDOR_ID, 2, vendor);
	config_put(dev->config, PCI_DEVICE_ID, 2, device);
	config_put(dev->config, PCI_REVISION_ID, 1, revision);
	config_put(dev->config, PCI_CLASS_PROG, 3, class_code);
	config_put(dev->write_mask, PCI_COMMAND, 2,
		   PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER |
		   PCI_COMMAND_INTX_DISABLE);
}

void vpci_device_set_bar64(struct vpci_device *dev, unsigned int bar, uint64_t size,
			  uint64_t address)
{
	unsigned int offset = PCI_BASE_ADDRESS_0 + 4 * bar;
	uint64_t mask = ~(size - 1);

	config_put(dev->config, offset, 4, (uint32_t)address | PCI_BASE_ADDRESS_MEM_TYPE_64);
	config_put(dev->config, offset + 4, 4, (uint32_t)(address >> 32));
	config_put(dev->write_mask, offset, 4, (uint32_t)mask & ~0xfu);
	config_put(dev->write_mask, offset + 4, 4, (uint32_t)(mask >> 32));
}

uint64_t vpci_device_bar64(const struct vpci_device *dev, unsigned int bar)
{
	uint64_t lo = 0, hi = 0;

	memcpy(&lo, dev->config + PCI_BASE_ADDRESS_0 + 4 * bar, 4);
	memcpy(&hi, dev->config + PCI_BASE_ADDRESS_0 + 4 * bar + 4, 4);
	return (lo & ~0xfull) | hi << 32;
}

void vpci_host_bridge_init(struct vpci_device *dev)
{
	/* Intel 440FX's identity: every guest kernel knows it needs no driver. */
	vpci_device_init(dev, 0x8086, 0x1237, HOST_BRIDGE_CLASS, 2);
}

/* A function's config bytes are its own lock's too: its owner reads them (vdev/vpci.h). */
static uint32_t vpci_device_read(const struct vpci_device *dev, unsigned int offset,
				unsigned int size)
{
	uint32_t v = 0;

	if (dev->lock)
		spin_lock(dev->lock);
	for (unsigned int i = 0; i < size; i++)
		v |= (uint32_t)dev->config[offset + i] << (8 * i);
	if (dev->lock)
		spin_unlock(dev->lock);
	return v;
}

static void vpci_device_write(struct vpci_device *dev, unsigned int offset,
			     unsigned int size, uint32_t value)
{
	if (dev->lock)
		spin_lock(dev->lock);
	for (unsigned int i = 0; i < size; i++) {
		uint8_t mask = dev->write_mask[offset + i];
		uint8_t byte = (uint8_t)(value >> (8 * i));

		dev->config[offset + i] = (dev->config[offset + i] & ~mask) | (byte & mask);
	}
	if (dev->written)
		dev->written(dev, offset, size);
	if (dev->lock)
		spin_unlock(dev->lock);
}

/* Accesses must be naturally aligned and inside the 256-byte header space. */
static struct vpci_device *vpci_lookup(struct vpci_bus *bus, unsigned int busno,
				     unsigned int slot, unsigned int function,
				     unsigned int offset, unsigned int size)
{
	if (busno || function || slot >= VPCI_SLOTS || offset + size > PCI_CFG_SPACE_SIZE ||
	    (size != 1 && size != 2 && size != 4) || offset % size)
		return NULL;
	return bus->slot[slot];
}

static uint32_t vpci_all_ones(unsigned int size)
{
	return size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
}

/*
 * The latch is read once: slot, register and the bounds check all come
 * from the same value.
 */
static struct vpci_device *vpci_cf8_target(struct vpci_bus *bus, uint16_t port,
					 unsigned int size, unsigned int *offset)
{
	uint32_t a = bus->config_address;

	if (!(a & CF8_ENABLE))
		return NULL;
	*offset = (a & 0xfc) + (port - VPCI_CONFIG_DATA_PORT);
	return vpci_lookup(bus, (a >> 16) & 0xff, (a >> 11) & 0x1f, (a >> 8) & 7,
			  *offset, size);
}

static uint32_t vpci_io_read_locked(struct vpci_bus *bus, uint16_t port, unsigned int size)
{
	struct vpci_device *dev;
	unsigned int offset;

	if (port == VPCI_CONFIG_ADDRESS_PORT && size == 4)
		return bus->config_address;
	if (port < VPCI_CONFIG_DATA_PORT || port + size > VPCI_CONFIG_DATA_PORT + 4)
		return vpci_all_ones(size);
	dev = vpci_cf8_target(bus, port, size, &offset);
	return dev ? vpci_device_read(dev, offset, size) : vpci_all_ones(size);
}

static void vpci_io_write_locked(struct vpci_bus *bus, uint16_t port, unsigned int size,
				uint32_t value)
{
	struct vpci_device *dev;
	unsigned int offset;

	if (port == VPCI_CONFIG_ADDRESS_PORT && size == 4) {
		bus->config_address = value & 0x80fffffc;
		return;
	}
	if (port < VPCI_CONFIG_DATA_PORT || port + size > VPCI_CONFIG_DATA_PORT + 4)
		return;
	dev = vpci_cf8_target(bus, port, size, &offset);
	if (dev)
		vpci_device_write(dev, offset, size, value);
}

/* ECAM: bus << 20 | device << 15 | function << 12 | register (PCIe 3.0 §7.2.2). */
static struct vpci_device *vpci_ecam_target(struct vpci_bus *bus, uint64_t offset,
					  unsigned int size)
{
	return vpci_lookup(bus, (unsigned int)(offset >> 20), (offset >> 15) & 0x1f,
			  (offset >> 12) & 7, offset & 0xfff, size);
}

static uint32_t vpci_ecam_read_locked(struct vpci_bus *bus, uint64_t offset, unsigned int size)
{
	struct vpci_device *dev = vpci_ecam_target(bus, offset, size);

	if (dev)
		return vpci_device_read(dev, offset & 0xfff, size);
	/*
	 * A present function's extended space (0x100-0xfff) holds no
	 * capabilities: it reads 0. Anything else is absent: all ones.
	 */
	dev = vpci_ecam_target(bus, offset & ~0xfffull, 1);
	return dev && (offset & 0xfff) >= PCI_CFG_SPACE_SIZE ? 0 : vpci_all_ones(size);
}

static void vpci_ecam_write_locked(struct vpci_bus *bus, uint64_t offset, unsigned int size,
				  uint32_t value)
{
	struct vpci_device *dev = vpci_ecam_target(bus, offset, size);

	if (dev)
		vpci_device_write(dev, offset & 0xfff, size, value);
}

/**
 * vpci_io_read() - a guest's IN from CF8-CFF
 * @bus: the guest's bus
 * @port: 0xcf8 (the address latch, dword only) or 0xcfc-0xcff (data)
 * @size: 1, 2 or 4 bytes
 *
 * Return: the register through the latched address; all ones for an
 * absent function, a disabled latch or a misaligned access.
 */
uint32_t vpci_io_read(struct vpci_bus *bus, uint16_t port, unsigned int size)
{
	uint32_t value;

	spin_lock(&bus->lock);
	value = vpci_io_read_locked(bus, port, size);
	spin_unlock(&bus->lock);
	return value;
}

/**
 * vpci_io_write() - a guest's OUT to CF8-CFF
 * @bus: the guest's bus
 * @port: 0xcf8 (the address latch, dword only) or 0xcfc-0xcff (data)
 * @size: 1, 2 or 4 bytes
 * @value: the value, in its low @size bytes
 *
 * A data write changes only the target's writable bits, then runs its
 * written hook with the bus lock held.
 */
void vpci_io_write(struct vpci_bus *bus, uint16_t port, unsigned int size, uint32_t value)
{
	spin_lock(&bus->lock);
	vpci_io_write_locked(bus, port, size, value);
	spin_unlock(&bus->lock);
}

/**
 * vpci_ecam_read() - a guest's load from the ECAM window
 * @bus: the guest's bus
 * @offset: offset into the window
 * @size: 1, 2 or 4 bytes, naturally aligned
 *
 * Return: the register's value, 0 in a present function's extended space,
 * all ones elsewhere.
 */
uint32_t vpci_ecam_read(struct vpci_bus *bus, uint64_t offset, unsigned int size)
{
	uint32_t value;

	spin_lock(&bus->lock);
	value = vpci_ecam_read_locked(bus, offset, size);
	spin_unlock(&bus->lock);
	return value;
}

/**
 * vpci_ecam_write() - a guest's store to the ECAM window
 * @bus: the guest's bus
 * @offset: offset into the window
 * @size: 1, 2 or 4 bytes, naturally aligned
 * @value: the value, in its low @size bytes
 *
 * Like vpci_io_write(), with the address in the offset instead of the latch.
 */
void vpci_ecam_write(struct vpci_bus *bus, uint64_t offset, unsigned int size, uint32_t value)
{
	spin_lock(&bus->lock);
	vpci_ecam_write_locked(bus, offset, size, value);
	spin_unlock(&bus->lock);
}
