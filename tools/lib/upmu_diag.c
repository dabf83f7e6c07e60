// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_diag: DOCA Telemetry Diagnostics' life cycle over fwctl RPCs in the
 * layouts of hw/nic_cmd.h (Documentation/upmu-diag.rst).
 *
 * Two ways to drive the engine, chosen at create:
 *
 * - The device's extension (NIC_OP_EXT_*), when it answers EXT_QUERY_STATE:
 *   the device keeps the owner (one per device, force, freed when the
 *   owner's file goes), DOCA's state machine, the 64-bit data IDs, the
 *   output formats, 64-bit time stamps, its own read cursor and the count
 *   of the samples it overwrote.  The library passes them through.
 * - The mlx5 PRM commands otherwise (a plain mlx5 device: BAD_OP for the
 *   extension's opcodes).  What the 16-bit layout cannot carry is done
 *   here: 64-bit data IDs map to counter_ids, the 16-bit sample_ids and
 *   32-bit timestamps of the records are extended against a cursor, and
 *   samples are written in DOCA's formats; "owned" means "sampling".
 *
 * Either way, samples fetched from the device go through one ring of the
 * last 2^log_num_samples, in the output format, from which queries hand
 * them out: by the context's cursor (each sample once) or, NVML's way,
 * those newer than a timestamp.  Lost samples are counted, never skipped.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <fwctl/fwctl.h>

#include "hw/nic_cmd.h"
#include "upmu_diag.h"

#define FWCTL_CLASS	"/sys/class/fwctl"
#define MAX_LOG_PERIOD	35	/* PRM: 2^35 clocks at most */

struct upmu_diag {
	struct upmu_diag_transport t;
	enum upmu_diag_state state;
	bool ext;			/* the device has the extension */
	bool observer;			/* upmu_diag_open(): no engine */
	bool lost_owner;		/* another user took the engine over */
	struct upmu_diag_owner prev;	/* whom create took it from */
	unsigned int self_pf, self_uid;	/* this context, to the device */
	/* capabilities */
	uint32_t khz;
	unsigned int log_max_samples;	/* capacity, counter-samples */
	unsigned int log_min_period;
	bool cap_single, cap_repetitive;
	unsigned int nr_dids;		/* the device's data IDs */
	uint64_t *dids;
	bool *dsync;
	/* configuration */
	enum upmu_diag_mode mode;
	uint64_t period_ns;
	bool period_set;
	unsigned int log_samples;
	uint32_t max_per_read;		/* 0: the buffer's, see per_read() */
	uint32_t max_ids;		/* 0: the default */
	bool sync, clear;
	enum upmu_diag_format format;
	unsigned int log_period;	/* requested; the device's once applied */
	bool period_read_back;
	/* applied data IDs */
	unsigned int n;
	uint64_t *ids;
	uint16_t *cids;			/* PRM: their counter_ids */
	size_t size;			/* bytes of a sample */
	uint64_t *vals;			/* scratch: n values */
	/* the ring of fetched samples, oldest first from rhead */
	uint8_t *ring;
	uint64_t *rsid, *rts;		/* sample_id, latest timestamp (ns) */
	unsigned int rcap, rhead, rcount;
	unsigned int unread;		/* the newest ones, not handed out */
	uint64_t next;			/* cursor: next sample_id to hand out */
	uint64_t fetch_sid;		/* extension: next sample_id to fetch */
	uint64_t pend_lost;		/* lost, not reported yet */
	/* PRM fetching */
	struct upmu_diag_cursor cur;
	uint64_t od_sid;		/* on-demand: the next sample_id */
	uint64_t lost_total;
	unsigned int last_status;
	uint32_t last_synd;
};

/* ---- errors ---------------------------------------------------------------- */

const char *upmu_diag_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "success";
	case UPMU_DIAG_EBADSTATE:
		return "not allowed in the context's state";
	case UPMU_DIAG_EBADCONFIG:
		return "data ID cannot take a synchronized start";
	case UPMU_DIAG_EINSUFF:
		return "insufficient buffer size";
	case UPMU_DIAG_EFW:
		return "firmware failed the command";
	case UPMU_DIAG_ENOTSUPP_ID:
		return "data ID not supported by the device";
	case UPMU_DIAG_ELOSTOWNER:
		return "another user took the engine over";
	}
	return strerror(err);
}

int upmu_diag_fw_error(unsigned int status, uint32_t syndrome)
{
	if (status == NIC_STAT_OK)
		return 0;
	switch (NIC_SYND_REASON(syndrome)) {
	case NIC_DIAG_ERR_UNKNOWN_ID:
		return -UPMU_DIAG_ENOTSUPP_ID;
	case NIC_DIAG_ERR_NO_SYNC:
		return -UPMU_DIAG_EBADCONFIG;
	case NIC_DIAG_ERR_DUPLICATE:
		return -EEXIST;
	case NIC_DIAG_ERR_CAPACITY:
	case NIC_DIAG_ERR_COUNT:
		return -E2BIG;
	case NIC_DIAG_ERR_MODE:
	case NIC_DIAG_ERR_FORMAT:
		return -EINVAL;
	case NIC_DIAG_ERR_PERIOD:
		return -ERANGE;
	case NIC_DIAG_ERR_OWNER:
		return -EBUSY;
	case NIC_DIAG_ERR_STATE:
		return -UPMU_DIAG_EBADSTATE;
	}
	switch (status) {
	case NIC_STAT_BAD_OP:
		return -EOPNOTSUPP;
	case NIC_STAT_BAD_PARAM:
		return -EINVAL;
	case NIC_STAT_BAD_SYS_STATE:
	case NIC_STAT_BAD_RES_STATE:
		return -UPMU_DIAG_EBADSTATE;
	case NIC_STAT_RES_BUSY:
		return -EBUSY;
	case NIC_STAT_NOT_READY:
		return -EAGAIN;
	case NIC_STAT_LIM_ERR:
		return -E2BIG;
	case NIC_STAT_IX_ERR:
		return -ERANGE;
	case NIC_STAT_NO_RES:
		return -ENOSPC;
	case NIC_STAT_BAD_INP_LEN:
	case NIC_STAT_BAD_OUTP_LEN:
		return -EMSGSIZE;
	}
	return -UPMU_DIAG_EFW;
}

void upmu_diag_last_fw(const struct upmu_diag *d, unsigned int *status,
		       uint32_t *syndrome)
{
	*status = d->last_status;
	*syndrome = d->last_synd;
}

/* ---- sample layouts ------------------------------------------------------- */

size_t upmu_diag_sample_size(enum upmu_diag_format f, unsigned int n)
{
	switch (f) {
	case UPMU_DIAG_FMT0:
		return UPMU_DIAG_F0_HDR + (size_t)n * UPMU_DIAG_F0_ENTRY;
	case UPMU_DIAG_FMT1:
		return UPMU_DIAG_F12_HDR + (size_t)n * 8;
	case UPMU_DIAG_FMT2:
		return UPMU_DIAG_F12_HDR + (size_t)n * 4;
	}
	return 0;
}

/* The 32-bit last_ts_l after the 64-bit first timestamp. */
static uint64_t ts_after(uint64_t first, uint32_t last_lo)
{
	uint64_t t = (first & ~0xffffffffull) | last_lo;

	return t < first ? t + (1ull << 32) : t;
}

int upmu_diag_decode(const void *buf, size_t len, enum upmu_diag_format f,
		     unsigned int n, unsigned int i, struct upmu_diag_sample *s,
		     uint64_t *values, uint64_t *ids)
{
	size_t size = upmu_diag_sample_size(f, n);
	const uint8_t *p;
	unsigned int j;

	if (!size || !buf || !s || (n && !values))
		return -EINVAL;
	if ((size_t)i + 1 > len / size)
		return -EMSGSIZE;
	p = (const uint8_t *)buf + (size_t)i * size;
	s->sample_id = nic_be32_get(p, 0);
	if (f == UPMU_DIAG_FMT0) {
		s->ts_first = UINT64_MAX;
		s->ts_last = 0;
		for (j = 0; j < n; j++) {
			const uint8_t *e = p + UPMU_DIAG_F0_HDR + j * UPMU_DIAG_F0_ENTRY;
			uint64_t ts = nic_get64(e, 64);

			if (ids)
				ids[j] = nic_get64(e, 0);
			values[j] = nic_get64(e, 128);
			s->ts_first = ts < s->ts_first ? ts : s->ts_first;
			s->ts_last = ts > s->ts_last ? ts : s->ts_last;
		}
		if (!n)
			s->ts_first = 0;
		return 0;
	}
	s->ts_first = nic_get64(p, 32);
	s->ts_last = ts_after(s->ts_first, nic_be32_get(p, 12));
	for (j = 0; j < n; j++)
		values[j] = f == UPMU_DIAG_FMT1 ?
			nic_get64(p + UPMU_DIAG_F12_HDR, j * 64) :
			nic_be32_get(p + UPMU_DIAG_F12_HDR, j * 4);
	return 0;
}

