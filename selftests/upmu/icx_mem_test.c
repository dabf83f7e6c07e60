// SPDX-License-Identifier: GPL-2.0
/*
 * Ice Lake-X CHA, IMC and UPI PMUs (upmu_icx) on a simulated 2-socket
 * Ice Lake-X (new_device soc=icx): formats and events as upstream's,
 * exact counts of the TOR, CAS and flit events per box for a known mix
 * of device traffic (L3 hits and misses, full and partial writes, local
 * and remote memory), counter constraints, reserved bits, and perf
 * stat (Debian's perf and $UPMU_PERF) on perf's own Ice Lake-X event
 * names and metrics.
 *
 * Needs what icx_test needs: upmu_core and upmu_sim loaded, UPMU_MODDIR,
 * 4 CPUs on 2 packages (socket 1 is CPUs 2 and 3).  The clock is manual
 * and runs at 1000 MHz: 1 ns of latency is 1 cycle.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "kselftest_harness.h"

#define SIM_ID	12

#include "upmu_test.h"
#include "icx_test.h"

#define CHA(n)	"uncore_cha_" #n
#define IMC(n)	"uncore_imc_" #n
#define UPI(n)	"uncore_upi_" #n
#define NR_CHAS	8
#define NR_IMCS	12
#define NR_UPIS	3
#define NR_M2MS	4
#define MAX_CHAS	40	/* cha= of new_device, at most */

/* perf's Ice Lake-X JSON: TOR inserts of device requests (event 0x35) */
#define TOR(um)			"event=0x35,umask=" um
#define IO_MISS_PCIRDCUR	TOR("0xc8f3fe04")
#define IO_HIT_PCIRDCUR		TOR("0xc8f3fd04")
#define IO_PCIRDCUR		TOR("0xc8f3ff04")
#define IO_PCIRDCUR_LOCAL	TOR("0xc8f2ff04")
#define IO_PCIRDCUR_REMOTE	TOR("0xc8f37f04")
#define IO_MISS_ITOM		TOR("0xcc43fe04")
#define IO_HIT_ITOM		TOR("0xcc43fd04")
#define IO_MISS_ITOMCACHENEAR	TOR("0xcd43fe04")
#define IO_ITOMCACHENEAR	TOR("0xcd43ff04")
#define IO_MISS_RFO		TOR("0xc803fe04")
#define OCC_IO_MISS_PCIRDCUR	"event=0x36,umask=0xc8f3fe04"
/* ... and of a core's requests (IA): DRD, RFO, CRD */
#define IA_DRD			TOR("0xc817ff01")
#define IA_MISS_DRD		TOR("0xc817fe01")
#define IA_HIT_DRD		TOR("0xc817fd01")
#define IA_MISS_DRD_LOCAL	TOR("0xc816fe01")
#define IA_MISS_DRD_REMOTE	TOR("0xc8177e01")
#define IA_MISS_RFO		TOR("0xc807fe01")
#define IA_HIT_RFO		TOR("0xc807fd01")
#define IA_MISS_RFO_REMOTE	TOR("0xc8077e01")
#define IA_MISS_CRD		TOR("0xc80ffe01")
#define IA_MISS_CRD_LOCAL	TOR("0xc80efe01")
#define IA_MISS_ALL		TOR("0xc001fe01")	/* all opcodes */
#define OCC_IA_MISS_DRD		"event=0x36,umask=0xc817fe01"
#define IA_MISS_DRD_DDR		TOR("0xc8178601")
#define IA_MISS_DRD_PMM		TOR("0xc8178a01")
#define IA_MISS_DRD_LOCAL_PMM	TOR("0xc8168a01")
#define IA_MISS_DRD_REMOTE_PMM	TOR("0xc8170a01")
#define OCC_IA_MISS_DRD_PMM	"event=0x36,umask=0xc8178a01"
/* requests into a CHA's home agent (event 0x50) */
#define REQ_READS_LOCAL		"event=0x50,umask=0x1"
#define REQ_READS_REMOTE	"event=0x50,umask=0x2"
#define REQ_WRITES_LOCAL	"event=0x50,umask=0x4"
#define REQ_WRITES_REMOTE	"event=0x50,umask=0x8"
#define REQ_READS		"event=0x50,umask=0x3"
#define PMM_RPQ			"event=0xe3"
#define PMM_WPQ			"event=0xe7"
#define CAS_RD			"event=0x4,umask=0xf"
#define CAS_WR			"event=0x4,umask=0x30"
#define TXL_DATA		"event=0x2,umask=0xf"
#define TXL_NON_DATA		"event=0x2,umask=0x97"
#define RXL_DATA		"event=0x3,umask=0xf"
#define RXL_NON_DATA		"event=0x3,umask=0x97"

FIXTURE(icx_mem) {
	int dummy;
};

FIXTURE_SETUP(icx_mem)
{
	icx_fixture_setup(_metadata, UPI(2));
}

FIXTURE_TEARDOWN_PARENT(icx_mem)
{
	icx_fixture_teardown(_metadata);
}

/* The name of box @i of @kind ("cha", "imc", "upi"). */
static const char *box_name(const char *kind, unsigned int i)
{
	static char name[8][32];
	static unsigned int next;
	char *n = name[next++ % 8];

	snprintf(n, sizeof(name[0]), "uncore_%s_%u", kind, i);
	return n;
}

/**
 * struct box_ev - one event opened on every box of a kind on a socket
 * @fd: per box
 * @nr: boxes
 */
struct box_ev {
	int fd[MAX_CHAS];
	unsigned int nr;
};

static void box_open(struct __test_metadata *_metadata, struct box_ev *e,
		     const char *kind, unsigned int nr, const char *spec, int cpu)
{
	unsigned int i;

	e->nr = nr;
	for (i = 0; i < nr; i++) {
		e->fd[i] = ev_open(box_name(kind, i), spec, cpu, -1);
		ASSERT_LE(0, e->fd[i]) TH_LOG("%s/%s/: %s", box_name(kind, i), spec,
					      strerror(-e->fd[i]));
	}
}

/* Each box's count is @want[box]. */
static void box_expect(struct __test_metadata *_metadata, struct box_ev *e,
		       const uint64_t *want, const char *what)
{
	unsigned int i;

	/* braces: EXPECT_*() TH_LOG() is two statements */
	for (i = 0; i < e->nr; i++) {
		EXPECT_EQ(want[i], count_of(_metadata, e->fd[i])) TH_LOG("%s, box %u", what, i);
	}
}

static void box_close(struct box_ev *e)
{
	unsigned int i;

	for (i = 0; i < e->nr; i++)
		close(e->fd[i]);
}

/* Formats exactly as upstream registers them for Ice Lake-X. */
TEST_F(icx_mem, formats)
{
	expect_file(_metadata, CHA(0), "format/event", "config:0-7");
	expect_file(_metadata, CHA(0), "format/umask", "config:8-15,32-57");
	expect_file(_metadata, CHA(0), "format/edge", "config:18");
	expect_file(_metadata, CHA(0), "format/tid_en", "config:19");
	expect_file(_metadata, CHA(0), "format/inv", "config:23");
	expect_file(_metadata, CHA(7), "format/thresh", "config:24-31");
	expect_file(_metadata, CHA(7), "format/filter_tid", "config1:0-9");
	expect_file(_metadata, IMC(0), "format/event", "config:0-7");
	expect_file(_metadata, IMC(0), "format/umask", "config:8-15");
	expect_file(_metadata, IMC(11), "format/edge", "config:18");
	expect_file(_metadata, IMC(11), "format/inv", "config:23");
	expect_file(_metadata, IMC(11), "format/thresh", "config:24-31");
	expect_file(_metadata, UPI(0), "format/event", "config:0-7");
	expect_file(_metadata, UPI(0), "format/umask", "config:8-15,32-55");
	expect_file(_metadata, UPI(2), "format/edge", "config:18");
	expect_file(_metadata, UPI(2), "format/inv", "config:23");
	expect_file(_metadata, UPI(2), "format/thresh", "config:24-31");
}

/* Box counts as upstream's, one owner per die, upstream's IMC events. */
TEST_F(icx_mem, boxes_and_events)
{
	EXPECT_TRUE(pmu_exists(CHA(7)));
	EXPECT_FALSE(pmu_exists(CHA(8)));
	EXPECT_TRUE(pmu_exists(IMC(11)));
	EXPECT_FALSE(pmu_exists(IMC(12)));
	EXPECT_FALSE(pmu_exists(UPI(3)));
	expect_file(_metadata, CHA(3), "cpumask", "0,2");
	expect_file(_metadata, IMC(5), "cpumask", "0,2");
	expect_file(_metadata, UPI(1), "cpumask", "0,2");
	expect_file(_metadata, IMC(0), "events/cas_count_read", "event=0x4,umask=0x0f");
	expect_file(_metadata, IMC(0), "events/cas_count_write", "event=0x4,umask=0x30");
	expect_file(_metadata, IMC(0), "events/cas_count_read.scale", "6.103515625e-5");
	expect_file(_metadata, IMC(0), "events/cas_count_write.unit", "MiB");
	expect_file(_metadata, IMC(0), "events/clockticks", "event=0x0,umask=0x00");
}

/*
 * Device reads: a line per 64 bytes, the n-th line to CHA n % 8, in
 * the TOR events of its outcome (hit or miss) and target (local).
 */
TEST_F(icx_mem, tor_reads_per_cha)
{
	static const char * const cha0[] = {
		IO_MISS_PCIRDCUR, IO_HIT_PCIRDCUR, IO_PCIRDCUR, IO_PCIRDCUR_LOCAL,
	};
	uint64_t want0[] = { 3, 1, 4, 4 };
	int fd[4], r5, m5;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		fd[i] = ev_open(CHA(0), cha0[i], 0, -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s: %s", cha0[i], strerror(-fd[i]));
	}
	r5 = ev_open(CHA(5), IO_PCIRDCUR_REMOTE, 0, -1);
	m5 = ev_open(CHA(5), IO_MISS_PCIRDCUR, 0, -1);
	ASSERT_LE(0, r5);
	ASSERT_LE(0, m5);
	/* 20 lines that miss: 3 on CHAs 0-3, 2 on 4-7; then 8 that hit */
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=256 count=5"));
	ASSERT_EQ(0, inject("socket=0 stack=3 op=rd size=64 count=8 hit=1"));
	/* socket 1's CHAs, and writes, are not these */
	ASSERT_EQ(0, inject("socket=1 stack=0 op=rd size=64 count=8"));
	ASSERT_EQ(0, inject("socket=0 stack=0 op=wr size=64 count=8"));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(want0[i], count_of(_metadata, fd[i])) TH_LOG("event %u", i);
	}
	EXPECT_EQ(0ULL, count_of(_metadata, r5));
	EXPECT_EQ(2ULL, count_of(_metadata, m5));
	close(m5);
	close(r5);
	for (i = 4; i-- > 0;)
		close(fd[i]);
}

/*
 * Device writes: full lines are ITOM, a partial one ITOMCACHENEAR; the
 * misses cost a CAS write per line, and a partial line a CAS read too,
 * the n-th CAS of a kind on channel n % 12.
 */
