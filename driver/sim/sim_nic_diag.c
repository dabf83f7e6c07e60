// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling engine of the simulated NIC, one per device, and the
 * commands that drive it: the mlx5 PRM's SET_DIAGNOSTIC_PARAMS,
 * QUERY_DIAGNOSTIC_PARAMS and QUERY_DIAGNOSTIC_COUNTERS, and this
 * device's extension (hw/nic_cmd.h NIC_OP_EXT_*) with 64-bit data IDs,
 * output formats, an owner per device and DOCA's state machine (Idle ->
 * Configured -> Ready -> Running).  Without an owner anyone may use the
 * PRM commands; with one, only the owner drives the engine.
 *
 * Running, the engine takes a sample of its applied counters every
 * period of 2^log_sample_period device clocks into a cyclic buffer of
 * 2^log_num_of_samples samples: single mode stops when the buffer is
 * full, repetitive mode overwrites the oldest sample; on-demand mode
 * collects nothing and takes one sample per query.  Samples are taken
 * lazily, when the NIC is brought up to sim time (an access, an
 * injection): each at its own time, with the flows delivered up to that
 * time, so values are exact on the manual clock.  A catch-up over more
 * samples than the buffer holds takes only those that stay.
 *
 * Collecting a counter takes NIC_CLK_PER_CNTR clocks, so the period is
 * at least nr x that, rounded up to a power of two.  Without sync,
 * counter i is read NIC_CLK_PER_CNTR x i clocks after the sample's time,
 * and a sample is complete, and visible, once its last counter is read.
 * With sync, the counters stop together for the collection: nr x
 * NIC_CLK_PER_CNTR clocks before the sample's time, when they are read
 * as of that one clock; they start again at the sample's time, the
 * sample complete.  What happens while they are stopped is not counted
 * (the PMU's slots, which count on their own, see it), and the period is
 * at least twice the collection so that they count at least half of it.
 *
 * debugfs nic/: "stall" (rw, 1: no samples fall due; 0: collection goes
 * on from now) and "overrun" (w, N: take N samples now, back to back, as
 * a burst that overruns a slow reader).
 */

#include <linux/debugfs.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "sim_nic.h"

#define NIC_NS_PER_MS	1000000U

/* Sim ns of @clk device clocks (floor). */
static u64 nic_clk_ns(const struct sim_nic *nic, u64 clk)
{
	return mul_u64_u32_div(clk, NIC_NS_PER_MS, nic->khz);
}

/* Device clocks at sim time @ns: what time stamps count. */
static u64 nic_ns_clk(const struct sim_nic *nic, u64 ns)
{
	return mul_u64_u32_div(ns, nic->khz, NIC_NS_PER_MS);
}

static unsigned int nic_nsamples(const struct nic_diag *d)
{
	return 1U << d->log_samples;
}

/* Slot @s of the buffer: a sample in the window's layout. */
static u8 *nic_slot(const struct nic_diag *d, unsigned int s)
{
	return d->ring + (size_t)s * NIC_SWS_SIZE(d->nr);
}

static u64 nic_slot_ts(const struct nic_diag *d, unsigned int s)
{
	return le64_to_cpup((__le64 *)(nic_slot(d, s) + NIC_SWS_TS_FIRST));
}

static u64 nic_slot_val(const struct nic_diag *d, unsigned int s, unsigned int i)
{
	return le64_to_cpup((__le64 *)(nic_slot(d, s) + NIC_SWS_VALUES + 8 * i));
}

/* Sim time sample @k is taken (its first counter read). */
static u64 nic_sample_ns(const struct sim_nic *nic, u64 k)
{
	const struct nic_diag *d = &nic->diag;

	return d->epoch_ns +
	       nic_clk_ns(nic, (k - d->epoch_k + 1) << d->log_period);
}

/* Sim ns from a sample's time to the read of its counter @i. */
static u64 nic_entry_lag(const struct sim_nic *nic, unsigned int i)
{
	return nic->diag.sync ? 0 : nic_clk_ns(nic, (u64)NIC_CLK_PER_CNTR * i);
}

/* Sim ns a synchronized sample's counters are stopped before its time. */
static u64 nic_sync_stop_ns(const struct sim_nic *nic)
{
	return nic_clk_ns(nic, (u64)NIC_CLK_PER_CNTR * nic->diag.nr);
}

/*
 * Sync: stops the applied counters at sim time @t (or now, if the flows
 * have gone past it) for the collection of the next sample: @snap holds
 * what they read until it is taken.
 */
static void nic_sync_stop(struct sim_nic *nic, u64 t)
{
	struct nic_diag *d = &nic->diag;
	unsigned int i;

	nic_flows_run(nic, t);
	for (i = 0; i < d->nr; i++) {
		unsigned int c = d->idx[i];

		d->snap[i] = nic_cntr_is_stat(nic, c) ? nic_cntr_value(nic, c) :
							nic->val[c];
	}
	d->stopped = true;
}

/* Reads applied counter @i for the sample of sim time @t, at its time. */
static u64 nic_read_cntr(struct sim_nic *nic, unsigned int i, u64 t)
{
	struct nic_diag *d = &nic->diag;
	unsigned int c = d->idx[i];
	u64 v;

	nic_flows_run(nic, t + nic_entry_lag(nic, i));
	if (nic_cntr_is_stat(nic, c)) {
		/* with sync, what it measured while stopped is dropped */
		v = d->sync ? d->snap[i] : nic_cntr_value(nic, c);
		nic_stat_reset(nic, c);
	} else if (d->sync) {
		v = d->snap[i] - d->base[i];
		/* what came while stopped is not counted */
		d->base[i] = d->clear ? nic->val[c] :
				       d->base[i] + nic->val[c] - d->snap[i];
	} else {
		v = nic->val[c] - d->base[i];
		if (d->clear)
			d->base[i] = nic->val[c];
	}
	return v;
}

static size_t nic_ring_bytes(const struct nic_diag *d)
{
	return (size_t)nic_nsamples(d) * NIC_SWS_SIZE(d->nr);
}

/*
 * @len bytes from byte @at of the run of slots that begins with sample
 * @k's: the buffer is one run of bytes, so two copies at most.
 */
static void nic_ring_copy(const struct nic_diag *d, u64 k, size_t at, u8 *dst,
			  size_t len)
{
	size_t ring = nic_ring_bytes(d), first;

	if (!len)
		return;
	at = ((k & (nic_nsamples(d) - 1)) * NIC_SWS_SIZE(d->nr) + at) % ring;
	first = min(len, ring - at);
	memcpy(dst, d->ring + at, first);
	memcpy(dst + first, d->ring, len - first);
}

/**
 * nic_diag_window_fill() - give a PF's window the samples it stands for
 * @pf: the PF
 *
 * A NIC_SW_READ only latches which samples the window holds; they are
 * copied into it when the engine is about to change them (a sample
 * stored over one of them, a new configuration) or when it is read
 * other than by a block copy.  Called with sd->lock held.
 */
void nic_diag_window_fill(struct sim_nic_pf *pf)
{
	const struct nic_diag *d = &pf->nic->diag;

	if (!pf->sw_lazy)
		return;
	pf->sw_lazy = false;
	nic_ring_copy(d, pf->sw_first, 0, pf->swin,
		      (size_t)pf->sw_returned * NIC_SWS_SIZE(d->nr));
}

/* Before the engine's buffer or layout changes: every window filled. */
static void nic_diag_settle(struct sim_nic *nic)
{
	unsigned int i;

	for (i = 0; i < nic->nr_pfs; i++)
		nic_diag_window_fill(&nic->pf[i]);
}

/*
 * Takes sample @k at sim time @t: reads each applied counter at its
 * time (those a catch-up in the middle of the collection has not read
 * already, see nic_diag_catch_up()) into slot @k's place in the buffer
 * (or nowhere, if !@store: a sample that would be overwritten before
 * anyone could see it still clears and restarts what a sample does).
 */
static void nic_take(struct sim_nic *nic, u64 k, u64 t, bool store)
{
	struct nic_diag *d = &nic->diag;
	u8 *slot = nic_slot(d, k & (nic_nsamples(d) - 1));
	unsigned int i;

	if (d->sync && !d->stopped)
		nic_sync_stop(nic, t - min(t, nic_sync_stop_ns(nic)));
	for (i = d->npend; i < d->nr; i++)
		d->pend[i] = nic_read_cntr(nic, i, t);
	d->npend = 0;
	d->stopped = false;
	if (!store)
		return;
	nic_diag_settle(nic);
	*(__le32 *)(slot + NIC_SWS_SAMPLE_ID) = cpu_to_le32((u32)k);
	*(__le32 *)(slot + NIC_SWS_SAMPLE_ID + 4) = 0;
	*(__le64 *)(slot + NIC_SWS_TS_FIRST) = cpu_to_le64(t);
	*(__le64 *)(slot + NIC_SWS_TS_LAST) =
		cpu_to_le64(t + nic_entry_lag(nic, d->nr - 1));
	for (i = 0; i < d->nr; i++)
		*(__le64 *)(slot + NIC_SWS_VALUES + 8 * i) = cpu_to_le64(d->pend[i]);
}

/* Is sample @k complete by sim time @now? */
static bool nic_sample_done(const struct sim_nic *nic, u64 k, u64 now)
{
	return nic_sample_ns(nic, k) + nic_entry_lag(nic, nic->diag.nr - 1) <= now;
}

/* How many samples from @taken on are complete by @now (at most @max). */
static u64 nic_samples_due(const struct sim_nic *nic, u64 now, u64 max)
{
	const struct nic_diag *d = &nic->diag;
	u64 periods, lo = 0, hi;

	/* no more than the periods since the epoch, plus one for rounding */
	periods = (nic_ns_clk(nic, now - d->epoch_ns) >> d->log_period) + 1;
	hi = periods > d->taken - d->epoch_k ? periods - (d->taken - d->epoch_k) : 0;
	hi = min(hi, max);

	/* the first that is not complete, by bisection: times only grow */
	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (nic_sample_done(nic, nic->diag.taken + mid, now))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * nic_diag_catch_up() - take the samples that fell due up to @now
 * @nic: the NIC
 * @now: sim time
 *
 * Called with sd->lock held, as the NIC's &sim_unit.tick.
 */
void nic_diag_catch_up(struct sim_nic *nic, u64 now)
{
	struct nic_diag *d = &nic->diag;
	u64 n = nic_nsamples(d), due, k;

	if (d->state != NIC_STATE_RUNNING || d->mode == NIC_MODE_ON_DEMAND ||
	    d->stalled)
		goto out;
	if (d->mode == NIC_MODE_SINGLE)
		due = nic_samples_due(nic, now, d->taken < n ? n - d->taken : 0);
	else
		due = nic_samples_due(nic, now, U64_MAX);
	k = d->taken;
	if (due > n) {
		u64 first = k + due - n;

		/*
		 * Only the last n stay: the one before them sets them up.
		 * With sync and no clear, every stop before them counts
		 * (a catch-up costs a take per sample).
		 */
		k = d->sync && !d->clear ? k : first - 1;
		if (k != d->taken)	/* the one being collected is skipped */
			d->npend = 0;
		for (; k < first; k++)
			nic_take(nic, k, nic_sample_ns(nic, k), false);
		due = n;
	}
	for (; due; due--, k++)
		nic_take(nic, k, nic_sample_ns(nic, k), true);
	d->taken = k;
	/* sync: the next sample's counters may be stopped already */
	if (d->sync && !d->stopped &&
	    (d->mode != NIC_MODE_SINGLE || d->taken < n)) {
		u64 t = nic_sample_ns(nic, d->taken) - nic_sync_stop_ns(nic);

		if (t <= now)
			nic_sync_stop(nic, t);
	}
	/*
	 * Without sync, the counters of the next sample whose read time has
	 * come are read now: the flows are about to run up to @now, and an
	 * event after a counter's read belongs to the sample after.
	 */
	if (!d->sync && (d->mode != NIC_MODE_SINGLE || d->taken < n)) {
		u64 t = nic_sample_ns(nic, d->taken);

		while (d->npend < d->nr &&
		       t + nic_entry_lag(nic, d->npend) <= now) {
			d->pend[d->npend] = nic_read_cntr(nic, d->npend, t);
			d->npend++;
		}
	}
out:
	nic_flows_run(nic, now);
}

/*
 * Starts collection: counters measure from the time the command's access
 * brought the NIC up to (their values are as of then, not of a later
 * sim_now()).
 */
static void nic_diag_start(struct sim_nic *nic)
{
	struct nic_diag *d = &nic->diag;
	u64 now = nic->unit.last_ns;
	unsigned int i;

	d->state = NIC_STATE_RUNNING;
	d->stopped = false;
	d->npend = 0;
	d->epoch_ns = now;
	d->epoch_k = 0;
	d->taken = 0;
	d->read = 0;
	nic_diag_settle(nic);
	memset(d->ring, 0, nic_ring_bytes(d));
	for (i = 0; i < d->nr; i++) {
		d->base[i] = nic->val[d->idx[i]];
		if (nic_cntr_is_stat(nic, d->idx[i]))
			nic_stat_reset(nic, d->idx[i]);
	}
}

/* Back to Idle, with nothing configured. */
static void nic_diag_stop(struct sim_nic *nic)
{
	struct nic_diag *d = &nic->diag;

	nic_diag_settle(nic);
	d->state = NIC_STATE_IDLE;
	d->nr = 0;
	d->taken = 0;
	d->read = 0;
	d->stalled = false;
	d->stopped = false;
	d->npend = 0;
}

/**
 * struct nic_cfg - a configuration of the engine, before it is applied
 * @mode: NIC_MODE_*
 * @sync: synchronized start
 * @clear: clear per period
 * @log_samples: buffer size, log2 samples
 * @log_period: requested period, log2 clocks
 */
struct nic_cfg {
	u8 mode;
	bool sync;
	bool clear;
	u8 log_samples;
	u8 log_period;
};

/*
 * The period for @nr counters: the request, at least the minimum, and
 * long enough to collect them all.  More than NIC_MAX_LOG_PERIOD: none.
 */
static int nic_actual_log_period(const struct sim_nic *nic, u8 req,
				 unsigned int nr, bool sync)
{
	unsigned int need = order_base_2(max(nr, 1U) * NIC_CLK_PER_CNTR) + sync;
	unsigned int lp = max3((unsigned int)req, nic->log_min_period, need);

	return lp > NIC_MAX_LOG_PERIOD ? -1 : lp;
}

/*
 * Checks a configuration with the counters of @cntr (indexes into
 * &sim_nic.cntrs, or -ENOENT for an ID the device does not have).
 * Returns NIC_DIAG_ERR_* with the failing index in @fail.
 */
static int nic_cfg_check(const struct sim_nic *nic, const struct nic_cfg *cfg,
			 const int *cntr, unsigned int nr, unsigned int *fail)
{
	unsigned int i, j;

	*fail = NIC_SYND_NO_INDEX;
	if (cfg->clear && !cfg->sync)
		return NIC_DIAG_ERR_MODE;
	if (cfg->mode == NIC_MODE_ON_DEMAND && (cfg->sync || cfg->clear))
		return NIC_DIAG_ERR_MODE;
	if (!nr || nr > nic->diag.cap)
		return NIC_DIAG_ERR_COUNT;
	if (cfg->mode != NIC_MODE_ON_DEMAND &&
	    (cfg->log_samples > NIC_MAX_LOG_SAMPLES ||
	     ((u64)nr << cfg->log_samples) > nic->diag.cap))
		return NIC_DIAG_ERR_CAPACITY;
	if (cfg->log_period > NIC_MAX_LOG_PERIOD ||
	    nic_actual_log_period(nic, cfg->log_period, nr, cfg->sync) < 0)
		return NIC_DIAG_ERR_PERIOD;
	for (i = 0; i < nr; i++) {
		*fail = i;
		if (cntr[i] < 0)
			return NIC_DIAG_ERR_UNKNOWN_ID;
		for (j = 0; j < i; j++)
			if (cntr[j] == cntr[i])
				return NIC_DIAG_ERR_DUPLICATE;
		if (cfg->sync && !nic_rows[nic->cntrs[cntr[i]].row].sync)
			return NIC_DIAG_ERR_NO_SYNC;
	}
	*fail = NIC_SYND_NO_INDEX;
	return NIC_DIAG_ERR_NONE;
}

/* Takes a checked configuration: the engine is Ready, not yet running. */
static void nic_cfg_apply(struct sim_nic *nic, const struct nic_cfg *cfg,
			  const int *cntr, unsigned int nr)
{
	struct nic_diag *d = &nic->diag;
	unsigned int i;

	nic_diag_settle(nic);
	d->mode = cfg->mode;
	d->sync = cfg->sync;
	d->clear = cfg->clear;
	d->log_samples = cfg->mode == NIC_MODE_ON_DEMAND ? 0 : cfg->log_samples;
	d->log_period_req = cfg->log_period;
	d->log_period = nic_actual_log_period(nic, cfg->log_period, nr,
					      cfg->sync);
	d->nr = nr;
	for (i = 0; i < nr; i++)
		d->idx[i] = cntr[i];
	d->state = NIC_STATE_READY;
}

/* May the command's user drive the engine?  (no owner, or the owner) */
static bool nic_may_drive(const struct nic_cmd *c)
{
	const struct nic_diag *d = &c->pf->nic->diag;

	return d->owner_pf < 0 ||
	       (d->owner_pf == c->pf->pf && d->owner_uid == c->uid);
}

/* Fails a command with @st and NIC_SYND(@reason, @index). */
static int nic_fail(struct nic_cmd *c, int st, unsigned int reason,
		    unsigned int index)
{
	c->synd = NIC_SYND(reason, index);
	return st;
}

/* ---- mlx5 PRM commands ---------------------------------------------------- */

static int nic_set_diag_params(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	const u8 *in = c->in;
	u32 nr = nic_get(in, NIC_DIAG_NUM_CNTRS);
	bool single = nic_get(in, NIC_DIAG_SINGLE);
	bool rep = nic_get(in, NIC_DIAG_REPETITIVE);
	bool od = nic_get(in, NIC_DIAG_ON_DEMAND);
	struct nic_cfg cfg = {
		.sync = nic_get(in, NIC_DIAG_SYNC),
		.clear = nic_get(in, NIC_DIAG_CLEAR),
		.log_samples = nic_get(in, NIC_DIAG_LOG_NUM_SAMPLES),
		.log_period = nic_get(in, NIC_DIAG_LOG_PERIOD),
	};
	unsigned int i, fail;
	int st, err, *cntr;

	st = nic_cmd_lens(c, NIC_DIAG_PARAMS_LEN(0), NIC_HDR_OUT_LEN);
	if (!st && c->in_len < NIC_DIAG_PARAMS_LEN(nr))
		st = NIC_STAT_BAD_INP_LEN;
	if (st)
		return st;
	if (!nic_may_drive(c))
		return nic_fail(c, NIC_STAT_RES_BUSY, NIC_DIAG_ERR_OWNER,
				NIC_SYND_NO_INDEX);
	if (!nic_get(in, NIC_DIAG_ENABLE)) {
		nic_diag_stop(nic);
		return NIC_STAT_OK;
	}
	/*
	 * Repetitive excludes single and on-demand; single with on-demand
	 * (as FreeBSD sets them) is on-demand.
	 */
	if (rep && (single || od))
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_MODE,
				NIC_SYND_NO_INDEX);
	if (od)
		cfg.mode = NIC_MODE_ON_DEMAND;
	else if (rep)
		cfg.mode = NIC_MODE_REPETITIVE;
	else if (single)
		cfg.mode = NIC_MODE_SINGLE;
	else
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_MODE,
				NIC_SYND_NO_INDEX);
	if (nr > nic->diag.cap)
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_COUNT,
				NIC_SYND_NO_INDEX);

	/* the counter list, resolved, in the engine's scratch: no allocation */
	cntr = (int *)nic->diag.scratch;
	for (i = 0; i < nr; i++)
		cntr[i] = nic_cntr_by_cid(nic, nic_get(in, NIC_DIAG_CNTR_ID(i)));
	err = nic_cfg_check(nic, &cfg, cntr, nr, &fail);
	if (err)
		return nic_fail(c, NIC_STAT_BAD_PARAM, err, fail);
	nic_cfg_apply(nic, &cfg, cntr, nr);
	nic_diag_start(nic);
	return NIC_STAT_OK;
}

