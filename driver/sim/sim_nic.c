// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated ConnectX/BlueField-like NIC (hw/nic_cmd.h): its physical
 * functions, each a register window with a command mailbox, and the
 * firmware that executes the commands.
 *
 * A command runs synchronously inside the doorbell write, under sd->lock
 * with interrupts off: the firmware allocates nothing and never sleeps;
 * every buffer it uses is allocated when the device is built.  Bad input
 * (lengths, opcodes, fields) is answered with a firmware status in the
 * outbox, or with a delivery status in NIC_REG_CMD_STATUS when the
 * mailbox cannot take the command at all.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sim_nic.h"
#include "upmu_compat.h"

/* The mailboxes and the copy buffer hold little-endian register images. */
static u32 nic_ld32(const void *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static void nic_st32(void *p, u32 val)
{
	__le32 v = cpu_to_le32(val);

	memcpy(p, &v, sizeof(v));
}

/* ---- firmware: general commands ------------------------------------------ */

static int nic_query_hca_cap(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	u16 type = nic_get(c->in, NIC_HDR_OP_MOD) >> 1;
	u8 *cap = c->out + NIC_HDR_OUT_LEN;
	unsigned int i;
	int st;

	st = nic_cmd_lens(c, NIC_HDR_IN_LEN, NIC_CAP_OUT_LEN);
	if (st)
		return st;
	switch (type) {
	case NIC_CAP_GENERAL:
		nic_set(cap, NIC_HCA_CAP_DEBUG, 1);
		nic_set(cap, NIC_HCA_CAP_NUM_DIAG_CNTRS, nic->nr_cntrs);
		nic_set(cap, NIC_HCA_CAP_LOG_MAX_UCTX, NIC_LOG_MAX_UCTX);
		nic_set(cap, NIC_HCA_CAP_DEV_FREQ_KHZ, nic->khz);
		nic_set(cap, NIC_HCA_CAP_UCTX_CAP, NIC_UCTX_CAP_TOOLS_RESOURCES);
		break;
	case NIC_CAP_DEBUG:
		nic_set(cap, NIC_DEBUG_CAP_LOG_MAX_SAMPLES, nic->log_max_samples);
		nic_set(cap, NIC_DEBUG_CAP_SINGLE, 1);
		nic_set(cap, NIC_DEBUG_CAP_REPETITIVE, 1);
		nic_set(cap, NIC_DEBUG_CAP_LOG_MIN_PERIOD, nic->log_min_period);
		for (i = 0; i < nic->nr_cntrs; i++) {
			nic_set(cap, NIC_DEBUG_CAP_CNTR_SYNC(i),
				nic_rows[nic->cntrs[i].row].sync);
			nic_set(cap, NIC_DEBUG_CAP_CNTR_ID(i), nic->cntrs[i].cid);
		}
		break;
	default:
		return NIC_STAT_BAD_PARAM;
	}
	c->len = NIC_CAP_OUT_LEN;
	return NIC_STAT_OK;
}

/*
 * QUERY_ADAPTER: Mellanox's vendor IDs, the device's name as its
 * vendor-specific data, a PSID from its serial number.
 */
static int nic_query_adapter(struct nic_cmd *c)
{
	struct sim_nic *nic = c->pf->nic;
	int st;

	st = nic_cmd_lens(c, NIC_HDR_IN_LEN, NIC_ADAPTER_OUT_LEN);
	if (st)
		return st;
	nic_set(c->out, NIC_ADAPTER_IEEE_VENDOR_ID, NIC_IEEE_VENDOR_ID);
	nic_set(c->out, NIC_ADAPTER_VSD_VENDOR_ID, NIC_PCI_VENDOR_ID);
	snprintf((char *)c->out + NIC_ADAPTER_VSD, NIC_ADAPTER_VSD_LEN,
		 "upmu_sim NIC %u", nic->sd->dev.id);
	snprintf((char *)c->out + NIC_ADAPTER_PSID, NIC_ADAPTER_PSID_LEN, "UPM%08X",
		 NIC_SERIAL_BASE + nic->sd->dev.id);
	c->len = NIC_ADAPTER_OUT_LEN;
	return NIC_STAT_OK;
}

static int nic_create_uctx(struct nic_cmd *c)
{
	struct sim_nic_pf *pf = c->pf;
	u32 cap = nic_get(c->in, NIC_CREATE_UCTX_CAP);
	unsigned int bit;
	int st;

	st = nic_cmd_lens(c, NIC_CREATE_UCTX_IN_LEN, NIC_HDR_OUT_LEN);
	if (st)
		return st;
	if (cap & ~NIC_UCTX_CAP_TOOLS_RESOURCES)
		return NIC_STAT_BAD_PARAM;
	bit = find_first_zero_bit(pf->uids, NIC_MAX_UCTX);
	if (bit >= NIC_MAX_UCTX)
		return NIC_STAT_NO_RES;
	__set_bit(bit, pf->uids);
	pf->uctx_cap[bit] = cap;
	nic_set(c->out, NIC_CREATE_UCTX_OUT_UID, bit + 1);
	return NIC_STAT_OK;
}

static bool nic_uid_valid(const struct sim_nic_pf *pf, u32 uid)
{
	return uid && uid <= NIC_MAX_UCTX && test_bit(uid - 1, pf->uids);
}

/* Frees the uid and whatever it held (ownership of the engine). */
static int nic_destroy_uctx(struct nic_cmd *c)
{
	u32 uid = nic_get(c->in, NIC_DESTROY_UCTX_UID);
	int st;

	st = nic_cmd_lens(c, NIC_DESTROY_UCTX_IN_LEN, NIC_HDR_OUT_LEN);
	if (st)
		return st;
	if (!nic_uid_valid(c->pf, uid))
		return NIC_STAT_BAD_PARAM;
	nic_diag_release(c->pf->nic, c->pf->pf, uid);
	__clear_bit(uid - 1, c->pf->uids);
	c->pf->uctx_cap[uid - 1] = 0;
	return NIC_STAT_OK;
}

/* Runs the command in the inbox; its output is in the (zeroed) outbox. */
static void nic_exec(struct nic_cmd *c)
{
	u16 opcode = nic_get(c->in, NIC_HDR_OPCODE);
	u32 uid = nic_get(c->in, NIC_HDR_UID);
	int st;

	c->len = NIC_HDR_OUT_LEN;
	c->synd = 0;
	c->uid = uid;
	if (uid && !nic_uid_valid(c->pf, uid) &&
	    opcode != NIC_OP_CREATE_UCTX && opcode != NIC_OP_DESTROY_UCTX) {
		st = NIC_STAT_BAD_PARAM;
		goto out;
	}
	switch (opcode) {
	case NIC_OP_QUERY_HCA_CAP:
		st = nic_query_hca_cap(c);
		break;
	case NIC_OP_QUERY_ADAPTER:
		st = nic_query_adapter(c);
		break;
	case NIC_OP_CREATE_UCTX:
		st = nic_create_uctx(c);
		break;
	case NIC_OP_DESTROY_UCTX:
		st = nic_destroy_uctx(c);
		break;
	default:
		st = nic_cmd_diag(c, opcode);
		if (st < 0)
			st = NIC_STAT_BAD_OP;
	}
out:
	if (st)	/* a failed command's output is its header */
		c->len = NIC_HDR_OUT_LEN;
	nic_set(c->out, NIC_HDR_STATUS, st);
	nic_set(c->out, NIC_HDR_SYNDROME, st ? c->synd : 0);
}

/* NIC_DOORBELL_GO: take the command, run it, publish its output length. */
static void nic_doorbell(struct sim_nic_pf *pf)
{
	struct nic_cmd c = {
		.pf = pf, .in = pf->inbox, .in_len = pf->in_len,
		.out = pf->outbox, .out_len = pf->out_len,
	};
	u32 deliv = NIC_DELIVERY_OK;

	switch (pf->fault) {
	case NIC_FAULT_HELD:		/* busy: the doorbell is not heard */
		return;
	case NIC_FAULT_HANG:
		pf->fault = NIC_FAULT_HELD;
		pf->status = NIC_CMD_STATUS_BUSY;
		return;
	case NIC_FAULT_DELIVERY:
		pf->fault = NIC_FAULT_NONE;
		pf->out_len = 0;
		pf->status = pf->fault_delivery << 8;
		return;
	}
	if (pf->in_len < NIC_HDR_IN_LEN || pf->in_len > NIC_INBOX_SIZE)
		deliv = NIC_DELIVERY_IN_LENGTH_ERR;
	else if (pf->out_len < NIC_HDR_OUT_LEN || pf->out_len > NIC_OUTBOX_SIZE)
		deliv = NIC_DELIVERY_OUT_LENGTH_ERR;
	if (deliv) {
		pf->out_len = 0;
		pf->status = deliv << 8;
		return;
	}
	/* The firmware sees the input as it was written, and no stale output. */
	memset(pf->outbox, 0, pf->out_len);
	nic_exec(&c);
	pf->out_len = c.len;
	if (pf->fault == NIC_FAULT_SHORT) {
		pf->fault = NIC_FAULT_NONE;
		pf->out_len = NIC_HDR_OUT_LEN / 2;
	}
	pf->status = NIC_DELIVERY_OK << 8;
}

/*
 * debugfs nic/cmd_fault: "PF hang" (the PF's next command stays busy),
 * "PF release" (the hung command runs now and completes), "PF short"
 * (the next one publishes an output too short for its header), "PF
 * delivery=S" (the next one is not delivered, delivery status S), "PF
 * none"; reading gives each PF's fault.
 */
static const char *const nic_fault_names[] = {
	[NIC_FAULT_NONE] = "none", [NIC_FAULT_HANG] = "hang",
	[NIC_FAULT_HELD] = "held", [NIC_FAULT_DELIVERY] = "delivery",
	[NIC_FAULT_SHORT] = "short",
};

static int nic_fault_show(struct seq_file *m, void *v)
{
	struct sim_nic *nic = m->private;
	unsigned int p;

	for (p = 0; p < nic->nr_pfs; p++) {
		const struct sim_nic_pf *pf = &nic->pf[p];
		u8 fault = READ_ONCE(pf->fault);

		seq_printf(m, "%u %s", p, nic_fault_names[fault]);
		if (fault == NIC_FAULT_DELIVERY)
			seq_printf(m, "=%u", READ_ONCE(pf->fault_delivery));
		seq_putc(m, '\n');
	}
	return 0;
}

static int nic_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, nic_fault_show, inode->i_private);
}

