#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_guest_acpi_iasl.py - the guest ACPI tables through ACPICA's disassembler.

`build/tools/sidecore guest-acpi DIR VCPUS` writes the tables a guest gets;
`iasl -d` must decode each one without an error, a warning or a checksum
complaint, and the decoded fields must say what docs/guest-platform.md
promises. iasl cannot decode a bare RSDP, so its checksums and pointer are
checked here. Addresses and ports come from hv/config/guest_layout.h.

Prints TAP; exits 1 if any check fails.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOOL = os.path.join(ROOT, "build", "tools", "sidecore")
LAYOUT = os.path.join(ROOT, "hv", "config", "guest_layout.h")
TROUBLE = re.compile(r"error|warning|incorrect|invalid|terminates", re.IGNORECASE)


def read_layout():
    """The #defines of guest_layout.h as integers."""
    values = {}
    with open(LAYOUT, encoding="utf-8") as header:
        for line in header:
            match = re.match(r"#define\s+(GUEST_\w+)\s+(0x[0-9a-fA-F]+|\d+)", line)
            if match:
                values[match.group(1)] = int(match.group(2), 0)
    return values


def field(text, name):
    """The value column of a decoded field, e.g. field(dsl, "Local Apic Address")."""
    return re.findall(r"\]\s+" + re.escape(name) + r"\s*:\s*(\S+)", text)


def flag(text, name):
    """A decoded flag bit, listed under its field without an offset."""
    return re.findall(r"^\s*" + re.escape(name) + r"\s*:\s*(\S+)", text, re.MULTILINE)


class Tap:
    def __init__(self):
        self.count = 0
        self.failed = 0

    def result(self, name, problems):
        self.count += 1
        if problems:
            self.failed += 1
            print(f"not ok {self.count} - {name}")
            for problem in problems:
                print(f"# {problem}")
        else:
            print(f"ok {self.count} - {name}")


def disassemble(directory, signature):
    """Runs iasl -d on SIG.dat; returns (problems, decoded text)."""
    path = os.path.join(directory, signature + ".dat")
    if not os.path.exists(path):
        return [f"{signature}.dat was not written"], ""
    run = subprocess.run(["iasl", "-vs", "-d", path], cwd=directory,
                         capture_output=True, text=True, check=False)
    problems = []
    output = run.stdout + run.stderr
    dsl_path = os.path.join(directory, signature + ".dsl")
    text = ""
    if os.path.exists(dsl_path):
        with open(dsl_path, encoding="utf-8", errors="replace") as dsl:
            text = dsl.read()
    if run.returncode != 0:
        problems.append(f"iasl -d exit status {run.returncode}")
    for line in (output + text).splitlines():
        if TROUBLE.search(line):
            problems.append(line.strip())
    if not text:
        problems.append("no disassembly written")
    return problems, text


def expect(problems, what, found, wanted):
    if found != wanted:
        problems.append(f"{what}: {found} instead of {wanted}")


def check_xsdt(text, layout):
    entries = [int(a, 16) for a in re.findall(r"ACPI Table Address\s+\d+\s*:\s*(\S+)", text)]
    if len(entries) != 3 or not all(in_window(entry, layout) for entry in entries):
        return [f"want FADT, MADT and MCFG in the ACPI window, found {entries}"]
    return []


def check_fadt(text, layout):
    problems = []
    expect(problems, "Hardware Reduced", flag(text, "Hardware Reduced (V5)"), ["1"])
    expect(problems, "Revision", field(text, "Revision"), ["06"])
    spaces = field(text, "Space ID")
    addresses = field(text, "Address")
    # Sleep control and status are the last two address structures.
    expect(problems, "sleep register spaces", spaces[-2:], ["01", "01"])
    expect(problems, "sleep register ports", [int(a, 16) for a in addresses[-2:]],
           [layout["GUEST_SLEEP_CONTROL_PORT"], layout["GUEST_SLEEP_STATUS_PORT"]])
    expect(problems, "sleep register widths", field(text, "Bit Width")[-2:], ["08", "08"])
    dsdt = [int(a, 16) for a in field(text, "DSDT Address")]
    if len(dsdt) != 2 or dsdt[0] != 0 or not in_window(dsdt[1], layout):
        problems.append(f"DSDT addresses {dsdt}: want 32-bit 0 and X_DSDT in the ACPI window")
    return problems


