/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu core: shared perf glue for uncore PMUs.
 *
 * A PMU family supplies tables (formats, events) and a small set of
 * hardware ops; the core owns event_init, group validation, counter
 * scheduling, width-aware accumulation, overflow polling, sysfs and
 * CPU hotplug.
 */
#ifndef __UPMU_H__
#define __UPMU_H__

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/io.h>
#include <linux/list.h>
#include <linux/perf_event.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "hw/upmu_aux.h"

#define UPMU_MAX_COUNTERS	64
#define UPMU_NAME_LEN		48
#define UPMU_ID_LEN		32
#define UPMU_MAX_INFO		4
#define UPMU_INFO_LEN		64
#define UPMU_WHY_LEN		96

/* One register access of a list handed to &struct upmu_regs_ops.xfer. */
#define UPMU_XFER_WRITE	BIT(0)	/* write the low 32 bits of @val; else read */
#define UPMU_XFER_64	BIT(1)	/* a 64-bit read (single-copy atomic) */

/**
 * struct upmu_reg_xfer - one register access
 * @off: register offset
 * @flags: UPMU_XFER_*
 * @val: the value to write, or the value read
 */
struct upmu_reg_xfer {
	u32 off;
	u32 flags;
	u64 val;
};

/**
 * struct upmu_regs_ops - register access of a PMU register block
 * @xfer: do the @n accesses of @x in order, as one access after another
 *	would; reads fill in their @val
 * @copy: optional: copy @len bytes (a multiple of 4) between @buf and the
 *	registers from @off, to the device if @to_dev, as memcpy_toio() or
 *	memcpy_fromio() would (a command mailbox); without it, 32-bit
 *	accesses through @xfer
 *
 * Silicon uses MMIO (@ops == NULL in &struct upmu_regs); a backend such
 * as the simulator supplies @xfer, for which one call of many accesses
 * costs about what one access does.  Called with interrupts off; must
 * not sleep.
 */
struct upmu_regs_ops {
	void (*xfer)(void *ctx, struct upmu_reg_xfer *x, unsigned int n);
	void (*copy)(void *ctx, u32 off, void *buf, size_t len, bool to_dev);
};

#define UPMU_REGS_QUEUE		16

/**
 * struct upmu_regs - a PMU register block
 * @ops: backend accessors, or NULL for MMIO at @base
 * @ctx: backend cookie passed to @ops
 * @base: MMIO base when @ops is NULL
 * @atomic64: a 64-bit register read is single-copy atomic on this device
 *	      (as an ACPI APMT node's flag says): upmu_rd64_nolock() then
 *	      reads a counter in one access, else in two halves
 * @defer: writes to a backend wait in @q until the next read or
 *	   upmu_regs_commit() (see upmu_regs_defer())
 * @nq: accesses in @q
 * @q: deferred writes
 *
 * @defer, @nq and @q belong to whoever holds the lock of the box the
 * block is in: the *_nolock() reads never touch them.
 */
struct upmu_regs {
	const struct upmu_regs_ops *ops;
	void *ctx;
	void __iomem *base;
	bool atomic64;
	bool defer;
	unsigned int nq;
	struct upmu_reg_xfer q[UPMU_REGS_QUEUE];
};

/* Hand the deferred writes of @r to its backend. */
static inline void upmu_regs_flush(struct upmu_regs *r)
{
	if (r->nq) {
		r->ops->xfer(r->ctx, r->q, r->nq);
		r->nq = 0;
	}
}

/**
 * upmu_regs_defer() - let writes to a backend wait for the next access
 * @r: register block
 *
 * From here to upmu_regs_commit(), writes to a backend are queued and
 * go to it in order with the next read, or at the commit, in one call:
 * a read still sees every write before it, and nothing is left queued
 * past the commit.  The core does this around each of its locked
 * sections, so that a family's run of register writes (program a
 * counter, enable it) costs one backend call; within perf's
 * pmu_disable/pmu_enable bracket of a box it commits at the pmu_enable
 * (upmu_unlock()).  MMIO writes are never deferred.
 */
static inline void upmu_regs_defer(struct upmu_regs *r)
{
	r->defer = true;
}

static inline void upmu_regs_commit(struct upmu_regs *r)
{
	upmu_regs_flush(r);
	r->defer = false;
}

/*
 * One access to a backend, after (and in the same call as) the writes
 * waiting in the queue; a write waits too while deferring.
 */
static inline u64 upmu_regs_access(struct upmu_regs *r, u32 off, u32 flags,
				   u64 val)
{
	struct upmu_reg_xfer *x;

	if (r->nq == ARRAY_SIZE(r->q))
		upmu_regs_flush(r);
	x = &r->q[r->nq++];
	x->off = off;
	x->flags = flags;
	x->val = val;
	if ((flags & UPMU_XFER_WRITE) && r->defer)
		return 0;
	r->ops->xfer(r->ctx, r->q, r->nq);
	r->nq = 0;
	return x->val;
}

