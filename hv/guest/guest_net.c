/* SPDX-License-Identifier: MIT */
/*
 * guest_net.c - wires a guest's virtio-net device model to its virtio-pci
 * function, its sidecore and its vCPUs.
 *
 * Locking. The sidecore's lock guards the whole device, struct virtio_pci
 * and struct virtio_net alike (virtio_pci.c takes no lock of its own); it
 * is the function's lock, since one pass of the sidecore delivers into the
 * receive queues of every device it serves:
 *   - BAR accesses from any vCPU: guest_net_mmio() takes it around decode
 *     and access, so the BAR cannot move in between;
 *   - configuration accesses (CF8/CFC, ECAM) from any vCPU: the bus takes
 *     it as the function's lock, inside its own (vdev/pci.h), and runs the
 *     function's written hook inside both;
 *   - the sidecore's poll pass, which raises interrupts through
 *     guest_net_interrupt() and the port's flush;
 *   - a restart's device reset (guest_net_reset()).
 * Order: the bus lock, then the sidecore lock, then the console's lock
 * (printk and the MSI path may run under both). Nothing takes the bus
 * lock while holding the sidecore's.
 */
#include <stddef.h>
#include <string.h>

#include <linux/virtio_pci.h>

#include "arch/console.h"
#include "arch/spinlock.h"
#include "arch/tsc.h"
#include "config/guest_layout.h"
#include "guest/guest.h"
#include "guest/guest_log.h"
#include "guest/guest_net.h"
#include "guest/guest_virtio.h"
#include "lib/container.h"
#include "mm/page_alloc.h"
#include "sidecore/sidecore.h"

#define GUEST_NET_QUEUE_SIZE	256

/*
 * Every queue its own MSI-X vector, and one for configuration changes:
 * Linux asks for a vector per queue that has a callback plus the config
 * one, and shares a single vector between all queues if it gets fewer.
 */
_Static_assert(VIRTIO_NET_MAX_QUEUES <= VIRTIO_PCI_QUEUES_MAX,
	       "the transport must show every queue, each with a vector");

static void guest_net_send_msi(void *ctx, uint64_t address, uint32_t data)
{
	struct guest_net *gn = ctx;

	guest_virtio_send_msi(gn->guest, "virtio-net", &gn->bad_msi, address, data);
}

static void guest_net_interrupt(struct virtio_net *dev, unsigned int source)
{
	struct guest_net *gn = dev->ctx;

	if (source == VIRTIO_NET_CONFIG_CHANGE)
		virtio_pci_config_interrupt(&gn->pci);
	else
		virtio_pci_interrupt(&gn->pci, source);
}

static uint32_t guest_net_config_read(void *ctx, unsigned int offset, unsigned int size)
{
	struct guest_net *gn = ctx;

	return virtio_net_read_config(&gn->net, offset, size);
}

static bool guest_net_queue_enable(void *ctx, unsigned int queue, uint16_t size,
				   uint64_t desc, uint64_t driver, uint64_t device)
{
	struct guest_net *gn = ctx;
	struct virtq_layout layout = { .size = size, .desc = desc, .avail = driver,
				       .used = device };

	/* The rings' format depends on what was negotiated (event index, indirect). */
	if (!virtio_net_set_features(&gn->net, virtio_pci_driver_features(&gn->pci)))
		return false;
	return virtio_net_enable_queue(&gn->net, queue, &layout) == 0;
}

static void guest_net_driver_ok(void *ctx, uint64_t features)
{
	struct guest_net *gn = ctx;

	virtio_net_set_features(&gn->net, features);
	virtio_net_start(&gn->net);
	gn->needs_reset_reported = false;
	sidecore_wake(gn->sidecore);
}

static void guest_net_device_reset(void *ctx)
{
	struct guest_net *gn = ctx;

	virtio_net_reset(&gn->net);
	gn->needs_reset_reported = false;
}

