#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel under QEMU (TCG) with the host's / as a read-only 9p root,
# run one command in it as root and report its exit status.
#
# Usage: scripts/vm.sh [options] -- COMMAND [ARGS...]
#   --kernel debug|stock|PATH  debug: our 7.2 debug kernel (scripts/kbuild.sh),
#                       stock: newest /boot/vmlinuz-*, PATH: a bzImage (default debug)
#   --cpus N            guest cpus (default 4)
#   --nodes N           NUMA nodes = sockets; cpus and memory split evenly (default 2)
#   --mem MB            total guest memory (default 2048)
#   --cpu-model M       guest CPU: max (default: QEMU's "max", an AMD CPU under
#                       TCG), icx (an Ice Lake-X: "Icelake-Server,model=106",
#                       for perf's Ice Lake-X tables), or a QEMU -cpu string
#   --timeout SECS      kill the VM after SECS (default 1200; exit 124)
#   --results DIR       results directory (default: a new /tmp/upmu-vm.* dir, kept)
#   --no-logcheck       do not fail on kernel splats (scripts/logcheck.sh)
#   --no-kmemleak       skip the kmemleak scans after the command (saves ~30 s
#                       on the debug kernel; leaks then go unnoticed)
#   -v, --verbose       echo the serial console live on stderr (also UPMU_VM_VERBOSE=1)
# TCG runs the guest's vCPUs round-robin on one host thread (thread=single;
# UPMU_VM_TCG_THREAD=multi: a thread per vCPU).  One thread a guest is what
# lets make check run two guests on 2 host CPUs: with a thread per vCPU,
# every guest IPI, TLB shootdown and lock hand-over waited for a vCPU
# thread the host had not scheduled, and two guests side by side each ran
# 2.1 times as long as alone (icx_mem_test: 190 s alone, 424 s beside
# another); with one thread each, 208 s and 249 s (2026-11-28).
# Environment: UPMU_VM_APPEND adds kernel command line arguments, e.g.
# "upmu.rootcache=none" to mount the root share uncached (default: loose, i.e.
# files the host changes while the VM runs may be seen stale).
#
# The command runs in the guest as root via /bin/sh, in the directory vm.sh
# was started from (the guest sees the host's /; /tmp, /var/tmp and /run are
# empty tmpfs there), with HOME=/tmp, UPMU_GUEST=1, UPMU_GUEST_CPU=<--cpu-model>,
# UPMU_RESULTS=/run/upmu-results
# (the results directory, writable) and the host's UPMU_* variables.  Several
# ARGS are quoted and run as one command; a single ARG is a shell command line
# (vm.sh -- 'make -C x check && echo ok').  Its stdout and stderr come out of
# vm.sh's stdout and stderr, live.
#
# Results: console.log (serial console), stdout.log, stderr.log, dmesg.log,
# kmemleak.log (debug kernel), rc, uname, qemu.log.
#
# Exit status: the command's; 124 on timeout; 1 if the guest did not finish
# (panic, crash, boot failure); 3 if the command passed but logcheck found a
# kernel report (BUG, WARNING, KASAN, lockdep, kmemleak...).
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage() {
	sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit "${1:-2}"
}

kernel=debug cpus=4 nodes=2 mem=2048 tmo=1200 results="" logcheck=1 kmemleak=1
cpu_model=max
verbose=${UPMU_VM_VERBOSE:-0}
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=${2:?}; shift 2 ;;
	--cpus) cpus=${2:?}; shift 2 ;;
	--nodes) nodes=${2:?}; shift 2 ;;
	--mem) mem=${2:?}; shift 2 ;;
	--cpu-model) cpu_model=${2:?}; shift 2 ;;
	--timeout) tmo=${2:?}; shift 2 ;;
	--results) results=${2:?}; shift 2 ;;
	--no-logcheck) logcheck=0; shift ;;
	--no-kmemleak) kmemleak=0; shift ;;
	-v | --verbose) verbose=1; shift ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	*) upmu_log "vm: unknown option: $1"; usage ;;
	esac
