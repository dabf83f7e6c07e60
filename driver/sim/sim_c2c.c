// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated Tegra410 chip-to-chip link PMUs (hw/t410_c2c.h) and their
 * traffic model.  Every socket has an NVLink-C2C link to its GPUs (or,
 * with c2c=soc, to another SoC), an NV-CLink link to the other sockets
 * and an NV-DLink link to CXL memory.  A transaction injected on socket
 * S is seen by the links of socket S only:
 *
 *   NVLink-C2C with GPUs: reads and writes of GPU memory (dst=loc_gmem)
 *	that miss the SLC go out to GPU gpu=; reads and writes by GPU gpu=
 *	(a local non-CPU source that is not a PCIe device) to any other
 *	destination come in.
 *   Socket to socket (NV-CLink, or NVLink-C2C with c2c=soc): reads of
 *	remote memory (dst=rem) that miss the SLC go out, reads by a
 *	remote initiator (src=rem) come in; writes are not counted.
 *   NV-DLink: reads of CXL memory (dst=loc_other) that miss the SLC.
 *
 * One transaction is one request; its outstanding counter adds its
 * latency in fabric cycles.  The requests of a batch are spread
 * round-robin over the instances of their peer, continuing where the
 * previous batch stopped.  A counter counts only while its instance is
 * enabled (CTRL); cycle counters advance once per fabric cycle then.
 */

#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>

#include "sim.h"

/*
 * Fault injection for the driver's 64-bit reads in two halves: each of
 * the next c2c_carry reads of the high half of an enabled link counter
 * (of any device) is followed by 2^32 + 1 counts on that counter, so its
 * high half changes before the next read.  A driver that gives up
 * re-reading returns a torn value.
 */
static unsigned int c2c_carry;
module_param(c2c_carry, uint, 0600);
MODULE_PARM_DESC(c2c_carry, "high-half reads of a link counter followed by a carry");

static void link_add(struct sim_link *l, unsigned int i, unsigned int ev,
		     u64 delta)
{
	u64 *cnt = &l->cnt[i][ev];

	if (*cnt + delta < *cnt) {
		if (c2c_ev_is_out(ev))
			l->out_status[i] |= BIT(ev - C2C_EV_OUT_RD_CUM_OUTS);
		else
			l->in_status[i] |= BIT(ev);
	}
	*cnt += delta;
}

static bool link_counting(const struct sim_link *l, unsigned int i)
{
	return l->ctrl[i] & C2C_CTRL_ENABLE;
}

/* The @pos-th (from 0) instance of @mask. */
static unsigned int nth_inst(u32 mask, unsigned int pos)
{
	while (pos--)
		mask &= mask - 1;
	return __ffs(mask);
}

/* @t->count requests of @peer on the counters @req and @cum. */
static void link_reqs(struct sim_link *l, unsigned int peer, unsigned int req,
		      unsigned int cum, const struct sim_txn *t)
{
	unsigned int k, rem, nr;
	u64 each;
	u32 mask;

	if (peer >= l->nr_peers)
		return;
	mask = l->peer_insts[peer];
	nr = hweight32(mask);
	each = div_u64_rem(t->count, nr, &rem);
	for (k = 0; k < nr; k++) {
		/* The first @rem instances from the round-robin position get one more. */
		unsigned int i = nth_inst(mask, (l->next[peer] + k) % nr);
		u64 n = each + (k < rem);

		if (!n || !link_counting(l, i))
			continue;
		link_add(l, i, req, n);
		link_add(l, i, cum, n * t->lat_cycles);
	}
	l->next[peer] = (l->next[peer] + rem) % nr;
}

/**
 * sim_txn_gpu() - does a GPU take part in the transaction?
 * @t: the transaction
 *
 * Return: true if it reads or writes GPU memory, or if its initiator is
 * a GPU: a local non-CPU source that is not a PCIe device.  @t->gpu says
 * which GPU then.
 */
bool sim_txn_gpu(const struct sim_txn *t)
{
	return t->dst == SIM_DST_LOC_GMEM ||
	       (t->src == SIM_SRC_LOC_NONCPU && t->rc == SIM_NO_RC);
}

