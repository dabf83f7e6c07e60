/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu_diag: the DOCA Telemetry Diagnostics life cycle over fwctl, for the
 * ConnectX/BlueField-like NIC of hw/nic_cmd.h (Documentation/upmu-diag.rst).
 *
 *   create -> [set_*] -> apply_config -> apply_counters -> start
 *          -> query_counters ... -> stop -> destroy
 *
 * The context follows DOCA's state machine: Idle (after create or stop),
 * Configured (apply_config), Ready (apply_counters), Running (start).
 * Setters work in Idle only; every call made in the wrong state fails with
 * -UPMU_DIAG_EBADSTATE and changes nothing.  On a device with upmu's
 * extension commands (NIC_OP_EXT_*) the device owns the state machine,
 * the engine's ownership, the data-ID list and the output formats; on a
 * plain mlx5 device the library does them over the PRM commands.
 *
 * Every function returns 0 (or a count) on success and a negative code on
 * failure: -errno values, plus the UPMU_DIAG_E* codes below;
 * upmu_diag_strerror() names both.
 */
#ifndef __UPMU_DIAG_H__
#define __UPMU_DIAG_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum upmu_diag_mode {
	UPMU_DIAG_SINGLE = 0,		/* stops when the buffer is full */
	UPMU_DIAG_REPETITIVE = 1,	/* overwrites the oldest sample */
	UPMU_DIAG_ON_DEMAND = 2,	/* each query takes one fresh sample */
};

enum upmu_diag_format {
	UPMU_DIAG_FMT0 = 0,	/* data_id, 64-bit value, timestamp per data */
	UPMU_DIAG_FMT1 = 1,	/* 64-bit values, timestamps per sample */
	UPMU_DIAG_FMT2 = 2,	/* 32-bit values, timestamps per sample */
};

enum upmu_diag_state {
	UPMU_DIAG_IDLE, UPMU_DIAG_CONFIGURED, UPMU_DIAG_READY, UPMU_DIAG_RUNNING,
};

/* Library codes, beyond errno's range (returned negated). */
#define UPMU_DIAG_EBASE		4096
#define UPMU_DIAG_EBADSTATE	4096	/* not allowed in this state */
#define UPMU_DIAG_EBADCONFIG	4097	/* data ID cannot take a synchronized start */
#define UPMU_DIAG_EINSUFF	4098	/* buffer too small or NULL: count says how many */
#define UPMU_DIAG_EFW		4099	/* firmware failed the command (status in last_status) */
#define UPMU_DIAG_ENOTSUPP_ID	4100	/* data ID not supported by the device */
#define UPMU_DIAG_ELOSTOWNER	4101	/* another user took the engine over (force) */

/*
 * Sample layouts in a query buffer (all fields big-endian, like the
 * firmware's; decode with upmu_diag_decode()):
 *   format 0: {u32 sample_id; u32 0;} then per data ID
 *             {u64 data_id; u32 ts_h; u32 ts_l; u64 value;}
 *   format 1: {u32 sample_id; u32 first_ts_h; u32 first_ts_l; u32 last_ts_l;}
 *             then u64 value[], in applied order
 *   format 2: the format 1 header, then u32 value[]
 * Timestamps are in ns of the device clock.
 */
#define UPMU_DIAG_F0_HDR	8
#define UPMU_DIAG_F0_ENTRY	24
#define UPMU_DIAG_F12_HDR	16

struct upmu_diag;

/* How the context reaches the firmware: fwctl by default, a fake in tests. */
struct upmu_diag_transport {
	/*
	 * Send @in (@in_len bytes) at fwctl @scope; the output goes to @out,
	 * room *@out_len, set to the bytes produced.  0 when the command was
	 * delivered (its own status is in @out), else -errno.
	 */
	int (*rpc)(void *priv, unsigned int scope, const void *in, size_t in_len,
		   void *out, size_t *out_len);
	void (*close)(void *priv);
	void *priv;
};

/**
 * upmu_diag_create() - open a device and take the diagnostic engine
 * @dev: "/dev/fwctl/fwctlN", "fwctlN", the PF's sysfs directory, or its
 *       address "SERIAL.PF" (sysfs serial and pf of the PF device); NULL
 *       or "" picks the first MLX5-type fwctl device
 * @force: take the engine over from another user
 * @out: the new context, in Idle
 *
 * With the extension the engine has one owner per device, whichever PF
 * it was taken through; the owner's file closed (or its process killed)
 * frees it.  Without it, "owned" means "sampling".
 *
 * Return: 0, -ENODEV (no such device), -EBUSY (engine owned by another
 * user and no @force, or owned by the kernel, which @force does not take
 * from: upmu_diag_open() and upmu_diag_get_owner() name it),
 * -EACCES/-EPERM (device node permissions), or another code.
 */
