// SPDX-License-Identifier: GPL-2.0
/* Helpers for upmu selftests. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "upmu_lib.h"

int sim_new(unsigned int id, unsigned int sockets, const char *opts)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%u %u %s", id, sockets, opts ? opts : "");
	return write_str(SIM_BUS "/new_device", buf);
}

int sim_del(unsigned int id)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", id);
	return write_str(SIM_BUS "/del_device", buf);
}

int sim_ctl(unsigned int id, const char *file, const char *fmt, ...)
{
	char path[256], buf[512];
	va_list ap;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/%s", id, file);
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return write_str(path, buf);
}

int sim_get(unsigned int id, const char *file, uint64_t *val)
{
	char path[256];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/%s", id, file);
	return read_u64(path, val);
}

int sim_stat(unsigned int id, const char *key, uint64_t *val)
{
	char path[256], line[256], *p;
	size_t klen = strlen(key);
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/stats", id);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fgets(line, sizeof(line), f))
		for (p = strtok(line, " \n"); p; p = strtok(NULL, " \n"))
			if (!strncmp(p, key, klen) && p[klen] == '=') {
				ret = sscanf(p + klen + 1, "%" SCNu64, val) == 1 ? 0 : -EPROTO;
				break;
			}
	fclose(f);
	return ret;
}

int sim_calls_of_opens(unsigned int id, const char *pmu, const char *spec,
		       int n, uint64_t *calls)
{
	uint64_t c0, c1;
	int i, fd, err;

	err = sim_stat(id, "calls", &c0);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		fd = pmu_open(pmu, spec, -1);
		if (fd < 0)
			return fd;
		close(fd);
	}
	err = sim_stat(id, "calls", &c1);
	if (!err)
		*calls = c1 - c0;
	return err;
}

int sim_flow_totals(unsigned int id, unsigned int flow, uint64_t *txns,
		    uint64_t *bytes)
{
	char path[256], line[512];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/flows", id);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned int fid;
		char *t, *b;

		if (sscanf(line, "id=%u", &fid) != 1 || fid != flow)
			continue;
		t = strstr(line, " txns=");
		b = strstr(line, " bytes=");
		if (!t || !b)
			break;
		*txns = strtoull(t + 6, NULL, 0);
		*bytes = strtoull(b + 7, NULL, 0);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

unsigned long upmu_loops(const char *var, unsigned long ci, unsigned long soak)
{
	const char *v = getenv(var), *s = getenv("UPMU_SOAK");
	unsigned long n;
	char *end;

	if (!v || !*v)
		return s && !strcmp(s, "1") ? soak : ci;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || !n || *v == '-') {
		fprintf(stderr, "%s=%s is not a count\n", var, v);
		exit(1);
	}
	return n;
}

int upmu_loops_timeout(const char *var, unsigned long ci, unsigned long soak,
		       int secs)
{
	unsigned long n = upmu_loops(var, ci, soak);
	/* The harness waits in poll(), in milliseconds of an int. */
	double t = (double)secs * n / ci, max = INT_MAX / 1000;

	if (n <= ci)
		return secs;
	if (t >= max)
		return max;
	return (int)t + ((int)t < t);
}

int cpu_set_online(int cpu, bool online)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_str(path, online ? "1" : "0");
}

/* 1 if @cpu is online, 0 if offline, -errno if it has no such file. */
static int cpu_online(int cpu)
{
	char path[128];
	uint64_t v;
	int ret;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	ret = read_u64(path, &v);
	return ret ? ret : v != 0;
}

/* CPUs that were online when the program started. */
static bool online_at_start[UPMU_MAX_CPUS];

static void __attribute__((constructor)) record_online_cpus(void)
{
	int cpu;

	for (cpu = 0; cpu < UPMU_MAX_CPUS; cpu++)
		online_at_start[cpu] = cpu_online(cpu) == 1;
}

int cpus_restore_online(void)
{
	int cpu, ret, n = 0;

	for (cpu = 0; cpu < UPMU_MAX_CPUS; cpu++) {
		if (!online_at_start[cpu] || cpu_online(cpu) != 0)
			continue;
		ret = cpu_set_online(cpu, true);
		if (ret)
			return ret;
		n++;
	}
	return n;
}

int pmu_open_timed(const char *pmu, const char *spec, int cpu, int group)
{
	struct perf_event_attr attr;
	int ret = pmu_attr(pmu, spec, &attr);

	if (ret)
		return ret;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return perf_open(&attr, -1, cpu < 0 ? pmu_cpu(pmu) : cpu, group);
}

int read_times(int fd, uint64_t v[3])
{
	return read(fd, v, 3 * sizeof(v[0])) == 3 * sizeof(v[0]) ? 0 : -1;
}

int cpu_package(int cpu)
{
	char path[96];
	uint64_t v;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
	return read_u64(path, &v) ? -1 : (int)v;
}

bool kernel_at_least(unsigned int major, unsigned int minor)
{
	unsigned int ma = 0, mi = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &ma, &mi) != 2)
		return true;
	return ma > major || (ma == major && mi >= minor);
}

bool kernel_revokes_events(void)
{
	return kernel_at_least(6, 15);
}

int pmu_dead_check(const char *pmu, const char *spec)
{
	struct perf_event_attr attr;
	char buf[256];
	cpu_set_t set;
	int cpu, fd;

	if (pmu_cpu(pmu) >= 0)
		return -EEXIST;
	if (pmu_read(pmu, "associated_cpus", buf, sizeof(buf)) || cpulist_parse(buf, &set))
		return -EINVAL;
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set); cpu++)
		;
	fd = pmu_attr(pmu, spec, &attr);
	if (fd)
		return fd;
	fd = perf_open(&attr, -1, cpu, -1);
	if (fd >= 0) {
		close(fd);
		return fd;
	}
	return fd == -ENODEV ? 0 : fd;
}

bool pmu_gone_within(const char *pmu, unsigned int ms)
{
	for (;;) {
		if (!pmu_exists(pmu))
			return true;
		if (ms < 10)
			return false;
		usleep(10000);
		ms -= 10;
	}
}

bool nic_loaded(void)
{
	return !access("/sys/module/upmu_nic/initstate", F_OK);
}

int nic_load(void)
{
	return nic_loaded() ? 0 : mod_load("upmu_nic");
}

int mod_load(const char *mod)
{
	const char *dir = getenv("UPMU_MODDIR");
	char path[PATH_MAX];
	int fd, ret = 0;

	if (!dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s.ko", dir, mod);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
		ret = -errno;
	close(fd);
	return ret;
}

int mod_unload_wait(const char *mod)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (!syscall(SYS_delete_module, mod, O_NONBLOCK) || errno == ENOENT)
			return 0;
		usleep(10000);
	}
	return -errno;
}

int nic_unload(void)
{
	return syscall(SYS_delete_module, "upmu_nic", O_NONBLOCK) ? -errno : 0;
}

uint32_t nic_cid_of(unsigned int sim_id, uint64_t id)
{
	char path[128], line[256];
	unsigned long long did;
	unsigned int cid, ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/nic/counters", sim_id);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %x", &did, &cid) == 2 && did == id)
			ret = cid;
	fclose(f);
	return ret;
}
