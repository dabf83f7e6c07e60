#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan kernel logs (console.log, dmesg.log) and kmemleak.log for reports of
# kernel bugs: BUG/WARNING/Oops, KASAN, UBSAN, lockdep, RCU stalls,
# lockups, hung tasks, kmemleak, debugobjects, refcount and list
# corruption, and a debug tool turning itself off.  Prints every hit
# with some context, under a line naming the kinds of report found, and
# exits 1 if there is one, 0 if the logs are clean.
#
# Usage: scripts/logcheck.sh FILE...
# A missing or empty FILE fails (a log that says nothing proves nothing),
# except that kmemleak's report (a file named *kmemleak*) is empty when
# nothing leaked.  scripts/infra-test.sh tests every kind below.
set -euo pipefail

# The report kinds, one a line: a name and an extended regexp, matched
# case-sensitively against each line (the headlines as 7.2's source
# prints them, 6.1's where they differ).  A line is named after the
# first kind it matches: the specific kinds first, the catch-alls last.
KINDS=''
kind() { KINDS+="$1"$'\t'"$2"$'\n'; }
# mm/kasan/report.c: "BUG: KASAN: slab-use-after-free in f+0x1/0x2";
# after a GPF on a non-canonical address "KASAN: null-ptr-deref in range"
kind KASAN 'KASAN:'
# lib/ubsan.c: "UBSAN: array-index-out-of-bounds in file.c:12:3"
kind UBSAN 'UBSAN'
# mm/kmemleak.c, kmemleak.log: "unreferenced object 0x... (size 64):"
kind kmemleak 'unreferenced object'
# mm/kmemleak.c, the kernel log: "kmemleak: 2 new suspected memory leaks"
kind kmemleak 'suspected memory leak'
# mm/kmemleak.c: it stopped tracking ("Kernel memory leak detector
# disabled", "Cannot allocate a kmemleak_object structure", "Memory
# pool empty"): leaks after it go unnoticed
kind 'kmemleak off' 'kmemleak: .*(detector disabled|Kmemleak disabled|Cannot allocate|Memory pool empty)'
# kernel/locking/lockdep.c's reports (the "WARNING: ..." headlines)
kind lockdep 'WARNING: (possible circular locking dependency|possible recursive locking|inconsistent lock state|possible irq lock inversion|[A-Z-]+-safe -> [A-Z-]+-unsafe lock order|bad unlock balance|held lock freed|.* still has locks held|lock held when returning to user space|Nested lock was not taken|bad contention|chain_key collision)'
kind lockdep 'BUG: (key [^ ]* has not been registered|looking up invalid subclass)|INFO: trying to register non-static key'
# lockdep turned off: its own limits (KERN_DEBUG: in dmesg, not on the
# console), or a taint that makes it unreliable; lock bugs after it go
# unnoticed
kind 'lockdep off' 'turning off the locking correctness validator|INFO: lockdep is turned off|Disabling lock debugging due to kernel taint'
# kernel/locking/lockdep.c (lockdep_rcu_suspicious)
kind 'RCU usage' 'WARNING: suspicious RCU usage'
# kernel/rcu/tree_stall.h, tree_exp.h, tasks.h: "rcu: INFO: rcu_sched
# self-detected stall on CPU", "rcu: INFO: rcu_preempt detected stalls on
# CPUs/tasks:", "... detected expedited stalls", "rcu_tasks detected stalls"
kind 'RCU stall' 'INFO: [a-z_]+ (self-)?detected (expedited )?stall'
# kernel/watchdog.c: "watchdog: BUG: soft lockup - CPU#1 stuck for 26s!"
kind 'soft lockup' 'soft lockup - CPU#'
# kernel/watchdog.c: "Watchdog detected hard LOCKUP on cpu 1", the panic's
# "Hard LOCKUP"
kind 'hard lockup' '[Hh]ard LOCKUP'
# kernel/hung_task.c: "INFO: task x:12 blocked for more than 120 seconds."
kind 'hung task' 'INFO: task .*blocked'
# kernel/sched/core.c: might_sleep() and friends
kind 'atomic context' 'BUG: (sleeping function called from invalid context|scheduling while atomic|scheduling in a non-blocking section|assuming atomic context|assuming non migratable context|using smp_processor_id\(\) in preemptible|using __this_cpu_[a-z_]+\(\) in preemptible)'
# arch/x86/mm/fault.c
kind 'bad access' 'BUG: (kernel NULL pointer dereference|unable to handle page fault)'
# arch/x86/kernel/traps.c: "Oops: general protection fault, probably for
# non-canonical address" (7.2), "general protection fault: 0000 [#1]" (6.1)
kind 'general protection fault' 'general protection fault'
# lib/bug.c: BUG()/BUG_ON() ("kernel BUG at drivers/x.c:12!")
kind 'kernel BUG' 'kernel BUG at'
# mm/slub.c: "BUG kmalloc-64 (Tainted: G    B   O): Object already free"
kind slub 'BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\): '
# lib/list_debug.c (CONFIG_DEBUG_LIST)
kind 'list corruption' 'list_(add|del) corruption|list_add double add'
# lib/debugobjects.c: "ODEBUG: free active (active state 0) object: ..."
kind ODEBUG 'ODEBUG:'
# lib/refcount.c: "refcount_t: underflow; use-after-free."
kind refcount 'refcount_t: '
# arch/x86/kernel/dumpstack.c: "Oops: invalid opcode: 0000 [#1] ..."
kind Oops 'Oops'
kind panic 'Kernel panic'
# The catch-alls: any BUG/WARNING/INFO headline (WARN() is "WARNING: CPU:
# 0 PID: 1 at f.c:1 g+0x1/0x2" in 6.1, "WARNING: f.c:1 at g+0x1/0x2,
# CPU#0: x/1" in 7.2), a stack dump, a report's cut/end markers
kind BUG 'BUG:'
kind WARNING 'WARNING:'
kind INFO '(^|[^[:alnum:]_])INFO: '
kind 'call trace' 'Call Trace:'
kind 'cut here' '\[ cut here \]|---\[ end trace'

