// SPDX-License-Identifier: GPL-2.0
/*
 * upmu_bench's NIC sections (bench/README), on the simulated NIC of
 * device nic_id (-N; guest-bench.sh creates it):
 *
 *   pmuread  read() of a data ID through the NIC's perf PMU against a UCF
 *            read and cpu-clock
 *   rpc      a fwctl RPC round trip of a query command (EXT_QUERY_STATE)
 *            against the FWCTL_INFO ioctl on the same file
 *   sustain  the diag library at DOCA's sizing example for sustain_secs of
 *            device time: samples, lost ones (FAIL if any), and the CPU
 *            time of a retrieval against its interval
 *
 * rpc and sustain need fwctl (Linux 6.15+): on older kernels they say so
 * and measure nothing.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <fwctl/fwctl.h>
#include <fwctl/mlx5.h>

#include "bench.h"
#include "bench_util.h"
#include "hw/nic_cmd.h"
#include "upmu_diag.h"
#include "upmu_pmu.h"

/* port 0 RX bytes of the NIC (guest-bench.sh runs traffic on it) */
#define NIC_SPEC	"port_rx_bytes,port=0"
#define FWCTL_CLASS	"/sys/class/fwctl"

/*
 * The NIC's names: the simulator gives device N the serial 0x4e1c0000 + N
 * (Documentation/upmu-nic.rst), which names its PMU and its PFs.
 */
static void nic_names(char *pmu, char *addr, char *dir, size_t len)
{
	unsigned int serial = 0x4e1c0000u + nic_id;

	snprintf(pmu, len, "upmu_nic_%08x", serial);
	snprintf(addr, len, "%08x.0", serial);
	snprintf(dir, len, "/sys/kernel/debug/upmu_sim/%d", nic_id);
}

static bool have_fwctl(void)
{
	return !access(FWCTL_CLASS, F_OK);
}

/* ---- pmuread: the NIC's perf PMU ------------------------------------------ */

/*
 * The NIC's perf PMU (a counting slot per event) against the UCF: both one
 * register read per read() on the simulator.
 */
void section_pmuread(int cpu)
{
	struct reader r[3] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	char pmu[64], addr[64], dir[64], name[128];
	double ratio;
	int i, ncpu;

	nic_names(pmu, addr, dir, sizeof(pmu));
	printf("\n== read() of a NIC data ID (the NIC's perf PMU) on CPU %d: %ld reads (at most %g s) x %d rounds,\n"
	       "   us per read\n", cpu, reads, max_secs, rounds);
	snprintf(name, sizeof(name), "%s/" NIC_SPEC "/", pmu);
	ncpu = pmu_cpu(pmu);
	if (ncpu < 0) {
		fail("no PMU %s (the NIC, device %d: -N)", pmu, nic_id);
		return;
	}
	if (ncpu != cpu) {
		fail("%s is on CPU %d, the UCF on CPU %d", pmu, ncpu, cpu);
		return;
	}
	if (reader_open(&r[0], "cpu-clock (software)", NULL, NULL, cpu) ||
	    reader_open(&r[1], UCF_PMU "/" UCF_SPEC "/", UCF_PMU, UCF_SPEC, 0) ||
	    reader_open(&r[2], name, pmu, NIC_SPEC, 0) ||
	    run_rounds(r, 3, reads, cpu))
		goto out;
	print_head("event", true);
	for (i = 0; i < 3; i++)
		print_reader(&r[i], &r[0]);
	printf("  counted meanwhile: %s %llu bytes\n", r[2].name,
	       (unsigned long long)(r[2].last - r[2].first));
	ratio = ratio_median(r[2].us, r[1].us);
	printf("  %s: %.2fx a UCF read\n", r[2].name, ratio);
	add_summary("NIC data-ID read / UCF read", ratio, "none (reported)", true, NULL);
	ratio = ratio_median(r[2].us, r[0].us);
	add_summary("own-CPU read, upmu_nic / software", ratio, "<= 1.3x", ratio <= 1.3, NULL);
out:
	close_readers(r, 3);
}

