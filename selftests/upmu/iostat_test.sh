#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu-iostat on a simulated 2-socket Ice Lake-X against the simulator's
# ground truth.  On the manual clock (1000 MHz: 1 IIO cycle per ns) the
# interval is measured by the IIO clock (--time ioclk -C 1), so a flow's
# bytes over a 1 s advance give exact MB/s, and occupancy over inserts an
# exact latency: those metrics are asserted exactly, wherever their events
# fit the counters at once.  A metric whose events perf multiplexes is
# scaled from the share of time each group ran: on the manual clock that
# share says nothing about when the counts came, so it is asserted to be
# flagged, and its value within 15% on the realtime clock with steady
# flows (a multiplexed group loses the time its box is frozen while perf
# rotates the groups, which perf counts as running: 1-2% on Debian's
# kernel, about 5% on the debug kernel under TCG, at perf's 4 ms).  Also:
# metrics of missing PMUs are "n/a", CSV and JSON shapes, interval lines,
# the command's exit status, bad arguments.
# The memory side (L3 hit/miss of inbound I/O from the CHAs and IRPs, DRAM
# bandwidth and utilisation from the IMCs, UPI utilisation) and the VT-d
# metrics are asserted exactly on the manual clock too (tests 29-34), and
# the L3 metrics, multiplexed when read and write are asked together, on
# the realtime clock; the latencies' division by the clock at 2 GHz (37);
# link utilisation of a link that trained below its max (38-39).
# $UPMU_IOSTAT is the binary (default: the ASan/UBSan build).
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
T=${UPMU_IOSTAT:-$top/build/selftests/upmu-iostat}
ID=14
D=/sys/kernel/debug/upmu_sim/$ID
TMP=$(mktemp -d)
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# run NAME ARGS...: the tool's stdout in $TMP/NAME, stderr in $TMP/NAME.err
run() { local o=$TMP/$1; shift; "$T" "$@" >"$o" 2>"$o.err"; }
# run_slow_mux PMU NAME ARGS...: run with perf rotating PMU's groups every
# 100 ms, not 4.  The box is frozen while perf rotates, which perf counts
# as running time; a loaded emulated host stretches that to a good part of
# 4 ms, and the scaled counts of the realtime clock come out 20% low.
run_slow_mux() {
	local p mux=() pmu=$1
	shift
	for p in /sys/bus/event_source/devices/"$pmu"_*/perf_event_mux_interval_ms; do
		mux+=("$p $(cat "$p")")
		echo 100 > "$p"
	done
	run "$@"
	for p in "${mux[@]}"; do echo "${p#* }" > "${p%% *}"; done
}
# v NAME SOCKET IO_UNIT_PMU PART METRIC: the value of a CSV row (no time column)
v() {
	awk -F, -v s="S$2" -v u="$3" -v p="$4" -v m="$5" \
		'$1 == s && ($2 == u || index($2, u "<") == 1) && $3 == p && $5 == m { print $6 }' "$TMP/$1"
}
# col NAME SOCKET IO_UNIT_PMU PART METRIC FIELD
col() {
	awk -F, -v s="S$2" -v u="$3" -v p="$4" -v m="$5" -v f="$6" \
		'$1 == s && ($2 == u || index($2, u "<") == 1) && $3 == p && $5 == m { print $f }' "$TMP/$1"
}

tap_plan 45
[ -x "$T" ] || { echo "Bail out! $T: no such program (make selftests)"; exit 1; }
upmu_load_all && mod_load_own upmu_icx || { echo "Bail out! cannot load modules"; exit 1; }
sim_del $ID
sim_new "$ID 2 soc=icx clock=manual" || { echo "Bail out! cannot create device"; exit 1; }

