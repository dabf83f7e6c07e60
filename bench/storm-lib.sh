# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154
# Sourced by exporter-cost.sh (in the bench guest) and host-storm.sh (on
# the host): a storm against a running upmu-exporter and its goals.
# The caller sets E (upmu-exporter), STORM (build/bench/exporter_storm),
# URL, TIMEOUT_S (the exporter's timeout_s), tmp (a directory with the
# exporter's configuration in exporter.conf) and die(); epid is the
# exporter's PID once exporter_start has started it.

# exporter_start: start it, wait until it serves (opening every PMU's
# events under TCG takes a while)
exporter_start() {
	"$E" -c "$tmp/exporter.conf" 2>> "$tmp/exporter.err" &
	epid=$!
	for _ in $(seq 600); do
		curl -sf -m 10 -o /dev/null "$URL/metrics" && return 0
		kill -0 "$epid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$tmp/exporter.err" >&2
	return 1
}
exporter_stop() { kill "$epid" 2>/dev/null; wait "$epid"; local rc=$?; epid=""; return $rc; }
# met COND: "met" if the awk condition COND is true, else "NOT met"
met() { awk -v c="$1" 'BEGIN { print (c ? "met" : "NOT met") }'; }
# storm NAME ARGS...: a storm against the exporter (still $epid), its
# block and its goals; the malformed requests sent, against the -m asked
storm() {
	local name=$1 ok total smax fb fs grow sent
	shift
	echo "== exporter $name: exporter_storm $* -T $TIMEOUT_S against upmu-exporter (PID $epid)"
	"$STORM" -p "$epid" -T "$TIMEOUT_S" "$@" "$URL" > "$tmp/storm" ||
		{ sed 's/^/   /' "$tmp/storm"; die "exporter_storm could not measure"; }
	sed 's/^/   /' "$tmp/storm"
	ok=$(k scrapes_ok) total=$(k scrapes_total) smax=$(k scrape_max_s)
	fb=$(k fds_before) fs=$(k fds_settled) grow=$(k rss_kb_growth)
	sent=$(awk '$1 == "sent_malformed" { print $2, $4 }' "$tmp/storm")
	echo "== exporter $name: scrapes ok $ok of $total (goal: all: $(met $((total > 0 && ok == total))))"
	echo "== exporter $name: longest scrape $smax s (goal: under 1 s: $(met "$(awk -v m="$smax" 'BEGIN { print (m >= 0 && m < 1) }')"))"
	echo "== exporter $name: fds $fb before, $(k fds_after) at the end, $fs $((TIMEOUT_S + 2)) s later (goal: back to $fb: $(met $((fs == fb))))"
	echo "== exporter $name: VmRSS grew $grow kB, $(k rss_kb_before) -> $(k rss_kb_settled) (goal: under 8 MiB: $(met $((grow >= 0 && grow < 8192))))"
	echo "== exporter $name: malformed requests sent ${sent% *} of ${sent#* } (goal: all: $(met "$([ "${sent% *}" = "${sent#* }" ] && echo 1 || echo 0)"))"
	[ "$(k final_scrape_ok)" = 1 ] && kill -0 "$epid" 2>/dev/null
}
# k KEY: KEY's value in the last storm's block
k() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/storm"; }