TEST_F(icx_mem, writes_full_partial_and_cas)
{
	static const uint64_t ones[NR_CHAS] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint64_t none[NR_CHAS];
	static const uint64_t rd[NR_IMCS] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint64_t wr[NR_IMCS] = { 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct box_ev itom, near, hit, rfo, cas_rd, cas_wr;

	box_open(_metadata, &itom, "cha", NR_CHAS, IO_MISS_ITOM, 0);
	box_open(_metadata, &near, "cha", NR_CHAS, IO_MISS_ITOMCACHENEAR, 0);
	box_open(_metadata, &hit, "cha", NR_CHAS, IO_HIT_ITOM, 0);
	box_open(_metadata, &rfo, "cha", NR_CHAS, IO_MISS_RFO, 0);
	box_open(_metadata, &cas_rd, "imc", NR_IMCS, CAS_RD, 0);
	box_open(_metadata, &cas_wr, "imc", NR_IMCS, CAS_WR, 0);
	/* 8 writes of 100 bytes: 8 full lines, 8 partial ones */
	ASSERT_EQ(0, inject("socket=0 stack=2 op=wr size=100 count=8"));
	box_expect(_metadata, &itom, ones, "IO_MISS_ITOM");
	box_expect(_metadata, &near, ones, "IO_MISS_ITOMCACHENEAR");
	box_expect(_metadata, &hit, none, "IO_HIT_ITOM");
	box_expect(_metadata, &rfo, none, "IO_MISS_RFO");
	box_expect(_metadata, &cas_rd, rd, "CAS_COUNT.RD");
	box_expect(_metadata, &cas_wr, wr, "CAS_COUNT.WR");
	/* hits: no CAS */
	ASSERT_EQ(0, inject("socket=0 stack=2 op=wr size=64 count=8 hit=1"));
	box_expect(_metadata, &hit, ones, "IO_HIT_ITOM after hits");
	box_expect(_metadata, &cas_wr, wr, "CAS_COUNT.WR after hits");
	box_close(&cas_wr);
	box_close(&cas_rd);
	box_close(&rfo);
	box_close(&hit);
	box_close(&near);
	box_close(&itom);
}

/*
 * Remote memory: the device's socket's CHAs, the other socket's
 * channels, and 9 data flits per line one way and 1 non-data flit the
 * other way, the n-th line over link n % 3 of both sockets.
 */
TEST_F(icx_mem, remote_cas_and_upi_flits)
{
	static const uint64_t rd1[NR_IMCS] = { 1, 1, 1, 1, 1, 1 };
	static const uint64_t none[NR_IMCS];
	struct box_ev rem, cas0, cas1, tx0, rx0, txn0, tx1, rx1, rxn1;
	static const uint64_t t1[NR_UPIS] = { 18, 18, 18 }, n1[NR_UPIS] = { 2, 2, 2 };
	static const uint64_t c[NR_CHAS] = { 1, 1, 1, 1, 1, 1 };
	static const uint64_t d[NR_UPIS] = { 9 };

	box_open(_metadata, &rem, "cha", NR_CHAS, IO_PCIRDCUR_REMOTE, 0);
	box_open(_metadata, &cas0, "imc", NR_IMCS, CAS_RD, 0);
	box_open(_metadata, &cas1, "imc", NR_IMCS, CAS_RD, 2);
	box_open(_metadata, &tx1, "upi", NR_UPIS, TXL_DATA, 2);
	box_open(_metadata, &rx0, "upi", NR_UPIS, RXL_DATA, 0);
	box_open(_metadata, &txn0, "upi", NR_UPIS, TXL_NON_DATA, 0);
	box_open(_metadata, &rxn1, "upi", NR_UPIS, RXL_NON_DATA, 2);
	box_open(_metadata, &tx0, "upi", NR_UPIS, TXL_DATA, 0);
	box_open(_metadata, &rx1, "upi", NR_UPIS, RXL_DATA, 2);
	/* 6 lines read from socket 1's memory by a device of socket 0 */
	ASSERT_EQ(0, inject("socket=0 stack=1 op=rd size=128 count=3 dst=rem"));
	box_expect(_metadata, &rem, c, "IO_PCIRDCUR_REMOTE");
	box_expect(_metadata, &cas0, none, "socket 0 CAS_COUNT.RD");
	box_expect(_metadata, &cas1, rd1, "socket 1 CAS_COUNT.RD");
	box_expect(_metadata, &tx1, t1, "socket 1 TxL ALL_DATA");
	box_expect(_metadata, &rx0, t1, "socket 0 RxL ALL_DATA");
	box_expect(_metadata, &txn0, n1, "socket 0 TxL NON_DATA");
	box_expect(_metadata, &rxn1, n1, "socket 1 RxL NON_DATA");
	box_expect(_metadata, &tx0, none, "socket 0 TxL ALL_DATA");
	/* a line written to socket 1's memory: over link 0 (the 7th line) */
	ASSERT_EQ(0, inject("socket=0 stack=1 op=wr size=64 count=1 dst=rem"));
	box_expect(_metadata, &tx0, d, "socket 0 TxL ALL_DATA after a write");
	box_expect(_metadata, &rx1, d, "socket 1 RxL ALL_DATA after a write");
	/* hits of remote lines cross nothing */
	ASSERT_EQ(0, inject("socket=0 stack=1 op=rd size=64 count=30 dst=rem hit=1"));
	box_expect(_metadata, &rx0, t1, "socket 0 RxL ALL_DATA after hits");
	box_close(&rx1);
	box_close(&tx0);
	box_close(&rxn1);
	box_close(&txn0);
	box_close(&rx0);
	box_close(&tx1);
	box_close(&cas1);
	box_close(&cas0);
	box_close(&rem);
}

/* TOR occupancy: lines x latency in cycles (Little's law). */
TEST_F(icx_mem, tor_occupancy)
{
	int occ = ev_open(CHA(2), OCC_IO_MISS_PCIRDCUR, 0, -1);
	int ins = ev_open(CHA(2), IO_MISS_PCIRDCUR, 0, -1);

	ASSERT_LE(0, occ);
	ASSERT_LE(0, ins);
	/* 24 lines: 3 on each CHA, 500 cycles each */
	ASSERT_EQ(0, inject("socket=0 stack=4 op=rd size=192 count=8 lat=500"));
	EXPECT_EQ(1500ULL, count_of(_metadata, occ));
	EXPECT_EQ(3ULL, count_of(_metadata, ins));
	close(ins);
	close(occ);
}

/*
 * thresh, inv and edge, judged cycle by cycle: 16 device reads that miss
 * in cycle 0 put 2 lines in each CHA's TOR for 100 cycles and 16 CAS
 * reads on the channels (2 on channels 0-3, 1 on the others), all in
 * that cycle; then 200 cycles pass.
 */
TEST_F(icx_mem, thresh)
{
	static const struct { const char *pmu, *spec; uint64_t want; } ev[] = {
		{ CHA(0), OCC_IO_MISS_PCIRDCUR ",thresh=2", 100 },
		{ CHA(1), OCC_IO_MISS_PCIRDCUR ",thresh=3", 0 },
		{ CHA(2), OCC_IO_MISS_PCIRDCUR ",thresh=3,inv=1", 200 },
		{ CHA(3), OCC_IO_MISS_PCIRDCUR ",thresh=1,edge=1", 1 },
		{ CHA(4), OCC_IO_MISS_PCIRDCUR ",thresh=0xff", 0 },
		{ IMC(0), CAS_RD ",thresh=2", 1 },
		{ IMC(4), CAS_RD ",thresh=2", 0 },
		{ IMC(5), CAS_RD ",thresh=1,inv=1", 199 },
		{ IMC(6), CAS_RD ",thresh=1,inv=1,edge=1", 1 },
		{ UPI(0), "event=0x1,thresh=1", 200 },
		{ UPI(1), "event=0x1,thresh=1,inv=1", 0 },
	};
	int fd[ARRAY_SIZE(ev)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		fd[i] = ev_open(ev[i].pmu, ev[i].spec, 0, -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s/%s/: %s", ev[i].pmu, ev[i].spec,
					   strerror(-fd[i]));
	}
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=16 lat=100"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "200"));
	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		EXPECT_EQ(ev[i].want, count_of(_metadata, fd[i]))
			TH_LOG("%s/%s/", ev[i].pmu, ev[i].spec);
		close(fd[i]);
	}
}

/*
 * The UPI mapping files as upstream's (dieX: "upi_<link>,die_<die>" at the
 * other end): link l of each socket goes to link l of the other.
 */
TEST_F(icx_mem, upi_die_mapping)
{
	char buf[64];

	expect_file(_metadata, UPI(0), "die0", "upi_0,die_1");
	expect_file(_metadata, UPI(0), "die1", "upi_0,die_0");
	expect_file(_metadata, UPI(2), "die0", "upi_2,die_1");
	expect_file(_metadata, UPI(2), "die1", "upi_2,die_0");
	EXPECT_GT(0, pmu_read(CHA(0), "die0", buf, sizeof(buf)));
}

/*
 * The IMC's fixed counter (upstream's DCLK, perf's UNC_M_HCLOCKTICKS):
 * config 0xff, one per cycle, next to the four general counters; one
 * such event per group, and event=0xff with a umask is a general event.
 */
TEST_F(icx_mem, imc_fixed_dclk)
{
	const char *five[] = { CAS_RD, CAS_WR, "event=0x0", CAS_RD, "event=0xff" };
	const char *two[] = { "event=0xff", "event=0xff" };
	const char *six[] = { CAS_RD, CAS_WR, "event=0x0", CAS_RD,
			      "event=0xff", "event=0xff,umask=0x1" };
	int fd[5];
	unsigned int i;

	EXPECT_EQ(-EINVAL, group_of(IMC(0), two, 2));
	EXPECT_EQ(-EINVAL, group_of(IMC(0), six, 6));
	for (i = 0; i < 5; i++) {
		fd[i] = ev_open(IMC(3), five[i], 0, i ? fd[0] : -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s: %s", five[i], strerror(-fd[i]));
	}
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=48"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000"));
	/* 4 CAS reads a channel; the clock twice, general and fixed */
	EXPECT_EQ(4ULL, count_of(_metadata, fd[0]));
	EXPECT_EQ(0ULL, count_of(_metadata, fd[1]));
	EXPECT_EQ(1000ULL, count_of(_metadata, fd[2]));
	EXPECT_EQ(4ULL, count_of(_metadata, fd[3]));
	EXPECT_EQ(1000ULL, count_of(_metadata, fd[4]));
	for (i = 5; i-- > 0;)
		close(fd[i]);
}

/* Clockticks of each kind; the links never enter L1. */
TEST_F(icx_mem, clockticks)
{
	int cha = ev_open(CHA(6), "event=0x0", 2, -1);
	int imc = ev_open(IMC(9), "event=0x0", 2, -1);
	int upi = ev_open(UPI(2), "event=0x1", 2, -1);
	int l1 = ev_open(UPI(2), "event=0x21", 2, -1);

	ASSERT_LE(0, cha);
	ASSERT_LE(0, imc);
	ASSERT_LE(0, upi);
	ASSERT_LE(0, l1);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "123456789"));
	EXPECT_EQ(123456789ULL, count_of(_metadata, cha));
	EXPECT_EQ(123456789ULL, count_of(_metadata, imc));
	EXPECT_EQ(123456789ULL, count_of(_metadata, upi));
	EXPECT_EQ(0ULL, count_of(_metadata, l1));
	close(l1);
	close(upi);
	close(imc);
	close(cha);
}

/* Continuous traffic: the sum over the boxes is exact. */
TEST_F(icx_mem, flows_sum)
{
	struct box_ev miss, cas;
	uint64_t sum = 0, csum = 0;
	unsigned int i;

	box_open(_metadata, &miss, "cha", NR_CHAS, IO_MISS_PCIRDCUR, 0);
	box_open(_metadata, &cas, "imc", NR_IMCS, CAS_RD, 0);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=1 socket=0 stack=0 op=rd size=256 rate=1000000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=2 socket=0 stack=1 op=rd size=64 rate=3000000 hit=1"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	for (i = 0; i < NR_CHAS; i++)
		sum += count_of(_metadata, miss.fd[i]);
	for (i = 0; i < NR_IMCS; i++)
		csum += count_of(_metadata, cas.fd[i]);
	EXPECT_EQ(4000ULL, sum);
	EXPECT_EQ(4000ULL, csum);
	box_close(&cas);
	box_close(&miss);
}

/* upstream's CHA constraints: 0x11 and 0x36 on counter 0 only */
TEST_F(icx_mem, constraints)
{
	const char *four[] = { OCC_IO_MISS_PCIRDCUR, IO_MISS_PCIRDCUR,
			       IO_HIT_PCIRDCUR, "event=0x0" };
	const char *five[] = { IO_MISS_PCIRDCUR, IO_HIT_PCIRDCUR, IO_PCIRDCUR,
			       "event=0x0", IO_MISS_ITOM };
	const char *two_occ[] = { OCC_IO_MISS_PCIRDCUR, "event=0x36,umask=0xc817fe01" };
	const char *occ_11[] = { "event=0x11,umask=0x1", OCC_IO_MISS_PCIRDCUR };
	const char *imc[] = { CAS_RD, CAS_WR, "event=0x0", CAS_RD };
	const char *upi[] = { TXL_DATA, RXL_DATA, TXL_NON_DATA, "event=0x1", "event=0x21" };

	EXPECT_EQ(0, group_of(CHA(0), four, 4));
	EXPECT_EQ(-EINVAL, group_of(CHA(0), five, 5));
	EXPECT_EQ(-EINVAL, group_of(CHA(0), two_occ, 2));
	EXPECT_EQ(-EINVAL, group_of(CHA(0), occ_11, 2));
	EXPECT_EQ(0, group_of(IMC(0), imc, 4));
	EXPECT_EQ(0, group_of(UPI(0), upi, 4));
	EXPECT_EQ(-EINVAL, group_of(UPI(0), upi, 5));
}

/* Bits outside the formats are EINVAL; tid_en and filter_tid are not. */
TEST_F(icx_mem, reserved_bits)
{
	struct perf_event_attr attr;
	int fd;

	ASSERT_EQ(0, pmu_attr(CHA(0), IO_MISS_PCIRDCUR, &attr));
	EXPECT_EQ(0xc8f3fe00000435ULL, attr.config);
	attr.config |= 1ULL << 16;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
	attr.config &= ~(1ULL << 16);
	attr.config |= 1ULL << 58;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
	attr.config &= ~(1ULL << 58);
	attr.config1 = 1ULL << 10;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));

	ASSERT_EQ(0, pmu_attr(UPI(0), TXL_NON_DATA, &attr));
	EXPECT_EQ(0x9702ULL, attr.config);
	attr.config |= 1ULL << 56;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));
	ASSERT_EQ(0, pmu_attr(IMC(0), CAS_RD, &attr));
	attr.config |= 1ULL << 32;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1));

	/*
	 * tid_en with a thread: filter0 gets it, and the counter counts a
	 * core's requests of that thread only (a device's have none)
	 */
	fd = ev_open(CHA(1), IA_MISS_DRD ",tid_en=1,filter_tid=0x3ff", 0, -1);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(-fd));
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=16 tid=0x3ff"));
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=16 tid=5"));
	EXPECT_EQ(2ULL, count_of(_metadata, fd));
	close(fd);
	fd = ev_open(CHA(1), IO_MISS_PCIRDCUR ",tid_en=1,filter_tid=0", 0, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=16"));
	EXPECT_EQ(0ULL, count_of(_metadata, fd));
	close(fd);
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd tid=1024"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 op=rd tid=1"));
}

static int open_times(const char *pmu, const char *spec, int group)
{
	return pmu_open_timed(pmu, spec, 0, group);
}

