// SPDX-License-Identifier: GPL-2.0
/*
 * bench_aux: the NIC's AUX stream (Documentation/upmu-nic-aux.rst) against
 * a plain memcpy, in the guest (bench/README, section aux).
 *
 * The copy: on a NIC on the manual clock, the device takes 512 samples
 * while the event is disabled (the simulator's work, untimed), then the
 * event is enabled until the drain has committed them (a META and the
 * 512 samples in SAMPLES records, one per sample-window read).  The core times every drain that commits records
 * (debugfs upmu/<pmu>/aux_stats: from the AUX transaction's start to its
 * end, the sample window's registers and copy included): its bytes per
 * ns against a memcpy of the same bytes on the same CPU.  Goal: at least
 * half a memcpy's throughput.  Timing is a goal, never a test: exit 1
 * only if it could not measure.
 *
 * With -k, the cost of a drain tick with 8 IDs: the same CPU work on the
 * event's CPU with the stream off and on, the extra time per tick.
 *
 * Then the longest drain: the device's largest buffer full (2^13 samples
 * of 8 IDs, 704 KiB; the NIC needs nic_log_samples=16) and drained at
 * once; a drain copies at most 64 KiB (UPMU_AUX_TICK_BYTES), so its time
 * (aux_stats max_ns, hard irq with interrupts off) does not grow with the
 * buffer: the drains the budget cut short come again 100 us later.
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
#define DATA_PAGES	9	/* 1 + 8 */
#define DRAIN_NS	100000


/* Opens @spec on @pmu disabled, with data and AUX areas mapped. */
/* The open stream's AUX mapping: one stream at a time. */
static void *stream_aux;

static int stream_open(const char *pmu, const char *spec,
		       struct perf_event_mmap_page **pgp)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t data_len = DATA_PAGES * page, aux_len = AUX_PAGES * page;
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
	stream_aux = aux;
	*pgp = pg;
	return fd;
}

/*
 * Unmaps and closes: the mappings hold the event, and with it the
 * device's sample engine, after its fd is closed.
 */
static void stream_close(int fd, struct perf_event_mmap_page *pg)
{
	long page = sysconf(_SC_PAGESIZE);

	munmap(stream_aux, AUX_PAGES * page);
	munmap(pg, DATA_PAGES * page);
	close(fd);
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
	stream_close(fd, pg);
	return 0;
}

#define BIG_LOG		13	/* 8192 samples of 8 IDs: 2^16 counter-samples */

/*
 * The device's whole buffer drained at once: how long the longest drain
 * was, how many the budget cut short.  0, or 1 if it could not measure.
 */
