// SPDX-License-Identifier: GPL-2.0
/*
 * The diag library (tools/lib/upmu_diag.c) on the simulated NIC, through
 * upmu_nic's fwctl devices and the device's extension commands: what the
 * CLI cannot show.  Output formats 0/1/2 byte for byte against traffic
 * injected on the manual clock, with 64-bit timestamps; lost-sample
 * counts in repetitive mode; the NULL-buffer and last-seen conventions;
 * illegal transitions refused by the device; ownership across PFs.
 *
 * Run by nic_diag_test.sh, one test at a time (-t NAME) on a fresh NIC:
 * UPMU_DIAG_DEV and UPMU_DIAG_DEV1 are its PFs' addresses (SERIAL.PF),
 * UPMU_DIAG_SIM its debugfs directory, made with clock=manual.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the expected values below are int literals compared with unsigned fields */
#pragma GCC diagnostic ignored "-Wsign-compare"

#include "kselftest_harness.h"

#include "hw/nic_cmd.h"
#include "upmu_diag.h"

#define RX_P0	NIC_DID(NIC_DID_RX_BYTES, 0)
#define ICMC	NIC_DID(NIC_DID_ICMC_HITS, 0)

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v) {
		fprintf(stderr, "%s is not set: run by nic_diag_test.sh\n", name);
		exit(KSFT_FAIL);
	}
	return v;
}

/* Writes @text to the simulator's debugfs file @name. */
static int sim_write(const char *name, const char *text)
{
	char path[512];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", env("UPMU_DIAG_SIM"), name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ret = fputs(text, f) < 0 ? -EIO : 0;
	if (fclose(f))
		ret = -errno;
	return ret;
}

static uint64_t sim_now(void)
{
	char path[512];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/now_ns", env("UPMU_DIAG_SIM"));
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static int advance(uint64_t ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, ns);
	return sim_write("advance", buf);
}

/* A context on PF 0, configured, applied and running; *@t0: its start. */
static struct upmu_diag *running(struct __test_metadata *_metadata,
				 enum upmu_diag_mode mode, unsigned int log,
				 enum upmu_diag_format f, const uint64_t *ids,
				 unsigned int n, uint64_t *t0)
{
	struct upmu_diag *d;
	int fi, fr;

	ASSERT_EQ(0, upmu_diag_create(env("UPMU_DIAG_DEV"), false, &d));
	ASSERT_TRUE(upmu_diag_has_ext(d));
	ASSERT_EQ(0, upmu_diag_set_sample_mode(d, mode));
	ASSERT_EQ(0, upmu_diag_set_log_num_samples(d, log));
	ASSERT_EQ(0, upmu_diag_set_sample_period(d, 1024));
	ASSERT_EQ(0, upmu_diag_set_output_format(d, f));
	ASSERT_EQ(0, upmu_diag_apply_config(d));
	ASSERT_EQ(0, upmu_diag_apply_counters(d, ids, n, &fi, &fr));
	ASSERT_EQ(0, upmu_diag_start(d));
	*t0 = sim_now();	/* the manual clock stands still */
	return d;
}

/*
 * Formats 0/1/2 as the device makes them: 4 samples of port_rx_bytes.p0
 * and icmc_hits without sync (icmc_hits read 64 ns after), past 2^32 ns.
 */
