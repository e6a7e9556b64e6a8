#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check tools/bench_report.py's hop figures against a log made up here.

Two counter snapshots around a TCP_RR run, their `counters: sidecore` lines
with the hop fields (docs/data-path.md, "Hop latency"), and a run whose
lines have none, as a hypervisor before them printed. Prints TAP; exits 1
when a check fails.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / 'tools' / 'bench_report.py'


def sidecore_line(busy_tsc, hop):
    line = (f'counters: sidecore 0 cpu 0 busy_polls 10 idle_polls 90 batches 10 packets 10 '
            f'busy_tsc {busy_tsc}')
    if hop:
        line += (' hop_packets %d hop_tsc %d hop_max 9999 interval_tsc %d interval_max 9999'
                 % hop)
    return line


def log(hop_before, hop_after):
    """A run of TCP_RR between tags 1 and 2."""
    lines = []
    for tag, tsc, busy, hop in ((1, 1000, 500, hop_before), (2, 201000, 20500, hop_after)):
        lines += [f'counters: begin tag {tag} tsc {tsc}',
                  f'counters: guest alpha vcpu 0 state run exits {tag} irqs {tag * 10} '
                  f'faults 0 doorbells 0',
                  sidecore_line(busy, hop),
                  f'counters: end tag {tag}']
    lines.append('[alpha] bench: TCP_RR 1 tags 1 2 elapsed 1.0 result 100.0 trans/s')
    return '\n'.join(lines) + '\n'


def csv(text):
    with tempfile.NamedTemporaryFile('w', suffix='.log') as f:
        f.write(text)
        f.flush()
        out = subprocess.run([sys.executable, str(REPORT), '--log', f.name, '--csv',
                              '--elf', '/nonexistent'],
                             capture_output=True, text=True)
    return out.returncode, out.stdout.strip().split(',')


def main():
    failed, count = 0, 0

    def check(name, passed, detail=''):
        nonlocal failed, count
        count += 1
        print(('ok %d - %s' if passed else 'not ok %d - %s') % (count, name))
        if not passed:
            failed += 1
            print('# ' + str(detail))

    # 200 packets moved: 300,000 ticks of passes, 80,000 between their starts.
    rc, row = csv(log((100, 150000, 40000), (300, 750000, 200000)))
    check('report with hop fields runs', rc == 0, rc)
    check('seen -> published is the mean pass per packet', row[-2:-1] == ['3000'], row)
    check('published -> seen is half the mean interval', row[-1:] == ['400'], row)
    check('the older columns stay where they were',
          row[:3] == ['TCP_RR', '1', '100.0'] and row[6] == '10.0', row)
    rc, row = csv(log(None, None))
    check('lines without hop fields still parse', rc == 0 and row[-2:] == ['-', '-'], row)
    rc, row = csv(log((100, 150000, 40000), (100, 150000, 40000)))
    check('no packet moved: no hop figure', rc == 0 and row[-2:] == ['-', '-'], row)
    print('1..%d' % count)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
