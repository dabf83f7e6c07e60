// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 uncore PMUs (CoreSight-architecture models): platform driver.
 *
 * One platform device per PMU register block.  Its platform data (or,
 * on silicon, its firmware node and MEM resource) says which socket and
 * instance it is; the register block says how many counters it has and
 * how wide they are.
 */

#include <linux/bitfield.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include "hw/t410_cspmu.h"
#include "t410.h"
#include "upmu_compat.h"

static int t410_location(struct device *dev, u32 *socket, u32 *instance)
{
	const struct upmu_platdata *pd = dev_get_platdata(dev);

	if (pd) {
		*socket = pd->socket;
		*instance = pd->instance;
		return 0;
	}
	*instance = 0;
	device_property_read_u32(dev, "instance-id", instance);
	return device_property_read_u32(dev, "socket-id", socket);
}

static int t410_cspmu_init(struct platform_device *pdev, struct upmu_pmu *upmu,
			   const struct t410_model *m)
{
	struct device *dev = &pdev->dev;
	u32 socket, instance, cfgr;
	int ret;

	ret = t410_location(dev, &socket, &instance);
	if (ret)
		return dev_err_probe(dev, ret, "no socket id\n");
	ret = upmu_regs_get(pdev, &upmu->regs);
	if (ret)
		return dev_err_probe(dev, ret, "no registers\n");
	ret = upmu_cpus_of_node(upmu, socket);
	if (ret)
		return dev_err_probe(dev, ret, "no CPUs on node %u\n", socket);

	cfgr = upmu_rd32(&upmu->regs, CSPMU_PMCFGR);
	upmu->num_counters = min_t(u32, FIELD_GET(CSPMU_PMCFGR_N, cfgr) + 1,
				   CSPMU_MAX_COUNTERS);
	upmu->width = FIELD_GET(CSPMU_PMCFGR_SIZE, cfgr) + 1;
	if (!(cfgr & CSPMU_PMCFGR_CC) || upmu->width < 32)
		return dev_err_probe(dev, -ENODEV, "unsupported PMCFGR %#x\n", cfgr);

	upmu->desc = &m->desc;
	upmu->priv = (void *)m;
	snprintf(upmu->name, sizeof(upmu->name), m->name_fmt, socket, instance);
	snprintf(upmu->identifier, sizeof(upmu->identifier), "%x",
		 upmu_rd32(&upmu->regs, CSPMU_PMIIDR));

	/* Quiesce: all counters off and cleared. */
	upmu_wr32(&upmu->regs, CSPMU_PMCNTENCLR, U32_MAX);
	upmu_wr32(&upmu->regs, CSPMU_PMOVSCLR, U32_MAX);
	upmu_wr32(&upmu->regs, CSPMU_PMCR, CSPMU_PMCR_P | CSPMU_PMCR_C);

	ret = upmu_pmu_register(upmu);
	if (ret)
		return dev_err_probe(dev, ret, "%s: register failed\n", upmu->name);
	return 0;
}

static int t410_cspmu_probe(struct platform_device *pdev)
{
	const struct t410_model *m =
		(const void *)platform_get_device_id(pdev)->driver_data;
	struct upmu_pmu *upmu;
	int ret;

	upmu = upmu_pmu_alloc(&pdev->dev);
	if (!upmu)
		return -ENOMEM;
	ret = t410_cspmu_init(pdev, upmu, m);
	if (ret) {
		upmu_pmu_free(upmu);
		return ret;
	}
	platform_set_drvdata(pdev, upmu);
	return 0;
}

static void t410_cspmu_remove_dev(struct platform_device *pdev)
{
	upmu_pmu_unregister(platform_get_drvdata(pdev));
}

#if UPMU_REMOVE_VOID
#define t410_cspmu_remove t410_cspmu_remove_dev
#else
static int t410_cspmu_remove(struct platform_device *pdev)
{
	t410_cspmu_remove_dev(pdev);
	return 0;
}
#endif

static const struct platform_device_id t410_cspmu_ids[] = {
	{ "nvidia-t410-ucf-pmu", (kernel_ulong_t)&t410_ucf_model },
	{ }
};
MODULE_DEVICE_TABLE(platform, t410_cspmu_ids);

static struct platform_driver t410_cspmu_driver = {
	.driver = {
		.name = "upmu-t410-cspmu",
		.suppress_bind_attrs = true,
	},
	.id_table = t410_cspmu_ids,
	.probe = t410_cspmu_probe,
	.remove = t410_cspmu_remove,
};
module_platform_driver(t410_cspmu_driver);

MODULE_DESCRIPTION("upmu: NVIDIA Tegra410 uncore PMUs");
MODULE_LICENSE("GPL");
