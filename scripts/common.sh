# SPDX-License-Identifier: GPL-2.0
# Shared settings for upmu scripts (sourced, not run).

UPMU_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Caches live outside the work tree so a fresh clone reuses them.
UPMU_CACHE=${UPMU_CACHE:-/var/cache/upmu}
# Preferred kernel source version; the newest 7.2.x is used if absent.
UPMU_KVER_WANT=${UPMU_KVER_WANT:-7.2.13-1}
UPMU_JOBS=${UPMU_JOBS:-$(($(nproc) + 1))}

upmu_log() { echo "[upmu] $*" >&2; }
upmu_die() { echo "[upmu] error: $*" >&2; exit 1; }

# Hash of the debug config fragment: part of the kernel cache key.
upmu_frag_hash() {
	sha256sum "$UPMU_TOP/scripts/kernel/debug.config" | cut -c1-12
}
