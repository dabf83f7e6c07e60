// SPDX-License-Identifier: GPL-2.0
/*
 * Ice Lake-X uncore PMUs, as upstream's intel_uncore registers them
 * (arch/x86/events/intel/uncore_snbep.c): uncore_iio_0..5,
 * uncore_irp_0..5, uncore_m2pcie_0..5, uncore_iio_free_running_0..5,
 * uncore_cha_0..N-1 (N as the socket's CHA capability says, as
 * upstream's icx_count_chabox() finds it), uncore_imc_0..11,
 * uncore_imc_free_running_0..3, uncore_m2m_0..3, uncore_upi_0..2,
 * uncore_m3upi_0..2, uncore_pcu and uncore_ubox, each with a box on
 * every die (socket), the box of an event chosen by its CPU, formats
 * with upstream's bit layout, so that perf's own Ice Lake-X event names
 * and metrics, and perf iostat, apply.
 *
 * The registers are those of hw/icx_uncore.h: one window per socket in
 * the device's register block.  The driver is tables plus the hooks
 * below; the upmu core does the rest.
 */

#include <linux/bitfield.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include "hw/icx_uncore.h"
#include "upmu.h"
#include "upmu_compat.h"

enum icx_kind {
	ICX_IIO, ICX_IRP, ICX_FR, ICX_CHA, ICX_IMC, ICX_UPI, ICX_M2PCIE,
	ICX_PCU, ICX_UBOX, ICX_M2M, ICX_M3UPI, ICX_IMC_FR, ICX_NR_KINDS
};

#define ICX_MAX_BOXES	ICX_MAX_CHAS	/* the most PMUs of a kind */

/**
 * struct icx_type - one kind of box
 * @name_fmt: PMU name, formatted with the box index
 * @desc: tables and ops
 * @nr_boxes: boxes (PMUs) of the kind per socket; 0: as the hardware
 *	      says (the CHAs)
 * @nr_ctrs: counters per box
 * @base: byte offset of box @k's registers in a socket's window, from
 *	  which @box_ctl, @ctr, @ctl, @filter, @fixed_ctl and @fixed_ctr
 *	  count (NULL: 0)
 * @box_ctl: the box control (general counters only)
 * @ctr: counter 0, the others 8 bytes apart
 * @ctl: the control of counter 0, the others 8 bytes apart
 * @filter: the CHA's filter0, the PCU's band filter (0: none)
 * @fixed: index of the fixed counter, after the general ones (0: none),
 *	   which config ICX_FIXED_EVENT, and only it, counts on
 * @fixed_ctl: its control, if not where @ctl's would be (0)
 * @fixed_ctr: its counter, likewise
 * @no_box_ctl: no box control (the UBOX): nothing freezes the box
 */
struct icx_type {
	const char *name_fmt;
	struct upmu_desc desc;
	unsigned int nr_boxes;
	unsigned int nr_ctrs;
	u32 (*base)(unsigned int k);
	u32 box_ctl;
	u32 ctr;
	u32 ctl;
	u32 filter;
	unsigned int fixed;
	u32 fixed_ctl;
	u32 fixed_ctr;
	bool no_box_ctl;
};

/* Upstream's UNCORE_FIXED_EVENT: the config of a fixed counter's event */
#define ICX_FIXED_EVENT		0xff

/*
 * Which box of which kind a PMU is: its &upmu_pmu.priv; @base is
 * @type->base(@stack), kept so that a counter's read makes no call.
 */
struct icx_pmu_id {
	const struct icx_type *type;
	unsigned int stack;
	u32 base;
};

static const u32 icx_box_off[ICX_NR_STACKS] = ICX_BOX_OFFSETS;
static const u32 icx_bw_off[ICX_NR_STACKS] = ICX_BW_BOX_OFFSETS;
static const u32 icx_cha_off[ICX_MAX_CHAS] = ICX_CHA_OFFSETS;
static const struct icx_type icx_types[ICX_NR_KINDS];

static const struct icx_pmu_id *icx_id(const struct upmu_pmu *upmu)
{
	return upmu->priv;
}

static u32 icx_stack_base(unsigned int k)
{
	return ICX_MSR(icx_box_off[k]);
}

static u32 icx_cha_base(unsigned int k)
{
	return ICX_MSR(icx_cha_off[k]);
}

static u32 icx_imc_base(unsigned int k)
{
	return ICX_IMC_BOX(k);
}

static u32 icx_upi_base(unsigned int k)
{
	return ICX_UPI_BOX(k);
}

static u32 icx_m2m_base(unsigned int k)
{
	return ICX_M2M_BOX(k);
}

static u32 icx_m3upi_base(unsigned int k)
{
	return ICX_M3UPI_BOX(k);
}

