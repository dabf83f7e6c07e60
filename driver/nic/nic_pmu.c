// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_nic: a counting perf PMU for the NIC's firmware diagnostic
 * counters (Documentation/upmu-nic-pmu.rst).
 *
 * perf's callbacks run with a raw spinlock held and interrupts off, and a
 * firmware command sleeps: the PMU counts through the device's diagnostic
 * data registers (NIC_DDR_*), one counting slot per event, each with a
 * 64-bit value of its own.  Commands are only sent from process context:
 * the data-ID list at probe, and the engine's ownership when the first
 * event is created and the last one destroyed (event_get/event_put).
 *
 * One PMU per NIC, registered through the first of its PFs that binds
 * (PFs of a NIC share NIC_REG_DEV_SERIAL).  When that PF goes, the PMU
 * goes with it (perf's events on it end) and comes back through another
 * bound PF of the NIC, if there is one.
 */

#include <linux/bsearch.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "hw/nic_cmd.h"
#include "nic.h"
#include "upmu_compat.h"

/* The NICs that have a PMU, by serial, and every bound PF. */
static LIST_HEAD(nic_pmus);
static LIST_HEAD(nic_pfs);
static DEFINE_MUTEX(nic_pmus_lock);
static bool nic_pmus_closing;		/* the driver is going */

/*
 * As perf defers turning off its scheduling hooks by a second after the
 * last event (perf_sched_events), the PMUs keep the diagnostic engine
 * for a while after their last event: a tool that opens and closes
 * events in a loop (perf stat -r, perf stat -I with a new event set,
 * an exporter) then sends no command per event.  A fwctl user is not
 * kept waiting: its command makes the PMUs give the engine back first
 * (upmu_nic_pmu_yield()).
 */
static unsigned int linger_ms = 1000;
module_param(linger_ms, uint, 0644);
MODULE_PARM_DESC(linger_ms, "how long the PMUs keep the diagnostic engine after their last event, ms (0: not at all; at most 60000)");

enum { NIC_FMT_DATA_ID };

/*
 * data_id is the whole ID; the parameter fields are the bits of its low
 * half that a row's XX/Y/ZZ select, for perf's "name=?" event syntax.
 */
static const struct upmu_format nic_pmu_formats[] = {
	UPMU_FORMAT(data_id, UPMU_CONFIG, 0, 63),
	UPMU_FORMAT(port, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(prio, UPMU_CONFIG, 8, 11),
	UPMU_FORMAT(host, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(link, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(tclass, UPMU_CONFIG, 24, 31),
	UPMU_FORMAT(func, UPMU_CONFIG, 0, 15),
};

/*
 * Named events, shown as "data_id=<ID>,<param>=?": the row's data ID with
 * the parameters that select its instance (perf's "name=?" syntax).
 */
#define NIC_EV(_name, _hi, _p) \
	{ .name = #_name, .id = (u64)(_hi) << 32, .params = (_p) }
#define NIC_EV_U(_name, _hi, _p, _unit, _scale) \
	{ .name = #_name, .id = (u64)(_hi) << 32, .params = (_p), \
	  .unit = (_unit), .scale = (_scale) }
/* bytes in MiB, as the other families show them; ns as they are */
#define NIC_EV_BYTES(_name, _hi, _p) \
	NIC_EV_U(_name, _hi, _p, "MiB", "9.5367431640625e-07")
#define NIC_EV_NS(_name, _hi, _p)	NIC_EV_U(_name, _hi, _p, "ns", "1")

#define P_PORT		",port=?"
#define P_PRIO		",port=?,prio=?"
#define P_HOST		",host=?"
#define P_LINK		",link=?"
#define P_LINK_TC	",link=?,tclass=?"
#define P_FUNC		",func=?"

static const struct upmu_event_desc nic_pmu_events[] = {
	NIC_EV_BYTES(port_rx_bytes, NIC_DID_RX_BYTES, P_PORT),
	NIC_EV_BYTES(port_prio_rx_bytes, NIC_DID_RX_BYTES_PRIO, P_PRIO),
	NIC_EV(port_rx_packets, NIC_DID_RX_PACKETS, P_PORT),
	NIC_EV(port_prio_rx_packets, NIC_DID_RX_PACKETS_PRIO, P_PRIO),
	NIC_EV(port_rx_buffer_drops, NIC_DID_RX_BUFFER_DROPS, P_PORT),
	NIC_EV(port_prio_rx_pause, NIC_DID_RX_PAUSE, P_PRIO),
	NIC_EV(host_rx_discards, NIC_DID_RX_HOST_DISCARDS, P_HOST),
	NIC_EV(host_rx_to_scatter, NIC_DID_RX_TO_SCATTER, P_HOST),
	NIC_EV(host_rx_no_wqe, NIC_DID_RX_NO_WQE, P_HOST),
	NIC_EV(host_rx_no_wqe_hairpin, NIC_DID_RX_NO_WQE_HAIRPIN, P_HOST),
	NIC_EV(host_rx_ecn_roce, NIC_DID_RX_ECN_ROCE, P_HOST),
	NIC_EV(port_cnp_handled, NIC_DID_CNP_HANDLED, P_PORT),
	NIC_EV(port_cnp_sent, NIC_DID_CNP_SENT, P_PORT),
	NIC_EV(qp_desched, NIC_DID_QP_DESCHED, NULL),
	NIC_EV_BYTES(port_tx_bytes, NIC_DID_TX_BYTES, P_PORT),
	NIC_EV_BYTES(port_prio_tx_bytes, NIC_DID_TX_BYTES_PRIO, P_PRIO),
	NIC_EV(port_tx_packets, NIC_DID_TX_PACKETS, P_PORT),
	NIC_EV(port_prio_tx_packets, NIC_DID_TX_PACKETS_PRIO, P_PRIO),
	NIC_EV(port_prio_tx_pause, NIC_DID_TX_PAUSE, P_PRIO),
	NIC_EV_BYTES(pcie_in_bytes, NIC_DID_PCIE_IN_BYTES, P_LINK),
	NIC_EV_BYTES(pcie_out_bytes, NIC_DID_PCIE_OUT_BYTES, P_LINK),
	NIC_EV_BYTES(pcie_in_data_bytes, NIC_DID_PCIE_IN_DATA, P_LINK),
	NIC_EV_BYTES(pcie_out_data_bytes, NIC_DID_PCIE_OUT_DATA, P_LINK),
	NIC_EV_NS(pcie_stall_pw_data_ns, NIC_DID_STALL_PW_DATA, P_LINK),
	NIC_EV_NS(pcie_stall_pw_hdr_ns, NIC_DID_STALL_PW_HDR, P_LINK),
	NIC_EV_NS(pcie_stall_np_data_ns, NIC_DID_STALL_NP_DATA, P_LINK),
	NIC_EV_NS(pcie_stall_np_hdr_ns, NIC_DID_STALL_NP_HDR, P_LINK),
	NIC_EV_NS(pcie_stall_np_cpl_ns, NIC_DID_STALL_NP_CPL, P_LINK),
	NIC_EV_NS(pcie_stall_np_order_ns, NIC_DID_STALL_NP_ORDER, P_LINK_TC),
	NIC_EV_NS(pcie_rd_lat_total_ns, NIC_DID_PCIE_RD_LAT, P_LINK),
	NIC_EV(pcie_rd_count, NIC_DID_PCIE_RD_COUNT, P_LINK),
	NIC_EV(rx_cqe, NIC_DID_RX_CQE, NULL),
	NIC_EV(func_rx_cqe, NIC_DID_RX_CQE_FUNC, P_FUNC),
	NIC_EV(tx_cqe, NIC_DID_TX_CQE, NULL),
	NIC_EV(func_tx_cqe, NIC_DID_TX_CQE_FUNC, P_FUNC),
	NIC_EV(icmc_accesses, NIC_DID_ICMC_ACCESSES, NULL),
	NIC_EV(icmc_hits, NIC_DID_ICMC_HITS, NULL),
	NIC_EV(icmc_misses, NIC_DID_ICMC_MISSES, NULL),
};

/* ---- hardware ops: the slot bank, under upmu->lock ---------------------- */

static int nic_id_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/**
 * nic_pmu_has_id() - is @id one of the data IDs the device listed at probe?
 * @np: the NIC's PMUs
 * @id: a data ID
 *
 * Return: true if the device has it.
 */
bool nic_pmu_has_id(const struct nic_pmu *np, u64 id)
{
	return bsearch(&id, np->ids, np->nr_ids, sizeof(*np->ids), nic_id_cmp);
}

/*
 * A counting event must be additive: perf sums, scales and subtracts
 * its counts (multiplexing, restarts, perf stat -I).  A Statistic is an
 * extreme (the max or min of a latency), which none of that keeps true:
 * it is served where extremes belong, the AUX stream's samples and
 * upmu-diag, not counted.
 */
static bool nic_pmu_check_id(struct upmu_pmu *upmu, u64 id)
{
	const struct nic_pmu *np = upmu->priv;

	if (bsearch(&id, np->stats, np->nr_stats, sizeof(*np->stats), nic_id_cmp)) {
		upmu_why(upmu, "data ID %#llx is a Statistic, not a count (AUX stream, upmu-diag)",
			 id);
		return false;
	}
	return nic_pmu_has_id(np, id);
}

static int nic_pmu_get_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
			   struct perf_event *event)
{
	unsigned int idx = find_first_zero_bit(s->used, upmu->num_counters);

	return idx < upmu->num_counters ? idx : -EAGAIN;
}

/* Slots are enabled one by one: there is no global enable. */
static void nic_pmu_enable(struct upmu_pmu *upmu)
{
}

static void nic_pmu_disable(struct upmu_pmu *upmu)
{
}

/*
 * Off, value 0 (the core reads it before start), then the data ID.  The
 * core reads the slot's 64-bit value itself (no &upmu_hw_ops.read): with
 * these writes, in one access to a backend.
 */
static void nic_pmu_config(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 id = upmu_field(upmu, event, NIC_FMT_DATA_ID);
	int idx = event->hw.idx;

	event->hw.event_base = NIC_DDR_VALUE(idx);
	upmu_wr32(&upmu->regs, NIC_DDR_CTRL(idx), NIC_DDR_CTRL_CLEAR);
	upmu_wr32(&upmu->regs, NIC_DDR_ID_LO(idx), lower_32_bits(id));
	upmu_wr32(&upmu->regs, NIC_DDR_ID_HI(idx), upper_32_bits(id));
}

static void nic_pmu_start(struct upmu_pmu *upmu, struct perf_event *event)
{
	upmu_wr32(&upmu->regs, NIC_DDR_CTRL(event->hw.idx), NIC_DDR_CTRL_ENABLE);
}

/* Disabling freezes the value, which the core then reads. */
static void nic_pmu_stop(struct upmu_pmu *upmu, struct perf_event *event)
{
	upmu_wr32(&upmu->regs, NIC_DDR_CTRL(event->hw.idx), 0);
}

/* ---- arbitration with fwctl users: process context ---------------------- */

/**
 * nic_pmu_cmd() - a command as uid 0, the kernel, through the PMUs' PF
 * @np: the NIC's PMUs, np->lock held and np->pf there
 * @in: the command
 * @in_len: its bytes
 * @out: its output
 * @out_len: room for it
 *
 * Return: the firmware status, or a -errno when the command did not run.
 */
int nic_pmu_cmd(struct nic_pmu *np, const void *in, size_t in_len,
		void *out, size_t out_len)
{
	int ret;

	lockdep_assert_held(&np->lock);
	ret = upmu_nic_cmd_exec(np->pf, in, in_len, out, out_len);
	if (ret < 0)
		return ret;
	return nic_get(out, NIC_HDR_STATUS);
}

/* EXT_OWNERSHIP: @out holds the owner before the command. */
static int nic_pmu_own(struct nic_pmu *np, u16 op_mod, u32 *out)
{
	u32 in[NIC_HDR_IN_LEN / 4] = {};

	nic_set(in, NIC_HDR_OPCODE, NIC_OP_EXT_OWNERSHIP);
	nic_set(in, NIC_HDR_OP_MOD, op_mod);
	return nic_pmu_cmd(np, in, sizeof(in), out, NIC_HDR_OUT_LEN);
}

static void nic_pmu_release(struct kref *ref)
{
	struct nic_pmu *np = container_of(ref, struct nic_pmu, ref);

	mutex_destroy(&np->lock);
	kfree(np->ids);
	kfree(np->stats);
	kfree(np);
}

/**
 * nic_pmu_hold() - an event of one of the NIC's PMUs is created
 * @np: the NIC's PMUs, np->lock held
 * @upmu: the event's PMU (its name goes into the log)
 *
 * The first event takes the diagnostic engine's ownership for the kernel,
 * unless the PMUs still hold it (linger_ms): while a fwctl user holds
 * it, events are refused with EBUSY, and while events exist, users get
 * the firmware's busy status.  Takes a reference on @np; nic_pmu_unhold()
 * and then nic_pmu_put() undo it.
 *
 * Return: 0 or -errno.
 */
int nic_pmu_hold(struct nic_pmu *np, struct upmu_pmu *upmu)
{
	u32 out[NIC_HDR_OUT_LEN / 4];
	int st;

	lockdep_assert_held(&np->lock);
	if (!np->pf)
		return -ENODEV;
	if (!np->owned) {		/* no event, and not lingering */
		st = nic_pmu_own(np, NIC_OWN_TAKE, out);
		if (st == NIC_STAT_RES_BUSY) {
			dev_info_ratelimited(np->pf->dev,
					     "%s: diagnostic counters held by PF %u uid %u (fwctl): EBUSY\n",
					     upmu->name, nic_get(out, NIC_EXT_OWN_PREV_PF),
					     nic_get(out, NIC_EXT_OWN_PREV_UID));
			return -EBUSY;
		}
		if (st) {
			dev_err_ratelimited(np->pf->dev,
					    "%s: cannot take the diagnostic counters: %d\n",
					    upmu->name, st);
			return st < 0 ? st : -EIO;
		}
		np->owned = true;
	}
	np->users++;
	kref_get(&np->ref);
	return 0;
}

/* Called with np->lock held and np->pf there. */
static void nic_pmu_disown(struct nic_pmu *np)
{
	u32 out[NIC_HDR_OUT_LEN / 4];
	int st;

	st = nic_pmu_own(np, NIC_OWN_RELEASE, out);
	if (st)
		dev_warn(np->pf->dev, "cannot release the diagnostic counters: %d\n", st);
	np->owned = false;
}

/* Give the engine back if no event needs it; np->lock held. */
static void nic_pmu_disown_idle(struct nic_pmu *np)
{
	lockdep_assert_held(&np->lock);
	if (!np->users && np->owned && np->pf)
		nic_pmu_disown(np);
}

static void nic_pmu_linger_end(struct work_struct *work)
{
	struct nic_pmu *np = container_of(to_delayed_work(work),
					  struct nic_pmu, linger);

	mutex_lock(&np->lock);
	nic_pmu_disown_idle(np);
	mutex_unlock(&np->lock);
}

/**
 * nic_pmu_unhold() - an event of one of the NIC's PMUs is destroyed
 * @np: the NIC's PMUs, np->lock held
 *
 * After the last one the engine goes back linger_ms later (at once with
 * 0), unless an event comes meanwhile.  Drop the reference with
 * nic_pmu_put() once np->lock is released.
 */
void nic_pmu_unhold(struct nic_pmu *np)
{
	unsigned int ms = min(READ_ONCE(linger_ms), 60U * MSEC_PER_SEC);

	lockdep_assert_held(&np->lock);
	if (--np->users || !np->owned || !np->pf)
		return;
	if (ms)
		mod_delayed_work(upmu_dfl_wq, &np->linger, msecs_to_jiffies(ms));
	else
		nic_pmu_disown(np);
}

/**
 * nic_pmu_put() - drop a reference on the NIC's PMUs
 * @np: the NIC's PMUs, np->lock not held
 */
void nic_pmu_put(struct nic_pmu *np)
{
	kref_put(&np->ref, nic_pmu_release);
}

static int nic_pmu_event_get(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct nic_pmu *np = upmu->priv;
	int ret;

	mutex_lock(&np->lock);
	ret = nic_pmu_hold(np, upmu);
	mutex_unlock(&np->lock);
	return ret;
}

static void nic_pmu_event_put(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct nic_pmu *np = upmu->priv;

	mutex_lock(&np->lock);
	nic_pmu_unhold(np);
	mutex_unlock(&np->lock);
	nic_pmu_put(np);
}

static const struct upmu_hw_ops nic_pmu_ops = {
	.check_id	= nic_pmu_check_id,
	.get_idx	= nic_pmu_get_idx,
	.enable		= nic_pmu_enable,
	.disable	= nic_pmu_disable,
	.config		= nic_pmu_config,
	.start		= nic_pmu_start,
	.stop		= nic_pmu_stop,
	.event_get	= nic_pmu_event_get,
	.event_put	= nic_pmu_event_put,
};

static const struct upmu_desc nic_pmu_desc = {
	.formats	= nic_pmu_formats,
	.nr_formats	= ARRAY_SIZE(nic_pmu_formats),
	.events		= nic_pmu_events,
	.nr_events	= ARRAY_SIZE(nic_pmu_events),
	.ops		= &nic_pmu_ops,
};

/* ---- probe and remove ----------------------------------------------------- */

/* The device's data IDs (EXT_QUERY_DATA_IDS), sorted for check_id. */
static int nic_pmu_query_ids(struct nic_pmu *np, struct upmu_nic_pf *pf)
{
	u32 in[NIC_EXT_IDS_IN_LEN / 4] = {};
	u32 total = 0, got = 0, n, i;
	size_t len = pf->outbox_size;
	u8 *out;
	int ret;

	out = kmalloc(len, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	nic_set(in, NIC_HDR_OPCODE, NIC_OP_EXT_QUERY_DATA_IDS);
	do {
		nic_set(in, NIC_EXT_IDS_START, got);
		nic_set(in, NIC_EXT_IDS_MAX, U32_MAX);
		ret = upmu_nic_cmd(pf, in, sizeof(in), out, len);
		if (ret)
			goto out;
		n = nic_get(out, NIC_EXT_IDS_RETURNED);
		if (!np->ids) {
			total = nic_get(out, NIC_EXT_IDS_TOTAL);
			np->ids = kcalloc(total ?: 1, sizeof(*np->ids), GFP_KERNEL);
			np->stats = kcalloc(total ?: 1, sizeof(*np->stats), GFP_KERNEL);
			if (!np->ids || !np->stats) {
				ret = -ENOMEM;
				goto out;
			}
		}
		if (n > total - got || NIC_EXT_ID(n) > len ||
		    (!n && got < total)) {
			ret = -EPROTO;
			goto out;
		}
		for (i = 0; i < n; i++) {
			np->ids[got + i] = nic_get64(out + NIC_EXT_ID(i),
						     NIC_EXT_ID_DATA_ID);
			if (nic_get(out + NIC_EXT_ID(i), NIC_EXT_ID_STAT))
				np->stats[np->nr_stats++] = np->ids[got + i];
		}
		got += n;
	} while (got < total);
	np->nr_ids = total;
	sort(np->ids, total, sizeof(*np->ids), nic_id_cmp, NULL);
	sort(np->stats, np->nr_stats, sizeof(*np->stats), nic_id_cmp, NULL);
out:
	kfree(out);
	return ret;
}

static int nic_pmu_node(struct upmu_nic_pf *pf)
{
	const struct upmu_platdata *pd = dev_get_platdata(pf->dev);
	int node = dev_to_node(pf->dev);

	if (pd)
		return pd->socket;
	return node == NUMA_NO_NODE ? 0 : node;
}

/**
 * nic_pmu_setup() - what the NIC's PMUs have in common, before registering
 * @upmu: a PMU from upmu_pmu_alloc(), its desc set
 * @np: the NIC's PMUs
 * @pf: the PF that registers it
 * @prefix: its name is @prefix_<serial>
 *
 * Return: 0, or -ENODEV when the NIC's node has no CPU.
 */
int nic_pmu_setup(struct upmu_pmu *upmu, struct nic_pmu *np,
		  struct upmu_nic_pf *pf, const char *prefix)
{
	/* its own copy: the mailbox's deferred-write queue is not shared */
	upmu->regs = pf->regs;
	upmu->regs.nq = 0;
	upmu->regs.defer = false;
	upmu->width = 64;
	upmu->priv = np;
	snprintf(upmu->name, sizeof(upmu->name), "%s_%08x", prefix, pf->serial);
	/* the model, for perf's JSON tables; the instance is in "serial" */
	snprintf(upmu->identifier, sizeof(upmu->identifier), "%04x:%04x:%u",
		 pf->dev_id >> 16, pf->dev_id & 0xffff, NIC_CMDIF_REV);
	upmu_set_info(upmu, "pf", "%u", pf->pf);
	upmu_set_info(upmu, "serial", "%08x", pf->serial);
	return upmu_cpus_of_node(upmu, nic_pmu_node(pf));
}

static int nic_pmu_register(struct nic_pmu *np, struct upmu_nic_pf *pf)
{
	struct upmu_pmu *upmu;
	unsigned int i, slots;
	int ret;

	/* @pf's other PMU or its fwctl users may be mid-command */
	mutex_lock(&pf->cmd_lock);
	slots = upmu_rd32(&pf->regs, NIC_REG_DDR_NUM);
	mutex_unlock(&pf->cmd_lock);
	slots = min3(slots, (unsigned int)NIC_DDR_MAX_SLOTS,
		     (unsigned int)UPMU_MAX_COUNTERS);
	if (!slots)
		return -ENODEV;
	ret = nic_pmu_query_ids(np, pf);
	if (ret)
		return ret;

	upmu = upmu_pmu_alloc(pf->dev);
	if (!upmu)
		return -ENOMEM;
	upmu->desc = &nic_pmu_desc;
	upmu->num_counters = slots;
	ret = nic_pmu_setup(upmu, np, pf, "upmu_nic");
	if (ret)
		goto err;
	/* slots a previous driver left on */
	for (i = 0; i < slots; i++)
		upmu_wr32(&upmu->regs, NIC_DDR_CTRL(i), NIC_DDR_CTRL_CLEAR);

	np->upmu = upmu;
	ret = upmu_pmu_register(upmu);
	if (ret)
		goto err;
	dev_info(pf->dev, "%s: %u slots, %u data IDs\n", upmu->name, slots,
		 np->nr_ids);
	/* the AUX stream, if it can be had: the counting PMU does without */
	ret = nic_stream_register(np, pf);
	if (ret)
		dev_info(pf->dev, "no AUX stream PMU for this NIC: %d\n", ret);
	return 0;
err:
	np->upmu = NULL;
	upmu_pmu_free(upmu);
	return ret;
}

/* The PMUs of the NIC of serial @serial, or NULL; nic_pmus_lock held. */
static struct nic_pmu *nic_pmu_find(u32 serial)
{
	struct nic_pmu *np;

	lockdep_assert_held(&nic_pmus_lock);
	list_for_each_entry(np, &nic_pmus, list)
		if (np->serial == serial)
			return np;
	return NULL;
}

/* Registers a PMU for @pf's NIC through @pf; nic_pmus_lock held. */
static void nic_pmu_create(struct upmu_nic_pf *pf)
{
	struct nic_pmu *np;
	int ret;

	lockdep_assert_held(&nic_pmus_lock);
	np = kzalloc_obj(*np);
	if (!np)
		return;
	np->serial = pf->serial;
	kref_init(&np->ref);
	mutex_init(&np->lock);
	INIT_DELAYED_WORK(&np->linger, nic_pmu_linger_end);
	np->pf = pf;
	ret = nic_pmu_register(np, pf);
	if (ret) {
		dev_info(pf->dev, "no perf PMU for this NIC: %d\n", ret);
		nic_pmu_put(np);
		return;
	}
	pf->pmu = np;
	list_add(&np->list, &nic_pmus);
}

/**
 * upmu_nic_pmu_add() - give the PF's NIC a PMU, if it has none yet
 * @pf: a PF that is binding
 *
 * A NIC without the diagnostic data registers, or one whose PMU cannot
 * be registered, goes without (a log line says so).
 */
void upmu_nic_pmu_add(struct upmu_nic_pf *pf)
{
	mutex_lock(&nic_pmus_lock);
	list_add_tail(&pf->node, &nic_pfs);
	if (!nic_pmu_find(pf->serial))
		nic_pmu_create(pf);
	mutex_unlock(&nic_pmus_lock);
}

/**
 * upmu_nic_pmu_del() - remove the PMU the PF registered, if it did
 * @pf: a PF that is going
 *
 * On Linux 6.15+ perf detaches the open events first (their event_put
 * releases the ownership through the PF).  Before, the PMU stays, dead,
 * until they are closed: the ownership is given back here, while the PF
 * is still there, and their event_put only drops references.  Then the
 * NIC gets a new PMU, of the same name, through another of its PFs.
 * nic_pmus_lock is held throughout, so that PF cannot go meanwhile.
 */
void upmu_nic_pmu_del(struct upmu_nic_pf *pf)
{
	struct nic_pmu *np = pf->pmu;
	struct upmu_nic_pf *next;

	mutex_lock(&nic_pmus_lock);
	list_del(&pf->node);
	if (!np)
		goto unlock;
	list_del(&np->list);

	if (np->aux)
		upmu_pmu_unregister(np->aux);
	upmu_pmu_unregister(np->upmu);

	mutex_lock(&np->lock);
	if (np->owned)
		nic_pmu_disown(np);
	np->pf = NULL;
	mutex_unlock(&np->lock);
	/* without the PF nothing queues it again */
	cancel_delayed_work_sync(&np->linger);
	pf->pmu = NULL;
	nic_pmu_put(np);

	list_for_each_entry(next, &nic_pfs, node) {
		if (nic_pmus_closing)
			break;
		if (next->serial == pf->serial) {
			dev_info(next->dev, "the NIC's PMU moves to PF %u\n",
				 next->pf);
			nic_pmu_create(next);
			break;
		}
	}
unlock:
	mutex_unlock(&nic_pmus_lock);
}

/**
 * upmu_nic_pmu_yield() - a fwctl user's command is about to run
 * @pf: the PF it runs on
 *
 * If the PMUs of @pf's NIC keep the engine with no event (linger_ms),
 * they give it back first: the user gets what it would have got had
 * the last event just given it back.
 */
void upmu_nic_pmu_yield(struct upmu_nic_pf *pf)
{
	struct nic_pmu *np;

	mutex_lock(&nic_pmus_lock);
	np = nic_pmu_find(pf->serial);
	if (np) {
		mutex_lock(&np->lock);
		nic_pmu_disown_idle(np);
		mutex_unlock(&np->lock);
	}
	mutex_unlock(&nic_pmus_lock);
}

/**
 * upmu_nic_pmu_closing() - the driver is going: PMUs go with their PF
 */
void upmu_nic_pmu_closing(void)
{
	mutex_lock(&nic_pmus_lock);
	nic_pmus_closing = true;
	mutex_unlock(&nic_pmus_lock);
}
