#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu-metrics against the simulator's ground truth: exact latencies and
# request rates on a manual clock, live bandwidth and frequency on the
# realtime clock, "-" for a zero denominator, multiplexed groups flagged,
# CSV shape and errors; every family's metrics against the injected
# traffic.  A fake sysfs tree checks the formulas against the Tegra410
# PMU document and, for C2C, a PMU without write events.
# $UPMU_METRICS is the binary (default: the ASan/UBSan build).
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
M=${UPMU_METRICS:-$top/build/selftests/upmu-metrics}
ID=13
D=/sys/kernel/debug/upmu_sim/$ID
TMP=$(mktemp -d)
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
UCF0=nvidia_ucf_pmu_0 UCF1=nvidia_ucf_pmu_1
CMEM0=nvidia_cmem_latency_pmu_0 CMEM1=nvidia_cmem_latency_pmu_1

n=0
# m NAME ARGS...: run the tool, stdout in $TMP/NAME, stderr in $TMP/NAME.err
m() { local o=$TMP/$1; shift; "$M" "$@" >"$o" 2>"$o.err"; }
# v FILE PMU METRIC: the value column of a CSV row (no interval column)
v() { awk -F, -v p="$2" -v m="$3" '$1 == p && $2 == m { print $3 }' "$TMP/$1"; }
# back FILE PMU METRIC: METRIC * ELAPSED_TIME_IN_NS (bytes from a bandwidth,
# cycles from a frequency)
back() {
	awk -v b="$(v "$1" "$2" "$3")" -v t="$(v "$1" "$2" ELAPSED_TIME_IN_NS)" \
		'BEGIN { printf "%.0f", b * t }'
}
# wait_open PID N: wait (up to 30 s) until process PID holds N perf events
wait_open() {
	local i
	for i in $(seq 300); do
		[ "$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event')" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# rt_try NAME COND MEASURE...: a measurement on the realtime clock.  The
# guest's CPUs are host threads: on a loaded machine one can stall for
# tens of milliseconds in the middle of a measurement, which moves counts
# between reads taken a moment apart.  MEASURE runs (into $TMP/NAME) up
# to 3 times until COND (eval'd) holds; every attempt that missed is
# shown, and an error every attempt makes still fails.  Tolerances stay
# what the measurement can do on an idle machine.
rt_try() {
	local name=$1 cond=$2 i
	shift 2
	for i in 1 2 3; do
		"$@"
		eval "$cond" && return 0
		echo "# $name: attempt $i missed: $(grep -v '^#' "$TMP/$name" | tr '\n' ' ' | head -c 600)"
	done
	return 1
}

tap_plan 53

# --- the formulas, on a fake sysfs tree ------------------------------------

# fake DIR PMU EVENT... : a PMU on the software PMU (type 1), every
# event "event=0x0" (cpu-clock) unless given as NAME=ID
fake() {
	local d=$1/$2 e; shift 2
	mkdir -p "$d/events" "$d/format"
	echo 1 > "$d/type"; echo 0 > "$d/cpumask"; echo config:0-63 > "$d/format/event"
	for e in "$@"; do
		case $e in *=*) echo "event=${e#*=}" > "$d/events/${e%%=*}" ;;
		*) echo "event=0x0" > "$d/events/$e" ;; esac
	done
}
F=$TMP/fake-all
fake $F nvidia_ucf_pmu_0 slc_bytes_rd slc_bytes_wr mem_bytes_rd mem_bytes_wr slc_access_rd \
	slc_access_wr mem_access_rd mem_access_wr cycles
fake $F nvidia_pcie_pmu_0_rc_0 rd_bytes wr_bytes rd_req wr_req rd_cum_outs cycles
fake $F nvidia_pcie_tgt_pmu_0_rc_0 rd_bytes wr_bytes rd_req wr_req cycles
fake $F nvidia_cmem_latency_pmu_0 rd_req rd_cum_outs cycles
fake $F nvidia_nvlink_c2c_pmu_0 in_rd_cum_outs in_rd_req in_wr_cum_outs in_wr_req \
	out_rd_cum_outs out_rd_req out_wr_cum_outs out_wr_req cycles
fake $F nvidia_nvclink_pmu_0 in_rd_cum_outs in_rd_req out_rd_cum_outs out_rd_req cycles
fake $F nvidia_nvdlink_pmu_0 in_rd_cum_outs in_rd_req cycles