TEST(formats)
{
	const uint64_t ids[2] = { RX_P0, ICMC };
	uint8_t buf[8 * 56], want[8 * 56];
	struct upmu_diag_read r;
	struct upmu_diag *d;
	uint64_t t0;
	size_t size;
	int f, k;

	/* 5 s of sim time: time stamps need their upper 32 bits */
	ASSERT_EQ(0, advance(5000000000ull));
	for (f = 0; f <= 2; f++) {
		d = running(_metadata, UPMU_DIAG_REPETITIVE, 3, f, ids, 2, &t0);
		ASSERT_LT(1ull << 32, t0);
		ASSERT_EQ(0, upmu_diag_get_sample_size(d, &size));
		ASSERT_EQ(upmu_diag_sample_size(f, 2), size);
		/*
		 * Traffic half way through each period: without sync a
		 * sample is taken once its last data ID is read, 64 ns after
		 * its time, so an event injected at the sample's own time
		 * would still be counted in it.
		 */
		for (k = 0; k < 4; k++) {
			char ev[64];

			snprintf(ev, sizeof(ev), "ev=rx port=0 prio=0 size=100 count=%d", k + 1);
			ASSERT_EQ(0, advance(512));
			ASSERT_EQ(0, sim_write("nic/inject", ev));
			ASSERT_EQ(0, sim_write("nic/inject", "ev=icmc_hit count=10"));
			ASSERT_EQ(0, advance(512));
		}
		ASSERT_EQ(0, advance(64));	/* sample 3's second data ID */
		memset(buf, 0xa5, sizeof(buf));
		memset(want, 0xa5, sizeof(want));
		r = (struct upmu_diag_read){ .count = 8 };
		ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
		ASSERT_EQ(4, r.count);
		EXPECT_EQ(0, r.lost);
		EXPECT_EQ(0, r.first_sample_id);
		EXPECT_EQ(t0 + 4 * 1024 + 64, r.latest_ts);
		for (k = 0; k < 4; k++) {
			uint8_t *p = want + k * size;
			uint64_t ts = t0 + (k + 1) * 1024ull;
			uint64_t rx = 100ull * (k + 1) * (k + 2) / 2, hits = 10ull * (k + 1);

			nic_be32_set(p, 0, k);
			if (f == 0) {
				nic_be32_set(p, 4, 0);
				nic_set64(p + 8, 0, RX_P0);
				nic_set64(p + 8, 64, ts);
				nic_set64(p + 8, 128, rx);
				nic_set64(p + 32, 0, ICMC);
				nic_set64(p + 32, 64, ts + 64);
				nic_set64(p + 32, 128, hits);
				continue;
			}
			nic_be32_set(p, 4, ts >> 32);
			nic_be32_set(p, 8, (uint32_t)ts);
			nic_be32_set(p, 12, (uint32_t)(ts + 64));
			if (f == 1) {
				nic_set64(p + 16, 0, rx);
				nic_set64(p + 24, 0, hits);
			} else {
				nic_be32_set(p, 16, rx);
				nic_be32_set(p, 20, hits);
			}
		}
		EXPECT_EQ(0, memcmp(want, buf, sizeof(buf))) {
			for (k = 0; k < 4 * (int)size; k += 8)
				TH_LOG("format %d +%3d: %016llx want %016llx", f, k,
				       (unsigned long long)nic_get64(buf + k, 0),
				       (unsigned long long)nic_get64(want + k, 0));
		}
		/* nothing new: never a duplicate */
		r = (struct upmu_diag_read){ .count = 8 };
		ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
		EXPECT_EQ(0, r.count);
		upmu_diag_destroy(d);
	}
}

