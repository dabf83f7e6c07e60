// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-exporter: the upmu PMUs' counters for Prometheus, as unscaled
 * _total counters in base units with topology labels, read at scrape
 * time.  See Documentation/upmu-exporter.rst.
 */

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exporter.h"
#include "http.h"

#define PROG		"upmu-exporter"
#define DEFAULT_CONFIG	"/etc/upmu/exporter.conf"

static const char usage[] =
"usage: upmu-exporter [-c FILE] [-l ADDRESS:PORT] [--check-config] [--once]\n"
"                     [--list-events] [--print-defaults]\n"
"Serve the upmu PMUs' counters (Tegra410, Ice Lake-X uncore, NIC\n"
"diagnostics) at http://ADDRESS:PORT/metrics in Prometheus's text format.\n"
"  -c, --config FILE     configuration (default " DEFAULT_CONFIG " if it\n"
"                        exists, else the built-in series only)\n"
"  -l, --listen A:P      listen here instead (default 127.0.0.1:9464;\n"
"                        [::1]:9464 for IPv6)\n"
"      --check-config    check the configuration, open every PMU it names\n"
"                        and say what each serves; exit 1 on an error\n"
"      --once            print one exposition on stdout and exit\n"
"      --list-events     print the events it would open, as perf's -e\n"
"                        takes them (PMU/terms/), once per PMU, and exit\n"
"      --print-defaults  print the built-in series and budgets\n"
"  -h, --help            this text\n"
"Example:\n"
"  upmu-exporter -l 127.0.0.1:9464 &\n"
"  curl -s localhost:9464/metrics | grep upmu_pcie_read_bytes_total\n"
"  # a file with 'bdf 0005:01:00.0' adds upmu_pcie_device_read_bytes_total\n"
"  # for that function (one per root complex)\n";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int once(struct collector *col)
{
	struct samples s = { 0 };
	unsigned int dropped;
	size_t len;
	char *text;
	int ret = 1;

	collector_rescan(col);
	if (!collector_read(col, &s)) {
		text = expo_render(&s, &len, &dropped);
		if (text && fwrite(text, 1, len, stdout) == len && !dropped)
			ret = 0;
		free(text);
	}
	samples_free(&s);
	if (ret)
		fprintf(stderr, PROG ": cannot render the exposition\n");
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "once", no_argument, NULL, 'o' },
		{ "list-events", no_argument, NULL, 'L' },
		{ "print-defaults", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL, *listen = NULL;
	bool check = false, one = false, list = false;
	struct collector *col;
	struct server *srv;
	struct config *cfg;
	char err[512];
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:l:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			path = optarg;
			break;
		case 'l':
			listen = optarg;
			break;
		case 'C':
			check = true;
			break;
		case 'o':
			one = true;
			break;
		case 'L':
			list = true;
			break;
		case 'D':
			fputs(cfg_builtin, stdout);
			return 0;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n%s", argv[optind], usage);
		return 2;
	}
	cfg = malloc(sizeof(*cfg));
	if (!cfg)
		return 1;
	cfg_init(cfg);
	if (!path && !access(DEFAULT_CONFIG, F_OK))
		path = DEFAULT_CONFIG;
	ret = path ? cfg_load(cfg, path, err, sizeof(err)) :
		     cfg_parse(cfg, "", 0, "built-in", err, sizeof(err));
	if (!ret && listen) {
		char line[128];

		snprintf(line, sizeof(line), "listen %s", listen);
		ret = cfg_parse(cfg, line, strlen(line), "--listen", err, sizeof(err));
	}
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err);
		free(cfg);
		return 1;
	}
	col = collector_new(cfg);
	if (!col) {
		free(cfg);
		return 1;
	}
	if (check || one || list) {
		if (list) {
			collector_rescan(col);
			collector_list_events(col, stdout);
			ret = 0;
		} else if (check) {
			collector_rescan(col);
			printf("%s: %u series, %u bdf, listen %s:%u\n", path ? path : "built-in",
			       cfg->nr_series, cfg->nr_bdf, cfg->listen_addr, cfg->port);
			collector_report(col, stdout);
			ret = 0;
		} else {
			ret = once(col);
		}
		collector_free(col);
		free(cfg);
		return ret;
	}

	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	pthread_mutex_lock(&lock);
	collector_rescan(col);
	pthread_mutex_unlock(&lock);
	srv = server_start(cfg, col, &lock, false, err, sizeof(err));
	if (!srv) {
		fprintf(stderr, PROG ": %s\n", err);
		collector_free(col);
		free(cfg);
		return 1;
	}
	fprintf(stderr, PROG ": serving http://%s%s%s:%u/metrics\n",
		strchr(cfg->listen_addr, ':') ? "[" : "", cfg->listen_addr,
		strchr(cfg->listen_addr, ':') ? "]" : "", cfg->port);
	/* PMUs gone and new between scrapes: closed and opened at once */
	while (!stop) {
		sleep_ms(cfg->rescan_ms);
		pthread_mutex_lock(&lock);
		collector_rescan(col);
		pthread_mutex_unlock(&lock);
	}
	server_stop(srv);
	collector_free(col);
	free(cfg);
	return 0;
}
