/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register interface of the Tegra410 CoreSight-architecture PMUs (UCF,
 * PCIE, PCIE-TGT): what software sees at the PMU's MMIO base.  Shared by
 * the driver and the simulator, as a datasheet would be.
 */
#ifndef __UPMU_HW_T410_CSPMU_H__
#define __UPMU_HW_T410_CSPMU_H__

#include <linux/bits.h>

/*
 * PMEVCNTR<n>, the cycle counter being n = CSPMU_CYCLE_IDX: counters of
 * at most CSPMU_CNTR32_MAX_WIDTH bits (PMCFGR.SIZE) are 32-bit registers
 * at a 4-byte stride, wider ones 64-bit registers at an 8-byte stride.
 */
#define CSPMU_PMEVCNTR32(n)	(0x000 + 4 * (n))
#define CSPMU_PMEVCNTR64(n)	(0x000 + 8 * (n))
#define CSPMU_CNTR32_MAX_WIDTH	32
#define CSPMU_PMEVTYPER(n)	(0x400 + 4 * (n))
#define CSPMU_PMCCFILTR		0x47C
#define CSPMU_PMEVFILT2R(n)	(0x800 + 4 * (n))
#define CSPMU_PMEVFILTR(n)	(0xA00 + 4 * (n))
#define CSPMU_PMCNTENSET	0xC00
#define CSPMU_PMCNTENCLR	0xC20
#define CSPMU_PMINTENSET	0xC40
#define CSPMU_PMINTENCLR	0xC60
#define CSPMU_PMOVSCLR		0xC80
#define CSPMU_PMOVSSET		0xCC0
#define CSPMU_PMCFGR		0xE00
#define CSPMU_PMCR		0xE04
#define CSPMU_PMIIDR		0xE08
#define CSPMU_REG_SIZE		0x1000

/*
 * The fabric clock that all Tegra410 PMUs count cycles of runs at up to
 * 2 GHz: no cycle counter advances by more than 2 per ns.
 */
#define T410_MAX_CLOCK_MHZ	2000

#define CSPMU_PMCFGR_CC		BIT(14)		/* cycle counter present */
#define CSPMU_PMCFGR_SIZE	GENMASK(13, 8)	/* counter width - 1 */
/*
 * N + 1 logical counters, the cycle counter among them when CC is set
 * (Arm CoreSight PMU architecture; upstream's arm_cspmu reads it so):
 * then N general counters, 0 to N - 1, and the cycle counter at
 * CSPMU_CYCLE_IDX.
 */
#define CSPMU_PMCFGR_N		GENMASK(7, 0)

#define CSPMU_PMCR_E		BIT(0)		/* global enable */
#define CSPMU_PMCR_P		BIT(1)		/* reset event counters */
#define CSPMU_PMCR_C		BIT(2)		/* reset the cycle counter */

#define CSPMU_CYCLE_IDX		31		/* cycle counter slot */
#define CSPMU_MAX_COUNTERS	31		/* general counters */

/* PMIIDR values: product 0x2CF2 (UCF), implementer 0x36B (NVIDIA). */
#define T410_UCF_PMIIDR		0x2cf2036b

/* UCF PMEVTYPER event numbers */
#define UCF_EV_SLC_ACCESS		0x000
#define UCF_EV_BUS_CYCLES		0x01d
#define UCF_EV_SLC_ALLOCATE		0x0f0
#define UCF_EV_SLC_WB			0x0f3
#define UCF_EV_SLC_REFILL_RD		0x109
#define UCF_EV_SLC_REFILL_WR		0x10a
#define UCF_EV_SLC_ACCESS_RD		0x111
#define UCF_EV_SLC_ACCESS_WR		0x112
#define UCF_EV_SLC_BYTES_RD		0x113
#define UCF_EV_SLC_BYTES_WR		0x114
#define UCF_EV_SLC_HIT_RD		0x119
#define UCF_EV_MEM_ACCESS_RD		0x121
#define UCF_EV_MEM_ACCESS_WR		0x122
#define UCF_EV_MEM_BYTES_RD		0x123
#define UCF_EV_MEM_BYTES_WR		0x124
#define UCF_EV_LOCAL_SNOOP		0x180
#define UCF_EV_EXT_SNP_ACCESS		0x181
#define UCF_EV_EXT_SNP_EVICT		0x182
#define UCF_EV_SLC_ACCESS_DATALESS	0x183
#define UCF_EV_SLC_ACCESS_ATOMIC	0x184

