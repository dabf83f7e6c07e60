#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# upmu-pcimap on a simulated 2-socket Tegra410: the root ports map as in
# the Tegra410 PMU document's example, and the PMU and root-port filter
# it names for every endpoint count exactly that endpoint's traffic.
# Then on a simulated 2-socket Ice Lake-X: each function's IIO stack and
# part, from the uncore_iio_<N>/dieX files, exactly; the PMU and ch_mask
# it names count exactly that endpoint's traffic on its die; its iostat=
# name is the root port perf iostat lists.
set -u
. "$(dirname "$0")/lib.sh"
PERF=${PERF:-perf}
TOOL=${UPMU_PCIMAP:-$(cd "$(dirname "$0")/../.." && pwd)/build/selftests/upmu-pcimap}
ID=13
D=/sys/kernel/debug/upmu_sim/$ID
OUT=$(mktemp)

tap_plan 10
[ -x "$TOOL" ] || { echo "Bail out! $TOOL: no such program (make selftests)"; exit 1; }
need_cmd "$PERF"
upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
sim_del $ID
sim_new "$ID 2 blocks=pcie" || { echo "Bail out! cannot create device"; exit 1; }

# 1: socket 0's root ports, exactly the document's example output
want="0001:00:00.0: Bus=00, Segment=01, RP=00, RC=00, Socket=00
0002:80:00.0: Bus=80, Segment=02, RP=01, RC=01, Socket=00
0002:a0:00.0: Bus=a0, Segment=02, RP=02, RC=01, Socket=00
0002:c0:00.0: Bus=c0, Segment=02, RP=03, RC=01, Socket=00
0002:e0:00.0: Bus=e0, Segment=02, RP=04, RC=01, Socket=00
0003:00:00.0: Bus=00, Segment=03, RP=00, RC=02, Socket=00
0004:00:00.0: Bus=00, Segment=04, RP=00, RC=03, Socket=00
0005:00:00.0: Bus=00, Segment=05, RP=00, RC=04, Socket=00
0005:40:00.0: Bus=40, Segment=05, RP=01, RC=04, Socket=00
0005:c0:00.0: Bus=c0, Segment=05, RP=02, RC=04, Socket=00
0006:00:00.0: Bus=00, Segment=06, RP=00, RC=05, Socket=00"
"$TOOL" -s > "$OUT" 2>&1
got=$(grep -F -f <(grep root_port $D/pci_devices | cut -d' ' -f1) "$OUT" |
	grep 'Socket=00' | cut -d' ' -f1-6)
if [ "$got" = "$want" ]; then tap_ok "root ports of socket 0 map as in the document"
else tap_fail "root ports of socket 0 map as in the document"; diff <(echo "$want") <(echo "$got") | sed 's/^/# /'; fi

# 2: every simulated function is mapped, none twice
n_dev=$(wc -l < $D/pci_devices)
n_map=$(cut -d' ' -f1 "$OUT" | sort -u | wc -l)
n_lines=$(wc -l < "$OUT")
tap_check "all $n_dev simulated functions mapped once ($n_map)" \
	[ "$n_dev:$n_dev" = "$n_map:$n_lines" ]

