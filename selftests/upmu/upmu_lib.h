/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for upmu selftests: simulator control, CPU hotplug, PMU removal.
 * The sysfs/perf_event_open helpers are in tools/lib/upmu_pmu.h.
 */
#ifndef __UPMU_LIB_H__
#define __UPMU_LIB_H__

#include <stdbool.h>
#include <stdint.h>

#include "upmu_pmu.h"

#define SIM_BUS		"/sys/bus/upmu_sim"
#define SIM_DEBUGFS	"/sys/kernel/debug/upmu_sim"

int sim_new(unsigned int id, unsigned int sockets, const char *opts);
int sim_del(unsigned int id);
/* printf into /sys/kernel/debug/upmu_sim/<id>/<file>; 0 or -errno */
int sim_ctl(unsigned int id, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sim_get(unsigned int id, const char *file, uint64_t *val);
/*
 * Counter @key of the device's stats file: catch_ups, locked_xfers or
 * calls (of its register accessors); 0 or -errno.
 */
int sim_stat(unsigned int id, const char *key, uint64_t *val);
/*
 * The calls of device @id's register accessors that @n opens and closes
 * of event @spec of @pmu take, one after another, into *@calls; 0 or
 * -errno (of an open, or of the stats file).
 */
int sim_calls_of_opens(unsigned int id, const char *pmu, const char *spec,
		       int n, uint64_t *calls);
/* Totals of flow @flow from the "flows" file. */
int sim_flow_totals(unsigned int id, unsigned int flow, uint64_t *txns,
		    uint64_t *bytes);

/*
 * How many times to go round a loop: the count in environment variable
 * @var if set, else @soak under UPMU_SOAK=1 (make soak), else @ci (make
 * check); like loops() in lib.sh.  A bad count in @var is fatal.
 */
unsigned long upmu_loops(const char *var, unsigned long ci, unsigned long soak);
/*
 * The time limit, in seconds, of a test that goes round a loop
 * upmu_loops(@var, @ci, @soak) times: @secs for make check's count,
 * scaled by how many times longer the loop runs than that (make soak's
 * count, or the count in @var), never less than @secs.  For
 * TEST_F_TIMEOUT(), whose limit is computed when the program starts.
 */
int upmu_loops_timeout(const char *var, unsigned long ci, unsigned long soak,
		       int secs);

int cpu_set_online(int cpu, bool online);
#define UPMU_MAX_CPUS	256
/*
 * Bring back online every CPU that was online when the program started:
 * the number of CPUs it onlined, or -errno.
 */
int cpus_restore_online(void);

/*
 * An event of @spec on @pmu, on @cpu (-1: the PMU's), in group @group,
 * read with its times enabled and running (read_times()); fd or -errno.
 */
int pmu_open_timed(const char *pmu, const char *spec, int cpu, int group);
/* Count, time enabled, time running of such an event; 0 or -1. */
int read_times(int fd, uint64_t v[3]);
/* The package (socket) of @cpu, or -1 (offline, or never up). */
int cpu_package(int cpu);

/* Is the running kernel @major.@minor or later? (true if it cannot tell) */
bool kernel_at_least(unsigned int major, unsigned int minor);

/*
 * Linux 6.15+ detaches open events from a PMU that goes away; older
 * kernels keep the PMU registered (dead) until they are closed.
 */
bool kernel_revokes_events(void);
/* Wait up to @ms for @pmu to disappear. */
bool pmu_gone_within(const char *pmu, unsigned int ms);
/*
 * A PMU removed before Linux 6.15 while its events are open stays
 * registered, dead (upmu-core.rst, "Removal"): its cpumask reads empty
 * and an event opened on one of its associated CPUs gets ENODEV.  0 if
 * @pmu is so, else what differs: -EEXIST (a CPU in its cpumask), or the
 * open's result (its fd closed).
 */
int pmu_dead_check(const char *pmu, const char *spec);

/* The NIC driver module upmu_nic, from $UPMU_MODDIR: loaded?, load, unload. */
bool nic_loaded(void);
int nic_load(void);
/* Load $UPMU_MODDIR/@mod.ko (loaded already is fine); 0 or -errno. */
int mod_load(const char *mod);
/*
 * Unload @mod (not loaded is fine), waiting up to 5 s for the events
 * that hold it to close (a test's close as its process exits); 0 or
 * -errno.
 */
int mod_unload_wait(const char *mod);
int nic_unload(void);
/* The 16-bit counter_id of data ID @id on simulated device SIM_ID, or 0. */
uint32_t nic_cid_of(unsigned int sim_id, uint64_t id);

#endif