/* Repetitive mode: an overrun is counted, exactly, never skipped. */
TEST(lost)
{
	const uint64_t ids[1] = { ICMC };
	struct upmu_diag_sample s;
	struct upmu_diag_read r = { .count = 8 };
	struct upmu_diag *d;
	uint8_t buf[8 * 24];
	uint64_t t0, v;

	d = running(_metadata, UPMU_DIAG_REPETITIVE, 2, UPMU_DIAG_FMT1, ids, 1, &t0);
	ASSERT_EQ(0, sim_write("nic/inject", "ev=icmc_hit count=3"));
	ASSERT_EQ(0, advance(1024));
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(1, r.count);
	EXPECT_EQ(0, r.lost);
	/* 10 samples back to back into 4 slots: 1..6 overwritten unread */
	ASSERT_EQ(0, sim_write("nic/overrun", "10"));
	/* a NULL buffer tells how many, and the loss, consuming neither */
	r = (struct upmu_diag_read){ .count = 8 };
	EXPECT_EQ(-UPMU_DIAG_EINSUFF, upmu_diag_query_counters(d, NULL, &r));
	EXPECT_EQ(4, r.count);
	EXPECT_EQ(6, r.lost);
	r = (struct upmu_diag_read){ .count = 0 };
	EXPECT_EQ(-UPMU_DIAG_EINSUFF, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(4, r.count);
	EXPECT_EQ(6, r.lost);
	EXPECT_EQ(0, upmu_diag_lost_total(d));
	r = (struct upmu_diag_read){ .count = 8 };
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(4, r.count);
	EXPECT_EQ(6, r.lost);
	EXPECT_EQ(7, r.first_sample_id);
	ASSERT_EQ(0, upmu_diag_decode(buf, sizeof(buf), UPMU_DIAG_FMT1, 1, 3, &s, &v, NULL));
	EXPECT_EQ(10, s.sample_id);
	EXPECT_EQ(3, v);
	EXPECT_EQ(6, upmu_diag_lost_total(d));
	/* reported once */
	r = (struct upmu_diag_read){ .count = 8 };
	EXPECT_EQ(0, upmu_diag_query_counters(d, NULL, &r));
	EXPECT_EQ(0, r.count);
	EXPECT_EQ(0, r.lost);
	upmu_diag_destroy(d);
}

/* max_samples_per_read, and NVML's last-seen timestamp next to the cursor. */
TEST(last_seen)
{
	const uint64_t ids[1] = { ICMC };
	struct upmu_diag_read r = { .count = 8 };
	struct upmu_diag *d;
	uint8_t buf[8 * 24];
	uint64_t t0;
	int fi, fr;

	ASSERT_EQ(0, upmu_diag_create(env("UPMU_DIAG_DEV"), false, &d));
	ASSERT_EQ(0, upmu_diag_set_sample_mode(d, UPMU_DIAG_REPETITIVE));
	ASSERT_EQ(0, upmu_diag_set_log_num_samples(d, 3));
	ASSERT_EQ(0, upmu_diag_set_sample_period(d, 1024));
	ASSERT_EQ(0, upmu_diag_set_max_samples_per_read(d, 2));
	ASSERT_EQ(0, upmu_diag_apply_config(d));
	ASSERT_EQ(0, upmu_diag_apply_counters(d, ids, 1, &fi, &fr));
	ASSERT_EQ(0, upmu_diag_start(d));
	t0 = sim_now();
	ASSERT_EQ(0, advance(5 * 1024));	/* samples 0..4 */
	r.count = 0;
	EXPECT_EQ(-UPMU_DIAG_EINSUFF, upmu_diag_query_counters(d, NULL, &r));
	EXPECT_EQ(2, r.count);			/* at most 2 a read */
	r.count = 8;
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(2, r.count);
	EXPECT_EQ(0, r.first_sample_id);
	EXPECT_EQ(t0 + 2 * 1024, r.latest_ts);
	/* newer than sample 0: 1 and 2, whether handed out before or not */
	r = (struct upmu_diag_read){ .count = 8, .last_seen_ts = t0 + 1024 };
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(2, r.count);
	EXPECT_EQ(1, r.first_sample_id);
	EXPECT_EQ(t0 + 3 * 1024, r.latest_ts);
	/* the cursor goes on after sample 2 */
	r = (struct upmu_diag_read){ .count = 8 };
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(2, r.count);
	EXPECT_EQ(3, r.first_sample_id);
	EXPECT_EQ(0, r.lost);
	/* nothing newer than the newest */
	r = (struct upmu_diag_read){ .count = 8, .last_seen_ts = t0 + 5 * 1024 };
	ASSERT_EQ(0, upmu_diag_query_counters(d, buf, &r));
	EXPECT_EQ(0, r.count);
	upmu_diag_destroy(d);
}

/* The device refuses every illegal transition; the state stays. */
#define REFUSED(call) do { \
	enum upmu_diag_state was = upmu_diag_get_state(d); \
	unsigned int st; uint32_t synd; \
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, call); \
	upmu_diag_last_fw(d, &st, &synd); \
	EXPECT_EQ(NIC_STAT_BAD_SYS_STATE, st); \
	EXPECT_EQ(NIC_SYND(NIC_DIAG_ERR_STATE, NIC_SYND_NO_INDEX), synd); \
	EXPECT_EQ(was, upmu_diag_get_state(d)); \
} while (0)

