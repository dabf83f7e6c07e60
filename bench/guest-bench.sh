#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the bench VM (bench/bench.sh): loads the upmu modules built
# for the running kernel, creates a simulated 2-socket Tegra410 and runs
# upmu_bench with one flow on socket 0, a simulated NIC with
# traffic for the NIC sections (pmuread, rpc, sustain) and a simulated
# Ice Lake-X for the icx section; then the aux
# section (bench_aux, aux-script.sh) and the iostat section
# (iostat-cost.sh, a simulated Ice Lake-X).
#   guest-bench.sh [upmu_bench options]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
mod="$top/build/$(uname -r)"
D=/sys/kernel/debug/upmu_sim/1
# CPU reads of local memory that miss the SLC: counted by the UCF and the
# CMEM latency PMU of socket 0.
FLOW="add id=1 socket=0 op=rd size=64 rate=20000000 src=loc_cpu dst=loc_cmem lat=120"

# A NIC (device 2) for the pmuread, rpc and sustain sections, receiving
# 1000-byte packets on port 0; its clock makes 2^17 clocks 100 us (the
# sustain section's period), its buffer is the largest (2^16
# counter-samples).
NIC_NEW="2 1 blocks=nic nic_khz=1310720 nic_log_samples=16"
NIC_FLOW="add id=1 rate=1000000 ev=rx port=0 size=1000"

for m in upmu_core upmu_sim upmu_t410 upmu_nic upmu_icx; do
	insmod "$mod/$m.ko" || { echo "guest-bench: insmod $mod/$m.ko failed" >&2; exit 1; }
done
echo "1 2" > /sys/bus/upmu_sim/new_device ||
	{ echo "guest-bench: cannot create the simulated device" >&2; exit 1; }
echo "$NIC_NEW" > /sys/bus/upmu_sim/new_device ||
	{ echo "guest-bench: cannot create the simulated NIC" >&2; exit 1; }
echo "$NIC_FLOW" > /sys/kernel/debug/upmu_sim/2/nic/flows ||
	{ echo "guest-bench: cannot start the NIC's flow" >&2; exit 1; }
# The icx section: a simulated Ice Lake-X (device 5), for upmu_bench only
echo "5 2 soc=icx" > /sys/bus/upmu_sim/new_device ||
	{ echo "guest-bench: cannot create the simulated Ice Lake-X" >&2; exit 1; }
# UPMU_BENCH_WRAP: a command to run upmu_bench under (a profiler)
# shellcheck disable=SC2086
${UPMU_BENCH_WRAP:-} "$top/build/bench/upmu_bench" -d "$D" -f "$FLOW" -N 2 \
	-X /sys/kernel/debug/upmu_sim/5 "$@" || exit
echo 5 > /sys/bus/upmu_sim/del_device || exit
# The aux section (bench/README): a NIC (device 3) on the manual clock.
echo "3 1 blocks=nic clock=manual nic_log_samples=16" > /sys/bus/upmu_sim/new_device ||
	{ echo "guest-bench: cannot create the NIC for the aux section" >&2; exit 1; }
"$top/build/bench/bench_aux" -i 3 -k 2 || exit
"$top/bench/aux-script.sh" 3 3 || exit
# The iostat section (bench/README): a simulated Ice Lake-X (device 4)
"$top/bench/iostat-cost.sh" 4 3 5 || exit
# The upmu-exporter section (bench/README): upmu-exporter on the Tegra410
# (device 1), the NIC (device 2) and a simulated Ice Lake-X (device 6,
# with flows) against perf stat on the same events, 3 rounds of 10 s,
# then the 10 s storm; the aux section's manual-clock NIC goes first
echo 3 > /sys/bus/upmu_sim/del_device || exit
exec "$top/bench/exporter-cost.sh" 6 3 10 10
