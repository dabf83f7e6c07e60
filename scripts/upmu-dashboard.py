#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Writes upmu-exporter's Grafana dashboard (tools/upmu-exporter/grafana/
# upmu-dashboard.json): datasource, instance and socket variables, a panel
# per view of Documentation/upmu-exporter.rst.  exporter_test runs every
# panel's query against a real Prometheus.
#   upmu-dashboard.py OUT.json
import json, sys
S='instance=~"$instance",socket=~"$socket"'
I='instance=~"$instance"'
R='[$__rate_interval]'
def rate(m, sel=S):
    return 'rate(%s{%s}%s)' % (m, sel, R)
def ratio(a, b, sel=S):
    return '%s / %s' % (rate(a, sel), rate(b, sel))
def sumsock(m):
    return 'sum by (instance, socket) (%s)' % rate(m)
P = [
 ("Tegra410", None, None),
 ("UCF memory bandwidth", "Bps", [
   (sumsock("upmu_ucf_mem_read_bytes_total"), 'read socket {{socket}}'),
   (sumsock("upmu_ucf_mem_write_bytes_total"), 'write socket {{socket}}')]),
 ("UCF SLC read hit ratio", "percentunit", [
   (ratio("upmu_ucf_slc_read_hits_total", "upmu_ucf_slc_read_accesses_total"), 'socket {{socket}}')]),
 ("CMEM read latency", "ns", [
   ('%s / (%s / 1e9)' % (ratio("upmu_cmem_read_outstanding_total", "upmu_cmem_read_requests_total"), rate("upmu_cmem_cycles_total")), 'socket {{socket}}')]),
 ("CMEM read request rate", "reqps", [
   (rate("upmu_cmem_read_requests_total"), 'socket {{socket}}')]),
 ("PCIe bandwidth per root port", "Bps", [
   (rate("upmu_pcie_read_bytes_total"), 'read socket {{socket}} rc {{rc}} rp {{rp}}'),
   (rate("upmu_pcie_write_bytes_total"), 'write socket {{socket}} rc {{rc}} rp {{rp}}')]),
 ("PCIe bandwidth per device", "Bps", [
   (rate("upmu_pcie_device_read_bytes_total"), 'read {{bdf}}'),
   (rate("upmu_pcie_device_write_bytes_total"), 'write {{bdf}}')]),
 ("PCIe read latency per root complex", "ns", [
   ('%s / on (instance, pmu) (%s / 1e9)' % (ratio("upmu_pcie_read_outstanding_total", "upmu_pcie_read_requests_total"), rate("upmu_pcie_cycles_total")), 'socket {{socket}} rc {{rc}}')]),
 ("NVLink-C2C request rates", "reqps", [
   (rate("upmu_c2c_in_read_requests_total"), 'in read socket {{socket}}'),
   (rate("upmu_c2c_in_write_requests_total"), 'in write socket {{socket}}'),
   (rate("upmu_c2c_out_read_requests_total"), 'out read socket {{socket}}'),
   (rate("upmu_c2c_out_write_requests_total"), 'out write socket {{socket}}')]),
 ("NVLink-C2C read latency", "ns", [
   ('%s / (%s / 1e9)' % (ratio("upmu_c2c_in_read_outstanding_total", "upmu_c2c_in_read_requests_total"), rate("upmu_c2c_cycles_total")), 'in socket {{socket}}')]),
 ("Ice Lake-X", None, None),
 ("IIO bandwidth per stack", "Bps", [
   (rate("upmu_iio_mem_read_bytes_total"), 'device reads socket {{socket}} stack {{stack}}'),
   (rate("upmu_iio_mem_write_bytes_total"), 'device writes socket {{socket}} stack {{stack}}')]),
 ("IIO inbound bandwidth per part", "Bps", [
   (rate("upmu_iio_part_inbound_bytes_total"), 'socket {{socket}} stack {{stack}} part {{part}}')]),
 ("IIO inbound read latency", "ns", [
   ('%s / on (instance, socket, stack) (%s / 1e9)' % (
     'sum without (pmu) (%s)' % ratio("upmu_iio_comp_buf_occupancy_total", "upmu_iio_comp_buf_inserts_total"),
     'sum without (pmu) (%s)' % rate("upmu_iio_clockticks_total")), 'socket {{socket}} stack {{stack}}')]),
 ("L3 miss ratio (I/O and cores)", "percentunit", [
   ('%s / (%s + %s)' % (sumsock("upmu_cha_io_misses_total"), sumsock("upmu_cha_io_hits_total"), sumsock("upmu_cha_io_misses_total")), 'I/O socket {{socket}}'),
   ('%s / (%s + %s)' % (sumsock("upmu_cha_ia_misses_total"), sumsock("upmu_cha_ia_hits_total"), sumsock("upmu_cha_ia_misses_total")), 'cores socket {{socket}}')]),
 ("DRAM bandwidth", "Bps", [
   (sumsock("upmu_imc_read_bytes_total"), 'read socket {{socket}}'),
   (sumsock("upmu_imc_write_bytes_total"), 'write socket {{socket}}')]),
 ("UPI data bandwidth", "Bps", [
   ('%s * 64 / 9' % sumsock("upmu_upi_tx_data_flits_total"), 'sent socket {{socket}}')]),
 ("NIC", None, None),
 ("NIC port throughput", "bps", [
   ('%s * 8' % rate("upmu_nic_port_rx_bytes_total", I), 'rx {{nic}} port {{port}}'),
   ('%s * 8' % rate("upmu_nic_port_tx_bytes_total", I), 'tx {{nic}} port {{port}}')]),
 ("NIC port packet rate", "pps", [
   (rate("upmu_nic_port_rx_packets_total", I), 'rx {{nic}} port {{port}}'),
   (rate("upmu_nic_port_tx_packets_total", I), 'tx {{nic}} port {{port}}')]),
 ("NIC PCIe read latency", "s", [
   (ratio("upmu_nic_pcie_read_latency_seconds_total", "upmu_nic_pcie_reads_total", I), '{{nic}} link {{link}}')]),
 ("Exporter", None, None),
 ("PMUs up", "none", [('upmu_pmu_up{%s}' % I, '{{pmu}}')]),
 ("Share of time counted (below 1: multiplexed)", "percentunit", [
   (ratio("upmu_pmu_running_seconds_total", "upmu_pmu_enabled_seconds_total", I), '{{pmu}}')]),
]
ds = {"type": "prometheus", "uid": "${datasource}"}
panels = []; pid = 1; y = 0; x = 0
for title, unit, targets in P:
    if targets is None:
        if x:
            y += 8; x = 0
        panels.append({"type": "row", "title": title, "id": pid, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
        pid += 1; y += 1
        continue
    panels.append({"type": "timeseries", "title": title, "id": pid, "datasource": ds,
                   "gridPos": {"h": 8, "w": 12, "x": x, "y": y},
                   "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
                   "options": {"legend": {"displayMode": "list", "placement": "bottom"},
                               "tooltip": {"mode": "multi"}},
                   "targets": [{"refId": chr(65 + i), "expr": e, "legendFormat": l, "datasource": ds}
                               for i, (e, l) in enumerate(targets)]})
    pid += 1
    if x:
        x = 0; y += 8
    else:
        x = 12
d = {"title": "upmu: uncore PMUs", "uid": "upmu-uncore",
     "description": "upmu-exporter's counters: Tegra410 UCF, CMEM, PCIe per root port and device, C2C; "
                    "Ice Lake-X IIO per stack and part, L3, DRAM, UPI; NIC ports and PCIe "
                    "(Documentation/upmu-exporter.rst)",
     "editable": True, "schemaVersion": 39, "version": 1,
     "time": {"from": "now-15m", "to": "now"}, "refresh": "10s", "tags": ["upmu", "uncore", "pcie"],
     "templating": {"list": [
       {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus", "current": {}},
       {"name": "instance", "label": "Instance", "type": "query", "datasource": ds,
        "definition": "label_values(upmu_exporter_build_info, instance)",
        "query": {"query": "label_values(upmu_exporter_build_info, instance)", "refId": "instance"},
        "includeAll": True, "multi": True, "allValue": ".*", "refresh": 2, "current": {}},
       {"name": "socket", "label": "Socket", "type": "query", "datasource": ds,
        "definition": 'label_values({__name__=~"upmu_.+_total", instance=~"$instance"}, socket)',
        "query": {"query": 'label_values({__name__=~"upmu_.+_total", instance=~"$instance"}, socket)', "refId": "socket"},
        "includeAll": True, "multi": True, "allValue": ".*", "refresh": 2, "current": {}}]},
     "panels": panels}
json.dump(d, open(sys.argv[1], 'w'), indent=1)
print(len([p for p in panels if p['type'] == 'timeseries']), 'panels',
      sum(len(p.get('targets', [])) for p in panels), 'queries')
