// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated NIC's firmware at command level, with no driver: each
 * command goes through the mailbox of a PF's debugfs regs/ file (inbox,
 * lengths, doorbell, status, outbox at their register offsets), on the
 * manual clock, and every answer is checked byte for byte against the
 * layouts of driver/include/hw/nic_cmd.h.  Needs upmu_sim loaded.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	17

#include "upmu_test.h"
#include "../../driver/include/hw/nic_cmd.h"

#define NIC_OPTS	"blocks=nic clock=manual pfs=2 ports=2 links=2 hosts=2 funcs=4"
/* counters of NIC_OPTS: 7 port rows x 2, 6 port-prio rows x 16, 5 host
 * rows x 2, 13 link rows x 2, 1 link-tclass row x 16, 2 function rows x
 * 4, 6 global rows */
#define NIC_NR_CNTRS	(14 + 96 + 10 + 26 + 16 + 8 + 6)

/* A command box: big enough for any command's input or output. */
struct box {
	uint8_t b[NIC_OUTBOX_SIZE];
};

static int pf_open(unsigned int pf)
{
	char path[128];

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/nic.pf%u", SIM_ID, pf);
	return open(path, O_RDWR);
}

static int pf_rd(int fd, uint32_t off, uint32_t *v)
{
	return pread(fd, v, 4, off) == 4 ? 0 : -1;
}

static int pf_wr(int fd, uint32_t off, uint32_t v)
{
	return pwrite(fd, &v, 4, off) == 4 ? 0 : -1;
}

/*
 * Runs @in_len bytes of @in through PF @pf's mailbox with @out_len bytes
 * of outbox, as a driver would: inbox, lengths, doorbell, status, output
 * length, outbox.  Returns the delivery status (>= 0) with the output in
 * @out and its length in @len, or -1 if a register access failed.
 */
static int cmd_raw(unsigned int pf, const void *in, uint32_t in_len,
		   void *out, uint32_t out_len, uint32_t *len)
{
	uint32_t st, n, copy = (in_len + 3) & ~3U;
	int fd = pf_open(pf), ret = -1;

	if (fd < 0)
		return -1;
	if (copy > NIC_INBOX_SIZE)
		copy = NIC_INBOX_SIZE;
	if ((copy && pwrite(fd, in, copy, NIC_INBOX) != (ssize_t)copy) ||
	    pf_wr(fd, NIC_REG_CMD_IN_LEN, in_len) ||
	    pf_wr(fd, NIC_REG_CMD_OUT_LEN, out_len) ||
	    pf_wr(fd, NIC_REG_CMD_DOORBELL, NIC_DOORBELL_GO) ||
	    pf_rd(fd, NIC_REG_CMD_STATUS, &st) || (st & NIC_CMD_STATUS_BUSY) ||
	    pf_rd(fd, NIC_REG_CMD_OUT_LEN, &n))
		goto out;
	*len = n;
	if (n > out_len || n > NIC_OUTBOX_SIZE)
		goto out;
	n = (n + 3) & ~3U;
	if (n && pread(fd, out, n, NIC_OUTBOX) != (ssize_t)n)
		goto out;
	ret = NIC_CMD_STATUS_DELIVERY(st);
out:
	close(fd);
	return ret;
}

/* A command that must be delivered: returns its firmware status. */
#define CMD(pf, in, in_len, out, out_len) ({				\
	uint32_t _len = 0;						\
	memset((out), 0xa5, (out_len));					\
	ASSERT_EQ(NIC_DELIVERY_OK,					\
		  cmd_raw(pf, in, in_len, out, out_len, &_len));	\
	ASSERT_LE((uint32_t)NIC_HDR_OUT_LEN, _len);				\
	ASSERT_GE((uint32_t)(out_len), _len);				\
	last_len = _len;						\
	(int)nic_get(out, NIC_HDR_STATUS); })

static uint32_t last_len;

static void hdr(void *in, uint16_t op, uint16_t uid, uint16_t op_mod)
{
	memset(in, 0, NIC_HDR_IN_LEN);
	nic_set(in, NIC_HDR_OPCODE, op);
	nic_set(in, NIC_HDR_UID, uid);
	nic_set(in, NIC_HDR_OP_MOD, op_mod);
}

static int nic_advance(uint64_t ns)
{
	return sim_ctl(SIM_ID, "advance", "%llu", (unsigned long long)ns);
}

static int nic_inject(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sim_ctl(SIM_ID, "nic/inject", "%s", buf);
}

/* The value of data ID @id in nic/counters, or -1. */
static long long cval(uint64_t id)
{
	char path[128], line[256];
	unsigned long long did, v;
	long long ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/nic/counters", SIM_ID);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %*x %*s %llu", &did, &v) == 2 && did == id)
			ret = v;
	fclose(f);
	return ret;
}

#define DID(hi, lo)	NIC_DID(NIC_DID_##hi, lo)

/* The counter_id of data ID @id (from nic/counters), or 0. */
static uint64_t sim_now_ns(void)
{
	uint64_t v = 0;

	sim_get(SIM_ID, "now_ns", &v);
	return v;
}

#define M_SINGLE	1
#define M_REP		2
#define M_OD		4
#define M_SYNC		8
#define M_CLEAR		16
#define M_OFF		32

/* SET_DIAGNOSTIC_PARAMS input for @n counter_ids; returns its length. */
static uint32_t set_params_in(uint8_t *in, uint16_t uid, unsigned int m,
			      unsigned int log_samples, unsigned int log_period,
			      const uint32_t *cid, unsigned int n)
{
	unsigned int i;

	memset(in, 0, NIC_DIAG_PARAMS_LEN(n));
	hdr(in, NIC_OP_SET_DIAGNOSTIC_PARAMS, uid, 0);
	nic_set(in, NIC_DIAG_NUM_CNTRS, n);
	nic_set(in, NIC_DIAG_LOG_NUM_SAMPLES, log_samples);
	nic_set(in, NIC_DIAG_SINGLE, !!(m & M_SINGLE));
	nic_set(in, NIC_DIAG_REPETITIVE, !!(m & M_REP));
	nic_set(in, NIC_DIAG_ON_DEMAND, !!(m & M_OD));
	nic_set(in, NIC_DIAG_SYNC, !!(m & M_SYNC));
	nic_set(in, NIC_DIAG_CLEAR, !!(m & M_CLEAR));
	nic_set(in, NIC_DIAG_ENABLE, !(m & M_OFF));
	nic_set(in, NIC_DIAG_LOG_PERIOD, log_period);
	for (i = 0; i < n; i++)
		nic_set(in, NIC_DIAG_CNTR_ID(i), cid[i]);
	return NIC_DIAG_PARAMS_LEN(n);
}

#define SET(pf, uid, m, ls, lp, cid, n) ({				\
	uint32_t _l = set_params_in(self->in->b, uid, m, ls, lp, cid, n); \
	CMD(pf, self->in->b, _l, self->out->b, 16); })

/* QUERY_DIAGNOSTIC_COUNTERS of @lines records from @index, as @uid. */
#define QUERY_AS(pf, uid, lines, index) ({				\
	uint8_t *_in = self->in->b;					\
	hdr(_in, NIC_OP_QUERY_DIAGNOSTIC_COUNTERS, uid, 0);		\
	memset(_in + 8, 0, 8);						\
	nic_set(_in, NIC_DIAG_Q_NUM_SAMPLES, lines);			\
	nic_set(_in, NIC_DIAG_Q_SAMPLE_INDEX, index);			\
	CMD(pf, _in, 16, self->out->b, NIC_DIAG_REC(lines)); })
#define QUERY(pf, lines, index)	QUERY_AS(pf, 0, lines, index)

#define REC(line)		(self->out->b + NIC_DIAG_REC(line))
#define REC_CID(line)		nic_get(REC(line), NIC_DIAG_REC_CNTR_ID)
#define REC_SID(line)		nic_get(REC(line), NIC_DIAG_REC_SAMPLE_ID)
#define REC_TS(line)		nic_get(REC(line), NIC_DIAG_REC_TIMESTAMP)
#define REC_VAL(line)		nic_get64(REC(line), NIC_DIAG_REC_VALUE)

/* QUERY_DIAGNOSTIC_PARAMS through PF 0 with @len bytes of output. */
#define QPARAMS(len) ({							\
	hdr(self->in->b, NIC_OP_QUERY_DIAGNOSTIC_PARAMS, 0, 0);		\
	CMD(0, self->in->b, 16, self->out->b, len); })

#define PERIOD	1024	/* 2^10 clocks of 1 GHz: the minimum, in ns */

static struct box box_in, box_out;

FIXTURE(nic) {
	struct box *in, *out;
};

FIXTURE_SETUP(nic)
{
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 1, NIC_OPTS));
	self->in = &box_in;
	self->out = &box_out;
}

FIXTURE_TEARDOWN_PARENT(nic)
{
	sim_del(SIM_ID);
}

TEST_F(nic, window)
{
	uint32_t v, serial;
	int fd0 = pf_open(0), fd1 = pf_open(1);

	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	EXPECT_EQ(-1, pf_open(2));
	EXPECT_EQ(0, pf_rd(fd0, NIC_REG_CMDIF_REV, &v));
	EXPECT_EQ((uint32_t)NIC_CMDIF_REV, v);
	EXPECT_EQ(0, pf_rd(fd0, NIC_REG_FW_REV, &v));
	EXPECT_EQ((28U << 16) | 43, v);
	EXPECT_EQ(0, pf_rd(fd0, NIC_REG_INBOX_SIZE, &v));
	EXPECT_EQ((uint32_t)NIC_INBOX_SIZE, v);
	EXPECT_EQ(0, pf_rd(fd0, NIC_REG_OUTBOX_SIZE, &v));
	EXPECT_EQ((uint32_t)NIC_OUTBOX_SIZE, v);
	EXPECT_EQ(0, pf_rd(fd0, NIC_REG_PF, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, pf_rd(fd1, NIC_REG_PF, &v));
	EXPECT_EQ(1U, v);
	/* one device: one serial for both PFs */
	EXPECT_EQ(0, pf_rd(fd0, NIC_REG_DEV_SERIAL, &serial));
	EXPECT_EQ(0, pf_rd(fd1, NIC_REG_DEV_SERIAL, &v));
	EXPECT_EQ(serial, v);
	/* the inbox reads back what was written; read-only registers stay */
	EXPECT_EQ(0, pf_wr(fd0, NIC_INBOX + 8, 0x12345678));
	EXPECT_EQ(0, pf_rd(fd0, NIC_INBOX + 8, &v));
	EXPECT_EQ(0x12345678U, v);
	EXPECT_EQ(0, pf_wr(fd0, NIC_REG_PF, 7));
	EXPECT_EQ(0, pf_rd(fd0, NIC_REG_PF, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, pf_rd(fd0, 0x800, &v));	/* reserved: RAZ */
	EXPECT_EQ(0U, v);
	close(fd0);
	close(fd1);
}

TEST_F(nic, delivery)
{
	uint8_t *in = self->in->b, *out = self->out->b;
	uint32_t len = 1;

	hdr(in, NIC_OP_QUERY_HCA_CAP, 0, NIC_CAP_GENERAL << 1 | NIC_CAP_CUR);
	/* lengths the mailbox cannot take: delivery status, no output */
	EXPECT_EQ(NIC_DELIVERY_IN_LENGTH_ERR, cmd_raw(0, in, 8, out, 16, &len));
	EXPECT_EQ(0U, len);
	EXPECT_EQ(NIC_DELIVERY_IN_LENGTH_ERR,
		  cmd_raw(0, in, NIC_INBOX_SIZE + 4, out, 16, &len));
	EXPECT_EQ(NIC_DELIVERY_OUT_LENGTH_ERR, cmd_raw(0, in, 16, out, 8, &len));
	EXPECT_EQ(NIC_DELIVERY_OUT_LENGTH_ERR,
		  cmd_raw(0, in, 16, out, NIC_OUTBOX_SIZE + 4, &len));
	EXPECT_EQ(0U, len);

	/* delivered, but too short for the command: the command says so */
	EXPECT_EQ(NIC_STAT_BAD_OUTP_LEN, CMD(0, in, 16, out, NIC_CAP_OUT_LEN - 4));
	EXPECT_EQ(16U, last_len);
	EXPECT_EQ(0U, nic_get(out, NIC_HDR_SYNDROME));
	hdr(in, NIC_OP_CREATE_UCTX, 0, 0);
	EXPECT_EQ(NIC_STAT_BAD_INP_LEN, CMD(0, in, 16, out, 16));
	EXPECT_EQ(16U, last_len);

	/* unknown opcodes */
	hdr(in, 0x7ff, 0, 0);
	EXPECT_EQ(NIC_STAT_BAD_OP, CMD(0, in, 16, out, 64));
	EXPECT_EQ(16U, last_len);
	hdr(in, 0xffff, 0, 0);
	EXPECT_EQ(NIC_STAT_BAD_OP, CMD(1, in, 16, out, 16));
	/* an unknown cap type */
	hdr(in, NIC_OP_QUERY_HCA_CAP, 0, 0x3 << 1 | NIC_CAP_CUR);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CMD(0, in, 16, out, NIC_CAP_OUT_LEN));
	/* a uid that was never created */
	hdr(in, NIC_OP_QUERY_HCA_CAP, 5, NIC_CAP_GENERAL << 1 | NIC_CAP_CUR);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CMD(0, in, 16, out, NIC_CAP_OUT_LEN));
}

