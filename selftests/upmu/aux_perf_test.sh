#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The patched perf (tools/perf-patches/) on perf.data streams that
# aux_perfdata writes with known AUX records (host, no VM): perf script,
# perf report -D and perf report print exactly the expected lines, the
# diag samples interleaved by time with cpu-clock samples, every loss a
# PERF_RECORD_AUXTRACE_ERROR ("instruction trace error ... code N:") where
# it is; --itrace o and e choose them; corrupt variants print what is
# wrong, where, and go on without crashing.
#
# usage: aux_perf_test.sh PERF AUX_PERFDATA   (TAP on stdout)
set -uo pipefail

perf=${1:?perf binary} gen=${2:?aux_perfdata binary}
csv="$(cd "$(dirname "$0")/../.." && pwd)/tools/upmu-aux-csv/upmu-aux-csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
# whitespace runs are one space: perf pads columns to the longest name
norm() { sed -e 's/[[:space:]]\+/ /g' -e 's/ $//'; }

# run VARIANT TOOL ARGS...: $tmp/VARIANT.TOOL.{out,err,rc}
run() {
	local v=$1 tool=$2 rc
	shift 2
	"$gen" "$v" > "$tmp/$v.data" || { echo "# aux_perfdata $v failed"; return 1; }
	"$perf" "$tool" "$@" -i - < "$tmp/$v.data" > "$tmp/$v.$tool.out" 2> "$tmp/$v.$tool.err"
	rc=$?
	echo $rc > "$tmp/$v.$tool.rc"
	# a signal (crash) is >= 128
	if [ $rc -ge 128 ]; then
		echo "# perf $tool on $v: killed by signal $((rc - 128))"
		return 1
	fi
}

# expect NAME FILE: FILE (normalized) is exactly stdin
expect() {
	if diff -u <(norm) <(norm < "$2") > "$tmp/diff"; then
		ok "$1"
	else
		sed 's/^/# /' "$tmp/diff" | head -n 40
		not_ok "$1"
	fi
}

# has NAME FILE LINE...: FILE has every LINE (whole lines, normalized)
has() {
	local name=$1 file=$2 l miss=0
	shift 2
	# not "norm < FILE | grep -q": grep -q exits at the first match, and
	# with pipefail norm's SIGPIPE on its next write would be a miss
	norm < "$file" > "$tmp/has.norm"
	for l in "$@"; do
		if ! grep -qxF -- "$(echo "$l" | norm)" "$tmp/has.norm"; then
			echo "# missing in $(basename "$file"): $l"
			miss=1
		fi
	done
	if [ $miss = 0 ]; then
		ok "$name"
	else
		sed 's/^/#   /' "$file" | head -n 30
		not_ok "$name"
	fi
}

script() { run "$1" script -F cpu,time,event,synth; }

echo "TAP version 13"

# --- a good stream: two CPUs, a LOST, a straddling record, TRUNCATED ---
script good
lost_err=" instruction trace error type 1 time 100.002100000 cpu 0 pid -1 tid -1 ip 0 code 1: lost 3 samples (sample_id 19..21)"
expect "perf script: 7 samples and an error record of the loss, interleaved with cpu-clock by time" \
	"$tmp/good.script.out" <<EOF
[000] 100.001100: upmu-nic-diag: sample_id 17 port_rx_bytes.p0 6400 port_tx_bytes.p0 0 pcie_rd_lat_total_ns.l0 500
[000] 100.001150: cpu-clock:
[001] 100.001200: upmu-nic-diag: sample_id 5 pcie_rd_lat_total_ns.l0 1
[001] 100.001250: cpu-clock:
[000] 100.001300: upmu-nic-diag: sample_id 18 port_rx_bytes.p0 12800 port_tx_bytes.p0 64 pcie_rd_lat_total_ns.l0 1000
[000] 100.002050: cpu-clock:
$lost_err
[000] 100.002100: upmu-nic-diag: sample_id 22 port_rx_bytes.p0 19200 port_tx_bytes.p0 128 pcie_rd_lat_total_ns.l0 1500
[000] 100.002150: cpu-clock:
[001] 100.002200: upmu-nic-diag: sample_id 6 pcie_rd_lat_total_ns.l0 2
[000] 100.002300: upmu-nic-diag: sample_id 23 port_rx_bytes.p0 25600 port_tx_bytes.p0 192 pcie_rd_lat_total_ns.l0 2000
[001] 100.003000: cpu-clock:
[000] 100.003100: upmu-nic-diag: sample_id 24 port_rx_bytes.p0 32000 port_tx_bytes.p0 256 pcie_rd_lat_total_ns.l0 2500
[000] 100.003300: cpu-clock:
EOF
cp "$tmp/good.script.out" "$tmp/good.lines"
# TRUNCATED and PARTIAL are perf's to count (its own warnings), not
# error records of the decoder's: counted once
has "perf script: the summary, perf's warnings of TRUNCATED and PARTIAL, the error count" \
	"$tmp/good.script.err" \
	"upmu-nic: 7 samples, lost 3 samples in 1 gaps" \
	"AUX data lost 1 times out of 5!" \
	"AUX data had gaps in it 1 times out of 5!" \
	"1 instruction trace errors"
