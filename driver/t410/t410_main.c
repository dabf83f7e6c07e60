// SPDX-License-Identifier: GPL-2.0
/*
 * Tegra410 uncore PMUs: platform driver.
 *
 * One platform device per PMU register block.  Its platform data (or,
 * on silicon, its firmware node and MEM resource) says which socket and
 * instance it is; the model reads the rest from the register block.
 */

#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>

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

static int t410_pmu_init(struct platform_device *pdev, struct upmu_pmu *upmu,
			 const struct t410_model *m)
{
	struct device *dev = &pdev->dev;
	u32 socket, instance;
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

	upmu->desc = &m->desc;
	upmu->priv = (void *)m;
	snprintf(upmu->name, sizeof(upmu->name), m->name_fmt, socket, instance);
	ret = m->probe_hw(upmu);
	if (ret)
		return dev_err_probe(dev, ret, "%s: unsupported hardware\n", upmu->name);

	ret = upmu_pmu_register(upmu);
	if (ret)
		return dev_err_probe(dev, ret, "%s: register failed\n", upmu->name);
	return 0;
}

static int t410_pmu_probe(struct platform_device *pdev)
{
	const struct t410_model *m =
		(const void *)platform_get_device_id(pdev)->driver_data;
	struct upmu_pmu *upmu;
	int ret;

	upmu = upmu_pmu_alloc(&pdev->dev);
	if (!upmu)
		return -ENOMEM;
	ret = t410_pmu_init(pdev, upmu, m);
	if (ret) {
		upmu_pmu_free(upmu);
		return ret;
	}
	platform_set_drvdata(pdev, upmu);
	return 0;
}

static void t410_pmu_remove_dev(struct platform_device *pdev)
{
	upmu_pmu_unregister(platform_get_drvdata(pdev));
}

#if UPMU_REMOVE_VOID
#define t410_pmu_remove t410_pmu_remove_dev
#else
static int t410_pmu_remove(struct platform_device *pdev)
{
	t410_pmu_remove_dev(pdev);
	return 0;
}
#endif

static const struct platform_device_id t410_pmu_ids[] = {
	{ "nvidia-t410-ucf-pmu", (kernel_ulong_t)&t410_ucf_model },
	{ "nvidia-t410-cmem-pmu", (kernel_ulong_t)&t410_cmem_model },
	{ "nvidia-t410-pcie-pmu", (kernel_ulong_t)&t410_pcie_model },
	{ "nvidia-t410-pcie-tgt", (kernel_ulong_t)&t410_pcie_tgt_model },
	{ "nvidia-t410-c2c-pmu", (kernel_ulong_t)&t410_nvlink_c2c_model },
	{ "nvidia-t410-nvclink", (kernel_ulong_t)&t410_nvclink_model },
	{ "nvidia-t410-nvdlink", (kernel_ulong_t)&t410_nvdlink_model },
	{ }
};
MODULE_DEVICE_TABLE(platform, t410_pmu_ids);

static struct platform_driver t410_pmu_driver = {
	.driver = {
		.name = "upmu-t410",
		.suppress_bind_attrs = true,
	},
	.id_table = t410_pmu_ids,
	.probe = t410_pmu_probe,
	.remove = t410_pmu_remove,
};
module_platform_driver(t410_pmu_driver);

MODULE_DESCRIPTION("upmu: NVIDIA Tegra410 uncore PMUs");
MODULE_LICENSE("GPL");
