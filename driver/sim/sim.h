/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu_sim: simulated uncore hardware.
 *
 * A simulated device is a multi-socket SoC.  Traffic is described as
 * transactions; every simulated PMU register block decides, from what
 * the driver programmed into it, which of its counters a transaction
 * advances.  Time is either real (CLOCK_MONOTONIC) or manual (advanced
 * only through debugfs), so cycle counts can be exact.
 */
#ifndef __UPMU_SIM_H__
#define __UPMU_SIM_H__

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/seqlock.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

#include "hw/icx_uncore.h"
#include "hw/t410_c2c.h"
#include "hw/t410_cmem.h"
#include "hw/t410_cspmu.h"
#include "upmu.h"

#define SIM_MAX_SOCKETS	4
#define SIM_MAX_FLOWS	64
#define SIM_MAX_COUNT	BIT_ULL(40)	/* transactions per inject */
#define SIM_MIN_WIDTH	32		/* narrowest counter the sim offers */
#define SIM_MAX_WR_STALL_US	100000	/* wr_stall_us=: 100 ms at most */
/*
 * Sim time ends here (52 days): no counter, advancing at most 2048 per
 * ns (the fastest of any PMU), can go through half of 64 bits in the
 * sim's life, nor can any flow's totals.
 */
#define SIM_MAX_NS	BIT_ULL(52)
/*
 * On the realtime clock, a register read sees its block as it was up to
 * this long ago: the counters a driver reads one after another within
 * this time come from one catch-up, as from a snapshot.
 */
#define SIM_READ_STALE_NS	(10 * NSEC_PER_USEC)
#define SIM_MAX_PER_NS	2048

/* Register blocks a device may have (new_device blocks=) */
enum sim_block {
	SIM_BLK_UCF, SIM_BLK_CMEM, SIM_BLK_PCIE, SIM_BLK_TGT, SIM_BLK_C2C,
	SIM_BLK_CLINK, SIM_BLK_DLINK, SIM_BLK_NIC, SIM_BLK_ICX, SIM_NR_BLKS
};

/* The Tegra410 blocks: a SoC has these or Ice Lake-X's (soc=icx), not both. */
#define SIM_T410_BLKS	GENMASK(SIM_BLK_DLINK, SIM_BLK_UCF)

/* What a device has unless new_device says blocks=: the SoC, no NIC. */
#define SIM_DEF_BLKS	SIM_T410_BLKS

enum sim_op { SIM_OP_RD, SIM_OP_WR, SIM_OP_ATOMIC, SIM_OP_DATALESS, SIM_NR_OPS };
enum sim_src { SIM_SRC_LOC_CPU, SIM_SRC_LOC_NONCPU, SIM_SRC_REM, SIM_NR_SRCS };
/* SIM_DST_LOC_OTHER is local CXL memory ("loc_cxl" is an alias). */
enum sim_dst {
	SIM_DST_LOC_CMEM, SIM_DST_LOC_GMEM, SIM_DST_LOC_OTHER, SIM_DST_REM,
	SIM_DST_LOC_P2P, SIM_NR_DSTS
};

#define SIM_PCIE_NR_RC	6	/* PCIe root complexes per socket */
#define SIM_NO_RC	0xff

/*
 * Loads of a block: per counter class, the sum over the running flows of
 * rate (per s) x what one transaction adds to the fastest counter of the
 * class, times the number of counters the class's traffic is spread over.
 */
enum sim_load_class {
	SIM_LOAD_BYTES,	/* byte counters (UCF, PCIE, PCIE-TGT) */
	SIM_LOAD_CUM,	/* PCIE rd_cum_outs: cycles */
	SIM_LOAD_OUTS,	/* PCIE reads in flight: ns (Little's law) */
	SIM_NR_LOADS
};

/**
 * struct sim_txn - a batch of identical transactions
 * @socket: socket whose fabric carries them
 * @op: read, write, atomic, dataless
 * @src: initiator class
 * @dst: destination memory class
 * @hit: 1 if they hit in the SLC
 * @size: bytes per transaction
 * @lat_ns: latency of each transaction
 * @count: number of transactions
 * @rc: PCIe root complex of the initiator, or SIM_NO_RC
 * @rp: root port (number within @rc) of the initiator
 * @bdf: requester ID of the initiator
 * @to_rc: PCIe root complex of the target (a BAR or CXL HDM range), or
 *	   SIM_NO_RC
 * @to_rp: root port (number) of the target BAR
 * @hdm: the target is a CXL HDM range, not a BAR
 * @addr: target address
 * @gpu: the GPU whose memory is read or written (dst=loc_gmem), or that
 *	 initiates (a local non-CPU source that is not a PCIe device)
 * @iotlb_miss: soc=icx: 1 if each one's address translation misses the
 *		IOTLB
 * @page: soc=icx: the page size of a translation that hits (SIM_PAGE_*)
 * @walk: soc=icx: memory accesses of the page walk of a miss
 * @walk_lat_ns: soc=icx: how long that walk takes
 * @lost_fwd: soc=icx: lines of each inbound write whose ownership a snoop
 *	      pulls away once before the write is committed
 * @code: soc=icx: a CPU's read (no rc or to_rc) fetches code (CRD), not
 *	  data (DRD)
 * @tid: soc=icx: the thread of a CPU's access (tid=, 0-1023), which a CHA
 *	 counter with tid_en matches against its filter0
 * @lat_cycles: @lat_ns in fabric cycles (set on delivery)
 * @flow: a flow's, delivered over the time a block catches up on, not
 *	  at one point of it (an inject's)
 * @plan: a flow's batch in a catch-up: what the block keeps for this flow
 *	  (&sim_unit.plan_size bytes), else NULL
 */
struct sim_txn {
	u32 socket;
	u8 op;
	u8 src;
	u8 dst;
	u8 hit;
	u32 size;
	u32 lat_ns;
	u64 count;
	u8 rc;
	u8 rp;
	u16 bdf;
	u8 to_rc;
	u8 to_rp;
	u8 hdm;
	u64 addr;
	u8 gpu;
	u8 iotlb_miss;
	u8 page;
	u8 walk;
	u32 walk_lat_ns;
	u8 lost_fwd;
	u8 code;
	u8 pmm;
	u16 tid;
	u64 lat_cycles;
	u8 flow;
	void *plan;
};

enum { SIM_PAGE_4K, SIM_PAGE_2M, SIM_PAGE_1G, SIM_NR_PAGES };
#define SIM_MAX_WALK	8	/* page-walk accesses (walk=) */

/**
 * struct sim_unit - how a register block keeps up with sim time
 * @last_ns: sim time up to which its counters are up to date
 * @tick: advance its clock-driven counters from @last_ns to @now (NULL
 *	  while nothing of the block advances with cycles)
 * @deliver: count a batch of transactions
 * @plan_size: if not 0, each flow that reaches the block keeps this many
 *	       bytes for it (zeroed when the flow is added), which @deliver
 *	       finds in &sim_txn.plan: how the flow's transactions count on
 *	       the block, worked out once rather than at every catch-up
 *
 * Each block is brought up to date on its own, when it is accessed (or
 * traffic is injected into it): it counts what the flows that reach it
 * delivered since @last_ns, and its clock.  Until then it does not
 * matter that it lags, since nothing else changes what it counts.  On
 * the realtime clock a read may see it up to SIM_READ_STALE_NS behind
 * (sim_unit_access()).
 */
