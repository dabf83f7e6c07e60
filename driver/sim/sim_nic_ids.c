// SPDX-License-Identifier: GPL-2.0
/*
 * The data IDs of the simulated NIC (hw/nic_cmd.h): one row per data ID
 * of the DOCA Telemetry Diag appendix, each with as many instances as
 * the device has ports (x priorities), hosts, PCIe links (x tclasses)
 * or functions.  Every instance is a counter with a 64-bit value.
 *
 * Traffic is a list of events, each adding exact amounts to the counters
 * it concerns (nic_ev_apply()), injected at once or as flows of events
 * per second.  debugfs, /sys/kernel/debug/upmu_sim/<id>/nic/:
 *
 *   inject   w  "ev=EVENT [count=N] [key=value ...]": N events now
 *   flows    rw "add id=I rate=<events/s> ev=EVENT [key=value ...]" |
 *		 "del id=I" | "clear"; read: one line per flow, events so far
 *   counters r  every counter: data ID, counter_id, name, value
 *
 * EVENT and its keys (port=, prio=, host=, link=, tc=, func= default 0):
 *   rx, tx port prio size	a packet of size bytes: port and port/priority
 *				bytes (+size) and packets (+1)
 *   rx_drop port		RX buffer drop
 *   pause_rx, pause_tx port prio	a pause frame
 *   discard, scatter, no_wqe, no_wqe_hairpin, ecn host
 *				per host: RX discard, RX to the scatter engine,
 *				no-WQE drop (normal, hairpin), ECN-marked RoCEv2
 *   cnp_handled, cnp_sent port	a CNP
 *   qp_desched			a QP descheduled
 *   pcie_in, pcie_out link size	a TLP of size data bytes: bytes
 *				+size+NIC_PCIE_TLP_HDR, data bytes +size
 *   stall link kind tc ns	ns of stall: kind pw_data, pw_hdr, np_data,
 *				np_hdr, np_cpl, np_order (the one with tc=)
 *   pcie_read link lat		a PCIe read of lat ns: total latency +lat,
 *				count +1, max/min since the last sample
 *   rx_cqe, tx_cqe func	a CQE: global and the function's
 *   icmc_hit, icmc_miss	an ICMC access that hits or misses
 */

#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sim_nic.h"

#define ROW(h, p, st, sy, n)	{ .hi = (h), .param = (p), .stat = (st), \
				  .sync = (sy), .name = (n) }

