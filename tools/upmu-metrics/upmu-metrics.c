// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-metrics: compute the metrics of uncore PMU documents (bandwidth,
 * request rate, frequency, latency) per PMU instance.
 *
 * For each PMU instance the tool opens, as one group on the CPU of the
 * PMU's cpumask, the events that its family's formulas need (encodings
 * from sysfs, as perf does), counts for a while or per interval, and
 * prints each metric.  ELAPSED_TIME_IN_NS is the group's time_running.
 * A group that did not run the whole time is flagged, never scaled.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "metrics.h"
#include "upmu_libperf.h"
#include "upmu_pmu.h"
#include "upmu_run.h"

#define PROG		"upmu-metrics"
#define READ_FORMAT	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define METRIC_WIDTH	32

enum op_kind { OP_NONE, OP_ELAPSED, OP_EVENT, OP_METRIC };

struct operand {
	enum op_kind kind;
	int idx;		/* event or metric index in the family */
};

/* One reading of a group: its times and the counts by family event index. */
struct reading {
	uint64_t enabled;
	uint64_t running;
	uint64_t count[FAMILY_MAX_EVENTS];
};

struct pmu {
	const struct family *fam;
	char *name;
	int cpu;
	bool has_event[FAMILY_MAX_EVENTS];	/* events/<name> exists */
	bool used[FAMILY_MAX_EVENTS];		/* in the group */
	bool have[FAMILY_MAX_METRICS];		/* computable on this PMU */
	struct upmu_group grp;			/* libperf's evlist of the group */
	int fd[FAMILY_MAX_EVENTS];		/* each event's, for its id */
	uint64_t id[FAMILY_MAX_EVENTS];
	unsigned int nr;			/* events in the group */
	struct reading prev;
	struct reading cur;
};

struct options {
	bool list;		/* -l */
	bool verbose;		/* -v */
};

struct pmu_set {
	struct pmu *pmus;
	int nr;
};

static struct options opt;
static struct run_opts ro = { .prog = PROG };
static int name_width = 24;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [-a] [-C CPUS] [-I MS [--interval-count N]] [--timeout MS]\n"
"                    [-x SEP | -j] [-o FILE] [-l] [-v] [PMU-or-glob ...] [-- COMMAND ...]\n"
"\n"
"Count the events of each uncore PMU instance that its family's formulas\n"
"need, as one group on the CPU of the PMU's cpumask, and print the metrics:\n"
"average bandwidth (GB/s), request rate (per cycle), frequency (GHz) and\n"
"average latency (cycles, ns), named as the PMU's documentation names them.\n"
"\n"
"perf stat's options:\n"
"  -a          system-wide, as uncore counting always is (accepted)\n"
"  -C CPUS     only the PMUs that count on these CPUs (their cpumask)\n"
"  -I MS       print the metrics of every MS milliseconds (at least 10)\n"
"  --interval-count N  stop after N intervals\n"
"  --timeout MS  count for MS milliseconds (default 1000; with -I or a\n"
"              COMMAND, until interrupted or it exits)\n"
"  -x SEP      CSV: [time SEP] pmu SEP metric SEP value SEP percent-running\n"
"  -j          JSON, one object a line: [time,] pmu, metric, value, running\n"
"  -o FILE     write to FILE, not stdout (never through a symlink)\n"
"Its own:\n"
"  -l          list the PMUs, their event encodings and formulas; count nothing\n"
"  -v          say which metrics a PMU lacks events for\n"
"  -h          this help\n"
"\n"
"PMUs are names or shell globs of PMUs in %s;\n"
"all PMUs of the known families by default.  With a COMMAND, count while\n"
"it runs.  Exit status: the COMMAND's, else 0; 1 on errors, 2 on bad usage.\n"
"A metric whose denominator is 0 prints as \"-\".  A group that perf\n"
"multiplexed (it did not count the whole time) is scaled as perf scales\n"
"(counts x time enabled / time running) and flagged (\"running N%%\").\n"
"\n"
"Example:\n"
"  " PROG " -I 1000 --interval-count 3 'nvidia_ucf_pmu_*' nvidia_cmem_latency_pmu_0\n"
"  " PROG " -x, nvidia_cmem_latency_pmu_0 -- ./workload\n",
		pmu_devices_dir());
}

