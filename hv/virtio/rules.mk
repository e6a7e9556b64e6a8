# SPDX-License-Identifier: MIT
#
# hv/virtio: the virtqueue walker and the virtio-net device logic are pure
# state machines over guest memory, unit-tested and fuzzed on the host.
PURE_SRCS += hv/virtio/virtq.c hv/virtio/virtio_net.c
