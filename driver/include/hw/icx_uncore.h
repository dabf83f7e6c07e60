/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register contract of a (simulated) Ice Lake-X uncore: the IIO, IRP,
 * M2PCIE and IIO free-running PMU boxes of the six IIO stacks of each
 * socket, the PCIe topology of those stacks, the CHA, IMC, IMC
 * free-running, M2M, UPI and M3UPI PMU boxes, and the PCU and UBOX.
 *
 * On silicon these PMUs are MSRs, read on a CPU of the socket, and the
 * topology comes from PCI config space (SAD_CONTROL_CFG of 8086:09a2).
 * Here each socket has one register window in which register MSR m sits
 * at offset ICX_MSR(m) = 8 * m, 64 bits wide, with the silicon's MSR
 * numbers and per-box offsets (as upstream's uncore_snbep.c has them for
 * Ice Lake-X), and the topology in a read-only area below the MSRs.
 * Socket s's window starts at ICX_SOCKET_BASE(s) of the device's
 * register block.  Everything not listed reads as zero and ignores
 * writes.
 */
#ifndef __HW_ICX_UNCORE_H__
#define __HW_ICX_UNCORE_H__

#include <linux/bits.h>

#define ICX_NR_STACKS		6	/* IIO stacks (and IRPs) per socket */
#define ICX_NR_PARTS		8	/* parts (root ports) per stack */
#define ICX_IIO_NR_CTRS		4	/* general counters per IIO box */
#define ICX_IRP_NR_CTRS		2	/* general counters per IRP box */
#define ICX_FR_NR_CTRS		9	/* ioclk + bw_in of 8 parts */
#define ICX_CTR_BITS		48	/* every counter, free-running too */

#define ICX_SOCKET_STRIDE	0x10000
#define ICX_SOCKET_BASE(s)	((s) * ICX_SOCKET_STRIDE)
#define ICX_MSR(m)		((m) * 8)

/* The MSR offset of each box from box 0 (icx_msr_offsets upstream). */
#define ICX_BOX_OFFSETS		{ 0x0, 0x20, 0x40, 0x90, 0xb0, 0xd0 }
/* The BW_IN free-running counters' box offsets. */
#define ICX_BW_BOX_OFFSETS	{ 0x0, 0x10, 0x20, 0x90, 0xa0, 0xb0 }

/* IIO box @o (its ICX_BOX_OFFSETS entry): box control, counters, controls */
#define ICX_IIO_BOX_CTL(o)	ICX_MSR(0xa50 + (o))
#define ICX_IIO_CTR(o, i)	ICX_MSR(0xa51 + (o) + (i))
#define ICX_IIO_CTL(o, i)	ICX_MSR(0xa58 + (o) + (i))
/* The IIO clock's free-running counter of box @o */
#define ICX_IIO_IOCLK(o)	ICX_MSR(0xa55 + (o))
/* The inbound bandwidth free-running counter of part @p, box @bo (BW offset) */
#define ICX_IIO_BW_IN(bo, p)	ICX_MSR(0xaa0 + (bo) + (p))
/* IRP box @o */
#define ICX_IRP_BOX_CTL(o)	ICX_MSR(0xa4a + (o))
#define ICX_IRP_CTR(o, i)	ICX_MSR(0xa4b + (o) + (i))
#define ICX_IRP_CTL(o, i)	ICX_MSR(0xa4d + (o) + (i))

/* Box control: while FRZ is set, no counter of the box counts. */
#define ICX_BOX_CTL_RST_CTRL	BIT(0)	/* write 1: clear the controls */
#define ICX_BOX_CTL_RST_CTRS	BIT(1)	/* write 1: clear the counters */
#define ICX_BOX_CTL_FRZ		BIT(8)
#define ICX_BOX_CTL_FRZ_EN	BIT(16)