# Traffic, per second of sim time:
#  socket 0 stack 1 (one part: 0000:2b:00.0, PCIe gen4 x16):
#   device reads 10^6 x 256 B (256 MB/s, latency 500 ns: 4x10^6 lines
#   in the IIO's completion buffer and the IRP), writes 5x10^5 x 256 B
#   (128 MB/s, 2x10^6 lines, 300 ns), one line of each losing its
#   ownership to a snoop (lost forwards: 25% of the lines); the CPU reads
#   its MMIO 10^5 x 64 B (6.4 MB/s, 800 ns) and writes 10^5 x 64 B
#   (6.4 MB/s)
#  socket 1 stack 1: the CPU writes its MMIO 2x10^5 x 64 B (12.8 MB/s)
#  socket 0 stack 0 part 2 (0000:19:00.0): device reads 10^5 x 64 B
flows="add id=1 socket=0 stack=1 part=0 op=rd size=256 rate=1000000 lat=500
add id=2 socket=0 stack=1 part=0 op=wr size=256 rate=500000 lat=300 lost_fwd=1
add id=3 socket=0 to_stack=1 to_part=0 op=rd size=64 rate=100000 lat=800
add id=4 socket=0 to_stack=1 to_part=0 op=wr size=64 rate=100000
add id=5 socket=1 to_stack=1 to_part=0 op=wr size=64 rate=200000
add id=6 socket=0 stack=0 part=2 op=rd size=64 rate=100000"
# start_flows [FLOWS]: add each line of FLOWS (default $flows) to the device
start_flows() {
	local f
	while read -r f; do echo "$f" > $D/flows || return 1; done <<<"${1:-$flows}"
}
start_flows || echo "# cannot start the flows"

# 1-3: per stack, three bandwidths in one group (0x83 x2 on counters 0-1,
# 0xc0 on 2-3): exact, not multiplexed, on the IIO clock
last=stack
run stack -g stack -m inbound_read_bw,inbound_write_bw,outbound_write_bw --ioclk-ghz 1 --time ioclk \
	-x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "-g stack: S0 stack 1 inbound read 256 MB/s, write 128 MB/s, outbound write 6.4 MB/s (exact)" \
	is "$(v stack 0 uncore_iio_1 all inbound_read_bw)/$(v stack 0 uncore_iio_1 all inbound_write_bw)/$(v stack 0 uncore_iio_1 all outbound_write_bw)" "256/128/6.4"
tap_expect "-g stack: S1 stack 1 outbound write 12.8 MB/s, S0 stack 0 inbound read 6.4 MB/s (exact)" \
	is "$(v stack 1 uncore_iio_1 all outbound_write_bw)/$(v stack 0 uncore_iio_0 all inbound_read_bw)" "12.8/6.4"
tap_expect "-g stack: 36 rows (2 sockets x 6 stacks x 3), the others 0, all running 100%" \
	is "$(wc -l < $TMP/stack)/$(awk -F, '$6 != 0' $TMP/stack | wc -l)/$(awk -F, '$8 != "100.00"' $TMP/stack | wc -l)" "36/5/0"

# 4-6: per device: the outbound read (the MMIO read's completions,
# DATA_REQ_OF_CPU.CMPD) and the inbound read latency (the device reads'
# completions in the COMP_BUF, occupancy / inserts, Little's law: 500 ns,
# not the MMIO read's 800) fit on the one part of stack 1; stack 0's four
# parts need eight counters 0-1 for their CMPD events: multiplexed, and
# flagged
last=dev
run dev -m outbound_read_bw,inbound_read_latency --ioclk-ghz 1 --time ioclk -x, -s -- sh -c "echo 1000000000 > $D/advance"
tap_expect "0000:2b:00.0: outbound read 6.4 MB/s, inbound read latency 500 ns (device reads, exact, running 100%)" \
	is "$(col dev 0 uncore_iio_1 0 outbound_read_bw 4) $(v dev 0 uncore_iio_1 0 outbound_read_bw) $(v dev 0 uncore_iio_1 0 inbound_read_latency) $(col dev 0 uncore_iio_1 0 inbound_read_latency 8)" \
	"0000:2b:00.0 6.4 500 100.00"
tap_expect "stack 0's four parts' events multiplexed: every row flagged below 100%" \
	is "$(awk -F, 'index($2, "uncore_iio_0<") == 1 && $1 == "S0" && $8 < 100' $TMP/dev | wc -l)" 8
tap_expect "a device with no traffic: outbound read 0, latency \"-\" (0 inserts)" \
	is "$(v dev 0 uncore_iio_3 0 outbound_read_bw)/$(v dev 0 uncore_iio_3 0 inbound_read_latency)" "0/-"

# -d: only that device's part: one group, exact
last=sel
run sel -d 0000:2b:00.0 -m inbound_read_bw,inbound_write_bw,outbound_write_bw --ioclk-ghz 1 --time ioclk \
	-x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "-d 0000:2b:00.0: its 3 rows only, 256, 128 and 6.4 MB/s (exact, running 100%)" \
	is "$(cut -d, -f1,3,4,6,8 $TMP/sel | tr '\n' ' ')" \
	"S0,0,0000:2b:00.0,256,100.00 S0,0,0000:2b:00.0,128,100.00 S0,0,0000:2b:00.0,6.4,100.00 "

