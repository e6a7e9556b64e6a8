#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that tools/layers and tools/kdoc read drivers/ and drivers/net/ as
they read hv/'s folders: each runs on small trees made here, with and without
a loop through drivers/, and on this tree. Prints TAP; exits 1 when a check
fails.
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The loop tools/layers exists to catch: the console uses the serial driver,
# which takes its port I/O from the console's folder.
LOOP_THROUGH_DRIVERS = {
    "hv/lib/printf.h": "",
    "hv/arch/x86.h": '#include "lib/printf.h"\n',
    "hv/arch/console.c": '#include "arch/x86.h"\n#include "drivers/serial.h"\n',
    "drivers/serial.h": "",
    "drivers/serial.c": '#include "arch/x86.h"\n#include "drivers/serial.h"\n',
}

# The same, broken at its root: port I/O in a folder below drivers/.
LOOP_BROKEN = dict(LOOP_THROUGH_DRIVERS, **{
    "hv/cpu/io.h": "",
    "hv/arch/x86.h": '#include "cpu/io.h"\n',
    "drivers/serial.c": '#include "cpu/io.h"\n#include "drivers/serial.h"\n',
})

# hv/net and drivers/net share a last name; the includes tell them apart.
LOOP_THROUGH_DRIVERS_NET = {
    "hv/net/net.h": '#include "drivers/net/nic.h"\n',
    "drivers/net/nic.h": '#include "net/net.h"\n',
}

UNDOCUMENTED_DRIVER = {
    "hv/lib/copy.h": "/**\n * copy_bytes() - copy\n */\nvoid copy_bytes(void);\n",
    "drivers/net/nic.h": "\nint nic_probe(void);\n",
}


def run_in_tree(files, tool, *args):
    """Runs a copy of tools/TOOL in a scratch tree holding only files."""
    with tempfile.TemporaryDirectory(prefix="sidecore-layers-") as scratch:
        top = Path(scratch)
        for name, text in files.items():
            (top / name).parent.mkdir(parents=True, exist_ok=True)
            (top / name).write_text(text)
        (top / "tools").mkdir()
        for t in ("layers", "kdoc"):
            shutil.copy(ROOT / "tools" / t, top / "tools" / t)
        return subprocess.run([str(top / "tools" / tool), *args],
                              capture_output=True, text=True)


def main():
    checks = []

    r = run_in_tree(LOOP_THROUGH_DRIVERS, "layers")
    checks.append(("layers fails on a loop between arch and drivers",
                   r.returncode == 1 and "loop between arch, drivers" in r.stdout
                   and "drivers -> arch: drivers/serial.c:1" in r.stdout
                   and "arch -> drivers: hv/arch/console.c:2" in r.stdout, r.stdout))

    r = run_in_tree(LOOP_BROKEN, "layers", "--order")
    order = [line.split()[0] for line in r.stdout.splitlines() if "->" in line]
    checks.append(("layers passes with port I/O below drivers, in that order",
                   r.returncode == 0 and order.index("cpu") < order.index("drivers")
                   < order.index("arch"), r.stdout))

    r = run_in_tree(LOOP_THROUGH_DRIVERS_NET, "layers")
    checks.append(("layers fails on a loop between net and drivers/net",
                   r.returncode == 1 and "loop between drivers/net, net" in r.stdout, r.stdout))

    r = run_in_tree(UNDOCUMENTED_DRIVER, "kdoc")
    checks.append(("kdoc reads the headers of drivers/net",
                   r.returncode == 1
                   and r.stdout.strip() == "drivers/net/nic.h:2: nic_probe() has no kernel-doc",
                   r.stdout))

    r = subprocess.run([str(ROOT / "tools" / "layers"), "--order"], capture_output=True, text=True)
    folders = {line.split()[0] for line in r.stdout.splitlines() if "->" in line}
    checks.append(("layers --order on this tree names drivers and drivers/net",
                   {"drivers", "drivers/net"} <= folders, r.stdout))

    failed = 0
    for n, (name, passed, detail) in enumerate(checks, 1):
        print(("ok %d - %s" if passed else "not ok %d - %s") % (n, name))
        if not passed:
            failed += 1
            for line in detail.splitlines():
                print("# " + line)
    print("1..%d" % len(checks))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
