#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The docs' lists of test programs against the suite that runs:
# README's list (the paragraph after "The names are those guest-suite.sh
# runs", up to "`make soak`") names every program of the suite, in its
# order, then those run alone, and nothing else; Documentation/upmu-testing.rst has a row for
# every program, those run alone (topo_test) included.  Prints what
# differs; exit 1 if anything does.
#   docs-check.sh [README [TESTING_RST]]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
readme=${1:-$top/README}
rst=${2:-$top/Documentation/upmu-testing.rst}
bad=0

suite=$("$top/scripts/guest-suite.sh" --list | tr '\n' ' ')
alone=$("$top/scripts/guest-suite.sh" --alone | tr '\n' ' ')
[ -n "$suite" ] || { echo "docs-check: guest-suite.sh --list printed nothing" >&2; exit 1; }

listed=$(awk '/^The names are those guest-suite.sh runs/ { on = 1 }
	on && /`make soak`/ { sub(/`make soak`.*/, ""); print; exit }
	on { print }' "$readme" |
	sed 's/^.*Documentation\/upmu-testing.rst says what each checks)://' |
	grep -oE '[a-z0-9_]+' | grep -E '_test$|_perf$|^perf_examples$' | tr '\n' ' ')
if [ -z "$listed" ]; then
	echo "docs-check: $readme: no list of test programs (\"The names are those guest-suite.sh runs\")"
	bad=1
elif [ "$listed" != "$suite$alone" ]; then
	echo "docs-check: $readme lists the test programs as"
	echo "  $listed"
	echo "but guest-suite.sh runs, in this order (those run alone last),"
	echo "  $suite$alone"
	bad=1
fi
for p in $suite $alone; do
	grep -qE "^$p( |\$)" "$rst" ||
		{ echo "docs-check: $rst: no row for $p"; bad=1; }
done
exit $bad