/* The request and outstanding counters of one peer of a link. */
struct sim_link_route {
	struct sim_link *l;
	u8 peer;
	u8 req;
	u8 cum;
};

#define SIM_MAX_LINK_ROUTES	4

/* Which links (and counters) see @t; the number of routes. */
static unsigned int sim_c2c_route(struct sim_dev *sd, const struct sim_txn *t,
				  struct sim_link_route *r)
{
	struct sim_link *c2c = &sd->c2c[t->socket];
	/* Sockets are linked by NV-CLink, or by NVLink-C2C without GPUs. */
	struct sim_link *soc = sd->nr_gpus ? &sd->clink[t->socket] : c2c;
	bool rd = t->op == SIM_OP_RD;
	unsigned int n = 0;

	if (!rd && t->op != SIM_OP_WR)
		return 0;

	if (sd->nr_gpus && t->dst == SIM_DST_LOC_GMEM) {
		if (!t->hit)
			r[n++] = (struct sim_link_route){
				c2c, t->gpu,
				rd ? C2C_EV_OUT_RD_REQ : C2C_EV_OUT_WR_REQ,
				rd ? C2C_EV_OUT_RD_CUM_OUTS : C2C_EV_OUT_WR_CUM_OUTS,
			};
	} else if (sd->nr_gpus && sim_txn_gpu(t)) {
		r[n++] = (struct sim_link_route){
			c2c, t->gpu, rd ? C2C_EV_IN_RD_REQ : C2C_EV_IN_WR_REQ,
			rd ? C2C_EV_IN_RD_CUM_OUTS : C2C_EV_IN_WR_CUM_OUTS,
		};
	}

	if (!rd)
		return n;
	if (t->dst == SIM_DST_REM && !t->hit)
		r[n++] = (struct sim_link_route){
			soc, 0, C2C_EV_OUT_RD_REQ, C2C_EV_OUT_RD_CUM_OUTS,
		};
	if (t->src == SIM_SRC_REM)
		r[n++] = (struct sim_link_route){
			soc, 0, C2C_EV_IN_RD_REQ, C2C_EV_IN_RD_CUM_OUTS,
		};
	if (t->dst == SIM_DST_LOC_OTHER && !t->hit)
		r[n++] = (struct sim_link_route){
			&sd->dlink[t->socket], 0, C2C_EV_IN_RD_REQ,
			C2C_EV_IN_RD_CUM_OUTS,
		};
	return n;
}

/* The requests of @t that this link carries. */
static void link_deliver(struct sim_unit *unit, const struct sim_txn *t)
{
	struct sim_link *l = container_of(unit, struct sim_link, unit);
	struct sim_link_route r[SIM_MAX_LINK_ROUTES];
	unsigned int i, n = sim_c2c_route(l->sd, t, r);

	for (i = 0; i < n; i++)
		if (r[i].l == l)
			link_reqs(l, r[i].peer, r[i].req, r[i].cum, t);
}

/* The links (that the device has) which carry @t; their number. */
unsigned int sim_c2c_units(struct sim_dev *sd, const struct sim_txn *t,
			   struct sim_unit **u)
{
	struct sim_link_route r[SIM_MAX_LINK_ROUTES];
	unsigned int i, j, k = 0, n = sim_c2c_route(sd, t, r);

	for (i = 0; i < n; i++) {
		if (!sim_has(sd, r[i].l->blk))
			continue;
		/* one link may carry both directions (c2c=soc) */
		for (j = 0; j < k && u[j] != &r[i].l->unit; j++)
			;
		if (j == k)
			u[k++] = &r[i].l->unit;
	}
	return k;
}

/*
 * Each request adds its latency in cycles (or 1: the request counters)
 * to one instance of its peer, round-robin.
 */
unsigned int sim_c2c_reach(struct sim_dev *sd, const struct sim_txn *t,
			   struct sim_reach *r)
{
	struct sim_link_route lr[SIM_MAX_LINK_ROUTES];
	unsigned int i, k = 0, n = sim_c2c_route(sd, t, lr);

