/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for upmu selftests: simulator control and perf_event_open. */
#ifndef __UPMU_LIB_H__
#define __UPMU_LIB_H__

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#define SIM_BUS		"/sys/bus/upmu_sim"
#define SIM_DEBUGFS	"/sys/kernel/debug/upmu_sim"
#define PMU_DEVICES	"/sys/bus/event_source/devices"

/* Write @s to @path; 0 or -errno. */
int write_str(const char *path, const char *s);
/* Read @path into @buf (trailing newline stripped); 0 or -errno. */
int read_str(const char *path, char *buf, size_t len);
int read_u64(const char *path, uint64_t *val);

int sim_new(unsigned int id, unsigned int sockets, const char *opts);
int sim_del(unsigned int id);
/* printf into /sys/kernel/debug/upmu_sim/<id>/<file>; 0 or -errno */
int sim_ctl(unsigned int id, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sim_get(unsigned int id, const char *file, uint64_t *val);
/* Totals of flow @flow from the "flows" file. */
int sim_flow_totals(unsigned int id, unsigned int flow, uint64_t *txns,
		    uint64_t *bytes);

bool pmu_exists(const char *pmu);
/* PMU attribute file contents, e.g. pmu_read("x", "events/cycles", ...) */
int pmu_read(const char *pmu, const char *file, char *buf, size_t len);
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

int cpu_set_online(int cpu, bool online);

/*
 * Linux 6.15+ detaches open events from a PMU that goes away; older
 * kernels keep the PMU registered (dead) until they are closed.
 */
bool kernel_revokes_events(void);
/* Wait up to @ms for @pmu to disappear. */
bool pmu_gone_within(const char *pmu, unsigned int ms);

#endif
