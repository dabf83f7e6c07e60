// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC's AUX stream PMU (Documentation/upmu-nic-aux.rst) on the
 * simulated NIC, with perf_event_open() and mmap of the data and AUX
 * areas as perf record would do it, no perf tool: exact values of the
 * samples on the manual clock, a META record at the start of every
 * commit, the stream beginning at the first enabling with no LOST, LOST with the exact sample_id range after a device overrun,
 * TRUNCATED with a full AUX area and nothing lost once it is read and
 * the event enabled again, the device clock paired with perf's to
 * microseconds on the realtime clock, EBUSY and EINVAL cases, removal of the device
 * and offlining of the event's CPU with the stream open.  Needs
 * upmu_core and upmu_sim loaded; loads upmu_nic from $UPMU_MODDIR.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "kselftest_harness.h"

#define SIM_ID	29

#include "upmu_test.h"
#include "../../driver/include/hw/nic_cmd.h"
#include "../../driver/include/hw/upmu_aux.h"
#include "nic_fwctl_util.h"

/* 2 sockets, the NIC on socket 1 (CPUs 2 and 3 of the test VM) */
#define NIC_OPTS	"blocks=nic clock=manual pfs=2 ports=2 links=2 nic_socket=1"
#define SERIAL		(0x4e1c0000 + SIM_ID)
#define PMU		"upmu_nicdiag_4e1c001d"
#define CPMU		"upmu_nic_4e1c001d"
#define DID(row, lo)	((uint64_t)NIC_DID_##row << 32 | (lo))
#define PERIOD		1024	/* dev_period=10: 2^10 ns */
#define DRAIN_NS	100000	/* the shortest drain period */
#define TIME_PAIR_NS	50000	/* spread of the clock pairs (time_pairs) */

/* RX packets and bytes of port 0: 2 values, 40-byte samples */
#define SPEC(extra)	"profile=0,id0=0x1020000300000000,id1=0x1020000100000000," \
			"dev_period=10" extra
#define SMP_LEN		(sizeof(struct upmu_aux_dev_sample) + 16)	/* stride */
#define SMPS_HDR	sizeof(struct upmu_aux_samples)
#define META_LEN	(sizeof(struct upmu_aux_meta) + 16)

struct stream {
	int fd;
	struct perf_event_mmap_page *pg;
	size_t data_len;
	uint8_t *aux;
	size_t aux_len;
	uint64_t tail;		/* AUX bytes consumed */
	uint64_t data_tail;	/* data ring bytes consumed */
	uint64_t rno;		/* AUX records consumed */
};

/*
 * A decoded AUX area: the records and the commits perf reported.  A
 * SAMPLES record is one entry per sample in the form of a version-1
 * SAMPLE record (its header's seq, type UPMU_AUX_SAMPLE, size the
 * stride, v[] as a SAMPLE's body), as the perf decoder hands them out.
 */
#define MAX_REC		512
struct rec {
	struct upmu_aux_hdr h;
	uint64_t off;		/* absolute AUX offset of the record */
	uint64_t rno;		/* the record's number in the stream, from 0 */
	uint64_t v[16];		/* the body after the header, as u64 */
};

struct commits {
	unsigned int n;
	uint64_t off[MAX_REC], size[MAX_REC], flags[MAX_REC];
};

static int nic_advance(uint64_t ns)
{
	return sim_ctl(SIM_ID, "advance", "%llu", (unsigned long long)ns);
}

static int nic_inject(const char *what)
{
	return sim_ctl(SIM_ID, "nic/inject", "%s", what);
}

/*
 * Opens @spec disabled on the PMU's CPU, draining every @drain_ns, on
 * perf clock @clockid (-1: perf's default), and maps data and AUX; 0 or
 * -errno.
 */
static int stream_open_on(struct stream *s, const char *spec, int aux_pages,
			  bool writable, uint64_t drain_ns, int clockid)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	ret = pmu_attr(PMU, spec, &attr);
	if (ret)
		return ret;
	attr.sample_period = drain_ns;
	attr.disabled = 1;
	if (clockid >= 0) {
		attr.use_clockid = 1;
		attr.clockid = clockid;
	}
	s->fd = perf_open(&attr, -1, pmu_cpu(PMU), -1);
	if (s->fd < 0)
		return s->fd;
	s->data_len = 9 * page;
	s->pg = mmap(NULL, s->data_len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->pg == MAP_FAILED)
		return -errno;
	s->aux_len = aux_pages * page;
	s->pg->aux_offset = s->data_len;
	s->pg->aux_size = s->aux_len;
	s->aux = mmap(NULL, s->aux_len, PROT_READ | (writable ? PROT_WRITE : 0),
		      MAP_SHARED, s->fd, s->data_len);
	if (s->aux == MAP_FAILED) {
		s->aux = NULL;
		return -errno;
	}
	return 0;
}

static int stream_open(struct stream *s, const char *spec, int aux_pages,
		       bool writable)
{
	return stream_open_on(s, spec, aux_pages, writable, DRAIN_NS, -1);
}

