#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus for fuzz_multiboot2: small, valid multiboot2
information structures shaped like what GRUB hands over.

Layout per the Multiboot2 specification, section 3.6: a u32 total_size and a
u32 reserved field, then tags {u32 type, u32 size, payload} each starting on
an 8-byte boundary, ending with a type 0 tag of size 8.

Usage: tests/fuzz/make_mb2_seeds.py [output directory]
"""

import os
import struct
import sys

TAG_END = 0
TAG_CMDLINE = 1        # 3.6.5
TAG_LOADER_NAME = 2    # 3.6.9
TAG_MODULE = 3         # 3.6.6
TAG_MMAP = 6           # 3.6.8
TAG_ACPI_OLD = 14      # 3.6.16
TAG_ACPI_NEW = 15      # 3.6.17
TAG_EFI64 = 12         # "EFI 64-bit system table pointer"
TAG_EFI_MMAP = 17      # "EFI memory map"
TAG_EFI_BS = 18        # "EFI boot services not terminated"

# UEFI 2.10 section 7.2, EFI_MEMORY_TYPE.
EFI_LOADER_DATA, EFI_BS_CODE, EFI_BS_DATA, EFI_CONVENTIONAL, EFI_ACPI_RECLAIM = 2, 3, 4, 7, 9

AVAILABLE, RESERVED, ACPI = 1, 2, 3


def tag(tag_type, payload=b""):
    body = struct.pack("<II", tag_type, 8 + len(payload)) + payload
    return body + b"\0" * (-len(body) % 8)


def cmdline(text):
    return tag(TAG_CMDLINE, text.encode() + b"\0")


def module(start, end, name):
    return tag(TAG_MODULE, struct.pack("<II", start, end) + name.encode() + b"\0")


def mmap(entries, entry_size=24):
    payload = struct.pack("<II", entry_size, 0)
    for base, length, kind in entries:
        entry = struct.pack("<QQII", base, length, kind, 0)
        payload += entry + b"\0" * (entry_size - len(entry))
    return tag(TAG_MMAP, payload)


def efi_mmap(descriptors, desc_size=48):
    """EFI memory descriptors: Type, PhysicalStart, VirtualStart, NumberOfPages, Attribute."""
    payload = struct.pack("<II", desc_size, 1)
    for kind, base, pages in descriptors:
        desc = struct.pack("<IIQQQQ", kind, 0, base, 0, pages, 0xf)
        payload += desc + b"\0" * (desc_size - len(desc))
    return tag(TAG_EFI_MMAP, payload)


EFI_MAP = [
    (EFI_BS_CODE, 0x0, 1),
    (EFI_CONVENTIONAL, 0x1000, 0x9f),
    (EFI_CONVENTIONAL, 0x100000, 0x700),
    (EFI_LOADER_DATA, 0x800000, 0x100),
    (EFI_BS_DATA, 0x900000, 0x600),
    (EFI_ACPI_RECLAIM, 0x7fe00000, 0x10),
]


def checksum(data):
    return -sum(data) & 0xff


def rsdp(version):
    """An RSDP copy (ACPI 6.5, 5.2.5.3): 20 bytes for ACPI 1.0, 36 from 2.0 on."""
    v1 = bytearray(struct.pack("<8sB6sBI", b"RSD PTR ", 0, b"BOCHS ",
                               0 if version == 1 else 2, 0x7ffe2000))
    v1[8] = checksum(v1)
    if version == 1:
        return tag(TAG_ACPI_OLD, bytes(v1))
    v2 = v1 + bytearray(struct.pack("<IQB3s", 36, 0x7ffe2100, 0, b""))
    v2[32] = checksum(v2)
    return tag(TAG_ACPI_NEW, bytes(v2))


def mbi(*tags):
    body = b"".join(tags) + tag(TAG_END)
    return struct.pack("<II", 8 + len(body), 0) + body


PC_MAP = [
    (0x0, 0x9fc00, AVAILABLE),
    (0x9fc00, 0x400, RESERVED),
    (0xf0000, 0x10000, RESERVED),
    (0x100000, 0x7fee0000 - 0x100000, AVAILABLE),
    (0x7fee0000, 0x120000, ACPI),
    (0xfffc0000, 0x40000, RESERVED),
    (0x100000000, 0x80000000, AVAILABLE),
]

SEEDS = {
    "grub_full": mbi(
        cmdline("console=ttyS0,115200"),
        tag(TAG_LOADER_NAME, b"GRUB 2.06\0"),
        module(0x200000, 0x200400, "sidecore.cfg"),
        module(0x300000, 0x9a0000, "vmlinuz"),
        module(0xa00000, 0x2a00000, "initrd"),
        mmap(PC_MAP),
        rsdp(1),
        rsdp(2),
    ),
    "mmap_only": mbi(mmap(PC_MAP)),
    "mmap_wide_entries": mbi(mmap(PC_MAP[:4], entry_size=32)),
    "modules_only": mbi(module(0x1000, 0x2000, "a"), module(0x3000, 0x3000, "")),
    "acpi_v1": mbi(cmdline(""), rsdp(1), mmap([(0x100000, 0x1000000, AVAILABLE)])),
    "empty": mbi(),
    "uefi_both_maps": mbi(tag(TAG_EFI64, struct.pack("<Q", 0x7f9ee018)), efi_mmap(EFI_MAP),
                          mmap(PC_MAP), rsdp(2)),
    "uefi_efi_map_only": mbi(efi_mmap(EFI_MAP), rsdp(2)),
    "uefi_boot_services": mbi(efi_mmap(EFI_MAP, desc_size=40), tag(TAG_EFI_BS), rsdp(1)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", "multiboot2")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name + ".mb2"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
