#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the tiny initramfs that boots a upmu test VM (see scripts/vm.sh):
# static busybox, scripts/guest-init.sh as /init and, for a modular kernel
# (Debian's stock kernel), the virtio + 9p modules needed to mount the host
# root over virtio-9p.
#
# Usage: scripts/initramfs.sh debug|stock|KERNEL-VERSION
#   debug           our debug kernel (everything built in: no modules)
#   stock           the newest installed Debian kernel /boot/vmlinuz-*
#   KERNEL-VERSION  modules come from /lib/modules/KERNEL-VERSION if it
#                   exists, else none are added (built-in kernel)
#
# Cached in $UPMU_CACHE/initramfs/<key>.cpio.gz, keyed by a hash of
# guest-init.sh, this script, busybox, the kernel version and the
# modules; prints the path on stdout.
set -euo pipefail
. "$(dirname "$0")/common.sh"

# Modules loaded in this order; missing ones are assumed built in.  Their
# dependencies (modules.dep) are added before them.
UPMU_VM_MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev
virtio_pci netfs fscache 9pnet 9pnet_virtio 9p"

[ $# = 1 ] || upmu_die "usage: $0 debug|stock|KERNEL-VERSION"
case "$1" in
debug) kver=debug ;;
stock) kver=$(upmu_stock_kver) ||
	upmu_die "no /boot/vmlinuz-* kernel installed (scripts/deps.sh installs linux-image-amd64)" ;;
*) kver=$1 ;;
esac

busybox=$(command -v busybox || true)
[ -n "$busybox" ] || upmu_die "busybox not found (apt-get install busybox-static)"
if command -v file >/dev/null && ! file -L "$busybox" | grep -q 'statically linked'; then
	upmu_die "$busybox is not static (apt-get install busybox-static)"
fi

# Resolve the module files (relative to /lib/modules/$kver), deps first.
moddir=/lib/modules/$kver
mods=()
if [ "$kver" != debug ] && [ -f "$moddir/modules.dep" ]; then
	declare -A seen=()
	add_mod() { # $1: path relative to $moddir, as in modules.dep
		local dep
		[ -z "${seen[$1]:-}" ] || return 0
		seen[$1]=1
		for dep in $(awk -F': *' -v m="$1" '$1 == m { print $2 }' "$moddir/modules.dep"); do
			add_mod "$dep"
		done
		mods+=("$1")
	}
	for m in $UPMU_VM_MODULES; do
		f=$(awk -F: -v m="$m" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko(\.[a-z]+)?$/, "", n);
			gsub(/-/, "_", n) } n == m { print $1; exit }' "$moddir/modules.dep")
		[ -n "$f" ] && add_mod "$f"
	done
	[ ${#mods[@]} -gt 0 ] || upmu_log "initramfs: no virtio/9p modules in $moddir (assuming built in)"
elif [ "$kver" != debug ]; then
	upmu_log "initramfs: no $moddir/modules.dep: no modules added (kernel must have virtio/9p built in)"
fi

key=$( {
	sha256sum "$UPMU_TOP/scripts/guest-init.sh" "$0" "$busybox" | cut -d' ' -f1
	echo "$kver"
	for f in "${mods[@]}"; do sha256sum "$moddir/$f"; done
} | sha256sum | cut -c1-16)
out="$UPMU_CACHE/initramfs/$kver-$key.cpio.gz"
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$UPMU_CACHE/initramfs"
stage=$(mktemp -d "$UPMU_CACHE/initramfs/.stage.XXXXXX")
trap 'rm -rf "$stage" "$stage.cpio.gz"' EXIT

mkdir -p "$stage"/{bin,dev,proc,sys,newroot,lib/modules,tmp}
cp "$busybox" "$stage/bin/busybox"
# Applet links made here, not by `busybox --install` at boot: saves seconds
# on the debug kernel under TCG.
for a in $("$busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done
install -m 0755 "$UPMU_TOP/scripts/guest-init.sh" "$stage/init"
# The kernel opens /dev/console before running /init; init also reopens it
# after mounting devtmpfs, so failing here (not root) is harmless.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true

# Modules, decompressed (busybox insmod may not handle .xz/.zst), and their
# load order in /lib/modules/load.
: > "$stage/lib/modules/load"
for f in "${mods[@]}"; do
	base=${f##*/}
	name=${base%%.ko*}.ko
	case "$base" in
	*.ko) cp "$moddir/$f" "$stage/lib/modules/$name" ;;
	*.ko.xz) xz -dc "$moddir/$f" > "$stage/lib/modules/$name" ;;
	*.ko.zst) zstd -qdc "$moddir/$f" > "$stage/lib/modules/$name" ;;
	*.ko.gz) gzip -dc "$moddir/$f" > "$stage/lib/modules/$name" ;;
	*) upmu_die "initramfs: unknown module format: $f" ;;
	esac
	echo "$name" >> "$stage/lib/modules/load"
done

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 | gzip -9n) > "$stage.cpio.gz"
mv "$stage.cpio.gz" "$out"
upmu_log "initramfs: $out (kernel $kver, ${#mods[@]} modules)"
echo "$out"