int upmu_diag_encode(void *buf, size_t len, enum upmu_diag_format f,
		     unsigned int n, unsigned int i,
		     const struct upmu_diag_sample *s, const uint64_t *values,
		     const uint64_t *ids, const uint64_t *ts)
{
	size_t size = upmu_diag_sample_size(f, n);
	uint8_t *p;
	unsigned int j;

	if (!size || !buf || !s || (n && !values) ||
	    (f == UPMU_DIAG_FMT0 && n && (!ids || !ts)))
		return -EINVAL;
	if ((size_t)i + 1 > len / size)
		return -EMSGSIZE;
	p = (uint8_t *)buf + (size_t)i * size;
	memset(p, 0, size);
	nic_be32_set(p, 0, s->sample_id);
	if (f == UPMU_DIAG_FMT0) {
		for (j = 0; j < n; j++) {
			uint8_t *e = p + UPMU_DIAG_F0_HDR + j * UPMU_DIAG_F0_ENTRY;

			nic_set64(e, 0, ids[j]);
			nic_set64(e, 64, ts[j]);
			nic_set64(e, 128, values[j]);
		}
		return 0;
	}
	nic_set64(p, 32, s->ts_first);
	nic_be32_set(p, 12, (uint32_t)s->ts_last);
	for (j = 0; j < n; j++) {
		if (f == UPMU_DIAG_FMT1)
			nic_set64(p + UPMU_DIAG_F12_HDR, j * 64, values[j]);
		else
			nic_be32_set(p + UPMU_DIAG_F12_HDR, j * 4, (uint32_t)values[j]);
	}
	return 0;
}

/* ---- the read cursor ---------------------------------------------------- */

uint64_t upmu_diag_extend_ts(uint64_t ref, uint32_t lo)
{
	uint64_t t = (ref & ~0xffffffffull) | lo;

	/* the value with these low bits nearest @ref */
	if (t > ref && t - ref > (1ull << 31) && t >= (1ull << 32))
		t -= 1ull << 32;
	else if (t < ref && ref - t > (1ull << 31))
		t += 1ull << 32;
	return t;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int upmu_diag_order(const struct upmu_diag_cursor *c, const struct upmu_diag_raw *raw,
		    unsigned int n, uint64_t expect, unsigned int *order,
		    uint64_t *sid, uint64_t *lost)
{
	/* key: distance << 16 | index, sorted by the distance from the cursor */
	uint32_t *key;
	uint16_t base = (uint16_t)(c->next_sid - 1);
	unsigned int i, start = 0, nr_new = 0, gap_max = 0;
	uint64_t newest, oldest, dist;

	*lost = 0;
	if (!n)
		return 0;
	if (n > 0x10000)
		return -EINVAL;
	key = malloc(n * sizeof(*key));
	if (!key)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		key[i] = (uint32_t)(uint16_t)(raw[i].sid - base) << 16 | i;
	qsort(key, n, sizeof(*key), cmp_u32);
	/*
	 * The samples are a run of consecutive sample_ids, maybe across the
	 * 16-bit wrap: it starts after the one gap (circularly) that is not 1.
	 */
	for (i = 0; i < n; i++) {
		uint32_t a = key[i] >> 16, b = key[(i + 1) % n] >> 16;
		uint32_t g = (b - a) & 0xffff;

		if (n == 1)
			g = 0x10000;
		if (g == 0) {		/* the same sample_id twice */
			free(key);
			return -EINVAL;
		}
		if (g != 1) {
			if (gap_max) {	/* a second hole: not one run */
				free(key);
				return -EINVAL;
			}
			gap_max = g;
			start = (i + 1) % n;
		}
	}
	if (!gap_max && n != 0x10000)
		start = 0;
	/*
	 * The newest sample's distance from the last one read; plus whole
	 * wraps of the 16-bit sample_id when the elapsed time says so.
	 */
	dist = key[(start + n - 1) % n] >> 16;
	if (expect > dist + 0x8000)
		dist += (expect - dist + 0x8000) & ~0xffffull;
	newest = c->next_sid - 1 + dist;
	oldest = newest - (n - 1);
	for (i = 0; i < n; i++) {
		uint64_t s = oldest + i;

		if (dist == 0 || s < c->next_sid || s + 1 == 0)
			continue;	/* read before */
		order[nr_new] = key[(start + i) % n] & 0xffff;
		sid[nr_new] = s;
		nr_new++;
	}
	if (dist && oldest > c->next_sid)
		*lost = oldest - c->next_sid;
	free(key);
	return nr_new;
}

/* ---- commands ------------------------------------------------------------- */

/*
 * One RPC: 0 when the firmware did it, else the code of its status (kept
 * with the syndrome for upmu_diag_last_fw()) or the kernel's -errno.
 * *@out_len: in, the room of @out; out, the bytes the device produced.
 */
static int diag_cmd_len(struct upmu_diag *d, unsigned int scope, const void *in,
			size_t in_len, void *out, size_t *out_len)
{
	unsigned int st;
	int ret;

	ret = d->t.rpc(d->t.priv, scope, in, in_len, out, out_len);
	if (ret)
		return ret;
	if (*out_len < NIC_HDR_OUT_LEN)
		return -EPROTO;
	st = nic_get(out, NIC_HDR_STATUS);
	if (st == NIC_STAT_OK)
		return 0;
	d->last_status = st;
	d->last_synd = nic_get(out, NIC_HDR_SYNDROME);
	return upmu_diag_fw_error(st, d->last_synd);
}

static int diag_cmd(struct upmu_diag *d, unsigned int scope, const void *in,
		    size_t in_len, void *out, size_t out_len)
{
	return diag_cmd_len(d, scope, in, in_len, out, &out_len);
}

static void hdr(void *in, unsigned int opcode, unsigned int op_mod)
{
	nic_set(in, NIC_HDR_OPCODE, opcode);
	nic_set(in, NIC_HDR_OP_MOD, op_mod);
}

/* Engine calls need the engine, and still to own it. */
static int engine_ok(const struct upmu_diag *d)
{
	if (d->observer)
		return -EPERM;
	if (d->lost_owner)
		return -UPMU_DIAG_ELOSTOWNER;
	return 0;
}

/* ---- the ring of fetched samples ------------------------------------------ */

static unsigned int ring_idx(const struct upmu_diag *d, unsigned int i)
{
	return (d->rhead + i) % d->rcap;
}

static void ring_reset(struct upmu_diag *d)
{
	d->rhead = 0;
	d->rcount = 0;
	d->unread = 0;
	d->next = 0;
	d->fetch_sid = 0;
	d->pend_lost = 0;
	memset(&d->cur, 0, sizeof(d->cur));
	d->cur.started = true;
	d->od_sid = 0;
}

static int ring_alloc(struct upmu_diag *d, unsigned int cap)
{
	free(d->ring);
	free(d->rsid);
	free(d->rts);
	free(d->vals);
	d->rcap = cap;
	d->ring = calloc(cap, d->size);
	d->rsid = calloc(cap, sizeof(*d->rsid));
	d->rts = calloc(cap, sizeof(*d->rts));
	d->vals = calloc(d->n ? d->n : 1, sizeof(*d->vals));
	ring_reset(d);
	return d->ring && d->rsid && d->rts && d->vals ? 0 : -ENOMEM;
}

/*
 * A new sample, the newest, with 64-bit sample_id @sid; the oldest goes
 * when the ring is full (the fetchers never take more than the ring has
 * room for beside the samples not handed out).
 */
static void ring_push(struct upmu_diag *d, const uint8_t *sample, uint64_t sid)
{
	struct upmu_diag_sample s;
	unsigned int i;

	if (d->rcount == d->rcap) {
		d->rhead = (d->rhead + 1) % d->rcap;
		d->rcount--;
	}
	i = ring_idx(d, d->rcount++);
	memcpy(d->ring + (size_t)i * d->size, sample, d->size);
	d->rsid[i] = sid;
	d->rts[i] = upmu_diag_decode(sample, d->size, d->format, d->n, 0, &s,
				     d->vals, NULL) ? 0 : s.ts_last;
	d->unread++;
}

/* ---- mlx5 PRM commands ---------------------------------------------------- */

static int query_caps(struct upmu_diag *d)
{
	uint8_t in[NIC_HDR_IN_LEN] = { 0 };
	uint8_t *out = calloc(1, NIC_CAP_OUT_LEN), *cap = out + NIC_HDR_OUT_LEN;
	unsigned int i, nr;
	int ret;

	if (!out)
		return -ENOMEM;
	hdr(in, NIC_OP_QUERY_HCA_CAP, NIC_CAP_GENERAL << 1 | NIC_CAP_CUR);
	ret = diag_cmd(d, FWCTL_RPC_CONFIGURATION, in, sizeof(in), out, NIC_CAP_OUT_LEN);
	if (ret)
		goto out;
	if (!nic_get(cap, NIC_HCA_CAP_DEBUG)) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	nr = nic_get(cap, NIC_HCA_CAP_NUM_DIAG_CNTRS);
	d->khz = nic_get(cap, NIC_HCA_CAP_DEV_FREQ_KHZ);
	if (!d->khz || nr > NIC_DEBUG_CAP_MAX_CNTRS) {
		ret = -EPROTO;
		goto out;
	}
	memset(out, 0, NIC_CAP_OUT_LEN);
	hdr(in, NIC_OP_QUERY_HCA_CAP, NIC_CAP_DEBUG << 1 | NIC_CAP_CUR);
	ret = diag_cmd(d, FWCTL_RPC_CONFIGURATION, in, sizeof(in), out, NIC_CAP_OUT_LEN);
	if (ret)
		goto out;
	d->log_max_samples = nic_get(cap, NIC_DEBUG_CAP_LOG_MAX_SAMPLES);
	d->cap_single = nic_get(cap, NIC_DEBUG_CAP_SINGLE);
	d->cap_repetitive = nic_get(cap, NIC_DEBUG_CAP_REPETITIVE);
	d->log_min_period = nic_get(cap, NIC_DEBUG_CAP_LOG_MIN_PERIOD);
	/* the data IDs of the counter_ids (the extension's list replaces it) */
	d->dids = calloc(nr + 1, sizeof(*d->dids));
	d->dsync = calloc(nr + 1, sizeof(*d->dsync));
	if (!d->dids || !d->dsync) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		uint64_t id = upmu_diag_cid_to_id(nic_get(cap, NIC_DEBUG_CAP_CNTR_ID(i)));

		if (!id)
			continue;
		d->dsync[d->nr_dids] = nic_get(cap, NIC_DEBUG_CAP_CNTR_SYNC(i));
		d->dids[d->nr_dids++] = id;
	}
out:
	free(out);
	return ret;
}

