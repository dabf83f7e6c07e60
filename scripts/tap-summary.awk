# SPDX-License-Identifier: GPL-2.0
# Count results in guest-suite.sh output.  Every "ok"/"not ok" line of a
# program's TAP counts once; a program that exits non-zero, bails out,
# or reports fewer results than its plan adds failures for what is
# missing, so a crash is never a pass.  A program that ran and reported
# nothing (no plan and no result, or a plan of none: "1..0") fails too:
# it proved nothing.  Only "1..0 # SKIP REASON" (kselftest's
# ksft_exit_skip(), exit status 0 or 4) skips a whole program, once.
#
#   awk -v expect="NAME..." -v times=FILE [-v tests=FILE] -f tap-summary.awk LOG
#
# expect: the programs that must have run (guest-suite.sh --list); one
# that never started (the guest died before it, say) counts as a failure.
# stdout: the failures, skips and bail-outs, each failure with what its
# program said about it, so that a run's summary says why: the last
# NOTE_BEFORE "#" lines before the "not ok" (the kselftest harness's) and
# NOTE_AFTER after it (lib.sh's tap_fail and show).  stderr: "PASSED
# FAILED SKIPPED"; times (if set): one line per program, in the order they ran,
# "NAME PASSED FAILED SKIPPED SECONDS RC" (SECONDS "?" if it never ended,
# "-" if it never started).  tests (if set): one line per result that
# guest-suite.sh timed, "SECONDS PROGRAM TEST".
BEGIN { NOTE_BEFORE = 12; NOTE_AFTER = 40 }
# a "#" line of a program: shown if it follows a failure, else kept for
# the next result (the harness's next test starts with "#  RUN")
function note(line) {
	if (line ~ /^# +RUN /)
		after = -1
	if (after > 0) {
		if (--after == 0)
			print "#   ... (more in the log)"
		else
			print "#   " line
		return
	}
	kept[nkept++ % NOTE_BEFORE] = line
}
# a result line: the notes before it go with it if it failed
function result(failed,   i, from) {
	if (failed) {
		from = nkept > NOTE_BEFORE ? nkept - NOTE_BEFORE : 0
		for (i = from; i < nkept; i++)
			print "#   " kept[i % NOTE_BEFORE]
	}
	nkept = 0
	after = failed ? NOTE_AFTER + 1 : -1
}
function finish(name,   missing) {
	missing = plan - seen
	if (plan && missing > 0) {
		printf "not ok - %s: %d planned test(s) did not report\n", name, missing
		failed += missing
		pfail += missing
	}
	if (skipwhy != "" && !seen && (rc == 0 || rc == 4)) {
		printf "ok - %s # SKIP %s\n", name, skipwhy
		skipped++
		pskip++
	} else if (rc != 0 && !prog_failed && missing <= 0) {
		printf "not ok - %s: exited with %d\n", name, rc
		failed++
		pfail++
	} else if (!seen && !plan) {
		# exit status 0, yet nothing tested
		if (planned)
			printf "not ok - %s: a plan of no tests (1..0), no SKIP directive with a reason: it tested nothing\n", name
		else
			printf "not ok - %s: no plan and no result: it tested nothing\n", name
		failed++
		pfail++
	}
	ran[name] = 1
	if (times != "")
		printf "%s %d %d %d %s %s\n", name, ppass, pfail, pskip, secs, rc > times
}
/^=== upmu-test: / {
	name = $3; plan = 0; planned = 0; skipwhy = ""; seen = 0; prog_failed = 0; inprog = 1; last = ""
	ppass = pfail = pskip = 0
	nkept = 0; after = -1
	next
}
/^=== upmu-end: / {
	split($4, a, "="); rc = a[2]
	secs = $5; sub(/^\(/, "", secs)
	if (secs !~ /^[0-9.]+$/)
		secs = "?"
	finish(name); inprog = 0; next
}
!inprog { next }
# guest-suite.sh's time of the result before it (not a note of the program)
/^# upmu-time: / {
	if (tests != "" && last != "")
		printf "%s %s %s\n", $3, name, last > tests
	last = ""
	next
}
# the plan (the first one counts); "1..0 # SKIP REASON": it skips, and why
/^1\.\.[0-9]+/ {
	if (!planned) {
		planned = 1
		plan = substr($1, 4) + 0
		if (plan == 0 && $0 ~ /^1\.\.0 +# SKIP +[^ ]/) {
			skipwhy = $0
			sub(/^1\.\.0 +# SKIP +/, "", skipwhy)
		}
	}
	next
}
# what a result is about: its text after the number, without a directive
/^(not )?ok [0-9]+/ {
	last = $0
	sub(/^(not )?ok [0-9]+ +(- )?/, "", last)
	sub(/ +# .*/, "", last)
	gsub(/ /, "_", last)
}
/^ok [0-9]+ .*# SKIP/ { result(0); skipped++; pskip++; seen++; print; next }
# an expected failure that passed: the test did not test what it meant to
/^ok [0-9]+ .*# XPASS/ { result(0); failed++; pfail++; seen++; prog_failed = 1; print "not " $0; next }
/^ok [0-9]+/ { result(0); passed++; ppass++; seen++; next }
/^not ok [0-9]+/ { failed++; pfail++; seen++; prog_failed = 1; print; result(1); next }
/^#/ { note($0); next }
/^Bail out!/ { print name ": " $0 }
END {
	if (inprog) {
		print "# " name ": did not finish (the guest stopped in it)"
		rc = 1; secs = "?"
		finish(name)
	}
	n = split(expect, want)
	for (i = 1; i <= n; i++) {
		if (want[i] in ran)
			continue
		printf "not ok - %s: never started\n", want[i]
		failed++
		if (times != "")
			printf "%s 0 1 0 - -\n", want[i] > times
	}
	printf "%d %d %d\n", passed, failed, skipped > "/dev/stderr"
}
