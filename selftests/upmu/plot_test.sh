#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu-plot (host side) on interval CSVs recorded from upmu-iostat and
# upmu-metrics in the VM (selftests/upmu/plot-data/README says how): it
# renders the timeline and the bandwidth histogram into a temporary
# directory, and this test reads back what gnuplot drew, against what
# the CSV holds, worked out here on its own (check.py below):
#  - the timeline SVG has one series per row and metric (per device or
#    stack, DRAM and UPI per socket; per PMU), in the CSV's order, its
#    legend naming each, and each series a point per numeric value of the
#    CSV, drawn at its time and value by the plot's own axis tick labels
#  - the histogram SVG has a panel per domain and socket (or PMU), three
#    band series whose legends give the thresholds (those given, or the
#    defaults), and a bar per bin and band that had time, its edges the
#    bin's and its height the seconds spent there (stacked Low, Medium,
#    High), again by the tick labels
#  - the PNGs are of the size asked, RGB, not blank (many colours, ink),
#    with every series' or band's colour of the SVG in them
# plus -z, a multiplexed ("scaled") series, and the usage errors.
# $UPMU_PLOT is the tool (default: tools/upmu-plot/upmu-plot).
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
P=${UPMU_PLOT:-$top/tools/upmu-plot/upmu-plot}
DATA=$top/selftests/upmu/plot-data
IO=$DATA/iostat-ddio.csv
MT=$DATA/metrics-t410.csv
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
W=800 H=500

tap_plan 20
need_cmd gnuplot
need_cmd python3
[ -x "$P" ] || { echo "Bail out! $P: no such program"; exit 1; }
[ -r "$IO" ] && [ -r "$MT" ] || { echo "Bail out! no CSV in $DATA"; exit 1; }

cat >"$TMP/check.py" <<'EOF'
"""What the CSV says upmu-plot must draw, and what its SVG and PNG hold."""
import re
import struct
import sys
import zlib
from itertools import accumulate

NUM = re.compile(r'^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$')
BAND_RGB = {1: (0x2c, 0xa0, 0x2c), 2: (0xff, 0x9f, 0x1c), 3: (0xd6, 0x27, 0x28)}


def fail(msg):
    print('#   ' + msg)
    sys.exit(1)


def munit(m):
    for suf, u in (('_IN_GBPS', 'GB/s'), ('_IN_NS', 'ns'), ('_IN_GHZ', 'GHz'),
                   ('_IN_CYCLES', 'cycles')):
        if m.endswith(suf):
            return u
    return ''


def read_csv(path):
    """rows of (time, row key, row label, class, metric, value, unit, running)"""
    out = []
    for line in open(path):
        line = line.rstrip('\n')
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        f = line.split(',')
        if len(f) == 9:
            sk, io, part, dev, m, v, u, run = f[1:]
            lab = sk
            if dev != '-':
                lab += ' ' + dev
            elif io != '-':
                lab += ' ' + io + (' part ' + part if part not in ('all', '-') else '')
            cls = ('DRAM' if m.startswith('dram_') else 'UPI' if m.startswith('upi_')
                   else 'PCIe' if io != '-' else 'socket')
            dflt = u == 'MB/s' or m == 'upi_utilization'
            key = (sk, io, part, dev)
            fmt = 'upmu-iostat'
        elif len(f) == 5:
            pmu, m, v, run = f[1:]
            u = munit(m)
            lab, key = pmu, pmu
            cls = re.sub(r'_[0-9].*$', '', pmu)
            dflt = m.endswith('BANDWIDTH_IN_GBPS')
            fmt = 'upmu-metrics'
        else:
            fail('%s: a line of %d fields' % (path, len(f)))
        out.append(dict(t=float(f[0]), key=key, lab=lab, cls=cls, m=m, v=v, u=u,
                        run=float(run), dflt=dflt, fmt=fmt))
    return out


