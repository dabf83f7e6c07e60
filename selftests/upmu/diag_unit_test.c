// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of the diag library (tools/lib/upmu_diag.c) and of
 * upmu-diag's JSON and CSV code, under ASan/UBSan: nothing here needs a
 * device.  The library runs against a small fake firmware behind its
 * transport hook, which answers the mlx5 PRM commands of hw/nic_cmd.h
 * from a sample buffer the tests fill with known values, and, with
 * fw.ext, the extension's commands too (owner, state machine, samples in
 * the output formats): both of the library's paths are tested.  Each
 * transport is a "file" with a PF and a uid, as fwctl gives them.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the expected values below are int literals compared with unsigned fields */
#pragma GCC diagnostic ignored "-Wsign-compare"

#include "kselftest_harness.h"

#include "diag_io.h"
#include "hw/nic_cmd.h"
#include "upmu_diag.h"

/* ---- fake firmware ---------------------------------------------------------- */

#define FW_KHZ		1000000		/* 1 GHz: a clock is a ns */
#define FW_LOG_MAX	10		/* 1024 counter-samples */
#define FW_LOG_MIN	10		/* 1024 clocks */
#define FW_TS0		5000		/* device time of the start */

static const uint64_t fw_ids[] = {
	NIC_DID(NIC_DID_RX_BYTES, 0), NIC_DID(NIC_DID_TX_BYTES, 0),
	NIC_DID(NIC_DID_QP_DESCHED, 0), NIC_DID(NIC_DID_ICMC_HITS, 0),
	NIC_DID(NIC_DID_RX_PAUSE, NIC_DID_PORT_PRIO(0, 3)),
};
#define FW_NR	(sizeof(fw_ids) / sizeof(fw_ids[0]))

struct fw;

/* A transport: an open file of the device through PF @pf, fwctl's @uid. */
struct fw_file {
	struct fw *fw;
	unsigned int pf, uid;
};

struct fw {
	bool enable, single, repetitive, on_demand, sync, clear;
	unsigned int n, log_samples, log_period;
	uint16_t cid[FW_NR];
	uint64_t taken;		/* samples the engine took since enable */
	unsigned int rpcs, closed;
	/* the extension, when ext */
	bool ext;
	bool refuse_ext;	/* the kernel refuses the opcodes (-EBADMSG) */
	int owner_pf;		/* -1: none (set by fw_init) */
	unsigned int owner_uid;
	unsigned int xstate, xmode, xformat, xmax, xn;
	uint64_t xid[FW_NR], xread, ts0;
	unsigned int lag;	/* ns from one data ID to the next, without sync */
	unsigned int last_op, last_st;	/* the last extension command */
	struct fw_file files[8];
	unsigned int nr_files;
};

/* A plain mlx5 device: BAD_OP for the extension's opcodes. */
#define FW_PRM	{ .owner_pf = -1, .ts0 = FW_TS0 }
/* The extension's device: the same counters and samples. */
#define FW_EXT	{ .ext = true, .owner_pf = -1, .ts0 = FW_TS0 }
#define FW_OF(ext)	((ext) ? (struct fw)FW_EXT : (struct fw)FW_PRM)

static bool fw_sync(uint16_t cid)
{
	return cid != upmu_diag_id_to_cid(NIC_DID(NIC_DID_QP_DESCHED, 0));
}

/* Value of counter @j in sample @k, and its timestamp (ns). */
static uint64_t fw_val(unsigned int k, unsigned int j)
{
	return (uint64_t)(k + 1) * 1000 + j;
}

static uint64_t fw_ts(const struct fw *fw, uint64_t k)
{
	return fw->ts0 + (k + 1) * (1ull << fw->log_period);
}

static uint32_t fw_synd(unsigned int reason, unsigned int i)
{
	return NIC_SYND(reason, i);
}

static int fw_ext_rpc(struct fw_file *f, unsigned int scope, const void *in,
		      size_t in_len, void *out, size_t *out_len);

static int fw_rpc(void *priv, unsigned int scope, const void *in, size_t in_len,
		  void *out, size_t *out_len)
{
	struct fw_file *f = priv;
	struct fw *fw = f->fw;
	unsigned int op = nic_get(in, NIC_HDR_OPCODE), st = NIC_STAT_OK, i, j;
	uint32_t synd = 0;
	uint8_t *o = out;

	fw->rpcs++;
	if (in_len < NIC_HDR_IN_LEN || *out_len < NIC_HDR_OUT_LEN)
		return -EMSGSIZE;
	memset(out, 0, *out_len);
	if (fw->refuse_ext && op >= NIC_OP_EXT_QUERY_DATA_IDS)
		return -EBADMSG;
	if (fw->ext && op >= NIC_OP_EXT_QUERY_DATA_IDS && op <= NIC_OP_EXT_QUERY_SAMPLES)
		return fw_ext_rpc(f, scope, in, in_len, out, out_len);
	switch (op) {
	case NIC_OP_QUERY_HCA_CAP: {
		uint8_t *cap = o + NIC_HDR_OUT_LEN;

		if (*out_len < NIC_CAP_OUT_LEN)
			return -EMSGSIZE;
		if (nic_get(in, NIC_HDR_OP_MOD) >> 1 == NIC_CAP_GENERAL) {
			nic_set(cap, NIC_HCA_CAP_DEBUG, 1);
			nic_set(cap, NIC_HCA_CAP_NUM_DIAG_CNTRS, FW_NR);
			nic_set(cap, NIC_HCA_CAP_DEV_FREQ_KHZ, FW_KHZ);
		} else {
			nic_set(cap, NIC_DEBUG_CAP_LOG_MAX_SAMPLES, FW_LOG_MAX);
			nic_set(cap, NIC_DEBUG_CAP_SINGLE, 1);
			nic_set(cap, NIC_DEBUG_CAP_REPETITIVE, 1);
			nic_set(cap, NIC_DEBUG_CAP_LOG_MIN_PERIOD, FW_LOG_MIN);
			for (i = 0; i < FW_NR; i++) {
				uint16_t cid = upmu_diag_id_to_cid(fw_ids[i]);

				nic_set(cap, NIC_DEBUG_CAP_CNTR_ID(i), cid);
				nic_set(cap, NIC_DEBUG_CAP_CNTR_SYNC(i), fw_sync(cid));
			}
		}
		*out_len = NIC_CAP_OUT_LEN;
		return 0;
	}
	case NIC_OP_QUERY_DIAGNOSTIC_PARAMS:
		if (scope < 1)
			return -EBADMSG;
		nic_set(o, NIC_DIAG_ENABLE, fw->enable);
		nic_set(o, NIC_DIAG_NUM_CNTRS, fw->n);
		nic_set(o, NIC_DIAG_LOG_PERIOD, fw->log_period);
		*out_len = NIC_DIAG_PARAMS_LEN(0);
		return 0;
	case NIC_OP_SET_DIAGNOSTIC_PARAMS: {
		unsigned int n = nic_get(in, NIC_DIAG_NUM_CNTRS);
		bool sync = nic_get(in, NIC_DIAG_SYNC);

		if (scope < 2)
			return -EBADMSG;
		/* as upmu_sim: without enable it stops; with it, checks and starts */
		if (!nic_get(in, NIC_DIAG_ENABLE)) {
			fw->enable = false;
			fw->n = 0;
			break;
		}
		if (n > FW_NR) {
			st = NIC_STAT_BAD_PARAM;
			synd = fw_synd(NIC_DIAG_ERR_COUNT, NIC_SYND_NO_INDEX);
			break;
		}
		for (i = 0; i < n && !st; i++) {
			uint16_t cid = nic_get(in, NIC_DIAG_CNTR_ID(i));
			bool known = false;

			for (j = 0; j < FW_NR; j++)
				known |= upmu_diag_id_to_cid(fw_ids[j]) == cid;
			for (j = 0; j < i; j++)
				if (nic_get(in, NIC_DIAG_CNTR_ID(j)) == cid) {
					st = NIC_STAT_BAD_PARAM;
					synd = fw_synd(NIC_DIAG_ERR_DUPLICATE, i);
				}
			if (!known) {
				st = NIC_STAT_BAD_PARAM;
				synd = fw_synd(NIC_DIAG_ERR_UNKNOWN_ID, i);
			} else if (sync && !fw_sync(cid)) {
				st = NIC_STAT_BAD_PARAM;
				synd = fw_synd(NIC_DIAG_ERR_NO_SYNC, i);
			}
		}
		if (st)
			break;
		if (n && (n << nic_get(in, NIC_DIAG_LOG_NUM_SAMPLES)) > 1u << FW_LOG_MAX) {
			st = NIC_STAT_BAD_PARAM;
			synd = fw_synd(NIC_DIAG_ERR_CAPACITY, NIC_SYND_NO_INDEX);
			break;
		}
		fw->n = n;
		for (i = 0; i < n; i++)
			fw->cid[i] = nic_get(in, NIC_DIAG_CNTR_ID(i));
		fw->log_samples = nic_get(in, NIC_DIAG_LOG_NUM_SAMPLES);
		fw->single = nic_get(in, NIC_DIAG_SINGLE);
		fw->repetitive = nic_get(in, NIC_DIAG_REPETITIVE);
		fw->on_demand = nic_get(in, NIC_DIAG_ON_DEMAND);
		fw->sync = sync;
		fw->clear = nic_get(in, NIC_DIAG_CLEAR);
		/* longer with more than 2 counters: read back by the library */
		fw->log_period = nic_get(in, NIC_DIAG_LOG_PERIOD) + (n > 2);
		fw->taken = 0;
		fw->enable = true;
		break;
	}
	case NIC_OP_QUERY_DIAGNOSTIC_COUNTERS: {
		unsigned int recs = nic_get(in, NIC_DIAG_Q_NUM_SAMPLES);
		unsigned int index = nic_get(in, NIC_DIAG_Q_SAMPLE_INDEX);
		unsigned int b = 1u << fw->log_samples;
		uint64_t avail = fw->single && fw->taken > b ? b : fw->taken;

		if (scope < 1)
			return -EBADMSG;
		if (!fw->n || recs % fw->n || *out_len < NIC_HDR_OUT_LEN + recs * 16ul) {
			st = NIC_STAT_BAD_PARAM;
			break;
		}
		for (i = 0; i < recs / fw->n; i++) {
			unsigned int slot = (index + i) % b;
			uint64_t k;

			if (fw->on_demand) {
				k = fw->taken;
			} else {
				/* the newest sample k < avail with k % b == slot */
				if (slot >= avail) {
					/* never written: counter_ids only */
					for (j = 0; j < fw->n; j++)
						nic_set(o + NIC_DIAG_REC(i * fw->n + j),
							NIC_DIAG_REC_CNTR_ID, fw->cid[j]);
					continue;
				}
				k = (avail - 1) - ((avail - 1 - slot) % b);
			}
			for (j = 0; j < fw->n; j++) {
				uint8_t *r = o + NIC_DIAG_REC(i * fw->n + j);

				nic_set(r, NIC_DIAG_REC_CNTR_ID, fw->cid[j]);
				nic_set(r, NIC_DIAG_REC_SAMPLE_ID, (uint16_t)k);
				nic_set(r, NIC_DIAG_REC_TIMESTAMP, (uint32_t)fw_ts(fw, k));
				nic_set64(r, NIC_DIAG_REC_VALUE, fw_val(k, j));
			}
		}
		*out_len = NIC_HDR_OUT_LEN + recs * 16ul;
		break;
	}
	default:
		st = NIC_STAT_BAD_OP;
	}
	nic_set(o, NIC_HDR_STATUS, st);
	nic_set(o, NIC_HDR_SYNDROME, synd);
	if (st)
		*out_len = NIC_HDR_OUT_LEN;
	return 0;
}

