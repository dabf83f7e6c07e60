/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting tools open, group, enable and close their events through
 * libperf (tools/lib/perf of the 7.2 tree, built once by
 * scripts/libperf.sh).  What libperf lacks stays upmu's: event names and
 * terms through sysfs (upmu_pmu.c), moving to each die's CPU (cpu_pin),
 * one read of a whole group (libperf's perf_evsel__read of a group gives
 * the leader's value only) and, here, the fd that read needs, for which
 * libperf has no public accessor.
 */
#ifndef __UPMU_LIBPERF_H__
#define __UPMU_LIBPERF_H__

#include <stddef.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

/* The fd of an open @evsel on its first CPU and thread, or -1. */
int upmu_evsel_fd(struct perf_evsel *evsel);

/*
 * A group of events on one CPU: libperf's evlist with its first event as
 * the leader.  upmu_group_new() takes the CPU; upmu_group_add() the
 * events in order (the leader first, disabled: the group is enabled as a
 * whole); upmu_group_open_next() opens the next event not yet open and
 * returns its fd, or -errno (so a caller can say which event failed).
 */
struct upmu_group {
	struct perf_evlist *evlist;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct perf_evsel *next;	/* the next to open */
	int nr;				/* events added */
	int leader_fd;			/* -1 until the leader is open */
};

int upmu_group_new(struct upmu_group *g, int cpu);
/*
 * @attr of @size bytes: the tools' struct perf_event_attr is the one of
 * the system's <linux/perf_event.h>, libperf's that of the 7.2 tree, which
 * may be longer; the event gets a copy of libperf's size, zero-filled.
 */
int upmu_group_add(struct upmu_group *g, const void *attr, size_t size);
int upmu_group_open_next(struct upmu_group *g);
int upmu_group_enable(struct upmu_group *g);
void upmu_group_free(struct upmu_group *g);

#endif
