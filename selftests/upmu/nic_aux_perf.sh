#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The NIC's AUX stream end to end in the guest, with the patched perf
# (tools/perf-patches/, $UPMU_PERF: scripts/check.sh passes the one
# scripts/perfbuild.sh built): perf record of upmu_nicdiag_<serial>, then
# perf script / report -D / report on what it wrote.
#  - K samples of known values on the manual clock: exactly K diag lines
#    with those values, in order, each before the exec of a marker program
#    that ran after it and after the marker before it;
#  - a forced device overrun: one error record (PERF_RECORD_AUXTRACE_ERROR,
#    perf script's "instruction trace error ... code 1: lost N samples
#    (sample_id A..B)") with the exact range, the same after perf inject
#    --itrace=oe (as events of their own, no AUX data); a one-page AUX area and a
#    slow drain: perf's own TRUNCATED warning, and samples + lost (the
#    error records) = last sample_id - first + 1;
#  - perf record -D (the stream begins at the enabling: no LOST for what
#    came before), the event's CPU going offline while recording: nothing
#    lost; -S (SIGUSR2 snapshots) refused with its message;
#  - the seed's commands verbatim with this PMU: record with sched:*,
#    report -D (one decoded line per record), report, script;
#  - two NICs' streams in one recording refused, saying why, and so is
#    the stream with intel_pt or intel_bts (test-only PMUs of those names);
#  - perf's own test of the stream, tests/shell/test_upmu_nic.sh of the
#    series ("perf test upmu"): passes with the NIC, skips without one.
# Needs upmu_core and upmu_sim loaded; loads upmu_nic if it is not.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/upmu/lib.sh"
ID=41
D=/sys/kernel/debug/upmu_sim/$ID
PMU=upmu_nicdiag_$(printf '%08x' $((0x4e1c0000 + ID)))
PERF=${UPMU_PERF:-}
TMP=$(mktemp -d)
NTESTS=19
# RX packets and bytes of port 0, a 1024 ns device period
EV="$PMU/profile=0,id0=0x1020000300000000,id1=0x1020000100000000,dev_period=10"
PERIOD=1024

tap_plan $NTESTS
loaded_here=0
cleanup() {
	echo 1 > /sys/devices/system/cpu/cpu2/online 2>/dev/null
	sim_del $ID
	[ $loaded_here = 0 ] || mod_unload upmu_nic
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ -z "$PERF" ] || ! "$PERF" version >/dev/null 2>&1; then
	for _ in $(seq $NTESTS); do
		tap_fail "no patched perf (UPMU_PERF='$PERF': scripts/perfbuild.sh builds it, make check passes it)"
	done
	exit 0
fi
if ! grep -q "^upmu_nic " /proc/modules; then
	insmod "$UPMU_MODDIR/upmu_nic.ko" || { echo "Bail out! cannot load upmu_nic"; exit 1; }
	loaded_here=1
fi
echo "# $("$PERF" version)"

