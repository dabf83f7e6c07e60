// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 Unified Coherence Fabric (UCF) PMU: events and filters.
 */

#include "hw/t410_cspmu.h"
#include "t410.h"

enum {
	UCF_F_EVENT,
	UCF_F_SRC_LOC_NONCPU,
	UCF_F_SRC_LOC_CPU,
	UCF_F_SRC_REM,
	UCF_F_DST_LOC_CMEM,
	UCF_F_DST_LOC_GMEM,
	UCF_F_DST_LOC_OTHER,
	UCF_F_DST_REM,
};

/* The cycle counter is selected by event bit 32, as in arm_cspmu. */
#define UCF_CYCLES	BIT_ULL(32)

static const struct upmu_format ucf_formats[] = {
	[UCF_F_EVENT]		= UPMU_FORMAT(event, UPMU_CONFIG, 0, 32),
	[UCF_F_SRC_LOC_NONCPU]	= UPMU_FORMAT(src_loc_noncpu, UPMU_CONFIG1, 0, 0),
	[UCF_F_SRC_LOC_CPU]	= UPMU_FORMAT(src_loc_cpu, UPMU_CONFIG1, 1, 1),
	[UCF_F_SRC_REM]		= UPMU_FORMAT(src_rem, UPMU_CONFIG1, 2, 2),
	[UCF_F_DST_LOC_CMEM]	= UPMU_FORMAT(dst_loc_cmem, UPMU_CONFIG1, 8, 8),
	[UCF_F_DST_LOC_GMEM]	= UPMU_FORMAT(dst_loc_gmem, UPMU_CONFIG1, 9, 9),
	[UCF_F_DST_LOC_OTHER]	= UPMU_FORMAT(dst_loc_other, UPMU_CONFIG1, 10, 10),
	[UCF_F_DST_REM]		= UPMU_FORMAT(dst_rem, UPMU_CONFIG1, 11, 11),
};

static const struct upmu_event_desc ucf_events[] = {
	UPMU_EVENT(slc_access, UCF_EV_SLC_ACCESS),
	UPMU_EVENT(bus_cycles, UCF_EV_BUS_CYCLES),
	UPMU_EVENT(slc_allocate, UCF_EV_SLC_ALLOCATE),
	UPMU_EVENT(slc_wb, UCF_EV_SLC_WB),
	UPMU_EVENT(slc_refill_rd, UCF_EV_SLC_REFILL_RD),
	UPMU_EVENT(slc_refill_wr, UCF_EV_SLC_REFILL_WR),
	UPMU_EVENT(slc_hit_rd, UCF_EV_SLC_HIT_RD),
	UPMU_EVENT(slc_access_rd, UCF_EV_SLC_ACCESS_RD),
	UPMU_EVENT(slc_access_wr, UCF_EV_SLC_ACCESS_WR),
	UPMU_EVENT_BYTES(slc_bytes_rd, UCF_EV_SLC_BYTES_RD),
	UPMU_EVENT_BYTES(slc_bytes_wr, UCF_EV_SLC_BYTES_WR),
	UPMU_EVENT(mem_access_rd, UCF_EV_MEM_ACCESS_RD),
	UPMU_EVENT(mem_access_wr, UCF_EV_MEM_ACCESS_WR),
	UPMU_EVENT_BYTES(mem_bytes_rd, UCF_EV_MEM_BYTES_RD),
	UPMU_EVENT_BYTES(mem_bytes_wr, UCF_EV_MEM_BYTES_WR),
	UPMU_EVENT(local_snoop, UCF_EV_LOCAL_SNOOP),
	UPMU_EVENT(ext_snp_access, UCF_EV_EXT_SNP_ACCESS),
	UPMU_EVENT(ext_snp_evict, UCF_EV_EXT_SNP_EVICT),
	UPMU_EVENT(slc_access_dataless, UCF_EV_SLC_ACCESS_DATALESS),
	UPMU_EVENT(slc_access_atomic, UCF_EV_SLC_ACCESS_ATOMIC),
	UPMU_EVENT(cycles, UCF_CYCLES),
};

/* Hardware filter bit of each filter format field. */
static const u32 ucf_filter_bit[] = {
	[UCF_F_SRC_LOC_NONCPU]	= UCF_FILT_SRC_LOC_NONCPU,
	[UCF_F_SRC_LOC_CPU]	= UCF_FILT_SRC_LOC_CPU,
	[UCF_F_SRC_REM]		= UCF_FILT_SRC_REM,
	[UCF_F_DST_LOC_CMEM]	= UCF_FILT_DST_LOC_CMEM,
	[UCF_F_DST_LOC_GMEM]	= UCF_FILT_DST_LOC_GMEM,
	[UCF_F_DST_LOC_OTHER]	= UCF_FILT_DST_LOC_OTHER,
	[UCF_F_DST_REM]		= UCF_FILT_DST_REM,
};

/*
 * An unset source (or destination) group means "all sources" (or "all
 * destinations"), so the hardware filter gets every bit of that group.
 */
static u32 ucf_filter(struct upmu_pmu *upmu, struct perf_event *event)
{
	unsigned int f;
	u32 filt = 0;

	for (f = UCF_F_SRC_LOC_NONCPU; f < ARRAY_SIZE(ucf_filter_bit); f++)
		if (upmu_field(upmu, event, f))
			filt |= ucf_filter_bit[f];

	return (filt & UCF_FILT_SRC ?: UCF_FILT_SRC) |
	       (filt & UCF_FILT_DST ?: UCF_FILT_DST);
}

/* Filters select traffic; they do not apply to the clock events. */
static int ucf_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 ev = upmu_field(upmu, event, UCF_F_EVENT);

	if ((ev == UCF_CYCLES || ev == UCF_EV_BUS_CYCLES) && event->attr.config1)
		return -EINVAL;
	return 0;
}

const struct t410_model t410_ucf_model = {
	.name_fmt	= "nvidia_ucf_pmu_%u",
	.desc = {
		.formats	= ucf_formats,
		.nr_formats	= ARRAY_SIZE(ucf_formats),
		.events		= ucf_events,
		.nr_events	= ARRAY_SIZE(ucf_events),
		.ops		= &t410_cspmu_ops,
		.max_rate_per_ns = UCF_MAX_BYTES_PER_NS,
	},
	.probe_hw	= t410_cspmu_probe_hw,
	.cycles_id	= UCF_CYCLES,
	.validate	= ucf_validate,
	.filter		= ucf_filter,
	.cc_filter	= UCF_FILT_SRC | UCF_FILT_DST,
};
