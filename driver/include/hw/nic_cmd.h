/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command interface of a ConnectX/BlueField-like NIC physical function
 * (PF), as the upmu simulator implements it and the upmu_nic driver and
 * tools use it: a register window with a command mailbox, and commands in
 * the mlx5 PRM layout (big-endian dwords, fields numbered MSB-first by bit
 * offset, as include/linux/mlx5/mlx5_ifc.h does).  Documented in
 * Documentation/upmu-nic.rst.
 *
 * Safe to include from the kernel and from userspace (only <linux/types.h>).
 */
#ifndef _UPMU_HW_NIC_CMD_H
#define _UPMU_HW_NIC_CMD_H

#include <linux/types.h>

/* ---- PF register window (32-bit registers, little-endian) ------------- */

#define NIC_REG_FW_REV		0x0000	/* [31:16] major, [15:0] minor */
#define NIC_REG_CMDIF_REV	0x0004	/* command interface revision */
#define NIC_REG_INBOX_SIZE	0x0008	/* bytes of the inbox */
#define NIC_REG_OUTBOX_SIZE	0x000c	/* bytes of the outbox */
#define NIC_REG_CMD_IN_LEN	0x0010	/* bytes of the command in the inbox */
/* in: outbox bytes the driver takes; out: bytes the command produced */
#define NIC_REG_CMD_OUT_LEN	0x0014
#define NIC_REG_CMD_DOORBELL	0x0018	/* write NIC_DOORBELL_GO: execute */
#define NIC_REG_CMD_STATUS	0x001c	/* NIC_CMD_STATUS_* */
#define NIC_REG_DEV_SERIAL	0x0020	/* the same for every PF of a device */
#define NIC_REG_PF		0x0024	/* this PF's number on its device */
#define NIC_REG_DDR_NUM		0x0028	/* diagnostic data register slots */
/* what the device is: [31:16] PCI vendor ID, [15:0] PCI device ID */
#define NIC_REG_DEV_ID		0x002c
/* r: 64 bits, the device clock (ns, the samples' time stamps) at the read */
#define NIC_REG_TIMER		0x0030
#define NIC_INBOX		0x1000
#define NIC_INBOX_SIZE		0x1000
#define NIC_OUTBOX		0x2000
#define NIC_OUTBOX_SIZE		0x10000
#define NIC_SWIN		(NIC_OUTBOX + NIC_OUTBOX_SIZE)
#define NIC_SWIN_SIZE		0x10000
#define NIC_WINDOW		(NIC_SWIN + NIC_SWIN_SIZE)

#define NIC_CMDIF_REV		5
#define NIC_DOORBELL_GO		1

/*
 * NIC_REG_CMD_STATUS: bit 0 set while the firmware runs a command; bits
 * 8-15 the delivery status of the last one (mlx5's MLX5_CMD_DELIVERY_STAT_*):
 * whether the firmware could take it at all.  A command that was delivered
 * reports its own outcome in the status/syndrome of its output.
 */
#define NIC_CMD_STATUS_BUSY		0x1
#define NIC_CMD_STATUS_DELIVERY(s)	(((s) >> 8) & 0xff)
#define NIC_DELIVERY_OK			0x0
#define NIC_DELIVERY_FW_ERR		0x6
#define NIC_DELIVERY_IN_LENGTH_ERR	0x7
#define NIC_DELIVERY_OUT_LENGTH_ERR	0x8

/*
 * upmu extension: the diagnostic data registers, a bank of counting
 * slots (NIC_REG_DDR_NUM of them, at most NIC_DDR_MAX_SLOTS), one bank
 * per device reached at the same offsets through the window of every PF.
 * A slot counts the data ID in its ID registers from the moment it is
 * enabled, with an accumulator of its own: the sampling engine (its
 * clear-per-period, its reads of Statistics) does not touch it.  For a
 * Statistic the value is the extreme since the slot was enabled or
 * cleared (0 while nothing was measured).  Disabling a slot freezes its
 * value.  Documented in Documentation/upmu-nic.rst.
 */
