// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 UCF PMU on the upmu simulator: sysfs layout, exact counts,
 * filter semantics, errors, group limits, counter wrap, hotplug and
 * removal.  Needs upmu_core, upmu_sim and upmu_t410 loaded, 2 NUMA nodes.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	7

#include "upmu_test.h"

#define UCF0	"nvidia_ucf_pmu_0"
#define UCF1	"nvidia_ucf_pmu_1"

static const char * const srcs[] = { "loc_cpu", "loc_noncpu", "rem" };
static const char * const dsts[] = { "loc_cmem", "loc_gmem", "loc_other", "rem" };
/* format names for the filter bit of each src/dst above */
static const char * const src_fmt[] = { "src_loc_cpu", "src_loc_noncpu", "src_rem" };
static const char * const dst_fmt[] = { "dst_loc_cmem", "dst_loc_gmem", "dst_loc_other", "dst_rem" };

/* No PCIe root complexes: 10 PMUs to build and tear down, not 34. */
SIM_FIXTURE(ucf, "clock=manual rcs=0", UCF1);

TEST_F(ucf, sysfs_layout)
{
	static const struct { const char *file, *want; } files[] = {
		{ "format/event", "config:0-32" },
		{ "format/src_loc_noncpu", "config1:0" },
		{ "format/src_loc_cpu", "config1:1" },
		{ "format/src_rem", "config1:2" },
		{ "format/dst_loc_cmem", "config1:8" },
		{ "format/dst_loc_gmem", "config1:9" },
		{ "format/dst_loc_other", "config1:10" },
		{ "format/dst_rem", "config1:11" },
		{ "events/slc_access_rd", "event=0x111" },
		{ "events/slc_access_wr", "event=0x112" },
		{ "events/slc_bytes_rd", "event=0x113" },
		{ "events/slc_bytes_wr", "event=0x114" },
		{ "events/mem_access_rd", "event=0x121" },
		{ "events/mem_access_wr", "event=0x122" },
		{ "events/mem_bytes_rd", "event=0x123" },
		{ "events/mem_bytes_wr", "event=0x124" },
		{ "events/cycles", "event=0x100000000" },
		{ "events/slc_bytes_rd.unit", "MiB" },
		{ "events/slc_bytes_rd.scale", "9.5367431640625e-07" },
		{ "events/mem_bytes_wr.unit", "MiB" },
		{ "identifier", "2cf2036b" },
		{ "associated_cpus", "0-1" },
		{ "cpumask", "0" },
	};
	char buf[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		ASSERT_EQ(0, pmu_read(UCF0, files[i].file, buf, sizeof(buf)))
			TH_LOG("%s", files[i].file);
		EXPECT_STREQ(files[i].want, buf) TH_LOG("%s", files[i].file);
	}
	ASSERT_EQ(0, pmu_read(UCF1, "associated_cpus", buf, sizeof(buf)));
	EXPECT_STREQ("2-3", buf);
	ASSERT_EQ(0, pmu_read(UCF1, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("2", buf);
	/* byte events carry a unit; request counts do not */
	EXPECT_EQ(-ENOENT, pmu_read(UCF0, "events/slc_access_rd.unit", buf, sizeof(buf)));
}

/*
 * One traffic mix, and what each event must count for it under the
 * simulator's documented SLC model.
 */
static const char * const mix[] = {
	"socket=0 op=rd hit=1 size=64 count=10",
	"socket=0 op=rd hit=0 size=128 count=20",
	"socket=0 op=wr hit=0 size=256 count=30",
	"socket=0 op=wr hit=1 size=64 count=5",
	"socket=0 op=atomic size=8 count=7",
	"socket=0 op=dataless size=64 count=3",
	/* another socket's traffic must not be seen by socket 0 */
	"socket=1 op=rd hit=0 size=64 count=1000",
};

static const struct { const char *ev; uint64_t want; } mix_counts[] = {
	{ "slc_access", 10 + 20 + 30 + 5 + 7 + 3 },
	{ "slc_access_rd", 30 },
	{ "slc_access_wr", 35 },
	{ "slc_bytes_rd", 10 * 64 + 20 * 128 },
	{ "slc_bytes_wr", 30 * 256 + 5 * 64 },
	{ "slc_hit_rd", 10 },
	{ "slc_refill_rd", 20 },
	{ "slc_refill_wr", 30 },
	{ "slc_allocate", 50 },
	{ "slc_wb", 30 },
	{ "mem_access_rd", 20 },
	{ "mem_access_wr", 30 },
	{ "mem_bytes_rd", 20 * 128 },
	{ "mem_bytes_wr", 30 * 256 },
	{ "slc_access_atomic", 7 },
	{ "slc_access_dataless", 3 },
	{ "local_snoop", 0 },
	{ "ext_snp_access", 0 },
	{ "ext_snp_evict", 0 },
};

TEST_F(ucf, every_event_exact)
{
	unsigned int n = ARRAY_SIZE(mix_counts);
	unsigned int i, j, base;

	/* 8 counters per pass */
	for (base = 0; base < n; base += 8) {
		int fd[8];
		unsigned int k = n - base < 8 ? n - base : 8;

		for (i = 0; i < k; i++) {
			fd[i] = pmu_open(UCF0, mix_counts[base + i].ev, -1);
			ASSERT_LE(0, fd[i]) TH_LOG("%s: %d", mix_counts[base + i].ev, fd[i]);
		}
		for (j = 0; j < ARRAY_SIZE(mix); j++) {
			ASSERT_EQ(0, inject(mix[j]));
		}
		for (i = 0; i < k; i++) {
			EXPECT_EQ(mix_counts[base + i].want, count_of(_metadata, fd[i]))
				TH_LOG("%s", mix_counts[base + i].ev);
			close(fd[i]);
		}
	}
}

TEST_F(ucf, socket1_sees_only_its_traffic)
{
	int fd0 = pmu_open(UCF0, "slc_access", -1);
	int fd1 = pmu_open(UCF1, "slc_access", -1);

	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, inject("socket=0 count=11"));
	ASSERT_EQ(0, inject("socket=1 count=22"));
	EXPECT_EQ(11ULL, count_of(_metadata, fd0));
	EXPECT_EQ(22ULL, count_of(_metadata, fd1));
	close(fd0);
	close(fd1);
}

/*
 * Every one of the 128 source x destination filter combinations.  Traffic
 * from source s to destination d comes in 1 << (4s + d) transactions, so
 * each combination's count says exactly which pairs it matched.  An unset
 * group means all of that group.
 */
TEST_F_TIMEOUT(ucf, all_filter_combinations, 600)
{
	unsigned int combo, s, d;

	for (combo = 0; combo < 128; combo += 8) {
		int fd[8];
		unsigned int c;

		for (c = 0; c < 8; c++) {
			char spec[256] = "slc_access";
			unsigned int f = combo + c;

			for (s = 0; s < 3; s++)
				if (f & (1 << s))
					sprintf(spec + strlen(spec), ",%s=1", src_fmt[s]);
			for (d = 0; d < 4; d++)
				if (f & (1 << (3 + d)))
					sprintf(spec + strlen(spec), ",%s=1", dst_fmt[d]);
			fd[c] = pmu_open(UCF0, spec, -1);
			ASSERT_LE(0, fd[c]) TH_LOG("%s", spec);
		}
		for (s = 0; s < 3; s++)
			for (d = 0; d < 4; d++) {
				char t[128];

				snprintf(t, sizeof(t), "socket=0 src=%s dst=%s count=%u",
					 srcs[s], dsts[d], 1u << (4 * s + d));
				ASSERT_EQ(0, inject(t));
			}
		for (c = 0; c < 8; c++) {
			unsigned int f = combo + c;
			unsigned int sm = f & 7, dm = (f >> 3) & 15;
			uint64_t want = 0;

			for (s = 0; s < 3; s++)
				for (d = 0; d < 4; d++)
					if ((!sm || sm & (1 << s)) && (!dm || dm & (1 << d)))
						want += 1u << (4 * s + d);
			EXPECT_EQ(want, count_of(_metadata, fd[c])) TH_LOG("filter %#x", f);
			close(fd[c]);
		}
	}
}

TEST_F(ucf, cycles_exact_on_manual_clock)
{
	int cyc = pmu_open(UCF0, "cycles", -1);
	int bus = pmu_open(UCF0, "bus_cycles", -1);
	uint64_t mhz;

	ASSERT_LE(0, cyc);
	ASSERT_LE(0, bus);
	ASSERT_EQ(0, sim_get(SIM_ID, "clock_mhz", &mhz));
	ASSERT_EQ(1000ULL, mhz);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1234567));
	EXPECT_EQ(1234567ULL, count_of(_metadata, cyc));
	EXPECT_EQ(1234567ULL, count_of(_metadata, bus));
	close(cyc);
	close(bus);
}