# newnic [clock=manual]: a NIC on socket 1 of 2 (CPUs 2 and 3 of the VM)
newnic() {
	sim_del $ID
	sim_new "$ID 2 blocks=nic pfs=2 ports=2 links=2 nic_socket=1 $*" &&
		pmu_present "$PMU"
}
# rec NAME PERF-RECORD-ARGS... -- WORKLOAD: perf record into $TMP/NAME.data
rec() {
	local name=$1
	shift
	"$PERF" record -q -o "$TMP/$name.data" "$@" > "$TMP/$name.rec" 2>&1 ||
		{ echo "# perf record $name failed:"; sed 's/^/#   /' "$TMP/$name.rec" | head; return 1; }
}
# scr NAME: perf script's lines of the stream (and markers) -> NAME.out,
# the summary on stderr -> NAME.err; an error record (PERF_RECORD_AUXTRACE_ERROR,
# " instruction trace error type 1 time T cpu C ... code N: MESSAGE") is
# "error N: MESSAGE"
scr() {
	"$PERF" script -i "$TMP/$1.data" -F comm,time,event,synth > "$TMP/$1.all" 2> "$TMP/$1.err" ||
		{ echo "# perf script $1 failed"; sed 's/^/#   /' "$TMP/$1.err" | head; return 1; }
	# comm, then the event and what follows; markers are the execs of "true"
	sed -n -e 's/^ *instruction trace error type 1 .* code \([0-9]*\): /error \1: /p' \
		-e 's/^ *\([^ ]*\) .*\(upmu-nic-[a-z]*\): */\2: /p' \
		-e 's/^ *true .*sched:sched_process_exec.*/marker/p' "$TMP/$1.all" |
		sed 's/ *$//' > "$TMP/$1.out"
}
# same NAME FILE: FILE is exactly stdin
same() {
	if diff -u - "$2" > "$TMP/diff"; then tap_ok "$1"
	else sed 's/^/# /' "$TMP/diff" | head -n 30; tap_fail "$1"; fi
}
# conserved NAME: no unreported gap, and samples + lost = last - first + 1
# over the samples and the error records of LOST ranges (code 1; the first
# drain may come after the device overwrote samples: a LOST before the
# first sample); any other error (a gap without LOST, missing records, bad
# data) is a failure
conserved() {
	awk '
	function seen(a, b) { if (!any++ || a < first) first = a; if (b > last) last = b }
	/^upmu-nic-diag: sample_id/ { n++; seen($3 + 0, $3 + 0) }
	/^error 1: lost [0-9]+ samples \(sample_id [0-9]+\.\.[0-9]+\)$/ {
		lost += $4; split($7, r, /[.)]+/); seen(r[1] + 0, r[2] + 0)
	}
	/^error [2-9]/ { bad++ }
	END {
		printf "# %d samples, lost %d, sample_id %d..%d\n", n, lost, first, last
		exit !(n > 0 && !bad && n + lost == last - first + 1)
	}' "$TMP/$1.out"
}
# conserved_summary NAME SUMMARY: conserved, and perf script's summary
# line is SUMMARY (a whole-line extended regex); else the summary is shown
conserved_summary() {
	conserved "$1" && grep -qxE "$2" "$TMP/$1.err" && return 0
	sed 's/^/#   /' "$TMP/$1.err"
	return 1
}

# --- K known samples, interleaved with markers of known time ---
newnic clock=manual || { echo "Bail out! no $PMU"; exit 1; }
cat > "$TMP/k.sh" <<EOF
inj() { echo "ev=rx port=0 \$*" > $D/nic/inject; }
adv() { echo \$1 > $D/advance; sleep 0.3; /bin/true; }
inj size=100 count=5; adv $((PERIOD + 64))
inj size=10 count=3; adv $PERIOD; adv $PERIOD
inj size=1 count=1; adv $PERIOD
EOF
if rec k -a -e sched:sched_process_exec,"$EV,log_samples=4/" -c 1000000 -- sh "$TMP/k.sh" &&
	scr k; then
	same "4 known samples, exact values, each between the markers around it" "$TMP/k.out" <<'EOF'
upmu-nic-diag: sample_id 0 port_rx_packets.p0 5 port_rx_bytes.p0 500
marker
upmu-nic-diag: sample_id 1 port_rx_packets.p0 8 port_rx_bytes.p0 530
marker
upmu-nic-diag: sample_id 2 port_rx_packets.p0 8 port_rx_bytes.p0 530
marker
upmu-nic-diag: sample_id 3 port_rx_packets.p0 9 port_rx_bytes.p0 531
marker
EOF
	tap_check "summary: 4 samples, no loss" grep -qxF "upmu-nic: 4 samples, lost 0 samples in 0 gaps" "$TMP/k.err"
else
	tap_fail "4 known samples (perf record or script failed)"
	tap_fail "summary: 4 samples, no loss"
fi

# --- a device overrun: one LOST with the exact range ---
newnic clock=manual
cat > "$TMP/o.sh" <<EOF
echo $((2 * PERIOD + 64)) > $D/advance; sleep 0.3
echo 6 > $D/nic/overrun; sleep 0.3
EOF
if rec o -a -e "$EV,log_samples=2/" -c 1000000 -- sh "$TMP/o.sh" && scr o; then
	same "overrun: samples 0 1, one error record of the LOST 2..3, samples 4-7" "$TMP/o.out" <<'EOF'
