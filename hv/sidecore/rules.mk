# SPDX-License-Identifier: MIT
#
# hv/sidecore: the pass over ports and rings is pure logic, built into the
# unit tests with ports of their own.

PURE_SRCS += hv/sidecore/poll.c
