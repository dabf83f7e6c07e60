/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing AUX stream records (hw/upmu_aux.h) for the host tests of the
 * perf decoder: aux_parse_test.c and aux_perfdata.c.
 */
#ifndef UPMU_AUX_RECORDS_H
#define UPMU_AUX_RECORDS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upmu-nic-aux.h"

struct aux_wbuf {
	unsigned char b[8192];
	size_t len;
	uint64_t seq;		/* of the next record */
	uint16_t version;	/* of its records; 0: UPMU_AUX_VERSION */
};

static inline void aux_put(struct aux_wbuf *w, const void *p, size_t n)
{
	if (w->len + n > sizeof(w->b))
		abort();
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static inline void aux_put64(struct aux_wbuf *w, uint64_t v)
{
	aux_put(w, &v, 8);
}

static inline void aux_hdr(struct aux_wbuf *w, uint16_t type, uint32_t size,
			   uint32_t nr, uint64_t time)
{
	struct upmu_aux_hdr h = {
		.magic = UPMU_AUX_MAGIC, .version = w->version ?: UPMU_AUX_VERSION, .type = type,
		.size = size, .nr = nr, .seq = w->seq++, .time = time,
	};

	aux_put(w, &h, sizeof(h));
}

/* A META: 1 GHz device, repetitive mode, period 2^20 ns. */
static inline void aux_meta(struct aux_wbuf *w, uint64_t time, uint32_t serial,
			    uint64_t dev_time, unsigned int nr, const uint64_t *ids)
{
	struct upmu_aux_meta m = {
		.serial = serial, .dev_khz = 1000000, .mode = 1, .flags = 0,
		.period_ns = 1 << 20, .dev_time = dev_time,
	};
	unsigned int i;

	aux_hdr(w, UPMU_AUX_META, sizeof(m) + 8 * nr, nr, time);
	aux_put(w, (char *)&m + sizeof(m.hdr), sizeof(m) - sizeof(m.hdr));
	for (i = 0; i < nr; i++)
		aux_put64(w, ids[i]);
}

static inline void aux_sample(struct aux_wbuf *w, uint64_t time, uint64_t sid,
			      uint64_t ts_first, uint64_t ts_last, unsigned int nr,
			      const uint64_t *vals)
{
	unsigned int i;

	aux_hdr(w, UPMU_AUX_SAMPLE, sizeof(struct upmu_aux_sample) + 8 * nr, nr, time);
	aux_put64(w, sid);
	aux_put64(w, ts_first);
	aux_put64(w, ts_last);
	for (i = 0; i < nr; i++)
		aux_put64(w, vals[i]);
}

/*
 * A SAMPLES record of @count samples first..first+count-1 with values
 * @vals[i * nr + j], read at perf time @time when the device clock said
 * @dev_time; sample i spans device times @ts_last[i] - 20 .. @ts_last[i]
 * (aux_samples: 1000 * sample_id .. + 10).
 */
static inline void aux_samples_ts(struct aux_wbuf *w, uint64_t time, uint64_t dev_time,
				  uint64_t first, uint32_t count, unsigned int nr,
				  const uint64_t *vals, const uint64_t *ts_last)
{
	uint32_t stride = sizeof(struct upmu_aux_dev_sample) + 8 * nr;
	uint32_t cs[2] = { count, stride };
	unsigned int i, j;

	aux_hdr(w, UPMU_AUX_SAMPLES, sizeof(struct upmu_aux_samples) + count * stride,
		nr, time);
	aux_put64(w, first);
	aux_put64(w, dev_time);
	aux_put(w, cs, sizeof(cs));
	for (i = 0; i < count; i++) {
		uint64_t sid = first + i;
		uint32_t id[2] = { (uint32_t)sid, 0 };

		aux_put(w, id, sizeof(id));
		aux_put64(w, ts_last ? ts_last[i] - 20 : 1000 * sid);
		aux_put64(w, ts_last ? ts_last[i] : 1000 * sid + 10);
		for (j = 0; j < nr; j++)
			aux_put64(w, vals[i * nr + j]);
	}
}

static inline void aux_samples(struct aux_wbuf *w, uint64_t time, uint64_t dev_time,
			       uint64_t first, uint32_t count, unsigned int nr,
			       const uint64_t *vals)
{
	aux_samples_ts(w, time, dev_time, first, count, nr, vals, NULL);
}

/* A LOST of first..last, reason 1 (overwritten). */
static inline void aux_lost(struct aux_wbuf *w, uint64_t time, uint64_t first,
			    uint64_t last)
{
	uint64_t v[3] = { last - first + 1, first, last };
	uint32_t reason[2] = { 1, 0 };

	aux_hdr(w, UPMU_AUX_LOST, sizeof(struct upmu_aux_lost), 0, time);
	aux_put(w, v, sizeof(v));
	aux_put(w, reason, sizeof(reason));
}

#endif
