#!/bin/bash
# SPDX-License-Identifier: MIT
#
# check_sidecore_cli.sh - `sidecore check`, `sidecore plan` and `sidecore stat` as a user
# runs them: exit statuses, the summary line, errors with line and key, the
# plan of the demo config on real machines, check placing a file on one, and
# stat on a recorded log excerpt, on a pseudo-terminal and on
# tools/console-pty's operator terminal.
# Prints TAP; exits 1 if any test fails. Needs build/tools/sidecore.
set -uo pipefail
cd "$(dirname "$0")/../.."

tool=build/tools/sidecore
acpi=${SIDECORE_ACPI_DATA:-tests/data/acpi}
demo=docs/examples/sidecore.conf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. tests/unit/tap.sh

# run ARGS...: runs the tool; its status, stdout and stderr land in
# $status, $work/out and $work/err.
run() {
	"$tool" "$@" >"$work/out" 2>"$work/err"
	status=$?
}

# What the tool said, for a failed check.
check_detail() {
	echo "# exit status $status"
	sed 's/^/# stdout: /' "$work/out"
	sed 's/^/# stderr: /' "$work/err"
}

status_is() { [ "$status" -eq "$1" ]; }
out_is() { [ "$(cat "$work/out")" = "$1" ]; }
out_has() { grep -qF -- "$1" "$work/out"; }
err_has() { grep -qF -- "$1" "$work/err"; }
# How many messages stderr holds, however the log sink separates them.
err_count() { [ "$(grep -oF 'config line ' "$work/err" | wc -l)" -eq "$1" ]; }

if [ ! -x "$tool" ]; then
	echo "not ok 1 - $tool is built (make build/tools/sidecore)"
	echo "1..1"
	exit 1
fi

# --- check ---------------------------------------------------------------------

run check "$demo"
check "check: demo config is clean" status_is 0
check "check: one-line summary names the guests" \
	out_is "$demo: ok, 2 guests (alpha, beta)"
check "check: nothing on stderr for a clean file" test ! -s "$work/err"

cat >"$work/bad.conf" <<'EOF'
sidecores = 0, 0
console_baud = 1000

[guest web0]
kernel = vmlinuz
memory = 256X
vcpus = 2
cpus = 1,2

[guest web0]
kernel = vmlinuz
memory = 64M
colour = blue

[guest db]
memory = 512M
mac = 01:00:00:00:00:01
EOF
run check "$work/bad.conf"
check "check: bad config exits 1" status_is 1
check "check: bad list reported at its line" \
	err_has "config line 1: key 'sidecores': cpu listed twice"
check "check: bad baud reported" err_has "config line 2: key 'console_baud': must divide 115200"
check "check: bad size reported" \
	err_has "config line 6: key 'memory': expected a size such as 256M (suffix K, M or G)"
check "check: vcpus and cpus together reported" \
	err_has "config line 8: key 'cpus': give either vcpus or cpus, not both"
check "check: duplicate guest name reported" \
	err_has "config line 10: key 'guest': duplicate guest name 'web0' (first at line 4)"
check "check: unknown key reported" err_has "config line 13: key 'colour': unknown key"
check "check: missing kernel reported at the header" \
	err_has "config line 15: key 'kernel': missing; every guest needs one"
check "check: multicast mac reported" \
	err_has "config line 17: key 'mac': must be unicast"
check "check: every error reported once" err_count 8
check "check: error count at the end" err_has "$work/bad.conf: 8 errors"
check "check: nothing on stdout for a bad file" test ! -s "$work/out"

run check "$work/no-such.conf"
check "check: unreadable file exits 2" status_is 2
check "check: unreadable file says why" err_has "no-such.conf: No such file or directory"

run check
check "check: no argument is a usage error" status_is 2

printf '# nothing but a comment\n' >"$work/empty.conf"
run check "$work/empty.conf"
check "check: a file without guests is clean" out_is "$work/empty.conf: ok, no guests"

# The switch serves at most 8 sidecores; a ninth cpu once became a core with none.
printf 'sidecores = 0,1,2,3,4,5,6,7,8\n' >"$work/nine.conf"
run check "$work/nine.conf"
check "check: nine sidecores exit 1" status_is 1
check "check: nine sidecores reported at their line" \
	err_has "config line 1: key 'sidecores': more than 8 sidecores"
printf 'sidecores = 0,1,2,3,4,5,6,7\n' >"$work/eight.conf"
run check "$work/eight.conf"
check "check: eight sidecores are fine" status_is 0

# --- plan ----------------------------------------------------------------------

run plan "$demo" "$acpi/supermicro-x10dai"
check "plan: demo on two sockets exits 0" status_is 0
check "plan: demo on two sockets" out_is "sidecore cpu 0 node 0
sidecore cpu 10 node 1
idle cpu 20 node 0: smt sibling of sidecore 0
idle cpu 30 node 1: smt sibling of sidecore 10
guest alpha: node 0 cpus 1 memory 192 MiB sidecore 0
guest beta: node 1 cpus 11 memory 192 MiB sidecore 10
node 0: free cpus 2,3,4,5,6,7,8,9,21,22,23,24,25,26,27,28,29 memory 81728 MiB
node 1: free cpus 12,13,14,15,16,17,18,19,31,32,33,34,35,36,37,38,39 memory 81728 MiB"

