// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of whole perf.data files for the patched perf's AUX decoder:
 * it mutates real recordings of the NIC's AUX stream (file mode, with
 * their AUXTRACE index) and runs perf report -D (even mutants) or perf
 * script (odd ones; -b: both on every mutant) on each, a perf built with
 * ASan/UBSan (scripts/perfbuild.sh with UPMU_PERF_SAN=1).  perf gets an
 * empty kallsyms (--kallsyms /dev/null): reading the machine's costs
 * more than the rest of a run, and the decoder does not use it.  A run that dies of a signal, prints a sanitizer
 * report, or does not exit within the time limit is a failure; its input
 * is kept.  A corrupt file may (and mostly should) give an error and a
 * non-zero exit: that is not a failure.  A sanitizer report whose stack
 * has no upmu code in it is perf's own (its session reader, upstream's):
 * counted and kept apart, not a failure of the decoder.
 *
 * Mutations, one to three per mutant (a mutant is a function of the seed
 * file, the base seed and its number, so a failure is reproduced with
 * -s and -n 1 -f N):
 *  - bytes of the AUX data: a bit flipped, a run zeroed, a run copied
 *    from elsewhere in it, bytes inserted (the AUXTRACE event's size
 *    grows with them; what the index says of later buffers does not);
 *  - an AUXTRACE event's size, offset, reference, idx or cpu;
 *  - a PERF_RECORD_AUX event's offset, size or flags;
 *  - an entry of the AUXTRACE index (the file offset or size of a buffer).
 *
 * usage: perfdata_fuzz [-j JOBS] [-n MUTANTS] [-f FIRST] [-s SEED]
 *                      [-t SECONDS] [-o CRASHDIR] [-k] [-b] [-F PRELOAD]
 *                      PERF SEED.data...
 * -k keeps every mutant in CRASHDIR (for a seed corpus).  -F runs perf
 * through fork servers (perfdata_forksrv.c), PRELOAD being the
 * LD_PRELOAD that loads it (after the sanitizer runtime): one server per
 * job slot and command, each forking a run per mutant.  Prints a line
 * per failure and a summary; exits 1 if any run failed, 2 on bad usage,
 * a seed it cannot read or a fork server that dies.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "splitmix.h"

#define PERF_RECORD_AUX		11
#define PERF_RECORD_AUXTRACE	71
#define HEADER_AUXTRACE		19	/* feature bit of the AUXTRACE index */
#define HDR_SIZE		104	/* struct perf_file_header */
#define AUXTRACE_HDR		48	/* struct perf_record_auxtrace */
#define MAX_RECS		4096
#define MAX_JOBS		8
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

struct seed {
	const char *path;
	unsigned char *buf;
	size_t len;
	/* AUXTRACE events: where the event is, where its data is */
	size_t auxtrace[MAX_RECS], nr_auxtrace;
	size_t aux[MAX_RECS], nr_aux;		/* PERF_RECORD_AUX events */
	size_t index_at, index_nr;		/* the index's entries, 16 bytes each */
};

static uint64_t rng;

static uint64_t rnd(void)
{
	return splitmix64(&rng);
}

static uint64_t below(uint64_t n)
{
	return splitmix64_below(&rng, n);
}

static uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void st64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static int seed_load(struct seed *s, const char *path)
{
	uint64_t doff, dsize, pos, end;
	struct stat st;
	int fd;

	memset(s, 0, sizeof(*s));
	s->path = path;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size < HDR_SIZE) {
		fprintf(stderr, "perfdata_fuzz: %s: cannot read a perf.data header\n", path);
		return -1;
	}
	s->len = st.st_size;
	s->buf = malloc(s->len);
	if (!s->buf || read(fd, s->buf, s->len) != (ssize_t)s->len ||
	    memcmp(s->buf, "PERFILE2", 8)) {
		fprintf(stderr, "perfdata_fuzz: %s: not a perf.data file\n", path);
		close(fd);
		return -1;
	}
	close(fd);
	doff = ld64(s->buf + 40);
	dsize = ld64(s->buf + 48);
	if (doff > s->len || dsize > s->len - doff) {
		fprintf(stderr, "perfdata_fuzz: %s: data section outside the file\n", path);
		return -1;
	}
	end = doff + dsize;
	for (pos = doff; pos + 8 <= end;) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, s->buf + pos, 4);
		memcpy(&size, s->buf + pos + 6, 2);
		if (size < 8 || size > end - pos)
			break;
		if (type == PERF_RECORD_AUXTRACE && size >= AUXTRACE_HDR) {
			uint64_t dsz = ld64(s->buf + pos + 8);

			if (s->nr_auxtrace < MAX_RECS)
				s->auxtrace[s->nr_auxtrace++] = pos;
			if (dsz > end - pos - size)
				break;
			pos += size + dsz;
			continue;
		}
		if (type == PERF_RECORD_AUX && size >= 40 && s->nr_aux < MAX_RECS)
			s->aux[s->nr_aux++] = pos;
		pos += size;
	}
	/*
	 * Feature sections follow the data, a (offset, size) pair per set
	 * bit of the bitmap, in bit order; the index is HEADER_AUXTRACE's:
	 * u64 nr, then nr (file offset, size) pairs.
	 */
	if (s->buf[72 + HEADER_AUXTRACE / 8] & (1 << (HEADER_AUXTRACE % 8))) {
		unsigned int bit, k = 0;
		uint64_t fpos = end, off, sz;

		for (bit = 0; bit < HEADER_AUXTRACE; bit++)
			if (s->buf[72 + bit / 8] & (1 << (bit % 8)))
				k++;
		fpos += 16 * (uint64_t)k;
		if (fpos + 16 <= s->len) {
			off = ld64(s->buf + fpos);
			sz = ld64(s->buf + fpos + 8);
			if (off + 8 <= s->len && sz >= 8 && sz <= s->len - off) {
				s->index_at = off + 8;
				s->index_nr = ld64(s->buf + off);
				if (s->index_nr > (sz - 8) / 16)
					s->index_nr = (sz - 8) / 16;
			}
		}
	}
	if (!s->nr_auxtrace) {
		fprintf(stderr, "perfdata_fuzz: %s: no AUXTRACE event\n", path);
		return -1;
	}
	return 0;
}

/* A value for a 64-bit field: near the old one, a boundary, or random. */
static uint64_t field_value(uint64_t old)
{
	static const uint64_t edge[] = {
		0, 1, 7, 8, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~0ULL - 7,
	};

	switch (below(4)) {
	case 0:
		return old + below(129) - 64;
	case 1:
		return edge[below(sizeof(edge) / sizeof(edge[0]))];
	case 2:
		return old ^ (1ULL << below(64));
	default:
		return rnd();
	}
}

/* A mutant of seed @s, as rng stands: a new buffer of *@len bytes. */
static unsigned char *mutate(const struct seed *s, size_t *len)
{
	unsigned int n = 1 + below(3), i;
	size_t cap = s->len + 4096, l = s->len;
	unsigned char *b = malloc(cap);

	if (!b)
		return NULL;
	memcpy(b, s->buf, s->len);
	for (i = 0; i < n; i++) {
		size_t ev = s->auxtrace[below(s->nr_auxtrace)];
		uint64_t dsz = ld64(b + ev + 8), at, k, from;
		unsigned char *data = b + ev + AUXTRACE_HDR;
		unsigned int field;

		/* the seed's data stays inside the buffer: earlier inserts grow it */
		if (ev + AUXTRACE_HDR > l || dsz > l - ev - AUXTRACE_HDR)
			dsz = 0;
		switch (below(8)) {
		case 0:		/* a bit flipped */
		case 1:
			if (dsz)
				data[below(dsz)] ^= 1 << below(8);
			break;
		case 2:		/* a run zeroed */
			if (dsz) {
				at = below(dsz);
				k = 1 + below(64);
				memset(data + at, 0, k < dsz - at ? k : dsz - at);
			}
			break;
		case 3:		/* a run copied from elsewhere */
			if (dsz > 8) {
				at = below(dsz);
				from = below(dsz);
				k = 1 + below(256);
				if (k > dsz - at)
					k = dsz - at;
				if (k > dsz - from)
					k = dsz - from;
				memmove(data + at, data + from, k);
			}
			break;
		case 4:		/* bytes inserted; the event's size follows */
			k = 1 + below(64);
			if (l + k > cap)
				break;
			at = ev + AUXTRACE_HDR + below(dsz + 1);
			memmove(b + at + k, b + at, l - at);
			for (from = 0; from < k; from++)
				b[at + from] = below(3) ? 0 : (unsigned char)rnd();
			l += k;
			st64(b + ev + 8, dsz + k);
			/* the data section grows too */
			st64(b + 48, ld64(b + 48) + k);
			break;
		case 5:		/* an AUXTRACE field: size offset reference idx cpu */
			field = below(5);
			if (field < 3) {
				st64(b + ev + 8 + 8 * field, field_value(ld64(b + ev + 8 + 8 * field)));
			} else {
				uint32_t v = field == 3 ? (below(2) ? below(8) : (uint32_t)rnd()) :
					     (uint32_t)rnd();

				memcpy(b + ev + 32 + 4 * (field - 3) * 2, &v, 4);
			}
			break;
		case 6:		/* a PERF_RECORD_AUX field: aux_offset aux_size flags */
			if (s->nr_aux) {
				size_t a = s->aux[below(s->nr_aux)] + 8 + 8 * below(3);

				if (a + 8 <= l)
					st64(b + a, field_value(ld64(b + a)));
			}
			break;
		default:	/* an index entry */
			if (s->index_nr) {
				size_t e = s->index_at + 16 * below(s->index_nr) + 8 * below(2);

				if (e + 8 <= l)
					st64(b + e, field_value(ld64(b + e)));
			}
			break;
		}
	}
	*len = l;
	return b;
}

