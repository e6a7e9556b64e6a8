/* SPDX-License-Identifier: MIT */
/*
 * vsock_domain.h - a sidecore's lock as the vsock devices it serves see it
 * (struct virtio_vsock_domain): the guests' glue and the host bench make
 * their domains here, so both lock as the hypervisor does.
 */
#ifndef SIDECORE_VIRTIO_VSOCK_DOMAIN_H
#define SIDECORE_VIRTIO_VSOCK_DOMAIN_H

#include "sidecore/sidecore.h"
#include "virtio/virtio_vsock.h"

/* A domain and the sidecore lock behind it; lives as long as its devices. */
struct vsock_domain {
	struct virtio_vsock_domain domain;
	struct spinlock *lock;
};

/**
 * vsock_domain_init() - makes a sidecore's lock the domain of its vsock devices
 * @d: the domain to fill
 * @sc: the sidecore: its lock, its index as the rank, its pass's meter
 *
 * Return: &d->domain, for struct virtio_vsock_params.
 */
struct virtio_vsock_domain *vsock_domain_init(struct vsock_domain *d, struct sidecore *sc);

#endif
