# SPDX-License-Identifier: MIT
#
# hv/virtio: the virtio-pci transport, the virtqueue walker, the device core
# and every device model are pure state machines over registers and guest
# memory, unit-tested and fuzzed on the host: every file of the folder, so
# that a new model is one file here.
PURE_SRCS += $(sort $(wildcard hv/virtio/*.c))
