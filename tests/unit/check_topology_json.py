#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check `sidecore topology` against expected.json for every machine in tests/data/acpi.

Each machine folder is read twice: as the folder of binary tables, and as an
acpidump text file that this script writes from those tables (the format Linux
`acpidump` prints), which must give the same JSON. Prints TAP; exits 1 when a
check fails.

    check_topology_json.py [--tool build/tools/sidecore] [--data tests/data/acpi]
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# acpidump prints a fixed-width hex dump, 16 bytes a line; keep it byte-exact
# so real dumps and these generated ones take the same path through the tool.
DUMP_BYTES_PER_LINE = 16


class Tap:
    def __init__(self):
        self.count = 0
        self.failed = 0

    def check(self, name, passed, detail=""):
        self.count += 1
        if passed:
            print("ok %d - %s" % (self.count, name))
            return
        self.failed += 1
        print("not ok %d - %s" % (self.count, name))
        for line in str(detail).splitlines():
            print("# " + line)

    def skip(self, name, reason):
        self.count += 1
        print("ok %d - %s # SKIP %s" % (self.count, name, reason))

    def finish(self):
        print("1..%d" % self.count)
        return 1 if self.failed else 0


def run_tool(tool, *args):
    return subprocess.run([str(tool), *args], capture_output=True, text=True)


def acpidump_text(tables):
    """The acpidump text for [(section name, bytes)], at made-up addresses."""
    lines = []
    for index, (name, data) in enumerate(tables):
        lines.append("%s @ 0x%016X" % (name, 0xBF790000 + index * 0x1000))
        for offset in range(0, len(data), DUMP_BYTES_PER_LINE):
            chunk = data[offset:offset + DUMP_BYTES_PER_LINE]
            hex_bytes = "".join("%02X " % b for b in chunk).ljust(3 * DUMP_BYTES_PER_LINE)
            text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
            lines.append("    %04X: %s %s" % (offset, hex_bytes, text))
        lines.append("")
    return "\n".join(lines) + "\n"


def expected_view(expected):
    """What the tool must print, derived from expected.json (see README there)."""
    madt = expected["madt"]
    enabled = madt["enabled_apic_ids"]
    srat = expected["srat"]
    if srat is None:
        nodes = [{"domain": 0, "apic_ids": sorted(enabled), "memory": []}]
    else:
        nodes = []
        for domain in srat["proximity_domains"]:
            apic_ids = sorted(a for a in domain["apic_ids"] if a in enabled)
            memory = [{"base": m["base"], "length": m["length"]}
                      for m in domain["memory"]
                      if m["enabled"] and int(m["length"], 16) != 0]
            if apic_ids or memory:
                nodes.append({"domain": domain["domain"], "apic_ids": apic_ids,
                              "memory": memory})
    slit = expected["slit"]
    return {
        "enabled_apic_ids": enabled,
        "nodes": nodes,
        "slit": {"localities": slit["localities"], "matrix": slit["matrix"]} if slit else None,
        "mcfg": {"allocations": expected["mcfg"]["allocations"] if expected["mcfg"] else []},
    }


def check_nodes(got, want):
    """None when the tool's nodes match, else a description of the difference."""
    view = [{"domain": n["domain"], "apic_ids": n["apic_ids"], "memory": n["memory"]}
            for n in got["nodes"]]
    if view != want["nodes"]:
        return "got  %s\nwant %s" % (json.dumps(view), json.dumps(want["nodes"]))
    enabled = got["enabled_apic_ids"]
    for number, node in enumerate(got["nodes"]):
        if node["node"] != number:
            return "node %d is numbered %d" % (number, node["node"])
        if node["cpus"] != sorted(node["cpus"]):
            return "node %d: cpus not ascending" % number
        if sorted(enabled[c] for c in node["cpus"]) != node["apic_ids"]:
            return "node %d: cpus %s do not carry apic_ids %s" % (
                number, node["cpus"], node["apic_ids"])
    return None


def check_sidecores(got):
    """One sidecore per node that has CPUs: its lowest-numbered CPU."""
    want = [{"node": n["node"], "cpu": n["cpus"][0],
             "apic_id": got["enabled_apic_ids"][n["cpus"][0]]}
            for n in got["nodes"] if n["cpus"]]
    if got["sidecores"] != want:
        return "got  %s\nwant %s" % (json.dumps(got["sidecores"]), json.dumps(want))
    return None