/* Counter control (the event's config, plus EN) */
#define ICX_CTL_EVENT		GENMASK_ULL(7, 0)
#define ICX_CTL_UMASK		GENMASK_ULL(15, 8)
#define ICX_CTL_RST		BIT_ULL(17)
#define ICX_CTL_EDGE		BIT_ULL(18)
#define ICX_CTL_EN		BIT_ULL(22)
#define ICX_CTL_INV		BIT_ULL(23)
/*
 * The threshold: with thresh > 0 a counter adds 1 for each cycle in which
 * its event's increment is >= thresh (< thresh with INV); with EDGE only
 * for each cycle in which that becomes true.  12 bits on the IIO, 8
 * (ICX_CTL_THRESH8) on the IRP, CHA, IMC and UPI.
 */
#define ICX_CTL_THRESH		GENMASK_ULL(35, 24)
#define ICX_CTL_THRESH8		GENMASK_ULL(31, 24)
#define ICX_CTL_CH_MASK		GENMASK_ULL(47, 36)	/* IIO: parts 0-7, 8-11 IOMMU */
#define ICX_CTL_FC_MASK		GENMASK_ULL(50, 48)	/* IIO: traffic classes */

/* fc_mask: the PCIe traffic classes */
#define ICX_FC_POSTED		BIT(0)	/* writes */
#define ICX_FC_NONPOSTED	BIT(1)	/* read requests */
#define ICX_FC_CMPL		BIT(2)	/* completions */

/* IIO events (upstream's names, perf's Ice Lake-X JSON) */
#define ICX_IIO_EV_CLOCKTICKS	0x01
#define ICX_IIO_EV_DATA_REQ_OF_CPU	0x83	/* inbound, 4-byte units */
#define ICX_IIO_EV_TXN_REQ_OF_CPU	0x84	/* inbound, transactions */
#define ICX_IIO_EV_DATA_REQ_BY_CPU	0xc0	/* outbound, 4-byte units */
#define ICX_IIO_EV_TXN_REQ_BY_CPU	0xc1	/* outbound, transactions */
#define ICX_IIO_EV_COMP_BUF_INSERTS	0xc2
#define ICX_IIO_EV_COMP_BUF_OCCUPANCY	0xd5	/* umask: parts */
/* DATA_REQ and TXN_REQ umasks */
#define ICX_REQ_MEM_WRITE	BIT(0)
#define ICX_REQ_MEM_READ	BIT(2)
#define ICX_REQ_CMPD		BIT(7)
/* COMP_BUF_INSERTS umask of completions with data */
#define ICX_COMP_BUF_CMPD	0x3

/* The stack's IOMMU (VT-d): IOTLB, context cache, page walks */
#define ICX_IIO_EV_IOMMU0		0x40
#define ICX_IOMMU0_FIRST_LOOKUPS	BIT(0)
#define ICX_IOMMU0_ALL_LOOKUPS		BIT(1)
#define ICX_IOMMU0_4K_HITS		BIT(2)	/* then 2M, 1G: BIT(3), BIT(4) */
#define ICX_IOMMU0_MISSES		BIT(5)
#define ICX_IOMMU0_CTXT_LOOKUPS		BIT(6)
#define ICX_IOMMU0_CTXT_HITS		BIT(7)
#define ICX_IIO_EV_IOMMU1		0x41
#define ICX_IOMMU1_PWT_LOOKUPS		BIT(0)
#define ICX_IOMMU1_MEM_ACCESSES		BIT(6)
#define ICX_IIO_EV_PWT_OCCUPANCY	0x42
/* ch_mask bit of the IOMMU's own memory reads (page walks) */
#define ICX_CH_IOMMU1			BIT(9)

/* IRP events */
#define ICX_IRP_EV_CLOCKTICKS	0x01
#define ICX_IRP_EV_CACHE_TOTAL_OCCUPANCY	0x0f
#define ICX_IRP_OCC_MEM		BIT(2)
#define ICX_IRP_EV_TRANSACTIONS	0x11
#define ICX_IRP_TXN_WR_PREF	BIT(3)
#define ICX_IRP_EV_FAF_INSERTS	0x18
#define ICX_IRP_EV_FAF_OCCUPANCY	0x19
#define ICX_IRP_EV_MISC1	0x1f
#define ICX_IRP_MISC1_LOST_FWD	BIT(4)