/* In counter_id order: a row's counter_id is NIC_CID(its index, inst). */
const struct nic_row nic_rows[NIC_NR_ROWS] = {
	ROW(NIC_DID_RX_BYTES, NIC_P_PORT, false, true, "port_rx_bytes"),
	ROW(NIC_DID_RX_BYTES_PRIO, NIC_P_PORT_PRIO, false, true, "port_prio_rx_bytes"),
	ROW(NIC_DID_RX_PACKETS, NIC_P_PORT, false, true, "port_rx_packets"),
	ROW(NIC_DID_RX_PACKETS_PRIO, NIC_P_PORT_PRIO, false, true, "port_prio_rx_packets"),
	ROW(NIC_DID_RX_BUFFER_DROPS, NIC_P_PORT, false, true, "port_rx_buffer_drops"),
	ROW(NIC_DID_RX_PAUSE, NIC_P_PORT_PRIO, false, true, "port_prio_rx_pause"),
	ROW(NIC_DID_RX_HOST_DISCARDS, NIC_P_HOST, false, true, "host_rx_discards"),
	ROW(NIC_DID_RX_TO_SCATTER, NIC_P_HOST, false, true, "host_rx_to_scatter"),
	ROW(NIC_DID_RX_NO_WQE, NIC_P_HOST, false, true, "host_rx_no_wqe"),
	ROW(NIC_DID_RX_NO_WQE_HAIRPIN, NIC_P_HOST, false, true, "host_rx_no_wqe_hairpin"),
	ROW(NIC_DID_RX_ECN_ROCE, NIC_P_HOST, false, true, "host_rx_ecn_roce"),
	ROW(NIC_DID_CNP_HANDLED, NIC_P_PORT, false, true, "port_cnp_handled"),
	ROW(NIC_DID_CNP_SENT, NIC_P_PORT, false, true, "port_cnp_sent"),
	ROW(NIC_DID_QP_DESCHED, NIC_P_NONE, false, false, "qp_desched"),
	ROW(NIC_DID_TX_BYTES, NIC_P_PORT, false, true, "port_tx_bytes"),
	ROW(NIC_DID_TX_BYTES_PRIO, NIC_P_PORT_PRIO, false, true, "port_prio_tx_bytes"),
	ROW(NIC_DID_TX_PACKETS, NIC_P_PORT, false, true, "port_tx_packets"),
	ROW(NIC_DID_TX_PACKETS_PRIO, NIC_P_PORT_PRIO, false, true, "port_prio_tx_packets"),
	ROW(NIC_DID_TX_PAUSE, NIC_P_PORT_PRIO, false, true, "port_prio_tx_pause"),
	ROW(NIC_DID_PCIE_IN_BYTES, NIC_P_LINK, false, true, "pcie_in_bytes"),
	ROW(NIC_DID_PCIE_OUT_BYTES, NIC_P_LINK, false, true, "pcie_out_bytes"),
	ROW(NIC_DID_PCIE_IN_DATA, NIC_P_LINK, false, true, "pcie_in_data_bytes"),
	ROW(NIC_DID_PCIE_OUT_DATA, NIC_P_LINK, false, true, "pcie_out_data_bytes"),
	ROW(NIC_DID_STALL_PW_DATA, NIC_P_LINK, false, true, "pcie_stall_pw_data_ns"),
	ROW(NIC_DID_STALL_PW_HDR, NIC_P_LINK, false, true, "pcie_stall_pw_hdr_ns"),
	ROW(NIC_DID_STALL_NP_DATA, NIC_P_LINK, false, true, "pcie_stall_np_data_ns"),
	ROW(NIC_DID_STALL_NP_HDR, NIC_P_LINK, false, true, "pcie_stall_np_hdr_ns"),
	ROW(NIC_DID_STALL_NP_CPL, NIC_P_LINK, false, true, "pcie_stall_np_cpl_ns"),
	ROW(NIC_DID_STALL_NP_ORDER, NIC_P_LINK_TC, false, true, "pcie_stall_np_order_ns"),
	ROW(NIC_DID_PCIE_RD_LAT, NIC_P_LINK, false, true, "pcie_rd_lat_total_ns"),
	ROW(NIC_DID_PCIE_RD_COUNT, NIC_P_LINK, false, true, "pcie_rd_count"),
	ROW(NIC_DID_PCIE_RD_LAT_MAX, NIC_P_LINK, true, false, "pcie_rd_lat_max_ns"),
	ROW(NIC_DID_PCIE_RD_LAT_MIN, NIC_P_LINK, true, false, "pcie_rd_lat_min_ns"),
	ROW(NIC_DID_RX_CQE, NIC_P_NONE, false, true, "rx_cqe"),
	ROW(NIC_DID_RX_CQE_FUNC, NIC_P_FUNC, false, true, "func_rx_cqe"),
	ROW(NIC_DID_TX_CQE, NIC_P_NONE, false, true, "tx_cqe"),
	ROW(NIC_DID_TX_CQE_FUNC, NIC_P_FUNC, false, true, "func_tx_cqe"),
	ROW(NIC_DID_ICMC_ACCESSES, NIC_P_NONE, false, true, "icmc_accesses"),
	ROW(NIC_DID_ICMC_HITS, NIC_P_NONE, false, true, "icmc_hits"),
	ROW(NIC_DID_ICMC_MISSES, NIC_P_NONE, false, true, "icmc_misses"),
};

/* Row indexes the traffic model adds to. */
enum {
	R_RX_BYTES, R_RX_BYTES_PRIO, R_RX_PKTS, R_RX_PKTS_PRIO, R_RX_DROPS,
	R_RX_PAUSE, R_HOST_DISCARDS, R_TO_SCATTER, R_NO_WQE, R_NO_WQE_HP,
	R_ECN, R_CNP_HANDLED, R_CNP_SENT, R_QP_DESCHED, R_TX_BYTES,
	R_TX_BYTES_PRIO, R_TX_PKTS, R_TX_PKTS_PRIO, R_TX_PAUSE,
	R_PCIE_IN, R_PCIE_OUT, R_PCIE_IN_DATA, R_PCIE_OUT_DATA,
	R_STALL_PW_DATA, R_STALL_NP_ORDER = R_STALL_PW_DATA + 5,
	R_RD_LAT, R_RD_COUNT, R_RD_MAX, R_RD_MIN, R_RX_CQE, R_RX_CQE_FUNC,
	R_TX_CQE, R_TX_CQE_FUNC, R_ICMC_ACC, R_ICMC_HIT, R_ICMC_MISS,
	R_NR
};

static_assert(R_NR == NIC_NR_ROWS);

