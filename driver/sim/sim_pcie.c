// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated PCIe side of a Tegra410 socket: root complexes, their root
 * ports and one endpoint below each port, and the PCIE PMU of each root
 * complex (a CoreSight-architecture register block) with its traffic
 * model.
 *
 * The layout is the one of the Tegra410 PMU document's mapping example:
 * socket S, root complex R is PCI segment 1 + 8 * S + R; a root port
 * owns the buses from its own bus number up to the next port's.
 */

#include <linux/bitfield.h>

#include "hw/t410_cspmu.h"
#include "sim.h"

struct sim_rc_layout {
	u8 nr_rp;
	u8 rp[T410_PCIE_MAX_RP];	/* root port numbers */
	u8 bus[T410_PCIE_MAX_RP];	/* their bus numbers, ascending */
};

static const struct sim_rc_layout sim_rc_layout[SIM_PCIE_NR_RC] = {
	{ 1, { 0 }, { 0x00 } },
	{ 4, { 1, 2, 3, 4 }, { 0x80, 0xa0, 0xc0, 0xe0 } },
	{ 1, { 0 }, { 0x00 } },
	{ 1, { 0 }, { 0x00 } },
	{ 3, { 0, 1, 2 }, { 0x00, 0x40, 0xc0 } },
	{ 1, { 0 }, { 0x00 } },
};

static u32 sim_segment(u32 socket, u32 rc)
{
	return 1 + 8 * socket + rc;
}

static unsigned int rp_last_bus(const struct sim_rc_layout *l, unsigned int i)
{
	return i + 1 < l->nr_rp ? l->bus[i + 1] - 1 : 0xff;
}

/* Endpoint below root port @i: device 0 on the port's secondary bus. */
static u16 rp_endpoint(const struct sim_rc_layout *l, unsigned int i)
{
	return (l->bus[i] + 1) << 8;
}

/*
 * The target of BAR traffic is a root port of to_rc= (to_rp=, else the
 * first); CXL HDM traffic (hdm=1) has no root port.
 */
static int sim_pcie_resolve_target(struct sim_txn *t, bool has_to_rp)
{
	const struct sim_rc_layout *l;
	unsigned int i;

	if (t->to_rc == SIM_NO_RC)
		return has_to_rp || t->hdm || t->addr ? -EINVAL : 0;
	if (t->to_rc >= SIM_PCIE_NR_RC || t->hdm > 1 || (t->hdm && has_to_rp))
		return -EINVAL;
	l = &sim_rc_layout[t->to_rc];
	for (i = 0; i < l->nr_rp; i++)
		if (!has_to_rp || l->rp[i] == t->to_rp)
			break;
	if (i == l->nr_rp)
		return -EINVAL;
	t->to_rp = l->rp[i];
	return 0;
}

/*
 * With bdf=, the initiator's root port is the one whose buses hold it;
 * with only rp=, the initiator is the endpoint below that port; with
 * neither, the endpoint below the first port.
 */
static int sim_pcie_resolve_source(struct sim_txn *t, bool has_rp, bool has_bdf)
{
	const struct sim_rc_layout *l;
	unsigned int i, bus = t->bdf >> 8;

	if (t->rc == SIM_NO_RC)
		return has_rp || has_bdf ? -EINVAL : 0;
	if (t->rc >= SIM_PCIE_NR_RC || t->src != SIM_SRC_LOC_NONCPU)
		return -EINVAL;
	l = &sim_rc_layout[t->rc];

	for (i = 0; i < l->nr_rp; i++) {
		if (has_bdf && bus >= l->bus[i] && bus <= rp_last_bus(l, i))
			break;
		if (!has_bdf && (!has_rp || l->rp[i] == t->rp))
			break;
	}
	if (i == l->nr_rp || (has_bdf && has_rp && l->rp[i] != t->rp))
		return -EINVAL;
	t->rp = l->rp[i];
	if (!has_bdf)
		t->bdf = rp_endpoint(l, i);
	return 0;
}