struct sim_unit {
	u64 last_ns;
	void (*tick)(struct sim_unit *unit, u64 now);
	void (*deliver)(struct sim_unit *unit, const struct sim_txn *t);
	size_t plan_size;
	struct list_head flows;
};

/* UCF, CMEM, PCIE, PCIE-TGT and up to 4 link routes */
#define SIM_MAX_UNITS	8

struct sim_flow;

/**
 * struct sim_flow_link - a flow in the list of a block it reaches
 * @node: in &sim_unit.flows
 * @flow: the flow
 * @plan: what the block keeps for it (&sim_unit.plan_size), or NULL
 * @due: its transactions the block has counted: sim_flow_due() at the
 *	 block's &sim_unit.last_ns (0 when linked: it starts after that)
 */
struct sim_flow_link {
	struct list_head node;
	struct sim_flow *flow;
	void *plan;
	u64 due;
};

/**
 * struct sim_flow - continuous traffic: @rate transactions per second
 * @list: in &sim_dev.flows
 * @id: user-chosen id
 * @txn: what each transaction looks like (count unused)
 * @rate: transactions per second
 * @start_ns: sim time the flow started
 * @stopped: it delivers nothing after @stop_ns
 * @stop_ns: sim time it was stopped
 * @units: the register blocks it reaches
 * @nr_units: their number
 * @links: its entry in each of @units' lists, while it is in
 *	   &sim_dev.flows: a block's catch-up visits only its own flows
 *
 * By sim time t it has delivered floor((t - @start_ns) * @rate / 10^9)
 * transactions (t no later than @stop_ns once stopped): sim_flow_due().
 */
struct sim_flow {
	struct list_head list;
	u32 id;
	struct sim_txn txn;
	u64 rate;
	u64 start_ns;
	bool stopped;
	u64 stop_ns;
	struct sim_unit *units[SIM_MAX_UNITS];
	unsigned int nr_units;
	struct sim_flow_link links[SIM_MAX_UNITS];
};

struct sim_dev;
struct sim_cspmu;

/**
 * struct sim_regs - a register block as software reaches it
 * @ops: the accessors handed to the driver in the platform data, made
 *	 with sim_regs_xfer(); @ops->xfer's cookie is this structure
 * @sd: the simulated SoC
 * @unit: the block's counters, brought up to date by each access (a
 *	  window with several passes sim_regs_xfer() its @unit_at instead)
 * @pure_size: a read of a register below this offset changes nothing:
 *	       reads of such registers that need no catch-up take no lock
 *	       (sim_regs_read_fresh()), and a read that cannot take the
 *	       lock reads them as they are (sim_regs_read_stale())
 * @size: bytes of the register window
 * @name: name of its debugfs file in regs/ (e.g. "pcie.0.4")
 *
 * The driver and the debugfs regs/ files use the same @ops: a test
 * reads and writes exactly what the driver would.
 */
struct sim_regs {
	const struct upmu_regs_ops *ops;
	struct sim_dev *sd;
	struct sim_unit *unit;
	u32 pure_size;
	u32 size;
	char name[32];
};

/* A CoreSight-architecture PMU register block (UCF, PCIE, PCIE-TGT). */
struct sim_cspmu_model {
	const char *pdev_name;
	const char *regs_name;
	bool multi_instance;	/* one per root complex: "<regs_name>.S.I" */
	bool shared_bdf;	/* one BDF comparator for all counters (PCIE) */
	u32 pmiidr;
	bool has_slots;
	/* Increment of counter @idx of @u per transaction. */
	u64 (*count)(const struct sim_cspmu *u, unsigned int idx,
		     const struct sim_txn *t);
	/* Event types that advance by one every cycle. */
	bool (*is_clock)(u32 evtype);
};

struct sim_cspmu {
	struct sim_dev *sd;
	const struct sim_cspmu_model *model;
	u32 socket;
	u32 instance;
	u32 nr;
	u64 mask;
	u32 pmcr;
	u32 cnten;
	u32 ovs;
	u32 inten;
	u32 evtyper[32];
	u32 filtr[32];
	u32 filt2r[32];
	u32 ccfiltr;
	u32 bdf;			/* PCIE: the shared BDF comparator */
	u32 slot[TGT_NR_SLOTS][5];	/* PCIE-TGT address slots */
	u64 cnt[32];
	struct sim_unit unit;
	u64 load[SIM_NR_LOADS];
	struct sim_regs regs;
	struct platform_device *pdev;
};

/* The CMEM latency PMU register window of one socket (hw/t410_cmem.h). */
struct sim_cmem {
	struct sim_dev *sd;
	u32 socket;
	u32 cg[CMEM_NR_INST];
	u32 ctrl[CMEM_NR_INST];
	u32 status[CMEM_NR_INST];
	u64 cycles[CMEM_NR_INST];
	u64 req[CMEM_NR_INST][CMEM_NR_MC];
	u64 aor[CMEM_NR_INST][CMEM_NR_MC];
	unsigned int next;
	struct sim_unit unit;
	u64 load;	/* AOR: rate x requests x cycles, all MCs */
	struct sim_regs regs;
	struct platform_device *pdev;
};

/*
 * A chip-to-chip link PMU register window of one socket (hw/t410_c2c.h):
 * NVLink-C2C, NV-CLink or NV-DLink.
 */
struct sim_link {
	struct sim_dev *sd;
	enum sim_block blk;
	const char *pdev_name;
	u32 socket;
	unsigned int nr_inst;
	unsigned int nr_peers;
	u32 peer_insts[C2C_MAX_GPUS];	/* instances of each peer */
	unsigned int next[C2C_MAX_GPUS];	/* round-robin position */
	u32 ctrl[C2C_MAX_INST];
	u32 in_status[C2C_MAX_INST];
	u32 out_status[C2C_MAX_INST];
	u64 cnt[C2C_MAX_INST][C2C_NR_EVENTS];
	struct sim_unit unit;
	u64 load[C2C_MAX_GPUS][C2C_NR_EVENTS];	/* per peer, cum_outs */
	struct sim_regs regs;
	struct platform_device *pdev;
};

/**
 * struct sim_reach - what a transaction does to one class of counters
 * @load: the block's load of that class (flows)
 * @units: units per transaction (bytes, requests, or 1)
 * @value: what each unit adds to one counter (1, or a latency)
 * @div: counters the units are spread over (round-robin)
 * @max_per_ns: the fastest the class's counters can advance (datasheet)
 * @width: their width in bits
 * @flow_only: a bound on flows only, not a counter (reads in flight)
 */
struct sim_reach {
	u64 *load;
	u64 units;
	u64 value;
	u32 div;
	u32 max_per_ns;
	u8 width;
	bool flow_only;
};

#define SIM_MAX_REACH	12	/* UCF, PCIE (3), PCIE-TGT, CMEM, links (4) */

struct sim_nic;

#define SIM_ICX_NR_BURSTS	8

/**
 * struct sim_icx_thr - what an Ice Lake-X counter with a threshold keeps
 * @flow: the flows' increments since the last cycle judged, to be
 *	  spread over the cycles up to now
 * @end: the cycle at which each burst of injected traffic it saw ends
 * @val: what the burst adds to each of its cycles
 * @nr: bursts
 * @prev: whether its condition held in the last cycle judged (edge)
 *
 * See sim_icx_judge().
 */
