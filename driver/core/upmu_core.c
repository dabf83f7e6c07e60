// SPDX-License-Identifier: GPL-2.0
/*
 * upmu core: event_init, scheduling, accumulation, polling, sysfs and
 * hotplug shared by all upmu PMU families.
 */

#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "upmu.h"
#include "upmu_compat.h"

/* Longest poll period: a 64-bit counter never needs more. */
#define UPMU_POLL_MAX_NS	(60ULL * NSEC_PER_SEC)
/* Shortest poll period we are willing to run. */
#define UPMU_POLL_MIN_NS	(100ULL * NSEC_PER_USEC)
/* Shortest drain period of an AUX stream (sample_period, ns). */
#define UPMU_AUX_MIN_NS		(100ULL * NSEC_PER_USEC)

static enum cpuhp_state upmu_hp_state;

/*
 * Names of registered upmu PMUs.  perf does not refuse a duplicate name
 * itself (sysfs would complain loudly), so two simulated SoCs, or a
 * simulated and a real one, cannot collide silently.
 */
static LIST_HEAD(upmu_list);
static DEFINE_MUTEX(upmu_list_lock);

static u64 upmu_cfg_word(const struct perf_event_attr *attr, unsigned int w)
{
	switch (w) {
	case UPMU_CONFIG:
		return attr->config;
	case UPMU_CONFIG1:
		return attr->config1;
	default:
		return attr->config2;
	}
}

/**
 * upmu_field() - value of format field @fmt in @event's attr
 * @upmu: the PMU
 * @event: the event
 * @fmt: index into the family's format table
 */
u64 upmu_field(const struct upmu_pmu *upmu, const struct perf_event *event,
	       unsigned int fmt)
{
	const struct upmu_format *f = &upmu->desc->formats[fmt];
	u64 v = upmu_cfg_word(&event->attr, f->word);
	u64 lo = (v & GENMASK_ULL(f->hi, f->lo)) >> f->lo;

	if (!f->hi2)
		return lo;
	return lo | (v & GENMASK_ULL(f->hi2, f->lo2)) >> f->lo2 << (f->hi - f->lo + 1);
}
EXPORT_SYMBOL_GPL(upmu_field);

/**
 * upmu_regs_get() - register block of a PMU platform device
 * @pdev: the device
 * @regs: filled in
 *
 * A platform that supplies accessors (a simulator, a firmware mailbox)
 * passes them in &struct upmu_platdata; otherwise MEM resource 0 is
 * mapped.  The driver cannot tell the two apart.  A 64-bit register read
 * is single-copy atomic (&upmu_regs.atomic64) when the device's
 * "reg-io-width" property says 8 bytes, as the CoreSight PMU binding has
 * it (an ACPI APMT node's ATOMIC flag); a family whose hardware always
 * is sets it itself.
 */
int upmu_regs_get(struct platform_device *pdev, struct upmu_regs *regs)
{
	const struct upmu_platdata *pd = dev_get_platdata(&pdev->dev);
	void __iomem *base;
	u32 width = 4;

	device_property_read_u32(&pdev->dev, "reg-io-width", &width);
	memset(regs, 0, sizeof(*regs));
	if (pd && pd->ops) {
		regs->ops = pd->ops;
		regs->ctx = pd->ctx;
	} else {
		base = devm_platform_ioremap_resource(pdev, 0);
		if (IS_ERR(base))
			return PTR_ERR(base);
		regs->base = base;
	}
	regs->atomic64 = width == 8;
	return 0;
}
EXPORT_SYMBOL_GPL(upmu_regs_get);

/**
 * upmu_cpus_of_node() - associate the PMU with the CPUs of NUMA node @node
 * @upmu: the PMU
 * @node: the socket's node
 *
 * Return: 0, or -ENODEV when the node has no CPUs.
 */
int upmu_cpus_of_node(struct upmu_pmu *upmu, int node)
{
	unsigned int cpu;

	cpumask_clear(&upmu->associated_cpus);
	for_each_possible_cpu(cpu)
		if (cpu_to_node(cpu) == node)
			cpumask_set_cpu(cpu, &upmu->associated_cpus);
	return cpumask_empty(&upmu->associated_cpus) ? -ENODEV : 0;
}
EXPORT_SYMBOL_GPL(upmu_cpus_of_node);

/* ---- counting ---------------------------------------------------------- */

DEFINE_PER_CPU(unsigned int, upmu_hw_depth);
EXPORT_PER_CPU_SYMBOL_GPL(upmu_hw_depth);

/*
 * Every register write of a box, and every counter read but the
 * lock-free one of upmu_read(), happens under the box's lock and only
 * while the box is not dead, so that a PMU whose device is gone (see
 * upmu_pmu_unregister()) never touches its registers again.
 *
 * upmu_lock() takes it around each perf callback that may touch
 * registers: the writes a callback makes to a backend go to it in one
 * call, with its next read or at the unlock (upmu_regs_defer()), or
 * within perf's pmu_disable/pmu_enable bracket at the pmu_enable.  The
 * section also keeps the lock-free readers off the registers: once
 * @busy is set it waits for the reads under way to end, and readers
 * that come later see @busy and keep off (upmu_read_begin()).  Readers
 * never wait for anything, so neither does this for long.
 */
static unsigned long upmu_lock(struct upmu_box *box)
	__acquires(&box->lock)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&box->lock, flags);
	upmu_hw_enter();
	WRITE_ONCE(box->busy, true);
	/* Pairs with the barrier in upmu_read_begin(). */
	smp_mb();
	while (atomic_read(&box->readers))
		cpu_relax();
	upmu_regs_defer(box->regs);
	return flags;
}

static void upmu_unlock(struct upmu_box *box, unsigned long flags)
	__releases(&box->lock)
{
	struct upmu_regs *r = box->regs;

	/*
	 * Between perf's pmu_disable and pmu_enable of the box on this CPU,
	 * the deferred writes wait for the pmu_enable (or any access before
	 * it): the counters stop, are reprogrammed and start again in as few
	 * calls as the reads allow.
	 */
	if (r->nq && READ_ONCE(box->bracket_cpu) == raw_smp_processor_id()) {
		r->defer = false;
		WRITE_ONCE(box->held, true);
	} else {
		upmu_regs_commit(r);
		WRITE_ONCE(box->held, false);
	}
	/* What the section did is seen by the readers it let in. */
	smp_store_release(&box->busy, false);
	upmu_hw_exit();
	raw_spin_unlock_irqrestore(&box->lock, flags);
}

/*
 * How long a lock-free read waits for a locked section of another CPU to
 * end before it makes do with the count as it is.  A section lasts
 * microseconds, but its CPU may be a vCPU that its host does not run for
 * a while (tens of milliseconds on a loaded host), and a read that gives
 * up is a count short of what the device counted: so long enough for
 * that, and a bound only so that no reader ever spins without one.
 */
#define UPMU_READ_WAIT_NS	NSEC_PER_SEC

/*
 * Begin a lock-free read of the box's counters.  False: the read must not
 * touch the registers, since a locked section of the box (or any section
 * of upmu_hw_enter()) is under way on this CPU, which the read interrupts
 * (an NMI, a BPF program on a kprobe) and so cannot wait for; or one on
 * another CPU did not end in UPMU_READ_WAIT_NS, or this is an NMI, which
 * waits for nobody.  The count is then as the last update left it.
 */
static bool upmu_read_begin(struct upmu_box *box)
{
	struct upmu_read_stats *st = &box->upmu->read_stats;
	bool in = false;
	u64 t0 = 0;
	s64 waited, max;

	for (;;) {
		atomic_inc(&box->readers);
		/* Pairs with the barrier in upmu_lock(). */
		smp_mb__after_atomic();
		if (!READ_ONCE(box->busy)) {
			in = true;
			break;
		}
		atomic_dec(&box->readers);
		if (upmu_hw_busy_here() || in_nmi()) {
			atomic64_inc(&st->in_section);
			return false;
		}
		if (!t0)
			t0 = local_clock();
		else if (local_clock() - t0 > UPMU_READ_WAIT_NS)
			break;
		cpu_relax();
	}
	if (!t0)
		return true;
	/* Waits are rare (a section is short): count them. */
	waited = local_clock() - t0;
	atomic64_inc(&st->waited);
	max = atomic64_read(&st->max_wait_ns);
	while (waited > max &&
	       !atomic64_try_cmpxchg(&st->max_wait_ns, &max, waited))
		;
	if (!in)
		atomic64_inc(&st->gave_up);
	return in;
}

static void upmu_read_end(struct upmu_box *box)
{
	/* Our register reads are done before a section can start. */
	smp_mb__before_atomic();
	atomic_dec(&box->readers);
}

/* A counter of @bits bits: the delta since @prev, across one wrap. */
static u64 upmu_delta(u64 prev, u64 now, unsigned int bits)
{
	return (now - prev) & GENMASK_ULL(bits - 1, 0);
}

/*
 * The raw value of the event's counter (&upmu_hw_ops.read), with the
 * *_nolock() accessors: under the box's lock after its deferred writes,
 * or in a lock-free read.
 */
static __always_inline u64 upmu_hw_read(struct upmu_box *box, struct perf_event *event)
{
	const struct upmu_hw_ops *ops = box->upmu->desc->ops;

	if (ops->read)
		return ops->read(box->upmu, event);
	if (box->upmu->width > 32)
		return upmu_rd64_nolock(box->regs, event->hw.event_base);
	return upmu_rd32_nolock(box->regs, event->hw.event_base);
}

/*
 * An event's prev_count and count change on any CPU of its package: on
 * the box's owner (the poll timer, start and stop) and on every reader
 * of upmu_read(), several at a time.  So they change by read-modify-
 * writes that are atomic across CPUs, which local64_t's are not on
 * x86 (no LOCK prefix); a local64_t is an atomic_long_t there and on
 * arm64 (and on every 64-bit architecture of asm-generic/local64.h).
 */
static_assert(sizeof(local64_t) == sizeof(atomic_long_t) &&
	      sizeof(long) == sizeof(u64));

static atomic_long_t *upmu_atomic(local64_t *v)
{
	return (atomic_long_t *)v;
}

