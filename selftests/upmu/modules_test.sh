#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Module lifecycle: unload with events open, load/unload and
# create/destroy loops, then module references and kmemleak back to
# clean.  The loops run UPMU_LOOPS_NEWDEL, UPMU_LOOPS_DRIVER and
# UPMU_LOOPS_STACK times if set, else a few times for make check and
# many under UPMU_SOAK=1 (make soak): the same checks, only longer.
set -u
. "$(dirname "$0")/lib.sh"
PERF=${PERF:-perf}
ID=9

n_newdel=$(loops UPMU_LOOPS_NEWDEL 20 200)
n_driver=$(loops UPMU_LOOPS_DRIVER 6 50)
n_stack=$(loops UPMU_LOOPS_STACK 4 20)

tap_plan 13
need_cmd "$PERF"
upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
sim_del $ID
# One PCIe root complex per socket: a PMU of every type, and 14 PMUs for
# perf to read at its start, not 34.
sim_new "$ID 2 rcs=1" || { echo "Bail out! cannot create device"; exit 1; }

# perf stat on a UCF event in the background, until end_perf: its
# workload waits for a line on a FIFO (held open here, so that neither
# side blocks if the other is gone).
start_perf() {
	fifo=$(mktemp -u)
	mkfifo "$fifo" && exec 5<>"$fifo"
	$PERF stat -a -e nvidia_ucf_pmu_0/slc_access/ -- sh -c "read x < $fifo" >/dev/null 2>&1 &
	perf_pid=$!
}
end_perf() { echo >&5; wait $perf_pid; exec 5>&-; rm -f "$fifo"; }

# 1-3: the PMU driver stays while an event holds it
start_perf
if wait_ref upmu_t410 60; then
	tap_check "rmmod upmu_t410 with an open event fails (in use)" \
		fails "is in use" rmmod upmu_t410
	tap_check "PMU still registered after refused rmmod" pmu_present nvidia_ucf_pmu_0
else
	tap_fail "event did not take a module reference (refcnt $(mod_refcnt upmu_t410))"
	tap_fail "PMU still registered after refused rmmod"
fi
end_perf
tap_check "closing the event drops its module reference" is_refcnt upmu_t410 0

# 4: after the event closes the module goes
tap_check "rmmod upmu_t410 after close" rmmod upmu_t410
mod_load upmu_t410

# 5-6: the simulator can go while events are open.  Linux 6.15+ detaches
# the events at once; older kernels keep the PMU registered but dead
# (new events refused with ENODEV) until the events are closed.
start_perf
if wait_ref upmu_t410 60; then
	rmmod upmu_sim
	if kernel_revokes; then
		tap_check "rmmod upmu_sim with open events unregisters the PMU" \
			pmu_absent nvidia_ucf_pmu_0
	else
		tap_check "rmmod upmu_sim with open events: dead PMU refuses new events (ENODEV)" \
			fails "No such device" $PERF stat -a -e nvidia_ucf_pmu_0/slc_access/ -- true
	fi
else
	tap_fail "event did not take a module reference (refcnt $(mod_refcnt upmu_t410))"
	rmmod upmu_sim
fi
end_perf
tap_check "PMU gone once the events are closed" pmu_gone_within nvidia_ucf_pmu_0 5
mod_load upmu_sim

# 7: create/destroy loop.  The loops use SoCs with at most one PCIe root
# complex per socket (rcs=): every PMU type is created and destroyed, at
# a cost a debug kernel under TCG can afford many times.
t0=$SECONDS ok=1
for i in $(seq "$n_newdel"); do
	sim_new "$ID $((i % 2 + 1)) rcs=$((i % 2))" || { ok=0; break; }
	pmu_present nvidia_ucf_pmu_0 || { ok=0; break; }
	sim_inject $ID "socket=0 count=$i" || { ok=0; break; }
	sim_del $ID || { ok=0; break; }
done
if [ $ok = 1 ]; then tap_ok "$n_newdel x new_device/del_device ($((SECONDS - t0)) s)"
else tap_fail "new_device/del_device loop failed at $i"; fi