/*
 * A CHA has one filter0.  An event without tid_en leaves it alone, so an
 * event with tid_en next to it counts its own thread; two events that
 * need different threads are one group never (EINVAL), and in different
 * sessions take turns (perf multiplexes them): each counts its own
 * thread's requests, all of a round's or none, never the other's.
 * Traffic is dealt over the 8 CHAs: CHA 0 sees one line in eight.
 */
#define TID_ROUNDS	50

TEST_F_TIMEOUT(icx_mem, tid_filter0_shared, 120)
{
	uint64_t va[3], vc[3], a0, c0, a1, c1, a2, c2;
	bool ran_a = false, ran_c = false;
	int a, b, c, lead, round;

	a = open_times(CHA(0), IA_MISS_DRD ",tid_en=1,filter_tid=5", -1);
	ASSERT_LE(0, a);
	b = ev_open(CHA(0), IA_MISS_DRD, 0, -1);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=80 tid=5"));
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=40 tid=7"));
	ASSERT_EQ(0, read_times(a, va));
	EXPECT_EQ(10ULL, va[0]);
	EXPECT_EQ(15ULL, count_of(_metadata, b));
	close(b);

	lead = ev_open(CHA(0), IA_MISS_DRD ",tid_en=1,filter_tid=5", 0, -1);
	ASSERT_LE(0, lead);
	EXPECT_EQ(-EINVAL, ev_open(CHA(0), IA_HIT_DRD ",tid_en=1,filter_tid=7", 0, lead));
	b = ev_open(CHA(0), IA_HIT_DRD ",tid_en=1,filter_tid=5", 0, lead);
	EXPECT_LE(0, b);
	close(b);
	close(lead);

	c = open_times(CHA(0), IA_MISS_DRD ",tid_en=1,filter_tid=7", -1);
	ASSERT_LE(0, c) TH_LOG("another session's thread: %d", c);
	for (round = 0; round < TID_ROUNDS && !(ran_a && ran_c); round++) {
		ASSERT_EQ(0, read_times(a, va));
		ASSERT_EQ(0, read_times(c, vc));
		a0 = va[0];
		c0 = vc[0];
		ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=8 tid=5"));
		ASSERT_EQ(0, read_times(a, va));
		ASSERT_EQ(0, read_times(c, vc));
		a1 = va[0];
		c1 = vc[0];
		ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=8 tid=7"));
		ASSERT_EQ(0, read_times(a, va));
		ASSERT_EQ(0, read_times(c, vc));
		a2 = va[0];
		c2 = vc[0];
		ASSERT_EQ(c0, c1);
		ASSERT_TRUE(a1 == a0 || a1 == a0 + 1) TH_LOG("a %llu -> %llu",
			(unsigned long long)a0, (unsigned long long)a1);
		ASSERT_EQ(a1, a2);
		ASSERT_TRUE(c2 == c1 || c2 == c1 + 1) TH_LOG("c %llu -> %llu",
			(unsigned long long)c1, (unsigned long long)c2);
		ran_a |= a1 != a0;
		ran_c |= c2 != c1;
		usleep(2000);
	}
	EXPECT_TRUE(ran_a);
	EXPECT_TRUE(ran_c);
	ASSERT_EQ(0, read_times(a, va));
	ASSERT_EQ(0, read_times(c, vc));
	EXPECT_TRUE(va[2] < va[1] || vc[2] < vc[1]);
	close(c);
	close(a);
}

/* Memory only where there is some. */
TEST_F(icx_mem, dst_option)
{
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 op=rd dst=loc_gmem"));
	EXPECT_EQ(-EINVAL, inject("socket=0 to_stack=0 op=rd dst=rem"));
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "soc=icx clock=manual"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 op=rd dst=rem"));
	EXPECT_EQ(0, inject("socket=0 stack=0 op=rd dst=loc_cmem"));
}

/*
 * The CHAs are as many as new_device's cha= (8 by default, 1-40), the
 * same on both sockets; the driver makes uncore_cha_0..N-1 of what the
 * (simulated) hardware reports.
 */
TEST_F(icx_mem, cha_option)
{
	EXPECT_TRUE(pmu_exists(CHA(7)));
	EXPECT_FALSE(pmu_exists(CHA(8)));
	ASSERT_EQ(0, sim_del(SIM_ID));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 2, "soc=icx cha=0"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 2, "soc=icx cha=41"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 2, "soc=icx cha=x"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 2, "cha=8"));	/* a Tegra410 */
	EXPECT_FALSE(pmu_exists(CHA(0)));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "cha=1 soc=icx clock=manual"));
	EXPECT_TRUE(pmu_exists(CHA(0)));
	EXPECT_FALSE(pmu_exists(CHA(1)));
	expect_file(_metadata, CHA(0), "cpumask", "0,2");
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual cha=40"));
	EXPECT_TRUE(pmu_exists(CHA(39)));
	EXPECT_FALSE(pmu_exists(CHA(40)));
	expect_file(_metadata, CHA(39), "cpumask", "0,2");
	expect_file(_metadata, CHA(39), "format/umask", "config:8-15,32-57");
}

/*
 * Lines spread over the CHAs as they do over 8: the n-th to CHA n % N,
 * per socket.  cha=3: 10 reads of socket 0 give 4, 3, 3; 5 of socket 1
 * give 2, 2, 1.  cha=40: 100 lines of socket 1 give 3 to CHAs 0-19 and
 * 2 to 20-39 (the last six, 34-39, at upstream's MSR offsets below the
 * others), and socket 0's 41 writes 2 to CHA 0 and 1 to the others.
 */
TEST_F(icx_mem, tor_spread_over_n_chas)
{
	uint64_t w3s0[3] = { 4, 3, 3 }, w3s1[3] = { 2, 2, 1 };
	uint64_t w40s1[MAX_CHAS], w40s0[MAX_CHAS];
	struct box_ev s0, s1;
	unsigned int i;

	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual cha=3"));
	box_open(_metadata, &s0, "cha", 3, IO_MISS_PCIRDCUR, 0);
	box_open(_metadata, &s1, "cha", 3, IO_MISS_PCIRDCUR, 2);
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=10"));
	ASSERT_EQ(0, inject("socket=1 stack=2 op=rd size=320 count=1"));
	box_expect(_metadata, &s0, w3s0, "cha=3, socket 0");
	box_expect(_metadata, &s1, w3s1, "cha=3, socket 1");
	box_close(&s1);
	box_close(&s0);

	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual cha=40"));
	box_open(_metadata, &s1, "cha", MAX_CHAS, IO_MISS_PCIRDCUR, 2);
	box_open(_metadata, &s0, "cha", MAX_CHAS, IO_MISS_ITOM, 0);
	ASSERT_EQ(0, inject("socket=1 stack=0 op=rd size=4096 count=1"));
	ASSERT_EQ(0, inject("socket=1 stack=0 op=rd size=64 count=36"));
	ASSERT_EQ(0, inject("socket=0 stack=1 op=wr size=2624 count=1"));
	for (i = 0; i < MAX_CHAS; i++) {
		w40s1[i] = i < 20 ? 3 : 2;
		w40s0[i] = i ? 1 : 2;
	}
	box_expect(_metadata, &s1, w40s1, "cha=40, socket 1 reads");
	box_expect(_metadata, &s0, w40s0, "cha=40, socket 0 writes");
	box_close(&s0);
	box_close(&s1);
}

/*
 * A flow's batches count by a plan (Documentation/upmu-sim.rst, "Time"),
 * made again after every register write, and given up for the long way
 * while more than 48 counters count the flow: per box, the counts of
 * dealing each line in turn either way.  A device below stack 1 reads
 * 256 bytes of local memory 1000 times a ms (4 lines, 64 DATA_REQ units
 * each), over 40 CHAs and 12 channels, advanced in uneven steps, while
 * counters open and close: the deals go on while no box counts them.
 */
TEST_F(icx_mem, flow_plan_exact)
{
	uint64_t cha[MAX_CHAS], cas[NR_IMCS];
	struct box_ev c, m;
	unsigned int i;
	int iio;

	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual cha=40"));
	box_open(_metadata, &c, "cha", MAX_CHAS, IO_MISS_PCIRDCUR, 0);
	box_open(_metadata, &m, "imc", NR_IMCS, CAS_RD, 0);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=1 socket=0 stack=1 part=0 op=rd size=256 rate=1000000"));
	/* 52 counters: the long way; 4000 lines */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "300000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "300000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "400000"));
	for (i = 0; i < MAX_CHAS; i++)
		cha[i] = 100;
	for (i = 0; i < NR_IMCS; i++)
		cas[i] = i < 4000 % NR_IMCS ? 334 : 333;
	box_expect(_metadata, &c, cha, "52 counters, 1 ms");
	box_expect(_metadata, &m, cas, "52 counters, 1 ms");
	box_close(&m);

	/* 40, then 41 counters: plans; 4000 more lines, 500 reads seen */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "500000"));
	iio = ev_open("uncore_iio_1", "event=0x83,umask=0x4,ch_mask=0x1,fc_mask=0x7", 0, -1);
	ASSERT_LE(0, iio);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "250000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "250000"));
	for (i = 0; i < MAX_CHAS; i++)
		cha[i] = 200;
	box_expect(_metadata, &c, cha, "40 and 41 counters, 2 ms");
	EXPECT_EQ(500ULL * 64, count_of(_metadata, iio));

	/* the channels again: their deal went on at 8000 lines */
	box_open(_metadata, &m, "imc", NR_IMCS, CAS_RD, 0);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	for (i = 0; i < MAX_CHAS; i++)
		cha[i] = 300;
	for (i = 0; i < NR_IMCS; i++)
		cas[i] = i >= 8000 % NR_IMCS ? 334 : 333;
	box_expect(_metadata, &c, cha, "53 counters, 3 ms");
	box_expect(_metadata, &m, cas, "53 counters, 3 ms");
	EXPECT_EQ(1500ULL * 64, count_of(_metadata, iio));
	close(iio);
	box_close(&m);
	box_close(&c);
}

/* The sum over the boxes of @e, which it closes. */
static uint64_t sum_take(struct __test_metadata *_metadata, struct box_ev *e)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < e->nr; i++)
		sum += count_of(_metadata, e->fd[i]);
	box_close(e);
	return sum;
}

/**
 * struct sum_want - an event on every box of a kind of a socket, and
 *		     the sum over them that some traffic gives
 * @kind: "cha", "imc", "upi"
 * @nr: its boxes
 * @spec: the event
 * @cpu: a CPU of the socket
 * @want: the sum
 */
struct sum_want {
	const char *kind;
	unsigned int nr;
	const char *spec;
	int cpu;
	uint64_t want;
};

#define SUM_MAX	16

/* Open @w's events, inject @traffic's @nt lines, check the sums. */
static void sums_expect(struct __test_metadata *_metadata,
			const struct sum_want *w, unsigned int n,
			const char * const *traffic, unsigned int nt)
{
	struct box_ev e[SUM_MAX];
	unsigned int i;

	ASSERT_GE(SUM_MAX, (int)n);
	for (i = 0; i < n; i++)
		box_open(_metadata, &e[i], w[i].kind, w[i].nr, w[i].spec, w[i].cpu);
	for (i = 0; i < nt; i++) {
		ASSERT_EQ(0, inject(traffic[i])) TH_LOG("%s", traffic[i]);
	}
	for (i = 0; i < n; i++) {
		EXPECT_EQ(w[i].want, sum_take(_metadata, &e[i]))
			TH_LOG("%s/%s/ on CPU %d", w[i].kind, w[i].spec, w[i].cpu);
	}
}

/*
 * A CPU's accesses of memory (no stack=): each line a TOR insert of a
 * core (IA) with its opcode (DRD, RFO, CRD with code=1), outcome and
 * target; a miss a CAS read at the memory's socket, a remote miss 9
 * data flits to the requester's socket and 1 non-data flit back.
 *
 *   socket 0: 10 x 128 bytes, lat=100, that miss local memory: 20 DRD
 *	       6 x 64 bytes, lat=300, that miss remote memory: 6 DRD
 *   socket 1: 5 writes that miss local memory: 5 RFO
 *	       3 code reads that miss remote memory: 3 CRD
 *
 * CAS reads: socket 0 20 + 3 (socket 1's code), socket 1 6 + 5.  Data
 * flits sent: socket 0 3 x 9, socket 1 6 x 9; requests: 6 and 3.  No
 * device line (IO).
 */
TEST_F(icx_mem, cpu_lines_miss)
{
	static const struct sum_want w[] = {
		{ "cha", NR_CHAS, IA_MISS_DRD, 0, 26 },
		{ "cha", NR_CHAS, IA_MISS_DRD_LOCAL, 0, 20 },
		{ "cha", NR_CHAS, IA_MISS_DRD_REMOTE, 0, 6 },
		{ "cha", NR_CHAS, OCC_IA_MISS_DRD, 0, 20 * 100 + 6 * 300 },
		{ "cha", NR_CHAS, IA_MISS_RFO, 2, 5 },
		{ "cha", NR_CHAS, IA_MISS_CRD, 2, 3 },
		{ "cha", NR_CHAS, IA_MISS_CRD_LOCAL, 2, 0 },
		{ "cha", NR_CHAS, IO_MISS_PCIRDCUR, 2, 0 },
		{ "imc", NR_IMCS, CAS_RD, 0, 23 },
		{ "imc", NR_IMCS, CAS_RD, 2, 11 },
		{ "upi", NR_UPIS, TXL_DATA, 0, 27 },
		{ "upi", NR_UPIS, TXL_DATA, 2, 54 },
		{ "upi", NR_UPIS, TXL_NON_DATA, 0, 6 },
		{ "upi", NR_UPIS, TXL_NON_DATA, 2, 3 },
	};
	static const char * const traffic[] = {
		"socket=0 op=rd size=128 count=10 lat=100",
		"socket=0 src=loc_cpu op=rd size=64 count=6 dst=rem lat=300",
		"socket=1 op=wr size=64 count=5",
		"socket=1 op=rd code=1 size=64 count=3 dst=rem",
	};

	sums_expect(_metadata, w, ARRAY_SIZE(w), traffic, ARRAY_SIZE(traffic));
}

