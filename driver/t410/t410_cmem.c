// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 CMEM latency PMU: read requests from the edge of the fabric
 * to local CPU memory, the cycles they spend outstanding, and cycles.
 *
 * The counters are fixed-function and 64 bits wide: each memory
 * controller (three per instance, fourteen instances) counts requests
 * and accumulated outstanding requests (AOR), each instance counts
 * cycles.  Nothing is programmed per event; an event reads the sum of
 * its counters, and up to CMEM_MAX_EVENTS events can be open at once.
 * The counters only run while the PMU is enabled and keep their value
 * while it is disabled, so deltas across a disable are exact.
 */

#include "hw/t410_cmem.h"
#include "t410.h"

static const struct upmu_format cmem_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 1),
};

static const struct upmu_event_desc cmem_events[] = {
	UPMU_EVENT(cycles, CMEM_EV_CYCLES),
	UPMU_EVENT(rd_req, CMEM_EV_RD_REQ),
	UPMU_EVENT(rd_cum_outs, CMEM_EV_RD_CUM_OUTS),
};

static int cmem_get_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
			struct perf_event *event)
{
	unsigned int idx = find_first_zero_bit(s->used, CMEM_MAX_EVENTS);

	return idx < CMEM_MAX_EVENTS ? idx : -EAGAIN;
}

static void cmem_ctrl(struct upmu_pmu *upmu, u32 cg, u32 ctrl)
{
	upmu_wr32(&upmu->regs, CMEM_BCAST + CMEM_CG_CTRL, cg);
	upmu_wr32(&upmu->regs, CMEM_BCAST + CMEM_CTRL, ctrl);
}

static void cmem_enable(struct upmu_pmu *upmu)
{
	cmem_ctrl(upmu, 1, CMEM_CTRL_ENABLE);
}

static void cmem_disable(struct upmu_pmu *upmu)
{
	upmu_wr32(&upmu->regs, CMEM_BCAST + CMEM_CTRL, 0);
	upmu_wr32(&upmu->regs, CMEM_BCAST + CMEM_CG_CTRL, 0);
}

/*
 * Sum of one per-MC counter over every MC of every instance: @mc0 is the
 * counter's offset for MC 0 (CMEM_MC_REQ_CNTR(0) or CMEM_MC_AOR_CNTR(0)).
 * The 42 reads go to the backend as one list.
 */
static u64 cmem_sum(struct upmu_pmu *upmu, u32 mc0)
{
	struct upmu_reg_xfer x[CMEM_NR_INST * CMEM_NR_MC];
	unsigned int i, mc, n = 0;
	u64 sum = 0;

	for (i = 0; i < CMEM_NR_INST; i++)
		for (mc = 0; mc < CMEM_NR_MC; mc++)
			x[n++] = (struct upmu_reg_xfer){
				.off = CMEM_INST(i) + mc0 + mc * CMEM_MC_STRIDE,
				.flags = UPMU_XFER_64,
			};
	upmu_xfer_nolock(&upmu->regs, x, n);
	for (i = 0; i < n; i++)
		sum += x[i].val;
	return sum;
}

static u64 cmem_read(struct upmu_pmu *upmu, struct perf_event *event)
{
	switch (upmu_field(upmu, event, 0)) {
	case CMEM_EV_RD_REQ:
		return cmem_sum(upmu, CMEM_MC_REQ_CNTR(0));
	case CMEM_EV_RD_CUM_OUTS:
		return cmem_sum(upmu, CMEM_MC_AOR_CNTR(0));
	default:
		/* All instances run on one clock: instance 0 stands for all. */
		return upmu_rd64_nolock(&upmu->regs, CMEM_INST(0) + CMEM_CYCLE_CNTR);
	}
}

static const struct upmu_hw_ops t410_cmem_ops = {
	.get_idx	= cmem_get_idx,
	.enable		= cmem_enable,
	.disable	= cmem_disable,
	.read		= cmem_read,
};

static int cmem_probe_hw(struct upmu_pmu *upmu)
{
	upmu->num_counters = CMEM_MAX_EVENTS;
	upmu->width = 64;
	/* 64-bit counters read in one access, as upstream's readq() */
	upmu->regs.atomic64 = true;
	strscpy(upmu->identifier, T410_CMEM_IDENTIFIER, sizeof(upmu->identifier));
	/* Stopped, cleared, clock gated. */
	cmem_ctrl(upmu, 1, CMEM_CTRL_CLR);
	cmem_disable(upmu);
	return 0;
}

const struct t410_model t410_cmem_model = {
	.name_fmt	= "nvidia_cmem_latency_pmu_%u",
	.desc = {
		.formats	= cmem_formats,
		.nr_formats	= ARRAY_SIZE(cmem_formats),
		.events		= cmem_events,
		.nr_events	= ARRAY_SIZE(cmem_events),
		.ops		= &t410_cmem_ops,
	},
	.probe_hw	= cmem_probe_hw,
};
