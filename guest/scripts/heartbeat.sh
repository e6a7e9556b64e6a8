#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Prints "heartbeat N" every half second of guest time, SIDECORE_BEATS times
# (default 40), so a test can see a guest keep running while another fails.

n=0
while [ "$n" -lt "${SIDECORE_BEATS:-40}" ]; do
	n=$((n + 1))
	echo "heartbeat $n"
	sleep 0.5
done
