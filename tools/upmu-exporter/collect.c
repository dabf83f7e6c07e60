// SPDX-License-Identifier: GPL-2.0
/*
 * The PMUs behind the series: which PMUs the configuration names, their
 * events (one per CPU of the PMU's cpumask, perf's way), and the samples
 * read from them.
 *
 * Counters never go backwards.  The kernel accumulates each hardware
 * counter into the event's 64-bit count across wraps; the exporter
 * serves that count unscaled (time_running < time_enabled is served as
 * it is, in upmu_pmu_{enabled,running}_seconds_total, never scaled).  A
 * PMU that goes away (its sysfs entry, or another PMU in its place: a
 * new entry, another inode; or dead: an empty cpumask, before 6.15 only,
 * see upmu-core.rst "Removal")
 * has its events closed and its series end; one that comes (back) is
 * opened afresh and its series start at 0.  Before Linux 6.15 a removed
 * PMU stays registered while any event of its module is open, and its
 * name cannot be registered again: there every event is closed at once
 * and the PMUs still there reopened, their series carrying on from what
 * they had (a base added to the new counts).
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "exporter.h"
#include "upmu_iio.h"
#include "upmu_pmu.h"
#include "upmu_t410pci.h"

#define MAX_ERRNO	134
#define RETRY_NS	1000000000ULL	/* a PMU that failed to open: next try */
#define MAX_EXPAND	8		/* ports, parts, links of one series */

struct ev {
	const struct cfg_series *cs;
	char labels[256];
	char spec[192];			/* as opened: placeholders filled in */
	int fd;
	int cpu;
	double factor;
	bool is_float;
	uint64_t base, last;		/* count = base + last read */
	uint64_t base_en, base_run, en, run;
};

struct inst {
	char name[96];
	ino_t ino;			/* its sysfs entry's: another PMU, another */
	struct ev *ev;
	size_t nev;
	bool up;
	int err;			/* errno of the failed open, if !up */
	uint64_t tried_ns;
	unsigned int left_out;
	bool seen;
	int mask_fd;			/* its cpumask, held open (inst_alive()), or -1 */
};

struct info {
	char labels[256];
};

struct collector {
	const struct config *cfg;
	struct inst **inst;
	size_t n;
	bool revokes;			/* Linux >= 6.15: perf detaches events */
	uint64_t read_errors[MAX_ERRNO + 1];
	struct info *info;		/* upmu_pcie_device_info */
	size_t ninfo;
	bool info_stale;
	FILE *log;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool kernel_revokes(void)
{
	struct utsname u;
	unsigned int maj, min;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 15);
}

struct collector *collector_new(const struct config *c)
{
	struct collector *col = calloc(1, sizeof(*col));

	if (!col)
		return NULL;
	col->cfg = c;
	col->revokes = kernel_revokes();
	col->info_stale = true;
	col->log = stderr;
	return col;
}

static void inst_close(struct inst *in)
{
	size_t i;

	for (i = 0; i < in->nev; i++)
		if (in->ev[i].fd >= 0)
			close(in->ev[i].fd);
	free(in->ev);
	in->ev = NULL;
	in->nev = 0;
	in->up = false;
}

static void inst_free(struct inst *in)
{
	inst_close(in);
	if (in->mask_fd >= 0)
		close(in->mask_fd);
	free(in);
}

void collector_free(struct collector *col)
{
	size_t i;

	if (!col)
		return;
	for (i = 0; i < col->n; i++)
		inst_free(col->inst[i]);
	free(col->inst);
	free(col->info);
	free(col);
}

/* Does any series name @pmu? */
static bool wanted(const struct config *c, const char *pmu)
{
	unsigned int i;

	for (i = 0; i < c->nr_series; i++)
		if (pmu_matches(pmu, c->series[i].pmu))
			return true;
	return false;
}

/* The label of a PMU's instance number after @prefix, e.g. "socket" */
static bool name_num(const char *pmu, const char *prefix, unsigned int *v)
{
	size_t l = strlen(prefix);

	return !strncmp(pmu, prefix, l) && isdigit((unsigned char)pmu[l]) &&
	       sscanf(pmu + l, "%u", v) == 1;
}