# 7-8: IRP: read latency (FAF occupancy / inserts) and CPU/IO conflicts
# (LOST_FWD / WR_PREF: 5x10^5 of 2x10^6 lines, 25%) each fit its 2
# counters; the write latency needs 3 events: multiplexed and flagged
last=irp
run irp -g stack -m irp_read_latency --ioclk-ghz 1 --time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "S0 stack 1: IRP read latency 500 ns (exact, running 100%)" \
	is "$(v irp 0 uncore_iio_1 - irp_read_latency)/$(col irp 0 uncore_iio_1 - irp_read_latency 8)" "500/100.00"
last=wl
run wl -g stack -m inbound_write_latency --ioclk-ghz 1 --time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "inbound_write_latency (3 IRP events, 2 counters) flagged as multiplexed on every stack" \
	awk -F, '$5 == "inbound_write_latency" && $8 >= 100 { bad = 1 } END { exit bad || NR != 12 }' $TMP/wl
last=conf
run conf -g stack -m cpu_io_conflicts --ioclk-ghz 1 --time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "cpu_io_conflicts: 25% on S0 stack 1 (lost forwards of its writes, exact), \"-\" without writes" \
	is "$(v conf 0 uncore_iio_1 - cpu_io_conflicts)/$(v conf 0 uncore_iio_2 - cpu_io_conflicts)/$(col conf 0 uncore_iio_1 - cpu_io_conflicts 8)" "25/-/100.00"

# 9: metrics of PMUs that are not there: the real PMUs, then a PMU tree
# (UPMU_PMU_DEVICES) without the CHAs, IMCs and UPI links
last=na
# (one metric of each: more would be multiplexed, and traffic that comes
# at one instant of the manual clock may then find an event off: "-")
m9=inbound_read_l3_miss,dram_read_bw,upi_utilization
run na -g stack -m $m9 --ioclk-ghz 1 --time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
mkdir -p "$TMP/pmus"
for p in /sys/bus/event_source/devices/*; do
	case ${p##*/} in uncore_cha_* | uncore_imc_* | uncore_upi_*) ;;
	*) ln -sfn "$p" "$TMP/pmus/${p##*/}" ;; esac
done
UPMU_PMU_DEVICES=$TMP/pmus run nana -g stack -m $m9 --ioclk-ghz 1 --time ioclk -x, \
	-- sh -c "echo 1000000000 > $D/advance"
