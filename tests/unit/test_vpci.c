/* SPDX-License-Identifier: MIT */
/*
 * test_vpci.c - unit tests for hv/vdev/vpci.c: configuration mechanism #1
 * (CF8/CFC, PCI Local Bus spec 3.0 §3.2.2.3.2), ECAM offsets (PCIe §7.2.2),
 * absent functions, write masks and 64-bit BAR sizing (PCI 3.0 §6.2.5.1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vdev/vpci.h"

#define DEV_SLOT	3
#define DEV_VENDOR	0x1af4
#define DEV_DEVICE	0x1041
#define DEV_CLASS	0x020000	/* Ethernet controller */
#define DEV_REVISION	0x01
#define BAR0_SIZE	0x4000ull		/* 16 KiB */
#define BAR0_ADDRESS	0xfe000000ull
#define BAR2_SIZE	0x200000000ull		/* 8 GiB: mask reaches the high half */
#define BAR2_ADDRESS	0x4000000000ull

/* Bus 0: the host bridge in slot 0, a device with two 64-bit BARs in slot 3. */
struct fixture {
	struct vpci_bus bus;
	struct vpci_device bridge, dev;
	unsigned int calls;
	unsigned int last_offset, last_size;
	struct vpci_device *last_dev;
};

static void record_write(struct vpci_device *dev, unsigned int offset, unsigned int size)
{
	struct fixture *f = dev->ctx;

	f->calls++;
	f->last_dev = dev;
	f->last_offset = offset;
	f->last_size = size;
}

static int fixture_setup(void **state)
{
	struct fixture *f = test_calloc(1, sizeof(*f));

	if (!f)
		return -1;
	vpci_bus_init(&f->bus);
	vpci_host_bridge_init(&f->bridge);
	vpci_device_init(&f->dev, DEV_VENDOR, DEV_DEVICE, DEV_CLASS, DEV_REVISION);
	vpci_device_set_bar64(&f->dev, 0, BAR0_SIZE, BAR0_ADDRESS);
	vpci_device_set_bar64(&f->dev, 2, BAR2_SIZE, BAR2_ADDRESS);
	f->dev.written = record_write;
	f->dev.ctx = f;
	if (!vpci_bus_add(&f->bus, 0, &f->bridge) || !vpci_bus_add(&f->bus, DEV_SLOT, &f->dev))
		return -1;
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	test_free(*state);
	return 0;
}

static uint32_t cf8(unsigned int bus, unsigned int slot, unsigned int function,
		    unsigned int reg)
{
	return 1u << 31 | bus << 16 | slot << 11 | function << 8 | reg;
}

static uint64_t ecam(unsigned int bus, unsigned int slot, unsigned int function,
		     unsigned int reg)
{
	return (uint64_t)bus << 20 | slot << 15 | function << 12 | reg;
}

/* A configuration read the way Linux's pci_conf1_read() does it. */
static uint32_t conf1_read(struct vpci_bus *bus, unsigned int slot, unsigned int reg,
			   unsigned int size)
{
	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, slot, 0, reg & 0xfc));
	return vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + (reg & 3), size);
}

static void conf1_write(struct vpci_bus *bus, unsigned int slot, unsigned int reg,
			unsigned int size, uint32_t value)
{
	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, slot, 0, reg & 0xfc));
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT + (reg & 3), size, value);
}

/* --- the bus --------------------------------------------------------------- */

static void test_bus_add(void **state)
{
	struct fixture *f = *state;
	struct vpci_device other;

	vpci_device_init(&other, 0x1234, 0x5678, 0, 0);
	assert_false(vpci_bus_add(&f->bus, DEV_SLOT, &other));	/* taken */
	assert_false(vpci_bus_add(&f->bus, VPCI_SLOTS, &other));
	assert_true(vpci_bus_add(&f->bus, VPCI_SLOTS - 1, &other));
	assert_int_equal(vpci_ecam_read(&f->bus, ecam(0, VPCI_SLOTS - 1, 0, 0), 4), 0x56781234);
}

