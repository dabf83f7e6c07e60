// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_sim bus: create and destroy simulated SoCs at runtime,
 * netdevsim-style:
 *
 *   echo "ID NR_SOCKETS [soc=t410|icx] [width=BITS] [counters=N] [clock_mhz=F]
 *	   [clock=manual|realtime] [rcs=N] [c2c=gpu1|gpu2|soc] [blocks=LIST]
 *	   [NIC options] [cha=N]" > /sys/bus/upmu_sim/new_device
 *   echo ID > /sys/bus/upmu_sim/del_device
 *
 * Each socket gets the PMU register blocks of a Tegra410 socket as
 * platform devices; whichever driver binds to them cannot tell them
 * from silicon.  blocks= lists them (ucf,cmem,pcie,tgt,c2c,clink,dlink
 * by default).  soc=icx makes an Ice Lake-X instead (blocks=icx: the IIO,
 * IRP and free-running PMU boxes of its 6 IIO stacks per socket, see
 * sim_icx.c; cha=N, 1-40, its CHAs per socket, 8 by default); a SoC is
 * one or the other.  "nic" adds a ConnectX/BlueField-like NIC (sim_nic.c),
 * e.g. "ID 1 blocks=nic pfs=2 ports=2", shaped by:
 *
 *   pfs=N	physical functions, 1-4 (2): one "upmu-nic-pf" device each
 *   ports=N	physical ports, 1-4 (2), 8 priorities each
 *   links=N	PCIe links, 1-4 (2), 8 tclasses each
 *   hosts=N	hosts, 1-4 (1)
 *   funcs=N	functions with CQE counters, 1-256 (8)
 *   nic_khz=F	device clock in kHz, 1000-4000000 (1000000)
 *   nic_log_samples=N	sample buffer capacity, log2 counter-samples, 1-16 (12)
 *   nic_log_period=N	shortest sample period, log2 clocks, 0-35 (10)
 *   nic_socket=N	the socket (NUMA node) of its PFs, < NR_SOCKETS (0)
 */

#include <linux/completion.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "sim_nic.h"
#include "upmu_compat.h"

static DEFINE_IDA(sim_ids);
static LIST_HEAD(sim_list);
static DEFINE_MUTEX(sim_list_lock);	/* protects sim_list and sim_enabled */
static bool sim_enabled;
/*
 * Devices not yet released, plus one for the module: its exit waits for
 * the last release, which runs this module's code (as netdevsim does).
 */
static refcount_t sim_devs = REFCOUNT_INIT(1);
static DECLARE_COMPLETION(sim_devs_released);

#define to_sim_dev(d) container_of(d, struct sim_dev, dev)

static upmu_bus_type_t sim_bus;

static void sim_dev_release(struct device *dev)
{
	struct sim_dev *sd = to_sim_dev(dev);
	struct sim_flow *f, *tmp;

	irq_work_sync(&sd->ended_work);
	list_for_each_entry_safe(f, tmp, &sd->flows, list)
		sim_flow_free(f);
	kvfree(sd);
	if (refcount_dec_and_test(&sim_devs))
		complete(&sim_devs_released);
}

static const struct device_type sim_dev_type = {
	.name = "upmu_sim_dev",
	.release = sim_dev_release,
};

/**
 * sim_add_pdev() - publish a register block as a platform device
 * @sd: the simulated SoC (parent)
 * @name: platform device name the PMU driver matches
 * @regs: its accessors, window and debugfs name
 * @socket: socket of the block
 * @instance: instance within the socket
 * @props: firmware properties of the device, or NULL
 *
 * The block's regs/ debugfs file appears first; a PMU driver may bind
 * at once.  Return: the device or an ERR_PTR.
 */
struct platform_device *sim_add_pdev(struct sim_dev *sd, const char *name,
				     struct sim_regs *regs, u32 socket,
				     u32 instance,
				     const struct property_entry *props)
{
	struct upmu_platdata pd = {
		.ops = regs->ops,
		.ctx = regs,
		.socket = socket,
		.instance = instance,
	};
	struct platform_device_info info = {
		.parent = &sd->dev,
		.name = name,
		.id = PLATFORM_DEVID_AUTO,
		.data = &pd,
		.size_data = sizeof(pd),
		.properties = props,
	};

	sim_debugfs_add_regs(sd, regs);
	return platform_device_register_full(&info);
}