/* Add what the event's counter counted from @prev to @now to its count. */
static __always_inline void upmu_event_add(struct upmu_pmu *upmu,
					   struct perf_event *event,
					   u64 prev, u64 now)
{
	atomic_long_add(upmu_delta(prev, now, upmu_counter_width(upmu, event->hw.idx)),
			upmu_atomic(&event->count));
}

/*
 * Fold what the counter counted since prev_count into the event's count.
 * Under the box's lock (the poll), or lock-free (upmu_read()): whoever
 * moves prev_count from the value it read counts the delta, so that
 * concurrent updates count each increment once.
 */
static __always_inline void upmu_event_update(struct upmu_box *box,
					      struct perf_event *event)
{
	atomic_long_t *prevp = upmu_atomic(&event->hw.prev_count);
	long prev = atomic_long_read(prevp), now;

	do {
		now = upmu_hw_read(box, event);
	} while (!atomic_long_try_cmpxchg(prevp, &prev, now));
	upmu_event_add(box->upmu, event, prev, now);
}

/* Fold the hardware counts of every running event of @box into its count. */
static void upmu_update_all(struct upmu_box *box)
{
	unsigned int idx;

	struct perf_event *event;

	for_each_set_bit(idx, box->hw.used, UPMU_MAX_COUNTERS) {
		event = box->events[idx];
		if (event && !(event->hw.state & PERF_HES_STOPPED))
			upmu_event_update(box, event);
	}
	list_for_each_entry(event, &box->shared, active_entry)
		if (!(event->hw.state & PERF_HES_STOPPED))
			upmu_event_update(box, event);
}

static enum hrtimer_restart upmu_poll(struct hrtimer *t)
{
	struct upmu_box *box = container_of(t, struct upmu_box, timer);
	unsigned long flags;

	flags = upmu_lock(box);
	if (!box->n_active || box->dead) {
		upmu_unlock(box, flags);
		return HRTIMER_NORESTART;
	}
	upmu_regs_flush(box->regs);
	upmu_update_all(box);
	upmu_unlock(box, flags);

	hrtimer_forward_now(t, box->upmu->poll);
	return HRTIMER_RESTART;
}

/*
 * perf enables and disables a PMU on the CPU whose events it schedules:
 * for an uncore PMU the owner of a box, so the box is this CPU's.  perf
 * calls both around every add and del, most often with nothing to do: a
 * look at @n_active, @enabled and @held without the lock says so.  Each
 * is one word, written under the lock, and a section taken at the moment
 * of the look would have done nothing either; on the owner, the only CPU
 * that adds and deletes the box's events, the look sees its own writes.
 * From pmu_disable to pmu_enable the box's deferred writes wait
 * (upmu_unlock(), &upmu_box.bracket_cpu); pmu_enable sends them.
 */
static void upmu_pmu_enable(struct pmu *pmu)
{
	struct upmu_pmu *upmu = to_upmu(pmu);
	struct upmu_box *box = upmu_this_box(upmu);
	unsigned long flags;

	if (!box)
		return;
	WRITE_ONCE(box->bracket_cpu, -1);
	if (!READ_ONCE(box->held) &&
	    (!READ_ONCE(box->n_active) || READ_ONCE(box->enabled)))
		return;
	flags = upmu_lock(box);
	if (box->n_active && !box->enabled && !box->dead) {
		upmu->desc->ops->enable(upmu);
		WRITE_ONCE(box->enabled, true);
	}
	upmu_unlock(box, flags);
}

static void upmu_pmu_disable(struct pmu *pmu)
{
	struct upmu_pmu *upmu = to_upmu(pmu);
	struct upmu_box *box = upmu_this_box(upmu);
	unsigned long flags;

	if (!box)
		return;
	WRITE_ONCE(box->bracket_cpu, raw_smp_processor_id());
	if (!READ_ONCE(box->enabled))
		return;
	flags = upmu_lock(box);
	if (box->enabled && !box->dead) {
		upmu->desc->ops->disable(upmu);
		WRITE_ONCE(box->enabled, false);
	}
	upmu_unlock(box, flags);
}

/*
 * The event's counter as the writes queued before it leave it, under the
 * box's lock: with them, in one backend call, where one access reads it
 * whole (32 bits, or 64 where they are single-copy atomic); else after
 * them, as a lock-free read would.
 */
static u64 upmu_hw_read_locked(struct upmu_box *box, struct perf_event *event)
{
	struct upmu_regs *r = box->regs;
	struct upmu_pmu *upmu = box->upmu;

	if (r->ops && !upmu->desc->ops->read &&
	    (upmu->width <= 32 || r->atomic64))
		return upmu_regs_access(r, event->hw.event_base,
					upmu->width > 32 ? UPMU_XFER_64 : 0, 0);
	upmu_regs_flush(r);
	return upmu_hw_read(box, event);
}

/* Program and enable the event's counter; box locked, not dead. */
static void upmu_hw_start(struct upmu_box *box, struct perf_event *event)
{
	struct upmu_pmu *upmu = box->upmu;
	const struct upmu_hw_ops *ops = upmu->desc->ops;

	if (ops->config)
		ops->config(upmu, event);
	local64_set(&event->hw.prev_count, upmu_hw_read_locked(box, event));
	if (ops->start)
		ops->start(upmu, event);
}

/*
 * Disable the event's counter and fold in its count; box locked, not
 * dead.  Nothing but this CPU moves prev_count now: a lock-free reader
 * keeps off while the box is locked (upmu_read_begin()).
 */
static void upmu_hw_stop(struct upmu_box *box, struct perf_event *event)
{
	struct upmu_pmu *upmu = box->upmu;
	u64 now;

	if (upmu->desc->ops->stop)
		upmu->desc->ops->stop(upmu, event);
	now = upmu_hw_read_locked(box, event);
	upmu_event_add(upmu, event, local64_xchg(&event->hw.prev_count, now), now);
}

static void upmu_start(struct perf_event *event, int flags)
{
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	struct upmu_box *box = upmu_event_box(upmu, event);
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;

	if (WARN_ON_ONCE(!(hwc->state & PERF_HES_STOPPED)))
		return;

	irqflags = upmu_lock(box);
	hwc->state = 0;
	if (!box->dead)
		upmu_hw_start(box, event);
	upmu_unlock(box, irqflags);
}

static void upmu_stop(struct perf_event *event, int flags)
{
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	struct upmu_box *box = upmu_event_box(upmu, event);
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;

	if (hwc->state & PERF_HES_STOPPED)
		return;

	irqflags = upmu_lock(box);
	if (!box->dead)
		upmu_hw_stop(box, event);
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
	upmu_unlock(box, irqflags);
}

/*
 * Move the event of the box's counter @from to counter @to (free): what
 * upmu_sched_alloc() does to make room for an event with a narrower
 * constraint.  A running event stops on @from, keeping its count, and
 * counts on from @to.  Box locked, not dead.
 */
static void upmu_hw_move(struct upmu_box *box, unsigned int from,
			 unsigned int to)
{
	struct perf_event *event = box->events[from];
	bool running = event && !(event->hw.state & PERF_HES_STOPPED);

	if (running)
		upmu_hw_stop(box, event);
	box->events[to] = event;
	box->events[from] = NULL;
	if (event)
		event->hw.idx = to;
	if (running) {
		upmu_hw_start(box, event);
		perf_event_update_userpage(event);
	}
}

/*
 * A counter of @want for a new event: a free one, or one that the event
 * on it can leave for another counter it may use, itself free or left
 * the same way, and so on: an augmenting path of bipartite matching
 * (Kuhn's), which finds a counter whenever the events and their
 * constraints have an assignment at all.  Each counter is tried once
 * (@seen), so it takes at most one visit of each event per counter.  The
 * events on the path move along it, the farthest first (on a box's
 * hardware, counting on).
 */
static int upmu_sched_path(struct upmu_sched *s, u64 want, u64 *seen)
{
	unsigned long w = want & ~*seen;
	unsigned int idx;
	int to;

	for_each_set_bit(idx, &w, BITS_PER_LONG) {
		*seen |= BIT_ULL(idx);
		if (!test_bit(idx, s->used))
			return idx;
	}
	for_each_set_bit(idx, &w, BITS_PER_LONG) {
		to = upmu_sched_path(s, s->allowed[idx], seen);
		if (to < 0)
			continue;
		if (s->box)
			upmu_hw_move(s->box, idx, to);
		set_bit(to, s->used);
		s->allowed[to] = s->allowed[idx];
		clear_bit(idx, s->used);
		return idx;
	}
	return -EAGAIN;
}

/**
 * upmu_sched_alloc() - allocate a counter among those an event may use
 * @upmu: the PMU
 * @s: the allocation state (a box's hardware, or a scratch one)
 * @allowed: the counters the event may use (its constraint)
 *
 * A free counter of @allowed if there is one; else events already
 * allocated move to other counters they may use, to make room, whenever
 * some assignment of all of them and the new event exists (on a box's
 * hardware, counting on).  The caller sets the returned bit in @s->used
 * (the core does for get_idx).
 *
 * Return: the counter, or -EAGAIN.
 */
int upmu_sched_alloc(struct upmu_pmu *upmu, struct upmu_sched *s, u64 allowed)
{
	u64 seen = 0;
	int idx;

	BUILD_BUG_ON(UPMU_MAX_COUNTERS != BITS_PER_LONG);
	idx = upmu_sched_path(s, allowed, &seen);
	if (idx >= 0)
		s->allowed[idx] = allowed;
	return idx;
}
EXPORT_SYMBOL_GPL(upmu_sched_alloc);

/* The counters @event may use: the family's constraint, or any. */
static u64 upmu_constraint(struct upmu_pmu *upmu, struct perf_event *event)
{
	if (upmu->desc->ops->constraint)
		return upmu->desc->ops->constraint(upmu, event);
	return upmu->num_counters ? GENMASK_ULL(upmu->num_counters - 1, 0) : 0;
}

/*
 * The shared counter @event reads (&upmu_pmu.shared), or -1 when it needs
 * a counter of its own.
 */