static void stream_close(struct stream *s)
{
	if (s->aux)
		munmap(s->aux, s->aux_len);
	if (s->pg && s->pg != MAP_FAILED)
		munmap(s->pg, s->data_len);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->aux = NULL;
	s->pg = NULL;
}

static int stream_enable(struct stream *s)
{
	return ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0) ? -errno : 0;
}

/*
 * Wait for the drain timer to have taken every sample the engine took
 * (nic/unread 0), at most 3 s (a full AUX area leaves samples in the
 * device), then for its commit: the AUX head unchanged for 20 ms.  A
 * fixed sleep is too short when the host is busy.
 */
static void drain_wait_on(struct stream *s)
{
	uint64_t unread = 1, head;
	int i;

	for (i = 0; i < 300; i++) {
		if (!sim_get(SIM_ID, "nic/unread", &unread) && !unread)
			break;
		usleep(10000);
	}
	if (!s || !s->pg)
		return;
	do {
		head = __atomic_load_n(&s->pg->aux_head, __ATOMIC_ACQUIRE);
		usleep(20000);
	} while (head != __atomic_load_n(&s->pg->aux_head, __ATOMIC_ACQUIRE));
}

/* (every caller has its stream in s) */
#define drain_wait()	drain_wait_on(s)

/* The PERF_RECORD_AUX records of the data ring since the last call. */
static void read_commits(struct stream *s, struct commits *c)
{
	uint8_t *data = (uint8_t *)s->pg + s->pg->data_offset;
	uint64_t size = s->pg->data_size;
	uint64_t head = __atomic_load_n(&s->pg->data_head, __ATOMIC_ACQUIRE);

	while (s->data_tail < head) {
		struct perf_event_header h;
		uint64_t body[3];
		unsigned int i;

		for (i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(s->data_tail + i) % size];
		if (h.type == PERF_RECORD_AUX && c->n < MAX_REC) {
			for (i = 0; i < sizeof(body); i++)
				((uint8_t *)body)[i] =
					data[(s->data_tail + sizeof(h) + i) % size];
			c->off[c->n] = body[0];
			c->size[c->n] = body[1];
			c->flags[c->n] = body[2];
			c->n++;
		}
		if (!h.size)
			break;
		s->data_tail += h.size;
	}
	__atomic_store_n(&s->pg->data_tail, s->data_tail, __ATOMIC_RELEASE);
}

/* Body fields, as u64 indexes after the header */
#define M_SERIAL_KHZ	0	/* serial | dev_khz << 32 */
#define M_MODE_FLAGS	1
#define M_PERIOD	2
#define M_DEV_TIME	3
#define M_IDS		4
#define S_ID		0
#define S_TS_FIRST	1
#define S_TS_LAST	2
#define S_VAL		3
#define L_COUNT		0
#define L_FIRST		1
#define L_LAST		2
#define L_REASON	3

/* Copies @len bytes at absolute AUX offset @off (across the wrap). */
static void aux_copy(struct stream *s, uint64_t off, void *dst, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)dst)[i] = s->aux[(off + i) % s->aux_len];
}

/*
 * Decodes the AUX records from the consumed position to aux_head into
 * @r; consumes them if @consume.  Returns the number, or -1 on a record
 * that does not parse.
 */
static int read_records(struct stream *s, struct rec *r, bool consume)
{
	uint64_t head = __atomic_load_n(&s->pg->aux_head, __ATOMIC_ACQUIRE);
	uint64_t off = s->tail, rno = s->rno;
	int n = 0;

	while (off < head && n < MAX_REC) {
		struct rec *x = &r[n];
		struct upmu_aux_samples b;
		uint32_t i;

		aux_copy(s, off, &x->h, sizeof(x->h));
		if (x->h.magic != UPMU_AUX_MAGIC || x->h.version != UPMU_AUX_VERSION ||
		    x->h.size < sizeof(x->h) || x->h.size % 8 || off + x->h.size > head)
			return -1;
		x->off = off;
		x->rno = rno++;
		if (x->h.type != UPMU_AUX_SAMPLES) {
			if (x->h.size > sizeof(x->h) + sizeof(x->v))
				return -1;
			memset(x->v, 0, sizeof(x->v));
			aux_copy(s, off + sizeof(x->h), x->v, x->h.size - sizeof(x->h));
			off += x->h.size;
			n++;
			continue;
		}
		aux_copy(s, off, &b, sizeof(b));
		if (b.stride < sizeof(struct upmu_aux_dev_sample) ||
		    b.stride > sizeof(x->v) || b.stride % 8 ||
		    b.hdr.size != sizeof(b) + (uint64_t)b.count * b.stride)
			return -1;
		for (i = 0; i < b.count && n < MAX_REC; i++, n++) {
			uint64_t at = off + sizeof(b) + (uint64_t)i * b.stride;
			uint32_t id;

			x = &r[n];
			x->h = b.hdr;
			x->h.type = UPMU_AUX_SAMPLE;
			x->h.size = b.stride;
			x->off = off;
			x->rno = rno - 1;
			memset(x->v, 0, sizeof(x->v));
			aux_copy(s, at, x->v, b.stride);
			/* the device's 32-bit id is its place: first_id + i */
			id = (uint32_t)x->v[S_ID];
			if (x->v[S_ID] >> 32 || id != (uint32_t)(b.first_id + i))
				return -1;
			x->v[S_ID] = b.first_id + i;
			x->h.time = b.hdr.time - (b.dev_time - x->v[S_TS_LAST]);
		}
		off += b.hdr.size;
	}
	if (consume) {
		s->tail = off;
		s->rno = rno;
		__atomic_store_n(&s->pg->aux_tail, off, __ATOMIC_RELEASE);
	}
	return n;
}


