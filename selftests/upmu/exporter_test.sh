#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu-exporter (tools/upmu-exporter, the ASan/UBSan build) on simulated
# devices:
#  - on the manual clock, exact: the exposition passes promtool check
#    metrics, has no series twice and exactly the fixture's series; a
#    PCIe root port's, a BDF's, the UCF's, CMEM's and a NIC port's
#    counters are the injected bytes and counts; the device map; no
#    multiplexing, and what does not fit is said; del_device ends a
#    device's series at once (on Linux 6.1 too: the name is free again,
#    re-creation does not meet EEXIST), re-creation starts them at 0, and
#    a PMU that stays keeps counting from where it was; a NIC a fwctl
#    user owns is up 0, then 1 once it is free (7.2, fwctl);
#  - with Debian's Prometheus scraping it every second while realtime
#    flows run (the stock guest; in the debug guest only the above, for
#    the time budget): promtool queries give up 1 throughout, the
#    fixture's sample count, rates within 5% of the flows (a PCIe root
#    port, a BDF, the UCF, an IIO part, a NIC port) and a latency within
#    1%, no resets though 32-bit counters wrap every few seconds, and a
#    device deleted and re-created mid-run: its series end, then come
#    back with increase() equal to what was injected after.
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
EXP=${UPMU_EXPORTER:-$top/build/selftests/upmu-exporter}
A=43		# Tegra410 + NIC, manual clock
S=44		# a NIC that stays (realtime: upmu-diag samples it)
DA=/sys/kernel/debug/upmu_sim/$A
DS=/sys/kernel/debug/upmu_sim/$S
PORT=9464
TMP=$(mktemp -d)
epid="" ppid=""
cleanup() {
	[ -z "$epid" ] || kill "$epid" 2>/dev/null
	[ -z "$ppid" ] || kill "$ppid" 2>/dev/null
	wait 2>/dev/null
	sim_del $A; sim_del $S; sim_del 47; sim_del 48
	mod_unload_own; rm -rf "$TMP"
}
trap cleanup EXIT
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

NTESTS=31
tap_plan $NTESTS
need_cmd promtool
upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
mod_load_own upmu_nic || { echo "Bail out! cannot load upmu_nic"; exit 1; }
mod_load_own upmu_icx || { echo "Bail out! cannot load upmu_icx"; exit 1; }
ip link set lo up 2>/dev/null || busybox ip link set lo up

# scrape [FILE]: /metrics into $TMP/FILE (default m)
scrape() { curl -sf -m 10 "http://127.0.0.1:$PORT/metrics" -o "$TMP/${1:-m}"; }
# val NAME LABELS [FILE]: the value of series NAME{LABELS}, "" if none
val() { awk -v k="$1{$2}" '$1 == k { print $2 }' "$TMP/${3:-m}"; }
# series [FILE]: the number of series
series() { grep -vc '^#' "$TMP/${1:-m}"; }
# exporter_start CONF: start it, wait until it serves
exporter_start() {
	"$EXP" -c "$1" 2>> "$TMP/exp.err" &
	epid=$!
	for _ in $(seq 100); do scrape && return 0; sleep 0.1; done
	return 1
}
exporter_stop() { kill "$epid" 2>/dev/null; wait "$epid"; epid=""; }
# wait until the scrape (after the exporter's next rescan) has/lacks a series
until_series() {	# until_series present|absent NAME LABELS
	for _ in $(seq 40); do
		scrape
		if [ -n "$(val "$2" "$3")" ]; then [ "$1" = present ] && return 0
		else [ "$1" = absent ] && return 0; fi
		sleep 0.1
	done
	return 1
}

# ---- the manual clock: exact counts ---------------------------------------

sim_del $A; sim_del $S
sim_new "$A 1 clock=manual blocks=ucf,cmem,pcie,nic rcs=2 width=32" ||
	{ echo "Bail out! cannot create device $A"; exit 1; }