static ssize_t nic_fault_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct sim_nic *nic = ((struct seq_file *)file->private_data)->private;
	struct sim_dev *sd = nic->sd;
	char act[16], *buf;
	struct sim_nic_pf *pf;
	unsigned long flags;
	unsigned int p, deliv = 0;
	int ret = 0;

	buf = sim_user_buf(ubuf, len, NIC_CMD_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (sscanf(buf, "%u %15s", &p, act) != 2 || p >= nic->nr_pfs ||
	    (!strncmp(act, "delivery=", 9) &&
	     (kstrtouint(act + 9, 0, &deliv) || !deliv || deliv > 0xff)))
		ret = -EINVAL;
	kfree(buf);
	if (ret)
		return ret;
	pf = &nic->pf[p];

	flags = sim_lock(sd);
	if (!strcmp(act, "release")) {
		if (pf->fault == NIC_FAULT_HELD) {
			sim_unit_catch_up(sd, &nic->unit, sim_now(sd));
			pf->fault = NIC_FAULT_NONE;
			nic_doorbell(pf);
		} else {
			ret = -EINVAL;
		}
	} else if (pf->fault == NIC_FAULT_HELD) {
		ret = -EBUSY;		/* release it first */
	} else if (!strcmp(act, "none")) {
		pf->fault = NIC_FAULT_NONE;
	} else if (!strcmp(act, "hang")) {
		pf->fault = NIC_FAULT_HANG;
	} else if (!strcmp(act, "short")) {
		pf->fault = NIC_FAULT_SHORT;
	} else if (deliv) {
		pf->fault = NIC_FAULT_DELIVERY;
		pf->fault_delivery = deliv;
	} else {
		ret = -EINVAL;
	}
	sim_unlock(sd, flags);
	return ret ?: len;
}

