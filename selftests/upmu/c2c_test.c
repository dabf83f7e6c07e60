// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 NVLink-C2C, NV-CLink and NV-DLink PMUs on the upmu simulator:
 * sysfs layout and peer, the event set of a GPU and of a SoC peer, exact
 * counts of every event, gpu_mask, what each link does not count,
 * latency on a 1.5 GHz manual clock, 64-bit counters read in two halves
 * that carry in between, the 32-event limit, groups, errno for bad attrs
 * and removal with open events.
 * Needs upmu_core, upmu_sim and upmu_t410 loaded, 2 NUMA nodes.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	13

#include "upmu_test.h"

#define C2C0	"nvidia_nvlink_c2c_pmu_0"
#define C2C1	"nvidia_nvlink_c2c_pmu_1"
#define CLINK0	"nvidia_nvclink_pmu_0"
#define CLINK1	"nvidia_nvclink_pmu_1"
#define DLINK0	"nvidia_nvdlink_pmu_0"
#define DLINK1	"nvidia_nvdlink_pmu_1"
#define UCF0	"nvidia_ucf_pmu_0"
#define CMEM0	"nvidia_cmem_latency_pmu_0"

/*
 * Every test builds a 2-socket SoC of 18 PMUs (some two): on the debug
 * kernel under TCG on a busy host that alone can take most of the
 * harness's default 30 s.  Two root complexes per socket are enough
 * for the PCIe traffic the links must not count.
 */
#define C2C_TIMEOUT	120

/* 1.5 GHz: a latency of L ns is 1.5 * L cycles. */
#define SIM_OPTS	"clock=manual clock_mhz=1500 rcs=2 blocks=ucf,cmem,c2c,clink,dlink"

/* The eight request events of a GPU peer, in event number order. */
static const char * const gpu_events[] = {
	"in_rd_cum_outs", "in_rd_req", "in_wr_cum_outs", "in_wr_req",
	"out_rd_cum_outs", "out_rd_req", "out_wr_cum_outs", "out_wr_req",
};

SIM_FIXTURE(c2c, SIM_OPTS, C2C0);

/* The test's device again, with other options. */
static int recreate(const char *opts)
{
	char buf[128];

	sim_del(SIM_ID);
	snprintf(buf, sizeof(buf), "%s %s", SIM_OPTS, opts);
	return sim_new(SIM_ID, 2, buf);
}

/* Open "<name><suffix>" for every name; fds[i] or a failed assertion. */
static void open_all(struct __test_metadata *_metadata, const char *pmu,
		     const char * const *names, unsigned int n,
		     const char *suffix, int *fds)
{
	char spec[96];
	unsigned int i;

	for (i = 0; i < n; i++) {
		snprintf(spec, sizeof(spec), "%s%s", names[i], suffix);
		fds[i] = pmu_open(pmu, spec, -1);
		ASSERT_LE(0, fds[i]) TH_LOG("%s/%s/: %d", pmu, spec, fds[i]);
	}
}

static void close_all(int *fds, unsigned int n)
{
	while (n--)
		close(fds[n]);
}

/* The events/ directory holds exactly @names, numbered @ids. */
static void expect_events(struct __test_metadata *_metadata, const char *pmu,
			  const char * const *names, const unsigned int *ids,
			  unsigned int n)
{
	char path[PATH_MAX], buf[64], want[32];
	unsigned int i, found = 0;
	struct dirent *d;
	DIR *dir;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "events/%s", names[i]);
		snprintf(want, sizeof(want), "event=0x%x", ids[i]);
		ASSERT_EQ(0, pmu_read(pmu, path, buf, sizeof(buf))) TH_LOG("%s %s", pmu, path);
		EXPECT_STREQ(want, buf) TH_LOG("%s %s", pmu, path);
	}
	snprintf(path, sizeof(path), PMU_DEVICES "/%s/events", pmu);
	dir = opendir(path);
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir)))
		found += d->d_name[0] != '.';
	closedir(dir);
	EXPECT_EQ(n, found) TH_LOG("%s", pmu);
}