/* Register @reg (an icx_type offset) of the PMU's box on @box's socket. */
static u32 icx_off(const struct upmu_pmu *upmu, const struct upmu_box *box,
		   u32 reg)
{
	const struct icx_pmu_id *id = icx_id(upmu);

	return ICX_SOCKET_BASE(box->id) + id->base + reg;
}

/* ---- formats (uncore_snbep.c's, for Ice Lake-X) ------------------------- */

static const struct upmu_format icx_iio_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(umask, UPMU_CONFIG, 8, 15),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 35),
	UPMU_FORMAT(ch_mask, UPMU_CONFIG, 36, 47),
	UPMU_FORMAT(fc_mask, UPMU_CONFIG, 48, 50),
};

static const struct upmu_format icx_irp_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(umask, UPMU_CONFIG, 8, 15),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 31),
};

/* CHA: the umask of perf's JSON is 32 bits, tid_en selects filter_tid. */
static const struct upmu_format icx_cha_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT_SPLIT(umask, UPMU_CONFIG, 8, 15, 32, 57),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(tid_en, UPMU_CONFIG, 19, 19),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 31),
	UPMU_FORMAT(filter_tid, UPMU_CONFIG1, 0, 9),
};

/* IMC, as upstream's skx_uncore format group */
static const struct upmu_format icx_imc_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(umask, UPMU_CONFIG, 8, 15),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 31),
};

static const struct upmu_format icx_upi_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT_SPLIT(umask, UPMU_CONFIG, 8, 15, 32, 55),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 31),
};

/* Upstream's IMC events: a CAS moves 64 bytes, shown in MiB */
#define ICX_CAS_EVENT(n, um)						\
	{ .name = #n, .id = ICX_IMC_EV_CAS_COUNT, .params = ",umask=" #um,	\
	  .unit = "MiB", .scale = "6.103515625e-5" }

static const struct upmu_event_desc icx_imc_events[] = {
	{ .name = "clockticks", .id = ICX_IMC_EV_CLOCKTICKS, .params = ",umask=0x00" },
	ICX_CAS_EVENT(cas_count_read, 0x0f),
	ICX_CAS_EVENT(cas_count_write, 0x30),
};

/* M2PCIE, M3UPI: upstream's ivbep / skx format groups, as the IMC's */
#define icx_m2pcie_formats	icx_imc_formats
#define icx_m3upi_formats	icx_imc_formats

/* M2M: a 16-bit umask (upstream's umask_ext3) */
static const struct upmu_format icx_m2m_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT_SPLIT(umask, UPMU_CONFIG, 8, 15, 32, 39),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 31),
};

/*
 * PCU, upstream's skx_uncore_pcu_formats: thresh shows 8 bits, its top
 * ones being occ_invert and occ_edge_det; occ_sel (umask 14-15) selects
 * the C-state of POWER_STATE_OCCUPANCY, filter_band0-3 the band events'
 * frequencies.
 */
static const struct upmu_format icx_pcu_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(umask, UPMU_CONFIG, 8, 15),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 31),
	UPMU_FORMAT(occ_invert, UPMU_CONFIG, 30, 30),
	UPMU_FORMAT(occ_edge_det, UPMU_CONFIG, 31, 31),
	UPMU_FORMAT(filter_band0, UPMU_CONFIG1, 0, 7),
	UPMU_FORMAT(filter_band1, UPMU_CONFIG1, 8, 15),
	UPMU_FORMAT(filter_band2, UPMU_CONFIG1, 16, 23),
	UPMU_FORMAT(filter_band3, UPMU_CONFIG1, 24, 31),
};

/* UBOX: a 5-bit threshold (upstream's ivbep_uncore_ubox_formats) */
static const struct upmu_format icx_ubox_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(umask, UPMU_CONFIG, 8, 15),
	UPMU_FORMAT(edge, UPMU_CONFIG, 18, 18),
	UPMU_FORMAT(inv, UPMU_CONFIG, 23, 23),
	UPMU_FORMAT(thresh, UPMU_CONFIG, 24, 28),
};

static const struct upmu_format icx_fr_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT(umask, UPMU_CONFIG, 8, 15),
};

/* Upstream's MiB scale of a 32-byte unit */
#define ICX_BW_EVENT(n)							\
	{ .name = "bw_in_port" #n, .id = ICX_FR_EVENT,			\
	  .params = ",umask=0x2" #n, .unit = "MiB",			\
	  .scale = "3.0517578125e-5" }

static const struct upmu_event_desc icx_fr_events[] = {
	{ .name = "ioclk", .id = ICX_FR_EVENT, .params = ",umask=0x10" },
	ICX_BW_EVENT(0), ICX_BW_EVENT(1), ICX_BW_EVENT(2), ICX_BW_EVENT(3),
	ICX_BW_EVENT(4), ICX_BW_EVENT(5), ICX_BW_EVENT(6), ICX_BW_EVENT(7),
};