sim_new "$S 1 blocks=nic" || { echo "Bail out! cannot create device $S"; exit 1; }
NA=$(printf 'upmu_nic_%08x' $((0x4e1c0000 + A)))
NS=$(printf 'upmu_nic_%08x' $((0x4e1c0000 + S)))
pmu_present "$NA" && pmu_present "$NS" || { echo "Bail out! no NIC PMUs $NA $NS"; exit 1; }
cat > "$TMP/a.conf" <<EOF
listen 127.0.0.1:$PORT
cache_ms 0
bdf 0001:01:00.0
EOF
exporter_start "$TMP/a.conf" || { echo "Bail out! the exporter does not serve"; cat "$TMP/exp.err"; exit 1; }

# The fixture's series (Documentation/upmu-exporter.rst's table): UCF 7;
# CMEM 3; PCIE RC 0 (one root port) 2 per port, the BDF's 2, requests,
# outstanding, cycles = 7; RC 1 (four ports) 2 per port fill its 8
# counters, + cycles = 9; each NIC 2 ports x 4 and 2 links x 2 = 12.
# Per PMU up, left_out, enabled and running: 4 x 6.  upmu_pcie_device_info:
# 2 functions on RC 0, 8 on RC 1.  build_info, scrapes, series_dropped,
# collect_seconds: 4.
want=$((7 + 3 + 7 + 9 + 12 + 12 + 4 * 6 + 10 + 4))
scrape
tap_expect "promtool check metrics: nothing to report" \
	eval 'promtool check metrics < "$TMP/m" > "$TMP/lint" 2>&1 && [ ! -s "$TMP/lint" ] || { sed "s/^/#   /" "$TMP/lint" | head; false; }'
tap_expect "no series twice" \
	eval '[ -z "$(grep -v "^#" "$TMP/m" | cut -d" " -f1 | sort | uniq -d)" ]'
tap_expect "exactly the fixture's $want series" is "$(series)" "$want"

# the CPUs' reads first: the UCF and CMEM count PCIe's reads of memory too
echo "socket=0 op=rd size=64 count=3000 lat=250" > $DA/inject
scrape
U='pmu="nvidia_ucf_pmu_0",socket="0"'
C='pmu="nvidia_cmem_latency_pmu_0",socket="0"'
# (CMEM counts 32-byte requests: two per 64-byte read)
tap_expect "UCF: 192000 bytes read from memory; CMEM: 6000 reads, 1500000 outstanding-cycles" \
	is "$(val upmu_ucf_mem_read_bytes_total "$U") $(val upmu_cmem_read_requests_total "$C") $(val upmu_cmem_read_outstanding_total "$C")" \
	"192000 6000 1500000"
echo "rc=1 rp=2 op=rd size=256 count=1000" > $DA/inject
echo "rc=0 bdf=0x0100 op=wr size=128 count=500" > $DA/inject
echo "ev=rx port=1 size=1500 count=1000" > $DA/nic/inject
echo "ev=tx port=0 size=100 count=7" > $DS/nic/inject
scrape
P1='pmu="nvidia_pcie_pmu_0_rc_1",socket="0",rc="1"'
P0='pmu="nvidia_pcie_pmu_0_rc_0",socket="0",rc="0"'
tap_expect "PCIe root port 2 of RC 1 read 256000 bytes, port 1 none" \
	is "$(val upmu_pcie_read_bytes_total "$P1,rp=\"2\"") $(val upmu_pcie_read_bytes_total "$P1,rp=\"1\"")" "256000 0"
tap_expect "the BDF 0001:01:00.0 wrote 64000 bytes, and so did its root port" \
	is "$(val upmu_pcie_device_write_bytes_total "$P0,rp=\"0\",bdf=\"0001:01:00.0\"") $(val upmu_pcie_write_bytes_total "$P0,rp=\"0\"")" "64000 64000"
tap_expect "NIC port 1 received 1500000 bytes in 1000 packets" \
	is "$(val upmu_nic_port_rx_bytes_total "pmu=\"$NA\",nic=\"${NA#upmu_nic_}\",port=\"1\"") $(val upmu_nic_port_rx_packets_total "pmu=\"$NA\",nic=\"${NA#upmu_nic_}\",port=\"1\"")" \
	"1500000 1000"
