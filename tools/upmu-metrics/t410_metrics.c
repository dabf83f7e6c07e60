// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics of the NVIDIA Tegra410 uncore PMUs, as given by the kernel's
 * Documentation/admin-guide/perf/nvidia-tegra410-pmu.rst.  Names are the
 * document's; event names are those of the PMUs' events/ directories.
 *
 * A byte count over nanoseconds is GB/s (10^9 bytes per second), and
 * cycles over nanoseconds GHz, so every scale is 1.
 *
 * Every row lists cycles first: the first event leads the group, and the
 * kernel reads the leader right after it takes the group's times, so
 * FREQ_IN_GHZ (cycles / ELAPSED_TIME_IN_NS) compares a count and a time
 * taken together.  Behind a slow register interface (the CMEM PMU reads
 * 42 counters per event) the difference is measurable.
 */

#include "metrics.h"

#define RATIO(n, a, b, p)	{ .name = n, .num = a, .den = b, .scale = 1.0, .prec = p }
/* bytes / ELAPSED_TIME_IN_NS */
#define BW(n, bytes)		RATIO(n, bytes, ELAPSED, 3)
/* requests / CYCLES */
#define RATE(n, req)		RATIO(n, req, "cycles", 4)
/* CYCLES / ELAPSED_TIME_IN_NS */
#define FREQ(n)			RATIO(n, "cycles", ELAPSED, 3)
/* CUM_OUTS / REQ: outstanding cycles per request */
#define LAT_CYCLES(n, outs, req) RATIO(n, outs, req, 1)
/* AVG_LATENCY_IN_CYCLES / FREQ_IN_GHZ */
#define LAT_NS(n, cyc, freq)	RATIO(n, cyc, freq, 1)

