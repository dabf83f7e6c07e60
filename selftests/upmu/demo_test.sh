#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The scenario of `make demo`: scripts/demo-scenario.sh's demo_run, the
# code the demo runs (same flows, measurements, expectations and
# formulas, the same 2-3 s windows), without what prints
# no measured value next to an expectation (perf list, the document's
# verbatim commands, upmu-pcimap).  Every value it prints must be within
# the tolerance printed with it of the expectation the simulator's model
# gives for the flows it runs, and every section must print all of its
# pairs; the NIC's: perf stat -I on its PMU, and upmu-diag's CSV, whose
# increases per sample must be exact (on a kernel without fwctl the demo
# must say that it has none, and the CSV test SKIPs).  Also: demo_check
# fails on the expectations the demo used to print by hand, and the model
# gives the arithmetic of the Tegra410 scenario (CMEM latency (40M x 120 +
# 8M x 500) / 48M = 183.3) and of the NIC's flows.
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
export PERF=${PERF:-/usr/bin/perf}
DEMO_TOP=$top DEMO_ID=18 DEMO_SECS=2 DEMO_WINDOW=1 DEMO_INTERVALS=3 DEMO_SHOW=0
DEMO_METRICS=${UPMU_METRICS:-$top/build/selftests/upmu-metrics}
DEMO_PCIMAP=$top/build/selftests/upmu-pcimap
DEMO_DIAG=$top/build/selftests/upmu-diag
DEMO_IOSTAT=${UPMU_IOSTAT:-$top/build/selftests/upmu-iostat}
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
. "$top/scripts/demo-scenario.sh"
TMP=$(mktemp -d)
loaded_here=0
trap 'sim_del $DEMO_ICX_ID; sim_del $DEMO_NIC_ID; sim_del $DEMO_ID; [ $loaded_here = 0 ] || mod_unload upmu_nic; mod_unload_own; rm -rf "$TMP"' EXIT

# show FILE: a file's lines as TAP comments
show() { sed 's/^/#   | /' "$1"; }

tap_plan 16

# --- demo_check and the model, without the simulator -------------------------

# What the demo printed while its expectations were written by hand, after
# the PCIe flow joined socket 0 (with the tolerances it now states).
cat > "$TMP/stale" <<'EOF'
AVG_SLC_READ_BANDWIDTH_IN_GBPS   = 2.170   (expected 1.920 +/- 5%)
AVG_MEM_READ_BANDWIDTH_IN_GBPS   = 1.532   (expected 1.280 +/- 5%)
AVG_LATENCY_IN_CYCLES            = 183.3   (expected 120.0 +/- 1%)
READ_REQUESTS_PER_SECOND         = 47937486   (expected 40000000 +/- 5%)
EOF
demo_check "$TMP/stale" > "$TMP/stale.out"; rc=$?
if [ $rc != 0 ] && [ "$(tail -n1 "$TMP/stale.out")" = "4 measured values, 4 outside their tolerance" ]; then
	tap_ok "demo_check fails on the hand-written expectations of the old demo"
else
	tap_fail "demo_check fails on the hand-written expectations of the old demo (rc $rc)"
	show "$TMP/stale.out"
fi

cat > "$TMP/edge" <<'EOF'
A = 104.9 (expected 100.0 +/- 5%)
B = 95.1 (expected 100.0 +/- 5%)
C = - (expected - +/- 1%)
nvidia_x   D   0.991   (expected 1.000 +/- 1%)
E = 105.1 (expected 100.0 +/- 5%)
F = - (expected 1.0 +/- 5%)
G = 1.0 (expected - +/- 5%)
H = <not (expected 1.0 +/- 5%)
I = 1.0 (expected ? +/- 5%)
J = 1.0 (expected 1.0)
EOF
demo_check "$TMP/edge" > "$TMP/edge.out"; rc=$?
: > "$TMP/empty"
demo_check "$TMP/empty" > /dev/null; rc_empty=$?
if [ $rc != 0 ] && [ $rc_empty != 0 ] &&
   [ "$(grep -c '^outside tolerance: [E-J] ' "$TMP/edge.out")" = 6 ] &&
   [ "$(tail -n1 "$TMP/edge.out")" = "10 measured values, 6 outside their tolerance" ]; then
	tap_ok "demo_check: within tolerance passes; beyond it, '-' against a number, no number, no tolerance, no pairs at all fail"
