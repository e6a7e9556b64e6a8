# SPDX-License-Identifier: MIT
#
# hv/net: the switch, its packets and the rings between sidecores are pure
# logic, unit-tested on the host (the ring also under two threads).
PURE_SRCS += hv/net/packet.c hv/net/switch.c hv/net/spsc_ring.c hv/net/fair.c hv/net/flow.c \
	hv/net/headers.c