static void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The table */

static struct operand resolve(const struct family *f, int m, const char *name)
{
	int i;

	if (!strcmp(name, ELAPSED))
		return (struct operand){ OP_ELAPSED, 0 };
	for (i = 0; f->events[i]; i++)
		if (!strcmp(name, f->events[i]))
			return (struct operand){ OP_EVENT, i };
	for (i = 0; i < m; i++)
		if (!strcmp(name, f->metrics[i].name))
			return (struct operand){ OP_METRIC, i };
	return (struct operand){ OP_NONE, -1 };
}

/* Every operand of every formula names an event, ELAPSED or an earlier metric. */
static int check_table(void)
{
	size_t i;
	int m;

	for (i = 0; i < nr_families; i++) {
		const struct family *f = &families[i];

		for (m = 0; f->metrics[m].name; m++) {
			const struct metric_def *d = &f->metrics[m];

			if (resolve(f, m, d->num).kind == OP_NONE ||
			    resolve(f, m, d->den).kind == OP_NONE || !(d->scale > 0)) {
				err("internal error: %s metric %s: bad formula", f->name, d->name);
				return -1;
			}
		}
	}
	return 0;
}

static const struct family *family_of(const char *pmu)
{
	size_t i;

	for (i = 0; i < nr_families; i++) {
		size_t n = strlen(families[i].prefix);

		if (!strncmp(pmu, families[i].prefix, n) && isdigit((unsigned char)pmu[n]))
			return &families[i];
	}
	return NULL;
}

static void known_families(void)
{
	size_t i;

	fputs(PROG ": known PMU families:", stderr);
	for (i = 0; i < nr_families; i++)
		fprintf(stderr, " %s<N>", families[i].prefix);
	fputc('\n', stderr);
}

/* Selecting PMUs */

static int no_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int add_pmu(struct pmu **pmus, int *nr, const char *name)
{
	struct pmu *p;
	int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*pmus)[i].name, name))
			return 0;
	p = realloc(*pmus, (*nr + 1) * sizeof(**pmus));
	if (!p)
		return -ENOMEM;
	*pmus = p;
	p = &p[*nr];
	memset(p, 0, sizeof(*p));
	p->name = strdup(name);
	if (!p->name)
		return -ENOMEM;
	p->fam = family_of(name);
	for (i = 0; i < FAMILY_MAX_EVENTS; i++)
		p->fd[i] = -1;
	(*nr)++;
	return 0;
}

static int pmu_cmp(const void *a, const void *b)
{
	return strverscmp(((const struct pmu *)a)->name, ((const struct pmu *)b)->name);
}

/* The PMUs named by @names (all of known families if none), sorted. */
static int select_pmus(char **names, int nr_names, struct pmu **pmus, int *nr)
{
	const char *dir = pmu_devices_dir();
	struct dirent **ents;
	int n, i, j, ret = 0;

	n = scandir(dir, &ents, no_dots, versionsort);
	if (n < 0) {
		err("cannot list PMUs in %s: %s", dir, errno_str(errno));
		return -1;
	}
	for (i = 0; i < n && !ret && !nr_names; i++)
		if (family_of(ents[i]->d_name))
			ret = add_pmu(pmus, nr, ents[i]->d_name);
	if (!ret && !nr_names && !*nr) {
		err("no PMU of a known family in %s (are the PMU drivers loaded?)", dir);
		known_families();
		ret = -1;
	}
	for (j = 0; j < nr_names && !ret; j++) {
		const char *arg = names[j];
		bool found = false;

		if (!strpbrk(arg, "*?[")) {
			if (!pmu_exists(arg)) {
				err("unknown PMU '%s': not in %s", arg, dir);
				ret = -1;
			} else if (!family_of(arg)) {
				err("PMU '%s' is not of a family with known metrics", arg);
				known_families();
				ret = -1;
			} else {
				ret = add_pmu(pmus, nr, arg);
			}
			continue;
		}
		for (i = 0; i < n && !ret; i++) {
			if (fnmatch(arg, ents[i]->d_name, 0) || !family_of(ents[i]->d_name))
				continue;
			found = true;
			ret = add_pmu(pmus, nr, ents[i]->d_name);
		}
		if (!ret && !found) {
			err("no PMU of a known family matches '%s' in %s", arg, dir);
			known_families();
			ret = -1;
		}
	}
	if (ret == -ENOMEM)
		err("out of memory");
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (!ret)
		qsort(*pmus, *nr, sizeof(**pmus), pmu_cmp);
	return ret ? -1 : 0;
}