static void fw_xstop(struct fw *fw)
{
	fw->xstate = NIC_STATE_IDLE;
	fw->xn = 0;
	fw->taken = 0;
	fw->xread = 0;
}

/* Closing the owner's file frees the engine, as DESTROY_UCTX does. */
static void fw_close(void *priv)
{
	struct fw_file *f = priv;
	struct fw *fw = f->fw;

	fw->closed++;
	if (fw->owner_pf == (int)f->pf && fw->owner_uid == f->uid) {
		fw->owner_pf = -1;
		fw->owner_uid = 0;
		fw_xstop(fw);
	}
}

static struct upmu_diag_transport fw_file(struct fw *fw, unsigned int pf)
{
	struct fw_file *f = &fw->files[fw->nr_files++ % 8];
	struct upmu_diag_transport t = { fw_rpc, fw_close, f };

	f->fw = fw;
	f->pf = pf;
	f->uid = fw->nr_files;	/* 1, 2, ...: never the kernel's 0 */
	return t;
}

/* A context on a new file of PF @pf. */
static struct upmu_diag *fw_create_pf(struct fw *fw, unsigned int pf, bool force,
				      int *ret)
{
	struct upmu_diag_transport t = fw_file(fw, pf);
	struct upmu_diag *d = NULL;

	*ret = upmu_diag_create_transport(&t, force, &d);
	return d;
}

static struct upmu_diag *fw_create(struct __test_metadata *_metadata,
				   struct fw *fw, bool force, int *ret)
{
	(void)_metadata;
	return fw_create_pf(fw, 0, force, ret);
}

/* ---- the fake's extension (Documentation/upmu-nic.rst) ------------------ */

static bool fw_mine(const struct fw_file *f)
{
	return f->fw->owner_pf == (int)f->pf && f->fw->owner_uid == f->uid && f->uid;
}

/* Sample @k in the configured format at @p, built field by field. */
static void fw_put_sample(const struct fw *fw, uint8_t *p, uint64_t k)
{
	uint64_t t0 = fw_ts(fw, k), lag = fw->sync ? 0 : fw->lag;
	unsigned int j;

	nic_be32_set(p, 0, (uint32_t)k);
	for (j = 0; j < fw->xn; j++) {
		if (fw->xformat == 0) {
			uint8_t *e = p + 8 + 24 * j;

			nic_set64(e, 0, fw->xid[j]);
			nic_set64(e, 64, t0 + lag * j);
			nic_set64(e, 128, fw_val(k, j));
		} else if (fw->xformat == 1) {
			nic_set64(p + 16 + 8 * j, 0, fw_val(k, j));
		} else {
			nic_be32_set(p + 16 + 4 * j, 0, (uint32_t)fw_val(k, j));
		}
	}
	if (fw->xformat) {
		nic_set64(p, 32, t0);
		nic_be32_set(p, 12, (uint32_t)(t0 + lag * (fw->xn - 1)));
	}
}

static uint32_t fw_size(const struct fw *fw)
{
	return fw->xformat == 0 ? 8 + 24 * fw->xn :
	       fw->xformat == 1 ? 16 + 8 * fw->xn : 16 + 4 * fw->xn;
}

static int fw_ext_rpc(struct fw_file *f, unsigned int scope, const void *in,
		      size_t in_len, void *out, size_t *out_len)
{
	struct fw *fw = f->fw;
	unsigned int op = nic_get(in, NIC_HDR_OPCODE), st = NIC_STAT_OK, i, j;
	bool write = op != NIC_OP_EXT_QUERY_DATA_IDS && op != NIC_OP_EXT_QUERY_STATE &&
		     op != NIC_OP_EXT_QUERY_SAMPLES;
	bool engine = op != NIC_OP_EXT_QUERY_DATA_IDS && op != NIC_OP_EXT_QUERY_STATE &&
		      op != NIC_OP_EXT_OWNERSHIP;
	uint32_t synd = 0;
	uint8_t *o = out;
	size_t len = NIC_HDR_OUT_LEN;

	/* the driver's allow-list: queries read, the rest writes */
	if (scope < (write ? 2u : 1u))
		return -EBADMSG;
	if (engine && !fw_mine(f)) {
		st = NIC_STAT_RES_BUSY;
		synd = NIC_SYND(NIC_DIAG_ERR_OWNER, NIC_SYND_NO_INDEX);
		goto done;
	}
#define BAD_STATE() do { st = NIC_STAT_BAD_SYS_STATE; \
	synd = NIC_SYND(NIC_DIAG_ERR_STATE, NIC_SYND_NO_INDEX); goto done; } while (0)