#define NIC_DDR_MAX_SLOTS	64
#define NIC_DDR(i)		(0x0100 + 0x20 * (i))
#define NIC_DDR_ID_LO(i)	(NIC_DDR(i) + 0x00)	/* data ID [31:0] */
#define NIC_DDR_ID_HI(i)	(NIC_DDR(i) + 0x04)	/* data ID [63:32] */
#define NIC_DDR_CTRL(i)		(NIC_DDR(i) + 0x08)
#define NIC_DDR_STATUS(i)	(NIC_DDR(i) + 0x0c)	/* read-only */
#define NIC_DDR_VALUE(i)	(NIC_DDR(i) + 0x10)	/* 64 bits, read-only */

/* NIC_DDR_CTRL: enable; clear (write 1: the value restarts, reads as 0) */
#define NIC_DDR_CTRL_ENABLE	0x1
#define NIC_DDR_CTRL_CLEAR	0x2
/* NIC_DDR_STATUS: counting; the ID was not a data ID of the device */
#define NIC_DDR_ST_ACTIVE	0x1
#define NIC_DDR_ST_UNKNOWN_ID	0x2
#define NIC_DDR_ST_STATISTIC	0x4

/*
 * upmu extension: the sample window, for a reader that cannot sleep (a
 * perf AUX stream drained from a hard-irq timer).  Writing NIC_SW_READ
 * the number N of samples wanted copies up to N of the engine's unread
 * samples, oldest first, to the window at NIC_SWIN (NIC_SW_SIZE bytes
 * each, struct layout below, little-endian) and latches the other
 * registers; the samples copied count as read, those still in the
 * engine stay unread.  N = 0 only latches the other registers.
 * Writing NIC_SW_SKIP 1 counts every unread sample as read, none of them
 * reported lost (a reader that starts now and wants no older samples),
 * and latches the registers as a read of none.  Both latch NIC_SW_NEXT,
 * the sample_id the next read returns first.  The engine's reader is
 * the same one EXT_QUERY_SAMPLES moves.
 */
#define NIC_SW_READ		0x0900	/* w: most samples to copy */
#define NIC_SW_RETURNED		0x0904	/* r: samples in the window */
#define NIC_SW_LOST		0x0908	/* r: overwritten before this read */
#define NIC_SW_LOST_FIRST	0x090c	/* r: sample_id of the first of them */
#define NIC_SW_SIZE		0x0910	/* r: bytes per sample in the window */
#define NIC_SW_AVAIL		0x0914	/* r: unread samples left in the engine */
#define NIC_SW_STATE		0x0918	/* r: [7:0] NIC_STATE_*, [15:8] mode */
#define NIC_SW_NUM_IDS		0x091c	/* r: values per sample */
#define NIC_SW_PERIOD_NS	0x0928	/* r: 64 bits, the sample period */
#define NIC_SW_KHZ		0x0930	/* r: device clock */
#define NIC_SW_SKIP		0x0934	/* w: 1: drop the unread samples */
#define NIC_SW_NEXT		0x0938	/* r: sample_id the next read returns */

/* A sample in the window: 24 bytes, then a u64 per applied data ID. */
#define NIC_SWS_SAMPLE_ID	0x00	/* u32: the device's sample_id */
#define NIC_SWS_TS_FIRST	0x08	/* u64: device ns of the first value */
#define NIC_SWS_TS_LAST		0x10	/* u64: device ns of the last value */
#define NIC_SWS_VALUES		0x18	/* u64 values, in the applied order */
#define NIC_SWS_SIZE(n)		(NIC_SWS_VALUES + 8 * (n))

/* ---- command layouts: field = bit offset, width (MSB-first) ----------- */

/*
 * nic_get()/nic_set() read and write a field of a command box the way
 * MLX5_GET()/MLX5_SET() do: the field at bit offset OFF of width W lives
 * in big-endian dword OFF / 32, at bit 32 - W - OFF % 32 of it.  A field
 * is written NIC_FLD(OFF, W): nic_get(box, NIC_HDR_OPCODE).
 */
#define NIC_FLD(off, w)		((__u32)(off) << 8 | (w))
#define NIC_FLD_OFF(f)		((f) >> 8)
#define NIC_FLD_W(f)		((f) & 0xff)

