// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 chip-to-chip link PMUs: NVLink-C2C, NV-CLink and NV-DLink.
 * Requests that cross a link, in each direction, the cycles they spend
 * outstanding, and the link's cycles.
 *
 * The counters are fixed-function and 64 bits wide, one set per link
 * instance.  Nothing is programmed per event: the PMU enables every
 * instance (through the broadcast page) while any event is scheduled,
 * and an event reads the sum of its counter over the instances of the
 * peers it selects.  The counters keep their value while disabled, so
 * deltas across a disable are exact.  Which instances carry which
 * peer's traffic, and what the peer is, firmware tells (see
 * hw/t410_c2c.h); the peer decides the events: reads and writes with
 * GPUs, reads only with another SoC (NVLink-C2C or NV-CLink) and
 * incoming reads only with CXL memory (NV-DLink).
 */

#include <linux/bitops.h>
#include <linux/property.h>

#include "hw/t410_c2c.h"
#include "t410.h"

enum { C2C_F_EVENT, C2C_F_GPU_MASK };

/* With GPUs, gpu_mask selects them; 0 means every GPU. */
static const struct upmu_format c2c_formats[] = {
	[C2C_F_EVENT]		= UPMU_FORMAT(event, UPMU_CONFIG, 0, 3),
	[C2C_F_GPU_MASK]	= UPMU_FORMAT(gpu_mask, UPMU_CONFIG1, 0, 1),
};

static const struct upmu_event_desc c2c_gpu_events[] = {
	UPMU_EVENT(cycles, C2C_EV_CYCLES),
	UPMU_EVENT(in_rd_cum_outs, C2C_EV_IN_RD_CUM_OUTS),
	UPMU_EVENT(in_rd_req, C2C_EV_IN_RD_REQ),
	UPMU_EVENT(in_wr_cum_outs, C2C_EV_IN_WR_CUM_OUTS),
	UPMU_EVENT(in_wr_req, C2C_EV_IN_WR_REQ),
	UPMU_EVENT(out_rd_cum_outs, C2C_EV_OUT_RD_CUM_OUTS),
	UPMU_EVENT(out_rd_req, C2C_EV_OUT_RD_REQ),
	UPMU_EVENT(out_wr_cum_outs, C2C_EV_OUT_WR_CUM_OUTS),
	UPMU_EVENT(out_wr_req, C2C_EV_OUT_WR_REQ),
};

/* A SoC peer: reads only.  CXL memory: the first three, incoming reads. */
static const struct upmu_event_desc c2c_rd_events[] = {
	UPMU_EVENT(cycles, C2C_EV_CYCLES),
	UPMU_EVENT(in_rd_cum_outs, C2C_EV_IN_RD_CUM_OUTS),
	UPMU_EVENT(in_rd_req, C2C_EV_IN_RD_REQ),
	UPMU_EVENT(out_rd_cum_outs, C2C_EV_OUT_RD_CUM_OUTS),
	UPMU_EVENT(out_rd_req, C2C_EV_OUT_RD_REQ),
};

#define C2C_NR_CXL_EVENTS	3

enum c2c_kind { C2C_NVLINK, C2C_NVCLINK, C2C_NVDLINK };
enum c2c_peer { C2C_PEER_CPU, C2C_PEER_GPU, C2C_PEER_CXLMEM };

/**
 * struct c2c_link - what firmware told about one link PMU
 * @nr_inst: instances of the link
 * @peer: what is at the other end
 * @gpus: with GPUs, the gpu_mask bits of those present
 * @insts: instances of each peer (GPU n, or the single CPU / CXL peer)
 *
 * Device-managed: the core calls the ops that use it only while the
 * PMU is not dead, that is, while the device is there.
 */
struct c2c_link {
	unsigned int nr_inst;
	enum c2c_peer peer;
	u32 gpus;
	u32 insts[C2C_MAX_GPUS];
};

static struct c2c_link *link_of(struct upmu_pmu *upmu)
{
	return upmu->priv;
}

/* Instances whose counters an event sums. */
static u32 c2c_event_insts(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct c2c_link *l = link_of(upmu);
	unsigned long gpus;
	unsigned int g;
	u32 insts = 0;

	if (l->peer != C2C_PEER_GPU)
		return l->insts[0];
	gpus = upmu_field(upmu, event, C2C_F_GPU_MASK) ?: l->gpus;
	for_each_set_bit(g, &gpus, C2C_MAX_GPUS)
		insts |= l->insts[g];
	return insts;
}

