// SPDX-License-Identifier: GPL-2.0
/*
 * Writes a perf.data stream (perf's pipe format) as perf record would
 * write it for the upmu_nicdiag AUX stream, with records whose values are
 * known, so that the patched perf's report -D, script and report can be
 * checked line by line (selftests/upmu/aux_perf_test.sh):
 *
 *   two AUX queues (CPU 0 and 1), META/SAMPLE/SAMPLES/LOST records, a record that
 *   straddles two AUXTRACE buffers, PERF_RECORD_AUX with PARTIAL and
 *   TRUNCATED, and cpu-clock samples of pid 4242 at known times between
 *   the diag samples.
 *
 * usage: aux_perfdata VARIANT > FILE; VARIANT is good, or a corruption:
 * magic, version, size, nr, cut (the file ends inside a payload), info
 * (an unknown format version in AUXTRACE_INFO), gap (a sample_id gap with
 * no LOST record), garbage (random payload bytes, seed 1).  VARIANT v1 is
 * the good stream as a version 1 writer wrote it: format version 1 in
 * AUXTRACE_INFO and every record, CPU 1's samples in a SAMPLE record
 * each (no SAMPLES record before version 2).
 *
 * aux_perfdata -a CPU VARIANT > FILE writes instead the AUX data of CPU's
 * queue that the file carries, its AUXTRACE payloads back to back: the
 * parse library's fuzz seeds (selftests/upmu/aux-corpus/).
 */

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aux_records.h"

#define PMU_TYPE	42
#define AUX_ID		100
#define SW_ID		200
#define AUXTRACE_TYPE	0x7570

/* perf's user record types (tools/lib/perf/include/perf/event.h) */
#define REC_HEADER_ATTR		64
#define REC_AUXTRACE_INFO	70
#define REC_AUXTRACE		71

/* perf time of "x": 100 s + x us */
#define T(x)			(100000000000ull + (uint64_t)(x) * 1000)

static unsigned char out[1 << 20];
static size_t olen;

/* where each AUXTRACE payload is in out[], for -a */
static struct {
	size_t at, len;
	uint32_t cpu;
} payloads[8];
static unsigned int npayloads;

static void emit(const void *p, size_t n)
{
	if (olen + n > sizeof(out))
		exit(2);
	memcpy(out + olen, p, n);
	olen += n;
}

static void emit64(uint64_t v)
{
	emit(&v, 8);
}

static void emit32x2(uint32_t a, uint32_t b)
{
	emit(&a, 4);
	emit(&b, 4);
}

static void header(uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	emit(&h, sizeof(h));
}

/* sample_id_all trailer for IDENTIFIER|TID|TIME|CPU */
static void trailer(uint32_t pid, uint64_t time, uint32_t cpu, uint64_t id)
{
	emit32x2(pid, pid);
	emit64(time);
	emit32x2(cpu, 0);
	emit64(id);
}

static void attr(uint32_t type, uint64_t config, uint64_t sample_type, uint64_t id)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.sample_period = 1000000;
	a.sample_type = sample_type;
	a.sample_id_all = 1;
	a.disabled = 0;
	header(REC_HEADER_ATTR, 0, sizeof(struct perf_event_header) + sizeof(a) + 8);
	emit(&a, sizeof(a));
	emit64(id);
}

static void comm(uint32_t pid, const char *name, uint64_t time, uint32_t cpu)
{
	char c[16] = { 0 };

	strncpy(c, name, sizeof(c) - 1);
	header(PERF_RECORD_COMM, 0, 8 + 8 + 16 + 32);
	emit32x2(pid, pid);
	emit(c, 16);
	trailer(pid, time, cpu, SW_ID);
}

/* a cpu-clock sample: IDENTIFIER|IP|TID|TIME|CPU|PERIOD */
static void sw_sample(uint64_t time, uint32_t cpu)
{
	header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8 + 48);
	emit64(SW_ID);
	emit64(0x401000);
	emit32x2(4242, 4242);
	emit64(time);
	emit32x2(cpu, 0);
	emit64(1000000);
}