/* SET_DIAGNOSTIC_PARAMS with the configuration, @n counters, @enable. */
static int set_params(struct upmu_diag *d, unsigned int n, bool enable)
{
	size_t len = NIC_DIAG_PARAMS_LEN(n);
	uint8_t *in = calloc(1, len), out[NIC_HDR_OUT_LEN] = { 0 };
	unsigned int i;
	int ret;

	if (!in)
		return -ENOMEM;
	hdr(in, NIC_OP_SET_DIAGNOSTIC_PARAMS, 0);
	nic_set(in, NIC_DIAG_NUM_CNTRS, n);
	nic_set(in, NIC_DIAG_LOG_NUM_SAMPLES, d->log_samples);
	nic_set(in, NIC_DIAG_SINGLE, d->mode == UPMU_DIAG_SINGLE);
	nic_set(in, NIC_DIAG_REPETITIVE, d->mode == UPMU_DIAG_REPETITIVE);
	nic_set(in, NIC_DIAG_ON_DEMAND, d->mode == UPMU_DIAG_ON_DEMAND);
	nic_set(in, NIC_DIAG_SYNC, d->sync);
	nic_set(in, NIC_DIAG_CLEAR, d->clear);
	nic_set(in, NIC_DIAG_ENABLE, enable);
	nic_set(in, NIC_DIAG_LOG_PERIOD, d->log_period);
	for (i = 0; i < n; i++)
		nic_set(in, NIC_DIAG_CNTR_ID(i), d->cids[i]);
	ret = diag_cmd(d, FWCTL_RPC_DEBUG_WRITE, in, len, out, sizeof(out));
	free(in);
	return ret;
}

/* QUERY_DIAGNOSTIC_PARAMS: enable, and the log period the device uses. */
static int query_params(struct upmu_diag *d, bool *enable, unsigned int *log_period)
{
	size_t len = NIC_DIAG_PARAMS_LEN(d->nr_dids);
	uint8_t in[NIC_HDR_IN_LEN] = { 0 }, *out = calloc(1, len);
	int ret;

	if (!out)
		return -ENOMEM;
	hdr(in, NIC_OP_QUERY_DIAGNOSTIC_PARAMS, 0);
	ret = diag_cmd(d, FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in), out, len);
	if (!ret) {
		*enable = nic_get(out, NIC_DIAG_ENABLE) &&
			  nic_get(out, NIC_DIAG_NUM_CNTRS);
		*log_period = nic_get(out, NIC_DIAG_LOG_PERIOD);
	}
	free(out);
	return ret;
}

/*
 * QUERY_DIAGNOSTIC_COUNTERS for @nr samples from @index: the records'
 * sample_ids, timestamps and values into @raw (values and ts_lo: @nr x n
 * from @vals and @tss).  Samples whose records are not those applied
 * (slots never written) are left out.  The number kept, or -errno.
 */
static int read_samples(struct upmu_diag *d, unsigned int index, unsigned int nr,
			struct upmu_diag_raw *raw, uint64_t *vals, uint32_t *tss)
{
	size_t recs = (size_t)nr * d->n, len = NIC_HDR_OUT_LEN + recs * NIC_DIAG_REC_LEN;
	uint8_t in[NIC_DIAG_Q_IN_LEN] = { 0 }, *out = calloc(1, len);
	unsigned int s, j, kept = 0;
	int ret;

	if (!out)
		return -ENOMEM;
	hdr(in, NIC_OP_QUERY_DIAGNOSTIC_COUNTERS, 0);
	nic_set(in, NIC_DIAG_Q_NUM_SAMPLES, recs);
	nic_set(in, NIC_DIAG_Q_SAMPLE_INDEX, index);
	ret = diag_cmd(d, FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in), out, len);
	if (ret) {
		free(out);
		return ret;
	}
	for (s = 0; s < nr; s++) {
		const uint8_t *r0 = out + NIC_DIAG_REC(s * d->n);
		uint64_t *v = vals + (size_t)kept * d->n;
		uint32_t *t = tss + (size_t)kept * d->n;
		bool ok = true, empty = true;

		for (j = 0; j < d->n && ok; j++) {
			const uint8_t *r = r0 + j * NIC_DIAG_REC_LEN;

			ok = nic_get(r, NIC_DIAG_REC_CNTR_ID) == d->cids[j] &&
			     nic_get(r, NIC_DIAG_REC_SAMPLE_ID) ==
			     nic_get(r0, NIC_DIAG_REC_SAMPLE_ID);
			v[j] = nic_get64(r, NIC_DIAG_REC_VALUE);
			t[j] = nic_get(r, NIC_DIAG_REC_TIMESTAMP);
			empty &= !t[j] && !nic_get(r, NIC_DIAG_REC_SAMPLE_ID);
		}
		/*
		 * A slot never written has its counter_ids but sample_id and
		 * timestamp 0: a sample taken has a timestamp, a period or
		 * more after the start.
		 */
		if (!ok || empty)
			continue;
		raw[kept].sid = nic_get(r0, NIC_DIAG_REC_SAMPLE_ID);
		raw[kept].ts_lo = t;
		raw[kept].values = v;
		kept++;
	}
	free(out);
	return kept;
}