struct sim_icx_thr {
	u64 flow;
	u64 end[SIM_ICX_NR_BURSTS];
	u64 val[SIM_ICX_NR_BURSTS];
	u8 nr;
	bool prev;
};

/**
 * struct sim_icx_box - an Ice Lake-X PMU box: IIO, IRP, M2PCIE, CHA, IMC,
 *			M2M, UPI, M3UPI, PCU or UBOX
 * @box_ctl: box control
 * @ctl: counter controls (an IMC's or the UBOX's fixed counter's last)
 * @ctr: counters
 * @thr: their threshold state
 * @filter: CHA filter0: the thread a counter with tid_en counts (TID);
 *	    the PCU's band filter
 * @on: bit i set while ctl[i] enables its counter: traffic and cycles
 *	skip a box without one (a disabled counter neither counts nor
 *	keeps threshold state: enabling it writes its control, which
 *	clears that state)
 */
struct sim_icx_box {
	u64 box_ctl;
	u64 ctl[ICX_IMC_NR_CTRS];
	u64 ctr[ICX_IMC_NR_CTRS];
	struct sim_icx_thr thr[ICX_IMC_NR_CTRS];
	u64 filter;
	u8 on;
};

/*
 * The kinds of Ice Lake-X PMU boxes (sim_icx.c's icx_kinds[]); the IMC's
 * free-running counters (SIM_ICX_IMC_FR) have no box: they are read as
 * the clock's cycles and the channels' CAS commands.
 */
enum sim_icx_kind {
	SIM_ICX_IIO, SIM_ICX_IRP, SIM_ICX_CHA, SIM_ICX_IMC, SIM_ICX_UPI,
	SIM_ICX_M2M, SIM_ICX_M2PCIE, SIM_ICX_M3UPI, SIM_ICX_PCU, SIM_ICX_UBOX,
	SIM_ICX_IMC_FR, SIM_ICX_NR_KINDS
};

/**
 * struct sim_icx_stack - the PMU boxes of one Ice Lake-X IIO stack
 * @iio: its IIO box
 * @irp: its IRP box
 * @m2pcie: its M2PCIE box
 * @bw_in: free-running inbound bandwidth counter of each part (its
 *	   free-running ioclk is &sim_icx_part.ioclk_ns's)
 */
struct sim_icx_stack {
	struct sim_icx_box iio;
	struct sim_icx_box irp;
	struct sim_icx_box m2pcie;
	u64 bw_in[ICX_NR_PARTS];
};

/*
 * Kinds of lines the CHAs see: a device's (IO), then a core's (IA)
 * (sim_icx_mem.c)
 */
enum {
	SIM_ICX_RD, SIM_ICX_WR_FULL, SIM_ICX_WR_PART,
	SIM_ICX_DRD, SIM_ICX_RFO, SIM_ICX_CRD, SIM_ICX_NR_LINES
};

/* Kinds of CAS commands */
enum { SIM_ICX_CAS_RD, SIM_ICX_CAS_WR, SIM_ICX_NR_CAS };
/* a home agent's requests (REQUESTS), and PMM's queues, by kind */
enum { SIM_ICX_REQ_RD, SIM_ICX_REQ_WR, SIM_ICX_NR_REQS };

/**
 * struct sim_icx_mem - the memory side of one Ice Lake-X socket
 * @cha: its CHAs
 * @imc: its memory channels
 * @upi: its UPI links
 * @m2m: its mesh-to-memory boxes, one per memory controller (channels
 *	 3b to 3b + 2): their clockticks count, their directory events
 *	 (ICX_M2M_EV_DIRECTORY_*) are the memory model's to count
 *	 (icx_box_count() on &sim_icx_part.on[SIM_ICX_M2M])
 * @m3upi: its mesh-to-UPI boxes, one per link
 * @lines: lines of each kind its CHAs took so far: line i goes to CHA
 *	   i % &sim_icx.nr_chas
 * @cas: CAS commands of each kind its channels took so far: the i-th
 *	 goes to channel i % ICX_NR_IMCS
 * @pmmq: requests of each kind (SIM_ICX_REQ_*) its channels' persistent
 *	  memory took so far, dealt as @cas
 * @ha: requests of each kind its home agents took so far: the i-th goes
 *	to CHA i % &sim_icx.nr_chas
 * @dir: directory lookups its M2Ms made so far: the i-th on M2M
 *	 i % ICX_NR_M2MS
 * @xfers: lines it sent or fetched over UPI so far: the i-th goes over
 *	   link i % ICX_NR_UPIS
 * @rxfers: lines of the other socket's that it served over UPI so far,
 *	    as it counts them: the i-th over link i % ICX_NR_UPIS
 */
struct sim_icx_mem {
	struct sim_icx_box cha[ICX_MAX_CHAS];
	struct sim_icx_box imc[ICX_NR_IMCS];
	struct sim_icx_box upi[ICX_NR_UPIS];
	struct sim_icx_box m2m[ICX_NR_M2MS];
	struct sim_icx_box m3upi[ICX_NR_M3UPIS];
	u64 lines[SIM_ICX_NR_LINES];
	u64 cas[SIM_ICX_NR_CAS];
	u64 pmmq[SIM_ICX_NR_REQS];
	u64 ha[SIM_ICX_NR_REQS];
	u64 dir;
	u64 xfers;
	u64 rxfers;
};

/**
 * struct sim_icx_part - one socket's Ice Lake-X boxes as a register block
 * @unit: they are brought up to date together, on their own
 * @s: the socket
 * @on: of each kind (SIM_ICX_*), bit b set while box b has an enabled
 *	counter: traffic visits only these
 * @tick: of each kind, bit b set while box b has an enabled counter that
 *	  cycles advance (clockticks, a fixed counter, the PCU's C-state
 *	  occupancy, a threshold): a catch-up's cycles visit only these
 * @ioclk_ns: the sim time its ioclk and dclk counters count cycles
 *	      from: they are read as the cycles since then, not ticked
 */
struct sim_icx_part {
	struct sim_unit unit;
	u32 s;
	unsigned long on[SIM_ICX_NR_KINDS];
	unsigned long tick[SIM_ICX_NR_KINDS];
	u64 ioclk_ns;
};

static_assert(ICX_MAX_CHAS <= BITS_PER_LONG);

#define SIM_ICX_PLAN_ADDS	48
#define SIM_ICX_PLAN_DEALS	10
#define SIM_ICX_NO_DEAL		0xff

/**
 * struct sim_icx_deal - items of a flow's batch dealt round-robin to boxes
 * @total: the items of their kind dealt so far (the next goes to box
 *	   *@total % @nr)
 * @per: items per transaction of the flow
 * @nr: the boxes
 * @on: those with an enabled counter
 */
struct sim_icx_deal {
	u64 *total;
	u64 per;
	u32 nr;
	unsigned long on;
};

/**
 * struct sim_icx_add - one counter (or threshold sum) a flow advances
 * @dst: it
 * @mul: what it gains per transaction, or with @deal per item of the
 *	 deal that box @b gets
 * @deal: index in &sim_icx_plan.deals, or SIM_ICX_NO_DEAL
 * @b: the box
 * @wrap: @dst is a counter (ICX_CTR_BITS wide), not a threshold's sum
 */
struct sim_icx_add {
	u64 *dst;
	u64 mul;
	u8 deal;
	u8 b;
	bool wrap;
};