/* A fork server of perf (-F): the mutant file and stderr of its runs */
struct server {
	pid_t pid;
	int ctl, st;
	char input[256];
	char err[256];
};

struct job {
	pid_t pid;
	struct timespec t0;
	char input[256];
	char err[256];
	const char *cmd;
	unsigned long m;
	bool killed;
	struct server srv[2], *cur;	/* -F: report -D's, script's; the run's */
};

static const char *crashdir, *preload;
static bool keep_all, both;
static unsigned long crashes, hangs, runs, perf_own;
static double limit = 20;

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Does the run's stderr hold a sanitizer report (1), one whose stack or
 * line has none of upmu's code (2: perf's own, such as its session
 * reader's SIGBUS on an event past the end of the file), or none (0)?
 */
static int sanitizer_report(const char *path)
{
	bool report = false, ours = false;
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " ");
		bool frame = *p == '#' && strstr(p, " in ");
		bool ub = strstr(line, "runtime error:");

		report |= ub || strstr(line, "ERROR: AddressSanitizer");
		/* upmu's files and functions, not the cache path perf was built in */
		ours |= (frame || ub) && (strstr(line, "upmu-nic") || strstr(line, " in upmu_"));
	}
	fclose(f);
	return !report ? 0 : ours ? 1 : 2;
}

static void keep(const struct job *j, const char *what)
{
	char path[512];

	printf("# %s: mutant %lu, perf %s", what, j->m, j->cmd);
	if (crashdir) {
		snprintf(path, sizeof(path), "%s/%s-%lu.data", crashdir, what, j->m);
		if (!link(j->input, path) || errno == EEXIST)
			printf(" (input kept as %s)", path);
	}
	printf("\n");
	if (crashdir) {
		snprintf(path, sizeof(path), "%s/%s-%lu.%s.err", crashdir, what, j->m,
			 strchr(j->cmd, ' ') ? "report" : "script");
		rename(j->err, path);
	}
}

static void reap(struct job *j, int status)
{
	int rep = sanitizer_report(j->err);

	runs++;
	if (j->killed) {
		hangs++;
		keep(j, "hang");
	} else if (rep == 2) {
		perf_own++;
		keep(j, "perf-own");
	} else if ((WIFSIGNALED(status)) ||
		   (WIFEXITED(status) && WEXITSTATUS(status) >= 86 &&
		    WEXITSTATUS(status) <= 87) || rep) {
		crashes++;
		keep(j, "crash");
	} else if (keep_all && crashdir) {
		char path[512];

		snprintf(path, sizeof(path), "%s/mutant-%lu.data", crashdir, j->m);
		if (link(j->input, path) && errno != EEXIST)
			perror(path);
	}
	unlink(j->input);
	unlink(j->err);
	j->pid = 0;
}

static const char *const perf_envp[] = {
	"ASAN_OPTIONS=exitcode=86:detect_leaks=0:malloc_context_size=2",
	"UBSAN_OPTIONS=exitcode=87:print_stacktrace=1",
	"HOME=/nonexistent",
	NULL,	/* -F: LD_PRELOAD */
	NULL,	/* -F: UPMU_FORKSRV */
	NULL
};

/* The perf commands a mutant goes through, by number */
static const char *const cmds[2] = { "report -D", "script" };

/* perf's argv for command @c on @input, in @argv[8] */
static void perf_argv(const char **argv, const char *perf, int c, const char *input)
{
	int i = 0;

	argv[i++] = perf;
	if (!c) {
		argv[i++] = "report";
		argv[i++] = "-D";
	} else {
		argv[i++] = "script";
	}
	argv[i++] = "--kallsyms";
	argv[i++] = "/dev/null";
	argv[i++] = "-i";
	argv[i++] = input;
	argv[i] = NULL;
}