static uint64_t clk_to_ns(const struct upmu_diag *d, uint64_t clk);

/*
 * Pushes @raw, sample_id @sid, onto the ring in the output format, its
 * timestamps (device clocks, low 32 bits) extended nearest @ref and given
 * in ns.  Returns its last timestamp, in clocks.
 */
static uint64_t put_sample(struct upmu_diag *d, uint8_t *tmp,
			   const struct upmu_diag_raw *raw, uint64_t sid,
			   uint64_t ref)
{
	uint64_t ts[d->n ? d->n : 1], last = 0;
	struct upmu_diag_sample s = { .sample_id = (uint32_t)sid,
				      .ts_first = UINT64_MAX };
	unsigned int j;

	for (j = 0; j < d->n; j++) {
		uint64_t clk = upmu_diag_extend_ts(ref, raw->ts_lo[j]);

		last = clk > last ? clk : last;
		ts[j] = clk_to_ns(d, clk);
		s.ts_first = ts[j] < s.ts_first ? ts[j] : s.ts_first;
		s.ts_last = ts[j] > s.ts_last ? ts[j] : s.ts_last;
	}
	upmu_diag_encode(tmp, d->size, d->format, d->n, 0, &s, raw->values, d->ids, ts);
	ring_push(d, tmp, sid);
	return last;
}

/*
 * PRM: reads the device's whole buffer and pushes at most @max of the
 * samples past the fetch cursor onto the ring.  *@left: new samples not
 * pushed; *@peek: samples lost before them when none was pushed (with
 * one pushed they go to pend_lost).  Return: samples pushed, or a code.
 */
static int prm_fetch(struct upmu_diag *d, unsigned int max, unsigned int *left,
		     uint64_t *peek)
{
	unsigned int nr = 1u << d->log_samples, chunk, got = 0, i, k, push;
	struct upmu_diag_raw *raw = NULL;
	unsigned int *order = NULL;
	uint64_t *vals = NULL, *sid = NULL, lost, ref, period;
	uint32_t *tss = NULL;
	uint8_t *tmp = NULL;
	int ret, nr_new;

	raw = calloc(nr, sizeof(*raw));
	order = calloc(nr, sizeof(*order));
	sid = calloc(nr, sizeof(*sid));
	vals = calloc((size_t)nr * d->n, sizeof(*vals));
	tss = calloc((size_t)nr * d->n, sizeof(*tss));
	tmp = malloc(d->size);
	ret = -ENOMEM;
	if (!raw || !order || !sid || !vals || !tss || !tmp)
		goto out;
	/* the whole buffer, in commands the outbox can take */
	chunk = (NIC_OUTBOX_SIZE - NIC_HDR_OUT_LEN) / NIC_DIAG_REC_LEN / d->n;
	if (!chunk) {
		ret = -E2BIG;
		goto out;
	}
	for (i = 0; i < nr; i += chunk) {
		unsigned int c = nr - i < chunk ? nr - i : chunk;

		ret = read_samples(d, i, c, raw + got, vals + (size_t)got * d->n,
				   tss + (size_t)got * d->n);
		if (ret < 0)
			goto out;
		got += ret;
	}
	nr_new = upmu_diag_order(&d->cur, raw, got, 0, order, sid, &lost);
	if (nr_new < 0) {
		ret = -EPROTO;
		goto out;
	}
	push = (unsigned int)nr_new < max ? (unsigned int)nr_new : max;
	/* timestamps: extended from the cursor's, a period per sample_id */
	period = 1ull << d->log_period;	/* clocks */
	ref = d->cur.last_ts;
	for (k = 0; k < push; k++) {
		uint64_t prev = k ? sid[k - 1] : d->cur.next_sid - 1;

		ref = put_sample(d, tmp, &raw[order[k]], sid[k],
				 ref + (sid[k] - prev) * period);
	}
	*left = nr_new - push;
	*peek = push ? 0 : lost;
	if (push) {
		d->cur.next_sid = sid[push - 1] + 1;
		d->cur.last_ts = ref;
		d->pend_lost += lost;
	}
	ret = push;
out:
	free(raw);
	free(order);
	free(sid);
	free(vals);
	free(tss);
	free(tmp);
	return ret;
}

/* PRM, on demand: each query takes one fresh sample, numbered here. */
static int prm_fetch_on_demand(struct upmu_diag *d, unsigned int max)
{
	uint64_t *vals = calloc(d->n, sizeof(*vals));
	uint32_t *tss = calloc(d->n, sizeof(*tss));
	uint8_t *tmp = malloc(d->size);
	struct upmu_diag_raw raw;
	int ret = -ENOMEM;

	if (!vals || !tss || !tmp)
		goto out;
	ret = 0;
	if (!max)
		goto out;
	ret = read_samples(d, 0, 1, &raw, vals, tss);
	if (ret == 1)
		d->cur.last_ts = put_sample(d, tmp, &raw, d->od_sid++, d->cur.last_ts);
out:
	free(vals);
	free(tss);
	free(tmp);
	return ret;
}

/* ---- extension commands --------------------------------------------------- */

static int ext_query_state(struct upmu_diag *d, uint8_t *out)
{
	uint8_t in[NIC_HDR_IN_LEN] = { 0 };

	memset(out, 0, NIC_EXT_STATE_OUT_LEN);
	hdr(in, NIC_OP_EXT_QUERY_STATE, 0);
	return diag_cmd(d, FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in), out,
			NIC_EXT_STATE_OUT_LEN);
}

/*
 * An engine command: a refusal for not being the owner, once create took
 * the engine, means another user took it over (force): the context is
 * left with nothing, and says so.  A command refused in the device's
 * state takes the device's state, which is the one that counts.
 */
static int ext_cmd(struct upmu_diag *d, unsigned int scope, const void *in,
		   size_t in_len, void *out, size_t *out_len)
{
	uint8_t st[NIC_EXT_STATE_OUT_LEN];
	int ret;

	d->last_status = NIC_STAT_OK;
	d->last_synd = 0;
	ret = diag_cmd_len(d, scope, in, in_len, out, out_len);
	if (ret == -EBUSY && d->last_status == NIC_STAT_RES_BUSY &&
	    NIC_SYND_REASON(d->last_synd) == NIC_DIAG_ERR_OWNER) {
		d->lost_owner = true;
		d->state = UPMU_DIAG_IDLE;
		return -UPMU_DIAG_ELOSTOWNER;
	}
	if (ret == -UPMU_DIAG_EBADSTATE) {
		unsigned int status = d->last_status;
		uint32_t synd = d->last_synd;

		if (!ext_query_state(d, st) &&
		    nic_get(st, NIC_EXT_STATE_STATE) <= NIC_STATE_RUNNING)
			d->state = nic_get(st, NIC_EXT_STATE_STATE);
		d->last_status = status;
		d->last_synd = synd;
	}
	return ret;
}

/* A command of a header only (START, STOP, RESTART, OWNERSHIP). */
static int ext_simple(struct upmu_diag *d, unsigned int opcode, unsigned int op_mod)
{
	uint8_t in[NIC_HDR_IN_LEN] = { 0 }, out[NIC_HDR_OUT_LEN];
	size_t len = sizeof(out);

	hdr(in, opcode, op_mod);
	return ext_cmd(d, FWCTL_RPC_DEBUG_WRITE, in, sizeof(in), out, &len);
}

/* The device's data IDs (EXT_QUERY_DATA_IDS), for check_data_id and list. */
static int ext_load_ids(struct upmu_diag *d)
{
	enum { PAGE = 256 };
	size_t room = NIC_EXT_ID(PAGE), len;
	uint8_t in[NIC_EXT_IDS_IN_LEN] = { 0 }, *out = malloc(room);
	unsigned int total = 0, got = 0, n, i;
	int ret = -ENOMEM;

	if (!out)
		return ret;
	do {
		hdr(in, NIC_OP_EXT_QUERY_DATA_IDS, 0);
		nic_set(in, NIC_EXT_IDS_START, got);
		nic_set(in, NIC_EXT_IDS_MAX, PAGE);
		len = room;
		ret = diag_cmd_len(d, FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in), out, &len);
		if (ret)
			break;
		n = nic_get(out, NIC_EXT_IDS_RETURNED);
		if (!got) {
			total = nic_get(out, NIC_EXT_IDS_TOTAL);
			free(d->dids);
			free(d->dsync);
			d->nr_dids = 0;
			d->dids = calloc(total + 1, sizeof(*d->dids));
			d->dsync = calloc(total + 1, sizeof(*d->dsync));
			ret = -ENOMEM;
			if (!d->dids || !d->dsync)
				break;
		}
		ret = -EPROTO;
		if (n > PAGE || n > total - got || NIC_EXT_ID(n) > len || (!n && got < total))
			break;
		for (i = 0; i < n; i++) {
			const uint8_t *e = out + NIC_EXT_ID(i);

			d->dids[got + i] = nic_get64(e, NIC_EXT_ID_DATA_ID);
			d->dsync[got + i] = nic_get(e, NIC_EXT_ID_SYNC);
		}
		got += n;
		d->nr_dids = got;
		ret = 0;
	} while (got < total);
	free(out);
	return ret;
}