/*
 * The labels every series of @pmu on the @idx-th CPU of its cpumask has:
 * the PMU, its socket (a Tegra410 PMU's from its name, an Ice Lake-X's
 * uncore PMU spans the dies: the die of that CPU, the cpumask's order),
 * a PCIE PMU's RC, an IIO stack, a NIC's serial.
 */
static void base_labels(char *buf, size_t len, const char *pmu, unsigned int idx)
{
	unsigned int v, rc;
	size_t n;

	n = snprintf(buf, len, "pmu=\"%s\"", pmu);
	if (!strncmp(pmu, "upmu_nic_", 9)) {
		snprintf(buf + n, len - n, ",nic=\"%s\"", pmu + 9);
		return;
	}
	if (!strncmp(pmu, "nvidia_", 7)) {
		const char *s = strstr(pmu, "_pmu_");

		if (s && sscanf(s, "_pmu_%u", &v) == 1)
			n += snprintf(buf + n, len - n, ",socket=\"%u\"", v);
		if (s && sscanf(s, "_pmu_%*u_rc_%u", &rc) == 1)
			n += snprintf(buf + n, len - n, ",rc=\"%u\"", rc);
		return;
	}
	n += snprintf(buf + n, len - n, ",socket=\"%u\"", idx);
	if (name_num(pmu, "uncore_iio_free_running_", &v) || name_num(pmu, "uncore_iio_", &v) ||
	    name_num(pmu, "uncore_irp_", &v) || name_num(pmu, "uncore_m2pcie_", &v))
		snprintf(buf + n, len - n, ",stack=\"%u\"", v);
}

/* @spec with @hole replaced by @val into @out */
static void fill(char *out, size_t len, const char *spec, const char *hole, const char *val)
{
	const char *h = hole ? strstr(spec, hole) : NULL;

	if (!h) {
		snprintf(out, len, "%s", spec);
		return;
	}
	snprintf(out, len, "%.*s%s%s", (int)(h - spec), spec, val, h + strlen(hole));
}

/*
 * Base units: the series' x=, else a named event's sysfs unit and scale
 * (MiB -> bytes, ns -> seconds), else 1.
 */
static double unit_factor(const char *pmu, const struct cfg_series *cs, const char *spec)
{
	char ev[64], file[80], unit[32], scale[32];
	size_t l = strcspn(spec, ",=");
	double s;

	if (cs->factor > 0)
		return cs->factor;
	if (spec[l] == '=' || l >= sizeof(ev))
		return 1;
	memcpy(ev, spec, l);
	ev[l] = 0;
	snprintf(file, sizeof(file), "events/%s.unit", ev);
	if (pmu_read(pmu, file, unit, sizeof(unit)))
		return 1;
	if (!strcmp(unit, "ns"))
		return 1e-9;
	snprintf(file, sizeof(file), "events/%s.scale", ev);
	if (strcmp(unit, "MiB") || pmu_read(pmu, file, scale, sizeof(scale)))
		return 1;
	/* a scale that is no number, or absurd, is not believed */
	s = strtod(scale, NULL) * 1048576.0;
	return isfinite(s) && s > 0.5 && s <= 1e12 ? round(s) : 1;
}

struct opener {
	struct collector *col;
	struct inst *in;
	unsigned int used;		/* general counters taken on this CPU */
	unsigned int budget;
	const struct iio_topo *iio;
};

