// SPDX-License-Identifier: GPL-2.0
/*
 * The perf decoder's parse library (tools/perf-aux/upmu-nic-aux-parse.c)
 * on the host, under ASan/UBSan: good records with their exact fields,
 * every kind of malformed input with its exact error, records that
 * straddle two or more AUX buffers, overlapping buffers, the data-ID names
 * against upmu-diag's, the seed corpus (selftests/upmu/aux-corpus/), and
 * a deterministic fuzz loop of random and mutated streams (at least 10^6
 * inputs; UPMU_AUX_FUZZ_N=N for another count, UPMU_FUZZ_SEED=S to replay).
 *
 * Every buffer the library reads is allocated at exactly its length, so
 * that a read one byte past it is an ASan report: inputs in larger arrays,
 * or buffers cut as slices of one array, hide over-reads.
 *
 * Built with -DUPMU_LIBFUZZER it is a libFuzzer target instead (make fuzz,
 * seeded with the corpus).  "aux_parse_test --write-corpus DIR" writes the
 * inputs the tests walk into DIR (the corpus test fails while the checked-in
 * corpus lacks one of them).
 */

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* ---- buffers at exactly their length ---------------------------------- */

/*
 * Copies of the buffers a unit test feeds, kept until the next walk (the
 * events it logged point into them), each malloc()ed at exactly its length
 * so that ASan's redzone is right after its last byte.
 */
static unsigned char *held[64];
static unsigned int nheld;

static void release_exact(void)
{
	while (nheld)
		free(held[--nheld]);
}

static const unsigned char *exact(const void *p, size_t n)
{
	unsigned char *b = malloc(n ? n : 1);

	if (!b || nheld == sizeof(held) / sizeof(held[0]))
		abort();
	memcpy(b, p, n);
	held[nheld++] = b;
	return b;
}

/* ---- seeds: what the tests walk, for the fuzz loop and the corpus ------- */

struct seed {
	char name[48];
	unsigned char *b;
	size_t len;
	bool test;		/* walked by a unit test, so in the corpus */
};

static struct seed seeds[512];
static unsigned int nseeds;
static const char *seed_tag = "seed";

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/*
 * Keep input @p of @n bytes, unless a seed begins with it already; a seed
 * it begins with is replaced (the fuzz loop cuts inputs short by itself).
 */
static void seed_add(const char *tag, const unsigned char *p, size_t n, bool test)
{
	struct seed *sd = NULL;
	unsigned int i;

	if (!n)
		return;
	for (i = 0; i < nseeds; i++) {
		if (seeds[i].len >= n && !memcmp(seeds[i].b, p, n))
			return;
		if (seeds[i].len < n && !memcmp(seeds[i].b, p, seeds[i].len)) {
			sd = &seeds[i];
			free(sd->b);
			break;
		}
	}
	if (!sd) {
		if (nseeds == sizeof(seeds) / sizeof(seeds[0]))
			return;
		sd = &seeds[nseeds++];
	}
	sd->b = malloc(n);
	if (!sd->b)
		abort();
	memcpy(sd->b, p, n);
	sd->len = n;
	sd->test = test;
	snprintf(sd->name, sizeof(sd->name), "%s-%016llx", tag,
		 (unsigned long long)fnv(p, n));
}

static void seeds_free(void)
{
	while (nseeds)
		free(seeds[--nseeds].b);
}

/*
 * The events of @buf cut into buffers at @cuts (AUX offsets as in @buf);
 * a SAMPLE's first and last value as they were when it came (a joined
 * record's values are valid until the next join).
 */
struct evlog {
	struct upmu_aux_ev ev[64];
	uint64_t v0[64], vn[64];
	unsigned int n;
};

static void evlog_add(struct evlog *log, const struct upmu_aux_ev *ev)
{
	if (log->n == 64)
		return;
	log->v0[log->n] = upmu_aux_rec_u64(&ev->rec, 0);
	log->vn[log->n] = ev->rec.nr ? upmu_aux_rec_u64(&ev->rec, ev->rec.nr - 1) : 0;
	log->ev[log->n++] = *ev;
}

static void walk(struct upmu_aux_stream *s, const unsigned char *buf, size_t len,
		 const size_t *cuts, unsigned int ncut, struct evlog *log)
{
	size_t start = 0;
	unsigned int c;
	struct upmu_aux_ev ev;

	release_exact();
	seed_add(seed_tag, buf, len, true);
	log->n = 0;
	for (c = 0; c <= ncut; c++) {
		size_t end = c < ncut ? cuts[c] : len;

		upmu_aux_stream_feed(s, exact(buf + start, end - start), end - start, start);
		for (;;) {
			upmu_aux_stream_next(s, &ev);
			if (ev.type == UPMU_AUX_EV_END)
				break;
			evlog_add(log, &ev);
		}
		start = end;
	}
	upmu_aux_stream_flush(s, &ev);
	if (ev.type != UPMU_AUX_EV_END)
		evlog_add(log, &ev);
}