# The formulas of Documentation/admin-guide/perf/nvidia-tegra410-pmu.rst,
# as the document writes them, per PMU.
cat > "$TMP/spec" <<'EOF'
nvidia_ucf_pmu_0 AVG_SLC_READ_BANDWIDTH_IN_GBPS = SLC_BYTES_RD / ELAPSED_TIME_IN_NS
nvidia_ucf_pmu_0 AVG_SLC_WRITE_BANDWIDTH_IN_GBPS = SLC_BYTES_WR / ELAPSED_TIME_IN_NS
nvidia_ucf_pmu_0 AVG_MEM_READ_BANDWIDTH_IN_GBPS = MEM_BYTES_RD / ELAPSED_TIME_IN_NS
nvidia_ucf_pmu_0 AVG_MEM_WRITE_BANDWIDTH_IN_GBPS = MEM_BYTES_WR / ELAPSED_TIME_IN_NS
nvidia_ucf_pmu_0 AVG_SLC_READ_REQUEST_RATE = SLC_ACCESS_RD / CYCLES
nvidia_ucf_pmu_0 AVG_SLC_WRITE_REQUEST_RATE = SLC_ACCESS_WR / CYCLES
nvidia_ucf_pmu_0 AVG_MEM_READ_REQUEST_RATE = MEM_ACCESS_RD / CYCLES
nvidia_ucf_pmu_0 AVG_MEM_WRITE_REQUEST_RATE = MEM_ACCESS_WR / CYCLES
nvidia_pcie_pmu_0_rc_0 AVG_RD_BANDWIDTH_IN_GBPS = RD_BYTES / ELAPSED_TIME_IN_NS
nvidia_pcie_pmu_0_rc_0 AVG_WR_BANDWIDTH_IN_GBPS = WR_BYTES / ELAPSED_TIME_IN_NS
nvidia_pcie_pmu_0_rc_0 AVG_RD_REQUEST_RATE = RD_REQ / CYCLES
nvidia_pcie_pmu_0_rc_0 AVG_WR_REQUEST_RATE = WR_REQ / CYCLES
nvidia_pcie_pmu_0_rc_0 FREQ_IN_GHZ = CYCLES / ELAPSED_TIME_IN_NS
nvidia_pcie_pmu_0_rc_0 AVG_LATENCY_IN_CYCLES = RD_CUM_OUTS / RD_REQ
nvidia_pcie_pmu_0_rc_0 AVERAGE_LATENCY_IN_NS = AVG_LATENCY_IN_CYCLES / FREQ_IN_GHZ
nvidia_pcie_tgt_pmu_0_rc_0 AVG_RD_BANDWIDTH_IN_GBPS = RD_BYTES / ELAPSED_TIME_IN_NS
nvidia_pcie_tgt_pmu_0_rc_0 AVG_WR_BANDWIDTH_IN_GBPS = WR_BYTES / ELAPSED_TIME_IN_NS
nvidia_pcie_tgt_pmu_0_rc_0 AVG_RD_REQUEST_RATE = RD_REQ / CYCLES
nvidia_pcie_tgt_pmu_0_rc_0 AVG_WR_REQUEST_RATE = WR_REQ / CYCLES
nvidia_cmem_latency_pmu_0 FREQ_IN_GHZ = CYCLES / ELAPSED_TIME_IN_NS
nvidia_cmem_latency_pmu_0 AVG_LATENCY_IN_CYCLES = RD_CUM_OUTS / RD_REQ
nvidia_cmem_latency_pmu_0 AVERAGE_LATENCY_IN_NS = AVG_LATENCY_IN_CYCLES / FREQ_IN_GHZ
nvidia_nvlink_c2c_pmu_0 C2C_FREQ_IN_GHZ = CYCLES / ELAPSED_TIME_IN_NS
nvidia_nvlink_c2c_pmu_0 IN_RD_AVG_LATENCY_IN_CYCLES = IN_RD_CUM_OUTS / IN_RD_REQ
nvidia_nvlink_c2c_pmu_0 IN_RD_AVG_LATENCY_IN_NS = IN_RD_AVG_LATENCY_IN_CYCLES / C2C_FREQ_IN_GHZ
nvidia_nvlink_c2c_pmu_0 IN_WR_AVG_LATENCY_IN_CYCLES = IN_WR_CUM_OUTS / IN_WR_REQ
nvidia_nvlink_c2c_pmu_0 IN_WR_AVG_LATENCY_IN_NS = IN_WR_AVG_LATENCY_IN_CYCLES / C2C_FREQ_IN_GHZ
nvidia_nvlink_c2c_pmu_0 OUT_RD_AVG_LATENCY_IN_CYCLES = OUT_RD_CUM_OUTS / OUT_RD_REQ
nvidia_nvlink_c2c_pmu_0 OUT_RD_AVG_LATENCY_IN_NS = OUT_RD_AVG_LATENCY_IN_CYCLES / C2C_FREQ_IN_GHZ
nvidia_nvlink_c2c_pmu_0 OUT_WR_AVG_LATENCY_IN_CYCLES = OUT_WR_CUM_OUTS / OUT_WR_REQ
nvidia_nvlink_c2c_pmu_0 OUT_WR_AVG_LATENCY_IN_NS = OUT_WR_AVG_LATENCY_IN_CYCLES / C2C_FREQ_IN_GHZ
nvidia_nvclink_pmu_0 CLINK_FREQ_IN_GHZ = CYCLES / ELAPSED_TIME_IN_NS
nvidia_nvclink_pmu_0 IN_RD_AVG_LATENCY_IN_CYCLES = IN_RD_CUM_OUTS / IN_RD_REQ
nvidia_nvclink_pmu_0 IN_RD_AVG_LATENCY_IN_NS = IN_RD_AVG_LATENCY_IN_CYCLES / CLINK_FREQ_IN_GHZ
nvidia_nvclink_pmu_0 OUT_RD_AVG_LATENCY_IN_CYCLES = OUT_RD_CUM_OUTS / OUT_RD_REQ
nvidia_nvclink_pmu_0 OUT_RD_AVG_LATENCY_IN_NS = OUT_RD_AVG_LATENCY_IN_CYCLES / CLINK_FREQ_IN_GHZ
nvidia_nvdlink_pmu_0 DLINK_FREQ_IN_GHZ = CYCLES / ELAPSED_TIME_IN_NS
nvidia_nvdlink_pmu_0 IN_RD_AVG_LATENCY_IN_CYCLES = IN_RD_CUM_OUTS / IN_RD_REQ
nvidia_nvdlink_pmu_0 IN_RD_AVG_LATENCY_IN_NS = IN_RD_AVG_LATENCY_IN_CYCLES / DLINK_FREQ_IN_GHZ
EOF
# -l, one line per formula kept: "PMU NAME = NUM / DEN" with events upper case
formulas() {
	awk '/^[a-z]/ { pmu = $1; sub(":", "", pmu) }
	     $1 == "metric" { print pmu, $2, "=", toupper($4), "/", toupper($6) }' "$1"
}
last=list; UPMU_PMU_DEVICES=$F m list -l; rc=$?
formulas "$TMP/list" > "$TMP/got"
for fam in nvidia_ucf_pmu_0 nvidia_pcie_pmu_0_rc_0 nvidia_pcie_tgt_pmu_0_rc_0 \
	   nvidia_cmem_latency_pmu_0 nvidia_nvlink_c2c_pmu_0 nvidia_nvclink_pmu_0 \
	   nvidia_nvdlink_pmu_0; do
	if [ $rc = 0 ] && diff <(grep "^$fam " "$TMP/spec") <(grep "^$fam " "$TMP/got") \
		> "$TMP/diff"; then
		tap_ok "-l: $fam computes the document's formulas"
	else
		tap_fail "-l: $fam computes the document's formulas (rc $rc)"
		sed 's/^/#   /' "$TMP/diff"
	fi