# Known-benign lines matching KINDS.  Keep each entry narrow and say why.
ALLOW=''

[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 2; }

status=0
for f in "$@"; do
	if [ ! -f "$f" ]; then
		echo "logcheck: $f: missing: no log to check (did the guest write it?)"
		status=1
		continue
	fi
	# kmemleak's report is empty when nothing leaked
	case ${f##*/} in *kmemleak*) may_be_empty=1 ;; *) may_be_empty=0 ;; esac
	# Print each hit with 3 lines before and 30 after (a report's body),
	# merging overlapping windows; at most 300 lines per file.
	if ! KINDS=$KINDS ALLOW=$ALLOW awk -v name="$f" -v may_be_empty=$may_be_empty '
		BEGIN {
			allow = ENVIRON["ALLOW"]
			n = split(ENVIRON["KINDS"], k, "\n")
			for (i = 1; i <= n; i++) {
				if (k[i] == "")
					continue
				split(k[i], kv, "\t")
				nk++; kname[nk] = kv[1]; kre[nk] = kv[2]
				bad = bad (bad == "" ? "" : "|") "(" kv[2] ")"
			}
		}
		{ sub(/\r+$/, ""); line[NR] = $0 }
		/[^[:space:]]/ { said = 1 }
		$0 ~ bad && (allow == "" || $0 !~ allow) {
			hit[NR] = 1; nhits++
			for (i = 1; i <= nk; i++)
				if ($0 ~ kre[i])
					break
			if (!(kname[i] in seen)) {
				seen[kname[i]] = 1
				kinds = kinds (kinds == "" ? "" : ", ") kname[i]
			}
		}
		END {
			if (!said && !may_be_empty) {
				printf "logcheck: %s: empty: no log to check (did the guest write it?)\n", name
				exit 1
			}
			if (!nhits)
				exit 0
			printf "logcheck: %s: %d suspicious line(s): %s\n", name, nhits, kinds
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
