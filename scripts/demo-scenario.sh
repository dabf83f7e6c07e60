# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The scenario of `make demo`, sourced by scripts/guest-demo.sh (which runs
# it in the demo VM) and by selftests/upmu/demo_test.sh (which runs it with
# shorter windows and checks what it prints).  demo_run does it all.
#
# Every value the demo measures is printed next to its expectation, on one
# line that ends "(expected WANT +/- TOL%)"; the measured value is the word
# before "(expected".  No expectation is written down: demo_rate reads back
# the flows the simulator runs (debugfs "flows": socket, op, size, rate,
# source, destination, hit, latency, PCIe requester, GPU) and applies the
# simulator's model (Documentation/upmu-sim.rst, scripts/demo-model.awk) to
# get how much each perf event counts per second; the expectation of a
# metric is then the same formula as for the measured counts, applied to
# one second of those rates.  demo_check compares the pairs.
#
# Tolerances (percent of the expectation):
#   DEMO_TOL_TIME      5  a count over a time perf measured (bandwidth, per
#                         second, FREQ_IN_GHZ, latency in ns): the counters
#                         follow sim time (CLOCK_MONOTONIC); perf's run time
#                         starts and stops a little apart from them, more so
#                         when a loaded host stalls the VM.
#   DEMO_TOL_RATIO     1  a ratio of two counts of one perf stat group
#                         (requests per cycle, latency in cycles): the
#                         group's counters start and stop together; only the
#                         flows' rounding down to whole transactions is left.
#                         Also the AUX stream's rates: the first and the
#                         last sample's values over their device time
#                         stamps in perf time, each commit's pair of clocks
#                         read to a microsecond (Documentation/upmu-nic-aux.rst).
#   DEMO_TOL_INTERVAL 10  a count per second over perf stat -I's intervals:
#                         perf reads each interval's counts when its timer
#                         fires, on the PMU's CPU (an IPI for the other
#                         socket), which a loaded, emulated machine delays
#                         by up to a tenth of a second.
#   DEMO_TOL_TOOL     10  a metric upmu-metrics or upmu-iostat computed, and
#                         perf's own Intel metrics and counts over its
#                         duration_time (the DDIO section): perf measures
#                         duration_time from after it has enabled the
#                         counters, later in a slow (debug) guest.
#                         upmu-metrics reads its group
#                         while it counts, one counter after the other (each
#                         a walk over the link's instances in the simulator),
#                         which on a loaded, emulated debug kernel spans tens
#                         of milliseconds of the window.
#   DEMO_TOL_EXACT     0  what the NIC's firmware put in its samples (upmu-
#                         diag's CSV): each sample is taken at its own time
#                         on the device clock, whenever it is read, so a
#                         value's increase from one sample to the next is
#                         the flows' rate times the period, exactly.
#
# Needs: DEMO_TOP (the source tree), PERF, and the modules loaded (upmu_nic
# and upmu_icx too); optional DEMO_METRICS, DEMO_PCIMAP, DEMO_DIAG and
# DEMO_IOSTAT (the tools), UPMU_PERF (perf 7.2, for its own I/O metrics).  Shell
# and one awk per step: a process start costs much in the (emulated, debug)
# guest.
# DEMO_SHOW=0 leaves out what prints no measured value next to an expectation
# (perf list, the document's verbatim commands, upmu-pcimap).
# Windows: DEMO_SECS (s, each perf stat -x and upmu-metrics, default 2),
# DEMO_WINDOW (s of counting of each of the document's verbatim commands
# once perf has started, then SIGINT; default 5), DEMO_INTERVALS (1 s
# intervals of perf stat -I, default 3, at least 2).

DEMO_TOL_TIME=5
DEMO_TOL_RATIO=1
DEMO_TOL_INTERVAL=10
DEMO_TOL_TOOL=10
DEMO_TOL_EXACT=0
DEMO_SECS=${DEMO_SECS:-2}
DEMO_WINDOW=${DEMO_WINDOW:-5}
DEMO_INTERVALS=${DEMO_INTERVALS:-3}
DEMO_ID=${DEMO_ID:-1}
D=/sys/kernel/debug/upmu_sim/$DEMO_ID
# The NIC, a device of its own: its serial, hence its PMU's and its PFs'
# names, is the simulator's 0x4e1c0000 + ID (Documentation/upmu-nic.rst).
DEMO_NIC_ID=${DEMO_NIC_ID:-$((DEMO_ID + 1))}
DN=/sys/kernel/debug/upmu_sim/$DEMO_NIC_ID
DEMO_NIC_SERIAL=$(printf '%08x' $((0x4e1c0000 + DEMO_NIC_ID)))
DEMO_NIC_PMU=upmu_nic_$DEMO_NIC_SERIAL
# A device clock of 2^20 kHz, on which the sample period of 2^27 clocks is
# 128 ms: each flow below sends a whole number of events in it.
DEMO_NIC_NEW="$DEMO_NIC_ID 1 blocks=nic nic_khz=1048576"
DEMO_NIC_PERIOD=128000000

# The DDIO scenario: a simulated 2-socket Ice Lake-X (a device of its own)
# whose NIC-like device below socket 0's IIO stack 1 (0000:2b:00.0) writes
# 64-byte lines into the L3: 4M a second allocate there (DDIO hits), 1M
# miss it and go to DRAM.
DEMO_ICX_ID=${DEMO_ICX_ID:-$((DEMO_ID + 2))}
DI=/sys/kernel/debug/upmu_sim/$DEMO_ICX_ID
DEMO_ICX_BDF=0000:2b:00.0
DEMO_ICX_FLOWS=(
	"add id=1 socket=0 stack=1 part=0 op=wr size=64 rate=4000000 hit=1"
	"add id=2 socket=0 stack=1 part=0 op=wr size=64 rate=1000000"
)

# The flows of the scenario: traffic on both sockets, then GPU traffic.
DEMO_FLOWS=(
	"add id=1 socket=0 op=rd size=64  rate=20000000 src=loc_cpu    dst=loc_cmem lat=120"
	"add id=2 socket=0 op=wr size=64  rate=10000000 src=loc_cpu    dst=loc_cmem"
	"add id=3 socket=0 op=rd size=128 rate=5000000  src=loc_noncpu dst=rem hit=1"
	"add id=4 socket=1 op=rd size=256 rate=4000000  src=rem        dst=loc_gmem"
	"add id=5 socket=1 op=wr size=64  rate=2000000  src=loc_noncpu dst=rem"
	"add id=6 socket=0 op=rd size=256 rate=1000000  rc=4 bdf=0x0180 lat=500"
)
DEMO_C2C_FLOWS=(
	"add id=7 socket=0 op=rd size=128 rate=2000000 src=loc_noncpu gpu=1 lat=300"
	"add id=8 socket=0 op=rd size=64  rate=3000000 dst=loc_gmem gpu=0 lat=800"
)

