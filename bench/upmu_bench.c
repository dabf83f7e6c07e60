// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_bench: what reading and opening upmu events costs, as ratios to a
 * software event measured side by side in the same run (bench/README).
 *
 * Sections (-s, default all):
 *   read    read() of a counting event on the PMU's CPU: cpu-clock,
 *           UCF and CMEM events, N reads per round
 *   kinds   the same for a data event of each other Tegra410 kind
 *           (PCIE, PCIE-TGT, NVLink-C2C, NV-CLink, NV-DLink)
 *   remote  the same from another CPU of the PMU's socket, with the
 *           function-call IPIs (CAL in /proc/interrupts) it caused
 *   open    open + enable + close of every named event of every upmu PMU
 *           (nvidia_*, uncore_* of the Ice Lake-X, upmu_nic_*; a "?"
 *           parameter set to 0), each against a cpu-clock event on the
 *           same CPU, from that CPU; a ratio per family
 *   sim     the simulator's share: UCF and CMEM reads with the sim's
 *           realtime clock and the flow running, with the flow deleted,
 *           and with the manual clock (no clocksource read, no flow work),
 *           in turn; and the cost of one clocksource read
 *   pmuread read() of a NIC data ID (the NIC's perf PMU, upmu_nic_*)
 *           against a UCF read and cpu-clock
 *   rpc     a fwctl RPC round trip of a query command to the NIC's
 *           firmware against the FWCTL_INFO ioctl on the same file
 *   sustain the diag library's retrieval at DOCA's sizing example:
 *           repetitive mode, 100 us period, a buffer of twice the samples
 *           of a 500 ms retrieval, for 60 s of device time: no sample
 *           lost, and the CPU time of a retrieval against its interval
 *   (bench_nic.c; "nic" is the three)
 *   icx     read() of Ice Lake-X IIO, CHA, IMC and UPI counters on their
 *           die's CPU against cpu-clock, with one flow and with sixteen
 *           (bench_icx.c; needs -X)
 *
 * Prints times and ratios (median of the rounds) next to their goals.
 * Goals are not tests: the exit status is 0 unless the benchmark could
 * not run (a PMU missing, an event that does not open, a read failing).
 */

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "upmu_pmu.h"
#include "bench_util.h"

#define MAX_EVENTS	1024

#define CMEM_PMU	"nvidia_cmem_latency_pmu_0"
#define CMEM_SPEC	"rd_req"

long reads = 100000;		/* -n */
static long sim_reads;		/* -m, default reads / 10 */
int rounds = 3;			/* -r */
double max_secs = 5;		/* -t */
static int passes = 50;		/* -p */
static const char *simdir = "/sys/kernel/debug/upmu_sim/1";	/* -d */
static const char *flow;	/* -f */
static const char *icx_dir;	/* -X */
int nic_id = 2;			/* -N */
int sustain_secs = 60;		/* -S */
static bool failed, failed_check;

/* Own-CPU medians, kept for the remote section and the summary. */
static double own_ucf, own_cmem;
/*
 * Percentage of the UCF and CMEM read time (above cpu-clock's) that goes
 * away with the sim's manual clock and no flow, if sim_done.
 */
static double sim_pct[2];
static bool sim_done;
/* UCF and CMEM read / cpu-clock with the manual clock and no flow */
static double sim_manual[2];
static char clocksource[64] = "?";

struct summary {
	char what[64];
	double ratio;
	const char *goal;
	bool met;
	char note[64];
};

/* Every section's lines: 33 on the debug kernel with every section. */
static struct summary summ[64];
static int nsumm;

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "upmu_bench: error: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failed = true;
}

void fail_check(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL: ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	failed_check = true;
}

int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fail("cannot run on CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/* The CPU whose function call interrupts cal_count() counts. */
static int cal_cpu;

/*
 * Function call interrupts (the "CAL:" line of /proc/interrupts) that
 * cal_cpu received so far, or -1.
 */
static long cal_count(void)
{
	char line[4096], name[32], *p, *end;
	long val = -1;
	int col = 0, i;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	/* the header names the column of each online CPU: "CPU0 CPU1 ..." */
	if (!fgets(line, sizeof(line), f))
		goto out;
	snprintf(name, sizeof(name), "CPU%d", cal_cpu);
	for (p = strtok_r(line, " \t\n", &end); p; p = strtok_r(NULL, " \t\n", &end), col++)
		if (!strcmp(p, name))
			break;
	if (!p)
		goto out;
	while (fgets(line, sizeof(line), f)) {
		for (p = line; *p == ' '; p++)
			;
		if (strncmp(p, "CAL:", 4))
			continue;
		p += 4;
		for (i = 0; i <= col; i++) {
			val = strtol(p, &end, 10);
			if (end == p) {
				val = -1;
				break;
			}
			p = end;
		}
		break;
	}
out:
	fclose(f);
	return val;
}

/* First number of a cpulist ("0-1,4") other than @not, or -1. */
static int cpulist_other(const char *list, int not)
{
	const char *p = list;

	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo, c;

		if (end == p)
			return -1;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (c = lo; c <= hi; c++)
			if (c != not)
				return c;
		p = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return -1;
}

static int sw_open(int cpu, bool disabled)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.disabled = disabled;
	return perf_open(&attr, -1, cpu, -1);
}

