// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 PCIE-TGT PMU on the upmu simulator: sysfs layout, exact
 * counts of every event, the root-port filter (BAR traffic only), the
 * address filter with the document's comparison, the shared,
 * reference-counted address slots (ENOSPC for a group that needs more
 * than there are; perf multiplexes ranges of other users), errno for
 * bad attrs.  Needs upmu_core, upmu_sim and upmu_t410 loaded, 2 nodes.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	14

#include "upmu_test.h"

#define TGT0	"nvidia_pcie_tgt_pmu_0_rc_0"
#define TGT1	"nvidia_pcie_tgt_pmu_0_rc_1"

/* more counters than slots, so that slots are what runs out */
SIM_FIXTURE(tgt, "clock=manual counters=16 blocks=tgt", TGT1);

/* Range i: 0x10000 * (i + 1) .. + 0xff */
static int open_range(unsigned int i, const char *ev, int group)
{
	char spec[128];

	snprintf(spec, sizeof(spec),
		 "%s,dst_addr_base=%#x,dst_addr_mask=0xfffff00,dst_addr_en=1",
		 ev, 0x10000 * (i + 1));
	return pmu_open(TGT1, spec, group);
}

TEST_F(tgt, sysfs_layout)
{
	static const char * const fmt[][2] = {
		{ "event", "config:0-2" },
		{ "dst_rp_mask", "config:3-10" },
		{ "dst_addr_en", "config:11" },
		{ "dst_addr_base", "config1:0-63" },
		{ "dst_addr_mask", "config2:0-63" },
	};
	static const char * const ev[][2] = {
		{ "rd_bytes", "event=0x0" }, { "wr_bytes", "event=0x1" },
		{ "rd_req", "event=0x2" }, { "wr_req", "event=0x3" },
		{ "cycles", "event=0x4" },
	};
	char buf[128], name[64];
	unsigned int i, s, rc;

	for (s = 0; s < 2; s++)
		for (rc = 0; rc < 6; rc++) {
			snprintf(name, sizeof(name), "nvidia_pcie_tgt_pmu_%u_rc_%u", s, rc);
			EXPECT_TRUE(pmu_exists(name)) TH_LOG("%s", name);
		}
	for (i = 0; i < ARRAY_SIZE(fmt); i++) {
		snprintf(name, sizeof(name), "format/%s", fmt[i][0]);
		ASSERT_EQ(0, pmu_read(TGT1, name, buf, sizeof(buf)));
		EXPECT_STREQ(fmt[i][1], buf);
	}
	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		snprintf(name, sizeof(name), "events/%s", ev[i][0]);
		ASSERT_EQ(0, pmu_read(TGT1, name, buf, sizeof(buf)));
		EXPECT_STREQ(ev[i][1], buf);
	}
	ASSERT_EQ(0, pmu_read(TGT1, "identifier", buf, sizeof(buf)));
	EXPECT_STREQ("1070136b", buf);
	ASSERT_EQ(0, pmu_read(TGT1, "pci_segment", buf, sizeof(buf)));
	EXPECT_STREQ("0002", buf);
}

TEST_F(tgt, every_event_exact)
{
	static const char * const names[] = {
		"rd_bytes", "wr_bytes", "rd_req", "wr_req", "cycles",
	};
	static const uint64_t want[] = { 2560, 192, 10, 3, 5000 };
	unsigned int i;
	int fd[5];

	for (i = 0; i < 5; i++) {
		fd[i] = pmu_open(TGT1, names[i], -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s", names[i]);
	}
	ASSERT_EQ(0, inject("to_rc=1 to_rp=2 op=rd size=256 count=10"));
	ASSERT_EQ(0, inject("to_rc=1 to_rp=3 op=wr size=64 count=3"));
	/* not this PMU's: other RC, other socket, PCIe-initiated only */
	ASSERT_EQ(0, inject("to_rc=2 op=rd count=5"));
	ASSERT_EQ(0, inject("socket=1 to_rc=1 op=rd count=5"));
	ASSERT_EQ(0, inject("rc=1 op=rd count=5"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 5000));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(want[i], count_of(_metadata, fd[i])) TH_LOG("%s", names[i]);
		close(fd[i]);
	}
}