/*
 * Takes the engine (EXT_OWNERSHIP, with @force) and learns who this
 * context is to the device.  An engine that runs without an owner (a
 * PRM user's, @st the state before) is busy too, unless @force: taking
 * it stops it.
 */
static int ext_take(struct upmu_diag *d, bool force, uint8_t *st)
{
	uint8_t in[NIC_HDR_IN_LEN] = { 0 }, out[NIC_HDR_OUT_LEN] = { 0 };
	unsigned int pf, uid;
	bool valid;
	int ret;

	if (!force && !nic_get(st, NIC_EXT_STATE_OWNED) &&
	    nic_get(st, NIC_EXT_STATE_STATE) != NIC_STATE_IDLE)
		return -EBUSY;
	hdr(in, NIC_OP_EXT_OWNERSHIP, NIC_OWN_TAKE);
	nic_set(in, NIC_EXT_OWN_FORCE, force);
	ret = diag_cmd(d, FWCTL_RPC_DEBUG_WRITE, in, sizeof(in), out, sizeof(out));
	if (ret)
		return ret;
	valid = nic_get(out, NIC_EXT_OWN_PREV_VALID);
	pf = nic_get(out, NIC_EXT_OWN_PREV_PF);
	uid = nic_get(out, NIC_EXT_OWN_PREV_UID);
	ret = ext_query_state(d, st);
	if (ret)
		goto release;
	d->self_pf = nic_get(st, NIC_EXT_STATE_OWNER_PF);
	d->self_uid = nic_get(st, NIC_EXT_STATE_OWNER_UID);
	d->prev.owned = valid && (pf != d->self_pf || uid != d->self_uid);
	d->prev.pf = d->prev.owned ? pf : 0;
	d->prev.uid = d->prev.owned ? uid : 0;
	if (nic_get(st, NIC_EXT_STATE_STATE) != NIC_STATE_IDLE) {
		ret = -EBUSY;
		if (force)
			ret = ext_simple(d, NIC_OP_EXT_STOP, 0);
		if (ret)
			goto release;
	}
	return 0;
release:
	ext_simple(d, NIC_OP_EXT_OWNERSHIP, NIC_OWN_RELEASE);
	return ret;
}

/*
 * Extension: EXT_QUERY_SAMPLES for at most @max samples (0: only learn
 * how many there are), pushed onto the ring; the device counts what it
 * overwrote (pend_lost).  *@left: samples it has beyond those.
 */
static int ext_fetch(struct upmu_diag *d, unsigned int max, unsigned int *left,
		     uint64_t *peek)
{
	uint8_t in[NIC_HDR_IN_LEN] = { 0 }, *out, *p;
	unsigned int fit = d->size ? (NIC_OUTBOX_SIZE - NIC_EXT_SMP_HDR_LEN) / d->size : 0;
	unsigned int m = max < fit ? max : fit, n, avail, i;
	size_t len = NIC_EXT_SMP_HDR_LEN + (size_t)m * d->size;
	int ret;

	*peek = 0;
	*left = 0;
	out = calloc(1, len);
	if (!out)
		return -ENOMEM;
	hdr(in, NIC_OP_EXT_QUERY_SAMPLES, 0);
	nic_set(in, NIC_EXT_SMP_MAX, m);
	ret = ext_cmd(d, FWCTL_RPC_DEBUG_READ_ONLY, in, sizeof(in), out, &len);
	if (ret)
		goto out;
	n = nic_get(out, NIC_EXT_SMP_RETURNED);
	avail = nic_get(out, NIC_EXT_SMP_AVAILABLE);
	ret = -EPROTO;
	if (n > m || nic_get(out, NIC_EXT_SMP_SIZE) != d->size ||
	    len < NIC_EXT_SMP_HDR_LEN + (size_t)n * d->size)
		goto out;
	for (i = 0, p = out + NIC_EXT_SMP_HDR_LEN; i < n; i++, p += d->size) {
		uint32_t s32 = nic_be32_get(p, 0);
		/* the 32-bit sample_id, after the last one fetched */
		uint64_t sid = d->fetch_sid + (uint32_t)(s32 - (uint32_t)d->fetch_sid);

		ring_push(d, p, sid);
		d->fetch_sid = sid + 1;
	}
	d->pend_lost += nic_get(out, NIC_EXT_SMP_LOST);
	*left = avail > n ? avail - n : 0;
	ret = n;
out:
	free(out);
	return ret;
}

/* Up to @max new samples onto the ring, by whichever path the device takes. */
static int fetch(struct upmu_diag *d, unsigned int max, unsigned int *left,
		 uint64_t *peek)
{
	if (d->ext)
		return ext_fetch(d, max, left, peek);
	*left = 0;
	*peek = 0;
	if (d->mode == UPMU_DIAG_ON_DEMAND)
		return prm_fetch_on_demand(d, max);
	return prm_fetch(d, max, left, peek);
}

/* ---- fwctl transport ------------------------------------------------------ */

static int fwctl_rpc(void *priv, unsigned int scope, const void *in,
		     size_t in_len, void *out, size_t *out_len)
{
	struct fwctl_rpc rpc = {
		.size = sizeof(rpc),
		.scope = scope,
		.in_len = in_len,
		.out_len = *out_len,
		.in = (uintptr_t)in,
		.out = (uintptr_t)out,
	};

	if (ioctl((int)(intptr_t)priv, FWCTL_RPC, &rpc))
		return -errno;
	*out_len = rpc.out_len < *out_len ? rpc.out_len : *out_len;
	return 0;
}

static void fwctl_close(void *priv)
{
	close((int)(intptr_t)priv);
}

/* An open fwctl node of type MLX5, or -errno. */
static int fwctl_open(const char *node)
{
	struct fwctl_info info = { .size = sizeof(info) };
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FWCTL_INFO, &info)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (info.out_device_type != FWCTL_DEVICE_TYPE_MLX5) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return 0;
}

/* Whether fwctl device @name matches @dev (sysfs path or SERIAL.PF). */
static bool fwctl_match(const char *name, const char *dev)
{
	char path[PATH_MAX], real[PATH_MAX], want[PATH_MAX], serial[64], pf[16];

	snprintf(path, sizeof(path), FWCTL_CLASS "/%s/device", name);
	if (dev[0] == '/') {
		if (!realpath(dev, want))
			return false;
		if (realpath(path, real) && !strcmp(real, want))
			return true;
		snprintf(path, sizeof(path), FWCTL_CLASS "/%s", name);
		return realpath(path, real) && !strcmp(real, want);
	}
	snprintf(path, sizeof(path), FWCTL_CLASS "/%s/device/serial", name);
	if (read_line(path, serial, sizeof(serial)))
		return false;
	snprintf(path, sizeof(path), FWCTL_CLASS "/%s/device/pf", name);
	if (read_line(path, pf, sizeof(pf)))
		return false;
	snprintf(want, sizeof(want), "%s.%s", serial, pf);
	return !strcasecmp(want, dev);
}

static int fwctl_find(const char *dev)
{
	struct dirent **ents;
	char node[PATH_MAX];
	int i, n, fd = -ENODEV;

	if (dev && !strncmp(dev, "/dev/", 5))
		return fwctl_open(dev);
	if (dev && !strncmp(dev, "fwctl", 5) && !strchr(dev, '/')) {
		snprintf(node, sizeof(node), "/dev/fwctl/%s", dev);
		return fwctl_open(node);
	}
	n = scandir(FWCTL_CLASS, &ents, NULL, versionsort);
	if (n < 0)
		return -ENODEV;
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (fd >= 0 || name[0] == '.')
			continue;
		if (dev && *dev && !fwctl_match(name, dev))
			continue;
		snprintf(node, sizeof(node), "/dev/fwctl/%s", name);
		fd = fwctl_open(node);
		/* a named device's error is the answer; else try the next */
		if (fd < 0 && dev && *dev)
			break;
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return fd;
}