/*
 * The core batches an event's register accesses (upmu-core.rst): its
 * open, enable and close cost the platform three calls in all: program
 * and read the counter; start it with the PMU's enable; the PMU's
 * disable with the counter's stop and last read.
 */
TEST_F(ucf, three_register_calls_an_event)
{
	uint64_t calls;

	ASSERT_EQ(0, sim_calls_of_opens(SIM_ID, UCF0, "slc_access_rd", 10, &calls));
	EXPECT_EQ(30ULL, calls);
}

TEST_F(ucf, bad_attrs_errno)
{
	struct perf_event_attr attr;
	int cpu = pmu_cpu(UCF0);
	int fd;

	/* unknown event id */
	ASSERT_EQ(0, pmu_attr(UCF0, "event=0x5", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* reserved bits in config, config1, config2 */
	ASSERT_EQ(0, pmu_attr(UCF0, "slc_access", &attr));
	attr.config |= 1ULL << 40;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(UCF0, "slc_access", &attr));
	attr.config1 = 1 << 3;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(UCF0, "slc_access", &attr));
	attr.config2 = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* filters do not apply to the cycle counter */
	ASSERT_EQ(0, pmu_attr(UCF0, "cycles,src_rem=1", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(UCF0, "bus_cycles,dst_rem=1", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* sampling */
	ASSERT_EQ(0, pmu_attr(UCF0, "slc_access", &attr));
	attr.sample_period = 1000;
	EXPECT_EQ(-EOPNOTSUPP, perf_open(&attr, -1, cpu, -1));
	/* per task */
	ASSERT_EQ(0, pmu_attr(UCF0, "slc_access", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1, -1));
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, cpu, -1));
	/* exclude bits */
	attr.exclude_kernel = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* a CPU of another socket */
	ASSERT_EQ(0, pmu_attr(UCF0, "slc_access", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(UCF1), -1));
	/* a CPU of this socket that is not the owner is fine */
	fd = perf_open(&attr, -1, cpu + 1, -1);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
}

TEST_F(ucf, group_limits)
{
	struct perf_event_attr sw = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(sw),
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};
	int leader, fds[10], i, fd;

	/* 8 general counters + the cycle counter fit in one group */
	leader = pmu_open(UCF0, "cycles", -1);
	ASSERT_LE(0, leader);
	for (i = 0; i < 8; i++) {
		fds[i] = pmu_open(UCF0, "slc_access_rd", leader);
		ASSERT_LE(0, fds[i]) TH_LOG("sibling %d: %d", i, fds[i]);
	}
	/* a ninth general event does not */
	EXPECT_EQ(-EINVAL, pmu_open(UCF0, "slc_access_wr", leader));
	/* nor a second cycles event */
	EXPECT_EQ(-EINVAL, pmu_open(UCF0, "cycles", leader));
	/* software siblings are allowed */
	fd = perf_open(&sw, -1, pmu_cpu(UCF0), leader);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	/* the full group counts, every counter of it */
	ASSERT_EQ(0, inject("socket=0 op=rd count=9"));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(9ULL, count_of(_metadata, fds[i])) TH_LOG("sibling %d", i);
	}
	for (i = 0; i < 8; i++)
		close(fds[i]);
	close(leader);
}