upmu-nic-diag: sample_id 0 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 1 port_rx_packets.p0 0 port_rx_bytes.p0 0
error 1: lost 2 samples (sample_id 2..3)
upmu-nic-diag: sample_id 4 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 5 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 6 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 7 port_rx_packets.p0 0 port_rx_bytes.p0 0
EOF
else
	tap_fail "overrun (perf record or script failed)"
fi

# --- perf inject: the overrun's samples and error record as events of
# their own, read back by a perf that does not decode (no AUX data left) ---
if [ -s "$TMP/o.out" ] &&
   "$PERF" inject --itrace=oe -i "$TMP/o.data" -o "$TMP/oi.data" > "$TMP/oi.inj" 2>&1 &&
   scr oi; then
	# (perf reads a file's error records as it meets them, but sorts
	# samples by time: without AUX data the error comes first, its time
	# and fields unchanged)
	grep -v ' instruction trace error ' "$TMP/o.all" > "$TMP/o.samples"
	grep ' instruction trace error ' "$TMP/o.all" > "$TMP/o.errors"
	grep ' instruction trace error ' "$TMP/oi.all" > "$TMP/oi.errors"
	if grep -v ' instruction trace error ' "$TMP/oi.all" | diff -u "$TMP/o.samples" - > "$TMP/diff" &&
	   diff -u "$TMP/o.errors" "$TMP/oi.errors" >> "$TMP/diff" && [ -s "$TMP/o.errors" ] &&
	   [ "$(wc -l < "$TMP/oi.out")" = "$(wc -l < "$TMP/o.out")" ]; then
		tap_ok "perf inject --itrace=oe: the same samples and error record (times, CPUs, values), read back"
	else
		sed 's/^/# /' "$TMP/diff" | head -n 30
		tap_fail "perf inject --itrace=oe: the same samples and error record (times, CPUs, values), read back"
	fi
	aux=$("$PERF" report -D -i "$TMP/oi.data" 2>/dev/null | grep -c 'PERF_RECORD_AUXTRACE size')
	aux0=$("$PERF" report -D -i "$TMP/o.data" 2>/dev/null | grep -c 'PERF_RECORD_AUXTRACE size')
	if [ "$aux" = 0 ] && [ "$aux0" -gt 0 ] &&
	   "$PERF" evlist -i "$TMP/oi.data" | grep -qx upmu-nic-diag; then
		tap_ok "perf inject: no AUX data left ($aux0 buffers before), event upmu-nic-diag"
	else
		tap_fail "perf inject: no AUX data left ($aux of $aux0 buffers), event upmu-nic-diag"
		"$PERF" evlist -i "$TMP/oi.data" 2>&1 | sed 's/^/#   /'
	fi
else
	tap_fail "perf inject --itrace=oe (no overrun recording, or inject or script failed)"
	sed 's/^/#   /' "$TMP/oi.inj" 2>/dev/null | head
	tap_fail "perf inject: no AUX data left"
fi

# --- a one-page AUX area, a drain every 200 ms: TRUNCATED, nothing silent ---
# (TRUNCATED is perf's to report, from PERF_RECORD_AUX: no error record)
# 128 samples (40 bytes each, 5120 bytes) do not fit in a page: TRUNCATED,
# the rest comes once perf record re-enabled the event; then 256 at once
# in a device of 128: 128 lost (128..255), the others in two commits again.
newnic clock=manual
cat > "$TMP/t.sh" <<EOF
echo $((128 * PERIOD + 64)) > $D/advance; sleep 1
echo $((256 * PERIOD)) > $D/advance; sleep 1
EOF
if rec t -a -m ,1 -e "$EV,log_samples=7/" -c 200000000 -- sh "$TMP/t.sh" && scr t; then
	tap_check "tiny AUX area: TRUNCATED reported (perf's AUX data lost warning)" \
		grep -qE "^AUX data lost [1-9][0-9]* times out of [1-9][0-9]*!" "$TMP/t.err"
	tap_check "tiny AUX area: 256 samples + 128 lost = sample_id 0..383, no silent gap" \
		conserved_summary t "upmu-nic: 256 samples, lost 128 samples in 1 gaps"
else
	tap_fail "tiny AUX area: TRUNCATED (perf record or script failed)"
	tap_fail "tiny AUX area: samples + lost"