/**
 * sim_pcie_resolve() - complete the PCIe initiator and target of a txn
 * @sd: the simulated SoC
 * @t: transaction with rc/rp/bdf and to_rc/to_rp/hdm/addr as given
 * @has_rp: the user gave rp=
 * @has_bdf: the user gave bdf=
 * @has_to_rp: the user gave to_rp=
 *
 * Return: 0, or -EINVAL for a root complex, port or bus that does not
 * exist, or rp=/bdf= without rc=, to_rp=/hdm=/addr= without to_rc=.
 */
int sim_pcie_resolve(struct sim_dev *sd, struct sim_txn *t, bool has_rp,
		     bool has_bdf, bool has_to_rp)
{
	if ((t->rc != SIM_NO_RC && t->rc >= sd->nr_rcs) ||
	    (t->to_rc != SIM_NO_RC && t->to_rc >= sd->nr_rcs))
		return -EINVAL;
	return sim_pcie_resolve_source(t, has_rp, has_bdf) ?:
	       sim_pcie_resolve_target(t, has_to_rp);
}

/* lspci-like list of the simulated functions, for device mapping. */
void sim_pcie_show_devices(struct sim_dev *sd, struct seq_file *m)
{
	unsigned int s, rc, i;

	for (s = 0; s < sd->nr_sockets; s++) {
		for (rc = 0; rc < sd->nr_rcs; rc++) {
			const struct sim_rc_layout *l = &sim_rc_layout[rc];
			u32 seg = sim_segment(s, rc);

			for (i = 0; i < l->nr_rp; i++) {
				u16 ep = rp_endpoint(l, i);

				seq_printf(m, "%04x:%02x:00.0 root_port\n", seg, l->bus[i]);
				seq_printf(m, "%04x:%02x:%02x.%x endpoint\n", seg, ep >> 8,
					   (ep >> 3) & 0x1f, ep & 7);
			}
		}
	}
}

/* ---- PCIE PMU traffic model -------------------------------------------- */

static const u32 pcie_dst_bit[SIM_NR_DSTS] = {
	[SIM_DST_LOC_CMEM]	= PCIE_FILT2_LOC_CMEM,
	[SIM_DST_LOC_GMEM]	= PCIE_FILT2_LOC_GMEM,
	[SIM_DST_LOC_OTHER]	= PCIE_FILT2_LOC_CXL,
	[SIM_DST_REM]		= PCIE_FILT2_REM,
	[SIM_DST_LOC_P2P]	= PCIE_FILT2_LOC_P2P,
};

/*
 * One transaction of a PCIe requester of this root complex: its source
 * must pass the root-port mask, or, with the BDF enable bit, equal the
 * root complex's one BDF comparator (which every counter's PMEVFILTR
 * writes, see cspmu_reg_write()), and its destination must be in
 * PMEVFILT2R.  Reads and writes
 * count; rd_cum_outs adds the cycles each read is outstanding.
 */
static u64 pcie_count(const struct sim_cspmu *u, unsigned int idx,
		      const struct sim_txn *t)
{
	u32 ev = u->evtyper[idx], filt = u->filtr[idx], filt2 = u->filt2r[idx];
	bool rd = t->op == SIM_OP_RD, wr = t->op == SIM_OP_WR;

	if (t->rc != u->instance)
		return 0;
	if (filt & PCIE_FILT_BDF_EN) {
		if (u->bdf != t->bdf)
			return 0;
	} else if (!(filt & BIT(t->rp))) {
		return 0;
	}
	if (!(filt2 & pcie_dst_bit[t->dst]))
		return 0;

	switch (ev) {
	case PCIE_EV_RD_BYTES:
		return rd ? t->size : 0;
	case PCIE_EV_WR_BYTES:
		return wr ? t->size : 0;
	case PCIE_EV_RD_REQ:
		return rd;
	case PCIE_EV_WR_REQ:
		return wr;
	case PCIE_EV_RD_CUM_OUTS:
		return rd ? t->lat_cycles : 0;
	}
	return 0;
}

static bool pcie_is_clock(u32 ev)
{
	return false;
}

static const struct sim_cspmu_model sim_pcie_model = {
	.pdev_name	= "nvidia-t410-pcie-pmu",
	.regs_name	= "pcie",
	.multi_instance	= true,
	.shared_bdf	= true,
	.pmiidr		= T410_PCIE_PMIIDR,
	.count		= pcie_count,
	.is_clock	= pcie_is_clock,
};

