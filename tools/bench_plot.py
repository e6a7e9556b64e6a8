#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Draws the benchmark figures from the tables recorded in a results file.

    bench_plot.py [--results docs/results.md] [--img DIR]

Reads the Markdown tables tools/bench and tools/bench_report.py write
(docs/results.md by default) and draws small PNGs with gnuplot into DIR
(default: img/ beside the results file), so a re-run of tools/bench, which
rewrites its section, redraws them:

  ratio.png    throughput and transactions as a ratio to KVM + vhost-net,
               per test: sidecore's figure from the model's latest table
               (with and without ERMS), the incumbent's from "Beside the
               incumbent"
  exits.png    VM exits per TCP_RR 1 B transaction by reason, beside
               KVM + vhost-net's (the table in "Exits that remain")
  scaling.png  results with 1, 2 and 4 netperfs at once, as a multiple of
               one's (the "instances" section)

A figure whose table is missing is left out and named on stderr.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

INCUMBENT = "Beside the incumbent"
EXITS = "Exits that remain"
HASWELL = "corei7_haswell_4770, 3 CPUs, ips 200000000"
NO_ERMS = HASWELL + ", guests with `clearcpuid=erms`"
INSTANCES = re.compile(r"^corei7_haswell_4770, \d+ CPUs, ips \d+, .*instances [\d,]+$")
# The incumbent table's test names; the model tables name size in bytes.
SIZE = {"1 B": "1", "16 KiB": "16384", "1 KiB": "1024"}


def tables(path):
    """{section title: [rows as lists of cells, header first]}, its first table each."""
    found, title, rows = {}, None, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("## "):
            title, rows = line[3:].strip(), None
            continue
        if title is None or title in found and rows is None:
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            if rows is None:
                rows = found[title] = []
            rows.append(cells)
        elif rows is not None:
            rows = None
            title = None
    return found


def number(cell):
    m = re.match(r"^([\d,]+(?:\.\d+)?)", cell)
    return float(m.group(1).replace(",", "")) if m else None


def model_result(section, test, size):
    """The result column of a tools/bench table's row, or None."""
    for row in section or []:
        if len(row) > 2 and row[0] == test and row[1] == size:
            return number(row[2])
    return None


def ratio_data(found):
    inc = found.get(INCUMBENT)
    if not inc:
        return None
    head = inc[0]
    col = {name: head.index(name) for name in head}
    rows = []
    for row in inc[1:]:
        m = re.match(r"^(\w+) (\d+ \w+)$", row[0])
        kvm = number(row[col["KVM + vhost-net"]])
        if not m or m.group(2) not in SIZE or not kvm:
            continue
        test, size = m.group(1), SIZE[m.group(2)]
        ours = model_result(found.get(HASWELL), test, size) or number(row[col["sidecore"]])
        plain = (model_result(found.get(NO_ERMS), test, size) or
                 number(row[col["sidecore, guests without ERMS"]]))
        rows.append((row[0], ours / kvm, plain / kvm))
    return rows


def exits_data(found):
    ex = found.get(EXITS)
    if not ex or ex[0][:3] != ["run", "reason", "exits per transaction"]:
        return None
    runs, reasons = {}, []
    for run, reason, value in (r[:3] for r in ex[1:]):
        if reason not in reasons:
            reasons.append(reason)
        runs.setdefault(run, {})[reason] = number(value) or 0.0
    return list(runs.items()), reasons


def scaling_data(found):
    for title, rows in found.items():
        if not INSTANCES.match(title):
            continue
        series = {}
        for row in rows[1:]:
            m = re.match(r"^(\w+)(?: x(\d+))?$", row[0])
            value = number(row[2])
            if m and value:
                series.setdefault(m.group(1), []).append((int(m.group(2) or 1), value))
        return title, {t: sorted(v) for t, v in series.items() if len(v) > 1}
    return None


