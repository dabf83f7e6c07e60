// SPDX-License-Identifier: GPL-2.0
/*
 * The data IDs of the simulated NIC (hw/nic_cmd.h): one row per data ID
 * of the DOCA Telemetry Diag appendix, each with as many instances as
 * the device has ports (x priorities), hosts, PCIe links (x tclasses)
 * or functions.  Every instance is a counter with a 64-bit value.
 */

#include <linux/slab.h>

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
 * nic_stats_reset() - start every Statistic afresh (at each sample)
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

void nic_flows_run(struct sim_nic *nic, u64 t)
{
}

void nic_ids_debugfs(struct sim_nic *nic, struct dentry *dir)
{
}
