// SPDX-License-Identifier: GPL-2.0
/*
 * bench_aux: the NIC's AUX stream (Documentation/upmu-nic-aux.rst) against
 * a plain memcpy, in the guest (bench/README, section aux).
 *
 * The copy: on a NIC on the manual clock, the device takes a buffer's
 * worth of samples while the event is disabled (untimed: that is the
 * simulator's work); then the same fixed CPU work runs on the event's
 * CPU with the event enabled, so that the drain timer commits all of
 * them to the AUX area in the middle of it (interrupting it).  The work's
 * time with the samples waiting, less its time with none (the same
 * enabling and empty ticks), is what the drain of those bytes cost that
 * CPU; a memcpy of the same bytes on the same CPU is the baseline.  Goal:
 * at least half a memcpy's throughput.  Timing is a goal, never a test:
 * exit 1 only if it could not measure.
 *
 * With -k, the cost of a drain tick with 8 IDs: the same CPU work on the
 * event's CPU with the stream off and on, the extra time per tick.
 *
 *   bench_aux -i SIM_ID [-k SIM_ID] [-r ROUNDS] [-n TURNS]
 */

#include <errno.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "upmu_pmu.h"
#include "bench_util.h"

#define DEV_PERIOD	1024	/* dev_period=10 */
#define LOG_SAMPLES	9	/* 512 samples of the 8 doca_default IDs */
#define NR_SAMPLES	(1u << LOG_SAMPLES)
#define AUX_PAGES	256	/* 1 MiB */
#define DRAIN_NS	100000


/* Opens @spec on @pmu disabled, with data and AUX areas mapped. */
static int stream_open(const char *pmu, const char *spec,
		       struct perf_event_mmap_page **pgp)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t data_len = 9 * page, aux_len = AUX_PAGES * page;
	struct perf_event_mmap_page *pg;
	struct perf_event_attr attr;
	void *aux;
	int fd;

	if (pmu_attr(pmu, spec, &attr)) {
		fprintf(stderr, "bench_aux: no %s\n", pmu);
		return -1;
	}
	attr.sample_period = DRAIN_NS;
	attr.disabled = 1;
	fd = perf_open(&attr, -1, pmu_cpu(pmu), -1);
	if (fd < 0) {
		fprintf(stderr, "bench_aux: %s/%s/: %s\n", pmu, spec, strerror(-fd));
		return -1;
	}
	pg = mmap(NULL, data_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		perror("bench_aux: mmap");
		return -1;
	}
	pg->aux_offset = data_len;
	pg->aux_size = aux_len;
	aux = mmap(NULL, aux_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, data_len);
	if (aux == MAP_FAILED) {
		perror("bench_aux: AUX mmap");
		return -1;
	}
	*pgp = pg;
	return fd;
}

static volatile unsigned long sink;

/* A fixed amount of CPU work; its time in us. */
static double work(unsigned long n)
{
	double t0 = now_us();
	unsigned long i, x = 1;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	return now_us() - t0;
}

/* Pins the caller to @cpu. */
static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("bench_aux: sched_setaffinity");
		return -1;
	}
	return 0;
}

/*
 * The drain timer's cost: the same work on the event's CPU with the
 * stream off and on (in turns), the extra time per tick.  The NIC runs
 * on its own clock (2^17 ns device period: about one sample of the 8
 * port_traffic IDs per 100 us drain).
 */