static void test_host_bridge_identity(void **state)
{
	struct fixture *f = *state;

	/* Intel 440FX, host bridge class 06/00/00, revision 2, type 0 header. */
	assert_int_equal(conf1_read(&f->bus, 0, PCI_VENDOR_ID, 4), 0x12378086);
	assert_int_equal(conf1_read(&f->bus, 0, PCI_CLASS_REVISION, 4), 0x06000002);
	assert_int_equal(conf1_read(&f->bus, 0, PCI_HEADER_TYPE, 1), 0);
	assert_int_equal(conf1_read(&f->bus, 0, PCI_STATUS, 2), 0);
	assert_int_equal(conf1_read(&f->bus, 0, PCI_CAPABILITY_LIST, 1), 0);
}

/* --- CF8/CFC --------------------------------------------------------------- */

static void test_cf8_latch(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4), 0);
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 0, 0x10));
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4),
			 cf8(0, DEV_SLOT, 0, 0x10));
	/* Reserved bits 30:24 and the two low bits read as zero. */
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4, 0xffffffff);
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4), 0x80fffffc);
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4, 0x7f000003);
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4), 0);
	/* Only a dword access reaches CONFIG_ADDRESS (0xcf9 is another register). */
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 0, 0));
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 1, 0x44);
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 2, 0x4444);
	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT + 1, 1, 0x06);
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4), cf8(0, DEV_SLOT, 0, 0));
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 1), 0xff);
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 2), 0xffff);
}

/* With the enable bit clear, CFC goes nowhere. */
static void test_cf8_enable_bit(void **state)
{
	struct fixture *f = *state;

	vpci_io_write(&f->bus, VPCI_CONFIG_ADDRESS_PORT, 4,
		     cf8(0, DEV_SLOT, 0, PCI_COMMAND) & ~(1u << 31));
	assert_int_equal(vpci_io_read(&f->bus, VPCI_CONFIG_DATA_PORT, 4), 0xffffffff);
	vpci_io_write(&f->bus, VPCI_CONFIG_DATA_PORT, 2, 0x0006);
	assert_int_equal(f->calls, 0);
	assert_int_equal(conf1_read(&f->bus, DEV_SLOT, PCI_COMMAND, 2), 0);
}

/* CFC+n reads register byte (reg & ~3) + n, in 1-, 2- and 4-byte accesses. */
static void test_cfc_access_sizes(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;
	uint32_t id = DEV_DEVICE << 16 | DEV_VENDOR;

	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 0, 0));
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 4), id);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 2), DEV_VENDOR);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 2, 2), DEV_DEVICE);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + i, 1),
				 (id >> 8 * i) & 0xff);
	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 0, PCI_CLASS_REVISION));
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 4), DEV_CLASS << 8 | DEV_REVISION);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 3, 1), DEV_CLASS >> 16);
	/* The same bytes through the helpers and through ECAM. */
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_DEVICE_ID, 2), DEV_DEVICE);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_DEVICE_ID), 2), DEV_DEVICE);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_CLASS_PROG + 2), 1),
			 DEV_CLASS >> 16);
}

/* Misaligned or straddling accesses are not configuration cycles. */
static void test_cfc_misaligned(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 0, PCI_COMMAND));
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 1, 2), 0xffff);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 3, 2), 0xffff);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 2, 4), 0xffffffff);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 1, 4), 0xffffffff);
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT + 1, 2, 0xffff);
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT + 3, 2, 0xffff);
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT + 2, 4, 0xffffffff);
	assert_int_equal(f->calls, 0);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_COMMAND, 4), 0);
	/* Sizes other than 1, 2 and 4 are refused too. */
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 3), 0xffffff);
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT, 3, 0xffffff);
	assert_int_equal(f->calls, 0);
}

/* Ports around CF8-CFF that are not CONFIG_DATA read all ones and ignore writes. */
static void test_ports_outside_data_window(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 0, PCI_COMMAND));
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT - 1, 1), 0xff);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 4, 1), 0xff);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 4, 4), 0xffffffff);
	assert_int_equal(vpci_io_read(bus, 0xcf0, 4), 0xffffffff);
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT + 4, 2, 0x0006);
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT - 2, 2, 0x0006);
	assert_int_equal(f->calls, 0);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 2), 0);
}

