// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated time, the fabric clock, bounds on traffic, and delivery of
 * traffic to the simulated PMUs.  Called with sd->lock held.
 */

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "hw/t410_cspmu.h"
#include "sim.h"

/*
 * sim_now()'s end of time: SIM_MAX_NS, where sim time stands still; said
 * once.
 */
u64 sim_now_ended(struct sim_dev *sd)
{
	if (!sd->ended) {
		sd->ended = true;
		/*
		 * Not here: sd->lock is held, which the PMU driver takes
		 * inside the perf core's context lock, and a console write
		 * under it would close a lock cycle through the scheduler.
		 */
		irq_work_queue(&sd->ended_work);
	}
	return SIM_MAX_NS;
}

/* Says that sim time has ended (irq_work, queued by sim_now()). */
void sim_ended_report(struct irq_work *work)
{
	struct sim_dev *sd = container_of(work, struct sim_dev, ended_work);

	dev_warn(&sd->dev, "sim time has reached its end, %llu ns\n",
		 SIM_MAX_NS);
}

/*
 * @a * @b / @c (floor) for a constant @c: a 64-bit division, which the
 * compiler turns into a multiplication, while the product fits in 64
 * bits (for all but the longest sim times), else the 128-bit one.  The
 * reads of a block's counters compute this per flow at each catch-up,
 * and a 128-bit division is slow where it is emulated.
 */
static __always_inline u64 sim_muldiv_const(u64 a, u64 b, u64 c)
{
	u64 p;

	if (!check_mul_overflow(a, b, &p))
		return p / c;
	return mul_u64_u64_div_u64(a, b, c);
}

/* Fabric cycles elapsed from sim time 0 to @ns (exact, floor). */
u64 sim_cycles_at(struct sim_dev *sd, u64 ns)
{
	return sim_muldiv_const(ns, sd->clock_mhz, 1000);
}

/* SIM_MAX_PER_NS is the fastest counter of any PMU, for all of sim time. */
static_assert(UCF_MAX_BYTES_PER_NS <= SIM_MAX_PER_NS);
static_assert(T410_PCIE_MAX_PER_NS <= SIM_MAX_PER_NS);
static_assert(T410_PCIE_TGT_MAX_PER_NS <= SIM_MAX_PER_NS);
static_assert(CMEM_MAX_PER_NS <= SIM_MAX_PER_NS);
static_assert(C2C_MAX_PER_NS <= SIM_MAX_PER_NS);
static_assert(T410_MAX_CLOCK_MHZ / 1000 <= SIM_MAX_PER_NS);
/* half of 64 bits, 2^63, at most */
static_assert(SIM_MAX_NS * SIM_MAX_PER_NS - 1 <= S64_MAX);

/*
 * The classes of counters a transaction reaches, each with what one
 * transaction adds to its fastest counter and how fast the PMU's
 * datasheet says such a counter can go.
 */
static unsigned int sim_txn_reach(struct sim_dev *sd, const struct sim_txn *t,
				  struct sim_reach *r)
{
	unsigned int i, n = 0;

	for (i = 0; i < sim_nr_block_types; i++)
		if (sim_block_types[i]->reach &&
		    sim_kind_has_type(sd, sim_block_types[i]))
			n += sim_block_types[i]->reach(sd, t, r + n);
	return n;
}

/* What @count transactions add to one counter of @r at most; false on overflow. */
static bool sim_reach_inc(const struct sim_reach *r, u64 count, u64 *inc)
{
	u64 units;
	u32 rem;

	if (check_mul_overflow(count, r->units, &units))
		return false;
	/* The first counters of a round-robin get one unit more. */
	units = div_u64_rem(units, r->div, &rem) + !!rem;
	return !check_mul_overflow(units, r->value, inc);
}

/**
 * sim_txn_check() - may @t be injected at once?
 * @sd: the simulated SoC
 * @t: the batch
 *
 * Hardware polled by its driver never sees a counter advance by more than
 * half its range between two reads, so neither may one batch.
 *
 * Return: 0, or -ERANGE if @t would advance a counter by more than half
 * its range, or by more than 64 bits hold.
 */
int sim_txn_check(struct sim_dev *sd, const struct sim_txn *t)
{
	struct sim_reach r[SIM_MAX_REACH];
	unsigned int i, n = sim_txn_reach(sd, t, r);
	u64 inc;

	for (i = 0; i < n; i++) {
		if (r[i].flow_only)
			continue;
		if (!sim_reach_inc(&r[i], t->count, &inc) ||
		    inc > BIT_ULL(r[i].width - 1))
			return -ERANGE;
	}
	return 0;
}