int reader_open(struct reader *r, const char *name, const char *pmu,
		const char *spec, int cpu)
{
	int ret;

	r->name = name;
	r->fd = pmu ? pmu_open(pmu, spec, -1) : sw_open(cpu, false);
	if (r->fd < 0) {
		fail("cannot open %s: %s", name, strerror(-r->fd));
		return -1;
	}
	ret = count_read(r->fd, &r->first);
	if (ret)
		fail("read of %s: %s", name, strerror(-ret));
	return ret;
}

/* Reads of @r: @want, or fewer if a check every 16 sees @budget us pass. */
static long read_turn(struct reader *r, long want, double budget, bool check,
		      double *us)
{
	double t0 = now_us();
	long k;

	for (k = 0; k < want; k++) {
		int ret = r->op ? r->op(r) : count_read(r->fd, &r->last);

		if (ret) {
			fail("read of %s: %s", r->name, strerror(-ret));
			return -1;
		}
		if (check && !((k + 1) % 16) && now_us() - t0 > budget) {
			k++;
			break;
		}
	}
	*us = now_us() - t0;
	return k;
}

#define TURNS		50

/*
 * Round @round of @n reads of each reader, or fewer of a reader whose
 * reads take more than max_secs.  The readers take TURNS turns each,
 * interleaved, so that they all see the same load on the machine: a turn
 * is 1/TURNS of the reads and of the time.  The first turn checks the time
 * as it goes, later turns do as many reads as fit the time by the last.
 * CALs are counted between turns.
 *
 * @r[c] are the @nr readers of configuration c of @ncfg; each turn goes
 * through every configuration, in a rotating order: @setup(c) (if not
 * NULL), then the readers of @r[c].  0 or -1.
 */
int run_round_cfg(struct reader r[][MAX_READERS], int ncfg, int nr,
			 long n, int round, int (*setup)(int c))
{
	long quota = (n + TURNS - 1) / TURNS, cal0, cal1;
	long done[MAX_CFGS][MAX_READERS] = { { 0 } };
	double us[MAX_CFGS][MAX_READERS] = { { 0 } }, cal[MAX_CFGS][MAX_READERS] = { { 0 } };
	double budget = max_secs * 1e6 / TURNS;
	int t, c, i, j;

	cal0 = cal_count();
	for (t = 0; t < TURNS; t++) {
		for (j = 0; j < ncfg; j++) {
			/* a different order of the configurations every turn */
			c = (j + t) % ncfg;
			if (setup && setup(c))
				return -1;
			for (i = 0; i < nr; i++) {
				long want = n - done[c][i] < quota ? n - done[c][i] : quota, k;
				double dt, per = done[c][i] ? us[c][i] / done[c][i] : 0;

				if (want <= 0)
					continue;
				if (t && per * want > budget)
					want = budget / per > 1 ? budget / per : 1;
				k = read_turn(&r[c][i], want, budget, !t, &dt);
				if (k < 0)
					return -1;
				done[c][i] += k;
				us[c][i] += dt;
				cal1 = cal_count();
				cal[c][i] += cal1 - cal0;
				cal0 = cal1;
			}
		}
	}
	for (c = 0; c < ncfg; c++) {
		for (i = 0; i < nr; i++) {
			struct reader *rd = &r[c][i];

			rd->want = n;
			rd->n[round] = done[c][i];
			rd->us[round] = us[c][i] / done[c][i];
			rd->cal[round] = cal0 < 0 ? -1 : cal[c][i] / done[c][i];
		}
	}
	return 0;
}

/* Median over the rounds of @a[round] / @b[round]. */
double ratio_median(const double *a, const double *b)
{
	double q[MAX_ROUNDS];
	int i;

	for (i = 0; i < rounds; i++)
		q[i] = a[i] / b[i];
	return median(q, rounds);
}

void print_head(const char *first, bool cal)
{
	int i;

	printf("  %-40s", first);
	for (i = 0; i < rounds; i++)
		printf("  round%-3d", i + 1);
	printf("  %8s  %8s", "median", "ratio");
	if (cal)
		printf("  %8s  %s", "CAL/read", "reads");
	printf("\n");
}

/* Per-round times; ratios to @base's times in the same rounds. */
static void print_times(const char *name, const double *us, const double *base)
{
	int i;

	printf("  %-40s", name);
	for (i = 0; i < rounds; i++)
		printf("  %8.2f", us[i]);
	printf("  %8.2f  %7.2fx", median(us, rounds), ratio_median(us, base));
}

static void print_ratios(const double *us, const double *base)
{
	int i;

	printf("  %-40s", "    ratio in the round");
	for (i = 0; i < rounds; i++)
		printf("  %7.2fx", us[i] / base[i]);
	printf("\n");
}

void print_reader(const struct reader *r, const struct reader *base)
{
	double c = median(r->cal, rounds);
	long min = r->n[0];
	int i;

	for (i = 1; i < rounds; i++)
		if (r->n[i] < min)
			min = r->n[i];
	print_times(r->name, r->us, base->us);
	if (r->op)	/* not a perf event: no CAL count of its CPU */
		printf("  %8s", "");
	else if (c < 0)
		printf("  %8s", "?");
	else
		printf("  %8.3f", c);
	printf("  %ld%s\n", min, min < r->want ? " (time limit)" : "");
	if (r != base)
		print_ratios(r->us, base->us);
}

