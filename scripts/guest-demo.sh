#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM: a simulated 2-socket Tegra410 with live
# traffic, shown through sysfs, perf stat and the upmu tools.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mod="$top/build/$(uname -r)"
PERF=${PERF:-/usr/bin/perf}
D=/sys/kernel/debug/upmu_sim/1

say() { printf '\n\033[1m### %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

for m in upmu_core upmu_sim upmu_t410; do insmod "$mod/$m.ko" || exit 1; done

say "Create a simulated 2-socket Tegra410 (sockets = NUMA nodes 0 and 1)"
run sh -c 'echo "1 2" > /sys/bus/upmu_sim/new_device'
run sh -c 'ls -d /sys/bus/event_source/devices/nvidia_*'
for f in cpumask associated_cpus identifier format/event format/src_loc_cpu events/slc_bytes_rd events/slc_bytes_rd.unit; do
	printf '%-26s %s\n' "$f" "$(cat /sys/bus/event_source/devices/nvidia_ucf_pmu_0/$f)"
done
run sh -c "$PERF list 2>/dev/null | grep -E 'nvidia_ucf_pmu_0/(slc|mem)_bytes' "

say "Start traffic (flows: transactions/s of a given size, source and destination)"
flows=(
	"add id=1 socket=0 op=rd size=64  rate=20000000 src=loc_cpu    dst=loc_cmem lat=120"
	"add id=2 socket=0 op=wr size=64  rate=10000000 src=loc_cpu    dst=loc_cmem"
	"add id=3 socket=0 op=rd size=128 rate=5000000  src=loc_noncpu dst=rem hit=1"
	"add id=4 socket=1 op=rd size=256 rate=4000000  src=rem        dst=loc_gmem"
	"add id=5 socket=1 op=wr size=64  rate=2000000  src=loc_noncpu dst=rem"
	"add id=6 socket=0 op=rd size=256 rate=1000000  rc=4 bdf=0x0180 lat=500"
)
for f in "${flows[@]}"; do run sh -c "echo '$f' > $D/flows"; done
echo "expected: socket 0 SLC reads  = 20M*64 + 5M*128 = 1.92 GB/s, of which 1.28 GB/s miss to memory"
echo "          socket 0 SLC writes = 10M*64 = 0.64 GB/s; socket 1 reads = 4M*256 = 1.024 GB/s"
echo "          socket 1 non-CPU writes to remote memory: 2M requests/s"
echo "          socket 0 CMEM reads: 20M*64/32 = 40M requests/s of 32 B, 120 ns each"
echo "          PCIe device 0005:01:10.0 (RC 4, BDF 0x0180): 1M reads/s of 256 B = 0.256 GB/s, 500 ns each"

say "Interval mode: perf stat -I 1000 (live bandwidth, MiB per second)"
run "$PERF" stat -I 1000 -a -e nvidia_ucf_pmu_0/slc_bytes_rd/,nvidia_ucf_pmu_0/slc_bytes_wr/,nvidia_ucf_pmu_0/mem_bytes_rd/,nvidia_ucf_pmu_1/slc_bytes_rd/ -- sleep 3

say "The document's UCF examples, verbatim (stopped with SIGINT after 15 s: perf itself needs several seconds to start on the debug kernel)"
for ev in 'nvidia_ucf_pmu_0/event=0x0/' \
	  'nvidia_ucf_pmu_0/event=0x0,src_loc_cpu=0x1,dst_loc_cmem=0x1/' \
	  'nvidia_ucf_pmu_1/event=0x0,src_loc_noncpu=0x1,dst_rem=0x1/'; do
	printf '$ perf stat -a -e %s\n' "$ev"
	timeout -s INT 15 "$PERF" stat -a -e "$ev"
done

say "Totals and the document's formulas"
out=$(mktemp)
"$PERF" stat -a -x, -o "$out" -e '{nvidia_ucf_pmu_0/event=0x113/,nvidia_ucf_pmu_0/event=0x114/,nvidia_ucf_pmu_0/event=0x123/,nvidia_ucf_pmu_0/event=0x111/,nvidia_ucf_pmu_0/cycles/}' -- sleep 2
grep -v '^#' "$out" | grep -v '^$'
# perf stat -x, columns: count,unit,event,run time (ns),percent running,...
val() { awk -F, -v e="$1" '$3 == e { print $'"$2"' }' "$out"; }
rd=$(val nvidia_ucf_pmu_0/event=0x113/ 1)
wr=$(val nvidia_ucf_pmu_0/event=0x114/ 1)
mem=$(val nvidia_ucf_pmu_0/event=0x123/ 1)
acc=$(val nvidia_ucf_pmu_0/event=0x111/ 1)
cyc=$(val nvidia_ucf_pmu_0/cycles/ 1)
run_ns=$(val nvidia_ucf_pmu_0/cycles/ 4)
awk -v rd="$rd" -v wr="$wr" -v mem="$mem" -v acc="$acc" -v cyc="$cyc" -v ns="$run_ns" 'BEGIN {
	printf "ELAPSED_TIME_IN_NS               = %.0f\n", ns
	printf "AVG_SLC_READ_BANDWIDTH_IN_GBPS   = %.3f   (expected 1.920)\n", rd / ns
	printf "AVG_SLC_WRITE_BANDWIDTH_IN_GBPS  = %.3f   (expected 0.640)\n", wr / ns
	printf "AVG_MEM_READ_BANDWIDTH_IN_GBPS   = %.3f   (expected 1.280)\n", mem / ns
	printf "AVG_SLC_READ_REQUEST_RATE        = %.4f  requests/cycle (expected 0.0250 at 1 GHz)\n", acc / cyc
}'
rm -f "$out"

