#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The iostat section (bench/README), in the bench guest: the CPU time
# (user + system) of upmu-iostat -I 100 against perf stat -I 100 counting
# the same events in the same groups on the same CPUs, for the same time,
# on a simulated 2-socket Ice Lake-X with steady flows.  A ratio in one
# run, not a test: exit 1 only if it cannot measure.
# Both also say how many intervals they printed: perf stat -I sleeps a
# whole interval after each interval's work, upmu-iostat keeps to the
# clock, so where that work is slow (TCG) perf prints fewer intervals in
# the same time; the per-interval ratio compares the same work.
#   iostat-cost.sh SIM_ID ROUNDS SECONDS
set -u
id=${1:?sim id} rounds=${2:-3} secs=${3:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
T=$top/build/tools/upmu-iostat
perf=${UPMU_PERF:-perf}
"$perf" version >/dev/null 2>&1 || perf=perf
D=/sys/kernel/debug/upmu_sim/$id
# the default metrics of -g stack (bandwidth, link, latency, conflicts; the
# socket rows' CHA/IMC/UPI are n/a without those PMUs and count nothing)
ARGS="-g stack -m bw,link,latency,conflicts"

echo "$id 2 soc=icx" > /sys/bus/upmu_sim/new_device ||
	{ echo "bench: cannot create the simulated Ice Lake-X" >&2; exit 1; }
for f in "add id=1 socket=0 stack=1 part=0 op=rd size=256 rate=1000000 lat=500" \
	 "add id=2 socket=0 stack=1 part=0 op=wr size=64 rate=2000000 lat=300" \
	 "add id=3 socket=1 stack=0 part=2 op=rd size=64 rate=1000000 lat=400"; do
	echo "$f" > $D/flows || { echo "bench: cannot start a flow" >&2; exit 1; }
done
# perf's event list: upmu-iostat's groups on the first die's CPU (perf -a
# opens each on every CPU of the PMU's cpumask, as upmu-iostat does per die)
cpu0=$(cut -d, -f1 /sys/bus/event_source/devices/uncore_iio_0/cpumask)
events=$("$T" -l $ARGS | awk -v c="$cpu0" '$1 == "group" && $4 == "cpu" && $5 == c ":" {
	g = ""; for (i = 6; i <= NF; i++) g = g (g == "" ? "" : ",") $i
	printf "%s{%s}", (n++ ? "," : ""), g }')
[ -n "$events" ] || { echo "bench: upmu-iostat -l listed no groups" >&2; exit 1; }
ngroups=$(echo "$events" | grep -o '{' | wc -l)

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
# cputime CMD...: user + system milliseconds of CMD and its children
# (getrusage, through bash's time: finer than /proc's clock ticks), then
# the intervals it printed (its distinct time stamps); its output (stdout
# and stderr: perf stat prints to stderr) goes to a file for both
cputime() {
	local TIMEFORMAT='%3U %3S' t
	t=$( { time "$@" >"$out" 2>&1; } 2>&1 ) || return 1
	awk -v o="$t" 'BEGIN { split(o, a, " "); printf "%d ", (a[1] + a[2]) * 1000 }'
	awk '$1 ~ /^[0-9]+\.[0-9]+$/ && !($1 in t) { t[$1]; n++ } END { print n + 0 }' "$out"
}
echo "== iostat: upmu-iostat -I 100 $ARGS against perf stat -I 100 ($perf) on the same $ngroups groups per die, ${secs} s, $rounds rounds (CPU time, ms)"
ratios="" pratios=""
for r in $(seq "$rounds"); do
	read -r a na < <(cputime "$T" -a -I 100 --timeout "$((secs * 1000))" $ARGS) && [ -n "$na" ] ||
		{ echo "bench: upmu-iostat failed" >&2; exit 1; }
	read -r b nb < <(cputime "$perf" stat -I 100 -a -e "$events" -- sleep "$secs") &&
		[ -n "$nb" ] || { echo "bench: perf stat failed" >&2; exit 1; }
	[ "$b" -gt 0 ] || b=1
	[ "$na" -gt 0 ] && [ "$nb" -gt 0 ] || { echo "bench: no interval printed" >&2; exit 1; }
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')
	pratio=$(awk -v a="$a" -v b="$b" -v na="$na" -v nb="$nb" 'BEGIN { printf "%.2f", (a / na) / (b / nb) }')
	ratios="$ratios $ratio" pratios="$pratios $pratio"
	echo "   round $r: upmu-iostat $a ms, $na intervals; perf stat $b ms, $nb intervals: ${ratio}x, per interval ${pratio}x"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo "== iostat: upmu-iostat / perf stat CPU time: $(median $ratios)x (median of $rounds; goal: at most 1x)"
echo "== iostat: upmu-iostat / perf stat CPU time per interval printed: $(median $pratios)x (median of $rounds)"
echo "$id" > /sys/bus/upmu_sim/del_device
