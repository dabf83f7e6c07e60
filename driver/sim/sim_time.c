// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated time, the fabric clock, and delivery of traffic to the
 * simulated PMUs.  Called with sd->lock held.
 */

#include <linux/math64.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "hw/t410_cspmu.h"
#include "sim.h"

/* Current sim time in ns (monotonic; frozen in manual mode). */
u64 sim_now(struct sim_dev *sd)
{
	if (sd->manual)
		return sd->vnow;
	return sd->vnow + (ktime_get_ns() - sd->rt_anchor);
}

/* Fabric cycles elapsed from sim time 0 to @ns (exact, floor). */
u64 sim_cycles_at(struct sim_dev *sd, u64 ns)
{
	return mul_u64_u32_div(ns, sd->clock_mhz, 1000);
}

u64 sim_max_bytes_per_ns(struct sim_dev *sd)
{
	return UCF_MAX_BYTES_PER_NS;
}

void sim_deliver(struct sim_dev *sd, const struct sim_txn *txn)
{
	struct sim_txn t = *txn;

	if (t.socket >= sd->nr_sockets)
		return;
	t.lat_cycles = sim_cycles_at(sd, t.lat_ns);
	sim_cspmu_deliver(&sd->ucf[t.socket], &t);
	sim_cmem_deliver(&sd->cmem[t.socket], &t);
	sim_pcie_deliver(sd, &t);
	sim_c2c_deliver(sd, &t);
}

/*
 * Bring every counter up to sim time @now: first the clock-driven
 * counters, then the transactions each flow has produced by @now.
 */
void sim_catch_up(struct sim_dev *sd, u64 now)
{
	struct sim_flow *f;
	unsigned int s;

	lockdep_assert_held(&sd->lock);

	for (s = 0; s < sd->nr_sockets; s++) {
		sim_cspmu_tick(&sd->ucf[s], now);
		sim_cmem_tick(&sd->cmem[s], now);
	}
	sim_pcie_tick(sd, now);
	sim_c2c_tick(sd, now);

	list_for_each_entry(f, &sd->flows, list) {
		struct sim_txn t = f->txn;
		u64 due;

		if (!f->rate || now <= f->start_ns)
			continue;
		due = mul_u64_u64_div_u64(now - f->start_ns, f->rate, NSEC_PER_SEC);
		if (due <= f->done)
			continue;
		t.count = due - f->done;
		f->done = due;
		sim_deliver(sd, &t);
	}
}