#define BAD(r, ix) do { st = NIC_STAT_BAD_PARAM; synd = NIC_SYND(r, ix); goto done; } while (0)
	switch (op) {
	case NIC_OP_EXT_QUERY_STATE:
		if (*out_len < NIC_EXT_STATE_OUT_LEN)
			return -EMSGSIZE;
		nic_set(o, NIC_EXT_STATE_STATE, fw->xstate);
		nic_set(o, NIC_EXT_STATE_MODE, fw->xmode);
		nic_set(o, NIC_EXT_STATE_FORMAT, fw->xformat);
		nic_set(o, NIC_EXT_STATE_OWNED, fw->owner_pf >= 0);
		nic_set(o, NIC_EXT_STATE_OWNER_PF, fw->owner_pf >= 0 ? fw->owner_pf : 0);
		nic_set(o, NIC_EXT_STATE_OWNER_UID, fw->owner_uid);
		nic_set(o, NIC_EXT_STATE_NUM_IDS, fw->xn);
		len = NIC_EXT_STATE_OUT_LEN;
		break;
	case NIC_OP_EXT_QUERY_DATA_IDS: {
		unsigned int start = nic_get(in, NIC_EXT_IDS_START);
		unsigned int n = start < FW_NR ? FW_NR - start : 0;

		/* two per page, to make the library ask again */
		n = n < 2 ? n : 2;
		n = n < nic_get(in, NIC_EXT_IDS_MAX) ? n : nic_get(in, NIC_EXT_IDS_MAX);
		if (*out_len < NIC_EXT_ID(n))
			return -EMSGSIZE;
		nic_set(o, NIC_EXT_IDS_TOTAL, FW_NR);
		nic_set(o, NIC_EXT_IDS_RETURNED, n);
		for (i = 0; i < n; i++) {
			uint8_t *e = o + NIC_EXT_ID(i);

			nic_set64(e, NIC_EXT_ID_DATA_ID, fw_ids[start + i]);
			nic_set(e, NIC_EXT_ID_SYNC, fw_sync(upmu_diag_id_to_cid(fw_ids[start + i])));
			nic_set(e, NIC_EXT_ID_CNTR_ID, upmu_diag_id_to_cid(fw_ids[start + i]));
		}
		len = NIC_EXT_ID(n);
		break;
	}
	case NIC_OP_EXT_OWNERSHIP:
		nic_set(o, NIC_EXT_OWN_PREV_VALID, fw->owner_pf >= 0);
		nic_set(o, NIC_EXT_OWN_PREV_PF, fw->owner_pf >= 0 ? fw->owner_pf : 0);
		nic_set(o, NIC_EXT_OWN_PREV_UID, fw->owner_uid);
		if (nic_get(in, NIC_HDR_OP_MOD) == NIC_OWN_RELEASE) {
			if (!fw_mine(f))
				BAD(NIC_DIAG_ERR_OWNER, NIC_SYND_NO_INDEX);
			fw->owner_pf = -1;
			fw->owner_uid = 0;
			fw_xstop(fw);
			break;
		}
		if (fw_mine(f))
			break;
		if (fw->owner_pf >= 0 && (!nic_get(in, NIC_EXT_OWN_FORCE) || !fw->owner_uid)) {
			st = NIC_STAT_RES_BUSY;
			synd = NIC_SYND(NIC_DIAG_ERR_OWNER, NIC_SYND_NO_INDEX);
			break;
		}
		fw_xstop(fw);
		fw->owner_pf = f->pf;
		fw->owner_uid = f->uid;
		break;
	case NIC_OP_EXT_SET_CONFIG: {
		unsigned int mode = nic_get(in, NIC_EXT_CFG_MODE);
		bool sync = nic_get(in, NIC_EXT_CFG_SYNC), clear = nic_get(in, NIC_EXT_CFG_CLEAR);
		uint64_t ns = nic_get64(in, NIC_EXT_CFG_PERIOD_NS);
		unsigned int lp = FW_LOG_MIN;

		if (in_len < NIC_EXT_CFG_IN_LEN) {
			st = NIC_STAT_BAD_INP_LEN;
			break;
		}
		if (fw->xstate != NIC_STATE_IDLE)
			BAD_STATE();
		if (mode > 2 || (clear && !sync) || (mode == 2 && (sync || clear)))
			BAD(NIC_DIAG_ERR_MODE, NIC_SYND_NO_INDEX);
		if (nic_get(in, NIC_EXT_CFG_FORMAT) > 2)
			BAD(NIC_DIAG_ERR_FORMAT, NIC_SYND_NO_INDEX);
		fw->xmax = nic_get(in, NIC_EXT_CFG_MAX_IDS);
		if (!fw->xmax || fw->xmax > FW_NR)
			BAD(NIC_DIAG_ERR_COUNT, NIC_SYND_NO_INDEX);
		fw->log_samples = mode == 2 ? 0 : nic_get(in, NIC_EXT_CFG_LOG_SAMPLES);
		if ((fw->xmax << fw->log_samples) > 1u << FW_LOG_MAX)
			BAD(NIC_DIAG_ERR_CAPACITY, NIC_SYND_NO_INDEX);
		while ((1ull << lp) < ns)	/* 1 GHz: clocks are ns */
			lp++;
		fw->xmode = mode;
		fw->xformat = nic_get(in, NIC_EXT_CFG_FORMAT);
		fw->sync = sync;
		fw->clear = clear;
		fw->log_period = lp;
		fw->xstate = NIC_STATE_CONFIGURED;
		break;
	}
	case NIC_OP_EXT_APPLY_IDS: {
		unsigned int n = nic_get(in, NIC_EXT_APPLY_NUM);

		if (in_len < NIC_EXT_APPLY_IN_LEN(n) || *out_len < NIC_EXT_APPLY_OUT_LEN) {
			st = NIC_STAT_BAD_INP_LEN;
			break;
		}
		if (fw->xstate != NIC_STATE_CONFIGURED)
			BAD_STATE();
		if (!n || n > fw->xmax)
			BAD(NIC_DIAG_ERR_COUNT, n ? fw->xmax : NIC_SYND_NO_INDEX);
		for (i = 0; i < n; i++) {
			uint64_t id = nic_get64(in, NIC_EXT_APPLY_ID(i));
			bool known = false;

			for (j = 0; j < FW_NR; j++)
				known |= fw_ids[j] == id;
			if (!known)
				BAD(NIC_DIAG_ERR_UNKNOWN_ID, i);
			for (j = 0; j < i; j++)
				if (fw->xid[j] == id)
					BAD(NIC_DIAG_ERR_DUPLICATE, i);
			if (fw->sync && !fw_sync(upmu_diag_id_to_cid(id)))
				BAD(NIC_DIAG_ERR_NO_SYNC, i);
			fw->xid[i] = id;
		}
		fw->xn = n;
		/* longer with more than 2 data IDs */
		fw->log_period += n > 2;
		nic_set64(o, NIC_EXT_APPLY_PERIOD_NS, 1ull << fw->log_period);
		nic_set(o, NIC_EXT_APPLY_LOG_PERIOD, fw->log_period);
		nic_set(o, NIC_EXT_APPLY_SAMPLE_SIZE, fw_size(fw));
		fw->xstate = NIC_STATE_READY;
		len = NIC_EXT_APPLY_OUT_LEN;
		break;
	}
	case NIC_OP_EXT_START:
	case NIC_OP_EXT_RESTART:
		if (op == NIC_OP_EXT_START ? fw->xstate != NIC_STATE_READY :
		    fw->xstate != NIC_STATE_RUNNING || fw->xmode != NIC_MODE_SINGLE)
			BAD_STATE();
		fw->xstate = NIC_STATE_RUNNING;
		fw->taken = 0;
		fw->xread = 0;
		break;
	case NIC_OP_EXT_STOP:
		if (fw->xstate == NIC_STATE_IDLE)
			BAD_STATE();
		fw_xstop(fw);
		break;
	case NIC_OP_EXT_QUERY_SAMPLES: {
		unsigned int max = nic_get(in, NIC_EXT_SMP_MAX), size = fw_size(fw), n;
		uint64_t b = 1ull << fw->log_samples, oldest, lost = 0, avail;
		unsigned int fit = (*out_len - NIC_EXT_SMP_HDR_LEN) / size;

		if (*out_len < NIC_EXT_SMP_HDR_LEN)
			return -EMSGSIZE;
		if (fw->xstate != NIC_STATE_RUNNING)
			BAD_STATE();
		if (fw->xmode == NIC_MODE_ON_DEMAND) {
			avail = 1;
			n = max && fit;
			if (n) {
				/* a fresh sample: the values of "taken" now */
				uint64_t k = fw->taken;

				fw_put_sample(fw, o + NIC_EXT_SMP_HDR_LEN, k);
				nic_be32_set(o + NIC_EXT_SMP_HDR_LEN, 0, (uint32_t)fw->xread++);
			}
		} else {
			uint64_t taken = fw->xmode == NIC_MODE_SINGLE && fw->taken > b ? b : fw->taken;

			oldest = taken > b ? taken - b : 0;
			if (fw->xread < oldest) {
				lost = oldest - fw->xread;
				fw->xread = oldest;
			}
			avail = taken - fw->xread;
			n = avail < max ? avail : max;
			n = n < fit ? n : fit;
			for (i = 0; i < n; i++)
				fw_put_sample(fw, o + NIC_EXT_SMP_HDR_LEN + i * size, fw->xread + i);
			fw->xread += n;
		}
		nic_set(o, NIC_EXT_SMP_RETURNED, n);
		nic_set(o, NIC_EXT_SMP_LOST, lost);
		nic_set(o, NIC_EXT_SMP_SIZE, size);
		nic_set(o, NIC_EXT_SMP_AVAILABLE, avail);
		len = NIC_EXT_SMP_HDR_LEN + n * size;
		break;
	}
	}
#undef BAD
#undef BAD_STATE
done:
	if (op != NIC_OP_EXT_QUERY_STATE) {	/* the library's own look */
		fw->last_op = op;
		fw->last_st = st;
	}
	nic_set(o, NIC_HDR_STATUS, st);
	nic_set(o, NIC_HDR_SYNDROME, synd);
	*out_len = st ? NIC_HDR_OUT_LEN : len;
	return 0;
}

/* Create, configure in @mode with 2^@log samples, apply @n of fw_ids, start. */
static struct upmu_diag *running(struct __test_metadata *_metadata, struct fw *fw,
				 enum upmu_diag_mode mode, unsigned int log,
				 unsigned int n, enum upmu_diag_format f)
{
	struct upmu_diag *d;
	int ret, fi, fr;

	d = fw_create(_metadata, fw, false, &ret);
	EXPECT_EQ(0, ret);
	if (!d)
		return NULL;
	EXPECT_EQ(0, upmu_diag_set_sample_mode(d, mode));
	EXPECT_EQ(0, upmu_diag_set_log_num_samples(d, log));
	EXPECT_EQ(0, upmu_diag_set_output_format(d, f));
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(0, upmu_diag_apply_counters(d, fw_ids, n, &fi, &fr));
	EXPECT_EQ(0, upmu_diag_start(d));
	return d;
}

/* ---- output formats ----------------------------------------------------- */

TEST(format0_bytes)
{
	uint8_t buf[2 * (UPMU_DIAG_F0_HDR + 2 * UPMU_DIAG_F0_ENTRY)] = { 0 };
	uint8_t *p = buf + UPMU_DIAG_F0_HDR + 2 * UPMU_DIAG_F0_ENTRY;
	struct upmu_diag_sample s;
	uint64_t v[2], id[2];

	ASSERT_EQ(8 + 2 * 24, upmu_diag_sample_size(UPMU_DIAG_FMT0, 2));
	/* sample 1, built field by field as the layout says */
	nic_set(p, NIC_FLD(0x00, 32), 77);
	nic_set64(p + 8, 0, 0x1020000100000001ull);
	nic_set(p + 8, NIC_FLD(64, 32), 0x1);		/* ts_h */
	nic_set(p + 8, NIC_FLD(96, 32), 0x10);		/* ts_l */
	nic_set64(p + 8, 128, 0xdeadbeefcafeull);
	nic_set64(p + 32, 0, 0x11800002ull << 32);
	nic_set64(p + 32, 64, 0x100000020ull);
	nic_set64(p + 32, 128, 5);
	ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT0, 2, 1, &s, v, id));
	EXPECT_EQ(77, s.sample_id);
	EXPECT_EQ(0x100000010ull, s.ts_first);
	EXPECT_EQ(0x100000020ull, s.ts_last);
	EXPECT_EQ(0xdeadbeefcafeull, v[0]);
	EXPECT_EQ(5, v[1]);
	EXPECT_EQ(0x1020000100000001ull, id[0]);
	EXPECT_EQ(0x11800002ull << 32, id[1]);
	/* a third sample is past the buffer */
	EXPECT_EQ(-EMSGSIZE, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT0, 2, 2, &s, v, id));
	EXPECT_EQ(-EMSGSIZE, upmu_diag_decode(buf, sizeof(buf) - 1, UPMU_DIAG_FMT0, 2, 1, &s, v, id));
	EXPECT_EQ(-EINVAL, upmu_diag_decode(buf, sizeof(buf), 3, 2, 0, &s, v, id));
}

TEST(format1_2_bytes)
{
	uint8_t b1[16 + 3 * 8] = { 0 }, b2[16 + 3 * 4] = { 0 };
	struct upmu_diag_sample s;
	uint64_t v[3];

	nic_set(b1, NIC_FLD(0x00, 32), 9);
	nic_set(b1, NIC_FLD(0x20, 32), 0x2);		/* earliest_ts_h */
	nic_set(b1, NIC_FLD(0x40, 32), 0xfffffff0);	/* earliest_ts_l */
	nic_set(b1, NIC_FLD(0x60, 32), 0x10);		/* latest_ts_l: wrapped */
	nic_set64(b1 + 16, 0, 1);
	nic_set64(b1 + 16, 64, 1ull << 40);
	nic_set64(b1 + 16, 128, ~0ull);
	ASSERT_EQ(0, upmu_diag_decode(b1, sizeof(b1), UPMU_DIAG_FMT1, 3, 0, &s, v, NULL));
	EXPECT_EQ(9, s.sample_id);
	EXPECT_EQ(0x2fffffff0ull, s.ts_first);
	EXPECT_EQ(0x300000010ull, s.ts_last);
	EXPECT_EQ(1, v[0]);
	EXPECT_EQ(1ull << 40, v[1]);
	EXPECT_EQ(~0ull, v[2]);

	memcpy(b2, b1, 16);
	nic_set(b2 + 16, NIC_FLD(0, 32), 7);
	nic_set(b2 + 16, NIC_FLD(32, 32), 0xffffffff);
	nic_set(b2 + 16, NIC_FLD(64, 32), 0);
	ASSERT_EQ(0, upmu_diag_decode(b2, sizeof(b2), UPMU_DIAG_FMT2, 3, 0, &s, v, NULL));
	EXPECT_EQ(7, v[0]);
	EXPECT_EQ(0xffffffffull, v[1]);
	EXPECT_EQ(0, v[2]);
}

