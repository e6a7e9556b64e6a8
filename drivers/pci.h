/* SPDX-License-Identifier: MIT */
/*
 * pci.h - the machine's own PCI functions, through configuration mechanism
 * #1 (I/O ports CF8h and CFCh). The guests' PCI bus is hv/vdev/vpci.c; this
 * is the real one, used at boot to find the NIC the sidecores drive.
 *
 * Boot CPU only, before the APs start: the address port is shared state
 * and nothing here takes a lock.
 */
#ifndef SIDECORE_DRIVERS_PCI_H
#define SIDECORE_DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/pci_regs.h>

/* PCI Local Bus spec 3.0 §6.2.1: header type bit 7, a multi-function device. */
#define PCI_HEADER_MULTI_FUNCTION 0x80
#define PCI_VENDOR_NONE		0xffff	/* what a read of an absent function returns */

#define PCI_ADDR_TEXT_MAX	8	/* "BB:DD.F" and its NUL */

/* A function's bus, device and function numbers. */
struct pci_addr {
	uint8_t bus;
	uint8_t device;		/* 0..31 */
	uint8_t function;	/* 0..7 */
};

/* A memory BAR: where the firmware placed it and how much it decodes. */
struct pci_bar {
	uint64_t base;
	uint64_t size;
};

/**
 * pci_read32() - read a dword of a function's configuration space
 * @addr: the function
 * @offset: a multiple of 4, below 256
 *
 * Return: the dword; all ones when no function answers.
 */
uint32_t pci_read32(const struct pci_addr *addr, unsigned int offset);

/**
 * pci_write32() - write a dword of a function's configuration space
 * @addr: the function
 * @offset: a multiple of 4, below 256
 * @value: the dword
 */
void pci_write32(const struct pci_addr *addr, unsigned int offset, uint32_t value);

/**
 * pci_read16() - read a word of a function's configuration space
 * @addr: the function
 * @offset: a multiple of 2, below 256
 *
 * Return: the word, taken from the dword around it.
 */
uint16_t pci_read16(const struct pci_addr *addr, unsigned int offset);

/* Whether a driver takes the function with these IDs. */
typedef bool (*pci_match_fn)(uint16_t vendor, uint16_t device);

/**
 * pci_find() - the first function, in bus, device, function order, that
 * @match accepts
 * @match: the driver's ID check
 * @found: receives the function's address
 *
 * Scans every bus number, so bridges need not be followed: mechanism #1
 * reaches a bus behind a bridge by its number, which the firmware assigned.
 *
 * Return: true when one was found.
 */
bool pci_find(pci_match_fn match, struct pci_addr *found);

/**
 * pci_memory_bar() - decode a function's memory BAR
 * @addr: the function
 * @offset: the BAR's configuration offset, PCI_BASE_ADDRESS_0 and up
 * @bar: receives base and size
 *
 * Sizes the BAR by writing all ones to it and reading back the bits it
 * keeps (§6.2.5.1), with memory decoding off meanwhile, then restores it.
 *
 * Return: NULL on success, or why the BAR is unusable: an I/O BAR, a
 * reserved type, not assigned, a 64-bit BAR in the last slot.
 */
const char *pci_memory_bar(const struct pci_addr *addr, unsigned int offset,
			   struct pci_bar *bar);

/**
 * pci_enable_memory_and_master() - let the function decode its memory BARs
 * and master the bus for DMA
 * @addr: the function
 */
void pci_enable_memory_and_master(const struct pci_addr *addr);

/**
 * pci_addr_format() - "BB:DD.F", as lspci and the config file write it
 * @addr: the function
 * @buf: at least PCI_ADDR_TEXT_MAX bytes
 */
void pci_addr_format(const struct pci_addr *addr, char buf[PCI_ADDR_TEXT_MAX]);

#endif
