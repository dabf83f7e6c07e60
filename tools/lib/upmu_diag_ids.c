// SPDX-License-Identifier: GPL-2.0
/*
 * The data IDs of the DOCA Telemetry Diag appendix, one row each, in the
 * appendix order (which is also the row order of the device's 16-bit
 * counter_ids, hw/nic_cmd.h NIC_CID): name, class, parameters and
 * description, for upmu-diag's list mode, CSV column names and the
 * 64-bit <-> 16-bit mapping of the mlx5 command layouts.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/nic_cmd.h"
#include "upmu_diag.h"

#define C(h, p, n, d)	{ (h), UPMU_DIAG_P_##p, false, (n), (d) }
#define S(h, p, n, d)	{ (h), UPMU_DIAG_P_##p, true, (n), (d) }

const struct upmu_diag_id_row upmu_diag_ids[] = {
	C(NIC_DID_RX_BYTES, PORT, "port_rx_bytes",
	  "Bytes received on the physical port"),
	C(NIC_DID_RX_BYTES_PRIO, PORT_PRIO, "port_prio_rx_bytes",
	  "Bytes received on the physical port and priority"),
	C(NIC_DID_RX_PACKETS, PORT, "port_rx_packets",
	  "Packets received on the physical port"),
	C(NIC_DID_RX_PACKETS_PRIO, PORT_PRIO, "port_prio_rx_packets",
	  "Packets received on the physical port and priority"),
	C(NIC_DID_RX_BUFFER_DROPS, PORT, "port_rx_buffer_drops",
	  "Received packets dropped for lack of buffers on the physical port"),
	C(NIC_DID_RX_PAUSE, PORT_PRIO, "port_prio_rx_pause",
	  "Link-layer pause packets received on the physical port and priority"),
	C(NIC_DID_RX_HOST_DISCARDS, HOST, "host_rx_discards",
	  "Packets discarded for no data or descriptor buffers in the RX buffer, per host"),
	C(NIC_DID_RX_TO_SCATTER, HOST, "host_rx_to_scatter",
	  "Packets passed from RX transport to the scatter engine, per host"),
	C(NIC_DID_RX_NO_WQE, HOST, "host_rx_no_wqe",
	  "Packets dropped for lack of WQE on their QPs/RQs (not hairpin)"),
	C(NIC_DID_RX_NO_WQE_HAIRPIN, HOST, "host_rx_no_wqe_hairpin",
	  "Packets dropped for lack of WQE on their hairpin QPs/RQs"),
	C(NIC_DID_RX_ECN_ROCE, HOST, "host_rx_ecn_roce",
	  "RoCEv2 packets received by the notification point marked for congestion (ECN)"),
	C(NIC_DID_CNP_HANDLED, PORT, "port_cnp_handled",
	  "CNP packets received and handled by the reaction point, per port"),
	C(NIC_DID_CNP_SENT, PORT, "port_cnp_sent",
	  "CNP packets sent by the notification point, per port"),
	C(NIC_DID_QP_DESCHED, NONE, "qp_desched",
	  "QPs descheduled by congestion control rate limitation"),
	C(NIC_DID_TX_BYTES, PORT, "port_tx_bytes",
	  "Bytes transmitted on the physical port (no loopback traffic)"),
	C(NIC_DID_TX_BYTES_PRIO, PORT_PRIO, "port_prio_tx_bytes",
	  "Bytes transmitted on the physical port and priority (no loopback traffic)"),
	C(NIC_DID_TX_PACKETS, PORT, "port_tx_packets",
	  "Packets transmitted on the physical port (no loopback traffic)"),
	C(NIC_DID_TX_PACKETS_PRIO, PORT_PRIO, "port_prio_tx_packets",
	  "Packets transmitted on the physical port and priority (no loopback traffic)"),
	C(NIC_DID_TX_PAUSE, PORT_PRIO, "port_prio_tx_pause",
	  "Link-layer pause packets transmitted on the physical port and priority"),
	C(NIC_DID_PCIE_IN_BYTES, LINK, "pcie_in_bytes",
	  "Bytes received from PCIe toward the device, per PCIe link"),
	C(NIC_DID_PCIE_OUT_BYTES, LINK, "pcie_out_bytes",
	  "Bytes transmitted from the device toward PCIe, per PCIe link"),
	C(NIC_DID_PCIE_IN_DATA, LINK, "pcie_in_data_bytes",
	  "Data bytes (no headers) received from PCIe toward the device, per PCIe link"),
	C(NIC_DID_PCIE_OUT_DATA, LINK, "pcie_out_data_bytes",
	  "Data bytes (no headers) transmitted from the device toward PCIe, per PCIe link"),
	C(NIC_DID_STALL_PW_DATA, LINK, "pcie_stall_pw_data_ns",
	  "ns outbound posted writes stalled for data credits, per PCIe link"),
	C(NIC_DID_STALL_PW_HDR, LINK, "pcie_stall_pw_hdr_ns",
	  "ns outbound posted writes stalled for header credits, per PCIe link"),
	C(NIC_DID_STALL_NP_DATA, LINK, "pcie_stall_np_data_ns",
	  "ns outbound non-posted reads stalled for data credits, per PCIe link"),
	C(NIC_DID_STALL_NP_HDR, LINK, "pcie_stall_np_hdr_ns",
	  "ns outbound non-posted reads stalled for header credits, per PCIe link"),
	C(NIC_DID_STALL_NP_CPL, LINK, "pcie_stall_np_cpl_ns",
	  "ns outbound non-posted reads stalled for NIC completion buffers, per PCIe link"),
	C(NIC_DID_STALL_NP_ORDER, LINK_TC, "pcie_stall_np_order_ns",
	  "ns outbound non-posted reads stalled by PCIe ordering, per PCIe link and tclass"),
	C(NIC_DID_PCIE_RD_LAT, LINK, "pcie_rd_lat_total_ns",
	  "Total latency (ns) of PCIe reads from the device, per PCIe link"),
	C(NIC_DID_PCIE_RD_COUNT, LINK, "pcie_rd_count",
	  "PCIe reads counted in the total latency, per PCIe link"),
	S(NIC_DID_PCIE_RD_LAT_MAX, LINK, "pcie_rd_lat_max_ns",
	  "Maximum latency (ns) of one PCIe read from the device, per PCIe link"),
	S(NIC_DID_PCIE_RD_LAT_MIN, LINK, "pcie_rd_lat_min_ns",
	  "Minimum latency (ns) of one PCIe read from the device, per PCIe link"),
	C(NIC_DID_RX_CQE, NONE, "rx_cqe", "Responder (RX) CQEs"),
	C(NIC_DID_RX_CQE_FUNC, FUNC, "func_rx_cqe", "RX CQEs per function"),
	C(NIC_DID_TX_CQE, NONE, "tx_cqe", "Requestor (TX) CQEs"),
	C(NIC_DID_TX_CQE_FUNC, FUNC, "func_tx_cqe", "TX CQEs per function"),
	C(NIC_DID_ICMC_ACCESSES, NONE, "icmc_accesses", "Accesses to the ICMC"),
	C(NIC_DID_ICMC_HITS, NONE, "icmc_hits", "ICMC hits"),
	C(NIC_DID_ICMC_MISSES, NONE, "icmc_misses", "ICMC misses"),
};

const unsigned int upmu_diag_nr_ids = sizeof(upmu_diag_ids) / sizeof(upmu_diag_ids[0]);

/* Instances per port/link of the rows with two parameters. */
#define NR_PRIO		8
#define NR_TCLASS	8