static int nic_query_diag_params(struct nic_cmd *c)
{
	const struct nic_diag *d = &c->pf->nic->diag;
	const struct sim_nic *nic = c->pf->nic;
	u8 *out = c->out;
	unsigned int i, fit;
	int st;

	st = nic_cmd_lens(c, NIC_HDR_IN_LEN, NIC_DIAG_PARAMS_LEN(0));
	if (st)
		return st;
	nic_set(out, NIC_DIAG_NUM_CNTRS, d->nr);
	nic_set(out, NIC_DIAG_LOG_NUM_SAMPLES, d->log_samples);
	nic_set(out, NIC_DIAG_SINGLE, d->nr && d->mode == NIC_MODE_SINGLE);
	nic_set(out, NIC_DIAG_REPETITIVE, d->nr && d->mode == NIC_MODE_REPETITIVE);
	nic_set(out, NIC_DIAG_ON_DEMAND, d->nr && d->mode == NIC_MODE_ON_DEMAND);
	nic_set(out, NIC_DIAG_SYNC, d->nr && d->sync);
	nic_set(out, NIC_DIAG_CLEAR, d->nr && d->clear);
	nic_set(out, NIC_DIAG_ENABLE, d->state == NIC_STATE_RUNNING);
	nic_set(out, NIC_DIAG_LOG_PERIOD, d->nr ? d->log_period : 0);
	/* as many counter_ids as the output takes; num_of_counters says all */
	fit = min((c->out_len - NIC_DIAG_PARAMS_LEN(0)) / 4, d->nr);
	for (i = 0; i < fit; i++)
		nic_set(out, NIC_DIAG_CNTR_ID(i), nic->cntrs[d->idx[i]].cid);
	c->len = NIC_DIAG_PARAMS_LEN(fit);
	return NIC_STAT_OK;
}