/* Open one event; 0, or -errno. */
static int open_one(struct opener *o, const struct cfg_series *cs, const char *spec,
		    int cpu, const char *labels)
{
	struct perf_event_attr attr;
	struct ev *e;
	int fd, ret;

	if (!cs->fixed && o->budget && o->used >= o->budget) {
		o->in->left_out++;
		return 0;
	}
	ret = pmu_attr(o->in->name, spec, &attr);
	if (ret)
		return ret;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = perf_open(&attr, -1, cpu, -1);
	if (fd < 0)
		return fd;
	e = realloc(o->in->ev, (o->in->nev + 1) * sizeof(*e));
	if (!e) {
		close(fd);
		return -ENOMEM;
	}
	o->in->ev = e;
	e = &e[o->in->nev++];
	memset(e, 0, sizeof(*e));
	e->cs = cs;
	snprintf(e->spec, sizeof(e->spec), "%s", spec);
	e->fd = fd;
	e->cpu = cpu;
	e->factor = unit_factor(o->in->name, cs, spec);
	e->is_float = e->factor != floor(e->factor);
	snprintf(e->labels, sizeof(e->labels), "%s", labels);
	if (!cs->fixed)
		o->used++;
	return 0;
}

/* The parts of IIO stack @stack on die @die that have a root port; all if not known. */
static unsigned int iio_parts(const struct iio_topo *t, unsigned int die, unsigned int stack)
{
	unsigned int i, mask = 0;

	if (!t->nr_st)
		return 0xff;
	for (i = 0; i < t->nr_fn; i++) {
		const struct iio_fn *f = &t->fn[i];

		if (f->st && f->st->socket == die && f->st->stack == stack && f->root_port &&
		    f->part >= 0)
			mask |= 1U << f->part;
	}
	return mask;
}

/* Open @cs with @hole of its event filled in by @val, labelled @lab. */
static int open_at(struct opener *o, const struct cfg_series *cs, int cpu, const char *hole,
		   const char *val, const char *lab)
{
	char spec[256];

	fill(spec, sizeof(spec), cs->spec, hole, val);
	return open_one(o, cs, spec, cpu, lab);
}

/* Open the series @cs on the @idx-th CPU of @o->in; 0, or -errno for the PMU. */
static int open_series(struct opener *o, const struct cfg_series *cs, int cpu,
		       unsigned int idx, const char *bl)
{
	const char *pmu = o->in->name;
	char lab[256], val[32];
	struct t410_rc rc;
	unsigned int i, v, stack;
	int ret = 0, p;

	switch (cs->per) {
	case PER_NONE:
		return open_one(o, cs, cs->spec, cpu, bl);
	case PER_RP:
		if (t410_rc_load(pmu, &rc))
			return -ENOENT;
		for (i = 0; !ret && i < rc.nr_rp; i++) {
			snprintf(val, sizeof(val), "%#x", 1U << rc.rp[i]);
			snprintf(lab, sizeof(lab), "%s,rp=\"%u\"", bl, rc.rp[i]);
			ret = open_at(o, cs, cpu, "%rp_mask", val, lab);
		}
		return ret;
	case PER_BDF:
		if (t410_rc_load(pmu, &rc))
			return -ENOENT;
		/* one BDF comparator per root complex: the first configured BDF below it */
		for (i = 0, v = 0; !ret && i < o->col->cfg->nr_bdf; i++) {
			const struct cfg_bdf *b = &o->col->cfg->bdf[i];

			p = t410_rc_port_of(&rc, b->seg, b->bus);
			if (p < 0)
				continue;
			if (v++) {
				o->in->left_out++;
				continue;
			}
			snprintf(val, sizeof(val), "%#x", b->bus << 8 | b->dev << 3 | b->fn);
			snprintf(lab, sizeof(lab), "%s,rp=\"%u\",bdf=\"%04x:%02x:%02x.%x\"", bl,
				 rc.rp[p], b->seg, b->bus, b->dev, b->fn);
			ret = open_at(o, cs, cpu, "%bdf", val, lab);
		}
		return ret;
	case PER_PART:
		if (!name_num(pmu, "uncore_iio_free_running_", &stack) &&
		    !name_num(pmu, "uncore_iio_", &stack))
			return -ENOENT;
		v = iio_parts(o->iio, idx, stack);
		for (i = 0; !ret && i < IIO_NR_PARTS; i++) {
			if (!(v & 1U << i))
				continue;
			snprintf(val, sizeof(val), "%u", i);
			snprintf(lab, sizeof(lab), "%s,part=\"%u\"", bl, i);
			ret = open_at(o, cs, cpu, "%part", val, lab);
		}
		return ret;
	case PER_PORT:
	case PER_LINK:
		/* as many as the device takes: the first it refuses ends them */
		for (i = 0; i < MAX_EXPAND; i++) {
			const char *k = cs->per == PER_PORT ? "port" : "link";

			snprintf(val, sizeof(val), "%u", i);
			snprintf(lab, sizeof(lab), "%s,%s=\"%u\"", bl, k, i);
			ret = open_at(o, cs, cpu, cs->per == PER_PORT ? "%port" : "%link", val, lab);
			if (ret == -EINVAL && i)
				return 0;
			if (ret)
				return ret;
		}
		return 0;
	}
	return -EINVAL;
}

