// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_nic: the AUX stream of a NIC's diagnostic samples, a perf PMU
 * upmu_nicdiag_<serial> next to the counting PMU upmu_nic_<serial>
 * (Documentation/upmu-nic-aux.rst).
 *
 * The event's creation configures the sampling engine with the firmware
 * commands (process context: ownership as uid 0, EXT_SET_CONFIG,
 * EXT_APPLY_IDS, EXT_START) and its destruction stops and releases it.
 * In between the core's hard-irq timer drains the engine through the
 * PF's sample window (NIC_SW_*: registers, no command) into perf's AUX
 * area as META, LOST and SAMPLE records (hw/upmu_aux.h), whole records
 * only, never more samples read than fit: what does not fit stays in the
 * device, and what the device overwrote meanwhile is a LOST record.
 */

#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "hw/nic_cmd.h"
#include "nic.h"
#include "upmu_compat.h"

#define NIC_STREAM_MAX_IDS	8
#define NIC_STREAM_DEF_PERIOD	20	/* 2^20 ns */
#define NIC_STREAM_DEF_SAMPLES	10	/* 2^10 samples, if they fit */

enum {
	NIC_SFMT_PROFILE,
	NIC_SFMT_DEV_PERIOD,
	NIC_SFMT_LOG_SAMPLES,
	NIC_SFMT_SINGLE,
	NIC_SFMT_ID0,
	NIC_SFMT_ID1,
};

static const struct upmu_format nic_stream_formats[] = {
	[NIC_SFMT_PROFILE]	= UPMU_FORMAT(profile, UPMU_CONFIG, 0, 7),
	[NIC_SFMT_DEV_PERIOD]	= UPMU_FORMAT(dev_period, UPMU_CONFIG, 8, 13),
	[NIC_SFMT_LOG_SAMPLES]	= UPMU_FORMAT(log_samples, UPMU_CONFIG, 16, 19),
	[NIC_SFMT_SINGLE]	= UPMU_FORMAT(single, UPMU_CONFIG, 20, 20),
	[NIC_SFMT_ID0]		= UPMU_FORMAT(id0, UPMU_CONFIG1, 0, 63),
	[NIC_SFMT_ID1]		= UPMU_FORMAT(id1, UPMU_CONFIG2, 0, 63),
};

enum {
	NIC_PROFILE_IDS,		/* id0/id1 */
	NIC_PROFILE_PORT_TRAFFIC,
	NIC_PROFILE_PCIE,
	NIC_PROFILE_DOCA_DEFAULT,
	NIC_NR_PROFILES,
};

static const struct upmu_event_desc nic_stream_events[] = {
	UPMU_EVENT(port_traffic, NIC_PROFILE_PORT_TRAFFIC),
	UPMU_EVENT(pcie, NIC_PROFILE_PCIE),
	UPMU_EVENT(doca_default, NIC_PROFILE_DOCA_DEFAULT),
};

/*
 * The data IDs of each named profile, in the order of the values; those
 * the device does not have are left out.
 */
static const u64 nic_profile_ids[NIC_NR_PROFILES][NIC_STREAM_MAX_IDS] = {
	[NIC_PROFILE_PORT_TRAFFIC] = {
		NIC_DID(NIC_DID_RX_BYTES, 0), NIC_DID(NIC_DID_RX_PACKETS, 0),
		NIC_DID(NIC_DID_TX_BYTES, 0), NIC_DID(NIC_DID_TX_PACKETS, 0),
		NIC_DID(NIC_DID_RX_BYTES, 1), NIC_DID(NIC_DID_RX_PACKETS, 1),
		NIC_DID(NIC_DID_TX_BYTES, 1), NIC_DID(NIC_DID_TX_PACKETS, 1),
	},
	[NIC_PROFILE_PCIE] = {
		NIC_DID(NIC_DID_PCIE_IN_BYTES, 0), NIC_DID(NIC_DID_PCIE_OUT_BYTES, 0),
		NIC_DID(NIC_DID_PCIE_RD_LAT, 0), NIC_DID(NIC_DID_PCIE_RD_COUNT, 0),
	},
	/* what upmu-diag -e writes */
	[NIC_PROFILE_DOCA_DEFAULT] = {
		NIC_DID(NIC_DID_RX_BYTES, 0), NIC_DID(NIC_DID_TX_BYTES, 0),
		NIC_DID(NIC_DID_RX_PACKETS, 0), NIC_DID(NIC_DID_TX_PACKETS, 0),
		NIC_DID(NIC_DID_RX_CQE, 0), NIC_DID(NIC_DID_TX_CQE, 0),
		NIC_DID(NIC_DID_ICMC_HITS, 0), NIC_DID(NIC_DID_ICMC_MISSES, 0),
	},
};