static void aux_rec(uint64_t time, uint32_t cpu, uint64_t off, uint64_t size,
		    uint64_t flags)
{
	header(PERF_RECORD_AUX, 0, 8 + 24 + 32);
	emit64(off);
	emit64(size);
	emit64(flags);
	trailer(-1, time, cpu, AUX_ID);
}

static void auxtrace(const void *data, size_t len, uint64_t off, uint32_t idx,
		     uint32_t cpu)
{
	header(REC_AUXTRACE, 0, 48);
	emit64(len);
	emit64(off);
	emit64(0);
	emit32x2(idx, -1);
	emit32x2(cpu, 0);
	if (npayloads == sizeof(payloads) / sizeof(payloads[0]))
		exit(2);
	payloads[npayloads].at = olen;
	payloads[npayloads].len = len;
	payloads[npayloads++].cpu = cpu;
	emit(data, len);
}

/* The AUX data of CPU @cpu in the first @total bytes of out[]. */
static int write_aux(uint32_t cpu, size_t total)
{
	unsigned int i;

	for (i = 0; i < npayloads; i++) {
		size_t n = payloads[i].len;

		if (payloads[i].cpu != cpu || payloads[i].at >= total)
			continue;
		if (n > total - payloads[i].at)
			n = total - payloads[i].at;
		if (fwrite(out + payloads[i].at, 1, n, stdout) != n)
			return 1;
	}
	return 0;
}

/* ---- AUX records: device time = perf time - 100 s + 5 us ---- */

#define DEV(t)	((t) - T(0) + 5000)

static void meta(struct aux_wbuf *s, uint64_t time, unsigned int nr, const uint64_t *ids)
{
	aux_meta(s, time, 42, DEV(time), nr, ids);
}

static void sample(struct aux_wbuf *s, uint64_t time, uint64_t sid, unsigned int nr,
		   const uint64_t *v)
{
	aux_sample(s, time, sid, DEV(time) - 20, DEV(time), nr, v);
}

static void lost(struct aux_wbuf *w, uint64_t time, uint64_t first, uint64_t last)
{
	aux_lost(w, time, first, last);
}

