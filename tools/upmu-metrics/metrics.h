/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu-metrics: the formulas of a PMU family as data.
 *
 * A family is every PMU whose name is <prefix><digit>...; its row names
 * the sysfs events the formulas use and the formulas.  A formula is
 *
 *	value = scale * num / den
 *
 * where num and den each name an event of the family (lower case, as in
 * events/), ELAPSED (the group's time_running in ns) or a metric listed
 * earlier in the same row.  A formula whose operand is an event missing
 * from a PMU's events/ directory, or a metric dropped for that reason,
 * is dropped for that PMU; one whose denominator is 0 has no value.
 */
#ifndef __UPMU_METRICS_H__
#define __UPMU_METRICS_H__

#include <stddef.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define ELAPSED			"ELAPSED_TIME_IN_NS"
#define FAMILY_MAX_EVENTS	12
#define FAMILY_MAX_METRICS	16

struct metric_def {
	const char *name;	/* as the PMU's documentation spells it */
	const char *num;
	const char *den;
	double scale;
	int prec;		/* decimals in table output */
};

struct family {
	const char *name;	/* "UCF" */
	const char *prefix;	/* "nvidia_ucf_pmu_" */
	const char *events[FAMILY_MAX_EVENTS + 1];		/* NULL ends */
	struct metric_def metrics[FAMILY_MAX_METRICS + 1];	/* .name NULL ends */
};

extern const struct family families[];
extern const size_t nr_families;

#endif