def expect_series(rows, metrics, skipidle):
    """[(panel, title, [(t, v)...])] of the timeline, panels numbered from 0"""
    sel = metrics.split(',') if metrics else None
    series, panels = {}, {}
    for r in rows:
        if not (r['dflt'] if sel is None else ('all' in sel or r['m'] in sel)):
            continue
        k = (r['key'], r['m'])
        if k not in series:
            pk = r['cls'] + (' (%s)' % r['u'] if r['u'] else '')
            panels.setdefault(pk, len(panels))
            series[k] = dict(panel=panels[pk], title=r['lab'] + ' ' + r['m'], pts=[], scaled=False,
                             gap=True)
        s = series[k]
        # (t, v, whether a line comes to it from the point before)
        if NUM.match(r['v']):
            s['pts'].append((r['t'], float(r['v']), not s['gap']))
            s['gap'] = False
        else:
            s['gap'] = True
        if r['run'] < 100:
            s['scaled'] = True
    out = []
    for s in series.values():
        if not s['pts'] or (skipidle and not any(v != 0 for _, v, _ in s['pts'])):
            continue
        out.append((s['panel'], s['title'] + (' (scaled)' if s['scaled'] else ''), s['pts']))
    # panels without a series are left out; a panel's series together
    used = sorted({p for p, _, _ in out})
    return sorted([(used.index(p), t, pts) for p, t, pts in out], key=lambda s: s[0])


def expect_hist(rows, hists, thrs, bins):
    """[(panel title, [band titles], [(bin, band, lo, hi, base, top)])]"""
    have = {r['m'] for r in rows}
    unit = {r['m']: r['u'] for r in rows}
    fmt = rows[0]['fmt']
    if hists:
        specs = hists
    elif fmt == 'upmu-iostat':
        specs = []
        if {'dram_read_bw', 'dram_write_bw'} <= have:
            specs.append('DRAM=dram_read_bw+dram_write_bw')
        if 'upi_utilization' in have:
            specs.append('UPI=upi_utilization')
    elif {'AVG_MEM_READ_BANDWIDTH_IN_GBPS', 'AVG_MEM_WRITE_BANDWIDTH_IN_GBPS'} <= have:
        specs = ['memory=AVG_MEM_READ_BANDWIDTH_IN_GBPS+AVG_MEM_WRITE_BANDWIDTH_IN_GBPS']
    else:
        specs = ['PCIe=AVG_RD_BANDWIDTH_IN_GBPS+AVG_WR_BANDWIDTH_IN_GBPS']
    thr = {}
    for t in thrs:
        lab, _, v = t.rpartition('=')
        thr[lab or '*'] = v.split(',')
    times = sorted({r['t'] for r in rows})
    dur = {t: t - (times[i - 1] if i else 0) for i, t in enumerate(times)}
    val, keys, labs = {}, [], {}
    for r in rows:
        if r['key'] not in labs:
            keys.append(r['key'])
            labs[r['key']] = r['lab']
        if NUM.match(r['v']):
            val[(r['key'], r['m'], r['t'])] = float(r['v'])
        val.setdefault((r['key'], r['m']), True)
    out = []
    for spec in specs:
        lab, ms = spec.split('=')
        ms = ms.split('+')
        u = unit[ms[0]]
        panels = []
        for k in keys:
            if not all((k, m) in val for m in ms):
                continue
            samp = []
            for t in times:
                if all((k, m, t) in val for m in ms):
                    s = 0.0
                    for m in ms:
                        s += val[(k, m, t)]
                    samp.append((s, dur[t]))
            panels.append((k, samp))
        dmax = max([0.0] + [s for _, samp in panels for s, _ in samp])
        if lab in thr or '*' in thr:
            lo, hi = thr.get(lab, thr.get('*'))
        else:
            peak = 100 if u == '%' else dmax if dmax > 0 else 1
            lo, hi = '%.4g' % (peak / 3), '%.4g' % (peak * 2 / 3)
        xmax = (dmax if dmax > float(hi) else float(hi)) * 1.05
        w = xmax / bins
        us = ' ' + u if u else ''
        titles = ['Low (< %s%s)' % (lo, us), 'Medium (%s to %s%s)' % (lo, hi, us),
                  'High (>= %s%s)' % (hi, us)]
        for k, samp in panels:
            acc = {}
            for v, d in samp:
                b = min(max(int(v / w), 0), bins - 1)
                band = 1 if v < float(lo) else 2 if v < float(hi) else 3
                acc[(b, band)] = acc.get((b, band), 0) + d
            boxes = []
            for b in range(bins):
                base = 0
                for band in (1, 2, 3):
                    a = acc.get((b, band), 0)
                    if a > 0:
                        boxes.append((b, band, b * w, (b + 1) * w, base, base + a))
                    base += a
            out.append((lab + ' ' + labs[k], titles, boxes))
    return out


