/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting loop of the upmu tools: count for a time, per interval, or
 * while a command runs, and take a sample at each interval and at the end.
 */
#ifndef __UPMU_RUN_H__
#define __UPMU_RUN_H__

#include <stdint.h>

#define NSEC_PER_SEC	1000000000LL

/* "EACCES (Permission denied)" */
const char *errno_str(int e);
/* CLOCK_MONOTONIC in ns */
int64_t now_ns(void);

struct run_opts {
	long interval_ms;	/* sample every MS; 0: once, at the end */
	double seconds;		/* stop after; 0: 1 s, or never with a command or interval */
	char **cmd;		/* run it and stop when it exits; NULL: none */
	const char *prog;	/* for messages */
};

/*
 * The options every counting tool has, checked; on a bad value they say
 * why on stderr (as "@prog: -@opt: ...") and return -1.
 *   -I MS:       an interval of 10 to 3600000 ms
 *   -t/-a SECS:  a duration above 0, at most a year
 *   -x SEP:      a separator that is not empty
 */
int run_parse_interval(const char *prog, char opt, const char *arg, long *ms);
int run_parse_seconds(const char *prog, char opt, const char *arg, double *secs);
int run_parse_sep(const char *prog, char opt, const char *arg, const char **sep);
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