/* RC1's ports are 1-4; CXL HDM traffic has no root port. */
TEST_F(tgt, root_port_filter)
{
	unsigned int mask, rp;
	char spec[64];
	int fd;

	for (mask = 0; mask < 0x20; mask++) {
		uint64_t want = 0;

		snprintf(spec, sizeof(spec), "rd_req,dst_rp_mask=%#x", mask);
		fd = pmu_open(TGT1, spec, -1);
		ASSERT_LE(0, fd) TH_LOG("%s", spec);
		for (rp = 1; rp <= 4; rp++) {
			ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "to_rc=1 to_rp=%u count=%u",
					     rp, 1U << (rp - 1)));
			if (!mask || mask & (1U << rp))
				want += 1U << (rp - 1);
		}
		ASSERT_EQ(0, inject("to_rc=1 hdm=1 count=100"));
		EXPECT_EQ(want, count_of(_metadata, fd)) TH_LOG("%s", spec);
		close(fd);
	}
}

/* The document's example: 0x10000 to 0x100ff, BAR or HDM alike. */
TEST_F(tgt, address_filter)
{
	int fd = pmu_open(TGT1, "wr_bytes,dst_addr_base=0x10000,dst_addr_mask=0xFFF00,dst_addr_en=1", -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("to_rc=1 op=wr size=64 count=3 addr=0x10000"));
	ASSERT_EQ(0, inject("to_rc=1 to_rp=4 op=wr size=64 count=2 addr=0x100ff"));
	ASSERT_EQ(0, inject("to_rc=1 hdm=1 op=wr size=64 count=5 addr=0x10080"));
	/* (addr & mask) != (base & mask) */
	ASSERT_EQ(0, inject("to_rc=1 op=wr size=64 count=7 addr=0x10100"));
	ASSERT_EQ(0, inject("to_rc=1 op=wr size=64 count=7 addr=0xff00"));
	/* bits outside the mask do not matter */
	ASSERT_EQ(0, inject("to_rc=1 op=wr size=64 count=1 addr=0x1000010040"));
	EXPECT_EQ(64ULL * 11, count_of(_metadata, fd));
	close(fd);
}

TEST_F(tgt, slots_shared_and_limited)
{
	int fd[8], same, alias, ninth, i;

	for (i = 0; i < 8; i++) {
		fd[i] = open_range(i, "rd_req", -1);
		ASSERT_LE(0, fd[i]) TH_LOG("range %d: %d", i, fd[i]);
	}
	/* the same range shares its slot, also when written differently */
	same = open_range(3, "wr_req", -1);
	EXPECT_LE(0, same);
	alias = pmu_open(TGT1, "rd_bytes,dst_addr_base=0x400ff,dst_addr_mask=0xfffff00,dst_addr_en=1", -1);
	EXPECT_LE(0, alias);
	/* root-port events need no slot */
	i = pmu_open(TGT1, "rd_req,dst_rp_mask=0x2", -1);
	EXPECT_LE(0, i);
	close(i);
	/* every range counts exactly its own traffic */
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "to_rc=1 addr=%#x count=%d",
				     0x10000 * (i + 1) + 0x10, i + 1));
	}
	ASSERT_EQ(0, inject("to_rc=1 addr=0x90000 count=50"));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ((uint64_t)i + 1, count_of(_metadata, fd[i])) TH_LOG("range %d", i);
	}
	EXPECT_EQ(4ULL * 64, count_of(_metadata, alias));
	/*
	 * A ninth range opens while every slot is taken: an open does not
	 * depend on what other users hold (perf multiplexes it, see
	 * slots_multiplexed; the counts above are done).
	 */
	ninth = open_range(8, "rd_req", -1);
	EXPECT_LE(0, ninth);
	close(ninth);
	/* a slot frees when its last user goes: then a ninth range counts */
	close(fd[3]);
	close(same);
	close(alias);
	ninth = open_range(8, "rd_req", -1);
	ASSERT_LE(0, ninth);
	ASSERT_EQ(0, inject("to_rc=1 addr=0x90010 count=9"));
	EXPECT_EQ(9ULL, count_of(_metadata, ninth));
	close(ninth);
	for (i = 0; i < 8; i++)
		if (i != 3)
			close(fd[i]);
}

