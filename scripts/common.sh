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

# The stock kernel: the newest installed /boot/vmlinuz-* (Debian's), the
# one vm.sh --kernel stock boots.  Prints its version; nothing and status
# 1 if there is none.  UPMU_BOOT_DIR: another /boot (for tests).
upmu_stock_kver() {
	local v
	v=$(find "${UPMU_BOOT_DIR:-/boot}" -maxdepth 1 -name 'vmlinuz-*' -printf '%f\n' 2>/dev/null |
		sed 's/^vmlinuz-//' | sort -V | tail -n 1)
	[ -n "$v" ] && echo "$v"
}

# The build tree (headers) of kernel version $1, for its modules:
# /lib/modules/$1/build.  Status 1 and nothing if it has none.
# UPMU_MODULES_DIR: another /lib/modules (for tests).
upmu_kernel_build() {
	local d=${UPMU_MODULES_DIR:-/lib/modules}/$1/build
	[ -n "$1" ] && [ -f "$d/Makefile" ] && echo "$d"
}

# upmu_perf_files SRC DEST: copy the files perf's own source package
# takes (make perf-tar-src-pkg: SRC/tools/perf/MANIFEST) from the kernel
# tree SRC into DEST, keeping their paths; a glob that matches nothing
# (arch/*/include/...) is fine.
upmu_perf_files() {
	local m f
	(cd "$1" &&
	 while IFS= read -r m; do
		 [ -n "$m" ] || continue
		 # shellcheck disable=SC2086 # globs expand here
		 for f in $m; do
			 if [ -e "$f" ]; then cp -a --parents "$f" "$2/"; fi
		 done
	 done < tools/perf/MANIFEST)
}
