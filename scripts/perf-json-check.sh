#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perf's own tests of the pmu-events tables patches 0005 and 0006 add, on
# the host: the table's sanity and the Tegra410 and NIC sys metrics parsed
# against the table and with a fake PMU.  perf test exits 0 when no test matches
# its arguments, so the subtests that passed are counted.
#   perf-json-check.sh PERF
set -u
perf=${1:?perf binary}
out=$("$perf" test "PMU event table sanity" "PMU metric parsing: nvidia_t410_sys" \
	"PMU metric parsing with fake PMU: nvidia_t410_sys" \
	"PMU metric parsing: nvidia_connectx_sys" \
	"PMU metric parsing with fake PMU: nvidia_connectx_sys" 2>&1)
grep -E '^ *[0-9]+(\.[0-9]+)?: ' <<<"$out"
passed=$(sed -n 's/^Passed subtests *: *//p' <<<"$out")
failed=$(sed -n 's/^Failed tests *: *//p' <<<"$out")
[ "$passed" = 5 ] && [ "$failed" = 0 ] ||
	{ echo "perf test: $passed of 5 subtests passed, $failed failed"; exit 1; }