/* Errors of one series that leave the PMU up: it has no such event or term. */
static bool series_error(int err)
{
	return err == -ENOENT || err == -ERANGE;
}

static void inst_open(struct collector *col, struct inst *in, const struct iio_topo *iio)
{
	struct opener o = { .col = col, .in = in, .iio = iio };
	char bl[160];
	cpu_set_t cpus;
	unsigned int i, idx = 0;
	int cpu, ret = 0;

	in->tried_ns = now_ns();
	in->left_out = 0;
	if (pmu_cpus(in->name, &cpus) || !CPU_COUNT(&cpus)) {
		in->err = ENODEV;
		return;
	}
	o.budget = cfg_counters(col->cfg, in->name);
	for (cpu = 0; cpu < CPU_SETSIZE && !ret; cpu++) {
		if (!CPU_ISSET(cpu, &cpus))
			continue;
		base_labels(bl, sizeof(bl), in->name, idx);
		o.used = 0;
		for (i = 0; i < col->cfg->nr_series && !ret; i++) {
			const struct cfg_series *cs = &col->cfg->series[i];

			if (!pmu_matches(in->name, cs->pmu))
				continue;
			ret = open_series(&o, cs, cpu, idx, bl);
			if (series_error(ret)) {
				if (!idx)
					fprintf(col->log, "upmu-exporter: %s: series %s: %s: left out\n",
						in->name, cs->name, strerror(-ret));
				in->left_out++;
				ret = 0;
			}
		}
		idx++;
	}
	if (ret) {
		if (in->err != -ret)
			fprintf(col->log, "upmu-exporter: %s: %s (up 0, tried again every second)\n",
				in->name, strerror(-ret));
		inst_close(in);
		in->err = -ret;
		return;
	}
	in->up = true;
	in->err = 0;
}

/*
 * Is @in, whose sysfs entry is still there and the same (its inode), not
 * dead either?  From 6.15 a removed PMU goes at once (its events
 * revoked); before, it may stay, dead, with an empty cpumask.  The
 * cpumask is held open and read again from its start at each look (a
 * removed PMU's reads fail): an open's path walk, through the bus's
 * symlink, was most of a rescan's cost, at every scrape.
 */
static bool inst_alive(const struct collector *col, struct inst *in)
{
	char mask[64];

	if (col->revokes)
		return true;
	if (in->mask_fd < 0)
		in->mask_fd = pmu_open_file(in->name, "cpumask");
	return in->mask_fd >= 0 && !pread_str(in->mask_fd, mask, sizeof(mask)) && mask[0];
}

static int name_cmp(const void *a, const void *b)
{
	return strverscmp((*(struct inst *const *)a)->name, (*(struct inst *const *)b)->name);
}

/* The counts so far of @in's events: their bases for the reopened ones */
static void inst_save(struct inst *in, uint64_t **save, size_t *n)
{
	size_t i;

	*save = malloc((in->nev ? in->nev : 1) * 3 * sizeof(**save));
	*n = *save ? in->nev : 0;
	for (i = 0; i < *n; i++) {
		(*save)[3 * i] = in->ev[i].base + in->ev[i].last;
		(*save)[3 * i + 1] = in->ev[i].base_en + in->ev[i].en;
		(*save)[3 * i + 2] = in->ev[i].base_run + in->ev[i].run;
	}
}