int upmu_diag_create(const char *dev, bool force, struct upmu_diag **out);
/* The same over a caller's transport (tests); takes @t over, even on failure. */
int upmu_diag_create_transport(const struct upmu_diag_transport *t, bool force,
			       struct upmu_diag **out);
/*
 * A context that does not take the engine: getters, the data-ID list and
 * the owner work; apply_config, apply_counters, start, stop, restart and
 * query_counters fail with -EPERM.
 */
int upmu_diag_open(const char *dev, struct upmu_diag **out);
int upmu_diag_open_transport(const struct upmu_diag_transport *t,
			     struct upmu_diag **out);
/*
 * The fwctl file of @dev, found as upmu_diag_create() finds it, open
 * (O_RDWR, close on exec): for a caller that sends RPCs of its own (the
 * benchmark).  An fd, or -errno (-ENODEV: no such device).
 */
int upmu_diag_fwctl_open(const char *dev);
/* The transport upmu_diag_create() uses, over fwctl file @fd (closed with it). */
void upmu_diag_fwctl_transport(int fd, struct upmu_diag_transport *t);
/* Stops sampling if it runs, releases the engine, frees @d (NULL is fine). */
void upmu_diag_destroy(struct upmu_diag *d);

/* Whether the device has upmu's extension commands (else the PRM path). */
bool upmu_diag_has_ext(const struct upmu_diag *d);

/* Who owns the diagnostic engine (extension only). */
struct upmu_diag_owner {
	bool owned;		/* somebody does */
	bool self;		/* this context */
	unsigned int pf;	/* the PF it was taken through */
	unsigned int uid;	/* its fwctl user context; 0: the kernel (perf) */
};

/* The owner now (EXT_QUERY_STATE); -EOPNOTSUPP without the extension. */
int upmu_diag_get_owner(struct upmu_diag *d, struct upmu_diag_owner *o);
/* Whom create took the engine from with force (owned false: nobody). */
void upmu_diag_get_prev_owner(const struct upmu_diag *d,
			      struct upmu_diag_owner *o);
/*
 * The data IDs the device has, in its order, and whether each can take
 * a synchronized start: up to @room of them into @ids and @sync (either
 * may be NULL).  Any state.  Return: how many the device has.
 */
int upmu_diag_get_data_ids(struct upmu_diag *d, uint64_t *ids, bool *sync,
			   unsigned int room);

/* Configuration, in Idle.  Getters work in every state. */
int upmu_diag_set_sample_mode(struct upmu_diag *d, enum upmu_diag_mode mode);
int upmu_diag_get_sample_mode(struct upmu_diag *d, enum upmu_diag_mode *mode);
/* ns; after apply_counters the getter gives the device's actual period */
int upmu_diag_set_sample_period(struct upmu_diag *d, uint64_t ns);
int upmu_diag_get_sample_period(struct upmu_diag *d, uint64_t *ns);
int upmu_diag_set_log_num_samples(struct upmu_diag *d, unsigned int log);
int upmu_diag_get_log_num_samples(struct upmu_diag *d, unsigned int *log);
int upmu_diag_get_log_max_num_samples(struct upmu_diag *d, unsigned int *log);
/*
 * Most samples one query hands out; by default the buffer's
 * (2^log_num_samples): a query takes all that is new, in as few firmware
 * commands as the outbox allows.
 */
int upmu_diag_set_max_samples_per_read(struct upmu_diag *d, uint32_t n);
int upmu_diag_get_max_samples_per_read(struct upmu_diag *d, uint32_t *n);
int upmu_diag_set_sync_start(struct upmu_diag *d, bool sync);
int upmu_diag_get_sync_start(struct upmu_diag *d, bool *sync);
int upmu_diag_set_data_clear(struct upmu_diag *d, bool clear);
int upmu_diag_get_data_clear(struct upmu_diag *d, bool *clear);
int upmu_diag_set_output_format(struct upmu_diag *d, enum upmu_diag_format f);
int upmu_diag_get_output_format(struct upmu_diag *d, enum upmu_diag_format *f);
/*
 * Most data IDs apply_counters will be given (extension: the device
 * reserves the buffer for them).  0, the default: as many as the buffer
 * holds at log_num_samples, at most the device's data IDs.
 */
