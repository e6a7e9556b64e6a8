#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Pings sidecore.peer= (SIDECORE_PING_COUNT times, default 20) and prints
# "ping: loss N%".

peer=${SIDECORE_PEER:?sidecore.peer= is required}
out=$(ping -c "${SIDECORE_PING_COUNT:-20}" -i 0.2 -W 2 "$peer" 2>&1)
echo "$out" | tail -n 3
echo "ping: loss $(echo "$out" | sed -n 's/.* \([0-9.]*\)% packet loss.*/\1/p')%"
