/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu_sim: the simulated ConnectX/BlueField-like NIC (hw/nic_cmd.h).
 * Private to sim_nic*.c; the rest of the simulator sees struct sim_nic
 * only through sim.h's sim_nic_*() calls.
 */
#ifndef __UPMU_SIM_NIC_H__
#define __UPMU_SIM_NIC_H__

#include <linux/bitmap.h>

#include "hw/nic_cmd.h"
#include "sim.h"

#define NIC_MAX_PFS		4
#define NIC_MAX_PORTS		4
#define NIC_NR_PRIOS		8
#define NIC_MAX_LINKS		4
#define NIC_NR_TCLASS		8
#define NIC_MAX_HOSTS		4
#define NIC_MAX_FUNCS		256
#define NIC_MAX_UCTX		64	/* per PF; uids 1..NIC_MAX_UCTX */
#define NIC_LOG_MAX_UCTX	6
#define NIC_MAX_FLOWS		32
#define NIC_CMD_MAX		256	/* longest command of nic/inject, nic/flows */

/* What nic/cmd_fault does to a PF's next command. */
enum nic_fault {
	NIC_FAULT_NONE,
	NIC_FAULT_HANG,		/* it stays busy until "release" */
	NIC_FAULT_HELD,		/* a hung command, busy */
	NIC_FAULT_DELIVERY,	/* not delivered: delivery status fault_delivery */
	NIC_FAULT_SHORT,	/* runs, but publishes an output of 8 bytes */
};

#define NIC_FW_REV		((28 << 16) | 43)
#define NIC_SERIAL_BASE		0x4e1c0000
#define NIC_IEEE_VENDOR_ID	0x0002c9	/* Mellanox's OUI */
#define NIC_PCI_VENDOR_ID	0x15b3
#define NIC_PCI_DEVICE_ID	0xa2dc	/* a BlueField-3's, as the DOCA appendix's */

/* Device defaults (new_device options) */
#define NIC_DEF_KHZ		1000000	/* 1 GHz: a clock is a ns */
#define NIC_DEF_LOG_MAX_SAMPLES	12	/* capacity: 4096 counter-samples */
#define NIC_DEF_LOG_MIN_PERIOD	10	/* 1024 clocks */
#define NIC_MAX_LOG_PERIOD	35	/* PRM: up to 2^35 clocks */
#define NIC_MAX_LOG_SAMPLES	16
/* collecting one counter takes this many device clocks of a period */
#define NIC_CLK_PER_CNTR	64
/* header bytes of a PCIe TLP, counted in bytes but not in data bytes */
#define NIC_PCIE_TLP_HDR	16

/* How a data ID's low 32 bits name its instance (hw/nic_cmd.h). */
enum nic_param {
	NIC_P_NONE = NIC_PARAM_NONE,
	NIC_P_PORT = NIC_PARAM_PORT,
	NIC_P_PORT_PRIO = NIC_PARAM_PORT_PRIO,
	NIC_P_HOST = NIC_PARAM_HOST,
	NIC_P_LINK = NIC_PARAM_LINK,
	NIC_P_LINK_TC = NIC_PARAM_LINK_TC,
	NIC_P_FUNC = NIC_PARAM_FUNC,
};

/**
 * struct nic_row - one row of the data-ID table
 * @hi: the data ID's upper 32 bits
 * @param: what its lower 32 bits select
 * @stat: a Statistic (reset at each sample), else a Counter
 * @sync: it can take a synchronized start
 * @name: short name (debugfs, the DOCA-style list)
 */
struct nic_row {
	u32 hi;
	u8 param;
	bool stat;
	bool sync;
	const char *name;
};

#define NIC_NR_ROWS	40
extern const struct nic_row nic_rows[NIC_NR_ROWS];

struct sim_nic;

/**
 * struct sim_nic_pf - a physical function: its register window and mailbox
 * @nic: its device
 * @pf: its number
 * @regs: window, accessors, debugfs regs/nic.pfN
 * @pdev: the platform device "upmu-nic-pf"
 * @in_len: NIC_REG_CMD_IN_LEN
 * @out_len: NIC_REG_CMD_OUT_LEN
 * @status: NIC_REG_CMD_STATUS
 * @fault: what nic/cmd_fault does to the next command (enum nic_fault)
 * @fault_delivery: the delivery status of NIC_FAULT_DELIVERY
 * @uids: user contexts allocated (bit uid - 1)
 * @uctx_cap: the cap each was created with
 * @inbox: NIC_INBOX_SIZE bytes
 * @outbox: NIC_OUTBOX_SIZE bytes
 * @swin: the sample window, NIC_SWIN_SIZE bytes
 * @sw_returned: NIC_SW_RETURNED of the last NIC_SW_READ
 * @sw_lost: NIC_SW_LOST of it
 * @sw_lost_first: NIC_SW_LOST_FIRST of it
 * @sw_avail: NIC_SW_AVAIL of it
 * @sw_next: NIC_SW_NEXT of it, or of the last NIC_SW_SKIP
 * @sw_first: the first sample the last NIC_SW_READ returned
 * @sw_lazy: @swin has not been filled yet: the window is the engine's
 *	     buffer from @sw_first's slot on (nic_diag_window())
 */