int upmu_diag_fwctl_open(const char *dev)
{
	return fwctl_find(dev);
}

void upmu_diag_fwctl_transport(int fd, struct upmu_diag_transport *t)
{
	t->rpc = fwctl_rpc;
	t->close = fwctl_close;
	t->priv = (void *)(intptr_t)fd;
}

/* ---- life cycle ---------------------------------------------------------- */

static int create(const struct upmu_diag_transport *t, bool force, bool observer,
		  struct upmu_diag **out);

/* create() on the fwctl device @dev */
static int fwctl_create(const char *dev, bool force, bool open_only,
			struct upmu_diag **out)
{
	struct upmu_diag_transport t;
	int fd = fwctl_find(dev);

	*out = NULL;
	if (fd < 0)
		return fd;
	upmu_diag_fwctl_transport(fd, &t);
	return create(&t, force, open_only, out);
}

int upmu_diag_create(const char *dev, bool force, struct upmu_diag **out)
{
	return fwctl_create(dev, force, false, out);
}

int upmu_diag_open(const char *dev, struct upmu_diag **out)
{
	return fwctl_create(dev, false, true, out);
}

int upmu_diag_create_transport(const struct upmu_diag_transport *t, bool force,
			       struct upmu_diag **out)
{
	return create(t, force, false, out);
}

int upmu_diag_open_transport(const struct upmu_diag_transport *t,
			     struct upmu_diag **out)
{
	return create(t, false, true, out);
}

static unsigned int log2_up(uint64_t x)
{
	unsigned int l = 0;

	while (l < 64 && (1ull << l) < x)
		l++;
	return l;
}

/* Device clocks <-> ns */
static uint64_t clk_to_ns(const struct upmu_diag *d, uint64_t clk)
{
	return clk / d->khz * 1000000 + clk % d->khz * 1000000 / d->khz;
}

static unsigned int ns_to_log_period(const struct upmu_diag *d, uint64_t ns)
{
	/* clocks = ns * kHz / 10^6, rounded up */
	uint64_t clk = ns / 1000000 * d->khz + (ns % 1000000 * d->khz + 999999) / 1000000;
	unsigned int l = log2_up(clk);

	if (l < d->log_min_period)
		l = d->log_min_period;
	return l > MAX_LOG_PERIOD ? MAX_LOG_PERIOD : l;
}

/*
 * PRM: the mlx5 layout has no owner: the engine is taken when nobody has
 * it enabled; with @force, whoever runs it is stopped.
 */
static int prm_take(struct upmu_diag *d, bool force)
{
	unsigned int log_period;
	bool running;
	int ret;

	ret = query_params(d, &running, &log_period);
	if (ret || !running)
		return ret;
	if (!force)
		return -EBUSY;
	return set_params(d, 0, false);
}

static int create(const struct upmu_diag_transport *t, bool force, bool observer,
		  struct upmu_diag **out)
{
	struct upmu_diag *d = calloc(1, sizeof(*d));
	uint8_t st[NIC_EXT_STATE_OUT_LEN];
	int ret;

	*out = NULL;
	if (!d) {
		if (t->close)
			t->close(t->priv);
		return -ENOMEM;
	}
	d->t = *t;
	d->observer = true;	/* nothing to give back until the engine is taken */
	ret = query_caps(d);
	if (ret)
		goto fail;
	/*
	 * The extension, if the device has it: a plain mlx5 device answers
	 * BAD_OP, a kernel that does not know the opcode refuses it.
	 */
	ret = ext_query_state(d, st);
	if (ret == -EOPNOTSUPP || ret == -EBADMSG) {
		d->last_status = NIC_STAT_OK;
		d->last_synd = 0;
	} else if (ret) {
		goto fail;
	} else {
		d->ext = true;
		ret = ext_load_ids(d);
		if (ret)
			goto fail;
	}
	if (!observer) {
		ret = d->ext ? ext_take(d, force, st) : prm_take(d, force);
		if (ret)
			goto fail;
		d->observer = false;
	}
	d->mode = d->cap_single ? UPMU_DIAG_SINGLE : UPMU_DIAG_REPETITIVE;
	d->log_period = d->log_min_period;
	d->period_ns = clk_to_ns(d, 1ull << d->log_period);
	d->log_samples = d->log_max_samples < 6 ? d->log_max_samples : 6;
	d->state = UPMU_DIAG_IDLE;
	*out = d;
	return 0;
fail:
	upmu_diag_destroy(d);
	return ret;
}

void upmu_diag_destroy(struct upmu_diag *d)
{
	if (!d)
		return;
	if (!d->observer && !d->lost_owner) {
		if (d->ext) {
			if (d->state != UPMU_DIAG_IDLE)
				ext_simple(d, NIC_OP_EXT_STOP, 0);
			if (!d->lost_owner)
				ext_simple(d, NIC_OP_EXT_OWNERSHIP, NIC_OWN_RELEASE);
		} else if (d->state == UPMU_DIAG_READY || d->state == UPMU_DIAG_RUNNING) {
			set_params(d, 0, false);
		}
	}
	if (d->t.close)
		d->t.close(d->t.priv);
	free(d->dids);
	free(d->dsync);
	free(d->ids);
	free(d->cids);
	free(d->ring);
	free(d->rsid);
	free(d->rts);
	free(d->vals);
	free(d);
}

bool upmu_diag_has_ext(const struct upmu_diag *d)
{
	return d->ext;
}

int upmu_diag_get_owner(struct upmu_diag *d, struct upmu_diag_owner *o)
{
	uint8_t st[NIC_EXT_STATE_OUT_LEN];
	int ret;

	memset(o, 0, sizeof(*o));
	if (!d->ext)
		return -EOPNOTSUPP;
	ret = ext_query_state(d, st);
	if (ret)
		return ret;
	o->owned = nic_get(st, NIC_EXT_STATE_OWNED);
	o->pf = nic_get(st, NIC_EXT_STATE_OWNER_PF);
	o->uid = nic_get(st, NIC_EXT_STATE_OWNER_UID);
	o->self = o->owned && !d->observer && o->pf == d->self_pf &&
		  o->uid == d->self_uid;
	return 0;
}

void upmu_diag_get_prev_owner(const struct upmu_diag *d, struct upmu_diag_owner *o)
{
	*o = d->prev;
}

int upmu_diag_get_data_ids(struct upmu_diag *d, uint64_t *ids, bool *sync,
			   unsigned int room)
{
	unsigned int i;

	for (i = 0; i < d->nr_dids && i < room; i++) {
		if (ids)
			ids[i] = d->dids[i];
		if (sync)
			sync[i] = d->dsync[i];
	}
	return d->nr_dids;
}

#define IN_IDLE(d)	do { if ((d)->state != UPMU_DIAG_IDLE) \
				return -UPMU_DIAG_EBADSTATE; } while (0)

int upmu_diag_set_sample_mode(struct upmu_diag *d, enum upmu_diag_mode mode)
{
	IN_IDLE(d);
	if (mode > UPMU_DIAG_ON_DEMAND)
		return -EINVAL;
	if ((mode == UPMU_DIAG_SINGLE && !d->cap_single) ||
	    (mode == UPMU_DIAG_REPETITIVE && !d->cap_repetitive))
		return -EOPNOTSUPP;
	d->mode = mode;
	return 0;
}

int upmu_diag_get_sample_mode(struct upmu_diag *d, enum upmu_diag_mode *mode)
{
	*mode = d->mode;
	return 0;
}

int upmu_diag_set_sample_period(struct upmu_diag *d, uint64_t ns)
{
	IN_IDLE(d);
	if (!ns)
		return -EINVAL;
	d->period_ns = ns;
	d->period_set = true;
	d->log_period = ns_to_log_period(d, ns);
	d->period_read_back = false;
	return 0;
}

