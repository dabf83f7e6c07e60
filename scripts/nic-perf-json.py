#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""perf's sys JSON for the NIC's counting PMU (upmu_nic_<serial>).

Writes tools/perf-events/common/nvidia/connectx/sys/: event aliases and
metrics, which patch 0006 of tools/perf-patches adds to perf's
pmu-events/arch/common/nvidia/connectx/sys/ (scripts/perf-patches.sh
keeps the patch's copies equal to the files).  The NIC is a PCIe device,
found behind any architecture's root complex, so its tables are in
perf's "common" architecture, which jevents.py builds into every perf
(JEVENTS_ARCH or not).

Unit "upmu_nic" matches upmu_nic_<serial> (perf's uncore wildcard takes
a hex suffix of more than two digits) and neither upmu_nicdiag_<serial>
nor another PMU.  Compat is matched as a regular expression against the
PMU's identifier, the model: "<vendor>:<device>:<cmdif>" (PCI vendor and
device IDs, command interface revision), 15b3:a2dc:5 for the BlueField-3
the simulator is, whose two ports and two PCIe links the metrics name.

An alias is a data ID with its instance (port or link) in config; the
counts are raw (bytes, packets, ns), unlike the sysfs events' MiB.
Metrics: per port, receive and transmit bandwidth (MB/s and Gbit/s) and
packet rate; per PCIe link, the mean read latency, total / count (the
device's max and min are Statistics, which no count can carry: the AUX
stream has them).  Each metric is in group upmu_nic and in the group of
its port or link (upmu_nic_port0, ...); their events are not grouped,
each slot of the NIC counts on its own (NO_GROUP_EVENTS).

usage: scripts/nic-perf-json.py [OUTDIR]   (default: the repository's)
       scripts/nic-perf-json.py --rst      the metrics' table of
                                           Documentation/upmu-perf.rst
"""
import perfjson

UNIT = 'upmu_nic'
COMPAT = '15b3:a2dc:5'
WHAT = 'NIC'
PORTS = 2
LINKS = 2

# alias (before the instance), data ID's high half, what it counts
PORT_ROWS = [('rx_bytes', 0x10200001, 'bytes received'),
             ('rx_packets', 0x10200003, 'packets received'),
             ('tx_bytes', 0x11400001, 'bytes transmitted'),
             ('tx_packets', 0x11400003, 'packets transmitted')]
LINK_ROWS = [('rd_lat_total_ns', 0x1160000b, 'total ns of PCIe read latency'),
             ('rd_count', 0x1160000c, 'PCIe reads')]


def events():
    out = []
    for kind, n, rows in (('port', PORTS, PORT_ROWS), ('pcie', LINKS, LINK_ROWS)):
        for i in range(n):
            for name, hi, what in rows:
                out.append({
                    'BriefDescription': f'{WHAT}: {what}, {kind} {i}',
                    'ConfigCode': hex(hi << 32 | i),
                    'EventName': f'{UNIT}.{kind}{i}_{name}',
                    'Unit': UNIT,
                    'Compat': COMPAT,
                })
    return out


def _metric(name, group, expr, scale, desc, doc):
    return {
        'BriefDescription': f'{WHAT}: {desc} ({doc})',
        'MetricName': f'{UNIT}_{name}',
        'MetricGroup': f'{UNIT};{UNIT}_{group}',
        'MetricExpr': expr,
        'MetricConstraint': 'NO_GROUP_EVENTS',
        'ScaleUnit': scale,
        'Unit': UNIT,
        'Compat': COMPAT,
    }


def metrics():
    out = []
    for p in range(PORTS):
        for d, dir_doc in (('rx', 'received'), ('tx', 'transmitted')):
            ev = f'{UNIT}.port{p}_{d}'
            doc = f'port {p} {d}'
            out += [
                _metric(f'port{p}_{d}_bw', f'port{p}', f'{ev}_bytes / duration_time',
                        '1e-6MB/s', f'bandwidth {dir_doc} on port {p}', f'{doc}_bytes / s'),
                _metric(f'port{p}_{d}_gbps', f'port{p}', f'{ev}_bytes / duration_time',
                        '8e-9Gbit/s', f'bits per second {dir_doc} on port {p}',
                        f'8 x {doc}_bytes / s'),
                _metric(f'port{p}_{d}_pps', f'port{p}', f'{ev}_packets / duration_time',
                        '1e-6Mpkt/s', f'packets per second {dir_doc} on port {p}',
                        f'{doc}_packets / s'),
            ]
    for link in range(LINKS):
        ev = f'{UNIT}.pcie{link}'
        out.append(_metric(f'pcie{link}_rd_latency', f'pcie{link}',
                           f'{ev}_rd_lat_total_ns / {ev}_rd_count', '1ns',
                           f'mean PCIe read latency of link {link}',
                           f'pcie_rd_lat_total_ns / pcie_rd_count, link {link}'))
    return out


def rst_table():
    """The metrics as an RST table: perf's name, the formula, perf's unit."""
    return perfjson.rst_table(perfjson.metric_rows(metrics()), ('perf -M', 'Of the data IDs', 'Unit'))


def main():
    perfjson.main(rst_table, 'tools/perf-events/common/nvidia/connectx/sys',
                  lambda: {'nic.json': events(), 'metrics.json': metrics()})


if __name__ == '__main__':
    main()
