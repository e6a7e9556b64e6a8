/* SPDX-License-Identifier: MIT */
/*
 * virtio_pci_caps.c - the virtio PCI function's capability list (virtio 1.1
 * §4.1.4, PCI 3.0 §6.7) and what the guest may write there: MSI-X Message
 * Control and the PCI configuration access window into BAR 0 (§4.1.4.8).
 */
#include <stddef.h>
#include <string.h>

#include <linux/pci_regs.h>
#include <linux/virtio_pci.h>

#include "vdev/msix.h"
#include "virtio/virtio_pci_internal.h"

/*
 * Capabilities, dword aligned after the type 0 header (PCI 3.0 §6.7). The
 * device-specific one is optional (§4.1.4.6), so it comes last.
 */
#define CAP_COMMON		0x40
#define CAP_NOTIFY		(CAP_COMMON + sizeof(struct virtio_pci_cap))
#define CAP_ISR			(CAP_NOTIFY + sizeof(struct virtio_pci_notify_cap))
#define CAP_PCI_CFG		(CAP_ISR + sizeof(struct virtio_pci_cap))
#define CAP_MSIX		(CAP_PCI_CFG + sizeof(struct virtio_pci_cfg_cap))
#define CAP_DEVICE		(CAP_MSIX + PCI_CAP_MSIX_SIZEOF)
#define WINDOW_DATA		(CAP_PCI_CFG + offsetof(struct virtio_pci_cfg_cap, pci_cfg_data))
#define MSIX_FLAGS		(CAP_MSIX + PCI_MSIX_FLAGS)

_Static_assert(CAP_DEVICE + sizeof(struct virtio_pci_cap) <= PCI_CFG_SPACE_SIZE,
	       "capabilities overflow config space");

static bool overlaps(unsigned int offset, unsigned int size, unsigned int start,
		     unsigned int length)
{
	return offset < start + length && start < offset + size;
}

/* The BAR 0 access the window describes, if it is one the spec allows. */
static bool window_target(const struct virtio_pci *fn, uint32_t *offset, unsigned int *length)
{
	struct virtio_pci_cfg_cap cap;

	memcpy(&cap, fn->pci.config + CAP_PCI_CFG, sizeof(cap));
	*offset = cap.cap.offset;
	*length = cap.cap.length;
	return cap.cap.bar == 0 && (*length == 1 || *length == 2 || *length == 4) &&
	       virtio_pci_bar_access_valid(*offset, *length);
}

/*
 * pci.c serves config reads straight from the register bytes, with no read
 * hook, so pci_cfg_data is kept showing what a read through the window
 * would return: refreshed after anything that may change it. Such a read
 * therefore cannot clear the ISR; nothing but reads of the ISR itself does.
 */
void virtio_pci_window_refresh(struct virtio_pci *fn)
{
	uint32_t offset, value = 0;
	unsigned int length;

	if (window_target(fn, &offset, &length))
		value = virtio_pci_bar_read_one(fn, offset, length, true);
	virtio_pci_bytes_put(fn->pci.config, WINDOW_DATA, 4, value);
}

static void window_write(struct virtio_pci *fn)
{
	uint32_t offset;
	unsigned int length;

	if (window_target(fn, &offset, &length))
		virtio_pci_bar_write_one(fn, offset, length,
					 virtio_pci_config_get(fn, WINDOW_DATA, length));
}

static void config_written(struct vpci_device *dev, unsigned int offset, unsigned int size)
{
	struct virtio_pci *fn = dev->ctx;

	/* Enabled or unmasked, pending messages go out now: PCI 3.0 §6.8.2.3. */
	if (overlaps(offset, size, MSIX_FLAGS, 2))
		msix_set_control(&fn->msix_state,
				 (uint16_t)virtio_pci_config_get(fn, MSIX_FLAGS, 2));
	if (overlaps(offset, size, WINDOW_DATA, 4))
		window_write(fn);
	virtio_pci_window_refresh(fn);
}

