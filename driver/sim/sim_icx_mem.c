// SPDX-License-Identifier: GPL-2.0
/*
 * The memory side of the simulated Ice Lake-X (soc=icx, sim_icx.c's
 * block): per socket new_device's cha= CHAs (8 by default, up to 40,
 * reported in ICX_TOPO_CHA_CAP), each with an L3 slice that DDIO
 * allocates into, ICX_NR_IMCS memory channels and ICX_NR_UPIS UPI
 * links to the other socket, each a PMU box of 4 counters
 * (hw/icx_uncore.h).
 *
 * A device's inbound transaction of S bytes (stack=, op=rd|wr, count=)
 * is ceil(S/64) lines: a read is PCIRDCUR lines; a write is floor(S/64)
 * full lines (ITOM) and, if S is not a multiple of 64, one partial line
 * (ITOMCACHENEAR).  A CPU's access of memory of S bytes (no stack=,
 * src=loc_cpu) is ceil(S/64) lines of a core of the socket: a read is
 * demand data reads (DRD), with code=1 code reads (CRD), a write reads
 * for ownership (RFO; the line's write-back comes later, not modelled).
 * hit=1: the lines hit in the L3, else they miss; dst=rem: the memory
 * is the other socket's (socket (s + 1) % sockets), else local
 * (dst=loc_cmem, the default); mem=pmm: the memory is persistent memory
 * (PMM) behind the channels, else DRAM (mem=ddr, the default).  Each
 * line:
 *
 *   goes to one CHA of the requester's socket, the n-th line of its
 *	kind to CHA n % cha= (counting every line of that kind the
 *	socket has seen), where it advances TOR_INSERTS (0x35) by 1 and
 *	TOR_OCCUPANCY (0x36) by the transaction's latency (lat=, in
 *	cycles of the clock), when the umask (ICX_TOR_*) has the
 *	requester's bit (IO for a device, IA for a core), the line's
 *	opcode exactly, its outcome (hit or miss), its target (local or
 *	remote) and its memory (DDR or PMM, ICX_TOR_DDR / ICX_TOR_PMM)
 *   when it misses: is a request into a home agent of the memory's
 *	socket, the n-th of each kind to CHA n % cha=: REQUESTS (0x50)
 *	READS for a read (PCIRDCUR, DRD, CRD, RFO), WRITES for a full or
 *	partial write, _LOCAL when the requester is of that socket, else
 *	_REMOTE (ICX_REQ_*); and costs memory commands there, the n-th of
 *	each kind on channel n % ICX_NR_IMCS: a read (DRD, CRD and RFO
 *	too) 1 read, a full write 1 write, a partial write 1 read and 1
 *	write (the rest of the line): of DRAM, CAS_COUNT (0x04) with umask
 *	bits of ICX_CAS_RD / ICX_CAS_WR; of PMM, inserts into its read and
 *	write queues, PMM_RPQ_INSERTS (0xe3) and PMM_WPQ_INSERTS (0xe7)
 *   when it is read from memory (a read's line, a partial write's
 *	rest): is a lookup of the line's directory state by M2M n %
 *	ICX_NR_M2MS of the memory's socket (the n-th lookup there),
 *	DIRECTORY_LOOKUP (0x2d) ANY and STATE_I: the line is in state I,
 *	no other socket has it; a hit, DIRECTORY_HIT (0x2a) CLEAN_I, unless
 *	a core of the other socket reads it (DRD, CRD, RFO of dst=rem),
 *	which will cache it: then a miss, DIRECTORY_MISS (0x2b) CLEAN_I,
 *	that changes the state, DIRECTORY_UPDATE (0x2e) ANY, and costs one
 *	more write of the memory (CAS or PMM).  A device's read (PCIRDCUR)
 *	keeps no copy: no update.  The CHAs update no directory (their
 *	DIR_UPDATE, 0x54, counts nothing)
 *   when it misses remote memory: crosses UPI link n % ICX_NR_UPIS
 *	(the n-th line the requester's socket sent or fetched) of both
 *	sockets as 9 data flits one way (a read's data to the requester's
 *	socket, a write's from it) and 1 non-data flit the other way (the
 *	read's request, the write's completion): TxL_FLITS (0x02) and
 *	RxL_FLITS (0x03) with umask ICX_FLITS_ALL_DATA or _NON_DATA
 *
 * Hits cost no CAS and no flits.  Clockticks (CHA and IMC event 0x00,
 * UPI 0x01) advance once per cycle of the clock (clock_mhz); the links
 * never enter L1 (L1_POWER_CYCLES, 0x21, stays 0).  A TOR umask of all
 * opcodes (UNC_CHA_TOR_INSERTS.IA, .IO, ..._MISS) counts nothing: the
 * opcode is matched exactly.  A counter whose control has tid_en counts
 * only a core's requests whose thread (tid=) is the CHA's filter0 TID, a
 * device's never.  Other events count nothing; a threshold (thresh,
 * inv, edge) makes a counter count cycles (sim_icx_judge()).  The split
 * of lines over boxes is exact for traffic given in order (injects); the
 * sum over the boxes of a socket is exact for any traffic.  A delivery
 * costs a few operations per box, whatever the batch's size.
 */

