/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register interface of the Tegra410 CMEM latency PMU: fixed-function
 * 64-bit counters in each of the socket's memory-controller instances
 * (three MCs each), plus a broadcast page whose control registers write
 * all instances at once.  Shared by the driver and the simulator.
 *
 * upmu maps the instances and the broadcast page into one register
 * window, one page each.
 */
#ifndef __UPMU_HW_T410_CMEM_H__
#define __UPMU_HW_T410_CMEM_H__

#include <linux/bits.h>

#define CMEM_NR_INST		14
#define CMEM_NR_MC		3
#define CMEM_PAGE		0x1000
#define CMEM_INST(i)		((i) * CMEM_PAGE)
#define CMEM_BCAST		CMEM_INST(CMEM_NR_INST)
#define CMEM_WINDOW		(CMEM_BCAST + CMEM_PAGE)

/* Offsets within an instance (or the broadcast) page. */
#define CMEM_CG_CTRL		0x800	/* 1: counter clock on */
#define CMEM_CTRL		0x808
#define CMEM_STATUS		0x810	/* overflow flags, write 1 to clear */
#define CMEM_CYCLE_CNTR		0x818
#define CMEM_MC_STRIDE		0x18	/* between one MC's counters and the next's */
#define CMEM_MC_REQ_CNTR(mc)	(0x820 + CMEM_MC_STRIDE * (mc))
#define CMEM_MC_AOR_CNTR(mc)	(0x830 + CMEM_MC_STRIDE * (mc))

#define CMEM_CTRL_ENABLE	BIT(0)
#define CMEM_CTRL_CLR		BIT(1)

#define CMEM_STATUS_CYCLE_OVF	BIT(0)
#define CMEM_STATUS_AOR_OVF(mc)	BIT(1 + 3 * (mc))
#define CMEM_STATUS_REQ_OVF(mc)	BIT(3 + 3 * (mc))

/* Bytes per counted read request. */
#define CMEM_REQ_BYTES		32

/*
 * Fastest CMEM counter: a memory controller's accumulated-outstanding
 * counter adds its requests in flight every cycle, at most 1024 at up to
 * 2 GHz.
 */
#define CMEM_MAX_OUTSTANDING	1024
#define CMEM_MAX_PER_NS		2048

#define CMEM_EV_CYCLES		0x0
#define CMEM_EV_RD_REQ		0x1
#define CMEM_EV_RD_CUM_OUTS	0x2

/* Logical counters: every event reads the same free-running counters. */
#define CMEM_MAX_EVENTS		32

#define T410_CMEM_IDENTIFIER	"NVDA2021"

#endif
