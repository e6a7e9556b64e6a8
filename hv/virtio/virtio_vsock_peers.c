/* SPDX-License-Identifier: MIT */
/*
 * virtio_vsock_peers.c - a guest whose device goes (stopped, restarted,
 * its driver reset, or a queue broken) takes its connections with it, and
 * its peers hear of it (docs/data-path.md, "When a guest goes").
 *
 * The device keeps no connection state on the data path, so each end
 * remembers the other here when a RESPONSE passes between them, and
 * forgets it when an RST does. A device that goes counts a new life; each
 * peer's own pass sees the life it linked with is over and hands its
 * driver an RST from the dead end, as Linux's peer would have sent, so
 * that a socket waiting to read learns of it at once rather than never.
 * The peer's pass reads the other device's life without that device's
 * lock: a counter that only grows, read whole.
 */
#include <string.h>

#include "virtio/virtio_vsock_internal.h"

static void link_forget(struct virtio_vsock *dev, const struct virtio_vsock *peer,
			uint32_t port, uint32_t peer_port)
{
	for (unsigned int i = 0; i < VIRTIO_VSOCK_LINKS; i++) {
		struct virtio_vsock_link *l = &dev->link[i];

		if (l->peer == peer && l->port == port && l->peer_port == peer_port)
			l->peer = NULL;
	}
}

/* Takes the slot of the same connection, else a free one, else the next in turn. */
static void link_add(struct virtio_vsock *dev, const struct virtio_vsock *peer, uint32_t port,
		     uint32_t peer_port, uint16_t type)
{
	struct virtio_vsock_link *slot = NULL;

	for (unsigned int i = 0; i < VIRTIO_VSOCK_LINKS && !slot; i++)
		if (!dev->link[i].peer)
			slot = &dev->link[i];
	link_forget(dev, peer, port, peer_port);
	if (!slot) {
		slot = &dev->link[dev->link_next];
		dev->link_next = (dev->link_next + 1) % VIRTIO_VSOCK_LINKS;
	}
	*slot = (struct virtio_vsock_link){
		.peer = peer,
		.peer_life = __atomic_load_n(&peer->life, __ATOMIC_RELAXED),
		.port = port,
		.peer_port = peer_port,
		.type = type,
	};
}

void virtio_vsock_peers_watch(struct virtio_vsock *dev)
{
	struct sidecore_port *port = &dev->vdev.port;

	if (!virtio_dev_active(&dev->vdev))
		return;
	/* The deaths' watch, if there, is the last: the queues' come first. */
	if (port->watches && port->watch[port->watches - 1].idx == &dev->table->deaths)
		port->watches--;
	for (unsigned int i = 0; i < VIRTIO_VSOCK_LINKS; i++) {
		if (dev->link[i].peer) {
			port->watch[port->watches++] = (struct sidecore_watch){
				&dev->table->deaths, &dev->deaths_seen };
			return;
		}
	}
}

void virtio_vsock_peers_note(struct virtio_vsock *dev, struct virtio_vsock *dst,
			     const struct virtio_vsock_hdr *hdr)
{
	if (dev == dst)
		return;
	if (hdr->op == VIRTIO_VSOCK_OP_RESPONSE) {
		link_add(dev, dst, hdr->src_port, hdr->dst_port, hdr->type);
		link_add(dst, dev, hdr->dst_port, hdr->src_port, hdr->type);
	} else if (hdr->op == VIRTIO_VSOCK_OP_RST) {
		link_forget(dev, dst, hdr->src_port, hdr->dst_port);
		link_forget(dst, dev, hdr->dst_port, hdr->src_port);
	} else {
		return;
	}
	virtio_vsock_peers_watch(dev);
	virtio_vsock_peers_watch(dst);
}

void virtio_vsock_peers_reap(struct virtio_vsock *dev)
{
	uint16_t deaths = __atomic_load_n(&dev->table->deaths, __ATOMIC_ACQUIRE);

	if (deaths == dev->deaths_seen && !dev->reap_pending)
		return;
	dev->deaths_seen = deaths;
	dev->reap_pending = false;
	for (unsigned int i = 0; i < VIRTIO_VSOCK_LINKS; i++) {
		struct virtio_vsock_link *l = &dev->link[i];
		struct virtio_vsock_hdr rst;

		if (!l->peer || __atomic_load_n(&l->peer->life, __ATOMIC_RELAXED) == l->peer_life)
			continue;
		/* The socket is matched by addresses and type (§5.10.6.3), the cid constant. */
		rst = (struct virtio_vsock_hdr){
			.src_cid = l->peer->cid,
			.dst_cid = dev->cid,
			.src_port = l->peer_port,
			.dst_port = l->port,
			.type = l->type,
			.op = VIRTIO_VSOCK_OP_RST,
		};
		switch (virtio_vsock_deliver(dev, &rst, NULL)) {
		case VSOCK_DELIVERED:
			l->peer = NULL;
			dev->stats.peer_gone++;
			break;
		case VSOCK_GONE:
			return;
		default:
			/* Unlike an RST in flight, this one is owed: it waits for a buffer. */
			dev->reap_pending = true;
		}
	}
	virtio_vsock_peers_watch(dev);
}

void virtio_vsock_peers_gone(struct virtio_vsock *dev)
{
	memset(dev->link, 0, sizeof(dev->link));
	__atomic_store_n(&dev->life, dev->life + 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&dev->table->deaths, 1, __ATOMIC_RELEASE);
}