if grep -q "TRUNCATED\|PARTIAL" "$tmp/good.script.out" "$tmp/good.script.err"; then
	not_ok "perf script: no record of the decoder's for TRUNCATED or PARTIAL"
else
	ok "perf script: no record of the decoder's for TRUNCATED or PARTIAL"
fi

# --itrace: o the samples, e the errors (e-l: not the overwritten samples)
run good script --itrace=e -F cpu,time,event,synth
expect "perf script --itrace=e: the error record, no sample" "$tmp/good.script.out" <<EOF
[000] 100.001150: cpu-clock:
[001] 100.001250: cpu-clock:
[000] 100.002050: cpu-clock:
$lost_err
[000] 100.002150: cpu-clock:
[001] 100.003000: cpu-clock:
[000] 100.003300: cpu-clock:
EOF
has "perf script --itrace=e: the summary counts the samples all the same" "$tmp/good.script.err" \
	"upmu-nic: 7 samples, lost 3 samples in 1 gaps"
grep -v "^ instruction trace error" "$tmp/good.lines" > "$tmp/good.samples"
run good script --itrace=o -F cpu,time,event,synth
expect "perf script --itrace=o: the samples, no error record" "$tmp/good.script.out" \
	< "$tmp/good.samples"
run good script --itrace=oe-l -F cpu,time,event,synth
expect "perf script --itrace=oe-l: no error record for the device's LOST" "$tmp/good.script.out" \
	< "$tmp/good.samples"

# default fields: the comm and tid of the cpu-clock samples, the event names
run good script
if grep -q 'worker *4242 \[000\] *100.001150: *1000000 *cpu-clock:' "$tmp/good.script.out" &&
   [ "$(grep -c 'upmu-nic-diag: sample_id' "$tmp/good.script.out")" = 7 ]; then
	ok "perf script, default fields: 7 upmu-nic-diag lines"
else
	sed 's/^/#   /' "$tmp/good.script.out" | head -n 20
	not_ok "perf script, default fields: 7 upmu-nic-diag lines"
fi

run good report -D
grep -E '^\. \.\.\. UPMU|^\.  [0-9a-f]{8}: |^upmu-nic|^  (PMU Type|Format version)' \
	"$tmp/good.report.out" > "$tmp/good.dump"
expect "perf report -D: each AUXTRACE buffer, one line per record (a SAMPLES record's samples under it), the summary" \
	"$tmp/good.dump" <<'EOF'
  PMU Type 42
  Format version 2