done

# C2C connected to another SoC: read events only.  cpu-clock (0x0) for
# both read-latency events and cycles, dummy (0x9, always 0) for
# out_rd_req, so IN_RD is 1 cycle, OUT_RD has a zero denominator.
C=$TMP/fake-c2c
fake $C nvidia_nvlink_c2c_pmu_0 in_rd_cum_outs in_rd_req out_rd_cum_outs out_rd_req=0x9 cycles
c2c_run() { UPMU_PMU_DEVICES=$C m c2c -v -x, --timeout 500; rc=$?; }
c2c() { v c2c nvidia_nvlink_c2c_pmu_0 "$1"; }
c2c_ok='near "$(c2c C2C_FREQ_IN_GHZ)" 1 0.01 &&
	near "$(c2c IN_RD_AVG_LATENCY_IN_CYCLES)" 1 0.01 &&
	near "$(c2c IN_RD_AVG_LATENCY_IN_NS)" 1 0.01 &&
	is "$(c2c OUT_RD_AVG_LATENCY_IN_CYCLES) $(c2c OUT_RD_AVG_LATENCY_IN_NS)" "- -"'
# (cpu-clock counts real time: the ratios are 1 up to a stall between reads)
last=c2c; rt_try c2c "$c2c_ok" c2c_run
tap_expect "C2C without write events: counts, read metrics only" \
	is "$rc $(cut -d, -f2 "$TMP/c2c" | tr '\n' ' ')" \
	"0 ELAPSED_TIME_IN_NS C2C_FREQ_IN_GHZ IN_RD_AVG_LATENCY_IN_CYCLES IN_RD_AVG_LATENCY_IN_NS OUT_RD_AVG_LATENCY_IN_CYCLES OUT_RD_AVG_LATENCY_IN_NS "
tap_expect "C2C: cpu-clock ratios are 1, zero denominators print '-'" eval "$c2c_ok"
tap_expect "-v names the events the dropped metrics need" \
	grep -q "no IN_WR_AVG_LATENCY_IN_CYCLES: no event in_wr_cum_outs" "$TMP/c2c.err"

# --- the simulator -----------------------------------------------------------

upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
sim_del $ID
# Manual clock: sim time moves only by "advance", so counts are exact.
sim_new "$ID 2 clock=manual clock_mhz=1000 rcs=0" || { echo "Bail out! cannot create device"; exit 1; }

last=all; m all -x, --timeout 200; rc=$?
tap_expect "all PMUs of the known families by default, sorted" \
	is "$rc $(cut -d, -f1 "$TMP/all" | uniq | tr '\n' ' ')" \
	"0 $CMEM0 $CMEM1 nvidia_nvclink_pmu_0 nvidia_nvclink_pmu_1 nvidia_nvdlink_pmu_0 nvidia_nvdlink_pmu_1 nvidia_nvlink_c2c_pmu_0 nvidia_nvlink_c2c_pmu_1 $UCF0 $UCF1 "
tap_expect "CSV: pmu,metric,value,percent for ELAPSED and the 8 UCF metrics" \
	is "$(grep "^$UCF0," "$TMP/all" | awk -F, 'NF != 4 || $4 != "100.00" { bad = 1 }
		{ printf "%s ", $2 } END { if (bad) print "BAD" }')" \
	"ELAPSED_TIME_IN_NS AVG_SLC_READ_BANDWIDTH_IN_GBPS AVG_SLC_WRITE_BANDWIDTH_IN_GBPS AVG_MEM_READ_BANDWIDTH_IN_GBPS AVG_MEM_WRITE_BANDWIDTH_IN_GBPS AVG_SLC_READ_REQUEST_RATE AVG_SLC_WRITE_REQUEST_RATE AVG_MEM_READ_REQUEST_RATE AVG_MEM_WRITE_REQUEST_RATE "
# no sim time passed: 0 cycles, so every request rate and latency is "-":
# per socket 4 UCF rates, 2 CMEM latencies and the link latencies in
# cycles and ns (8 C2C, 4 CLink, 2 DLink)
tap_expect "zero denominators print '-' (no cycles, no requests)" \
	is "$(grep -c ',-,' "$TMP/all") $(v all $UCF0 AVG_SLC_READ_BANDWIDTH_IN_GBPS) $(v all $CMEM0 FREQ_IN_GHZ)" \
	"40 0 0"

# 3000 reads of 64 B at 250 ns on socket 0 (6000 CMEM requests), one
# second of a 20M/s read flow (to GPU memory: not seen by the CMEM PMU)
# and a 5M/s write flow of SLC hits on socket 0, and 1M/s reads of 256 B
# on socket 1, all inside the window.
echo "add id=1 socket=0 op=rd size=64 rate=20000000 dst=loc_gmem" > $D/flows
echo "add id=2 socket=0 op=wr size=128 rate=5000000 hit=1" > $D/flows
echo "add id=3 socket=1 op=rd size=256 rate=1000000 dst=rem" > $D/flows
last=man; m man -x, -- sh -c "echo 'socket=0 op=rd size=64 count=3000 lat=250' > $D/inject &&
	echo 1000000000 > $D/advance"; rc=$?
tap_expect "manual clock: exit 0, every group ran the whole time" \
	is "$rc $(awk -F, '$4 != "100.00"' "$TMP/man" | wc -l)" "0 0"
# the 3000 injected reads pass through the UCF too: 20003000 per 1e9 cycles
tap_expect "AVG_SLC_READ_REQUEST_RATE is exactly 20003000 over 1e9 cycles" \
	is "$(v man $UCF0 AVG_SLC_READ_REQUEST_RATE) $(v man $UCF0 AVG_MEM_READ_REQUEST_RATE)" \
	"0.020003 0.020003"
