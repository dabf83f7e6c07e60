// SPDX-License-Identifier: GPL-2.0
/*
 * Programming model shared by the Tegra410 UCF, PCIE and PCIE-TGT PMUs:
 * the Arm CoreSight PMU architecture register layout.
 */

#include <linux/bitfield.h>

#include "hw/t410_cspmu.h"
#include "t410.h"

static const struct t410_model *model(struct upmu_pmu *upmu)
{
	return upmu->priv;
}

static bool is_cycles(struct upmu_pmu *upmu, struct perf_event *event)
{
	return upmu_field(upmu, event, 0) == model(upmu)->cycles_id;
}

static int cspmu_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	return model(upmu)->validate ? model(upmu)->validate(upmu, event) : 0;
}

/* The cycle counter is a dedicated slot; there is only one. */
static u64 cspmu_constraint(struct upmu_pmu *upmu, struct perf_event *event)
{
	if (is_cycles(upmu, event))
		return BIT_ULL(CSPMU_CYCLE_IDX);
	return GENMASK_ULL(upmu->num_counters - 1, 0);
}

static int cspmu_get_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
			 struct perf_event *event)
{
	int idx = upmu_sched_alloc(upmu, s, cspmu_constraint(upmu, event));

	if (idx < 0 || is_cycles(upmu, event))
		return idx;
	if (model(upmu)->claim) {
		int ret = model(upmu)->claim(upmu, s, event);

		if (ret)
			return ret;
	}
	return idx;
}

static void cspmu_put_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
			  struct perf_event *event)
{
	if (model(upmu)->release && !is_cycles(upmu, event))
		model(upmu)->release(upmu, s, event);
}

static void cspmu_enable(struct upmu_pmu *upmu)
{
	upmu_wr32(&upmu->regs, CSPMU_PMCR, CSPMU_PMCR_E);
}

static void cspmu_disable(struct upmu_pmu *upmu)
{
	upmu_wr32(&upmu->regs, CSPMU_PMCR, 0);
}

static void cspmu_config(struct upmu_pmu *upmu, struct perf_event *event)
{
	const struct t410_model *m = model(upmu);
	int idx = event->hw.idx;

	/* The core reads it (no &upmu_hw_ops.read): one call fewer a read */
	event->hw.event_base = upmu->width > CSPMU_CNTR32_MAX_WIDTH ?
			       CSPMU_PMEVCNTR64(idx) : CSPMU_PMEVCNTR32(idx);
	if (idx == CSPMU_CYCLE_IDX) {
		upmu_wr32(&upmu->regs, CSPMU_PMCCFILTR, m->cc_filter);
		return;
	}
	upmu_wr32(&upmu->regs, CSPMU_PMEVTYPER(idx), upmu_field(upmu, event, 0));
	if (m->filter)
		upmu_wr32(&upmu->regs, CSPMU_PMEVFILTR(idx), m->filter(upmu, event));
	if (m->filter2)
		upmu_wr32(&upmu->regs, CSPMU_PMEVFILT2R(idx),
			  m->filter2(upmu, event));
	if (m->config)
		m->config(upmu, event);
}

static void cspmu_start(struct upmu_pmu *upmu, struct perf_event *event)
{
	upmu_wr32(&upmu->regs, CSPMU_PMCNTENSET, BIT(event->hw.idx));
}

/*
 * A stopped counter leaves no filter behind (as upstream's
 * nv_cspmu_reset_ev_filter()): the next event programs its own.
 */
static void cspmu_stop(struct upmu_pmu *upmu, struct perf_event *event)
{
	const struct t410_model *m = model(upmu);
	int idx = event->hw.idx;

	upmu_wr32(&upmu->regs, CSPMU_PMCNTENCLR, BIT(idx));
	if (idx == CSPMU_CYCLE_IDX)
		return;
	if (m->filter)
		upmu_wr32(&upmu->regs, CSPMU_PMEVFILTR(idx), 0);
	if (m->filter2)
		upmu_wr32(&upmu->regs, CSPMU_PMEVFILT2R(idx), 0);
	if (m->stop)
		m->stop(upmu, event);
}

const struct upmu_hw_ops t410_cspmu_ops = {
	.validate	= cspmu_validate,
	.get_idx	= cspmu_get_idx,
	.put_idx	= cspmu_put_idx,
	.enable		= cspmu_enable,
	.disable	= cspmu_disable,
	.config		= cspmu_config,
	.start		= cspmu_start,
	.stop		= cspmu_stop,
};

/* Geometry from PMCFGR; all counters off and cleared. */
int t410_cspmu_probe_hw(struct upmu_pmu *upmu)
{
	u32 cfgr = upmu_rd32(&upmu->regs, CSPMU_PMCFGR);

	/* N + 1 logical counters, one of them the cycle counter (CC) */
	upmu->num_counters = min_t(u32, FIELD_GET(CSPMU_PMCFGR_N, cfgr),
				   CSPMU_MAX_COUNTERS);
	upmu->width = FIELD_GET(CSPMU_PMCFGR_SIZE, cfgr) + 1;
	if (!(cfgr & CSPMU_PMCFGR_CC) || !upmu->num_counters ||
	    upmu->width < 32) {
		dev_err(upmu->dev, "unsupported PMCFGR %#x\n", cfgr);
		return -ENODEV;
	}
	snprintf(upmu->identifier, sizeof(upmu->identifier), "%x",
		 upmu_rd32(&upmu->regs, CSPMU_PMIIDR));

	upmu_wr32(&upmu->regs, CSPMU_PMCNTENCLR, U32_MAX);
	/* no overflow interrupt is handled: none may be left enabled */
	upmu_wr32(&upmu->regs, CSPMU_PMINTENCLR, U32_MAX);
	upmu_wr32(&upmu->regs, CSPMU_PMOVSCLR, U32_MAX);
	upmu_wr32(&upmu->regs, CSPMU_PMCR, CSPMU_PMCR_P | CSPMU_PMCR_C);
	return 0;
}
