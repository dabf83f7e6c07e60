// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 PCIE PMU: traffic from the root ports (or one requester) of
 * a PCIe root complex to memory, by destination.
 *
 * The source filter is a root-port mask or a single BDF, never both.
 * The hardware has one BDF comparator per root complex, shared by all
 * counters: events that filter on a BDF must agree on it.  The BDF is
 * claimed like a counter, so it is checked against the group when an
 * event is created, and against the events on the hardware whenever one
 * is scheduled: an event with another BDF is multiplexed, never counted
 * as if it had this one.
 *
 * As in the upstream driver, a group member without a source filter
 * (config1 == 0) counts with its leader's, if the leader filters on a
 * BDF: a group then describes one requester.
 */

#include <linux/bitfield.h>
#include <linux/property.h>

#include "hw/t410_cspmu.h"
#include "t410.h"

enum {
	PCIE_F_EVENT,
	PCIE_F_SRC_RP_MASK,
	PCIE_F_SRC_BDF,
	PCIE_F_SRC_BDF_EN,
	PCIE_F_DST_LOC_CMEM,
	PCIE_F_DST_LOC_GMEM,
	PCIE_F_DST_LOC_P2P,
	PCIE_F_DST_LOC_CXL,
	PCIE_F_DST_REM,
};

#define PCIE_CYCLES	BIT_ULL(32)

static const struct upmu_format pcie_formats[] = {
	[PCIE_F_EVENT]		= UPMU_FORMAT(event, UPMU_CONFIG, 0, 32),
	[PCIE_F_SRC_RP_MASK]	= UPMU_FORMAT(src_rp_mask, UPMU_CONFIG1, 0, 7),
	[PCIE_F_SRC_BDF]	= UPMU_FORMAT(src_bdf, UPMU_CONFIG1, 8, 23),
	[PCIE_F_SRC_BDF_EN]	= UPMU_FORMAT(src_bdf_en, UPMU_CONFIG1, 24, 24),
	[PCIE_F_DST_LOC_CMEM]	= UPMU_FORMAT(dst_loc_cmem, UPMU_CONFIG2, 0, 0),
	[PCIE_F_DST_LOC_GMEM]	= UPMU_FORMAT(dst_loc_gmem, UPMU_CONFIG2, 1, 1),
	[PCIE_F_DST_LOC_P2P]	= UPMU_FORMAT(dst_loc_pcie_p2p, UPMU_CONFIG2, 2, 2),
	[PCIE_F_DST_LOC_CXL]	= UPMU_FORMAT(dst_loc_pcie_cxl, UPMU_CONFIG2, 3, 3),
	[PCIE_F_DST_REM]	= UPMU_FORMAT(dst_rem, UPMU_CONFIG2, 4, 4),
};

static const struct upmu_event_desc pcie_events[] = {
	UPMU_EVENT_BYTES(rd_bytes, PCIE_EV_RD_BYTES),
	UPMU_EVENT_BYTES(wr_bytes, PCIE_EV_WR_BYTES),
	UPMU_EVENT(rd_req, PCIE_EV_RD_REQ),
	UPMU_EVENT(wr_req, PCIE_EV_WR_REQ),
	UPMU_EVENT(rd_cum_outs, PCIE_EV_RD_CUM_OUTS),
	UPMU_EVENT(cycles, PCIE_CYCLES),
};

/* upmu_sched.priv slots of the shared BDF comparator */
#define PCIE_BDF	0	/* the BDF programmed */
#define PCIE_BDF_USERS	1	/* counters that use it */

static bool pcie_bdf_en(struct upmu_pmu *upmu, struct perf_event *event)
{
	return upmu_field(upmu, event, PCIE_F_SRC_BDF_EN);
}

/* Field @fmt (a config1 one) of the source filter @src. */
static u64 pcie_src_field(u64 src, unsigned int fmt)
{
	const struct upmu_format *f = &pcie_formats[fmt];

	return (src & GENMASK_ULL(f->hi, f->lo)) >> f->lo;
}

/*
 * The source filter (config1 layout) that @event counts with: its own,
 * or, without one, that of a leader that filters on a BDF.
 */
static u64 pcie_src(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;

	if (!event->attr.config1 && leader != event &&
	    leader->pmu == event->pmu && pcie_bdf_en(upmu, leader))
		return leader->attr.config1;
	return event->attr.config1;
}

/*
 * Claim the comparator for @event in @s if its source filter is a BDF.
 * On the hardware the filter is recorded in the event: a closed leader
 * makes its siblings leaders, but what was claimed must be released and
 * programmed.  In a scratch state (event_init) nothing is recorded.
 */
static int pcie_claim(struct upmu_pmu *upmu, struct upmu_sched *s,
		      struct perf_event *event)
{
	u64 src = pcie_src(upmu, event);
	u64 bdf = pcie_src_field(src, PCIE_F_SRC_BDF);