tap_expect "write hits: SLC write rate 0.005, no memory writes" \
	is "$(v man $UCF0 AVG_SLC_WRITE_REQUEST_RATE) $(v man $UCF0 AVG_MEM_WRITE_REQUEST_RATE) $(v man $UCF0 AVG_MEM_WRITE_BANDWIDTH_IN_GBPS)" \
	"0.005 0 0"
tap_expect "socket 1: 0.001 read requests per cycle, no writes" \
	is "$(v man $UCF1 AVG_SLC_READ_REQUEST_RATE) $(v man $UCF1 AVG_SLC_WRITE_REQUEST_RATE)" "0.001 0"
# bandwidth * ELAPSED_TIME_IN_NS gives back the bytes of that second
tap_expect "bandwidth = bytes / ELAPSED_TIME_IN_NS (1280192000, 6.4e8, 1280192000, 2.56e8 B)" \
	eval 'near "$(back man $UCF0 AVG_SLC_READ_BANDWIDTH_IN_GBPS)" 1280192000 1e-7 &&
	      near "$(back man $UCF0 AVG_SLC_WRITE_BANDWIDTH_IN_GBPS)" 640000000 1e-7 &&
	      near "$(back man $UCF0 AVG_MEM_READ_BANDWIDTH_IN_GBPS)" 1280192000 1e-7 &&
	      near "$(back man $UCF1 AVG_SLC_READ_BANDWIDTH_IN_GBPS)" 256000000 1e-7'
tap_expect "CMEM: AVG_LATENCY_IN_CYCLES is exactly 250 ns at 1000 MHz" \
	is "$(v man $CMEM0 AVG_LATENCY_IN_CYCLES) $(v man $CMEM1 AVG_LATENCY_IN_CYCLES)" "250 -"
# 1e9 cycles in a window of real time longer than the advance
tap_expect "CMEM: FREQ_IN_GHZ and AVERAGE_LATENCY_IN_NS follow the cycles counted" \
	eval 'f=$(v man $CMEM0 FREQ_IN_GHZ) t=$(v man $CMEM0 ELAPSED_TIME_IN_NS);
	      near "$f" "$(awk -v t="$t" "BEGIN { printf \"%.12g\", 1e9 / t }")" 1e-7 &&
	      near "$(v man $CMEM0 AVERAGE_LATENCY_IN_NS)" \
		   "$(awk -v f="$f" "BEGIN { printf \"%.12g\", 250 / f }")" 1e-7'

# Intervals lose and repeat nothing: one more second of the read flow in
# four steps, whatever intervals they fall in, is 1.28e9 bytes in all.
last=mint; m mint -x, -I 100 $UCF0 -- sh -c "for i in 1 2 3 4; do
	echo 250000000 > $D/advance; sleep 0.3; done"; rc=$?
tap_expect "-I 100, manual clock: the intervals' bytes add up to 1.28e9 exactly" \
	eval '[ $rc = 0 ] && awk -F, "\$3 == \"ELAPSED_TIME_IN_NS\" { t = \$4 }
		\$3 == \"AVG_SLC_READ_BANDWIDTH_IN_GBPS\" { b += \$4 * t; if (\$4 > 0) n++ }
		END { exit !(n >= 2 && b > 1280000000 * (1 - 1e-7) && b < 1280000000 * (1 + 1e-7)) }" \
		"$TMP/mint"'

# The PCIe and link PMUs on a manual clock at 1000 MHz: a latency of L ns
# is L cycles, and one second of sim time is 1e9 cycles.  Each PMU gets
# its own traffic, which none of the others counts.
sim_del $ID
sim_new "$ID 2 clock=manual clock_mhz=1000 rcs=2" || { echo "Bail out! cannot create device"; exit 1; }
P=nvidia_pcie_pmu_0_rc_1 T=nvidia_pcie_tgt_pmu_0_rc_1
C2C=nvidia_nvlink_c2c_pmu_0 CL=nvidia_nvclink_pmu_0 DL=nvidia_nvdlink_pmu_0
last=lk; m lk -x, $P $T $C2C $CL $DL -- sh -c "
	echo 'rc=1 op=rd size=256 count=4000 lat=500' > $D/inject &&
	echo 'rc=1 op=wr size=128 count=2000 lat=300' > $D/inject &&
	echo 'to_rc=1 op=rd size=512 count=1000' > $D/inject &&
	echo 'to_rc=1 op=wr size=64 count=3000' > $D/inject &&
	echo 'src=loc_noncpu gpu=0 op=rd count=1000 lat=400' > $D/inject &&
	echo 'src=loc_noncpu gpu=1 op=wr count=500 lat=200' > $D/inject &&
	echo 'dst=loc_gmem gpu=0 op=rd count=2000 lat=700' > $D/inject &&
	echo 'dst=loc_gmem gpu=1 op=wr count=100 lat=900' > $D/inject &&
	echo 'src=rem op=rd count=300 lat=1000' > $D/inject &&
	echo 'dst=rem op=rd count=600 lat=1200' > $D/inject &&
	echo 'dst=loc_cxl op=rd count=800 lat=350' > $D/inject &&
	echo 1000000000 > $D/advance"; rc=$?
tap_expect "PCIe and link PMUs, manual clock: exit 0, five groups that ran the whole time" \
	is "$rc $(cut -d, -f1 "$TMP/lk" | uniq | wc -l) $(awk -F, '$4 != "100.00"' "$TMP/lk" | wc -l)" "0 5 0"
# x PMU METRIC...: the values, space separated
x() { local p=$1 r=; shift; for k in "$@"; do r="$r $(v lk "$p" "$k")"; done; echo "${r# }"; }
# ns PMU CYCLES_METRIC NS_METRIC FREQ_METRIC: NS == CYCLES / FREQ
ns() {
	near "$(v lk "$1" "$3")" "$(awk -v c="$(v lk "$1" "$2")" -v f="$(v lk "$1" "$4")" \
		'BEGIN { printf "%.12g", c / f }')" 1e-7
}
tap_expect "PCIE: AVG_LATENCY_IN_CYCLES 500, request rates 4000 and 2000 per 1e9 cycles ($(x $P AVG_LATENCY_IN_CYCLES AVG_RD_REQUEST_RATE AVG_WR_REQUEST_RATE))" \
	is "$(x $P AVG_LATENCY_IN_CYCLES AVG_RD_REQUEST_RATE AVG_WR_REQUEST_RATE)" "500 4e-06 2e-06"