int upmu_diag_set_max_num_data_ids(struct upmu_diag *d, uint32_t n);
int upmu_diag_get_max_num_data_ids(struct upmu_diag *d, uint32_t *n);
enum upmu_diag_state upmu_diag_get_state(const struct upmu_diag *d);
/* Device clock, kHz (QUERY_HCA_CAP device_frequency_khz). */
uint32_t upmu_diag_device_khz(const struct upmu_diag *d);

/* Idle -> Configured: checks the configuration against the device's caps. */
int upmu_diag_apply_config(struct upmu_diag *d);
/* Configured: whether the device has @id (*supported), and sync (*sync). */
int upmu_diag_check_data_id(struct upmu_diag *d, uint64_t id, bool *supported,
			    bool *sync);
/**
 * upmu_diag_apply_counters() - Configured -> Ready with @n data IDs
 * @fail_index: on failure, the index in @ids that failed (-1 if none)
 * @fail_reason: on failure, NIC_DIAG_ERR_* from the firmware's syndrome
 *
 * Return: 0; -UPMU_DIAG_EBADCONFIG when @ids[*@fail_index] cannot take
 * the synchronized start; -UPMU_DIAG_ENOTSUPP_ID, -EEXIST (twice in the
 * list), -E2BIG (capacity), -ERANGE (period), -EINVAL (mode), ... as
 * upmu_diag_fw_error() maps them.
 */
int upmu_diag_apply_counters(struct upmu_diag *d, const uint64_t *ids,
			     unsigned int n, int *fail_index, int *fail_reason);
int upmu_diag_start(struct upmu_diag *d);	/* Ready -> Running */
int upmu_diag_stop(struct upmu_diag *d);	/* any -> Idle */
int upmu_diag_restart(struct upmu_diag *d);	/* Running, single mode */

/* Bytes of one sample in the output format with the applied IDs. */
size_t upmu_diag_sample_size(enum upmu_diag_format f, unsigned int n_ids);
int upmu_diag_get_sample_size(struct upmu_diag *d, size_t *size);

/**
 * struct upmu_diag_read - arguments and results of a query
 * @last_seen_ts: in: 0 for the context's own cursor (every sample once,
 *	never a duplicate); else only samples with a timestamp (ns) newer
 *	than this, as nvmlDeviceGetVgpuUtilization's lastSeenTimeStamp
 * @count: in: room of the buffer, in samples; out: samples written, or
 *	with a NULL buffer (or too little room) the samples available
 * @lost: out: samples overwritten before anybody read them, since the
 *	previous query (they are never skipped silently; a query with a
 *	NULL buffer tells them without consuming them)
 * @latest_ts: out: timestamp of the newest sample written (0 if none),
 *	the @last_seen_ts of a next query
 * @first_sample_id: out: sample_id of the first sample written
 */
struct upmu_diag_read {
	uint64_t last_seen_ts;
	uint32_t count;
	uint64_t lost;
	uint64_t latest_ts;
	uint64_t first_sample_id;
};

/**
 * upmu_diag_query_counters() - the new samples, oldest first
 * @buf: room for @r->count samples of upmu_diag_get_sample_size(), or NULL
 *
 * At most max_samples_per_read samples per call; fewer when no more are
 * new.  Return: 0; -UPMU_DIAG_EINSUFF with @buf NULL or @r->count 0 while
 * samples are available (@r->count says how many, nothing is consumed);
 * -UPMU_DIAG_EBADSTATE when not Running; -UPMU_DIAG_ELOSTOWNER when
 * another user took the engine over.
 */
int upmu_diag_query_counters(struct upmu_diag *d, void *buf,
			     struct upmu_diag_read *r);
/* Samples lost since create. */
uint64_t upmu_diag_lost_total(const struct upmu_diag *d);

/* Decoded sample (upmu_diag_decode). */
struct upmu_diag_sample {
	uint32_t sample_id;
	uint64_t ts_first;	/* ns */
	uint64_t ts_last;	/* ns */
};

/*
 * Decode sample @i of @buf (@len bytes) in format @f with @n IDs: its
 * header into @s and its values into @values[n] (and, format 0 only, the
 * data IDs into @ids[n] if not NULL).  0, or -EINVAL/-EMSGSIZE.
 */
int upmu_diag_decode(const void *buf, size_t len, enum upmu_diag_format f,
		     unsigned int n, unsigned int i, struct upmu_diag_sample *s,
		     uint64_t *values, uint64_t *ids);