/* Instances of a row on @nic. */
static unsigned int nic_row_insts(const struct sim_nic *nic, unsigned int row)
{
	switch (nic_rows[row].param) {
	case NIC_P_PORT:
		return nic->nr_ports;
	case NIC_P_PORT_PRIO:
		return nic->nr_ports * NIC_NR_PRIOS;
	case NIC_P_HOST:
		return nic->nr_hosts;
	case NIC_P_LINK:
		return nic->nr_links;
	case NIC_P_LINK_TC:
		return nic->nr_links * NIC_NR_TCLASS;
	case NIC_P_FUNC:
		return nic->nr_funcs;
	}
	return 1;
}

/* The lower 32 bits of the data ID of instance @inst of @row. */
static u32 nic_row_lo(unsigned int row, unsigned int inst)
{
	switch (nic_rows[row].param) {
	case NIC_P_PORT_PRIO:
		return NIC_DID_PORT_PRIO(inst / NIC_NR_PRIOS, inst % NIC_NR_PRIOS);
	case NIC_P_LINK_TC:
		return NIC_DID_LINK_TC(inst / NIC_NR_TCLASS, inst % NIC_NR_TCLASS);
	case NIC_P_NONE:
		return 0;
	}
	return inst;
}

/**
 * nic_cntrs_init() - build the counter list of a NIC from its shape
 * @nic: the NIC, with its ports, hosts, links and functions set
 *
 * Return: 0 or -ENOMEM.
 */
int nic_cntrs_init(struct sim_nic *nic)
{
	unsigned int row, i, n = 0;

	for (row = 0; row < NIC_NR_ROWS; row++) {
		nic->row_first[row] = n;
		nic->row_n[row] = nic_row_insts(nic, row);
		n += nic->row_n[row];
	}
	nic->cntrs = kcalloc(n, sizeof(*nic->cntrs), GFP_KERNEL);
	nic->val = kcalloc(n, sizeof(*nic->val), GFP_KERNEL);
	if (!nic->cntrs || !nic->val) {
		nic_cntrs_free(nic);
		return -ENOMEM;
	}
	nic->nr_cntrs = n;
	for (row = 0; row < NIC_NR_ROWS; row++) {
		for (i = 0; i < nic->row_n[row]; i++) {
			struct nic_cntr *c = &nic->cntrs[nic->row_first[row] + i];

			c->id = NIC_DID(nic_rows[row].hi, nic_row_lo(row, i));
			c->cid = NIC_CID(row, i);
			c->row = row;
			c->inst = i;
		}
	}
	nic_stats_reset(nic);
	return 0;
}

/**
 * nic_cntrs_free() - free what nic_cntrs_init() allocated
 * @nic: the NIC (may be half built)
 */
void nic_cntrs_free(struct sim_nic *nic)
{
	kfree(nic->cntrs);
	kfree(nic->val);
	nic->cntrs = NULL;
	nic->val = NULL;
	nic->nr_cntrs = 0;
}

/**
 * nic_cntr_by_id() - the counter of a 64-bit data ID
 * @nic: the NIC
 * @id: the data ID
 *
 * Return: its index in &sim_nic.cntrs, or -ENOENT if the device has no
 * such data ID (an unknown row, an instance out of range, or a bit set
 * that the row does not use).
 */
int nic_cntr_by_id(const struct sim_nic *nic, u64 id)
{
	u32 hi = id >> 32, lo = (u32)id, inst;
	unsigned int row;

	for (row = 0; row < NIC_NR_ROWS && nic_rows[row].hi != hi; row++)
		;
	if (row == NIC_NR_ROWS)
		return -ENOENT;
	switch (nic_rows[row].param) {
	case NIC_P_PORT_PRIO:
		if (lo & ~0xfffU || NIC_DID_Y(lo) >= NIC_NR_PRIOS)
			return -ENOENT;
		inst = NIC_DID_XX(lo) * NIC_NR_PRIOS + NIC_DID_Y(lo);
		if (NIC_DID_XX(lo) >= nic->nr_ports)
			return -ENOENT;
		break;
	case NIC_P_LINK_TC:
		if (lo & 0x00ffff00 || NIC_DID_TCLASS(lo) >= NIC_NR_TCLASS ||
		    NIC_DID_XX(lo) >= nic->nr_links)
			return -ENOENT;
		inst = NIC_DID_XX(lo) * NIC_NR_TCLASS + NIC_DID_TCLASS(lo);
		break;
	case NIC_P_FUNC:
		if (lo & ~0xffffU)
			return -ENOENT;
		inst = lo;
		break;
	case NIC_P_NONE:
		if (lo)
			return -ENOENT;
		inst = 0;
		break;
	default:
		if (lo & ~0xffU)
			return -ENOENT;
		inst = lo;
	}
	if (inst >= nic->row_n[row])
		return -ENOENT;
	return nic->row_first[row] + inst;
}

