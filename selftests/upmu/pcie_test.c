// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 PCIE PMU on the upmu simulator: sysfs layout and PCI mapping,
 * exact counts of every event, root-port / BDF / destination filters,
 * the one-BDF-per-root-complex rule, a group member taking its leader's
 * BDF filter, errno for bad attrs, and removal.
 * Needs upmu_core, upmu_sim and upmu_t410 loaded, 2 NUMA nodes.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	12

#include "upmu_test.h"

#define RC0	"nvidia_pcie_pmu_0_rc_0"
#define RC1	"nvidia_pcie_pmu_0_rc_1"
#define RC4	"nvidia_pcie_pmu_0_rc_4"
#define S1RC1	"nvidia_pcie_pmu_1_rc_1"

SIM_FIXTURE(pcie, "clock=manual blocks=pcie,tgt", S1RC1);

TEST_F(pcie, sysfs_layout)
{
	static const char * const fmt[][2] = {
		{ "event", "config:0-32" },
		{ "src_rp_mask", "config1:0-7" },
		{ "src_bdf", "config1:8-23" },
		{ "src_bdf_en", "config1:24" },
		{ "dst_loc_cmem", "config2:0" },
		{ "dst_loc_gmem", "config2:1" },
		{ "dst_loc_pcie_p2p", "config2:2" },
		{ "dst_loc_pcie_cxl", "config2:3" },
		{ "dst_rem", "config2:4" },
	};
	static const char * const ev[][2] = {
		{ "rd_bytes", "event=0x0" }, { "wr_bytes", "event=0x1" },
		{ "rd_req", "event=0x2" }, { "wr_req", "event=0x3" },
		{ "rd_cum_outs", "event=0x4" }, { "cycles", "event=0x100000000" },
		{ "rd_bytes.unit", "MiB" },
	};
	char buf[128], name[64];
	unsigned int i, s, rc;

	for (s = 0; s < 2; s++)
		for (rc = 0; rc < 6; rc++) {
			snprintf(name, sizeof(name), "nvidia_pcie_pmu_%u_rc_%u", s, rc);
			EXPECT_TRUE(pmu_exists(name)) TH_LOG("%s", name);
		}
	EXPECT_FALSE(pmu_exists("nvidia_pcie_pmu_0_rc_6"));
	for (i = 0; i < ARRAY_SIZE(fmt); i++) {
		snprintf(name, sizeof(name), "format/%s", fmt[i][0]);
		ASSERT_EQ(0, pmu_read(RC1, name, buf, sizeof(buf)));
		EXPECT_STREQ(fmt[i][1], buf);
	}
	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		snprintf(name, sizeof(name), "events/%s", ev[i][0]);
		ASSERT_EQ(0, pmu_read(RC1, name, buf, sizeof(buf)));
		EXPECT_STREQ(ev[i][1], buf);
	}
	ASSERT_EQ(0, pmu_read(RC1, "identifier", buf, sizeof(buf)));
	EXPECT_STREQ("1030136b", buf);
	/* where each root complex sits in PCI (the document's mapping) */
	ASSERT_EQ(0, pmu_read(RC1, "pci_segment", buf, sizeof(buf)));
	EXPECT_STREQ("0002", buf);
	ASSERT_EQ(0, pmu_read(RC1, "root_ports", buf, sizeof(buf)));
	EXPECT_STREQ("1:80-9f 2:a0-bf 3:c0-df 4:e0-ff", buf);
	ASSERT_EQ(0, pmu_read(RC4, "root_ports", buf, sizeof(buf)));
	EXPECT_STREQ("0:00-3f 1:40-bf 2:c0-ff", buf);
	ASSERT_EQ(0, pmu_read(S1RC1, "pci_segment", buf, sizeof(buf)));
	EXPECT_STREQ("000a", buf);
}