int upmu_diag_id_index(uint64_t id)
{
	uint32_t hi = id >> 32;
	unsigned int i;

	for (i = 0; i < upmu_diag_nr_ids; i++)
		if (upmu_diag_ids[i].hi == hi)
			return i;
	return -1;
}

const struct upmu_diag_id_row *upmu_diag_id_row(uint64_t id)
{
	int i = upmu_diag_id_index(id);

	return i < 0 ? NULL : &upmu_diag_ids[i];
}

void upmu_diag_id_pattern(const struct upmu_diag_id_row *row, char *buf,
			  size_t len)
{
	static const char *const lo[] = {
		[UPMU_DIAG_P_NONE] = "00000000", [UPMU_DIAG_P_PORT] = "000000XX",
		[UPMU_DIAG_P_PORT_PRIO] = "00000YXX", [UPMU_DIAG_P_HOST] = "000000XX",
		[UPMU_DIAG_P_LINK] = "00ZZYYXX", [UPMU_DIAG_P_LINK_TC] = "ZZZZYYXX",
		[UPMU_DIAG_P_FUNC] = "0000XXXX",
	};

	snprintf(buf, len, "0x%08" PRIx32 "%s", row->hi, lo[row->param]);
}

/* Bits of the low half a row's parameter may set. */
static uint32_t param_mask(enum upmu_diag_param p)
{
	switch (p) {
	case UPMU_DIAG_P_NONE:
		return 0;
	case UPMU_DIAG_P_PORT:
	case UPMU_DIAG_P_HOST:
		return 0xff;
	case UPMU_DIAG_P_PORT_PRIO:
		return 0xfff;
	case UPMU_DIAG_P_LINK:
		return 0xffffff;
	case UPMU_DIAG_P_LINK_TC:
	case UPMU_DIAG_P_FUNC:
		break;
	}
	return p == UPMU_DIAG_P_FUNC ? 0xffff : 0xffffffff;
}

