// SPDX-License-Identifier: GPL-2.0
/* Ice Lake-X IIO stacks and the PCI functions below them (upmu_iio.h). */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upmu_iio.h"
#include "upmu_pmu.h"

#define SIM_DEBUGFS	"/sys/kernel/debug/upmu_sim"
#define PCI_DEVICES	"/sys/bus/pci/devices"

/* PCIe generation -> GT/s per lane */
static const double gen_gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };

int iio_load_stacks(struct iio_topo *t)
{
	unsigned int k, x;

	memset(t, 0, sizeof(*t));
	for (k = 0; k < IIO_MAX_STACKS; k++) {
		char pmu[32], file[16], buf[32];

		snprintf(pmu, sizeof(pmu), "uncore_iio_%u", k);
		if (!pmu_exists(pmu))
			continue;
		for (x = 0; x < IIO_MAX_SOCKETS; x++) {
			struct iio_stack *s = &t->st[t->nr_st];

			snprintf(file, sizeof(file), "die%u", x);
			if (pmu_read(pmu, file, buf, sizeof(buf)) ||
			    sscanf(buf, "%x:%x", &s->seg, &s->bus) != 2)
				continue;
			snprintf(s->pmu, sizeof(s->pmu), "%s", pmu);
			s->socket = x;
			s->stack = k;
			t->nr_st++;
			if (x + 1 > t->nr_sockets)
				t->nr_sockets = x + 1;
		}
	}
	return 0;
}

const struct iio_stack *iio_stack_of(const struct iio_topo *t, unsigned int seg,
				     unsigned int bus)
{
	const struct iio_stack *best = NULL;
	unsigned int i;

	for (i = 0; i < t->nr_st; i++) {
		const struct iio_stack *s = &t->st[i];

		if (s->seg == seg && s->bus <= bus && (!best || s->bus > best->bus))
			best = s;
	}
	return best;
}

const struct iio_stack *iio_stack_at(const struct iio_topo *t, unsigned int socket,
				     unsigned int stack)
{
	unsigned int i;

	for (i = 0; i < t->nr_st; i++)
		if (t->st[i].socket == socket && t->st[i].stack == stack)
			return &t->st[i];
	return NULL;
}

bool iio_parse_bdf(const char *s, unsigned int *seg, unsigned int *bus, unsigned int *dev,
		   unsigned int *fn)
{
	char tail;

	return sscanf(s, "%x:%x:%x.%x%c", seg, bus, dev, fn, &tail) == 4 &&
	       *seg <= 0xffff && *bus <= 0xff && *dev <= 0x1f && *fn <= 7;
}

const struct iio_fn *iio_fn_find(const struct iio_topo *t, unsigned int seg, unsigned int bus,
				 unsigned int dev, unsigned int fn)
{
	unsigned int i;

	for (i = 0; i < t->nr_fn; i++) {
		const struct iio_fn *f = &t->fn[i];

		if (f->seg == seg && f->bus == bus && f->dev == dev && f->fn == fn)
			return f;
	}
	return NULL;
}

static bool link_trained(const struct iio_fn *f)
{
	return f->link_gts > 0 && f->link_width;
}

double iio_link_max_mbps(const struct iio_fn *f)
{
	if (link_trained(f))
		return f->link_gts * 1000 / 8 * f->link_width * 2;
	return f->gts * 1000 / 8 * f->width * 2;
}

bool iio_link_below_max(const struct iio_fn *f, char *buf, size_t len)
{
	if (!link_trained(f) || !(f->gts > 0) || !f->width ||
	    (f->link_gts >= f->gts && f->link_width >= f->width))
		return false;
	snprintf(buf, len, "link trained at %g GT/s x%u, max %g GT/s x%u", f->link_gts,
		 f->link_width, f->gts, f->width);
	return true;
}

static struct iio_fn *add_fn(struct iio_topo *t, const char *bdf)
{
	unsigned int seg, bus, dev, fn;
	const struct iio_stack *st;
	struct iio_fn *f;

	if (!iio_parse_bdf(bdf, &seg, &bus, &dev, &fn) ||
	    iio_fn_find(t, seg, bus, dev, fn))
		return NULL;
	st = iio_stack_of(t, seg, bus);
	if (!st)
		return NULL;
	f = realloc(t->fn, (t->nr_fn + 1) * sizeof(*f));
	if (!f)
		return NULL;
	t->fn = f;
	f = &f[t->nr_fn++];
	*f = (struct iio_fn){ .seg = seg, .bus = bus, .dev = dev, .fn = fn, .st = st,
			      .part = -1 };
	return f;
}

void sim_pci_lines(void (*fn)(void *ctx, const char *line), void *ctx)
{
	DIR *d = opendir(SIM_DEBUGFS);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[512], line[256];
		FILE *fp;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SIM_DEBUGFS "/%s/pci_devices", e->d_name);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp))
			fn(ctx, line);
		fclose(fp);
	}
	closedir(d);
}

/*
 * A link in a pci_devices line: " PREFIXgen=G PREFIXwidth=xW" as GT/s
 * per lane and lanes; both 0 where the line has none.
 */