tap_expect "PCIE: bandwidth * ELAPSED_TIME_IN_NS = 1024000 and 256000 B, FREQ_IN_GHZ * it = 1e9 cycles, AVERAGE_LATENCY_IN_NS = 500 / FREQ_IN_GHZ" \
	eval 'near "$(back lk $P AVG_RD_BANDWIDTH_IN_GBPS)" 1024000 1e-7 &&
	      near "$(back lk $P AVG_WR_BANDWIDTH_IN_GBPS)" 256000 1e-7 &&
	      near "$(back lk $P FREQ_IN_GHZ)" 1e9 1e-7 &&
	      ns $P AVG_LATENCY_IN_CYCLES AVERAGE_LATENCY_IN_NS FREQ_IN_GHZ'
tap_expect "PCIE-TGT: request rates 1000 and 3000 per 1e9 cycles, 512000 and 192000 B ($(x $T AVG_RD_REQUEST_RATE AVG_WR_REQUEST_RATE))" \
	eval 'is "$(x $T AVG_RD_REQUEST_RATE AVG_WR_REQUEST_RATE)" "1e-06 3e-06" &&
	      near "$(back lk $T AVG_RD_BANDWIDTH_IN_GBPS)" 512000 1e-7 &&
	      near "$(back lk $T AVG_WR_BANDWIDTH_IN_GBPS)" 192000 1e-7'
tap_expect "NVLink-C2C: in rd/wr, out rd/wr latency 400 200 700 900 cycles ($(x $C2C IN_RD_AVG_LATENCY_IN_CYCLES IN_WR_AVG_LATENCY_IN_CYCLES OUT_RD_AVG_LATENCY_IN_CYCLES OUT_WR_AVG_LATENCY_IN_CYCLES))" \
	is "$(x $C2C IN_RD_AVG_LATENCY_IN_CYCLES IN_WR_AVG_LATENCY_IN_CYCLES OUT_RD_AVG_LATENCY_IN_CYCLES OUT_WR_AVG_LATENCY_IN_CYCLES)" \
	"400 200 700 900"
tap_expect "NVLink-C2C: C2C_FREQ_IN_GHZ * ELAPSED_TIME_IN_NS = 1e9 cycles, each latency in ns = cycles / C2C_FREQ_IN_GHZ" \
	eval 'near "$(back lk $C2C C2C_FREQ_IN_GHZ)" 1e9 1e-7 &&
	      ns $C2C IN_RD_AVG_LATENCY_IN_CYCLES IN_RD_AVG_LATENCY_IN_NS C2C_FREQ_IN_GHZ &&
	      ns $C2C IN_WR_AVG_LATENCY_IN_CYCLES IN_WR_AVG_LATENCY_IN_NS C2C_FREQ_IN_GHZ &&
	      ns $C2C OUT_RD_AVG_LATENCY_IN_CYCLES OUT_RD_AVG_LATENCY_IN_NS C2C_FREQ_IN_GHZ &&
	      ns $C2C OUT_WR_AVG_LATENCY_IN_CYCLES OUT_WR_AVG_LATENCY_IN_NS C2C_FREQ_IN_GHZ'
tap_expect "NV-CLink: in/out read latency 1000 and 1200 cycles, in ns = cycles / CLINK_FREQ_IN_GHZ ($(x $CL IN_RD_AVG_LATENCY_IN_CYCLES OUT_RD_AVG_LATENCY_IN_CYCLES))" \
	eval 'is "$(x $CL IN_RD_AVG_LATENCY_IN_CYCLES OUT_RD_AVG_LATENCY_IN_CYCLES)" "1000 1200" &&
	      near "$(back lk $CL CLINK_FREQ_IN_GHZ)" 1e9 1e-7 &&
	      ns $CL IN_RD_AVG_LATENCY_IN_CYCLES IN_RD_AVG_LATENCY_IN_NS CLINK_FREQ_IN_GHZ &&
	      ns $CL OUT_RD_AVG_LATENCY_IN_CYCLES OUT_RD_AVG_LATENCY_IN_NS CLINK_FREQ_IN_GHZ'
tap_expect "NV-DLink: read latency 350 cycles, in ns = cycles / DLINK_FREQ_IN_GHZ ($(x $DL IN_RD_AVG_LATENCY_IN_CYCLES))" \
	eval 'is "$(x $DL IN_RD_AVG_LATENCY_IN_CYCLES)" 350 &&
	      near "$(back lk $DL DLINK_FREQ_IN_GHZ)" 1e9 1e-7 &&
	      ns $DL IN_RD_AVG_LATENCY_IN_CYCLES IN_RD_AVG_LATENCY_IN_NS DLINK_FREQ_IN_GHZ'

# Realtime clock at 1500 MHz: the latencies come back in ns.  250 ns is
# 375 cycles exactly; FREQ_IN_GHZ (cycles over perf's own time) within
# 2%, and so the latency in ns.
sim_del $ID
sim_new "$ID 2 clock_mhz=1500 rcs=2" || { echo "Bail out! cannot create device"; exit 1; }
lkrt() {
	m lkrt -x, $P $C2C -- sh -c "sleep 0.5
		echo 'rc=1 op=rd count=3000 lat=250' > $D/inject
		echo 'dst=loc_gmem gpu=1 op=rd count=3000 lat=250' > $D/inject; sleep 1"
	rc=$?
}
r() { v lkrt "$@"; }
lkrt_ok='[ $rc = 0 ] && is "$(r $P AVG_LATENCY_IN_CYCLES) $(r $C2C OUT_RD_AVG_LATENCY_IN_CYCLES)" "375 375" &&
	 near "$(r $P FREQ_IN_GHZ)" 1.5 0.02 && near "$(r $C2C C2C_FREQ_IN_GHZ)" 1.5 0.02 &&
	 near "$(r $P AVERAGE_LATENCY_IN_NS)" 250 0.02 &&
	 near "$(r $C2C OUT_RD_AVG_LATENCY_IN_NS)" 250 0.02'