TEST_F_TIMEOUT(c2c, sysfs_layout, C2C_TIMEOUT)
{
	static const char * const gpu[] = {
		"cycles", "in_rd_cum_outs", "in_rd_req", "in_wr_cum_outs",
		"in_wr_req", "out_rd_cum_outs", "out_rd_req", "out_wr_cum_outs",
		"out_wr_req",
	};
	static const unsigned int gpu_ids[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const char * const rd[] = {
		"cycles", "in_rd_cum_outs", "in_rd_req", "out_rd_cum_outs", "out_rd_req",
	};
	static const unsigned int rd_ids[] = { 0, 1, 2, 5, 6 };
	static const char * const files[][3] = {
		{ C2C0, "identifier", "NVDA2023" },
		{ C2C0, "peer", "nr_gpu=2" },
		{ C2C0, "format/event", "config:0-3" },
		{ C2C0, "format/gpu_mask", "config1:0-1" },
		{ CLINK0, "identifier", "NVDA2022" },
		{ CLINK0, "peer", "nr_cpu=1" },
		{ CLINK0, "format/event", "config:0-3" },
		{ DLINK0, "identifier", "NVDA2020" },
		{ DLINK0, "peer", "nr_cxlmem=1" },
		{ DLINK0, "format/event", "config:0-3" },
		{ C2C1, "peer", "nr_gpu=2" },
	};
	static const char * const pmus[] = { C2C0, C2C1, CLINK0, CLINK1, DLINK0, DLINK1 };
	char buf[256], ucf[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pmus); i++) {
		EXPECT_TRUE(pmu_exists(pmus[i])) TH_LOG("%s", pmus[i]);
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		ASSERT_EQ(0, pmu_read(files[i][0], files[i][1], buf, sizeof(buf)))
			TH_LOG("%s/%s", files[i][0], files[i][1]);
		EXPECT_STREQ(files[i][2], buf) TH_LOG("%s/%s", files[i][0], files[i][1]);
	}
	expect_events(_metadata, C2C0, gpu, gpu_ids, ARRAY_SIZE(gpu));
	expect_events(_metadata, CLINK0, rd, rd_ids, ARRAY_SIZE(rd));
	expect_events(_metadata, DLINK0, rd, rd_ids, 3);
	/* no GPU, no gpu_mask */
	EXPECT_EQ(-ENOENT, pmu_read(CLINK0, "format/gpu_mask", buf, sizeof(buf)));
	EXPECT_EQ(-ENOENT, pmu_read(DLINK0, "format/gpu_mask", buf, sizeof(buf)));
	/* the CPUs of the socket, like its UCF PMU */
	ASSERT_EQ(0, pmu_read(UCF0, "associated_cpus", ucf, sizeof(ucf)));
	for (i = 0; i < ARRAY_SIZE(pmus); i += 2) {
		ASSERT_EQ(0, pmu_read(pmus[i], "associated_cpus", buf, sizeof(buf)));
		EXPECT_STREQ(ucf, buf) TH_LOG("%s", pmus[i]);
		EXPECT_EQ(pmu_cpu(UCF0), pmu_cpu(pmus[i])) TH_LOG("%s", pmus[i]);
		ASSERT_EQ(0, pmu_read(pmus[i + 1], "associated_cpus", buf, sizeof(buf)));
		EXPECT_STRNE(ucf, buf) TH_LOG("%s", pmus[i + 1]);
	}
}

/*
 * Every event of a GPU peer, all GPUs: reads and writes of GPU memory go
 * out, reads and writes by a GPU come in.  One request per transaction;
 * a latency of L ns adds 1.5 * L cycles per request.
 */
TEST_F_TIMEOUT(c2c, every_gpu_event_exact, C2C_TIMEOUT)
{
	static const uint64_t want[] = {
		7 * 30, 7,		/* in_rd: GPU 0 reads CMEM at 20 ns */
		3 * 600, 3,		/* in_wr: GPU 1 writes remote memory at 400 ns */
		10 * 150 + 6 * 300, 16,	/* out_rd: GPU 0 at 100 ns, GPU 1 at 200 ns */
		4 * 60, 4,		/* out_wr: GPU 1 at 40 ns */
	};
	int fd[8], cyc;
	unsigned int i;

	open_all(_metadata, C2C0, gpu_events, 8, "", fd);
	cyc = pmu_open(C2C0, "cycles", -1);
	ASSERT_LE(0, cyc);
	ASSERT_EQ(0, inject("op=rd dst=loc_gmem gpu=0 count=10 lat=100"));
	ASSERT_EQ(0, inject("op=rd dst=loc_gmem gpu=1 count=6 lat=200"));
	ASSERT_EQ(0, inject("op=wr dst=loc_gmem gpu=1 count=4 lat=40"));
	ASSERT_EQ(0, inject("op=rd src=loc_noncpu gpu=0 count=7 lat=20"));
	ASSERT_EQ(0, inject("op=wr src=loc_noncpu dst=rem gpu=1 count=3 lat=400"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 2000));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(want[i], count_of(_metadata, fd[i])) TH_LOG("%s", gpu_events[i]);
	}
	EXPECT_EQ(3000ULL, count_of(_metadata, cyc));
	close(cyc);
	close_all(fd, 8);
}