/* Free-running events: event 0xff, umask 0x10 ioclk, 0x20 + p bw_in of part p */
#define ICX_FR_EVENT		0xff
#define ICX_FR_UMASK_IOCLK	0x10
#define ICX_FR_UMASK_BW_IN	0x20
#define ICX_BW_IN_BYTES		32	/* bytes per bw_in increment */

/* The fastest any counter advances, per ns (occupancy counters) */
#define ICX_MAX_PER_NS		2048

/*
 * Topology (read-only): per stack, its PCI segment and root bus; per
 * part, whether a root port is there and its link.
 */
#define ICX_TOPO_STACK(k)	(0x100 + (k) * 0x100)
#define ICX_TOPO_BUS		GENMASK(7, 0)		/* root bus */
#define ICX_TOPO_SEG		GENMASK(23, 8)		/* PCI segment */
#define ICX_TOPO_VALID		BIT(31)
#define ICX_TOPO_PORT(k, p)	(ICX_TOPO_STACK(k) + 8 + (p) * 8)
#define ICX_PORT_DEVFN		GENMASK(7, 0)		/* root port, on the root bus */
#define ICX_PORT_SEC_BUS	GENMASK(15, 8)		/* the device below it */
#define ICX_PORT_SPEED		GENMASK(19, 16)		/* PCIe generation */
#define ICX_PORT_WIDTH		GENMASK(25, 20)		/* lanes */
#define ICX_PORT_PRESENT	BIT(31)
/*
 * Per UPI link, what its peer is (as on silicon the UPI link's KTILP0
 * and KTIPCSTS registers, PCI 8086:3441, say): the peer's socket (its
 * NodeID) and link, if the link is up.
 */
#define ICX_TOPO_UPI(l)		(0x700 + (l) * 8)
#define ICX_UPI_TOPO_PORT	GENMASK(12, 8)		/* the peer's link */
#define ICX_UPI_TOPO_DIE	GENMASK(19, 16)		/* the peer's socket */
#define ICX_UPI_TOPO_UP		BIT(31)
/*
 * The CHAs of the socket (as on silicon CAPID6 and CAPID7, PCI config
 * 0x9c and 0xa0 of 8086:345b, say): one bit per CHA that is enabled,
 * CAPID6 the low half; CHA boxes 0 to (the number of bits) - 1 exist.
 */
#define ICX_TOPO_CHA_CAP	0x780

/*
 * CHA (caching and home agent, one per L3 slice): MSRs as on silicon,
 * box @o being its entry of ICX_CHA_OFFSETS (icx_cha_msr_offsets
 * upstream).  The umask is 32 bits: 8-15 and 32-55 of the control
 * (config:8-15,32-57 in perf's format, as upstream), i.e. the low byte
 * and the 24 bits above it of perf's JSON "UMask".
 */
#define ICX_MAX_CHAS		40	/* CHAs (L3 slices) per socket, at most */
#define ICX_MEM_NR_CTRS		4	/* counters of a CHA, IMC or UPI box */
#define ICX_CHA_OFFSETS		{ 0x2a0, 0x2ae, 0x2bc, 0x2ca, 0x2d8,	\
				  0x2e6, 0x2f4, 0x302, 0x310, 0x31e,	\
				  0x32c, 0x33a, 0x348, 0x356, 0x364,	\
				  0x372, 0x380, 0x38e, 0x3aa, 0x3b8,	\
				  0x3c6, 0x3d4, 0x3e2, 0x3f0, 0x3fe,	\
				  0x40c, 0x41a, 0x428, 0x436, 0x444,	\
				  0x452, 0x460, 0x46e, 0x47c, 0x0,	\
				  0xe, 0x1c, 0x2a, 0x38, 0x46 }
