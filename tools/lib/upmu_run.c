// SPDX-License-Identifier: GPL-2.0
/* The counting loop of the upmu tools (see upmu_run.h). */

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "upmu_run.h"

#define NEVER		INT64_MAX

static volatile sig_atomic_t stop_signal;

const char *errno_str(int e)
{
	static char buf[128];
	const char *name = strerrorname_np(e);

	snprintf(buf, sizeof(buf), "%s (%s)", name ? name : "unknown errno", strerror(e));
	return buf;
}

int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int run_parse_interval(const char *prog, char opt, const char *arg, long *ms)
{
	char *end;

	errno = 0;
	*ms = strtol(arg, &end, 10);
	if (errno || *end || *ms < 10 || *ms > 3600000) {
		fprintf(stderr, "%s: -%c: an interval in ms from 10 to 3600000, not '%s'\n", prog,
			opt, arg);
		return -1;
	}
	return 0;
}

int run_parse_seconds(const char *prog, char opt, const char *arg, double *secs)
{
	char *end;

	*secs = strtod(arg, &end);
	if (*end || !(*secs > 0) || *secs > 31536000) {
		fprintf(stderr, "%s: -%c: a number of seconds above 0, not '%s'\n", prog, opt, arg);
		return -1;
	}
	return 0;
}

int run_parse_sep(const char *prog, char opt, const char *arg, const char **sep)
{
	if (!*arg) {
		fprintf(stderr, "%s: -%c: an empty separator\n", prog, opt);
		return -1;
	}
	*sep = arg;
	return 0;
}

int run_exit_status(char **cmd, int status)
{
	if (cmd && WIFEXITED(status))
		return WEXITSTATUS(status);
	if (cmd && WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

static void on_signal(int sig)
{
	if (sig != SIGCHLD)
		stop_signal = sig;
}

static pid_t start_command(const struct run_opts *o, const sigset_t *mask)
{
	pid_t pid = fork();

	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", o->prog, errno_str(errno));
		return -1;
	}
	if (!pid) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, mask, NULL);
		execvp(o->cmd[0], o->cmd);
		fprintf(stderr, "%s: cannot run %s: %s\n", o->prog, o->cmd[0], errno_str(errno));
		_exit(127);
	}
	return pid;
}

int run_loop(const struct run_opts *o, int (*sample)(void *ctx, double t), void *ctx,
	     int *status)
{
	int64_t start, end, tick = NEVER, interval = o->interval_ms * 1000000LL;
	bool done = false, child_done = false;
	sigset_t block, waitmask;
	struct sigaction sa;
	pid_t child = -1;
	int ret = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGCHLD);

	start = now_ns();
	if (o->seconds > 0)
		end = start + llround(o->seconds * NSEC_PER_SEC);
	else if (o->cmd || interval)
		end = NEVER;
	else
		end = start + NSEC_PER_SEC;
	if (interval)
		tick = start + interval;
	if (o->cmd) {
		child = start_command(o, &waitmask);
		if (child < 0)
			return -1;
	}

	while (!done) {
		int64_t deadline = tick < end ? tick : end, now = now_ns();

		while (now < deadline && !stop_signal && !child_done) {
			struct timespec ts = {
				.tv_sec = (deadline - now) / NSEC_PER_SEC,
				.tv_nsec = (deadline - now) % NSEC_PER_SEC,
			};

			ppoll(NULL, 0, deadline == NEVER ? NULL : &ts, &waitmask);
			if (child > 0 && waitpid(child, status, WNOHANG) == child) {
				child = -1;
				child_done = true;
			}
			now = now_ns();
		}
		done = now >= end || stop_signal || child_done;
		if (interval) {
			ret = sample(ctx, (double)(now - start) / NSEC_PER_SEC);
			if (ret)
				break;
			while (tick <= now)
				tick += interval;
		}
	}
	if (!interval && !ret)
		ret = sample(ctx, (double)(now_ns() - start) / NSEC_PER_SEC);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, status, 0);
	}
	return ret ? -1 : 0;
}
