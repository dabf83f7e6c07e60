// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs control of a simulated device: traffic injection, continuous
 * flows and the sim clock.  /sys/kernel/debug/upmu_sim/<id>/:
 *
 *   inject   w  "socket=0 op=rd size=64 count=1000 src=loc_cpu dst=loc_cmem hit=0 lat=100"
 *		 (and rc=, rp=, bdf= for PCIe initiators, gpu= for GPUs;
 *		 stack=, part=, to_stack=, to_part= are rc=, rp=, to_rc=,
 *		 to_rp= by Ice Lake-X's names; code=1, Ice Lake-X only: a
 *		 CPU's read fetches code; tid=N, Ice Lake-X only: a CPU's
 *		 access comes from thread N, for the CHA's filter0;
 *		 mem=ddr|pmm, Ice Lake-X only: the memory is DRAM, the
 *		 default, or persistent memory)
 *   flows    rw "add id=1 rate=<txn/s> <txn keys>" | "stop id=1" | "del id=1" | "clear"
 *		 read: one line per flow with the transactions delivered so far
 *   clock    rw "realtime" | "manual"
 *   advance  w  nanoseconds to add to sim time (manual clock only)
 *   now_ns   r  current sim time
 *   cycles   r  fabric cycles since sim time 0
 *   regs/<block>  rw  the register block through the driver's accessors:
 *		 pread/pwrite of 4 bytes (pread of 8) at offset = register;
 *		 blocks with a copy accessor (the NIC's mailboxes) also take
 *		 longer multiples of 4 bytes, moved in one copy
 *   nic/     the NIC's knobs (blocks=nic): see sim_nic_ids.c, sim_nic_diag.c
 */

#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "sim.h"
#include "upmu_compat.h"

static struct dentry *sim_droot;

static const char * const op_names[SIM_NR_OPS] = {
	[SIM_OP_RD] = "rd", [SIM_OP_WR] = "wr",
	[SIM_OP_ATOMIC] = "atomic", [SIM_OP_DATALESS] = "dataless",
};

static const char * const src_names[SIM_NR_SRCS] = {
	[SIM_SRC_LOC_CPU] = "loc_cpu", [SIM_SRC_LOC_NONCPU] = "loc_noncpu",
	[SIM_SRC_REM] = "rem",
};

static const char * const page_names[SIM_NR_PAGES] = {
	[SIM_PAGE_4K] = "4k", [SIM_PAGE_2M] = "2m", [SIM_PAGE_1G] = "1g",
};

/* mem=: the memory a line of Ice Lake-X's goes to (&sim_txn.pmm) */
static const char * const mem_names[] = { "ddr", "pmm" };

static const char * const dst_names[SIM_NR_DSTS] = {
	[SIM_DST_LOC_CMEM] = "loc_cmem", [SIM_DST_LOC_GMEM] = "loc_gmem",
	[SIM_DST_LOC_OTHER] = "loc_other", [SIM_DST_REM] = "rem",
	[SIM_DST_LOC_P2P] = "loc_p2p",
};

struct sim_req {
	struct sim_txn txn;
	u64 rate;
	u32 id;
	bool has_id;
	bool has_rate;
	bool has_src;
	bool has_rp;
	bool has_bdf;
	bool has_to_rp;
	bool has_gpu;
	bool has_count;
	bool has_iommu;
	bool has_lost_fwd;
	bool has_code;
	bool has_tid;
	bool has_mem;
	unsigned int nr_keys;
};

static int parse_enum(const char *v, const char * const *names, int n, u8 *out)
{
	int i = match_string(names, n, v);

	if (i < 0)
		return -EINVAL;
	*out = i;
	return 0;
}

/**
 * sim_next_kv() - split the next "key=value" word off @buf
 * @buf: cursor into a writable string, advanced past the word
 * @key: set to the key
 * @val: set to the value
 *
 * Return: 1 for a word, 0 at the end, -EINVAL for a word without '='.
 */
int sim_next_kv(char **buf, char **key, char **val)
{
	char *tok;

	while ((tok = strsep(buf, " \t\n")) && !*tok)
		;
	if (!tok)
		return 0;
	*val = strchr(tok, '=');
	if (!*val)
		return -EINVAL;
	*(*val)++ = '\0';
	*key = tok;
	return 1;
}

/*
 * An 8-bit root complex number: 255 (SIM_NO_RC) is not one either.  The
 * range of the device is checked in sim_pcie_resolve().
 */
static int parse_rc(const char *v, u8 *rc)
{
	int ret = kstrtou8(v, 0, rc);

	return ret ?: *rc == SIM_NO_RC ? -EINVAL : 0;
}

/* The SoC's PCIe topology completes the initiator and target of @r. */
static int sim_txn_resolve(struct sim_dev *sd, struct sim_req *r)
{
	const struct sim_block_type *type =
		sim_soc_type(sd, offsetof(struct sim_block_type, resolve));
	u32 has = (r->has_rp ? SIM_HAS_RP : 0) | (r->has_bdf ? SIM_HAS_BDF : 0) |
		  (r->has_to_rp ? SIM_HAS_TO_RP : 0) |
		  (r->has_iommu ? SIM_HAS_IOMMU : 0) |
		  (r->has_lost_fwd ? SIM_HAS_LOST_FWD : 0) |
		  (r->has_code ? SIM_HAS_CODE : 0) |
		  (r->has_tid ? SIM_HAS_TID : 0) |
		  (r->has_mem ? SIM_HAS_MEM : 0);

	if (type)
		return type->resolve(sd, &r->txn, has);
	/* nor IOMMU, snoop-conflict, code-read, TID or PMM model on a Tegra410 */
	if (r->has_iommu || r->has_lost_fwd || r->has_code || r->has_tid ||
	    r->has_mem)
		return -EINVAL;
	return sim_pcie_resolve(sd, &r->txn, r->has_rp, r->has_bdf, r->has_to_rp);
}

/*
 * Parse "key=value ..." into @r.  Unknown keys, and values that do not
 * fit, are EINVAL.
 */
static int sim_parse(struct sim_dev *sd, char *buf, struct sim_req *r)
{
	char *tok, *val;
	int ret;

	r->txn = (struct sim_txn){ .op = SIM_OP_RD, .size = 64, .count = 1,
				   .rc = SIM_NO_RC, .to_rc = SIM_NO_RC, .walk = 4 };

	while ((ret = sim_next_kv(&buf, &tok, &val)) > 0) {
		if (!strcmp(tok, "socket"))
			ret = kstrtou32(val, 0, &r->txn.socket);
		else if (!strcmp(tok, "op"))
			ret = parse_enum(val, op_names, SIM_NR_OPS, &r->txn.op);
		else if (!strcmp(tok, "src"))
			ret = parse_enum(val, src_names, SIM_NR_SRCS, &r->txn.src),
			r->has_src = true;
		else if (!strcmp(tok, "dst") && !strcmp(val, "loc_cxl"))
			r->txn.dst = SIM_DST_LOC_OTHER, ret = 0;
		else if (!strcmp(tok, "dst"))
			ret = parse_enum(val, dst_names, SIM_NR_DSTS, &r->txn.dst);
		else if (!strcmp(tok, "rc") || !strcmp(tok, "stack"))
			ret = parse_rc(val, &r->txn.rc);
		else if (!strcmp(tok, "rp") || !strcmp(tok, "part"))
			ret = kstrtou8(val, 0, &r->txn.rp), r->has_rp = true;
		else if (!strcmp(tok, "bdf"))
			ret = kstrtou16(val, 0, &r->txn.bdf), r->has_bdf = true;
		else if (!strcmp(tok, "to_rc") || !strcmp(tok, "to_stack"))
			ret = parse_rc(val, &r->txn.to_rc);
		else if (!strcmp(tok, "to_rp") || !strcmp(tok, "to_part"))
			ret = kstrtou8(val, 0, &r->txn.to_rp), r->has_to_rp = true;
		else if (!strcmp(tok, "hdm"))
			ret = kstrtou8(val, 0, &r->txn.hdm);
		else if (!strcmp(tok, "addr"))
			ret = kstrtou64(val, 0, &r->txn.addr);
		else if (!strcmp(tok, "gpu"))
			ret = kstrtou8(val, 0, &r->txn.gpu), r->has_gpu = true;
		else if (!strcmp(tok, "hit"))
			ret = kstrtou8(val, 0, &r->txn.hit);
		else if (!strcmp(tok, "iotlb_miss"))
			ret = kstrtou8(val, 0, &r->txn.iotlb_miss), r->has_iommu = true;
		else if (!strcmp(tok, "page"))
			ret = parse_enum(val, page_names, SIM_NR_PAGES, &r->txn.page),
			r->has_iommu = true;
		else if (!strcmp(tok, "walk"))
			ret = kstrtou8(val, 0, &r->txn.walk), r->has_iommu = true;
		else if (!strcmp(tok, "walk_lat"))
			ret = kstrtou32(val, 0, &r->txn.walk_lat_ns), r->has_iommu = true;
		else if (!strcmp(tok, "lost_fwd"))
			ret = kstrtou8(val, 0, &r->txn.lost_fwd), r->has_lost_fwd = true;
		else if (!strcmp(tok, "code"))
			ret = kstrtou8(val, 0, &r->txn.code), r->has_code = true;
		else if (!strcmp(tok, "mem"))
			ret = parse_enum(val, mem_names, ARRAY_SIZE(mem_names),
					 &r->txn.pmm), r->has_mem = true;
		else if (!strcmp(tok, "tid"))
			ret = kstrtou16(val, 0, &r->txn.tid), r->has_tid = true;
		else if (!strcmp(tok, "size"))
			ret = kstrtou32(val, 0, &r->txn.size);
		else if (!strcmp(tok, "lat"))
			ret = kstrtou32(val, 0, &r->txn.lat_ns);
		else if (!strcmp(tok, "count"))
			ret = kstrtou64(val, 0, &r->txn.count), r->has_count = true;
		else if (!strcmp(tok, "rate"))
			ret = kstrtou64(val, 0, &r->rate), r->has_rate = true;
		else if (!strcmp(tok, "id"))
			ret = kstrtou32(val, 0, &r->id), r->has_id = true;
		else
			ret = -EINVAL;
		if (ret)
			return -EINVAL;
		r->nr_keys++;
	}
	if (ret)
		return ret;
	/* count is bounded so that size * count cannot overflow a counter step */
	if (r->txn.socket >= sd->nr_sockets || r->txn.hit > 1 ||
	    r->txn.iotlb_miss > 1 || r->txn.walk > SIM_MAX_WALK || r->txn.code > 1 ||
	    r->txn.tid > 1023 ||
	    !r->txn.size || r->txn.size > 4096 || r->txn.count > SIM_MAX_COUNT)
		return -EINVAL;
	/* A PCIe requester is a local non-CPU source. */
	if (r->txn.rc != SIM_NO_RC && !r->has_src)
		r->txn.src = SIM_SRC_LOC_NONCPU;
	/* gpu= names a GPU of the socket that takes part */
	if (r->has_gpu && (r->txn.gpu >= sd->nr_gpus || !sim_txn_gpu(&r->txn)))
		return -EINVAL;
	return sim_txn_resolve(sd, r);
}

/**
 * sim_user_buf() - a debugfs command written by the user, NUL-terminated
 * @ubuf: what was written
 * @len: its length
 * @max: the longest command the file takes
 *
 * Return: a kmalloc()ed copy, or ERR_PTR(-E2BIG) past @max, or the error
 * of the copy.
 */
char *sim_user_buf(const char __user *ubuf, size_t len, size_t max)
{
	if (len > max)
		return ERR_PTR(-E2BIG);
	return memdup_user_nul(ubuf, len);
}

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	struct sim_dev *sd = file->private_data;
	struct sim_req r = {};
	unsigned long flags;
	char *buf;
	int ret;

	buf = sim_user_buf(ubuf, len, SIM_CMD_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = sim_parse(sd, buf, &r);
	kfree(buf);
	if (ret)
		return ret;
	/* Nothing said is no transaction. */
	if (r.has_rate || r.has_id || !r.nr_keys)
		return -EINVAL;
	ret = sim_txn_check(sd, &r.txn);
	if (ret)
		return ret;

	flags = sim_lock(sd);
	sim_inject(sd, &r.txn);
	sim_unlock(sd, flags);
	return len;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_write,
};

static struct sim_flow *flow_find(struct sim_dev *sd, u32 id)
{
	struct sim_flow *f;

	list_for_each_entry(f, &sd->flows, list)
		if (f->id == id)
			return f;
	return NULL;
}

static int flows_cmd(struct sim_dev *sd, char *cmd, char *args)
{
	struct sim_flow *f, *tmp, *nf = NULL;
	struct sim_req r = {};
	unsigned long flags;
	unsigned int i;
	int ret;

	if (!strcmp(cmd, "clear")) {
		LIST_HEAD(gone);

		flags = sim_lock(sd);
		sim_catch_up(sd, sim_now(sd));
		list_for_each_entry(f, &sd->flows, list) {
			sim_flow_load(sd, f, false);
			sim_flow_link(sd, f, false);
		}
		list_splice_init(&sd->flows, &gone);
		sd->nr_flows = 0;
		sim_unlock(sd, flags);
		list_for_each_entry_safe(f, tmp, &gone, list)
			sim_flow_free(f);
		return 0;
	}

	ret = sim_parse(sd, args, &r);
	if (ret)
		return ret;
	/* A flow has a rate, not a count. */
	if (!r.has_id || r.has_count)
		return -EINVAL;

	if (!strcmp(cmd, "add")) {
		if (!r.has_rate || r.rate > U32_MAX)
			return -EINVAL;
		nf = kzalloc_obj(*nf);
		if (!nf)
			return -ENOMEM;
		nf->id = r.id;
		nf->txn = r.txn;
		nf->txn.lat_cycles = sim_cycles_at(sd, r.txn.lat_ns);
		nf->txn.flow = 1;
		nf->rate = r.rate;
		nf->nr_units = sim_txn_units(sd, &nf->txn, nf->units);
		ret = sim_flow_plans(nf);
		if (ret) {
			sim_flow_free(nf);
			return ret;
		}
	} else if (strcmp(cmd, "stop") && strcmp(cmd, "del")) {
		return -EINVAL;
	}

	flags = sim_lock(sd);
	f = flow_find(sd, r.id);
	if (nf) {
		if (f)
			ret = -EEXIST;
		else if (sd->nr_flows >= SIM_MAX_FLOWS)
			ret = -ENOSPC;
		else
			ret = sim_flow_load(sd, nf, true);
		if (!ret) {
			nf->start_ns = sim_now(sd);
			list_add_tail(&nf->list, &sd->flows);
			sim_flow_link(sd, nf, true);
			sd->nr_flows++;
			nf = NULL;
		}
	} else if (!f) {
		ret = -ENOENT;
	} else if (!strcmp(cmd, "stop")) {
		if (!f->stopped) {
			sim_flow_load(sd, f, false);
			f->stopped = true;
			f->stop_ns = sim_now(sd);
		}
	} else {
		/* Its blocks count what it delivered before it goes. */
		for (i = 0; i < f->nr_units; i++)
			sim_unit_catch_up(sd, f->units[i], sim_now(sd));
		sim_flow_load(sd, f, false);
		sim_flow_link(sd, f, false);
		list_del(&f->list);
		sd->nr_flows--;
		nf = f;		/* freed below, outside the lock */
	}
	sim_unlock(sd, flags);
	sim_flow_free(nf);
	return ret;
}

static ssize_t flows_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct sim_dev *sd = file_inode(file)->i_private;
	char *buf, *args, *cmd;
	int ret;

	buf = sim_user_buf(ubuf, len, SIM_CMD_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	args = strim(buf);
	cmd = strsep(&args, " \t");
	ret = flows_cmd(sd, cmd, args ?: "");
	kfree(buf);
	return ret ?: len;
}

static int flows_show(struct seq_file *m, void *v)
{
	struct sim_dev *sd = m->private;
	struct sim_flow *f;
	unsigned long flags;
	u64 now;

	/* Print under the lock: lines are short and the list is bounded. */
	flags = sim_lock(sd);
	now = sim_now(sd);
	list_for_each_entry(f, &sd->flows, list) {
		u64 done = sim_flow_due(f, now);

		seq_printf(m, "id=%u socket=%u op=%s size=%u src=%s dst=%s hit=%u lat=%u rate=%llu txns=%llu bytes=%llu",
			   f->id, f->txn.socket, op_names[f->txn.op], f->txn.size,
			   src_names[f->txn.src], dst_names[f->txn.dst], f->txn.hit,
			   f->txn.lat_ns, f->stopped ? 0 : f->rate, done,
			   done * f->txn.size);
		if (f->txn.rc != SIM_NO_RC)
			seq_printf(m, " rc=%u rp=%u bdf=0x%04x", f->txn.rc,
				   f->txn.rp, f->txn.bdf);
		if (f->txn.to_rc != SIM_NO_RC)
			seq_printf(m, " to_rc=%u to_rp=%u hdm=%u addr=%#llx",
				   f->txn.to_rc, f->txn.to_rp, f->txn.hdm,
				   f->txn.addr);
		if (sd->nr_gpus && sim_txn_gpu(&f->txn))
			seq_printf(m, " gpu=%u", f->txn.gpu);
		seq_putc(m, '\n');
	}
	sim_unlock(sd, flags);
	return 0;
}

static int flows_open(struct inode *inode, struct file *file)
{
	return single_open(file, flows_show, inode->i_private);
}

static const struct file_operations flows_fops = {
	.owner = THIS_MODULE,
	.open = flows_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = flows_write,
};

static ssize_t clock_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	struct sim_dev *sd = file->private_data;
	const char *s = READ_ONCE(sd->manual) ? "manual\n" : "realtime\n";

	return simple_read_from_buffer(ubuf, len, ppos, s, strlen(s));
}

