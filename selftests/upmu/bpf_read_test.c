// SPDX-License-Identifier: GPL-2.0
/*
 * Reads of upmu events from BPF programs (bpf_perf_event_read_value(),
 * that is perf_event_read_local() and the PMU's ->read), where a read
 * that takes a lock deadlocks or counts wrong:
 *
 * - kprobe_in_locked_section: a kprobe program on upmu_field(), which the
 *   core and its families call with a box's lock held, reads the UCF
 *   event of its CPU's socket while events of the same PMUs are opened
 *   and enabled from every CPU (event_init on the opener's CPU, add and
 *   start on the box's owner: the program then reads the very box whose
 *   section it interrupts).  Every open succeeds, every read gives the
 *   exact count, nothing is counted twice.
 * - sampling_reads_while_perf_stat_reads: a perf_event program on a
 *   sampling cpu-clock event of every CPU reads its socket's event while
 *   perf stat -I 10 reads both sockets' events, the test reads them and
 *   flows advance on the manual clock: every value is one the model
 *   gives at some sim time (a multiple of a step's bytes), none goes
 *   backwards, the totals are exact.
 * - read_waits_for_a_long_section: the program reads on a CPU of the
 *   package while the box's owner is in locked sections that last 25 ms
 *   (the simulator's wr_stall_us): each read waits for the section to
 *   end (upmu/<pmu>/read_stats counts waits, none given up), where one
 *   that made do with the last count would give a count short.
 *
 * perf_event_read_local() reads an event from every CPU of its package
 * (PERF_EV_CAP_READ_ACTIVE_PKG: a socket per package, as vm.sh's guests
 * have) since Linux 6.12; before, only from the event's own CPU, and
 * every other CPU's read fails with EINVAL.  The BPF object is
 * upmu_read.bpf.o next to this program (selftests/upmu/bpf/).
 */

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"

#define SIM_ID	44

#include "upmu_test.h"

#define MAX_CPUS	64	/* as in upmu_read.bpf.c */
#define UCF(s)		((s) ? "nvidia_ucf_pmu_1" : "nvidia_ucf_pmu_0")

/* As in upmu_read.bpf.c */
struct read_stats {
	uint64_t calls, reads, errors, last_err, min, max, last, backwards,
		 offgrid;
};

enum { PROG_KPROBE, PROG_TICK };