FIXTURE(aux) {
	struct stream s;
	struct rec r[MAX_REC];
	struct commits c;
};

FIXTURE_SETUP(aux)
{
	upmu_fixture_setup(_metadata);
	ASSERT_EQ(0, nic_load()) TH_LOG("cannot load upmu_nic from $UPMU_MODDIR");
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 2, NIC_OPTS));
	ASSERT_TRUE(pmu_exists(PMU));
	self->s.fd = -1;
	memset(&self->c, 0, sizeof(self->c));
}

FIXTURE_TEARDOWN_PARENT(aux)
{
	sim_del(SIM_ID);
	upmu_fixture_teardown(_metadata);
}

#define OPEN_STREAM(spec, pages) \
	ASSERT_EQ(0, stream_open(&self->s, spec, pages, true))

/* The PMU's sysfs files: the contract's formats and profiles. */
TEST_F(aux, sysfs)
{
	char buf[256];

	ASSERT_EQ(0, pmu_read(PMU, "format/profile", buf, sizeof(buf)));
	EXPECT_STREQ("config:0-7", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/dev_period", buf, sizeof(buf)));
	EXPECT_STREQ("config:8-13", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/log_samples", buf, sizeof(buf)));
	EXPECT_STREQ("config:16-19", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/single", buf, sizeof(buf)));
	EXPECT_STREQ("config:20", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/id0", buf, sizeof(buf)));
	EXPECT_STREQ("config1:0-63", buf);
	ASSERT_EQ(0, pmu_read(PMU, "format/id1", buf, sizeof(buf)));
	EXPECT_STREQ("config2:0-63", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/port_traffic", buf, sizeof(buf)));
	EXPECT_STREQ("profile=0x1", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/pcie", buf, sizeof(buf)));
	EXPECT_STREQ("profile=0x2", buf);
	ASSERT_EQ(0, pmu_read(PMU, "events/doca_default", buf, sizeof(buf)));
	EXPECT_STREQ("profile=0x3", buf);
	ASSERT_EQ(0, pmu_read(PMU, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("2", buf);
	ASSERT_EQ(0, pmu_read(PMU, "identifier", buf, sizeof(buf)));
	EXPECT_STREQ("15b3:a2dc:5", buf);
	ASSERT_EQ(0, pmu_read(PMU, "serial", buf, sizeof(buf)));
	EXPECT_STREQ("4e1c001d", buf);
}

/*
 * K samples with known values, each exactly once, in order, in commits
 * that each start with a META record describing the stream.
 */
TEST_F(aux, exact_samples)
{
	static const uint64_t pkts[] = { 5, 8, 8, 9 }, bytes[] = { 500, 530, 530, 531 };
	struct stream *s = &self->s;
	uint64_t t0, next_id = 0;
	unsigned int i, k = 0, metas = 0;
	int n, j;

	t0 = 0;
	ASSERT_EQ(0, sim_get(SIM_ID, "now_ns", &t0));
	OPEN_STREAM(SPEC(",log_samples=4"), 4);
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=5"));
	ASSERT_EQ(0, nic_advance(PERIOD + 64));		/* sample 0 */
	drain_wait();
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=10 count=3"));
	ASSERT_EQ(0, nic_advance(2 * PERIOD));		/* samples 1, 2 */
	drain_wait();
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=1 count=1"));
	ASSERT_EQ(0, nic_advance(PERIOD));		/* sample 3 */
	drain_wait();
	ASSERT_EQ(0, ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0));

	n = read_records(s, self->r, true);
	ASSERT_LT(0, n);
	read_commits(s, &self->c);
	for (j = 0; j < n; j++) {
		struct rec *x = &self->r[j];

		EXPECT_EQ(x->rno, x->h.seq);
		if (x->h.type == UPMU_AUX_META) {
			metas++;
			EXPECT_EQ((uint32_t)META_LEN, x->h.size);
			EXPECT_EQ(2U, x->h.nr);
			EXPECT_EQ((uint64_t)SERIAL | 1000000ULL << 32, x->v[M_SERIAL_KHZ]);
			EXPECT_EQ((uint64_t)NIC_MODE_REPETITIVE, x->v[M_MODE_FLAGS]);
			EXPECT_EQ((uint64_t)PERIOD, x->v[M_PERIOD]);
			EXPECT_LE(t0 + PERIOD + 64, x->v[M_DEV_TIME]);
			EXPECT_GE(t0 + 4 * PERIOD + 64, x->v[M_DEV_TIME]);
			EXPECT_EQ(DID(RX_PACKETS, 0), x->v[M_IDS]);
			EXPECT_EQ(DID(RX_BYTES, 0), x->v[M_IDS + 1]);
			continue;
		}
		ASSERT_EQ(UPMU_AUX_SAMPLE, x->h.type) TH_LOG("record %d", j);
		ASSERT_GT(4U, k);
		EXPECT_EQ((uint32_t)SMP_LEN, x->h.size);
		EXPECT_EQ(next_id++, x->v[S_ID]);
		EXPECT_EQ(t0 + (k + 1) * PERIOD, x->v[S_TS_FIRST]);
		EXPECT_EQ(t0 + (k + 1) * PERIOD + 64, x->v[S_TS_LAST]);
		EXPECT_EQ(pkts[k], x->v[S_VAL]) TH_LOG("sample %u", k);
		EXPECT_EQ(bytes[k], x->v[S_VAL + 1]) TH_LOG("sample %u", k);
		k++;
	}
	EXPECT_EQ(4U, k);
	/* one META per commit, at its start; no flags */
	EXPECT_EQ(self->c.n, metas);
	for (i = 0; i < self->c.n; i++) {
		struct upmu_aux_hdr h;

		aux_copy(s, self->c.off[i], &h, sizeof(h));
		EXPECT_EQ(UPMU_AUX_META, h.type) TH_LOG("commit %u", i);
		EXPECT_EQ(0ULL, self->c.flags[i] & (PERF_AUX_FLAG_TRUNCATED |
						     PERF_AUX_FLAG_PARTIAL));
	}
	stream_close(s);
}

/*
 * aux_stats counts every commit with records and their bytes: exactly
 * the PERF_RECORD_AUX records with data and the AUX head's move.
 */
TEST_F(aux, drain_stats)
{
	struct stream *s = &self->s;
	struct pmu_aux_stats s0, s1;
	uint64_t head;
	unsigned int i, with_data = 0;

	OPEN_STREAM(SPEC(",log_samples=4"), 4);
	ASSERT_EQ(0, pmu_aux_stats(PMU, &s0));
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(PERIOD + 64));
	drain_wait();
	ASSERT_EQ(0, nic_advance(3 * PERIOD));
	drain_wait();
	ASSERT_EQ(0, ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pmu_aux_stats(PMU, &s1));
	head = __atomic_load_n(&s->pg->aux_head, __ATOMIC_ACQUIRE);
	read_commits(s, &self->c);
	for (i = 0; i < self->c.n; i++)
		with_data += self->c.size[i] > 0;
	/* 4 samples: two commits, each a META and its samples in one SAMPLES */
	EXPECT_EQ(2 * META_LEN + 2 * SMPS_HDR + 4 * SMP_LEN, head);
	EXPECT_EQ(head, s1.bytes - s0.bytes);
	EXPECT_EQ(with_data, s1.commits - s0.commits);
	EXPECT_EQ(2u, s1.commits - s0.commits);
	EXPECT_LT(s0.commit_ns, s1.commit_ns);
}

/*
 * A stream enabled with no AUX area mapped (a sampling event nobody
 * mmapped): its first drain finds no area and the event stops, as
 * arm_spe's does; the drain timer, every 100 us, does not run again.
 * Mapped and enabled afterwards, it streams.
 */
TEST_F(aux, no_area_no_timer)
{
	struct stream *s = &self->s;
	struct pmu_aux_stats s0, s1;
	struct perf_event_attr attr;
	int fd;

	ASSERT_EQ(0, pmu_attr(PMU, SPEC(",log_samples=4"), &attr));
	attr.sample_period = DRAIN_NS;
	ASSERT_EQ(0, pmu_aux_stats(PMU, &s0));
	fd = perf_open(&attr, -1, pmu_cpu(PMU), -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nic_advance(PERIOD + 64));
	usleep(300000);		/* 3000 periods */
	ASSERT_EQ(0, pmu_aux_stats(PMU, &s1));
	close(fd);
	EXPECT_EQ(1ULL, s1.no_area - s0.no_area);
	EXPECT_EQ(1ULL, s1.ticks - s0.ticks);
	EXPECT_EQ(s0.drains, s1.drains);

	/* a stream that has its area */
	OPEN_STREAM(SPEC(",log_samples=4"), 4);
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(PERIOD + 64));
	drain_wait();
	EXPECT_LT(0, read_records(s, self->r, true));
	ASSERT_EQ(0, pmu_aux_stats(PMU, &s0));
	EXPECT_EQ(s1.no_area, s0.no_area);
	EXPECT_LT(s1.drains, s0.drains);
}

/*
 * Each commit pairs the device clock with the event's clock
 * (upmu_aux_dev_time()).  On the realtime sim clock device ns run with
 * CLOCK_MONOTONIC, so with the event on that clock every pair must give
 * the same offset, up to the pair's error: half of the quickest of three
 * register reads, microseconds even on an emulated debug guest.  A pair
 * read once after the drain's window read carried its delays (the
 * device's work for the read, a vCPU the host did not run): 0.3 to 4 ms
 * there.
 */
TEST_F(aux, time_pairs)
{
	struct stream *s = &self->s;
	int64_t d, lo = INT64_MAX, hi = INT64_MIN;
	int j, n, metas = 0;

	ASSERT_EQ(0, sim_ctl(SIM_ID, "clock", "realtime"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows", "add id=1 rate=1000000 ev=rx port=0 size=100"));
	/* a sample every 2^20 ns, a drain every 10 ms: 10 samples a commit */
	ASSERT_EQ(0, stream_open_on(s, "profile=0,id0=0x1020000300000000,"
				    "id1=0x1020000100000000,dev_period=20,log_samples=8",
				    16, true, 10000000, CLOCK_MONOTONIC));
	ASSERT_EQ(0, stream_enable(s));
	usleep(300000);
	ASSERT_EQ(0, ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0));
	n = read_records(s, self->r, true);
	ASSERT_LT(0, n);
	for (j = 0; j < n; j++) {
		if (self->r[j].h.type != UPMU_AUX_META)
			continue;
		d = (int64_t)(self->r[j].h.time - self->r[j].v[M_DEV_TIME]);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		metas++;
	}
	EXPECT_LE(10, metas);
	EXPECT_GE(TIME_PAIR_NS, hi - lo) TH_LOG("%d pairs", metas);
	printf("# time_pairs: %d pairs, offsets within %lld ns\n", metas,
	       (long long)(hi - lo));
}

/*
 * The samples the device took between the event's creation and its
 * first enabling are not in the stream, and are no loss: it begins with
 * the first sample after the enabling, with no LOST record.  A later
 * disable and enable loses nothing the device still holds.
 */
TEST_F(aux, stream_start)
{
	struct stream *s = &self->s;
	uint64_t t0 = 0, next_id = 5;
	unsigned int k = 0;
	int n, j;

	ASSERT_EQ(0, sim_get(SIM_ID, "now_ns", &t0));
	OPEN_STREAM(SPEC(",log_samples=4"), 4);
	ASSERT_EQ(0, nic_advance(5 * PERIOD + 64));	/* samples 0-4: before */
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(2 * PERIOD));		/* samples 5, 6 */
	drain_wait();
	ASSERT_EQ(0, ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, nic_advance(3 * PERIOD));		/* 7-9, disabled */
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(PERIOD));		/* 10 */
	drain_wait();
	ASSERT_EQ(0, ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0));
	n = read_records(s, self->r, true);
	ASSERT_LT(0, n);
	EXPECT_EQ(UPMU_AUX_META, self->r[0].h.type);
	for (j = 0; j < n; j++) {
		struct rec *x = &self->r[j];

		EXPECT_NE(UPMU_AUX_LOST, x->h.type) TH_LOG("record %d", j);
		EXPECT_EQ(x->rno, x->h.seq);
		if (x->h.type != UPMU_AUX_SAMPLE)
			continue;
		EXPECT_EQ(next_id, x->v[S_ID]);
		EXPECT_EQ(t0 + (next_id + 1) * PERIOD, x->v[S_TS_FIRST]);
		next_id++;
		k++;
	}
	EXPECT_EQ(6U, k);	/* 5..10 */
	stream_close(s);
}

/*
 * Samples the device overwrote before the drain: one LOST record with
 * their exact sample_id range, before the samples after them, in a
 * commit flagged PARTIAL; sample_ids stay contiguous otherwise.
 */
TEST_F(aux, lost_range)
{
	struct stream *s = &self->s;
	uint64_t want[] = { 0, 1, 4, 5, 6, 7 };
	unsigned int i, k = 0, lost = 0, partial = 0;
	int n, j;

	OPEN_STREAM(SPEC(",log_samples=2"), 4);
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(2 * PERIOD + 64));	/* samples 0, 1 */
	drain_wait();
	/* 6 at once: 2-7, the device's 4 keep 4-7, 2 and 3 are gone */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/overrun", "6"));
	drain_wait();
	n = read_records(s, self->r, true);
	ASSERT_LT(0, n);
	for (j = 0; j < n; j++) {
		struct rec *x = &self->r[j];

		if (x->h.type == UPMU_AUX_LOST) {
			lost++;
			EXPECT_EQ((uint32_t)sizeof(struct upmu_aux_lost), x->h.size);
			EXPECT_EQ(0U, x->h.nr);
			EXPECT_EQ(2ULL, x->v[L_COUNT]);
			EXPECT_EQ(2ULL, x->v[L_FIRST]);
			EXPECT_EQ(3ULL, x->v[L_LAST]);
			EXPECT_EQ(1ULL, x->v[L_REASON]);
			/* where the gap is: after sample 1, before sample 4 */
			EXPECT_EQ(2U, k);
			/* in a commit that starts with its META */
			EXPECT_EQ(UPMU_AUX_META, self->r[j - 1].h.type);
		} else if (x->h.type == UPMU_AUX_SAMPLE) {
			ASSERT_GT(6U, k);
			EXPECT_EQ(want[k], x->v[S_ID]);
			k++;
		}
	}
	EXPECT_EQ(1U, lost);
	EXPECT_EQ(6U, k);
	read_commits(s, &self->c);
	for (i = 0; i < self->c.n; i++)
		partial += !!(self->c.flags[i] & PERF_AUX_FLAG_PARTIAL);
	EXPECT_EQ(1U, partial);
	stream_close(s);
}

/*
 * A one-page AUX area that nobody reads: whole records up to what fits,
 * TRUNCATED, the event disabled; once read and enabled again the rest
 * comes, nothing lost (the device kept what did not fit), the first
 * record after it straddling the end of the area.
 */
TEST_F(aux, truncated)
{
	struct stream *s = &self->s;
	long page = sysconf(_SC_PAGESIZE);
	unsigned int i, k = 0, trunc = 0, fit;
	int n, j;

	/* 128 samples of 2 values: 128 x 40 bytes do not fit in a page */
	OPEN_STREAM(SPEC(",log_samples=7"), 1);
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(128 * PERIOD + 64));
	drain_wait();
	n = read_records(s, self->r, false);
	ASSERT_LT(0, n);
	/* after a META, as many as leave room for a LOST, in page - 1 bytes */
	fit = (page - 1 - META_LEN - sizeof(struct upmu_aux_lost) - SMPS_HDR) / SMP_LEN;
	EXPECT_EQ((int)fit + 1, n);
	read_commits(s, &self->c);
	for (i = 0; i < self->c.n; i++)
		trunc += !!(self->c.flags[i] & PERF_AUX_FLAG_TRUNCATED);
	EXPECT_LE(1U, trunc);
	/* the event is off: still nothing more */
	drain_wait();
	EXPECT_EQ(n, read_records(s, self->r, false));

	/* read it, enable again: the rest, contiguous */
	n = read_records(s, self->r, true);
	ASSERT_EQ(0, stream_enable(s));
	drain_wait();
	j = read_records(s, self->r + n, true);
	ASSERT_LT(0, j);
	n += j;
	for (j = 0; j < n; j++) {
		struct rec *x = &self->r[j];

		EXPECT_NE(UPMU_AUX_LOST, x->h.type);
		EXPECT_EQ(x->rno, x->h.seq);
		if (x->h.type != UPMU_AUX_SAMPLE)
			continue;
		EXPECT_EQ((uint64_t)k, x->v[S_ID]);
		k++;
	}
	EXPECT_EQ(128U, k);
	stream_close(s);
}

/* The META of the first commit of @spec: its nr, period and ids[0..7]. */
static int first_meta(struct __test_metadata *_metadata, struct stream *s,
		      struct rec *r, const char *spec)
{
	int n;

	EXPECT_EQ(0, stream_open(s, spec, 4, true));
	EXPECT_EQ(0, stream_enable(s));
	EXPECT_EQ(0, nic_advance(1 << 21));	/* a sample of 2^20 ns at least */
	drain_wait();
	n = read_records(s, r, true);
	stream_close(s);
	EXPECT_LT(0, n);
	EXPECT_EQ(UPMU_AUX_META, r[0].h.type);
	return n > 0 ? (int)r[0].h.nr : -1;
}

/*
 * The named profiles' IDs, in their documented order; the default
 * device period, 2^20 ns; the default buffer, as large as the device
 * holds for 8 IDs (2^9 samples: 4096 counter-samples).
 */
TEST_F(aux, profiles)
{
	static const uint64_t port[] = {
		DID(RX_BYTES, 0), DID(RX_PACKETS, 0), DID(TX_BYTES, 0), DID(TX_PACKETS, 0),
		DID(RX_BYTES, 1), DID(RX_PACKETS, 1), DID(TX_BYTES, 1), DID(TX_PACKETS, 1),
	};
	static const uint64_t pcie[] = {
		DID(PCIE_IN_BYTES, 0), DID(PCIE_OUT_BYTES, 0), DID(PCIE_RD_LAT, 0),
		DID(PCIE_RD_COUNT, 0),
	};
	static const uint64_t doca[] = {
		DID(RX_BYTES, 0), DID(TX_BYTES, 0), DID(RX_PACKETS, 0), DID(TX_PACKETS, 0),
		DID(RX_CQE, 0), DID(TX_CQE, 0), DID(ICMC_HITS, 0), DID(ICMC_MISSES, 0),
	};
	struct rec *m = &self->r[0];
	unsigned int i;

	ASSERT_EQ(8, first_meta(_metadata, &self->s, self->r, "port_traffic"));
	EXPECT_EQ(1ULL << 20, m->v[M_PERIOD]);
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(port[i], m->v[M_IDS + i]) TH_LOG("id %u", i);
	}
	ASSERT_EQ(4, first_meta(_metadata, &self->s, self->r, "pcie,dev_period=12,single=1"));
	EXPECT_EQ(1ULL << 12, m->v[M_PERIOD]);
	EXPECT_EQ((uint64_t)NIC_MODE_SINGLE, m->v[M_MODE_FLAGS]);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(pcie[i], m->v[M_IDS + i]) TH_LOG("id %u", i);
	}
	ASSERT_EQ(8, first_meta(_metadata, &self->s, self->r, "doca_default"));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(doca[i], m->v[M_IDS + i]) TH_LOG("id %u", i);
	}
	/* 2^10 samples of 8 IDs do not fit, 2^9 do; 2^10 asked for does not */
	EXPECT_EQ(-EINVAL, stream_open(&self->s, "port_traffic,log_samples=10", 4, true));
	stream_close(&self->s);
	OPEN_STREAM("port_traffic,log_samples=9", 4);
	stream_close(&self->s);
}