/*
 * gpu_mask: bit n selects GPU n, unset means both.  GPU g does 1 << g
 * transactions of each kind at 2 ns (3 cycles).
 */
TEST_F_TIMEOUT(c2c, gpu_mask, C2C_TIMEOUT)
{
	static const char * const suffix[] = {
		"", ",gpu_mask=0x1", ",gpu_mask=0x2", ",gpu_mask=0x3",
	};
	static const char * const kinds[] = {
		"op=rd src=loc_noncpu", "op=wr src=loc_noncpu",
		"op=rd dst=loc_gmem", "op=wr dst=loc_gmem",
	};
	unsigned int m, g, k, i;
	int fd[8], cyc;

	for (m = 0; m < ARRAY_SIZE(suffix); m++) {
		uint64_t want = m ? m : 3;
		char spec[64];

		open_all(_metadata, C2C0, gpu_events, 8, suffix[m], fd);
		snprintf(spec, sizeof(spec), "cycles%s", suffix[m]);
		cyc = pmu_open(C2C0, spec, -1);
		ASSERT_LE(0, cyc) TH_LOG("%s", spec);
		for (g = 0; g < 2; g++)
			for (k = 0; k < ARRAY_SIZE(kinds); k++) {
				ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "%s gpu=%u count=%u lat=2",
						     kinds[k], g, 1U << g));
			}
		ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000));
		for (i = 0; i < 8; i++) {
			EXPECT_EQ(i % 2 ? want : 3 * want, count_of(_metadata, fd[i]))
				TH_LOG("%s%s", gpu_events[i], suffix[m]);
		}
		/* the link's clock, whatever the GPUs */
		EXPECT_EQ(1500ULL, count_of(_metadata, cyc)) TH_LOG("%s", spec);
		close(cyc);
		close_all(fd, 8);
	}
}

/* One GPU: gpu_mask bit 1 names a GPU that is not there. */
TEST_F_TIMEOUT(c2c, one_gpu, C2C_TIMEOUT)
{
	char buf[64];
	int fd, all;

	ASSERT_EQ(0, recreate("c2c=gpu1"));
	ASSERT_EQ(0, pmu_read(C2C0, "peer", buf, sizeof(buf)));
	EXPECT_STREQ("nr_gpu=1", buf);
	EXPECT_EQ(-EINVAL, pmu_open(C2C0, "in_rd_req,gpu_mask=0x2", -1));
	EXPECT_EQ(-EINVAL, pmu_open(C2C0, "in_rd_req,gpu_mask=0x3", -1));
	EXPECT_EQ(-EINVAL, inject("op=rd dst=loc_gmem gpu=1"));
	fd = pmu_open(C2C0, "out_rd_req,gpu_mask=0x1", -1);
	ASSERT_LE(0, fd);
	all = pmu_open(C2C0, "out_rd_req", -1);
	ASSERT_LE(0, all);
	ASSERT_EQ(0, inject("op=rd dst=loc_gmem count=29"));
	EXPECT_EQ(29ULL, count_of(_metadata, fd));
	EXPECT_EQ(29ULL, count_of(_metadata, all));
	close(all);
	close(fd);
}

/*
 * c2c=soc: NVLink-C2C links the sockets, reads only, no gpu_mask, and
 * NV-CLink carries nothing.
 */