/* One 16-byte record: counter @i of the sample in slot @s (number @k). */
static void nic_put_rec(struct nic_cmd *c, unsigned int line, unsigned int i,
			u64 k, unsigned int s, bool valid)
{
	const struct sim_nic *nic = c->pf->nic;
	const struct nic_diag *d = &nic->diag;
	u8 *rec = c->out + NIC_DIAG_REC(line);

	nic_set(rec, NIC_DIAG_REC_CNTR_ID, nic->cntrs[d->idx[i]].cid);
	if (!valid)
		return;
	nic_set(rec, NIC_DIAG_REC_SAMPLE_ID, (u16)k);
	nic_set(rec, NIC_DIAG_REC_TIMESTAMP,
		(u32)nic_ns_clk(nic, nic_slot_ts(d, s) + nic_entry_lag(nic, i)));
	nic_set64(rec, NIC_DIAG_REC_VALUE, nic_slot_val(d, s, i));
}

/* Is there a sample in slot @s, and which one? */
static bool nic_slot_sample(const struct nic_diag *d, unsigned int s, u64 *k)
{
	u64 n = nic_nsamples(d), first = d->taken > n ? d->taken - n : 0;
	u64 cand;

	if (!d->taken)
		return false;
	/* the newest sample k < taken with k % n == s */
	cand = d->taken - 1 - ((d->taken - 1 - s) & (n - 1));
	if (d->taken - 1 < s || cand < first)
		return false;
	*k = cand;
	return true;
}