struct sim_nic_pf {
	struct sim_nic *nic;
	u32 pf;
	struct sim_regs regs;
	struct platform_device *pdev;
	u32 in_len;
	u32 out_len;
	u32 status;
	u8 fault;
	u8 fault_delivery;
	DECLARE_BITMAP(uids, NIC_MAX_UCTX);
	u32 uctx_cap[NIC_MAX_UCTX];
	u8 *inbox;
	u8 *outbox;
	u8 *swin;
	u32 sw_returned;
	u32 sw_lost;
	u32 sw_lost_first;
	u32 sw_avail;
	u32 sw_next;
	u64 sw_first;
	bool sw_lazy;
};

/**
 * struct nic_cntr - one counter instance (a data ID of this device)
 * @id: the 64-bit data ID
 * @cid: its 16-bit counter_id in the mlx5 layout
 * @row: its row in nic_rows[]
 * @inst: instance within the row
 */
struct nic_cntr {
	u64 id;
	u16 cid;
	u8 row;
	u16 inst;
};

/**
 * struct nic_flow - continuous NIC traffic: @rate events per second
 * @id: user-chosen id
 * @ev: the event (see sim_nic_ids.c)
 * @rate: events per second
 * @start_ns: sim time it started
 * @done: events delivered so far
 */
struct nic_flow {
	u32 id;
	struct nic_ev {
		u8 kind;
		u8 a;		/* port, host, link or direction */
		u8 b;		/* priority, tclass or stall kind */
		u16 func;
		u32 size;	/* bytes, latency (ns) or stall (ns) */
	} ev;
	u64 rate;
	u64 start_ns;
	u64 done;
};

/**
 * struct nic_diag - the sampling engine (one per device)
 * @state: NIC_STATE_*
 * @mode: NIC_MODE_*
 * @sync: synchronized start: every counter of a sample read in one clock
 * @clear: Counters cleared at the start of each period (only with @sync)
 * @format: output format of NIC_OP_EXT_QUERY_SAMPLES
 * @log_samples: the buffer holds 2^@log_samples samples
 * @log_period_req: requested period, log2 clocks
 * @log_period: actual period, log2 clocks (longer for many counters)
 * @max_ids: most data IDs the extension's configuration allows
 * @nr: counters applied
 * @cap: capacity in counter-samples (2^log_max_samples)
 * @idx: the applied counters' indexes in &sim_nic.cntrs, in order
 * @base: each applied Counter's value at the start of its measurement
 *	(with sync and no clear, less what came while it was stopped)
 * @snap: with sync, what each applied counter read when they stopped
 * @pend: the values of the sample being collected (without sync, counter
 *	i is read NIC_CLK_PER_CNTR x i clocks after the sample's time)
 * @npend: counters of @pend read so far
 * @ring: the cyclic buffer: slot s holds a sample in the sample window's
 *	  layout (NIC_SWS_*, sim ns as device time) at @ring +
 *	  s * NIC_SWS_SIZE(@nr), so that a window is a run of slots
 * @scratch: @cap u64 of room for a command's counter list
 * @epoch_ns: sample @epoch_k + j is taken at @epoch_ns + (j + 1) periods
 * @epoch_k: see @epoch_ns
 * @taken: samples taken since the start (the next sample_id)
 * @read: the next sample the extension's reader takes
 * @stalled: collection stalled (debugfs): no samples fall due
 * @stopped: with sync, the counters are stopped for the next sample
 * @owner_pf: PF of the owner (extension), or -1
 * @owner_uid: its uid
 */
/**
 * struct nic_slot - one diagnostic data register slot (NIC_DDR_*)
 * @id: NIC_DDR_ID_HI:NIC_DDR_ID_LO
 * @status: NIC_DDR_ST_*
 * @cntr: the counter it counts, index in &sim_nic.cntrs (when active)
 * @min: it is a minimum Statistic
 * @base: a Counter's value when the slot was enabled or cleared
 * @acc: a Statistic's extreme since then
 * @frozen: the value since the slot was disabled
 */
struct nic_slot {
	u64 id;
	u32 status;
	int cntr;
	bool min;
	u64 base;
	u64 acc;
	u64 frozen;
};

#define NIC_DEF_SLOTS		16

struct nic_diag {
	u8 state;
	u8 mode;
	bool sync;
	bool clear;
	u8 format;
	u8 log_samples;
	u8 log_period_req;
	u8 log_period;
	u32 max_ids;
	unsigned int nr;
	unsigned int cap;
	u16 *idx;
	u64 *base;
	u64 *snap;
	u64 *pend;
	unsigned int npend;
	u8 *ring;
	void *scratch;
	u64 epoch_ns;
	u64 epoch_k;
	u64 taken;
	u64 read;
	bool stalled;
	bool stopped;
	int owner_pf;
	u16 owner_uid;
};