TEST_F_TIMEOUT(c2c, soc_peer, C2C_TIMEOUT)
{
	static const char * const rd[] = {
		"cycles", "in_rd_cum_outs", "in_rd_req", "out_rd_cum_outs", "out_rd_req",
	};
	static const unsigned int rd_ids[] = { 0, 1, 2, 5, 6 };
	struct perf_event_attr attr;
	int fd[4], cl[2], cyc;
	char buf[64];
	unsigned int i;

	ASSERT_EQ(0, recreate("c2c=soc"));
	ASSERT_EQ(0, pmu_read(C2C0, "peer", buf, sizeof(buf)));
	EXPECT_STREQ("nr_cpu=1", buf);
	ASSERT_EQ(0, pmu_read(C2C0, "identifier", buf, sizeof(buf)));
	EXPECT_STREQ("NVDA2023", buf);
	expect_events(_metadata, C2C0, rd, rd_ids, ARRAY_SIZE(rd));
	EXPECT_EQ(-ENOENT, pmu_read(C2C0, "format/gpu_mask", buf, sizeof(buf)));
	/* write events and GPU filters do not exist with a SoC peer */
	ASSERT_EQ(0, pmu_attr(C2C0, "event=0x3", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(C2C0), -1));
	ASSERT_EQ(0, pmu_attr(C2C0, "event=0x8", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(C2C0), -1));
	ASSERT_EQ(0, pmu_attr(C2C0, "in_rd_req", &attr));
	attr.config1 = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(C2C0), -1));
	EXPECT_EQ(-EINVAL, inject("op=rd dst=loc_gmem gpu=0"));

	open_all(_metadata, C2C0, rd + 1, 4, "", fd);
	cl[0] = pmu_open(CLINK0, "in_rd_req", -1);
	cl[1] = pmu_open(CLINK0, "out_rd_req", -1);
	ASSERT_LE(0, cl[0]);
	ASSERT_LE(0, cl[1]);
	cyc = pmu_open(C2C0, "cycles", -1);
	ASSERT_LE(0, cyc);
	ASSERT_EQ(0, inject("op=rd src=rem count=9 lat=100"));
	ASSERT_EQ(0, inject("op=rd dst=rem count=5 lat=10"));
	/* not counted: writes, SLC hits going out, GPU memory, other socket */
	ASSERT_EQ(0, inject("op=wr dst=rem count=3 lat=10"));
	ASSERT_EQ(0, inject("op=wr src=rem count=3 lat=10"));
	ASSERT_EQ(0, inject("op=rd dst=rem hit=1 count=3 lat=10"));
	ASSERT_EQ(0, inject("op=rd dst=loc_gmem count=3 lat=10"));
	ASSERT_EQ(0, inject("op=rd src=loc_noncpu count=3 lat=10"));
	ASSERT_EQ(0, inject("socket=1 op=rd dst=rem count=3 lat=10"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 10));
	EXPECT_EQ(9ULL * 150, count_of(_metadata, fd[0]));
	EXPECT_EQ(9ULL, count_of(_metadata, fd[1]));
	EXPECT_EQ(5ULL * 15, count_of(_metadata, fd[2]));
	EXPECT_EQ(5ULL, count_of(_metadata, fd[3]));
	EXPECT_EQ(15ULL, count_of(_metadata, cyc));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0ULL, count_of(_metadata, cl[i]));
	}
	close(cyc);
	close_all(cl, 2);
	close_all(fd, 4);
}

/* With GPUs on NVLink-C2C, NV-CLink carries the reads between sockets. */
TEST_F_TIMEOUT(c2c, clink_reads_between_sockets, C2C_TIMEOUT)
{
	static const char * const rd[] = {
		"in_rd_cum_outs", "in_rd_req", "out_rd_cum_outs", "out_rd_req",
	};
	/* 3 + 2 incoming, at 300 ns and 0 ns; 5 outgoing at 100 ns */
	static const uint64_t want[] = { 3 * 450, 5, 5 * 150, 5 };
	int fd[4], other, c2c[2];
	unsigned int i;

	open_all(_metadata, CLINK0, rd, 4, "", fd);
	other = pmu_open(CLINK1, "out_rd_req", -1);
	ASSERT_LE(0, other);
	c2c[0] = pmu_open(C2C0, "in_rd_req", -1);
	c2c[1] = pmu_open(C2C0, "out_rd_req", -1);
	ASSERT_LE(0, c2c[0]);
	ASSERT_LE(0, c2c[1]);
	ASSERT_EQ(0, inject("op=rd dst=rem count=5 lat=100"));
	ASSERT_EQ(0, inject("op=rd src=rem count=3 lat=300"));
	/* an incoming read crosses the link whether or not the SLC has it */
	ASSERT_EQ(0, inject("op=rd src=rem hit=1 count=2 lat=0"));
	/* not counted here */
	ASSERT_EQ(0, inject("op=wr dst=rem count=4 lat=100"));
	ASSERT_EQ(0, inject("op=wr src=rem count=4 lat=100"));
	ASSERT_EQ(0, inject("op=atomic dst=rem count=4 lat=100"));
	ASSERT_EQ(0, inject("op=rd dst=rem hit=1 count=4 lat=100"));
	ASSERT_EQ(0, inject("op=rd dst=loc_cmem count=4 lat=100"));
	ASSERT_EQ(0, inject("socket=1 op=rd dst=rem count=7 lat=100"));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(want[i], count_of(_metadata, fd[i]))
			TH_LOG("%s", rd[i]);
	}
	EXPECT_EQ(7ULL, count_of(_metadata, other));
	EXPECT_EQ(0ULL, count_of(_metadata, c2c[0]));
	EXPECT_EQ(0ULL, count_of(_metadata, c2c[1]));
	close_all(c2c, 2);
	close(other);
	close_all(fd, 4);
}