def gnuplot(script, data, png):
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "data")
        with open(dat, "w", encoding="utf-8") as f:
            f.write(data)
        head = ('set terminal pngcairo size 720,400 font ",10" noenhanced\n'
                'set output "%s"\nset datafile separator "\\t"\n' % png)
        subprocess.run(["gnuplot"], input=head + script.replace("DATA", '"%s"' % dat),
                       text=True, check=True)


def plot_ratio(rows, png):
    data = "".join("%s\t%.3f\t%.3f\n" % r for r in rows)
    gnuplot("""set title "sidecore against KVM + vhost-net (Haswell model, ips 200000000)"
set ylabel "ratio to KVM + vhost-net"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set yrange [0:*]
set key top left
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2
plot DATA using 2:xtic(1) title "guests with ERMS", '' using 3 title "guests without ERMS"
""", data, png)


def plot_exits(runs, reasons, png):
    data = "run\t" + "\t".join(reasons) + "\ttotal\n"
    for run, values in runs:
        data += run + "\t" + "\t".join("%.3f" % values.get(r, 0.0) for r in reasons)
        data += "\t%.2f\n" % sum(values.values())
    columns = ", ".join("DATA using %d%s title columnheader" % (i + 2, ":xtic(1)" if i == 0 else "")
                        for i in range(len(reasons)))
    # Each bar's total above it: a near-zero bar is still read.
    columns += ", DATA using ($0 - 1):%d:%d with labels offset 0,0.8 notitle" % (len(reasons) + 2,
                                                                         len(reasons) + 2)
    # A colour of its own per reason: gnuplot's eight repeat.
    colours = ["#9400d3", "#009e73", "#56b4e9", "#e69f00", "#f0e442", "#0072b2", "#e51e10",
               "#000000", "#a0a0a0", "#c8a2c8", "#8b4513", "#ff69b4"]
    styles = "".join('set linetype %d lc rgb "%s"\n' % (i + 1, c) for i, c in enumerate(colours))
    gnuplot(styles + """set title "VM exits per TCP_RR 1 B transaction, by reason"
set ylabel "exits per transaction"
set style data histogram
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set key top left
set grid ytics
set xtics font ",8" rotate by -15
plot %s
""" % columns, data, png)


def plot_scaling(title, series, png):
    data, plots = "", []
    for i, (test, points) in enumerate(sorted(series.items())):
        base = points[0][1] / points[0][0]
        data += "".join("%d\t%.3f\n" % (n, v / base) for n, v in points) + "\n\n"
        plots.append("DATA index %d using 1:2 with linespoints title \"%s\"" % (i, test))
    gnuplot("""set title "%s"
set xlabel "netperfs at once"
set ylabel "result, in one netperf's"
set xtics (1, 2, 4)
set xrange [0.8:4.2]
set yrange [0:4.5]
set key top left
set grid
plot x title "linear" dashtype 2, %s
""" % (title.replace("`", ""), ", ".join(plots)), data, png)


def main():
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--results", default="docs/results.md")
    parser.add_argument("--img")
    args = parser.parse_args()
    img = args.img or os.path.join(os.path.dirname(args.results) or ".", "img")
    os.makedirs(img, exist_ok=True)
    found = tables(args.results)
    drawn, missing = [], []

    rows = ratio_data(found)
    if rows:
        plot_ratio(rows, os.path.join(img, "ratio.png"))
        drawn.append("ratio.png")
    else:
        missing.append("ratio.png (no '%s' table)" % INCUMBENT)
    exits = exits_data(found)
    if exits:
        plot_exits(*exits, os.path.join(img, "exits.png"))
        drawn.append("exits.png")
    else:
        missing.append("exits.png (no run/reason table in '%s')" % EXITS)
    scaling = scaling_data(found)
    if scaling and scaling[1]:
        plot_scaling(*scaling, os.path.join(img, "scaling.png"))
        drawn.append("scaling.png")
    else:
        missing.append("scaling.png (no instances section)")
    print("bench_plot: %s: %s" % (img, ", ".join(drawn) or "nothing drawn"))
    for m in missing:
        print("bench_plot: left out %s" % m, file=sys.stderr)
    return 0 if drawn else 1


if __name__ == "__main__":
    sys.exit(main())
