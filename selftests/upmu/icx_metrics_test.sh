#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every uncore metric of perf's Ice Lake-X tables, in Debian's perf 6.1
# and the patched perf 7.2 ($UPMU_PERF), against the simulator's model of
# a 2-socket Ice Lake-X: icx_metrics.py finds the metrics made only of
# uncore events in perf's own list, runs each under perf stat -a on a known
# mix of device and CPU traffic and checks its value (see there).  Where
# the CPU is no Ice Lake-X (the stock guest), perf is told it is
# (PERF_CPUID), as a user of another machine would.
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
ID=19
trap 'sim_del $ID; mod_unload_own' EXIT

upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
mod_load_own upmu_icx || { echo "Bail out! cannot load upmu_icx"; exit 1; }
need_cmd python3
grep -q "GenuineIntel" /proc/cpuinfo && grep -qE "^model\s+: 106$" /proc/cpuinfo ||
	export PERF_CPUID=GenuineIntel-6-6A-0
sim_del $ID
sim_new "$ID 2 soc=icx clock=manual clock_mhz=1000 cstate=1:0:1" || { echo "Bail out! cannot create device"; exit 1; }
# Debian's perf 6.1 is the perf of Debian's 6.1 kernel: its metrics are
# checked where that kernel runs (make check's stock guest), the patched
# perf 7.2's on both; on the debug kernel, whose perf 6.1 runs take
# minutes, perf 6.1's are a skip that says so
perfs=()
skip61=""
case $(uname -r) in
6.1.*) perfs=(--perf "perf-6.1=${PERF:-/usr/bin/perf}") ;;
*) skip61="perf 6.1 (Debian 6.1's perf): its metrics are checked in the guest of Debian's 6.1 kernel" ;;
esac
if [ -n "${UPMU_PERF:-}" ] && [ -x "$UPMU_PERF" ]; then
	perfs+=(--perf "perf-7.2=$UPMU_PERF")
else
	# make check always passes it: without it, a failure, not a skip
	echo "not ok 1 no patched perf (UPMU_PERF='${UPMU_PERF:-}': scripts/perfbuild.sh builds it)"
	echo "1..1"
	exit 1
fi
python3 -B "$top/selftests/upmu/icx_metrics.py" --sim-id $ID "${perfs[@]}" ${skip61:+--skip "$skip61"}