/* QUERY_ADAPTER: mlx5's layout, as mlx5_query_board_id() reads it */
TEST_F(nic, adapter)
{
	uint8_t *in = self->in->b, *out = self->out->b;
	char psid[17] = {};

	hdr(in, NIC_OP_QUERY_ADAPTER, 0, 0);
	ASSERT_EQ(NIC_STAT_OK, CMD(1, in, 16, out, NIC_ADAPTER_OUT_LEN));
	EXPECT_EQ((uint32_t)NIC_ADAPTER_OUT_LEN, last_len);
	EXPECT_EQ(0x0002c9U, nic_get(out, NIC_ADAPTER_IEEE_VENDOR_ID));
	EXPECT_EQ(0x15b3U, nic_get(out, NIC_ADAPTER_VSD_VENDOR_ID));
	/* byte-exact: ieee_vendor_id bytes 0x29-0x2b, vsd_vendor_id 0x2e-0x2f */
	EXPECT_EQ(0x00, out[0x28]);
	EXPECT_EQ(0xc9, out[0x2b]);
	EXPECT_EQ(0x15, out[0x2e]);
	EXPECT_EQ(0xb3, out[0x2f]);
	EXPECT_STREQ("upmu_sim NIC 17", (char *)out + NIC_ADAPTER_VSD);
	memcpy(psid, out + NIC_ADAPTER_PSID, NIC_ADAPTER_PSID_LEN);
	EXPECT_STREQ("UPM4E1C0011", psid);
	/* an outbox too short for it */
	EXPECT_EQ(NIC_STAT_BAD_OUTP_LEN, CMD(0, in, 16, out, NIC_ADAPTER_OUT_LEN - 4));
}

TEST_F(nic, hca_caps)
{
	uint8_t *in = self->in->b, *out = self->out->b, *cap = out + 16;
	uint32_t i, id, prev = 0;

	hdr(in, NIC_OP_QUERY_HCA_CAP, 0, NIC_CAP_GENERAL << 1 | NIC_CAP_CUR);
	ASSERT_EQ(NIC_STAT_OK, CMD(0, in, 16, out, NIC_CAP_OUT_LEN));
	EXPECT_EQ((uint32_t)NIC_CAP_OUT_LEN, last_len);
	EXPECT_EQ(0U, nic_get(out, NIC_HDR_SYNDROME));
	EXPECT_EQ(1U, nic_get(cap, NIC_HCA_CAP_DEBUG));
	EXPECT_EQ((uint32_t)NIC_NR_CNTRS, nic_get(cap, NIC_HCA_CAP_NUM_DIAG_CNTRS));
	EXPECT_EQ(1000000U, nic_get(cap, NIC_HCA_CAP_DEV_FREQ_KHZ));
	EXPECT_EQ((uint32_t)NIC_UCTX_CAP_TOOLS_RESOURCES,
		  nic_get(cap, NIC_HCA_CAP_UCTX_CAP));
	/* byte-exact: debug is bit 0x183 (byte 0x30, 0x10), the frequency
	 * bytes 0x9c-0x9f, uctx_cap bytes 0xd4-0xd7 */
	EXPECT_EQ(0x10, cap[0x30]);
	EXPECT_EQ(0x00, cap[0x9c]);
	EXPECT_EQ(0x0f, cap[0x9d]);
	EXPECT_EQ(0x42, cap[0x9e]);
	EXPECT_EQ(0x40, cap[0x9f]);
	EXPECT_EQ(0x04, cap[0xd7]);
	EXPECT_EQ(NIC_NR_CNTRS >> 8, cap[0x50]);
	EXPECT_EQ(NIC_NR_CNTRS & 0xff, cap[0x51]);

	hdr(in, NIC_OP_QUERY_HCA_CAP, 0, NIC_CAP_DEBUG << 1 | NIC_CAP_CUR);
	ASSERT_EQ(NIC_STAT_OK, CMD(1, in, 16, out, NIC_CAP_OUT_LEN));
	EXPECT_EQ(12U, nic_get(cap, NIC_DEBUG_CAP_LOG_MAX_SAMPLES));
	EXPECT_EQ(12, cap[3]);
	EXPECT_EQ(1U, nic_get(cap, NIC_DEBUG_CAP_SINGLE));
	EXPECT_EQ(1U, nic_get(cap, NIC_DEBUG_CAP_REPETITIVE));
	EXPECT_EQ(0xc0, cap[4]);
	EXPECT_EQ(10U, nic_get(cap, NIC_DEBUG_CAP_LOG_MIN_PERIOD));
	EXPECT_EQ(10, cap[7]);
	/* the counter list: first port 0 RX bytes, with sync */
	EXPECT_EQ(0x80, cap[0x40]);
	EXPECT_EQ(0x04, cap[0x42]);
	EXPECT_EQ(0x00, cap[0x43]);
	for (i = 0; i < NIC_NR_CNTRS; i++) {
		id = nic_get(cap, NIC_DEBUG_CAP_CNTR_ID(i));
		EXPECT_LT(prev, id) TH_LOG("counter %u", i);
		prev = id;
	}
	/* 0x1160000d/e (PCIe read latency max/min) cannot sync */
	for (i = 0; i < NIC_NR_CNTRS; i++) {
		id = nic_get(cap, NIC_DEBUG_CAP_CNTR_ID(i));
		bool nosync = NIC_CID_ROW(id) == 31 || NIC_CID_ROW(id) == 32 ||
			      NIC_CID_ROW(id) == 13;

		EXPECT_EQ((uint32_t)!nosync, nic_get(cap, NIC_DEBUG_CAP_CNTR_SYNC(i)));
	}
	EXPECT_EQ(0U, nic_get(cap, NIC_DEBUG_CAP_CNTR_ID(NIC_NR_CNTRS)));
}

static int uctx_create(struct __test_metadata *_metadata, uint8_t *in,
		       uint8_t *out, unsigned int pf, uint32_t cap)
{
	memset(in, 0, NIC_CREATE_UCTX_IN_LEN);
	hdr(in, NIC_OP_CREATE_UCTX, 0, 0);
	nic_set(in, NIC_CREATE_UCTX_CAP, cap);
	if (CMD(pf, in, NIC_CREATE_UCTX_IN_LEN, out, 16) != NIC_STAT_OK)
		return -1;
	return nic_get(out, NIC_CREATE_UCTX_OUT_UID);
}

static int uctx_destroy(struct __test_metadata *_metadata, uint8_t *in,
			uint8_t *out, unsigned int pf, uint32_t uid)
{
	hdr(in, NIC_OP_DESTROY_UCTX, 0, 0);
	nic_set(in, NIC_DESTROY_UCTX_UID, uid);
	return CMD(pf, in, NIC_DESTROY_UCTX_IN_LEN, out, 16);
}

TEST_F(nic, uctx)
{
	uint8_t *in = self->in->b, *out = self->out->b;
	int uids[64], u, i;

	u = uctx_create(_metadata, in, out, 0, NIC_UCTX_CAP_TOOLS_RESOURCES);
	ASSERT_EQ(1, u);
	EXPECT_EQ(0, out[8]);
	EXPECT_EQ(0, out[9]);
	EXPECT_EQ(0, out[10]);
	EXPECT_EQ(1, out[11]);
	/* uids are per PF */
	EXPECT_EQ(1, uctx_create(_metadata, in, out, 1, 0));
	EXPECT_EQ(2, uctx_create(_metadata, in, out, 0, 0));
	/* unsupported caps */
	hdr(in, NIC_OP_CREATE_UCTX, 0, 0);
	nic_set(in, NIC_CREATE_UCTX_CAP, 0x1);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CMD(0, in, NIC_CREATE_UCTX_IN_LEN, out, 16));

	/* a created uid is good in a header, a destroyed one no longer */
	hdr(in, NIC_OP_QUERY_HCA_CAP, 2, NIC_CAP_GENERAL << 1 | NIC_CAP_CUR);
	EXPECT_EQ(NIC_STAT_OK, CMD(0, in, 16, out, NIC_CAP_OUT_LEN));
	EXPECT_EQ(NIC_STAT_OK, uctx_destroy(_metadata, in, out, 0, 2));
	hdr(in, NIC_OP_QUERY_HCA_CAP, 2, NIC_CAP_GENERAL << 1 | NIC_CAP_CUR);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CMD(0, in, 16, out, NIC_CAP_OUT_LEN));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, uctx_destroy(_metadata, in, out, 0, 2));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, uctx_destroy(_metadata, in, out, 0, 0));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, uctx_destroy(_metadata, in, out, 0, 0xffff));
	hdr(in, NIC_OP_CREATE_UCTX, 0, 0);
	EXPECT_EQ(NIC_STAT_BAD_INP_LEN, CMD(0, in, NIC_CREATE_UCTX_IN_LEN - 4, out, 16));
	/* the freed uid is reused */
	EXPECT_EQ(2, uctx_create(_metadata, in, out, 0, 0));

	/* 64 per PF, then NO_RES */
	for (i = 0; i < 62; i++) {
		uids[i] = uctx_create(_metadata, in, out, 0, 0);
		EXPECT_EQ(i + 3, uids[i]);
	}
	hdr(in, NIC_OP_CREATE_UCTX, 0, 0);
	EXPECT_EQ(NIC_STAT_NO_RES, CMD(0, in, NIC_CREATE_UCTX_IN_LEN, out, 16));
	for (i = 0; i < 62; i++)
		EXPECT_EQ(NIC_STAT_OK, uctx_destroy(_metadata, in, out, 0, uids[i]));
}

TEST_F(nic, new_device_options)
{
	char path[128];

	/* the NIC comes only with blocks=nic; options are checked */
	EXPECT_EQ(0, sim_del(SIM_ID));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=nic pfs=0"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=nic pfs=5"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=nic ports=9"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=nic funcs=257"));
	EXPECT_EQ(-EINVAL, sim_new(SIM_ID, 1, "blocks=nic nic_log_period=36"));
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "blocks=nic pfs=4"));
	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/nic.pf3", SIM_ID);
	EXPECT_EQ(0, access(path, F_OK));
	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/ucf.0", SIM_ID);
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_EQ(0, sim_del(SIM_ID));
	/* without blocks=, no NIC, as before */
	ASSERT_EQ(0, sim_new(SIM_ID, 1, "rcs=1"));
	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/regs/nic.pf0", SIM_ID);
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_EQ(0, sim_del(SIM_ID));
}

