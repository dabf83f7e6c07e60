#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The perf patch series as git format-patch writes it from a real commit
# series on the 7.2 tree: each patch of tools/perf-patches/series is
# applied with git am on top of a commit of perf's files of the unpacked
# linux-source (tools/perf/MANIFEST, as scripts/perfbuild.sh copies
# them), signed off, and the series written back with format-patch:
# real diffstats and blob IDs, numbered [PATCH n/N], and a cover letter
# (0000-cover-letter.patch, from tools/perf-patches/cover-letter.txt:
# its first line the subject, the rest the text; format-patch adds the
# shortlog and diffstat).  Dates are fixed, so the output is the same
# for the same input.
#
#   scripts/perf-series.sh update   rewrite tools/perf-patches/*.patch and
#                                   the series' file names from the commits
#   scripts/perf-series.sh check    fail if update would change anything
#   scripts/perf-series.sh tree DIR leave the git tree in DIR (to edit the
#                                   commits and run update --from DIR)
#   scripts/perf-series.sh update --from DIR
#                                   write the series from DIR's commits
#
# To change a patch: edit it and run update (which re-applies it), or
# "tree DIR", commit in DIR (git commit --amend, rebase -i) and
# "update --from DIR".
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"

dir=tools/perf-patches
ident_name="upmu"
ident_mail="upmu@localhost"
export GIT_AUTHOR_NAME=$ident_name GIT_AUTHOR_EMAIL=$ident_mail
export GIT_COMMITTER_NAME=$ident_name GIT_COMMITTER_EMAIL=$ident_mail
fixed_date="Sat, 28 Nov 2026 00:00:00 +0000"
export GIT_AUTHOR_DATE=$fixed_date GIT_COMMITTER_DATE=$fixed_date
export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent
gitc() { git -c init.defaultBranch=perf -c core.autocrlf=false -c advice.detachedHead=false "$@"; }

series() { grep -v -e '^#' -e '^$' "$dir/series"; }

# build_tree DIR: the base commit and one commit per patch of the series
build_tree() {
	local t=$1 src p
	src=$(scripts/ksrc.sh)
	rm -rf "$t"
	mkdir -p "$t"
	upmu_perf_files "$src" "$t"
	(cd "$t" && gitc init -q && gitc add -A && \
	 gitc commit -q -m "Linux $(make -s -C "$src" kernelversion): perf's files (tools/perf/MANIFEST)" &&
	 gitc tag base)
	for p in $(series); do
		# -s: the sign-off, once (am skips a duplicate); a patch
		# without a date gets the fixed one (am would take the time)
		awk -v d="$fixed_date" 'NR == 1 { hdr = 1 }
			hdr && /^Date: / { dated = 1 }
			hdr && /^Subject: / && !dated { print "Date: " d }
			/^$/ { hdr = 0 }
			{ print }' "$UPMU_TOP/$dir/$p" |
			(cd "$t" && gitc am -q -s) ||
			upmu_die "perf-series: $p does not apply (see $t)"
	done
}

# write_series TREE OUT: format-patch of TREE's commits, the cover letter
write_series() {
	local t=$1 out=$2 subj
	mkdir -p "$out"
	subj=$(head -n 1 "$dir/cover-letter.txt")
	(cd "$t" && gitc format-patch -q --cover-letter --no-signature --zero-commit \
		-o "$out" base..HEAD)
	# the subject and text of the cover letter
	awk -v subj="$subj" -v txt="$UPMU_TOP/$dir/cover-letter.txt" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			while ((getline l < txt) > 0) if (++n > 2) print l
			next
		}
		{ print }' "$out/0000-cover-letter.patch" > "$out/cover.tmp"
	mv "$out/cover.tmp" "$out/0000-cover-letter.patch"
}

# new_series OUT: the series file with OUT's patch names
new_series() {
	grep '^#' "$dir/series"
	local f
	for f in "$1"/[0-9]*.patch; do
		case "$f" in */0000-cover-letter.patch) ;; *) basename "$f" ;; esac
	done
}

cmd=${1:-}
from=""
if [ "${2:-}" = --from ]; then from=${3:?update --from DIR}; fi
case "$cmd" in
tree)
	build_tree "${2:?tree DIR}"
	upmu_log "perf-series: the series as commits in ${2} (base: tag base)"
	;;
update | check)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if [ -n "$from" ]; then t=$from; else t=$tmp/tree; build_tree "$t"; fi
	write_series "$t" "$tmp/out"
	new_series "$tmp/out" > "$tmp/series"
	if [ "$cmd" = check ]; then
		bad=0
		cmp -s "$tmp/series" "$dir/series" || { echo "perf-series: $dir/series differs from the commits' names"; bad=1; }
		for f in "$tmp"/out/*.patch; do
			cmp -s "$f" "$dir/$(basename "$f")" ||
				{ echo "perf-series: $dir/$(basename "$f") is not what format-patch writes (run $0 update):";
				  diff -u "$dir/$(basename "$f")" "$f" 2>&1 | head -n 20; bad=1; }
		done
		[ $bad = 0 ] && echo "perf-series: $(series | wc -l) patches and the cover letter are git format-patch's of their commits"
		exit $bad
	fi
	rm -f "$dir"/[0-9]*.patch
	cp "$tmp"/out/*.patch "$dir/"
	cp "$tmp/series" "$dir/series"
	upmu_log "perf-series: wrote $(series | wc -l) patches and the cover letter to $dir"
	;;
*)
	echo "usage: $0 update [--from DIR] | check | tree DIR" >&2
	exit 2
	;;
esac
