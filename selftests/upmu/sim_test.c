// SPDX-License-Identifier: GPL-2.0
/*
 * The upmu simulator at register level, through its debugfs regs/ files
 * (devmem-like: pread/pwrite at offset = register offset, through the
 * accessors the driver uses): the files and what they reach, the
 * CoreSight counter layout, bounds on what the simulated hardware counts
 * and on its ground truth, the shared BDF comparator of a PCIe root
 * complex, the registers the driver leaves behind, the simulator's input
 * checks, its blocks= option, and how blocks keep up with sim time.
 * Needs upmu_core, upmu_sim and upmu_t410 loaded, 2 NUMA nodes.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	16

#include "upmu_test.h"

/* CoreSight PMU registers (UCF, PCIE, PCIE-TGT) */
#define PMEVCNTR32(n)	(4 * (n))	/* counters of 32 bits or less */
#define PMEVCNTR64(n)	(8 * (n))	/* wider counters */
#define PMEVTYPER(n)	(0x400 + 4 * (n))
#define PMEVFILT2R(n)	(0x800 + 4 * (n))
#define PMEVFILTR(n)	(0xa00 + 4 * (n))
#define PMCNTENSET	0xc00
#define PMINTENSET	0xc40
#define PMINTENCLR	0xc60
#define PMOVSSET	0xcc0
#define PMCFGR		0xe00
#define PMCR		0xe04
#define PMIIDR		0xe08
#define CYCLE_IDX	31
#define TGT_SLOT(i)	(0x1000 + 0xd38 + 20 * (i))

/* CMEM latency PMU: instance pages, then the broadcast page */
#define CMEM_INST(i)	(0x1000 * (i))
#define CMEM_BCAST	CMEM_INST(14)
#define CMEM_CG_CTRL	0x800
#define CMEM_CTRL	0x808
#define CMEM_REQ(mc)	(0x820 + 0x18 * (mc))
#define CMEM_AOR(mc)	(0x830 + 0x18 * (mc))

/* link PMUs: instance pages, then the broadcast page */
#define C2C_CTRL	0x864
#define C2C_CYCLES	0x86c
#define C2C_OUT_RD_CUM	0x898

#define UCF_FILT_ALL	0xf07	/* every source and destination */

static int regs_io(unsigned int id, const char *blk, int write, uint32_t off,
		   void *val, size_t len)
{
	char path[128];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/%s", id, blk);
	fd = open(path, write ? O_WRONLY : O_RDONLY);
	if (fd < 0)
		return -errno;
	n = write ? pwrite(fd, val, len, off) : pread(fd, val, len, off);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	return n == (ssize_t)len ? 0 : -ENODATA;
}

static int rd32(const char *blk, uint32_t off, uint32_t *v)
{
	return regs_io(SIM_ID, blk, 0, off, v, 4);
}

static int rd64(const char *blk, uint32_t off, uint64_t *v)
{
	return regs_io(SIM_ID, blk, 0, off, v, 8);
}

static int wr32(const char *blk, uint32_t off, uint32_t v)
{
	return regs_io(SIM_ID, blk, 1, off, &v, 4);
}

/* Register values; a failed access fails the test and gives ~0. */
#define R32(blk, off) ({						\
	uint32_t _v = ~0U;						\
	EXPECT_EQ(0, rd32(blk, off, &_v)) TH_LOG("%s %#x", blk, (unsigned int)(off)); \
	_v; })
#define R64(blk, off) ({						\
	uint64_t _v = ~0ULL;						\
	EXPECT_EQ(0, rd64(blk, off, &_v)) TH_LOG("%s %#x", blk, (unsigned int)(off)); \
	_v; })
#define W32(blk, off, v)						\
	ASSERT_EQ(0, wr32(blk, off, v)) TH_LOG("%s %#x", blk, (unsigned int)(off))

static bool regs_exists(const char *blk)
{
	char path[128];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/%s", SIM_ID, blk);
	return !access(path, F_OK);
}

static long long regs_size(const char *blk)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/%s", SIM_ID, blk);
	return stat(path, &st) ? -errno : (long long)st.st_size;
}

/*
 * Every test makes its own devices, with only the register blocks it
 * uses (building PMUs is slow on a debug kernel); whatever it leaves is
 * deleted in the parent, after its events are closed.
 */
FIXTURE(sim) {
	int dummy;
};

FIXTURE_SETUP(sim)
{
	sim_del(SIM_ID);
}

FIXTURE_TEARDOWN_PARENT(sim)
{
	sim_del(SIM_ID);
}

/* A fresh device @SIM_ID with @sockets sockets and @opts. */
#define NEW(sockets, opts) do {						\
		sim_del(SIM_ID);					\
		ASSERT_EQ(0, sim_new(SIM_ID, sockets, opts));		\
	} while (0)

