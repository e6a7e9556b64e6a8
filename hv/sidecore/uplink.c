/* SPDX-License-Identifier: MIT */
/*
 * uplink.c - a physical NIC's queue pair as a sidecore port and a switch
 * port (uplink.h, docs/nic.md).
 *
 * Polled, no interrupt: each pass takes up to its budget of received frames
 * and forwards each through the switch while the driver lends it; frames
 * for the wire are copied into the driver's transmit buffers by
 * nic_ops.tx(), so they are free when it returns, as net_switch_forward()
 * promises. The NIC has one queue pair (the e1000), so it serves sidecore 0,
 * and the switch sends other sidecores' guests to it through their rings.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/paging.h"
#include "arch/percpu.h"
#include "arch/tsc.h"
#include "arch/x86.h"
#include "drivers/net/e1000.h"
#include "drivers/net/nic.h"
#include "drivers/pci.h"
#include "lib/container.h"
#include "mm/page_alloc.h"
#include "sidecore/sidecore.h"
#include "sidecore/uplink.h"

#define UPLINK_QUEUE		0	/* the only queue pair the e1000 has */
#define UPLINK_SIDECORE		0
#define UPLINK_LINK_PERIOD_MS	100	/* how often a pass reads the link state */

struct uplink {
	bool wanted;			/* the config has a `nic` key */
	bool found;			/* uplink_probe() mapped a NIC */
	bool started;			/* a port of the switch and of the sidecore */
	const char *problem;		/* why a wanted NIC is not in use */
	struct pci_addr addr;
	char addr_text[PCI_ADDR_TEXT_MAX];
	struct pci_bar bar;
	unsigned int node;		/* where dma_alloc() takes memory from */
	struct nic nic;
	struct sidecore *sc;
	struct sidecore_port port;
	struct net_port net;
	uint64_t link_period;		/* UPLINK_LINK_PERIOD_MS in TSC ticks */
	uint64_t link_next;		/* TSC of the next link read */
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
 * uses is the physical address. Whole pages: the pools hand out no less.
 */
static void *uplink_dma_alloc(void *ctx, size_t bytes, size_t align, uint64_t *bus)
{
	const struct uplink *u = ctx;
	uint64_t size = (bytes + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	uint64_t phys = page_alloc_node(u->node, size, align > PAGE_SIZE ? align : PAGE_SIZE);

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

static bool uplink_match(uint16_t vendor, uint16_t device)
{
	for (const struct e1000_pci_id *id = e1000_pci_ids; id->vendor; id++)
		if (id->vendor == vendor && id->device == device)
			return true;
	return false;
}

/* The function the config names, if a driver takes it; the reason otherwise. */
static const char *uplink_find(const struct config *config, struct pci_addr *addr)
{
	uint16_t vendor;

	if (config->nic == CONFIG_NIC_FIRST)
		return pci_find(uplink_match, addr) ? NULL : "no supported NIC (8086:100e) on the PCI buses";
	*addr = (struct pci_addr){ config->nic_bus, config->nic_device, config->nic_function };
	vendor = pci_read16(addr, PCI_VENDOR_ID);
	if (vendor == PCI_VENDOR_NONE)
		return "no PCI function at that address";
	if (!uplink_match(vendor, pci_read16(addr, PCI_DEVICE_ID)))
		return "the function there is not a supported NIC (8086:100e)";
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
	pci_addr_format(&u->addr, u->addr_text);
	problem = pci_memory_bar(&u->addr, PCI_BAR0, &u->bar);
	if (problem) {
		printk("nic: %s: BAR0 %s\n", u->addr_text, problem);
		u->problem = "unusable BAR0";
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

/* The NIC raises no interrupt to wake the sidecore: its queue is always polled. */
static bool uplink_live(const struct sidecore_port *port)
{
	(void)port;
	return true;
}

/* nic_rx_fn: the driver lends the frame for the time of the forward. */
static void uplink_rx(void *ctx, struct net_packet *pkt)
{
	struct uplink *u = ctx;

	net_switch_forward(u->sc->sw, &u->net, pkt);
}

static unsigned int uplink_poll(struct sidecore_port *port, unsigned int budget)
{
	struct uplink *u = container_of(port, struct uplink, port);

	return u->nic.ops->rx_burst(&u->nic, UPLINK_QUEUE, uplink_rx, u, budget);
}

/*
 * The link is read every UPLINK_LINK_PERIOD_MS, not every pass: a register
 * read costs a trip across PCIe (an exit, under an emulator). The switch
 * sends nothing to the port while the link is down.
 */
static void uplink_flush(struct sidecore_port *port, uint64_t now)
{
	struct uplink *u = container_of(port, struct uplink, port);
	bool was_up = u->nic.link_up;

	if (now < u->link_next)
		return;
	u->link_next = now + u->link_period;
	if (u->nic.ops->link(&u->nic) == was_up)
		return;
	u->link_changes++;
	net_port_set_up(&u->net, u->nic.link_up);
	printk("nic: %s link %s\n", u->addr_text, u->nic.link_up ? "up" : "down");
}

static void uplink_print_counters(const struct sidecore_port *port, unsigned int sidecore)
{
	const struct uplink *u = container_of(port, struct uplink, port);
	const struct nic_queue_stats *q = &u->nic.stats[UPLINK_QUEUE];
	const struct net_port_stats *s = &u->net.stats;

	printk("counters: nic %s queue %u sidecore %u rx_packets %lu rx_bytes %lu rx_drops %lu "
	       "rx_unknown %lu tx_packets %lu tx_bytes %lu tx_drops %lu ring_full %lu "
	       "link %s link_changes %lu\n",
	       u->addr_text, UPLINK_QUEUE, sidecore, q->rx_packets, q->rx_bytes, q->rx_drops,
	       s->tx_unknown, q->tx_packets, q->tx_bytes, q->tx_drops, q->ring_full,
	       u->nic.link_up ? "up" : "down", u->link_changes);
}

static const struct sidecore_port_ops uplink_port_ops = {
	.live = uplink_live,
	.poll = uplink_poll,
	.flush = uplink_flush,
	.print_counters = uplink_print_counters,
};

/* net_deliver_fn: onto the wire; the driver copies, so pkt is free on return. */
static bool uplink_deliver(struct net_port *port, const struct net_packet *pkt)
{
	struct uplink *u = port->ctx;

	if (u->nic.ops->tx(&u->nic, UPLINK_QUEUE, pkt))
		return true;
	port->stats.rx_drops++;
	return false;
}

/* Receive filters for every guest port the switch lets reach the wire. */
static void uplink_add_guest_macs(struct uplink *u)
{
	const struct net_switch *sw = u->sc->sw;

	for (unsigned int i = 0; i < sw->count; i++) {
		const struct net_port *port = sw->port[i];

		if (!port->uplink && port->wire &&
		    !u->nic.ops->add_mac(&u->nic, port->mac, UPLINK_QUEUE))
			printk("nic: %s: no receive filter left for %02x:%02x:%02x:%02x:%02x:%02x\n",
			       u->addr_text, port->mac[0], port->mac[1], port->mac[2],
			       port->mac[3], port->mac[4], port->mac[5]);
	}
}

void uplink_start(void)
{
	struct uplink *u = &uplink;
	int err;

	if (!u->found)
		return;
	u->sc = sidecore_by_index(UPLINK_SIDECORE);
	if (!u->sc) {
		u->problem = "no sidecore";
		return;
	}
	u->node = percpu[u->sc->cpu].node;
	u->nic.ops = &e1000_ops;
	u->nic.io = (struct nic_io){ uplink_read32, uplink_write32, uplink_dma_alloc,
				     uplink_delay_us, u };
	u->nic.queues = 1;
	memcpy(u->nic.name, u->addr_text, sizeof(u->addr_text));
	err = u->nic.ops->init(&u->nic);
	if (err) {
		printk("nic: %s %s: init failed (error %d)\n", u->nic.ops->name, u->addr_text, err);
		u->problem = "init failed";
		return;
	}
	uplink_add_guest_macs(u);

	u->link_period = UPLINK_LINK_PERIOD_MS * (tsc_hz() / 1000);
	u->link_next = rdtsc() + u->link_period;
	u->port.ops = &uplink_port_ops;
	u->net = (struct net_port){ .uplink = true, .sidecore = u->sc->index,
				    .deliver = uplink_deliver, .ctx = u };
	if (!net_switch_add_port(u->sc->sw, &u->net) || !sidecore_attach(u->sc, &u->port)) {
		printk("nic: %s: no room on sidecore %u or the switch\n", u->addr_text,
		       u->sc->index);
		u->problem = "no port";
		return;
	}
	net_port_set_up(&u->net, u->nic.link_up);
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
	printk("nic queue: sidecore %u rx %u tx %u\n", u->sc->index, UPLINK_QUEUE, UPLINK_QUEUE);
}