static int longest_section(unsigned int id, const char *advance,
			   const char *unread)
{
	struct perf_event_mmap_page *pg;
	struct pmu_aux_stats s0, s1;
	char pmu[64], spec[96], val[32];
	uint64_t u = 0;
	double t;
	int fd;

	snprintf(pmu, sizeof(pmu), "upmu_nicdiag_%08x", 0x4e1c0000 + id);
	snprintf(spec, sizeof(spec), "doca_default,dev_period=10,log_samples=%u", BIG_LOG);
	fd = stream_open(pmu, spec, &pg);
	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) ||
	    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) || pmu_aux_stats(pmu, &s0))
		return 1;
	snprintf(val, sizeof(val), "%u", (1u << BIG_LOG) * DEV_PERIOD);
	if (write_str(advance, val) || read_u64(unread, &u))
		return 1;
	t = now_us();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	while (!read_u64(unread, &u) && u && now_us() - t < 10e6)
		usleep(1000);
	usleep(2000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (u || pmu_aux_stats(pmu, &s1) || s1.commits == s0.commits) {
		fprintf(stderr, "bench_aux: the big buffer was not drained (%llu left)\n",
			(unsigned long long)u);
		return 1;
	}
	printf("== longest drain: %s/%s/, the device's %u samples (%.0f KiB) at once\n",
	       pmu, spec, 1u << BIG_LOG,
	       (s1.bytes - s0.bytes) / 1024.0);
	printf("  %llu commits, %llu cut short by the 64 KiB budget, %.0f KiB and %.1f us a commit,\n"
	       "  the longest drain of the PMU's life (aux_stats max_ns): %.1f us\n",
	       (unsigned long long)(s1.commits - s0.commits),
	       (unsigned long long)(s1.budget - s0.budget),
	       (s1.bytes - s0.bytes) / 1024.0 / (s1.commits - s0.commits),
	       (s1.commit_ns - s0.commit_ns) / 1e3 / (s1.commits - s0.commits),
	       s1.max_ns / 1e3);
	stream_close(fd, pg);
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

/*
 * One turn of the copy section: the device takes NR_SAMPLES samples
 * while the event is disabled (forced through nic/unread: the
 * simulator's work), then the event is enabled until they are drained.
 * Returns the bytes committed, 0 on error.
 */
static uint64_t copy_turn(int fd, struct perf_event_mmap_page *pg, uint64_t *tail,
			  const char *advance, const char *unread)
{
	uint64_t u = 0;
	char val[32];
	double t;

	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	aux_consume(pg, tail);
	snprintf(val, sizeof(val), "%u", NR_SAMPLES * DEV_PERIOD);
	if (write_str(advance, val))
		return 0;
	/* 511 at the first turn: the last one is not complete yet */
	if (read_u64(unread, &u) || u + 1 < NR_SAMPLES) {
		fprintf(stderr, "bench_aux: %s: %llu samples, not %u\n",
			unread, (unsigned long long)u, NR_SAMPLES);
		return 0;
	}
	t = now_us();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	while (!read_u64(unread, &u) && u && now_us() - t < 1e6)
		usleep(200);
	usleep(1000);	/* the commit after the window's read */
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return u ? 0 : aux_consume(pg, tail);
}

int main(int argc, char **argv)
{
	unsigned int id = 0, tick_id = 0, rounds = 3, turns = 20, r, t;
	struct perf_event_mmap_page *pg;
	char pmu[64], path[256], unread[256];
	double drain_bw[15], cpy_bw[15], ratio[15], commits[15];
	/* more than a META and SAMPLES records of 512 samples of 8 IDs take */
	size_t want = NR_SAMPLES * (32 + 24 + 64ull);
	uint64_t tail = 0, bytes = 0;
	unsigned char *src, *dst;
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
	snprintf(unread, sizeof(unread), "/sys/kernel/debug/upmu_sim/%u/nic/unread", id);
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

	printf("== aux: %s, 8 IDs (doca_default), %u samples a turn, drain every %u us, AUX %u KiB,\n"
	       "   on CPU %d: the core's time in drains that commit (aux_stats) against a memcpy\n"
	       "   of the same bytes on that CPU, %u turns x %u rounds\n",
	       pmu, NR_SAMPLES, DRAIN_NS / 1000, AUX_PAGES * 4, pmu_cpu(pmu), turns, rounds);
	printf("  MB/s                        round");
	for (r = 0; r < rounds; r++) {
		double c[BENCH_MAX_MEDIAN];
		struct pmu_aux_stats s0, s1;

		if (pmu_aux_stats(pmu, &s0)) {
			fprintf(stderr, "bench_aux: no upmu/%s/aux_stats in debugfs\n", pmu);
			return 1;
		}
		for (t = 0; t < turns; t++) {
			double t0;

			bytes = copy_turn(fd, pg, &tail, path, unread);
			if (!bytes) {
				fprintf(stderr, "bench_aux: the samples were not drained\n");
				return 1;
			}
			if (bytes > want)
				bytes = want;
			t0 = now_us();
			memcpy(dst, src, bytes);
			c[t] = bytes / (now_us() - t0);
			sink += dst[bytes - 1];
		}
		if (pmu_aux_stats(pmu, &s1) || s1.commit_ns == s0.commit_ns) {
			fprintf(stderr, "bench_aux: no drain figures\n");
			return 1;
		}
		drain_bw[r] = (s1.bytes - s0.bytes) * 1e3 / (s1.commit_ns - s0.commit_ns);
		cpy_bw[r] = median(c, turns);
		ratio[r] = drain_bw[r] / cpy_bw[r];
		commits[r] = s1.commits - s0.commits;
	}
	for (r = 0; r < rounds; r++)
		printf("%10u", r + 1);
	printf("\n  drains into the AUX area    ");
	for (r = 0; r < rounds; r++)
		printf("%10.1f", drain_bw[r]);
	printf("\n  (commits)                   ");
	for (r = 0; r < rounds; r++)
		printf("%10.0f", commits[r]);
	printf("\n  memcpy of the same bytes    ");
	for (r = 0; r < rounds; r++)
		printf("%10.1f", cpy_bw[r]);
	printf("\n  ratio in the round          ");
	for (r = 0; r < rounds; r++)
		printf("%9.3fx", ratio[r]);
	printf("\n  AUX copy / memcpy: %.3fx (median of rounds; goal >= 0.5x: %s), %llu bytes a turn\n",
	       median(ratio, rounds), median(ratio, rounds) >= 0.5 ? "met" : "NOT met",
	       (unsigned long long)bytes);
	stream_close(fd, pg);
	if (tick_id && tick_section(tick_id, rounds, turns))
		return 1;
	return longest_section(id, path, unread);
}
