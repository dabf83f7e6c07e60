// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated CoreSight-architecture PMU register block, and the UCF
 * traffic model that decides what its counters count.
 */

#include <linux/bitfield.h>
#include <linux/math64.h>

#include "hw/t410_cspmu.h"
#include "sim.h"

static u32 cspmu_valid_mask(struct sim_cspmu *u)
{
	return GENMASK(u->nr - 1, 0) | BIT(CSPMU_CYCLE_IDX);
}

static bool cspmu_counting(struct sim_cspmu *u, unsigned int idx)
{
	return (u->pmcr & CSPMU_PMCR_E) && (u->cnten & BIT(idx));
}

static void cspmu_add(struct sim_cspmu *u, unsigned int idx, u64 delta)
{
	u64 v = u->cnt[idx] + delta;

	/* Wrapped past the top (possibly several times): flag overflow. */
	if (v < u->cnt[idx] || (v & ~u->mask) || delta > u->mask)
		u->ovs |= BIT(idx);
	u->cnt[idx] = v & u->mask;
}

/* Advance time-driven counters from the unit's last_ns to @now. */
static void cspmu_tick(struct sim_unit *unit, u64 now)
{
	struct sim_cspmu *u = container_of(unit, struct sim_cspmu, unit);
	u64 cycles;
	unsigned int i;

	cycles = sim_cycles_at(u->sd, now) - sim_cycles_at(u->sd, unit->last_ns);
	if (!cycles)
		return;

	if (cspmu_counting(u, CSPMU_CYCLE_IDX))
		cspmu_add(u, CSPMU_CYCLE_IDX, cycles);
	for (i = 0; i < u->nr; i++)
		if (cspmu_counting(u, i) && u->model->is_clock(u->evtyper[i]))
			cspmu_add(u, i, cycles);
}

static void cspmu_deliver(struct sim_unit *unit, const struct sim_txn *t)
{
	struct sim_cspmu *u = container_of(unit, struct sim_cspmu, unit);
	unsigned int i;

	for (i = 0; i < u->nr; i++) {
		u64 inc;

		if (!cspmu_counting(u, i))
			continue;
		inc = u->model->count(u, i, t);
		if (inc)
			cspmu_add(u, i, inc * t->count);
	}
}

/* ---- register interface ------------------------------------------------ */

/* The PCIE-TGT address slots: 5 registers of 4 bytes each. */
static u32 *cspmu_slot_reg(struct sim_cspmu *u, u32 off)
{
	u32 rel;

	if (!u->model->has_slots || off < TGT_SLOT(0) ||
	    off >= TGT_SLOT(TGT_NR_SLOTS) || off & 3)
		return NULL;
	rel = (off - TGT_SLOT(0)) / 4;
	return &u->slot[rel / 5][rel % 5];
}

/*
 * The counter register at @off, by the architecture's layout: counters of
 * up to 32 bits are 32-bit registers at 4 * n, wider ones 64-bit
 * registers at 8 * n.  -1 for an offset in no counter register; *@hi set
 * for the upper half of a 64-bit one.
 */
static bool cspmu_cnt64(const struct sim_cspmu *u)
{
	return u->sd->width > CSPMU_CNTR32_MAX_WIDTH;
}

static int cspmu_counter_at(const struct sim_cspmu *u, u32 off, bool *hi)
{
	u32 stride = cspmu_cnt64(u) ? 8 : 4;
	u32 n = off / stride;

	if (off >= 32 * stride || (n != CSPMU_CYCLE_IDX && n >= u->nr))
		return -1;
	*hi = off % stride == 4;
	return n;
}

/*
 * A 64-bit read of counter @n.  On a device that does not make it
 * single-copy atomic (tear64=) it is two 32-bit reads, the low half
 * first: where a carry out of the low half falls between them, the high
 * half is read after it.  Modelled as the high half of the value @tear64
 * counts later, read with the low half of the value now: a read within
 * @tear64 of a carry is torn, by 2^32, as on a bus.
 */
static u64 cspmu_read64(struct sim_cspmu *u, unsigned int n)
{
	u64 v = u->cnt[n], later = (v + u->sd->tear64) & u->mask;

	if (!u->sd->tear64)
		return v;
	return (later & ~0xffffffffULL) | lower_32_bits(v);
}

/* 64-bit reads reach the 64-bit counter registers only, else RAZ. */
static u64 cspmu_reg_read64(struct sim_cspmu *u, u32 off)
{
	bool hi;
	int n;

	if (!cspmu_cnt64(u))
		return 0;
	n = cspmu_counter_at(u, off, &hi);
	return n < 0 || hi ? 0 : cspmu_read64(u, n);
}

