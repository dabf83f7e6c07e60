#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Obtain and unpack Debian's linux-source-7.2 through a private apt
# configuration (the system's apt sources are never touched).
# Prints the path of the unpacked tree on stdout.
set -euo pipefail
. "$(dirname "$0")/common.sh"

APT="$UPMU_CACHE/apt"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$UPMU_CACHE/src"

# Reuse an unpacked tree if one exists for the wanted version.
for d in "$UPMU_CACHE/src/linux-source-$UPMU_KVER_WANT" \
	 $(ls -d "$UPMU_CACHE"/src/linux-source-7.2.* 2>/dev/null | sort -V -r); do
	if [ -f "$d/.upmu-unpacked" ]; then
		upmu_log "kernel source: $(cat "$d/.upmu-unpacked") (cached in $d)"
		echo "$d"
		exit 0
	fi
done

cat > "$APT/sources.list" <<EOS
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main
EOS
OPTS=(-o Dir::Etc::SourceList="$APT/sources.list"
      -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$APT/lists"
      -o Dir::Cache="$APT/cache"
      -o Debug::NoLocking=1
      -o APT::Sandbox::User=root)

upmu_log "fetching package lists for linux-source-7.2 (private apt config)"
apt-get "${OPTS[@]}" -qq update >&2
versions=$(apt-cache "${OPTS[@]}" madison linux-source-7.2 | awk '{print $3}' | sort -V -r)
[ -n "$versions" ] || upmu_die "linux-source-7.2 not found in the archive"
ver=""
for v in $versions; do
	[ "$v" = "$UPMU_KVER_WANT" ] && ver=$v
done
if [ -z "$ver" ]; then
	ver=$(echo "$versions" | head -n1)
	upmu_log "linux-source-7.2 $UPMU_KVER_WANT not available; using newest $ver"
fi

dest="$UPMU_CACHE/src/linux-source-$ver"
tmp="$UPMU_CACHE/src/.dl-$$"
rm -rf "$tmp"; mkdir -p "$tmp"
(cd "$tmp" && apt-get "${OPTS[@]}" -qq download "linux-source-7.2=$ver" >&2)
deb=$(ls "$tmp"/*.deb)
upmu_log "unpacking $(basename "$deb")"
dpkg -x "$deb" "$tmp/x"
rm -rf "$dest"; mkdir -p "$dest"
tar -C "$dest" --strip-components=1 -xf "$tmp"/x/usr/src/linux-source-7.2.tar.xz
rm -rf "$tmp"
echo "linux-source-7.2 $ver" > "$dest/.upmu-unpacked"
upmu_log "kernel source: linux-source-7.2 $ver in $dest"
echo "$dest"