/* Nothing answers for an empty slot, another function, or another bus. */
static void test_absent_functions_read_all_ones(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, 7, 0, 0));
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 4), 0xffffffff);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 2), 0xffff);
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT + 3, 1), 0xff);
	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 1, 0));
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 4), 0xffffffff);
	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(1, DEV_SLOT, 0, 0));
	assert_int_equal(vpci_io_read(bus, VPCI_CONFIG_DATA_PORT, 4), 0xffffffff);
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT, 4, 0);
	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 7, PCI_COMMAND));
	vpci_io_write(bus, VPCI_CONFIG_DATA_PORT, 2, 0x0006);
	assert_int_equal(f->calls, 0);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_COMMAND, 2), 0);
}

/* --- ECAM ----------------------------------------------------------------------- */

static void test_ecam_offsets(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	assert_int_equal(vpci_ecam_read(bus, ecam(0, 0, 0, 0), 4), 0x12378086);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, 0), 4),
			 DEV_DEVICE << 16 | DEV_VENDOR);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_CLASS_REVISION), 4),
			 DEV_CLASS << 8 | DEV_REVISION);
	/* Another slot, function or bus: absent. */
	assert_int_equal(vpci_ecam_read(bus, ecam(0, 4, 0, 0), 4), 0xffffffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 1, 0), 4), 0xffffffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 7, 0), 2), 0xffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(1, DEV_SLOT, 0, 0), 4), 0xffffffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(255, 0, 0, 0), 1), 0xff);
	/* Misaligned: not a configuration access. */
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, 1), 2), 0xffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, 2), 4), 0xffffffff);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, PCI_COMMAND + 1), 2, 0xffff);
	vpci_ecam_write(bus, ecam(1, DEV_SLOT, 0, PCI_COMMAND), 2, 0xffff);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 1, PCI_COMMAND), 2, 0xffff);
	assert_int_equal(f->calls, 0);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_COMMAND), 2), 0);
}

/*
 * Extended space (0x100-0xfff) of a present function holds no capabilities:
 * it reads 0, which ends Linux's extended-capability walk. Of an absent
 * function it reads all ones like the rest.
 */
static void test_ecam_extended_space(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, 0x100), 4), 0);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, 0xffc), 4), 0);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, 0, 0, 0x100), 4), 0);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, 4, 0, 0x100), 4), 0xffffffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 1, 0x100), 4), 0xffffffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(1, DEV_SLOT, 0, 0x100), 4), 0xffffffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(2, 0, 0, 0x800), 2), 0xffff);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, 0x100), 4, 0xffffffff);
	assert_int_equal(f->calls, 0);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, 0x100), 4), 0);
}

/* --- BARs -------------------------------------------------------------------------- */

/* Linux's __pci_read_base(): save, write all ones, read the mask, restore. */
static uint64_t bar64_size(struct vpci_bus *bus, unsigned int reg)
{
	uint32_t lo, hi, mask_lo, mask_hi;
	uint64_t mask;

	lo = conf1_read(bus, DEV_SLOT, reg, 4);
	hi = conf1_read(bus, DEV_SLOT, reg + 4, 4);
	conf1_write(bus, DEV_SLOT, reg, 4, 0xffffffff);
	conf1_write(bus, DEV_SLOT, reg + 4, 4, 0xffffffff);
	mask_lo = conf1_read(bus, DEV_SLOT, reg, 4);
	mask_hi = conf1_read(bus, DEV_SLOT, reg + 4, 4);
	conf1_write(bus, DEV_SLOT, reg, 4, lo);
	conf1_write(bus, DEV_SLOT, reg + 4, 4, hi);
	assert_int_equal(mask_lo & 0xf, PCI_BASE_ADDRESS_MEM_TYPE_64);
	mask = (uint64_t)mask_hi << 32 | (mask_lo & ~0xfu);
	return ~mask + 1;
}

static void test_bar64_initial_value(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(vpci_device_bar64(&f->dev, 0), BAR0_ADDRESS);
	assert_int_equal(vpci_device_bar64(&f->dev, 2), BAR2_ADDRESS);
	assert_int_equal(conf1_read(&f->bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4),
			 (uint32_t)BAR0_ADDRESS | PCI_BASE_ADDRESS_MEM_TYPE_64);
	assert_int_equal(conf1_read(&f->bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 4, 4), 0);
	assert_int_equal(conf1_read(&f->bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 8, 4), PCI_BASE_ADDRESS_MEM_TYPE_64);
	assert_int_equal(conf1_read(&f->bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 12, 4), BAR2_ADDRESS >> 32);
	/* BARs 4 and 5 are unimplemented: hard-wired to zero. */
	conf1_write(&f->bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 16, 4, 0xffffffff);
	assert_int_equal(conf1_read(&f->bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 16, 4), 0);
}

