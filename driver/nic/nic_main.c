// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_nic: physical functions of a ConnectX-like NIC.
 *
 * One platform device per PF, whose register window holds the firmware's
 * command mailbox (include/hw/nic_cmd.h): the driver copies a command into
 * the inbox, rings the doorbell, waits for the busy bit to clear and
 * copies the output back.  Whether the window is MMIO or a simulator's is
 * upmu_regs_get()'s business.  A command that reached the firmware reports
 * its outcome in the status and syndrome of its output; only a command
 * that could not be delivered (or never completed) is an errno.
 */

#include <linux/device.h>
#include <linux/iopoll.h>
#include <linux/minmax.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "hw/nic_cmd.h"
#include "nic.h"
#include "upmu_compat.h"

/*
 * How long a command may run.  The simulator completes a command before
 * the doorbell write returns; firmware takes micro- to milliseconds, and
 * mlx5 allows far longer for commands this driver never sends.  The wait
 * holds up removal of the device (fwctl_unregister() waits for running
 * RPCs), so it is bounded: 2 s by default, 1 ms to 60 s (the tests make
 * it short, to time many commands out).
 */
static unsigned int cmd_timeout_ms = 2000;
module_param(cmd_timeout_ms, uint, 0644);
MODULE_PARM_DESC(cmd_timeout_ms, "how long a firmware command may run, ms (1-60000)");
#define NIC_CMD_POLL_US		20

/*
 * Copy @len bytes to or from the mailbox at @off: whole dwords, then the
 * bytes of a last partial dword through a bounce dword, so that @buf is
 * never read or written past @len.
 */
static void nic_mbox_write(struct upmu_nic_pf *pf, u32 off, const void *buf,
			   size_t len)
{
	size_t head = round_down(len, 4);
	u32 tail = 0;

	if (head)
		upmu_memcpy_toio(&pf->regs, off, buf, head);
	if (len > head) {
		memcpy(&tail, buf + head, len - head);
		upmu_memcpy_toio(&pf->regs, off + head, &tail, 4);
	}
}

static void nic_mbox_read(struct upmu_nic_pf *pf, u32 off, void *buf,
			  size_t len)
{
	size_t head = round_down(len, 4);
	u32 tail;

	if (head)
		upmu_memcpy_fromio(&pf->regs, off, buf, head);
	if (len > head) {
		upmu_memcpy_fromio(&pf->regs, off + head, &tail, 4);
		memcpy(buf + head, &tail, len - head);
	}
}

/* The errno of a delivery status: the command did not reach the firmware. */
static int nic_delivery_errno(u32 delivery)
{
	switch (delivery) {
	case NIC_DELIVERY_OK:
		return 0;
	case NIC_DELIVERY_FW_ERR:
		return -EIO;
	case NIC_DELIVERY_IN_LENGTH_ERR:
	case NIC_DELIVERY_OUT_LENGTH_ERR:
		return -EMSGSIZE;
	default:
		return -EPROTO;
	}
}

/* What one poll of a command reads, in this order. */
enum { NIC_POLL_STATUS, NIC_POLL_LEN, NIC_POLL_HDR, NIC_POLL_N = NIC_POLL_HDR + 4 };
static_assert(NIC_HDR_OUT_LEN == 4 * (NIC_POLL_N - NIC_POLL_HDR));

/*
 * The command's status, and in @len the output length it published and
 * in @hdr its output header (meaningful once the command is done), read
 * together: with the doorbell the first time (upmu_xfer()), and a command
 * whose output is its header needs no other read.
 */
static u32 nic_cmd_poll(struct upmu_nic_pf *pf, u32 *len, __le32 *hdr)
{
	struct upmu_reg_xfer x[NIC_POLL_N] = {
		[NIC_POLL_STATUS] = { .off = NIC_REG_CMD_STATUS },
		[NIC_POLL_LEN] = { .off = NIC_REG_CMD_OUT_LEN },
	};
	unsigned int i;

	for (i = NIC_POLL_HDR; i < NIC_POLL_N; i++)
		x[i].off = NIC_OUTBOX + 4 * (i - NIC_POLL_HDR);
	upmu_xfer(&pf->regs, x, ARRAY_SIZE(x));
	for (i = NIC_POLL_HDR; i < NIC_POLL_N; i++)
		hdr[i - NIC_POLL_HDR] = cpu_to_le32(x[i].val);
	*len = x[NIC_POLL_LEN].val;
	return x[NIC_POLL_STATUS].val;
}