void add_summary(const char *what, double ratio, const char *goal, bool met,
		 const char *note)
{
	struct summary *s;

	if (nsumm == (int)(sizeof(summ) / sizeof(summ[0]))) {
		fail("more than %d summary lines: %s not kept", nsumm, what);
		return;
	}
	s = &summ[nsumm++];
	snprintf(s->what, sizeof(s->what), "%s", what);
	s->ratio = ratio;
	s->goal = goal;
	s->met = met;
	snprintf(s->note, sizeof(s->note), "%s", note ? note : "");
}

void close_readers(struct reader *r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (r[i].fd >= 0)
			close(r[i].fd);
}

/* Rounds of @n reads of each of the @nr readers @r, on CPU @cpu. */
int run_rounds(struct reader *r, int nr, long n, int cpu)
{
	int round;

	if (pin(cpu))
		return -1;
	for (round = 0; round < rounds; round++)
		if (run_round_cfg((struct reader (*)[MAX_READERS])r, 1, nr, n, round, NULL))
			return -1;
	return 0;
}

static void section_read(int cpu)
{
	struct reader r[3] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	double ucf, cmem;
	int i;

	printf("\n== read() of a counting event on the PMU's CPU %d: %ld reads (at most %g s) x %d rounds, us per read\n",
	       cpu, reads, max_secs, rounds);
	if (reader_open(&r[0], "cpu-clock (software)", NULL, NULL, cpu) ||
	    reader_open(&r[1], UCF_PMU "/" UCF_SPEC "/", UCF_PMU, UCF_SPEC, 0) ||
	    reader_open(&r[2], CMEM_PMU "/" CMEM_SPEC "/", CMEM_PMU, CMEM_SPEC, 0) ||
	    run_rounds(r, 3, reads, cpu))
		goto out;

	print_head("event", true);
	for (i = 0; i < 3; i++)
		print_reader(&r[i], &r[0]);
	printf("  counted meanwhile: %s %llu, %s %llu\n", r[1].name,
	       (unsigned long long)(r[1].last - r[1].first), r[2].name,
	       (unsigned long long)(r[2].last - r[2].first));
	own_ucf = median(r[1].us, rounds);
	own_cmem = median(r[2].us, rounds);
	ucf = ratio_median(r[1].us, r[0].us);
	cmem = ratio_median(r[2].us, r[0].us);
	add_summary("own-CPU read, UCF / software", ucf, "<= 1.3x", ucf <= 1.3, NULL);
	add_summary("own-CPU read, CMEM / software", cmem, "<= 2x", cmem <= 2.0, NULL);
out:
	close_readers(r, 3);
}

/*
 * The Tegra410 kinds the read section leaves out, each PMU's first
 * instance (socket 0): a data event, which reads what an event reads
 * most.  A link event (NVLink-C2C, NV-CLink, NV-DLink) reads its counter
 * on each of the link's 12 to 16 instances, in halves: 36 to 48
 * registers, as CMEM's 42, and the same goal as CMEM's (bench/README).
 */
static const struct {
	const char *kind, *pmu, *spec;
	double goal;
} kind_events[] = {
	{ "PCIE", "nvidia_pcie_pmu_0_rc_0", "rd_bytes", 1.3 },
	{ "PCIE-TGT", "nvidia_pcie_tgt_pmu_0_rc_0", "rd_bytes", 1.3 },
	{ "NVLink-C2C", "nvidia_nvlink_c2c_pmu_0", "in_rd_req", 2 },
	{ "NV-CLink", "nvidia_nvclink_pmu_0", "in_rd_req", 2 },
	{ "NV-DLink", "nvidia_nvdlink_pmu_0", "in_rd_req", 2 },
};
#define NR_KINDS	(sizeof(kind_events) / sizeof(kind_events[0]))

static void section_kinds(int cpu)
{
	static char names[NR_KINDS][128], goal[NR_KINDS][24];
	struct reader r[MAX_READERS];
	const int nr = NR_KINDS + 1;
	char what[96];
	double ratio;
	int i;

	_Static_assert(NR_KINDS + 1 <= MAX_READERS,
		       "one reader per kind and cpu-clock");
	for (i = 0; i < nr; i++)
		r[i] = (struct reader){ .fd = -1 };
	printf("\n== read() of an event of each other Tegra410 PMU kind on CPU %d: %ld reads (at most %g s) x %d\n"
	       "   rounds, us per read\n", cpu, reads, max_secs, rounds);
	if (reader_open(&r[0], "cpu-clock (software)", NULL, NULL, cpu))
		goto out;
	for (i = 1; i < nr; i++) {
		snprintf(names[i - 1], sizeof(names[0]), "%s/%s/", kind_events[i - 1].pmu,
			 kind_events[i - 1].spec);
		if (pmu_cpu(kind_events[i - 1].pmu) != cpu) {
			fail("%s is not on CPU %d", kind_events[i - 1].pmu, cpu);
			goto out;
		}
		if (reader_open(&r[i], names[i - 1], kind_events[i - 1].pmu,
				kind_events[i - 1].spec, 0))
			goto out;
	}
	if (run_rounds(r, nr, reads, cpu))
		goto out;
	print_head("event", true);
	for (i = 0; i < nr; i++)
		print_reader(&r[i], &r[0]);
	for (i = 1; i < nr; i++) {
		snprintf(what, sizeof(what), "own-CPU read, %s / software", kind_events[i - 1].kind);
		snprintf(goal[i - 1], sizeof(goal[0]), "<= %gx", kind_events[i - 1].goal);
		ratio = ratio_median(r[i].us, r[0].us);
		add_summary(what, ratio, goal[i - 1], ratio <= kind_events[i - 1].goal, NULL);
	}
out:
	close_readers(r, nr);
}