static int upmu_shared_idx(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 allowed;

	if (!upmu->shared)
		return -1;
	allowed = upmu_constraint(upmu, event);
	if (!allowed || (allowed & ~upmu->shared))
		return -1;
	return __ffs64(allowed);
}

/* A counter for @event in @s: the family's get_idx, or by constraint. */
static int upmu_get_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
			struct perf_event *event)
{
	if (upmu->desc->ops->get_idx)
		return upmu->desc->ops->get_idx(upmu, s, event);
	return upmu_sched_alloc(upmu, s, upmu_constraint(upmu, event));
}

static int upmu_add(struct perf_event *event, int flags)
{
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	struct upmu_box *box = upmu_event_box(upmu, event);
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;
	int idx, shared;

	irqflags = upmu_lock(box);
	shared = upmu_shared_idx(upmu, event);
	if (box->dead)
		idx = -ENODEV;
	else
		idx = shared >= 0 ? shared : upmu_get_idx(upmu, &box->hw, event);
	if (idx < 0) {
		upmu_unlock(box, irqflags);
		return idx;
	}
	if (shared >= 0) {
		list_add_tail(&event->active_entry, &box->shared);
	} else {
		set_bit(idx, box->hw.used);
		box->events[idx] = event;
	}
	hwc->idx = idx;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	WRITE_ONCE(box->n_active, box->n_active + 1);
	if (box->n_active == 1 && upmu->poll)
		hrtimer_start(&box->timer, upmu->poll,
			      HRTIMER_MODE_REL_PINNED_HARD);
	upmu_unlock(box, irqflags);

	if (flags & PERF_EF_START)
		upmu_start(event, PERF_EF_RELOAD);

	perf_event_update_userpage(event);
	return 0;
}

static void upmu_del(struct perf_event *event, int flags)
{
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	struct upmu_box *box = upmu_event_box(upmu, event);
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;
	bool last;

	upmu_stop(event, PERF_EF_UPDATE);

	irqflags = upmu_lock(box);
	if (!list_empty(&event->active_entry)) {
		list_del_init(&event->active_entry);
	} else {
		if (upmu->desc->ops->put_idx)
			upmu->desc->ops->put_idx(upmu, &box->hw, event);
		clear_bit(hwc->idx, box->hw.used);
		box->events[hwc->idx] = NULL;
	}
	hwc->idx = -1;
	WRITE_ONCE(box->n_active, box->n_active - 1);
	last = !box->n_active;
	upmu_unlock(box, irqflags);

	/* The timer is pinned to this CPU and we run with IRQs off. */
	if (last && upmu->poll)
		hrtimer_try_to_cancel(&box->timer);

	perf_event_update_userpage(event);
}

/*
 * perf's read of an event: on the box's CPU, on any CPU of its package
 * when the PMU has @read_pkg, and from any context, NMI included, by
 * perf_event_read_local() (BPF's bpf_perf_event_read_value()), even
 * from a BPF program on a kprobe inside a locked section of this very
 * box.  So it takes no lock: upmu_read_begin() keeps it off the
 * registers while a locked section changes them, and a section waits for
 * it (upstream's uncore and arm_cspmu read lock-free for the same
 * reason).  @dead and the event's state change only in sections.
 */
static void upmu_read(struct perf_event *event)
{
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	struct upmu_box *box = upmu_event_box(upmu, event);

	if (!upmu_read_begin(box))
		return;
	if (!(READ_ONCE(event->hw.state) & PERF_HES_STOPPED) &&
	    !READ_ONCE(box->dead))
		upmu_event_update(box, event);
	upmu_read_end(box);
}

/* ---- AUX streams ------------------------------------------------------- */

/*
 * A PMU with &upmu_desc.aux streams records into perf's AUX area: every
 * sample_period ns a timer, pinned to the event's CPU and run in hard
 * irq, opens an AUX transaction, lets the family's drain copy whole
 * records into the free space perf reports, and commits them.  No
 * transaction is left open between ticks, so none outlives stop().
 */

/**
 * struct upmu_aux_buf - an AUX area, as setup_aux() maps it
 * @base: its pages, mapped contiguously
 * @size: bytes, a power of two
 */
struct upmu_aux_buf {
	void *base;
	size_t size;
};

/**
 * struct upmu_aux_event - per-event state of an AUX stream (pmu_private)
 * @handle: the AUX transaction, open only inside upmu_aux_drain()
 * @timer: the drain timer, pinned to the event's CPU, hard irq
 * @event: the event
 * @seq: the next record's number
 * @period: the drain period in ns (upmu_aux_period(), set at each start)
 * @started: the event has been started once (&upmu_aux_ops.begin ran)
 */
struct upmu_aux_event {
	struct perf_output_handle handle;
	struct hrtimer timer;
	struct perf_event *event;
	u64 seq;
	u64 period;
	bool started;
};

/* @len bytes at the drain's write position + @at, split at the area's end. */
static void upmu_aux_copy(struct upmu_aux_out *out, size_t at, const void *src,
			  size_t len)
{
	u64 off = (out->head + out->used + at) & out->mask;
	size_t first = min_t(size_t, len, out->mask + 1 - off);

	memcpy(out->base + off, src, first);
	memcpy(out->base, (const u8 *)src + first, len - first);
}

/* The checks and header of a record of @total bytes: false if it does not fit. */
static bool upmu_aux_put_hdr(struct upmu_aux_out *out, struct upmu_aux_hdr *rec,
			     size_t len, size_t total)
{
	struct upmu_aux_event *ae = out->event->pmu_private;

	if (WARN_ON_ONCE(len < sizeof(*rec) || total % 8) ||
	    total > upmu_aux_space(out))
		return false;
	rec->magic = UPMU_AUX_MAGIC;
	rec->version = UPMU_AUX_VERSION;
	rec->size = total;
	rec->seq = ae->seq++;
	upmu_aux_copy(out, 0, rec, len);
	return true;
}

static void upmu_aux_put_done(struct upmu_aux_out *out,
			      const struct upmu_aux_hdr *rec)
{
	out->used += rec->size;
	if (rec->type == UPMU_AUX_LOST)
		out->flags |= PERF_AUX_FLAG_PARTIAL;
}

/**
 * upmu_aux_put_body() - write one whole record into the AUX area
 * @out: the drain's output
 * @rec: the record's start: its header's type, nr and time set by the
 *	 family
 * @len: bytes at @rec
 * @body: the rest of the record (may be NULL), copied straight from
 *	  where the family has it: no staging copy
 * @body_len: its bytes; @len + @body_len a multiple of 8
 *
 * Fills in the header's magic, version, size and seq, and copies the
 * record at perf's write position, split at the end of the area.  A LOST
 * record flags the commit PARTIAL.  upmu_aux_put() is the same without
 * a body.
 *
 * Return: 0, or -ENOSPC (nothing written) if it does not fit.
 */
int upmu_aux_put_body(struct upmu_aux_out *out, struct upmu_aux_hdr *rec,
		      size_t len, const void *body, size_t body_len)
{
	if (!upmu_aux_put_hdr(out, rec, len, len + body_len))
		return -ENOSPC;
	if (body_len)
		upmu_aux_copy(out, len, body, body_len);
	upmu_aux_put_done(out, rec);
	return 0;
}
EXPORT_SYMBOL_GPL(upmu_aux_put_body);

/**
 * upmu_aux_put_fromio() - write a record whose body is a block of device
 * registers (a sample window), copied straight into the AUX area
 * @out: the drain's output
 * @rec: the record's start, as for upmu_aux_put_body()
 * @len: bytes at @rec
 * @regs: the register block
 * @off: the body's first register
 * @body_len: its bytes; @len and @body_len multiples of 8
 *
 * As upmu_aux_put_body(), with the body read by upmu_memcpy_fromio()
 * into the area itself (in two pieces at its end): one copy of the
 * device's bytes in all.
 *
 * Return: 0, or -ENOSPC (nothing written) if it does not fit.
 */
int upmu_aux_put_fromio(struct upmu_aux_out *out, struct upmu_aux_hdr *rec,
			size_t len, struct upmu_regs *regs, u32 off,
			size_t body_len)
{
	u64 at;
	size_t first;

	if (WARN_ON_ONCE(len % 8) ||
	    !upmu_aux_put_hdr(out, rec, len, len + body_len))
		return -ENOSPC;
	at = (out->head + out->used + len) & out->mask;
	first = min_t(size_t, body_len, out->mask + 1 - at);
	upmu_memcpy_fromio(regs, off, out->base + at, first);
	if (body_len > first)
		upmu_memcpy_fromio(regs, off + first, out->base, body_len - first);
	upmu_aux_put_done(out, rec);
	return 0;
}
EXPORT_SYMBOL_GPL(upmu_aux_put_fromio);

/**
 * upmu_aux_dev_time() - the device's clock paired with the event's
 * @out: the drain's output
 * @regs: the register block
 * @off: the device clock's register: 64 bits, its value at the read
 * @time: gets the perf time (upmu_aux_time()) that goes with the result
 *
 * The device clock is read UPMU_AUX_XTIME_TRIES times, each read between
 * two reads of the perf clock; the read with the least time around it
 * wins and is paired with the middle of that time, as a PHC's users pair
 * it with the system clock (PTP_SYS_OFFSET_EXTENDED).  A read that
 * waited (an interrupt, a vCPU its host did not run, a register access
 * that had work to do) cannot shift every record's time by the wait.
 *
 * Return: the device clock.
 */
u64 upmu_aux_dev_time(struct upmu_aux_out *out, struct upmu_regs *regs,
		      u32 off, u64 *time)
{
	u64 best = U64_MAX, dev = 0, t0, t1, v;
	unsigned int i;

	upmu_regs_flush(regs);
	for (i = 0; i < UPMU_AUX_XTIME_TRIES; i++) {
		t0 = upmu_aux_time(out);
		v = upmu_rd64_nolock(regs, off);
		t1 = upmu_aux_time(out);
		if (t1 - t0 < best) {
			best = t1 - t0;
			dev = v;
			*time = t0 + best / 2;
		}
	}
	return dev;
}
EXPORT_SYMBOL_GPL(upmu_aux_dev_time);