static const struct file_operations nic_fault_fops = {
	.owner = THIS_MODULE,
	.open = nic_fault_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = nic_fault_write,
};

/* ---- PF register window --------------------------------------------------- */

/* The diagnostic data registers: one bank, the same through every PF. */
static u64 nic_ddr_read(struct sim_nic *nic, u32 off, bool wide)
{
	unsigned int s = (off - NIC_DDR(0)) / (NIC_DDR(1) - NIC_DDR(0));
	const struct nic_slot *sl = &nic->slots[s];
	u64 v;

	switch (off - NIC_DDR(s)) {
	case NIC_DDR_ID_LO(0) - NIC_DDR(0):
		return (u32)sl->id;
	case NIC_DDR_ID_HI(0) - NIC_DDR(0):
		return sl->id >> 32;
	case NIC_DDR_STATUS(0) - NIC_DDR(0):
		return sl->status;
	case NIC_DDR_VALUE(0) - NIC_DDR(0):
		v = nic_slot_value(nic, s);
		return wide ? v : (u32)v;
	case NIC_DDR_VALUE(0) + 4 - NIC_DDR(0):
		return nic_slot_value(nic, s) >> 32;
	}
	return 0;	/* CTRL reads as 0: enable is in STATUS */
}

static void nic_ddr_write(struct sim_nic *nic, u32 off, u32 val)
{
	unsigned int s = (off - NIC_DDR(0)) / (NIC_DDR(1) - NIC_DDR(0));
	struct nic_slot *sl = &nic->slots[s];

	switch (off - NIC_DDR(s)) {
	case NIC_DDR_ID_LO(0) - NIC_DDR(0):
		sl->id = (sl->id & ~0xffffffffULL) | val;
		break;
	case NIC_DDR_ID_HI(0) - NIC_DDR(0):
		sl->id = (sl->id & 0xffffffffULL) | (u64)val << 32;
		break;
	case NIC_DDR_CTRL(0) - NIC_DDR(0):
		nic_slot_ctrl(nic, s, val);
		break;
	}
}

