// SPDX-License-Identifier: GPL-2.0
/*
 * The perf decoder's parse library (tools/perf-aux/upmu-nic-aux-parse.c)
 * on the host, under ASan/UBSan: good records with their exact fields,
 * every kind of malformed input with its exact error, records that
 * straddle two AUX buffers, the data-ID names against upmu-diag's, and a
 * deterministic fuzz loop of random and mutated streams (at least 10^6
 * inputs; UPMU_AUX_FUZZ_N=N for another count, UPMU_FUZZ_SEED=S to replay).
 * Built with -DUPMU_LIBFUZZER it is a libFuzzer target instead (make fuzz).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upmu-nic-aux.h"
#include "upmu-nic-aux-parse.h"
#include "upmu_diag.h"
#include "aux_records.h"

/* ---- building records ------------------------------------------------ */

static void meta(struct aux_wbuf *w, uint64_t time, unsigned int nr, const uint64_t *ids)
{
	aux_meta(w, time, 0x1234, 5000000, nr, ids);
}

/* device times: 1000 * sample_id .. + 10 */
static void sample(struct aux_wbuf *w, uint64_t time, uint64_t sid, unsigned int nr,
		   const uint64_t *vals)
{
	aux_sample(w, time, sid, 1000 * sid, 1000 * sid + 10, nr, vals);
}

static void lost(struct aux_wbuf *w, uint64_t time, uint64_t first, uint64_t last)
{
	aux_lost(w, time, first, last);
}

/* ---- checks ------------------------------------------------------------ */

static int failures, checks;

#define CHECK(cond, ...) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		printf("#   FAIL %s:%d: %s: ", __func__, __LINE__, #cond);	\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

#define EQ(a, b) CHECK((uint64_t)(a) == (uint64_t)(b), "%s = %llu, expected %llu", #a, \
		       (unsigned long long)(a), (unsigned long long)(b))

static const uint64_t ids2[2] = { 0x1020000100000000ull, 0x1140000100000000ull };

/* The events of buffers @bufs (split at @cuts), as "R<type>" / "E<err>" ... */
struct evlog {
	struct upmu_aux_ev ev[64];
	unsigned int n;
};

static void walk(struct upmu_aux_stream *s, const unsigned char *buf, size_t len,
		 const size_t *cuts, unsigned int ncut, struct evlog *log)
{
	size_t start = 0;
	unsigned int c;
	struct upmu_aux_ev ev;

	log->n = 0;
	for (c = 0; c <= ncut; c++) {
		size_t end = c < ncut ? cuts[c] : len;

		upmu_aux_stream_feed(s, buf + start, end - start, start);
		for (;;) {
			upmu_aux_stream_next(s, &ev);
			if (ev.type == UPMU_AUX_EV_END)
				break;
			if (log->n < 64)
				log->ev[log->n++] = ev;
		}
		start = end;
	}
	upmu_aux_stream_flush(s, &ev);
	if (ev.type != UPMU_AUX_EV_END && log->n < 64)
		log->ev[log->n++] = ev;
}

