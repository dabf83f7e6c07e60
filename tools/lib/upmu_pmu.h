/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace access to perf PMUs through sysfs, the way perf does it:
 * event names from events/, terms through format/, the CPU from cpumask.
 * Shared by the upmu tools and selftests.
 */
#ifndef __UPMU_PMU_H__
#define __UPMU_PMU_H__

#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PMU_DEVICES	"/sys/bus/event_source/devices"

/* Write @s to @path; 0 or -errno. */
int write_str(const char *path, const char *s);
/* Read @path into @buf (trailing newline stripped); 0 or -errno. */
int read_str(const char *path, char *buf, size_t len);
/*
 * The same from an open file, from its start: a sysfs attribute held open
 * reads afresh each time, without the path walk of an open (not for a
 * file that cannot seek, such as debugfs's simple attributes: -ESPIPE).
 */
int pread_str(int fd, char *buf, size_t len);
int read_u64(const char *path, uint64_t *val);

/*
 * The directory of the PMUs: $UPMU_PMU_DEVICES if set (tests point it at
 * a fake tree), else PMU_DEVICES.
 */
const char *pmu_devices_dir(void);

bool pmu_exists(const char *pmu);
/* A PMU attribute file opened for reading (O_CLOEXEC): its fd or -errno. */
int pmu_open_file(const char *pmu, const char *file);
/* PMU attribute file contents, e.g. pmu_read("x", "events/cycles", ...) */
int pmu_read(const char *pmu, const char *file, char *buf, size_t len);
/*
 * From now on pmu_read() keeps what it read of a PMU's type, format/ and
 * events/ files and answers from memory: for a tool that encodes many
 * events of PMUs that stay registered while it runs (a PMU registered
 * again may get another type: not for tests that create and delete them).
 */
void pmu_cache_files(void);
/* First CPU of the PMU's cpumask, or -1 (none, or not a CPU list). */
int pmu_cpu(const char *pmu);

/*
 * A CPU list ("0-3,8,10-11", as perf's -C and sysfs's cpumask write it)
 * into @set: 0, or -1 if it is not one (empty, a range going down, a CPU
 * of CPU_SETSIZE or more, anything after it but one newline).
 */
int cpulist_parse(const char *s, cpu_set_t *set);

/* The CPUs of the PMU's cpumask into @set: 0, or -1. */
int pmu_cpus(const char *pmu, cpu_set_t *set);

/*
 * Fill @attr from "event_or_term,term=val,..." exactly as perf would:
 * named events from events/, terms through format/ (a later term replaces
 * an earlier one's bits; an event's "term=?" must be given).  0 or
 * -errno: -ENODEV (no PMU, or a type that is not a number), -ENOENT (no
 * such event or format), -EINVAL (a value that is not a number, a "?"
 * not given, a format perf would not parse), -ERANGE (a value wider than
 * its format).
 */
int pmu_attr(const char *pmu, const char *spec, struct perf_event_attr *attr);

/* perf_event_open; returns fd or -errno. */
int perf_open(struct perf_event_attr *attr, int pid, int cpu, int group);
/* pmu_attr + perf_open on the PMU's cpu; fd or -errno. */
int pmu_open(const char *pmu, const char *spec, int group);
/* Read the count of @fd; 0 or -errno (with -ENODATA for a short read). */
int count_read(int fd, uint64_t *val);

/*
 * Opening, enabling, reading or closing an event of CPU N from another
 * CPU costs an IPI to N and a wait for its answer; on N itself the perf
 * core does it in place.  A tool that handles many events of a few CPUs
 * moves to each of them in turn, as perf stat does (its --affinity):
 *
 *	struct cpu_pin pin = CPU_PIN_INIT;
 *
 *	cpu_pin(&pin, cpu);	   ... the perf calls on cpu's events
 *	cpu_pin(&pin, cpu2);	   ... on cpu2's
 *	cpu_unpin(&pin);	   back on the CPUs it had
 *
 * A move to the CPU it is pinned to already costs nothing.  Best effort:
 * where the thread may not move (a cpuset), it stays and the calls work
 * as before, with IPIs.
 */
struct cpu_pin {
	cpu_set_t orig;
	bool saved;	/* orig holds the CPUs it had */
	bool moved;	/* it runs pinned, on cpu */
	int cpu;
};
#define CPU_PIN_INIT	{ .saved = false }
void cpu_pin(struct cpu_pin *p, int cpu);
void cpu_unpin(struct cpu_pin *p);

/*
 * What the drains of upmu AUX PMU @pmu cost (debugfs upmu/<pmu>/aux_stats,
 * Documentation/upmu-core.rst); 0 or -errno (-EINVAL: not that format).
 */
struct pmu_aux_stats {
	uint64_t drains, commits, bytes, commit_ns, max_ns, ticks, no_area, budget;
};
int pmu_aux_stats(const char *pmu, struct pmu_aux_stats *st);

/*
 * The reads of upmu PMU @pmu that met a locked section (debugfs
 * upmu/<pmu>/read_stats, Documentation/upmu-core.rst); 0 or -errno.
 */
struct pmu_read_stats {
	uint64_t in_section, waited, gave_up, max_wait_ns;
};
int pmu_read_stats(const char *pmu, struct pmu_read_stats *st);

#endif
