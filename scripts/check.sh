#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: host checks, then the VM suite on the debug kernel and on
# Debian's stock kernel.  Last line: "N passed, N failed,
# N skipped"; exits non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"

out="$UPMU_TOP/build/check"
rm -rf "$out"; mkdir -p "$out"
pass=0 fail=0 skip=0
start=$(date +%s)

result() {	# result ok|fail|skip NAME
	case $1 in
	ok) pass=$((pass + 1)); echo "ok - $2" ;;
	skip) skip=$((skip + 1)); echo "ok - $2 # SKIP" ;;
	*) fail=$((fail + 1)); echo "not ok - $2" ;;
	esac
}

step() {	# step NAME CMD...: a host check, output kept in build/check
	local name=$1 log="$out/$(echo "$1" | tr ' /' '__').log"
	shift
	if "$@" >"$log" 2>&1; then result ok "$name"
	else result fail "$name (see $log)"; tail -n 20 "$log" | sed 's/^/#   /'; fi
}

finish() {
	echo "# check took $(($(date +%s) - start)) s"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
	exit $?
}

"$UPMU_TOP/scripts/deps.sh" || { result fail "install dependencies"; finish; }
kdir=$("$UPMU_TOP/scripts/kbuild.sh") || { result fail "debug kernel build"; finish; }
ksrc=$("$UPMU_TOP/scripts/ksrc.sh" 2>/dev/null)
stock=$(ls -d /lib/modules/*-amd64/build 2>/dev/null | sort -V | tail -n1)

step "modules build (debug 7.2, W=1 -Werror)" env W=1 scripts/build-modules.sh "$kdir"
step "modules build (stock $(basename "$(dirname "$stock")"), W=1)" env W=1 scripts/build-modules.sh "$stock"
step "sparse (make C=1) clean" scripts/lint.sh sparse "$kdir"
step "checkpatch --strict clean on driver/" scripts/lint.sh checkpatch "$ksrc"
step "selftests build (-Wall -Wextra -Werror, ASan/UBSan)" make -s selftests
step "tools build (-Wall -Wextra -Werror)" make -s tools
step "make install (staging dir) and dkms build for $(basename "$(dirname "$stock")")" \
	scripts/install-check.sh "$stock"

suite() {	# suite NAME KERNEL TIMEOUT
	local log="$out/$1.log" counts
	scripts/vm.sh --kernel "$2" --timeout "$3" --results "$out/$1-vm" -- \
		"$UPMU_TOP/scripts/guest-suite.sh" >"$log" 2>&1
	local vmrc=$?
	counts=$(awk -f scripts/tap-summary.awk "$log" 2>&1 >"$out/$1.failures")
	cat "$out/$1.failures"
	read -r p f s <<<"$counts"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	echo "# $1: $p passed, $f failed, $s skipped (log: $log)"
	if [ $vmrc = 0 ]; then result ok "$1: VM clean (no KASAN/lockdep/UBSAN/kmemleak/WARN)"
	else result fail "$1: VM run failed (rc $vmrc, see $out/$1-vm)"; grep -h '^\[upmu\]' "$log" | tail -n 5 | sed 's/^/#   /'; fi
}

suite debug-7.2 debug 3000
suite stock-6.1 stock 900
finish
