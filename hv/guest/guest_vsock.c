/* SPDX-License-Identifier: MIT */
/*
 * guest_vsock.c - wires a guest's virtio-vsock device model to its
 * virtio-pci function, its sidecore and its vCPUs.
 *
 * Locking is guest_net.c's: the sidecore's lock guards the whole device,
 * struct virtio_pci and struct virtio_vsock alike. BAR accesses take it,
 * the bus takes it as the function's lock around configuration accesses,
 * the poll pass holds it, and so does a restart's device reset. A pass
 * delivering to a device of another sidecore takes that sidecore's lock
 * too: it waits for it when the other sidecore's index is higher, and
 * only tries it (spin_trylock) when lower, so two sidecores sending to
 * each other cannot deadlock. Order: the bus lock, then the sidecore lock, then
 * the console's lock. The CID table is filled at boot, before any pass.
 */
#include <stddef.h>
#include <string.h>

#include <linux/virtio_ids.h>
#include <linux/virtio_pci.h>

#include "arch/console.h"
#include "arch/spinlock.h"
#include "arch/tsc.h"
#include "config/guest_layout.h"
#include "guest/guest.h"
#include "guest/guest_log.h"
#include "guest/guest_net.h"
#include "guest/guest_virtio.h"
#include "guest/guest_vsock.h"
#include "lib/container.h"
#include "mm/page_alloc.h"
#include "sidecore/sidecore.h"

/*
 * Linux keeps its receiveq full of 4 KiB buffers, so that a 64 KiB packet,
 * cut into 16 of them, always finds room while the guest keeps up.
 */
#define GUEST_VSOCK_QUEUE_SIZE	128

/* The largest vsock packet a pass copies fits a port's bytes (docs/data-path.md). */
_Static_assert(sizeof(struct virtio_vsock_hdr) + VIRTIO_VSOCK_PAYLOAD_MAX <= SIDECORE_BYTES,
	       "a vsock packet would overdraw a pass on its own");

/* Every guest's device, whichever sidecore serves it. */
static struct virtio_vsock_table guest_vsock_table;

/* A sidecore's lock as the devices it serves see it (virtio_vsock_domain). */
struct guest_vsock_domain {
	struct virtio_vsock_domain domain;
	struct spinlock *lock;
};

static struct guest_vsock_domain guest_vsock_domains[NET_MAX_SIDECORES];

static void guest_vsock_lock(struct virtio_vsock_domain *domain)
{
	spin_lock(container_of(domain, struct guest_vsock_domain, domain)->lock);
}

static bool guest_vsock_trylock(struct virtio_vsock_domain *domain)
{
	return spin_trylock(container_of(domain, struct guest_vsock_domain, domain)->lock);
}

static void guest_vsock_unlock(struct virtio_vsock_domain *domain)
{
	spin_unlock(container_of(domain, struct guest_vsock_domain, domain)->lock);
}

static struct virtio_vsock_domain *guest_vsock_domain(struct sidecore *sc)
{
	struct guest_vsock_domain *d = &guest_vsock_domains[sc->index];

	d->domain = (struct virtio_vsock_domain){ guest_vsock_lock, guest_vsock_trylock,
						  guest_vsock_unlock, sc->index,
						  net_switch_meter(sc->sw, sc->index) };
	d->lock = &sc->lock;
	return &d->domain;
}

static void guest_vsock_send_msi(void *ctx, uint64_t address, uint32_t data)
{
	struct guest_vsock *gv = ctx;

	guest_virtio_send_msi(gv->guest, "virtio-vsock", &gv->bad_msi, address, data);
}

static void guest_vsock_interrupt(struct virtio_vsock *dev, unsigned int source)
{
	struct guest_vsock *gv = dev->ctx;

	if (source == VIRTIO_VSOCK_CONFIG_CHANGE)
		virtio_pci_config_interrupt(&gv->pci);
	else
		virtio_pci_interrupt(&gv->pci, source);
}

static uint32_t guest_vsock_config_read(void *ctx, unsigned int offset, unsigned int size)
{
	struct guest_vsock *gv = ctx;

	return virtio_vsock_read_config(&gv->vsock, offset, size);
}

