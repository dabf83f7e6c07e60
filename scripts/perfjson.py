# SPDX-License-Identifier: GPL-2.0
"""What the generators of perf's JSON (t410-perf-json.py,
nic-perf-json.py) share: writing a table and the RST table of metrics of
Documentation/upmu-perf.rst."""
import json
import os
import sys


def write(path, data):
    """A JSON table as perf's pmu-events files are: 4-space indent."""
    with open(path, 'w') as f:
        f.write(json.dumps(data, indent=4) + '\n')


def rst_table(rows, head):
    """rows of 3 columns as an RST simple table under head."""
    w = [max(len(r[i]) for r in rows + [head]) for i in range(3)]
    rule = '  '.join('=' * n for n in w)

    def line(r):
        return '  '.join(c.ljust(n) for c, n in zip(r, w)).rstrip()
    return '\n'.join([rule, line(head), rule] + [line(r) for r in rows] + [rule]) + '\n'


def metric_rows(metrics):
    """perf's name, the formula's name in the description's (...), the unit."""
    return [(m['MetricName'], m['BriefDescription'].rsplit('(', 1)[1][:-1],
             m['ScaleUnit'].lstrip('0123456789.e-')) for m in metrics]


def main(rst, default, tables):
    """usage: SCRIPT [OUTDIR] writes tables() ({file name: data}) to
    OUTDIR (default: the repository's default); SCRIPT --rst prints
    rst()."""
    if sys.argv[1:] == ['--rst']:
        sys.stdout.write(rst())
        return
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(top, default)
    os.makedirs(out, exist_ok=True)
    for name, data in tables().items():
        write(os.path.join(out, name), data)
