#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A guest that misuses the local APIC it owns (guest/tools/apicabuse.c):
# sidecore.rounds= rounds of forbidden IPIs, LINT0 and APIC_BASE writes
# (default 20), then "apicabuse: spinning" and a spin with its APIC's task
# priority at 0xff, which holds back every interrupt, for good
# (guest/scripts/spin.sh). With sidecore.spin=0 it stops after the rounds,
# and the guest spins when spin comes in sidecore.script=: other abuse
# can run in between.

apicabuse rounds "${SIDECORE_ROUNDS:-20}" || exit
[ "${SIDECORE_SPIN:-1}" = 0 ] && exit 0
exec sh /scripts/spin.sh