TEST(format_encode_roundtrip)
{
	const uint64_t ids[2] = { 0x1140000100000002ull, 0x10c0000200000007ull };
	const uint64_t vals[2] = { 123456789012ull, 42 }, ts[2] = { 1000, 1007 };
	struct upmu_diag_sample in = { 3, 1000, 1007 }, out;
	uint8_t buf[256];
	uint64_t v[2], id[2];
	int f;

	for (f = 0; f <= 2; f++) {
		memset(buf, 0xa5, sizeof(buf));
		ASSERT_EQ(0, upmu_diag_encode(buf, sizeof(buf), f, 2, 1, &in, vals, ids, ts));
		ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), f, 2, 1, &out, v, id));
		EXPECT_EQ(3, out.sample_id);
		EXPECT_EQ(1000, out.ts_first);
		EXPECT_EQ(1007, out.ts_last);
		EXPECT_EQ(f == 2 ? (uint32_t)vals[0] : vals[0], v[0]);
		EXPECT_EQ(42, v[1]);
		if (f == 0)
			EXPECT_EQ(ids[1], id[1]);
	}
}

/* ---- the read cursor ------------------------------------------------------ */

static int order_of(uint64_t next, const uint16_t *sids, unsigned int n,
		    uint64_t expect, uint64_t *sid, uint64_t *lost, unsigned int *order)
{
	struct upmu_diag_cursor c = { .started = true, .next_sid = next };
	struct upmu_diag_raw raw[16];
	unsigned int i;

	for (i = 0; i < n; i++)
		raw[i].sid = sids[i];
	return upmu_diag_order(&c, raw, n, expect, order, sid, lost);
}

TEST(order_new_only)
{
	/* a buffer of 8 slots holding 10..17 (slot = sid % 8), 12 read */
	const uint16_t s[8] = { 16, 17, 10, 11, 12, 13, 14, 15 };
	unsigned int order[8];
	uint64_t sid[8], lost;

	ASSERT_EQ(5, order_of(13, s, 8, 0, sid, &lost, order));
	EXPECT_EQ(0, lost);
	EXPECT_EQ(13, sid[0]);
	EXPECT_EQ(5, order[0]);
	EXPECT_EQ(17, sid[4]);
	EXPECT_EQ(1, order[4]);
	/* everything read: nothing new, no duplicate */
	ASSERT_EQ(0, order_of(18, s, 8, 0, sid, &lost, order));
	EXPECT_EQ(0, lost);
	/* 3 was the last read: 4..9 were overwritten */
	ASSERT_EQ(8, order_of(4, s, 8, 0, sid, &lost, order));
	EXPECT_EQ(6, lost);
	EXPECT_EQ(10, sid[0]);
}

TEST(order_wrap)
{
	/* 16-bit sample_ids across the wrap: 65534, 65535, 0, 1 */
	const uint16_t s[4] = { 0, 1, 65534, 65535 };
	unsigned int order[4];
	uint64_t sid[4], lost;

	ASSERT_EQ(3, order_of(65535, s, 4, 0, sid, &lost, order));
	EXPECT_EQ(65535, sid[0]);
	EXPECT_EQ(65536, sid[1]);
	EXPECT_EQ(65537, sid[2]);
	EXPECT_EQ(1, order[2]);
	/* the elapsed time says a whole wrap more went by */
	ASSERT_EQ(4, order_of(65535, s, 4, 65536 + 3, sid, &lost, order));
	EXPECT_EQ(65536 + 65534, sid[0]);
	EXPECT_EQ(65536 + 65534 - 65535, lost);
}

TEST(order_bad)
{
	const uint16_t holes[3] = { 1, 3, 7 }, dup[2] = { 5, 5 };
	unsigned int order[4];
	uint64_t sid[4], lost;

	EXPECT_EQ(-EINVAL, order_of(0, holes, 3, 0, sid, &lost, order));
	EXPECT_EQ(-EINVAL, order_of(0, dup, 2, 0, sid, &lost, order));
	EXPECT_EQ(0, order_of(0, holes, 0, 0, sid, &lost, order));
}

TEST(extend_ts)
{
	EXPECT_EQ(0x100000005ull, upmu_diag_extend_ts(0xffffff00ull, 5));
	EXPECT_EQ(0xfffffff0ull, upmu_diag_extend_ts(0x100000005ull, 0xfffffff0));
	EXPECT_EQ(7, upmu_diag_extend_ts(0, 7));
}

/* ---- life cycle against the fake firmware ----------------------------------- */

TEST(state_machine)
{
	struct fw fw = FW_PRM;
	struct upmu_diag *d;
	uint64_t ns;
	size_t size;
	int ret, fi, fr;
	bool ok, sync;

	d = fw_create(_metadata, &fw, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	/* Idle: no apply_counters, start, restart, stop, check, size */
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_apply_counters(d, fw_ids, 1, &fi, &fr));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_start(d));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_restart(d));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_stop(d));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_check_data_id(d, fw_ids[0], &ok, &sync));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_get_sample_size(d, &size));
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	/* clear needs sync */
	EXPECT_EQ(0, upmu_diag_set_data_clear(d, true));
	EXPECT_EQ(-EINVAL, upmu_diag_apply_config(d));
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	EXPECT_EQ(0, upmu_diag_set_data_clear(d, false));
	EXPECT_EQ(0, upmu_diag_set_sample_period(d, 3000));	/* 3000 clocks: 2^12 */
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(UPMU_DIAG_CONFIGURED, upmu_diag_get_state(d));
	/* Configured: no setters, no start */
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_set_sample_mode(d, UPMU_DIAG_SINGLE));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_start(d));
	EXPECT_EQ(0, upmu_diag_check_data_id(d, fw_ids[2], &ok, &sync));
	EXPECT_TRUE(ok);
	EXPECT_FALSE(sync);
	EXPECT_EQ(0, upmu_diag_check_data_id(d, NIC_DID(NIC_DID_RX_BYTES, 1), &ok, &sync));
	EXPECT_FALSE(ok);
	ASSERT_EQ(0, upmu_diag_apply_counters(d, fw_ids, 3, &fi, &fr));
	EXPECT_EQ(UPMU_DIAG_READY, upmu_diag_get_state(d));
	/* the device made the period longer for 3 counters: read back */
	EXPECT_EQ(0, upmu_diag_get_sample_period(d, &ns));
	EXPECT_EQ(8192, ns);
	EXPECT_EQ(0, upmu_diag_get_sample_size(d, &size));
	EXPECT_EQ(8 + 3 * 24, size);
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_restart(d));
	ASSERT_EQ(0, upmu_diag_start(d));
	EXPECT_TRUE(fw.enable);
	EXPECT_EQ(UPMU_DIAG_RUNNING, upmu_diag_get_state(d));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_start(d));
	/* restart only in single mode (this is the default one) */
	EXPECT_EQ(0, upmu_diag_restart(d));
	EXPECT_EQ(0, upmu_diag_stop(d));
	EXPECT_FALSE(fw.enable);
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	upmu_diag_destroy(d);
	EXPECT_EQ(1, fw.closed);
}

TEST(apply_failures)
{
	struct fw fw = FW_PRM;
	struct upmu_diag *d;
	uint64_t ids[3] = { fw_ids[0], fw_ids[2], fw_ids[0] };
	uint64_t bad[2] = { fw_ids[1], NIC_DID(NIC_DID_RX_BYTES, 7) };
	unsigned int st;
	uint32_t synd;
	int ret, fi, fr;

	d = fw_create(_metadata, &fw, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, upmu_diag_set_sync_start(d, true));
	EXPECT_EQ(0, upmu_diag_set_log_num_samples(d, 2));
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	/* qp_desched cannot take a synchronized start: index 1 */
	EXPECT_EQ(-UPMU_DIAG_EBADCONFIG, upmu_diag_apply_counters(d, ids, 3, &fi, &fr));
	EXPECT_EQ(1, fi);
	EXPECT_EQ(NIC_DIAG_ERR_NO_SYNC, fr);
	upmu_diag_last_fw(d, &st, &synd);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, st);
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_NO_SYNC, 1), synd);
	EXPECT_EQ(UPMU_DIAG_CONFIGURED, upmu_diag_get_state(d));
	/* without it: the duplicate at index 2 */
	ids[1] = fw_ids[1];
	EXPECT_EQ(-EEXIST, upmu_diag_apply_counters(d, ids, 3, &fi, &fr));
	EXPECT_EQ(2, fi);
	EXPECT_EQ(NIC_DIAG_ERR_DUPLICATE, fr);
	/* a data ID the device does not have: found before any RPC */
	EXPECT_EQ(-UPMU_DIAG_ENOTSUPP_ID, upmu_diag_apply_counters(d, bad, 2, &fi, &fr));
	EXPECT_EQ(1, fi);
	EXPECT_EQ(NIC_DIAG_ERR_UNKNOWN_ID, fr);
	EXPECT_EQ(-E2BIG, upmu_diag_apply_counters(d, ids, 0, &fi, &fr));
	EXPECT_EQ(UPMU_DIAG_CONFIGURED, upmu_diag_get_state(d));
	EXPECT_EQ(0, upmu_diag_apply_counters(d, ids, 2, &fi, &fr));
	EXPECT_EQ(-1, fi);
	upmu_diag_destroy(d);
}