/*
 * One stream per NIC; the counting PMU counts next to it; while it runs
 * a fwctl user cannot take the engine (7.2: fwctl_owner below).
 */
TEST_F(aux, busy)
{
	struct stream s2;
	uint64_t v;
	int fd;

	OPEN_STREAM(SPEC(""), 4);
	EXPECT_EQ(-EBUSY, stream_open(&s2, SPEC(""), 4, true));
	stream_close(&s2);
	EXPECT_EQ(-EBUSY, stream_open(&s2, "port_traffic", 4, true));
	stream_close(&s2);
	fd = pmu_open(CPMU, "icmc_hits", -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=7"));
	ASSERT_EQ(0, count_read(fd, &v));
	EXPECT_EQ(7ULL, v);
	close(fd);
	stream_close(&self->s);
	/* the stream is closed: another may open */
	OPEN_STREAM("port_traffic", 4);
	stream_close(&self->s);
}

/*
 * While a fwctl user owns the engine a stream gets EBUSY; while a stream
 * runs, a user's take (forced or not) gets the firmware's busy status.
 */
TEST_F(aux, fwctl_owner)
{
	int fw;

	if (access(FWCTL_CLASS, F_OK)) {
		ASSERT_FALSE(kernel_at_least(6, 15)) TH_LOG("no fwctl on a kernel that has it");
		SKIP(return, "kernel without fwctl");
	}
	fw = fw_open(1);
	ASSERT_LE(0, fw);
	ASSERT_EQ(NIC_STAT_OK, own(fw, NIC_OWN_TAKE, false));
	EXPECT_EQ(-EBUSY, stream_open(&self->s, SPEC(""), 4, true));
	stream_close(&self->s);
	ASSERT_EQ(NIC_STAT_OK, own(fw, NIC_OWN_RELEASE, false));
	OPEN_STREAM(SPEC(""), 4);
	EXPECT_EQ(NIC_STAT_RES_BUSY, own(fw, NIC_OWN_TAKE, false));
	EXPECT_EQ(NIC_STAT_RES_BUSY, own(fw, NIC_OWN_TAKE, true));
	stream_close(&self->s);
	EXPECT_EQ(NIC_STAT_OK, own(fw, NIC_OWN_TAKE, false));
	close(fw);
}

/* Bad attrs: EINVAL; an overwrite (read-only) AUX mapping fails. */
TEST_F(aux, bad_attr)
{
	struct perf_event_attr attr;
	int fd;

	/* reserved bits of config: 14-15, 21-63 */
	ASSERT_EQ(0, pmu_attr(PMU, "port_traffic", &attr));
	attr.sample_period = DRAIN_NS;
	attr.config |= 1ULL << 14;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	attr.config &= ~(1ULL << 14);
	attr.config |= 1ULL << 21;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	/* no such profile; ids with a named profile; no or unknown ids */
	attr.config = 4;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	attr.config = 1;
	attr.config1 = DID(RX_BYTES, 0);
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	attr.config = 0;
	attr.config1 = 0;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	attr.config1 = DID(RX_BYTES, 3);	/* port 3 of 2 */
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	attr.config1 = DID(RX_BYTES, 0);
	attr.config2 = DID(RX_BYTES, 0);	/* twice */
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	/* more samples than the device holds */
	attr.config2 = 0;
	attr.config = 15ULL << 16;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	/* a counting (not sampling) event */
	attr.config = 0;
	attr.sample_period = 0;
	EXPECT_EQ(-EINVAL, perf_open(&attr, -1, pmu_cpu(PMU), -1));
	/* a frequency is fine: a drain period */
	attr.freq = 1;
	attr.sample_freq = 1000;
	fd = perf_open(&attr, -1, pmu_cpu(PMU), -1);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	/* a task, not a CPU */
	attr.freq = 0;
	attr.sample_period = DRAIN_NS;
	EXPECT_EQ(-EINVAL, perf_open(&attr, 0, -1, -1));
	/* overwrite mode: setup_aux refuses it, perf says ENOMEM */
	EXPECT_EQ(-ENOMEM, stream_open(&self->s, SPEC(""), 4, false));
	stream_close(&self->s);
	/* nothing is left held: a good one opens */
	OPEN_STREAM(SPEC(""), 4);
	stream_close(&self->s);
}

/* The device goes with the stream open: no splat, the stream ends. */
TEST_F(aux, del_device)
{
	struct stream *s = &self->s;
	int n;

	OPEN_STREAM(SPEC(""), 4);
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(2 * PERIOD + 64));
	drain_wait();
	ASSERT_EQ(0, sim_del(SIM_ID));
	drain_wait();
	n = read_records(s, self->r, true);
	EXPECT_LE(3, n);	/* META and samples 0 and 1 */
	stream_close(s);
	EXPECT_TRUE(pmu_gone_within(PMU, 5000));
	ASSERT_EQ(0, sim_new(SIM_ID, 2, NIC_OPTS));
	EXPECT_TRUE(pmu_exists(PMU));
}

