#!/bin/sh
# SPDX-License-Identifier: MIT
#
# A byte stream between two guests over virtio-vsock. With
# sidecore.vsock-peer=CID, sends sidecore.vsock-bytes= bytes (default 1 MiB)
# to CID on sidecore.vsock-port= (default 5000) and prints
# "vsockcheck: sent N bytes sum S", then has the hypervisor print its
# counters; without it, listens on that port in the
# background (put it before the script that serves, netserver or outlive) and
# prints "vsockcheck: received N bytes sum S" once the bytes are in. The
# two sums match when every byte arrived in order.

port=${SIDECORE_VSOCK_PORT:-5000}
bytes=${SIDECORE_VSOCK_BYTES:-1048576}
if [ -n "${SIDECORE_VSOCK_PEER:-}" ]; then
	vsockcheck send "$SIDECORE_VSOCK_PEER" "$port" "$bytes"
	# The hypervisor's counters, the vsock devices' included (docs/vmx.md).
	printf x | dd of=/dev/port bs=1 seek=1552 2>/dev/null
else
	vsockcheck listen "$port" "$bytes" &
fi
