#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs inside the demo VM: a simulated 2-socket Tegra410, a NIC and an
# Ice Lake-X with live traffic, shown through sysfs, perf stat and the upmu tools, every
# measured value next to what the simulator's model expects for it
# (scripts/demo-scenario.sh, which selftests/upmu/demo_test.sh runs too).
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mod="$top/build/$(uname -r)"
export PERF=${PERF:-/usr/bin/perf}
DEMO_TOP=$top
[ -x "$top/build/tools/upmu-metrics" ] && DEMO_METRICS=$top/build/tools/upmu-metrics
[ -x "$top/build/tools/upmu-pcimap" ] && DEMO_PCIMAP=$top/build/tools/upmu-pcimap
[ -x "$top/build/tools/upmu-diag" ] && DEMO_DIAG=$top/build/tools/upmu-diag
[ -x "$top/build/tools/upmu-iostat" ] && DEMO_IOSTAT=$top/build/tools/upmu-iostat
. "$top/scripts/demo-scenario.sh"

for m in upmu_core upmu_sim upmu_t410 upmu_nic upmu_icx; do insmod "$mod/$m.ko" || exit 1; done

log=$(mktemp)
demo_run 2>&1 | tee "$log"
say "Measured values against their expectations"
demo_check "$log"