int upmu_diag_id_to_cid(uint64_t id)
{
	int row = upmu_diag_id_index(id);
	uint32_t lo = (uint32_t)id, inst;

	if (row < 0 || (lo & ~param_mask(upmu_diag_ids[row].param)))
		return -EINVAL;
	switch (upmu_diag_ids[row].param) {
	case UPMU_DIAG_P_PORT_PRIO:
		if (NIC_DID_Y(id) >= NR_PRIO)
			return -EINVAL;
		inst = NIC_DID_XX(id) * NR_PRIO + NIC_DID_Y(id);
		break;
	case UPMU_DIAG_P_LINK:
		/* this device has no depth or node: YY and ZZ are 0 */
		if (lo >> 8)
			return -EINVAL;
		inst = NIC_DID_XX(id);
		break;
	case UPMU_DIAG_P_LINK_TC:
		if ((lo & 0x00ffff00) || NIC_DID_TCLASS(id) >= NR_TCLASS)
			return -EINVAL;
		inst = NIC_DID_XX(id) * NR_TCLASS + NIC_DID_TCLASS(id);
		break;
	default:
		inst = lo;
		break;
	}
	if (inst > 0x3ff)
		return -EINVAL;
	return NIC_CID(row, inst);
}

uint64_t upmu_diag_cid_to_id(uint16_t cid)
{
	unsigned int row = NIC_CID_ROW(cid), inst = NIC_CID_INST(cid);
	uint32_t lo;

	if ((cid >> 10) == 0 || row >= upmu_diag_nr_ids)
		return 0;
	switch (upmu_diag_ids[row].param) {
	case UPMU_DIAG_P_NONE:
		if (inst)
			return 0;
		lo = 0;
		break;
	case UPMU_DIAG_P_PORT_PRIO:
		lo = NIC_DID_PORT_PRIO(inst / NR_PRIO, inst % NR_PRIO);
		break;
	case UPMU_DIAG_P_LINK_TC:
		lo = NIC_DID_LINK_TC(inst / NR_TCLASS, inst % NR_TCLASS);
		break;
	default:
		lo = inst;
		break;
	}
	return NIC_DID(upmu_diag_ids[row].hi, lo);
}