/**
 * sim_flow_load() - add a flow to the loads of the blocks it reaches
 * @sd: the simulated SoC
 * @f: the flow, with its rate
 * @add: add it (checked), or take it away again
 *
 * A flow may start only if no counter it reaches would then advance
 * faster than its PMU's datasheet allows (the driver's poll period is
 * built on that figure), and no root complex would have more reads in
 * flight than it can.  Called with sd->lock held.
 *
 * Return: 0, or -ERANGE (nothing added).
 */
int sim_flow_load(struct sim_dev *sd, const struct sim_flow *f, bool add)
{
	struct sim_reach r[SIM_MAX_REACH];
	u64 amount[SIM_MAX_REACH], sum, max;
	unsigned int i, n;

	lockdep_assert_held(&sd->lock);
	if (f->stopped || !f->rate)
		return 0;
	n = sim_txn_reach(sd, &f->txn, r);
	for (i = 0; i < n; i++) {
		max = (u64)r[i].max_per_ns * NSEC_PER_SEC * r[i].div;
		if (check_mul_overflow(f->rate, r[i].units, &amount[i]) ||
		    check_mul_overflow(amount[i], r[i].value, &amount[i]))
			return -ERANGE;
		if (add && (check_add_overflow(*r[i].load, amount[i], &sum) ||
			    sum > max))
			return -ERANGE;
	}
	for (i = 0; i < n; i++) {
		if (add)
			*r[i].load += amount[i];
		else
			*r[i].load -= amount[i];
	}
	return 0;
}

/* The fastest any CoreSight counter (sd->width bits) advances, per s. */
static u64 sim_narrow_rate(struct sim_dev *sd)
{
	u64 rate = (u64)sd->clock_mhz * 1000000;	/* cycles */
	unsigned int s, rc;

	for (s = 0; s < sd->nr_sockets; s++) {
		rate = max(rate, sd->ucf[s].load[SIM_LOAD_BYTES]);
		for (rc = 0; rc < sd->nr_rcs; rc++) {
			rate = max3(rate, sd->pcie[s][rc].load[SIM_LOAD_BYTES],
				    sd->pcie[s][rc].load[SIM_LOAD_CUM]);
			rate = max(rate, sd->tgt[s][rc].load[SIM_LOAD_BYTES]);
		}
	}
	return rate;
}

/**
 * sim_advance_check() - may the manual clock jump by @ns at once?
 * @sd: the simulated SoC
 * @ns: the step
 *
 * A jump is seen by the driver like the time between two of its polls:
 * no counter may advance by more than half its range in it.  Called with
 * sd->lock held.  Sim time ends at SIM_MAX_NS.
 *
 * Return: 0 or -ERANGE.
 */
int sim_advance_check(struct sim_dev *sd, u64 ns)
{
	unsigned int i;

	lockdep_assert_held(&sd->lock);
	if (ns > SIM_MAX_NS - sd->vnow)
		return -ERANGE;
	for (i = 0; i < sim_nr_block_types; i++) {
		const struct sim_block_type *type = sim_block_types[i];

		if (type->advance_check && sim_has_type(sd, type) &&
		    type->advance_check(sd, ns))
			return -ERANGE;
	}
	if (sd->width < 64 &&
	    mul_u64_u64_div_u64(ns, sim_narrow_rate(sd), NSEC_PER_SEC) >
	    BIT_ULL(sd->width - 1))
		return -ERANGE;
	return 0;
}

/* Transactions flow @f has delivered by sim time @t. */
u64 sim_flow_due(const struct sim_flow *f, u64 t)
{
	if (f->stopped && t > f->stop_ns)
		t = f->stop_ns;
	if (t <= f->start_ns)
		return 0;
	return sim_muldiv_const(t - f->start_ns, f->rate, NSEC_PER_SEC);
}

/**
 * sim_txn_units() - the register blocks a transaction can reach
 * @sd: the simulated SoC
 * @t: the transaction
 * @u: SIM_MAX_UNITS entries, filled with the blocks the device has
 *
 * Return: their number.
 */
unsigned int sim_txn_units(struct sim_dev *sd, const struct sim_txn *t,
			   struct sim_unit **u)
{
	unsigned int i, n = 0;

	for (i = 0; i < sim_nr_block_types; i++)
		if (sim_block_types[i]->units)
			n += sim_block_types[i]->units(sd, t, u + n);
	return n;
}

