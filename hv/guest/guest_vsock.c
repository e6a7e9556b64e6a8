/* SPDX-License-Identifier: MIT */
/*
 * guest_vsock.c - what a guest's virtio-vsock device has of its own beside
 * the shared glue (guest_virtio.c): the CID table every device is in, the
 * sidecores' locks as its domains, and CID 2's counters service.
 *
 * Locking is the shared glue's for a sidecore-served device: the
 * sidecore's lock guards the whole device. A pass delivering to a device
 * of another sidecore takes that sidecore's lock too: it waits for it when
 * the other sidecore's index is higher, and only tries it (spin_trylock)
 * when lower, so two sidecores sending to each other cannot deadlock.
 * Order: the bus lock, then the sidecore lock, then the console's lock.
 * The CID table is filled at boot, before any pass.
 */
#include <stddef.h>
#include <string.h>

#include "arch/console.h"
#include "arch/spinlock.h"
#include "arch/tsc.h"
#include "guest/guest.h"
#include "guest/guest_net.h"
#include "guest/guest_virtio.h"
#include "guest/guest_vsock.h"
#include "lib/container.h"
#include "sidecore/sidecore.h"
#include "virtio/virtio_vsock.h"
#include "virtio/vsock_domain.h"

/* The largest vsock packet a pass copies fits a port's bytes (docs/data-path.md). */
_Static_assert(sizeof(struct virtio_vsock_hdr) + VIRTIO_VSOCK_PAYLOAD_MAX <= SIDECORE_BYTES,
	       "a vsock packet would overdraw a pass on its own");

/* Every guest's device, whichever sidecore serves it. */
static struct virtio_vsock_table guest_vsock_table;

/* Each sidecore's lock as the devices it serves see it. */
static struct vsock_domain guest_vsock_domains[NET_MAX_SIDECORES];

static struct virtio_vsock *to_vsock(const struct virtio_dev *vdev)
{
	return container_of(vdev, struct virtio_vsock, vdev);
}

static void guest_vsock_print_counters(const struct virtio_dev *vdev, unsigned int sidecore)
{
	const struct guest_virtio *gv = vdev->ctx;
	const struct virtio_vsock *vsock = to_vsock(vdev);
	const struct virtio_vsock_stats *s = &vsock->stats;

	printk("counters: vsock %s sidecore %u cid %lu packets %lu bytes %lu remote %lu rsts %lu "
	       "dropped %lu resets %lu credit_stalls %lu busy %lu peer_gone %lu spoofed %lu "
	       "echoed %lu discarded %lu held %lu doorbells %lu bad_msi %lu\n",
	       vdev->name, sidecore, vsock->cid, s->packets, s->bytes, s->remote, s->rsts,
	       s->dropped, s->resets, s->credit_stalls, s->busy, s->peer_gone, s->spoofed,
	       s->echoed, s->discarded, s->held, gv->pci.kicks, gv->bad_msi);
}

/* What the device sent: its counters count deliveries, not receptions. */
static void guest_vsock_print_stat(const struct virtio_dev *vdev, unsigned int sidecore,
				   uint64_t tsc)
{
	const struct virtio_vsock_stats *s = &to_vsock(vdev)->stats;

	printk("stat: vsock %s tsc %lu sidecore %u tx_packets %lu tx_bytes %lu drops %lu\n",
	       vdev->name, tsc, sidecore, s->packets, s->bytes, s->dropped);
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
	struct guest_virtio *gv = ctx;
	struct console_capture capture = { .buf = buf, .size = size };

	console_capture(&capture);
	guest_print_counters(gv->guest);
	guest_net_print_own_counters(gv->guest);
	guest_vsock_print_counters(gv->vdev, gv->sidecore->index);
	console_capture(NULL);
	return capture.len;
}

static void guest_vsock_unlink(struct guest_virtio *gv)
{
	virtio_vsock_table_remove(&guest_vsock_table, to_vsock(gv->vdev));
}

bool guest_vsock_create(struct guest *g, struct sidecore *sc, uint32_t cid)
{
	struct virtio_vsock_params params = {
		.cid = cid,
		.table = &guest_vsock_table,
		.domain = vsock_domain_init(&guest_vsock_domains[sc->index], sc),
		/* Off unless the guest's section asks for it (docs/config.md). */
		.snapshot = g->config->vsock_counters ? guest_vsock_snapshot : NULL,
		.stall_timeout = tsc_hz() / 1000 * VIRTIO_VSOCK_STALL_MS,
		.tx_holdoff = sc->tx_holdoff,
		.counters_interval = tsc_hz() / 1000 * VIRTIO_VSOCK_COUNTERS_MS,
		.request_interval = tsc_hz() / VIRTIO_VSOCK_HOST_REQUESTS,
	};
	struct guest_virtio *gv = guest_virtio_create(g, sc, &virtio_vsock_ops, &params);

	if (!gv)
		return false;
	gv->vdev->print_counters = guest_vsock_print_counters;
	gv->vdev->print_stat = guest_vsock_print_stat;
	gv->unlink = guest_vsock_unlink;
	if (virtio_vsock_table_add(params.table, to_vsock(gv->vdev)))
		return true;
	printk("guest %s: cannot create its virtio-vsock device: CID %u taken or the CID table full\n",
	       g->name, cid);
	return false;
}
