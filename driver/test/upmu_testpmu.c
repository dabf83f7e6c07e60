// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_testpmu: a test-only PMU family of the core's per-die model.
 *
 * One PMU, upmu_testbox_0 (or the name= parameter's), with a box on every
 * die (upmu_pmu_set_dies()), as Intel's uncore PMUs have.  Each box is a
 * small register block kept in memory by this module: four counters, each
 * with a control register (event select, enable) and a value register.
 * Counters 0-2 are 48 bits wide, counter 3 is 32 bits wide; event 0x1 may
 * only use counter 0, event 0x2 any of counters 0-2, event 0x3 only
 * counter 3, event 0x4 any of the four.  A field in two ranges, tag
 * (config:12-15,40-43), must be 0 or TB_TAG: the core joins its ranges for
 * the family (upmu_field()).
 *
 * A test makes the counters of one die's box advance by writing
 * "DIE EVENT COUNT" to /sys/kernel/debug/upmu_testpmu/inject and checks
 * what perf counts: the box of each die, scheduling by constraint and
 * the wrap of a narrow counter (selftests/upmu/testpmu_test.c).  Nothing
 * else uses it.
 */

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "upmu.h"
#include "upmu_compat.h"

#define TB_NR_CTRS	4
#define TB_CTL(i)	(0x10 * (i))		/* event select, enable */
#define TB_CTL_EVENT	GENMASK(7, 0)
#define TB_CTL_EN	BIT(31)
#define TB_CTR(i)	(0x10 * (i) + 8)	/* value, 64-bit read */
#define TB_BOX_CTL	0x100			/* bit 0: the box counts */
#define TB_BOX_EN	BIT(0)
#define TB_WIDTH	48
#define TB_NARROW	3			/* the 32-bit counter */
#define TB_NARROW_WIDTH	32
#define TB_MAX_DIES	64

enum { TB_EV_CTR0 = 1, TB_EV_ANY = 2, TB_EV_NARROW = 3, TB_EV_ALL = 4 };

/**
 * struct tb_hw - the register block of one box
 * @lock: protects the registers (accesses and injection)
 * @ctl: control register of each counter
 * @ctr: value of each counter
 * @box_ctl: the box's control register
 */
struct tb_hw {
	raw_spinlock_t lock;
	u32 ctl[TB_NR_CTRS];
	u64 ctr[TB_NR_CTRS];
	u32 box_ctl;
};

static struct platform_device *tb_pdev;

/*
 * A test may give the PMU a name perf treats specially, such as
 * intel_pt: perf then takes its events for an AUX area PMU's.
 */
static char *name = "upmu_testbox_0";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "the PMU's name (default upmu_testbox_0)");
static struct upmu_pmu *tb_upmu;
static struct tb_hw *tb_hw[TB_MAX_DIES];
static unsigned int tb_nr_dies;
static struct dentry *tb_dir;

static unsigned int tb_width(unsigned int i)
{
	return i == TB_NARROW ? TB_NARROW_WIDTH : TB_WIDTH;
}

/* A read of the registers, without the lock: each one 64-bit load. */
static u64 tb_reg(struct tb_hw *hw, u32 off)
{
	u32 i = off / 0x10;

	if (off == TB_BOX_CTL)
		return READ_ONCE(hw->box_ctl);
	if (i < TB_NR_CTRS && off == TB_CTL(i))
		return READ_ONCE(hw->ctl[i]);
	if (i < TB_NR_CTRS && off == TB_CTR(i))
		return READ_ONCE(hw->ctr[i]);
	return 0;
}

/*
 * Reads take no lock, as the core's lock-free reads of counters need
 * (from any context: tb_inject() may hold the lock on this CPU).
 */