/* What every guest's NIC tells the transport; features and queues are its own. */
static const struct virtio_pci_device_ops guest_net_ops = {
	.device_id = VIRTIO_ID_NET,
	.queue_size_max = GUEST_NET_QUEUE_SIZE,
	.config_size = sizeof(struct virtio_net_config),
	.config_read = guest_net_config_read,
	.queue_enable = guest_net_queue_enable,
	.driver_ok = guest_net_driver_ok,
	.reset = guest_net_device_reset,
};

static void guest_net_reset(struct guest_device *dev)
{
	struct guest_net *gn = container_of(dev, struct guest_net, dev);

	guest_virtio_reset(&gn->pci, &gn->sidecore->lock);
}

static bool guest_net_mmio(struct guest_device *dev, uint64_t gpa, unsigned int size,
			   bool write, uint64_t *value, bool *notify)
{
	struct guest_net *gn = container_of(dev, struct guest_net, dev);
	int result = guest_virtio_mmio(&gn->pci, &gn->sidecore->lock, gpa, size, write, value);

	*notify = result >= 0;
	return result != GUEST_VIRTIO_UNCLAIMED;
}

#define GUEST_NET_BYTES	((sizeof(struct guest_net) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))

static void guest_net_release(struct guest_device *dev)
{
	struct guest_net *gn = container_of(dev, struct guest_net, dev);

	sidecore_detach(gn->sidecore, &gn->port);
	net_switch_remove_port(gn->sidecore->sw, &gn->net.port);
	page_free_node(gn->guest->node, (uint64_t)(uintptr_t)gn, GUEST_NET_BYTES);
}

static const struct guest_device_ops guest_net_device_ops = {
	.mmio = guest_net_mmio,
	.reset = guest_net_reset,
	.release = guest_net_release,
};

static bool guest_net_live(const struct sidecore_port *port)
{
	const struct guest_net *gn = container_of(port, struct guest_net, port);

	return gn->net.running && !virtio_net_needs_reset(&gn->net);
}

static unsigned int guest_net_poll(struct sidecore_port *port, unsigned int budget)
{
	struct guest_net *gn = container_of(port, struct guest_net, port);

	return virtio_net_poll_tx(&gn->net, budget);
}

/* Publishes what is due (virtio_net_flush()) and reports a broken device once. */
static void guest_net_flush(struct sidecore_port *port, uint64_t now)
{
	struct guest_net *gn = container_of(port, struct guest_net, port);

	virtio_net_flush(&gn->net, now);
	if (virtio_net_needs_reset(&gn->net) && !gn->needs_reset_reported) {
		gn->needs_reset_reported = true;
		guest_log(gn->guest, "virtio-net: device needs reset\n");
		virtio_pci_mark_needs_reset(&gn->pci);
	}
}

/*
 * The port's line, then with several queue pairs one line per pair the
 * driver may switch on (docs/data-path.md, "Counters"); a single pair's
 * would repeat the port's.
 */
static void guest_net_print_counters(const struct sidecore_port *port, unsigned int sidecore)
{
	const struct guest_net *gn = container_of(port, struct guest_net, port);
	const struct net_port_stats *s = &gn->net.port.stats;

	printk("counters: port %s sidecore %u tx_packets %lu tx_bytes %lu tx_drops %lu "
	       "tx_spoofed %lu tx_oversized %lu tx_unknown %lu tx_storm %lu "
	       "rx_packets %lu rx_bytes %lu rx_drops %lu doorbells %lu\n",
	       gn->net.name, sidecore, s->tx_packets, s->tx_bytes, s->tx_drops,
	       s->tx_spoofed, s->tx_oversized, s->tx_unknown, s->tx_storm,
	       s->rx_packets, s->rx_bytes, s->rx_drops, gn->pci.kicks);
	if (gn->net.max_pairs == 1)
		return;
	for (unsigned int i = 0; i < gn->net.max_pairs; i++) {
		const struct virtio_net_queue_stats *q = &gn->net.pair[i].stats;

		printk("counters: port %s queue %u rx_packets %lu rx_bytes %lu "
		       "tx_packets %lu tx_bytes %lu\n", gn->net.name, i,
		       q->rx_packets, q->rx_bytes, q->tx_packets, q->tx_bytes);
	}
}

