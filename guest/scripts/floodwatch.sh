#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Counts the frames for sidecore.flood-mac= that reach this guest while a
# guest running floodsend sends them, and prints "ethflood: saw N of M
# frames for MAC (done|timeout)" (guest/tools/ethflood.c). Gives up after
# 300 s of guest time.

mac=${SIDECORE_FLOOD_MAC:?sidecore.flood-mac= is required}
exec ethflood watch "${SIDECORE_IFACE:-eth0}" "$mac" 300
