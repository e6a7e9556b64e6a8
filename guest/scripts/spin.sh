#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The end of a guest that misuses the local APIC it owns
# (guest/tools/apicabuse.c): "apicabuse: spinning", then a spin with its
# APIC's task priority at 0xff, which holds back every interrupt, for good.
# apicabuse.sh ends with it; with sidecore.spin=0 it does not, and this
# script can come later in sidecore.script=. Lines still queued in the
# console UART go out on timer ticks, which the spin stops: wait until its
# transmit count stops moving first. With sidecore.sweep=1 the spin
# first raises every vector 0-31 through every path a guest has, with all
# of them held back ("apicabuse sweep").

drain() {
	last=
	while :; do
		now=$(grep -m1 -o 'tx:[0-9]*' /proc/tty/driver/serial 2>/dev/null)
		[ "$now" = "$last" ] && break
		last=$now
		sleep 0.2
	done
}

echo "apicabuse: spinning"
drain
[ "${SIDECORE_SWEEP:-0}" = 1 ] && exec apicabuse sweep spin
exec apicabuse spin
