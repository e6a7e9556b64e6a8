#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Hostile driver: takes the guest's virtio-net function from Linux and feeds
# its transmit queue malformed chains (guest/tools/badring.c), printing
# "badring: CASE -> status 0xSS used N" per case and "badring: done".
# sidecore.cases=NAME[,NAME...] picks cases (default: all).
#
# A crash usually follows, and would take the lines still queued in the
# console UART with it (the kernel sends them on timer ticks): wait until
# its transmit count stops moving, as the init does before powering off.

# shellcheck disable=SC2046 # one word per case
badring $(echo "${SIDECORE_CASES:-}" | tr , ' ')
rc=$?
last=
while :; do
	now=$(grep -m1 -o 'tx:[0-9]*' /proc/tty/driver/serial 2>/dev/null)
	[ "$now" = "$last" ] && break
	last=$now
	sleep 0.1
done
exit $rc