static void test_bar64_sizing(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4, 0xffffffff);
	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 4, 4, 0xffffffff);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4),
			 (uint32_t)~(BAR0_SIZE - 1) | PCI_BASE_ADDRESS_MEM_TYPE_64);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 4, 4), 0xffffffff);
	/* An 8 GiB BAR has no address bits in its low half. */
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, PCI_BASE_ADDRESS_0 + 8), 4, 0xffffffff);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, PCI_BASE_ADDRESS_0 + 12), 4, 0xffffffff);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_BASE_ADDRESS_0 + 8), 4), PCI_BASE_ADDRESS_MEM_TYPE_64);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_BASE_ADDRESS_0 + 12), 4), 0xfffffffe);

	/* Program addresses and read them back as the device model sees them. */
	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4, 0xc0004000);
	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 4, 4, 0x00000001);
	assert_int_equal(vpci_device_bar64(&f->dev, 0), 0x1c0004000ull);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4), 0xc0004000 | PCI_BASE_ADDRESS_MEM_TYPE_64);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, PCI_BASE_ADDRESS_0 + 8), 4, 0);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, PCI_BASE_ADDRESS_0 + 12), 4, 0x00000006);
	assert_int_equal(vpci_device_bar64(&f->dev, 2), 0x600000000ull);
	/* The other BAR did not move. */
	assert_int_equal(vpci_device_bar64(&f->dev, 0), 0x1c0004000ull);
}

static void test_bar64_sizing_restores(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(bar64_size(&f->bus, PCI_BASE_ADDRESS_0), BAR0_SIZE);
	assert_int_equal(bar64_size(&f->bus, PCI_BASE_ADDRESS_0 + 8), BAR2_SIZE);
	assert_int_equal(vpci_device_bar64(&f->dev, 0), BAR0_ADDRESS);
	assert_int_equal(vpci_device_bar64(&f->dev, 2), BAR2_ADDRESS);
}

/* Address bits below the size and the type bits cannot be written. */
static void test_bar64_alignment_and_type(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4, 0xfe0012ff);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4), 0xfe000000 | PCI_BASE_ADDRESS_MEM_TYPE_64);
	assert_int_equal(vpci_device_bar64(&f->dev, 0), 0xfe000000);
	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4, 0);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4), PCI_BASE_ADDRESS_MEM_TYPE_64);
	/* Byte and word writes obey the same mask. */
	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 1, 1, 0xff);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 4), 0x0000c004);
	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0 + 2, 2, 0xabcd);
	assert_int_equal(vpci_device_bar64(&f->dev, 0), 0xabcdc000);
	conf1_write(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 1, 0xff);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_BASE_ADDRESS_0, 1), PCI_BASE_ADDRESS_MEM_TYPE_64);
}

/* --- write masks ------------------------------------------------------------------- */

static void test_read_only_fields(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;
	uint8_t before[PCI_CFG_SPACE_SIZE];

	memcpy(before, f->dev.config, sizeof(before));
	for (unsigned int reg = 0; reg < PCI_CFG_SPACE_SIZE; reg += 4) {
		if (reg == PCI_COMMAND || (reg >= PCI_BASE_ADDRESS_0 && reg < PCI_BASE_ADDRESS_0 + 16))
			continue;
		conf1_write(bus, DEV_SLOT, reg, 4, 0xffffffff);
		vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, reg), 2, 0x5a5a);
		vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, reg + 3), 1, 0x00);
	}
	assert_memory_equal(f->dev.config, before, sizeof(before));
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_VENDOR_ID, 2), DEV_VENDOR);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_DEVICE_ID, 2), DEV_DEVICE);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_CLASS_REVISION, 4),
			 DEV_CLASS << 8 | DEV_REVISION);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_HEADER_TYPE, 1), 0);

	/* The host bridge has no writable bits but the command register's. */
	memcpy(before, f->bridge.config, sizeof(before));
	for (unsigned int reg = 0; reg < PCI_CFG_SPACE_SIZE; reg += 4)
		if (reg != PCI_COMMAND)
			conf1_write(bus, 0, reg, 4, 0xffffffff);
	assert_memory_equal(f->bridge.config, before, sizeof(before));
}