TEST_F(tgt, group_needs_its_slots)
{
	int lead, fd[8], same, i;

	lead = open_range(0, "rd_req", -1);
	ASSERT_LE(0, lead);
	for (i = 1; i < 8; i++) {
		fd[i] = open_range(i, "rd_req", lead);
		ASSERT_LE(0, fd[i]) TH_LOG("range %d: %d", i, fd[i]);
	}
	EXPECT_EQ(-ENOSPC, open_range(8, "rd_req", lead));
	same = open_range(5, "wr_req", lead);
	EXPECT_LE(0, same);
	close(same);
	for (i = 1; i < 8; i++)
		close(fd[i]);
	close(lead);
}

/*
 * Nine ranges created while none was scheduled pass event_init, but at
 * most eight are on the hardware at once: perf time-shares them.  Round
 * after round, range i gets 10 + i transactions: an event counts all of
 * its range's or none (it was not on the hardware), never another
 * range's (any other amount, or a sum of them, differs), and every
 * event must get its turn.
 */
/*
 * perf rotates the events every few ms and a round takes longer than
 * that: one that never counts in MUX_ROUNDS rounds is never scheduled.
 */
#define MUX_ROUNDS	20

TEST_F_TIMEOUT(tgt, slots_multiplexed, 120)
{
	struct perf_event_attr attr;
	uint64_t v[9][3], prev[9];
	bool ran[9] = { false };
	int fd[9], i, round, nr_ran = 0, short_runs = 0;
	char spec[128];

	for (i = 0; i < 9; i++) {
		snprintf(spec, sizeof(spec),
			 "rd_req,dst_addr_base=%#x,dst_addr_mask=0xfffff00,dst_addr_en=1",
			 0x10000 * (i + 1));
		ASSERT_EQ(0, pmu_attr(TGT1, spec, &attr));
		attr.disabled = 1;
		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[i] = perf_open(&attr, -1, pmu_cpu(TGT1), -1);
		ASSERT_LE(0, fd[i]) TH_LOG("range %d: %d", i, fd[i]);
		prev[i] = 0;
	}
	for (i = 0; i < 9; i++) {
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0));
	}
	for (round = 0; round < MUX_ROUNDS && nr_ran < 9; round++) {
		for (i = 0; i < 9; i++) {
			ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "to_rc=1 addr=%#x count=%d",
					     0x10000 * (i + 1), 10 + i));
		}
		for (i = 0; i < 9; i++) {
			uint64_t d;

			ASSERT_EQ((ssize_t)sizeof(v[i]), read(fd[i], v[i], sizeof(v[i])));
			d = v[i][0] - prev[i];
			ASSERT_TRUE(d == 0 || d == (uint64_t)(10 + i))
				TH_LOG("range %d, round %d: +%llu", i, round,
				       (unsigned long long)d);
			prev[i] = v[i][0];
			if (d && !ran[i]) {
				ran[i] = true;
				nr_ran++;
			}
		}
		usleep(2000);
	}
	EXPECT_EQ(9, nr_ran);
	for (i = 0; i < 9; i++) {
		EXPECT_TRUE(ran[i]) TH_LOG("range %d never counted", i);
		short_runs += v[i][2] < v[i][1];
		close(fd[i]);
	}
	EXPECT_LT(0, short_runs);
}

TEST_F(tgt, bad_attrs_errno)
{
	struct perf_event_attr attr;
	int cpu = pmu_cpu(TGT1);

	/* BAR root ports or an address range */
	ASSERT_EQ(0, pmu_attr(TGT1, "rd_req,dst_rp_mask=0x2,dst_addr_base=0x10000,dst_addr_mask=0xff00,dst_addr_en=1", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* a range without dst_addr_en would count all BAR traffic instead */
	ASSERT_EQ(0, pmu_attr(TGT1, "rd_req,dst_addr_base=0x10000,dst_addr_mask=0xff00", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(TGT1, "cycles,dst_rp_mask=1", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(TGT1, "event=0x5", &attr));
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	ASSERT_EQ(0, pmu_attr(TGT1, "rd_req", &attr));
	attr.config |= 1ULL << 12;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, cpu, -1));
	/* the simulator refuses targets that do not exist */
	EXPECT_EQ(-EINVAL, inject("to_rc=1 to_rp=0"));
	EXPECT_EQ(-EINVAL, inject("to_rc=1 hdm=1 to_rp=1"));
	EXPECT_EQ(-EINVAL, inject("addr=0x1000"));
	EXPECT_EQ(-EINVAL, inject("to_rc=6"));
}

TEST_HARNESS_MAIN