static void section_remote(int pmucpu)
{
	struct reader r[3] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	char list[256], note[64];
	int cpu, i;

	if (pmu_read(UCF_PMU, "associated_cpus", list, sizeof(list))) {
		fail("cannot read %s/associated_cpus", UCF_PMU);
		return;
	}
	cpu = cpulist_other(list, pmucpu);
	printf("\n== read() from CPU %d, another CPU of the PMU's socket (CPUs %s, PMU on CPU %d):\n"
	       "   %ld reads (at most %g s) x %d rounds, us per read\n",
	       cpu, list, pmucpu, reads, max_secs, rounds);
	if (cpu < 0) {
		printf("  skipped: the socket has no other CPU\n");
		return;
	}
	if (reader_open(&r[0], "cpu-clock (software, own CPU)", NULL, NULL, cpu) ||
	    reader_open(&r[1], UCF_PMU "/" UCF_SPEC "/", UCF_PMU, UCF_SPEC, 0) ||
	    reader_open(&r[2], CMEM_PMU "/" CMEM_SPEC "/", CMEM_PMU, CMEM_SPEC, 0) ||
	    run_rounds(r, 3, reads, cpu))
		goto out;

	print_head("event", true);
	for (i = 0; i < 3; i++)
		print_reader(&r[i], &r[0]);
	for (i = 1; i < 3; i++) {
		double own = i == 1 ? own_ucf : own_cmem;
		double m = median(r[i].us, rounds), cal = median(r[i].cal, rounds);
		int n = 0;

		if (own > 0) {
			printf("  %s: %.2fx its own-CPU read\n", r[i].name, m / own);
			n = snprintf(note, sizeof(note), "%.2fx own-CPU read, ", m / own);
		}
		snprintf(note + n, sizeof(note) - n, "%.2f CAL/read", cal);
		add_summary(i == 1 ? "other-CPU read, UCF / software" :
				     "other-CPU read, CMEM / software",
			    ratio_median(r[i].us, r[0].us), "no IPI (0 CAL/read)",
			    cal >= 0 && cal < 0.1, note);
	}
out:
	close_readers(r, 3);
}

/* ---- open + enable + close ------------------------------------------- */

struct oevent {
	char pmu[64];
	char name[64];
	struct perf_event_attr attr;
	int cpu;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Names (sorted) of the entries of @dir matching @keep; count or -errno. */
static int list_dir(const char *dir, bool (*keep)(const char *), char **names,
		    int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !keep(de->d_name))
			continue;
		if (n == max) {
			n = -E2BIG;
			break;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_str);
	return n;
}

static bool is_nvidia(const char *name)
{
	return !strncmp(name, "nvidia_", 7);
}

/* Every family's counting PMUs: Tegra410, Ice Lake-X, the NIC's. */
static bool is_upmu(const char *name)
{
	return is_nvidia(name) || !strncmp(name, "uncore_", 7) ||
	       !strncmp(name, "upmu_nic_", 9);
}

/*
 * @name with perf's "?" parameters of its sysfs text (",port=?") given
 * as 0 ("port_rx_bytes,port=0"), into @spec.
 */
static void event_spec(const char *pmu, const char *name, char *spec, size_t len)
{
	char text[256], *p, *q;
	size_t n;

	n = snprintf(spec, len, "%s", name);
	snprintf(text, sizeof(text), "events/%s", name);
	if (pmu_read(pmu, text, text, sizeof(text)))
		return;
	for (p = text; (q = strstr(p, "=?")) && n < len; p = q + 2) {
		const char *t = q;

		while (t > text && t[-1] != ',')
			t--;
		n += snprintf(spec + n, len - n, ",%.*s=0", (int)(q - t), t);
	}
}

/* Named events, not their .unit and .scale files. */
static bool is_event(const char *name)
{
	return !strchr(name, '.');
}

/*
 * The PMU's kind: its name without the _<number> parts (pmu_0_rc_4 ->
 * pmu_rc); the NIC's without its serial.
 */
static void pmu_kind(const char *pmu, char *kind, size_t len)
{
	const char *p = pmu;
	size_t n = 0;

	if (!strncmp(pmu, "upmu_nic_", 9)) {
		snprintf(kind, len, "upmu_nic");
		return;
	}
	while (*p && n + 1 < len) {
		if (*p == '_' && p[1] >= '0' && p[1] <= '9') {
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
			continue;
		}
		kind[n++] = *p++;
	}
	kind[n] = '\0';
}