# The NIC's flows: packets on two ports, CQEs of a function, PCIe writes
# toward the NIC and reads with their latency.
DEMO_NIC_FLOWS=(
	"add id=1 rate=1000000 ev=rx port=0 prio=0 size=1000"
	"add id=2 rate=250000  ev=tx port=1 prio=3 size=1500"
	"add id=3 rate=2000000 ev=rx_cqe func=1"
	"add id=4 rate=500000  ev=pcie_in link=0 size=256"
	"add id=5 rate=100000  ev=pcie_read link=0 lat=800"
)
# The data IDs shown, as perf events of the NIC's PMU and as upmu-diag's
# CSV columns (the generated names of Documentation/upmu-diag.rst).
DEMO_NIC_EVENTS=(
	"port_rx_bytes,port=0 port_rx_bytes.p0"
	"port_prio_tx_packets,port=1,prio=3 port_prio_tx_packets.p1.prio3"
	"func_rx_cqe,func=1 func_rx_cqe.f1"
	"pcie_in_bytes,link=0 pcie_in_bytes.l0"
	"pcie_rd_lat_total_ns,link=0 pcie_rd_lat_total_ns.l0"
)

say() { printf '\n\033[1m### %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

# demo_split EVENTS: DEMO_EVS=(the events of a perf -e argument "{a/../,b/../}")
demo_split() {
	local s=${1#\{} ev=""
	s=${s%\}}
	DEMO_EVS=()
	while [ -n "$s" ]; do	# an event ends with "/", then "," or the end
		ev=${s%%/,*}
		if [ "$ev" = "$s" ]; then DEMO_EVS+=("$s"); break; fi
		DEMO_EVS+=("$ev/")
		s=${s#"$ev"/,}
	done
}

# demo_resolve EVENT: R_PMU, R_NAME, R_TERMS of PMU/TERMS/ (event=N becomes
# the name sysfs gives N; R_TERMS the other terms, comma-separated, or "-")
demo_resolve() {
	local t f c code
	local -a list

	R_PMU=${1%%/*} R_NAME="?" R_TERMS=""
	t=${1#*/}
	IFS=, read -ra list <<<"${t%/}"
	for t in "${list[@]}"; do
		case $t in
		event=*)
			code=$((${t#event=}))
			for f in "/sys/bus/event_source/devices/$R_PMU"/events/*; do
				[[ ${f##*/} == *.* ]] && continue
				read -r c < "$f"
				[ "$((${c#event=}))" = "$code" ] && R_NAME=${f##*/}
			done ;;
		*=*) R_TERMS+=${R_TERMS:+,}$t ;;
		*) R_NAME=$t ;;
		esac
	done
	R_TERMS=${R_TERMS:--}
}