#define ICX_CHA_BOX_CTL(o)	ICX_MSR(0xb60 + (o))
#define ICX_CHA_CTL(o, i)	ICX_MSR(0xb61 + (o) + (i))
#define ICX_CHA_FILTER0(o)	ICX_MSR(0xb65 + (o))
#define ICX_CHA_CTR(o, i)	ICX_MSR(0xb68 + (o) + (i))
#define ICX_CHA_MSRS		0xc	/* box control to the last counter */
#define ICX_CTL_TID_EN		BIT_ULL(19)		/* CHA: filter0's TID */
#define ICX_CTL_UMASK_EXT	GENMASK_ULL(55, 32)	/* CHA, UPI */
#define ICX_CHA_FILTER_TID	GENMASK_ULL(9, 0)

/* CHA events */
#define ICX_CHA_EV_CLOCKTICKS		0x00
#define ICX_CHA_EV_TOR_INSERTS		0x35
#define ICX_CHA_EV_TOR_OCCUPANCY	0x36	/* counter 0 only */
#define ICX_CHA_EV_REQUESTS		0x50	/* at the home agent */
/* REQUESTS umask: reads and writes a home agent takes, by requester */
#define ICX_REQ_READS_LOCAL	BIT(0)		/* from its own socket */
#define ICX_REQ_READS_REMOTE	BIT(1)		/* from the other */
#define ICX_REQ_WRITES_LOCAL	BIT(2)
#define ICX_REQ_WRITES_REMOTE	BIT(3)
/* The 32-bit TOR umask: requester, outcome, target, opcode */
#define ICX_TOR_IA		BIT(0)		/* requests from cores */
#define ICX_TOR_IO		BIT(2)		/* requests from IIO */
#define ICX_TOR_HIT		BIT(8)		/* that hit in the L3 */
#define ICX_TOR_MISS		BIT(9)		/* that miss */
#define ICX_TOR_DDR		BIT(10)		/* to DRAM */
#define ICX_TOR_PMM		BIT(11)		/* to persistent memory */
#define ICX_TOR_LOCAL		BIT(15)		/* to local memory */
#define ICX_TOR_REMOTE		BIT(16)		/* to remote memory */
#define ICX_TOR_OPC		GENMASK(31, 17)	/* the opcode, matched exactly */
#define ICX_OPC_PCIRDCUR	0x6479		/* device read of a line */
#define ICX_OPC_ITOM		0x6621		/* device write of a full line */
#define ICX_OPC_ITOMCACHENEAR	0x66a1		/* device write of part of one */
#define ICX_OPC_RFO		0x6401		/* read for ownership */
#define ICX_OPC_IA_DRD		0x640b		/* a core's demand data read */
#define ICX_OPC_IA_RFO		0x6403		/* a core's read for ownership */
#define ICX_OPC_IA_CRD		0x6407		/* a core's code read */

/*
 * IMC channels (4 controllers x 3 channels) and UPI links: on silicon
 * their boxes are MMIO and PCI config space; here box @b of each sits
 * in the socket's window at ICX_IMC_BOX(b) / ICX_UPI_BOX(b), its box
 * control first, then its counters and their controls, all 64 bits.
 */
#define ICX_NR_IMCS		12
#define ICX_NR_UPIS		3
#define ICX_IMC_BOX(b)		(0x8000 + (b) * 0x100)
#define ICX_UPI_BOX(b)		(0x9000 + (b) * 0x100)
#define ICX_MEM_BOX_CTL		0x00
#define ICX_MEM_CTR(i)		(0x08 + (i) * 8)
#define ICX_MEM_CTL(i)		(0x40 + (i) * 8)
/*
 * The IMC's fixed counter, after its general ones: the DRAM clock
 * (upstream's DCLK, perf's UNC_M_HCLOCKTICKS), config exactly 0xff.
 */