/* Open, enable and close @attr on @cpu; 0 or -errno. */
static int open_enable_close(struct perf_event_attr *attr, int cpu)
{
	int fd = perf_open(attr, -1, cpu, -1), ret = 0;

	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		ret = -errno;
	close(fd);
	return ret;
}

#define MAX_KINDS	16

struct kind {
	char name[64];
	int nev;
	double sw[MAX_ROUNDS], ev[MAX_ROUNDS];	/* us per event */
};

static void section_open(void)
{
	static struct oevent ev[MAX_EVENTS];
	struct kind kinds[MAX_KINDS];
	struct perf_event_attr swattr;
	char *pmus[256], *names[256], dir[512];
	double sw[MAX_ROUNDS], tot[MAX_ROUNDS], ratio;
	int npmu, nev = 0, nkind = 0, i, j, k, e, round, pass, done[MAX_ROUNDS], min;

	memset(kinds, 0, sizeof(kinds));
	npmu = list_dir(pmu_devices_dir(), is_upmu, pmus, 256);
	if (npmu <= 0) {
		fail("no upmu PMU in %s", pmu_devices_dir());
		return;
	}
	for (i = 0; i < npmu; i++) {
		int n, pcpu = pmu_cpu(pmus[i]);

		snprintf(dir, sizeof(dir), "%s/%s/events", pmu_devices_dir(), pmus[i]);
		n = list_dir(dir, is_event, names, 256);
		if (n == -ENOENT)
			n = 0;		/* raw events only (a CHA) */
		if (n < 0 || pcpu < 0) {
			fail("%s: no events or no cpumask", pmus[i]);
			n = 0;
		}
		for (j = 0; j < n; j++) {
			struct oevent *oe = &ev[nev];
			int ret = -E2BIG;
			char spec[192];

			event_spec(pmus[i], names[j], spec, sizeof(spec));
			if (nev < MAX_EVENTS)
				ret = pmu_attr(pmus[i], spec, &oe->attr);
			if (ret) {
				fail("%s/%s/: %s", pmus[i], names[j], strerror(-ret));
			} else {
				snprintf(oe->pmu, sizeof(oe->pmu), "%s", pmus[i]);
				snprintf(oe->name, sizeof(oe->name), "%s", names[j]);
				oe->cpu = pcpu;
				oe->attr.disabled = 1;
				nev++;
			}
			free(names[j]);
		}
		free(pmus[i]);
	}
	printf("\n== open + enable + close of each named event of the upmu PMUs (%d PMUs, %d events), each against\n"
	       "   a cpu-clock event, on and from the PMU's CPU; %d passes (at most %g s) x %d rounds, us per event\n",
	       npmu, nev, passes, max_secs, rounds);
	if (!nev)
		return;

	memset(&swattr, 0, sizeof(swattr));
	swattr.size = sizeof(swattr);
	swattr.type = PERF_TYPE_SOFTWARE;
	swattr.config = PERF_COUNT_SW_CPU_CLOCK;
	swattr.disabled = 1;

	/* kind of each event, events of a PMU are contiguous */
	for (i = 0; i < nev; i = j) {
		char kname[64];

		pmu_kind(ev[i].pmu, kname, sizeof(kname));
		for (k = 0; k < nkind; k++)
			if (!strcmp(kinds[k].name, kname))
				break;
		if (k == nkind) {
			if (nkind == MAX_KINDS) {
				fail("too many PMU kinds");
				return;
			}
			snprintf(kinds[nkind++].name, sizeof(kinds[0].name), "%s", kname);
		}
		for (j = i; j < nev && !strcmp(ev[j].pmu, ev[i].pmu); j++)
			kinds[k].nev++;
	}

	/* one pass untimed first: the first is much slower under TCG */
	for (e = 0; e < nev; e++) {
		int ret;

		if (pin(ev[e].cpu))
			return;
		ret = open_enable_close(&ev[e].attr, ev[e].cpu);
		if (!ret)
			ret = open_enable_close(&swattr, ev[e].cpu);
		if (ret) {
			fail("%s/%s/ or cpu-clock: %s", ev[e].pmu, ev[e].name, strerror(-ret));
			return;
		}
	}

	for (round = 0; round < rounds; round++) {
		double ksw[MAX_KINDS] = { 0 }, kev[MAX_KINDS] = { 0 };
		double end = now_us() + max_secs * 1e6;

		sw[round] = tot[round] = 0;
		/* -p passes, fewer if they take more than max_secs */
		for (pass = 0; pass < passes && (!pass || now_us() < end); pass++) {
			/*
			 * One PMU at a time, from its CPU (no IPI to install
			 * or remove the events, whose latency under TCG is the
			 * host's scheduling).  After moving there, one untimed
			 * cpu-clock event takes the cost of the move; then
			 * each event of the PMU and a cpu-clock event take
			 * turns, the PMU's first on even passes and cpu-clock
			 * first on odd ones: whatever one leaves behind for
			 * the next (work deferred past close(), such as RCU
			 * callbacks) falls on both kinds alike.
			 */
			for (i = 0; i < nev; i = j) {
				char kname[64];
				int ret;

				for (j = i; j < nev && !strcmp(ev[j].pmu, ev[i].pmu); j++)
					;
				pmu_kind(ev[i].pmu, kname, sizeof(kname));
				for (k = 0; strcmp(kinds[k].name, kname); k++)
					;
				if (pin(ev[i].cpu))
					return;
				ret = open_enable_close(&swattr, ev[i].cpu);
				for (e = i; !ret && e < j; e++) {
					int t;

					for (t = 0; !ret && t < 2; t++) {
						bool pmu_turn = (t == 0) == !(pass & 1);
						double t0 = now_us();

						ret = open_enable_close(pmu_turn ? &ev[e].attr : &swattr,
									ev[e].cpu);
						*(pmu_turn ? &kev[k] : &ksw[k]) += now_us() - t0;
					}
				}
				if (ret) {
					fail("%s/%s/ or cpu-clock: %s", ev[e - 1].pmu,
					     ev[e - 1].name, strerror(-ret));
					return;
				}
			}
		}
		done[round] = pass;
		for (k = 0; k < nkind; k++) {
			int n = kinds[k].nev * pass;

			kinds[k].sw[round] = ksw[k] / n;
			kinds[k].ev[round] = kev[k] / n;
			sw[round] += ksw[k];
			tot[round] += kev[k];
		}
		sw[round] /= (double)nev * pass;
		tot[round] /= (double)nev * pass;
	}

	print_head("events (us per event)", false);
	print_times("cpu-clock (software)", sw, sw);
	for (min = done[0], round = 1; round < rounds; round++)
		if (done[round] < min)
			min = done[round];
	printf("  %d pass%s%s\n", min, min == 1 ? "" : "es", min < passes ? " (time limit)" : "");
	print_times("all upmu events", tot, sw);
	printf("\n");
	print_ratios(tot, sw);
	for (k = 0; k < nkind; k++) {
		char label[128];

		snprintf(label, sizeof(label), "  %.60s (%d)", kinds[k].name, kinds[k].nev);
		print_times(label, kinds[k].ev, kinds[k].sw);
		printf("  (cpu-clock %.1f)\n", median(kinds[k].sw, rounds));
	}
	ratio = ratio_median(tot, sw);
	add_summary("open+enable+close / software", ratio, "<= 1.5x", ratio <= 1.5, NULL);
	for (k = 0; k < nkind; k++) {
		char what[96];

		snprintf(what, sizeof(what), "open+enable+close, %.40s / software",
			 kinds[k].name);
		ratio = ratio_median(kinds[k].ev, kinds[k].sw);
		add_summary(what, ratio, "<= 1.5x", ratio <= 1.5, NULL);
	}
}

