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
# Then upmu-list, the scripted view of the same files: its JSON lists
# exactly upmu's PMUs, every value is the sysfs file's, and every event's
# encoding is the one perf list -j (the patched perf 7.2) gives it.
set -u
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=${UPMU_KSRC:-$("$top/scripts/ksrc.sh" 2>/dev/null)}
ABI=$KSRC/Documentation/ABI/testing
T=${UPMU_LIST:-$top/build/selftests/upmu-list}
TMP=$(mktemp -d)
T410=16 ICX=17 NIC=18

tap_plan 7
[ -f "$KSRC/tools/docs/get_abi.py" ] ||
	{ echo "Bail out! no tools/docs/get_abi.py in '$KSRC' (UPMU_KSRC)"; exit 1; }
need_cmd python3
[ -x "$T" ] || { echo "Bail out! $T: no such program (make selftests)"; exit 1; }
upmu_load_all && mod_load_own upmu_icx && mod_load_own upmu_nic ||
	{ echo "Bail out! cannot load modules"; exit 1; }
trap 'sim_del $T410; sim_del $ICX; sim_del $NIC; mod_unload_own; rm -rf "$TMP"' EXIT
sim_new "$T410 2 c2c=gpu2" && sim_new "$ICX 2 soc=icx" && sim_new "$NIC 1 blocks=nic" ||
	{ echo "Bail out! cannot create the devices"; exit 1; }
# the PMUs appear as their platform devices probe
for _ in $(seq 50); do
	pmu_present upmu_nicdiag_4e1c0012 && pmu_present uncore_upi_2 && break
	sleep 0.1
done

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

# ---- upmu-list ----

# upmu's PMUs by the ABI document's names, each with associated_cpus
want=$(cd /sys/bus/event_source/devices && for p in nvidia_*_pmu_* uncore_iio_[0-9]* \
	uncore_irp_* uncore_m2pcie_* uncore_iio_free_running_* uncore_cha_* \
	uncore_imc_[0-9]* uncore_imc_free_running_* uncore_m2m_* uncore_upi_* \
	uncore_m3upi_* uncore_pcu uncore_ubox upmu_nic_* upmu_nicdiag_*; do [ -e "$p/associated_cpus" ] && echo "$p"; done | sort)
"$T" -j > "$TMP/all.json" 2> "$TMP/all.err"
tap_expect "upmu-list -j: exit 0, JSON, exactly upmu's $(wc -l <<<"$want") PMUs" eval \
	'python3 -c "import json,sys; print(\"\n\".join(sorted(p[\"pmu\"] for p in json.load(open(sys.argv[1])))))" \
	 "$TMP/all.json" > "$TMP/names" && [ "$(cat "$TMP/names")" = "$want" ] && [ $(wc -l <<<"$want") -ge 60 ]'

# every value against sysfs, read here
cat > "$TMP/sysfs.py" <<'PY'
import json, os, sys
d = "/sys/bus/event_source/devices"
def rd(*p):
    with open(os.path.join(d, *p)) as f:
        return f.read().rstrip("\n")
pmus = json.load(open(sys.argv[1]))
bad = 0
for p in pmus:
    n = p["pmu"]
    got = {"type": str(p["type"]), "identifier": p["identifier"], "cpumask": p["cpumask"],
           "associated_cpus": p["associated_cpus"]}
    want = {k: rd(n, k) for k in got}
    fm = {f: rd(n, "format", f) for f in os.listdir(os.path.join(d, n, "format"))}
    ev = {}
    for e in os.listdir(os.path.join(d, n, "events")):
        if "." in e:
            continue
        ev[e] = {"name": e, "encoding": "%s/%s/" % (n, rd(n, "events", e))}
        for x in ("unit", "scale"):
            if os.path.exists(os.path.join(d, n, "events", e + "." + x)):
                ev[e][x] = rd(n, "events", e + "." + x)
    mp = {f: rd(n, f) for f in os.listdir(os.path.join(d, n))
          if f in ("pci_segment", "root_ports", "peer", "pf") or (f.startswith("die") and f[3:].isdigit())}
    checks = [(got, want), (p["formats"], fm), ({e["name"]: e for e in p["events"]}, ev),
              (p["mapping"], mp)]
    for g, w in checks:
        if g != w:
            print("#   %s: %s, sysfs %s" % (n, g, w))
            bad += 1
print("# %d PMUs, %d events, %d mapping files" % (len(pmus),
      sum(len(p["events"]) for p in pmus), sum(len(p["mapping"]) for p in pmus)))
sys.exit(bad != 0)
PY
tap_expect "every type, identifier, cpumask, format, event (unit, scale) and mapping file is sysfs'" \
	python3 "$TMP/sysfs.py" "$TMP/all.json"

# every event's encoding is perf list -j's
if [ -n "${UPMU_PERF:-}" ] && "$UPMU_PERF" version >/dev/null 2>&1; then
	"$UPMU_PERF" list -j > "$TMP/perf.json" 2> "$TMP/perf.err"
	tap_expect "every event's encoding is perf list -j's (perf 7.2)" python3 -c '
import json, re, sys
# perf names an event with parameters "<pmu>/<event>,<param>=?/"
perf = {re.sub(r",\w+=\?", "", e["EventName"]): e.get("Encoding")
        for e in json.load(open(sys.argv[2])) if "EventName" in e}
n = bad = 0
for p in json.load(open(sys.argv[1])):
    for e in p["events"]:
        n += 1
        k = "%s/%s/" % (p["pmu"], e["name"])
        if perf.get(k) != e["encoding"]:
            print("#   %s: upmu-list %s, perf list -j %s" % (k, e["encoding"], perf.get(k)))
            bad += 1
print("# %d events compared" % n)
sys.exit(bad != 0 or n < 100)' "$TMP/all.json" "$TMP/perf.json"
	# what perf said, if anything (a flake seen once in ten runs left none)
	[ ! -s "$TMP/perf.err" ] || sed 's/^/#   perf list -j: /' "$TMP/perf.err" | head -n 20
else
	# something missing, not something this kernel cannot do
	tap_fail "every event's encoding is perf list -j's: no patched perf (UPMU_PERF='${UPMU_PERF:-}')"
fi

tap_expect "upmu-list -j uncore_cha: every instance of it, nothing else" eval \
	'"$T" -j uncore_cha | python3 -c "import json,sys; print(\"\n\".join(sorted(p[\"pmu\"] for p in json.load(sys.stdin))))" > "$TMP/cha" &&
	 [ "$(cat "$TMP/cha")" = "$(grep "^uncore_cha_" <<<"$want")" ]'
tap_expect "upmu-list nosuch: exit 1, says so" eval \
	'fails_rc 1 "$T" nosuch && fails "nosuch: no upmu PMU of that name" "$T" nosuch'
tap_exit