static void tb_xfer(void *ctx, struct upmu_reg_xfer *x, unsigned int n)
{
	struct tb_hw *hw = ctx;
	unsigned long flags;
	unsigned int k;

	for (k = 0; k < n && !(x[k].flags & UPMU_XFER_WRITE); k++)
		;
	if (k == n) {
		for (k = 0; k < n; k++)
			x[k].val = tb_reg(hw, x[k].off);
		return;
	}
	raw_spin_lock_irqsave(&hw->lock, flags);
	for (k = 0; k < n; k++) {
		u32 off = x[k].off, i = off / 0x10;
		bool wr = x[k].flags & UPMU_XFER_WRITE;

		if (off == TB_BOX_CTL) {
			if (wr)
				hw->box_ctl = x[k].val;
			else
				x[k].val = hw->box_ctl;
		} else if (i < TB_NR_CTRS && off == TB_CTL(i)) {
			if (wr)
				hw->ctl[i] = x[k].val;
			else
				x[k].val = hw->ctl[i];
		} else if (i < TB_NR_CTRS && off == TB_CTR(i) && !wr) {
			x[k].val = hw->ctr[i];
		} else if (!wr) {
			x[k].val = 0;
		}
	}
	raw_spin_unlock_irqrestore(&hw->lock, flags);
}

static const struct upmu_regs_ops tb_regs_ops = {
	.xfer = tb_xfer,
};

/* Counters programmed with @ev in an enabled box advance by @count. */
static void tb_inject(struct tb_hw *hw, unsigned int ev, u64 count)
{
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&hw->lock, flags);
	for (i = 0; i < TB_NR_CTRS && (hw->box_ctl & TB_BOX_EN); i++)
		if ((hw->ctl[i] & TB_CTL_EN) &&
		    FIELD_GET(TB_CTL_EVENT, hw->ctl[i]) == ev)
			WRITE_ONCE(hw->ctr[i], (hw->ctr[i] + count) &
				   GENMASK_ULL(tb_width(i) - 1, 0));
	raw_spin_unlock_irqrestore(&hw->lock, flags);
}

#define TB_TAG		0x5a

static const struct upmu_format tb_formats[] = {
	UPMU_FORMAT(event, UPMU_CONFIG, 0, 7),
	UPMU_FORMAT_SPLIT(tag, UPMU_CONFIG, 12, 15, 40, 43),
};

static int tb_validate(struct upmu_pmu *upmu, struct perf_event *event)
{
	u64 tag = upmu_field(upmu, event, 1);

	if (tag && tag != TB_TAG) {
		upmu_why(upmu, "tag %#llx is neither 0 nor %#x", tag, TB_TAG);
		return -EINVAL;
	}
	return 0;
}

static const struct upmu_event_desc tb_events[] = {
	UPMU_EVENT(ctr0_only, TB_EV_CTR0),
	UPMU_EVENT(any, TB_EV_ANY),
	UPMU_EVENT(narrow, TB_EV_NARROW),
	UPMU_EVENT(all, TB_EV_ALL),
};

static u64 tb_constraint(struct upmu_pmu *upmu, struct perf_event *event)
{
	switch (upmu_field(upmu, event, 0)) {
	case TB_EV_CTR0:
		return BIT(0);
	case TB_EV_NARROW:
		return BIT(TB_NARROW);
	case TB_EV_ALL:
		return GENMASK(TB_NR_CTRS - 1, 0);
	default:
		return GENMASK(2, 0);
	}
}

static void tb_enable(struct upmu_pmu *upmu)
{
	upmu_wr32(upmu_this_box(upmu)->regs, TB_BOX_CTL, TB_BOX_EN);
}

static void tb_disable(struct upmu_pmu *upmu)
{
	upmu_wr32(upmu_this_box(upmu)->regs, TB_BOX_CTL, 0);
}

static void tb_config(struct upmu_pmu *upmu, struct perf_event *event)
{
	upmu_wr32(upmu_event_box(upmu, event)->regs, TB_CTL(event->hw.idx),
		  upmu_field(upmu, event, 0));
}

static void tb_start(struct upmu_pmu *upmu, struct perf_event *event)
{
	upmu_wr32(upmu_event_box(upmu, event)->regs, TB_CTL(event->hw.idx),
		  upmu_field(upmu, event, 0) | TB_CTL_EN);
}