int upmu_diag_get_sample_period(struct upmu_diag *d, uint64_t *ns)
{
	*ns = d->period_read_back || d->state != UPMU_DIAG_IDLE ?
	      clk_to_ns(d, 1ull << d->log_period) : d->period_ns;
	return 0;
}

int upmu_diag_set_log_num_samples(struct upmu_diag *d, unsigned int log)
{
	IN_IDLE(d);
	if (log > d->log_max_samples || log > 16)
		return -ERANGE;
	d->log_samples = log;
	return 0;
}

int upmu_diag_get_log_num_samples(struct upmu_diag *d, unsigned int *log)
{
	*log = d->log_samples;
	return 0;
}

int upmu_diag_get_log_max_num_samples(struct upmu_diag *d, unsigned int *log)
{
	*log = d->log_max_samples;
	return 0;
}

int upmu_diag_set_max_samples_per_read(struct upmu_diag *d, uint32_t n)
{
	IN_IDLE(d);
	if (!n)
		return -EINVAL;
	d->max_per_read = n;
	return 0;
}

/*
 * Most samples a query hands out: as set, else the buffer's (a
 * retrieval of everything new in as few commands as fit the outbox).
 */
static uint32_t per_read(const struct upmu_diag *d)
{
	return d->max_per_read ? d->max_per_read : 1u << d->log_samples;
}

int upmu_diag_get_max_samples_per_read(struct upmu_diag *d, uint32_t *n)
{
	*n = per_read(d);
	return 0;
}

int upmu_diag_set_sync_start(struct upmu_diag *d, bool sync)
{
	IN_IDLE(d);
	d->sync = sync;
	return 0;
}

int upmu_diag_get_sync_start(struct upmu_diag *d, bool *sync)
{
	*sync = d->sync;
	return 0;
}

int upmu_diag_set_data_clear(struct upmu_diag *d, bool clear)
{
	IN_IDLE(d);
	d->clear = clear;
	return 0;
}

int upmu_diag_get_data_clear(struct upmu_diag *d, bool *clear)
{
	*clear = d->clear;
	return 0;
}

int upmu_diag_set_output_format(struct upmu_diag *d, enum upmu_diag_format f)
{
	IN_IDLE(d);
	if (f > UPMU_DIAG_FMT2)
		return -EINVAL;
	d->format = f;
	return 0;
}

int upmu_diag_get_output_format(struct upmu_diag *d, enum upmu_diag_format *f)
{
	*f = d->format;
	return 0;
}

int upmu_diag_set_max_num_data_ids(struct upmu_diag *d, uint32_t n)
{
	IN_IDLE(d);
	d->max_ids = n;
	return 0;
}

/* What max_num_data_ids is: as set, or as many as the buffer holds. */
static uint32_t max_ids(const struct upmu_diag *d)
{
	uint32_t cap = 1u << d->log_max_samples, n;

	if (d->max_ids)
		return d->max_ids;
	n = d->mode == UPMU_DIAG_ON_DEMAND ? cap : cap >> d->log_samples;
	n = n < d->nr_dids ? n : d->nr_dids;
	return n ? n : 1;
}

int upmu_diag_get_max_num_data_ids(struct upmu_diag *d, uint32_t *n)
{
	*n = max_ids(d);
	return 0;
}

enum upmu_diag_state upmu_diag_get_state(const struct upmu_diag *d)
{
	return d->state;
}

uint32_t upmu_diag_device_khz(const struct upmu_diag *d)
{
	return d->khz;
}

/* Extension: EXT_SET_CONFIG; the device checks it and moves to Configured. */
static int ext_apply_config(struct upmu_diag *d)
{
	uint8_t in[NIC_EXT_CFG_IN_LEN] = { 0 }, out[NIC_HDR_OUT_LEN];
	size_t len = sizeof(out);

	hdr(in, NIC_OP_EXT_SET_CONFIG, 0);
	nic_set(in, NIC_EXT_CFG_MODE, d->mode);
	nic_set(in, NIC_EXT_CFG_FORMAT, d->format);
	nic_set(in, NIC_EXT_CFG_SYNC, d->sync);
	nic_set(in, NIC_EXT_CFG_CLEAR, d->clear);
	nic_set(in, NIC_EXT_CFG_LOG_SAMPLES, d->log_samples);
	nic_set64(in, NIC_EXT_CFG_PERIOD_NS, d->period_set ? d->period_ns : 0);
	nic_set(in, NIC_EXT_CFG_MAX_IDS, max_ids(d));
	return ext_cmd(d, FWCTL_RPC_DEBUG_WRITE, in, sizeof(in), out, &len);
}

int upmu_diag_apply_config(struct upmu_diag *d)
{
	int ret = engine_ok(d);

	if (ret)
		return ret;
	if (d->ext) {
		ret = ext_apply_config(d);
	} else {
		IN_IDLE(d);
		/* the PRM's rules: clear only with sync; on-demand neither */
		if (d->clear && (!d->sync || d->mode == UPMU_DIAG_ON_DEMAND))
			return -EINVAL;
		if (d->sync && d->mode == UPMU_DIAG_ON_DEMAND)
			return -EINVAL;
	}
	if (!ret)
		d->state = UPMU_DIAG_CONFIGURED;
	return ret;
}

static int did_index(const struct upmu_diag *d, uint64_t id)
{
	unsigned int i;

	for (i = 0; i < d->nr_dids; i++)
		if (d->dids[i] == id)
			return i;
	return -1;
}

int upmu_diag_check_data_id(struct upmu_diag *d, uint64_t id, bool *supported,
			    bool *sync)
{
	int i;

	if (d->state != UPMU_DIAG_CONFIGURED)
		return -UPMU_DIAG_EBADSTATE;
	i = did_index(d, id);
	*supported = i >= 0;
	if (sync)
		*sync = i >= 0 && d->dsync[i];
	return 0;
}

/* The data IDs are applied: keep them, and a ring for their samples. */
static int applied(struct upmu_diag *d, const uint64_t *ids, unsigned int n)
{
	uint64_t *copy = malloc(n * sizeof(*ids));

	if (!copy)
		return -ENOMEM;
	memcpy(copy, ids, n * sizeof(*ids));
	free(d->ids);
	d->ids = copy;
	d->n = n;
	d->size = upmu_diag_sample_size(d->format, n);
	return ring_alloc(d, d->mode == UPMU_DIAG_ON_DEMAND ? 1 : 1u << d->log_samples);
}

/* The failing index and reason of the last command's syndrome. */
static void fail_of(const struct upmu_diag *d, unsigned int n, int *fail_index,
		    int *fail_reason)
{
	unsigned int ix = NIC_SYND_INDEX(d->last_synd);

	if (d->last_status == NIC_STAT_OK)
		return;
	*fail_index = ix == NIC_SYND_NO_INDEX || ix >= n ? -1 : (int)ix;
	*fail_reason = NIC_SYND_REASON(d->last_synd);
}

static int ext_apply_counters(struct upmu_diag *d, const uint64_t *ids,
			      unsigned int n, int *fail_index, int *fail_reason)
{
	uint8_t *in, out[NIC_EXT_APPLY_OUT_LEN] = { 0 };
	size_t len = sizeof(out);
	unsigned int i;
	int ret;

	if (NIC_EXT_APPLY_IN_LEN((size_t)n) > NIC_INBOX_SIZE) {
		*fail_reason = NIC_DIAG_ERR_COUNT;
		return -E2BIG;
	}
	in = calloc(1, NIC_EXT_APPLY_IN_LEN(n));
	if (!in)
		return -ENOMEM;
	hdr(in, NIC_OP_EXT_APPLY_IDS, 0);
	nic_set(in, NIC_EXT_APPLY_NUM, n);
	for (i = 0; i < n; i++)
		nic_set64(in, NIC_EXT_APPLY_ID(i), ids[i]);
	ret = ext_cmd(d, FWCTL_RPC_DEBUG_WRITE, in, NIC_EXT_APPLY_IN_LEN(n), out, &len);
	free(in);
	if (ret) {
		fail_of(d, n, fail_index, fail_reason);
		return ret;
	}
	if (len < NIC_EXT_APPLY_OUT_LEN ||
	    nic_get(out, NIC_EXT_APPLY_SAMPLE_SIZE) != upmu_diag_sample_size(d->format, n))
		return -EPROTO;
	/* the period that runs: longer with many data IDs */
	d->log_period = nic_get(out, NIC_EXT_APPLY_LOG_PERIOD);
	d->period_read_back = true;
	return applied(d, ids, n);
}

