#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns a tools/bench serial log into a results table.

The guest prints one "bench: TEST SIZE tags B A elapsed S result R UNIT"
line per netperf or vsockbench run, a vsock run's followed by " cid C",
its peer's CID, a run of N netperfs at once by " instances N" (its row is
named TEST xN, the result their sum); B and A name the hypervisor counter snapshots taken
before and after it ("counters: begin tag N" ... "counters: end tag N").
Per run: the netperf or vsockbench figure, VM exits and interrupts per
transaction (per MB, 10^6 bytes, for the streams: UNIT other than
trans/s) summed over both guests, doorbell (kick) writes,
and how busy the sidecores were: their share of TSC time in poll passes
that moved packets, and the hop (docs/data-path.md, "Hop latency"): per
packet a pass moved, the TSC from the pass's start to its flush's end
(seen -> published) and half the time since the pass before began
(published -> seen, the mean wait of a packet published between two
looks); under Bochs with `clock: sync=none` both are instructions. Then, per run, the functions the sidecores' sampled
profile found most often, named from the hypervisor's ELF symbols. A run
the guest reported as failed ("bench: TEST SIZE failed") gets a row that
says so.

With --aggregate, guests that ran the same tests side by side (tools/bench
--remote with two guests) give one row per test and size: the sum of their
results, and the counters over the span from the earliest snapshot before
to the latest after, per transaction (or MB) of all of them together.