/* Every event kind adds exactly what it says to exactly its counters. */
TEST_F(nic, events)
{
	unsigned int tc;

	ASSERT_EQ(0, nic_inject("ev=rx port=1 prio=3 size=1500 count=10"));
	ASSERT_EQ(0, nic_inject("ev=rx port=1 prio=5 size=64"));
	EXPECT_EQ(15064, cval(DID(RX_BYTES, 1)));
	EXPECT_EQ(11, cval(DID(RX_PACKETS, 1)));
	EXPECT_EQ(15000, cval(DID(RX_BYTES_PRIO, NIC_DID_PORT_PRIO(1, 3))));
	EXPECT_EQ(10, cval(DID(RX_PACKETS_PRIO, NIC_DID_PORT_PRIO(1, 3))));
	EXPECT_EQ(64, cval(DID(RX_BYTES_PRIO, NIC_DID_PORT_PRIO(1, 5))));
	EXPECT_EQ(0, cval(DID(RX_BYTES, 0)));
	EXPECT_EQ(0, cval(DID(TX_BYTES, 1)));
	ASSERT_EQ(0, nic_inject("ev=tx port=0 prio=7 size=9000 count=3"));
	EXPECT_EQ(27000, cval(DID(TX_BYTES, 0)));
	EXPECT_EQ(3, cval(DID(TX_PACKETS, 0)));
	EXPECT_EQ(27000, cval(DID(TX_BYTES_PRIO, NIC_DID_PORT_PRIO(0, 7))));
	EXPECT_EQ(3, cval(DID(TX_PACKETS_PRIO, NIC_DID_PORT_PRIO(0, 7))));

	ASSERT_EQ(0, nic_inject("ev=rx_drop port=1 count=4"));
	ASSERT_EQ(0, nic_inject("ev=pause_rx port=0 prio=2 count=5"));
	ASSERT_EQ(0, nic_inject("ev=pause_tx port=1 prio=6 count=6"));
	ASSERT_EQ(0, nic_inject("ev=discard host=1 count=7"));
	ASSERT_EQ(0, nic_inject("ev=scatter host=0 count=8"));
	ASSERT_EQ(0, nic_inject("ev=no_wqe host=1 count=9"));
	ASSERT_EQ(0, nic_inject("ev=no_wqe_hairpin host=1 count=10"));
	ASSERT_EQ(0, nic_inject("ev=ecn host=0 count=11"));
	ASSERT_EQ(0, nic_inject("ev=cnp_handled port=1 count=12"));
	ASSERT_EQ(0, nic_inject("ev=cnp_sent port=0 count=13"));
	ASSERT_EQ(0, nic_inject("ev=qp_desched count=14"));
	EXPECT_EQ(4, cval(DID(RX_BUFFER_DROPS, 1)));
	EXPECT_EQ(5, cval(DID(RX_PAUSE, NIC_DID_PORT_PRIO(0, 2))));
	EXPECT_EQ(6, cval(DID(TX_PAUSE, NIC_DID_PORT_PRIO(1, 6))));
	EXPECT_EQ(7, cval(DID(RX_HOST_DISCARDS, 1)));
	EXPECT_EQ(0, cval(DID(RX_HOST_DISCARDS, 0)));
	EXPECT_EQ(8, cval(DID(RX_TO_SCATTER, 0)));
	EXPECT_EQ(9, cval(DID(RX_NO_WQE, 1)));
	EXPECT_EQ(10, cval(DID(RX_NO_WQE_HAIRPIN, 1)));
	EXPECT_EQ(11, cval(DID(RX_ECN_ROCE, 0)));
	EXPECT_EQ(12, cval(DID(CNP_HANDLED, 1)));
	EXPECT_EQ(13, cval(DID(CNP_SENT, 0)));
	EXPECT_EQ(14, cval(DID(QP_DESCHED, 0)));

	/* PCIe: bytes with TLP headers (16 each), data bytes without */
	ASSERT_EQ(0, nic_inject("ev=pcie_in link=1 size=256 count=100"));
	ASSERT_EQ(0, nic_inject("ev=pcie_out link=0 size=64 count=2"));
	EXPECT_EQ(27200, cval(DID(PCIE_IN_BYTES, 1)));
	EXPECT_EQ(25600, cval(DID(PCIE_IN_DATA, 1)));
	EXPECT_EQ(160, cval(DID(PCIE_OUT_BYTES, 0)));
	EXPECT_EQ(128, cval(DID(PCIE_OUT_DATA, 0)));
	EXPECT_EQ(0, cval(DID(PCIE_IN_BYTES, 0)));
	ASSERT_EQ(0, nic_inject("ev=stall link=0 kind=pw_data ns=100 count=2"));
	ASSERT_EQ(0, nic_inject("ev=stall link=0 kind=pw_hdr ns=101"));
	ASSERT_EQ(0, nic_inject("ev=stall link=1 kind=np_data ns=102"));
	ASSERT_EQ(0, nic_inject("ev=stall link=1 kind=np_hdr ns=103"));
	ASSERT_EQ(0, nic_inject("ev=stall link=1 kind=np_cpl ns=104"));
	ASSERT_EQ(0, nic_inject("ev=stall link=1 kind=np_order tc=5 ns=105"));
	EXPECT_EQ(200, cval(DID(STALL_PW_DATA, 0)));
	EXPECT_EQ(101, cval(DID(STALL_PW_HDR, 0)));
	EXPECT_EQ(102, cval(DID(STALL_NP_DATA, 1)));
	EXPECT_EQ(103, cval(DID(STALL_NP_HDR, 1)));
	EXPECT_EQ(104, cval(DID(STALL_NP_CPL, 1)));
	EXPECT_EQ(105, cval(DID(STALL_NP_ORDER, NIC_DID_LINK_TC(1, 5))));
	for (tc = 0; tc < 8; tc++)
		if (tc != 5)
			EXPECT_EQ(0, cval(DID(STALL_NP_ORDER, NIC_DID_LINK_TC(1, tc))));
	/* reads: total and count are Counters, max and min Statistics */
	EXPECT_EQ(0, cval(DID(PCIE_RD_LAT_MIN, 0)));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=500 count=3"));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=900"));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=200"));
	EXPECT_EQ(2600, cval(DID(PCIE_RD_LAT, 0)));
	EXPECT_EQ(5, cval(DID(PCIE_RD_COUNT, 0)));
	EXPECT_EQ(900, cval(DID(PCIE_RD_LAT_MAX, 0)));
	EXPECT_EQ(200, cval(DID(PCIE_RD_LAT_MIN, 0)));
	EXPECT_EQ(0, cval(DID(PCIE_RD_LAT_MAX, 1)));

	/* CQEs: global and per function */
	ASSERT_EQ(0, nic_inject("ev=rx_cqe func=3 count=20"));
	ASSERT_EQ(0, nic_inject("ev=rx_cqe func=0 count=1"));
	ASSERT_EQ(0, nic_inject("ev=tx_cqe func=2 count=30"));
	EXPECT_EQ(21, cval(DID(RX_CQE, 0)));
	EXPECT_EQ(20, cval(DID(RX_CQE_FUNC, 3)));
	EXPECT_EQ(1, cval(DID(RX_CQE_FUNC, 0)));
	EXPECT_EQ(30, cval(DID(TX_CQE, 0)));
	EXPECT_EQ(30, cval(DID(TX_CQE_FUNC, 2)));
	/* ICMC hit/miss streams */
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=70"));
	ASSERT_EQ(0, nic_inject("ev=icmc_miss count=30"));
	EXPECT_EQ(100, cval(DID(ICMC_ACCESSES, 0)));
	EXPECT_EQ(70, cval(DID(ICMC_HITS, 0)));
	EXPECT_EQ(30, cval(DID(ICMC_MISSES, 0)));

	/* what the device does not have, or does not parse */
	EXPECT_EQ(-EINVAL, nic_inject("ev=rx port=2 size=64"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=rx port=0 prio=8 size=64"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=rx port=0 size=0"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=discard host=2"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=rx_cqe func=4"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=stall link=2 kind=pw_data ns=1"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=stall link=0 kind=nope ns=1"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=warp"));
	EXPECT_EQ(-EINVAL, nic_inject("port=0"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=rx size=64 count=4294967297"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=rx size=64 rate=5"));
	EXPECT_EQ(-EINVAL, nic_inject("ev=rx size=64 bogus"));
}

/* Flows deliver floor(elapsed x rate / 1 s) events, by sim time. */
TEST_F(nic, flows)
{
	char path[128], buf[512];
	int fd;
	ssize_t n;

	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows",
			     "add id=1 rate=1000000 ev=rx port=0 prio=1 size=100"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows",
			     "add id=2 rate=3 ev=pcie_read link=1 lat=700"));
	EXPECT_EQ(-EEXIST, sim_ctl(SIM_ID, "nic/flows", "add id=1 rate=1 ev=qp_desched"));
	EXPECT_EQ(-EINVAL, sim_ctl(SIM_ID, "nic/flows", "add id=3 ev=qp_desched"));
	EXPECT_EQ(-ENOENT, sim_ctl(SIM_ID, "nic/flows", "del id=9"));
	EXPECT_EQ(0, cval(DID(RX_PACKETS, 0)));
	ASSERT_EQ(0, nic_advance(2500));	/* 2.5 us: 2 packets */
	EXPECT_EQ(2, cval(DID(RX_PACKETS, 0)));
	EXPECT_EQ(200, cval(DID(RX_BYTES_PRIO, NIC_DID_PORT_PRIO(0, 1))));
	ASSERT_EQ(0, nic_advance(1000000000));	/* 1 s more */
	EXPECT_EQ(1000002, cval(DID(RX_PACKETS, 0)));
	EXPECT_EQ(3, cval(DID(PCIE_RD_COUNT, 1)));
	EXPECT_EQ(2100, cval(DID(PCIE_RD_LAT, 1)));
	EXPECT_EQ(700, cval(DID(PCIE_RD_LAT_MAX, 1)));

	snprintf(path, sizeof(path), SIM_DEBUGFS "/%u/nic/flows", SIM_ID);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ASSERT_LT(0, n);
	buf[n] = 0;
	EXPECT_NE(NULL, strstr(buf, "id=1 ev=rx a=0 b=1 func=0 size=100 rate=1000000 events=1000002\n"));
	/* a deleted flow sends no more */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows", "del id=1"));
	ASSERT_EQ(0, nic_advance(1000000));
	EXPECT_EQ(1000002, cval(DID(RX_PACKETS, 0)));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows", "clear"));
	ASSERT_EQ(0, nic_advance(1000000000));
	EXPECT_EQ(3, cval(DID(PCIE_RD_COUNT, 1)));
}