TEST_F_TIMEOUT(sim, regs_files, 120)
{
	static const struct { const char *blk; long long size; } files[] = {
		{ "ucf.0", 0x1000 }, { "ucf.1", 0x1000 },
		{ "cmem.0", 15 * 0x1000 }, { "cmem.1", 15 * 0x1000 },
		{ "pcie.0.0", 0x1000 }, { "pcie.1.5", 0x1000 },
		{ "tgt.0.0", 0x2000 }, { "tgt.1.5", 0x2000 },
		{ "c2c.0", 15 * 0x1000 }, { "clink.1", 13 * 0x1000 },
		{ "dlink.0", 17 * 0x1000 },
	};
	char name[32];
	unsigned int i, s, rc;

	NEW(2, "clock=manual");
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		const char *blk = files[i].blk;

		EXPECT_EQ(files[i].size, regs_size(blk)) TH_LOG("%s", blk);
	}
	for (s = 0; s < 2; s++)
		for (rc = 0; rc < 6; rc++) {
			snprintf(name, sizeof(name), "pcie.%u.%u", s, rc);
			EXPECT_TRUE(regs_exists(name)) TH_LOG("%s", name);
			snprintf(name, sizeof(name), "tgt.%u.%u", s, rc);
			EXPECT_TRUE(regs_exists(name)) TH_LOG("%s", name);
		}
	EXPECT_FALSE(regs_exists("ucf.2"));
	EXPECT_FALSE(regs_exists("pcie.0.6"));
	EXPECT_EQ(0, sim_del(SIM_ID));
	EXPECT_FALSE(regs_exists("ucf.0"));

	/* only the root complexes the device has */
	NEW(1, "rcs=2");
	EXPECT_TRUE(regs_exists("tgt.0.1"));
	EXPECT_FALSE(regs_exists("pcie.0.2"));
	EXPECT_FALSE(regs_exists("ucf.1"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

TEST_F_TIMEOUT(sim, regs_access, 120)
{
	uint32_t v32;
	uint64_t v64;
	int fd, fdr;
	char path[128];

	NEW(1, "clock=manual counters=8 rcs=2 blocks=ucf,cmem,pcie,tgt,c2c");
	/*
	 * identification: PMCFGR = cycle counter, 48 bits, 9 logical
	 * counters (N = 8): 8 general ones and the cycle counter
	 */
	EXPECT_EQ(0x4000U | (47U << 8) | 8U, R32("ucf.0", PMCFGR));
	EXPECT_EQ(0x2cf2036bU, R32("ucf.0", PMIIDR));
	EXPECT_EQ(0x1030136bU, R32("pcie.0.1", PMIIDR));
	EXPECT_EQ(0x1070136bU, R32("tgt.0.1", PMIIDR));
	/*
	 * Overflow interrupts come up enabled (UNKNOWN at reset, as firmware
	 * may leave them); nothing handles them, and the driver turned them
	 * off when it bound.  The registers work as the architecture says.
	 */
	EXPECT_EQ(0U, R32("ucf.0", PMINTENSET));
	EXPECT_EQ(0U, R32("pcie.0.1", PMINTENSET));
	EXPECT_EQ(0U, R32("tgt.0.1", PMINTENSET));
	W32("ucf.0", PMINTENSET, 0x80000005);
	EXPECT_EQ(0x80000005U, R32("ucf.0", PMINTENCLR));
	W32("ucf.0", PMINTENCLR, 0x80000001);
	EXPECT_EQ(4U, R32("ucf.0", PMINTENSET));
	W32("ucf.0", PMINTENCLR, 4);

	/* what the driver programs is what the registers hold */
	fd = pmu_open("nvidia_ucf_pmu_0", "slc_access_rd,src_rem=1", -1);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0x111U, R32("ucf.0", PMEVTYPER(0)));
	EXPECT_EQ(0x4U | 0xf00U, R32("ucf.0", PMEVFILTR(0)));
	EXPECT_EQ(1U, R32("ucf.0", PMCNTENSET) & 1);
	EXPECT_EQ(1U, R32("ucf.0", PMCR) & 1);
	ASSERT_EQ(0, inject("op=rd src=rem count=5"));
	EXPECT_EQ(5ULL, R64("ucf.0", PMEVCNTR64(0)));
	EXPECT_EQ(5ULL, count_of(_metadata, fd));
	close(fd);

	/* and what a test writes, the model uses */
	W32("ucf.0", PMEVTYPER(2), 0x112);	/* slc_access_wr */
	W32("ucf.0", PMEVFILTR(2), UCF_FILT_ALL);
	EXPECT_EQ(0x112U, R32("ucf.0", PMEVTYPER(2)));
	W32("ucf.0", PMCNTENSET, 1U << 2);
	W32("ucf.0", PMCR, 1);
	ASSERT_EQ(0, inject("op=wr count=9"));
	EXPECT_EQ(9ULL, R64("ucf.0", PMEVCNTR64(2)));
	W32("ucf.0", PMCR, 0);

	/* CMEM and link blocks too: broadcast writes, 64-bit counters */
	W32("cmem.0", CMEM_BCAST + CMEM_CG_CTRL, 1);
	EXPECT_EQ(1U, R32("cmem.0", CMEM_INST(13) + CMEM_CG_CTRL));
	W32("c2c.0", 14 * 0x1000 + C2C_CTRL, 1);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1234));
	EXPECT_EQ(1234ULL, R64("c2c.0", 0x1000 * 3 + C2C_CYCLES));
	EXPECT_EQ(1234U, R32("c2c.0", 0x1000 * 3 + C2C_CYCLES));
	EXPECT_EQ(0U, R32("c2c.0", 0x1000 * 3 + C2C_CYCLES + 4));

	/* one access of 4 bytes (8 for reads) at a 4-byte aligned offset */
	EXPECT_EQ(-EINVAL, regs_io(SIM_ID, "ucf.0", 0, PMIIDR, &v32, 2));
	EXPECT_EQ(-EINVAL, regs_io(SIM_ID, "ucf.0", 0, PMIIDR + 2, &v32, 4));
	EXPECT_EQ(-EINVAL, regs_io(SIM_ID, "ucf.0", 0, PMIIDR, path, 16));
	EXPECT_EQ(-EINVAL, regs_io(SIM_ID, "ucf.0", 1, PMCR, &v64, 8));
	EXPECT_EQ(-EINVAL, regs_io(SIM_ID, "ucf.0", 1, 0x1000, &v32, 4));
	EXPECT_EQ(-EINVAL, regs_io(SIM_ID, "ucf.0", 0, 0xffc, &v64, 8));
	EXPECT_EQ(0, regs_io(SIM_ID, "ucf.0", 0, 0xffc, &v32, 4));
	EXPECT_EQ(0, regs_io(SIM_ID, "tgt.0.0", 0, 0x1ffc, &v32, 4));
	/* at the end of the window: end of file */
	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/ucf.0", SIM_ID);
	fdr = open(path, O_RDONLY);
	ASSERT_LE(0, fdr);
	EXPECT_EQ(0, pread(fdr, &v32, 4, 0x1000));
	close(fdr);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * Every access at the edges of a window: its start and end, and inside a
 * NIC PF's window the ends of the inbox, the outbox and the sample
 * window.  Each offset from 20 bytes before an edge to 20 after, each
 * width of 1 to 16 bytes: a read gets all its bytes, none (at or past
 * the end), or EINVAL, never a crash or an over-read (KASAN in the debug
 * guest).  An 8-byte read of a mailbox's last dword reads the next
 * register for its upper half, as two dword reads would.
 */
