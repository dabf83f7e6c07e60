#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM as root: loads the upmu modules built for the
# running kernel and runs the selftests.  Each program's TAP output is
# printed between "=== upmu-test: NAME" and "=== upmu-end: NAME rc=RC (N s)",
# each result line followed by "# upmu-time: N" (seconds since the
# program's previous result, or its start: a harness test's fixture
# setup, the test and its teardown).
#   guest-suite.sh [NAME...]	(only the named tests, e.g. c2c_test)
#   guest-suite.sh --list [NAME...]	print the programs that would run, one
#				a line (the manifest scripts/check.sh checks
#				the output against; runs nothing, host or guest)
#   guest-suite.sh --alone	print the programs that run only when named
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin="$top/build/selftests"

# The suite, in the order it runs: a program NAME is
# selftests/upmu/NAME.sh if that exists, else build/selftests/NAME.
SUITE="
fixture_test
sim_test
ucf_test
cmem_test
pcie_test
pcie_tgt_test
c2c_test
families_test
bpf_read_test
fuzz_test
stress_test
testpmu_test
icx_test
icx_mem_test
icx_metrics_test
nic_fwctl_test
nic_diag_test
perf_examples
metrics_test
perf_metrics_test
pcimap_test
abi_test
iostat_test
demo_test
modules_test
nic_fw_test
nic_pmu_test
nic_aux_test
nic_aux_perf
exporter_test
"

# Programs that need a VM of their own, run only when named (check.sh
# boots one for each): topo_test's guest boots with fewer CPUs up than
# it has (vm.sh --cpus 8, maxcpus=4).
ALONE="
topo_test
"

# shellcheck disable=SC2086 # a list of program names
[ "${1:-}" != --alone ] || { printf '%s\n' $ALONE; exit 0; }
list=0
[ "${1:-}" != --list ] || { list=1; shift; }
sel=""
for name in "$@"; do
	case " $(echo $SUITE $ALONE) " in *" $name "*) ;; *)
		echo "guest-suite.sh: no test program $name (have:$(echo " "$SUITE $ALONE))" >&2
		exit 2 ;;
	esac
done
for name in $SUITE $ALONE; do
	if [ $# = 0 ]; then
		[[ " $(echo $ALONE) " == *" $name "* ]] || sel="$sel $name"
	elif [[ " $* " == *" $name "* ]]; then
		sel="$sel $name"
	fi
done
if [ $list = 1 ]; then
	printf '%s\n' $sel
	exit 0
fi

rel=$(uname -r)
export UPMU_MODDIR="$top/build/$rel"
export PERF=${PERF:-/usr/bin/perf}

if [ ! -f "$UPMU_MODDIR/upmu_core.ko" ]; then
	echo "=== upmu-test: load"; echo "Bail out! no modules for $rel in $UPMU_MODDIR"
	echo "=== upmu-end: load rc=1"; exit 1
fi
for m in upmu_core upmu_sim upmu_t410; do
	insmod "$UPMU_MODDIR/$m.ko" || { echo "insmod $m failed"; exit 1; }
done
echo "upmu: modules loaded on $rel ($(nproc) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) nodes)"

# A program that runs longer than UPMU_TEST_TIMEOUT seconds (default 1800,
# 7200 with UPMU_SOAK=1; the longest, icx_mem_test, took 743 s on the
# debug kernel in CI on 2026-11-26, its VM sharing 2 cores with two others) is
# stopped, after what it was doing is printed: its processes with their
# kernel stacks, and the blocked tasks (sysrq w, in the kernel log).  It
# fails (rc 143) and so does the VM run (the kernel log has call traces).
if [ "${UPMU_SOAK:-0}" = 1 ]; then tmo=${UPMU_TEST_TIMEOUT:-7200}
else tmo=${UPMU_TEST_TIMEOUT:-1800}; fi
# Copy a program's output, adding "# upmu-time: SECONDS" after each
# result line (tap-summary.awk collects them; bash's clock, no program
# per line).
tap_times() {
	local line t0=${EPOCHREALTIME/[^0-9]/} t d
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line"
		case $line in "ok "[0-9]*|"not ok "[0-9]*)
			t=${EPOCHREALTIME/[^0-9]/}
			d=$((t - t0)); t0=$t
			printf '# upmu-time: %d.%d\n' $((d / 1000000)) $((d % 1000000 / 100000))
		esac
	done
}
run_watched() {	# run_watched NAME CMD
	local pid wd rc p tp fifo
	fifo=$(mktemp -u /tmp/upmu-tap.XXXXXX)
	mkfifo "$fifo" || return 1
	tap_times < "$fifo" &
	tp=$!
	setsid "$2" > "$fifo" 2>&1 &
	pid=$!
	(
		sleep "$tmo"
		kill -0 "$pid" 2>/dev/null || exit 0
		echo "# upmu: $1 still runs after $tmo s (UPMU_TEST_TIMEOUT): stopping it"
		{ ps -o pid,ppid,stat,etime,wchan:24,args -s "$pid"
		  ps -eo pid,ppid,stat,etime,wchan:24,args | awk '$3 ~ /D/'; } | sed 's/^/#   /'
		for p in $(ps -o pid= -s "$pid"); do
			echo "#   kernel stack of $p ($(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)):"
			sed 's/^/#     /' "/proc/$p/stack" 2>/dev/null
		done
		echo w > /proc/sysrq-trigger 2>/dev/null
		kill -TERM -- -"$pid" 2>/dev/null
		sleep 10
		kill -KILL -- -"$pid" 2>/dev/null
	) 2>/dev/null &
	wd=$!
	wait "$pid"
	rc=$?
	# the watchdog's sleep, then the watchdog
	{ pkill -P "$wd"; kill "$wd"; wait "$wd"; } 2>/dev/null
	# the copy ends with the output, unless a process the program left
	# behind holds it open
	for p in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$tp" 2>/dev/null || break
		sleep 0.5
	done
	kill "$tp" 2>/dev/null
	wait "$tp" 2>/dev/null
	rm -f "$fifo"
	return $rc
}

for name in $sel; do
	cmd=$bin/$name
	[ ! -f "$top/selftests/upmu/$name.sh" ] || cmd=$top/selftests/upmu/$name.sh
	t0=$(date +%s.%N)
	echo "=== upmu-test: $name"
	if [ -x "$cmd" ]; then
		run_watched "$name" "$cmd"
		rc=$?
	else
		echo "Bail out! $cmd: no such program (make selftests)"
		rc=127
	fi
	echo "=== upmu-end: $name rc=$rc ($(echo "$t0 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }') s)"
done
exit 0