/**
 * struct sim_icx_plan - how a flow's batches count on a socket's boxes
 * (&sim_unit.plan_size): what one transaction adds to each counter that
 * counts it, recorded by delivering one transaction without counting it
 * (sim_icx_plan_add()); a batch of n then adds n times that, and each
 * round-robin deal its shares, without the walk of boxes, counters and
 * controls that a delivery makes.  Every count is linear in the batch
 * but those shares, which sim_icx_plan_apply() works out per batch.
 * @gen: &sim_icx.gen it was made at (0: not made yet); any register
 *	 write to the uncore makes it stale
 * @whole: it does not fit: every batch is delivered as an inject is
 * @nr_adds: entries of @adds
 * @nr_deals: entries of @deals
 * @deal: while recording: the deal being recorded
 * @b: while recording: the box of that deal being recorded
 * @adds: the counters, in the order delivery reaches them
 * @deals: the deals, in that order
 */
struct sim_icx_plan {
	u64 gen;
	bool whole;
	u8 nr_adds;
	u8 nr_deals;
	u8 deal;
	u8 b;
	struct sim_icx_add adds[SIM_ICX_PLAN_ADDS];
	struct sim_icx_deal deals[SIM_ICX_PLAN_DEALS];
};

/* Core C-states the PCU counts cores in (occ_sel - 1) */
enum { SIM_ICX_C0, SIM_ICX_C3, SIM_ICX_C6, SIM_ICX_NR_CSTATES };
#define SIM_ICX_MAX_CORES	128	/* cores of a socket, at most */

/**
 * struct sim_icx - the Ice Lake-X uncore of a SoC (hw/icx_uncore.h)
 * @st: the stacks of each socket
 * @mem: the CHAs, IMCs, M2Ms, UPI links and M3UPIs of each socket
 * @pcu: the PCU of each socket
 * @ubox: the UBOX of each socket
 * @part: each socket's boxes, brought up to date as one block: a read
 *	  of a socket's counters delivers the flows that reach that socket
 *	  only
 * @load: per socket, the flows' fastest counter increments per s
 * @regs: its register window, ICX_SOCKET_STRIDE per socket
 * @pdev: its platform device
 * @nr_chas: CHAs per socket (new_device cha=, SIM_ICX_DEF_CHAS)
 * @map: what the register at each 8-byte offset of a socket's window is
 *	 (SIM_ICX_REG_*, 0 where none is): an access finds it in one step
 * @gen: bumped by every register write: the flows' plans made before it
 *	 are stale (&sim_icx_plan.gen)
 * @link_gen: PCIe generation each part's link trained at, on every
 *	      socket (link=); 0: what its port and device can do
 * @link_width: the lanes it trained with; 0: likewise
 * @cores: the cores of each socket in C0/C1, C3 and C6/C7 (new_device
 *	   cstate=, debugfs cstate), which the PCU's POWER_STATE_OCCUPANCY
 *	   adds each cycle
 * @cstate_set: cstate= was given
 */
struct sim_icx {
	struct sim_icx_stack st[SIM_MAX_SOCKETS][ICX_NR_STACKS];
	struct sim_icx_mem mem[SIM_MAX_SOCKETS];
	struct sim_icx_box pcu[SIM_MAX_SOCKETS];
	struct sim_icx_box ubox[SIM_MAX_SOCKETS];
	struct sim_icx_part part[SIM_MAX_SOCKETS];
	u64 load[SIM_MAX_SOCKETS];
	struct sim_regs regs;
	struct platform_device *pdev;
	u32 nr_chas;
	u32 map[ICX_SOCKET_STRIDE / 8];
	u64 gen;
	u8 link_gen[ICX_NR_STACKS][ICX_NR_PARTS];
	u8 link_width[ICX_NR_STACKS][ICX_NR_PARTS];
	u32 cores[SIM_ICX_NR_CSTATES];
	bool cstate_set;
};

/* An entry of &sim_icx.map: the box's kind, its index, the register */
#define SIM_ICX_REG_KIND	GENMASK(17, 13)	/* SIM_ICX_IIO, ... */
#define SIM_ICX_REG_TYPE	GENMASK(12, 10)	/* SIM_ICX_R_* */
#define SIM_ICX_REG_BOX		GENMASK(9, 4)	/* box (stack, CHA, ...) */
#define SIM_ICX_REG_IDX		GENMASK(3, 0)	/* counter, or part of bw_in */

/*
 * The registers of a box, and the free-running ones: the clocks (the
 * IIO's ioclk, the IMC's dclk), the IIO's bw_in, the IMC's DDR and
 * DDRT reads and writes (idx 0-3, read as the CAS commands so far)
 */
enum {
	SIM_ICX_R_NONE, SIM_ICX_R_BOX_CTL, SIM_ICX_R_CTL, SIM_ICX_R_CTR,
	SIM_ICX_R_FILTER, SIM_ICX_R_IOCLK, SIM_ICX_R_BW_IN, SIM_ICX_R_MEM_FR,
	SIM_ICX_NR_R
};

/* The largest value of field @m of a map entry (FIELD_MAX(), at file scope) */
#define SIM_ICX_REG_MAX(m)	((m) >> __builtin_ctzl(m))
static_assert(SIM_ICX_REG_MAX(SIM_ICX_REG_KIND) >= SIM_ICX_NR_KINDS - 1);
static_assert(SIM_ICX_REG_MAX(SIM_ICX_REG_TYPE) >= SIM_ICX_NR_R - 1);
static_assert(SIM_ICX_REG_MAX(SIM_ICX_REG_BOX) >= ICX_MAX_CHAS - 1);
static_assert(SIM_ICX_REG_MAX(SIM_ICX_REG_IDX) >= ICX_NR_PARTS - 1);

#define SIM_ICX_DEF_CHAS	8

/**
 * struct sim_nic_opts - the shape of a device's NIC (new_device options)
 * @pfs: physical functions (pfs=)
 * @ports: physical ports, 8 priorities each (ports=)
 * @links: PCIe links (links=)
 * @hosts: hosts (hosts=)
 * @funcs: functions (funcs=)
 * @khz: device clock (nic_khz=)
 * @log_max_samples: sample buffer capacity, log2 counter-samples
 *		     (nic_log_samples=)
 * @log_min_period: shortest sample period, log2 clocks (nic_log_period=)
 * @socket: the socket its PFs belong to (nic_socket=)
 */
struct sim_nic_opts {
	u32 pfs;
	u32 ports;
	u32 links;
	u32 hosts;
	u32 funcs;
	u32 khz;
	u32 log_max_samples;
	u32 log_min_period;
	u32 socket;
};