static u64 cspmu_reg_read32(struct sim_cspmu *u, u32 off)
{
	u32 *slot = cspmu_slot_reg(u, off);
	bool hi;
	int n;

	if (slot)
		return *slot;
	if (off < CSPMU_PMEVTYPER(0)) {
		n = cspmu_counter_at(u, off, &hi);
		if (n < 0)
			return 0;
		return hi ? upper_32_bits(u->cnt[n]) : lower_32_bits(u->cnt[n]);
	}
	if (off >= CSPMU_PMEVTYPER(0) && off < CSPMU_PMEVTYPER(u->nr))
		return u->evtyper[(off - CSPMU_PMEVTYPER(0)) / 4];
	if (off >= CSPMU_PMEVFILTR(0) && off < CSPMU_PMEVFILTR(u->nr))
		return u->filtr[(off - CSPMU_PMEVFILTR(0)) / 4];
	if (off >= CSPMU_PMEVFILT2R(0) && off < CSPMU_PMEVFILT2R(u->nr))
		return u->filt2r[(off - CSPMU_PMEVFILT2R(0)) / 4];

	switch (off) {
	case CSPMU_PMCCFILTR:
		return u->ccfiltr;
	case CSPMU_PMCNTENSET:
	case CSPMU_PMCNTENCLR:
		return u->cnten;
	case CSPMU_PMOVSSET:
	case CSPMU_PMOVSCLR:
		return u->ovs;
	case CSPMU_PMINTENSET:
	case CSPMU_PMINTENCLR:
		return u->inten;
	case CSPMU_PMCFGR:
		return CSPMU_PMCFGR_CC |
		       FIELD_PREP(CSPMU_PMCFGR_SIZE, u->sd->width - 1) |
		       FIELD_PREP(CSPMU_PMCFGR_N, u->nr);	/* nr + cycles */
	case CSPMU_PMCR:
		return u->pmcr;
	case CSPMU_PMIIDR:
		return u->model->pmiidr;
	}
	return 0;	/* reserved: RAZ */
}

static void cspmu_reg_write(struct sim_cspmu *u, u32 off, u32 val)
{
	u32 *slot = cspmu_slot_reg(u, off);

	if (slot) {
		*slot = val;
		return;
	}
	if (off >= CSPMU_PMEVTYPER(0) && off < CSPMU_PMEVTYPER(u->nr)) {
		u->evtyper[(off - CSPMU_PMEVTYPER(0)) / 4] = val;
		return;
	}
	if (off >= CSPMU_PMEVFILTR(0) && off < CSPMU_PMEVFILTR(u->nr)) {
		u->filtr[(off - CSPMU_PMEVFILTR(0)) / 4] = val;
		/* The last BDF written with its enable bit is the one compared. */
		if (u->model->shared_bdf && (val & PCIE_FILT_BDF_EN))
			u->bdf = FIELD_GET(PCIE_FILT_BDF, val);
		return;
	}
	if (off >= CSPMU_PMEVFILT2R(0) && off < CSPMU_PMEVFILT2R(u->nr)) {
		u->filt2r[(off - CSPMU_PMEVFILT2R(0)) / 4] = val;
		return;
	}

	switch (off) {
	case CSPMU_PMCCFILTR:
		u->ccfiltr = val;
		break;
	case CSPMU_PMCNTENSET:
		u->cnten |= val & cspmu_valid_mask(u);
		break;
	case CSPMU_PMCNTENCLR:
		u->cnten &= ~val;
		break;
	case CSPMU_PMOVSCLR:
		u->ovs &= ~val;
		break;
	case CSPMU_PMINTENSET:
		u->inten |= val & cspmu_valid_mask(u);
		break;
	case CSPMU_PMINTENCLR:
		u->inten &= ~val;
		break;
	case CSPMU_PMCR:
		if (val & CSPMU_PMCR_P)
			memset(u->cnt, 0, sizeof(u->cnt[0]) * u->nr);
		if (val & CSPMU_PMCR_C)
			u->cnt[CSPMU_CYCLE_IDX] = 0;
		u->pmcr = val & CSPMU_PMCR_E;
		break;
	}
	/* Counters are read-only here; anything else is WI. */
}