fi

# --- perf record -D: the stream begins at the enabling, nothing lost after ---
newnic clock=manual
cat > "$TMP/d.sh" <<EOF
echo $((3 * PERIOD + 64)) > $D/advance
sleep 1.5
echo $((3 * PERIOD)) > $D/advance; sleep 0.3
EOF
if rec d -a -D 700 -e "$EV,log_samples=4/" -c 1000000 -- sh "$TMP/d.sh" && scr d; then
	same "record -D: samples 3-5 (0-2 came before the enabling), no LOST" "$TMP/d.out" <<'EOF'
upmu-nic-diag: sample_id 3 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 4 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 5 port_rx_packets.p0 0 port_rx_bytes.p0 0
EOF
else
	tap_fail "record -D (perf record or script failed)"
fi

# --- the event's CPU (2, the first of the NIC's socket) goes offline ---
newnic clock=manual
cat > "$TMP/c.sh" <<EOF
echo $((2 * PERIOD + 64)) > $D/advance; sleep 0.3
echo $PERIOD > $D/advance
echo 0 > /sys/devices/system/cpu/cpu2/online
echo $((2 * PERIOD)) > $D/advance; sleep 0.3
echo 1 > /sys/devices/system/cpu/cpu2/online
echo $PERIOD > $D/advance; sleep 0.3
EOF
if [ "$(cat "/sys/bus/event_source/devices/$PMU/cpumask")" != 2 ]; then
	tap_fail "CPU offline: $PMU is not on CPU 2 ($(cat "/sys/bus/event_source/devices/$PMU/cpumask"))"
elif rec c -a -e "$EV,log_samples=4/" -c 1000000 -- sh "$TMP/c.sh" && scr c; then
	same "CPU offline while recording: samples 0-5, none lost" "$TMP/c.out" <<'EOF'
upmu-nic-diag: sample_id 0 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 1 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 2 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 3 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 4 port_rx_packets.p0 0 port_rx_bytes.p0 0
upmu-nic-diag: sample_id 5 port_rx_packets.p0 0 port_rx_bytes.p0 0
EOF
else
	tap_fail "CPU offline (perf record or script failed)"
fi
echo 1 > /sys/devices/system/cpu/cpu2/online 2>/dev/null

# --- snapshot mode (-S, SIGUSR2) is refused, saying why ---
tap_check "record -S refused: snapshot mode not supported" \
	fails "$PMU: AUX snapshot mode is not supported (the PMU refuses overwrite mode)" \
	"$PERF" record -o "$TMP/s.data" -S -a -e "$EV/" -c 1000000 -- true

# --- a drain period longer than the device takes to fill its buffer ---
# 2^10 samples of 2^20 ns fill in 1.07 s: asked for a drain every 4 s,
# the timer comes every 537 ms instead, and a 2.5 s record loses nothing.
newnic
echo "add id=1 rate=1000 ev=rx port=0 size=64" > "$D/nic/flows"
if rec l -a -e "$PMU/doca_default/" -c 4000000000 -- sleep 2.5 && scr l; then
	tap_check "drain period 4 s, device buffer 1.07 s: the drain comes in time, nothing lost" \
		conserved_summary l "upmu-nic: [0-9]+ samples, lost 0 samples in 0 gaps"
else
	tap_fail "drain period 4 s (perf record or script failed)"
fi