/**
 * struct sim_dev - one simulated SoC
 * @dev: device on the upmu_sim bus
 * @list: in the global device list
 * @nr_sockets: sockets
 * @width: counter width in bits
 * @nr_counters: general counters per PMU
 * @clock_mhz: fabric clock
 * @nr_rcs: PCIe root complexes per socket (the first @nr_rcs of the layout)
 * @blocks: the register blocks it has, as BIT(enum sim_block)
 * @nr_gpus: GPUs on each socket's NVLink-C2C; 0: it links to another SoC
 * @tear64: 0: a 64-bit read of a CoreSight block is single-copy atomic
 *	    (its device says "reg-io-width" 8); else it is two 32-bit reads,
 *	    the high half @tear64 counts after the low one (tear64=)
 * @wr_stall_us: every list of accesses with a write in it holds the bus
 *		 (and the CPU that made it) this many microseconds after it
 *		 is done, as a device still settling a write would
 *		 (wr_stall_us=); 0 in anything but a test of long sections
 * @lock: protects everything below; taken from register accessors
 *	  with interrupts off, always through sim_lock() (or, for a read,
 *	  sim_lock_any()).  A holder waits for nothing (no other lock, no
 *	  other CPU): spinning on it from anywhere but its holder's CPU ends
 * @seq: odd while @lock is held (sim_lock()): a read of a block that is
 *	 fresh enough takes no lock (sim_regs_xfer())
 * @owner: the CPU that holds @lock, or -1
 * @manual: time advances only through debugfs
 * @ended: sim time reached SIM_MAX_NS (reported once)
 * @ended_work: reports it, out of @lock (see sim_now())
 * @vnow: sim time at the last clock switch (or now, when manual)
 * @rt_anchor: sim_clock_ns() when @vnow was taken (realtime mode)
 * @flows: continuous traffic
 * @nr_flows: entries in @flows
 * @catch_ups: times a register block was brought up to date (a later
 *	       sim time than its last), for the debugfs stats file
 * @locked_xfers: register transfers that took @lock (the others were
 *		  lock-free reads of fresh blocks), for the same file
 * @calls: calls of the register accessors (&upmu_regs_ops: @xfer and
 *	   @copy) from any context, each with any number of accesses:
 *	   what a driver's batching gets down to, for the same file
 * @ucf: UCF PMU per socket
 * @cmem: CMEM latency PMU per socket
 * @pcie: PCIE PMU per socket and root complex
 * @tgt: PCIE-TGT PMU per socket and root complex
 * @c2c: NVLink-C2C PMU per socket
 * @clink: NV-CLink PMU per socket
 * @dlink: NV-DLink PMU per socket
 * @icx: the Ice Lake-X uncore (soc=icx)
 * @nic_opts: the shape of its NIC
 * @nic: its NIC (blocks=nic), or NULL
 * @ddir: debugfs directory
 * @regs_dir: its regs/ directory
 */
struct sim_dev {
	struct device dev;
	struct list_head list;
	u32 nr_sockets;
	u32 width;
	u32 nr_counters;
	u32 clock_mhz;
	u32 nr_rcs;
	u32 blocks;
	u32 nr_gpus;
	u32 tear64;
	u32 wr_stall_us;
	raw_spinlock_t lock;
	seqcount_raw_spinlock_t seq;
	int owner;
	bool manual;
	bool ended;
	struct irq_work ended_work;
	u64 vnow;
	u64 rt_anchor;
	struct list_head flows;
	unsigned int nr_flows;
	u64 catch_ups;
	u64 locked_xfers;
	atomic64_t calls;
	struct sim_cspmu ucf[SIM_MAX_SOCKETS];
	struct sim_cmem cmem[SIM_MAX_SOCKETS];
	struct sim_cspmu pcie[SIM_MAX_SOCKETS][SIM_PCIE_NR_RC];
	struct sim_cspmu tgt[SIM_MAX_SOCKETS][SIM_PCIE_NR_RC];
	struct sim_link c2c[SIM_MAX_SOCKETS];
	struct sim_link clink[SIM_MAX_SOCKETS];
	struct sim_link dlink[SIM_MAX_SOCKETS];
	struct sim_icx icx;
	struct sim_nic_opts nic_opts;
	struct sim_nic *nic;
	struct dentry *ddir;
	struct dentry *regs_dir;
};

static inline bool sim_has(const struct sim_dev *sd, enum sim_block b)
{
	return sd->blocks & BIT(b);
}

/**
 * struct sim_block_type - a kind of simulated register block, by its ops
 * @name: what it is (log messages)
 * @blocks: the SIM_BLK_* kinds of blocks= it builds; a SoC has the type
 *	    when it has one of them
 * @init: optional: set up the type's state in a new SoC, whether it
 *	  builds the type or not (before debugfs exists)
 * @add: publish the type's devices; only when the SoC has the type
 * @del: take back what @add published: every type, also after a failed
 *	 or skipped @add
 * @units: optional: the register blocks of the type that a transaction
 *	   reaches, into @u; their number
 * @reach: optional: the counters of the type that a transaction reaches
 *	   (overflow checks), into @r; their number
 * @catch_up: optional: bring the type's blocks up to sim time @now
 * @resolve: optional: complete the PCIe initiator (rc=, rp=, bdf=) and
 *	     target (to_rc=, to_rp=) of a transaction in the SoC's PCIe
 *	     topology, or refuse it (-EINVAL); @has says which keys the user
 *	     gave (SIM_HAS_*).  The first type the SoC has with this hook
 *	     resolves; without one, the Tegra410 layout (sim_pcie_resolve())
 * @show_devices: optional: the SoC's PCI functions, lspci-like (the
 *		  debugfs pci_devices file), chosen like @resolve
 * @advance_check: optional: may the manual clock jump by @ns as far as
 *		   the type's counters go (no counter advancing by more
 *		   than half its range)?  0 or -ERANGE
 * @opt: optional: a new_device option "@key=@val" of the type's: 0, or
 *	 -EINVAL if @val is not one it takes; -ENOENT if @key is not its
 * @check_opts: optional: after the options, whether the type's fit the
 *		SoC (0 or -EINVAL); it may set defaults for those not given
 *
 * Types register at module init (sim_block_register()), in the order
 * their blocks are built and brought up to date; they are taken down in
 * the reverse order.  The registry is read-only once a SoC can exist.
 */
struct sim_block_type {
	const char *name;
	u32 blocks;
	void (*init)(struct sim_dev *sd);
	int (*add)(struct sim_dev *sd);
	void (*del)(struct sim_dev *sd);
	unsigned int (*units)(struct sim_dev *sd, const struct sim_txn *t,
			      struct sim_unit **u);
	unsigned int (*reach)(struct sim_dev *sd, const struct sim_txn *t,
			      struct sim_reach *r);
	void (*catch_up)(struct sim_dev *sd, u64 now);
	int (*resolve)(struct sim_dev *sd, struct sim_txn *t, u32 has);
	void (*show_devices)(struct sim_dev *sd, struct seq_file *m);
	int (*advance_check)(struct sim_dev *sd, u64 ns);
	int (*opt)(struct sim_dev *sd, const char *key, const char *val);
	int (*check_opts)(struct sim_dev *sd);
};

/* The keys of a transaction the user gave (&sim_block_type.resolve). */
#define SIM_HAS_RP	BIT(0)
#define SIM_HAS_BDF	BIT(1)
#define SIM_HAS_TO_RP	BIT(2)
#define SIM_HAS_IOMMU	BIT(3)	/* iotlb_miss=, page=, walk=, walk_lat= */
#define SIM_HAS_LOST_FWD	BIT(4)	/* lost_fwd= */
#define SIM_HAS_CODE	BIT(5)	/* code= */
#define SIM_HAS_TID	BIT(6)	/* tid= */
#define SIM_HAS_MEM	BIT(7)	/* mem= */

#define SIM_MAX_BLOCK_TYPES	8

extern const struct sim_block_type *sim_block_types[SIM_MAX_BLOCK_TYPES];
extern unsigned int sim_nr_block_types;