static void inst_restore(struct inst *in, const uint64_t *save, size_t n)
{
	size_t i;

	/* the same configuration and PMU give the same events in the same order */
	for (i = 0; i < n && i < in->nev; i++) {
		in->ev[i].base = save[3 * i];
		in->ev[i].base_en = save[3 * i + 1];
		in->ev[i].base_run = save[3 * i + 2];
	}
}

static void load_topology(struct iio_topo *iio)
{
	iio_load_stacks(iio);
	iio_load_functions(iio, false);
}

static void reopen_all(struct collector *col, struct iio_topo *iio)
{
	size_t i, n;
	uint64_t *save;

	for (i = 0; i < col->n; i++) {
		struct inst *in = col->inst[i];

		if (!in->up)
			continue;
		inst_save(in, &save, &n);
		inst_close(in);
		inst_open(col, in, iio);
		if (in->up && save)
			inst_restore(in, save, n);
		free(save);
	}
}

void collector_rescan(struct collector *col)
{
	DIR *d = opendir(pmu_devices_dir());
	struct iio_topo iio = { 0 };
	bool gone = false, topo = false;
	struct dirent *e;
	size_t i, j;

	if (!d)
		return;
	for (i = 0; i < col->n; i++)
		col->inst[i]->seen = false;
	while ((e = readdir(d))) {
		struct inst *in, **v;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(in->name) ||
		    !wanted(col->cfg, e->d_name))
			continue;
		for (i = 0; i < col->n; i++)
			if (!strcmp(col->inst[i]->name, e->d_name))
				break;
		if (i < col->n) {
			/* another entry of the same name: the PMU went and came */
			col->inst[i]->seen = col->inst[i]->ino == e->d_ino;
			continue;
		}
		in = calloc(1, sizeof(*in));
		v = realloc(col->inst, (col->n + 1) * sizeof(*v));
		if (!in || !v) {
			free(in);
			if (v)
				col->inst = v;
			break;
		}
		col->inst = v;
		memcpy(in->name, e->d_name, strlen(e->d_name) + 1);	/* fits: checked */
		in->ino = e->d_ino;
		in->mask_fd = -1;
		in->seen = true;
		col->inst[col->n++] = in;
	}
	closedir(d);

	/* the PMUs gone (or dead, or another in their place): their series end */
	for (i = 0, j = 0; i < col->n; i++) {
		struct inst *in = col->inst[i];

		if (in->seen && (!in->up || inst_alive(col, in))) {
			col->inst[j++] = in;
			continue;
		}
		gone = true;
		inst_free(in);
	}
	col->n = j;
	if (gone)
		col->info_stale = true;
	if (gone && !col->revokes) {
		load_topology(&iio);
		topo = true;
		reopen_all(col, &iio);
	}

	/* the PMUs new, and those down since a second */
	for (i = 0; i < col->n; i++) {
		struct inst *in = col->inst[i];

		if (in->up || (in->tried_ns && now_ns() - in->tried_ns < RETRY_NS))
			continue;
		if (!topo) {
			load_topology(&iio);
			topo = true;
		}
		inst_open(col, in, &iio);
		col->info_stale = true;
	}
	if (topo)
		iio_free(&iio);
	if (col->n)
		qsort(col->inst, col->n, sizeof(*col->inst), name_cmp);
}

/* ---- upmu_pcie_device_info: which PMU, RC, RP or stack, part sees a BDF */

