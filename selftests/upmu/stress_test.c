// SPDX-License-Identifier: GPL-2.0
/*
 * Races of the upmu stack, run side by side by threads, with exact
 * counts checked once they are over:
 *
 * - newdel_race: new_device and del_device of overlapping ids, and
 *   injections into them, from several threads: every write succeeds or
 *   fails with the errno that says why (EEXIST, ENOENT; EIO or ENOENT
 *   for debugfs files going away), each id's successes alternate, and
 *   a fresh device counts exactly afterwards;
 * - open_read_vs_del: perf_event_open, read and close on a device's
 *   PMUs while the device is deleted and created again: opens fail only
 *   as a PMU that is gone or going makes them fail, reads of an open
 *   event always succeed and never go back (6.15+ revokes the event, an
 *   older kernel keeps the PMU, dead, until it is closed);
 * - open_vs_module_unload: the same while the PMU driver module is
 *   unloaded and loaded again: unloading fails with EAGAIN or EBUSY while
 *   an event holds the module, the PMUs go with it and come back with it;
 * - hotplug_vs_init: events of socket 1's PMUs opened on every CPU while
 *   the owner CPU of the socket goes offline and online again (the other
 *   CPU of the socket staying online): an event kept open through it all,
 *   and every event opened during it, count exactly the traffic
 *   injected between the rounds of hotplug;
 * - many_readers: one reader per CPU reads the same events all the time
 *   while traffic is injected: no read goes back or sees half a batch,
 *   and every reader's last read is the exact total.
 *
 * UPMU_LOOPS_STRESS sets the number of rounds of each (make soak runs
 * many more than make check).  Needs upmu_core, upmu_sim and upmu_t410
 * loaded, UPMU_MODDIR set to the directory of upmu_t410.ko (for
 * open_vs_module_unload), 4 CPUs on 2 nodes, a socket (package) per node
 * (socket 1 is CPUs 2 and 3), and root.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* The test's device; newdel_race also uses the next two ids. */
#define SIM_ID	40
#define NR_IDS	3

#include "upmu_test.h"

#define UCF0	"nvidia_ucf_pmu_0"
#define UCF1	"nvidia_ucf_pmu_1"
#define CMEM1	"nvidia_cmem_latency_pmu_1"
#define T410	"upmu_t410"

/* Small SoCs: each PMU costs registration time on a debug kernel. */
#define OPTS_UCF	"blocks=ucf clock=manual"
#define OPTS_UCF_CMEM	"blocks=ucf,cmem clock=manual"

/*
 * Each test's loop counts (upmu_loops(): make check's, make soak's, or
 * UPMU_LOOPS_STRESS), and its time limit: the default for make check's
 * count, longer in proportion for a longer loop.
 */
#define STRESS_LOOPS(ci, soak)	"UPMU_LOOPS_STRESS", ci, soak
#define NEWDEL_LOOPS	STRESS_LOOPS(20, 100)
#define READ_DEL_LOOPS	STRESS_LOOPS(10, 50)
#define UNLOAD_LOOPS	STRESS_LOOPS(5, 25)
#define HOTPLUG_LOOPS	STRESS_LOOPS(4, 30)
#define READERS_LOOPS	STRESS_LOOPS(100, 1000)
#define STRESS_TEST(name, loops)					\
	TEST_F_TIMEOUT(stress, name,					\
		       upmu_loops_timeout(loops, TEST_TIMEOUT_DEFAULT))

/*
 * Threads do not use the harness's assertions (they are not thread
 * safe, and an ASSERT would end the test with threads running): each
 * records what it saw go wrong, and the main thread checks after
 * joining it.
 */
struct fault {
	unsigned long n;
	char first[200];
};

static void __attribute__((format(printf, 2, 3)))
fault(struct fault *f, const char *fmt, ...)
{
	va_list ap;

	if (!f->n++) {
		va_start(ap, fmt);
		vsnprintf(f->first, sizeof(f->first), fmt, ap);
		va_end(ap);
	}
}

/* What the main thread checks of a thread it joined. */
static void expect_no_fault(struct __test_metadata *_metadata,
			    const struct fault *f)
{
	EXPECT_EQ(0UL, f->n)
		TH_LOG("%lu unexpected result(s), first: %s", f->n, f->first);
}