/* Unload every module that holds upmu_core: 0 or -errno. */
static int unload_core_holders(void)
{
	struct dirent *e;
	int ret = 0;
	DIR *d;

	d = opendir("/sys/module/upmu_core/holders");
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && !ret)
			ret = mod_unload_wait(e->d_name);
	closedir(d);
	return ret;
}

/* The modules guest-suite.sh loads, and the NIC's: 0 or -errno. */
static int reload_modules(void)
{
	return mod_load("upmu_core") ?: mod_load("upmu_sim") ?:
	       mod_load("upmu_t410") ?: nic_load();
}

/*
 * 6.15+: the NIC goes with the AUX area mapped (its file closed).  perf
 * detaches the event and drops its hold on upmu_nic, so every upmu module
 * but upmu_core unloads; the area holds upmu_core, whose free_aux perf
 * calls when the area is unmapped: it unloads after that, not before, and
 * no freed code runs (KASAN, the VM log).  Before 6.15 the PMU stays
 * until the event is gone, and the mapping holds the event: upmu_nic
 * stays until the unmap.
 */
TEST_F_TIMEOUT(aux, unload_with_area_mapped, 120)
{
	struct stream *s = &self->s;

	OPEN_STREAM(SPEC(""), 4);
	ASSERT_EQ(0, stream_enable(s));
	ASSERT_EQ(0, nic_advance(2 * PERIOD + 64));
	drain_wait();
	close(s->fd);
	s->fd = -1;
	ASSERT_EQ(0, sim_del(SIM_ID));
	if (!kernel_revokes_events()) {
		EXPECT_NE(0, nic_unload());
		stream_close(s);
		EXPECT_EQ(0, mod_unload_wait("upmu_nic"));
		ASSERT_EQ(0, nic_load());
		return;
	}
	EXPECT_EQ(0, unload_core_holders());
	EXPECT_TRUE(access("/sys/module/upmu_nic", F_OK));
	EXPECT_EQ(-1, syscall(SYS_delete_module, "upmu_core", O_NONBLOCK));
	EXPECT_EQ(EWOULDBLOCK, errno) TH_LOG("the mapping holds upmu_core");
	stream_close(s);
	EXPECT_EQ(0, mod_unload_wait("upmu_core"));
	EXPECT_EQ(0, reload_modules());
}

