// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 CMEM latency PMU on the upmu simulator: sysfs layout, exact
 * request / outstanding-cycle / cycle counts, what is (not) counted,
 * the 32-event limit, groups with other PMUs, bad attrs, and removal.
 * Needs upmu_core, upmu_sim and upmu_t410 loaded, 2 NUMA nodes.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	8

#include "upmu_test.h"

#define CMEM0	"nvidia_cmem_latency_pmu_0"
#define CMEM1	"nvidia_cmem_latency_pmu_1"
#define UCF0	"nvidia_ucf_pmu_0"

FIXTURE(cmem) {
	int fd[3];	/* rd_req, rd_cum_outs, cycles as one group */
};

FIXTURE_SETUP(cmem)
{
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "clock=manual clock_mhz=1500 blocks=ucf,cmem"));
	ASSERT_TRUE(pmu_exists(CMEM0));
	ASSERT_TRUE(pmu_exists(CMEM1));
	/* The document's example: one group of all three events. */
	self->fd[0] = pmu_open(CMEM0, "rd_req", -1);
	ASSERT_LE(0, self->fd[0]);
	self->fd[1] = pmu_open(CMEM0, "rd_cum_outs", self->fd[0]);
	ASSERT_LE(0, self->fd[1]);
	self->fd[2] = pmu_open(CMEM0, "cycles", self->fd[0]);
	ASSERT_LE(0, self->fd[2]);
}

FIXTURE_TEARDOWN_PARENT(cmem)
{
	sim_del(SIM_ID);
}

TEST_F(cmem, sysfs_layout)
{
	static const char * const ev[][2] = {
		{ "cycles", "event=0x0" },
		{ "rd_req", "event=0x1" },
		{ "rd_cum_outs", "event=0x2" },
	};
	char buf[256], path[64];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "events/%s", ev[i][0]);
		ASSERT_EQ(0, pmu_read(CMEM0, path, buf, sizeof(buf)));
		EXPECT_STREQ(ev[i][1], buf);
	}
	ASSERT_EQ(0, pmu_read(CMEM0, "format/event", buf, sizeof(buf)));
	EXPECT_STREQ("config:0-1", buf);
	ASSERT_EQ(0, pmu_read(CMEM0, "identifier", buf, sizeof(buf)));
	EXPECT_STREQ("NVDA2021", buf);
	/* the CPUs of socket 0, like the UCF PMU of that socket */
	ASSERT_EQ(0, pmu_read(CMEM0, "associated_cpus", buf, sizeof(buf)));
	ASSERT_EQ(0, pmu_read(UCF0, "associated_cpus", path, sizeof(path)));
	EXPECT_STREQ(path, buf);
	ASSERT_EQ(0, pmu_read(CMEM1, "associated_cpus", path, sizeof(path)));
	EXPECT_STRNE(path, buf);
	EXPECT_EQ(pmu_cpu(UCF0), pmu_cpu(CMEM0));
}

/*
 * 1000 reads of 64 bytes at 200 ns are 2000 requests of 32 bytes, each
 * outstanding 200 ns = 300 cycles at 1.5 GHz.
 */
TEST_F(cmem, read_latency_exact)
{
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=1000 lat=200"));
	EXPECT_EQ(2000ULL, count_of(_metadata, self->fd[0]));
	EXPECT_EQ(2000ULL * 300, count_of(_metadata, self->fd[1]));
	/* 100-byte reads take four requests; 7 is not a multiple of 42 MCs */
	ASSERT_EQ(0, inject("socket=0 op=rd size=100 count=7 lat=10"));
	EXPECT_EQ(2000ULL + 28, count_of(_metadata, self->fd[0]));
	EXPECT_EQ(2000ULL * 300 + 28 * 15, count_of(_metadata, self->fd[1]));
}

/* Only SLC misses that read this socket's CPU memory reach it. */
TEST_F(cmem, counts_only_local_cmem_read_misses)
{
	static const char * const not_counted[] = {
		"socket=0 op=rd hit=1 lat=100",
		"socket=0 op=wr lat=100",
		"socket=0 op=atomic lat=100",
		"socket=0 op=rd dst=loc_gmem lat=100",
		"socket=0 op=rd dst=loc_other lat=100",
		"socket=0 op=rd dst=rem lat=100",
		"socket=1 op=rd lat=100",
	};
	char buf[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(not_counted); i++) {
		snprintf(buf, sizeof(buf), "%s count=5", not_counted[i]);
		ASSERT_EQ(0, inject(buf));
		EXPECT_EQ(0ULL, count_of(_metadata, self->fd[0])) TH_LOG("%s", buf);
		EXPECT_EQ(0ULL, count_of(_metadata, self->fd[1])) TH_LOG("%s", buf);
	}
	/* every source counts */
	ASSERT_EQ(0, inject("socket=0 op=rd src=rem count=1 lat=2"));
	ASSERT_EQ(0, inject("socket=0 op=rd src=loc_noncpu count=1 lat=2"));
	EXPECT_EQ(4ULL, count_of(_metadata, self->fd[0]));
	EXPECT_EQ(12ULL, count_of(_metadata, self->fd[1]));
}