#include <linux/bitfield.h>
#include <linux/math64.h>

#include "sim.h"

static const u32 icx_cha_off[ICX_MAX_CHAS] = ICX_CHA_OFFSETS;
static const u32 icx_opc[SIM_ICX_NR_LINES] = {
	[SIM_ICX_RD] = ICX_OPC_PCIRDCUR,
	[SIM_ICX_WR_FULL] = ICX_OPC_ITOM,
	[SIM_ICX_WR_PART] = ICX_OPC_ITOMCACHENEAR,
	[SIM_ICX_DRD] = ICX_OPC_IA_DRD,
	[SIM_ICX_RFO] = ICX_OPC_IA_RFO,
	[SIM_ICX_CRD] = ICX_OPC_IA_CRD,
};

/**
 * struct icx_rr - items [first, first + n) dealt round-robin to @nr boxes,
 *		   item i to box i % @nr
 * @q: every box gets @q
 * @r: and the @r boxes from @start on (cyclically) one more
 * @start: the box item first goes to
 * @nr: the boxes
 */
struct icx_rr {
	u64 q;
	u32 r;
	u32 start;
	u32 nr;
};

/*
 * Two divisions for a batch, none per box; none at all when no box of
 * @on counts (nothing is shared out then).
 */
static struct icx_rr icx_rr(u64 first, u64 n, u32 nr, unsigned long on)
{
	struct icx_rr rr = { .nr = nr };
	u32 start;

	if (!on)
		return rr;
	rr.q = div_u64_rem(n, nr, &rr.r);
	div_u64_rem(first, nr, &start);
	rr.start = start;
	return rr;
}

/* How many of the items go to box @b. */
static u64 icx_share(const struct icx_rr *rr, u32 b)
{
	u32 d = b >= rr->start ? b - rr->start : b + rr->nr - rr->start;

	return rr->q + (d < rr->r);
}

/* The 32-bit umask of a CHA or UPI control: bits 8-15 and 32-55. */
static u32 icx_umask32(u64 ctl)
{
	return FIELD_GET(ICX_CTL_UMASK, ctl) |
	       FIELD_GET(ICX_CTL_UMASK_EXT, ctl) << 8;
}

/*
 * Whether counter control @ctl of @box (its 32-bit umask, on a CHA its
 * filter) selects what @arg describes.
 */
typedef bool (*icx_match_t)(u64 ctl, const struct sim_icx_box *box,
			    const void *arg);

/**
 * struct icx_at - a batch, as the boxes see it
 * @t: the batch
 * @cyc: the cycle it lands in, if injected (sim_icx_count())
 * @rec: NULL, or the flow's plan that the batch (of one) is recorded into
 */
struct icx_at {
	const struct sim_txn *t;
	u64 cyc;
	struct sim_icx_plan *rec;
};

/*
 * @val more in each of @dur cycles (sim_icx_count()) on the counters of
 * @box programmed with @ev (and, if @match, a umask it takes).
 */
static void icx_box_count(struct sim_icx_box *box, u8 ev, icx_match_t match,
			  const void *arg, u64 val, u64 dur,
			  const struct icx_at *at)
{
	unsigned int i;

	if (!val)
		return;
	for (i = 0; i < ICX_MEM_NR_CTRS; i++) {
		u64 ctl = box->ctl[i];

		if (sim_icx_counting(box->box_ctl, ctl) &&
		    FIELD_GET(ICX_CTL_EVENT, ctl) == ev &&
		    (!match || match(ctl, box, arg)))
			sim_icx_count(&box->ctr[i], &box->thr[i],
				      sim_icx_thresh(ctl, false), val, dur,
				      at->t, at->cyc, at->rec);
	}
}

