// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-diag: the doca_telemetry_diag sample's flags over libupmu_diag
 * (Documentation/upmu-diag.rst).
 *
 *   upmu-diag [-p DEV] [-di IDS.json] [-o OUT.csv] [-rt S] [-sp NS] [-ns LOG]
 *             [-sr N] [-sm 0|1|2] [-of 0|1|2] [-f] [--sync-start]
 *             [--data-clear] [-j FLAGS.json]
 *   upmu-diag -e IDS.json      the default data-IDs JSON, then exit
 *   upmu-diag list [-p DEV]    the data IDs the device supports
 *
 * Samples for -rt seconds and writes one CSV row per sample: sample_id,
 * its first and last timestamps (ns) and a column per data ID.  Exit 0 on
 * success, 1 when the device or a library call fails, 2 on bad usage or
 * input (flags, JSON).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag_io.h"
#include "hw/nic_cmd.h"
#include "upmu_diag.h"

static const char *const reasons[] = {
	[NIC_DIAG_ERR_NONE] = "none given",
	[NIC_DIAG_ERR_UNKNOWN_ID] = "not a data ID of this device",
	[NIC_DIAG_ERR_NO_SYNC] = "cannot take a synchronized start",
	[NIC_DIAG_ERR_DUPLICATE] = "already in the list",
	[NIC_DIAG_ERR_CAPACITY] = "samples x data IDs exceed the buffer",
	[NIC_DIAG_ERR_MODE] = "mode bits that do not go together",
	[NIC_DIAG_ERR_PERIOD] = "period out of range",
	[NIC_DIAG_ERR_COUNT] = "no data IDs, or too many",
	[NIC_DIAG_ERR_OWNER] = "another user owns the engine",
	[NIC_DIAG_ERR_STATE] = "not allowed in this state",
	[NIC_DIAG_ERR_FORMAT] = "unknown output format",
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: upmu-diag [flags]          sample diagnostic data IDs into a CSV file\n"
"       upmu-diag list [-p DEV]    the data IDs the device supports\n"
"  -p,  --pci-addr DEV             SERIAL.PF, fwctlN, /dev/fwctl/fwctlN or the\n"
"                                  PF's sysfs directory (default: the first)\n"
"  -di, --data-ids FILE            data-IDs JSON (default: the -e list)\n"
"  -o,  --output FILE              CSV output (default " DIAG_DEFAULT_OUTPUT ")\n"
"  -rt, --sample-run-time S        run time, seconds (default 1)\n"
"  -sp, --sample-period NS         sample period, ns (default: the shortest)\n"
"  -ns, --log-num-samples LOG      log2 of the device buffer's samples\n"
"  -sr, --max-samples-per-read N   samples per read (default: the buffer's)\n"
"  -sm, --sample-mode M            0 single, 1 repetitive (default), 2 on demand\n"
"  -of, --output-format F          0, 1 (default) or 2\n"
"  -f,  --force-ownership          take the engine from another user\n"
"       --sync-start               synchronized start\n"
"       --data-clear               clear counters each period (needs --sync-start)\n"
"  -e,  --example-json-path FILE   write the default data-IDs JSON and exit\n"
"  -j,  --json FILE                read flags from JSON ({\"sample-period\": 100000, ...})\n"
"  -h,  --help                     this text\n"
"example:\n"
"  upmu-diag -e /tmp/ids.json\n"
"  upmu-diag -p 4e1c0001.0 -di /tmp/ids.json -sm 1 -sp 100000 -ns 9 -rt 2 -o /tmp/out.csv\n");
}

/* "PF 0 uid 3", or the kernel's perf events */
static void owner_str(const struct upmu_diag_owner *o, char *buf, size_t len)
{
	if (o->uid)
		snprintf(buf, len, "PF %u uid %u", o->pf, o->uid);
	else
		snprintf(buf, len, "the kernel (upmu_nic perf events) through PF %u", o->pf);
}

/* Create failed with -EBUSY: say who has the engine, if the device knows. */
static void busy(const struct diag_opts *o)
{
	const char *dev = o->dev[0] ? o->dev : "the first fwctl device";
	struct upmu_diag_owner own;
	struct upmu_diag *d;
	char who[96];

	if (upmu_diag_open(o->dev, &d) || upmu_diag_get_owner(d, &own) || !own.owned) {
		fprintf(stderr, "upmu-diag: %s: %s (-f takes it over)\n", dev,
			upmu_diag_strerror(-EBUSY));
	} else {
		owner_str(&own, who, sizeof(who));
		fprintf(stderr, "upmu-diag: %s: engine owned by %s; %s\n", dev, who,
			own.uid ? "-f takes it over" : "-f does not take it from the kernel");
	}
	upmu_diag_destroy(d);
}