. ... UPMU NIC diag data: size 248 bytes, records 3
.  00000000: META seq 0 time 100001400000 serial 42 dev_khz 1000000 mode repetitive period_ns 1048576 dev_time 1405000 flags 0 ids 3: port_rx_bytes.p0 port_tx_bytes.p0 pcie_rd_lat_total_ns.l0
.  00000058: SAMPLE seq 1 time 100001100000 sample_id 17 dev_ts 1104980..1105000: port_rx_bytes.p0 6400 port_tx_bytes.p0 0 pcie_rd_lat_total_ns.l0 500
.  000000a8: SAMPLE seq 2 time 100001300000 sample_id 18 dev_ts 1304980..1305000: port_rx_bytes.p0 12800 port_tx_bytes.p0 64 pcie_rd_lat_total_ns.l0 1000
. ... UPMU NIC diag data: size 272 bytes, records 3
.  00000000: META seq 3 time 100002400000 serial 42 dev_khz 1000000 mode repetitive period_ns 1048576 dev_time 2405000 flags 0 ids 3: port_rx_bytes.p0 port_tx_bytes.p0 pcie_rd_lat_total_ns.l0
.  00000058: LOST seq 4 time 100002400000 lost 3 samples (sample_id 19..21) reason 1
.  00000098: SAMPLE seq 5 time 100002100000 sample_id 22 dev_ts 2104980..2105000: port_rx_bytes.p0 19200 port_tx_bytes.p0 128 pcie_rd_lat_total_ns.l0 1500
. ... UPMU NIC diag data: size 192 bytes, records 2
.  00000000: META seq 0 time 100002450000 serial 42 dev_khz 1000000 mode repetitive period_ns 1048576 dev_time 2455000 flags 0 ids 1: pcie_rd_lat_total_ns.l0
.  00000048: SAMPLES seq 1 time 100002450000 dev_time 2455000 sample_id 5..6 stride 32
.  00000080:   SAMPLE seq 1 time 100001200000 sample_id 5 dev_ts 1204980..1205000: pcie_rd_lat_total_ns.l0 1
.  000000a0:   SAMPLE seq 1 time 100002200000 sample_id 6 dev_ts 2204980..2205000: pcie_rd_lat_total_ns.l0 2
. ... UPMU NIC diag data: size 208 bytes, records 3
.  00000000: SAMPLE seq 6 time 100002300000 sample_id 23 dev_ts 2304980..2305000: port_rx_bytes.p0 25600 port_tx_bytes.p0 192 pcie_rd_lat_total_ns.l0 2000
.  00000028: META seq 7 time 100003200000 serial 42 dev_khz 1000000 mode repetitive period_ns 1048576 dev_time 3205000 flags 0 ids 3: port_rx_bytes.p0 port_tx_bytes.p0 pcie_rd_lat_total_ns.l0
.  00000080: SAMPLE seq 8 time 100003100000 sample_id 24 dev_ts 3104980..3105000: port_rx_bytes.p0 32000 port_tx_bytes.p0 256 pcie_rd_lat_total_ns.l0 2500
upmu-nic: 7 samples, lost 3 samples in 1 gaps
EOF
has "perf report -D: PERF_RECORD_AUX with PARTIAL and TRUNCATED" "$tmp/good.report.out" \
	"0 100002400000 0x3d0 [0x40]: PERF_RECORD_AUX offset: 0xf8 size: 0x110 flags: 0x4 [P]" \
	"0 100002500000 0x680 [0x40]: PERF_RECORD_AUX offset: 0x208 size: 0 flags: 0x1 [T]"
# after the buffer with the LOST record: its error record, and in the
# totals (perf report prints no AUXTRACE_ERROR but its raw bytes)
if [ "$(grep -c "PERF_RECORD_AUXTRACE_ERROR" "$tmp/good.report.out")" = 1 ] &&
   grep -A 14 "^.  00000058: LOST seq 4 " "$tmp/good.report.out" | grep -q "PERF_RECORD_AUXTRACE_ERROR" &&
   grep -q "^ *AUXTRACE_ERROR events: *1 " "$tmp/good.report.out"; then
	ok "perf report -D: one PERF_RECORD_AUXTRACE_ERROR, after the LOST record's buffer, counted"
else
	grep -n "AUXTRACE_ERROR" "$tmp/good.report.out" | sed 's/^/#   /'
	not_ok "perf report -D: one PERF_RECORD_AUXTRACE_ERROR, after the LOST record's buffer, counted"
fi

run good report --stdio
has "perf report: the samples counted as their own events" "$tmp/good.report.out" \
	"# Samples: 7 of event 'upmu-nic-diag'" \
	"# Samples: 6 of event 'cpu-clock'"
has "perf report: the error record counted" "$tmp/good.report.err" "1 instruction trace errors"

# the same stream as a perf.data file (perf inject writes the AUXTRACE index)
"$gen" good | "$perf" inject -i - -o "$tmp/good.file" 2>/dev/null
"$perf" script -F cpu,time,event,synth -i "$tmp/good.file" > "$tmp/file.out" 2>/dev/null
expect "perf script on a perf.data file: the same lines" "$tmp/file.out" < "$tmp/good.lines"
# perf inject --itrace=e decodes and writes the error record into its
# output, where perf report --stats counts it and perf script prints it
"$perf" inject --itrace=e -i "$tmp/good.file" -o "$tmp/inj.file" 2>/dev/null
"$perf" report --stats -i "$tmp/inj.file" > "$tmp/inj.stats" 2>/dev/null
"$perf" script -F cpu,time,event -i "$tmp/inj.file" > "$tmp/inj.out" 2>/dev/null
if grep -q "^ *AUXTRACE_ERROR events: *1 " "$tmp/inj.stats" &&
   [ "$(grep -cxF -- "$lost_err" "$tmp/inj.out")" = 1 ]; then
	ok "perf inject --itrace=e: the error record in its output"