/* Is @ret 0, or -errno of one of the errnos in the 0-terminated @ok? */
static bool ret_in(int ret, const int *ok)
{
	if (!ret)
		return true;
	for (; *ok; ok++)
		if (ret == -*ok)
			return true;
	return false;
}

/*
 * A debugfs file of a device that is going: the open finds no file
 * (ENOENT), or the file went after it was opened (EIO).
 */
static const int gone_file_errnos[] = { ENOENT, EIO, 0 };

/*
 * perf_event_open of a PMU that is gone or going: its sysfs files are
 * gone (pmu_attr(): ENODEV without type, ENOENT without the event;
 * without cpumask, CPU -1: EINVAL), its type is gone (ENOENT), its
 * module is going (ENODEV), it is dead (< 6.15: ENODEV), or its type
 * was taken by another PMU since (EINVAL: not one of its CPUs).
 */
static const int gone_pmu_errnos[] = { ENOENT, ENODEV, EINVAL, 0 };

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static int mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static int mod_load_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static bool mod_live(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return !read_str(path, buf, sizeof(buf)) && !strcmp(buf, "live");
}

/* $UPMU_MODDIR/upmu_t410.ko into @buf, or NULL if unset. */
static const char *t410_path(char *buf, size_t len)
{
	const char *dir = getenv("UPMU_MODDIR");

	if (!dir || !*dir)
		return NULL;
	snprintf(buf, len, "%s/" T410 ".ko", dir);
	return buf;
}

/* Load upmu_t410 if a test left it unloaded: the next tests need it. */
static int t410_ensure_loaded(void)
{
	return mod_live(T410) ? 0 : mod_load(T410);
}

static void sim_del_all(void)
{
	unsigned int i;

	for (i = 0; i < NR_IDS; i++)
		sim_del(SIM_ID + i);
}

/*
 * Before and after each test: CPUs online, the PMU driver loaded, none
 * of the test's devices left.  The teardown runs in the parent, once the
 * test's events are closed.
 */
FIXTURE(stress) {
	int dummy;
};

FIXTURE_SETUP(stress)
{
	upmu_fixture_setup(_metadata);
	ASSERT_EQ(0, t410_ensure_loaded()) TH_LOG(T410 " is not loaded");
	sim_del_all();
	ASSERT_TRUE(pmu_gone_within(UCF0, 5000)) TH_LOG("another device has " UCF0);
	ASSERT_TRUE(pmu_gone_within(UCF1, 5000)) TH_LOG("another device has " UCF1);
}

FIXTURE_TEARDOWN_PARENT(stress)
{
	upmu_fixture_teardown(_metadata);
	EXPECT_EQ(0, t410_ensure_loaded()) TH_LOG("cannot load " T410 " again");
	sim_del_all();
}

/*
 * After a storm: the PMUs of the deleted device go, and a new device
 * @opts (with UCF blocks) counts exactly on both sockets.
 */
static void fresh_device_counts(struct __test_metadata *_metadata,
				const char *opts)
{
	int fd0, fd1;

	sim_del(SIM_ID);
	ASSERT_TRUE(pmu_gone_within(UCF0, 5000));
	ASSERT_TRUE(pmu_gone_within(UCF1, 5000));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, opts));
	fd0 = pmu_open(UCF0, "slc_access", -1);
	ASSERT_LE(0, fd0) TH_LOG("open " UCF0 ": %s", strerror(-fd0));
	fd1 = pmu_open(UCF1, "slc_bytes_rd", -1);
	ASSERT_LE(0, fd1) TH_LOG("open " UCF1 ": %s", strerror(-fd1));
	ASSERT_EQ(0, inject("socket=0 op=wr count=5"));
	ASSERT_EQ(0, inject("socket=1 op=rd size=128 count=7"));
	ASSERT_EQ(0, inject("socket=1 op=wr size=128 count=9"));
	EXPECT_EQ(5ULL, count_of(_metadata, fd0));
	EXPECT_EQ(7ULL * 128, count_of(_metadata, fd1));
	close(fd0);
	close(fd1);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* ---- newdel_race -------------------------------------------------------- */

#define NR_NEWDEL	3

/* Successful new_device and del_device writes per id. */
static atomic_ulong new_ok[NR_IDS], del_ok[NR_IDS];

struct newdel {
	pthread_t th;
	unsigned int seed;
	unsigned long loops;
	struct fault fault;
};