/* The period: at least the minimum, long enough for the counters. */
TEST_F(nic, period)
{
	uint8_t *out = self->out->b;
	/* 148 distinct counters: the 6 port-priority rows, 18 rows with an
	 * instance per port or link, the 16 link-tclass stall timers */
	static const unsigned int rows16[] = { 1, 3, 5, 15, 17, 18 };
	static const unsigned int rows2[] = { 0, 2, 4, 11, 12, 14, 16, 19, 20,
					      21, 22, 23, 24, 25, 26, 27, 29, 30 };
	uint32_t cid[148];
	unsigned int i, n = 0;

	for (i = 0; i < 6 * 16; i++)
		cid[n++] = NIC_CID(rows16[i / 16], i % 16);
	for (i = 0; i < 18 * 2; i++)
		cid[n++] = NIC_CID(rows2[i / 2], i % 2);
	for (i = 0; i < 16; i++)
		cid[n++] = NIC_CID(28, i);
	ASSERT_EQ(148U, n);

	/* a short request is rounded up to the minimum, 2^10 */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE, 2, 5, cid, 1));
	ASSERT_EQ(NIC_STAT_OK, QPARAMS(NIC_DIAG_PARAMS_LEN(20)));
	EXPECT_EQ((uint32_t)NIC_DIAG_PARAMS_LEN(1), last_len);
	EXPECT_EQ(1U, nic_get(out, NIC_DIAG_NUM_CNTRS));
	EXPECT_EQ(10U, nic_get(out, NIC_DIAG_LOG_PERIOD));
	/* byte-exact context: num 1, log samples 2; single|enable; 10 */
	EXPECT_EQ(0x00, out[8]);
	EXPECT_EQ(0x01, out[9]);
	EXPECT_EQ(0x02, out[11]);
	EXPECT_EQ(0x84, out[12]);
	EXPECT_EQ(10, out[15]);
	EXPECT_EQ(cid[0], nic_get(out, NIC_DIAG_CNTR_ID(0)));
	/* a longer one is kept */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP | M_SYNC, 2, 20, cid, 2));
	ASSERT_EQ(NIC_STAT_OK, QPARAMS(NIC_DIAG_PARAMS_LEN(20)));
	EXPECT_EQ(20U, nic_get(out, NIC_DIAG_LOG_PERIOD));
	EXPECT_EQ(0x64, out[12]);	/* repetitive|sync|enable */
	/* 20 counters x 64 clocks: 2^11; 148: 2^14 */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE, 0, 10, cid, 20));
	ASSERT_EQ(NIC_STAT_OK, QPARAMS(NIC_DIAG_PARAMS_LEN(20)));
	EXPECT_EQ(11U, nic_get(out, NIC_DIAG_LOG_PERIOD));
	EXPECT_EQ(cid[19], nic_get(out, NIC_DIAG_CNTR_ID(19)));
	/* sync: at least twice the collection, 20 x 64 x 2: 2^12 */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE | M_SYNC, 0, 10, cid, 20));
	ASSERT_EQ(NIC_STAT_OK, QPARAMS(NIC_DIAG_PARAMS_LEN(20)));
	EXPECT_EQ(12U, nic_get(out, NIC_DIAG_LOG_PERIOD));
	/* 8 x 64 x 2 is the minimum, 2^10 */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE | M_SYNC, 0, 10, cid, 8));
	ASSERT_EQ(NIC_STAT_OK, QPARAMS(NIC_DIAG_PARAMS_LEN(20)));
	EXPECT_EQ(10U, nic_get(out, NIC_DIAG_LOG_PERIOD));
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE, 4, 0, cid, 148));
	ASSERT_EQ(NIC_STAT_OK, QPARAMS(NIC_DIAG_PARAMS_LEN(20)));
	EXPECT_EQ(14U, nic_get(out, NIC_DIAG_LOG_PERIOD));
	EXPECT_EQ(148U, nic_get(out, NIC_DIAG_NUM_CNTRS));
	EXPECT_EQ((uint32_t)NIC_DIAG_PARAMS_LEN(20), last_len);	/* what fits */
	/* beyond 2^35 */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_SINGLE, 0, 36, cid, 1));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_PERIOD, NIC_SYND_NO_INDEX),
		  nic_get(out, NIC_HDR_SYNDROME));
	/* disabled: nothing configured */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_OFF | M_CLEAR, 0, 0, cid, 0));
	ASSERT_EQ(NIC_STAT_OK, QPARAMS(NIC_DIAG_PARAMS_LEN(0)));
	EXPECT_EQ(0U, nic_get(out, NIC_DIAG_NUM_CNTRS));
	EXPECT_EQ(0U, nic_get(out, NIC_DIAG_ENABLE));
}

/* Single mode: samples every period until the buffer is full. */
TEST_F(nic, single)
{
	uint32_t cid[2] = { nic_cid_of(SIM_ID, DID(RX_PACKETS, 0)), nic_cid_of(SIM_ID, DID(RX_BYTES, 0)) };
	uint64_t t0;
	unsigned int k;

	ASSERT_NE(0U, cid[0]);
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, QUERY(0, 2, 0));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=7"));	/* before */
	t0 = sim_now_ns();
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=5"));
	ASSERT_EQ(0, nic_advance(PERIOD + 64));	/* sample 0 complete */
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=10 count=3"));
	ASSERT_EQ(0, nic_advance(PERIOD));
	/* two samples so far; the rest of the buffer is empty */
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 8, 0));
	EXPECT_EQ((uint32_t)NIC_DIAG_REC(8), last_len);
	EXPECT_EQ(cid[0], REC_CID(0));
	EXPECT_EQ(cid[1], REC_CID(1));
	EXPECT_EQ(0U, REC_SID(0));
	EXPECT_EQ(5U, REC_VAL(0));
	EXPECT_EQ(500U, REC_VAL(1));
	EXPECT_EQ((uint32_t)(t0 + PERIOD), REC_TS(0));
	EXPECT_EQ((uint32_t)(t0 + PERIOD + 64), REC_TS(1));	/* no sync */
	EXPECT_EQ(1U, REC_SID(2));
	EXPECT_EQ(8U, REC_VAL(2));
	EXPECT_EQ(530U, REC_VAL(3));
	EXPECT_EQ((uint32_t)(t0 + 2 * PERIOD), REC_TS(2));
	EXPECT_EQ(cid[0], REC_CID(4));
	EXPECT_EQ(0U, REC_VAL(4));
	EXPECT_EQ(0U, REC_TS(4));
	/* byte-exact record 1: counter_id, sample_id 0, ts, value 500 */
	EXPECT_EQ(cid[1] >> 8, REC(1)[0]);
	EXPECT_EQ(cid[1] & 0xff, REC(1)[1]);
	EXPECT_EQ(0, REC(1)[3]);
	EXPECT_EQ(0x01, REC(1)[14]);
	EXPECT_EQ(0xf4, REC(1)[15]);

	/* full after 4 samples: it stops */
	ASSERT_EQ(0, nic_advance(100 * PERIOD));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=10 count=1"));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 8, 0));
	for (k = 0; k < 4; k++) {
		EXPECT_EQ(k, REC_SID(2 * k));
		EXPECT_EQ(k ? 8U : 5U, REC_VAL(2 * k));
		EXPECT_EQ((uint32_t)(t0 + (k + 1) * PERIOD), REC_TS(2 * k));
	}
	/* from an index, rolling over */
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 3));
	EXPECT_EQ(3U, REC_SID(0));
	EXPECT_EQ(0U, REC_SID(2));
	EXPECT_EQ(500U, REC_VAL(3));

	/* restart: measured from now, sample_ids from 0 */
	t0 = sim_now_ns();
	ASSERT_EQ(NIC_STAT_OK, SET(1, 0, M_SINGLE, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_advance(PERIOD + 64));
	ASSERT_EQ(NIC_STAT_OK, QUERY(1, 2, 0));
	EXPECT_EQ(0U, REC_SID(0));
	EXPECT_EQ(0U, REC_VAL(0));
	EXPECT_EQ((uint32_t)(t0 + PERIOD), REC_TS(0));

	/* bad queries: a status, no output */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, QUERY(0, 3, 0));	/* not whole samples */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, QUERY(0, 0, 0));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, QUERY(0, 10, 0));	/* 5 > 4 samples */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, QUERY(0, 2, 4));	/* index out of range */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, QUERY(0, 2, 0xffff));
	EXPECT_EQ((uint32_t)NIC_HDR_OUT_LEN, last_len);
	hdr(self->in->b, NIC_OP_QUERY_DIAGNOSTIC_COUNTERS, 0, 0);
	nic_set(self->in->b, NIC_DIAG_Q_NUM_SAMPLES, 4);
	nic_set(self->in->b, NIC_DIAG_Q_SAMPLE_INDEX, 0);
	EXPECT_EQ(NIC_STAT_BAD_OUTP_LEN,
		  CMD(0, self->in->b, 16, self->out->b, NIC_DIAG_REC(4) - 16));
}

/* Repetitive with sync and clear: per-period counts, oldest overwritten. */
TEST_F(nic, repetitive)
{
	uint32_t cid[2] = { nic_cid_of(SIM_ID, DID(ICMC_HITS, 0)), nic_cid_of(SIM_ID, DID(ICMC_ACCESSES, 0)) };
	uint64_t t0 = sim_now_ns();
	unsigned int m, line;

	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP | M_SYNC | M_CLEAR, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=10"));
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=5"));
	ASSERT_EQ(0, nic_inject("ev=icmc_miss count=1"));
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(10U, REC_VAL(0));
	EXPECT_EQ(10U, REC_VAL(1));
	EXPECT_EQ(REC_TS(0), REC_TS(1));	/* sync: one clock */
	EXPECT_EQ(5U, REC_VAL(2));	/* clear: this period's */
	EXPECT_EQ(6U, REC_VAL(3));
	/* 5 more periods: samples 2-6, the buffer keeps 3-6 */
	ASSERT_EQ(0, nic_advance(5 * PERIOD));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 8, 0));
	for (m = 0; m < 4; m++) {
		unsigned int k = (unsigned int[]){ 4, 5, 6, 3 }[m];

		line = 2 * m;
		EXPECT_EQ(k, REC_SID(line));
		EXPECT_EQ(0U, REC_VAL(line));
		EXPECT_EQ((uint32_t)(t0 + (k + 1) * PERIOD), REC_TS(line));
	}

	/* sync without clear: counts from the start */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP | M_SYNC, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=4"));
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(0, nic_inject("ev=icmc_hit count=4"));
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(4U, REC_VAL(0));
	EXPECT_EQ(8U, REC_VAL(2));
}

/*
 * Sync: the counters stop for the collection, 64 clocks per counter
 * before the sample's time, and what comes meanwhile is not counted.
 */
TEST_F(nic, sync_stop)
{
	uint32_t cid[2] = { nic_cid_of(SIM_ID, DID(RX_PACKETS, 0)),
			    nic_cid_of(SIM_ID, DID(RX_BYTES, 0)) };
	const unsigned int stop = 2 * 64;	/* ns, at 1 GHz */
	uint64_t t0 = sim_now_ns();
	unsigned int k;

	/* no clear: counts from the start, less the stops */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP | M_SYNC, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=3"));
	ASSERT_EQ(0, nic_advance(PERIOD - stop - 1));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=1"));	/* counted */
	ASSERT_EQ(0, nic_advance(1));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=7"));	/* stopped */
	ASSERT_EQ(0, nic_advance(stop - 1));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=9"));	/* stopped */
	ASSERT_EQ(0, nic_advance(1));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=5"));	/* sample 1 */
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(4U, REC_VAL(0));
	EXPECT_EQ(400U, REC_VAL(1));
	EXPECT_EQ((uint32_t)(t0 + PERIOD), REC_TS(0));
	EXPECT_EQ(REC_TS(0), REC_TS(1));
	EXPECT_EQ(9U, REC_VAL(2));
	EXPECT_EQ(900U, REC_VAL(3));
	/* the device's own counters saw all 25 */
	EXPECT_EQ(25, cval(DID(RX_PACKETS, 0)));

	/* clear, with a flow of one packet per 4 ns: 256 a period, 32 stopped */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows", "add id=1 rate=250000000 ev=rx port=0 size=10"));
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP | M_SYNC | M_CLEAR, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_advance(4 * PERIOD));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 8, 0));
	for (k = 0; k < 4; k++) {
		EXPECT_EQ(224U, REC_VAL(2 * k)) TH_LOG("sample %u", k);
		EXPECT_EQ(2240U, REC_VAL(2 * k + 1));
	}
}

/*
 * Without sync, counter i of a sample is read 64 x i clocks after its
 * time: a packet between the two reads is in the second counter of
 * that sample and in the first of the next, even when an access or an
 * injection brings the NIC up to date in the middle of the collection.
 */
TEST_F(nic, nosync_mid_collection)
{
	uint32_t cid[2] = { nic_cid_of(SIM_ID, DID(RX_PACKETS, 0)),
			    nic_cid_of(SIM_ID, DID(RX_BYTES, 0)) };

	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_advance(PERIOD + 10));	/* counter 0 read, 1 not */
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=1"));
	ASSERT_EQ(0, nic_advance(100));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=10 count=1"));
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(0U, REC_VAL(0));	/* the packet came after its read */
	EXPECT_EQ(100U, REC_VAL(1));
	EXPECT_EQ(2U, REC_VAL(2));
	EXPECT_EQ(110U, REC_VAL(3));
}

