#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The perf patch series (tools/perf-patches/) carries copies of files that
# live in this repository: the record format header the kernel uses, and
# the parse library (tools/perf-aux/), which the host tests build and fuzz.
#
#   scripts/perf-patches.sh check    fail if a copy in the patch differs
#                                    from the repository's file, or the
#                                    data-ID table is not what gen-ids writes
#   scripts/perf-patches.sh update   regenerate the table and rewrite the
#                                    copies in the patch from the files
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"

patch=tools/perf-patches/0001-perf-upmu-nic-add-the-AUX-record-parse-library.patch
# repository file -> its path in the perf tree
declare -A map=(
	[driver/include/hw/upmu_aux.h]=tools/perf/util/upmu-nic-aux.h
	[tools/perf-aux/upmu-nic-aux-parse.h]=tools/perf/util/upmu-nic-aux-parse.h
	[tools/perf-aux/upmu-nic-aux-parse.c]=tools/perf/util/upmu-nic-aux-parse.c
	[tools/perf-aux/upmu-nic-aux-ids.c]=tools/perf/util/upmu-nic-aux-ids.c
)

# The new file $1 as patch $2 creates it.
extract() {
	awk -v f="$1" '
		/^diff --git / { on = ($3 == "a/" f); body = 0; next }
		on && /^@@ / { body = 1; next }
		on && body { print substr($0, 2) }' "$2"
}

# A new-file diff of repository file $1 as perf-tree path $2.
newfile() {
	local n
	n=$(wc -l < "$1")
	echo "diff --git a/$2 b/$2"
	echo "new file mode 100644"
	echo "index 0000000..$(git hash-object "$1" | cut -c1-7)"
	echo "--- /dev/null"
	echo "+++ b/$2"
	echo "@@ -0,0 +1,$n @@"
	sed 's/^/+/' "$1"
}

gen_ids() {
	make -s build/perf-aux/gen-ids >&2
	build/perf-aux/gen-ids
}

case "${1:-}" in
check)
	bad=0
	if ! cmp -s <(gen_ids) tools/perf-aux/upmu-nic-aux-ids.c; then
		echo "tools/perf-aux/upmu-nic-aux-ids.c is not what gen-ids writes from tools/lib/upmu_diag_ids.c (run $0 update)"
		bad=1
	fi
	for f in "${!map[@]}"; do
		if ! cmp -s <(extract "${map[$f]}" "$patch") "$f"; then
			echo "$patch: its ${map[$f]} differs from $f (run $0 update):"
			diff -u <(extract "${map[$f]}" "$patch") "$f" | head -n 20
			bad=1
		fi
	done
	while IFS= read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		[ -f "tools/perf-patches/$p" ] || { echo "series: no $p"; bad=1; }
	done < tools/perf-patches/series
	[ $bad = 0 ] && echo "perf patches: the copies of ${#map[@]} files in $(basename "$patch") are the repository's"
	exit $bad
	;;
update)
	gen_ids > tools/perf-aux/upmu-nic-aux-ids.c.new
	mv tools/perf-aux/upmu-nic-aux-ids.c.new tools/perf-aux/upmu-nic-aux-ids.c
	tmp=$(mktemp)
	# the message and every diff that is not one of the copies, then the copies
	awk -v skip="$(printf '%s ' "${map[@]}")" '
		BEGIN { n = split(skip, s, " "); for (i = 1; i <= n; i++) copy["a/" s[i]] = 1 }
		/^diff --git / { on = !($3 in copy) }
		on || !seen { print }
		/^diff --git / { seen = 1 }' "$patch" > "$tmp"
	for f in $(printf '%s\n' "${!map[@]}" | sort -t/ -k2); do
		newfile "$f" "${map[$f]}"
	done >> "$tmp"
	# the message, a new diffstat, the diffs
	{
		sed -n '1,/^---$/p' "$tmp"
		git apply --stat "$tmp"
		echo
		sed -n '/^diff --git /,$p' "$tmp"
	} > "$patch"
	rm -f "$tmp"
	"$0" check
	;;
*)
	echo "usage: $0 check|update" >&2
	exit 2
	;;
esac