TICK_Y = re.compile(r"d='M([-\d.]+),([-\d.]+) L[-\d.]+,\2 M[-\d.]+,\2 L[-\d.]+,\2\s*'/>\s*"
                    r'<g transform="translate\([-\d.]+,[-\d.]+\)"[^>]*text-anchor="end">\s*'
                    r'<text>([^<]*)</text>')
TICK_X = re.compile(r"d='M([-\d.]+),([-\d.]+) L\1,[-\d.]+ M\1,[-\d.]+ L\1,[-\d.]+\s*'/>\s*"
                    r'<g transform="translate\([-\d.]+,[-\d.]+\)"[^>]*text-anchor="middle">\s*'
                    r'<text>([^<]*)</text>')
GROUP = re.compile(r'<g id="gnuplot_plot_(\d+)([a-z]*)" >')


def unesc(s):
    return s.replace('&lt;', '<').replace('&gt;', '>').replace('&quot;', '"').replace('&amp;', '&')


def read_svg(path, w, h):
    """panels: [{'x': [(px, value)], 'y': [...], 'groups': [(title, text)]}]"""
    doc = open(path).read()
    m = re.search(r'<svg\s+width="(\d+)" height="(\d+)"', doc)
    if not m or (int(m.group(1)), int(m.group(2))) != (w, h):
        fail('%s: not %dx%d: %s' % (path, w, h, m and m.groups()))
    ev = []
    for rx, kind in ((TICK_Y, 'y'), (TICK_X, 'x'), (GROUP, 'g')):
        for m in rx.finditer(doc):
            ev.append((m.start(), kind, m))
    ev.sort(key=lambda e: e[0])
    # a panel's tick marks come before its plots (gnuplot_plot_<n><panel>)
    panels, pending, cur, seen = [], {'x': [], 'y': []}, None, set()
    for pos, kind, m in ev:
        if kind == 'g':
            if m.group(2) != cur:
                cur = m.group(2)
                panels.append(dict(x=pending['x'], y=pending['y'], groups=[]))
                pending = {'x': [], 'y': []}
            if m.group(0) in seen:
                fail('%s: plot %s%s twice' % (path, m.group(1), m.group(2)))
            seen.add(m.group(0))
            # the plot's group, to its </g>
            depth = 0
            for g in re.finditer(r'<g[ >]|</g>', doc[pos:]):
                depth += 1 if g.group(0) != '</g>' else -1
                if not depth:
                    break
            body = doc[pos:pos + g.end()]
            t = re.search(r'<text>(.*?)</text>', body, re.S)
            title = unesc(re.sub(r'<[^>]*>', '', t.group(1))) if t else None
            panels[-1]['groups'].append((title, body))
        else:
            try:
                v = float(m.group(3).strip())
            except ValueError:
                continue
            pending[kind].append((float(m.group(2) if kind == 'y' else m.group(1)), v))
    return panels


def axis(ticks, what):
    """px = a + b * value from the tick marks and their labels"""
    pts = sorted(set(ticks))
    if len(pts) < 2:
        fail('%s axis: %d tick labels' % (what, len(pts)))
    (p0, v0), (p1, v1) = pts[0], pts[-1]
    if v0 == v1:
        fail('%s axis: tick labels all %g' % (what, v0))
    b = (p1 - p0) / (v1 - v0)
    a = p0 - b * v0
    for p, v in pts:
        if abs(a + b * v - p) > 0.6:
            fail('%s axis: tick %g at %.2f, not on a line with the others' % (what, v, p))
    return lambda v: a + b * v


