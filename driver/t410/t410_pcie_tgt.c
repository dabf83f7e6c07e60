// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 PCIE-TGT PMU: traffic to the PCIe BARs and CXL HDM ranges
 * behind a root complex.
 *
 * An event selects BAR traffic to a set of root ports, or traffic to an
 * address range.  The ranges live in TGT_NR_SLOTS slots shared by all
 * counters: events with the same range (the same base & mask, and mask)
 * share a slot, counted by reference; a range needs a free slot.  Slots
 * are claimed like counters, for the group alone when an event is
 * created (ENOSPC when it needs more than there are), and against what
 * the hardware holds whenever the event is scheduled (perf multiplexes
 * it when none is free).  A slot is enabled while an event of
 * its range runs, and disabled when the last one stops.
 */

#include <linux/bitfield.h>

#include "hw/t410_cspmu.h"
#include "t410.h"

enum {
	TGT_F_EVENT,
	TGT_F_DST_RP_MASK,
	TGT_F_DST_ADDR_EN,
	TGT_F_DST_ADDR_BASE,
	TGT_F_DST_ADDR_MASK,
};

static const struct upmu_format tgt_formats[] = {
	[TGT_F_EVENT]		= UPMU_FORMAT(event, UPMU_CONFIG, 0, 2),
	[TGT_F_DST_RP_MASK]	= UPMU_FORMAT(dst_rp_mask, UPMU_CONFIG, 3, 10),
	[TGT_F_DST_ADDR_EN]	= UPMU_FORMAT(dst_addr_en, UPMU_CONFIG, 11, 11),
	[TGT_F_DST_ADDR_BASE]	= UPMU_FORMAT(dst_addr_base, UPMU_CONFIG1, 0, 63),
	[TGT_F_DST_ADDR_MASK]	= UPMU_FORMAT(dst_addr_mask, UPMU_CONFIG2, 0, 63),
};

static const struct upmu_event_desc tgt_events[] = {
	UPMU_EVENT_BYTES(rd_bytes, TGT_EV_RD_BYTES),
	UPMU_EVENT_BYTES(wr_bytes, TGT_EV_WR_BYTES),
	UPMU_EVENT(rd_req, TGT_EV_RD_REQ),
	UPMU_EVENT(wr_req, TGT_EV_WR_REQ),
	UPMU_EVENT(cycles, TGT_EV_CYCLES),
};

/* upmu_sched.priv: per slot the masked base, the mask and its users */
#define SLOT_BASE(i)	(3 * (i))
#define SLOT_MASK(i)	(3 * (i) + 1)
#define SLOT_USERS(i)	(3 * (i) + 2)

static bool tgt_addr_en(struct upmu_pmu *upmu, struct perf_event *event)
{
	return upmu_field(upmu, event, TGT_F_DST_ADDR_EN);
}

/* The slot of @event's range in @s, or -1. */
static int tgt_find_slot(const struct upmu_sched *s, u64 base, u64 mask)
{
	unsigned int i;

	for (i = 0; i < TGT_NR_SLOTS; i++)
		if (s->priv[SLOT_USERS(i)] && s->priv[SLOT_MASK(i)] == mask &&
		    s->priv[SLOT_BASE(i)] == base)
			return i;
	return -1;
}

static void tgt_range(struct perf_event *event, u64 *base, u64 *mask)
{
	*mask = event->attr.config2;
	*base = event->attr.config1 & *mask;
}

static int tgt_claim(struct upmu_pmu *upmu, struct upmu_sched *s,
		     struct perf_event *event)
{
	u64 base, mask;
	int i;

	if (!tgt_addr_en(upmu, event))
		return 0;
	tgt_range(event, &base, &mask);
	/* An identical range shares its slot; only then take a free one. */
	i = tgt_find_slot(s, base, mask);
	if (i < 0) {
		for (i = 0; i < TGT_NR_SLOTS; i++)
			if (!s->priv[SLOT_USERS(i)])
				break;
		if (i == TGT_NR_SLOTS)
			return -ENOSPC;
		s->priv[SLOT_BASE(i)] = base;
		s->priv[SLOT_MASK(i)] = mask;
	}
	s->priv[SLOT_USERS(i)]++;
	return 0;
}

static void tgt_release(struct upmu_pmu *upmu, struct upmu_sched *s,
			struct perf_event *event)
{
	u64 base, mask;
	int i;

	if (!tgt_addr_en(upmu, event))
		return;
	tgt_range(event, &base, &mask);
	i = tgt_find_slot(s, base, mask);
	if (!WARN_ON_ONCE(i < 0))
		s->priv[SLOT_USERS(i)]--;
}

