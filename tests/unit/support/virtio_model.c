/* SPDX-License-Identifier: MIT */
/*
 * virtio_model.c - a device model set up as the glue sets it up
 * (virtio_model.h).
 */
#include "tests/unit/support/virtio_model.h"

bool virtio_model_init(const struct virtio_dev_ops *ops, struct virtio_dev *dev,
		       const char *name, const struct guest_mem *mem,
		       virtio_dev_interrupt_fn interrupt, void *ctx, const void *type)
{
	struct virtio_dev_params params = { .name = name, .mem = mem, .interrupt = interrupt,
					    .ctx = ctx, .type = type };

	return !ops->init(dev, &params);
}
