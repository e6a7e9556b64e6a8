/* SPDX-License-Identifier: MIT */
/*
 * guest_device.h - the emulated devices of one guest, registered with it:
 * the BAR exit path asks each in turn whether an access is its own, a
 * restart resets each, and a PCI function is put on the guest's bus. A
 * device type adds itself with one guest_device_add() and is otherwise
 * known only to its own files (docs/architecture.md, "Devices").
 */
#ifndef SIDECORE_GUEST_GUEST_DEVICE_H
#define SIDECORE_GUEST_GUEST_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

struct guest;
struct guest_device;
struct vpci_device;

struct guest_device_ops {
	/*
	 * An access of size bytes at gpa in the PCI MMIO window, from a vCPU.
	 * Returns false when none of the device's BARs is there; *notify is
	 * set for a doorbell write. Takes the device's own lock.
	 */
	bool (*mmio)(struct guest_device *dev, uint64_t gpa, unsigned int size, bool write,
		     uint64_t *value, bool *notify);
	/* Back to its power-on state: the guest restarts. */
	void (*reset)(struct guest_device *dev);
	/*
	 * Undoes the device's creation, however far it got: off its
	 * sidecore, the switch or the vsock table, and its memory freed.
	 * Only before the guest's first life, while nothing polls it.
	 */
	void (*release)(struct guest_device *dev);
};

struct guest_device {
	const char *name;			/* "virtio-net", for messages */
	const struct guest_device_ops *ops;
	struct vpci_device *pci;			/* its PCI function, or NULL */
	unsigned int slot;			/* set by guest_device_add() when pci is */
};

/**
 * guest_device_add() - registers a device with its guest
 * @g: the guest, not yet running
 * @dev: name, ops and pci set; the device's state lives as long as @g
 *
 * A PCI function goes on the guest's bus 0 at the lowest free slot, which
 * is written to @dev->slot.
 *
 * Return: false (reported) when the guest has no room for it.
 */
bool guest_device_add(struct guest *g, struct guest_device *dev);

/**
 * guest_device_remove_all() - undo a guest's devices, newest first
 * @g: the guest, not yet running: one of its devices failed to come up
 *
 * Each device leaves the guest's bus and is released (its ops' release),
 * so that a guest is created with all its devices or with none: nothing
 * of it stays on a sidecore, the switch or the vsock table.
 */
void guest_device_remove_all(struct guest *g);

/**
 * guest_device_mmio() - finds and runs the device an MMIO access is for
 * @g: the guest
 * @gpa: the guest-physical address accessed, in the PCI MMIO window
 * @size: 1, 2, 4 or 8 bytes
 * @write: a store (@value holds it) or a load (@value receives it)
 * @value: the data
 * @notify: set when the store was a doorbell
 *
 * Return: false when no device claims @gpa.
 */
bool guest_device_mmio(struct guest *g, uint64_t gpa, unsigned int size, bool write,
		       uint64_t *value, bool *notify);

/**
 * guest_device_reset_all() - resets every registered device (restart)
 * @g: the guest, none of its vCPUs running
 */
void guest_device_reset_all(struct guest *g);

/*
 * The last message a device sent that named exactly one vCPU, decoded: a
 * queue's interrupts repeat one message, so the next is sent without
 * decoding it again. Its owner keeps it under the lock that serialises
 * the device's messages; zeroed, it remembers nothing.
 */
struct guest_msi_memo {
	uint64_t address;
	uint32_t data;
	uint8_t vector;
	struct vcpu *vcpu;	/* NULL: nothing remembered */
};

/**
 * guest_msi_send() - delivers an MSI or MSI-X message a device of @g sends
 * @g: the guest
 * @memo: the device's last message, or NULL; a message naming one vCPU
 *	  replaces it, any other leaves it
 * @address: the message address as the guest programmed it, unchecked
 * @data: the message data, likewise
 *
 * Fixed delivery goes to every destination, lowest priority (or a
 * redirection hint) to the first one.
 *
 * Return: NULL when delivered, or why it was dropped (not an interrupt,
 * or no vCPU of @g is named).
 */
const char *guest_msi_send(struct guest *g, struct guest_msi_memo *memo, uint64_t address,
			   uint32_t data);

#endif