With --neighbour (tools/bench --neighbour), each line ends in " phase P",
the flood beside which the run was measured; the rows get a column with
their result's ratio to the quiet phase's, and --guests NAME,... limits
the exits and interrupts to those guests (the attacker's are its own).
"""
import argparse
import bisect
import re
import subprocess
import sys

BENCH = re.compile(r'^\[(\w+)\] bench: (\S+) (\d+) tags (\d+) (\d+) elapsed ([\d.]+) '
                   r'result ([\d.]+) (\S+)(?: cid (\d+))?(?: instances (\d+))?(?: phase (\S+))?')
FAILED = re.compile(r'^\[\w+\] bench: (\S+) (\d+) failed(?: \((?:cid (\d+)|phase (\S+))\))?:')
GUEST = re.compile(r'^counters: guest (\S+) vcpu (\d+) state \S+ exits (\d+) irqs (\d+) '
                   r'faults \d+ doorbells (\d+)')
PROFILE_HZ = re.compile(r'^counters: profile sidecore \d+ hz (\d+) ')
PROFILE = re.compile(r'^counters: profile sidecore (\d+) buckets((?: [0-9a-f]+:\d+)+)$')
SIDECORE = re.compile(r'^counters: sidecore (\d+) cpu \d+ busy_polls (\d+) idle_polls (\d+) '
                      r'batches \d+ packets \d+ busy_tsc (\d+)'
                      r'(?: hop_packets (\d+) hop_tsc (\d+) hop_max \d+ '
                      r'interval_tsc (\d+) interval_max \d+)?')


def snapshots(lines):
    """{tag: {'tsc': T, 'guest': {(name, vcpu): dict}, 'sidecore': {index: busy_tsc},
    'hop': {index: (packets, hop_tsc, interval_tsc)}}}"""
    shots, current = {}, None
    for line in lines:
        m = re.match(r'^counters: begin tag (\d+) tsc (\d+)$', line)
        if m:
            current = shots.setdefault(int(m.group(1)), {'tsc': int(m.group(2)), 'guest': {},
                                                         'sidecore': {}, 'profile': {},
                                                         'hop': {}})
            continue
        if re.match(r'^counters: end tag \d+$', line):
            current = None
            continue
        if current is None:
            continue
        m = GUEST.match(line)
        if m:
            current['guest'][(m.group(1), m.group(2))] = {
                'exits': int(m.group(3)), 'irqs': int(m.group(4)),
                'doorbells': int(m.group(5))}
        m = SIDECORE.match(line)
        if m:
            current['sidecore'][int(m.group(1))] = int(m.group(4))
            if m.group(5):
                current['hop'][int(m.group(1))] = tuple(int(m.group(i)) for i in (5, 6, 7))
        m = PROFILE.match(line)
        if m:
            for pair in m.group(2).split():
                addr, count = pair.split(':')
                key = int(addr, 16)
                current['profile'][key] = current['profile'].get(key, 0) + int(count)
    return shots


def symbols(elf):
    """Sorted (address, name) of the ELF's functions, or [] without nm or the file."""
    try:
        out = subprocess.run(['nm', '-n', '--defined-only', elf], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in 'Tt' and not parts[2].startswith('__text'):
            syms.append((int(parts[0], 16), parts[2]))
    return syms


def profile(before, after, syms, top=6):
    """Samples, 'name share, ...' of the functions hit most, and the top name."""
    addrs = [a for a, _ in syms]
    hits, total = {}, 0
    for addr, count in after.get('profile', {}).items():
        n = count - before.get('profile', {}).get(addr, 0)
        if n <= 0:
            continue
        i = bisect.bisect_right(addrs, addr) - 1
        name = syms[i][1] if i >= 0 else hex(addr)
        hits[name] = hits.get(name, 0) + n
        total += n
    ranked = sorted(hits.items(), key=lambda kv: -kv[1])[:top]
    return (total, ', '.join(f'`{name}` {100.0 * n / total:.0f}%' for name, n in ranked),
            ranked[0][0] if ranked else '')


def test_name(test, cid, names):
    """The table's name of a run: a vsock run's says its transport and peer."""
    if cid is None:
        return test
    if cid == '2':
        return f'{test} (vsock to the host, CID 2)'
    if cid in names:
        return f'{test} (vsock to guest {names[cid]}, CID {cid})'
    return f'{test} (vsock to CID {cid})'


# The phases of tools/bench --neighbour, as the table names them.
PHASES = {'quiet': 'quiet', 'flood1552': 'beside a port 1552 flood',
          'gsoflood': 'beside a broadcast 64 KiB GSO flood'}


def hop(before, after):
    """Mean TSC per packet moved: (seen -> published, published -> seen), or None."""
    sums = [sum(after['hop'][s][i] - before['hop'].get(s, (0, 0, 0))[i] for s in after['hop'])
            for i in range(3)]
    if sums[0] <= 0:
        return None
    return sums[1] / sums[0], sums[2] / sums[0] / 2


def delta(before, after, key, only=None):
    return sum(after['guest'][g][key] - before['guest'][g][key] for g in after['guest']
               if not only or g[0] in only)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--log', required=True)
    ap.add_argument('--model', default='')
    ap.add_argument('--cpus', default='')
    ap.add_argument('--ips', default='50000000')
    ap.add_argument('--command', default='')
    ap.add_argument('--guest-args', default='', help='extra guest kernel parameters of the run')
    ap.add_argument('--section', default='', help='a label giving the run a section of its own')
    ap.add_argument('--cid-name', action='append', default=[], metavar='CID=NAME',
                    help='the guest a vsock run\'s peer CID is, for the table')
    ap.add_argument('--elf', default='build/sidecore.elf',
                    help='the hypervisor that ran, for the profile\'s function names')
    ap.add_argument('--out')
    ap.add_argument('--aggregate', action='store_true',
                    help='one row per test and size over every guest that ran it')
    ap.add_argument('--note', default='', help='a paragraph to print under the command')
    ap.add_argument('--neighbour', action='store_true',
                    help='rows per phase with their ratio to the quiet one')
    ap.add_argument('--guests', default='',
                    help='NAME,... the guests whose exits and interrupts count (default all)')
    ap.add_argument('--csv', action='store_true',
                    help='print test,size,result,exits,irqs,doorbells,busy,top function,'
                         'hop seen -> published,hop published -> seen and write nothing')
    a = ap.parse_args()

    lines = [l.rstrip('\r\n') for l in open(a.log, errors='replace')]
    shots = snapshots(lines)
    names = dict(pair.split('=', 1) for pair in a.cid_name)
    only = set(filter(None, a.guests.split(',')))
    syms = symbols(a.elf)
    hz = next((m.group(1) for m in map(PROFILE_HZ.match, lines) if m), '?')
    rows, profiles, runs = [], [], []
    for line in lines:
        m = FAILED.match(line)
        if m:
            name = test_name(m.group(1), m.group(3), names)
            if m.group(4):
                name += ', ' + PHASES.get(m.group(4), m.group(4))
            rows.append((name, m.group(2), 'failed', '-', '-', '-', '-', '-'))
            continue
        m = BENCH.match(line)
        if not m:
            continue
        guest, test, size, tb, ta, elapsed, result, unit, cid, instances, phase = m.groups()
        if instances:
            test += f' x{instances}'
        before, after = shots.get(int(tb)), shots.get(int(ta))
        if not before or not after:
            print(f'bench: no counter snapshot {tb} or {ta}', file=sys.stderr)
            return 1
        run = {'guest': guest, 'before': before, 'after': after, 'elapsed': float(elapsed),
               'result': float(result), 'unit': unit}
        group = next((g for g in runs if g['key'] == (test, size, cid, phase)), None) \
            if a.aggregate else None
        if group:
            group['runs'].append(run)
        else:
            runs.append({'key': (test, size, cid, phase), 'runs': [run]})
    quiet = {(g['key'][0], g['key'][1]): sum(r['result'] for r in g['runs'])
             for g in runs if g['key'][3] == 'quiet'}
    for group in runs:
        test, size, cid, phase = group['key']
        members = group['runs']
        unit = members[0]['unit']
        before = min((r['before'] for r in members), key=lambda shot: shot['tsc'])
        after = max((r['after'] for r in members), key=lambda shot: shot['tsc'])
        result = sum(r['result'] for r in members)
        units = sum(r['result'] * r['elapsed'] for r in members)
        if unit == 'trans/s':
            per = 'transaction'
        else:
            units, per = units / 8, 'MB'
        ticks = after['tsc'] - before['tsc']
        cores = len(after['sidecore'])
        busy = sum(after['sidecore'][s] - before['sidecore'][s] for s in after['sidecore'])
        busy = 100.0 * busy / (ticks * cores) if ticks and cores else 0
        exits = delta(before, after, 'exits', only)
        irqs = delta(before, after, 'irqs', only)
        samples, where, top = profile(before, after, syms)
        hops = hop(before, after)
        if a.csv:
            print(f'{test},{size},{result},{exits / units if units else 0:.3f},'
                  f'{irqs / units if units else 0:.3f},'
                  f'{delta(before, after, "doorbells", only)},{busy:.1f},{top or "-"},'
                  + (f'{hops[0]:.0f},{hops[1]:.0f}' if hops else '-,-'))
        name = test_name(test, cid, names)
        if phase:
            name += ', ' + PHASES.get(phase, phase)
        if len(members) > 1:
            name += ', ' + ' + '.join(r['guest'] for r in members)
        row = (name, size, f'{result:.2f} {unit}',
               f'{exits / units:.2f} / {per}' if units else '-',
               f'{irqs / units:.2f}' if units else '-',
               str(delta(before, after, 'doorbells', only)),
               f'{busy:.1f}%',
               f'{hops[0]:,.0f} / {hops[1]:,.0f}' if hops else '-')
        if a.neighbour:
            base = quiet.get((test, size))
            row += (f'{result / base:.3f}' if base else '-',)
        rows.append(row)
        profiles.append((name, size, str(samples), where or '-'))
    if not rows:
        print('bench: no results in the log', file=sys.stderr)
        return 1
    if a.csv:
        return 0

    heading = f'## {a.model}, {a.cpus} CPUs, ips {a.ips}'
    if a.guest_args:
        heading += f', guests with `{a.guest_args}`'
    if a.section:
        heading += f', {a.section}'
    section = [heading, '',
               f'Command: `{a.command}` (Bochs `cpu: model={a.model}, count={a.cpus}, ips={a.ips}`, '
               '`clock: sync=none`: time is instruction count).', '']
    if a.note:
        section += [a.note, '']
    columns = ['test', 'size', 'result', 'exits', 'interrupts', 'doorbells', 'sidecore busy',
               'hop: seen -> published / published -> seen']
    if a.neighbour:
        columns.append('ratio to quiet')
    # A failed run's row has no ratio.
    rows = [r + ('-',) * (len(columns) - len(r)) for r in rows]
    section += ['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
    section += ['| ' + ' | '.join(r) + ' |' for r in rows]
    section += ['', 'Where the sidecore\'s time went: its RIP sampled '
                f'at {hz} Hz of emulated time (docs/data-path.md, "Profile").', '',
                '| test | size | samples | functions |', '|---|---|---|---|']
    section += ['| ' + ' | '.join(r) + ' |' for r in profiles]
    section.append('')
    try:
        text = open(a.out).read()
    except FileNotFoundError:
        text = '# Measured results\n\n'
    # Replace this model's section at this speed, keep the others.
    pattern = re.compile(rf'^{re.escape(heading)}\n.*?(?=^## |\Z)', re.S | re.M)
    body = '\n'.join(section) + '\n'
    text = pattern.sub(body, text) if pattern.search(text) else text.rstrip('\n') + '\n\n' + body
    open(a.out, 'w').write(text)
    print('\n'.join(section))
    return 0


if __name__ == '__main__':
    sys.exit(main())