TEST_F(pcie, every_event_exact)
{
	static const char * const names[] = {
		"rd_bytes", "wr_bytes", "rd_req", "wr_req", "rd_cum_outs", "cycles",
	};
	/* 10 reads of 256 B at 100 ns (100 cycles at 1 GHz), 3 writes of 64 B */
	static const uint64_t want[] = { 2560, 192, 10, 3, 1000, 5000 };
	int fd[6];
	unsigned int i;

	for (i = 0; i < 6; i++) {
		fd[i] = pmu_open(RC1, names[i], -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s", names[i]);
	}
	ASSERT_EQ(0, inject("rc=1 rp=2 op=rd size=256 count=10 lat=100"));
	ASSERT_EQ(0, inject("rc=1 rp=2 op=wr size=64 count=3 lat=100"));
	/* not this PMU's: other RC, other socket, not PCIe */
	ASSERT_EQ(0, inject("rc=2 op=rd count=5 lat=7"));
	ASSERT_EQ(0, inject("socket=1 rc=1 op=rd count=5 lat=7"));
	ASSERT_EQ(0, inject("src=loc_noncpu op=rd count=5 lat=7"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 5000));
	for (i = 0; i < 6; i++) {
		EXPECT_EQ(want[i], count_of(_metadata, fd[i])) TH_LOG("%s", names[i]);
		close(fd[i]);
	}
}

/* RC1's ports are 1-4: traffic 1 << (port - 1) from each names them. */
TEST_F(pcie, root_port_filter)
{
	unsigned int mask, rp;
	char spec[64];
	int fd;

	for (mask = 0; mask < 0x20; mask++) {
		uint64_t want = 0;

		snprintf(spec, sizeof(spec), "rd_req,src_rp_mask=%#x", mask);
		fd = pmu_open(RC1, spec, -1);
		ASSERT_LE(0, fd) TH_LOG("%s", spec);
		for (rp = 1; rp <= 4; rp++) {
			ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "rc=1 rp=%u count=%u",
					     rp, 1U << (rp - 1)));
			if (!mask || mask & (1U << rp))
				want += 1U << (rp - 1);
		}
		EXPECT_EQ(want, count_of(_metadata, fd)) TH_LOG("%s", spec);
		close(fd);
	}
}

TEST_F(pcie, destination_filter)
{
	static const char * const dst[] = {
		"loc_cmem", "loc_gmem", "loc_p2p", "loc_cxl", "rem",
	};
	static const char * const fmt[] = {
		"dst_loc_cmem", "dst_loc_gmem", "dst_loc_pcie_p2p",
		"dst_loc_pcie_cxl", "dst_rem",
	};
	unsigned int combo, d;
	char spec[160];
	int fd;

	for (combo = 0; combo < 32; combo++) {
		uint64_t want = 0;
		int n = snprintf(spec, sizeof(spec), "rd_req");

		for (d = 0; d < 5; d++)
			if (combo & (1U << d))
				n += snprintf(spec + n, sizeof(spec) - n, ",%s=1", fmt[d]);
		fd = pmu_open(RC0, spec, -1);
		ASSERT_LE(0, fd) TH_LOG("%s", spec);
		for (d = 0; d < 5; d++) {
			ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "rc=0 dst=%s count=%u",
					     dst[d], 1U << d));
			if (!combo || combo & (1U << d))
				want += 1U << d;
		}
		EXPECT_EQ(want, count_of(_metadata, fd)) TH_LOG("%s", spec);
		close(fd);
	}
}

/* The document's BDF example: 0x0180 is below RC4's root port 0. */
TEST_F(pcie, bdf_filter)
{
	int bdf = pmu_open(RC4, "rd_req,src_bdf=0x0180,src_bdf_en=1", -1);
	int rp0 = pmu_open(RC4, "rd_req,src_rp_mask=0x1", -1);

	ASSERT_LE(0, bdf);
	ASSERT_LE(0, rp0);
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 count=3"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x0100 count=5"));	/* same port */
	ASSERT_EQ(0, inject("rc=4 bdf=0x4180 count=7"));	/* port 1 */
	EXPECT_EQ(3ULL, count_of(_metadata, bdf));
	EXPECT_EQ(8ULL, count_of(_metadata, rp0));
	close(bdf);
	close(rp0);
	/* a BDF that no root port of the RC has is not PCIe traffic here */
	EXPECT_EQ(-EINVAL, inject("rc=1 bdf=0x1000"));
	EXPECT_EQ(-EINVAL, inject("rc=1 rp=0"));
	EXPECT_EQ(-EINVAL, inject("rc=6"));
	EXPECT_EQ(-EINVAL, inject("rp=1"));
	EXPECT_EQ(-EINVAL, inject("rc=1 src=loc_cpu"));
}

/* The count of an event read with its times; ~0 after a failed read. */
static uint64_t times_count(struct __test_metadata *_metadata, int fd)
{
	uint64_t v[3] = { ~0ULL };

	EXPECT_EQ(0, read_times(fd, v));
	return v[0];
}

/*
 * Rounds of traffic until both of two multiplexed events have counted:
 * perf rotates them every few ms, a round takes longer than that, so
 * one that never counts in MUX_ROUNDS rounds is never scheduled.
 */
#define MUX_ROUNDS	50

