/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the sections of upmu_bench share (upmu_bench.c): options, timing,
 * medians over rounds, interleaved readers and the summary.
 */
#ifndef __UPMU_BENCH_H__
#define __UPMU_BENCH_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_ROUNDS	15
#define MAX_READERS	6
#define MAX_CFGS	3

#define UCF_PMU		"nvidia_ucf_pmu_0"
#define UCF_SPEC	"event=0x0"

extern long reads;		/* -n: reads per round */
extern int rounds;		/* -r */
extern double max_secs;		/* -t: at most this long per reader and round */
extern int nic_id;		/* -N: the simulated NIC's device ID */
extern int sustain_secs;	/* -S: device time of the sustain section */

/* The benchmark could not measure: an error line, exit status 1. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A correctness check failed: a "FAIL: " line on stdout, exit status 1. */
void fail_check(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int pin(int cpu);

/*
 * Something to time, one operation after the other: by default read() of
 * a counting perf event (@fd), else @op (which returns 0 or -errno).
 * Per round: the operations done and us per operation.
 */
struct reader {
	const char *name;
	int fd;
	int (*op)(struct reader *r);
	void *ctx;		/* for @op */
	long want;		/* operations per round */
	long n[MAX_ROUNDS];	/* operations done */
	double us[MAX_ROUNDS];
	double cal[MAX_ROUNDS];
	uint64_t first, last;	/* counts before and after */
};

/* Open a counting event: @pmu/@spec/, or cpu-clock on @cpu if !@pmu. */
int reader_open(struct reader *r, const char *name, const char *pmu,
		const char *spec, int cpu);
/*
 * Round @round of @n operations of each of the @nr readers of each of the
 * @ncfg configurations @r[c], interleaved; @setup(c) before configuration
 * c's turn (if not NULL).  0 or -1.
 */
int run_round_cfg(struct reader r[][MAX_READERS], int ncfg, int nr, long n,
		  int round, int (*setup)(int c));
/* Rounds of @n operations of each of the @nr readers, interleaved, on @cpu. */
int run_rounds(struct reader *r, int nr, long n, int cpu);
void close_readers(struct reader *r, int n);
/* Median over the rounds of @a[round] / @b[round]. */
double ratio_median(const double *a, const double *b);
void print_head(const char *first, bool cal);
void print_reader(const struct reader *r, const struct reader *base);
void add_summary(const char *what, double ratio, const char *goal, bool met,
		 const char *note);
/* Write @s to @file in the simulated device's debugfs directory @dir. */
int sim_write_dir(const char *dir, const char *file, const char *s);

/* bench_icx.c: the icx section, on the simulated Ice Lake-X at @dir */
void section_icx(const char *dir, long n);

/* bench_nic.c */
void section_pmuread(int cpu);
void section_rpc(int cpu);
void section_sustain(int cpu);

#endif