static void spawn(pid_t *pid, const char *perf, const char *const *argv,
		  const char *const *envp, posix_spawn_file_actions_t *fa)
{
	if (posix_spawn(pid, perf, fa, NULL, (char **)argv, (char **)envp)) {
		fprintf(stderr, "perfdata_fuzz: cannot run %s\n", perf);
		exit(2);
	}
	posix_spawn_file_actions_destroy(fa);
}

/* Start the fork server @s of perf command @c, for job slot @slot. */
static void server_start(struct server *s, const char *perf, int c, const char *tmp, int slot)
{
	char env_preload[512], env_srv[300];
	const char *envp[ARRAY_SIZE(perf_envp)], *argv[8];
	posix_spawn_file_actions_t fa;
	int ctl[2], st[2];

	snprintf(s->input, sizeof(s->input), "%s/in.%d.%d.data", tmp, slot, c);
	snprintf(s->err, sizeof(s->err), "%s/err.%d.%d", tmp, slot, c);
	snprintf(env_preload, sizeof(env_preload), "LD_PRELOAD=%s", preload);
	snprintf(env_srv, sizeof(env_srv), "UPMU_FORKSRV=3 4 %s", s->err);
	memcpy(envp, perf_envp, sizeof(perf_envp));
	envp[3] = env_preload;
	envp[4] = env_srv;
	perf_argv(argv, perf, c, s->input);
	if (pipe2(ctl, O_CLOEXEC) || pipe2(st, O_CLOEXEC) ||
	    posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) ||
	    posix_spawn_file_actions_adddup2(&fa, ctl[0], 3) ||
	    posix_spawn_file_actions_adddup2(&fa, st[1], 4)) {
		perror("perfdata_fuzz: fork server");
		exit(2);
	}
	spawn(&s->pid, perf, argv, envp, &fa);
	close(ctl[0]);
	close(st[1]);
	s->ctl = ctl[1];
	s->st = st[0];
}

/* An int from fork server @s; a server that died is the end of the run. */
static int server_get(const struct server *s)
{
	int v;

	if (read(s->st, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		fprintf(stderr, "perfdata_fuzz: the fork server of %s died\n", s->input);
		exit(2);
	}
	return v;
}

/* Where the next run of job @j, command @c, reads its mutant from */
static void run_input(struct job *j, int c, const char *tmp, unsigned long m,
		      char *buf, size_t len)
{
	if (preload)
		snprintf(buf, len, "%s", j->srv[c].input);
	else	/* a file per run: each run's reaping removes its own */
		snprintf(buf, len, "%s/%lu.%d.data", tmp, m, c);
}

static void start(struct job *j, const char *perf, int c, const char *input,
		  unsigned long m, const char *tmp, int slot)
{
	const char *argv[8];
	posix_spawn_file_actions_t fa;

	snprintf(j->input, sizeof(j->input), "%s", input);
	j->cmd = cmds[c];
	j->m = m;
	j->killed = false;
	clock_gettime(CLOCK_MONOTONIC, &j->t0);
	if (preload) {
		j->cur = &j->srv[c];
		memcpy(j->err, j->cur->err, sizeof(j->err));
		if (write(j->cur->ctl, "r", 1) != 1) {
			perror("perfdata_fuzz: fork server");
			exit(2);
		}
		j->pid = server_get(j->cur);
		return;
	}
	/*
	 * posix_spawn, not fork: this program may run under ASan, whose
	 * shadow mappings a fork copies the page tables of on every run.
	 */
	snprintf(j->err, sizeof(j->err), "%s/err.%d", tmp, slot);
	perf_argv(argv, perf, c, input);
	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) ||
	    posix_spawn_file_actions_addopen(&fa, 2, j->err, O_WRONLY | O_CREAT | O_TRUNC, 0600)) {
		perror("perfdata_fuzz");
		exit(2);
	}
	spawn(&j->pid, perf, argv, perf_envp, &fa);
}

/* The status of job @j's run if it has ended (-F), or -1 */
static int server_poll(struct job *j)
{
	struct pollfd p = { .fd = j->cur->st, .events = POLLIN };

	return poll(&p, 1, 0) > 0 ? server_get(j->cur) : -1;
}