/**
 * nic_cntr_by_cid() - the counter of a 16-bit counter_id
 * @nic: the NIC
 * @cid: the counter_id (any 32-bit value is checked)
 *
 * Return: its index in &sim_nic.cntrs, or -ENOENT.
 */
int nic_cntr_by_cid(const struct sim_nic *nic, u32 cid)
{
	u32 row = NIC_CID_ROW(cid), inst = NIC_CID_INST(cid);

	if (cid > 0xffff || cid < NIC_CID(0, 0) || row >= NIC_NR_ROWS ||
	    inst >= nic->row_n[row])
		return -ENOENT;
	return nic->row_first[row] + inst;
}

/**
 * nic_cntr_value() - the value a sample of counter @i reads now
 * @nic: the NIC
 * @i: index in &sim_nic.cntrs
 *
 * Return: the counter, or a Statistic's extreme since the last sample
 * (0 when nothing was measured).
 */
u64 nic_cntr_value(const struct sim_nic *nic, unsigned int i)
{
	u64 v = nic->val[i];

	return nic->cntrs[i].row == R_RD_MIN && v == U64_MAX ? 0 : v;
}

/**
 * nic_cntr_is_stat() - is counter @i a Statistic?
 * @nic: the NIC
 * @i: index in &sim_nic.cntrs
 *
 * Return: true for a Statistic (an extreme since the last sample).
 */
bool nic_cntr_is_stat(const struct sim_nic *nic, unsigned int i)
{
	return nic_rows[nic->cntrs[i].row].stat;
}

/**
 * nic_stat_reset() - start Statistic @i afresh (a sample read it)
 * @nic: the NIC
 * @i: index in &sim_nic.cntrs of a Statistic
 */
void nic_stat_reset(struct sim_nic *nic, unsigned int i)
{
	nic->val[i] = nic->cntrs[i].row == R_RD_MIN ? U64_MAX : 0;
}

/**
 * nic_stats_reset() - start every Statistic afresh
 * @nic: the NIC
 */
void nic_stats_reset(struct sim_nic *nic)
{
	unsigned int l;

	for (l = 0; l < nic->nr_links; l++) {
		nic->val[nic->row_first[R_RD_MAX] + l] = 0;
		nic->val[nic->row_first[R_RD_MIN] + l] = U64_MAX;
	}
}

enum nic_ev_kind {
	EV_RX, EV_TX, EV_RX_DROP, EV_PAUSE_RX, EV_PAUSE_TX, EV_DISCARD,
	EV_SCATTER, EV_NO_WQE, EV_NO_WQE_HP, EV_ECN, EV_CNP_HANDLED,
	EV_CNP_SENT, EV_QP_DESCHED, EV_PCIE_IN, EV_PCIE_OUT, EV_STALL,
	EV_PCIE_READ, EV_RX_CQE, EV_TX_CQE, EV_ICMC_HIT, EV_ICMC_MISS, EV_NR
};

static const char * const nic_ev_names[EV_NR] = {
	[EV_RX] = "rx", [EV_TX] = "tx", [EV_RX_DROP] = "rx_drop",
	[EV_PAUSE_RX] = "pause_rx", [EV_PAUSE_TX] = "pause_tx",
	[EV_DISCARD] = "discard", [EV_SCATTER] = "scatter",
	[EV_NO_WQE] = "no_wqe", [EV_NO_WQE_HP] = "no_wqe_hairpin",
	[EV_ECN] = "ecn", [EV_CNP_HANDLED] = "cnp_handled",
	[EV_CNP_SENT] = "cnp_sent", [EV_QP_DESCHED] = "qp_desched",
	[EV_PCIE_IN] = "pcie_in", [EV_PCIE_OUT] = "pcie_out",
	[EV_STALL] = "stall", [EV_PCIE_READ] = "pcie_read",
	[EV_RX_CQE] = "rx_cqe", [EV_TX_CQE] = "tx_cqe",
	[EV_ICMC_HIT] = "icmc_hit", [EV_ICMC_MISS] = "icmc_miss",
};

/* Stall kinds, in the order of their rows from R_STALL_PW_DATA. */
static const char * const nic_stall_names[] = {
	"pw_data", "pw_hdr", "np_data", "np_hdr", "np_cpl", "np_order",
};