static void sim_link(const char *line, const char *prefix, double *gts, unsigned int *width)
{
	unsigned long gen = 0, w = 0;
	const char *p;
	char key[32];

	snprintf(key, sizeof(key), " %sgen=", prefix);
	p = strstr(line, key);
	if (p)
		gen = strtoul(p + strlen(key), NULL, 10);
	snprintf(key, sizeof(key), " %swidth=x", prefix);
	p = strstr(line, key);
	if (p)
		w = strtoul(p + strlen(key), NULL, 10);
	*gts = gen < sizeof(gen_gts) / sizeof(gen_gts[0]) ? gen_gts[gen] : 0;
	*width = w <= 32 ? w : 0;
}

/*
 * "0000:16:02.0 root_port socket=0 stack=0 part=0 gen=4 width=x4 link_gen=4
 * link_width=x4" and
 * "0000:17:00.0 endpoint socket=0 stack=0 part=0": the simulator's
 * device tree.
 */
static void sim_line(void *ctx, const char *line)
{
	unsigned int sock, stack, part;
	struct iio_topo *t = ctx;
	char bdf[32], kind[32];
	struct iio_fn *f;

	if (sscanf(line, "%31s %31s socket=%u stack=%u part=%u", bdf, kind, &sock, &stack,
		   &part) != 5)
		return;		/* not an Ice Lake-X's */
	f = add_fn(t, bdf);
	if (!f)
		return;
	f->sim = true;
	f->root_port = !strcmp(kind, "root_port");
	f->part = part < IIO_NR_PARTS ? (int)part : -1;
	sim_link(line, "", &f->gts, &f->width);
	sim_link(line, "link_", &f->link_gts, &f->link_width);
}

/* The simulators' functions; an endpoint's link is its root port's. */
static void load_sim(struct iio_topo *t)
{
	unsigned int i, j;

	sim_pci_lines(sim_line, t);
	for (i = 0; i < t->nr_fn; i++) {
		struct iio_fn *f = &t->fn[i];

		for (j = 0; j < t->nr_fn && f->sim && !f->root_port; j++) {
			const struct iio_fn *rp = &t->fn[j];

			if (rp->sim && rp->root_port && rp->st == f->st && rp->part == f->part) {
				f->gts = rp->gts;
				f->width = rp->width;
				f->link_gts = rp->link_gts;
				f->link_width = rp->link_width;
			}
		}
	}
}

/*
 * A number in /sys/bus/pci/devices/@fn/@attr ("16.0 GT/s PCIe", "8"); 0 if
 * there is none, or the link is down ("Unknown", "0").
 */
static double pci_attr(const char *fn, const char *attr)
{
	char path[PATH_MAX], buf[64];

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", fn, attr);
	return read_str(path, buf, sizeof(buf)) ? 0 : atof(buf);
}

/*
 * The system's functions: the part of a function is that of the root
 * port above it, the one on the stack's root bus in its sysfs path
 * (.../pci0000:16/0000:16:02.0/0000:17:00.0): Ice Lake-X's PCIe root
 * ports of parts 0-3 are devices 2-5 of the root bus.
 */
static void load_system(struct iio_topo *t)
{
	DIR *d = opendir(PCI_DEVICES);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX], link[PATH_MAX], buf[64], *p;
		unsigned int seg, bus, dev, fn;
		struct iio_fn *f;
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		f = add_fn(t, e->d_name);
		if (!f)
			continue;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s/class", e->d_name);
		f->root_port = !read_str(path, buf, sizeof(buf)) &&
			       (strtoul(buf, NULL, 0) >> 8) == 0x0604 && f->bus == f->st->bus;
		snprintf(path, sizeof(path), PCI_DEVICES "/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			p = strstr(link, "/pci");
			p = p ? strchr(p + 1, '/') : NULL;
			/* a function on the root bus: only a root port has a part */
			if (p && iio_parse_bdf(strtok(p + 1, "/"), &seg, &bus, &dev, &fn) &&
			    bus == f->st->bus && dev >= 2 && dev - 2 < IIO_NR_PARTS &&
			    (f->root_port || f->bus != f->st->bus))
				f->part = dev - 2;
		}
		f->gts = pci_attr(e->d_name, "max_link_speed");
		f->width = pci_attr(e->d_name, "max_link_width");
		f->link_gts = pci_attr(e->d_name, "current_link_speed");
		f->link_width = pci_attr(e->d_name, "current_link_width");
	}
	closedir(d);
}

static int fn_cmp(const void *a, const void *b)
{
	const struct iio_fn *x = a, *y = b;
	unsigned long kx = (unsigned long)x->seg << 16 | x->bus << 8 | x->dev << 3 | x->fn;
	unsigned long ky = (unsigned long)y->seg << 16 | y->bus << 8 | y->dev << 3 | y->fn;

	return kx < ky ? -1 : kx > ky;
}

int iio_load_functions(struct iio_topo *t, bool sim_only)
{
	load_sim(t);
	if (!sim_only)
		load_system(t);
	if (t->nr_fn)
		qsort(t->fn, t->nr_fn, sizeof(*t->fn), fn_cmp);
	return 0;
}

void iio_free(struct iio_topo *t)
{
	free(t->fn);
	t->fn = NULL;
	t->nr_fn = 0;
}