static bool guest_vsock_queue_enable(void *ctx, unsigned int queue, uint16_t size,
				     uint64_t desc, uint64_t driver, uint64_t device)
{
	struct guest_vsock *gv = ctx;
	struct virtq_layout layout = { .size = size, .desc = desc, .avail = driver,
				       .used = device };

	/* The rings' format depends on what was negotiated (event index, indirect). */
	if (!virtio_vsock_set_features(&gv->vsock, virtio_pci_driver_features(&gv->pci)))
		return false;
	return virtio_vsock_enable_queue(&gv->vsock, queue, &layout) == 0;
}

static void guest_vsock_driver_ok(void *ctx, uint64_t features)
{
	struct guest_vsock *gv = ctx;

	virtio_vsock_set_features(&gv->vsock, features);
	virtio_vsock_start(&gv->vsock);
	gv->needs_reset_reported = false;
	sidecore_wake(gv->sidecore);
}

static void guest_vsock_device_reset(void *ctx)
{
	struct guest_vsock *gv = ctx;

	virtio_vsock_reset(&gv->vsock);
	gv->needs_reset_reported = false;
}

static const struct virtio_pci_device_ops guest_vsock_ops = {
	.device_id = VIRTIO_ID_VSOCK,
	.features = VIRTIO_VSOCK_DEVICE_FEATURES,
	.num_queues = VIRTIO_VSOCK_QUEUES,
	.queue_size_max = GUEST_VSOCK_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_vsock_config),
	.config_read = guest_vsock_config_read,
	.queue_enable = guest_vsock_queue_enable,
	.driver_ok = guest_vsock_driver_ok,
	.reset = guest_vsock_device_reset,
};

static void guest_vsock_reset(struct guest_device *dev)
{
	struct guest_vsock *gv = container_of(dev, struct guest_vsock, dev);

	guest_virtio_reset(&gv->pci, &gv->sidecore->lock);
}

static bool guest_vsock_mmio(struct guest_device *dev, uint64_t gpa, unsigned int size,
			     bool write, uint64_t *value, bool *notify)
{
	struct guest_vsock *gv = container_of(dev, struct guest_vsock, dev);
	int result = guest_virtio_mmio(&gv->pci, &gv->sidecore->lock, gpa, size, write, value);

	*notify = result >= 0;
	return result != GUEST_VIRTIO_UNCLAIMED;
}

#define GUEST_VSOCK_BYTES ((sizeof(struct guest_vsock) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))

static void guest_vsock_release(struct guest_device *dev)
{
	struct guest_vsock *gv = container_of(dev, struct guest_vsock, dev);

	sidecore_detach(gv->sidecore, &gv->port);
	virtio_vsock_table_remove(&guest_vsock_table, &gv->vsock);
	page_free_node(gv->guest->node, (uint64_t)(uintptr_t)gv, GUEST_VSOCK_BYTES);
}

static const struct guest_device_ops guest_vsock_device_ops = {
	.mmio = guest_vsock_mmio,
	.reset = guest_vsock_reset,
	.release = guest_vsock_release,
};

static bool guest_vsock_live(const struct sidecore_port *port)
{
	const struct guest_vsock *gv = container_of(port, struct guest_vsock, port);

	return virtio_vsock_active(&gv->vsock);
}

static unsigned int guest_vsock_poll(struct sidecore_port *port, unsigned int budget)
{
	struct guest_vsock *gv = container_of(port, struct guest_vsock, port);

	return virtio_vsock_poll_tx(&gv->vsock, budget);
}

/* Publishes the pass's packets and reports a broken device once. */
static void guest_vsock_flush(struct sidecore_port *port, uint64_t now)
{
	struct guest_vsock *gv = container_of(port, struct guest_vsock, port);

	virtio_vsock_flush(&gv->vsock, now);
	if (virtio_vsock_needs_reset(&gv->vsock) && !gv->needs_reset_reported) {
		gv->needs_reset_reported = true;
		guest_log(gv->guest, "virtio-vsock: device needs reset\n");
		virtio_pci_mark_needs_reset(&gv->pci);
	}
}

static void guest_vsock_print_counters(const struct sidecore_port *port, unsigned int sidecore)
{
	const struct guest_vsock *gv = container_of(port, struct guest_vsock, port);
	const struct virtio_vsock_stats *s = &gv->vsock.stats;

	printk("counters: vsock %s sidecore %u cid %lu packets %lu bytes %lu remote %lu rsts %lu "
	       "dropped %lu resets %lu credit_stalls %lu busy %lu peer_gone %lu spoofed %lu "
	       "echoed %lu discarded %lu held %lu doorbells %lu\n",
	       gv->vsock.name, sidecore, gv->vsock.cid, s->packets, s->bytes, s->remote, s->rsts,
	       s->dropped, s->resets, s->credit_stalls, s->busy, s->peer_gone, s->spoofed,
	       s->echoed, s->discarded, s->held, gv->pci.kicks);
}