static void edge_reads(struct __test_metadata *_metadata, const char *blk,
		       const long long *edges, unsigned int nr_edges)
{
	long long size = regs_size(blk), off;
	unsigned char buf[16];
	unsigned int e, len;
	char path[128];
	ssize_t n;
	int fd;

	ASSERT_LT(0, size) TH_LOG("%s", blk);
	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/%s", SIM_ID, blk);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("%s", path);
	for (e = 0; e < nr_edges; e++) {
		for (off = edges[e] - 20; off <= edges[e] + 20; off++) {
			if (off < 0)
				continue;
			for (len = 1; len <= sizeof(buf); len++) {
				n = pread(fd, buf, len, off);
				if (n < 0) {
					EXPECT_EQ(EINVAL, errno)
						TH_LOG("%s %#llx %u", blk, off, len);
				} else if (off >= size) {
					EXPECT_EQ(0, n) TH_LOG("%s %#llx %u", blk, off, len);
				} else if ((len == 4 || len == 8) && !(off % 4) &&
					   off + len <= size) {
					EXPECT_EQ((ssize_t)len, n)
						TH_LOG("%s %#llx %u", blk, off, len);
				} else {
					EXPECT_GE((ssize_t)len, n)
						TH_LOG("%s %#llx %u", blk, off, len);
				}
			}
		}
	}
	close(fd);
}

/* hw/nic_cmd.h: the mailboxes and the sample window of a PF */
#define NIC_INBOX	0x1000
#define NIC_OUTBOX	0x2000
#define NIC_SWIN	0x12000
#define NIC_WINDOW	0x22000

TEST_F_TIMEOUT(sim, regs_window_edges, 300)
{
	static const char * const t410[] = {
		"ucf.0", "cmem.1", "pcie.0.0", "tgt.1.1", "c2c.0", "clink.1",
		"dlink.0",
	};
	const long long nic_edges[] = { 0, NIC_INBOX, NIC_OUTBOX, NIC_SWIN,
					NIC_WINDOW };
	uint64_t v64;
	long long edges[2];
	unsigned int i;

	NEW(2, "clock=manual rcs=2 blocks=ucf,cmem,pcie,tgt,c2c,clink,dlink,nic");
	for (i = 0; i < ARRAY_SIZE(t410); i++) {
		edges[0] = 0;
		edges[1] = regs_size(t410[i]);
		edge_reads(_metadata, t410[i], edges, 2);
	}
	edge_reads(_metadata, "nic.pf0", nic_edges, ARRAY_SIZE(nic_edges));

	/* the inbox's last dword, then the outbox's first */
	W32("nic.pf0", NIC_OUTBOX - 4, 0x11223344);
	EXPECT_EQ(0, rd64("nic.pf0", NIC_OUTBOX - 4, &v64));
	EXPECT_EQ(0x11223344ULL | (uint64_t)R32("nic.pf0", NIC_OUTBOX) << 32, v64);
	EXPECT_EQ(0, sim_del(SIM_ID));

	NEW(2, "soc=icx clock=manual");
	edges[0] = 0;
	edges[1] = regs_size("icx");
	edge_reads(_metadata, "icx", edges, 2);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * tear64=N: a 64-bit read of a UCF counter is two 32-bit reads, the high
 * half N counts after the low one, and the device does not say that such
 * a read is atomic ("reg-io-width").  Within N counts of a carry the
 * register reads 2^32 too high; the driver, reading high-low-high, never
 * reports that.  With tear64=0 the register read is exact.
 */
TEST_F_TIMEOUT(sim, torn_64bit_reads, 120)
{
	const uint64_t near = (1ULL << 32) - 64;	/* 2^26 - 1 reads of 64 B */
	int fd;

	NEW(1, "clock=manual rcs=0 blocks=ucf tear64=65536");
	fd = pmu_open("nvidia_ucf_pmu_0", "slc_bytes_rd", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("op=rd size=64 count=67108863"));
	/* the register itself tears: the carry comes within 65536 counts */
	EXPECT_EQ(near + (1ULL << 32), R64("ucf.0", PMEVCNTR64(0)));
	EXPECT_EQ(near, R32("ucf.0", PMEVCNTR64(0)));
	EXPECT_EQ(0U, R32("ucf.0", PMEVCNTR64(0) + 4));
	EXPECT_EQ(near, count_of(_metadata, fd));
	ASSERT_EQ(0, inject("op=rd size=64 count=1"));
	EXPECT_EQ(near + 64, count_of(_metadata, fd));
	/* past the carry, far enough: the register reads right again */
	ASSERT_EQ(0, inject("op=rd size=64 count=2048"));
	EXPECT_EQ(near + 64 * 2049, R64("ucf.0", PMEVCNTR64(0)));
	EXPECT_EQ(near + 64 * 2049, count_of(_metadata, fd));
	close(fd);
	EXPECT_EQ(0, sim_del(SIM_ID));

	NEW(1, "clock=manual rcs=0 blocks=ucf");
	fd = pmu_open("nvidia_ucf_pmu_0", "slc_bytes_rd", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("op=rd size=64 count=67108863"));
	EXPECT_EQ(near, R64("ucf.0", PMEVCNTR64(0)));
	EXPECT_EQ(near, count_of(_metadata, fd));
	close(fd);
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID + 1, 1, "tear64=2147483649"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * Counter n holds 2^8 - 2^n: each counter is enabled in turn, and 2^k
 * transactions follow the k-th enable.
 */
static void program_ucf_counters(struct __test_metadata *_metadata)
{
	unsigned int n;

	for (n = 0; n < 8; n++) {
		W32("ucf.0", PMEVTYPER(n), 0x0);	/* slc_access */
		W32("ucf.0", PMEVFILTR(n), UCF_FILT_ALL);
	}
	W32("ucf.0", PMCR, 1);
	for (n = 0; n < 8; n++) {
		W32("ucf.0", PMCNTENSET, 1U << n);
		ASSERT_EQ(0, sim_ctl(SIM_ID, "inject", "count=%u", 1U << n));
	}
	W32("ucf.0", PMCNTENSET, 1U << CYCLE_IDX);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000));
}

