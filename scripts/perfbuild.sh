#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build perf from the 7.2 source tree with the project's patch series
# (tools/perf-patches/, applied in the order of its "series" file) on a
# copy of the files perf needs (tools/perf/MANIFEST): the unpacked tree
# the kernel is built from is never changed.  Cached by source version
# and a hash of the series, the patches and the build flags, like the
# kernel.  Prints the path of the perf binary on stdout, and says on
# stderr which version and series it used.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# What perf 7.2 needs off to build on Debian 12 (../shared notes:
# environment.md); libelf and libtraceevent stay, for symbols and for
# perf script's tracepoint fields.  NO_RUST: the machine's rustc breaks
# the test workload archive.
PERF_FLAGS="NO_RUST=1 NO_LIBPYTHON=1 NO_LIBPERL=1 NO_LIBBPF=1 NO_BPF_SKEL=1
NO_JVMTI=1 NO_LIBUNWIND=1 NO_SLANG=1 NO_GTK2=1 NO_LIBBABELTRACE=1 NO_LIBNUMA=1
NO_SDT=1 NO_LIBLLVM=1 NO_DEMANGLE=1 NO_SHELLCHECK=1 NO_LIBPFM4=1 NO_CAPSTONE=1
JEVENTS_ARCH=all"
# JEVENTS_ARCH=all: the event and metric tables of every architecture, so
# that the x86 perf the guests run knows the Tegra410 sys events and
# metrics of patch 0005 (arm64's), as perf on the SoC would.  It costs
# some 35 s a build on 2 cores (2 min 24 s without, 2 min 56-61 s with,
# 2026-11-28), twice in a cold make check (plain and ASan).

# UPMU_PERF_SAN=1: built with ASan and UBSan (the fuzz target of
# scripts/perfdata-fuzz.sh), cached apart.  UBSan's alignment check is
# off: perf's own session code reads misaligned fields of perf.data on
# purpose (upstream's, not the decoder's, which reads bytes).
san_flags=()
if [ "${UPMU_PERF_SAN:-0}" = 1 ]; then
	# (perf links with its CFLAGS; EXTRA_LDFLAGS would go to ld -r).
	# A fuzzer runs it thousands of times, so its start-up counts: not
	# position-independent (the dynamic linker spent a third of a 0.12 s
	# "perf version" relocating its 72 MB), and no ASan redzones around
	# globals (registering perf's event tables' took most of the rest);
	# the decoder reads heap and mapped buffers, which ASan still checks.
	# WERROR=0: with the sanitizers gcc 12 warns of upstream's code
	# (a "null destination pointer" snprintf in util/build-id.c).
	san_flags=("EXTRA_CFLAGS=-fsanitize=address,undefined -fno-sanitize=alignment -fno-omit-frame-pointer -g --param=asan-globals=0 -fno-pie -no-pie"
		   WERROR=0)
fi

patches="$UPMU_TOP/tools/perf-patches"
src=$("$UPMU_TOP/scripts/ksrc.sh")
ver=$(awk '{print $2}' "$src/.upmu-unpacked")

series=()
while IFS= read -r p; do
	case "$p" in '' | '#'*) continue ;; esac
	[ -f "$patches/$p" ] || upmu_die "perf: $p of tools/perf-patches/series does not exist"
	series+=("$p")
done < "$patches/series"

hash=$( { echo "$PERF_FLAGS"; printf '%s\n' "${san_flags[@]}"; cat "$patches/series";
	  for p in "${series[@]}"; do cat "$patches/$p"; done; } | sha256sum | cut -c1-12)
out="$UPMU_CACHE/perf/$ver-$hash"

if [ -x "$out/perf" ] && [ -d "$out/tests/shell" ] && [ -f "$out/.upmu-built" ]; then
	upmu_log "perf: $(cat "$out/.upmu-built") (cached in $out)"
	echo "$out/perf"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out/tree" "$out/build"
upmu_log "building perf $ver with ${#series[@]} patches (series $hash) in $out (takes ~5-8 min on 2 cores)"

upmu_perf_files "$src" "$out/tree"
# Its version: what the tree's Makefile says (PERF-VERSION-GEN's fallback
# when there is no git repository).
echo "#define PERF_VERSION \"$(make -s -C "$src" kernelversion)\"" > "$out/tree/PERF-VERSION-FILE"

for p in "${series[@]}"; do
	patch -d "$out/tree" -p1 --quiet --no-backup-if-mismatch < "$patches/$p" ||
		upmu_die "perf: $p does not apply to linux-source $ver"
done

# shellcheck disable=SC2086
make -s -C "$out/tree/tools/perf" O="$out/build" -j"$UPMU_JOBS" $PERF_FLAGS \
	WERROR=1 "${san_flags[@]}" >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; upmu_die "perf: build failed (log: $out/build.log)"; }
cp "$out/build/perf" "$out/perf"
# perf test finds its shell tests in tests/shell next to the binary (as
# installed: libexec/perf-core/tests/shell), among them the series' own
# test_upmu_nic.sh; they run perf from PATH.
mkdir -p "$out/tests"
cp -a "$out/tree/tools/perf/tests/shell" "$out/tests/"
rm -rf "$out/tree" "$out/build"
echo "perf $("$out/perf" version | awk '{print $3}')${san_flags:+ (ASan/UBSan)}, series $hash: ${series[*]:-no patches}" \
	> "$out/.upmu-built"
upmu_log "perf: $(cat "$out/.upmu-built") built in $out"
echo "$out/perf"