/*
 * PMCFGR.N + 1 counters, the cycle counter one of them (as upstream's
 * arm_cspmu reads it): a block that says N = 1 has one general counter,
 * N = 31 thirty-one.  Every counter the PMU advertises exists: each
 * event of a group that fills them counts.
 */
TEST_F(ucf, counters_as_pmcfgr_says)
{
	static const unsigned int nrs[] = { 1, 31 };
	int leader, fds[32], i, n;
	unsigned int k;
	char opts[64];
	uint64_t v;

	for (k = 0; k < ARRAY_SIZE(nrs); k++) {
		n = nrs[k];
		sim_del(SIM_ID);
		snprintf(opts, sizeof(opts), "clock=manual rcs=0 blocks=ucf counters=%d", n);
		ASSERT_EQ(0, sim_new(SIM_ID, 2, opts));
		leader = pmu_open(UCF0, "cycles", -1);
		ASSERT_LE(0, leader);
		for (i = 0; i < n; i++) {
			fds[i] = pmu_open(UCF0, "slc_access_rd", leader);
			ASSERT_LE(0, fds[i]) TH_LOG("N=%d: sibling %d: %d", n, i, fds[i]);
		}
		EXPECT_EQ(-EINVAL, pmu_open(UCF0, "slc_access_wr", leader)) TH_LOG("N=%d", n);
		ASSERT_EQ(0, inject("socket=0 op=rd count=5"));
		ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000"));
		for (i = 0; i < n; i++) {
			EXPECT_EQ(5ULL, count_of(_metadata, fds[i])) TH_LOG("N=%d: counter %d", n, i);
		}
		/* 1000 ns at the default 1 GHz fabric clock */
		EXPECT_EQ(0, count_read(leader, &v));
		EXPECT_EQ(1000ULL, v) TH_LOG("N=%d: cycles", n);
		for (i = 0; i < n; i++)
			close(fds[i]);
		close(leader);
	}
}

