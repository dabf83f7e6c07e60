// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-iostat: VTune's Input and Output analysis (the uncore metrics of
 * Intel's "Analyzing Uncore Perfmon Events for Use of Intel DDIO" recipe)
 * on an Ice Lake-X, per socket, IIO stack, part and PCI device.
 *
 * The events are perf's Ice Lake-X uncore events (their encodings are
 * built through the PMUs' sysfs formats, as perf does); the IIO and IRP
 * events are opened on the uncore_iio_<N> / uncore_irp_<N> PMU of each
 * stack on the CPU of each die (the PMUs' cpumask), the CHA, IMC and UPI
 * events on every such PMU of each die and summed.  A metric whose PMU
 * does not exist prints "n/a (no uncore_cha PMU)", never a number.
 *
 * Counters: an IIO box has four, with upstream's constraints (events
 * 0x02, 0x03, 0x83 on counters 0-1; 0x88, 0xc0, 0xc5, 0xd5 on 2-3), an
 * IRP box two, a CHA box four (0x11 and 0x36 on counter 0 only).  The
 * events of each metric are put into one group where they fit, groups
 * are filled as far as the constraints allow, and perf multiplexes the
 * groups of a box that do not fit at once: such counts are scaled (by
 * time_enabled / time_running, as perf does) and every metric that used
 * one is flagged with the share of time it ran.  Nothing is hidden.
 *
 * See Documentation/upmu-iostat.rst.
 */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "upmu_iio.h"
#include "upmu_libperf.h"
#include "upmu_pmu.h"
#include "upmu_run.h"

#define PROG		"upmu-iostat"
#define READ_FORMAT	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | \
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define PART_ALL	IIO_NR_PARTS	/* every part of a stack (-g stack) */
#define MAX_BOXES	64		/* PMUs of one unit (uncore_cha_0..63) */
#define GRP_MAX		8		/* events in a group */

/* The uncore units, by PMU name prefix, and their counters */
enum unit { U_IIO, U_IRP, U_FR, U_CHA, U_IMC, U_UPI, NR_UNITS };

static const struct {
	const char *prefix;
	const char *name;	/* for "n/a (no <name> PMU)" */
	unsigned int counters;	/* 0: free-running, no limit */
	bool per_stack;		/* one PMU per IIO stack, else boxes summed per die */
} units[NR_UNITS] = {
	[U_IIO] = { "uncore_iio_", "uncore_iio", 4, true },
	[U_IRP] = { "uncore_irp_", "uncore_irp", 2, true },
	[U_FR]  = { "uncore_iio_free_running_", "uncore_iio_free_running", 0, true },
	[U_CHA] = { "uncore_cha_", "uncore_cha", 4, false },
	[U_IMC] = { "uncore_imc_", "uncore_imc", 4, false },
	[U_UPI] = { "uncore_upi_", "uncore_upi", 4, false },
};

enum ev {
	IN_RD, IN_WR, OUT_RD, OUT_WR, CB_OCC, CB_INS,
	FAF_INS, FAF_OCC, WR_PREF, TOT_OCC, LOST_FWD,
	IOMMU_FIRST, IOMMU_CTXT, PWT_OCC, IOMMU1_RD, IOCLK,
	CHA_MISS_RDCUR, CHA_MISS_ITOM, CHA_MISS_ITOMCN,
	CAS_RD, CAS_WR, UPI_TX_DATA, UPI_TX_NONDATA, UPI_CLK, UPI_L1PWR,
	NR_EV
};

/*
 * perf's Ice Lake-X event names (uncore-io.json, uncore-interconnect.json,
 * uncore-cache.json, uncore-memory.json) and their encodings; a per-part
 * event's spec takes the parts' mask (ch_mask, or the umask of
 * COMP_BUF_OCCUPANCY).
 */
static const struct {
	const char *name;
	enum unit unit;
	const char *spec;
	bool per_part;
} evs[NR_EV] = {
	[IN_RD]  = { "UNC_IIO_DATA_REQ_OF_CPU.MEM_READ", U_IIO,
		     "event=0x83,umask=0x4,ch_mask=%#x,fc_mask=0x7", true },
	[IN_WR]  = { "UNC_IIO_DATA_REQ_OF_CPU.MEM_WRITE", U_IIO,
		     "event=0x83,umask=0x1,ch_mask=%#x,fc_mask=0x7", true },
	[OUT_RD] = { "UNC_IIO_DATA_REQ_OF_CPU.CMPD", U_IIO,
		     "event=0x83,umask=0x80,ch_mask=%#x,fc_mask=0x7", true },
	[OUT_WR] = { "UNC_IIO_DATA_REQ_BY_CPU.MEM_WRITE", U_IIO,
		     "event=0xc0,umask=0x1,ch_mask=%#x,fc_mask=0x7", true },
	[CB_OCC] = { "UNC_IIO_COMP_BUF_OCCUPANCY.CMPD", U_IIO,
		     "event=0xd5,umask=%#x,fc_mask=0x4", true },
	[CB_INS] = { "UNC_IIO_COMP_BUF_INSERTS.CMPD", U_IIO,
		     "event=0xc2,umask=0x3,ch_mask=%#x,fc_mask=0x4", true },
	[FAF_INS]  = { "UNC_I_FAF_INSERTS", U_IRP, "event=0x18" },
	[FAF_OCC]  = { "UNC_I_FAF_OCCUPANCY", U_IRP, "event=0x19" },
	[WR_PREF]  = { "UNC_I_TRANSACTIONS.WR_PREF", U_IRP, "event=0x11,umask=0x8" },
	[TOT_OCC]  = { "UNC_I_CACHE_TOTAL_OCCUPANCY.MEM", U_IRP, "event=0xf,umask=0x4" },
	[LOST_FWD] = { "UNC_I_MISC1.LOST_FWD", U_IRP, "event=0x1f,umask=0x10" },
	[IOMMU_FIRST] = { "UNC_IIO_IOMMU0.FIRST_LOOKUPS", U_IIO, "event=0x40,umask=0x1" },
	[IOMMU_CTXT]  = { "UNC_IIO_IOMMU0.CTXT_CACHE_LOOKUPS", U_IIO, "event=0x40,umask=0x40" },
	[PWT_OCC]     = { "UNC_IIO_PWT_OCCUPANCY", U_IIO, "event=0x42" },
	[IOMMU1_RD]   = { "UNC_IIO_TXN_REQ_OF_CPU.MEM_READ.IOMMU1", U_IIO,
			  "event=0x84,umask=0x4,ch_mask=0x200,fc_mask=0x7" },
	[IOCLK] = { "UNC_IIO_CLOCKTICKS_FREERUN", U_FR, "event=0xff,umask=0x10" },
	[CHA_MISS_RDCUR]  = { "UNC_CHA_TOR_INSERTS.IO_MISS_PCIRDCUR", U_CHA,
			      "event=0x35,umask=0xc8f3fe04" },
	[CHA_MISS_ITOM]   = { "UNC_CHA_TOR_INSERTS.IO_MISS_ITOM", U_CHA,
			      "event=0x35,umask=0xcc43fe04" },
	[CHA_MISS_ITOMCN] = { "UNC_CHA_TOR_INSERTS.IO_MISS_ITOMCACHENEAR", U_CHA,
			      "event=0x35,umask=0xcd43fe04" },
	[CAS_RD] = { "UNC_M_CAS_COUNT.RD", U_IMC, "event=0x4,umask=0xf" },
	[CAS_WR] = { "UNC_M_CAS_COUNT.WR", U_IMC, "event=0x4,umask=0x30" },
	[UPI_TX_DATA]    = { "UNC_UPI_TxL_FLITS.ALL_DATA", U_UPI, "event=0x2,umask=0xf" },
	[UPI_TX_NONDATA] = { "UNC_UPI_TxL_FLITS.NON_DATA", U_UPI, "event=0x2,umask=0x97" },
	[UPI_CLK]        = { "UNC_UPI_CLOCKTICKS", U_UPI, "event=0x1" },
	[UPI_L1PWR]      = { "UNC_UPI_L1_POWER_CYCLES", U_UPI, "event=0x21" },
};