/* Under the box's lock. */
static void upmu_aux_account(struct upmu_aux_stats *st, size_t bytes, u64 ns)
{
	st->drains++;
	if (!bytes)
		return;
	st->commits++;
	st->bytes += bytes;
	st->commit_ns += ns;
	st->max_ns = max(st->max_ns, ns);
}

static struct dentry *upmu_debugfs_root;

static int upmu_aux_stats_show(struct seq_file *m, void *v)
{
	struct upmu_pmu *upmu = m->private;
	struct upmu_aux_stats st;
	unsigned long flags;

	flags = upmu_lock(upmu->boxes[0]);
	st = upmu->aux_stats;
	upmu_unlock(upmu->boxes[0], flags);
	seq_printf(m, "drains %llu\ncommits %llu\nbytes %llu\ncommit_ns %llu\nmax_ns %llu\n",
		   st.drains, st.commits, st.bytes, st.commit_ns, st.max_ns);
	seq_printf(m, "ticks %llu\nno_area %llu\nbudget %llu\n", st.ticks,
		   st.no_area, st.budget);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(upmu_aux_stats);

static int upmu_read_stats_show(struct seq_file *m, void *v)
{
	struct upmu_read_stats *st = &((struct upmu_pmu *)m->private)->read_stats;

	seq_printf(m, "in_section %lld\nwaited %lld\ngave_up %lld\nmax_wait_ns %lld\n",
		   atomic64_read(&st->in_section), atomic64_read(&st->waited),
		   atomic64_read(&st->gave_up), atomic64_read(&st->max_wait_ns));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(upmu_read_stats);

/*
 * What one drain copies at most: it runs in hard irq with the box locked,
 * so its time must not grow with the AUX area or the device's buffer,
 * which users size.  A drain that stops here with more to copy comes
 * again after UPMU_AUX_MIN_NS, not a period later.
 */
#define UPMU_AUX_TICK_BYTES	SZ_64K

enum upmu_aux_next { UPMU_AUX_STOP, UPMU_AUX_PERIOD, UPMU_AUX_SOON };

/*
 * One AUX transaction: what the hardware has, into the free space, at
 * most UPMU_AUX_TICK_BYTES of it.  Returns when the timer comes again:
 * never once the PMU is dead, the event stopped, or the commit was
 * TRUNCATED (perf disables the event; perf record enables it again once
 * it has read the area); soon when the budget cut the drain short; else
 * a period later.  Without an AUX area (not mapped, going away, or full:
 * perf disables the event then) the event stops, as arm_spe's does: a
 * timer would only fire in vain until perf starts the event again.
 */
static enum upmu_aux_next upmu_aux_drain(struct upmu_pmu *upmu,
					 struct perf_event *event)
{
	struct upmu_box *box = upmu_event_box(upmu, event);
	struct upmu_aux_event *ae = event->pmu_private;
	struct upmu_aux_out out = { .event = event };
	enum upmu_aux_next next = UPMU_AUX_PERIOD;
	struct upmu_aux_buf *buf;
	unsigned long flags;
	bool more, cut;
	u64 t0;

	flags = upmu_lock(box);
	if (box->dead || (event->hw.state & PERF_HES_STOPPED)) {
		upmu_unlock(box, flags);
		return UPMU_AUX_STOP;
	}
	buf = perf_aux_output_begin(&ae->handle, event);
	if (!buf) {
		event->hw.state |= PERF_HES_STOPPED;
		upmu->aux_stats.no_area++;
		upmu_unlock(box, flags);
		return UPMU_AUX_STOP;
	}
	t0 = ktime_get_ns();
	out.base = buf->base;
	out.mask = buf->size - 1;
	out.head = ae->handle.head;
	out.space = min_t(size_t, ae->handle.size, UPMU_AUX_TICK_BYTES);
	cut = out.space < ae->handle.size;
	more = upmu->desc->aux->drain(upmu, event, &out);
	if (more && cut) {
		/* left for the next drain: not lost, not truncated */
		upmu->aux_stats.budget++;
		next = UPMU_AUX_SOON;
	} else if (more) {
		out.flags |= PERF_AUX_FLAG_TRUNCATED;
		next = UPMU_AUX_STOP;
	}
	if (out.flags)
		perf_aux_output_flag(&ae->handle, out.flags);
	perf_aux_output_end(&ae->handle, out.used);
	upmu_aux_account(&upmu->aux_stats, out.used, ktime_get_ns() - t0);
	upmu_unlock(box, flags);
	return next;
}

/*
 * sample_period ns, but at least twice in the time the hardware's buffer
 * takes to fill, and not below UPMU_AUX_MIN_NS.
 */
static u64 upmu_aux_period(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 period = event->hw.sample_period;
	u64 fill = upmu->desc->aux->fill_ns ?
		   upmu->desc->aux->fill_ns(upmu, event) : 0;

	if (fill)
		period = min(period, fill / 2);
	return max_t(u64, period, UPMU_AUX_MIN_NS);
}

static enum hrtimer_restart upmu_aux_tick(struct hrtimer *t)
{
	struct upmu_aux_event *ae = container_of(t, struct upmu_aux_event, timer);
	struct perf_event *event = ae->event;
	struct upmu_pmu *upmu = to_upmu(event->pmu);

	/* one event, one timer per PMU (EXCLUSIVE): the only writer */
	upmu->aux_stats.ticks++;
	switch (upmu_aux_drain(upmu, event)) {
	case UPMU_AUX_STOP:
		return HRTIMER_NORESTART;
	case UPMU_AUX_SOON:
		hrtimer_forward_now(t, ns_to_ktime(UPMU_AUX_MIN_NS));
		return HRTIMER_RESTART;
	default:
		hrtimer_forward_now(t, ns_to_ktime(ae->period));
		return HRTIMER_RESTART;
	}
}

static void upmu_aux_start(struct perf_event *event, int flags)
{
	struct upmu_aux_event *ae = event->pmu_private;
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	struct upmu_box *box = upmu_event_box(upmu, event);
	unsigned long irqflags;

	irqflags = upmu_lock(box);
	event->hw.state = 0;
	if (!ae->started && !box->dead && upmu->desc->aux->begin)
		upmu->desc->aux->begin(upmu, event);
	ae->started = true;
	ae->period = upmu_aux_period(upmu, event);
	if (!box->dead)
		hrtimer_start(&ae->timer, ns_to_ktime(ae->period),
			      HRTIMER_MODE_REL_PINNED_HARD);
	upmu_unlock(box, irqflags);
}

/*
 * On the event's CPU with interrupts off, where its timer is pinned: the
 * timer is not running, and cancelling it cannot fail.  PERF_EF_UPDATE:
 * a last drain, so that what the hardware holds now is in the area.
 */
static void upmu_aux_stop(struct perf_event *event, int flags)
{
	struct upmu_aux_event *ae = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	hrtimer_try_to_cancel(&ae->timer);
	if (flags & PERF_EF_UPDATE)
		upmu_aux_drain(to_upmu(event->pmu), event);
	hwc->state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int upmu_aux_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		upmu_aux_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

static void upmu_aux_del(struct perf_event *event, int flags)
{
	upmu_aux_stop(event, PERF_EF_UPDATE);
	perf_event_update_userpage(event);
}

/* The stream is in the AUX area: there is no count to read. */
static void upmu_aux_read(struct perf_event *event)
{
}

/*
 * Normal (writable) mappings only: overwrite mode is not implemented.
 *
 * An AUX area outlives its event's PMU on 6.15+: perf detaches the events
 * of a PMU whose device goes, and drops their hold on the family's module,
 * but the area stays mapped, and perf calls free_aux (this module's) when
 * its last user unmaps it, after every upmu module may have gone.  So each
 * area holds this module until upmu_aux_free().
 */
static void *upmu_aux_setup(struct perf_event *event, void **pages,
			    int nr_pages, bool overwrite)
{
	struct upmu_aux_buf *buf;
	struct page **pg;
	int i;

	if (!try_module_get(THIS_MODULE))
		return NULL;
	if (overwrite) {
		pr_debug("%s: overwrite (snapshot) AUX mappings are not supported\n",
			 to_upmu(event->pmu)->name);
		goto err_put;
	}
	if (nr_pages < 1 || !is_power_of_2(nr_pages))
		goto err_put;
	pg = kcalloc(nr_pages, sizeof(*pg), GFP_KERNEL);
	buf = kzalloc_obj(*buf);
	if (!pg || !buf)
		goto err;
	for (i = 0; i < nr_pages; i++)
		pg[i] = virt_to_page(pages[i]);
	buf->base = vmap(pg, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!buf->base)
		goto err;
	buf->size = (size_t)nr_pages << PAGE_SHIFT;
	kfree(pg);
	return buf;
err:
	kfree(pg);
	kfree(buf);
err_put:
	module_put(THIS_MODULE);
	return NULL;
}

static void upmu_aux_free(void *priv)
{
	struct upmu_aux_buf *buf = priv;

	vunmap(buf->base);
	kfree(buf);
	/* last, a tail call: nothing of this module runs after it */
	module_put(THIS_MODULE);
}

/*
 * event_init of an AUX stream, process context: the drain period from
 * sample_period in ns, or from a frequency as the cpu-clock event does,
 * and the per-event state.
 */
static int upmu_aux_event_init(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	struct upmu_aux_event *ae;

	if (event->attr.freq) {
		if (!event->attr.sample_freq)
			return -EINVAL;
		event->attr.sample_period = div64_u64(NSEC_PER_SEC,
						      event->attr.sample_freq) ?: 1;
		hwc->sample_period = event->attr.sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
		hwc->last_period = hwc->sample_period;
		event->attr.freq = 0;
	}
	ae = kzalloc_obj(*ae);
	if (!ae)
		return -ENOMEM;
	ae->event = event;
	upmu_hrtimer_setup(&ae->timer, upmu_aux_tick, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_HARD);
	event->pmu_private = ae;
	return 0;
}

/* ---- event_init -------------------------------------------------------- */

static int upmu_sched_one(struct upmu_pmu *upmu, struct upmu_sched *s,
			  struct perf_event *event)
{
	int idx;

	if (is_software_event(event))
		return 0;
	/* One hardware PMU per group. */
	if (event->pmu != &upmu->pmu)
		return -EINVAL;
	/* A shared counter fits any group. */
	if (upmu_shared_idx(upmu, event) >= 0)
		return 0;
	idx = upmu_get_idx(upmu, s, event);
	/* Out of counters is EINVAL; a family's own resources say more. */
	if (idx == -EAGAIN)
		return -EINVAL;
	if (idx < 0)
		return idx;
	set_bit(idx, s->used);
	return 0;
}

/*
 * Could the whole group be on the hardware at once, counters and shared
 * filter resources (upmu_sched.priv), on a box of its own?  As perf's
 * other PMUs do, a group is judged by itself, never by what other users
 * have on the hardware now: whether perf_event_open() succeeds does not
 * depend on them.  Events that need the same resource in different ways
 * (another BDF for the one comparator) are then multiplexed by perf:
 * add() finds the resource taken and perf tries again at its next
 * rotation.
 */
static int upmu_validate_group(struct upmu_box *box, struct perf_event *event)
{
	struct perf_event *sibling, *leader = event->group_leader;
	struct upmu_pmu *upmu = box->upmu;
	struct upmu_sched fake = {};
	int ret;

	if (leader != event) {
		ret = upmu_sched_one(upmu, &fake, leader);
		if (ret)
			return ret;
		for_each_sibling_event(sibling, leader) {
			ret = upmu_sched_one(upmu, &fake, sibling);
			if (ret)
				return ret;
		}
	}
	return upmu_sched_one(upmu, &fake, event);
}

/*
 * Why event_init refuses the event it is looking at: event_init keeps a
 * box locked, interrupts off, from clearing it to reading it, so the
 * running CPU's buffer is its own.
 */
struct upmu_why_buf {
	char s[UPMU_WHY_LEN];
};

static DEFINE_PER_CPU(struct upmu_why_buf, upmu_why_buf);

/**
 * upmu_why() - say why event_init refuses an event
 * @upmu: the PMU, the event's box locked (a family's validate hook)
 * @fmt: printf format of the reason
 *
 * The core prints the first reason given with pr_debug() once it has
 * dropped the lock: a console write under a box's lock, which perf takes
 * inside its context lock, could close a lock cycle through the
 * scheduler, so nothing prints under it.
 */
void upmu_why(struct upmu_pmu *upmu, const char *fmt, ...)
{
	char *why = this_cpu_ptr(&upmu_why_buf)->s;
	va_list args;

	lockdep_assert_irqs_disabled();
	if (why[0])
		return;
	va_start(args, fmt);
	vsnprintf(why, UPMU_WHY_LEN, fmt, args);
	va_end(args);
}
EXPORT_SYMBOL_GPL(upmu_why);

static int upmu_check_config(struct upmu_pmu *upmu, struct perf_event *event)
{
	const struct upmu_desc *d = upmu->desc;
	unsigned int i;
	u64 id;

	for (i = 0; i < UPMU_NR_WORDS; i++) {
		u64 v = upmu_cfg_word(&event->attr, i);

		if (v & ~upmu->valid[i]) {
			upmu_why(upmu, "config%.0u: reserved bits %#llx set",
				 i, v & ~upmu->valid[i]);
			return -EINVAL;
		}
	}
	/* No upmu PMU has fields in the later config words. */
#if UPMU_HAVE_CONFIG3
	if (event->attr.config3)
		return -EINVAL;
#endif
#if UPMU_HAVE_CONFIG4
	if (event->attr.config4)
		return -EINVAL;
#endif

	id = upmu_field(upmu, event, 0);
	if (d->ops->check_id) {
		if (d->ops->check_id(upmu, id))
			return 0;
		upmu_why(upmu, "unknown event %#llx", id);
		return -EINVAL;
	}
	for (i = 0; i < d->nr_events; i++)
		if (d->events[i].id == id)
			return 0;
	upmu_why(upmu, "unknown event %#llx", id);
	return -EINVAL;
}

/*
 * event->destroy of a family with an event_put hook, or of an AUX
 * stream: process context.
 */
static void upmu_event_destroy(struct perf_event *event)
{
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	struct upmu_aux_event *ae = event->pmu_private;

	if (upmu->desc->ops->event_put)
		upmu->desc->ops->event_put(upmu, event);
	if (ae) {
		hrtimer_cancel(&ae->timer);
		event->pmu_private = NULL;
		kfree(ae);
	}
}

static int upmu_event_init(struct perf_event *event)
{
	struct upmu_pmu *upmu = to_upmu(event->pmu);
	char why[UPMU_WHY_LEN], *cpu_why;
	struct upmu_box *box;
	unsigned long flags;
	int cpu, ret;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;

	/*
	 * Uncore counters count everything: no sampling, no tasks.  An AUX
	 * stream is a sampling event: its period is the drain's.
	 */
	if (upmu->desc->aux && !is_sampling_event(event))
		return -EINVAL;
	if (!upmu->desc->aux && is_sampling_event(event))
		return -EOPNOTSUPP;
	if (event->cpu < 0 || event->attach_state & PERF_ATTACH_TASK)
		return -EINVAL;

	/* The box of the event's CPU: its die's, or the PMU's only one. */
	box = upmu_cpu_box(upmu, event->cpu);
	if (!box)
		return -EINVAL;

	/*
	 * The family's checks may look at shared filter state, and a dead
	 * PMU's device may be gone: hold the box's lock.  What they have to
	 * say (upmu_why()) is printed after it.
	 */
	flags = upmu_lock(box);
	cpu_why = this_cpu_ptr(&upmu_why_buf)->s;
	cpu_why[0] = '\0';
	/* Pairs with the release once perf_pmu_register() has returned. */
	if (box->dead || !smp_load_acquire(&upmu->live)) {
		ret = -ENODEV;
		goto out;
	}
	ret = upmu_check_config(upmu, event);
	if (ret)
		goto out;
	if (upmu->desc->ops->validate) {
		ret = upmu->desc->ops->validate(upmu, event);
		if (ret)
			goto out;
	}
	ret = -EINVAL;
	cpu = READ_ONCE(box->cpu);
	if (cpu < 0)
		goto out;
	event->cpu = cpu;
	/* An AUX stream has no counters: perf keeps it alone (EXCLUSIVE). */
	ret = upmu->desc->aux ? 0 : upmu_validate_group(box, event);
	if (ret)
		goto out;

	/* No IPI to read it from a CPU of its package (upmu_read()). */
	if (upmu->read_pkg)
		event->event_caps |= PERF_EV_CAP_READ_ACTIVE_PKG;
	event->hw.idx = -1;
	ret = 0;
out:
	strscpy(why, cpu_why, sizeof(why));
	upmu_unlock(box, flags);
	if (why[0])
		pr_debug("%s: %s\n", upmu->name, why);
	if (ret)
		return ret;
	if (upmu->desc->aux) {
		ret = upmu_aux_event_init(event);
		if (ret)
			return ret;
	}

	/*
	 * The family's sleeping part (a firmware command), only for an
	 * event that is otherwise good; perf calls event->destroy only
	 * once event_init has succeeded.
	 */
	if (upmu->desc->ops->event_get)
		ret = upmu->desc->ops->event_get(upmu, event);
	if (ret) {
		kfree(event->pmu_private);
		event->pmu_private = NULL;
		return ret;
	}
	if (upmu->desc->ops->event_put || upmu->desc->aux)
		event->destroy = upmu_event_destroy;
	return 0;
}

/* ---- sysfs ------------------------------------------------------------- */

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct upmu_pmu *upmu = upmu_from_dev(dev);
	cpumask_t owners;
	unsigned int i;

	/*
	 * One CPU per box: perf opens an event on each.  None once the PMU
	 * is dead (removed, kept registered for its open events): nothing
	 * can count on it, and a reader tells it from one that works.
	 */
	cpumask_clear(&owners);
	for (i = 0; i < upmu->nr_boxes; i++) {
		int cpu = READ_ONCE(upmu->boxes[i]->cpu);

		if (cpu >= 0 && !READ_ONCE(upmu->boxes[i]->dead))
			cpumask_set_cpu(cpu, &owners);
	}
	return cpumap_print_to_pagebuf(true, buf, &owners);
}
static DEVICE_ATTR_RO(cpumask);

static ssize_t associated_cpus_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return cpumap_print_to_pagebuf(true, buf,
				       &upmu_from_dev(dev)->associated_cpus);
}
static DEVICE_ATTR_RO(associated_cpus);

static ssize_t identifier_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", upmu_from_dev(dev)->identifier);
}
static DEVICE_ATTR_RO(identifier);