tap_expect "device map: 0002:a1:00.0 is RC 1's root port 2; 10 functions" \
	eval 'is "$(val upmu_pcie_device_info "bdf=\"0002:a1:00.0\",pmu=\"nvidia_pcie_pmu_0_rc_1\",socket=\"0\",rc=\"1\",rp=\"2\"")" 1 &&
	      is "$(grep -c "^upmu_pcie_device_info{" "$TMP/m")" 10'
tap_expect "nothing multiplexed: every PMU's running seconds are its enabled seconds" \
	eval '[ -z "$(awk -F"[{} ]" "/^upmu_pmu_(enabled|running)_seconds_total/ { v[\$2] = v[\$2] \" \" \$4 }
		END { for (k in v) { split(v[k], a, \" \"); if (a[1] != a[2] || a[1] == 0) print k } }" "$TMP/m")" ]'
tap_expect "RC 1's requests and outstanding do not fit its 8 counters: left out, said" \
	is "$(val upmu_pmu_series_left_out 'pmu="nvidia_pcie_pmu_0_rc_1"') $(val upmu_pmu_series_left_out 'pmu="nvidia_pcie_pmu_0_rc_0"') $(val upmu_pcie_read_requests_total "$P1")" \
	"2 0 "

# del_device: the device's series end at the next rescan (a quarter second)
stay_before=$(val upmu_nic_port_tx_bytes_total "pmu=\"$NS\",nic=\"${NS#upmu_nic_}\",port=\"0\"")
sim_del $A
tap_expect "del_device: the device's series end within a second" \
	eval 'until_series absent upmu_pmu_up "pmu=\"nvidia_ucf_pmu_0\"" && [ -z "$(val upmu_nic_port_rx_bytes_total "pmu=\"$NA\",nic=\"${NA#upmu_nic_}\",port=\"1\"")" ]'
sleep 0.5
# (a PMU whose name is still taken fails its probe with EEXIST, while
# new_device itself succeeds: the kernel log says so, and the PMU is not
# the new one)
nexist() { dmesg | grep -c "PMU nvidia_ucf_pmu_0 \(already exists\|is still held\)"; }
# shellcheck disable=SC2034 # (used in the eval below)
n0=$(nexist)
tap_expect "new_device again: no EEXIST, a live UCF PMU (the exporter closed every event of the dead ones)" \
	eval 'sim_new "$A 1 clock=manual blocks=ucf,cmem,pcie,nic rcs=2 width=32" &&
	      [ -n "$(cat /sys/bus/event_source/devices/nvidia_ucf_pmu_0/cpumask)" ] && is "$(nexist)" "$n0"'
tap_expect "re-created: the series come back from 0" \
	eval 'until_series present upmu_pcie_read_bytes_total "$P1,rp=\"2\"" && is "$(val upmu_pcie_read_bytes_total "$P1,rp=\"2\"")" 0'
echo "rc=1 rp=2 op=rd size=64 count=10" > $DA/inject
echo "ev=tx port=0 size=100 count=5" > $DS/nic/inject
scrape
tap_expect "and count what comes after: 640 bytes" is "$(val upmu_pcie_read_bytes_total "$P1,rp=\"2\"")" 640
tap_expect "the NIC that stayed kept counting from where it was: $stay_before + 500" \
	is "$(val upmu_nic_port_tx_bytes_total "pmu=\"$NS\",nic=\"${NS#upmu_nic_}\",port=\"0\"")" \
	"$((stay_before + 500))"

# A NIC whose diagnostics a fwctl user owns: up 0, its errno, no error storm
if kernel_has_fwctl; then
	exporter_stop
	serial=$(cat /sys/bus/event_source/devices/$NS/serial)
	echo '["port_rx_bytes.p0"]' > "$TMP/ids.json"
	fwctl_nodes_within "$serial" 2 5
	"$top/build/selftests/upmu-diag" -p "$serial.0" -di "$TMP/ids.json" -sm 1 -sp 10000000 \
		-of 1 -rt 10 -o "$TMP/diag.csv" > "$TMP/diag.out" 2>&1 &
	dpid=$!
	# it says the sample period once it holds the engine and has started it
	for _ in $(seq 100); do grep -q "actual sample period" "$TMP/diag.out" && break; sleep 0.1; done
	exporter_start "$TMP/a.conf"
	scrape
	tap_expect "a NIC a fwctl user owns: up 0, EBUSY, no read errors" \
		is "$(val upmu_pmu_up "pmu=\"$NS\"") $(val upmu_pmu_open_errno "pmu=\"$NS\",errno=\"EBUSY\"") $(grep -c '^upmu_exporter_read_errors' "$TMP/m")" \
		"0 16 0" || { sed 's/^/#   upmu-diag: /' "$TMP/diag.out"; dmesg | tail -n 5 | sed 's/^/#   /'; }
	wait $dpid || sed 's/^/#   upmu-diag: /' "$TMP/diag.out"
	tap_expect "once it is free: up 1 within 2 s" \
		eval 'for _ in $(seq 20); do scrape; [ "$(val upmu_pmu_up "pmu=\"$NS\"")" = 1 ] && break; sleep 0.1; done; is "$(val upmu_pmu_up "pmu=\"$NS\"")" 1'