/* Upstream's IMC free-running events: 64-byte units in MiB */
#define ICX_MEM_FR_EVENT(n, um)						\
	{ .name = #n, .id = ICX_FR_EVENT, .params = ",umask=" #um,	\
	  .unit = "MiB", .scale = "6.103515625e-5" }

static const struct upmu_event_desc icx_imc_fr_events[] = {
	{ .name = "dclk", .id = ICX_FR_EVENT, .params = ",umask=0x10" },
	ICX_MEM_FR_EVENT(read, 0x20),
	ICX_MEM_FR_EVENT(write, 0x21),
	ICX_MEM_FR_EVENT(ddrt_read, 0x30),
	ICX_MEM_FR_EVENT(ddrt_write, 0x31),
};

/* ---- general counters (IIO, IRP) ----------------------------------------- */

/* Any event code: raw configs are the interface (reserved bits are not). */
static bool icx_any_id(struct upmu_pmu *upmu, u64 id)
{
	return true;
}

/* The IIO's (icx_uncore_iio_constraints) */
static u64 icx_iio_constraint(u64 ev)
{
	switch (ev) {
	case 0x02:
	case 0x03:
	case 0x83:
		return GENMASK(1, 0);
	case 0x88:
	case 0xc0:
	case 0xc5:
	case 0xd5:
		return GENMASK(3, 2);
	}
	return GENMASK(ICX_IIO_NR_CTRS - 1, 0);
}

/*
 * Events that may use only some counters: the IIO's, the CHA's
 * (skx_uncore_chabox_constraints), the M2PCIE's and M3UPI's
 * (icx_uncore_m2pcie_constraints, icx_uncore_m3upi_constraints); the
 * others may use any general counter.  Config 0xff, and only it, is the
 * fixed counter of a kind that has one (upstream's UNCORE_FIXED_EVENT).
 */
static u64 icx_constraint(struct upmu_pmu *upmu, struct perf_event *event)
{
	const struct icx_type *type = icx_id(upmu)->type;
	u64 ev = upmu_field(upmu, event, 0);
	u64 all = GENMASK((type->fixed ?: upmu->num_counters) - 1, 0);

	if (type->fixed && event->attr.config == ICX_FIXED_EVENT)
		return BIT(type->fixed);
	switch (type - icx_types) {
	case ICX_IIO:
		return icx_iio_constraint(ev);
	case ICX_CHA:
		return ev == 0x11 || ev == ICX_CHA_EV_TOR_OCCUPANCY ? BIT(0) : all;
	case ICX_M2PCIE:
		return ev == 0x14 || ev == 0x23 || ev == 0x2d ? GENMASK(1, 0) : all;
	case ICX_M3UPI:
		if (ev >= 0x1c && ev <= 0x1f)
			return BIT(0);
		if (ev == 0x40 || (ev >= 0x4e && ev <= 0x50))
			return GENMASK(2, 0);
		return all;
	}
	return all;
}

/* Counter @idx's control (@ctr false) or counter, from the box's base */
static u32 icx_reg(const struct icx_type *type, unsigned int idx, bool ctr)
{
	if (type->fixed && idx == type->fixed && type->fixed_ctl)
		return ctr ? type->fixed_ctr : type->fixed_ctl;
	return (ctr ? type->ctr : type->ctl) + 8 * idx;
}

static void icx_box_ctl(struct upmu_pmu *upmu, u32 val)
{
	const struct icx_type *type = icx_id(upmu)->type;
	struct upmu_box *box = upmu_this_box(upmu);

	/* the UBOX: its counters' EN alone (upstream's, too) */
	if (!type->no_box_ctl)
		upmu_wr32(box->regs, icx_off(upmu, box, type->box_ctl), val);
}

static void icx_enable(struct upmu_pmu *upmu)
{
	icx_box_ctl(upmu, ICX_BOX_CTL_FRZ_EN);
}

static void icx_disable(struct upmu_pmu *upmu)
{
	icx_box_ctl(upmu, ICX_BOX_CTL_FRZ_EN | ICX_BOX_CTL_FRZ);
}

/* The event's control register, its upper half first; EN as asked. */
static void icx_write_ctl(struct upmu_pmu *upmu, struct perf_event *event,
			  bool en)
{
	struct upmu_box *box = upmu_event_box(upmu, event);
	u32 off = icx_off(upmu, box, icx_reg(icx_id(upmu)->type, event->hw.idx,
					     false));
	u64 cfg = event->attr.config;

	upmu_wr32(box->regs, off + 4, upper_32_bits(cfg));
	upmu_wr32(box->regs, off, lower_32_bits(cfg) | (en ? ICX_CTL_EN : 0));
}

