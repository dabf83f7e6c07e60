#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the upmu test VM (built into the initramfs by scripts/initramfs.sh,
# booted by scripts/vm.sh).  Runs under busybox ash: there is no bash in the
# initramfs.  No `set -e`: pid 1 exiting panics the kernel, so every failure
# is handled explicitly and ends in a power-off without results/rc, which
# vm.sh reports as a failed boot.
#
# Protocol with vm.sh:
#   9p tag "root"     host /, read-only, becomes the guest's root (chroot)
#   9p tag "results"  host results dir, mounted at /run/upmu-results; holds
#                     cmd.sh (the command, written by vm.sh) and gets back
#                     uname, kmemleak.log, dmesg.log and rc (written last)
#   9p tags "shareN"  the work tree and the cache when they are on a path
#                     that is tmpfs in the guest, listed in results/shares
#   ttyS0             console (kernel log + these [upmu-init] messages)
#   ttyS1, ttyS2      the command's stdout and stderr
set -u -o pipefail

export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1

R=/newroot                  # guest root (the host's / over 9p)
RES=/run/upmu-results       # results share, as seen inside the chroot
P9OPTS=trans=virtio,version=9p2000.L,msize=262144

# Options from the kernel command line (vm.sh sets them).
rootcache=loose kmemleak=1
for a in $(cat /proc/cmdline); do
	case "$a" in
	upmu.rootcache=*) rootcache=${a#*=} ;;
	upmu.kmemleak=*) kmemleak=${a#*=} ;;
	esac
done

log() { echo "[upmu-init] $(cut -d' ' -f1 /proc/uptime)s: $*"; }

power_off() {
	local c
	sync
	# Take the other CPUs down through hotplug first: the power-off path
	# stops them behind the scheduler's back, and a wakeup racing with
	# that WARNs ("Unexpected reschedule of offline CPU").
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -w "$c" ] && echo 0 > "$c" 2>/dev/null
	done
	echo o > /proc/sysrq-trigger
	sleep 5
	poweroff -f
}

die() {
	log "error: $*"
	power_off
}

# Modules for a modular kernel (Debian's), in dependency order.
if [ -s /lib/modules/load ]; then
	while read -r m; do
		insmod "/lib/modules/$m" || log "insmod $m failed (built in?)"
	done < /lib/modules/load
fi

# The read-only root is cached (cache=loose: several times faster under TCG);
# a file the host changes during the run may then be seen stale.  Boot with
# upmu.rootcache=none (UPMU_VM_APPEND) to avoid that.
log "mounting the root"
mount -t 9p -o "$P9OPTS,ro,cache=$rootcache" root "$R" || die "cannot mount the host root over 9p"
mount -t proc proc "$R/proc" || die "mount proc"
mount -t sysfs sysfs "$R/sys" || die "mount sysfs"
mount -t devtmpfs devtmpfs "$R/dev" || die "mount devtmpfs"
mount -t debugfs debugfs "$R/sys/kernel/debug" || log "no debugfs"
mount -t tracefs tracefs "$R/sys/kernel/tracing" 2>/dev/null || true
mount -t configfs configfs "$R/sys/kernel/config" 2>/dev/null || true
mkdir -p "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts "$R/dev/pts" 2>/dev/null || true
ln -sf /proc/self/fd "$R/dev/fd"
ln -sf /proc/self/fd/0 "$R/dev/stdin"
ln -sf /proc/self/fd/1 "$R/dev/stdout"
ln -sf /proc/self/fd/2 "$R/dev/stderr"
# The root is read-only: writable scratch space is tmpfs.
for d in dev/shm tmp var/tmp; do
	mount -t tmpfs -o mode=1777 tmpfs "$R/$d" || die "mount tmpfs on /$d"
done
mount -t tmpfs -o mode=755 tmpfs "$R/run" || die "mount tmpfs on /run"
mkdir -p "$R/run/lock" "$R$RES"
mount -t 9p -o "$P9OPTS" results "$R$RES" || die "cannot mount the results share"
[ -f "$R$RES/cmd.sh" ] || die "no cmd.sh in the results share"
# A work tree or a cache on one of the tmpfs paths comes as a share of
# its own (vm.sh lists them in shares: "TAG PATH", the work tree first).
if [ -f "$R$RES/shares" ]; then
	while read -r tag path; do
		mkdir -p "$R$path"
		mount -t 9p -o "$P9OPTS,ro,cache=$rootcache" "$tag" "$R$path" ||
			die "cannot mount the share of $path"
	done < "$R$RES/shares"
fi
hostname upmu-vm
uname -r > "$R$RES/uname"

# The command's stdout/stderr go to ttyS1/ttyS2, raw (no \n -> \r\n); vm.sh
# forwards them to its own stdout/stderr.  Without them, fall back to the
# console (the output then only shows in console.log).
# (A failing `exec 3>...` would end this shell, hence the subshell probe.)
if ( : >/dev/ttyS1 && : >/dev/ttyS2 ) 2>/dev/null; then
	exec 3>/dev/ttyS1 4>/dev/ttyS2
	stty -F /dev/ttyS1 raw -echo -opost
	stty -F /dev/ttyS2 raw -echo -opost
else
	log "warning: no ttyS1/ttyS2: command output goes to the console"
	exec 3>&1 4>&2
fi

kml=$R/sys/kernel/debug/kmemleak
# upmu.kmemleak=0 (vm.sh --no-kmemleak) skips the slow kmemleak scans.
[ "$kmemleak" != 0 ] || kml=/nonexistent
# Only leaks of the command matter.
[ ! -e "$kml" ] || echo clear > "$kml"

log "running the command (cpus: $(nproc), kernel: $(uname -r))"
env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/tmp USER=root LOGNAME=root SHELL=/bin/sh TERM=dumb PAGER=cat \
	UPMU_RESULTS="$RES" UPMU_GUEST=1 \
	setsid chroot "$R" /bin/sh "$RES/cmd.sh" </dev/null >&3 2>&4 3>&- 4>&-
rc=$?
log "command exited with rc $rc"

# Stop what the command left running, so it releases files and the ttys.
kill -TERM -1 2>/dev/null
usleep 200000
kill -KILL -1 2>/dev/null

if [ -e "$kml" ]; then
	# kmemleak reports objects only once they are a few seconds old.
	log "kmemleak: scan"
	echo scan > "$kml"
	sleep 5
	log "kmemleak: scan"
	echo scan > "$kml"
	log "kmemleak: done"
	cat "$kml" > "$R$RES/kmemleak.log"
fi
dmesg > "$R$RES/dmesg.log"
echo "$rc" > "$R$RES/rc"
# Closing the ttys waits until their output is sent.
exec 3>&- 4>&-
umount "$R$RES" 2>/dev/null
power_off
