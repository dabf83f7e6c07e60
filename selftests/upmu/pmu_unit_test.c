// SPDX-License-Identifier: GPL-2.0
/*
 * tools/lib/upmu_pmu.c (how the tools and tests turn "event,term=val"
 * into a perf_event_attr through sysfs, as perf does) on fake PMU trees
 * (UPMU_PMU_DEVICES), well-formed and malformed: host, ASan/UBSan.
 * Every error is an error (-EINVAL, -ENOENT, -ERANGE, -ENODEV, or -1 for
 * a CPU), never a silent 0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "upmu_pmu.h"

static char root[] = "/tmp/upmu-pmu-unit.XXXXXX";

/* <root>/<pmu>/<file> = @val (directories made on the way) */
static void put(const char *pmu, const char *file, const char *val)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", root, pmu, file);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "%s\n", val);
	fclose(f);
}

/* A PMU shaped like upstream's uncore ones, and one with broken files. */
static void tree(void)
{
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	setenv("UPMU_PMU_DEVICES", root, 1);
	put("good", "type", "42");
	put("good", "cpumask", "2-3");
	put("good", "format/event", "config:0-7");
	put("good", "format/umask", "config:8-15");
	put("good", "format/split", "config:16-17,20-21");
	put("good", "format/wide", "config1:0-63");
	put("good", "format/bit", "config2:5");
	put("good", "events/rd", "event=0x10,umask=0x3");
	put("good", "events/need", "event=0x11,umask=?");
	put("good", "events/bad_value", "event=0x1x");

	put("bad", "type", "4x2");
	put("bad", "cpumask", "cpu0");
	put("bad2", "type", "7");
	put("bad2", "cpumask", "");
	put("bad2", "format/wide", "config:0-63,64");
	put("bad2", "format/past", "config:60-70");
	put("bad2", "format/reversed", "config:9-3");
	put("bad2", "format/word", "config7:0-3");
	put("bad2", "format/nobits", "config:");
	put("bad2", "format/junk", "config:0-3x");
	put("bad2", "format/neg", "config:-1");
	put("bad2", "format/big", "config:99999999999999999999");
	put("list", "type", "8");
	put("list", "cpumask", "5,9");
}

FIXTURE(pmu) {
	struct perf_event_attr attr;
};

FIXTURE_SETUP(pmu)
{
	memset(&self->attr, 0, sizeof(self->attr));
}

FIXTURE_TEARDOWN(pmu)
{
}

TEST_F(pmu, terms_and_events)
{
	ASSERT_EQ(0, pmu_attr("good", "rd", &self->attr));
	EXPECT_EQ(42U, self->attr.type);
	EXPECT_EQ(0x0310ULL, self->attr.config);
	/* a later term replaces the event's bits, as in perf */
	ASSERT_EQ(0, pmu_attr("good", "rd,umask=0x4", &self->attr));
	EXPECT_EQ(0x0410ULL, self->attr.config);
	/* split fields, a 64-bit field, a one-bit field */
	ASSERT_EQ(0, pmu_attr("good", "split=0xf,wide=0xffffffffffffffff,bit=1", &self->attr));
	EXPECT_EQ(0x330000ULL, self->attr.config);
	EXPECT_EQ(~0ULL, self->attr.config1);
	EXPECT_EQ(0x20ULL, self->attr.config2);
	/* octal and decimal as perf reads them */
	ASSERT_EQ(0, pmu_attr("good", "event=010,umask=10", &self->attr));
	EXPECT_EQ(0x0a08ULL, self->attr.config);
	/* "umask=?" given */
	ASSERT_EQ(0, pmu_attr("good", "need,umask=2", &self->attr));
	EXPECT_EQ(0x0211ULL, self->attr.config);
}