static inline u32 upmu_rd32(struct upmu_regs *r, u32 off)
{
	return r->ops ? upmu_regs_access(r, off, 0, 0) : readl(r->base + off);
}

static inline void upmu_wr32(struct upmu_regs *r, u32 off, u32 val)
{
	if (r->ops)
		upmu_regs_access(r, off, UPMU_XFER_WRITE, val);
	else
		writel(val, r->base + off);
}

/*
 * ---- reads without the box's lock ----
 *
 * &upmu_hw_ops.read runs without the box's lock, in any context: NMI, a
 * BPF program on a kprobe inside a locked section of the same box, a
 * reader on another CPU of the package.  It reads registers only with
 * the *_nolock() accessors below: straight to the device, never through
 * the queue of deferred writes (that is the lock holder's), and reads
 * only.  A backend's @xfer must serve such reads from any context too.
 */

/**
 * upmu_xfer_nolock() - register reads, from any context
 * @r: register block
 * @x: the reads (no UPMU_XFER_WRITE), in order; their @val filled in
 * @n: how many
 */
static inline void upmu_xfer_nolock(struct upmu_regs *r,
				    struct upmu_reg_xfer *x, unsigned int n)
{
	unsigned int i;

	if (r->ops) {
		r->ops->xfer(r->ctx, x, n);
		return;
	}
	for (i = 0; i < n; i++) {
#ifdef readq
		if (x[i].flags & UPMU_XFER_64) {
			x[i].val = readq(r->base + x[i].off);
			continue;
		}
#endif
		x[i].val = readl(r->base + x[i].off);
	}
}

static inline u32 upmu_rd32_nolock(struct upmu_regs *r, u32 off)
{
	struct upmu_reg_xfer x = { .off = off };

	upmu_xfer_nolock(r, &x, 1);
	return x.val;
}

/**
 * upmu_rd64_hilo() - read a running 64-bit counter as two 32-bit halves
 * @r: register block
 * @off: offset of the low half; the high half follows it
 *
 * Reads high, low, high, and again low and high until the high half
 * reads the same twice around a read of the low half: the value is
 * never torn by a carry between the two halves.  Each retry needs a
 * carry out of the low half (2^32 counts) since the previous read of
 * the high half, so the loop ends after one retry in practice.  The
 * first three reads go to a backend in one call.  A *_nolock() read.
 *
 * Return: the counter's value.
 */
static inline u64 upmu_rd64_hilo(struct upmu_regs *r, u32 off)
{
	struct upmu_reg_xfer x[3] = {
		{ .off = off + 4 }, { .off = off }, { .off = off + 4 },
	};
	u32 hi, lo, prev;

	upmu_xfer_nolock(r, x, ARRAY_SIZE(x));
	prev = x[0].val;
	lo = x[1].val;
	hi = x[2].val;
	while (hi != prev) {
		prev = hi;
		lo = upmu_rd32_nolock(r, off);
		hi = upmu_rd32_nolock(r, off + 4);
	}
	return (u64)hi << 32 | lo;
}

/**
 * upmu_rd64_nolock() - read a running 64-bit counter, from any context
 * @r: register block
 * @off: its offset
 *
 * In one 64-bit access where the device makes it single-copy atomic
 * (&upmu_regs.atomic64) and the platform has one, else in two halves by
 * upmu_rd64_hilo(): a 64-bit access that is not atomic can tear at a
 * carry between the halves.
 *
 * Return: the counter's value.
 */
static inline u64 upmu_rd64_nolock(struct upmu_regs *r, u32 off)
{
#ifndef readq
	if (!r->ops)
		return upmu_rd64_hilo(r, off);
#endif
	if (r->atomic64) {
		struct upmu_reg_xfer x = { .off = off, .flags = UPMU_XFER_64 };

		upmu_xfer_nolock(r, &x, 1);
		return x.val;
	}
	return upmu_rd64_hilo(r, off);
}

/*
 * A 64-bit register read, under the box's lock, after the deferred
 * writes: in one access where the platform can.  Not for counters that
 * run (upmu_rd64_nolock() is).
 */
static inline u64 upmu_rd64(struct upmu_regs *r, u32 off)
{
	if (r->ops)
		return upmu_regs_access(r, off, UPMU_XFER_64, 0);
#ifdef readq
	return readq(r->base + off);
#else
	return (u64)readl(r->base + off + 4) << 32 | readl(r->base + off);
#endif
}

/**
 * upmu_xfer() - many register accesses one after another
 * @r: register block
 * @x: the accesses, in order; reads get their @val filled in
 * @n: how many
 *
 * For a PMU whose event is the sum of many counters (CMEM: 42).  On
 * silicon, one MMIO access after another; a backend does them in one
 * call, with the deferred writes when they fit in the queue beside them,
 * else after them.
 */
