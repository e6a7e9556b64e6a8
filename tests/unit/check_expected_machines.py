#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that tests/unit/expected_machines.h is what gen_expected.py makes
from tests/data/acpi/*/expected.json today (TAP output, exit 1 when stale)."""

import sys
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_expected  # noqa: E402


def main():
    fresh = gen_expected.generate(gen_expected.DATA)
    current = gen_expected.HEADER.read_text() if gen_expected.HEADER.is_file() else ""
    if fresh == current:
        print("ok 1 - expected_machines.h matches tests/data/acpi")
    else:
        print("not ok 1 - expected_machines.h matches tests/data/acpi")
        print("# stale: run python3 tests/unit/gen_expected.py")
    print("1..1")
    return 0 if fresh == current else 1


if __name__ == "__main__":
    sys.exit(main())
