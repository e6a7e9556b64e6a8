#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A guest that misuses the local APIC it owns (guest/tools/apicabuse.c):
# sidecore.rounds= rounds of forbidden IPIs, LINT0 and APIC_BASE writes
# (default 20), then "apicabuse: spinning" and a spin with its APIC's task
# priority at 0xff, which holds back every interrupt, for good. Lines still
# queued in the console UART go out on timer ticks, which the spin stops:
# wait until its transmit count stops moving first.

drain() {
	last=
	while :; do
		now=$(grep -m1 -o 'tx:[0-9]*' /proc/tty/driver/serial 2>/dev/null)
		[ "$now" = "$last" ] && break
		last=$now
		sleep 0.2
	done
}

apicabuse rounds "${SIDECORE_ROUNDS:-20}" || exit
echo "apicabuse: spinning"
drain
apicabuse spin
