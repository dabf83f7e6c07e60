#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The example commands of the Tegra410 PMU document, run verbatim (plus
# a workload that injects known traffic and -x, so the counts can be
# read back), with the perf binary in $PERF.
set -u
. "$(dirname "$0")/lib.sh"
PERF=${PERF:-perf}
ID=11
D=/sys/kernel/debug/upmu_sim/$ID
OUT=$(mktemp)

# count of the first CSV line of perf stat -x,
perf_count() {	# perf_count EVENT WORKLOAD
	"$PERF" stat -a -x, -o "$OUT" -e "$1" -- sh -c "$2" >/dev/null 2>&1 || return 1
	grep -v '^#' "$OUT" | grep -v '^$' | head -n1 | cut -d, -f1
}

# Traffic from every source s to every destination d of socket S, in
# 1 << (4s + d) transactions: a filter's count names the pairs it saw.
all_pairs() {
	local s d n=0 cmds=""
	for s in loc_cpu loc_noncpu rem; do
		for d in loc_cmem loc_gmem loc_other rem; do
			cmds="$cmds echo 'socket=$1 src=$s dst=$d count=$((1 << n))' > $D/inject;"
			n=$((n + 1))
		done
	done
	echo "$cmds"
}

# the shell command that injects traffic $1
inj() { echo "echo '$1' > $D/inject;"; }

check() {	# check NAME EVENT WORKLOAD WANT
	local got
	got=$(perf_count "$2" "$3")
	if [ "$got" = "$4" ]; then tap_ok "$1 ($PERF: $got)"
	else tap_fail "$1: want $4, got '$got'"; fi
}

tap_plan 23
need_cmd "$PERF"
upmu_load_all || { echo "Bail out! cannot load modules"; exit 1; }
sim_del $ID
# Each perf command reads every PMU's sysfs events and formats at its
# start (seconds on the debug kernel under TCG), so the device has only
# the PMUs the commands need: none of the PCIe root complexes (24 of its
# 34 PMUs) until the PCIe commands at the end.
sim_new "$ID 2 rcs=0" || { echo "Bail out! cannot create device"; exit 1; }

check "perf stat -a -e nvidia_ucf_pmu_0/event=0x0/" \
	nvidia_ucf_pmu_0/event=0x0/ "$(all_pairs 0)" 4095
check "perf stat -a -e nvidia_ucf_pmu_0/event=0x0,src_loc_cpu=0x1,dst_loc_cmem=0x1/" \
	nvidia_ucf_pmu_0/event=0x0,src_loc_cpu=0x1,dst_loc_cmem=0x1/ "$(all_pairs 0)" 1
check "perf stat -a -e nvidia_ucf_pmu_1/event=0x0,src_loc_noncpu=0x1,dst_rem=0x1/" \
	nvidia_ucf_pmu_1/event=0x0,src_loc_noncpu=0x1,dst_rem=0x1/ "$(all_pairs 1)" 128
# named byte events are scaled to MiB by perf
check "slc_bytes_rd is reported in MiB" nvidia_ucf_pmu_0/slc_bytes_rd/ \
	"echo 'socket=0 op=rd size=4096 count=512' > $D/inject" 2.00
# an unknown event is refused (perf stat reports it rather than counting)
if "$PERF" stat -a -x, -e nvidia_ucf_pmu_0/event=0x5/ -- true 2>&1 |
	grep -q -e '<not supported>' -e 'Invalid argument'; then
	tap_ok "unknown event id refused by perf stat"
else
	tap_fail "unknown event id refused by perf stat"
fi

# CMEM latency: the document's group, on a 1 GHz clock.  3000 reads of
# 64 bytes at 250 ns are 6000 requests of 32 bytes, 250 cycles each.
cmem='{nvidia_cmem_latency_pmu_0/rd_req/,nvidia_cmem_latency_pmu_0/rd_cum_outs/,nvidia_cmem_latency_pmu_0/cycles/}'
if "$PERF" stat -a -x, -o "$OUT" -e "$cmem" -- \
	sh -c "echo 'socket=0 op=rd size=64 count=3000 lat=250' > $D/inject; sleep 0.2" \
	>/dev/null 2>&1; then
	got=$(grep -v '^#' "$OUT" | grep -v '^$' | cut -d, -f1 | head -n2 | tr '\n' ' ')
	cyc=$(grep -v '^#' "$OUT" | grep -v '^$' | sed -n 3p | cut -d, -f1)
else
	got=failed cyc=0
fi
if [ "$got" = "6000 1500000 " ]; then tap_ok "perf stat -a -e '$cmem' ($PERF: $got)"
else tap_fail "perf stat -a -e '$cmem': want '6000 1500000 ', got '$got'"; fi
# realtime clock at 1 GHz: the group ran at least the 0.2 s of the workload
if [ "${cyc:-0}" -ge 200000000 ] 2>/dev/null; then tap_ok "CMEM cycles ran with the group ($cyc)"
else tap_fail "CMEM cycles ran with the group: got '$cyc'"; fi