/*
 * A CHA has one filter0 for all its counters: an event with tid_en needs
 * it set to its filter_tid.  Claimed like a counter (upmu_sched.priv),
 * by the events with tid_en only, so that two that need different
 * threads are never on a box together (perf multiplexes them, or refuses
 * such a group) and an event without tid_en never touches it.
 *
 * The PCU's filter has a byte per frequency band, which band event
 * 0x0b + b (FREQ_BAND<b>_CYCLES) compares with: claimed the same way,
 * a byte at a time, by the band events only, with the filter_band<b>
 * of their config1.  (Upstream may move a band event whose byte is
 * taken to a free byte and another band event code; here it waits its
 * turn, or its group is refused.)
 */
enum {
	ICX_PRIV_TID, ICX_PRIV_TID_USERS, ICX_PRIV_BAND,
	ICX_PRIV_BAND_USERS = ICX_PRIV_BAND + ICX_PCU_NR_BANDS,
};

static bool icx_tid_en(struct upmu_pmu *upmu, struct perf_event *event)
{
	return icx_id(upmu)->type == &icx_types[ICX_CHA] &&
	       (event->attr.config & ICX_CTL_TID_EN);
}

/* The band of a PCU band event, or -1 */
static int icx_band(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 ev = upmu_field(upmu, event, 0);

	if (icx_id(upmu)->type != &icx_types[ICX_PCU] ||
	    ev < ICX_PCU_EV_BAND0 || ev >= ICX_PCU_EV_BAND0 + ICX_PCU_NR_BANDS)
		return -1;
	return ev - ICX_PCU_EV_BAND0;
}

/* Claim filter value @val in slot @v of @s (users in slot @users). */
static int icx_claim(struct upmu_pmu *upmu, struct upmu_sched *s,
		     unsigned int v, unsigned int users, u64 val,
		     const char *what)
{
	if (s->priv[users] && s->priv[v] != val) {
		if (!s->box)
			upmu_why(upmu, "%s %#llx next to %#llx in one group",
				 what, val, s->priv[v]);
		return -EINVAL;
	}
	s->priv[v] = val;
	s->priv[users]++;
	return 0;
}

static int icx_get_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
		       struct perf_event *event)
{
	u64 tid = FIELD_GET(ICX_CHA_FILTER_TID, event->attr.config1);
	int idx = upmu_sched_alloc(upmu, s, icx_constraint(upmu, event));
	int band = icx_band(upmu, event), ret = 0;

	if (idx < 0)
		return idx;
	if (icx_tid_en(upmu, event))
		ret = icx_claim(upmu, s, ICX_PRIV_TID, ICX_PRIV_TID_USERS, tid,
				"filter_tid");
	else if (band >= 0)
		ret = icx_claim(upmu, s, ICX_PRIV_BAND + band,
				ICX_PRIV_BAND_USERS + band,
				event->attr.config1 >> (8 * band) & 0xff,
				"filter_band");
	return ret ?: idx;
}

static void icx_put_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
			struct perf_event *event)
{
	int band = icx_band(upmu, event);

	if (icx_tid_en(upmu, event))
		s->priv[ICX_PRIV_TID_USERS]--;
	else if (band >= 0)
		s->priv[ICX_PRIV_BAND_USERS + band]--;
}

/* The PCU's filter: the bands its band events on the box claimed */
static u32 icx_band_filter(const struct upmu_box *box)
{
	unsigned int b;
	u32 f = 0;

	for (b = 0; b < ICX_PCU_NR_BANDS; b++)
		if (box->hw.priv[ICX_PRIV_BAND_USERS + b])
			f |= (u32)box->hw.priv[ICX_PRIV_BAND + b] << (8 * b);
	return f;
}

/*
 * The control, and on a CHA for an event with tid_en its filter: the
 * thread its filter_tid names (upstream's icx_cha_hw_config writes
 * filter0 only for such an event too); on the PCU for a band event the
 * bands claimed.
 */
static void icx_config(struct upmu_pmu *upmu, struct perf_event *event)
{
	const struct icx_type *type = icx_id(upmu)->type;
	struct upmu_box *box = upmu_event_box(upmu, event);

	if (icx_tid_en(upmu, event))
		upmu_wr32(box->regs, icx_off(upmu, box, type->filter),
			  FIELD_GET(ICX_CHA_FILTER_TID, event->attr.config1));
	else if (icx_band(upmu, event) >= 0)
		upmu_wr32(box->regs, icx_off(upmu, box, type->filter),
			  icx_band_filter(box));
	icx_write_ctl(upmu, event, false);
	/* the core reads the counter there (no &upmu_hw_ops.read) */
	event->hw.event_base = icx_off(upmu, box, icx_reg(type, event->hw.idx,
							  true));
}

static void icx_start(struct upmu_pmu *upmu, struct perf_event *event)
{
	icx_write_ctl(upmu, event, true);
}

static void icx_stop(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct upmu_box *box = upmu_event_box(upmu, event);
	u32 ctl = icx_reg(icx_id(upmu)->type, event->hw.idx, false);

	upmu_wr32(box->regs, icx_off(upmu, box, ctl), 0);
}