/*
 * A start counts from the time of the command: sample 0 measures no
 * traffic from before it (on the realtime clock, where sim time moves
 * while the command runs).  Sync and clear with a steady flow of one
 * packet per 4 ns: every sample counts (1024 - 64) / 4 packets.
 */
TEST_F(nic, start_realtime)
{
	uint32_t cid[1] = { nic_cid_of(SIM_ID, DID(RX_PACKETS, 0)) };
	unsigned int k;

	ASSERT_EQ(0, sim_ctl(SIM_ID, "clock", "realtime"));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows",
			     "add id=1 rate=250000000 ev=rx port=0 size=10"));
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_SINGLE | M_SYNC | M_CLEAR, 2, 10, cid, 1));
	usleep(20000);
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	for (k = 0; k < 4; k++) {
		EXPECT_LE(239U, REC_VAL(k)) TH_LOG("sample %u", k);
		EXPECT_GE(241U, REC_VAL(k)) TH_LOG("sample %u", k);
	}
}

/* Reads 8 bytes of PF @pf's window at @off. */
static uint64_t pf_rd64(int fd, uint32_t off)
{
	uint64_t v = 0;

	if (pread(fd, &v, 8, off) != 8)
		return ~0ULL;
	return v;
}

/*
 * The sample window: NIC_SW_READ copies up to N unread samples, oldest
 * first, and reports those overwritten before once, with the first
 * one's sample_id; what it did not copy stays unread.
 */
TEST_F(nic, sample_window)
{
	uint32_t cid[2] = { nic_cid_of(SIM_ID, DID(RX_PACKETS, 0)),
			    nic_cid_of(SIM_ID, DID(RX_BYTES, 0)) };
	uint64_t t0 = sim_now_ns();
	int fd = pf_open(1);
	uint32_t v;

	ASSERT_LE(0, fd);
	/* nothing runs: nothing to copy */
	ASSERT_EQ(0, pf_wr(fd, NIC_SW_READ, 4));
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_RETURNED, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_STATE, &v));
	EXPECT_EQ((uint32_t)NIC_STATE_IDLE, v & 0xff);

	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=5"));
	ASSERT_EQ(0, nic_advance(2 * PERIOD + 64));	/* samples 0 and 1 */
	ASSERT_EQ(0, pf_wr(fd, NIC_SW_READ, 1));
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_RETURNED, &v));
	EXPECT_EQ(1U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_AVAIL, &v));
	EXPECT_EQ(1U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_LOST, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_SIZE, &v));
	EXPECT_EQ((uint32_t)NIC_SWS_SIZE(2), v);
	EXPECT_EQ(40U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_NUM_IDS, &v));
	EXPECT_EQ(2U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_STATE, &v));
	EXPECT_EQ((uint32_t)(NIC_STATE_RUNNING | NIC_MODE_REPETITIVE << 8), v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_KHZ, &v));
	EXPECT_EQ(1000000U, v);
	EXPECT_EQ((uint64_t)PERIOD, pf_rd64(fd, NIC_SW_PERIOD_NS));
	EXPECT_EQ(t0 + 2 * PERIOD + 64, pf_rd64(fd, NIC_REG_TIMER));
	EXPECT_EQ(0U, (uint32_t)pf_rd64(fd, NIC_SWIN + NIC_SWS_SAMPLE_ID));
	EXPECT_EQ(t0 + PERIOD, pf_rd64(fd, NIC_SWIN + NIC_SWS_TS_FIRST));
	EXPECT_EQ(t0 + PERIOD + 64, pf_rd64(fd, NIC_SWIN + NIC_SWS_TS_LAST));
	EXPECT_EQ(5U, pf_rd64(fd, NIC_SWIN + NIC_SWS_VALUES));
	EXPECT_EQ(500U, pf_rd64(fd, NIC_SWIN + NIC_SWS_VALUES + 8));

	/* a burst of 6: samples 2-7, the buffer keeps 4-7; 1-3 are lost */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/overrun", "6"));
	ASSERT_EQ(0, pf_wr(fd, NIC_SW_READ, 2));
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_RETURNED, &v));
	EXPECT_EQ(2U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_LOST, &v));
	EXPECT_EQ(3U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_LOST_FIRST, &v));
	EXPECT_EQ(1U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_AVAIL, &v));
	EXPECT_EQ(2U, v);
	EXPECT_EQ(4U, (uint32_t)pf_rd64(fd, NIC_SWIN + NIC_SWS_SAMPLE_ID));
	EXPECT_EQ(5U, (uint32_t)pf_rd64(fd, NIC_SWIN + 40 + NIC_SWS_SAMPLE_ID));
	EXPECT_EQ(500U, pf_rd64(fd, NIC_SWIN + 40 + NIC_SWS_VALUES + 8));
	/* the rest, and the loss is not reported twice */
	ASSERT_EQ(0, pf_wr(fd, NIC_SW_READ, 100));
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_RETURNED, &v));
	EXPECT_EQ(2U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_LOST, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_AVAIL, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(7U, (uint32_t)pf_rd64(fd, NIC_SWIN + 40 + NIC_SWS_SAMPLE_ID));

	/* the device clock is read when read, not latched by NIC_SW_READ */
	ASSERT_EQ(0, nic_advance(1000));
	EXPECT_EQ(t0 + 2 * PERIOD + 1064, pf_rd64(fd, NIC_REG_TIMER));
	EXPECT_EQ(0, pf_rd(fd, NIC_REG_TIMER, &v));
	EXPECT_EQ((uint32_t)(t0 + 2 * PERIOD + 1064), v);
	EXPECT_EQ(0, pf_rd(fd, NIC_REG_TIMER + 4, &v));
	EXPECT_EQ((uint32_t)((t0 + 2 * PERIOD + 1064) >> 32), v);
	close(fd);
}

/*
 * A read of the window (a block copy, as the driver's memcpy_fromio(),
 * or 8 bytes at a time) gives the samples of the last NIC_SW_READ, even
 * once the engine has stored newer ones over their places in its buffer.
 */
TEST_F(nic, window_kept)
{
	uint32_t cid[2] = { nic_cid_of(SIM_ID, DID(RX_PACKETS, 0)),
			    nic_cid_of(SIM_ID, DID(RX_BYTES, 0)) };
	uint64_t t0 = sim_now_ns(), w[4 * 5];
	int fd = pf_open(1), pass;
	unsigned int k;
	uint32_t v;

	ASSERT_LE(0, fd);
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP, 2, 10, cid, 2));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=100 count=5"));
	ASSERT_EQ(0, nic_advance(3 * PERIOD + 64));	/* samples 0-2 */
	ASSERT_EQ(0, pf_wr(fd, NIC_SW_READ, 2));	/* 0 and 1 */
	for (pass = 0; pass < 2; pass++) {
		/* then 3-6 over the buffer's 4 places, 0 and 1's among them */
		if (pass) {
			ASSERT_EQ(0, nic_inject("ev=rx port=0 size=10 count=2"));
			ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/overrun", "4"));
		}
		memset(w, 0xff, sizeof(w));
		ASSERT_EQ(80, pread(fd, w, 80, NIC_SWIN)) TH_LOG("pass %d", pass);
		for (k = 0; k < 2; k++) {
			EXPECT_EQ((uint64_t)k, w[5 * k]) TH_LOG("pass %d", pass);
			EXPECT_EQ(t0 + (k + 1) * PERIOD, w[5 * k + 1]);
			EXPECT_EQ(t0 + (k + 1) * PERIOD + 64, w[5 * k + 2]);
			EXPECT_EQ(5U, w[5 * k + 3]);
			EXPECT_EQ(500U, w[5 * k + 4]);
		}
	}
	EXPECT_EQ(1U, (uint32_t)pf_rd64(fd, NIC_SWIN + 40 + NIC_SWS_SAMPLE_ID));
	/* the next read: 2 lost, 3-6 with the 2 packets more */
	ASSERT_EQ(0, pf_wr(fd, NIC_SW_READ, 4));
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_RETURNED, &v));
	EXPECT_EQ(4U, v);
	EXPECT_EQ(0, pf_rd(fd, NIC_SW_LOST, &v));
	EXPECT_EQ(1U, v);
	ASSERT_EQ(160, pread(fd, w, 160, NIC_SWIN));
	for (k = 0; k < 4; k++) {
		EXPECT_EQ((uint64_t)k + 3, w[5 * k]);
		EXPECT_EQ(7U, w[5 * k + 3]);
		EXPECT_EQ(520U, w[5 * k + 4]);
	}
	close(fd);
}

/* A catch-up over many periods takes the ones that stay, exactly. */
TEST_F(nic, catch_up)
{
	uint32_t cid[1] = { nic_cid_of(SIM_ID, DID(RX_PACKETS, 1)) };
	uint64_t total, k0, t0;
	unsigned int m;

	t0 = sim_now_ns();
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows", "add id=1 rate=1000000 ev=rx port=1 size=64"));
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP | M_SYNC | M_CLEAR, 3, 10, cid, 1));
	total = 1000000000ULL;
	ASSERT_EQ(0, nic_advance(total));
	/* samples 0 .. floor(1e9 / 1024) - 1 taken; the last 8 stay */
	k0 = total / PERIOD - 8;
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 8, 0));
	for (m = 0; m < 8; m++) {
		uint64_t k = k0 + m, slot = k % 8;
		/* packets by the stop for sample k, minus by the end of k - 1 */
		uint64_t exp = ((k + 1) * PERIOD - 64) / 1000 - k * PERIOD / 1000;

		EXPECT_EQ((uint32_t)(k & 0xffff), REC_SID(slot));
		EXPECT_EQ(exp, REC_VAL(slot)) TH_LOG("sample %llu", (unsigned long long)k);
		EXPECT_EQ((uint32_t)(t0 + (k + 1) * PERIOD), REC_TS(slot));
	}
}

/* On-demand: each query takes one sample; Statistics reset at each. */
TEST_F(nic, on_demand)
{
	uint32_t cid[3] = { nic_cid_of(SIM_ID, DID(PCIE_RD_LAT_MAX, 0)),
			    nic_cid_of(SIM_ID, DID(PCIE_RD_LAT_MIN, 0)),
			    nic_cid_of(SIM_ID, DID(PCIE_RD_COUNT, 0)) };
	uint64_t t;

	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_OD | M_SYNC, 0, 0, cid, 3));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_MODE, NIC_SYND_NO_INDEX),
		  nic_get(self->out->b, NIC_HDR_SYNDROME));
	/* single + on_demand, as FreeBSD sets them: on-demand */
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_OD | M_SINGLE, 0, 0, cid, 3));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=500"));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=900"));
	ASSERT_EQ(0, nic_advance(12345));
	t = sim_now_ns();
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 3, 0));
	EXPECT_EQ((uint32_t)NIC_DIAG_REC(3), last_len);
	EXPECT_EQ(0U, REC_SID(0));
	EXPECT_EQ(900U, REC_VAL(0));
	EXPECT_EQ(500U, REC_VAL(1));
	EXPECT_EQ(2U, REC_VAL(2));
	EXPECT_EQ((uint32_t)t, REC_TS(0));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 3, 7));
	EXPECT_EQ(1U, REC_SID(0));
	EXPECT_EQ(0U, REC_VAL(0));
	EXPECT_EQ(0U, REC_VAL(1));
	EXPECT_EQ(2U, REC_VAL(2));
	ASSERT_EQ(0, nic_inject("ev=pcie_read link=0 lat=300"));
	ASSERT_EQ(NIC_STAT_OK, QUERY(1, 6, 0));
	EXPECT_EQ(2U, REC_SID(0));
	EXPECT_EQ(300U, REC_VAL(0));
	EXPECT_EQ(300U, REC_VAL(1));
	EXPECT_EQ(3U, REC_VAL(2));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, QUERY(0, 2, 0));	/* fewer than a sample */
}