# 8: driver load/unload loop with a device present (probe/remove paths)
sim_new "$ID 2 rcs=1"
t0=$SECONDS ok=1
for i in $(seq "$n_driver"); do
	rmmod upmu_t410 || { ok=0; break; }
	pmu_present nvidia_ucf_pmu_0 && { ok=0; break; }
	insmod "$UPMU_MODDIR/upmu_t410.ko" || { ok=0; break; }
	pmu_present nvidia_ucf_pmu_1 || { ok=0; break; }
done
if [ $ok = 1 ]; then tap_ok "$n_driver x upmu_t410 unload/load with 2 sockets bound ($((SECONDS - t0)) s)"
else tap_fail "driver load/unload loop failed at $i"; fi

# 9: whole stack load/unload loop
t0=$SECONDS ok=1
for i in $(seq "$n_stack"); do
	mod_unload upmu_t410 && mod_unload upmu_sim && mod_unload upmu_core || { ok=0; break; }
	upmu_load_all || { ok=0; break; }
	sim_new "$ID 2 rcs=1" && pmu_present nvidia_ucf_pmu_1 &&
		pmu_present nvidia_pcie_tgt_pmu_1_rc_0 || { ok=0; break; }
done
if [ $ok = 1 ]; then tap_ok "$n_stack x full stack unload/load ($((SECONDS - t0)) s)"
else tap_fail "stack load/unload loop failed at $i"; fi

# 10-11: a second device cannot take the same PMU names: its PMUs are
# refused with EEXIST, and the first device's PMU counts exactly as
# before (the second device's traffic is not its).
echo "upmu modules_test: duplicate names" > /dev/kmsg
sim_new "$((ID + 1)) 1"
klog=$(dmesg | awk '/upmu modules_test: duplicate names/ { n = NR } { l[NR] = $0 }
	END { for (i = n + 1; i <= NR; i++) print l[i] }')
if echo "$klog" | grep -q "PMU nvidia_ucf_pmu_0 already exists" &&
   echo "$klog" | grep -q "failed with error -17"; then
	tap_ok "duplicate PMU names refused with EEXIST"
else
	tap_fail "duplicate PMU names refused with EEXIST"
	echo "$klog" | tail -n 10 | sed 's/^/# dmesg: /'
fi
got=$($PERF stat -a -x, -e nvidia_ucf_pmu_0/slc_access/ -- sh -c "
	echo 'socket=0 count=5' > /sys/kernel/debug/upmu_sim/$ID/inject
	echo 'socket=0 count=7' > /sys/kernel/debug/upmu_sim/$((ID + 1))/inject" 2>&1 >/dev/null |
	grep -v '^#' | grep -v '^$' | head -n 1 | cut -d, -f1)
tap_check "the first device keeps its PMU and counts exactly its traffic (5: $got)" [ "$got" = 5 ]
sim_del $((ID + 1))
sim_del $ID

# 12: with every device gone and no event open, no module holds a
# reference but those of the modules that use it.
refs_clean() {
	local m ok=0 want
	for m in upmu_t410 upmu_sim upmu_core; do
		want=$(ls "/sys/module/$m/holders" | wc -l)
		[ "$(mod_refcnt $m)" = "$want" ] ||
			{ echo "# $m: refcnt $(mod_refcnt $m), $want holder(s)"; ok=1; }
	done
	ls -d /sys/bus/event_source/devices/nvidia_* 2>/dev/null | sed 's/^/# left: /' | grep . && ok=1
	return $ok
}
tap_check "module references back to the modules' holders, no PMU left" refs_clean

# 13: nothing above leaked (the VM runner scans once more at the end)
kl=/sys/kernel/debug/kmemleak
if [ -w $kl ]; then
	echo scan > $kl; sleep 2; echo scan > $kl
	if grep -q "unreferenced object" $kl; then
		tap_fail "kmemleak clean after the loops"; head -n 40 $kl | sed 's/^/# /'
	else
		tap_ok "kmemleak clean after the loops"
	fi
elif kernel_config CONFIG_DEBUG_KMEMLEAK; then
	tap_fail "kmemleak clean after the loops: $kl not writable on a kernel with kmemleak"
else
	tap_skip "kmemleak not available on $(uname -r)"
fi
tap_exit