done
[ $# -gt 0 ] || { upmu_log "vm: no command given"; usage; }

for v in cpus nodes mem tmo; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || upmu_die "vm: bad number: $v=${!v}"
done
[ $((cpus % nodes)) = 0 ] || upmu_die "vm: --cpus $cpus is not a multiple of --nodes $nodes"
[ $((mem / nodes)) -ge 128 ] || upmu_die "vm: --mem $mem is too small for $nodes nodes"
command -v qemu-system-x86_64 >/dev/null ||
	upmu_die "vm: qemu-system-x86_64 missing (scripts/deps.sh)"

# Kernel version from a bzImage's header (setup header field kernel_version).
bzimage_version() {
	local off
	off=$(od -An -tu2 -j 526 -N 2 "$1" | tr -d ' ')
	dd if="$1" bs=1 skip=$((off + 512)) count=256 status=none | tr '\0' '\n' |
		head -n 1 | cut -d' ' -f1
}

case "$kernel" in
debug)
	bzimage="$("$UPMU_TOP/scripts/kbuild.sh")/arch/x86/boot/bzImage"
	irkind=debug
	;;
stock)
	kver=$(upmu_stock_kver) ||
		upmu_die "vm: no /boot/vmlinuz-* (scripts/deps.sh installs linux-image-amd64)"
	bzimage=/boot/vmlinuz-$kver
	irkind=$kver
	;;
*)
	bzimage=$kernel
	[ -f "$bzimage" ] || upmu_die "vm: --kernel: no such file: $bzimage"
	kver=$(bzimage_version "$bzimage")
	# A kernel with installed modules gets them; anything else must have
	# virtio and 9p built in (like our debug kernel).
	if [ -n "$kver" ] && [ -f "/lib/modules/$kver/modules.dep" ]; then
		irkind=$kver
	else
		irkind=debug
	fi
	;;
esac
[ -r "$bzimage" ] || upmu_die "vm: cannot read kernel $bzimage"
initrd=$("$UPMU_TOP/scripts/initramfs.sh" "$irkind")

if [ -z "$results" ]; then
	results=$(mktemp -d /tmp/upmu-vm.XXXXXX)
else
	mkdir -p "$results"
fi
results=$(cd "$results" && pwd -P)
rm -f "$results"/{cmd.sh,shares,rc,uname,console.log,stdout.log,stderr.log,dmesg.log,kmemleak.log,qemu.log}