static void cap_add_virtio(struct virtio_pci *fn, unsigned int at, uint8_t cap_len,
			   uint8_t type, uint32_t offset, uint32_t length)
{
	struct virtio_pci_cap cap = {
		.cap_vndr = PCI_CAP_ID_VNDR,
		.cap_len = cap_len,
		.cfg_type = type,
		.bar = 0,
		.offset = offset,
		.length = length,
	};

	memcpy(fn->pci.config + at, &cap, sizeof(cap));
}

void virtio_pci_caps_init(struct virtio_pci *fn)
{
	uint8_t *config = fn->pci.config, *mask = fn->pci.write_mask;

	fn->pci.written = config_written;
	fn->pci.ctx = fn;
	config[PCI_CAPABILITY_LIST] = CAP_COMMON;
	virtio_pci_bytes_put(config, PCI_STATUS, 2, PCI_STATUS_CAP_LIST);

	cap_add_virtio(fn, CAP_COMMON, sizeof(struct virtio_pci_cap), VIRTIO_PCI_CAP_COMMON_CFG,
		       BAR_COMMON, COMMON_SIZE);
	config[CAP_COMMON + PCI_CAP_LIST_NEXT] = CAP_NOTIFY;

	/* §4.1.4.4.1: covers queue_notify_off * multiplier + 2 for every queue. */
	cap_add_virtio(fn, CAP_NOTIFY, sizeof(struct virtio_pci_notify_cap),
		       VIRTIO_PCI_CAP_NOTIFY_CFG, BAR_NOTIFY,
		       fn->dev->num_queues * NOTIFY_MULTIPLIER);
	virtio_pci_bytes_put(config, CAP_NOTIFY + VIRTIO_PCI_NOTIFY_CAP_MULT, 4, NOTIFY_MULTIPLIER);
	config[CAP_NOTIFY + PCI_CAP_LIST_NEXT] = CAP_ISR;

	cap_add_virtio(fn, CAP_ISR, sizeof(struct virtio_pci_cap), VIRTIO_PCI_CAP_ISR_CFG,
		       BAR_ISR, 1);
	config[CAP_ISR + PCI_CAP_LIST_NEXT] = CAP_PCI_CFG;

	/* §4.1.4.8: bar, offset, length and data are the driver's to write. */
	cap_add_virtio(fn, CAP_PCI_CFG, sizeof(struct virtio_pci_cfg_cap), VIRTIO_PCI_CAP_PCI_CFG,
		       0, 0);
	config[CAP_PCI_CFG + PCI_CAP_LIST_NEXT] = CAP_MSIX;
	virtio_pci_bytes_put(mask, CAP_PCI_CFG + VIRTIO_PCI_CAP_BAR, 1, 0xff);
	virtio_pci_bytes_put(mask, CAP_PCI_CFG + VIRTIO_PCI_CAP_OFFSET, 4, 0xffffffff);
	virtio_pci_bytes_put(mask, CAP_PCI_CFG + VIRTIO_PCI_CAP_LENGTH, 4, 0xffffffff);
	virtio_pci_bytes_put(mask, WINDOW_DATA, 4, 0xffffffff);

	/* PCI 3.0 §6.8.2.3: Table Size is N - 1; enable and function mask are writable. */
	config[CAP_MSIX + PCI_CAP_LIST_ID] = PCI_CAP_ID_MSIX;
	virtio_pci_bytes_put(config, MSIX_FLAGS, 2, virtio_pci_vectors(fn) - 1);
	virtio_pci_bytes_put(mask, MSIX_FLAGS, 2, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	/* Both in BAR 0: BIR, the offsets' low 3 bits, is 0 (PCI 3.0 §6.8.2.4-5). */
	virtio_pci_bytes_put(config, CAP_MSIX + PCI_MSIX_TABLE, 4, BAR_MSIX_TABLE);
	virtio_pci_bytes_put(config, CAP_MSIX + PCI_MSIX_PBA, 4, BAR_MSIX_PBA);
	if (!fn->dev->ops->config_size)
		return;		/* §4.1.4.6: only a device with a config has one */
	config[CAP_MSIX + PCI_CAP_LIST_NEXT] = CAP_DEVICE;
	cap_add_virtio(fn, CAP_DEVICE, sizeof(struct virtio_pci_cap), VIRTIO_PCI_CAP_DEVICE_CFG,
		       BAR_DEVICE, fn->dev->ops->config_size);
}