/* Counters of 32 bits or less: 32-bit registers at a 4-byte stride. */
TEST_F_TIMEOUT(sim, counter_layout_32bit, 120)
{
	unsigned int n;
	uint32_t v;

	NEW(1, "width=32 clock=manual counters=8 rcs=0 blocks=ucf");
	EXPECT_EQ(31U, (R32("ucf.0", PMCFGR) >> 8) & 0x3f);
	program_ucf_counters(_metadata);
	for (n = 0; n < 8; n++) {
		EXPECT_EQ(256U - (1U << n), R32("ucf.0", PMEVCNTR32(n))) TH_LOG("counter %u", n);
	}
	EXPECT_EQ(1000U, R32("ucf.0", PMEVCNTR32(CYCLE_IDX)));
	/* nothing above the cycle counter; 64-bit reads of 32-bit registers RAZ */
	for (n = 0x80; n < 0x100; n += 4) {
		ASSERT_EQ(0, rd32("ucf.0", n, &v));
		EXPECT_EQ(0U, v) TH_LOG("%#x", n);
	}
	EXPECT_EQ(0ULL, R64("ucf.0", PMEVCNTR32(1)));
	EXPECT_EQ(0U, R32("ucf.0", PMOVSSET));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* Wider counters, 33 to 64 bits: 64-bit registers at an 8-byte stride. */
TEST_F_TIMEOUT(sim, counter_layout_64bit, 120)
{
	static const char * const opts[] = {
		"width=33 clock=manual counters=8 rcs=0 blocks=ucf",
		"width=48 clock=manual counters=8 rcs=0 blocks=ucf",
		"width=64 clock=manual counters=8 rcs=0 blocks=ucf",
	};
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		NEW(1, opts[i]);
		program_ucf_counters(_metadata);
		for (n = 0; n < 8; n++) {
			EXPECT_EQ(256ULL - (1U << n), R64("ucf.0", PMEVCNTR64(n)))
				TH_LOG("%s: counter %u", opts[i], n);
			EXPECT_EQ(256U - (1U << n), R32("ucf.0", PMEVCNTR64(n)));
			EXPECT_EQ(0U, R32("ucf.0", PMEVCNTR64(n) + 4));
		}
		EXPECT_EQ(1000ULL, R64("ucf.0", PMEVCNTR64(CYCLE_IDX)));
	}
	/* the upper half of a 64-bit register at +4 */
	ASSERT_EQ(0, inject("count=8589934592"));	/* 2^33 */
	EXPECT_EQ(2U, R32("ucf.0", PMEVCNTR64(0) + 4));
	EXPECT_EQ(255U, R32("ucf.0", PMEVCNTR64(0)));
	/* a 64-bit read there is of no 64-bit register: RAZ */
	EXPECT_EQ(0ULL, R64("ucf.0", PMEVCNTR64(0) + 4));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* ---- bounds: what the simulated hardware can count ------------------ */

/* A real fabric clock: at most 2 GHz. */
TEST_F_TIMEOUT(sim, clock_at_most_2ghz, 120)
{
	sim_del(SIM_ID);
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "clock_mhz=2001 rcs=0"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "clock_mhz=10000 rcs=0"));
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "clock_mhz=2000 rcs=0"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* Counter 0 of a CoreSight block: event @ev with all filters open. */
static void program_counter0(struct __test_metadata *_metadata, const char *blk,
			     uint32_t ev, uint32_t filt, uint32_t filt2)
{
	W32(blk, PMEVTYPER(0), ev);
	W32(blk, PMEVFILTR(0), filt);
	W32(blk, PMEVFILT2R(0), filt2);
	W32(blk, PMCNTENSET, 1);
	W32(blk, PMCR, 1);
}

/* One inject may advance a counter by at most half its range. */
TEST_F_TIMEOUT(sim, inject_half_range, 120)
{
	NEW(1, "width=32 clock=manual rcs=1 blocks=ucf,pcie");
	program_counter0(_metadata, "ucf.0", 0x113, UCF_FILT_ALL, 0);	/* slc_bytes_rd */
	program_counter0(_metadata, "pcie.0.0", 0x4, 0xff, 0x1f);	/* rd_cum_outs */

	/* 2^31 bytes, then one more transaction */
	EXPECT_EQ(0, inject("size=4096 count=524288"));
	EXPECT_EQ(-ERANGE, inject("size=4096 count=524289"));
	EXPECT_EQ(0, inject("size=4096 count=524288"));
	EXPECT_EQ(0, inject("size=4096 count=524288"));
	/* 3 x 2^31 wrapped once: 2^31 left and the overflow flag */
	EXPECT_EQ(0x80000000U, R32("ucf.0", PMEVCNTR32(0)));
	EXPECT_EQ(1U, R32("ucf.0", PMOVSSET) & 1);

	/* PCIe reads add their latency in cycles: 1024 ns at 1 GHz x 2^21 */
	EXPECT_EQ(0, inject("rc=0 size=1 lat=1024 count=2097152"));
	EXPECT_EQ(-ERANGE, inject("rc=0 size=1 lat=1024 count=2097153"));
	EXPECT_EQ(0x80000000U, R32("pcie.0.0", PMEVCNTR32(0)));
	EXPECT_EQ(0U, R32("pcie.0.0", PMOVSSET));
	/* latency counts nowhere here: writes, and reads that are not PCIe */
	EXPECT_EQ(0, inject("rc=0 op=wr size=1 lat=1024 count=2097153"));
	EXPECT_EQ(0, inject("size=1 lat=1024 count=2097153"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* Flows: every PMU at most at its documented rate. */
TEST_F_TIMEOUT(sim, flow_bounds, 120)
{
	NEW(1, "clock_mhz=2000 rcs=2 blocks=ucf");
	/* 1024 PCIe reads in flight: rd_cum_outs adds 2048 per ns at 2 GHz */
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 rc=0 size=1 lat=1024 rate=1000000000"));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "flows", "add id=2 rc=0 size=1 lat=1 rate=1"));
	/* writes are not outstanding reads; another root complex has its own */
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=2 rc=0 op=wr size=1 lat=100000 rate=1000"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=3 rc=1 size=1 lat=1024 rate=1000000000"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "clear"));

	/* 512 bytes per ns per socket (UCF, PCIE-TGT) */
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 to_rc=1 size=128 rate=4000000000"));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "flows", "add id=2 size=1 rate=1"));
	/* a stopped flow takes nothing */
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "stop id=1"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=2 size=128 rate=4000000000"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "del id=2"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=2 size=128 rate=4000000000"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * With the manual clock, one advance may move a counter by at most half
 * its range, as the hardware would between two of the driver's polls.
 */
TEST_F_TIMEOUT(sim, advance_half_range, 120)
{
	NEW(1, "width=32 clock=manual rcs=0 blocks=ucf");
	/* cycles: one per ns at 1 GHz */
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "%llu", (1ULL << 31) + 1));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu", 1ULL << 31));
	/* 512 bytes per ns */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 size=128 rate=4000000000"));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "%llu", (1ULL << 22) + 1));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu", 1ULL << 22));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * A flow at the fastest rate the simulator allows, on a width=32 device:
 * perf's counts stay exact across several wraps.  The clock is manual,
 * so that the test does not depend on how promptly a loaded (emulated)
 * machine runs the driver's poll timer: each step advances the counter
 * by exactly half its range, the most the simulator allows between two
 * polls, and then either the driver's poll timer or a perf read samples
 * it.  The test runs on the PMU's CPU and sleeps past the poll period,
 * so the pinned poll timer, which expires first, has run when it wakes.
 */