	if (s->box)
		event->hw.extra_reg.config = src;
	if (!pcie_src_field(src, PCIE_F_SRC_BDF_EN))
		return 0;
	if (s->priv[PCIE_BDF_USERS] && s->priv[PCIE_BDF] != bdf)
		return -EINVAL;
	s->priv[PCIE_BDF] = bdf;
	s->priv[PCIE_BDF_USERS]++;
	return 0;
}

/* Only called for events claimed on the hardware. */
static void pcie_release(struct upmu_pmu *upmu, struct upmu_sched *s,
			 struct perf_event *event)
{
	if (pcie_src_field(event->hw.extra_reg.config, PCIE_F_SRC_BDF_EN))
		s->priv[PCIE_BDF_USERS]--;
}

/*
 * Whether the BDF fits the comparator is up to pcie_claim(), which the
 * core runs for the group alone, and at each add for the hardware.
 */
static int pcie_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 rp = upmu_field(upmu, event, PCIE_F_SRC_RP_MASK);
	u64 bdf = upmu_field(upmu, event, PCIE_F_SRC_BDF);
	bool bdf_en = pcie_bdf_en(upmu, event);

	if (upmu_field(upmu, event, PCIE_F_EVENT) == PCIE_CYCLES)
		return event->attr.config1 || event->attr.config2 ? -EINVAL : 0;
	if (bdf_en && rp) {
		upmu_why(upmu, "src_rp_mask and src_bdf are exclusive");
		return -EINVAL;
	}
	if (bdf && !bdf_en) {
		upmu_why(upmu, "src_bdf without src_bdf_en");
		return -EINVAL;
	}
	return 0;
}

/* The source filter claimed for the event; none means all root ports. */
static u32 pcie_filter(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 src = event->hw.extra_reg.config;

	if (pcie_src_field(src, PCIE_F_SRC_BDF_EN))
		return PCIE_FILT_BDF_EN |
		       FIELD_PREP(PCIE_FILT_BDF, pcie_src_field(src, PCIE_F_SRC_BDF));
	return pcie_src_field(src, PCIE_F_SRC_RP_MASK) ?: PCIE_FILT_RP_MASK;
}

/* No destination filter means all destinations. */
static u32 pcie_filter2(struct upmu_pmu *upmu, struct perf_event *event)
{
	return (event->attr.config2 & PCIE_FILT2_DST) ?: PCIE_FILT2_DST;
}

/*
 * Where the root complex sits in PCI: its segment and the bus numbers of
 * its root ports, as firmware describes them.  Exposed in sysfs so that
 * users can tell which PMU sees a device; optional.  Shared with the
 * PCIE-TGT PMU of the same root complex.
 */
void t410_pcie_probe_map(struct upmu_pmu *upmu)
{
	u8 rp[T410_PCIE_MAX_RP], bus[T410_PCIE_MAX_RP];
	struct device *dev = upmu->dev;
	char list[UPMU_INFO_LEN];
	int i, n, len = 0;
	u32 seg;

	if (device_property_read_u32(dev, "nvidia,pcie-segment", &seg))
		return;
	n = device_property_count_u8(dev, "nvidia,root-ports");
	if (n <= 0 || n > T410_PCIE_MAX_RP ||
	    device_property_read_u8_array(dev, "nvidia,root-ports", rp, n) ||
	    device_property_read_u8_array(dev, "nvidia,root-port-buses", bus, n)) {
		dev_warn(dev, "bad root port description, no PCI mapping\n");
		return;
	}
	/* "RP:FIRST-LAST" per root port; a port owns the buses up to the next */
	for (i = 0; i < n; i++)
		len += scnprintf(list + len, sizeof(list) - len, "%s%u:%02x-%02x",
				 i ? " " : "", rp[i], bus[i],
				 i + 1 < n ? bus[i + 1] - 1 : 0xff);
	upmu_set_info(upmu, "pci_segment", "%04x", seg);
	upmu_set_info(upmu, "root_ports", "%s", list);
}

static int pcie_probe_hw(struct upmu_pmu *upmu)
{
	int ret = t410_cspmu_probe_hw(upmu);

	if (!ret)
		t410_pcie_probe_map(upmu);
	return ret;
}

const struct t410_model t410_pcie_model = {
	.name_fmt	= "nvidia_pcie_pmu_%u_rc_%u",
	.desc = {
		.formats	= pcie_formats,
		.nr_formats	= ARRAY_SIZE(pcie_formats),
		.events		= pcie_events,
		.nr_events	= ARRAY_SIZE(pcie_events),
		.ops		= &t410_cspmu_ops,
		.max_rate_per_ns = T410_PCIE_MAX_PER_NS,
	},
	.probe_hw	= pcie_probe_hw,
	.cycles_id	= PCIE_CYCLES,
	.validate	= pcie_validate,
	.filter		= pcie_filter,
	.filter2	= pcie_filter2,
	.claim		= pcie_claim,
	.release	= pcie_release,
	/* what the upstream driver writes: the default filter, all ports */
	.cc_filter	= PCIE_FILT_RP_MASK,
};
