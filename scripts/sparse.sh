#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 12's sparse (0.6.4) cannot parse Linux 7.2 headers, so Kbuild
# quietly skips C=1.  Build sparse from Debian sid's source package
# (private apt configuration, cached) and print the binary's path.
set -euo pipefail
. "$(dirname "$0")/common.sh"

APT="$UPMU_CACHE/apt-src"
for b in "$UPMU_CACHE"/sparse/*/sparse; do
	[ -x "$b" ] && { upmu_log "sparse: $("$b" --version) (cached)"; echo "$b"; exit 0; }
done

mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$UPMU_CACHE/sparse"
cat > "$APT/sources.list" <<EOS
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
EOS
OPTS=(-o Dir::Etc::SourceList="$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache"
      -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
upmu_log "sparse: fetching Debian sid source package"
apt-get "${OPTS[@]}" -qq update >&2
tmp="$UPMU_CACHE/sparse/.src-$$"
rm -rf "$tmp"; mkdir -p "$tmp"
(cd "$tmp" && apt-get "${OPTS[@]}" -qq --download-only source sparse >&2)
orig=$(ls "$tmp"/sparse_*.orig.tar.* | head -n1)
ver=$(basename "$orig" | sed 's/^sparse_\(.*\)\.orig\.tar\..*$/\1/')
dest="$UPMU_CACHE/sparse/$ver"
rm -rf "$dest"; mkdir -p "$dest"
tar -C "$dest" --strip-components=1 -xf "$orig"
upmu_log "sparse: building $ver"
make -s -C "$dest" -j"$UPMU_JOBS" sparse HAVE_LLVM=no HAVE_GTK=no >&2
rm -rf "$tmp"
upmu_log "sparse: $("$dest/sparse" --version)"
echo "$dest/sparse"