static u64 cspmu_regs_read(struct sim_regs *r, u32 off, bool wide)
{
	struct sim_cspmu *u = container_of(r, struct sim_cspmu, regs);

	/* a 64-bit counter, what a driver reads most, with no call in between */
	return wide ? cspmu_reg_read64(u, off) : cspmu_reg_read32(u, off);
}

static void cspmu_regs_write(struct sim_regs *r, u32 off, u32 val)
{
	cspmu_reg_write(container_of(r, struct sim_cspmu, regs), off, val);
}

static void cspmu_regs_xfer(void *ctx, struct upmu_reg_xfer *x, unsigned int n)
{
	sim_regs_xfer(ctx, x, n, NULL, cspmu_regs_read, cspmu_regs_write);
}

static const struct upmu_regs_ops sim_cspmu_regs_ops = {
	.xfer = cspmu_regs_xfer,
};

/* Reset state of a register block; no driver can see it yet. */
void sim_cspmu_init(struct sim_dev *sd, struct sim_cspmu *u,
		    const struct sim_cspmu_model *m, u32 socket, u32 instance)
{
	u->sd = sd;
	u->model = m;
	u->socket = socket;
	u->instance = instance;
	u->nr = sd->nr_counters;
	u->mask = GENMASK_ULL(sd->width - 1, 0);
	/*
	 * Overflow interrupts are UNKNOWN at reset: as firmware may leave
	 * them, all on.  Nothing handles them here (no interrupt is wired
	 * up), so a driver must turn them off.
	 */
	u->inten = cspmu_valid_mask(u);
	sim_unit_init(sd, &u->unit, cspmu_tick, cspmu_deliver);
	u->regs.ops = &sim_cspmu_regs_ops;
	u->regs.sd = sd;
	u->regs.unit = &u->unit;
	u->regs.pure_size = U32_MAX;
	u->regs.size = m->has_slots ? 2 * CSPMU_REG_SIZE : CSPMU_REG_SIZE;
	if (m->multi_instance)
		snprintf(u->regs.name, sizeof(u->regs.name), "%s.%u.%u",
			 m->regs_name, socket, instance);
	else
		snprintf(u->regs.name, sizeof(u->regs.name), "%s.%u",
			 m->regs_name, socket);
}

/* Properties a CoreSight block's device may have besides "reg-io-width" */
#define SIM_CSPMU_MAX_PROPS	4

/*
 * Publish the register block: a PMU driver may bind at once.  Its device
 * has @props, and says its 64-bit reads are single-copy atomic
 * ("reg-io-width" 8, as the CoreSight PMU binding and an APMT node's flag
 * say) unless the SoC tears them (tear64=).
 */
int sim_cspmu_add(struct sim_cspmu *u, const struct property_entry *props)
{
	struct property_entry all[SIM_CSPMU_MAX_PROPS + 2] = { };
	unsigned int n = 0;

	while (props && props[n].name) {
		if (WARN_ON(n == SIM_CSPMU_MAX_PROPS))
			return -E2BIG;
		all[n] = props[n];
		n++;
	}
	if (!u->sd->tear64)
		all[n++] = PROPERTY_ENTRY_U32("reg-io-width", 8);
	u->pdev = sim_add_pdev(u->sd, u->model->pdev_name, &u->regs, u->socket,
			       u->instance, n ? all : NULL);
	return PTR_ERR_OR_ZERO(u->pdev);
}

void sim_cspmu_del(struct sim_cspmu *u)
{
	sim_del_pdev(&u->pdev);
}

/* ---- UCF traffic model ------------------------------------------------- */

static const u32 ucf_src_bit[SIM_NR_SRCS] = {
	[SIM_SRC_LOC_CPU]	= UCF_FILT_SRC_LOC_CPU,
	[SIM_SRC_LOC_NONCPU]	= UCF_FILT_SRC_LOC_NONCPU,
	[SIM_SRC_REM]		= UCF_FILT_SRC_REM,
};

static const u32 ucf_dst_bit[SIM_NR_DSTS] = {
	[SIM_DST_LOC_CMEM]	= UCF_FILT_DST_LOC_CMEM,
	[SIM_DST_LOC_GMEM]	= UCF_FILT_DST_LOC_GMEM,
	[SIM_DST_LOC_OTHER]	= UCF_FILT_DST_LOC_OTHER,
	[SIM_DST_REM]		= UCF_FILT_DST_REM,
	[SIM_DST_LOC_P2P]	= UCF_FILT_DST_LOC_OTHER,
};

