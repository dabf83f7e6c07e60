/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Validate and walk the records of the upmu NIC diagnostic AUX stream
 * (upmu-nic-aux.h, Documentation/upmu-nic-aux.rst).  This is the only
 * code of the perf decoder that reads the untrusted bytes of an AUX
 * buffer: it needs nothing from perf, so it is built and fuzzed on its own
 * (tools/perf-aux/ in the upmu repository, selftests/upmu/aux_parse_test.c).
 */
#ifndef __UPMU_NIC_AUX_PARSE_H
#define __UPMU_NIC_AUX_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Values (SAMPLE) or data IDs (META) a record may carry. */
#define UPMU_AUX_MAX_NR		4096
#define UPMU_AUX_HDR_SIZE	32
#define UPMU_AUX_META_SIZE	64	/* + 8 * nr */
#define UPMU_AUX_SAMPLE_SIZE	56	/* + 8 * nr (version 1) */
#define UPMU_AUX_LOST_SIZE	64
#define UPMU_AUX_SAMPLES_SIZE	56	/* + count * stride */
#define UPMU_AUX_DEV_SAMPLE_SIZE 24	/* + 8 * nr: stride */
#define UPMU_AUX_MAX_SIZE	UPMU_AUX_MAX_RECORD

enum upmu_aux_err {
	UPMU_AUX_OK,
	UPMU_AUX_ERR_SHORT,	/* the buffer ends inside the record */
	UPMU_AUX_ERR_MAGIC,	/* not UPMU_AUX_MAGIC */
	UPMU_AUX_ERR_VERSION,	/* not 1..UPMU_AUX_VERSION */
	UPMU_AUX_ERR_TYPE,	/* not META, SAMPLE, LOST or SAMPLES */
	UPMU_AUX_ERR_SIZE,	/* < 32, not a multiple of 8, or > UPMU_AUX_MAX_SIZE */
	UPMU_AUX_ERR_NR,	/* size is not what the type and nr give */
	UPMU_AUX_ERR_LOST,	/* count != last_id - first_id + 1 */
	UPMU_AUX_ERR_NO_META,	/* a SAMPLE before any META */
	UPMU_AUX_ERR_NR_META,	/* a SAMPLE's nr is not its META's */
	UPMU_AUX_ERR_SID,	/* a SAMPLE(S) or LOST sample_id not after the previous one */
	UPMU_AUX_ERR_PAD,	/* < 8 bytes after a buffer's last record, neither
				 * zero padding nor the beginning of a record */
	UPMU_AUX_ERR_COUNT,	/* SAMPLES: no sample, or stride is not 24 + 8 * nr */
	UPMU_AUX_ERR_DEV_SID,	/* SAMPLES: a sample's own id is not first_id + i */
	UPMU_AUX_ERR_OVERLAP,	/* a buffer begins before the end of the previous one */
	UPMU_AUX_ERR__MAX,
};

const char *upmu_aux_strerror(int err);

/*
 * One record, validated, in host byte order.  A SAMPLES record (version 2)
 * is handed out by the stream as one SAMPLE record per sample (type
 * UPMU_AUX_SAMPLE, size its stride, seq its SAMPLES record's, time the
 * documented conversion of its dev_ts_last), as version 1 wrote them.
 */
struct upmu_aux_rec {
	uint16_t version;
	uint16_t type;		/* enum upmu_aux_type */
	uint32_t size;
	uint32_t nr;
	uint64_t seq;
	uint64_t time;
	union {
		struct {
			uint32_t serial;
			uint32_t dev_khz;
			uint32_t mode;
			uint32_t flags;
			uint64_t period_ns;
			uint64_t dev_time;
		} meta;
		struct {
			uint64_t sample_id;
			uint64_t dev_ts_first;
			uint64_t dev_ts_last;
		} sample;
		struct {
			uint64_t count;
			uint64_t first_id;
			uint64_t last_id;
			uint32_t reason;
		} lost;
		struct {
			uint64_t first_id;
			uint64_t dev_time;
			uint32_t count;
			uint32_t stride;
		} samples;
	};
	/* nr little-endian u64: META ids, SAMPLE values; SAMPLES: the first sample */
	const unsigned char *array;
};

/*
 * Perf time of device time @t by the clocks read together at @now, @dev
 * (a SAMPLES record's time and dev_time): now - (dev - t), not below 0.
 */
uint64_t upmu_aux_dev_to_perf(uint64_t now, uint64_t dev, uint64_t t);

/* Element @i (< nr) of a record's ids or values. */
uint64_t upmu_aux_rec_u64(const struct upmu_aux_rec *r, unsigned int i);

/*
 * Validate the record at @buf (@len bytes available): UPMU_AUX_OK and *@r
 * filled (r->size bytes make the record), or an enum upmu_aux_err.
 */
int upmu_aux_parse(const void *buf, size_t len, struct upmu_aux_rec *r);

/* Whether @len bytes at @buf are the zero padding that ends an AUX payload. */
bool upmu_aux_is_padding(const void *buf, size_t len);

/* The first 8-aligned offset after @off at which a record may start, or @len. */
size_t upmu_aux_resync(const void *buf, size_t len, size_t off);