TEST(state_machine)
{
	const uint64_t ids[2] = { RX_P0, ICMC };
	struct upmu_diag_read r = { .count = 1 };
	struct upmu_diag *d;
	uint8_t buf[64];
	uint64_t ns;
	int fi, fr;

	ASSERT_EQ(0, upmu_diag_create(env("UPMU_DIAG_DEV"), false, &d));
	REFUSED(upmu_diag_start(d));
	REFUSED(upmu_diag_stop(d));
	REFUSED(upmu_diag_restart(d));
	REFUSED(upmu_diag_apply_counters(d, ids, 2, &fi, &fr));
	EXPECT_EQ(NIC_DIAG_ERR_STATE, fr);
	EXPECT_EQ(-UPMU_DIAG_EBADSTATE, upmu_diag_query_counters(d, buf, &r));
	ASSERT_EQ(0, upmu_diag_set_sample_period(d, 1000));
	ASSERT_EQ(0, upmu_diag_apply_config(d));
	EXPECT_EQ(UPMU_DIAG_CONFIGURED, upmu_diag_get_state(d));
	REFUSED(upmu_diag_apply_config(d));
	REFUSED(upmu_diag_start(d));
	ASSERT_EQ(0, upmu_diag_apply_counters(d, ids, 2, &fi, &fr));
	EXPECT_EQ(UPMU_DIAG_READY, upmu_diag_get_state(d));
	/* 1000 ns: 1024 clocks at 1 GHz, as the device rounds it */
	EXPECT_EQ(0, upmu_diag_get_sample_period(d, &ns));
	EXPECT_EQ(1024, ns);
	REFUSED(upmu_diag_restart(d));
	REFUSED(upmu_diag_apply_counters(d, ids, 2, &fi, &fr));
	ASSERT_EQ(0, upmu_diag_start(d));
	REFUSED(upmu_diag_start(d));
	REFUSED(upmu_diag_apply_config(d));
	EXPECT_EQ(0, upmu_diag_restart(d));	/* single mode */
	EXPECT_EQ(0, upmu_diag_stop(d));
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(d));
	REFUSED(upmu_diag_stop(d));
	upmu_diag_destroy(d);
}

/* One owner per NIC, through either PF; force; lost ownership is said. */
TEST(ownership)
{
	const uint64_t ids[1] = { ICMC };
	struct upmu_diag_read r = { .count = 1 };
	struct upmu_diag_owner o;
	struct upmu_diag *a, *b, *obs;
	uint8_t buf[64];
	uint64_t t0;

	a = running(_metadata, UPMU_DIAG_REPETITIVE, 2, UPMU_DIAG_FMT1, ids, 1, &t0);
	EXPECT_EQ(-EBUSY, upmu_diag_create(env("UPMU_DIAG_DEV1"), false, &b));
	EXPECT_EQ(-EBUSY, upmu_diag_create(env("UPMU_DIAG_DEV"), false, &b));
	ASSERT_EQ(0, upmu_diag_open(env("UPMU_DIAG_DEV1"), &obs));
	ASSERT_EQ(0, upmu_diag_get_owner(obs, &o));
	EXPECT_TRUE(o.owned);
	EXPECT_FALSE(o.self);
	EXPECT_EQ(0, o.pf);
	EXPECT_EQ(1, o.uid);		/* the first file of PF 0 */
	upmu_diag_destroy(obs);
	ASSERT_EQ(0, upmu_diag_get_owner(a, &o));
	EXPECT_TRUE(o.self);
	/* force through PF 1 */
	ASSERT_EQ(0, upmu_diag_create(env("UPMU_DIAG_DEV1"), true, &b));
	upmu_diag_get_prev_owner(b, &o);
	EXPECT_TRUE(o.owned);
	EXPECT_EQ(0, o.pf);
	EXPECT_EQ(1, o.uid);
	EXPECT_EQ(-UPMU_DIAG_ELOSTOWNER, upmu_diag_query_counters(a, buf, &r));
	EXPECT_EQ(UPMU_DIAG_IDLE, upmu_diag_get_state(a));
	EXPECT_EQ(-UPMU_DIAG_ELOSTOWNER, upmu_diag_stop(a));
	ASSERT_EQ(0, upmu_diag_get_owner(a, &o));
	EXPECT_FALSE(o.self);
	EXPECT_EQ(1, o.pf);
	/* a's end takes nothing from b; b's end frees the engine */
	upmu_diag_destroy(a);
	ASSERT_EQ(0, upmu_diag_get_owner(b, &o));
	EXPECT_TRUE(o.self);
	upmu_diag_destroy(b);
	ASSERT_EQ(0, upmu_diag_create(env("UPMU_DIAG_DEV"), false, &a));
	upmu_diag_get_prev_owner(a, &o);
	EXPECT_FALSE(o.owned);
	upmu_diag_destroy(a);
}

TEST_HARNESS_MAIN
