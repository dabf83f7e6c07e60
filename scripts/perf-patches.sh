#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The perf patch series (tools/perf-patches/) carries copies of files that
# live in this repository: the record format header the kernel uses and
# the parse library (tools/perf-aux/), which the host tests build and
# fuzz (patch 0001); the Tegra410 sys JSON (tools/perf-events/arm64/,
# written by scripts/t410-perf-json.py; patch 0005) and the NIC's
# (tools/perf-events/common/, scripts/nic-perf-json.py; patch 0006).
#
#   scripts/perf-patches.sh check    fail if a copy in a patch differs
#                                    from the repository's file, or the
#                                    data-ID table is not what gen-ids
#                                    writes, or the JSON not what
#                                    t410-perf-json.py and
#                                    nic-perf-json.py write
#   scripts/perf-patches.sh update   regenerate the table and the JSON,
#                                    rewrite the copies in the patches and
#                                    the series through perf-series.sh
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"

# the patches by number (scripts/perf-series.sh names them from their subjects)
p1=$(echo tools/perf-patches/0001-*.patch)
p5=$(echo tools/perf-patches/0005-*.patch)
p6=$(echo tools/perf-patches/0006-*.patch)
json=tools/perf-events/arm64/nvidia/t410/sys
njson=tools/perf-events/common/nvidia/connectx/sys
# "patch repository-file perf-tree-path", one copy a line
copies() {
	local f
	for f in driver/include/hw/upmu_aux.h:tools/perf/util/upmu-nic-aux.h \
		 tools/perf-aux/upmu-nic-aux-parse.h:tools/perf/util/upmu-nic-aux-parse.h \
		 tools/perf-aux/upmu-nic-aux-parse.c:tools/perf/util/upmu-nic-aux-parse.c \
		 tools/perf-aux/upmu-nic-aux-ids.c:tools/perf/util/upmu-nic-aux-ids.c; do
		echo "$p1 ${f%%:*} ${f#*:}"
	done
	for f in "$json"/*.json; do
		echo "$p5 $f tools/perf/pmu-events/arch/arm64/${f#tools/perf-events/arm64/}"
	done
	for f in "$njson"/*.json; do
		echo "$p6 $f tools/perf/pmu-events/arch/common/${f#tools/perf-events/common/}"
	done
}

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

gen_json() {	# gen_json DIR NDIR: what t410- and nic-perf-json.py write
	python3 scripts/t410-perf-json.py "$1"
	python3 scripts/nic-perf-json.py "$2"
}

# rst_table NAME FILE: FILE's table between ".. NAME" and ".. end of NAME"
rst_table() {
	sed -n "/^\.\. $1/,/^\.\. end of $1/p" "$2" | sed '1,2d;$d' | sed '$d'
}

case "${1:-}" in
check)
	bad=0 n=0
	if ! cmp -s <(gen_ids) tools/perf-aux/upmu-nic-aux-ids.c; then
		echo "tools/perf-aux/upmu-nic-aux-ids.c is not what gen-ids writes from tools/lib/upmu_diag_ids.c (run $0 update)"
		bad=1
	fi
	tmp=$(mktemp -d)
	gen_json "$tmp/t410" "$tmp/nic"
	if ! diff -r "$tmp/t410" "$json" > /dev/null; then
		echo "$json is not what scripts/t410-perf-json.py writes (run $0 update)"
		bad=1
	fi
	if ! diff -r "$tmp/nic" "$njson" > /dev/null; then
		echo "$njson is not what scripts/nic-perf-json.py writes (run $0 update)"
		bad=1
	fi
	rm -rf "$tmp"
	doc=Documentation/upmu-perf.rst
	for t in t410 nic; do
		if ! cmp -s <(python3 "scripts/$t-perf-json.py" --rst) <(rst_table "$t-metrics-table" "$doc"); then
			echo "$doc: its table of the $t metrics is not what scripts/$t-perf-json.py --rst prints"
			bad=1
		fi
	done
	while read -r patch f path; do
		n=$((n + 1))
		if ! cmp -s <(extract "$path" "$patch") "$f"; then
			echo "$patch: its $path differs from $f (run $0 update):"
			diff -u <(extract "$path" "$patch") "$f" | head -n 20
			bad=1
		fi
	done < <(copies)
	while IFS= read -r p; do
		case "$p" in '' | '#'*) continue ;; esac
		[ -f "tools/perf-patches/$p" ] || { echo "series: no $p"; bad=1; }
	done < tools/perf-patches/series
	[ $bad = 0 ] && echo "perf patches: the copies of $n files in $(basename "$p1"), $(basename "$p5") and $(basename "$p6") are the repository's"
	exit $bad
	;;
update)
	gen_ids > tools/perf-aux/upmu-nic-aux-ids.c.new
	mv tools/perf-aux/upmu-nic-aux-ids.c.new tools/perf-aux/upmu-nic-aux-ids.c
	rm -rf "$json" "$njson"
	gen_json "$json" "$njson"
	tmp=$(mktemp)
	for patch in "$p1" "$p5" "$p6"; do
		# the message and every diff that is not one of the copies, then the copies
		awk -v skip="$(copies | awk -v p="$patch" '$1 == p { printf "%s ", $3 }')" '
			BEGIN { n = split(skip, s, " "); for (i = 1; i <= n; i++) copy["a/" s[i]] = 1 }
			/^diff --git / { on = !($3 in copy); seen = 1 }
			on || !seen { print }' "$patch" > "$tmp"
		copies | awk -v p="$patch" '$1 == p { print $2, $3 }' | sort -k2 |
			while read -r f path; do newfile "$f" "$path"; done >> "$tmp"
		# the message and the diffs (perf-series.sh writes the diffstat)
		{
			sed -n '1,/^---$/p' "$tmp"
			echo
			sed -n '/^diff --git /,$p' "$tmp"
		} > "$patch"
	done
	rm -f "$tmp"
	scripts/perf-series.sh update
	"$0" check
	;;
*)
	echo "usage: $0 check|update" >&2
	exit 2
	;;
esac
