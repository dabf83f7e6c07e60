#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the test infrastructure, on the host (no VM): the result
# counting of scripts/tap-summary.awk, the helpers of
# selftests/upmu/lib.sh that decide whether a check passed, and how
# check.sh finds the stock kernel.  TAP output; exit 1 on a failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/common.sh"
. "$top/selftests/upmu/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan 24

# summary LOG EXPECT: "PASSED FAILED SKIPPED" of tap-summary.awk, its
# other output in $tmp/out and per-program lines in $tmp/times
summary() {
	rm -f "$tmp/times"
	awk -v expect="$2" -v times="$tmp/times" -f "$top/scripts/tap-summary.awk" "$1" \
		2>&1 >"$tmp/out"
}
is() {	# is GOT WANT
	[ "$1" = "$2" ] && return 0
	echo "# got '$1', want '$2'"
	return 1
}

cat > "$tmp/full.log" <<'EOF'
[upmu] vm: booting
=== upmu-test: a
TAP version 13
1..3
ok 1 one
ok 2 two # SKIP no such thing
not ok 3 three
=== upmu-end: a rc=1 (12.5 s)
=== upmu-test: b
1..2
ok 1 one
ok 2 two
=== upmu-end: b rc=0 (3.0 s)
EOF
tap_check "tap-summary: counts of programs that ran" is "$(summary "$tmp/full.log" "a b")" "3 1 1"
tap_check "tap-summary: per-program results and seconds" \
	is "$(tr '\n' ';' < "$tmp/times")" "a 1 1 1 12.5 1;b 2 0 0 3.0 0;"

# The guest died during b: c never started.
head -n 11 "$tmp/full.log" > "$tmp/cut.log"
tap_check "tap-summary: a program the guest died in fails for what it did not report" \
	is "$(summary "$tmp/cut.log" "a b c")" "2 3 1"
tap_check "tap-summary: a program that never started is a failure" \
	grep -q "^not ok - c: never started" "$tmp/out"
tap_check "tap-summary: it is listed, with no time" grep -qx "c 0 1 0 - -" "$tmp/times"

# A program that bails out before its plan, one that exits non-zero
# after passing everything, and an expected failure that passed.
cat > "$tmp/odd.log" <<'EOF'
=== upmu-test: d
Bail out! cannot load modules
=== upmu-end: d rc=1 (1.0 s)
=== upmu-test: e
1..1
ok 1 one
=== upmu-end: e rc=2 (1.0 s)
=== upmu-test: f
1..2
ok 1 f.v.t1 # XFAIL
ok 2 f.v.t2 # XPASS
=== upmu-end: f rc=0 (1.0 s)
EOF
tap_check "tap-summary: bail-out, non-zero exit and XPASS are failures" \
	is "$(summary "$tmp/odd.log" "d e f")" "2 3 0"

# A failure comes with what its program said about it: the harness's
# lines before it, show's after it, none of a passing test's (nor the
# harness's next test's).
cat > "$tmp/notes.log" <<'EOF'
=== upmu-test: g
1..3
# RUN g.one
# g.one: Expected 1 (1) == v (2)
not ok 1 g.one
#   | rate 1.2% off
#  RUN           g.two ...
ok 2 g.two
# g.three: fine
ok 3 g.three
=== upmu-end: g rc=1 (1.0 s)
EOF
summary "$tmp/notes.log" "g" >/dev/null
tap_check "tap-summary: a failure is shown with its program's lines around it" \
	is "$(tr '\n' ';' < "$tmp/out")" \
	"not ok 1 g.one;#   # RUN g.one;#   # g.one: Expected 1 (1) == v (2);#   #   | rate 1.2% off;"
tap_check "tap-summary: the notes do not change the counts" is "$(summary "$tmp/notes.log" "g")" "2 1 0"