/* ---- rpc: a firmware command round trip ----------------------------------- */

struct rpc_ctx {
	int fd;
	struct fwctl_info_mlx5 mlx5;
	uint8_t in[NIC_HDR_IN_LEN];
	uint8_t out[NIC_EXT_STATE_OUT_LEN];
};

/* FWCTL_INFO: the fwctl core and the driver's info op, no firmware. */
static int op_info(struct reader *r)
{
	struct rpc_ctx *c = r->ctx;
	struct fwctl_info info = {
		.size = sizeof(info),
		.device_data_len = sizeof(c->mlx5),
		.out_device_data = (uintptr_t)&c->mlx5,
	};

	return ioctl(c->fd, FWCTL_INFO, &info) ? -errno : 0;
}

/*
 * FWCTL_RPC of EXT_QUERY_STATE (any user, any state, 48 bytes out): the
 * fwctl core, the driver's scope check and mailbox, the firmware.
 */
static int op_rpc(struct reader *r)
{
	struct rpc_ctx *c = r->ctx;
	struct fwctl_rpc rpc = {
		.size = sizeof(rpc),
		.scope = FWCTL_RPC_DEBUG_READ_ONLY,
		.in_len = sizeof(c->in),
		.out_len = sizeof(c->out),
		.in = (uintptr_t)c->in,
		.out = (uintptr_t)c->out,
	};

	if (ioctl(c->fd, FWCTL_RPC, &rpc))
		return -errno;
	return nic_get(c->out, NIC_HDR_STATUS) ? -EPROTO : 0;
}

void section_rpc(int cpu)
{
	struct reader r[2] = { { .fd = -1 }, { .fd = -1 } };
	struct rpc_ctx c = { .fd = -1 };
	char pmu[64], addr[64], dir[64];
	double ratio;

	nic_names(pmu, addr, dir, sizeof(pmu));
	printf("\n== a fwctl RPC (EXT_QUERY_STATE of the NIC's firmware, PF %s) against FWCTL_INFO on the\n"
	       "   same file, on CPU %d: %ld calls (at most %g s) x %d rounds, us per call\n",
	       addr, cpu, reads, max_secs, rounds);
	if (!have_fwctl()) {
		printf("  skipped: this kernel has no fwctl (Linux 6.15 and later)\n");
		return;
	}
	c.fd = upmu_diag_fwctl_open(addr);
	if (c.fd < 0) {
		fail("fwctl device of %s: %s", addr, strerror(-c.fd));
		return;
	}
	nic_set(c.in, NIC_HDR_OPCODE, NIC_OP_EXT_QUERY_STATE);
	r[0] = (struct reader){ .name = "FWCTL_INFO", .fd = -1, .op = op_info, .ctx = &c };
	r[1] = (struct reader){ .name = "FWCTL_RPC EXT_QUERY_STATE", .fd = -1, .op = op_rpc,
				.ctx = &c };
	if (op_rpc(&r[1])) {
		fail("EXT_QUERY_STATE through %s: %s", addr, strerror(errno));
		goto out;
	}
	if (run_rounds(r, 2, reads, cpu))
		goto out;
	print_head("call", true);
	print_reader(&r[0], &r[0]);
	print_reader(&r[1], &r[0]);
	ratio = ratio_median(r[1].us, r[0].us);
	add_summary("fwctl RPC / FWCTL_INFO", ratio, "none (reported)", true, NULL);
out:
	close(c.fd);
}

/* ---- sustain: DOCA's sizing example --------------------------------------- */

/*
 * DOCA Telemetry Diag's sizing example: the device samples every 100 us,
 * software retrieves every 500 ms, and the buffer holds twice the
 * samples of one retrieval (5000): 2^14.  Four data IDs, as many as the
 * device's largest buffer (2^16 counter-samples) holds at 2^14 samples:
 * those that guest-bench.sh's packets on port 0 (priority 0) count.
 */
