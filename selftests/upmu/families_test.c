// SPDX-License-Identifier: GPL-2.0
/*
 * What every Tegra410 PMU of the upmu simulator must do alike, one
 * variant per PMU type (UCF, CMEM latency, PCIE, PCIE-TGT, NVLink-C2C,
 * NV-CLink, NV-DLink), each with a filter that traffic of the same kind
 * must get past and other traffic must not:
 *
 * - CPU hotplug: the owner CPU goes offline, the event moves to the
 *   socket's other CPU with its count and its filter (a shared filter
 *   resource stays claimed), nobody owns the PMU with the socket
 *   offline, and a new event counts exactly afterwards;
 * - removal with open events: what was counted, read or not, is kept;
 *   the PMU goes away (6.15+: at once, the event is revoked; before: when
 *   the last event is closed, and new events get ENODEV until then).
 *
 * Needs upmu_core, upmu_sim and upmu_t410 loaded, 4 CPUs on 2 nodes
 * (socket 1 is CPUs 2 and 3).
 */

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SIM_ID	15

#include "upmu_test.h"

/* Two root complexes per socket: RC 1 has root ports 1-4. */
SIM_FIXTURE(family, "rcs=2", "nvidia_pcie_tgt_pmu_1_rc_1");

/*
 * @pmu: socket 1's instance
 * @event: event and filter terms
 * @counted: injected traffic the event counts @per times
 * @filtered: injected traffic of the same PMU the filter keeps out
 * @busy: an event that cannot be scheduled next to @event (a second
 *	  user of a filter resource it holds), or NULL
 * @busy_err: what opening @busy returns
 */
FIXTURE_VARIANT(family) {
	const char *pmu;
	const char *event;
	const char *counted;
	const char *filtered;
	uint64_t per;
	const char *busy;
	int busy_err;
};

FIXTURE_VARIANT_ADD(family, ucf) {
	.pmu = "nvidia_ucf_pmu_1",
	.event = "slc_access_rd,src_loc_noncpu=1",
	.counted = "socket=1 src=loc_noncpu op=rd count=4",
	.filtered = "socket=1 src=loc_cpu op=rd count=4",
	.per = 4,
};

/* 64-byte reads are two 32-byte CMEM requests */
FIXTURE_VARIANT_ADD(family, cmem) {
	.pmu = "nvidia_cmem_latency_pmu_1",
	.event = "rd_req",
	.counted = "socket=1 op=rd size=64 count=4",
	.filtered = "socket=1 op=rd hit=1 count=4",
	.per = 8,
};

/* RC 1's endpoints: 81:00.0 below port 1, a1:00.0 below port 2 */
FIXTURE_VARIANT_ADD(family, pcie) {
	.pmu = "nvidia_pcie_pmu_1_rc_1",
	.event = "rd_req,src_bdf=0x8100,src_bdf_en=1",
	.counted = "socket=1 rc=1 bdf=0x8100 op=rd count=4",
	.filtered = "socket=1 rc=1 bdf=0xa100 op=rd count=4",
	.per = 4,
	.busy = "rd_req,src_bdf=0xa100,src_bdf_en=1",
	.busy_err = -EINVAL,
};

FIXTURE_VARIANT_ADD(family, pcie_tgt) {
	.pmu = "nvidia_pcie_tgt_pmu_1_rc_1",
	.event = "rd_req,dst_addr_base=0x10000,dst_addr_mask=0xfff00,dst_addr_en=1",
	.counted = "socket=1 to_rc=1 op=rd addr=0x10040 count=4",
	.filtered = "socket=1 to_rc=1 op=rd addr=0x10100 count=4",
	.per = 4,
};

FIXTURE_VARIANT_ADD(family, nvlink_c2c) {
	.pmu = "nvidia_nvlink_c2c_pmu_1",
	.event = "in_rd_req,gpu_mask=0x2",
	.counted = "socket=1 src=loc_noncpu gpu=1 op=rd count=4",
	.filtered = "socket=1 src=loc_noncpu gpu=0 op=rd count=4",
	.per = 4,
};

