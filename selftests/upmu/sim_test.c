// SPDX-License-Identifier: GPL-2.0
/*
 * The upmu simulator at register level, through its debugfs regs/ files
 * (devmem-like: pread/pwrite at offset = register offset, through the
 * accessors the driver uses): the files and what they reach, the
 * CoreSight counter layout.
 * Needs upmu_core, upmu_sim and upmu_t410 loaded, 2 NUMA nodes.
 */

#include <errno.h>
#include <fcntl.h>
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

/* A fresh device @SIM_ID with @sockets sockets and @opts. */
#define NEW(sockets, opts) do {						\
		sim_del(SIM_ID);					\
		ASSERT_EQ(0, sim_new(SIM_ID, sockets, opts));		\
	} while (0)

TEST(regs_files)
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

TEST(regs_access)
{
	uint32_t v32;
	uint64_t v64;
	int fd, fdr;
	char path[128];

	NEW(1, "clock=manual counters=8 rcs=2");
	/* identification: PMCFGR = cycle counter, 48 bits, 8 counters */
	EXPECT_EQ(0x4000U | (47U << 8) | 7U, R32("ucf.0", PMCFGR));
	EXPECT_EQ(0x2cf2036bU, R32("ucf.0", PMIIDR));
	EXPECT_EQ(0x1030136bU, R32("pcie.0.1", PMIIDR));
	EXPECT_EQ(0x1070136bU, R32("tgt.0.1", PMIIDR));

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
TEST(counter_layout_32bit)
{
	unsigned int n;
	uint32_t v;

	NEW(1, "width=32 clock=manual counters=8 rcs=0");
	EXPECT_EQ(31U, (R32("ucf.0", PMCFGR) >> 8) & 0x3f);
	program_ucf_counters(_metadata);
	for (n = 0; n < 8; n++)
		EXPECT_EQ(256U - (1U << n), R32("ucf.0", PMEVCNTR32(n))) TH_LOG("counter %u", n);
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
TEST(counter_layout_64bit)
{
	static const char * const opts[] = {
		"width=33 clock=manual counters=8 rcs=0",
		"width=48 clock=manual counters=8 rcs=0",
		"width=64 clock=manual counters=8 rcs=0",
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
	EXPECT_EQ(0, sim_del(SIM_ID));
}

TEST_HARNESS_MAIN
