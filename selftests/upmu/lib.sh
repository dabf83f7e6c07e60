# SPDX-License-Identifier: GPL-2.0
# Shell helpers for upmu selftests: TAP output and module handling.
# UPMU_MODDIR must point at the directory with the .ko files.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
_tap_n=0
_tap_fail=0

tap_plan() { echo "TAP version 13"; echo "1..$1"; }
tap_ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $*"; }
tap_fail() { _tap_n=$((_tap_n + 1)); _tap_fail=1; echo "not ok $_tap_n $*"; }
tap_skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
tap_check() {	# tap_check "name" cmd...
	local name=$1; shift
	if "$@"; then tap_ok "$name"; else tap_fail "$name"; fi
}
tap_exit() { exit $_tap_fail; }

# fails WANT CMD...: CMD must fail and say WANT (a fixed string, e.g. an
# errno's message such as "No such device") on its stdout or stderr.
# Failing for another reason (a missing binary, a bad option, the wrong
# errno) is not what was asked for: it prints what happened and returns 1.
fails() {
	local want=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		echo "# '$*' succeeded; expected it to fail with '$want'"
		return 1
	fi
	case $out in *"$want"*) return 0 ;; esac
	echo "# '$*' failed (exit $rc) but did not say '$want':"
	echo "$out" | head -n 5 | sed 's/^/#   | /'
	return 1
}
# fails_rc RC CMD...: CMD must exit with status RC (1-255).
fails_rc() {
	local want=$1 rc
	shift
	"$@" >/dev/null 2>&1
	rc=$?
	[ $rc = "$want" ] && return 0
	echo "# '$*' exited with $rc, expected $want"
	return 1
}

# loops VAR CI SOAK: how many times to go round a loop: $VAR if set (a
# count in the environment), else SOAK under UPMU_SOAK=1 (make soak),
# else CI (make check).
loops() {
	local n=${!1:-}
	if [ -z "$n" ]; then
		if [ "${UPMU_SOAK:-0}" = 1 ]; then n=$3; else n=$2; fi
	fi
	[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "Bail out! $1=$n is not a count" >&2; exit 1; }
	echo "$n"
}

# need_cmd CMD: bail out (the program fails) if CMD cannot be run.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 || { echo "Bail out! $1: not found"; exit 1; }
}

mod_load() {	# mod_load name
	grep -q "^$1 " /proc/modules || insmod "$UPMU_MODDIR/$1.ko"
}
mod_unload() { ! grep -q "^$1 " /proc/modules || rmmod "$1"; }
# mod_load_own NAME: load NAME unless it is; mod_unload_own (at the end of
# the program) unloads what mod_load_own loaded, so that the next program
# of the suite (modules_test unloads the stack) finds the modules as they were
UPMU_OWN_MODS=""
mod_load_own() {
	grep -q "^$1 " /proc/modules && return 0
	insmod "$UPMU_MODDIR/$1.ko" && UPMU_OWN_MODS="$1 $UPMU_OWN_MODS"
}
mod_unload_own() {
	local m
	for m in $UPMU_OWN_MODS; do mod_unload "$m"; done
	UPMU_OWN_MODS=""
}
mod_refcnt() { cat "/sys/module/$1/refcnt" 2>/dev/null || echo -1; }
# is_refcnt MODULE N: MODULE's reference count is N (says what it is if not)
is_refcnt() {
	[ "$(mod_refcnt "$1")" = "$2" ] && return 0
	echo "# $1: refcnt $(mod_refcnt "$1"), expected $2"
	return 1
}

upmu_load_all() {
	mod_load upmu_core && mod_load upmu_sim && mod_load upmu_t410
}

sim_new() { echo "$*" > /sys/bus/upmu_sim/new_device; }
sim_del() { echo "$1" > /sys/bus/upmu_sim/del_device 2>/dev/null; }
sim_inject() { local id=$1; shift; echo "$*" > "/sys/kernel/debug/upmu_sim/$id/inject"; }
# Linux 6.15+ detaches open events from a PMU that goes away.
kernel_revokes() {
	local v=$(uname -r) maj min
	maj=${v%%.*}; min=${v#*.}; min=${min%%[.-]*}
	[ "$maj" -gt 6 ] || { [ "$maj" -eq 6 ] && [ "$min" -ge 15 ]; }
}
# fwctl is in Linux 6.15+ (also 6.15 itself): on those, tests that need it
# fail without it instead of skipping.
kernel_has_fwctl() { kernel_revokes; }
# The running kernel's config has $1 (y or m): /proc/config.gz (IKCONFIG).
kernel_config() { zcat /proc/config.gz 2>/dev/null | grep -qE "^$1=(y|m)$"; }
# Wait (up to $3 s) until the NIC of serial $1 has exactly $2 fwctl
# devices (one per PF; upmu_nic adds them after new_device returns).
fwctl_nodes_within() {
	for _ in $(seq $(($3 * 10))); do
		[ "$(grep -lx "$1" /sys/class/fwctl/*/device/serial 2>/dev/null | wc -l)" = "$2" ] &&
			return 0
		sleep 0.1
	done
	return 1
}
# Wait (up to $2 s) until PMU $1 is gone.
pmu_gone_within() {
	local i
	for i in $(seq $(($2 * 10))); do
		pmu_present "$1" || return 0
		sleep 0.1
	done
	return 1
}
# is GOT WANT: they are the same string
is() { [ "$1" = "$2" ]; }
# near GOT WANT TOL: GOT is a number within TOL * WANT of WANT
near() {
	awk -v g="$1" -v w="$2" -v t="$3" \
		'BEGIN { exit !(g ~ /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ &&
				g - w <= t * w && w - g <= t * w) }'
}
# tap_expect NAME COND...: one TAP result; on failure, COND and the first
# 30 lines of $TMP/$last and $TMP/$last.err (a tool's stdout and stderr)
tap_expect() {
	local name=$1; shift
	if "$@"; then tap_ok "$name"; return; fi
	tap_fail "$name"
	echo "#   failed: $*"
	[ -n "${last:-}" ] && sed 's/^/#   | /' "$TMP/$last" "$TMP/$last.err" | head -n 30
}
pmu_present() { [ -e "/sys/bus/event_source/devices/$1/type" ]; }
pmu_absent() { ! pmu_present "$1"; }

# Wait (up to $2 s) until module $1 holds at least one reference.
wait_ref() {
	local i
	for i in $(seq $(($2 * 10))); do
		[ "$(mod_refcnt "$1")" -gt 0 ] && return 0
		sleep 0.1
	done
	return 1
}
