// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated Tegra410 CMEM latency PMU (hw/t410_cmem.h) and its traffic
 * model: every read that reaches the socket's local CPU memory (an SLC
 * miss to CMEM) is split into 32-byte requests, spread round-robin over
 * the memory controllers of all instances.  Each request adds one to its
 * MC's request counter and its latency, in fabric cycles, to the MC's
 * accumulated-outstanding counter: the sum over every cycle of the
 * requests in flight, credited when the request is issued.  By Little's
 * law rd_cum_outs / rd_req is then the injected latency in cycles.
 */

#include <linux/math64.h>

#include "sim.h"

static bool cmem_counting(const struct sim_cmem *c, unsigned int i)
{
	return c->cg[i] && (c->ctrl[i] & CMEM_CTRL_ENABLE);
}

static void cmem_add(u64 *cnt, u32 *status, u32 ovf, u64 delta)
{
	if (*cnt + delta < *cnt)
		*status |= ovf;
	*cnt += delta;
}

static void cmem_tick(struct sim_unit *unit, u64 now)
{
	struct sim_cmem *c = container_of(unit, struct sim_cmem, unit);
	unsigned int i;
	u64 cycles;

	cycles = sim_cycles_at(c->sd, now) - sim_cycles_at(c->sd, unit->last_ns);
	for (i = 0; i < CMEM_NR_INST; i++)
		if (cmem_counting(c, i))
			cmem_add(&c->cycles[i], &c->status[i],
				 CMEM_STATUS_CYCLE_OVF, cycles);
}

/* Does @t reach CMEM: a read of local CPU memory that misses the SLC? */
bool sim_cmem_sees(const struct sim_txn *t)
{
	return t->op == SIM_OP_RD && !t->hit && t->dst == SIM_DST_LOC_CMEM;
}

static void cmem_deliver(struct sim_unit *unit, const struct sim_txn *t)
{
	struct sim_cmem *c = container_of(unit, struct sim_cmem, unit);
	const unsigned int nr = CMEM_NR_INST * CMEM_NR_MC;
	unsigned int k, rem, slots;
	u64 reqs, each;

	if (!sim_cmem_sees(t))
		return;

	reqs = DIV_ROUND_UP(t->size, CMEM_REQ_BYTES) * t->count;
	each = div_u64_rem(reqs, nr, &rem);
	/* Nothing counting (an event being set up or torn down): the position only */
	for (k = 0; k < CMEM_NR_INST && !cmem_counting(c, k); k++)
		;
	if (k == CMEM_NR_INST) {
		c->next = (c->next + rem) % nr;
		return;
	}
	/* Fewer requests than MCs (small catch-ups): only those MCs change. */
	slots = each ? nr : rem;
	for (k = 0; k < slots; k++) {
		/* The first @rem MCs from the round-robin position get one more. */
		unsigned int slot = (c->next + k) % nr;
		unsigned int i = slot / CMEM_NR_MC, mc = slot % CMEM_NR_MC;
		u64 n = each + (k < rem);

		if (!n || !cmem_counting(c, i))
			continue;
		cmem_add(&c->req[i][mc], &c->status[i], CMEM_STATUS_REQ_OVF(mc), n);
		cmem_add(&c->aor[i][mc], &c->status[i], CMEM_STATUS_AOR_OVF(mc),
			 n * t->lat_cycles);
	}
	c->next = (c->next + rem) % nr;
}

/*
 * A read that reaches CMEM adds its requests, spread over the 42 memory
 * controllers, with its latency in cycles each (or 1: the request
 * counters) to one controller's counters.
 */
unsigned int sim_cmem_reach(struct sim_cmem *c, const struct sim_txn *t,
			    struct sim_reach *r)
{
	if (!sim_cmem_sees(t))
		return 0;
	*r = (struct sim_reach){
		.load = &c->load, .units = DIV_ROUND_UP(t->size, CMEM_REQ_BYTES),
		.value = max(sim_cycles_at(c->sd, t->lat_ns), 1ULL),
		.div = CMEM_NR_INST * CMEM_NR_MC,
		.max_per_ns = CMEM_MAX_PER_NS, .width = 64,
	};
	return 1;
}

/* ---- register interface ------------------------------------------------ */

/* The register at @woff of the window; RAZ beyond it. */
static __always_inline u64 cmem_reg_read(struct sim_cmem *c, u32 woff)
{
	unsigned int i = woff / CMEM_PAGE, mc;
	u32 off = woff % CMEM_PAGE, k = off - CMEM_MC_REQ_CNTR(0);

	if (i >= CMEM_NR_INST)		/* the broadcast page is write-only */
		return 0;
	/* The MCs' counters first: an event's read reads 42 of them. */
	if (k < CMEM_NR_MC * CMEM_MC_STRIDE) {
		mc = k / CMEM_MC_STRIDE;
		switch (k % CMEM_MC_STRIDE) {
		case 0:
			return c->req[i][mc];
		case CMEM_MC_AOR_CNTR(0) - CMEM_MC_REQ_CNTR(0):
			return c->aor[i][mc];
		}
		return 0;	/* reserved: RAZ */
	}
	switch (off) {
	case CMEM_CG_CTRL:
		return c->cg[i];
	case CMEM_CTRL:
		return c->ctrl[i];
	case CMEM_STATUS:
		return c->status[i];
	case CMEM_CYCLE_CNTR:
		return c->cycles[i];
	}
	return 0;	/* reserved: RAZ */
}