static inline __u32 nic_be32_get(const void *box, unsigned int byte)
{
	const __u8 *p = (const __u8 *)box + byte;

	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static inline void nic_be32_set(void *box, unsigned int byte, __u32 v)
{
	__u8 *p = (__u8 *)box + byte;

	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline __u32 nic_mask(unsigned int w)
{
	return w >= 32 ? 0xffffffffu : (1u << w) - 1;
}

static inline __u32 nic_get(const void *box, __u32 fld)
{
	unsigned int off = NIC_FLD_OFF(fld), w = NIC_FLD_W(fld);
	unsigned int shift = 32 - w - off % 32;

	return nic_be32_get(box, off / 32 * 4) >> shift & nic_mask(w);
}

static inline void nic_set(void *box, __u32 fld, __u32 v)
{
	unsigned int off = NIC_FLD_OFF(fld), w = NIC_FLD_W(fld);
	unsigned int shift = 32 - w - off % 32, byte = off / 32 * 4;
	__u32 m = nic_mask(w) << shift;

	nic_be32_set(box, byte, (nic_be32_get(box, byte) & ~m) |
				((v << shift) & m));
}

/* A 64-bit big-endian value at bit offset @off (a multiple of 32). */
static inline __u64 nic_get64(const void *box, unsigned int off)
{
	return (__u64)nic_be32_get(box, off / 8) << 32 |
	       nic_be32_get(box, off / 8 + 4);
}

static inline void nic_set64(void *box, unsigned int off, __u64 v)
{
	nic_be32_set(box, off / 8, v >> 32);
	nic_be32_set(box, off / 8 + 4, (__u32)v);
}

/* Every command: a 16-byte input header and a 16-byte output header. */
#define NIC_HDR_IN_LEN		16
#define NIC_HDR_OUT_LEN		16
#define NIC_HDR_OPCODE		NIC_FLD(0x00, 16)
#define NIC_HDR_UID		NIC_FLD(0x10, 16)
#define NIC_HDR_OP_MOD		NIC_FLD(0x30, 16)
#define NIC_HDR_STATUS		NIC_FLD(0x00, 8)
#define NIC_HDR_SYNDROME	NIC_FLD(0x20, 32)

/* Firmware status codes (include/linux/mlx5/device.h, MLX5_CMD_STAT_*). */
#define NIC_STAT_OK		0x00
#define NIC_STAT_INT_ERR	0x01
#define NIC_STAT_BAD_OP		0x02
#define NIC_STAT_BAD_PARAM	0x03
#define NIC_STAT_BAD_SYS_STATE	0x04
#define NIC_STAT_BAD_RES	0x05
#define NIC_STAT_RES_BUSY	0x06
#define NIC_STAT_NOT_READY	0x07
#define NIC_STAT_LIM_ERR	0x08
#define NIC_STAT_BAD_RES_STATE	0x09
#define NIC_STAT_IX_ERR		0x0a
#define NIC_STAT_NO_RES		0x0f
#define NIC_STAT_BAD_INP_LEN	0x50
#define NIC_STAT_BAD_OUTP_LEN	0x51

/* Opcodes of the mlx5 PRM this device implements. */
#define NIC_OP_QUERY_HCA_CAP			0x100
#define NIC_OP_QUERY_ADAPTER			0x101
#define NIC_OP_QUERY_DIAGNOSTIC_PARAMS		0x819
#define NIC_OP_SET_DIAGNOSTIC_PARAMS		0x820
#define NIC_OP_QUERY_DIAGNOSTIC_COUNTERS	0x821
#define NIC_OP_CREATE_UCTX			0xa04
#define NIC_OP_DESTROY_UCTX			0xa06

/*
 * QUERY_ADAPTER: out the header, then query_adapter_struct (mlx5_ifc.h
 * query_adapter_param_block_bits) at +0x10: vendor IDs, the 208-byte
 * vendor-specific data and the PSID (board ID), ASCII, NUL-padded.
 */
#define NIC_ADAPTER_OUT_LEN		0x110
#define NIC_ADAPTER_IEEE_VENDOR_ID	NIC_FLD(0x148, 24)
#define NIC_ADAPTER_VSD_VENDOR_ID	NIC_FLD(0x170, 16)
#define NIC_ADAPTER_VSD			0x30
#define NIC_ADAPTER_VSD_LEN		208
#define NIC_ADAPTER_PSID		0x100
#define NIC_ADAPTER_PSID_LEN		16

/* CREATE_UCTX: in 0x10 + uctx (cap at +0x10); out: uid. */
#define NIC_CREATE_UCTX_IN_LEN		0x20
#define NIC_CREATE_UCTX_CAP		NIC_FLD(0x80, 32)
#define NIC_CREATE_UCTX_OUT_UID		NIC_FLD(0x50, 16)
/* DESTROY_UCTX: in: uid at +0x08. */
#define NIC_DESTROY_UCTX_IN_LEN		0x10
#define NIC_DESTROY_UCTX_UID		NIC_FLD(0x50, 16)
#define NIC_UCTX_CAP_TOOLS_RESOURCES	0x4

/*
 * QUERY_HCA_CAP: op_mod = cap type << 1 | NIC_CAP_CUR; the capability
 * (NIC_CAP_SIZE bytes) follows the 16-byte output header.
 */
#define NIC_CAP_CUR			1
#define NIC_CAP_GENERAL			0x0
#define NIC_CAP_DEBUG			0xd
#define NIC_CAP_SIZE			0x1000
#define NIC_CAP_OUT_LEN			(NIC_HDR_OUT_LEN + NIC_CAP_SIZE)

/*
 * QUERY_HCA_CAP general capability (mlx5_ifc.h cmd_hca_cap_bits), the
 * fields this device fills in; offsets within the capability.
 * num_of_diagnostic_counters is reserved_at_280 upstream.
 */
#define NIC_HCA_CAP_DEBUG		NIC_FLD(0x183, 1)
#define NIC_HCA_CAP_NUM_DIAG_CNTRS	NIC_FLD(0x280, 16)
#define NIC_HCA_CAP_LOG_MAX_UCTX	NIC_FLD(0x463, 5)
#define NIC_HCA_CAP_DEV_FREQ_KHZ	NIC_FLD(0x4e0, 32)
#define NIC_HCA_CAP_UCTX_CAP		NIC_FLD(0x6a0, 32)

/*
 * Debug capability (cap type NIC_CAP_DEBUG), offsets within it: the PRM
 * debug_cap, then diagnostic_counter[i] from byte 0x40, one dword each,
 * num_of_diagnostic_counters of them.
 */
#define NIC_DEBUG_CAP_LOG_MAX_SAMPLES	NIC_FLD(0x18, 8)
#define NIC_DEBUG_CAP_SINGLE		NIC_FLD(0x20, 1)
#define NIC_DEBUG_CAP_REPETITIVE	NIC_FLD(0x21, 1)
#define NIC_DEBUG_CAP_LOG_MIN_PERIOD	NIC_FLD(0x38, 8)
#define NIC_DEBUG_CAP_CNTR_SYNC(i)	NIC_FLD(0x200 + 32 * (i), 1)
#define NIC_DEBUG_CAP_CNTR_ID(i)	NIC_FLD(0x200 + 32 * (i) + 16, 16)
#define NIC_DEBUG_CAP_MAX_CNTRS		((NIC_CAP_SIZE - 0x40) / 4)

/*
 * diagnostic_params_context: at byte 0x08 of SET_DIAGNOSTIC_PARAMS' input
 * and of QUERY_DIAGNOSTIC_PARAMS' output (offsets below are within the
 * command box), then counter_id[i] from byte 0x20.
 */
#define NIC_DIAG_NUM_CNTRS		NIC_FLD(0x40, 16)
#define NIC_DIAG_LOG_NUM_SAMPLES	NIC_FLD(0x58, 8)
#define NIC_DIAG_SINGLE			NIC_FLD(0x60, 1)
#define NIC_DIAG_REPETITIVE		NIC_FLD(0x61, 1)
#define NIC_DIAG_SYNC			NIC_FLD(0x62, 1)
#define NIC_DIAG_CLEAR			NIC_FLD(0x63, 1)
#define NIC_DIAG_ON_DEMAND		NIC_FLD(0x64, 1)
#define NIC_DIAG_ENABLE			NIC_FLD(0x65, 1)
#define NIC_DIAG_LOG_PERIOD		NIC_FLD(0x78, 8)
#define NIC_DIAG_CNTR_ID(i)		NIC_FLD(0x100 + 32 * (i) + 16, 16)
#define NIC_DIAG_PARAMS_LEN(n)		(0x20 + 4 * (n))

/*
 * QUERY_DIAGNOSTIC_COUNTERS: input 16 bytes; output the 16-byte header,
 * then NIC_DIAG_REC_LEN-byte records (diagnostic_cntr_struct).  Record
 * fields are at bit offsets within the record.
 */
#define NIC_DIAG_Q_IN_LEN		0x10
#define NIC_DIAG_Q_NUM_SAMPLES		NIC_FLD(0x40, 16)
#define NIC_DIAG_Q_SAMPLE_INDEX		NIC_FLD(0x50, 16)
#define NIC_DIAG_REC_LEN		16
#define NIC_DIAG_REC(i)			(NIC_HDR_OUT_LEN + NIC_DIAG_REC_LEN * (i))
#define NIC_DIAG_REC_CNTR_ID		NIC_FLD(0x00, 16)
#define NIC_DIAG_REC_SAMPLE_ID		NIC_FLD(0x10, 16)
#define NIC_DIAG_REC_TIMESTAMP		NIC_FLD(0x20, 32)
#define NIC_DIAG_REC_VALUE		0x40	/* 64 bits: nic_get64() */

/*
 * Syndrome of a failed SET_DIAGNOSTIC_PARAMS (or NIC_OP_EXT_APPLY_IDS):
 * the reason, and the index of the counter that failed (0xffff: none in
 * particular).
 */
#define NIC_SYND_REASON(s)		((s) >> 16)
#define NIC_SYND_INDEX(s)		((s) & 0xffff)
#define NIC_SYND(reason, index)		((__u32)(reason) << 16 | ((index) & 0xffff))
#define NIC_SYND_NO_INDEX		0xffff

#define NIC_DIAG_ERR_NONE		0
#define NIC_DIAG_ERR_UNKNOWN_ID		1	/* not a counter of this device */
#define NIC_DIAG_ERR_NO_SYNC		2	/* cannot take a synchronized start */
#define NIC_DIAG_ERR_DUPLICATE		3	/* already in the list */
#define NIC_DIAG_ERR_CAPACITY		4	/* samples x counters exceed capacity */
#define NIC_DIAG_ERR_MODE		5	/* mode bits that do not go together */
#define NIC_DIAG_ERR_PERIOD		6	/* period out of range */
#define NIC_DIAG_ERR_COUNT		7	/* no counters, or too many */
#define NIC_DIAG_ERR_OWNER		8	/* another user owns the engine */
#define NIC_DIAG_ERR_STATE		9	/* not allowed in this state */
#define NIC_DIAG_ERR_FORMAT		10	/* unknown output format */

/* Sampling modes (DOCA's doca_telemetry_diag_sample_mode numbering). */
#define NIC_MODE_SINGLE			0
#define NIC_MODE_REPETITIVE		1
#define NIC_MODE_ON_DEMAND		2

/* ---- upmu extension: DOCA Telemetry Diag features ------------------------ */

/*
 * Commands of this device's own (Documentation/upmu-nic.rst), for what
 * the 16-bit mlx5 layout cannot carry: 64-bit data IDs, output formats,
 * ownership and the DOCA state machine.  Opcodes 0x3e00-0x3e0f, which no
 * MLX5_CMD_OP_* uses.  Same headers, status and syndrome as the PRM
 * commands; an engine command from anyone but the owner is RES_BUSY
 * (NIC_DIAG_ERR_OWNER), a command not allowed in the engine's state is
 * BAD_SYS_STATE (NIC_DIAG_ERR_STATE) and changes nothing.
 */
#define NIC_OP_EXT_QUERY_DATA_IDS	0x3e00
#define NIC_OP_EXT_OWNERSHIP		0x3e01	/* op_mod NIC_OWN_* */
#define NIC_OP_EXT_SET_CONFIG		0x3e02	/* Idle -> Configured */
#define NIC_OP_EXT_APPLY_IDS		0x3e03	/* Configured -> Ready */
#define NIC_OP_EXT_START		0x3e04	/* Ready -> Running */
#define NIC_OP_EXT_STOP			0x3e05	/* any but Idle -> Idle */
#define NIC_OP_EXT_RESTART		0x3e06	/* Running (single) */
#define NIC_OP_EXT_QUERY_STATE		0x3e07
#define NIC_OP_EXT_QUERY_SAMPLES	0x3e08

/* Engine states (NIC_EXT_STATE_STATE). */
#define NIC_STATE_IDLE			0
#define NIC_STATE_CONFIGURED		1
#define NIC_STATE_READY			2
#define NIC_STATE_RUNNING		3

/*
 * EXT_QUERY_DATA_IDS: in 16 bytes (first entry, most entries); out: the
 * total, the entries returned, then NIC_EXT_ID_LEN-byte entries from
 * byte 0x10 with fields at bit offsets within the entry.
 */
#define NIC_EXT_IDS_IN_LEN		0x10
#define NIC_EXT_IDS_START		NIC_FLD(0x40, 32)
#define NIC_EXT_IDS_MAX			NIC_FLD(0x60, 32)
#define NIC_EXT_IDS_TOTAL		NIC_FLD(0x40, 32)
#define NIC_EXT_IDS_RETURNED		NIC_FLD(0x60, 32)
#define NIC_EXT_ID_LEN			16
#define NIC_EXT_ID(i)			(NIC_HDR_OUT_LEN + NIC_EXT_ID_LEN * (i))
#define NIC_EXT_ID_DATA_ID		0x00	/* 64 bits: nic_get64() */
#define NIC_EXT_ID_SYNC			NIC_FLD(0x40, 1)
#define NIC_EXT_ID_STAT			NIC_FLD(0x41, 1)	/* Statistic, else Counter */
#define NIC_EXT_ID_PARAM		NIC_FLD(0x4c, 4)	/* NIC_PARAM_* */
#define NIC_EXT_ID_CNTR_ID		NIC_FLD(0x50, 16)

/* What a data ID's lower 32 bits select (NIC_EXT_ID_PARAM). */
#define NIC_PARAM_NONE			0
#define NIC_PARAM_PORT			1
#define NIC_PARAM_PORT_PRIO		2
#define NIC_PARAM_HOST			3
#define NIC_PARAM_LINK			4
#define NIC_PARAM_LINK_TC		5
#define NIC_PARAM_FUNC			6

/*
 * EXT_OWNERSHIP: op_mod take or release, through a uid; in 16 bytes,
 * out 16: the owner before the command.  uid 0 is the kernel's driver
 * (fwctl forces a user's own uid into every command): a force does not
 * take the engine from it.
 */
#define NIC_OWN_TAKE			0
#define NIC_OWN_RELEASE			1
#define NIC_EXT_OWN_FORCE		NIC_FLD(0x40, 1)
#define NIC_EXT_OWN_PREV_VALID		NIC_FLD(0x40, 1)
#define NIC_EXT_OWN_PREV_PF		NIC_FLD(0x48, 8)
#define NIC_EXT_OWN_PREV_UID		NIC_FLD(0x50, 16)

/* EXT_SET_CONFIG: in NIC_EXT_CFG_IN_LEN bytes, out 16. */
#define NIC_EXT_CFG_IN_LEN		0x20
#define NIC_EXT_CFG_MODE		NIC_FLD(0x40, 8)	/* NIC_MODE_* */
#define NIC_EXT_CFG_FORMAT		NIC_FLD(0x48, 8)	/* 0, 1, 2 */
#define NIC_EXT_CFG_SYNC		NIC_FLD(0x5e, 1)
#define NIC_EXT_CFG_CLEAR		NIC_FLD(0x5f, 1)
#define NIC_EXT_CFG_LOG_SAMPLES		NIC_FLD(0x78, 8)
#define NIC_EXT_CFG_PERIOD_NS		0x80	/* 64 bits; 0: the shortest */
#define NIC_EXT_CFG_MAX_IDS		NIC_FLD(0xc0, 32)

/*
 * EXT_APPLY_IDS: in 16 bytes then 8 per data ID; out
 * NIC_EXT_APPLY_OUT_LEN bytes: the period that runs and the size of a
 * sample in the configured format.  A failure is BAD_PARAM with
 * NIC_SYND(reason, index of the data ID).
 */
#define NIC_EXT_APPLY_IN_LEN(n)		(0x10 + 8 * (n))
#define NIC_EXT_APPLY_NUM		NIC_FLD(0x40, 32)
#define NIC_EXT_APPLY_ID(i)		(0x80 + 64 * (i))	/* nic_get64() */
#define NIC_EXT_APPLY_OUT_LEN		0x20
#define NIC_EXT_APPLY_PERIOD_NS		0x80	/* 64 bits */
#define NIC_EXT_APPLY_LOG_PERIOD	NIC_FLD(0xd8, 8)
#define NIC_EXT_APPLY_SAMPLE_SIZE	NIC_FLD(0xe0, 32)

/* EXT_QUERY_STATE: in 16 bytes, out NIC_EXT_STATE_OUT_LEN. */
#define NIC_EXT_STATE_OUT_LEN		0x30
#define NIC_EXT_STATE_STATE		NIC_FLD(0x40, 8)
#define NIC_EXT_STATE_MODE		NIC_FLD(0x48, 8)
#define NIC_EXT_STATE_FORMAT		NIC_FLD(0x50, 8)
#define NIC_EXT_STATE_SYNC		NIC_FLD(0x5e, 1)
#define NIC_EXT_STATE_CLEAR		NIC_FLD(0x5f, 1)
#define NIC_EXT_STATE_LOG_SAMPLES	NIC_FLD(0x60, 8)
#define NIC_EXT_STATE_LOG_PERIOD	NIC_FLD(0x68, 8)
#define NIC_EXT_STATE_NUM_IDS		NIC_FLD(0x70, 16)
#define NIC_EXT_STATE_OWNED		NIC_FLD(0x80, 1)
#define NIC_EXT_STATE_OWNER_PF		NIC_FLD(0x88, 8)
#define NIC_EXT_STATE_OWNER_UID		NIC_FLD(0x90, 16)
#define NIC_EXT_STATE_MAX_IDS		NIC_FLD(0xa0, 32)
#define NIC_EXT_STATE_TAKEN		0xc0	/* 64 bits: samples taken */
#define NIC_EXT_STATE_READ		0x100	/* 64 bits: next to read */
#define NIC_EXT_STATE_PERIOD_NS		0x140	/* 64 bits */

/*
 * EXT_QUERY_SAMPLES: in 16 bytes (most samples); out the header of
 * NIC_EXT_SMP_HDR_LEN bytes, then the samples not read before, oldest
 * first, in the configured format (big-endian, sizes below):
 *   0: u32 sample_id, u32 0, then per data ID
 *      u64 data_id, u32 ts_h, u32 ts_l, u64 value
 *   1: u32 sample_id, u32 earliest_ts_h, u32 earliest_ts_l,
 *      u32 latest_ts_l, then u64 value per data ID
 *   2: as 1 with u32 values (the low 32 bits)
 * Time stamps are ns of the device's free-running clock; values in the
 * order the IDs were applied.  lost counts the samples overwritten since
 * the last read (repetitive mode), available those ready before this one.
 */
#define NIC_EXT_SMP_MAX			NIC_FLD(0x40, 32)
#define NIC_EXT_SMP_HDR_LEN		0x20
#define NIC_EXT_SMP_RETURNED		NIC_FLD(0x40, 32)
#define NIC_EXT_SMP_LOST		NIC_FLD(0x60, 32)
#define NIC_EXT_SMP_SIZE		NIC_FLD(0x80, 32)
#define NIC_EXT_SMP_AVAILABLE		NIC_FLD(0xa0, 32)
#define NIC_FMT0_SIZE(n)		(8 + 24 * (n))
#define NIC_FMT1_SIZE(n)		(16 + 8 * (n))
#define NIC_FMT2_SIZE(n)		(16 + 4 * (n))

/* ---- data IDs ------------------------------------------------------------ */

/*
 * A data ID is 64 bits (DOCA Telemetry Diag): the upper 32 name what is
 * counted, the lower 32 the instance.  Fields of the lower half:
 *   XX   port, host or PCIe link              [7:0]
 *   Y    priority (port and priority rows)    [11:8]
 *   YY   PCIe depth, 0 on this device         [15:8]
 *   ZZ   PCIe node, 0 on this device          [23:16]
 *   ZZZZ (0x1160000a only) [31:24] tclass, [23:16] node
 *   XXXX function                             [15:0]
 * Every other bit is zero.  The 16-bit counter_id of the mlx5 layout is
 * (row + 1) << 10 | instance, with rows in the order of
 * Documentation/upmu-nic.rst and the instance port * 8 + priority,
 * link * 8 + tclass, or the port/host/link/function number.
 */
#define NIC_DID(hi, lo)			((__u64)(hi) << 32 | (__u32)(lo))
#define NIC_DID_XX(id)			((__u32)(id) & 0xff)
#define NIC_DID_Y(id)			(((__u32)(id) >> 8) & 0xf)
#define NIC_DID_TCLASS(id)		(((__u32)(id) >> 24) & 0xff)
#define NIC_DID_FUNC(id)		((__u32)(id) & 0xffff)
#define NIC_DID_PORT_PRIO(port, prio)	((__u32)(prio) << 8 | (port))
#define NIC_DID_LINK_TC(link, tc)	((__u32)(tc) << 24 | (link))
#define NIC_CID(row, inst)		((__u16)(((row) + 1) << 10 | (inst)))
#define NIC_CID_ROW(cid)		(((cid) >> 10) - 1)
#define NIC_CID_INST(cid)		((cid) & 0x3ff)

#define NIC_DID_RX_BYTES		0x10200001	/* XX */
#define NIC_DID_RX_BYTES_PRIO		0x10200002	/* YXX */
#define NIC_DID_RX_PACKETS		0x10200003	/* XX */
#define NIC_DID_RX_PACKETS_PRIO		0x10200004	/* YXX */
#define NIC_DID_RX_BUFFER_DROPS		0x10200005	/* XX */
#define NIC_DID_RX_PAUSE		0x10200006	/* YXX */
#define NIC_DID_RX_HOST_DISCARDS	0x10400001	/* XX host */
#define NIC_DID_RX_TO_SCATTER		0x10800001	/* XX host */
#define NIC_DID_RX_NO_WQE		0x10800002	/* XX host */
#define NIC_DID_RX_NO_WQE_HAIRPIN	0x10800003	/* XX host */
#define NIC_DID_RX_ECN_ROCE		0x10800004	/* XX host */
#define NIC_DID_CNP_HANDLED		0x10800005	/* XX */
#define NIC_DID_CNP_SENT		0x11000001	/* XX */
#define NIC_DID_QP_DESCHED		0x11000002
#define NIC_DID_TX_BYTES		0x11400001	/* XX */
#define NIC_DID_TX_BYTES_PRIO		0x11400002	/* YXX */
#define NIC_DID_TX_PACKETS		0x11400003	/* XX */
#define NIC_DID_TX_PACKETS_PRIO		0x11400004	/* YXX */
#define NIC_DID_TX_PAUSE		0x11400005	/* YXX */
#define NIC_DID_PCIE_IN_BYTES		0x11600001	/* ZZYYXX */
#define NIC_DID_PCIE_OUT_BYTES		0x11600002
#define NIC_DID_PCIE_IN_DATA		0x11600003
#define NIC_DID_PCIE_OUT_DATA		0x11600004
#define NIC_DID_STALL_PW_DATA		0x11600005
#define NIC_DID_STALL_PW_HDR		0x11600006
#define NIC_DID_STALL_NP_DATA		0x11600007
#define NIC_DID_STALL_NP_HDR		0x11600008
#define NIC_DID_STALL_NP_CPL		0x11600009
#define NIC_DID_STALL_NP_ORDER		0x1160000a	/* ZZZZYYXX */
#define NIC_DID_PCIE_RD_LAT		0x1160000b
#define NIC_DID_PCIE_RD_COUNT		0x1160000c
#define NIC_DID_PCIE_RD_LAT_MAX		0x1160000d	/* Statistic */
#define NIC_DID_PCIE_RD_LAT_MIN		0x1160000e	/* Statistic */
#define NIC_DID_RX_CQE			0x10c00001
#define NIC_DID_RX_CQE_FUNC		0x10c00002	/* XXXX */
#define NIC_DID_TX_CQE			0x10c00004
#define NIC_DID_TX_CQE_FUNC		0x10c00005	/* XXXX */
#define NIC_DID_ICMC_ACCESSES		0x11800001
#define NIC_DID_ICMC_HITS		0x11800002
#define NIC_DID_ICMC_MISSES		0x11800003

#endif /* _UPMU_HW_NIC_CMD_H */
