/* SPDX-License-Identifier: MIT */
/*
 * virtio_model.h - a device model set up as the glue sets it up
 * (hv/guest/guest_virtio.c), for tests that drive a model directly.
 */
#ifndef SIDECORE_TESTS_VIRTIO_MODEL_H
#define SIDECORE_TESTS_VIRTIO_MODEL_H

#include <stdbool.h>

#include "virtio/virtio_dev.h"

/*
 * Runs ops->init on dev with the core's params (name, mem, interrupt, ctx)
 * and the device type's own (type); true when the model accepts them.
 */
bool virtio_model_init(const struct virtio_dev_ops *ops, struct virtio_dev *dev,
		       const char *name, const struct guest_mem *mem,
		       virtio_dev_interrupt_fn interrupt, void *ctx, const void *type);

#endif