#define NIC_MAX_EV_SIZE		65536		/* bytes of a packet or TLP */
#define NIC_MAX_EV_NS		NSEC_PER_SEC	/* a latency or stall */
#define NIC_MAX_EV_COUNT	BIT_ULL(32)	/* events per inject */

static u64 *nic_v(struct sim_nic *nic, unsigned int row, unsigned int inst)
{
	return &nic->val[nic->row_first[row] + inst];
}

/* ---- diagnostic data registers (NIC_DDR_*) ------------------------------ */

/* A PCIe read of @lat ns on @link: the slots counting its Statistics. */
static void nic_slots_stat(struct sim_nic *nic, unsigned int link, u64 lat)
{
	int max = nic->row_first[R_RD_MAX] + link;
	int min = nic->row_first[R_RD_MIN] + link;
	unsigned int s;

	for (s = 0; s < nic->nr_slots; s++) {
		struct nic_slot *sl = &nic->slots[s];

		if (!(sl->status & NIC_DDR_ST_ACTIVE))
			continue;
		if (sl->cntr == max)
			sl->acc = max(sl->acc, lat);
		else if (sl->cntr == min)
			sl->acc = min(sl->acc, lat);
	}
}

/* Restart slot @sl's count from now. */
static void nic_slot_restart(struct sim_nic *nic, struct nic_slot *sl)
{
	sl->base = nic->val[sl->cntr];
	sl->acc = sl->min ? U64_MAX : 0;
}

/**
 * nic_slot_value() - what NIC_DDR_VALUE of slot @s reads
 * @nic: the NIC
 * @s: the slot
 *
 * Return: a Counter's increase, or a Statistic's extreme (0 while there
 * is none), since the slot was enabled or cleared; frozen once disabled.
 */
u64 nic_slot_value(const struct sim_nic *nic, unsigned int s)
{
	const struct nic_slot *sl = &nic->slots[s];

	if (!(sl->status & NIC_DDR_ST_ACTIVE))
		return sl->frozen;
	if (sl->status & NIC_DDR_ST_STATISTIC)
		return sl->acc == U64_MAX ? 0 : sl->acc;
	return nic->val[sl->cntr] - sl->base;
}

/**
 * nic_slot_ctrl() - a write of NIC_DDR_CTRL of slot @s
 * @nic: the NIC
 * @s: the slot
 * @val: NIC_DDR_CTRL_*
 *
 * Enabling looks the data ID up once; an unknown one leaves the slot
 * off with NIC_DDR_ST_UNKNOWN_ID.  Called with sd->lock held.
 */
void nic_slot_ctrl(struct sim_nic *nic, unsigned int s, u32 val)
{
	struct nic_slot *sl = &nic->slots[s];
	bool on = sl->status & NIC_DDR_ST_ACTIVE;
	int i;

	if (!(val & NIC_DDR_CTRL_ENABLE)) {
		if (on)
			sl->frozen = nic_slot_value(nic, s);
		else if (val & NIC_DDR_CTRL_CLEAR)
			sl->frozen = 0;
		sl->status &= ~NIC_DDR_ST_ACTIVE;
		return;
	}
	if (on) {
		if (val & NIC_DDR_CTRL_CLEAR)
			nic_slot_restart(nic, sl);
		return;
	}
	i = nic_cntr_by_id(nic, sl->id);
	if (i < 0) {
		sl->status = NIC_DDR_ST_UNKNOWN_ID;
		return;
	}
	sl->cntr = i;
	sl->min = nic->cntrs[i].row == R_RD_MIN;
	sl->status = NIC_DDR_ST_ACTIVE |
		     (nic_rows[nic->cntrs[i].row].stat ? NIC_DDR_ST_STATISTIC : 0);
	nic_slot_restart(nic, sl);
}

