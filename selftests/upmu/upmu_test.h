/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the kselftest-harness programs: include after
 * kselftest_harness.h, with SIM_ID defined to the test's device id.
 */
#ifndef __UPMU_TEST_H__
#define __UPMU_TEST_H__

#include "upmu_lib.h"

/* Inject "key=value ..." traffic into the test's simulated device. */
static inline int inject(const char *what)
{
	return sim_ctl(SIM_ID, "inject", "%s", what);
}

/* The count of @fd; a failed read fails the test and returns ~0. */
static inline uint64_t count_of(struct __test_metadata *_metadata, int fd)
{
	uint64_t v = ~0ULL;

	EXPECT_EQ(0, count_read(fd, &v));
	return v;
}

/*
 * A fixture that gives every test a fresh 2-socket simulated device
 * created with @opts, whose PMU @pmu must exist.  The device is deleted
 * in the parent, after the test has exited and its events are closed.
 */
#define SIM_FIXTURE(name, opts, pmu)					\
	FIXTURE(name) {							\
		int dummy;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		sim_del(SIM_ID);					\
		ASSERT_EQ(0, sim_new(SIM_ID, 2, opts));			\
		ASSERT_TRUE(pmu_exists(pmu));				\
	}								\
	FIXTURE_TEARDOWN_PARENT(name)					\
	{								\
		sim_del(SIM_ID);					\
	}

#endif