/* gpu_mask may only name GPUs that are there. */
static int c2c_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	struct c2c_link *l = link_of(upmu);
	u64 gpus;

	if (l->peer != C2C_PEER_GPU)
		return 0;
	gpus = upmu_field(upmu, event, C2C_F_GPU_MASK);
	if (gpus & ~l->gpus) {
		upmu_why(upmu, "gpu_mask %#llx: the GPUs present are %#x",
			 gpus, l->gpus);
		return -EINVAL;
	}
	return 0;
}

static int c2c_get_idx(struct upmu_pmu *upmu, struct upmu_sched *s,
		       struct perf_event *event)
{
	unsigned int idx = find_first_zero_bit(s->used, C2C_MAX_EVENTS);

	return idx < C2C_MAX_EVENTS ? idx : -EAGAIN;
}

static void c2c_ctrl(struct upmu_pmu *upmu, u32 val)
{
	upmu_wr32(&upmu->regs, C2C_BCAST(link_of(upmu)->nr_inst) + C2C_CTRL, val);
}

static void c2c_enable(struct upmu_pmu *upmu)
{
	c2c_ctrl(upmu, C2C_CTRL_ENABLE);
}

static void c2c_disable(struct upmu_pmu *upmu)
{
	c2c_ctrl(upmu, 0);
}

/*
 * The counters are 64-bit at 4-byte aligned offsets: read in two halves.
 * All instances run on one clock and are enabled together: cycles is
 * the first instance's.
 */
static u64 c2c_read(struct upmu_pmu *upmu, struct perf_event *event)
{
	unsigned int ev = upmu_field(upmu, event, C2C_F_EVENT);
	unsigned long insts = c2c_event_insts(upmu, event);

	if (ev == C2C_EV_CYCLES)
		return upmu_rd64_hilo(&upmu->regs,
				      C2C_INST(__ffs(insts)) + C2C_CYCLE_CNTR);
	return upmu_rd64_hilo_sum(&upmu->regs, c2c_cntr(ev), C2C_PAGE, insts);
}

static const struct upmu_hw_ops t410_c2c_ops = {
	.validate	= c2c_validate,
	.get_idx	= c2c_get_idx,
	.enable		= c2c_enable,
	.disable	= c2c_disable,
	.read		= c2c_read,
};

#define C2C_DESC(_formats, _nr_formats, _events, _nr_events) {	\
	.formats	= (_formats),					\
	.nr_formats	= (_nr_formats),				\
	.events		= (_events),					\
	.nr_events	= (_nr_events),					\
	.ops		= &t410_c2c_ops,				\
}

/* The event sets by peer; the format table without gpu_mask for non-GPUs. */
static const struct upmu_desc c2c_gpu_desc =
	C2C_DESC(c2c_formats, ARRAY_SIZE(c2c_formats),
		 c2c_gpu_events, ARRAY_SIZE(c2c_gpu_events));
static const struct upmu_desc c2c_cpu_desc =
	C2C_DESC(c2c_formats, 1, c2c_rd_events, ARRAY_SIZE(c2c_rd_events));

static u32 c2c_prop(struct device *dev, const char *name)
{
	u32 val = 0;

	device_property_read_u32(dev, name, &val);
	return val;
}

/* NVLink-C2C: either another SoC or up to two GPUs, on disjoint instances. */
static int nvlink_probe_peer(struct device *dev, struct c2c_link *l)
{
	static const char * const gpu_props[C2C_MAX_GPUS] = {
		C2C_PROP_GPU0_EN, C2C_PROP_GPU1_EN,
	};
	u32 cpu = c2c_prop(dev, C2C_PROP_CPU_EN), seen = 0;
	unsigned int g;

	for (g = 0; g < C2C_MAX_GPUS; g++) {
		l->insts[g] = c2c_prop(dev, gpu_props[g]);
		if (!l->insts[g])
			continue;
		if (l->insts[g] & seen) {
			dev_err(dev, "GPU %u shares link instances with GPU 0\n", g);
			return -EINVAL;
		}
		seen |= l->insts[g];
		l->gpus |= BIT(g);
	}
	if (cpu && l->gpus) {
		dev_err(dev, "link described with both a CPU and GPUs\n");
		return -EINVAL;
	}
	if (cpu) {
		l->peer = C2C_PEER_CPU;
		l->insts[0] = cpu;
	} else if (l->gpus) {
		l->peer = C2C_PEER_GPU;
	} else {
		dev_err(dev, "no peer described (%s, %s, %s)\n", C2C_PROP_CPU_EN,
			C2C_PROP_GPU0_EN, C2C_PROP_GPU1_EN);
		return -ENODEV;
	}
	return 0;
}

