#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf's own metrics for the Tegra410 uncore PMUs and the NIC (patches
# 0005 and 0006 of tools/perf-patches, the JSON scripts/t410-perf-json.py
# and nic-perf-json.py write), in the patched perf 7.2 ($UPMU_PERF, which
# make check passes):
#  - perf list: exactly the JSON's metrics and groups where the PMUs
#    are, none where only an Ice Lake-X is, no name twice;
#  - perf stat -M <family> -a on the manual clock against the simulator's
#    model: request rates and latencies in cycles exact, per socket
#    (--per-socket), the same values upmu-metrics gives; bandwidths and
#    frequencies what perf's own counts and duration_time make them;
#  - on the realtime clock, bandwidth, frequency and latency in ns within
#    5% of the flows' rates and the model's latency;
#  - the NIC's: listed where a NIC is (its identifier is the model the
#    JSON's Compat names), counts and latency exact, rates from perf's
#    counts and duration_time, and within 5% of a flow's on realtime;
#  - Ice Lake-X's IIO metrics (patch 0007): counts exact per socket, the
#    same MB as upmu-iostat, within 5% of the flows on realtime.
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
PERF=${UPMU_PERF:-}
M=${UPMU_METRICS:-$top/build/selftests/upmu-metrics}
JSON=$top/tools/perf-events/arm64/nvidia/t410/sys/metrics.json
NJSON=$top/tools/perf-events/common/nvidia/connectx/sys/metrics.json
ID=17
D=/sys/kernel/debug/upmu_sim/$ID
TMP=$(mktemp -d)
trap 'sim_del $ID; mod_unload_own; rm -rf "$TMP"' EXIT
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

NTESTS=23
tap_plan $NTESTS
if [ -z "$PERF" ] || ! "$PERF" version > /dev/null 2>&1; then
	for i in $(seq $NTESTS); do
		tap_fail "no patched perf (UPMU_PERF='$PERF': scripts/perfbuild.sh builds it, make check passes it)"
	done
	tap_exit
fi
upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
mod_load_own upmu_icx || { echo "Bail out! cannot load upmu_icx"; exit 1; }
mod_load_own upmu_nic || { echo "Bail out! cannot load upmu_nic"; exit 1; }

# the metric (or group) names perf lists, sorted: all, and the t410 ones
# (a perf list takes seconds in the debug guest: one run each)
plist_all() { "$PERF" list --raw-dump "$1" 2>/dev/null | tr ' ' '\n' | sort; }
plist() { plist_all "$1" | grep '^t410_'; }
# the metric names (groups) of the JSON, of the NIC's JSON with n
json_names() { sed -n 's/.*"MetricName": "\(.*\)",/\1/p' "$JSON" | sort; }
json_groups() { sed -n 's/.*"MetricGroup": "\(.*\)",/\1/p' "$JSON" | sort -u; }
njson_names() { sed -n 's/.*"MetricName": "\(.*\)",/\1/p' "$NJSON" | sort; }
njson_groups() { sed -n 's/.*"MetricGroup": "\(.*\)",/\1/p' "$NJSON" | tr ';' '\n' | sort -u; }

sim_del $ID
sim_new "$ID 2 clock=manual clock_mhz=1000 rcs=2" || { echo "Bail out! cannot create device"; exit 1; }
plist_all metrics > "$TMP/metrics"
groups=$(plist metricgroups | tr '\n' ' ')
tap_expect "perf list: the $(json_names | wc -l) metrics of the JSON, where the Tegra410 PMUs are" \
	eval 'diff <(grep "^t410_" "$TMP/metrics") <(json_names) && [ "$(json_names | wc -l)" -gt 30 ]'
tap_expect "perf list: one group per family ($groups)" \
	is "$groups" "$(json_groups | tr '\n' ' ')"
tap_expect "perf list: no metric name twice" \
	eval '[ -s "$TMP/metrics" ] && [ -z "$(uniq -d "$TMP/metrics")" ]'

# --- the manual clock: one second of sim time (1e9 cycles per PMU) -----------