/* A list that cannot be applied names its failing index; nothing changes. */
TEST_F(nic, apply_fails)
{
	uint8_t *out = self->out->b, *in = self->in->b;
	uint32_t good[1] = { nic_cid_of(SIM_ID, DID(RX_BYTES, 0)) };
	uint32_t cid[4] = { nic_cid_of(SIM_ID, DID(RX_BYTES, 0)), nic_cid_of(SIM_ID, DID(ICMC_HITS, 0)),
			    nic_cid_of(SIM_ID, DID(PCIE_RD_LAT_MAX, 1)), nic_cid_of(SIM_ID, DID(TX_CQE, 0)) };
	uint32_t l;

	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP, 3, 12, good, 1));
	/* index 2 cannot sync */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_REP | M_SYNC, 2, 10, cid, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_NO_SYNC, 2), nic_get(out, NIC_HDR_SYNDROME));
	EXPECT_EQ(0x00020002U, nic_get(out, NIC_HDR_SYNDROME));
	/* without sync it goes */
	/* unknown counter_id at 1, duplicate at 3 */
	cid[1] = 0x7fff;
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_REP, 2, 10, cid, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_UNKNOWN_ID, 1), nic_get(out, NIC_HDR_SYNDROME));
	cid[1] = nic_cid_of(SIM_ID, DID(ICMC_HITS, 0));
	cid[3] = cid[1];
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_REP, 2, 10, cid, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_DUPLICATE, 3), nic_get(out, NIC_HDR_SYNDROME));
	/* clear needs sync; one mode; capacity 4096 counter-samples */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_REP | M_CLEAR, 2, 10, cid, 3));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_MODE, NIC_SYND_NO_INDEX),
		  nic_get(out, NIC_HDR_SYNDROME));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_REP | M_SINGLE, 2, 10, cid, 3));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, 0, 2, 10, cid, 3));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_REP, 11, 10, cid, 3));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_CAPACITY, NIC_SYND_NO_INDEX),
		  nic_get(out, NIC_HDR_SYNDROME));
	EXPECT_EQ(NIC_STAT_OK, SET(0, 0, M_REP, 10, 10, cid, 3));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, SET(0, 0, M_REP, 2, 10, cid, 0));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_COUNT, NIC_SYND_NO_INDEX),
		  nic_get(out, NIC_HDR_SYNDROME));
	/* the input must hold the list it announces */
	l = set_params_in(in, 0, M_REP, 2, 10, cid, 3);
	EXPECT_EQ(NIC_STAT_BAD_INP_LEN, CMD(0, in, l - 4, out, 16));
	/* the last good configuration stands */
	hdr(in, NIC_OP_QUERY_DIAGNOSTIC_PARAMS, 0, 0);
	ASSERT_EQ(NIC_STAT_OK, CMD(0, in, 16, out, NIC_DIAG_PARAMS_LEN(4)));
	EXPECT_EQ(3U, nic_get(out, NIC_DIAG_NUM_CNTRS));
	EXPECT_EQ(10U, nic_get(out, NIC_DIAG_LOG_NUM_SAMPLES));
	EXPECT_EQ(1U, nic_get(out, NIC_DIAG_ENABLE));
}

/* The test knobs: a stalled engine takes nothing; overruns on demand. */
TEST_F(nic, stall_overrun)
{
	uint32_t cid[1] = { nic_cid_of(SIM_ID, DID(QP_DESCHED, 0)) };

	EXPECT_EQ(-EBUSY, sim_ctl(SIM_ID, "nic/overrun", "1"));
	ASSERT_EQ(NIC_STAT_OK, SET(0, 0, M_REP, 2, 10, cid, 1));
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/stall", "1"));
	ASSERT_EQ(0, nic_advance(10 * PERIOD));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(0U, REC_SID(0));
	EXPECT_EQ(0U, REC_TS(1));	/* only one sample */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/stall", "0"));
	ASSERT_EQ(0, nic_advance(PERIOD - 1));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(0U, REC_TS(1));
	ASSERT_EQ(0, nic_advance(1));
	ASSERT_EQ(0, nic_inject("ev=qp_desched count=2"));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(1U, REC_SID(1));
	EXPECT_NE(0U, REC_TS(1));
	/* a burst of 6: samples 2-7, the buffer keeps 4-7 */
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/overrun", "6"));
	ASSERT_EQ(NIC_STAT_OK, QUERY(0, 4, 0));
	EXPECT_EQ(4U, REC_SID(0));
	EXPECT_EQ(7U, REC_SID(3));
	EXPECT_EQ(2U, REC_VAL(3));
}

/*
 * Random commands, well-formed headers with random bodies and lengths:
 * every one gets a delivery status or a firmware status and an output
 * length within what was given, never a crash (KASAN and UBSAN watch
 * the firmware on the debug kernel).
 */
#define NIC_FUZZ_LOOPS	"NIC_FUZZ_ITERS", 3000, 20000
TEST_F_TIMEOUT(nic, random_commands,
	       upmu_loops_timeout(NIC_FUZZ_LOOPS, TEST_TIMEOUT_DEFAULT))
{
	static const uint16_t ops[] = {
		NIC_OP_QUERY_HCA_CAP, NIC_OP_CREATE_UCTX, NIC_OP_DESTROY_UCTX,
		NIC_OP_SET_DIAGNOSTIC_PARAMS, NIC_OP_QUERY_DIAGNOSTIC_PARAMS,
		NIC_OP_QUERY_DIAGNOSTIC_COUNTERS, NIC_OP_EXT_QUERY_DATA_IDS,
		NIC_OP_EXT_OWNERSHIP, NIC_OP_EXT_SET_CONFIG, NIC_OP_EXT_APPLY_IDS,
		NIC_OP_EXT_START, NIC_OP_EXT_STOP, NIC_OP_EXT_RESTART,
		NIC_OP_EXT_QUERY_STATE, NIC_OP_EXT_QUERY_SAMPLES, 0x3e09, 0,
	};
	unsigned int i, j, iters = upmu_loops(NIC_FUZZ_LOOPS);
	uint32_t cid = nic_cid_of(SIM_ID, DID(RX_BYTES, 0)), len, in_len, out_len;
	int st;

	srandom(9);
	ASSERT_EQ(0, sim_ctl(SIM_ID, "nic/flows", "add id=1 rate=1000000 ev=icmc_hit"));
	for (i = 0; i < iters; i++) {
		uint8_t *in = self->in->b;

		for (j = 0; j < 256; j++)
			in[j] = random();
		/* small counts and known IDs often, to get past the checks */
		if (random() & 1) {
			nic_set(in, NIC_DIAG_NUM_CNTRS, random() % 4);
			nic_set(in, NIC_DIAG_LOG_NUM_SAMPLES, random() % 4);
			nic_set(in, NIC_DIAG_LOG_PERIOD, random() % 14);
			for (j = 0; j < 4; j++)
				nic_set(in, NIC_DIAG_CNTR_ID(j), cid + random() % 3);
			nic_set(in, NIC_DIAG_Q_NUM_SAMPLES, random() % 16);
		}
		nic_set(in, NIC_HDR_OPCODE, ops[random() % (sizeof(ops) / sizeof(ops[0]))]);
		nic_set(in, NIC_HDR_UID, random() % 4);
		nic_set(in, NIC_HDR_OP_MOD, random() % 3 ? random() % 2 :
			     (NIC_CAP_DEBUG << 1 | 1));
		in_len = random() % 3 ? 16 + random() % 80 : random() % 0x1100;
		out_len = random() % 3 ? 16 + random() % 0x200 : random() % 0x11000;
		out_len &= ~3U;
		len = ~0U;
		st = cmd_raw(random() % 2, in, in_len, self->out->b, out_len, &len);
		ASSERT_LE(0, st) TH_LOG("command %u", i);
		if (st == NIC_DELIVERY_OK) {
			ASSERT_LE(16U, len);
			ASSERT_GE(out_len, len);
			ASSERT_GE(0x51U, nic_get(self->out->b, NIC_HDR_STATUS));
		} else {
			ASSERT_EQ(0U, len);
		}
		if (i % 64 == 0)
			ASSERT_EQ(0, nic_advance(random() % 100000));
	}
}

/* ---- the extension ------------------------------------------------------ */

#define IN	(self->in->b)
#define OUT	(self->out->b)

static int owner_take(struct __test_metadata *_metadata, uint8_t *in,
		      uint8_t *out, unsigned int pf, uint16_t uid, int force)
{
	hdr(in, NIC_OP_EXT_OWNERSHIP, uid, NIC_OWN_TAKE);
	nic_set(in, NIC_EXT_OWN_FORCE, force);
	return CMD(pf, in, 16, out, 16);
}

static int ext_simple(struct __test_metadata *_metadata, uint8_t *in,
		      uint8_t *out, unsigned int pf, uint16_t uid, uint16_t op)
{
	hdr(in, op, uid, 0);
	return CMD(pf, in, 16, out, 16);
}

static int ext_config(struct __test_metadata *_metadata, uint8_t *in,
		      uint8_t *out, unsigned int pf, uint16_t uid,
		      unsigned int mode, unsigned int format, int sync,
		      int clear, unsigned int log_samples, uint64_t period_ns,
		      unsigned int max_ids)
{
	memset(in, 0, NIC_EXT_CFG_IN_LEN);
	hdr(in, NIC_OP_EXT_SET_CONFIG, uid, 0);
	nic_set(in, NIC_EXT_CFG_MODE, mode);
	nic_set(in, NIC_EXT_CFG_FORMAT, format);
	nic_set(in, NIC_EXT_CFG_SYNC, sync);
	nic_set(in, NIC_EXT_CFG_CLEAR, clear);
	nic_set(in, NIC_EXT_CFG_LOG_SAMPLES, log_samples);
	nic_set64(in, NIC_EXT_CFG_PERIOD_NS, period_ns);
	nic_set(in, NIC_EXT_CFG_MAX_IDS, max_ids);
	return CMD(pf, in, NIC_EXT_CFG_IN_LEN, out, 16);
}

static int ext_apply(struct __test_metadata *_metadata, uint8_t *in,
		     uint8_t *out, unsigned int pf, uint16_t uid,
		     const uint64_t *ids, unsigned int n)
{
	unsigned int i;

	hdr(in, NIC_OP_EXT_APPLY_IDS, uid, 0);
	nic_set(in, NIC_EXT_APPLY_NUM, n);
	for (i = 0; i < n; i++)
		nic_set64(in, NIC_EXT_APPLY_ID(i), ids[i]);
	return CMD(pf, in, NIC_EXT_APPLY_IN_LEN(n), out, NIC_EXT_APPLY_OUT_LEN);
}

static int ext_state(struct __test_metadata *_metadata, uint8_t *in,
		     uint8_t *out, unsigned int pf)
{
	hdr(in, NIC_OP_EXT_QUERY_STATE, 0, 0);
	if (CMD(pf, in, 16, out, NIC_EXT_STATE_OUT_LEN) != NIC_STAT_OK)
		return -1;
	return nic_get(out, NIC_EXT_STATE_STATE);
}

static int ext_samples(struct __test_metadata *_metadata, uint8_t *in,
		       uint8_t *out, unsigned int pf, uint16_t uid,
		       unsigned int max, uint32_t out_len)
{
	hdr(in, NIC_OP_EXT_QUERY_SAMPLES, uid, 0);
	nic_set(in, NIC_EXT_SMP_MAX, max);
	return CMD(pf, in, 16, out, out_len);
}

#define UCTX(pf)	uctx_create(_metadata, IN, OUT, pf, NIC_UCTX_CAP_TOOLS_RESOURCES)
#define TAKE(pf, uid, force)	owner_take(_metadata, IN, OUT, pf, uid, force)
#define OP(pf, uid, op)	ext_simple(_metadata, IN, OUT, pf, uid, op)
#define CONFIG(pf, uid, mode, fmt, sync, clear, ls, ns, max) \
	ext_config(_metadata, IN, OUT, pf, uid, mode, fmt, sync, clear, ls, ns, max)
#define APPLY(pf, uid, ids, n)	ext_apply(_metadata, IN, OUT, pf, uid, ids, n)
#define STATE(pf)	ext_state(_metadata, IN, OUT, pf)
#define SAMPLES(pf, uid, max, len) ext_samples(_metadata, IN, OUT, pf, uid, max, len)
#define SYND()		nic_get(OUT, NIC_HDR_SYNDROME)