static int nic_query_diag_counters(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	struct nic_diag *d = &nic->diag;
	u32 lines = nic_get(c->in, NIC_DIAG_Q_NUM_SAMPLES);
	u32 index = nic_get(c->in, NIC_DIAG_Q_SAMPLE_INDEX);
	unsigned int m, i, s, line = 0;
	u64 k;
	int st;

	st = nic_cmd_lens(c, NIC_DIAG_Q_IN_LEN, NIC_HDR_OUT_LEN);
	if (st)
		return st;
	if (d->state != NIC_STATE_RUNNING)
		return nic_fail(c, NIC_STAT_BAD_SYS_STATE, NIC_DIAG_ERR_STATE,
				NIC_SYND_NO_INDEX);
	if (d->mode == NIC_MODE_ON_DEMAND) {
		/*
		 * One fresh sample, whatever the index: taking it drives the
		 * engine (its sample_id sequence is everyone's), so with an
		 * owner only the owner may, as on the extension's read path.
		 * Reading buffered samples changes nothing: anyone may.
		 */
		if (!nic_may_drive(c))
			return nic_fail(c, NIC_STAT_RES_BUSY, NIC_DIAG_ERR_OWNER,
					NIC_SYND_NO_INDEX);
		if (lines < d->nr)
			return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_COUNT,
					NIC_SYND_NO_INDEX);
		if (c->out_len < NIC_DIAG_REC(d->nr))
			return NIC_STAT_BAD_OUTP_LEN;
		k = d->taken++;
		nic_take(nic, k, sim_now(nic->sd), true);
		for (i = 0; i < d->nr; i++)
			nic_put_rec(c, i, i, k, 0, true);
		c->len = NIC_DIAG_REC(d->nr);
		return NIC_STAT_OK;
	}
	/* lines are whole samples, from a slot of the buffer, rolling over */
	if (!lines || lines % d->nr || lines / d->nr > nic_nsamples(d))
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_COUNT,
				NIC_SYND_NO_INDEX);
	if (index >= nic_nsamples(d))
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_CAPACITY,
				NIC_SYND_NO_INDEX);
	if (c->out_len < NIC_DIAG_REC(lines))
		return NIC_STAT_BAD_OUTP_LEN;
	for (m = 0; m < lines / d->nr; m++) {
		bool valid;

		s = (index + m) & (nic_nsamples(d) - 1);
		valid = nic_slot_sample(d, s, &k);
		for (i = 0; i < d->nr; i++)
			nic_put_rec(c, line++, i, k, s, valid);
	}
	c->len = NIC_DIAG_REC(lines);
	return NIC_STAT_OK;
}

/* ---- the extension: DOCA-level commands ---------------------------------- */

/*
 * Only the owner, through its PF: a user's uid, or uid 0 once the
 * kernel's driver took the engine (fwctl never sends uid 0).
 */
static int nic_ext_owner_only(struct nic_cmd *c)
{
	const struct nic_diag *d = &c->pf->nic->diag;

	if (d->owner_pf != (int)c->pf->pf || d->owner_uid != c->uid)
		return nic_fail(c, NIC_STAT_RES_BUSY, NIC_DIAG_ERR_OWNER,
				NIC_SYND_NO_INDEX);
	return NIC_STAT_OK;
}