/*
 * Recording a plan (@at->rec): the @n items per transaction dealt from
 * *@total to @nr boxes (@on: those with an enabled counter) are a deal of
 * the plan; the boxes' counters then record what each item adds
 * (icx_box_count() with one item, after icx_rec_box()).  False when not
 * recording, or when the plan has no room (it is then given up).
 */
static bool icx_rec_deal(const struct icx_at *at, u64 *total, u64 n, u32 nr,
			 unsigned long on)
{
	struct sim_icx_plan *p = at->rec;

	if (!p)
		return false;
	if (p->whole || p->nr_deals == SIM_ICX_PLAN_DEALS) {
		p->whole = true;
		return true;
	}
	p->deal = p->nr_deals;
	p->deals[p->nr_deals++] = (struct sim_icx_deal){
		.total = total, .per = n, .nr = nr, .on = on,
	};
	return true;
}

static void icx_rec_box(const struct icx_at *at, u32 b)
{
	at->rec->b = b;
}

/**
 * sim_icx_plan_apply() - count a flow's batch of @n by its plan
 * @p: the plan (sim_icx_count()), not stale
 * @n: transactions
 *
 * The same counts as the delivery of the batch: each deal's shares from
 * its total as it stands (deals in the order delivery makes them), then
 * each counter's gain.
 */
void sim_icx_plan_apply(const struct sim_icx_plan *p, u64 n)
{
	struct icx_rr rr[SIM_ICX_PLAN_DEALS];
	unsigned int i;

	for (i = 0; i < p->nr_deals; i++) {
		const struct sim_icx_deal *d = &p->deals[i];
		u64 items = d->per * n;

		rr[i] = icx_rr(*d->total, items, d->nr, d->on);
		*d->total += items;
	}
	for (i = 0; i < p->nr_adds; i++) {
		const struct sim_icx_add *a = &p->adds[i];
		u64 inc = a->mul * (a->deal == SIM_ICX_NO_DEAL ? n :
				    icx_share(&rr[a->deal], a->b));

		if (a->wrap)
			sim_icx_ctr_add(a->dst, inc);
		else
			*a->dst += inc;
	}
}

/**
 * struct icx_lines - lines of one kind a batch brings to the CHAs
 * @req: their requester's umask bit (ICX_TOR_IO, ICX_TOR_IA)
 * @opc: their opcode
 * @hit: they hit in the L3
 * @remote: their memory is the other socket's
 * @pmm: their memory is persistent memory (PMM), not DRAM
 * @tid: the thread of a core's request (tid=), or -1 for a device's
 */
struct icx_lines {
	u32 req;
	u32 opc;
	bool hit;
	bool remote;
	bool pmm;
	int tid;
};

/*
 * A TOR event's umask selects requester, opcode, hit or miss, local or
 * remote; with tid_en in the control, the CHA's filter0 selects the
 * requesting thread too: a device's request, which has none, never
 * matches.
 */
static bool icx_tor_match(u64 ctl, const struct sim_icx_box *box,
			  const void *arg)
{
	const struct icx_lines *l = arg;
	u32 um = icx_umask32(ctl);

	if ((ctl & ICX_CTL_TID_EN) &&
	    (l->tid < 0 || l->tid != FIELD_GET(ICX_CHA_FILTER_TID, box->filter)))
		return false;
	return (um & l->req) && FIELD_GET(ICX_TOR_OPC, um) == l->opc &&
	       (um & (l->hit ? ICX_TOR_HIT : ICX_TOR_MISS)) &&
	       (um & (l->remote ? ICX_TOR_REMOTE : ICX_TOR_LOCAL)) &&
	       (um & (l->pmm ? ICX_TOR_PMM : ICX_TOR_DDR));
}

/*
 * A umask of one bit per kind, any of which counts: CAS_COUNT's
 * (ICX_CAS_*), REQUESTS' (ICX_REQ_*), the directory's (ICX_DIR_*).
 */
static bool icx_bits_match(u64 ctl, const struct sim_icx_box *box,
			   const void *arg)
{
	return icx_umask32(ctl) & *(const u32 *)arg;
}

static bool icx_flit_match(u64 ctl, const struct sim_icx_box *box,
			   const void *arg)
{
	return icx_umask32(ctl) == *(const u32 *)arg;
}