/* Which metrics a PMU can compute */

static bool operand_available(const struct pmu *p, struct operand op)
{
	switch (op.kind) {
	case OP_ELAPSED:
		return true;
	case OP_EVENT:
		return p->has_event[op.idx];
	case OP_METRIC:
		return p->have[op.idx];
	default:
		return false;
	}
}

/* Why metric @m is not available on @p: "no event in_wr_req", ... */
static void why_missing(const struct pmu *p, int m, char *buf, size_t len)
{
	const struct metric_def *d = &p->fam->metrics[m];
	const char *names[2] = { d->num, d->den };
	int i;

	for (i = 0; i < 2; i++) {
		struct operand op = resolve(p->fam, m, names[i]);

		if (operand_available(p, op))
			continue;
		if (op.kind == OP_EVENT)
			snprintf(buf, len, "no event %s", names[i]);
		else
			snprintf(buf, len, "needs %s", names[i]);
		return;
	}
	snprintf(buf, len, "?");
}

static int pmu_setup(struct pmu *p)
{
	const struct family *f = p->fam;
	char file[128], buf[256];
	int e, m, ret, nr = 0;

	p->cpu = pmu_cpu(p->name);
	if (p->cpu < 0) {
		err("%s: no CPU to count on (cpumask is empty or unreadable)", p->name);
		return -1;
	}
	for (e = 0; f->events[e]; e++) {
		snprintf(file, sizeof(file), "events/%s", f->events[e]);
		ret = pmu_read(p->name, file, buf, sizeof(buf));
		if (ret && ret != -ENOENT) {
			err("%s: cannot read %s: %s", p->name, file, errno_str(-ret));
			return -1;
		}
		p->has_event[e] = !ret;
	}
	for (m = 0; f->metrics[m].name; m++) {
		const struct metric_def *d = &f->metrics[m];
		struct operand num = resolve(f, m, d->num), den = resolve(f, m, d->den);

		p->have[m] = operand_available(p, num) && operand_available(p, den);
		if (!p->have[m]) {
			if (opt.verbose) {
				why_missing(p, m, buf, sizeof(buf));
				fprintf(stderr, PROG ": %s: no %s: %s\n", p->name, d->name, buf);
			}
			continue;
		}
		if (num.kind == OP_EVENT)
			p->used[num.idx] = true;
		if (den.kind == OP_EVENT)
			p->used[den.idx] = true;
	}
	for (e = 0; f->events[e]; e++)
		nr += p->used[e];
	if (!nr) {
		err("%s: none of the %s metrics can be computed: its events/ lacks what they need",
		    p->name, f->name);
		return -1;
	}
	return 0;
}

/* Opening and reading the groups */

static void open_hint(const struct pmu *p, int e)
{
	char buf[32] = "?";

	switch (e) {
	case EACCES:
	case EPERM:
		read_str("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
		err("system-wide counting needs root or CAP_PERFMON (perf_event_paranoid is %s)",
		    buf);
		break;
	case EINVAL:
		if (p->nr)
			err("%s refused a group of %u events: too many for its counters?",
			    p->name, p->nr + 1);
		break;
	case ENODEV:
	case ENOENT:
		err("%s went away, or its CPU %d is offline", p->name, p->cpu);
		break;
	default:
		break;
	}
}

/* The PMU's group on its CPU, through libperf (upmu_libperf.h). */
static int open_group(struct pmu *p)
{
	const struct family *f = p->fam;
	int e, fd, ret;

	p->nr = 0;
	ret = upmu_group_new(&p->grp, p->cpu);
	for (e = 0; f->events[e] && !ret; e++) {
		struct perf_event_attr attr;

		if (!p->used[e])
			continue;
		ret = pmu_attr(p->name, f->events[e], &attr);
		if (ret) {
			err("%s: cannot encode event %s from sysfs: %s", p->name, f->events[e],
			    errno_str(-ret));
			return -1;
		}
		attr.read_format = READ_FORMAT;
		ret = upmu_group_add(&p->grp, &attr, sizeof(attr));
	}
	if (ret) {
		err("%s: %s", p->name, errno_str(-ret));
		return -1;
	}
	for (e = 0; f->events[e]; e++) {
		if (!p->used[e])
			continue;
		fd = upmu_group_open_next(&p->grp);
		if (fd < 0) {
			err("%s: cannot open event %s on CPU %d: %s", p->name, f->events[e], p->cpu,
			    errno_str(-fd));
			open_hint(p, -fd);
			return -1;
		}
		p->fd[e] = fd;
		p->nr++;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &p->id[e])) {
			err("%s: event %s: %s", p->name, f->events[e], errno_str(errno));
			return -1;
		}
	}
	return 0;
}