# 3: the named PMU and root-port mask count exactly that endpoint's reads:
# endpoint i gets i + 1 reads; one perf stat watches all of them.
events="" work="" i=0
declare -a want_n
while read -r fn rest; do
	set -- $rest
	pmu=$6 mask=${7#src_rp_mask=} bdf=${8#src_bdf=}
	sock=$((10#${5#Socket=})) rc=$((16#${4#RC=}))
	events="$events,$pmu/rd_req,src_rp_mask=$mask/"
	work="$work echo 'socket=$sock rc=$rc bdf=$bdf count=$((i + 1))' > $D/inject;"
	want_n[$i]=$((i + 1))
	i=$((i + 1))
done < <(grep -F -f <(grep endpoint $D/pci_devices | cut -d' ' -f1) "$OUT" | tr -d ',')
ok=1
if "$PERF" stat -a -x, -o "$OUT.stat" -e "${events#,}" -- sh -c "$work" >/dev/null 2>&1; then
	j=0
	while IFS=, read -r cnt _ ev _; do
		[ "$cnt" = "${want_n[$j]}" ] || { ok=0; echo "# $ev: want ${want_n[$j]}, got $cnt"; }
		j=$((j + 1))
	done < <(grep -v '^#' "$OUT.stat" | grep -v '^$')
	[ $j = $i ] || { ok=0; echo "# $j counts for $i endpoints"; }
else
	ok=0; sed 's/^/# /' "$OUT.stat"
fi
if [ $ok = 1 ] && [ $i -gt 0 ]; then tap_ok "each of $i endpoints counted exactly by the PMU and RP it maps to"
else tap_fail "each endpoint counted exactly by the PMU and RP it maps to"; fi

# 4: the BDF filter it names
line=$("$TOOL" 0005:01:00.0)
bdf=$(echo "$line" | sed 's/.*src_bdf=//')
got=$(cd /tmp && "$PERF" stat -a -x, -e "nvidia_pcie_pmu_0_rc_4/rd_req,src_bdf=$bdf,src_bdf_en=1/" -- \
	sh -c "echo 'rc=4 bdf=$bdf count=9' > $D/inject; echo 'rc=4 bdf=0x0180 count=4' > $D/inject" 2>&1 >/dev/null |
	grep -v '^#' | grep -v '^$' | head -n1 | cut -d, -f1)
tap_check "src_bdf=$bdf of 0005:01:00.0 counts only it ($got)" [ "$got" = 9 ]

# 5-6: errors
tap_check "a function below no PCIE PMU is an error (exit 1, says so)" eval \
	'fails_rc 1 "$TOOL" 0000:00:00.0 &&
	 fails "upmu-pcimap: 0000:00:00.0: not below a root complex with a PCIE PMU" "$TOOL" 0000:00:00.0'
tap_check "a malformed address is an error (exit 2, says so)" eval \
	'fails_rc 2 "$TOOL" 0005:01:00 &&
	 fails "upmu-pcimap: 0005:01:00: not a PCI function address (SSSS:BB:DD.F)" "$TOOL" 0005:01:00'
sim_del $ID

# --- Ice Lake-X --------------------------------------------------------
mod_load_own upmu_icx && sim_new "$ID 2 soc=icx clock=manual" ||
	{ echo "Bail out! cannot create an Ice Lake-X"; exit 1; }

# 7: socket 0's stacks 0-2, exactly (root ports at devices 2-5 of the
# root bus, parts 0-3; the device below part P on the root bus + 1 + P)
want="0000:16:02.0: Bus=16, Segment=0000, Part=0, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x1 iostat=0000:16
0000:16:03.0: Bus=16, Segment=0000, Part=1, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x2 iostat=0000:16
0000:16:04.0: Bus=16, Segment=0000, Part=2, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x4 iostat=0000:16
0000:16:05.0: Bus=16, Segment=0000, Part=3, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x8 iostat=0000:16
0000:17:00.0: Bus=17, Segment=0000, Part=0, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x1 iostat=0000:16
0000:18:00.0: Bus=18, Segment=0000, Part=1, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x2 iostat=0000:16
0000:19:00.0: Bus=19, Segment=0000, Part=2, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x4 iostat=0000:16
0000:1a:00.0: Bus=1a, Segment=0000, Part=3, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x8 iostat=0000:16
0000:2a:02.0: Bus=2a, Segment=0000, Part=0, Stack=1, Socket=00 uncore_iio_1 ch_mask=0x1 iostat=0000:2a
0000:2b:00.0: Bus=2b, Segment=0000, Part=0, Stack=1, Socket=00 uncore_iio_1 ch_mask=0x1 iostat=0000:2a
0000:3e:02.0: Bus=3e, Segment=0000, Part=0, Stack=2, Socket=00 uncore_iio_2 ch_mask=0x1 iostat=0000:3e
0000:3e:04.0: Bus=3e, Segment=0000, Part=2, Stack=2, Socket=00 uncore_iio_2 ch_mask=0x4 iostat=0000:3e
0000:3f:00.0: Bus=3f, Segment=0000, Part=0, Stack=2, Socket=00 uncore_iio_2 ch_mask=0x1 iostat=0000:3e
0000:41:00.0: Bus=41, Segment=0000, Part=2, Stack=2, Socket=00 uncore_iio_2 ch_mask=0x4 iostat=0000:3e"
"$TOOL" -s > "$OUT" 2>&1
got=$(grep -E 'Stack=[012], Socket=00' "$OUT")
if [ "$got" = "$want" ]; then tap_ok "Ice Lake-X: socket 0's stacks 0-2 map exactly"
else tap_fail "Ice Lake-X: socket 0's stacks 0-2 map exactly"; diff <(echo "$want") <(echo "$got") | sed 's/^/# /'; fi

# 8: every simulated function once, and as the simulator placed it
n_dev=$(wc -l < $D/pci_devices)
bad=$(while read -r fn _ sock stack part _; do
	grep -q "^$fn: .* Part=${part#part=}, Stack=${stack#stack=}, Socket=0${sock#socket=} " "$OUT" ||
		echo "$fn"
done < $D/pci_devices)
tap_check "Ice Lake-X: all $n_dev simulated functions mapped once, to their socket, stack and part" \
	eval '[ "$(wc -l < "$OUT"):$(cut -d" " -f1 "$OUT" | sort -u | wc -l)" = "$n_dev:$n_dev" ] && [ -z "$bad" ]'

# 9: the PMU and ch_mask it names count exactly that endpoint's reads on
# its die: endpoint i gets i + 1 reads of 4 bytes; perf stat -A keeps the
# dies apart (die X counts on the X-th CPU of the cpumask).  One perf stat
# per part, so that each IIO box has one event (parts 0-3 of a stack would
# need four of counters 0-1: multiplexed, not exact)
IFS=, read -r -a cpus < /sys/bus/event_source/devices/uncore_iio_0/cpumask
declare -A want_c pev pwork
i=0
while read -r fn _ _ part stack sock pmu mask _; do
	part=${part#Part=} stack=${stack#Stack=} sock=$((10#${sock#Socket=}))
	ev="$pmu/event=0x83,umask=0x4,${mask},fc_mask=0x7/"
	case ",${pev[$part]:-}," in *",$ev,"*) ;; *) pev[$part]="${pev[$part]:-},$ev" ;; esac
	bdf=$(printf '0x%02x00' $((16#${fn:5:2})))
	pwork[$part]="${pwork[$part]:-} echo 'socket=$sock stack=$stack bdf=$bdf op=rd size=4 count=$((i + 1))' > $D/inject;"
	want_c["CPU${cpus[$sock]},$ev"]=$((i + 1))
	i=$((i + 1))
done < <(grep -v root_port "$OUT" | grep -F -f <(grep endpoint $D/pci_devices | cut -d' ' -f1) | tr -d ',')
ok=1 j=0
# CPU,count,unit,event (whose terms have commas),...
re='^(CPU[0-9]+),([^,]*),[^,]*,(uncore_iio_[0-9]+/[^/]*/)'
for p in "${!pev[@]}"; do
	if ! "$PERF" stat -A -a -x, -o "$OUT.stat" -e "${pev[$p]#,}" -- sh -c "${pwork[$p]}" >/dev/null 2>&1; then
		ok=0; sed 's/^/# /' "$OUT.stat"; continue
	fi
	while read -r line; do
		[[ $line =~ $re ]] || continue
		cpu=${BASH_REMATCH[1]} cnt=${BASH_REMATCH[2]} ev=${BASH_REMATCH[3]}
		w=${want_c["$cpu,$ev"]:-}
		[ -n "$w" ] || continue
		[ "$cnt" = "$w" ] || { ok=0; echo "# $cpu $ev: want $w, got $cnt"; }
		j=$((j + 1))
	done < "$OUT.stat"
done
[ $j = $i ] || { ok=0; echo "# $j counts for $i endpoints"; }
if [ $ok = 1 ] && [ $i -gt 0 ]; then tap_ok "Ice Lake-X: each of $i endpoints counted exactly by the PMU and ch_mask it maps to"
else tap_fail "Ice Lake-X: each endpoint counted exactly by the PMU and ch_mask it maps to"; fi

# 10: iostat= is the root port name perf iostat lists for that stack and die
"$PERF" stat --iostat=list > "$OUT.list" 2>&1
bad=$(grep -v root_port "$OUT" | tr -d ',' | while read -r fn _ _ _ stack sock pmu _ name; do
	grep -qxF "S$((10#${sock#Socket=}))-$pmu<${name#iostat=}>" "$OUT.list" || echo "$fn"
done)
tap_check "Ice Lake-X: every iostat= name is in perf stat --iostat=list${bad:+ (not: $bad)}" \
	eval '[ -s "$OUT.list" ] && [ -z "$bad" ]'
sim_del $ID
rm -f "$OUT" "$OUT.stat" "$OUT.list"
mod_unload_own
tap_exit