/**
 * sim_unit_init() - set up a register block of a new SoC
 * @sd: the simulated SoC
 * @unit: the block
 * @tick: its clock-driven counters' advance (&sim_unit.tick)
 * @deliver: its counting of a batch (&sim_unit.deliver)
 *
 * It starts at the current sim time, reached by no flow.
 */
void sim_unit_init(struct sim_dev *sd, struct sim_unit *unit,
		   void (*tick)(struct sim_unit *unit, u64 now),
		   void (*deliver)(struct sim_unit *unit,
				   const struct sim_txn *t))
{
	unit->last_ns = sim_now(sd);
	unit->tick = tick;
	unit->deliver = deliver;
	INIT_LIST_HEAD(&unit->flows);
}

/**
 * sim_flow_link() - put a flow into the lists of the blocks it reaches
 * @sd: the simulated SoC
 * @f: the flow, its &sim_flow.units set
 * @add: put it in (at the end: blocks see their flows in the order they
 *	 were added), or take it out
 *
 * Called with sd->lock held.
 */
void sim_flow_link(struct sim_dev *sd, struct sim_flow *f, bool add)
{
	unsigned int i;

	lockdep_assert_held(&sd->lock);
	for (i = 0; i < f->nr_units; i++) {
		if (!add) {
			list_del(&f->links[i].node);
			continue;
		}
		f->links[i].flow = f;
		f->links[i].due = 0;
		list_add_tail(&f->links[i].node, &f->units[i]->flows);
	}
}

/**
 * sim_flow_plans() - the room each block a new flow reaches keeps for it
 * @f: the flow, its &sim_flow.units set, not linked yet
 *
 * Return: 0, or -ENOMEM (nothing is then kept; sim_flow_free() frees @f).
 */
int sim_flow_plans(struct sim_flow *f)
{
	unsigned int i;

	for (i = 0; i < f->nr_units; i++) {
		if (!f->units[i]->plan_size)
			continue;
		f->links[i].plan = kzalloc(f->units[i]->plan_size, GFP_KERNEL);
		if (!f->links[i].plan)
			return -ENOMEM;
	}
	return 0;
}

/* Free a flow that is in no list and what its blocks kept for it. */
void sim_flow_free(struct sim_flow *f)
{
	unsigned int i;

	if (!f)
		return;
	for (i = 0; i < f->nr_units; i++)
		kfree(f->links[i].plan);
	kfree(f);
}

/**
 * sim_unit_catch_up() - bring one register block up to sim time @now
 * @sd: the simulated SoC
 * @unit: the block
 * @now: current sim time
 *
 * The block counts what each flow that reaches it delivered since it
 * was last brought up to date (the flow's total now, less what the
 * block had counted of it), then its clock-driven counters advance.
 * Its registers have not changed meanwhile (every access brings it up
 * to date first), so the counts are those of a block that had seen
 * every transaction at its own time.  Called with sd->lock held.
 */
void sim_unit_catch_up(struct sim_dev *sd, struct sim_unit *unit, u64 now)
{
	struct sim_flow_link *l;

	lockdep_assert_held(&sd->lock);
	if (now <= unit->last_ns)
		return;
	sd->catch_ups++;
	list_for_each_entry(l, &unit->flows, node) {
		struct sim_flow *f = l->flow;
		u64 due = sim_flow_due(f, now);
		struct sim_txn t;

		t = f->txn;
		t.plan = l->plan;
		t.count = due - l->due;
		l->due = due;
		if (t.count)
			unit->deliver(unit, &t);
	}
	if (unit->tick)
		unit->tick(unit, now);
	unit->last_ns = now;
}

/* Bring every register block of the device up to sim time @now. */
void sim_catch_up(struct sim_dev *sd, u64 now)
{
	unsigned int i;

	for (i = 0; i < sim_nr_block_types; i++)
		if (sim_block_types[i]->catch_up)
			sim_block_types[i]->catch_up(sd, now);
}

/**
 * sim_inject() - count a batch of transactions now
 * @sd: the simulated SoC
 * @t: the batch (checked); its lat_cycles is set here
 *
 * Only the blocks it reaches are brought up to date first.  Called with
 * sd->lock held.
 */
void sim_inject(struct sim_dev *sd, struct sim_txn *t)
{
	struct sim_unit *u[SIM_MAX_UNITS];
	unsigned int i, n;
	u64 now = sim_now(sd);

	t->lat_cycles = sim_cycles_at(sd, t->lat_ns);
	n = sim_txn_units(sd, t, u);
	for (i = 0; i < n; i++) {
		sim_unit_catch_up(sd, u[i], now);
		u[i]->deliver(u[i], t);
	}
}