/**
 * struct icx_ev - an event that each item dealt to a box advances
 * @ev: its code
 * @match: the umask it takes (NULL: any)
 * @arg: for @match
 * @per: what an item adds in each of @dur cycles
 * @dur: those cycles: 1, or an occupancy's latency
 */
struct icx_ev {
	u8 ev;
	icx_match_t match;
	const void *arg;
	u64 per;
	u64 dur;
};

/*
 * @n items dealt round-robin from *@total to the @nr boxes of @boxes
 * (@on: those with an enabled counter), each advancing the @nr_evs events
 * of @evs; or, when a flow's plan is being recorded, the deal recorded.
 */
static void icx_deal(struct sim_icx_box *boxes, unsigned int nr,
		     unsigned long on, u64 *total, u64 n,
		     const struct icx_ev *evs, unsigned int nr_evs,
		     const struct icx_at *at)
{
	bool rec = icx_rec_deal(at, total, n, nr, on);
	struct icx_rr rr = {};
	unsigned int c, e;

	if (!rec)
		rr = icx_rr(*total, n, nr, on);
	for_each_set_bit(c, &on, nr) {
		u64 k = rec ? 1 : icx_share(&rr, c);

		if (rec)
			icx_rec_box(at, c);
		for (e = 0; e < nr_evs; e++)
			icx_box_count(&boxes[c], evs[e].ev, evs[e].match, evs[e].arg,
				      k * evs[e].per, evs[e].dur, at);
	}
	if (!rec)
		*total += n;
}

/*
 * @n lines of kind @k of socket @m's @nr CHAs, each the batch's latency
 * in the TOR; @on: the CHAs with an enabled counter.
 */
static void icx_cha_lines(struct sim_icx_mem *m, unsigned long on,
			  unsigned int nr, unsigned int k, u64 n,
			  const struct icx_lines *l, const struct icx_at *at)
{
	const struct icx_ev evs[] = {
		{ ICX_CHA_EV_TOR_INSERTS, icx_tor_match, l, 1, 1 },
		{ ICX_CHA_EV_TOR_OCCUPANCY, icx_tor_match, l, 1, at->t->lat_cycles },
	};

	icx_deal(m->cha, nr, on, &m->lines[k], n, evs, ARRAY_SIZE(evs), at);
}

/*
 * @n memory commands of kind @k on socket @m's channels (@on: enabled):
 * CAS commands of DRAM, or (@pmm) requests into the queues of its
 * persistent memory, which no CAS counts.
 */
static void icx_cas(struct sim_icx_mem *m, unsigned long on, unsigned int k,
		    u64 n, bool pmm, const struct icx_at *at)
{
	static const u32 bits[SIM_ICX_NR_CAS] = { ICX_CAS_RD, ICX_CAS_WR };
	static const struct icx_ev pmm_ev[SIM_ICX_NR_REQS] = {
		{ ICX_IMC_EV_PMM_RPQ_INSERTS, NULL, NULL, 1, 1 },
		{ ICX_IMC_EV_PMM_WPQ_INSERTS, NULL, NULL, 1, 1 },
	};
	const struct icx_ev cas = {
		ICX_IMC_EV_CAS_COUNT, icx_bits_match, &bits[k], 1, 1,
	};

	if (pmm)
		icx_deal(m->imc, ICX_NR_IMCS, on, &m->pmmq[k], n, &pmm_ev[k], 1, at);
	else
		icx_deal(m->imc, ICX_NR_IMCS, on, &m->cas[k], n, &cas, 1, at);
}

/*
 * @n lines read from socket @m's memory, each a lookup of its directory
 * state by an M2M (@on: those enabled), which finds the line in state I
 * (no other socket has it): a hit, or (@update: the reader is a core of
 * the other socket, which will cache the line) a miss that changes the
 * state, a directory update.
 */
static void icx_dir(struct sim_icx_mem *m, unsigned long on, u64 n,
		    bool update, const struct icx_at *at)
{
	static const u32 look = ICX_DIR_ANY | ICX_DIR_STATE_I, clean = ICX_DIR_CLEAN_I;
	static const u32 any = ICX_DIR_ANY;
	const struct icx_ev evs[] = {
		{ ICX_M2M_EV_DIRECTORY_LOOKUP, icx_bits_match, &look, 1, 1 },
		{ update ? ICX_M2M_EV_DIRECTORY_MISS : ICX_M2M_EV_DIRECTORY_HIT,
		  icx_bits_match, &clean, 1, 1 },
		{ ICX_M2M_EV_DIRECTORY_UPDATE, icx_bits_match, &any, 1, 1 },
	};

	icx_deal(m->m2m, ICX_NR_M2MS, on, &m->dir, n, evs,
		 update ? 3 : 2, at);
}

