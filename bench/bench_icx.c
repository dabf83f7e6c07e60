// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_bench's icx section (bench/README): what a read of an Ice Lake-X
 * uncore counter costs, IIO, CHA, IMC and UPI, against cpu-clock on the
 * same CPU (the hardening issue's read goal, applied to this family),
 * and whether it grows with traffic the counters do not see: each turn
 * of a round with one flow and with fifteen more on the other socket.
 * A register read must not walk every block and flow.
 */

#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "bench_util.h"
#include "upmu_pmu.h"

#define ICX_READERS	5
#define ICX_EXTRA	15	/* flows 2..16 of the second configuration */

static const char * const icx_pmu[ICX_READERS] = {
	NULL, "uncore_iio_1", "uncore_cha_0", "uncore_imc_0", "uncore_upi_0",
};

/* DATA_REQ_OF_CPU.MEM_READ.PART0, TOR_INSERTS.IO_MISS_PCIRDCUR, CAS_COUNT.RD, TxL_FLITS.ALL_DATA */
static const char * const icx_spec[ICX_READERS] = {
	NULL, "event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7", "event=0x35,umask=0xc8f3fe04",
	"event=0x4,umask=0xf", "event=0x2,umask=0xf",
};

static const char *icx_dir;

/*
 * Flow @id (1..16): a device's reads of local memory, 1 below socket 0's
 * stack 1, the others below socket 1's stack id % 6, where none of the
 * counters read (socket 0's) sees them.
 */
static void icx_flow(char *buf, size_t len, int id)
{
	snprintf(buf, len, "add id=%d socket=%d stack=%d part=0 op=rd size=256 rate=1000000 lat=500",
		 id, id == 1 ? 0 : 1, id == 1 ? 1 : id % 6);
}

/* The simulator's debugfs stats (Documentation/upmu-sim.rst): 0 or -1. */
static int icx_stats(unsigned long long *catch_ups, unsigned long long *locked)
{
	char path[512];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/stats", icx_dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "catch_ups=%llu locked_xfers=%llu", catch_ups, locked);
	fclose(f);
	return n == 2 ? 0 : -1;
}

/* Configuration @c: 0 one flow, 1 sixteen (fifteen on socket 1). 0 or -1. */
static int icx_config(int c)
{
	static int now;
	char buf[128];
	int id;

	if (now == c)
		return 0;
	for (id = 2; id <= 1 + ICX_EXTRA; id++) {
		if (c)
			icx_flow(buf, sizeof(buf), id);
		else
			snprintf(buf, sizeof(buf), "del id=%d", id);
		if (sim_write_dir(icx_dir, "flows", buf))
			return -1;
	}
	now = c;
	return 0;
}

void section_icx(const char *dir, long n)
{
	static const char * const cfg[] = { "one flow", "sixteen flows" };
	struct reader r[2][MAX_READERS], open[ICX_READERS];
	char names[ICX_READERS][128], buf[128], goal[64];
	double q[2][ICX_READERS];
	unsigned long long cu0, lx0, cu1, lx1;
	long reads = 0;
	int c, i, cpu, round;

	printf("\n== read() of an Ice Lake-X uncore counter on its die's CPU: %ld reads (at most %g s) x %d rounds,\n"
	       "   each turn of a round with one flow and with fifteen more on the other socket\n", n, max_secs, rounds);
	if (!dir) {
		printf("  skipped: no simulated Ice Lake-X given (-X)\n");
		return;
	}
	icx_dir = dir;
	cpu = pmu_cpu(icx_pmu[1]);
	if (cpu < 0) {
		fail("no PMU %s (the simulated Ice Lake-X: -X)", icx_pmu[1]);
		return;
	}
	memset(open, 0, sizeof(open));
	for (i = 0; i < ICX_READERS; i++)
		open[i].fd = -1;
	icx_flow(buf, sizeof(buf), 1);
	if (sim_write_dir(dir, "flows", buf))
		return;
	if (pin(cpu) || reader_open(&open[0], "cpu-clock (software)", NULL, NULL, cpu))
		goto out;
	for (i = 1; i < ICX_READERS; i++) {
		snprintf(names[i], sizeof(names[i]), "%s/%s/", icx_pmu[i], icx_spec[i]);
		if (reader_open(&open[i], names[i], icx_pmu[i], icx_spec[i], 0))
			goto out;
	}
	for (c = 0; c < 2; c++)
		memcpy(r[c], open, sizeof(open));
	if (icx_stats(&cu0, &lx0)) {
		fail("no stats in %s (the simulator's debugfs)", dir);
		goto out;
	}
	for (round = 0; round < rounds; round++)
		if (run_round_cfg(r, 2, ICX_READERS, n, round, icx_config))
			goto out;
	if (icx_stats(&cu1, &lx1)) {
		fail("no stats in %s (the simulator's debugfs)", dir);
		goto out;
	}
	for (c = 0; c < 2; c++)
		for (i = 1; i < ICX_READERS; i++)
			for (round = 0; round < rounds; round++)
				reads += r[c][i].n[round];
	printf("  CPU %d; us per read (median), ratio to cpu-clock in the same configuration\n", cpu);
	printf("  %-52s  %9s  %9s  %7s  %7s\n", "event", cfg[0], cfg[1], "", "");
	for (i = 0; i < ICX_READERS; i++) {
		for (c = 0; c < 2; c++)
			q[c][i] = ratio_median(r[c][i].us, r[c][0].us);
		printf("  %-52s  %9.2f  %9.2f  %6.2fx  %6.2fx\n", r[0][i].name,
		       median(r[0][i].us, rounds), median(r[1][i].us, rounds), q[0][i], q[1][i]);
	}
	/*
	 * A read that takes the lock found its block more than
	 * SIM_READ_STALE_NS behind (a catch-up) or raced a writer; the
	 * catch-ups also count the flow changes between turns.
	 */
	printf("  simulator: %.1f%% of the reads took its lock; %.1f catch-ups per 100 reads\n",
	       reads ? 100.0 * (lx1 - lx0) / reads : 0.0,
	       reads ? 100.0 * (cu1 - cu0) / reads : 0.0);
	for (i = 1; i < ICX_READERS; i++) {
		double grow = ratio_median(r[1][i].us, r[0][i].us);

		snprintf(goal, sizeof(goal), "own-CPU read, %.3s / software", icx_pmu[i] + 7);
		add_summary(goal, q[1][i], "<= 1.3x", q[1][i] <= 1.3, "16 flows");
		snprintf(goal, sizeof(goal), "  %.3s read, 16 flows / 1 flow", icx_pmu[i] + 7);
		add_summary(goal, grow, "<= 1.1x", grow <= 1.1, NULL);
	}
out:
	icx_config(0);
	sim_write_dir(dir, "flows", "del id=1");
	close_readers(open, ICX_READERS);
}