else
	sed 's/^/#   /' "$tmp/inj.stats" "$tmp/inj.out" | head -n 20
	not_ok "perf inject --itrace=e: the error record in its output"
fi

# --- version 1, as its writers wrote it: SAMPLE records only ---
script v1
expect "perf script: a version 1 stream gives the same lines" "$tmp/v1.script.out" \
	< "$tmp/good.lines"
has "perf script: a version 1 stream, the same summary, no warning" "$tmp/v1.script.err" \
	"upmu-nic: 7 samples, lost 3 samples in 1 gaps"
if grep -q 'version\|bad data' "$tmp/v1.script.err"; then
	sed 's/^/#   /' "$tmp/v1.script.err"
	not_ok "perf script: a version 1 stream, nothing said about its version"
else
	ok "perf script: a version 1 stream, nothing said about its version"
fi
run v1 report -D
has "perf report -D: a version 1 stream, CPU 1's samples in a SAMPLE record each" \
	"$tmp/v1.report.out" "  Format version 1" \
	".  00000048: SAMPLE seq 1 time 100001200000 sample_id 5 dev_ts 1204980..1205000: pcie_rd_lat_total_ns.l0 1" \
	".  00000088: SAMPLE seq 2 time 100002200000 sample_id 6 dev_ts 2204980..2205000: pcie_rd_lat_total_ns.l0 2"

# --- one bad record: said where, skipped, and what it cost ---
for v in magic version size nr; do
	case $v in
	magic) what="bad magic (0x21444142)" ;;
	version) what="unknown version (0x7)" ;;
	size) what="bad record size (0x54)" ;;
	nr) what="record size does not match nr (0x50)" ;;
	esac
	if script $v; then
		e=" instruction trace error type 1 time 100.002300000 cpu 0 pid -1 tid -1 ip 0 code"
		has "corrupt $v: error records where it is, the rest decoded" "$tmp/$v.script.out" \
			"$e 4: bad data, 80 bytes skipped: ${what% (*}" \
			"$e 3: 1 records missing (seq 5..5)" \
			"$e 2: lost 1 samples (sample_id 22..22), no LOST record" \
			"[000] 100.002300: upmu-nic-diag: sample_id 23 port_rx_bytes.p0 25600 port_tx_bytes.p0 192 pcie_rd_lat_total_ns.l0 2000" \
			"[000] 100.003100: upmu-nic-diag: sample_id 24 port_rx_bytes.p0 32000 port_tx_bytes.p0 256 pcie_rd_lat_total_ns.l0 2500"
		has "corrupt $v: the error and the summary on stderr" "$tmp/$v.script.err" \
			"upmu-nic: cpu 0: bad data in AUX buffer 1 at 0x98: $what, 80 bytes skipped" \
			"upmu-nic: 6 samples, lost 4 samples in 2 gaps" \
			"upmu-nic: 1 of those samples in 1 gaps have no LOST record" \
			"upmu-nic: records missing in 1 places" \
			"upmu-nic: bad data in 1 places, 80 bytes skipped"
	else
		not_ok "corrupt $v: perf script crashed"
	fi
	run $v report -D || not_ok "corrupt $v: perf report -D crashed"
done
has "report -D on a bad record: the line says what is wrong" "$tmp/nr.report.out" \
	".  00000098: bad data: record size does not match nr (0x50), 80 bytes skipped" \
	".  00000000: records missing: seq 5..5" \
	".  00000000: unreported gap: 1 samples (sample_id 22..22) with no LOST record"

# --- the machine-readable forms ---
"$csv" < "$tmp/magic.script.out" > "$tmp/magic.csv"
expect "upmu-aux-csv: one row per sample and per error record, a column per data ID" \
	"$tmp/magic.csv" <<'EOF'