/*
 * Hits: TOR inserts of their outcome, no CAS (socket 0's 7 CAS reads are
 * socket 1's RFOs that miss its memory); the umask of all opcodes
 * counts nothing (the opcode is matched exactly); the n-th line of a
 * kind goes to CHA n % N, as a device's do.
 */
TEST_F(icx_mem, cpu_lines_hit)
{
	static const uint64_t per_cha[NR_CHAS] = { 2, 2, 2, 1, 1, 1, 1, 1 };
	static const struct sum_want w[] = {
		{ "cha", NR_CHAS, IA_DRD, 0, 11 },
		{ "cha", NR_CHAS, IA_MISS_DRD, 0, 0 },
		{ "imc", NR_IMCS, CAS_RD, 0, 7 },
		{ "cha", NR_CHAS, IA_HIT_RFO, 2, 8 },
		{ "cha", NR_CHAS, IA_MISS_RFO_REMOTE, 2, 7 },
		{ "cha", NR_CHAS, IA_MISS_ALL, 2, 0 },
	};
	static const char * const traffic[] = {
		"socket=0 op=rd size=64 count=11 hit=1 lat=50",
		"socket=1 op=wr size=256 count=2 hit=1 dst=rem",
		"socket=1 op=wr size=64 count=7 dst=rem",
	};
	struct box_ev spread;

	box_open(_metadata, &spread, "cha", NR_CHAS, IA_HIT_DRD, 0);
	sums_expect(_metadata, w, ARRAY_SIZE(w), traffic, ARRAY_SIZE(traffic));
	box_expect(_metadata, &spread, per_cha, "IA_HIT_DRD per CHA");
	box_close(&spread);
}

/*
 * Parallel reads, as perf's metric counts them: TOR_OCCUPANCY.IA_MISS_DRD
 * with thresh=1 counts each CHA's cycles with a read in flight.  16
 * lines of 100 cycles: 2 on each of the 8 CHAs of socket 0, 100 cycles
 * each, 800 in all, against an occupancy of 1600: 2 reads in parallel.
 */
TEST_F(icx_mem, cpu_parallel_reads)
{
	struct box_ev occ, cyc;

	box_open(_metadata, &cyc, "cha", NR_CHAS, OCC_IA_MISS_DRD ",thresh=1", 0);
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=16 lat=100"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000"));
	EXPECT_EQ(800ULL, sum_take(_metadata, &cyc));
	box_open(_metadata, &occ, "cha", NR_CHAS, OCC_IA_MISS_DRD, 0);
	ASSERT_EQ(0, inject("socket=0 op=rd size=64 count=16 lat=100"));
	EXPECT_EQ(1600ULL, sum_take(_metadata, &occ));
}

/*
 * Requests into the home agents (REQUESTS, event 0x50): each line that
 * misses, at the CHAs of the memory's socket, a read (device reads,
 * DRD, CRD, RFO) or a write (full and partial lines), local when the
 * requester is of that socket.  Hits reach no home agent.
 *
 *   socket 0: a device reads 10 x 128 bytes of its memory: 20 reads
 *	       a core reads 6 lines of socket 1's: 6 remote reads there
 *	       a device writes 3 x 100 bytes to socket 1: 6 remote writes
 *	       a core reads 9 lines that hit: none
 *   socket 1: a core writes 5 lines (RFO) of its memory: 5 reads
 *	       a device writes 4 full lines of its memory: 4 writes
 */
TEST_F(icx_mem, home_agent_requests)
{
	/* the next 20 after 20 start at CHA 4 */
	static const uint64_t per_cha[NR_CHAS] = { 2, 2, 2, 2, 3, 3, 3, 3 };
	static const struct sum_want w[] = {
		{ "cha", NR_CHAS, REQ_READS_LOCAL, 0, 20 },
		{ "cha", NR_CHAS, REQ_READS, 0, 20 },
		{ "cha", NR_CHAS, REQ_WRITES_LOCAL, 0, 0 },
		{ "cha", NR_CHAS, REQ_WRITES_REMOTE, 0, 0 },
		{ "cha", NR_CHAS, REQ_READS_LOCAL, 2, 5 },
		{ "cha", NR_CHAS, REQ_READS_REMOTE, 2, 6 },
		{ "cha", NR_CHAS, REQ_WRITES_LOCAL, 2, 4 },
		{ "cha", NR_CHAS, REQ_WRITES_REMOTE, 2, 6 },
	};
	static const char * const traffic[] = {
		"socket=0 stack=0 op=rd size=128 count=10",
		"socket=0 op=rd size=64 count=6 dst=rem",
		"socket=0 stack=1 op=wr size=100 count=3 dst=rem",
		"socket=0 op=rd size=64 count=9 hit=1",
		"socket=1 op=wr size=64 count=5",
		"socket=1 stack=2 op=wr size=256 count=1",
	};
	struct box_ev spread;

	sums_expect(_metadata, w, ARRAY_SIZE(w), traffic, ARRAY_SIZE(traffic));
	/* 20 reads dealt over socket 0's 8 home agents */
	box_open(_metadata, &spread, "cha", NR_CHAS, REQ_READS_LOCAL, 0);
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=20"));
	box_expect(_metadata, &spread, per_cha, "REQUESTS.READS_LOCAL per CHA");
	box_close(&spread);
}

/*
 * Persistent memory (mem=pmm): its misses are TOR inserts of the PMM
 * target, not the DDR one, and go to the channels' PMM queues, not to
 * CAS commands.  Socket 0's cores read 8 lines of PMM (lat=900) and 3
 * of DRAM; a device of socket 1 writes 2 x 100 bytes to socket 0's PMM:
 * 2 full lines and 2 partial ones (each a queued read and write).
 */
TEST_F(icx_mem, pmm_vs_ddr)
{
	/* two rounds of the traffic: 4 counters a box */
	static const struct sum_want w[] = {
		{ "cha", NR_CHAS, IA_MISS_DRD, 0, 11 },
		{ "cha", NR_CHAS, IA_MISS_DRD_DDR, 0, 3 },
		{ "cha", NR_CHAS, IA_MISS_DRD_PMM, 0, 8 },
		{ "cha", NR_CHAS, OCC_IA_MISS_DRD_PMM, 0, 8 * 900 },
		{ "imc", NR_IMCS, CAS_RD, 0, 3 },
		{ "imc", NR_IMCS, CAS_WR, 0, 0 },
		{ "imc", NR_IMCS, PMM_RPQ, 0, 8 + 2 },
		{ "imc", NR_IMCS, PMM_WPQ, 0, 4 },
		{ "imc", NR_IMCS, PMM_RPQ, 2, 0 },
	}, w2[] = {
		{ "cha", NR_CHAS, IA_MISS_DRD_LOCAL_PMM, 0, 8 },
		{ "cha", NR_CHAS, IA_MISS_DRD_REMOTE_PMM, 0, 0 },
		{ "cha", NR_CHAS, REQ_READS_LOCAL, 0, 11 },
		{ "cha", NR_CHAS, REQ_WRITES_REMOTE, 0, 4 },
	};
	static const char * const traffic[] = {
		"socket=0 op=rd size=512 count=1 mem=pmm lat=900",
		"socket=0 op=rd size=64 count=3 mem=ddr",
		"socket=1 stack=0 op=wr size=100 count=2 dst=rem mem=pmm",
	};

	sums_expect(_metadata, w, ARRAY_SIZE(w), traffic, ARRAY_SIZE(traffic));
	sums_expect(_metadata, w2, ARRAY_SIZE(w2), traffic, ARRAY_SIZE(traffic));
	/* mem= names DRAM or PMM, of an access of memory */
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd mem=hbm"));
	EXPECT_EQ(-EINVAL, inject("socket=0 to_stack=0 op=rd mem=pmm"));
	EXPECT_EQ(-EINVAL, inject("socket=0 to_stack=0 op=rd mem=ddr"));
	ASSERT_EQ(0, sim_new(SIM_ID + 1, 1, "clock=manual"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID + 1, "inject", "socket=0 op=rd mem=pmm"));
	EXPECT_EQ(0, sim_del(SIM_ID + 1));
}

/*
 * The memory directory (M2M): every line read from memory is a lookup
 * that finds it in state I; a core of the other socket reading it will
 * cache it, so its lookups miss and update the state, a write of the
 * memory each.  Socket 0's memory, read by:
 *
 *   socket 1's cores: 6 lines, 6 misses, 6 updates, 6 CAS writes
 *   socket 0's devices: 10 lines (PCIRDCUR keeps no copy): 10 hits
 *   socket 0's cores: 4 lines, 4 hits
 *   a partial write of socket 0's device reads its line's rest: 1 hit
 *
 * Two rounds of the traffic: 4 counters a box.
 */
TEST_F(icx_mem, directory_lookups_and_updates)
{
	static const struct sum_want w[] = {
		{ "m2m", NR_M2MS, "event=0x2d,umask=0x1", 0, 21 },
		{ "m2m", NR_M2MS, "event=0x2a,umask=0xff", 0, 15 },
		{ "m2m", NR_M2MS, "event=0x2b,umask=0xff", 0, 6 },
		{ "m2m", NR_M2MS, "event=0x2e,umask=0x1", 0, 6 },
		{ "m2m", NR_M2MS, "event=0x2e,umask=0x1", 2, 0 },
		{ "imc", NR_IMCS, CAS_WR, 0, 6 + 2 },
		{ "imc", NR_IMCS, CAS_RD, 0, 6 + 10 + 4 + 1 },
	}, w2[] = {
		{ "m2m", NR_M2MS, "event=0x2d,umask=0x2", 0, 21 },
		{ "m2m", NR_M2MS, "event=0x2a,umask=0x10", 0, 15 },
		{ "m2m", NR_M2MS, "event=0x2b,umask=0x10", 0, 6 },
		{ "m2m", NR_M2MS, "event=0x2b,umask=0x1", 0, 0 },
		{ "cha", NR_CHAS, "event=0x54,umask=0x3", 0, 0 },
	};
	static const char * const traffic[] = {
		"socket=1 op=rd size=384 count=1 dst=rem",
		"socket=0 stack=0 op=rd size=640 count=1",
		"socket=0 op=rd size=64 count=4",
		"socket=0 stack=1 op=wr size=100 count=1",
	};

	sums_expect(_metadata, w, ARRAY_SIZE(w), traffic, ARRAY_SIZE(traffic));
	sums_expect(_metadata, w2, ARRAY_SIZE(w2), traffic, ARRAY_SIZE(traffic));
}

/*
 * A flow's reads in flight, with a threshold: its entries come evenly
 * spaced, so a CHA with 0.25 reads in flight on average has one in a
 * quarter of its cycles and none in the others (not none in every
 * cycle, the mean rounded down), and one with 2.5 has 3 in half of its
 * cycles and 2 in the others.  (Two TOR occupancy events need counter
 * 0 each: one at a time.)
 */
TEST_F(icx_mem, thresh_flows_evenly_spaced)
{
	struct box_ev one, two, three;

	/* 2000 reads/s of 1000 cycles: 0.25 in flight on each of 8 CHAs */
	box_open(_metadata, &one, "cha", NR_CHAS, OCC_IA_MISS_DRD ",thresh=1", 0);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=1 socket=0 op=rd size=64 rate=2000 lat=1000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000000"));
	EXPECT_EQ(2000000ULL, sum_take(_metadata, &one));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "del id=1"));

	/* 20M reads/s: 2.5 in flight; 1 ms is 1M cycles of each CHA */
	box_open(_metadata, &two, "cha", NR_CHAS, OCC_IA_MISS_DRD ",thresh=2", 0);
	box_open(_metadata, &three, "cha", NR_CHAS, OCC_IA_MISS_DRD ",thresh=3", 2);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows",
			     "add id=2 socket=0 op=rd size=64 rate=20000000 lat=1000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	EXPECT_EQ(8000000ULL, sum_take(_metadata, &two));
	EXPECT_EQ(0ULL, sum_take(_metadata, &three)) TH_LOG("socket 1 has none");
	box_open(_metadata, &three, "cha", NR_CHAS, OCC_IA_MISS_DRD ",thresh=3", 0);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000000"));
	EXPECT_EQ(4000000ULL, sum_take(_metadata, &three));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "flows", "del id=2"));
}

/* A CPU's lines: src=loc_cpu, no stack, code=1 only on its reads. */
TEST_F(icx_mem, cpu_lines_errors)
{
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd src=loc_noncpu"));
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd src=rem"));
	EXPECT_EQ(-EINVAL, inject("socket=0 op=wr code=1"));
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd code=2"));
	EXPECT_EQ(-EINVAL, inject("socket=0 stack=0 op=rd code=1"));
	EXPECT_EQ(-EINVAL, inject("socket=0 to_stack=0 op=rd code=1"));
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd part=1"));
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd dst=loc_gmem"));
	EXPECT_EQ(0, inject("socket=0 op=rd code=1 dst=rem"));
	EXPECT_EQ(0, inject("socket=0 op=rd code=0"));
	/* a Tegra410 has no code reads */
	ASSERT_EQ(0, sim_new(SIM_ID + 1, 1, "clock=manual"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID + 1, "inject", "socket=0 op=rd code=1"));
	EXPECT_EQ(0, sim_ctl(SIM_ID + 1, "inject", "socket=0 op=rd"));
	EXPECT_EQ(0, sim_del(SIM_ID + 1));
	/* one socket: no remote memory */
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "soc=icx clock=manual"));
	EXPECT_EQ(-EINVAL, inject("socket=0 op=rd dst=rem"));
}