static void close_group(struct pmu *p)
{
	int e;

	upmu_group_free(&p->grp);
	for (e = 0; e < FAMILY_MAX_EVENTS; e++)
		p->fd[e] = -1;
}

/*
 * Whether @p has left sysfs.  Linux 6.15+ revokes the events of a PMU that
 * goes away before its sysfs directory is gone: wait up to a second.
 */
static bool pmu_gone(const struct pmu *p)
{
	int i;

	for (i = 0; i < 10; i++) {
		if (!pmu_exists(p->name))
			return true;
		usleep(100000);
	}
	return false;
}

static int read_group(struct pmu *p)
{
	uint64_t buf[3 + 2 * FAMILY_MAX_EVENTS];
	ssize_t n = read(p->grp.leader_fd, buf, sizeof(buf));
	unsigned int i;
	int e;

	if (n < 0) {
		int e = errno;

		if (pmu_gone(p))
			err("%s went away while being counted", p->name);
		else
			err("%s: cannot read the group: %s", p->name, errno_str(e));
		return -1;
	}
	/* Linux 6.15+ detaches the events of a PMU that goes away from their group. */
	if (n >= (ssize_t)sizeof(uint64_t) && buf[0] != p->nr) {
		if (pmu_gone(p))
			err("%s went away while being counted (its group now reads %" PRIu64
			    " of %u events)", p->name, buf[0], p->nr);
		else
			err("%s: the group read returned %" PRIu64 " events, not %u", p->name,
			    buf[0], p->nr);
		return -1;
	}
	if (n < (ssize_t)((3 + 2 * p->nr) * sizeof(uint64_t))) {
		err("%s: short group read (%zd bytes for %u events)", p->name, n, p->nr);
		return -1;
	}
	p->cur.enabled = buf[1];
	p->cur.running = buf[2];
	for (i = 0; i < p->nr; i++) {
		for (e = 0; e < FAMILY_MAX_EVENTS; e++)
			if (p->fd[e] >= 0 && p->id[e] == buf[4 + 2 * i])
				break;
		if (e == FAMILY_MAX_EVENTS) {
			err("%s: group read returned an unknown event id", p->name);
			return -1;
		}
		p->cur.count[e] = buf[3 + 2 * i];
	}
	return 0;
}

/* Computing and printing */

/* Value of an operand over the interval @d; false if it has none. */
static bool operand_value(const struct reading *d, double scale, const double *mv,
			  const bool *mok, struct operand op, double *v)
{
	switch (op.kind) {
	case OP_ELAPSED:
		*v = (double)d->enabled;
		return true;
	case OP_EVENT:
		*v = (double)d->count[op.idx] * scale;
		return true;
	case OP_METRIC:
		*v = mv[op.idx];
		return mok[op.idx];
	default:
		return false;
	}
}

/*
 * One metric of @p over @d: @v if @ok (else "-"), @prec decimals in the
 * table.  A group that did not count the whole time was multiplexed: its
 * counts are scaled (print_pmu) and every value of it is flagged with the
 * share of the time it ran, rounded down (it never shows 100.00).
 */