# /tmp, /var/tmp and /run are empty tmpfs in the guest.  A work tree there
# (a CI clone, say) and a cache there (UPMU_CACHE=/tmp/..., whose perf
# build the tests run) are each shared on their own, read-only, and
# mounted at the same path: results/shares lists "TAG PATH" for the guest.
in_tmpfs() {
	case "$1" in /tmp | /tmp/* | /var/tmp | /var/tmp/* | /run | /run/*) return 0 ;; esac
	return 1
}
shares=()
for p in "$UPMU_TOP" "$UPMU_CACHE"; do
	in_tmpfs "$p" && [ -d "$p" ] || continue
	tag=share$((${#shares[@]} / 2))
	echo "$tag $p" >> "$results/shares"
	shares+=(-virtfs "local,path=${p//,/,,},mount_tag=$tag,security_model=none,readonly=on,multidevs=remap")
done
case "$PWD" in "$UPMU_TOP" | "$UPMU_TOP"/*) ;; *)
	in_tmpfs "$PWD" && upmu_log "vm: warning: $PWD is on an empty tmpfs in the guest" ;;
esac

# The command, as a script in the results share (read by the guest's /bin/sh).
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
{
	echo "# generated by scripts/vm.sh"
	while IFS= read -r v; do
		case "$v" in UPMU_GUEST | UPMU_RESULTS | UPMU_GUEST_CPU) continue ;; esac
		echo "export $v=$(shq "${!v}")"
	done < <(compgen -e | grep '^UPMU_' || true)
	# the CPU model asked for, which a test may check the guest really has
	echo "export UPMU_GUEST_CPU=$(shq "$cpu_model")"
	echo "cd $(shq "$PWD") 2>/dev/null ||"
	echo "	{ echo $(shq "vm.sh: $PWD does not exist in the guest") >&2; exit 125; }"
	if [ $# = 1 ]; then
		echo "exec /bin/sh -c $(shq "$1")"
	else
		printf 'exec'
		for a in "$@"; do printf ' %s' "$(shq "$a")"; done
		echo
	fi
} > "$results/cmd.sh"

# Serial ports: ttyS0 console, ttyS1 stdout, ttyS2 stderr.  Each goes
# through a FIFO pair (QEMU's "pipe" chardev) to a reader here, which sees
# EOF exactly when QEMU exits, so nothing is lost or cut.  tee -p keeps
# reading (and saving) when our stdout goes away (vm.sh ... | head), so the
# guest never blocks on a full serial port.
fifos=$(mktemp -d /tmp/upmu-vm-fifo.XXXXXX)
qpid="" interrupted=0
cleanup() { rm -rf "$fifos"; }
trap cleanup EXIT
for s in con out err; do
	mkfifo "$fifos/$s.in" "$fifos/$s.out"
done
if [ "$verbose" = 1 ]; then
	tee -p "$results/console.log" < "$fifos/con.out" >&2 &
else
	cat < "$fifos/con.out" > "$results/console.log" &
fi
readers=$!
tee -p "$results/stdout.log" < "$fifos/out.out" &
readers="$readers $!"
tee -p "$results/stderr.log" < "$fifos/err.out" >&2 &
readers="$readers $!"

qesc() { echo "${1//,/,,}"; } # QEMU option values: ',' is written ',,'
numa=()
if [ "$nodes" -gt 1 ]; then
	per_cpus=$((cpus / nodes)) per_mem=$((mem / nodes))
	for ((n = 0; n < nodes; n++)); do
		size=$per_mem
		[ $n = $((nodes - 1)) ] && size=$((mem - per_mem * (nodes - 1)))
		numa+=(-object "memory-backend-ram,id=m$n,size=${size}M"
			-numa "node,nodeid=$n,cpus=$((n * per_cpus))-$(((n + 1) * per_cpus - 1)),memdev=m$n")
	done
fi

# pty.legacy_count=0: creating the 256 legacy BSD ptys takes ~10 s of the
# debug kernel's boot under TCG (pty_init with KASAN and lockdep).
append="console=ttyS0 printk.time=1 panic=-1 panic_on_warn=0 8250.nr_uarts=4"
append="$append pty.legacy_count=0 rdinit=/init"
# tsc=reliable: under TCG the guest's TSC is the host's, but the boot-time
# sync check between vCPUs (threads the host schedules at will) fails, so
# the kernel falls back to the emulated HPET: every clock read (ktime_get
# in the kernel, each simulated register access, clock_gettime in user
# space) is then an MMIO exit to QEMU.  Measured in the debug guest:
# clock_gettime 17.6 us with hpet, 0.32 us with tsc (vDSO).  The guest
# also gets the TSC's frequency (scripts/tsc-khz.c): its own calibration
# against emulated timers goes wrong on a loaded host, and tsc=reliable
# turns off the watchdog that would notice.  Without a C compiler the
# guest keeps the HPET.
tsc_khz() {
	local bin="$UPMU_CACHE/bin/tsc-khz-$(sha256sum "$UPMU_TOP/scripts/tsc-khz.c" | cut -c1-12)"
	if [ ! -x "$bin" ]; then
		mkdir -p "$UPMU_CACHE/bin"
		gcc -O2 -o "$bin.tmp.$$" "$UPMU_TOP/scripts/tsc-khz.c" 2>/dev/null &&
			mv "$bin.tmp.$$" "$bin" || { rm -f "$bin.tmp.$$"; return 1; }
	fi
	"$bin"
}
if khz=$(tsc_khz); then
	append="$append tsc=reliable tsc_early_khz=$khz"
else
	upmu_log "vm: warning: cannot measure the TSC frequency: the guest keeps the slow HPET clock"
fi
# rcupdate.rcu_expedited=1: perf_pmu_unregister() waits for RCU grace
# periods, several per PMU; normal ones take many ticks under TCG.
append="$append rcupdate.rcu_expedited=1"
[ "$kmemleak" = 1 ] || append="$append upmu.kmemleak=0"
append="$append ${UPMU_VM_APPEND:-}"

# q35, not the default pc machine: with pc, the debug kernel's ACPI
# interpreter times out in the While loop of the DSDT's _PRT under TCG
# (AE_AML_LOOP_TIMEOUT), virtio-pci gets no IRQ and the 9p mount hangs.
# la57=off: with 5-level paging, an interrupt that lands while the boot cpu
# re-reads its features (identify_cpu() clears them: LA57 looks off for a
# moment, and KASAN's idea of the address space with it) gives a bogus
# "BUG: KASAN: wild-memory-access" at 0.01 s that also turns lockdep off.
# QEMU's Icelake-Server is model 134 (0x86, Snow Ridge to perf) unless told
# model=106 (0x6a, Ice Lake-X); the hypervisor bit stays set, so upstream's
# intel_uncore refuses to load and its PMU names stay free.
case "$cpu_model" in
max) cpu=max ;;
icx) cpu=Icelake-Server,model=106 ;;
*) cpu=$cpu_model ;;
esac
upmu_log "vm: booting $bzimage ($cpus cpus, $nodes nodes, ${mem} MB, cpu $cpu), results in $results"
start=$(date +%s.%N)
timeout -k 10 "$tmo" qemu-system-x86_64 \
	-machine q35 -accel "tcg,thread=${UPMU_VM_TCG_THREAD:-single}" -cpu "$cpu,la57=off" -nographic -nodefaults -no-reboot \
	-m "$mem" -smp "cpus=$cpus,sockets=$nodes" "${numa[@]}" \
	-kernel "$bzimage" -initrd "$initrd" -append "$append" \
	-virtfs "local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$(qesc "$results"),mount_tag=results,security_model=none,multidevs=remap" \
	"${shares[@]}" \
	-chardev "pipe,id=con,path=$(qesc "$fifos/con")" -serial chardev:con \
	-chardev "pipe,id=out,path=$(qesc "$fifos/out")" -serial chardev:out \
	-chardev "pipe,id=err,path=$(qesc "$fifos/err")" -serial chardev:err \
	</dev/null >"$results/qemu.log" 2>&1 &
qpid=$!
trap 'interrupted=1; kill -TERM $qpid 2>/dev/null || true' INT TERM

qrc=0
while :; do
	wait "$qpid" && qrc=0 || qrc=$?
	kill -0 "$qpid" 2>/dev/null || break
done
trap - INT TERM
secs=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.1f", $2 - $1 }')

# Readers still blocked in open() (QEMU never started) need a writer to go away.
for r in $readers; do
	for _ in $(seq 50); do
		kill -0 "$r" 2>/dev/null || break
		for s in con out err; do : 2<>"$fifos/$s.out"; done
		sleep 0.1
	done
	kill "$r" 2>/dev/null || true
	wait "$r" 2>/dev/null || true
done

kr=$(cat "$results/uname" 2>/dev/null || echo "?")
# Guest uptime at the init's milestones (console.log): boot until the
# command started, the command, then the kmemleak scans and power-off.
phases() {
	tr -d '\r' < "$results/console.log" | awk -v total="$secs" '
		/\[upmu-init\] [0-9.]+s: running the command/ { b = $2 + 0 }
		/\[upmu-init\] [0-9.]+s: command exited/ { c = $2 + 0 }
		END {
			if (b == "") { printf "boot+run %s s", total; exit }
			printf "boot %.1f s", b
			if (c != "")
				printf ", command %.1f s, after it %.1f s", c - b, total - c
			printf " (total %s s)", total
			# the guest clock against the host: more guest seconds
			# than host ones means a wrong TSC frequency
			if (c != "" && c > total * 1.05)
				printf "; WARNING: the guest clock ran fast (%.0f s in %s s)", c, total
		}'
}
summary() {
	upmu_log "vm: results in $results"
	upmu_log "vm: kernel $kr, $cpus cpus, $nodes nodes: $(phases)"
}
console_tail() {
	upmu_log "vm: last lines of $results/console.log:"
	tail -n "${1:-40}" "$results/console.log" | tr -d '\r' | sed 's/^/  | /' >&2
}
logcheck_run() {
	local files=("$results/console.log")
	[ -f "$results/kmemleak.log" ] && files+=("$results/kmemleak.log")
	"$UPMU_TOP/scripts/logcheck.sh" "${files[@]}" >&2 && {
		# Messages the console dropped are still in dmesg.
		[ ! -f "$results/dmesg.log" ] ||
			"$UPMU_TOP/scripts/logcheck.sh" "$results/dmesg.log" >&2
	}
}

if [ "$interrupted" = 1 ]; then
	upmu_log "vm: interrupted"
	summary
	exit 130
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	console_tail
	upmu_log "vm: error: timeout after ${tmo}s"
	summary
	exit 124
fi
if [ ! -f "$results/rc" ]; then
	[ ! -s "$results/qemu.log" ] || { upmu_log "vm: qemu said:"; sed 's/^/  | /' "$results/qemu.log" >&2; }
	# A splat found by logcheck shows the interesting part already.
	if [ "$logcheck" = 1 ] && ! logcheck_run; then
		console_tail 10
	else
		console_tail 40
	fi
	upmu_log "vm: error: the guest did not finish the command (crash, panic or boot failure; qemu rc $qrc)"
	summary
	exit 1
fi

rc=$(cat "$results/rc")
[[ $rc =~ ^[0-9]+$ ]] || rc=1
if [ "$logcheck" = 1 ] && ! logcheck_run; then
	upmu_log "vm: error: kernel reports found in the logs (command rc $rc)"
	[ "$rc" != 0 ] || rc=3
fi
summary
exit "$rc"
