/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci.h - the virtio-over-PCI transport (virtio 1.1 §4.1), modern
 * only: one PCI function on the guest's bus 0 whose 64-bit memory BAR 0
 * holds the common, ISR, device-specific and notification structures and
 * the MSI-X table and pending bits. A device type (net, vsock) plugs in
 * through struct virtio_pci_device_ops and never sees PCI.
 *
 * Interrupts are MSI-X messages only: the guest has no I/O APIC, so the
 * function has no INTx pin. With MSI-X disabled the ISR status bits are
 * still kept (a driver may poll them) but nothing is signalled.
 *
 * Nothing here locks. Config-space accesses (through the bus), BAR accesses
 * and the device-side calls for one function must be serialised by its
 * owner; the callbacks run inside those calls, with the same exclusion.
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_PCI_H
#define SIDECORE_VIRTIO_VIRTIO_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/log.h"
#include "vdev/msix.h"
#include "vdev/vpci.h"

#define VIRTIO_PCI_QUEUES_MAX	64
#define VIRTIO_PCI_VECTORS_MAX	(VIRTIO_PCI_QUEUES_MAX + 1)	/* + config change */
#define VIRTIO_PCI_BAR_SIZE	0x4000ull	/* BAR 0: 16 KiB, four 4 KiB pages */
#define VIRTIO_PCI_CONFIG_MAX	0x1000u		/* device-specific config: one page */
#define VIRTIO_PCI_NO_NOTIFY	(-1)		/* virtio_pci_bar_write(): no kick */


/*
 * What a device type tells the transport. Callbacks get the ctx given to
 * virtio_pci_init(); any of them may be NULL (no action, or accept).
 */
struct virtio_pci_device_ops {
	uint16_t device_id;		/* VIRTIO_ID_NET, VIRTIO_ID_VSOCK (§5) */
	uint64_t features;		/* offered; VERSION_1 is added, RING_RESET refused */
	uint16_t num_queues;		/* 1 .. VIRTIO_PCI_QUEUES_MAX */
	uint16_t queue_size_max;	/* a power of two, at most 32768 (§2.6) */
	uint16_t config_size;		/* bytes of device-specific config, <= CONFIG_MAX */
	/* Naturally aligned access inside config_size; must not change state. */
	uint32_t (*config_read)(void *ctx, unsigned int offset, unsigned int size);
	void (*config_write)(void *ctx, unsigned int offset, unsigned int size,
			     uint32_t value);
	/*
	 * The driver enabled a queue whose rings are aligned (§2.6). Returning
	 * false (e.g. rings outside guest RAM) leaves it disabled and sets
	 * DEVICE_NEEDS_RESET.
	 */
	bool (*queue_enable)(void *ctx, unsigned int queue, uint16_t size, uint64_t desc,
			     uint64_t driver, uint64_t device);
	/*
	 * DRIVER_OK accepted: buffers may be used from now on (§3.1.1). Never
	 * called without accepted features or while DEVICE_NEEDS_RESET is set.
	 */
	void (*driver_ok)(void *ctx, uint64_t features);
	/* The driver reset the device: drop every queue (§2.1.2, §4.1.4.3.2). */
	void (*reset)(void *ctx);
};

struct virtio_pci_queue {
	uint16_t size;		/* queue_size: the maximum until the driver lowers it */
	uint16_t msix_vector;
	bool enabled;
	uint64_t desc, driver, device;	/* guest-physical ring addresses */
};

/* The function, embedded by its owner. Fields are private to hv/virtio/virtio_pci*.c. */
struct virtio_pci {
	struct vpci_device pci;		/* put on the bus with vpci_bus_add() */
	const char *name;		/* the guest's, for messages (kept) */
	const struct log_gate *log;	/* the guest's bucket for them; NULL: none */
	const struct virtio_pci_device_ops *ops;
	void *ctx;
	uint64_t offered;		/* ops->features | VIRTIO_F_VERSION_1 */
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
 * False (and logged) if name or ops is missing or unusable, or bar_address is
 * not 16 KiB aligned.
 */
bool virtio_pci_init(struct virtio_pci *fn, const char *name,
		     const struct virtio_pci_device_ops *ops, void *ctx,
		     msix_send_fn send_msi, void *msi_ctx, uint64_t bar_address);

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
/* The features the driver accepted; 0 until FEATURES_OK. */
uint64_t virtio_pci_driver_features(const struct virtio_pci *fn);

#endif
