// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_diag: DOCA Telemetry Diagnostics' life cycle over fwctl RPCs in the
 * mlx5 PRM layouts of hw/nic_cmd.h (Documentation/upmu-diag.rst).
 *
 * What the 16-bit mlx5 layout cannot carry is done here: 64-bit data IDs
 * map to the device's counter_ids (upmu_diag_id_to_cid()), the 16-bit
 * sample_ids and 32-bit timestamps of the records are extended to 64 bits
 * against the read cursor, and samples are handed out in DOCA's output
 * formats 0/1/2.  Reading always takes the device's whole buffer and keeps
 * the samples past the cursor: a sample is given once, a sample that was
 * overwritten before it could be read is counted as lost.
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
	/* capabilities */
	uint32_t khz;
	unsigned int log_max_samples;	/* capacity, counter-samples */
	unsigned int log_min_period;
	bool cap_single, cap_repetitive;
	unsigned int nr_caps;
	uint16_t *cap_cid;
	bool *cap_sync;
	/* configuration */
	enum upmu_diag_mode mode;
	uint64_t period_ns;
	unsigned int log_samples;
	uint32_t max_per_read;
	bool sync, clear;
	enum upmu_diag_format format;
	unsigned int log_period;	/* requested; the device's once applied */
	bool period_read_back;
	/* applied counters */
	unsigned int n;
	uint64_t *ids;
	uint16_t *cids;
	/* reading */
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

static int diag_cmd(struct upmu_diag *d, unsigned int scope, const void *in,
		    size_t in_len, void *out, size_t out_len)
{
	size_t len = out_len;
	unsigned int st;
	int ret;

	ret = d->t.rpc(d->t.priv, scope, in, in_len, out, &len);
	if (ret)
		return ret;
	if (len < NIC_HDR_OUT_LEN)
		return -EPROTO;
	st = nic_get(out, NIC_HDR_STATUS);
	if (st == NIC_STAT_OK)
		return 0;
	d->last_status = st;
	d->last_synd = nic_get(out, NIC_HDR_SYNDROME);
	return upmu_diag_fw_error(st, d->last_synd);
}

static void hdr(void *in, unsigned int opcode, unsigned int op_mod)
{
	nic_set(in, NIC_HDR_OPCODE, opcode);
	nic_set(in, NIC_HDR_OP_MOD, op_mod);
}

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
	d->cap_cid = calloc(nr + 1, sizeof(*d->cap_cid));
	d->cap_sync = calloc(nr + 1, sizeof(*d->cap_sync));
	if (!d->cap_cid || !d->cap_sync) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++) {
		d->cap_cid[i] = nic_get(cap, NIC_DEBUG_CAP_CNTR_ID(i));
		d->cap_sync[i] = nic_get(cap, NIC_DEBUG_CAP_CNTR_SYNC(i));
	}
	d->nr_caps = nr;
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
	size_t len = NIC_DIAG_PARAMS_LEN(d->nr_caps);
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

/* ---- life cycle ---------------------------------------------------------- */

