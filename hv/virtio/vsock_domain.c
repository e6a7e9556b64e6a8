/* SPDX-License-Identifier: MIT */
/*
 * vsock_domain.c - a sidecore's lock as a vsock domain (vsock_domain.h).
 * The rank is the sidecore's index: a pass that delivers to another
 * sidecore's device waits for a higher one's lock and only tries a lower
 * one's, so two sidecores sending to each other cannot deadlock
 * (hv/guest/guest_vsock.c).
 */
#include "arch/spinlock.h"
#include "lib/container.h"
#include "virtio/vsock_domain.h"

static void vsock_domain_lock(struct virtio_vsock_domain *domain)
{
	spin_lock(container_of(domain, struct vsock_domain, domain)->lock);
}

static bool vsock_domain_trylock(struct virtio_vsock_domain *domain)
{
	return spin_trylock(container_of(domain, struct vsock_domain, domain)->lock);
}

static void vsock_domain_unlock(struct virtio_vsock_domain *domain)
{
	spin_unlock(container_of(domain, struct vsock_domain, domain)->lock);
}

struct virtio_vsock_domain *vsock_domain_init(struct vsock_domain *d, struct sidecore *sc)
{
	*d = (struct vsock_domain){
		.domain = {
			.lock = vsock_domain_lock,
			.trylock = vsock_domain_trylock,
			.unlock = vsock_domain_unlock,
			.rank = sc->index,
			.meter = net_switch_meter(sc->sw, sc->index),
		},
		.lock = &sc->lock,
	};
	return &d->domain;
}