/* Upstream's counter constraints (icx_uncore_iio_constraints, CHA's). */
static unsigned int counters_of(enum unit u, uint64_t config)
{
	unsigned int ev = config & 0xff;

	switch (u) {
	case U_IIO:
		if (ev == 0x02 || ev == 0x03 || ev == 0x83)
			return 0x3;
		if (ev == 0x88 || ev == 0xc0 || ev == 0xc5 || ev == 0xd5)
			return 0xc;
		return 0xf;
	case U_CHA:
		return ev == 0x11 || ev == 0x36 ? 0x1 : 0xf;
	default:
		return (1U << units[u].counters) - 1;
	}
}

/* The metrics */

enum scope { SC_PART, SC_STACK, SC_SOCKET };

/* What a formula gets: its events' counts over the interval, and the rest. */
struct mctx {
	double c[6];
	double secs;		/* the interval */
	double ghz;		/* IIO (and IRP) clock; 0 if not known */
	double link_mbps;	/* PCIe max bandwidth of the part(s); 0 if not known */
	double dram_max;	/* --dram-max, MB/s; 0 if not given */
	const char *na;		/* set by a formula that has no value: why */
};

static double f_bw(struct mctx *x)
{
	return x->c[0] * 4 / 1e6 / x->secs;
}

static double f_link(struct mctx *x)
{
	if (!(x->link_mbps > 0)) {
		x->na = "n/a (link speed and width not known)";
		return NAN;
	}
	return (x->c[0] + x->c[1] + x->c[2] + x->c[3]) * 4 / 1e6 / x->secs / x->link_mbps * 100;
}

static double need_ghz(struct mctx *x, double v)
{
	if (!(x->ghz > 0)) {
		x->na = "n/a (IIO clock not known)";
		return NAN;
	}
	return v / x->ghz;
}

static double f_rd_lat(struct mctx *x)
{
	return need_ghz(x, x->c[0] / x->c[1]);
}

static double f_wr_lat(struct mctx *x)
{
	return need_ghz(x, (x->c[0] - x->c[1]) / x->c[2]);
}

static double f_ratio_pct(struct mctx *x)
{
	return x->c[0] / x->c[1] * 100;
}

static double f_hit_pct(struct mctx *x)
{
	return 100 - x->c[0] / x->c[1] * 100;
}

static double f_wr_miss(struct mctx *x)
{
	return (x->c[0] + x->c[1]) / (x->c[2] + x->c[3]) * 100;
}

static double f_wr_hit(struct mctx *x)
{
	return 100 - f_wr_miss(x);
}

static double f_rate(struct mctx *x)
{
	return x->c[0] / 1e6 / x->secs;
}

static double f_ratio(struct mctx *x)
{
	return x->c[0] / x->c[1];
}

static double f_dram(struct mctx *x)
{
	return x->c[0] * 64 / 1e6 / x->secs;
}

static double f_dram_util(struct mctx *x)
{
	if (!(x->dram_max > 0)) {
		x->na = "n/a (no --dram-max)";
		return NAN;
	}
	return (x->c[0] + x->c[1]) * 64 / 1e6 / x->secs / x->dram_max * 100;
}

static double f_upi(struct mctx *x)
{
	return (x->c[0] + x->c[1]) / 3 / ((x->c[2] - x->c[3]) * 5 / 6) * 100;
}

#define MF_GHZ		1	/* needs the IIO clock */
#define MF_OFF		2	/* not in the default set */