/* NV-DLink: reads of CXL memory that miss the SLC, from any source. */
TEST_F_TIMEOUT(c2c, dlink_cxl_reads, C2C_TIMEOUT)
{
	static const char * const not_counted[] = {
		"op=wr dst=loc_cxl", "op=atomic dst=loc_cxl", "op=rd dst=loc_cxl hit=1",
		"op=rd dst=loc_cmem", "op=rd dst=loc_p2p", "op=rd dst=loc_gmem",
		"op=rd dst=rem", "socket=1 op=rd dst=loc_cxl",
	};
	int fd[3], other;
	unsigned int i;

	fd[0] = pmu_open(DLINK0, "in_rd_req", -1);
	ASSERT_LE(0, fd[0]);
	fd[1] = pmu_open(DLINK0, "in_rd_cum_outs", fd[0]);
	ASSERT_LE(0, fd[1]);
	fd[2] = pmu_open(DLINK0, "cycles", fd[0]);
	ASSERT_LE(0, fd[2]);
	other = pmu_open(DLINK1, "in_rd_req", -1);
	ASSERT_LE(0, other);
	for (i = 0; i < ARRAY_SIZE(not_counted); i++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "%s count=3 lat=100", not_counted[i]));
		EXPECT_EQ(0ULL, count_of(_metadata, fd[0])) TH_LOG("%s", not_counted[i]);
	}
	EXPECT_EQ(3ULL, count_of(_metadata, other));
	ASSERT_EQ(0, inject("op=rd dst=loc_cxl count=20 lat=100"));
	ASSERT_EQ(0, inject("op=rd dst=loc_other src=rem count=1 lat=100"));
	ASSERT_EQ(0, inject("op=rd dst=loc_cxl rc=1 count=2 lat=100"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 4000));
	EXPECT_EQ(23ULL, count_of(_metadata, fd[0]));
	EXPECT_EQ(23ULL * 150, count_of(_metadata, fd[1]));
	EXPECT_EQ(6000ULL, count_of(_metadata, fd[2]));
	close(other);
	close_all(fd, 3);
}

/*
 * The backend calls of an event's open, enable and close: its counter
 * read at the start (a 64-bit counter in halves, high, low, high, in one
 * call; a data event's on each of the link's 12 or 16 instances, in one
 * call too), the link's enable, its disable with the last read (the
 * disable goes first, alone, as a family's read takes no queued write).
 * Ten events each.
 */
TEST_F_TIMEOUT(c2c, register_calls_an_event, C2C_TIMEOUT)
{
	static const struct { const char *pmu, *ev; uint64_t calls; } evs[] = {
		{ CLINK0, "cycles", 4 },
		{ CLINK0, "in_rd_req", 4 },
		{ DLINK0, "in_rd_req", 4 },
	};
	uint64_t calls;
	unsigned int e;

	for (e = 0; e < ARRAY_SIZE(evs); e++) {
		ASSERT_EQ(0, sim_calls_of_opens(SIM_ID, evs[e].pmu, evs[e].ev,
						10, &calls));
		EXPECT_EQ(10 * evs[e].calls, calls) TH_LOG("%s", evs[e].ev);
	}
}

#define C2C_CARRY	"/sys/module/upmu_sim/parameters/c2c_carry"

/*
 * upmu_sim's c2c_carry makes a counter carry into its high half after
 * each of the next N reads of that half (2^32 + 1 counts each): the
 * driver reads the two halves until the high one is stable, so what it
 * reads is never torn, and every carry is counted.
 */
TEST_F_TIMEOUT(c2c, counter_read_never_torn, C2C_TIMEOUT)
{
	const uint64_t carry = (1ULL << 32) + 1;
	uint64_t left;
	int fd;

	fd = pmu_open(DLINK0, "in_rd_req", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("op=rd dst=loc_cxl count=5"));
	ASSERT_EQ(0, write_str(C2C_CARRY, "8"));
	EXPECT_EQ(5 + 8 * carry, count_of(_metadata, fd));
	ASSERT_EQ(0, read_u64(C2C_CARRY, &left));
	EXPECT_EQ(0ULL, left);
	ASSERT_EQ(0, inject("op=rd dst=loc_cxl count=2"));
	EXPECT_EQ(7 + 8 * carry, count_of(_metadata, fd));
	write_str(C2C_CARRY, "0");
	close(fd);
}

