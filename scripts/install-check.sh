#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host check of the ways upmu installs, against a kernel build tree (default:
# the newest Debian stock headers, /lib/modules/*-amd64/build):
#  1. make install INSTALL_MOD_PATH=<staging dir>: the four modules under
#     lib/modules/<release>/extra, for that release, with depmod's index
#     (upmu_t410 depends on upmu_core);
#  2. make dkms-src DESTDIR=<tmp>, then Debian's dkms adds, builds and
#     installs the package from <tmp>/usr/src/upmu-<version> for that
#     kernel, and removes it: the four modules built for that release and
#     installed under <release>/updates/dkms, then gone.
# Everything happens in a temporary directory (dkms --dkmstree, --sourcetree,
# --installtree, --no-depmod; its signing key too), removed at the end:
# nothing is installed on the host and /var/lib/dkms is not touched.
# Needs root (dkms add and install check it).
#   scripts/install-check.sh [KDIR]
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"

kdir=${1:-$(ls -d /lib/modules/*-amd64/build 2>/dev/null | sort -V | tail -n1)}
[ -n "$kdir" ] && [ -f "$kdir/Makefile" ] || upmu_die "install-check: no kernel headers (scripts/deps.sh)"
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
[ -n "$rel" ] || upmu_die "install-check: $kdir is not a configured kernel tree"
command -v dkms >/dev/null || upmu_die "install-check: dkms missing (scripts/deps.sh)"
ver=$(scripts/install.sh dkms-version)
mods="upmu_core upmu_sim upmu_t410 upmu_nic upmu_icx"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/upmu-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install-check: FAIL: $*" >&2; exit 1; }

# vermagic_is FILE: the module was built for $rel
vermagic_is() {
	[ "$(modinfo -F vermagic "$1" | cut -d' ' -f1)" = "$rel" ] ||
		fail "$1: vermagic $(modinfo -F vermagic "$1"), want $rel"
}

echo "# make install KDIR=$kdir INSTALL_MOD_PATH=$tmp/stage"
make -s install KDIR="$kdir" INSTALL_MOD_PATH="$tmp/stage"
mdir=$tmp/stage/lib/modules/$rel
for m in $mods; do
	[ -f "$mdir/extra/$m.ko" ] || fail "make install: no $mdir/extra/$m.ko"
	vermagic_is "$mdir/extra/$m.ko"
done
grep -qx 'extra/upmu_t410.ko: extra/upmu_core.ko' "$mdir/modules.dep" ||
	fail "make install: depmod index: $(cat "$mdir/modules.dep" 2>&1)"
[ "$(modinfo -b "$tmp/stage" -k "$rel" -F filename upmu_t410)" = "$mdir/extra/upmu_t410.ko" ] ||
	fail "make install: modinfo -b does not find upmu_t410"
[ -z "$(find "$tmp/stage" -path "$mdir" -prune -o -type f -print)" ] ||
	fail "make install wrote outside $mdir: $(find "$tmp/stage" -path "$mdir" -prune -o -type f -print)"
[ -z "$(find "$tmp/stage" -name 'upmu_testpmu*')" ] ||
	fail "make install installed the test-only $(find "$tmp/stage" -name 'upmu_testpmu*')"
# what users build does not fail on a new warning: no -Werror of ours
# (the kernel's own -Werror=... flags aside)
! grep -q -- ' -Werror ' "build/install/$rel/driver/core/.upmu_core.o.cmd" ||
	fail "make install built with -Werror"
echo "ok: make install: $mods in $mdir/extra, depmod index"

echo "# make dkms-src DESTDIR=$tmp/root; dkms add, build -k $rel, remove"
make -s dkms-src DESTDIR="$tmp/root"
src=$tmp/root/usr/src/upmu-$ver
[ -f "$src/dkms.conf" ] && [ -f "$src/Kbuild" ] || fail "dkms-src: incomplete $src"
mkdir -p "$tmp/dkms"
d=(--dkmstree "$tmp/dkms" --sourcetree "$tmp/root/usr/src")
# dkms signs with a MOK key it creates in /var/lib/dkms unless told where
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
dkms add -m upmu -v "$ver" "${d[@]}"
if ! dkms build -m upmu -v "$ver" -k "$rel" --kernelsourcedir "$kdir" "${d[@]}"; then
	cat "$tmp/dkms/upmu/$ver/build/make.log" 2>/dev/null
	fail "dkms build"
fi
dkms status -m upmu -v "$ver" -k "$rel" "${d[@]}" | tee "$tmp/status"
grep -q "^upmu/$ver, $rel, .*: built" "$tmp/status" || fail "dkms status is not 'built'"
for m in $mods; do
	ko=$(ls "$tmp/dkms/upmu/$ver/$rel/"*/module/"$m".ko* 2>/dev/null | head -n1 || true)
	[ -n "$ko" ] || fail "dkms build: no $m.ko"
	vermagic_is "$ko"
done
mkdir -p "$tmp/inst/$rel"
d+=(--installtree "$tmp/inst" --no-depmod)
dkms install -m upmu -v "$ver" -k "$rel" --kernelsourcedir "$kdir" "${d[@]}"
for m in $mods; do
	ls "$tmp/inst/$rel/updates/dkms/$m".ko* >/dev/null 2>&1 ||
		fail "dkms install: no $tmp/inst/$rel/updates/dkms/$m.ko"
done
dkms remove -m upmu -v "$ver" --all "${d[@]}"
[ ! -e "$tmp/dkms/upmu" ] || fail "dkms remove left $tmp/dkms/upmu"
[ -z "$(find "$tmp/inst" -name 'upmu_*')" ] || fail "dkms remove left $(find "$tmp/inst" -name 'upmu_*')"
echo "ok: dkms: upmu/$ver built for $rel from $src, installed, removed"