/* The events of @log in a line, to compare two walks: "R4.1 S7.0:10 E12 ..." */
static void evlog_str(const struct evlog *log, char *out, size_t len)
{
	size_t at = 0;
	unsigned int i;

	out[0] = 0;
	for (i = 0; i < log->n && at < len; i++) {
		const struct upmu_aux_ev *ev = &log->ev[i];
		const struct upmu_aux_rec *r = &ev->rec;

		if (ev->type != UPMU_AUX_EV_REC)
			at += snprintf(out + at, len - at, "T%d.E%d.%llu.%llu ", ev->type,
				       ev->err, (unsigned long long)ev->first,
				       (unsigned long long)ev->last);
		else if (r->type == UPMU_AUX_SAMPLE)
			at += snprintf(out + at, len - at, "S%llu.%llu:%llu.%llu@%llu ",
				       (unsigned long long)r->seq,
				       (unsigned long long)r->sample.sample_id,
				       (unsigned long long)log->v0[i],
				       (unsigned long long)log->vn[i],
				       (unsigned long long)r->time);
		else
			at += snprintf(out + at, len - at, "R%u.%llu ", r->type,
				       (unsigned long long)r->seq);
	}
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
	/* 8 zero bytes are not padding: a record that is not one */
	upmu_aux_stream_reset(s);
	w.b[w.len + 2] = 0;
	walk(s, w.b, w.len + 8, NULL, 0, &log);
	EQ(log.n, 3);
	EQ(log.ev[2].err, UPMU_AUX_ERR_MAGIC);
	EQ(log.ev[2].skipped, 8);

	/* a record straddling two buffers that do not follow each other */
	cut = 100;
	release_exact();
	upmu_aux_stream_reset(s);
	upmu_aux_stream_feed(s, exact(w.b, cut), cut, 0);
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
		upmu_aux_stream_feed(s, exact(w.b + cut, w.len - cut), w.len - cut, cut + 4096);
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

/* The pieces a stream is fed: bytes [from, to) of an input at AUX offset @offset. */
struct piece {
	size_t from, to;
	uint64_t offset;
};

static void walk_pieces(struct upmu_aux_stream *s, const unsigned char *buf, size_t len,
			const struct piece *p, unsigned int n, struct evlog *log)
{
	struct upmu_aux_ev ev;
	unsigned int i;

	release_exact();
	seed_add(seed_tag, buf, len, true);
	upmu_aux_stream_reset(s);
	log->n = 0;
	for (i = 0; i < n; i++) {
		size_t plen = p[i].to - p[i].from;

		upmu_aux_stream_feed(s, exact(buf + p[i].from, plen), plen, p[i].offset);
		for (;;) {
			upmu_aux_stream_next(s, &ev);
			if (ev.type == UPMU_AUX_EV_END)
				break;
			evlog_add(log, &ev);
		}
	}
	upmu_aux_stream_flush(s, &ev);
	if (ev.type != UPMU_AUX_EV_END)
		evlog_add(log, &ev);
}

/* A SAMPLES record as given, whatever nr says: first_id, dev_time 0, count, stride. */
static void samples_hdr(struct aux_wbuf *w, uint32_t size, uint32_t nr, uint64_t first,
			uint32_t count, uint32_t stride)
{
	uint32_t cs[2] = { count, stride };

	aux_hdr(w, UPMU_AUX_SAMPLES, size, nr, 2);
	aux_put64(w, first);
	aux_put64(w, 0);
	aux_put(w, cs, sizeof(cs));
}

/*
 * The stride check is what keeps SAMPLES values inside their record: here
 * 5 samples of 16 bytes where 2 of 40 belong, size right for count *
 * stride, each sample's own id right.  Without the check sample 4's times
 * and values are read past the record, which ends the buffer: ASan's
 * report, in one buffer, else this test's.
 */
static void test_stride(struct upmu_aux_stream *s)
{
	struct aux_wbuf w = { .len = 0 };
	struct evlog log;
	unsigned int i, n, count;
	size_t cut;

	meta(&w, 1, 2, ids2);
	samples_hdr(&w, 56 + 5 * 16, 2, 7, 5, 16);
	for (i = 0; i < 5; i++) {
		uint32_t id[2] = { 7 + i, 0 };

		aux_put(&w, id, sizeof(id));
		aux_put64(&w, 1000 * (7 + i));
	}
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 2);
	EQ(log.ev[1].type, UPMU_AUX_EV_ERROR);
	EQ(log.ev[1].err, UPMU_AUX_ERR_COUNT);
	EQ(log.ev[1].pos, 80);
	EQ(log.ev[1].skipped, 136);
	EQ(s->samples, 0);
	/* joined from two and three buffers: refused all the same */
	for (cut = 8; cut < w.len; cut += 8) {
		size_t cuts[2] = { cut, cut + (w.len - cut) / 2 };

		for (n = 1; n <= 2; n++) {
			upmu_aux_stream_reset(s);
			walk(s, w.b, w.len, cuts, n, &log);
			for (i = count = 0; i < log.n; i++)
				count += log.ev[i].type == UPMU_AUX_EV_ERROR &&
					 log.ev[i].err == UPMU_AUX_ERR_COUNT;
			CHECK(count == 1 && !s->samples,
			      "cut at %zu, %u cuts: %u COUNT errors, %llu samples",
			      cut, n, count, (unsigned long long)s->samples);
		}
	}
}