/**
 * sim_del_pdev() - take back what sim_add_pdev() published
 * @pdev: the device, an ERR_PTR from a failed sim_add_pdev() or NULL;
 *	  NULL afterwards
 */
void sim_del_pdev(struct platform_device **pdev)
{
	if (!IS_ERR_OR_NULL(*pdev))
		platform_device_unregister(*pdev);
	*pdev = NULL;
}

/* ---- the block registry ------------------------------------------------ */

const struct sim_block_type *sim_block_types[SIM_MAX_BLOCK_TYPES];
unsigned int sim_nr_block_types;

/**
 * sim_block_register() - add a block type to the registry
 * @type: the type; it must stay until the module goes
 *
 * Only at module init, before a SoC can be created.
 * Return: 0, or -ENOSPC when SIM_MAX_BLOCK_TYPES are registered.
 */
int sim_block_register(const struct sim_block_type *type)
{
	if (WARN_ON(sim_nr_block_types >= SIM_MAX_BLOCK_TYPES))
		return -ENOSPC;
	sim_block_types[sim_nr_block_types++] = type;
	return 0;
}

static int sim_nic_type_add(struct sim_dev *sd)
{
	return sim_nic_add(sd);
}

/* The ConnectX/BlueField-like NIC (sim_nic.c). */
static const struct sim_block_type sim_nic_type = {
	.name		= "nic",
	.blocks		= BIT(SIM_BLK_NIC),
	.add		= sim_nic_type_add,
	.del		= sim_nic_del,
	.catch_up	= sim_nic_catch_up,
};

/**
 * sim_soc_type() - the type whose hook describes the SoC's topology
 * @sd: the simulated SoC
 * @hook: offsetof() a hook of &struct sim_block_type
 *
 * Return: the first registered type that @sd has and that has the hook,
 * or NULL.
 */
const struct sim_block_type *sim_soc_type(struct sim_dev *sd, size_t hook)
{
	unsigned int i;

	for (i = 0; i < sim_nr_block_types; i++) {
		const struct sim_block_type *type = sim_block_types[i];

		if (sim_has_type(sd, type) &&
		    *(const void * const *)((const u8 *)type + hook))
			return type;
	}
	return NULL;
}

/* The built-in types, in the order their blocks are built. */
static const struct sim_block_type * const sim_builtin_types[] = {
	&sim_ucf_type, &sim_cmem_type, &sim_pcie_type, &sim_c2c_type,
	&sim_icx_type, &sim_nic_type,
};

static void sim_remove(struct device *dev)
{
	struct sim_dev *sd = to_sim_dev(dev);
	unsigned int i;

	for (i = sim_nr_block_types; i-- > 0;)
		sim_block_types[i]->del(sd);
	sim_debugfs_exit(sd);
}

/*
 * Bound to every device on the bus: builds the SoC's blocks, type by
 * type from the registry, and tears them down.
 */
static int sim_probe(struct device *dev)
{
	struct sim_dev *sd = to_sim_dev(dev);
	const struct sim_block_type *type;
	unsigned int i;
	int ret;

	for (i = 0; i < sim_nr_block_types; i++)
		if (sim_block_types[i]->init)
			sim_block_types[i]->init(sd);
	sim_debugfs_init(sd);
	for (i = 0; i < sim_nr_block_types; i++) {
		type = sim_block_types[i];
		if (!sim_has_type(sd, type))
			continue;
		ret = type->add(sd);
		if (ret) {
			dev_err(dev, "%s blocks: %d\n", type->name, ret);
			sim_remove(dev);
			return ret;
		}
	}
	return 0;
}

/* What NVLink-C2C connects: 1 or 2 GPUs per socket, or another SoC. */
static int sim_parse_c2c(struct sim_dev *sd, const char *val)
{
	if (!strcmp(val, "gpu1"))
		sd->nr_gpus = 1;
	else if (!strcmp(val, "gpu2"))
		sd->nr_gpus = 2;
	else if (!strcmp(val, "soc"))
		sd->nr_gpus = 0;
	else
		return -EINVAL;
	return 0;
}

/* The next word of @p, or NULL. */
static char *sim_next_word(char **p)
{
	char *w;

	while ((w = strsep(p, " \t\n")) && !*w)
		;
	return w;
}