static void tb_stop(struct upmu_pmu *upmu, struct perf_event *event)
{
	upmu_wr32(upmu_event_box(upmu, event)->regs, TB_CTL(event->hw.idx), 0);
}

static u64 tb_read(struct upmu_pmu *upmu, struct perf_event *event)
{
	return upmu_rd64_nolock(upmu_event_box(upmu, event)->regs,
				TB_CTR(event->hw.idx));
}

static const struct upmu_hw_ops tb_ops = {
	.validate	= tb_validate,
	.constraint	= tb_constraint,
	.enable		= tb_enable,
	.disable	= tb_disable,
	.config		= tb_config,
	.start		= tb_start,
	.stop		= tb_stop,
	.read		= tb_read,
};

static const struct upmu_desc tb_desc = {
	.formats	= tb_formats,
	.nr_formats	= ARRAY_SIZE(tb_formats),
	.events		= tb_events,
	.nr_events	= ARRAY_SIZE(tb_events),
	.ops		= &tb_ops,
	.max_rate_per_ns = 1,
};

/* "DIE EVENT COUNT" */
static ssize_t tb_inject_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	unsigned int die, ev;
	char buf[64];
	u64 count;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u %llu", &die, &ev, &count) != 3 ||
	    die >= tb_nr_dies)
		return -EINVAL;
	tb_inject(tb_hw[die], ev, count);
	return len;
}

static const struct file_operations tb_inject_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= tb_inject_write,
};

static void tb_free_hw(void)
{
	unsigned int i;

	for (i = 0; i < tb_nr_dies; i++)
		kfree(tb_hw[i]);
	tb_nr_dies = 0;
}

static int tb_setup(struct upmu_pmu *upmu)
{
	int i, n = upmu_pmu_set_dies(upmu);

	if (n < 0)
		return n;
	if (n > TB_MAX_DIES)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		struct upmu_box *box = upmu->boxes[i];

		tb_hw[i] = kzalloc_obj(*tb_hw[i]);
		if (!tb_hw[i])
			return -ENOMEM;
		tb_nr_dies = i + 1;
		raw_spin_lock_init(&tb_hw[i]->lock);
		box->own_regs.ops = &tb_regs_ops;
		box->own_regs.ctx = tb_hw[i];
		box->own_regs.atomic64 = true;
		box->priv = tb_hw[i];
	}
	upmu->desc = &tb_desc;
	upmu->num_counters = TB_NR_CTRS;
	upmu->width = TB_WIDTH;
	upmu->widths[TB_NARROW] = TB_NARROW_WIDTH;
	if (strscpy(upmu->name, name, sizeof(upmu->name)) <= 0)
		return -EINVAL;
	strscpy(upmu->identifier, "upmu-testbox", sizeof(upmu->identifier));
	return 0;
}

static int __init tb_init(void)
{
	int ret;

	tb_pdev = platform_device_register_simple("upmu-testpmu",
						  PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(tb_pdev))
		return PTR_ERR(tb_pdev);
	tb_upmu = upmu_pmu_alloc(&tb_pdev->dev);
	if (!tb_upmu) {
		ret = -ENOMEM;
		goto err_pdev;
	}
	ret = tb_setup(tb_upmu);
	if (!ret)
		ret = upmu_pmu_register(tb_upmu);
	if (ret)
		goto err_pmu;
	tb_dir = debugfs_create_dir("upmu_testpmu", NULL);
	debugfs_create_file("inject", 0200, tb_dir, NULL, &tb_inject_fops);
	return 0;

err_pmu:
	upmu_pmu_free(tb_upmu);
	tb_free_hw();
err_pdev:
	platform_device_unregister(tb_pdev);
	return ret;
}

static void __exit tb_exit(void)
{
	debugfs_remove_recursive(tb_dir);
	/* A dead box never touches its registers again. */
	upmu_pmu_unregister(tb_upmu);
	tb_free_hw();
	platform_device_unregister(tb_pdev);
}

module_init(tb_init);
module_exit(tb_exit);

MODULE_DESCRIPTION("upmu: a test-only per-die PMU family (selftests)");
MODULE_LICENSE("GPL");