last=lkrt; rt_try lkrt "$lkrt_ok" lkrt
tap_expect "realtime: PCIE and C2C read latency 375 cycles at 1500 MHz, 250 ns within 2% ($(r $P AVERAGE_LATENCY_IN_NS), $(r $C2C OUT_RD_AVG_LATENCY_IN_NS))" \
	eval "$lkrt_ok"


# Realtime clock at 1500 MHz: the same traffic, live, in 1 s intervals,
# with the CMEM reads injected after 1.5 s.  The first interval's
# FREQ_IN_GHZ is low by the time the driver takes to enable the PMU after
# perf has started the group's clock (42 counter reads per CMEM event
# through the simulator: tens of ms on the debug kernel under TCG, see
# upmu-metrics.rst), so the frequency is checked on the later intervals.
sim_del $ID
sim_new "$ID 2 clock_mhz=1500 rcs=0" || { echo "Bail out! cannot create device"; exit 1; }
echo "add id=1 socket=0 op=rd size=64 rate=20000000 dst=loc_gmem" > $D/flows
echo "add id=2 socket=0 op=wr size=128 rate=5000000 hit=1" > $D/flows
rt() {
	m rt -x, -I 1000 $CMEM0 -- sh -c "sleep 1.5
		echo 'socket=0 op=rd size=64 count=3000 lat=250' > $D/inject; sleep 2"
	rc=$?
	# per interval: "N FREQ CYCLES NS ELAPSED"
	awk -F, -v p=$CMEM0 '$2 != p { next } $3 == "ELAPSED_TIME_IN_NS" { e[++n] = $4 }
		$3 == "FREQ_IN_GHZ" { f[n] = $4 } $3 == "AVG_LATENCY_IN_CYCLES" { c[n] = $4 }
		$3 == "AVERAGE_LATENCY_IN_NS" { printf "%d %s %s %s %s\n", n, f[n], c[n], $4, e[n] }' \
		"$TMP/rt" > "$TMP/rt.cmem"
	lat=$(awk '$3 != "-"' "$TMP/rt.cmem")
	# (not in a last interval shorter than 0.2 s, where the read's own delay weighs)
	# Under load the moment each interval's counts are taken jitters, which
	# moves cycles between neighbouring intervals but not out of their sum:
	# the time-weighted mean must be within 1%, each interval within 5%.
	freqs=$(awk 'NR > 1 && $5 >= 2e8 { printf "%s ", $2 }' "$TMP/rt.cmem")
	fmean=$(awk 'NR > 1 && $5 >= 2e8 { c += $2 * $5; t += $5 } END { if (t) printf "%.6f", c / t }' "$TMP/rt.cmem")
}
rt_lat='[ $rc = 0 ] && [ "$(echo "$lat" | wc -l)" = 1 ] && set -- $lat &&
	      [ "$1" -gt 1 ] && [ "$3" = 375 ]'
rt_freq='set -- $lat && near "$4" 250 0.01 && [ -n "$freqs" ] && near "$fmean" 1.5 0.01 &&
	      ok=1 && for f in $freqs; do near "$f" 1.5 0.05 || ok=0; done && [ $ok = 1 ]'
last=rt; rt_try rt "$rt_lat && $rt_freq" rt
tap_expect "CMEM: AVG_LATENCY_IN_CYCLES exactly 250 ns at 1500 MHz (375), in one later interval ($lat)" \
	eval "$rt_lat"
tap_expect "CMEM: FREQ_IN_GHZ 1.5 after the first interval (mean within 1%, each within 5%) and AVERAGE_LATENCY_IN_NS 250 within 1% ($fmean: $freqs)" \
	eval "$rt_freq"
# The request rates are ratios of two counts the simulator keeps on its
# own clock: on the manual clock they are exact, whatever the load.  The
# same flows, one second of sim time: 20M/s and 5M/s over 1500 MHz.
echo manual > $D/clock
last=rtm; m rtm -x, $UCF0 -- sh -c "echo 1000000000 > $D/advance"; rc=$?
tap_expect "UCF: request rates 20M/s and 5M/s over 1500 MHz, exactly ($(v rtm $UCF0 AVG_SLC_READ_REQUEST_RATE), $(v rtm $UCF0 AVG_SLC_WRITE_REQUEST_RATE))" \
	eval '[ $rc = 0 ] && near "$(v rtm $UCF0 AVG_SLC_READ_REQUEST_RATE)" 0.0133333333 1e-5 &&
	      near "$(v rtm $UCF0 AVG_SLC_WRITE_REQUEST_RATE)" 0.0033333333 1e-5'
echo realtime > $D/clock
# Bandwidth is bytes over perf's own time: live, on the realtime clock.
rtu() { m rtu -x, --timeout 2000 $UCF0; rc=$?; }
rtu_ok='[ $rc = 0 ] && near "$(v rtu $UCF0 AVG_SLC_READ_BANDWIDTH_IN_GBPS)" 1.28 0.02 &&
	near "$(v rtu $UCF0 AVG_MEM_READ_BANDWIDTH_IN_GBPS)" 1.28 0.02 &&
	near "$(v rtu $UCF0 AVG_SLC_WRITE_BANDWIDTH_IN_GBPS)" 0.64 0.02'
last=rtu; rt_try rtu "$rtu_ok" rtu
tap_expect "UCF: 1.28 GB/s read, 0.64 GB/s write, within 2% ($(v rtu $UCF0 AVG_SLC_READ_BANDWIDTH_IN_GBPS), $(v rtu $UCF0 AVG_SLC_WRITE_BANDWIDTH_IN_GBPS))" \
	eval "$rtu_ok"