static int nic_ext_bad_state(struct nic_cmd *c)
{
	return nic_fail(c, NIC_STAT_BAD_SYS_STATE, NIC_DIAG_ERR_STATE,
			NIC_SYND_NO_INDEX);
}

static int nic_ext_query_ids(struct nic_cmd *c)
{
	const struct sim_nic *nic = c->pf->nic;
	u32 start = nic_get(c->in, NIC_EXT_IDS_START);
	u32 max = nic_get(c->in, NIC_EXT_IDS_MAX), n, i;
	int st;

	st = nic_cmd_lens(c, NIC_EXT_IDS_IN_LEN, NIC_HDR_OUT_LEN);
	if (st)
		return st;
	n = start < nic->nr_cntrs ? nic->nr_cntrs - start : 0;
	n = min3(n, max, (c->out_len - NIC_HDR_OUT_LEN) / NIC_EXT_ID_LEN);
	nic_set(c->out, NIC_EXT_IDS_TOTAL, nic->nr_cntrs);
	nic_set(c->out, NIC_EXT_IDS_RETURNED, n);
	for (i = 0; i < n; i++) {
		const struct nic_cntr *cn = &nic->cntrs[start + i];
		u8 *e = c->out + NIC_EXT_ID(i);

		nic_set64(e, NIC_EXT_ID_DATA_ID, cn->id);
		nic_set(e, NIC_EXT_ID_SYNC, nic_rows[cn->row].sync);
		nic_set(e, NIC_EXT_ID_STAT, nic_rows[cn->row].stat);
		nic_set(e, NIC_EXT_ID_PARAM, nic_rows[cn->row].param);
		nic_set(e, NIC_EXT_ID_CNTR_ID, cn->cid);
	}
	c->len = NIC_EXT_ID(n);
	return NIC_STAT_OK;
}

/*
 * One owner per device, whichever PF it came through; force takes it
 * from another, whose engine then stops.  Destroying the owner's uid
 * releases it (nic_diag_release()).
 */
static int nic_ext_ownership(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	struct nic_diag *d = &nic->diag;
	u16 op_mod = nic_get(c->in, NIC_HDR_OP_MOD);
	bool mine = d->owner_pf == (int)c->pf->pf && d->owner_uid == c->uid;
	int st;

	st = nic_cmd_lens(c, NIC_HDR_IN_LEN, NIC_HDR_OUT_LEN);
	if (st)
		return st;
	if (op_mod > NIC_OWN_RELEASE)
		return NIC_STAT_BAD_PARAM;
	nic_set(c->out, NIC_EXT_OWN_PREV_VALID, d->owner_pf >= 0);
	nic_set(c->out, NIC_EXT_OWN_PREV_PF, d->owner_pf >= 0 ? d->owner_pf : 0);
	nic_set(c->out, NIC_EXT_OWN_PREV_UID, d->owner_uid);
	if (op_mod == NIC_OWN_RELEASE) {
		if (!mine)
			return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_OWNER,
					NIC_SYND_NO_INDEX);
		nic_diag_release(nic, c->pf->pf, c->uid);
		return NIC_STAT_OK;
	}
	if (mine)
		return NIC_STAT_OK;
	/* uid 0, the kernel, is never forced out: it cannot be told */
	if (d->owner_pf >= 0 &&
	    (!nic_get(c->in, NIC_EXT_OWN_FORCE) || !d->owner_uid))
		return nic_fail(c, NIC_STAT_RES_BUSY, NIC_DIAG_ERR_OWNER,
				NIC_SYND_NO_INDEX);
	/* a new owner starts from Idle */
	nic_diag_stop(nic);
	d->owner_pf = c->pf->pf;
	d->owner_uid = c->uid;
	return NIC_STAT_OK;
}

/* Clocks of @ns, rounded up to a power of two: log2, or -1 if too long. */
static int nic_ns_log_period(const struct sim_nic *nic, u64 ns)
{
	u64 clk;

	/* 2^50 ns is 13 days, more than 2^35 clocks of the slowest clock */
	if (ns > BIT_ULL(50))
		return -1;
	clk = nic_ns_clk(nic, ns);
	if (nic_clk_ns(nic, clk) < ns)
		clk++;
	if (clk > BIT_ULL(NIC_MAX_LOG_PERIOD))
		return -1;
	return clk ? order_base_2(clk) : 0;
}

static int nic_ext_set_config(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	struct nic_diag *d = &nic->diag;
	const u8 *in = c->in;
	u32 mode = nic_get(in, NIC_EXT_CFG_MODE);
	u32 format = nic_get(in, NIC_EXT_CFG_FORMAT);
	bool sync = nic_get(in, NIC_EXT_CFG_SYNC);
	bool clear = nic_get(in, NIC_EXT_CFG_CLEAR);
	u32 log_samples = nic_get(in, NIC_EXT_CFG_LOG_SAMPLES);
	u32 max_ids = nic_get(in, NIC_EXT_CFG_MAX_IDS);
	int st, lp;

	st = nic_cmd_lens(c, NIC_EXT_CFG_IN_LEN, NIC_HDR_OUT_LEN);
	if (!st)
		st = nic_ext_owner_only(c);
	if (st)
		return st;
	if (d->state != NIC_STATE_IDLE)
		return nic_ext_bad_state(c);
	if (mode > NIC_MODE_ON_DEMAND || (clear && !sync) ||
	    (mode == NIC_MODE_ON_DEMAND && (sync || clear)))
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_MODE,
				NIC_SYND_NO_INDEX);
	if (format > 2)
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_FORMAT,
				NIC_SYND_NO_INDEX);
	lp = nic_ns_log_period(nic, nic_get64(in, NIC_EXT_CFG_PERIOD_NS));
	if (lp < 0)
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_PERIOD,
				NIC_SYND_NO_INDEX);
	if (!max_ids || max_ids > d->cap || max_ids > nic->nr_cntrs)
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_COUNT,
				NIC_SYND_NO_INDEX);
	if (mode != NIC_MODE_ON_DEMAND &&
	    (log_samples > NIC_MAX_LOG_SAMPLES ||
	     ((u64)max_ids << log_samples) > d->cap))
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_CAPACITY,
				NIC_SYND_NO_INDEX);
	nic_diag_settle(nic);
	d->mode = mode;
	d->format = format;
	d->sync = sync;
	d->clear = clear;
	d->log_samples = mode == NIC_MODE_ON_DEMAND ? 0 : log_samples;
	d->log_period_req = lp;
	d->max_ids = max_ids;
	d->nr = 0;
	d->state = NIC_STATE_CONFIGURED;
	return NIC_STAT_OK;
}