/*
 * A stream: the AUX buffers of one perf mmap (one CPU) in order.  It joins
 * records that straddle buffers (two or more), checks seq and sample_id
 * continuity and the META a SAMPLE depends on, and counts what it saw.
 * Bytes of a buffer that overlaps what was walked are skipped (ERR_OVERLAP),
 * never taken for a gap.  A SAMPLES
 * record is handed out as itself (for a dump), then as one SAMPLE per
 * sample with ev->batched set: a consumer of samples needs only SAMPLE.
 */
enum upmu_aux_ev_type {
	UPMU_AUX_EV_END,	/* the buffer is consumed */
	UPMU_AUX_EV_REC,	/* a valid record: ev->rec */
	UPMU_AUX_EV_ERROR,	/* bad data: ev->err, ev->skipped bytes dropped
				 * (ERR_OVERLAP: AUX offsets ev->first..ev->last) */
	UPMU_AUX_EV_SEQ_GAP,	/* records missing: ev->first..ev->last (seq) */
	UPMU_AUX_EV_SID_GAP,	/* samples missing with no LOST: ev->first..ev->last */
	UPMU_AUX_EV_DATA_GAP,	/* AUX bytes missing between buffers: ev->skipped */
};

struct upmu_aux_ev {
	int type;		/* enum upmu_aux_ev_type */
	int err;		/* UPMU_AUX_EV_ERROR: enum upmu_aux_err */
	uint32_t bad;		/* the bad field's value (magic, version, ...) */
	size_t pos;		/* offset in the buffer of the record or error */
	uint64_t skipped;	/* bytes dropped */
	uint64_t first, last;
	uint64_t time;		/* the record's, or the last record's time */
	bool batched;		/* a SAMPLE of the SAMPLES record before it */
	struct upmu_aux_rec rec;
};

struct upmu_aux_stream {
	/* the current buffer */
	const unsigned char *buf;
	size_t len, pos;
	uint64_t offset;	/* AUX offset of buf[0] */
	bool have_offset;
	/* a record begun at the end of a previous buffer (or several) */
	unsigned char *carry;
	size_t carry_len;
	uint64_t carry_end;	/* AUX offset just after the carried bytes */
	unsigned char *join;	/* carry + the rest of the record */
	uint64_t end;		/* AUX offset just after the data walked */
	size_t pad;		/* zero padding after end (the next buffer may start in it) */
	/* events of one record: gaps before it, then it (or an error) */
	struct upmu_aux_ev pend[4];
	unsigned int npend, ipend;
	/* a SAMPLES record being handed out sample by sample */
	struct upmu_aux_rec batch;
	size_t batch_pos;
	uint32_t batch_i;
	/* continuity */
	bool have_seq, have_meta, have_sid;
	uint64_t next_seq, next_sid, last_time;
	uint32_t meta_nr;
	uint64_t *ids;		/* the last META's ids */
	/* what was seen */
	uint64_t records, samples, lost_records, lost_samples;
	uint64_t errors, bytes_skipped, seq_gaps, sid_gaps, sid_gap_samples;
};

void upmu_aux_stream_init(struct upmu_aux_stream *s);
void upmu_aux_stream_exit(struct upmu_aux_stream *s);
/* Forget all state (a new stream), keeping the memory. */
void upmu_aux_stream_reset(struct upmu_aux_stream *s);
/* Start walking buffer @buf of @len bytes at AUX offset @offset. 0 or -ENOMEM. */
int upmu_aux_stream_feed(struct upmu_aux_stream *s, const void *buf, size_t len,
			 uint64_t offset);
/*
 * The next event of the current buffer (ev->type).  ev->rec.array stays
 * valid until the next call.  After UPMU_AUX_EV_END, feed the next buffer.
 */
void upmu_aux_stream_next(struct upmu_aux_stream *s, struct upmu_aux_ev *ev);
/*
 * At the end of the data: an UPMU_AUX_EV_ERROR for a record the last
 * buffer began but none completed, else UPMU_AUX_EV_END.
 */
void upmu_aux_stream_flush(struct upmu_aux_stream *s, struct upmu_aux_ev *ev);
/* The data ID of value @i of the last META (i < meta_nr). */
uint64_t upmu_aux_stream_id(const struct upmu_aux_stream *s, unsigned int i);

/* ---- data-ID names (table generated from upmu's upmu_diag_ids.c) ---- */

enum upmu_aux_param {
	UPMU_AUX_P_NONE,
	UPMU_AUX_P_PORT,	/* .p<XX> */
	UPMU_AUX_P_PORT_PRIO,	/* .p<XX>.prio<Y> */
	UPMU_AUX_P_HOST,	/* .h<XX> */
	UPMU_AUX_P_LINK,	/* .l<XX> */
	UPMU_AUX_P_LINK_TC,	/* .l<XX>.tc<ZZ> */
	UPMU_AUX_P_FUNC,	/* .f<XXXX> */
};

struct upmu_aux_id_row {
	uint32_t hi;
	int param;		/* enum upmu_aux_param */
	const char *name;
};

extern const struct upmu_aux_id_row upmu_aux_id_rows[];
extern const unsigned int upmu_aux_nr_id_rows;

/* "port_rx_bytes.p0", "pcie_stall_np_order_ns.l0.tc3", ... or "0x<16 hex>". */
void upmu_aux_id_name(uint64_t id, char *buf, size_t len);

#endif
