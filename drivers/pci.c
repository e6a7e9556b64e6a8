/* SPDX-License-Identifier: MIT */
/*
 * pci.c - configuration mechanism #1 (PCI Local Bus spec 3.0 §3.2.2.3.2):
 * a dword written to CONFIG_ADDRESS (CF8h) selects bus, device, function
 * and register, and CONFIG_DATA (CFCh) then reads or writes that register.
 * Every PC chipset decodes it; ECAM would add nothing for a boot-time scan.
 */
#include "cpu/io.h"
#include "drivers/pci.h"
#include "lib/printf.h"

#define PCI_CONFIG_ADDRESS	0xcf8
#define PCI_CONFIG_DATA		0xcfc
#define PCI_CONFIG_ENABLE	(1u << 31)
#define PCI_BUSES		256
#define PCI_DEVICES		32
#define PCI_FUNCTIONS		8

/* §3.2.2.3.2, figure 3-2: enable bit, bus 23:16, device 15:11, function 10:8, register 7:2. */
static uint32_t pci_config_address(const struct pci_addr *addr, unsigned int offset)
{
	return PCI_CONFIG_ENABLE | (uint32_t)addr->bus << 16 | (uint32_t)addr->device << 11 |
	       (uint32_t)addr->function << 8 | (offset & 0xfc);
}

uint32_t pci_read32(const struct pci_addr *addr, unsigned int offset)
{
	pio_out32(PCI_CONFIG_ADDRESS, pci_config_address(addr, offset));
	return pio_in32(PCI_CONFIG_DATA);
}

void pci_write32(const struct pci_addr *addr, unsigned int offset, uint32_t value)
{
	pio_out32(PCI_CONFIG_ADDRESS, pci_config_address(addr, offset));
	pio_out32(PCI_CONFIG_DATA, value);
}

uint16_t pci_read16(const struct pci_addr *addr, unsigned int offset)
{
	return (uint16_t)(pci_read32(addr, offset) >> (8 * (offset & 2)));
}

bool pci_find(pci_match_fn match, struct pci_addr *found)
{
	for (unsigned int bus = 0; bus < PCI_BUSES; bus++) {
		for (unsigned int dev = 0; dev < PCI_DEVICES; dev++) {
			struct pci_addr a = { (uint8_t)bus, (uint8_t)dev, 0 };
			unsigned int functions = 1;
			uint16_t vendor = pci_read16(&a, PCI_VENDOR_ID);

			if (vendor == PCI_VENDOR_NONE)
				continue;
			/* §6.2.1: functions 1-7 exist only behind a multi-function header. */
			if (pci_read16(&a, PCI_HEADER_TYPE) & PCI_HEADER_MULTI_FUNCTION)
				functions = PCI_FUNCTIONS;
			for (unsigned int fn = 0; fn < functions; fn++) {
				a.function = (uint8_t)fn;
				vendor = pci_read16(&a, PCI_VENDOR_ID);
				if (vendor != PCI_VENDOR_NONE &&
				    match(vendor, pci_read16(&a, PCI_DEVICE_ID))) {
					*found = a;
					return true;
				}
			}
		}
	}
	return false;
}

const char *pci_memory_bar(const struct pci_addr *addr, unsigned int offset,
			   struct pci_bar *bar)
{
	/* The upper half is the status register, whose bits clear when written as 1. */
	uint32_t command = pci_read32(addr, PCI_COMMAND) & 0xffff;
	uint32_t low = pci_read32(addr, offset), high = 0, low_mask, high_mask = 0xffffffffu;
	bool wide;

	if (low & PCI_BASE_ADDRESS_SPACE_IO)
		return "is an I/O BAR, not a memory BAR";
	if ((low & PCI_BASE_ADDRESS_MEM_TYPE_MASK) != PCI_BASE_ADDRESS_MEM_TYPE_32 &&
	    (low & PCI_BASE_ADDRESS_MEM_TYPE_MASK) != PCI_BASE_ADDRESS_MEM_TYPE_64)
		return "has a reserved memory type";
	wide = (low & PCI_BASE_ADDRESS_MEM_TYPE_MASK) == PCI_BASE_ADDRESS_MEM_TYPE_64;
	if (wide && offset == PCI_BASE_ADDRESS_5)
		return "is 64-bit but the last BAR";
	if (wide)
		high = pci_read32(addr, offset + 4);

	/* §6.2.5.1: decoding off while the BAR holds all ones, so it claims no cycles. */
	pci_write32(addr, PCI_COMMAND, command & ~(uint32_t)PCI_COMMAND_MEMORY);
	pci_write32(addr, offset, 0xffffffffu);
	low_mask = pci_read32(addr, offset) & PCI_BASE_ADDRESS_MEM_MASK;
	pci_write32(addr, offset, low);
	if (wide) {
		pci_write32(addr, offset + 4, 0xffffffffu);
		high_mask = pci_read32(addr, offset + 4);
		pci_write32(addr, offset + 4, high);
	}
	pci_write32(addr, PCI_COMMAND, command);

	bar->base = (uint64_t)high << 32 | (low & PCI_BASE_ADDRESS_MEM_MASK);
	bar->size = ~((uint64_t)(wide ? high_mask : 0xffffffffu) << 32 | low_mask) + 1;
	if (!low_mask)
		return "decodes no memory";
	if (!bar->base)
		return "has no address assigned";
	return NULL;
}

void pci_enable_memory_and_master(const struct pci_addr *addr)
{
	uint32_t command = pci_read32(addr, PCI_COMMAND) & 0xffff;

	pci_write32(addr, PCI_COMMAND, command | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

void pci_addr_format(const struct pci_addr *addr, char buf[PCI_ADDR_TEXT_MAX])
{
	snprintf(buf, PCI_ADDR_TEXT_MAX, "%02x:%02x.%x", addr->bus, addr->device,
		 addr->function);
}