static const struct mdef {
	const char *name;
	const char *group;	/* for -m */
	const char *unit;
	enum scope scope;
	unsigned int flags;
	double (*fn)(struct mctx *x);
	unsigned int nr;
	enum ev ev[6];
} mdefs[] = {
	{ "inbound_read_bw", "bw", "MB/s", SC_PART, 0, f_bw, 1, { IN_RD } },
	{ "inbound_write_bw", "bw", "MB/s", SC_PART, 0, f_bw, 1, { IN_WR } },
	{ "outbound_read_bw", "bw", "MB/s", SC_PART, 0, f_bw, 1, { OUT_RD } },
	{ "outbound_write_bw", "bw", "MB/s", SC_PART, 0, f_bw, 1, { OUT_WR } },
	{ "link_utilization", "link", "%", SC_PART, 0, f_link, 4,
	  { IN_RD, IN_WR, OUT_RD, OUT_WR } },
	{ "inbound_read_latency", "latency", "ns", SC_PART, MF_GHZ, f_rd_lat, 2,
	  { CB_OCC, CB_INS } },
	{ "irp_read_latency", "latency", "ns", SC_STACK, MF_GHZ, f_rd_lat, 2,
	  { FAF_OCC, FAF_INS } },
	{ "inbound_write_latency", "latency", "ns", SC_STACK, MF_GHZ, f_wr_lat, 3,
	  { TOT_OCC, FAF_OCC, WR_PREF } },
	{ "cpu_io_conflicts", "conflicts", "%", SC_STACK, 0, f_ratio_pct, 2,
	  { LOST_FWD, WR_PREF } },
	{ "vtd_translation_rate", "vtd", "MT/s", SC_STACK, MF_OFF, f_rate, 1, { IOMMU_FIRST } },
	{ "iotlb_miss", "vtd", "%", SC_STACK, MF_OFF, f_ratio_pct, 2, { IOMMU_CTXT, IOMMU_FIRST } },
	{ "iotlb_hit", "vtd", "%", SC_STACK, MF_OFF, f_hit_pct, 2, { IOMMU_CTXT, IOMMU_FIRST } },
	{ "iotlb_miss_penalty", "vtd", "ns", SC_STACK, MF_OFF | MF_GHZ, f_rd_lat, 2,
	  { PWT_OCC, IOMMU_CTXT } },
	{ "mem_access_per_iotlb_miss", "vtd", "", SC_STACK, MF_OFF, f_ratio, 2,
	  { IOMMU1_RD, IOMMU_CTXT } },
	{ "inbound_read_l3_miss", "l3", "%", SC_SOCKET, 0, f_ratio_pct, 2,
	  { CHA_MISS_RDCUR, FAF_INS } },
	{ "inbound_read_l3_hit", "l3", "%", SC_SOCKET, 0, f_hit_pct, 2,
	  { CHA_MISS_RDCUR, FAF_INS } },
	{ "inbound_write_l3_miss", "l3", "%", SC_SOCKET, 0, f_wr_miss, 4,
	  { CHA_MISS_ITOM, CHA_MISS_ITOMCN, WR_PREF, LOST_FWD } },
	{ "inbound_write_l3_hit", "l3", "%", SC_SOCKET, 0, f_wr_hit, 4,
	  { CHA_MISS_ITOM, CHA_MISS_ITOMCN, WR_PREF, LOST_FWD } },
	{ "dram_read_bw", "dram", "MB/s", SC_SOCKET, 0, f_dram, 1, { CAS_RD } },
	{ "dram_write_bw", "dram", "MB/s", SC_SOCKET, 0, f_dram, 1, { CAS_WR } },
	{ "dram_utilization", "dram", "%", SC_SOCKET, 0, f_dram_util, 2, { CAS_RD, CAS_WR } },
	{ "upi_utilization", "upi", "%", SC_SOCKET, 0, f_upi, 4,
	  { UPI_TX_DATA, UPI_TX_NONDATA, UPI_CLK, UPI_L1PWR } },
};

#define NR_METRICS	(sizeof(mdefs) / sizeof(mdefs[0]))

/* Counting state */

/* One event on one PMU on one die's CPU */
struct inst {
	enum ev ev;
	unsigned int socket;
	int stack;		/* per-stack units: the stack; else -1 */
	int part;		/* per-part events: the part or PART_ALL; else -1 */
	char pmu[48];
	int cpu;
	int grp;
	int fd;
	uint64_t id;
	uint64_t cur, prev;
	double delta;		/* over the last interval, scaled */
	double en_ns;		/* its group's time enabled over it */
	double ratio;		/* its group's running / enabled over it */
};

struct grp {
	enum unit unit;
	struct upmu_group lp;	/* libperf's evlist of the group (upmu_libperf.h) */
	unsigned int nr;
	int inst[GRP_MAX];
	unsigned int allowed[GRP_MAX];
	uint64_t en, run, pen, prun;
};

/* One line of output: a metric at a place */
struct row {
	const struct mdef *m;
	unsigned int socket;
	const struct iio_stack *st;	/* NULL for a socket's row */
	int part;			/* SC_PART: the part or PART_ALL */
	char dev[40];
	double link_mbps;
	int inst[MAX_BOXES * 4];	/* the instances it sums, by its events */
	unsigned int nr_inst;
	int ioclk;			/* the instance of its stack's ioclk, or -1 */
	char na[48];			/* "n/a (no uncore_cha PMU)": not counted */
};

static struct run_opts ro = { .prog = PROG };

static struct {
	bool by_stack;
	bool sim_only;
	bool list;
	bool time_ioclk;
	double ghz;
	double dram_max;
	const char *devs;	/* -d: "SSSS:BB:DD.F,..."; NULL: every device */
	bool want[NR_METRICS];
} opt;

static struct iio_topo topo;
static struct inst *insts;
static unsigned int nr_insts;
static struct grp *grps;
static unsigned int nr_grps;
static struct row *rows;
static unsigned int nr_rows;
static int64_t last_ns;
static bool opened;		/* some event is open */
static char outbuf[1 << 16];	/* the output's */
static int cpu_of_socket[IIO_MAX_SOCKETS];

static void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f,
"Usage: " PROG " [-a] [-C CPUS] [-I MS [--interval-count N]] [--timeout MS]\n"
"                   [-x SEP | -j] [-o FILE] [-g device|stack] [-m METRICS] [-d BDF,...]\n"
"                   [--vtd] [--ioclk-ghz GHZ] [--time wall|ioclk] [--dram-max MBPS] [-s] [-l]\n"
"                   [-- COMMAND ...]\n"
"\n"
"VTune's I/O analysis of an Ice Lake-X from its uncore PMUs: PCIe bandwidth\n"
"by direction, link utilisation, latency, L3 misses of inbound I/O, CPU/IO\n"
"conflicts, VT-d, DRAM and UPI, per socket, IIO stack (\"IO unit\") and part\n"
"(the device below its root port).\n"
"\n"
"perf stat's options:\n"
"  -a           system-wide, as uncore counting always is (accepted)\n"
"  -C CPUS      only the dies whose uncore PMUs count on these CPUs (cpumask)\n"
"  -I MS        print every MS milliseconds (at least 10)\n"
"  --interval-count N  stop after N intervals\n"
"  --timeout MS count for MS milliseconds (default 1000; with -I or a\n"
"               COMMAND, until interrupted or it exits)\n"
"  -x SEP       CSV: [time] socket io_unit part device metric value unit running%%\n"
"  -j           JSON, one object a line\n"
"  -o FILE      write to FILE, not stdout (never through a symlink)\n"
"Its own:\n"
"  -g device    a row per part with a device (default); -g stack: per stack\n"
"  -m LIST      metrics or groups, comma-separated (default: all but vtd):\n"
"               groups bw link latency conflicts l3 vtd dram upi, or names\n"
"  -d BDF,...   only the parts (stacks, sockets) of these PCI functions\n"
"  --vtd        add the VT-d metrics (IOMMU events)\n"
"  --ioclk-ghz GHZ  the IIO clock in GHz instead of measuring it (ioclk)\n"
"  --time ioclk the interval's length from the IIO clock (ioclk / GHZ)\n"
"               instead of the wall clock (a simulator's manual clock)\n"
"  --dram-max MBPS  the socket's DRAM bandwidth, for dram_utilization\n"
"  -s           only the simulator's PCI devices\n"
"  -l           list the rows, events and groups; count nothing\n"
"  -h           this help\n"
"\n"
"Metrics:");
	for (i = 0; i < NR_METRICS; i++)
		fprintf(f, "%s %s", i % 4 ? "" : "\n ", mdefs[i].name);
	fprintf(f,
"\n\n"
"A metric without its PMU prints \"n/a (no uncore_cha PMU)\"; one whose\n"
"denominator is 0 prints \"-\".  Counts of groups that perf multiplexed are\n"
"scaled and their metrics flagged with the share of time they ran.\n"
"Exit status: the COMMAND's, else 0; 1 on errors, 2 on bad usage.\n"
"\n"
"Example:\n"
"  " PROG " -I 1000 --interval-count 5\n"
"  " PROG " -g stack -x, -- ./workload\n");
}

