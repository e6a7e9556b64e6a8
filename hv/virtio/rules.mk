# SPDX-License-Identifier: MIT
#
# hv/virtio: the virtio-pci transport, the virtqueue walker and the
# virtio-net, virtio-console and virtio-vsock device logic are pure state
# machines over registers and guest memory, unit-tested and fuzzed on the host.
PURE_SRCS += hv/virtio/virtq.c hv/virtio/virtio_dev.c hv/virtio/virtio_net.c hv/virtio/virtio_console.c
PURE_SRCS += hv/virtio/virtio_vsock.c hv/virtio/virtio_vsock_host.c hv/virtio/virtio_vsock_peers.c
PURE_SRCS += hv/virtio/virtio_pci.c hv/virtio/virtio_pci_caps.c
