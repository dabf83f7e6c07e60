#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM as root: loads the upmu modules built for the
# running kernel and runs the selftests.  Each program's TAP output is
# printed between "=== upmu-test: NAME" and "=== upmu-end: NAME rc=RC (N s)".
#   guest-suite.sh [NAME...]	(only the named tests, e.g. c2c_test)
set -u
only=" $* "
top=$(cd "$(dirname "$0")/.." && pwd)
rel=$(uname -r)
export UPMU_MODDIR="$top/build/$rel"
export PERF=${PERF:-/usr/bin/perf}
bin="$top/build/selftests"

run() {	# run NAME CMD...
	local name=$1 rc t0=$SECONDS
	shift
	[ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
	echo "=== upmu-test: $name"
	"$@" 2>&1
	rc=$?
	echo "=== upmu-end: $name rc=$rc ($((SECONDS - t0)) s)"
}

if [ ! -f "$UPMU_MODDIR/upmu_core.ko" ]; then
	echo "=== upmu-test: load"; echo "Bail out! no modules for $rel in $UPMU_MODDIR"
	echo "=== upmu-end: load rc=1"; exit 1
fi
for m in upmu_core upmu_sim upmu_t410; do
	insmod "$UPMU_MODDIR/$m.ko" || { echo "insmod $m failed"; exit 1; }
done
echo "upmu: modules loaded on $rel ($(nproc) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) nodes)"

run ucf_test "$bin/ucf_test"
run cmem_test "$bin/cmem_test"
run pcie_test "$bin/pcie_test"
run pcie_tgt_test "$bin/pcie_tgt_test"
run c2c_test "$bin/c2c_test"
run families_test "$bin/families_test"
run sim_test "$bin/sim_test"
run perf_examples "$top/selftests/upmu/perf_examples.sh"
run metrics_test "$top/selftests/upmu/metrics_test.sh"
run pcimap_test "$top/selftests/upmu/pcimap_test.sh"
run modules_test "$top/selftests/upmu/modules_test.sh"
exit 0
