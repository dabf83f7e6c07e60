#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every upmu tool answers --help on stdout with exit status 0, and its
# text has an example: an "Example:" line followed by command lines, one
# of which runs the tool.  Prints what is missing; exit 1 if anything is.
#   help-check.sh [TOOL...]   (default: build/tools/*, upmu-aux-csv and upmu-plot)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$top"/build/tools/* "$top/tools/upmu-aux-csv/upmu-aux-csv" "$top/tools/upmu-plot/upmu-plot"
bad=0 n=0

for t; do
	name=$(basename "$t")
	n=$((n + 1))
	out=$("$t" --help 2>/dev/null)
	rc=$?
	if [ $rc != 0 ]; then
		echo "help-check: $name --help: exit status $rc, not 0"
		bad=1
		continue
	fi
	# the lines after "Example:" (any case), indented, one of them
	# running the tool (its name a word of the line: a pipe's end too)
	if ! awk -v t="$name" 'tolower($0) ~ /^example:?$/ { on = 1; next }
		on && /^  / { for (i = 1; i <= NF; i++) if ($i == t) found = 1; next }
		on { on = 0 }
		END { exit !found }' <<<"$out"; then
		echo "help-check: $name --help: no \"Example:\" with a $name command line"
		bad=1
	fi
done
[ $bad = 0 ] && echo "help-check: $n tools, each --help with an example"
exit $bad
