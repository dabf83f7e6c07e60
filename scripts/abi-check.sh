#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu's ABI documents (Documentation/ABI/testing/) through the kernel's
# own checker, tools/docs/get_abi.py of the 7.2 tree: its validate mode
# must say nothing (it exits 0 whatever it warns about), and every entry
# has the fields of the kernel's ABI format.  The other way, that every
# sysfs file upmu creates is documented: selftests/upmu/abi_test.sh, in
# the guests (get_abi.py's undefined mode over /sys).
#   abi-check.sh [KSRC [ABI_DIR]]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
ksrc=${1:-$("$top/scripts/ksrc.sh")}
dir=${2:-$top/Documentation/ABI}
bad=0

[ -f "$ksrc/tools/docs/get_abi.py" ] || { echo "abi-check: no get_abi.py in '$ksrc'"; exit 1; }
out=$(python3 "$ksrc/tools/docs/get_abi.py" -D "$dir" validate 2>&1) || bad=1
[ -z "$out" ] || { echo "$out"; bad=1; }
for f in "$dir"/testing/*; do
	# each entry (a run of What: lines) has its Date, KernelVersion,
	# Contact and Description
	awk -v f="$f" '
	function done() { if (what && miss) printf "abi-check: %s: %s lacks%s\n", f, what, miss }
	/^What:/ { if (!in_what) { done(); what = $2; miss = " Date KernelVersion Contact Description" }
		   in_what = 1; next }
	{ in_what = 0 }
	/^(Date|KernelVersion|Contact|Description):/ { k = substr($1, 1, length($1) - 1); sub(" " k, "", miss) }
	END { done() }' "$f"
done | grep . && bad=1
n=$(cat "$dir"/testing/* | grep -c '^What:')
[ $bad = 0 ] && echo "abi-check: $n What entries in $(ls "$dir"/testing | wc -l) files, valid"
exit $bad
