#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Once a guest running floodwatch says it is ready, sends
# sidecore.flood-count= frames (default 1000) to sidecore.flood-mac=, a MAC
# no guest has, and prints "ethflood: sent N to MAC" (guest/tools/ethflood.c).

mac=${SIDECORE_FLOOD_MAC:?sidecore.flood-mac= is required}
exec ethflood send "${SIDECORE_IFACE:-eth0}" "$mac" "${SIDECORE_FLOOD_COUNT:-1000}"