/* ---- PCU, UBOX, M2M, M2PCIE, M3UPI, IMC free-running ---------------------- */

#define PCU		"uncore_pcu"
#define UBOX		"uncore_ubox"
#define M2M(n)		"uncore_m2m_" #n
#define M2PCIE(n)	"uncore_m2pcie_" #n
#define M3UPI(n)	"uncore_m3upi_" #n
#define IMC_FR(n)	"uncore_imc_free_running_" #n
#define PCU_C0		"event=0x80,umask=0x40"
#define PCU_C3		"event=0x80,umask=0x80"
#define PCU_C6		"event=0x80,umask=0xc0"
#define FR_DCLK		"event=0xff,umask=0x10"
#define FR_READ		"event=0xff,umask=0x20"
#define FR_WRITE	"event=0xff,umask=0x21"

/* Upstream's formats (skx_uncore_pcu, skx_uncore_ubox, icx_uncore_m2m, ...) */
TEST_F(icx_mem, new_pmus_formats)
{
	static const char * const gp[] = { M2PCIE(0), M2PCIE(5), M3UPI(0), M3UPI(2) };
	unsigned int i;

	expect_file(_metadata, PCU, "format/event", "config:0-7");
	expect_file(_metadata, PCU, "format/umask", "config:8-15");
	expect_file(_metadata, PCU, "format/edge", "config:18");
	expect_file(_metadata, PCU, "format/inv", "config:23");
	expect_file(_metadata, PCU, "format/thresh", "config:24-31");
	expect_file(_metadata, PCU, "format/occ_invert", "config:30");
	expect_file(_metadata, PCU, "format/occ_edge_det", "config:31");
	expect_file(_metadata, PCU, "format/filter_band0", "config1:0-7");
	expect_file(_metadata, PCU, "format/filter_band1", "config1:8-15");
	expect_file(_metadata, PCU, "format/filter_band2", "config1:16-23");
	expect_file(_metadata, PCU, "format/filter_band3", "config1:24-31");
	expect_file(_metadata, UBOX, "format/event", "config:0-7");
	expect_file(_metadata, UBOX, "format/umask", "config:8-15");
	expect_file(_metadata, UBOX, "format/edge", "config:18");
	expect_file(_metadata, UBOX, "format/inv", "config:23");
	expect_file(_metadata, UBOX, "format/thresh", "config:24-28");
	expect_file(_metadata, M2M(0), "format/event", "config:0-7");
	expect_file(_metadata, M2M(3), "format/umask", "config:8-15,32-39");
	expect_file(_metadata, M2M(3), "format/edge", "config:18");
	expect_file(_metadata, M2M(3), "format/inv", "config:23");
	expect_file(_metadata, M2M(3), "format/thresh", "config:24-31");
	for (i = 0; i < ARRAY_SIZE(gp); i++) {
		expect_file(_metadata, gp[i], "format/event", "config:0-7");
		expect_file(_metadata, gp[i], "format/umask", "config:8-15");
		expect_file(_metadata, gp[i], "format/edge", "config:18");
		expect_file(_metadata, gp[i], "format/inv", "config:23");
		expect_file(_metadata, gp[i], "format/thresh", "config:24-31");
	}
	expect_file(_metadata, IMC_FR(0), "format/event", "config:0-7");
	expect_file(_metadata, IMC_FR(3), "format/umask", "config:8-15");
}

/* Upstream's box counts, one owner per die, the free-running events. */
TEST_F(icx_mem, new_pmus_boxes_and_events)
{
	EXPECT_TRUE(pmu_exists(PCU));
	EXPECT_FALSE(pmu_exists("uncore_pcu_0"));
	EXPECT_TRUE(pmu_exists(UBOX));
	EXPECT_FALSE(pmu_exists("uncore_ubox_0"));
	EXPECT_TRUE(pmu_exists(M2M(3)));
	EXPECT_FALSE(pmu_exists(M2M(4)));
	EXPECT_TRUE(pmu_exists(M2PCIE(5)));
	EXPECT_FALSE(pmu_exists(M2PCIE(6)));
	EXPECT_TRUE(pmu_exists(M3UPI(2)));
	EXPECT_FALSE(pmu_exists(M3UPI(3)));
	EXPECT_TRUE(pmu_exists(IMC_FR(3)));
	EXPECT_FALSE(pmu_exists(IMC_FR(4)));
	expect_file(_metadata, PCU, "cpumask", "0,2");
	expect_file(_metadata, UBOX, "cpumask", "0,2");
	expect_file(_metadata, M2M(1), "cpumask", "0,2");
	expect_file(_metadata, M2PCIE(4), "cpumask", "0,2");
	expect_file(_metadata, M3UPI(0), "cpumask", "0,2");
	expect_file(_metadata, IMC_FR(2), "cpumask", "0,2");
	expect_file(_metadata, IMC_FR(0), "events/dclk", FR_DCLK);
	expect_file(_metadata, IMC_FR(0), "events/read", FR_READ);
	expect_file(_metadata, IMC_FR(0), "events/read.scale", "6.103515625e-5");
	expect_file(_metadata, IMC_FR(0), "events/read.unit", "MiB");
	expect_file(_metadata, IMC_FR(1), "events/write", FR_WRITE);
	expect_file(_metadata, IMC_FR(1), "events/write.scale", "6.103515625e-5");
	expect_file(_metadata, IMC_FR(1), "events/write.unit", "MiB");
	expect_file(_metadata, IMC_FR(3), "events/ddrt_read", "event=0xff,umask=0x30");
	expect_file(_metadata, IMC_FR(3), "events/ddrt_read.scale", "6.103515625e-5");
	expect_file(_metadata, IMC_FR(3), "events/ddrt_read.unit", "MiB");
	expect_file(_metadata, IMC_FR(3), "events/ddrt_write", "event=0xff,umask=0x31");
	expect_file(_metadata, IMC_FR(3), "events/ddrt_write.scale", "6.103515625e-5");
	expect_file(_metadata, IMC_FR(3), "events/ddrt_write.unit", "MiB");
	EXPECT_GT(0, pmu_read(PCU, "events/clockticks", (char[8]){}, 8));
}

/*
 * Clockticks of each new kind, one per cycle of the clock: the PCU's and
 * M2M's event 0x00, the M2PCIE's and M3UPI's 0x01, the UBOX's fixed
 * counter (config 0xff; its general counters have no clockticks), the
 * IMC's free-running dclk; with thresh=1,inv=1 a clockticks counter
 * counts the cycles in which it adds less than 1: none.
 */
TEST_F(icx_mem, new_clockticks)
{
	static const struct { const char *pmu, *spec; uint64_t per; } ev[] = {
		{ PCU, "event=0x0", 1 },
		{ M2M(3), "event=0x0", 1 },
		{ M2PCIE(5), "event=0x1", 1 },
		{ M3UPI(1), "event=0x1", 1 },
		{ UBOX, "event=0xff", 1 },
		{ UBOX, "event=0x0", 0 },
		{ IMC_FR(2), FR_DCLK, 1 },
		{ M2M(0), "event=0x0,thresh=1,inv=1", 0 },
		{ M2PCIE(0), "event=0x1,thresh=1", 1 },
		{ PCU, "event=0x0,thresh=1,edge=1", 1 },
	};
	int fd[ARRAY_SIZE(ev)];
	uint64_t base[ARRAY_SIZE(ev)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		fd[i] = ev_open(ev[i].pmu, ev[i].spec, i & 1 ? 2 : 0, -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s/%s/: %s", ev[i].pmu, ev[i].spec,
					   strerror(-fd[i]));
		base[i] = count_of(_metadata, fd[i]);
	}
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "123456789"));
	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		/* edge: the condition became true once, when it was enabled */
		uint64_t want = strstr(ev[i].spec, "edge") ? 1 : ev[i].per * 123456789ULL;

		EXPECT_EQ(want, count_of(_metadata, fd[i]) - base[i])
			TH_LOG("%s/%s/", ev[i].pmu, ev[i].spec);
	}
	for (i = ARRAY_SIZE(ev); i-- > 0;)
		close(fd[i]);
}

/* @fd's C0, C3, C6 occupancy and clockticks gained @c0.. x @cycles since @before */
static void pcu_expect(struct __test_metadata *_metadata, const int *fd,
		       const uint64_t *before, unsigned int c0, unsigned int c3,
		       unsigned int c6, uint64_t cycles, const char *what)
{
	const uint64_t want[] = { c0 * cycles, c3 * cycles, c6 * cycles, cycles };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		EXPECT_EQ(want[i], count_of(_metadata, fd[i]) - before[i])
			TH_LOG("%s: counter %u", what, i);
	}
}

/*
 * POWER_STATE_OCCUPANCY adds the cores of each C-state every cycle:
 * cstate=5:2:1 of new_device, then 1:3:4 written to debugfs cstate,
 * which counts from then on; cores / clockticks is lpm_cstate_*'s value.
 * By default cha= cores, all in C0.  With thresh=3 an occupancy counts
 * the cycles with 3 cores or more in its state (inv: fewer), across a
 * change of the split too; occ_sel 0 counts nothing.
 */
TEST_F(icx_mem, pcu_cstate_occupancy)
{
	const char *specs[] = { PCU_C0, PCU_C3, PCU_C6, "event=0x0" };
	static const uint64_t split[] = { 5, 2, 1, 1 };	/* per cycle */
	uint64_t b0[4], b1[4];
	int s0[4], s1[4], th0, th3, th6, none;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		s0[i] = ev_open(PCU, specs[i], 0, i ? s0[0] : -1);
		ASSERT_LE(0, s0[i]) TH_LOG("%s: %s", specs[i], strerror(-s0[i]));
		b0[i] = count_of(_metadata, s0[i]);
	}
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000"));
	pcu_expect(_metadata, s0, b0, NR_CHAS, 0, 0, 1000, "default");
	for (i = 4; i-- > 0;)
		close(s0[i]);

	ASSERT_EQ(0, sim_del(SIM_ID));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 2, "soc=icx clock=manual cstate=100:20:9"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 2, "soc=icx clock=manual cstate=1:2"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 2, "clock=manual cstate=1:2:3"));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual cstate=5:2:1"));
	ASSERT_TRUE(pmu_exists(PCU));
	for (i = 0; i < 4; i++) {
		s0[i] = ev_open(PCU, specs[i], 0, i ? s0[0] : -1);
		s1[i] = ev_open(PCU, specs[i], 2, i ? s1[0] : -1);
		ASSERT_LE(0, s0[i]);
		ASSERT_LE(0, s1[i]);
		b0[i] = count_of(_metadata, s0[i]);
		b1[i] = count_of(_metadata, s1[i]);
	}
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000"));
	pcu_expect(_metadata, s0, b0, 5, 2, 1, 1000, "5:2:1, socket 0");
	pcu_expect(_metadata, s1, b1, 5, 2, 1, 1000, "5:2:1, socket 1");
	/* 200 cycles more of 5:2:1, unread when the split changes */
	for (i = 0; i < 4; i++) {
		b0[i] = count_of(_metadata, s0[i]) + split[i] * 200;
		b1[i] = count_of(_metadata, s1[i]) + split[i] * 200;
	}
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "200"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "cstate", "1:3:4"));
	EXPECT_NE(0, sim_ctl(SIM_ID, "cstate", "1:3"));
	EXPECT_NE(0, sim_ctl(SIM_ID, "cstate", "200:0:0"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "500"));
	pcu_expect(_metadata, s0, b0, 1, 3, 4, 500, "1:3:4, socket 0");
	pcu_expect(_metadata, s1, b1, 1, 3, 4, 500, "1:3:4, socket 1");
	for (i = 4; i-- > 0;) {
		close(s1[i]);
		close(s0[i]);
	}

	/* thresholds: the cycles with 3 cores or more in the state */
	/*
	 * 4 cores a cycle in an enabled C6 occupancy: a quarter of the
	 * clock's jump (half of 48 bits); with a threshold, 1 a cycle
	 */
	th0 = ev_open(PCU, PCU_C6, 0, -1);
	ASSERT_LE(0, th0);
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "%llu", (1ULL << 47) / 4 + 1));
	close(th0);
	th0 = ev_open(PCU, PCU_C6 ",thresh=3", 0, -1);
	ASSERT_LE(0, th0);
	EXPECT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu", (1ULL << 47) / 4 + 1));
	EXPECT_EQ((1ULL << 47) / 4 + 1, count_of(_metadata, th0));
	close(th0);
	th0 = ev_open(PCU, PCU_C0 ",thresh=3", 0, -1);
	th3 = ev_open(PCU, PCU_C3 ",thresh=3", 0, -1);
	th6 = ev_open(PCU, PCU_C6 ",thresh=3,inv=1", 0, -1);
	none = ev_open(PCU, "event=0x80", 0, -1);
	ASSERT_LE(0, th0);
	ASSERT_LE(0, th3);
	ASSERT_LE(0, th6);
	ASSERT_LE(0, none);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "1000"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "cstate", "3:0:0"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "500"));
	EXPECT_EQ(500ULL, count_of(_metadata, th0));
	EXPECT_EQ(1000ULL, count_of(_metadata, th3));
	EXPECT_EQ(500ULL, count_of(_metadata, th6));
	EXPECT_EQ(0ULL, count_of(_metadata, none));
	close(none);
	close(th6);
	close(th3);
	close(th0);
}