/*
 * What one transaction does to the UCF's counters.  A read or write that
 * misses the SLC allocates a line, refills it from memory (one memory
 * access of the same size) and, for writes, writes back a dirty victim.
 * Snoop events are not modelled and stay at zero.
 */
static u64 ucf_count(const struct sim_cspmu *u, unsigned int idx,
		     const struct sim_txn *t)
{
	u32 ev = u->evtyper[idx], filt = u->filtr[idx];
	bool rd = t->op == SIM_OP_RD, wr = t->op == SIM_OP_WR;
	bool miss = (rd || wr) && !t->hit;

	if (!(filt & ucf_src_bit[t->src]) || !(filt & ucf_dst_bit[t->dst]))
		return 0;

	switch (ev) {
	case UCF_EV_SLC_ACCESS:
		return 1;
	case UCF_EV_SLC_ACCESS_RD:
		return rd;
	case UCF_EV_SLC_ACCESS_WR:
		return wr;
	case UCF_EV_SLC_ACCESS_ATOMIC:
		return t->op == SIM_OP_ATOMIC;
	case UCF_EV_SLC_ACCESS_DATALESS:
		return t->op == SIM_OP_DATALESS;
	case UCF_EV_SLC_BYTES_RD:
		return rd ? t->size : 0;
	case UCF_EV_SLC_BYTES_WR:
		return wr ? t->size : 0;
	case UCF_EV_SLC_HIT_RD:
		return rd && t->hit;
	case UCF_EV_SLC_REFILL_RD:
	case UCF_EV_MEM_ACCESS_RD:
		return rd && miss;
	case UCF_EV_SLC_REFILL_WR:
	case UCF_EV_MEM_ACCESS_WR:
	case UCF_EV_SLC_WB:
		return wr && miss;
	case UCF_EV_SLC_ALLOCATE:
		return miss;
	case UCF_EV_MEM_BYTES_RD:
		return rd && miss ? t->size : 0;
	case UCF_EV_MEM_BYTES_WR:
		return wr && miss ? t->size : 0;
	}
	return 0;
}

static bool ucf_is_clock(u32 ev)
{
	return ev == UCF_EV_BUS_CYCLES;
}

const struct sim_cspmu_model sim_ucf_model = {
	.pdev_name	= "nvidia-t410-ucf-pmu",
	.regs_name	= "ucf",
	.pmiidr		= T410_UCF_PMIIDR,
	.count		= ucf_count,
	.is_clock	= ucf_is_clock,
};

/* ---- the UCF block type: a UCF PMU per socket --------------------------- */

static void sim_ucf_init(struct sim_dev *sd)
{
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++)
		sim_cspmu_init(sd, &sd->ucf[s], &sim_ucf_model, s, 0);
}

static int sim_ucf_add(struct sim_dev *sd)
{
	unsigned int s;
	int ret;

	for (s = 0; s < sd->nr_sockets; s++) {
		ret = sim_cspmu_add(&sd->ucf[s], NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static void sim_ucf_del(struct sim_dev *sd)
{
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++)
		sim_cspmu_del(&sd->ucf[s]);
}

static unsigned int sim_ucf_units(struct sim_dev *sd, const struct sim_txn *t,
				  struct sim_unit **u)
{
	if (!sim_has(sd, SIM_BLK_UCF))
		return 0;
	u[0] = &sd->ucf[t->socket].unit;
	return 1;
}

/* Every transaction is UCF traffic: its bytes, or one access. */
static unsigned int sim_ucf_reach(struct sim_dev *sd, const struct sim_txn *t,
				  struct sim_reach *r)
{
	r[0] = (struct sim_reach){
		.load = &sd->ucf[t->socket].load[SIM_LOAD_BYTES],
		.units = t->size, .value = 1, .div = 1,
		.max_per_ns = UCF_MAX_BYTES_PER_NS, .width = sd->width,
	};
	return 1;
}

static void sim_ucf_catch_up(struct sim_dev *sd, u64 now)
{
	unsigned int s;

	if (!sim_has(sd, SIM_BLK_UCF))
		return;
	for (s = 0; s < sd->nr_sockets; s++)
		sim_unit_catch_up(sd, &sd->ucf[s].unit, now);
}

const struct sim_block_type sim_ucf_type = {
	.name		= "ucf",
	.blocks		= BIT(SIM_BLK_UCF),
	.init		= sim_ucf_init,
	.add		= sim_ucf_add,
	.del		= sim_ucf_del,
	.units		= sim_ucf_units,
	.reach		= sim_ucf_reach,
	.catch_up	= sim_ucf_catch_up,
};