want="" got=""
for u in cha:inbound_read_l3_miss imc:dram_read_bw upi:upi_utilization; do
	want="$want number n/a (no uncore_${u%%:*} PMU)"
	got="$got $(awk -F, -v m="${u#*:}" '$5 == m && $1 == "S0" { print ($6 ~ /^[0-9]+(\.[0-9]+)?$/ ? "number" : $6) }' $TMP/na)"
	got="$got $(awk -F, -v m="${u#*:}" '$5 == m && $1 == "S0" { print $6 }' $TMP/nana)"
done
tap_expect "L3, DRAM and UPI metrics: a number with their PMU, else \"n/a (no uncore_X PMU)\"" is "$got" "$want"

# 10-11: CSV and JSON shapes
tap_expect "CSV: 8 fields a row, 9 with -I" eval \
	'awk -F, "NF != 8 { exit 1 }" $TMP/dev && "$T" -g stack -m bw -I 50 --timeout 120 -x, | awk -F, "NF != 9 { bad = 1 } END { exit bad || NR == 0 }"'
last=json
run json -j -s -m inbound_read_bw,l3 --ioclk-ghz 1 --time ioclk -- sh -c "echo 1000000000 > $D/advance"
tap_expect "JSON: one object a line with socket, io_unit, part, device, metric, value (null + note for n/a), unit, running" \
	python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows
for r in rows:
    assert set(("socket", "io_unit", "metric", "value", "unit", "running")) <= set(r), r
    assert r["value"] is not None or "note" in r, r
d = [r for r in rows if r.get("device") == "0000:2b:00.0" and r["metric"] == "inbound_read_bw"]
assert len(d) == 1 and d[0]["value"] == 256 and d[0]["part"] == 0 and d[0]["root_bus"] == "0000:2a", d
assert any(r["metric"] == "inbound_read_l3_miss" and r["value"] is None for r in rows)
' $TMP/json

# 12-13: intervals
last=int
run int -g stack -m inbound_read_bw -I 100 --timeout 550 -x,
n=$(cut -d, -f1 $TMP/int | sort -u | wc -l)
# 0.1 ... 0.5 and the last, short one at 0.55 s (a late wakeup under load
# may merge two)
tap_expect "-I 100 -a 0.55: 5 or 6 intervals ($n), the last at 0.55 s" eval \
	'[ $n -ge 5 ] && [ $n -le 6 ] && near "$(tail -n1 $TMP/int | cut -d, -f1)" 0.55 0.05'
tap_expect "every interval has the 12 stack rows" \
	is "$(cut -d, -f1 $TMP/int | uniq -c | awk '{ print $1 }' | sort -u)" 12

# 14-15: link utilisation and the write latency on the realtime clock,
# the IIO clock at 1.5 GHz measured as a user on real hardware has it
# measured (no -C): a latency in cycles / 1.5 is the flows' ns
sim_del $ID
sim_new "$ID 2 soc=icx clock_mhz=1500" && start_flows || echo "# cannot restart on the realtime clock"
last=rt
run rt -g stack -m link_utilization,inbound_write_latency --timeout 1000 -x, -s
# 256 + 128 + 6.4 + 6.4 MB/s of gen4 x16's 64000 MB/s
tap_expect "S0 stack 1: link utilisation 0.62% +/- 15% (multiplexed: 3 events on counters 0-1)" \
	near "$(v rt 0 uncore_iio_1 all link_utilization)" 0.62 0.15
tap_expect "S0 stack 1: inbound write latency 300 ns +/- 15% (scaled; the IIO clock measured, 1.5 GHz)" \
	near "$(v rt 0 uncore_iio_1 - inbound_write_latency)" 300 0.15

# 16: the groups: perf iostat's part of the bandwidth events in one group
tap_expect "-l: per stack, MEM_READ, MEM_WRITE (counters 0-1) and BY_CPU.MEM_WRITE (2-3) in one group" \
	eval '"$T" -l -g stack -m inbound_read_bw,inbound_write_bw,outbound_write_bw |
	      grep -c "^group .* uncore_iio_1/event=0x83,umask=0x4,ch_mask=0xff,fc_mask=0x7/ uncore_iio_1/event=0x83,umask=0x1,ch_mask=0xff,fc_mask=0x7/ uncore_iio_1/event=0xc0,umask=0x1,ch_mask=0xff,fc_mask=0x7/$" | grep -qx 2'

# 17: the command's exit status
tap_expect "-- COMMAND: its exit status" fails_rc 3 "$T" -g stack -m bw -- sh -c 'exit 3'

# 18-24: bad arguments
tap_expect "-I 5: exit 2, says why" eval \
	'fails_rc 2 "$T" -I 5 && fails "-I: an interval in ms from 10 to 3600000" "$T" -I 5'
tap_expect "-g foo: exit 2" eval 'fails_rc 2 "$T" -g foo && fails "-g: device or stack" "$T" -g foo'
tap_expect "-m nosuch: exit 2" eval \
	'fails_rc 2 "$T" -m nosuch && fails "-m: no metric or group '"'"'nosuch'"'"'" "$T" -m nosuch'
tap_expect "-x with -j: exit 2" eval 'fails_rc 2 "$T" -x, -j && fails "one output form" "$T" -x, -j'
tap_expect "--time ioclk without --ioclk-ghz: exit 2" eval \
	'fails_rc 2 "$T" --time ioclk && fails "needs the clock" "$T" --time ioclk'
tap_expect "--interval-count without -I, and -- without a command: exit 2" eval \
	'fails_rc 2 "$T" --interval-count 2 && fails "--interval-count needs -I" "$T" --interval-count 2 &&
	 fails_rc 2 "$T" -- && fails "no command after --" "$T" --'
tap_expect "-d of a function below no stack: exit 1, says so" eval \
	'fails_rc 1 "$T" -d 0000:2b:07.0 && fails "-d 0000:2b:07.0: no such PCI function below an IIO stack" "$T" -d 0000:2b:07.0'
tap_expect "-d of no function address: exit 2" eval \
	'fails_rc 2 "$T" -d 0000:2b:00 && fails "-d: PCI functions SSSS:BB:DD.F" "$T" -d 0000:2b:00'
tap_expect "no IIO PMU: exit 1, says so" eval \
	'fails_rc 1 env UPMU_PMU_DEVICES=$TMP/none "$T" &&
	 fails "no uncore_iio_<N> PMU with dieX files" env UPMU_PMU_DEVICES=$TMP/none "$T"'

sim_del $ID

# 29-35: the memory side (CHA, IMC, UPI) and VT-d on the manual clock,
# against the simulator's model (Documentation/upmu-sim.rst, "Ice Lake-X").
# Per second, socket 0 stack 1 part 0 (0000:2b:00.0):
#   writes: 3x10^6 x 64 B hitting the L3 (DDIO), 10^6 x 64 B missing it,
#     5x10^5 x 96 B missing it (a full line, ITOM, and a partial one,
#     ITOMCACHENEAR: 2 lines each, the partial one costing a CAS read)
#     -> IRP WR_PREF 5x10^6 lines, CHA misses 1.5x10^6 ITOM + 0.5x10^6
#     ITOMCACHENEAR: write L3 miss 40%; DRAM of socket 0: 0.5x10^6 CAS
#     reads (32 MB/s), 2x10^6 CAS writes (128 MB/s)
#   reads: 10^6 x 256 B hitting the L3, 10^6 x 64 B missing it in socket
#     1's memory -> IRP FAF 5x10^6 lines, 10^6 PCIRDCUR misses: read L3
#     miss 20%; socket 1's DRAM 10^6 CAS reads (64 MB/s); UPI: 9x10^6
#     data flits sent by socket 1, 10^6 non-data flits by socket 0, over
#     3 links of 10^9 clockticks each: (9x10^6) / 3 / (3x10^9 x 5/6) =
#     0.12% (socket 1), 0.0133...% (socket 0)
# and socket 1 stack 2 part 0 (0000:bf:00.0), reads hitting the L3 through
# the IOMMU: 3x10^6 hit the IOTLB (2M pages), 10^6 miss it, each miss a
# walk of 3 memory reads taking 400 ns -> 4 MT/s, IOTLB miss 25%, hit
# 75%, miss penalty 400 ns, 3 memory accesses per miss; socket 1's read
# L3 miss 0%.  DRAM utilisation against --dram-max 1600 MB/s.
sim_del $ID
sim_new "$ID 2 soc=icx clock=manual" || echo "# cannot create the device again"
memflows="add id=1 socket=0 stack=1 part=0 op=wr size=64 rate=3000000 hit=1
add id=2 socket=0 stack=1 part=0 op=wr size=64 rate=1000000
add id=3 socket=0 stack=1 part=0 op=wr size=96 rate=500000
add id=4 socket=0 stack=1 part=0 op=rd size=256 rate=1000000 hit=1
add id=5 socket=0 stack=1 part=0 op=rd size=64 rate=1000000 dst=rem
add id=6 socket=1 stack=2 part=0 op=rd size=64 rate=3000000 hit=1 page=2m
add id=7 socket=1 stack=2 part=0 op=rd size=64 rate=1000000 hit=1 iotlb_miss=1 walk=3 walk_lat=400"
start_flows "$memflows" || echo "# cannot start the memory flows"
# socket rows: S<n>,-,-,-,METRIC,VALUE,UNIT,RUNNING
srow() { awk -F, -v s="S$2" -v m="$3" '$1 == s && $2 == "-" && $5 == m { print $6 "/" $8 }' "$TMP/$1"; }

last=mem
run mem -g stack -m inbound_read_l3_miss,inbound_read_l3_hit,dram,upi --dram-max 1600 --ioclk-ghz 1 \
	--time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "inbound read L3 miss/hit: S0 20%/80%, S1 0%/100% (exact, running 100%)" \
	is "$(srow mem 0 inbound_read_l3_miss) $(srow mem 0 inbound_read_l3_hit) $(srow mem 1 inbound_read_l3_miss) $(srow mem 1 inbound_read_l3_hit)" \
	"20/100.00 80/100.00 0/100.00 100/100.00"
tap_expect "DRAM: S0 read 32, write 128 MB/s, 10% of 1600; S1 read 64, write 0 MB/s, 4% (exact)" \
	is "$(srow mem 0 dram_read_bw) $(srow mem 0 dram_write_bw) $(srow mem 0 dram_utilization) $(srow mem 1 dram_read_bw) $(srow mem 1 dram_write_bw) $(srow mem 1 dram_utilization)" \
	"32/100.00 128/100.00 10/100.00 64/100.00 0/100.00 4/100.00"
tap_expect "UPI utilisation: S1 0.12% (9 data flits a remote line), S0 0.0133% (its requests)" \
	eval 'is "$(srow mem 1 upi_utilization)" 0.12/100.00 &&
	      near "$(srow mem 0 upi_utilization | cut -d/ -f1)" 0.0133333333 0.000001 &&
	      is "$(srow mem 0 upi_utilization | cut -d/ -f2)" 100.00'

last=wmem
run wmem -g stack -m inbound_write_l3_miss,inbound_write_l3_hit --ioclk-ghz 1 --time ioclk -x, -- \
	sh -c "echo 1000000000 > $D/advance"
tap_expect "inbound write L3 miss/hit: S0 40%/60% (full and partial lines), S1 \"-\" (no writes)" \
	is "$(srow wmem 0 inbound_write_l3_miss) $(srow wmem 0 inbound_write_l3_hit) $(srow wmem 1 inbound_write_l3_miss)" \
	"40/100.00 60/100.00 -/100.00"

last=vtd
run vtd -g stack --vtd -m vtd --ioclk-ghz 1 --time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "VT-d, S1 stack 2: 4 MT/s, IOTLB miss 25%, hit 75%, miss penalty 400 ns, 3 accesses per miss (exact)" \
	is "$(for m in vtd_translation_rate iotlb_miss iotlb_hit iotlb_miss_penalty mem_access_per_iotlb_miss; do
		echo -n "$(v vtd 1 uncore_iio_2 - $m)/$(col vtd 1 uncore_iio_2 - $m 8) "; done)" \
	"4/100.00 25/100.00 75/100.00 400/100.00 3/100.00 "
tap_expect "VT-d, S0 stack 1: its 6.5x10^6 transactions a second all hit the IOTLB: 6.5 MT/s, miss 0%; S0 stack 3: 0 MT/s, penalty \"-\"" \
	is "$(v vtd 0 uncore_iio_1 - vtd_translation_rate)/$(v vtd 0 uncore_iio_1 - iotlb_miss)/$(v vtd 0 uncore_iio_3 - vtd_translation_rate)/$(v vtd 0 uncore_iio_3 - iotlb_miss_penalty)" \
	"6.5/0/0/-"

# the read and write L3 metrics together need 3 IRP events on 2
# counters: multiplexed, flagged; on the realtime clock within 15%
last=l3mux
run l3mux -g stack -m l3 --ioclk-ghz 1 --time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "-m l3: FAF_INSERTS, WR_PREF and LOST_FWD on 2 IRP counters: S0's 4 L3 rows flagged" \
	is "$(awk -F, '$1 == "S0" && $2 == "-" && $8 < 100' $TMP/l3mux | wc -l)" 4
sim_del $ID
sim_new "$ID 2 soc=icx" && start_flows "$memflows" || echo "# cannot restart on the realtime clock"
last=l3rt
run_slow_mux uncore_irp l3rt -g stack -m l3 --ioclk-ghz 1 --timeout 1000 -x,
tap_expect "-m l3 on the realtime clock: S0 read L3 miss 20%, write 40% +/- 15% (scaled)" \
	eval 'near "$(srow l3rt 0 inbound_read_l3_miss | cut -d/ -f1)" 20 0.15 &&
	      near "$(srow l3rt 0 inbound_write_l3_miss | cut -d/ -f1)" 40 0.15'

# 37: latencies in ns are cycles over the IIO clock's GHz: at 2 GHz a
# 500 ns IRP read and a 300 ns page walk are 1000 and 600 cycles
sim_del $ID
sim_new "$ID 2 soc=icx clock=manual clock_mhz=2000" &&
	start_flows "add id=1 socket=0 stack=2 part=0 op=rd size=64 rate=1000000 lat=500 iotlb_miss=1 walk=2 walk_lat=300" ||
	echo "# cannot create the 2 GHz device"
last=ghz
run ghz -g stack -m irp_read_latency,vtd --ioclk-ghz 2 --time ioclk -x, -- sh -c "echo 1000000000 > $D/advance"
tap_expect "at 2 GHz: IRP read latency 500 ns, IOTLB miss penalty 300 ns, 1 MT/s, 2 accesses per miss (exact)" \
	is "$(for m in irp_read_latency iotlb_miss_penalty vtd_translation_rate mem_access_per_iotlb_miss; do
		echo -n "$(v ghz 0 uncore_iio_2 - $m)/$(col ghz 0 uncore_iio_2 - $m 8) "; done)" \
	"500/100.00 300/100.00 1/100.00 2/100.00 "