/* Setting up */

/* The CPU of each die in @pmu's cpumask, by the CPU's package. */
static int load_cpus(const char *pmu)
{
	char path[128];
	unsigned int n = 0;
	cpu_set_t set;
	uint64_t pkg;
	int c;

	if (pmu_cpus(pmu, &set))
		return -1;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
		if (read_u64(path, &pkg))
			pkg = n;
		if (pkg < IIO_MAX_SOCKETS && cpu_of_socket[pkg] < 0)
			cpu_of_socket[pkg] = c;
		n++;
	}
	return 0;
}

static int add_inst(enum ev e, unsigned int socket, int stack, int part, const char *pmu)
{
	struct inst *in;
	unsigned int i;

	for (i = 0; i < nr_insts; i++) {
		in = &insts[i];
		if (in->ev == e && in->socket == socket && in->stack == stack &&
		    in->part == part && !strcmp(in->pmu, pmu))
			return i;
	}
	in = realloc(insts, (nr_insts + 1) * sizeof(*in));
	if (!in)
		return -1;
	insts = in;
	in = &insts[nr_insts];
	*in = (struct inst){ .ev = e, .socket = socket, .stack = stack, .part = part,
			     .cpu = cpu_of_socket[socket], .grp = -1, .fd = -1 };
	snprintf(in->pmu, sizeof(in->pmu), "%s", pmu);
	return nr_insts++;
}

/* The instances of event @e that row @r sums; false if its PMU is missing. */
static bool row_add_event(struct row *r, enum ev e)
{
	enum unit u = evs[e].unit;
	char pmu[48];
	unsigned int i, k;
	int idx;

	if (units[u].per_stack) {
		unsigned int k0 = 0, k1 = IIO_MAX_STACKS;

		if (r->st)
			k0 = r->st->stack, k1 = k0 + 1;
		for (k = k0; k < k1; k++) {
			const struct iio_stack *st = iio_stack_at(&topo, r->socket, k);

			snprintf(pmu, sizeof(pmu), "%s%u", units[u].prefix, k);
			if (!st || !pmu_exists(pmu))
				continue;
			idx = add_inst(e, r->socket, k, evs[e].per_part ? r->part : -1, pmu);
			if (idx < 0 || r->nr_inst == sizeof(r->inst) / sizeof(r->inst[0]))
				return false;
			r->inst[r->nr_inst++] = idx;
		}
	} else {
		for (i = 0; i < MAX_BOXES; i++) {
			snprintf(pmu, sizeof(pmu), "%s%u", units[u].prefix, i);
			if (!pmu_exists(pmu))
				continue;
			idx = add_inst(e, r->socket, -1, -1, pmu);
			if (idx < 0 || r->nr_inst == sizeof(r->inst) / sizeof(r->inst[0]))
				return false;
			r->inst[r->nr_inst++] = idx;
		}
	}
	for (i = 0; i < r->nr_inst; i++)
		if (insts[r->inst[i]].ev == e)
			return true;
	return false;
}

/* Is link_utilization asked for? */
static bool want_link(void)
{
	unsigned int i;

	for (i = 0; i < NR_METRICS; i++)
		if (opt.want[i] && mdefs[i].fn == f_link)
			return true;
	return false;
}

/*
 * The device label and link of part @p of @st (-g device): false if none.
 * A link that trained below its max is used as it trained, and said so.
 */
static bool part_device(const struct iio_stack *st, int p, char *dev, size_t len, double *mbps)
{
	const struct iio_fn *rp = NULL, *ep = NULL, *link;
	unsigned int i, n = 0;
	char note[96];

	for (i = 0; i < topo.nr_fn; i++) {
		const struct iio_fn *f = &topo.fn[i];

		if (f->st != st || f->part != p)
			continue;
		if (f->root_port) {
			rp = rp ? rp : f;
		} else {
			ep = ep ? ep : f;
			n++;
		}
	}
	if (!rp && !ep)
		return false;
	if (!ep)
		snprintf(dev, len, "%04x:%02x:%02x.%x", rp->seg, rp->bus, rp->dev, rp->fn);
	else if (n == 1)
		snprintf(dev, len, "%04x:%02x:%02x.%x", ep->seg, ep->bus, ep->dev, ep->fn);
	else
		snprintf(dev, len, "%04x:%02x:%02x.%x+%u", ep->seg, ep->bus, ep->dev, ep->fn,
			 n - 1);
	link = ep && (ep->gts || ep->link_gts) ? ep : rp ? rp : ep;
	*mbps = iio_link_max_mbps(link);
	if (want_link() && iio_link_below_max(link, note, sizeof(note)))
		err("%s: %s: link_utilization is of the link as it trained", dev, note);
	return true;
}

/* Whether a PMU of unit @u exists (for @st's stack if one per stack). */
static bool unit_present(enum unit u, const struct iio_stack *st)
{
	char pmu[48];
	unsigned int i;

	for (i = 0; i < MAX_BOXES; i++) {
		if (units[u].per_stack && st && i != st->stack)
			continue;
		snprintf(pmu, sizeof(pmu), "%s%u", units[u].prefix, i);
		if (pmu_exists(pmu))
			return true;
	}
	return false;
}

static int add_row(const struct mdef *m, unsigned int socket, const struct iio_stack *st,
		   int part, const char *dev, double mbps)
{
	struct row *r = realloc(rows, (nr_rows + 1) * sizeof(*r));
	unsigned int i;

	if (!r)
		return -1;
	rows = r;
	r = &rows[nr_rows++];
	memset(r, 0, sizeof(*r));
	r->m = m;
	r->socket = socket;
	r->st = st;
	r->part = part;
	r->link_mbps = mbps;
	r->ioclk = -1;
	snprintf(r->dev, sizeof(r->dev), "%s", dev);
	/* a metric whose PMU is missing counts nothing: it is n/a */
	for (i = 0; i < m->nr; i++) {
		enum unit u = evs[m->ev[i]].unit;

		if (!unit_present(u, st)) {
			snprintf(r->na, sizeof(r->na), "n/a (no %s PMU)", units[u].name);
			return 0;
		}
	}
	for (i = 0; i < m->nr; i++)
		row_add_event(r, m->ev[i]);
	/* the clock of the stack (of the socket's first stack for its rows) */
	if ((m->flags & MF_GHZ) || opt.time_ioclk) {
		const struct iio_stack *cs = st;
		char pmu[48];

		for (i = 0; !cs && i < IIO_MAX_STACKS; i++)
			cs = iio_stack_at(&topo, socket, i);
		snprintf(pmu, sizeof(pmu), "%s%u", units[U_FR].prefix, cs ? cs->stack : 0);
		if (cs && pmu_exists(pmu))
			r->ioclk = add_inst(IOCLK, socket, cs->stack, -1, pmu);
	}
	return 0;
}