/* ---- PCIE-TGT PMU traffic model ----------------------------------------- */

static bool tgt_slot_match(const struct sim_cspmu *u, unsigned int i, u64 addr)
{
	const u32 *r = u->slot[i];
	u64 base = (u64)r[TGT_SLOT_BASE_HI / 4] << 32 | r[TGT_SLOT_BASE_LO / 4];
	u64 mask = (u64)r[TGT_SLOT_MASK_HI / 4] << 32 | r[TGT_SLOT_MASK_LO / 4];

	return (r[TGT_SLOT_CTRL / 4] & 1) && (addr & mask) == (base & mask);
}

/*
 * One transaction to a BAR or CXL HDM range behind this root complex:
 * counted if PMEVFILT2R selects the BAR's root port (BAR traffic only)
 * or an enabled address slot that the address falls in.
 */
static u64 tgt_count(const struct sim_cspmu *u, unsigned int idx,
		     const struct sim_txn *t)
{
	u32 filt2 = u->filt2r[idx];
	unsigned long slots = FIELD_GET(TGT_FILT2_SLOTS, filt2);
	bool rd = t->op == SIM_OP_RD, wr = t->op == SIM_OP_WR;
	bool hit = !t->hdm && (filt2 & BIT(t->to_rp));
	unsigned int i;

	if (t->to_rc != u->instance)
		return 0;
	for_each_set_bit(i, &slots, TGT_NR_SLOTS)
		hit |= tgt_slot_match(u, i, t->addr);
	if (!hit)
		return 0;

	switch (u->evtyper[idx]) {
	case TGT_EV_RD_BYTES:
		return rd ? t->size : 0;
	case TGT_EV_WR_BYTES:
		return wr ? t->size : 0;
	case TGT_EV_RD_REQ:
		return rd;
	case TGT_EV_WR_REQ:
		return wr;
	}
	return 0;
}

static bool tgt_is_clock(u32 ev)
{
	return ev == TGT_EV_CYCLES;
}

static const struct sim_cspmu_model sim_tgt_model = {
	.pdev_name	= "nvidia-t410-pcie-tgt",
	.regs_name	= "tgt",
	.multi_instance	= true,
	.pmiidr		= T410_PCIE_TGT_PMIIDR,
	.has_slots	= true,
	.count		= tgt_count,
	.is_clock	= tgt_is_clock,
};

/*
 * A PCIe read or write reaches the byte (and request) counters of the
 * PCIE PMU of its initiator's root complex, a read also its rd_cum_outs
 * and the RC's reads in flight; the PCIE-TGT PMU of its target's root
 * complex counts its bytes.
 */
unsigned int sim_pcie_reach(struct sim_dev *sd, const struct sim_txn *t,
			    struct sim_reach *r)
{
	bool rd = t->op == SIM_OP_RD;
	struct sim_cspmu *u;
	unsigned int n = 0;

	if (!rd && t->op != SIM_OP_WR)
		return 0;
	if (t->rc < sd->nr_rcs) {
		u = &sd->pcie[t->socket][t->rc];
		r[n++] = (struct sim_reach){
			.load = &u->load[SIM_LOAD_BYTES], .units = t->size,
			.value = 1, .div = 1, .max_per_ns = T410_PCIE_MAX_PER_NS,
			.width = sd->width,
		};
	}
	if (t->rc < sd->nr_rcs && rd) {
		u = &sd->pcie[t->socket][t->rc];
		r[n++] = (struct sim_reach){
			.load = &u->load[SIM_LOAD_CUM], .units = 1,
			.value = sim_cycles_at(sd, t->lat_ns), .div = 1,
			.max_per_ns = T410_PCIE_MAX_PER_NS, .width = sd->width,
		};
		r[n++] = (struct sim_reach){
			.load = &u->load[SIM_LOAD_OUTS], .units = 1,
			.value = t->lat_ns, .div = 1,
			.max_per_ns = T410_PCIE_MAX_OUTSTANDING, .width = 64,
			.flow_only = true,
		};
	}
	if (t->to_rc < sd->nr_rcs) {
		u = &sd->tgt[t->socket][t->to_rc];
		r[n++] = (struct sim_reach){
			.load = &u->load[SIM_LOAD_BYTES], .units = t->size,
			.value = 1, .div = 1,
			.max_per_ns = T410_PCIE_TGT_MAX_PER_NS, .width = sd->width,
		};
	}
	return n;
}

