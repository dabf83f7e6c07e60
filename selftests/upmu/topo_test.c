// SPDX-License-Identifier: GPL-2.0
/*
 * Per-die PMUs on a machine whose possible CPUs exceed those that were
 * ever up: the guest has 8 CPUs on 2 sockets (4 each) and boots with
 * maxcpus=4, so socket 1's CPUs are possible but have never run, and
 * have no topology yet.  A per-die PMU registered then has a box for
 * every die the firmware enumerates, and a CPU of socket 1 that comes
 * online later joins die 1's box: its events count die 1, never die 0.
 *
 * Runs only in its own VM (scripts/check.sh: "topology"; guest-suite.sh
 * topo_test), with upmu_core and upmu_sim loaded and UPMU_MODDIR for
 * upmu_testpmu and upmu_icx.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	45

#include "upmu_test.h"

#define PMU	"upmu_testbox_0"
#define INJECT	"/sys/kernel/debug/upmu_testpmu/inject"
#define LATE	4	/* socket 1's first CPU */

/* Is @cpu in /sys/devices/system/cpu/online ("0-3,5")? 1, 0, or -errno */
static int cpu_is_online(int cpu)
{
	char buf[256], *p = buf;
	int lo, hi, n, ret;

	ret = read_str("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (ret)
		return ret;
	while (sscanf(p, "%d%n", &lo, &n) == 1) {
		p += n;
		hi = lo;
		if (*p == '-' && sscanf(p + 1, "%d%n", &hi, &n) == 1)
			p += 1 + n;
		if (cpu >= lo && cpu <= hi)
			return 1;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

static int tb_inject(unsigned int die, unsigned int ev, unsigned long long n)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%u %u %llu", die, ev, n);
	return write_str(INJECT, buf);
}

/*
 * The guest is as the header says: CPUs 0-3 online, all of socket 0,
 * CPU LATE offline and never up (no topology yet).  Then the test PMU
 * and an Ice Lake-X SoC register, and CPU LATE comes online.
 */
TEST(cpu_of_a_new_die_counts_on_its_box)
{
	struct perf_event_attr attr;
	char buf[64];
	uint64_t v;
	int cpu, fd;

	for (cpu = 0; cpu < LATE; cpu++) {
		ASSERT_EQ(1, cpu_is_online(cpu)) TH_LOG("CPU %d", cpu);
		ASSERT_EQ(0, cpu_package(cpu)) TH_LOG("CPU %d", cpu);
	}
	ASSERT_EQ(0, cpu_is_online(LATE))
		TH_LOG("CPU %d must be offline (boot with maxcpus=%d)", LATE, LATE);
	ASSERT_EQ(-1, cpu_package(LATE)) TH_LOG("CPU %d was up before", LATE);

	sim_del(SIM_ID);
	ASSERT_EQ(0, mod_load("upmu_testpmu"));
	ASSERT_EQ(0, mod_load("upmu_icx"));
	/* a SoC of 2 sockets: 2 dies enumerated, one of them with CPUs up */
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual"));
	ASSERT_TRUE(pmu_exists("uncore_cha_0"));
	ASSERT_EQ(0, pmu_read("uncore_cha_0", "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	ASSERT_EQ(0, pmu_read(PMU, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	/* die 1's box exists, with nobody to own it yet */
	EXPECT_EQ(0, tb_inject(1, 2, 1));

	ASSERT_EQ(0, cpu_set_online(LATE, true));
	ASSERT_EQ(1, cpu_package(LATE));
	ASSERT_EQ(0, pmu_read(PMU, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("0,4", buf);
	ASSERT_EQ(0, pmu_read("uncore_cha_0", "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("0,4", buf);

	/* an event of CPU LATE counts die 1's box, not die 0's */
	ASSERT_EQ(0, pmu_attr(PMU, "any", &attr));
	fd = perf_open(&attr, -1, LATE, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tb_inject(0, 2, 100));
	ASSERT_EQ(0, tb_inject(1, 2, 7));
	EXPECT_EQ(0, count_read(fd, &v));
	EXPECT_EQ(7ULL, v);
	close(fd);
	/* and one of CPU 0 die 0's */
	fd = perf_open(&attr, -1, 0, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tb_inject(0, 2, 5));
	ASSERT_EQ(0, tb_inject(1, 2, 9));
	EXPECT_EQ(0, count_read(fd, &v));
	EXPECT_EQ(5ULL, v);
	close(fd);

	EXPECT_EQ(0, sim_del(SIM_ID));
	EXPECT_EQ(0, mod_unload_wait("upmu_icx"));
	EXPECT_EQ(0, mod_unload_wait("upmu_testpmu"));
}

TEST_HARNESS_MAIN