static void test_good(struct upmu_aux_stream *s)
{
	uint64_t v1[2] = { 6400, 0 }, v2[2] = { 12800, 64 };
	struct aux_wbuf w = { .len = 0 };
	struct evlog log;
	const struct upmu_aux_rec *r;

	meta(&w, 1000, 2, ids2);
	sample(&w, 1100, 17, 2, v1);
	lost(&w, 1200, 18, 20);
	sample(&w, 1300, 21, 2, v2);
	memset(w.b + w.len, 0, 7);	/* an AUXTRACE payload's padding */
	w.len += 7;
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 4);
	for (unsigned int i = 0; i < log.n; i++)
		EQ(log.ev[i].type, UPMU_AUX_EV_REC);
	r = &log.ev[0].rec;
	EQ(r->type, UPMU_AUX_META);
	EQ(r->size, 64 + 16);
	EQ(r->nr, 2);
	EQ(r->seq, 0);
	EQ(r->time, 1000);
	EQ(r->meta.serial, 0x1234);
	EQ(r->meta.dev_khz, 1000000);
	EQ(r->meta.mode, 1);
	EQ(r->meta.period_ns, 1 << 20);
	EQ(r->meta.dev_time, 5000000);
	EQ(upmu_aux_stream_id(s, 0), ids2[0]);
	EQ(upmu_aux_stream_id(s, 1), ids2[1]);
	EQ(upmu_aux_stream_id(s, 2), 0);
	r = &log.ev[1].rec;
	EQ(r->type, UPMU_AUX_SAMPLE);
	EQ(r->size, 56 + 16);
	EQ(r->seq, 1);
	EQ(r->time, 1100);
	EQ(r->sample.sample_id, 17);
	EQ(r->sample.dev_ts_first, 17000);
	EQ(r->sample.dev_ts_last, 17010);
	EQ(upmu_aux_rec_u64(r, 0), 6400);
	EQ(upmu_aux_rec_u64(r, 1), 0);
	EQ(upmu_aux_rec_u64(r, 2), 0);
	EQ(log.ev[1].pos, 80);
	r = &log.ev[2].rec;
	EQ(r->type, UPMU_AUX_LOST);
	EQ(r->lost.count, 3);
	EQ(r->lost.first_id, 18);
	EQ(r->lost.last_id, 20);
	EQ(r->lost.reason, 1);
	r = &log.ev[3].rec;
	EQ(r->sample.sample_id, 21);
	EQ(upmu_aux_rec_u64(r, 0), 12800);
	EQ(upmu_aux_rec_u64(r, 1), 64);
	EQ(s->records, 4);
	EQ(s->samples, 2);
	EQ(s->lost_records, 1);
	EQ(s->lost_samples, 3);
	EQ(s->errors, 0);
	EQ(s->sid_gaps, 0);
	EQ(s->seq_gaps, 0);

	/* the same split at every 8-byte boundary: the record is joined */
	for (size_t cut = 8; cut < w.len - 7; cut += 8) {
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, &cut, 1, &log);
		EQ(log.n, 4);
		EQ(s->records, 4);
		EQ(s->errors, 0);
		EQ(log.ev[3].rec.sample.sample_id, 21);
		EQ(upmu_aux_rec_u64(&log.ev[3].rec, 0), 12800);
		EQ(upmu_aux_rec_u64(&log.ev[1].rec, 0), 6400);
	}
}

/* One malformed record between two good ones: its error, then resync. */
static void one_bad(struct upmu_aux_stream *s, const char *what, size_t off,
		    const void *val, size_t n, int err, uint32_t bad, uint64_t skipped)
{
	uint64_t v[2] = { 1, 2 };
	struct aux_wbuf w = { .len = 0 };
	struct evlog log;
	unsigned int i, nerr = 0;

	meta(&w, 1000, 2, ids2);
	size_t at = w.len;

	sample(&w, 1100, 1, 2, v);
	sample(&w, 1200, 2, 2, v);
	memcpy(w.b + at + off, val, n);
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	for (i = 0; i < log.n; i++) {
		if (log.ev[i].type != UPMU_AUX_EV_ERROR)
			continue;
		nerr++;
		CHECK(log.ev[i].err == err, "%s: error %d (%s), expected %d", what,
		      log.ev[i].err, upmu_aux_strerror(log.ev[i].err), err);
		CHECK(log.ev[i].bad == bad, "%s: bad %u, expected %u", what,
		      log.ev[i].bad, bad);
		CHECK(log.ev[i].pos == at, "%s: at %zu, expected %zu", what,
		      log.ev[i].pos, at);
		CHECK(log.ev[i].skipped == skipped, "%s: skipped %llu, expected %llu",
		      what, (unsigned long long)log.ev[i].skipped,
		      (unsigned long long)skipped);
	}
	CHECK(nerr == 1, "%s: %u errors", what, nerr);
	/* the record after it is found again */
	CHECK(log.n && log.ev[log.n - 1].type == UPMU_AUX_EV_REC &&
	      log.ev[log.n - 1].rec.sample.sample_id == 2, "%s: no resync", what);
}