/*
 * @n requests of kind @k (SIM_ICX_REQ_*) into the home agents of socket
 * @m's @nr CHAs, from a requester of that socket or (@remote) the
 * other's.
 */
static void icx_ha(struct sim_icx_mem *m, unsigned long on, unsigned int nr,
		   unsigned int k, u64 n, bool remote, const struct icx_at *at)
{
	static const u32 bits[SIM_ICX_NR_REQS][2] = {
		{ ICX_REQ_READS_LOCAL, ICX_REQ_READS_REMOTE },
		{ ICX_REQ_WRITES_LOCAL, ICX_REQ_WRITES_REMOTE },
	};
	const struct icx_ev req = {
		ICX_CHA_EV_REQUESTS, icx_bits_match, &bits[k][remote], 1, 1,
	};

	icx_deal(m->cha, nr, on, &m->ha[k], n, &req, 1, at);
}

/*
 * Socket @m's side of @n lines over UPI: it sends their data if
 * @tx_data, 9 flits a line, and takes one non-data flit for each (a
 * read's request, a write's completion), else the other way round.
 * @seen: the lines this side has carried so far; the i-th goes over
 * link i % ICX_NR_UPIS.  @on: the links with an enabled counter.
 */
static void icx_upi(struct sim_icx_mem *m, unsigned long on, u64 *seen, u64 n,
		    bool tx_data, const struct icx_at *at)
{
	static const u32 data = ICX_FLITS_ALL_DATA, ctrl = ICX_FLITS_NON_DATA;
	const struct icx_ev evs[] = {
		{ tx_data ? ICX_UPI_EV_TXL_FLITS : ICX_UPI_EV_RXL_FLITS,
		  icx_flit_match, &data, ICX_FLITS_PER_LINE, 1 },
		{ tx_data ? ICX_UPI_EV_RXL_FLITS : ICX_UPI_EV_TXL_FLITS,
		  icx_flit_match, &ctrl, 1, 1 },
	};

	icx_deal(m->upi, ICX_NR_UPIS, on, seen, n, evs, ARRAY_SIZE(evs), at);
}

/*
 * The lines of each kind (SIM_ICX_*) that @t brings to the CHAs, into
 * @n; whether its data comes to the requester's socket (a read's, a
 * read for ownership's).  A device's read is PCIRDCUR lines, its write
 * full (ITOM) and partial (ITOMCACHENEAR) lines; a core's read of a
 * line is DRD (CRD with code=1), its write RFO.
 */
static bool icx_lines_of(const struct sim_txn *t, u64 *n)
{
	u64 lines = DIV_ROUND_UP(t->size, 64) * t->count;
	bool rd = t->op == SIM_OP_RD;

	if (sim_icx_cpu_txn(t)) {
		n[rd ? t->code ? SIM_ICX_CRD : SIM_ICX_DRD : SIM_ICX_RFO] = lines;
		return true;
	}
	if (rd) {
		n[SIM_ICX_RD] = lines;
	} else {
		n[SIM_ICX_WR_FULL] = t->size / 64 * t->count;
		n[SIM_ICX_WR_PART] = t->size % 64 ? t->count : 0;
	}
	return rd;
}

/**
 * sim_icx_mem_deliver() - what a batch does to the CHAs, IMCs and UPI
 * @sd: the SoC
 * @s: the socket whose boxes count it now (its block is being brought up
 *     to date): the requester's CHAs and UPI links, the memory's
 *     channels, the remote memory's UPI links
 * @t: the batch; a device's (inbound) transactions and a CPU's accesses
 *     of memory reach them, a CPU's MMIO accesses do not
 * @rec: NULL, or a flow's plan: @t (of one) is recorded into it, not
 *	 counted (sim_icx_count())
 */
