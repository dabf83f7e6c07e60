// SPDX-License-Identifier: GPL-2.0
/*
 * Validate and walk the records of the upmu NIC diagnostic AUX stream.
 * See upmu-nic-aux-parse.h; the format is upmu-nic-aux.h.
 */

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upmu-nic-aux.h"
#include "upmu-nic-aux-parse.h"

static const char * const upmu_aux_errs[UPMU_AUX_ERR__MAX] = {
	[UPMU_AUX_OK]		= "no error",
	[UPMU_AUX_ERR_SHORT]	= "record truncated",
	[UPMU_AUX_ERR_MAGIC]	= "bad magic",
	[UPMU_AUX_ERR_VERSION]	= "unknown version",
	[UPMU_AUX_ERR_TYPE]	= "unknown record type",
	[UPMU_AUX_ERR_SIZE]	= "bad record size",
	[UPMU_AUX_ERR_NR]	= "record size does not match nr",
	[UPMU_AUX_ERR_LOST]	= "lost count does not match its sample_id range",
	[UPMU_AUX_ERR_NO_META]	= "sample without META",
	[UPMU_AUX_ERR_NR_META]	= "sample nr differs from its META's",
	[UPMU_AUX_ERR_SID]	= "sample_id not after the previous one",
	[UPMU_AUX_ERR_PAD]	= "bytes after the last record neither padding nor a record",
	[UPMU_AUX_ERR_COUNT]	= "SAMPLES count or stride does not match nr",
	[UPMU_AUX_ERR_DEV_SID]	= "sample's own sample_id is not its place in SAMPLES",
	[UPMU_AUX_ERR_OVERLAP]	= "AUX buffer overlaps data already read",
};

const char *upmu_aux_strerror(int err)
{
	if (err < 0 || err >= UPMU_AUX_ERR__MAX)
		return "unknown error";
	return upmu_aux_errs[err];
}

static uint16_t ld16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static uint32_t ld32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t ld64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

uint64_t upmu_aux_dev_to_perf(uint64_t now, uint64_t dev, uint64_t t)
{
	uint64_t back = dev > t ? dev - t : 0;

	return now > back ? now - back : 0;
}

uint64_t upmu_aux_rec_u64(const struct upmu_aux_rec *r, unsigned int i)
{
	return i < r->nr ? ld64(r->array + 8 * (size_t)i) : 0;
}

int upmu_aux_parse(const void *buf, size_t len, struct upmu_aux_rec *r)
{
	const unsigned char *p = buf;
	size_t want;

	memset(r, 0, sizeof(*r));
	if (len < 4)
		return UPMU_AUX_ERR_SHORT;
	if (ld32(p) != UPMU_AUX_MAGIC)
		return UPMU_AUX_ERR_MAGIC;
	if (len < UPMU_AUX_HDR_SIZE)
		return UPMU_AUX_ERR_SHORT;
	r->version = ld16(p + 4);
	r->type = ld16(p + 6);
	r->size = ld32(p + 8);
	r->nr = ld32(p + 12);
	r->seq = ld64(p + 16);
	r->time = ld64(p + 24);
	if (r->version < 1 || r->version > UPMU_AUX_VERSION)
		return UPMU_AUX_ERR_VERSION;
	if (r->size < UPMU_AUX_HDR_SIZE || r->size % 8 || r->size > UPMU_AUX_MAX_SIZE)
		return UPMU_AUX_ERR_SIZE;
	switch (r->type) {
	case UPMU_AUX_META:
		want = UPMU_AUX_META_SIZE + 8 * (size_t)r->nr;
		break;
	case UPMU_AUX_SAMPLE:
		want = UPMU_AUX_SAMPLE_SIZE + 8 * (size_t)r->nr;
		break;
	case UPMU_AUX_LOST:
		want = r->nr ? 0 : UPMU_AUX_LOST_SIZE;
		break;
	case UPMU_AUX_SAMPLES:
		want = r->size;	/* checked against count and stride below */
		break;
	default:
		return UPMU_AUX_ERR_TYPE;
	}
	if (r->nr > UPMU_AUX_MAX_NR || r->size != want)
		return UPMU_AUX_ERR_NR;
	if (len < r->size)
		return UPMU_AUX_ERR_SHORT;
	if (r->type == UPMU_AUX_SAMPLES) {
		if (r->size < UPMU_AUX_SAMPLES_SIZE)
			return UPMU_AUX_ERR_NR;
		r->samples.first_id = ld64(p + 32);
		r->samples.dev_time = ld64(p + 40);
		r->samples.count = ld32(p + 48);
		r->samples.stride = ld32(p + 52);
		r->array = p + UPMU_AUX_SAMPLES_SIZE;
		/*
		 * The stride is what keeps every sample's values inside the
		 * record; the product is 64-bit, a size_t one wraps on 32-bit
		 * builds and lets count run far past the record.
		 */
		if (!r->samples.count ||
		    r->samples.stride != UPMU_AUX_DEV_SAMPLE_SIZE + 8 * (size_t)r->nr ||
		    (uint64_t)r->samples.count * r->samples.stride !=
		    r->size - UPMU_AUX_SAMPLES_SIZE)
			return UPMU_AUX_ERR_COUNT;
		return UPMU_AUX_OK;
	}
	p += UPMU_AUX_HDR_SIZE;
	switch (r->type) {
	case UPMU_AUX_META:
		r->meta.serial = ld32(p);
		r->meta.dev_khz = ld32(p + 4);
		r->meta.mode = ld32(p + 8);
		r->meta.flags = ld32(p + 12);
		r->meta.period_ns = ld64(p + 16);
		r->meta.dev_time = ld64(p + 24);
		r->array = p + 32;
		break;
	case UPMU_AUX_SAMPLE:
		r->sample.sample_id = ld64(p);
		r->sample.dev_ts_first = ld64(p + 8);
		r->sample.dev_ts_last = ld64(p + 16);
		r->array = p + 24;
		break;
	default:
		r->lost.count = ld64(p);
		r->lost.first_id = ld64(p + 8);
		r->lost.last_id = ld64(p + 16);
		r->lost.reason = ld32(p + 24);
		if (r->lost.last_id < r->lost.first_id || !r->lost.count ||
		    r->lost.count != r->lost.last_id - r->lost.first_id + 1)
			return UPMU_AUX_ERR_LOST;
		break;
	}
	return UPMU_AUX_OK;
}

