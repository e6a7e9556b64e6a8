/* SPDX-License-Identifier: MIT */
/*
 * uplink.c - a physical NIC's queue pairs as sidecore ports and switch
 * ports (uplink.h, docs/nic.md).
 *
 * Polled, no interrupt: each pass takes up to its budget of received frames
 * and forwards each through the switch while the driver lends it; frames
 * for the wire are copied into the driver's transmit buffers by
 * nic_ops.tx(), so they are free when it returns, as net_switch_forward()
 * promises, and the pass's flush sends them all with one doorbell. Every sidecore gets a queue pair of its own, as far as the NIC
 * has them (the 82599 steers each guest's MAC to its sidecore's pair, the
 * e1000 has one pair), with its rings on that sidecore's node; the switch
 * sends the guests of a sidecore without a pair to the first one.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/paging.h"
#include "arch/percpu.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "drivers/net/e1000.h"
#include "drivers/net/ixgbe.h"
#include "drivers/net/nic.h"
#include "drivers/pci.h"
#include "lib/container.h"
#include "mm/page_alloc.h"
#include "sidecore/sidecore.h"
#include "sidecore/uplink.h"

#define UPLINK_LINK_PERIOD_MS	100	/* how often a pass reads the link state */
/* The end of what paging_map_uncached() can map (hv/arch/paging.h). */
#define UPLINK_MAP_LIMIT	(512ull << 30)

/* A driver the probe knows: which functions it takes, how many pairs it steers. */
struct uplink_driver {
	const struct nic_ops *ops;
	bool (*supports)(uint16_t vendor, uint16_t device);
	unsigned int max_queues;
};

static const struct uplink_driver uplink_drivers[] = {
	{ &ixgbe_ops, ixgbe_pci_supported, NIC_MAX_QUEUES },
	{ &e1000_ops, e1000_pci_supported, 1 },
};

struct uplink;

/* Queue pair q: a port of the sidecore that polls it and a port of the switch. */
struct uplink_queue {
	struct uplink *u;
	unsigned int q;
	struct sidecore *sc;
	unsigned int node;		/* the sidecore's: where the pair's memory goes */
	struct sidecore_port port;
	struct net_port net;
};

struct uplink {
	bool wanted;			/* the config has a `nic` key */
	bool found;			/* uplink_probe() mapped a NIC */
	bool started;			/* ports of the switch and of the sidecores */
	const char *problem;		/* why a wanted NIC is not in use */
	const struct uplink_driver *driver;
	struct pci_addr addr;
	char addr_text[PCI_ADDR_TEXT_MAX];
	struct pci_bar bar;
	struct nic nic;
	struct uplink_queue queue[NIC_MAX_QUEUES];
	uint64_t link_period;		/* UPLINK_LINK_PERIOD_MS in TSC ticks */
	uint64_t link_next;		/* TSC of the next link read, by queue 0's sidecore */
	uint64_t link_changes;
};

static struct uplink uplink;

/* --- struct nic_io on the real bus -------------------------------------------- */

static uint32_t uplink_read32(void *ctx, uint32_t offset)
{
	const struct uplink *u = ctx;

	return mmio_read32((uintptr_t)u->bar.base + offset);
}

static void uplink_write32(void *ctx, uint32_t offset, uint32_t value)
{
	const struct uplink *u = ctx;

	mmio_write32((uintptr_t)u->bar.base + offset, value);
}

/*
 * RAM is identity-mapped and no IOMMU is set up, so the bus address the NIC
 * uses is the physical address. Whole pages: the pools hand out no less. A
 * queue pair's memory comes from its sidecore's node, the rest from the
 * first pair's.
 */
