/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the Ice Lake-X programs (icx_test, icx_mem_test): include
 * after upmu_test.h.  Their fixture: upmu_icx loaded and a 2-socket
 * Ice Lake-X on the manual clock (device SIM_ID), gone again after.
 */
#ifndef __ICX_TEST_H__
#define __ICX_TEST_H__

#include <stdio.h>
#include <string.h>

/*
 * Is this CPU an Ice Lake-X (GenuineIntel, family 6, model 0x6a or 0x6c),
 * as vm.sh --cpu-model icx makes the guest's?
 */
static inline bool cpu_is_icx(void)
{
	unsigned int family = 0, model = 0;
	bool intel = false;
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f) && strncmp(line, "flags", 5)) {
		intel |= !strncmp(line, "vendor_id", 9) && strstr(line, "GenuineIntel");
		sscanf(line, "cpu family : %u", &family);
		sscanf(line, "model : %u", &model);
	}
	fclose(f);
	return intel && family == 6 && (model == 0x6a || model == 0x6c);
}

/*
 * perf's Ice Lake-X tables: on an Ice Lake-X perf finds them from the CPU
 * (make check's debug guests are one), elsewhere PERF_CPUID names one.
 */
#define ICX_CPUID	(cpu_is_icx() ? "" : "PERF_CPUID=GenuineIntel-6-6A-0")

static inline void icx_fixture_setup(struct __test_metadata *_metadata,
				     const char *last_pmu)
{
	upmu_fixture_setup(_metadata);
	ASSERT_EQ(0, mod_load("upmu_icx")) TH_LOG("cannot load upmu_icx from $UPMU_MODDIR");
	sim_del(SIM_ID);
	ASSERT_EQ(0, sim_new(SIM_ID, 2, "soc=icx clock=manual"));
	ASSERT_TRUE(pmu_exists(last_pmu));
}

/* Nothing left behind: later programs unload and load the upmu stack. */
static inline void icx_fixture_teardown(struct __test_metadata *_metadata)
{
	upmu_fixture_teardown(_metadata);
	sim_del(SIM_ID);
	EXPECT_EQ(0, mod_unload_wait("upmu_icx"));
}

/* An event of @pmu on @cpu in group @group; fd or -errno. */
static inline int ev_open(const char *pmu, const char *spec, int cpu, int group)
{
	struct perf_event_attr attr;
	int ret = pmu_attr(pmu, spec, &attr);

	return ret ? ret : perf_open(&attr, -1, cpu, group);
}

static inline void expect_file(struct __test_metadata *_metadata,
			       const char *pmu, const char *file,
			       const char *want)
{
	char buf[256];

	ASSERT_EQ(0, pmu_read(pmu, file, buf, sizeof(buf))) TH_LOG("%s/%s", pmu, file);
	EXPECT_STREQ(want, buf) TH_LOG("%s/%s", pmu, file);
}

/* Open @specs as one group of @pmu on CPU 0 and close it; 0 or -errno. */
static inline int group_of(const char *pmu, const char * const *specs,
			   unsigned int n)
{
	unsigned int i;
	int fds[8], ret = 0;

	if (n > 8)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		fds[i] = ev_open(pmu, specs[i], 0, i ? fds[0] : -1);
		if (fds[i] < 0) {
			ret = fds[i];
			break;
		}
	}
	while (i-- > 0)
		close(fds[i]);
	return ret;
}

#endif
