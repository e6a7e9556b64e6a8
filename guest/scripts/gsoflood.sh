#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Hostile guest: floods every other guest with 64 KiB TCP GSO frames to
# ff:ff:ff:ff:ff:ff (guest/tools/gsoflood.c) for sidecore.flood-seconds=
# seconds of guest time (default 8), once a neighbour's floodgate starts it
# on UDP port sidecore.gsoflood-gate= (default 7553). Needs sidecore.ip=.
# Prints "gsoflood: frames N bytes B seconds S".

exec gsoflood -g "${SIDECORE_GSOFLOOD_GATE:-7553}" "${SIDECORE_IFACE:-eth0}" \
	"${SIDECORE_FLOOD_SECONDS:-8}"