/*
 * Device SIM_ID + k has 1 socket for k = 0, else 2: the devices compete
 * for the names nvidia_ucf_pmu_0 and _1, and only one gets each.
 */
static void *newdel_thread(void *arg)
{
	struct newdel *t = arg;
	unsigned long i;
	int ret;

	for (i = 0; i < t->loops; i++) {
		unsigned int k = rand_r(&t->seed) % NR_IDS, id = SIM_ID + k;

		if (rand_r(&t->seed) & 1) {
			ret = sim_new(id, k ? 2 : 1, OPTS_UCF);
			if (!ret)
				new_ok[k]++;
			else if (ret != -EEXIST)
				fault(&t->fault, "new_device %u: %s", id, strerror(-ret));
		} else {
			ret = sim_del(id);
			if (!ret)
				del_ok[k]++;
			else if (ret != -ENOENT)
				fault(&t->fault, "del_device %u: %s", id, strerror(-ret));
		}
	}
	return NULL;
}

struct injector {
	pthread_t th;
	atomic_bool stop;
	unsigned long ok;
	struct fault fault;
};

/* Inject into the devices (and look at their PMUs) as they come and go. */
static void *injector_thread(void *arg)
{
	struct injector *t = arg;
	unsigned int k;
	int ret;

	do {
		for (k = 0; k < NR_IDS; k++) {
			ret = sim_ctl(SIM_ID + k, "inject", "socket=0 count=1");
			if (!ret)
				t->ok++;
			else if (!ret_in(ret, gone_file_errnos))
				fault(&t->fault, "inject into %u: %s", SIM_ID + k,
				      strerror(-ret));
			pmu_cpu(UCF0);
			pmu_cpu(UCF1);
		}
	} while (!atomic_load(&t->stop));
	return NULL;
}

STRESS_TEST(newdel_race, NEWDEL_LOOPS)
{
	struct newdel t[NR_NEWDEL] = {};
	struct injector inj = {};
	unsigned long n = upmu_loops(NEWDEL_LOOPS), news = 0;
	unsigned int i, k;
	int ret;

	for (i = 0; i < NR_NEWDEL; i++) {
		t[i].seed = i + 1;
		t[i].loops = n;
		ASSERT_EQ(0, pthread_create(&t[i].th, NULL, newdel_thread, &t[i]));
	}
	ASSERT_EQ(0, pthread_create(&inj.th, NULL, injector_thread, &inj));
	for (i = 0; i < NR_NEWDEL; i++)
		EXPECT_EQ(0, pthread_join(t[i].th, NULL));
	atomic_store(&inj.stop, true);
	EXPECT_EQ(0, pthread_join(inj.th, NULL));

	for (i = 0; i < NR_NEWDEL; i++)
		expect_no_fault(_metadata, &t[i].fault);
	expect_no_fault(_metadata, &inj.fault);

	/*
	 * Each id's successful writes alternate new, del, new...: the ids
	 * that had one more new than del exist now (del_device says so).
	 */
	for (k = 0; k < NR_IDS; k++) {
		long diff = (long)(new_ok[k] - del_ok[k]);

		news += new_ok[k];
		ret = sim_del(SIM_ID + k);
		EXPECT_TRUE(ret == 0 || ret == -ENOENT) TH_LOG("del_device: %d", ret);
		EXPECT_EQ(ret == 0 ? 1 : 0, diff)
			TH_LOG("id %u: %lu new, %lu del", SIM_ID + k,
			       (unsigned long)new_ok[k], (unsigned long)del_ok[k]);
	}
	TH_LOG("%lu devices created, %lu injections", news, inj.ok);
	EXPECT_LT(0UL, news);
	EXPECT_TRUE(pmu_gone_within(UCF0, 5000));
	EXPECT_TRUE(pmu_gone_within(UCF1, 5000));

	fresh_device_counts(_metadata, OPTS_UCF);
}

/* ---- open, read and close while the PMUs go ------------------------------ */

#define NR_OPENERS	3

struct opener {
	pthread_t th;
	atomic_bool *stop;
	/* while set, wait after each close before the next open; or NULL */
	atomic_bool *hold;
	unsigned int nr;
	/* what injecting into the test's device may fail with, or NULL */
	const int *inject_errs;
	atomic_ulong opened;
	unsigned long refused, reads;
	struct fault fault;
};