void upmu_diag_id_name(uint64_t id, char *buf, size_t len)
{
	const struct upmu_diag_id_row *r = upmu_diag_id_row(id);
	unsigned int xx = NIC_DID_XX(id);

	if (!r || upmu_diag_id_to_cid(id) < 0) {
		snprintf(buf, len, "0x%016" PRIx64, id);
		return;
	}
	switch (r->param) {
	case UPMU_DIAG_P_NONE:
		snprintf(buf, len, "%s", r->name);
		break;
	case UPMU_DIAG_P_PORT:
		snprintf(buf, len, "%s.p%u", r->name, xx);
		break;
	case UPMU_DIAG_P_PORT_PRIO:
		snprintf(buf, len, "%s.p%u.prio%u", r->name, xx, NIC_DID_Y(id));
		break;
	case UPMU_DIAG_P_HOST:
		snprintf(buf, len, "%s.h%u", r->name, xx);
		break;
	case UPMU_DIAG_P_LINK:
		snprintf(buf, len, "%s.l%u", r->name, xx);
		break;
	case UPMU_DIAG_P_LINK_TC:
		snprintf(buf, len, "%s.l%u.tc%u", r->name, xx, NIC_DID_TCLASS(id));
		break;
	case UPMU_DIAG_P_FUNC:
		snprintf(buf, len, "%s.f%u", r->name, NIC_DID_FUNC(id));
		break;
	}
}

/* Parses "N" after @prefix at *@s; advances *@s. */
static int take_num(const char **s, const char *prefix, unsigned int max,
		    unsigned int *v)
{
	size_t n = strlen(prefix);
	char *end;
	unsigned long x;

	if (strncmp(*s, prefix, n) || (*s)[n] < '0' || (*s)[n] > '9')
		return -EINVAL;
	errno = 0;
	x = strtoul(*s + n, &end, 10);
	if (errno || x > max)
		return -EINVAL;
	*v = x;
	*s = end;
	return 0;
}

int upmu_diag_id_parse(const char *s, uint64_t *id)
{
	const struct upmu_diag_id_row *r = NULL;
	unsigned int i, a = 0, b = 0;
	const char *p;
	uint32_t lo;

	if (!s || !*s)
		return -EINVAL;
	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		char *end;
		unsigned long long v;

		errno = 0;
		v = strtoull(s, &end, 16);
		if (errno || *end || end == s + 2)
			return -EINVAL;
		*id = v;
		return 0;
	}
	for (i = 0; i < upmu_diag_nr_ids; i++) {
		size_t n = strlen(upmu_diag_ids[i].name);

		if (!strncmp(s, upmu_diag_ids[i].name, n) &&
		    (s[n] == '.' || !s[n])) {
			r = &upmu_diag_ids[i];
			break;
		}
	}
	if (!r)
		return -EINVAL;
	p = s + strlen(r->name);
	switch (r->param) {
	case UPMU_DIAG_P_NONE:
		lo = 0;
		break;
	case UPMU_DIAG_P_PORT:
		if (take_num(&p, ".p", 0xff, &a))
			return -EINVAL;
		lo = a;
		break;
	case UPMU_DIAG_P_PORT_PRIO:
		if (take_num(&p, ".p", 0xff, &a) || take_num(&p, ".prio", NR_PRIO - 1, &b))
			return -EINVAL;
		lo = NIC_DID_PORT_PRIO(a, b);
		break;
	case UPMU_DIAG_P_HOST:
		if (take_num(&p, ".h", 0xff, &a))
			return -EINVAL;
		lo = a;
		break;
	case UPMU_DIAG_P_LINK:
		if (take_num(&p, ".l", 0xff, &a))
			return -EINVAL;
		lo = a;
		break;
	case UPMU_DIAG_P_LINK_TC:
		if (take_num(&p, ".l", 0xff, &a) || take_num(&p, ".tc", NR_TCLASS - 1, &b))
			return -EINVAL;
		lo = NIC_DID_LINK_TC(a, b);
		break;
	default:
		if (take_num(&p, ".f", 0xffff, &a))
			return -EINVAL;
		lo = a;
		break;
	}
	if (*p)
		return -EINVAL;
	*id = NIC_DID(r->hi, lo);
	return 0;
}
