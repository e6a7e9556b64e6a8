# SPDX-License-Identifier: MIT
# Device models are pure state machines: unit-tested and fuzzed on the host.
PURE_SRCS += hv/vdev/uart.c hv/vdev/vpci.c
PURE_SRCS += hv/vdev/msi.c hv/vdev/msix.c