TEST_F(ucf, hotplug_migrates_and_keeps_count)
{
	int fd, owner, other;
	char buf[64];

	owner = pmu_cpu(UCF1);
	ASSERT_EQ(2, owner);
	fd = pmu_open(UCF1, "slc_access", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("socket=1 count=100"));

	ASSERT_EQ(0, cpu_set_online(owner, false));
	other = pmu_cpu(UCF1);
	EXPECT_EQ(3, other);
	ASSERT_EQ(0, inject("socket=1 count=50"));
	EXPECT_EQ(150ULL, count_of(_metadata, fd));

	/* with the whole socket offline nobody owns the PMU */
	ASSERT_EQ(0, cpu_set_online(3, false));
	ASSERT_EQ(0, pmu_read(UCF1, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	ASSERT_EQ(0, cpu_set_online(3, true));
	EXPECT_EQ(3, pmu_cpu(UCF1));
	ASSERT_EQ(0, cpu_set_online(owner, true));
	/* an owner is never taken away from an online CPU */
	EXPECT_EQ(3, pmu_cpu(UCF1));
	close(fd);

	/* a new event after all that counts exactly */
	fd = pmu_open(UCF1, "slc_access", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("socket=1 count=25"));
	EXPECT_EQ(25ULL, count_of(_metadata, fd));
	close(fd);
}

TEST_F(ucf, del_device_with_open_events)
{
	struct pollfd pfd = { .events = POLLIN };
	uint64_t v;
	int fd;

	fd = pmu_open(UCF0, "slc_access", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("socket=0 count=5"));
	EXPECT_EQ(5ULL, count_of(_metadata, fd));
	/* counted but not yet read when the device goes: not lost */
	ASSERT_EQ(0, inject("socket=0 count=2"));
	ASSERT_EQ(0, sim_del(SIM_ID));
	if (kernel_revokes_events()) {
		EXPECT_FALSE(pmu_exists(UCF0));
		/*
		 * The event is revoked: it keeps its last count, poll
		 * reports an error and it can no longer be enabled.
		 */
		ASSERT_EQ(0, count_read(fd, &v));
		EXPECT_EQ(7ULL, v);
		pfd.fd = fd;
		EXPECT_EQ(1, poll(&pfd, 1, 0));
		EXPECT_TRUE(pfd.revents & POLLERR);
		EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
		EXPECT_EQ(ENODEV, errno);
		close(fd);
	} else {
		/*
		 * The PMU stays registered but dead while the event is
		 * open: the event keeps its last count, new events are
		 * refused, and it goes once the event is closed.
		 */
		EXPECT_TRUE(pmu_exists(UCF0));
		EXPECT_EQ(0, pmu_dead_check(UCF0, "slc_access"));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
		ASSERT_EQ(0, count_read(fd, &v));
		EXPECT_EQ(7ULL, v);
		close(fd);
		EXPECT_TRUE(pmu_gone_within(UCF0, 5000));
		EXPECT_TRUE(pmu_gone_within(UCF1, 5000));
	}
	/* and a fresh device works again */
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "clock=manual"));
	fd = pmu_open(UCF0, "slc_access", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("socket=0 count=3"));
	EXPECT_EQ(3ULL, count_of(_metadata, fd));
	close(fd);
}