static int libbpf_say(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fprintf(stderr, "# libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

/* The BPF object next to this program, loaded; NULL on failure. */
static struct bpf_object *bpf_load(void)
{
	char path[PATH_MAX], *slash;
	struct bpf_object *obj;
	ssize_t n;

	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "upmu_read.bpf.o");
	libbpf_set_print(libbpf_say);
	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return NULL;
	if (bpf_object__load(obj)) {
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

static int map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__fd(m) : -1;
}

/*
 * events[c] = the event of CPU c's socket for every online CPU, the
 * statistics reset, the grid set.  0 or -errno.
 */
static int maps_setup(struct bpf_object *obj, const int *ev, uint64_t grid)
{
	struct read_stats st = { .min = ~0ULL };
	int efd = map_fd(obj, "events"), sfd = map_fd(obj, "stats");
	int gfd = map_fd(obj, "grid");
	uint32_t k, zero = 0;
	int s;

	if (efd < 0 || sfd < 0 || gfd < 0)
		return -ENOENT;
	for (k = 0; k < 2 * MAX_CPUS; k++)
		if (bpf_map_update_elem(sfd, &k, &st, BPF_ANY))
			return -errno;
	if (bpf_map_update_elem(gfd, &zero, &grid, BPF_ANY))
		return -errno;
	for (k = 0; k < MAX_CPUS && k < (uint32_t)sysconf(_SC_NPROCESSORS_CONF); k++) {
		s = cpu_package(k);
		if (s < 0 || s > 1)
			continue;
		if (bpf_map_update_elem(efd, &k, &ev[s], BPF_ANY))
			return -errno;
	}
	return 0;
}

static int bpf_stats(struct bpf_object *obj, int prog, int cpu,
		     struct read_stats *st)
{
	uint32_t k = prog * MAX_CPUS + cpu;

	return bpf_map_lookup_elem(map_fd(obj, "stats"), &k, st) ? -errno : 0;
}

/*
 * May a BPF program on @cpu read the event of its socket, whose owner is
 * @owner?  On @owner always; on the socket's other CPUs since 6.12.
 */
static bool reads_here(int cpu, int owner)
{
	return cpu == owner || kernel_at_least(6, 12);
}

/*
 * What a program saw on @cpu: reads, none failed; or, where perf does
 * not let it read (reads_here()), only EINVAL.
 */
static void check_stats(struct __test_metadata *_metadata,
			const struct read_stats *st, int cpu, int owner)
{
	if (!reads_here(cpu, owner)) {
		EXPECT_EQ(0ULL, st->reads) TH_LOG("CPU %d", cpu);
		EXPECT_EQ(st->calls, st->errors) TH_LOG("CPU %d", cpu);
		if (st->errors)
			EXPECT_EQ((uint64_t)EINVAL, st->last_err) TH_LOG("CPU %d", cpu);
		return;
	}
	EXPECT_EQ(0ULL, st->errors)
		TH_LOG("CPU %d: %llu reads failed, the last with %llu", cpu,
		       (unsigned long long)st->errors,
		       (unsigned long long)st->last_err);
}

SIM_FIXTURE(bpfread, "clock=manual rcs=0", "nvidia_ucf_pmu_1");

/*
 * The kprobe program reads the UCF event of its CPU's socket in every
 * call of upmu_field(): from event_init, with the box's lock held, on
 * each CPU the test opens events from, and from add and start on the
 * box's owner, inside the section of the box whose event it reads.
 */
TEST_F_TIMEOUT(bpfread, kprobe_in_locked_section, 300)
{
	const uint64_t want[2] = { 1000 * 64, 500 * 64 };
	struct cpu_pin pin = CPU_PIN_INIT;
	struct bpf_link *link = NULL;
	struct bpf_object *obj;
	struct pmu_read_stats rs[2];
	uint64_t calls = 0, v;
	int ev[2], owner[2], cpu, s, fd;
	struct read_stats st;

	for (s = 0; s < 2; s++) {
		owner[s] = pmu_cpu(UCF(s));
		ev[s] = pmu_open(UCF(s), "slc_bytes_rd", -1);
		ASSERT_LE(0, ev[s]);
	}
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=1000"));
	ASSERT_EQ(0, inject("socket=1 op=rd size=64 count=500"));
	/* The counts are folded in: every read from now on gives them. */
	for (s = 0; s < 2; s++)
		ASSERT_EQ(want[s], count_of(_metadata, ev[s]));

	obj = bpf_load();
	ASSERT_NE(NULL, obj) TH_LOG("cannot load upmu_read.bpf.o");
	ASSERT_EQ(0, maps_setup(obj, ev, 0));
	link = bpf_program__attach_kprobe(
		bpf_object__find_program_by_name(obj, "on_field"), false,
		"upmu_field");
	ASSERT_NE(NULL, link) TH_LOG("cannot attach a kprobe to upmu_field");

	for (cpu = 0; cpu < MAX_CPUS && cpu_package(cpu) >= 0; cpu++) {
		cpu_pin(&pin, cpu);
		for (s = 0; s < 2; s++) {
			fd = pmu_open(UCF(s), "slc_bytes_wr", -1);
			EXPECT_LE(0, fd) TH_LOG("open on %s from CPU %d: %d", UCF(s), cpu, fd);
			if (fd >= 0) {
				EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
				EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
				close(fd);
			}
		}
	}
	cpu_unpin(&pin);
	bpf_link__destroy(link);

	for (cpu = 0; cpu < MAX_CPUS && cpu_package(cpu) >= 0; cpu++) {
		ASSERT_EQ(0, bpf_stats(obj, PROG_KPROBE, cpu, &st));
		s = cpu_package(cpu);
		calls += st.calls;
		check_stats(_metadata, &st, cpu, owner[s]);
		if (!reads_here(cpu, owner[s]))
			continue;
		EXPECT_LT(0ULL, st.reads) TH_LOG("CPU %d read nothing", cpu);
		if (!st.reads)
			continue;
		EXPECT_EQ(want[s], st.min) TH_LOG("CPU %d", cpu);
		EXPECT_EQ(want[s], st.max) TH_LOG("CPU %d", cpu);
	}
	EXPECT_LE(8ULL, calls);
	/* The reads inside a section of their own CPU gave the last count. */
	EXPECT_EQ(0, pmu_read_stats(UCF(0), &rs[0]));
	EXPECT_EQ(0, pmu_read_stats(UCF(1), &rs[1]));
	EXPECT_LT(0ULL, rs[0].in_section + rs[1].in_section);
	for (s = 0; s < 2; s++) {
		EXPECT_EQ(0, count_read(ev[s], &v));
		EXPECT_EQ(want[s], v);
		close(ev[s]);
	}
	bpf_object__close(obj);
}

/* perf stat -I 10 on both sockets' events, in the background: its pid */
static pid_t perf_stat_start(const char *out)
{
	const char *perf = getenv("PERF") ?: "perf";
	pid_t pid = fork();

	if (pid)
		return pid;
	execlp(perf, perf, "stat", "-I", "10", "-x", ",", "-o", out, "-a",
	       "-e", "nvidia_ucf_pmu_0/slc_bytes_rd/,nvidia_ucf_pmu_1/slc_bytes_rd/",
	       "--", "sleep", "2", (char *)NULL);
	_exit(127);
}

/* A sampling cpu-clock event on @cpu every @period ns: fd or -errno. */
static int tick_open(int cpu, uint64_t period)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period,
	};

	return perf_open(&attr, -1, cpu, -1);
}