static void test_malformed(struct upmu_aux_stream *s)
{
	/* a field of the middle record set to a value: its error, the bad value */
	static const struct {
		const char *what;
		size_t off, width;
		uint32_t val;
		int err;
		uint32_t bad;
	} cases[] = {
		{ "magic", 0, 4, 0xdeadbeef, UPMU_AUX_ERR_MAGIC, 0xdeadbeef },
		{ "version", 4, 2, UPMU_AUX_VERSION + 1, UPMU_AUX_ERR_VERSION,
		  UPMU_AUX_VERSION + 1 },
		{ "version 0", 4, 2, 0, UPMU_AUX_ERR_VERSION, 0 },
		{ "type 0", 6, 2, 0, UPMU_AUX_ERR_TYPE, 0 },
		{ "type 5", 6, 2, 5, UPMU_AUX_ERR_TYPE, 5 },
		{ "SAMPLES type on a SAMPLE", 6, 2, 4, UPMU_AUX_ERR_COUNT, 72 },
		{ "size not a multiple of 8", 8, 4, 68, UPMU_AUX_ERR_SIZE, 68 },
		{ "size < 32", 8, 4, 24, UPMU_AUX_ERR_SIZE, 24 },
		{ "huge size", 8, 4, 0x7ffffff8, UPMU_AUX_ERR_SIZE, 0x7ffffff8 },
		{ "size != nr", 8, 4, 64, UPMU_AUX_ERR_NR, 64 },
		{ "nr != size", 12, 4, 3, UPMU_AUX_ERR_NR, 72 },
		{ "nr huge", 12, 4, 0x80000000, UPMU_AUX_ERR_NR, 72 },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t u32 = cases[i].val;
		uint16_t u16 = cases[i].val;

		one_bad(s, cases[i].what, cases[i].off, cases[i].width == 4 ?
			(const void *)&u32 : (const void *)&u16, cases[i].width,
			cases[i].err, cases[i].bad, 72);
	}
	/* valid alone, wrong in the stream: dropped as one record */
	{
		uint64_t v[3] = { 1, 2, 3 };
		struct aux_wbuf w = { .len = 0 };
		struct evlog log;

		/* a SAMPLE before any META */
		sample(&w, 1, 1, 2, v);
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, NULL, 0, &log);
		EQ(log.n, 1);
		EQ(log.ev[0].type, UPMU_AUX_EV_ERROR);
		EQ(log.ev[0].err, UPMU_AUX_ERR_NO_META);
		EQ(log.ev[0].skipped, 72);

		/* nr of the SAMPLE is not the META's */
		w.len = 0;
		w.seq = 0;
		meta(&w, 1, 2, ids2);
		sample(&w, 2, 1, 3, v);
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, NULL, 0, &log);
		EQ(log.n, 2);
		EQ(log.ev[1].type, UPMU_AUX_EV_ERROR);
		EQ(log.ev[1].err, UPMU_AUX_ERR_NR_META);
		EQ(log.ev[1].bad, 3);

		/* sample_id going back; a gap without LOST; a seq gap */
		w.len = 0;
		w.seq = 0;
		meta(&w, 1, 2, ids2);
		sample(&w, 2, 5, 2, v);
		sample(&w, 3, 5, 2, v);
		sample(&w, 4, 9, 2, v);		/* 6..8 unreported */
		w.seq += 2;			/* two records missing */
		lost(&w, 5, 12, 13);		/* 10..11 unreported */
		sample(&w, 6, 14, 2, v);
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, NULL, 0, &log);
		EQ(log.n, 9);
		EQ(log.ev[2].type, UPMU_AUX_EV_ERROR);
		EQ(log.ev[2].err, UPMU_AUX_ERR_SID);
		EQ(log.ev[2].first, 5);
		EQ(log.ev[3].type, UPMU_AUX_EV_SID_GAP);
		EQ(log.ev[3].first, 6);
		EQ(log.ev[3].last, 8);
		EQ(log.ev[3].time, 4);
		EQ(log.ev[4].type, UPMU_AUX_EV_REC);
		EQ(log.ev[5].type, UPMU_AUX_EV_SEQ_GAP);
		EQ(log.ev[5].first, 4);
		EQ(log.ev[5].last, 5);
		EQ(log.ev[6].type, UPMU_AUX_EV_SID_GAP);
		EQ(log.ev[6].first, 10);
		EQ(log.ev[6].last, 11);
		EQ(log.ev[7].type, UPMU_AUX_EV_REC);
		EQ(log.ev[7].rec.type, UPMU_AUX_LOST);
		EQ(log.ev[8].rec.sample.sample_id, 14);
		EQ(s->sid_gaps, 2);
		EQ(s->sid_gap_samples, 5);
		EQ(s->seq_gaps, 1);
		EQ(s->lost_samples, 2);
		EQ(s->samples, 3);

		/* LOST whose count is not its range */
		w.len = 0;
		w.seq = 0;
		lost(&w, 1, 3, 5);
		w.b[32] = 4;
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, NULL, 0, &log);
		EQ(log.n, 1);
		EQ(log.ev[0].err, UPMU_AUX_ERR_LOST);
		w.b[32] = 3;
		w.b[40] = 6;			/* first 6 > last 5 */
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, NULL, 0, &log);
		EQ(log.ev[0].err, UPMU_AUX_ERR_LOST);
		/* LOST with nr != 0 */
		w.b[40] = 3;
		w.b[12] = 1;
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, NULL, 0, &log);
		EQ(log.ev[0].err, UPMU_AUX_ERR_NR);
	}
}

