#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: host checks, then the VM suite on the debug kernel and on
# Debian's stock kernel.  Prints how long each host check, each VM run and
# each test program in it took, and the total.  Last line: "N passed,
# N failed, N skipped"; exits non-zero on any failure.
#
# UPMU_SOAK=1 (make soak): the tests' long loop counts (see
# selftests/upmu/lib.sh) and VM timeouts to match.
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP" || exit 1

out="$UPMU_TOP/build/check"
rm -rf "$out"; mkdir -p "$out"
pass=0 fail=0 skip=0
start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
soak=${UPMU_SOAK:-0}

result() {	# result ok|fail|skip NAME
	case $1 in
	ok) pass=$((pass + 1)); echo "ok - $2" ;;
	skip) skip=$((skip + 1)); echo "ok - $2 # SKIP" ;;
	*) fail=$((fail + 1)); echo "not ok - $2" | tee -a "$out/failures" ;;
	esac
}

# Seconds since $1 (date +%s.%N), one decimal.
since() { echo "$1 $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }'; }

step() {	# step NAME CMD...: a host check, output kept in build/check
	local name=$1 log t0
	log="$out/$(echo "$1" | tr ' /' '__').log"
	shift
	t0=$(date +%s.%N)
	if "$@" >"$log" 2>&1; then result ok "$name ($(since "$t0") s)"
	else result fail "$name ($(since "$t0") s, see $log)"; tail -n 20 "$log" | sed 's/^/#   /'; fi
}

finish() {
	local t=$(($(date +%s) - start)) f
	# every test's time is in build/check/SUITE.tests
	if compgen -G "$out/*.tests" >/dev/null; then
		echo "# the slowest tests: seconds, suite, program, test"
		for f in "$out"/*.tests; do
			awk -v s="$(basename "$f" .tests)" '{ print $1, s, $2, $3 }' "$f"
		done | sort -k1,1nr | head -n 15 |
			awk '{ printf "#   %7.1f  %-12s %-16s %s\n", $1, $2, $3, $4 }'
	fi
	# (other work on the machine stretches every duration above)
	# every failure again, with what its test said, where the end of
	# a long output (all that a CI page may show) has it
	if [ -s "$out/failures" ]; then
		echo "# the failures, again:"
		cat "$out/failures"
	fi
	echo "# make check took $t s ($((t / 60)) min $((t % 60)) s); load average at the start $load0, now $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
	exit $?
}

t0=$(date +%s.%N)
if "$UPMU_TOP/scripts/deps.sh" >"$out/deps.log" 2>&1; then
	echo "# dependencies: $(tail -n 1 "$out/deps.log") ($(since "$t0") s)"
else
	result fail "install dependencies (see $out/deps.log)"; finish
fi
t0=$(date +%s.%N)
kdir=$("$UPMU_TOP/scripts/kbuild.sh" 2>"$out/kbuild.log") ||
	{ result fail "debug kernel build (see $out/kbuild.log)"; finish; }
echo "# $(tail -n 1 "$out/kbuild.log" | sed 's/^\[upmu\] //') ($(since "$t0") s)"
ksrc=$("$UPMU_TOP/scripts/ksrc.sh" 2>/dev/null)

# The stock kernel is the one vm.sh --kernel stock boots; its modules
# need its own headers.  Without either, its build and suite fail: the
# suite is not run (and not counted as passed) for another kernel.
skver=$(upmu_stock_kver)
sname=stock-$(echo "${skver:-none}" | cut -d. -f1-2)
if [ -z "$skver" ]; then
	stock=""
	result fail "stock kernel: no /boot/vmlinuz-* (scripts/deps.sh installs linux-image-amd64)"
elif ! stock=$(upmu_kernel_build "$skver"); then
	result fail "stock kernel $skver: no headers in /lib/modules/$skver/build (scripts/deps.sh installs linux-headers-amd64)"
fi

step "modules build (debug $(basename "$kdir" | cut -d- -f1), W=1 -Werror)" \
	env W=1 UPMU_WERROR=y scripts/build-modules.sh "$kdir"
[ -z "$stock" ] || step "modules build (stock $skver, W=1 -Werror)" \
	env W=1 UPMU_WERROR=y scripts/build-modules.sh "$stock"
step "selftests build (-Wall -Wextra -Werror, ASan/UBSan)" make -s -j"$UPMU_JOBS" selftests
step "tools build (-Wall -Wextra -Werror)" make -s -j"$UPMU_JOBS" tools
step "diag library and upmu-diag unit tests (host, ASan/UBSan)" build/selftests/diag_unit_test
step "sysfs event encoding on malformed PMU trees (pmu_unit_test, host, ASan/UBSan)" \
	build/selftests/pmu_unit_test
step "perf patches carry tools/perf-aux and hw/upmu_aux.h (scripts/perf-patches.sh check)" \
	scripts/perf-patches.sh check
step "perf patches are git format-patch's of a commit series (scripts/perf-series.sh check)" \
	scripts/perf-series.sh check
step "sparse (make C=1) clean" scripts/lint.sh sparse "$kdir"
# perf 7.2 with tools/perf-patches (cold: about 2 min on 2 cores, then cached):
# before the VMs, whose nic_aux_perf records with it (vm.sh passes UPMU_*)
step "perf 7.2 with the upmu patch series (scripts/perfbuild.sh)" scripts/perfbuild.sh
perf=$(scripts/perfbuild.sh 2>/dev/null) || perf=/nonexistent/perf
export UPMU_PERF=$perf
# the 7.2 tree's tools/docs/get_abi.py, for abi_test in the guests
export UPMU_KSRC=$ksrc

# The VM suites.  A guest runs its vCPUs on one host thread (vm.sh's TCG
# thread=single): one host CPU a guest, so on these 2-CPU machines two
# jobs at a time fit.  With a thread per vCPU, every IPI, TLB shootdown
# and lock hand-over of a guest waited for a vCPU thread the host had
# not scheduled: three VMs at once each ran 3.9 times as long as alone
# (debug-7.2a: 673 s of tests alone, 2575 s in CI, 2026-11-28), two 2.1
# times (1405 s), and the whole run took as long as one VM after the
# other.  So: the two halves of the debug suite together, with the light
# host checks; the stock suite where the first half ended; the heavy host
# steps (topology guests, make install, the 32-bit test, the fuzzer)
# where the second ended.  (UPMU_CHECK_SERIAL=1: one after the other, to
# time each alone.)
# DEBUG_A is the part of the first debug VM; the second runs the rest, new
# programs included.  The first half to end is followed by the stock VM
# (about 460 s), the second by the heavy host steps (about 190 s warm):
# the first half is kept some 270 s shorter than the second, so that both
# paths end together (warm run of 2026-11-28 at 1fa3e8a: 753 s and 855 s
# of tests, stock 454 s, the run 1355 s; abi_test and families_test,
# 83 s, then moved to the second).
DEBUG_A="fixture_test cmem_test nic_diag_test perf_examples metrics_test perf_metrics_test pcimap_test iostat_test demo_test"
declare -A vm_pid vm_rc vm_progs vm_opts vm_append
suite_start() {	# suite_start NAME KERNEL TIMEOUT [PROGRAM...]
	local name=$1 kernel=$2 tmo=$3
	shift 3
	vm_progs[$name]="$*"
	# shellcheck disable=SC2086 # vm.sh options
	UPMU_VM_APPEND="${vm_append[$name]:-}" \
	scripts/vm.sh --kernel "$kernel" --timeout "$tmo" ${vm_opts[$name]:-} \
		--results "$out/$name-vm" -- \
		"$UPMU_TOP/scripts/guest-suite.sh" "$@" >"$out/$name.log" 2>&1 &
	vm_pid[$name]=$!
	[ "${UPMU_CHECK_SERIAL:-0}" != 1 ] || suite_report "$name"
}
suite_report() {	# suite_report NAME: wait for it, print its results
	local log="$out/$1.log" counts vmrc manifest p f s
	[ -n "${vm_pid[$1]:-}" ] || return 0
	if [ -n "${vm_rc[$1]:-}" ]; then vmrc=${vm_rc[$1]}
	else wait "${vm_pid[$1]}"; vmrc=$?; fi
	vm_pid[$1]=""
	# shellcheck disable=SC2086 # a list of program names
	manifest=$(scripts/guest-suite.sh --list ${vm_progs[$1]} | tr '\n' ' ')
	counts=$(awk -v expect="$manifest" -v times="$out/$1.times" \
		-v tests="$out/$1.tests" \
		-f scripts/tap-summary.awk "$log" 2>&1 >"$out/$1.failures")
	echo "# $1: $(grep -h '^\[upmu\] vm: kernel' "$log" | sed 's/^\[upmu\] vm: //')"
	awk '{ printf "#   %-16s %4d passed %3d failed %3d skipped  %7s s%s\n", $1, $2, $3, $4, $5,
		$6 == "-" ? "  (never started)" : $6 != 0 ? "  (rc " $6 ")" : "" }' "$out/$1.times"
	cat "$out/$1.failures"
	# (a failure's notes follow it: all but the skips)
	awk '/^ok .*# SKIP/ { next } { print }' "$out/$1.failures" >> "$out/failures"
	read -r p f s <<<"$counts"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	echo "# $1: $p passed, $f failed, $s skipped (log: $log)"
	if [ $vmrc = 0 ]; then result ok "$1: VM clean (no KASAN/lockdep/UBSAN/kmemleak/WARN)"
	else result fail "$1: VM run failed (rc $vmrc, see $out/$1-vm)"; grep -h '^\[upmu\]' "$log" | tail -n 5 | sed 's/^/#   /'; fi
}

# The debug guests are Ice Lake-X CPUs (QEMU's Icelake-Server model), so
# that perf finds its Ice Lake-X tables by the CPU, as on the machine the
# icx programs model, and intel_uncore meets an Intel CPU it declines in a
# VM; the stock guest keeps QEMU's "max" (an AMD CPU: perf is told the CPU
# through PERF_CPUID), the other way a user meets these PMUs.
vm_opts[debug-7.2a]="--cpu-model icx"
vm_opts[debug-7.2b]="--cpu-model icx"
# wait_first NAME...: wait until one of the running VMs NAME ends (its
# status kept for suite_report), and set $first to its name ("" if none
# was running); not in a subshell, which cannot wait for them
wait_first() {
	local n p rc pids=()
	first=""
	for n; do [ -z "${vm_pid[$n]:-}" ] || [ -n "${vm_rc[$n]:-}" ] || pids+=("${vm_pid[$n]}"); done
	[ ${#pids[@]} -gt 0 ] || return 0
	wait -n -p p "${pids[@]}"
	rc=$?
	for n; do [ "${vm_pid[$n]:-}" != "$p" ] || { vm_rc[$n]=$rc; first=$n; }; done
}

if [ "$soak" = 1 ]; then dtmo=14400 stmo=7200; else dtmo=3000 stmo=3000; fi
debug_b=$(scripts/guest-suite.sh --list | grep -vxF -f <(printf '%s\n' $DEBUG_A) | tr '\n' ' ')
# shellcheck disable=SC2086 # lists of program names
suite_start debug-7.2a debug $dtmo $DEBUG_A
# shellcheck disable=SC2086
suite_start debug-7.2b debug $dtmo $debug_b
[ -n "$stock" ] || result skip "$sname: VM suite (no stock kernel with headers, see above)"

# Host checks that do not touch what the VMs use, meanwhile; light ones.
step "test infrastructure self-test (scripts/infra-test.sh)" scripts/infra-test.sh
step "README and upmu-testing.rst list the suite's programs (scripts/docs-check.sh)" scripts/docs-check.sh
step "ABI documents valid (scripts/abi-check.sh: get_abi.py validate)" scripts/abi-check.sh "$ksrc"
step "every tool's --help has an example (scripts/help-check.sh)" scripts/help-check.sh
step "upmu-plot: timeline and bandwidth histogram, SVG and PNG, from recorded CSVs (plot_test.sh)" \
	selftests/upmu/plot_test.sh
step "perf test: the event table and the Tegra410 and NIC sys metrics parse (scripts/perf-json-check.sh)" \
	scripts/perf-json-check.sh "$perf"
step "AUX parse library test (host, ASan/UBSan, 10^6 fuzz inputs)" build/selftests/aux_parse_test
step "upmu-exporter's systemd unit: systemd-analyze verify, CAP_PERFMON only (scripts/unit-check.sh)" \
	scripts/unit-check.sh
step "upmu-exporter: configuration and exposition unit tests (host, ASan/UBSan)" \
	build/selftests/exporter_unit_test
step "upmu-exporter: fuzzer of configuration, exposition and HTTP requests (host, ASan/UBSan, 10^5 inputs)" \
	build/selftests/exporter_fuzz
step "checkpatch --strict clean on driver/" scripts/lint.sh checkpatch "$ksrc"
# the patched perf's AUX decoder on crafted perf.data streams
step "patched perf: report -D, script, report on crafted AUX perf.data (aux_perf_test.sh)" \
	selftests/upmu/aux_perf_test.sh "$perf" build/selftests/aux_perfdata

# The first debug half to end gives its place to the stock suite, the
# second to the rest, one after the other: a guest whose possible CPUs
# exceed those up at boot (8 CPUs on 2 sockets, maxcpus=4: socket 1's have
# never run), for each kernel (about a minute on the debug kernel, 20 s on
# the stock one); make install (it builds in build/install/, dkms in a
# temporary tree); the 32-bit parse library test; the fuzzer.
wait_first debug-7.2a debug-7.2b
[ -z "$stock" ] || suite_start "$sname" stock $stmo
for d in $first debug-7.2a debug-7.2b; do suite_report "$d"; done
for k in debug stock; do
	[ $k = debug ] || [ -n "$stock" ] || continue
	t=topology-$([ $k = debug ] && echo 7.2 || echo "${sname#stock-}")
	vm_opts[$t]="--cpus 8 --nodes 2"
	vm_append[$t]="maxcpus=4"
	suite_start "$t" $k 900 topo_test
	suite_report "$t"
done
[ -z "$stock" ] || step "make install (staging dir) and dkms build for $skver" \
	scripts/install-check.sh "$stock"
# 32-bit, where a size_t product wraps; the host kernel may run no 32-bit
# programs itself, qemu-i386 runs it
step "AUX parse library test (32-bit, UBSan, qemu-i386)" qemu-i386 -L / build/selftests/aux_parse_test32
# The patched perf built with ASan and UBSan (cold: like the plain one,
# cached apart), and through it and the plain one corrupt perf.data files:
# the inputs that once crashed the decoder, and perfdata_fuzz's mutants of
# real recordings (no crash, no sanitizer report, no hang)
step "patched perf 7.2 with ASan/UBSan (UPMU_PERF_SAN=1 scripts/perfbuild.sh)" \
	env UPMU_PERF_SAN=1 scripts/perfbuild.sh
perf_san=$(UPMU_PERF_SAN=1 scripts/perfbuild.sh 2>/dev/null) || perf_san=/nonexistent/perf
# Two runs at a time: the stock VM ends before the fuzzer's 10^4 mutants
# (some 350 s of a CPU) and left a CPU idle; the ASan perf build before
# it already runs two jobs beside that VM (cold run of 2026-11-28: build
# 361 s, fuzzer 431 s one at a time, stock VM 610 s).
step "patched perf on corrupt perf.data: crashers, seeds, mutants (perfdata_fuzz_test.sh)" \
	env UPMU_PERFDATA_FUZZ_JOBS=2 \
	selftests/upmu/perfdata_fuzz_test.sh "$perf" "$perf_san" build/selftests/perfdata_fuzz

suite_report "$sname"
finish