/* UCF PMEVFILTR / PMCCFILTR: source and destination filter bits */
#define UCF_FILT_SRC_LOC_NONCPU	BIT(0)
#define UCF_FILT_SRC_LOC_CPU	BIT(1)
#define UCF_FILT_SRC_REM	BIT(2)
#define UCF_FILT_SRC		GENMASK(2, 0)
#define UCF_FILT_DST_LOC_CMEM	BIT(8)
#define UCF_FILT_DST_LOC_GMEM	BIT(9)
#define UCF_FILT_DST_LOC_OTHER	BIT(10)
#define UCF_FILT_DST_REM	BIT(11)
#define UCF_FILT_DST		GENMASK(11, 8)

/* PCIE PMU (one per PCIe root complex): product 0x103 */
#define T410_PCIE_PMIIDR	0x1030136b
#define PCIE_EV_RD_BYTES	0x0
#define PCIE_EV_WR_BYTES	0x1
#define PCIE_EV_RD_REQ		0x2
#define PCIE_EV_WR_REQ		0x3
#define PCIE_EV_RD_CUM_OUTS	0x4

/* PCIE PMEVFILTR: traffic source, root ports or one requester ID */
#define PCIE_FILT_RP_MASK	GENMASK(7, 0)
#define PCIE_FILT_BDF		GENMASK(23, 8)
#define PCIE_FILT_BDF_EN	BIT(24)
/* PCIE PMEVFILT2R: destination */
#define PCIE_FILT2_LOC_CMEM	BIT(0)
#define PCIE_FILT2_LOC_GMEM	BIT(1)
#define PCIE_FILT2_LOC_P2P	BIT(2)
#define PCIE_FILT2_LOC_CXL	BIT(3)
#define PCIE_FILT2_REM		BIT(4)
#define PCIE_FILT2_DST		GENMASK(4, 0)

/* Root ports per PCIe root complex */
#define T410_PCIE_MAX_RP	8
/* Reads a PCIe root complex can have in flight */
#define T410_PCIE_MAX_OUTSTANDING	1024
/*
 * Fastest PCIE counter: rd_cum_outs adds the reads in flight every
 * cycle, at most 1024 outstanding reads at up to 2 GHz.
 */
#define T410_PCIE_MAX_PER_NS	\
	(T410_PCIE_MAX_OUTSTANDING * T410_MAX_CLOCK_MHZ / 1000)

/* PCIE-TGT PMU (one per PCIe root complex): product 0x107 */
#define T410_PCIE_TGT_PMIIDR	0x1070136b
#define TGT_EV_RD_BYTES		0x0
#define TGT_EV_WR_BYTES		0x1
#define TGT_EV_RD_REQ		0x2
#define TGT_EV_WR_REQ		0x3
#define TGT_EV_CYCLES		0x4	/* on a general counter */

/* Fastest PCIE-TGT counter: bytes, at most the socket's fabric bandwidth */
#define T410_PCIE_TGT_MAX_PER_NS	UCF_MAX_BYTES_PER_NS

/* PCIE-TGT PMEVFILT2R: BAR traffic to these root ports, or these slots */
#define TGT_FILT2_RP_MASK	GENMASK(7, 0)
#define TGT_FILT2_SLOTS		GENMASK(15, 8)

/*
 * PCIE-TGT address-range slots, in the second page of the register
 * window: a transaction matches slot i if it is enabled and
 * (addr & MASK) == (BASE & MASK).
 */
#define TGT_NR_SLOTS		8
#define TGT_SLOT(i)		(0x1000 + 0xd38 + 20 * (i))
#define TGT_SLOT_CTRL		0x0	/* bit 0: enable */
#define TGT_SLOT_BASE_LO	0x4
#define TGT_SLOT_BASE_HI	0x8
#define TGT_SLOT_MASK_LO	0xc
#define TGT_SLOT_MASK_HI	0x10

/*
 * Fastest UCF traffic per socket: 512 bytes per ns (512 GB/s).  Its
 * byte counters are the UCF's fastest; all other PMUs of the socket see
 * at most this traffic too.
 */
#define UCF_MAX_BYTES_PER_NS	512

#endif