/**
 * struct sim_nic - one simulated NIC
 * @sd: the simulated device it belongs to
 * @unit: keeps the NIC up to date with sim time
 * @nr_pfs: physical functions
 * @nr_ports: physical ports (NIC_NR_PRIOS priorities each)
 * @nr_links: PCIe links
 * @nr_hosts: hosts
 * @nr_funcs: functions (CQE counters per function)
 * @khz: device clock
 * @log_max_samples: capacity of the sample buffer, log2 counter-samples
 * @log_min_period: shortest period, log2 clocks
 * @pf: the PFs
 * @nr_cntrs: counters (data IDs) of this device
 * @cntrs: the counters, in counter_id order
 * @row_first: index in @cntrs of each row's first instance
 * @row_n: instances of each row
 * @val: their values (Statistics: the current max or min)
 * @flows: continuous traffic
 * @nr_flows: entries of @flows
 * @diag: the sampling engine
 * @nr_slots: diagnostic data register slots
 * @slots: the slots, one bank for all PFs
 */
struct sim_nic {
	struct sim_dev *sd;
	struct sim_unit unit;
	u32 nr_pfs;
	u32 nr_ports;
	u32 nr_links;
	u32 nr_hosts;
	u32 nr_funcs;
	u32 khz;
	u32 log_max_samples;
	u32 log_min_period;
	struct sim_nic_pf pf[NIC_MAX_PFS];
	unsigned int nr_cntrs;
	struct nic_cntr *cntrs;
	u16 row_first[NIC_NR_ROWS];
	u16 row_n[NIC_NR_ROWS];
	u64 *val;
	struct nic_flow flows[NIC_MAX_FLOWS];
	unsigned int nr_flows;
	struct nic_diag diag;
	unsigned int nr_slots;
	struct nic_slot slots[NIC_DEF_SLOTS];
};

/* sim_nic_ids.c */
int nic_cntrs_init(struct sim_nic *nic);
void nic_cntrs_free(struct sim_nic *nic);
int nic_cntr_by_id(const struct sim_nic *nic, u64 id);
int nic_cntr_by_cid(const struct sim_nic *nic, u32 cid);
u64 nic_cntr_value(const struct sim_nic *nic, unsigned int i);
void nic_flows_run(struct sim_nic *nic, u64 t);
void nic_stats_reset(struct sim_nic *nic);
void nic_stat_reset(struct sim_nic *nic, unsigned int i);
bool nic_cntr_is_stat(const struct sim_nic *nic, unsigned int i);
void nic_ids_debugfs(struct sim_nic *nic, struct dentry *dir);
void nic_slot_ctrl(struct sim_nic *nic, unsigned int s, u32 val);
u64 nic_slot_value(const struct sim_nic *nic, unsigned int s);

/* sim_nic_diag.c */
void nic_diag_catch_up(struct sim_nic *nic, u64 now);
int nic_diag_alloc(struct sim_nic *nic);
void nic_diag_free(struct sim_nic *nic);
void nic_diag_release(struct sim_nic *nic, u32 pf, u16 uid);
void nic_diag_debugfs(struct sim_nic *nic, struct dentry *dir);
void nic_diag_window(struct sim_nic *nic, struct sim_nic_pf *pf, u32 max);
void nic_diag_window_copy(struct sim_nic_pf *pf, u32 off, void *buf, size_t len);
void nic_diag_window_fill(struct sim_nic_pf *pf);
void nic_diag_skip(struct sim_nic *nic, struct sim_nic_pf *pf);
u64 nic_diag_period_ns(const struct sim_nic *nic);

/**
 * struct nic_cmd - a command being executed
 * @pf: the PF it came through
 * @in: the inbox
 * @in_len: its length
 * @out: the outbox
 * @out_len: room the driver gave for the output
 * @len: bytes of output produced (at least the header)
 * @synd: syndrome to report with a failing status
 * @uid: the uid of the input header (0, or a uid of @pf)
 *
 * A handler returns the firmware status (NIC_STAT_*); the output header
 * is filled in after it.
 */
struct nic_cmd {
	struct sim_nic_pf *pf;
	const u8 *in;
	u32 in_len;
	u8 *out;
	u32 out_len;
	u32 len;
	u32 synd;
	u16 uid;
};

/* NIC_STAT_BAD_INP_LEN/BAD_OUTP_LEN unless the boxes hold @in and @out. */
static inline int nic_cmd_lens(const struct nic_cmd *c, u32 in, u32 out)
{
	if (c->in_len < in)
		return NIC_STAT_BAD_INP_LEN;
	if (c->out_len < out)
		return NIC_STAT_BAD_OUTP_LEN;
	return NIC_STAT_OK;
}

/* sim_nic_diag.c: the diagnostic commands, or -1 for another opcode */
int nic_cmd_diag(struct nic_cmd *c, u16 opcode);

#endif