int upmu_diag_create(const char *dev, bool force, struct upmu_diag **out)
{
	struct upmu_diag_transport t = { fwctl_rpc, fwctl_close, NULL };
	int fd = fwctl_find(dev);

	if (fd < 0)
		return fd;
	t.priv = (void *)(intptr_t)fd;
	return upmu_diag_create_transport(&t, force, out);
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

int upmu_diag_create_transport(const struct upmu_diag_transport *t, bool force,
			       struct upmu_diag **out)
{
	struct upmu_diag *d = calloc(1, sizeof(*d));
	unsigned int log_period;
	bool running;
	int ret;

	*out = NULL;
	if (!d) {
		if (t->close)
			t->close(t->priv);
		return -ENOMEM;
	}
	d->t = *t;
	ret = query_caps(d);
	if (ret)
		goto fail;
	/*
	 * The mlx5 layout has no owner: the engine is taken when nobody has
	 * it enabled; with @force, whoever runs it is stopped.
	 */
	ret = query_params(d, &running, &log_period);
	if (ret)
		goto fail;
	if (running) {
		if (!force) {
			ret = -EBUSY;
			goto fail;
		}
		ret = set_params(d, 0, false);
		if (ret)
			goto fail;
	}
	d->mode = d->cap_single ? UPMU_DIAG_SINGLE : UPMU_DIAG_REPETITIVE;
	d->log_period = d->log_min_period;
	d->period_ns = clk_to_ns(d, 1ull << d->log_period);
	d->log_samples = d->log_max_samples < 6 ? d->log_max_samples : 6;
	d->max_per_read = 1u << d->log_samples;
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
	if (d->state == UPMU_DIAG_READY || d->state == UPMU_DIAG_RUNNING)
		set_params(d, 0, false);
	if (d->t.close)
		d->t.close(d->t.priv);
	free(d->cap_cid);
	free(d->cap_sync);
	free(d->ids);
	free(d->cids);
	free(d);
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

int upmu_diag_get_max_samples_per_read(struct upmu_diag *d, uint32_t *n)
{
	*n = d->max_per_read;
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

enum upmu_diag_state upmu_diag_get_state(const struct upmu_diag *d)
{
	return d->state;
}

uint32_t upmu_diag_device_khz(const struct upmu_diag *d)
{
	return d->khz;
}

int upmu_diag_apply_config(struct upmu_diag *d)
{
	IN_IDLE(d);
	/* the PRM's rules: clear only with sync; on-demand neither */
	if (d->clear && (!d->sync || d->mode == UPMU_DIAG_ON_DEMAND))
		return -EINVAL;
	if (d->sync && d->mode == UPMU_DIAG_ON_DEMAND)
		return -EINVAL;
	d->state = UPMU_DIAG_CONFIGURED;
	return 0;
}

static int cap_index(const struct upmu_diag *d, int cid)
{
	unsigned int i;

	for (i = 0; cid >= 0 && i < d->nr_caps; i++)
		if (d->cap_cid[i] == cid)
			return i;
	return -1;
}

int upmu_diag_check_data_id(struct upmu_diag *d, uint64_t id, bool *supported,
			    bool *sync)
{
	int i;

	if (d->state != UPMU_DIAG_CONFIGURED)
		return -UPMU_DIAG_EBADSTATE;
	i = cap_index(d, upmu_diag_id_to_cid(id));
	*supported = i >= 0;
	if (sync)
		*sync = i >= 0 && d->cap_sync[i];
	return 0;
}

int upmu_diag_apply_counters(struct upmu_diag *d, const uint64_t *ids,
			     unsigned int n, int *fail_index, int *fail_reason)
{
	uint16_t *cids;
	unsigned int i, log_period;
	bool enable;
	int ret;

	*fail_index = -1;
	*fail_reason = NIC_DIAG_ERR_NONE;
	if (d->state != UPMU_DIAG_CONFIGURED)
		return -UPMU_DIAG_EBADSTATE;
	if (!n || n > d->nr_caps || n > 0xffff) {
		*fail_reason = NIC_DIAG_ERR_COUNT;
		return -E2BIG;
	}
	cids = calloc(n, sizeof(*cids));
	if (!cids)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int cid = upmu_diag_id_to_cid(ids[i]);

		if (cap_index(d, cid) < 0) {
			/* no counter_id for it: the firmware would not know it */
			*fail_index = i;
			*fail_reason = NIC_DIAG_ERR_UNKNOWN_ID;
			free(cids);
			return -UPMU_DIAG_ENOTSUPP_ID;
		}
		cids[i] = cid;
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
		if (d->last_status != NIC_STAT_OK) {
			unsigned int ix = NIC_SYND_INDEX(d->last_synd);

			*fail_index = ix == NIC_SYND_NO_INDEX || ix >= n ? -1 : (int)ix;
			*fail_reason = NIC_SYND_REASON(d->last_synd);
		}
		return ret;
	}
	free(d->ids);
	d->ids = malloc(n * sizeof(*ids));
	if (!d->ids) {
		set_params(d, 0, false);
		return -ENOMEM;
	}
	memcpy(d->ids, ids, n * sizeof(*ids));
	d->n = n;
	/* the period the device uses: longer with many counters */
	if (!query_params(d, &enable, &log_period) && log_period) {
		d->log_period = log_period;
		d->period_read_back = true;
	}
	ret = set_params(d, n, false);
	if (ret)
		return ret;
	d->state = UPMU_DIAG_READY;
	return 0;
}

static int start(struct upmu_diag *d)
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
	memset(&d->cur, 0, sizeof(d->cur));
	d->cur.started = true;
	d->od_sid = 0;
	d->state = UPMU_DIAG_RUNNING;
	return 0;
}

int upmu_diag_start(struct upmu_diag *d)
{
	if (d->state != UPMU_DIAG_READY)
		return -UPMU_DIAG_EBADSTATE;
	return start(d);
}

int upmu_diag_stop(struct upmu_diag *d)
{
	int ret = 0;

	if (d->state == UPMU_DIAG_IDLE)
		return -UPMU_DIAG_EBADSTATE;
	if (d->state != UPMU_DIAG_CONFIGURED)
		ret = set_params(d, 0, false);
	if (ret)
		return ret;
	d->state = UPMU_DIAG_IDLE;
	return 0;
}

int upmu_diag_restart(struct upmu_diag *d)
{
	int ret;

	if (d->state != UPMU_DIAG_RUNNING || d->mode != UPMU_DIAG_SINGLE)
		return -UPMU_DIAG_EBADSTATE;
	ret = set_params(d, d->n, false);
	return ret ? ret : start(d);
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

/*
 * Writes sample @i of @buf from @raw with sample_id @sid, its timestamps
 * (device clocks, low 32 bits) extended nearest @ref and given in ns.
 * Returns its last timestamp, in clocks.
 */
static uint64_t put_sample(struct upmu_diag *d, void *buf, size_t len,
			   unsigned int i, const struct upmu_diag_raw *raw,
			   uint64_t sid, uint64_t ref)
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
	upmu_diag_encode(buf, len, d->format, d->n, i, &s, raw->values, d->ids, ts);
	return last;
}

static int query_on_demand(struct upmu_diag *d, void *buf, struct upmu_diag_read *r)
{
	uint64_t *vals = calloc(d->n, sizeof(*vals));
	uint32_t *tss = calloc(d->n, sizeof(*tss));
	struct upmu_diag_raw raw;
	int ret;

	if (!buf || !r->count) {
		r->count = 1;
		ret = -UPMU_DIAG_EINSUFF;
		goto out;
	}
	ret = read_samples(d, 0, 1, &raw, vals, tss);
	if (ret < 0)
		goto out;
	r->count = ret;
	if (ret == 1) {
		r->first_sample_id = d->od_sid;
		d->cur.last_ts = put_sample(d, buf, r->count *
					    upmu_diag_sample_size(d->format, d->n),
					    0, &raw, d->od_sid++, d->cur.last_ts);
		r->latest_ts = clk_to_ns(d, d->cur.last_ts);
	}
	ret = 0;
out:
	free(vals);
	free(tss);
	return ret;
}

int upmu_diag_query_counters(struct upmu_diag *d, void *buf,
			     struct upmu_diag_read *r)
{
	unsigned int nr = 1u << d->log_samples, chunk, got = 0, i, k, want;
	struct upmu_diag_raw *raw = NULL;
	unsigned int *order = NULL;
	uint64_t *vals = NULL, *sid = NULL, lost, ref, period;
	uint32_t *tss = NULL;
	int ret, nr_new, first;

	r->lost = 0;
	r->latest_ts = 0;
	r->first_sample_id = 0;
	if (d->state != UPMU_DIAG_RUNNING)
		return -UPMU_DIAG_EBADSTATE;
	if (d->mode == UPMU_DIAG_ON_DEMAND)
		return query_on_demand(d, buf, r);
	raw = calloc(nr, sizeof(*raw));
	order = calloc(nr, sizeof(*order));
	sid = calloc(nr, sizeof(*sid));
	vals = calloc((size_t)nr * d->n, sizeof(*vals));
	tss = calloc((size_t)nr * d->n, sizeof(*tss));
	ret = -ENOMEM;
	if (!raw || !order || !sid || !vals || !tss)
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
	/* with a timestamp cursor: the buffer's samples newer than it */
	period = 1ull << d->log_period;	/* clocks */
	first = 0;
	if (r->last_seen_ts) {
		/* every sample in the buffer, oldest first */
		struct upmu_diag_cursor c = {
			.started = true,
			.next_sid = d->cur.next_sid > got ? d->cur.next_sid - got : 0,
		};
		uint64_t l2, t = d->cur.last_ts, s = d->cur.next_sid - 1;

		nr_new = upmu_diag_order(&c, raw, got, 0, order, sid, &l2);
		if (nr_new < 0) {
			ret = -EPROTO;
			goto out;
		}
		lost = 0;
		for (first = 0; first < nr_new; first++) {
			t = upmu_diag_extend_ts(t + (sid[first] - s) * period,
						raw[order[first]].ts_lo[0]);
			s = sid[first];
			if (clk_to_ns(d, t) > r->last_seen_ts)
				break;
		}
		/* lost: known when the cursor's sample is the one last seen */
		if (r->last_seen_ts == clk_to_ns(d, d->cur.last_ts) && first < nr_new &&
		    sid[first] > d->cur.next_sid)
			lost = sid[first] - d->cur.next_sid;
	}
	want = (unsigned int)(nr_new - first);
	if (want > d->max_per_read)
		want = d->max_per_read;
	if (!buf || !r->count) {
		r->count = want;
		r->lost = lost;
		ret = want ? -UPMU_DIAG_EINSUFF : 0;
		goto out;
	}
	if (want > r->count)
		want = r->count;
	/* timestamps: extended from the cursor's, a period per sample_id */
	ref = d->cur.last_ts;
	for (k = 0; k < want; k++) {
		uint64_t prev = k ? sid[first + k - 1] : d->cur.next_sid - 1;

		ref = put_sample(d, buf, (size_t)want * upmu_diag_sample_size(d->format, d->n),
				 k, &raw[order[first + k]], sid[first + k],
				 ref + (sid[first + k] - prev) * period);
	}
	r->count = want;
	r->lost = lost;
	if (want) {
		r->first_sample_id = sid[first];
		r->latest_ts = clk_to_ns(d, ref);
		if (sid[first + want - 1] >= d->cur.next_sid) {
			d->cur.next_sid = sid[first + want - 1] + 1;
			d->cur.last_ts = ref;
		}
	}
	d->lost_total += lost;
	ret = 0;
out:
	free(raw);
	free(order);
	free(sid);
	free(vals);
	free(tss);
	return ret;
}