/*
 * count * stride past 2^32: 0x06666667 * 40 = 2^32 + 24.  A size_t product
 * wraps to 24 on 32-bit builds, which is what the size says, and 0x06666667
 * samples would be read from an 80-byte record.  Only the -m32 build
 * (aux_parse_test32) can see the wrap; both must refuse the record.
 */
static void test_count32(struct upmu_aux_stream *s)
{
	struct aux_wbuf w = { .len = 0 };
	uint32_t id[2] = { 7, 0 };
	struct evlog log;

	printf("# size_t is %zu bits\n", 8 * sizeof(size_t));
	meta(&w, 1, 2, ids2);
	samples_hdr(&w, 56 + 24, 2, 7, 0x06666667, 40);
	aux_put(&w, id, sizeof(id));
	aux_put64(&w, 7000);
	aux_put64(&w, 7010);
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 2);
	EQ(log.ev[1].type, UPMU_AUX_EV_ERROR);
	EQ(log.ev[1].err, UPMU_AUX_ERR_COUNT);
	EQ(log.ev[1].skipped, 80);
	EQ(s->samples, 0);
}

/*
 * A LOST behind the cursor (the next expected sample_id) would move it
 * back and let a sample seen already through again; one that overlaps the
 * last sample, or whose range wraps past 2^64, likewise.  Each is refused
 * (ERR_SID), the cursor stays.
 */
static void test_lost_back(struct upmu_aux_stream *s)
{
	uint64_t v[2] = { 1, 2 };
	struct aux_wbuf w = { .len = 0 };
	struct evlog log;
	static const struct { int type, err; uint64_t id; } want[] = {
		{ UPMU_AUX_EV_REC, UPMU_AUX_META, 0 },
		{ UPMU_AUX_EV_REC, UPMU_AUX_SAMPLE, 5 },
		{ UPMU_AUX_EV_REC, UPMU_AUX_SAMPLE, 6 },
		{ UPMU_AUX_EV_REC, UPMU_AUX_SAMPLE, 7 },
		{ UPMU_AUX_EV_ERROR, UPMU_AUX_ERR_SID, 3 },	/* LOST 3..4 */
		{ UPMU_AUX_EV_ERROR, UPMU_AUX_ERR_SID, 5 },	/* 5 again */
		{ UPMU_AUX_EV_ERROR, UPMU_AUX_ERR_SID, 7 },	/* LOST 7..9 */
		{ UPMU_AUX_EV_REC, UPMU_AUX_LOST, 8 },
		{ UPMU_AUX_EV_ERROR, UPMU_AUX_ERR_SID, 11 },	/* LOST 11..2^64-1 */
		{ UPMU_AUX_EV_ERROR, UPMU_AUX_ERR_SID, UINT64_MAX },
		{ UPMU_AUX_EV_REC, UPMU_AUX_SAMPLE, 10 },
		{ UPMU_AUX_EV_REC, UPMU_AUX_SAMPLE, 11 },
	};
	unsigned int i;

	meta(&w, 1, 2, ids2);
	sample(&w, 2, 5, 2, v);
	sample(&w, 3, 6, 2, v);
	sample(&w, 4, 7, 2, v);
	lost(&w, 5, 3, 4);
	sample(&w, 6, 5, 2, v);
	lost(&w, 7, 7, 9);
	lost(&w, 8, 8, 9);
	lost(&w, 9, 11, UINT64_MAX);
	sample(&w, 10, UINT64_MAX, 2, v);
	sample(&w, 11, 10, 2, v);
	sample(&w, 12, 11, 2, v);
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < log.n && i < sizeof(want) / sizeof(want[0]); i++) {
		const struct upmu_aux_ev *ev = &log.ev[i];
		uint64_t id = ev->type == UPMU_AUX_EV_ERROR ? ev->first :
			      ev->rec.type == UPMU_AUX_LOST ? ev->rec.lost.first_id :
			      ev->rec.type == UPMU_AUX_SAMPLE ? ev->rec.sample.sample_id : 0;

		CHECK(ev->type == want[i].type &&
		      (ev->type == UPMU_AUX_EV_ERROR ? ev->err : ev->rec.type) == want[i].err &&
		      id == want[i].id,
		      "event %u: type %d, err/rec %d, id %llu; expected %d %d %llu",
		      i, ev->type, ev->type == UPMU_AUX_EV_ERROR ? ev->err : ev->rec.type,
		      (unsigned long long)id, want[i].type, want[i].err,
		      (unsigned long long)want[i].id);
	}
	EQ(s->samples, 5);
	EQ(s->lost_records, 1);
	EQ(s->lost_samples, 2);
	EQ(s->errors, 5);
	EQ(s->sid_gaps, 0);
}

/*
 * Buffers whose AUX offsets overlap: the bytes walked already are skipped
 * and reported (ERR_OVERLAP), the rest goes on; before, the difference
 * underflowed into a "gap" of 2^64 - n bytes.  Zero padding at the end of
 * a buffer is no data: perf's next offset leaves it out.
 */
