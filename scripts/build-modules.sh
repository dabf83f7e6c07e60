#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the upmu modules against a kernel build tree.
#   scripts/build-modules.sh [KDIR]
# KDIR defaults to the upmu debug kernel (built on first use).  Output
# goes to build/<kernelrelease>/ so several kernels can coexist; the
# directory is printed on stdout.  C=1 and W=1 are passed through;
# UPMU_WERROR=y adds -Werror (make check), UPMU_TESTPMU= leaves out the
# test-only upmu_testpmu.ko, UPMU_MODULES_OUT=DIR builds in DIR/<release>.
set -euo pipefail
. "$(dirname "$0")/common.sh"

kdir=${1:-}
[ -n "$kdir" ] || kdir=$("$UPMU_TOP/scripts/kbuild.sh")
[ -f "$kdir/Makefile" ] || upmu_die "no kernel build tree at $kdir"
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
	"$kdir/include/generated/utsrelease.h" 2>/dev/null)
[ -n "$rel" ] || upmu_die "$kdir is not a configured kernel tree"

out=${UPMU_MODULES_OUT:-$UPMU_TOP/build}/$rel
mkdir -p "$out"
# Kbuild writes objects next to the sources: build from a private copy.
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
	--exclude='*.mod*' --exclude='*.symvers' --exclude='*.order' \
	"$UPMU_TOP/Kbuild" "$UPMU_TOP/driver" "$out/"

args=(-C "$kdir" M="$out")
# The test-only upmu_testpmu.ko, unless UPMU_TESTPMU= (make install)
args+=(UPMU_TESTPMU="${UPMU_TESTPMU-m}")
[ -n "${C:-}" ] && args+=(C="$C")
[ -n "${W:-}" ] && args+=(W="$W")
# Debian 12's sparse is too old for 7.x headers: use the one we build.
if [ -n "${C:-}" ] && [ -z "${CHECK:-}" ]; then
	CHECK=$("$UPMU_TOP/scripts/sparse.sh")
fi
[ -n "${CHECK:-}" ] && args+=(CHECK="$CHECK")
upmu_log "modules: building for $rel${C:+ C=$C}${W:+ W=$W}"
make -s "${args[@]}" -j"$UPMU_JOBS" modules >&2
echo "$out"
