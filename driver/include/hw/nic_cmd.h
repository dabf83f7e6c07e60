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
#define NIC_INBOX		0x1000
#define NIC_INBOX_SIZE		0x1000
#define NIC_OUTBOX		0x2000
#define NIC_OUTBOX_SIZE		0x10000
#define NIC_WINDOW		(NIC_OUTBOX + NIC_OUTBOX_SIZE)

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

#endif /* _UPMU_HW_NIC_CMD_H */
