#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Hostile vsock driver: takes the guest's virtio-vsock function from Linux
# and sends the other guests what no honest driver sends
# (guest/tools/badvsock.c): packets in their names, RST storms, REQUESTs
# from a driver with no receive buffers, then packets that break its own
# device. Prints "badvsock: CASE -> status 0xSS sent N" per case and
# "badvsock: done ..." with the totals, then has the hypervisor print its
# counters.
#   sidecore.vsock-targets=CID[,CID...]  the other guests (required)
#   sidecore.vsock-ports=PORT[,PORT...]  the ports their streams use
#                                        (default 5000,5001)
#   sidecore.vsock-sink=PORT             the port they listen on for anyone
#                                        (default 6000; vsock.sh's sink)
#   sidecore.vsock-gate=CID              wait for CID to listen there, and
#                                        repeat the cases while it does
#   sidecore.cases=NAME[,NAME...]        the cases (default all)

set -- -c "${SIDECORE_VSOCK_TARGETS:?sidecore.vsock-targets= is required}" \
	-p "${SIDECORE_VSOCK_PORTS:-5000,5001}" -l "${SIDECORE_VSOCK_SINK:-6000}"
[ -z "${SIDECORE_VSOCK_GATE:-}" ] || set -- "$@" -g "$SIDECORE_VSOCK_GATE"
# shellcheck disable=SC2046 # one word per case
badvsock "$@" $(echo "${SIDECORE_CASES:-}" | tr , ' ')
rc=$?
# The hypervisor's counters, the vsock devices' included (docs/vmx.md).
printf x | dd of=/dev/port bs=1 seek=1552 2>/dev/null
exit $rc
