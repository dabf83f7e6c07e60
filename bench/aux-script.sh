#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The aux section's perf script figure (bench/README), in the bench guest:
# perf script's time per sample of the NIC's AUX stream against per
# sample of a software event (cpu-clock), with the patched perf
# ($UPMU_PERF, bench.sh passes the one scripts/perfbuild.sh built).
# Goal: no slower.  A goal, not a test: exit 1 only if it cannot measure.
#   aux-script.sh SIM_ID ROUNDS   (a NIC on the manual clock)
set -u
id=${1:?sim id} rounds=${2:-3}
perf=${UPMU_PERF:-}
D=/sys/kernel/debug/upmu_sim/$id
pmu=upmu_nicdiag_$(printf '%08x' $((0x4e1c0000 + id)))
if [ -z "$perf" ] || ! "$perf" version >/dev/null 2>&1; then
	echo "== perf script: skipped, no patched perf (UPMU_PERF='$perf')"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# 20 x 512 samples of 8 IDs; about as many cpu-clock samples
"$perf" record -q -o aux.data -a -e "$pmu/doca_default,dev_period=10,log_samples=9/" \
	-c 1000000 -- sh -c "for i in \$(seq 20); do echo $((512 * 1024)) > $D/advance; sleep 0.05; done" \
	>/dev/null 2>&1 || { echo "bench: perf record of $pmu failed" >&2; exit 1; }
"$perf" record -q -o sw.data -a -e cpu-clock -c 200000 -- sleep 1 >/dev/null 2>&1 ||
	{ echo "bench: perf record of cpu-clock failed" >&2; exit 1; }
na=$("$perf" script -i aux.data -F cpu,time,event,synth 2>/dev/null | grep -c 'upmu-nic-diag:')
ns=$("$perf" script -i sw.data 2>/dev/null | grep -c 'cpu-clock')
if [ "$na" = 0 ] || [ "$ns" = 0 ]; then echo "bench: no samples ($na, $ns)" >&2; exit 1; fi

echo "== perf script: us per sample, $na AUX samples (8 IDs, -F cpu,time,event,synth)"
echo "   against $ns cpu-clock samples (default fields); $rounds rounds, turns alternate"
secs() {	# secs FILE ARGS...: seconds perf script takes
	local t0
	t0=$(date +%s.%N)
	"$perf" script -i "$@" >/dev/null 2>&1
	echo "$t0 $(date +%s.%N)" | awk '{ printf "%.6f", $2 - $1 }'
}
ratios=""
for r in $(seq "$rounds"); do
	a=$(secs aux.data -F cpu,time,event,synth)
	s=$(secs sw.data)
	line=$(awk -v a="$a" -v s="$s" -v na="$na" -v ns="$ns" -v r="$r" 'BEGIN {
		pa = a * 1e6 / na; ps = s * 1e6 / ns
		printf "  round %d: AUX %.2f us, cpu-clock %.2f us per sample: %.3fx\n", r, pa, ps, pa / ps
	}')
	echo "$line"
	ratios="$ratios ${line##* }"
done
echo "$ratios" | tr ' ' '\n' | sed -n 's/x$//p' | sort -g |
	awk '{ v[NR] = $1 } END { m = v[int((NR + 1) / 2)]
		printf "  AUX / cpu-clock per sample: %.3fx (median; goal <= 1x: %s)\n", m, m <= 1 ? "met" : "not met" }'
