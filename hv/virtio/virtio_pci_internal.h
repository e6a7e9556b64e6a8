/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci_internal.h - what the files of the virtio PCI function share:
 * the BAR 0 layout, config-space bytes, and the calls between the transport
 * (virtio_pci.c) and its capability list (virtio_pci_caps.c). Included only
 * inside hv/virtio.
 *
 * BAR 0 (16 KiB), one concern per 4 KiB page where it matters:
 *   0x0000 common configuration     0x0800 ISR status
 *   0x1000 device-specific config   0x2000 notifications, 4 bytes per queue
 *   0x3000 MSI-X table              0x3800 MSI-X pending bits
 * PCI 3.0 §6.8.2 forbids other registers in a 4 KiB range holding the MSI-X
 * table or PBA, so those two keep the last page to themselves.
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_PCI_INTERNAL_H
#define SIDECORE_VIRTIO_VIRTIO_PCI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/pci_regs.h>
#include <linux/virtio_pci.h>

#include "virtio/virtio_pci.h"

#define BAR_COMMON		0x0000
#define BAR_ISR			0x0800
#define BAR_DEVICE		0x1000
#define BAR_NOTIFY		0x2000
#define BAR_MSIX_TABLE		0x3000
#define BAR_MSIX_PBA		0x3800
#define COMMON_SIZE		sizeof(struct virtio_pci_common_cfg)
/* virtio 1.1 §4.1.4.4: an even power of two; each queue gets its own 32-bit slot. */
#define NOTIFY_MULTIPLIER	4

_Static_assert(VIRTIO_PCI_VECTORS_MAX * PCI_MSIX_ENTRY_SIZE <= BAR_MSIX_PBA - BAR_MSIX_TABLE,
	       "MSI-X table overlaps the PBA");
_Static_assert(VIRTIO_PCI_QUEUES_MAX * NOTIFY_MULTIPLIER <= BAR_MSIX_TABLE - BAR_NOTIFY,
	       "notification slots overflow their page");
_Static_assert(BAR_DEVICE + VIRTIO_PCI_CONFIG_MAX <= BAR_NOTIFY,
	       "device config overflows its page");

/* One MSI-X vector per queue and one for configuration changes (§4.1.5.1.2). */
static inline unsigned int virtio_pci_vectors(const struct virtio_pci *fn)
{
	return fn->dev->num_queues + 1u;
}

/* size little-endian bytes of config space at offset. */
static inline uint32_t virtio_pci_config_get(const struct virtio_pci *fn, unsigned int offset,
					     unsigned int size)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint32_t)fn->pci.config[offset + i] << (8 * i);
	return v;
}

/* Stores the low size bytes of v at p + offset, little-endian. */
static inline void virtio_pci_bytes_put(uint8_t *p, unsigned int offset, unsigned int size,
					uint32_t v)
{
	for (unsigned int i = 0; i < size; i++)
		p[offset + i] = (uint8_t)(v >> (8 * i));
}

/**
 * virtio_pci_bar_access_valid() - whether a BAR 0 access is one to serve
 * @offset: BAR offset
 * @size: bytes
 *
 * Return: true for 1, 2, 4 or 8 bytes, naturally aligned, inside the BAR.
 */
bool virtio_pci_bar_access_valid(uint64_t offset, unsigned int size);

/**
 * virtio_pci_bar_read_one() - read one register of BAR 0
 * @fn: the function
 * @offset: BAR offset
 * @size: 1, 2 or 4 bytes, naturally aligned, inside the BAR
 * @peek: leave the ISR as it is rather than acknowledge it (§4.1.4.5)
 *
 * Return: the value; 0 where nothing of that width is.
 */
uint32_t virtio_pci_bar_read_one(struct virtio_pci *fn, uint32_t offset, unsigned int size,
				 bool peek);

/**
 * virtio_pci_bar_write_one() - write one register of BAR 0
 * @fn: the function
 * @offset: BAR offset
 * @size: 1, 2 or 4 bytes, naturally aligned, inside the BAR
 * @value: the value, in its low @size bytes
 *
 * Return: the queue the write notified, or VIRTIO_PCI_NO_NOTIFY.
 */
int virtio_pci_bar_write_one(struct virtio_pci *fn, uint32_t offset, unsigned int size,
			     uint32_t value);

/**
 * virtio_pci_caps_init() - build the capability list and take config writes
 * @fn: the function, its identity and BAR 0 already in config space
 *
 * Lays out the virtio structures' capabilities (§4.1.4), the PCI
 * configuration access capability (§4.1.4.8) and MSI-X (PCI 3.0 §6.8.2),
 * and hooks the function's config writes so that Message Control reaches
 * @fn->msix_state and the access window reaches BAR 0.
 */
void virtio_pci_caps_init(struct virtio_pci *fn);

/**
 * virtio_pci_window_refresh() - show BAR 0's current value in the window
 * @fn: the function
 *
 * Called after anything that may change what a read through the PCI
 * configuration access capability returns (§4.1.4.8).
 */
void virtio_pci_window_refresh(struct virtio_pci *fn);

#endif