else
	tap_fail "demo_check: within tolerance passes; beyond it, '-' against a number, no number, no tolerance, no pairs at all fail (rc $rc, $rc_empty)"
	show "$TMP/edge.out"
fi

# The flows file as the simulator lists the scenario's first six flows.
cat > "$TMP/flows" <<'EOF'
id=1 socket=0 op=rd size=64 src=loc_cpu dst=loc_cmem hit=0 lat=120 rate=20000000 txns=1 bytes=64
id=2 socket=0 op=wr size=64 src=loc_cpu dst=loc_cmem hit=0 lat=0 rate=10000000 txns=1 bytes=64
id=3 socket=0 op=rd size=128 src=loc_noncpu dst=rem hit=1 lat=0 rate=5000000 txns=1 bytes=128 gpu=0
id=4 socket=1 op=rd size=256 src=rem dst=loc_gmem hit=0 lat=0 rate=4000000 txns=1 bytes=256 gpu=0
id=5 socket=1 op=wr size=64 src=loc_noncpu dst=rem hit=0 lat=0 rate=2000000 txns=1 bytes=64 gpu=0
id=6 socket=0 op=rd size=256 src=loc_noncpu dst=loc_cmem hit=0 lat=500 rate=1000000 txns=1 bytes=256 rc=4 rp=0 bdf=0x0180
EOF
# and a NIC's, as the simulator lists the scenario's NIC flows and a stall
cat > "$TMP/nicflows" <<'EOF'
id=1 ev=rx a=0 b=0 func=0 size=1000 rate=1000000 events=5
id=2 ev=tx a=1 b=3 func=0 size=1500 rate=250000 events=5
id=3 ev=rx_cqe a=0 b=0 func=1 size=0 rate=2000000 events=5
id=4 ev=pcie_in a=0 b=0 func=0 size=256 rate=500000 events=5
id=5 ev=pcie_read a=0 b=0 func=0 size=800 rate=100000 events=5
id=6 ev=stall a=1 b=5 func=2 size=30 rate=1000 events=5
EOF
awk -f "$top/scripts/demo-model.awk" -v clk=1000 -v queries='nvidia_ucf_pmu_0 slc_bytes_rd - 0
nvidia_ucf_pmu_0 mem_bytes_rd - 0
nvidia_cmem_latency_pmu_0 rd_req - 0
nvidia_cmem_latency_pmu_0 rd_cum_outs - 0
nvidia_pcie_pmu_0_rc_4 rd_cum_outs src_bdf=0x0180,src_bdf_en=0x1 0
nvidia_pcie_pmu_0_rc_4 rd_req src_bdf=0x0100,src_bdf_en=0x1 0
nvidia_ucf_pmu_1 slc_access src_loc_noncpu=0x1,dst_rem=0x1 0
nvidia_nvlink_c2c_pmu_0 in_rd_req gpu_mask=0x2 2
nvidia_ucf_pmu_0 snoop_nothing - 0
nvidia_nvclink_pmu_0 in_rd_req - 0
upmu_nic_4e1c0013 port_rx_bytes port=0 0
upmu_nic_4e1c0013 port_rx_packets port=1 0
upmu_nic_4e1c0013 port_prio_tx_bytes port=1,prio=3 0
upmu_nic_4e1c0013 port_tx_packets port=1 0
upmu_nic_4e1c0013 rx_cqe - 0
upmu_nic_4e1c0013 func_rx_cqe func=0 0
upmu_nic_4e1c0013 pcie_in_bytes link=0 0
upmu_nic_4e1c0013 pcie_in_data_bytes link=0 0
upmu_nic_4e1c0013 pcie_rd_lat_total_ns link=0 0
upmu_nic_4e1c0013 pcie_stall_np_order_ns link=1,tclass=2 0
upmu_nic_4e1c0013 pcie_stall_np_order_ns link=1,tclass=1 0
upmu_nic_4e1c0013 pcie_rd_lat_max_ns link=0 0
upmu_nic_4e1c0013 port_rx_bytes data_id=0x1020000100000000 0' "$TMP/flows" "$TMP/nicflows" > "$TMP/model"
cat > "$TMP/model.want" <<'EOF'
2176000000	1:1280000000 3:640000000 6:256000000
1536000000	1:1280000000 6:256000000
48000000	1:40000000 6:8000000
8800000000	1:4800000000 6:4000000000
500000000	6:500000000
0	
2000000	5:2000000
0	
?	no model for nvidia_ucf_pmu_0/snoop_nothing
?	no model for PMU nvidia_nvclink_pmu_0
1000000000	1:1000000000
0	
375000000	2:375000000
250000	2:250000
2000000	3:2000000
0	
136000000	4:136000000
128000000	4:128000000
80000000	5:80000000
30000	6:30000
0	
?	no model for upmu_nic_4e1c0013/pcie_rd_lat_max_ns
?	no model for term data_id=0x1020000100000000 of upmu_nic_4e1c0013
EOF
if diff "$TMP/model.want" "$TMP/model" > "$TMP/model.diff"; then
	tap_ok "model: SLC reads 1.28 + 0.64 + 0.256 GB/s, CMEM 48M requests and 8.8e9 cycles outstanding per second (183.3 each), NIC rows by port, priority, function, link and tclass, unknown events refused"