/*
 * Open slc_access on UCF0 and UCF1 in turn, read it a few times with
 * traffic in between, close it: until told to stop, at least once each.
 */
static void *opener_thread(void *arg)
{
	static const char * const pmus[] = { UCF0, UCF1 };
	struct opener *t = arg;
	unsigned int i = t->nr;
	uint64_t v, prev;
	int fd, ret, r;

	do {
		unsigned int socket = i++ % 2;
		const char *pmu = pmus[socket];

		fd = pmu_open(pmu, "slc_access", -1);
		if (fd < 0) {
			if (!ret_in(fd, gone_pmu_errnos))
				fault(&t->fault, "open %s: %s", pmu, strerror(-fd));
			t->refused++;
			continue;
		}
		t->opened++;
		for (r = 0, prev = 0; r < 3; r++) {
			ret = count_read(fd, &v);
			if (ret) {
				fault(&t->fault, "read %s: %s", pmu, strerror(-ret));
				break;
			}
			if (v < prev)
				fault(&t->fault, "%s went back from %llu to %llu", pmu,
				      (unsigned long long)prev, (unsigned long long)v);
			prev = v;
			t->reads++;
			ret = sim_ctl(SIM_ID, "inject", "socket=%u count=1", socket);
			if (ret && (!t->inject_errs || !ret_in(ret, t->inject_errs)))
				fault(&t->fault, "inject: %s", strerror(-ret));
		}
		close(fd);
		while (t->hold && atomic_load(t->hold) && !atomic_load(t->stop))
			usleep(100);
	} while (!atomic_load(t->stop));
	return NULL;
}

static unsigned long total_opened(struct opener *t)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; i < NR_OPENERS; i++)
		n += t[i].opened;
	return n;
}

/*
 * Let the openers open something first (up to a second): the PMUs are
 * to go while events are open, not before anyone opened one.
 */
static void wait_opened(struct opener *t, unsigned long since)
{
	uint64_t end = now_ms() + 1000;

	while (total_opened(t) <= since && now_ms() < end)
		usleep(1000);
}