static ssize_t clock_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct sim_dev *sd = file->private_data;
	unsigned long flags;
	bool manual;
	char *buf;
	int ret = 0;

	buf = sim_user_buf(ubuf, len, SIM_CMD_MAX);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (sysfs_streq(buf, "manual"))
		manual = true;
	else if (sysfs_streq(buf, "realtime"))
		manual = false;
	else
		ret = -EINVAL;
	kfree(buf);
	if (ret)
		return ret;

	/* Blocks catch up lazily: sim time just goes on, at another pace. */
	flags = sim_lock(sd);
	sd->vnow = sim_now(sd);
	sd->rt_anchor = sim_clock_ns();
	sd->manual = manual;
	sim_unlock(sd, flags);
	return len;
}

static const struct file_operations clock_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = clock_read,
	.write = clock_write,
};

static int advance_set(void *data, u64 ns)
{
	struct sim_dev *sd = data;
	unsigned long flags;
	int ret = 0;

	flags = sim_lock(sd);
	if (!sd->manual)
		ret = -EINVAL;
	else
		ret = sim_advance_check(sd, ns);
	if (!ret)
		sd->vnow += ns;	/* blocks catch up when next accessed */
	sim_unlock(sd, flags);
	return ret;
}
DEFINE_DEBUGFS_ATTRIBUTE(advance_fops, NULL, advance_set, "%llu\n");