# NVLink-C2C with two GPUs (the default), on a 1 GHz clock: a latency
# of L ns is L cycles.  Reads by a GPU (src=loc_noncpu gpu=N) come in,
# reads of its memory (dst=loc_gmem gpu=N) go out; writes, SLC hits and
# the other direction are traffic each command must not count.
check "perf stat -a -e nvidia_nvlink_c2c_pmu_0/in_rd_req/" \
	nvidia_nvlink_c2c_pmu_0/in_rd_req/ \
	"$(inj 'src=loc_noncpu gpu=0 op=rd count=5') $(inj 'src=loc_noncpu gpu=1 op=rd count=7')
	 $(inj 'src=loc_noncpu gpu=0 op=wr count=100') $(inj 'dst=loc_gmem gpu=0 op=rd count=1000')
	 $(inj 'socket=1 src=loc_noncpu gpu=0 op=rd count=9')" 12
check "perf stat -a -e nvidia_nvlink_c2c_pmu_0/in_rd_cum_outs,gpu_mask=0x1/" \
	nvidia_nvlink_c2c_pmu_0/in_rd_cum_outs,gpu_mask=0x1/ \
	"$(inj 'src=loc_noncpu gpu=0 op=rd count=4 lat=100') $(inj 'src=loc_noncpu gpu=1 op=rd count=4 lat=300')
	 $(inj 'src=loc_noncpu gpu=0 op=wr count=4 lat=500')" 400
check "perf stat -a -e nvidia_nvlink_c2c_pmu_0/in_rd_cum_outs,gpu_mask=0x2/" \
	nvidia_nvlink_c2c_pmu_0/in_rd_cum_outs,gpu_mask=0x2/ \
	"$(inj 'src=loc_noncpu gpu=0 op=rd count=4 lat=100') $(inj 'src=loc_noncpu gpu=1 op=rd count=4 lat=300')
	 $(inj 'dst=loc_gmem gpu=1 op=rd count=4 lat=500')" 1200
check "perf stat -a -e nvidia_nvlink_c2c_pmu_0/out_rd_req/" \
	nvidia_nvlink_c2c_pmu_0/out_rd_req/ \
	"$(inj 'dst=loc_gmem gpu=0 op=rd count=3') $(inj 'dst=loc_gmem gpu=1 op=rd count=4')
	 $(inj 'dst=loc_gmem gpu=0 op=wr count=10') $(inj 'dst=loc_gmem gpu=1 op=rd hit=1 count=10')
	 $(inj 'src=loc_noncpu gpu=1 op=rd count=10')" 7
check "perf stat -a -e nvidia_nvlink_c2c_pmu_0/out_rd_cum_outs,gpu_mask=0x1/" \
	nvidia_nvlink_c2c_pmu_0/out_rd_cum_outs,gpu_mask=0x1/ \
	"$(inj 'dst=loc_gmem gpu=0 op=rd count=2 lat=50') $(inj 'dst=loc_gmem gpu=1 op=rd count=2 lat=70')
	 $(inj 'src=loc_noncpu gpu=0 op=rd count=2 lat=90')" 100
check "perf stat -a -e nvidia_nvlink_c2c_pmu_0/out_rd_cum_outs,gpu_mask=0x2/" \
	nvidia_nvlink_c2c_pmu_0/out_rd_cum_outs,gpu_mask=0x2/ \
	"$(inj 'dst=loc_gmem gpu=0 op=rd count=2 lat=50') $(inj 'dst=loc_gmem gpu=1 op=rd count=2 lat=70')
	 $(inj 'dst=loc_gmem gpu=1 op=wr count=2 lat=90')" 140

# NV-CLink: reads by the other socket (src=rem) come in, reads of its
# memory (dst=rem) go out; writes and the other socket's traffic do not
# count.
check "perf stat -a -e nvidia_nvclink_pmu_0/in_rd_req/" \
	nvidia_nvclink_pmu_0/in_rd_req/ \
	"$(inj 'src=rem op=rd count=9') $(inj 'src=rem op=wr count=3')
	 $(inj 'dst=rem op=rd count=6') $(inj 'socket=1 src=rem op=rd count=5')" 9
check "perf stat -a -e nvidia_nvclink_pmu_0/out_rd_req/" \
	nvidia_nvclink_pmu_0/out_rd_req/ \
	"$(inj 'dst=rem op=rd count=11') $(inj 'dst=rem op=rd hit=1 count=2')
	 $(inj 'dst=rem op=wr count=4') $(inj 'src=rem op=rd count=6')" 11

