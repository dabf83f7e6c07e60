// SPDX-License-Identifier: GPL-2.0
/*
 * A fork server for perfdata_fuzz (its -F), preloaded into perf after
 * the sanitizer runtime: perf's exec, its dynamic linking and the
 * ASan/UBSan start-up, some 20 ms of the 30-50 ms of a run, are paid once
 * per server instead of once per run.
 *
 * With UPMU_FORKSRV="CTL ST ERR" in its environment, the constructor
 * never returns in the server: for each byte it reads from fd CTL it
 * forks; the child opens ERR as its stderr and goes on into perf's
 * main() with the server's argv (the fuzzer writes each mutant to the
 * file named there); the server writes the child's pid, then its wait
 * status, to fd ST (an int each).  EOF on CTL ends the server.  Without
 * the variable the library does nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void put_int(int fd, int v)
{
	if (write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		_exit(2);
}

__attribute__((constructor)) static void forksrv(void)
{
	const char *env = getenv("UPMU_FORKSRV");
	int ctl, st, status, fd;
	char err[256];
	ssize_t r;
	pid_t pid;
	char c;

	if (!env)
		return;
	if (sscanf(env, "%d %d %255s", &ctl, &st, err) != 3) {
		fprintf(stderr, "perfdata_forksrv: UPMU_FORKSRV is \"CTL ST ERR\"\n");
		_exit(2);
	}
	unsetenv("UPMU_FORKSRV");
	for (;;) {
		r = read(ctl, &c, 1);
		if (!r)
			_exit(0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			_exit(2);
		}
		pid = fork();
		if (pid < 0)
			_exit(2);
		if (!pid) {
			fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || dup2(fd, 2) < 0)
				_exit(2);
			close(fd);
			close(ctl);
			close(st);
			return;		/* into perf's main() */
		}
		put_int(st, pid);
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				_exit(2);
		put_int(st, status);
	}
}
