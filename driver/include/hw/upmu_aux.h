/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of a upmu AUX stream (the NIC's diagnostic samples in
 * perf's AUX area), as the upmu_nic driver writes them and a decoder
 * reads them.  Documented in Documentation/upmu-nic-aux.rst.
 *
 * Little-endian; every record starts with struct upmu_aux_hdr, is 8-byte
 * aligned and a multiple of 8 bytes.  Safe to include from the kernel and
 * from userspace (only <linux/types.h>); perf's decoder carries a copy.
 */
#ifndef _UPMU_HW_UPMU_AUX_H
#define _UPMU_HW_UPMU_AUX_H

#include <linux/types.h>

#define UPMU_AUX_MAGIC   0x58415055u	/* bytes "UPAX" */
#define UPMU_AUX_VERSION 2	/* 2: SAMPLES; 1 had a SAMPLE record per sample */
enum upmu_aux_type {
	UPMU_AUX_META = 1,
	UPMU_AUX_SAMPLE = 2,	/* version 1 only; decoders still read it */
	UPMU_AUX_LOST = 3,
	UPMU_AUX_SAMPLES = 4,	/* version 2 */
};

/* No record is larger (a decoder may refuse one that is). */
#define UPMU_AUX_MAX_RECORD	65536

struct upmu_aux_hdr {		/* 32 bytes, starts every record */
	__u32 magic;
	__u16 version;
	__u16 type;		/* enum upmu_aux_type */
	__u32 size;		/* bytes of the whole record, multiple of 8, >= 32 */
	__u32 nr;		/* META: data IDs; SAMPLE: values; LOST: 0 */
	__u64 seq;		/* record number in this event's stream: 0, 1, 2 ... no gaps */
	__u64 time;		/* perf clock ns (event->clock()) */
};

/* first record of every AUX commit (every perf_aux_output_end with data) */
struct upmu_aux_meta {
	struct upmu_aux_hdr hdr;	/* time: perf clock when the device clock was read */
	__u32 serial;		/* NIC serial */
	__u32 dev_khz;		/* device clock frequency */
	__u32 mode;		/* NIC_MODE_SINGLE / NIC_MODE_REPETITIVE */
	__u32 flags;		/* 0 */
	__u64 period_ns;	/* actual device sample period */
	__u64 dev_time;		/* device clock (ns) read at hdr.time */
	__u64 ids[];		/* hdr.nr data IDs, in the order of the values */
};

/* perf time of a device time stamp t: hdr.time - (dev_time - t) (documented conversion) */

/* version 1: one record per sample */
struct upmu_aux_sample {
	struct upmu_aux_hdr hdr;	/* time: perf time of dev_ts_last */
	__u64 sample_id;	/* device sample_id extended to 64 bits, +1 per sample */
	__u64 dev_ts_first;	/* device ns: earliest value of the sample */
	__u64 dev_ts_last;	/* device ns: latest value of the sample */
	__u64 values[];		/* hdr.nr values, in the order of the last META's ids */
};

/*
 * version 2: the samples of one read of the device, back to back as the
 * device gives them (the driver copies them straight from the device into
 * the AUX area); each one's perf time is the documented conversion of its
 * dev_ts_last with (hdr.time, dev_time).
 */
struct upmu_aux_dev_sample {
	__u32 sample_id;	/* the device's 32-bit sample_id: first_id + i, truncated */
	__u32 zero;
	__u64 dev_ts_first;	/* device ns: earliest value of the sample */
	__u64 dev_ts_last;	/* device ns: latest value of the sample */
	__u64 values[];		/* hdr.nr values, in the order of the last META's ids */
};

struct upmu_aux_samples {
	struct upmu_aux_hdr hdr;	/* nr: values per sample; time: perf clock at dev_time */
	__u64 first_id;		/* device sample_id of the first sample, extended to 64 bits */
	__u64 dev_time;		/* device clock (ns) read at hdr.time */
	__u32 count;		/* samples, >= 1 */
	__u32 stride;		/* bytes of each: sizeof(struct upmu_aux_dev_sample) + 8 * nr */
	/* count samples of stride bytes (struct upmu_aux_dev_sample) follow */
};

struct upmu_aux_lost {
	struct upmu_aux_hdr hdr;	/* time: perf time at which the loss was seen */
	__u64 count;		/* samples lost: last_id - first_id + 1 */
	__u64 first_id;
	__u64 last_id;
	__u32 reason;		/* 1 = the device overwrote them before the drain */
	__u32 pad;
};

#endif /* _UPMU_HW_UPMU_AUX_H */