static const char * const sim_block_names[SIM_NR_BLKS] = {
	[SIM_BLK_UCF] = "ucf", [SIM_BLK_CMEM] = "cmem", [SIM_BLK_PCIE] = "pcie",
	[SIM_BLK_TGT] = "tgt", [SIM_BLK_C2C] = "c2c", [SIM_BLK_CLINK] = "clink",
	[SIM_BLK_DLINK] = "dlink", [SIM_BLK_NIC] = "nic", [SIM_BLK_ICX] = "icx",
};

/* blocks=ucf,pcie,...: the register blocks to build, at least one. */
static int sim_parse_blocks(struct sim_dev *sd, char *val)
{
	char *name;
	int b;

	sd->blocks = 0;
	while ((name = strsep(&val, ","))) {
		b = match_string(sim_block_names, SIM_NR_BLKS, name);
		if (b < 0)
			return -EINVAL;
		sd->blocks |= BIT(b);
	}
	return 0;
}

/* A NIC option: 1 if @tok is one (parsed into @ret), else 0. */
static int sim_parse_nic_opt(struct sim_dev *sd, const char *tok,
			     const char *val, int *ret)
{
	struct sim_nic_opts *o = &sd->nic_opts;
	static const struct {
		const char *name;
		size_t off;
		u32 min, max;
	} opts[] = {
		{ "pfs", offsetof(struct sim_nic_opts, pfs), 1, NIC_MAX_PFS },
		{ "ports", offsetof(struct sim_nic_opts, ports), 1, NIC_MAX_PORTS },
		{ "links", offsetof(struct sim_nic_opts, links), 1, NIC_MAX_LINKS },
		{ "hosts", offsetof(struct sim_nic_opts, hosts), 1, NIC_MAX_HOSTS },
		{ "funcs", offsetof(struct sim_nic_opts, funcs), 1, NIC_MAX_FUNCS },
		{ "nic_khz", offsetof(struct sim_nic_opts, khz), 1000, 4000000 },
		{ "nic_log_samples", offsetof(struct sim_nic_opts, log_max_samples),
		  1, NIC_MAX_LOG_SAMPLES },
		{ "nic_log_period", offsetof(struct sim_nic_opts, log_min_period),
		  0, NIC_MAX_LOG_PERIOD },
		{ "nic_socket", offsetof(struct sim_nic_opts, socket),
		  0, SIM_MAX_SOCKETS - 1 },
	};
	unsigned int i;
	u32 v;

	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		if (strcmp(tok, opts[i].name))
			continue;
		*ret = kstrtou32(val, 0, &v);
		if (!*ret && (v < opts[i].min || v > opts[i].max))
			*ret = -EINVAL;
		if (!*ret)
			*(u32 *)((u8 *)o + opts[i].off) = v;
		return 1;
	}
	return 0;
}

/* A block type's own option (&sim_block_type.opt): 0, or -EINVAL. */
static int sim_parse_type_opt(struct sim_dev *sd, const char *tok,
			      const char *val)
{
	unsigned int i;
	int ret;

	for (i = 0; i < sim_nr_block_types; i++) {
		if (!sim_block_types[i]->opt)
			continue;
		ret = sim_block_types[i]->opt(sd, tok, val);
		if (ret != -ENOENT)
			return ret;
	}
	return -EINVAL;
}

/* Do the types' options fit the SoC (&sim_block_type.check_opts)? */
static int sim_check_type_opts(struct sim_dev *sd)
{
	unsigned int i;
	int ret;

	for (i = 0; i < sim_nr_block_types; i++) {
		if (!sim_block_types[i]->check_opts)
			continue;
		ret = sim_block_types[i]->check_opts(sd);
		if (ret)
			return ret;
	}
	return 0;
}