/*
 * One command in the mailbox, with @pf->cmd_lock held and no command
 * holding it.  One that does not complete in time keeps the mailbox: it
 * is @pf->stuck until the firmware completes it (nic_cmd_reconcile()).
 */
static int nic_cmd_run(struct upmu_nic_pf *pf, const void *in, size_t in_len,
		       void *out, size_t out_len)
{
	u32 timeout_ms = clamp(READ_ONCE(cmd_timeout_ms), 1U, 60U * MSEC_PER_SEC);
	u16 opcode = nic_get(in, NIC_HDR_OPCODE);
	__le32 hdr[NIC_HDR_OUT_LEN / 4];
	u32 status, len;
	size_t n;
	int ret;

	lockdep_assert_held(&pf->cmd_lock);
	if (!pf->idle) {
		status = upmu_rd32(&pf->regs, NIC_REG_CMD_STATUS);
		if (status & NIC_CMD_STATUS_BUSY)
			return -EBUSY;	/* not ours: nothing to reconcile */
	}
	pf->idle = false;
	nic_mbox_write(pf, NIC_INBOX, in, in_len);
	upmu_wr32(&pf->regs, NIC_REG_CMD_IN_LEN, in_len);
	upmu_wr32(&pf->regs, NIC_REG_CMD_OUT_LEN, out_len);
	upmu_wr32(&pf->regs, NIC_REG_CMD_DOORBELL, NIC_DOORBELL_GO);

	ret = read_poll_timeout(nic_cmd_poll, status,
				!(status & NIC_CMD_STATUS_BUSY),
				NIC_CMD_POLL_US, timeout_ms * USEC_PER_MSEC, false,
				pf, &len, hdr);
	if (ret) {
		/*
		 * As mlx5 treats a command timeout: a health event of the
		 * PF, not a command that never was.  The firmware may still
		 * run it; what it then does is undone before the next command
		 * (its caller was told it failed).
		 */
		pf->stuck = true;
		memset(pf->stuck_in, 0, sizeof(pf->stuck_in));
		memcpy(pf->stuck_in, in, min_t(size_t, in_len, sizeof(pf->stuck_in)));
		pf->cmd_timeouts++;
		dev_err_ratelimited(pf->dev,
				    "command 0x%x timed out after %u ms: health event, the mailbox is held until the firmware completes it\n",
				    opcode, timeout_ms);
		return ret;
	}
	pf->idle = true;
	ret = nic_delivery_errno(NIC_CMD_STATUS_DELIVERY(status));
	if (ret) {
		dev_err_ratelimited(pf->dev,
				    "command 0x%x not delivered: delivery status 0x%x\n",
				    opcode, NIC_CMD_STATUS_DELIVERY(status));
		return ret;
	}
	if (len < NIC_HDR_OUT_LEN) {
		dev_err_ratelimited(pf->dev,
				    "command 0x%x: output of %u bytes has no header\n",
				    opcode, len);
		return -EPROTO;
	}
	len = min(len, pf->outbox_size);
	n = min_t(size_t, len, out_len);
	memcpy(out, hdr, NIC_HDR_OUT_LEN);
	if (n > NIC_HDR_OUT_LEN)
		nic_mbox_read(pf, NIC_OUTBOX + NIC_HDR_OUT_LEN,
			      out + NIC_HDR_OUT_LEN, n - NIC_HDR_OUT_LEN);
	return len;
}

/*
 * The command that timed out (@pf->stuck) has completed after all: the
 * firmware did what it asked, which its caller was told had failed.
 * Undo what would otherwise leak or lock others out: a user context it
 * created (64 such exhaust a PF), the diagnostic engine's ownership it
 * took (for the kernel or a fwctl user, who then holds it untracked).
 * Other commands' effects stand (said in the log).  With @pf->cmd_lock
 * held.  Return: 0, -EBUSY while the firmware still runs it, or the undo
 * command's -errno.
 */
