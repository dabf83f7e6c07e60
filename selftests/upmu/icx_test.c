// SPDX-License-Identifier: GPL-2.0
/*
 * Ice Lake-X IIO, IRP and IIO free-running PMUs (upmu_icx) on a
 * simulated 2-socket Ice Lake-X (new_device soc=icx): formats and dieX
 * files as upstream's, exact counts of every modelled event through
 * raw configs as perf would build them from perf's Ice Lake-X JSON,
 * ch_mask and fc_mask, the box of the event's die, counter constraints,
 * reserved bits, removal with open events, hotplug of a die's owner,
 * and perf stat (Debian's perf and $UPMU_PERF) giving the exact count.
 *
 * Needs upmu_core and upmu_sim loaded, UPMU_MODDIR (upmu_icx.ko is
 * loaded and unloaded around each test), 4 CPUs on 2 packages (socket 1 is CPUs 2 and 3).  The
 * clock is manual and runs at 1000 MHz: 1 ns of latency is 1 cycle.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "kselftest_harness.h"

#define SIM_ID	11

#include "upmu_test.h"
#include "icx_test.h"

#define IIO(n)	"uncore_iio_" #n
#define IRP(n)	"uncore_irp_" #n
#define FR(n)	"uncore_iio_free_running_" #n

FIXTURE(icx) {
	int dummy;
};

FIXTURE_SETUP(icx)
{
	icx_fixture_setup(_metadata, IIO(5));
}

FIXTURE_TEARDOWN_PARENT(icx)
{
	icx_fixture_teardown(_metadata);
}

/* Formats exactly as upstream registers them for Ice Lake-X. */
TEST_F(icx, formats)
{
	expect_file(_metadata, IIO(0), "format/event", "config:0-7");
	expect_file(_metadata, IIO(0), "format/umask", "config:8-15");
	expect_file(_metadata, IIO(0), "format/edge", "config:18");
	expect_file(_metadata, IIO(0), "format/inv", "config:23");
	expect_file(_metadata, IIO(0), "format/thresh", "config:24-35");
	expect_file(_metadata, IIO(0), "format/ch_mask", "config:36-47");
	expect_file(_metadata, IIO(0), "format/fc_mask", "config:48-50");
	expect_file(_metadata, IRP(3), "format/event", "config:0-7");
	expect_file(_metadata, IRP(3), "format/umask", "config:8-15");
	expect_file(_metadata, IRP(3), "format/edge", "config:18");
	expect_file(_metadata, IRP(3), "format/inv", "config:23");
	expect_file(_metadata, IRP(3), "format/thresh", "config:24-31");
	expect_file(_metadata, FR(5), "format/event", "config:0-7");
	expect_file(_metadata, FR(5), "format/umask", "config:8-15");
}

/* One owner per die; free-running events as upstream names them. */
TEST_F(icx, cpumask_and_events)
{
	expect_file(_metadata, IIO(0), "cpumask", "0,2");
	expect_file(_metadata, IRP(5), "cpumask", "0,2");
	expect_file(_metadata, FR(2), "cpumask", "0,2");
	expect_file(_metadata, FR(0), "events/ioclk", "event=0xff,umask=0x10");
	expect_file(_metadata, FR(0), "events/bw_in_port0", "event=0xff,umask=0x20");
	expect_file(_metadata, FR(0), "events/bw_in_port7", "event=0xff,umask=0x27");
	expect_file(_metadata, FR(0), "events/bw_in_port3.scale", "3.0517578125e-5");
	expect_file(_metadata, FR(0), "events/bw_in_port3.unit", "MiB");
}

/* dieX: segment:root bus of the stack on each die. */
TEST_F(icx, die_mapping)
{
	expect_file(_metadata, IIO(0), "die0", "0000:16");
	expect_file(_metadata, IIO(0), "die1", "0000:96");
	expect_file(_metadata, IIO(4), "die0", "0000:66");
	expect_file(_metadata, IIO(4), "die1", "0000:e6");
	expect_file(_metadata, IIO(5), "die0", "0000:00");
	expect_file(_metadata, IIO(5), "die1", "0000:80");
}

/* Where upstream's are, for perf 6.1's iostat: /sys/devices/uncore_iio_N. */
TEST_F(icx, sysfs_at_top_level)
{
	char buf[64];

	ASSERT_EQ(0, read_str("/sys/devices/uncore_iio_3/die1", buf, sizeof(buf)));
	EXPECT_STREQ("0000:d2", buf);
	ASSERT_EQ(0, read_str("/sys/devices/uncore_iio_free_running_3/cpumask", buf,
			      sizeof(buf)));
	EXPECT_STREQ("0,2", buf);
}

/* The simulated PCI functions, lspci-like. */
TEST_F(icx, pci_devices)
{
	char path[128], buf[8192];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/pci_devices", SIM_ID);
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* trained at what port and device can do: no link= */
	EXPECT_TRUE(strstr(buf, "0000:16:02.0 root_port socket=0 stack=0 part=0 gen=4 width=x4 link_gen=4 link_width=x4\n"
			   "0000:17:00.0 endpoint socket=0 stack=0 part=0\n") == buf);
	EXPECT_TRUE(strstr(buf, "0000:be:04.0 root_port socket=1 stack=2 part=2 gen=3 width=x8 link_gen=3 link_width=x8\n") != NULL);
	EXPECT_TRUE(strstr(buf, "0000:81:00.0 endpoint socket=1 stack=5 part=0\n") != NULL);
	EXPECT_TRUE(strstr(buf, "stack=2 part=1") == NULL);
}

/*
 * Bounds: a flow may not make a 48-bit counter advance faster than
 * 2048 per ns, nor a manual-clock jump by more than half its range.
 */
TEST_F(icx, bounds)
{
	/* 10^9 reads of 4096 bytes a second: 1024 units each, under the bound */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=1 socket=0 stack=0 op=rd size=4096 rate=1000000000"));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "flows",
				   "add id=2 socket=0 stack=1 op=rd size=4096 rate=1000000000"));
	/* 2^47 / (1024 + 64) per ns is 129 s */
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "200000000000"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "advance", "100000000000"));
	/* an inject of more than half a 48-bit counter: 1024 * (2^37 + 1) */
	EXPECT_EQ(-ERANGE, inject("socket=0 stack=0 op=rd size=4096 count=137438953473"));
	EXPECT_EQ(0, inject("socket=0 stack=0 op=rd size=4096 count=137438953"));
}

/* Open @n events @specs of @pmu on CPU 0 (no group); each must open. */
static void open_all(struct __test_metadata *_metadata, const char *pmu,
		     const char * const *specs, int *fd, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		fd[i] = ev_open(pmu, specs[i], 0, -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s/%s/: %s", pmu, specs[i], strerror(-fd[i]));
	}
}