static int tick_section(unsigned int id, unsigned int rounds, unsigned int turns)
{
	struct perf_event_mmap_page *pg;
	double cost[15], offv[64], onv[64];
	char pmu[64];
	unsigned long n = 1000000;
	unsigned int r, t;
	int fd, cpu;

	snprintf(pmu, sizeof(pmu), "upmu_nicdiag_%08x", 0x4e1c0000 + id);
	fd = stream_open(pmu, "port_traffic,dev_period=17", &pg);
	if (fd < 0)
		return 1;
	cpu = pmu_cpu(pmu);
	if (pin(cpu))
		return 1;
	while (work(n) < 100000 && n < (1UL << 40))	/* about 100 ms */
		n *= 2;
	if (turns > 64)
		turns = 64;
	printf("== tick: %s/port_traffic,dev_period=17/ (8 IDs), a drain every %u us, on CPU %d:\n"
	       "   the same work with the stream off and on, %u turns x %u rounds\n",
	       pmu, DRAIN_NS / 1000, cpu, turns, rounds);
	for (r = 0; r < rounds; r++) {
		for (t = 0; t < turns; t++) {
			uint64_t head;

			offv[t] = work(n);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			onv[t] = work(n);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
			__atomic_store_n(&pg->aux_tail, head, __ATOMIC_RELEASE);
		}
		/* extra us over the ticks the work saw */
		cost[r] = (median(onv, turns) - median(offv, turns)) /
			  (median(onv, turns) / (DRAIN_NS / 1000.0));
		printf("  round %u: work %.0f us off, %.0f us on: %.2f us per tick\n",
		       r + 1, median(offv, turns), median(onv, turns), cost[r]);
	}
	printf("  drain tick with 8 IDs: %.2f us (median of rounds)\n", median(cost, rounds));
	close(fd);
	return 0;
}

/* The AUX area's new bytes, consumed. */
static uint64_t aux_consume(struct perf_event_mmap_page *pg, uint64_t *tail)
{
	uint64_t head = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE);
	uint64_t n = head - *tail;

	__atomic_store_n(&pg->aux_tail, head, __ATOMIC_RELEASE);
	*tail = head;
	return n;
}

static double min3_work(unsigned long n)
{
	double a = work(n), b = work(n), c = work(n);

	return a < b ? (a < c ? a : c) : (b < c ? b : c);
}

/*
 * One turn of the copy section.  Both kinds do the same before the
 * timed part: the device takes NR_SAMPLES samples (the simulator's work,
 * forced through nic/unread); with @drained they are drained then (the
 * event enabled until they are in the area, then disabled), without it
 * they stay in the device.  Then the timed part: enable the event, the
 * work, read aux_head.  Returns the work's time in us and the bytes the
 * drain committed during it in @bytes, or a negative value on error.
 */
static double copy_turn(int fd, struct perf_event_mmap_page *pg, uint64_t *tail,
			const char *advance, bool drained, unsigned long n,
			uint64_t *bytes)
{
	char val[32], unread[280];
	uint64_t u = 0;
	double t;

	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	aux_consume(pg, tail);
	snprintf(val, sizeof(val), "%u", NR_SAMPLES * DEV_PERIOD);
	if (write_str(advance, val))
		return -1;
	/* the simulator takes them now (catch-up), not in the drain */
	snprintf(unread, sizeof(unread), "%.*s/nic/unread",
		 (int)(strrchr(advance, '/') - advance), advance);
	/* 511 at the first turn: the last one is not complete yet */
	if (read_u64(unread, &u) || u + 1 < NR_SAMPLES) {
		fprintf(stderr, "bench_aux: %s: %llu samples, not %u\n",
			unread, (unsigned long long)u, NR_SAMPLES);
		return -1;
	}
	if (drained) {
		t = now_us();
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		while (!read_u64(unread, &u) && u && now_us() - t < 1e6)
			usleep(1000);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		aux_consume(pg, tail);
		if (u)
			return -1;
	}
	t = now_us();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	work(n);
	/* what the ticks committed during the work, before stop's drain */
	*bytes = __atomic_load_n(&pg->aux_head, __ATOMIC_ACQUIRE) - *tail;
	t = now_us() - t;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return t;
}