static void test_truncated(struct upmu_aux_stream *s)
{
	uint64_t v[2] = { 1, 2 };
	struct aux_wbuf w = { .len = 0 };
	struct evlog log;
	size_t cut;

	meta(&w, 1, 2, ids2);
	sample(&w, 2, 1, 2, v);
	/* the data ends inside the SAMPLE, at every length */
	for (size_t end = 81; end < w.len; end++) {
		upmu_aux_stream_reset(s);
		walk(s, w.b, end, NULL, 0, &log);
		EQ(log.n, 2);
		EQ(log.ev[0].type, UPMU_AUX_EV_REC);
		EQ(log.ev[1].type, UPMU_AUX_EV_ERROR);
		EQ(log.ev[1].err, UPMU_AUX_ERR_SHORT);
		EQ(log.ev[1].skipped, end - 80);
	}
	/* non-zero bytes after the last record that cannot start one */
	memset(w.b + w.len, 0, 8);
	w.b[w.len + 2] = 1;
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len + 3, NULL, 0, &log);
	EQ(log.n, 3);
	EQ(log.ev[2].type, UPMU_AUX_EV_ERROR);
	EQ(log.ev[2].err, UPMU_AUX_ERR_SHORT);
	EQ(log.ev[2].skipped, 3);
	/* 8 zero bytes are not padding: a record that is not one */
	upmu_aux_stream_reset(s);
	w.b[w.len + 2] = 0;
	walk(s, w.b, w.len + 8, NULL, 0, &log);
	EQ(log.n, 3);
	EQ(log.ev[2].err, UPMU_AUX_ERR_MAGIC);
	EQ(log.ev[2].skipped, 8);

	/* a record straddling two buffers that do not follow each other */
	cut = 100;
	upmu_aux_stream_reset(s);
	upmu_aux_stream_feed(s, w.b, cut, 0);
	{
		struct upmu_aux_ev ev;
		unsigned int n = 0, err = 0, gap = 0;

		for (;;) {
			upmu_aux_stream_next(s, &ev);
			if (ev.type == UPMU_AUX_EV_END)
				break;
			n++;
		}
		EQ(n, 1);
		upmu_aux_stream_feed(s, w.b + cut, w.len - cut, cut + 4096);
		for (;;) {
			upmu_aux_stream_next(s, &ev);
			if (ev.type == UPMU_AUX_EV_END)
				break;
			if (ev.type == UPMU_AUX_EV_DATA_GAP) {
				gap++;
				EQ(ev.skipped, 4096);
			}
			if (ev.type == UPMU_AUX_EV_ERROR) {
				err++;
				if (err == 1) {
					EQ(ev.err, UPMU_AUX_ERR_SHORT);
					EQ(ev.skipped, 20);
				}
			}
		}
		EQ(gap, 1);
		EQ(err, 2);	/* the cut head, then the tail it left */
	}
}