/* Options "key=value ..."; anything unknown or out of range is EINVAL. */
static int sim_parse_opts(struct sim_dev *sd, char *opts)
{
	char *tok, *val;
	int ret;

	while ((ret = sim_next_kv(&opts, &tok, &val)) > 0) {
		if (!strcmp(tok, "width"))
			ret = kstrtou32(val, 0, &sd->width);
		else if (!strcmp(tok, "counters"))
			ret = kstrtou32(val, 0, &sd->nr_counters);
		else if (!strcmp(tok, "tear64"))
			ret = kstrtou32(val, 0, &sd->tear64);
		else if (!strcmp(tok, "wr_stall_us"))
			ret = kstrtou32(val, 0, &sd->wr_stall_us);
		else if (!strcmp(tok, "clock_mhz"))
			ret = kstrtou32(val, 0, &sd->clock_mhz);
		else if (!strcmp(tok, "rcs"))
			ret = kstrtou32(val, 0, &sd->nr_rcs);
		else if (!strcmp(tok, "c2c"))
			ret = sim_parse_c2c(sd, val);
		else if (!strcmp(tok, "blocks"))
			ret = sim_parse_blocks(sd, val);
		else if (!strcmp(tok, "soc"))
			ret = !strcmp(val, "icx") ? (sd->blocks = BIT(SIM_BLK_ICX), 0) :
			      !strcmp(val, "t410") ? 0 : -EINVAL;
		else if (!strcmp(tok, "clock"))
			ret = !strcmp(val, "manual") ? (sd->manual = true, 0) :
			      !strcmp(val, "realtime") ? 0 : -EINVAL;
		else if (!sim_parse_nic_opt(sd, tok, val, &ret))
			ret = sim_parse_type_opt(sd, tok, val);
		if (ret)
			return -EINVAL;
	}
	if (ret)
		return ret;
	ret = sim_check_type_opts(sd);
	if (ret)
		return ret;
	if (sd->width < SIM_MIN_WIDTH || sd->width > 64 || !sd->nr_counters ||
	    sd->nr_counters > 31 || sd->tear64 > BIT(31) ||
	    sd->wr_stall_us > SIM_MAX_WR_STALL_US ||
	    !sd->clock_mhz || sd->clock_mhz > T410_MAX_CLOCK_MHZ ||
	    sd->nr_rcs > SIM_PCIE_NR_RC)
		return -EINVAL;
	/* Tegra410 or Ice Lake-X, not both. */
	if (sim_has(sd, SIM_BLK_ICX) && (sd->blocks & SIM_T410_BLKS))
		return -EINVAL;
	return 0;
}

static ssize_t new_device_store(upmu_bus_type_t *bus,
				const char *buf, size_t count)
{
	char *opts, *p, *w_id, *w_nr;
	u32 id, nr_sockets;
	struct sim_dev *sd;
	int ret;

	if (count > 256)
		return -E2BIG;
	opts = kstrndup(buf, count, GFP_KERNEL);
	if (!opts)
		return -ENOMEM;
	p = opts;
	w_id = sim_next_word(&p);
	w_nr = sim_next_word(&p);
	if (!w_id || !w_nr || kstrtou32(w_id, 10, &id) ||
	    kstrtou32(w_nr, 10, &nr_sockets) || id > INT_MAX || !nr_sockets ||
	    nr_sockets > SIM_MAX_SOCKETS) {
		pr_err("upmu_sim: format is \"ID NR_SOCKETS [soc=t410|icx] [width=BITS] [counters=N] [clock_mhz=F] [clock=manual|realtime] [rcs=N] [c2c=gpu1|gpu2|soc] [blocks=LIST] [pfs=N] [ports=N] [links=N] [hosts=N] [funcs=N] [nic_khz=F] [nic_log_samples=N] [nic_log_period=N] [nic_socket=N] [cha=N]\", 0 <= ID <= %d, 1 <= NR_SOCKETS <= %d\n",
		       INT_MAX, SIM_MAX_SOCKETS);
		kfree(opts);
		return -EINVAL;
	}

	sd = kvzalloc(sizeof(*sd), GFP_KERNEL);	/* some 40 KiB of register state */
	if (!sd) {
		kfree(opts);
		return -ENOMEM;
	}
	sd->nr_sockets = nr_sockets;
	sd->width = 48;
	sd->nr_counters = 8;
	sd->clock_mhz = 1000;
	sd->nr_rcs = SIM_PCIE_NR_RC;
	sd->nr_gpus = 2;
	sd->blocks = SIM_DEF_BLKS;
	sd->nic_opts = (struct sim_nic_opts){
		.pfs = 2, .ports = 2, .links = 2, .hosts = 1, .funcs = 8,
		.khz = NIC_DEF_KHZ, .log_max_samples = NIC_DEF_LOG_MAX_SAMPLES,
		.log_min_period = NIC_DEF_LOG_MIN_PERIOD,
	};
	raw_spin_lock_init(&sd->lock);
	seqcount_raw_spinlock_init(&sd->seq, &sd->lock);
	sd->owner = -1;
	init_irq_work(&sd->ended_work, sim_ended_report);
	INIT_LIST_HEAD(&sd->flows);

	ret = p ? sim_parse_opts(sd, p) : 0;
	kfree(opts);
	if (ret) {
		kvfree(sd);
		return ret;
	}
	sd->rt_anchor = sim_clock_ns();

	mutex_lock(&sim_list_lock);
	if (!sim_enabled) {
		ret = -EBUSY;
		goto err_unlock;
	}
	ret = ida_alloc_range(&sim_ids, id, id, GFP_KERNEL);
	if (ret < 0)
		goto err_unlock;
	sd->dev.id = id;
	sd->dev.bus = &sim_bus;
	sd->dev.type = &sim_dev_type;
	dev_set_name(&sd->dev, "upmu_sim%u", id);
	refcount_inc(&sim_devs);	/* dropped by sim_dev_release() */
	ret = device_register(&sd->dev);
	if (ret) {
		ida_free(&sim_ids, id);
		put_device(&sd->dev);
		mutex_unlock(&sim_list_lock);
		return ret;
	}
	if (!sd->dev.driver) {
		/* probe failed: the SoC could not be built */
		device_unregister(&sd->dev);
		ida_free(&sim_ids, id);
		mutex_unlock(&sim_list_lock);
		return -ENODEV;
	}
	list_add_tail(&sd->list, &sim_list);
	mutex_unlock(&sim_list_lock);
	return count;

err_unlock:
	mutex_unlock(&sim_list_lock);
	kvfree(sd);
	return ret == -ENOSPC ? -EEXIST : ret;
}
static BUS_ATTR_WO(new_device);