static int nic_cmd_reconcile(struct upmu_nic_pf *pf)
{
	u16 opcode = nic_get(pf->stuck_in, NIC_HDR_OPCODE);
	u16 op_mod = nic_get(pf->stuck_in, NIC_HDR_OP_MOD);
	u32 out[NIC_STUCK_IN_LEN / 4] = {}, undo[NIC_STUCK_IN_LEN / 4] = {};
	u32 ack[NIC_HDR_OUT_LEN / 4];
	u32 status, len;
	int ret;

	status = upmu_rd32(&pf->regs, NIC_REG_CMD_STATUS);
	if (status & NIC_CMD_STATUS_BUSY)
		return -EBUSY;
	pf->stuck = false;
	pf->idle = true;
	pf->cmd_late++;
	len = upmu_rd32(&pf->regs, NIC_REG_CMD_OUT_LEN);
	if (NIC_CMD_STATUS_DELIVERY(status) != NIC_DELIVERY_OK ||
	    len < NIC_HDR_OUT_LEN)
		return 0;	/* it never ran */
	nic_mbox_read(pf, NIC_OUTBOX, out, min_t(size_t, len, sizeof(out)));
	if (nic_get(out, NIC_HDR_STATUS) != NIC_STAT_OK)
		return 0;	/* it failed: nothing to undo */

	if (opcode == NIC_OP_CREATE_UCTX) {
		nic_set(undo, NIC_HDR_OPCODE, NIC_OP_DESTROY_UCTX);
		nic_set(undo, NIC_DESTROY_UCTX_UID,
			nic_get(out, NIC_CREATE_UCTX_OUT_UID));
		len = NIC_DESTROY_UCTX_IN_LEN;
	} else if (opcode == NIC_OP_EXT_OWNERSHIP && op_mod == NIC_OWN_TAKE) {
		/* released by whoever took it: the same uid */
		memcpy(undo, pf->stuck_in, NIC_HDR_IN_LEN);
		nic_set(undo, NIC_HDR_OP_MOD, NIC_OWN_RELEASE);
		len = NIC_HDR_IN_LEN;
	} else {
		dev_info_ratelimited(pf->dev,
				     "command 0x%x completed after its timeout: its effect stands\n",
				     opcode);
		return 0;
	}
	ret = nic_cmd_run(pf, undo, len, ack, sizeof(ack));
	dev_warn_ratelimited(pf->dev,
			     "command 0x%x completed after its timeout: undone by 0x%x (%d, status 0x%x)\n",
			     opcode, nic_get(undo, NIC_HDR_OPCODE), ret,
			     ret < 0 ? 0 : nic_get(ack, NIC_HDR_STATUS));
	return ret < 0 ? ret : 0;
}

/**
 * upmu_nic_cmd_exec() - run one firmware command
 * @pf: the PF whose mailbox runs it
 * @in: the command: a 16-byte header and its input
 * @in_len: bytes of @in, at least NIC_HDR_IN_LEN and at most the inbox
 * @out: the output: a 16-byte header and the command's output
 * @out_len: bytes of @out, at least NIC_HDR_OUT_LEN; the firmware is told
 *	     it may write at most this much (and the outbox size)
 *
 * Commands of a PF run one at a time.  A command that reached the
 * firmware is a success here whatever its outcome: the status and
 * syndrome of @out say whether the firmware executed it.  One that timed
 * out holds the mailbox until the firmware completes it; the first
 * command after that undoes what it did (nic_cmd_reconcile()).
 *
 * Return: the length of the output the firmware produced (which may be
 * more than @out_len; only @out_len bytes are copied), or -EMSGSIZE when
 * @in_len or @out_len is out of bounds or the firmware refused a length,
 * -EBUSY when the mailbox still runs a command that timed out,
 * -ETIMEDOUT when this one does not complete, -EIO or -EPROTO when the
 * firmware could not take it.
 */
int upmu_nic_cmd_exec(struct upmu_nic_pf *pf, const void *in, size_t in_len,
		      void *out, size_t out_len)
{
	int ret = 0;

	if (in_len < NIC_HDR_IN_LEN || in_len > pf->inbox_size ||
	    out_len < NIC_HDR_OUT_LEN)
		return -EMSGSIZE;
	out_len = min_t(size_t, out_len, pf->outbox_size);

	mutex_lock(&pf->cmd_lock);
	/*
	 * The lengths and the doorbell go to a backend with the first read
	 * of the status, in one call; nothing waits past the commit.
	 */
	upmu_regs_defer(&pf->regs);
	/* an earlier command timed out: done since? then undo it first */
	if (pf->stuck)
		ret = nic_cmd_reconcile(pf);
	if (!ret)
		ret = nic_cmd_run(pf, in, in_len, out, out_len);
	upmu_regs_commit(&pf->regs);
	mutex_unlock(&pf->cmd_lock);
	return ret;
}

