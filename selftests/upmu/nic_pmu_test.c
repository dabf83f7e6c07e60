// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC's counting perf PMU (Documentation/upmu-nic-pmu.rst) on the
 * simulated NIC: its sysfs tables, exact counts of named (with
 * parameters) and raw data IDs against injected traffic, a Statistic,
 * the slot bank's limit, the engine kept linger_ms after the last event,
 * the arbitration with a fwctl owner of the diagnostic engine, reserved
 * config bits, removal with events open, the PMU following its PF when
 * that is unbound, and one perf stat line when perf is there.  Needs
 * upmu_core and upmu_sim loaded; loads upmu_nic from $UPMU_MODDIR if it
 * is not.  Without fwctl (Linux 6.1) the arbitration test SKIPs.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fwctl/fwctl.h>

#include "kselftest_harness.h"

#define SIM_ID	23

#include "upmu_test.h"
#include "../../driver/include/hw/nic_cmd.h"
#include "nic_fwctl_util.h"

#define NIC_OPTS	"blocks=nic clock=manual pfs=2 ports=2 links=2 hosts=2 funcs=4"
/* NIC_SERIAL_BASE + the device id: the PMU is named after the serial */
#define PMU		"upmu_nic_4e1c0017"
#define NR_SLOTS	16
#define DID(row, lo)	((uint64_t)NIC_DID_##row << 32 | (lo))

static int nic_inject(const char *what)
{
	return sim_ctl(SIM_ID, "nic/inject", "%s", what);
}

/* A raw data ID (data_id=) on the PMU's CPU; fd or -errno. */
static int open_raw(uint64_t config, uint64_t config1, int group)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.config = config,
		.config1 = config1,
	};
	uint64_t type;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), PMU_DEVICES "/%s/type", PMU);
	if (read_u64(path, &type))
		return -ENOENT;
	attr.type = type;
	return perf_open(&attr, -1, pmu_cpu(PMU), group);
}

FIXTURE(nic) {
	int dummy;
};

#define LINGER_MS	"/sys/module/upmu_nic/parameters/linger_ms"
#define LINGER_DEFAULT	"1000"	/* upmu_nic's */

FIXTURE_SETUP(nic)
{
	ASSERT_EQ(0, nic_load()) TH_LOG("cannot load upmu_nic from $UPMU_MODDIR");
	/* as loaded, whatever a test that stopped at a failure left */
	ASSERT_EQ(0, write_str(LINGER_MS, LINGER_DEFAULT));
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 1, NIC_OPTS));
	ASSERT_TRUE(pmu_exists(PMU));
}

FIXTURE_TEARDOWN_PARENT(nic)
{
	sim_del(SIM_ID);
}

#define OPEN(spec) ({							\
	int _fd = pmu_open(PMU, spec, -1);				\
	ASSERT_LE(0, _fd) TH_LOG("%s: %s", spec, strerror(-_fd));	\
	_fd; })

/* The engine's owner as the firmware has it: PF << 16 | uid, -1: none. */
static long fw_owner(void)
{
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/nic/owner", SIM_ID);
	return read_str(path, buf, sizeof(buf)) ? -2 : strtol(buf, NULL, 0);
}

/* Wait up to @ms for the engine to be nobody's. */
static bool owner_gone_within(unsigned int ms)
{
	for (; fw_owner() != -1 && ms; ms -= 10)
		usleep(10000);
	return fw_owner() == -1;
}

/*
 * With linger_ms 0 an event costs the device five calls of its register
 * accessors: the firmware command that takes the engine (its input,
 * doorbell and output header in one), the slot's programming with its
 * first read, its start, its stop with its last read, the command that
 * gives the engine back.
 */
TEST_F(nic, five_register_calls_an_event)
{
	uint64_t calls;

	ASSERT_EQ(0, write_str(LINGER_MS, "0"));
	ASSERT_EQ(0, sim_calls_of_opens(SIM_ID, PMU, "icmc_hits", 10, &calls));
	EXPECT_EQ(50ULL, calls);
	EXPECT_EQ(-1, fw_owner());
	EXPECT_EQ(0, write_str(LINGER_MS, LINGER_DEFAULT));
}

/*
 * The PMU keeps the engine linger_ms after its last event: events opened
 * meanwhile send no command (three calls each, the first one four), and
 * the engine goes back when the time is up, in one call.
 */