else
	tap_fail "model: SLC reads 1.28 + 0.64 + 0.256 GB/s, CMEM 48M requests and 8.8e9 cycles outstanding per second (183.3 each), NIC rows by port, priority, function, link and tclass, unknown events refused"
	show "$TMP/model.diff"
fi

# --- the demo ---------------------------------------------------------------

upmu_load_all && mod_load_own upmu_icx || { echo "Bail out! cannot load modules"; exit 1; }
if ! grep -q "^upmu_nic " /proc/modules; then
	insmod "$UPMU_MODDIR/upmu_nic.ko" || { echo "Bail out! cannot load upmu_nic"; exit 1; }
	loaded_here=1
fi
sim_del "$DEMO_ICX_ID"
sim_del "$DEMO_NIC_ID"
sim_del $DEMO_ID
t0=$SECONDS
demo_run > "$TMP/out" 2>&1; rc=$?
echo "# demo_run took $((SECONDS - t0)) s"
if [ $rc = 0 ] && grep -q "^id=8 socket" "$TMP/out" && grep -q "^id=5 ev=pcie_read" "$TMP/out"; then
	tap_ok "demo_run completes, the simulator lists the 8 flows and the NIC's 5 it started"
else
	tap_fail "demo_run completes, the simulator lists the 8 flows and the NIC's 5 it started (rc $rc)"
	show "$TMP/out"
fi

# The table of what the flows give per second, with each flow's share.
if grep -q '^  nvidia_cmem_latency_pmu_0/rd_cum_outs/  *8800000000/s = flow 1: 4800000000 + flow 6: 4000000000$' "$TMP/out" &&
   grep -q '^  nvidia_nvlink_c2c_pmu_0/in_rd_req/  *7000000/s = flow 3: 5000000 + flow 7: 2000000$' "$TMP/out"; then
	tap_ok "demo_run shows each event's count per second and the flows it comes from"
else
	tap_fail "demo_run shows each event's count per second and the flows it comes from"
	grep '/s = flow' "$TMP/out" | sed 's/^/#   | /'
fi

# Each section's output in its own file, named after its heading.
awk -v dir="$TMP" '/### / { f = dir "/sec." ++n; sub(/.*### /, ""); sub(/\033\[0m$/, ""); print > f; next }
	f { print > f }' "$TMP/out"