/*
 * SAMPLES (version 2): one record handed out as itself, then as one SAMPLE per sample,
 * with the converted times, split anywhere; its malformed forms.
 */
static void test_samples(struct upmu_aux_stream *s)
{
	uint64_t v[6] = { 10, 11, 20, 21, 30, 31 };
	struct aux_wbuf w = { .len = 0 };
	struct evlog log;
	size_t at, cut;
	unsigned int i;

	meta(&w, 1000, 2, ids2);
	/* read at perf 90000 when the device said 40000: perf = dev + 50000 */
	aux_samples(&w, 90000, 40000, 7, 3, 2, v);
	lost(&w, 91000, 10, 11);
	aux_samples(&w, 92000, 40000, 12, 1, 2, v + 4);
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 8);
	for (i = 0; i < log.n; i++)
		EQ(log.ev[i].type, UPMU_AUX_EV_REC);
	/* the record itself, then its samples */
	EQ(log.ev[1].rec.type, UPMU_AUX_SAMPLES);
	EQ(log.ev[1].batched, 0);
	EQ(log.ev[1].pos, 80);
	EQ(log.ev[1].rec.samples.first_id, 7);
	EQ(log.ev[1].rec.samples.count, 3);
	EQ(log.ev[1].rec.samples.stride, 40);
	EQ(log.ev[1].rec.samples.dev_time, 40000);
	EQ(log.ev[1].rec.time, 90000);
	for (i = 0; i < 3; i++) {
		const struct upmu_aux_rec *r = &log.ev[2 + i].rec;

		EQ(r->type, UPMU_AUX_SAMPLE);
		EQ(r->size, 24 + 16);
		EQ(r->nr, 2);
		EQ(r->seq, 1);
		EQ(r->sample.sample_id, 7 + i);
		EQ(r->sample.dev_ts_first, 1000 * (7 + i));
		EQ(r->sample.dev_ts_last, 1000 * (7 + i) + 10);
		EQ(r->time, 1000 * (7 + i) + 10 + 50000);
		EQ(log.ev[2 + i].time, r->time);
		EQ(log.ev[2 + i].batched, 1);
		EQ(upmu_aux_rec_u64(r, 0), 10 * (i + 1));
		EQ(upmu_aux_rec_u64(r, 1), 10 * (i + 1) + 1);
		EQ(log.ev[2 + i].pos, 80 + 56 + 40 * i);
	}
	EQ(log.ev[5].rec.type, UPMU_AUX_LOST);
	EQ(log.ev[6].rec.type, UPMU_AUX_SAMPLES);
	EQ(log.ev[7].rec.sample.sample_id, 12);
	EQ(log.ev[7].rec.seq, 3);
	/* its own clocks: 92000 - (40000 - 12010) */
	EQ(log.ev[7].rec.time, 12010 + 52000);
	EQ(upmu_aux_rec_u64(&log.ev[7].rec, 0), 30);
	EQ(s->records, 4);
	EQ(s->samples, 4);
	EQ(s->lost_samples, 2);
	EQ(s->errors + s->sid_gaps + s->seq_gaps, 0);
	EQ(upmu_aux_dev_to_perf(100, 1000, 10), 0);
	EQ(upmu_aux_dev_to_perf(100, 10, 1000), 100);

	/* split at every 8-byte boundary: joined, the same samples */
	for (cut = 8; cut < w.len; cut += 8) {
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, &cut, 1, &log);
		EQ(log.n, 8);
		EQ(s->errors, 0);
		EQ(log.ev[4].rec.sample.sample_id, 9);
		EQ(upmu_aux_rec_u64(&log.ev[4].rec, 1), 31);
		EQ(log.ev[7].rec.sample.sample_id, 12);
	}

	/* a sample whose own id is not its place: that one is dropped */
	at = 80 + 56 + 40;
	w.b[at] ^= 1;
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 8);
	EQ(log.ev[3].type, UPMU_AUX_EV_ERROR);
	EQ(log.ev[3].err, UPMU_AUX_ERR_DEV_SID);
	EQ(log.ev[3].first, 8);
	EQ(log.ev[3].skipped, 40);
	EQ(log.ev[4].rec.sample.sample_id, 9);
	EQ(s->samples, 3);
	w.b[at] ^= 1;
	w.b[at + 4] = 1;	/* its upper half is not 0 */
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.ev[3].err, UPMU_AUX_ERR_DEV_SID);
	w.b[at + 4] = 0;

	/* count 0, a stride that is not nr's, a size that is not count's */
	{
		static const struct { size_t off; uint32_t val; } bad[] = {
			{ 48, 0 }, { 52, 48 }, { 48, 4 }, { 48, 0x80000000 },
		};

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			uint32_t keep;

			memcpy(&keep, w.b + 80 + bad[i].off, 4);
			memcpy(w.b + 80 + bad[i].off, &bad[i].val, 4);
			upmu_aux_stream_reset(s);
			walk(s, w.b, w.len, NULL, 0, &log);
			EQ(log.ev[1].type, UPMU_AUX_EV_ERROR);
			EQ(log.ev[1].err, UPMU_AUX_ERR_COUNT);
			EQ(log.ev[1].pos, 80);
			/* the LOST after it is found again */
			EQ(log.ev[log.n - 3].rec.type, UPMU_AUX_LOST);
			memcpy(w.b + 80 + bad[i].off, &keep, 4);
		}
	}
	/* shorter than its own header */
	{
		struct aux_wbuf t = { .len = 0 };

		aux_hdr(&t, UPMU_AUX_SAMPLES, 48, 0, 1);
		aux_put64(&t, 0);
		aux_put64(&t, 0);
		upmu_aux_stream_reset(s);
		walk(s, t.b, t.len, NULL, 0, &log);
		EQ(log.n, 1);
		EQ(log.ev[0].err, UPMU_AUX_ERR_NR);
	}
	/* SAMPLES before any META, and going back */
	w.len = 0;
	w.seq = 0;
	aux_samples(&w, 1, 0, 7, 2, 2, v);
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 1);
	EQ(log.ev[0].err, UPMU_AUX_ERR_NO_META);
	EQ(log.ev[0].skipped, 56 + 80);
	w.len = 0;
	w.seq = 0;
	meta(&w, 1, 2, ids2);
	aux_samples(&w, 2, 0, 7, 2, 2, v);
	aux_samples(&w, 3, 0, 8, 2, 2, v);	/* 8 again */
	aux_samples(&w, 4, 0, 12, 1, 2, v);	/* 9..11 unreported */
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 8);
	EQ(log.ev[4].err, UPMU_AUX_ERR_SID);
	EQ(log.ev[4].first, 8);
	EQ(log.ev[5].type, UPMU_AUX_EV_SID_GAP);
	EQ(log.ev[5].first, 9);
	EQ(log.ev[5].last, 11);
	EQ(log.ev[6].rec.type, UPMU_AUX_SAMPLES);
	EQ(log.ev[7].rec.sample.sample_id, 12);
}