# Eight sidecores listed on node 0 leave none for node 1: never a ninth.
run plan "$work/eight.conf" "$acpi/supermicro-x10dai"
check "plan: at most eight sidecores exits 1" status_is 1
check "plan: at most eight sidecores" test "$(grep -c '^sidecore cpu' "$work/out")" -eq 8
check "plan: node left without a sidecore reported" \
	err_has "config line 1: key 'sidecores': node 1 gets no sidecore"

run plan "$demo" "$acpi/hp-z400"
check "plan: without SRAT and --mem exits 2" status_is 2
check "plan: without SRAT asks for --mem" err_has "no SRAT"

run plan --mem 1024 "$demo" "$acpi/hp-z400"
check "plan: --mem stands in for SRAT" status_is 0
check "plan: both guests on the one node" out_has "guest beta: node 0 cpus 2 memory 192 MiB sidecore 0"
check "plan: --mem is what is left from" out_has "node 0: free cpus 3,5,6,7 memory 640 MiB"
check "plan: the sidecore's sibling idles on one socket too" \
	out_has "idle cpu 4 node 0: smt sibling of sidecore 0"

run plan --mem lots "$demo" "$acpi/hp-z400"
check "plan: bad --mem is a usage error" status_is 2

cat >"$work/crowded.conf" <<'EOF'
sidecores = 1
[guest pinned]
kernel = vmlinuz
memory = 64M
cpus = 0
[guest big]
kernel = vmlinuz
memory = 1G
vcpus = 8
[guest broken]
kernel = vmlinuz
memory = 64Q
[guest small]
kernel = vmlinuz
memory = 64M
EOF
run plan --mem 512 "$work/crowded.conf" "$acpi/hp-z400"
check "plan: over-commit exits 1" status_is 1
check "plan: configured sidecore" out_has "sidecore cpu 1 node 0"
check "plan: pinned guest on cpu 0" out_has "guest pinned: node 0 cpus 0 memory 64 MiB sidecore 1"
check "plan: guest that does not fit" out_has "guest big: not placed"
check "plan: why it does not fit" \
	err_has "config line 9: key 'vcpus': guest 'big' needs 8 cpus, node 0 has 5 free; cpu 5, the SMT sibling of sidecore 1, stays idle (sidecore_sibling = idle)"
check "plan: invalid guest" out_has "guest broken: invalid"
check "plan: the rest still placed" out_has "guest small: node 0 cpus 2 memory 64 MiB sidecore 1"

run plan "$demo"
check "plan: missing argument is a usage error" status_is 2