static inline bool sim_has_type(const struct sim_dev *sd,
				const struct sim_block_type *type)
{
	return sd->blocks & type->blocks;
}

/*
 * Is @type of the SoC's kind (Tegra410 or Ice Lake-X; a NIC goes with
 * either)?  Traffic is bounded by the counters of the SoC's kind, as if
 * it had all of its blocks, whichever of them it has.
 */
static inline bool sim_kind_has_type(const struct sim_dev *sd,
				     const struct sim_block_type *type)
{
	u32 kind = sim_has(sd, SIM_BLK_ICX) ? BIT(SIM_BLK_ICX) : SIM_T410_BLKS;

	return type->blocks & (kind | BIT(SIM_BLK_NIC));
}

/* sim_bus.c */
const struct sim_block_type *sim_soc_type(struct sim_dev *sd, size_t hook);
int sim_block_register(const struct sim_block_type *type);
struct platform_device *sim_add_pdev(struct sim_dev *sd, const char *name,
				     struct sim_regs *regs, u32 socket,
				     u32 instance,
				     const struct property_entry *props);
void sim_del_pdev(struct platform_device **pdev);

/*
 * Take and release sd->lock.  Every hold is a write section of sd->seq,
 * so that a lock-free read (sim_regs_xfer()) sees whether anything
 * changed under it, and a section of upmu_hw_enter(): a lock-free read
 * of a counter that interrupts it on this CPU does not come here.
 */
static inline void sim_locked(struct sim_dev *sd)
{
	upmu_hw_enter();
	WRITE_ONCE(sd->owner, raw_smp_processor_id());
	write_seqcount_begin(&sd->seq);
}

static inline unsigned long sim_lock(struct sim_dev *sd)
	__acquires(&sd->lock)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sd->lock, flags);
	sim_locked(sd);
	return flags;
}

static inline void sim_unlock(struct sim_dev *sd, unsigned long flags)
	__releases(&sd->lock)
{
	write_seqcount_end(&sd->seq);
	WRITE_ONCE(sd->owner, -1);
	upmu_hw_exit();
	raw_spin_unlock_irqrestore(&sd->lock, flags);
}

/**
 * sim_lock_any() - take sd->lock for a register access from any context
 * @sd: the simulated SoC
 * @flags: the interrupt state to restore at sim_unlock()
 *
 * A driver reads counters without its own lock, from any context: an NMI,
 * a BPF program on a kprobe in code that holds sd->lock on this very CPU.
 * Real registers answer such reads; so must these.  The lock's holder
 * waits for nothing, so spinning for it ends, unless the holder is this
 * CPU, interrupted.  In an NMI only a trylock is allowed (lockdep).
 *
 * Return: true with the lock taken; false, without it, when this CPU
 * holds it already (the caller then tells sparse with __release()).
 */
static inline bool sim_lock_any(struct sim_dev *sd, unsigned long *flags)
	__acquires(&sd->lock)
{
	if (READ_ONCE(sd->owner) == raw_smp_processor_id()) {
		__acquire(&sd->lock);	/* (for sparse: the caller releases) */
		return false;
	}
	if (in_nmi()) {
		while (!raw_spin_trylock_irqsave(&sd->lock, *flags))
			cpu_relax();
	} else {
		raw_spin_lock_irqsave(&sd->lock, *flags);
	}
	sim_locked(sd);
	return true;
}

/* sim_time.c */
u64 sim_now_ended(struct sim_dev *sd);
void sim_ended_report(struct irq_work *work);
u64 sim_cycles_at(struct sim_dev *sd, u64 ns);
u64 sim_flow_due(const struct sim_flow *f, u64 t);
unsigned int sim_txn_units(struct sim_dev *sd, const struct sim_txn *t,
			   struct sim_unit **u);
void sim_unit_init(struct sim_dev *sd, struct sim_unit *unit,
		   void (*tick)(struct sim_unit *unit, u64 now),
		   void (*deliver)(struct sim_unit *unit,
				   const struct sim_txn *t));
void sim_flow_link(struct sim_dev *sd, struct sim_flow *f, bool add);
int sim_flow_plans(struct sim_flow *f);
void sim_flow_free(struct sim_flow *f);
void sim_unit_catch_up(struct sim_dev *sd, struct sim_unit *unit, u64 now);
void sim_catch_up(struct sim_dev *sd, u64 now);
void sim_inject(struct sim_dev *sd, struct sim_txn *t);
int sim_txn_check(struct sim_dev *sd, const struct sim_txn *t);
int sim_flow_load(struct sim_dev *sd, const struct sim_flow *f, bool add);
int sim_advance_check(struct sim_dev *sd, u64 ns);

/*
 * The realtime clock's source, for sim_now() and &sim_dev.rt_anchor:
 * ktime_get_mono_fast_ns(), not ktime_get_ns(), since a register read
 * may come in an NMI, and ktime_get_ns() there spins forever if the NMI
 * came in the middle of a timekeeping update on this CPU.
 */
static inline u64 sim_clock_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * Current sim time in ns (monotonic; frozen in manual mode).  It stands
 * still at SIM_MAX_NS, and says so once.  Inline, as sim_unit_access():
 * every register access asks it, and a call is dear under emulation.
 */
static inline u64 sim_now(struct sim_dev *sd)
{
	u64 now;

	if (sd->manual)
		return sd->vnow;
	now = sd->vnow + (sim_clock_ns() - sd->rt_anchor);
	return likely(now < SIM_MAX_NS) ? now : sim_now_ended(sd);
}

/*
 * A read of @unit at sim time @now needs no catch-up: up to
 * SIM_READ_STALE_NS late on the realtime clock, none on the manual one.
 */
static inline bool sim_unit_fresh(const struct sim_dev *sd,
				  const struct sim_unit *unit, u64 now)
{
	return now <= unit->last_ns + (sd->manual ? 0 : SIM_READ_STALE_NS);
}

/* An access of @size bytes at @off lies outside @r's window (RAZ/WI). */
static inline bool sim_regs_outside(const struct sim_regs *r, u32 off,
				    u32 size)
{
	return off >= r->size || r->size - off < size || off % 4;
}

/**
 * sim_unit_access() - bring a register block up to date for an access
 * @sd: the simulated SoC
 * @unit: the block
 * @write: the access is a write
 * @now: the current sim time (sim_now())
 *
 * A write (which may start, stop or clear counters) takes effect at the
 * current sim time, as does every access on the manual clock.  On the
 * realtime clock a read sees the block as it was up to SIM_READ_STALE_NS
 * ago: a driver that reads many counters in a row (CMEM's 42) then costs
 * one catch-up, not one per register, and reads them as one snapshot.
 * Nothing is lost: the next catch-up delivers what the read did not see.
 * Called with sd->lock held.
 */
static inline void sim_unit_access(struct sim_dev *sd, struct sim_unit *unit,
				   bool write, u64 now)
{
	if (!write && sim_unit_fresh(sd, unit, now))
		return;
	sim_unit_catch_up(sd, unit, now);
}

/**
 * struct sim_clock_read - sim time read without sd->lock
 * @now: it
 * @vnow: &sim_dev.vnow it was read with
 * @anchor: &sim_dev.rt_anchor it was read with (realtime clock)
 * @valid: it was read, on the realtime clock
 */
struct sim_clock_read {
	u64 now;
	u64 vnow;
	u64 anchor;
	bool valid;
};