TEST_F(cmem, cycles_exact_on_manual_clock)
{
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000000));
	EXPECT_EQ(1500000ULL, count_of(_metadata, self->fd[2]));
	/* Disabled, the PMU does not count; enabled again it goes on. */
	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000000));
	ASSERT_EQ(0, inject("socket=0 op=rd count=10 lat=100"));
	ASSERT_EQ(0, ioctl(self->fd[0], PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 2000));
	EXPECT_EQ(1503000ULL, count_of(_metadata, self->fd[2]));
	EXPECT_EQ(0ULL, count_of(_metadata, self->fd[0]));
}

/* Nothing is allocated per event, but at most 32 can be active. */
TEST_F(cmem, thirty_two_events)
{
	int fds[29], i, n = 3;

	for (i = 0; i < 29; i++) {
		fds[i] = pmu_open(CMEM0, "rd_req", self->fd[0]);
		ASSERT_LE(0, fds[i]) TH_LOG("event %d: %d", n + i, fds[i]);
	}
	EXPECT_EQ(-EINVAL, pmu_open(CMEM0, "rd_req", self->fd[0]));
	/* all 32 count */
	ASSERT_EQ(0, inject("socket=0 op=rd size=32 count=42 lat=1"));
	EXPECT_EQ(42ULL, count_of(_metadata, fds[28]));
	for (i = 0; i < 29; i++)
		close(fds[i]);
}

/* A group holds one hardware PMU (plus software events). */
TEST_F(cmem, groups_with_other_pmus)
{
	struct perf_event_attr sw = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(sw),
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};
	int ucf, sw_fd, fd;

	ucf = pmu_open(UCF0, "slc_access", -1);
	ASSERT_LE(0, ucf);
	EXPECT_EQ(-EINVAL, pmu_open(CMEM0, "rd_req", ucf));
	EXPECT_EQ(-EINVAL, pmu_open(UCF0, "slc_access", self->fd[0]));
	sw_fd = perf_open(&sw, -1, pmu_cpu(CMEM0), self->fd[0]);
	EXPECT_LE(0, sw_fd);
	close(sw_fd);
	/* a software leader takes one hardware PMU, not a second */
	sw_fd = perf_open(&sw, -1, pmu_cpu(CMEM0), -1);
	ASSERT_LE(0, sw_fd);
	fd = pmu_open(CMEM0, "rd_req", sw_fd);
	EXPECT_LE(0, fd);
	EXPECT_EQ(-EINVAL, pmu_open(UCF0, "slc_access", sw_fd));
	close(fd);
	close(sw_fd);
	close(ucf);
}

TEST_F(cmem, bad_attrs_errno)
{
	struct perf_event_attr attr;
	int cpu = pmu_cpu(CMEM0);

	ASSERT_EQ(0, pmu_attr(CMEM0, "event=0x3", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(CMEM0, "rd_req", &attr));
	attr.config |= 1ULL << 2;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(CMEM0, "rd_req", &attr));
	attr.config1 = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(CMEM0, "rd_req", &attr));
	attr.sample_period = 1000;
	EXPECT_EQ(-EOPNOTSUPP, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(CMEM0, "rd_req", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1, -1));
	/* a CPU of the other socket */
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(CMEM1), -1));
}

/*
 * The backend calls of an event's open, enable and close on a PMU where
 * nothing else counts: the 42 counters read at the start in one call,
 * the PMU's enable, and at the close its disable, then the last read of
 * the 42 in one call (a family's read takes no queued write).  Ten
 * events.
 */
TEST_F(cmem, register_calls_an_event)
{
	uint64_t calls;

	ASSERT_EQ(0, sim_calls_of_opens(SIM_ID, CMEM1, "rd_req", 10, &calls));
	EXPECT_EQ(40ULL, calls);
}

TEST_F(cmem, del_device_with_open_events)
{
	uint64_t v;

	ASSERT_EQ(0, inject("socket=0 op=rd size=32 count=3 lat=1"));
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, count_read(self->fd[0], &v));
	EXPECT_EQ(3ULL, v);
	if (kernel_revokes_events()) {
		EXPECT_FALSE(pmu_exists(CMEM0));
	} else {
		EXPECT_EQ(0, pmu_dead_check(CMEM0, "rd_req"));
		close(self->fd[2]);
		close(self->fd[1]);
		close(self->fd[0]);
		EXPECT_TRUE(pmu_gone_within(CMEM0, 5000));
	}
}

TEST_HARNESS_MAIN
