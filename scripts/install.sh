#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the upmu modules the way out-of-tree drivers are installed.
#
#   scripts/install.sh modules [KDIR]    (make install [KDIR=...])
#	Builds the modules for KDIR (default: the running kernel's
#	/lib/modules/$(uname -r)/build), installs them with Kbuild's
#	modules_install into $INSTALL_MOD_PATH/lib/modules/<release>/extra
#	($INSTALL_MOD_DIR overrides "extra") and runs depmod.
#	INSTALL_MOD_PATH (or DESTDIR) installs below a staging directory,
#	which needs no root.  Modules are signed when KDIR has the kernel's
#	signing key (a distribution's headers do not: use dkms, which signs
#	with its own key).
#   scripts/install.sh dkms-src          (make dkms-src)
#	Copies what DKMS builds from (dkms.conf, Kbuild, driver/) to
#	$DESTDIR/usr/src/upmu-<version>; then "dkms install upmu/<version>".
#   scripts/install.sh dkms-version      prints <version> (dkms.conf's)
set -euo pipefail
. "$(dirname "$0")/common.sh"
cd "$UPMU_TOP"
export PATH="$PATH:/usr/sbin:/sbin"	# depmod, for non-root users

dkms_version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$UPMU_TOP/dkms.conf"
}

install_modules() {
	local kdir=${1:-} out rel dest sigkey
	local args=()

	[ -n "$kdir" ] || kdir=/lib/modules/$(uname -r)/build
	[ -f "$kdir/Makefile" ] ||
		upmu_die "install: no kernel build tree at $kdir (install the kernel's headers, e.g. linux-headers-$(uname -r), or give KDIR=)"
	# Not the test-only upmu_testpmu (modules_install installs all that is
	# built), without make check's -Werror, and apart from the tests' build.
	out=$(UPMU_TESTPMU= UPMU_WERROR= UPMU_MODULES_OUT="$UPMU_TOP/build/install" \
	      scripts/build-modules.sh "$kdir")
	rel=$(basename "$out")
	dest=${INSTALL_MOD_PATH:-${DESTDIR:-}}
	if [ -n "$dest" ]; then
		dest=$(mkdir -p "$dest" && cd "$dest" && pwd)
		args+=(INSTALL_MOD_PATH="$dest")
	fi
	[ -z "${INSTALL_MOD_DIR:-}" ] || args+=(INSTALL_MOD_DIR="$INSTALL_MOD_DIR")

	# CONFIG_MODULE_SIG_ALL without the key: sign-file would print SSL
	# errors for every module (and install it unsigned anyway).
	if grep -q '^CONFIG_MODULE_SIG_ALL=y' "$kdir/.config" 2>/dev/null; then
		sigkey=$(sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"$/\1/p' "$kdir/.config")
		case $sigkey in /* | pkcs11:*) ;; *) sigkey=$kdir/$sigkey ;; esac
		if [[ $sigkey != pkcs11:* && ! -r $sigkey ]]; then
			upmu_log "install: no module signing key in $kdir: modules not signed"
			args+=(CONFIG_MODULE_SIG_ALL=)
		fi
	fi

	upmu_log "install: modules for $rel into $dest/lib/modules/$rel/${INSTALL_MOD_DIR:-extra}"
	# Kbuild's own depmod needs System.map, which headers packages lack:
	# silence its warning and run depmod below in every case.
	if ! make --no-print-directory -C "$kdir" M="$out" "${args[@]}" modules_install 2>&1 |
		{ grep -v "missing 'System.map' file. Skipping depmod" || true; }; then
		upmu_die "install: modules_install failed"
	fi
	# A staging directory has no modules.order/builtin: depmod warns.
	if ! depmod ${dest:+-b "$dest"} "$rel" 2>&1 |
		{ grep -v 'WARNING: could not open modules\.' || true; }; then
		upmu_die "install: depmod failed"
	fi
	upmu_log "install: depmod ${dest:+-b $dest }$rel"
	upmu_log "install: done (modprobe upmu_t410; modprobe upmu_sim for the simulator)"
}

install_dkms_src() {
	local ver dir

	ver=$(dkms_version)
	[ -n "$ver" ] || upmu_die "install: no PACKAGE_VERSION in dkms.conf"
	dir=${DESTDIR:-}/usr/src/upmu-$ver
	rm -rf "$dir"
	mkdir -p "$dir"
	cp dkms.conf Kbuild "$dir/"
	cp -R driver "$dir/"
	# only sources: no objects, should the tree have any
	find "$dir/driver" -type f ! -name '*.[ch]' -delete
	upmu_log "install: DKMS sources in $dir (next: dkms install upmu/$ver)"
}

case ${1:-} in
modules) shift; install_modules "$@" ;;
dkms-src) install_dkms_src ;;
dkms-version) dkms_version ;;
*) upmu_die "usage: $0 modules [KDIR] | dkms-src | dkms-version" ;;
esac