/* Encode a sample (the inverse; what the PRM path writes into a buffer). */
int upmu_diag_encode(void *buf, size_t len, enum upmu_diag_format f,
		     unsigned int n, unsigned int i,
		     const struct upmu_diag_sample *s, const uint64_t *values,
		     const uint64_t *ids, const uint64_t *ts);

/* Name of a code (negative or positive), like strerror(). */
const char *upmu_diag_strerror(int err);
/* Code for a firmware status and syndrome (Documentation/upmu-diag.rst). */
int upmu_diag_fw_error(unsigned int status, uint32_t syndrome);
/* Firmware status and syndrome of the last failed command. */
void upmu_diag_last_fw(const struct upmu_diag *d, unsigned int *status,
		       uint32_t *syndrome);

/* ---- data IDs (upmu_diag_ids.c) ---------------------------------------- */

enum upmu_diag_param {
	UPMU_DIAG_P_NONE,	/* no parameter */
	UPMU_DIAG_P_PORT,	/* XX port */
	UPMU_DIAG_P_PORT_PRIO,	/* Y priority, XX port */
	UPMU_DIAG_P_HOST,	/* XX host */
	UPMU_DIAG_P_LINK,	/* ZZ node, YY depth, XX PCIe link */
	UPMU_DIAG_P_LINK_TC,	/* ZZZZ tclass and node, YY depth, XX link */
	UPMU_DIAG_P_FUNC,	/* XXXX function */
};

struct upmu_diag_id_row {
	uint32_t hi;			/* upper 32 bits, NIC_DID_* */
	enum upmu_diag_param param;
	bool statistic;			/* else a Counter */
	const char *name;
	const char *desc;
};

extern const struct upmu_diag_id_row upmu_diag_ids[];
extern const unsigned int upmu_diag_nr_ids;

/* The row of @id (its upper 32 bits), or NULL. */
const struct upmu_diag_id_row *upmu_diag_id_row(uint64_t id);
/* Row index of @id, or -1. */
int upmu_diag_id_index(uint64_t id);
/* The parameter pattern of a row: "0x10200001000000XX" */
void upmu_diag_id_pattern(const struct upmu_diag_id_row *row, char *buf,
			  size_t len);
/* "port_rx_bytes.p0", "port_prio_rx_pause.p1.prio3", ... or the hex ID. */
void upmu_diag_id_name(uint64_t id, char *buf, size_t len);
/* Inverse of upmu_diag_id_name() (also takes "0x..."); 0 or -EINVAL. */
int upmu_diag_id_parse(const char *s, uint64_t *id);
/*
 * The 16-bit mlx5 counter_id of @id on this device (hw/nic_cmd.h NIC_CID),
 * or -EINVAL when @id is not a well-formed ID of a known row.
 */
int upmu_diag_id_to_cid(uint64_t id);
/* Inverse: the 64-bit data ID of counter_id @cid, or 0. */
uint64_t upmu_diag_cid_to_id(uint16_t cid);

/* ---- internals shared with the unit tests -------------------------------- */

/*
 * One sample read from the device's buffer: a 16-bit sample_id and
 * 32-bit timestamps (low bits) as the mlx5 records carry them.
 */
struct upmu_diag_raw {
	uint16_t sid;
	const uint32_t *ts_lo;		/* per value: low 32 bits, ns */
	const uint64_t *values;
};

/*
 * The read cursor: the next sample_id expected (64-bit, extended from the
 * 16-bit ones) and the timestamp of the last one read.
 */
struct upmu_diag_cursor {
	bool started;
	uint64_t next_sid;
	uint64_t last_ts;	/* ns, extended */
};

/*
 * Order @n raw samples (a cyclic buffer's contents, any order, consecutive
 * sample_ids) oldest first into @order, give each its extended sample_id
 * in @sid and the number of samples that precede the first one and come
 * after the cursor (*@lost).  @expect: samples the device should have
 * taken since the cursor (elapsed time / period), to place 16-bit
 * sample_ids that wrapped.  Samples at or before the cursor are dropped
 * (duplicates).  Return: samples new (<= @n), or -EINVAL when the
 * sample_ids are not a consecutive run.
 */
int upmu_diag_order(const struct upmu_diag_cursor *c, const struct upmu_diag_raw *raw,
		    unsigned int n, uint64_t expect, unsigned int *order,
		    uint64_t *sid, uint64_t *lost);
/* Extend a 32-bit timestamp to 64 bits, nearest @ref. */
uint64_t upmu_diag_extend_ts(uint64_t ref, uint32_t lo);

#endif