/* The mailbox or sample window dword at @off, or NULL. */
static const u8 *nic_pf_box(struct sim_nic_pf *pf, u32 off)
{
	if (off >= NIC_INBOX && off < NIC_INBOX + NIC_INBOX_SIZE)
		return pf->inbox + off - NIC_INBOX;
	if (off >= NIC_SWIN) {
		nic_diag_window_fill(pf);
		return pf->swin + off - NIC_SWIN;
	}
	if (off >= NIC_OUTBOX)
		return pf->outbox + off - NIC_OUTBOX;
	return NULL;
}

static u64 nic_pf_read(struct sim_regs *r, u32 off, bool wide)
{
	struct sim_nic_pf *pf = container_of(r, struct sim_nic_pf, regs);
	struct sim_nic *nic = pf->nic;
	const u8 *box = nic_pf_box(pf, off);
	u64 v;

	/*
	 * An 8-byte read is two dwords: the second may be past the end of
	 * the inbox or the outbox, in the next register of the window
	 * (sim_regs_xfer() keeps both in the window).
	 */
	if (box && wide)
		return (u64)nic_pf_read(r, off + 4, false) << 32 |
		       nic_ld32(box);
	if (box)
		return nic_ld32(box);

	switch (off) {
	case NIC_REG_FW_REV:
		return NIC_FW_REV;
	case NIC_REG_CMDIF_REV:
		return NIC_CMDIF_REV;
	case NIC_REG_INBOX_SIZE:
		return NIC_INBOX_SIZE;
	case NIC_REG_OUTBOX_SIZE:
		return NIC_OUTBOX_SIZE;
	case NIC_REG_CMD_IN_LEN:
		return pf->in_len;
	case NIC_REG_CMD_OUT_LEN:
		return pf->out_len;
	case NIC_REG_CMD_STATUS:
		return pf->status;
	case NIC_REG_DEV_SERIAL:
		return NIC_SERIAL_BASE + nic->sd->dev.id;
	case NIC_REG_PF:
		return pf->pf;
	case NIC_REG_DDR_NUM:
		return nic->nr_slots;
	case NIC_REG_DEV_ID:
		return NIC_PCI_VENDOR_ID << 16 | NIC_PCI_DEVICE_ID;
	case NIC_REG_TIMER:	/* device ns are sim ns */
		v = sim_now(nic->sd);
		return wide ? v : (u32)v;
	case NIC_REG_TIMER + 4:
		return sim_now(nic->sd) >> 32;
	case NIC_SW_RETURNED:
		return pf->sw_returned;
	case NIC_SW_LOST:
		return pf->sw_lost;
	case NIC_SW_LOST_FIRST:
		return pf->sw_lost_first;
	case NIC_SW_SIZE:
		return NIC_SWS_SIZE(nic->diag.nr);
	case NIC_SW_AVAIL:
		return pf->sw_avail;
	case NIC_SW_STATE:
		return nic->diag.state | nic->diag.mode << 8;
	case NIC_SW_NUM_IDS:
		return nic->diag.nr;
	case NIC_SW_PERIOD_NS:
		v = nic_diag_period_ns(nic);
		return wide ? v : (u32)v;
	case NIC_SW_PERIOD_NS + 4:
		return nic_diag_period_ns(nic) >> 32;
	case NIC_SW_KHZ:
		return nic->khz;
	case NIC_SW_NEXT:
		return pf->sw_next;
	}
	if (off >= NIC_DDR(0) && off < NIC_DDR(nic->nr_slots))
		return nic_ddr_read(nic, off, wide);
	return 0;	/* reserved: RAZ */
}