TEST(ownership)
{
	struct fw fw = { .enable = true, .n = 1, .owner_pf = -1, .ts0 = FW_TS0 };
	struct upmu_diag *d;
	int ret;

	/* somebody runs the engine: busy without force, taken with it */
	d = fw_create(_metadata, &fw, false, &ret);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ(NULL, d);
	EXPECT_EQ(1, fw.closed);
	d = fw_create(_metadata, &fw, true, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_FALSE(fw.enable);
	upmu_diag_destroy(d);
}

/*
 * A test run on both paths: NAME with the PRM commands, ext_NAME with
 * the extension; t_NAME(_metadata, ext) is the test.
 */
#define BOTH_PATHS(name)					\
	TEST(name) { t_##name(_metadata, false); }		\
	TEST(ext_##name) { t_##name(_metadata, true); }

static void t_query_new_only_and_null_buffer(struct __test_metadata *_metadata, bool ext)
{
	struct fw fw = FW_OF(ext);
	struct upmu_diag_read r = { 0 };
	struct upmu_diag_sample s;
	struct upmu_diag *d;
	uint8_t buf[16 * (16 + 2 * 8)];
	uint64_t v[2];
	unsigned int i;

	d = running(_metadata, &fw, UPMU_DIAG_REPETITIVE, 3, 2, UPMU_DIAG_FMT1);
	ASSERT_NE(NULL, d);
	/* nothing taken yet: a NULL buffer is fine, count 0 */
	EXPECT_EQ(0, upmu_diag_query_counters(d, NULL, &r));
	EXPECT_EQ(0, r.count);
	fw.taken = 5;
	/* NULL buffer: insufficient, and the count needed; nothing consumed */
	r.count = 100;
	EXPECT_EQ(-UPMU_DIAG_EINSUFF, upmu_diag_query_counters(d, NULL, &r));
	EXPECT_EQ(5, r.count);
	r.count = 0;
	EXPECT_EQ(-UPMU_DIAG_EINSUFF, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(5, r.count);
	/* room for 3: the 3 oldest */
	r.count = 3;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(3, r.count);
	EXPECT_EQ(0, r.lost);
	EXPECT_EQ(0, r.first_sample_id);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT1, 2, i, &s, v, NULL));
		EXPECT_EQ(i, s.sample_id);
		EXPECT_EQ(fw_ts(&fw, i), s.ts_first);
		EXPECT_EQ(fw_val(i, 0), v[0]);
		EXPECT_EQ(fw_val(i, 1), v[1]);
	}
	EXPECT_EQ(fw_ts(&fw, 2), r.latest_ts);
	/* the rest, then nothing: never a duplicate */
	r.count = 16;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(2, r.count);
	EXPECT_EQ(3, r.first_sample_id);
	r.count = 16;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(0, r.count);
	/* 8 slots; 20 taken: 5..11 lost, 12..19 read */
	fw.taken = 20;
	r.count = 16;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(8, r.count);
	EXPECT_EQ(7, r.lost);
	EXPECT_EQ(12, r.first_sample_id);
	ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT1, 2, 7, &s, v, NULL));
	EXPECT_EQ(19, s.sample_id);
	EXPECT_EQ(fw_val(19, 1), v[1]);
	EXPECT_EQ(fw_ts(&fw, 19), s.ts_last);
	EXPECT_EQ(7, upmu_diag_lost_total(d));
	upmu_diag_destroy(d);
}

BOTH_PATHS(query_new_only_and_null_buffer)

static void t_query_max_per_read_and_last_seen(struct __test_metadata *_metadata, bool ext)
{
	struct fw fw = FW_OF(ext);
	struct upmu_diag_read r = { 0 };
	struct upmu_diag_sample s;
	struct upmu_diag *d;
	uint8_t buf[16 * (8 + 24)];
	uint64_t v[1], id[1], ts3;
	int ret, fi, fr;

	d = fw_create(_metadata, &fw, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, upmu_diag_set_sample_mode(d, UPMU_DIAG_REPETITIVE));
	EXPECT_EQ(0, upmu_diag_set_log_num_samples(d, 4));
	EXPECT_EQ(0, upmu_diag_set_max_samples_per_read(d, 4));
	EXPECT_EQ(0, upmu_diag_set_output_format(d, UPMU_DIAG_FMT0));
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(0, upmu_diag_apply_counters(d, &fw_ids[3], 1, &fi, &fr));
	EXPECT_EQ(0, upmu_diag_start(d));
	fw.taken = 10;
	r.count = 16;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(4, r.count);		/* max samples per read */
	ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT0, 1, 3, &s, v, id));
	EXPECT_EQ(3, s.sample_id);
	EXPECT_EQ(fw_ids[3], id[0]);
	ts3 = r.latest_ts;
	EXPECT_EQ(fw_ts(&fw, 3), ts3);
	/* NVML's cursor: only samples newer than a timestamp, from sample 1 */
	r.last_seen_ts = fw_ts(&fw, 0);
	r.count = 16;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(4, r.count);
	EXPECT_EQ(1, r.first_sample_id);
	/*
	 * The library's own cursor did not move back, and counts sample 4
	 * as given out: 5.. next
	 */
	r.last_seen_ts = 0;
	r.count = 16;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(4, r.count);
	EXPECT_EQ(5, r.first_sample_id);
	EXPECT_EQ(0, r.lost);
	/* a timestamp past everything: nothing */
	r.last_seen_ts = fw_ts(&fw, 9);
	r.count = 16;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(0, r.count);
	upmu_diag_destroy(d);
}

BOTH_PATHS(query_max_per_read_and_last_seen)

/*
 * By default a query may hand out the whole buffer (2^log_num_samples),
 * and takes what the device has in as few commands as it can: one
 * EXT_QUERY_SAMPLES for 200 samples (24 bytes each fit the outbox 2729
 * times), none to learn that nothing is left.
 */
static void t_query_default_whole_buffer(struct __test_metadata *_metadata, bool ext)
{
	struct fw fw = FW_OF(ext);
	struct upmu_diag_read r = { 0 };
	struct upmu_diag_sample s;
	struct upmu_diag *d;
	static uint8_t buf[256 * 24];
	uint32_t n;
	uint64_t v[1];
	unsigned int rpcs;
	int ret, fi, fr;

	d = fw_create(_metadata, &fw, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, upmu_diag_set_sample_mode(d, UPMU_DIAG_REPETITIVE));
	EXPECT_EQ(0, upmu_diag_set_log_num_samples(d, 8));
	EXPECT_EQ(0, upmu_diag_get_max_samples_per_read(d, &n));
	EXPECT_EQ(256, n);
	EXPECT_EQ(0, upmu_diag_set_output_format(d, UPMU_DIAG_FMT1));
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(0, upmu_diag_apply_counters(d, &fw_ids[3], 1, &fi, &fr));
	EXPECT_EQ(0, upmu_diag_start(d));
	fw.taken = 200;
	r.count = n;
	rpcs = fw.rpcs;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(200, r.count);
	EXPECT_EQ(0, r.first_sample_id);
	EXPECT_EQ(0, r.lost);
	if (ext)
		EXPECT_EQ(1, fw.rpcs - rpcs);
	ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT1, 1, 199, &s, v, NULL));
	EXPECT_EQ(199, s.sample_id);
	EXPECT_EQ(fw_val(199, 0), v[0]);
	/* set, it is what it was set to */
	upmu_diag_stop(d);
	EXPECT_EQ(0, upmu_diag_set_max_samples_per_read(d, 3));
	EXPECT_EQ(0, upmu_diag_set_log_num_samples(d, 9));
	EXPECT_EQ(0, upmu_diag_get_max_samples_per_read(d, &n));
	EXPECT_EQ(3, n);
	upmu_diag_destroy(d);
}

BOTH_PATHS(query_default_whole_buffer)

static void t_query_sample_id_wrap(struct __test_metadata *_metadata, bool ext)
{
	struct fw fw = FW_OF(ext);
	struct upmu_diag_read r = { 0 };
	struct upmu_diag *d;
	uint8_t buf[16 * (16 + 8)];
	uint64_t next = 0, k;

	d = running(_metadata, &fw, UPMU_DIAG_REPETITIVE, 4, 1, UPMU_DIAG_FMT1);
	ASSERT_NE(NULL, d);
	/* read every 10 samples across the 16-bit wrap: no loss, no repeat */
	for (k = 65500; k < 65600; k += 10) {
		fw.taken = k;
		r.count = 16;
		r.last_seen_ts = 0;
		ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
		if (k == 65500) {
			EXPECT_EQ(65500 - 16, r.lost);
		} else {
			EXPECT_EQ(0, r.lost);
			EXPECT_EQ(10, r.count);
			EXPECT_EQ(next, r.first_sample_id);
		}
		next = r.first_sample_id + r.count;
	}
	EXPECT_EQ(65590, next);
	upmu_diag_destroy(d);
}

BOTH_PATHS(query_sample_id_wrap)

static void t_single_mode_stops_and_restarts(struct __test_metadata *_metadata, bool ext)
{
	struct fw fw = FW_OF(ext);
	struct upmu_diag_read r = { 0 };
	struct upmu_diag *d;
	uint8_t buf[32 * 24];

	d = running(_metadata, &fw, UPMU_DIAG_SINGLE, 3, 1, UPMU_DIAG_FMT1);
	ASSERT_NE(NULL, d);
	fw.taken = 50;		/* single: the first 8 stay */
	r.count = 32;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(8, r.count);
	EXPECT_EQ(0, r.lost);
	EXPECT_EQ(0, r.first_sample_id);
	r.count = 32;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(0, r.count);
	EXPECT_EQ(0, upmu_diag_restart(d));
	EXPECT_EQ(0, fw.taken);
	fw.taken = 2;
	r.count = 32;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(2, r.count);
	EXPECT_EQ(0, r.first_sample_id);
	upmu_diag_destroy(d);
}

BOTH_PATHS(single_mode_stops_and_restarts)

static void t_on_demand(struct __test_metadata *_metadata, bool ext)
{
	struct fw fw = FW_OF(ext);
	struct upmu_diag_read r = { 0 };
	struct upmu_diag_sample s;
	struct upmu_diag *d;
	uint8_t buf[16 + 2 * 4];
	uint64_t v[2];

	d = running(_metadata, &fw, UPMU_DIAG_ON_DEMAND, 0, 2, UPMU_DIAG_FMT2);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(-UPMU_DIAG_EINSUFF, upmu_diag_query_counters(d, NULL, &r));
	EXPECT_EQ(1, r.count);
	fw.taken = 41;
	r.count = 1;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(1, r.count);
	ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT2, 2, 0, &s, v, NULL));
	EXPECT_EQ(0, s.sample_id);
	EXPECT_EQ(fw_val(41, 1), v[1]);
	r.count = 1;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT2, 2, 0, &s, v, NULL));
	EXPECT_EQ(1, s.sample_id);
	upmu_diag_destroy(d);
}

BOTH_PATHS(on_demand)

/* ---- the extension's path ------------------------------------------------- */