# --- the seed's commands, verbatim with this PMU, on a live flow ---
newnic
echo "add id=1 rate=1000 ev=rx port=0 size=64" > "$D/nic/flows"
cd "$TMP" || exit 1
if "$PERF" record -a -e "sched:*,$PMU/doca_default/" -c 1000000000 sleep 1 > seed.rec 2>&1 &&
	"$PERF" report -D > seed.dump 2> seed.dump.err &&
	"$PERF" report --stdio > seed.report 2> seed.report.err &&
	"$PERF" script > seed.script 2> seed.script.err; then
	sed -n -e 's/^ *instruction trace error type 1 .* code \([0-9]*\): /error \1: /p' \
		-e 's/.*\(upmu-nic-[a-z]*\): */\1: /p' seed.script | sed 's/ *$//' > seed.out
	ns=$(grep -c '^upmu-nic-diag: sample_id' seed.out)
	nd=$(grep -c '^\.  [0-9a-f]\{8\}: *SAMPLE seq' seed.dump)
	echo "# seed: $ns samples in perf script, $nd SAMPLE lines in report -D"
	tap_check "seed: perf script has samples, no silent gap (samples + lost = range)" conserved seed
	tap_check "seed: report -D decodes one line per sample (under its SAMPLES record) ($nd = $ns)" test "$nd" = "$ns" -a "$ns" -gt 0
	# perf report prints the count as convert_unit() makes it: 1K, not 1234
	if [ "$ns" -gt 1000000 ]; then nr="$((ns / 1000000))M"
	elif [ "$ns" -gt 1000 ]; then nr="$((ns / 1000))K"
	else nr="$ns "; fi
	tap_check "seed: report counts them as their own event ($nr)" \
		grep -q "^# Samples: $nr *of event 'upmu-nic-diag'" seed.report
else
	echo "# seed commands failed:"; tail -n 5 seed.* 2>/dev/null | sed 's/^/#   /'
	tap_fail "seed: perf script"
	tap_fail "seed: report -D"
	tap_fail "seed: report"
fi
cd / || exit 1

# --- two NICs, one stream per recording: refused, saying why ---
PMU2=upmu_nicdiag_$(printf '%08x' $((0x4e1c0000 + ID + 1)))
newnic
sim_del $((ID + 1))
if sim_new "$((ID + 1)) 2 blocks=nic pfs=2 ports=2 links=2 nic_socket=1" && pmu_present "$PMU2"; then
	tap_check "two NICs' streams in one recording refused" \
		fails "$PMU and $PMU2: one NIC diagnostic stream per recording" \
		"$PERF" record -o "$TMP/two.data" -a -e "$PMU/port_traffic/,$PMU2/port_traffic/" -c 1000000 -- true
else
	tap_fail "two NICs' streams: no second NIC ($PMU2)"
fi
sim_del $((ID + 1))

# --- an AUX area PMU of the CPU with it: refused, saying why.  No guest
# CPU here has intel_pt or intel_bts; perf knows them by name, so the
# test-only upmu_testpmu registers a counting PMU under each name in turn
# (the refusal comes before any event is opened) ---
newnic
for aux in intel_pt intel_bts; do
	if ! grep -q "^upmu_testpmu " /proc/modules &&
	   insmod "$UPMU_MODDIR/upmu_testpmu.ko" name=$aux && pmu_present $aux; then
		tap_check "$aux with the NIC's stream refused" \
			fails "$aux and $PMU may not be used together: one AUX area tracing PMU per recording" \
			"$PERF" record -o "$TMP/aux.data" -a -e "$aux//,$PMU/port_traffic/" -c 1000000 -- true
	else
		tap_fail "$aux with the NIC's stream: no $aux PMU (upmu_testpmu name=$aux)"
	fi
	mod_unload upmu_testpmu
done

# --- perf's own test of the stream (tests/shell/test_upmu_nic.sh of the
# series, next to the binary; it runs perf from PATH): passes on the NIC,
# skips (exit 2) without one ---
newnic
echo "add id=1 rate=1000 ev=rx port=0 size=64" > "$D/nic/flows"
PATH=$(dirname "$PERF"):$PATH "$PERF" test -v upmu > "$TMP/ptest.out" 2>&1
sed 's/^/#   /' "$TMP/ptest.out" | tail -n 25
tap_check "perf test upmu: passes on the NIC" \
	grep -qE "^ *[0-9]+: upmu NIC diagnostic AUX stream: record, script and report -D *: Ok$" "$TMP/ptest.out"
sim_del $ID
if pmu_absent "$PMU"; then
	PATH=$(dirname "$PERF"):$PATH "$PERF" test -v upmu > "$TMP/ptest0.out" 2>&1
	tap_check "perf test upmu: skips without a NIC" \
		grep -qE "^ *[0-9]+: upmu NIC diagnostic AUX stream: record, script and report -D *: Skip" "$TMP/ptest0.out"
else
	tap_fail "perf test upmu without a NIC: $PMU still there"
fi
tap_exit