/* @n events @ev (checked against the device by nic_ev_check()). */
static void nic_ev_apply(struct sim_nic *nic, const struct nic_ev *ev, u64 n)
{
	unsigned int pp = ev->a * NIC_NR_PRIOS + ev->b;
	u64 bytes = ev->size * n;
	u64 *v;

	switch (ev->kind) {
	case EV_RX:
	case EV_TX: {
		bool rx = ev->kind == EV_RX;

		*nic_v(nic, rx ? R_RX_BYTES : R_TX_BYTES, ev->a) += bytes;
		*nic_v(nic, rx ? R_RX_BYTES_PRIO : R_TX_BYTES_PRIO, pp) += bytes;
		*nic_v(nic, rx ? R_RX_PKTS : R_TX_PKTS, ev->a) += n;
		*nic_v(nic, rx ? R_RX_PKTS_PRIO : R_TX_PKTS_PRIO, pp) += n;
		break;
	}
	case EV_RX_DROP:
		*nic_v(nic, R_RX_DROPS, ev->a) += n;
		break;
	case EV_PAUSE_RX:
		*nic_v(nic, R_RX_PAUSE, pp) += n;
		break;
	case EV_PAUSE_TX:
		*nic_v(nic, R_TX_PAUSE, pp) += n;
		break;
	case EV_DISCARD:
	case EV_SCATTER:
	case EV_NO_WQE:
	case EV_NO_WQE_HP:
	case EV_ECN:
		*nic_v(nic, R_HOST_DISCARDS + ev->kind - EV_DISCARD, ev->a) += n;
		break;
	case EV_CNP_HANDLED:
		*nic_v(nic, R_CNP_HANDLED, ev->a) += n;
		break;
	case EV_CNP_SENT:
		*nic_v(nic, R_CNP_SENT, ev->a) += n;
		break;
	case EV_QP_DESCHED:
		*nic_v(nic, R_QP_DESCHED, 0) += n;
		break;
	case EV_PCIE_IN:
	case EV_PCIE_OUT: {
		bool in = ev->kind == EV_PCIE_IN;

		*nic_v(nic, in ? R_PCIE_IN : R_PCIE_OUT, ev->a) +=
			(u64)(ev->size + NIC_PCIE_TLP_HDR) * n;
		*nic_v(nic, in ? R_PCIE_IN_DATA : R_PCIE_OUT_DATA, ev->a) += bytes;
		break;
	}
	case EV_STALL:
		if (R_STALL_PW_DATA + ev->b == R_STALL_NP_ORDER)
			v = nic_v(nic, R_STALL_NP_ORDER,
				  ev->a * NIC_NR_TCLASS + ev->func);
		else
			v = nic_v(nic, R_STALL_PW_DATA + ev->b, ev->a);
		*v += bytes;
		break;
	case EV_PCIE_READ:
		if (!n)
			break;
		*nic_v(nic, R_RD_LAT, ev->a) += bytes;
		*nic_v(nic, R_RD_COUNT, ev->a) += n;
		v = nic_v(nic, R_RD_MAX, ev->a);
		*v = max_t(u64, *v, ev->size);
		v = nic_v(nic, R_RD_MIN, ev->a);
		*v = min_t(u64, *v, ev->size);
		nic_slots_stat(nic, ev->a, ev->size);
		break;
	case EV_RX_CQE:
	case EV_TX_CQE: {
		bool rx = ev->kind == EV_RX_CQE;

		*nic_v(nic, rx ? R_RX_CQE : R_TX_CQE, 0) += n;
		*nic_v(nic, rx ? R_RX_CQE_FUNC : R_TX_CQE_FUNC, ev->func) += n;
		break;
	}
	case EV_ICMC_HIT:
	case EV_ICMC_MISS:
		*nic_v(nic, R_ICMC_ACC, 0) += n;
		*nic_v(nic, ev->kind == EV_ICMC_HIT ? R_ICMC_HIT : R_ICMC_MISS, 0) += n;
		break;
	}
}

/**
 * nic_flows_run() - deliver what the flows sent up to sim time @t
 * @nic: the NIC
 * @t: sim time, no earlier than at the last call
 *
 * Called with sd->lock held.
 */
void nic_flows_run(struct sim_nic *nic, u64 t)
{
	unsigned int i;

	for (i = 0; i < nic->nr_flows; i++) {
		struct nic_flow *f = &nic->flows[i];
		u64 due;

		if (t <= f->start_ns)
			continue;
		due = mul_u64_u64_div_u64(t - f->start_ns, f->rate, NSEC_PER_SEC);
		if (due > f->done) {
			nic_ev_apply(nic, &f->ev, due - f->done);
			f->done = due;
		}
	}
}

/**
 * struct nic_req - a parsed inject or flow line
 * @ev: the event
 * @count: events (inject)
 * @rate: events per second (flows)
 * @id: flow id
 * @has_id: id= was given
 * @has_rate: rate= was given
 * @has_count: count= was given
 * @has_ev: ev= was given
 */
struct nic_req {
	struct nic_ev ev;
	u64 count;
	u64 rate;
	u32 id;
	bool has_id, has_rate, has_count, has_ev;
};

static int nic_parse_u8(const char *v, u8 *out, u32 max)
{
	u32 x;
	int ret = kstrtou32(v, 0, &x);

	if (ret || x >= max)
		return -EINVAL;
	*out = x;
	return 0;
}