# secfile HEADING-PREFIX: the file of the section with that heading
secfile() { grep -l -m1 "^$1" "$TMP"/sec.* 2>/dev/null | head -n1; }
# section HEADING-PREFIX PAIRS: every pair of the section within its
# tolerance, and PAIRS of them
section() {
	local f n name=$1 want=$2
	f=$(secfile "$name")
	if [ -n "$f" ] && demo_check "$f" > "$f.check" &&
	   [ "$(tail -n1 "$f.check")" = "$want measured values, 0 outside their tolerance" ]; then
		tap_ok "$name: $want values within tolerance of the flows' expectation"
		return
	fi
	tap_fail "$name: $want values within tolerance of the flows' expectation"
	[ -z "$f" ] || { show "$f"; show "$f.check"; }
}
section "Interval mode" 9
section "Totals and the document's formulas" 10
section "CMEM latency" 6
section "PCIE" 8
section "NVLink-C2C" 9
# DDIO on the Ice Lake-X: 3 events' rates and 2 metrics through Debian's
# perf, 2 metrics more through perf 7.2 (a failure without it), 4 of upmu-iostat
if [ -n "${UPMU_PERF:-}" ] && "$UPMU_PERF" version >/dev/null 2>&1; then
	section "DDIO" 11
else
	tap_fail "DDIO: 11 values, 2 of them through perf 7.2 (no patched perf: UPMU_PERF, which make check passes)"
fi
echo "# DDIO: $(grep -o 'this section took [0-9]* s' "$TMP/out")"

# The NIC: its flows' rates; 5 of the interval mode's values are its
# (perf stat -I on its PMU), then upmu-diag's CSV: the timestamp's step
# and each of the 5 columns' increase per sample, exact.
nic=$(secfile "The NIC's diagnostic counters through fwctl")
# nic_pairs NAME FILE PATTERN WANT LINE: a test that WANT "(expected"
# pairs of section FILE match PATTERN, all within their tolerance, and
# that a line of it matches the regex LINE
nic_pairs() {
	if [ -n "$2" ] && grep -E "$3" "$2" > "$2.$4" &&
	   demo_check "$2.$4" > "$2.$4.check" &&
	   [ "$(tail -n1 "$2.$4.check")" = "$4 measured values, 0 outside their tolerance" ] &&
	   grep -q "$5" "$2"; then
		tap_ok "$1"
	else
		tap_fail "$1"
		[ -z "$2" ] || { show "$2"; show "$2.$4.check"; }
	fi
}
f=$(secfile "A NIC next to it")
if [ -n "$f" ] && grep -q "^  $DEMO_NIC_PMU/pcie_in_bytes,link=0/  *136000000/s = flow 4: 136000000$" "$f"; then
	nic_pairs "NIC: its flows' rates, and 5 data IDs through perf stat -I within tolerance" \
		"$(secfile "Interval mode")" '^upmu_nic_.* per second = ' 5 \
		"^upmu_nic_.*/port_rx_bytes,port=0/ MiB per second = .* (expected 953.7 +/- 10%)$"
else
	tap_fail "NIC: its flows' rates, and 5 data IDs through perf stat -I within tolerance"
	[ -z "$f" ] || show "$f"
fi
if [ ! -d /sys/class/fwctl ]; then
	if [ -n "$nic" ] && grep -q "has no fwctl (Linux 6.15 and later)" "$nic" &&
	   ! grep -q "samples written to" "$nic"; then
		tap_ok "NIC: the demo says this kernel has no fwctl, and shows no CSV"
	else
		tap_fail "NIC: the demo says this kernel has no fwctl, and shows no CSV"
		[ -z "$nic" ] || show "$nic"
	fi
	tap_skip "NIC: upmu-diag's CSV, the timestamps' step and 5 increases per sample exact (kernel without fwctl)"
