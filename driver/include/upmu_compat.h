/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences upmu builds across (Linux 6.1 .. 7.x).
 * This is the only file that tests LINUX_VERSION_CODE.
 */
#ifndef __UPMU_COMPAT_H__
#define __UPMU_COMPAT_H__

#include <linux/hrtimer.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/version.h>

/* struct pmu::parent (6.7) */
#define UPMU_HAVE_PMU_PARENT	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0))
/* perf_event_attr::config3 (6.3) */
#define UPMU_HAVE_CONFIG3	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0))
/* perf_event_attr::config4 (the uapi header says so: PERF_ATTR_SIZE_VER9) */
#ifdef PERF_ATTR_SIZE_VER9
#define UPMU_HAVE_CONFIG4	1
#else
#define UPMU_HAVE_CONFIG4	0
#endif
/* perf_pmu_unregister() detaches open events (6.15) */
#define UPMU_PMU_REVOKES	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0))
/* platform_driver::remove returns void (6.11) */
#define UPMU_REMOVE_VOID	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0))

/* system_wq and system_unbound_wq give way to system_dfl_wq (6.17) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define upmu_dfl_wq	system_dfl_wq
#else
#define upmu_dfl_wq	system_unbound_wq
#endif

/* bus_type is const in the driver core (6.4) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
typedef const struct bus_type upmu_bus_type_t;
#else
typedef struct bus_type upmu_bus_type_t;
#endif

#ifndef kvzalloc_obj
#define kvzalloc_obj(P) kvzalloc(sizeof(P), GFP_KERNEL)
#endif
#ifndef kzalloc_obj
#define kzalloc_obj(P) kzalloc(sizeof(P), GFP_KERNEL)
#endif

/*
 * perf_pmu_unregister(): an int since 6.15, when it detaches events; it
 * fails (-EBUSY) when it cannot, and the PMU then stays registered.
 */
static inline int upmu_perf_pmu_unregister(struct pmu *pmu)
{
#if UPMU_PMU_REVOKES
	return perf_pmu_unregister(pmu);
#else
	perf_pmu_unregister(pmu);
	return 0;
#endif
}

#ifdef CONFIG_X86
#include <asm/topology.h>

/* The dies the firmware enumerates (upstream uncore's uncore_max_dies()) */
static inline unsigned int upmu_x86_max_dies(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	return topology_max_packages() * topology_max_dies_per_package();
#else
	return topology_max_packages() * topology_max_die_per_package();
#endif
}
#endif

static inline void upmu_hrtimer_setup(struct hrtimer *t,
				      enum hrtimer_restart (*fn)(struct hrtimer *),
				      clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
	hrtimer_setup(t, fn, clock, mode);
#else
	hrtimer_init(t, clock, mode);
	t->function = fn;
#endif
}

#endif