/* Names: the same as upmu-diag's for every row and many instances. */
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_names(void)
{
	static const uint32_t los[] = {
		0, 1, 2, 7, 0xff, 0x100, 0x107, 0x701, 0x801, 0xfff, 0x1000, 0x3ff,
		0x400, 0xffff, 0x10000, 0x01000000, 0x07000001, 0x08000000, 0x0100ff00,
		0x00010000, 0xffffffff, 0x7f, 0x17f,
	};
	char a[64], b[64];
	unsigned int i, j, diff = 0;

	for (i = 0; i < upmu_aux_nr_id_rows; i++) {
		for (j = 0; j < sizeof(los) / sizeof(los[0]); j++) {
			uint64_t id = (uint64_t)upmu_aux_id_rows[i].hi << 32 | los[j];

			upmu_aux_id_name(id, a, sizeof(a));
			upmu_diag_id_name(id, b, sizeof(b));
			if (strcmp(a, b) && diff++ < 5)
				printf("#   name of 0x%016llx: %s, upmu-diag: %s\n",
				       (unsigned long long)id, a, b);
		}
	}
	for (i = 0; i < 100000; i++) {
		uint64_t id = rnd();

		if (i & 1)
			id = (uint64_t)upmu_aux_id_rows[id % upmu_aux_nr_id_rows].hi << 32 |
			     (rnd() & (i & 2 ? 0xfff : 0x0f0000ff));
		upmu_aux_id_name(id, a, sizeof(a));
		upmu_diag_id_name(id, b, sizeof(b));
		if (strcmp(a, b) && diff++ < 5)
			printf("#   name of 0x%016llx: %s, upmu-diag: %s\n",
			       (unsigned long long)id, a, b);
	}
	EQ(diff, 0);
	upmu_aux_id_name(ids2[0], a, sizeof(a));
	CHECK(!strcmp(a, "port_rx_bytes.p0"), "%s", a);
	upmu_aux_id_name(0x1160000a03000001ull, a, sizeof(a));
	CHECK(!strcmp(a, "pcie_stall_np_order_ns.l1.tc3"), "%s", a);
	upmu_aux_id_name(0x99, a, 8);	/* cut to the buffer */
	CHECK(!strcmp(a, "0x00000"), "%s", a);
}