/* Each of the @n events of @pmu counted @want; then they close. */
static void expect_all(struct __test_metadata *_metadata, const char *pmu,
		       const char * const *specs, int *fd, const uint64_t *want,
		       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		EXPECT_EQ(want[i], count_of(_metadata, fd[i])) TH_LOG("%s/%s/", pmu, specs[i]);
		close(fd[i]);
	}
}

/*
 * The IOMMU: an IOTLB lookup per inbound transaction, a hit of its page
 * size or a miss; a miss looks the context cache up (and hits), and
 * walks: walk= memory reads of 64 bytes (MEM_READ on ch_mask bit 9,
 * IOMMU1), walk_lat= ns in the page-walk tracker.
 */
static void iommu_counts(struct __test_metadata *_metadata,
			 const char * const *specs, const uint64_t *want,
			 unsigned int n)
{
	int fd[4];

	open_all(_metadata, IIO(0), specs, fd, n);
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=100"));
	ASSERT_EQ(0, inject("socket=0 stack=0 op=wr size=64 count=20 page=2m"));
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=256 count=10 iotlb_miss=1 walk=3 walk_lat=400"));
	/* another stack's, and a CPU's MMIO reads: none of it */
	ASSERT_EQ(0, inject("socket=0 stack=1 op=rd size=64 count=7 iotlb_miss=1"));
	ASSERT_EQ(0, inject("socket=0 to_stack=0 op=rd size=64 count=7"));
	expect_all(_metadata, IIO(0), specs, fd, want, n);
}