static struct attribute *upmu_common_attrs[] = {
	&dev_attr_cpumask.attr,
	&dev_attr_associated_cpus.attr,
	&dev_attr_identifier.attr,
	NULL,
};

static const struct attribute_group upmu_common_group = {
	.attrs = upmu_common_attrs,
};

static ssize_t upmu_event_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct perf_pmu_events_attr *ea =
		container_of(attr, struct perf_pmu_events_attr, attr);
	const struct upmu_desc *d = upmu_from_dev(dev)->desc;

	/* "event=0x12", or "data_id=0x1020000100000000,port=?" */
	return sysfs_emit(buf, "%s=0x%llx%s\n", d->formats[0].name, ea->id,
			  ea->event_str ?: "");
}

/* device_show_string() is 6.8+; this works on every supported kernel. */
static ssize_t upmu_show_string(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute, attr);

	return sysfs_emit(buf, "%s\n", (const char *)ea->var);
}

static struct attribute *upmu_str_attr(struct dev_ext_attribute *ea,
				       const char *name, const char *val)
{
	sysfs_attr_init(&ea->attr.attr);
	ea->attr.attr.name = name;
	ea->attr.attr.mode = 0444;
	ea->attr.show = upmu_show_string;
	ea->var = (void *)val;
	return &ea->attr.attr;
}

/* "config2:0-31,32-63" */
#define UPMU_FMT_TEXT_LEN	24