else
	# the CSV as the demo printed it: the header, then 3 rows at least
	hdr="sample_id,first_timestamp_ns,last_timestamp_ns,port_rx_bytes.p0,port_prio_tx_packets.p1.prio3,func_rx_cqe.f1,pcie_in_bytes.l0,pcie_rd_lat_total_ns.l0"
	rows=$(sed -n "/^$hdr\$/,/^Increase/p" "${nic:-/dev/null}" | grep -c '^[0-9][0-9,]*$')
	if grep -q "^upmu-diag: 5 data IDs, actual sample period 128000000 ns, 56 bytes per sample$" "${nic:-/dev/null}" &&
	   grep -q "^upmu-diag: $rows samples written to .*, 0 lost$" "$nic" && [ "$rows" -ge 3 ]; then
		tap_ok "NIC: upmu-diag samples every 128 ms into CSV, $rows samples, 0 lost"
	else
		tap_fail "NIC: upmu-diag samples every 128 ms into CSV, 3 samples at least, 0 lost ($rows rows)"
		[ -z "$nic" ] || show "$nic"
	fi
	nic_pairs "NIC: upmu-diag's CSV, the timestamps' step and 5 increases per sample exact" \
		"$nic" ' (step|per sample) = ' 6 \
		"^  port_rx_bytes.p0  *per sample = 128000000 (expected 128000000 +/- 0%)$"
fi

# The AUX stream (with the patched perf only): perf script's samples of
# the port_traffic profile, its summary, and 4 rates within tolerance
aux=$(secfile "The NIC's diagnostic samples as a perf AUX stream")
if [ -z "${UPMU_PERF:-}" ] || ! "$UPMU_PERF" version >/dev/null 2>&1; then
	tap_fail "NIC: perf record/script of the AUX stream, 4 data IDs' rates within tolerance (no patched perf: UPMU_PERF, which make check passes)"
else
	# (no summary line: a sample line is what LINE must match instead)
	grep -q '^upmu-nic: [0-9][0-9]* samples, lost ' "${aux:-/dev/null}" || aux=""
	nic_pairs "NIC: perf record/script of the AUX stream, its summary, 4 data IDs' rates within tolerance" \
		"$aux" ' per second = ' 4 'upmu-nic-diag: sample_id [0-9]* port_rx_bytes.p0 [0-9]* port_rx_packets.p0 '
fi

# README's excerpt of make demo ends with the demo's last line: the
# count of measured values on the debug 7.2 kernel, and in brackets
# Debian's 6.1's ("(...; N on Debian's 6.1 ...)"): this kernel's count
# must be the one README gives.
readme=$(grep -E '^    [0-9]+ measured values, 0 outside their tolerance ' "$top/README")
case $(uname -r) in
6.1.*)	want=$(sed -nE "s/.*; ([0-9]+) on Debian's 6\.1.*/\1/p" <<<"$readme") ;;
*)	want=$(sed -nE 's/^ *([0-9]+) measured values.*/\1/p' <<<"$readme") ;;
esac
got=$(demo_check "$TMP/out" | tail -n1)
if [ -n "$want" ] && [ "$got" = "$want measured values, 0 outside their tolerance" ]; then
	tap_ok "README's demo excerpt gives this kernel's count of measured values ($want)"
else
	tap_fail "README's demo excerpt gives this kernel's count of measured values"
	echo "#   README: ${readme:-no line \"N measured values, 0 outside their tolerance\"}"
	echo "#   README's count for $(uname -r): ${want:-none}; demo_run: $got"
fi

if [ ! -e "/sys/kernel/debug/upmu_sim/$DEMO_ID" ] && ! pmu_present nvidia_ucf_pmu_0 &&
   [ ! -e "/sys/kernel/debug/upmu_sim/$DEMO_ICX_ID" ] && ! pmu_present uncore_iio_0 &&
   [ ! -e "/sys/kernel/debug/upmu_sim/$DEMO_NIC_ID" ] && ! pmu_present "$DEMO_NIC_PMU"; then
	tap_ok "demo_run deletes its devices"
else
	tap_fail "demo_run deletes its devices"
fi
tap_exit
