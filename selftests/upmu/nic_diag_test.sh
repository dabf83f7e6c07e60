#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu-diag (the sanitized build) against the simulated NIC through
# upmu_nic's fwctl devices and the device's extension commands: exact CSV
# values for traffic injected on the manual clock (single mode with
# synchronized start, repetitive mode with a forced overrun and its lost
# count, on demand), the list of data IDs against the simulator's, apply
# failures and bad input with their messages and exit codes, and the
# engine's ownership across processes and PFs (refused with the owner
# named, taken over with -f and the loser told, freed by a killed owner).
# build/selftests/nic_diag_lib checks the library itself on the device
# (formats byte for byte, lost counts, NULL-buffer and last-seen reads,
# the state machine, ownership).  Needs upmu_core and upmu_sim; loads
# upmu_nic if it is not (and unloads it if it did).  Without fwctl
# (Linux 6.1) only the checks that need no device run; the rest SKIPs.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/upmu/lib.sh"
DIAG=$top/build/selftests/upmu-diag
LIB=$top/build/selftests/nic_diag_lib
ID=37
D=/sys/kernel/debug/upmu_sim/$ID
ADDR=$(printf '%08x' $((0x4e1c0000 + ID))).0
ADDR1=${ADDR%.0}.1
TMP=$(mktemp -d)
NTESTS=18

tap_plan $NTESTS
loaded_here=0
cleanup() {
	[ -z "${bg:-}" ] || kill "$bg" 2>/dev/null
	[ -z "${bg2:-}" ] || kill "$bg2" 2>/dev/null
	wait 2>/dev/null
	sim_del $ID
	[ $loaded_here = 0 ] || mod_unload upmu_nic
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ ! -d /sys/class/fwctl ] && ! grep -q fwctl /proc/modules; then
	modprobe fwctl 2>/dev/null
fi
# Without fwctl (kernels before 6.15) only the device-less checks run; the
# others SKIP.  On a kernel that has fwctl, a missing one fails them.
nofw=0
[ -d /sys/class/fwctl ] || kernel_has_fwctl || nofw=1
fw_check() {	# tap_check, or a SKIP without fwctl
	if [ $nofw = 1 ]; then tap_skip "$1 (kernel without fwctl)"; else tap_check "$@"; fi
}
if [ $nofw = 0 ] && ! grep -q "^upmu_nic " /proc/modules; then
	insmod "$UPMU_MODDIR/upmu_nic.ko" || { echo "Bail out! cannot load upmu_nic"; exit 1; }
	loaded_here=1
fi
[ -x "$DIAG" ] || { echo "Bail out! $DIAG: not built (make selftests)"; exit 1; }
[ -x "$LIB" ] || { echo "Bail out! $LIB: not built (make selftests)"; exit 1; }

# A NIC with 2 PFs, 2 ports, 1 PCIe link, 1 host, 2 functions; 1 GHz clock
# (a clock is a ns), 2^12 counter-samples, shortest period 2^10 clocks.
newnic() {
	sim_del $ID
	sim_new "$ID 1 clock=manual blocks=nic pfs=2 ports=2 links=1 hosts=1 funcs=2" || return 1
	# both PFs' fwctl devices
	fwctl_nodes_within "${ADDR%.0}" 2 5 && return 0
	echo "# no fwctl devices for $ADDR"
	return 1
}
inject() { echo "$*" > "$D/nic/inject"; }
advance() { echo "$1" > "$D/advance"; }
now() { cat "$D/now_ns"; }