TEST(ext_probe_and_fallback)
{
	struct fw prm = FW_PRM, ext = FW_EXT, refused = FW_PRM;
	struct upmu_diag_owner o;
	struct upmu_diag *d;
	uint64_t ids[FW_NR + 1];
	bool sync[FW_NR + 1];
	unsigned int i;
	int ret;

	/* a plain mlx5 device (BAD_OP) keeps the PRM path */
	d = fw_create(_metadata, &prm, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_FALSE(upmu_diag_has_ext(d));
	EXPECT_EQ(-EOPNOTSUPP, upmu_diag_get_owner(d, &o));
	EXPECT_EQ(FW_NR, upmu_diag_get_data_ids(d, ids, sync, FW_NR + 1));
	for (i = 0; i < FW_NR; i++) {
		EXPECT_EQ(fw_ids[i], ids[i]);
		EXPECT_EQ(fw_sync(upmu_diag_id_to_cid(fw_ids[i])), sync[i]);
	}
	upmu_diag_destroy(d);
	/* so does a kernel that refuses the opcodes */
	refused.refuse_ext = true;
	d = fw_create(_metadata, &refused, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_FALSE(upmu_diag_has_ext(d));
	upmu_diag_destroy(d);
	/* the extension: its data-ID list (read 2 a page), and an owner */
	d = fw_create(_metadata, &ext, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_TRUE(upmu_diag_has_ext(d));
	memset(ids, 0, sizeof(ids));
	EXPECT_EQ(FW_NR, upmu_diag_get_data_ids(d, ids, sync, 2));
	EXPECT_EQ(fw_ids[1], ids[1]);
	EXPECT_EQ(0, ids[2]);
	EXPECT_EQ(FW_NR, upmu_diag_get_data_ids(d, ids, sync, FW_NR));
	EXPECT_EQ(fw_ids[FW_NR - 1], ids[FW_NR - 1]);
	EXPECT_FALSE(sync[2]);		/* qp_desched */
	ASSERT_EQ(0, upmu_diag_get_owner(d, &o));
	EXPECT_TRUE(o.owned);
	EXPECT_TRUE(o.self);
	EXPECT_EQ(0, o.pf);
	EXPECT_EQ(ext.files[0].uid, o.uid);
	upmu_diag_get_prev_owner(d, &o);
	EXPECT_FALSE(o.owned);
	upmu_diag_destroy(d);
	EXPECT_EQ(-1, ext.owner_pf);	/* released */
	EXPECT_EQ(1, ext.closed);
}

/* Every illegal transition goes to the device, which refuses it. */
#define REFUSED(op, call) do { \
	enum upmu_diag_state was = upmu_diag_get_state(d); \
	unsigned int st_; uint32_t synd_; \
	fw.last_op = 0; \
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, call); \
	EXPECT_EQ(op, fw.last_op); \
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, fw.last_st); \
	upmu_diag_last_fw(d, &st_, &synd_); \
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, st_); \
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_STATE, NIC_SYND_NO_INDEX), synd_); \
	EXPECT_EQ(was, upmu_diag_get_state(d)); \
} while (0)

TEST(ext_state_machine)
{
	struct fw fw = FW_EXT;
	struct upmu_diag_read r = { 0 };
	struct upmu_diag *d;
	uint8_t buf[256];
	uint64_t ns;
	size_t size;
	int ret, fi, fr;
	bool ok, sync;

	d = fw_create(_metadata, &fw, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	/* Idle */
	REFUSED(NIC_OP_EXT_START, upmu_diag_start(d));
	REFUSED(NIC_OP_EXT_STOP, upmu_diag_stop(d));
	REFUSED(NIC_OP_EXT_RESTART, upmu_diag_restart(d));
	REFUSED(NIC_OP_EXT_APPLY_IDS, upmu_diag_apply_counters(d, fw_ids, 1, &fi, &fr));
	EXPECT_EQ(-1, fi);
	EXPECT_EQ(NIC_DIAG_ERR_STATE, fr);
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_check_data_id(d, fw_ids[0], &ok, &sync));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_get_sample_size(d, &size));
	r.count = 1;
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_query_counters(d, buf, &r));
	/* the device checks the configuration: clear needs sync */
	EXPECT_EQ(0, upmu_diag_set_data_clear(d, true));
	EXPECT_EQ(-EINVAL, upmu_diag_apply_config(d));
	EXPECT_EQ(NIC_OP_EXT_SET_CONFIG, fw.last_op);
	EXPECT_EQ(NIC_STAT_BAD_PARAM, fw.last_st);
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	EXPECT_EQ(0, upmu_diag_set_data_clear(d, false));
	EXPECT_EQ(0, upmu_diag_set_sample_period(d, 3000));	/* 2^12 clocks */
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(UPMU_DIAG_CONFIGURED, upmu_diag_get_state(d));
	EXPECT_EQ(NIC_STATE_CONFIGURED, fw.xstate);
	/* Configured */
	REFUSED(NIC_OP_EXT_SET_CONFIG, upmu_diag_apply_config(d));
	REFUSED(NIC_OP_EXT_START, upmu_diag_start(d));
	REFUSED(NIC_OP_EXT_RESTART, upmu_diag_restart(d));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_set_sample_mode(d, UPMU_DIAG_SINGLE));
	EXPECT_EQ(0, upmu_diag_check_data_id(d, fw_ids[2], &ok, &sync));
	EXPECT_TRUE(ok);
	EXPECT_FALSE(sync);
	EXPECT_EQ(0, upmu_diag_check_data_id(d, NIC_DID(NIC_DID_RX_BYTES, 1), &ok, &sync));
	EXPECT_FALSE(ok);
	ASSERT_EQ(0, upmu_diag_apply_counters(d, fw_ids, 3, &fi, &fr));
	EXPECT_EQ(UPMU_DIAG_READY, upmu_diag_get_state(d));
	/* the device's period, longer for 3 data IDs, and its sample size */
	EXPECT_EQ(0, upmu_diag_get_sample_period(d, &ns));
	EXPECT_EQ(8192, ns);
	EXPECT_EQ(0, upmu_diag_get_sample_size(d, &size));
	EXPECT_EQ(8 + 3 * 24, size);
	/* Ready */
	REFUSED(NIC_OP_EXT_SET_CONFIG, upmu_diag_apply_config(d));
	REFUSED(NIC_OP_EXT_APPLY_IDS, upmu_diag_apply_counters(d, fw_ids, 1, &fi, &fr));
	REFUSED(NIC_OP_EXT_RESTART, upmu_diag_restart(d));
	ASSERT_EQ(0, upmu_diag_start(d));
	EXPECT_EQ(UPMU_DIAG_RUNNING, upmu_diag_get_state(d));
	EXPECT_EQ(NIC_STATE_RUNNING, fw.xstate);
	/* Running */
	REFUSED(NIC_OP_EXT_START, upmu_diag_start(d));
	REFUSED(NIC_OP_EXT_SET_CONFIG, upmu_diag_apply_config(d));
	EXPECT_EQ(0, upmu_diag_restart(d));	/* single mode, the default */
	EXPECT_EQ(0, upmu_diag_stop(d));
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	EXPECT_EQ(NIC_STATE_IDLE, fw.xstate);
	/* repetitive mode: no restart */
	EXPECT_EQ(0, upmu_diag_set_sample_mode(d, UPMU_DIAG_REPETITIVE));
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(0, upmu_diag_apply_counters(d, fw_ids, 1, &fi, &fr));
	EXPECT_EQ(0, upmu_diag_start(d));
	REFUSED(NIC_OP_EXT_RESTART, upmu_diag_restart(d));
	/* the device's state is the one that counts: stopped behind our back */
	fw_xstop(&fw);
	r.count = 1;
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	upmu_diag_destroy(d);
	EXPECT_EQ(-1, fw.owner_pf);
}

/* Formats 0/1/2 as the device makes them, byte for byte, 64-bit times. */
TEST(ext_formats_bytes)
{
	static const uint8_t f0[8 + 2 * 24] = {
		0, 0, 0, 3, 0, 0, 0, 0,
		0x10, 0x20, 0, 0x01, 0, 0, 0, 0,	/* port_rx_bytes.p0 */
		0, 0, 0, 0x04, 0, 0, 0, 0,		/* 0x400000000 ns */
		0, 0, 0, 0, 0, 0, 0x0f, 0xa0,		/* 4000 */
		0x11, 0x40, 0, 0x01, 0, 0, 0, 0,	/* port_tx_bytes.p0 */
		0, 0, 0, 0x04, 0, 0, 0, 0x40,		/* 64 ns later */
		0, 0, 0, 0, 0, 0, 0x0f, 0xa1,		/* 4001 */
	};
	static const uint8_t f1[16 + 2 * 8] = {
		0, 0, 0, 3, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0x40,
		0, 0, 0, 0, 0, 0, 0x0f, 0xa0, 0, 0, 0, 0, 0, 0, 0x0f, 0xa1,
	};
	static const uint8_t f2[16 + 2 * 4] = {
		0, 0, 0, 3, 0, 0, 0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0x40,
		0, 0, 0x0f, 0xa0, 0, 0, 0x0f, 0xa1,
	};
	const uint8_t *want[3] = { f0, f1, f2 };
	struct upmu_diag_sample s;
	struct upmu_diag *d;
	uint8_t buf[8 * 56];
	uint64_t v[2];
	size_t size;
	int f, ret, fi, fr;

	for (f = 0; f <= 2; f++) {
		struct fw fw = FW_EXT;
		struct upmu_diag_read r = { .count = 8 };

		/* sample 3 is at 0x400000000 ns: past 32 bits */
		fw.ts0 = 0x400000000ull - 4 * 1024;
		fw.lag = 64;
		d = fw_create(_metadata, &fw, false, &ret);
		ASSERT_EQ(0, ret);
		EXPECT_EQ(0, upmu_diag_set_sample_mode(d, UPMU_DIAG_REPETITIVE));
		EXPECT_EQ(0, upmu_diag_set_log_num_samples(d, 3));
		EXPECT_EQ(0, upmu_diag_set_output_format(d, f));
		EXPECT_EQ(0, upmu_diag_apply_config(d));
		EXPECT_EQ(0, upmu_diag_apply_counters(d, fw_ids, 2, &fi, &fr));
		EXPECT_EQ(0, upmu_diag_start(d));
		EXPECT_EQ(0, upmu_diag_get_sample_size(d, &size));
		EXPECT_EQ(upmu_diag_sample_size(f, 2), size);
		fw.taken = 5;
		ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
		ASSERT_EQ(5, r.count);
		EXPECT_EQ(0, memcmp(want[f], buf + 3 * size, size)) TH_LOG("format %d", f);
		ASSERT_EQ(0, upmu_diag_decode(buf, r.count * size, f, 2, 2, &s, v, NULL));
		EXPECT_EQ(0x400000000ull - 1024, s.ts_first);
		EXPECT_EQ(0x400000000ull - 1024 + 64, s.ts_last);
		EXPECT_EQ(3001, v[1]);
		EXPECT_EQ(0x400000000ull + 1024 + 64, r.latest_ts);
		upmu_diag_destroy(d);
	}
}