static int start_openers(struct opener *t, atomic_bool *stop, const int *inject_errs)
{
	unsigned int i;
	int ret;

	for (i = 0; i < NR_OPENERS; i++) {
		t[i].stop = stop;
		t[i].nr = i;
		t[i].inject_errs = inject_errs;
		ret = pthread_create(&t[i].th, NULL, opener_thread, &t[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void stop_openers(struct __test_metadata *_metadata, struct opener *t,
			 atomic_bool *stop)
{
	unsigned long refused = 0, reads = 0;
	unsigned int i;

	atomic_store(stop, true);
	for (i = 0; i < NR_OPENERS; i++) {
		EXPECT_EQ(0, pthread_join(t[i].th, NULL));
		expect_no_fault(_metadata, &t[i].fault);
		refused += t[i].refused;
		reads += t[i].reads;
	}
	TH_LOG("%lu events opened and read %lu times, %lu opens refused",
	       total_opened(t), reads, refused);
	EXPECT_LT(0UL, total_opened(t));
}

STRESS_TEST(open_read_vs_del, READ_DEL_LOOPS)
{
	struct opener t[NR_OPENERS] = {};
	unsigned long i, n = upmu_loops(READ_DEL_LOOPS);
	atomic_bool stop = false;
	int ret;

	ASSERT_EQ(0, sim_new(SIM_ID, 2, OPTS_UCF));
	ASSERT_EQ(0, start_openers(t, &stop, gone_file_errnos));
	for (i = 0; i < n; i++) {
		wait_opened(t, total_opened(t));
		ret = sim_del(SIM_ID);
		EXPECT_EQ(0, ret);
		if (!ret)
			ret = sim_new(SIM_ID, 2, OPTS_UCF);
		EXPECT_EQ(0, ret);
		if (ret)
			break;
	}
	stop_openers(_metadata, t, &stop);

	fresh_device_counts(_metadata, OPTS_UCF);
}

STRESS_TEST(open_vs_module_unload, UNLOAD_LOOPS)
{
	struct opener t[NR_OPENERS] = {};
	unsigned long i, n = upmu_loops(UNLOAD_LOOPS), busy = 0, held = 0, tries;
	atomic_bool stop = false, hold = false;
	char path[512];
	int ret;

	/* the suite always has the modules: a missing one is a failure */
	ASSERT_TRUE(t410_path(path, sizeof(path)) && !access(path, R_OK))
		TH_LOG("UPMU_MODDIR/" T410 ".ko not found");
	ASSERT_EQ(0, sim_new(SIM_ID, 2, OPTS_UCF));
	/* The device stays: injecting into it always works. */
	for (i = 0; i < NR_OPENERS; i++)
		t[i].hold = &hold;
	ASSERT_EQ(0, start_openers(t, &stop, NULL));
	for (i = 0; i < n; i++) {
		wait_opened(t, total_opened(t));
		/*
		 * Between two opens no event holds the module: that comes
		 * when the openers' vCPUs run truly side by side.  A guest
		 * that runs its vCPUs round-robin on one host thread may
		 * freeze them all holding events; after 500 refusals the
		 * openers wait after their close, and the module must go
		 * once the last event is closed.
		 */
		for (tries = 0; tries < 5500; tries++) {
			if (tries == 500) {
				atomic_store(&hold, true);
				held++;
			}
			ret = mod_unload(T410);
			if (ret != -EAGAIN && ret != -EBUSY)
				break;
			busy++;
			usleep(200);
		}
		atomic_store(&hold, false);
		EXPECT_EQ(0, ret) TH_LOG("delete_module: %s", strerror(-ret));
		if (ret)
			break;
		EXPECT_FALSE(pmu_exists(UCF0));
		EXPECT_FALSE(pmu_exists(UCF1));
		ret = mod_load_file(path);
		EXPECT_EQ(0, ret) TH_LOG("finit_module: %s", strerror(-ret));
		if (ret)
			break;
		/* The driver binds to the devices there are. */
		EXPECT_TRUE(pmu_exists(UCF0));
		EXPECT_TRUE(pmu_exists(UCF1));
	}
	stop_openers(_metadata, t, &stop);
	TH_LOG("%lu unloads, %lu refused while events were open, %lu with the openers held",
	       i, busy, held);
	ASSERT_EQ(0, t410_ensure_loaded());

	fresh_device_counts(_metadata, OPTS_UCF);
}

/* ---- hotplug_vs_init ------------------------------------------------------ */

#define NR_HP_OPENERS	2
/* Transactions injected per round, on socket 1. */
#define HP_BATCH	5
#define HP_INJECT	"socket=1 op=rd size=64 count=5"

/* socket 1's PMUs, and what one round's traffic adds to their events */
static const struct {
	const char *pmu, *event;
	uint64_t per_round;
} hp_events[] = {
	{ UCF1, "slc_access", HP_BATCH },
	/* a 64-byte read is two 32-byte CMEM requests */
	{ CMEM1, "rd_req", 2 * HP_BATCH },
};

#define NR_HP_EVENTS	ARRAY_SIZE(hp_events)

struct hp {
	pthread_barrier_t barrier;
	atomic_bool round_done;
	bool quit;
	struct perf_event_attr attr[NR_HP_EVENTS];
	/* opened before the storm, open through it */
	int kept[NR_HP_EVENTS];
};

struct hp_opener {
	pthread_t th;
	struct hp *hp;
	unsigned long opened, refused, held, taken_off;
	struct fault fault;
};

/* count, time enabled, time running */
static int read_timed(int fd, uint64_t v[3])
{
	ssize_t n = read(fd, v, 3 * sizeof(v[0]));

	if (n < 0)
		return -errno;
	return n == 3 * sizeof(v[0]) ? 0 : -ENODATA;
}

/*
 * Open event @e on every CPU and on the one its cpumask says now (-1),
 * read it and close it, but keep the first one opened in *@held; read
 * the event kept through the storm, which must not go back from *@last.
 */
static void hp_open_all(struct hp_opener *t, unsigned int e, int *held,
			uint64_t *last)
{
	const char *pmu = hp_events[e].pmu;
	int fd, ret, cpu, c;
	uint64_t v[3];

	for (c = -1; c < 4; c++) {
		cpu = c < 0 ? pmu_cpu(pmu) : c;
		fd = perf_open(&t->hp->attr[e], -1, cpu, -1);
		if (fd < 0) {
			t->refused++;
			/*
			 * The other socket's CPUs are never the PMU's; a CPU
			 * of the socket may be going offline under the open.
			 */
			if (fd != (cpu == 2 || cpu == 3 ? -ENODEV : -EINVAL))
				fault(&t->fault, "open %s on CPU %d: %s", pmu, cpu,
				      strerror(-fd));
			continue;
		}
		t->opened++;
		if (cpu != 2 && cpu != 3)
			fault(&t->fault, "%s opened on CPU %d", pmu, cpu);
		ret = read_timed(fd, v);
		if (ret)
			fault(&t->fault, "read %s: %s", pmu, strerror(-ret));
		if (*held < 0)
			*held = fd;
		else
			close(fd);
	}
	ret = count_read(t->hp->kept[e], &v[0]);
	if (ret)
		fault(&t->fault, "read kept %s: %s", pmu, strerror(-ret));
	else if (v[0] < *last)
		fault(&t->fault, "kept %s went back from %llu to %llu", pmu,
		      (unsigned long long)*last, (unsigned long long)v[0]);
	else
		*last = v[0];
}

/*
 * Event @e, opened in the storm and read @before the round's traffic:
 * it counted exactly that, or the perf core took it off (see
 * hp_opener_thread()).
 */
static void hp_check_held(struct hp_opener *t, unsigned int e, int fd,
			  const uint64_t before[3])
{
	uint64_t after[3];
	int ret;

	t->held++;
	ret = read_timed(fd, after);
	if (ret)
		fault(&t->fault, "read %s: %s", hp_events[e].pmu, strerror(-ret));
	else if (!memcmp(after, before, sizeof(after)))
		t->taken_off++;
	else if (after[0] - before[0] != hp_events[e].per_round)
		fault(&t->fault, "%s opened in the storm counted %llu of %llu",
		      hp_events[e].pmu, (unsigned long long)(after[0] - before[0]),
		      (unsigned long long)hp_events[e].per_round);
}

/*
 * Each round, while the main thread takes the owner CPU of socket 1
 * offline and back: open every socket-1 event on the PMU's cpumask CPU
 * and on every other CPU, read it and close it, but keep one of each
 * PMU open; read the events kept open through the storm.  Then, with
 * nobody opening or closing anything, the main thread injects a round's
 * traffic, which the events kept must have counted exactly.
 *
 * Except in one case, a limitation of the perf core that every uncore
 * PMU driver that moves its events on hotplug shares: an open that
 * picked the owner CPU (event_init) just before the driver moved the
 * PMU's events off it (perf_pmu_migrate_context() in its hotplug
 * callback) installs the event on that CPU after the move, while the
 * CPU is still online for perf (perf_event_open() checks only that),
 * and the perf core takes it off for good when the CPU goes
 * (perf_event_exit_cpu()).  Such an event counts nothing more and its
 * times stand still: that is accepted, and counted; anything else not.
 */
static void *hp_opener_thread(void *arg)
{
	struct hp_opener *t = arg;
	struct hp *hp = t->hp;
	uint64_t last[NR_HP_EVENTS] = {}, before[NR_HP_EVENTS][3];
	int held[NR_HP_EVENTS];
	unsigned int e;

	for (;;) {
		pthread_barrier_wait(&hp->barrier);	/* round starts */
		if (hp->quit)
			break;
		for (e = 0; e < NR_HP_EVENTS; e++)
			held[e] = -1;
		do {
			for (e = 0; e < NR_HP_EVENTS; e++)
				hp_open_all(t, e, &held[e], &last[e]);
		} while (!atomic_load(&hp->round_done));

		for (e = 0; e < NR_HP_EVENTS; e++)
			if (held[e] >= 0 && read_timed(held[e], before[e]))
				fault(&t->fault, "read %s", hp_events[e].pmu);
		pthread_barrier_wait(&hp->barrier);	/* storm over */
		pthread_barrier_wait(&hp->barrier);	/* traffic injected */
		for (e = 0; e < NR_HP_EVENTS; e++) {
			if (held[e] < 0)
				continue;
			hp_check_held(t, e, held[e], before[e]);
			close(held[e]);
		}
	}
	return NULL;
}

STRESS_TEST(hotplug_vs_init, HOTPLUG_LOOPS)
{
	struct hp_opener t[NR_HP_OPENERS] = {};
	unsigned long round, n = upmu_loops(HOTPLUG_LOOPS), opened = 0, refused = 0, held = 0;
	unsigned long taken_off = 0;
	struct hp hp = {};
	unsigned int e, i;
	int cpu, fd;

	ASSERT_EQ(0, sim_new(SIM_ID, 2, OPTS_UCF_CMEM));
	ASSERT_EQ(2, pmu_cpu(UCF1));
	for (e = 0; e < NR_HP_EVENTS; e++) {
		ASSERT_EQ(0, pmu_attr(hp_events[e].pmu, hp_events[e].event, &hp.attr[e]));
		hp.attr[e].read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING;
		hp.kept[e] = pmu_open(hp_events[e].pmu, hp_events[e].event, -1);
		ASSERT_LE(0, hp.kept[e]) TH_LOG("%s: %s", hp_events[e].pmu,
					       strerror(-hp.kept[e]));
	}
	ASSERT_EQ(0, pthread_barrier_init(&hp.barrier, NULL, NR_HP_OPENERS + 1));
	for (i = 0; i < NR_HP_OPENERS; i++) {
		t[i].hp = &hp;
		ASSERT_EQ(0, pthread_create(&t[i].th, NULL, hp_opener_thread, &t[i]));
	}

	for (round = 0; round < n; round++) {
		atomic_store(&hp.round_done, false);
		pthread_barrier_wait(&hp.barrier);
		/*
		 * Offline the owner: its events move to the other CPU of the
		 * socket, which stays online and keeps the PMU when the first
		 * comes back.  So the owner alternates between CPUs 2 and 3.
		 */
		cpu = pmu_cpu(UCF1);
		EXPECT_TRUE(cpu == 2 || cpu == 3) TH_LOG("owner %d", cpu);
		if (cpu == 2 || cpu == 3) {
			EXPECT_EQ(0, cpu_set_online(cpu, false));
			EXPECT_EQ(cpu ^ 1, pmu_cpu(UCF1));
			EXPECT_EQ(cpu ^ 1, pmu_cpu(CMEM1));
			EXPECT_EQ(0, cpu_set_online(cpu, true));
			EXPECT_EQ(cpu ^ 1, pmu_cpu(UCF1));
		}
		atomic_store(&hp.round_done, true);
		pthread_barrier_wait(&hp.barrier);
		EXPECT_EQ(0, inject(HP_INJECT));
		pthread_barrier_wait(&hp.barrier);
		for (e = 0; e < NR_HP_EVENTS; e++) {
			EXPECT_EQ((round + 1) * hp_events[e].per_round,
				  count_of(_metadata, hp.kept[e]))
				TH_LOG("kept event %u, round %lu", e, round);
		}
	}
	hp.quit = true;
	pthread_barrier_wait(&hp.barrier);
	for (i = 0; i < NR_HP_OPENERS; i++) {
		EXPECT_EQ(0, pthread_join(t[i].th, NULL));
		expect_no_fault(_metadata, &t[i].fault);
		opened += t[i].opened;
		refused += t[i].refused;
		held += t[i].held;
		taken_off += t[i].taken_off;
	}
	pthread_barrier_destroy(&hp.barrier);
	TH_LOG("%lu rounds: %lu events opened, %lu refused", n, opened, refused);
	TH_LOG("%lu kept for a round, %lu of them taken off by the perf core",
	       held, taken_off);
	/* The race that takes events off is narrow: most must count. */
	EXPECT_GT(held / 2, taken_off);
	EXPECT_EQ(0, cpus_restore_online());

	/* Kept through the storm: exactly what was injected during it. */
	for (e = 0; e < NR_HP_EVENTS; e++) {
		EXPECT_EQ(n * hp_events[e].per_round, count_of(_metadata, hp.kept[e]))
			TH_LOG("kept %s", hp_events[e].pmu);
	}
	/* Opened after it: exactly what comes after. */
	for (e = 0; e < NR_HP_EVENTS; e++) {
		fd = pmu_open(hp_events[e].pmu, hp_events[e].event, -1);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", hp_events[e].pmu, strerror(-fd));
		ASSERT_EQ(0, inject(HP_INJECT));
		ASSERT_EQ(0, inject(HP_INJECT));
		EXPECT_EQ(2 * hp_events[e].per_round, count_of(_metadata, fd))
			TH_LOG("%s opened after the storm", hp_events[e].pmu);
		close(fd);
		close(hp.kept[e]);
	}
}

/* ---- many_readers ----------------------------------------------------------- */

/* Transactions per batch: a batch is counted whole or not at all. */
#define RD_BATCH	7

struct reader {
	pthread_t th;
	int cpu;
	const int *fd;
	pthread_barrier_t *start;
	atomic_bool *done;
	uint64_t total;
	uint64_t last[2];
	unsigned long reads;
	struct fault fault;
};

static void *reader_thread(void *arg)
{
	struct reader *t = arg;
	uint64_t v, prev[2] = {};
	bool done;
	int i, ret;

	pthread_barrier_wait(t->start);
	do {
		/* Read what was injected by the time done was set, at least. */
		done = atomic_load(t->done);
		for (i = 0; i < 2; i++) {
			ret = count_read(t->fd[i], &v);
			if (ret) {
				fault(&t->fault, "CPU %d: read: %s", t->cpu, strerror(-ret));
				return NULL;
			}
			if (v < prev[i] || v % RD_BATCH || v > t->total)
				fault(&t->fault, "CPU %d: socket %d read %llu after %llu",
				      t->cpu, i, (unsigned long long)v,
				      (unsigned long long)prev[i]);
			prev[i] = v;
			t->reads++;
		}
	} while (!done);
	t->last[0] = prev[0];
	t->last[1] = prev[1];
	return NULL;
}

STRESS_TEST(many_readers, READERS_LOOPS)
{
	struct reader t[UPMU_MAX_CPUS] = {};
	unsigned long i, n = upmu_loops(READERS_LOOPS), reads = ~0UL;
	pthread_barrier_t start;
	atomic_bool done = false;
	unsigned int nr = 0, r;
	pthread_attr_t pa;
	cpu_set_t online, one;
	int fd[2], cpu, ret = 0;

	ASSERT_EQ(0, sim_new(SIM_ID, 2, OPTS_UCF));
	fd[0] = pmu_open(UCF0, "slc_access", -1);
	ASSERT_LE(0, fd[0]);
	fd[1] = pmu_open(UCF1, "slc_access", -1);
	ASSERT_LE(0, fd[1]);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(online), &online));
	for (cpu = 0; cpu < UPMU_MAX_CPUS && cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &online))
			t[nr++].cpu = cpu;
	ASSERT_LE(2U, nr);

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, nr + 1));
	for (r = 0; r < nr; r++) {
		t[r].fd = fd;
		t[r].start = &start;
		t[r].done = &done;
		t[r].total = n * RD_BATCH;
		CPU_ZERO(&one);
		CPU_SET(t[r].cpu, &one);
		ASSERT_EQ(0, pthread_attr_init(&pa));
		ASSERT_EQ(0, pthread_attr_setaffinity_np(&pa, sizeof(one), &one));
		ASSERT_EQ(0, pthread_create(&t[r].th, &pa, reader_thread, &t[r]));
		pthread_attr_destroy(&pa);
	}
	pthread_barrier_wait(&start);
	/* Both sockets, in turn first: n batches each. */
	for (i = 0; i < n && !ret; i++) {
		ret = sim_ctl(SIM_ID, "inject", "socket=%lu count=%d", i % 2, RD_BATCH) ?:
		      sim_ctl(SIM_ID, "inject", "socket=%lu count=%d", 1 - i % 2, RD_BATCH);
		EXPECT_EQ(0, ret) TH_LOG("batch %lu", i);
	}
	atomic_store(&done, true);
	for (r = 0; r < nr; r++) {
		EXPECT_EQ(0, pthread_join(t[r].th, NULL));
		expect_no_fault(_metadata, &t[r].fault);
		EXPECT_EQ(n * RD_BATCH, t[r].last[0]) TH_LOG("CPU %d, socket 0", t[r].cpu);
		EXPECT_EQ(n * RD_BATCH, t[r].last[1]) TH_LOG("CPU %d, socket 1", t[r].cpu);
		if (t[r].reads < reads)
			reads = t[r].reads;
	}
	pthread_barrier_destroy(&start);
	TH_LOG("%u readers, %lu batches, each reader read at least %lu times",
	       nr, 2 * n, reads);
	EXPECT_EQ(n * RD_BATCH, count_of(_metadata, fd[0]));
	EXPECT_EQ(n * RD_BATCH, count_of(_metadata, fd[1]));
	close(fd[0]);
	close(fd[1]);
}

TEST_HARNESS_MAIN
