#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: build the modules and upmu_bench for a kernel, boot it once
# (QEMU/TCG, 4 CPUs, 2 sockets) and print the read and open cost ratios;
# before it, the exporter storm on the host (bench/host-storm.sh).
#
# Usage: bench/bench.sh [--kernel stock|debug] [-- upmu_bench options]
#   --kernel stock  Debian's newest /boot/vmlinuz-* (default), modules
#                   built against /lib/modules/<its version>/build
#   --kernel debug  the upmu debug kernel (scripts/kbuild.sh)
# upmu_bench options, e.g. -n 20000 (reads per round), -s read,open: see
# bench/README or build/bench/upmu_bench -h.
# Output: the guest's, also in build/bench/<kernel>/stdout.log.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"
cd "$UPMU_TOP"

kernel=stock
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?}; shift 2 ;;
	--) shift; break ;;
	-h | --help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) upmu_die "bench: unknown option: $1 (options for upmu_bench go after --)" ;;
	esac
done

case "$kernel" in
stock)
	# the kernel scripts/vm.sh --kernel stock boots
	kver=$(find /boot -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' | sed 's/^vmlinuz-//' |
		sort -V | tail -n 1)
	[ -n "$kver" ] || upmu_die "bench: no /boot/vmlinuz-* (scripts/deps.sh installs linux-image-amd64)"
	kdir=/lib/modules/$kver/build
	[ -f "$kdir/Makefile" ] || upmu_die "bench: no headers for $kver in $kdir (linux-headers-amd64)"
	;;
debug) kdir=$(scripts/kbuild.sh) ;;
*) upmu_die "bench: --kernel must be stock or debug" ;;
esac

scripts/build-modules.sh "$kdir" >/dev/null
make -s build/bench/upmu_bench build/bench/bench_aux build/tools/upmu-iostat \
	build/tools/upmu-exporter build/bench/exporter_storm
# the aux section's perf script figure needs the patched perf (cached)
UPMU_PERF=$(scripts/perfbuild.sh 2>/dev/null) || UPMU_PERF=""
export UPMU_PERF
# The exporter storm at full load, which the TCG guest cannot make, here
# on the host first (nothing else running), its output also kept in
# build/bench/host-storm.log.
mkdir -p build/bench
bench/host-storm.sh 2>&1 | tee build/bench/host-storm.log
[ "${PIPESTATUS[0]}" -eq 0 ] || upmu_die "bench: the host storm could not measure"
# No kmemleak scan (not a leak test); kernel reports still fail the run.
exec scripts/vm.sh --kernel "$kernel" --cpus 4 --nodes 2 --no-kmemleak --timeout 1200 \
	--results "$UPMU_TOP/build/bench/$kernel" -- "$UPMU_TOP/bench/guest-bench.sh" "$@"