def c_timeline(csv, svg, metrics='', skipidle='0', w=0, h=0, require=''):
    want = expect_series(read_csv(csv), metrics, skipidle == '1')
    panels = read_svg(svg, int(w), int(h))
    got = [(i, t) for i, p in enumerate(panels) for t, _ in p['groups']]
    exp = [(p, t) for p, t, _ in want]
    if got != exp:
        fail('series (panel, legend) drawn %s, the CSV has %s' % (got, exp))
    for r in filter(None, require.split(',')):
        if not any(t.endswith(' ' + r) for _, t in exp):
            fail('no %s series' % r)
    print('#   %d series in %d panels' % (len(exp), len(panels)))
    return want, panels


def c_points(csv, svg, metrics='', skipidle='0', w=0, h=0):
    want, panels = c_timeline(csv, svg, metrics, skipidle, w, h)
    k = 0
    npts = 0
    for i, p in enumerate(panels):
        fx, fy = axis(p['x'], 'panel %d x' % i), axis(p['y'], 'panel %d y' % i)
        for title, body in p['groups']:
            _, _, pts = want[k]
            k += 1
            uses = [(float(a), float(b)) for a, b in re.findall(
                r"<use xlink:href='#gpPt\d+' transform='translate\(([-\d.]+),([-\d.]+)\)", body)]
            key = re.search(r"d='M([-\d.]+),([-\d.]+) L([-\d.]+),\2 ", body)
            if not key:
                fail('%s: no legend sample line' % title)
            kx, ky = (float(key.group(1)) + float(key.group(3))) / 2, float(key.group(2))
            data = [u for u in uses if abs(u[0] - kx) > 0.05 or abs(u[1] - ky) > 0.05]
            if len(uses) - len(data) != 1:
                fail('%s: %d legend sample points, not 1' % (title, len(uses) - len(data)))
            if len(data) != len(pts):
                fail('%s: %d points drawn, the CSV has %d values' % (title, len(data), len(pts)))
            # the line: from each point to the next, broken where the
            # CSV has no value ("-", "n/a ...")
            d = ' '.join(re.findall(r"<path [^>]*d='([^']*)'", body))
            line = re.findall(r'([ML])([-\d.]+),([-\d.]+)', d)[2:]
            if len(line) != len(pts):
                fail('%s: a line through %d points, the CSV has %d values' % (title, len(line), len(pts)))
            for (x, y), (t, v, joined), (c, lx, ly) in zip(data, pts, line):
                if abs(fx(t) - x) > 1 or abs(fy(v) - y) > 1:
                    fail('%s: (%g, %g) drawn at (%.2f, %.2f), the axes put it at (%.2f, %.2f)'
                         % (title, t, v, x, y, fx(t), fy(v)))
                if abs(float(lx) - x) > 0.05 or abs(float(ly) - y) > 0.05 or (c == 'L') != joined:
                    fail('%s: at %g s the line %s %s,%s, the point is at %.2f,%.2f%s' % (
                        title, t, 'goes to' if c == 'L' else 'starts again at', lx, ly, x, y,
                        ' after a value' if joined else ' after a gap in the values'))
            npts += len(data)
    print('#   %d points, each at its time and value' % npts)


def hist_args(args):
    hists, thrs, bins = [], [], 20
    for a in args:
        k, _, v = a.partition(':')
        if k == 'hist':
            hists.append(v)
        elif k == 'thr':
            thrs.append(v)
        elif k == 'bins':
            bins = int(v)
    return hists, thrs, bins


def c_bands(csv, svg, w, h, *args):
    want = expect_hist(read_csv(csv), *hist_args(args))
    panels = read_svg(svg, int(w), int(h))
    doc = open(svg).read()
    got = [[t for t, _ in p['groups']] for p in panels]
    exp = [titles for _, titles, _ in want]
    if got != exp:
        fail('legends %s, expected %s' % (got, exp))
    for title, _, _ in want:
        if '<text>%s</text>' % title.replace('&', '&amp;').replace('<', '&lt;') not in doc:
            fail('no panel titled %r' % title)
    print('#   %d panels: %s' % (len(want), '; '.join('%s: %s' % (t, ', '.join(b))
                                                      for t, b, _ in want[:1] + want[-1:])))