static void test_overlap(struct upmu_aux_stream *s)
{
	uint64_t v[2] = { 1, 2 };
	struct aux_wbuf w = { .len = 0 }, p = { .len = 0 };
	struct evlog log;
	unsigned int i, gaps = 0;

	meta(&w, 1, 2, ids2);		/*   0..80 */
	sample(&w, 2, 1, 2, v);		/*  80..152 */
	sample(&w, 3, 2, 2, v);		/* 152..224 */
	sample(&w, 4, 3, 2, v);		/* 224..296 */

	/* [0, 152) then [80, 224): sample 1 a second time */
	walk_pieces(s, w.b, w.len, (const struct piece[]){ { 0, 152, 0 }, { 80, 224, 80 } },
		    2, &log);
	EQ(log.n, 4);
	EQ(log.ev[1].rec.sample.sample_id, 1);
	EQ(log.ev[2].type, UPMU_AUX_EV_ERROR);
	EQ(log.ev[2].err, UPMU_AUX_ERR_OVERLAP);
	EQ(log.ev[2].skipped, 72);
	EQ(log.ev[2].first, 80);
	EQ(log.ev[2].last, 151);
	EQ(log.ev[3].type, UPMU_AUX_EV_REC);
	EQ(log.ev[3].rec.sample.sample_id, 2);
	EQ(log.ev[3].pos, 72);
	EQ(s->samples, 2);
	EQ(s->errors, 1);
	EQ(s->bytes_skipped, 72);
	EQ(s->sid_gaps + s->seq_gaps, 0);

	/* all of it walked already; the next buffer follows the first */
	walk_pieces(s, w.b, w.len, (const struct piece[]){ { 0, 224, 0 }, { 0, 80, 0 },
		    { 224, 296, 224 } }, 3, &log);
	EQ(log.n, 5);
	EQ(log.ev[3].err, UPMU_AUX_ERR_OVERLAP);
	EQ(log.ev[3].skipped, 80);
	EQ(log.ev[3].first, 0);
	EQ(log.ev[3].last, 223);
	EQ(log.ev[4].rec.sample.sample_id, 3);
	EQ(s->samples, 3);
	EQ(s->errors, 1);

	/* overlapping a record carried from the previous buffer: it is joined */
	walk_pieces(s, w.b, w.len, (const struct piece[]){ { 0, 100, 0 }, { 90, 296, 90 } },
		    2, &log);
	EQ(log.n, 5);
	EQ(log.ev[1].err, UPMU_AUX_ERR_OVERLAP);
	EQ(log.ev[1].skipped, 10);
	EQ(log.ev[2].rec.sample.sample_id, 1);
	EQ(upmu_aux_rec_u64(&log.ev[2].rec, 1), 2);
	EQ(log.ev[4].rec.sample.sample_id, 3);
	EQ(s->samples, 3);
	EQ(s->errors, 1);

	/* 5 bytes of padding: the next buffer may begin at its start or in it */
	aux_put(&p, w.b, 152);
	aux_put(&p, "\0\0\0\0\0", 5);
	aux_put(&p, w.b + 152, 144);
	for (i = 0; i <= 6; i++) {
		walk_pieces(s, p.b, p.len, (const struct piece[]){ { 0, 157, 0 },
			    { 157, 301, 152 + i } }, 2, &log);
		EQ(s->samples, 3);
		EQ(s->errors, 0);
		EQ(log.n, i == 6 ? 5 : 4);
		if (i == 6) {
			EQ(log.ev[2].type, UPMU_AUX_EV_DATA_GAP);
			EQ(log.ev[2].skipped, 1);
		}
	}
	/* after the padding, a buffer before its start overlaps */
	walk_pieces(s, p.b, p.len, (const struct piece[]){ { 0, 157, 0 }, { 157, 301, 144 } },
		    2, &log);
	EQ(log.ev[2].err, UPMU_AUX_ERR_OVERLAP);
	EQ(log.ev[2].skipped, 8);
	/* no "gap" of 2^64 - n anywhere above */
	for (i = 0; i < log.n; i++)
		gaps += log.ev[i].type == UPMU_AUX_EV_DATA_GAP;
	EQ(gaps, 0);
}

/*
 * A record over three and more buffers (small AUX buffers, perf's 32-bit
 * split of big ones): joined, exactly as in one buffer, wherever the cuts
 * are, an empty buffer among them too.
 */
