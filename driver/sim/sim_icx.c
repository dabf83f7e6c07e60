// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated Ice Lake-X uncore (soc=icx): per socket 6 IIO stacks, each
 * with root ports on some of its 8 parts, an IIO PMU box (4 counters,
 * free-running ioclk and inbound bandwidth counters), an IRP PMU box
 * (2 counters) and an M2PCIE box (4), a PCU (4 counters) and a UBOX (2
 * and a fixed one), and the memory side (sim_icx_mem.c), behind the
 * register contract of hw/icx_uncore.h.  One platform device,
 * "upmu-icx-uncore", carries the window of every socket.
 *
 * Traffic is the simulator's transactions (inject and flows):
 *
 *   inbound, a device below stack=K part=P (rc=/rp=, or bdf=) reads
 *   (op=rd) or writes (op=wr) memory, size= bytes per transaction;
 *   outbound, a CPU reads or writes the MMIO space of the device below
 *   to_stack=K to_part=P;
 *   a CPU's access of memory (neither stack= nor to_stack=, src=loc_cpu):
 *   op=rd a demand data read (code=1: a code read), op=wr a store's read
 *   for ownership, which reach only the CHAs, IMCs and UPI links
 *   (sim_icx_mem.c).  lat= is the latency of each transaction (ns);
 *   lost_fwd=N, on an inbound write: N of each one's lines lose their
 *   ownership to a snoop once before the write is committed.
 *
 * Each transaction of size S advances (when its part is in ch_mask, or
 * for COMP_BUF_OCCUPANCY in umask, and its class in fc_mask):
 *
 *   DATA_REQ_OF_CPU (0x83): inbound MEM_WRITE (posted) or MEM_READ
 *	(non-posted) by ceil(S/4); an outbound read's completion, CMPD
 *	(completion class), by ceil(S/4)
 *   TXN_REQ_OF_CPU (0x84): the same, by ceil(S/64) (requests of up to 64
 *	bytes)
 *   DATA_REQ_BY_CPU (0xc0) / TXN_REQ_BY_CPU (0xc1): outbound MEM_WRITE
 *	(posted) or MEM_READ (non-posted) by ceil(S/4) / ceil(S/64)
 *   COMP_BUF_INSERTS (0xc2, umask 0x3): an inbound read, whose data
 *	comes back from memory to the device as completions with data, by
 *	ceil(S/64) (lines)
 *   COMP_BUF_OCCUPANCY (0xd5): an inbound read, by ceil(S/64) x its
 *	latency in IIO cycles (Little's law: occupancy / inserts = latency)
 *   bw_in of part P (free-running): inbound writes and outbound reads'
 *	completions, by ceil(S/32)
 *   IRP FAF_INSERTS (0x18): inbound reads, by ceil(S/64) (lines);
 *	FAF_OCCUPANCY (0x19) by lines x latency in cycles
 *   IRP TRANSACTIONS.WR_PREF (0x11, 0x08): inbound writes, by lines
 *   IRP MISC1.LOST_FWD (0x1f, 0x10): inbound writes, by lost_fwd= x the
 *	transactions
 *   IRP CACHE_TOTAL_OCCUPANCY.MEM (0x0f, 0x04): inbound reads and writes,
 *	by lines x latency in cycles
 *   clockticks (0x01, IIO and IRP) and ioclk: one per cycle of the IIO
 *	clock (clock_mhz)
 *
 * The M2PCIE (clockticks 0x01), M2M (0x00), M3UPI (0x01) and PCU (0x00)
 * boxes count their clockticks once per cycle of the clock, as the UBOX's
 * fixed counter (config 0xff) does; the PCU's POWER_STATE_OCCUPANCY
 * (0x80) adds each cycle the cores of the socket in the C-state its
 * occ_sel names (umask 0x40 C0/C1, 0x80 C3, 0xc0 C6/C7; new_device
 * cstate=, debugfs cstate).  The IMC's free-running dclk counts the
 * clock's cycles, its read and write the CAS reads and writes of the
 * controller's three channels (sim_icx_mem_fr()); DDRT counts nothing.
 *
 * Other events count nothing (the M2M's directory events are the memory
 * model's to count, sim_icx_mem.c).  With a threshold (thresh, inv,
 * edge; the PCU's occ_invert and occ_edge_det are not modelled) a
 * counter counts cycles instead, judged one by one: sim_icx_judge().
 * General counters
 * count while enabled (EN) in a box that is not frozen; the free-running
 * ones always.  All are 48 bits wide and wrap.
 */

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "sim.h"

static const u32 icx_box_off[ICX_NR_STACKS] = ICX_BOX_OFFSETS;
static const u32 icx_bw_off[ICX_NR_STACKS] = ICX_BW_BOX_OFFSETS;

/*
 * The root ports of each stack (the same on every socket): PCIe
 * generation and lanes of each part's link, 0 where there is none.
 */
static const struct {
	u8 speed[ICX_NR_PARTS];
	u8 width[ICX_NR_PARTS];
} icx_ports[ICX_NR_STACKS] = {
	{ { 4, 4, 4, 4 }, { 4, 4, 4, 4 } },
	{ { 4 }, { 16 } },
	{ { 4, 0, 3 }, { 8, 0, 8 } },
	{ { 4 }, { 16 } },
	{ { 4, 4 }, { 8, 8 } },
	{ { 3 }, { 4 } },		/* the DMI/CBDMA stack */
};

/*
 * Root bus of stack @k of socket @s: stacks 0-4 from 0x16 in steps of
 * 0x14, stack 5 (DMI) on bus 0, each socket 0x80 buses further; the
 * device below part P sits on the root bus + 1 + P.
 */
static u32 icx_root_bus(u32 s, u32 k)
{
	return s * 0x80 + (k == ICX_NR_STACKS - 1 ? 0 : 0x16 + 0x14 * k);
}

static bool icx_port(u32 k, u32 p)
{
	return k < ICX_NR_STACKS && p < ICX_NR_PARTS && icx_ports[k].width[p];
}

/* ---- traffic model ----------------------------------------------------- */

/**
 * struct icx_req - what a transaction batch requests of one class
 * @by_cpu: outbound (DATA/TXN_REQ_BY_CPU), else inbound (_OF_CPU)
 * @umask: its umask bit
 * @fc: its traffic class (fc_mask bit)
 * @data: 4-byte units
 * @txns: requests of up to 64 bytes
 */
struct icx_req {
	bool by_cpu;
	u8 umask;
	u8 fc;
	u64 data;
	u64 txns;
};

/**
 * struct icx_fx - what a transaction batch does to one stack
 * @part: its part
 * @req: its requests (an outbound read also has its completions)
 * @nr_req: entries in @req
 * @cmpl: completions with data of inbound reads (lines) inserted into the
 *	  completion buffer
 * @lat: cycles each entry stays in the completion buffer or the IRP
 * @rd_lines: inbound read lines (IRP FAF)
 * @wr_lines: inbound write lines (IRP WR_PREF)
 * @lost_fwd: inbound write lines that lost their ownership (IRP LOST_FWD)
 * @lookups: IOTLB lookups (one per inbound transaction)
 * @hits: IOTLB hits of each page size (SIM_PAGE_*)
 * @misses: IOTLB misses (context cache lookups and hits, page walks)
 * @walk_reads: the page walks' memory reads (64 bytes each)
 * @walk_cyc: cycles each page walk stays in the walk tracker
 */
struct icx_fx {
	u32 part;
	struct icx_req req[2];
	unsigned int nr_req;
	u64 cmpl;
	u64 lat;
	u64 rd_lines;
	u64 wr_lines;
	u64 lost_fwd;
	u64 lookups;
	u64 hits[SIM_NR_PAGES];
	u64 misses;
	u64 walk_reads;
	u64 walk_cyc;
};

/* The stack @t reaches, or -1. */
static int icx_txn_stack(const struct sim_txn *t)
{
	if (t->rc != SIM_NO_RC)
		return t->rc;
	if (t->to_rc != SIM_NO_RC)
		return t->to_rc;
	return -1;
}

/* The part of the stack @t reaches (icx_txn_stack()). */
static u32 icx_txn_part(const struct sim_txn *t)
{
	return t->rc != SIM_NO_RC ? t->rp : t->to_rp;
}

/*
 * 32-byte units of data from the device into the SoC (bw_in) of @t: an
 * inbound write's, an outbound read's completions.
 */
static u64 icx_bw_in(const struct sim_txn *t)
{
	bool rd = t->op == SIM_OP_RD, inbound = t->rc != SIM_NO_RC;

	if (inbound == rd)
		return 0;
	return DIV_ROUND_UP(t->size, ICX_BW_IN_BYTES) * t->count;
}

static void icx_effects(struct sim_dev *sd, const struct sim_txn *t,
			struct icx_fx *fx)
{
	u64 n = t->count, data = DIV_ROUND_UP(t->size, 4) * n;
	u64 lines = DIV_ROUND_UP(t->size, 64) * n;
	bool rd = t->op == SIM_OP_RD;

	*fx = (struct icx_fx){ .lat = t->lat_cycles, .part = icx_txn_part(t) };
	if (t->rc != SIM_NO_RC) {
		fx->req[fx->nr_req++] = (struct icx_req){
			.umask = rd ? ICX_REQ_MEM_READ : ICX_REQ_MEM_WRITE,
			.fc = rd ? ICX_FC_NONPOSTED : ICX_FC_POSTED,
			.data = data, .txns = lines,
		};
		if (rd) {
			fx->rd_lines = lines;
			/* memory's data back to the device */
			fx->cmpl = lines;
		} else {
			fx->wr_lines = lines;
			fx->lost_fwd = t->lost_fwd * n;
		}
		fx->lookups = n;
		if (t->iotlb_miss) {
			fx->misses = n;
			fx->walk_reads = n * t->walk;
			fx->walk_cyc = sim_cycles_at(sd, t->walk_lat_ns);
		} else {
			fx->hits[t->page] = n;
		}
		return;
	}
	fx->req[fx->nr_req++] = (struct icx_req){
		.by_cpu = true,
		.umask = rd ? ICX_REQ_MEM_READ : ICX_REQ_MEM_WRITE,
		.fc = rd ? ICX_FC_NONPOSTED : ICX_FC_POSTED,
		.data = data, .txns = lines,
	};
	if (!rd)
		return;
	/*
	 * The device's completions with data of the CPU's read: data
	 * requested of the CPU, but not in the completion buffer, which
	 * holds inbound reads' data
	 */
	fx->req[fx->nr_req++] = (struct icx_req){
		.umask = ICX_REQ_CMPD, .fc = ICX_FC_CMPL, .data = data, .txns = lines,
	};
}

/*
 * What @fx adds to an IIO counter programmed with @ctl: to each of *@dur
 * cycles (1 but for occupancies, whose entries stay for their latency).
 */
static u64 icx_iio_inc(u64 ctl, const struct icx_fx *fx, u64 *dur)
{
	u32 ev = FIELD_GET(ICX_CTL_EVENT, ctl), um = FIELD_GET(ICX_CTL_UMASK, ctl);
	u32 ch = FIELD_GET(ICX_CTL_CH_MASK, ctl), fc = FIELD_GET(ICX_CTL_FC_MASK, ctl);
	bool by_cpu = ev == ICX_IIO_EV_DATA_REQ_BY_CPU ||
		      ev == ICX_IIO_EV_TXN_REQ_BY_CPU;
	bool data = ev == ICX_IIO_EV_DATA_REQ_OF_CPU ||
		    ev == ICX_IIO_EV_DATA_REQ_BY_CPU;
	unsigned int i;
	u64 inc = 0;

	*dur = 1;
	switch (ev) {
	case ICX_IIO_EV_DATA_REQ_OF_CPU:
	case ICX_IIO_EV_TXN_REQ_OF_CPU:
	case ICX_IIO_EV_DATA_REQ_BY_CPU:
	case ICX_IIO_EV_TXN_REQ_BY_CPU:
		/* the IOMMU's page-walk reads: requests of 64 bytes */
		if (!by_cpu && (ch & ICX_CH_IOMMU1) && (um & ICX_REQ_MEM_READ) &&
		    (fc & ICX_FC_NONPOSTED))
			inc = fx->walk_reads * (data ? 16 : 1);
		if (!(ch & BIT(fx->part)))
			return inc;
		for (i = 0; i < fx->nr_req; i++) {
			const struct icx_req *r = &fx->req[i];

			if (r->by_cpu != by_cpu || !(um & r->umask) || !(fc & r->fc))
				continue;
			inc += data ? r->data : r->txns;
		}
		return inc;
	case ICX_IIO_EV_IOMMU0:
		for (i = 0; i < SIM_NR_PAGES; i++)
			if (um & (ICX_IOMMU0_4K_HITS << i))
				inc += fx->hits[i];
		return inc + hweight8(um & (ICX_IOMMU0_FIRST_LOOKUPS |
					    ICX_IOMMU0_ALL_LOOKUPS)) * fx->lookups +
		       hweight8(um & (ICX_IOMMU0_MISSES | ICX_IOMMU0_CTXT_LOOKUPS |
				      ICX_IOMMU0_CTXT_HITS)) * fx->misses;
	case ICX_IIO_EV_IOMMU1:
		return (um & ICX_IOMMU1_PWT_LOOKUPS ? fx->misses : 0) +
		       (um & ICX_IOMMU1_MEM_ACCESSES ? fx->walk_reads : 0);
	case ICX_IIO_EV_PWT_OCCUPANCY:
		*dur = fx->walk_cyc;
		return fx->misses;
	case ICX_IIO_EV_COMP_BUF_INSERTS:
		return (ch & BIT(fx->part)) && (fc & ICX_FC_CMPL) &&
		       (um & ICX_COMP_BUF_CMPD) ? fx->cmpl : 0;
	case ICX_IIO_EV_COMP_BUF_OCCUPANCY:
		*dur = fx->lat;
		return (um & BIT(fx->part)) && (fc & ICX_FC_CMPL) ? fx->cmpl : 0;
	}
	return 0;
}

/* What @fx adds to an IRP counter programmed with @ctl, as icx_iio_inc(). */
static u64 icx_irp_inc(u64 ctl, const struct icx_fx *fx, u64 *dur)
{
	u32 um = FIELD_GET(ICX_CTL_UMASK, ctl);

	*dur = 1;
	switch (FIELD_GET(ICX_CTL_EVENT, ctl)) {
	case ICX_IRP_EV_FAF_INSERTS:
		return fx->rd_lines;
	case ICX_IRP_EV_FAF_OCCUPANCY:
		*dur = fx->lat;
		return fx->rd_lines;
	case ICX_IRP_EV_TRANSACTIONS:
		return um & ICX_IRP_TXN_WR_PREF ? fx->wr_lines : 0;
	case ICX_IRP_EV_MISC1:
		return um & ICX_IRP_MISC1_LOST_FWD ? fx->lost_fwd : 0;
	case ICX_IRP_EV_CACHE_TOTAL_OCCUPANCY:
		*dur = fx->lat;
		return um & ICX_IRP_OCC_MEM ? fx->rd_lines + fx->wr_lines : 0;
	}
	return 0;
}

/**
 * sim_icx_cycle() - the cycle an inject lands in
 * @sd: the SoC
 * @s: the socket whose block counts it
 * @t: the batch
 *
 * The socket's block is up to date (sim_inject() brought it there), so
 * its time is now.  A flow's batch has no cycle: sim_icx_count() spreads
 * it over those the block catches up on.
 *
 * Return: the current cycle, 0 for a flow's batch.
 */
u64 sim_icx_cycle(struct sim_dev *sd, unsigned int s, const struct sim_txn *t)
{
	return t->flow ? 0 : sim_cycles_at(sd, sd->icx.part[s].unit.last_ns);
}

static u64 icx_dist(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

/**
 * sim_icx_count() - a counting general counter sees a batch
 * @ctr: the counter
 * @thr: its threshold state
 * @thresh: its threshold (0: none)
 * @val: what the batch adds to each cycle it lasts
 * @dur: those cycles: 1, or for an occupancy its entries' latency
 * @t: the batch
 * @cyc: the current cycle (sim_icx_cycle())
 * @rec: if not NULL, a flow's plan being recorded: the counter (or its
 *	 threshold's sum) goes into it and is left as it is
 *
 * Without a threshold the counter adds @val x @dur at once, as the
 * entries come.  With one, an inject is a burst: @val more in each of
 * the cycles [@cyc, @cyc + @dur), judged as they pass
 * (sim_icx_judge()); a flow's increments are spread over the cycles the
 * block catches up on.  A counter keeps SIM_ICX_NR_BURSTS bursts of
 * distinct ends at once; a further one joins the one that ends closest.
 */
void sim_icx_count(u64 *ctr, struct sim_icx_thr *thr, u32 thresh, u64 val,
		   u64 dur, const struct sim_txn *t, u64 cyc,
		   struct sim_icx_plan *rec)
{
	unsigned int i, j;
	u64 end = cyc + dur;

	if (!val || !dur)
		return;
	if (rec) {
		sim_icx_plan_add(rec, thresh ? &thr->flow : ctr, val * dur, !thresh);
		return;
	}
	if (!thresh) {
		sim_icx_ctr_add(ctr, val * dur);
		return;
	}
	if (t->flow) {
		thr->flow += val * dur;
		return;
	}
	for (i = 0; i < thr->nr && thr->end[i] != end; i++)
		;
	if (i == SIM_ICX_NR_BURSTS) {
		for (i = 0, j = 1; j < thr->nr; j++)
			if (icx_dist(thr->end[j], end) < icx_dist(thr->end[i], end))
				i = j;
	} else if (i == thr->nr) {
		thr->nr++;
		thr->end[i] = end;
		thr->val[i] = 0;
	}
	thr->val[i] += val;
}

/*
 * Record into @p that @dst gains @mul per transaction (or per item of
 * the deal being recorded); a plan that would overflow is given up.
 */
void sim_icx_plan_add(struct sim_icx_plan *p, u64 *dst, u64 mul, bool wrap)
{
	if (p->whole)
		return;
	if (p->nr_adds == SIM_ICX_PLAN_ADDS) {
		p->whole = true;
		return;
	}
	p->adds[p->nr_adds++] = (struct sim_icx_add){
		.dst = dst, .mul = mul, .deal = p->deal, .b = p->b, .wrap = wrap,
	};
}

/**
 * sim_icx_judge() - a counter with a threshold over cycles [@c0, @c1)
 * @ctr: the counter
 * @thr: its threshold state
 * @box_ctl: its box's control
 * @ctl: its control
 * @thresh: its threshold (> 0)
 * @base: what each cycle adds besides traffic (clockticks: 1)
 * @c0: the first cycle not judged yet
 * @c1: the current cycle
 *
 * Each cycle's increment is @base, plus its part of the flows'
 * increments since @c0, plus the bursts that last into it.  A flow's
 * entries come evenly spaced, so the flows' sum F over the C cycles
 * gives F / C (rounded down) to each cycle and one more to F mod C of
 * them, spread evenly: a flow whose entries are in flight 0.3 of the
 * time on average has one in flight in 3 cycles of 10, none in the
 * others.  The counter adds 1 for each cycle in which the increment is
 * at least @thresh (with inv: less), or with edge for each cycle in
 * which that holds and did not in the cycle before (where the flows'
 * extra ones alternate with the others, each run of them is one); but
 * only while it counts.  A few operations per burst, whatever the
 * number of cycles.
 */
void sim_icx_judge(u64 *ctr, struct sim_icx_thr *thr, u64 box_ctl, u64 ctl,
		   u32 thresh, u64 base, u64 c0, u64 c1)
{
	bool inv = ctl & ICX_CTL_INV, edge = ctl & ICX_CTL_EDGE, lo, hi;
	u64 c, next, x, q, rem, len, h, done = 0, n = 0;
	unsigned int i;

	if (c1 <= c0)
		return;
	q = base + div64_u64_rem(thr->flow, c1 - c0, &rem);
	thr->flow = 0;
	for (c = c0; c < c1; c = next) {
		next = c1;
		x = q;
		for (i = 0; i < thr->nr; i++) {
			if (thr->end[i] <= c)
				continue;
			x += thr->val[i];
			next = min(next, thr->end[i]);
		}
		/* h of the segment's len cycles have one more */
		len = next - c;
		h = mul_u64_u64_div_u64(rem, next - c0, c1 - c0) - done;
		done += h;
		lo = (x >= thresh) != inv;
		hi = (x + 1 >= thresh) != inv;
		if (!edge) {
			n += (lo ? len - h : 0) + (hi ? h : 0);
		} else if (lo == hi || !h || h == len) {
			/* the segment holds one value throughout */
			bool cond = h == len ? hi : lo;

			n += cond && !thr->prev;
			thr->prev = cond;
		} else {
			/* runs of the cycles whose condition holds */
			u64 on = hi ? h : len - h;

			n += min(on, len - on) + (on > len - on && !thr->prev);
			thr->prev = hi;
		}
	}
	for (i = 0; i < thr->nr;) {
		if (thr->end[i] > c1) {
			i++;
			continue;
		}
		thr->nr--;
		thr->end[i] = thr->end[thr->nr];
		thr->val[i] = thr->val[thr->nr];
	}
	if (sim_icx_counting(box_ctl, ctl))
		sim_icx_ctr_add(ctr, n);
}

/* The Ice Lake-X uncore of which @unit is socket *@s's block. */
static struct sim_icx *icx_of(struct sim_unit *unit, unsigned int *s)
{
	struct sim_icx_part *p = container_of(unit, struct sim_icx_part, unit);

	*s = p->s;
	return container_of(p - p->s, struct sim_icx, part[0]);
}

#define ICX_NO_CLK	0x100	/* no general event counts cycles */

/*
 * The kinds of boxes: their counters (a fixed one last, if any: @fixed
 * its index), the event that counts cycles, their thresholds' field.
 */
static const struct {
	u8 nr;
	u8 fixed;
	u16 clk;
	u64 thresh;
} icx_kinds[SIM_ICX_NR_KINDS] = {
	[SIM_ICX_IIO] = { ICX_IIO_NR_CTRS, 0, ICX_IIO_EV_CLOCKTICKS, ICX_CTL_THRESH },
	[SIM_ICX_IRP] = { ICX_IRP_NR_CTRS, 0, ICX_IRP_EV_CLOCKTICKS, ICX_CTL_THRESH8 },
	[SIM_ICX_CHA] = { ICX_MEM_NR_CTRS, 0, ICX_CHA_EV_CLOCKTICKS, ICX_CTL_THRESH8 },
	[SIM_ICX_IMC] = { ICX_IMC_NR_CTRS, ICX_IMC_FIXED, ICX_IMC_EV_CLOCKTICKS,
			  ICX_CTL_THRESH8 },
	[SIM_ICX_UPI] = { ICX_MEM_NR_CTRS, 0, ICX_UPI_EV_CLOCKTICKS, ICX_CTL_THRESH8 },
	[SIM_ICX_M2M] = { ICX_MEM_NR_CTRS, 0, ICX_M2M_EV_CLOCKTICKS, ICX_CTL_THRESH8 },
	[SIM_ICX_M2PCIE] = { ICX_M2PCIE_NR_CTRS, 0, ICX_M2PCIE_EV_CLOCKTICKS,
			     ICX_CTL_THRESH8 },
	[SIM_ICX_M3UPI] = { ICX_MEM_NR_CTRS, 0, ICX_M3UPI_EV_CLOCKTICKS,
			    ICX_CTL_THRESH8 },
	[SIM_ICX_PCU] = { ICX_PCU_NR_CTRS, 0, ICX_PCU_EV_CLOCKTICKS, ICX_PCU_THRESH },
	[SIM_ICX_UBOX] = { ICX_UBOX_NR_CTRS, ICX_UBOX_FIXED, ICX_NO_CLK,
			   ICX_CTL_THRESH5 },
};

/* The threshold of control @ctl of a box of kind @k (0: none) */
static u32 icx_thresh(unsigned int k, u64 ctl)
{
	u64 m = icx_kinds[k].thresh;

	return (ctl & m) >> __ffs64(m);
}

/* Box @b of kind @k of socket @s; NULL for the IMC's free-running counters. */
static struct sim_icx_box *icx_box(struct sim_icx *x, unsigned int s,
				   unsigned int k, unsigned int b)
{
	switch (k) {
	case SIM_ICX_IIO:
		return &x->st[s][b].iio;
	case SIM_ICX_IRP:
		return &x->st[s][b].irp;
	case SIM_ICX_M2PCIE:
		return &x->st[s][b].m2pcie;
	case SIM_ICX_CHA:
		return &x->mem[s].cha[b];
	case SIM_ICX_IMC:
		return &x->mem[s].imc[b];
	case SIM_ICX_UPI:
		return &x->mem[s].upi[b];
	case SIM_ICX_M2M:
		return &x->mem[s].m2m[b];
	case SIM_ICX_M3UPI:
		return &x->mem[s].m3upi[b];
	case SIM_ICX_PCU:
		return &x->pcu[s];
	case SIM_ICX_UBOX:
		return &x->ubox[s];
	}
	return NULL;
}

/*
 * The counters of @box, a stack's box of kind @k (IIO or IRP), that
 * count: each by what @fx adds to it.
 */
static void icx_stack_count(struct sim_icx_box *box, unsigned int k,
			    const struct icx_fx *fx, const struct sim_txn *t,
			    u64 cyc, struct sim_icx_plan *rec)
{
	unsigned int i;
	u64 val, dur;

	for (i = 0; box->on && i < icx_kinds[k].nr; i++) {
		u64 ctl = box->ctl[i];

		if (!sim_icx_counting(box->box_ctl, ctl))
			continue;
		val = k == SIM_ICX_IIO ? icx_iio_inc(ctl, fx, &dur) :
					 icx_irp_inc(ctl, fx, &dur);
		sim_icx_count(&box->ctr[i], &box->thr[i], icx_thresh(k, ctl),
			      val, dur, t, cyc, rec);
	}
}

/*
 * A batch to socket @s's boxes; with @rec, recorded into that plan
 * instead (sim_icx_count()), nothing counted.
 */
static void icx_deliver_to(struct sim_icx *x, unsigned int s,
			   const struct sim_txn *t, struct sim_icx_plan *rec)
{
	struct sim_dev *sd = container_of(x, struct sim_dev, icx);
	int k = icx_txn_stack(t);
	struct sim_icx_stack *st;
	struct icx_fx fx;
	u64 cyc, bw;

	/* a CPU's lines, and remote memory's side, reach only the memory side */
	if (k < 0 || s != t->socket) {
		sim_icx_mem_deliver(sd, s, t, rec);
		return;
	}
	st = &x->st[t->socket][k];
	bw = icx_bw_in(t);
	if (!rec)
		sim_icx_ctr_add(&st->bw_in[icx_txn_part(t)], bw);
	else if (bw)
		sim_icx_plan_add(rec, &st->bw_in[icx_txn_part(t)], bw, true);
	if (st->iio.on || st->irp.on) {
		icx_effects(sd, t, &fx);
		cyc = sim_icx_cycle(sd, s, t);
		icx_stack_count(&st->iio, SIM_ICX_IIO, &fx, t, cyc, rec);
		icx_stack_count(&st->irp, SIM_ICX_IRP, &fx, t, cyc, rec);
	}
	sim_icx_mem_deliver(sd, s, t, rec);
}

/*
 * A flow's batch counts by the flow's plan for this socket, made again
 * (from one transaction) when a register write has made it stale.
 */
static void icx_deliver(struct sim_unit *unit, const struct sim_txn *t)
{
	struct sim_icx_plan *p = t->plan;
	unsigned int s;
	struct sim_icx *x = icx_of(unit, &s);

	if (p && p->gen != x->gen) {
		struct sim_txn one = *t;

		one.count = 1;
		*p = (struct sim_icx_plan){ .gen = x->gen, .deal = SIM_ICX_NO_DEAL };
		icx_deliver_to(x, s, &one, p);
	}
	if (p && !p->whole)
		sim_icx_plan_apply(p, t->count);
	else
		icx_deliver_to(x, s, t, NULL);
}

/* Counter @i of a box of kind @k is its fixed counter (the IMC's, UBOX's). */
static bool icx_fixed(unsigned int k, unsigned int i)
{
	return icx_kinds[k].fixed && i == icx_kinds[k].fixed;
}

/*
 * Does counter @i of @box, of kind @k, count cycles (clockticks, a fixed
 * counter, the PCU's POWER_STATE_OCCUPANCY)?  Its threshold into
 * *@thresh (0: none; a fixed counter has none).  Cycles advance it if
 * either.
 */
static bool icx_is_clk(const struct sim_icx_box *box, unsigned int k,
		       unsigned int i, u32 *thresh)
{
	u64 ctl = box->ctl[i];
	u32 ev = FIELD_GET(ICX_CTL_EVENT, ctl);

	if (icx_fixed(k, i)) {
		*thresh = 0;
		return true;
	}
	*thresh = icx_thresh(k, ctl);
	return ev == icx_kinds[k].clk ||
	       (k == SIM_ICX_PCU && ev == ICX_PCU_EV_POWER_STATE_OCCUPANCY);
}

/*
 * What each cycle adds to counter @i of @box, of kind @k, which counts
 * cycles (icx_is_clk()): 1, or for the PCU's POWER_STATE_OCCUPANCY the
 * cores in the C-state its occ_sel names (none for occ_sel 0).
 */
static u64 icx_per_cycle(const struct sim_icx *x,
			 const struct sim_icx_box *box, unsigned int k,
			 unsigned int i)
{
	u64 ctl = box->ctl[i];
	u32 occ = FIELD_GET(ICX_PCU_OCC_SEL, ctl);

	if (k != SIM_ICX_PCU ||
	    FIELD_GET(ICX_CTL_EVENT, ctl) != ICX_PCU_EV_POWER_STATE_OCCUPANCY)
		return 1;
	return occ ? x->cores[occ - ICX_OCC_C0] : 0;
}

/*
 * The cycles [@c0, @c1) of @box, of kind @k: its clockticks, fixed and
 * occupancy counters, and the judgement of its counters with a
 * threshold.
 */
static void icx_box_tick(const struct sim_icx *x, struct sim_icx_box *box,
			 unsigned int k, u64 c0, u64 c1)
{
	unsigned int i;

	for (i = 0; i < icx_kinds[k].nr; i++) {
		u64 ctl = box->ctl[i], per;
		u32 thresh;
		bool is_clk = icx_is_clk(box, k, i, &thresh);

		per = is_clk ? icx_per_cycle(x, box, k, i) : 0;
		if (thresh)
			sim_icx_judge(&box->ctr[i], &box->thr[i], box->box_ctl,
				      ctl, thresh, per, c0, c1);
		else if (per && sim_icx_counting(box->box_ctl, ctl))
			sim_icx_ctr_add(&box->ctr[i], per * (c1 - c0));
	}
}

/* The first kind with a box that ticks on socket @p; SIM_ICX_NR_KINDS: none */
static unsigned int icx_first_tick(const struct sim_icx_part *p)
{
	unsigned int k;

	for (k = 0; k < SIM_ICX_NR_KINDS && !p->tick[k]; k++)
		;
	return k;
}

/*
 * The cycles of socket @unit's boxes up to @now: only those in
 * &sim_icx_part.tick (the free-running ioclk is read as cycles since
 * &sim_icx_part.ioclk_ns).
 */
static void icx_tick(struct sim_unit *unit, u64 now)
{
	struct sim_icx_part *p = container_of(unit, struct sim_icx_part, unit);
	unsigned int s, k, b;
	struct sim_icx *x = icx_of(unit, &s);
	struct sim_dev *sd = container_of(x, struct sim_dev, icx);
	u64 c0, c1;

	k = icx_first_tick(p);
	c0 = sim_cycles_at(sd, unit->last_ns);
	c1 = sim_cycles_at(sd, now);
	for (; k < SIM_ICX_NR_KINDS; k++)
		for_each_set_bit(b, &p->tick[k], BITS_PER_LONG)
			icx_box_tick(x, icx_box(x, s, k, b), k, c0, c1);
}

/* ---- register interface ------------------------------------------------ */

/* Entry @off (8-aligned) of &sim_icx.map: a @type register of box @b of kind @kind. */
void sim_icx_map_set(struct sim_icx *x, u32 off, unsigned int type,
		     unsigned int kind, unsigned int b, unsigned int idx)
{
	x->map[off / 8] = FIELD_PREP(SIM_ICX_REG_TYPE, type) |
			  FIELD_PREP(SIM_ICX_REG_KIND, kind) |
			  FIELD_PREP(SIM_ICX_REG_BOX, b) |
			  FIELD_PREP(SIM_ICX_REG_IDX, idx);
}

/* Every PMU register of a socket's window, into &sim_icx.map. */
static void icx_map(struct sim_icx *x)
{
	unsigned int i, b;

	memset(x->map, 0, sizeof(x->map));
	for (b = 0; b < ICX_NR_STACKS; b++) {
		u32 o = icx_box_off[b];

		sim_icx_map_set(x, ICX_IIO_BOX_CTL(o), SIM_ICX_R_BOX_CTL,
				SIM_ICX_IIO, b, 0);
		sim_icx_map_set(x, ICX_IRP_BOX_CTL(o), SIM_ICX_R_BOX_CTL,
				SIM_ICX_IRP, b, 0);
		sim_icx_map_set(x, ICX_M2PCIE_BOX_CTL(o), SIM_ICX_R_BOX_CTL,
				SIM_ICX_M2PCIE, b, 0);
		for (i = 0; i < ICX_IIO_NR_CTRS; i++) {
			sim_icx_map_set(x, ICX_IIO_CTL(o, i), SIM_ICX_R_CTL,
					SIM_ICX_IIO, b, i);
			sim_icx_map_set(x, ICX_IIO_CTR(o, i), SIM_ICX_R_CTR,
					SIM_ICX_IIO, b, i);
		}
		for (i = 0; i < ICX_IRP_NR_CTRS; i++) {
			sim_icx_map_set(x, ICX_IRP_CTL(o, i), SIM_ICX_R_CTL,
					SIM_ICX_IRP, b, i);
			sim_icx_map_set(x, ICX_IRP_CTR(o, i), SIM_ICX_R_CTR,
					SIM_ICX_IRP, b, i);
		}
		for (i = 0; i < ICX_M2PCIE_NR_CTRS; i++) {
			sim_icx_map_set(x, ICX_M2PCIE_CTL(o, i), SIM_ICX_R_CTL,
					SIM_ICX_M2PCIE, b, i);
			sim_icx_map_set(x, ICX_M2PCIE_CTR(o, i), SIM_ICX_R_CTR,
					SIM_ICX_M2PCIE, b, i);
		}
		sim_icx_map_set(x, ICX_IIO_IOCLK(o), SIM_ICX_R_IOCLK,
				SIM_ICX_IIO, b, 0);
		for (i = 0; i < ICX_NR_PARTS; i++)
			sim_icx_map_set(x, ICX_IIO_BW_IN(icx_bw_off[b], i),
					SIM_ICX_R_BW_IN, SIM_ICX_IIO, b, i);
	}
	/* the PCU and the UBOX (no box control) */
	sim_icx_map_set(x, ICX_PCU_BOX_CTL, SIM_ICX_R_BOX_CTL, SIM_ICX_PCU, 0, 0);
	sim_icx_map_set(x, ICX_PCU_FILTER, SIM_ICX_R_FILTER, SIM_ICX_PCU, 0, 0);
	for (i = 0; i < ICX_PCU_NR_CTRS; i++) {
		sim_icx_map_set(x, ICX_PCU_CTL(i), SIM_ICX_R_CTL, SIM_ICX_PCU, 0, i);
		sim_icx_map_set(x, ICX_PCU_CTR(i), SIM_ICX_R_CTR, SIM_ICX_PCU, 0, i);
	}
	for (i = 0; i < ICX_UBOX_NR_GP; i++) {
		sim_icx_map_set(x, ICX_UBOX_CTL(i), SIM_ICX_R_CTL, SIM_ICX_UBOX, 0, i);
		sim_icx_map_set(x, ICX_UBOX_CTR(i), SIM_ICX_R_CTR, SIM_ICX_UBOX, 0, i);
	}
	sim_icx_map_set(x, ICX_UBOX_FIXED_CTL, SIM_ICX_R_CTL, SIM_ICX_UBOX, 0,
			ICX_UBOX_FIXED);
	sim_icx_map_set(x, ICX_UBOX_FIXED_CTR, SIM_ICX_R_CTR, SIM_ICX_UBOX, 0,
			ICX_UBOX_FIXED);
	sim_icx_mem_map(x);
}

/* The register at @off (8-aligned) of socket @s's window, if any. */
static bool icx_ref(struct sim_icx *x, u32 s, u32 off, struct sim_icx_ref *r)
{
	u32 e = x->map[off / 8];
	struct sim_icx_box *box;

	r->type = FIELD_GET(SIM_ICX_REG_TYPE, e);
	if (r->type == SIM_ICX_R_NONE)
		return false;
	r->kind = FIELD_GET(SIM_ICX_REG_KIND, e);
	r->b = FIELD_GET(SIM_ICX_REG_BOX, e);
	r->idx = FIELD_GET(SIM_ICX_REG_IDX, e);
	box = icx_box(x, s, r->kind, r->b);
	r->box = box;
	switch (r->type) {
	case SIM_ICX_R_BOX_CTL:
		r->reg = &box->box_ctl;
		break;
	case SIM_ICX_R_CTL:
		r->reg = &box->ctl[r->idx];
		break;
	case SIM_ICX_R_CTR:
		r->reg = &box->ctr[r->idx];
		break;
	case SIM_ICX_R_FILTER:
		r->reg = &box->filter;
		break;
	case SIM_ICX_R_BW_IN:
		r->reg = &x->st[s][r->b].bw_in[r->idx];
		break;
	default:
		r->reg = NULL;
	}
	return true;
}

/*
 * The masks of socket @s in which box @ref->b of its kind belongs, after
 * a write to one of its controls.
 */
static void icx_box_masks(struct sim_icx *x, u32 s, const struct sim_icx_ref *r)
{
	struct sim_icx_part *p = &x->part[s];
	unsigned long b = r->b, on = r->box->on;
	bool tick = false;
	unsigned int i;
	u32 thresh;

	for_each_set_bit(i, &on, icx_kinds[r->kind].nr)
		tick |= icx_is_clk(r->box, r->kind, i, &thresh) || thresh;
	__assign_bit(b, &p->on[r->kind], on);
	__assign_bit(b, &p->tick[r->kind], tick);
	/* a catch-up calls no tick while no box of the socket has one */
	p->unit.tick = icx_first_tick(p) < SIM_ICX_NR_KINDS ? icx_tick : NULL;
}

/*
 * The topology registers of socket @s.  Link l of socket s goes to link
 * l of socket (s + 1) % sockets, where the traffic model's remote memory
 * is; on one socket no link is up.  Every socket has the same CHAs.
 */
static u64 icx_topo_read(struct sim_dev *sd, u32 s, u32 off)
{
	unsigned int k, p;

	if (off == ICX_TOPO_CHA_CAP)
		return GENMASK_ULL(sd->icx.nr_chas - 1, 0);

	for (k = 0; k < ICX_NR_UPIS; k++)
		if (off == ICX_TOPO_UPI(k) && sd->nr_sockets > 1)
			return ICX_UPI_TOPO_UP | FIELD_PREP(ICX_UPI_TOPO_PORT, k) |
			       FIELD_PREP(ICX_UPI_TOPO_DIE, sim_icx_peer(sd, s));
	for (k = 0; k < ICX_NR_STACKS; k++) {
		if (off == ICX_TOPO_STACK(k))
			return ICX_TOPO_VALID |
			       FIELD_PREP(ICX_TOPO_BUS, icx_root_bus(s, k));
		for (p = 0; p < ICX_NR_PARTS; p++) {
			if (off != ICX_TOPO_PORT(k, p) || !icx_port(k, p))
				continue;
			return ICX_PORT_PRESENT |
			       FIELD_PREP(ICX_PORT_DEVFN, PCI_DEVFN(2 + p, 0)) |
			       FIELD_PREP(ICX_PORT_SEC_BUS, icx_root_bus(s, k) + 1 + p) |
			       FIELD_PREP(ICX_PORT_SPEED, icx_ports[k].speed[p]) |
			       FIELD_PREP(ICX_PORT_WIDTH, icx_ports[k].width[p]);
		}
	}
	return 0;
}

static u64 icx_regs_read(struct sim_regs *r, u32 off, bool wide)
{
	struct sim_icx *x = container_of(r, struct sim_icx, regs);
	struct sim_dev *sd = r->sd;
	u32 s = off / ICX_SOCKET_STRIDE, woff = off % ICX_SOCKET_STRIDE & ~7U;
	struct sim_icx_ref ref;
	u64 v;

	if (s >= sd->nr_sockets)
		return 0;
	if (!icx_ref(x, s, woff, &ref))
		v = icx_topo_read(sd, s, woff);
	else if (ref.reg)
		v = *ref.reg;
	else if (ref.type == SIM_ICX_R_MEM_FR)
		v = sim_icx_mem_fr(&x->mem[s], ref.b, ref.idx);
	else	/* ioclk, dclk */
		v = (sim_cycles_at(sd, x->part[s].unit.last_ns) -
		     sim_cycles_at(sd, x->part[s].ioclk_ns)) &
		    GENMASK_ULL(ICX_CTR_BITS - 1, 0);
	if (wide)
		return off & 4 ? 0 : v;
	return off & 4 ? upper_32_bits(v) : lower_32_bits(v);
}

/*
 * A write: a box control's resets and freeze bit, a counter control's
 * reset of its counter; the upper half of a control as is.  A counter
 * whose control is written (or cleared) forgets its threshold state.
 */
static void icx_regs_write(struct sim_regs *r, u32 off, u32 val)
{
	struct sim_icx *x = container_of(r, struct sim_icx, regs);
	u32 s = off / ICX_SOCKET_STRIDE, woff = off % ICX_SOCKET_STRIDE & ~7U;
	struct sim_icx_box *box;
	struct sim_icx_ref ref;
	bool ctl;

	/* counters are read-only */
	if (s >= r->sd->nr_sockets || !icx_ref(x, s, woff, &ref) ||
	    (ref.type != SIM_ICX_R_BOX_CTL && ref.type != SIM_ICX_R_CTL &&
	     ref.type != SIM_ICX_R_FILTER))
		return;
	x->gen++;
	box = ref.box;
	ctl = ref.type == SIM_ICX_R_CTL;
	if (ctl)
		box->thr[ref.idx] = (struct sim_icx_thr){};
	if (off & 4) {		/* the upper half: ch_mask, fc_mask, thresh */
		*ref.reg = (u64)val << 32 | lower_32_bits(*ref.reg);
	} else if (ref.type == SIM_ICX_R_BOX_CTL) {
		if (val & ICX_BOX_CTL_RST_CTRL) {
			memset(box->ctl, 0, sizeof(box->ctl));
			memset(box->thr, 0, sizeof(box->thr));
			box->on = 0;
		}
		if (val & ICX_BOX_CTL_RST_CTRS)
			memset(box->ctr, 0, sizeof(box->ctr));
		box->box_ctl = val & (ICX_BOX_CTL_FRZ | ICX_BOX_CTL_FRZ_EN);
	} else {
		*ref.reg = (*ref.reg & GENMASK_ULL(63, 32)) | (val & ~(u32)ICX_CTL_RST);
		if (ctl) {
			if (val & ICX_CTL_RST)
				box->ctr[ref.idx] = 0;
			if (val & ICX_CTL_EN)
				box->on |= BIT(ref.idx);
			else
				box->on &= ~BIT(ref.idx);
		}
	}
	icx_box_masks(x, s, &ref);
}

/* Each socket's window is its block. */
static struct sim_unit *icx_unit_at(struct sim_regs *r, u32 off)
{
	struct sim_icx *x = container_of(r, struct sim_icx, regs);
	u32 s = off / ICX_SOCKET_STRIDE;

	return s < r->sd->nr_sockets ? &x->part[s].unit : NULL;
}

static void icx_regs_xfer(void *ctx, struct upmu_reg_xfer *x, unsigned int n)
{
	sim_regs_xfer(ctx, x, n, icx_unit_at, icx_regs_read, icx_regs_write);
}

static const struct upmu_regs_ops sim_icx_regs_ops = {
	.xfer = icx_regs_xfer,
};

/* ---- the block type ----------------------------------------------------- */

static void sim_icx_init(struct sim_dev *sd)
{
	struct sim_icx *x = &sd->icx;
	unsigned int s;

	for (s = 0; s < SIM_MAX_SOCKETS; s++) {
		x->part[s].s = s;
		sim_unit_init(sd, &x->part[s].unit, NULL, icx_deliver);
		x->part[s].unit.plan_size = sizeof(struct sim_icx_plan);
		x->part[s].ioclk_ns = x->part[s].unit.last_ns;
	}
	x->gen = 1;
	x->regs.ops = &sim_icx_regs_ops;
	x->regs.sd = sd;
	x->regs.pure_size = U32_MAX;
	x->regs.size = ICX_SOCKET_STRIDE * sd->nr_sockets;
	strscpy(x->regs.name, "icx", sizeof(x->regs.name));
}

/* "C0:C3:C6", the cores of each socket in each C-state, into @cores */
static int icx_cstate_parse(const char *val, u32 *cores)
{
	int n = 0;

	if (sscanf(val, "%u:%u:%u%n", &cores[SIM_ICX_C0], &cores[SIM_ICX_C3],
		   &cores[SIM_ICX_C6], &n) != 3 || (val[n] && val[n] != '\n'))
		return -EINVAL;
	/* each at most SIM_ICX_MAX_CORES: no sum of them wraps */
	if (cores[SIM_ICX_C0] > SIM_ICX_MAX_CORES ||
	    cores[SIM_ICX_C3] > SIM_ICX_MAX_CORES ||
	    cores[SIM_ICX_C6] > SIM_ICX_MAX_CORES ||
	    cores[SIM_ICX_C0] + cores[SIM_ICX_C3] + cores[SIM_ICX_C6] >
	    SIM_ICX_MAX_CORES)
		return -EINVAL;
	return 0;
}

/*
 * debugfs cstate: "C0:C3:C6", the cores of each socket in each state.
 * A write takes effect now: the cycles before it count the old split.
 */
static int icx_cstate_show(struct seq_file *m, void *v)
{
	struct sim_dev *sd = m->private;
	unsigned long flags;
	u32 c[SIM_ICX_NR_CSTATES];

	flags = sim_lock(sd);
	memcpy(c, sd->icx.cores, sizeof(c));
	sim_unlock(sd, flags);
	seq_printf(m, "%u:%u:%u\n", c[SIM_ICX_C0], c[SIM_ICX_C3], c[SIM_ICX_C6]);
	return 0;
}

static int icx_cstate_open(struct inode *inode, struct file *file)
{
	return single_open(file, icx_cstate_show, inode->i_private);
}

static ssize_t icx_cstate_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct sim_dev *sd = ((struct seq_file *)file->private_data)->private;
	u32 c[SIM_ICX_NR_CSTATES];
	unsigned long flags;
	char *buf;
	int ret;

	buf = sim_user_buf(ubuf, len, SIM_CMD_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = icx_cstate_parse(buf, c);
	kfree(buf);
	if (ret)
		return ret;
	flags = sim_lock(sd);
	sim_catch_up(sd, sim_now(sd));
	memcpy(sd->icx.cores, c, sizeof(c));
	sim_unlock(sd, flags);
	return len;
}

static const struct file_operations icx_cstate_fops = {
	.owner = THIS_MODULE,
	.open = icx_cstate_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = icx_cstate_write,
};

static int sim_icx_add(struct sim_dev *sd)
{
	const struct property_entry props[] = {
		PROPERTY_ENTRY_U32("nr-sockets", sd->nr_sockets),
		{ }
	};

	debugfs_create_file("cstate", 0600, sd->ddir, sd, &icx_cstate_fops);
	icx_map(&sd->icx);
	sd->icx.pdev = sim_add_pdev(sd, "upmu-icx-uncore", &sd->icx.regs, 0, 0,
				    props);
	return PTR_ERR_OR_ZERO(sd->icx.pdev);
}

static void sim_icx_del(struct sim_dev *sd)
{
	sim_del_pdev(&sd->icx.pdev);
}

static unsigned int sim_icx_units(struct sim_dev *sd, const struct sim_txn *t,
				  struct sim_unit **u)
{
	u32 ms = sim_icx_home(sd, t);

	if (!sim_has(sd, SIM_BLK_ICX))
		return 0;
	u[0] = &sd->icx.part[t->socket].unit;
	/* remote memory's channels and links */
	if (ms == t->socket)
		return 1;
	u[1] = &sd->icx.part[ms].unit;
	return 2;
}

/*
 * The fastest counter a transaction advances: an occupancy (lines x
 * latency), or the 4-byte data units (more than a CPU line's 9 flits).
 */
static unsigned int sim_icx_reach(struct sim_dev *sd, const struct sim_txn *t,
				  struct sim_reach *r)
{
	u64 lat = max(sim_cycles_at(sd, t->lat_ns), 1ULL);

	if (!sim_has(sd, SIM_BLK_ICX))
		return 0;
	r[0] = (struct sim_reach){
		.load = &sd->icx.load[t->socket],
		.units = DIV_ROUND_UP(t->size, 4),
		.value = 1, .div = 1,
		.max_per_ns = ICX_MAX_PER_NS, .width = ICX_CTR_BITS,
	};
	/* a miss's page-walk reads, 16 units each */
	if (t->iotlb_miss)
		r[0].units = max_t(u64, r[0].units, 16 * t->walk);
	r[1] = r[0];
	r[1].units = DIV_ROUND_UP(t->size, 64);
	r[1].value = lat;
	/* the walk's occupancy */
	r[2] = r[1];
	r[2].units = 1;
	r[2].value = max(sim_cycles_at(sd, t->walk_lat_ns), 1ULL);
	return 3;
}

static void sim_icx_catch_up(struct sim_dev *sd, u64 now)
{
	unsigned int s;

	for (s = 0; sim_has(sd, SIM_BLK_ICX) && s < sd->nr_sockets; s++)
		sim_unit_catch_up(sd, &sd->icx.part[s].unit, now);
}

/*
 * An inbound transaction comes from the device below rc= (stack) rp=
 * (part), or the one bdf= names; an outbound one goes to the device
 * below to_rc= to_rp=.  Without a part, the stack's first root port.
 * A CPU's access of memory (src=loc_cpu) has neither.
 */
static int sim_icx_resolve(struct sim_dev *sd, struct sim_txn *t, u32 has)
{
	unsigned int p;
	u32 bus;

	if ((t->rc != SIM_NO_RC && t->to_rc != SIM_NO_RC) || t->hdm || t->addr ||
	    (t->op != SIM_OP_RD && t->op != SIM_OP_WR) ||
	    sim_icx_mem_resolve(sd, t))
		return -EINVAL;
	/* a code read is a CPU's read; only a core's request has a thread */
	if ((t->code && (!sim_icx_cpu_txn(t) || t->op != SIM_OP_RD)) ||
	    ((has & SIM_HAS_TID) && !sim_icx_cpu_txn(t)) ||
	    ((has & SIM_HAS_MEM) && t->to_rc != SIM_NO_RC))
		return -EINVAL;
	if (t->to_rc != SIM_NO_RC) {
		if (t->to_rc >= ICX_NR_STACKS || t->src == SIM_SRC_LOC_NONCPU)
			return -EINVAL;
		for (p = 0; p < ICX_NR_PARTS; p++)
			if (icx_port(t->to_rc, p) &&
			    (!(has & SIM_HAS_TO_RP) || p == t->to_rp))
				break;
		if (p == ICX_NR_PARTS)
			return -EINVAL;
		t->to_rp = p;
		return has & (SIM_HAS_RP | SIM_HAS_BDF | SIM_HAS_IOMMU |
			      SIM_HAS_LOST_FWD) ? -EINVAL : 0;
	}
	if (has & SIM_HAS_TO_RP)
		return -EINVAL;
	if (t->rc == SIM_NO_RC && (has & (SIM_HAS_IOMMU | SIM_HAS_LOST_FWD)))
		return -EINVAL;
	/* a lost forward is a line of an inbound write's */
	if ((has & SIM_HAS_LOST_FWD) &&
	    (t->op != SIM_OP_WR || t->lost_fwd > DIV_ROUND_UP(t->size, 64)))
		return -EINVAL;
	/* a CPU's access of memory: its core is the requester */
	if (t->rc == SIM_NO_RC)
		return has & (SIM_HAS_RP | SIM_HAS_BDF) ||
		       t->src != SIM_SRC_LOC_CPU ? -EINVAL : 0;
	if (t->rc >= ICX_NR_STACKS || t->src != SIM_SRC_LOC_NONCPU)
		return -EINVAL;
	bus = t->bdf >> 8;
	for (p = 0; p < ICX_NR_PARTS; p++) {
		if (!icx_port(t->rc, p))
			continue;
		if (has & SIM_HAS_BDF ?
		    bus == icx_root_bus(t->socket, t->rc) + 1 + p :
		    !(has & SIM_HAS_RP) || p == t->rp)
			break;
	}
	if (p == ICX_NR_PARTS || (has & SIM_HAS_RP && p != t->rp))
		return -EINVAL;
	t->rp = p;
	if (!(has & SIM_HAS_BDF))
		t->bdf = (icx_root_bus(t->socket, t->rc) + 1 + p) << 8;
	return 0;
}

static void sim_icx_show_devices(struct sim_dev *sd, struct seq_file *m)
{
	unsigned int s, k, p;

	for (s = 0; s < sd->nr_sockets; s++) {
		for (k = 0; k < ICX_NR_STACKS; k++) {
			u32 bus = icx_root_bus(s, k);

			for (p = 0; p < ICX_NR_PARTS; p++) {
				if (!icx_port(k, p))
					continue;
				seq_printf(m, "0000:%02x:%02x.0 root_port socket=%u stack=%u part=%u gen=%u width=x%u link_gen=%u link_width=x%u\n",
					   bus, 2 + p, s, k, p, icx_ports[k].speed[p],
					   icx_ports[k].width[p],
					   sd->icx.link_gen[k][p] ?: icx_ports[k].speed[p],
					   sd->icx.link_width[k][p] ?: icx_ports[k].width[p]);
				seq_printf(m, "0000:%02x:00.0 endpoint socket=%u stack=%u part=%u\n",
					   bus + 1 + p, s, k, p);
			}
		}
	}
}

/*
 * The most an enabled counter of socket @s's PCU adds per cycle: 1, or
 * an occupancy's cores (with a threshold: 1)
 */
static u64 icx_pcu_per_cycle(const struct sim_icx *x, unsigned int s)
{
	const struct sim_icx_box *box = &x->pcu[s];
	unsigned int i;
	u64 per = 1;

	for (i = 0; box->on && i < ICX_PCU_NR_CTRS; i++)
		if ((box->on & BIT(i)) && !icx_thresh(SIM_ICX_PCU, box->ctl[i]))
			per = max(per, icx_per_cycle(x, box, SIM_ICX_PCU, i));
	return per;
}

/*
 * A jump of the manual clock: the clock counters (an enabled C-state
 * occupancy: its cores per cycle), and the flows' fastest counters,
 * advance by at most half of 48 bits.
 */
static int sim_icx_advance_check(struct sim_dev *sd, u64 ns)
{
	u64 rate = (u64)sd->clock_mhz * 1000000, per = 1;
	unsigned int s;

	for (s = 0; s < sd->nr_sockets; s++)
		per = max(per, icx_pcu_per_cycle(&sd->icx, s));
	rate *= per;

	for (s = 0; s < sd->nr_sockets; s++)
		rate = max(rate, sd->icx.load[s]);
	return mul_u64_u64_div_u64(ns, rate, NSEC_PER_SEC) >
	       BIT_ULL(ICX_CTR_BITS - 1) ? -ERANGE : 0;
}

/* cha=N: the CHAs of each socket, 1 to ICX_MAX_CHAS. */
/*
 * link=K.P:G:W: the link of part P of stack K (on every socket) trained
 * at PCIe generation G with W lanes, below what its root port and device
 * can do (gen= and width= of pci_devices), as a link that trained down
 * does (a bad slot, a riser); pci_devices shows it as link_gen= and
 * link_width=, as sysfs' current_link_speed and _width.
 */
static int sim_icx_link_opt(struct sim_dev *sd, const char *val)
{
	unsigned int k, p, g, w;
	int n = 0;

	if (sscanf(val, "%u.%u:%u:%u%n", &k, &p, &g, &w, &n) != 4 || val[n] ||
	    !icx_port(k, p) || !g || g > icx_ports[k].speed[p] || !w ||
	    w > icx_ports[k].width[p] || !is_power_of_2(w))
		return -EINVAL;
	sd->icx.link_gen[k][p] = g;
	sd->icx.link_width[k][p] = w;
	return 0;
}

/*
 * cstate=C0:C3:C6: the cores of each socket in C0/C1, C3 and C6/C7, as
 * the PCU's POWER_STATE_OCCUPANCY counts them; without it, cha= cores
 * (one per CHA, as on silicon) in C0.  debugfs cstate changes it.
 */
static int sim_icx_opt(struct sim_dev *sd, const char *key, const char *val)
{
	u32 n;

	if (!strcmp(key, "link"))
		return sim_icx_link_opt(sd, val);
	if (!strcmp(key, "cstate")) {
		sd->icx.cstate_set = true;
		return icx_cstate_parse(val, sd->icx.cores);
	}
	if (strcmp(key, "cha"))
		return -ENOENT;
	if (kstrtou32(val, 0, &n) || !n || n > ICX_MAX_CHAS)
		return -EINVAL;
	sd->icx.nr_chas = n;
	return 0;
}

/*
 * cha=, link= and cstate= only on an Ice Lake-X; SIM_ICX_DEF_CHAS
 * without cha=, that many cores in C0 without cstate=.
 */
static int sim_icx_check_opts(struct sim_dev *sd)
{
	bool links = memchr_inv(sd->icx.link_gen, 0, sizeof(sd->icx.link_gen));

	if (!sim_has(sd, SIM_BLK_ICX) &&
	    (sd->icx.nr_chas || links || sd->icx.cstate_set))
		return -EINVAL;
	if (!sd->icx.nr_chas)
		sd->icx.nr_chas = SIM_ICX_DEF_CHAS;
	if (!sd->icx.cstate_set)
		sd->icx.cores[SIM_ICX_C0] = sd->icx.nr_chas;
	return 0;
}

const struct sim_block_type sim_icx_type = {
	.name		= "icx",
	.blocks		= BIT(SIM_BLK_ICX),
	.init		= sim_icx_init,
	.add		= sim_icx_add,
	.del		= sim_icx_del,
	.units		= sim_icx_units,
	.reach		= sim_icx_reach,
	.catch_up	= sim_icx_catch_up,
	.resolve	= sim_icx_resolve,
	.show_devices	= sim_icx_show_devices,
	.advance_check	= sim_icx_advance_check,
	.opt		= sim_icx_opt,
	.check_opts	= sim_icx_check_opts,
};