TEST_F(icx, iommu)
{
	static const char * const iotlb[] = {
		"event=0x40,umask=0x1", "event=0x40,umask=0x4",
		"event=0x40,umask=0x8", "event=0x40,umask=0x20",
	};
	static const char * const more[] = {
		"event=0x40,umask=0x1c", "event=0x40,umask=0xc0",
		"event=0x41,umask=0x40", "event=0x42",
	};
	static const char * const reads[] = {
		"event=0x84,umask=0x4,ch_mask=0x200,fc_mask=0x7",
		"event=0x83,umask=0x4,ch_mask=0x200,fc_mask=0x7",
		"event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7",
		"event=0x40,umask=0x10",
	};
	static const uint64_t want_iotlb[] = { 130, 100, 20, 10 };
	/* hits; context lookups and hits; 3 reads a miss; 400 cycles a miss */
	static const uint64_t want_more[] = { 120, 20, 30, 4000 };
	/* the walks' reads on IOMMU1, not on part 0; no 1G page */
	static const uint64_t want_reads[] = { 30, 480, 100 * 16 + 10 * 64, 0 };

	iommu_counts(_metadata, iotlb, want_iotlb, 4);
	iommu_counts(_metadata, more, want_more, 4);
	iommu_counts(_metadata, reads, want_reads, 4);
	EXPECT_EQ(-EINVAL, inject("socket=0 to_stack=0 op=rd iotlb_miss=1"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 op=rd walk=9"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 op=rd page=4m"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 op=rd iotlb_miss=2"));
}

/* One counter's exact count after an injection. */
static void one_count(struct __test_metadata *_metadata, const char *pmu,
		      const char *spec, int cpu, const char *traffic,
		      uint64_t want)
{
	int fd = ev_open(pmu, spec, cpu, -1);

	ASSERT_LE(0, fd) TH_LOG("%s/%s/: %s", pmu, spec, strerror(-fd));
	ASSERT_EQ(0, inject(traffic)) TH_LOG("inject %s", traffic);
	EXPECT_EQ(want, count_of(_metadata, fd)) TH_LOG("%s/%s/ after %s", pmu, spec, traffic);
	close(fd);
}

/* DATA_REQ_OF_CPU.MEM_READ: 4-byte units of device reads, per part. */
TEST_F(icx, data_req_of_cpu_mem_read_parts)
{
	const char *part2 = "event=0x83,umask=0x4,ch_mask=0x4,fc_mask=0x7";
	int fd = ev_open(IIO(2), part2, 0, -1);
	int both = ev_open(IIO(2), "event=0x83,umask=0x4,ch_mask=0x5,fc_mask=0x7", 0, -1);

	ASSERT_LE(0, fd);
	ASSERT_LE(0, both);
	ASSERT_EQ(0, inject("socket=0 stack=2 part=2 op=rd size=256 count=10"));
	ASSERT_EQ(0, inject("socket=0 stack=2 part=0 op=rd size=64 count=5"));
	/* another stack, a write, another socket: none of it */
	ASSERT_EQ(0, inject("socket=0 stack=1 op=rd size=64 count=5"));
	ASSERT_EQ(0, inject("socket=0 stack=2 part=2 op=wr size=64 count=5"));
	ASSERT_EQ(0, inject("socket=1 stack=2 part=2 op=rd size=64 count=5"));
	EXPECT_EQ(640ULL, count_of(_metadata, fd));
	EXPECT_EQ(720ULL, count_of(_metadata, both));
	close(both);
	close(fd);
}

/* A part with no root port takes no traffic; bdf= names the device. */
TEST_F(icx, parts_and_bdf)
{
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=2 part=1 op=rd size=64"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=6 op=rd size=64"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 part=0 op=atomic size=64"));
	/* stack 2's part 2 device is on bus 0x3e + 1 + 2 */
	one_count(_metadata, IIO(2), "event=0x83,umask=0x4,ch_mask=0x4,fc_mask=0x7", 0,
		  "socket=0 stack=2 bdf=0x4100 op=rd size=4 count=3", 3);
}

/* MEM_WRITE is posted, MEM_READ non-posted: fc_mask selects them. */
TEST_F(icx, fc_mask)
{
	const char *tr_wr = "socket=0 stack=0 part=1 op=wr size=128 count=4";
	const char *tr_rd = "socket=0 stack=0 part=1 op=rd size=128 count=4";

	one_count(_metadata, IIO(0), "event=0x83,umask=0x1,ch_mask=0x2,fc_mask=0x1", 0, tr_wr, 128);
	one_count(_metadata, IIO(0), "event=0x83,umask=0x1,ch_mask=0x2,fc_mask=0x6", 0, tr_wr, 0);
	one_count(_metadata, IIO(0), "event=0x83,umask=0x4,ch_mask=0x2,fc_mask=0x2", 0, tr_rd, 128);
	one_count(_metadata, IIO(0), "event=0x83,umask=0x4,ch_mask=0x2,fc_mask=0x5", 0, tr_rd, 0);
	/* both umasks: reads and writes */
	one_count(_metadata, IIO(0), "event=0x83,umask=0x5,ch_mask=0x2,fc_mask=0x7", 0, tr_wr, 128);
}

/* TXN_REQ_OF_CPU: requests of up to 64 bytes. */
TEST_F(icx, txn_req_of_cpu)
{
	one_count(_metadata, IIO(0), "event=0x84,umask=0x4,ch_mask=0x1,fc_mask=0x7", 0,
		  "socket=0 stack=0 part=0 op=rd size=100 count=10", 20);
	one_count(_metadata, IIO(0), "event=0x84,umask=0x1,ch_mask=0x1,fc_mask=0x7", 0,
		  "socket=0 stack=0 part=0 op=wr size=256 count=10", 40);
}

/* Outbound: DATA_REQ_BY_CPU and TXN_REQ_BY_CPU, CPU MMIO to a device. */
TEST_F(icx, by_cpu)
{
	const char *wr = "socket=0 to_stack=3 op=wr size=8 count=1000";
	const char *rd = "socket=0 to_stack=3 op=rd size=4 count=1000 lat=700";

	one_count(_metadata, IIO(3), "event=0xc0,umask=0x1,ch_mask=0x1,fc_mask=0x7", 0, wr, 2000);
	one_count(_metadata, IIO(3), "event=0xc0,umask=0x4,ch_mask=0x1,fc_mask=0x7", 0, rd, 1000);
	one_count(_metadata, IIO(3), "event=0xc1,umask=0x1,ch_mask=0x1,fc_mask=0x7", 0, wr, 1000);
	one_count(_metadata, IIO(3), "event=0xc1,umask=0x4,ch_mask=0x1,fc_mask=0x7", 0, rd, 1000);
	/* a device's read is not the CPU's */
	one_count(_metadata, IIO(3), "event=0xc0,umask=0x4,ch_mask=0x1,fc_mask=0x7", 0,
		  "socket=0 stack=3 op=rd size=64 count=10", 0);
}

/*
 * The completion buffer holds the completions with data of a device's
 * reads (memory's data back to the device): inserts are their lines,
 * occupancy lines x latency in cycles, per part.  A CPU's MMIO read is
 * data the device sends the CPU (DATA_REQ_OF_CPU.CMPD), not in the buffer.
 */
TEST_F(icx, completions)
{
	const char *rd = "socket=0 stack=0 part=1 op=rd size=256 count=100 lat=500";
	const char *mmio = "socket=0 to_stack=0 to_part=1 op=rd size=64 count=100 lat=800";
	int occ = ev_open(IIO(0), "event=0xd5,umask=0x2,fc_mask=0x4", 0, -1), ins, cmpd;

	ASSERT_LE(0, occ);
	ins = ev_open(IIO(0), "event=0xc2,umask=0x3,ch_mask=0x2,fc_mask=0x4", 0, occ);
	ASSERT_LE(0, ins);
	cmpd = ev_open(IIO(0), "event=0x83,umask=0x80,ch_mask=0x2,fc_mask=0x7", 0, occ);
	ASSERT_LE(0, cmpd);
	ASSERT_EQ(0, ioctl(occ, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, inject(rd));
	EXPECT_EQ(200000ULL, count_of(_metadata, occ));
	EXPECT_EQ(400ULL, count_of(_metadata, ins));
	EXPECT_EQ(0ULL, count_of(_metadata, cmpd));
	/* a partial line is a line: 2 x 3 lines of 300 cycles */
	ASSERT_EQ(0, inject("socket=0 stack=0 part=1 op=rd size=100 count=3 lat=300"));
	EXPECT_EQ(201800ULL, count_of(_metadata, occ));
	EXPECT_EQ(406ULL, count_of(_metadata, ins));
	/* the MMIO read's completions: CMPD data only */
	ASSERT_EQ(0, inject(mmio));
	EXPECT_EQ(201800ULL, count_of(_metadata, occ));
	EXPECT_EQ(406ULL, count_of(_metadata, ins));
	EXPECT_EQ(1600ULL, count_of(_metadata, cmpd));
	/* another part, a write, another stack or socket: nothing */
	ASSERT_EQ(0, inject("socket=0 stack=0 part=2 op=rd size=64 count=7 lat=10"));
	ASSERT_EQ(0, inject("socket=0 stack=0 part=1 op=wr size=64 count=7 lat=10"));
	ASSERT_EQ(0, inject("socket=0 stack=1 op=rd size=64 count=7 lat=10"));
	ASSERT_EQ(0, inject("socket=1 stack=0 part=1 op=rd size=64 count=7 lat=10"));
	EXPECT_EQ(201800ULL, count_of(_metadata, occ));
	EXPECT_EQ(406ULL, count_of(_metadata, ins));
	EXPECT_EQ(1600ULL, count_of(_metadata, cmpd));
	close(cmpd);
	close(ins);
	close(occ);
	/* not the completion class: nothing */
	one_count(_metadata, IIO(0), "event=0xc2,umask=0x3,ch_mask=0xff,fc_mask=0x3", 0, rd, 0);
	one_count(_metadata, IIO(0), "event=0xd5,umask=0x2,fc_mask=0x3", 0, rd, 0);
	/* part 2's, by umask (occupancy) and ch_mask (inserts) */
	one_count(_metadata, IIO(0), "event=0xd5,umask=0x4,fc_mask=0x4", 0,
		  "socket=0 stack=0 part=2 op=rd size=64 count=7 lat=10", 70);
	one_count(_metadata, IIO(0), "event=0xc2,umask=0x3,ch_mask=0x4,fc_mask=0x4", 0,
		  "socket=0 stack=0 part=2 op=rd size=64 count=7 lat=10", 7);
	one_count(_metadata, IIO(0), "event=0xc2,umask=0x3,ch_mask=0x2,fc_mask=0x4", 0, mmio, 0);
}

/* Clockticks at the IIO clock: 1000 MHz, 1 per ns of the manual clock. */
TEST_F(icx, clockticks)
{
	int iio = ev_open(IIO(1), "event=0x1", 2, -1);
	int irp = ev_open(IRP(1), "event=0x1", 2, -1);
	int clk = ev_open(FR(1), "ioclk", 2, -1);

	ASSERT_LE(0, iio);
	ASSERT_LE(0, irp);
	ASSERT_LE(0, clk) TH_LOG("ioclk: %s", strerror(-clk));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "123456789"));
	EXPECT_EQ(123456789ULL, count_of(_metadata, iio));
	EXPECT_EQ(123456789ULL, count_of(_metadata, irp));
	EXPECT_EQ(123456789ULL, count_of(_metadata, clk));
	close(clk);
	close(irp);
	close(iio);
}

/* IRP: FAF inserts and occupancy of reads, WR_PREF of writes, in lines. */
TEST_F(icx, irp_events)
{
	const char *rd = "socket=0 stack=4 part=1 op=rd size=256 count=10 lat=300";
	const char *wr = "socket=0 stack=4 part=1 op=wr size=64 count=9 lat=200";

	one_count(_metadata, IRP(4), "event=0x18", 0, rd, 40);
	one_count(_metadata, IRP(4), "event=0x19", 0, rd, 12000);
	one_count(_metadata, IRP(4), "event=0x18", 0, wr, 0);
	one_count(_metadata, IRP(4), "event=0x11,umask=0x8", 0, wr, 9);
	one_count(_metadata, IRP(4), "event=0x11,umask=0x8", 0, rd, 0);
	one_count(_metadata, IRP(4), "event=0xf,umask=0x4", 0, rd, 12000);
	one_count(_metadata, IRP(4), "event=0xf,umask=0x4", 0, wr, 1800);
}

/*
 * IRP MISC1.LOST_FWD: lost_fwd= lines of each inbound write lose their
 * ownership to a snoop once; against WR_PREF, the CPU/IO conflicts.
 */
TEST_F(icx, lost_fwd)
{
	const char *wr = "socket=0 stack=4 part=1 op=wr size=256 count=10 lat=200 lost_fwd=3";
	int lost = ev_open(IRP(4), "event=0x1f,umask=0x10", 0, -1), pref;

	ASSERT_LE(0, lost);
	pref = ev_open(IRP(4), "event=0x11,umask=0x8", 0, lost);
	ASSERT_LE(0, pref);
	ASSERT_EQ(0, ioctl(lost, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, inject(wr));
	EXPECT_EQ(30ULL, count_of(_metadata, lost));
	EXPECT_EQ(40ULL, count_of(_metadata, pref));
	/* a partial line is a line: 2 of 2 lines, 5 times */
	ASSERT_EQ(0, inject("socket=0 stack=4 part=1 op=wr size=100 count=5 lost_fwd=2"));
	/* without lost_fwd=, another stack or socket: none lost */
	ASSERT_EQ(0, inject("socket=0 stack=4 part=1 op=wr size=64 count=8"));
	ASSERT_EQ(0, inject("socket=0 stack=3 op=wr size=64 count=8 lost_fwd=1"));
	ASSERT_EQ(0, inject("socket=1 stack=4 part=1 op=wr size=64 count=8 lost_fwd=1"));
	EXPECT_EQ(40ULL, count_of(_metadata, lost));
	EXPECT_EQ(58ULL, count_of(_metadata, pref));
	close(pref);
	close(lost);
	/* another MISC1 umask counts nothing */
	one_count(_metadata, IRP(4), "event=0x1f,umask=0x8", 0, wr, 0);
	/* more lines than a write has, a read's, the CPU's: EINVAL */
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=4 part=1 op=wr size=256 lost_fwd=5"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=4 part=1 op=wr size=256 lost_fwd=256"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=4 part=1 op=rd size=64 lost_fwd=1"));
	EXPECT_EQ(-EINVAL, inject("socket=0 to_stack=4 op=wr size=64 lost_fwd=1"));
	EXPECT_EQ(-EINVAL, inject("socket=0 op=wr size=64 lost_fwd=1"));
}

/*
 * thresh, inv and edge on occupancies, judged cycle by cycle: bursts of
 * 4 page walks (IIO PWT occupancy) and reads (IRP FAF occupancy) in
 * cycles [0, 100), and 2 more in [50, 150), i.e. 4, 6, 2 entries in
 * [0, 50), [50, 100), [100, 150), none up to 250.
 */
TEST_F(icx, thresh_occupancy)
{
	static const char * const iio[] = {
		"event=0x42,thresh=1", "event=0x42,thresh=5",
		"event=0x42,thresh=5,inv=1", "event=0x42,thresh=5,inv=1,edge=1",
	};
	static const char * const irp[] = {
		"event=0x19,thresh=3", "event=0x19,thresh=1,edge=1",
	};
	/* >= 1: 150; >= 5: 50; < 5: 50 + 50 + 100, twice from >= 5 */
	static const uint64_t want_iio[] = { 150, 50, 200, 2 };
	static const uint64_t want_irp[] = { 100, 1 };
	const char *rd = "socket=0 stack=0 op=rd size=64 lat=100 iotlb_miss=1 walk=1 walk_lat=100";
	char tr[160];
	int fi[4], fr[2];

	open_all(_metadata, IIO(0), iio, fi, 4);
	open_all(_metadata, IRP(0), irp, fr, 2);
	snprintf(tr, sizeof(tr), "%s count=4", rd);
	ASSERT_EQ(0, inject(tr));
	/* no cycle has passed: nothing judged yet */
	EXPECT_EQ(0ULL, count_of(_metadata, fi[0]));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "50"));
	snprintf(tr, sizeof(tr), "%s count=2", rd);
	ASSERT_EQ(0, inject(tr));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "200"));
	expect_all(_metadata, IIO(0), iio, fi, want_iio, 4);
	expect_all(_metadata, IRP(0), irp, fr, want_irp, 2);
}