/* ---- fuzzing ----------------------------------------------------------- */

/* Walk @len bytes cut into buffers at @cuts; invariants of what comes out. */
static int fuzz_one(struct upmu_aux_stream *s, const unsigned char *data, size_t len,
		    const size_t *cuts, unsigned int ncut)
{
	struct upmu_aux_ev ev;
	size_t start = 0;
	uint64_t events = 0;
	unsigned int c;

	upmu_aux_stream_reset(s);
	for (c = 0; c <= ncut; c++) {
		size_t end = c < ncut ? cuts[c] : len;

		if (upmu_aux_stream_feed(s, data + start, end - start, start))
			return -1;
		for (;;) {
			upmu_aux_stream_next(s, &ev);
			if (ev.type == UPMU_AUX_EV_END)
				break;
			/* every event consumes bytes, except gaps before a record */
			if (++events > 4 * (len + 8))
				return -1;
			if (ev.type == UPMU_AUX_EV_REC) {
				const struct upmu_aux_rec *r = &ev.rec;
				uint64_t sum = 0;
				unsigned int i;

				if (r->size < 32 || r->size % 8 || r->nr > UPMU_AUX_MAX_NR)
					return -1;
				if (r->type == UPMU_AUX_SAMPLE || r->type == UPMU_AUX_META)
					for (i = 0; i < r->nr; i++)
						sum += upmu_aux_rec_u64(r, i);
				(void)sum;
				if (r->type == UPMU_AUX_SAMPLE)
					for (i = 0; i < r->nr; i++)
						(void)upmu_aux_stream_id(s, i);
			}
			if (s->pos > s->len)
				return -1;
		}
		start = end;
	}
	upmu_aux_stream_flush(s, &ev);
	/* a record is 32 bytes or more, a sample in SAMPLES 24 or more */
	if (s->samples > len / 24 + 1 || s->records > len / 32 + 1)
		return -1;
	return 0;
}

#ifdef UPMU_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct upmu_aux_stream s;
	size_t cuts[2];
	unsigned int ncut = 0;
	char name[64];

	/* the first bytes choose a cut */
	if (size >= 2) {
		cuts[0] = data[0] % (size + 1);
		ncut = data[1] & 1;
	}
	if (size >= 8) {
		uint64_t id;

		memcpy(&id, data, 8);
		upmu_aux_id_name(id, name, sizeof(name));
	}
	if (fuzz_one(&s, data, size, cuts, ncut))
		abort();
	return 0;
}
#else