# Processes are slow to start in the debug guest (a fork and exec some
# 100 ms): perf's JSON output is read once per run, by one awk, into
# J[NAME|S<socket>|<metric or event>], and looked up in the shell.
declare -A J
# pm NAME GROUP: perf stat -j --per-socket -M GROUP over the commands in
# $TMP/NAME.sh; its metrics' values and events' counts into J (perf
# names an event PMU/EVENT/ where it keeps the PMUs of sockets apart)
pm() {
	local s k v
	"$PERF" stat -j --per-socket -a -M "$2" -o "$TMP/$1" -- sh "$TMP/$1.sh" \
		> /dev/null 2> "$TMP/$1.err" ||
		{ echo "# perf stat -M $2 failed:"; sed 's/^/#   /' "$TMP/$1.err" | head -n 5; }
	while IFS="|" read -r s k v; do J[$1|$s|$k]=$v; done < <(awk -v q='"' '
		function field(f,   i, r) {
			i = index($0, q f q " : ")
			if (!i) return ""
			r = substr($0, i + length(f) + 5)
			if (substr(r, 1, 1) == q) { r = substr(r, 2); return substr(r, 1, index(r, q) - 1) }
			return r
		}
		{
			s = field("socket"); ev = field("event"); mu = field("metric-unit")
			sub(/^[a-z0-9_]*\//, "", ev); sub(/\/$/, "", ev)
			if (ev != "") print s "|" ev "|" field("counter-value")
			if (mu != "") { sub(/.*  /, "", mu); print s "|" mu "|" field("metric-value"); last = mu }
			# a grouped metric has its own duration_time, after its events
			if (ev == "duration_time" && last != "") { print s "|" last "@d|" field("counter-value"); last = "" }
		}' "$TMP/$1")
}
# vals NAME SOCKET METRIC...: the values, %g ("-" for none), space separated
vals() {
	local n=$1 s=$2 r='' k v
	shift 2
	for k; do
		v=${J[$n|S$s|$k]:-}
		if [ -z "$v" ]; then r="$r -"; else printf -v v '%g' "$v"; r="$r $v"; fi
	done
	echo "${r# }"
}
# jc NAME SOCKET EVENT: an event's count
jc() { echo "${J[$1|S$2|$3]:-}"; }
# derived NAME SOCKET METRIC EXPR: is METRIC what EXPR (awk, over the
# counts of the t410_* and upmu_nic.* events it names and d,
# duration_time in s: the metric's own where its events are grouped,
# which perf prints once, with socket 0's)
# gives, within 1e-3 (perf -j prints 6 decimals)?
derived() {
	local n=$1 s=$2 e=$4 args=() ev
	for ev in ${e//[^a-z0-9_.]/ }; do
		[[ $ev == t410_*.* || $ev == upmu_nic.* ]] && args+=(-v "c_${ev/./__}=${J[$n|S$s|$ev]:-}")
	done
	while [[ $e =~ (t410_[a-z0-9_]*|upmu_nic)\.([a-z0-9_]*) ]]; do
		e=${e/${BASH_REMATCH[0]}/c_${BASH_REMATCH[1]}__${BASH_REMATCH[2]}}
	done
	awk "${args[@]}" -v m="${J[$n|S$s|$3]:-}" -v d="${J[$n|S$s|$3@d]:-${J[$n|S0|$3@d]:-${J[$n|S0|duration_time]:-}}}e-9" \
		"BEGIN { w = $e; exit !(m != \"\" && w > 0 && m >= w * (1 - 1e-3) && m <= w * (1 + 1e-3)) }"
}
# fresh OPTIONS: a new device on the manual clock at 1000 MHz
fresh() {
	sim_del $ID
	sim_new "$ID 2 clock=manual clock_mhz=1000 $1" || { echo "Bail out! cannot create device"; exit 1; }
}

# Each case builds only the blocks it measures: perf reads the sysfs
# directory of every PMU, some seconds each in the debug guest.
# UCF: on socket 0 a 20M/s read flow of 64 B to GPU memory and a 5M/s
# write flow of 128 B (SLC hits), on socket 1 1M/s reads of 256 B.
fresh blocks=ucf
echo "add id=1 socket=0 op=rd size=64 rate=20000000 dst=loc_gmem" > $D/flows
echo "add id=2 socket=0 op=wr size=128 rate=5000000 hit=1" > $D/flows
echo "add id=3 socket=1 op=rd size=256 rate=1000000 dst=rem" > $D/flows
echo "echo 1000000000 > $D/advance" > "$TMP/ucf.sh"
pm ucf t410_ucf
tap_expect "UCF, --per-socket: requests per 1000 cycles exact, 20 5 20 0 on socket 0, 1 on socket 1 ($(vals ucf 0 t410_ucf_slc_rd_req_rate t410_ucf_slc_wr_req_rate t410_ucf_mem_rd_req_rate t410_ucf_mem_wr_req_rate); $(vals ucf 1 t410_ucf_slc_rd_req_rate))" \
	is "$(vals ucf 0 t410_ucf_slc_rd_req_rate t410_ucf_slc_wr_req_rate t410_ucf_mem_rd_req_rate t410_ucf_mem_wr_req_rate) / $(vals ucf 1 t410_ucf_slc_rd_req_rate)" \
	"20 5 20 0 / 1"
tap_expect "UCF: bandwidth = bytes / duration_time in GB/s (1.28e9 B read on socket 0, 2.56e8 on socket 1)" \
	eval 'is "$(jc ucf 0 t410_ucf.slc_bytes_rd) $(jc ucf 1 t410_ucf.slc_bytes_rd)" "1280000000.000000 256000000.000000" &&
	      derived ucf 0 t410_ucf_slc_rd_bw "t410_ucf.slc_bytes_rd / d * 1e-9" &&
	      derived ucf 0 t410_ucf_slc_wr_bw "t410_ucf.slc_bytes_wr / d * 1e-9" &&
	      derived ucf 1 t410_ucf_mem_rd_bw "t410_ucf.mem_bytes_rd / d * 1e-9"'

# The PCIe and link PMUs, each with traffic none of the others counts
# (metrics_test.sh's), latencies in cycles (1000 MHz).
cat > "$TMP/lk.sh" <<EOF
echo 'rc=1 op=rd size=256 count=4000 lat=500' > $D/inject
echo 'rc=1 op=wr size=128 count=2000 lat=300' > $D/inject
echo 'to_rc=1 op=rd size=512 count=1000' > $D/inject
echo 'to_rc=1 op=wr size=64 count=3000' > $D/inject
echo 'src=loc_noncpu gpu=0 op=rd count=1000 lat=400' > $D/inject
echo 'src=loc_noncpu gpu=1 op=wr count=500 lat=200' > $D/inject
echo 'dst=loc_gmem gpu=0 op=rd count=2000 lat=700' > $D/inject
echo 'dst=loc_gmem gpu=1 op=wr count=100 lat=900' > $D/inject
echo 'src=rem op=rd count=300 lat=1000' > $D/inject
echo 'dst=rem op=rd count=600 lat=1200' > $D/inject
echo 'dst=loc_cxl op=rd count=800 lat=350' > $D/inject
echo 1000000000 > $D/advance
EOF
fresh "blocks=pcie rcs=2"
cp "$TMP/lk.sh" "$TMP/pcie.sh"
pm pcie t410_pcie
tap_expect "PCIE: latency 500 cycles, 4000 and 2000 requests per 2e9 cycles of 2 RCs, on socket 0 only ($(vals pcie 0 t410_pcie_rd_latency_cycles t410_pcie_rd_req_rate t410_pcie_wr_req_rate))" \
	is "$(vals pcie 0 t410_pcie_rd_latency_cycles t410_pcie_rd_req_rate t410_pcie_wr_req_rate) / $(vals pcie 1 t410_pcie_rd_req_rate)" \
	"500 0.002 0.001 / 0"
tap_expect "PCIE: frequency = cycles / 2 PMUs / duration_time, latency in ns = 500 / it, bandwidth = bytes / duration_time" \
	eval 'is "$(jc pcie 0 t410_pcie.cycles) $(jc pcie 0 t410_pcie.rd_bytes)" "2000000000.000000 1024000.000000" &&
	      derived pcie 0 t410_pcie_freq_ghz "t410_pcie.cycles / 2 / d * 1e-9" &&
	      derived pcie 0 t410_pcie_rd_latency_ns "500 / (t410_pcie.cycles / 2 / d) * 1e9" &&
	      derived pcie 0 t410_pcie_rd_bw "t410_pcie.rd_bytes / d * 1e-9"'

fresh "blocks=tgt rcs=2"
cp "$TMP/lk.sh" "$TMP/tgt.sh"
pm tgt t410_pcie_tgt
tap_expect "PCIE-TGT: 1000 and 3000 requests per 2e9 cycles of 2 RCs, 512000 and 192000 B ($(vals tgt 0 t410_pcie_tgt_rd_req_rate t410_pcie_tgt_wr_req_rate))" \
	eval 'is "$(vals tgt 0 t410_pcie_tgt_rd_req_rate t410_pcie_tgt_wr_req_rate)" "0.0005 0.0015" &&
	      is "$(jc tgt 0 t410_pcie_tgt.rd_bytes) $(jc tgt 0 t410_pcie_tgt.wr_bytes)" "512000.000000 192000.000000" &&
	      derived tgt 0 t410_pcie_tgt_rd_bw "t410_pcie_tgt.rd_bytes / d * 1e-9"'

fresh "blocks=c2c,clink,dlink"
cp "$TMP/lk.sh" "$TMP/links.sh"
pm links t410_c2c,t410_clink,t410_dlink
lat=(t410_c2c_in_rd_latency_cycles t410_c2c_in_wr_latency_cycles t410_c2c_out_rd_latency_cycles
     t410_c2c_out_wr_latency_cycles t410_clink_in_rd_latency_cycles t410_clink_out_rd_latency_cycles
     t410_dlink_in_rd_latency_cycles)
tap_expect "C2C, CLink, DLink latencies in cycles: 400 200 700 900; 1000 1200; 350 ($(vals links 0 "${lat[@]}"))" \
	is "$(vals links 0 "${lat[@]}")" "400 200 700 900 1000 1200 350"

# CMEM: 3000 reads of 64 B at 250 ns (6000 requests of 32 B)
fresh blocks=cmem
echo "echo 'socket=0 op=rd size=64 count=3000 lat=250' > $D/inject; echo 1000000000 > $D/advance" \
	> "$TMP/cmem.sh"
pm cmem t410_cmem
tap_expect "CMEM: latency 250 cycles; CMEM, C2C, DLink: latency in ns and frequency from cycles and duration_time ($(vals cmem 0 t410_cmem_rd_latency_cycles t410_cmem_rd_latency_ns))" \
	eval 'is "$(vals cmem 0 t410_cmem_rd_latency_cycles)" 250 &&
	      derived cmem 0 t410_cmem_rd_latency_ns "250 / (t410_cmem.cycles / d) * 1e9" &&
	      derived links 0 t410_c2c_out_wr_latency_ns "900 / (t410_c2c.cycles / d) * 1e9" &&
	      derived links 0 t410_dlink_freq_ghz "t410_dlink.cycles / d * 1e-9"'

# upmu-metrics over the same traffic gives the same exact values
fresh "blocks=pcie,c2c,clink rcs=2"
"$M" -x, nvidia_pcie_pmu_0_rc_1 nvidia_nvlink_c2c_pmu_0 nvidia_nvclink_pmu_0 -- sh "$TMP/lk.sh" \
	> "$TMP/um" 2> "$TMP/um.err"
uv() { awk -F, -v p="$1" -v m="$2" '$1 == p && $2 == m { printf "%g", $3 }' "$TMP/um"; }
tap_expect "upmu-metrics on the same traffic: the same latencies ($(uv nvidia_pcie_pmu_0_rc_1 AVG_LATENCY_IN_CYCLES) $(uv nvidia_nvlink_c2c_pmu_0 OUT_RD_AVG_LATENCY_IN_CYCLES) $(uv nvidia_nvclink_pmu_0 OUT_RD_AVG_LATENCY_IN_CYCLES))" \
	is "$(uv nvidia_pcie_pmu_0_rc_1 AVG_LATENCY_IN_CYCLES) $(uv nvidia_nvlink_c2c_pmu_0 OUT_RD_AVG_LATENCY_IN_CYCLES) $(uv nvidia_nvclink_pmu_0 OUT_RD_AVG_LATENCY_IN_CYCLES)" \
	"$(vals pcie 0 t410_pcie_rd_latency_cycles) $(vals links 0 t410_c2c_out_rd_latency_cycles t410_clink_out_rd_latency_cycles)"

# --- the NIC (patch 0006) ----------------------------------------------------

# one second of sim time: packets on both ports, PCIe reads on both links
fresh blocks=nic
serial=$(printf %08x $((0x4e1c0000 + ID)))
N=/sys/bus/event_source/devices/upmu_nic_$serial
cat > "$TMP/nic.sh" <<EOF
echo 'ev=rx port=0 size=1500 count=1000' > $D/nic/inject
echo 'ev=tx port=0 size=1000 count=500' > $D/nic/inject
echo 'ev=rx port=1 size=64 count=200' > $D/nic/inject
echo 'ev=tx port=1 size=9000 count=100' > $D/nic/inject
echo 'ev=pcie_read link=0 lat=800 count=300' > $D/nic/inject
echo 'ev=pcie_read link=1 lat=1200 count=100' > $D/nic/inject
echo 1000000000 > $D/advance
EOF
plist_all metrics | grep '^upmu_nic' > "$TMP/nmetrics"
ngroups=$(plist_all metricgroups | grep '^upmu_nic' | tr '\n' ' ')
tap_expect "NIC: perf lists the $(njson_names | wc -l) metrics and the groups ${ngroups% } of its JSON ($(cat $N/identifier) is the model its Compat names)" \
	eval 'diff "$TMP/nmetrics" <(njson_names) && [ "$(njson_names | wc -l)" -ge 14 ] &&
	      is "$ngroups" "$(njson_groups | tr "\n" " ")"'
pm nic upmu_nic
tap_expect "NIC: counts exact, PCIe read latency 800 and 1200 ns ($(vals nic 0 upmu_nic_pcie0_rd_latency upmu_nic_pcie1_rd_latency))" \
	eval 'is "$(jc nic 0 upmu_nic.port0_rx_bytes) $(jc nic 0 upmu_nic.port0_tx_packets) $(jc nic 0 upmu_nic.port1_rx_packets) $(jc nic 0 upmu_nic.port1_tx_bytes)" \
		 "1500000.000000 500.000000 200.000000 900000.000000" &&
	      is "$(vals nic 0 upmu_nic_pcie0_rd_latency upmu_nic_pcie1_rd_latency)" "800 1200"'
tap_expect "NIC: MB/s, Gbit/s and Mpkt/s of each port = its counts / duration_time" \
	eval 'derived nic 0 upmu_nic_port0_rx_bw "upmu_nic.port0_rx_bytes / d * 1e-6" &&
	      derived nic 0 upmu_nic_port0_rx_gbps "upmu_nic.port0_rx_bytes * 8 / d * 1e-9" &&
	      derived nic 0 upmu_nic_port0_tx_pps "upmu_nic.port0_tx_packets / d * 1e-6" &&
	      derived nic 0 upmu_nic_port1_rx_pps "upmu_nic.port1_rx_packets / d * 1e-6" &&
	      derived nic 0 upmu_nic_port1_tx_bw "upmu_nic.port1_tx_bytes / d * 1e-6" &&
	      derived nic 0 upmu_nic_port1_tx_gbps "upmu_nic.port1_tx_bytes * 8 / d * 1e-9"'
# realtime: 100000 packets/s of 1500 B into port 0, 20000 reads/s of 640 ns
sim_del $ID
sim_new "$ID 2 blocks=nic" || { echo "Bail out! cannot create device"; exit 1; }
echo "add id=1 rate=100000 ev=rx port=0 size=1500" > $D/nic/flows
echo "add id=2 rate=20000 ev=pcie_read link=0 lat=640" > $D/nic/flows
echo "sleep 1.5" > "$TMP/nrt.sh"
nrt_ok='near "${J[nrt|S0|upmu_nic_port0_rx_bw]:-}" 150 0.05 && near "${J[nrt|S0|upmu_nic_port0_rx_gbps]:-}" 1.2 0.05 &&
	near "${J[nrt|S0|upmu_nic_port0_rx_pps]:-}" 0.1 0.05 && near "${J[nrt|S0|upmu_nic_pcie0_rd_latency]:-}" 640 0.01'
for i in 1 2 3; do
	pm nrt upmu_nic_port0,upmu_nic_pcie0_rd_latency
	eval "$nrt_ok" && break
	echo "# NIC realtime: attempt $i missed: $(vals nrt 0 upmu_nic_port0_rx_bw upmu_nic_port0_rx_gbps upmu_nic_port0_rx_pps upmu_nic_pcie0_rd_latency)"
done
tap_expect "NIC realtime: 150 MB/s, 1.2 Gbit/s, 0.1 Mpkt/s within 5%, 640 ns within 1% ($(vals nrt 0 upmu_nic_port0_rx_bw upmu_nic_port0_rx_gbps upmu_nic_port0_rx_pps upmu_nic_pcie0_rd_latency))" \
	eval "$nrt_ok"
# upmu-diag, the NIC's tool, on the same flow: port 0's received bytes
# over its CSV's device timestamps (ns), 10 ms samples for a second, the
# same MB/s as perf's metric (within 5%, both of the flow's 150).  It
# reaches the firmware through fwctl (Linux 6.15 and later).
if ! kernel_has_fwctl; then
	tap_skip "NIC: upmu-diag's port 0 MB/s = perf's upmu_nic_port0_rx_bw (kernel without fwctl)"
else
	echo '["port_rx_bytes.p0"]' > "$TMP/ids.json"
	# (upmu-diag fails, and the check with it, if they never come)
	fwctl_nodes_within "$serial" 2 5
	"$top/build/selftests/upmu-diag" -p "$serial.0" -di "$TMP/ids.json" -sm 1 -sp 10000000 \
		-of 1 -rt 1 -o "$TMP/diag.csv" > "$TMP/diag.out" 2>&1 ||
		sed 's/^/#   /' "$TMP/diag.out"
	# columns: sample_id, first and last timestamp, the data ID
	drate=$(awk -F, 'NR == 2 { t0 = $2; b0 = $4 } NR > 2 { t = $2; b = $4 }
		END { if (t > t0) printf "%.3f", (b - b0) / (t - t0) * 1e3 }' "$TMP/diag.csv" 2>/dev/null)
	tap_expect "NIC: upmu-diag's port 0 MB/s = perf's upmu_nic_port0_rx_bw within 5%, 150 ($drate, $(vals nrt 0 upmu_nic_port0_rx_bw))" \
		eval 'near "$drate" "${J[nrt|S0|upmu_nic_port0_rx_bw]:-}" 0.05 && near "$drate" 150 0.05'
fi

# --- the realtime clock at 1500 MHz ------------------------------------------

sim_del $ID
sim_new "$ID 2 clock_mhz=1500 blocks=ucf,pcie rcs=2" || { echo "Bail out! cannot create device"; exit 1; }
echo "add id=1 socket=0 op=rd size=64 rate=20000000 dst=loc_gmem" > $D/flows
echo "sleep 0.5; echo 'rc=1 op=rd count=3000 lat=250' > $D/inject; sleep 1" > "$TMP/rt.sh"
rt_ok='near "${J[rt|S0|t410_ucf_slc_rd_bw]}" 1.28 0.05 && near "${J[rt|S0|t410_pcie_freq_ghz]}" 1.5 0.05 &&
       near "${J[rt|S0|t410_pcie_rd_latency_ns]}" 250 0.05'
for i in 1 2 3; do
	pm rt t410_ucf_slc_rd_bw,t410_pcie_freq_ghz,t410_pcie_rd_latency_ns
	eval "$rt_ok" && break
	echo "# realtime: attempt $i missed: $(vals rt 0 t410_ucf_slc_rd_bw t410_pcie_freq_ghz t410_pcie_rd_latency_ns)"
done
tap_expect "realtime: 1.28 GB/s, 1.5 GHz, 250 ns within 5% ($(vals rt 0 t410_ucf_slc_rd_bw t410_pcie_freq_ghz t410_pcie_rd_latency_ns))" \
	eval "$rt_ok"

# --- Ice Lake-X: the IIO metrics of patch 0007 --------------------------------

# iostat_test's flows, per second: socket 0 stack 1 part 0, device reads
# 256 MB/s at 500 ns, writes 128 MB/s; MMIO reads 6.4 MB/s and writes
# 6.4 MB/s there; MMIO writes 12.8 MB/s on socket 1.
icx_flows() {
	echo "add id=1 socket=0 stack=1 part=0 op=rd size=256 rate=1000000 lat=500" > $D/flows
	echo "add id=2 socket=0 stack=1 part=0 op=wr size=256 rate=500000 lat=300" > $D/flows
	echo "add id=3 socket=0 to_stack=1 to_part=0 op=rd size=64 rate=100000 lat=800" > $D/flows
	echo "add id=4 socket=0 to_stack=1 to_part=0 op=wr size=64 rate=100000" > $D/flows
	echo "add id=5 socket=1 to_stack=1 to_part=0 op=wr size=64 rate=200000" > $D/flows
}
# The metrics in two runs whose events fit an IIO PMU's four counters
# (event 0x83 on counters 0-1, 0xc0 and 0xd5 on 2-3): -M lpm_iio, seven
# events, multiplexes, and on the manual clock the whole second falls on
# whichever group is in.
IIO_A=iio_bandwidth_read,iio_bandwidth_write,lpm_iio_outbound_write_bw
IIO_B=lpm_iio_inbound_read_latency,lpm_iio_outbound_read_bw
# perf finds its Ice Lake-X tables by the CPU (make check's debug guests
# are Ice Lake-X); elsewhere (the stock guest) PERF_CPUID names one
grep -q '^model[[:space:]]*: 106$' /proc/cpuinfo && grep -q GenuineIntel /proc/cpuinfo ||
	export PERF_CPUID=GenuineIntel-6-6A-0
fresh soc=icx
icx_flows
echo "echo 1000000000 > $D/advance" > "$TMP/icxa.sh"
cp "$TMP/icxa.sh" "$TMP/icxb.sh"
pm icxa $IIO_A
pm icxb $IIO_B
# ic RUN SOCKET EVENT: the count (4-byte units) of UNC_IIO_DATA_REQ_EVENT.ALL_PARTS
ic() { jc "$1" "$2" "UNC_IIO_DATA_REQ_$3.ALL_PARTS"; }
tap_expect "Ice Lake-X lpm_iio, --per-socket: 4-byte counts of 256, 128, 6.4, 6.4 MB device-read, -written, MMIO-read, -written on socket 0, 12.8 MMIO-written on 1 ($(ic icxa 0 OF_CPU.MEM_READ) $(ic icxa 0 OF_CPU.MEM_WRITE) $(ic icxb 0 OF_CPU.CMPD) $(ic icxa 0 BY_CPU.MEM_WRITE) $(ic icxa 1 BY_CPU.MEM_WRITE))" \
	is "$(ic icxa 0 OF_CPU.MEM_READ) $(ic icxa 0 OF_CPU.MEM_WRITE) $(ic icxb 0 OF_CPU.CMPD) $(ic icxa 0 BY_CPU.MEM_WRITE) $(ic icxa 1 BY_CPU.MEM_WRITE)" \
	"64000000.000000 32000000.000000 1600000.000000 1600000.000000 3200000.000000"
tap_expect "Ice Lake-X: MB/s = counts x 4 / duration_time; read latency = 500 IIO clocks / the clocks of one of 6 stacks per s" \
	eval 'derived icxa 0 iio_bandwidth_read "64000000 * 4 / d * 1e-6" &&
	      derived icxa 1 lpm_iio_outbound_write_bw "3200000 * 4 / d * 1e-6" &&
	      derived icxb 0 lpm_iio_outbound_read_bw "1600000 * 4 / d * 1e-6" &&
	      derived icxb 0 lpm_iio_inbound_read_latency "500 / (${J[icxb|S0|UNC_IIO_CLOCKTICKS]:-0} / 6 / d) * 1e9"'
# upmu-iostat over the same second: its MB per second of the IIO clock
I=${UPMU_IOSTAT:-$top/build/selftests/upmu-iostat}
"$I" -g stack -m inbound_read_bw,inbound_write_bw,outbound_write_bw --ioclk-ghz 1 --time ioclk -x, \
	-- sh "$TMP/icxa.sh" > "$TMP/io" 2> "$TMP/io.err"
iov() { awk -F, -v m="$1" '$1 == "S0" && $5 == m { s += $6 } END { printf "%g", s }' "$TMP/io"; }
tap_expect "Ice Lake-X: upmu-iostat on the same flows, socket 0: the same MB ($(iov inbound_read_bw) $(iov inbound_write_bw) $(iov outbound_write_bw))" \
	is "$(iov inbound_read_bw) $(iov inbound_write_bw) $(iov outbound_write_bw)" \
	"$(awk -v a="$(ic icxa 0 OF_CPU.MEM_READ)" -v b="$(ic icxa 0 OF_CPU.MEM_WRITE)" -v c="$(ic icxa 0 BY_CPU.MEM_WRITE)" \
		'BEGIN { printf "%g %g %g", a * 4e-6, b * 4e-6, c * 4e-6 }')"
# realtime, the IIO clock at 1.5 GHz: MB/s and ns within 5%
sim_del $ID
sim_new "$ID 2 soc=icx clock_mhz=1500" || { echo "Bail out! cannot create device"; exit 1; }
icx_flows
echo "sleep 1.5" > "$TMP/irta.sh"
cp "$TMP/irta.sh" "$TMP/irtb.sh"
irt_ok='near "${J[irta|S0|iio_bandwidth_read]:-}" 256 0.05 && near "${J[irta|S0|iio_bandwidth_write]:-}" 128 0.05 &&
	near "${J[irtb|S0|lpm_iio_outbound_read_bw]:-}" 6.4 0.05 && near "${J[irta|S1|lpm_iio_outbound_write_bw]:-}" 12.8 0.05 &&
	near "${J[irtb|S0|lpm_iio_inbound_read_latency]:-}" 500 0.05'
irt_vals() {
	echo "$(vals irta 0 iio_bandwidth_read iio_bandwidth_write) $(vals irtb 0 lpm_iio_outbound_read_bw)" \
	     "$(vals irta 1 lpm_iio_outbound_write_bw) $(vals irtb 0 lpm_iio_inbound_read_latency)"
}
for i in 1 2 3; do
	pm irta $IIO_A
	pm irtb $IIO_B
	eval "$irt_ok" && break
	echo "# Ice Lake-X realtime: attempt $i missed: $(irt_vals)"
done
tap_expect "Ice Lake-X realtime: 256, 128, 6.4 MB/s on socket 0, 12.8 on socket 1, 500 ns, within 5% ($(irt_vals))" \
	eval "$irt_ok"
unset PERF_CPUID

# --- an Ice Lake-X alone: no Tegra410 metric ---------------------------------

sim_del $ID
sim_new "$ID 2 soc=icx" || { echo "Bail out! cannot create device"; exit 1; }
tap_expect "Ice Lake-X only: perf lists none of the Tegra410 or NIC metrics" \
	is "$(plist metrics | wc -l) $(plist metricgroups | wc -l) $(plist_all metrics | grep -c '^upmu_nic')" "0 0 0"
"$PERF" stat -a -M t410_ucf_slc_rd_bw -- true > /dev/null 2> "$TMP/none.err"; rc=$?
tap_expect "Ice Lake-X only: perf stat -M t410_ucf_slc_rd_bw fails (rc $rc: $(head -n 1 "$TMP/none.err"))" \
	eval '[ $rc != 0 ]'
tap_exit
