/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register interface of the Tegra410 chip-to-chip link PMUs: NVLink-C2C
 * (to GPUs or to another SoC), NV-CLink (to another SoC) and NV-DLink
 * (to CXL memory).  Each link has several instances, each with a set of
 * fixed-function 64-bit counters, plus a broadcast page whose control
 * register writes all instances at once.  Shared by the driver and the
 * simulator.
 *
 * upmu maps the instances and the broadcast page into one register
 * window, one page each: instance i at C2C_INST(i), the broadcast page
 * after the last instance.
 */
#ifndef __UPMU_HW_T410_C2C_H__
#define __UPMU_HW_T410_C2C_H__

#include <linux/bits.h>
#include <linux/types.h>

#define C2C_NR_INST_NVLINK	14
#define C2C_NR_INST_NVCLINK	12
#define C2C_NR_INST_NVDLINK	16
#define C2C_MAX_INST		16

#define C2C_PAGE		0x1000
#define C2C_INST(i)		((i) * C2C_PAGE)
#define C2C_BCAST(nr_inst)	C2C_INST(nr_inst)
#define C2C_WINDOW(nr_inst)	(C2C_BCAST(nr_inst) + C2C_PAGE)

/* Offsets within an instance (or the broadcast) page. */
#define C2C_CTRL		0x864
#define C2C_IN_STATUS		0x868	/* overflow flags, write 1 to clear */
#define C2C_CYCLE_CNTR		0x86c
#define C2C_OUT_STATUS		0x890	/* overflow flags, write 1 to clear */
#define C2C_OUT_RD_CUM_OUTS_CNTR 0x898

#define C2C_CTRL_ENABLE		BIT(0)

/*
 * Event numbers.  Each event has one counter per instance: 64 bits at a
 * 4-byte aligned offset, so software reads it as two 32-bit halves.
 */
#define C2C_EV_CYCLES		0x0
#define C2C_EV_IN_RD_CUM_OUTS	0x1
#define C2C_EV_IN_RD_REQ	0x2
#define C2C_EV_IN_WR_CUM_OUTS	0x3
#define C2C_EV_IN_WR_REQ	0x4
#define C2C_EV_OUT_RD_CUM_OUTS	0x5
#define C2C_EV_OUT_RD_REQ	0x6
#define C2C_EV_OUT_WR_CUM_OUTS	0x7
#define C2C_EV_OUT_WR_REQ	0x8
#define C2C_NR_EVENTS		9

/*
 * Counter of event @ev: the cycle and incoming counters follow each
 * other from C2C_CYCLE_CNTR, the outgoing ones from
 * C2C_OUT_RD_CUM_OUTS_CNTR.  An overflow of the cycle or an incoming
 * counter sets bit @ev of C2C_IN_STATUS, one of an outgoing counter bit
 * @ev - C2C_EV_OUT_RD_CUM_OUTS of C2C_OUT_STATUS.
 */
static inline u32 c2c_cntr(unsigned int ev)
{
	if (ev < C2C_EV_OUT_RD_CUM_OUTS)
		return C2C_CYCLE_CNTR + 8 * ev;
	return C2C_OUT_RD_CUM_OUTS_CNTR + 8 * (ev - C2C_EV_OUT_RD_CUM_OUTS);
}

static inline bool c2c_ev_is_out(unsigned int ev)
{
	return ev >= C2C_EV_OUT_RD_CUM_OUTS;
}

/*
 * Firmware properties of a link PMU device: the instances that carry
 * the traffic of each peer, as a bit mask.  An NVLink-C2C link has
 * either cpu_en_mask (another SoC) or one mask per GPU; NV-CLink may
 * have cpu_en_mask (default: every instance); NV-DLink has none (its
 * peer is CXL memory, on every instance).
 */
#define C2C_PROP_CPU_EN		"cpu_en_mask"
#define C2C_PROP_GPU0_EN	"gpu0_en_mask"
#define C2C_PROP_GPU1_EN	"gpu1_en_mask"
#define C2C_MAX_GPUS		2

/*
 * Fastest link counter: an instance's *_CUM_OUTS counters add its
 * requests in flight every cycle, at most 1024 at up to 2 GHz.
 */
#define C2C_MAX_OUTSTANDING	1024
#define C2C_MAX_PER_NS		2048

/* Logical counters: every event reads the same free-running counters. */
#define C2C_MAX_EVENTS		32

/* ACPI HIDs of the three link PMUs. */
#define T410_NVLINK_C2C_IDENTIFIER	"NVDA2023"
#define T410_NVCLINK_IDENTIFIER		"NVDA2022"
#define T410_NVDLINK_IDENTIFIER		"NVDA2020"

#endif