static void wrap_run(struct __test_metadata *_metadata, const char *pmu,
		     const char *ev, const char *flow, uint64_t per_txn,
		     uint64_t step_ns, unsigned int poll_us)
{
	uint64_t txns, bytes, req, cnt, v;
	unsigned int i, steps = 16;
	cpu_set_t cpus;
	int fr, fc;

	CPU_ZERO(&cpus);
	CPU_SET(pmu_cpu(pmu), &cpus);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));
	fr = pmu_open(pmu, "rd_req", -1);
	ASSERT_LE(0, fr);
	fc = pmu_open(pmu, ev, -1);
	ASSERT_LE(0, fc);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 %s", flow));
	/* one ns more would be more than half the range */
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "%llu",
				   (unsigned long long)step_ns + 1));
	for (i = 0; i < steps; i++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu",
				     (unsigned long long)step_ns));
		if (i & 1) {
			ASSERT_EQ(0, count_read(fc, &v));
		} else {
			usleep(2 * poll_us + 1000);
		}
	}
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "stop id=1"));
	ASSERT_EQ(0, sim_flow_totals(SIM_ID, 1, &txns, &bytes));
	req = count_of(_metadata, fr);
	cnt = count_of(_metadata, fc);
	TH_LOG("%s: %llu transactions, %s %llu (%llu wraps)", pmu,
	       (unsigned long long)txns, ev, (unsigned long long)cnt,
	       (unsigned long long)(cnt >> 32));
	EXPECT_EQ(txns, req);
	EXPECT_EQ(txns * per_txn, cnt);
	/* each step is half the range */
	EXPECT_EQ((uint64_t)steps << 31, txns * per_txn);
	close(fr);
	close(fc);
}

