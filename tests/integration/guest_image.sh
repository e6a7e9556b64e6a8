#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Guest image test: boot $B/guest/vmlinuz + $B/guest/initrd.img directly in
# QEMU (TCG, no hypervisor of ours involved) with a virtio-net-pci device,
# run the baked-in selftest script and an inline sidecore.run= script, and
# check the markers on the serial console. Prints TAP; exits non-zero on a
# failure. Build the image first: make guest.
#
#   GUEST_TIMEOUT=180  seconds before the guest is declared hung
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 1
B=${B:-build}
KERNEL=$B/guest/vmlinuz
INITRD=$B/guest/initrd.img
LOG=$B/tests/guest_image.log
TIMEOUT=${GUEST_TIMEOUT:-180}

for f in "$KERNEL" "$INITRD"; do
	if [ ! -f "$f" ]; then
		echo "Bail out! $f missing: run 'make guest'"
		exit 1
	fi
done
KVER=$(cat "$B/guest/initramfs/etc/kernel-release" 2>/dev/null || echo unknown)

# Names of the checks guest/scripts/selftest.sh reports.
SELFTESTS=(
	"kernel release matches the modules"
	"all modules loaded"
	"netperf runs"
	"netserver runs"
	"eth0 is virtio_net"
	"vsock device"
	"eth0 has 10.0.2.15/24"
	"ping 10.0.2.2"
	"loopback TCP_RR"
)

# shellcheck disable=SC2016 # expanded by the guest
INLINE='echo "inline: kernel $(uname -r)"
echo "inline: arg $SIDECORE_TEST_ARG"
exit 3'
RUN=$(printf '%s\n' "$INLINE" | base64 -w0)

# QEMU's user network answers pings at 10.0.2.2; an address on eth0 is also
# what netperf needs to resolve even 127.0.0.1 (AI_ADDRCONFIG).
CMDLINE="console=ttyS0 panic=-1 sidecore.ip=10.0.2.15/24 sidecore.ping=10.0.2.2"
CMDLINE+=" sidecore.script=selftest sidecore.run=$RUN sidecore.test-arg=hello-42"

mkdir -p "$(dirname "$LOG")"
start=$(date +%s)
timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp 1 \
	-nographic -no-reboot \
	-kernel "$KERNEL" -initrd "$INITRD" -append "$CMDLINE" \
	-netdev user,id=net0 -device virtio-net-pci,netdev=net0 \
	</dev/null >"$LOG" 2>&1
qemu_rc=$?
elapsed=$(($(date +%s) - start))

# shellcheck source=tests/integration/lib.sh
. tests/integration/lib.sh
has() { grep -qF -- "$1" "$LOG"; }

echo "# kernel $KVER, initrd $(stat -c %s "$INITRD") bytes, QEMU exit $qemu_rc after ${elapsed}s (log: $LOG)"

has "sidecore-guest: up"; tap_result $? "guest init reached 'up'"
has "selftest: kernel $KVER"; tap_result $? "guest runs kernel $KVER"
for name in "${SELFTESTS[@]}"; do
	has "selftest: ok - $name"; tap_result $? "selftest: $name"
done
has "sidecore-guest: done selftest rc=0"; tap_result $? "selftest script exited 0"
has "inline: kernel $KVER" && has "inline: arg hello-42" && has "sidecore-guest: done inline rc=3"
tap_result $? "sidecore.run= inline script ran with its environment and exit status"
has "sidecore-guest: poweroff" && [ "$qemu_rc" -eq 0 ]
tap_result $? "guest powered off before ${TIMEOUT}s"

if [ "$tap_failed" -ne 0 ]; then
	echo "# $tap_failed failed; last lines of $LOG:"
	tail -n 40 "$LOG" | tr -d '\r' | sed 's/^/#   /'
fi
tap_done
