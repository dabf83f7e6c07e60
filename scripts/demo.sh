#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: build what is needed, boot the debug kernel with 2 sockets
# (NUMA nodes) and show perf on a simulated Tegra410 and a NIC, and
# upmu-diag sampling the NIC's diagnostic counters into CSV, then DDIO on
# a simulated Ice Lake-X through perf's own Intel events and metrics (the
# guest's CPU is QEMU's "max", so perf is given its Ice Lake-X tables by
# PERF_CPUID; scripts/vm.sh --cpu-model icx would make it an Ice Lake-X)
# and upmu-iostat.
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"

scripts/deps.sh
kdir=$(scripts/kbuild.sh)
scripts/build-modules.sh "$kdir" >/dev/null
make -s tools >/dev/null
# perf 7.2 with the project's patches, for the NIC's AUX stream (cached)
UPMU_PERF=$(scripts/perfbuild.sh) || UPMU_PERF=""
export UPMU_PERF
upmu_log "booting the debug kernel (QEMU/TCG, 4 CPUs, 2 sockets); this takes ~30 s"
exec scripts/vm.sh --kernel debug --cpus 4 --nodes 2 -- "$UPMU_TOP/scripts/guest-demo.sh"
