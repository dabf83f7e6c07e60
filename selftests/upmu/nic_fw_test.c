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

TEST_HARNESS_MAIN
