#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Hostile guest: floods CID 2's counters service (port 1552) with REQUESTs
# from a driver of its own (guest/tools/flood1552.c) for
# sidecore.flood-seconds= seconds of guest time (default 8), once a
# neighbour's floodgate starts it on UDP port sidecore.flood1552-gate=
# (default 7552). Prints "flood1552: requests N answers A seconds S status
# 0xSS". The guest is left without vsock.

exec flood1552 -g "${SIDECORE_FLOOD1552_GATE:-7552}" "${SIDECORE_FLOOD_SECONDS:-8}"