sim_del $ID

# 38-39: a link that trained below its max (link=0.2:3:2: 0000:19:00.0's
# gen4 x4 link at gen3 x2): link utilisation is of the 4000 MB/s it
# trained at (6.4 MB/s: 0.16%), not of the max's 16000 (0.04%); stderr
# says so.  On the realtime clock: its 4 events take turns on counters
# 0-1 (scaled, within 15%)
sim_new "$ID 2 soc=icx link=0.2:3:2" &&
	start_flows "add id=1 socket=0 stack=0 part=2 op=rd size=64 rate=100000" ||
	echo "# cannot create the device with a link trained down"
last=lnk
run_slow_mux uncore_iio lnk -d 0000:19:00.0 -m link_utilization --timeout 1000 -x, -s
tap_expect "0000:19:00.0 trained at gen3 x2 (max gen4 x4): link utilisation 0.16% +/- 15% of its 4000 MB/s" \
	near "$(v lnk 0 uncore_iio_0 2 link_utilization)" 0.16 0.15
tap_expect "stderr says the link trained below its max" grep -qxF \
	"upmu-iostat: 0000:19:00.0: link trained at 8 GT/s x2, max 16 GT/s x4: link_utilization is of the link as it trained" \
	"$TMP/lnk.err"

# 40-45: perf stat's vocabulary.  -C: the dies whose PMUs count on those
# CPUs (uncore_iio_0's cpumask has one CPU a die); -o: the rows to a file,
# the command's stdout where it was, never through a symlink;
# --interval-count; --timeout stops a command (SIGTERM: status 143)
c1=$(cut -d, -f2 /sys/bus/event_source/devices/uncore_iio_0/cpumask)
last=cpu
run cpu -a -C "$c1" -g stack -m inbound_read_bw --timeout 100 -x,
tap_expect "-a -C $c1 (die 1's CPU): only socket 1's 6 stack rows" \
	is "$(cut -d, -f1 $TMP/cpu | uniq -c | awk '{ print $1, $2 }')" "6 S1"
