#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every uncore metric of perf's Ice Lake-X tables against the simulator.

For each perf given (Debian's 6.1, the patched 7.2): the metrics that
perf lists for Ice Lake-X whose events are all uncore events (resolved
through the metrics they use) are found from perf's own expressions, so
a metric a perf gains is tested, not missed.  Each runs under perf stat
-a --metric-no-group during a known mix of traffic on a simulated
2-socket Ice Lake-X with the manual clock (icx_metrics_test.sh made it):
the counts are the model's exactly, so each metric's value is known from
the traffic and the duration_time perf measured.  A value must be within
1% (ratios, latencies) or 5% (rates; in practice the rounding perf
prints) of the model's; a metric the model gives no value must print
none.  Metrics whose events cannot be counted at once (two TOR occupancy
events need counter 0) are multiplexed by perf on silicon too: they run
on the realtime clock against steady flows, within 5%.  Output: TAP, one
result per metric and perf.

  icx_metrics.py --sim-id ID --perf NAME=PATH [--perf NAME=PATH ...]
"""

import argparse
import json
import os
import re
import subprocess
import sys

SOCKETS = 2
CHAS = 8
MHZ = 1000
ADVANCE_NS = 100000000		# sim time the manual-clock runs advance

# The traffic of the manual-clock runs (inject lines; see upmu-sim.rst).
TRAFFIC = [
    # a device of socket 0 reads its memory, 40.96 MB, missing the L3
    "socket=0 stack=0 op=rd size=4096 count=10000 lat=500",
    # a device of socket 0 writes 20.48 MB to socket 1's memory
    "socket=0 stack=1 op=wr size=4096 count=5000 dst=rem",
    # a device of socket 1 writes 300 bytes 10000 times that hit, each
    # missing the IOTLB
    "socket=1 stack=2 op=wr size=300 count=10000 hit=1 iotlb_miss=1",
    # cores of socket 0 read 12.288 MB of its DRAM, missing the L3
    "socket=0 op=rd size=4096 count=3000 lat=200",
    # cores of socket 1 read 4.096 MB of socket 0's DRAM
    "socket=1 op=rd size=4096 count=1000 dst=rem lat=400",
    # cores of socket 0 read 2.048 MB of its persistent memory
    "socket=0 op=rd size=4096 count=500 mem=pmm lat=1000",
    # cores of socket 1 write (RFO) 2.048 MB of its DRAM
    "socket=1 op=wr size=4096 count=500",
    # cores of socket 0 read 4.096 MB that hit the L3
    "socket=0 op=rd size=4096 count=1000 hit=1",
]

# What the traffic above is, in lines (64 bytes) and transactions.
L = 64
Q = {
    'io_rd_miss_loc': 640000,		# PCIRDCUR, all miss, local
    'io_itom_miss_rem': 320000,		# ITOM that miss, remote
    'io_itom_hit': 40000,		# ITOM that hit (4 a 300-byte write)
    'io_itomcn_hit': 10000,		# ITOMCACHENEAR that hit
    'ia_drd_miss_loc_ddr': 192000,	# occupancy 200 cycles each
    'ia_drd_miss_rem_ddr': 64000,	# 400 cycles each
    'ia_drd_miss_loc_pmm': 32000,	# 1000 cycles each
    'ia_rfo_miss_loc': 32000,
    'ia_drd_hit': 64000,
    'iio_rd_bytes': 10000 * 4096,
    'iio_wr_bytes': 5000 * 4096 + 10000 * 300,
    'iio_rd_lat': 500,			# ns = cycles
    'iotlb_hits': 10000 + 5000,		# transactions that hit the IOTLB
    'iotlb_misses': 10000,
}
Q['ia_drd_miss'] = (Q['ia_drd_miss_loc_ddr'] + Q['ia_drd_miss_rem_ddr'] +
                    Q['ia_drd_miss_loc_pmm'])
Q['ia_drd_miss_loc'] = Q['ia_drd_miss_loc_ddr'] + Q['ia_drd_miss_loc_pmm']
Q['ia_drd_occ'] = (Q['ia_drd_miss_loc_ddr'] * 200 + Q['ia_drd_miss_rem_ddr'] * 400 +
                   Q['ia_drd_miss_loc_pmm'] * 1000)
# the memory's directory: a core's read of the other socket's memory
# changes its line's state (I to A), a memory write; every read of
# memory is a lookup, the ones that change the state misses
Q['dir_updates'] = Q['ia_drd_miss_rem_ddr']
# CAS reads: device reads, the cores' DRAM reads and RFOs; writes: the
# device's remote writes, the directory's updates
Q['cas_rd'] = (Q['io_rd_miss_loc'] + Q['ia_drd_miss_loc_ddr'] +
               Q['ia_drd_miss_rem_ddr'] + Q['ia_rfo_miss_loc'])
Q['cas_wr'] = Q['io_itom_miss_rem'] + Q['dir_updates']
Q['pmm_rd'] = Q['ia_drd_miss_loc_pmm']
Q['pmm_wr'] = 0
Q['dir_lookups'] = Q['cas_rd'] + Q['pmm_rd']
# home agent requests: reads from the own socket, from the other, writes
Q['req_rd_loc'] = (Q['io_rd_miss_loc'] + Q['ia_drd_miss_loc'] + Q['ia_rfo_miss_loc'])
Q['req_rd_rem'] = Q['ia_drd_miss_rem_ddr']
Q['req_wr_loc'] = 0
Q['req_wr_rem'] = Q['io_itom_miss_rem']
# lines over UPI, each 9 data flits one way
Q['upi_lines'] = Q['io_itom_miss_rem'] + Q['ia_drd_miss_rem_ddr']


NFIT = os.path.exists('/sys/firmware/acpi/tables/NFIT')


def mb(lines):
    return lines * L / 1e6


class Ctx:
    """What a run measured that a metric's value depends on."""

    def __init__(self, dur_s):
        self.dur = dur_s		# perf's duration_time, s
        # the sim clock as perf sees it: ADVANCE_NS cycles per box in dur
        self.ghz = ADVANCE_NS * MHZ / 1000 / 1e9 / dur_s

    def rate(self, x):
        return x / self.dur

    def ns(self, cycles):
        return cycles / self.ghz


# The model's value of each metric: f(Ctx) -> value, or None where the
# model has none (perf must print none).  perf 6.1's names (mixed case)
# and 7.2's.  Units are perf's (its ScaleUnit).
def lat(c, occ, ins):
    return c.ns(occ / ins)


# the cores' reads of DRAM that miss: occupancy and inserts
DDR_OCC = Q['ia_drd_miss_loc_ddr'] * 200 + Q['ia_drd_miss_rem_ddr'] * 400
DDR_INS = Q['ia_drd_miss_loc_ddr'] + Q['ia_drd_miss_rem_ddr']


EXPECT = {
    # DRAM (CAS) bandwidth, MB/s (7.2 lpm_*: MB/s by its 6.4e-05 scale)
    'memory_bandwidth_read': lambda c: c.rate(mb(Q['cas_rd'])),
    'memory_bandwidth_write': lambda c: c.rate(mb(Q['cas_wr'])),
    'memory_bandwidth_total': lambda c: c.rate(mb(Q['cas_rd'] + Q['cas_wr'])),
    'lpm_mem_bw_ddr_read': lambda c: c.rate(mb(Q['cas_rd'])),
    'lpm_mem_bw_ddr_write': lambda c: c.rate(mb(Q['cas_wr'])),
    'lpm_mem_bw_ddr_total': lambda c: c.rate(mb(Q['cas_rd'] + Q['cas_wr'])),
    'DRAM_BW_Use': lambda c: c.rate(mb(Q['cas_rd'] + Q['cas_wr']) / 1e3),	# GB/s
    'tma_info_system_dram_bw_use': lambda c: c.rate(mb(Q['cas_rd'] + Q['cas_wr']) / 1e3),
    # persistent memory
    'pmem_memory_bandwidth_read': lambda c: c.rate(mb(Q['pmm_rd'])),
    'pmem_memory_bandwidth_write': lambda c: c.rate(mb(Q['pmm_wr'])),
    'pmem_memory_bandwidth_total': lambda c: c.rate(mb(Q['pmm_rd'] + Q['pmm_wr'])),
    'lpm_mem_bw_pmm_read': lambda c: c.rate(mb(Q['pmm_rd'])),
    'lpm_mem_bw_pmm_write': lambda c: c.rate(mb(Q['pmm_wr'])),
    'lpm_mem_bw_pmm_total': lambda c: c.rate(mb(Q['pmm_rd'] + Q['pmm_wr'])),
    'PMM_Read_BW': lambda c: c.rate(mb(Q['pmm_rd']) / 1e3),
    'PMM_Write_BW': lambda c: c.rate(mb(Q['pmm_wr']) / 1e3),
    # perf 7.2's "if #has_pmem > 0 else 0": #has_pmem is whether ACPI has
    # an NFIT (persistent memory the firmware describes); without one
    # these are the constant 0, which perf does not print
    'tma_info_system_cxl_mem_read_bw': lambda c: c.rate(mb(Q['pmm_rd']) / 1e3) if NFIT else None,
    'tma_info_system_cxl_mem_write_bw': lambda c: c.rate(mb(Q['pmm_wr']) / 1e3) if NFIT else None,
    # home agent requests: memory bandwidth by requester
    'llc_miss_local_memory_bandwidth_read': lambda c: c.rate(mb(Q['req_rd_loc'])),
    'llc_miss_remote_memory_bandwidth_read': lambda c: c.rate(mb(Q['req_rd_rem'])),
    'llc_miss_local_memory_bandwidth_write': lambda c: c.rate(mb(Q['req_wr_loc'])),
    'llc_miss_remote_memory_bandwidth_write': lambda c: c.rate(mb(Q['req_wr_rem'])),
    'lpm_mem_local_read': lambda c: c.rate(mb(Q['req_rd_loc'])),
    'lpm_mem_remote_read': lambda c: c.rate(mb(Q['req_rd_rem'])),
    'lpm_mem_local_write': lambda c: c.rate(mb(Q['req_wr_loc'])),
    'lpm_mem_remote_write': lambda c: c.rate(mb(Q['req_wr_rem'])),
    # UPI data, MB/s (64 bytes in 9 flits)
    'upi_data_transmit_bw': lambda c: c.rate(mb(Q['upi_lines'])),
    'upi_data_receive_bw': lambda c: c.rate(mb(Q['upi_lines'])),
    'lpm_upi_bw_read': lambda c: c.rate(mb(Q['upi_lines'])),
    'lpm_upi_bw_write': lambda c: c.rate(mb(Q['upi_lines'])),
    # devices' traffic at the CHAs
    'io_bandwidth_read': lambda c: c.rate(mb(Q['io_rd_miss_loc'])),
    'io_bandwidth_read_l3_miss': lambda c: c.rate(mb(Q['io_rd_miss_loc'])),
    'io_bandwidth_read_local': lambda c: c.rate(mb(Q['io_rd_miss_loc'])),
    'io_bandwidth_read_remote': lambda c: 0,
    'io_bandwidth_write': lambda c: c.rate(mb(Q['io_itom_miss_rem'] + Q['io_itom_hit'] +
                                              Q['io_itomcn_hit'])),
    'io_bandwidth_write_l3_miss': lambda c: c.rate(mb(Q['io_itom_miss_rem'])),
    'io_bandwidth_write_local': lambda c: c.rate(mb(Q['io_itom_hit'] + Q['io_itomcn_hit'])),
    'io_bandwidth_write_remote': lambda c: c.rate(mb(Q['io_itom_miss_rem'])),
    'io_full_write_l3_miss': lambda c: 100.0 * Q['io_itom_miss_rem'] /
    (Q['io_itom_miss_rem'] + Q['io_itom_hit']),
    'io_partial_write_l3_miss': lambda c: 0,
    'io_read_l3_miss': lambda c: 100.0,
    # perf 6.1's names: its "reads" are the devices' writes
    'io_bandwidth_disk_or_network_reads': lambda c: c.rate(mb(Q['io_itom_miss_rem'] + Q['io_itom_hit'] + Q['io_itomcn_hit'])),
    'io_bandwidth_disk_or_network_writes': lambda c: c.rate(mb(Q['io_rd_miss_loc'])),
    'IO_Read_BW': lambda c: c.rate(mb(Q['io_itom_miss_rem'] + Q['io_itom_hit'] + Q['io_itomcn_hit']) / 1e3),
    'IO_Write_BW': lambda c: c.rate(mb(Q['io_rd_miss_loc']) / 1e3),
    'tma_info_system_io_read_bw': lambda c: c.rate(mb(Q['io_rd_miss_loc']) / 1e3),
    'tma_info_system_io_write_bw': lambda c: c.rate(mb(Q['io_itom_miss_rem'] + Q['io_itom_hit'] + Q['io_itomcn_hit']) / 1e3),
    # the IIO side (perf 7.2 with patch 0007)
    'iio_bandwidth_read': lambda c: c.rate(Q['iio_rd_bytes'] / 1e6),
    'iio_bandwidth_write': lambda c: c.rate(Q['iio_wr_bytes'] / 1e6),
    'lpm_iio_outbound_read_bw': lambda c: 0,
    'lpm_iio_outbound_write_bw': lambda c: 0,
    'lpm_iio_inbound_read_latency': lambda c: c.ns(Q['iio_rd_lat']),
    'iotlb_total_hit': lambda c: Q['iotlb_hits'],
    'iotlb_total_miss': lambda c: Q['iotlb_misses'],
    'iotlb_miss_rate': lambda c: 100.0 * Q['iotlb_misses'] / (Q['iotlb_hits'] + Q['iotlb_misses']),
    # no interrupt remapping in the model
    'iotlb_interrupt_cache_lookup': lambda c: 0,
    'iotlb_interrupt_cache_hit': lambda c: 0,
    'iotlb_interrupt_cache_miss': lambda c: 0,
    'iotlb_interrupt_cache_miss_rate': lambda c: 0,
    # cores' reads that miss: where they go, how long they take
    'numa_reads_addressed_to_local_dram': lambda c: 100.0 * Q['ia_drd_miss_loc'] / Q['ia_drd_miss'],
    'numa_reads_addressed_to_remote_dram': lambda c: 100.0 * Q['ia_drd_miss_rem_ddr'] / Q['ia_drd_miss'],
    'llc_demand_data_read_miss_latency': lambda c: lat(c, Q['ia_drd_occ'], Q['ia_drd_miss']),
    'llc_demand_data_read_miss_latency_for_local_requests': lambda c: lat(
        c, Q['ia_drd_miss_loc_ddr'] * 200 + Q['ia_drd_miss_loc_pmm'] * 1000, Q['ia_drd_miss_loc']),
    'llc_demand_data_read_miss_latency_for_remote_requests': lambda c: c.ns(400),
    'llc_demand_data_read_miss_to_dram_latency': lambda c: lat(c, DDR_OCC, DDR_INS),
    'llc_demand_data_read_miss_to_pmem_latency': lambda c: c.ns(1000),
    'lpm_miss_lat_loc': lambda c: lat(
        c, Q['ia_drd_miss_loc_ddr'] * 200 + Q['ia_drd_miss_loc_pmm'] * 1000, Q['ia_drd_miss_loc']),
    'lpm_miss_lat_rem': lambda c: c.ns(400),
    # the uncore clock
    'uncore_frequency': lambda c: c.ghz,
    'UNCORE_FREQ': lambda c: c.ghz,
    # perf's "socket clocks" are uncore_cha_0's clockticks, which perf
    # stat -a adds up over the dies: the formulas built on them without
    # dividing by #num_dies are off by the number of sockets (on silicon
    # as here), and two of them divide by the clocks of the run, not by
    # its clock rate (right only for a run of 1 s)
    'Socket_CLKS': lambda c: ADVANCE_NS * MHZ / 1000 * SOCKETS,
    'tma_info_system_socket_clks': lambda c: ADVANCE_NS * MHZ / 1000 * SOCKETS,
    'tma_info_system_uncore_frequency': lambda c: c.ghz * SOCKETS,
    'MEM_Read_Latency': lambda c: lat(c, Q['ia_drd_occ'], Q['ia_drd_miss']) / SOCKETS,
    'tma_info_system_mem_read_latency': lambda c: lat(c, Q['ia_drd_occ'], Q['ia_drd_miss']) / SOCKETS,
    'MEM_DRAM_Read_Latency': lambda c: lat(c, DDR_OCC, DDR_INS) / SOCKETS / c.dur,
    'tma_info_system_mem_dram_read_latency': lambda c: lat(c, DDR_OCC, DDR_INS) / SOCKETS / c.dur,
    'MEM_PMM_Read_Latency': lambda c: c.ns(1000) / SOCKETS / c.dur,
    # 0 unless the system has persistent memory (#has_pmem: NFIT)
    'tma_info_system_mem_pmm_read_latency': lambda c: c.ns(1000) / SOCKETS / c.dur if NFIT else None,
    # the memory directory (M2M; the CHAs update none in the model)
    'lpm_dir_lookup_hits': lambda c: 100.0 * (1 - Q['dir_updates'] / Q['dir_lookups']),
    'lpm_dir_lookup_misses': lambda c: 100.0 * Q['dir_updates'] / Q['dir_lookups'],
    'lpm_dir_lookup_rate': lambda c: c.rate(Q['dir_lookups']),
    'lpm_dir_update_requests': lambda c: c.rate(Q['dir_updates']),
    'lpm_dir_update_bw': lambda c: c.rate(mb(Q['dir_updates'])),
    'memory_extra_write_bw_due_to_directory_updates': lambda c: c.rate(mb(Q['dir_updates'])),
    # cores in each C-state, per socket (new_device cstate=1:0:1)
    'lpm_cstate_c0': lambda c: 1,
    'lpm_cstate_c3': lambda c: 0,
    'lpm_cstate_c6': lambda c: 1,
    # no rejects, no distress in the model
    'tma_info_system_mem_irq_duplicate_address': lambda c: 0,
    'lpm_mem_sat': lambda c: 0,
}

# Run on the realtime clock against steady flows (their events multiplex
# on every machine): name -> (flows, f(duration s) -> value)
# 20M reads/s of 1000 cycles over 8 CHAs: 2.5 in flight on each, always
FLOWS_PAR = ["add id=1 socket=0 op=rd size=64 rate=20000000 lat=1000"]
REALTIME = {
    'MEM_Parallel_Reads': (FLOWS_PAR, lambda d: 2.5),
    'tma_info_system_mem_parallel_reads': (FLOWS_PAR, lambda d: 2.5),
}

# perf's own defects, where a metric's value cannot be the model's: the
# events' counts are checked instead (exact), and the value to be a part
# of the model's.  {perf: {metric: (why, {event: model count})}}
MIB = 64 / 2 ** 20
DEFECTS = {
    'perf-6.1': {
        'DRAM_BW_Use': (
            "perf 6.1 evaluates a metric of a pmu@event@ wildcard (its "
            "uncore_imc@cas_count_read@) over some of the 12 PMUs only, a "
            "different part each run, and prints it once per event",
            {'uncore_imc/cas_count_read/': Q['cas_rd'] * MIB,
             'uncore_imc/cas_count_write/': Q['cas_wr'] * MIB}),
    },
}

FUNCS = {'if', 'else', 'min', 'max', 'd_ratio', 'duration_time', 'source_count',
         'aggr_nr', 'has_event', 'strcmp_cpuid_str', 'tool'}
UNCORE_PMU = r'(cha|imc|upi|pcu|m2m|iio|irp|m2pcie|m3upi|ubox)(_\d+)?'


def events_of(expr):
    """The event tokens of an expression, modifiers kept ("E@thresh=1@")."""
    expr = expr.replace('\\', '')
    toks = re.findall(r'[A-Za-z_][\w.\-]*(?:@[^@]*@)?|#\w+', expr)
    return [t for t in toks if not t.startswith('#') and t.lower() not in FUNCS
            and not re.fullmatch(r'[0-9e.]+', t)]


def is_uncore(ev):
    return ev.startswith('UNC_') or ev.startswith('uncore_') or \
        re.match(UNCORE_PMU + '@', ev) is not None


KINDS = {'M': 'IMC', 'P': 'PCU', 'U': 'UBOX', 'M2P': 'M2PCIE'}


def pmu_kind(ev):
    """The kind of PMU an event of perf's names or a pmu@...@ one is of."""
    m = re.match(r'UNC_(CHA|M2M|M2P|M3UPI|M|UPI|IIO|P|U)_', ev)
    if m:
        return KINDS.get(m.group(1), m.group(1))
    m = re.match('(?:uncore_)?' + UNCORE_PMU + '@', ev)
    return m.group(1).upper() if m else '?'


def uncore_metrics(metrics):
    """{name: set of uncore events} of the metrics made of uncore events only."""
    by = {m['MetricName'].lower(): m for m in metrics}
    memo = {}

    def walk(n):
        if n in memo:
            return memo[n]
        memo[n] = ('c', set())
        kind, evs = 'n', set()
        for t in events_of(by[n]['MetricExpr']):
            if t.lower() in by:
                k, e = walk(t.lower())
            elif is_uncore(t.split('@')[0]) or is_uncore(t):
                k, e = 'u', {t}
            else:
                k, e = 'c', set()
            if k == 'c':
                kind = 'c'
            elif k == 'u' and kind != 'c':
                kind = 'u'
            evs |= e
        memo[n] = (kind, evs)
        return memo[n]
    out = {}
    for m in metrics:
        k, e = walk(m['MetricName'].lower())
        if k == 'u':
            out[m['MetricName']] = e
    return out


def perf_metrics(perf, env):
    """[{MetricName, MetricExpr}] as perf lists them (7.2: -j; 6.1: --details)."""
    r = subprocess.run([perf, 'list', '-j', 'metric'], env=env, capture_output=True, text=True)
    if r.returncode == 0 and r.stdout.lstrip().startswith('['):
        return [m for m in json.loads(r.stdout) if 'MetricExpr' in m]
    r = subprocess.run([perf, 'list', '--details', 'metric'], env=env, capture_output=True,
                       text=True, check=True)
    lines, out = r.stdout.split('\n'), []
    for i, ln in enumerate(lines):
        if re.match(r'^  \S', ln) and i + 2 < len(lines) and \
                lines[i + 1].startswith('       [') and lines[i + 2].startswith('       ['):
            out.append({'MetricName': ln.strip(), 'MetricExpr': lines[i + 2].strip()[1:-1]})
    return out


def fits(kinds):
    """Whether events {kind: set} can all count at once, none multiplexed."""
    for k, s in kinds.items():
        if len(s) > 4:
            return False
        # CHA 0x11 and 0x36 (TOR_OCCUPANCY) on counter 0 only
        if k == 'CHA' and len([e for e in s if 'OCCUPANCY' in e or '0x36' in e]) > 1:
            return False
        # IIO: DATA_REQ_OF_CPU (0x83) on counters 0-1, DATA_REQ_BY_CPU
        # (0xc0) and COMP_BUF_OCCUPANCY (0xd5) on 2-3
        if k == 'IIO' and (len([e for e in s if 'DATA_REQ_OF_CPU' in e]) > 2 or
                           len([e for e in s if 'DATA_REQ_BY_CPU' in e or
                                'COMP_BUF_OCC' in e]) > 2):
            return False
    return True


def batches(names, evs):
    """The metrics in perf runs whose events fit the boxes' counters
    together (first fit, the metrics with the most events first)."""
    runs = []

    def joined(kinds, n):
        k = {x: set(y) for x, y in kinds.items()}
        for e in evs[n]:
            k.setdefault(pmu_kind(e), set()).add(e)
        return k
    for n in sorted(names, key=lambda n: (-len(evs[n]), n)):
        for r in runs:
            k = joined(r[1], n)
            if fits(k):
                r[0].append(n)
                r[1] = k
                break
        else:
            runs.append([[n], joined({}, n)])
    return [sorted(r[0]) for r in runs]


def run_stat(perf, env, metrics, cmd):
    """perf stat -j -a --metric-no-group -M metrics -- sh -c cmd:
    ({metric: value}, [duration_time ns], {event: scaled?})"""
    r = subprocess.run([perf, 'stat', '-j', '-a', '--metric-no-group', '-M', ','.join(metrics),
                        '-e', 'duration_time', '--', 'sh', '-c', cmd],
                       env=env, capture_output=True, text=True)
    vals, durs, scaled, raw, counts = {}, [], {}, [], {}
    for ln in r.stderr.splitlines():
        ln = ln.strip()
        if not ln.startswith('{'):
            if ln:
                raw.append(ln)
            continue
        raw.append(ln)
        try:
            j = json.loads(ln)
        except ValueError:
            continue
        ev = j.get('event', '')
        if ev == 'duration_time':
            durs.append(float(j['counter-value']))
        elif ev:
            scaled[ev] = float(j.get('pcnt-running', 100)) < 100
            counts[ev] = float(j['counter-value'])
        mu = j.get('metric-unit', '')
        if mu and j.get('metric-value', '') != '':
            name = mu.split()[-1]
            if name in metrics:
                vals[name] = float(j['metric-value'])
    return vals, durs, scaled, raw, r.returncode, counts


def within(v, want, tol):
    if want == 0:
        return abs(v) <= 1e-9 + 0.005
    return abs(v - want) <= tol * abs(want) + 0.005


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sim-id', type=int, required=True)
    ap.add_argument('--perf', action='append', required=True, help='NAME=PATH')
    ap.add_argument('--list-only', action='store_true')
    ap.add_argument('--skip', action='append', default=[],
                    help='a TAP skip: a perf checked elsewhere, and where')
    a = ap.parse_args()
    dbg = '/sys/kernel/debug/upmu_sim/%d' % a.sim_id

    def sim(name, cmd):
        with open('%s/%s' % (dbg, name), 'w') as f:
            f.write(cmd)
    env = dict(os.environ)
    manual = ' && '.join('echo %s > %s/inject' % (t, dbg) for t in TRAFFIC)
    manual += ' && echo %d > %s/advance' % (ADVANCE_NS, dbg)
    results = []
    print('TAP version 13', flush=True)

    def res(ok, msg, notes=()):
        results.append(ok)
        print('%s %d %s' % ('ok' if ok else 'not ok', len(results), msg))
        for n in notes if not ok else ():
            print('#   %s' % n)
        sys.stdout.flush()

    for why in a.skip:
        results.append(True)
        print('ok %d # SKIP %s' % (len(results), why), flush=True)
    for spec in a.perf:
        pname, perf = spec.split('=', 1)
        try:
            evs = uncore_metrics(perf_metrics(perf, env))
        except (subprocess.CalledProcessError, OSError, ValueError) as e:
            res(False, '%s: perf list metric: %s' % (pname, e))
            continue
        names = sorted(evs)
        res(len(names) > 20, '%s: %d uncore metrics: %s' % (pname, len(names), ' '.join(names)))
        if a.list_only:
            continue
        unknown = [n for n in names if n not in EXPECT and n not in REALTIME]
        for n in unknown:
            res(False, '%s: %s: no model value (events %s)' % (pname, n, ' '.join(sorted(evs[n]))))
        sim('clock', 'manual')
        for b in batches([n for n in names if n in EXPECT], evs):
            vals, durs, scaled, raw, rc, counts = run_stat(perf, env, b, manual)
            for n in b:
                notes = []
                if rc or not durs:
                    res(False, '%s: %s: perf stat failed (rc %d)' % (pname, n, rc), raw[-5:])
                    continue
                mux = [e for e in scaled if scaled[e]]
                want = [EXPECT[n](Ctx(d / 1e9)) for d in durs]
                v = vals.get(n)
                if want[0] is None:
                    # perf's definition has none: a constant 0, which
                    # perf prints as 0 or (alone in its run) not at all
                    ok = v is None or v == 0
                    want = ['no value or 0']
                elif v is None:
                    ok = False
                    notes = raw[-8:]
                elif n in DEFECTS.get(pname, {}):
                    why, ev = DEFECTS[pname][n]
                    ok = not mux and 0 < v <= max(want) * 1.01 and \
                        all(e in counts and within(counts[e], ev[e], 1e-4) for e in ev)
                    notes = [] if ok else raw[-12:]
                    want = ['a part of %.6g (%s; its events: %s)' %
                            (max(want), why, ', '.join('%s %s, model %.6g' %
                                                       (e, counts.get(e), ev[e]) for e in ev))]
                else:
                    ok = any(within(v, w, 0.01) for w in want) and not mux
                    notes = [] if ok else raw[-12:]
                if mux:
                    notes.append('multiplexed: %s' % ' '.join(mux))
                res(ok, '%s: %s = %s, model %s (duration_time %s ns)' %
                    (pname, n, v, ' or '.join(w if isinstance(w, str) else '%.6g' % w for w in want),
                     ' '.join('%.0f' % d for d in durs)),
                    ['run with %s' % ','.join(b)] + notes)
        for n in [n for n in names if n in REALTIME]:
            flows, f = REALTIME[n]
            sim('clock', 'realtime')
            for fl in flows:
                sim('flows', fl)
            vals, durs, scaled, raw, rc, _ = run_stat(perf, env, [n], 'sleep 1')
            sim('flows', 'clear')
            sim('clock', 'manual')
            v = vals.get(n)
            w = f(durs[0] / 1e9 if durs else 1)
            res(v is not None and within(v, w, 0.05),
                '%s: %s = %s, model %.6g (realtime, multiplexed as on silicon)' % (pname, n, v, w),
                raw[-8:] if v is None else [])
    # the plan last: the number of metrics is perf's
    print('1..%d' % len(results))
    return 0 if all(results) else 1

if __name__ == '__main__':
    sys.exit(main())