#define SUSTAIN_PERIOD_NS	100000ull
#define SUSTAIN_EVERY_NS	500000000ull
#define SUSTAIN_MAX_STEPS	7200

static const char * const sustain_ids[] = {
	"port_rx_bytes.p0", "port_rx_packets.p0", "port_prio_rx_bytes.p0.prio0",
	"port_prio_rx_packets.p0.prio0",
};
#define SUSTAIN_NR_IDS	(sizeof(sustain_ids) / sizeof(sustain_ids[0]))

/* The fwctl transport, with the RPCs and their CPU time counted. */
struct counting {
	struct upmu_diag_transport fw;
	long rpcs;
	double cpu_us;
};

/* CPU time of this thread, us (user and kernel). */
static double thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int counting_rpc(void *priv, unsigned int scope, const void *in,
			size_t in_len, void *out, size_t *out_len)
{
	struct counting *c = priv;
	double t0 = thread_cpu_us();
	int ret = c->fw.rpc(c->fw.priv, scope, in, in_len, out, out_len);

	c->cpu_us += thread_cpu_us() - t0;
	c->rpcs++;
	return ret;
}

static void counting_close(void *priv)
{
	struct counting *c = priv;

	c->fw.close(c->fw.priv);
}

/* The median and the maximum of @n values (sorts @v). */
static void med_max(double *v, int n, double *med, double *max)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*max = v[n - 1];
}

/*
 * Read the open file @fd whole from its start and throw it away: a
 * debugfs read (nic/flows) that the NIC catches up in.  0 or -errno.
 */
static int read_all(int fd)
{
	char buf[4096];
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET))
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	return n ? -errno : 0;
}

/* What sustain_run() measured, per step (of SUSTAIN_EVERY_NS device time). */
struct sustain {
	int steps;
	double ret_cpu[SUSTAIN_MAX_STEPS];	/* us of CPU of the retrieval */
	double dev_cpu[SUSTAIN_MAX_STEPS];	/* us of CPU of the device's catch-up */
	double read_cpu[SUSTAIN_MAX_STEPS];	/* us of CPU of the read without it */
	double rpc_cpu;				/* us of CPU in the RPCs, in all */
	long rpcs;				/* RPCs of the retrievals */
	uint64_t samples, lost, bad_id;		/* bad_id: not the next sample_id */
};

/*
 * The diag library on the NIC, the device on the manual clock: each step
 * advances device time by SUSTAIN_EVERY_NS, lets the device take the
 * samples that fell due (timed apart: it is the firmware's work, which a
 * real host does not pay), and retrieves them (timed: the library, the
 * fwctl RPCs, the driver and the simulated mailbox).
 */
static void sustain_run(struct upmu_diag *d, struct counting *cnt, const char *dir,
			struct sustain *m)
{
	char flows[512], every[32];
	uint64_t next = 0;
	uint32_t room;
	size_t size;
	void *buf;
	int i, ret, fd;

