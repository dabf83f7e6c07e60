#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Module lifecycle: unload with events open, load/unload and
# create/destroy loops.  Leaks are caught by the kmemleak scan that the
# VM runner does after the whole suite.
set -u
. "$(dirname "$0")/lib.sh"
PERF=${PERF:-perf}
ID=9

tap_plan 10
upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
sim_del $ID
sim_new "$ID 2"

# 1-2: the PMU driver stays while an event holds it
$PERF stat -a -e nvidia_ucf_pmu_0/slc_access/ -- sleep 6 >/dev/null 2>&1 &
perf_pid=$!
if wait_ref upmu_t410 20; then
	tap_check "rmmod upmu_t410 with an open event fails" fails rmmod upmu_t410
	tap_check "PMU still registered after refused rmmod" pmu_present nvidia_ucf_pmu_0
else
	tap_fail "event did not take a module reference (refcnt $(mod_refcnt upmu_t410))"
	tap_fail "PMU still registered after refused rmmod"
fi
wait $perf_pid

# 3: after the event closes the module goes
tap_check "rmmod upmu_t410 after close" rmmod upmu_t410
mod_load upmu_t410

# 4-5: the simulator can go while events are open.  Linux 6.15+ detaches
# the events at once; older kernels keep the PMU registered but dead
# (new events refused) until the events are closed.
$PERF stat -a -e nvidia_ucf_pmu_0/slc_access/ -- sleep 6 >/dev/null 2>&1 &
perf_pid=$!
wait_ref upmu_t410 20
rmmod upmu_sim
if kernel_revokes; then
	tap_check "rmmod upmu_sim with open events unregisters the PMU" \
		fails pmu_present nvidia_ucf_pmu_0
else
	tap_check "rmmod upmu_sim with open events: dead PMU refuses new events" \
		fails $PERF stat -a -e nvidia_ucf_pmu_0/slc_access/ -- true
fi
wait $perf_pid
tap_check "PMU gone once the events are closed" pmu_gone_within nvidia_ucf_pmu_0 5
mod_load upmu_sim

# 6: create/destroy loop.  The loops use SoCs with at most one PCIe root
# complex per socket (rcs=): every PMU type is created and destroyed, at
# a cost a debug kernel under TCG can afford hundreds of times.
ok=1
for i in $(seq 200); do
	sim_new "$ID $((i % 2 + 1)) rcs=$((i % 2))" || { ok=0; break; }
	pmu_present nvidia_ucf_pmu_0 || { ok=0; break; }
	sim_inject $ID "socket=0 count=$i" || { ok=0; break; }
	sim_del $ID || { ok=0; break; }
done
if [ $ok = 1 ]; then tap_ok "200 x new_device/del_device"; else tap_fail "new_device/del_device loop failed at $i"; fi

# 7: driver load/unload loop with a device present (probe/remove paths)
sim_new "$ID 2 rcs=1"
ok=1
for i in $(seq 50); do
	rmmod upmu_t410 || { ok=0; break; }
	pmu_present nvidia_ucf_pmu_0 && { ok=0; break; }
	insmod "$UPMU_MODDIR/upmu_t410.ko" || { ok=0; break; }
	pmu_present nvidia_ucf_pmu_1 || { ok=0; break; }
done
if [ $ok = 1 ]; then tap_ok "50 x upmu_t410 unload/load with 2 sockets bound"; else tap_fail "driver load/unload loop failed at $i"; fi

# 8: whole stack load/unload loop
ok=1
for i in $(seq 20); do
	mod_unload upmu_t410 && mod_unload upmu_sim && mod_unload upmu_core || { ok=0; break; }
	upmu_load_all || { ok=0; break; }
	sim_new "$ID 2 rcs=1" && pmu_present nvidia_ucf_pmu_1 &&
		pmu_present nvidia_pcie_tgt_pmu_1_rc_0 || { ok=0; break; }
done
if [ $ok = 1 ]; then tap_ok "20 x full stack unload/load"; else tap_fail "stack load/unload loop failed at $i"; fi

# 9: a second device cannot take the same PMU names; the first keeps working
sim_new "$((ID + 1)) 1"
if pmu_present nvidia_ucf_pmu_0 && sim_inject $ID "socket=0 count=1"; then
	tap_ok "duplicate PMU names refused without harm"
else
	tap_fail "duplicate PMU names refused without harm"
fi
sim_del $((ID + 1))
sim_del $ID

# 10: nothing above leaked (the VM runner scans once more at the end)
kl=/sys/kernel/debug/kmemleak
if [ -w $kl ]; then
	echo scan > $kl; sleep 2; echo scan > $kl
	if grep -q "unreferenced object" $kl; then
		tap_fail "kmemleak clean after the loops"; head -n 40 $kl | sed 's/^/# /'
	else
		tap_ok "kmemleak clean after the loops"
	fi
else
	tap_skip "kmemleak not available on $(uname -r)"
fi
tap_exit
