#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan kernel logs (console.log, dmesg.log) and kmemleak.log for reports of
# kernel bugs: BUG/WARNING/Oops, KASAN, UBSAN, lockdep, RCU, kmemleak,
# debugobjects, refcount and list corruption.  Prints every hit with some
# context and exits 1 if there is one, 0 if the logs are clean.
#
# Usage: scripts/logcheck.sh FILE...   (missing files are skipped with a note)
set -euo pipefail

# Extended regexps, matched case-sensitively against each line.
BAD='BUG:|WARNING:|KASAN|UBSAN|possible circular locking|possible recursive locking'
BAD="$BAD"'|inconsistent lock state|suspicious RCU usage|(^|[^[:alnum:]_])INFO: '
BAD="$BAD"'|Oops|general protection fault|Kernel panic|unreferenced object'
BAD="$BAD"'|suspected memory leak|ODEBUG|Call Trace:|refcount_t:'
BAD="$BAD"'|list_add corruption|list_del corruption'

# Known-benign lines matching BAD.  Keep each entry narrow and say why.
ALLOW=''

[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }

status=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "logcheck: $f: missing, skipped" >&2
		continue
	fi
	# Print each hit with 3 lines before and 30 after (a report's body),
	# merging overlapping windows; at most 300 lines per file.
	if ! awk -v bad="$BAD" -v allow="$ALLOW" -v name="$f" '
		{ sub(/\r+$/, ""); line[NR] = $0 }
		$0 ~ bad && (allow == "" || $0 !~ allow) { hit[NR] = 1; nhits++ }
		END {
			if (!nhits)
				exit 0
			printf "logcheck: %s: %d suspicious line(s):\n", name, nhits
			last = 0; shown = 0
			for (i = 1; i <= NR; i++) {
				if (!hit[i])
					continue
				from = i - 3 > last ? i - 3 : last + 1
				if (from < 1)
					from = 1
				if (from > last + 1 && last > 0)
					print "  ----"
				for (j = from; j <= i + 30 && j <= NR; j++) {
					if (++shown > 300) {
						print "  [... more in " name "]"
						exit 1
					}
					printf "  %s %6d: %s\n", hit[j] ? ">" : " ", j, line[j]
				}
				last = j - 1
				i = last
			}
			exit 1
		}' "$f"; then
		status=1
	fi
done
exit $status