	snprintf(flows, sizeof(flows), "%s/nic/flows", dir);
	snprintf(every, sizeof(every), "%llu", SUSTAIN_EVERY_NS);
	upmu_diag_get_max_samples_per_read(d, &room);
	upmu_diag_get_sample_size(d, &size);
	fd = open(flows, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fail("%s: %s", flows, strerror(errno));
		return;
	}
	buf = malloc((size_t)room * size);
	if (!buf) {
		fail("out of memory");
		close(fd);
		return;
	}
	cnt->rpcs = 0;
	cnt->cpu_us = 0;
	for (i = 0; i < m->steps; i++) {
		struct upmu_diag_read r;
		double t0;

		if (sim_write_dir(dir, "advance", every))
			break;
		/* the samples that fell due, then the same read without them */
		t0 = thread_cpu_us();
		ret = read_all(fd);
		m->dev_cpu[i] = thread_cpu_us() - t0;
		t0 = thread_cpu_us();
		if (!ret)
			ret = read_all(fd);
		m->read_cpu[i] = thread_cpu_us() - t0;
		if (ret) {
			fail("%s: %s", flows, strerror(-ret));
			break;
		}
		t0 = thread_cpu_us();
		do {
			memset(&r, 0, sizeof(r));
			r.count = room;
			ret = upmu_diag_query_counters(d, buf, &r);
			if (ret)
				break;
			if (r.count && r.first_sample_id != next)
				m->bad_id++;
			next = r.first_sample_id + r.count;
			m->samples += r.count;
			m->lost += r.lost;
		} while (r.count == room);
		m->ret_cpu[i] = thread_cpu_us() - t0;
		if (ret) {
			fail("query: %s", upmu_diag_strerror(ret));
			break;
		}
	}
	m->steps = i;
	m->rpcs = cnt->rpcs;
	m->rpc_cpu = cnt->cpu_us;
	free(buf);
	close(fd);
}