static void cmem_reg_write_one(struct sim_cmem *c, unsigned int i, u32 off,
			       u32 val)
{
	switch (off) {
	case CMEM_CG_CTRL:
		c->cg[i] = val & 1;
		break;
	case CMEM_CTRL:
		if (val & CMEM_CTRL_CLR) {
			c->cycles[i] = 0;
			memset(c->req[i], 0, sizeof(c->req[i]));
			memset(c->aor[i], 0, sizeof(c->aor[i]));
			c->status[i] = 0;
		}
		c->ctrl[i] = val & CMEM_CTRL_ENABLE;
		break;
	case CMEM_STATUS:
		c->status[i] &= ~val;
		break;
	}
	/* Counters are read-only; anything else is WI. */
}

static void cmem_reg_write(struct sim_cmem *c, unsigned int i, u32 off, u32 val)
{
	if (i < CMEM_NR_INST) {
		cmem_reg_write_one(c, i, off, val);
		return;
	}
	/* The broadcast page writes the control registers of every instance. */
	if (off == CMEM_CG_CTRL || off == CMEM_CTRL)
		for (i = 0; i < CMEM_NR_INST; i++)
			cmem_reg_write_one(c, i, off, val);
}

static __always_inline u64 cmem_regs_read(struct sim_regs *r, u32 off,
					  bool wide)
{
	struct sim_cmem *c = container_of(r, struct sim_cmem, regs);
	u64 v = cmem_reg_read(c, off & ~7U);

	if (wide)
		return off & 4 ? 0 : v;
	return off & 4 ? upper_32_bits(v) : lower_32_bits(v);
}

static void cmem_regs_write(struct sim_regs *r, u32 off, u32 val)
{
	/* Control registers are 64-bit; their upper halves are reserved. */
	if (!(off & 4))
		cmem_reg_write(container_of(r, struct sim_cmem, regs),
			       off / CMEM_PAGE, off % CMEM_PAGE, val);
}

static void cmem_regs_xfer(void *ctx, struct upmu_reg_xfer *x, unsigned int n)
{
	sim_regs_xfer(ctx, x, n, NULL, cmem_regs_read, cmem_regs_write);
}

static const struct upmu_regs_ops sim_cmem_regs_ops = {
	.xfer = cmem_regs_xfer,
};

/* Reset state: clock gated, stopped, zero. */
void sim_cmem_init(struct sim_dev *sd, struct sim_cmem *c, u32 socket)
{
	c->sd = sd;
	c->socket = socket;
	sim_unit_init(sd, &c->unit, cmem_tick, cmem_deliver);
	c->regs.ops = &sim_cmem_regs_ops;
	c->regs.sd = sd;
	c->regs.unit = &c->unit;
	c->regs.size = CMEM_WINDOW;
	c->regs.pure_size = U32_MAX;
	snprintf(c->regs.name, sizeof(c->regs.name), "cmem.%u", socket);
}

int sim_cmem_add(struct sim_cmem *c)
{
	c->pdev = sim_add_pdev(c->sd, "nvidia-t410-cmem-pmu", &c->regs,
			       c->socket, 0, NULL);
	return PTR_ERR_OR_ZERO(c->pdev);
}

void sim_cmem_del(struct sim_cmem *c)
{
	sim_del_pdev(&c->pdev);
}

/* ---- the CMEM block type: a CMEM latency PMU per socket ----------------- */

static void sim_cmem_type_init(struct sim_dev *sd)
{
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++)
		sim_cmem_init(sd, &sd->cmem[s], s);
}

static int sim_cmem_type_add(struct sim_dev *sd)
{
	unsigned int s;
	int ret;

	for (s = 0; s < sd->nr_sockets; s++) {
		ret = sim_cmem_add(&sd->cmem[s]);
		if (ret)
			return ret;
	}
	return 0;
}

static void sim_cmem_type_del(struct sim_dev *sd)
{
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++)
		sim_cmem_del(&sd->cmem[s]);
}

static unsigned int sim_cmem_units(struct sim_dev *sd, const struct sim_txn *t,
				   struct sim_unit **u)
{
	if (!sim_has(sd, SIM_BLK_CMEM) || !sim_cmem_sees(t))
		return 0;
	u[0] = &sd->cmem[t->socket].unit;
	return 1;
}

static unsigned int sim_cmem_type_reach(struct sim_dev *sd,
					const struct sim_txn *t,
					struct sim_reach *r)
{
	return sim_cmem_reach(&sd->cmem[t->socket], t, r);
}

static void sim_cmem_catch_up(struct sim_dev *sd, u64 now)
{
	unsigned int s;

	if (!sim_has(sd, SIM_BLK_CMEM))
		return;
	for (s = 0; s < sd->nr_sockets; s++)
		sim_unit_catch_up(sd, &sd->cmem[s].unit, now);
}

const struct sim_block_type sim_cmem_type = {
	.name		= "cmem",
	.blocks		= BIT(SIM_BLK_CMEM),
	.init		= sim_cmem_type_init,
	.add		= sim_cmem_type_add,
	.del		= sim_cmem_type_del,
	.units		= sim_cmem_units,
	.reach		= sim_cmem_type_reach,
	.catch_up	= sim_cmem_catch_up,
};