	for (i = 0; i < n; i++) {
		struct sim_link *l = lr[i].l;

		if (lr[i].peer >= l->nr_peers)
			continue;
		r[k++] = (struct sim_reach){
			.load = &l->load[lr[i].peer][lr[i].cum], .units = 1,
			.value = max(sim_cycles_at(sd, t->lat_ns), 1ULL),
			.div = hweight32(l->peer_insts[lr[i].peer]),
			.max_per_ns = C2C_MAX_PER_NS, .width = 64,
		};
	}
	return k;
}

static void link_tick(struct sim_unit *unit, u64 now)
{
	struct sim_link *l = container_of(unit, struct sim_link, unit);
	unsigned int i;
	u64 cycles;

	cycles = sim_cycles_at(l->sd, now) - sim_cycles_at(l->sd, unit->last_ns);
	for (i = 0; i < l->nr_inst; i++)
		if (link_counting(l, i))
			link_add(l, i, C2C_EV_CYCLES, cycles);
}

/* ---- register interface ------------------------------------------------ */

/*
 * The event whose counter has a half at @off (its high half if *@hi),
 * or -1: the cycle and incoming counters from C2C_CYCLE_CNTR, the
 * outgoing ones from C2C_OUT_RD_CUM_OUTS_CNTR (c2c_cntr()).  At
 * C2C_OUT_STATUS is that register, not in_wr_req's high half.
 */
static __always_inline int link_cntr_at(u32 off, bool *hi)
{
	u32 d;

	if (off >= C2C_OUT_RD_CUM_OUTS_CNTR) {
		d = off - C2C_OUT_RD_CUM_OUTS_CNTR;
		if (d >= 8 * (C2C_NR_EVENTS - C2C_EV_OUT_RD_CUM_OUTS) || d % 4)
			return -1;
		*hi = d & 4;
		return C2C_EV_OUT_RD_CUM_OUTS + d / 8;
	}
	d = off - C2C_CYCLE_CNTR;
	if (d >= 8 * C2C_EV_OUT_RD_CUM_OUTS || d % 4 || off == C2C_OUT_STATUS)
		return -1;
	*hi = d & 4;
	return d / 8;
}

/* A half of instance @i's counter of event @ev. */
static __always_inline u32 link_cntr_half(const struct sim_link *l,
					  unsigned int i, int ev, bool hi)
{
	return hi ? upper_32_bits(l->cnt[i][ev]) : lower_32_bits(l->cnt[i][ev]);
}

/* The register at @off of instance @i's page; RAZ where there is none. */
static u32 link_reg_read(struct sim_link *l, unsigned int i, u32 off)
{
	bool hi = false;
	int ev;

	if (i >= l->nr_inst)		/* broadcast page: write-only */
		return 0;
	/* The counters first: an event's read reads one on each instance. */
	ev = link_cntr_at(off, &hi);
	if (ev >= 0)
		return link_cntr_half(l, i, ev, hi);
	switch (off) {
	case C2C_CTRL:
		return l->ctrl[i];
	case C2C_IN_STATUS:
		return l->in_status[i];
	case C2C_OUT_STATUS:
		return l->out_status[i];
	}
	return 0;	/* reserved: RAZ */
}

static void link_reg_write_one(struct sim_link *l, unsigned int i, u32 off,
			       u32 val)
{
	switch (off) {
	case C2C_CTRL:
		l->ctrl[i] = val & C2C_CTRL_ENABLE;
		break;
	case C2C_IN_STATUS:
		l->in_status[i] &= ~val;
		break;
	case C2C_OUT_STATUS:
		l->out_status[i] &= ~val;
		break;
	}
	/* Counters are read-only; anything else is WI. */
}

static void link_reg_write(struct sim_link *l, unsigned int i, u32 off, u32 val)
{
	if (i < l->nr_inst) {
		link_reg_write_one(l, i, off, val);
		return;
	}
	/* The broadcast page writes the control register of every instance. */
	if (off == C2C_CTRL)
		for (i = 0; i < l->nr_inst; i++)
			link_reg_write_one(l, i, off, val);
}

/*
 * Any register of the window.  A 64-bit read is two 32-bit registers in
 * one access, low half first.
 */