/*
 * CID 2's counters service: the asking guest's own lines of the counters
 * snapshot (docs/data-path.md, "Counters"), its vCPUs', its NIC's and its
 * vsock device's, written into buf instead of onto the console; no other
 * guest's, no sidecore's, no TSC (docs/security.md). Called in the
 * sidecore's pass, at most once per VIRTIO_VSOCK_COUNTERS_MS.
 */
static unsigned int guest_vsock_snapshot(void *ctx, char *buf, unsigned int size)
{
	struct guest_vsock *gv = ctx;
	struct console_capture capture = { .buf = buf, .size = size };

	console_capture(&capture);
	guest_print_counters(gv->guest);
	guest_net_print_own_counters(gv->guest);
	guest_vsock_print_counters(&gv->port, gv->sidecore->index);
	console_capture(NULL);
	return capture.len;
}

static const struct sidecore_port_ops guest_vsock_port_ops = {
	.live = guest_vsock_live,
	.poll = guest_vsock_poll,
	.flush = guest_vsock_flush,
	.print_counters = guest_vsock_print_counters,
};

/*
 * Zeroes gv and puts it on g's bus for sc; false, with nothing registered,
 * when g has no room.
 */
static bool guest_vsock_register(struct guest_vsock *gv, struct guest *g, struct sidecore *sc)
{
	memset(gv, 0, sizeof(*gv));
	gv->guest = g;
	gv->sidecore = sc;
	gv->dev = (struct guest_device){ "virtio-vsock", &guest_vsock_device_ops, &gv->pci.pci, 0 };
	return guest_device_add(g, &gv->dev);
}

/* The registered device in gv, attached to sc; memory is the caller's. */
static bool guest_vsock_init(struct guest_vsock *gv, struct guest *g, struct sidecore *sc,
			     uint32_t cid)
{
	struct virtio_vsock_params params = {
		.name = g->name,
		.cid = cid,
		.mem = &gv->mem,
		.table = &guest_vsock_table,
		.domain = guest_vsock_domain(sc),
		.interrupt = guest_vsock_interrupt,
		/* Off unless the guest's section asks for it (docs/config.md). */
		.snapshot = g->config->vsock_counters ? guest_vsock_snapshot : NULL,
		.ctx = gv,
		.stall_timeout = tsc_hz() / 1000 * VIRTIO_VSOCK_STALL_MS,
		.counters_interval = tsc_hz() / 1000 * VIRTIO_VSOCK_COUNTERS_MS,
		.request_interval = tsc_hz() / VIRTIO_VSOCK_HOST_REQUESTS,
	};

	gv->port.ops = &guest_vsock_port_ops;
	gv->mem.base = (uint8_t *)(uintptr_t)g->ram_hpa;
	gv->mem.size = g->ram_size;
	guest_log_gate_init(&gv->log_gate, g);
	gv->mem.log = &gv->log_gate;

	if (!virtio_vsock_init(&gv->vsock, &params) ||
	    !virtio_pci_init(&gv->pci, g->name, &guest_vsock_ops, gv, guest_vsock_send_msi, gv,
			     GUEST_PCI_MMIO_GPA + gv->dev.slot * VIRTIO_PCI_BAR_SIZE))
		return false;
	gv->pci.pci.lock = &sc->lock;
	virtio_pci_set_log_gate(&gv->pci, &gv->log_gate);
	return virtio_vsock_table_add(params.table, &gv->vsock) && sidecore_attach(sc, &gv->port);
}

bool guest_vsock_create(struct guest *g, struct sidecore *sc, uint32_t cid)
{
	struct guest_vsock *gv = (struct guest_vsock *)(uintptr_t)page_alloc_node(g->node,
										  GUEST_VSOCK_BYTES,
										  PAGE_SIZE);

	if (!gv)
		goto fail;
	if (!guest_vsock_register(gv, g, sc)) {
		guest_vsock_release(&gv->dev);
		goto fail;
	}
	/* Registered: if it fails now, guest_device_remove_all() releases it. */
	if (guest_vsock_init(gv, g, sc, cid))
		return true;
fail:
	printk("guest %s: cannot create its virtio-vsock device\n", g->name);
	return false;
}