/* Whether -d names a function below part @p of @st (@p < 0: of @st). */
static bool selected(const struct iio_stack *st, int p)
{
	unsigned int i;

	if (!opt.devs)
		return true;
	for (i = 0; i < topo.nr_fn; i++) {
		const struct iio_fn *f = &topo.fn[i];
		char bdf[16];

		if (f->st != st || (p >= 0 && f->part != p))
			continue;
		snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x", f->seg, f->bus, f->dev, f->fn);
		if (strstr(opt.devs, bdf))
			return true;
	}
	return false;
}

/* Every function -d names must be below a stack: 0, or -1 (said which). */
static int check_devs(void)
{
	char *copy, *tok, *save;
	int ret = 0;

	if (!opt.devs)
		return 0;
	copy = strdup(opt.devs);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned int seg, bus, dev, fn;

		iio_parse_bdf(tok, &seg, &bus, &dev, &fn);
		if (!iio_fn_find(&topo, seg, bus, dev, fn)) {
			err("-d %s: no such PCI function below an IIO stack (see upmu-pcimap)", tok);
			ret = -1;
		}
	}
	free(copy);
	return ret;
}

static int build_rows(void)
{
	unsigned int s, k, i;
	int p;

	for (s = 0; s < topo.nr_sockets; s++) {
		if (cpu_of_socket[s] < 0) {
			err("die %u has IIO stacks but no CPU in uncore_iio_0's cpumask", s);
			return -1;
		}
		if (!run_cpu_wanted(&ro, cpu_of_socket[s]))
			continue;	/* -C */
		for (k = 0; k < IIO_MAX_STACKS; k++) {
			const struct iio_stack *st = iio_stack_at(&topo, s, k);

			if (!st || !selected(st, -1))
				continue;
			for (p = 0; p < IIO_NR_PARTS && !opt.by_stack; p++) {
				char dev[40];
				double mbps = 0;

				if (!selected(st, p) || !part_device(st, p, dev, sizeof(dev), &mbps))
					continue;
				for (i = 0; i < NR_METRICS; i++)
					if (opt.want[i] && mdefs[i].scope == SC_PART &&
					    add_row(&mdefs[i], s, st, p, dev, mbps))
						return -1;
			}
			if (opt.by_stack) {
				double mbps = 0, m;
				char dev[40];

				/* the stack's link: the sum of its parts' */
				for (p = 0; p < IIO_NR_PARTS; p++)
					if (part_device(st, p, dev, sizeof(dev), &m))
						mbps = m > 0 && mbps >= 0 ? mbps + m : -1;
				for (i = 0; i < NR_METRICS; i++)
					if (opt.want[i] && mdefs[i].scope == SC_PART &&
					    add_row(&mdefs[i], s, st, PART_ALL, "-", mbps))
						return -1;
			}
			for (i = 0; i < NR_METRICS; i++)
				if (opt.want[i] && mdefs[i].scope == SC_STACK &&
				    add_row(&mdefs[i], s, st, -1, "-", 0))
					return -1;
		}
		for (k = 0; opt.devs && k < IIO_MAX_STACKS; k++) {
			const struct iio_stack *st = iio_stack_at(&topo, s, k);

			if (st && selected(st, -1))
				break;
		}
		if (k == IIO_MAX_STACKS)
			continue;	/* no device of -d on this socket */
		for (i = 0; i < NR_METRICS; i++)
			if (opt.want[i] && mdefs[i].scope == SC_SOCKET &&
			    add_row(&mdefs[i], s, NULL, -1, "-", 0))
				return -1;
	}
	return 0;
}

/* Scheduling: groups that fit the counters */

/* Whether the events with counter masks @a[0..n-1] fit distinct counters. */
static bool fits(const unsigned int *a, unsigned int n, unsigned int used)
{
	unsigned int c;

	if (!n)
		return true;
	for (c = 0; c < 32; c++)
		if ((a[0] & (1U << c)) && !(used & (1U << c)) && fits(a + 1, n - 1, used | 1U << c))
			return true;
	return false;
}

static int inst_allowed(const struct inst *in, unsigned int *allowed)
{
	struct perf_event_attr attr;
	char spec[128];
	int ret;

	snprintf(spec, sizeof(spec), evs[in->ev].spec,
		 in->part == PART_ALL ? 0xffU : 1U << (in->part < 0 ? 0 : in->part));
	ret = pmu_attr(in->pmu, spec, &attr);
	if (ret) {
		err("%s: cannot encode %s (%s) from sysfs: %s", in->pmu, evs[in->ev].name, spec,
		    errno_str(-ret));
		return -1;
	}
	*allowed = counters_of(evs[in->ev].unit, attr.config);
	return 0;
}

/* Put instance @i into group @g if it fits with what is there. */
static bool try_place(int g, int i, unsigned int allowed)
{
	struct grp *gr = &grps[g];
	unsigned int a[GRP_MAX + 1];
	struct inst *in = &insts[i], *first = &insts[gr->inst[0]];

	if (gr->unit != evs[in->ev].unit || strcmp(first->pmu, in->pmu) ||
	    first->socket != in->socket || gr->nr == GRP_MAX ||
	    (!units[gr->unit].counters && gr->nr))
		return false;
	memcpy(a, gr->allowed, gr->nr * sizeof(*a));
	a[gr->nr] = allowed;
	if (units[gr->unit].counters && !fits(a, gr->nr + 1, 0))
		return false;
	gr->allowed[gr->nr] = allowed;
	gr->inst[gr->nr++] = i;
	in->grp = g;
	return true;
}

/*
 * Put those of instances @todo[0..n-1] that are on @todo[0]'s PMU and die
 * into group @g, if all of them fit there; else change nothing.
 */
static bool try_place_all(int g, const int *todo, const unsigned int *allowed, unsigned int n)
{
	struct grp save = grps[g];
	const struct inst *first = &insts[todo[0]];
	unsigned int j, placed = 0;

	for (j = 0; j < n; j++) {
		const struct inst *in = &insts[todo[j]];

		if (in->grp >= 0 || strcmp(in->pmu, first->pmu) || in->socket != first->socket)
			continue;
		if (!try_place(g, todo[j], allowed[j])) {
			/* undo */
			for (j = save.nr; j < grps[g].nr; j++)
				insts[grps[g].inst[j]].grp = -1;
			grps[g] = save;
			return false;
		}
		placed++;
	}
	return placed > 0;
}