static int list(const struct diag_opts *o)
{
	struct upmu_diag *d;
	unsigned int i;
	uint64_t *ids = NULL;
	bool *sync = NULL;
	int ret, n;

	/* list only reads: it does not take the engine from anybody */
	ret = upmu_diag_open(o->dev, &d);
	if (ret) {
		fprintf(stderr, "upmu-diag: %s: %s\n", o->dev[0] ? o->dev : "no fwctl device",
			upmu_diag_strerror(ret));
		return 1;
	}
	n = upmu_diag_get_data_ids(d, NULL, NULL, 0);
	ids = calloc(n + 1, sizeof(*ids));
	sync = calloc(n + 1, sizeof(*sync));
	if (!ids || !sync) {
		fprintf(stderr, "upmu-diag: %s\n", strerror(ENOMEM));
		ret = 1;
		goto out;
	}
	upmu_diag_get_data_ids(d, ids, sync, n);
	printf("%-40s %-18s %-9s %-4s %s\n", "NAME", "DATA ID", "CLASS", "SYNC", "DESCRIPTION");
	for (i = 0; i < (unsigned int)n; i++) {
		const struct upmu_diag_id_row *r = upmu_diag_id_row(ids[i]);
		char name[96];

		upmu_diag_id_name(ids[i], name, sizeof(name));
		printf("%-40s 0x%016" PRIx64 " %-9s %-4s %s\n", name, ids[i],
		       r ? (r->statistic ? "Statistic" : "Counter") : "-",
		       sync[i] ? "yes" : "no", r ? r->desc : "-");
	}
out:
	free(ids);
	free(sync);
	upmu_diag_destroy(d);
	return ret;
}

static int fail_lib(const char *what, int ret)
{
	fprintf(stderr, "upmu-diag: %s: %s\n", what, upmu_diag_strerror(ret));
	return 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&ts, NULL);
}

/* Reads what is new and writes it; samples written, or a negative code. */
static long drain(struct upmu_diag *d, const struct diag_ids *ids, void *buf,
		  uint32_t room, enum upmu_diag_format fmt, FILE *csv)
{
	struct upmu_diag_read r;
	long total = 0;
	uint64_t vals[ids->n ? ids->n : 1];
	size_t size = upmu_diag_sample_size(fmt, ids->n);
	unsigned int i;
	int ret;

	do {
		memset(&r, 0, sizeof(r));
		r.count = room;
		ret = upmu_diag_query_counters(d, buf, &r);
		if (ret)
			return ret;
		if (r.lost)
			fprintf(stderr, "upmu-diag: %" PRIu64 " samples lost (overwritten before read) before sample_id %" PRIu64 "\n",
				r.lost, r.first_sample_id);
		for (i = 0; i < r.count; i++) {
			struct upmu_diag_sample s;

			if (upmu_diag_decode(buf, (size_t)r.count * size, fmt, ids->n, i,
					     &s, vals, NULL))
				return -EPROTO;
			diag_csv_row(csv, &s, vals, ids->n);
		}
		total += r.count;
	} while (r.count == room && !stop);
	fflush(csv);	/* whole rows, as they come: tail -f works */
	return total;
}

/* Another user took the engine over (-f): say who, and what was kept. */
static void lost_engine(struct upmu_diag *d, long total, const char *output)
{
	struct upmu_diag_owner own;
	char who[96] = "another user";

	if (!upmu_diag_get_owner(d, &own) && own.owned)
		owner_str(&own, who, sizeof(who));
	fprintf(stderr, "upmu-diag: lost the engine: %s took it over (force); %ld samples written to %s, %" PRIu64 " lost\n",
		who, total, output, upmu_diag_lost_total(d));
}