def check_madt(text, layout, vcpus):
    problems = []
    expect(problems, "Local Apic Address", [int(a, 16) for a in field(text, "Local Apic Address")],
           [layout["GUEST_LAPIC_GPA"]])
    expect(problems, "PC-AT Compatibility", flag(text, "PC-AT Compatibility"), ["0"])
    expect(problems, "local APIC entries", field(text, "Subtable Type"), ["00"] * vcpus)
    expect(problems, "APIC IDs", [int(a, 16) for a in field(text, "Local Apic ID")],
           list(range(vcpus)))
    expect(problems, "enabled", flag(text, "Processor Enabled"), ["1"] * vcpus)
    return problems


def check_mcfg(text, layout):
    problems = []
    expect(problems, "Base Address", [int(a, 16) for a in field(text, "Base Address")],
           [layout["GUEST_ECAM_GPA"]])
    expect(problems, "Segment Group", [int(a, 16) for a in field(text, "Segment Group Number")],
           [0])
    expect(problems, "buses", field(text, "Start Bus Number") + field(text, "End Bus Number"),
           ["00", "00"])
    return problems


def check_dsdt(text, layout):
    problems = []
    for wanted in ("PNP0A08", "PNP0A03", "PNP0C02", "PNP0501", "_S5", "_SEG", "_BBN"):
        if wanted not in text:
            problems.append(f"no {wanted}")
    for name in ("GUEST_PCI_MMIO_GPA", "GUEST_PCI_MMIO_LAST", "GUEST_ECAM_GPA"):
        if f"0x{layout[name]:08X}" not in text:
            problems.append(f"{name} 0x{layout[name]:08X} not declared")
    s5 = re.search(r"Name \(_S5, Package \(0x04\)[^{]*\{\s*(\S+?),", text)
    if not s5 or int(s5.group(1), 0) != layout["GUEST_SLP_TYP_S5"]:
        problems.append("_S5 SLP_TYPa is not GUEST_SLP_TYP_S5")
    return problems


def in_window(address, layout):
    start = layout["GUEST_ACPI_GPA"]
    return start <= address < start + layout["GUEST_ACPI_SIZE"]


def check_rsdp(directory, layout):
    path = os.path.join(directory, "RSDP.dat")
    if not os.path.exists(path):
        return ["RSDP.dat was not written"]
    with open(path, "rb") as rsdp_file:
        rsdp = rsdp_file.read()
    problems = []
    if len(rsdp) != 36 or rsdp[:8] != b"RSD PTR ":
        return [f"not a 36-byte RSDP: {rsdp[:8]!r}, {len(rsdp)} bytes"]
    if sum(rsdp[:20]) & 0xFF or sum(rsdp) & 0xFF:
        problems.append("bad checksum")
    revision, length, xsdt = rsdp[15], struct.unpack_from("<I", rsdp, 20)[0], \
        struct.unpack_from("<Q", rsdp, 24)[0]
    expect(problems, "revision", revision, 2)
    expect(problems, "length", length, 36)
    if not in_window(xsdt, layout):
        problems.append(f"XSDT address {xsdt:#x} outside the ACPI window")
    return problems


def main():
    layout = read_layout()
    tap = Tap()
    for vcpus in (1, 4):
        with tempfile.TemporaryDirectory() as directory:
            run = subprocess.run([TOOL, "guest-acpi", directory, str(vcpus)],
                                 capture_output=True, text=True, check=False)
            tap.result(f"{vcpus} vCPU(s): sidecore guest-acpi",
                       [] if run.returncode == 0 else
                       [f"exit status {run.returncode}"] + run.stderr.splitlines())
            tap.result(f"{vcpus} vCPU(s): RSDP checksums and XSDT pointer",
                       check_rsdp(directory, layout))
            checks = {
                "XSDT": lambda text: check_xsdt(text, layout),
                "FACP": lambda text: check_fadt(text, layout),
                "DSDT": lambda text: check_dsdt(text, layout),
                "APIC": lambda text: check_madt(text, layout, vcpus),
                "MCFG": lambda text: check_mcfg(text, layout),
            }
            for signature, check in checks.items():
                problems, text = disassemble(directory, signature)
                if text:
                    problems += check(text)
                tap.result(f"{vcpus} vCPU(s): iasl -d {signature}", problems)
    print(f"1..{tap.count}")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
