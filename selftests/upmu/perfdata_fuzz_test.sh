#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Corrupt perf.data files against the patched perf (host, no VM):
#  - the inputs that crashed or hung it (perfdata-corpus/regress/, from
#    ../shared/regressions/perfdata): each gets an error message naming
#    the corrupt AUXTRACE event and an exit, from the plain perf and from
#    the ASan/UBSan one, within 10 s;
#  - the seeds (perfdata-corpus/*.data), real perf record files of the
#    NIC's AUX stream: perf script decodes them without an error;
#  - the fuzzer itself, on a stand-in perf that fails in every way
#    (perfdata_fakeperf): through its fork servers and without, it sees
#    the same crashes and hangs, some of each;
#  - perfdata_fuzz: UPMU_PERFDATA_FUZZ_N mutants of the seeds (10^4 here,
#    10^6 under make soak), each through the ASan/UBSan perf's report -D
#    or script, run by a fork server (perfdata_forksrv.so),
#    UPMU_PERFDATA_FUZZ_JOBS (1) at a time: no crash, no sanitizer report,
#    no hang (crashers are kept in build/fuzz/perfdata/).
#
# usage: perfdata_fuzz_test.sh PERF PERF_SAN PERFDATA_FUZZ   (TAP on stdout)
set -uo pipefail

perf=${1:?perf binary} san=${2:?ASan/UBSan perf binary} fuzz=${3:?perfdata_fuzz binary}
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/perfdata-corpus
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }

echo "TAP version 13"
for p in "$perf" "$san"; do
	if ! "$p" version > /dev/null 2>&1; then
		echo "Bail out! no perf at $p (scripts/perfbuild.sh builds it)"
		exit 1
	fi
done
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1

# corrupt NAME PERF CMD...: an error that names the AUXTRACE event, an
# exit that is not a signal, no sanitizer report, within 10 s (perf
# report -D exits 0 after an event it could not process: upstream's)
corrupt() {
	local name=$1 p=$2 rc why=""
	shift 2
	timeout -s KILL 10 "$p" "$@" > /dev/null 2> "$tmp/err"
	rc=$?
	# 128 + a signal (1-64) is a death; perf script's error exit is 234
	if [ $rc = 137 ]; then why="no exit within 10 s"
	elif [ $rc -gt 128 ] && [ $rc -le 192 ]; then why="killed by signal $((rc - 128))"
	elif grep -qE "ERROR: AddressSanitizer|runtime error:" "$tmp/err"; then why="sanitizer report"
	elif ! grep -q "upmu-nic: corrupt AUXTRACE event" "$tmp/err"; then why="no message on the AUXTRACE event"
	fi
	if [ -z "$why" ]; then
		ok "$name: $(grep -m1 "upmu-nic: corrupt" "$tmp/err" | cut -c1-110), exit $rc"
	else
		grep -vE "^ +#[0-9]" "$tmp/err" | tail -n 8 | sed 's/^/#   /'
		not_ok "$name: $why"
	fi
}

for x in "$corpus"/regress/*.data.xz; do
	f=$tmp/$(basename "$x" .xz)
	xz -dc "$x" > "$f" || { not_ok "$(basename "$x"): xz -d"; continue; }
	for cmd in "report -D" script; do
		# shellcheck disable=SC2086 # the perf command and its option
		corrupt "$(basename "$f") perf $cmd" "$perf" $cmd -i "$f"
		# shellcheck disable=SC2086
		corrupt "$(basename "$f") perf $cmd (ASan/UBSan)" "$san" $cmd -i "$f"
	done
done

seeds=()
for f in "$corpus"/*.data; do
	seeds+=("$f")
	if "$san" script -i "$f" > /dev/null 2> "$tmp/err" &&
	   grep -q "^upmu-nic: [1-9][0-9]* samples" "$tmp/err" &&
	   ! grep -qE "bad data|ERROR: AddressSanitizer|runtime error:" "$tmp/err"; then
		ok "seed $(basename "$f"): $(grep -m1 "^upmu-nic:" "$tmp/err")"
	else
		sed 's/^/#   /' "$tmp/err" | tail -n 8
		not_ok "seed $(basename "$f"): perf script decodes it"
	fi
done

# The fork server runs perf by a fork of a perf that has started: with
# the sanitizer runtime first, as ASan wants to be the first library
forksrv=$(dirname "$fuzz")/perfdata_forksrv.so
asan=$(ldd "$san" | awk '/libasan/ { print $3 }')
preload=${asan:+$asan:}$forksrv

# The fuzzer must see what it looks for: 12 mutants on the stand-in,
# 4 of each kind, the same through the fork servers as spawned
fake=$(dirname "$fuzz")/perfdata_fakeperf
fk_line() {	# fk_line [-F PRELOAD]: the fuzzer's summary, counts only
	"$fuzz" -j 2 -n 12 -t 0.5 "$@" "$fake" "${seeds[@]}" 2>&1 |
		sed -n 's/^perfdata_fuzz: .* perf runs: \([0-9]* crashes, [0-9]* hangs\).*/\1/p'
}
fk_spawn=$(fk_line) fk_srv=$(fk_line -F "$forksrv")
if [ -n "$fk_srv" ] && [ "$fk_srv" = "$fk_spawn" ] &&
   [[ $fk_srv =~ ^[1-9][0-9]*\ crashes,\ [1-9][0-9]*\ hangs$ ]]; then
	ok "the fuzzer on a perf that fails: $fk_srv, through fork servers as spawned"
else
	not_ok "the fuzzer on a perf that fails: '$fk_srv' through fork servers, '$fk_spawn' spawned"
fi

# A run costs some 30 ms of a CPU through a fork server, 45 ms spawned
# (perf's start-up under ASan): make check runs 10^4 (bench/README has
# the figures), make soak 10^6, make fuzz 10^5 on both CPUs
# (UPMU_PERFDATA_FUZZ_N sets the count)
nfuzz=${UPMU_PERFDATA_FUZZ_N:-}
[ -n "$nfuzz" ] || { [ "${UPMU_SOAK:-0}" = 1 ] && nfuzz=1000000 || nfuzz=10000; }
out=$top/build/fuzz/perfdata
rm -rf "$out"
mkdir -p "$out"
# one at a time by default (make check asks for two, at its end)
# 60 s: a run is no hang until then (one mutant takes 15 s of ASan perf
# alone, a minute beside the VMs)
if "$fuzz" -j "${UPMU_PERFDATA_FUZZ_JOBS:-1}" -n "$nfuzz" -t 60 -o "$out" -F "$preload" \
	"$san" "${seeds[@]}" \
	> "$tmp/fuzz" 2>&1; then
	grep "^# perf-own" "$tmp/fuzz" | head -n 5
	ok "$(grep "^perfdata_fuzz: [0-9]* mutants" "$tmp/fuzz")"
	grep -q "^perfdata_fuzz: and" "$tmp/fuzz" && echo "# $(grep "^perfdata_fuzz: and" "$tmp/fuzz")"
else
	sed 's/^/#   /' "$tmp/fuzz" | tail -n 20
	not_ok "perfdata_fuzz: crashes or hangs (inputs in $out)"
fi

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