# guest-suite.sh times each result; the times are not a program's notes
cat > "$tmp/timed.log" <<'EOF'
=== upmu-test: h
1..3
ok 1 h.one
# upmu-time: 2.5
#  RUN           h.two ...
not ok 2 h.two
# upmu-time: 10.0
ok 3 - a shell check # SKIP not here
# upmu-time: 0.1
=== upmu-end: h rc=1 (12.6 s)
EOF
summary "$tmp/timed.log" "h" >/dev/null
tap_check "tap-summary: the times do not change the counts" is "$(summary "$tmp/timed.log" "h")" "1 1 1"
tap_check "tap-summary: a failure's notes do not include its time" \
	is "$(tr '\n' ';' < "$tmp/out")" "not ok 2 h.two;#   #  RUN           h.two ...;ok 3 - a shell check # SKIP not here;"
rm -f "$tmp/tests"
awk -v expect=h -v tests="$tmp/tests" -f "$top/scripts/tap-summary.awk" "$tmp/timed.log" >/dev/null 2>&1
tap_check "tap-summary: each result's time, program and name" \
	is "$(tr '\n' ';' < "$tmp/tests")" "2.5 h h.one;10.0 h h.two;0.1 h a_shell_check;"
eval "$(sed -n '/^tap_times() {/,/^}/p' "$top/scripts/guest-suite.sh")"
tap_check "guest-suite: a time after each result line, the rest as it was" \
	is "$(printf 'ok 1 a\n# note\nnot ok 2 b\nlast' | tap_times | sed 's/upmu-time: [0-9]*\.[0-9]$/upmu-time: T/' | tr '\n' ';')" \
	"ok 1 a;# upmu-time: T;# note;not ok 2 b;# upmu-time: T;last;"

# lib.sh: fails checks the failure it was asked for
say() { echo "$2" >&2; return "$1"; }
tap_check "fails: the expected failure and message" fails "No such device" say 1 "perf: No such device"
tap_check "fails: a success is not a failure" eval '! fails "No such device" say 0 "No such device" >/dev/null'
tap_check "fails: another error is not the expected one" \
	eval '! fails "No such device" say 1 "Permission denied" >/dev/null'
tap_check "fails: a missing program is not the expected failure" \
	eval '! fails "No such device" "$tmp/no-such-program" >/dev/null'
tap_check "fails_rc: the exit status asked for" fails_rc 2 say 2 usage
tap_check "fails_rc: another exit status is not" eval '! fails_rc 2 say 1 error >/dev/null'

# lib.sh: loop counts
tap_check "loops: make check's count by default" is "$(UPMU_SOAK= loops UPMU_T_N 3 300)" 3
tap_check "loops: make soak's count under UPMU_SOAK=1" is "$(UPMU_SOAK=1 loops UPMU_T_N 3 300)" 300
tap_check "loops: a count in the environment wins" is "$(UPMU_SOAK=1 UPMU_T_N=7 loops UPMU_T_N 3 300)" 7
tap_check "loops: a bad count stops the program" \
	eval '! (UPMU_T_N=x loops UPMU_T_N 3 300 >/dev/null 2>&1)'

# common.sh: the stock kernel is /boot's newest, with its own headers
mkdir -p "$tmp/boot" "$tmp/modules/6.1.0-9-amd64/build" "$tmp/modules/6.1.0-10-amd64"
touch "$tmp/boot/vmlinuz-6.1.0-9-amd64" "$tmp/boot/vmlinuz-6.1.0-10-amd64"
touch "$tmp/modules/6.1.0-9-amd64/build/Makefile"
export UPMU_BOOT_DIR=$tmp/boot UPMU_MODULES_DIR=$tmp/modules
tap_check "stock kernel: the newest in /boot" is "$(upmu_stock_kver)" 6.1.0-10-amd64
tap_check "stock kernel: no headers for it is not another kernel's headers" \
	eval '! upmu_kernel_build 6.1.0-10-amd64 && ! upmu_kernel_build ""'
tap_exit