#define NIC_META_MAX	struct_size_t(struct upmu_aux_meta, ids, NIC_STREAM_MAX_IDS)

/**
 * struct nic_stream - the stream of the one event of a NIC's AUX PMU
 * @nr: data IDs sampled
 * @ids: the data IDs, in the order of the values
 * @mode: NIC_MODE_SINGLE or NIC_MODE_REPETITIVE
 * @khz: the device clock
 * @period_ns: the device's sample period
 * @log_samples: the device buffer holds 2^@log_samples samples
 * @next: the sample_id, extended to 64 bits, of the next sample (at the
 *	  first start: the first one after it)
 * @rec: room for one META or LOST record
 *
 * Set up in process context before the event can run; then used only
 * by the drain, under the PMU's lock.
 */
struct nic_stream {
	unsigned int nr;
	u64 ids[NIC_STREAM_MAX_IDS];
	u32 mode;
	u32 khz;
	u64 period_ns;
	unsigned int log_samples;
	u64 next;
	u64 rec[NIC_META_MAX / 8];
};

/* ---- event_init: the configuration, checked under the PMU's lock ---------- */

static bool nic_stream_check_profile(struct upmu_pmu *upmu, u64 profile)
{
	return profile < NIC_NR_PROFILES;
}

static int nic_stream_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 profile = upmu_field(upmu, event, NIC_SFMT_PROFILE);
	u64 id0 = upmu_field(upmu, event, NIC_SFMT_ID0);
	u64 id1 = upmu_field(upmu, event, NIC_SFMT_ID1);
	struct nic_pmu *np = upmu->priv;

	if (profile != NIC_PROFILE_IDS) {
		if (id0 || id1) {
			upmu_why(upmu, "id0/id1 go with profile=0 only");
			return -EINVAL;
		}
		return 0;
	}
	if ((!id0 && !id1) || id0 == id1 ||
	    (id0 && !nic_pmu_has_id(np, id0)) ||
	    (id1 && !nic_pmu_has_id(np, id1))) {
		upmu_why(upmu, "profile=0: one or two distinct data IDs of the device");
		return -EINVAL;
	}
	return 0;
}

/* The event's data IDs into @st. */
static void nic_stream_ids(struct upmu_pmu *upmu, struct perf_event *event,
			   struct nic_stream *st)
{
	u64 profile = upmu_field(upmu, event, NIC_SFMT_PROFILE);
	unsigned int i;

	st->nr = 0;
	if (profile == NIC_PROFILE_IDS) {
		for (i = NIC_SFMT_ID0; i <= NIC_SFMT_ID1; i++) {
			u64 id = upmu_field(upmu, event, i);

			if (id)
				st->ids[st->nr++] = id;
		}
		return;
	}
	for (i = 0; i < NIC_STREAM_MAX_IDS; i++) {
		u64 id = nic_profile_ids[profile][i];

		if (id && nic_pmu_has_id(upmu->priv, id))
			st->ids[st->nr++] = id;
	}
}

/* ---- the engine: firmware commands, np->lock held ------------------------- */

static int nic_stream_simple(struct nic_pmu *np, u16 opcode)
{
	u32 in[NIC_HDR_IN_LEN / 4] = {}, out[NIC_HDR_OUT_LEN / 4];

	nic_set(in, NIC_HDR_OPCODE, opcode);
	return nic_pmu_cmd(np, in, sizeof(in), out, sizeof(out));
}

static int nic_stream_config(struct nic_pmu *np, struct nic_stream *st,
			     unsigned int log_samples, u64 period_ns, u32 *synd)
{
	u32 in[NIC_EXT_CFG_IN_LEN / 4] = {}, out[NIC_HDR_OUT_LEN / 4];
	int ret;

	nic_set(in, NIC_HDR_OPCODE, NIC_OP_EXT_SET_CONFIG);
	nic_set(in, NIC_EXT_CFG_MODE, st->mode);
	nic_set(in, NIC_EXT_CFG_FORMAT, 1);
	nic_set(in, NIC_EXT_CFG_LOG_SAMPLES, log_samples);
	nic_set64(in, NIC_EXT_CFG_PERIOD_NS, period_ns);
	nic_set(in, NIC_EXT_CFG_MAX_IDS, st->nr);
	ret = nic_pmu_cmd(np, in, sizeof(in), out, sizeof(out));
	*synd = nic_get(out, NIC_HDR_SYNDROME);
	return ret;
}