void sim_icx_mem_deliver(struct sim_dev *sd, unsigned int s,
			 const struct sim_txn *t, struct sim_icx_plan *rec)
{
	struct sim_icx *x = &sd->icx;
	bool remote = t->dst == SIM_DST_REM, cpu = sim_icx_cpu_txn(t), to_req;
	u32 ms = sim_icx_home(sd, t);
	struct sim_icx_mem *m = &x->mem[t->socket], *home = &x->mem[ms];
	const unsigned long *on = x->part[t->socket].on, *hon = x->part[ms].on;
	struct icx_at at = { .t = t, .cyc = sim_icx_cycle(sd, s, t), .rec = rec };
	u64 n[SIM_ICX_NR_LINES] = {}, rds, wrs, dir;
	unsigned int k;

	if (t->rc == SIM_NO_RC && !cpu)
		return;
	to_req = icx_lines_of(t, n);
	for (k = 0; s == t->socket && k < SIM_ICX_NR_LINES; k++) {
		struct icx_lines l = { .req = cpu ? ICX_TOR_IA : ICX_TOR_IO,
				       .opc = icx_opc[k], .hit = t->hit,
				       .remote = remote, .pmm = t->pmm,
				       .tid = cpu ? t->tid : -1 };

		if (n[k])
			icx_cha_lines(m, on[SIM_ICX_CHA], x->nr_chas, k, n[k],
				      &l, &at);
	}
	if (t->hit)
		return;
	/* a partial write reads the rest of its line; a core's lines are reads */
	rds = n[SIM_ICX_RD] + n[SIM_ICX_WR_PART] + n[SIM_ICX_DRD] +
	      n[SIM_ICX_RFO] + n[SIM_ICX_CRD];
	wrs = n[SIM_ICX_WR_FULL] + n[SIM_ICX_WR_PART];
	if (s == ms) {
		/* the home agent takes each line as a read or a write */
		if (wrs)
			icx_ha(home, hon[SIM_ICX_CHA], x->nr_chas, SIM_ICX_REQ_WR,
			       wrs, remote, &at);
		if (rds - n[SIM_ICX_WR_PART])
			icx_ha(home, hon[SIM_ICX_CHA], x->nr_chas, SIM_ICX_REQ_RD,
			       rds - n[SIM_ICX_WR_PART], remote, &at);
		/*
		 * a core's read of the other socket's memory: each line's
		 * directory state changes, one more write of the memory
		 */
		dir = cpu && remote ? rds : 0;
		if (rds)
			icx_dir(home, hon[SIM_ICX_M2M], rds, dir, &at);
		if (rds)
			icx_cas(home, hon[SIM_ICX_IMC], SIM_ICX_CAS_RD, rds,
				t->pmm, &at);
		if (wrs + dir)
			icx_cas(home, hon[SIM_ICX_IMC], SIM_ICX_CAS_WR, wrs + dir,
				t->pmm, &at);
	}
	if (!remote)
		return;
	/* a read's data comes to the requester, a write's goes from it */
	if (s == t->socket)
		icx_upi(m, on[SIM_ICX_UPI], &m->xfers,
			rds + wrs - n[SIM_ICX_WR_PART], !to_req, &at);
	else
		icx_upi(home, hon[SIM_ICX_UPI], &home->rxfers,
			rds + wrs - n[SIM_ICX_WR_PART], to_req, &at);
}

/* The box at @base of kind @k, index @b, with @nr counters, into the map */
static void icx_mem_box_map(struct sim_icx *x, u32 base, unsigned int k,
			    unsigned int b, unsigned int nr)
{
	unsigned int i;

	sim_icx_map_set(x, base + ICX_MEM_BOX_CTL, SIM_ICX_R_BOX_CTL, k, b, 0);
	for (i = 0; i < nr; i++) {
		sim_icx_map_set(x, base + ICX_MEM_CTL(i), SIM_ICX_R_CTL, k, b, i);
		sim_icx_map_set(x, base + ICX_MEM_CTR(i), SIM_ICX_R_CTR, k, b, i);
	}
}

/**
 * sim_icx_mem_map() - the CHA, IMC, M2M, UPI and M3UPI registers of the
 *		       window, and the IMC's free-running counters
 * @x: the Ice Lake-X uncore, its CHA count known
 *
 * Into &sim_icx.map: each box's control, counter controls, counters and
 * (CHA) filter; each memory controller's dclk, DDR and DDRT counters.
 */
