/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting loop of the upmu tools: count for a time, per interval, or
 * while a command runs, and take a sample at each interval and at the end.
 */
#ifndef __UPMU_RUN_H__
#define __UPMU_RUN_H__

#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define NSEC_PER_SEC	1000000000LL

/* "EACCES (Permission denied)" */
const char *errno_str(int e);
/* CLOCK_MONOTONIC in ns */
int64_t now_ns(void);

/*
 * perf stat's vocabulary, which every counting tool speaks:
 *   -a, --all-cpus           system-wide: what counting an uncore PMU always
 *                            is; accepted, as perf stat accepts it
 *   -C, --cpu LIST           only the PMU instances whose cpumask CPU is in
 *                            LIST (as perf intersects an uncore PMU's
 *                            cpumask with -C's CPUs); none: an error
 *   -I, --interval-print MS  print every MS milliseconds (10 to 3600000)
 *       --interval-count N   stop after N intervals
 *       --timeout MS         stop after MS milliseconds (with a command:
 *                            stop it there, as perf stat does)
 *   -x, --field-separator S  CSV
 *   -j, --json-output        JSON, one object a line
 *   -o, --output FILE        write to FILE (created or truncated; never
 *                            through a symlink), not stdout: the command's
 *                            own stdout stays where it was
 *   -- COMMAND [ARG...]      count while COMMAND runs
 * Without a command, -I or --timeout a tool counts for 1 s.
 */
#define RUN_SHORTOPTS	"aC:I:x:jo:"
enum { RUN_OPT_TIMEOUT = 0x100, RUN_OPT_ICOUNT };
#define RUN_LONGOPTS							\
	{ "all-cpus", no_argument, NULL, 'a' },				\
	{ "cpu", required_argument, NULL, 'C' },			\
	{ "interval-print", required_argument, NULL, 'I' },		\
	{ "interval-count", required_argument, NULL, RUN_OPT_ICOUNT },	\
	{ "timeout", required_argument, NULL, RUN_OPT_TIMEOUT },	\
	{ "field-separator", required_argument, NULL, 'x' },		\
	{ "json-output", no_argument, NULL, 'j' },			\
	{ "output", required_argument, NULL, 'o' }

struct run_opts {
	const char *prog;	/* for messages */
	long interval_ms;	/* -I: sample every MS; 0: once, at the end */
	long interval_count;	/* --interval-count: stop after N; 0: no limit */
	long timeout_ms;	/* --timeout; 0: 1 s, or never with a command or -I */
	const char *sep;	/* -x */
	bool json;		/* -j */
	const char *output;	/* -o */
	bool has_cpus;		/* -C given */
	cpu_set_t cpus;		/* -C's CPUs */
	char **cmd;		/* run it and stop when it exits; NULL: none */
	FILE *out;		/* stdout, or -o's file (run_parse_end opens it) */
};

/*
 * Take option @c (from getopt_long with RUN_SHORTOPTS and RUN_LONGOPTS)
 * with @arg: 1 if it is one of the shared options (0 if not); on a bad
 * value -1, after saying why on stderr ("@prog: -I: ...").
 */
int run_parse_opt(struct run_opts *o, int c, const char *arg);
/*
 * After the options: the command after "--" (argv[@optind...]), the
 * options that do not go together, -o's file.  0, or -1 after a message.
 */
int run_parse_end(struct run_opts *o, int argc, char **argv, int optind);
/* Is @cpu one of -C's (every CPU without -C)? */
bool run_cpu_wanted(const struct run_opts *o, int cpu);
/*
 * JSON output, through json-c: add @key: @v to @o, written as @fmt
 * writes it ("%.9g"); print @o as one line of @ro->out and free it.
 */
struct json_object;
void run_json_num(struct json_object *o, const char *key, double v, const char *fmt);
void run_json_line(struct run_opts *ro, struct json_object *o);
/* Close -o's file (flushing it): 0, or -1 after a message. */
int run_close_output(struct run_opts *o);

/* The tool's exit status after run_loop(): the command's, else 0. */
int run_exit_status(char **cmd, int status);

/*
 * Run the loop: start @o->cmd (if any), then call @sample with the seconds
 * since the start at every interval, or once at the end, until the time is
 * up, the command exits or SIGINT/SIGTERM comes.  SIGINT and SIGTERM are
 * blocked except while waiting, so none is lost.  0, or -1 if @sample or
 * the command's start failed; *@status is the command's wait status.
 */
int run_loop(const struct run_opts *o, int (*sample)(void *ctx, double t), void *ctx,
	     int *status);

#endif
