#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The upmu-exporter section (bench/README), in the bench guest: on every PMU
# there (a 2-socket Tegra410, NICs, and a 2-socket Ice Lake-X this creates,
# with flows), upmu-exporter (build/tools/upmu-exporter, its defaults)
# scraped once a second for SECONDS:
#  - its CPU time per scrape (utime + stime, /proc/PID/stat, over SECONDS
#    scrapes after its start) against perf stat -I 1000 -a's CPU time per
#    interval counting the same events (upmu-exporter --list-events),
#    taken the same way over SECONDS intervals after its first (its start
#    and end left out, as the exporter's are): goal at most 1x;
#  - the scrapes' duration (curl's time_total), median and max: goal under
#    0.25 s; its VmRSS after the scrapes: goal under 16 MiB;
# then the storm (build/bench/exporter_storm, STORM seconds) against the
# last round's exporter, with its goals: every scrape ok, none over 1 s,
# the fds back to the baseline, RSS grown under 8 MiB, every malformed
# request sent; then its 10^4 malformed requests again over 50 s without
# the 64 scraping clients (what a TCG guest's loopback can take).
# Figures in one run, not a test: exit 1 only if it cannot measure.
#   exporter-cost.sh ICX_ID [ROUNDS [SECONDS [STORM]]]     (defaults 3 10 10)
# ICX_ID "-" creates no Ice Lake-X (the PMUs there as they are).
# UPMU_EXPORTER, UPMU_EXPORTER_STORM: other binaries; UPMU_EXPORTER_PORT: its
# port (9464); UPMU_PERF: perf (as iostat-cost.sh).
set -u
id=${1:?sim id of the Ice Lake-X to create, or -} rounds=${2:-3} secs=${3:-10} storm=${4:-10}
top=$(cd "$(dirname "$0")/.." && pwd)
E=${UPMU_EXPORTER:-$top/build/tools/upmu-exporter}
STORM=${UPMU_EXPORTER_STORM:-$top/build/bench/exporter_storm}
perf=${UPMU_PERF:-perf}
"$perf" version >/dev/null 2>&1 || perf=perf
PORT=${UPMU_EXPORTER_PORT:-9464}
URL=http://127.0.0.1:$PORT
TIMEOUT_S=5		# the exporter's default timeout_s, given in the file too
D=/sys/kernel/debug/upmu_sim/$id
hz=$(getconf CLK_TCK)
# storm(), met()
. "$top/bench/storm-lib.sh"

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$E" ] || die "no $E (make build/tools/upmu-exporter)"
command -v curl >/dev/null || die "no curl"
tmp=$(mktemp -d) || exit 1
epid="" made=""
cleanup() {
	[ -z "$epid" ] || { kill "$epid" 2>/dev/null; wait "$epid" 2>/dev/null; }
	[ -z "$made" ] || echo "$id" > /sys/bus/upmu_sim/del_device
	rm -rf "$tmp"
}
trap cleanup EXIT
ip link set lo up 2>/dev/null || busybox ip link set lo up 2>/dev/null

if [ "$id" != - ]; then
	echo "$id 2 soc=icx" > /sys/bus/upmu_sim/new_device ||
		die "cannot create the simulated Ice Lake-X"
	made=1
	for f in "add id=1 socket=0 stack=1 part=0 op=rd size=256 rate=1000000 lat=500" \
		 "add id=2 socket=0 stack=1 part=0 op=wr size=64 rate=2000000 lat=300" \
		 "add id=3 socket=1 stack=0 part=2 op=rd size=64 rate=1000000 lat=400"; do
		echo "$f" > "$D/flows" || die "cannot start a flow"
	done
fi

# the built-in series, the documented defaults said again (and no
# /etc/upmu/exporter.conf of the host's)
cat > "$tmp/exporter.conf" <<EOF
listen 127.0.0.1:$PORT
cache_ms 200
timeout_s $TIMEOUT_S
EOF

# upmu-exporter --list-events: one PMU/terms/ a line; what is not that is
# left out, and said.  perf -e takes them joined by commas.
SPEC='^[A-Za-z0-9_.-]+/[^/ ]*/$'
"$E" -c "$tmp/exporter.conf" --list-events > "$tmp/list" 2> "$tmp/list.err" ||
	{ cat "$tmp/list.err" >&2; die "upmu-exporter --list-events failed"; }
grep -E "$SPEC" "$tmp/list" > "$tmp/events"
nbad=$(grep -vE "$SPEC" "$tmp/list" | grep -c '[^[:space:]]')
[ "$nbad" -eq 0 ] || echo "bench: $nbad lines of upmu-exporter --list-events are not PMU/terms/, left out" >&2
events=$(paste -sd, "$tmp/events")
[ -n "$events" ] || die "upmu-exporter --list-events listed no event"
nev=$(wc -l < "$tmp/events")
npmu=$(cut -d/ -f1 "$tmp/events" | sort -u | wc -l)