static void print_row(double t, const struct pmu *p, const char *metric, double v, bool ok,
		      int prec, const struct reading *d)
{
	bool partial = d->running < d->enabled;
	double pct = 100.0;
	char value[64];

	if (partial)
		pct = floor(10000.0 * (double)d->running / (double)d->enabled) / 100.0;
	if (ro.json) {
		struct json_object *o = json_object_new_object();

		if (ro.interval_ms)
			run_json_num(o, "time", t, "%.6f");
		json_object_object_add(o, "pmu", json_object_new_string(p->name));
		json_object_object_add(o, "metric", json_object_new_string(metric));
		if (ok)
			run_json_num(o, "value", v, "%.9g");
		else
			json_object_object_add(o, "value", NULL);
		run_json_num(o, "running", pct, "%.2f");
		run_json_line(&ro, o);
		return;
	}
	if (!ok)
		snprintf(value, sizeof(value), "-");
	else if (ro.sep)
		snprintf(value, sizeof(value), "%.9g", v);
	else
		snprintf(value, sizeof(value), "%.*f", prec, v);
	if (ro.sep) {
		if (ro.interval_ms)
			fprintf(ro.out, "%.6f%s", t, ro.sep);
		fprintf(ro.out, "%s%s%s%s%s%s%.2f\n", p->name, ro.sep, metric, ro.sep, value, ro.sep,
			pct);
		return;
	}
	if (ro.interval_ms)
		fprintf(ro.out, "%14.6f  ", t);
	fprintf(ro.out, "%-*s  %-*s  %16s", name_width, p->name, METRIC_WIDTH, metric, value);
	if (partial)
		fprintf(ro.out, "  (multiplexed: running %.2f%%, scaled)", pct);
	fputc('\n', ro.out);
}

static void print_header(void)
{
	if (ro.sep || ro.json)
		return;
	if (ro.interval_ms)
		fprintf(ro.out, "%14s  ", "# time");
	fprintf(ro.out, "%-*s  %-*s  %16s\n", name_width, ro.interval_ms ? "pmu" : "# pmu", METRIC_WIDTH,
	       "metric", "value");
}

static void print_pmu(double t, struct pmu *p)
{
	const struct family *f = p->fam;
	double mv[FAMILY_MAX_METRICS];
	bool mok[FAMILY_MAX_METRICS];
	struct reading d;
	double scale;
	int e, m;

	d.enabled = p->cur.enabled - p->prev.enabled;
	d.running = p->cur.running - p->prev.running;
	/*
	 * perf's rule for a multiplexed group: its counts scaled by time
	 * enabled / time running, its time the time enabled.
	 */
	scale = d.running && d.running < d.enabled ? (double)d.enabled / (double)d.running : 1;
	for (e = 0; e < FAMILY_MAX_EVENTS; e++)
		d.count[e] = p->cur.count[e] - p->prev.count[e];
	p->prev = p->cur;

	print_row(t, p, ELAPSED, (double)d.enabled, true, 0, &d);
	for (m = 0; f->metrics[m].name; m++) {
		const struct metric_def *def = &f->metrics[m];
		double num, den;

		mok[m] = false;
		if (!p->have[m])
			continue;
		if (operand_value(&d, scale, mv, mok, resolve(f, m, def->num), &num) &&
		    operand_value(&d, scale, mv, mok, resolve(f, m, def->den), &den) && den != 0) {
			mv[m] = def->scale * num / den;
			mok[m] = isfinite(mv[m]);
		}
		print_row(t, p, def->name, mv[m], mok[m], def->prec, &d);
	}
}

static int print_all(double t, struct pmu *pmus, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (read_group(&pmus[i]))
			return -1;
	for (i = 0; i < nr; i++)
		print_pmu(t, &pmus[i]);
	fflush(ro.out);
	return 0;
}