tap_expect "-C of a CPU no die counts on: exit 1, says so" eval \
	'fails_rc 1 "$T" -C $((c1 + 1)) && fails "-C: no die'"'"'s uncore PMUs count on those CPUs" "$T" -C $((c1 + 1))'
last=out
run out -g stack -m inbound_read_bw -x, -o "$TMP/out.csv" -- sh -c "echo out"
tap_expect "-o FILE: the 12 stack rows in FILE, the command's stdout on stdout" \
	eval '[ "$(cat $TMP/out)" = out ] && [ "$(grep -c ",inbound_read_bw," $TMP/out.csv)" = 12 ]'
ln -s "$TMP/planted" "$TMP/link"
tap_expect "-o through a symlink: exit 2, ELOOP named, nothing created" \
	eval 'fails_rc 2 "$T" -o "$TMP/link" && fails ELOOP "$T" -o "$TMP/link" && [ ! -e "$TMP/planted" ]'
last=icount
run icount -g stack -m inbound_read_bw -x, -I 100 --interval-count 3 --timeout 5000
tap_expect "-I 100 --interval-count 3: three intervals of 12 rows, then exit" \
	is "$(cut -d, -f1 $TMP/icount | uniq -c | awk '{ print $1 }' | tr '\n' ' ')" "12 12 12 "
last=tmo
s0=$(date +%s); run tmo -g stack -m inbound_read_bw -x, --timeout 300 -- sleep 30; rc=$?; s1=$(date +%s)
tap_expect "--timeout 300 -- sleep 30: stops it (status 143) within 10 s, prints the 12 rows" \
	eval '[ $rc = 143 ] && [ $((s1 - s0)) -lt 10 ] && [ "$(grep -c ",inbound_read_bw," $TMP/tmo)" = 12 ]'
sim_del $ID

rm -rf "$TMP"
mod_unload_own
tap_exit