/* Command: I/O, memory, bus master and INTx disable are writable; status is not. */
static void test_command_register_mask(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	conf1_write(bus, DEV_SLOT, PCI_COMMAND, 4, 0xffffffff);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_COMMAND, 4), 0x00000407);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_STATUS, 2), 0);
	conf1_write(bus, DEV_SLOT, PCI_COMMAND, 2, 0x0002);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_COMMAND, 2), 0x0002);
	conf1_write(bus, DEV_SLOT, PCI_COMMAND + 1, 1, 0xff);
	assert_int_equal(conf1_read(bus, DEV_SLOT, PCI_COMMAND, 2), 0x0402);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, PCI_COMMAND), 1, 0xf8);
	assert_int_equal(vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_COMMAND), 2), 0x0400);
	conf1_write(bus, 0, PCI_COMMAND, 2, 0x0006);
	assert_int_equal(conf1_read(bus, 0, PCI_COMMAND, 2), 0x0006);
}

/* --- the written callback --------------------------------------------------------- */

static void test_written_callback(void **state)
{
	struct fixture *f = *state;
	struct vpci_bus *bus = &f->bus;

	conf1_write(bus, DEV_SLOT, PCI_COMMAND, 1, 0x06);
	assert_int_equal(f->calls, 1);
	assert_ptr_equal(f->last_dev, &f->dev);
	assert_int_equal(f->last_offset, PCI_COMMAND);
	assert_int_equal(f->last_size, 1);
	conf1_write(bus, DEV_SLOT, PCI_STATUS, 2, 0xffff);	/* read-only, still told */
	assert_int_equal(f->calls, 2);
	assert_int_equal(f->last_offset, PCI_STATUS);
	assert_int_equal(f->last_size, 2);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, PCI_BASE_ADDRESS_0 + 4), 4, 0x2);
	assert_int_equal(f->calls, 3);
	assert_int_equal(f->last_offset, PCI_BASE_ADDRESS_0 + 4);
	assert_int_equal(f->last_size, 4);
	vpci_ecam_write(bus, ecam(0, DEV_SLOT, 0, 0xff), 1, 0);
	assert_int_equal(f->calls, 4);
	assert_int_equal(f->last_offset, 0xff);
	assert_int_equal(f->last_size, 1);
	/* Reads, CF8 writes and writes to other functions tell nobody. */
	conf1_read(bus, DEV_SLOT, PCI_COMMAND, 4);
	vpci_ecam_read(bus, ecam(0, DEV_SLOT, 0, PCI_COMMAND), 4);
	vpci_io_write(bus, VPCI_CONFIG_ADDRESS_PORT, 4, cf8(0, DEV_SLOT, 0, PCI_COMMAND));
	conf1_write(bus, 0, PCI_COMMAND, 2, 0x0006);
	assert_int_equal(f->calls, 4);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, fixture_setup, fixture_teardown)
	const struct CMUnitTest bus[] = {
		T(test_bus_add),
		T(test_host_bridge_identity),
	};
	const struct CMUnitTest io[] = {
		T(test_cf8_latch),
		T(test_cf8_enable_bit),
		T(test_cfc_access_sizes),
		T(test_cfc_misaligned),
		T(test_ports_outside_data_window),
		T(test_absent_functions_read_all_ones),
	};
	const struct CMUnitTest ecam_tests[] = {
		T(test_ecam_offsets),
		T(test_ecam_extended_space),
	};
	const struct CMUnitTest config[] = {
		T(test_bar64_initial_value),
		T(test_bar64_sizing),
		T(test_bar64_sizing_restores),
		T(test_bar64_alignment_and_type),
		T(test_read_only_fields),
		T(test_command_register_mask),
		T(test_written_callback),
	};
#undef T
	int failed = 0;

	failed += cmocka_run_group_tests_name("pci bus", bus, NULL, NULL);
	failed += cmocka_run_group_tests_name("pci CF8/CFC", io, NULL, NULL);
	failed += cmocka_run_group_tests_name("pci ECAM", ecam_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("pci configuration space", config, NULL, NULL);
	return failed ? 1 : 0;
}