static u32 nic_sample_size(const struct nic_diag *d)
{
	switch (d->format) {
	case 1:
		return NIC_FMT1_SIZE(d->nr);
	case 2:
		return NIC_FMT2_SIZE(d->nr);
	}
	return NIC_FMT0_SIZE(d->nr);
}

static int nic_ext_apply_ids(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	struct nic_diag *d = &nic->diag;
	u32 nr = nic_get(c->in, NIC_EXT_APPLY_NUM);
	struct nic_cfg cfg = {
		.mode = d->mode, .sync = d->sync, .clear = d->clear,
		.log_samples = d->log_samples, .log_period = d->log_period_req,
	};
	unsigned int i, fail;
	int st, err, *cntr;

	st = nic_cmd_lens(c, NIC_EXT_APPLY_IN_LEN(0), NIC_EXT_APPLY_OUT_LEN);
	if (!st && (nr > NIC_INBOX_SIZE ||
		    c->in_len < NIC_EXT_APPLY_IN_LEN(nr)))
		st = NIC_STAT_BAD_INP_LEN;
	if (!st)
		st = nic_ext_owner_only(c);
	if (st)
		return st;
	if (d->state != NIC_STATE_CONFIGURED)
		return nic_ext_bad_state(c);
	if (!nr || nr > d->max_ids)
		return nic_fail(c, NIC_STAT_BAD_PARAM, NIC_DIAG_ERR_COUNT,
				nr ? d->max_ids : NIC_SYND_NO_INDEX);
	cntr = (int *)d->scratch;
	for (i = 0; i < nr; i++)
		cntr[i] = nic_cntr_by_id(nic, nic_get64(c->in, NIC_EXT_APPLY_ID(i)));
	err = nic_cfg_check(nic, &cfg, cntr, nr, &fail);
	if (err)
		return nic_fail(c, NIC_STAT_BAD_PARAM, err, fail);
	nic_cfg_apply(nic, &cfg, cntr, nr);
	nic_set64(c->out, NIC_EXT_APPLY_PERIOD_NS,
		  nic_clk_ns(nic, BIT_ULL(d->log_period)));
	nic_set(c->out, NIC_EXT_APPLY_LOG_PERIOD, d->log_period);
	nic_set(c->out, NIC_EXT_APPLY_SAMPLE_SIZE, nic_sample_size(d));
	c->len = NIC_EXT_APPLY_OUT_LEN;
	return NIC_STAT_OK;
}

/* START, STOP and RESTART: the transitions of DOCA's section 7. */
static int nic_ext_transition(struct nic_cmd *c, u16 opcode)
{
	struct sim_nic *nic = c->pf->nic;
	struct nic_diag *d = &nic->diag;
	int st;

	st = nic_cmd_lens(c, NIC_HDR_IN_LEN, NIC_HDR_OUT_LEN);
	if (!st)
		st = nic_ext_owner_only(c);
	if (st)
		return st;
	switch (opcode) {
	case NIC_OP_EXT_START:
		if (d->state != NIC_STATE_READY)
			return nic_ext_bad_state(c);
		break;
	case NIC_OP_EXT_RESTART:
		if (d->state != NIC_STATE_RUNNING || d->mode != NIC_MODE_SINGLE)
			return nic_ext_bad_state(c);
		break;
	default:	/* STOP */
		if (d->state == NIC_STATE_IDLE)
			return nic_ext_bad_state(c);
		nic_diag_stop(nic);
		return NIC_STAT_OK;
	}
	nic_diag_start(nic);
	return NIC_STAT_OK;
}

static int nic_ext_query_state(struct nic_cmd *c)
{
	const struct sim_nic *nic = c->pf->nic;
	const struct nic_diag *d = &nic->diag;
	u8 *out = c->out;
	int st;

	st = nic_cmd_lens(c, NIC_HDR_IN_LEN, NIC_EXT_STATE_OUT_LEN);
	if (st)
		return st;
	nic_set(out, NIC_EXT_STATE_STATE, d->state);
	nic_set(out, NIC_EXT_STATE_MODE, d->mode);
	nic_set(out, NIC_EXT_STATE_FORMAT, d->format);
	nic_set(out, NIC_EXT_STATE_SYNC, d->sync);
	nic_set(out, NIC_EXT_STATE_CLEAR, d->clear);
	nic_set(out, NIC_EXT_STATE_LOG_SAMPLES, d->log_samples);
	nic_set(out, NIC_EXT_STATE_LOG_PERIOD,
		d->nr ? d->log_period : d->log_period_req);
	nic_set(out, NIC_EXT_STATE_NUM_IDS, d->nr);
	nic_set(out, NIC_EXT_STATE_OWNED, d->owner_pf >= 0);
	nic_set(out, NIC_EXT_STATE_OWNER_PF, d->owner_pf >= 0 ? d->owner_pf : 0);
	nic_set(out, NIC_EXT_STATE_OWNER_UID, d->owner_uid);
	nic_set(out, NIC_EXT_STATE_MAX_IDS, d->max_ids);
	nic_set64(out, NIC_EXT_STATE_TAKEN, d->taken);
	nic_set64(out, NIC_EXT_STATE_READ, d->read);
	nic_set64(out, NIC_EXT_STATE_PERIOD_NS, d->nr ?
		  nic_clk_ns(nic, BIT_ULL(d->log_period)) : 0);
	c->len = NIC_EXT_STATE_OUT_LEN;
	return NIC_STAT_OK;
}

/* Sample @k (in slot @s) at byte @p of the output, in the engine's format. */
static void nic_put_sample(const struct sim_nic *nic, u8 *p, u64 k,
			   unsigned int s)
{
	const struct nic_diag *d = &nic->diag;
	u64 t0 = nic_slot_ts(d, s), t1 = t0 + nic_entry_lag(nic, d->nr - 1);
	unsigned int i;

	nic_be32_set(p, 0, (u32)k);
	if (d->format == 0) {
		nic_be32_set(p, 4, 0);
		for (i = 0; i < d->nr; i++) {
			u8 *e = p + 8 + 24 * i;
			u64 t = t0 + nic_entry_lag(nic, i);

			nic_set64(e, 0, nic->cntrs[d->idx[i]].id);
			nic_set64(e, 64, t);
			nic_set64(e, 128, nic_slot_val(d, s, i));
		}
		return;
	}
	nic_set64(p, 32, t0);
	nic_be32_set(p, 12, (u32)t1);
	for (i = 0; i < d->nr; i++) {
		if (d->format == 1)
			nic_set64(p + 16 + 8 * i, 0, nic_slot_val(d, s, i));
		else
			nic_be32_set(p + 16 + 4 * i, 0, (u32)nic_slot_val(d, s, i));
	}
}

/*
 * The samples the owner has not read, oldest first, with the count of
 * those overwritten before it could.  On demand: one fresh sample.
 */