/*
 * Sim time under sd->lock: @c's, read just before, if the clock has not
 * been switched or set since (a read of ktime is dear under emulation).
 */
static inline u64 sim_now_since(struct sim_dev *sd,
				const struct sim_clock_read *c)
{
	if (c->valid && !sd->manual && sd->vnow == c->vnow &&
	    sd->rt_anchor == c->anchor)
		return c->now;
	return sim_now(sd);
}

/*
 * sim_regs_xfer()'s reads without sd->lock: a list of reads only, of
 * blocks that need no catch-up now (sim_unit_access() would leave them
 * as they are), read as the locked path would read them, provided that
 * nothing held sd->lock meanwhile (sd->seq).  False: take the lock (the
 * values read are then read again), with the time read into @c (also
 * when the list has a write or a read of an impure register).
 */
static __always_inline bool
sim_regs_read_fresh(struct sim_regs *r, struct upmu_reg_xfer *x,
		    unsigned int n,
		    struct sim_unit *(*unit_at)(struct sim_regs *r, u32 off),
		    u64 (*read)(struct sim_regs *r, u32 off, bool wide),
		    struct sim_clock_read *c)
{
	struct sim_dev *sd = r->sd;
	unsigned int seq, i;
	u32 lim;
	u64 now;

	seq = raw_read_seqcount(&sd->seq);
	if (seq & 1)
		return false;
	now = sd->vnow;
	if (!sd->manual) {
		c->vnow = now;
		c->anchor = sd->rt_anchor;
		now += sim_clock_ns() - c->anchor;
		if (now >= SIM_MAX_NS)
			return false;
		c->now = now;
	}
	/* One block: one look at it, not one a register (CMEM reads 42). */
	if (!unit_at && r->unit && !sim_unit_fresh(sd, r->unit, now))
		goto stale;
	/*
	 * One pass: a write, or a read that is not of a pure register, sends
	 * the list to the locked path, which reads again what this read.
	 * The window's bounds in locals: a store to x[] might be one to @r
	 * (the kernel's C lets any store alias any load).
	 */
	lim = min(r->pure_size, r->size);
	for (i = 0; i < n; i++) {
		u32 flags = x[i].flags, off = x[i].off;
		bool wide = flags & UPMU_XFER_64;
		u32 size = wide ? 8 : 4;
		struct sim_unit *u;

		/* a pure register, in the window, aligned: read it */
		if (likely(!(flags & UPMU_XFER_WRITE) && off < lim &&
			   lim - off >= size && !(off % 4))) {
			u = unit_at ? unit_at(r, off) : NULL;
			if (u && !sim_unit_fresh(sd, u, now))
				goto stale;
			x[i].val = read(r, off, wide);
			continue;
		}
		if ((flags & UPMU_XFER_WRITE) || off >= r->pure_size ||
		    r->pure_size - off < size)
			goto stale;
		x[i].val = 0;	/* pure, outside the window: RAZ */
	}
	return !read_seqcount_retry(&sd->seq, seq);
stale:
	c->valid = !sd->manual && !read_seqcount_retry(&sd->seq, seq);
	return false;
}

/*
 * sim_regs_xfer()'s reads when this CPU holds sd->lock already, in the
 * middle of something (sim_lock_any()): the registers as they are,
 * without a catch-up, where a read changes nothing (&sim_regs.pure_size);
 * zero elsewhere, as a read the bus cannot serve.  A counter then reads
 * as it stood at its block's last catch-up, or a little after.  Writes
 * cannot be made: that would be a driver writing from a context that
 * interrupted the simulator, which no driver does.
 */
static __always_inline void
sim_regs_read_stale(struct sim_regs *r, struct upmu_reg_xfer *x,
		    unsigned int n,
		    u64 (*read)(struct sim_regs *r, u32 off, bool wide))
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		u32 size = x[i].flags & UPMU_XFER_64 ? 8 : 4, off = x[i].off;

		if (WARN_ON_ONCE(x[i].flags & UPMU_XFER_WRITE))
			continue;
		if (sim_regs_outside(r, off, size) || off >= r->pure_size ||
		    r->pure_size - off < size)
			x[i].val = 0;
		else
			x[i].val = read(r, off, size == 8);
	}
}

/**
 * sim_regs_xfer() - a block's &upmu_regs_ops.xfer: a list of accesses
 * @r: the block
 * @x: the accesses, in order
 * @n: how many
 * @unit_at: NULL, or for a window of several blocks the one the register
 *	     at @off belongs to (NULL: none) instead of &sim_regs.unit
 * @read: the block's decoder of a read: the register at @off, 64 bits
 *	  wide if @wide, else 32; zero where there is none (RAZ)
 * @write: its decoder of a 32-bit write; ignored where nothing is (WI)
 *
 * The accesses happen at one point in sim time, as the same accesses
 * a few nanoseconds apart would.  Reads may see the block a little late
 * (sim_unit_access()), a write sees it exact.  Outside the window, or
 * not 4-byte aligned, an access reads as zero and a write is ignored,
 * as on a bus.  Each block wraps this with its own decoders, which the
 * compiler then calls directly: CMEM reads 42 registers per event read.
 * Reads of a block's pure registers (&sim_regs.pure_size) that need no
 * catch-up take no lock.  It may be called from any context, NMI
 * included (sim_lock_any()).  A list with a write stalls @r's device's
 * wr_stall_us after it, out of the simulator's lock.
 */
static __always_inline void
__sim_regs_xfer(struct sim_regs *r, struct upmu_reg_xfer *x, unsigned int n,
		struct sim_unit *(*unit_at)(struct sim_regs *r, u32 off),
		u64 (*read)(struct sim_regs *r, u32 off, bool wide),
		void (*write)(struct sim_regs *r, u32 off, u32 val),
		bool lock_free)
{
	struct sim_clock_read c = { .valid = false };
	struct sim_unit *unit = NULL;
	struct sim_dev *sd = r->sd;
	unsigned int i, stall = 0;
	unsigned long flags;
	bool exact = false;
	u64 now;

	atomic64_inc(&sd->calls);
	if (lock_free && r->pure_size &&
	    sim_regs_read_fresh(r, x, n, unit_at, read, &c))
		return;
	if (!sim_lock_any(sd, &flags)) {
		__release(&sd->lock);
		sim_regs_read_stale(r, x, n, read);
		return;
	}
	sd->locked_xfers++;
	now = sim_now_since(sd, &c);
	for (i = 0; i < n; i++) {
		bool wide = x[i].flags & UPMU_XFER_64;
		bool wr = x[i].flags & UPMU_XFER_WRITE;
		u32 size = wide ? 8 : 4, off = x[i].off;
		struct sim_unit *u = unit_at ? unit_at(r, off) : r->unit;

		if (u && (u != unit || (wr && !exact))) {
			sim_unit_access(sd, u, wr, now);
			exact = wr || sd->manual;
			unit = u;
		}
		if (sim_regs_outside(r, off, size)) {
			if (!wr)
				x[i].val = 0;
		} else if (wr) {
			write(r, off, x[i].val);
			stall = sd->wr_stall_us;
		} else {
			x[i].val = read(r, off, wide);
		}
	}
	sim_unlock(sd, flags);
	for (; stall; stall -= min(stall, 1000U))
		udelay(min(stall, 1000U));
}