static int nic_stream_apply(struct nic_pmu *np, struct nic_stream *st)
{
	u32 in[NIC_EXT_APPLY_IN_LEN(NIC_STREAM_MAX_IDS) / 4] = {};
	u32 out[NIC_EXT_APPLY_OUT_LEN / 4];
	unsigned int i;
	int ret;

	nic_set(in, NIC_HDR_OPCODE, NIC_OP_EXT_APPLY_IDS);
	nic_set(in, NIC_EXT_APPLY_NUM, st->nr);
	for (i = 0; i < st->nr; i++)
		nic_set64(in, NIC_EXT_APPLY_ID(i), st->ids[i]);
	ret = nic_pmu_cmd(np, in, NIC_EXT_APPLY_IN_LEN(st->nr), out, sizeof(out));
	if (!ret)
		st->period_ns = nic_get64(out, NIC_EXT_APPLY_PERIOD_NS);
	return ret;
}

/* A firmware status to an errno: the configuration's fault, or the device's. */
static int nic_stream_errno(int st)
{
	if (st < 0)
		return st;
	return st == NIC_STAT_BAD_PARAM ? -EINVAL : -EIO;
}

/*
 * Idle -> Configured -> Ready -> Running.  Without a log_samples, 2^10
 * samples or as many as the device's capacity holds of these IDs.
 */
static int nic_stream_start(struct nic_pmu *np, struct upmu_pmu *upmu,
			    struct perf_event *event, struct nic_stream *st)
{
	unsigned int ls = upmu_field(upmu, event, NIC_SFMT_LOG_SAMPLES);
	unsigned int lp = upmu_field(upmu, event, NIC_SFMT_DEV_PERIOD);
	bool fit = !ls;
	u32 synd;
	int ret;

	st->mode = upmu_field(upmu, event, NIC_SFMT_SINGLE) ?
		   NIC_MODE_SINGLE : NIC_MODE_REPETITIVE;
	if (!ls)
		ls = NIC_STREAM_DEF_SAMPLES;
	if (!lp)
		lp = NIC_STREAM_DEF_PERIOD;
	for (;;) {
		ret = nic_stream_config(np, st, ls, BIT_ULL(lp), &synd);
		if (!ret || !fit || !ls || ret != NIC_STAT_BAD_PARAM ||
		    NIC_SYND_REASON(synd) != NIC_DIAG_ERR_CAPACITY)
			break;
		ls--;
	}
	if (ret)
		goto err;
	st->log_samples = ls;
	ret = nic_stream_apply(np, st);
	if (!ret)
		ret = nic_stream_simple(np, NIC_OP_EXT_START);
	if (!ret)
		return 0;
	nic_stream_simple(np, NIC_OP_EXT_STOP);
err:
	dev_dbg(np->pf->dev, "%s: the engine refused the stream: status %d\n",
		upmu->name, ret);
	return nic_stream_errno(ret);
}

/*
 * One stream per NIC; the engine belongs to the kernel while it runs
 * (nic_pmu_hold(): EBUSY while a fwctl user owns it).
 */
static int nic_stream_event_get(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct nic_pmu *np = upmu->priv;
	struct nic_stream *st;
	int ret;

	st = kvzalloc_obj(*st);
	if (!st)
		return -ENOMEM;
	nic_stream_ids(upmu, event, st);
	st->khz = np->khz;

	mutex_lock(&np->lock);
	if (np->stream) {
		dev_info_ratelimited(upmu->dev, "%s: a stream is open already: EBUSY\n",
				     upmu->name);
		ret = -EBUSY;
		goto err_unlock;
	}
	if (!st->nr) {
		ret = -EINVAL;
		goto err_unlock;
	}
	ret = nic_pmu_hold(np, upmu);
	if (ret)
		goto err_unlock;
	ret = nic_stream_start(np, upmu, event, st);
	if (ret) {
		nic_pmu_unhold(np);
		mutex_unlock(&np->lock);
		nic_pmu_put(np);
		kvfree(st);
		return ret;
	}
	np->stream = st;
	mutex_unlock(&np->lock);
	return 0;

err_unlock:
	mutex_unlock(&np->lock);
	kvfree(st);
	return ret;
}