/*
 * Clockticks add 1 each cycle; an injected batch adds its whole
 * increment in its cycle; a flow's increments are spread evenly over
 * the cycles; with thresh=0, inv and edge change nothing.
 */
TEST_F(icx, thresh_counts_clock_and_flows)
{
	static const char * const clk[] = {
		"event=0x1,thresh=1", "event=0x1,thresh=2",
		"event=0x1,thresh=2,inv=1", "event=0x1,thresh=1,edge=1",
	};
	static const char * const data[] = {
		"event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7,thresh=64",
		"event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7,thresh=65,edge=1",
	};
	/* a 1.6 units and 5 entries a cycle flow on stack 3 */
	static const char * const fdata[] = {
		"event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7,thresh=1",
		"event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7,thresh=2",
	};
	static const char * const focc[] = {
		"event=0x19,thresh=5", "event=0x19,thresh=6,inv=1",
	};
	static const char * const plain[] = {
		"event=0x19,inv=1,edge=1", "event=0x19",
	};
	static const uint64_t want_clk[] = { 1000, 0, 1000, 1 };
	/* 64 units in a cycle, then 128 in another */
	static const uint64_t want_data[] = { 2, 1 };
	/*
	 * 100 reads over 1000 cycles: 1600 units, evenly spaced: 2 in 600
	 * cycles, 1 in the others; 5000 cycles of occupancy, 5 in each
	 */
	static const uint64_t want_fdata[] = { 1000, 600 };
	static const uint64_t want_focc[] = { 1000, 1000 };
	static const uint64_t want_plain[] = { 3000, 3000 };
	int fc[4], fd[2], ff[2], fo[2], fp[2];

	open_all(_metadata, IIO(1), clk, fc, 4);
	open_all(_metadata, IIO(2), data, fd, 2);
	open_all(_metadata, IIO(3), fdata, ff, 2);
	open_all(_metadata, IRP(3), focc, fo, 2);
	open_all(_metadata, IRP(4), plain, fp, 2);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=1 socket=0 stack=3 op=rd size=64 lat=50 rate=100000000"));
	ASSERT_EQ(0, inject("socket=0 stack=2 op=rd size=64 count=4"));
	ASSERT_EQ(0, inject("socket=0 stack=4 op=rd size=64 count=10 lat=300"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "10"));
	ASSERT_EQ(0, inject("socket=0 stack=2 op=rd size=64 count=8"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "990"));
	expect_all(_metadata, IIO(1), clk, fc, want_clk, 4);
	expect_all(_metadata, IIO(2), data, fd, want_data, 2);
	expect_all(_metadata, IIO(3), fdata, ff, want_fdata, 2);
	expect_all(_metadata, IRP(3), focc, fo, want_focc, 2);
	expect_all(_metadata, IRP(4), plain, fp, want_plain, 2);
}