/* ---- the simulator's share -------------------------------------------- */

/* Write @s to @file of the simulated device's debugfs directory @dir. */
int sim_write_dir(const char *dir, const char *file, const char *s)
{
	char path[512];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	ret = write_str(path, s);
	if (ret)
		fail("write \"%s\" to %s: %s", s, path, strerror(-ret));
	return ret;
}

static int sim_write(const char *file, const char *s)
{
	return sim_write_dir(simdir, file, s);
}

/* The "id=N" of the flow, for "del id=N". */
static void flow_id(char *buf, size_t len)
{
	const char *p = flow ? strstr(flow, "id=") : NULL;
	size_t n = p ? strcspn(p, " ") : 0;

	snprintf(buf, len, "del %.*s", (int)n, p ? p : "");
}

/*
 * us per syscall: clock_gettime(CLOCK_MONOTONIC) minus getppid, @n calls
 * of each, interleaved in TURNS turns.
 */
static double clocksource_read_us(long n)
{
	long k = (n + TURNS - 1) / TURNS, i;
	double null = 0, clk = 0, t0;
	struct timespec ts;
	int t;

	for (t = 0; t < TURNS; t++) {
		t0 = now_us();
		for (i = 0; i < k; i++)
			syscall(SYS_getppid);
		null += now_us() - t0;
		t0 = now_us();
		for (i = 0; i < k; i++)
			syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
		clk += now_us() - t0;
	}
	return (clk - null) / (k * TURNS);
}

static const char *sim_del;	/* "del id=N" of the flow */

/*
 * Put the sim in configuration @c of section_sim: 0 as it was, 1 without
 * the flow, 2 also with the manual clock.  0 or -1.
 */
static int sim_config(int c)
{
	static bool deleted, manual;

	if (manual != (c == 2)) {
		if (sim_write("clock", c == 2 ? "manual" : "realtime"))
			return -1;
		manual = c == 2;
	}
	if (deleted != (c >= 1)) {
		if (sim_write("flows", c >= 1 ? sim_del : flow))
			return -1;
		deleted = c >= 1;
	}
	return 0;
}