static int info_add(struct collector *col, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int info_add(struct collector *col, const char *fmt, ...)
{
	struct info *v = realloc(col->info, (col->ninfo + 1) * sizeof(*v));
	va_list ap;

	if (!v)
		return -ENOMEM;
	col->info = v;
	va_start(ap, fmt);
	vsnprintf(v[col->ninfo++].labels, sizeof(v->labels), fmt, ap);
	va_end(ap);
	return 0;
}

struct rc_ctx {
	struct collector *col;
	struct t410_rc *rc;
	size_t nrc;
};

static void map_t410(struct rc_ctx *x, const char *bdf)
{
	unsigned int seg, bus, dev, fn;
	size_t i;
	int p;

	if (!iio_parse_bdf(bdf, &seg, &bus, &dev, &fn))
		return;
	for (i = 0; i < x->nrc; i++) {
		p = t410_rc_port_of(&x->rc[i], seg, bus);
		if (p >= 0) {
			info_add(x->col, "bdf=\"%04x:%02x:%02x.%x\",pmu=\"%s\",socket=\"%u\",rc=\"%u\",rp=\"%u\"",
				 seg, bus, dev, fn, x->rc[i].pmu, x->rc[i].socket, x->rc[i].rc,
				 x->rc[i].rp[p]);
			return;
		}
	}
}

static void map_t410_line(void *ctx, const char *line)
{
	char fn[32];

	if (!strstr(line, " stack=") && sscanf(line, "%31s", fn) == 1)
		map_t410(ctx, fn);
}

static void info_load(struct collector *col)
{
	struct rc_ctx x = { .col = col };
	struct iio_topo iio = { 0 };
	struct dirent *e;
	size_t i;
	DIR *d;

	col->ninfo = 0;
	x.rc = calloc(col->n ? col->n : 1, sizeof(*x.rc));
	if (!x.rc)
		return;
	for (i = 0; i < col->n; i++)
		if (col->inst[i]->up && !t410_rc_load(col->inst[i]->name, &x.rc[x.nrc]))
			x.nrc++;
	if (x.nrc) {
		sim_pci_lines(map_t410_line, &x);
		d = opendir("/sys/bus/pci/devices");
		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				map_t410(&x, e->d_name);
		if (d)
			closedir(d);
	}
	free(x.rc);
	load_topology(&iio);
	for (i = 0; i < iio.nr_fn; i++) {
		const struct iio_fn *f = &iio.fn[i];
		char part[12] = "-";

		if (f->part >= 0)
			snprintf(part, sizeof(part), "%d", f->part);
		info_add(col, "bdf=\"%04x:%02x:%02x.%x\",pmu=\"%s\",socket=\"%u\",stack=\"%u\",part=\"%s\"",
			 f->seg, f->bus, f->dev, f->fn, f->st->pmu, f->st->socket, f->st->stack,
			 part);
	}
	iio_free(&iio);
	col->info_stale = false;
}

/* ---- reading ------------------------------------------------------------ */

static const char *errno_name(int e)
{
	static char buf[16];

	switch (e) {
	case EIO: return "EIO";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOSPC: return "ENOSPC";
	case EMFILE: return "EMFILE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODATA: return "ENODATA";
	}
	snprintf(buf, sizeof(buf), "%d", e);
	return buf;
}

static int read_ev(struct collector *col, struct ev *e)
{
	uint64_t v[3];
	ssize_t n = read(e->fd, v, sizeof(v));

	if (n != sizeof(v)) {
		int err = n < 0 ? errno : ENODATA;

		col->read_errors[err > MAX_ERRNO ? 0 : err]++;
		return -err;
	}
	e->last = v[0];
	e->en = v[1];
	e->run = v[2];
	return 0;
}

/*
 * Read every open event, CPU by CPU: on its own CPU an event is read in
 * place, from another one through an IPI (perf stat's --affinity).
 */
static void read_all(struct collector *col)
{
	struct cpu_pin pin = CPU_PIN_INIT;
	int cpu = -1, next;
	size_t i, j;

	for (;;) {
		/* the lowest CPU above @cpu that has events */
		next = INT32_MAX;
		for (i = 0; i < col->n; i++)
			for (j = 0; col->inst[i]->up && j < col->inst[i]->nev; j++) {
				int c = col->inst[i]->ev[j].cpu;

				if (c > cpu && c < next)
					next = c;
			}
		if (next == INT32_MAX)
			break;
		cpu = next;
		cpu_pin(&pin, cpu);
		for (i = 0; i < col->n; i++)
			for (j = 0; col->inst[i]->up && j < col->inst[i]->nev; j++)
				if (col->inst[i]->ev[j].cpu == cpu)
					read_ev(col, &col->inst[i]->ev[j]);
	}
	cpu_unpin(&pin);
}

int collector_read(struct collector *col, struct samples *s)
{
	size_t i, j;
	int ret = 0;

	if (col->info_stale)
		info_load(col);
	read_all(col);
	ret |= samples_add(s, "upmu_exporter_build_info", "upmu-exporter's version", M_GAUGE,
			   false, 1, 0, "version=\"%s\"", EXPORTER_VERSION);
	for (i = 0; i < col->n; i++) {
		struct inst *in = col->inst[i];
		double en = 0, run = 0;

		ret |= samples_add(s, "upmu_pmu_up",
				   "1 if the PMU's events are open and read, 0 if not (upmu_pmu_open_errno says why)",
				   M_GAUGE, false, in->up, 0, "pmu=\"%s\"", in->name);
		if (!in->up) {
			ret |= samples_add(s, "upmu_pmu_open_errno",
					   "The errno that opening the PMU's events failed with",
					   M_GAUGE, false, in->err, 0, "pmu=\"%s\",errno=\"%s\"",
					   in->name, errno_name(in->err));
			continue;
		}
		ret |= samples_add(s, "upmu_pmu_series_left_out",
				   "Series of the configuration not served on this PMU (no such event, or beyond its counters)",
				   M_GAUGE, false, in->left_out, 0, "pmu=\"%s\"", in->name);
		for (j = 0; j < in->nev; j++) {
			struct ev *e = &in->ev[j];
			uint64_t c;

			c = e->base + e->last;
			en += e->base_en + e->en;
			run += e->base_run + e->run;
			ret |= samples_add(s, e->cs->metric, e->cs->help, M_COUNTER, e->is_float,
					   c * (uint64_t)e->factor, c * e->factor, "%s", e->labels);
		}
		/* the means over the PMU's events */
		if (in->nev) {
			en /= in->nev;
			run /= in->nev;
		}
		ret |= samples_add(s, "upmu_pmu_enabled_seconds",
				   "Time the PMU's events were enabled (mean over its events)",
				   M_COUNTER, true, 0, en / 1e9, "pmu=\"%s\"", in->name);
		ret |= samples_add(s, "upmu_pmu_running_seconds",
				   "Time the PMU's events counted, mean over them (below enabled: perf multiplexed them; counts are never scaled)",
				   M_COUNTER, true, 0, run / 1e9, "pmu=\"%s\"", in->name);
	}
	for (i = 0; i <= MAX_ERRNO; i++)
		if (col->read_errors[i])
			ret |= samples_add(s, "upmu_exporter_read_errors",
					   "Event reads that failed, by errno", M_COUNTER, false,
					   col->read_errors[i], 0, "errno=\"%s\"", errno_name(i));
	for (i = 0; i < col->ninfo; i++)
		ret |= samples_add(s, "upmu_pcie_device_info",
				   "A PCIe function and the PMU, root complex and root port, or IIO stack and part, that see it",
				   M_GAUGE, false, 1, 0, "%s", col->info[i].labels);
	return ret ? -ENOMEM : 0;
}

void collector_list_events(struct collector *col, FILE *f)
{
	size_t i, j;

	for (i = 0; i < col->n; i++) {
		const struct inst *in = col->inst[i];

		/* perf -a opens each on every CPU of the cpumask: the first CPU's */
		for (j = 0; j < in->nev && in->ev[j].cpu == in->ev[0].cpu; j++)
			fprintf(f, "%s/%s/\n", in->name, in->ev[j].spec);
	}
}

void collector_report(struct collector *col, FILE *f)
{
	size_t i, j, k;

	for (i = 0; i < col->n; i++) {
		const struct inst *in = col->inst[i];

		if (!in->up) {
			fprintf(f, "%s: down: %s\n", in->name, strerror(in->err));
			continue;
		}
		for (j = 0, k = 0; j < in->nev; j++)
			k += !in->ev[j].cs->fixed;
		fprintf(f, "%s: %zu events (%zu on general counters, budget %u per CPU)", in->name,
			in->nev, k, cfg_counters(col->cfg, in->name));
		if (in->left_out)
			fprintf(f, ", %u left out", in->left_out);
		fputc('\n', f);
	}
}