say "CMEM latency: the document's example, verbatim (SIGINT after 15 s), then its formulas"
cmem='{nvidia_cmem_latency_pmu_0/rd_req/,nvidia_cmem_latency_pmu_0/rd_cum_outs/,nvidia_cmem_latency_pmu_0/cycles/}'
printf "$ perf stat -a -e '%s'\n" "$cmem"
timeout -s INT 15 "$PERF" stat -a -e "$cmem"
out=$(mktemp)
"$PERF" stat -a -x, -o "$out" -e "$cmem" -- sleep 2
grep -v '^#' "$out" | grep -v '^$'
req=$(val nvidia_cmem_latency_pmu_0/rd_req/ 1)
aor=$(val nvidia_cmem_latency_pmu_0/rd_cum_outs/ 1)
cyc=$(val nvidia_cmem_latency_pmu_0/cycles/ 1)
run_ns=$(val nvidia_cmem_latency_pmu_0/cycles/ 4)
awk -v req="$req" -v aor="$aor" -v cyc="$cyc" -v ns="$run_ns" 'BEGIN {
	f = cyc / ns
	printf "FREQ_IN_GHZ                      = %.3f   (expected 1.000)\n", f
	printf "AVG_LATENCY_IN_CYCLES            = %.1f   (expected 120.0)\n", aor / req
	printf "AVERAGE_LATENCY_IN_NS            = %.1f   (expected 120.0)\n", aor / req / f
	printf "READ_REQUESTS_PER_SECOND         = %.0f   (expected 40000000)\n", req / ns * 1e9
}'
rm -f "$out"

say "PCIE: the document's BDF example, verbatim (SIGINT after 15 s), then its formulas"
pcie='nvidia_pcie_pmu_0_rc_4/event=0x4,src_bdf=0x0180,src_bdf_en=0x1/'
printf '$ perf stat -a -e %s\n' "$pcie"
timeout -s INT 15 "$PERF" stat -a -e "$pcie"
ev='{nvidia_pcie_pmu_0_rc_4/rd_bytes,src_bdf=0x0180,src_bdf_en=1/,nvidia_pcie_pmu_0_rc_4/rd_req,src_bdf=0x0180,src_bdf_en=1/,nvidia_pcie_pmu_0_rc_4/rd_cum_outs,src_bdf=0x0180,src_bdf_en=1/,nvidia_pcie_pmu_0_rc_4/cycles/}'
out=$(mktemp)
"$PERF" stat -a -x, -o "$out" -e "$ev" -- sleep 2
grep -v '^#' "$out" | grep -v '^$'
# perf stat -x, prints rd_bytes scaled to MiB (converted back below)
bytes=$(awk -F, '$3 ~ /rd_bytes/ { print $1 }' "$out")
req=$(awk -F, '$3 ~ /rd_req/ { print $1 }' "$out")
aor=$(awk -F, '$3 ~ /rd_cum_outs/ { print $1 }' "$out")
cyc=$(awk -F, '$3 ~ /cycles/ { print $1 }' "$out")
run_ns=$(awk -F, '$3 ~ /cycles/ { print $4 }' "$out")
awk -v b="$bytes" -v req="$req" -v aor="$aor" -v cyc="$cyc" -v ns="$run_ns" 'BEGIN {
	f = cyc / ns
	printf "AVG_RD_BANDWIDTH_IN_GBPS         = %.3f   (expected 0.256)\n", b * 1048576 / ns
	printf "AVG_RD_REQUEST_RATE              = %.4f  requests/cycle (expected 0.0010)\n", req / cyc
	printf "FREQ_IN_GHZ                      = %.3f   (expected 1.000)\n", f
	printf "AVG_LATENCY_IN_CYCLES            = %.1f   (expected 500.0)\n", aor / req
	printf "AVERAGE_LATENCY_IN_NS            = %.1f   (expected 500.0)\n", aor / req / f
}'
rm -f "$out"
if [ -x "$top/build/tools/upmu-pcimap" ]; then
	say "Which PMU and root port see a PCI function (upmu-pcimap)"
	run "$top/build/tools/upmu-pcimap" -s | grep -E '^0005:'
fi

say "NVLink-C2C: GPU traffic on socket 0 (two GPUs, the simulator's default)"
run cat /sys/bus/event_source/devices/nvidia_nvlink_c2c_pmu_0/peer
for f in "add id=7 socket=0 op=rd size=128 rate=2000000 src=loc_noncpu gpu=1 lat=300" \
	 "add id=8 socket=0 op=rd size=64  rate=3000000 dst=loc_gmem gpu=0 lat=800"; do
	run sh -c "echo '$f' > $D/flows"
done
echo "expected: GPU 1 reads CPU memory: in_rd_req 2M/s, 300 ns = 300 cycles each at 1 GHz"
echo "          (flow 3 is GPU 0 reading: 5M/s SLC hits, latency 0)"
echo "          the CPUs read GPU 0's memory: out_rd_req 3M/s, 800 cycles each"
c2c='nvidia_nvlink_c2c_pmu_0/in_rd_cum_outs,gpu_mask=0x2/'
printf '$ perf stat -a -e %s   (expected 6e8 per second)\n' "$c2c"
timeout -s INT 15 "$PERF" stat -a -e "$c2c"
if [ -x "$top/build/tools/upmu-metrics" ]; then
	run "$top/build/tools/upmu-metrics" -t 2 nvidia_nvlink_c2c_pmu_0
	echo "expected: C2C_FREQ_IN_GHZ 1.000; IN_RD of both GPUs (2M*300 + 5M*0) / 7M = 85.7 cycles and ns;"
	echo "          OUT_RD 800 cycles and ns; no writes (-)"
fi

say "Ground truth kept by the simulator"
run cat $D/flows
echo 1 > /sys/bus/upmu_sim/del_device