/*
 * Taking a sample drives the engine: with an owner, only the owner may,
 * on the PRM path (an on-demand QUERY_DIAGNOSTIC_COUNTERS) as on the
 * extension's; another user's query is RES_BUSY and takes none, so the
 * owner's sample_ids go on unbroken.  Reading buffered samples changes
 * nothing: anyone may.
 */
TEST_F(nic, on_demand_needs_the_owner)
{
	uint32_t cid[1] = { nic_cid_of(SIM_ID, DID(PCIE_RD_COUNT, 0)) };
	int a = UCTX(0), b = UCTX(0);

	ASSERT_LT(0, a);
	ASSERT_LT(0, b);
	ASSERT_EQ(NIC_STAT_OK, TAKE(0, a, 0));
	ASSERT_EQ(NIC_STAT_OK, SET(0, a, M_OD, 0, 0, cid, 1));
	ASSERT_EQ(NIC_STAT_OK, QUERY_AS(0, a, 1, 0));
	EXPECT_EQ(0U, REC_SID(0));
	EXPECT_EQ(NIC_STAT_RES_BUSY, QUERY_AS(0, b, 1, 0));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_OWNER, NIC_SYND_NO_INDEX), SYND());
	EXPECT_EQ(NIC_STAT_RES_BUSY, QUERY_AS(0, 0, 1, 0));
	ASSERT_EQ(NIC_STAT_OK, QUERY_AS(0, a, 1, 0));
	EXPECT_EQ(1U, REC_SID(0));

	/* buffered samples: a read for anyone */
	ASSERT_EQ(NIC_STAT_OK, SET(0, a, M_REP, 2, 10, cid, 1));
	ASSERT_EQ(0, nic_advance(4 * 1024));
	EXPECT_EQ(NIC_STAT_OK, QUERY_AS(0, b, 1, 0));
	ASSERT_EQ(NIC_STAT_OK, OP(0, a, NIC_OP_EXT_STOP));
	hdr(IN, NIC_OP_EXT_OWNERSHIP, a, NIC_OWN_RELEASE);
	EXPECT_EQ(NIC_STAT_OK, CMD(0, IN, 16, OUT, 16));
}

TEST_F(nic, ext_data_ids)
{
	unsigned int i, found = 0;

	hdr(IN, NIC_OP_EXT_QUERY_DATA_IDS, 0, 0);
	nic_set(IN, NIC_EXT_IDS_START, 0);
	nic_set(IN, NIC_EXT_IDS_MAX, 100000);
	ASSERT_EQ(NIC_STAT_OK, CMD(0, IN, 16, OUT, NIC_EXT_ID(NIC_NR_CNTRS)));
	EXPECT_EQ((uint32_t)NIC_NR_CNTRS, nic_get(OUT, NIC_EXT_IDS_TOTAL));
	EXPECT_EQ((uint32_t)NIC_NR_CNTRS, nic_get(OUT, NIC_EXT_IDS_RETURNED));
	EXPECT_EQ((uint32_t)NIC_EXT_ID(NIC_NR_CNTRS), last_len);
	/* entry 0, byte by byte: 0x1020000100000000, sync, Counter, port, 0x400 */
	const uint8_t e0[16] = {
		0x10, 0x20, 0x00, 0x01, 0, 0, 0, 0,
		0x80, 0x01, 0x04, 0x00, 0, 0, 0, 0 };

	EXPECT_EQ(0, memcmp(OUT + NIC_EXT_ID(0), e0, 16));
	for (i = 0; i < NIC_NR_CNTRS; i++) {
		uint8_t *e = OUT + NIC_EXT_ID(i);
		uint64_t id = nic_get64(e, NIC_EXT_ID_DATA_ID);

		EXPECT_EQ(nic_cid_of(SIM_ID, id), nic_get(e, NIC_EXT_ID_CNTR_ID));
		if (id == DID(PCIE_RD_LAT_MIN, 1)) {
			found++;
			EXPECT_EQ(1U, nic_get(e, NIC_EXT_ID_STAT));
			EXPECT_EQ(0U, nic_get(e, NIC_EXT_ID_SYNC));
			EXPECT_EQ((uint32_t)NIC_PARAM_LINK, nic_get(e, NIC_EXT_ID_PARAM));
		}
		if (id == DID(STALL_NP_ORDER, NIC_DID_LINK_TC(1, 7))) {
			found++;
			EXPECT_EQ((uint32_t)NIC_PARAM_LINK_TC, nic_get(e, NIC_EXT_ID_PARAM));
		}
		if (id == DID(TX_CQE_FUNC, 3)) {
			found++;
			EXPECT_EQ((uint32_t)NIC_PARAM_FUNC, nic_get(e, NIC_EXT_ID_PARAM));
			EXPECT_EQ(1U, nic_get(e, NIC_EXT_ID_SYNC));
		}
	}
	EXPECT_EQ(3U, found);
	/* a window of the list, and past its end */
	nic_set(IN, NIC_EXT_IDS_START, 2);
	nic_set(IN, NIC_EXT_IDS_MAX, 3);
	ASSERT_EQ(NIC_STAT_OK, CMD(0, IN, 16, OUT, 4096));
	EXPECT_EQ(3U, nic_get(OUT, NIC_EXT_IDS_RETURNED));
	EXPECT_EQ(DID(RX_BYTES_PRIO, 0), nic_get64(OUT + NIC_EXT_ID(0), 0));
	nic_set(IN, NIC_EXT_IDS_START, NIC_NR_CNTRS);
	ASSERT_EQ(NIC_STAT_OK, CMD(0, IN, 16, OUT, 4096));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_IDS_RETURNED));
	EXPECT_EQ(16U, last_len);
}

/* One owner per device, across PFs; force; released with its uid. */
TEST_F(nic, ext_ownership)
{
	uint64_t ids[1] = { DID(RX_BYTES, 0) };
	uint32_t cid[1] = { nic_cid_of(SIM_ID, DID(RX_BYTES, 0)) };
	int a = UCTX(0), b = UCTX(1), c = UCTX(0);

	ASSERT_LT(0, a);
	ASSERT_LT(0, b);
	ASSERT_LT(0, c);
	/* uid 0 is the kernel's driver: no user's force takes it over */
	ASSERT_EQ(NIC_STAT_OK, TAKE(1, 0, 0));
	EXPECT_EQ(NIC_STAT_RES_BUSY, TAKE(0, a, 1));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_OWNER, NIC_SYND_NO_INDEX), SYND());
	/* the kernel drives the engine it owns, through its PF only */
	EXPECT_EQ(NIC_STAT_OK, CONFIG(1, 0, 1, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_STAT_RES_BUSY, CONFIG(0, 0, 1, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_STAT_OK, OP(1, 0, NIC_OP_EXT_STOP));
	hdr(IN, NIC_OP_EXT_OWNERSHIP, 0, NIC_OWN_RELEASE);
	ASSERT_EQ(NIC_STAT_OK, CMD(1, IN, 16, OUT, 16));
	/* nobody owns: the PRM commands go; the extension needs the owner */
	EXPECT_EQ(NIC_STAT_OK, SET(1, 0, M_SINGLE, 2, 10, cid, 1));
	EXPECT_EQ(NIC_STAT_RES_BUSY, CONFIG(0, a, 1, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_OWNER, NIC_SYND_NO_INDEX), SYND());

	ASSERT_EQ(NIC_STAT_OK, TAKE(0, a, 0));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_OWN_PREV_VALID));
	EXPECT_EQ(NIC_STAT_OK, TAKE(0, a, 0));		/* again: still mine */
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_OWN_PREV_VALID));
	/* a new owner starts from Idle: the PRM configuration stopped */
	EXPECT_EQ(NIC_STATE_IDLE, STATE(1));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_STATE_OWNED));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_STATE_OWNER_PF));
	EXPECT_EQ((uint32_t)a, nic_get(OUT, NIC_EXT_STATE_OWNER_UID));
	/* not through the other PF, nor another uid of the same PF */
	EXPECT_EQ(NIC_STAT_RES_BUSY, TAKE(1, b, 0));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_OWNER, NIC_SYND_NO_INDEX), SYND());
	EXPECT_EQ(NIC_STAT_RES_BUSY, TAKE(0, c, 0));
	/* others can no longer drive the engine, with either command set */
	EXPECT_EQ(NIC_STAT_RES_BUSY, SET(1, 0, M_SINGLE, 2, 10, cid, 1));
	EXPECT_EQ(NIC_STAT_RES_BUSY, SET(0, c, M_SINGLE, 2, 10, cid, 1));
	EXPECT_EQ(NIC_STAT_RES_BUSY, CONFIG(1, b, 1, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_STAT_RES_BUSY, OP(0, c, NIC_OP_EXT_STOP));
	/* the owner can, with both */
	EXPECT_EQ(NIC_STAT_OK, SET(0, a, M_SINGLE, 2, 10, cid, 1));
	EXPECT_EQ(NIC_STAT_OK, OP(0, a, NIC_OP_EXT_STOP));
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, a, 1, 0, 0, 0, 2, 0, 4));
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, a, ids, 1));
	ASSERT_EQ(NIC_STAT_OK, OP(0, a, NIC_OP_EXT_START));
	/* force through the other PF: the engine stops, b owns */
	ASSERT_EQ(NIC_STAT_OK, TAKE(1, b, 1));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_OWN_PREV_VALID));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_OWN_PREV_PF));
	EXPECT_EQ((uint32_t)a, nic_get(OUT, NIC_EXT_OWN_PREV_UID));
	EXPECT_EQ(NIC_STATE_IDLE, STATE(0));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_STATE_OWNER_PF));
	EXPECT_EQ(NIC_STAT_RES_BUSY, OP(0, a, NIC_OP_EXT_STOP));
	/* releasing what one does not own */
	hdr(IN, NIC_OP_EXT_OWNERSHIP, a, NIC_OWN_RELEASE);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CMD(0, IN, 16, OUT, 16));
	/* the holder's uid goes (its file closed): the device is free */
	ASSERT_EQ(NIC_STAT_OK, CONFIG(1, b, 1, 0, 0, 0, 2, 0, 4));
	ASSERT_EQ(NIC_STAT_OK, uctx_destroy(_metadata, IN, OUT, 1, b));
	EXPECT_EQ(NIC_STATE_IDLE, STATE(0));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_STATE_OWNED));
	ASSERT_EQ(NIC_STAT_OK, TAKE(0, c, 0));
	hdr(IN, NIC_OP_EXT_OWNERSHIP, c, NIC_OWN_RELEASE);
	EXPECT_EQ(NIC_STAT_OK, CMD(0, IN, 16, OUT, 16));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CMD(0, IN, 16, OUT, 16));
	hdr(IN, NIC_OP_EXT_OWNERSHIP, c, 2);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CMD(0, IN, 16, OUT, 16));
}