/* Free-running inbound bandwidth: 32-byte units of data into the SoC. */
TEST_F(icx, bw_in_free_running)
{
	one_count(_metadata, FR(0), "bw_in_port3", 0,
		  "socket=0 stack=0 part=3 op=wr size=256 count=10", 80);
	one_count(_metadata, FR(0), "bw_in_port3", 0,
		  "socket=0 stack=0 part=3 op=rd size=256 count=10", 0);
	/* the completion data of a CPU's reads comes in too */
	one_count(_metadata, FR(0), "bw_in_port1", 0,
		  "socket=0 to_stack=0 to_part=1 op=rd size=64 count=10", 20);
	one_count(_metadata, FR(0), "bw_in_port2", 0,
		  "socket=0 stack=0 part=3 op=wr size=256 count=10", 0);
}

/*
 * A free-running counter is read by any number of events at once, in
 * groups or not, as upstream's: none of them waits for a counter.
 */
TEST_F(icx, free_running_shared)
{
	const char *wr = "socket=0 stack=5 part=0 op=wr size=64 count=10";
	int a = ev_open(FR(5), "bw_in_port0", 0, -1), b, lead, sib[10];
	unsigned int i;

	ASSERT_LE(0, a);
	b = ev_open(FR(5), "bw_in_port0", 0, -1);
	ASSERT_LE(0, b);
	lead = ev_open(FR(5), "bw_in_port0", 0, -1);
	ASSERT_LE(0, lead);
	for (i = 0; i < 10; i++) {
		sib[i] = ev_open(FR(5), i % 2 ? "ioclk" : "bw_in_port0", 0, lead);
		ASSERT_LE(0, sib[i]) TH_LOG("sibling %u: %s", i, strerror(-sib[i]));
	}
	ASSERT_EQ(0, inject(wr));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "5000"));
	EXPECT_EQ(20ULL, count_of(_metadata, a));
	EXPECT_EQ(20ULL, count_of(_metadata, b));
	EXPECT_EQ(20ULL, count_of(_metadata, lead));
	for (i = 0; i < 10; i++)
		EXPECT_EQ(i % 2 ? 5000ULL : 20ULL, count_of(_metadata, sib[i]));
	/* one closes; the others count on */
	close(a);
	ASSERT_EQ(0, inject(wr));
	EXPECT_EQ(40ULL, count_of(_metadata, b));
	EXPECT_EQ(40ULL, count_of(_metadata, sib[0]));
	for (i = 0; i < 10; i++)
		close(sib[i]);
	close(lead);
	close(b);
}

/* An event on a CPU of socket 1 counts socket 1's traffic only. */
TEST_F(icx, box_of_die)
{
	const char *spec = "event=0x83,umask=0x1,ch_mask=0x1,fc_mask=0x7";
	int s0 = ev_open(IIO(1), spec, 1, -1), s1 = ev_open(IIO(1), spec, 3, -1);

	ASSERT_LE(0, s0);
	ASSERT_LE(0, s1);
	ASSERT_EQ(0, inject("socket=0 stack=1 op=wr size=64 count=1"));
	ASSERT_EQ(0, inject("socket=1 stack=1 op=wr size=64 count=10"));
	EXPECT_EQ(16ULL, count_of(_metadata, s0));
	EXPECT_EQ(160ULL, count_of(_metadata, s1));
	close(s1);
	close(s0);
}

/* A group of @n events @specs on uncore_iio_0 of CPU 0: 0 or -errno. */
#define RD0	"event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7"
#define WR0	"event=0x83,umask=0x1,ch_mask=0x1,fc_mask=0x7"
#define ORD0	"event=0xc0,umask=0x4,ch_mask=0x1,fc_mask=0x7"
#define OWR0	"event=0xc0,umask=0x1,ch_mask=0x1,fc_mask=0x7"

/* upstream's constraints: 0x83 on counters 0-1, 0xc0 and 0xd5 on 2-3 */
TEST_F(icx, constraints)
{
	const char *iostat[] = { RD0, WR0, ORD0, OWR0 };
	const char *three_83[] = { RD0, WR0, RD0 };
	const char *three_c0[] = { ORD0, "event=0xd5,umask=0x1,fc_mask=0x4", OWR0 };
	const char *five[] = { "event=0x1", RD0, WR0, ORD0, OWR0 };
	const char *mixed[] = { ORD0, "event=0x1", RD0, "event=0x84,umask=0x4,ch_mask=0x1,fc_mask=0x7" };

	/* perf iostat's group of a root port fits */
	EXPECT_EQ(0, group_of(IIO(0), iostat, 4));
	EXPECT_EQ(0, group_of(IIO(0), mixed, 4));
	EXPECT_EQ(-EINVAL, group_of(IIO(0), three_83, 3));
	EXPECT_EQ(-EINVAL, group_of(IIO(0), three_c0, 3));
	EXPECT_EQ(-EINVAL, group_of(IIO(0), five, 5));
}

/* The iostat group counts exactly, each on its counter. */
TEST_F(icx, iostat_group_counts)
{
	const char *iostat[] = { RD0, WR0, ORD0, OWR0 };
	uint64_t want[] = { 160, 32, 4, 2 };
	int fds[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		fds[i] = ev_open(IIO(0), iostat[i], 0, i ? fds[0] : -1);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, inject("socket=0 stack=0 part=0 op=rd size=64 count=10"));
	ASSERT_EQ(0, inject("socket=0 stack=0 part=0 op=wr size=128 count=1"));
	ASSERT_EQ(0, inject("socket=0 to_stack=0 to_part=0 op=rd size=4 count=4"));
	ASSERT_EQ(0, inject("socket=0 to_stack=0 to_part=0 op=wr size=8 count=1"));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(want[i], count_of(_metadata, fds[i])) TH_LOG("%s", iostat[i]);
	}
	for (i = 4; i-- > 0;)
		close(fds[i]);
}

