/* SPDX-License-Identifier: MIT */
/*
 * guest_net.c - what a guest's virtio-net NIC has of its own beside the
 * shared glue (guest_virtio.c): its port on the switch and its counters.
 *
 * Locking is the shared glue's for a sidecore-served device. The sidecore's
 * lock guards the whole device, struct virtio_pci and struct virtio_net
 * alike (virtio_pci.c takes no lock of its own); it is the function's
 * lock, since one pass of the sidecore delivers into the receive queues of
 * every device it serves:
 *   - BAR accesses from any vCPU take it around decode and access, so the
 *     BAR cannot move in between;
 *   - configuration accesses (CF8/CFC, ECAM) from any vCPU: the bus takes
 *     it as the function's lock, inside its own (vdev/vpci.h), and runs the
 *     function's written hook inside both;
 *   - the sidecore's poll pass, which raises interrupts and flushes;
 *   - a restart's device reset.
 * Order: the bus lock, then the sidecore lock, then the console's lock
 * (printk and the MSI path may run under both). Nothing takes the bus
 * lock while holding the sidecore's.
 */
#include <string.h>

#include "arch/console.h"
#include "arch/tsc.h"
#include "guest/guest.h"
#include "guest/guest_net.h"
#include "guest/guest_virtio.h"
#include "lib/container.h"
#include "sidecore/sidecore.h"
#include "virtio/virtio_net.h"

/*
 * Every queue its own MSI-X vector, and one for configuration changes:
 * Linux asks for a vector per queue that has a callback plus the config
 * one, and shares a single vector between all queues if it gets fewer.
 */
_Static_assert(VIRTIO_NET_MAX_QUEUES <= VIRTIO_PCI_QUEUES_MAX,
	       "the transport must show every queue, each with a vector");

static struct virtio_net *to_net(const struct virtio_dev *vdev)
{
	return container_of(vdev, struct virtio_net, vdev);
}

/*
 * The port's line, then with several queue pairs one line per pair the
 * driver may switch on (docs/data-path.md, "Counters"); a single pair's
 * would repeat the port's.
 */
static void guest_net_print_counters(const struct virtio_dev *vdev, unsigned int sidecore)
{
	const struct guest_virtio *gv = vdev->ctx;
	const struct virtio_net *net = to_net(vdev);
	const struct net_port_stats *s = &net->port.stats;

	printk("counters: port %s sidecore %u tx_packets %lu tx_bytes %lu tx_drops %lu "
	       "tx_spoofed %lu tx_oversized %lu tx_unknown %lu tx_storm %lu "
	       "rx_packets %lu rx_bytes %lu rx_drops %lu doorbells %lu bad_msi %lu\n",
	       vdev->name, sidecore, s->tx_packets, s->tx_bytes, s->tx_drops,
	       s->tx_spoofed, s->tx_oversized, s->tx_unknown, s->tx_storm,
	       s->rx_packets, s->rx_bytes, s->rx_drops, gv->pci.kicks, gv->bad_msi);
	if (net->max_pairs == 1)
		return;
	for (unsigned int i = 0; i < net->max_pairs; i++) {
		const struct virtio_net_queue_stats *q = &net->pair[i].stats;

		printk("counters: port %s queue %u rx_packets %lu rx_bytes %lu "
		       "tx_packets %lu tx_bytes %lu\n", vdev->name, i,
		       q->rx_packets, q->rx_bytes, q->tx_packets, q->tx_bytes);
	}
}

/* Every drop counts once: tx_drops already holds its reasons (docs/data-path.md, "Counters"). */
static void guest_net_print_stat(const struct virtio_dev *vdev, unsigned int sidecore, uint64_t tsc)
{
	const struct net_port_stats *s = &to_net(vdev)->port.stats;

	printk("stat: port %s tsc %lu sidecore %u rx_packets %lu rx_bytes %lu tx_packets %lu "
	       "tx_bytes %lu drops %lu\n", vdev->name, tsc, sidecore, s->rx_packets, s->rx_bytes,
	       s->tx_packets, s->tx_bytes, s->tx_drops + s->rx_drops);
}

void guest_net_print_own_counters(const struct guest *g)
{
	const struct guest_virtio *gv = guest_virtio_find(g, &virtio_net_ops);

	if (gv)
		guest_net_print_counters(gv->vdev, gv->sidecore->index);
}

static void guest_net_unlink(struct guest_virtio *gv)
{
	net_switch_remove_port(gv->sidecore->sw, &to_net(gv->vdev)->port);
}

bool guest_net_create(struct guest *g, struct sidecore *sc, const uint8_t mac[6], bool wire,
		      const uint32_t storm[2])
{
	struct virtio_net_params params = {
		.sidecore = sc->index,
		.sw = sc->sw,
		.tx_holdoff = sc->tx_holdoff,
		.max_pairs = g->vcpu_count,	/* a queue pair per vCPU */
	};
	struct guest_virtio *gv;
	struct virtio_net *net;

	memcpy(params.mac, mac, sizeof(params.mac));
	gv = guest_virtio_create(g, sc, &virtio_net_ops, &params);
	if (!gv)
		return false;
	net = to_net(gv->vdev);
	gv->vdev->print_counters = guest_net_print_counters;
	gv->vdev->print_stat = guest_net_print_stat;
	gv->unlink = guest_net_unlink;
	net->port.wire = wire;
	net_port_storm_init(&net->port, storm[0], storm[1], tsc_hz());
	if (net_switch_add_port(sc->sw, &net->port))
		return true;
	printk("guest %s: cannot create its virtio-net device: no port left on the switch\n",
	       g->name);
	return false;
}