# NV-DLink: the document's group; reads of CXL memory that miss the SLC.
dlink='{nvidia_nvdlink_pmu_0/in_rd_req/,nvidia_nvdlink_pmu_0/in_rd_cum_outs/}'
if "$PERF" stat -a -x, -o "$OUT" -e "$dlink" -- \
	sh -c "$(inj 'dst=loc_cxl op=rd count=20 lat=150') $(inj 'dst=loc_cmem op=rd count=10 lat=150')
	       $(inj 'dst=loc_cxl op=wr count=5 lat=150') $(inj 'dst=loc_cxl op=rd hit=1 count=5 lat=150')" \
	>/dev/null 2>&1; then
	got=$(grep -v '^#' "$OUT" | grep -v '^$' | cut -d, -f1 | head -n2 | tr '\n' ' ')
else
	got=failed
fi
if [ "$got" = "20 3000 " ]; then tap_ok "perf stat -a -e '$dlink' ($PERF: $got)"
else tap_fail "perf stat -a -e '$dlink': want '20 3000 ', got '$got'"; fi

# The PCIe commands need root complexes 0-4.
sim_del $ID
sim_new "$ID 2 rcs=5 blocks=pcie,tgt" || { echo "Bail out! cannot create device"; exit 1; }
# PCIE: the document's five commands, each with traffic it must count
# and traffic it must not.
check "perf stat -a -e nvidia_pcie_pmu_0_rc_0/event=0x0,src_rp_mask=0x1/" \
	nvidia_pcie_pmu_0_rc_0/event=0x0,src_rp_mask=0x1/ \
	"$(inj 'rc=0 op=rd size=512 count=4') $(inj 'rc=0 op=wr size=512 count=4')" 2048
check "perf stat -a -e nvidia_pcie_pmu_0_rc_1/event=0x1,src_rp_mask=0x3,dst_loc_cmem=0x1/" \
	nvidia_pcie_pmu_0_rc_1/event=0x1,src_rp_mask=0x3,dst_loc_cmem=0x1/ \
	"$(inj 'rc=1 rp=1 op=wr size=64 count=10') $(inj 'rc=1 rp=2 op=wr size=64 count=10')
	 $(inj 'rc=1 rp=1 op=wr size=64 count=10 dst=rem')" 640
check "perf stat -a -e nvidia_pcie_pmu_1_rc_2/event=0x2,src_rp_mask=0x1/" \
	nvidia_pcie_pmu_1_rc_2/event=0x2,src_rp_mask=0x1/ \
	"$(inj 'socket=1 rc=2 op=rd count=42') $(inj 'socket=0 rc=2 op=rd count=5')" 42
check "perf stat -a -e nvidia_pcie_pmu_1_rc_3/event=0x3,src_rp_mask=0x3,dst_loc_cmem=0x1/" \
	nvidia_pcie_pmu_1_rc_3/event=0x3,src_rp_mask=0x3,dst_loc_cmem=0x1/ \
	"$(inj 'socket=1 rc=3 op=wr count=17') $(inj 'socket=1 rc=3 op=wr count=4 dst=loc_gmem')" 17
# 6 reads of BDF 01:10.0 at 250 ns (1 GHz): 1500 outstanding cycles
check "perf stat -a -e nvidia_pcie_pmu_0_rc_4/event=0x4,src_bdf=0x0180,src_bdf_en=0x1/" \
	nvidia_pcie_pmu_0_rc_4/event=0x4,src_bdf=0x0180,src_bdf_en=0x1/ \
	"$(inj 'rc=4 bdf=0x0180 op=rd count=6 lat=250') $(inj 'rc=4 bdf=0x0100 op=rd count=6 lat=250')" 1500

# PCIE-TGT: the document's two commands.  RC 0 has root port 0 only;
# HDM traffic has no root port; the range is 0x10000-0x100ff.
check "perf stat -a -e nvidia_pcie_tgt_pmu_0_rc_0/event=0x0,dst_rp_mask=0x3/" \
	nvidia_pcie_tgt_pmu_0_rc_0/event=0x0,dst_rp_mask=0x3/ \
	"$(inj 'to_rc=0 op=rd size=128 count=5') $(inj 'to_rc=0 hdm=1 op=rd size=128 count=5')
	 $(inj 'to_rc=1 op=rd size=128 count=5')" 640
check "perf stat -a -e nvidia_pcie_tgt_pmu_0_rc_1/event=0x1,dst_addr_base=0x10000,dst_addr_mask=0xFFF00,dst_addr_en=0x1/" \
	nvidia_pcie_tgt_pmu_0_rc_1/event=0x1,dst_addr_base=0x10000,dst_addr_mask=0xFFF00,dst_addr_en=0x1/ \
	"$(inj 'to_rc=1 op=wr size=64 count=3 addr=0x10040') $(inj 'to_rc=1 hdm=1 op=wr size=64 count=2 addr=0x100ff')
	 $(inj 'to_rc=1 op=wr size=64 count=7 addr=0x10100')" 320

sim_del $ID
rm -f "$OUT"
tap_exit