def c_boxes(csv, svg, w, h, *args):
    want = expect_hist(read_csv(csv), *hist_args(args))
    panels = read_svg(svg, int(w), int(h))
    if len(panels) != len(want):
        fail('%d panels, expected %d' % (len(panels), len(want)))
    nbox = 0
    for p, (ptitle, titles, boxes) in zip(panels, want):
        fx, fy = axis(p['x'], ptitle + ' x'), axis(p['y'], ptitle + ' y')
        if len(p['groups']) != 3:
            fail('%s: %d series, not 3 bands' % (ptitle, len(p['groups'])))
        for band, (title, body) in enumerate(p['groups'], 1):
            polys = re.findall(r"<polygon fill = 'rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)' points = '([^']*)'",
                               body)
            if not polys or tuple(map(int, polys[0][:3])) != BAND_RGB[band]:
                fail('%s %s: no legend swatch of the band colour' % (ptitle, title))
            exp = [b for b in boxes if b[1] == band]
            drawn = polys[1:]
            if len(drawn) != len(exp):
                fail('%s %s: %d bars drawn, the CSV gives %d bins with time in this band'
                     % (ptitle, title, len(drawn), len(exp)))
            for poly, (b, _, lo, hi, base, top) in zip(drawn, exp):
                xy = [tuple(map(float, q.split(','))) for q in poly[3].split()]
                xs, ys = [x for x, _ in xy], [y for _, y in xy]
                e = (fx(lo), fx(hi), fy(top), fy(base))
                g = (min(xs), max(xs), min(ys), max(ys))
                if any(abs(a - b) > 1 for a, b in zip(e, g)):
                    fail('%s %s bin %d (%g..%g, %g..%g s): drawn x %.2f..%.2f y %.2f..%.2f, '
                         'the axes say x %.2f..%.2f y %.2f..%.2f'
                         % ((ptitle, title, b, lo, hi, base, top) + g + e))
            nbox += len(drawn)
    print('#   %d bars, each on its bin and its seconds' % nbox)


