// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-pcimap: which Tegra410 PCIE PMU, root complex and root port, or
 * which Ice Lake-X IIO stack and part, see a PCI function.
 *
 *   upmu-pcimap [-s] [SSSS:BB:DD.F ...]
 *
 * Without arguments it lists every PCI function of the system
 * (/sys/bus/pci/devices) and of every simulated SoC
 * (/sys/kernel/debug/upmu_sim/<id>/pci_devices) that is below a root
 * complex with a PCIE PMU, one line each, like the mapping example of the
 * Tegra410 PMU document, followed by the PMU and the filter that selects
 * the function:
 *
 *   0005:01:00.0: Bus=01, Segment=05, RP=00, RC=04, Socket=00 nvidia_pcie_pmu_0_rc_4 src_rp_mask=0x1 src_bdf=0x0100
 *
 * The mapping comes from the PMUs' sysfs files pci_segment and root_ports
 * (see Documentation/nvidia-t410-pcie-pmu.rst).
 *
 * On an Ice Lake-X, a function below an IIO stack (uncore_iio_<N>/dieX:
 * the segment and root bus of stack N on die X; a stack's buses run up
 * to the next stack's root bus) is printed with its part (the root port
 * above it), the IIO PMU, the ch_mask that selects the part in its
 * events, and the root port name perf iostat takes (the stack's root
 * bus):
 *
 *   0000:17:00.0: Bus=17, Segment=0000, Part=0, Stack=0, Socket=00 uncore_iio_0 ch_mask=0x1 iostat=0000:16
 *
 * A function whose part is not known (no root port above it on the
 * stack's root bus) gets "Part=-" and no ch_mask.  With -s, only the
 * simulated functions are listed.  A function given on the command line
 * that no PCIE PMU or IIO stack sees is an error (exit 1), and so is an
 * argument that is not a function's address (exit 2, like bad usage).
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upmu_iio.h"
#include "upmu_pmu.h"
#include "upmu_t410pci.h"

#define MAX_RC		256

static struct t410_rc rcs[MAX_RC];
static unsigned int nr_rcs;
static struct iio_topo iio;

static int load_pmus(void)
{
	DIR *d = opendir(pmu_devices_dir());
	struct dirent *e;

	if (!d) {
		fprintf(stderr, "upmu-pcimap: %s: %s\n", pmu_devices_dir(), strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		int ret = t410_rc_load(e->d_name, &rcs[nr_rcs]);

		/* a PMU without a PCI description maps nothing */
		if (ret == -EINVAL)
			fprintf(stderr, "upmu-pcimap: %s: no PCI mapping in sysfs\n",
				e->d_name);
		if (ret)
			continue;
		if (++nr_rcs == MAX_RC)
			break;
	}
	closedir(d);
	return 0;
}

/* The IIO stack and part of a function; false if no IIO stack sees it. */
static bool map_iio(unsigned int seg, unsigned int bus, unsigned int dev, unsigned int fn)
{
	const struct iio_fn *f = iio_fn_find(&iio, seg, bus, dev, fn);
	const struct iio_stack *st = f ? f->st : iio_stack_of(&iio, seg, bus);

	if (!st)
		return false;
	printf("%04x:%02x:%02x.%x: Bus=%02x, Segment=%04x, ", seg, bus, dev, fn, bus, seg);
	if (f && f->part >= 0)
		printf("Part=%d, Stack=%u, Socket=%02u %s ch_mask=%#x iostat=%04x:%02x\n", f->part,
		       st->stack, st->socket, st->pmu, 1U << f->part, st->seg, st->bus);
	else
		printf("Part=-, Stack=%u, Socket=%02u %s iostat=%04x:%02x\n", st->stack,
		       st->socket, st->pmu, st->seg, st->bus);
	return true;
}

/* Print the mapping of one function; false if no PCIE PMU or IIO stack sees it. */
static bool map_one(const char *name)
{
	unsigned int seg, bus, dev, fn, i;
	int p;

	if (!iio_parse_bdf(name, &seg, &bus, &dev, &fn))
		return false;
	for (i = 0; i < nr_rcs; i++) {
		const struct t410_rc *r = &rcs[i];

		p = t410_rc_port_of(r, seg, bus);
		if (p >= 0) {
			printf("%04x:%02x:%02x.%x: Bus=%02x, Segment=%02x, RP=%02x, RC=%02x, Socket=%02x %s src_rp_mask=%#x src_bdf=0x%04x\n",
			       seg, bus, dev, fn, bus, seg, r->rp[p], r->rc, r->socket,
			       r->pmu, 1U << r->rp[p], bus << 8 | dev << 3 | fn);
			return true;
		}
	}
	return map_iio(seg, bus, dev, fn);
}

/* A Tegra410's function (an Ice Lake-X's are map_sim_iio()'s). */
static void map_sim_line(void *ctx, const char *line)
{
	char fn[32];

	(void)ctx;
	if (!strstr(line, " stack=") && sscanf(line, "%31s", fn) == 1)
		map_one(fn);
}

static void map_system(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			map_one(e->d_name);
	closedir(d);
}

static void map_sim_iio(void)
{
	unsigned int i;

	for (i = 0; i < iio.nr_fn; i++)
		if (iio.fn[i].sim)
			map_iio(iio.fn[i].seg, iio.fn[i].bus, iio.fn[i].dev, iio.fn[i].fn);
}

static const char usage[] =
"usage: upmu-pcimap [-s] [SSSS:BB:DD.F ...]\n"
"Which PMU sees a PCI function: a Tegra410 PCIE PMU with its root port\n"
"filter (src_rp_mask, src_bdf), or an Ice Lake-X IIO PMU with its ch_mask\n"
"and perf iostat's root port name.  Every function below a PMU without\n"
"arguments.\n"
"  -s          only the simulator's functions\n"
"  -h, --help  this text\n"
"Example:\n"
"  upmu-pcimap 0005:01:00.0\n"
"  perf stat -a -e nvidia_pcie_pmu_0_rc_4/rd_bytes,src_bdf=0x0100,src_bdf_en=1/ -- sleep 1\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool sim_only = false;
	int i, c, ret = 0;

	while ((c = getopt_long(argc, argv, "sh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			sim_only = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (load_pmus() || iio_load_stacks(&iio) || iio_load_functions(&iio, sim_only))
		return 1;
	if (optind < argc) {
		for (i = optind; i < argc; i++) {
			unsigned int seg, bus, dev, fn;

			if (!iio_parse_bdf(argv[i], &seg, &bus, &dev, &fn)) {
				fprintf(stderr, "upmu-pcimap: %s: not a PCI function address (SSSS:BB:DD.F)\n",
					argv[i]);
				ret = 2;
				goto out;
			}
			if (!map_one(argv[i])) {
				fprintf(stderr, "upmu-pcimap: %s: not below a root complex with a PCIE PMU, nor an IIO stack\n",
					argv[i]);
				ret = 1;
			}
		}
		goto out;
	}
	if (!nr_rcs && !iio.nr_st) {
		fprintf(stderr, "upmu-pcimap: no PCIE PMU with a PCI mapping, nor an IIO PMU with dieX files\n");
		ret = 1;
		goto out;
	}
	if (!sim_only)
		map_system();
	if (nr_rcs)
		sim_pci_lines(map_sim_line, NULL);
	map_sim_iio();
out:
	iio_free(&iio);
	return ret;
}
