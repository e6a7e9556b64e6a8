#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Guest self test: the image's own parts work (kernel release, modules,
# netperf/netserver, virtio-net interface, vsock, a short loopback TCP_RR).
# With sidecore.ip= it also checks eth0's address, and with sidecore.ping=ADDR
# that ADDR answers pings through eth0 (the virtio-net data path both ways).
# Prints "selftest: ok - NAME" / "selftest: not ok - NAME" lines and
# "selftest: passed P/N"; exits non-zero when a check failed.

pass=0
total=0
check() { # check NAME COMMAND...
	name=$1
	shift
	total=$((total + 1))
	if "$@" >/tmp/selftest.out 2>&1; then
		pass=$((pass + 1))
		echo "selftest: ok - $name"
	else
		echo "selftest: not ok - $name"
		sed 's/^/selftest: #   /' /tmp/selftest.out | head -n 20
	fi
}

echo "selftest: kernel $(uname -r)"

kernel_release() { [ "$(uname -r)" = "$(cat /etc/kernel-release)" ]; }
check "kernel release matches the modules" kernel_release

modules_loaded() {
	while read -r m; do
		m=${m##*/}
		m=${m%.ko}
		grep -q "^$m " /proc/modules || { echo "$m not loaded"; return 1; }
	done </lib/modules/load.order
}
check "all modules loaded" modules_loaded

netperf_version() { netperf -V | tee /dev/stderr | grep -q '^Netperf version'; }
check "netperf runs" netperf_version

netserver_help() { netserver -h 2>&1 | grep -q 'Usage: netserver'; }
check "netserver runs" netserver_help

virtio_eth0() {
	[ -e /sys/class/net/eth0 ] || { echo "no eth0"; return 1; }
	driver=$(readlink /sys/class/net/eth0/device/driver)
	echo "eth0 driver: ${driver##*/}"
	[ "${driver##*/}" = virtio_net ]
}
check "eth0 is virtio_net" virtio_eth0

check "vsock device" test -c /dev/vsock

if [ -n "${SIDECORE_IP:-}" ]; then
	check "eth0 has $SIDECORE_IP" sh -c "ip -o addr show dev eth0 | grep -qF ' $SIDECORE_IP '"
fi
if [ -n "${SIDECORE_PING:-}" ]; then
	check "ping $SIDECORE_PING" ping -c 3 -W 5 "$SIDECORE_PING"
fi

# Note: netperf resolves hosts with AI_ADDRCONFIG, so even 127.0.0.1 fails
# ("Name or service not known") unless a non-loopback IPv4 address is set.

loopback_rr() {
	ip -4 -o addr | grep -v ' lo ' | grep -q inet ||
		{ echo "needs a non-loopback IPv4 address (boot with sidecore.ip=)"; return 1; }
	netserver -4 -L 127.0.0.1 || return 1
	netperf -4 -H 127.0.0.1 -t TCP_RR -l 1 -P 0 -- -r 1,1 >/tmp/rr.out || { cat /tmp/rr.out; return 1; }
	cat /tmp/rr.out
	# last column of the result line is transactions per second
	rate=$(awk 'NF >= 6 { r = $NF } END { print int(r) }' /tmp/rr.out)
	echo "loopback TCP_RR: $rate transactions/s"
	[ "$rate" -gt 0 ]
}
check "loopback TCP_RR" loopback_rr
grep -h 'transactions/s' /tmp/selftest.out | sed 's/^/selftest: # /'
killall netserver 2>/dev/null

echo "selftest: passed $pass/$total"
[ "$pass" -eq "$total" ]