# upmu-diag in the background, sampling until finish_bg (SIGINT): the
# tests wait for what they expect, never for a run time, so a slow
# machine cannot make them fail.
run_bg() {	# run_bg ERRFILE ARGS...
	local err=$1
	shift
	"$DIAG" -rt 600 "$@" 2> "$err" &
	bg=$!
	wait_started "$err"
}
finish_bg() {	# finish_bg ERRFILE: stop it, 0 if it exited 0
	local rc
	kill -INT "$bg" 2>/dev/null
	wait "$bg"
	rc=$?
	bg=
	[ $rc = 0 ] && return 0
	echo "# upmu-diag exited $rc:"; sed 's/^/#   /' "$1"
	return 1
}
# Wait (up to 60 s by the clock: a loop's turns are slow under TCG)
# until $1 has $2 lines.
wait_lines() {
	local end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		[ "$(wc -l < "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.2
	done
	echo "# $1 has fewer than $2 lines:"; sed 's/^/#   /' "$1"
	return 1
}

# Wait (up to 60 s) until the background upmu-diag has started sampling.
wait_started() {
	local end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		grep -q "actual sample period" "$1" 2>/dev/null && return 0
		kill -0 "$bg" 2>/dev/null || break
		sleep 0.2
	done
	echo "# upmu-diag did not start:"; sed 's/^/#   /' "$1"
	return 1
}
# Wait (up to 60 s) until $1 has a line matching $2.
wait_line() {
	local end=$((SECONDS + 60))
	while [ $SECONDS -lt $end ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "# no line '$2' in $1:"; sed 's/^/#   /' "$1"
	return 1
}
# same FILE EXPECTED-TEXT: the file is exactly that
same() {
	if [ "$(cat "$1")" = "$2" ]; then return 0; fi
	echo "# $1 is not as expected; diff (expected, got):"
	diff <(echo "$2") "$1" | sed 's/^/#   /'
	return 1
}

# ---- 1: list names every data ID of the device, with class and sync
t_list() {
	local got want
	newnic || return 1
	"$DIAG" list -p "$ADDR" > "$TMP/list" || return 1
	got=$(awk 'NR > 1 { print $2 }' "$TMP/list" | sort)
	want=$(grep -o '0x[0-9a-f]\{16\}' "$D/nic/counters" | sort -u)
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		{ echo "# list: $(echo "$got" | wc -l) IDs, the simulator: $(echo "$want" | wc -l)"; return 1; }
	grep -q '^port_prio_rx_pause.p1.prio7 *0x1020000600000701 Counter *yes' "$TMP/list" &&
	grep -q '^pcie_rd_lat_max_ns.l0 *0x1160000d00000000 Statistic no' "$TMP/list" &&
	grep -q '^qp_desched *0x1100000200000000 Counter *no' "$TMP/list" &&
	grep -q '^func_tx_cqe.f1 *0x10c0000500000001 Counter' "$TMP/list"
}
fw_check "list: every data ID of the device, class, sync, description" t_list

# ---- 2: single mode, synchronized start: exact values, exact timestamps
cat > "$TMP/ids.json" <<'EOF'
{ "data_ids": [
  { "name": "rx_bytes", "data_id": "0x1020000100000000" },
  { "data_id": "port_rx_packets.p0" },
  "port_prio_tx_bytes.p1.prio3",
  "icmc_hits",
  { "name": "cqe_f1", "data_id": "0x10c0000200000001" }
] }
EOF
t_single() {
	local t0 k want
	newnic || return 1
	t0=$(now)
	run_bg "$TMP/single.err" -p "$ADDR" -di "$TMP/ids.json" -sm 0 -ns 2 -sp 1000 \
		--sync-start -of 1 -o "$TMP/single.csv" || return 1
	for k in 0 1 2 3 4 5; do
		inject "ev=rx port=0 prio=0 size=100 count=$((k + 1))"
		inject "ev=tx port=1 prio=3 size=64 count=2"
		inject "ev=icmc_hit count=10"
		inject "ev=rx_cqe func=1"
		advance 1024
	done
	wait_lines "$TMP/single.csv" 5 || return 1
	finish_bg "$TMP/single.err" || return 1
	# single mode: 4 samples (2^2), then it stops; sample k at t0 + (k+1) P
	want="sample_id,first_timestamp_ns,last_timestamp_ns,rx_bytes,port_rx_packets.p0,port_prio_tx_bytes.p1.prio3,icmc_hits,cqe_f1"
	for k in 0 1 2 3; do
		local ts=$((t0 + (k + 1) * 1024)) p=$(((k + 1) * (k + 2) / 2))
		want="$want
$k,$ts,$ts,$((100 * p)),$p,$((128 * (k + 1))),$((10 * (k + 1))),$((k + 1))"
	done
	same "$TMP/single.csv" "$want" &&
	grep -q "actual sample period 1024 ns" "$TMP/single.err" &&
	grep -q "4 samples written to $TMP/single.csv, 0 lost" "$TMP/single.err"
}
fw_check "single mode, sync start: exact CSV values and timestamps" t_single

# ---- 3: without sync, counter i is read 64 clocks after counter 0
t_nosync() {
	local t0 want
	newnic || return 1
	t0=$(now)
	run_bg "$TMP/nosync.err" -p "$ADDR" -di "$TMP/ids.json" -sm 0 -ns 1 -sp 1024 \
		-of 0 -o "$TMP/nosync.csv" || return 1
	inject "ev=icmc_hit count=7"
	# sample 1 is complete once its last counter is read: 2048 + 4 x 64
	advance 3000
	wait_lines "$TMP/nosync.csv" 3 || return 1
	finish_bg "$TMP/nosync.err" || return 1
	want=$(printf '0,%d,%d,0,0,0,7,0\n1,%d,%d,0,0,0,7,0' \
		$((t0 + 1024)) $((t0 + 1024 + 4 * 64)) $((t0 + 2048)) $((t0 + 2048 + 4 * 64)))
	same <(tail -n +2 "$TMP/nosync.csv") "$want"
}
fw_check "no sync, format 0: per-data-ID timestamps" t_nosync

# ---- 4: repetitive mode: an overrun is counted as lost, never skipped
t_repetitive() {
	newnic || return 1
	echo '["icmc_hits"]' > "$TMP/one.json"
	run_bg "$TMP/rep.err" -p "$ADDR" -di "$TMP/one.json" -sm 1 -ns 2 -sp 1024 \
		-of 2 -o "$TMP/rep.csv" || return 1
	inject "ev=icmc_hit count=3"
	advance 1024
	wait_line "$TMP/rep.csv" '^0,' || return 1
	# 10 samples back to back into 4 slots: 1..6 overwritten unread
	echo 10 > "$D/nic/overrun" || return 1
	wait_lines "$TMP/rep.csv" 6 || return 1
	finish_bg "$TMP/rep.err" || return 1
	[ "$(cut -d, -f1,4 "$TMP/rep.csv" | tail -n +2 | tr '\n' ' ')" = "0,3 7,3 8,3 9,3 10,3 " ] ||
		{ echo "# rows:"; sed 's/^/#   /' "$TMP/rep.csv"; return 1; }
	grep -q "6 samples lost (overwritten before read) before sample_id 7" "$TMP/rep.err" &&
	grep -q "5 samples written to $TMP/rep.csv, 6 lost" "$TMP/rep.err"
}
fw_check "repetitive mode: overrun reported as 6 lost samples" t_repetitive

# ---- 5: on demand: each read takes a fresh sample
t_on_demand() {
	local n
	newnic || return 1
	inject "ev=tx_cqe func=0 count=5"
	run_bg "$TMP/od.err" -p "$ADDR" -di "$TMP/one.json" -sm 2 -sp 100000000 -of 1 \
		-o "$TMP/od.csv" || return 1
	inject "ev=icmc_hit count=4"
	wait_line "$TMP/od.csv" ',4$' || return 1
	finish_bg "$TMP/od.err" || return 1
	n=$(tail -n +2 "$TMP/od.csv" | wc -l)
	[ "$n" -ge 2 ] || { echo "# $n on-demand samples"; return 1; }
	# sample_ids 0, 1, ...; the injection lands in the samples after it
	[ "$(tail -n +2 "$TMP/od.csv" | cut -d, -f1 | tr '\n' ' ')" = "$(seq -s ' ' 0 $((n - 1))) " ] &&
	[ "$(tail -n 1 "$TMP/od.csv" | cut -d, -f4)" = 4 ]
}
fw_check "on demand: one fresh sample per read" t_on_demand

# ---- 6: apply failures name the data ID, its index and the reason
t_apply_fail() {
	newnic || return 1
	echo '["icmc_hits", "port_rx_bytes.p5"]' > "$TMP/p5.json"
	fails "data ID 1 (port_rx_bytes.p5, 0x1020000100000005): data ID not supported by the device" \
		"$DIAG" -p "$ADDR" -di "$TMP/p5.json" -rt 0 -o "$TMP/x.csv" &&
	echo '["icmc_hits", "qp_desched"]' > "$TMP/ns.json" &&
	fails "data ID 1 (qp_desched, 0x1100000200000000): data ID cannot take a synchronized start (cannot take a synchronized start)" \
		"$DIAG" -p "$ADDR" -di "$TMP/ns.json" --sync-start -rt 0 -o "$TMP/x.csv" &&
	fails "configuration: Invalid argument" "$DIAG" -p "$ADDR" --data-clear -rt 0 -o "$TMP/x.csv"
}
fw_check "apply failures: index, data ID and reason" t_apply_fail

# ---- 7: one owner per NIC, through either PF; the refusal names it
# (uid 1: the first fwctl file of PF 0 on a fresh NIC)
t_busy() {
	newnic || return 1
	run_bg "$TMP/a.err" -p "$ADDR" -di "$TMP/one.json" -sm 1 -o "$TMP/a.csv" || return 1
	fails "$ADDR1: engine owned by PF 0 uid 1; -f takes it over" \
		"$DIAG" -p "$ADDR1" -rt 0 -o "$TMP/b.csv" &&
	fails "$ADDR: engine owned by PF 0 uid 1; -f takes it over" \
		"$DIAG" -p "$ADDR" -rt 0 -o "$TMP/b.csv" &&
	fails_rc 1 "$DIAG" -p "$ADDR1" -rt 0 -o "$TMP/b.csv"
	local r=$?
	finish_bg "$TMP/a.err" && return $r
}
fw_check "a second user is refused through either PF, the owner named" t_busy

# ---- 8: -f takes the engine over; the first user is told and exits 1
t_force() {
	local rc
	newnic || return 1
	run_bg "$TMP/a.err" -p "$ADDR" -di "$TMP/one.json" -sm 1 -sp 1024 -o "$TMP/a.csv" || return 1
	local a=$bg
	"$DIAG" -rt 600 -f -p "$ADDR1" -di "$TMP/one.json" -sm 1 -o "$TMP/b.csv" 2> "$TMP/b.err" &
	bg2=$!
	wait_line "$TMP/b.err" "actual sample period" || return 1
	grep -q "^upmu-diag: took the engine over from PF 0 uid 1$" "$TMP/b.err" ||
		{ echo "# b:"; sed 's/^/#   /' "$TMP/b.err"; return 1; }
	# a's next read (within 500 ms) finds the engine gone
	wait "$a"
	rc=$?
	bg=
	[ $rc = 1 ] || { echo "# a exited $rc"; sed 's/^/#   /' "$TMP/a.err"; return 1; }
	grep -q "^upmu-diag: lost the engine: PF 1 uid 1 took it over (force); 0 samples written to $TMP/a.csv, 0 lost$" "$TMP/a.err" ||
		{ echo "# a:"; sed 's/^/#   /' "$TMP/a.err"; return 1; }
	# b samples on
	advance 2048
	wait_line "$TMP/b.csv" '^1,' || return 1
	kill -INT "$bg2"
	wait "$bg2"
	rc=$?
	bg2=
	[ $rc = 0 ] || { echo "# b exited $rc"; sed 's/^/#   /' "$TMP/b.err"; return 1; }
}
fw_check "-f takes the engine over through the other PF; the first user exits 1" t_force

# ---- 9: an owner killed (SIGKILL) frees the engine: no -f needed
t_stale() {
	newnic || return 1
	run_bg "$TMP/a.err" -p "$ADDR" -di "$TMP/one.json" -sm 1 -o "$TMP/a.csv" || return 1
	kill -KILL "$bg"
	wait "$bg" 2>/dev/null
	bg=
	"$DIAG" -p "$ADDR1" -di "$TMP/one.json" -sm 1 -rt 0 -o "$TMP/b.csv" 2> "$TMP/b.err" ||
		{ echo "# b failed:"; sed 's/^/#   /' "$TMP/b.err"; return 1; }
	! grep -q "took the engine over" "$TMP/b.err" &&
	grep -q "0 samples written to $TMP/b.csv, 0 lost" "$TMP/b.err"
}
fw_check "a killed owner frees the engine for the other PF" t_stale

# ---- 10: the default data IDs (-e) round trip through -di, -j flags
t_json() {
	newnic || return 1
	"$DIAG" -e "$TMP/def.json" &&
	cat > "$TMP/flags.json" <<EOF &&
{ "pci-addr": "$ADDR", "data-ids": "$TMP/def.json", "sample-mode": 0,
  "log-num-samples": 1, "sample-period": 1024, "sample-run-time": 600,
  "output": "$TMP/j.csv", "output-format": 2 }
EOF
	{ "$DIAG" -j "$TMP/flags.json" 2> "$TMP/j.err" & bg=$!; } &&
	wait_started "$TMP/j.err" &&
	inject "ev=rx port=0 prio=1 size=1500 count=2" &&
	# no sync: sample 0 is complete once its 8th counter is read (+7 x 64)
	advance 2048 && wait_lines "$TMP/j.csv" 2 && finish_bg "$TMP/j.err" &&
	[ "$(head -n 1 "$TMP/j.csv")" = "sample_id,first_timestamp_ns,last_timestamp_ns,port_rx_bytes.p0,port_tx_bytes.p0,port_rx_packets.p0,port_tx_packets.p0,rx_cqe,tx_cqe,icmc_hits,icmc_misses" ] &&
	[ "$(sed -n 2p "$TMP/j.csv" | cut -d, -f1,4-)" = "0,3000,0,2,0,0,0,0,0" ]
}
fw_check "-e default data IDs and -j flags file" t_json

# ---- 10b: -o a symbolic link (planted in /tmp, say): refused, the
# file it points to untouched
t_symlink() {
	newnic || return 1
	echo keep > "$TMP/victim"
	ln -sf "$TMP/victim" "$TMP/link.csv"
	fails_rc 1 "$DIAG" -p "$ADDR" -di "$TMP/one.json" -sm 1 -rt 0 -o "$TMP/link.csv" &&
	fails "link.csv: Too many levels of symbolic links (a symbolic link: not followed)" \
		"$DIAG" -p "$ADDR" -di "$TMP/one.json" -sm 1 -rt 0 -o "$TMP/link.csv" &&
	[ "$(cat "$TMP/victim")" = keep ]
}
fw_check "-o a symbolic link: refused, exit 1, its target untouched" t_symlink

# ---- 11: malformed input: a message and exit 2, never a crash
t_bad_input() {
	printf '{"data_ids": [' > "$TMP/bad1.json"
	printf '{"data_ids": ["icmc_hits",]}' > "$TMP/bad2.json"
	printf '{"sample-mode": "1"}' > "$TMP/bad3.json"
	fails_rc 2 "$DIAG" -di "$TMP/bad1.json" &&
	fails "malformed JSON" "$DIAG" -di "$TMP/bad1.json" &&
	fails "malformed JSON" "$DIAG" -di "$TMP/bad2.json" &&
	fails "\"sample-mode\": wrong type" "$DIAG" -j "$TMP/bad3.json" &&
	fails "is out of range" "$DIAG" -sm 7 &&
	fails "unknown argument" "$DIAG" -zz &&
	fails "needs a value" "$DIAG" -sp &&
	fails_rc 2 "$DIAG" -di /nonexistent.json
}
tap_check "malformed flags and JSON: message, exit 2" t_bad_input

# ---- 12: a device that is not there
t_no_device() {
	fails "No such device" "$DIAG" -p 0badc0de.0 -rt 0 -o "$TMP/x.csv" &&
	fails_rc 1 "$DIAG" -p fwctl999 -rt 0 -o "$TMP/x.csv"
}
tap_check "unknown device: ENODEV, exit 1" t_no_device

# ---- 13-17: the library itself on the device (nic_diag_lib), one test
# each on a fresh NIC
t_lib() {
	local out rc
	newnic || return 1
	out=$(UPMU_DIAG_DEV=$ADDR UPMU_DIAG_DEV1=$ADDR1 UPMU_DIAG_SIM=$D "$LIB" -t "$1" 2>&1)
	rc=$?
	echo "$out" | grep -v '^ok\|^TAP\|^1\.\.' | sed 's/^/# /'
	[ $rc = 0 ] && echo "$out" | grep -q "^ok 1 global.$1$"
}
fw_check "library: formats 0/1/2 byte-exact, 64-bit timestamps" t_lib formats
fw_check "library: lost samples counted exactly, NULL buffer" t_lib lost
fw_check "library: max samples per read and last-seen timestamp" t_lib last_seen
fw_check "library: illegal transitions refused by the device" t_lib state_machine
fw_check "library: ownership across PFs, force, lost ownership" t_lib ownership

tap_exit
