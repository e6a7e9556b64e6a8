/* SPDX-License-Identifier: MIT */
/*
 * guest_console.c - wires a guest's virtio-console device model to its
 * virtio-pci function and its vCPUs. Every entry takes the device's lock;
 * a kick on the transmitq is served before the kicking vCPU returns to
 * the guest, so Linux's console driver, which waits for each buffer to
 * come back, waits no longer than the exit.
 */
#include <string.h>

#include <linux/virtio_ids.h>
#include <linux/virtio_pci.h>

#include "arch/console.h"
#include "config/guest_layout.h"
#include "guest/guest.h"
#include "guest/guest_console.h"
#include "guest/guest_log.h"
#include "guest/guest_virtio.h"
#include "lib/container.h"
#include "mm/page_alloc.h"

/* Linux's driver keeps one buffer in flight on the transmitq and a few on the receiveq. */
#define GUEST_CONSOLE_QUEUE_SIZE	64

static void guest_console_line(void *ctx, const char *line)
{
	guest_log(ctx, "%s\n", line);
}

static void guest_console_send_msi(void *ctx, uint64_t address, uint32_t data)
{
	struct guest_console *gc = ctx;

	guest_virtio_send_msi(gc->guest, "virtio-console", &gc->bad_msi, address, data);
}

static void guest_console_interrupt(struct virtio_console *dev, unsigned int queue)
{
	struct guest_console *gc = dev->ctx;

	virtio_pci_interrupt(&gc->pci, queue);
}

static uint32_t guest_console_config_read(void *ctx, unsigned int offset, unsigned int size)
{
	struct guest_console *gc = ctx;

	return virtio_console_read_config(&gc->console, offset, size);
}

static bool guest_console_queue_enable(void *ctx, unsigned int queue, uint16_t size,
				       uint64_t desc, uint64_t driver, uint64_t device)
{
	struct guest_console *gc = ctx;
	struct virtq_layout layout = { .size = size, .desc = desc, .avail = driver,
				       .used = device };

	return virtio_console_enable_queue(&gc->console, queue, &layout,
					   virtio_pci_driver_features(&gc->pci)) == 0;
}

static void guest_console_driver_ok(void *ctx, uint64_t features)
{
	struct guest_console *gc = ctx;

	(void)features;
	virtio_console_start(&gc->console);
	gc->needs_reset_reported = false;
}

static void guest_console_device_reset(void *ctx)
{
	struct guest_console *gc = ctx;

	virtio_console_reset(&gc->console);
	gc->needs_reset_reported = false;
}

static const struct virtio_pci_device_ops guest_console_ops = {
	.device_id = VIRTIO_ID_CONSOLE,
	.num_queues = VIRTIO_CONSOLE_QUEUES,
	.queue_size_max = GUEST_CONSOLE_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_console_config),
	.config_read = guest_console_config_read,
	.queue_enable = guest_console_queue_enable,
	.driver_ok = guest_console_driver_ok,
	.reset = guest_console_device_reset,
};

static void guest_console_reset(struct guest_device *dev)
{
	struct guest_console *gc = container_of(dev, struct guest_console, dev);

	guest_virtio_reset(&gc->pci, &gc->lock);
}

/*
 * A kick is served here and now, so it is no doorbell: *notify stays false.
 * A reset on another vCPU between the two holds leaves the kick nothing to do.
 */
static bool guest_console_mmio(struct guest_device *dev, uint64_t gpa, unsigned int size,
			       bool write, uint64_t *value, bool *notify)
{
	struct guest_console *gc = container_of(dev, struct guest_console, dev);
	int queue = guest_virtio_mmio(&gc->pci, &gc->lock, gpa, size, write, value);

	(void)notify;
	if (queue < 0)
		return queue != GUEST_VIRTIO_UNCLAIMED;
	spin_lock(&gc->lock);
	virtio_console_kick(&gc->console, (unsigned int)queue);
	if (virtio_console_needs_reset(&gc->console) && !gc->needs_reset_reported) {
		gc->needs_reset_reported = true;
		guest_log(gc->guest, "virtio-console: device needs reset\n");
		virtio_pci_mark_needs_reset(&gc->pci);
	}
	spin_unlock(&gc->lock);
	return true;
}

#define GUEST_CONSOLE_BYTES \
	((sizeof(struct guest_console) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))

static void guest_console_release(struct guest_device *dev)
{
	struct guest_console *gc = container_of(dev, struct guest_console, dev);

	page_free_node(gc->guest->node, (uint64_t)(uintptr_t)gc, GUEST_CONSOLE_BYTES);
}

static const struct guest_device_ops guest_console_device_ops = {
	.mmio = guest_console_mmio,
	.reset = guest_console_reset,
	.release = guest_console_release,
};

bool guest_console_create(struct guest *g)
{
	struct guest_console *gc = (struct guest_console *)(uintptr_t)
		page_alloc_node(g->node, GUEST_CONSOLE_BYTES, PAGE_SIZE);

	if (!gc)
		goto fail;
	memset(gc, 0, sizeof(*gc));
	gc->guest = g;
	gc->dev = (struct guest_device){ "virtio-console", &guest_console_device_ops,
					 &gc->pci.pci, 0 };
	gc->mem.base = (uint8_t *)(uintptr_t)g->ram_hpa;
	gc->mem.size = g->ram_size;
	guest_log_gate_init(&gc->log_gate, g);
	gc->mem.log = &gc->log_gate;
	virtio_console_init(&gc->console, g->name, &gc->mem, guest_console_line, g,
			    guest_console_interrupt, gc);
	if (!guest_device_add(g, &gc->dev)) {
		guest_console_release(&gc->dev);
		goto fail;
	}
	/* Registered: if it fails now, guest_device_remove_all() releases it. */
	if (!virtio_pci_init(&gc->pci, g->name, &guest_console_ops, gc, guest_console_send_msi, gc,
			     GUEST_PCI_MMIO_GPA + gc->dev.slot * VIRTIO_PCI_BAR_SIZE))
		goto fail;
	gc->pci.pci.lock = &gc->lock;
	virtio_pci_set_log_gate(&gc->pci, &gc->log_gate);
	return true;
fail:
	printk("guest %s: cannot create its virtio console\n", g->name);
	return false;
}