static void test_span(struct upmu_aux_stream *s)
{
	uint64_t v[6] = { 10, 11, 20, 21, 30, 31 };
	struct aux_wbuf w = { .len = 0 };
	static char ref[4096], got[4096];
	struct evlog log;
	size_t i, j, k, bad = 0;

	meta(&w, 1000, 2, ids2);			/*   0..80 */
	aux_samples(&w, 90000, 40000, 7, 3, 2, v);	/*  80..256 */
	lost(&w, 91000, 10, 11);			/* 256..320 */
	aux_samples(&w, 92000, 40000, 12, 1, 2, v + 4);	/* 320..416 */
	upmu_aux_stream_reset(s);
	walk(s, w.b, w.len, NULL, 0, &log);
	EQ(log.n, 8);
	EQ(s->errors, 0);
	evlog_str(&log, ref, sizeof(ref));

#define SAME(...) do {								\
	evlog_str(&log, got, sizeof(got));					\
	if ((strcmp(ref, got) || s->errors) && bad++ < 3) {			\
		printf("#   cuts " __VA_ARGS__);					\
		printf(":\n#     %s\n#   not\n#     %s\n", got, ref);		\
	}									\
} while (0)

	/* two cuts anywhere, 8-aligned */
	for (i = 8; i < w.len; i += 8) {
		for (j = i + 8; j < w.len; j += 8) {
			size_t cuts[2] = { i, j };

			upmu_aux_stream_reset(s);
			walk(s, w.b, w.len, cuts, 2, &log);
			SAME("%zu %zu", i, j);
		}
	}
	/* three inside the first SAMPLES record: it spans four buffers */
	for (i = 88; i < 256; i += 8) {
		for (j = i + 8; j < 256; j += 8) {
			for (k = j + 8; k < 256; k += 8) {
				size_t cuts[3] = { i, j, k };

				upmu_aux_stream_reset(s);
				walk(s, w.b, w.len, cuts, 3, &log);
				SAME("%zu %zu %zu", i, j, k);
			}
		}
	}
	/* a byte at a time through its magic, and an empty buffer */
	{
		size_t bytes[4] = { 81, 82, 83, 84 }, empty[3] = { 100, 100, 200 };

		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, bytes, 4, &log);
		SAME("81 82 83 84");
		upmu_aux_stream_reset(s);
		walk(s, w.b, w.len, empty, 3, &log);
		SAME("100 100 200");
	}
#undef SAME
	EQ(bad, 0);
}

/*
 * ERR_PAD: fewer than 8 bytes after a buffer's last record, where perf's
 * zero padding goes, that are neither zeros nor a record's beginning (the
 * first bytes of the magic, which a later buffer may complete).
 */
static void test_pad(struct upmu_aux_stream *s)
{
	static const struct {
		const char *what;
		const char *tail;
		size_t n;
		int err;		/* 0: no error */
		uint32_t bad;
	} cases[] = {
		{ "a non-zero byte in padding", "\0\0\1", 3, UPMU_AUX_ERR_PAD, 0x10000 },
		{ "7 bytes of text", "garbage", 7, UPMU_AUX_ERR_PAD, 0x62726167 },
		{ "1 byte", "\x55", 1, UPMU_AUX_ERR_SHORT, 0 },
		{ "1 byte, not the magic's", "\x56", 1, UPMU_AUX_ERR_PAD, 0x56 },
		{ "the magic's first 2 bytes", "UP", 2, UPMU_AUX_ERR_SHORT, 0 },
		{ "2 bytes, not the magic's", "UQ", 2, UPMU_AUX_ERR_PAD, 0x5155 },
		{ "a header's first 7 bytes", "UPAX\2\0\2", 7, UPMU_AUX_ERR_SHORT, 0 },
		{ "7 zero bytes", "\0\0\0\0\0\0\0", 7, 0, 0 },
	};
	uint64_t v[2] = { 1, 2 };
	struct aux_wbuf w = { .len = 0 }, t;
	struct evlog log;
	unsigned int i;
	size_t len;

	meta(&w, 1, 2, ids2);
	sample(&w, 2, 1, 2, v);
	len = w.len;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct upmu_aux_ev *ev = &log.ev[2];

		memcpy(&t, &w, sizeof(t));
		aux_put(&t, cases[i].tail, cases[i].n);
		upmu_aux_stream_reset(s);
		walk(s, t.b, t.len, NULL, 0, &log);
		if (!cases[i].err) {
			CHECK(log.n == 2 && !s->errors, "%s: %u events", cases[i].what, log.n);
			continue;
		}
		CHECK(log.n == 3 && ev->type == UPMU_AUX_EV_ERROR && ev->err == cases[i].err &&
		      ev->bad == cases[i].bad && ev->skipped == cases[i].n,
		      "%s: %u events, the 3rd type %d error %d (%s) bad %#x skipped %llu",
		      cases[i].what, log.n, ev->type, ev->err, upmu_aux_strerror(ev->err),
		      ev->bad, (unsigned long long)ev->skipped);
		/* at the tail, not where a cut record began (the flush) */
		if (cases[i].err == UPMU_AUX_ERR_PAD)
			EQ(ev->pos, len);
	}
	/* between two buffers that follow each other: the next one goes on */
	memcpy(&t, &w, sizeof(t));
	aux_put(&t, "\1\2\3", 3);
	sample(&t, 3, 2, 2, v);
	walk_pieces(s, t.b, t.len, (const struct piece[]){ { 0, len + 3, 0 },
		    { len + 3, t.len, len + 3 } }, 2, &log);
	EQ(log.n, 4);
	EQ(log.ev[2].err, UPMU_AUX_ERR_PAD);
	EQ(log.ev[2].bad, 0x030201);
	EQ(log.ev[3].rec.sample.sample_id, 2);
	EQ(s->errors, 1);
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

/*
 * Walk @len bytes cut into buffers at @cuts (at AUX offsets @offs, NULL:
 * where they are in @data), each one a copy at exactly its length, freed
 * once walked; check invariants of what comes out.
 */