void sim_icx_mem_map(struct sim_icx *x)
{
	unsigned int b, i;

	for (b = 0; b < x->nr_chas; b++) {
		u32 o = icx_cha_off[b];

		sim_icx_map_set(x, ICX_CHA_BOX_CTL(o), SIM_ICX_R_BOX_CTL,
				SIM_ICX_CHA, b, 0);
		sim_icx_map_set(x, ICX_CHA_FILTER0(o), SIM_ICX_R_FILTER,
				SIM_ICX_CHA, b, 0);
		for (i = 0; i < ICX_MEM_NR_CTRS; i++) {
			sim_icx_map_set(x, ICX_CHA_CTL(o, i), SIM_ICX_R_CTL,
					SIM_ICX_CHA, b, i);
			sim_icx_map_set(x, ICX_CHA_CTR(o, i), SIM_ICX_R_CTR,
					SIM_ICX_CHA, b, i);
		}
	}
	for (b = 0; b < ICX_NR_IMCS; b++)
		icx_mem_box_map(x, ICX_IMC_BOX(b), SIM_ICX_IMC, b, ICX_IMC_NR_CTRS);
	for (b = 0; b < ICX_NR_UPIS; b++)
		icx_mem_box_map(x, ICX_UPI_BOX(b), SIM_ICX_UPI, b, ICX_MEM_NR_CTRS);
	for (b = 0; b < ICX_NR_M2MS; b++)
		icx_mem_box_map(x, ICX_M2M_BOX(b), SIM_ICX_M2M, b, ICX_MEM_NR_CTRS);
	for (b = 0; b < ICX_NR_M3UPIS; b++)
		icx_mem_box_map(x, ICX_M3UPI_BOX(b), SIM_ICX_M3UPI, b,
				ICX_MEM_NR_CTRS);
	for (b = 0; b < ICX_NR_IMC_FRS; b++) {
		u32 base = ICX_IMC_FR_BOX(b);

		sim_icx_map_set(x, base + ICX_IMC_FR_DCLK, SIM_ICX_R_IOCLK,
				SIM_ICX_IMC_FR, b, 0);
		for (i = 0; i < 2; i++) {
			sim_icx_map_set(x, base + ICX_IMC_FR_DDR(i),
					SIM_ICX_R_MEM_FR, SIM_ICX_IMC_FR, b, i);
			sim_icx_map_set(x, base + ICX_IMC_FR_DDRT(i),
					SIM_ICX_R_MEM_FR, SIM_ICX_IMC_FR, b, 2 + i);
		}
	}
}

/**
 * sim_icx_mem_resolve() - may @t go to the memory it names?
 * @sd: the SoC
 * @t: the transaction
 *
 * A device's reads and writes, and a CPU's, go to local memory
 * (dst=loc_cmem, the default) or, on more than one socket, remote memory
 * (dst=rem); a CPU's MMIO access names no memory.
 *
 * Return: 0 or -EINVAL.
 */
int sim_icx_mem_resolve(struct sim_dev *sd, const struct sim_txn *t)
{
	if (t->dst == SIM_DST_LOC_CMEM)
		return 0;
	return t->dst == SIM_DST_REM && t->to_rc == SIM_NO_RC &&
	       sd->nr_sockets > 1 ? 0 : -EINVAL;
}

/**
 * sim_icx_mem_fr() - a free-running counter of a memory controller
 * @m: its socket's memory side, up to date
 * @b: the controller: channels 3b to 3b + 2
 * @idx: 0 DDR reads, 1 DDR writes, 2 and 3 DDRT's (none: no DDRT here)
 *
 * The CAS commands of that kind its channels took: the i-th of the
 * socket's goes to channel i % ICX_NR_IMCS (icx_cas()), so this is exact
 * for traffic given in order, and the sum over the controllers for any.
 * The channels' CAS_COUNT counters need not be enabled.
 *
 * Return: its value, 48 bits.
 */
u64 sim_icx_mem_fr(const struct sim_icx_mem *m, unsigned int b,
		   unsigned int idx)
{
	unsigned int per = ICX_NR_IMCS / ICX_NR_IMC_FRS, c;
	u64 q, n = 0;
	u32 r;

	if (idx >= SIM_ICX_NR_CAS)
		return 0;
	q = div_u64_rem(m->cas[idx], ICX_NR_IMCS, &r);
	for (c = b * per; c < (b + 1) * per; c++)
		n += q + (c < r);
	return n & GENMASK_ULL(ICX_CTR_BITS - 1, 0);
}