TEST_F(nic, engine_lingers)
{
	uint64_t calls, c0, c1;
	int fd;

	ASSERT_EQ(0, write_str(LINGER_MS, "60000"));
	EXPECT_EQ(-1, fw_owner());
	ASSERT_EQ(0, sim_calls_of_opens(SIM_ID, PMU, "icmc_hits", 10, &calls));
	EXPECT_EQ(4ULL + 9 * 3, calls);
	EXPECT_EQ(0, fw_owner());
	/* it counts as before */
	fd = OPEN("icmc_hits");
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=3"));
	EXPECT_EQ(3ULL, count_of(_metadata, fd));
	ASSERT_EQ(0, sim_stat(SIM_ID, "calls", &c0));
	/* the last event's close sets the time */
	ASSERT_EQ(0, write_str(LINGER_MS, "100"));
	close(fd);
	EXPECT_TRUE(owner_gone_within(5000));
	ASSERT_EQ(0, sim_stat(SIM_ID, "calls", &c1));
	/* the slot's stop and last read, the command that gives it back */
	EXPECT_EQ(2ULL, c1 - c0);
	EXPECT_EQ(0, write_str(LINGER_MS, LINGER_DEFAULT));
}

/* The formats and events perf reads, with their parameters and units. */
TEST_F(nic, sysfs)
{
	char buf[256];

	ASSERT_EQ(0, pmu_read(PMU, "format/data_id", buf, sizeof(buf)));
	EXPECT_STREQ("config:0-63", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/prio", buf, sizeof(buf)));
	EXPECT_STREQ("config:8-11", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/tclass", buf, sizeof(buf)));
	EXPECT_STREQ("config:24-31", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/port_rx_bytes", buf, sizeof(buf)));
	EXPECT_STREQ("data_id=0x1020000100000000,port=?", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/port_prio_tx_packets", buf, sizeof(buf)));
	EXPECT_STREQ("data_id=0x1140000400000000,port=?,prio=?", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/icmc_hits", buf, sizeof(buf)));
	EXPECT_STREQ("data_id=0x1180000200000000", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/port_rx_bytes.unit", buf, sizeof(buf)));
	EXPECT_STREQ("MiB", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/pcie_rd_lat_total_ns.unit", buf, sizeof(buf)));
	EXPECT_STREQ("ns", buf);
	/* the model (vendor:device:cmdif), the instance in "serial" */
	ASSERT_EQ(0, pmu_read(PMU, "identifier", buf, sizeof(buf)));
	EXPECT_STREQ("15b3:a2dc:5", buf);
	ASSERT_EQ(0, pmu_read(PMU, "serial", buf, sizeof(buf)));
	EXPECT_STREQ("4e1c0017", buf);
	ASSERT_EQ(0, pmu_read(PMU, "pf", buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
}

/* Exact counts of every class, from the moment each event is opened. */
TEST_F(nic, counts)
{
	int rx_bytes, prio_pkts, raw_pkts, other_port, pcie, cqe, hits, acc;

	/* before the events: not counted */
	ASSERT_EQ(0, nic_inject("ev=rx port=1 prio=3 size=100 count=50"));

	rx_bytes = OPEN("port_rx_bytes,port=1");
	prio_pkts = OPEN("port_prio_rx_packets,port=1,prio=3");
	raw_pkts = open_raw(DID(RX_PACKETS, 1), 0, -1);
	ASSERT_LE(0, raw_pkts);
	other_port = OPEN("port_rx_packets,port=0");
	pcie = OPEN("pcie_in_data_bytes,link=1");
	cqe = OPEN("func_rx_cqe,func=2");
	hits = OPEN("icmc_hits");
	acc = OPEN("icmc_accesses");

	ASSERT_EQ(0, nic_inject("ev=rx port=1 prio=3 size=100 count=7"));
	ASSERT_EQ(0, nic_inject("ev=rx port=1 prio=5 size=64 count=2"));
	ASSERT_EQ(0, nic_inject("ev=pcie_in link=1 size=64 count=5"));
	ASSERT_EQ(0, nic_inject("ev=pcie_in link=0 size=64 count=9"));
	ASSERT_EQ(0, nic_inject("ev=rx_cqe func=2 count=4"));
	ASSERT_EQ(0, nic_inject("ev=rx_cqe func=1 count=6"));
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=3"));
	ASSERT_EQ(0, nic_inject("ev=icmc_miss count=2"));

	EXPECT_EQ(828ULL, count_of(_metadata, rx_bytes));
	EXPECT_EQ(7ULL, count_of(_metadata, prio_pkts));
	EXPECT_EQ(9ULL, count_of(_metadata, raw_pkts));
	EXPECT_EQ(0ULL, count_of(_metadata, other_port));
	EXPECT_EQ(320ULL, count_of(_metadata, pcie));
	EXPECT_EQ(4ULL, count_of(_metadata, cqe));
	EXPECT_EQ(3ULL, count_of(_metadata, hits));
	EXPECT_EQ(5ULL, count_of(_metadata, acc));

	/* disabled: frozen; enabled again: counts on from there */
	ASSERT_EQ(0, ioctl(rx_bytes, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, nic_inject("ev=rx port=1 size=1000"));
	EXPECT_EQ(828ULL, count_of(_metadata, rx_bytes));
	ASSERT_EQ(0, ioctl(rx_bytes, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, nic_inject("ev=rx port=1 size=10"));
	EXPECT_EQ(838ULL, count_of(_metadata, rx_bytes));
	EXPECT_EQ(11ULL, count_of(_metadata, raw_pkts));
}

/*
 * Counting events are additive: perf sums, scales and subtracts them.  A
 * Statistic (the max or min PCIe read latency) is an extreme, which none
 * of that keeps true: it is no event here (its place is the AUX stream
 * and upmu-diag), and its raw data ID is EINVAL.  The read latency's
 * total and count are, and their ratio is the mean.
 */
TEST_F(nic, statistic_not_counted)
{
	char buf[64];
	int total, count;

	EXPECT_EQ(-ENOENT, pmu_read(PMU, "events/pcie_rd_lat_max_ns", buf, sizeof(buf)));
	EXPECT_EQ(-ENOENT, pmu_read(PMU, "events/pcie_rd_lat_min_ns", buf, sizeof(buf)));
	EXPECT_EQ(-EINVAL, open_raw(DID(PCIE_RD_LAT_MAX, 0), 0, -1));
	EXPECT_EQ(-EINVAL, open_raw(DID(PCIE_RD_LAT_MIN, 1), 0, -1));
	total = OPEN("pcie_rd_lat_total_ns,link=0");
	count = OPEN("pcie_rd_count,link=0");
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=500"));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=900"));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=1 lat=50"));
	EXPECT_EQ(1400ULL, count_of(_metadata, total));
	EXPECT_EQ(2ULL, count_of(_metadata, count));
}

/*
 * NR_SLOTS events fit in a group, one more does not; as many separate
 * events as slots count at once, exactly.
 */
TEST_F(nic, slots)
{
	int fd[NR_SLOTS + 1], i, leader;
	uint64_t v;

	leader = open_raw(DID(RX_BYTES_PRIO, 0), 0, -1);
	ASSERT_LE(0, leader);
	for (i = 1; i < NR_SLOTS; i++) {
		fd[i] = open_raw(DID(RX_BYTES_PRIO, i % 8 << 8 | i / 8), 0, leader);
		ASSERT_LE(0, fd[i]) TH_LOG("sibling %d: %s", i, strerror(-fd[i]));
	}
	EXPECT_EQ(-EINVAL, open_raw(DID(RX_BYTES, 0), 0, leader));
	ASSERT_EQ(0, nic_inject("ev=rx port=1 prio=7 size=64 count=3"));
	ASSERT_EQ(0, count_read(fd[NR_SLOTS - 1], &v));	/* port 1 prio 7 */
	EXPECT_EQ(192ULL, v);
	for (i = 1; i < NR_SLOTS; i++)
		close(fd[i]);
	close(leader);

	for (i = 0; i < NR_SLOTS; i++) {
		fd[i] = open_raw(DID(RX_PACKETS_PRIO, i % 8 << 8 | i / 8), 0, -1);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, nic_inject("ev=rx port=0 prio=2 size=64 count=4"));
	ASSERT_EQ(0, nic_inject("ev=rx port=1 prio=6 size=64 count=6"));
	EXPECT_EQ(4ULL, count_of(_metadata, fd[2]));
	EXPECT_EQ(6ULL, count_of(_metadata, fd[14]));
	EXPECT_EQ(0ULL, count_of(_metadata, fd[3]));
	for (i = 0; i < NR_SLOTS; i++)
		close(fd[i]);
}

/* Bits outside the device's data IDs and the config words are refused. */
TEST_F(nic, bad_config)
{
	EXPECT_EQ(-EINVAL, open_raw(DID(RX_BYTES, 0), 1, -1));		/* config1 */
	EXPECT_EQ(-EINVAL, open_raw(DID(RX_BYTES, 2), 0, -1));		/* port 2 */
	EXPECT_EQ(-EINVAL, open_raw(DID(RX_BYTES_PRIO, 8 << 8), 0, -1));	/* prio 8 */
	EXPECT_EQ(-EINVAL, open_raw(DID(RX_CQE_FUNC, 4), 0, -1));	/* func 4 */
	EXPECT_EQ(-EINVAL, open_raw(0x1234567800000000ULL, 0, -1));
	EXPECT_EQ(-EINVAL, open_raw(DID(ICMC_HITS, 1), 0, -1));
}

/* ---- arbitration with fwctl ---------------------------------------------- */


/*
 * While a fwctl user owns the engine, new events get EBUSY; while events
 * exist, a user's take (forced or not) gets the firmware's busy status;
 * closing the file (or the last event) hands the engine back.
 */
TEST_F(nic, fwctl_owner)
{
	int fw, fd, fd2;

	if (access(FWCTL_CLASS, F_OK))
		SKIP(return, "kernel without fwctl");
	fw = fw_open(1);
	ASSERT_LE(0, fw);
	ASSERT_EQ(NIC_STAT_OK, own(fw, NIC_OWN_TAKE, false));
	EXPECT_EQ(-EBUSY, pmu_open(PMU, "icmc_hits", -1));
	ASSERT_EQ(NIC_STAT_OK, own(fw, NIC_OWN_RELEASE, false));

	fd = OPEN("icmc_hits");
	fd2 = OPEN("icmc_misses");
	EXPECT_EQ(NIC_STAT_RES_BUSY, own(fw, NIC_OWN_TAKE, false));
	EXPECT_EQ(NIC_STAT_RES_BUSY, own(fw, NIC_OWN_TAKE, true));
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=5"));
	EXPECT_EQ(5ULL, count_of(_metadata, fd));
	close(fd);
	/* one event left: still the kernel's */
	EXPECT_EQ(NIC_STAT_RES_BUSY, own(fw, NIC_OWN_TAKE, false));
	close(fd2);
	ASSERT_EQ(NIC_STAT_OK, own(fw, NIC_OWN_TAKE, false));
	EXPECT_EQ(-EBUSY, pmu_open(PMU, "icmc_hits", -1));
	/* the owner's file closes: its ownership goes with it */
	close(fw);
	fd = OPEN("icmc_hits");
	close(fd);
}

/* The device goes with an event open: its count is kept (core rules). */
TEST_F(nic, del_device)
{
	struct pollfd pfd;
	uint64_t v;
	int fd;

	fd = OPEN("port_tx_packets,port=1");
	ASSERT_EQ(0, nic_inject("ev=tx port=1 size=64 count=5"));
	EXPECT_EQ(5ULL, count_of(_metadata, fd));
	ASSERT_EQ(0, nic_inject("ev=tx port=1 size=64 count=2"));
	ASSERT_EQ(0, sim_del(SIM_ID));
	if (kernel_revokes_events()) {
		EXPECT_FALSE(pmu_exists(PMU));
		ASSERT_EQ(0, count_read(fd, &v));
		EXPECT_EQ(7ULL, v);
		pfd.fd = fd;
		pfd.events = 0;
		EXPECT_EQ(1, poll(&pfd, 1, 0));
		EXPECT_TRUE(pfd.revents & POLLERR);
	} else {
		EXPECT_TRUE(pmu_exists(PMU));
		EXPECT_EQ(0, pmu_dead_check(PMU, "icmc_hits"));
		ASSERT_EQ(0, count_read(fd, &v));
		EXPECT_EQ(7ULL, v);
	}
	close(fd);
	EXPECT_TRUE(pmu_gone_within(PMU, 5000));
	/* a new device of the same id gets its PMU back */
	ASSERT_EQ(0, sim_new(SIM_ID, 1, NIC_OPTS));
	EXPECT_TRUE(pmu_exists(PMU));
}

#define NIC_DRV	"/sys/bus/platform/drivers/upmu-nic"

/* The platform device of PF @pf of this NIC (bound), into @name. */
static int pf_device(unsigned int pf, char *name, size_t len)
{
	char path[PATH_MAX], buf[64];
	struct dirent *e;
	int ret = -ENOENT;
	DIR *d;

	d = opendir(NIC_DRV);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "upmu-nic-pf.", 12))
			continue;
		snprintf(path, sizeof(path), NIC_DRV "/%s/serial", e->d_name);
		if (read_str(path, buf, sizeof(buf)) || strcmp(buf, PMU + 9))
			continue;
		snprintf(path, sizeof(path), NIC_DRV "/%s/pf", e->d_name);
		if (read_str(path, buf, sizeof(buf)) || atoi(buf) != (int)pf)
			continue;
		snprintf(name, len, "%s", e->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

/* Bind or unbind platform device @name to or from upmu-nic. */
static int nic_drv(const char *what, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), NIC_DRV "/%s", what);
	return write_str(path, name);
}

/*
 * The PMU's PF goes: the PMU comes back, same name, through the other
 * PF and counts there; a PF that binds again leaves it where it is.
 * Where perf cannot detach events (before 6.15) an open event keeps
 * the old PMU until it is closed, and the PMU comes back with the next
 * PF that binds.
 */
/* The PMU is there, counting through PF @want. */
#define EXPECT_PMU_PF(want) do {					\
	char _pf[16];							\
	ASSERT_TRUE(pmu_exists(PMU));					\
	ASSERT_EQ(0, pmu_read(PMU, "pf", _pf, sizeof(_pf)));		\
	EXPECT_STREQ(want, _pf);					\
} while (0)

TEST_F(nic, follows_pf)
{
	char pf0[64], pf1[64];
	uint64_t v;
	int fd;

	ASSERT_EQ(0, pf_device(0, pf0, sizeof(pf0)));
	ASSERT_EQ(0, pf_device(1, pf1, sizeof(pf1)));
	EXPECT_PMU_PF("0");

	/* no events: PF 0 goes, the PMU is PF 1's */
	ASSERT_EQ(0, nic_drv("unbind", pf0));
	EXPECT_PMU_PF("1");
	fd = OPEN("port_rx_packets,port=0");
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=64 count=7"));
	EXPECT_EQ(7ULL, count_of(_metadata, fd));
	/* PF 0 back: nothing moves */
	ASSERT_EQ(0, nic_drv("bind", pf0));
	EXPECT_PMU_PF("1");
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=64 count=2"));
	EXPECT_EQ(9ULL, count_of(_metadata, fd));

	/* PF 1 goes with the event open */
	ASSERT_EQ(0, nic_drv("unbind", pf1));
	if (kernel_revokes_events()) {
		/* the event ends with its count; the PMU is PF 0's */
		ASSERT_EQ(0, count_read(fd, &v));
		EXPECT_EQ(9ULL, v);
		close(fd);
		EXPECT_PMU_PF("0");
	} else {
		/* the old PMU stays, dead, while the event is open */
		EXPECT_EQ(0, pmu_dead_check(PMU, "icmc_hits"));
		close(fd);
		EXPECT_TRUE(pmu_gone_within(PMU, 5000));
		/* the next PF that binds brings it back */
		ASSERT_EQ(0, nic_drv("bind", pf1));
		EXPECT_PMU_PF("1");
	}
	fd = OPEN("icmc_hits");
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=4"));
	EXPECT_EQ(4ULL, count_of(_metadata, fd));
	close(fd);
}

/* perf stat on a named event with a parameter, when perf is there. */
TEST_F(nic, perf_stat)
{
	const char *perf = getenv("PERF") ?: "/usr/bin/perf";
	char cmd[1024], line[256] = "";
	FILE *f;

	if (access(perf, X_OK))
		SKIP(return, "no %s", perf);
	/* 16 x 64 KiB: 1.00 MiB on port 0; port 1 is not counted */
	snprintf(cmd, sizeof(cmd),
		 "%s stat -a -x, -e %s/port_rx_bytes,port=0/ -- sh -c "
		 "\"echo 'ev=rx port=0 size=65536 count=16' > " SIM_DEBUGFS "/%u/nic/inject; "
		 "echo 'ev=rx port=1 size=65536 count=16' > " SIM_DEBUGFS "/%u/nic/inject\" "
		 "2>&1 >/dev/null | grep -v '^#' | grep -v '^$' | head -n1",
		 perf, PMU, SIM_ID, SIM_ID);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	pclose(f);
	TH_LOG("%s", line);
	EXPECT_EQ(0, strncmp(line, "1.00,MiB,", 9)) TH_LOG("perf stat: '%s'", line);
}

TEST_HARNESS_MAIN