FIXTURE_VARIANT_ADD(family, nvclink) {
	.pmu = "nvidia_nvclink_pmu_1",
	.event = "in_rd_req",
	.counted = "socket=1 src=rem op=rd count=4",
	.filtered = "socket=1 src=rem op=wr count=4",
	.per = 4,
};

FIXTURE_VARIANT_ADD(family, nvdlink) {
	.pmu = "nvidia_nvdlink_pmu_1",
	.event = "in_rd_req",
	.counted = "socket=1 dst=loc_cxl op=rd count=4",
	.filtered = "socket=1 dst=loc_cxl op=rd hit=1 count=4",
	.per = 4,
};

/* Inject @v's counted and filtered traffic once each. */
static int traffic(const FIXTURE_VARIANT(family) *v)
{
	return inject(v->counted) ?: inject(v->filtered);
}

TEST_F(family, hotplug_migrates_and_keeps_count)
{
	char buf[64];
	int fd, busy;

	ASSERT_EQ(2, pmu_cpu(variant->pmu));
	fd = pmu_open(variant->pmu, variant->event, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, traffic(variant));
	EXPECT_EQ(variant->per, count_of(_metadata, fd));

	ASSERT_EQ(0, cpu_set_online(2, false));
	EXPECT_EQ(3, pmu_cpu(variant->pmu));
	ASSERT_EQ(0, traffic(variant));
	EXPECT_EQ(2 * variant->per, count_of(_metadata, fd));
	if (variant->busy) {
		/* the moved event still holds its filter resource */
		busy = pmu_open(variant->pmu, variant->busy, -1);
		EXPECT_EQ(variant->busy_err, busy);
		if (busy >= 0)
			close(busy);
	}

	/* with the whole socket offline nobody owns the PMU */
	ASSERT_EQ(0, cpu_set_online(3, false));
	ASSERT_EQ(0, pmu_read(variant->pmu, "cpumask", buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(2 * variant->per, count_of(_metadata, fd));
	ASSERT_EQ(0, cpu_set_online(3, true));
	EXPECT_EQ(3, pmu_cpu(variant->pmu));
	ASSERT_EQ(0, cpu_set_online(2, true));
	EXPECT_EQ(3, pmu_cpu(variant->pmu));
	close(fd);

	/* the resources are free again: a new event counts exactly */
	if (variant->busy) {
		busy = pmu_open(variant->pmu, variant->busy, -1);
		EXPECT_LE(0, busy);
		if (busy >= 0)
			close(busy);
	}
	fd = pmu_open(variant->pmu, variant->event, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, traffic(variant));
	ASSERT_EQ(0, traffic(variant));
	EXPECT_EQ(2 * variant->per, count_of(_metadata, fd));
	close(fd);
}

TEST_F(family, del_device_with_open_events)
{
	uint64_t v;
	int fd;

	fd = pmu_open(variant->pmu, variant->event, -1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, traffic(variant));
	EXPECT_EQ(variant->per, count_of(_metadata, fd));
	/* counted but not yet read when the device goes: not lost */
	ASSERT_EQ(0, traffic(variant));
	ASSERT_EQ(0, sim_del(SIM_ID));
	ASSERT_EQ(0, count_read(fd, &v));
	EXPECT_EQ(2 * variant->per, v);
	if (kernel_revokes_events()) {
		EXPECT_FALSE(pmu_exists(variant->pmu));
	} else {
		EXPECT_EQ(-ENODEV, pmu_open(variant->pmu, variant->event, -1));
		ASSERT_EQ(0, count_read(fd, &v));
		EXPECT_EQ(2 * variant->per, v);
	}
	close(fd);
	EXPECT_TRUE(pmu_gone_within(variant->pmu, 5000));
}

TEST_HARNESS_MAIN
