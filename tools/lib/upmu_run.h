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
 * Run the loop: start @o->cmd (if any), then call @sample with the seconds
 * since the start at every interval, or once at the end, until the time is
 * up, the command exits or SIGINT/SIGTERM comes.  SIGINT and SIGTERM are
 * blocked except while waiting, so none is lost.  0, or -1 if @sample or
 * the command's start failed; *@status is the command's wait status.
 */
int run_loop(const struct run_opts *o, int (*sample)(void *ctx, double t), void *ctx,
	     int *status);

#endif