# ticks PID: its utime + stime in clock ticks
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }
usec() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
# scrapes N FILE: N scrapes, one a second, "HTTP_CODE SECONDS" lines into FILE
scrapes() {
	local i next now d
	next=$(usec)
	for ((i = 0; i < $1; i++)); do
		curl -s -o /dev/null -m 10 -w '%{http_code} %{time_total}\n' "$URL/metrics" >> "$2"
		next=$((next + 1000000)) now=$(usec)
		d=$((next - now))
		[ "$d" -le 0 ] || sleep "$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))"
	done
}
# intervals: the intervals perf stat -I has printed so far into $tmp/out
intervals() { awk '$1 ~ /^[0-9]+\.[0-9]+$/ && !($1 in t) { t[$1]; n++ } END { print n + 0 }' "$tmp/out"; }
# until_intervals N PID: until $tmp/out has N intervals (0: PID ended)
until_intervals() {
	while [ "$(intervals)" -lt "$1" ]; do
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
}
# perf_steady: perf stat -I 1000 -a on the events for SECS + 5 s; its CPU
# time (ticks) over SECS intervals after the first, as the exporter's is
# taken over its scrapes after its start: "TICKS INTERVALS"
perf_steady() {
	local pid n0 t0 t1 n1
	"$perf" stat -I 1000 -a -e "$events" -- sleep "$((secs + 5))" > "$tmp/out" 2>&1 &
	pid=$!
	until_intervals 1 "$pid" || { wait "$pid"; return 1; }
	t0=$(ticks "$pid") n0=$(intervals)
	until_intervals "$((n0 + secs))" "$pid" || { wait "$pid"; return 1; }
	t1=$(ticks "$pid") n1=$(intervals)
	wait "$pid" && [ -n "$t0" ] && [ -n "$t1" ] || return 1
	echo "$((t1 - t0)) $((n1 - n0))"
}
perf_failed() {
	tail -n 5 "$tmp/out" | sed 's/^/   perf: /' >&2
	die "perf stat failed"
}
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "== exporter: upmu-exporter scraped once a second against perf stat -I 1000 -a ($perf) on its $nev events of $npmu PMUs, ${secs} s, $rounds rounds (CPU time, ms)"
ratios="" rss_max=0 nsupp=0
: > "$tmp/times"
for r in $(seq "$rounds"); do
	# perf first: the exporter's events are closed, no counter is shared
	pt="" np=""
	read -r pt np < <(perf_steady)
	[ "${np:-0}" -gt 0 ] || perf_failed
	nsupp=$(grep -c '<not supported>\|<not counted>' "$tmp/out")
	exporter_start || die "upmu-exporter does not serve $URL/metrics"
	# its start and first reading are behind it: the scrapes' cost alone
	t0=$(ticks "$epid") fds=$(find "/proc/$epid/fd" -mindepth 1 | wc -l)
	: > "$tmp/round"
	scrapes "$secs" "$tmp/round"
	t1=$(ticks "$epid")
	rss=$(rss_kb "$epid" 2>/dev/null)
	[ -n "$rss" ] || { cat "$tmp/exporter.err" >&2; die "upmu-exporter died while scraped"; }
	[ "$rss" -le "$rss_max" ] || rss_max=$rss
	cat "$tmp/round" >> "$tmp/times"
	nok=$(awk '$1 == 200' "$tmp/round" | wc -l)
	read -r ratio a pi < <(awk -v t="$((t1 - t0))" -v hz="$hz" -v n="$secs" \
		-v pt="$pt" -v np="$np" 'BEGIN {
		a = t * 1000 / hz / n; pi = pt * 1000 / hz / np
		printf "%s %.1f %.1f\n", (pi > 0 ? sprintf("%.2f", a / pi) : "n/a"), a, pi }')
	[ "$ratio" = n/a ] || ratios="$ratios $ratio"
	echo "   round $r: upmu-exporter $(( (t1 - t0) * 1000 / hz )) ms for $secs scrapes ($nok ok, $fds fds), ${a} ms a scrape;" \
	     "perf stat $((pt * 1000 / hz)) ms for $np intervals, ${pi} ms an interval: ${ratio}x"
	[ "$r" -eq "$rounds" ] || exporter_stop || echo "   upmu-exporter exited $? on SIGTERM"
done
[ "$nsupp" -eq 0 ] || echo "   perf stat: $nsupp of its events <not supported> or <not counted>"
nscr=$(wc -l < "$tmp/times") nbad=$(awk '$1 != 200' "$tmp/times" | wc -l)
read -r smed smax < <(awk '{ print $2 }' "$tmp/times" | sort -n |
	awk '{ v[NR] = $1 } END { printf "%.3f %.3f\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[NR] }')
# shellcheck disable=SC2086 # lists of ratios
echo "== exporter: upmu-exporter CPU per scrape / perf stat CPU per interval: $([ -n "$ratios" ] && median $ratios || echo n/a)x" \
     "(median of $(echo $ratios | wc -w) rounds; goal: at most 1x)"
echo "== exporter: scrape duration: median ${smed} s, max ${smax} s over $nscr scrapes, $nbad not 200 (goal: under 0.25 s: $(met "$(awk -v m="$smax" -v b="$nbad" 'BEGIN { print (m < 0.25 && !b) }')"))"
echo "== exporter: VmRSS after the scrapes: $rss_max kB, $(awk -v k="$rss_max" 'BEGIN { printf "%.1f", k / 1024 }') MiB (most of $rounds rounds; goal: under 16 MiB: $(met $((rss_max < 16384))))"

if [ ! -x "$STORM" ]; then
	echo "== exporter storm: skipped: no $STORM (make build/bench/exporter_storm)"
	exit 0
fi
# The storm of the issue: 64 clients scraping, 32 slow ones and 10^4
# malformed requests in STORM s.  Under TCG the guest's loopback takes
# some 350 connections a second, all clients together: what the 64
# scraping clients leave, the malformed requests get.  So the same
# 10^4 malformed requests again, with the slow clients and the scraper
# but not the 64 clients, over 50 s: all of them sent.
alive=0
if storm storm -s "$storm" && storm "malformed storm" -s 50 -c 0; then
	alive=1
fi
if [ "$alive" = 1 ]; then
	exporter_stop
	echo "== exporter storm: upmu-exporter alive and serving after both; exit $? on SIGTERM"
else
	echo "== exporter storm: upmu-exporter NOT serving after the storm"
	tail -n 5 "$tmp/exporter.err" | sed 's/^/   /'
fi