/* What NVLink-C2C with GPUs does not count, and PCIe reads of GPU memory. */
TEST_F_TIMEOUT(c2c, c2c_counts_only_gpu_traffic, C2C_TIMEOUT)
{
	static const char * const not_counted[] = {
		"op=rd", "op=wr", "op=rd dst=loc_cxl", "op=rd dst=rem", "op=rd src=rem",
		"rc=0 op=rd", "rc=1 op=wr dst=rem", "op=atomic dst=loc_gmem",
		"op=dataless src=loc_noncpu", "op=rd dst=loc_gmem hit=1",
		"op=wr dst=loc_gmem hit=1", "socket=1 op=rd dst=loc_gmem",
		"socket=1 op=rd src=loc_noncpu",
	};
	int fd[8];
	unsigned int i, e;

	open_all(_metadata, C2C0, gpu_events, 8, "", fd);
	for (i = 0; i < ARRAY_SIZE(not_counted); i++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "%s count=3 lat=100", not_counted[i]));
		for (e = 0; e < 8; e++) {
			EXPECT_EQ(0ULL, count_of(_metadata, fd[e]))
				TH_LOG("%s: %s", not_counted[i], gpu_events[e]);
		}
	}
	/* a PCIe device reading GPU 1's memory, and GPU traffic that hits */
	ASSERT_EQ(0, inject("rc=0 op=rd dst=loc_gmem gpu=1 count=4 lat=100"));
	ASSERT_EQ(0, inject("op=rd src=loc_noncpu hit=1 count=6 lat=100"));
	ASSERT_EQ(0, inject("op=rd src=rem dst=loc_gmem gpu=1 count=2 lat=100"));
	EXPECT_EQ(6ULL, count_of(_metadata, fd[1]));
	EXPECT_EQ(6ULL, count_of(_metadata, fd[5]));
	close_all(fd, 8);
}

/*
 * rd_cum_outs / rd_req is the latency in cycles, whatever the number of
 * instances the requests spread over; cycles / elapsed ns is 1.5.
 */
TEST_F_TIMEOUT(c2c, latency_exact_on_manual_clock, C2C_TIMEOUT)
{
	static const char * const pmus[] = { C2C0, CLINK0, DLINK0 };
	static const char * const traffic[] = {
		"op=rd src=loc_noncpu gpu=1 count=%u lat=%u",
		"op=rd src=rem count=%u lat=%u",
		"op=rd dst=loc_cxl count=%u lat=%u",
	};
	uint64_t req, cum, txns, bytes;
	unsigned int p, n;
	int out[2];

	for (p = 0; p < ARRAY_SIZE(pmus); p++) {
		int fd[3];

		fd[0] = pmu_open(pmus[p], "in_rd_req", -1);
		ASSERT_LE(0, fd[0]);
		fd[1] = pmu_open(pmus[p], "in_rd_cum_outs", fd[0]);
		ASSERT_LE(0, fd[1]);
		fd[2] = pmu_open(pmus[p], "cycles", fd[0]);
		ASSERT_LE(0, fd[2]);
		/* batches that do not divide evenly over the instances */
		for (n = 1; n <= 19; n += 3) {
			ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", traffic[p], n, 220));
		}
		ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000000));
		req = count_of(_metadata, fd[0]);
		cum = count_of(_metadata, fd[1]);
		EXPECT_EQ(70ULL, req) TH_LOG("%s", pmus[p]);
		EXPECT_EQ(70ULL * 330, cum) TH_LOG("%s", pmus[p]);
		EXPECT_EQ(330ULL, cum / req) TH_LOG("%s", pmus[p]);
		EXPECT_EQ(0ULL, cum % req) TH_LOG("%s", pmus[p]);
		EXPECT_EQ(1500000ULL, count_of(_metadata, fd[2])) TH_LOG("%s", pmus[p]);
		close_all(fd, 3);
	}

	/* a flow of GPU 1 reads: 1000 per ms, each outstanding 150 cycles */
	out[0] = pmu_open(C2C0, "out_rd_req,gpu_mask=0x2", -1);
	ASSERT_LE(0, out[0]);
	out[1] = pmu_open(C2C0, "out_rd_cum_outs,gpu_mask=0x2", out[0]);
	ASSERT_LE(0, out[1]);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=1 op=rd dst=loc_gmem gpu=1 lat=100 rate=1000000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000000));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "stop id=1"));
	ASSERT_EQ(0, sim_flow_totals(SIM_ID, 1, &txns, &bytes));
	EXPECT_EQ(1000ULL, txns);
	EXPECT_EQ(txns, count_of(_metadata, out[0]));
	EXPECT_EQ(txns * 150, count_of(_metadata, out[1]));
	close_all(out, 2);
}