/* Is @ev an event of this device?  (ranges of its keys) */
static int nic_ev_check(const struct sim_nic *nic, const struct nic_ev *ev)
{
	switch (ev->kind) {
	case EV_RX:
	case EV_TX:
	case EV_PAUSE_RX:
	case EV_PAUSE_TX:
		if (ev->b >= NIC_NR_PRIOS)
			return -EINVAL;
		fallthrough;
	case EV_RX_DROP:
	case EV_CNP_HANDLED:
	case EV_CNP_SENT:
		if (ev->a >= nic->nr_ports)
			return -EINVAL;
		if ((ev->kind == EV_RX || ev->kind == EV_TX) &&
		    (!ev->size || ev->size > NIC_MAX_EV_SIZE))
			return -EINVAL;
		break;
	case EV_DISCARD ... EV_ECN:
		if (ev->a >= nic->nr_hosts)
			return -EINVAL;
		break;
	case EV_PCIE_IN:
	case EV_PCIE_OUT:
		if (!ev->size || ev->size > NIC_MAX_EV_SIZE)
			return -EINVAL;
		fallthrough;
	case EV_STALL:
	case EV_PCIE_READ:
		if (ev->a >= nic->nr_links || ev->size > NIC_MAX_EV_NS ||
		    ev->func >= NIC_NR_TCLASS)
			return -EINVAL;
		break;
	case EV_RX_CQE:
	case EV_TX_CQE:
		if (ev->func >= nic->nr_funcs)
			return -EINVAL;
		break;
	}
	return 0;
}

/*
 * "key=value ..." into @r.  The event's fields: a = port, host or link;
 * b = priority or stall kind; func = function or tclass; size = bytes,
 * latency or stall ns.
 */
static int nic_parse(const struct sim_nic *nic, char *buf, struct nic_req *r)
{
	char *key, *val;
	int ret;
	u8 u;

	r->count = 1;
	while ((ret = sim_next_kv(&buf, &key, &val)) > 0) {
		if (!strcmp(key, "ev")) {
			ret = match_string(nic_ev_names, EV_NR, val);
			r->ev.kind = ret;
			r->has_ev = true;
		} else if (!strcmp(key, "port") || !strcmp(key, "host") ||
			   !strcmp(key, "link")) {
			ret = nic_parse_u8(val, &r->ev.a, 256);
		} else if (!strcmp(key, "prio")) {
			ret = nic_parse_u8(val, &r->ev.b, NIC_NR_PRIOS);
		} else if (!strcmp(key, "kind")) {
			ret = match_string(nic_stall_names,
					   ARRAY_SIZE(nic_stall_names), val);
			r->ev.b = ret;
		} else if (!strcmp(key, "tc")) {
			ret = nic_parse_u8(val, &u, NIC_NR_TCLASS);
			r->ev.func = u;
		} else if (!strcmp(key, "func")) {
			ret = kstrtou16(val, 0, &r->ev.func);
		} else if (!strcmp(key, "size") || !strcmp(key, "lat") ||
			   !strcmp(key, "ns")) {
			ret = kstrtou32(val, 0, &r->ev.size);
		} else if (!strcmp(key, "count")) {
			ret = kstrtou64(val, 0, &r->count);
			r->has_count = true;
		} else if (!strcmp(key, "rate")) {
			ret = kstrtou64(val, 0, &r->rate);
			r->has_rate = true;
		} else if (!strcmp(key, "id")) {
			ret = kstrtou32(val, 0, &r->id);
			r->has_id = true;
		} else {
			ret = -EINVAL;
		}
		if (ret < 0)
			return -EINVAL;
	}
	if (ret)
		return ret;
	if (r->count > NIC_MAX_EV_COUNT || r->rate > NSEC_PER_SEC)
		return -EINVAL;
	return r->has_ev ? nic_ev_check(nic, &r->ev) : 0;
}

static ssize_t nic_inject_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct sim_nic *nic = file->private_data;
	struct sim_dev *sd = nic->sd;
	struct nic_req r = {};
	unsigned long flags;
	char *buf;
	int ret;

	buf = sim_user_buf(ubuf, len, NIC_CMD_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = nic_parse(nic, buf, &r);
	kfree(buf);
	if (ret)
		return ret;
	if (!r.has_ev || r.has_rate || r.has_id)
		return -EINVAL;

	flags = sim_lock(sd);
	/* Samples due before now must not see these events. */
	sim_unit_catch_up(sd, &nic->unit, sim_now(sd));
	nic_ev_apply(nic, &r.ev, r.count);
	sim_unlock(sd, flags);
	return len;
}

static const struct file_operations nic_inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = nic_inject_write,
};