TEST_F_TIMEOUT(pcie, one_bdf_per_root_complex, 120)
{
	uint64_t va[3], vb[3], before[3], after[3];
	struct perf_event_attr attr;
	bool ran_a = false, ran_b = false;
	int a, b, c, lead, round;

	a = pmu_open(RC4, "rd_req,src_bdf=0x0180,src_bdf_en=1", -1);
	ASSERT_LE(0, a);
	/*
	 * The comparator holds 0x0180: another BDF opens all the same (an
	 * open does not depend on what others run; it is multiplexed, see
	 * below), and so does the same one.
	 */
	b = pmu_open(RC4, "rd_req,src_bdf=0x4180,src_bdf_en=1", -1);
	EXPECT_LE(0, b);
	close(b);
	c = pmu_open(RC4, "wr_req,src_bdf=0x0180,src_bdf_en=1", -1);
	EXPECT_LE(0, c);
	/* root-port events do not use the comparator */
	b = pmu_open(RC4, "rd_req,src_rp_mask=0x2", -1);
	EXPECT_LE(0, b);
	/* another root complex has its own */
	lead = pmu_open(RC1, "rd_req,src_bdf=0x8100,src_bdf_en=1", -1);
	EXPECT_LE(0, lead);
	close(lead);
	close(b);
	close(c);
	close(a);

	/* within one group too */
	lead = pmu_open(RC4, "rd_req,src_bdf=0x0180,src_bdf_en=1", -1);
	ASSERT_LE(0, lead);
	EXPECT_EQ(-EINVAL, pmu_open(RC4, "wr_req,src_bdf=0x0100,src_bdf_en=1", lead));
	b = pmu_open(RC4, "wr_req,src_bdf=0x0180,src_bdf_en=1", lead);
	EXPECT_LE(0, b);
	close(b);
	close(lead);

	/*
	 * Session A counts BDF 0x0180; session B opens and enables 0x4180
	 * on the same root complex meanwhile.  Both open, but they are
	 * never on the hardware together: perf time-shares them.  Round
	 * after round, traffic of each BDF goes in: only the event of that
	 * BDF may count it, each time all of it or none (it was not on the
	 * hardware), and both events must get their turn.
	 */
	ASSERT_EQ(0, pmu_attr(RC4, "rd_req,src_bdf=0x0180,src_bdf_en=1", &attr));
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a = perf_open(&attr, -1, pmu_cpu(RC4), -1);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 count=5"));
	ASSERT_EQ(0, read_times(a, va));
	EXPECT_EQ(5ULL, va[0]);
	ASSERT_EQ(0, pmu_attr(RC4, "rd_req,src_bdf=0x4180,src_bdf_en=1", &attr));
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	b = perf_open(&attr, -1, pmu_cpu(RC4), -1);
	ASSERT_LE(0, b) TH_LOG("a second session's BDF: %d", b);
	for (round = 0; round < MUX_ROUNDS && !(ran_a && ran_b); round++) {
		uint64_t a0 = times_count(_metadata, a), b0 = times_count(_metadata, b);
		uint64_t a1, b1, a2, b2;

		ASSERT_EQ(0, inject("rc=4 bdf=0x4180 count=7"));
		a1 = times_count(_metadata, a);
		b1 = times_count(_metadata, b);
		ASSERT_EQ(0, inject("rc=4 bdf=0x0180 count=3"));
		a2 = times_count(_metadata, a);
		b2 = times_count(_metadata, b);
		ASSERT_EQ(a0, a1);
		ASSERT_TRUE(b1 == b0 || b1 == b0 + 7) TH_LOG("b %llu -> %llu",
			(unsigned long long)b0, (unsigned long long)b1);
		ASSERT_EQ(b1, b2);
		ASSERT_TRUE(a2 == a1 || a2 == a1 + 3) TH_LOG("a %llu -> %llu",
			(unsigned long long)a1, (unsigned long long)a2);
		ran_a |= a2 != a1;
		ran_b |= b1 != b0;
		usleep(2000);
	}
	EXPECT_TRUE(ran_a);
	EXPECT_TRUE(ran_b);
	/* multiplexed: one of them was not running all the time */
	ASSERT_EQ(0, read_times(a, va));
	ASSERT_EQ(0, read_times(b, vb));
	EXPECT_TRUE(va[2] < va[1] || vb[2] < vb[1]);
	/* with the first one off, the second gets the comparator */
	ASSERT_EQ(0, ioctl(a, PERF_EVENT_IOC_DISABLE, 0));
	usleep(200000);
	ASSERT_EQ(0, read_times(b, before));
	ASSERT_EQ(0, inject("rc=4 bdf=0x4180 count=11"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 count=13"));
	ASSERT_EQ(0, read_times(b, after));
	EXPECT_EQ(11ULL, after[0] - before[0]);
	close(b);
	close(a);
}

/*
 * As upstream: a group member without a source filter counts with its
 * leader's BDF filter, and uses the comparator with it; one with its
 * own filter, or in a group whose leader filters on root ports, or
 * alone, does not.
 */
TEST_F(pcie, sibling_takes_leaders_bdf)
{
	int lead, sib, rp, alone, other;

	lead = pmu_open(RC4, "rd_req,src_bdf=0x0180,src_bdf_en=1", -1);
	ASSERT_LE(0, lead);
	sib = pmu_open(RC4, "wr_req", lead);
	ASSERT_LE(0, sib);
	rp = pmu_open(RC4, "wr_req,src_rp_mask=0x2", lead);
	ASSERT_LE(0, rp);
	alone = pmu_open(RC4, "wr_req", -1);
	ASSERT_LE(0, alone);
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 op=wr count=3"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x0100 op=wr count=5"));	/* same port */
	ASSERT_EQ(0, inject("rc=4 bdf=0x4180 op=wr count=7"));	/* port 1 */
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 op=rd count=2"));
	EXPECT_EQ(2ULL, count_of(_metadata, lead));
	EXPECT_EQ(3ULL, count_of(_metadata, sib));
	EXPECT_EQ(7ULL, count_of(_metadata, rp));
	EXPECT_EQ(15ULL, count_of(_metadata, alone));

	/*
	 * A closed leader leaves its siblings on the hardware, each with
	 * the filter it was scheduled with: the BDF and its comparator.
	 */
	close(lead);
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 op=wr count=11"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x0100 op=wr count=13"));
	EXPECT_EQ(14ULL, count_of(_metadata, sib));
	/* and gives it back when it goes: another BDF counts all of its own */
	close(sib);
	other = pmu_open(RC4, "rd_req,src_bdf=0x4180,src_bdf_en=1", -1);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, inject("rc=4 bdf=0x4180 op=rd count=5"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 op=rd count=3"));
	EXPECT_EQ(5ULL, count_of(_metadata, other));
	close(other);
	close(rp);

	/* a root-port leader passes nothing on */
	lead = pmu_open(RC4, "rd_req,src_rp_mask=0x1", -1);
	ASSERT_LE(0, lead);
	sib = pmu_open(RC4, "wr_req", lead);
	ASSERT_LE(0, sib);
	ASSERT_EQ(0, inject("rc=4 bdf=0x4180 op=wr count=7"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 op=wr count=1"));
	EXPECT_EQ(8ULL, count_of(_metadata, sib));
	close(sib);
	close(lead);
	close(alone);
}

TEST_F(pcie, bad_attrs_errno)
{
	struct perf_event_attr attr;
	int cpu = pmu_cpu(RC1);

	/* root-port and BDF filters are mutually exclusive */
	ASSERT_EQ(0, pmu_attr(RC1, "rd_req,src_rp_mask=0x2,src_bdf=0x8100,src_bdf_en=1", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* a BDF without its enable bit would silently count nothing */
	ASSERT_EQ(0, pmu_attr(RC1, "rd_req,src_bdf=0x8100", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* cycles take no filter */
	ASSERT_EQ(0, pmu_attr(RC1, "cycles,dst_rem=1", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* unknown event, reserved bits */
	ASSERT_EQ(0, pmu_attr(RC1, "event=0x5", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(RC1, "rd_req", &attr));
	attr.config1 = 1ULL << 25;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(RC1, "rd_req", &attr));
	attr.config2 = 1ULL << 5;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* BDF 0 is a valid requester */
	ASSERT_EQ(0, pmu_attr(RC1, "rd_req,src_bdf=0,src_bdf_en=1", &attr));
	cpu = perf_open(&attr, -1, cpu, -1);
	EXPECT_LE(0, cpu);
	close(cpu);
}

TEST_F(pcie, del_device_with_open_events)
{
	uint64_t v;
	int fd = pmu_open(RC1, "rd_bytes", -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("rc=1 size=128 count=3"));
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, count_read(fd, &v));
	EXPECT_EQ(384ULL, v);
	close(fd);
	EXPECT_TRUE(pmu_gone_within(RC1, 5000));
}

/* A SoC built with fewer root complexes (new_device rcs=) */
TEST(fewer_root_complexes)
{
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "rcs=2"));
	EXPECT_TRUE(pmu_exists("nvidia_pcie_pmu_0_rc_1"));
	EXPECT_TRUE(pmu_exists("nvidia_pcie_tgt_pmu_0_rc_1"));
	EXPECT_FALSE(pmu_exists("nvidia_pcie_pmu_0_rc_2"));
	EXPECT_EQ(0, inject("rc=1"));
	EXPECT_EQ(-EINVAL, inject("rc=2"));
	EXPECT_EQ(-EINVAL, inject("to_rc=2"));
	EXPECT_EQ(0, sim_del(SIM_ID));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "rcs=7"));
}

TEST_HARNESS_MAIN
