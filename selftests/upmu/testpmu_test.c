// SPDX-License-Identifier: GPL-2.0
/*
 * The core's per-die model, its counter constraints and per-counter
 * widths, through the test-only family upmu_testpmu (driver/test/): one
 * PMU, upmu_testbox_0, with a box per die; four counters per box,
 * counter 3 32 bits wide and the others 48; event ctr0_only (0x1) may
 * use counter 0 only, any (0x2) counters 0-2, narrow (0x3) counter 3,
 * all (0x4) any of the four.
 * "DIE EVENT COUNT" written to its debugfs inject file makes the
 * counters of that die's box programmed with EVENT advance by COUNT.
 *
 * Needs upmu_core loaded and UPMU_MODDIR (upmu_testpmu.ko is loaded and
 * unloaded around each test), 4 CPUs on 2 packages (die 1 is CPUs 2
 * and 3).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	0	/* no simulated device: upmu_test.h's helpers need one */

#include "upmu_test.h"

#define PMU	"upmu_testbox_0"
#define MOD	"upmu_testpmu"
#define INJECT	"/sys/kernel/debug/upmu_testpmu/inject"

static int tb_load(void)
{
	return pmu_exists(PMU) ? 0 : mod_load(MOD);
}

static int tb_inject(unsigned int die, unsigned int ev, unsigned long long n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%u %u %llu", die, ev, n);
	return write_str(INJECT, buf);
}

/* An event of the test PMU on @cpu; fd or -errno. */
static int tb_open(const char *spec, int cpu, int group)
{
	struct perf_event_attr attr;
	int ret = pmu_attr(PMU, spec, &attr);

	return ret ? ret : perf_open(&attr, -1, cpu, group);
}

FIXTURE(testbox) {
	int dummy;
};

FIXTURE_SETUP(testbox)
{
	upmu_fixture_setup(_metadata);
	ASSERT_EQ(0, tb_load()) TH_LOG("cannot load " MOD " from $UPMU_MODDIR");
	ASSERT_TRUE(pmu_exists(PMU));
}

FIXTURE_TEARDOWN_PARENT(testbox)
{
	upmu_fixture_teardown(_metadata);
	EXPECT_EQ(0, mod_unload_wait(MOD));
}

