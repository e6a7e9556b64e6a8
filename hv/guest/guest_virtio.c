/* SPDX-License-Identifier: MIT */
/*
 * guest_virtio.c - the one glue between a guest's virtio device models,
 * their virtio-pci functions, its vCPUs and its sidecore (guest_virtio.h).
 */
#include <stddef.h>
#include <string.h>

#include <linux/virtio_pci.h>

#include "arch/console.h"
#include "config/guest_layout.h"
#include "guest/guest.h"
#include "guest/guest_device.h"
#include "guest/guest_log.h"
#include "guest/guest_virtio.h"
#include "lib/container.h"
#include "mm/page_alloc.h"
#include "sidecore/sidecore.h"

/* The first dropped message of a device is reported; all are counted in bad_msi. */
static void guest_virtio_msi(void *ctx, uint64_t address, uint32_t data)
{
	struct guest_virtio *gv = ctx;
	const char *dropped = guest_msi_send(gv->guest, &gv->msi_memo, address, data);

	if (dropped && !gv->bad_msi++)
		guest_log(gv->guest, "%s: MSI address %#lx data %#x: %s, dropped\n", gv->dev.name,
			  address, data, dropped);
}

/* guest_virtio_mmio(): no BAR of this function is at the address. */
#define GUEST_VIRTIO_UNCLAIMED	(-2)

/*
 * A vCPU's access to a function's BAR, decoded and carried out under one
 * hold of lock: a config write on another vCPU may move the BAR. Returns
 * VIRTIO_PCI_NO_NOTIFY for an access that notified no queue, the queue a
 * store notified, or GUEST_VIRTIO_UNCLAIMED.
 */
