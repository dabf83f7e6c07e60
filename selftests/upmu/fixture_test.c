// SPDX-License-Identifier: GPL-2.0
/*
 * The test fixture itself (upmu_test.h): a test that stops with CPUs
 * offline, on a failed assertion or killed as the harness kills a test
 * on its timeout, must not leave them offline for the tests after it.  Two of
 * the tests below fail on purpose (XFAIL); the test after each checks
 * that the topology is whole again.  And a test's time limit, which grows
 * with its loop count (upmu_loops_timeout()).
 *
 * Needs upmu_core, upmu_sim and upmu_t410 loaded, 4 CPUs on 2 nodes
 * (socket 1 is CPUs 2 and 3).
 */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	21

#include "upmu_test.h"

#define UCF1	"nvidia_ucf_pmu_1"
/* written once the killed test has its CPU offline */
#define MARK	"/tmp/upmu_fixture_test.offline"

SIM_FIXTURE(fx, "rcs=0", UCF1);

FIXTURE_VARIANT(fx) {
	int unused;
};

FIXTURE_VARIANT_ADD(fx, hotplug) {
};

static bool cpu_is_online(int cpu)
{
	char path[64];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	return !read_u64(path, &v) && v == 1;
}

/* Fails (expected) with CPU 2, the owner of socket 1's PMUs, offline. */
TEST_F(fx, assert_fails_with_cpu_offline)
{
	ASSERT_EQ(2, pmu_cpu(UCF1));
	ASSERT_EQ(0, cpu_set_online(2, false));
	ASSERT_EQ(2, pmu_cpu(UCF1)) TH_LOG("fails on purpose: the owner moved to CPU 3");
}

/* The teardown brought CPU 2 back, and a new event counts on it. */
TEST_F(fx, cpus_back_after_failed_assert)
{
	int fd;

	EXPECT_TRUE(cpu_is_online(2));
	EXPECT_TRUE(cpu_is_online(3));
	EXPECT_EQ(2, pmu_cpu(UCF1));
	fd = pmu_open(UCF1, "slc_access", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("socket=1 count=3"));
	EXPECT_EQ(3ULL, count_of(_metadata, fd));
	close(fd);
}

/*
 * Killed (expected) with CPU 3 offline, the way the harness kills a test
 * on its timeout: SIGKILL to the test's process group, which takes the
 * process that would run the teardown with it.
 */
TEST_F(fx, killed_with_cpu_offline)
{
	FILE *f;

	unlink(MARK);
	ASSERT_EQ(0, cpu_set_online(3, false));
	f = fopen(MARK, "w");
	ASSERT_NE(NULL, f);
	fclose(f);
	kill(0, SIGKILL);
}

/* This test's setup brought CPU 3 back. */
TEST_F(fx, cpus_back_after_kill)
{
	ASSERT_EQ(0, access(MARK, F_OK)) TH_LOG("the killed test never had CPU 3 offline");
	unlink(MARK);
	EXPECT_TRUE(cpu_is_online(3));
	EXPECT_EQ(2, pmu_cpu(UCF1));
}

/* upmu_loops_timeout(): a loop's time limit grows with its count. */
TEST(loops_timeout)
{
	ASSERT_EQ(0, unsetenv("UPMU_SOAK"));
	ASSERT_EQ(0, unsetenv("UPMU_T_N"));
	EXPECT_EQ(120, upmu_loops_timeout("UPMU_T_N", 3, 300, 120));
	ASSERT_EQ(0, setenv("UPMU_SOAK", "1", 1));
	EXPECT_EQ(12000, upmu_loops_timeout("UPMU_T_N", 3, 300, 120));
	ASSERT_EQ(0, setenv("UPMU_T_N", "7", 1));
	EXPECT_EQ(280, upmu_loops_timeout("UPMU_T_N", 3, 300, 120));
	ASSERT_EQ(0, setenv("UPMU_T_N", "8", 1));
	EXPECT_EQ(267, upmu_loops_timeout("UPMU_T_N", 3, 300, 100));
	/* a shorter loop keeps the whole limit */
	ASSERT_EQ(0, setenv("UPMU_T_N", "1", 1));
	EXPECT_EQ(120, upmu_loops_timeout("UPMU_T_N", 3, 300, 120));
	/* the harness's poll() takes an int of milliseconds */
	ASSERT_EQ(0, setenv("UPMU_T_N", "1000000000000", 1));
	EXPECT_EQ(INT_MAX / 1000, upmu_loops_timeout("UPMU_T_N", 3, 300, 120));
}

FIXTURE(limit) {
	int unused;
};
FIXTURE_SETUP(limit) {}
FIXTURE_TEARDOWN(limit) {}

/* The harness waits as long as upmu_loops_timeout() said at start-up. */
TEST_F_TIMEOUT(limit, from_loop_count,
	       upmu_loops_timeout("UPMU_T_NONE", 3, 300, 100))
{
	const char *soak = getenv("UPMU_SOAK");

	EXPECT_EQ(soak && !strcmp(soak, "1") ? 10000 : 100, _metadata->timeout);
}

XFAIL_ADD(fx, hotplug, assert_fails_with_cpu_offline);
XFAIL_ADD(fx, hotplug, killed_with_cpu_offline);

TEST_HARNESS_MAIN