#define ICX_IMC_FIXED		ICX_MEM_NR_CTRS
#define ICX_IMC_NR_CTRS		(ICX_MEM_NR_CTRS + 1)
#define ICX_IMC_FIXED_EVENT	0xff

/* IMC events: CAS commands (one per 64-byte line) and the clock */
#define ICX_IMC_EV_CLOCKTICKS	0x00
#define ICX_IMC_EV_CAS_COUNT	0x04
#define ICX_CAS_RD		0x0f	/* umask bits that count reads */
#define ICX_CAS_WR		0x30	/* and writes */
#define ICX_CAS_BYTES		64
/* persistent memory (PMM) behind a channel: its read and write queues */
#define ICX_IMC_EV_PMM_RPQ_INSERTS	0xe3
#define ICX_IMC_EV_PMM_WPQ_INSERTS	0xe7

/* UPI events: flits (9 per 64-byte line of data) and the link's clock */
#define ICX_UPI_EV_CLOCKTICKS	0x01
#define ICX_UPI_EV_TXL_FLITS	0x02
#define ICX_UPI_EV_RXL_FLITS	0x03
#define ICX_UPI_EV_L1_POWER_CYCLES	0x21
#define ICX_FLITS_ALL_DATA	0x0f	/* umask of the data flits */
#define ICX_FLITS_NON_DATA	0x97	/* umask of the others */
#define ICX_FLITS_PER_LINE	9

/*
 * The M2PCIE boxes (mesh to PCIe, one per IIO stack), MSRs as on
 * silicon, box @o being the stack's ICX_BOX_OFFSETS entry as for the IIO
 * (icx_msr_offsets upstream).
 */
#define ICX_M2PCIE_BOX_CTL(o)	ICX_MSR(0xa40 + (o))
#define ICX_M2PCIE_CTR(o, i)	ICX_MSR(0xa41 + (o) + (i))
#define ICX_M2PCIE_CTL(o, i)	ICX_MSR(0xa46 + (o) + (i))
#define ICX_M2PCIE_NR_CTRS	4
#define ICX_M2PCIE_EV_CLOCKTICKS	0x01

/*
 * The PCU (power control unit), one per socket, MSRs as on silicon
 * (Skylake-X's, which upstream uses for Ice Lake-X too).  Its control
 * has no umask but occ_sel (bits 14-15, which core C-state an occupancy
 * event counts), a 5-bit threshold, occ_invert and occ_edge_det; its
 * filter holds the four frequency bands of the band events 0x0b-0x0e
 * (filter_band0-3, a byte each).
 */
#define ICX_PCU_BOX_CTL		ICX_MSR(0x710)
#define ICX_PCU_CTL(i)		ICX_MSR(0x711 + (i))
#define ICX_PCU_FILTER		ICX_MSR(0x715)
#define ICX_PCU_CTR(i)		ICX_MSR(0x717 + (i))
#define ICX_PCU_NR_CTRS		4
#define ICX_PCU_OCC_SEL		GENMASK_ULL(15, 14)
#define ICX_PCU_THRESH		GENMASK_ULL(28, 24)
#define ICX_PCU_OCC_INVERT	BIT_ULL(30)
#define ICX_PCU_OCC_EDGE_DET	BIT_ULL(31)
#define ICX_PCU_EV_CLOCKTICKS	0x00
#define ICX_PCU_EV_BAND0	0x0b	/* to 0x0e: FREQ_BAND0-3_CYCLES */
#define ICX_PCU_NR_BANDS	4
#define ICX_PCU_EV_POWER_STATE_OCCUPANCY	0x80
/* occ_sel of POWER_STATE_OCCUPANCY: cores in C0/C1, C3, C6/C7 */
#define ICX_OCC_C0		1
#define ICX_OCC_C3		2
#define ICX_OCC_C6		3