static int new_group(int i, unsigned int allowed)
{
	struct grp *g = realloc(grps, (nr_grps + 1) * sizeof(*g));

	if (!g)
		return -1;
	grps = g;
	g = &grps[nr_grps];
	*g = (struct grp){ .unit = evs[insts[i].ev].unit, .nr = 1 };
	g->inst[0] = i;
	g->allowed[0] = allowed;
	insts[i].grp = nr_grps++;
	return 0;
}

/*
 * Row by row: a row's unplaced events go together into the first group
 * of their box that takes them all (so that a ratio's events count over
 * the same time), else one by one into the first that takes each, else
 * into new groups.
 */
static int schedule(void)
{
	unsigned int r, j, g;

	for (r = 0; r < nr_rows; r++) {
		struct row *rw = &rows[r];
		int todo[MAX_BOXES * 4 + 1];
		unsigned int nt = 0, allowed[MAX_BOXES * 4 + 1];

		for (j = 0; j < rw->nr_inst; j++)
			if (insts[rw->inst[j]].grp < 0)
				todo[nt++] = rw->inst[j];
		if (rw->ioclk >= 0 && insts[rw->ioclk].grp < 0)
			todo[nt++] = rw->ioclk;
		for (j = 0; j < nt; j++)
			if (inst_allowed(&insts[todo[j]], &allowed[j]))
				return -1;
		for (j = 0; j < nt; j++) {
			bool placed = insts[todo[j]].grp >= 0;
			unsigned int l;
			int ng;

			/* all of the row's events on its box in one group? */
			for (g = 0; g < nr_grps && !placed; g++)
				placed = try_place_all(g, todo + j, allowed + j, nt - j);
			if (placed)
				continue;
			/* a new group, with as many of them as fit */
			if (new_group(todo[j], allowed[j]))
				return -1;
			ng = nr_grps - 1;
			for (l = j + 1; l < nt; l++)
				if (insts[todo[l]].grp < 0)
					try_place(ng, todo[l], allowed[l]);
		}
	}
	return 0;
}

/* Opening and reading */

/*
 * @fn on every group, those of each die from the die's CPU (cpu_pin():
 * the perf core then opens, enables, reads and closes them without an
 * IPI per group), then back on the CPUs the tool had; perf stat does
 * the same.  The die of the CPU it runs on goes first: one move fewer
 * (the scheduler mostly leaves it where the last die's reads took it).
 * 0, or @fn's first error.
 */
static int for_each_group(int (*fn)(struct grp *gr))
{
	struct cpu_pin pin = CPU_PIN_INIT;
	unsigned int i, s, s0 = 0, g;
	int ret = 0, cpu = sched_getcpu();

	for (s = 0; s < topo.nr_sockets; s++)
		if (cpu_of_socket[s] == cpu)
			s0 = s;
	for (i = 0; i < topo.nr_sockets && !ret; i++) {
		s = (s0 + i) % topo.nr_sockets;
		for (g = 0; g < nr_grps && !ret; g++) {
			const struct inst *first = &insts[grps[g].inst[0]];

			if (first->socket != s)
				continue;
			cpu_pin(&pin, first->cpu);
			ret = fn(&grps[g]);
		}
	}
	cpu_unpin(&pin);
	return ret;
}

/* A group on its die's CPU, through libperf. */
static int open_group(struct grp *gr)
{
	unsigned int j;
	int ret;

	ret = upmu_group_new(&gr->lp, insts[gr->inst[0]].cpu);
	for (j = 0; j < gr->nr && !ret; j++) {
		struct inst *in = &insts[gr->inst[j]];
		struct perf_event_attr attr;
		char spec[128];

		snprintf(spec, sizeof(spec), evs[in->ev].spec,
			 in->part == PART_ALL ? 0xffU : 1U << (in->part < 0 ? 0 : in->part));
		if (pmu_attr(in->pmu, spec, &attr))
			return -1;	/* said in schedule() */
		attr.read_format = READ_FORMAT;
		ret = upmu_group_add(&gr->lp, &attr, sizeof(attr));
	}
	if (ret) {
		err("%s: %s", insts[gr->inst[0]].pmu, errno_str(-ret));
		return -1;
	}
	opened = true;
	for (j = 0; j < gr->nr; j++) {
		struct inst *in = &insts[gr->inst[j]];
		int fd = upmu_group_open_next(&gr->lp);

		if (fd < 0) {
			err("%s: cannot open %s on CPU %d: %s", in->pmu, evs[in->ev].name, in->cpu,
			    errno_str(-fd));
			if (fd == -EACCES || fd == -EPERM)
				err("system-wide counting needs root or CAP_PERFMON");
			return -1;
		}
		in->fd = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &in->id)) {
			err("%s: %s", in->pmu, errno_str(errno));
			return -1;
		}
	}
	return 0;
}

static int enable_group(struct grp *gr)
{
	int ret = upmu_group_enable(&gr->lp);

	if (ret) {
		err("cannot enable a group: %s", errno_str(-ret));
		return -1;
	}
	return 0;
}

/* libperf closes the members first: a leader closed first would leave them counting alone. */
static int close_group(struct grp *gr)
{
	unsigned int j;

	upmu_group_free(&gr->lp);
	for (j = 0; j < gr->nr; j++)
		insts[gr->inst[j]].fd = -1;
	return 0;
}

static int read_group(struct grp *gr)
{
	uint64_t buf[3 + 2 * GRP_MAX];
	ssize_t n = read(gr->lp.leader_fd, buf, sizeof(buf));
	unsigned int i, j;

	if (n < (ssize_t)((3 + 2 * gr->nr) * sizeof(uint64_t)) || buf[0] != gr->nr) {
		err("%s: cannot read a group%s%s", insts[gr->inst[0]].pmu,
		    n < 0 ? ": " : " (did the PMU go away?)", n < 0 ? errno_str(errno) : "");
		return -1;
	}
	gr->pen = gr->en;
	gr->prun = gr->run;
	gr->en = buf[1];
	gr->run = buf[2];
	for (i = 0; i < gr->nr; i++) {
		for (j = 0; j < gr->nr; j++) {
			struct inst *in = &insts[gr->inst[j]];

			if (in->id == buf[4 + 2 * i]) {
				in->prev = in->cur;
				in->cur = buf[3 + 2 * i];
			}
		}
	}
	return 0;
}