# Intervals: -I 400 --timeout 2000 is five windows of 0.4 s.  Each counter is read
# a little after the kernel takes the group's time (milliseconds on the
# debug kernel under TCG), which moves bytes between neighbouring
# intervals but not out of the total.
int() {
	m int -x, -I 400 --timeout 2000 $UCF0
	rc=$?
	ints=$(awk -F, '$3 == "ELAPSED_TIME_IN_NS" { n++; t = $4; T += t; if (t < 3e8 || t > 6e8) bad++ }
		$3 == "AVG_SLC_READ_BANDWIDTH_IN_GBPS" { b = $4; B += b * t; if (b < 1.28 * 0.9 || b > 1.28 * 1.1) bad++
			r = r sprintf(" %.3f", b) }
		NF != 5 { bad++ } END { printf "%d %d %.4f%s", n, bad, T ? B / T : 0, r }' "$TMP/int")
	read -r nint bad avg _ <<< "$ints"
}
int_ok='[ $rc = 0 ] && [ "$nint $bad" = "5 0" ] && near "$avg" 1.28 0.02'
last=int; rt_try int "$int_ok" int
tap_expect "-I 400 --timeout 2000: five intervals, 1.28 GB/s in all within 2%, each within 10% (${ints#* * })" \
	eval "$int_ok"

# A multiplexed group is scaled as perf scales and flagged.  The UCF group
# needs all 8 general counters: two of them take turns on the PMU.  A
# counts until SIGINT, B for 1 s once A has opened its group.  B ran part
# of its second (unless the host stalled the guest long enough to stretch
# it: then B runs again): its counts are scaled to the whole second, so
# its ELAPSED_TIME_IN_NS is the time enabled, about 1 s, and its read
# bandwidth the flows' 1.28 GB/s within 10%.  Turns of 100 ms, not 4: the
# simulator's register accesses under TCG at every turn cost a
# multiplexed group 12% of its bandwidth at 4 ms (upmu-metrics.rst,
# "Accuracy on the simulator").
muxf=/sys/bus/event_source/devices/$UCF0/perf_event_mux_interval_ms
mux0=$(cat $muxf)
echo 100 > $muxf
"$M" -x, -I 600000 $UCF0 > "$TMP/mux-a" 2> "$TMP/mux-a.err" &
pid=$!
wait_open $pid 9
mux() { m mux --timeout 1000 $UCF0; rc=$?; }
mux_ok='[ $rc = 0 ] && [ "$(grep -c "(multiplexed: running [0-9.]*%, scaled)" "$TMP/mux")" = 9 ] &&
	awk "\$2 == \"ELAPSED_TIME_IN_NS\" { exit !(\$3 > 0.99e9 && \$3 < 1.2e9) }" "$TMP/mux" &&
	awk "\$2 == \"ELAPSED_TIME_IN_NS\" && \$3 > 0.99e9 && \$6 + 0 < 99 { ok = 1 } END { exit !ok }" "$TMP/mux" &&
	near "$(awk "\$2 == \"AVG_SLC_READ_BANDWIDTH_IN_GBPS\" { print \$3 }" "$TMP/mux")" 1.28 0.1'
last=mux; rt_try mux "$mux_ok" mux
kill -INT $pid
wait $pid; rca=$?
echo "$mux0" > $muxf
pcts=$(awk -F, '{ printf "%s ", $5 }' "$TMP/mux-a" | head -c 30)
tap_expect "two groups that do not fit together are scaled and flagged, 1.28 GB/s within 10% (A: $pcts)" \
	eval "$mux_ok"' && [ $rca = 0 ] &&
	      [ -s "$TMP/mux-a" ] && awk -F, "\$5 >= 100 { exit 1 }" "$TMP/mux-a"'

# --- errors --------------------------------------------------------------------

last=unknown; m unknown nvidia_ucf_pmu_9; rc=$?
tap_expect "unknown PMU: exit 1, message, no output" \
	eval '[ $rc = 1 ] && [ ! -s "$TMP/unknown" ] &&
	      grep -q "unknown PMU .nvidia_ucf_pmu_9." "$TMP/unknown.err"'
last=glob; m glob 'nvidia_pcie_pmu_*'; rc=$?
tap_expect "a glob that matches no PMU: exit 1" \
	eval '[ $rc = 1 ] && grep -q "no PMU of a known family matches" "$TMP/glob.err"'
last=other; m other software; rc=$?
tap_expect "a PMU of no known family: exit 1" \
	eval '[ $rc = 1 ] && grep -q "not of a family with known metrics" "$TMP/other.err"'
last=usage; m usage -I 5; rc=$?
tap_expect "bad usage: exit 2" is $rc 2
last=perm; setpriv --reuid=65534 --regid=65534 --clear-groups "$M" --timeout 100 $UCF0 \
	> "$TMP/perm" 2> "$TMP/perm.err"; rc=$?
tap_expect "no permission: exit 1, EACCES named" \
	eval '[ $rc = 1 ] && grep -q "EACCES (Permission denied)" "$TMP/perm.err" &&
	      grep -q CAP_PERFMON "$TMP/perm.err"'
last=status; m status $UCF0 -- sh -c 'exit 3'; rc=$?
tap_expect "the command's exit status is the tool's" is $rc 3

# perf stat's vocabulary: --timeout stops a command (SIGTERM: status 143)
# and prints; -o writes the metrics to a file, the command's stdout stays;
# -j is JSON; -C picks the PMUs by the CPU they count on; --interval-count
last=both; s0=$(date +%s); m both -a --timeout 300 $UCF0 -- sleep 30; rc=$?; s1=$(date +%s)
tap_expect "--timeout 300 -- sleep 30: stops it (status 143) within 10 s and prints" \
	eval '[ $rc = 143 ] && [ $((s1 - s0)) -lt 10 ] && grep -q "^$UCF0 .*ELAPSED_TIME_IN_NS" "$TMP/both"'