static void nic_stream_event_put(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct nic_pmu *np = upmu->priv;
	struct nic_stream *st;

	mutex_lock(&np->lock);
	st = np->stream;
	np->stream = NULL;
	/* a PF that is gone took the engine's ownership, and so its run, along */
	if (np->pf && np->owned)
		nic_stream_simple(np, NIC_OP_EXT_STOP);
	nic_pmu_unhold(np);
	mutex_unlock(&np->lock);
	kvfree(st);
	nic_pmu_put(np);
}

/* ---- the drain: hard irq, under the PMU's lock ---------------------------- */

/* A 32-bit device sample_id, extended from the one expected next. */
static u64 nic_stream_id(u64 next, u32 id)
{
	return next + (u32)(id - (u32)next);
}

static void nic_stream_meta(struct upmu_aux_out *out, struct nic_pmu *np,
			    struct nic_stream *st, u64 now, u64 dev_time)
{
	struct upmu_aux_meta *m = (struct upmu_aux_meta *)st->rec;

	memset(m, 0, sizeof(*m));
	m->hdr.type = UPMU_AUX_META;
	m->hdr.nr = st->nr;
	m->hdr.time = now;
	m->serial = np->serial;
	m->dev_khz = st->khz;
	m->mode = st->mode;
	m->period_ns = st->period_ns;
	m->dev_time = dev_time;
	memcpy(m->ids, st->ids, st->nr * sizeof(*m->ids));
	upmu_aux_put(out, &m->hdr, struct_size(m, ids, st->nr));
}

static void nic_stream_lost(struct upmu_aux_out *out, struct nic_stream *st,
			    u64 now, u32 count, u32 first)
{
	struct upmu_aux_lost *l = (struct upmu_aux_lost *)st->rec;

	memset(l, 0, sizeof(*l));
	l->hdr.type = UPMU_AUX_LOST;
	l->hdr.time = now;
	l->first_id = nic_stream_id(st->next, first);
	l->count = count;
	l->last_id = l->first_id + count - 1;
	l->reason = 1;
	st->next = l->first_id + count;
	upmu_aux_put(out, &l->hdr, sizeof(*l));
}

/* A SAMPLES record is its header, then the window's samples as they are. */
static_assert(offsetof(struct upmu_aux_dev_sample, sample_id) == NIC_SWS_SAMPLE_ID);
static_assert(offsetof(struct upmu_aux_dev_sample, dev_ts_first) == NIC_SWS_TS_FIRST);
static_assert(offsetof(struct upmu_aux_dev_sample, dev_ts_last) == NIC_SWS_TS_LAST);
static_assert(offsetof(struct upmu_aux_dev_sample, values) == NIC_SWS_VALUES);
static_assert(sizeof(struct upmu_aux_samples) % 8 == 0);

/* The sample window's registers a drain reads, in one backend call. */
enum {
	SW_READ,
	SW_RETURNED,
	SW_LOST,
	SW_LOST_FIRST,
	SW_SIZE,
	SW_AVAIL,
	SW_NEXT,
	SW_NR
};

/*
 * As many samples as the AUX space takes after a META and a LOST record,
 * read from the device in one window after another until it has none
 * left or the space runs out (then true: the rest waits in the device).
 * A window's samples go into the area as they are, behind one SAMPLES
 * header: the only copy of them is the device's into the area.
 */
static bool nic_stream_drain(struct upmu_pmu *upmu, struct perf_event *event,
			     struct upmu_aux_out *out)
{
	struct nic_pmu *np = upmu->priv;
	struct nic_stream *st = np->stream;
	struct upmu_reg_xfer x[SW_NR];
	struct upmu_aux_samples smp = { .hdr.type = UPMU_AUX_SAMPLES };
	size_t meta, need, lost = sizeof(struct upmu_aux_lost);
	u32 max, got, wsize;
	bool meta_done = false;
	u64 now, dev;