/* Idle -> Configured -> Ready -> Running; every other step refused. */
TEST_F(nic, ext_state_machine)
{
	uint64_t ids[2] = { DID(RX_PACKETS, 1), DID(ICMC_MISSES, 0) };
	int u = UCTX(0);
	static const uint16_t ops[] = { NIC_OP_EXT_START, NIC_OP_EXT_STOP,
					NIC_OP_EXT_RESTART };
	unsigned int i;

	ASSERT_EQ(NIC_STAT_OK, TAKE(0, u, 0));
	EXPECT_EQ(NIC_STATE_IDLE, STATE(0));
	/* Idle: only a configuration */
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, OP(0, u, ops[i]));
		EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_STATE, NIC_SYND_NO_INDEX), SYND());
		EXPECT_EQ(NIC_STATE_IDLE, STATE(0));
	}
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, APPLY(0, u, ids, 2));
	EXPECT_EQ(NIC_STATE_IDLE, STATE(0));
	/* Configured */
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_SINGLE, 1, 1, 1, 2, 3000, 4));
	EXPECT_EQ(NIC_STATE_CONFIGURED, STATE(0));
	EXPECT_EQ(12U, nic_get(OUT, NIC_EXT_STATE_LOG_PERIOD));	/* 3000 -> 4096 */
	EXPECT_EQ(4U, nic_get(OUT, NIC_EXT_STATE_MAX_IDS));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, CONFIG(0, u, 1, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, OP(0, u, NIC_OP_EXT_START));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, OP(0, u, NIC_OP_EXT_RESTART));
	EXPECT_EQ(NIC_STATE_CONFIGURED, STATE(0));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_STATE_FORMAT));
	/* Ready: the actual period comes back */
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, u, ids, 2));
	EXPECT_EQ((uint32_t)NIC_EXT_APPLY_OUT_LEN, last_len);
	EXPECT_EQ(4096U, nic_get64(OUT, NIC_EXT_APPLY_PERIOD_NS));
	EXPECT_EQ(12U, nic_get(OUT, NIC_EXT_APPLY_LOG_PERIOD));
	EXPECT_EQ((uint32_t)NIC_FMT1_SIZE(2), nic_get(OUT, NIC_EXT_APPLY_SAMPLE_SIZE));
	EXPECT_EQ(NIC_STATE_READY, STATE(0));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, APPLY(0, u, ids, 2));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, CONFIG(0, u, 1, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, OP(0, u, NIC_OP_EXT_RESTART));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, SAMPLES(0, u, 1, 4096));
	EXPECT_EQ(NIC_STATE_READY, STATE(0));
	/* Running */
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_START));
	EXPECT_EQ(NIC_STATE_RUNNING, STATE(0));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, OP(0, u, NIC_OP_EXT_START));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, APPLY(0, u, ids, 2));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, CONFIG(0, u, 1, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_STATE_RUNNING, STATE(0));
	/* single: stops full, restarts */
	ASSERT_EQ(0, nic_advance(10 * 4096));
	ASSERT_EQ(NIC_STATE_RUNNING, STATE(0));
	EXPECT_EQ(4U, nic_get64(OUT, NIC_EXT_STATE_TAKEN));
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_RESTART));
	ASSERT_EQ(NIC_STATE_RUNNING, STATE(0));
	EXPECT_EQ(0U, nic_get64(OUT, NIC_EXT_STATE_TAKEN));
	/* stop from Running, Ready and Configured */
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_STOP));
	EXPECT_EQ(NIC_STATE_IDLE, STATE(0));
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_REPETITIVE, 0, 0, 0, 2, 0, 4));
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, u, ids, 2));
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_START));
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, OP(0, u, NIC_OP_EXT_RESTART));	/* not single */
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_STOP));
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_REPETITIVE, 0, 0, 0, 2, 0, 4));
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, u, ids, 2));
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_STOP));
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_REPETITIVE, 0, 0, 0, 2, 0, 4));
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_STOP));
	EXPECT_EQ(NIC_STATE_IDLE, STATE(0));
}

/* Configurations and lists that fail: reason and index, state kept. */
TEST_F(nic, ext_apply_fails)
{
	uint64_t ids[4] = { DID(RX_BYTES, 0), DID(RX_BYTES, 5),
			    DID(PCIE_RD_LAT_MAX, 0), DID(TX_CQE, 0) };
	int u = UCTX(1);

	ASSERT_EQ(NIC_STAT_OK, TAKE(1, u, 0));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CONFIG(1, u, 3, 0, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_MODE, NIC_SYND_NO_INDEX), SYND());
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CONFIG(1, u, 1, 3, 0, 0, 2, 0, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_FORMAT, NIC_SYND_NO_INDEX), SYND());
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CONFIG(1, u, 1, 0, 0, 1, 2, 0, 4));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CONFIG(1, u, 2, 0, 1, 0, 2, 0, 4));
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CONFIG(1, u, 1, 0, 0, 0, 2, 1ULL << 36, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_PERIOD, NIC_SYND_NO_INDEX), SYND());
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CONFIG(1, u, 1, 0, 0, 0, 11, 0, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_CAPACITY, NIC_SYND_NO_INDEX), SYND());
	EXPECT_EQ(NIC_STAT_BAD_PARAM, CONFIG(1, u, 1, 0, 0, 0, 2, 0, 0));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_COUNT, NIC_SYND_NO_INDEX), SYND());
	EXPECT_EQ(NIC_STATE_IDLE, STATE(1));

	ASSERT_EQ(NIC_STAT_OK, CONFIG(1, u, NIC_MODE_REPETITIVE, 0, 1, 0, 2, 0, 3));
	/* port 5 does not exist: index 1 */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, APPLY(1, u, ids, 3));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_UNKNOWN_ID, 1), SYND());
	EXPECT_EQ(16U, last_len);
	/* without it, index 1 is the Statistic that cannot sync */
	ids[1] = ids[2];
	EXPECT_EQ(NIC_STAT_BAD_PARAM, APPLY(1, u, ids, 3));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_NO_SYNC, 1), SYND());
	ids[1] = DID(RX_PACKETS, 0);
	ids[2] = DID(RX_PACKETS, 0);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, APPLY(1, u, ids, 3));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_DUPLICATE, 2), SYND());
	/* more than max_num_data_ids */
	EXPECT_EQ(NIC_STAT_BAD_PARAM, APPLY(1, u, ids, 4));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_COUNT, 3), SYND());
	/* stray bits in an ID */
	ids[2] = DID(RX_PACKETS, 0x100);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, APPLY(1, u, ids, 3));
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_UNKNOWN_ID, 2), SYND());
	/* the announced list must be in the input */
	hdr(IN, NIC_OP_EXT_APPLY_IDS, u, 0);
	nic_set(IN, NIC_EXT_APPLY_NUM, 100000);
	EXPECT_EQ(NIC_STAT_BAD_INP_LEN, CMD(1, IN, 64, OUT, NIC_EXT_APPLY_OUT_LEN));
	EXPECT_EQ(NIC_STATE_CONFIGURED, STATE(1));
	ids[2] = DID(TX_CQE, 0);
	EXPECT_EQ(NIC_STAT_OK, APPLY(1, u, ids, 3));
}

/* The three output formats, byte by byte; only new samples; lost ones. */
TEST_F(nic, ext_formats)
{
	uint64_t ids[2] = { DID(RX_PACKETS, 0), DID(RX_BYTES, 0) };
	uint64_t t0, t, t2;
	int u = UCTX(0);
	uint8_t *p = OUT + NIC_EXT_SMP_HDR_LEN;

	ASSERT_EQ(NIC_STAT_OK, TAKE(0, u, 0));
	/* format 0, no sync: the second ID is read 64 clocks later */
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_REPETITIVE, 0, 0, 0, 2, 1000, 2));
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, u, ids, 2));
	EXPECT_EQ(1024U, nic_get64(OUT, NIC_EXT_APPLY_PERIOD_NS));
	t0 = sim_now_ns();
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_START));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=300 count=2"));
	ASSERT_EQ(0, nic_advance(PERIOD + 64));
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 10, 4096));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_SMP_LOST));
	EXPECT_EQ((uint32_t)NIC_FMT0_SIZE(2), nic_get(OUT, NIC_EXT_SMP_SIZE));
	EXPECT_EQ((uint32_t)(NIC_EXT_SMP_HDR_LEN + NIC_FMT0_SIZE(2)), last_len);
	t = t0 + PERIOD;
	t2 = t + 64;
	uint8_t exp1[8 + 48] = {
		0, 0, 0, 0, 0, 0, 0, 0,
		0x10, 0x20, 0x00, 0x03, 0, 0, 0, 0,
		t >> 56, t >> 48, t >> 40, t >> 32, t >> 24, t >> 16, t >> 8, t,
		0, 0, 0, 0, 0, 0, 0, 2,
		0x10, 0x20, 0x00, 0x01, 0, 0, 0, 0,
		t2 >> 56, t2 >> 48, t2 >> 40, t2 >> 32, t2 >> 24, t2 >> 16,
		t2 >> 8, t2,
		0, 0, 0, 0, 0, 0, 0x02, 0x58 };

	EXPECT_EQ(0, memcmp(p, exp1, sizeof(exp1)));
	/* nothing new: nothing returned */
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 10, 4096));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_SMP_AVAILABLE));
	/* 10 periods on: 4 kept, 6 lost, said once */
	ASSERT_EQ(0, nic_advance(10 * PERIOD));
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 0, 4096));	/* how many? */
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	EXPECT_EQ(4U, nic_get(OUT, NIC_EXT_SMP_AVAILABLE));
	EXPECT_EQ(6U, nic_get(OUT, NIC_EXT_SMP_LOST));
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 3, 4096));
	EXPECT_EQ(3U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	EXPECT_EQ(0U, nic_get(OUT, NIC_EXT_SMP_LOST));
	EXPECT_EQ(7U, nic_be32_get(p, 0));
	EXPECT_EQ(9U, nic_be32_get(p + 2 * NIC_FMT0_SIZE(2), 0));
	/* the room in the output bounds the count */
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 3, NIC_EXT_SMP_HDR_LEN + NIC_FMT0_SIZE(2)));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	EXPECT_EQ(10U, nic_be32_get(p, 0));
	EXPECT_EQ(NIC_STAT_BAD_OUTP_LEN, SAMPLES(0, u, 3, 16));

	/* format 1, sync: one time stamp, u64 values */
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_STOP));
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_SINGLE, 1, 1, 1, 1, 1024, 2));
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, u, ids, 2));
	t0 = sim_now_ns();
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_START));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=0x10000 count=0x10001"));
	ASSERT_EQ(0, nic_advance(PERIOD));
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 10, 4096));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	t = t0 + PERIOD;
	uint8_t exp2[32] = {
		0, 0, 0, 0,
		t >> 56, t >> 48, t >> 40, t >> 32, t >> 24, t >> 16, t >> 8, t,
		t >> 24, t >> 16, t >> 8, t,
		0, 0, 0, 0, 0, 0x01, 0x00, 0x01,
		0, 0, 0, 0x01, 0x00, 0x01, 0x00, 0x00 };

	EXPECT_EQ(0, memcmp(p, exp2, sizeof(exp2)));
	/* format 2: u32 values (the low half), no sync: latest 64 later */
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_STOP));
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_SINGLE, 2, 0, 0, 1, 1024, 2));
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, u, ids, 2));
	EXPECT_EQ((uint32_t)NIC_FMT2_SIZE(2), nic_get(OUT, NIC_EXT_APPLY_SAMPLE_SIZE));
	t0 = sim_now_ns();
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_START));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=0x10000 count=0x10001"));
	ASSERT_EQ(0, nic_advance(PERIOD + 64));
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 10, 4096));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	t = t0 + PERIOD;
	t2 = t + 64;
	uint8_t exp3[24] = {
		0, 0, 0, 0,
		t >> 56, t >> 48, t >> 40, t >> 32, t >> 24, t >> 16, t >> 8, t,
		t2 >> 24, t2 >> 16, t2 >> 8, t2,
		0, 0x01, 0x00, 0x01,
		0x00, 0x01, 0x00, 0x00 };

	EXPECT_EQ(0, memcmp(p, exp3, sizeof(exp3)));
	/* on demand: one fresh sample per query */
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_STOP));
	ASSERT_EQ(NIC_STAT_OK, CONFIG(0, u, NIC_MODE_ON_DEMAND, 1, 0, 0, 0, 0, 2));
	ASSERT_EQ(NIC_STAT_OK, APPLY(0, u, ids, 2));
	ASSERT_EQ(NIC_STAT_OK, OP(0, u, NIC_OP_EXT_START));
	ASSERT_EQ(0, nic_inject("ev=rx port=0 size=10 count=3"));
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 10, 4096));
	EXPECT_EQ(1U, nic_get(OUT, NIC_EXT_SMP_RETURNED));
	EXPECT_EQ(3U, nic_get64(p + 16, 0));
	EXPECT_EQ(30U, nic_get64(p + 24, 0));
	ASSERT_EQ(NIC_STAT_OK, SAMPLES(0, u, 10, 4096));
	EXPECT_EQ(1U, nic_be32_get(p, 0));
}

TEST_HARNESS_MAIN