static void nic_pf_write(struct sim_regs *r, u32 off, u32 val)
{
	struct sim_nic_pf *pf = container_of(r, struct sim_nic_pf, regs);

	if (off >= NIC_INBOX && off < NIC_INBOX + NIC_INBOX_SIZE) {
		nic_st32(pf->inbox + off - NIC_INBOX, val);
		return;
	}
	if (off >= NIC_DDR(0) && off < NIC_DDR(pf->nic->nr_slots)) {
		nic_ddr_write(pf->nic, off, val);
		return;
	}
	switch (off) {
	case NIC_REG_CMD_IN_LEN:
		pf->in_len = val;
		break;
	case NIC_REG_CMD_OUT_LEN:
		pf->out_len = val;
		break;
	case NIC_REG_CMD_DOORBELL:
		if (val == NIC_DOORBELL_GO)
			nic_doorbell(pf);
		break;
	case NIC_SW_READ:
		nic_diag_window(pf->nic, pf, val);
		break;
	case NIC_SW_SKIP:
		if (val == 1)
			nic_diag_skip(pf->nic, pf);
		break;
	}
	/* read-only registers and the outbox: WI */
}

static void nic_pf_xfer(void *ctx, struct upmu_reg_xfer *x, unsigned int n)
{
	sim_regs_xfer(ctx, x, n, NULL, nic_pf_read, nic_pf_write);
}

/*
 * Block copies of the window: the mailboxes as memcpy_toio() and
 * memcpy_fromio() would move them, anything else dword by dword.
 */
static void nic_pf_copy(void *ctx, u32 off, void *buf, size_t len, bool to_dev)
{
	struct sim_regs *r = ctx;
	struct sim_nic_pf *pf = container_of(r, struct sim_nic_pf, regs);
	struct sim_dev *sd = r->sd;
	unsigned long flags;
	size_t i;

	atomic64_inc(&sd->calls);
	flags = sim_lock(sd);
	sim_unit_access(sd, r->unit, to_dev, sim_now(sd));
	if (to_dev && off >= NIC_INBOX && len <= NIC_INBOX_SIZE &&
	    off - NIC_INBOX <= NIC_INBOX_SIZE - len) {
		memcpy(pf->inbox + off - NIC_INBOX, buf, len);
	} else if (!to_dev && off >= NIC_OUTBOX && len <= NIC_OUTBOX_SIZE &&
		   off - NIC_OUTBOX <= NIC_OUTBOX_SIZE - len) {
		memcpy(buf, pf->outbox + off - NIC_OUTBOX, len);
	} else if (!to_dev && off >= NIC_SWIN && len <= NIC_SWIN_SIZE &&
		   off - NIC_SWIN <= NIC_SWIN_SIZE - len) {
		nic_diag_window_copy(pf, off - NIC_SWIN, buf, len);
	} else {
		for (i = 0; i + 4 <= len; i += 4) {
			u32 o = off + i;
			bool in = !(off % 4) && off < r->size && i < r->size - off;

			if (to_dev && in)
				nic_pf_write(r, o, nic_ld32(buf + i));
			else if (!to_dev)
				nic_st32(buf + i, in ? nic_pf_read(r, o, false) : 0);
		}
	}
	sim_unlock(sd, flags);
}

static const struct upmu_regs_ops nic_pf_regs_ops = {
	.xfer = nic_pf_xfer,
	.copy = nic_pf_copy,
};

/* ---- the device ------------------------------------------------------------ */

/* Sim time goes on: the sampling engine takes the samples that fell due. */
static void nic_tick(struct sim_unit *unit, u64 now)
{
	nic_diag_catch_up(container_of(unit, struct sim_nic, unit), now);
}

/* NIC traffic does not come from the SoC's transactions. */
static void nic_deliver(struct sim_unit *unit, const struct sim_txn *t)
{
}

static void nic_free(struct sim_nic *nic)
{
	unsigned int p;

	for (p = 0; p < NIC_MAX_PFS; p++) {
		kvfree(nic->pf[p].inbox);
		kvfree(nic->pf[p].outbox);
		kvfree(nic->pf[p].swin);
	}
	nic_diag_free(nic);
	nic_cntrs_free(nic);
	kfree(nic);
}