# Every machine in tests/data has HT on: each sidecore's sibling idles.
for machine in "$acpi"/*/; do
	machine=$(basename "$machine")
	run plan --mem 4096 "$demo" "$acpi/$machine"
	check "plan: $machine: as many idle siblings as sidecores" \
		test "$(grep -c '^idle cpu' "$work/out")" -eq "$(grep -c '^sidecore cpu' "$work/out")"
done

# --- check against a machine ------------------------------------------------------

run check "$demo" "$acpi/supermicro-x10dai"
check "check: demo placed on a machine" \
	out_is "$demo: ok, 2 guests (alpha, beta), all placed on $acpi/supermicro-x10dai"

# x10dai node 0: 20 threads, less sidecore 0 and its idle sibling, cpu 20.
cat >"$work/full.conf" <<'EOF'
[guest a]
kernel = vmlinuz
memory = 64M
vcpus = 8
node = 0
[guest b]
kernel = vmlinuz
memory = 64M
vcpus = 8
node = 0
[guest c]
kernel = vmlinuz
memory = 64M
vcpus = 3
node = 0
EOF
run check "$work/full.conf" "$acpi/supermicro-x10dai"
check "check: guests that need the sidecore's sibling exit 1" status_is 1
check "check: says which guest, node, need, free and idle sibling" \
	err_has "config line 14: key 'vcpus': guest 'c' needs 3 cpus, node 0 has 2 free; cpu 20, the SMT sibling of sidecore 0, stays idle (sidecore_sibling = idle)"
check "check: counts the placement error" err_has "$work/full.conf: 1 error"
check "check: nothing on stdout when a guest does not fit" test ! -s "$work/out"
run check "$work/full.conf"
check "check: without the machine the same file is clean" status_is 0

{ echo "sidecore_sibling = vcpu"; cat "$work/full.conf"; } >"$work/lent.conf"
run check "$work/lent.conf" "$acpi/supermicro-x10dai"
check "check: sidecore_sibling = vcpu lends the sibling" status_is 0

printf '[guest a]\nkernel = vmlinuz\nmemory = 64M\ncpus = 20\n' >"$work/sibling.conf"
run check "$work/sibling.conf" "$acpi/supermicro-x10dai"
check "check: pinning a vCPU to the idle sibling exits 1" status_is 1
check "check: pinning a vCPU to the idle sibling reported" \
	err_has "config line 4: key 'cpus': guest 'a' wants cpu 20, the SMT sibling of sidecore 0, which stays idle"

printf 'sidecore_sibling = sometimes\n' >"$work/badsibling.conf"
run check "$work/badsibling.conf"
check "check: bad sidecore_sibling reported" \
	err_has "config line 1: key 'sidecore_sibling': expected idle or vcpu"

run check "$demo" "$acpi/hp-z400"
check "check: without SRAT and --mem exits 2" status_is 2
run check --mem 1024 "$demo" "$acpi/hp-z400"
check "check: --mem stands in for SRAT" status_is 0
run check --mem 1024 "$demo"
check "check: --mem without a machine is a usage error" status_is 2
run check "$demo" "$work/no-such-machine"
check "check: unreadable tables exit 2" status_is 2

# --- stat ----------------------------------------------------------------------

excerpt=tests/data/stat/haswell-excerpt.log
run stat --once "$excerpt"
check "stat: a finished log gives its last two samples' rates" status_is 0
check "stat: a guest's exits, interrupts and traffic per second" \
	eval 'grep -qE "^alpha +running +100\.0 +500\.0 +2000\.0 +200000 +2000\.0 +200000 +2\.0$" "$work/out"'
check "stat: a sidecore's busy share" eval 'grep -qE "^0 +0 +50\.0% +4000\.0$" "$work/out"'
run stat --once --json "$excerpt"
check "stat: --json is JSON" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/out"
head -n 12 "$excerpt" >"$work/one-sample.log"
run stat --once "$work/one-sample.log"
check "stat: one sample is not enough: exit 1" status_is 1
check "stat: says how to start them" err_has "fewer than two whole stat: samples (stat on at the console starts them)"
run stat --once
check "stat: no console is a usage error" status_is 2
run stat --once "$work/no-such-log"
check "stat: an unreadable console exits 2" status_is 2

# A console on a pseudo-terminal: the tool types `stat on`, then shows the
# rates of the first two samples that follow.
python3 - "$tool" "$excerpt" >"$work/out" 2>"$work/err" <<'PY'
import json, os, select, subprocess, sys
master, slave = os.openpty()
tool = subprocess.Popen([sys.argv[1], "stat", "--once", "--json", os.ttyname(slave)],
                        stdout=subprocess.PIPE)
typed = b""
while b"stat on\r" not in typed:
    if not select.select([master], [], [], 10)[0]:
        sys.exit("nothing typed")
    typed += os.read(master, 100)
os.write(master, open(sys.argv[2], "rb").read().replace(b"\n", b"\r\n"))
out = json.loads(tool.communicate(timeout=10)[0])
assert tool.returncode == 0 and out["guests"][0]["exits"] == 100, out
print("typed", typed.decode().strip())
PY
status=$?
check "stat: on a terminal it types stat on and reads the samples back" status_is 0

# The operator's pty of tools/console-pty (run-bochs --operator): the tool
# attaches there while the emulator's side keeps writing the log.
python3 - "$tool" "$excerpt" "$work" >"$work/out" 2>"$work/err" <<'PY'
import json, os, select, subprocess, sys, time
tool, excerpt, work = sys.argv[1:]
pty = subprocess.Popen(["tools/console-pty", "--operator", work + "/op", work + "/console.log",
                        work + "/emu"])
try:
    for _ in range(50):
        if os.path.exists(work + "/op") and os.path.exists(work + "/emu"):
            break
        time.sleep(0.1)
    emu = os.open(open(work + "/emu").read().strip(), os.O_RDWR | os.O_NOCTTY)
    stat = subprocess.Popen([tool, "stat", "--once", "--json", open(work + "/op").read().strip()],
                            stdout=subprocess.PIPE)
    typed = b""
    while b"stat on\r" not in typed:
        if not select.select([emu], [], [], 10)[0]:
            sys.exit("stat on never reached the emulator's side")
        typed += os.read(emu, 100)
    os.write(emu, open(excerpt, "rb").read().replace(b"\n", b"\r\n"))
    out = json.loads(stat.communicate(timeout=10)[0])
    assert stat.returncode == 0 and out["sidecores"][0]["packets"] == 4000, out
    assert b"stat: end 2" in open(work + "/console.log", "rb").read()
finally:
    pty.kill()
PY
status=$?
check "stat: through console-pty's operator pty, the log still written" status_is 0

# --- help ----------------------------------------------------------------------

run help
check "help lists check, plan and stat" \
	eval 'out_has "check [--mem MIB] CONFIG [ACPI]" && out_has "plan [--mem MIB] CONFIG ACPI" && out_has "stat [--once] [--json] CONSOLE"'

tap_plan