# demo_rates EVENT...: DEMO_RATE[i] = what the i-th perf event counts per
# second by the simulator's model of the running flows ("?" if the model
# does not cover it), DEMO_FROM[i] = "ID:COUNT ..." the flows it comes from
demo_rates() {
	local ev q="" peer clk l i=0
	local -a lines files=("$D/flows")

	for ev in "$@"; do
		demo_resolve "$ev"
		peer=0
		[ ! -r "/sys/bus/event_source/devices/$R_PMU/peer" ] ||
			read -r peer < "/sys/bus/event_source/devices/$R_PMU/peer"
		[[ $peer == nr_gpu=* ]] && peer=${peer#nr_gpu=} || peer=0
		q+="$R_PMU $R_NAME $R_TERMS $peer"$'\n'
	done
	read -r clk < "$D/clock_mhz"
	# the NIC's flows too, while it exists
	[ ! -r "$DN/nic/flows" ] || files+=("$DN/nic/flows")
	mapfile -t lines < <(awk -f "$DEMO_TOP/scripts/demo-model.awk" -v clk="$clk" \
		-v queries="${q%$'\n'}" "${files[@]}")
	DEMO_RATE=() DEMO_FROM=()
	for l in "${lines[@]}"; do
		DEMO_RATE[i]=${l%%$'\t'*} DEMO_FROM[i]=${l#*$'\t'}
		i=$((i + 1))
	done
}

# demo_truth EVENT...: the model's count per second of each event, and the
# flows it comes from
demo_truth() {
	local i c evs=("$@")

	demo_rates "$@"
	for i in "${!DEMO_RATE[@]}"; do
		printf '  %-58s %12s/s' "${evs[i]}" "${DEMO_RATE[i]}"
		c=${DEMO_FROM[i]// / + flow }
		[ -z "$c" ] || printf ' = flow %s' "${c//:/: }"
		echo
	done
}

# demo_metrics KIND "NAME=COUNT ..." NS "NAME=RATE ..." [TIME_TOL RATIO_TOL]: the Tegra410
# document's metrics of the KIND PMU (ucf, cmem, pcie, c2c) from the counts
# of NS ns, and the same metrics of one second of the rates, for the
# metrics whose events are given.  One "METRIC GOT WANT TOL" a line,
# formatted; "-" for a zero denominator or a missing count.  A count
# ending in MiB (perf's unit for byte events) is converted back to bytes.
demo_metrics() {
	awk -v kind="$1" -v got="$2" -v ns="$3" -v want="$4" \
	    -v tt="${5:-$DEMO_TOL_TIME}" -v tr="${6:-$DEMO_TOL_RATIO}" '
	function load(s, a,   n, i, kv, k, v) {
		n = split(s, kv, " ")
		for (i = 1; i <= n; i++) {
			k = substr(kv[i], 1, index(kv[i], "=") - 1)
			v = substr(kv[i], index(kv[i], "=") + 1)
			if (v ~ /^[0-9.]+MiB$/) v = substr(v, 1, length(v) - 3) * 1048576
			a[k] = v ~ /^[0-9.e+-]+$/ ? v + 0 : "-"
		}
	}
	# metric NAME = A / B, printed with FMT, tolerance TOL
	function def(k, name, fmt, tol, a, b) {
		if (k != kind) return
		nm++; m[nm] = name; mf[nm] = fmt; mt[nm] = tol; ma[nm] = a; mb[nm] = b
	}
	function calc(v, r,   i, x, y) {
		for (i = 1; i <= nm; i++) {
			if (!(ma[i] in v) || !(mb[i] in v)) continue
			x = v[ma[i]]; y = v[mb[i]]
			v[m[i]] = r[i] = (x == "-" || y == "-" || y == 0) ? "-" : x / y
		}
	}
	BEGIN {
		def("ucf", "AVG_SLC_READ_BANDWIDTH_IN_GBPS", "%.3f", tt, "slc_bytes_rd", "ns")
		def("ucf", "AVG_SLC_WRITE_BANDWIDTH_IN_GBPS", "%.3f", tt, "slc_bytes_wr", "ns")
		def("ucf", "AVG_MEM_READ_BANDWIDTH_IN_GBPS", "%.3f", tt, "mem_bytes_rd", "ns")
		def("ucf", "AVG_MEM_WRITE_BANDWIDTH_IN_GBPS", "%.3f", tt, "mem_bytes_wr", "ns")
		def("ucf", "AVG_SLC_READ_REQUEST_RATE", "%.6f", tr, "slc_access_rd", "cycles")
		def("ucf", "AVG_SLC_WRITE_REQUEST_RATE", "%.6f", tr, "slc_access_wr", "cycles")
		def("ucf", "AVG_MEM_READ_REQUEST_RATE", "%.6f", tr, "mem_access_rd", "cycles")
		def("ucf", "AVG_MEM_WRITE_REQUEST_RATE", "%.6f", tr, "mem_access_wr", "cycles")
		def("cmem", "FREQ_IN_GHZ", "%.3f", tt, "cycles", "ns")
		def("cmem", "AVG_LATENCY_IN_CYCLES", "%.1f", tr, "rd_cum_outs", "rd_req")
		def("cmem", "AVERAGE_LATENCY_IN_NS", "%.1f", tt, "AVG_LATENCY_IN_CYCLES", "FREQ_IN_GHZ")
		def("cmem", "READ_REQUESTS_PER_SECOND", "%.0f", tt, "rd_req", "s")
		def("pcie", "AVG_RD_BANDWIDTH_IN_GBPS", "%.3f", tt, "rd_bytes", "ns")
		def("pcie", "AVG_WR_BANDWIDTH_IN_GBPS", "%.3f", tt, "wr_bytes", "ns")
		def("pcie", "AVG_RD_REQUEST_RATE", "%.6f", tr, "rd_req", "cycles")
		def("pcie", "AVG_WR_REQUEST_RATE", "%.6f", tr, "wr_req", "cycles")
		def("pcie", "FREQ_IN_GHZ", "%.3f", tt, "cycles", "ns")
		def("pcie", "AVG_LATENCY_IN_CYCLES", "%.1f", tr, "rd_cum_outs", "rd_req")
		def("pcie", "AVERAGE_LATENCY_IN_NS", "%.1f", tt, "AVG_LATENCY_IN_CYCLES", "FREQ_IN_GHZ")
		def("c2c", "C2C_FREQ_IN_GHZ", "%.3f", tt, "cycles", "ns")
		for (i = 0; i < 4; i++) {
			d = i < 2 ? "IN" : "OUT"; o = i % 2 ? "WR" : "RD"; e = tolower(d "_" o)
			def("c2c", d "_" o "_AVG_LATENCY_IN_CYCLES", "%.1f", tr, e "_cum_outs", e "_req")
			def("c2c", d "_" o "_AVG_LATENCY_IN_NS", "%.1f", tt, d "_" o "_AVG_LATENCY_IN_CYCLES", "C2C_FREQ_IN_GHZ")
		}
		load(got, g); load(want, w)
		if (ns ~ /^[0-9]+$/) { g["ns"] = ns + 0; g["s"] = ns / 1e9 }
		w["ns"] = 1e9; w["s"] = 1
		calc(g, gr); calc(w, wr)
		for (i = 1; i <= nm; i++) {
			if (!(i in wr)) continue
			a = (i in gr) && gr[i] != "-" ? sprintf(mf[i], gr[i]) : "-"
			b = wr[i] != "-" ? sprintf(mf[i], wr[i]) : "-"
			print m[i], a, b, mt[i]
		}
	}'
}

# demo_pairs: "METRIC GOT WANT TOL" lines as the demo prints them
demo_pairs() {
	awk '{ printf "%-32s = %-12s (expected %s +/- %s%%)\n", $1, $2, $3, $4 }'
}

# demo_formulas KIND EVENTS: perf stat -x, of the group EVENTS for
# DEMO_SECS; each event's count per second of the time it ran (but cycles,
# whose rate is the FREQ metric), then the document's metrics.  An event's
# own terms may contain commas: its line is "COUNT,UNIT,EVENT,RUNTIME,...".
demo_formulas() {
	local kind=$1 evs=$2 out=$DEMO_DIR/formulas got="" want="" ns="" rows=""
	local line pre post c i

	demo_split "$evs"
	printf "$ perf stat -a -x, -e '%s' -- sleep %s\n" "$evs" "$DEMO_SECS"
	"$PERF" stat -a -x, -o "$out" -e "$evs" -- sleep "$DEMO_SECS"
	demo_rates "${DEMO_EVS[@]}"
	while read -r line; do
		[[ $line == \#* || -z $line ]] && continue
		echo "$line"
		for i in "${!DEMO_EVS[@]}"; do
			[[ $line == *",${DEMO_EVS[i]},"* ]] || continue
			demo_resolve "${DEMO_EVS[i]}"
			pre=${line%%",${DEMO_EVS[i]},"*}
			post=${line#*",${DEMO_EVS[i]},"}
			c=${pre%%,*}
			c=${c// /_}${pre#*,}
			got+="$R_NAME=$c "
			want+="$R_NAME=${DEMO_RATE[i]} "
			if [ "$R_NAME" = cycles ]; then
				ns=${post%%,*}
			else
				rows+="${DEMO_EVS[i]} $c ${post%%,*} ${DEMO_RATE[i]}"$'\n'
			fi
		done
	done < "$out"
	printf '%s' "$rows" | awk -v tol="$DEMO_TOL_TIME" '{
		c = $2; mib = c ~ /MiB$/
		if (mib) c = substr(c, 1, length(c) - 3) * 1048576
		got = c ~ /^[0-9.e+]+$/ && $3 ~ /^[0-9]+$/ && $3 > 0 ? c * 1e9 / $3 : "-"
		printf "%s per second = %s (expected %s +/- %s%%)\n", $1,
			got == "-" ? got : sprintf("%.0f", got),
			$4 ~ /^[0-9]+$/ ? $4 : "?", tol
	}'
	printf '%-32s = %s\n' ELAPSED_TIME_IN_NS "${ns:--}"
	demo_metrics "$kind" "$got" "$ns" "$want" | demo_pairs
}

# demo_wait_events PID: wait (up to 120 s) until process PID has opened a
# perf event (a read that times out on a FIFO nobody writes is a sleep
# without a process)
demo_wait_events() {
	local i

	for ((i = 0; i < 240; i++)); do
		[ -n "$(find "/proc/$1/fd" -lname 'anon_inode:\[perf_event\]' -print -quit 2>/dev/null)" ] &&
			return 0
		kill -0 "$1" 2>/dev/null || return 1
		read -rt 0.5 -u "$DEMO_NAP" _
	done
	return 1
}

# demo_per_second OUT TOL: for the events DEMO_EVS, their counts per second
# in perf stat -I output OUT, next to their rates DEMO_RATE.  Only the
# intervals between the first and the last count: perf starts the clock of
# the first interval after it has enabled the counters, and reads the last,
# partial one after it has disabled them, both of which take long enough in
# the debug guest to inflate them.
demo_per_second() {
	local IFS=$'\n'
	awk -v evs="${DEMO_EVS[*]}" -v rates="${DEMO_RATE[*]}" -v tol="$2" '
	BEGIN { n = split(evs, e, "\n"); split(rates, r, "\n") }
	$1 ~ /^[0-9.]+$/ {
		for (j = 1; j <= n; j++) {
			if ($NF != e[j]) continue
			c = $2
			gsub(",", "", c)
			k = ++rows[j]; t[j, k] = $1; cnt[j, k] = c
			if ($3 == "MiB") mib[j] = 1
		}
	}
	END {
		for (j = 1; j <= n; j++) {
			sum = 0; bad = rows[j] < 3
			for (k = 2; k < rows[j]; k++) {
				if (cnt[j, k] !~ /^[0-9.]+$/) bad = 1
				sum += cnt[j, k]
			}
			el = bad ? 0 : t[j, rows[j] - 1] - t[j, 1]
			got = el > 0 ? sum / el : "-"
			want = r[j]
			if (mib[j]) { want = want / 1048576; unit = " MiB" } else unit = ""
			fmt = mib[j] ? "%.1f" : "%.0f"
			printf "%s%s per second = %s (expected %s +/- %s%%)\n", e[j], unit,
				got == "-" ? got : sprintf(fmt, got),
				want ~ /^[0-9.e+]+$/ ? sprintf(fmt, want) : want, tol
		}
	}' "$1"
}

# demo_verbatim EVENTS: the document's "perf stat -a -e EVENTS", which counts
# until interrupted: SIGINT once it has counted DEMO_WINDOW s (perf takes
# seconds to start on the debug kernel).  Its counts are the document's
# output; the rates are checked by demo_formulas, from each event's run time.
demo_verbatim() {
	local evs=$1 out=$DEMO_DIR/verbatim pid

	[ "${DEMO_SHOW:-1}" != 0 ] || return 0
	printf '$ perf stat -a -e %s\n' "$evs"
	"$PERF" stat -a -e "$evs" 2>"$out" &
	pid=$!
	demo_wait_events $pid && sleep "$DEMO_WINDOW"
	kill -INT $pid 2>/dev/null
	wait $pid
	cat "$out"
}

# demo_interval EVENTS: perf stat -I 1000 for DEMO_INTERVALS s, then each
# event's count per second over the intervals between the first and the last
demo_interval() {
	local evs=$1 out=$DEMO_DIR/interval

	demo_split "$evs"
	printf '$ perf stat -I 1000 -a -e %s -- sleep %s\n' "$evs" "$DEMO_INTERVALS"
	"$PERF" stat -I 1000 -a -e "$evs" -- sleep "$DEMO_INTERVALS" 2>&1 | tee "$out"
	demo_rates "${DEMO_EVS[@]}"
	demo_per_second "$out" "$DEMO_TOL_INTERVAL"
}

# demo_tool_metrics PMU KIND: upmu-metrics on PMU for DEMO_SECS, each metric
# with its expectation from the rates of the PMU's events (DEMO_TOL_TOOL)
demo_tool_metrics() {
	local pmu=$1 kind=$2 out=$DEMO_DIR/tool e want="" i=0

	run "$DEMO_METRICS" --timeout "$((DEMO_SECS * 1000))" "$pmu" > "$out"
	DEMO_EVS=()
	for e in "/sys/bus/event_source/devices/$pmu"/events/*; do
		[[ ${e##*/} == *.* ]] || DEMO_EVS+=("$pmu/${e##*/}/")
	done
	demo_rates "${DEMO_EVS[@]}"
	for e in "${DEMO_EVS[@]}"; do
		e=${e%/}
		want+="${e##*/}=${DEMO_RATE[i]} "
		i=$((i + 1))
	done
	demo_metrics "$kind" "" "" "$want" "$DEMO_TOL_TOOL" "$DEMO_TOL_TOOL" | awk -v out="$out" '
	{ w[$1] = $3; t[$1] = $4 }
	END {
		while ((getline l < out) > 0) {
			split(l, f)
			if (f[2] in w) l = sprintf("%s   (expected %s +/- %s%%)", l, w[f[2]], t[f[2]])
			print l
		}
	}'
}

# demo_wait TEST...: wait (up to 30 s) until the command TEST... succeeds
# (a device's PMU and fwctl nodes appear when its driver has probed it)
demo_wait() {
	local i

	for ((i = 0; i < 60; i++)); do
		! "$@" || return 0
		read -rt 0.5 -u "$DEMO_NAP" _
	done
	echo "timed out waiting for: $*"
	return 1
}

# demo_diag_steps CSV EXPECT...: from upmu-diag's CSV (format 1: sample_id,
# first and last timestamp, a column per data ID), the increase of the
# first timestamp and of each column from one sample to the next; EXPECT
# the increase each should have, in the order of the columns.  An increase
# is printed when it is the same between every two consecutive samples
# (else "MIN..MAX", never within a tolerance), "-" when fewer than two
# samples follow each other.
demo_diag_steps() {
	awk -F, -v want="${*:2}" -v tol="$DEMO_TOL_EXACT" -v period="$DEMO_NIC_PERIOD" '
	NR == 1 { n = NF; for (j = 2; j <= NF; j++) col[j] = $j; next }
	{
		if (NR > 2 && $1 == sid + 1)
			for (j = 2; j <= n; j++) {
				if (j == 3) continue
				d = $j - prev[j]
				if (!(j in lo) || d < lo[j]) lo[j] = d
				if (!(j in hi) || d > hi[j]) hi[j] = d
			}
		sid = $1
		for (j = 2; j <= n; j++) prev[j] = $j
	}
	END {
		split(want, w, " ")
		for (j = 2; j <= n; j++) {
			if (j == 3) continue
			got = !(j in lo) ? "-" : lo[j] == hi[j] ? lo[j] : lo[j] ".." hi[j]
			printf "  %-32s %s = %s (expected %s +/- %s%%)\n", col[j],
				j == 2 ? "step" : "per sample", got, j == 2 ? period : w[j - 3], tol
		}
	}' "$1"
}

# demo_diag: upmu-diag samples the NIC's data IDs through fwctl into CSV
# for a second, then each column's increase per sample against the flows
demo_diag() {
	local csv=$DEMO_DIR/nic.csv ids=$DEMO_DIR/nic-ids.json e r json=""
	local -a nevs=() nwant=()

	if [ -z "${DEMO_DIAG:-}" ]; then
		echo "upmu-diag is not built (make tools): no CSV"
		return 0
	fi
	if [ ! -d /sys/class/fwctl ]; then
		echo "This kernel ($(uname -r)) has no fwctl (Linux 6.15 and later): the NIC's"
		echo "firmware, and upmu-diag with it, cannot be reached from user space here;"
		echo "its data IDs are counted through its perf PMU (perf stat -I above)."
		return 0
	fi
	for e in "${DEMO_NIC_EVENTS[@]}"; do
		json+=${json:+, }\"${e#* }\"
		nevs+=("$DEMO_NIC_PMU/${e%% *}/")
	done
	echo "[$json]" > "$ids"
	# the fwctl nodes of the NIC's PFs (their serial in sysfs)
	demo_wait grep -qsx "$DEMO_NIC_SERIAL" /sys/class/fwctl/fwctl*/device/serial || return 1
	run cat "$ids"
	# repetitive mode, period 2^27 clocks, format 1 (64-bit values), 1 s
	run "$DEMO_DIAG" -p "$DEMO_NIC_SERIAL.0" -di "$ids" -sm 1 -sp "$DEMO_NIC_PERIOD" \
		-of 1 -rt 1 -o "$csv"
	run cat "$csv"
	demo_rates "${nevs[@]}"
	for r in "${DEMO_RATE[@]}"; do
		# a whole number of events per period: the rates are whole per ms
		[[ $r =~ ^[0-9]+$ ]] && nwant+=("$((r * DEMO_NIC_PERIOD / 1000000000))") || nwant+=("?")
	done
	echo "Increase from one sample to the next ($((DEMO_NIC_PERIOD / 1000000)) ms on the device's clock; what the flows give in it):"
	demo_diag_steps "$csv" "${nwant[@]}"
}

# demo_aux: perf record of the NIC's diagnostic samples as an AUX stream
# (upmu_nicdiag_<serial>, the port_traffic profile, a sample per 2^20 ns),
# with the perf of the project's patch series (UPMU_PERF, built by
# scripts/perfbuild.sh); perf script's samples, interleaved with
# sched_switch, its summary, and each data ID's rate from the first and the
# last sample against the flows'
demo_aux() {
	local pmu=upmu_nicdiag_$DEMO_NIC_SERIAL data=$DEMO_DIR/aux.data
	local out=$DEMO_DIR/aux.txt i
	local -a evs=("port_rx_bytes,port=0 port_rx_bytes.p0" "port_rx_packets,port=0 port_rx_packets.p0"
		      "port_tx_bytes,port=1 port_tx_bytes.p1" "port_tx_packets,port=1 port_tx_packets.p1")

	if [ -z "${UPMU_PERF:-}" ] || ! "$UPMU_PERF" version >/dev/null 2>&1; then
		echo "No perf with the project's patch series here (scripts/perfbuild.sh builds it;"
		echo "UPMU_PERF names it): the AUX stream is not shown."
		return 0
	fi
	printf '$ perf record -q -o aux.data -a -e sched:sched_switch,%s/port_traffic,dev_period=20/ -c 100000000 -- sleep 1
' "$pmu"
	"$UPMU_PERF" record -q -o "$data" -a -e "sched:sched_switch,$pmu/port_traffic,dev_period=20/" \
		-c 100000000 -- sleep 1 || return 1
	# (its summary on stderr, apart: stdout is flushed in blocks)
	"$UPMU_PERF" script -i "$data" -F cpu,time,event,synth > "$out" 2> "$out.err" || return 1
	echo '$ perf script -i aux.data -F cpu,time,event,synth | head'
	awk '/upmu-nic-diag|sched_switch/ && n < 8 { print; n++ }' "$out" | cut -c1-150
	echo '...'
	grep '^upmu-nic:' "$out.err"
	for i in "${!evs[@]}"; do
		demo_rates "$DEMO_NIC_PMU/${evs[i]%% *}/"
		awk -v name="${evs[i]#* }" -v want="${DEMO_RATE[0]}" -v tol="$DEMO_TOL_RATIO" '
		$3 == "upmu-nic-diag:" {
			t = $2; sub(/:$/, "", t)
			for (j = 6; j < NF; j++) if ($j == name) v = $(j + 1)
			if (!n++) { t0 = t; v0 = v }
			t1 = t; v1 = v
		}
		END {
			got = n > 1 && t1 > t0 ? sprintf("%.0f", (v1 - v0) / (t1 - t0)) : "-"
			printf "  %-22s per second = %s (expected %s +/- %s%%)\n", name, got, want, tol
		}' "$out"
	done
}

# demo_perf_metrics PERF METRICS WANTS: perf stat -M METRICS (perf's own
# Intel metrics, comma-separated) for DEMO_SECS, in one run; WANTS is
# "NAME=WANT:TOL ...": an event's count per second of duration_time, or a
# metric's value, against WANT
demo_perf_metrics() {
	local out=$DEMO_DIR/metric

	printf '$ %sperf stat -a -M %s -- sleep %s\n' "${PERF_CPUID:+PERF_CPUID=$PERF_CPUID }" "$2" "$DEMO_SECS"
	"$1" stat -a -x, -o "$out" -M "$2" -- sleep "$DEMO_SECS"
	grep -v '^#' "$out" | grep .
	awk -F, -v wants="$3" '
	BEGIN {
		n = split(wants, w, " ")
		for (i = 1; i <= n; i++) {
			k[i] = substr(w[i], 1, index(w[i], "=") - 1)
			split(substr(w[i], index(w[i], "=") + 1), e, ":")
			want[i] = e[1]; tol[i] = e[2]
		}
	}
	$3 == "duration_time" { ns = $1 }
	$3 ~ /^UNC_/ { cnt[$3] = $1 }
	{ m = $7; sub(/^[^ ]* +/, "", m); if (m != "") val[m] = $6 }
	END {
		for (i = 1; i <= n; i++) {
			if (k[i] ~ /^UNC_/) {
				got = "-"
				if (ns > 0 && cnt[k[i]] ~ /^[0-9]+$/)
					got = sprintf("%.0f", cnt[k[i]] * 1e9 / ns)
				printf "%s per second = %s (expected %s +/- %s%%)\n", k[i], got, want[i], tol[i]
			} else {
				got = (k[i] in val) ? val[k[i]] : "-"
				printf "%-32s = %-12s (expected %s +/- %s%%)\n", k[i], got, want[i], tol[i]
			}
		}
	}' "$out"
}

# demo_ddio_model: the DDIO scenario's expectations, per second, by the
# simulator's model (scripts/demo-model.awk on the device's flows; the
# model's arithmetic: Documentation/upmu-sim.rst): in DDIO_E[NAME], the
# counts of perf's events (every socket's boxes, as perf adds them up) and
# the values of the metrics shown, in MB/s and %; DDIO_SOCKET is the
# socket of the device DEMO_ICX_BDF.
demo_ddio_model() {
	local q="" l e r bus dev fn
	local tor=(IO_HIT_ITOM IO_MISS_ITOM IO_HIT_ITOMCACHENEAR IO_MISS_ITOMCACHENEAR)
	local -a lines

	DDIO_SOCKET=$(sed -n "s/^$DEMO_ICX_BDF endpoint socket=\([0-9]*\) .*/\1/p" "$DI/pci_devices")
	[ -n "$DDIO_SOCKET" ] || { echo "demo: $DEMO_ICX_BDF is not in $DI/pci_devices"; return 1; }
	IFS=':.' read -r _ bus dev fn <<<"$DEMO_ICX_BDF"
	# perf's totals, then the device's socket (upmu-iostat's l3 and dram)
	for e in "${tor[@]}"; do q+="uncore_cha UNC_CHA_TOR_INSERTS.$e - 0"$'\n'; done
	q+="uncore_imc UNC_M_CAS_COUNT.WR - 0"$'\n'
	for e in "${tor[@]}"; do q+="uncore_cha UNC_CHA_TOR_INSERTS.$e socket=$DDIO_SOCKET 0"$'\n'; done
	q+="uncore_imc UNC_M_CAS_COUNT.WR socket=$DDIO_SOCKET 0"$'\n'
	q+="uncore_iio UNC_IIO_DATA_REQ_OF_CPU.MEM_WRITE bdf=$(printf '0x%04x' \
		$(((0x$bus << 8) | (0x$dev << 3) | 0x$fn))) 0"
	mapfile -t lines < <(awk -f "$DEMO_TOP/scripts/demo-model.awk" -v clk=0 -v sockets=2 \
		-v queries="$q" "$DI/flows")
	for l in "${lines[@]}"; do
		[ "${l%%$'\t'*}" != "?" ] || { echo "demo: the model: ${l#*$'\t'}"; return 1; }
	done
	[ ${#lines[@]} = 11 ] || { echo "demo: the model gave ${#lines[@]} values, not 11"; return 1; }
	r=$(printf '%s\n' "${lines[@]%%$'\t'*}" | awk '
		{ v[NR] = $1 }
		END {
			lines = v[1] + v[2] + v[3] + v[4]; sl = v[6] + v[7] + v[8] + v[9]
			printf "UNC_CHA_TOR_INSERTS.IO_HIT_ITOM=%d UNC_CHA_TOR_INSERTS.IO_MISS_ITOM=%d ", v[1], v[2]
			printf "UNC_M_CAS_COUNT.WR=%d memory_bandwidth_write=%.1f ", v[5], v[5] * 64 / 1e6
			printf "io_bandwidth_disk_or_network_reads=%.1f io_bandwidth_write=%.1f ", \
				lines * 64 / 1e6, lines * 64 / 1e6
			printf "io_full_write_l3_miss=%.1f ", v[1] + v[2] ? 100 * v[2] / (v[1] + v[2]) : 0
			# IRP WR_PREF, the lines of inbound writes: every one of
			# them an ITOM or ITOMCACHENEAR insert (no lost_fwd here)
			printf "inbound_write_l3_miss=%.3f ", sl ? 100 * (v[7] + v[9]) / sl : 0
			printf "inbound_write_l3_hit=%.3f ", sl ? 100 - 100 * (v[7] + v[9]) / sl : 0
			printf "dram_write_bw=%.3f inbound_write_bw=%.3f", v[10] * 64 / 1e6, v[11] * 4 / 1e6
		}')
	declare -gA DDIO_E=()
	for e in $r; do DDIO_E[${e%%=*}]=${e#*=}; done
}

# demo_ddio_want TOL NAME...: "NAME=VALUE:TOL ..." of DDIO_E's values
demo_ddio_want() {
	local tol=$1 n out=""

	shift
	for n; do out+="${out:+ }$n=${DDIO_E[$n]}:$tol"; done
	echo "$out"
}

# demo_ddio: the Ice Lake-X's DDIO scenario through perf's own Intel event
# and metric names (Debian's perf and, if there, perf 7.2) and upmu-iostat.
# The expectations are the flows' arithmetic by the simulator's model
# (demo_ddio_model): each write of 64 bytes is one ITOM line at a CHA of
# its socket, a hit or a miss; a miss is one CAS write.
demo_ddio() {
	local f vendor perf7="" t0=$SECONDS

	say "DDIO: a device writing into the L3 of a simulated 2-socket Ice Lake-X"
	printf "$ echo '%s 2 soc=icx' > /sys/bus/upmu_sim/new_device\n" "$DEMO_ICX_ID"
	echo "$DEMO_ICX_ID 2 soc=icx" > /sys/bus/upmu_sim/new_device || return 1
	for f in "${DEMO_ICX_FLOWS[@]}"; do
		printf "$ echo '%s' > %s\n" "$f" "$DI/flows"
		echo "$f" > "$DI/flows" || return 1
	done
	demo_ddio_model || return 1
	echo "By the model, per second: ${DDIO_E[inbound_write_bw]} MB/s written by $DEMO_ICX_BDF"
	echo "in lines of 64 B, ${DDIO_E[UNC_CHA_TOR_INSERTS.IO_HIT_ITOM]} ITOM hits in the L3 and" \
		"${DDIO_E[UNC_CHA_TOR_INSERTS.IO_MISS_ITOM]} misses"
	echo "(write L3 miss ${DDIO_E[inbound_write_l3_miss]}%), ${DDIO_E[UNC_M_CAS_COUNT.WR]} CAS writes" \
		"on socket $DDIO_SOCKET's memory channels (${DDIO_E[dram_write_bw]} MB/s)."
	# perf picks its Intel tables by the CPU (GenuineIntel family 6 model
	# 0x6a/0x6c); another guest CPU gets them from PERF_CPUID
	vendor=$(awk -F': ' '/^vendor_id/ { v = $2 } /^model\t/ { m = $2 } END { print v "-" m }' /proc/cpuinfo)
	case $vendor in GenuineIntel-106|GenuineIntel-108) ;;
	*) echo "(this guest's CPU is $vendor, not an Ice Lake-X: PERF_CPUID names one for perf)"
	   export PERF_CPUID=GenuineIntel-6-6A-0 ;;
	esac
	[ -z "${UPMU_PERF:-}" ] || ! "$UPMU_PERF" version >/dev/null 2>&1 || perf7=$UPMU_PERF
	echo "perf's own Ice Lake-X metrics and their events, per second of perf's"
	echo "duration_time (Debian's perf $("$PERF" version | awk '{ print $3 }'); 6.1 swaps the names of its"
	echo "I/O bandwidth metrics: its \"reads\" are the ITOM writes):"
	demo_perf_metrics "$PERF" memory_bandwidth_write,io_bandwidth_disk_or_network_reads \
		"$(demo_ddio_want "$DEMO_TOL_TOOL" UNC_CHA_TOR_INSERTS.IO_HIT_ITOM \
			UNC_CHA_TOR_INSERTS.IO_MISS_ITOM UNC_M_CAS_COUNT.WR memory_bandwidth_write \
			io_bandwidth_disk_or_network_reads)"
	if [ -n "$perf7" ]; then
		echo "and perf 7.2's (the project's build, UPMU_PERF; multiplexed: 6 CHA events"
		echo "on 4 counters, the miss ratio's two in one group):"
		demo_perf_metrics "$perf7" io_bandwidth_write,io_full_write_l3_miss \
			"$(demo_ddio_want "$DEMO_TOL_TOOL" io_bandwidth_write) $(demo_ddio_want \
			"$DEMO_TOL_RATIO" io_full_write_l3_miss)"
	fi
	unset PERF_CPUID
	if [ -n "${DEMO_IOSTAT:-}" ]; then
		echo "VTune's I/O metrics of the device, and of its socket (upmu-iostat):"
		run "$DEMO_IOSTAT" --timeout "$((DEMO_SECS * 1000))" -d "$DEMO_ICX_BDF" \
			-m inbound_write_bw,inbound_write_l3_miss,inbound_write_l3_hit,dram_write_bw \
			> "$DEMO_DIR/iostat"
		cat "$DEMO_DIR/iostat"
		awk -v want="$(demo_ddio_want "$DEMO_TOL_TOOL" inbound_write_bw dram_write_bw) $(
			demo_ddio_want "$DEMO_TOL_RATIO" inbound_write_l3_miss inbound_write_l3_hit)" '
		BEGIN { n = split(want, p, " ")
			for (i = 1; i <= n; i++) {
				split(p[i], kv, "[=:]"); w[kv[1]] = kv[2] " " kv[3]
			} }
		$5 in w { split(w[$5], e, " ")
			  printf "%-32s = %-12s (expected %s +/- %s%%)\n", $5, $6, e[1], e[2] }' "$DEMO_DIR/iostat"
	fi
	run cat "$DI/flows"
	echo "$DEMO_ICX_ID" > /sys/bus/upmu_sim/del_device
	echo "(this section took $((SECONDS - t0)) s)"
}

# demo_nic: a simulated NIC (device DEMO_NIC_ID, created here and deleted
# by demo_run) with traffic; DEMO_NIC_LIST: its events for perf stat -I
demo_nic() {
	local f e

	say "A NIC next to it: ConnectX-like, a simulated device of its own, with traffic"
	printf "$ echo '%s' > /sys/bus/upmu_sim/new_device\n" "$DEMO_NIC_NEW"
	echo "$DEMO_NIC_NEW" > /sys/bus/upmu_sim/new_device || return 1
	demo_wait test -e "/sys/bus/event_source/devices/$DEMO_NIC_PMU" || return 1
	[ "${DEMO_SHOW:-1}" = 0 ] ||
		run cat "/sys/bus/event_source/devices/$DEMO_NIC_PMU/events/port_prio_tx_packets"
	for f in "${DEMO_NIC_FLOWS[@]}"; do
		printf "$ echo '%s' > %s\n" "$f" "$DN/nic/flows"
		echo "$f" > "$DN/nic/flows" || return 1
	done
	DEMO_NIC_LIST=""
	for e in "${DEMO_NIC_EVENTS[@]}"; do
		DEMO_NIC_LIST+=${DEMO_NIC_LIST:+,}$DEMO_NIC_PMU/${e%% *}/
	done
	demo_split "$DEMO_NIC_LIST"
	echo "Counts per second these flows give its data IDs, by the simulator's model"
	echo "(Documentation/upmu-nic.rst; the NIC's PMU counts them, perf stat -I below):"
	demo_truth "${DEMO_EVS[@]}"
}

# demo_check FILE: compare every "(expected" pair printed in FILE; prints
# the pairs outside their tolerance and a summary; fails if any is, or if
# there is none
demo_check() {
	awk '
	/\(expected / {
		n++
		i = index($0, "(expected ")
		k = split(substr($0, 1, i - 1), a, " "); got = a[k]
		split(substr($0, i + 10), b, " "); want = b[1]; tol = b[3]
		sub(/%\)$/, "", tol)
		if (want == "-" || got == "-")
			ok = got == want
		else if (got !~ /^[0-9.e+-]+$/ || want !~ /^[0-9.e+-]+$/ || b[2] != "+/-" || tol !~ /^[0-9.]+$/)
			ok = 0
		else {
			d = got - want
			ok = (d < 0 ? -d : d) <= tol / 100 * (want < 0 ? -want : want)
		}
		if (!ok) { bad++; print "outside tolerance: " $0 }
	}
	END {
		printf "%d measured values, %d outside their tolerance\n", n, bad
		exit !(n > 0 && !bad)
	}' "$1"
}

# demo_run: the whole demo on device DEMO_ID (2 sockets, created and
# deleted here)
demo_run() {
	local f v ucf0=/sys/bus/event_source/devices/nvidia_ucf_pmu_0

	DEMO_DIR=$(mktemp -d)
	mkfifo "$DEMO_DIR/nap"
	exec {DEMO_NAP}<>"$DEMO_DIR/nap"
	say "Create a simulated 2-socket Tegra410 (sockets = NUMA nodes 0 and 1)"
	printf "$ echo '%s 2' > /sys/bus/upmu_sim/new_device\n" "$DEMO_ID"
	echo "$DEMO_ID 2" > /sys/bus/upmu_sim/new_device || return 1
	run sh -c 'ls -d /sys/bus/event_source/devices/nvidia_*'
	for f in cpumask associated_cpus identifier format/event format/src_loc_cpu \
		 events/slc_bytes_rd events/slc_bytes_rd.unit; do
		read -r v < "$ucf0/$f"
		printf '%-26s %s\n' "$f" "$v"
	done
	[ "${DEMO_SHOW:-1}" = 0 ] ||
		run sh -c "$PERF list 2>/dev/null | grep -E 'nvidia_ucf_pmu_0/(slc|mem)_bytes' "

	say "Start traffic (flows: transactions/s of a given size, source and destination)"
	for f in "${DEMO_FLOWS[@]}"; do
		printf "$ echo '%s' > %s\n" "$f" "$D/flows"
		echo "$f" > "$D/flows"
	done
	run cat "$D/flows"
	echo "Counts per second these flows give, by the simulator's model (Documentation/upmu-sim.rst):"
	demo_truth nvidia_ucf_pmu_0/slc_bytes_rd/ nvidia_ucf_pmu_0/slc_bytes_wr/ \
		nvidia_ucf_pmu_0/mem_bytes_rd/ nvidia_ucf_pmu_1/slc_bytes_rd/ \
		nvidia_ucf_pmu_1/slc_access_wr,src_loc_noncpu=1,dst_rem=1/ \
		nvidia_cmem_latency_pmu_0/rd_req/ nvidia_cmem_latency_pmu_0/rd_cum_outs/ \
		nvidia_pcie_pmu_0_rc_4/rd_bytes,src_bdf=0x0180,src_bdf_en=1/
	echo "Every value measured below is followed by what these flows give for it, and"
	echo "the tolerance: $DEMO_TOL_TIME% for values over a time perf measured, $DEMO_TOL_RATIO% for ratios of"
	echo "counts, $DEMO_TOL_INTERVAL% over perf stat -I's intervals and for upmu-metrics, $DEMO_TOL_EXACT% for"
	echo "what the NIC's firmware samples (see scripts/demo-scenario.sh)."

	demo_nic || return 1

	say "Interval mode: perf stat -I 1000 on the SoC's and the NIC's PMUs (live; bytes in MiB per second)"
	demo_interval "nvidia_ucf_pmu_0/slc_bytes_rd/,nvidia_ucf_pmu_0/slc_bytes_wr/,nvidia_ucf_pmu_0/mem_bytes_rd/,nvidia_ucf_pmu_1/slc_bytes_rd/,$DEMO_NIC_LIST"

	say "The document's UCF examples, verbatim (SIGINT after $DEMO_WINDOW s of counting)"
	demo_verbatim 'nvidia_ucf_pmu_0/event=0x0/'
	demo_verbatim 'nvidia_ucf_pmu_0/event=0x0,src_loc_cpu=0x1,dst_loc_cmem=0x1/'
	demo_verbatim 'nvidia_ucf_pmu_1/event=0x0,src_loc_noncpu=0x1,dst_rem=0x1/'

	say "Totals and the document's formulas"
	demo_formulas ucf '{nvidia_ucf_pmu_0/event=0x113/,nvidia_ucf_pmu_0/event=0x114/,nvidia_ucf_pmu_0/event=0x123/,nvidia_ucf_pmu_0/event=0x111/,nvidia_ucf_pmu_0/event=0x0/,nvidia_ucf_pmu_0/event=0x0,src_loc_cpu=0x1,dst_loc_cmem=0x1/,nvidia_ucf_pmu_0/cycles/}'

	say "CMEM latency: the document's example, verbatim, then its formulas"
	demo_verbatim '{nvidia_cmem_latency_pmu_0/rd_req/,nvidia_cmem_latency_pmu_0/rd_cum_outs/,nvidia_cmem_latency_pmu_0/cycles/}'
	demo_formulas cmem '{nvidia_cmem_latency_pmu_0/rd_req/,nvidia_cmem_latency_pmu_0/rd_cum_outs/,nvidia_cmem_latency_pmu_0/cycles/}'

	say "PCIE: the document's BDF example, verbatim, then its formulas"
	demo_verbatim 'nvidia_pcie_pmu_0_rc_4/event=0x4,src_bdf=0x0180,src_bdf_en=0x1/'
	demo_formulas pcie '{nvidia_pcie_pmu_0_rc_4/rd_bytes,src_bdf=0x0180,src_bdf_en=1/,nvidia_pcie_pmu_0_rc_4/rd_req,src_bdf=0x0180,src_bdf_en=1/,nvidia_pcie_pmu_0_rc_4/rd_cum_outs,src_bdf=0x0180,src_bdf_en=1/,nvidia_pcie_pmu_0_rc_4/cycles/}'
	if [ -n "${DEMO_PCIMAP:-}" ] && [ "${DEMO_SHOW:-1}" != 0 ]; then
		say "Which PMU and root port see a PCI function (upmu-pcimap)"
		run "$DEMO_PCIMAP" -s | grep -E '^0005:'
	fi

	say "NVLink-C2C: GPU traffic on socket 0 (two GPUs, the simulator's default)"
	run cat /sys/bus/event_source/devices/nvidia_nvlink_c2c_pmu_0/peer
	for f in "${DEMO_C2C_FLOWS[@]}"; do
		printf "$ echo '%s' > %s\n" "$f" "$D/flows"
		echo "$f" > "$D/flows"
	done
	echo "Counts per second on socket 0's NVLink-C2C, by the model (flow 3 is GPU 0 reading, SLC hits of latency 0):"
	demo_truth nvidia_nvlink_c2c_pmu_0/in_rd_req/ nvidia_nvlink_c2c_pmu_0/in_rd_cum_outs/ \
		nvidia_nvlink_c2c_pmu_0/out_rd_req/ nvidia_nvlink_c2c_pmu_0/out_rd_cum_outs/
	demo_verbatim 'nvidia_nvlink_c2c_pmu_0/in_rd_cum_outs,gpu_mask=0x2/'
	if [ -n "${DEMO_METRICS:-}" ]; then
		demo_tool_metrics nvidia_nvlink_c2c_pmu_0 c2c
	fi

	demo_ddio || return 1

	say "The NIC's diagnostic counters through fwctl: upmu-diag writing CSV"
	demo_diag

	say "The NIC's diagnostic samples as a perf AUX stream: perf record, perf script"
	demo_aux || return 1

	say "Ground truth kept by the simulator"
	run cat "$D/flows"
	[ ! -e "$DN/nic/flows" ] || run cat "$DN/nic/flows"
	[ ! -e "$DN" ] || echo "$DEMO_NIC_ID" > /sys/bus/upmu_sim/del_device
	[ ! -e "$DI" ] || echo "$DEMO_ICX_ID" > /sys/bus/upmu_sim/del_device
	echo "$DEMO_ID" > /sys/bus/upmu_sim/del_device
	exec {DEMO_NAP}<&-
	rm -rf "$DEMO_DIR"
}