/*
 * The UBOX, one per socket, MSRs as on silicon: 2 general counters with
 * a 5-bit threshold and no box control (nothing freezes them), and a
 * fixed counter of the uncore clock (perf's UNC_U_CLOCKTICKS, config
 * exactly 0xff), enabled by EN of its own control.
 */
#define ICX_UBOX_FIXED_CTL	ICX_MSR(0x703)
#define ICX_UBOX_FIXED_CTR	ICX_MSR(0x704)
#define ICX_UBOX_CTL(i)		ICX_MSR(0x705 + (i))
#define ICX_UBOX_CTR(i)		ICX_MSR(0x709 + (i))
#define ICX_UBOX_NR_GP		2
#define ICX_UBOX_FIXED		ICX_UBOX_NR_GP	/* the fixed counter's index */
#define ICX_UBOX_NR_CTRS	(ICX_UBOX_NR_GP + 1)
#define ICX_UBOX_FIXED_EVENT	0xff
#define ICX_CTL_THRESH5		GENMASK_ULL(28, 24)	/* UBOX, PCU */

/*
 * The M2M boxes (mesh to memory, one per memory controller) and M3UPI
 * boxes (mesh to UPI, one per link): on silicon PCI config space; here
 * in the socket's window as the IMC's and UPI's boxes are, the same
 * layout (ICX_MEM_*).  The M2M's umask is 16 bits: 8-15 and 32-39 of
 * the control.
 */
#define ICX_NR_M2MS		4
#define ICX_NR_M3UPIS		ICX_NR_UPIS
#define ICX_M2M_BOX(b)		(0xa000 + (b) * 0x100)
#define ICX_M3UPI_BOX(b)	(0xb000 + (b) * 0x100)
#define ICX_CTL_UMASK_EXT8	GENMASK_ULL(39, 32)	/* M2M */
#define ICX_M2M_EV_CLOCKTICKS	0x00
#define ICX_M2M_EV_DIRECTORY_HIT	0x2a
#define ICX_M2M_EV_DIRECTORY_MISS	0x2b
#define ICX_M2M_EV_DIRECTORY_UPDATE	0x2e
#define ICX_M2M_EV_DIRECTORY_LOOKUP	0x2d
/* umask bits of the directory events: a lookup's state, a hit's or miss's */
#define ICX_DIR_ANY		BIT(0)	/* LOOKUP.ANY, UPDATE.ANY */
#define ICX_DIR_STATE_I		BIT(1)	/* LOOKUP: the line's state was I */
#define ICX_DIR_CLEAN_I		BIT(4)	/* HIT, MISS: clean, in state I */
#define ICX_M3UPI_EV_CLOCKTICKS	0x01

/*
 * The free-running counters of each memory controller (3 channels, IMC
 * boxes 3b to 3b + 2): on silicon MMIO; here in the socket's window at
 * ICX_IMC_FR_BOX(b), read-only, always counting, 48 bits: the DRAM
 * clock, and the 64-byte reads and writes of DDR (CAS commands) and of
 * DDRT (persistent memory), at the offsets of upstream's
 * icx_imc_freerunning within their box.
 */
#define ICX_NR_IMC_FRS		(ICX_NR_IMCS / 3)
#define ICX_IMC_FR_BOX(b)	(0xc000 + (b) * 0x100)
#define ICX_IMC_FR_DDR(i)	(0x90 + (i) * 8)	/* 0 read, 1 write */
#define ICX_IMC_FR_DDRT(i)	(0xa0 + (i) * 8)
#define ICX_IMC_FR_DCLK		0xb0
#define ICX_IMC_FR_NR_CTRS	5	/* dclk, DDR rd/wr, DDRT rd/wr */
/* Their events: event 0xff, umask 0x10 dclk, 0x20 + i DDR, 0x30 + i DDRT */
#define ICX_IMC_FR_UMASK_DCLK	0x10
#define ICX_IMC_FR_UMASK_DDR	0x20
#define ICX_IMC_FR_UMASK_DDRT	0x30

#endif