/* Append "<name><suffix>" to the string pool at *pos. */
static const char *upmu_pool_name(char **pos, const char *name,
				  const char *suffix)
{
	char *s = *pos;

	*pos += sprintf(s, "%s%s", name, suffix) + 1;
	return s;
}

/*
 * The attributes live as long as the upmu_pmu, not its device: a PMU on
 * Linux < 6.15 can stay registered after its device is gone.
 */
static int upmu_build_groups(struct upmu_pmu *upmu)
{
	static const char * const word[] = { "config", "config1", "config2" };
	const struct upmu_desc *d = upmu->desc;
	struct attribute **fa, **ea, **ia;
	struct dev_ext_attribute *ext;
	unsigned int i, n = 0, g = 0;
	size_t pool = 0;
	char *pos;

	for (i = 0; i < d->nr_formats; i++)
		pool += UPMU_FMT_TEXT_LEN;
	for (i = 0; i < d->nr_events; i++)
		pool += 2 * (strlen(d->events[i].name) + sizeof(".scale"));

	upmu->attrs = kcalloc(d->nr_formats + 3 * d->nr_events + UPMU_MAX_INFO + 3,
			      sizeof(*upmu->attrs), GFP_KERNEL);
	upmu->ext = kcalloc(d->nr_formats + 2 * d->nr_events + UPMU_MAX_INFO,
			    sizeof(*upmu->ext), GFP_KERNEL);
	upmu->evattrs = kcalloc(d->nr_events, sizeof(*upmu->evattrs), GFP_KERNEL);
	upmu->strs = kzalloc(pool, GFP_KERNEL);
	if (!upmu->attrs || !upmu->ext || !upmu->evattrs || !upmu->strs)
		return -ENOMEM;

	fa = upmu->attrs;
	ea = fa + d->nr_formats + 1;
	ia = ea + 3 * d->nr_events + 1;
	ext = upmu->ext;
	pos = upmu->strs;

	for (i = 0; i < d->nr_formats; i++) {
		const struct upmu_format *f = &d->formats[i];
		char *s = pos;

		if (f->hi2)
			snprintf(s, UPMU_FMT_TEXT_LEN, "%s:%u-%u,%u-%u",
				 word[f->word], f->lo, f->hi, f->lo2, f->hi2);
		else if (f->lo == f->hi)
			snprintf(s, UPMU_FMT_TEXT_LEN, "%s:%u", word[f->word], f->lo);
		else
			snprintf(s, UPMU_FMT_TEXT_LEN, "%s:%u-%u", word[f->word],
				 f->lo, f->hi);
		pos += UPMU_FMT_TEXT_LEN;
		fa[i] = upmu_str_attr(ext++, f->name, s);
		upmu->valid[f->word] |= GENMASK_ULL(f->hi, f->lo);
		if (f->hi2)
			upmu->valid[f->word] |= GENMASK_ULL(f->hi2, f->lo2);
	}

	for (i = 0; i < d->nr_events; i++) {
		const struct upmu_event_desc *e = &d->events[i];
		struct perf_pmu_events_attr *pa = &upmu->evattrs[i];

		sysfs_attr_init(&pa->attr.attr);
		pa->attr.attr.name = e->name;
		pa->attr.attr.mode = 0444;
		pa->attr.show = upmu_event_show;
		pa->id = e->id;
		pa->event_str = e->params;
		ea[n++] = &pa->attr.attr;
		if (e->unit)
			ea[n++] = upmu_str_attr(ext++, upmu_pool_name(&pos, e->name, ".unit"),
						e->unit);
		if (e->scale)
			ea[n++] = upmu_str_attr(ext++, upmu_pool_name(&pos, e->name, ".scale"),
						e->scale);
	}

	for (i = 0, n = 0; i < UPMU_MAX_INFO; i++)
		if (upmu->info[i].name)
			ia[n++] = upmu_str_attr(ext++, upmu->info[i].name,
						upmu->info[i].val);

	upmu->fmt_group.name = "format";
	upmu->fmt_group.attrs = fa;
	upmu->ev_group.name = "events";
	upmu->ev_group.attrs = ea;
	upmu->groups[g++] = &upmu->ev_group;
	upmu->groups[g++] = &upmu->fmt_group;
	upmu->groups[g++] = &upmu_common_group;
	if (n) {
		upmu->info_group.attrs = ia;
		upmu->groups[g++] = &upmu->info_group;
	}
	for (i = 0; d->attr_groups && d->attr_groups[i]; i++) {
		if (g >= ARRAY_SIZE(upmu->groups) - 1)
			return -E2BIG;
		upmu->groups[g++] = d->attr_groups[i];
	}
	upmu->groups[g] = NULL;
	return 0;
}

/* ---- hotplug ----------------------------------------------------------- */

static int upmu_cpu_die(unsigned int cpu);

/*
 * The box of a CPU of a per-die PMU, found when the CPU comes online: a
 * possible CPU that has never been up has no topology yet (its die reads
 * as 0, or -1), and the one it has once up is the one that counts.  A die
 * beyond the boxes (the topology said fewer at registration) gets none.
 */
static struct upmu_box *upmu_die_box_online(struct upmu_pmu *upmu,
					    unsigned int cpu)
{
	int die = upmu_cpu_die(cpu);

	if (die < 0 || die >= upmu->nr_boxes) {
		pr_warn_once("%s: CPU %u is on die %d, beyond the %u dies seen at registration\n",
			     upmu->name, cpu, die, upmu->nr_boxes);
		return NULL;
	}
	cpumask_set_cpu(cpu, &upmu->boxes[die]->cpus);
	WRITE_ONCE(upmu->cpu_box[cpu], die);
	return upmu->boxes[die];
}

/* One owner per box: the first of its CPUs to come online. */
static int upmu_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct upmu_pmu *upmu = hlist_entry_safe(node, struct upmu_pmu, node);
	struct upmu_box *box;

	box = upmu->per_die ? upmu_die_box_online(upmu, cpu) :
			      upmu_cpu_box(upmu, cpu);
	if (box && box->cpu < 0)
		WRITE_ONCE(box->cpu, cpu);
	return 0;
}

/*
 * The owner of a box goes: its events (those of this PMU on that CPU,
 * all of them the box's) move to another online CPU of the box.
 */
static int upmu_cpu_teardown(unsigned int cpu, struct hlist_node *node)
{
	struct upmu_pmu *upmu = hlist_entry_safe(node, struct upmu_pmu, node);
	struct upmu_box *box = upmu_cpu_box(upmu, cpu);
	unsigned int dst;

	if (!box || cpu != box->cpu)
		return 0;

	for_each_cpu_and(dst, &box->cpus, cpu_online_mask)
		if (dst != cpu)
			break;
	if (dst >= nr_cpu_ids || dst == cpu) {
		/*
		 * Nobody left on this die.  As in the upstream uncore
		 * drivers the events are not moved off it: the perf core
		 * then removes them from the CPU going offline, and they
		 * stop counting for good, keeping their count.  New events
		 * are refused until a CPU of the die is back.
		 */
		WRITE_ONCE(box->cpu, -1);
		return 0;
	}
	perf_pmu_migrate_context(&upmu->pmu, cpu, dst);
	WRITE_ONCE(box->cpu, dst);
	return 0;
}

/* ---- registration ------------------------------------------------------ */

/*
 * Poll at least twice per wrap at the fastest rate the hardware can
 * count, and at least once a minute.  Only 64-bit counters need no
 * polling.  Families refuse counters so narrow that the period would
 * have to be shorter than UPMU_POLL_MIN_NS.
 */
static unsigned int upmu_min_width(const struct upmu_pmu *upmu)
{
	unsigned int i, w = upmu->width;

	for (i = 0; i < UPMU_MAX_COUNTERS; i++)
		if (upmu->widths[i])
			w = min_t(unsigned int, w, upmu->widths[i]);
	return w;
}

static ktime_t upmu_poll_period(const struct upmu_pmu *upmu)
{
	unsigned int width = upmu_min_width(upmu);
	u64 ns;

	if (width >= 64)
		return 0;
	ns = UPMU_POLL_MAX_NS;
	if (upmu->desc->max_rate_per_ns)
		ns = div64_u64(BIT_ULL(width - 1), upmu->desc->max_rate_per_ns);
	return ns_to_ktime(clamp_t(u64, ns, UPMU_POLL_MIN_NS, UPMU_POLL_MAX_NS));
}

/*
 * Are a box's CPUs exactly the online CPUs of one package?  Then the
 * perf core may read its events from any CPU of that package instead
 * of sending an IPI to the owner (PERF_EV_CAP_READ_ACTIVE_PKG): it
 * compares the package of the reader with that of the event's CPU.
 * A Tegra410 PMU's box is a socket, a socket being a NUMA node; where
 * the topology does not agree (a package spanning nodes, or nodes
 * without package ids, or dies), reads go to the owner.
 */
static bool upmu_box_one_package(const struct upmu_box *box)
{
	const struct cpumask *cpus = &box->cpus;
	unsigned int cpu, first;
	int pkg;

	first = cpumask_first_and(cpus, cpu_online_mask);
	if (first >= nr_cpu_ids)
		return false;
	pkg = topology_physical_package_id(first);
	for_each_online_cpu(cpu)
		if ((topology_physical_package_id(cpu) == pkg) !=
		    cpumask_test_cpu(cpu, cpus))
			return false;
	return true;
}

static bool upmu_one_package(const struct upmu_pmu *upmu)
{
	unsigned int i;
	bool ret = true;

	cpus_read_lock();
	for (i = 0; i < upmu->nr_boxes && ret; i++)
		ret = upmu_box_one_package(upmu->boxes[i]);
	cpus_read_unlock();
	return ret;
}

/* The logical die of a CPU: a package, or a die of a multi-die package. */
static int upmu_cpu_die(unsigned int cpu)
{
#ifdef CONFIG_X86
	return topology_logical_die_id(cpu);
#else
	return topology_physical_package_id(cpu);
#endif
}

/*
 * How many dies there can be: on x86 the packages and dies per package
 * the firmware enumerates at boot (as upstream's uncore sizes its boxes),
 * elsewhere the package ids of the possible CPUs.
 */
