# SPDX-License-Identifier: GPL-2.0
# Count results in guest-suite.sh output.  Every "ok"/"not ok" line of a
# program's TAP counts once; a program that exits non-zero, bails out,
# or reports fewer results than its plan adds failures for what is
# missing, so a crash is never a pass.
function finish(name,   missing) {
	missing = plan - seen
	if (plan && missing > 0) {
		printf "not ok - %s: %d planned test(s) did not report\n", name, missing
		failed += missing
	}
	if (rc != 0 && !prog_failed && missing <= 0) {
		printf "not ok - %s: exited with %d\n", name, rc
		failed++
	}
}
/^=== upmu-test: / { name = $3; plan = 0; seen = 0; prog_failed = 0; inprog = 1; next }
/^=== upmu-end: / {
	split($4, a, "="); rc = a[2]
	finish(name); inprog = 0; next
}
!inprog { next }
/^1\.\.[0-9]+/ { if (!plan) plan = substr($1, 4) + 0; next }
/^ok [0-9]+ .*# SKIP/ { skipped++; seen++; print; next }
/^ok [0-9]+/ { passed++; seen++; next }
/^not ok [0-9]+/ { failed++; seen++; prog_failed = 1; print; next }
/^Bail out!/ { print name ": " $0 }
END {
	if (inprog) { rc = 1; finish(name) }
	printf "%d %d %d\n", passed, failed, skipped > "/dev/stderr"
}