TEST_F(pmu, bad_values)
{
	EXPECT_EQ(-EINVAL, pmu_attr("good", "event=oops", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "event=", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "event=-1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "event= 1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "event=0x10k", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "wide=0x10000000000000000", &self->attr));
	EXPECT_EQ(-ERANGE, pmu_attr("good", "event=0x100", &self->attr));
	EXPECT_EQ(-ERANGE, pmu_attr("good", "split=0x10", &self->attr));
	EXPECT_EQ(-ERANGE, pmu_attr("good", "bit=2", &self->attr));
	/* a "?" the user does not give, or gives as "?" */
	EXPECT_EQ(-EINVAL, pmu_attr("good", "need", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "need,umask=?", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "event=?", &self->attr));
	/* an event whose own value is no number */
	EXPECT_EQ(-EINVAL, pmu_attr("good", "bad_value", &self->attr));
	/* no such event, format or PMU; no path out of the PMU's directory */
	EXPECT_EQ(-ENOENT, pmu_attr("good", "nosuch", &self->attr));
	EXPECT_EQ(-ENOENT, pmu_attr("good", "nosuch=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("good", "../bad2/format/wide=1", &self->attr));
	EXPECT_EQ(-ENOENT, pmu_attr("good", "../good/events/rd", &self->attr));
	EXPECT_EQ(-ENODEV, pmu_attr("nosuch", "event=1", &self->attr));
}

TEST_F(pmu, bad_trees)
{
	/* a type that is not a number */
	EXPECT_EQ(-ENODEV, pmu_attr("bad", "event=1", &self->attr));
	/* formats perf would not parse */
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "wide=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "past=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "reversed=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "word=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "nobits=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "junk=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "neg=1", &self->attr));
	EXPECT_EQ(-EINVAL, pmu_attr("bad2", "big=1", &self->attr));
}

TEST(cpumask)
{
	EXPECT_EQ(2, pmu_cpu("good"));
	EXPECT_EQ(5, pmu_cpu("list"));
	EXPECT_EQ(-1, pmu_cpu("bad"));
	EXPECT_EQ(-1, pmu_cpu("bad2"));
	EXPECT_EQ(-1, pmu_cpu("nosuch"));
}

/* cpulist_parse(): perf's -C lists and sysfs cpumasks, and nothing else */
TEST(cpulist)
{
	static const char bad[][32] = {
		"", "\n", ",", "1,", ",1", "1,,2", "3-1", "1-", "-1", "a", "1a",
		"1 2", "1\n\n", "1-2-3", "0-1024", "1024", "99999999999999999999999",
	};
	cpu_set_t set;
	unsigned int i;

	ASSERT_EQ(0, cpulist_parse("0-3,8,10-11\n", &set));
	EXPECT_EQ(7, CPU_COUNT(&set));
	EXPECT_TRUE(CPU_ISSET(0, &set) && CPU_ISSET(3, &set) && CPU_ISSET(8, &set) &&
		    CPU_ISSET(11, &set) && !CPU_ISSET(4, &set) && !CPU_ISSET(9, &set));
	ASSERT_EQ(0, cpulist_parse("1023", &set));
	EXPECT_EQ(1, CPU_COUNT(&set));
	EXPECT_TRUE(CPU_ISSET(1023, &set));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-1, cpulist_parse(bad[i], &set)) TH_LOG("\"%s\"", bad[i]);
	/* a PMU's cpumask */
	ASSERT_EQ(0, pmu_cpus("good", &set));
	EXPECT_EQ(2, CPU_COUNT(&set));
	EXPECT_TRUE(CPU_ISSET(2, &set) && CPU_ISSET(3, &set));
	ASSERT_EQ(0, pmu_cpus("list", &set));
	EXPECT_TRUE(CPU_COUNT(&set) == 2 && CPU_ISSET(5, &set) && CPU_ISSET(9, &set));
	EXPECT_EQ(-1, pmu_cpus("bad", &set));
	EXPECT_EQ(-1, pmu_cpus("bad2", &set));
	EXPECT_EQ(-1, pmu_cpus("nosuch", &set));
}

int main(int argc, char **argv)
{
	int ret;

	tree();
	ret = test_harness_run(argc, argv);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return ret;
}
