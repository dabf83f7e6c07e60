// SPDX-License-Identifier: GPL-2.0
/* Userspace access to perf PMUs through sysfs (see upmu_pmu.h). */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "upmu_pmu.h"

int write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	return (size_t)n == len ? 0 : -EIO;
}

int read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

/* @buf as a number (any base strtoull takes): 0 or -EINVAL. */
static int parse_u64(const char *buf, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(buf, &end, 0);
	return errno || end == buf ? -EINVAL : 0;
}

int read_u64(const char *path, uint64_t *val)
{
	char buf[64];
	int ret = read_str(path, buf, sizeof(buf));

	return ret ? ret : parse_u64(buf, val);
}

const char *pmu_devices_dir(void)
{
	const char *dir = getenv("UPMU_PMU_DEVICES");

	return dir && *dir ? dir : PMU_DEVICES;
}

/* <devices dir>/<pmu>/<file> into @path; 0 or -ENAMETOOLONG. */
static int pmu_path(char *path, size_t len, const char *pmu, const char *file)
{
	int n = snprintf(path, len, "%s/%s/%s", pmu_devices_dir(), pmu, file);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* pmu_cache_files(): the files read, with what they said (or their error) */
#define PMU_CACHE_MAX	1024
static struct pmu_cached {
	char *path;
	char *val;
	int err;
} *pmu_cache;
static unsigned int pmu_cache_nr;
static bool pmu_cache_on;

bool pmu_exists(const char *pmu)
{
	char path[PATH_MAX];

	/* the PMU's type, asked again and again while a tool sets up */
	if (pmu_cache_on)
		return !pmu_read(pmu, "type", path, sizeof(path));
	return !pmu_path(path, sizeof(path), pmu, "type") && access(path, R_OK) == 0;
}

void pmu_cache_files(void)
{
	pmu_cache_on = true;
}

static bool pmu_cacheable(const char *file)
{
	return pmu_cache_on && (!strcmp(file, "type") || !strncmp(file, "format/", 7) ||
				!strncmp(file, "events/", 7));
}

int pmu_read(const char *pmu, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct pmu_cached *c;
	unsigned int i;
	int ret = pmu_path(path, sizeof(path), pmu, file);

	if (ret || !pmu_cacheable(file))
		return ret ? ret : read_str(path, buf, len);
	for (i = 0; i < pmu_cache_nr; i++) {
		c = &pmu_cache[i];
		if (strcmp(c->path, path))
			continue;
		if (!c->err && len)
			snprintf(buf, len, "%s", c->val);
		return c->err;
	}
	ret = read_str(path, buf, len);
	if (pmu_cache_nr == PMU_CACHE_MAX || (!ret && strlen(buf) + 1 >= len))
		return ret;	/* full, or maybe cut short: not kept */
	if (!pmu_cache) {
		pmu_cache = calloc(PMU_CACHE_MAX, sizeof(*pmu_cache));
		if (!pmu_cache)
			return ret;
	}
	c = &pmu_cache[pmu_cache_nr];
	c->path = strdup(path);
	c->val = strdup(ret ? "" : buf);
	c->err = ret;
	if (!c->path || !c->val) {
		free(c->path);
		free(c->val);
		return ret;
	}
	pmu_cache_nr++;
	return ret;
}

int pmu_cpu(const char *pmu)
{
	char buf[64];

	if (pmu_read(pmu, "cpumask", buf, sizeof(buf)) || !buf[0])
		return -1;
	return atoi(buf);
}

/* Apply "name=value" through format/<name> ("configN:lo-hi[,lo-hi]"). */
static int apply_term(const char *pmu, const char *name, uint64_t val,
		      struct perf_event_attr *attr)
{
	char file[128], fmt[128], *p, *save;
	uint64_t *word;
	unsigned int bit = 0;

	snprintf(file, sizeof(file), "format/%s", name);
	if (pmu_read(pmu, file, fmt, sizeof(fmt)))
		return -ENOENT;
	p = strchr(fmt, ':');
	if (!p)
		return -EINVAL;
	*p++ = '\0';
	if (!strcmp(fmt, "config"))
		word = (uint64_t *)&attr->config;
	else if (!strcmp(fmt, "config1"))
		word = (uint64_t *)&attr->config1;
	else if (!strcmp(fmt, "config2"))
		word = (uint64_t *)&attr->config2;
	else
		return -EINVAL;

	for (p = strtok_r(p, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		unsigned int lo, hi, b;

		if (sscanf(p, "%u-%u", &lo, &hi) != 2)
			hi = lo = atoi(p);
		for (b = lo; b <= hi; b++, bit++)
			if (val & (1ULL << bit))
				*word |= 1ULL << b;
	}
	/* Like perf: a value wider than the field is an error. */
	if (bit < 64 && (val >> bit))
		return -ERANGE;
	return 0;
}

static int apply_spec(const char *pmu, char *spec, struct perf_event_attr *attr,
		      int depth)
{
	char *tok, *save;

	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		int ret;

		if (eq) {
			*eq = '\0';
			ret = apply_term(pmu, tok, strtoull(eq + 1, NULL, 0), attr);
		} else {
			char file[128], ev[256];

			snprintf(file, sizeof(file), "events/%s", tok);
			if (depth || pmu_read(pmu, file, ev, sizeof(ev)))
				return -ENOENT;
			ret = apply_spec(pmu, ev, attr, depth + 1);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int pmu_attr(const char *pmu, const char *spec, struct perf_event_attr *attr)
{
	char buf[PATH_MAX];
	uint64_t type;

	if (pmu_read(pmu, "type", buf, sizeof(buf)) || parse_u64(buf, &type))
		return -ENODEV;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	snprintf(buf, sizeof(buf), "%s", spec);
	return apply_spec(pmu, buf, attr, 0);
}

int perf_open(struct perf_event_attr *attr, int pid, int cpu, int group)
{
	int fd = syscall(SYS_perf_event_open, attr, pid, cpu, group, 0);

	return fd < 0 ? -errno : fd;
}

int pmu_open(const char *pmu, const char *spec, int group)
{
	struct perf_event_attr attr;
	int ret = pmu_attr(pmu, spec, &attr);

	if (ret)
		return ret;
	return perf_open(&attr, -1, pmu_cpu(pmu), group);
}

int count_read(int fd, uint64_t *val)
{
	ssize_t n = read(fd, val, sizeof(*val));

	if (n < 0)
		return -errno;
	return n == sizeof(*val) ? 0 : -ENODATA;
}

void cpu_pin(struct cpu_pin *p, int cpu)
{
	cpu_set_t one;

	if (cpu < 0 || cpu >= CPU_SETSIZE || (p->moved && p->cpu == cpu))
		return;
	if (!p->saved) {
		if (sched_getaffinity(0, sizeof(p->orig), &p->orig))
			return;
		p->saved = true;
	}
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (!sched_setaffinity(0, sizeof(one), &one)) {
		p->moved = true;
		p->cpu = cpu;
	}
}

void cpu_unpin(struct cpu_pin *p)
{
	if (p->moved)
		sched_setaffinity(0, sizeof(p->orig), &p->orig);
	p->moved = false;
}

int pmu_aux_stats(const char *pmu, struct pmu_aux_stats *st)
{
	char path[256], buf[512];
	unsigned long long v[8];
	int ret;

	snprintf(path, sizeof(path), "/sys/kernel/debug/upmu/%s/aux_stats", pmu);
	ret = read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "drains %llu commits %llu bytes %llu commit_ns %llu max_ns %llu "
		   "ticks %llu no_area %llu budget %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		return -EINVAL;
	st->drains = v[0];
	st->commits = v[1];
	st->bytes = v[2];
	st->commit_ns = v[3];
	st->max_ns = v[4];
	st->ticks = v[5];
	st->no_area = v[6];
	st->budget = v[7];
	return 0;
}

int pmu_read_stats(const char *pmu, struct pmu_read_stats *st)
{
	char path[256], buf[256];
	unsigned long long v[4];
	int ret;

	snprintf(path, sizeof(path), "/sys/kernel/debug/upmu/%s/read_stats", pmu);
	ret = read_str(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "in_section %llu waited %llu gave_up %llu max_wait_ns %llu",
		   &v[0], &v[1], &v[2], &v[3]) != 4)
		return -EINVAL;
	st->in_section = v[0];
	st->waited = v[1];
	st->gave_up = v[2];
	st->max_wait_ns = v[3];
	return 0;
}