static __always_inline void
sim_regs_xfer(struct sim_regs *r, struct upmu_reg_xfer *x, unsigned int n,
	      struct sim_unit *(*unit_at)(struct sim_regs *r, u32 off),
	      u64 (*read)(struct sim_regs *r, u32 off, bool wide),
	      void (*write)(struct sim_regs *r, u32 off, u32 val))
{
	__sim_regs_xfer(r, x, n, unit_at, read, write, true);
}

/*
 * sim_regs_xfer() under the lock even where a lock-free read would do: for
 * a block whose reads change something for a while (a fault injected).
 */
static __always_inline void
sim_regs_xfer_locked(struct sim_regs *r, struct upmu_reg_xfer *x,
		     unsigned int n,
		     struct sim_unit *(*unit_at)(struct sim_regs *r, u32 off),
		     u64 (*read)(struct sim_regs *r, u32 off, bool wide),
		     void (*write)(struct sim_regs *r, u32 off, u32 val))
{
	__sim_regs_xfer(r, x, n, unit_at, read, write, false);
}

/* sim_debugfs.c */
#define SIM_CMD_MAX	512	/* longest command of inject, flows, ... */
char *sim_user_buf(const char __user *ubuf, size_t len, size_t max);
int sim_next_kv(char **buf, char **key, char **val);
void sim_debugfs_init(struct sim_dev *sd);
void sim_debugfs_add_regs(struct sim_dev *sd, struct sim_regs *regs);
void sim_debugfs_exit(struct sim_dev *sd);
int sim_debugfs_module_init(void);
void sim_debugfs_module_exit(void);

/* sim_cspmu.c */
extern const struct sim_block_type sim_ucf_type;
extern const struct sim_cspmu_model sim_ucf_model;
void sim_cspmu_init(struct sim_dev *sd, struct sim_cspmu *u,
		    const struct sim_cspmu_model *m, u32 socket, u32 instance);
int sim_cspmu_add(struct sim_cspmu *u, const struct property_entry *props);
void sim_cspmu_del(struct sim_cspmu *u);

/* sim_pcie.c */
extern const struct sim_block_type sim_pcie_type;
void sim_pcie_init(struct sim_dev *sd);
int sim_pcie_add(struct sim_dev *sd);
void sim_pcie_del(struct sim_dev *sd);
unsigned int sim_pcie_units(struct sim_dev *sd, const struct sim_txn *t,
			    struct sim_unit **u);
unsigned int sim_pcie_reach(struct sim_dev *sd, const struct sim_txn *t,
			    struct sim_reach *r);
int sim_pcie_resolve(struct sim_dev *sd, struct sim_txn *t, bool has_rp,
		     bool has_bdf, bool has_to_rp);
void sim_pcie_show_devices(struct sim_dev *sd, struct seq_file *m);

/* sim_cmem.c */
extern const struct sim_block_type sim_cmem_type;
void sim_cmem_init(struct sim_dev *sd, struct sim_cmem *c, u32 socket);
int sim_cmem_add(struct sim_cmem *c);
void sim_cmem_del(struct sim_cmem *c);
bool sim_cmem_sees(const struct sim_txn *t);
unsigned int sim_cmem_reach(struct sim_cmem *c, const struct sim_txn *t,
			    struct sim_reach *r);

/* sim_c2c.c */
extern const struct sim_block_type sim_c2c_type;
void sim_c2c_init(struct sim_dev *sd);
int sim_c2c_add(struct sim_dev *sd);
void sim_c2c_del(struct sim_dev *sd);
unsigned int sim_c2c_units(struct sim_dev *sd, const struct sim_txn *t,
			   struct sim_unit **u);
bool sim_txn_gpu(const struct sim_txn *t);
unsigned int sim_c2c_reach(struct sim_dev *sd, const struct sim_txn *t,
			   struct sim_reach *r);

/* sim_icx.c */
extern const struct sim_block_type sim_icx_type;

/**
 * struct sim_icx_ref - what a register of the Ice Lake-X window is
 * @box: its box, if it is a box's
 * @reg: the register, or NULL (ioclk, computed when read)
 * @kind: its box's kind (SIM_ICX_*)
 * @b: its box's index among those of its kind on the socket
 * @type: SIM_ICX_R_*
 * @idx: a counter's or a control's index in its box
 */
struct sim_icx_ref {
	struct sim_icx_box *box;
	u64 *reg;
	u8 kind;
	u8 b;
	u8 type;
	u8 idx;
};

/* @t is a CPU's access of memory: no PCIe initiator, no target. */
static inline bool sim_icx_cpu_txn(const struct sim_txn *t)
{
	return t->rc == SIM_NO_RC && t->to_rc == SIM_NO_RC;
}

/*
 * The socket whose links socket @s's go to, where its remote memory is
 * (the UPI topology and the traffic model agree on it).
 */
static inline u32 sim_icx_peer(const struct sim_dev *sd, u32 s)
{
	return (s + 1) % sd->nr_sockets;
}

/* The socket of the memory @t reaches (dst=rem: the peer's). */
static inline u32 sim_icx_home(const struct sim_dev *sd, const struct sim_txn *t)
{
	return t->dst == SIM_DST_REM ? sim_icx_peer(sd, t->socket) : t->socket;
}

static inline bool sim_icx_counting(u64 box_ctl, u64 ctl)
{
	return !(box_ctl & ICX_BOX_CTL_FRZ) && (ctl & ICX_CTL_EN);
}

static inline void sim_icx_ctr_add(u64 *ctr, u64 inc)
{
	*ctr = (*ctr + inc) & GENMASK_ULL(ICX_CTR_BITS - 1, 0);
}

/* The threshold of a control: 12 bits on the IIO, 8 on the others. */
static inline u32 sim_icx_thresh(u64 ctl, bool iio)
{
	return iio ? FIELD_GET(ICX_CTL_THRESH, ctl) : FIELD_GET(ICX_CTL_THRESH8, ctl);
}

u64 sim_icx_cycle(struct sim_dev *sd, unsigned int s, const struct sim_txn *t);
void sim_icx_count(u64 *ctr, struct sim_icx_thr *thr, u32 thresh, u64 val,
		   u64 dur, const struct sim_txn *t, u64 cyc,
		   struct sim_icx_plan *rec);
void sim_icx_plan_add(struct sim_icx_plan *p, u64 *dst, u64 mul, bool wrap);
void sim_icx_judge(u64 *ctr, struct sim_icx_thr *thr, u64 box_ctl, u64 ctl,
		   u32 thresh, u64 base, u64 c0, u64 c1);
void sim_icx_map_set(struct sim_icx *x, u32 off, unsigned int type,
		     unsigned int kind, unsigned int b, unsigned int idx);

/* sim_icx_mem.c: the CHAs, IMCs and UPI links */
void sim_icx_mem_deliver(struct sim_dev *sd, unsigned int s,
			 const struct sim_txn *t, struct sim_icx_plan *rec);
void sim_icx_plan_apply(const struct sim_icx_plan *p, u64 n);
void sim_icx_mem_map(struct sim_icx *x);
int sim_icx_mem_resolve(struct sim_dev *sd, const struct sim_txn *t);
u64 sim_icx_mem_fr(const struct sim_icx_mem *m, unsigned int b,
		   unsigned int idx);

/* sim_nic.c */
int sim_nic_add(struct sim_dev *sd);
void sim_nic_del(struct sim_dev *sd);
void sim_nic_catch_up(struct sim_dev *sd, u64 now);

#endif