/*
 * 32-bit counters are 32-bit registers at a 4-byte stride: the byte
 * counter is counter 1 (at 0x4) and the cycle counter at 0x7c, so a
 * driver that reads them anywhere else reads zeros.
 */
TEST(wrap_32bit_counters_lose_nothing)
{
	uint64_t txns, bytes, got, reqs, cycles, sim_cycles;
	int fd, req, cyc, i;

	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "width=32"));
	req = pmu_open(UCF0, "slc_access_rd", -1);	/* counter 0 */
	ASSERT_LE(0, req);
	fd = pmu_open(UCF0, "slc_bytes_rd", -1);	/* counter 1 */
	ASSERT_LE(0, fd);
	cyc = pmu_open(UCF0, "cycles", -1);		/* the cycle counter */
	ASSERT_LE(0, cyc);
	/* 3.2 GB/s: a 32-bit byte counter wraps every 1.34 s */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=1 socket=0 op=rd size=64 rate=50000000"));
	for (i = 0; i < 8; i++)
		sleep(1);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "stop id=1"));
	ASSERT_EQ(0, sim_flow_totals(SIM_ID, 1, &txns, &bytes));
	ASSERT_EQ(0, count_read(fd, &got));
	ASSERT_EQ(0, count_read(req, &reqs));
	ASSERT_EQ(0, count_read(cyc, &cycles));
	ASSERT_EQ(0, sim_get(SIM_ID, "cycles", &sim_cycles));
	TH_LOG("flow delivered %llu bytes (%llu wraps), perf counted %llu",
	       (unsigned long long)bytes, (unsigned long long)(bytes >> 32),
	       (unsigned long long)got);
	EXPECT_EQ(bytes, got);
	EXPECT_EQ(txns, reqs);
	EXPECT_LE(4ULL << 32, bytes);
	/* 1 GHz for about 8 s: the cycle counter wrapped too */
	EXPECT_LT(1ULL << 32, cycles);
	EXPECT_GE(sim_cycles, cycles);
	close(cyc);
	close(fd);
	close(req);
	sim_del(SIM_ID);
}

TEST(flow_rate_limit)
{
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 1, NULL));
	/* 4096 B x 200M/s = 819 GB/s is beyond the fabric's 512 GB/s */
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "flows", "add id=1 size=4096 rate=200000000"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 size=4096 rate=100000000"));
	EXPECT_EQ(-EEXIST, sim_ctl(SIM_ID, "flows", "add id=1 size=64 rate=1"));
	EXPECT_EQ(-ENOENT, sim_ctl(SIM_ID, "flows", "del id=2"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "clear"));
	sim_del(SIM_ID);
}

TEST(sim_rejects_bad_input)
{
	sim_del(SIM_ID);
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 0, NULL));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 9, NULL));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "width=8"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "width=31"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "width=65"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "bogus=1"));
	ASSERT_EQ(0, sim_new(SIM_ID, 1, NULL));
	EXPECT_EQ(-EEXIST, sim_new(SIM_ID, 1, NULL));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "inject", "socket=1"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "inject", "op=jump"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "inject", "count"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "inject", "count=1099511627777"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "inject", "size=4097"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "advance", "1000"));	/* realtime */
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "clock", "sideways"));
	EXPECT_EQ(0, sim_del(SIM_ID));
	EXPECT_EQ(-ENOENT, sim_del(SIM_ID));
}

TEST_HARNESS_MAIN
