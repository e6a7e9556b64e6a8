// SPDX-License-Identifier: MIT
/*
 * fuzz_vpci.c - arbitrary configuration-space traffic against a guest's bus.
 *
 * The bus holds the host bridge in slot 0 and a device with two 64-bit BARs
 * in slot 3. The input is a sequence of 8-byte operations:
 *
 *   byte 0  bit 0: write (else read); bit 1: ECAM (else I/O port);
 *           bits 4:2: access size, one of 1 2 4 1 2 4 3 0;
 *           bits 7:5: ECAM offset bits 26:24 (bus number bits 6:4)
 *   1-2     I/O: port 0xcf4 + (byte 1 & 15); ECAM: offset bits 15:0
 *   3       ECAM: offset bits 23:16 (bus number bits 3:0 are 23:20)
 *   4-7     the value written
 *
 * After every operation the model must hold its invariants: bits outside a
 * register's write mask never change (vendor, device, class, BAR type), each
 * BAR stays aligned to its size, reads return no more than their width, the
 * written callback sees only in-bounds aligned accesses, CF8 and ECAM agree
 * on what they address, and absent functions read all ones. A broken rule
 * aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vdev/vpci.h"

#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

#define DEV_SLOT	3
#define BAR0_SIZE	0x4000ull
#define BAR2_SIZE	0x200000000ull
#define OP_BYTES	8

static const unsigned int access_sizes[8] = { 1, 2, 4, 1, 2, 4, 3, 0 };

struct fuzz_bus {
	struct vpci_bus bus;
	struct vpci_device bridge, dev;
	uint8_t bridge_initial[PCI_CFG_SPACE_SIZE], dev_initial[PCI_CFG_SPACE_SIZE];
	unsigned int calls;
};

static uint32_t width_mask(unsigned int size)
{
	return size >= 4 ? 0xffffffffu : (1u << (8 * size)) - 1;
}

static void check_written(struct vpci_device *dev, unsigned int offset, unsigned int size)
{
	struct fuzz_bus *f = dev->ctx;

	CHECK(size == 1 || size == 2 || size == 4);
	CHECK(offset % size == 0);
	CHECK(offset + size <= PCI_CFG_SPACE_SIZE);
	f->calls++;
}

static void fuzz_bus_init(struct fuzz_bus *f)
{
	memset(f, 0, sizeof(*f));
	vpci_bus_init(&f->bus);
	vpci_host_bridge_init(&f->bridge);
	vpci_device_init(&f->dev, 0x1af4, 0x1041, 0x020000, 1);
	vpci_device_set_bar64(&f->dev, 0, BAR0_SIZE, 0xfe000000);
	vpci_device_set_bar64(&f->dev, 2, BAR2_SIZE, 0x4000000000ull);
	f->bridge.written = check_written;
	f->bridge.ctx = f;
	f->dev.written = check_written;
	f->dev.ctx = f;
	CHECK(vpci_bus_add(&f->bus, 0, &f->bridge));
	CHECK(vpci_bus_add(&f->bus, DEV_SLOT, &f->dev));
	memcpy(f->bridge_initial, f->bridge.config, PCI_CFG_SPACE_SIZE);
	memcpy(f->dev_initial, f->dev.config, PCI_CFG_SPACE_SIZE);
}

/* Every bit a write mask protects still holds its initial value. */
static void check_read_only(const struct vpci_device *dev, const uint8_t *initial)
{
	for (unsigned int i = 0; i < PCI_CFG_SPACE_SIZE; i++)
		CHECK(((dev->config[i] ^ initial[i]) & ~dev->write_mask[i]) == 0);
}

static void check_invariants(struct fuzz_bus *f)
{
	uint32_t address = f->bus.config_address;
	unsigned int busno = (address >> 16) & 0xff, slot = (address >> 11) & 0x1f;
	unsigned int function = (address >> 8) & 7, reg = address & 0xfc;
	uint32_t data;

	check_read_only(&f->bridge, f->bridge_initial);
	check_read_only(&f->dev, f->dev_initial);
	CHECK(f->dev.config[PCI_VENDOR_ID] == 0xf4 && f->dev.config[PCI_VENDOR_ID + 1] == 0x1a);
	CHECK(f->dev.config[PCI_DEVICE_ID] == 0x41 && f->dev.config[PCI_DEVICE_ID + 1] == 0x10);
	CHECK((f->dev.config[PCI_BASE_ADDRESS_0] & 0xf) == 0x4 && (f->dev.config[PCI_BASE_ADDRESS_0 + 8] & 0xf) == 0x4);
	CHECK(vpci_device_bar64(&f->dev, 0) % BAR0_SIZE == 0);
	CHECK(vpci_device_bar64(&f->dev, 2) % BAR2_SIZE == 0);
	CHECK((address & 0x7f000003) == 0);

	/* The function CF8 selects reads the same through ECAM; no other does. */
	data = vpci_io_read(&f->bus, VPCI_CONFIG_DATA_PORT, 4);
	if ((address >> 31) && !busno && !function && f->bus.slot[slot])
		CHECK(data == vpci_ecam_read(&f->bus, (uint64_t)busno << 20 | slot << 15 |
					     function << 12 | reg, 4));
	else
		CHECK(data == 0xffffffff);
}

static void run_op(struct fuzz_bus *f, const uint8_t *op)
{
	bool write = op[0] & 1, use_ecam = op[0] & 2;
	unsigned int size = access_sizes[(op[0] >> 2) & 7];
	uint32_t value = (uint32_t)op[4] | (uint32_t)op[5] << 8 | (uint32_t)op[6] << 16 |
			 (uint32_t)op[7] << 24;
	unsigned int calls = f->calls;
	uint32_t result;

	if (use_ecam) {
		uint64_t offset = (uint64_t)op[1] | (uint64_t)op[2] << 8 | (uint64_t)op[3] << 16 |
				  (uint64_t)(op[0] >> 5) << 24;
		unsigned int slot = (offset >> 15) & 0x1f, reg = offset & 0xfff;
		bool present = offset < (1u << 20) && !(offset & 0x7000) && f->bus.slot[slot];

		if (write) {
			vpci_ecam_write(&f->bus, offset, size, value);
			CHECK(f->calls <= calls + 1);
			return;
		}
		result = vpci_ecam_read(&f->bus, offset, size);
		CHECK((result & ~width_mask(size)) == 0);
		if (!present)
			CHECK(result == width_mask(size));
		else if (reg >= PCI_CFG_SPACE_SIZE)
			CHECK(result == 0);
	} else {
		uint16_t port = (uint16_t)(0xcf4 + (op[1] & 15));

		if (write) {
			vpci_io_write(&f->bus, port, size, value);
			CHECK(f->calls <= calls + 1);
			return;
		}
		result = vpci_io_read(&f->bus, port, size);
		CHECK((result & ~width_mask(size)) == 0);
		if (port < VPCI_CONFIG_DATA_PORT && !(port == VPCI_CONFIG_ADDRESS_PORT && size == 4))
			CHECK(result == width_mask(size));
	}
	CHECK(f->calls == calls);	/* reads tell nobody */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_bus f;

	fuzz_bus_init(&f);
	for (size_t at = 0; at + OP_BYTES <= size; at += OP_BYTES) {
		run_op(&f, data + at);
		check_invariants(&f);
	}
	return 0;
}