/* Wait until a job slot is free (or all are, with @all). */
static void wait_slots(struct job *jobs, int nj, bool all)
{
	for (;;) {
		int busy = 0, i, status;
		pid_t pid;

		for (i = 0; i < nj; i++) {
			if (!jobs[i].pid)
				continue;
			busy++;
			if (!jobs[i].killed && since(&jobs[i].t0) > limit) {
				kill(jobs[i].pid, SIGKILL);
				jobs[i].killed = true;
			}
		}
		if (!busy || (!all && busy < nj))
			return;
		if (preload) {
			bool reaped = false;

			for (i = 0; i < nj; i++) {
				if (!jobs[i].pid || (status = server_poll(&jobs[i])) == -1)
					continue;
				reap(&jobs[i], status);
				reaped = true;
			}
			if (!reaped)
				usleep(1000);
			continue;
		}
		pid = waitpid(-1, &status, WNOHANG);
		if (pid <= 0) {
			usleep(2000);
			continue;
		}
		for (i = 0; i < nj; i++)
			if (jobs[i].pid == pid)
				reap(&jobs[i], status);
	}
}

int main(int argc, char **argv)
{
	unsigned long n = 1000, first = 0, m, base = 1;
	struct job jobs[MAX_JOBS] = { 0 };
	char tmp[] = "/tmp/perfdata-fuzz.XXXXXX";
	int nj = 2, opt, i, k, nseeds;
	struct seed *seeds;
	time_t t_start = time(NULL);

	while ((opt = getopt(argc, argv, "j:n:f:s:t:o:kbF:")) != -1) {
		switch (opt) {
		case 'j': nj = atoi(optarg); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'f': first = strtoul(optarg, NULL, 0); break;
		case 's': base = strtoul(optarg, NULL, 0); break;
		case 't': limit = atof(optarg); break;
		case 'o': crashdir = optarg; break;
		case 'k': keep_all = true; break;
		case 'b': both = true; break;
		case 'F': preload = optarg; break;
		default: goto usage;
		}
	}
	if (argc - optind < 2 || nj < 1 || nj > MAX_JOBS || limit <= 0)
		goto usage;
	nseeds = argc - optind - 1;
	seeds = calloc(nseeds, sizeof(*seeds));
	if (!seeds)
		return 2;
	for (i = 0; i < nseeds; i++)
		if (seed_load(&seeds[i], argv[optind + 1 + i]))
			return 2;
	if (crashdir && mkdir(crashdir, 0755) && errno != EEXIST) {
		perror(crashdir);
		return 2;
	}
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 2;
	}
	for (i = 0; preload && i < nj; i++) {
		for (k = 0; k < 2; k++)
			server_start(&jobs[i].srv[k], argv[optind], k, tmp, i);
	}
	for (m = first; m < first + n; m++) {
		const struct seed *s = &seeds[m % nseeds];
		unsigned char *b;
		size_t len;
		int c;

		rng = base * 0x100000001b3ULL ^ (m * 0x9e3779b97f4a7c15ULL);
		b = mutate(s, &len);
		if (!b)
			return 2;
		for (c = both ? 0 : m % 2; c < (both ? 2 : (int)(m % 2) + 1); c++) {
			char input[256];
			int fd;

			wait_slots(jobs, nj, false);
			for (i = 0; jobs[i].pid; i++)
				;
			run_input(&jobs[i], c, tmp, m, input, sizeof(input));
			fd = open(input, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || write(fd, b, len) != (ssize_t)len) {
				perror(input);
				return 2;
			}
			close(fd);
			start(&jobs[i], argv[optind], c, input, m, tmp, i);
		}
		free(b);
	}
	wait_slots(jobs, nj, true);
	for (i = 0; preload && i < nj; i++) {
		for (k = 0; k < 2; k++) {
			close(jobs[i].srv[k].ctl);	/* the server's EOF */
			close(jobs[i].srv[k].st);
			waitpid(jobs[i].srv[k].pid, NULL, 0);
		}
	}
	if (rmdir(tmp))
		perror(tmp);
	for (i = 0; i < nseeds; i++)
		free(seeds[i].buf);
	free(seeds);
	printf("perfdata_fuzz: %lu mutants of %d seeds (-s %lu -f %lu), %lu perf runs: %lu crashes, %lu hangs (%.0f s limit), %ld s\n",
	       n, nseeds, base, first, runs, crashes, hangs, limit, (long)(time(NULL) - t_start));
	if (perf_own)
		printf("perfdata_fuzz: and %lu sanitizer reports in perf's own code, none of upmu's in their stacks (known, not counted as failures; inputs kept as perf-own-*)\n",
		       perf_own);
	return crashes || hangs ? 1 : 0;
usage:
	fprintf(stderr, "usage: perfdata_fuzz [-j JOBS] [-n MUTANTS] [-f FIRST] [-s SEED] [-t SECONDS] [-o CRASHDIR] [-k] [-b] [-F PRELOAD] PERF SEED.data...\n");
	return 2;
}