static int prm_apply_counters(struct upmu_diag *d, const uint64_t *ids,
			      unsigned int n, int *fail_index, int *fail_reason)
{
	unsigned int i, log_period;
	uint16_t *cids;
	bool enable;
	int ret;

	if (d->state != UPMU_DIAG_CONFIGURED)
		return -UPMU_DIAG_EBADSTATE;
	if (!n || n > d->nr_dids || n > 0xffff) {
		*fail_reason = NIC_DIAG_ERR_COUNT;
		return -E2BIG;
	}
	cids = calloc(n, sizeof(*cids));
	if (!cids)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (did_index(d, ids[i]) < 0) {
			/* no counter_id for it: the firmware would not know it */
			*fail_index = i;
			*fail_reason = NIC_DIAG_ERR_UNKNOWN_ID;
			free(cids);
			return -UPMU_DIAG_ENOTSUPP_ID;
		}
		cids[i] = upmu_diag_id_to_cid(ids[i]);
	}
	free(d->cids);
	d->cids = cids;
	/*
	 * The PRM has no "configured, not running": SET_DIAGNOSTIC_PARAMS
	 * with enable checks the list and starts, without it stops.  So the
	 * list is checked by starting, the actual period read, and the
	 * engine stopped again until upmu_diag_start().
	 */
	d->last_status = NIC_STAT_OK;
	ret = set_params(d, n, true);
	if (ret) {
		fail_of(d, n, fail_index, fail_reason);
		return ret;
	}
	ret = applied(d, ids, n);
	if (ret) {
		set_params(d, 0, false);
		return ret;
	}
	/* the period the device uses: longer with many counters */
	if (!query_params(d, &enable, &log_period) && log_period) {
		d->log_period = log_period;
		d->period_read_back = true;
	}
	return set_params(d, n, false);
}

int upmu_diag_apply_counters(struct upmu_diag *d, const uint64_t *ids,
			     unsigned int n, int *fail_index, int *fail_reason)
{
	int ret;

	*fail_index = -1;
	*fail_reason = NIC_DIAG_ERR_NONE;
	ret = engine_ok(d);
	if (ret)
		return ret;
	if (d->ext)
		ret = ext_apply_counters(d, ids, n, fail_index, fail_reason);
	else
		ret = prm_apply_counters(d, ids, n, fail_index, fail_reason);
	if (!ret)
		d->state = UPMU_DIAG_READY;
	return ret;
}

static int prm_start(struct upmu_diag *d)
{
	unsigned int log_period;
	bool enable;
	int ret;

	ret = set_params(d, d->n, true);
	if (ret)
		return ret;
	if (!query_params(d, &enable, &log_period) && log_period) {
		d->log_period = log_period;
		d->period_read_back = true;
	}
	return 0;
}

int upmu_diag_start(struct upmu_diag *d)
{
	int ret = engine_ok(d);

	if (ret)
		return ret;
	if (d->ext) {
		ret = ext_simple(d, NIC_OP_EXT_START, 0);
	} else {
		if (d->state != UPMU_DIAG_READY)
			return -UPMU_DIAG_EBADSTATE;
		ret = prm_start(d);
	}
	if (ret)
		return ret;
	ring_reset(d);
	d->state = UPMU_DIAG_RUNNING;
	return 0;
}

int upmu_diag_stop(struct upmu_diag *d)
{
	int ret = engine_ok(d);

	if (ret)
		return ret;
	if (d->ext) {
		ret = ext_simple(d, NIC_OP_EXT_STOP, 0);
	} else {
		if (d->state == UPMU_DIAG_IDLE)
			return -UPMU_DIAG_EBADSTATE;
		if (d->state != UPMU_DIAG_CONFIGURED)
			ret = set_params(d, 0, false);
	}
	if (ret)
		return ret;
	d->state = UPMU_DIAG_IDLE;
	return 0;
}

int upmu_diag_restart(struct upmu_diag *d)
{
	int ret = engine_ok(d);

	if (ret)
		return ret;
	if (d->ext) {
		ret = ext_simple(d, NIC_OP_EXT_RESTART, 0);
	} else {
		if (d->state != UPMU_DIAG_RUNNING || d->mode != UPMU_DIAG_SINGLE)
			return -UPMU_DIAG_EBADSTATE;
		ret = set_params(d, d->n, false);
		if (!ret)
			ret = prm_start(d);
	}
	if (ret)
		return ret;
	ring_reset(d);
	d->state = UPMU_DIAG_RUNNING;
	return 0;
}

int upmu_diag_get_sample_size(struct upmu_diag *d, size_t *size)
{
	if (d->state != UPMU_DIAG_READY && d->state != UPMU_DIAG_RUNNING)
		return -UPMU_DIAG_EBADSTATE;
	*size = upmu_diag_sample_size(d->format, d->n);
	return 0;
}

uint64_t upmu_diag_lost_total(const struct upmu_diag *d)
{
	return d->lost_total;
}

/* ---- queries ------------------------------------------------------------ */

/*
 * The samples a query may hand out, the newest of the ring: with the
 * context's cursor those not handed out yet; with a timestamp those newer
 * than it (on demand: always the cursor's).
 */
static unsigned int candidates(const struct upmu_diag *d, uint64_t last_seen)
{
	unsigned int c = 0;

	if (!last_seen || d->mode == UPMU_DIAG_ON_DEMAND)
		return d->unread;
	while (c < d->rcount && d->rts[ring_idx(d, d->rcount - 1 - c)] > last_seen)
		c++;
	return c;
}

int upmu_diag_query_counters(struct upmu_diag *d, void *buf,
			     struct upmu_diag_read *r)
{
	unsigned int want, cands, left = 0, first, k, i, from;
	uint64_t peek = 0;
	int ret;

	r->lost = 0;
	r->latest_ts = 0;
	r->first_sample_id = 0;
	ret = engine_ok(d);
	if (ret)
		return ret;
	if (d->state != UPMU_DIAG_RUNNING) {
		/* the device says whether it runs: it would know better */
		if (d->ext && d->n) {
			ret = fetch(d, 0, &left, &peek);
			if (ret < 0)
				return ret;
		}
		return -UPMU_DIAG_EBADSTATE;
	}
	cands = candidates(d, r->last_seen_ts);
	if (!buf || !r->count) {
		/* how many a read would give; on demand, reading takes one */
		if (d->mode == UPMU_DIAG_ON_DEMAND) {
			r->count = 1;
			return -UPMU_DIAG_EINSUFF;
		}
		if (cands < per_read(d)) {
			ret = fetch(d, 0, &left, &peek);
			if (ret < 0)
				return ret;
		}
		r->count = cands + left < per_read(d) ? cands + left : per_read(d);
		r->lost = d->pend_lost + peek;
		return r->count ? -UPMU_DIAG_EINSUFF : 0;
	}
	want = r->count < per_read(d) ? r->count : per_read(d);
	/* fetch what is missing, never more than the ring keeps unread */
	while (cands < want && d->unread < d->rcap) {
		unsigned int room = d->rcap - d->unread;

		ret = fetch(d, want - cands < room ? want - cands : room, &left, &peek);
		if (ret < 0)
			return ret;
		cands = candidates(d, r->last_seen_ts);
		/* the device has no more: no command to learn that again */
		if (!ret || !left)
			break;
	}
	k = cands < want ? cands : want;
	first = d->rcount - cands;
	for (i = 0; i < k; i++)
		memcpy((uint8_t *)buf + (size_t)i * d->size,
		       d->ring + (size_t)ring_idx(d, first + i) * d->size, d->size);
	r->count = k;
	if (k) {
		unsigned int last = ring_idx(d, first + k - 1);

		r->first_sample_id = d->rsid[ring_idx(d, first)];
		r->latest_ts = d->rts[last];
		/* handed out: the unread ones among them, and the cursor */
		from = d->rcount - d->unread > first ? d->rcount - d->unread : first;
		if (first + k > from)
			d->unread -= first + k - from;
		if (d->rsid[last] >= d->next)
			d->next = d->rsid[last] + 1;
	}
	r->lost = d->pend_lost;
	d->lost_total += d->pend_lost;
	d->pend_lost = 0;
	return 0;
}