TEST_F_TIMEOUT(sim, pcie_wrap_32bit, 120)
{
	NEW(1, "width=32 clock=manual clock_mhz=2000 rcs=1 blocks=pcie");
	/*
	 * 1024 reads of 1024 ns in flight: rd_cum_outs adds 2048 cycles per
	 * read, 2048 per ns; the driver polls every 2^31 / 2048 ns.
	 */
	wrap_run(_metadata, "nvidia_pcie_pmu_0_rc_0", "rd_cum_outs",
		 "rc=0 size=1 lat=1024 rate=1000000000", 2048, 1ULL << 20, 1049);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

TEST_F_TIMEOUT(sim, pcie_tgt_wrap_32bit, 120)
{
	NEW(1, "width=32 clock=manual rcs=1 blocks=tgt");
	/* 512 bytes per ns; the driver polls every 2^31 / 512 ns */
	wrap_run(_metadata, "nvidia_pcie_tgt_pmu_0_rc_0", "rd_bytes",
		 "to_rc=0 size=512 rate=1000000000", 512, 1ULL << 22, 4195);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* ---- ground truth never wraps ---------------------------------------- */

TEST_F_TIMEOUT(sim, inject_u64_edges, 120)
{
	NEW(1, "width=64 clock=manual rcs=1 blocks=pcie,cmem,c2c");
	program_counter0(_metadata, "pcie.0.0", 0x4, 0xff, 0x1f);	/* rd_cum_outs */
	/* 2^40 reads of 2^23 cycles: 2^63 */
	EXPECT_EQ(0, inject("rc=0 size=1 lat=8388608 count=1099511627776"));
	EXPECT_EQ(1ULL << 63, R64("pcie.0.0", PMEVCNTR64(0)));
	EXPECT_EQ(-ERANGE, inject("rc=0 size=1 lat=8388609 count=1099511627776"));
	/* 2^72 does not fit in 64 bits */
	EXPECT_EQ(-ERANGE, inject("rc=0 size=1 lat=4294967295 count=1099511627776"));
	EXPECT_EQ(1ULL << 63, R64("pcie.0.0", PMEVCNTR64(0)));

	/* CMEM: 42 x 2^32 requests, 2^32 per memory controller, 2^31 cycles each */
	W32("cmem.0", CMEM_BCAST + CMEM_CG_CTRL, 1);
	W32("cmem.0", CMEM_BCAST + CMEM_CTRL, 1);
	EXPECT_EQ(0, inject("size=32 lat=2147483648 count=180388626432"));
	EXPECT_EQ(1ULL << 63, R64("cmem.0", CMEM_INST(0) + CMEM_AOR(0)));
	EXPECT_EQ(1ULL << 63, R64("cmem.0", CMEM_INST(13) + CMEM_AOR(2)));
	EXPECT_EQ(-ERANGE, inject("size=32 lat=2147483649 count=180388626432"));

	/* NVLink-C2C: GPU 0's 7 instances, 2^32 reads each of 2^31 cycles */
	W32("c2c.0", 14 * 0x1000 + C2C_CTRL, 1);
	EXPECT_EQ(0, inject("dst=loc_gmem gpu=0 lat=2147483648 count=30064771072"));
	EXPECT_EQ(1ULL << 63, R64("c2c.0", C2C_OUT_RD_CUM));
	EXPECT_EQ(1ULL << 63, R64("c2c.0", 6 * 0x1000 + C2C_OUT_RD_CUM));
	EXPECT_EQ(-ERANGE, inject("dst=loc_gmem gpu=0 lat=2147483649 count=30064771072"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * A link instance's page: the 64-bit counters at 4-byte aligned offsets,
 * cycles and the incoming ones from 0x86c, the outgoing ones from 0x898,
 * each read in halves; around and between them nothing (RAZ), and the
 * broadcast page is write-only.
 */
TEST_F_TIMEOUT(sim, link_register_map, 120)
{
	unsigned int i;

	NEW(1, "clock=manual rcs=1 blocks=c2c");
	W32("c2c.0", 14 * 0x1000 + C2C_CTRL, 1);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%u", 1000));
	/* GPU 0's 7 instances: 2 reads each of 2^31 cycles */
	ASSERT_EQ(0, inject("dst=loc_gmem gpu=0 lat=2147483648 count=14"));
	for (i = 0; i < 7; i += 6) {
		uint32_t p = 0x1000 * i;

		EXPECT_EQ(1U, R32("c2c.0", p + C2C_CTRL));
		EXPECT_EQ(1000U, R32("c2c.0", p + C2C_CYCLES));
		EXPECT_EQ(0U, R32("c2c.0", p + C2C_CYCLES + 4));
		EXPECT_EQ(0U, R32("c2c.0", p + C2C_OUT_RD_CUM));
		EXPECT_EQ(1U, R32("c2c.0", p + C2C_OUT_RD_CUM + 4));
		EXPECT_EQ(1ULL << 32, R64("c2c.0", p + C2C_OUT_RD_CUM));
		EXPECT_EQ(2U, R32("c2c.0", p + C2C_OUT_RD_CUM + 8));
		EXPECT_EQ(0U, R32("c2c.0", p + C2C_OUT_RD_CUM + 12));
		/* reserved: below the control, before and after the outgoing ones */
		EXPECT_EQ(0U, R32("c2c.0", p + C2C_CTRL - 4));
		EXPECT_EQ(0U, R32("c2c.0", p + C2C_OUT_RD_CUM - 4));
		EXPECT_EQ(0U, R32("c2c.0", p + C2C_OUT_RD_CUM + 4 * 8));
		EXPECT_EQ(0U, R32("c2c.0", p + C2C_OUT_RD_CUM + 4 * 8 + 4));
	}
	EXPECT_EQ(0U, R32("c2c.0", 14 * 0x1000 + C2C_CTRL));
	EXPECT_EQ(0U, R32("c2c.0", 14 * 0x1000 + C2C_CYCLES));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * CMEM: read requests go round-robin over the 42 memory controllers
 * whether or not their counters count, so the next counted one goes
 * where the round-robin has got to.
 */
TEST_F_TIMEOUT(sim, cmem_round_robin_while_off, 120)
{
	NEW(1, "clock=manual blocks=cmem");
	/* 5 requests, none counted: the next is slot 5, instance 1's MC 2 */
	EXPECT_EQ(0, inject("size=32 lat=1 count=5"));
	W32("cmem.0", CMEM_BCAST + CMEM_CG_CTRL, 1);
	W32("cmem.0", CMEM_BCAST + CMEM_CTRL, 1);	/* enable */
	EXPECT_EQ(0, inject("size=32 lat=1 count=1"));
	EXPECT_EQ(0ULL, R64("cmem.0", CMEM_INST(0) + CMEM_REQ(0)));
	EXPECT_EQ(1ULL, R64("cmem.0", CMEM_INST(1) + CMEM_REQ(2)));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* Latencies of CMEM and link traffic: at most 1024 requests in flight. */
TEST_F_TIMEOUT(sim, flow_bounds_latency, 120)
{
	NEW(1, "clock_mhz=2000 rcs=0 blocks=ucf");
	/* CMEM: 2048 per ns on each memory controller's outstanding counter */
	/* (2 x 10^6 requests per s of 1024000 cycles on each of the 42) */
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 size=32 lat=512000 rate=84000000"));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "flows", "add id=2 size=32 lat=1 rate=42"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "clear"));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "flows", "add id=1 size=32 lat=512001 rate=84000000"));

	/* links: 2048 per ns on each instance (GPU 0 has 7 of NVLink-C2C) */
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 dst=loc_gmem gpu=0 lat=512000 rate=14000000"));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "flows", "add id=2 dst=loc_gmem gpu=0 lat=1 rate=7"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=2 dst=loc_gmem gpu=1 lat=512000 rate=14000000"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* Sim time ends at 2^52 ns: no total can wrap before that. */
TEST_F_TIMEOUT(sim, sim_time_bounded, 120)
{
	uint64_t txns = 0, bytes = 0, now = 0;

	NEW(1, "width=64 clock=manual rcs=0 blocks=ucf");
	/* the socket's 512 bytes per ns, for all of sim time */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 size=128 rate=4000000000"));
	EXPECT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu", 1ULL << 52));
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "1"));
	ASSERT_EQ(0, sim_get(SIM_ID, "now_ns", &now));
	EXPECT_EQ(1ULL << 52, now);
	ASSERT_EQ(0, sim_flow_totals(SIM_ID, 1, &txns, &bytes));
	EXPECT_EQ(1ULL << 54, txns);
	EXPECT_EQ(1ULL << 61, bytes);
	EXPECT_EQ(0, sim_del(SIM_ID));

	/* the realtime clock stops there */
	NEW(1, "width=64 clock=manual rcs=0 blocks=ucf");
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu", (1ULL << 52) - 1000));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "clock", "realtime"));
	usleep(10000);
	ASSERT_EQ(0, sim_get(SIM_ID, "now_ns", &now));
	EXPECT_EQ(1ULL << 52, now);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* ---- one BDF comparator per root complex ----------------------------- */

#define BDF_EN		(1U << 24)
#define BDF(b)		((uint32_t)(b) << 8)

TEST_F_TIMEOUT(sim, pcie_one_bdf_comparator, 120)
{
	unsigned int n;

	NEW(1, "clock=manual rcs=5 blocks=pcie");
	/* RC 4: port 0 owns buses 00-3f, port 1 40-bf, port 2 c0-ff */
	for (n = 0; n < 3; n++) {
		W32("pcie.0.4", PMEVTYPER(n), 0x2);	/* rd_req */
		W32("pcie.0.4", PMEVFILT2R(n), 0x1f);
	}
	W32("pcie.0.4", PMEVFILTR(0), BDF_EN | BDF(0x0180));
	W32("pcie.0.4", PMEVFILTR(1), BDF_EN | BDF(0x4180));
	W32("pcie.0.4", PMEVFILTR(2), 0x1);	/* root port 0 */
	W32("pcie.0.4", PMCNTENSET, 7);
	W32("pcie.0.4", PMCR, 1);
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 count=3"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x4180 count=5"));
	/* the last BDF written is the one both counters compare with */
	EXPECT_EQ(5ULL, R64("pcie.0.4", PMEVCNTR64(0)));
	EXPECT_EQ(5ULL, R64("pcie.0.4", PMEVCNTR64(1)));
	EXPECT_EQ(3ULL, R64("pcie.0.4", PMEVCNTR64(2)));
	/* the registers read back as written */
	EXPECT_EQ(BDF_EN | BDF(0x0180), R32("pcie.0.4", PMEVFILTR(0)));
	/* rewriting counter 0's filter moves the comparator for both */
	W32("pcie.0.4", PMEVFILTR(0), BDF_EN | BDF(0x0180));
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 count=7"));
	ASSERT_EQ(0, inject("rc=4 bdf=0x4180 count=11"));
	EXPECT_EQ(12ULL, R64("pcie.0.4", PMEVCNTR64(0)));
	EXPECT_EQ(12ULL, R64("pcie.0.4", PMEVCNTR64(1)));
	/* a filter without BDF_EN leaves the comparator alone */
	W32("pcie.0.4", PMEVFILTR(2), 0x2);
	ASSERT_EQ(0, inject("rc=4 bdf=0x0180 count=1"));
	EXPECT_EQ(13ULL, R64("pcie.0.4", PMEVCNTR64(1)));
	/* and another root complex has its own */
	program_counter0(_metadata, "pcie.0.1", 0x2, BDF_EN | BDF(0x8100), 0x1f);
	ASSERT_EQ(0, inject("rc=1 bdf=0x8100 count=2"));
	EXPECT_EQ(2ULL, R64("pcie.0.1", PMEVCNTR64(0)));
	EXPECT_EQ(13ULL, R64("pcie.0.4", PMEVCNTR64(1)));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* ---- what the driver leaves behind ----------------------------------- */

TEST_F_TIMEOUT(sim, driver_clears_filters_and_slots, 120)
{
	int a, b;

	NEW(1, "clock=manual rcs=1 blocks=ucf,pcie,tgt");
	a = pmu_open("nvidia_pcie_tgt_pmu_0_rc_0",
		     "rd_req,dst_addr_base=0x10000,dst_addr_mask=0xfff00,dst_addr_en=1", -1);
	ASSERT_LE(0, a);
	b = pmu_open("nvidia_pcie_tgt_pmu_0_rc_0",
		     "rd_bytes,dst_addr_base=0x10000,dst_addr_mask=0xfff00,dst_addr_en=1", -1);
	ASSERT_LE(0, b);
	EXPECT_EQ(1U, R32("tgt.0.0", TGT_SLOT(0)));
	EXPECT_EQ(1U << 8, R32("tgt.0.0", PMEVFILT2R(0)));
	EXPECT_EQ(1U << 8, R32("tgt.0.0", PMEVFILT2R(1)));
	/* the slot stays while it has a user */
	close(a);
	EXPECT_EQ(0U, R32("tgt.0.0", PMEVFILT2R(0)));
	EXPECT_EQ(1U, R32("tgt.0.0", TGT_SLOT(0)));
	close(b);
	EXPECT_EQ(0U, R32("tgt.0.0", PMEVFILT2R(1)));
	EXPECT_EQ(0U, R32("tgt.0.0", TGT_SLOT(0)));

	a = pmu_open("nvidia_pcie_pmu_0_rc_0", "rd_req,src_bdf=0x0100,src_bdf_en=1,dst_rem=1", -1);
	ASSERT_LE(0, a);
	EXPECT_EQ(BDF_EN | BDF(0x0100), R32("pcie.0.0", PMEVFILTR(0)));
	EXPECT_EQ(0x10U, R32("pcie.0.0", PMEVFILT2R(0)));
	close(a);
	EXPECT_EQ(0U, R32("pcie.0.0", PMEVFILTR(0)));
	EXPECT_EQ(0U, R32("pcie.0.0", PMEVFILT2R(0)));

	a = pmu_open("nvidia_ucf_pmu_0", "slc_access,src_rem=1", -1);
	ASSERT_LE(0, a);
	EXPECT_EQ(0xf04U, R32("ucf.0", PMEVFILTR(0)));
	close(a);
	EXPECT_EQ(0U, R32("ucf.0", PMEVFILTR(0)));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* ---- input checks ----------------------------------------------------- */

TEST_F_TIMEOUT(sim, input_errors, 120)
{
	sim_del(SIM_ID);
	/* nothing above UINT_MAX is truncated into range */
	EXPECT_EQ(-EINVAL, write_str(SIM_BUS "/new_device", "4294967312 1"));	/* 2^32 + 16 */
	EXPECT_EQ(-EINVAL, write_str(SIM_BUS "/new_device", "16 4294967297"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "width=4294967328"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "counters=4294967297"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "clock_mhz=4294968296"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "rcs=4294967297"));
	EXPECT_EQ(-ENOENT, sim_del(SIM_ID));

	NEW(1, "clock=manual rcs=1 blocks=ucf");
	/* an empty transaction is no transaction */
	EXPECT_EQ(-EINVAL, inject(""));
	EXPECT_EQ(-EINVAL, inject("\n"));
	EXPECT_EQ(-EINVAL, inject("  "));
	/* 255 is no root complex either */
	EXPECT_EQ(-EINVAL, inject("rc=255"));
	EXPECT_EQ(-EINVAL, inject("to_rc=255"));
	EXPECT_EQ(-EINVAL, inject("rc=256"));
	/* flows have a rate, not a count */
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "flows", "add id=1 rate=1 count=5"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "flows", "add id=1 rate=1 count=1"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "flows", "stop id=1 count=1"));
	EXPECT_EQ(0, inject("count=1"));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* ---- blocks= ---------------------------------------------------------- */

TEST_F_TIMEOUT(sim, blocks_option, 120)
{
	static const char * const names[] = {
		"ucf", "cmem", "pcie", "tgt", "c2c", "clink", "dlink",
	};
	static const char * const files[] = {
		"ucf.0", "cmem.0", "pcie.0.0", "tgt.0.0", "c2c.0", "clink.0", "dlink.0",
	};
	char opts[64];
	unsigned int i, j;
	int fd;

	sim_del(SIM_ID);
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=bogus"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks="));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=ucf,,pcie"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=ucf,"));

	ASSERT_EQ(0, sim_new(SIM_ID, 2, "blocks=ucf,tgt rcs=2 clock=manual"));
	EXPECT_TRUE(pmu_exists("nvidia_ucf_pmu_1"));
	EXPECT_TRUE(pmu_exists("nvidia_pcie_tgt_pmu_1_rc_1"));
	EXPECT_FALSE(pmu_exists("nvidia_cmem_latency_pmu_0"));
	EXPECT_FALSE(pmu_exists("nvidia_pcie_pmu_0_rc_0"));
	EXPECT_FALSE(pmu_exists("nvidia_nvlink_c2c_pmu_0"));
	EXPECT_FALSE(pmu_exists("nvidia_nvclink_pmu_0"));
	EXPECT_FALSE(pmu_exists("nvidia_nvdlink_pmu_0"));
	/* traffic works as before on what is there */
	fd = pmu_open("nvidia_pcie_tgt_pmu_0_rc_1", "rd_req", -1);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, inject("rc=0 to_rc=1 count=3"));
	EXPECT_EQ(3ULL, count_of(_metadata, fd));
	close(fd);
	EXPECT_EQ(0, sim_del(SIM_ID));

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(opts, sizeof(opts), "blocks=%s rcs=1", names[i]);
		NEW(1, opts);
		for (j = 0; j < ARRAY_SIZE(files); j++) {
			const char *f = files[j];

			EXPECT_EQ(i == j, regs_exists(f)) TH_LOG("%s: %s", opts, f);
		}
		EXPECT_EQ(0, sim_del(SIM_ID));
	}
}

