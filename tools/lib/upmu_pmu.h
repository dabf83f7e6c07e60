/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace access to perf PMUs through sysfs, the way perf does it:
 * event names from events/, terms through format/, the CPU from cpumask.
 * Shared by the upmu tools and selftests.
 */
#ifndef __UPMU_PMU_H__
#define __UPMU_PMU_H__

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMU_DEVICES	"/sys/bus/event_source/devices"

/* Write @s to @path; 0 or -errno. */
int write_str(const char *path, const char *s);
/* Read @path into @buf (trailing newline stripped); 0 or -errno. */
int read_str(const char *path, char *buf, size_t len);
int read_u64(const char *path, uint64_t *val);

/*
 * The directory of the PMUs: $UPMU_PMU_DEVICES if set (tests point it at
 * a fake tree), else PMU_DEVICES.
 */
const char *pmu_devices_dir(void);

bool pmu_exists(const char *pmu);
/* PMU attribute file contents, e.g. pmu_read("x", "events/cycles", ...) */
int pmu_read(const char *pmu, const char *file, char *buf, size_t len);
/*
 * From now on pmu_read() keeps what it read of a PMU's type, format/ and
 * events/ files and answers from memory: for a tool that encodes many
 * events of PMUs that stay registered while it runs (a PMU registered
 * again may get another type: not for tests that create and delete them).
 */
void pmu_cache_files(void);
/* First CPU of the PMU's cpumask, or -1. */
int pmu_cpu(const char *pmu);

/*
 * Fill @attr from "event_or_term,term=val,..." exactly as perf would:
 * named events from events/, terms through format/.  0 or -errno.
 */
int pmu_attr(const char *pmu, const char *spec, struct perf_event_attr *attr);

/* perf_event_open; returns fd or -errno. */
int perf_open(struct perf_event_attr *attr, int pid, int cpu, int group);
/* pmu_attr + perf_open on the PMU's cpu; fd or -errno. */
int pmu_open(const char *pmu, const char *spec, int group);
/* Read the count of @fd; 0 or -errno (with -ENODATA for a short read). */
int count_read(int fd, uint64_t *val);

/*
 * What the drains of upmu AUX PMU @pmu cost (debugfs upmu/<pmu>/aux_stats,
 * Documentation/upmu-core.rst); 0 or -errno (-EINVAL: not that format).
 */
struct pmu_aux_stats {
	uint64_t drains, commits, bytes, commit_ns, max_ns;
};
int pmu_aux_stats(const char *pmu, struct pmu_aux_stats *st);

#endif