int main(int argc, char **argv)
{
	unsigned int id = 0, tick_id = 0, rounds = 3, turns = 20, r, t;
	struct perf_event_mmap_page *pg;
	char pmu[64], path[256];
	double drain_us[15], cpy_us[15], ratio[15];
	size_t want = NR_SAMPLES * (32 + 24 + 64ull);	/* SAMPLE records of 8 IDs */
	uint64_t tail = 0, bytes = 0;
	unsigned char *src, *dst;
	unsigned long n = 1000;
	int fd, opt;

	while ((opt = getopt(argc, argv, "i:k:r:n:h")) != -1) {
		switch (opt) {
		case 'i': id = strtoul(optarg, NULL, 0); break;
		case 'k': tick_id = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = strtoul(optarg, NULL, 0); break;
		case 'n': turns = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s -i SIM_ID [-k SIM_ID] [-r ROUNDS (1-15)] [-n TURNS]\n"
				"  e.g. %s -i 3 -k 2 -r 3 -n 20 (-i: a NIC on the manual clock\n"
				"  for the copy, -k: a NIC on its own clock for the tick cost)\n",
				argv[0], argv[0]);
			return opt == 'h' ? 0 : 1;
		}
	}
	if (!id || !rounds || rounds > 15 || !turns) {
		fprintf(stderr, "bench_aux: -i SIM_ID needed, -r 1-15, -n > 0 (-h)\n");
		return 1;
	}
	if (turns > BENCH_MAX_MEDIAN)
		turns = BENCH_MAX_MEDIAN;
	snprintf(pmu, sizeof(pmu), "upmu_nicdiag_%08x", 0x4e1c0000 + id);
	snprintf(path, sizeof(path), "/sys/kernel/debug/upmu_sim/%u/advance", id);
	fd = stream_open(pmu, "doca_default,dev_period=10,log_samples=9", &pg);
	/* the first enabling begins the stream (what came before is dropped) */
	if (fd < 0 || pin(pmu_cpu(pmu)) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		fprintf(stderr, "bench_aux: (a NIC %u on the manual clock?)\n", id);
		return 1;
	}
	src = malloc(want);
	dst = malloc(want);
	if (!src || !dst)
		return 1;
	memset(src, 0x5a, want);
	memset(dst, 0, want);
	/*
	 * Work of about 100 drain periods (10 ms): the drain (about 1 ms on
	 * the stock kernel under TCG) comes well within it.
	 * The least of three runs: a first run under TCG also translates.
	 */
	while (min3_work(n) < 100 * DRAIN_NS / 1000.0 && n < (1UL << 40))
		n *= 2;

	printf("== aux: %s, 8 IDs (doca_default), %u samples waiting, drain every %u us, AUX %u KiB,\n"
	       "   on CPU %d: the same work with none and with them waiting, %u turns x %u rounds\n",
	       pmu, NR_SAMPLES, DRAIN_NS / 1000, AUX_PAGES * 4, pmu_cpu(pmu), turns, rounds);
	printf("  us (median of turns)       round");
	for (r = 0; r < rounds; r++) {
		double off[BENCH_MAX_MEDIAN], on[BENCH_MAX_MEDIAN], c[BENCH_MAX_MEDIAN];
		uint64_t b0, b1;

		for (t = 0; t < turns; t++) {
			double t0;

			off[t] = copy_turn(fd, pg, &tail, path, true, n, &b0);
			on[t] = copy_turn(fd, pg, &tail, path, false, n, &b1);
			if (on[t] < 0 || off[t] < 0 || b1 + 120 < want) {
				fprintf(stderr, "bench_aux: the drain did not come within the work (%llu of %zu bytes in %.0f us)\n",
					(unsigned long long)b1, want, on[t]);
				return 1;
			}
			bytes = b1;
			t0 = now_us();
			memcpy(dst, src, want);
			c[t] = now_us() - t0;
			sink += dst[want - 1];
		}
		drain_us[r] = median(on, turns) - median(off, turns);
		cpy_us[r] = median(c, turns) * (double)bytes / want;
		ratio[r] = drain_us[r] > 0 ? cpy_us[r] / drain_us[r] : 0;
	}
	for (r = 0; r < rounds; r++)
		printf("%10u", r + 1);
	printf("\n  the drain of those bytes    ");
	for (r = 0; r < rounds; r++)
		printf("%10.1f", drain_us[r]);
	printf("\n  memcpy of the same bytes    ");
	for (r = 0; r < rounds; r++)
		printf("%10.1f", cpy_us[r]);
	printf("\n  ratio in the round          ");
	for (r = 0; r < rounds; r++)
		printf("%9.3fx", ratio[r]);
	printf("\n  AUX copy / memcpy: %.3fx (median of rounds; goal >= 0.5x: %s), %llu bytes a turn\n",
	       median(ratio, rounds), median(ratio, rounds) >= 0.5 ? "met" : "NOT met",
	       (unsigned long long)bytes);
	close(fd);
	return tick_id ? tick_section(tick_id, rounds, turns) : 0;
}
