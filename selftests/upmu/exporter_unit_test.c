// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of upmu-exporter's configuration (config.c) and
 * exposition (expo.c), under ASan/UBSan: nothing here opens a PMU.  The
 * expectations are the documented ones (exporter.h, the comments of
 * config.c and expo.c, Prometheus's text format 0.0.4), written out in
 * full: counts from the built-in text itself, exact messages' prefixes
 * and line numbers, exact exposition text; bdf_hex_digits_only and
 * merge_limit_message_has_line guard two bugs this test found (a bdf
 * with a sign or 0x taken, a limit message without its line).  Run by
 * make check on the host; no arguments (the harness's -t/-r select
 * tests).
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the expected values below are int literals compared with unsigned fields */
#pragma GCC diagnostic ignored "-Wsign-compare"

#include "kselftest_harness.h"

#include "exporter.h"

#define WHAT	"t.conf"

/* A config set up by cfg_init(): too large for a test's stack frame. */
static struct config *cfg_new(void)
{
	struct config *c = malloc(sizeof(*c));

	if (c)
		cfg_init(c);
	return c;
}

static int parse_n(struct config *c, const char *text, size_t len, char *err, size_t errlen)
{
	cfg_init(c);
	err[0] = 0;
	return cfg_parse(c, text, len, WHAT, err, errlen);
}

static int parse(struct config *c, const char *text, char *err, size_t errlen)
{
	return parse_n(c, text, strlen(text), err, errlen);
}

/* Lines of cfg_builtin that start with @kw and a blank. */
static unsigned int builtin_lines(const char *kw)
{
	const char *p = cfg_builtin;
	size_t l = strlen(kw);
	unsigned int n = 0;

	while (*p) {
		if (!strncmp(p, kw, l) && p[l] == ' ')
			n++;
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

static const struct cfg_series *find_series(const struct config *c, const char *name,
					    unsigned int *count)
{
	const struct cfg_series *s = NULL;
	unsigned int i;

	*count = 0;
	for (i = 0; i < c->nr_series; i++)
		if (!strcmp(c->series[i].name, name)) {
			if (!s)
				s = &c->series[i];
			(*count)++;
		}
	return s;
}

/* ---- the built-in configuration ---------------------------------------- */

TEST(builtin_counts)
{
	unsigned int ns = builtin_lines("series"), nb = builtin_lines("counters"), k;
	struct config *c = cfg_new();
	const struct cfg_series *s;
	char err[256];

	ASSERT_NE(NULL, c);
	/* the table of the documentation: no fewer than these */
	ASSERT_LE(40, ns);
	ASSERT_LE(9, nb);
	ASSERT_EQ(0, parse(c, "", err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(ns, c->nr_series);
	EXPECT_EQ(nb, c->nr_budget);
	EXPECT_EQ(0, c->nr_bdf);
	EXPECT_TRUE(c->defaults);
	/* cfg_init()'s defaults are left alone */
	EXPECT_STREQ("127.0.0.1", c->listen_addr);
	EXPECT_EQ(9464, c->port);
	EXPECT_EQ(200, c->cache_ms);
	EXPECT_EQ(1000, c->rescan_ms);
	EXPECT_EQ(256, c->max_clients);
	EXPECT_EQ(5, c->timeout_s);
	/* in the built-in order */
	EXPECT_STREQ("ucf_mem_read_bytes", c->series[0].name);
	/* served as upmu_<name>_total */
	EXPECT_STREQ("upmu_ucf_mem_read_bytes", c->series[0].metric);
	EXPECT_STREQ("nvidia_ucf_pmu", c->series[0].pmu);
	EXPECT_STREQ("mem_bytes_rd", c->series[0].spec);
	EXPECT_STREQ("Bytes the UCF read from memory", c->series[0].help);
	EXPECT_EQ(PER_NONE, c->series[0].per);
	EXPECT_FALSE(c->series[0].fixed);
	EXPECT_STREQ("nic_pcie_reads", c->series[ns - 1].name);
	EXPECT_STREQ("nvidia", c->budget[0].pmu);
	EXPECT_EQ(8, c->budget[0].counters);
	/* what the options of a few lines gave */
	s = find_series(c, "ucf_cycles", &k);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(1, k);
	EXPECT_TRUE(s->fixed);
	s = find_series(c, "pcie_read_bytes", &k);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(PER_RP, s->per);
	EXPECT_STREQ("rd_bytes,src_rp_mask=%rp_mask", s->spec);
	s = find_series(c, "iio_mem_read_bytes", &k);
	ASSERT_NE(NULL, s);
	EXPECT_TRUE(s->factor == 4.0);
	EXPECT_STREQ("uncore_iio", s->pmu);
	s = find_series(c, "iio_part_inbound_bytes", &k);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(PER_PART, s->per);
	EXPECT_TRUE(s->fixed);
	s = find_series(c, "nic_pcie_read_latency_seconds", &k);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(PER_LINK, s->per);
	free(c);
}

TEST(file_series_replaces_builtin)
{
	unsigned int ns = builtin_lines("series"), nb = builtin_lines("counters"), k;
	struct config *c = cfg_new();
	const struct cfg_series *s;
	char err[256];

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, parse(c, "series ucf_cycles nvidia_ucf_pmu cycles help=Mine\n"
			      "counters nvidia 2\n", err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(ns, c->nr_series);
	EXPECT_EQ(nb, c->nr_budget);
	s = find_series(c, "ucf_cycles", &k);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(1, k);
	/* the file's, first, without the built-in's fixed */
	EXPECT_EQ(&c->series[0], s);
	EXPECT_STREQ("Mine", s->help);
	EXPECT_FALSE(s->fixed);
	/* and the file's budget */
	EXPECT_EQ(2, cfg_counters(c, "nvidia_ucf_pmu_0"));
	EXPECT_EQ(4, cfg_counters(c, "uncore_iio_0"));

	/* by name, whatever its PMU */
	ASSERT_EQ(0, parse(c, "series ucf_cycles nvidia_pcie_pmu cycles\n", err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(ns, c->nr_series);
	s = find_series(c, "ucf_cycles", &k);
	ASSERT_NE(NULL, s);
	EXPECT_EQ(1, k);
	EXPECT_STREQ("nvidia_pcie_pmu", s->pmu);

	/* a new name adds one */
	ASSERT_EQ(0, parse(c, "series pcie_write_requests nvidia_pcie_pmu wr_req\n", err,
			   sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(ns + 1, c->nr_series);
	EXPECT_STREQ("pcie_write_requests", c->series[0].name);
	free(c);
}

TEST(defaults_off)
{
	struct config *c = cfg_new();
	char err[256];

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, parse(c, "series foo nvidia_ucf_pmu cycles x=2.5 help=Foo \\ \"bar\"\n"
			      "bdf 0005:01:00.0\n"
			      "defaults off\n", err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_FALSE(c->defaults);
	ASSERT_EQ(1, c->nr_series);
	EXPECT_EQ(0, c->nr_budget);
	EXPECT_STREQ("foo", c->series[0].name);
	EXPECT_STREQ("upmu_foo", c->series[0].metric);
	EXPECT_STREQ("nvidia_ucf_pmu", c->series[0].pmu);
	EXPECT_STREQ("cycles", c->series[0].spec);
	EXPECT_STREQ("Foo \\ \"bar\"", c->series[0].help);
	EXPECT_TRUE(c->series[0].factor == 2.5);
	ASSERT_EQ(1, c->nr_bdf);
	EXPECT_EQ(5, c->bdf[0].seg);
	EXPECT_EQ(1, c->bdf[0].bus);
	EXPECT_EQ(0, c->bdf[0].dev);
	EXPECT_EQ(0, c->bdf[0].fn);
	EXPECT_EQ(0, cfg_counters(c, "nvidia_ucf_pmu_0"));

	ASSERT_EQ(0, parse(c, "defaults off\ncounters nvidia 3\n", err, sizeof(err)));
	EXPECT_EQ(0, c->nr_series);
	EXPECT_EQ(1, c->nr_budget);
	EXPECT_EQ(3, cfg_counters(c, "nvidia_pcie_pmu_0_rc_1"));

	/* the last word wins */
	ASSERT_EQ(0, parse(c, "defaults off\ndefaults on\n", err, sizeof(err)));
	EXPECT_EQ(builtin_lines("series"), c->nr_series);
	free(c);
}

TEST(settings)
{
	struct config *c = cfg_new();
	char err[256], line[1025];

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, parse(c, "  # a comment\n\t\n"
			      "listen 10.1.2.3:65535\n"
			      "cache_ms 0\n"
			      "rescan_ms 50\n"
			      "max_clients 4096\n"
			      "timeout_s 3600\t \n"
			      "#listen 1.1.1.1:1", err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("10.1.2.3", c->listen_addr);
	EXPECT_EQ(65535, c->port);
	EXPECT_EQ(0, c->cache_ms);
	EXPECT_EQ(50, c->rescan_ms);
	EXPECT_EQ(4096, c->max_clients);
	EXPECT_EQ(3600, c->timeout_s);
	ASSERT_EQ(0, parse(c, "listen [::1]:1\ncache_ms 60000\n", err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ("::1", c->listen_addr);
	EXPECT_EQ(1, c->port);
	EXPECT_EQ(60000, c->cache_ms);
	ASSERT_EQ(0, parse(c, "listen [fe80::1:2]:9464\n", err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("fe80::1:2", c->listen_addr);
	EXPECT_EQ(9464, c->port);
	/* the longest line taken: 1023 characters */
	memset(line, 'a', sizeof(line));
	line[0] = '#';
	line[1023] = '\n';
	ASSERT_EQ(0, parse_n(c, line, 1024, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, parse_n(c, line, 1023, err, sizeof(err))) TH_LOG("%s", err);
	free(c);
}

/* ---- errors -------------------------------------------------------------- */

static const struct bad {
	const char *text;
	size_t len;		/* 0: strlen */
	unsigned int line;
} bad[] = {
	{ "bogus 1\n", 0, 1 },
	{ "# c\n\nlisten_addr 127.0.0.1:1\n", 0, 3 },
	{ "cache_ms 5\nlisten localhost:9464\n", 0, 2 },
	{ "listen 127.0.0.1:0\n", 0, 1 },
	{ "\n\n\nlisten 127.0.0.1:65536\n", 0, 4 },
	{ "listen 127.0.0.1\n", 0, 1 },
	{ "listen 127.0.0.1:\n", 0, 1 },
	{ "listen 127.0.0.1:+80\n", 0, 1 },
	{ "listen 127.0.0.1:80x\n", 0, 1 },
	{ "listen\n", 0, 1 },
	{ "listen 127.0.0.1:80 9\n", 0, 1 },
	{ "# [::1]:9464\nlisten [::1:9464\n", 0, 2 },
	{ "listen ::1:9464\n", 0, 1 },
	{ "listen []:9464\n", 0, 1 },
	{ "listen [127.0.0.1]:9464\n", 0, 1 },
	{ "cache_ms 60001\n", 0, 1 },
	{ "x\n", 0, 1 },
	{ "cache_ms -1\n", 0, 1 },
	{ "cache_ms 99999999999999999999999\n", 0, 1 },
	{ "cache_ms\n", 0, 1 },
	{ "rescan_ms 49\n", 0, 1 },
	{ "max_clients 0\n", 0, 1 },
	{ "timeout_s 3601\n", 0, 1 },
	{ "defaults maybe\n", 0, 1 },
	{ "series foo_total nvidia_ucf_pmu cycles\n", 0, 1 },
	{ "series Foo nvidia_ucf_pmu cycles\n", 0, 1 },
	{ "series 1foo nvidia_ucf_pmu cycles\n", 0, 1 },
	{ "series foo nvidia_ucf_pmu\n", 0, 1 },
	{ "series foo Nvidia cycles\n", 0, 1 },
	{ "series foo nvidia_ucf_pmu cyc\"les\n", 0, 1 },
	{ "series aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa nvidia cycles\n", 0, 1 },
	{ "\nseries foo nvidia_pcie_pmu rd_bytes per=rp\n", 0, 2 },
	{ "series foo nvidia_pcie_pmu rd_bytes,src_rp_mask=%rp_mask\n", 0, 1 },
	{ "series foo upmu_nic port_rx_bytes,port=%port\n", 0, 1 },
	{ "series foo upmu_nic port_rx_bytes,port=%port per=link\n", 0, 1 },
	{ "series foo upmu_nic port_rx_bytes,port=%unknown\n", 0, 1 },
	{ "series foo upmu_nic port_rx_bytes per=lane\n", 0, 1 },
	{ "series foo nvidia_ucf_pmu cycles bogus\n", 0, 1 },
	{ "series foo nvidia_ucf_pmu cycles x=0\n", 0, 1 },
	{ "series foo nvidia_ucf_pmu cycles x=nan\n", 0, 1 },
	{ "series foo nvidia_ucf_pmu cycles x=2y\n", 0, 1 },
	{ "series foo nvidia_ucf_pmu cycles\nseries foo nvidia_ucf_pmu cycles\n", 0, 2 },
	{ "bdf 0000:00:01\n", 0, 1 },
	{ "bdf 0000:00:01.0x\n", 0, 1 },
	{ "bdf 0000:00:20.0\n", 0, 1 },
	{ "bdf 0000:00:01.8\n", 0, 1 },
	{ "bdf 00000:00:01.0\n", 0, 1 },
	{ "bdf 0000:00:01.0\n#\nbdf 0000:00:01.0\n", 0, 3 },
	{ "bdf\n", 0, 1 },
	{ "counters nvidia 8\ncounters nvidia 4\n", 0, 2 },
	{ "counters nvidia 65\n", 0, 1 },
	{ "counters nvidia\n", 0, 1 },
	{ "counters Nvidia 2\n", 0, 1 },
	{ "cache_ms 5\n\0\n", 13, 2 },
	{ "cache_ms 5\ncache_ms 6\0\n", 23, 2 },
	{ "#\n#\ncache_\001ms 5\n", 0, 3 },
	{ "cache_ms 5\r\n", 0, 1 },
	{ "# \x7f\n", 0, 1 },
	{ "# \xc3\xa9\n", 0, 1 },
	{ "cache_ms 5 x\n", 0, 1 },
	{ "\ncache_ms 5 x", 0, 2 },
	{ "defaults off on\n", 0, 1 },
	{ "bdf 0000:00:01.0 0000:00:02.0\n", 0, 1 },
	{ "counters nvidia 8 9\n", 0, 1 },
	{ "cache_ms 5 abcdefghijklmnop\n", 0, 1 },
};

TEST(parse_errors)
{
	struct config *c = cfg_new();
	char err[512], prefix[64];
	unsigned int i;

	ASSERT_NE(NULL, c);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad *b = &bad[i];
		size_t len = b->len ? b->len : strlen(b->text);

		snprintf(prefix, sizeof(prefix), WHAT ":%u: ", b->line);
		EXPECT_EQ(-EINVAL, parse_n(c, b->text, len, err, sizeof(err)))
			TH_LOG("case %u: '%s' taken", i, b->text);
		EXPECT_EQ(0, strncmp(err, prefix, strlen(prefix)))
			TH_LOG("case %u: '%s': '%s' does not start with '%s'", i, b->text, err,
			       prefix);
		EXPECT_LT(strlen(prefix), strlen(err))
			TH_LOG("case %u: no message after '%s'", i, err);
	}
	free(c);
}

TEST(line_too_long)
{
	struct config *c = cfg_new();
	char err[256], *text;
	size_t n = 3 + 1024 + 1;

	ASSERT_NE(NULL, c);
	text = malloc(n);
	ASSERT_NE(NULL, text);
	memcpy(text, "#\n#", 3);
	memset(text + 3, 'a', n - 3);
	text[n - 1] = '\n';
	/* line 2: 1025 characters */
	EXPECT_EQ(-EINVAL, parse_n(c, text, n, err, sizeof(err)));
	EXPECT_EQ(0, strncmp(err, WHAT ":2: ", 8)) TH_LOG("%s", err);
	/* 1024, not followed by a newline */
	EXPECT_EQ(-EINVAL, parse_n(c, text, 2 + 1024, err, sizeof(err)));
	EXPECT_EQ(0, strncmp(err, WHAT ":2: ", 8)) TH_LOG("%s", err);
	/* 1023: taken */
	EXPECT_EQ(0, parse_n(c, text, 2 + 1023, err, sizeof(err))) TH_LOG("%s", err);
	free(text);
	free(c);
}

TEST(error_small_buffer)
{
	struct config *c = cfg_new();
	char err[16];

	ASSERT_NE(NULL, c);
	memset(err, 'x', sizeof(err));
	EXPECT_EQ(-EINVAL, parse_n(c, "bogus\n", 6, err, 12));
	/* truncated, terminated, within the 12 bytes */
	EXPECT_EQ(0, strncmp(err, WHAT ":1: ", 10));
	EXPECT_EQ(11, strlen(err));
	EXPECT_EQ('x', err[12]);
	free(c);
}

/* SSSS:BB:DD.F is hex digits: no sign, no 0x (sscanf's %x takes both) */
TEST(bdf_hex_digits_only)
{
	static const char *const v[] = {
		"bdf -001:00:01.0\n", "bdf +001:00:01.0\n", "bdf 0x01:00:01.0\n",
		"bdf 0000:-1:01.0\n", "bdf 0000:0x:01.0\n", "bdf 0000:00:+1.0\n",
	};
	struct config *c = cfg_new();
	unsigned int i, taken = 0;
	char err[256];

	ASSERT_NE(NULL, c);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (!parse(c, v[i], err, sizeof(err))) {
			taken++;
			TH_LOG("'%.16s' taken: %#x:%#x:%#x.%#x", v[i], c->bdf[0].seg, c->bdf[0].bus,
			       c->bdf[0].dev, c->bdf[0].fn);
			continue;
		}
		EXPECT_EQ(0, strncmp(err, WHAT ":1: ", 9)) TH_LOG("%s", err);
	}
	free(c);
	EXPECT_EQ(0, taken);
}

/* Over a limit with the built-in series: "what:LINE: ", as every error */
TEST(merge_limit_message_has_line)
{
	struct config *c = cfg_new();
	char err[256], *text, *p;
	unsigned int i, line;
	int n = 0;

	ASSERT_NE(NULL, c);
	text = malloc(250 * 48);
	ASSERT_NE(NULL, text);
	/* 250 series of the file's own, and the built-in ones: over 256 */
	for (i = 0, p = text; i < 250; i++)
		p += sprintf(p, "series s%u nvidia_ucf_pmu cycles\n", i);
	EXPECT_EQ(-EINVAL, parse(c, text, err, sizeof(err)));
	free(text);
	free(c);
	if (sscanf(err, WHAT ":%u: %n", &line, &n) != 1 || !n) {
		EXPECT_TRUE(false) TH_LOG("'%s' is not \"" WHAT ":LINE: message\"", err);
		return;
	}
	EXPECT_LE(1, line);
	EXPECT_GE(250, line);
	EXPECT_NE(0, err[n]);
	EXPECT_TRUE(isalpha((unsigned char)err[n]));
}

/* ---- PMU names ------------------------------------------------------------ */

TEST(pmu_matches_table)
{
	EXPECT_TRUE(pmu_matches("nvidia_pcie_pmu_0_rc_4", "nvidia_pcie_pmu"));
	EXPECT_FALSE(pmu_matches("nvidia_pcie_tgt_pmu_0_rc_4", "nvidia_pcie_pmu"));
	EXPECT_FALSE(pmu_matches("uncore_iio_free_running_0", "uncore_iio"));
	EXPECT_TRUE(pmu_matches("uncore_iio_3", "uncore_iio"));
	EXPECT_TRUE(pmu_matches("upmu_nic_4e1c0017", "upmu_nic"));
	EXPECT_FALSE(pmu_matches("upmu_nicdiag_4e1c0017", "upmu_nic"));
	EXPECT_TRUE(pmu_matches("uncore_iio", "uncore_iio"));
	EXPECT_TRUE(pmu_matches("nvidia_ucf_pmu_1", "nvidia_ucf_pmu"));
	EXPECT_FALSE(pmu_matches("uncore_iio_", "uncore_iio"));
	EXPECT_TRUE(pmu_matches("uncore_iio_free_running_0", "uncore_iio_free_running"));
	EXPECT_FALSE(pmu_matches("uncore_iio", "uncore_iio_free_running"));
	EXPECT_FALSE(pmu_matches("nvidia_pcie_pmu_0_rc_", "nvidia_pcie_pmu"));
	EXPECT_FALSE(pmu_matches("nvidia_pcie_pmu_0_rc_4x", "nvidia_pcie_pmu"));
	EXPECT_FALSE(pmu_matches("uncore_iio3", "uncore_iio"));
	EXPECT_FALSE(pmu_matches("uncore_ii", "uncore_iio"));
}

TEST(cfg_counters_longest_prefix)
{
	struct config *c = cfg_new();
	char err[256];

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, parse(c, "", err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, cfg_counters(c, "uncore_iio_free_running_0"));
	EXPECT_EQ(4, cfg_counters(c, "uncore_iio_2"));
	EXPECT_EQ(8, cfg_counters(c, "nvidia_ucf_pmu_1"));
	EXPECT_EQ(0, cfg_counters(c, "unknown"));
	EXPECT_EQ(2, cfg_counters(c, "uncore_irp_0"));
	EXPECT_EQ(0, cfg_counters(c, "uncore_imc_free_running_1"));
	EXPECT_EQ(4, cfg_counters(c, "uncore_imc_1"));
	EXPECT_EQ(8, cfg_counters(c, "nvidia"));
	EXPECT_EQ(0, cfg_counters(c, "nvidiax_ucf_pmu_1"));
	EXPECT_EQ(0, cfg_counters(c, "upmu_nic_4e1c0017"));
	/* the order of the lines does not matter: the longest prefix wins */
	ASSERT_EQ(0, parse(c, "defaults off\ncounters a_b 3\ncounters a 1\ncounters a_b_c 5\n",
			   err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(5, cfg_counters(c, "a_b_c_0"));
	EXPECT_EQ(3, cfg_counters(c, "a_b_0"));
	EXPECT_EQ(1, cfg_counters(c, "a_0"));
	EXPECT_EQ(0, cfg_counters(c, "ab_0"));
	free(c);
}

/* ---- label_escape --------------------------------------------------------- */

TEST(label_escape_fits)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	ASSERT_TRUE(label_escape(buf, sizeof(buf), "a\\b\"c\nd"));
	EXPECT_STREQ("a\\\\b\\\"c\\nd", buf);
	ASSERT_TRUE(label_escape(buf, sizeof(buf), ""));
	EXPECT_STREQ("", buf);
	ASSERT_TRUE(label_escape(buf, sizeof(buf), "\t\x01\xff'{}=,"));
	EXPECT_STREQ("\t\x01\xff'{}=,", buf);

	/* exactly: 2 characters and the NUL in 3 bytes */
	memset(buf, 'x', sizeof(buf));
	EXPECT_TRUE(label_escape(buf, 3, "ab"));
	EXPECT_STREQ("ab", buf);
	EXPECT_FALSE(label_escape(buf, 2, "ab"));
	EXPECT_TRUE(label_escape(buf, 3, "\n"));
	EXPECT_STREQ("\\n", buf);
	/* an escape does not fit by half */
	EXPECT_FALSE(label_escape(buf, 2, "\n"));
	EXPECT_FALSE(label_escape(buf, 3, "a\""));
	EXPECT_TRUE(label_escape(buf, 4, "a\""));
	EXPECT_STREQ("a\\\"", buf);
	EXPECT_TRUE(label_escape(buf, 4, "\\"));
	EXPECT_FALSE(label_escape(buf, 1, "a"));
	EXPECT_TRUE(label_escape(buf, 1, ""));
	EXPECT_STREQ("", buf);
	EXPECT_FALSE(label_escape(buf, 0, ""));
	/* nothing written past @len */
	memset(buf, 'x', sizeof(buf));
	EXPECT_FALSE(label_escape(buf, 5, "\\\\\\"));
	EXPECT_EQ('x', buf[5]);
}

/* ---- expo_render ---------------------------------------------------------- */

static const char expo_expected[] =
	"# HELP alpha_total Alpha \\\\ help\\nline two \"q\"\n"
	"# TYPE alpha_total counter\n"
	"alpha_total{pmu=\"a\"} 1\n"
	"alpha_total{pmu=\"x\",v=\"a\\\\b\\\"c\\nd\"} 18446744073709551615\n"
	"# HELP beta Beta\n"
	"# TYPE beta gauge\n"
	"beta{k=\"u\"} 0.33333333333333331\n"
	"beta{k=\"v\"} 0.5\n"
	"beta{k=\"w\"} 42\n"
	"beta{k=\"y\"} 2\n"
	"beta{k=\"z\"} 1e+21\n"
	"# HELP beta_x_y Beta x y\n"
	"# TYPE beta_x_y gauge\n"
	"beta_x_y 0\n"
	"# HELP zeta_total Zeta\n"
	"# TYPE zeta_total counter\n"
	"zeta_total 7\n";

TEST(expo_render_exact)
{
	struct samples s = { 0 };
	unsigned int dropped = 99;
	char v[64], *text;
	size_t len = 0;

	ASSERT_TRUE(label_escape(v, sizeof(v), "a\\b\"c\nd"));
	ASSERT_EQ(0, samples_add(&s, "zeta", "Zeta", M_COUNTER, false, 7, 0, "%s", ""));
	ASSERT_EQ(0, samples_add(&s, "beta", "Beta", M_GAUGE, true, 0, 1e21, "k=\"z\""));
	ASSERT_EQ(0, samples_add(&s, "alpha", "Alpha \\ help\nline two \"q\"", M_COUNTER,
				 false, UINT64_MAX, 0, "pmu=\"x\",v=\"%s\"", v));
	ASSERT_EQ(0, samples_add(&s, "beta", "Beta", M_GAUGE, false, 42, 0, "k=\"w\""));
	ASSERT_EQ(0, samples_add(&s, "beta_x_y", "Beta x y", M_GAUGE, false, 0, 0, "%s", ""));
	/* a second type of beta, after its first in the order: left out */
	ASSERT_EQ(0, samples_add(&s, "beta", "Beta", M_COUNTER, false, 3, 0, "k=\"x\""));
	ASSERT_EQ(0, samples_add(&s, "alpha", "Alpha \\ help\nline two \"q\"", M_COUNTER,
				 false, 1, 0, "pmu=\"a\""));
	ASSERT_EQ(0, samples_add(&s, "beta", "Beta", M_GAUGE, true, 0, 0.5, "k=\"v\""));
	/* the same series twice: left out */
	ASSERT_EQ(0, samples_add(&s, "alpha", "Alpha \\ help\nline two \"q\"", M_COUNTER,
				 false, UINT64_MAX, 0, "pmu=\"x\",v=\"%s\"", v));
	ASSERT_EQ(0, samples_add(&s, "beta", "Beta", M_GAUGE, true, 0, 2.0, "k=\"y\""));
	/* all the digits a double needs */
	ASSERT_EQ(0, samples_add(&s, "beta", "Beta", M_GAUGE, true, 0, 1.0 / 3, "k=\"u\""));
	ASSERT_EQ(11, s.n);

	text = expo_render(&s, &len, &dropped);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(2, dropped);
	EXPECT_EQ(strlen(text), len);
	EXPECT_STREQ(expo_expected, text);
	free(text);

	/* and again: the same text (the samples are sorted now) */
	text = expo_render(&s, &len, &dropped);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(2, dropped);
	EXPECT_STREQ(expo_expected, text);
	free(text);
	samples_free(&s);
	EXPECT_EQ(NULL, s.v);
	EXPECT_EQ(0, s.n);
}

TEST(expo_render_empty)
{
	struct samples s = { 0 };
	unsigned int dropped = 99;
	size_t len = 99;
	char *text;

	text = expo_render(&s, &len, &dropped);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, len);
	EXPECT_EQ(0, dropped);
	EXPECT_STREQ("", text);
	free(text);
}

/* A name with two types: left out after the first in the sorted order. */
TEST(expo_render_type_conflict)
{
	struct samples s = { 0 };
	unsigned int dropped;
	size_t len;
	char *text;

	ASSERT_EQ(0, samples_add(&s, "m", "H", M_GAUGE, false, 2, 0, "a=\"2\""));
	ASSERT_EQ(0, samples_add(&s, "m", "H", M_COUNTER, false, 1, 0, "a=\"1\""));
	ASSERT_EQ(0, samples_add(&s, "m", "H", M_COUNTER, false, 3, 0, "a=\"3\""));
	ASSERT_EQ(0, samples_add(&s, "m", "H", M_GAUGE, false, 4, 0, "a=\"4\""));
	text = expo_render(&s, &len, &dropped);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(2, dropped);
	EXPECT_STREQ("# HELP m_total H\n# TYPE m_total counter\n"
		     "m_total{a=\"1\"} 1\nm_total{a=\"3\"} 3\n", text);
	free(text);
	samples_free(&s);
}

/* Many samples: the output buffer grows (from 4 KiB), nothing lost. */
TEST(expo_render_large)
{
	struct samples s = { 0 };
	unsigned int dropped, i;
	char line[128], *text, *p;
	size_t len;

	for (i = 0; i < 5000; i++)
		ASSERT_EQ(0, samples_add(&s, "big", NULL, M_GAUGE, false, i, 0, "i=\"%05u\"",
					 4999 - i));
	text = expo_render(&s, &len, &dropped);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(0, dropped);
	EXPECT_EQ(strlen(text), len);
	/* no help: an empty one */
	ASSERT_EQ(0, strncmp(text, "# HELP big \n# TYPE big gauge\n", 29));
	p = text + 29;
	for (i = 0; i < 5000; i++) {
		snprintf(line, sizeof(line), "big{i=\"%05u\"} %u\n", i, 4999 - i);
		ASSERT_EQ(0, strncmp(p, line, strlen(line))) TH_LOG("line %u", i);
		p += strlen(line);
	}
	EXPECT_EQ(0, *p);
	free(text);
	samples_free(&s);
}

TEST(samples_add_labels_too_long)
{
	struct samples s = { 0 };
	char v[300];

	memset(v, 'a', sizeof(v) - 1);
	v[sizeof(v) - 1] = 0;
	EXPECT_EQ(-E2BIG, samples_add(&s, "m", "H", M_GAUGE, false, 1, 0, "v=\"%s\"", v));
	EXPECT_EQ(0, s.n);
	/* 255 characters fit */
	v[255 - 4] = 0;
	EXPECT_EQ(0, samples_add(&s, "m", "H", M_GAUGE, false, 1, 0, "v=\"%s\"", v));
	EXPECT_EQ(1, s.n);
	EXPECT_EQ(255, strlen(s.v[0].labels));
	samples_free(&s);
}

TEST_HARNESS_MAIN