static int guest_virtio_mmio(struct virtio_pci *fn, struct spinlock *lock, uint64_t gpa,
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

/* A restart's reset of a function, as the driver's write of 0 to device_status (§2.1.2). */
static void guest_virtio_reset(struct virtio_pci *fn, struct spinlock *lock)
{
	spin_lock(lock);
	virtio_pci_bar_write(fn, offsetof(struct virtio_pci_common_cfg, device_status), 1, 0);
	spin_unlock(lock);
}

static struct guest_virtio *to_guest_virtio(struct guest_device *dev)
{
	return container_of(dev, struct guest_virtio, dev);
}

static void guest_virtio_line(void *ctx, const char *line)
{
	guest_log(ctx, "%s\n", line);
}

/* A failure is the model's to tell once (virtio_dev_fail()); the transport shows it. */
static void guest_virtio_interrupt(struct virtio_dev *vdev, unsigned int source)
{
	struct guest_virtio *gv = vdev->ctx;

	if (source == VIRTIO_DEV_CONFIG_CHANGE && virtio_dev_needs_reset(vdev))
		guest_log(gv->guest, "%s: device needs reset\n", gv->dev.name);
	virtio_pci_dev_interrupt(&gv->pci, source);
}

/* A sidecore idling with nothing live waits for this (sidecore_wake()). */
static void guest_virtio_started(struct virtio_dev *vdev)
{
	struct guest_virtio *gv = vdev->ctx;

	sidecore_wake(gv->sidecore);
}

static void guest_virtio_restart(struct guest_device *dev)
{
	struct guest_virtio *gv = to_guest_virtio(dev);

	guest_virtio_reset(&gv->pci, gv->guard);
}

/*
 * A sidecore-served queue's notification is a doorbell, counted and
 * otherwise ignored: the sidecore polls. A vCPU-served one is served here
 * and now, so it is no doorbell; a reset on another vCPU between the two
 * holds leaves the kick nothing to do.
 */
static bool guest_virtio_mmio_access(struct guest_device *dev, uint64_t gpa, unsigned int size,
				     bool write, uint64_t *value, bool *notify)
{
	struct guest_virtio *gv = to_guest_virtio(dev);
	int queue = guest_virtio_mmio(&gv->pci, gv->guard, gpa, size, write, value);

	if (queue < 0)
		return queue != GUEST_VIRTIO_UNCLAIMED;
	if (gv->sidecore) {
		*notify = true;
		return true;
	}
	spin_lock(gv->guard);
	gv->vdev->ops->kick(gv->vdev, (unsigned int)queue);
	spin_unlock(gv->guard);
	return true;
}

/* The model sits after the glue, on a cache line of its own. */
#define GUEST_VIRTIO_MODEL_OFFSET	((sizeof(struct guest_virtio) + 63) & ~(size_t)63)

static void guest_virtio_release(struct guest_device *dev)
{
	struct guest_virtio *gv = to_guest_virtio(dev);

	if (gv->sidecore)
		sidecore_detach(gv->sidecore, &gv->vdev->port);
	if (gv->unlink)
		gv->unlink(gv);
	page_free_node(gv->guest->node, (uint64_t)(uintptr_t)gv, gv->bytes);
}

static const struct guest_device_ops guest_virtio_device_ops = {
	.mmio = guest_virtio_mmio_access,
	.reset = guest_virtio_restart,
	.release = guest_virtio_release,
};

/* The registered gv's model, function and port; NULL, or why not. */
static const char *guest_virtio_init(struct guest_virtio *gv, const struct virtio_dev_ops *ops,
				     const void *type)
{
	struct guest *g = gv->guest;
	struct virtio_dev_params params = {
		.name = g->name, .mem = &gv->mem, .interrupt = guest_virtio_interrupt, .ctx = gv,
		.sink = guest_virtio_line, .sink_ctx = g, .type = type,
	};
	const char *refused;

	gv->mem.base = (uint8_t *)(uintptr_t)g->ram_hpa;
	gv->mem.size = g->ram_size;
	guest_log_gate_init(&gv->log_gate, g);
	gv->mem.log = &gv->log_gate;
	refused = ops->init(gv->vdev, &params);
	if (refused)
		return refused;
	if (gv->sidecore)
		gv->vdev->started = guest_virtio_started;
	if (!virtio_pci_init(&gv->pci, gv->vdev, guest_virtio_msi, gv,
			     GUEST_PCI_MMIO_GPA + gv->dev.slot * VIRTIO_PCI_BAR_SIZE))
		return "no PCI function";
	gv->pci.pci.lock = gv->guard;
	virtio_pci_set_log_gate(&gv->pci, &gv->log_gate);
	if (gv->sidecore && !sidecore_attach(gv->sidecore, &gv->vdev->port))
		return "its sidecore has no room";
	return NULL;
}

struct guest_virtio *guest_virtio_create(struct guest *g, struct sidecore *sc,
					 const struct virtio_dev_ops *ops, const void *type)
{
	uint64_t bytes = (GUEST_VIRTIO_MODEL_OFFSET + ops->size + PAGE_SIZE - 1) &
			 ~(PAGE_SIZE - 1);
	struct guest_virtio *gv = (struct guest_virtio *)(uintptr_t)
		page_alloc_node(g->node, bytes, PAGE_SIZE);
	const char *refused = "out of memory";

	if (gv) {
		memset(gv, 0, bytes);
		gv->guest = g;
		gv->sidecore = sc;
		gv->guard = sc ? &sc->lock : &gv->lock;
		gv->bytes = bytes;
		gv->vdev = (struct virtio_dev *)((uint8_t *)gv + GUEST_VIRTIO_MODEL_OFFSET);
		gv->dev = (struct guest_device){ ops->kind, &guest_virtio_device_ops,
						 &gv->pci.pci, 0 };
		refused = "no room on its bus";
		if (!guest_device_add(g, &gv->dev)) {
			guest_virtio_release(&gv->dev);
			gv = NULL;
		}
	}
	/* Registered: if it fails now, guest_device_remove_all() releases it. */
	if (gv)
		refused = guest_virtio_init(gv, ops, type);
	if (!refused)
		return gv;
	printk("guest %s: cannot create its %s: %s\n", g->name, ops->kind, refused);
	return NULL;
}

const struct guest_virtio *guest_virtio_find(const struct guest *g,
					     const struct virtio_dev_ops *ops)
{
	for (unsigned int i = 0; i < g->device_count; i++) {
		const struct guest_virtio *gv;

		/* Its ops table, not its name, says a device is this glue's. */
		if (g->device[i]->ops != &guest_virtio_device_ops)
			continue;
		gv = container_of(g->device[i], struct guest_virtio, dev);
		if (gv->vdev->ops == ops)
			return gv;
	}
	return NULL;
}
