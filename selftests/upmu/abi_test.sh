#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every sysfs file upmu creates is in its ABI documents
# (Documentation/ABI/testing/): with a simulated Tegra410 (every PMU
# family, NVLink-C2C to 2 GPUs), Ice Lake-X and NIC, the kernel's own
# checker, tools/docs/get_abi.py of the 7.2 tree, in its undefined mode
# over /sys with upmu's documents and upstream's that upmu's files fall
# under (event_source devices, their format and events, intel_uncore's
# mapping, device power and uevent) lists none of upmu's files.  What
# the driver core and the perf core create for every device and PMU
# (uevent, power/, a char device's dev, type, perf_event_mux_interval_ms,
# bind/unbind, the directories themselves), undocumented upstream too or
# documented where get_abi.py does not look, is not upmu's.  get_abi.py
# matches a file by its /sys/devices/ path, which differs by kernel (a
# Tegra410 PMU is below its platform device on 7.2, at the top on 6.1):
# upmu's entries give both, and the /sys/bus/event_source/devices/ one.
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=${UPMU_KSRC:-$("$top/scripts/ksrc.sh" 2>/dev/null)}
ABI=$KSRC/Documentation/ABI/testing
TMP=$(mktemp -d)
T410=16 ICX=17 NIC=18

tap_plan 2
[ -f "$KSRC/tools/docs/get_abi.py" ] ||
	{ echo "Bail out! no tools/docs/get_abi.py in '$KSRC' (UPMU_KSRC)"; exit 1; }
need_cmd python3
upmu_load_all && mod_load_own upmu_icx && mod_load_own upmu_nic ||
	{ echo "Bail out! cannot load modules"; exit 1; }
trap 'sim_del $T410; sim_del $ICX; sim_del $NIC; mod_unload_own; rm -rf "$TMP"' EXIT
sim_new "$T410 2 c2c=gpu2" && sim_new "$ICX 2 soc=icx" && sim_new "$NIC 1 blocks=nic" ||
	{ echo "Bail out! cannot create the devices"; exit 1; }

mkdir "$TMP/testing"
cp "$ABI"/sysfs-bus-event_source-devices* "$ABI"/sysfs-devices-mapping \
	"$ABI"/sysfs-devices-power "$ABI"/sysfs-uevent "$top"/Documentation/ABI/testing/* \
	"$TMP/testing/"
n=$(ls "$TMP/testing" | wc -l)
tap_expect "upmu's ABI documents and upstream's they lean on: $n files" \
	eval '[ -s "$TMP/testing/sysfs-bus-event_source-devices-upmu" ] && [ $n -ge 8 ]'

python3 "$KSRC/tools/docs/get_abi.py" -D "$TMP" undefined -S /sys \
	-s 'upmu|nvidia_|uncore_' > "$TMP/undef" 2>&1
rc=$?
# undocumented: "missing rules for F" (no What near it) and "F not found."
# (none of the Whats near it matches)
sed -n -e 's/^\[WARNING\] missing rules for //p' -e 's/^\(\/sys\/.*\) not found\.$/\1/p' \
	"$TMP/undef" | sort -u | while read -r f; do
	[ -d "$f" ] && continue
	case ${f##*/} in uevent | dev | type | perf_event_mux_interval_ms | modalias | \
		driver_override | bind | unbind | drivers_autoprobe | drivers_probe) continue ;;
	esac
	case $f in */power/*) continue ;; esac
	echo "$f"
done > "$TMP/missing"
checked=$(grep -c " not found\.$" "$TMP/undef")
if [ $rc = 0 ] && [ ! -s "$TMP/missing" ] && grep -q "^Reading /sys" "$TMP/undef"; then
	tap_ok "get_abi.py undefined: none of upmu's files undocumented ($checked generic ones set aside)"
else
	tap_fail "get_abi.py undefined: none of upmu's files undocumented"
	echo "#   get_abi.py exit $rc; undocumented:"
	sed 's/^/#     /' "$TMP/missing" | head -n 40
	[ -s "$TMP/missing" ] || sed 's/^/#   | /' "$TMP/undef" | tail -n 20
fi
tap_exit