static int run(const struct diag_opts *o)
{
	struct upmu_diag *d = NULL;
	struct diag_ids ids;
	char err[512];
	FILE *csv = NULL;
	void *buf = NULL;
	uint64_t period, t_end, interval;
	uint32_t room;
	size_t size;
	long n, total = 0;
	struct upmu_diag_owner prev;
	int ret, fi, fr, fd, rc = 1;

	if (o->data_ids[0])
		ret = diag_ids_from_json(o->data_ids, &ids, err, sizeof(err));
	else
		ret = diag_ids_default(&ids);
	if (ret) {
		fprintf(stderr, "upmu-diag: %s\n", ret == -EINVAL ? err : strerror(-ret));
		return 2;
	}
	ret = upmu_diag_create(o->dev, o->force, &d);
	if (ret == -EBUSY) {
		busy(o);
		goto out;
	}
	if (ret) {
		fprintf(stderr, "upmu-diag: %s: %s\n", o->dev[0] ? o->dev : "no fwctl device",
			upmu_diag_strerror(ret));
		goto out;
	}
	upmu_diag_get_prev_owner(d, &prev);
	if (prev.owned) {
		owner_str(&prev, err, sizeof(err));
		fprintf(stderr, "upmu-diag: took the engine over from %s\n", err);
	}
	if ((ret = upmu_diag_set_sample_mode(d, o->mode)) ||
	    (ret = upmu_diag_set_max_num_data_ids(d, ids.n)) ||
	    (o->period_ns && (ret = upmu_diag_set_sample_period(d, o->period_ns))) ||
	    (o->log_samples >= 0 && (ret = upmu_diag_set_log_num_samples(d, o->log_samples))) ||
	    (o->max_per_read && (ret = upmu_diag_set_max_samples_per_read(d, o->max_per_read))) ||
	    (ret = upmu_diag_set_sync_start(d, o->sync)) ||
	    (ret = upmu_diag_set_data_clear(d, o->clear)) ||
	    (ret = upmu_diag_set_output_format(d, o->format)) ||
	    (ret = upmu_diag_apply_config(d))) {
		rc = fail_lib("configuration", ret);
		goto out;
	}
	ret = upmu_diag_apply_counters(d, ids.id, ids.n, &fi, &fr);
	if (ret) {
		if (fi >= 0)
			fprintf(stderr, "upmu-diag: data ID %d (%s, 0x%016" PRIx64 "): %s (%s)\n",
				fi, ids.name[fi], ids.id[fi], upmu_diag_strerror(ret),
				fr >= 0 && fr <= NIC_DIAG_ERR_FORMAT ? reasons[fr] : "unknown reason");
		else
			fail_lib("applying the data IDs", ret);
		goto out;
	}
	/*
	 * Root writes where -o says (by default in /tmp): a symbolic link
	 * planted there is refused, not followed.
	 */
	fd = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	csv = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!csv) {
		fprintf(stderr, "upmu-diag: %s: %s%s\n", o->output, strerror(errno),
			errno == ELOOP ? " (a symbolic link: not followed)" : "");
		if (fd >= 0)
			close(fd);
		goto out;
	}
	ret = upmu_diag_start(d);
	if (ret) {
		rc = fail_lib("start", ret);
		goto out;
	}
	upmu_diag_get_sample_period(d, &period);
	upmu_diag_get_max_samples_per_read(d, &room);
	upmu_diag_get_sample_size(d, &size);
	fprintf(stderr, "upmu-diag: %u data IDs, actual sample period %" PRIu64 " ns, %zu bytes per sample\n",
		ids.n, period, size);
	if (o->mode == UPMU_DIAG_ON_DEMAND)
		room = 1;
	buf = calloc(room, size);
	if (!buf)
		goto out;
	diag_csv_header(csv, &ids);
	/* read at half the buffer's time, at most every 500 ms */
	if (o->mode == UPMU_DIAG_ON_DEMAND) {
		interval = period;
	} else {
		unsigned int log;

		upmu_diag_get_log_num_samples(d, &log);
		interval = (period << log) / 2;
	}
	if (interval > 500000000)
		interval = 500000000;
	if (interval < 1000000 && o->mode != UPMU_DIAG_ON_DEMAND)
		interval = 1000000;
	t_end = now_ns() + (uint64_t)(o->run_time * 1e9);
	for (;;) {
		uint64_t t = now_ns();

		if (!stop && t < t_end)
			sleep_ns(t_end - t < interval ? t_end - t : interval);
		n = drain(d, &ids, buf, room, o->format, csv);
		if (n == -UPMU_DIAG_ELOSTOWNER) {
			lost_engine(d, total, o->output);
			goto out;
		}
		if (n < 0) {
			rc = fail_lib("query", n);
			goto out;
		}
		total += n;
		if (stop || now_ns() >= t_end)
			break;
	}
	ret = upmu_diag_stop(d);
	if (ret) {
		rc = fail_lib("stop", ret);
		goto out;
	}
	fprintf(stderr, "upmu-diag: %ld samples written to %s, %" PRIu64 " lost\n",
		total, o->output, upmu_diag_lost_total(d));
	rc = 0;
out:
	if (csv && fclose(csv) && !rc) {
		fprintf(stderr, "upmu-diag: %s: %s\n", o->output, strerror(errno));
		rc = 1;
	}
	free(buf);
	upmu_diag_destroy(d);
	diag_ids_free(&ids);
	return rc;
}

int main(int argc, char **argv)
{
	struct diag_opts o;
	struct diag_ids ids;
	char err[512];
	int ret;

	diag_opts_init(&o);
	if (diag_parse_args(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "upmu-diag: %s\n", err);
		return 2;
	}
	if (o.help) {
		usage(stdout);
		return 0;
	}
	if (o.example[0]) {
		if (diag_ids_default(&ids))
			return 1;
		ret = diag_ids_to_json(o.example, &ids);
		diag_ids_free(&ids);
		if (ret) {
			fprintf(stderr, "upmu-diag: %s: %s\n", o.example, strerror(-ret));
			return 1;
		}
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (o.list)
		return list(&o);
	return run(&o);
}