static int fuzz_one(struct upmu_aux_stream *s, const unsigned char *data, size_t len,
		    const size_t *cuts, unsigned int ncut, const uint64_t *offs)
{
	struct upmu_aux_ev ev;
	size_t start = 0;
	uint64_t events = 0, next_sid = 0;
	bool have_sid = false;
	unsigned int c;

	upmu_aux_stream_reset(s);
	for (c = 0; c <= ncut; c++) {
		size_t end = c < ncut ? cuts[c] : len, n = end - start;
		unsigned char *b = malloc(n ? n : 1);
		int ret = 0;

		if (!b)
			return -1;
		memcpy(b, data + start, n);
		if (upmu_aux_stream_feed(s, b, n, offs ? offs[c] : start))
			ret = -1;
		while (!ret) {
			upmu_aux_stream_next(s, &ev);
			if (ev.type == UPMU_AUX_EV_END)
				break;
			/* every event consumes bytes, except gaps before a record */
			if (++events > 4 * (len + 8) || s->pos > s->len)
				ret = -1;
			/* offsets are at most 4 KiB apart: no underflowed "gap" */
			if (ev.type == UPMU_AUX_EV_DATA_GAP && ev.skipped > 8192)
				ret = -1;
			if (ev.type == UPMU_AUX_EV_ERROR && ev.skipped > len)
				ret = -1;
			if (ev.type == UPMU_AUX_EV_REC) {
				const struct upmu_aux_rec *r = &ev.rec;
				uint64_t sum = 0, first = 0, last = 0;
				unsigned int i;

				if (r->size < 24 || r->size % 8 || r->nr > UPMU_AUX_MAX_NR)
					ret = -1;
				if (r->type == UPMU_AUX_SAMPLE || r->type == UPMU_AUX_META)
					for (i = 0; i < r->nr; i++)
						sum += upmu_aux_rec_u64(r, i);
				(void)sum;
				if (r->type == UPMU_AUX_SAMPLE)
					for (i = 0; i < r->nr; i++)
						(void)upmu_aux_stream_id(s, i);
				/* sample_ids handed out never go back */
				if (r->type == UPMU_AUX_SAMPLE)
					first = last = r->sample.sample_id;
				else if (r->type == UPMU_AUX_LOST)
					first = r->lost.first_id, last = r->lost.last_id;
				if (r->type == UPMU_AUX_SAMPLE || r->type == UPMU_AUX_LOST) {
					if ((have_sid && first < next_sid) || last == UINT64_MAX)
						ret = -1;
					have_sid = true;
					next_sid = last + 1;
				}
			}
		}
		free(b);
		if (ret)
			return ret;
		start = end;
	}
	upmu_aux_stream_flush(s, &ev);
	/* a record is 32 bytes or more, a sample in SAMPLES 24 or more */
	if (s->samples > len / 24 + 1 || s->records > len / 32 + 1)
		return -1;
	return 0;
}

/* The ways the fuzz target and the corpus test walk an input: whole, cut, in thirds. */
static int fuzz_ways(struct upmu_aux_stream *s, const unsigned char *data, size_t len)
{
	size_t cuts[2] = { 0, 0 }, thirds[2] = { len / 3, 2 * len / 3 };
	/* the last byte moves the 2nd and 3rd buffer: gaps and overlaps */
	int shift = len ? (int8_t)data[len - 1] / 8 : 0;
	uint64_t offs[3] = { 4096, 4096 + thirds[0] + shift, 4096 + thirds[1] + shift };
	unsigned int ncut = 0;

	/* the first bytes choose a cut */
	if (len >= 2) {
		cuts[0] = data[0] % (len + 1);
		ncut = data[1] & 1;
	}
	if (fuzz_one(s, data, len, NULL, 0, NULL) ||
	    fuzz_one(s, data, len, cuts, ncut, NULL) ||
	    fuzz_one(s, data, len, thirds, 2, NULL) ||
	    fuzz_one(s, data, len, thirds, 2, offs))
		return -1;
	return 0;
}

#ifdef __SANITIZE_ADDRESS__
/*
 * Millions of exact-size buffers: a smaller quarantine of freed ones than
 * ASan's 256 MB halves the fuzz loop's time; a use after free within an
 * input is still seen.  ASAN_OPTIONS overrides it.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=8";
}
#endif

#ifdef UPMU_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct upmu_aux_stream s;
	char name[64];

	if (size >= 8) {
		uint64_t id;

		memcpy(&id, data, 8);
		upmu_aux_id_name(id, name, sizeof(name));
	}
	if (fuzz_ways(&s, data, size))
		abort();
	return 0;
}
#else

/* The valid stream the fuzz loop mutates most: every record type, two METAs. */
static void add_fuzz_seed(void)
{
	uint64_t v[4] = { 1, 2, 3, 4 }, ids[4] = { ids2[0], ids2[1], 0x10c0000100000000ull, 7 };
	struct aux_wbuf *w = calloc(1, sizeof(*w));
	unsigned int k;

	if (!w)
		abort();
	meta(w, 10, 4, ids);
	for (k = 0; k < 8; k++)
		sample(w, 20 + k, 100 + k, 4, v);
	lost(w, 30, 108, 110);
	meta(w, 40, 2, ids);
	sample(w, 41, 111, 2, v);
	aux_samples(w, 50, 45, 112, 2, 2, v);
	lost(w, 51, 114, 114);
	aux_samples(w, 52, 45, 115, 1, 2, v);
	seed_add("fuzz", w->b, w->len, true);
	free(w);
}