	if (!st)
		return false;
	meta = struct_size_t(struct upmu_aux_meta, ids, st->nr);
	wsize = NIC_SWS_SIZE(st->nr);
	for (;;) {
		need = (meta_done ? 0 : meta) + lost + sizeof(smp);
		if (upmu_aux_space(out) < need + wsize)
			return true;
		max = min3((upmu_aux_space(out) - need) / wsize,
			   (size_t)NIC_SWIN_SIZE / wsize,
			   (UPMU_AUX_MAX_RECORD - sizeof(smp)) / wsize);

		x[SW_READ] = (struct upmu_reg_xfer){ NIC_SW_READ, UPMU_XFER_WRITE, max };
		x[SW_RETURNED] = (struct upmu_reg_xfer){ NIC_SW_RETURNED };
		x[SW_LOST] = (struct upmu_reg_xfer){ NIC_SW_LOST };
		x[SW_LOST_FIRST] = (struct upmu_reg_xfer){ NIC_SW_LOST_FIRST };
		x[SW_SIZE] = (struct upmu_reg_xfer){ NIC_SW_SIZE };
		x[SW_AVAIL] = (struct upmu_reg_xfer){ NIC_SW_AVAIL };
		x[SW_NEXT] = (struct upmu_reg_xfer){ NIC_SW_NEXT };
		upmu_xfer(&upmu->regs, x, SW_NR);
		got = min_t(u32, x[SW_RETURNED].val, max);
		/* not the engine this stream configured: nothing to trust */
		if (got && x[SW_SIZE].val != wsize)
			return false;
		if (!got && !x[SW_LOST].val)
			return false;

		if (!meta_done) {
			/*
			 * One pair of clocks for the commit, after the read:
			 * what the read made the device do delays nothing
			 */
			dev = upmu_aux_dev_time(out, &upmu->regs, NIC_REG_TIMER,
						&now);
			nic_stream_meta(out, np, st, now, dev);
			meta_done = true;
		}
		if (x[SW_LOST].val)
			nic_stream_lost(out, st, now, x[SW_LOST].val,
					x[SW_LOST_FIRST].val);
		if (got) {
			smp.hdr.nr = st->nr;
			smp.hdr.time = now;
			smp.first_id = nic_stream_id(st->next,
						     (u32)x[SW_NEXT].val - got);
			smp.dev_time = dev;
			smp.count = got;
			smp.stride = wsize;
			st->next = smp.first_id + got;
			upmu_aux_put_fromio(out, &smp.hdr, sizeof(smp), &upmu->regs,
					    NIC_SWIN, (size_t)got * wsize);
		}
		if (!x[SW_AVAIL].val)
			return false;
	}
}

/*
 * The first start: the samples the device took since the event's
 * creation (perf record still setting up) are dropped, not lost; the
 * stream begins with the next one.
 */
static void nic_stream_begin(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct nic_pmu *np = upmu->priv;
	struct nic_stream *st = np->stream;
	struct upmu_reg_xfer x[] = {
		{ NIC_SW_SKIP, UPMU_XFER_WRITE, 1 },
		{ NIC_SW_NEXT },
	};

	if (!st)
		return;
	upmu_xfer(&upmu->regs, x, ARRAY_SIZE(x));
	st->next = x[1].val;
}

/* The device's buffer fills in 2^log_samples periods (repetitive mode). */
static u64 nic_stream_fill_ns(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct nic_stream *st = ((struct nic_pmu *)upmu->priv)->stream;
	u64 fill;

	if (!st || check_shl_overflow(st->period_ns, st->log_samples, &fill))
		return 0;
	return fill;
}

static const struct upmu_hw_ops nic_stream_ops = {
	.check_id	= nic_stream_check_profile,
	.validate	= nic_stream_validate,
	.event_get	= nic_stream_event_get,
	.event_put	= nic_stream_event_put,
};

static const struct upmu_aux_ops nic_stream_aux = {
	.drain		= nic_stream_drain,
	.begin		= nic_stream_begin,
	.fill_ns	= nic_stream_fill_ns,
};

static const struct upmu_desc nic_stream_desc = {
	.formats	= nic_stream_formats,
	.nr_formats	= ARRAY_SIZE(nic_stream_formats),
	.events		= nic_stream_events,
	.nr_events	= ARRAY_SIZE(nic_stream_events),
	.ops		= &nic_stream_ops,
	.aux		= &nic_stream_aux,
};

/**
 * nic_stream_register() - register the NIC's AUX stream PMU
 * @np: the NIC's PMUs, the counting one registered
 * @pf: the PF that registers them
 *
 * It goes with the counting PMU (upmu_nic_pmu_del()).
 *
 * Return: 0 or -errno.
 */
int nic_stream_register(struct nic_pmu *np, struct upmu_nic_pf *pf)
{
	struct upmu_pmu *upmu;
	int ret;

	upmu = upmu_pmu_alloc(pf->dev);
	if (!upmu)
		return -ENOMEM;
	upmu->desc = &nic_stream_desc;
	ret = nic_pmu_setup(upmu, np, pf, "upmu_nicdiag");
	np->khz = upmu_rd32(&upmu->regs, NIC_SW_KHZ);
	if (!ret)
		ret = upmu_pmu_register(upmu);
	if (ret) {
		upmu_pmu_free(upmu);
		return ret;
	}
	np->aux = upmu;
	return 0;
}