/* Disabled, the counters stand still and keep their value. */
TEST_F_TIMEOUT(c2c, disabled_does_not_count, C2C_TIMEOUT)
{
	int fd[2];

	fd[0] = pmu_open(C2C0, "cycles", -1);
	ASSERT_LE(0, fd[0]);
	fd[1] = pmu_open(C2C0, "in_rd_req", fd[0]);
	ASSERT_LE(0, fd[1]);
	ASSERT_EQ(0, inject("src=loc_noncpu count=5"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000));
	ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, inject("src=loc_noncpu count=100"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000000));
	EXPECT_EQ(1500ULL, count_of(_metadata, fd[0]));
	EXPECT_EQ(5ULL, count_of(_metadata, fd[1]));
	ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, inject("src=loc_noncpu count=7"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 2000));
	EXPECT_EQ(4500ULL, count_of(_metadata, fd[0]));
	EXPECT_EQ(12ULL, count_of(_metadata, fd[1]));
	close_all(fd, 2);
}

/* Nothing is allocated per event, but at most 32 can be active. */
TEST_F_TIMEOUT(c2c, thirty_two_events, C2C_TIMEOUT)
{
	int fds[32], i;

	fds[0] = pmu_open(C2C0, "in_rd_req", -1);
	ASSERT_LE(0, fds[0]);
	for (i = 1; i < 32; i++) {
		fds[i] = pmu_open(C2C0, i % 2 ? "in_rd_req,gpu_mask=0x2" : "in_rd_req",
				  fds[0]);
		ASSERT_LE(0, fds[i]) TH_LOG("event %d: %d", i, fds[i]);
	}
	EXPECT_EQ(-EINVAL, pmu_open(C2C0, "in_rd_req", fds[0]));
	ASSERT_EQ(0, inject("src=loc_noncpu gpu=0 count=3"));
	ASSERT_EQ(0, inject("src=loc_noncpu gpu=1 count=4"));
	EXPECT_EQ(7ULL, count_of(_metadata, fds[30]));
	EXPECT_EQ(4ULL, count_of(_metadata, fds[31]));
	close_all(fds, 32);
}

/* A group holds one hardware PMU (plus software events). */
TEST_F_TIMEOUT(c2c, groups_with_other_pmus, C2C_TIMEOUT)
{
	struct perf_event_attr sw = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(sw),
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};
	int lead, fd;

	lead = pmu_open(C2C0, "in_rd_req", -1);
	ASSERT_LE(0, lead);
	EXPECT_EQ(-EINVAL, pmu_open(CLINK0, "in_rd_req", lead));
	EXPECT_EQ(-EINVAL, pmu_open(DLINK0, "in_rd_req", lead));
	EXPECT_EQ(-EINVAL, pmu_open(CMEM0, "rd_req", lead));
	fd = perf_open(&sw, -1, pmu_cpu(C2C0), lead);
	EXPECT_LE(0, fd);
	close(fd);
	close(lead);
	lead = pmu_open(DLINK0, "in_rd_req", -1);
	ASSERT_LE(0, lead);
	EXPECT_EQ(-EINVAL, pmu_open(C2C0, "cycles", lead));
	close(lead);
}

TEST_F_TIMEOUT(c2c, bad_attrs_errno, C2C_TIMEOUT)
{
	static const struct { const char *pmu, *spec; } unknown[] = {
		{ C2C0, "event=0x9" }, { C2C0, "event=0xf" },
		{ CLINK0, "event=0x3" }, { CLINK0, "event=0x4" }, { CLINK0, "event=0x8" },
		{ DLINK0, "event=0x5" }, { DLINK0, "event=0x6" },
	};
	struct perf_event_attr attr;
	int cpu = pmu_cpu(C2C0);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(unknown); i++) {
		ASSERT_EQ(0, pmu_attr(unknown[i].pmu, unknown[i].spec, &attr));
		EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1))
			TH_LOG("%s/%s/", unknown[i].pmu, unknown[i].spec);
	}
	/* bits outside the formats */
	ASSERT_EQ(0, pmu_attr(C2C0, "in_rd_req", &attr));
	attr.config |= 1ULL << 4;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(C2C0, "in_rd_req", &attr));
	attr.config1 = 1ULL << 2;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(C2C0, "in_rd_req", &attr));
	attr.config2 = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* no gpu_mask without GPUs */
	EXPECT_EQ(-ENOENT, pmu_attr(CLINK0, "in_rd_req,gpu_mask=0x1", &attr));
	ASSERT_EQ(0, pmu_attr(CLINK0, "in_rd_req", &attr));
	attr.config1 = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(DLINK0, "in_rd_req", &attr));
	attr.config1 = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* perf itself refuses a gpu_mask wider than the field */
	EXPECT_EQ(-ERANGE, pmu_attr(C2C0, "in_rd_req,gpu_mask=0x4", &attr));
	/* sampling, per task, a CPU of the other socket */
	ASSERT_EQ(0, pmu_attr(C2C0, "in_rd_req", &attr));
	attr.sample_period = 1000;
	EXPECT_EQ(-EOPNOTSUPP, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(C2C0, "in_rd_req", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1, -1));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(C2C1), -1));
}