/* The general counters of every kind */
static const struct upmu_hw_ops icx_ops = {
	.constraint	= icx_constraint,
	.get_idx	= icx_get_idx,
	.put_idx	= icx_put_idx,
	.check_id	= icx_any_id,
	.enable		= icx_enable,
	.disable	= icx_disable,
	.config		= icx_config,
	.start		= icx_start,
	.stop		= icx_stop,
};

/* ---- free-running counters -------------------------------------------- */

/*
 * IIO: counter 0 is the IIO clock (umask 0x10), counter 1 + p part p's
 * inbound bandwidth (umask 0x20 + p).  IMC: counter 0 the DRAM clock
 * (0x10), 1 and 2 DDR reads and writes (0x20, 0x21), 3 and 4 DDRT's
 * (0x30, 0x31).  Nothing else is an event here.
 */
static int icx_fr_idx(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 umask = upmu_field(upmu, event, 1);

	if (umask == ICX_FR_UMASK_IOCLK)
		return 0;
	if (icx_id(upmu)->type == &icx_types[ICX_IMC_FR]) {
		if (umask >= ICX_IMC_FR_UMASK_DDR && umask < ICX_IMC_FR_UMASK_DDR + 2)
			return 1 + umask - ICX_IMC_FR_UMASK_DDR;
		if (umask >= ICX_IMC_FR_UMASK_DDRT && umask < ICX_IMC_FR_UMASK_DDRT + 2)
			return 3 + umask - ICX_IMC_FR_UMASK_DDRT;
		return -1;
	}
	if (umask >= ICX_FR_UMASK_BW_IN &&
	    umask < ICX_FR_UMASK_BW_IN + ICX_NR_PARTS)
		return 1 + umask - ICX_FR_UMASK_BW_IN;
	return -1;
}

static bool icx_fr_check_id(struct upmu_pmu *upmu, u64 id)
{
	return id == ICX_FR_EVENT;
}

static int icx_fr_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	if (icx_fr_idx(upmu, event) < 0) {
		upmu_why(upmu, "umask %#llx is no free-running counter",
			 upmu_field(upmu, event, 1));
		return -EINVAL;
	}
	return 0;
}

static u64 icx_fr_constraint(struct upmu_pmu *upmu, struct perf_event *event)
{
	int idx = icx_fr_idx(upmu, event);

	return idx < 0 ? 0 : BIT(idx);
}

/* Free-running: nothing to enable, program or stop. */
static void icx_fr_nop(struct upmu_pmu *upmu)
{
}

/* The register of free-running counter @idx of memory controller @k */
static u32 icx_imc_fr_off(unsigned int k, unsigned int idx)
{
	if (!idx)
		return ICX_IMC_FR_BOX(k) + ICX_IMC_FR_DCLK;
	if (idx < 3)
		return ICX_IMC_FR_BOX(k) + ICX_IMC_FR_DDR(idx - 1);
	return ICX_IMC_FR_BOX(k) + ICX_IMC_FR_DDRT(idx - 3);
}

static u64 icx_fr_read(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct upmu_box *box = upmu_event_box(upmu, event);
	unsigned int k = icx_id(upmu)->stack, idx = event->hw.idx;
	u32 off = idx ? ICX_IIO_BW_IN(icx_bw_off[k], idx - 1) :
			ICX_IIO_IOCLK(icx_box_off[k]);

	if (icx_id(upmu)->type == &icx_types[ICX_IMC_FR])
		off = icx_imc_fr_off(k, idx);

	return upmu_rd64_nolock(box->regs, ICX_SOCKET_BASE(box->id) + off);
}

static const struct upmu_hw_ops icx_fr_ops = {
	.validate	= icx_fr_validate,
	.constraint	= icx_fr_constraint,
	.check_id	= icx_fr_check_id,
	.enable		= icx_fr_nop,
	.disable	= icx_fr_nop,
	.read		= icx_fr_read,
};

/* ---- types ------------------------------------------------------------- */