static unsigned int upmu_max_dies(void)
{
#ifdef CONFIG_X86
	return upmu_x86_max_dies();
#else
	unsigned int cpu, n = 0;
	int pkg;

	for_each_possible_cpu(cpu) {
		pkg = topology_physical_package_id(cpu);
		if (pkg >= 0 && pkg < nr_cpu_ids)
			n = max_t(unsigned int, n, pkg + 1);
	}
	return n ?: 1;
#endif
}

static struct upmu_box *upmu_box_alloc(struct upmu_pmu *upmu, unsigned int id)
{
	struct upmu_box *box = kzalloc(sizeof(*box), GFP_KERNEL);

	if (!box)
		return NULL;
	box->upmu = upmu;
	box->id = id;
	box->cpu = -1;
	box->bracket_cpu = -1;
	box->regs = &box->own_regs;
	box->hw.box = box;
	INIT_LIST_HEAD(&box->shared);
	raw_spin_lock_init(&box->lock);
	upmu_hrtimer_setup(&box->timer, upmu_poll, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_HARD);
	return box;
}

static void upmu_boxes_free(struct upmu_pmu *upmu)
{
	unsigned int i;

	for (i = 0; i < upmu->nr_boxes; i++)
		kfree(upmu->boxes[i]);
	kfree(upmu->boxes);
	kfree(upmu->cpu_box);
	upmu->boxes = NULL;
	upmu->cpu_box = NULL;
	upmu->nr_boxes = 0;
}

static int upmu_boxes_alloc(struct upmu_pmu *upmu, unsigned int n)
{
	unsigned int i, cpu;

	upmu->boxes = kcalloc(n, sizeof(*upmu->boxes), GFP_KERNEL);
	upmu->cpu_box = kmalloc_array(nr_cpu_ids, sizeof(*upmu->cpu_box),
				      GFP_KERNEL);
	if (!upmu->boxes || !upmu->cpu_box)
		goto err;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		upmu->cpu_box[cpu] = -1;
	for (i = 0; i < n; i++) {
		upmu->boxes[i] = upmu_box_alloc(upmu, i);
		if (!upmu->boxes[i])
			goto err;
		upmu->nr_boxes = i + 1;
	}
	return 0;
err:
	upmu->nr_boxes = n;
	upmu_boxes_free(upmu);
	return -ENOMEM;
}

/**
 * upmu_pmu_set_dies() - count on one box per die
 * @upmu: the instance, not yet registered
 *
 * Intel's uncore model: one PMU per box type and index, with a box on
 * every die (a package, or a die of a multi-die package), the box of an
 * event being that of its CPU's die.  Box i is die i's (its logical id);
 * the family fills in each box's &upmu_box.own_regs and &upmu_box.priv
 * before registering.  There is a box for every die the firmware
 * enumerates (upmu_max_dies()); a CPU joins its die's box when it comes
 * online, since a CPU that has never been up has no topology yet.  The
 * PMU's associated CPUs become all possible CPUs, its cpumask one online
 * CPU per die.
 *
 * Return: the number of boxes, or -ENOMEM.
 */
int upmu_pmu_set_dies(struct upmu_pmu *upmu)
{
	unsigned int n = upmu_max_dies();
	int ret;

	if (WARN_ON(upmu->nr_boxes))
		return -EINVAL;
	ret = upmu_boxes_alloc(upmu, n);
	if (ret)
		return ret;
	upmu->per_die = true;
	cpumask_copy(&upmu->associated_cpus, cpu_possible_mask);
	return n;
}
EXPORT_SYMBOL_GPL(upmu_pmu_set_dies);

/* A PMU of one box: its register block and CPUs are the PMU's. */
static int upmu_set_one_box(struct upmu_pmu *upmu)
{
	unsigned int cpu;
	int ret;

	ret = upmu_boxes_alloc(upmu, 1);
	if (ret)
		return ret;
	upmu->boxes[0]->regs = &upmu->regs;
	cpumask_copy(&upmu->boxes[0]->cpus, &upmu->associated_cpus);
	for_each_cpu(cpu, &upmu->associated_cpus)
		upmu->cpu_box[cpu] = 0;
	return 0;
}

/**
 * upmu_pmu_alloc() - allocate a PMU instance for a family to fill in
 * @dev: the device that provides the registers
 *
 * Return: the instance, or NULL.  Free it with upmu_pmu_free() until
 * upmu_pmu_register() succeeds; from then on the core owns it.
 */
struct upmu_pmu *upmu_pmu_alloc(struct device *dev)
{
	struct upmu_pmu *upmu = kzalloc(sizeof(*upmu), GFP_KERNEL);

	if (upmu)
		upmu->dev = dev;
	return upmu;
}
EXPORT_SYMBOL_GPL(upmu_pmu_alloc);

/**
 * upmu_pmu_free() - free an instance that is not (or no longer) registered
 * @upmu: the instance, or NULL
 */
void upmu_pmu_free(struct upmu_pmu *upmu)
{
	if (!upmu)
		return;
	upmu_boxes_free(upmu);
	kfree(upmu->attrs);
	kfree(upmu->ext);
	kfree(upmu->evattrs);
	kfree(upmu->strs);
	kfree(upmu);
}
EXPORT_SYMBOL_GPL(upmu_pmu_free);

/**
 * upmu_set_info() - add a read-only sysfs file to a PMU instance
 * @upmu: the instance, not yet registered
 * @name: file name (a static string)
 * @fmt: printf format of the contents
 *
 * Return: 0, or -ENOSPC when all UPMU_MAX_INFO files are taken.
 */
int upmu_set_info(struct upmu_pmu *upmu, const char *name, const char *fmt, ...)
{
	unsigned int i;
	va_list args;

	for (i = 0; i < UPMU_MAX_INFO; i++) {
		if (upmu->info[i].name)
			continue;
		upmu->info[i].name = name;
		va_start(args, fmt);
		vsnprintf(upmu->info[i].val, UPMU_INFO_LEN, fmt, args);
		va_end(args);
		return 0;
	}
	return -ENOSPC;
}
EXPORT_SYMBOL_GPL(upmu_set_info);

/*
 * Linux < 6.15 cannot detach events from a PMU: perf_pmu_unregister()
 * frees the contexts that open events still use.  There, a PMU whose
 * device goes away while events are open stays registered, dead (its
 * callbacks no longer touch the registers, new events get -ENODEV),
 * until no event of its module is left: every event holds a reference
 * on pmu->module, and dropping it is the last thing perf does with the
 * event's PMU.  Such PMUs are reaped when the next PMU registers, by a
 * periodic work, and at the latest when their module goes.
 */
static void upmu_reap_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(upmu_reaper, upmu_reap_workfn);

static bool upmu_reapable(const struct upmu_pmu *upmu, const struct module *going)
{
	struct module *mod = upmu->pmu.module;

	return upmu->boxes[0]->dead && mod &&
	       (mod == going || module_refcount(mod) <= 0);
}

/* Reap what can be reaped; return true while dead PMUs remain. */
/*
 * Before 6.15 perf_pmu_unregister() waits for the event_init calls of
 * those who found the PMU on perf's list, but takes it out of perf's
 * table of types only after that: an event_init of someone who looked
 * its type up just before can still be running when it returns (seen
 * in stress_test on 6.1).  So a reaped PMU waits here, unregistered, for
 * a reaper period before it is freed.
 */
static LIST_HEAD(upmu_graveyard);

static bool upmu_bury_locked(bool all)
{
	struct upmu_pmu *upmu, *tmp;

	lockdep_assert_held(&upmu_list_lock);
	list_for_each_entry_safe(upmu, tmp, &upmu_graveyard, list) {
		if (!all && time_before(jiffies, upmu->buried + HZ / 4))
			continue;
		list_del(&upmu->list);
		upmu_pmu_free(upmu);
	}
	return !list_empty(&upmu_graveyard);
}

static bool upmu_reap_locked(const struct module *going)
{
	struct upmu_pmu *upmu, *tmp;
	bool left;

	lockdep_assert_held(&upmu_list_lock);
	left = upmu_bury_locked(false);
	list_for_each_entry_safe(upmu, tmp, &upmu_list, list) {
		if (!upmu_reapable(upmu, going)) {
			left |= upmu->boxes[0]->dead;
			continue;
		}
		/* Still on the list: the name stays taken until it is gone. */
		if (upmu_perf_pmu_unregister(&upmu->pmu)) {
			left = true;	/* perf keeps it: try again later */
			continue;
		}
		pr_debug("upmu: %s: released\n", upmu->name);
		upmu->buried = jiffies;
		list_move(&upmu->list, &upmu_graveyard);
		left = true;
	}
	return left;
}

static void upmu_reap(const struct module *going)
{
	bool left;

	mutex_lock(&upmu_list_lock);
	left = upmu_reap_locked(going);
	mutex_unlock(&upmu_list_lock);
	if (left)
		schedule_delayed_work(&upmu_reaper, HZ / 2);
}

static void upmu_reap_workfn(struct work_struct *work)
{
	upmu_reap(NULL);
}

static int upmu_module_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	/* Nothing of a going module may stay registered. */
	if (action == MODULE_STATE_GOING)
		upmu_reap(data);
	return NOTIFY_OK;
}

static struct notifier_block upmu_module_nb = {
	.notifier_call = upmu_module_notify,
};

static struct upmu_pmu *upmu_find_locked(const char *name)
{
	struct upmu_pmu *upmu;

	lockdep_assert_held(&upmu_list_lock);
	list_for_each_entry(upmu, &upmu_list, list)
		if (!strcmp(upmu->name, name))
			return upmu;
	return NULL;
}

/*
 * Is @upmu dead?  If not, copy the name of its device to @buf.  The
 * list lock keeps @upmu allocated; its first box's lock keeps
 * upmu_pmu_unregister() from returning, and so the device from going,
 * while we look at it.
 */