/* One owner per die in cpumask; the format and events of the tables. */
TEST_F(testbox, sysfs)
{
	char buf[256];

	ASSERT_EQ(0, pmu_read(PMU, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("0,2", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/event", buf, sizeof(buf)));
	EXPECT_STREQ("config:0-7", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/ctr0_only", buf, sizeof(buf)));
	EXPECT_STREQ("event=0x1", buf);
	ASSERT_EQ(0, pmu_read(PMU, "associated_cpus", buf, sizeof(buf)));
	EXPECT_STREQ("0-3", buf);
}

/* An event counts on the box of its CPU's die, and only there. */
TEST_F(testbox, box_of_die)
{
	int fd0 = tb_open("any", 1, -1), fd1 = tb_open("any", 3, -1);

	ASSERT_LE(0, fd0) TH_LOG("open on CPU 1: %s", strerror(-fd0));
	ASSERT_LE(0, fd1) TH_LOG("open on CPU 3: %s", strerror(-fd1));
	ASSERT_EQ(0, tb_inject(0, 2, 7));
	ASSERT_EQ(0, tb_inject(1, 2, 100));
	EXPECT_EQ(7ULL, count_of(_metadata, fd0));
	EXPECT_EQ(100ULL, count_of(_metadata, fd1));
	ASSERT_EQ(0, tb_inject(1, 2, 1));
	EXPECT_EQ(7ULL, count_of(_metadata, fd0));
	EXPECT_EQ(101ULL, count_of(_metadata, fd1));
	close(fd0);
	close(fd1);
}

/* A group: leader @first, sibling @second, both count exactly. */
static void group_counts(struct __test_metadata *_metadata, const char *first,
			 unsigned int ev1, const char *second, unsigned int ev2)
{
	int lead = tb_open(first, 0, -1), sib;

	ASSERT_LE(0, lead) TH_LOG("open %s: %s", first, strerror(-lead));
	sib = tb_open(second, 0, lead);
	ASSERT_LE(0, sib) TH_LOG("open %s in a group with %s: %s", second,
				 first, strerror(-sib));
	ASSERT_EQ(0, tb_inject(0, ev1, 5));
	ASSERT_EQ(0, tb_inject(0, ev2, 7));
	EXPECT_EQ(5ULL, count_of(_metadata, lead));
	EXPECT_EQ(7ULL, count_of(_metadata, sib));
	close(sib);
	close(lead);
}

/* An event that fits only counter 0 next to one that fits any. */
TEST_F(testbox, constraint_any_then_ctr0)
{
	group_counts(_metadata, "any", 2, "ctr0_only", 1);
}

TEST_F(testbox, constraint_ctr0_then_any)
{
	group_counts(_metadata, "ctr0_only", 1, "any", 2);
}

/* Two events that fit only counter 0 cannot be a group. */
TEST_F(testbox, constraint_impossible)
{
	int lead = tb_open("ctr0_only", 0, -1), sib;

	ASSERT_LE(0, lead);
	sib = tb_open("ctr0_only", 0, lead);
	EXPECT_EQ(-EINVAL, sib);
	if (sib >= 0)
		close(sib);
	close(lead);
}

/*
 * A running event on counter 0 moves to another counter for an event
 * that fits only counter 0, and keeps counting exactly.
 */
TEST_F(testbox, constraint_moves_running_event)
{
	int a = tb_open("any", 0, -1), b;

	ASSERT_LE(0, a);
	ASSERT_EQ(0, tb_inject(0, 2, 5));
	b = tb_open("ctr0_only", 0, -1);
	ASSERT_LE(0, b) TH_LOG("open ctr0_only: %s", strerror(-b));
	ASSERT_EQ(0, tb_inject(0, 2, 3));
	ASSERT_EQ(0, tb_inject(0, 1, 4));
	EXPECT_EQ(8ULL, count_of(_metadata, a));
	EXPECT_EQ(4ULL, count_of(_metadata, b));
	close(b);
	close(a);
}

/*
 * {any, any, all, ctr0_only} fits the four counters only as all on 3,
 * the anys on 1 and 2, ctr0_only on 0: coming in that order, ctr0_only
 * finds counter 0 taken by an any that cannot move to counter 3, but
 * moves to 2 if all moves from 2 to 3 first (a path of two moves).  As a
 * group it opens; as separate events all four count at once.
 */
static const char * const tb_four[] = { "any", "any", "all", "ctr0_only" };
static const unsigned int tb_four_ev[] = { 2, 2, 4, 1 };

/* Inject 10 + i of event i's kind: each counts its kind's total. */
static void four_count(struct __test_metadata *_metadata, const int fd[4])
{
	uint64_t v[3];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, tb_inject(0, tb_four_ev[i], 10 + i));
	}
	/* any: 10 + 11, all: 12, ctr0_only: 13 */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ((ssize_t)sizeof(v), read(fd[i], v, sizeof(v)));
		EXPECT_EQ(i < 2 ? 21ULL : 10ULL + i, v[0]) TH_LOG("%s", tb_four[i]);
		/* on the hardware all the time: not multiplexed */
		EXPECT_EQ(v[1], v[2]) TH_LOG("%s", tb_four[i]);
	}
}

static int tb_open_timed(const char *spec, int group)
{
	return pmu_open_timed(PMU, spec, 0, group);
}

TEST_F(testbox, constraint_path_group)
{
	int fd[4], i;

	for (i = 0; i < 4; i++) {
		fd[i] = tb_open_timed(tb_four[i], i ? fd[0] : -1);
		ASSERT_LE(0, fd[i]) TH_LOG("open %s: %s", tb_four[i], strerror(-fd[i]));
	}
	four_count(_metadata, fd);
	for (i = 3; i >= 0; i--)
		close(fd[i]);
}

TEST_F(testbox, constraint_path_running)
{
	uint64_t v[3];
	int fd[4], i;

	for (i = 0; i < 4; i++) {
		fd[i] = tb_open_timed(tb_four[i], -1);
		ASSERT_LE(0, fd[i]) TH_LOG("open %s: %s", tb_four[i], strerror(-fd[i]));
		ASSERT_EQ(0, tb_inject(0, tb_four_ev[i], 100));
	}
	/* ctr0_only came last: the two that moved for it counted before */
	ASSERT_EQ((ssize_t)sizeof(v), read(fd[0], v, sizeof(v)));
	EXPECT_EQ(200ULL, v[0]);
	ASSERT_EQ((ssize_t)sizeof(v), read(fd[2], v, sizeof(v)));
	EXPECT_EQ(100ULL, v[0]);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_RESET, 0));
	}
	four_count(_metadata, fd);
	for (i = 0; i < 4; i++)
		close(fd[i]);
}