void guest_net_print_own_counters(const struct guest *g)
{
	for (unsigned int i = 0; i < g->device_count; i++) {
		const struct guest_net *gn;

		/* Its ops table, not its name, says a device is a guest_net. */
		if (g->device[i]->ops != &guest_net_device_ops)
			continue;
		gn = container_of(g->device[i], struct guest_net, dev);
		guest_net_print_counters(&gn->port, gn->sidecore->index);
	}
}

static const struct sidecore_port_ops guest_net_port_ops = {
	.live = guest_net_live,
	.poll = guest_net_poll,
	.flush = guest_net_flush,
	.print_counters = guest_net_print_counters,
};

/*
 * Zeroes gn and puts it on g's bus for sc; false, with nothing registered,
 * when g has no room.
 */
static bool guest_net_register(struct guest_net *gn, struct guest *g, struct sidecore *sc)
{
	memset(gn, 0, sizeof(*gn));
	gn->guest = g;
	gn->sidecore = sc;
	gn->dev = (struct guest_device){ "virtio-net", &guest_net_device_ops, &gn->pci.pci, 0 };
	return guest_device_add(g, &gn->dev);
}

/* The registered device in gn, attached to sc; memory is the caller's. */
static bool guest_net_init(struct guest_net *gn, struct guest *g, struct sidecore *sc,
			   const uint8_t mac[6], bool wire, const uint32_t storm[2])
{
	struct virtio_net_params params = {
		.name = g->name,
		.sidecore = sc->index,
		.mem = &gn->mem,
		.sw = sc->sw,
		.interrupt = guest_net_interrupt,
		.ctx = gn,
		.tx_holdoff = sc->tx_holdoff,
		.max_pairs = g->vcpu_count,	/* a queue pair per vCPU */
	};

	gn->port.ops = &guest_net_port_ops;
	gn->mem.base = (uint8_t *)(uintptr_t)g->ram_hpa;
	gn->mem.size = g->ram_size;
	guest_log_gate_init(&gn->log_gate, g);
	gn->mem.log = &gn->log_gate;
	memcpy(params.mac, mac, sizeof(params.mac));

	if (!virtio_net_init(&gn->net, &params))
		return false;
	gn->ops = guest_net_ops;
	gn->ops.features = virtio_net_device_features(&gn->net);
	gn->ops.num_queues = (uint16_t)virtio_net_queue_count(&gn->net);
	if (!virtio_pci_init(&gn->pci, g->name, &gn->ops, gn, guest_net_send_msi, gn,
			     GUEST_PCI_MMIO_GPA + gn->dev.slot * VIRTIO_PCI_BAR_SIZE))
		return false;
	gn->pci.pci.lock = &sc->lock;
	virtio_pci_set_log_gate(&gn->pci, &gn->log_gate);
	gn->net.port.wire = wire;
	net_port_storm_init(&gn->net.port, storm[0], storm[1], tsc_hz());
	return net_switch_add_port(sc->sw, &gn->net.port) && sidecore_attach(sc, &gn->port);
}

bool guest_net_create(struct guest *g, struct sidecore *sc, const uint8_t mac[6], bool wire,
		      const uint32_t storm[2])
{
	struct guest_net *gn = (struct guest_net *)(uintptr_t)page_alloc_node(g->node,
									      GUEST_NET_BYTES,
									      PAGE_SIZE);

	if (!gn)
		goto fail;
	if (!guest_net_register(gn, g, sc)) {
		guest_net_release(&gn->dev);
		goto fail;
	}
	/* Registered: if it fails now, guest_device_remove_all() releases it. */
	if (guest_net_init(gn, g, sc, mac, wire, storm))
		return true;
fail:
	printk("guest %s: cannot create its virtio-net device\n", g->name);
	return false;
}