static void section_sim(int cpu)
{
	static const char * const cfg[] = {
		"realtime clock, flow running",
		"realtime clock, flow deleted",
		"manual clock, flow deleted",
	};
	struct reader r[3][MAX_READERS], open[3] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	double cs[MAX_ROUNDS], base[MAX_ROUNDS], q[3][3];
	char del[64];
	int c, i, round;

	printf("\n== the simulator's share of a read on the PMU's CPU %d: %ld reads (at most %g s) x %d rounds,\n"
	       "   each turn of a round with the sim as it is, without the flow, and with the manual clock too\n",
	       cpu, sim_reads, max_secs, rounds);
	if (!flow) {
		printf("  skipped: no flow given (-f)\n");
		return;
	}
	if (pin(cpu))
		return;
	for (round = 0; round < rounds; round++)
		cs[round] = clocksource_read_us(sim_reads);
	printf("  one clocksource read (syscall clock_gettime - getppid): %.2f us\n",
	       median(cs, rounds));

	flow_id(del, sizeof(del));
	if (reader_open(&open[0], "cpu-clock (software)", NULL, NULL, cpu) ||
	    reader_open(&open[1], UCF_PMU "/" UCF_SPEC "/", UCF_PMU, UCF_SPEC, 0) ||
	    reader_open(&open[2], CMEM_PMU "/" CMEM_SPEC "/", CMEM_PMU, CMEM_SPEC, 0))
		goto out;
	for (c = 0; c < 3; c++)
		memcpy(r[c], open, sizeof(open));
	sim_del = del;
	for (round = 0; round < rounds; round++)
		if (run_round_cfg(r, 3, 3, sim_reads, round, sim_config))
			goto out;
	if (sim_config(0))
		goto out;

	/*
	 * cpu-clock does not involve the sim: its reads of all three
	 * configurations make one baseline per round.
	 */
	for (round = 0; round < rounds; round++) {
		double t = 0, n = 0;

		for (c = 0; c < 3; c++) {
			t += r[c][0].us[round] * r[c][0].n[round];
			n += r[c][0].n[round];
		}
		base[round] = t / n;
	}
	printf("  cpu-clock (software): %.2f us per read, the baseline of the ratios\n",
	       median(base, rounds));
	printf("  %-40s  %10s  %10s  %8s  %8s\n", "us per read (median), ratio", "UCF", "CMEM",
	       "UCF", "CMEM");
	for (c = 0; c < 3; c++) {
		for (i = 1; i < 3; i++)
			q[c][i] = ratio_median(r[c][i].us, base);
		printf("  %-40s  %10.2f  %10.2f  %7.2fx  %7.2fx\n", cfg[c],
		       median(r[c][1].us, rounds), median(r[c][2].us, rounds), q[c][1], q[c][2]);
	}
	sim_done = true;
	sim_manual[0] = q[2][1];
	sim_manual[1] = q[2][2];
	/* Shares of the time above cpu-clock's, from the ratios in each round. */
	for (i = 1; i < 3; i++) {
		double full = q[0][i] - 1, flowx = q[0][i] - q[1][i], clock = q[1][i] - q[2][i];

		printf("  %s: of its read time above cpu-clock's, %.0f%% goes away without the flow\n"
		       "    (delivery of its traffic), %.0f%% more with the manual clock (clocksource reads,\n"
		       "    clock-driven counters); %.0f%% remain (driver, perf core, the sim's register walk)\n",
		       i == 1 ? "UCF" : "CMEM", 100 * flowx / full, 100 * clock / full,
		       100 * (full - flowx - clock) / full);
		sim_pct[i - 1] = 100 * (flowx + clock) / full;
	}
out:
	sim_config(0);
	close_readers(open, 3);
}

static void header(int cpu)
{
	char avail[256] = "?", clk[32] = "?", path[512], date[64];
	struct utsname u;
	size_t len;
	time_t t;

	uname(&u);
	read_str("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		 clocksource, sizeof(clocksource));
	if (!read_str("/sys/devices/system/clocksource/clocksource0/available_clocksource",
		      avail, sizeof(avail)))
		avail[strcspn(avail, "\n")] = '\0';
	for (len = strlen(avail); len && avail[len - 1] == ' '; len--)
		avail[len - 1] = '\0';
	snprintf(path, sizeof(path), "%s/clock", simdir);
	read_str(path, clk, sizeof(clk));
	t = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	printf("upmu_bench %s: kernel %s, %ld CPUs, clocksource %s (available: %s)\n",
	       date, u.release, sysconf(_SC_NPROCESSORS_ONLN), clocksource, avail);
	printf("  simulator %s: clock %s, flow: %s\n", simdir, clk, flow ? flow : "none");
	printf("  %s and %s on CPU %d; CAL/read below: function call interrupts\n"
	       "  (IPIs) that CPU %d received, per read\n", UCF_PMU, CMEM_PMU, cpu, cpu);
}

static void summary(void)
{
	int i;

	printf("\n== summary: medians of %d rounds, clocksource %s (goals are targets, not tests)\n",
	       rounds, clocksource);
	if (nsumm)
		printf("  %-36s  %8s  %-24s  %-5s  %s\n", "ratio", "", "goal", "met", "");
	for (i = 0; i < nsumm; i++)
		printf("  %-36s  %7.2fx  %-24s  %-5s  %s\n", summ[i].what,
		       summ[i].ratio, summ[i].goal, summ[i].met ? "yes" : "no",
		       summ[i].note);
	if (sim_done)
		printf("  simulator: the flow and the realtime clock make %.0f%% of a UCF read and %.0f%% of a\n"
		       "  CMEM read (time above cpu-clock's); with the manual clock and no flow the reads\n"
		       "  are %.2fx (UCF) and %.2fx (CMEM) cpu-clock's, the sim's register walk included\n",
		       sim_pct[0], sim_pct[1], sim_manual[0], sim_manual[1]);
}

/* Is the @n characters long @name in the comma-separated @list? */
static bool in_list(const char *list, const char *name, size_t n)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return true;
		p += len;
		if (*p)
			p++;
	}
	return false;
}

