#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Tells sidecore.peer= that this guest is going: a connection to its TCP
# port sidecore.bye_port= (default 12866), where outlive.sh waits. Put it
# before the script that ends the guest (crash, or none for a power-off).

peer=${SIDECORE_PEER:?sidecore.peer= is required}
bye_port=${SIDECORE_BYE_PORT:-12866}

tries=30
until echo bye | nc -w 5 "$peer" "$bye_port" >/dev/null 2>&1; do
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || { echo "bye: $peer does not listen on port $bye_port"; exit 1; }
	sleep 1
done
echo "bye: told $peer"