static u64 link_regs_read_any(struct sim_link *l, u32 off, bool wide)
{
	unsigned int i = off / C2C_PAGE;
	u64 v = link_reg_read(l, i, off % C2C_PAGE);

	if (wide)
		v |= (u64)link_reg_read(l, i, off % C2C_PAGE + 4) << 32;
	return v;
}

/*
 * What an event's read reads, three times on each of 12 to 16 instances
 * (the halves of a counter), inline in the list's loop; the rest through
 * a call.
 */
static __always_inline u64 link_regs_read(struct sim_regs *r, u32 off,
					  bool wide)
{
	struct sim_link *l = container_of(r, struct sim_link, regs);
	unsigned int i = off / C2C_PAGE;
	bool hi = false;
	int ev = link_cntr_at(off % C2C_PAGE, &hi);

	if (likely(ev >= 0 && !wide && i < l->nr_inst))
		return link_cntr_half(l, i, ev, hi);
	return link_regs_read_any(l, off, wide);
}

/*
 * link_regs_read() with c2c_carry: the counter whose high half was read
 * (as a register of its own, or as the upper half of a 64-bit read) then
 * takes a carry.  Only under the lock (link_regs_xfer()), and never in an
 * interrupt of the lock's holder on this CPU, nor in an NMI.
 */
static u64 link_regs_read_carry(struct sim_regs *r, u32 off, bool wide)
{
	struct sim_link *l = container_of(r, struct sim_link, regs);
	unsigned int i = off / C2C_PAGE;
	u64 v = link_regs_read(r, off, wide);
	bool hi = false;
	int ev;

	ev = link_cntr_at(off % C2C_PAGE + (wide ? 4 : 0), &hi);
	if (ev >= 0 && hi && i < l->nr_inst && link_counting(l, i) &&
	    READ_ONCE(c2c_carry) &&
	    READ_ONCE(l->sd->owner) == raw_smp_processor_id() && !in_nmi()) {
		WRITE_ONCE(c2c_carry, c2c_carry - 1);
		link_add(l, i, ev, BIT_ULL(32) + 1);
	}
	return v;
}

static void link_regs_write(struct sim_regs *r, u32 off, u32 val)
{
	link_reg_write(container_of(r, struct sim_link, regs), off / C2C_PAGE,
		       off % C2C_PAGE, val);
}

/*
 * Reads of a fresh block take no lock, but while c2c_carry has carries to
 * inject a read of a high half changes the counter: then under the lock.
 */
static void link_regs_xfer(void *ctx, struct upmu_reg_xfer *x, unsigned int n)
{
	if (unlikely(READ_ONCE(c2c_carry)))
		sim_regs_xfer_locked(ctx, x, n, NULL, link_regs_read_carry,
				     link_regs_write);
	else
		sim_regs_xfer(ctx, x, n, NULL, link_regs_read, link_regs_write);
}

static const struct upmu_regs_ops sim_link_regs_ops = {
	.xfer = link_regs_xfer,
};

/* ---- devices ----------------------------------------------------------- */

/* Reset state: stopped, zero; every instance carries peer 0. */
static void link_init(struct sim_dev *sd, struct sim_link *l,
		      enum sim_block blk, const char *name,
		      const char *regs_name, u32 socket, unsigned int nr_inst)
{
	l->sd = sd;
	l->blk = blk;
	l->pdev_name = name;
	l->socket = socket;
	l->nr_inst = nr_inst;
	l->nr_peers = 1;
	l->peer_insts[0] = GENMASK(nr_inst - 1, 0);
	sim_unit_init(sd, &l->unit, link_tick, link_deliver);
	l->regs.ops = &sim_link_regs_ops;
	l->regs.sd = sd;
	l->regs.unit = &l->unit;
	l->regs.pure_size = U32_MAX;
	l->regs.size = C2C_WINDOW(nr_inst);
	snprintf(l->regs.name, sizeof(l->regs.name), "%s.%u", regs_name, socket);
}

