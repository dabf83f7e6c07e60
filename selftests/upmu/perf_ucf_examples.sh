#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The three UCF example commands of the Tegra410 PMU document, run
# verbatim (plus a workload that injects known traffic and -x, so the
# count can be read back), with the perf binary in $PERF.
set -u
. "$(dirname "$0")/lib.sh"
PERF=${PERF:-perf}
ID=11
D=/sys/kernel/debug/upmu_sim/$ID
OUT=$(mktemp)

# count of the first CSV line of perf stat -x,
perf_count() {	# perf_count EVENT WORKLOAD
	"$PERF" stat -a -x, -o "$OUT" -e "$1" -- sh -c "$2" >/dev/null 2>&1 || return 1
	grep -v '^#' "$OUT" | grep -v '^$' | head -n1 | cut -d, -f1
}

# Traffic from every source s to every destination d of socket S, in
# 1 << (4s + d) transactions: a filter's count names the pairs it saw.
all_pairs() {
	local s d n=0 cmds=""
	for s in loc_cpu loc_noncpu rem; do
		for d in loc_cmem loc_gmem loc_other rem; do
			cmds="$cmds echo 'socket=$1 src=$s dst=$d count=$((1 << n))' > $D/inject;"
			n=$((n + 1))
		done
	done
	echo "$cmds"
}

check() {	# check NAME EVENT WORKLOAD WANT
	local got
	got=$(perf_count "$2" "$3")
	if [ "$got" = "$4" ]; then tap_ok "$1 ($PERF: $got)"
	else tap_fail "$1: want $4, got '$got'"; fi
}

tap_plan 5
upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
sim_del $ID
sim_new "$ID 2" || { echo "Bail out! cannot create device"; exit 1; }

check "perf stat -a -e nvidia_ucf_pmu_0/event=0x0/" \
	nvidia_ucf_pmu_0/event=0x0/ "$(all_pairs 0)" 4095
check "perf stat -a -e nvidia_ucf_pmu_0/event=0x0,src_loc_cpu=0x1,dst_loc_cmem=0x1/" \
	nvidia_ucf_pmu_0/event=0x0,src_loc_cpu=0x1,dst_loc_cmem=0x1/ "$(all_pairs 0)" 1
check "perf stat -a -e nvidia_ucf_pmu_1/event=0x0,src_loc_noncpu=0x1,dst_rem=0x1/" \
	nvidia_ucf_pmu_1/event=0x0,src_loc_noncpu=0x1,dst_rem=0x1/ "$(all_pairs 1)" 128
# named byte events are scaled to MiB by perf
check "slc_bytes_rd is reported in MiB" nvidia_ucf_pmu_0/slc_bytes_rd/ \
	"echo 'socket=0 op=rd size=4096 count=512' > $D/inject" 2.00
# an unknown event is refused (perf stat reports it rather than counting)
if "$PERF" stat -a -x, -e nvidia_ucf_pmu_0/event=0x5/ -- true 2>&1 |
	grep -q -e '<not supported>' -e 'Invalid argument'; then
	tap_ok "unknown event id refused by perf stat"
else
	tap_fail "unknown event id refused by perf stat"
fi
sim_del $ID
rm -f "$OUT"
tap_exit