static void *uplink_dma_alloc(void *ctx, int queue, size_t bytes, size_t align, uint64_t *bus)
{
	const struct uplink *u = ctx;
	unsigned int q = queue >= 0 && (unsigned int)queue < u->nic.queues ? (unsigned int)queue : 0;
	uint64_t size = (bytes + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uint64_t phys = page_alloc_node(u->queue[q].node, size,
					align > PAGE_SIZE ? align : PAGE_SIZE);

	if (!phys)
		return NULL;
	memset((void *)(uintptr_t)phys, 0, size);
	*bus = phys;
	return (void *)(uintptr_t)phys;
}

static void uplink_delay_us(void *ctx, unsigned int us)
{
	(void)ctx;
	tsc_delay_us(us);
}

/* --- probe ---------------------------------------------------------------- */

/* The driver that takes a function, or NULL. */
static const struct uplink_driver *uplink_driver_for(uint16_t vendor, uint16_t device)
{
	for (unsigned int i = 0; i < sizeof(uplink_drivers) / sizeof(uplink_drivers[0]); i++)
		if (uplink_drivers[i].supports(vendor, device))
			return &uplink_drivers[i];
	return NULL;
}

static bool uplink_match(uint16_t vendor, uint16_t device)
{
	return uplink_driver_for(vendor, device) != NULL;
}

/* The function the config names, if a driver takes it; the reason otherwise. */
static const char *uplink_find(const struct config *config, struct pci_addr *addr)
{
	uint16_t vendor;

	if (config->nic == CONFIG_NIC_FIRST)
		return pci_find(uplink_match, addr) ? NULL :
			"no supported NIC (82599 or 8086:100e) on the PCI buses";
	*addr = (struct pci_addr){ config->nic_bus, config->nic_device, config->nic_function };
	vendor = pci_read16(addr, PCI_VENDOR_ID);
	if (vendor == PCI_VENDOR_NONE)
		return "no PCI function at that address";
	if (!uplink_match(vendor, pci_read16(addr, PCI_DEVICE_ID)))
		return "the function there is not a supported NIC (82599 or 8086:100e)";
	return NULL;
}

void uplink_probe(const struct config *config)
{
	struct uplink *u = &uplink;
	const char *problem;

	if (config->nic == CONFIG_NIC_NONE)
		return;
	u->wanted = true;
	problem = uplink_find(config, &u->addr);
	if (problem) {
		printk(CONFIG_ERROR_FORMAT "%s\n", config->nic_line, "nic", problem);
		u->problem = "not found";
		return;
	}
	u->driver = uplink_driver_for(pci_read16(&u->addr, PCI_VENDOR_ID),
				      pci_read16(&u->addr, PCI_DEVICE_ID));
	pci_addr_format(&u->addr, u->addr_text);
	problem = pci_memory_bar(&u->addr, PCI_BASE_ADDRESS_0, &u->bar);
	if (problem) {
		printk("nic: %s: BAR0 %s\n", u->addr_text, problem);
		u->problem = "unusable BAR0";
		return;
	}
	/*
	 * Firmware with 64-bit MMIO above 4G may place the BAR beyond what
	 * the identity map covers: say so, and what to change.
	 */
	if (u->bar.base >= UPLINK_MAP_LIMIT || u->bar.size > UPLINK_MAP_LIMIT - u->bar.base) {
		printk("nic: %s: BAR0 at %#lx is above 512 GiB, beyond the hypervisor's map; "
		       "have the firmware place 64-bit MMIO lower\n", u->addr_text, u->bar.base);
		u->problem = "BAR0 above 512 GiB";
		return;
	}
	if (!paging_map_uncached(u->bar.base, u->bar.size)) {
		printk("nic: %s: cannot map BAR0 at %#lx+%#lx\n", u->addr_text, u->bar.base,
		       u->bar.size);
		u->problem = "BAR0 not mapped";
		return;
	}
	pci_enable_memory_and_master(&u->addr);
	u->found = true;
}

/* --- the ports -------------------------------------------------------------- */

/* nic_rx_fn: the driver lends the frame for the time of the forward. */
static void uplink_rx(void *ctx, struct net_packet *pkt)
{
	struct uplink_queue *uq = ctx;

	net_switch_forward(uq->sc->sw, &uq->net, pkt);
}

static unsigned int uplink_poll(struct sidecore_port *port, unsigned int budget, uint64_t now)
{
	struct uplink_queue *uq = container_of(port, struct uplink_queue, port);
	struct nic *nic = &uq->u->nic;

	(void)now;
	return nic->ops->rx_burst(nic, uq->q, uplink_rx, uq, budget);
}

/*
 * For a person bringing up a real server: the link registers and the
 * module of an 82599 port, at init and at every link change (docs/nic.md,
 * first contact).
 */
static void uplink_print_link_report(struct uplink *u)
{
	struct ixgbe_link_report r;

	if (u->nic.ops != &ixgbe_ops)
		return;
	ixgbe_link_report(&u->nic, &r);
	printk("nic: %s bring-up autoc 0x%08x autoc2 0x%08x esdp 0x%08x links 0x%08x "
	       "sfp_id 0x%02x sfp %s\n", u->addr_text, r.autoc, r.autoc2, r.esdp, r.links,
	       r.sfp_id, r.sfp_name);
}

/*
 * Every pass, however it ended, hands the NIC what it queued on the pair:
 * one tail write for the whole pass, not one per frame (nic_ops.commit()).
 * The link is read every UPLINK_LINK_PERIOD_MS by the first pair's sidecore,
 * not every pass: a register read costs a trip across PCIe (an exit, under
 * an emulator). The switch sends nothing to the ports while it is down.
 */
static void uplink_flush(struct sidecore_port *port, uint64_t now)
{
	struct uplink_queue *uq = container_of(port, struct uplink_queue, port);
	struct uplink *u = uq->u;
	bool was_up = u->nic.link_up;

	u->nic.ops->commit(&u->nic, uq->q);
	if (uq->q != 0 || now < u->link_next)
		return;
	u->link_next = now + u->link_period;
	if (u->nic.ops->link(&u->nic) == was_up)
		return;
	u->link_changes++;
	for (unsigned int q = 0; q < u->nic.queues; q++)
		net_port_set_up(&u->queue[q].net, u->nic.link_up);
	printk("nic: %s link %s\n", u->addr_text, u->nic.link_up ? "up" : "down");
	uplink_print_link_report(u);
}

static void uplink_print_counters(const struct sidecore_port *port, unsigned int sidecore)
{
	const struct uplink_queue *uq = container_of(port, struct uplink_queue, port);
	const struct uplink *u = uq->u;
	const struct nic_queue_stats *q = &u->nic.stats[uq->q];
	const struct net_port_stats *s = &uq->net.stats;

	printk("counters: nic %s queue %u sidecore %u rx_packets %lu rx_bytes %lu rx_drops %lu "
	       "rx_unknown %lu tx_packets %lu tx_bytes %lu tx_drops %lu ring_full %lu "
	       "link %s link_changes %lu\n",
	       u->addr_text, uq->q, sidecore, q->rx_packets, q->rx_bytes, q->rx_drops,
	       s->tx_unknown, q->tx_packets, q->tx_bytes, q->tx_drops, q->ring_full,
	       u->nic.link_up ? "up" : "down", u->link_changes);
}

static void uplink_print_stat(const struct sidecore_port *port, unsigned int sidecore,
			      uint64_t tsc)
{
	const struct uplink_queue *uq = container_of(port, struct uplink_queue, port);
	const struct nic_queue_stats *q = &uq->u->nic.stats[uq->q];

	printk("stat: nic %s/%u tsc %lu sidecore %u rx_packets %lu rx_bytes %lu tx_packets %lu "
	       "tx_bytes %lu drops %lu\n", uq->u->addr_text, uq->q, tsc, sidecore, q->rx_packets,
	       q->rx_bytes, q->tx_packets, q->tx_bytes, q->rx_drops + q->tx_drops);
}

static const struct sidecore_port_ops uplink_port_ops = {
	.poll = uplink_poll,
	.flush = uplink_flush,
	.print_counters = uplink_print_counters,
	.print_stat = uplink_print_stat,
};

/*
 * net_deliver_fn, called by the pair's own sidecore only: onto the wire; the
 * driver copies, so pkt is free on return.
 */
static bool uplink_deliver(struct net_port *port, const struct net_packet *pkt)
{
	struct uplink_queue *uq = port->ctx;
	struct nic *nic = &uq->u->nic;

	if (nic->ops->tx(nic, uq->q, pkt))
		return true;
	port->stats.rx_drops++;
	return false;
}

/* The pair a guest's frames arrive on: its sidecore's, else the first. */
static unsigned int uplink_queue_of(const struct uplink *u, unsigned int sidecore)
{
	for (unsigned int q = 0; q < u->nic.queues; q++)
		if (u->queue[q].sc->index == sidecore)
			return q;
	return 0;
}

/* Receive filters for every guest port the switch lets reach the wire. */
static void uplink_add_guest_macs(struct uplink *u)
{
	const struct net_switch *sw = u->queue[0].sc->sw;

	for (unsigned int i = 0; i < sw->count; i++) {
		const struct net_port *port = sw->port[i];

		if (!port->uplink && port->wire &&
		    !u->nic.ops->add_mac(&u->nic, port->mac, uplink_queue_of(u, port->sidecore)))
			printk("nic: %s: no receive filter left for %02x:%02x:%02x:%02x:%02x:%02x\n",
			       u->addr_text, port->mac[0], port->mac[1], port->mac[2],
			       port->mac[3], port->mac[4], port->mac[5]);
	}
}

/* Queue pair q's ports, on sidecore q. */
static bool uplink_attach(struct uplink *u, unsigned int q)
{
	struct uplink_queue *uq = &u->queue[q];

	/*
	 * The NIC raises no interrupt to wake the sidecore and has no word to
	 * watch: its queue is polled, and its commit and link flushed, every pass.
	 */
	uq->port = (struct sidecore_port){ .ops = &uplink_port_ops, .live = true, .busy = true,
					   .dirty = true };
	uq->net = (struct net_port){ .uplink = true, .sidecore = uq->sc->index,
				     .deliver = uplink_deliver, .ctx = uq };
	if (!net_switch_add_port(uq->sc->sw, &uq->net) || !sidecore_attach(uq->sc, &uq->port)) {
		printk("nic: %s: no room on sidecore %u or the switch\n", u->addr_text,
		       uq->sc->index);
		return false;
	}
	net_port_set_up(&uq->net, u->nic.link_up);
	return true;
}

void uplink_start(void)
{
	struct uplink *u = &uplink;
	unsigned int queues = 0;
	int err;

	if (!u->found)
		return;
	for (struct sidecore *sc; queues < u->driver->max_queues &&
	     (sc = sidecore_by_index(queues)) != NULL; queues++)
		u->queue[queues] = (struct uplink_queue){ .u = u, .q = queues, .sc = sc,
							  .node = percpu[sc->cpu].node };
	if (!queues) {
		u->problem = "no sidecore";
		return;
	}
	u->nic.ops = u->driver->ops;
	u->nic.io = (struct nic_io){ uplink_read32, uplink_write32, uplink_dma_alloc,
				     uplink_delay_us, u };
	u->nic.queues = queues;
	memcpy(u->nic.name, u->addr_text, sizeof(u->addr_text));
	err = u->nic.ops->init(&u->nic);
	if (err) {
		printk("nic: %s %s: init failed (error %d)\n", u->nic.ops->name, u->addr_text, err);
		u->problem = "init failed";
		return;
	}
	uplink_add_guest_macs(u);
	uplink_print_link_report(u);

	u->link_period = UPLINK_LINK_PERIOD_MS * (tsc_hz() / 1000);
	u->link_next = rdtsc() + u->link_period;
	for (unsigned int q = 0; q < queues; q++) {
		if (!uplink_attach(u, q)) {
			u->problem = "no port";
			return;
		}
	}
	u->started = true;
}

void uplink_print_summary(void)
{
	const struct uplink *u = &uplink;
	const uint8_t *m = u->nic.mac;

	if (!u->wanted)
		return;
	if (!u->started) {
		printk("nic: none (%s)\n", u->problem);
		return;
	}
	printk("nic: %s %s link %s queues %u mac %02x:%02x:%02x:%02x:%02x:%02x speed %u\n",
	       u->nic.ops->name, u->addr_text, u->nic.link_up ? "up" : "down", u->nic.queues,
	       m[0], m[1], m[2], m[3], m[4], m[5], u->nic.speed_mbps);
	for (unsigned int q = 0; q < u->nic.queues; q++)
		printk("nic queue: sidecore %u rx %u tx %u\n", u->queue[q].sc->index, q, q);
}