static int nic_ext_query_samples(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	struct nic_diag *d = &nic->diag;
	u32 max = nic_get(c->in, NIC_EXT_SMP_MAX), size, fit, n, i;
	u64 oldest, lost = 0, avail;
	int st;

	st = nic_cmd_lens(c, NIC_HDR_IN_LEN, NIC_EXT_SMP_HDR_LEN);
	if (!st)
		st = nic_ext_owner_only(c);
	if (st)
		return st;
	if (d->state != NIC_STATE_RUNNING)
		return nic_ext_bad_state(c);
	size = nic_sample_size(d);
	fit = (c->out_len - NIC_EXT_SMP_HDR_LEN) / size;
	if (d->mode == NIC_MODE_ON_DEMAND) {
		avail = 1;
		n = min3(max, fit, 1U);
		if (n) {
			nic_take(nic, d->taken, sim_now(nic->sd), true);
			d->taken++;
			d->read = d->taken;
			nic_put_sample(nic, c->out + NIC_EXT_SMP_HDR_LEN,
				       d->taken - 1, 0);
		}
	} else {
		oldest = d->taken > nic_nsamples(d) ? d->taken - nic_nsamples(d) : 0;
		if (d->read < oldest) {
			lost = oldest - d->read;
			d->read = oldest;
		}
		avail = d->taken - d->read;
		n = min3((u64)max, (u64)fit, avail);
		for (i = 0; i < n; i++) {
			u64 k = d->read + i;

			nic_put_sample(nic, c->out + NIC_EXT_SMP_HDR_LEN + i * size,
				       k, k & (nic_nsamples(d) - 1));
		}
		d->read += n;
	}
	nic_set(c->out, NIC_EXT_SMP_RETURNED, n);
	nic_set(c->out, NIC_EXT_SMP_LOST, min_t(u64, lost, U32_MAX));
	nic_set(c->out, NIC_EXT_SMP_SIZE, size);
	nic_set(c->out, NIC_EXT_SMP_AVAILABLE, min_t(u64, avail, U32_MAX));
	c->len = NIC_EXT_SMP_HDR_LEN + n * size;
	return NIC_STAT_OK;
}

/**
 * nic_diag_period_ns() - the applied sample period (NIC_SW_PERIOD_NS)
 * @nic: the NIC
 *
 * Return: ns, 0 while nothing is applied.
 */
u64 nic_diag_period_ns(const struct sim_nic *nic)
{
	return nic->diag.nr ? nic_clk_ns(nic, BIT_ULL(nic->diag.log_period)) : 0;
}

/**
 * nic_diag_window_copy() - memcpy_fromio() of a PF's sample window
 * @pf: the PF
 * @off: byte offset in the window
 * @buf: where to
 * @len: bytes; @off + @len within the window
 *
 * The samples of the last NIC_SW_READ come straight from the engine's
 * buffer (one copy, as a device's DMA window would cost); bytes past
 * them from the window itself.  Called with sd->lock held.
 */
void nic_diag_window_copy(struct sim_nic_pf *pf, u32 off, void *buf, size_t len)
{
	const struct nic_diag *d = &pf->nic->diag;

	if (pf->sw_lazy &&
	    off + len <= (size_t)pf->sw_returned * NIC_SWS_SIZE(d->nr)) {
		nic_ring_copy(d, pf->sw_first, off, buf, len);
		return;
	}
	nic_diag_window_fill(pf);
	memcpy(buf, pf->swin + off, len);
}

/**
 * nic_diag_window() - NIC_SW_READ: hand unread samples to a PF's window
 * @nic: the NIC, brought up to sim time by the register access
 * @pf: the PF whose window and registers get them
 * @max: most samples to hand over
 *
 * The samples the engine's reader has not read, oldest first, as many
 * as @max and the window allow; they count as read, the rest stay.
 * Those the engine overwrote before (repetitive mode) are reported once,
 * as a count and the first one's sample_id.  Nothing is copied here (see
 * nic_diag_window_fill()): no counter, flow or sample is walked.  Called
 * with sd->lock held.
 */
void nic_diag_window(struct sim_nic *nic, struct sim_nic_pf *pf, u32 max)
{
	struct nic_diag *d = &nic->diag;
	u64 n = nic_nsamples(d), oldest, lost = 0, first = 0, avail = 0;
	u32 size = NIC_SWS_SIZE(d->nr), got = 0;

	nic_diag_window_fill(pf);
	if (d->state == NIC_STATE_RUNNING && d->mode != NIC_MODE_ON_DEMAND) {
		oldest = d->taken > n ? d->taken - n : 0;
		if (d->read < oldest) {
			lost = oldest - d->read;
			first = d->read;
			d->read = oldest;
		}
		avail = d->taken - d->read;
		got = min3((u64)max, (u64)(NIC_SWIN_SIZE / size), avail);
		pf->sw_first = d->read;
		pf->sw_lazy = got;
		d->read += got;
		avail -= got;
	}
	pf->sw_returned = got;
	pf->sw_lost = min_t(u64, lost, U32_MAX);
	pf->sw_lost_first = (u32)first;
	pf->sw_avail = min_t(u64, avail, U32_MAX);
	pf->sw_next = (u32)d->read;
}

/**
 * nic_diag_skip() - NIC_SW_SKIP: count every unread sample as read
 * @nic: the NIC, brought up to sim time by the register access
 * @pf: the PF whose registers latch the outcome
 *
 * For a reader that starts now: the samples taken before are dropped,
 * none reported lost, and NIC_SW_NEXT says which sample comes first.
 * Called with sd->lock held.
 */
void nic_diag_skip(struct sim_nic *nic, struct sim_nic_pf *pf)
{
	struct nic_diag *d = &nic->diag;

	if (d->state == NIC_STATE_RUNNING && d->mode != NIC_MODE_ON_DEMAND)
		d->read = d->taken;
	pf->sw_returned = 0;
	pf->sw_lost = 0;
	pf->sw_lost_first = 0;
	pf->sw_avail = 0;
	pf->sw_next = (u32)d->read;
}

/**
 * nic_cmd_diag() - run a diagnostic command
 * @c: the command
 * @opcode: its opcode
 *
 * Return: the firmware status, or -1 if @opcode is not one of these.
 */