static int read_groups(void)
{
	unsigned int i;

	if (for_each_group(read_group))
		return -1;
	/* the interval's counts, scaled where the group did not run all of it */
	for (i = 0; i < nr_insts; i++) {
		struct inst *in = &insts[i];
		struct grp *gr = &grps[in->grp];
		uint64_t en = gr->en - gr->pen, run = gr->run - gr->prun;

		in->delta = (double)(in->cur - in->prev);
		in->en_ns = (double)en;
		in->ratio = 1;
		if (run < en) {
			in->ratio = en ? (double)run / (double)en : 1;
			in->delta = run ? in->delta * (double)en / (double)run : 0;
		}
	}
	return 0;
}

/* Printing */

static void print_row(double t, const struct row *r, double v, const char *na, double ratio)
{
	const struct mdef *m = r->m;
	char unit_name[80] = "-", part[16] = "-", val[64];

	if (r->st)
		snprintf(unit_name, sizeof(unit_name), "%s<%04x:%02x>", r->st->pmu, r->st->seg,
			 r->st->bus);
	if (r->part == PART_ALL)
		snprintf(part, sizeof(part), "all");
	else if (r->part >= 0)
		snprintf(part, sizeof(part), "%d", r->part);
	if (na)
		snprintf(val, sizeof(val), "%s", na);
	else
		snprintf(val, sizeof(val), ro.sep || ro.json ? "%.9g" : "%.3f", v);

	if (ro.json) {
		struct json_object *o = json_object_new_object();
		char bus[16];

		if (ro.interval_ms)
			run_json_num(o, "time", t, "%.6f");
		json_object_object_add(o, "socket", json_object_new_int(r->socket));
		json_object_object_add(o, "io_unit", r->st ? json_object_new_string(unit_name) : NULL);
		if (r->st) {
			snprintf(bus, sizeof(bus), "%04x:%02x", r->st->seg, r->st->bus);
			json_object_object_add(o, "pmu", json_object_new_string(r->st->pmu));
			json_object_object_add(o, "root_bus", json_object_new_string(bus));
		}
		if (r->part == PART_ALL)
			json_object_object_add(o, "part", json_object_new_string("all"));
		else if (r->part >= 0)
			json_object_object_add(o, "part", json_object_new_int(r->part));
		if (r->dev[0] != '-')
			json_object_object_add(o, "device", json_object_new_string(r->dev));
		json_object_object_add(o, "metric", json_object_new_string(m->name));
		if (na) {
			json_object_object_add(o, "value", NULL);
			json_object_object_add(o, "note", json_object_new_string(na));
		} else {
			run_json_num(o, "value", v, "%.9g");
		}
		json_object_object_add(o, "unit", json_object_new_string(m->unit));
		run_json_num(o, "running", floor(ratio * 10000) / 100, "%.2f");
		run_json_line(&ro, o);
		return;
	}
	if (ro.sep) {
		if (ro.interval_ms)
			fprintf(ro.out, "%.6f%s", t, ro.sep);
		fprintf(ro.out, "S%u%s%s%s%s%s%s%s%s%s%s%s%s%s%.2f\n", r->socket, ro.sep, unit_name, ro.sep,
		       part, ro.sep, r->dev, ro.sep, m->name, ro.sep, val, ro.sep, m->unit,
		       ro.sep, floor(ratio * 10000) / 100);
		return;
	}
	if (ro.interval_ms)
		fprintf(ro.out, "%14.6f  ", t);
	fprintf(ro.out, "S%-2u %-24s %-4s %-14s %-26s %14s", r->socket, unit_name, part, r->dev,
	       m->name, val);
	if (ratio < 1)
		fprintf(ro.out, " %-4s  (multiplexed: running %.2f%%, scaled)", m->unit,
		       floor(ratio * 10000) / 100);
	else if (*m->unit)
		fprintf(ro.out, " %s", m->unit);
	fputc('\n', ro.out);
}

static void print_header(void)
{
	if (ro.sep || ro.json)
		return;
	if (ro.interval_ms)
		fprintf(ro.out, "%14s  ", "# time");
	fprintf(ro.out, "%-3s %-24s %-4s %-14s %-26s %14s %-4s\n", ro.interval_ms ? "skt" : "#sk",
	       "io_unit", "part", "device", "metric", "value", "unit");
}

/*
 * An instance's count over @secs of wall time.  Each group counts from
 * its own read to its own read, and reading every group takes time (an
 * IPI per group to its die's CPU): its time enabled is its window, so
 * its count per second is delta / time enabled, whatever the wall clock
 * says.  With --time ioclk the IIO clock, read in the same pass, is the
 * interval: the count as it is.
 */
static double inst_count(const struct inst *in, double secs)
{
	if (opt.time_ioclk || !(in->en_ns > 0))
		return in->delta;
	return in->delta * secs * 1e9 / in->en_ns;
}

static void compute_row(double t, const struct row *r, double wall)
{
	const struct mdef *m = r->m;
	struct mctx x = { .secs = wall, .ghz = opt.ghz, .link_mbps = r->link_mbps,
			  .dram_max = opt.dram_max };
	static char na[80];
	double ratio = 1, v = NAN;
	unsigned int i, j;

	if (r->na[0]) {
		print_row(t, r, v, r->na, 1);
		return;
	}
	for (i = 0; i < m->nr; i++) {
		bool found = false;

		for (j = 0; j < r->nr_inst; j++) {
			const struct inst *in = &insts[r->inst[j]];

			if (in->ev != m->ev[i])
				continue;
			found = true;
			x.c[i] += inst_count(in, wall);
			if (in->ratio < ratio)
				ratio = in->ratio;
		}
		if (!found) {
			snprintf(na, sizeof(na), "n/a (no %s PMU)", units[evs[m->ev[i]].unit].name);
			x.na = na;
		}
	}
	if (r->ioclk >= 0) {
		double ioclk = inst_count(&insts[r->ioclk], wall);

		if (opt.time_ioclk)
			x.secs = ioclk / (opt.ghz * 1e9);
		if (!(opt.ghz > 0) && x.secs > 0)
			x.ghz = ioclk / x.secs / 1e9;
	} else if (opt.time_ioclk && !x.na) {
		x.na = "n/a (no uncore_iio_free_running PMU)";
	}
	if (!x.na && ratio == 0)
		x.na = "n/a (never counted: multiplexed out)";
	if (!x.na)
		v = m->fn(&x);
	if (!x.na && !isfinite(v))
		x.na = "-";
	print_row(t, r, v, x.na, ratio);
}

static int sample(void *ctx, double t)
{
	int64_t now = now_ns();
	double wall = (double)(now - last_ns) / 1e9;
	unsigned int r;

	(void)ctx;
	last_ns = now;
	if (read_groups())
		return -1;
	for (r = 0; r < nr_rows; r++)
		compute_row(t, &rows[r], wall);
	fflush(ro.out);
	return 0;
}