/* ---- each block keeps up with time on its own ------------------------ */

/* Requests of all 42 memory controllers of cmem.0 */
static uint64_t cmem_requests(struct __test_metadata *_metadata)
{
	uint64_t sum = 0;
	unsigned int i, mc;

	for (i = 0; i < 14; i++)
		for (mc = 0; mc < 3; mc++)
			sum += R64("cmem.0", CMEM_INST(i) + 0x820 + 0x18 * mc);
	return sum;
}

/*
 * Blocks are brought up to date only when accessed: whatever the order of
 * accesses, stops and deletions, each counts every transaction at its
 * time, as if all were always up to date.
 */
TEST_F_TIMEOUT(sim, blocks_catch_up_exact, 120)
{
	NEW(1, "clock=manual rcs=1 blocks=ucf,cmem,pcie");
	program_counter0(_metadata, "ucf.0", 0x0, UCF_FILT_ALL, 0);	/* slc_access */
	program_counter0(_metadata, "pcie.0.0", 0x2, 0xff, 0x1f);	/* rd_req */
	W32("cmem.0", CMEM_BCAST + CMEM_CG_CTRL, 1);
	W32("cmem.0", CMEM_BCAST + CMEM_CTRL, 1);
	/* 10^6 PCIe reads per s: UCF, CMEM and PCIE see them */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=1 rc=0 size=32 lat=100 rate=1000000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	EXPECT_EQ(1000ULL, R64("ucf.0", PMEVCNTR64(0)));
	/* the UCF counter stops; PCIE and CMEM have not been looked at */
	W32("ucf.0", 0xc20, 1);		/* PMCNTENCLR */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "stop id=1"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	EXPECT_EQ(1000ULL, R64("ucf.0", PMEVCNTR64(0)));
	EXPECT_EQ(2000ULL, R64("pcie.0.0", PMEVCNTR64(0)));
	EXPECT_EQ(2000ULL, cmem_requests(_metadata));
	/* a flow deleted while a block lags still counts there */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "add id=2 rc=0 size=32 rate=1000000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "500000"));
	ASSERT_EQ(0, inject("rc=0 size=32 count=7"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "500000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "del id=2"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	EXPECT_EQ(3007ULL, R64("pcie.0.0", PMEVCNTR64(0)));
	EXPECT_EQ(3007ULL, cmem_requests(_metadata));
	EXPECT_EQ(1000ULL, R64("ucf.0", PMEVCNTR64(0)));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* The debugfs stats file: catch_ups and locked_xfers, or -1 each. */
static void read_stats(uint64_t *catch_ups, uint64_t *locked)
{
	if (sim_stat(SIM_ID, "catch_ups", catch_ups) ||
	    sim_stat(SIM_ID, "locked_xfers", locked))
		*catch_ups = *locked = ~0ULL;
}

/*
 * The stats count what a register access cost the simulator: a read of
 * a block that time has passed for brings it up to date under the lock,
 * a read of a fresh one takes neither, a write always takes the lock.
 */
TEST_F_TIMEOUT(sim, stats, 120)
{
	uint64_t c0, l0, c, l;

	NEW(1, "clock=manual rcs=1 blocks=ucf");
	read_stats(&c0, &l0);
	ASSERT_NE(~0ULL, c0);
	EXPECT_EQ(0ULL, R64("ucf.0", PMEVCNTR64(0)));
	read_stats(&c, &l);
	EXPECT_EQ(c0, c);
	EXPECT_EQ(l0, l);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000"));
	EXPECT_EQ(0ULL, R64("ucf.0", PMEVCNTR64(0)));
	read_stats(&c, &l);
	EXPECT_EQ(c0 + 1, c);
	EXPECT_EQ(l0 + 1, l);
	EXPECT_EQ(0ULL, R64("ucf.0", PMEVCNTR64(0)));
	W32("ucf.0", PMEVTYPER(0), 0x0);
	read_stats(&c, &l);
	EXPECT_EQ(c0 + 1, c);
	EXPECT_EQ(l0 + 2, l);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/*
 * A link block's reads change nothing, as the others' do not: a read of a
 * fresh one takes no lock.  While upmu_sim's c2c_carry has carries to
 * inject, a read of a high half changes its counter: then every read
 * takes the lock.
 */
TEST_F_TIMEOUT(sim, link_reads_take_no_lock, 120)
{
	const char *carry = "/sys/module/upmu_sim/parameters/c2c_carry";
	uint64_t c0, l0, c, l;

	NEW(1, "clock=manual rcs=0 blocks=clink");
	EXPECT_EQ(0U, R32("clink.0", C2C_CYCLES));
	read_stats(&c0, &l0);
	ASSERT_NE(~0ULL, c0);
	EXPECT_EQ(0U, R32("clink.0", C2C_CYCLES + 4));
	EXPECT_EQ(0ULL, R64("clink.0", 0x1000 * 11 + C2C_CYCLES));
	read_stats(&c, &l);
	EXPECT_EQ(c0, c);
	EXPECT_EQ(l0, l);
	ASSERT_EQ(0, write_str(carry, "1"));
	EXPECT_EQ(0U, R32("clink.0", C2C_CYCLES + 4));
	ASSERT_EQ(0, write_str(carry, "0"));
	read_stats(&c, &l);
	EXPECT_EQ(c0, c);
	EXPECT_EQ(l0 + 1, l);
	EXPECT_EQ(0, sim_del(SIM_ID));
}

TEST_HARNESS_MAIN