/*
 * Flows of 1000 (socket 0) and 500 (socket 1) reads of 64 bytes per sim
 * ms; the manual clock goes on in steps of 1 ms: a count is always a
 * multiple of 32000 bytes.  Meanwhile the sampling program reads on every
 * CPU, perf stat -I 10 reads, and the test reads.
 */
TEST_F_TIMEOUT(bpfread, sampling_reads_while_perf_stat_reads, 300)
{
	const uint64_t step[2] = { 1000 * 64, 500 * 64 }, grid = 500 * 64;
	unsigned long i, n = upmu_loops("UPMU_LOOPS_BPF", 200, 2000);
	char out[] = "/tmp/upmu-bpf-stat.XXXXXX";
	struct bpf_link *link[MAX_CPUS] = { NULL };
	int tick[MAX_CPUS], ev[2], owner[2], cpu, ncpu, s, st_rc;
	uint64_t v, prev[2] = { 0, 0 }, reads = 0;
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct read_stats st;
	pid_t perf;

	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 socket=0 op=rd size=64 rate=1000000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=2 socket=1 op=rd size=64 rate=500000"));
	for (s = 0; s < 2; s++) {
		owner[s] = pmu_cpu(UCF(s));
		ev[s] = pmu_open(UCF(s), "slc_bytes_rd", -1);
		ASSERT_LE(0, ev[s]);
	}
	obj = bpf_load();
	ASSERT_NE(NULL, obj) TH_LOG("cannot load upmu_read.bpf.o");
	ASSERT_EQ(0, maps_setup(obj, ev, grid));
	prog = bpf_object__find_program_by_name(obj, "on_tick");
	ASSERT_NE(NULL, prog);
	for (ncpu = 0; ncpu < MAX_CPUS && cpu_package(ncpu) >= 0; ncpu++) {
		tick[ncpu] = tick_open(ncpu, 1000000);
		ASSERT_LE(0, tick[ncpu]);
		link[ncpu] = bpf_program__attach_perf_event(prog, tick[ncpu]);
		ASSERT_NE(NULL, link[ncpu]);
	}

	ASSERT_LE(0, mkstemp(out));
	perf = perf_stat_start(out);
	ASSERT_LT(0, perf);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
		for (s = 0; s < 2; s++) {
			ASSERT_EQ(0, count_read(ev[s], &v));
			EXPECT_LE(prev[s], v);
			EXPECT_EQ(0ULL, v % grid) TH_LOG("socket %d read %llu", s,
						     (unsigned long long)v);
			EXPECT_GE((i + 1) * step[s], v);
			prev[s] = v;
		}
		usleep(10000);
	}
	ASSERT_EQ(perf, waitpid(perf, &st_rc, 0));
	EXPECT_TRUE(WIFEXITED(st_rc) && !WEXITSTATUS(st_rc))
		TH_LOG("perf stat -I 10 failed: status %#x (output in %s)", st_rc, out);
	for (cpu = 0; cpu < ncpu; cpu++) {
		bpf_link__destroy(link[cpu]);
		close(tick[cpu]);
	}

	for (s = 0; s < 2; s++) {
		EXPECT_EQ(0, count_read(ev[s], &v));
		EXPECT_EQ(n * step[s], v);
		prev[s] = v;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, bpf_stats(obj, PROG_TICK, cpu, &st));
		s = cpu_package(cpu);
		reads += st.reads;
		check_stats(_metadata, &st, cpu, owner[s]);
		EXPECT_EQ(0ULL, st.backwards) TH_LOG("CPU %d", cpu);
		EXPECT_EQ(0ULL, st.offgrid) TH_LOG("CPU %d", cpu);
		if (reads_here(cpu, owner[s]))
			EXPECT_LT(0ULL, st.reads) TH_LOG("CPU %d read nothing", cpu);
		if (st.reads)
			EXPECT_GE(prev[s], st.max) TH_LOG("CPU %d", cpu);
	}
	EXPECT_LT(0ULL, reads);
	TH_LOG("%llu reads by the sampling program, %lu steps",
	       (unsigned long long)reads, n);
	for (s = 0; s < 2; s++)
		close(ev[s]);
	unlink(out);
	bpf_object__close(obj);
}