/* The errno the driver's own commands turn a firmware status into. */
static int nic_status_errno(u8 status)
{
	switch (status) {
	case NIC_STAT_OK:
		return 0;
	case NIC_STAT_BAD_OP:
		return -EOPNOTSUPP;
	case NIC_STAT_BAD_PARAM:
	case NIC_STAT_BAD_RES:
	case NIC_STAT_BAD_RES_STATE:
	case NIC_STAT_IX_ERR:
		return -EINVAL;
	case NIC_STAT_RES_BUSY:
		return -EBUSY;
	case NIC_STAT_NOT_READY:
	case NIC_STAT_NO_RES:
		return -EAGAIN;
	case NIC_STAT_LIM_ERR:
		return -ENOSPC;
	default:
		return -EIO;
	}
}

/**
 * upmu_nic_cmd() - run one of the driver's own firmware commands
 * @pf: the PF
 * @in: the command
 * @in_len: bytes of @in
 * @out: its output
 * @out_len: bytes of @out
 *
 * As upmu_nic_cmd_exec(), for a caller that wants an errno for anything
 * but a command the firmware executed: a status other than OK becomes an
 * errno (and a log line with the status and syndrome).
 *
 * Return: 0 or -errno.
 */
int upmu_nic_cmd(struct upmu_nic_pf *pf, const void *in, size_t in_len,
		 void *out, size_t out_len)
{
	u8 status;
	int ret;

	ret = upmu_nic_cmd_exec(pf, in, in_len, out, out_len);
	if (ret < 0)
		return ret;
	status = nic_get(out, NIC_HDR_STATUS);
	if (!status)
		return 0;
	dev_err_ratelimited(pf->dev,
			    "command 0x%x op_mod 0x%x failed: status 0x%x syndrome 0x%08x\n",
			    nic_get(in, NIC_HDR_OPCODE), nic_get(in, NIC_HDR_OP_MOD),
			    status, nic_get(out, NIC_HDR_SYNDROME));
	return nic_status_errno(status);
}

/* The general HCA capability: what the driver needs of it. */
static int nic_query_caps(struct upmu_nic_pf *pf)
{
	u32 in[NIC_HDR_IN_LEN / 4] = {};
	u8 *out;
	int ret;

	out = kzalloc(NIC_CAP_OUT_LEN, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	nic_set(in, NIC_HDR_OPCODE, NIC_OP_QUERY_HCA_CAP);
	nic_set(in, NIC_HDR_OP_MOD, NIC_CAP_GENERAL << 1 | NIC_CAP_CUR);
	ret = upmu_nic_cmd(pf, in, sizeof(in), out, NIC_CAP_OUT_LEN);
	if (!ret)
		pf->uctx_cap = nic_get(out + NIC_HDR_OUT_LEN,
				       NIC_HCA_CAP_UCTX_CAP);
	kfree(out);
	return ret;
}

/* The register window: a command interface this driver speaks. */
static int nic_check_regs(struct upmu_nic_pf *pf)
{
	u32 rev = upmu_rd32(&pf->regs, NIC_REG_CMDIF_REV);

	if (rev != NIC_CMDIF_REV)
		return dev_err_probe(pf->dev, -ENODEV,
				     "command interface revision %u, not %u\n",
				     rev, NIC_CMDIF_REV);
	pf->inbox_size = upmu_rd32(&pf->regs, NIC_REG_INBOX_SIZE);
	pf->outbox_size = upmu_rd32(&pf->regs, NIC_REG_OUTBOX_SIZE);
	if (pf->inbox_size < NIC_HDR_IN_LEN ||
	    pf->inbox_size > NIC_INBOX_SIZE || pf->inbox_size % 4 ||
	    pf->outbox_size < NIC_CAP_OUT_LEN ||
	    pf->outbox_size > NIC_OUTBOX_SIZE || pf->outbox_size % 4)
		return dev_err_probe(pf->dev, -ENODEV,
				     "mailbox of %u bytes in, %u out: unusable\n",
				     pf->inbox_size, pf->outbox_size);
	pf->fw_rev = upmu_rd32(&pf->regs, NIC_REG_FW_REV);
	pf->dev_id = upmu_rd32(&pf->regs, NIC_REG_DEV_ID);
	pf->serial = upmu_rd32(&pf->regs, NIC_REG_DEV_SERIAL);
	pf->pf = upmu_rd32(&pf->regs, NIC_REG_PF);
	return 0;
}

static int nic_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct upmu_nic_pf *pf;
	int ret;

	pf = devm_kzalloc(dev, sizeof(*pf), GFP_KERNEL);
	if (!pf)
		return -ENOMEM;
	pf->dev = dev;
	mutex_init(&pf->cmd_lock);

	ret = upmu_regs_get(pdev, &pf->regs);
	if (ret) {
		dev_err_probe(dev, ret, "no registers\n");
		goto err_mutex;
	}
	/* a 64-bit read of the BAR is one PCIe read request */
	pf->regs.atomic64 = true;
	ret = nic_check_regs(pf);
	if (ret)
		goto err_mutex;
	ret = nic_query_caps(pf);
	if (ret) {
		dev_err_probe(dev, ret, "cannot query the HCA capabilities\n");
		goto err_mutex;
	}
	ret = upmu_nic_fwctl_add(pf);
	if (ret) {
		dev_err_probe(dev, ret, "fwctl registration failed\n");
		goto err_mutex;
	}
	platform_set_drvdata(pdev, pf);
	dev_info(dev, "NIC %08x (%04x:%04x) PF %u, firmware %u.%u, command interface %u\n",
		 pf->serial, pf->dev_id >> 16, pf->dev_id & 0xffff, pf->pf,
		 pf->fw_rev >> 16, pf->fw_rev & 0xffff, NIC_CMDIF_REV);
	/* the NIC's perf PMU, through its first PF; optional */
	upmu_nic_pmu_add(pf);
	return 0;

err_mutex:
	mutex_destroy(&pf->cmd_lock);
	return ret;
}