static inline void upmu_xfer(struct upmu_regs *r, struct upmu_reg_xfer *x,
			     unsigned int n)
{
	unsigned int i;

	if (r->ops && r->nq && r->nq + n <= ARRAY_SIZE(r->q)) {
		memcpy(&r->q[r->nq], x, n * sizeof(*x));
		r->ops->xfer(r->ctx, r->q, r->nq + n);
		memcpy(x, &r->q[r->nq], n * sizeof(*x));
		r->nq = 0;
		return;
	}
	if (r->ops) {
		upmu_regs_flush(r);
		r->ops->xfer(r->ctx, x, n);
		return;
	}
	for (i = 0; i < n; i++) {
		if (x[i].flags & UPMU_XFER_WRITE)
			upmu_wr32(r, x[i].off, x[i].val);
		else if (x[i].flags & UPMU_XFER_64)
			x[i].val = upmu_rd64(r, x[i].off);
		else
			x[i].val = upmu_rd32(r, x[i].off);
	}
}

/*
 * upmu_memcpy_toio()/upmu_memcpy_fromio() - copy a block of registers
 * (a mailbox), @len a multiple of 4, after any deferred writes.  While
 * writes are deferred, a copy to the device that fits in the queue waits
 * there too, as the writes of its words (a command's header and its
 * doorbell then go in one call).
 */
static inline void upmu_regs_copy(struct upmu_regs *r, u32 off, void *buf,
				  size_t len, bool to_dev)
{
	u32 *p = buf;
	size_t i;

	if (!to_dev || !r->defer || len / 4 > ARRAY_SIZE(r->q) - r->nq) {
		upmu_regs_flush(r);
		if (r->ops->copy) {
			r->ops->copy(r->ctx, off, buf, len, to_dev);
			return;
		}
	}
	for (i = 0; i < len / 4; i++) {
		if (to_dev)
			upmu_wr32(r, off + 4 * i, p[i]);
		else
			p[i] = upmu_rd32(r, off + 4 * i);
	}
}

static inline void upmu_memcpy_toio(struct upmu_regs *r, u32 off,
				    const void *buf, size_t len)
{
	if (r->ops)
		upmu_regs_copy(r, off, (void *)buf, len, true);
	else
		memcpy_toio(r->base + off, buf, len);
}

static inline void upmu_memcpy_fromio(struct upmu_regs *r, u32 off, void *buf,
				      size_t len)
{
	if (r->ops)
		upmu_regs_copy(r, off, buf, len, false);
	else
		memcpy_fromio(buf, r->base + off, len);
}

#define UPMU_HILO_BATCH		16

/**
 * upmu_rd64_hilo_sum() - the sum of running 64-bit counters read in halves
 * @r: register block
 * @off: offset of the first counter's low half
 * @stride: from one counter to the next
 * @mask: the counters to read: bit i for the one at @off + i * @stride
 *
 * As upmu_rd64_hilo() of each counter one after another (high, low,
 * high), with the reads of up to UPMU_HILO_BATCH counters handed to a
 * backend in one call (an NV-DLink event's 16 instances); a counter whose
 * high half changed in between is read again by upmu_rd64_hilo().  The
 * list is the only array on the stack of a read that may run in an NMI.
 * A *_nolock() read.
 *
 * Return: the sum.
 */
static inline u64 upmu_rd64_hilo_sum(struct upmu_regs *r, u32 off, u32 stride,
				     unsigned long mask)
{
	struct upmu_reg_xfer x[3 * UPMU_HILO_BATCH];
	unsigned int i, k, m;
	u64 sum = 0;

	while (mask) {
		for (m = 0; mask && m < UPMU_HILO_BATCH; m++) {
			i = __ffs(mask);
			mask &= mask - 1;
			x[3 * m] = (struct upmu_reg_xfer){
				.off = off + i * stride + 4 };
			x[3 * m + 1] = (struct upmu_reg_xfer){
				.off = off + i * stride };
			x[3 * m + 2] = x[3 * m];
		}
		upmu_xfer_nolock(r, x, 3 * m);
		for (k = 0; k < m; k++) {
			u32 hi = x[3 * k].val, lo = x[3 * k + 1].val;

			if (hi == (u32)x[3 * k + 2].val)
				sum += (u64)hi << 32 | lo;
			else
				sum += upmu_rd64_hilo(r, x[3 * k + 1].off);
		}
	}
	return sum;
}

/**
 * struct upmu_platdata - how a PMU register block is reached
 * @ops: register accessors supplied by the platform (e.g. a simulator);
 *	 when NULL the driver maps MEM resource 0 instead
 * @ctx: their cookie
 * @socket: socket (NUMA node) the PMU belongs to
 * @instance: instance within the socket (e.g. PCIe RC number)
 */
struct upmu_platdata {
	const struct upmu_regs_ops *ops;
	void *ctx;
	u32 socket;
	u32 instance;
};

enum upmu_cfg_word { UPMU_CONFIG, UPMU_CONFIG1, UPMU_CONFIG2, UPMU_NR_WORDS };

