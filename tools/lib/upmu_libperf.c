// SPDX-License-Identifier: GPL-2.0
/*
 * Groups of events through libperf (see upmu_libperf.h).  This file alone
 * reads libperf's internals (an evsel's fd array): it is built with the
 * 7.2 tree's tools/ headers, which those need, its uapi ones included:
 * struct perf_evsel holds a struct perf_event_attr of the tree's size.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <internal/evsel.h>
#include <internal/xyarray.h>

#include "upmu_libperf.h"

int upmu_evsel_fd(struct perf_evsel *evsel)
{
	if (!evsel->fd)
		return -1;
	return *(int *)xyarray__entry(evsel->fd, 0, 0);
}

int upmu_group_new(struct upmu_group *g, int cpu)
{
	char list[16];

	memset(g, 0, sizeof(*g));
	g->leader_fd = -1;
	snprintf(list, sizeof(list), "%d", cpu);
	g->cpus = perf_cpu_map__new(list);
	g->threads = perf_thread_map__new_dummy();
	g->evlist = perf_evlist__new();
	if (!g->cpus || !g->threads || !g->evlist) {
		upmu_group_free(g);
		return -ENOMEM;
	}
	return 0;
}

int upmu_group_add(struct upmu_group *g, const void *attr, size_t size)
{
	struct perf_event_attr a = {};
	struct perf_evsel *evsel;

	memcpy(&a, attr, size < sizeof(a) ? size : sizeof(a));
	a.size = sizeof(a);
	a.disabled = !g->nr;
	evsel = perf_evsel__new(&a);
	if (!evsel)
		return -ENOMEM;
	perf_evlist__add(g->evlist, evsel);
	if (!g->nr++)
		g->next = evsel;
	return 0;
}

int upmu_group_open_next(struct upmu_group *g)
{
	struct perf_evsel *evsel = g->next;
	int ret, fd;

	if (!evsel)
		return -ENOENT;
	/* before the first open: every event's leader is the first, one group */
	if (g->leader_fd < 0)
		perf_evlist__set_leader(g->evlist);
	ret = perf_evsel__open(evsel, g->cpus, g->threads);
	if (ret)
		return ret < 0 ? ret : -EINVAL;
	fd = upmu_evsel_fd(evsel);
	/* libperf opens without O_CLOEXEC: a command the tool runs must not inherit them */
	if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC))
		return -EBADF;
	if (g->leader_fd < 0)
		g->leader_fd = fd;
	g->next = perf_evlist__next(g->evlist, evsel);
	return fd;
}

int upmu_group_enable(struct upmu_group *g)
{
	struct perf_evsel *leader = perf_evlist__next(g->evlist, NULL);

	return leader ? perf_evsel__enable(leader) : -ENOENT;
}

void upmu_group_free(struct upmu_group *g)
{
	if (g->evlist) {
		perf_evlist__close(g->evlist);
		perf_evlist__delete(g->evlist);
	}
	perf_cpu_map__put(g->cpus);
	perf_thread_map__put(g->threads);
	memset(g, 0, sizeof(*g));
	g->leader_fd = -1;
}
