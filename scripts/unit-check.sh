#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu-exporter's systemd unit: systemd-analyze verify accepts it (with
# @BINDIR@ the built binary's directory), and it runs the exporter as a
# dynamic user whose only capability is CAP_PERFMON
# (Documentation/upmu-exporter.rst).  Prints what is wrong; exit 1 if
# anything is.
#   unit-check.sh [UNIT [BINDIR]]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
unit=${1:-$top/tools/upmu-exporter/upmu-exporter.service}
bindir=${2:-$top/build/tools}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

sed "s#@BINDIR@#$bindir#g" "$unit" > "$tmp/upmu-exporter.service"
if ! out=$(systemd-analyze verify "$tmp/upmu-exporter.service" 2>&1) || [ -n "$out" ]; then
	echo "unit-check: systemd-analyze verify: ${out:-failed}"
	bad=1
fi
# key=value as the unit says it, the last one of the key
get() { sed -n "s/^$1=//p" "$tmp/upmu-exporter.service" | tail -n 1; }
for kv in DynamicUser=yes AmbientCapabilities=CAP_PERFMON CapabilityBoundingSet=CAP_PERFMON \
	  NoNewPrivileges=yes ProtectSystem=strict; do
	[ "$(get "${kv%%=*}")" = "${kv#*=}" ] ||
		{ echo "unit-check: want $kv, the unit has '$(get "${kv%%=*}")'"; bad=1; }
done
grep -qE '^(User|Group)=' "$tmp/upmu-exporter.service" &&
	{ echo "unit-check: a fixed User= or Group=: the unit runs as a dynamic user"; bad=1; }
exit $bad
