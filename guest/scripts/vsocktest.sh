#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Linux's vsock test suite (vsock_test, from the kernel's source package)
# between two guests: the tests run over virtio-vsock to the peer's CID,
# sidecore.vsocktest-peer=, and the two ends keep in step over a TCP control
# connection on virtio-net, port sidecore.vsocktest-port= (default 12867).
#
# sidecore.vsocktest=server (the default) runs the server in the background
# (put it before the script that serves, netserver or outlive) and prints
# "vsocktest: server rc=N" when it ends. sidecore.vsocktest=client connects
# to the server at sidecore.peer=, retrying for 60 s, with vsock_test's own
# output on the console, then prints one line per test:
#   vsocktest: ok ID NAME | skipped ID NAME | not ok ID NAME: MESSAGE
# and "vsocktest: tests M passed P skipped S complete yes|no seconds T"
# (T in guest time), has the hypervisor print its counters (tag 'v'), and
# exits non-zero unless every test that ran passed. Tests named by ID in
# sidecore.vsocktest-skip= (comma-separated, either end) are skipped.

cid=${SIDECORE_VSOCKTEST_PEER:?sidecore.vsocktest-peer= is required}
port=${SIDECORE_VSOCKTEST_PORT:-12867}
skip=
for id in $(echo "${SIDECORE_VSOCKTEST_SKIP:-}" | tr , ' '); do
	skip="$skip --skip=$id"
done

if [ "${SIDECORE_VSOCKTEST:-server}" = server ]; then
	# shellcheck disable=SC2086 # $skip is a list of options
	{
		vsock_test --mode=server --control-port="$port" --peer-cid="$cid" $skip
		echo "vsocktest: server rc=$?"
	} &
	exit 0
fi

peer=${SIDECORE_PEER:?sidecore.peer= is required}
out=/tmp/vsocktest.out
# --list prints "ID<tab>NAME" lines and exits.
total=$(vsock_test --list 2>/dev/null | grep -c "^[0-9][0-9]*$(printf '\t')")
echo "vsocktest: $total tests, server $peer:$port, peer CID $cid"

start=$(cut -d' ' -f1 /proc/uptime)
tries=60
while :; do
	# shellcheck disable=SC2086
	vsock_test --mode=client --control-host="$peer" --control-port="$port" \
		--peer-cid="$cid" $skip 2>&1 | tee "$out"
	grep -q '^Control socket connected' "$out" && break
	tries=$((tries - 1))
	[ "$tries" -gt 0 ] || { echo "vsocktest: no server at $peer:$port"; exit 1; }
	sleep 1
done
end=$(cut -d' ' -f1 /proc/uptime)

# "ID - NAME...ok", "...skipped", or "...MESSAGE" where the client stopped
# (a failed test ends the program); names have no dots.
sed -n 's/^\([0-9][0-9]*\) - \([^.]*\)\.\.\.\(.*\)$/\1 \3|\2/p' "$out" |
	while IFS='|' read -r head name; do
		id=${head%% *}
		case ${head#* } in
		ok) echo "vsocktest: ok $id $name" ;;
		skipped) echo "vsocktest: skipped $id $name" ;;
		*) echo "vsocktest: not ok $id $name: ${head#* }" ;;
		esac
	done
passed=$(grep -c '^[0-9][0-9]* - [^.]*\.\.\.ok$' "$out")
skipped=$(grep -c '^[0-9][0-9]* - [^.]*\.\.\.skipped$' "$out")
complete=no
grep -q '^All tests have been executed\. Waiting other peer\.\.\.ok$' "$out" && complete=yes
echo "vsocktest: tests $total passed $passed skipped $skipped complete $complete" \
	"seconds $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
# The hypervisor's counters, the vsock devices' included (docs/vmx.md).
printf v | dd of=/dev/port bs=1 seek=1552 2>/dev/null
[ "$complete" = yes ] && [ $((passed + skipped)) -eq "$total" ]