static int c2c_probe(struct upmu_pmu *upmu, enum c2c_kind kind)
{
	static const unsigned int nr_inst[] = {
		[C2C_NVLINK] = C2C_NR_INST_NVLINK,
		[C2C_NVCLINK] = C2C_NR_INST_NVCLINK,
		[C2C_NVDLINK] = C2C_NR_INST_NVDLINK,
	};
	static const char * const ident[] = {
		[C2C_NVLINK] = T410_NVLINK_C2C_IDENTIFIER,
		[C2C_NVCLINK] = T410_NVCLINK_IDENTIFIER,
		[C2C_NVDLINK] = T410_NVDLINK_IDENTIFIER,
	};
	struct device *dev = upmu->dev;
	struct c2c_link *l;
	unsigned int g, i;
	u32 all;
	int ret;

	l = devm_kzalloc(dev, sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->nr_inst = nr_inst[kind];
	all = GENMASK(l->nr_inst - 1, 0);

	switch (kind) {
	case C2C_NVLINK:
		ret = nvlink_probe_peer(dev, l);
		if (ret)
			return ret;
		break;
	case C2C_NVCLINK:
		l->peer = C2C_PEER_CPU;
		l->insts[0] = c2c_prop(dev, C2C_PROP_CPU_EN) ?: all;
		break;
	case C2C_NVDLINK:
		l->peer = C2C_PEER_CXLMEM;
		l->insts[0] = all;
		break;
	}
	for (g = 0; g < C2C_MAX_GPUS; g++) {
		if (l->insts[g] & ~all) {
			dev_err(dev, "instance mask %#x: the link has %u instances\n",
				l->insts[g], l->nr_inst);
			return -EINVAL;
		}
	}

	switch (l->peer) {
	case C2C_PEER_GPU:
		upmu->desc = &c2c_gpu_desc;
		upmu_set_info(upmu, "peer", "nr_gpu=%u", hweight32(l->gpus));
		break;
	case C2C_PEER_CPU:
		upmu->desc = &c2c_cpu_desc;
		upmu_set_info(upmu, "peer", "nr_cpu=1");
		break;
	case C2C_PEER_CXLMEM:
		upmu_set_info(upmu, "peer", "nr_cxlmem=1");
		break;
	}
	upmu->priv = l;
	upmu->num_counters = C2C_MAX_EVENTS;
	upmu->width = 64;
	strscpy(upmu->identifier, ident[kind], sizeof(upmu->identifier));

	/* Stopped, no stale overflow flags. */
	c2c_disable(upmu);
	for (i = 0; i < l->nr_inst; i++) {
		upmu_wr32(&upmu->regs, C2C_INST(i) + C2C_IN_STATUS, ~0U);
		upmu_wr32(&upmu->regs, C2C_INST(i) + C2C_OUT_STATUS, ~0U);
	}
	return 0;
}

static int nvlink_probe_hw(struct upmu_pmu *upmu)
{
	return c2c_probe(upmu, C2C_NVLINK);
}

static int nvclink_probe_hw(struct upmu_pmu *upmu)
{
	return c2c_probe(upmu, C2C_NVCLINK);
}

static int nvdlink_probe_hw(struct upmu_pmu *upmu)
{
	return c2c_probe(upmu, C2C_NVDLINK);
}

/* probe_hw picks the event set of the peer that firmware describes. */
const struct t410_model t410_nvlink_c2c_model = {
	.name_fmt	= "nvidia_nvlink_c2c_pmu_%u",
	.desc		= C2C_DESC(c2c_formats, ARRAY_SIZE(c2c_formats),
				   c2c_gpu_events, ARRAY_SIZE(c2c_gpu_events)),
	.probe_hw	= nvlink_probe_hw,
};

const struct t410_model t410_nvclink_model = {
	.name_fmt	= "nvidia_nvclink_pmu_%u",
	.desc		= C2C_DESC(c2c_formats, 1, c2c_rd_events,
				   ARRAY_SIZE(c2c_rd_events)),
	.probe_hw	= nvclink_probe_hw,
};

const struct t410_model t410_nvdlink_model = {
	.name_fmt	= "nvidia_nvdlink_pmu_%u",
	.desc		= C2C_DESC(c2c_formats, 1, c2c_rd_events,
				   C2C_NR_CXL_EVENTS),
	.probe_hw	= nvdlink_probe_hw,
};