static void sim_dev_del(struct sim_dev *sd)
{
	unsigned int id = sd->dev.id;

	list_del(&sd->list);
	device_unregister(&sd->dev);
	ida_free(&sim_ids, id);
}

static ssize_t del_device_store(upmu_bus_type_t *bus,
				const char *buf, size_t count)
{
	struct sim_dev *sd;
	unsigned int id;
	int ret = -ENOENT;

	if (kstrtouint(buf, 0, &id))
		return -EINVAL;

	mutex_lock(&sim_list_lock);
	list_for_each_entry(sd, &sim_list, list) {
		if (sd->dev.id == id) {
			sim_dev_del(sd);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&sim_list_lock);
	return ret ?: count;
}
static BUS_ATTR_WO(del_device);

static struct attribute *sim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(sim_bus);

static upmu_bus_type_t sim_bus = {
	.name		= "upmu_sim",
	.dev_name	= "upmu_sim",
	.bus_groups	= sim_bus_groups,
	.probe		= sim_probe,
	.remove		= sim_remove,
};

static struct device_driver sim_driver = {
	.name	= "upmu_sim",
	.bus	= &sim_bus,
	.owner	= THIS_MODULE,
	.suppress_bind_attrs = true,
};

static int __init sim_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sim_builtin_types); i++) {
		ret = sim_block_register(sim_builtin_types[i]);
		if (ret)
			return ret;
	}
	sim_debugfs_module_init();
	ret = bus_register(&sim_bus);
	if (ret)
		goto err_debugfs;
	ret = driver_register(&sim_driver);
	if (ret)
		goto err_bus;
	mutex_lock(&sim_list_lock);
	sim_enabled = true;
	mutex_unlock(&sim_list_lock);
	return 0;

err_bus:
	bus_unregister(&sim_bus);
err_debugfs:
	sim_debugfs_module_exit();
	return ret;
}

static void __exit sim_exit(void)
{
	struct sim_dev *sd, *tmp;

	mutex_lock(&sim_list_lock);
	sim_enabled = false;
	list_for_each_entry_safe(sd, tmp, &sim_list, list)
		sim_dev_del(sd);
	mutex_unlock(&sim_list_lock);

	/* Someone may still hold a device; its release is our code. */
	if (refcount_dec_and_test(&sim_devs))
		complete(&sim_devs_released);
	wait_for_completion(&sim_devs_released);

	driver_unregister(&sim_driver);
	bus_unregister(&sim_bus);
	sim_debugfs_module_exit();
	ida_destroy(&sim_ids);
}

module_init(sim_init);
module_exit(sim_exit);

MODULE_DESCRIPTION("upmu: simulated uncore PMU hardware");
MODULE_LICENSE("GPL");