static void fuzz(struct upmu_aux_stream *s, unsigned long n)
{
	size_t len, cuts[3];
	uint64_t offs[4];
	unsigned long i;
	unsigned int ncut, k, bad = 0;
	const struct seed *good = NULL, *sd;
	unsigned char *buf;

	for (k = 0; k < nseeds; k++)
		if (!strncmp(seeds[k].name, "fuzz-", 5))
			good = &seeds[k];
	CHECK(good && nseeds > 1, "no seeds");
	if (!good)
		return;
	printf("# fuzz: %u seeds\n", nseeds);
	for (i = 0; i < n; i++) {
		k = rnd() % 4;
		/* each input at exactly its length */
		if (k == 0) {		/* random bytes */
			len = rnd() % 512;
			buf = malloc(len ? len : 1);
			if (!buf)
				abort();
			for (k = 0; k < len; k++)
				buf[k] = rnd();
		} else if (k == 1) {	/* random bytes behind a valid header */
			len = rnd() % 512 + 32;
			buf = malloc(len);
			if (!buf)
				abort();
			for (k = 0; k < len; k++)
				buf[k] = rnd();
			memcpy(buf, good->b + (rnd() % 2 ? 0 : 96), 16);
		} else {		/* a seed, mutated and cut short */
			sd = rnd() % 2 ? good : &seeds[rnd() % nseeds];
			len = sd->len - (rnd() % 3 ? 0 : rnd() % sd->len);
			buf = malloc(len ? len : 1);
			if (!buf)
				abort();
			memcpy(buf, sd->b, len);
			for (k = len ? rnd() % 6 : 0; k; k--) {
				size_t at = rnd() % len;

				switch (rnd() % 4) {
				case 0:
					buf[at] = rnd();
					break;
				case 1:
					buf[at] ^= 1u << (rnd() % 8);
					break;
				case 2:	/* a small integer in a field */
					if ((at & ~3ul) + 4 <= len) {
						uint32_t x = rnd() % 80;

						memcpy(buf + (at & ~3ul), &x, 4);
					}
					break;
				default:
					buf[at] = 0;
					break;
				}
			}
		}
		/* up to three cuts, so records span up to four buffers */
		ncut = rnd() % 4;
		for (k = 0; k < ncut; k++)
			cuts[k] = len ? rnd() % (len + 1) : 0;
		for (k = 1; k < ncut; k++) {
			for (unsigned int j = k; j && cuts[j - 1] > cuts[j]; j--) {
				size_t t = cuts[j - 1];

				cuts[j - 1] = cuts[j];
				cuts[j] = t;
			}
		}
		/* one input in eight: a buffer moved, a gap or an overlap */
		for (k = 0; k <= ncut; k++)
			offs[k] = 4096 + (k ? cuts[k - 1] : 0);
		if (ncut && !(rnd() % 8))
			offs[1 + rnd() % ncut] += rnd() % 33 - 16;
		if (fuzz_one(s, buf, len, cuts, ncut, offs) && bad++ < 3)
			printf("#   fuzz input %lu: invariant broken\n", i);
		free(buf);
	}
	EQ(bad, 0);
}

/* ---- the seed corpus (make fuzz) ---------------------------------------- */

/* selftests/upmu/aux-corpus: UPMU_AUX_CORPUS, from the top directory, or from the binary */
static const char *corpus_dir(char *buf, size_t len)
{
	static const char rel[] = "selftests/upmu/aux-corpus";
	const char *e = getenv("UPMU_AUX_CORPUS");
	struct stat st;
	ssize_t n;
	int up;

	if (e)
		return e;
	if (!stat(rel, &st) && S_ISDIR(st.st_mode))
		return rel;
	/* build/selftests/aux_parse_test: three levels up */
	n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return NULL;
	buf[n] = 0;
	for (up = 0; up < 3; up++) {
		char *slash = strrchr(buf, '/');

		if (!slash)
			return NULL;
		*slash = 0;
	}
	if (strlen(buf) + sizeof(rel) + 1 > len)
		return NULL;
	strcat(buf, "/");
	strcat(buf, rel);
	return !stat(buf, &st) && S_ISDIR(st.st_mode) ? buf : NULL;
}

/* File @dir/@name, malloc()ed at exactly its size; NULL if it cannot be read. */
static unsigned char *read_input(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	unsigned char *b;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > (1 << 20))
		return NULL;
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	b = malloc(st.st_size ? st.st_size : 1);
	if (b && fread(b, 1, st.st_size, f) != (size_t)st.st_size) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = st.st_size;
	return b;
}

/*
 * Every input of the corpus, walked the ways the fuzz target walks them;
 * the inputs of the tests must be in it (--write-corpus writes them), and
 * its inputs become seeds of the fuzz loop.
 */
