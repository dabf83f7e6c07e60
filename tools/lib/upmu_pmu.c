// SPDX-License-Identifier: GPL-2.0
/* Userspace access to perf PMUs through sysfs (see upmu_pmu.h). */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

/* @n bytes read into @buf (or -errno): @buf ends there, without newlines */
static int str_end(char *buf, ssize_t n)
{
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

int pread_str(int fd, char *buf, size_t len)
{
	return str_end(buf, pread(fd, buf, len - 1, 0));
}

/* With read(), not pread(): debugfs's simple attributes are not seekable. */
int read_str(const char *path, char *buf, size_t len)
{
	int fd, ret;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	ret = str_end(buf, read(fd, buf, len - 1));
	close(fd);
	return ret;
}

/*
 * @buf as a number, as perf's event parser takes one (decimal, 0x hex, or
 * octal with a leading 0; no sign, no space, nothing after it): 0 or
 * -EINVAL (also for a number past 2^64 - 1).
 */
static int parse_u64(const char *buf, uint64_t *val)
{
	char *end;

	if (*buf < '0' || *buf > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	return errno || *end ? -EINVAL : 0;
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

int pmu_open_file(const char *pmu, const char *file)
{
	char path[PATH_MAX];
	int ret = pmu_path(path, sizeof(path), pmu, file);

	if (ret)
		return ret;
	ret = open(path, O_RDONLY | O_CLOEXEC);
	return ret < 0 ? -errno : ret;
}

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
	cpu_set_t set;
	int cpu;

	if (pmu_cpus(pmu, &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

int cpulist_parse(const char *s, cpu_set_t *set)
{
	const char *p = s;

	CPU_ZERO(set);
	do {
		unsigned long a, b;
		char *end;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		a = b = strtoul(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -1;
			b = strtoul(end + 1, &end, 10);
		}
		if (errno || a > b || b >= CPU_SETSIZE)
			return -1;
		for (; a <= b; a++)
			CPU_SET(a, set);
		p = end;
	} while (*p++ == ',');
	/* p is past the character that ended the list */
	return !p[-1] || (p[-1] == '\n' && !*p) ? 0 : -1;
}

int pmu_cpus(const char *pmu, cpu_set_t *set)
{
	char buf[4096];

	if (pmu_read(pmu, "cpumask", buf, sizeof(buf)))
		return -1;
	return cpulist_parse(buf, set);
}

/* A bit of a format ("config:lo-hi,bit"): 0-63, or -1. */
static int format_bit(const char *s, char **end)
{
	unsigned long b;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	b = strtoul(s, end, 10);
	return errno || b > 63 ? -1 : (int)b;
}

/*
 * Set term @name to @val through format/<name> ("configN:lo-hi[,lo-hi]"),
 * whose bits it replaces, as perf's does: a later term wins.  0, -ENOENT
 * (no such format), -EINVAL (a format perf would not parse, wider than 64
 * bits, or of another config word) or -ERANGE (@val wider than it).
 */
static int apply_term(const char *pmu, const char *name, uint64_t val,
		      struct perf_event_attr *attr)
{
	char file[128], fmt[128], *p, *save, *end;
	unsigned int bit = 0;
	uint64_t *word;

	if (strchr(name, '/'))
		return -EINVAL;
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
		int lo = format_bit(p, &end), hi = lo, b;

		if (lo >= 0 && *end == '-')
			hi = format_bit(end + 1, &end);
		if (lo < 0 || hi < lo || *end)
			return -EINVAL;
		for (b = lo; b <= hi; b++, bit++) {
			if (bit == 64)
				return -EINVAL;
			*word &= ~(1ULL << b);
			if ((val >> bit) & 1)
				*word |= 1ULL << b;
		}
	}
	if (!bit)
		return -EINVAL;
	/* Like perf: a value wider than the field is an error. */
	if (bit < 64 && (val >> bit))
		return -ERANGE;
	return 0;
}

/*
 * An event's "term=?" (its events/ file asks the user for the value) and
 * the user's terms: each asked for must be given.
 */
#define SPEC_MAX_TERMS	16
struct spec_terms {
	char asked[SPEC_MAX_TERMS][64];
	char given[SPEC_MAX_TERMS][64];
	unsigned int nr_asked, nr_given;
};

static int term_note(char (*list)[64], unsigned int *nr, const char *name)
{
	if (*nr == SPEC_MAX_TERMS || strlen(name) >= sizeof(list[0]))
		return -E2BIG;
	strcpy(list[(*nr)++], name);
	return 0;
}

static int apply_spec(const char *pmu, char *spec, struct perf_event_attr *attr,
		      int depth, struct spec_terms *t)
{
	char *tok, *save;

	for (tok = strtok_r(spec, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t val;
		int ret;

		if (eq) {
			*eq++ = '\0';
			if (depth && !strcmp(eq, "?")) {
				ret = term_note(t->asked, &t->nr_asked, tok);
			} else if (parse_u64(eq, &val)) {
				ret = -EINVAL;
			} else {
				ret = apply_term(pmu, tok, val, attr);
				if (!ret && !depth)
					ret = term_note(t->given, &t->nr_given, tok);
			}
		} else {
			char file[128], ev[256];

			snprintf(file, sizeof(file), "events/%s", tok);
			if (depth || strchr(tok, '/') || pmu_read(pmu, file, ev, sizeof(ev)))
				return -ENOENT;
			ret = apply_spec(pmu, ev, attr, depth + 1, t);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int pmu_attr(const char *pmu, const char *spec, struct perf_event_attr *attr)
{
	struct spec_terms t = { .nr_asked = 0 };
	char buf[PATH_MAX];
	unsigned int i, j;
	uint64_t type;
	int ret;

	if (pmu_read(pmu, "type", buf, sizeof(buf)) || parse_u64(buf, &type))
		return -ENODEV;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	snprintf(buf, sizeof(buf), "%s", spec);
	ret = apply_spec(pmu, buf, attr, 0, &t);
	if (ret)
		return ret;
	/* perf: "Required parameter '...' not specified" */
	for (i = 0; i < t.nr_asked; i++) {
		for (j = 0; j < t.nr_given && strcmp(t.asked[i], t.given[j]); j++)
			;
		if (j == t.nr_given)
			return -EINVAL;
	}
	return 0;
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

/* debugfs upmu/<pmu>/<file> into @buf; 0 or -errno. */
static int upmu_debugfs_read(const char *pmu, const char *file, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/kernel/debug/upmu/%s/%s", pmu, file);
	return read_str(path, buf, len);
}

int pmu_aux_stats(const char *pmu, struct pmu_aux_stats *st)
{
	char buf[512];
	int ret = upmu_debugfs_read(pmu, "aux_stats", buf, sizeof(buf));

	if (ret)
		return ret;
	return sscanf(buf, "drains %" SCNu64 " commits %" SCNu64 " bytes %" SCNu64
		      " commit_ns %" SCNu64 " max_ns %" SCNu64 " ticks %" SCNu64
		      " no_area %" SCNu64 " budget %" SCNu64,
		      &st->drains, &st->commits, &st->bytes, &st->commit_ns, &st->max_ns,
		      &st->ticks, &st->no_area, &st->budget) == 8 ? 0 : -EINVAL;
}

int pmu_read_stats(const char *pmu, struct pmu_read_stats *st)
{
	char buf[256];
	int ret = upmu_debugfs_read(pmu, "read_stats", buf, sizeof(buf));

	if (ret)
		return ret;
	return sscanf(buf, "in_section %" SCNu64 " waited %" SCNu64 " gave_up %" SCNu64
		      " max_wait_ns %" SCNu64,
		      &st->in_section, &st->waited, &st->gave_up, &st->max_wait_ns) == 4 ?
		0 : -EINVAL;
}
