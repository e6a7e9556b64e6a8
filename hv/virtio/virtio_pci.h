/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci.h - the virtio-over-PCI transport (virtio 1.1 §4.1), modern
 * only: one PCI function on the guest's bus 0 whose 64-bit memory BAR 0
 * holds the common, ISR, device-specific and notification structures and
 * the MSI-X table and pending bits. The function serves one device model
 * through its struct virtio_dev: identity, limits and lifecycle are the
 * core's (virtio/virtio_dev.h); the model never sees PCI.
 *
 * Interrupts are MSI-X messages only: the guest has no I/O APIC, so the
 * function has no INTx pin. With MSI-X disabled the ISR status bits are
 * still kept (a driver may poll them) but nothing is signalled.
 *
 * Nothing here locks. Config-space accesses (through the bus), BAR accesses
 * and the device-side calls for one function must be serialised by its
 * owner; the model's callbacks run inside those calls, with the same
 * exclusion.
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_PCI_H
#define SIDECORE_VIRTIO_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/log.h"
#include "vdev/msix.h"
#include "vdev/vpci.h"
#include "virtio/virtio_dev.h"

#define VIRTIO_PCI_QUEUES_MAX	64
#define VIRTIO_PCI_VECTORS_MAX	(VIRTIO_PCI_QUEUES_MAX + 1)	/* + config change */
#define VIRTIO_PCI_BAR_SIZE	0x4000ull	/* BAR 0: 16 KiB, four 4 KiB pages */
#define VIRTIO_PCI_CONFIG_MAX	0x1000u		/* device-specific config: one page */
#define VIRTIO_PCI_NO_NOTIFY	(-1)		/* virtio_pci_bar_write(): no kick */

struct virtio_pci_queue {
	uint16_t size;		/* queue_size: the maximum until the driver lowers it */
	uint16_t msix_vector;
	bool enabled;
	uint64_t desc, driver, device;	/* guest-physical ring addresses */
};

/* The function, embedded by its owner. Fields are private to hv/virtio/virtio_pci*.c. */
struct virtio_pci {
	struct vpci_device pci;		/* put on the bus with vpci_bus_add() */
	struct virtio_dev *dev;		/* the model served (kept) */
	const struct log_gate *log;	/* the guest's bucket for messages; NULL: none */
	uint64_t driver_features;
	uint32_t device_feature_select, driver_feature_select;
	uint16_t msix_config;
	uint16_t queue_select;
	uint8_t status;
	bool features_refused;		/* FEATURES_OK refused since the last reset */
	uint8_t config_generation;
	uint8_t isr;
	uint64_t kicks;			/* notifications the guest wrote */
	struct virtio_pci_queue queue[VIRTIO_PCI_QUEUES_MAX];
	struct msix msix_state;		/* over the two arrays below */
	struct msix_entry msix[VIRTIO_PCI_VECTORS_MAX];
	uint64_t msix_pending[MSIX_PBA_WORDS(VIRTIO_PCI_VECTORS_MAX)];
};

/*
 * False (and logged) if the device's name or limits are unusable here, or
 * bar_address is not 16 KiB aligned.
 */
bool virtio_pci_init(struct virtio_pci *fn, struct virtio_dev *dev, msix_send_fn send_msi,
		     void *msi_ctx, uint64_t bar_address);

/**
 * virtio_pci_set_log_gate() - pass the lines a guest's writes cause through its bucket
 * @fn: the function, after virtio_pci_init()
 * @gate: the guest's bucket (kept, not copied)
 */
void virtio_pci_set_log_gate(struct virtio_pci *fn, const struct log_gate *gate);

/* Where the guest has put BAR 0, and whether it decodes it (COMMAND bit 1). */
uint64_t virtio_pci_bar_address(const struct virtio_pci *fn);
bool virtio_pci_bar_enabled(const struct virtio_pci *fn);
/* True, with the BAR offset, when a decoded BAR 0 holds [gpa, gpa + size). */
bool virtio_pci_bar_decode(const struct virtio_pci *fn, uint64_t gpa, unsigned int size,
			   uint64_t *offset);

/*
 * Guest accesses at a BAR 0 offset; size is 1, 2, 4 or 8 (as two 4-byte
 * halves), naturally aligned. Anything else reads 0 and writes nothing.
 * A write returns the queue it kicked, or VIRTIO_PCI_NO_NOTIFY.
 */
uint64_t virtio_pci_bar_read(struct virtio_pci *fn, uint64_t offset, unsigned int size);
int virtio_pci_bar_write(struct virtio_pci *fn, uint64_t offset, unsigned int size,
			 uint64_t value);

/* Device side: a used-buffer notification for queue (§4.1.5.3). */
void virtio_pci_interrupt(struct virtio_pci *fn, unsigned int queue);
/* Device side: the device-specific config changed (§4.1.5.4). */
void virtio_pci_config_interrupt(struct virtio_pci *fn);
/* Device side: the device is broken until the driver resets it (§2.1.2). */
void virtio_pci_mark_needs_reset(struct virtio_pci *fn);
/* Device side: what the model's interrupt callback (virtio_dev.h) asks of the function. */
void virtio_pci_dev_interrupt(struct virtio_pci *fn, unsigned int source);
/* The features the driver accepted; 0 until FEATURES_OK. */
uint64_t virtio_pci_driver_features(const struct virtio_pci *fn);

#endif