/* Whether @len bytes at @p may be the beginning of a record: the magic's first bytes. */
static bool may_begin_record(const unsigned char *p, size_t len)
{
	uint32_t magic = htole32(UPMU_AUX_MAGIC);

	return !memcmp(p, &magic, len < sizeof(magic) ? len : sizeof(magic));
}

bool upmu_aux_is_padding(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	if (len >= 8)
		return false;
	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

size_t upmu_aux_resync(const void *buf, size_t len, size_t off)
{
	const unsigned char *p = buf;

	for (off = (off + 8) & ~(size_t)7; off + 4 <= len; off += 8)
		if (ld32(p + off) == UPMU_AUX_MAGIC)
			return off;
	return len;
}

void upmu_aux_stream_init(struct upmu_aux_stream *s)
{
	memset(s, 0, sizeof(*s));
}

void upmu_aux_stream_exit(struct upmu_aux_stream *s)
{
	free(s->carry);
	free(s->join);
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

void upmu_aux_stream_reset(struct upmu_aux_stream *s)
{
	unsigned char *carry = s->carry, *join = s->join;
	uint64_t *ids = s->ids;

	memset(s, 0, sizeof(*s));
	s->carry = carry;
	s->join = join;
	s->ids = ids;
}

static struct upmu_aux_ev *push(struct upmu_aux_stream *s, int type)
{
	struct upmu_aux_ev *ev = &s->pend[s->npend++];

	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->time = s->last_time;
	return ev;
}

static void push_error(struct upmu_aux_stream *s, int err, uint32_t bad,
		       size_t pos, uint64_t skipped)
{
	struct upmu_aux_ev *ev = push(s, UPMU_AUX_EV_ERROR);

	ev->err = err;
	ev->bad = bad;
	ev->pos = pos;
	ev->skipped = skipped;
	s->errors++;
	s->bytes_skipped += skipped;
}

static void push_sid_gap(struct upmu_aux_stream *s, uint64_t first, uint64_t last,
			 size_t pos)
{
	struct upmu_aux_ev *ev = push(s, UPMU_AUX_EV_SID_GAP);

	ev->first = first;
	ev->last = last;
	ev->pos = pos;
	s->sid_gaps++;
	s->sid_gap_samples += last - first + 1;
}

int upmu_aux_stream_feed(struct upmu_aux_stream *s, const void *buf, size_t len,
			 uint64_t offset)
{
	uint64_t end = offset + len;
	size_t skip = 0;

	if (!s->ids) {
		s->ids = calloc(UPMU_AUX_MAX_NR, sizeof(*s->ids));
		s->carry = malloc(UPMU_AUX_MAX_SIZE);
		s->join = malloc(UPMU_AUX_MAX_SIZE);
		if (!s->ids || !s->carry || !s->join) {
			upmu_aux_stream_exit(s);
			return -ENOMEM;
		}
	}
	s->npend = s->ipend = 0;
	if (end < offset)
		end = UINT64_MAX;	/* a corrupt offset: no wrap to 0 */
	/* the previous buffer's zero padding is no data: this one may start in it */
	if (s->have_offset && offset > s->end + s->pad) {
		struct upmu_aux_ev *ev = push(s, UPMU_AUX_EV_DATA_GAP);

		ev->skipped = offset - s->end - s->pad;
		ev->first = s->end + s->pad;
		ev->last = offset;
	} else if (s->have_offset && offset < s->end) {
		/*
		 * Bytes walked already (a buffer given twice, a corrupt
		 * offset): skip them, so that neither a "gap" of 2^64 minus
		 * the overlap nor the same records twice come out of it.
		 */
		uint64_t over = s->end - offset;

		skip = over < len ? over : len;
		push_error(s, UPMU_AUX_ERR_OVERLAP, 0, 0, skip);
		s->pend[s->npend - 1].first = offset;
		s->pend[s->npend - 1].last = s->end - 1;
	}
	s->buf = buf;
	s->len = len;
	s->pos = skip;
	s->offset = offset;
	if (!s->have_offset || end > s->end) {
		s->end = end;
		s->pad = 0;
	}
	s->have_offset = true;
	return 0;
}

uint64_t upmu_aux_stream_id(const struct upmu_aux_stream *s, unsigned int i)
{
	return s->ids && i < s->meta_nr ? s->ids[i] : 0;
}

/*
 * Whether sample_ids @first .. @first + @n - 1 cannot follow the stream's:
 * behind the next expected one (a LOST there would move the cursor back
 * and let samples already seen through again), or wrapping past 2^64
 * (the same, to 0).
 */
static bool sid_behind(const struct upmu_aux_stream *s, uint64_t first, uint64_t n)
{
	return (s->have_sid && first < s->next_sid) || first + n < first;
}

/*
 * Continuity checks of a valid record: queues the gaps before it, then the
 * record, or an error instead of it.
 */
static void stream_check(struct upmu_aux_stream *s, const struct upmu_aux_rec *r,
			 size_t pos)
{
	struct upmu_aux_ev *ev;
	uint64_t first;
	unsigned int i;
	uint32_t n;

	s->last_time = r->time;
	if (s->have_seq && r->seq > s->next_seq) {
		ev = push(s, UPMU_AUX_EV_SEQ_GAP);
		ev->first = s->next_seq;
		ev->last = r->seq - 1;
		ev->pos = pos;
		s->seq_gaps++;
	}
	s->have_seq = true;
	s->next_seq = r->seq + 1;

	switch (r->type) {
	case UPMU_AUX_META:
		s->have_meta = true;
		s->meta_nr = r->nr;
		for (i = 0; i < r->nr; i++)
			s->ids[i] = upmu_aux_rec_u64(r, i);
		break;
	case UPMU_AUX_SAMPLE:
	case UPMU_AUX_SAMPLES:
		first = r->type == UPMU_AUX_SAMPLE ? r->sample.sample_id :
						     r->samples.first_id;
		n = r->type == UPMU_AUX_SAMPLE ? 1 : r->samples.count;
		if (!s->have_meta || r->nr != s->meta_nr) {
			push_error(s, s->have_meta ? UPMU_AUX_ERR_NR_META :
				   UPMU_AUX_ERR_NO_META, r->nr, pos, r->size);
			return;
		}
		if (sid_behind(s, first, n)) {
			push_error(s, UPMU_AUX_ERR_SID, 0, pos, r->size);
			s->pend[s->npend - 1].first = first;
			return;
		}
		if (s->have_sid && first > s->next_sid)
			push_sid_gap(s, s->next_sid, first - 1, pos);
		s->have_sid = true;
		s->next_sid = first + n;
		if (r->type == UPMU_AUX_SAMPLES) {
			/* itself, then its samples one by one (stream_batch) */
			s->batch = *r;
			s->batch_pos = pos;
			s->batch_i = 0;
			break;
		}
		s->samples++;
		break;
	default:
		if (sid_behind(s, r->lost.first_id, r->lost.count)) {
			push_error(s, UPMU_AUX_ERR_SID, 0, pos, r->size);
			s->pend[s->npend - 1].first = r->lost.first_id;
			return;
		}
		if (s->have_sid && r->lost.first_id > s->next_sid)
			push_sid_gap(s, s->next_sid, r->lost.first_id - 1, pos);
		s->have_sid = true;
		s->next_sid = r->lost.last_id + 1;
		s->lost_records++;
		s->lost_samples += r->lost.count;
		break;
	}
	s->records++;
	ev = push(s, UPMU_AUX_EV_REC);
	ev->pos = pos;
	ev->rec = *r;
}

/*
 * A record carried from the previous buffers: complete it from this one,
 * or carry this one too if the record goes on past it.
 */
static void stream_join(struct upmu_aux_stream *s)
{
	size_t carried = s->carry_len, start = s->pos, take;
	struct upmu_aux_rec r;
	int err;

	if (s->carry_end != s->offset + start) {
		/* not its continuation: the carried bytes are a cut record */
		s->carry_len = 0;
		push_error(s, UPMU_AUX_ERR_SHORT, 0, start, carried);
		return;
	}
	take = UPMU_AUX_MAX_SIZE - carried;
	if (take > s->len - start)
		take = s->len - start;
	memcpy(s->join, s->carry, carried);
	memcpy(s->join + carried, s->buf + start, take);
	err = upmu_aux_parse(s->join, carried + take, &r);
	if (err == UPMU_AUX_ERR_SHORT && start + take == s->len) {
		/* valid so far and this buffer ends inside it: wait for the next */
		memcpy(s->carry + carried, s->buf + start, take);
		s->carry_len += take;
		s->carry_end += take;
		s->pos = s->len;
		return;
	}
	s->carry_len = 0;
	if (err) {
		push_error(s, err, 0, start, carried);
		return;
	}
	s->pos = start + r.size - carried;
	stream_check(s, &r, start);
}

/*
 * The next sample of the SAMPLES record being handed out, as a SAMPLE
 * record (or an error for a sample whose own id is not its place).
 */
static void stream_batch(struct upmu_aux_stream *s, struct upmu_aux_ev *ev)
{
	const struct upmu_aux_rec *b = &s->batch;
	const unsigned char *p = b->array + (size_t)s->batch_i * b->samples.stride;
	uint64_t id = b->samples.first_id + s->batch_i;
	struct upmu_aux_rec *r = &ev->rec;

	memset(ev, 0, sizeof(*ev));
	ev->pos = s->batch_pos + UPMU_AUX_SAMPLES_SIZE +
		  (size_t)s->batch_i * b->samples.stride;
	if (++s->batch_i == b->samples.count)
		s->batch.samples.count = 0;	/* done */
	if (ld32(p) != (uint32_t)id || ld32(p + 4)) {
		ev->type = UPMU_AUX_EV_ERROR;
		ev->err = UPMU_AUX_ERR_DEV_SID;
		ev->bad = ld32(p);
		ev->skipped = b->samples.stride;
		ev->first = id;
		ev->time = s->last_time;
		s->errors++;
		s->bytes_skipped += b->samples.stride;
		return;
	}
	ev->type = UPMU_AUX_EV_REC;
	ev->batched = true;
	r->version = b->version;
	r->type = UPMU_AUX_SAMPLE;
	r->size = b->samples.stride;
	r->nr = b->nr;
	r->seq = b->seq;
	r->sample.sample_id = id;
	r->sample.dev_ts_first = ld64(p + 8);
	r->sample.dev_ts_last = ld64(p + 16);
	r->time = upmu_aux_dev_to_perf(b->time, b->samples.dev_time,
				       r->sample.dev_ts_last);
	r->array = p + UPMU_AUX_DEV_SAMPLE_SIZE;
	ev->time = r->time;
	s->samples++;
}

void upmu_aux_stream_next(struct upmu_aux_stream *s, struct upmu_aux_ev *ev)
{
	struct upmu_aux_rec r;
	size_t left, next, pos;
	int err;

	if (s->ipend < s->npend) {
		*ev = s->pend[s->ipend++];
		return;
	}
	if (s->batch.samples.count) {
		stream_batch(s, ev);
		return;
	}
	s->npend = s->ipend = 0;
	if (s->carry_len && s->buf && s->pos < s->len) {
		stream_join(s);
		upmu_aux_stream_next(s, ev);
		return;
	}
	memset(ev, 0, sizeof(*ev));
	ev->time = s->last_time;
	if (!s->buf || s->pos >= s->len) {
		ev->type = UPMU_AUX_EV_END;
		return;
	}
	left = s->len - s->pos;
	pos = s->pos;
	err = upmu_aux_parse(s->buf + pos, left, &r);
	if (!err) {
		s->pos += r.size;
		stream_check(s, &r, pos);
		upmu_aux_stream_next(s, ev);
		return;
	}
	if (upmu_aux_is_padding(s->buf + pos, left)) {
		s->pos = s->len;
		s->end -= left;
		s->pad = left;
		ev->type = UPMU_AUX_EV_END;
		return;
	}
	if (left < 8 && !may_begin_record(s->buf + pos, left)) {
		/* where perf's padding goes, but not zeros, and no record's beginning */
		uint32_t tail = 0;

		memcpy(&tail, s->buf + pos, left < 4 ? left : 4);
		s->pos = s->len;
		push_error(s, UPMU_AUX_ERR_PAD, le32toh(tail), pos, left);
		upmu_aux_stream_next(s, ev);
		return;
	}
	if (err == UPMU_AUX_ERR_SHORT) {
		/* the rest of it may come in the next buffers */
		memcpy(s->carry, s->buf + pos, left);
		s->carry_len = left;
		s->carry_end = s->offset + s->len;
		s->pos = s->len;
		ev->type = UPMU_AUX_EV_END;
		return;
	}
	next = upmu_aux_resync(s->buf, s->len, pos);
	s->pos = next;
	push_error(s, err, err == UPMU_AUX_ERR_MAGIC ? ld32(s->buf + pos) :
		   err == UPMU_AUX_ERR_VERSION ? r.version :
		   err == UPMU_AUX_ERR_TYPE ? r.type : r.size, pos, next - pos);
	upmu_aux_stream_next(s, ev);
}

void upmu_aux_stream_flush(struct upmu_aux_stream *s, struct upmu_aux_ev *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->time = s->last_time;
	if (!s->carry_len) {
		ev->type = UPMU_AUX_EV_END;
		return;
	}
	ev->type = UPMU_AUX_EV_ERROR;
	ev->err = UPMU_AUX_ERR_SHORT;
	ev->skipped = s->carry_len;
	s->errors++;
	s->bytes_skipped += s->carry_len;
	s->carry_len = 0;
}

/* ---- data-ID names -------------------------------------------------- */

/*
 * The names upmu-diag gives (upmu_diag_id_name(), tools/lib/upmu_diag_ids.c):
 * a row's name and its instance; IDs of no row, with bits outside their
 * row's parameters or an instance the device cannot have, in hex.
 */
#define NR_PRIO		8
#define NR_TCLASS	8
#define MAX_INST	0x3ff

void upmu_aux_id_name(uint64_t id, char *buf, size_t len)
{
	uint32_t hi = id >> 32, lo = (uint32_t)id;
	unsigned int xx = lo & 0xff, y = (lo >> 8) & 0xf, tc = lo >> 24;
	const struct upmu_aux_id_row *row = NULL;
	unsigned int i;

	for (i = 0; i < upmu_aux_nr_id_rows; i++) {
		if (upmu_aux_id_rows[i].hi == hi) {
			row = &upmu_aux_id_rows[i];
			break;
		}
	}
	if (!row)
		goto hex;
	switch (row->param) {
	case UPMU_AUX_P_NONE:
		if (lo)
			goto hex;
		snprintf(buf, len, "%s", row->name);
		return;
	case UPMU_AUX_P_PORT:
	case UPMU_AUX_P_HOST:
	case UPMU_AUX_P_LINK:
		if (lo > 0xff)
			goto hex;
		snprintf(buf, len, "%s.%s%u", row->name,
			 row->param == UPMU_AUX_P_PORT ? "p" :
			 row->param == UPMU_AUX_P_HOST ? "h" : "l", xx);
		return;
	case UPMU_AUX_P_PORT_PRIO:
		if (lo > 0xfff || y >= NR_PRIO || xx * NR_PRIO + y > MAX_INST)
			goto hex;
		snprintf(buf, len, "%s.p%u.prio%u", row->name, xx, y);
		return;
	case UPMU_AUX_P_LINK_TC:
		if ((lo & 0x00ffff00) || tc >= NR_TCLASS || xx * NR_TCLASS + tc > MAX_INST)
			goto hex;
		snprintf(buf, len, "%s.l%u.tc%u", row->name, xx, tc);
		return;
	case UPMU_AUX_P_FUNC:
		if (lo > MAX_INST)
			goto hex;
		snprintf(buf, len, "%s.f%u", row->name, lo);
		return;
	default:
		break;
	}
hex:
	snprintf(buf, len, "0x%016" PRIx64, id);
}