else
	tap_skip "a NIC a fwctl user owns: no fwctl before Linux 6.15"
	tap_skip "once it is free: no fwctl before Linux 6.15"
fi
exporter_stop
sim_del $A; sim_del $S

# ---- Prometheus against the realtime clock --------------------------------

prom() {	# prom EXPR: the value of a one-element instant query
	promtool query instant -o json http://127.0.0.1:9090 "$1" 2>/dev/null |
		sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p'
}
prom_all() { promtool query instant http://127.0.0.1:9090 "$1" 2>&1; }
if ! kernel_revokes && command -v prometheus > /dev/null; then
	T=47 I=48
	sim_new "$T 1 blocks=ucf,cmem,pcie,c2c,nic rcs=2 width=32" &&
	sim_new "$I 2 soc=icx cha=2" || { echo "Bail out! cannot create devices $T $I"; exit 1; }
	DT=/sys/kernel/debug/upmu_sim/$T DI=/sys/kernel/debug/upmu_sim/$I
	NT=$(printf 'upmu_nic_%08x' $((0x4e1c0000 + T)))
	cat > "$TMP/b.conf" <<EOF
listen 127.0.0.1:$PORT
bdf 0001:01:00.0
EOF
	cat > "$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: upmu
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF
	flows() {
		echo "add id=1 rc=1 rp=2 op=rd size=256 rate=1000000 lat=250" > $DT/flows
		echo "add id=2 rc=0 bdf=0x0100 op=wr size=128 rate=500000" > $DT/flows
		echo "add id=3 socket=0 op=rd size=64 rate=20000000 lat=250" > $DT/flows
		echo "add id=1 rate=100000 ev=rx port=0 size=1500" > $DT/nic/flows
	}
	exporter_start "$TMP/b.conf"
	prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" \
		--web.listen-address=127.0.0.1:9090 --log.level=warn > "$TMP/prom.log" 2>&1 &
	ppid=$!
	flows
	echo "add id=1 socket=0 stack=2 part=2 op=wr size=256 rate=1000000" > $DI/flows
	for _ in $(seq 300); do curl -sf -m 1 http://127.0.0.1:9090/-/ready > /dev/null && break; sleep 0.2; done
	sleep 20
	scrape b
	# the fixture: the Tegra410's as above with one NIC, and C2C's 7 (45
	# series, 6 PMUs, 10 functions), the 4 of the exporter, and the Ice Lake-X's on each of
	# its 2 sockets: IIO 4 x 6 stacks, free-running ioclk x 6 and one per
	# part with a root port, CHA 4 x 2, IMC free-running 2 x 4, UPI 2 x 3;
	# 4 per PMU (21) and one per PCI function
	rps=$(grep -c ' root_port ' $DI/pci_devices)
	# (the guest's own PCI functions on the root bus of an Ice Lake-X stack too)
	fns=$("${EXP%/*}/upmu-pcimap" | grep ' Stack=' | cut -d: -f1-3 | sort -u | wc -l)
	wantb=$((45 + 4 * 6 + 10 + 4 + 2 * (24 + 6 + 8 + 8 + 6) + rps + 4 * 21 + fns))
	promtool check metrics < "$TMP/b" > "$TMP/lintb" 2>&1
	echo "# promtool check metrics (rc $?, $(wc -l < "$TMP/lintb") lines of findings)"
	grep -E '^upmu_(pcie_read_bytes_total\{.*rp="2"|iio_part_inbound_bytes_total\{.*stack="2",part="2"|pcie_device_info\{bdf="0002:a1)' "$TMP/b" |
		sed 's/^/# exposition: /'
	tap_expect "Prometheus: up stayed 1" is "$(prom 'min_over_time(up{job="upmu"}[1m])')" 1
	tap_expect "scrape_samples_scraped = the fixture's $wantb series (exposition: $(series b))" \
		is "$(prom 'scrape_samples_scraped{job="upmu"}')" "$wantb"
	# (18 s: the exporter reads a scrape some ms after Prometheus stamps it,
	# a delay that varies under load; over more samples it weighs less)
	r() { prom "rate($1[18s])"; }
	v1=$(r "upmu_pcie_read_bytes_total{rc=\"1\",rp=\"2\"}")
	v2=$(r 'upmu_pcie_device_write_bytes_total{bdf="0001:01:00.0"}')
	v3=$(r 'upmu_ucf_mem_read_bytes_total')
	v4=$(r 'upmu_iio_part_inbound_bytes_total{stack="2",part="2",socket="0"}')
	v5=$(r "upmu_nic_port_rx_bytes_total{pmu=\"$NT\",port=\"0\"}")
	v6=$(prom 'increase(upmu_cmem_read_outstanding_total[10s]) / increase(upmu_cmem_read_requests_total[10s])')
	tap_expect "rate: PCIe RC 1 root port 2, $v1 B/s: 256 MB/s within 5%" near "$v1" 256000000 0.05
	tap_expect "rate: BDF 0001:01:00.0 writes, $v2 B/s: 64 MB/s within 5%" near "$v2" 64000000 0.05
	tap_expect "rate: UCF memory reads, $v3 B/s: the CPUs' 1.28 GB/s and PCIe's 256 MB/s, within 5%" \
		near "$v3" 1536000000 0.05
	tap_expect "rate: Ice Lake-X stack 2 part 2 inbound, $v4 B/s: 256 MB/s within 5%" near "$v4" 256000000 0.05
	tap_expect "rate: NIC port 0 received, $v5 B/s: 150 MB/s within 5%" near "$v5" 150000000 0.05
	tap_expect "latency: CMEM outstanding / requests, $v6: 250 cycles within 1%" near "$v6" 250 0.01
	# (resets() drops the name: keep it as a label, through a subquery)
	allc='label_replace({__name__=~"upmu_.*_total"}, "name", "$1", "__name__", "(.*)")'
	prom_all "resets(${allc}[1m:1s]) > 0" | sed 's/^/# reset: /' | head
	tap_expect "no resets() though the UCF's 32-bit byte counter wrapped $(( $(val upmu_ucf_mem_read_bytes_total 'pmu="nvidia_ucf_pmu_0",socket="0"' b) >> 32 )) times" \
		eval 'is "$(prom "sum(resets(${allc}[1m:1s]))")" 0 &&
		      [ "$(( $(val upmu_ucf_mem_read_bytes_total "pmu=\"nvidia_ucf_pmu_0\",socket=\"0\"" b) >> 32 ))" -ge 4 ]'
	# the dashboard: every panel's query, its variables substituted, and
	# its variables' label queries run on this Prometheus and give something
	python3 -B - "$top/tools/upmu-exporter/grafana/upmu-dashboard.json" > "$TMP/dq" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["panels"]:
    for t in p.get("targets", []):
        print(t["expr"].replace("$instance", ".*").replace("$socket", ".*")
              .replace("$__rate_interval", "10s"))