TEST(ext_apply_failures)
{
	struct fw fw = FW_EXT;
	struct upmu_diag *d;
	uint64_t ids[3] = { fw_ids[0], fw_ids[2], fw_ids[0] };
	uint64_t bad[2] = { fw_ids[1], NIC_DID(NIC_DID_RX_BYTES, 7) };
	uint32_t max;
	int ret, fi, fr;

	d = fw_create(_metadata, &fw, false, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, upmu_diag_set_sync_start(d, true));
	EXPECT_EQ(0, upmu_diag_set_log_num_samples(d, 2));
	EXPECT_EQ(0, upmu_diag_set_max_num_data_ids(d, 2));
	EXPECT_EQ(0, upmu_diag_get_max_num_data_ids(d, &max));
	EXPECT_EQ(2, max);
	EXPECT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(2, fw.xmax);
	/* the device's index and reason */
	EXPECT_EQ(-UPMU_DIAG_EBADCONFIG, upmu_diag_apply_counters(d, ids, 2, &fi, &fr));
	EXPECT_EQ(1, fi);
	EXPECT_EQ(NIC_DIAG_ERR_NO_SYNC, fr);
	EXPECT_EQ(-E2BIG, upmu_diag_apply_counters(d, ids, 3, &fi, &fr));
	EXPECT_EQ(2, fi);	/* the first past max_num_data_ids */
	EXPECT_EQ(NIC_DIAG_ERR_COUNT, fr);
	EXPECT_EQ(-UPMU_DIAG_ENOTSUPP_ID, upmu_diag_apply_counters(d, bad, 2, &fi, &fr));
	EXPECT_EQ(1, fi);
	EXPECT_EQ(NIC_DIAG_ERR_UNKNOWN_ID, fr);
	EXPECT_EQ(NIC_OP_EXT_APPLY_IDS, fw.last_op);
	ids[1] = ids[0];
	EXPECT_EQ(-EEXIST, upmu_diag_apply_counters(d, ids, 2, &fi, &fr));
	EXPECT_EQ(1, fi);
	EXPECT_EQ(NIC_DIAG_ERR_DUPLICATE, fr);
	EXPECT_EQ(-E2BIG, upmu_diag_apply_counters(d, ids, 0, &fi, &fr));
	EXPECT_EQ(-1, fi);
	EXPECT_EQ(UPMU_DIAG_CONFIGURED, upmu_diag_get_state(d));
	ids[1] = fw_ids[1];
	EXPECT_EQ(0, upmu_diag_apply_counters(d, ids, 2, &fi, &fr));
	EXPECT_EQ(-1, fi);
	upmu_diag_destroy(d);
}

/* One owner per device, through any PF; force; the owner's file frees it. */
TEST(ext_ownership)
{
	struct fw fw = FW_EXT;
	struct upmu_diag_read r = { 0 };
	struct upmu_diag_owner o;
	struct upmu_diag *a, *b, *c, *obs;
	struct upmu_diag_transport t;
	uint8_t buf[64];
	uint64_t ids[FW_NR];
	int ret, fi, fr;
	bool ok, sync;

	a = fw_create_pf(&fw, 0, false, &ret);		/* uid 1 on PF 0 */
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, upmu_diag_set_sample_mode(a, UPMU_DIAG_REPETITIVE));
	EXPECT_EQ(0, upmu_diag_apply_config(a));
	EXPECT_EQ(0, upmu_diag_apply_counters(a, fw_ids, 1, &fi, &fr));
	EXPECT_EQ(0, upmu_diag_start(a));
	/* through the other PF, and through the same one: busy */
	b = fw_create_pf(&fw, 1, false, &ret);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ(NULL, b);
	b = fw_create_pf(&fw, 0, false, &ret);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ(2, fw.closed);	/* b's files (a's stays open) */
	EXPECT_EQ(NIC_STATE_RUNNING, fw.xstate);
	/* who has it: a context that does not take the engine tells */
	t = fw_file(&fw, 1);
	ASSERT_EQ(0, upmu_diag_open_transport(&t, &obs));
	ASSERT_EQ(0, upmu_diag_get_owner(obs, &o));
	EXPECT_TRUE(o.owned);
	EXPECT_FALSE(o.self);
	EXPECT_EQ(0, o.pf);
	EXPECT_EQ(1, o.uid);
	EXPECT_EQ(FW_NR, upmu_diag_get_data_ids(obs, ids, NULL, FW_NR));
	EXPECT_EQ(-EPERM, upmu_diag_apply_config(obs));
	EXPECT_EQ(-EPERM, upmu_diag_stop(obs));
	upmu_diag_destroy(obs);
	EXPECT_EQ(NIC_STATE_RUNNING, fw.xstate);	/* untouched */
	/* force, through PF 1: taken over, a's engine stopped */
	b = fw_create_pf(&fw, 1, true, &ret);
	ASSERT_EQ(0, ret);
	upmu_diag_get_prev_owner(b, &o);
	EXPECT_TRUE(o.owned);
	EXPECT_EQ(0, o.pf);
	EXPECT_EQ(1, o.uid);
	EXPECT_EQ(1, fw.owner_pf);
	EXPECT_EQ(NIC_STATE_IDLE, fw.xstate);
	/* a learns it at its next command, clearly, and for good */
	r.count = 1;
	EXPECT_EQ(-UPMU_DIAG_ELOSTOWNER, upmu_diag_query_counters(a, buf, &r));
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(a));
	EXPECT_EQ(-UPMU_DIAG_ELOSTOWNER, upmu_diag_apply_config(a));
	EXPECT_EQ(-UPMU_DIAG_ELOSTOWNER, upmu_diag_stop(a));
	EXPECT_STREQ("another user took the engine over",
		     upmu_diag_strerror(-UPMU_DIAG_ELOSTOWNER));
	ASSERT_EQ(0, upmu_diag_get_owner(a, &o));
	EXPECT_FALSE(o.self);
	EXPECT_EQ(1, o.pf);
	/* destroying a gives back nothing of b's */
	upmu_diag_destroy(a);
	EXPECT_EQ(1, fw.owner_pf);
	ASSERT_EQ(0, upmu_diag_get_owner(b, &o));
	EXPECT_TRUE(o.self);
	EXPECT_EQ(0, upmu_diag_apply_config(b));
	EXPECT_EQ(0, upmu_diag_check_data_id(b, fw_ids[0], &ok, &sync));
	/* b's file closed (its process killed): the engine is free */
	upmu_diag_destroy(b);
	EXPECT_EQ(-1, fw.owner_pf);
	c = fw_create_pf(&fw, 0, false, &ret);
	ASSERT_EQ(0, ret);
	upmu_diag_get_prev_owner(c, &o);
	EXPECT_FALSE(o.owned);
	upmu_diag_destroy(c);
	/* the kernel's (uid 0: perf events) is not forced out */
	fw.owner_pf = 1;
	fw.owner_uid = 0;
	c = fw_create_pf(&fw, 0, true, &ret);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ(1, fw.owner_pf);
}

/* An engine running without an owner (a PRM user's) is busy too. */
TEST(ext_ownerless_engine)
{
	struct fw fw = FW_EXT;
	struct upmu_diag *d;
	int ret;

	fw.xstate = NIC_STATE_RUNNING;
	d = fw_create(_metadata, &fw, false, &ret);
	EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ(-1, fw.owner_pf);	/* given back */
	d = fw_create(_metadata, &fw, true, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(NIC_STATE_IDLE, fw.xstate);
	upmu_diag_destroy(d);
}

TEST(fw_error_mapping)
{
	EXPECT_EQ(0, upmu_diag_fw_error(NIC_STAT_OK, 0));
	EXPECT_EQ(-UPMU_DIAG_EBADCONFIG,
		  upmu_diag_fw_error(NIC_STAT_BAD_PARAM, NIC_SYND(NIC_DIAG_ERR_NO_SYNC, 3)));
	EXPECT_EQ(-EBUSY, upmu_diag_fw_error(NIC_STAT_BAD_PARAM, NIC_SYND(NIC_DIAG_ERR_OWNER, 0xffff)));
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_fw_error(NIC_STAT_BAD_SYS_STATE, 0));
	EXPECT_EQ(-EOPNOTSUPP, upmu_diag_fw_error(NIC_STAT_BAD_OP, 0));
	EXPECT_EQ(-EMSGSIZE, upmu_diag_fw_error(NIC_STAT_BAD_OUTP_LEN, 0));
	EXPECT_EQ(-UPMU_DIAG_EFW, upmu_diag_fw_error(0x77, 0));
	EXPECT_STREQ("insufficient buffer size", upmu_diag_strerror(-UPMU_DIAG_EINSUFF));
	EXPECT_STREQ(strerror(EBUSY), upmu_diag_strerror(-EBUSY));
}

/* ---- data-ID table ---------------------------------------------------------- */