static const struct icx_type icx_types[ICX_NR_KINDS] = {
	[ICX_IIO] = {
		.name_fmt = "uncore_iio_%u",
		.desc = {
			.formats = icx_iio_formats,
			.nr_formats = ARRAY_SIZE(icx_iio_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_STACKS,
		.nr_ctrs = ICX_IIO_NR_CTRS,
		.base = icx_stack_base,
		.box_ctl = ICX_IIO_BOX_CTL(0),
		.ctr = ICX_IIO_CTR(0, 0),
		.ctl = ICX_IIO_CTL(0, 0),
	},
	[ICX_IRP] = {
		.name_fmt = "uncore_irp_%u",
		.desc = {
			.formats = icx_irp_formats,
			.nr_formats = ARRAY_SIZE(icx_irp_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_STACKS,
		.nr_ctrs = ICX_IRP_NR_CTRS,
		.base = icx_stack_base,
		.box_ctl = ICX_IRP_BOX_CTL(0),
		.ctr = ICX_IRP_CTR(0, 0),
		.ctl = ICX_IRP_CTL(0, 0),
	},
	[ICX_FR] = {
		.name_fmt = "uncore_iio_free_running_%u",
		.desc = {
			.formats = icx_fr_formats,
			.nr_formats = ARRAY_SIZE(icx_fr_formats),
			.events = icx_fr_events,
			.nr_events = ARRAY_SIZE(icx_fr_events),
			.ops = &icx_fr_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_STACKS,
		.nr_ctrs = ICX_FR_NR_CTRS,
	},
	[ICX_CHA] = {
		.name_fmt = "uncore_cha_%u",
		.desc = {
			.formats = icx_cha_formats,
			.nr_formats = ARRAY_SIZE(icx_cha_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_ctrs = ICX_MEM_NR_CTRS,
		.base = icx_cha_base,
		.box_ctl = ICX_CHA_BOX_CTL(0),
		.ctr = ICX_CHA_CTR(0, 0),
		.ctl = ICX_CHA_CTL(0, 0),
		.filter = ICX_CHA_FILTER0(0),
	},
	[ICX_IMC] = {
		.name_fmt = "uncore_imc_%u",
		.desc = {
			.formats = icx_imc_formats,
			.nr_formats = ARRAY_SIZE(icx_imc_formats),
			.events = icx_imc_events,
			.nr_events = ARRAY_SIZE(icx_imc_events),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_IMCS,
		.nr_ctrs = ICX_IMC_NR_CTRS,
		.fixed = ICX_IMC_FIXED,
		.base = icx_imc_base,
		.box_ctl = ICX_MEM_BOX_CTL,
		.ctr = ICX_MEM_CTR(0),
		.ctl = ICX_MEM_CTL(0),
	},
	[ICX_UPI] = {
		.name_fmt = "uncore_upi_%u",
		.desc = {
			.formats = icx_upi_formats,
			.nr_formats = ARRAY_SIZE(icx_upi_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_UPIS,
		.nr_ctrs = ICX_MEM_NR_CTRS,
		.base = icx_upi_base,
		.box_ctl = ICX_MEM_BOX_CTL,
		.ctr = ICX_MEM_CTR(0),
		.ctl = ICX_MEM_CTL(0),
	},
	[ICX_M2PCIE] = {
		.name_fmt = "uncore_m2pcie_%u",
		.desc = {
			.formats = icx_m2pcie_formats,
			.nr_formats = ARRAY_SIZE(icx_m2pcie_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_STACKS,
		.nr_ctrs = ICX_M2PCIE_NR_CTRS,
		.base = icx_stack_base,
		.box_ctl = ICX_M2PCIE_BOX_CTL(0),
		.ctr = ICX_M2PCIE_CTR(0, 0),
		.ctl = ICX_M2PCIE_CTL(0, 0),
	},
	[ICX_PCU] = {
		.name_fmt = "uncore_pcu",
		.desc = {
			.formats = icx_pcu_formats,
			.nr_formats = ARRAY_SIZE(icx_pcu_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = 1,
		.nr_ctrs = ICX_PCU_NR_CTRS,
		.box_ctl = ICX_PCU_BOX_CTL,
		.ctr = ICX_PCU_CTR(0),
		.ctl = ICX_PCU_CTL(0),
		.filter = ICX_PCU_FILTER,
	},
	[ICX_UBOX] = {
		.name_fmt = "uncore_ubox",
		.desc = {
			.formats = icx_ubox_formats,
			.nr_formats = ARRAY_SIZE(icx_ubox_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = 1,
		.nr_ctrs = ICX_UBOX_NR_CTRS,
		.ctr = ICX_UBOX_CTR(0),
		.ctl = ICX_UBOX_CTL(0),
		.fixed = ICX_UBOX_FIXED,
		.fixed_ctl = ICX_UBOX_FIXED_CTL,
		.fixed_ctr = ICX_UBOX_FIXED_CTR,
		.no_box_ctl = true,
	},
	[ICX_M2M] = {
		.name_fmt = "uncore_m2m_%u",
		.desc = {
			.formats = icx_m2m_formats,
			.nr_formats = ARRAY_SIZE(icx_m2m_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_M2MS,
		.nr_ctrs = ICX_MEM_NR_CTRS,
		.base = icx_m2m_base,
		.box_ctl = ICX_MEM_BOX_CTL,
		.ctr = ICX_MEM_CTR(0),
		.ctl = ICX_MEM_CTL(0),
	},
	[ICX_M3UPI] = {
		.name_fmt = "uncore_m3upi_%u",
		.desc = {
			.formats = icx_m3upi_formats,
			.nr_formats = ARRAY_SIZE(icx_m3upi_formats),
			.ops = &icx_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_M3UPIS,
		.nr_ctrs = ICX_MEM_NR_CTRS,
		.base = icx_m3upi_base,
		.box_ctl = ICX_MEM_BOX_CTL,
		.ctr = ICX_MEM_CTR(0),
		.ctl = ICX_MEM_CTL(0),
	},
	[ICX_IMC_FR] = {
		.name_fmt = "uncore_imc_free_running_%u",
		.desc = {
			.formats = icx_fr_formats,
			.nr_formats = ARRAY_SIZE(icx_fr_formats),
			.events = icx_imc_fr_events,
			.nr_events = ARRAY_SIZE(icx_imc_fr_events),
			.ops = &icx_fr_ops,
			.max_rate_per_ns = ICX_MAX_PER_NS,
		},
		.nr_boxes = ICX_NR_IMC_FRS,
		.nr_ctrs = ICX_IMC_FR_NR_CTRS,
	},
};

#define ICX_MAX_DIES	UPMU_MAX_INFO

static const char * const icx_die_names[ICX_MAX_DIES] = {
	"die0", "die1", "die2", "die3",
};

/* ---- the device -------------------------------------------------------- */

/**
 * struct icx_dev - the PMUs of an Ice Lake-X uncore
 * @regs: its register block (every socket's window)
 * @nr_sockets: sockets, one die each
 * @nr_boxes: boxes of each kind per socket
 * @ids: which box each PMU is (its &upmu_pmu.priv)
 * @pmus: each kind's PMU of each stack
 */
struct icx_dev {
	struct upmu_regs regs;
	u32 nr_sockets;
	unsigned int nr_boxes[ICX_NR_KINDS];
	struct icx_pmu_id ids[ICX_NR_KINDS][ICX_MAX_BOXES];
	struct upmu_pmu *pmus[ICX_NR_KINDS][ICX_MAX_BOXES];
};

/*
 * The mapping files (upstream's dieX) of an IIO or UPI PMU, one per die
 * on which its box's topology register says something: the PCI segment
 * and root bus of IIO stack @k ("%04x:%02x"), or the link and the die at
 * the other end of UPI link @k, where it is up ("upi_%d,die_%d").
 */
static int icx_set_mapping(struct icx_dev *id, struct upmu_pmu *upmu,
			   enum icx_kind t, unsigned int k)
{
	bool iio = t == ICX_IIO;
	unsigned int s;
	int ret = 0;
	u32 v;

	for (s = 0; s < id->nr_sockets && !ret; s++) {
		v = upmu_rd32(&id->regs, ICX_SOCKET_BASE(s) +
			      (iio ? ICX_TOPO_STACK(k) : ICX_TOPO_UPI(k)));
		if (!(v & (iio ? ICX_TOPO_VALID : ICX_UPI_TOPO_UP)))
			continue;
		if (iio)
			ret = upmu_set_info(upmu, icx_die_names[s], "%04lx:%02lx",
					    FIELD_GET(ICX_TOPO_SEG, v),
					    FIELD_GET(ICX_TOPO_BUS, v));
		else
			ret = upmu_set_info(upmu, icx_die_names[s], "upi_%lu,die_%lu",
					    FIELD_GET(ICX_UPI_TOPO_PORT, v),
					    FIELD_GET(ICX_UPI_TOPO_DIE, v));
	}
	return ret;
}

static int icx_pmu_init(struct platform_device *pdev, struct icx_dev *id,
			struct upmu_pmu *upmu, enum icx_kind t, unsigned int k)
{
	const struct icx_type *type = &icx_types[t];
	int i, n;

	n = upmu_pmu_set_dies(upmu);
	if (n < 0)
		return n;
	if (n != id->nr_sockets)
		return dev_err_probe(&pdev->dev, -ENODEV,
				     "%u sockets, but %d dies\n", id->nr_sockets, n);
	for (i = 0; i < n; i++)
		upmu->boxes[i]->own_regs = id->regs;
	upmu->desc = &type->desc;
	id->ids[t][k] = (struct icx_pmu_id){
		.type = type, .stack = k, .base = type->base ? type->base(k) : 0,
	};
	upmu->priv = &id->ids[t][k];
	upmu->num_counters = type->nr_ctrs;
	/* Free-running counters: any number of events read each. */
	if (type->desc.ops == &icx_fr_ops)
		upmu->shared = GENMASK_ULL(type->nr_ctrs - 1, 0);
	upmu->width = ICX_CTR_BITS;
	/* perf 6.1's iostat reads /sys/devices/uncore_iio_N/dieX */
	upmu->top_level = true;
	snprintf(upmu->name, sizeof(upmu->name), type->name_fmt, k);
	strscpy(upmu->identifier, "icx", sizeof(upmu->identifier));
	return t == ICX_IIO || t == ICX_UPI ? icx_set_mapping(id, upmu, t, k) : 0;
}

/*
 * Every box of every socket: controls and counters cleared, frozen; a
 * box without a box control (the UBOX): its controls cleared.
 */
static void icx_quiesce(struct icx_dev *id)
{
	u32 val = ICX_BOX_CTL_RST_CTRL | ICX_BOX_CTL_RST_CTRS |
		  ICX_BOX_CTL_FRZ_EN | ICX_BOX_CTL_FRZ;
	unsigned int s, t, k, i;

	for (s = 0; s < id->nr_sockets; s++) {
		for (t = 0; t < ICX_NR_KINDS; t++) {
			const struct icx_type *type = &icx_types[t];

			if (type->desc.ops != &icx_ops)
				continue;
			for (k = 0; k < id->nr_boxes[t]; k++) {
				u32 b = ICX_SOCKET_BASE(s) + (type->base ? type->base(k) : 0);

				if (!type->no_box_ctl) {
					upmu_wr32(&id->regs, b + type->box_ctl, val);
					continue;
				}
				for (i = 0; i < type->nr_ctrs; i++)
					upmu_wr32(&id->regs, b + icx_reg(type, i, false), 0);
			}
		}
	}
}

static void icx_unregister_all(struct icx_dev *id)
{
	unsigned int t, k;

	for (t = ICX_NR_KINDS; t-- > 0;)
		for (k = ICX_MAX_BOXES; k-- > 0;)
			if (id->pmus[t][k])
				upmu_pmu_unregister(id->pmus[t][k]);
}

/*
 * The boxes of each kind: the CHAs are as many as the bits of the CHA
 * capability (upstream's icx_count_chabox()), the same on every socket.
 */
static int icx_count_boxes(struct platform_device *pdev, struct icx_dev *id)
{
	unsigned int s, t, n = 0;

	for (s = 0; s < id->nr_sockets; s++) {
		u64 cap = upmu_rd64(&id->regs, ICX_SOCKET_BASE(s) + ICX_TOPO_CHA_CAP);
		unsigned int c = hweight64(cap);

		if (s && c != n)
			return dev_err_probe(&pdev->dev, -ENODEV,
					     "socket %u has %u CHAs, socket 0 %u\n",
					     s, c, n);
		n = c;
	}
	if (!n || n > ICX_MAX_CHAS)
		return dev_err_probe(&pdev->dev, -ENODEV, "%u CHAs\n", n);
	for (t = 0; t < ICX_NR_KINDS; t++)
		id->nr_boxes[t] = icx_types[t].nr_boxes ?: n;
	return 0;
}

static int icx_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct upmu_pmu *upmu;
	struct icx_dev *id;
	unsigned int t, k;
	int ret;

	id = devm_kzalloc(dev, sizeof(*id), GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	ret = upmu_regs_get(pdev, &id->regs);
	if (ret)
		return dev_err_probe(dev, ret, "no registers\n");
	/* x86 reads 64-bit MMIO in one access (upstream: readq) */
	id->regs.atomic64 = true;
	ret = device_property_read_u32(dev, "nr-sockets", &id->nr_sockets);
	if (ret || !id->nr_sockets || id->nr_sockets > ICX_MAX_DIES)
		return dev_err_probe(dev, ret ?: -EINVAL, "bad nr-sockets\n");
	ret = icx_count_boxes(pdev, id);
	if (ret)
		return ret;
	icx_quiesce(id);

	for (t = 0; t < ICX_NR_KINDS; t++) {
		for (k = 0; k < id->nr_boxes[t]; k++) {
			upmu = upmu_pmu_alloc(dev);
			if (!upmu) {
				ret = -ENOMEM;
				goto err;
			}
			ret = icx_pmu_init(pdev, id, upmu, t, k);
			if (!ret)
				ret = upmu_pmu_register(upmu);
			if (ret) {
				upmu_pmu_free(upmu);
				goto err;
			}
			id->pmus[t][k] = upmu;
		}
	}
	platform_set_drvdata(pdev, id);
	return 0;

err:
	icx_unregister_all(id);
	return ret;
}

static void icx_remove_dev(struct platform_device *pdev)
{
	icx_unregister_all(platform_get_drvdata(pdev));
}

#if UPMU_REMOVE_VOID
#define icx_remove icx_remove_dev
#else
static int icx_remove(struct platform_device *pdev)
{
	icx_remove_dev(pdev);
	return 0;
}
#endif

static const struct platform_device_id icx_ids_table[] = {
	{ "upmu-icx-uncore" },
	{ }
};
MODULE_DEVICE_TABLE(platform, icx_ids_table);

static struct platform_driver icx_driver = {
	.driver = {
		.name = "upmu-icx",
		.suppress_bind_attrs = true,
	},
	.id_table = icx_ids_table,
	.probe = icx_probe,
	.remove = icx_remove,
};
module_platform_driver(icx_driver);

MODULE_DESCRIPTION("upmu: Intel Ice Lake-X uncore PMUs (IIO, IRP, M2PCIE, CHA, IMC, M2M, UPI, M3UPI, PCU, UBOX, free-running)");
MODULE_LICENSE("GPL");
