#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perf's sys JSON for the NVIDIA Tegra410 uncore PMUs.

Writes tools/perf-events/arm64/nvidia/t410/sys/: one file of event
aliases per PMU family and metrics.json, the formulas of the kernel's
Documentation/admin-guide/perf/nvidia-tegra410-pmu.rst (the names that
document gives are in each metric's description).  Patch 0005 of
tools/perf-patches adds them to perf's pmu-events/arch/arm64/nvidia/t410/
(scripts/perf-patches.sh keeps the patch's copies equal to the files).

Aliases are family-prefixed (t410_pcie.rd_bytes): bare sysfs names such
as rd_bytes, cycles and in_rd_req exist on several families, cycles on
the CPU too.  Unit is matched against the PMU's name (perf's
perf_pmu__match_wildcard_uncore(): the comma form skips the numbers of
nvidia_pcie_pmu_<socket>_rc_<rc>), Compat as a regular expression
against the PMU's identifier: the product and implementer of PMIIDR
(any variant and revision) or the ACPI HID.

Metrics are named t410_<family>_..., each family its own MetricGroup:
perf -M matches names and groups case-insensitively, and the document's
FREQ_IN_GHZ is in two families.  In a metric perf gives duration_time
in seconds: bytes over it are scaled by 1e-9 to GB/s, cycles to GHz,
and a latency in cycles over a frequency in Hz by 1e9 to ns.  A request
rate (requests per cycle, 0.02 for 20M/s at 1 GHz) is shown per 1000
cycles: perf stat prints a metric with one decimal.  perf sums
an alias over the PMUs it matches (those of a socket with --per-socket),
so a frequency divides the cycles by aggr_nr(), the number of PMUs
summed (each counts on the one CPU of its cpumask); ratios of two sums
are averages weighted by the traffic.  Every metric's events are
ungrouped (NO_GROUP_EVENTS): each PMU has one cycle counter, which
groups of their own, one per metric, would take turns on; ungrouped,
the metrics of a family share one cycles event and fit the counters.

usage: scripts/t410-perf-json.py [OUTDIR]   (default: the repository's)
       scripts/t410-perf-json.py --rst      the metrics' table of
                                            Documentation/upmu-perf.rst
"""
import perfjson

# family: (alias prefix, Unit, Compat, what it is, events {name: code})
FAMILIES = {
    'ucf': ('nvidia_ucf_pmu', '2cf[0-9a-f]{2}36b', 'Unified Coherence Fabric', {
        'slc_access': 0x000, 'bus_cycles': 0x01d, 'slc_allocate': 0x0f0,
        'slc_wb': 0x0f3, 'slc_refill_rd': 0x109, 'slc_refill_wr': 0x10a,
        'slc_access_rd': 0x111, 'slc_access_wr': 0x112,
        'slc_bytes_rd': 0x113, 'slc_bytes_wr': 0x114, 'slc_hit_rd': 0x119,
        'mem_access_rd': 0x121, 'mem_access_wr': 0x122,
        'mem_bytes_rd': 0x123, 'mem_bytes_wr': 0x124,
        'local_snoop': 0x180, 'ext_snp_access': 0x181, 'ext_snp_evict': 0x182,
        'slc_access_dataless': 0x183, 'slc_access_atomic': 0x184,
        'cycles': 0x100000000}),
    'pcie': ('nvidia_pcie_pmu_,rc_', '103[0-9a-f]{2}36b', 'PCIE root complex', {
        'rd_bytes': 0x0, 'wr_bytes': 0x1, 'rd_req': 0x2, 'wr_req': 0x3,
        'rd_cum_outs': 0x4, 'cycles': 0x100000000}),
    'pcie_tgt': ('nvidia_pcie_tgt_pmu_,rc_', '107[0-9a-f]{2}36b',
                 'PCIE-TGT (traffic to PCIE BARs and CXL HDM ranges)', {
        'rd_bytes': 0x0, 'wr_bytes': 0x1, 'rd_req': 0x2, 'wr_req': 0x3,
        'cycles': 0x4}),
    'cmem': ('nvidia_cmem_latency_pmu', 'NVDA2021', 'CPU memory (CMEM) latency', {
        'cycles': 0x0, 'rd_req': 0x1, 'rd_cum_outs': 0x2}),
    'c2c': ('nvidia_nvlink_c2c_pmu', 'NVDA2023', 'NVLink-C2C', {
        'cycles': 0x0, 'in_rd_cum_outs': 0x1, 'in_rd_req': 0x2,
        'in_wr_cum_outs': 0x3, 'in_wr_req': 0x4, 'out_rd_cum_outs': 0x5,
        'out_rd_req': 0x6, 'out_wr_cum_outs': 0x7, 'out_wr_req': 0x8}),
    'clink': ('nvidia_nvclink_pmu', 'NVDA2022', 'NV-CLink', {
        'cycles': 0x0, 'in_rd_cum_outs': 0x1, 'in_rd_req': 0x2,
        'out_rd_cum_outs': 0x5, 'out_rd_req': 0x6}),
    'dlink': ('nvidia_nvdlink_pmu', 'NVDA2020', 'NV-DLink', {
        'cycles': 0x0, 'in_rd_cum_outs': 0x1, 'in_rd_req': 0x2}),
}

# per family: (perf's name after t410_<family>_, the document's, kind, events)
#   bw: bytes / duration_time; rate: requests / cycles; freq: cycles per
#   PMU / duration_time; lat: cum_outs / req; lat_ns: lat / freq
def _lat(prefix, what, doc_pfx):
    return [
        (f'{prefix}latency_cycles', f'{doc_pfx}AVG_LATENCY_IN_CYCLES', 'lat',
         (f'{what}cum_outs', f'{what}req')),
        (f'{prefix}latency_ns', f'{doc_pfx}AVG_LATENCY_IN_NS' if doc_pfx else
         'AVERAGE_LATENCY_IN_NS', 'lat_ns', (f'{what}cum_outs', f'{what}req')),
    ]


def _link(freq_doc, dirs):
    out = [('freq_ghz', freq_doc, 'freq', ())]
    for d in dirs:
        out += _lat(f'{d}_', f'{d}_', f'{d.upper()}_')
    return out


def _bw_rate(pairs):
    out = []
    for name, doc, ev in pairs:
        out.append((f'{name}_bw', f'AVG_{doc}_BANDWIDTH_IN_GBPS', 'bw', (ev[0],)))
    for name, doc, ev in pairs:
        out.append((f'{name}_req_rate', f'AVG_{doc}_REQUEST_RATE', 'rate', (ev[1],)))
    return out


METRICS = {
    'ucf': _bw_rate([('slc_rd', 'SLC_READ', ('slc_bytes_rd', 'slc_access_rd')),
                     ('slc_wr', 'SLC_WRITE', ('slc_bytes_wr', 'slc_access_wr')),
                     ('mem_rd', 'MEM_READ', ('mem_bytes_rd', 'mem_access_rd')),
                     ('mem_wr', 'MEM_WRITE', ('mem_bytes_wr', 'mem_access_wr'))]),
    'pcie': _bw_rate([('rd', 'RD', ('rd_bytes', 'rd_req')),
                      ('wr', 'WR', ('wr_bytes', 'wr_req'))]) +
            [('freq_ghz', 'FREQ_IN_GHZ', 'freq', ())] + _lat('rd_', 'rd_', ''),
    'pcie_tgt': _bw_rate([('rd', 'RD', ('rd_bytes', 'rd_req')),
                          ('wr', 'WR', ('wr_bytes', 'wr_req'))]),
    'cmem': [('freq_ghz', 'FREQ_IN_GHZ', 'freq', ())] + _lat('rd_', 'rd_', ''),
    'c2c': _link('C2C_FREQ_IN_GHZ', ['in_rd', 'in_wr', 'out_rd', 'out_wr']),
    'clink': _link('CLINK_FREQ_IN_GHZ', ['in_rd', 'out_rd']),
    'dlink': _link('DLINK_FREQ_IN_GHZ', ['in_rd']),
}

SCALE = {'bw': '1e-9GB/s', 'rate': '1e3req/kcycle', 'freq': '1e-9GHz',
         'lat': '1cycles', 'lat_ns': '1e9ns'}
WHAT = {'bw': 'Average bandwidth of {ev}',
        'rate': 'Average {ev} per 1000 cycles of a PMU',
        'freq': 'Clock frequency of the PMUs',
        'lat': 'Average latency of {ev}, in cycles',
        'lat_ns': 'Average latency of {ev}, in ns'}


def _doc_event(ev):
    return ev


def events(fam):
    pfx = f't410_{fam}'
    unit, compat, what, evs = FAMILIES[fam]
    return [{
        'BriefDescription': f'{what}: {name} ({pfx} PMU event {name})',
        'EventCode': hex(code),
        'EventName': f'{pfx}.{name}',
        'Unit': unit,
        'Compat': compat,
    } for name, code in sorted(evs.items(), key=lambda e: e[1])]


def metrics(fam):
    pfx = f't410_{fam}'
    unit, compat, what, _ = FAMILIES[fam]
    cyc = f'{pfx}.cycles'
    freq = f'({cyc} / aggr_nr({cyc}) / duration_time)'
    out = []
    for name, doc, kind, evs in METRICS[fam]:
        ev = [f'{pfx}.{e}' for e in evs]
        expr = {
            'bw': lambda: f'{ev[0]} / duration_time',
            'rate': lambda: f'{ev[0]} / {cyc}',
            'freq': lambda: freq[1:-1],
            'lat': lambda: f'{ev[0]} / {ev[1]}',
            'lat_ns': lambda: f'{ev[0]} / {ev[1]} / {freq}',
        }[kind]()
        desc = WHAT[kind].format(ev=_doc_event(evs[-1]) if evs else '')
        out.append({
            'BriefDescription': f'{what}: {desc} ({doc})',
            'MetricName': f'{pfx}_{name}',
            'MetricGroup': pfx,
            'MetricExpr': expr,
            'MetricConstraint': 'NO_GROUP_EVENTS',
            'ScaleUnit': SCALE[kind],
            'Unit': unit,
            'Compat': compat,
        })
    return out


def rst_table():
    """The metrics as an RST table: perf's name, the document's, perf's unit."""
    return perfjson.rst_table(perfjson.metric_rows([m for fam in FAMILIES for m in metrics(fam)]),
                              ('perf -M', 'Document', 'Unit'))


def main():
    perfjson.main(rst_table, 'tools/perf-events/arm64/nvidia/t410/sys', lambda: {
        **{f'{fam.replace("_", "-")}.json': events(fam) for fam in FAMILIES},
        'metrics.json': [m for fam in FAMILIES for m in metrics(fam)]})


if __name__ == '__main__':
    main()
