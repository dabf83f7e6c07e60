#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build libperf (tools/lib/perf, with the libapi it needs) from the 7.2
# source tree, once: cached by source version in $UPMU_CACHE/libperf/.
# Prints the directory that holds include/ (perf/*.h, internal/*.h) and
# lib/ (libperf.a, libapi.a) on stdout.  The upmu tools open, enable and
# close their events through it (Documentation/upmu-metrics.rst says what
# they keep of their own).
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=$("$UPMU_TOP/scripts/ksrc.sh" 2>/dev/null) || src=$("$UPMU_TOP/scripts/ksrc.sh")
ver=$(awk '{print $2}' "$src/.upmu-unpacked")
out="$UPMU_CACHE/libperf/$ver"

if [ -f "$out/.upmu-built" ]; then
	echo "$out"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/build" "$out/lib"
make -s -C "$src/tools/lib/perf" O="$out/build" DESTDIR="$out" prefix=/ \
	-j"$UPMU_JOBS" all install_headers >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; upmu_die "libperf: build failed (log: $out/build.log)"; }
cp "$out/build/libperf.a" "$out/build/libapi.a" "$out/lib/"
rm -rf "$out/build"
echo "libperf of linux-source $ver" > "$out/.upmu-built"
upmu_log "libperf: built in $out"
echo "$out"
