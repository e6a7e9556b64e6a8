/* SPDX-License-Identifier: MIT */
/*
 * virtio_rng.h - an entropy device (virtio 1.1 §5.4): one requestq whose
 * device-writable buffers come back filled from the host's RDRAND or
 * RDSEED. No features, no configuration. A host with neither instruction
 * has no such device: creation refuses it.
 *
 * The device is served where the guest kicks it, on the kicking vCPU's
 * core, as the console is (docs/guest-platform.md, "Entropy"): requests
 * are rare, and a guest that asks for much pays with its own exits.
 * Nothing here locks: the owner serialises every call (hv/guest/guest_virtio.c).
 */
#ifndef SIDECORE_VIRTIO_VIRTIO_RNG_H
#define SIDECORE_VIRTIO_VIRTIO_RNG_H

#include <stdbool.h>
#include <stdint.h>

#include "virtio/virtio_dev.h"
#include "virtio/virtq.h"

#define VIRTIO_RNG_QUEUE	0
/*
 * Bytes of one request that are filled; the rest of its buffers is left
 * unwritten (the used length says so). Linux asks for a few hundred bytes
 * at a time, and the cap bounds the work one kick can ask of the core.
 */
#define VIRTIO_RNG_CHAIN_MAX	4096

/* One random word, or false when the source stayed dry for its retries. */
typedef bool (*virtio_rng_source_fn)(uint64_t *word);

struct virtio_rng_stats {
	uint64_t requests;	/* chains used */
	uint64_t bytes;		/* bytes written into them */
	uint64_t dry;		/* requests handed back short: the source stayed dry */
};

struct virtio_rng {
	struct virtio_dev vdev;		/* first: the glue allocates the model through it */
	struct virtq queue;
	virtio_rng_source_fn source;
	struct virtio_rng_stats stats;
};

/*
 * The rng's type for the device core and the glue. Its init picks the
 * host's source (virtio_rng_pick_source() on the host's CPUID), or refuses
 * the device when there is none. Its kick fills the requestq's buffers, at
 * most the queue's size of them (what is left waits for the next kick),
 * then raises the interrupt if the driver asked for one; a chain with a
 * device-readable buffer, or any broken ring rule, fails the device.
 */
extern const struct virtio_dev_ops virtio_rng_ops;

/**
 * virtio_rng_pick_source() - the random source a host's CPUID allows
 * @cpuid1_ecx: ECX of CPUID leaf 1 (bit 30: RDRAND)
 * @cpuid7_ebx: EBX of CPUID leaf 7, subleaf 0 (bit 18: RDSEED)
 *
 * Return: RDRAND's source, else RDSEED's, else NULL.
 */
virtio_rng_source_fn virtio_rng_pick_source(uint32_t cpuid1_ecx, uint32_t cpuid7_ebx);

#endif