def check_machine(tap, tool, folder, scratch):
    name = folder.name
    with open(folder / "expected.json") as f:
        want = expected_view(json.load(f))

    result = run_tool(tool, "topology", str(folder))
    tap.check("%s: exit status 0" % name, result.returncode == 0,
              "status %d\n%s" % (result.returncode, result.stderr))
    tap.check("%s: nothing reported on stderr" % name, result.stderr == "", result.stderr)
    try:
        got = json.loads(result.stdout)
    except ValueError as error:
        tap.check("%s: output is JSON" % name, False, "%s\n%s" % (error, result.stdout))
        return
    tap.check("%s: enabled_apic_ids" % name,
              got.get("enabled_apic_ids") == want["enabled_apic_ids"],
              "got  %s\nwant %s" % (got.get("enabled_apic_ids"), want["enabled_apic_ids"]))
    problem = check_nodes(got, want)
    tap.check("%s: nodes" % name, problem is None, problem)
    tap.check("%s: slit" % name, got.get("slit") == want["slit"],
              "got  %s\nwant %s" % (got.get("slit"), want["slit"]))
    tap.check("%s: mcfg" % name, got.get("mcfg") == want["mcfg"],
              "got  %s\nwant %s" % (got.get("mcfg"), want["mcfg"]))
    problem = check_sidecores(got)
    tap.check("%s: sidecores" % name, problem is None, problem)

    # The same tables as acpidump text, with the RSDP section real dumps carry.
    tables = [(p.read_bytes()[:4].decode("ascii"), p.read_bytes())
              for p in sorted(folder.glob("*.dat"))]
    rsdp = b"RSD PTR " + bytes(12)
    dump = scratch / ("%s.acpidump" % name)
    dump.write_text(acpidump_text([("RSD PTR", rsdp)] + tables))
    from_dump = run_tool(tool, "topology", str(dump))
    tap.check("%s: acpidump text gives the same JSON" % name,
              from_dump.returncode == 0 and from_dump.stdout == result.stdout
              and from_dump.stderr == "",
              "status %d\n%s%s" % (from_dump.returncode, from_dump.stderr, from_dump.stdout))

    # The generated text must be what acpixtract (the reference reader) accepts.
    if not shutil.which("acpixtract"):
        tap.skip("%s: acpixtract reads the generated text back" % name,
                 "acpixtract not installed")
        return
    extract = scratch / ("%s.extract" % name)
    extract.mkdir()
    subprocess.run(["acpixtract", "-a", str(dump.resolve())], cwd=extract,
                   capture_output=True)
    mismatched = [sig for sig, data in tables
                  if not (extract / ("%s.dat" % sig.lower())).is_file()
                  or (extract / ("%s.dat" % sig.lower())).read_bytes() != data]
    tap.check("%s: acpixtract reads the generated text back" % name, not mismatched,
              "differs: %s" % mismatched)


def check_errors(tap, tool, scratch):
    result = run_tool(tool, "no-such-command")
    tap.check("unknown command: exit 2 with a message",
              result.returncode == 2 and "unknown command" in result.stderr,
              "status %d: %s" % (result.returncode, result.stderr))
    result = run_tool(tool, "topology", str(scratch / "missing"))
    tap.check("unreadable path: exit 2 with a message",
              result.returncode == 2 and "missing" in result.stderr,
              "status %d: %s" % (result.returncode, result.stderr))
    result = run_tool(tool, "topology")
    tap.check("topology without a path: exit 2", result.returncode == 2,
              "status %d" % result.returncode)
    empty = scratch / "no-madt"
    empty.mkdir()
    (empty / "NOTE.dat").write_bytes(b"not a table")
    result = run_tool(tool, "topology", str(empty))
    tap.check("no valid MADT: exit 1, table named on stderr",
              result.returncode == 1 and "MADT" in result.stderr and result.stdout == "",
              "status %d: %s" % (result.returncode, result.stderr))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", type=Path, default=ROOT / "build" / "tools" / "sidecore")
    parser.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "acpi")
    args = parser.parse_args()

    tap = Tap()
    machines = sorted(p for p in args.data.iterdir() if (p / "expected.json").is_file())
    tap.check("machines found in %s" % args.data, len(machines) > 0)
    with tempfile.TemporaryDirectory(prefix="sidecore-topology-") as scratch:
        for folder in machines:
            check_machine(tap, args.tool, folder, Path(scratch))
        check_errors(tap, args.tool, Path(scratch))
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
