#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of the test infrastructure, on the host (no VM): the result
# counting of scripts/tap-summary.awk, the kernel reports that
# scripts/logcheck.sh fails a VM run on, the helpers of
# selftests/upmu/lib.sh that decide whether a check passed, and how
# check.sh finds the stock kernel.  TAP output; exit 1 on a failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/common.sh"
. "$top/selftests/upmu/lib.sh"
# count the failures for the summary at the end (lib.sh keeps only
# whether there was one)
nfail=0
eval "lib_tap_fail() $(declare -f tap_fail | tail -n +2)"
tap_fail() { nfail=$((nfail + 1)); lib_tap_fail "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# logcheck.sh must catch every kind of kernel report: "KIND|LINE", LINE a
# report's headline as the kernel prints it (7.2's source, or Debian's
# 6.1 where it differs), alone in an otherwise clean log.  The log must
# fail, named after KIND: a kind whose own pattern is lost but that a
# catch-all still catches is named after the catch-all, and fails here.
lc_cases=(
'KASAN|[   41.210733] BUG: KASAN: slab-use-after-free in upmu_read+0x53/0xc0 [upmu_core]'
'KASAN|[   41.210733] KASAN: null-ptr-deref in range [0x0000000000000008-0x000000000000000f]'
'UBSAN|[   12.004180] UBSAN: array-index-out-of-bounds in drivers/upmu/core/upmu_core.c:512:9'
'UBSAN|[   12.004180] UBSAN: shift-out-of-bounds in drivers/upmu/lib/upmu_fmt.c:88:20'
'kmemleak|unreferenced object 0xffff888006b3c000 (size 64):'
'kmemleak|unreferenced object (percpu) 0x00006097de6ad2f0 (size 8):'
'kmemleak|[  300.120394] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
'kmemleak off|[    5.012201] kmemleak: Kernel memory leak detector disabled'
'kmemleak off|[    5.012201] kmemleak: Cannot allocate a kmemleak_object structure'
'kmemleak off|[    5.012201] kmemleak: Memory pool empty, consider increasing CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE'
'kmemleak off|[    5.012201] kmemleak: Kmemleak disabled without freeing internal data. Reclaim the memory with "echo clear > /sys/kernel/debug/kmemleak".'
'lockdep|[   50.118060] WARNING: possible circular locking dependency detected'
'lockdep|[   50.118060] WARNING: possible recursive locking detected'
'lockdep|[   50.118060] WARNING: inconsistent lock state'
'lockdep|[   50.118060] WARNING: possible irq lock inversion dependency detected'
'lockdep|[   50.118060] WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected'
'lockdep|[   50.118060] WARNING: bad unlock balance detected!'
'lockdep|[   50.118060] WARNING: held lock freed!'
'lockdep|[   50.118060] WARNING: perf/1234 still has locks held!'
'lockdep|[   50.118060] WARNING: lock held when returning to user space!'
'lockdep|[   50.118060] WARNING: Nested lock was not taken'
'lockdep|[   50.118060] WARNING: bad contention detected!'
'lockdep|[   50.118060] WARNING: chain_key collision'
'lockdep|[   50.118060] BUG: key ffff888003c1e0a8 has not been registered!'
'lockdep|[   50.118060] BUG: looking up invalid subclass: 8'
'lockdep|[   50.118060] INFO: trying to register non-static key.'
'lockdep off|[   50.118060] turning off the locking correctness validator.'
'lockdep off|[   50.118060] INFO: lockdep is turned off.'
'lockdep off|[   50.118060] Disabling lock debugging due to kernel taint'
'RCU usage|[   50.118060] WARNING: suspicious RCU usage'
'RCU stall|[   33.383974] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
'RCU stall|[   33.383974] rcu: INFO: rcu_sched self-detected stall on CPU'
'RCU stall|[   33.383974] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21 jiffies s: 173 root: 0x2/.'
'RCU stall|[   33.383974] INFO: rcu_tasks detected stalls on tasks:'
'soft lockup|[  100.204010] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [perf:1234]'
'hard lockup|[  100.204010] watchdog: CPU1: Watchdog detected hard LOCKUP on cpu 2'
'hard lockup|[  100.204010] Kernel panic - not syncing: Hard LOCKUP'
'hung task|[  243.216159] INFO: task khugepaged:51 blocked for more than 120 seconds.'
'hung task|[  243.216159] INFO: task perf:1234 is blocked on a mutex likely owned by task upmu_test:99.'
'atomic context|[   20.000001] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580'
'atomic context|[   20.000001] BUG: scheduling while atomic: perf/1234/0x00000002'
'atomic context|[   20.000001] BUG: using smp_processor_id() in preemptible [00000000] code: perf/1234'
'atomic context|[   20.000001] BUG: using __this_cpu_add_return() in preemptible [00000000] code: perf/1234'
'atomic context|[   20.000001] BUG: scheduling in a non-blocking section: perf/1234/0'
'atomic context|[   20.000001] BUG: assuming atomic context at drivers/upmu/core/upmu_core.c:300'
'atomic context|[   20.000001] BUG: assuming non migratable context at drivers/upmu/core/upmu_core.c:300'
'bad access|[   20.000001] BUG: kernel NULL pointer dereference, address: 0000000000000008'
'bad access|[   20.000001] BUG: unable to handle page fault for address: ffffc90000a3f000'
'general protection fault|[   20.000001] Oops: general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] SMP KASAN NOPTI'
'general protection fault|[   20.000001] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI'
'kernel BUG|[   20.000001] kernel BUG at drivers/upmu/core/upmu_core.c:812!'
'slub|[   20.000001] BUG kmalloc-64 (Tainted: G    B      O       ): Object already free'
'slub|[   20.000001] BUG upmu_event (Not tainted): Poison overwritten'
'list corruption|[   20.000001] list_add corruption. prev->next should be next (ffff888003c1e0a8), but was ffff888003c1e0b8. (prev=ffff888003c1e0a8).'
'list corruption|[   20.000001] list_del corruption, ffff888003c1e0a8->next is LIST_POISON1 (dead000000000100)'
'list corruption|[   20.000001] list_add double add: new=ffff888003c1e0a8, prev=ffff888003c1e0a8, next=ffff888003c1e0b8.'
'ODEBUG|[   20.000001] ODEBUG: free active (active state 0) object: ffff888003c1e0a8 object type: timer_list hint: upmu_poll+0x0/0x1a0 [upmu_core]'
'ODEBUG|[   20.000001] ODEBUG: Out of memory. ODEBUG disabled'
'refcount|[   20.000001] refcount_t: underflow; use-after-free.'
'Oops|[   20.000001] Oops: invalid opcode: 0000 [#1] SMP KASAN NOPTI'
'panic|[   20.000001] Kernel panic - not syncing: Fatal exception'
'BUG|[   20.000001] BUG: Bad page state in process perf  pfn:0a3f0'
'WARNING|[   20.000001] WARNING: drivers/upmu/core/upmu_core.c:812 at upmu_del+0x1a/0x80 [upmu_core], CPU#1: perf/1234'
'WARNING|[   20.000001] WARNING: CPU: 1 PID: 1234 at drivers/upmu/core/upmu_core.c:812 upmu_del+0x1a/0x80 [upmu_core]'
'INFO|[   33.461121] INFO: NMI handler (nmi_cpu_backtrace_handler) took too long to run: 38.292 msecs'
'INFO|INFO: NMI handler (perf_event_nmi_handler) took too long to run: 2.306 msecs'
'call trace|[   33.424634] Call Trace:'
'cut here|[   20.000001] ------------[ cut here ]------------'
'cut here|[   20.000001] ---[ end trace 0000000000000000 ]---'
)

plan=$((44 + ${#lc_cases[@]}))
tap_plan $plan

# summary LOG EXPECT: "PASSED FAILED SKIPPED" of tap-summary.awk, its
# other output in $tmp/out and per-program lines in $tmp/times
summary() {
	rm -f "$tmp/times"
	awk -v expect="$2" -v times="$tmp/times" -f "$top/scripts/tap-summary.awk" "$1" \
		2>&1 >"$tmp/out"
}
is() {	# is GOT WANT
	[ "$1" = "$2" ] && return 0
	echo "# got '$1', want '$2'"
	return 1
}

cat > "$tmp/full.log" <<'EOF'
[upmu] vm: booting
=== upmu-test: a
TAP version 13
1..3
ok 1 one
ok 2 two # SKIP no such thing
not ok 3 three
=== upmu-end: a rc=1 (12.5 s)
=== upmu-test: b
1..2
ok 1 one
ok 2 two
=== upmu-end: b rc=0 (3.0 s)
EOF
tap_check "tap-summary: counts of programs that ran" is "$(summary "$tmp/full.log" "a b")" "3 1 1"
tap_check "tap-summary: per-program results and seconds" \
	is "$(tr '\n' ';' < "$tmp/times")" "a 1 1 1 12.5 1;b 2 0 0 3.0 0;"

# The guest died during b: c never started.
head -n 11 "$tmp/full.log" > "$tmp/cut.log"
tap_check "tap-summary: a program the guest died in fails for what it did not report" \
	is "$(summary "$tmp/cut.log" "a b c")" "2 3 1"
tap_check "tap-summary: a program that never started is a failure" \
	grep -q "^not ok - c: never started" "$tmp/out"
tap_check "tap-summary: it is listed, with no time" grep -qx "c 0 1 0 - -" "$tmp/times"

# A program that bails out before its plan, one that exits non-zero
# after passing everything, and an expected failure that passed.
cat > "$tmp/odd.log" <<'EOF'
=== upmu-test: d
Bail out! cannot load modules
=== upmu-end: d rc=1 (1.0 s)
=== upmu-test: e
1..1
ok 1 one
=== upmu-end: e rc=2 (1.0 s)
=== upmu-test: f
1..2
ok 1 f.v.t1 # XFAIL
ok 2 f.v.t2 # XPASS
=== upmu-end: f rc=0 (1.0 s)
EOF
tap_check "tap-summary: bail-out, non-zero exit and XPASS are failures" \
	is "$(summary "$tmp/odd.log" "d e f")" "2 3 0"

# A failure comes with what its program said about it: the harness's
# lines before it, show's after it, none of a passing test's (nor the
# harness's next test's).
cat > "$tmp/notes.log" <<'EOF'
=== upmu-test: g
1..3
# RUN g.one
# g.one: Expected 1 (1) == v (2)
not ok 1 g.one
#   | rate 1.2% off
#  RUN           g.two ...
ok 2 g.two
# g.three: fine
ok 3 g.three
=== upmu-end: g rc=1 (1.0 s)
EOF
summary "$tmp/notes.log" "g" >/dev/null
tap_check "tap-summary: a failure is shown with its program's lines around it" \
	is "$(tr '\n' ';' < "$tmp/out")" \
	"not ok 1 g.one;#   # RUN g.one;#   # g.one: Expected 1 (1) == v (2);#   #   | rate 1.2% off;"
tap_check "tap-summary: the notes do not change the counts" is "$(summary "$tmp/notes.log" "g")" "2 1 0"

# guest-suite.sh times each result; the times are not a program's notes
cat > "$tmp/timed.log" <<'EOF'
=== upmu-test: h
1..3
ok 1 h.one
# upmu-time: 2.5
#  RUN           h.two ...
not ok 2 h.two
# upmu-time: 10.0
ok 3 - a shell check # SKIP not here
# upmu-time: 0.1
=== upmu-end: h rc=1 (12.6 s)
EOF
summary "$tmp/timed.log" "h" >/dev/null
tap_check "tap-summary: the times do not change the counts" is "$(summary "$tmp/timed.log" "h")" "1 1 1"
tap_check "tap-summary: a failure's notes do not include its time" \
	is "$(tr '\n' ';' < "$tmp/out")" "not ok 2 h.two;#   #  RUN           h.two ...;ok 3 - a shell check # SKIP not here;"
rm -f "$tmp/tests"
awk -v expect=h -v tests="$tmp/tests" -f "$top/scripts/tap-summary.awk" "$tmp/timed.log" >/dev/null 2>&1
tap_check "tap-summary: each result's time, program and name" \
	is "$(tr '\n' ';' < "$tmp/tests")" "2.5 h h.one;10.0 h h.two;0.1 h a_shell_check;"
eval "$(sed -n '/^tap_times() {/,/^}/p' "$top/scripts/guest-suite.sh")"
tap_check "guest-suite: a time after each result line, the rest as it was" \
	is "$(printf 'ok 1 a\n# note\nnot ok 2 b\nlast' | tap_times | sed 's/upmu-time: [0-9]*\.[0-9]$/upmu-time: T/' | tr '\n' ';')" \
	"ok 1 a;# upmu-time: T;# note;not ok 2 b;# upmu-time: T;last;"

# A program that ran and reported nothing proved nothing: no plan and no
# result, or a plan of none ("1..0"), fails, exit status 0 or not.  Only
# "1..0 # SKIP REASON" skips it, with exit status 0 or kselftest's 4
# (ksft_exit_skip()); the skip is listed with its reason.
printf '=== upmu-test: n\n=== upmu-end: n rc=0 (1.0 s)\n' > "$tmp/none.log"
tap_check "tap-summary: no plan and no result with exit status 0 is a failure" \
	is "$(summary "$tmp/none.log" n);$(cat "$tmp/out")" \
	"0 1 0;not ok - n: no plan and no result: it tested nothing"
printf '=== upmu-test: z\nTAP version 13\n1..0\n=== upmu-end: z rc=0 (1.0 s)\n' > "$tmp/zero.log"
tap_check "tap-summary: a plan of no tests (1..0) is a failure" \
	is "$(summary "$tmp/zero.log" z);$(cat "$tmp/out")" \
	"0 1 0;not ok - z: a plan of no tests (1..0), no SKIP directive with a reason: it tested nothing"
printf '=== upmu-test: s\nTAP version 13\n1..0 # SKIP kernel without fwctl\n=== upmu-end: s rc=0 (0.5 s)\n' \
	> "$tmp/skip.log"
tap_check "tap-summary: a plan of none with a SKIP directive and a reason skips the program" \
	is "$(summary "$tmp/skip.log" s);$(cat "$tmp/out");$(cat "$tmp/times")" \
	"0 0 1;ok - s # SKIP kernel without fwctl;s 0 0 1 0.5 0"
sed 's/rc=0/rc=4/' "$tmp/skip.log" > "$tmp/skip4.log"
tap_check "tap-summary: ... also with kselftest's skip exit status (4)" \
	is "$(summary "$tmp/skip4.log" s)" "0 0 1"
sed 's/rc=0/rc=139/' "$tmp/skip.log" > "$tmp/skipcrash.log"
tap_check "tap-summary: ... but not when it crashed" \
	is "$(summary "$tmp/skipcrash.log" s);$(cat "$tmp/out")" "0 1 0;not ok - s: exited with 139"
sed 's/ # SKIP .*/ # SKIP/' "$tmp/skip.log" > "$tmp/skipwhy.log"
tap_check "tap-summary: a SKIP directive without a reason is a failure" \
	is "$(summary "$tmp/skipwhy.log" s)" "0 1 0"
# beside them, programs that report as usual count as before
cat "$tmp/full.log" "$tmp/none.log" "$tmp/zero.log" "$tmp/skip.log" > "$tmp/mixed.log"
tap_check "tap-summary: beside them, the other programs count as before" \
	is "$(summary "$tmp/mixed.log" "a b n z s");$(tr '\n' ';' < "$tmp/times")" \
	"3 3 2;a 1 1 1 12.5 1;b 2 0 0 3.0 0;n 0 1 0 1.0 0;z 0 1 0 1.0 0;s 0 0 1 0.5 0;"

# logcheck LOG...: its exit status, then its headlines without
# "logcheck: LOG: ", each followed by ";"; all it printed in $tmp/lc.out
logcheck() {
	local rc=0
	"$top/scripts/logcheck.sh" "$@" > "$tmp/lc.out" 2>&1 || rc=$?
	echo "rc $rc;$(grep '^logcheck: ' "$tmp/lc.out" | sed 's/^logcheck: [^:]*: //' | tr '\n' ';')"
}
# A clean boot, with the lines closest to a report: the debug tools'
# banners, the taints of out-of-tree modules, guest-init's kmemleak scans.
cat > "$tmp/clean.log" <<'EOF'
[    0.000000] Linux version 7.2.13 (root@upmu) (gcc (Debian 12.2.0-14+deb12u1) 12.2.0) #1 SMP
[    0.261876] Kernel command line: console=ttyS0 panic_on_warn=0 rcupdate.rcu_expedited=1 upmu.kmemleak=0
[    0.301234] kasan: KernelAddressSanitizer initialized (generic)
[    0.410000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    0.410001] ... MAX_LOCKDEP_KEYS:        8192
[    0.410002]  memory used by lock dependency info: 6365 kB
[    0.488738] rcu: Preemptible hierarchical RCU implementation.
[    0.488740] rcu: 	RCU lockdep checking is enabled.
[    0.488741] rcu: 	RCU CPU stall warnings timeout set to 21 (rcu_cpu_stall_timeout).
[    0.489046] 	Tasks-RCU CPU stall warnings timeout set to 120000 (rcu_task_stall_timeout).
[    1.128667] NMI watchdog: Perf NMI watchdog permanently disabled
[    2.500000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15727)
[upmu-init] 8.75s: running the command (cpus: 4, kernel: 7.2.13)
[   10.007150] upmu_core: loading out-of-tree module taints kernel.
[   10.012137] upmu_core: module verification failed: signature and/or required key missing - tainting kernel
[   19.966319] hrtimer: interrupt took 12394580 ns
[upmu-init] 23.20s: command exited with rc 0
[upmu-init] 23.21s: kmemleak: scan
[upmu-init] 28.90s: kmemleak: done
[   29.911599] reboot: Power down
EOF
tap_check "logcheck: a clean log passes" is "$(logcheck "$tmp/clean.log")" "rc 0;"
# Each case in a clean log of its own, all scanned by one logcheck run
# (a run per case took seconds on a loaded 2-core machine): each log's
# headline, by case number, in found[]
clean_head=$(head -n 10 "$tmp/clean.log")
clean_tail=$(tail -n 10 "$tmp/clean.log")
mkdir "$tmp/kinds"
for i in "${!lc_cases[@]}"; do
	printf '%s\n%s\n%s\n' "$clean_head" "${lc_cases[$i]#*|}" "$clean_tail" > "$tmp/kinds/$i.log"
done
lc_rc=0
"$top/scripts/logcheck.sh" "$tmp"/kinds/*.log > "$tmp/kinds.out" 2>&1 || lc_rc=$?
declare -A found
while IFS= read -r l; do
	case $l in "logcheck: $tmp/kinds/"*)
		l=${l#"logcheck: $tmp/kinds/"}
		found[${l%%.log: *}]=${l#*.log: } ;;
	esac
done < "$tmp/kinds.out"
tap_check "logcheck: logs with reports fail" is "$lc_rc" 1
for i in "${!lc_cases[@]}"; do
	c=${lc_cases[$i]}
	tap_check "logcheck: ${c%%|*}: ${c#*|}" \
		is "${found[$i]:-nothing found}" "1 suspicious line(s): ${c%%|*}"
done
# A report as it comes (Debian 6.1's, from a VM's console): every kind
# in it named, in order, each hit marked among the lines around it.
head -n 15 "$tmp/clean.log" > "$tmp/stall.log"
cat >> "$tmp/stall.log" <<'EOF'
[   33.383974] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
[   33.389187] rcu: 	0-...0: (10 ticks this GP) idle=e2d4/1/0x4000000000000000 softirq=558/561 fqs=2119
[   33.390158] 	(detected by 1, t=5252 jiffies, g=409, q=8 ncpus=4)
[   33.390975] Sending NMI from CPU 1 to CPUs 0:
[   33.405759] NMI backtrace for cpu 0
[   33.410339] CPU: 0 PID: 161 Comm: bpf_read_test Tainted: G           OE      6.1.0-56-amd64 #1  Debian 6.1.192-2
[   33.415646] RIP: 0010:native_queued_spin_lock_slowpath+0x30/0x2a0
[   33.424634] Call Trace:
[   33.438200]  <TASK>
[   33.439139]  _raw_spin_lock_irqsave+0x39/0x50
[   33.440060]  upmu_read+0x53/0xc0 [upmu_core]
[   33.442667]  </TASK>
[   33.461121] INFO: NMI handler (nmi_cpu_backtrace_handler) took too long to run: 38.292 msecs
[  243.216159] INFO: task khugepaged:51 blocked for more than 120 seconds.
EOF
tap_check "logcheck: a whole report: its kinds, in order" \
	is "$(logcheck "$tmp/stall.log")" "rc 1;4 suspicious line(s): RCU stall, call trace, INFO, hung task;"
tap_check "logcheck: ... each hit marked, the lines around it shown" \
	is "$(grep -c '^  >' "$tmp/lc.out") $(grep -c '^ *[0-9]*: \[   33.390158\]' "$tmp/lc.out")" "4 1"
# A log that is not there or says nothing proves nothing.  (vm.sh passes
# console.log, kmemleak.log if the guest wrote it, then dmesg.log.)
tap_check "logcheck: a missing log fails" \
	is "$(logcheck "$tmp/clean.log" "$tmp/no-such.log")" \
	"rc 1;missing: no log to check (did the guest write it?);"
: > "$tmp/console.log"
tap_check "logcheck: an empty log fails" \
	is "$(logcheck "$tmp/console.log" "$tmp/clean.log")" \
	"rc 1;empty: no log to check (did the guest write it?);"
mkdir "$tmp/vm"
: > "$tmp/vm/kmemleak.log"
tap_check "logcheck: an empty kmemleak report passes (nothing leaked)" \
	is "$(logcheck "$tmp/clean.log" "$tmp/vm/kmemleak.log")" "rc 0;"
tap_check "logcheck: a report in any of the logs fails" \
	is "$(logcheck "$tmp/clean.log" "$tmp/stall.log")" \
	"rc 1;4 suspicious line(s): RCU stall, call trace, INFO, hung task;"
tap_check "logcheck: no log named is a usage error" is "$(logcheck)" "rc 2;"

# lib.sh: fails checks the failure it was asked for
say() { echo "$2" >&2; return "$1"; }
tap_check "fails: the expected failure and message" fails "No such device" say 1 "perf: No such device"
tap_check "fails: a success is not a failure" eval '! fails "No such device" say 0 "No such device" >/dev/null'
tap_check "fails: another error is not the expected one" \
	eval '! fails "No such device" say 1 "Permission denied" >/dev/null'
tap_check "fails: a missing program is not the expected failure" \
	eval '! fails "No such device" "$tmp/no-such-program" >/dev/null'
tap_check "fails_rc: the exit status asked for" fails_rc 2 say 2 usage
tap_check "fails_rc: another exit status is not" eval '! fails_rc 2 say 1 error >/dev/null'

# lib.sh: loop counts
tap_check "loops: make check's count by default" is "$(UPMU_SOAK= loops UPMU_T_N 3 300)" 3
tap_check "loops: make soak's count under UPMU_SOAK=1" is "$(UPMU_SOAK=1 loops UPMU_T_N 3 300)" 300
tap_check "loops: a count in the environment wins" is "$(UPMU_SOAK=1 UPMU_T_N=7 loops UPMU_T_N 3 300)" 7
tap_check "loops: a bad count stops the program" \
	eval '! (UPMU_T_N=x loops UPMU_T_N 3 300 >/dev/null 2>&1)'

# lib.sh: near() takes numbers only ("-", "e", "+" are no 0)
tap_check "near: within the tolerance" near 104 100 0.05
tap_check "near: outside it" eval '! near 106 100 0.05'
tap_check "near: 0 is near 0, 2e2 near 200" eval 'near 0 0 0.1 && near 2e2 200 0.01'
tap_check "near: \"-\", \"e\", \"+\", \"\" and \"1.2.3\" are not numbers" \
	eval '! near - 0 0.1 && ! near e 0 0.1 && ! near + 0 0.1 && ! near "" 0 0.1 && ! near 1.2.3 0 1'

# common.sh: the stock kernel is /boot's newest, with its own headers
mkdir -p "$tmp/boot" "$tmp/modules/6.1.0-9-amd64/build" "$tmp/modules/6.1.0-10-amd64"
touch "$tmp/boot/vmlinuz-6.1.0-9-amd64" "$tmp/boot/vmlinuz-6.1.0-10-amd64"
touch "$tmp/modules/6.1.0-9-amd64/build/Makefile"
export UPMU_BOOT_DIR=$tmp/boot UPMU_MODULES_DIR=$tmp/modules
tap_check "stock kernel: the newest in /boot" is "$(upmu_stock_kver)" 6.1.0-10-amd64
tap_check "stock kernel: no headers for it is not another kernel's headers" \
	eval '! upmu_kernel_build 6.1.0-10-amd64 && ! upmu_kernel_build ""'
# make check sees only the exit status: running other than the plan fails
if [ "$_tap_n" != "$plan" ]; then
	echo "# planned $plan tests, ran $_tap_n"
	_tap_fail=1
fi
echo "# infra-test: $((_tap_n - nfail)) passed, $nfail failed"
tap_exit