TEST(id_table)
{
	static const uint32_t appendix[] = {
		NIC_DID_RX_BYTES, NIC_DID_RX_BYTES_PRIO, NIC_DID_RX_PACKETS,
		NIC_DID_RX_PACKETS_PRIO, NIC_DID_RX_BUFFER_DROPS, NIC_DID_RX_PAUSE,
		NIC_DID_RX_HOST_DISCARDS, NIC_DID_RX_TO_SCATTER, NIC_DID_RX_NO_WQE,
		NIC_DID_RX_NO_WQE_HAIRPIN, NIC_DID_RX_ECN_ROCE, NIC_DID_CNP_HANDLED,
		NIC_DID_CNP_SENT, NIC_DID_QP_DESCHED, NIC_DID_TX_BYTES,
		NIC_DID_TX_BYTES_PRIO, NIC_DID_TX_PACKETS, NIC_DID_TX_PACKETS_PRIO,
		NIC_DID_TX_PAUSE, NIC_DID_PCIE_IN_BYTES, NIC_DID_PCIE_OUT_BYTES,
		NIC_DID_PCIE_IN_DATA, NIC_DID_PCIE_OUT_DATA, NIC_DID_STALL_PW_DATA,
		NIC_DID_STALL_PW_HDR, NIC_DID_STALL_NP_DATA, NIC_DID_STALL_NP_HDR,
		NIC_DID_STALL_NP_CPL, NIC_DID_STALL_NP_ORDER, NIC_DID_PCIE_RD_LAT,
		NIC_DID_PCIE_RD_COUNT, NIC_DID_PCIE_RD_LAT_MAX, NIC_DID_PCIE_RD_LAT_MIN,
		NIC_DID_RX_CQE, NIC_DID_RX_CQE_FUNC, NIC_DID_TX_CQE,
		NIC_DID_TX_CQE_FUNC, NIC_DID_ICMC_ACCESSES, NIC_DID_ICMC_HITS,
		NIC_DID_ICMC_MISSES,
	};
	const struct upmu_diag_id_row *r;
	char name[96], pat[32];
	unsigned int i;
	uint64_t id;

	ASSERT_EQ(sizeof(appendix) / sizeof(appendix[0]), upmu_diag_nr_ids);
	for (i = 0; i < upmu_diag_nr_ids; i++) {
		/* in appendix (counter_id row) order, each once */
		EXPECT_EQ(appendix[i], upmu_diag_ids[i].hi);
		EXPECT_EQ(i, NIC_CID_ROW(upmu_diag_id_to_cid(NIC_DID(appendix[i], 0))));
	}
	r = upmu_diag_id_row(NIC_DID(NIC_DID_PCIE_RD_LAT_MAX, 0));
	ASSERT_NE(NULL, r);
	EXPECT_TRUE(r->statistic);
	EXPECT_FALSE(upmu_diag_id_row(NIC_DID(NIC_DID_PCIE_RD_LAT, 0))->statistic);
	upmu_diag_id_pattern(upmu_diag_id_row(NIC_DID(NIC_DID_STALL_NP_ORDER, 0)), pat, sizeof(pat));
	EXPECT_STREQ("0x1160000aZZZZYYXX", pat);
	/* names and counter_ids round trip */
	id = NIC_DID(NIC_DID_TX_PAUSE, NIC_DID_PORT_PRIO(1, 5));
	upmu_diag_id_name(id, name, sizeof(name));
	EXPECT_STREQ("port_prio_tx_pause.p1.prio5", name);
	EXPECT_EQ(id, upmu_diag_cid_to_id(upmu_diag_id_to_cid(id)));
	id = NIC_DID(NIC_DID_STALL_NP_ORDER, NIC_DID_LINK_TC(2, 7));
	upmu_diag_id_name(id, name, sizeof(name));
	EXPECT_STREQ("pcie_stall_np_order_ns.l2.tc7", name);
	EXPECT_EQ(id, upmu_diag_cid_to_id(upmu_diag_id_to_cid(id)));
	ASSERT_EQ(0, upmu_diag_id_parse("func_tx_cqe.f33", &id));
	EXPECT_EQ(NIC_DID(NIC_DID_TX_CQE_FUNC, 33), id);
	ASSERT_EQ(0, upmu_diag_id_parse("icmc_misses", &id));
	EXPECT_EQ(NIC_DID(NIC_DID_ICMC_MISSES, 0), id);
	EXPECT_EQ(-EINVAL, upmu_diag_id_parse("port_rx_bytes", &id));
	EXPECT_EQ(-EINVAL, upmu_diag_id_parse("port_rx_bytes.p1x", &id));
	EXPECT_EQ(-EINVAL, upmu_diag_id_parse("port_prio_rx_pause.p0.prio8", &id));
	EXPECT_EQ(-EINVAL, upmu_diag_id_parse("0x", &id));
	EXPECT_EQ(-EINVAL, upmu_diag_id_parse("nope", &id));
	/* malformed IDs have no counter_id */
	EXPECT_EQ(-EINVAL, upmu_diag_id_to_cid(NIC_DID(NIC_DID_QP_DESCHED, 1)));
	EXPECT_EQ(-EINVAL, upmu_diag_id_to_cid(NIC_DID(NIC_DID_RX_BYTES_PRIO, 0x900)));
	EXPECT_EQ(-EINVAL, upmu_diag_id_to_cid(0x1234ull << 32));
	EXPECT_EQ(0, upmu_diag_cid_to_id(0));
}

/* ---- JSON and CSV ------------------------------------------------------------- */

TEST(ids_json_roundtrip)
{
	struct diag_ids a, b;
	char err[256], *s;
	unsigned int i;

	ASSERT_EQ(0, diag_ids_default(&a));
	s = diag_ids_to_json_str(&a);
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, diag_ids_from_json_str(s, &b, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(a.n, b.n);
	for (i = 0; i < a.n; i++) {
		EXPECT_EQ(a.id[i], b.id[i]);
		EXPECT_STREQ(a.name[i], b.name[i]);
	}
	free(s);
	diag_ids_free(&a);
	diag_ids_free(&b);
	/* names alone, IDs alone, and a bare array */
	ASSERT_EQ(0, diag_ids_from_json_str(
		"[\"icmc_hits\", {\"data_id\": \"0x1020000100000001\"}, {\"name\": \"tx_cqe\"},"
		" {\"name\": \"my col\", \"data_id\": 1206964717315162112}]", &b, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(4, b.n);
	EXPECT_EQ(NIC_DID(NIC_DID_ICMC_HITS, 0), b.id[0]);
	EXPECT_STREQ("port_rx_bytes.p1", b.name[1]);
	EXPECT_EQ(NIC_DID(NIC_DID_TX_CQE, 0), b.id[2]);
	EXPECT_EQ(NIC_DID(NIC_DID_TX_CQE, 0), b.id[3]);
	EXPECT_STREQ("my col", b.name[3]);
	diag_ids_free(&b);
}

TEST(ids_json_malformed)
{
	static const char *const bad[] = {
		"", " ", "{", "[", "{\"data_ids\": [", "{\"data_ids\": []}",
		"{\"data_ids\": {}}", "{\"ids\": [\"icmc_hits\"]}", "[1, 2",
		"[\"icmc_hits\"] trailing", "[null]", "[true]", "[-5]", "[0]",
		"[\"0x\"]", "[\"0xzz\"]", "[\"no_such_counter\"]", "[{}]",
		"[{\"data_id\": \"icmc_hits\", \"extra\": 1}]",
		"[{\"name\": 5}]", "[{\"name\": \"a,b\", \"data_id\": \"0x1\"}]",
		"[{\"name\": \"icmc_hits\", \"data_id\": \"icmc_misses\"}]",
		"[{\"data_id\": 1.5}]", "[[\"icmc_hits\"]]", "\"icmc_hits\"",
		"[\"\\u0000\"]", "{\"data_ids\": [\"icmc_hits\"],}",
	};
	struct diag_ids ids;
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		EXPECT_EQ(-EINVAL, diag_ids_from_json_str(bad[i], &ids, err, sizeof(err)))
			TH_LOG("accepted: %s", bad[i]);
		EXPECT_NE(0, err[0]) TH_LOG("no message for: %s", bad[i]);
		EXPECT_EQ(0, ids.n);
	}
}

TEST(flags_json_and_args)
{
	struct diag_opts o;
	char err[256];
	char *argv[] = { "upmu-diag", "-p", "4e1c0001.0", "-sp", "100000", "-ns", "10",
			 "-sr", "64", "-sm", "2", "-of", "0", "-f", "-rt", "0.5",
			 "--sync-start", "-o", "/tmp/x.csv", NULL };
	static const char *const bad_json[] = {
		"{\"sample-period\": \"100\"}", "{\"sample-mode\": 3}",
		"{\"sample-mode\": -1}", "{\"force-ownership\": 1}",
		"{\"no-such-flag\": 1}", "[]", "{\"log-num-samples\": 17}",
		"{\"sample-run-time\": \"x\"}", "{\"output\": 5}", "{",
		"{\"max-samples-per-read\": 4294967296}",
	};
	unsigned int i;

	diag_opts_init(&o);
	ASSERT_EQ(0, diag_parse_args(19, argv, &o, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("4e1c0001.0", o.dev);
	EXPECT_EQ(100000, o.period_ns);
	EXPECT_EQ(10, o.log_samples);
	EXPECT_EQ(64, o.max_per_read);
	EXPECT_EQ(2, o.mode);
	EXPECT_EQ(0, o.format);
	EXPECT_TRUE(o.force);
	EXPECT_TRUE(o.sync);
	EXPECT_FALSE(o.clear);
	EXPECT_STREQ("/tmp/x.csv", o.output);

	diag_opts_init(&o);
	ASSERT_EQ(0, diag_opts_from_json_str(
		"{\"pci-addr\": \"fwctl3\", \"sample-period\": 2048, \"sample-mode\": 0,"
		" \"force-ownership\": true, \"sample-run-time\": 2.5,"
		" \"data-ids\": \"/tmp/ids.json\"}", &o, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("fwctl3", o.dev);
	EXPECT_EQ(2048, o.period_ns);
	EXPECT_EQ(0, o.mode);
	EXPECT_TRUE(o.force);
	EXPECT_TRUE(o.run_time == 2.5);
	EXPECT_STREQ("/tmp/ids.json", o.data_ids);
	EXPECT_STREQ(DIAG_DEFAULT_OUTPUT, o.output);
	for (i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++) {
		diag_opts_init(&o);
		err[0] = 0;
		EXPECT_EQ(-EINVAL, diag_opts_from_json_str(bad_json[i], &o, err, sizeof(err)))
			TH_LOG("accepted: %s", bad_json[i]);
		EXPECT_NE(0, err[0]);
	}
	{
		char *a1[] = { "upmu-diag", "-sp" };
		char *a2[] = { "upmu-diag", "-sp", "-5" };
		char *a3[] = { "upmu-diag", "-sm", "1x" };
		char *a4[] = { "upmu-diag", "-rt", "nan" };
		char *a5[] = { "upmu-diag", "--bogus" };
		char *a6[] = { "upmu-diag", "-j", "/nonexistent/flags.json" };

		EXPECT_EQ(-EINVAL, diag_parse_args(2, a1, &o, err, sizeof(err)));
		EXPECT_EQ(-EINVAL, diag_parse_args(3, a2, &o, err, sizeof(err)));
		EXPECT_EQ(-EINVAL, diag_parse_args(3, a3, &o, err, sizeof(err)));
		EXPECT_EQ(-EINVAL, diag_parse_args(3, a4, &o, err, sizeof(err)));
		EXPECT_EQ(-EINVAL, diag_parse_args(2, a5, &o, err, sizeof(err)));
		EXPECT_EQ(-EINVAL, diag_parse_args(3, a6, &o, err, sizeof(err)));
	}
}

TEST(csv_writer)
{
	struct diag_ids ids;
	struct upmu_diag_sample s = { 7, 1000, 1064 };
	const uint64_t v[3] = { 1, 18446744073709551615ull, 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_EQ(0, diag_ids_from_json_str("[\"port_rx_bytes.p0\", \"icmc_hits\", "
					    "{\"name\": \"x\", \"data_id\": \"0x1180000300000000\"}]",
					    &ids, NULL, 0));
	f = open_memstream(&text, &len);
	ASSERT_NE(NULL, f);
	diag_csv_header(f, &ids);
	diag_csv_row(f, &s, v, 3);
	fclose(f);
	EXPECT_STREQ("sample_id,first_timestamp_ns,last_timestamp_ns,port_rx_bytes.p0,icmc_hits,x\n"
		     "7,1000,1064,1,18446744073709551615,0\n", text);
	free(text);
	diag_ids_free(&ids);
}

TEST_HARNESS_MAIN
