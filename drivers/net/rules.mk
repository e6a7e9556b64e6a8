# SPDX-License-Identifier: MIT
#
# drivers/net: the NIC drivers reach their hardware only through struct
# nic_io, so they are pure logic too, tested on the host against register
# models of the NICs (tests/models/).
PURE_SRCS += $(wildcard drivers/net/*.c)
