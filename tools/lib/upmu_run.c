// SPDX-License-Identifier: GPL-2.0
/* The counting loop of the upmu tools (see upmu_run.h). */

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
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

#include "upmu_pmu.h"
#include "upmu_run.h"

#define NEVER		INT64_MAX
#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)

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

static int bad(const struct run_opts *o, const char *opt, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s: %s, not '%s'\n", o->prog, opt, what, arg);
	return -1;
}

/* A whole number from @min to @max, or -1 after a message. */
static int parse_long(const struct run_opts *o, const char *opt, const char *arg, long min,
		      long max, const char *what, long *val)
{
	char *end;

	errno = 0;
	*val = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *val < min || *val > max)
		return bad(o, opt, what, arg);
	return 0;
}

/* -C LIST: perf's CPU list */
static int parse_cpus(struct run_opts *o, const char *arg)
{
	if (cpulist_parse(arg, &o->cpus))
		return bad(o, "-C", "CPUs in increasing ranges below "
			   __stringify(CPU_SETSIZE) ", such as 0-3,8", arg);
	o->has_cpus = true;
	return 0;
}

int run_parse_opt(struct run_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'a':
		return 1;
	case 'C':
		return parse_cpus(o, arg) ?: 1;
	case 'I':
		return parse_long(o, "-I", arg, 10, 3600000, "an interval in ms from 10 to 3600000",
				  &o->interval_ms) ?: 1;
	case RUN_OPT_ICOUNT:
		return parse_long(o, "--interval-count", arg, 1, LONG_MAX, "a count above 0",
				  &o->interval_count) ?: 1;
	case RUN_OPT_TIMEOUT:
		return parse_long(o, "--timeout", arg, 10, 31536000000L,
				  "a time in ms from 10 to a year", &o->timeout_ms) ?: 1;
	case 'x':
		if (!*arg)
			return bad(o, "-x", "a separator", arg);
		o->sep = arg;
		return 1;
	case 'j':
		o->json = true;
		return 1;
	case 'o':
		if (!*arg)
			return bad(o, "-o", "a file name", arg);
		o->output = arg;
		return 1;
	}
	return 0;
}

int run_parse_end(struct run_opts *o, int argc, char **argv, int optind)
{
	int fd;

	o->cmd = NULL;
	o->out = stdout;
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--")) {
			fprintf(stderr, "%s: unexpected argument '%s' (a command goes after --)\n",
				o->prog, argv[optind]);
			return -1;
		}
		o->cmd = argv + optind;
	} else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		fprintf(stderr, "%s: no command after --\n", o->prog);
		return -1;
	}
	if (o->sep && o->json) {
		fprintf(stderr, "%s: -x and -j: one output form\n", o->prog);
		return -1;
	}
	if (o->interval_count && !o->interval_ms) {
		fprintf(stderr, "%s: --interval-count needs -I\n", o->prog);
		return -1;
	}
	if (!o->output)
		return 0;
	/* as root in a shared directory: no planted symlink, no FIFO */
	fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		fprintf(stderr, "%s: -o %s: %s%s\n", o->prog, o->output, errno_str(errno),
			errno == ELOOP ? ": a symlink, which -o does not follow" : "");
		return -1;
	}
	o->out = fdopen(fd, "w");
	if (!o->out) {
		fprintf(stderr, "%s: -o %s: %s\n", o->prog, o->output, errno_str(errno));
		close(fd);
		o->out = stdout;
		return -1;
	}
	return 0;
}

bool run_cpu_wanted(const struct run_opts *o, int cpu)
{
	return !o->has_cpus || (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &o->cpus));
}

void run_json_num(struct json_object *o, const char *key, double v, const char *fmt)
{
	char buf[64];

	snprintf(buf, sizeof(buf), fmt, v);
	json_object_object_add(o, key, isfinite(v) ? json_object_new_double_s(v, buf) : NULL);
}

void run_json_line(struct run_opts *ro, struct json_object *o)
{
	fprintf(ro->out, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_SPACED |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

int run_close_output(struct run_opts *o)
{
	int ret = 0;

	if (!o->out || o->out == stdout)
		return fflush(stdout) ? -1 : 0;
	if (fclose(o->out)) {
		fprintf(stderr, "%s: -o %s: %s\n", o->prog, o->output, errno_str(errno));
		ret = -1;
	}
	o->out = stdout;
	return ret;
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
	long intervals = 0;
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
	if (o->timeout_ms > 0)
		end = start + o->timeout_ms * 1000000LL;
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
			if (o->interval_count && ++intervals >= o->interval_count)
				done = true;
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