static bool upmu_owner_locked(struct upmu_pmu *upmu, char *buf, size_t len)
{
	unsigned long flags;
	bool dead;

	lockdep_assert_held(&upmu_list_lock);
	raw_spin_lock_irqsave(&upmu->boxes[0]->lock, flags);
	dead = upmu->boxes[0]->dead;
	if (!dead)
		strscpy(buf, dev_name(upmu->dev), len);
	raw_spin_unlock_irqrestore(&upmu->boxes[0]->lock, flags);
	return dead;
}

/**
 * __upmu_pmu_register() - register a PMU instance with perf
 * @upmu: from upmu_pmu_alloc(), filled in by the family: desc, regs, name,
 *	  identifier, associated_cpus, num_counters, width
 * @owner: module that owns the callbacks (events pin it)
 *
 * Return: 0 or -errno.  On error the caller still owns @upmu.
 */
int __upmu_pmu_register(struct upmu_pmu *upmu, struct module *owner)
{
	unsigned int width = upmu_min_width(upmu), i, cpu;
	struct upmu_pmu *other;
	bool owned = false;
	int ret;

	if (WARN_ON(!width || upmu->width > 64 ||
		    upmu->num_counters > UPMU_MAX_COUNTERS))
		return -EINVAL;
	for (i = 0; i < UPMU_MAX_COUNTERS; i++)
		if (WARN_ON(upmu->widths[i] > 64))
			return -EINVAL;
	if (width < 64 && upmu->desc->max_rate_per_ns &&
	    div64_u64(BIT_ULL(width - 1), upmu->desc->max_rate_per_ns) <
	    UPMU_POLL_MIN_NS) {
		dev_err(upmu->dev, "%s: %u-bit counters wrap too fast to poll\n",
			upmu->name, width);
		return -EINVAL;
	}

	if (!upmu->nr_boxes) {
		ret = upmu_set_one_box(upmu);
		if (ret)
			return ret;
	}
	ret = upmu_build_groups(upmu);
	if (ret)
		return ret;

	upmu->poll = upmu_poll_period(upmu);

	upmu->pmu = (struct pmu) {
		.module		= owner,
#if UPMU_HAVE_PMU_PARENT && UPMU_PMU_REVOKES
		/*
		 * Only where the PMU cannot outlive its parent, and unless
		 * the family wants it where upstream's x86 uncore PMUs are.
		 */
		.parent		= upmu->top_level ? NULL : upmu->dev,
#endif
		.task_ctx_nr	= perf_invalid_context,
		.capabilities	= PERF_PMU_CAP_NO_EXCLUDE |
				  PERF_PMU_CAP_NO_INTERRUPT,
		.attr_groups	= upmu->groups,
		.event_init	= upmu_event_init,
		.pmu_enable	= upmu_pmu_enable,
		.pmu_disable	= upmu_pmu_disable,
		.add		= upmu_add,
		.del		= upmu_del,
		.start		= upmu_start,
		.stop		= upmu_stop,
		.read		= upmu_read,
	};
	if (upmu->desc->aux) {
		/* A sampling PMU of one event at a time, with no counters. */
		upmu->pmu.capabilities = PERF_PMU_CAP_NO_EXCLUDE |
					 PERF_PMU_CAP_EXCLUSIVE;
		upmu->pmu.pmu_enable = NULL;
		upmu->pmu.pmu_disable = NULL;
		upmu->pmu.add = upmu_aux_add;
		upmu->pmu.del = upmu_aux_del;
		upmu->pmu.start = upmu_aux_start;
		upmu->pmu.stop = upmu_aux_stop;
		upmu->pmu.read = upmu_aux_read;
		upmu->pmu.setup_aux = upmu_aux_setup;
		upmu->pmu.free_aux = upmu_aux_free;
	}

	mutex_lock(&upmu_list_lock);
	if (upmu_reap_locked(NULL))
		schedule_delayed_work(&upmu_reaper, HZ / 2);
	other = upmu_find_locked(upmu->name);
	if (other) {
		char from[64];
		bool dead;

		/* @other can be freed as soon as the list lock is dropped. */
		dead = upmu_owner_locked(other, from, sizeof(from));
		mutex_unlock(&upmu_list_lock);
		if (dead)
			dev_err(upmu->dev, "PMU %s is still held by open events of a removed device\n",
				upmu->name);
		else
			dev_err(upmu->dev, "PMU %s already exists (from %s)\n",
				upmu->name, from);
		return -EEXIST;
	}
	list_add_tail(&upmu->list, &upmu_list);
	mutex_unlock(&upmu_list_lock);

	/*
	 * The boxes' owners are picked here, as the online callback would
	 * pick them, not by running it on every online CPU: that wakes
	 * each CPU's hotplug thread and waits for it, most of the time a
	 * 41-PMU device took to appear on the debug kernel.  The instance
	 * is added first, so that a CPU that comes or goes afterwards runs
	 * the callbacks; none does during the loop (cpus_read_lock()).
	 */
	ret = cpuhp_state_add_instance_nocalls(upmu_hp_state, &upmu->node);
	if (ret)
		goto err_list;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		upmu_cpu_online(cpu, &upmu->node);
	cpus_read_unlock();
	for (i = 0; i < upmu->nr_boxes; i++)
		owned |= upmu->boxes[i]->cpu >= 0;
	if (!owned) {
		dev_err(upmu->dev, "%s: no online CPU among %*pbl\n", upmu->name,
			cpumask_pr_args(&upmu->associated_cpus));
		ret = -ENODEV;
		goto err_hp;
	}

	upmu->read_pkg = upmu_one_package(upmu);
	ret = perf_pmu_register(&upmu->pmu, upmu->name, -1);
	if (ret)
		goto err_hp;
	/*
	 * Before 6.15 the PMU is found by its type before perf has
	 * allocated its contexts: an event that event_init let through
	 * then would be installed in a NULL context.  Only now is it safe.
	 */
	/* Pairs with the acquire in upmu_event_init(). */
	smp_store_release(&upmu->live, true);
	upmu->debugfs = debugfs_create_dir(upmu->name, upmu_debugfs_root);
	debugfs_create_file("read_stats", 0400, upmu->debugfs, upmu,
			    &upmu_read_stats_fops);
	if (upmu->desc->aux)
		debugfs_create_file("aux_stats", 0400, upmu->debugfs, upmu,
				    &upmu_aux_stats_fops);

	dev_dbg(upmu->dev, "%s: %u box(es), %u counters, %u bits, poll %lld ns, read from %s\n",
		upmu->name, upmu->nr_boxes, upmu->num_counters, upmu->width,
		ktime_to_ns(upmu->poll), upmu->read_pkg ? "its package" : "its CPU");
	return 0;

err_hp:
	cpuhp_state_remove_instance_nocalls(upmu_hp_state, &upmu->node);
err_list:
	mutex_lock(&upmu_list_lock);
	list_del(&upmu->list);
	mutex_unlock(&upmu_list_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(__upmu_pmu_register);

/**
 * upmu_pmu_unregister() - remove a PMU instance whose device is going
 * @upmu: the PMU; the core frees it
 *
 * When this returns the registers are no longer used.  On Linux 6.15+
 * the perf core detaches open events (they keep their last count and
 * report POLLERR).  On older kernels a PMU with open events stays
 * registered but dead until they are closed, see upmu_reap_locked().
 */
void upmu_pmu_unregister(struct upmu_pmu *upmu)
{
	unsigned long flags;
	bool revoked = false;
	unsigned int i;
	int ret;

	/* waits for its readers */
	debugfs_remove_recursive(upmu->debugfs);
	upmu->debugfs = NULL;
	if (UPMU_PMU_REVOKES) {
		/*
		 * perf detaches the events, unless it cannot (-EBUSY): then
		 * the PMU stays registered, dead, as before 6.15.
		 */
		ret = upmu_perf_pmu_unregister(&upmu->pmu);
		revoked = !ret;
		if (ret)
			dev_warn(upmu->dev, "%s: perf keeps the PMU (%d): kept until its events are closed\n",
				 upmu->name, ret);
	}

	/*
	 * Events still on the hardware (< 6.15) keep what was counted up to
	 * now; the registers are not read again.
	 */
	for (i = 0; i < upmu->nr_boxes; i++) {
		struct upmu_box *box = upmu->boxes[i];

		flags = upmu_lock(box);
		upmu_regs_flush(box->regs);
		upmu_update_all(box);
		box->dead = true;
		upmu_unlock(box, flags);
		/* The poll handler sees @dead and does not rearm. */
		hrtimer_cancel(&box->timer);
	}
	cpuhp_state_remove_instance_nocalls(upmu_hp_state, &upmu->node);

	mutex_lock(&upmu_list_lock);
	if (revoked) {
		list_del(&upmu->list);
		upmu_pmu_free(upmu);
	} else if (!upmu_reapable(upmu, NULL)) {
		dev_info(upmu->dev, "%s: kept until the open events of %s are closed\n",
			 upmu->name, module_name(upmu->pmu.module));
		schedule_delayed_work(&upmu_reaper, HZ / 2);
	} else if (upmu_reap_locked(NULL)) {
		schedule_delayed_work(&upmu_reaper, HZ / 2);
	}
	mutex_unlock(&upmu_list_lock);
}
EXPORT_SYMBOL_GPL(upmu_pmu_unregister);

static int __init upmu_core_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "perf/upmu:online",
				      upmu_cpu_online, upmu_cpu_teardown);
	if (ret < 0)
		return ret;
	upmu_hp_state = ret;
	ret = register_module_notifier(&upmu_module_nb);
	if (ret) {
		cpuhp_remove_multi_state(upmu_hp_state);
		return ret;
	}
	upmu_debugfs_root = debugfs_create_dir("upmu", NULL);
	return 0;
}

static void __exit upmu_core_exit(void)
{
	unregister_module_notifier(&upmu_module_nb);
	cancel_delayed_work_sync(&upmu_reaper);
	mutex_lock(&upmu_list_lock);
	upmu_bury_locked(true);
	mutex_unlock(&upmu_list_lock);
	cpuhp_remove_multi_state(upmu_hp_state);
	debugfs_remove_recursive(upmu_debugfs_root);
}

module_init(upmu_core_init);
module_exit(upmu_core_exit);

MODULE_DESCRIPTION("upmu: core for uncore PMU drivers");
MODULE_LICENSE("GPL");