static int tgt_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	bool addr_en = tgt_addr_en(upmu, event);
	u64 rp = upmu_field(upmu, event, TGT_F_DST_RP_MASK);

	if (upmu_field(upmu, event, TGT_F_EVENT) == TGT_EV_CYCLES)
		return rp || addr_en || event->attr.config1 ||
		       event->attr.config2 ? -EINVAL : 0;
	/* BAR root ports or an address range, not both */
	if (addr_en && rp) {
		upmu_why(upmu, "dst_rp_mask and dst_addr_en are exclusive");
		return -EINVAL;
	}
	/* A range that is not enabled would silently count BAR traffic. */
	if (!addr_en && (event->attr.config1 || event->attr.config2)) {
		upmu_why(upmu, "dst_addr_base/mask without dst_addr_en");
		return -EINVAL;
	}
	return 0;
}

/* Root-port mask (all ports by default), or the one-hot slot. */
static u32 tgt_filter2(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 base, mask;
	int i;

	if (!tgt_addr_en(upmu, event))
		return upmu_field(upmu, event, TGT_F_DST_RP_MASK) ?: TGT_FILT2_RP_MASK;
	tgt_range(event, &base, &mask);
	i = tgt_find_slot(&upmu_event_box(upmu, event)->hw, base, mask);
	return WARN_ON_ONCE(i < 0) ? 0 : FIELD_PREP(TGT_FILT2_SLOTS, BIT(i));
}

/* Program the event's range into its slot (the same values if shared). */
static void tgt_config(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 base, mask;
	u32 off;
	int i;

	if (!tgt_addr_en(upmu, event))
		return;
	tgt_range(event, &base, &mask);
	i = tgt_find_slot(&upmu_event_box(upmu, event)->hw, base, mask);
	if (WARN_ON_ONCE(i < 0))
		return;
	off = TGT_SLOT(i);
	upmu_wr32(&upmu->regs, off + TGT_SLOT_BASE_LO, lower_32_bits(base));
	upmu_wr32(&upmu->regs, off + TGT_SLOT_BASE_HI, upper_32_bits(base));
	upmu_wr32(&upmu->regs, off + TGT_SLOT_MASK_LO, lower_32_bits(mask));
	upmu_wr32(&upmu->regs, off + TGT_SLOT_MASK_HI, upper_32_bits(mask));
	upmu_wr32(&upmu->regs, off + TGT_SLOT_CTRL, 1);
}

/*
 * The last running user of a range disables its slot; a slot that
 * events still hold is programmed again when one of them starts.
 */
static void tgt_stop(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct upmu_box *box = upmu_event_box(upmu, event);
	u64 base, mask, obase, omask;
	unsigned int idx;
	int i;

	if (!tgt_addr_en(upmu, event))
		return;
	tgt_range(event, &base, &mask);
	for_each_set_bit(idx, box->hw.used, UPMU_MAX_COUNTERS) {
		struct perf_event *other = box->events[idx];

		if (!other || other == event ||
		    (other->hw.state & PERF_HES_STOPPED) ||
		    !tgt_addr_en(upmu, other))
			continue;
		tgt_range(other, &obase, &omask);
		if (obase == base && omask == mask)
			return;
	}
	i = tgt_find_slot(&upmu_event_box(upmu, event)->hw, base, mask);
	if (!WARN_ON_ONCE(i < 0))
		upmu_wr32(&upmu->regs, TGT_SLOT(i) + TGT_SLOT_CTRL, 0);
}

static int tgt_probe_hw(struct upmu_pmu *upmu)
{
	unsigned int i;
	int ret = t410_cspmu_probe_hw(upmu);

	if (ret)
		return ret;
	for (i = 0; i < TGT_NR_SLOTS; i++)
		upmu_wr32(&upmu->regs, TGT_SLOT(i) + TGT_SLOT_CTRL, 0);
	t410_pcie_probe_map(upmu);
	return 0;
}

const struct t410_model t410_pcie_tgt_model = {
	.name_fmt	= "nvidia_pcie_tgt_pmu_%u_rc_%u",
	.desc = {
		.formats	= tgt_formats,
		.nr_formats	= ARRAY_SIZE(tgt_formats),
		.events		= tgt_events,
		.nr_events	= ARRAY_SIZE(tgt_events),
		.ops		= &t410_cspmu_ops,
		.max_rate_per_ns = T410_PCIE_TGT_MAX_PER_NS,
	},
	.probe_hw	= tgt_probe_hw,
	/* cycles is an ordinary event here: the cycle counter is not used */
	.cycles_id	= ~0ULL,
	.validate	= tgt_validate,
	.filter2	= tgt_filter2,
	.claim		= tgt_claim,
	.release	= tgt_release,
	.config		= tgt_config,
	.stop		= tgt_stop,
};