static void nic_remove_dev(struct platform_device *pdev)
{
	struct upmu_nic_pf *pf = platform_get_drvdata(pdev);

	upmu_nic_pmu_del(pf);
	/* waits for running RPCs; destroys the user contexts of open FDs */
	upmu_nic_fwctl_del(pf);
	mutex_destroy(&pf->cmd_lock);
}

#if UPMU_REMOVE_VOID
#define nic_remove nic_remove_dev
#else
static int nic_remove(struct platform_device *pdev)
{
	nic_remove_dev(pdev);
	return 0;
}
#endif

/*
 * Which PF of which NIC a platform device is: how a tool finds the fwctl
 * device of a PF (/sys/class/fwctl/fwctlN/device is the PF's device).
 */
static ssize_t pf_show(struct device *dev, struct device_attribute *attr,
		       char *buf)
{
	struct upmu_nic_pf *pf = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", pf->pf);
}
static DEVICE_ATTR_RO(pf);

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct upmu_nic_pf *pf = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%08x\n", pf->serial);
}
static DEVICE_ATTR_RO(serial);

/*
 * The PF's command health: commands that timed out, and those of them
 * that completed later and were reconciled.
 */
static ssize_t cmd_timeouts_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct upmu_nic_pf *pf = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(pf->cmd_timeouts));
}
static DEVICE_ATTR_RO(cmd_timeouts);

static ssize_t cmd_late_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct upmu_nic_pf *pf = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(pf->cmd_late));
}
static DEVICE_ATTR_RO(cmd_late);

static struct attribute *nic_attrs[] = {
	&dev_attr_pf.attr,
	&dev_attr_serial.attr,
	&dev_attr_cmd_timeouts.attr,
	&dev_attr_cmd_late.attr,
	NULL,
};
ATTRIBUTE_GROUPS(nic);

static const struct platform_device_id nic_ids[] = {
	{ "upmu-nic-pf" },
	{ }
};
MODULE_DEVICE_TABLE(platform, nic_ids);

static struct platform_driver nic_driver = {
	.driver = {
		.name = "upmu-nic",
		.dev_groups = nic_groups,
	},
	.id_table = nic_ids,
	.probe = nic_probe,
	.remove = nic_remove,
};

static int __init nic_init(void)
{
	return platform_driver_register(&nic_driver);
}
module_init(nic_init);

static void __exit nic_exit(void)
{
	/* every PF goes: the PMU need not move from one to the next */
	upmu_nic_pmu_closing();
	platform_driver_unregister(&nic_driver);
}
module_exit(nic_exit);

MODULE_DESCRIPTION("upmu: ConnectX-like NIC physical functions (command mailbox, fwctl)");
MODULE_LICENSE("GPL");
