#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The exporter storm at its full load, on the host (bench/README,
# "upmu-exporter"): in the TCG guest the storm client and the 64 scraping
# clients cannot make 10^4 malformed requests in 10 s, so make bench also
# runs the storm here, before it boots the guest, against an upmu-exporter
# of this machine (the built-in series, its defaults; this machine's PMUs,
# usually none of upmu's: the exposition is then its own series) on
# 127.0.0.1:PORT.  The storm and its goals are exporter-cost.sh's
# (storm-lib.sh).  Figures, not a test: exit 1 only if it cannot measure.
#   host-storm.sh [SECONDS]             (default 10)
# UPMU_EXPORTER, UPMU_EXPORTER_STORM: other binaries; UPMU_HOST_STORM_PORT:
# the port (19464).
set -u
secs=${1:-10}
top=$(cd "$(dirname "$0")/.." && pwd)
E=${UPMU_EXPORTER:-$top/build/tools/upmu-exporter}
STORM=${UPMU_EXPORTER_STORM:-$top/build/bench/exporter_storm}
PORT=${UPMU_HOST_STORM_PORT:-19464}
URL=http://127.0.0.1:$PORT
TIMEOUT_S=5
epid=""

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$E" ] || die "no $E (make build/tools/upmu-exporter)"
[ -x "$STORM" ] || die "no $STORM (make build/bench/exporter_storm)"
command -v curl >/dev/null || die "no curl"
# another server on the port would be measured instead
! curl -s -m 2 -o /dev/null "$URL/" || die "something serves $URL already (UPMU_HOST_STORM_PORT)"
tmp=$(mktemp -d) || exit 1
cleanup() {
	[ -z "$epid" ] || { kill "$epid" 2>/dev/null; wait "$epid" 2>/dev/null; }
	rm -rf "$tmp"
}
trap cleanup EXIT
# storm(), exporter_start/stop(), met()
. "$top/bench/storm-lib.sh"

cat > "$tmp/exporter.conf" <<EOF
listen 127.0.0.1:$PORT
cache_ms 200
timeout_s $TIMEOUT_S
EOF
exporter_start || die "upmu-exporter does not serve $URL/metrics"
nser=$(curl -s -m 10 "$URL/metrics" | grep -c '^[a-z]')
echo "== exporter host storm: on $(nproc) CPUs of the host, upmu-exporter (PID $epid) serving $nser series on $URL"
if storm "host storm" -s "$secs"; then
	exporter_stop
	echo "== exporter host storm: upmu-exporter alive and serving after it; exit $? on SIGTERM"
else
	echo "== exporter host storm: upmu-exporter NOT serving after the storm"
	tail -n 5 "$tmp/exporter.err" | sed 's/^/   /'
fi
exit 0