int nic_cmd_diag(struct nic_cmd *c, u16 opcode)
{
	switch (opcode) {
	case NIC_OP_SET_DIAGNOSTIC_PARAMS:
		return nic_set_diag_params(c);
	case NIC_OP_QUERY_DIAGNOSTIC_PARAMS:
		return nic_query_diag_params(c);
	case NIC_OP_QUERY_DIAGNOSTIC_COUNTERS:
		return nic_query_diag_counters(c);
	case NIC_OP_EXT_QUERY_DATA_IDS:
		return nic_ext_query_ids(c);
	case NIC_OP_EXT_OWNERSHIP:
		return nic_ext_ownership(c);
	case NIC_OP_EXT_SET_CONFIG:
		return nic_ext_set_config(c);
	case NIC_OP_EXT_APPLY_IDS:
		return nic_ext_apply_ids(c);
	case NIC_OP_EXT_START:
	case NIC_OP_EXT_STOP:
	case NIC_OP_EXT_RESTART:
		return nic_ext_transition(c, opcode);
	case NIC_OP_EXT_QUERY_STATE:
		return nic_ext_query_state(c);
	case NIC_OP_EXT_QUERY_SAMPLES:
		return nic_ext_query_samples(c);
	}
	return -1;
}

/**
 * nic_diag_release() - a uid is destroyed: what it owned is free
 * @nic: the NIC
 * @pf: the uid's PF
 * @uid: the uid
 *
 * The owner's engine stops.  Called with sd->lock held.
 */
void nic_diag_release(struct sim_nic *nic, u32 pf, u16 uid)
{
	struct nic_diag *d = &nic->diag;

	if (d->owner_pf != (int)pf || d->owner_uid != uid)
		return;
	d->owner_pf = -1;
	d->owner_uid = 0;
	nic_diag_stop(nic);
}

/**
 * nic_diag_alloc() - allocate the engine's buffers for the NIC's capacity
 * @nic: the NIC, with its counters
 *
 * Return: 0 or -ENOMEM.
 */
int nic_diag_alloc(struct sim_nic *nic)
{
	struct nic_diag *d = &nic->diag;
	unsigned int cap = 1U << nic->log_max_samples;
	unsigned int ids = min(cap, nic->nr_cntrs);

	d->cap = cap;
	d->owner_pf = -1;
	d->idx = kvcalloc(ids, sizeof(*d->idx), GFP_KERNEL);
	d->base = kvcalloc(ids, sizeof(*d->base), GFP_KERNEL);
	d->snap = kvcalloc(ids, sizeof(*d->snap), GFP_KERNEL);
	d->pend = kvcalloc(ids, sizeof(*d->pend), GFP_KERNEL);
	d->scratch = kvcalloc(cap, sizeof(u64), GFP_KERNEL);
	/* 2^log_samples samples of nr values: nr << log_samples <= cap */
	d->ring = kvcalloc(cap, NIC_SWS_SIZE(1), GFP_KERNEL);
	if (!d->idx || !d->base || !d->snap || !d->pend || !d->scratch ||
	    !d->ring) {
		nic_diag_free(nic);
		return -ENOMEM;
	}
	return 0;
}

/**
 * nic_diag_free() - free what nic_diag_alloc() allocated
 * @nic: the NIC (may be half built)
 */
void nic_diag_free(struct sim_nic *nic)
{
	struct nic_diag *d = &nic->diag;

	kvfree(d->idx);
	kvfree(d->base);
	kvfree(d->snap);
	kvfree(d->pend);
	kvfree(d->scratch);
	kvfree(d->ring);
	d->idx = NULL;
	d->base = NULL;
	d->snap = NULL;
	d->pend = NULL;
	d->scratch = NULL;
	d->ring = NULL;
}

static int nic_stall_get(void *data, u64 *val)
{
	struct sim_nic *nic = data;

	*val = READ_ONCE(nic->diag.stalled);
	return 0;
}

static int nic_stall_set(void *data, u64 val)
{
	struct sim_nic *nic = data;
	struct nic_diag *d = &nic->diag;
	struct sim_dev *sd = nic->sd;
	unsigned long flags;
	u64 now;

	if (val > 1)
		return -EINVAL;
	flags = sim_lock(sd);
	now = sim_now(sd);
	sim_unit_catch_up(sd, &nic->unit, now);
	if (d->stalled && !val) {
		/* collection goes on from now: the next sample a period on */
		d->epoch_ns = now;
		d->epoch_k = d->taken;
	}
	/* stalled, the counters count on: a stop or collection is dropped */
	d->stopped = false;
	d->npend = 0;
	d->stalled = val;
	sim_unlock(sd, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(nic_stall_fops, nic_stall_get, nic_stall_set, "%llu\n");

static int nic_overrun_set(void *data, u64 val)
{
	struct sim_nic *nic = data;
	struct nic_diag *d = &nic->diag;
	struct sim_dev *sd = nic->sd;
	unsigned long flags;
	int ret = 0;
	u64 now;

	if (val > U16_MAX)
		return -EINVAL;
	flags = sim_lock(sd);
	now = sim_now(sd);
	sim_unit_catch_up(sd, &nic->unit, now);
	if (d->state != NIC_STATE_RUNNING || d->mode != NIC_MODE_REPETITIVE) {
		ret = -EBUSY;
	} else {
		for (; val; val--)
			nic_take(nic, d->taken++, now, true);
		/* the schedule goes on after the burst */
		d->epoch_ns = now;
		d->epoch_k = d->taken;
	}
	sim_unlock(sd, flags);
	return ret;
}
DEFINE_DEBUGFS_ATTRIBUTE(nic_overrun_fops, NULL, nic_overrun_set, "%llu\n");

/* Samples the engine took that no reader has had yet (tests wait on it). */
static int nic_unread_get(void *data, u64 *val)
{
	struct sim_nic *nic = data;
	struct sim_dev *sd = nic->sd;
	unsigned long flags;

	flags = sim_lock(sd);
	sim_unit_catch_up(sd, &nic->unit, sim_now(sd));
	*val = nic->diag.taken - nic->diag.read;
	sim_unlock(sd, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(nic_unread_fops, nic_unread_get, NULL, "%llu\n");

/* The engine's owner, as PF << 16 | uid, or -1: nobody. */
static int nic_owner_get(void *data, u64 *val)
{
	struct sim_nic *nic = data;
	struct nic_diag *d = &nic->diag;
	unsigned long flags;

	flags = sim_lock(nic->sd);
	*val = d->owner_pf < 0 ? -1ULL : (u64)d->owner_pf << 16 | d->owner_uid;
	sim_unlock(nic->sd, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(nic_owner_fops, nic_owner_get, NULL, "%lld\n");

/**
 * nic_diag_debugfs() - the engine's test knobs
 * @nic: the NIC
 * @dir: its debugfs directory
 */
void nic_diag_debugfs(struct sim_nic *nic, struct dentry *dir)
{
	debugfs_create_file_unsafe("stall", 0600, dir, nic, &nic_stall_fops);
	debugfs_create_file_unsafe("overrun", 0200, dir, nic, &nic_overrun_fops);
	debugfs_create_file_unsafe("unread", 0400, dir, nic, &nic_unread_fops);
	debugfs_create_file_unsafe("owner", 0400, dir, nic, &nic_owner_fops);
}