/*
 * The IMC's free-running read and write: the CAS reads and writes of the
 * controller's 3 channels, whatever counter is enabled: 48 lines read
 * and 24 written that miss are 12 reads and 6 writes for each; a mix
 * not a multiple of 12 as its channels' CAS_COUNT events sum; hits
 * none; dclk the cycles.  Raw counts are lines (perf scales to MiB).
 */
TEST_F(icx_mem, imc_free_running_cas)
{
	struct box_ev rd, wr;
	uint64_t r0[4], w0[4], d0, csum;
	int frr[4], frw[4], dclk;
	unsigned int b, c;

	dclk = ev_open(IMC_FR(1), FR_DCLK, 0, -1);
	ASSERT_LE(0, dclk);
	for (b = 0; b < 4; b++) {
		frr[b] = ev_open(box_name("imc_free_running", b), FR_READ, 0, -1);
		frw[b] = ev_open(box_name("imc_free_running", b), FR_WRITE, 0, -1);
		ASSERT_LE(0, frr[b]);
		ASSERT_LE(0, frw[b]);
		r0[b] = count_of(_metadata, frr[b]);
		w0[b] = count_of(_metadata, frw[b]);
	}
	d0 = count_of(_metadata, dclk);
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=48"));
	ASSERT_EQ(0, inject("socket=0 stack=1 op=wr size=64 count=24"));
	ASSERT_EQ(0, inject("socket=0 stack=1 op=rd size=64 count=99 hit=1"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "7777"));
	for (b = 0; b < 4; b++) {
		EXPECT_EQ(12ULL, count_of(_metadata, frr[b]) - r0[b]) TH_LOG("read %u", b);
		EXPECT_EQ(6ULL, count_of(_metadata, frw[b]) - w0[b]) TH_LOG("write %u", b);
		r0[b] += 12;
		w0[b] += 6;
	}
	EXPECT_EQ(7777ULL, count_of(_metadata, dclk) - d0);
	/* 7 reads and 5 writes: as the channels' CAS_COUNT say */
	box_open(_metadata, &rd, "imc", NR_IMCS, CAS_RD, 0);
	box_open(_metadata, &wr, "imc", NR_IMCS, CAS_WR, 0);
	ASSERT_EQ(0, inject("socket=0 stack=2 op=rd size=448"));
	ASSERT_EQ(0, inject("socket=0 stack=2 op=wr size=64 count=5"));
	for (b = 0; b < 4; b++) {
		for (csum = 0, c = 3 * b; c < 3 * b + 3; c++)
			csum += count_of(_metadata, rd.fd[c]);
		EXPECT_EQ(csum, count_of(_metadata, frr[b]) - r0[b]) TH_LOG("read %u", b);
		for (csum = 0, c = 3 * b; c < 3 * b + 3; c++)
			csum += count_of(_metadata, wr.fd[c]);
		EXPECT_EQ(csum, count_of(_metadata, frw[b]) - w0[b]) TH_LOG("write %u", b);
	}
	/* socket 1's controllers saw nothing */
	box_close(&wr);
	box_close(&rd);
	close(frr[0]);
	frr[0] = ev_open(IMC_FR(0), FR_READ, 2, -1);
	ASSERT_LE(0, frr[0]);
	EXPECT_EQ(0ULL, count_of(_metadata, frr[0]));
	for (b = 4; b-- > 0;) {
		close(frw[b]);
		close(frr[b]);
	}
	close(dclk);
}

/*
 * Upstream's constraints: the M2PCIE's 0x14, 0x23, 0x2d on counters
 * 0-1, the M3UPI's 0x1c-0x1f on counter 0, 0x40 and 0x4e-0x50 on 0-2;
 * the UBOX's 2 general counters and its fixed one (config 0xff only);
 * one value per PCU band filter byte; any number of free-running events.
 */
TEST_F(icx_mem, new_constraints)
{
	const char *m2p_ok[] = { "event=0x14", "event=0x23", "event=0x1", "event=0x1" };
	const char *m2p_bad[] = { "event=0x14", "event=0x23", "event=0x2d" };
	const char *m3_ok[] = { "event=0x1c", "event=0x40", "event=0x4e", "event=0x1" };
	const char *m3_bad0[] = { "event=0x1c", "event=0x1f" };
	const char *m3_bad1[] = { "event=0x40", "event=0x4e", "event=0x4f", "event=0x50" };
	const char *ubox_ok[] = { "event=0xff", "event=0x42,umask=0x8", "event=0x44" };
	const char *ubox_bad[] = { "event=0x42,umask=0x8", "event=0x44", "event=0x45" };
	const char *ubox_two[] = { "event=0xff", "event=0xff" };
	const char *pcu_ok[] = { "event=0x0", PCU_C0, PCU_C3, PCU_C6 };
	const char *pcu_bad[] = { "event=0x0", PCU_C0, PCU_C3, PCU_C6, "event=0x0" };
	const char *band_same[] = { "event=0xb,filter_band0=0x10",
				    "event=0xb,filter_band0=0x10",
				    "event=0xc,filter_band1=0x20" };
	const char *band_diff[] = { "event=0xb,filter_band0=0x10",
				    "event=0xb,filter_band0=0x11" };
	const char *m2m[] = { "event=0x0", "event=0x2a,umask=0xff", "event=0x2b,umask=0xff",
			      "event=0x2e,umask=0x1", "event=0x0" };
	const char *fr[] = { FR_DCLK, FR_READ, FR_WRITE, FR_READ, "event=0xff,umask=0x30",
			     "event=0xff,umask=0x31", FR_DCLK };

	EXPECT_EQ(0, group_of(M2PCIE(0), m2p_ok, 4));
	EXPECT_EQ(-EINVAL, group_of(M2PCIE(0), m2p_bad, 3));
	EXPECT_EQ(0, group_of(M3UPI(0), m3_ok, 4));
	EXPECT_EQ(-EINVAL, group_of(M3UPI(0), m3_bad0, 2));
	EXPECT_EQ(-EINVAL, group_of(M3UPI(0), m3_bad1, 4));
	EXPECT_EQ(0, group_of(UBOX, ubox_ok, 3));
	EXPECT_EQ(-EINVAL, group_of(UBOX, ubox_bad, 3));
	EXPECT_EQ(-EINVAL, group_of(UBOX, ubox_two, 2));
	EXPECT_EQ(0, group_of(PCU, pcu_ok, 4));
	EXPECT_EQ(-EINVAL, group_of(PCU, pcu_bad, 5));
	EXPECT_EQ(0, group_of(PCU, band_same, 3));
	EXPECT_EQ(-EINVAL, group_of(PCU, band_diff, 2));
	EXPECT_EQ(0, group_of(M2M(0), m2m, 4));
	EXPECT_EQ(-EINVAL, group_of(M2M(0), m2m, 5));
	EXPECT_EQ(0, group_of(IMC_FR(0), fr, 7));
	EXPECT_EQ(-EINVAL, ev_open(IMC_FR(0), "event=0xff,umask=0x22", 0, -1));
	EXPECT_EQ(-EINVAL, ev_open(IMC_FR(0), "event=0xff,umask=0x11", 0, -1));
	EXPECT_EQ(-EINVAL, ev_open(IMC_FR(0), "event=0x1,umask=0x20", 0, -1));
}

/* Bits outside each new PMU's formats are EINVAL. */
TEST_F(icx_mem, new_reserved_bits)
{
	static const struct { const char *pmu, *spec; unsigned int word, bit; } bad[] = {
		{ PCU, PCU_C0, 0, 16 },
		{ PCU, PCU_C0, 0, 32 },
		{ PCU, PCU_C0, 1, 32 },
		{ UBOX, "event=0x44", 0, 29 },
		{ UBOX, "event=0x44", 1, 0 },
		{ M2M(0), "event=0x2e,umask=0x1", 0, 40 },
		{ M2M(0), "event=0x2e,umask=0x1", 0, 19 },
		{ M2PCIE(0), "event=0x1", 0, 32 },
		{ M3UPI(0), "event=0x1", 0, 32 },
		{ IMC_FR(0), FR_READ, 0, 16 },
	};
	struct perf_event_attr attr;
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, pmu_attr(bad[i].pmu, bad[i].spec, &attr));
		fd = perf_open(&attr, -1, 0, -1);
		ASSERT_LE(0, fd) TH_LOG("%s/%s/", bad[i].pmu, bad[i].spec);
		close(fd);
		if (bad[i].word)
			attr.config1 |= 1ULL << bad[i].bit;
		else
			attr.config |= 1ULL << bad[i].bit;
		EXPECT_EQ(-EINVAL, perf_open(&attr, -1, 0, -1))
			TH_LOG("%s/%s/ config%.0u bit %u", bad[i].pmu, bad[i].spec,
			       bad[i].word, bad[i].bit);
	}
	/* the M2M's umask reaches bit 39, the PCU's occ_edge_det bit 31 */
	ASSERT_EQ(0, pmu_attr(M2M(0), "event=0x2e,umask=0xff01", &attr));
	EXPECT_EQ(0xff0000012eULL, attr.config);
	fd = perf_open(&attr, -1, 0, -1);
	EXPECT_LE(0, fd);
	close(fd);
	fd = ev_open(PCU, PCU_C0 ",occ_invert=1,occ_edge_det=1,filter_band3=0xff", 0, -1);
	EXPECT_LE(0, fd);
	close(fd);
}

/* ---- perf, unchanged ------------------------------------------------------ */

/*
 * The traffic of the perf tests, during perf stat -a: socket 0 reads
 * 6.4M lines of local memory that miss (100000 x 4 KiB), writes 3.2M
 * lines of socket 1's memory that miss, 300 bytes 100000 times that hit
 * (4 full lines and a partial one each); socket 1 reads 1.28M lines
 * that hit.  Enough bytes that perf's MB/s, printed to 0.1, has 4
 * significant digits or more.  Their address translations: the second
 * batch's hit 2M pages, the third's miss the IOTLB, the others hit 4K
 * pages.
 */
#define PERF_TRAFFIC							\
	"echo socket=0 stack=0 op=rd size=4096 count=100000 > %1$s/inject && " \
	"echo socket=0 stack=1 op=wr size=4096 count=50000 dst=rem page=2m > %1$s/inject && " \
	"echo socket=0 stack=2 op=wr size=300 count=100000 hit=1 iotlb_miss=1 > %1$s/inject && " \
	"echo socket=1 stack=0 op=rd size=4096 count=20000 hit=1 > %1$s/inject"
#define M	1000000.0
/* The traffic of a test that does not run PERF_TRAFFIC's (perf_run()) */
static const char *perf_traffic;

/**
 * struct perf_val - what perf printed of an event or a metric
 * @name: the event, or the metric
 * @val: perf's count, or the metric's value
 * @decimals: digits perf printed after the point
 * @found: perf printed it
 * @scaled: perf scaled the count (multiplexed)
 */
struct perf_val {
	const char *name;
	double val;
	unsigned int decimals;
	bool found;
	bool scaled;
};

/* @s as a number, and the digits after its point. */
static double num_of(const char *s, unsigned int *decimals)
{
	const char *dot = strchr(s, '.');

	*decimals = dot ? strspn(dot + 1, "0123456789") : 0;
	return strtod(s, NULL);
}

/* The metric of a metric unit field, "MB/s  memory_bandwidth_read". */
static const char *metric_of(const char *unit)
{
	const char *sp = strrchr(unit, ' ');

	return sp ? sp + 1 : unit;
}

/*
 * perf stat -x, -a @args during PERF_TRAFFIC; fills in the counts (the
 * first CSV field) of @v's events, and the metric value (the sixth
 * field) of the line that has @v->name as metric unit, if any, and the
 * shortest and longest duration_time perf printed (ns).
 */
static void perf_run(struct __test_metadata *_metadata, const char *perf,
		     const char *args, struct perf_val *v, unsigned int n,
		     double *dmin, double *dmax)
{
	char cmd[2048], dir[64], line[512], traffic[1024];
	unsigned int i;
	FILE *p;

	snprintf(dir, sizeof(dir), "%s/%u", SIM_DEBUGFS, SIM_ID);
	snprintf(traffic, sizeof(traffic), perf_traffic ?: PERF_TRAFFIC, dir);
	snprintf(cmd, sizeof(cmd), "%s %s stat -x, -a %s -- sh -c '%s' 2>&1",
		 ICX_CPUID, perf, args, traffic);
	p = popen(cmd, "r");
	ASSERT_TRUE(p != NULL);
	*dmin = *dmax = 0;
	while (fgets(line, sizeof(line), p)) {
		char *f[8] = {}, *rest = line, *tok;
		unsigned int nf = 0, d, u;

		line[strcspn(line, "\n")] = 0;
		TH_LOG("%s: %s", perf, line);
		while ((tok = strsep(&rest, ",")) && nf < 8)
			f[nf++] = tok;
		if (nf >= 3 && !strcmp(f[2], "duration_time")) {
			double t = num_of(f[0], &d);

			*dmin = *dmin && *dmin < t ? *dmin : t;
			*dmax = *dmax > t ? *dmax : t;
		}
		/*
		 * The metric unit: after the value that follows an event's
		 * fields, or, on a line of a metric only (perf 6.1 prints one
		 * for a metric that shares its events with one above), after
		 * the value that follows four empty fields.
		 */
		u = nf >= 7 ? 6 : nf == 6 && !*f[2] ? 5 : 0;
		for (i = 0; i < n && nf >= 3; i++) {
			if (!strcmp(f[2], v[i].name)) {
				v[i].val = num_of(f[0], &v[i].decimals);
				v[i].scaled = nf >= 5 && strcmp(f[4], "100.00");
				v[i].found = true;
			} else if (u && *f[u - 1] &&
				   !strcmp(metric_of(f[u]), v[i].name)) {
				v[i].val = num_of(f[u - 1], &v[i].decimals);
				/* the run of the event on its line, if any */
				v[i].scaled = u == 6 && *f[4] && strcmp(f[4], "100.00");
				v[i].found = true;
			}
		}
	}
	EXPECT_EQ(0, pclose(p));
}