void sim_c2c_init(struct sim_dev *sd)
{
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++) {
		struct sim_link *c2c = &sd->c2c[s];

		link_init(sd, c2c, SIM_BLK_C2C, "nvidia-t410-c2c-pmu", "c2c", s,
			  C2C_NR_INST_NVLINK);
		/* Two GPUs share the instances half and half. */
		if (sd->nr_gpus == 2) {
			c2c->nr_peers = 2;
			c2c->peer_insts[0] = GENMASK(C2C_NR_INST_NVLINK / 2 - 1, 0);
			c2c->peer_insts[1] = GENMASK(C2C_NR_INST_NVLINK - 1,
						     C2C_NR_INST_NVLINK / 2);
		}
		link_init(sd, &sd->clink[s], SIM_BLK_CLINK, "nvidia-t410-nvclink",
			  "clink", s, C2C_NR_INST_NVCLINK);
		link_init(sd, &sd->dlink[s], SIM_BLK_DLINK, "nvidia-t410-nvdlink",
			  "dlink", s, C2C_NR_INST_NVDLINK);
	}
}

static int link_publish(struct sim_link *l, const struct property_entry *props)
{
	l->pdev = sim_add_pdev(l->sd, l->pdev_name, &l->regs, l->socket, 0,
			       props);
	return PTR_ERR_OR_ZERO(l->pdev);
}

/*
 * What firmware tells about the links (copied by the device core): the
 * instances of each GPU, or of the SoC, on NVLink-C2C; NV-CLink's
 * instances; nothing for NV-DLink.
 */
int sim_c2c_add(struct sim_dev *sd)
{
	struct property_entry props[C2C_MAX_GPUS + 1];
	unsigned int s, g;
	int ret;

	for (s = 0; s < sd->nr_sockets; s++) {
		struct sim_link *c2c = &sd->c2c[s];

		memset(props, 0, sizeof(props));
		if (!sd->nr_gpus)
			props[0] = PROPERTY_ENTRY_U32(C2C_PROP_CPU_EN,
						      c2c->peer_insts[0]);
		for (g = 0; g < sd->nr_gpus; g++)
			props[g] = PROPERTY_ENTRY_U32(g ? C2C_PROP_GPU1_EN :
							  C2C_PROP_GPU0_EN,
						      c2c->peer_insts[g]);
		ret = sim_has(sd, SIM_BLK_C2C) ? link_publish(c2c, props) : 0;
		if (ret)
			return ret;

		memset(props, 0, sizeof(props));
		props[0] = PROPERTY_ENTRY_U32(C2C_PROP_CPU_EN,
					      sd->clink[s].peer_insts[0]);
		ret = sim_has(sd, SIM_BLK_CLINK) ?
		      link_publish(&sd->clink[s], props) : 0;
		if (!ret && sim_has(sd, SIM_BLK_DLINK))
			ret = link_publish(&sd->dlink[s], NULL);
		if (ret)
			return ret;
	}
	return 0;
}

void sim_c2c_del(struct sim_dev *sd)
{
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++) {
		sim_del_pdev(&sd->dlink[s].pdev);
		sim_del_pdev(&sd->clink[s].pdev);
		sim_del_pdev(&sd->c2c[s].pdev);
	}
}

static void sim_c2c_catch_up(struct sim_dev *sd, u64 now)
{
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++) {
		if (sim_has(sd, SIM_BLK_C2C))
			sim_unit_catch_up(sd, &sd->c2c[s].unit, now);
		if (sim_has(sd, SIM_BLK_CLINK))
			sim_unit_catch_up(sd, &sd->clink[s].unit, now);
		if (sim_has(sd, SIM_BLK_DLINK))
			sim_unit_catch_up(sd, &sd->dlink[s].unit, now);
	}
}

/* NVLink-C2C, NV-CLink and NV-DLink PMUs per socket. */
const struct sim_block_type sim_c2c_type = {
	.name		= "c2c",
	.blocks		= BIT(SIM_BLK_C2C) | BIT(SIM_BLK_CLINK) | BIT(SIM_BLK_DLINK),
	.init		= sim_c2c_init,
	.add		= sim_c2c_add,
	.del		= sim_c2c_del,
	.units		= sim_c2c_units,
	.reach		= sim_c2c_reach,
	.catch_up	= sim_c2c_catch_up,
};