/**
 * struct upmu_format - one perf format field ("configN:lo-hi[,lo2-hi2]")
 * @name: sysfs name
 * @word: which attr config word holds it
 * @lo: lowest bit
 * @hi: highest bit
 * @lo2: lowest bit of its second range (a split field), if @hi2
 * @hi2: highest bit of its second range, or 0 for a field of one range
 *
 * A split field's value is its first range's bits, then its second
 * range's above them, as perf packs a value into a format.
 */
struct upmu_format {
	const char *name;
	u8 word;
	u8 lo;
	u8 hi;
	u8 lo2;
	u8 hi2;
};

#define UPMU_FORMAT(_name, _word, _lo, _hi) \
	{ .name = #_name, .word = (_word), .lo = (_lo), .hi = (_hi) }
/* A field in two ranges of one config word, such as "config:8-15,32-57" */
#define UPMU_FORMAT_SPLIT(_name, _word, _lo, _hi, _lo2, _hi2)		\
	{ .name = #_name, .word = (_word), .lo = (_lo), .hi = (_hi),	\
	  .lo2 = (_lo2), .hi2 = (_hi2) }

/**
 * struct upmu_event_desc - one named event
 * @name: sysfs alias
 * @id: value of the family's event field (format index 0)
 * @unit: optional "<name>.unit" text
 * @scale: optional "<name>.scale" text
 * @params: optional text after "<format 0>=<id>" in sysfs, such as
 *	    ",port=?" for perf's event parameters
 */
struct upmu_event_desc {
	const char *name;
	u64 id;
	const char *unit;
	const char *scale;
	const char *params;
};

#define UPMU_EVENT(_name, _id)		{ .name = #_name, .id = (_id) }
/* Byte counters are shown in MiB by perf stat (raw counts stay bytes). */
#define UPMU_EVENT_BYTES(_name, _id)					\
	{ .name = #_name, .id = (_id), .unit = "MiB",			\
	  .scale = "9.5367431640625e-07" }

struct upmu_pmu;
struct platform_device;

struct upmu_box;

/**
 * struct upmu_sched - counter allocation state
 * @used: allocated counter indexes
 * @allowed: the counters the event on each allocated counter may use
 *	     (its constraint), so that upmu_sched_alloc() can move it
 * @box: the box whose hardware this is, or NULL for a scratch state
 * @priv: family state of resources shared by all counters (a filter
 *	  comparator, address-range slots)
 *
 * The core keeps one per box for the hardware.  To validate a group at
 * event_init time it builds an empty one on the stack: a group must fit
 * on a box of its own, whatever other users hold (perf multiplexes
 * groups that do not fit together).
 */
struct upmu_sched {
	DECLARE_BITMAP(used, UPMU_MAX_COUNTERS);
	u64 allowed[UPMU_MAX_COUNTERS];
	struct upmu_box *box;
	u64 priv[32];
};

int upmu_sched_alloc(struct upmu_pmu *upmu, struct upmu_sched *s, u64 allowed);

/**
 * struct upmu_hw_ops - what a PMU family does to the hardware
 * @validate: check filter semantics of a new event (config bits already
 *	      checked against the formats); return 0 or -errno
 * @constraint: optional: the counters @event may use (a mask); without
 *		it any of the first &upmu_pmu.num_counters.  0 refuses the
 *		event (EINVAL)
 * @get_idx: optional: allocate a counter for @event in @s, normally with
 *	     upmu_sched_alloc(), and claim the family's shared resources;
 *	     -EAGAIN when no counter is free (event_init reports EINVAL), or
 *	     another -errno that event_init returns as is.  Without it the
 *	     core allocates by @constraint
 * @put_idx: release what @get_idx took (optional; the core clears the bit)
 * @enable: start all counting (pmu_enable)
 * @disable: stop all counting (pmu_disable)
 * @config: program event type/filters of counter hwc->idx, not enabling it
 *	    (optional: fixed-function counters need nothing); a family
 *	    without @read sets hwc->event_base here
 * @start: enable counter hwc->idx (optional)
 * @stop: disable counter hwc->idx (optional)
 * @read: raw value of counter hwc->idx (upmu_counter_width() bits),
 *	  read with the *_nolock() accessors only; optional: without it
 *	  the core reads the counter at hwc->event_base of the event's box
 *	  (as upstream's uncore keeps the counter's address there; @config
 *	  sets it), a 64-bit register with upmu_rd64_nolock() if
 *	  &upmu_pmu.width is over 32 bits, else a 32-bit one, with no call
 *	  into the family
 * @check_id: optional: is @id (format 0) an event of this PMU?  Without
 *	      it only the ids of &upmu_desc.events are
 * @event_get: optional, may sleep: called by event_init without the
 *	       lock, once the event passed every other check; 0, or an
 *	       -errno that event_init returns
 * @event_put: optional, may sleep: undoes @event_get when the event is
 *	       destroyed (event->destroy, process context), also once the
 *	       PMU is dead, so it must not rely on the device being there
 *
 * Every op acts on one box of the PMU: upmu_event_box() of the event,
 * or for @enable and @disable upmu_this_box(), the box of the CPU they
 * run on.  The core calls every op but @read, @event_get and @event_put
 * with that box's lock held and interrupts off, so none of them may
 * sleep.  @read runs without the lock, in any context, NMI included
 * (perf_event_read_local(), the path of BPF's bpf_perf_event_read()):
 * never while a holder of the lock is in its section, but possibly in
 * the middle of such a section's caller on this CPU, and at the same
 * time as other reads of the same counter.
 * Once the box is dead it only calls @put_idx, which must not touch the
 * registers, and @event_put.  @enable, @disable, @config, @start, @stop
 * and @put_idx run on the box's CPU, as does @get_idx on the box's
 * &upmu_box.hw.  @read may run on any CPU: the box's, a reader's of the
 * same package (see &upmu_pmu.read_pkg), upmu_pmu_unregister()'s.
 * @validate, and @get_idx on a scratch &struct upmu_sched that
 * validates a group, run from event_init on the opener's CPU; there
 * @get_idx must only change the state it is given.
 */
struct upmu_hw_ops {
	int (*validate)(struct upmu_pmu *upmu, struct perf_event *event);
	u64 (*constraint)(struct upmu_pmu *upmu, struct perf_event *event);
	int (*get_idx)(struct upmu_pmu *upmu, struct upmu_sched *s,
		       struct perf_event *event);
	void (*put_idx)(struct upmu_pmu *upmu, struct upmu_sched *s,
			struct perf_event *event);
	void (*enable)(struct upmu_pmu *upmu);
	void (*disable)(struct upmu_pmu *upmu);
	void (*config)(struct upmu_pmu *upmu, struct perf_event *event);
	void (*start)(struct upmu_pmu *upmu, struct perf_event *event);
	void (*stop)(struct upmu_pmu *upmu, struct perf_event *event);
	u64 (*read)(struct upmu_pmu *upmu, struct perf_event *event);
	bool (*check_id)(struct upmu_pmu *upmu, u64 id);
	int (*event_get)(struct upmu_pmu *upmu, struct perf_event *event);
	void (*event_put)(struct upmu_pmu *upmu, struct perf_event *event);
};

/**
 * struct upmu_aux_out - where a drain writes its records
 * @event: the event being drained
 * @base: the AUX area (vmap of its pages)
 * @mask: its size - 1 (a power of two)
 * @head: perf's absolute write position at the start of the drain
 * @space: bytes perf lets the drain write
 * @used: bytes written so far
 * @flags: PERF_AUX_FLAG_* of the commit
 *
 * The core sets it up around &upmu_aux_ops.drain; a family only writes
 * through upmu_aux_put() (or its _body/_fromio forms) and asks
 * upmu_aux_space(), upmu_aux_time() and upmu_aux_dev_time().
 */
struct upmu_aux_out {
	struct perf_event *event;
	void *base;
	u64 mask;
	u64 head;
	size_t space;
	size_t used;
	u32 flags;
};

/**
 * struct upmu_aux_ops - a PMU family that streams records into perf's
 * AUX area (hw/upmu_aux.h) instead of counting
 * @drain: copy what the hardware has for @event into @out, as whole
 *	   records through upmu_aux_put(), never more than upmu_aux_space();
 *	   return true when data stayed in the hardware for lack of space
 *	   (the commit is then flagged TRUNCATED).  The first record of a
 *	   drain that writes anything must be the family's META record.
 *	   Called with the event's box locked and interrupts off (from the event's
 *	   pinned hard-irq timer every sample_period ns, and from stop with
 *	   PERF_EF_UPDATE): it must not sleep.
 * @begin: optional, at the event's first start, before its first drain,
 *	   with the same locking: drop what the hardware holds from before
 *	   (samples taken between the event's creation and its enabling are
 *	   no loss), so that the stream begins with what comes after.  It
 *	   must not sleep either.
 * @fill_ns: optional, at each start, with the same locking: how long the
 *	   hardware's buffer takes to fill (0: unknown).  The drain then
 *	   comes at least twice in that time, whatever sample_period asks,
 *	   so that a long period does not make the hardware overwrite
 *	   samples.
 *
 * Such a PMU's events are sampling events (sample_period: the drain
 * period in ns, or shorter as @fill_ns asks; a frequency is turned into
 * one) of one CPU, one at a
 * time (PERF_PMU_CAP_EXCLUSIVE); the family configures the hardware in
 * &upmu_hw_ops.event_get and undoes it in &upmu_hw_ops.event_put.  The
 * core owns setup_aux/free_aux (overwrite mode is refused), the timer,
 * the AUX transactions and the records' common header.
 */
struct upmu_aux_ops {
	bool (*drain)(struct upmu_pmu *upmu, struct perf_event *event,
		      struct upmu_aux_out *out);
	void (*begin)(struct upmu_pmu *upmu, struct perf_event *event);
	u64 (*fill_ns)(struct upmu_pmu *upmu, struct perf_event *event);
};

/* Bytes a drain may still write. */
static inline size_t upmu_aux_space(const struct upmu_aux_out *out)
{
	return out->space - out->used;
}

/* Now, in the event's perf clock (ns): what a record's time is in. */
static inline u64 upmu_aux_time(const struct upmu_aux_out *out)
{
	return out->event->clock();
}

/* Reads of the device clock upmu_aux_dev_time() picks the best of. */
#define UPMU_AUX_XTIME_TRIES	3
u64 upmu_aux_dev_time(struct upmu_aux_out *out, struct upmu_regs *regs,
		      u32 off, u64 *time);

/*
 * Write record @rec (@len bytes of header and fixed fields) followed by
 * @body_len bytes of body: from memory at @body (upmu_aux_put_body), or
 * read from the registers @regs at @off straight into the AUX area
 * (upmu_aux_put_fromio: a hardware buffer copied once).  The core fills
 * in the common header (size covers the body) and splits the copy where
 * the area wraps.  0, or -ENOSPC when it does not fit upmu_aux_space().
 */
int upmu_aux_put_body(struct upmu_aux_out *out, struct upmu_aux_hdr *rec,
		      size_t len, const void *body, size_t body_len);
int upmu_aux_put_fromio(struct upmu_aux_out *out, struct upmu_aux_hdr *rec,
			size_t len, struct upmu_regs *regs, u32 off,
			size_t body_len);
static inline int upmu_aux_put(struct upmu_aux_out *out,
			       struct upmu_aux_hdr *rec, size_t len)
{
	return upmu_aux_put_body(out, rec, len, NULL, 0);
}

/**
 * struct upmu_aux_stats - what an AUX PMU's drains cost, for debugfs
 * (upmu/<pmu>/aux_stats) and the benchmarks
 * @drains: drains that had an AUX area to write into (ticks and stops)
 * @commits: those that wrote records
 * @bytes: bytes they wrote
 * @commit_ns: time spent in them, from the AUX transaction's start to
 *	       its end (the hardware's reads included)
 * @max_ns: the longest of them
 * @ticks: runs of the drain timers
 * @no_area: drains that found no AUX area (not mapped, going away, or
 *	     full): each stops its event until perf starts it again
 * @budget: drains that stopped at UPMU_AUX_TICK_BYTES with more to copy,
 *	    and came again soon instead of a period later
 */
struct upmu_aux_stats {
	u64 drains;
	u64 commits;
	u64 bytes;
	u64 commit_ns;
	u64 max_ns;
	u64 ticks;
	u64 no_area;
	u64 budget;
};

/**
 * struct upmu_read_stats - lock-free reads (upmu_read()) that found a
 * locked section of their box under way, for debugfs (upmu/<pmu>/
 * read_stats): the rest read at once and are not counted
 * @in_section: gave the count as the last update left it at once: an
 *		NMI, or a read from inside a section of its own CPU
 * @waited: waited for a section of another CPU to end
 * @gave_up: of those, waited UPMU_READ_WAIT_NS out and gave the count as
 *	     the last update left it
 * @max_wait_ns: the longest wait
 */
struct upmu_read_stats {
	atomic64_t in_section;
	atomic64_t waited;
	atomic64_t gave_up;
	atomic64_t max_wait_ns;
};

/**
 * struct upmu_desc - a PMU model: tables plus hardware ops
 * @formats: format fields; index 0 must be the event selector
 * @nr_formats: entries in @formats
 * @events: named events; only these event ids are accepted, unless
 *	    &upmu_hw_ops.check_id says which are
 * @nr_events: entries in @events
 * @ops: hardware ops
 * @max_rate_per_ns: the fastest any counter can advance (increments
 *		     per ns); bounds the overflow polling period
 * @attr_groups: extra sysfs groups (NULL terminated, optional)
 * @aux: an AUX-stream PMU (then @ops needs no counter ops: only
 *	 @ops.validate, @ops.check_id, @ops.event_get and @ops.event_put
 *	 are used)
 */
struct upmu_desc {
	const struct upmu_format *formats;
	unsigned int nr_formats;
	const struct upmu_event_desc *events;
	unsigned int nr_events;
	const struct upmu_hw_ops *ops;
	u64 max_rate_per_ns;
	const struct attribute_group **attr_groups;
	const struct upmu_aux_ops *aux;
};

/**
 * struct upmu_info - a read-only sysfs file of one PMU instance
 * @name: file name (static string), or NULL for an unused slot
 * @val: its contents, without the trailing newline
 */
struct upmu_info {
	const char *name;
	char val[UPMU_INFO_LEN];
};

/**
 * struct upmu_box - the counters of a PMU on one die (or its only box)
 * @upmu: the PMU
 * @regs: the box's register block: &upmu_pmu.regs for the box of a PMU
 *	  of one box, else @own_regs
 * @own_regs: register block of a box of a per-die PMU (set by the family
 *	      between upmu_pmu_set_dies() and registration)
 * @id: index in &upmu_pmu.boxes: the logical die id for a per-die PMU
 * @cpus: the CPUs whose events count on this box
 * @cpu: owning CPU, or -1 when none of @cpus is online
 * @lock: protects @hw, @events, @n_active, @enabled, @dead and @held, and
 *	  serialises the register writes of the box and every call of a
 *	  &struct upmu_hw_ops op on it but @read
 * @busy: a holder of @lock is in its section: readers of the counters
 *	  (upmu_read(), no lock) keep off the registers meanwhile
 * @readers: lock-free reads of the box's counters under way; a holder
 *	     of @lock waits for them to end before it touches anything
 * @hw: allocation state of the box's counters
 * @events: event on each counter index
 * @shared: events on counters of &upmu_pmu.shared (on event->active_entry)
 * @n_active: events on the box (counters in use, and @shared), drives
 *	      the poll timer; read without @lock by the core's pmu_enable
 * @enabled: the box is enabled (&upmu_hw_ops.enable last called): it
 *	     stays disabled while no counter is in use; read without @lock
 *	     by the core's pmu_enable and pmu_disable
 * @dead: the registers are gone; perf callbacks no longer touch them
 * @held: writes deferred by a section wait in @regs' queue past its
 *	  unlock (within perf's pmu_disable/pmu_enable bracket)
 * @bracket_cpu: the CPU between perf's pmu_disable and pmu_enable of the
 *		 box, or -1: its sections' writes wait for the pmu_enable
 * @timer: overflow poll timer, pinned to @cpu
 * @priv: family data of the box
 */
struct upmu_box {
	struct upmu_pmu *upmu;
	struct upmu_regs *regs;
	struct upmu_regs own_regs;
	unsigned int id;
	cpumask_t cpus;
	int cpu;
	raw_spinlock_t lock;
	bool busy;
	atomic_t readers;
	struct upmu_sched hw;
	struct perf_event *events[UPMU_MAX_COUNTERS];
	struct list_head shared;
	unsigned int n_active;
	bool enabled;
	bool dead;
	bool held;
	int bracket_cpu;
	struct hrtimer timer;
	void *priv;
};

/**
 * struct upmu_pmu - one registered PMU instance
 * @pmu: the perf PMU
 * @dev: the device that provides the registers; not used once dead
 * @desc: the model
 * @regs: register block of a PMU of one box (box 0)
 * @name: perf PMU name (set by the family)
 * @identifier: sysfs identifier text (set by the family)
 * @info: extra per-instance sysfs files (set by the family, optional)
 * @valid: config bits covered by the formats, per config word
 * @associated_cpus: CPUs allowed to own the PMU: a PMU of one box sets
 *		     them (upmu_cpus_of_node()); upmu_pmu_set_dies() sets
 *		     them to all CPUs that have a box
 * @node: cpuhp instance node
 * @list: in the core's list of registered PMUs
 * @num_counters: general-purpose counters (set by the family)
 * @width: counter width in bits (set by the family)
 * @widths: width of each counter that differs from @width (0: @width);
 *	    set by the family, e.g. for free-running counters
 * @shared: counters that any number of events read at once (set by the
 *	    family): free-running counters, which nothing programs.  An
 *	    event whose constraint is among them takes no counter: it
 *	    reads the first counter of its constraint, and fits any group
 * @nr_boxes: boxes in @boxes (1 unless upmu_pmu_set_dies())
 * @boxes: the boxes
 * @cpu_box: index in @boxes of each CPU's box, or -1 (nr_cpu_ids entries);
 *	     for a per-die PMU set when the CPU comes online
 * @per_die: the PMU has a box per die (upmu_pmu_set_dies())
 * @poll: poll period, 0 if the counters cannot wrap in practice
 * @buried: when a PMU kept dead (Linux < 6.15) was unregistered (jiffies)
 * @live: perf_pmu_register() has returned: before that, event_init
 *	  refuses events (before 6.15 perf makes the PMU reachable by type
 *	  before it has allocated the PMU's contexts)
 * @read_pkg: each box's CPUs are exactly one package: events are read
 *	      from any CPU of it without an IPI
 * @top_level: set by the family: the PMU's sysfs device is
 *	       /sys/devices/<name>, not below @dev, where upstream's x86
 *	       uncore PMUs are and tools look for them (perf 6.1's iostat)
 * @groups: sysfs attribute groups handed to perf
 * @fmt_group: the "format" group
 * @ev_group: the "events" group
 * @info_group: the @info files
 * @attrs: attribute pointer arrays of @fmt_group and @ev_group
 * @ext: string attributes (formats, event units and scales)
 * @evattrs: event attributes
 * @strs: generated attribute names and texts
 * @aux_stats: what its AUX drains cost (&upmu_desc.aux)
 * @read_stats: its reads that met a locked section
 * @debugfs: its directory in debugfs (upmu/<pmu>/)
 * @priv: family data
 *
 * Allocated by upmu_pmu_alloc() and owned by the core once registered:
 * it can outlive its device (see upmu_pmu_unregister()).
 *
 * A PMU counts on one box per die (upmu_pmu_set_dies(): Intel's uncore
 * model, the box of an event chosen by the event's CPU), or on one box
 * (the default: the counters of one register block, owned by one of
 * @associated_cpus).  The cpumask file lists one owning CPU per box.
 */
struct upmu_pmu {
	struct pmu pmu;
	struct device *dev;
	const struct upmu_desc *desc;
	struct upmu_regs regs;
	char name[UPMU_NAME_LEN];
	char identifier[UPMU_ID_LEN];
	struct upmu_info info[UPMU_MAX_INFO];
	u64 valid[UPMU_NR_WORDS];
	cpumask_t associated_cpus;
	struct hlist_node node;
	struct list_head list;
	unsigned int num_counters;
	unsigned int width;
	u8 widths[UPMU_MAX_COUNTERS];
	u64 shared;
	unsigned int nr_boxes;
	struct upmu_box **boxes;
	int *cpu_box;
	bool per_die;
	ktime_t poll;
	unsigned long buried;
	bool live;
	bool read_pkg;
	bool top_level;
	const struct attribute_group *groups[8];
	struct attribute_group fmt_group;
	struct attribute_group ev_group;
	struct attribute_group info_group;
	struct attribute **attrs;
	struct dev_ext_attribute *ext;
	struct perf_pmu_events_attr *evattrs;
	char *strs;
	struct upmu_aux_stats aux_stats;
	struct upmu_read_stats read_stats;
	struct dentry *debugfs;
	void *priv;
};

#define to_upmu(p) container_of(p, struct upmu_pmu, pmu)

static inline struct upmu_pmu *upmu_from_dev(struct device *dev)
{
	return to_upmu((struct pmu *)dev_get_drvdata(dev));
}

u64 upmu_field(const struct upmu_pmu *upmu, const struct perf_event *event,
	       unsigned int fmt);
__printf(2, 3)
void upmu_why(struct upmu_pmu *upmu, const char *fmt, ...);
int upmu_regs_get(struct platform_device *pdev, struct upmu_regs *regs);
int upmu_cpus_of_node(struct upmu_pmu *upmu, int node);
int upmu_pmu_set_dies(struct upmu_pmu *upmu);
struct upmu_pmu *upmu_pmu_alloc(struct device *dev);
void upmu_pmu_free(struct upmu_pmu *upmu);
int upmu_set_info(struct upmu_pmu *upmu, const char *name, const char *fmt, ...)
	__printf(3, 4);
int __upmu_pmu_register(struct upmu_pmu *upmu, struct module *owner);
void upmu_pmu_unregister(struct upmu_pmu *upmu);

#define upmu_pmu_register(u) __upmu_pmu_register(u, THIS_MODULE)

DECLARE_PER_CPU(unsigned int, upmu_hw_depth);

/**
 * upmu_hw_enter() - this CPU enters a section that owns registers
 *
 * A box's locked section (the core's), or a backend's own (a simulator's
 * lock).  A lock-free read of a counter that interrupts such a section
 * on its CPU (an NMI, a BPF program on a kprobe) reads no register and
 * waits for nobody: it gives the count as the last update left it.
 * Interrupts are off between upmu_hw_enter() and upmu_hw_exit().
 */
static inline void upmu_hw_enter(void)
{
	this_cpu_inc(upmu_hw_depth);
}

static inline void upmu_hw_exit(void)
{
	this_cpu_dec(upmu_hw_depth);
}

/* Is this CPU inside a section of upmu_hw_enter()? */
static inline bool upmu_hw_busy_here(void)
{
	return this_cpu_read(upmu_hw_depth);
}

/* The box of a CPU, or NULL if the CPU has none. */
static inline struct upmu_box *upmu_cpu_box(const struct upmu_pmu *upmu,
					    int cpu)
{
	int i = cpu >= 0 && cpu < nr_cpu_ids ? READ_ONCE(upmu->cpu_box[cpu]) : -1;

	return i < 0 ? NULL : upmu->boxes[i];
}

/* The box an initialised event counts on (its CPU's). */
static inline struct upmu_box *upmu_event_box(const struct upmu_pmu *upmu,
					      const struct perf_event *event)
{
	return upmu_cpu_box(upmu, event->cpu);
}

/* The box of the running CPU: the box of &upmu_hw_ops.enable/disable. */
static inline struct upmu_box *upmu_this_box(const struct upmu_pmu *upmu)
{
	return upmu_cpu_box(upmu, raw_smp_processor_id());
}

/* Width in bits of counter @idx. */
static inline unsigned int upmu_counter_width(const struct upmu_pmu *upmu,
					      unsigned int idx)
{
	return idx < UPMU_MAX_COUNTERS && upmu->widths[idx] ?
	       upmu->widths[idx] : upmu->width;
}

#endif /* __UPMU_H__ */