/* Bits outside the formats are EINVAL; raw event codes are not. */
TEST_F(icx, reserved_bits)
{
	struct perf_event_attr attr;

	ASSERT_EQ(0, pmu_attr(IIO(0), RD0, &attr));
	attr.config |= 1ULL << 16;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
	attr.config &= ~(1ULL << 16);
	attr.config |= 1ULL << 51;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
	attr.config &= ~(1ULL << 51);
	attr.config1 = 1;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));

	ASSERT_EQ(0, pmu_attr(IRP(0), "event=0x18", &attr));
	attr.config |= 1ULL << 32;		/* IRP's thresh is 8 bits */
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));

	/* a raw event the simulator does not model opens and counts 0 */
	one_count(_metadata, IIO(0), "event=0x8e,umask=0x3", 0,
		  "socket=0 stack=0 op=rd size=64", 0);
	/* free-running: event 0xff with a counter's umask only */
	EXPECT_GT(0, ev_open(FR(0), "event=0xff,umask=0x30", 0, -1));
	EXPECT_GT(0, ev_open(FR(0), "event=0x1,umask=0x10", 0, -1));
	/* no sampling */
	ASSERT_EQ(0, pmu_attr(IIO(0), RD0, &attr));
	attr.sample_period = 1000;
	EXPECT_GT(0, perf_open(&attr, -1, 0, -1));
}

/* The device goes with events open: they keep their counts. */
TEST_F(icx, del_device_with_open_events)
{
	uint64_t v;
	int fd = ev_open(IIO(0), RD0, 0, -1);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=5"));
	EXPECT_EQ(80ULL, count_of(_metadata, fd));
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=2"));
	ASSERT_EQ(0, sim_del(SIM_ID));
	if (kernel_revokes_events()) {
		EXPECT_FALSE(pmu_exists(IIO(0)));
	} else {
		EXPECT_TRUE(pmu_exists(IIO(0)));
		EXPECT_EQ(-ENODEV, ev_open(IIO(0), RD0, 0, -1));
	}
	ASSERT_EQ(0, count_read(fd, &v));
	EXPECT_EQ(112ULL, v);
	close(fd);
	EXPECT_TRUE(pmu_gone_within(IIO(0), 5000));
	EXPECT_TRUE(pmu_gone_within(FR(5), 5000));
	/* and a fresh device works again */
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual"));
	one_count(_metadata, IIO(0), RD0, 0, "socket=0 stack=0 op=rd size=64 count=3", 48);
}

/* The owner of socket 1 goes offline: its events move and count on. */
TEST_F(icx, hotplug_per_die)
{
	int fd0 = ev_open(IIO(0), WR0, 0, -1), fd1 = ev_open(IIO(0), WR0, 2, -1);

	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, inject("socket=1 stack=0 op=wr size=4 count=10"));
	ASSERT_EQ(0, cpu_set_online(2, false));
	expect_file(_metadata, IIO(0), "cpumask", "0,3");
	ASSERT_EQ(0, inject("socket=1 stack=0 op=wr size=4 count=11"));
	ASSERT_EQ(0, inject("socket=0 stack=0 op=wr size=4 count=3"));
	EXPECT_EQ(21ULL, count_of(_metadata, fd1));
	EXPECT_EQ(3ULL, count_of(_metadata, fd0));
	ASSERT_EQ(0, cpu_set_online(2, true));
	close(fd0);
	close(fd1);
}

/*
 * The device's sockets must be the machine's dies: a 1-socket Ice Lake-X
 * on this 2-package machine gets no PMUs (the driver's probe says why).
 */
TEST_F(icx, sockets_are_dies)
{
	ASSERT_EQ(0, sim_del(SIM_ID));
	EXPECT_TRUE(pmu_gone_within(IIO(0), 5000));
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "soc=icx"));
	EXPECT_FALSE(pmu_exists(IIO(0)));
	EXPECT_FALSE(pmu_exists(FR(5)));
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx"));
	EXPECT_TRUE(pmu_exists(IIO(0)));
}

/* Only one kind of SoC at a time; no traffic a stack cannot take. */
TEST_F(icx, soc_option)
{
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx blocks=icx,ucf"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=skx"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 to_stack=1 op=rd"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 src=loc_cpu op=rd"));
	EXPECT_EQ(-EINVAL, inject("socket=0 to_stack=0 to_part=5 op=rd"));
	/* link=K.P:G:W: a port that exists, trained at most at what it can do */
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx link=0.4:3:2"));	/* no part 4 */
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx link=2.1:3:2"));	/* no port */
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx link=0.2:5:2"));	/* above gen 4 */
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx link=0.2:3:8"));	/* above x4 */
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx link=0.2:3:3"));	/* x3 */
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx link=0.2:0:2"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "soc=icx link=0.2:3:2x"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 2, "link=0.2:3:2"));	/* a Tegra410 */
}

/*
 * perf stat -a on @event: UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0 by its
 * raw config, or by its name (with @env, PERF_CPUID=...): the sum over
 * both dies (and, by name, over every stack's PMU).
 */
static void perf_stat_exact(struct __test_metadata *_metadata, const char *perf,
			    const char *env, const char *event)
{
	char cmd[1024], line[512];
	unsigned long long v = 0;
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "%s %s stat -x, -e %s -a -- "
		 "sh -c 'echo socket=0 stack=0 part=0 op=rd size=64 count=1000 > %s/%u/inject && "
		 "echo socket=1 stack=0 part=0 op=rd size=32 count=100 > %s/%u/inject' 2>&1",
		 env, perf, event, SIM_DEBUGFS, SIM_ID, SIM_DEBUGFS, SIM_ID);
	p = popen(cmd, "r");
	ASSERT_TRUE(p != NULL);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, event) && sscanf(line, "%llu,", &v) == 1)
			found = true;
		else
			TH_LOG("%s: %s", perf, line);
	}
	EXPECT_EQ(0, pclose(p));
	EXPECT_TRUE(found);
	EXPECT_EQ(16800ULL, v);
}

#define RAW_PART0	"uncore_iio_0/event=0x83,umask=0x04,ch_mask=0x1,fc_mask=0x7/"
#define NAME_PART0	"UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0"
/*
 * perf iostat's root ports (perf stat --iostat=list; "perf iostat" is a
 * script that calls it), named by the dieX files.  (Its counts are
 * estimates: each root port's group is opened on every die's box, so
 * the groups of a stack's two dies multiplex on each box.)
 */