static void fuzz(struct upmu_aux_stream *s, unsigned long n)
{
	static unsigned char good[4096], buf[4096];
	uint64_t v[4] = { 1, 2, 3, 4 }, ids[4] = { ids2[0], ids2[1], 0x10c0000100000000ull, 7 };
	struct aux_wbuf *w = calloc(1, sizeof(*w));
	size_t glen, len, cuts[3];
	unsigned long i;
	unsigned int ncut, k, bad = 0;

	/* a valid stream to mutate */
	meta(w, 10, 4, ids);
	for (k = 0; k < 8; k++)
		sample(w, 20 + k, 100 + k, 4, v);
	lost(w, 30, 108, 110);
	meta(w, 40, 2, ids);
	sample(w, 41, 111, 2, v);
	aux_samples(w, 50, 45, 112, 2, 2, v);
	lost(w, 51, 114, 114);
	aux_samples(w, 52, 45, 115, 1, 2, v);
	glen = w->len;
	memcpy(good, w->b, glen);
	free(w);

	for (i = 0; i < n; i++) {
		switch (rnd() % 4) {
		case 0:		/* random bytes */
			len = rnd() % 512;
			for (k = 0; k < len; k++)
				buf[k] = rnd();
			break;
		case 1:		/* random bytes behind a valid header */
			len = rnd() % 512 + 32;
			for (k = 0; k < len; k++)
				buf[k] = rnd();
			memcpy(buf, good + (rnd() % 2 ? 0 : 96), 16);
			break;
		default:	/* the valid stream, mutated and cut */
			len = glen - (rnd() % 3 ? 0 : rnd() % glen);
			memcpy(buf, good, len);
			for (k = rnd() % 6; k; k--) {
				size_t at = rnd() % len;

				switch (rnd() % 4) {
				case 0:
					buf[at] = rnd();
					break;
				case 1:
					buf[at] ^= 1u << (rnd() % 8);
					break;
				case 2:	/* a small integer in a field */
					if (at + 4 <= len) {
						uint32_t x = rnd() % 80;

						memcpy(buf + (at & ~3ul), &x, 4);
					}
					break;
				default:
					buf[at] = 0;
					break;
				}
			}
			break;
		}
		ncut = rnd() % 3;
		for (k = 0; k < ncut; k++)
			cuts[k] = len ? rnd() % (len + 1) : 0;
		if (ncut == 2 && cuts[0] > cuts[1]) {
			size_t t = cuts[0];

			cuts[0] = cuts[1];
			cuts[1] = t;
		}
		if (fuzz_one(s, buf, len, cuts, ncut) && bad++ < 3)
			printf("#   fuzz input %lu: invariant broken\n", i);
	}
	EQ(bad, 0);
}

int main(void)
{
	struct upmu_aux_stream s;
	unsigned long n = 1000000;
	const char *e;
	time_t t0 = time(NULL);
	uint64_t seed;

	e = getenv("UPMU_FUZZ_SEED");
	rng = e ? strtoull(e, NULL, 0) : 0x5eed0001ull;
	if (!rng)
		rng = 1;
	seed = rng;
	e = getenv("UPMU_AUX_FUZZ_N");
	if (e)
		n = strtoul(e, NULL, 0);
	printf("TAP version 13\n1..6\n");
	upmu_aux_stream_init(&s);
	if (upmu_aux_stream_feed(&s, "", 0, 0)) {
		printf("not ok 1 # out of memory\n");
		return 1;
	}

	struct { const char *name; int which; } tests[] = {
		{ "good records, split at every offset", 0 },
		{ "malformed records: exact errors and resync", 1 },
		{ "truncated data and cut buffers", 2 },
		{ "data-ID names as upmu-diag gives them", 3 },
		{ "SAMPLES: a sample each, times, splits, errors", 5 },
		{ "fuzz", 4 },
	};
	int total = 0;

	for (unsigned int t = 0; t < 6; t++) {
		int f0 = failures;

		switch (tests[t].which) {
		case 0:
			test_good(&s);
			break;
		case 1:
			test_malformed(&s);
			break;
		case 2:
			test_truncated(&s);
			break;
		case 3:
			test_names();
			break;
		case 5:
			test_samples(&s);
			break;
		default:
			printf("# fuzz: %lu inputs, seed 0x%llx (UPMU_FUZZ_SEED)\n", n,
			       (unsigned long long)seed);
			fuzz(&s, n);
			break;
		}
		if (failures == f0) {
			printf("ok %u %s\n", t + 1, tests[t].name);
			total++;
		} else {
			printf("not ok %u %s\n", t + 1, tests[t].name);
		}
	}
	upmu_aux_stream_exit(&s);
	printf("# %d passed, %d failed (%d checks, %ld s)\n", total, 6 - total, checks,
	       (long)(time(NULL) - t0));
	return failures ? 1 : 0;
}
#endif