/* The PCIE PMU of the initiator's RC, the PCIE-TGT PMU of the target's. */
unsigned int sim_pcie_units(struct sim_dev *sd, const struct sim_txn *t,
			    struct sim_unit **u)
{
	unsigned int n = 0;

	if (t->rc < sd->nr_rcs && sim_has(sd, SIM_BLK_PCIE))
		u[n++] = &sd->pcie[t->socket][t->rc].unit;
	if (t->to_rc < sd->nr_rcs && sim_has(sd, SIM_BLK_TGT))
		u[n++] = &sd->tgt[t->socket][t->to_rc].unit;
	return n;
}

void sim_pcie_init(struct sim_dev *sd)
{
	unsigned int s, rc;

	for (s = 0; s < sd->nr_sockets; s++) {
		for (rc = 0; rc < sd->nr_rcs; rc++) {
			sim_cspmu_init(sd, &sd->pcie[s][rc], &sim_pcie_model, s, rc);
			sim_cspmu_init(sd, &sd->tgt[s][rc], &sim_tgt_model, s, rc);
		}
	}
}

/* What firmware tells about a root complex (copied by the device core). */
static void sim_rc_properties(struct property_entry *p, u32 socket, u32 rc)
{
	const struct sim_rc_layout *l = &sim_rc_layout[rc];

	p[0] = PROPERTY_ENTRY_U32("nvidia,pcie-segment", sim_segment(socket, rc));
	p[1] = PROPERTY_ENTRY_U8_ARRAY_LEN("nvidia,root-ports", l->rp, l->nr_rp);
	p[2] = PROPERTY_ENTRY_U8_ARRAY_LEN("nvidia,root-port-buses", l->bus,
					   l->nr_rp);
	p[3] = (struct property_entry){ };
}

int sim_pcie_add(struct sim_dev *sd)
{
	struct property_entry props[4];
	unsigned int s, rc;
	int ret;

	for (s = 0; s < sd->nr_sockets; s++) {
		for (rc = 0; rc < sd->nr_rcs; rc++) {
			sim_rc_properties(props, s, rc);
			ret = sim_has(sd, SIM_BLK_PCIE) ?
			      sim_cspmu_add(&sd->pcie[s][rc], props) : 0;
			if (!ret && sim_has(sd, SIM_BLK_TGT))
				ret = sim_cspmu_add(&sd->tgt[s][rc], props);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void sim_pcie_del(struct sim_dev *sd)
{
	unsigned int s, rc;

	for (s = 0; s < sd->nr_sockets; s++) {
		for (rc = 0; rc < sd->nr_rcs; rc++) {
			sim_cspmu_del(&sd->tgt[s][rc]);
			sim_cspmu_del(&sd->pcie[s][rc]);
		}
	}
}

static void sim_pcie_catch_up(struct sim_dev *sd, u64 now)
{
	unsigned int s, rc;

	for (s = 0; s < sd->nr_sockets; s++) {
		for (rc = 0; rc < sd->nr_rcs; rc++) {
			if (sim_has(sd, SIM_BLK_PCIE))
				sim_unit_catch_up(sd, &sd->pcie[s][rc].unit, now);
			if (sim_has(sd, SIM_BLK_TGT))
				sim_unit_catch_up(sd, &sd->tgt[s][rc].unit, now);
		}
	}
}

/* PCIE and PCIE-TGT PMUs per socket and root complex. */
const struct sim_block_type sim_pcie_type = {
	.name		= "pcie",
	.blocks		= BIT(SIM_BLK_PCIE) | BIT(SIM_BLK_TGT),
	.init		= sim_pcie_init,
	.add		= sim_pcie_add,
	.del		= sim_pcie_del,
	.units		= sim_pcie_units,
	.reach		= sim_pcie_reach,
	.catch_up	= sim_pcie_catch_up,
};