static void perf_iostat_list(struct __test_metadata *_metadata, const char *perf)
{
	static const char want[] =
		"S0-uncore_iio_0<0000:16>\nS1-uncore_iio_0<0000:96>\n"
		"S0-uncore_iio_1<0000:2a>\nS1-uncore_iio_1<0000:aa>\n"
		"S0-uncore_iio_2<0000:3e>\nS1-uncore_iio_2<0000:be>\n"
		"S0-uncore_iio_3<0000:52>\nS1-uncore_iio_3<0000:d2>\n"
		"S0-uncore_iio_4<0000:66>\nS1-uncore_iio_4<0000:e6>\n"
		"S0-uncore_iio_5<0000:00>\nS1-uncore_iio_5<0000:80>\n";
	char cmd[512], line[256], got[1024] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s stat --iostat=list 2>&1", perf);
	p = popen(cmd, "r");
	ASSERT_TRUE(p != NULL);
	while (fgets(line, sizeof(line), p))
		if (strlen(got) + strlen(line) < sizeof(got))
			strcat(got, line);
	EXPECT_EQ(0, pclose(p));
	EXPECT_STREQ(want, got);
}

/*
 * perf iostat on a root port of each die, exact: stack 0's on die 0
 * (0000:16) and stack 1's on die 1 (0000:aa).  perf opens each port's
 * group on its stack's box of every die, so the two groups are on
 * different PMUs and nothing multiplexes; it prints a port's counts of
 * its own die, in MB of 2^20 bytes (4 bytes per DATA_REQ increment),
 * rounded to whole ones.  The traffic of the other die's box of each
 * stack must not show.  @iostat is how this perf is asked for it.
 */
static void perf_iostat_dies(struct __test_metadata *_metadata, const char *iostat)
{
	static const char * const traffic[] = {
		/* die 0, stack 0: in 3 + 5 MB, out 1 + 2 MB (parts 0 and 3) */
		"socket=0 stack=0 part=0 op=rd size=4096 count=768",
		"socket=0 stack=0 part=3 op=wr size=4096 count=1280",
		"socket=0 to_stack=0 to_part=1 op=rd size=4096 count=256",
		"socket=0 to_stack=0 op=wr size=4096 count=512",
		/* die 1, stack 1: in 6 + 4 MB, out 2 + 7 MB */
		"socket=1 stack=1 op=rd size=4096 count=1536",
		"socket=1 stack=1 op=wr size=4096 count=1024",
		"socket=1 to_stack=1 op=rd size=4096 count=512",
		"socket=1 to_stack=1 op=wr size=4096 count=1792",
		/* the other die's boxes of these stacks: not shown */
		"socket=1 stack=0 op=rd size=4096 count=2560",
		"socket=0 stack=1 op=wr size=4096 count=2560",
	};
	static const double want[2][4] = { { 3, 5, 1, 2 }, { 6, 4, 2, 7 } };
	char cmd[512], line[512], script[] = "/tmp/icx_iostat_XXXXXX", *p;
	unsigned int i, seen = 0;
	FILE *f;
	int fd;

	/* one word after "--": perf's iostat script splits its arguments */
	fd = mkstemp(script);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	ASSERT_TRUE(f != NULL);
	for (i = 0; i < ARRAY_SIZE(traffic); i++)
		fprintf(f, "echo %s > %s/%u/inject || exit 1\n", traffic[i],
			SIM_DEBUGFS, SIM_ID);
	ASSERT_EQ(0, fclose(f));
	snprintf(cmd, sizeof(cmd), "%s0000:16,0000:aa -- sh %s 2>&1", iostat, script);
	f = popen(cmd, "r");
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		double v[4];
		int port;

		for (p = line; *p; p++)
			if (*p == ',')
				*p = ' ';
		if (sscanf(line, " 0000:%x %lf %lf %lf %lf", &port, &v[0], &v[1],
			   &v[2], &v[3]) != 5 || (port != 0x16 && port != 0xaa)) {
			TH_LOG("%s", line);
			continue;
		}
		i = port == 0xaa;
		seen |= 1U << i;
		EXPECT_EQ(want[i][0], v[0]) TH_LOG("port %02x inbound read", port);
		EXPECT_EQ(want[i][1], v[1]) TH_LOG("port %02x inbound write", port);
		EXPECT_EQ(want[i][2], v[2]) TH_LOG("port %02x outbound read", port);
		EXPECT_EQ(want[i][3], v[3]) TH_LOG("port %02x outbound write", port);
	}
	EXPECT_EQ(0, pclose(f));
	unlink(script);
	EXPECT_EQ(3U, seen);
}

TEST_F(icx, perf_iostat_dies_debian)
{
	char iostat[256];

	snprintf(iostat, sizeof(iostat), "%s iostat ", getenv("PERF") ?: "/usr/bin/perf");
	perf_iostat_dies(_metadata, iostat);
}

TEST_F(icx, perf_iostat_dies_upmu_perf)
{
	const char *perf = getenv("UPMU_PERF");
	char iostat[256];

	/* make check always passes it: without it, a failure, not a skip */
	ASSERT_TRUE(perf && !access(perf, X_OK))
		TH_LOG("no patched perf: UPMU_PERF='%s' (scripts/perfbuild.sh builds it)",
		       perf ?: "");
	/* what perf's iostat script runs (perf 7.2 here has no scripts) */
	snprintf(iostat, sizeof(iostat), "%s stat --iostat=", perf);
	perf_iostat_dies(_metadata, iostat);
}

TEST_F(icx, perf_iostat_list_debian)
{
	perf_iostat_list(_metadata, getenv("PERF") ?: "/usr/bin/perf");
}

TEST_F(icx, perf_iostat_list_upmu_perf)
{
	const char *perf = getenv("UPMU_PERF");

	/* make check always passes it: without it, a failure, not a skip */
	ASSERT_TRUE(perf && !access(perf, X_OK))
		TH_LOG("no patched perf: UPMU_PERF='%s' (scripts/perfbuild.sh builds it)",
		       perf ?: "");
	perf_iostat_list(_metadata, perf);
}

TEST_F(icx, perf_stat_debian)
{
	perf_stat_exact(_metadata, getenv("PERF") ?: "/usr/bin/perf", "", RAW_PART0);
}

TEST_F(icx, perf_stat_upmu_perf)
{
	const char *perf = getenv("UPMU_PERF");

	/* make check always passes it: without it, a failure, not a skip */
	ASSERT_TRUE(perf && !access(perf, X_OK))
		TH_LOG("no patched perf: UPMU_PERF='%s' (scripts/perfbuild.sh builds it)",
		       perf ?: "");
	perf_stat_exact(_metadata, perf, "", RAW_PART0);
}

TEST_F(icx, perf_json_name_debian)
{
	perf_stat_exact(_metadata, getenv("PERF") ?: "/usr/bin/perf", ICX_CPUID, NAME_PART0);
}

