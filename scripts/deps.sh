#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, only when missing, the Debian 12 packages upmu needs to build,
# boot and test.  Needs root (apt-get).
set -euo pipefail

PKGS="qemu-system-x86 busybox-static cpio xz-utils flex bison bc libelf-dev
libssl-dev sparse gcc make perl python3 kmod linux-image-amd64
linux-headers-amd64 linux-perf libdw-dev libzstd-dev libcap-dev
libtraceevent-dev pciutils dwarves rsync dkms libjson-c-dev patch
libbpf-dev clang gcc-multilib qemu-user libmicrohttpd-dev prometheus
gnuplot-nox"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done

if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi

echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: need root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# prometheus is for the tests (exporter_test runs it in a guest), not a
# service of this machine: policy-rc.d keeps the package from starting it
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	policy=/usr/sbin/policy-rc.d
fi
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
[ -z "$policy" ] || rm -f "$policy"
case " $missing " in *" prometheus "*)
	[ ! -d /run/systemd/system ] || systemctl disable --now prometheus >/dev/null 2>&1 || true
esac
echo "deps: done"
