#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Byte streams over virtio-vsock, both ways at once (docs/data-path.md,
# "vsock"). With sidecore.vsock-peer=CID this guest drives: it sends
# sidecore.vsock-bytes= bytes (default 1 MiB) to CID on port
# sidecore.vsock-port= (default 5000), fetches as many from CID on the port
# after it, and has CID 2's echo service (port 7) send as many back, all
# three at once; then it reads the hypervisor's counters from CID 2, sends
# a line through socat to CID 2's echo and to CID's socat echo on the
# second port after sidecore.vsock-port=, and says "vsock: done". Without
# it, this guest serves the driver in the background: it reads on the
# port, writes on the one after and echoes with socat on the one after
# that (put it before the script that serves, netserver or outlive). vsockcheck prints each stream's sum at
# both ends; the sums of one stream match when every byte arrived in order.
# With sidecore.vsock-sink=PORT this guest also takes and closes every
# connection on PORT, for anyone, a hostile guest included (badvsock.sh): a
# server for as long as it runs, a driver while its streams run.

sink=${SIDECORE_VSOCK_SINK:-}
port=${SIDECORE_VSOCK_PORT:-5000}
bytes=${SIDECORE_VSOCK_BYTES:-1048576}
if [ -z "${SIDECORE_VSOCK_PEER:-}" ]; then
	if [ -n "$sink" ]; then
		vsockcheck sink "$sink" &
	fi
	vsockcheck listen "$port" "$bytes" &
	vsockcheck serve $((port + 1)) "$bytes" &
	socat VSOCK-LISTEN:$((port + 2)),fork EXEC:cat &
	exit 0
fi
if [ -n "$sink" ]; then
	vsockcheck sink "$sink" &
	sink_pid=$!
fi
vsockcheck send "$SIDECORE_VSOCK_PEER" "$port" "$bytes" &
send=$!
vsockcheck fetch "$SIDECORE_VSOCK_PEER" $((port + 1)) "$bytes" &
fetch=$!
vsockcheck echo 2 7 "$bytes"
status=$?
wait $send || status=1
wait $fetch || status=1
if [ -n "$sink" ]; then
	kill "$sink_pid"
	wait "$sink_pid"
fi
# The hypervisor's counters, the vsock devices' included, from CID 2's
# counters service (docs/data-path.md, "Services on CID 2").
vsockcheck cat 2 1552 || status=1
# socat as a user would run it: a line out, the same line back.
for to in "2 7" "$SIDECORE_VSOCK_PEER $((port + 2))"; do
	set -- $to
	line="sidecore over vsock to $1:$2"
	got=$(echo "$line" | socat -t 10 - "VSOCK-CONNECT:$1:$2")
	if [ "$got" = "$line" ]; then
		echo "vsock: socat echo cid $1 port $2 ok"
	else
		echo "vsock: socat echo cid $1 port $2 failed: got '$got'"
		status=1
	fi
done
echo "vsock: done"
exit $status