int main(int argc, char **argv)
{
	static const uint64_t ids[3] = {
		0x1020000100000000ull,	/* port_rx_bytes.p0 */
		0x1140000100000000ull,	/* port_tx_bytes.p0 */
		0x1160000b00000000ull,	/* pcie_rd_lat_total_ns.l0 */
	};
	const char *v = argc > 1 ? argv[1] : "good";
	struct aux_wbuf a = { .len = 0 }, b = { .len = 0 };
	size_t a1, a2, cut = 0;
	uint64_t info_version = UPMU_AUX_VERSION;
	int aux_cpu = -1;

	if (argc > 3 && !strcmp(argv[1], "-a")) {
		aux_cpu = atoi(argv[2]);
		v = argv[3];
	}
	if (!strcmp(v, "v1"))
		a.version = b.version = info_version = 1;

	/* CPU 0: three AUXTRACE buffers; the 3rd record of the 2nd straddles */
	meta(&a, T(1400), 3, ids);	/* META and LOST: the drain time (the AUX record) */
	sample(&a, T(1100), 17, 3, (const uint64_t[]){ 6400, 0, 500 });
	sample(&a, T(1300), 18, 3, (const uint64_t[]){ 12800, 64, 1000 });
	a1 = a.len;
	meta(&a, T(2400), 3, ids);
	if (strcmp(v, "gap"))		/* else 19..21 is an unreported gap */
		lost(&a, T(2400), 19, 21);
	sample(&a, T(2100), 22, 3,
	       (const uint64_t[]){ 19200, 128, 1500 });
	sample(&a, T(2300), 23, 3, (const uint64_t[]){ 25600, 192, 2000 });
	a2 = a.len - 40;		/* cut inside the last SAMPLE */
	meta(&a, T(3200), 3, ids);
	sample(&a, T(3100), 24, 3, (const uint64_t[]){ 32000, 256, 2500 });

	/* CPU 1: one buffer, its samples in one SAMPLES record (format 2) */
	meta(&b, T(2450), 1, ids + 2);
	if (b.version == 1) {
		sample(&b, T(1200), 5, 1, (const uint64_t[]){ 1 });
		sample(&b, T(2200), 6, 1, (const uint64_t[]){ 2 });
	} else {
		aux_samples_ts(&b, T(2450), DEV(T(2450)), 5, 2, 1, (const uint64_t[]){ 1, 2 },
			       (const uint64_t[]){ DEV(T(1200)), DEV(T(2200)) });
	}

	if (!strcmp(v, "magic")) {
		memcpy(a.b + a1 + 88 + 64, "BAD!", 4);	/* the SAMPLE after LOST */
	} else if (!strcmp(v, "version")) {
		a.b[a1 + 88 + 64 + 4] = 7;
	} else if (!strcmp(v, "size")) {
		a.b[a1 + 88 + 64 + 8] += 4;		/* not a multiple of 8 */
	} else if (!strcmp(v, "nr")) {
		a.b[a1 + 88 + 64 + 12] = 4;
	} else if (!strcmp(v, "garbage")) {
		srand(1);
		for (size_t i = a1; i < a.len; i++)
			a.b[i] = rand();
	} else if (!strcmp(v, "info")) {
		info_version = UPMU_AUX_VERSION + 1;
	} else if (strcmp(v, "good") && strcmp(v, "cut") && strcmp(v, "gap") &&
		   strcmp(v, "v1")) {
		fprintf(stderr, "aux_perfdata: unknown variant %s\n", v);
		return 2;
	}

	emit64(0x32454c4946524550ull);	/* "PERFILE2", pipe header */
	emit64(16);
	attr(PMU_TYPE, 3, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	     PERF_SAMPLE_CPU, AUX_ID);
	attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, PERF_SAMPLE_IDENTIFIER |
	     PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
	     PERF_SAMPLE_PERIOD, SW_ID);
	header(REC_AUXTRACE_INFO, 0, 8 + 8 + 24);
	emit32x2(AUXTRACE_TYPE, 0);
	emit64(PMU_TYPE);
	emit64(info_version);
	emit64(0);
	comm(4242, "worker", T(500), 0);

	sw_sample(T(1150), 0);
	sw_sample(T(1250), 1);
	aux_rec(T(1400), 0, 0, a1, 0);
	auxtrace(a.b, a1, 0, 0, 0);
	sw_sample(T(2050), 0);
	sw_sample(T(2150), 0);
	aux_rec(T(2400), 0, a1, a2 - a1, PERF_AUX_FLAG_PARTIAL);
	auxtrace(a.b + a1, a2 - a1, a1, 0, 0);
	aux_rec(T(2450), 1, 0, b.len, 0);
	auxtrace(b.b, b.len, 0, 1, 1);
	aux_rec(T(2500), 0, a2, 0, PERF_AUX_FLAG_TRUNCATED);
	sw_sample(T(3000), 1);
	if (!strcmp(v, "cut"))
		cut = olen + 48 + 50;	/* inside the last payload */
	aux_rec(T(3200), 0, a2, a.len - a2, 0);
	auxtrace(a.b + a2, a.len - a2, a2, 0, 0);
	sw_sample(T(3300), 0);

	if (aux_cpu >= 0)
		return write_aux(aux_cpu, cut ? cut : olen);
	if (fwrite(out, 1, cut ? cut : olen, stdout) != (cut ? cut : olen))
		return 1;
	return 0;
}