/* Each of @got's counts found, unscaled and @want's. */
static void perf_counts_check(struct __test_metadata *_metadata,
			      const struct perf_val *want,
			      const struct perf_val *got, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		EXPECT_TRUE(got[i].found) TH_LOG("%s", want[i].name);
		EXPECT_FALSE(got[i].scaled) TH_LOG("%s", want[i].name);
		EXPECT_EQ(want[i].val, got[i].val) TH_LOG("%s", want[i].name);
	}
}

/*
 * perf's own JSON names count the simulator's true values, summed over
 * the boxes and dies, unscaled: no PMU gets more events than its 4
 * counters (the CHA events in two runs).
 */
static void perf_json_run(struct __test_metadata *_metadata, const char *perf,
			  const struct perf_val *want, unsigned int n)
{
	struct perf_val v[16];
	char args[1024] = "";
	double dmin, dmax;
	unsigned int i;

	ASSERT_LE(n, ARRAY_SIZE(v));
	for (i = 0; i < n; i++) {
		v[i] = (struct perf_val){ .name = want[i].name, .val = -1 };
		snprintf(args + strlen(args), sizeof(args) - strlen(args), "%s%s",
			 i ? "," : "-e ", v[i].name);
	}
	perf_run(_metadata, perf, args, v, n, &dmin, &dmax);
	perf_counts_check(_metadata, want, v, n);
}

static void perf_json_names(struct __test_metadata *_metadata, const char *perf)
{
	struct perf_val a[] = {
		{ .name = "UNC_CHA_TOR_INSERTS.IO_MISS_PCIRDCUR", .val = 6.4 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_HIT_PCIRDCUR", .val = 1.28 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_MISS_ITOM", .val = 3.2 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_HIT_ITOM", .val = 0.4 * M },
		{ .name = "UNC_M_CAS_COUNT.RD", .val = 6.4 * M },
		{ .name = "UNC_M_CAS_COUNT.WR", .val = 3.2 * M },
		{ .name = "UNC_UPI_TxL_FLITS.ALL_DATA", .val = 28.8 * M },
		{ .name = "UNC_UPI_TxL_FLITS.NON_DATA", .val = 3.2 * M },
		{ .name = "UNC_UPI_RxL_FLITS.ALL_DATA", .val = 28.8 * M },
	};
	struct perf_val b[] = {
		{ .name = "UNC_CHA_TOR_INSERTS.IO_HIT_ITOMCACHENEAR", .val = 0.1 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_MISS_ITOMCACHENEAR", .val = 0 },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_PCIRDCUR", .val = 7.68 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_MISS_RFO", .val = 0 },
	};

	perf_json_run(_metadata, perf, a, ARRAY_SIZE(a));
	perf_json_run(_metadata, perf, b, ARRAY_SIZE(b));
}

/*
 * perf stat -M: each metric's value is its true bytes (lines x 64, or
 * flits x 64/9) / 1e6 over the duration_time perf measured (the ratios:
 * their true value), within the rounding of the value perf prints
 * (half a unit of its last digit).  perf 7.2 prints two duration_time
 * values a little apart (the metric's and -e duration_time's): the
 * value must lie within that rounding of what either gives, or between.
 */
struct metric {
	const char *name;
	double bytes;		/* per run; 0: a ratio, @ratio */
	double ratio;
	bool next;		/* one perf run with the next one */
};

#define PERF_MAX_BATCH	4U

/*
 * Metrics marked &metric.next share a perf run with the next one: perf
 * merges the events they share, and together they fit each PMU's
 * counters, so nothing is multiplexed.  Fewer runs: each perf run costs
 * seconds on a debug guest.  @want: counts of events of the first run's
 * metrics, found on the lines perf prints for them (no -e of their own,
 * which would open them twice).
 */
static void perf_metrics_counts(struct __test_metadata *_metadata, const char *perf,
				const struct metric *m, unsigned int n,
				const struct perf_val *want, unsigned int nwant)
{
	unsigned int i, j, k;

	for (i = 0; i < n; i = j) {
		struct perf_val v[PERF_MAX_BATCH + 8];
		double dmin, dmax, lo, hi, tol;
		char args[512] = "-M ";
		unsigned int d, nw;

		for (j = i; j < n && (j == i || m[j - 1].next); j++) {
			ASSERT_LT(j - i, PERF_MAX_BATCH);
			v[j - i] = (struct perf_val){ .name = m[j].name, .val = -1 };
			snprintf(args + strlen(args), sizeof(args) - strlen(args),
				 "%s%s", j > i ? "," : "", m[j].name);
		}
		/* @want's counts: on the first run's lines */
		nw = i ? 0 : nwant;
		ASSERT_LE(nw, ARRAY_SIZE(v) - PERF_MAX_BATCH);
		for (k = 0; k < nw; k++)
			v[j - i + k] = (struct perf_val){ .name = want[k].name, .val = -1 };
		strncat(args, " -e duration_time", sizeof(args) - strlen(args) - 1);
		perf_run(_metadata, perf, args, v, j - i + nw, &dmin, &dmax);
		perf_counts_check(_metadata, want, v + j - i, nw);
		for (k = i; k < j; k++) {
			const struct perf_val *vk = &v[k - i];

			EXPECT_TRUE(vk->found) TH_LOG("%s", m[k].name);
			EXPECT_FALSE(vk->scaled) TH_LOG("%s: multiplexed", m[k].name);
			if (m[k].bytes) {
				ASSERT_LT(0, dmin) TH_LOG("%s: no duration_time", m[k].name);
				lo = m[k].bytes / 1e6 / (dmax / 1e9);
				hi = m[k].bytes / 1e6 / (dmin / 1e9);
			} else {
				lo = hi = m[k].ratio;
			}
			tol = 0.5;
			for (d = 0; d < vk->decimals; d++)
				tol /= 10;
			EXPECT_TRUE(vk->val >= lo - tol * 1.001 && vk->val <= hi + tol * 1.001)
				TH_LOG("%s = %f, want %f..%f +/- %g (duration_time %.0f..%.0f ns)",
				       m[k].name, vk->val, lo, hi, tol, dmin, dmax);
		}
	}
}

/*
 * CPU traffic (demand data reads that miss the L3) during perf stat -a:
 * socket 0 reads 1.92M lines of its memory (30000 x 4 KiB), socket 1
 * 0.64M lines of socket 0's; socket 0 also reads 0.32M lines that hit
 * and writes 0.16M (RFO) that miss, neither of them reads of memory.
 */
#define PERF_CPU_TRAFFIC						\
	"echo socket=0 op=rd size=4096 count=30000 lat=200 > %1$s/inject && " \
	"echo socket=1 op=rd size=4096 count=10000 dst=rem lat=400 > %1$s/inject && " \
	"echo socket=0 op=rd size=4096 count=5000 hit=1 > %1$s/inject && " \
	"echo socket=0 op=wr size=4096 count=2500 > %1$s/inject"

/* The share of the reads of memory that are local: 1.92 / 2.56. */
static const struct metric cpu_metrics[] = {
	{ .name = "numa_reads_addressed_to_local_dram", .ratio = 75, .next = true },
	{ .name = "numa_reads_addressed_to_remote_dram", .ratio = 25 },
};

/*
 * On 40 CHAs (perf adds an event up over uncore_cha_0..39, the PMUs of
 * its name): PERF_TRAFFIC's device lines, then CPU_TRAFFIC.  Three perf
 * runs for the 9 CHA events, 4 counters a box (Debian's perf 6.1 spends
 * 11 s of a debug guest's CPU matching ICX's JSON to its 79 PMUs before
 * each run): the metrics' run also counts its 4 events, two of them
 * IA_MISS_DRD's local and remote parts.
 */
static void perf_cha40_cpu(struct __test_metadata *_metadata, const char *perf)
{
	const struct perf_val io[] = {
		{ .name = "UNC_CHA_TOR_INSERTS.IO_MISS_PCIRDCUR", .val = 6.4 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_HIT_PCIRDCUR", .val = 1.28 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IO_MISS_ITOM", .val = 3.2 * M },
	};
	const struct perf_val a[] = {
		{ .name = "UNC_CHA_TOR_INSERTS.IA_MISS_DRD", .val = 2.56 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IA_HIT_DRD", .val = 0.32 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IA_MISS_RFO", .val = 0.16 * M },
		{ .name = "UNC_CHA_TOR_OCCUPANCY.IA_MISS_DRD", .val = 1.92 * M * 200 +
									0.64 * M * 400 },
		{ .name = "UNC_M_CAS_COUNT.RD", .val = 2.72 * M },
	};
	const struct perf_val numa[] = {
		{ .name = "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_LOCAL", .val = 1.92 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_REMOTE", .val = 0.64 * M },
		{ .name = "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_LOCAL", .val = 0 },
		{ .name = "UNC_CHA_TOR_INSERTS.IA_MISS_DRD_PREF_REMOTE", .val = 0 },
	};

	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual cha=40"));
	ASSERT_TRUE(pmu_exists(CHA(39)));
	perf_json_run(_metadata, perf, io, ARRAY_SIZE(io));
	perf_traffic = PERF_CPU_TRAFFIC;
	perf_json_run(_metadata, perf, a, ARRAY_SIZE(a));
	perf_metrics_counts(_metadata, perf, cpu_metrics, ARRAY_SIZE(cpu_metrics),
			    numa, ARRAY_SIZE(numa));
}

/*
 * 40 CHA PMUs on two dies: perf opens 80 boxes per event.  On a debug
 * guest alone 46 s with Debian's perf (17 s with perf 7.2); in CI, its
 * VM sharing 2 cores with two others, more than 300 s (2026-11-27, with
 * a fourth perf run): the timeout is for a hang, not for that.
 */
TEST_F_TIMEOUT(icx_mem, perf_cha40_cpu_debian, 600)
{
	perf_cha40_cpu(_metadata, getenv("PERF") ?: "/usr/bin/perf");
}

TEST_F_TIMEOUT(icx_mem, perf_cha40_cpu_upmu_perf, 600)
{
	const char *perf = getenv("UPMU_PERF");

	/* make check always passes it: without it, a failure, not a skip */
	ASSERT_TRUE(perf && !access(perf, X_OK))
		TH_LOG("no patched perf: UPMU_PERF='%s' (scripts/perfbuild.sh builds it)",
		       perf ?: "");
	perf_cha40_cpu(_metadata, perf);
}

TEST_F(icx_mem, perf_json_names_debian)
{
	perf_json_names(_metadata, getenv("PERF") ?: "/usr/bin/perf");
}

TEST_F(icx_mem, perf_json_names_upmu_perf)
{
	const char *perf = getenv("UPMU_PERF");

	/* make check always passes it: without it, a failure, not a skip */
	ASSERT_TRUE(perf && !access(perf, X_OK))
		TH_LOG("no patched perf: UPMU_PERF='%s' (scripts/perfbuild.sh builds it)",
		       perf ?: "");
	perf_json_names(_metadata, perf);
}

/*
 * perf 7.2's own names of the new PMUs' events while the clock advances
 * 1000000 cycles: PCU clockticks once per die, C0 occupancy 1 core, C6
 * 1 core (cstate=1:0:1), the M2M's 4 boxes per die; no directory updates
 * (no traffic); the UBOX's fixed counter.  (perf's lpm_cstate_* metrics:
 * icx_metrics_test.)
 */
#define PERF_CLOCK_TRAFFIC	"echo 1000000 > %1$s/advance"

TEST_F_TIMEOUT(icx_mem, perf_new_pmus_upmu_perf, 300)
{
	const char *perf = getenv("UPMU_PERF");
	const struct perf_val a[] = {
		{ .name = "UNC_P_CLOCKTICKS", .val = 2 * M },
		{ .name = "UNC_P_POWER_STATE_OCCUPANCY.CORES_C0", .val = 2 * M },
		{ .name = "UNC_P_POWER_STATE_OCCUPANCY.CORES_C6", .val = 2 * M },
		{ .name = "UNC_M2M_CLOCKTICKS", .val = 8 * M },
		{ .name = "UNC_M2M_DIRECTORY_UPDATE.ANY", .val = 0 },
		{ .name = "UNC_U_CLOCKTICKS", .val = 2 * M },
		{ .name = "UNC_M2P_CLOCKTICKS", .val = 12 * M },
		{ .name = "UNC_M3UPI_CLOCKTICKS", .val = 6 * M },
		{ .name = "UNC_M_CLOCKTICKS_FREERUN", .val = 8 * M },
	};

	/* make check always passes it: without it, a failure, not a skip */
	ASSERT_TRUE(perf && !access(perf, X_OK))
		TH_LOG("no patched perf: UPMU_PERF='%s' (scripts/perfbuild.sh builds it)",
		       perf ?: "");
	ASSERT_EQ(0, sim_ctl(SIM_ID, "cstate", "1:0:1"));
	perf_traffic = PERF_CLOCK_TRAFFIC;
	perf_json_run(_metadata, perf, a, ARRAY_SIZE(a));
}

/* ---- lifetime: CPU hotplug, removal ------------------------------------- */

/*
 * Socket 1's traffic of the lifetime tests, one round: 24 device reads
 * that miss (3 lines on each CHA, 2 CAS reads on each channel, whatever
 * line or CAS the round starts at) and 3 lines written to socket 0's
 * memory (9 data flits out of each of socket 1's links).
 */
static void s1_round(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, inject("socket=1 stack=0 op=rd size=64 count=24"));
	ASSERT_EQ(0, inject("socket=1 stack=0 op=wr size=64 count=3 dst=rem"));
}

/**
 * struct mem_ev - an event on every CHA, IMC and UPI box of a die
 * @cha: IO_MISS_PCIRDCUR
 * @imc: CAS_COUNT.RD
 * @upi: TxL_FLITS.ALL_DATA
 */
struct mem_ev {
	struct box_ev cha, imc, upi;
};

static void mem_open(struct __test_metadata *_metadata, struct mem_ev *e, int cpu)
{
	box_open(_metadata, &e->cha, "cha", NR_CHAS, IO_MISS_PCIRDCUR, cpu);
	box_open(_metadata, &e->imc, "imc", NR_IMCS, CAS_RD, cpu);
	box_open(_metadata, &e->upi, "upi", NR_UPIS, TXL_DATA, cpu);
}

/* Each box counted @n rounds of s1_round(). */
static void mem_expect(struct __test_metadata *_metadata, struct mem_ev *e,
		       uint64_t n, const char *what)
{
	uint64_t cha[NR_CHAS], imc[NR_IMCS], upi[NR_UPIS];
	unsigned int i;

	for (i = 0; i < NR_CHAS; i++)
		cha[i] = 3 * n;
	for (i = 0; i < NR_IMCS; i++)
		imc[i] = 2 * n;
	for (i = 0; i < NR_UPIS; i++)
		upi[i] = 9 * n;
	TH_LOG("%s: %llu round(s)", what, (unsigned long long)n);
	box_expect(_metadata, &e->cha, cha, "IO_MISS_PCIRDCUR");
	box_expect(_metadata, &e->imc, imc, "CAS_COUNT.RD");
	box_expect(_metadata, &e->upi, upi, "TxL_FLITS.ALL_DATA");
}

static void mem_close(struct mem_ev *e)
{
	box_close(&e->upi);
	box_close(&e->imc);
	box_close(&e->cha);
}

/* Every CHA, IMC and UPI PMU has @want as cpumask. */
static void mem_cpumask(struct __test_metadata *_metadata, const char *want)
{
	unsigned int i;

	for (i = 0; i < NR_CHAS; i++)
		expect_file(_metadata, box_name("cha", i), "cpumask", want);
	for (i = 0; i < NR_IMCS; i++)
		expect_file(_metadata, box_name("imc", i), "cpumask", want);
	for (i = 0; i < NR_UPIS; i++)
		expect_file(_metadata, box_name("upi", i), "cpumask", want);
}

/*
 * The owner of socket 1 (CPU 2) goes offline with events open on every
 * CHA, IMC and UPI box of its die: the die's boxes move to CPU 3 and
 * the events count on exactly; when CPU 2 comes back CPU 3 stays the
 * owner.  Socket 0's events count socket 0's traffic only, throughout.
 */
TEST_F(icx_mem, hotplug_per_die)
{
	struct mem_ev s1, s0;
	uint64_t n;

	mem_open(_metadata, &s1, 2);
	mem_open(_metadata, &s0, 0);
	s1_round(_metadata);
	mem_expect(_metadata, &s1, 1, "before");
	ASSERT_EQ(0, cpu_set_online(2, false));
	mem_cpumask(_metadata, "0,3");
	s1_round(_metadata);
	s1_round(_metadata);
	mem_expect(_metadata, &s1, 3, "CPU 2 offline");
	ASSERT_EQ(0, cpu_set_online(2, true));
	mem_cpumask(_metadata, "0,3");
	s1_round(_metadata);
	mem_expect(_metadata, &s1, 4, "CPU 2 back");
	mem_expect(_metadata, &s0, 0, "socket 0, socket 1's traffic");
	/* socket 0's own traffic: the same round on the other die */
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=24"));
	ASSERT_EQ(0, inject("socket=0 stack=0 op=wr size=64 count=3 dst=rem"));
	mem_expect(_metadata, &s0, 1, "socket 0");
	mem_close(&s0);
	mem_close(&s1);
	/* a new event on CPU 2 goes to its die's box and counts exactly */
	mem_open(_metadata, &s1, 2);
	for (n = 0; n < 2; n++)
		s1_round(_metadata);
	mem_expect(_metadata, &s1, 2, "new events");
	mem_close(&s1);
}

/*
 * The whole of socket 1 goes offline: its boxes have no owner and leave
 * cpumask, their events keep their counts and count no more (Documentation/
 * upmu-core.rst, "CPU hotplug"); socket 0's count on.  Once a CPU of the
 * die is back it owns the boxes and new events count exactly.
 */
TEST_F(icx_mem, hotplug_whole_die)
{
	struct mem_ev s1, s0;

	mem_open(_metadata, &s1, 2);
	mem_open(_metadata, &s0, 0);
	s1_round(_metadata);
	ASSERT_EQ(0, cpu_set_online(2, false));
	ASSERT_EQ(0, cpu_set_online(3, false));
	mem_cpumask(_metadata, "0");
	s1_round(_metadata);
	ASSERT_EQ(0, inject("socket=0 stack=0 op=rd size=64 count=24"));
	ASSERT_EQ(0, inject("socket=0 stack=0 op=wr size=64 count=3 dst=rem"));
	mem_expect(_metadata, &s1, 1, "socket 1 offline");
	mem_expect(_metadata, &s0, 1, "socket 0, socket 1 offline");
	ASSERT_EQ(0, cpu_set_online(3, true));
	mem_cpumask(_metadata, "0,3");
	ASSERT_EQ(0, cpu_set_online(2, true));
	mem_cpumask(_metadata, "0,3");
	s1_round(_metadata);
	mem_expect(_metadata, &s1, 1, "old events, socket 1 back");
	mem_close(&s0);
	mem_close(&s1);
	mem_open(_metadata, &s1, 3);
	s1_round(_metadata);
	mem_expect(_metadata, &s1, 1, "new events");
	mem_close(&s1);
}

/*
 * The device goes with events open on every CHA, IMC and UPI box of
 * socket 1: they keep their counts, what was counted but not yet read
 * included; on 6.15+ they are revoked (poll reports an error), before
 * that the dead PMUs refuse new events until the last event closes
 * (Documentation/upmu-core.rst, "Registration and removal").  A new
 * device counts from zero.
 */
TEST_F(icx_mem, del_device_with_open_events)
{
	static const char * const kinds[] = { CHA(0), IMC(11), UPI(2) };
	static const char * const specs[] = { IO_MISS_PCIRDCUR, CAS_RD, TXL_DATA };
	struct pollfd pfd = { .events = POLLIN };
	struct mem_ev e;
	unsigned int i;

	mem_open(_metadata, &e, 2);
	s1_round(_metadata);
	mem_expect(_metadata, &e, 1, "before");
	s1_round(_metadata);
	ASSERT_EQ(0, sim_del(SIM_ID));
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (kernel_revokes_events()) {
			EXPECT_FALSE(pmu_exists(kinds[i])) TH_LOG("%s", kinds[i]);
		} else {
			EXPECT_TRUE(pmu_exists(kinds[i])) TH_LOG("%s", kinds[i]);
			EXPECT_EQ(-ENODEV, ev_open(kinds[i], specs[i], 2, -1)) TH_LOG("%s", kinds[i]);
		}
	}
	mem_expect(_metadata, &e, 2, "after removal");
	if (kernel_revokes_events()) {
		pfd.fd = e.cha.fd[0];
		EXPECT_EQ(1, poll(&pfd, 1, 0));
		EXPECT_TRUE(pfd.revents & POLLERR);
		EXPECT_EQ(-1, ioctl(e.imc.fd[0], PERF_EVENT_IOC_ENABLE, 0));
		EXPECT_EQ(ENODEV, errno);
	} else {
		ASSERT_EQ(0, ioctl(e.upi.fd[0], PERF_EVENT_IOC_DISABLE, 0));
		ASSERT_EQ(0, ioctl(e.upi.fd[0], PERF_EVENT_IOC_ENABLE, 0));
	}
	mem_expect(_metadata, &e, 2, "after removal, again");
	mem_close(&e);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		EXPECT_TRUE(pmu_gone_within(kinds[i], 5000)) TH_LOG("%s", kinds[i]);
	}
	/* a fresh device: from zero */
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual"));
	ASSERT_TRUE(pmu_exists(UPI(2)));
	mem_open(_metadata, &e, 2);
	mem_expect(_metadata, &e, 0, "new device");
	s1_round(_metadata);
	mem_expect(_metadata, &e, 1, "new device");
	mem_close(&e);
}