const struct family families[] = {
	{
		.name = "UCF",
		.prefix = "nvidia_ucf_pmu_",
		.events = { "cycles", "slc_bytes_rd", "slc_bytes_wr", "mem_bytes_rd",
			    "mem_bytes_wr", "slc_access_rd", "slc_access_wr", "mem_access_rd",
			    "mem_access_wr" },
		.metrics = {
			BW("AVG_SLC_READ_BANDWIDTH_IN_GBPS", "slc_bytes_rd"),
			BW("AVG_SLC_WRITE_BANDWIDTH_IN_GBPS", "slc_bytes_wr"),
			BW("AVG_MEM_READ_BANDWIDTH_IN_GBPS", "mem_bytes_rd"),
			BW("AVG_MEM_WRITE_BANDWIDTH_IN_GBPS", "mem_bytes_wr"),
			RATE("AVG_SLC_READ_REQUEST_RATE", "slc_access_rd"),
			RATE("AVG_SLC_WRITE_REQUEST_RATE", "slc_access_wr"),
			RATE("AVG_MEM_READ_REQUEST_RATE", "mem_access_rd"),
			RATE("AVG_MEM_WRITE_REQUEST_RATE", "mem_access_wr"),
		},
	},
	{
		.name = "PCIE",
		.prefix = "nvidia_pcie_pmu_",
		.events = { "cycles", "rd_bytes", "wr_bytes", "rd_req", "wr_req",
			    "rd_cum_outs" },
		.metrics = {
			BW("AVG_RD_BANDWIDTH_IN_GBPS", "rd_bytes"),
			BW("AVG_WR_BANDWIDTH_IN_GBPS", "wr_bytes"),
			RATE("AVG_RD_REQUEST_RATE", "rd_req"),
			RATE("AVG_WR_REQUEST_RATE", "wr_req"),
			FREQ("FREQ_IN_GHZ"),
			LAT_CYCLES("AVG_LATENCY_IN_CYCLES", "rd_cum_outs", "rd_req"),
			LAT_NS("AVERAGE_LATENCY_IN_NS", "AVG_LATENCY_IN_CYCLES", "FREQ_IN_GHZ"),
		},
	},
	{
		.name = "PCIE-TGT",
		.prefix = "nvidia_pcie_tgt_pmu_",
		.events = { "cycles", "rd_bytes", "wr_bytes", "rd_req", "wr_req" },
		.metrics = {
			BW("AVG_RD_BANDWIDTH_IN_GBPS", "rd_bytes"),
			BW("AVG_WR_BANDWIDTH_IN_GBPS", "wr_bytes"),
			RATE("AVG_RD_REQUEST_RATE", "rd_req"),
			RATE("AVG_WR_REQUEST_RATE", "wr_req"),
		},
	},
	{
		.name = "CMEM latency",
		.prefix = "nvidia_cmem_latency_pmu_",
		.events = { "cycles", "rd_req", "rd_cum_outs" },
		.metrics = {
			FREQ("FREQ_IN_GHZ"),
			LAT_CYCLES("AVG_LATENCY_IN_CYCLES", "rd_cum_outs", "rd_req"),
			LAT_NS("AVERAGE_LATENCY_IN_NS", "AVG_LATENCY_IN_CYCLES", "FREQ_IN_GHZ"),
		},
	},
	{
		/* Connected to another SoC, the PMU has no write events. */
		.name = "NVLink-C2C",
		.prefix = "nvidia_nvlink_c2c_pmu_",
		.events = { "cycles", "in_rd_cum_outs", "in_rd_req", "in_wr_cum_outs",
			    "in_wr_req", "out_rd_cum_outs", "out_rd_req", "out_wr_cum_outs",
			    "out_wr_req" },
		.metrics = {
			FREQ("C2C_FREQ_IN_GHZ"),
			LAT_CYCLES("IN_RD_AVG_LATENCY_IN_CYCLES", "in_rd_cum_outs", "in_rd_req"),
			LAT_NS("IN_RD_AVG_LATENCY_IN_NS", "IN_RD_AVG_LATENCY_IN_CYCLES",
			       "C2C_FREQ_IN_GHZ"),
			LAT_CYCLES("IN_WR_AVG_LATENCY_IN_CYCLES", "in_wr_cum_outs", "in_wr_req"),
			LAT_NS("IN_WR_AVG_LATENCY_IN_NS", "IN_WR_AVG_LATENCY_IN_CYCLES",
			       "C2C_FREQ_IN_GHZ"),
			LAT_CYCLES("OUT_RD_AVG_LATENCY_IN_CYCLES", "out_rd_cum_outs",
				   "out_rd_req"),
			LAT_NS("OUT_RD_AVG_LATENCY_IN_NS", "OUT_RD_AVG_LATENCY_IN_CYCLES",
			       "C2C_FREQ_IN_GHZ"),
			LAT_CYCLES("OUT_WR_AVG_LATENCY_IN_CYCLES", "out_wr_cum_outs",
				   "out_wr_req"),
			LAT_NS("OUT_WR_AVG_LATENCY_IN_NS", "OUT_WR_AVG_LATENCY_IN_CYCLES",
			       "C2C_FREQ_IN_GHZ"),
		},
	},
	{
		.name = "NV-CLink",
		.prefix = "nvidia_nvclink_pmu_",
		.events = { "cycles", "in_rd_cum_outs", "in_rd_req", "out_rd_cum_outs",
			    "out_rd_req" },
		.metrics = {
			FREQ("CLINK_FREQ_IN_GHZ"),
			LAT_CYCLES("IN_RD_AVG_LATENCY_IN_CYCLES", "in_rd_cum_outs", "in_rd_req"),
			LAT_NS("IN_RD_AVG_LATENCY_IN_NS", "IN_RD_AVG_LATENCY_IN_CYCLES",
			       "CLINK_FREQ_IN_GHZ"),
			LAT_CYCLES("OUT_RD_AVG_LATENCY_IN_CYCLES", "out_rd_cum_outs",
				   "out_rd_req"),
			LAT_NS("OUT_RD_AVG_LATENCY_IN_NS", "OUT_RD_AVG_LATENCY_IN_CYCLES",
			       "CLINK_FREQ_IN_GHZ"),
		},
	},
	{
		.name = "NV-DLink",
		.prefix = "nvidia_nvdlink_pmu_",
		.events = { "cycles", "in_rd_cum_outs", "in_rd_req" },
		.metrics = {
			FREQ("DLINK_FREQ_IN_GHZ"),
			LAT_CYCLES("IN_RD_AVG_LATENCY_IN_CYCLES", "in_rd_cum_outs", "in_rd_req"),
			LAT_NS("IN_RD_AVG_LATENCY_IN_NS", "IN_RD_AVG_LATENCY_IN_CYCLES",
			       "DLINK_FREQ_IN_GHZ"),
		},
	},
};

const size_t nr_families = ARRAY_SIZE(families);
