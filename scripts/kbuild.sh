#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the upmu debug kernel from linux-source-7.2 and the fragment in
# scripts/kernel/debug.config.  Cached by source version + fragment hash.
# Prints the build directory on stdout.
set -euo pipefail
. "$(dirname "$0")/common.sh"

src=$("$UPMU_TOP/scripts/ksrc.sh")
ver=$(awk '{print $2}' "$src/.upmu-unpacked")
out="$UPMU_CACHE/kbuild/$ver-$(upmu_frag_hash)"

if [ -f "$out/.upmu-built" ]; then
	upmu_log "debug kernel: $ver, fragment $(upmu_frag_hash) (cached in $out)"
	echo "$out"
	exit 0
fi

mkdir -p "$out"
upmu_log "building debug kernel $ver, fragment $(upmu_frag_hash) in $out (takes ~8-10 min on 2 cores)"
make -s -C "$src" O="$out" tinyconfig >&2
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
	"$UPMU_TOP/scripts/kernel/debug.config" >/dev/null
make -s -C "$src" O="$out" olddefconfig >&2

# Every option the fragment asks for must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=y) ;; *) continue ;; esac
	grep -qx "$line" "$out/.config" || { upmu_log "config: $line did not stick"; bad=1; }
done < "$UPMU_TOP/scripts/kernel/debug.config"
[ $bad = 0 ] || upmu_die "debug config fragment does not apply to $ver"

make -s -C "$src" O="$out" -j"$UPMU_JOBS" bzImage modules >&2
touch "$out/.upmu-built"
upmu_log "debug kernel: $ver built in $out"
echo "$out"
