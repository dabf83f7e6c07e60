/* SPDX-License-Identifier: GPL-2.0 */
/* Tegra410 uncore PMU family: models on the CoreSight-architecture PMU. */
#ifndef __UPMU_T410_H__
#define __UPMU_T410_H__

#include "upmu.h"

/**
 * struct t410_model - one Tegra410 PMU type
 * @name_fmt: perf PMU name, formatted with socket and instance
 * @desc: tables and ops for the core
 * @probe_hw: read the register block's geometry into @upmu (counters,
 *	      width, identifier) and quiesce it; 0 or -errno.  It may
 *	      replace @upmu->desc (e.g. by what firmware says is attached)
 *	      and @upmu->priv (the model, by default)
 * @cycles_id: event id that selects the cycle counter
 * @validate: model-specific filter checks (optional)
 * @filter: PMEVFILTR value for an event (optional)
 * @filter2: PMEVFILT2R value for an event (optional)
 * @claim: take a filter resource shared by all counters for @event in @s
 *	   (optional); 0 or -errno
 * @release: give back what @claim took
 * @config: program what the filters of @event need beyond its counter's
 *	    registers (optional; called from the config hw op)
 * @stop: undo what @config programmed, when @event's counter stops
 *	  (optional; its filter registers are cleared already)
 * @cc_filter: PMCCFILTR value for the cycle counter
 */
struct t410_model {
	const char *name_fmt;
	struct upmu_desc desc;
	int (*probe_hw)(struct upmu_pmu *upmu);
	u64 cycles_id;
	int (*validate)(struct upmu_pmu *upmu, struct perf_event *event);
	u32 (*filter)(struct upmu_pmu *upmu, struct perf_event *event);
	u32 (*filter2)(struct upmu_pmu *upmu, struct perf_event *event);
	int (*claim)(struct upmu_pmu *upmu, struct upmu_sched *s,
		     struct perf_event *event);
	void (*release)(struct upmu_pmu *upmu, struct upmu_sched *s,
			struct perf_event *event);
	void (*config)(struct upmu_pmu *upmu, struct perf_event *event);
	void (*stop)(struct upmu_pmu *upmu, struct perf_event *event);
	u32 cc_filter;
};

extern const struct upmu_hw_ops t410_cspmu_ops;
int t410_cspmu_probe_hw(struct upmu_pmu *upmu);
void t410_pcie_probe_map(struct upmu_pmu *upmu);
extern const struct t410_model t410_ucf_model;
extern const struct t410_model t410_cmem_model;
extern const struct t410_model t410_pcie_model;
extern const struct t410_model t410_pcie_tgt_model;
extern const struct t410_model t410_nvlink_c2c_model;
extern const struct t410_model t410_nvclink_model;
extern const struct t410_model t410_nvdlink_model;

#endif