static int nic_flows_cmd(struct sim_nic *nic, char *cmd, char *args)
{
	struct sim_dev *sd = nic->sd;
	struct nic_req r = {};
	unsigned long flags;
	unsigned int i;
	int ret;

	if (strcmp(cmd, "clear")) {
		ret = nic_parse(nic, args, &r);
		if (ret)
			return ret;
		if (!r.has_id || r.has_count)
			return -EINVAL;
		if (!strcmp(cmd, "add") ? !r.has_ev || !r.has_rate :
		    strcmp(cmd, "del") || r.has_ev || r.has_rate)
			return -EINVAL;
	}

	flags = sim_lock(sd);
	/* what the flows sent so far is counted at its time */
	sim_unit_catch_up(sd, &nic->unit, sim_now(sd));
	for (i = 0; i < nic->nr_flows && nic->flows[i].id != r.id; i++)
		;
	ret = 0;
	if (!strcmp(cmd, "clear")) {
		nic->nr_flows = 0;
	} else if (!strcmp(cmd, "add")) {
		if (i < nic->nr_flows)
			ret = -EEXIST;
		else if (nic->nr_flows == NIC_MAX_FLOWS)
			ret = -ENOSPC;
		else
			nic->flows[nic->nr_flows++] = (struct nic_flow){
				.id = r.id, .ev = r.ev, .rate = r.rate,
				.start_ns = sim_now(sd),
			};
	} else if (i == nic->nr_flows) {
		ret = -ENOENT;
	} else {
		nic->flows[i] = nic->flows[--nic->nr_flows];
	}
	sim_unlock(sd, flags);
	return ret;
}

static ssize_t nic_flows_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct sim_nic *nic = file_inode(file)->i_private;
	char *buf, *args, *cmd;
	int ret;

	buf = sim_user_buf(ubuf, len, NIC_CMD_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	args = strim(buf);
	cmd = strsep(&args, " \t");
	ret = nic_flows_cmd(nic, cmd, args ?: "");
	kfree(buf);
	return ret ?: len;
}

static int nic_flows_show(struct seq_file *m, void *v)
{
	struct sim_nic *nic = m->private;
	struct sim_dev *sd = nic->sd;
	unsigned long flags;
	unsigned int i;

	flags = sim_lock(sd);
	sim_unit_catch_up(sd, &nic->unit, sim_now(sd));
	for (i = 0; i < nic->nr_flows; i++) {
		const struct nic_flow *f = &nic->flows[i];

		seq_printf(m, "id=%u ev=%s a=%u b=%u func=%u size=%u rate=%llu events=%llu\n",
			   f->id, nic_ev_names[f->ev.kind], f->ev.a, f->ev.b,
			   f->ev.func, f->ev.size, f->rate, f->done);
	}
	sim_unlock(sd, flags);
	return 0;
}

static int nic_flows_open(struct inode *inode, struct file *file)
{
	return single_open(file, nic_flows_show, inode->i_private);
}

static const struct file_operations nic_flows_fops = {
	.owner = THIS_MODULE,
	.open = nic_flows_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = nic_flows_write,
};

/* Every counter and its value now (Statistics: since the last sample). */
static int nic_counters_show(struct seq_file *m, void *v)
{
	struct sim_nic *nic = m->private;
	struct sim_dev *sd = nic->sd;
	unsigned long flags;
	unsigned int i;
	u64 *vals;

	vals = kmalloc_array(nic->nr_cntrs, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	flags = sim_lock(sd);
	sim_unit_catch_up(sd, &nic->unit, sim_now(sd));
	for (i = 0; i < nic->nr_cntrs; i++)
		vals[i] = nic_cntr_value(nic, i);
	sim_unlock(sd, flags);

	for (i = 0; i < nic->nr_cntrs; i++) {
		const struct nic_cntr *c = &nic->cntrs[i];

		seq_printf(m, "%#018llx %#06x %s.%u %llu\n", c->id, c->cid,
			   nic_rows[c->row].name, c->inst, vals[i]);
	}
	kfree(vals);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nic_counters);

/**
 * nic_ids_debugfs() - the traffic knobs of a NIC
 * @nic: the NIC
 * @dir: its debugfs directory
 */
void nic_ids_debugfs(struct sim_nic *nic, struct dentry *dir)
{
	debugfs_create_file("inject", 0200, dir, nic, &nic_inject_fops);
	debugfs_create_file("flows", 0600, dir, nic, &nic_flows_fops);
	debugfs_create_file("counters", 0400, dir, nic, &nic_counters_fops);
}