/* ---- 48-bit wraps ----------------------------------------------------------- */

/*
 * Every Ice Lake-X counter is 48 bits wide, the general ones, the IMC's
 * fixed DCLK counter, the UBOX's fixed one and the free-running ones (upstream's perf_ctr_bits,
 * fixed_ctr_bits and icx_iio_freerunning; Skylake-X's free-running ones
 * were 36).  A step moves a counter by 2^47, half its range, the most the
 * simulator allows between two samples; after 5 steps it has crossed 2^48
 * at least twice, whatever it started at, and a count above 2^48 exists
 * only if the driver carried the wraps.  The driver polls 48-bit counters
 * every 2^47 / 2048 ns, clamped to 60 s, so its timer never runs in these
 * tests: a perf read after each step samples the counters, on the same
 * path as the timer (upmu_event_update()); sim_test's wrap_run() runs the
 * timer's path on 32-bit counters, whose period is short.
 */
#define HALF48		(1ULL << 47)
#define WRAP_STEPS	5

/* Clockticks: the clock moves by 2^47 cycles at 1000 MHz, 5 times. */
TEST_F(icx_mem, clockticks_wrap_48bit)
{
	static const struct { const char *pmu, *spec; } ev[] = {
		{ CHA(0), "event=0x0" },
		{ CHA(7), "event=0x0" },
		{ IMC(0), "event=0x0" },
		{ IMC(11), "event=0xff" },		/* the fixed counter */
		{ IMC(6), CAS_RD ",thresh=1,inv=1" },	/* cycles without a CAS */
		{ UPI(0), "event=0x1" },
		{ UPI(2), "event=0x1" },
		{ PCU, "event=0x0" },
		{ UBOX, "event=0xff" },			/* the fixed counter */
		{ M2M(1), "event=0x0" },
		{ M3UPI(2), "event=0x1" },
		{ IMC_FR(3), FR_DCLK },			/* free-running */
	};
	int fd[ARRAY_SIZE(ev)];
	unsigned int i, s;

	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		fd[i] = ev_open(ev[i].pmu, ev[i].spec, i & 1 ? 2 : 0, -1);
		ASSERT_LE(0, fd[i]) TH_LOG("%s/%s/: %s", ev[i].pmu, ev[i].spec,
					   strerror(-fd[i]));
	}
	EXPECT_EQ(-ERANGE, sim_ctl(SIM_ID, "advance", "%llu", HALF48 + 1));
	for (s = 1; s <= WRAP_STEPS; s++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "advance", "%llu", HALF48));
		for (i = 0; i < ARRAY_SIZE(ev); i++) {
			EXPECT_EQ(s * HALF48, count_of(_metadata, fd[i]))
				TH_LOG("%s/%s/, step %u", ev[i].pmu, ev[i].spec, s);
		}
	}
	for (i = ARRAY_SIZE(ev); i-- > 0;)
		close(fd[i]);
}

/*
 * A CHA's TOR occupancy by traffic: 65536 device reads of a line, 2^31
 * cycles each, are 2^47 for the IIO's and IRP's occupancy counters (the
 * most one batch may add) and 2^44 for each CHA's; 40 batches, from
 * stacks in turn, take every CHA across 2^48 twice.
 */
TEST_F(icx_mem, cha_occupancy_wrap_48bit)
{
	struct box_ev occ;
	uint64_t want[NR_CHAS];
	unsigned int i, b;

	box_open(_metadata, &occ, "cha", NR_CHAS, OCC_IO_MISS_PCIRDCUR, 0);
	EXPECT_EQ(-ERANGE, inject("socket=0 stack=0 op=rd size=64 count=65537 lat=2147483648"));
	for (b = 1; b <= 5 * 8; b++) {
		ASSERT_EQ(0, sim_ctl(SIM_ID, "inject",
				     "socket=0 stack=%u op=rd size=64 count=65536 lat=2147483648",
				     b % 5)) TH_LOG("batch %u", b);
		for (i = 0; i < NR_CHAS; i++)
			want[i] = (uint64_t)b << 44;
		box_expect(_metadata, &occ, want, "TOR_OCCUPANCY.IO_MISS_PCIRDCUR");
	}
	box_close(&occ);
}

TEST_HARNESS_MAIN