/**
 * sim_nic_add() - build the NIC of a device and publish its PFs
 * @sd: the simulated device, with blocks=nic
 *
 * Each PF becomes a platform device "upmu-nic-pf" with a regs/nic.pfN
 * debugfs file.
 *
 * Return: 0 or an errno (nothing is left behind).
 */
int sim_nic_add(struct sim_dev *sd)
{
	const struct sim_nic_opts *o = &sd->nic_opts;
	struct sim_nic *nic;
	struct dentry *dir;
	unsigned int p;
	int ret;

	if (o->socket >= sd->nr_sockets)
		return -EINVAL;
	nic = kzalloc_obj(*nic);
	if (!nic)
		return -ENOMEM;
	nic->sd = sd;
	nic->nr_pfs = o->pfs;
	nic->nr_ports = o->ports;
	nic->nr_links = o->links;
	nic->nr_hosts = o->hosts;
	nic->nr_funcs = o->funcs;
	nic->khz = o->khz;
	nic->log_max_samples = o->log_max_samples;
	nic->log_min_period = o->log_min_period;
	nic->nr_slots = NIC_DEF_SLOTS;
	sim_unit_init(sd, &nic->unit, nic_tick, nic_deliver);
	ret = nic_cntrs_init(nic);
	if (!ret)
		ret = nic_diag_alloc(nic);
	for (p = 0; !ret && p < nic->nr_pfs; p++) {
		struct sim_nic_pf *pf = &nic->pf[p];

		pf->nic = nic;
		pf->pf = p;
		pf->inbox = kvzalloc(NIC_INBOX_SIZE, GFP_KERNEL);
		pf->outbox = kvzalloc(NIC_OUTBOX_SIZE, GFP_KERNEL);
		pf->swin = kvzalloc(NIC_SWIN_SIZE, GFP_KERNEL);
		if (!pf->inbox || !pf->outbox || !pf->swin)
			ret = -ENOMEM;
		pf->regs.ops = &nic_pf_regs_ops;
		pf->regs.sd = sd;
		pf->regs.unit = &nic->unit;
		pf->regs.size = NIC_WINDOW;
		/* a read of the sample window fills it */
		pf->regs.pure_size = NIC_SWIN;
		snprintf(pf->regs.name, sizeof(pf->regs.name), "nic.pf%u", p);
	}
	if (ret) {
		nic_free(nic);
		return ret;
	}
	sd->nic = nic;

	dir = debugfs_create_dir("nic", sd->ddir);
	nic_ids_debugfs(nic, dir);
	nic_diag_debugfs(nic, dir);
	debugfs_create_file("cmd_fault", 0600, dir, nic, &nic_fault_fops);

	for (p = 0; p < nic->nr_pfs; p++) {
		nic->pf[p].pdev = sim_add_pdev(sd, "upmu-nic-pf", &nic->pf[p].regs,
					       o->socket, p, NULL);
		if (IS_ERR(nic->pf[p].pdev)) {
			ret = PTR_ERR(nic->pf[p].pdev);
			sim_nic_del(sd);
			return ret;
		}
	}
	return 0;
}

/**
 * sim_nic_del() - remove the PFs and free the NIC (if there is one)
 * @sd: the simulated device
 *
 * Its debugfs files go with the device's directory, after this.
 */
void sim_nic_del(struct sim_dev *sd)
{
	struct sim_nic *nic = sd->nic;
	unsigned int p;

	if (!nic)
		return;
	/* last PF first, as PCI removes the functions of a device */
	for (p = nic->nr_pfs; p-- > 0;)
		sim_del_pdev(&nic->pf[p].pdev);
	/* debugfs files of the NIC point at it: take them first */
	debugfs_lookup_and_remove("nic", sd->ddir);
	for (p = 0; p < nic->nr_pfs; p++)
		debugfs_lookup_and_remove(nic->pf[p].regs.name, sd->regs_dir);
	sd->nic = NULL;
	nic_free(nic);
}

/**
 * sim_nic_catch_up() - bring the NIC up to sim time @now
 * @sd: the simulated device
 * @now: sim time
 *
 * Called with sd->lock held.
 */
void sim_nic_catch_up(struct sim_dev *sd, u64 now)
{
	if (sd->nic)
		sim_unit_catch_up(sd, &sd->nic->unit, now);
}