static bool has_section(const char *list, const char *name)
{
	return in_list(list, name, strlen(name));
}

#define ALL_SECTIONS	"read,kinds,remote,open,sim,pmuread,rpc,sustain,icx"

/* Anything in @list that is not a section (or "nic")? */
static bool bad_sections(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (!in_list(ALL_SECTIONS ",nic", p, n))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: upmu_bench [-n READS] [-r ROUNDS] [-p PASSES] [-m SIM_READS] [-t SECS]\n"
		"                  [-d SIM_DEBUGFS_DIR] [-f FLOW] [-N NIC_ID] [-S SECS] [-X ICX_DIR]\n"
		"                  [-s SECTION,...]\n"
		"  -n  reads per round (default 100000)\n"
		"  -t  at most SECS of reads per event and round (fewer reads of slow\n"
		"      events), and of open passes per round (default 5)\n"
		"  -r  rounds, the median is reported (default 3, at most %d)\n"
		"  -p  open+enable+close passes over all events per round (default 50)\n"
		"  -m  reads per round in the sim section (default READS / 10)\n"
		"  -d  the simulated device's debugfs directory (default %s)\n"
		"  -f  a flow (\"add id=N ...\") to start first; the sim section deletes it\n"
		"      and adds it back\n"
		"  -N  the simulated NIC's device ID, for pmuread, rpc and sustain\n"
		"      (default %d; created with nic_khz=1310720 nic_log_samples=16, a\n"
		"      flow running; bench/README)\n"
		"  -S  seconds of device time of the sustain section (default %d)\n"
		"  -X  a simulated Ice Lake-X's debugfs directory, for the icx section\n"
		"  -s  sections: " ALL_SECTIONS "\n"
		"      (default all; nic = pmuread,rpc,sustain)\n"
		"example: upmu_bench -n 20000 -s read,nic\n",
		MAX_ROUNDS, simdir, nic_id, sustain_secs);
	exit(status);
}

int main(int argc, char **argv)
{
	const char *sections = ALL_SECTIONS;
	char *end;
	int opt, cpu;

	while ((opt = getopt(argc, argv, "n:r:p:m:t:d:f:N:S:s:X:h")) != -1) {
		switch (opt) {
		case 'n':
		case 'm':
		case 'r':
		case 'p':
		case 'N':
		case 'S': {
			long v = strtol(optarg, &end, 10);

			if (*end || v < 1 || (opt == 'r' && v > MAX_ROUNDS) ||
			    (opt == 'p' && v > 1000000) || (opt == 'N' && v > 0xffff) ||
			    (opt == 'S' && v > 3600))
				usage(2);
			if (opt == 'n')
				reads = v;
			else if (opt == 'm')
				sim_reads = v;
			else if (opt == 'r')
				rounds = v;
			else if (opt == 'N')
				nic_id = v;
			else if (opt == 'S')
				sustain_secs = v;
			else
				passes = v;
			break;
		}
		case 't':
			max_secs = strtod(optarg, &end);
			if (*end || !(max_secs > 0))
				usage(2);
			break;
		case 'd':
			simdir = optarg;
			break;
		case 'f':
			flow = optarg;
			break;
		case 'X':
			icx_dir = optarg;
			break;
		case 's':
			sections = optarg;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (optind != argc || bad_sections(sections))
		usage(2);
	if (!sim_reads)
		sim_reads = reads / 10 ? reads / 10 : 1;
	setvbuf(stdout, NULL, _IOLBF, 0);

	cpu = pmu_cpu(UCF_PMU);
	if (cpu < 0 || pmu_cpu(CMEM_PMU) != cpu) {
		fprintf(stderr, "upmu_bench: %s and %s must exist, on one CPU\n",
			UCF_PMU, CMEM_PMU);
		return 1;
	}
	/* the CPU that a read from another CPU would interrupt */
	cal_cpu = cpu;
	if (flow && sim_write("flows", flow))
		return 1;
	header(cpu);
	if (has_section(sections, "read"))
		section_read(cpu);
	if (has_section(sections, "kinds"))
		section_kinds(cpu);
	if (has_section(sections, "remote"))
		section_remote(cpu);
	if (has_section(sections, "open"))
		section_open();
	if (has_section(sections, "pmuread") || has_section(sections, "nic"))
		section_pmuread(cpu);
	if (has_section(sections, "rpc") || has_section(sections, "nic"))
		section_rpc(cpu);
	if (has_section(sections, "sustain") || has_section(sections, "nic"))
		section_sustain(cpu);
	if (has_section(sections, "sim"))
		section_sim(cpu);
	if (has_section(sections, "icx"))
		section_icx(icx_dir, sim_reads);
	summary();
	if (failed)
		fprintf(stderr, "upmu_bench: the benchmark did not complete\n");
	if (failed_check)
		fprintf(stderr, "upmu_bench: FAIL lines above: a result is wrong\n");
	return failed || failed_check;
}