last=json; m json -j -o "$TMP/json.out" $UCF0 -- sh -c "echo out"; rc=$?
tap_expect "-j -o FILE: JSON lines in FILE (pmu, metric, value, running), the command's stdout on stdout" \
	eval '[ $rc = 0 ] && [ "$(cat "$TMP/json")" = out ] && python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 9, rows
for r in rows:
    assert set(r) == {\"pmu\", \"metric\", \"value\", \"running\"} and r[\"pmu\"] == \"$UCF0\", r
assert rows[0][\"metric\"] == \"ELAPSED_TIME_IN_NS\" and rows[0][\"value\"] > 0, rows[0]
" "$TMP/json.out"'
ln -s "$TMP/planted" "$TMP/link"
last=symlink; m symlink -o "$TMP/link" $UCF0; rc=$?
tap_expect "-o through a symlink: exit 2, ELOOP named, nothing created" \
	eval '[ $rc = 2 ] && grep -q "ELOOP" "$TMP/symlink.err" && [ ! -e "$TMP/planted" ]'
c0=$(cut -d, -f1 /sys/bus/event_source/devices/$UCF0/cpumask)
c1=$(cut -d, -f1 /sys/bus/event_source/devices/$UCF1/cpumask)
cx=$(awk -v a="$c0" -v b="$c1" 'BEGIN { for (c = 0; c == a || c == b; c++); print c }')
last=cpu; m cpu -x, -C "$c1" 'nvidia_ucf_pmu_*'; rc=$?
tap_expect "-C $c1: only $UCF1, the UCF PMU counting on CPU $c1" \
	eval '[ $rc = 0 ] && [ "$(cut -d, -f1 "$TMP/cpu" | sort -u)" = "$UCF1" ]'
last=nocpu; m nocpu -C "$cx" $UCF0 $UCF1; rc=$?
tap_expect "-C $cx, a CPU neither counts on: exit 1, says so" \
	eval '[ $rc = 1 ] && grep -q "none of the PMUs counts on those CPUs" "$TMP/nocpu.err"'
last=icount; m icount -x, -I 100 --interval-count 3 --timeout 5000 $UCF0; rc=$?
tap_expect "-I 100 --interval-count 3 (--timeout 5000 the bound): three intervals, then exit 0" \
	eval '[ $rc = 0 ] && [ "$(grep -c ELAPSED_TIME_IN_NS "$TMP/icount")" = 3 ]'
tap_expect "bad perf options: exit 2, each says why" \
	eval 'fails_rc 2 "$M" -C 2-1 && fails "-C: CPUs in increasing ranges" "$M" -C 2-1 &&
	      fails_rc 2 "$M" --interval-count 2 && fails "--interval-count needs -I" "$M" --interval-count 2 &&
	      fails_rc 2 "$M" --timeout 5 && fails "--timeout: a time in ms" "$M" --timeout 5 &&
	      fails_rc 2 "$M" -x, -j && fails "one output form" "$M" -x, -j &&
	      fails_rc 2 "$M" -t 1'

# SIGINT ends -I without -t, after printing the interval so far: with
# -I 600000 no interval ends by itself, so the one printed is SIGINT's.
"$M" -x, -I 600000 $UCF0 > "$TMP/int2" 2> "$TMP/int2.err" &
pid=$!
wait_open $pid 9
sleep 0.5
kill -INT $pid
wait $pid; rc=$?
last=int2
el=$(awk -F, '$3 == "ELAPSED_TIME_IN_NS" { printf "%s ", $4 }' "$TMP/int2")
tap_expect "SIGINT: exit 0, the interval so far printed (ELAPSED_TIME_IN_NS: $el)" \
	eval '[ $rc = 0 ] && awk -F, "\$3 == \"ELAPSED_TIME_IN_NS\" { n++; t = \$4 }
		END { exit !(n == 1 && t >= 0.3e9) }" "$TMP/int2"'

# A group the PMU cannot hold: 4 general counters for 8 events + cycles.
sim_del $ID
sim_new "$ID 1 counters=4 rcs=0" || { echo "Bail out! cannot create device"; exit 1; }
last=small; m small --timeout 100 $UCF0; rc=$?
tap_expect "a group too big for the counters: exit 1, EINVAL named" \
	eval '[ $rc = 1 ] && grep -q "EINVAL (Invalid argument)" "$TMP/small.err" &&
	      grep -q "refused a group of 6 events" "$TMP/small.err"'

# The PMU goes away while counting.  6.15+ revokes the events: the next
# read says so and the tool stops (exit 1).  Before, the PMU stays
# registered but dead until the tool closes its events: counts stop, and
# the tool goes on until SIGINT (exit 0).
sim_del $ID
sim_new "$ID 2 rcs=0" || { echo "Bail out! cannot create device"; exit 1; }
"$M" -x, -I 200 $UCF0 $CMEM1 > "$TMP/gone" 2> "$TMP/gone.err" &
pid=$!
for i in $(seq 300); do
	grep -q ELAPSED_TIME_IN_NS "$TMP/gone" && break
	sleep 0.1
done
sim_del $ID
for i in $(seq 100); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
kill -INT $pid 2>/dev/null
wait $pid; rc=$?
last=gone
if kernel_revokes; then
	tap_expect "device deleted while counting: exit 1, says so ($rc: $(head -n1 "$TMP/gone.err"))" \
		eval '[ $rc = 1 ] && grep -q "went away while being counted" "$TMP/gone.err" &&
		      pmu_gone_within $UCF0 5'
else
	tap_expect "device deleted while counting: runs on to SIGINT, PMU gone after ($rc)" \
		eval '[ $rc = 0 ] && [ ! -s "$TMP/gone.err" ] && pmu_gone_within $UCF0 5'
fi

last=""
tap_expect "no sanitizer report in any run" \
	eval '! grep -l -e "runtime error" -e "Sanitizer" "$TMP"/*.err'
sim_del $ID
rm -rf "$TMP"
tap_exit
