/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the kselftest-harness programs: include after
 * kselftest_harness.h, with SIM_ID defined to the test's device id.
 */
#ifndef __UPMU_TEST_H__
#define __UPMU_TEST_H__

#include "upmu_lib.h"

/*
 * Every test's time limit (kselftest_harness.h's TEST_TIMEOUT_DEFAULT,
 * redefined here: it is used where TEST_F() and TEST() expand, below
 * this).  The limit covers the fixture's setup and teardown too, and a
 * fixture that builds a whole 2-socket SoC (34 PMUs) needs seconds of
 * it on the debug kernel under TCG, more on a loaded machine.  The limit
 * only catches a test that hangs: the test's own checks never depend on
 * how long anything takes.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	120

/*
 * What every fixture does first and last: CPUs that a test (CPU
 * hotplug) took offline and did not bring back, because an assertion
 * stopped it or the harness killed it, come back online, so that one
 * failure does not make the next tests fail too.  A custom fixture calls
 * these from its FIXTURE_SETUP() and FIXTURE_TEARDOWN_PARENT().  The
 * teardown runs after a failed assertion; a test the harness killed on
 * its timeout gets no teardown, and the next test's setup does it.
 */
static inline void upmu_fixture_setup(struct __test_metadata *_metadata)
{
	int n = cpus_restore_online();

	ASSERT_LE(0, n) TH_LOG("cannot bring the CPUs back online");
	if (n)
		TH_LOG("%d CPU(s) left offline by an earlier test, now online", n);
}

/* A test that left CPUs offline fails, even if nothing else did. */
static inline void upmu_fixture_teardown(struct __test_metadata *_metadata)
{
	EXPECT_EQ(0, cpus_restore_online())
		TH_LOG("the test left CPUs offline (now back online) or they cannot come back");
}

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
 * Before 6.15 a deleted device's PMU stays registered until its last
 * event is freed, which can come after the test: an event a BPF map
 * held is released from an RCU callback and a work.  The new device
 * waits for it (its PMU would not register under a taken name).
 * CPUs are back online before and after each test (upmu_fixture_*()).
 */
#define SIM_FIXTURE(name, opts, pmu)					\
	FIXTURE(name) {							\
		int dummy;						\
	};								\
	FIXTURE_SETUP(name)						\
	{								\
		upmu_fixture_setup(_metadata);				\
		sim_del(SIM_ID);					\
		ASSERT_TRUE(pmu_gone_within(pmu, 10000))		\
			TH_LOG("%s: events of an earlier test still open", pmu); \
		ASSERT_EQ(0, sim_new(SIM_ID, 2, opts));			\
		ASSERT_TRUE(pmu_exists(pmu));				\
	}								\
	FIXTURE_TEARDOWN_PARENT(name)					\
	{								\
		upmu_fixture_teardown(_metadata);			\
		sim_del(SIM_ID);					\
	}

#endif