static int now_get(void *data, u64 *val)
{
	struct sim_dev *sd = data;
	unsigned long flags;

	flags = sim_lock(sd);
	*val = sim_now(sd);
	sim_unlock(sd, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(now_fops, now_get, NULL, "%llu\n");

static int cycles_get(void *data, u64 *val)
{
	struct sim_dev *sd = data;
	unsigned long flags;

	flags = sim_lock(sd);
	*val = sim_cycles_at(sd, sim_now(sd));
	sim_unlock(sd, flags);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(cycles_fops, cycles_get, NULL, "%llu\n");

/*
 * What the simulator's register accesses cost it: the blocks brought up
 * to date, the transfers that took the lock (bench/README), and the calls
 * of the accessors (batches of accesses) in all.
 */
static int stats_show(struct seq_file *m, void *unused)
{
	struct sim_dev *sd = m->private;
	u64 catch_ups, locked;
	unsigned long flags;

	flags = sim_lock(sd);
	catch_ups = sd->catch_ups;
	locked = sd->locked_xfers;
	sim_unlock(sd, flags);
	seq_printf(m, "catch_ups=%llu locked_xfers=%llu calls=%lld\n", catch_ups,
		   locked, (long long)atomic64_read(&sd->calls));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int pci_devices_show(struct seq_file *m, void *unused)
{
	const struct sim_block_type *type =
		sim_soc_type(m->private, offsetof(struct sim_block_type, show_devices));

	if (type)
		type->show_devices(m->private, m);
	else
		sim_pcie_show_devices(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pci_devices);

/*
 * regs/<block>: one register access per pread/pwrite, at file offset =
 * register offset, through the same accessors as the driver's.  4-byte
 * reads and writes, 8-byte reads; the value in native byte order.
 */
/* A block copy of @len bytes at @off, to or from the user's buffer. */
static ssize_t regs_copy(struct sim_regs *r, char __user *ubuf, size_t len,
			 loff_t *ppos, bool to_dev)
{
	loff_t off = *ppos;
	ssize_t ret = len;
	void *buf;

	if (len % 4 || off % 4 || off < 0 || off >= r->size ||
	    len > r->size - off)
		return -EINVAL;
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (to_dev && copy_from_user(buf, ubuf, len)) {
		ret = -EFAULT;
		goto out;
	}
	r->ops->copy(r, off, buf, len, to_dev);
	if (!to_dev && copy_to_user(ubuf, buf, len)) {
		ret = -EFAULT;
		goto out;
	}
	*ppos = off + len;
out:
	kvfree(buf);
	return ret;
}

static ssize_t regs_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	struct sim_regs *r = file->private_data;
	struct upmu_reg_xfer x = { .flags = len == 8 ? UPMU_XFER_64 : 0 };
	loff_t off = *ppos;
	u32 v32;
	int ret;

	if (off < 0)
		return -EINVAL;
	if (off >= r->size)
		return 0;
	if (len > 8 && r->ops->copy)
		return regs_copy(r, ubuf, len, ppos, false);
	if ((len != 4 && len != 8) || (off & 3) || off + len > r->size)
		return -EINVAL;
	x.off = off;
	r->ops->xfer(r, &x, 1);
	if (len == 8) {
		ret = copy_to_user(ubuf, &x.val, len);
	} else {
		v32 = x.val;
		ret = copy_to_user(ubuf, &v32, len);
	}
	if (ret)
		return -EFAULT;
	*ppos = off + len;
	return len;
}

static ssize_t regs_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	struct sim_regs *r = file->private_data;
	struct upmu_reg_xfer x = { .flags = UPMU_XFER_WRITE };
	loff_t off = *ppos;
	u32 v32;

	if (len > 4 && r->ops->copy)
		return regs_copy(r, (char __user *)ubuf, len, ppos, true);
	if (len != 4 || (off & 3) || off < 0 || off + len > r->size)
		return -EINVAL;
	if (copy_from_user(&v32, ubuf, len))
		return -EFAULT;
	x.off = off;
	x.val = v32;
	r->ops->xfer(r, &x, 1);
	*ppos = off + len;
	return len;
}

static const struct file_operations regs_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = regs_read,
	.write = regs_write,
	.llseek = default_llseek,
};

/* The regs/ file of a register block (removed with the device's directory). */
void sim_debugfs_add_regs(struct sim_dev *sd, struct sim_regs *regs)
{
	debugfs_create_file_size(regs->name, 0600, sd->regs_dir, regs,
				 &regs_fops, regs->size);
}

void sim_debugfs_init(struct sim_dev *sd)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", sd->dev.id);
	sd->ddir = debugfs_create_dir(name, sim_droot);
	debugfs_create_file("inject", 0200, sd->ddir, sd, &inject_fops);
	debugfs_create_file("pci_devices", 0400, sd->ddir, sd, &pci_devices_fops);
	debugfs_create_file("flows", 0600, sd->ddir, sd, &flows_fops);
	debugfs_create_file("clock", 0600, sd->ddir, sd, &clock_fops);
	debugfs_create_file_unsafe("advance", 0200, sd->ddir, sd, &advance_fops);
	debugfs_create_file_unsafe("now_ns", 0400, sd->ddir, sd, &now_fops);
	debugfs_create_file_unsafe("cycles", 0400, sd->ddir, sd, &cycles_fops);
	debugfs_create_file("stats", 0400, sd->ddir, sd, &stats_fops);
	debugfs_create_u32("clock_mhz", 0400, sd->ddir, &sd->clock_mhz);
	debugfs_create_u32("counter_width", 0400, sd->ddir, &sd->width);
	debugfs_create_u32("nr_sockets", 0400, sd->ddir, &sd->nr_sockets);
	sd->regs_dir = debugfs_create_dir("regs", sd->ddir);
}

void sim_debugfs_exit(struct sim_dev *sd)
{
	debugfs_remove_recursive(sd->ddir);
}

int sim_debugfs_module_init(void)
{
	sim_droot = debugfs_create_dir("upmu_sim", NULL);
	return 0;
}

void sim_debugfs_module_exit(void)
{
	debugfs_remove_recursive(sim_droot);
}