time,cpu,event,sample_id,lost,first_id,last_id,note,port_rx_bytes.p0,port_tx_bytes.p0,pcie_rd_lat_total_ns.l0
100.001100,0,upmu-nic-diag,17,,,,,6400,0,500
100.001200,1,upmu-nic-diag,5,,,,,,,1
100.001300,0,upmu-nic-diag,18,,,,,12800,64,1000
100.002200,1,upmu-nic-diag,6,,,,,,,2
100.002300,0,error,,3,19,21,,,,
100.002300,0,error,,,,,"bad data, 80 bytes skipped: bad magic",,,
100.002300,0,error,,,,,1 records missing (seq 5..5),,,
100.002300,0,error,,1,22,22,no LOST record,,,
100.002300,0,upmu-nic-diag,23,,,,,25600,192,2000
100.003100,0,upmu-nic-diag,24,,,,,32000,256,2500
EOF
# perf script's default fields: refused, with the -F it needs, nothing written
run magic script > /dev/null
if "$csv" < "$tmp/magic.script.out" > "$tmp/default.csv" 2> "$tmp/default.err"; then
	not_ok "upmu-aux-csv: perf script's default fields refused (exit status 0)"
elif [ -s "$tmp/default.csv" ] || ! grep -q -- "-F cpu,time,event,synth" "$tmp/default.err"; then
	sed 's/^/#   /' "$tmp/default.csv" "$tmp/default.err" | head -n 10
	not_ok "upmu-aux-csv: perf script's default fields refused, the -F it needs named, nothing written"
else
	ok "upmu-aux-csv: perf script's default fields refused, the -F it needs named, nothing written"
fi
if printf 'x\n' | "$csv" > /dev/null 2>&1; then
	not_ok "upmu-aux-csv: input without upmu-nic events or errors refused"
else
	ok "upmu-aux-csv: input without upmu-nic events or errors refused"
fi
"$csv" -j < "$tmp/good.lines" > "$tmp/good.json"
if python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 8, len(rows)
assert rows[0] == {"time": 100.0011, "cpu": 0, "event": "upmu-nic-diag", "sample_id": 17,
		   "values": {"port_rx_bytes.p0": 6400, "port_tx_bytes.p0": 0,
			      "pcie_rd_lat_total_ns.l0": 500}}, rows[0]
assert rows[3] == {"time": 100.0021, "cpu": 0, "event": "error", "code": 1, "lost": 3,
		   "first_id": 19, "last_id": 21}, rows[3]' "$tmp/good.json"; then
	ok "upmu-aux-csv -j: JSON lines with the exact values"
else
	sed 's/^/#   /' "$tmp/good.json"
	not_ok "upmu-aux-csv -j: JSON lines with the exact values"
fi

# --- a sample_id gap no LOST record covers ---
script gap
has "a gap without LOST: an error record with its exact range" "$tmp/gap.script.out" \
	" instruction trace error type 1 time 100.002100000 cpu 0 pid -1 tid -1 ip 0 code 2: lost 3 samples (sample_id 19..21), no LOST record" \
	"[000] 100.002100: upmu-nic-diag: sample_id 22 port_rx_bytes.p0 19200 port_tx_bytes.p0 128 pcie_rd_lat_total_ns.l0 1500"
has "a gap without LOST: in the summary" "$tmp/gap.script.err" \
	"upmu-nic: 7 samples, lost 3 samples in 1 gaps" \
	"upmu-nic: 3 of those samples in 1 gaps have no LOST record"

# --- the file ends inside an AUXTRACE payload ---
if script cut; then
	has "truncated file: the cut record reported, the rest decoded" "$tmp/cut.script.err" \
		"upmu-nic: cpu 0: bad data in AUX buffer 1 at 0: record truncated (0), 40 bytes skipped" \
		"upmu-nic: 5 samples, lost 3 samples in 1 gaps"
else
	not_ok "truncated file: perf script crashed"
fi

# --- an unknown format version in AUXTRACE_INFO: a warning, records decide ---
script info
has "unknown AUXTRACE_INFO version: a warning, the records still decoded" "$tmp/info.script.err" \
	"upmu-nic: record format version 3, this perf knows 2" \
	"upmu-nic: 7 samples, lost 3 samples in 1 gaps"

# --- random bytes in place of two buffers ---
if script garbage; then
	has "random payloads: skipped and counted" "$tmp/garbage.script.err" \
		"upmu-nic: 4 samples, lost 0 samples in 0 gaps" \
		"upmu-nic: bad data in 2 places, 480 bytes skipped"
else
	not_ok "random payloads: perf script crashed"
fi
run garbage report -D || not_ok "random payloads: perf report -D crashed"

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