static void test_corpus(struct upmu_aux_stream *s)
{
	char buf[4096];
	const char *dir = corpus_dir(buf, sizeof(buf));
	unsigned int i, files = 0, missing = 0, nr = nseeds;
	struct dirent *de;
	DIR *d;

	CHECK(dir, "no seed corpus (selftests/upmu/aux-corpus, UPMU_AUX_CORPUS)");
	if (!dir)
		return;
	for (i = 0; i < nr; i++) {
		unsigned char *b;
		size_t len;

		if (!seeds[i].test)
			continue;
		b = read_input(dir, seeds[i].name, &len);
		if ((!b || len != seeds[i].len || memcmp(b, seeds[i].b, len)) && missing++ < 5)
			printf("#   %s/%s: not in the corpus (aux_parse_test --write-corpus %s)\n",
			       dir, seeds[i].name, dir);
		free(b);
	}
	EQ(missing, 0);
	d = opendir(dir);
	CHECK(d, "%s: cannot read", dir);
	if (!d)
		return;
	for (;;) {
		unsigned char *b;
		size_t len;

		errno = 0;
		de = readdir(d);
		if (!de) {
			CHECK(!errno, "%s: %s", dir, strerror(errno));
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		b = read_input(dir, de->d_name, &len);
		CHECK(b, "%s/%s: cannot read", dir, de->d_name);
		if (!b)
			continue;
		files++;
		CHECK(!fuzz_ways(s, b, len), "%s/%s: invariant broken", dir, de->d_name);
		seed_add("file", b, len, false);
		free(b);
	}
	closedir(d);
	printf("# corpus %s: %u inputs\n", dir, files);
	CHECK(files >= nr, "%u inputs in the corpus, the tests walk %u", files, nr);
}

/* Write the inputs the tests walked into @dir. */
static int write_corpus(const char *dir)
{
	char path[4096];
	unsigned int i, n = 0;

	mkdir(dir, 0755);
	for (i = 0; i < nseeds; i++) {
		FILE *f;

		if (!seeds[i].test)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, seeds[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(seeds[i].b, 1, seeds[i].len, f) != seeds[i].len) {
			perror(path);
			return 1;
		}
		fclose(f);
		n++;
	}
	printf("# %u inputs written to %s\n", n, dir);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name, *tag;
		void (*fn)(struct upmu_aux_stream *s);
	} tests[] = {
		{ "good records, split at every offset", "good", test_good },
		{ "malformed records: exact errors and resync", "malformed", test_malformed },
		{ "truncated data and cut buffers", "truncated", test_truncated },
		{ "data-ID names as upmu-diag gives them", "names", NULL },
		{ "SAMPLES: a sample each, times, splits, errors", "samples", test_samples },
		{ "SAMPLES: a stride that is not nr's is refused (ASan: no read past a record)",
		  "stride", test_stride },
		{ "SAMPLES: count * stride past 2^32 is refused (also -m32)", "count32",
		  test_count32 },
		{ "a LOST behind the cursor is refused, the cursor stays", "lostback",
		  test_lost_back },
		{ "overlapping AUX buffers: an overlap error, no 2^64 gap; padding", "overlap",
		  test_overlap },
		{ "a record over three and more buffers is joined", "span", test_span },
		{ "ERR_PAD: bytes after the last record, neither padding nor a record", "pad",
		  test_pad },
		{ "the seed corpus: the tests' inputs, each walked four ways", NULL, test_corpus },
		{ "fuzz", NULL, NULL },
	};
	const unsigned int ntests = sizeof(tests) / sizeof(tests[0]);
	const char *corpus_out = NULL;
	struct upmu_aux_stream s;
	unsigned long n = 1000000;
	const char *e;
	time_t t0 = time(NULL);
	uint64_t seed;
	int total = 0;
	unsigned int t;

	/* what ran before a crash (an ASan report, a SEGV) is not lost in a pipe */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--write-corpus")) {
		corpus_out = argv[2];
	} else if (argc > 1) {
		fprintf(stderr, "usage: %s [--write-corpus DIR]\n", argv[0]);
		return 2;
	}
	e = getenv("UPMU_FUZZ_SEED");
	rng = e ? strtoull(e, NULL, 0) : 0x5eed0001ull;
	if (!rng)
		rng = 1;
	seed = rng;
	e = getenv("UPMU_AUX_FUZZ_N");
	if (e)
		n = strtoul(e, NULL, 0);
	printf("TAP version 13\n1..%u\n", corpus_out ? ntests - 2 : ntests);
	upmu_aux_stream_init(&s);
	if (upmu_aux_stream_feed(&s, "", 0, 0)) {
		printf("not ok 1 # out of memory\n");
		return 1;
	}
	add_fuzz_seed();

	for (t = 0; t < ntests; t++) {
		int f0 = failures;

		if (!tests[t].tag && corpus_out)
			break;
		seed_tag = tests[t].tag ? tests[t].tag : "seed";
		if (tests[t].fn) {
			tests[t].fn(&s);
		} else if (tests[t].tag) {
			test_names();
		} else {
			printf("# fuzz: %lu inputs, seed 0x%llx (UPMU_FUZZ_SEED)\n", n,
			       (unsigned long long)seed);
			fuzz(&s, n);
		}
		release_exact();
		if (failures == f0) {
			printf("ok %u %s\n", t + 1, tests[t].name);
			total++;
		} else {
			printf("not ok %u %s\n", t + 1, tests[t].name);
		}
	}
	upmu_aux_stream_exit(&s);
	if (corpus_out && !failures && write_corpus(corpus_out))
		failures++;
	seeds_free();
	printf("# %d passed, %d failed (%d checks, %ld s)\n", total, t - total, checks,
	       (long)(time(NULL) - t0));
	return failures ? 1 : 0;
}
#endif