/* -l: what would be counted, and how */
static int list_pmus(struct pmu *pmus, int nr)
{
	char buf[256];
	int i, e, m;

	for (i = 0; i < nr; i++) {
		struct pmu *p = &pmus[i];
		const struct family *f = p->fam;

		fprintf(ro.out, "%s: %s PMU, CPU %d\n", p->name, f->name, p->cpu);
		for (e = 0; f->events[e]; e++) {
			struct perf_event_attr attr;
			int ret;

			if (!p->used[e])
				continue;
			ret = pmu_attr(p->name, f->events[e], &attr);
			if (ret) {
				err("%s: cannot encode event %s from sysfs: %s", p->name,
				    f->events[e], errno_str(-ret));
				return -1;
			}
			fprintf(ro.out, "  event   %-*s type=%u config=0x%llx", METRIC_WIDTH, f->events[e],
			       attr.type, (unsigned long long)attr.config);
			if (attr.config1)
				fprintf(ro.out, " config1=0x%llx", (unsigned long long)attr.config1);
			if (attr.config2)
				fprintf(ro.out, " config2=0x%llx", (unsigned long long)attr.config2);
			fputc('\n', ro.out);
		}
		for (m = 0; f->metrics[m].name; m++) {
			const struct metric_def *d = &f->metrics[m];

			if (!p->have[m]) {
				why_missing(p, m, buf, sizeof(buf));
				fprintf(ro.out, "  dropped %-*s %s\n", METRIC_WIDTH, d->name, buf);
				continue;
			}
			fprintf(ro.out, "  metric  %-*s = ", METRIC_WIDTH, d->name);
			if (d->scale != 1.0)
				fprintf(ro.out, "%g * ", d->scale);
			fprintf(ro.out, "%s / %s\n", d->num, d->den);
		}
	}
	return 0;
}

/* Counting */

static int sample(void *ctx, double t)
{
	struct pmu_set *set = ctx;

	return print_all(t, set->pmus, set->nr);
}

/* Count from now until --timeout expires, the command exits or a signal comes. */
static int count(struct pmu *pmus, int nr, int *status)
{
	struct pmu_set set = { pmus, nr };
	int i;

	print_header();
	/* Enable the groups together, so that they cover the same time. */
	for (i = 0; i < nr; i++) {
		int ret = upmu_group_enable(&pmus[i].grp);

		if (ret) {
			err("%s: cannot enable the group: %s", pmus[i].name, errno_str(-ret));
			return -1;
		}
	}
	return run_loop(&ro, sample, &set, status);
}

static int parse_args(int argc, char **argv, char ***names, int *nr_names)
{
	static const struct option longopts[] = {
		RUN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *last_optarg = NULL;
	int c, i, shared;

	while ((c = getopt_long(argc, argv, "+" RUN_SHORTOPTS "lvh", longopts, NULL)) != -1) {
		last_optarg = optarg;
		shared = run_parse_opt(&ro, c, optarg);
		if (shared < 0)
			return -1;
		if (shared)
			continue;
		switch (c) {
		case 'l':
			opt.list = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	/* PMU names, then "--" and a command (not an option's argument "--") */
	*names = argv + optind;
	*nr_names = 0;
	if (!(optind > 1 && !strcmp(argv[optind - 1], "--") && argv[optind - 1] != last_optarg)) {
		for (i = optind; i < argc && strcmp(argv[i], "--"); i++) {
			if (argv[i][0] == '-') {
				err("options go before the PMU names: '%s'", argv[i]);
				return -1;
			}
			(*nr_names)++;
		}
		optind = i < argc ? i + 1 : i;
	}
	return run_parse_end(&ro, argc, argv, optind);
}

int main(int argc, char **argv)
{
	struct pmu *pmus = NULL;
	char **names;
	int i, j, nr = 0, nr_names, status = 0, ret = 1;

	if (parse_args(argc, argv, &names, &nr_names))
		return 2;
	if (check_table() || select_pmus(names, nr_names, &pmus, &nr))
		goto out;
	for (i = 0; i < nr; i++) {
		int len = strlen(pmus[i].name);

		if (pmu_setup(&pmus[i]))
			goto out;
		if (len > name_width)
			name_width = len;
	}
	/* -C: the PMUs that count on those CPUs (their cpumask's), as perf */
	for (i = j = 0; i < nr; i++) {
		if (run_cpu_wanted(&ro, pmus[i].cpu))
			pmus[j++] = pmus[i];
		else
			free(pmus[i].name);
	}
	if (!j && nr) {
		err("-C: none of the PMUs counts on those CPUs (each counts on its cpumask's CPU)");
		nr = 0;
		goto out;
	}
	nr = j;
	if (opt.list) {
		ret = list_pmus(pmus, nr) ? 1 : 0;
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (open_group(&pmus[i]))
			goto out;
	if (count(pmus, nr, &status))
		goto out;
	ret = run_exit_status(ro.cmd, status);
out:
	for (i = 0; i < nr; i++) {
		close_group(&pmus[i]);
		free(pmus[i].name);
	}
	free(pmus);
	if (run_close_output(&ro))
		ret = 1;
	return ret;
}