TEST_F(icx, perf_json_name_upmu_perf)
{
	const char *perf = getenv("UPMU_PERF");

	/* make check always passes it: without it, a failure, not a skip */
	ASSERT_TRUE(perf && !access(perf, X_OK))
		TH_LOG("no patched perf: UPMU_PERF='%s' (scripts/perfbuild.sh builds it)",
		       perf ?: "");
	perf_stat_exact(_metadata, perf, ICX_CPUID, NAME_PART0);
}

/*
 * make check boots the guests that run this program as an Ice Lake-X
 * (vm.sh --cpu-model icx, which says so in UPMU_GUEST_CPU): the CPU must
 * be one, and perf must know the Ice Lake-X uncore events by the CPU, with
 * no PERF_CPUID, so that the perf_json_name tests above and
 * no_upstream_intel_uncore below test what they say.  Another guest CPU
 * (the stock guest's "max"): perf gets the CPU from PERF_CPUID (skip).
 */
TEST_F(icx, guest_cpu_is_icelake_x)
{
	const char *want = getenv("UPMU_GUEST_CPU");
	const char *perf = getenv("UPMU_PERF");
	char cmd[512];

	if (!want || strcmp(want, "icx"))
		SKIP(return, "guest CPU '%s', not icx: perf is told the CPU (PERF_CPUID)",
		     want ?: "");
	ASSERT_TRUE(cpu_is_icx()) TH_LOG("vm.sh --cpu-model icx booted no Ice Lake-X");
	ASSERT_TRUE(perf && !access(perf, X_OK)) TH_LOG("no patched perf: UPMU_PERF");
	snprintf(cmd, sizeof(cmd),
		 "env -u PERF_CPUID %s list --raw-dump 2>/dev/null | tr ' ' '\\n' |"
		 " grep -qix unc_iio_data_req_of_cpu.mem_read.part0", perf);
	EXPECT_EQ(0, system(cmd)) TH_LOG("%s: perf does not know ICX's IIO events", cmd);
}

/*
 * Upstream's intel_uncore, whose PMUs would take these names, stays out
 * of a VM (the CPUID hypervisor bit), also on an Ice Lake-X CPU: every
 * uncore_* PMU is upmu_icx's (has associated_cpus, which intel_uncore's
 * have not), upstream's uncore_ubox, uncore_pcu and uncore_m2pcie_0
 * included.
 */
TEST_F(icx, no_upstream_intel_uncore)
{
	static const char * const names[] = { "uncore_ubox", "uncore_pcu",
					      "uncore_m2pcie_0", "uncore_cha_0" };
	int rc = system("modprobe intel_uncore 2>/dev/null");
	unsigned int i;
	char buf[64];

	(void)rc;	/* built in on the debug kernel: its init ran at boot */
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT_EQ(0, pmu_read(names[i], "associated_cpus", buf, sizeof(buf)))
			TH_LOG("%s: not upmu_icx's", names[i]);
	}
	EXPECT_EQ(0, system("for p in /sys/bus/event_source/devices/uncore_*; do"
			    " [ -e $p/associated_cpus ] || exit 1; done"));
}

/*
 * ---- 48-bit wraps ----------------------------------------------------------
 *
 * Every Ice Lake-X counter is 48 bits wide, the free-running ones too
 * (upstream's icx_iio_freerunning; Skylake-X's were 36).  A step moves a
 * counter by at most 2^47, half its range, the most the simulator allows
 * between two samples, and a perf read after each step samples it: the
 * driver's poll period for 48-bit counters is 2^47 / 2048 ns, clamped to
 * 60 s, so its timer never runs here (icx_mem_test.c says more).  A count
 * above 2^48 exists only if the driver carried the wraps.
 */
#define HALF48		(1ULL << 47)

/* Clockticks of the IIO, IRP and ioclk: 5 steps of 2^47 cycles. */
TEST_F(icx, clockticks_wrap_48bit)
{
	static const struct { const char *pmu, *spec; int cpu; } ev[] = {
		{ IIO(0), "event=0x1", 0 },
		{ IIO(5), "event=0x1", 2 },
		{ IRP(1), "event=0x1", 0 },
		{ IRP(4), "event=0x1", 3 },
		{ FR(0), "ioclk", 0 },
		{ FR(0), "ioclk", 0 },		/* the same counter, shared */
		{ FR(5), "ioclk", 2 },
	};
	int fd[ARRAY_SIZE(ev)];
	unsigned int i, s;

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		fd[i] = ev_open(ev[i].pmu, ev[i].spec, ev[i].cpu, -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s/%s/: %s", ev[i].pmu, ev[i].spec,
					   strerror(-fd[i]));
	}
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "%llu", HALF48 + 1));
	for (s = 1; s <= 5; s++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu", HALF48));
		for (i = 0; i < ARRAY_SIZE(ev); i++) {
			EXPECT_EQ(s * HALF48, count_of(_metadata, fd[i]))
				TH_LOG("%s/%s/ on CPU %d, step %u", ev[i].pmu,
				       ev[i].spec, ev[i].cpu, s);
		}
	}
	for (i = ARRAY_SIZE(ev); i-- > 0;)
		close(fd[i]);
}

/*
 * Device writes of 4 KiB into part 0 of stack 2: 2^37 of them are 2^47
 * for DATA_REQ_OF_CPU.MEM_WRITE (4-byte units), the most one batch may
 * add, and 2^44 for bw_in_port0 (32-byte units).  40 batches take the
 * general counter across 2^48 twenty times and the free-running one
 * twice, on each die.
 */
TEST_F(icx, data_req_and_bw_in_wrap_48bit)
{
	const char *wr = "socket=%u stack=2 part=0 op=wr size=4096 count=137438953472";
	int gen[2], bw[2];
	unsigned int b, s;

	for (s = 0; s < 2; s++) {
		gen[s] = ev_open(IIO(2), WR0, 2 * s, -1);
		ASSERT_LE(0, gen[s]) TH_LOG("%s", strerror(-gen[s]));
		bw[s] = ev_open(FR(2), "bw_in_port0", 2 * s, -1);
		ASSERT_LE(0, bw[s]) TH_LOG("%s", strerror(-bw[s]));
	}
	EXPECT_EQ(-ERANGE, inject("socket=0 stack=2 part=0 op=wr size=4096 count=137438953473"));
	for (b = 1; b <= 40; b++) {
		for (s = 0; s < 2; s++) {
			ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", wr, s)) TH_LOG("batch %u", b);
			EXPECT_EQ((uint64_t)b << 47, count_of(_metadata, gen[s]))
				TH_LOG("MEM_WRITE.PART0, socket %u, batch %u", s, b);
			EXPECT_EQ((uint64_t)b << 44, count_of(_metadata, bw[s]))
				TH_LOG("bw_in_port0, socket %u, batch %u", s, b);
		}
	}
	for (s = 0; s < 2; s++) {
		close(bw[s]);
		close(gen[s]);
	}
}

TEST_HARNESS_MAIN