/*
 * The event's CPU goes offline: the stream moves to the other CPU of the
 * NIC's socket and goes on; every sample comes, nothing is lost.
 */
TEST_F(aux, cpu_offline)
{
	struct stream *s = &self->s;
	unsigned int k = 0;
	char buf[16];
	int cpu, n, j;

	OPEN_STREAM(SPEC(",log_samples=4"), 4);
	ASSERT_EQ(0, stream_enable(s));
	cpu = pmu_cpu(PMU);
	ASSERT_EQ(2, cpu);
	ASSERT_EQ(0, nic_advance(2 * PERIOD + 64));
	drain_wait();
	ASSERT_EQ(0, nic_advance(PERIOD));	/* sample 2: drained at the move */
	ASSERT_EQ(0, cpu_set_online(cpu, false));
	ASSERT_EQ(0, pmu_read(PMU, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("3", buf);
	ASSERT_EQ(0, nic_advance(2 * PERIOD));	/* samples 3, 4 */
	drain_wait();
	ASSERT_EQ(0, cpu_set_online(cpu, true));
	n = read_records(s, self->r, true);
	ASSERT_LT(0, n);
	for (j = 0; j < n; j++) {
		struct rec *x = &self->r[j];

		EXPECT_NE(UPMU_AUX_LOST, x->h.type);
		EXPECT_EQ(x->rno, x->h.seq);
		if (x->h.type == UPMU_AUX_SAMPLE)
			EXPECT_EQ((uint64_t)k++, x->v[S_ID]);
	}
	EXPECT_EQ(5U, k);
	stream_close(s);
}

TEST_HARNESS_MAIN