/* gpu= names a GPU that takes part in the transaction. */
TEST_F_TIMEOUT(c2c, inject_gpu_key, C2C_TIMEOUT)
{
	EXPECT_EQ(-EINVAL, inject("dst=loc_gmem gpu=2"));
	EXPECT_EQ(-EINVAL, inject("gpu=0"));			/* CPU to CPU memory */
	EXPECT_EQ(-EINVAL, inject("src=rem gpu=1"));
	EXPECT_EQ(-EINVAL, inject("rc=0 gpu=1"));		/* a PCIe initiator */
	EXPECT_EQ(0, inject("rc=0 dst=loc_gmem gpu=1"));
	EXPECT_EQ(0, inject("src=loc_noncpu dst=loc_cxl gpu=1"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 1, "c2c=gpu3"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 1, "c2c="));
}

/* The other PMUs see a GPU's transactions as before. */
TEST_F_TIMEOUT(c2c, other_pmus_unchanged, C2C_TIMEOUT)
{
	int ucf, cmem, in;

	ucf = pmu_open(UCF0, "slc_access_rd,src_loc_noncpu=1", -1);
	ASSERT_LE(0, ucf);
	cmem = pmu_open(CMEM0, "rd_req", -1);
	ASSERT_LE(0, cmem);
	in = pmu_open(C2C0, "in_rd_req,gpu_mask=0x2", -1);
	ASSERT_LE(0, in);
	ASSERT_EQ(0, inject("src=loc_noncpu gpu=1 op=rd size=64 count=4 lat=10"));
	EXPECT_EQ(4ULL, count_of(_metadata, ucf));
	EXPECT_EQ(8ULL, count_of(_metadata, cmem));
	EXPECT_EQ(4ULL, count_of(_metadata, in));
	close(in);
	close(cmem);
	close(ucf);
}

TEST_F_TIMEOUT(c2c, del_device_with_open_events, C2C_TIMEOUT)
{
	uint64_t v;
	int fd[3];

	fd[0] = pmu_open(C2C0, "in_rd_req", -1);
	fd[1] = pmu_open(CLINK0, "out_rd_req", -1);
	fd[2] = pmu_open(DLINK0, "in_rd_req", -1);
	ASSERT_LE(0, fd[0]);
	ASSERT_LE(0, fd[1]);
	ASSERT_LE(0, fd[2]);
	ASSERT_EQ(0, inject("src=loc_noncpu count=3"));
	ASSERT_EQ(0, inject("dst=rem count=4"));
	ASSERT_EQ(0, inject("dst=loc_cxl count=5"));
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, count_read(fd[0], &v));
	EXPECT_EQ(3ULL, v);
	ASSERT_EQ(0, count_read(fd[1], &v));
	EXPECT_EQ(4ULL, v);
	ASSERT_EQ(0, count_read(fd[2], &v));
	EXPECT_EQ(5ULL, v);
	if (kernel_revokes_events()) {
		EXPECT_FALSE(pmu_exists(C2C0));
		EXPECT_FALSE(pmu_exists(CLINK0));
		EXPECT_FALSE(pmu_exists(DLINK0));
	} else {
		EXPECT_EQ(0, pmu_dead_check(C2C0, "in_rd_req"));
		EXPECT_EQ(0, pmu_dead_check(DLINK0, "in_rd_req"));
		close_all(fd, 3);
		EXPECT_TRUE(pmu_gone_within(C2C0, 5000));
		EXPECT_TRUE(pmu_gone_within(CLINK0, 5000));
		EXPECT_TRUE(pmu_gone_within(DLINK0, 5000));
	}
}

TEST_HARNESS_MAIN