def png_rows(path):
    d = open(path, 'rb').read()
    if d[:8] != b'\x89PNG\r\n\x1a\n':
        fail('%s: not a PNG' % path)
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(d):
        n, typ = struct.unpack('>I4s', d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif typ == b'IDAT':
            idat.append(body)
    return ihdr, idat


def c_pngsize(path, w, h):
    ihdr, _ = png_rows(path)
    if not ihdr or ihdr[:2] != (int(w), int(h)) or ihdr[2] != 8 or ihdr[3] not in (2, 6):
        fail('%s: IHDR %s, expected %sx%s 8-bit RGB(A)' % (path, ihdr, w, h))
    print('#   %dx%d, 8-bit, colour type %d' % (ihdr[0], ihdr[1], ihdr[3]))


def c_pngink(path, svg):
    (w, h, _, ct, _, _, il), idat = png_rows(path)
    if il:
        fail('%s: interlaced' % path)
    bpp = 3 if ct == 2 else 4
    raw = zlib.decompress(b''.join(idat))
    stride = w * bpp
    prev, count, i = bytes(stride), {}, 0
    for _ in range(h):
        f, cur = raw[i], raw[i + 1:i + 1 + stride]
        i += 1 + stride
        if f == 1:
            c = bytearray(stride)
            for k in range(bpp):
                c[k::bpp] = bytes(v & 255 for v in accumulate(cur[k::bpp]))
            cur = bytes(c)
        elif f == 2:
            cur = bytes([(a + b) & 255 for a, b in zip(cur, prev)])
        elif f in (3, 4):
            c = bytearray(cur)
            for x in range(stride):
                a = c[x - bpp] if x >= bpp else 0
                b = prev[x]
                if f == 3:
                    c[x] = (c[x] + (a + b) // 2) & 255
                    continue
                cc = prev[x - bpp] if x >= bpp else 0
                pa, pb = abs(b - cc), abs(a - cc)
                pc = abs(a + b - 2 * cc)
                c[x] = (c[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else cc)) & 255
            cur = bytes(c)
        elif f != 0:
            fail('%s: filter type %d' % (path, f))
        prev = cur
        for px in zip(cur[0::bpp], cur[1::bpp], cur[2::bpp]):
            count[px] = count.get(px, 0) + 1
    bg = max(count, key=count.get)
    ink = w * h - count[bg]
    if len(count) < 16 or ink < w * h // 100:
        fail('%s: blank: %d colours, %d pixels not the background %s' % (path, len(count), ink, bg))
    # every series' (band's) colour of the SVG is in the PNG
    doc = open(svg).read()
    want = set()
    for body in re.split(r'<g id="gnuplot_plot_', doc)[1:]:
        m = re.search(r"(?:path stroke|polygon fill) ?= ?'rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)'", body)
        if m:
            want.add(tuple(map(int, m.groups())))
    missing = [c for c in sorted(want) if count.get(c, 0) < 4]
    if not want or missing:
        fail('%s: the colours %s of the SVG series are not in it' % (path, missing or 'none'))
    print('#   %d colours, %.1f%% ink, all %d series colours of the SVG' % (
        len(count), 100.0 * ink / (w * h), len(want)))


globals()['c_' + sys.argv[1]](*sys.argv[2:])
EOF
# ck WHAT ARGS...: check.py's check WHAT
ck() { python3 -B "$TMP/check.py" "$@"; }
# plot NAME ARGS...: upmu-plot -o $TMP -n NAME ARGS, its output in $TMP/NAME.out
plot() { local n=$1; shift; "$P" -o "$TMP" -n "$n" "$@" >"$TMP/$n.out" 2>"$TMP/$n.err"; }
# wrote NAME: it printed the four files, which are there
wrote() {
	local f want=""
	for f in timeline.svg timeline.png histogram.svg histogram.png; do
		want+="$TMP/$1-$f"$'\n'
		[ -s "$TMP/$1-$f" ] || { echo "#   no $TMP/$1-$f"; return 1; }
	done
	[ "$(cat "$TMP/$1.out")"$'\n' = "$want" ] ||
		{ echo "#   it printed:"; sed 's/^/#   | /' "$TMP/$1.out" "$TMP/$1.err"; return 1; }
}

# 1-8: upmu-iostat's CSV (DDIO: a NIC, an NVMe drive, DRAM and UPI per
# socket), the DRAM thresholds given, UPI's the default (of 100%).  LOW
# splits a bin: socket 0's DRAM did 45.96 MB/s in the first interval
# (Low) and 51.2 in the next seven (Medium), a bar of two bands.
dram=50,400
tap_check "iostat CSV: the timeline and the histogram, SVG and PNG, and their names printed" \
	eval 'plot io --size ${W}x$H --thresholds DRAM=$dram "$IO" && wrote io'
tap_check "timeline SVG: a series per device, metric and socket (DRAM, UPI), the legend naming each" \
	ck timeline "$IO" "$TMP/io-timeline.svg" "" 0 $W $H \
	inbound_read_bw,inbound_write_bw,outbound_write_bw,dram_read_bw,dram_write_bw,upi_utilization
tap_check "timeline SVG: a point per value of the CSV, at its time and value on the axes" \
	ck points "$IO" "$TMP/io-timeline.svg" "" 0 $W $H
tap_check "histogram SVG: DRAM and UPI per socket, Low/Medium/High legends with the thresholds" \
	ck bands "$IO" "$TMP/io-histogram.svg" $W $H thr:DRAM=$dram
tap_check "histogram SVG: a bar per bin and band with time, on the bin, as high as the seconds" \
	ck boxes "$IO" "$TMP/io-histogram.svg" $W $H thr:DRAM=$dram
tap_check "timeline PNG: ${W}x$H 8-bit RGB" ck pngsize "$TMP/io-timeline.png" $W $H
tap_check "timeline PNG: not blank, every series' colour in it" \
	ck pngink "$TMP/io-timeline.png" "$TMP/io-timeline.svg"
tap_check "histogram PNG: ${W}x$H, not blank, the three bands' colours in it" \
	eval 'ck pngsize "$TMP/io-histogram.png" $W $H && ck pngink "$TMP/io-histogram.png" "$TMP/io-histogram.svg"'

# 9-13: upmu-metrics' CSV (Tegra410 UCF and PCIe PMUs), one pair of
# thresholds for every domain, 10 bins, the default size
tap_check "metrics CSV: the four files (--thresholds 1,2 --bins 10)" \
	eval 'plot mt --thresholds 1,2 --bins 10 "$MT" && wrote mt'
tap_check "metrics timeline SVG: a series per PMU and bandwidth metric, a point per value" \
	ck points "$MT" "$TMP/mt-timeline.svg" "" 0 1280 800
tap_check "metrics histogram SVG: memory per UCF PMU, the thresholds in the legends" \
	ck bands "$MT" "$TMP/mt-histogram.svg" 1280 800 thr:1,2 bins:10
tap_check "metrics histogram SVG: the bars of 10 bins" \
	ck boxes "$MT" "$TMP/mt-histogram.svg" 1280 800 thr:1,2 bins:10
tap_check "metrics PNGs: 1280x800, not blank" \
	eval 'ck pngsize "$TMP/mt-timeline.png" 1280 800 && ck pngsize "$TMP/mt-histogram.png" 1280 800 &&
	      ck pngink "$TMP/mt-histogram.png" "$TMP/mt-histogram.svg"'

# 14-16: options
tap_check "-z: the series never above 0 left out, and only those" \
	eval 'plot idle -z -f svg "$IO" && ck timeline "$IO" "$TMP/idle-timeline.svg" "" 1 1280 800'
tap_check "-m and --hist: the metrics and the domain asked for (PCIe per device, default thresholds)" \
	eval 'plot pcie -f svg -m inbound_write_bw,dram_write_bw --hist PCIe=inbound_read_bw+inbound_write_bw "$IO" &&
	      ck points "$IO" "$TMP/pcie-timeline.svg" inbound_write_bw,dram_write_bw 0 1280 800 &&
	      ck boxes "$IO" "$TMP/pcie-histogram.svg" 1280 800 hist:PCIe=inbound_read_bw+inbound_write_bw &&
	      ck bands "$IO" "$TMP/pcie-histogram.svg" 1280 800 hist:PCIe=inbound_read_bw+inbound_write_bw'
# a multiplexed interval (its series says "(scaled)"), and a series with
# no value ("-") in two intervals in a row and in one more: its line
# breaks there
awk -F, 'NR == 3 { $NF = "50.00" } $6 == "inbound_write_bw" && ++n ~ /^(3|4|7)$/ { $7 = "-" } 1' \
	OFS=, "$IO" >"$TMP/mux.csv"
tap_check "a multiplexed (scaled) value said in its series' legend; a line broken where a value is \"-\"" \
	eval 'plot mux -f svg "$TMP/mux.csv" && ck points "$TMP/mux.csv" "$TMP/mux-timeline.svg" "" 0 1280 800 &&
	      grep -q "(scaled)</text>" "$TMP/mux-timeline.svg"'

# 17-20: errors
cut -d, -f2- "$IO" >"$TMP/notime.csv"
tap_check "a CSV without the time column (no -I): exit 1, says to record with -I" \
	eval 'fails_rc 1 "$P" -o "$TMP" "$TMP/notime.csv" && fails "no time column: record with -I" "$P" -o "$TMP" "$TMP/notime.csv"'
tap_check "--thresholds with LOW not below HIGH, or not numbers: exit 2, says why" \
	eval 'fails_rc 2 "$P" -o "$TMP" --thresholds DRAM=5,5 "$IO" &&
	      fails "LOW below HIGH" "$P" -o "$TMP" --thresholds 9,3 "$IO" &&
	      fails "two numbers" "$P" -o "$TMP" --thresholds DRAM=a,b "$IO"'
tap_check "--hist or -m of a metric the CSV has not, --thresholds of no domain: exit 1, names it" \
	eval 'fails_rc 1 "$P" -o "$TMP" --hist X=nosuch_bw "$IO" && fails "no metric nosuch_bw" "$P" -o "$TMP" --hist X=nosuch_bw "$IO" &&
	      fails "no metric AVG_X" "$P" -o "$TMP" -m AVG_X "$MT" &&
	      fails_rc 1 "$P" -o "$TMP" --thresholds dram=1,2 "$IO" &&
	      fails "dram=...: no such domain (the histogram has DRAM, UPI)" "$P" -o "$TMP" --thresholds dram=1,2 "$IO"'
tap_check "--help: exit 0, with an example running upmu-plot" \
	eval '"$P" --help >"$TMP/help" && grep -q "^Example:" "$TMP/help" && grep -q "^  upmu-plot " "$TMP/help"'
tap_exit
