#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Serves netperf (as netserver.sh does) until sidecore.peer= says it is
# going (a connection to TCP port sidecore.bye_port=, default 12866, from
# bye.sh), then waits until the peer stops answering ping, and returns: the
# scripts after this one in sidecore.script= run once the peer is gone
# (a heartbeat, to show this guest outlives it). Until the goodbye it sends
# nothing, so what the peer measures is the peer's own traffic.
# Prints "outlive: PEER is gone", or "outlive: PEER still answers" after
# a minute of answers.

peer=${SIDECORE_PEER:?sidecore.peer= is required}
bye_port=${SIDECORE_BYE_PORT:-12866}

echo "outlive: serving on port ${SIDECORE_PORT:-12865} until $peer says goodbye"
netserver -D -p "${SIDECORE_PORT:-12865}" &
server=$!
# busybox nc returns once the peer has closed the connection.
nc -l -p "$bye_port" </dev/null >/dev/null
echo "outlive: goodbye from $peer"

tries=120
while ping -c 1 -W 1 "$peer" >/dev/null 2>&1; do
	tries=$((tries - 1))
	if [ "$tries" -eq 0 ]; then
		echo "outlive: $peer still answers"
		kill $server
		exit 1
	fi
	sleep 0.5
done
kill $server
echo "outlive: $peer is gone"