SIM_FIXTURE(slowbus, "clock=manual rcs=0 blocks=ucf wr_stall_us=25000",
	    "nvidia_ucf_pmu_1");

/*
 * Every register write holds the owner of socket 0's UCF box 25 ms, with
 * the box's lock held (its section); a second event of the PMU disabled
 * and enabled over and over makes such sections one after another.
 * Meanwhile the sampling program reads the first event on another CPU of
 * the package every ms: a read that meets a section waits for it, longer
 * than 10 ms, and gives the exact count after it.  (Before 6.12 only the
 * owner reads, which cannot meet a section of another CPU.)
 */
TEST_F_TIMEOUT(slowbus, read_waits_for_a_long_section, 120)
{
	const uint64_t want = 1000 * 64;
	int owner = pmu_cpu(UCF(0)), reader = -1, ev[2], ev2, tick, cpu, i;
	struct bpf_link *link;
	struct pmu_read_stats rs;
	struct bpf_object *obj;
	struct read_stats st;

	if (!kernel_at_least(6, 12))
		SKIP(return, "before 6.12 BPF reads an event on its own CPU only");
	for (cpu = 0; cpu < MAX_CPUS && cpu_package(cpu) >= 0; cpu++)
		if (cpu != owner && cpu_package(cpu) == cpu_package(owner)) {
			reader = cpu;
			break;
		}
	ASSERT_LE(0, reader) TH_LOG("socket 0 has one CPU");
	ev[0] = ev[1] = pmu_open(UCF(0), "slc_bytes_rd", -1);
	ASSERT_LE(0, ev[0]);
	ev2 = pmu_open(UCF(0), "slc_bytes_wr", -1);
	ASSERT_LE(0, ev2);
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=1000"));
	ASSERT_EQ(want, count_of(_metadata, ev[0]));

	obj = bpf_load();
	ASSERT_NE(NULL, obj) TH_LOG("cannot load upmu_read.bpf.o");
	ASSERT_EQ(0, maps_setup(obj, ev, 0));
	tick = tick_open(reader, 1000000);
	ASSERT_LE(0, tick);
	link = bpf_program__attach_perf_event(
		bpf_object__find_program_by_name(obj, "on_tick"), tick);
	ASSERT_NE(NULL, link);
	/*
	 * A pause after each: an ioctl's sections follow one another on
	 * the owner, and a reader may wait through all of them.
	 */
	for (i = 0; i < 10; i++) {
		EXPECT_EQ(0, ioctl(ev2, PERF_EVENT_IOC_DISABLE, 0));
		usleep(30000);
		EXPECT_EQ(0, ioctl(ev2, PERF_EVENT_IOC_ENABLE, 0));
		usleep(30000);
	}
	bpf_link__destroy(link);
	close(tick);

	ASSERT_EQ(0, bpf_stats(obj, PROG_TICK, reader, &st));
	EXPECT_EQ(0ULL, st.errors);
	EXPECT_LT(0ULL, st.reads);
	EXPECT_EQ(want, st.min) TH_LOG("CPU %d read a count short", reader);
	EXPECT_EQ(want, st.max);
	ASSERT_EQ(0, pmu_read_stats(UCF(0), &rs));
	TH_LOG("%llu reads, %llu waited (at most %llu ns), %llu gave up",
	       (unsigned long long)st.reads, (unsigned long long)rs.waited,
	       (unsigned long long)rs.max_wait_ns, (unsigned long long)rs.gave_up);
	EXPECT_LT(0ULL, rs.waited);
	EXPECT_LT(10000000ULL, rs.max_wait_ns);
	EXPECT_EQ(0ULL, rs.gave_up);
	close(ev2);
	close(ev[0]);
	bpf_object__close(obj);
}

TEST_HARNESS_MAIN