/* -l */
static void list_all(void)
{
	unsigned int g, j, r;

	for (r = 0; r < nr_rows; r++) {
		const struct row *rw = &rows[r];

		char part[16] = "-";

		if (rw->part == PART_ALL)
			snprintf(part, sizeof(part), "all");
		else if (rw->part >= 0)
			snprintf(part, sizeof(part), "%d", rw->part);
		fprintf(ro.out, "row S%u %s part %s %s %s:", rw->socket, rw->st ? rw->st->pmu : "-", part,
		       rw->dev, rw->m->name);
		for (j = 0; j < rw->m->nr; j++)
			fprintf(ro.out, " %s", evs[rw->m->ev[j]].name);
		fputc('\n', ro.out);
	}
	for (g = 0; g < nr_grps; g++) {
		const struct grp *gr = &grps[g];

		fprintf(ro.out, "group %u %s cpu %d:", g, insts[gr->inst[0]].pmu, insts[gr->inst[0]].cpu);
		for (j = 0; j < gr->nr; j++) {
			const struct inst *in = &insts[gr->inst[j]];
			char spec[128];

			snprintf(spec, sizeof(spec), evs[in->ev].spec,
				 in->part == PART_ALL ? 0xffU : 1U << (in->part < 0 ? 0 : in->part));
			fprintf(ro.out, " %s/%s/", in->pmu, spec);
		}
		fputc('\n', ro.out);
	}
}

/* Arguments */

static int select_metrics(const char *list)
{
	char *copy = strdup(list), *tok, *save;
	unsigned int i;
	int ret = 0;

	if (!copy)
		return -1;
	memset(opt.want, 0, sizeof(opt.want));
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool found = false;

		for (i = 0; i < NR_METRICS; i++) {
			if (!strcmp(tok, mdefs[i].name) || !strcmp(tok, mdefs[i].group)) {
				opt.want[i] = true;
				found = true;
			}
		}
		if (!found) {
			err("-m: no metric or group '%s' (see -h)", tok);
			ret = -1;
			break;
		}
	}
	free(copy);
	return ret;
}

static int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		RUN_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "vtd", no_argument, NULL, 'V' },
		{ "time", required_argument, NULL, 'T' },
		{ "ioclk-ghz", required_argument, NULL, 'G' },
		{ "dram-max", required_argument, NULL, 'D' },
		{ }
	};
	const char *metrics = NULL;
	bool vtd = false;
	unsigned int i;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+" RUN_SHORTOPTS "g:m:d:slh", longopts, NULL)) != -1) {
		int shared = run_parse_opt(&ro, c, optarg);

		if (shared < 0)
			return -1;
		if (shared)
			continue;
		switch (c) {
		case 'g':
			if (strcmp(optarg, "device") && strcmp(optarg, "stack")) {
				err("-g: device or stack, not '%s'", optarg);
				return -1;
			}
			opt.by_stack = !strcmp(optarg, "stack");
			break;
		case 'm':
			metrics = optarg;
			break;
		case 'V':
			vtd = true;
			break;
		case 'd': {
			char *copy = strdup(optarg), *tok, *save;
			unsigned int seg, bus, dev, fn;
			bool bad = !copy || !*optarg;

			for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !bad;
			     tok = strtok_r(NULL, ",", &save))
				bad = !iio_parse_bdf(tok, &seg, &bus, &dev, &fn);
			free(copy);
			if (bad) {
				err("-d: PCI functions SSSS:BB:DD.F, comma-separated, not '%s'", optarg);
				return -1;
			}
			opt.devs = optarg;
			break;
		}
		case 'G':
			opt.ghz = strtod(optarg, &end);
			if (*end || !(opt.ghz > 0) || opt.ghz > 100) {
				err("--ioclk-ghz: a clock in GHz above 0, not '%s'", optarg);
				return -1;
			}
			break;
		case 'T':
			if (strcmp(optarg, "wall") && strcmp(optarg, "ioclk")) {
				err("--time: wall or ioclk, not '%s'", optarg);
				return -1;
			}
			opt.time_ioclk = !strcmp(optarg, "ioclk");
			break;
		case 'D':
			opt.dram_max = strtod(optarg, &end);
			if (*end || !(opt.dram_max > 0)) {
				err("--dram-max: a bandwidth in MB/s above 0, not '%s'", optarg);
				return -1;
			}
			break;
		case 's':
			opt.sim_only = true;
			break;
		case 'l':
			opt.list = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (opt.time_ioclk && !(opt.ghz > 0)) {
		err("--time ioclk needs the clock's frequency (--ioclk-ghz GHZ)");
		return -1;
	}
	for (i = 0; i < NR_METRICS; i++)
		opt.want[i] = !(mdefs[i].flags & MF_OFF) || (vtd && !strcmp(mdefs[i].group, "vtd"));
	if (metrics && select_metrics(metrics))
		return -1;
	if (vtd)
		for (i = 0; i < NR_METRICS; i++)
			opt.want[i] |= !strcmp(mdefs[i].group, "vtd");
	return run_parse_end(&ro, argc, argv, optind);
}

int main(int argc, char **argv)
{
	unsigned int i;
	int status = 0, ret = 1;

	for (i = 0; i < IIO_MAX_SOCKETS; i++)
		cpu_of_socket[i] = -1;
	if (parse_args(argc, argv))
		return 2;
	pmu_cache_files();	/* every event's encoding reads its PMU's format/ */
	iio_load_stacks(&topo);
	if (!topo.nr_st) {
		err("no uncore_iio_<N> PMU with dieX files in %s (is upmu_icx, or intel_uncore, loaded?)",
		    pmu_devices_dir());
		goto out;
	}
	if (iio_load_functions(&topo, opt.sim_only) || load_cpus(topo.st[0].pmu)) {
		err("%s: cannot read its cpumask", topo.st[0].pmu);
		goto out;
	}
	if (check_devs() || build_rows() || schedule())
		goto out;
	if (!nr_rows && ro.has_cpus) {
		err("-C: no die's uncore PMUs count on those CPUs (%s's cpumask: the CPU of each die)",
		    topo.st[0].pmu);
		goto out;
	}
	if (!nr_rows) {
		err("nothing to count: no PCI device below a stack (try -g stack)");
		goto out;
	}
	if (opt.list) {
		list_all();
		ret = 0;
		goto out;
	}
	/* a buffer that holds an interval's lines: one write each */
	setvbuf(ro.out, outbuf, _IOFBF, sizeof(outbuf));
	if (for_each_group(open_group) || for_each_group(enable_group) || read_groups())
		goto out;
	last_ns = now_ns();
	print_header();
	if (run_loop(&ro, sample, NULL, &status))
		goto out;
	ret = run_exit_status(ro.cmd, status);
out:
	if (run_close_output(&ro))
		ret = 1;
	if (opened)
		for_each_group(close_group);
	free(insts);
	free(grps);
	free(rows);
	iio_free(&topo);
	return ret;
}