/* The 32-bit counter wraps between reads: the count goes on exactly. */
TEST_F(testbox, narrow_counter_wraps)
{
	int fd = tb_open("narrow", 0, -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tb_inject(0, 3, 3000000000ULL));
	EXPECT_EQ(3000000000ULL, count_of(_metadata, fd));
	ASSERT_EQ(0, tb_inject(0, 3, 3000000000ULL));
	EXPECT_EQ(6000000000ULL, count_of(_metadata, fd));
	ASSERT_EQ(0, tb_inject(0, 3, 3000000000ULL));
	EXPECT_EQ(9000000000ULL, count_of(_metadata, fd));
	close(fd);
}

/* A 48-bit counter passes 2^32 without a wrap. */
TEST_F(testbox, wide_counter_no_wrap)
{
	int fd = tb_open("any", 0, -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tb_inject(0, 2, 6000000000ULL));
	EXPECT_EQ(6000000000ULL, count_of(_metadata, fd));
	close(fd);
}

TEST_F(testbox, reserved_bits)
{
	struct perf_event_attr attr;

	ASSERT_EQ(0, pmu_attr(PMU, "any", &attr));
	attr.config |= 0x100;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
	attr.config &= ~0x100ULL;
	attr.config |= 1ULL << 44;	/* just above tag's second range */
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
}

/*
 * A format in two ranges: its sysfs text names both, their bits are
 * valid, and the family sees the value joined (tag must be 0 or 0x5a:
 * 0xa in config:12-15, 0x5 in config:40-43).
 */
TEST_F(testbox, split_format)
{
	struct perf_event_attr attr;
	char buf[64];
	int fd;

	ASSERT_EQ(0, pmu_read(PMU, "format/tag", buf, sizeof(buf)));
	EXPECT_STREQ("config:12-15,40-43", buf);
	ASSERT_EQ(0, pmu_attr(PMU, "any,tag=0x5a", &attr));
	EXPECT_EQ(0x5000000a002ULL, attr.config);
	fd = perf_open(&attr, -1, 0, -1);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	/* the ranges the other way round: 0xa5, not the tag */
	attr.config = 0xa0000005002ULL;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
	attr.config = 0x2;
	fd = perf_open(&attr, -1, 0, -1);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
}

/*
 * The owner of die 1 goes offline: die 1's event moves to CPU 3 and
 * counts on; die 0 keeps its owner.
 */
TEST_F(testbox, hotplug_per_die)
{
	int fd0 = tb_open("any", 0, -1), fd1 = tb_open("any", 2, -1);
	char buf[64];

	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, tb_inject(1, 2, 10));
	ASSERT_EQ(0, cpu_set_online(2, false));
	ASSERT_EQ(0, pmu_read(PMU, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("0,3", buf);
	ASSERT_EQ(0, tb_inject(1, 2, 11));
	ASSERT_EQ(0, tb_inject(0, 2, 3));
	EXPECT_EQ(21ULL, count_of(_metadata, fd1));
	EXPECT_EQ(3ULL, count_of(_metadata, fd0));
	ASSERT_EQ(0, cpu_set_online(2, true));
	ASSERT_EQ(0, pmu_read(PMU, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("0,3", buf);
	close(fd0);
	close(fd1);
}

TEST_HARNESS_MAIN
