/* SPDX-License-Identifier: MIT */
/*
 * guest_virtio.c - the glue every virtio device of a guest shares
 * (guest_virtio.h).
 */
#include <stddef.h>

#include <linux/virtio_pci.h>

#include "guest/guest.h"
#include "guest/guest_device.h"
#include "guest/guest_log.h"
#include "guest/guest_virtio.h"

void guest_virtio_send_msi(struct guest *g, const char *device, uint64_t *bad_msi,
			   uint64_t address, uint32_t data)
{
	const char *dropped = guest_msi_send(g, address, data);

	if (dropped && !(*bad_msi)++)
		guest_log(g, "%s: MSI address %#lx data %#x: %s, dropped\n", device, address, data,
			  dropped);
}

int guest_virtio_mmio(struct virtio_pci *fn, struct spinlock *lock, uint64_t gpa,
		      unsigned int size, bool write, uint64_t *value)
{
	int result = VIRTIO_PCI_NO_NOTIFY;
	uint64_t offset;

	spin_lock(lock);
	if (!virtio_pci_bar_decode(fn, gpa, size, &offset))
		result = GUEST_VIRTIO_UNCLAIMED;
	else if (write)
		result = virtio_pci_bar_write(fn, offset, size, *value);
	else
		*value = virtio_pci_bar_read(fn, offset, size);
	spin_unlock(lock);
	return result;
}

void guest_virtio_reset(struct virtio_pci *fn, struct spinlock *lock)
{
	spin_lock(lock);
	virtio_pci_bar_write(fn, offsetof(struct virtio_pci_common_cfg, device_status), 1, 0);
	spin_unlock(lock);
}