void section_sustain(int cpu)
{
	unsigned int log = 0, per = SUSTAIN_EVERY_NS / SUSTAIN_PERIOD_NS;
	struct counting cnt = { .rpcs = 0 };
	struct upmu_diag_transport t = { counting_rpc, counting_close, &cnt };
	uint64_t ids[SUSTAIN_NR_IDS], period = 0, due;
	static struct sustain m;
	struct upmu_diag *d = NULL;
	char pmu[64], addr[64], dir[64], note[64];
	double med, max, dmed, dmax, rmed, rmax, all = 0;
	int i, ret, fd, fi, fr;

	nic_names(pmu, addr, dir, sizeof(pmu));
	memset(&m, 0, sizeof(m));
	m.steps = sustain_secs * (1000000000ull / SUSTAIN_EVERY_NS);
	/* a buffer of at least twice the samples of a retrieval */
	while ((1u << log) < 2 * per)
		log++;
	printf("\n== sustained retrieval (diag library over fwctl, PF %s): repetitive mode, period %llu ns,\n"
	       "   %zu data IDs, buffer 2^%u samples (2 x the %u of a retrieval), a retrieval every %llu ms for\n"
	       "   %d s of device time (manual clock), synchronized start, format 1 (as upmu-diag)\n",
	       addr, SUSTAIN_PERIOD_NS, SUSTAIN_NR_IDS, log, per, SUSTAIN_EVERY_NS / 1000000,
	       sustain_secs);
	if (!have_fwctl()) {
		printf("  skipped: this kernel has no fwctl (Linux 6.15 and later)\n");
		return;
	}
	if (m.steps > SUSTAIN_MAX_STEPS) {
		fail("-S %d: at most %llu s", sustain_secs,
		     SUSTAIN_MAX_STEPS * SUSTAIN_EVERY_NS / 1000000000ull);
		return;
	}
	if (pin(cpu))
		return;
	for (i = 0; i < (int)SUSTAIN_NR_IDS; i++)
		if (upmu_diag_id_parse(sustain_ids[i], &ids[i])) {
			fail("data ID %s", sustain_ids[i]);
			return;
		}
	if (sim_write_dir(dir, "clock", "manual"))
		return;
	fd = upmu_diag_fwctl_open(addr);
	if (fd < 0) {
		fail("fwctl device of %s: %s", addr, strerror(-fd));
		goto out;
	}
	upmu_diag_fwctl_transport(fd, &cnt.fw);
	/* takes the transport over, even when it fails */
	ret = upmu_diag_create_transport(&t, false, &d);
	if (!ret)
		ret = upmu_diag_set_sample_mode(d, UPMU_DIAG_REPETITIVE);
	if (!ret)
		ret = upmu_diag_set_sample_period(d, SUSTAIN_PERIOD_NS);
	if (!ret)
		ret = upmu_diag_set_log_num_samples(d, log);
	if (!ret)
		ret = upmu_diag_set_output_format(d, UPMU_DIAG_FMT1);
	if (!ret)
		ret = upmu_diag_set_sync_start(d, true);
	if (!ret)
		ret = upmu_diag_set_max_num_data_ids(d, SUSTAIN_NR_IDS);
	if (!ret)
		ret = upmu_diag_apply_config(d);
	if (!ret)
		ret = upmu_diag_apply_counters(d, ids, SUSTAIN_NR_IDS, &fi, &fr);
	if (!ret)
		ret = upmu_diag_start(d);
	if (!ret)
		ret = upmu_diag_get_sample_period(d, &period);
	if (ret) {
		fail("diag library on %s: %s (the NIC needs nic_log_samples=16)", addr,
		     upmu_diag_strerror(ret));
		goto out;
	}
	printf("  actual sample period %" PRIu64 " ns (device clock %u kHz)\n", period,
	       upmu_diag_device_khz(d));

	sustain_run(d, &cnt, dir, &m);
	if (!m.steps)
		goto out;
	/* synchronized start: sample k is complete at (k + 1) periods */
	due = (uint64_t)m.steps * SUSTAIN_EVERY_NS / period;
	printf("  samples read %" PRIu64 " of the %" PRIu64 " the device took in %llu s, lost %" PRIu64
	       ", %" PRIu64 " reads not starting at the next sample\n", m.samples, due,
	       m.steps * SUSTAIN_EVERY_NS / 1000000000ull, m.lost, m.bad_id);
	if (m.lost)
		fail_check("sustain: %" PRIu64 " samples lost (overwritten before they were read)",
			   m.lost);
	if (m.samples != due || m.bad_id)
		fail_check("sustain: %" PRIu64 " samples read of the %" PRIu64 " taken, %" PRIu64
			   " reads not starting at the next sample", m.samples, due, m.bad_id);
	for (i = 0; i < m.steps; i++)
		all += m.ret_cpu[i];
	med_max(m.ret_cpu, m.steps, &med, &max);
	med_max(m.dev_cpu, m.steps, &dmed, &dmax);
	med_max(m.read_cpu, m.steps, &rmed, &rmax);
	printf("  retrieval, CPU per %llu ms of samples: median %.2f ms, max %.2f ms = %.4fx (max %.4fx)\n"
	       "    the interval; %.2f us per sample, %.1f RPCs per retrieval, %.0f%% of the CPU time in\n"
	       "    the RPCs (fwctl, driver, mailbox: the kernel), the rest in the library\n",
	       SUSTAIN_EVERY_NS / 1000000, med / 1e3, max / 1e3, med * 1e3 / SUSTAIN_EVERY_NS,
	       max * 1e3 / SUSTAIN_EVERY_NS, med / per, (double)m.rpcs / m.steps,
	       all > 0 ? 100 * m.rpc_cpu / all : 0);
	printf("  the device taking them (the simulator's catch-up: the firmware's work on real\n"
	       "    hardware, not the host's): a read of nic/flows, median %.2f ms (max %.2f ms), against\n"
	       "    %.2f ms for the same read with nothing to take: %.2f us per sample\n",
	       dmed / 1e3, dmax / 1e3, rmed / 1e3, (dmed - rmed) / per);
	snprintf(note, sizeof(note), "%" PRIu64 " samples, %" PRIu64 " lost", m.samples, m.lost);
	add_summary("sustained retrieval CPU / interval", med * 1e3 / SUSTAIN_EVERY_NS,
		    "< 1x, 0 lost", med * 1e3 < SUSTAIN_EVERY_NS && !m.lost, note);
out:
	upmu_diag_destroy(d);
	sim_write_dir(dir, "clock", "realtime");
}