PY
	nq=$(wc -l < "$TMP/dq") bad=0
	while IFS= read -r q; do
		case $(curl -sf -m 10 http://127.0.0.1:9090/api/v1/query --data-urlencode "query=$q") in
		*'"status":"success"'*'"result":[{'*) ;;
		*) bad=$((bad + 1)); echo "# dashboard query failed or empty: $q" ;;
		esac
	done < "$TMP/dq"
	for l in instance socket; do
		case $(curl -sf -m 10 -G http://127.0.0.1:9090/api/v1/label/$l/values \
			--data-urlencode 'match[]={__name__=~"upmu_.+"}') in
		*'"data":["'*) ;;
		*) bad=$((bad + 1)); echo "# dashboard variable $l: no values" ;;
		esac
	done
	tap_expect "dashboard: its $nq panel queries and 2 variables give results" \
		eval '[ "$nq" -ge 30 ] && [ "$bad" = 0 ]'
	sim_del $T
	sleep 3
	tap_expect "del_device mid-run: its series ended (none in an instant query)" \
		eval '[ -z "$(prom "count(upmu_pcie_read_bytes_total)")" ] && is "$(prom "count(upmu_iio_mem_read_bytes_total)")" 12'
	sim_new "$T 1 blocks=ucf,cmem,pcie,c2c,nic rcs=2 width=32" || echo "# new_device $T failed"
	# Prometheus sees the new series at 0 before any traffic, then ten
	# seconds of it, then its total frozen and scraped: increase() over
	# the new series up to its last sample has nothing to extrapolate
	until_series present upmu_pcie_read_bytes_total 'pmu="nvidia_pcie_pmu_0_rc_1",socket="0",rc="1",rp="2"'
	t0=$(date +%s)
	sleep 2.5
	flows
	sleep 10
	echo "stop id=1" > $DT/flows
	sleep 2.5
	bytes=$(sed -n 's/^id=1 .* bytes=\([0-9]*\).*/\1/p' $DT/flows)
	x='upmu_pcie_read_bytes_total{rc="1",rp="2"}'
	tl=$(prom "timestamp($x)")
	got=$(promtool query instant -o json --time="$tl" http://127.0.0.1:9090 \
		"increase(${x}[$(awk -v t="$tl" -v s="$t0" 'BEGIN { printf "%d", t - s }')s])" 2>/dev/null |
		sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p')
	tap_expect "re-created: its series came back, increase() $got within 1% of the $bytes bytes injected since" \
		near "$got" "$bytes" 0.01
	tap_expect "the Ice Lake-X's series went on through it, no resets() (6.1: reopened, from where they were)" \
		eval 'is "$(prom "sum(resets(upmu_iio_part_inbound_bytes_total[2m]))")" 0 &&
		      near "$(r "upmu_iio_part_inbound_bytes_total{stack=\"2\",part=\"2\",socket=\"0\"}")" 256000000 0.05' 
	kill "$ppid"; wait "$ppid" 2>/dev/null; ppid=""
else
	for t in "Prometheus: up stayed 1" scrape_samples_scraped "rate: PCIe root port" "rate: BDF" \
		 "rate: UCF" "rate: IIO part" "rate: NIC port" "latency within 1%" "no resets()" \
		 "dashboard" "del_device mid-run" "re-created" "went on through it"; do
		tap_skip "$t: Prometheus runs in the stock-6.1 guest only (make check's time budget)"
	done
fi
exporter_stop
tap_expect "the exporter (ASan/UBSan) reported nothing" \
	eval '! grep -E "ERROR: AddressSanitizer|runtime error|LeakSanitizer" "$TMP/exp.err"'
tap_exit
