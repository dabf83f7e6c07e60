// SPDX-License-Identifier: GPL-2.0
/*
 * A fuzzer of upmu-exporter's parsers and HTTP side, in process, under
 * ASan/UBSan: no PMU is opened (UPMU_PMU_DEVICES is an empty directory of
 * its own, so the collector finds none and serves the self metrics).
 * Each input is a function of the seed and its number (-s SEED, -f FIRST,
 * -n 1 reproduce one), one of:
 *
 *  (a) 35%: a configuration text for cfg_parse(): the built-in text
 *      with lines deleted, doubled, swapped, replaced or with bytes
 *      changed; random lines from the keywords' words; random bytes;
 *      hundreds of series, counters or bdf lines (the limits); valid
 *      lines only, with the edges of the ranges (these must parse).  It
 *      returns 0 or -EINVAL; an error says "what:LINE: message", LINE one
 *      of the text's, and the lines before it parse (defaults off); a
 *      configuration taken is checked against the documented rules and
 *      against the text (series and budgets counted, the built-in ones
 *      merged by name, the last "defaults" word, the words of each line),
 *      and cfg_counters() and pmu_matches() against models of their own.
 *      The text and the message buffer are malloc'ed to their exact
 *      sizes, so that ASan sees a byte read or written past them.
 *  (b) 60%: samples for expo_render(): names of [a-z_0-9] (a letter or _
 *      first, no _total: the configuration's rule), label values of any
 *      bytes 1-255 escaped by label_escape() (checked against an escaper
 *      of our own, and for "does not fit"), duplicates and a second type
 *      now and then.  Each output line is a HELP or TYPE line or a sample
 *      of the text format 0.0.4 (check_expo(): syntax, escapes, HELP and
 *      TYPE once per name and before its samples, names and series
 *      sorted, no series twice), each sample is one of the input's, and
 *      there are n - dropped of them; dropped is exact when no name has
 *      two types.  (Values are finite: expo.c's non-finite ones are
 *      "nan", "-nan", "inf", which Prometheus does not all take.)
 *  (c) one in 20: an HTTP request on a socketpair given to the server
 *      (server_start(..., no_listen), server_add_connection()): valid
 *      requests (GET /metrics answers 200, text/plain; version=0.0.4 and
 *      a body that check_expo() takes; HEAD, /, 404, 405), their byte
 *      mutations, other methods, headers over 16 KiB (not 200), garbage,
 *      half-sent requests and pipelined ones, most followed by
 *      shutdown(SHUT_WR).  The reply must come or the connection close
 *      within 2 s of the last byte moved (the server's timeout_s is 1),
 *      and a reply starts with "HTTP/1.x NNN ".  Up to 64 connections are
 *      in flight while (a) and (b) run, so that half-sent requests (which
 *      libmicrohttpd drops only at its timeout) overlap.  Before the loop,
 *      once each: the valid requests, a half-sent one without shutdown
 *      (closed by timeout_s) and a 20 KiB header; after it, GET /metrics
 *      again, whose scrape count (cache_ms is 0) is at least the
 *      expositions served.
 *
 * (a) and (b) run on JOBS threads (-j, default 2: the 100000 inputs in
 * about 8 s on an idle 2-CPU machine), the HTTP inputs on the first.
 * A UBSan report is a failure (counted through __ubsan_on_report()).
 * The bugs it found in the exporter (a bdf with a sign or 0x taken, a
 * limit message without its line) are failures again if they come back
 * (UPMU_EXPORTER_STRICT=0 counts them apart instead, printed once each).
 *
 * usage: exporter_fuzz [-n N] [-s SEED] [-f FIRST] [-k KINDS] [-j JOBS] [-v]
 * N defaults to 100000, times 10 with UPMU_SOAK=1.  Prints a line per
 * failure (the first 20) and a summary; exits 0 if no check failed, 1 if
 * one did, 2 on bad usage or a setup that failed.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "exporter.h"
#include "http.h"
#include "splitmix.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define WHAT		"t.conf"
#define MAX_CONNS	64
#define REPLY_MAX	(1 << 20)
#define IDLE_MS		2000

/* ---- randomness, failures ----------------------------------------------------- */

static __thread uint64_t rng;

static uint64_t rnd(void)
{
	return splitmix64(&rng);
}

static uint64_t below(uint64_t n)
{
	return splitmix64_below(&rng, n);
}

static const char *pick(const char *const *v, size_t n)
{
	return v[below(n)];
}

#define PICK(v)	pick(v, ARRAY_SIZE(v))

static pthread_mutex_t fail_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static unsigned long failures, shown;
static bool verbose, strict;
static __thread unsigned long long cur_input;
static __thread const char *cur_kind = "setup";

/* The input in C escapes, at most 300 bytes of it */
static void dump(const char *p, size_t n)
{
	size_t i;

	fputs("    input: \"", stderr);
	for (i = 0; i < n && i < 300; i++) {
		unsigned char c = p[i];

		if (c == '\\' || c == '"')
			fprintf(stderr, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", stderr);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x\"\"", c);
	}
	fprintf(stderr, "\"%s (%zu bytes)\n", n > 300 ? "..." : "", n);
}

__attribute__((format(printf, 3, 4)))
static void fail(const char *in, size_t inlen, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fail_lock);
	failures++;
	if (shown++ < 20) {
		fprintf(stderr, "FAIL input %llu (%s): ", cur_input, cur_kind);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
		if (in)
			dump(in, inlen);
	}
	pthread_mutex_unlock(&fail_lock);
}

/*
 * The exporter's known bugs (reported, to be fixed in tools/upmu-exporter):
 * each seen is said once, with an example; a failure with
 * UPMU_EXPORTER_STRICT=1.  Remove an entry once its fix is in.
 */
enum known { KB_BDF_SYNTAX, KB_MERGE_MSG, KB_NR };
static const char *const known_what[KB_NR] = {
	[KB_BDF_SYNTAX] = "config.c parse_bdf(): sscanf's %x takes a sign and 0x "
			  "(bdf -001:00:01.0 is segment 0xffffffff)",
	[KB_MERGE_MSG] = "config.c cfg_parse(): the built-in merge's limit message has no line "
			 "(\"what: more than ...\")",
};
static unsigned long known[KB_NR];

__attribute__((format(printf, 4, 5)))
static void known_bug(enum known k, const char *in, size_t inlen, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (strict) {
		fail(in, inlen, "known bug: %s: %s", known_what[k], msg);
		return;
	}
	pthread_mutex_lock(&fail_lock);
	if (!known[k]++) {
		fprintf(stderr, "KNOWN BUG (input %llu, %s): %s\n    %s\n", cur_input, cur_kind,
			known_what[k], msg);
		if (in)
			dump(in, inlen);
	}
	pthread_mutex_unlock(&fail_lock);
}

/* UBSan's reports: each one a failure.  libubsan calls this hook on each. */
void __ubsan_on_report(void);
void __ubsan_get_current_report_data(const char **kind, const char **msg, const char **file,
				     unsigned int *line, unsigned int *col, char **addr);
void __ubsan_on_report(void)
{
	const char *kind = "", *msg = "", *file = "";
	unsigned int line = 0, col = 0;
	char *addr = NULL;

	__ubsan_get_current_report_data(&kind, &msg, &file, &line, &col, &addr);
	fail(NULL, 0, "UBSan: %s: %s:%u: %s", kind ? kind : "", file ? file : "", line,
	     msg ? msg : "");
}

const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
	return "print_stacktrace=1";
}

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	/* a config is 170 KB, two per input: a smaller quarantine, twice the speed */
	return "quarantine_size_mb=16";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- a growing string ------------------------------------------------------------ */

struct str {
	char *p;
	size_t n, cap;
};

static void sput(struct str *s, const char *p, size_t n)
{
	if (s->n + n + 1 > s->cap) {
		size_t cap = (s->n + n + 1) * 2;
		char *np = realloc(s->p, cap);

		if (!np) {
			fprintf(stderr, "exporter_fuzz: out of memory\n");
			exit(2);
		}
		s->p = np;
		s->cap = cap;
	}
	memcpy(s->p + s->n, p, n);
	s->n += n;
	s->p[s->n] = 0;
}

static void sputs(struct str *s, const char *p)
{
	sput(s, p, strlen(p));
}

__attribute__((format(printf, 2, 3)))
static void sprint(struct str *s, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sput(s, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* ---- the text format 0.0.4 ------------------------------------------------------- */

static bool name_char(int c, bool first)
{
	return isalpha(c) || c == '_' || c == ':' || (!first && isdigit(c));
}

/* A metric name at @p; its length, 0 if none */
static size_t metric_name(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && name_char((unsigned char)*q, q == p))
		q++;
	return q - p;
}

/* A value as Go's ParseFloat takes it (but for hex floats, not served) */
static bool value_ok(const char *p, size_t n)
{
	static const char *const special[] = { "NaN", "+Inf", "-Inf", "Inf", "nan", "inf",
					       "-inf", "+inf" };
	char buf[64], *end;
	size_t i;

	if (!n || n >= sizeof(buf))
		return false;
	memcpy(buf, p, n);
	buf[n] = 0;
	for (i = 0; i < ARRAY_SIZE(special); i++)
		if (!strcmp(buf, special[i]))
			return true;
	for (i = 0; i < n; i++)
		if (!isdigit((unsigned char)buf[i]) && !strchr("+-.eE", buf[i]))
			return false;
	errno = 0;
	strtod(buf, &end);
	return !*end && (isdigit((unsigned char)buf[0]) || strchr("+-.", buf[0]));
}

struct expo_state {
	char fam[160];		/* the metric of the last HELP or TYPE line */
	char prev_base[160];	/* the last metric's name, without a counter's _total */
	const char *prev_labels;	/* the metric's last series', in the text */
	size_t prev_len;
	bool help, typed, any_fam;
	unsigned int fam_samples;
};

/* A "# HELP name text" or "# TYPE name counter|gauge" line; NULL, or what is wrong */
static const char *check_comment(struct expo_state *st, const char *p, const char *nl)
{
	bool help = !strncmp(p, "# HELP ", 7), counter;
	const char *q = p + 7, *t;
	size_t n, tl;
	char base[160];

	if (!help && strncmp(p, "# TYPE ", 7))
		return "a comment that is not HELP or TYPE";
	n = metric_name(q, nl);
	if (!n || n >= sizeof(st->fam))
		return "HELP or TYPE without a metric name";
	if (help) {
		if (st->any_fam && st->typed && !st->fam_samples)
			return "a metric without samples";
		if (st->help && !st->typed)
			return "HELP twice";
		memcpy(st->fam, q, n);
		st->fam[n] = 0;
		q += n;
		if (q < nl && *q != ' ')
			return "HELP: a name then a blank";
		/* the text's escapes: backslash and newline */
		for (q++; q < nl; q++) {
			if (*q != '\\')
				continue;
			if (q + 1 >= nl || (q[1] != '\\' && q[1] != 'n'))
				return "HELP: a backslash not escaped";
			q++;
		}
		st->help = true;
		st->typed = false;
		return NULL;
	}
	t = q + n;
	tl = nl - t;
	counter = tl == 8 && !memcmp(t, " counter", 8);
	if (!st->help || st->typed || strncmp(st->fam, q, n) || st->fam[n])
		return "TYPE not right after its HELP";
	if (!counter && !(tl == 6 && !memcmp(t, " gauge", 6)))
		return "TYPE neither counter nor gauge";
	snprintf(base, sizeof(base), "%s", st->fam);
	if (counter) {
		if (n < 7 || strcmp(st->fam + n - 6, "_total"))
			return "a counter not named _total";
		base[n - 6] = 0;
	}
	/* sorted by the samples' names, which are without _total */
	if (st->any_fam && strcmp(st->prev_base, base) >= 0)
		return "metrics not sorted by name, or one twice";
	memcpy(st->prev_base, base, sizeof(base));
	st->any_fam = st->typed = true;
	st->help = false;
	st->fam_samples = 0;
	st->prev_labels = NULL;
	return NULL;
}

static bool label_name_char(int c, bool first)
{
	return isalpha(c) || c == '_' || (!first && isdigit(c));
}

/*
 * The labels at *@pq (after a '{'), within the line ending at @nl:
 * name="value" pairs, the values' backslashes escaping \, " or n, each
 * name once.  *@pq at their '}'; NULL, or what is wrong.
 */
static const char *check_labels(const char **pq, const char *nl)
{
	const char *q = *pq;
	char names[8][64];
	unsigned int nn = 0, k;

	for (;;) {
		size_t ln = 0;

		while (q + ln < nl && label_name_char((unsigned char)q[ln], !ln))
			ln++;
		if (!ln || q + ln + 1 >= nl || q[ln] != '=' || q[ln + 1] != '"')
			return "a label not name=\"";
		for (k = 0; k < nn; k++)
			if (strlen(names[k]) == ln && !memcmp(names[k], q, ln))
				return "a label twice";
		if (nn == ARRAY_SIZE(names) || ln >= sizeof(names[0]))
			return "too many labels, or too long a name";
		memcpy(names[nn], q, ln);
		names[nn++][ln] = 0;
		for (q += ln + 2; q < nl && *q != '"'; q++) {
			if (*q != '\\')
				continue;
			if (q + 1 >= nl || !strchr("\\\"n", q[1]))
				return "a label value's backslash not escaped";
			q++;
		}
		if (q >= nl)
			return "a label value not closed";
		q++;
		if (q < nl && *q == '}')
			break;
		if (q >= nl || *q != ',')
			return "labels not closed by }";
		q++;
	}
	*pq = q;
	return NULL;
}

/* A "name{labels} value" line of the last TYPE's metric; NULL, or what is wrong */
static const char *check_sample(struct expo_state *st, const char *p, const char *nl)
{
	size_t n = metric_name(p, nl), ll, pl = st->prev_len;
	const char *q = p + n, *lab = q, *lab_end = q, *ret;
	int cmp;

	if (!n)
		return "a sample line without a metric name";
	if (!st->typed || strncmp(p, st->fam, n) || st->fam[n])
		return "a sample not of the last TYPE's metric";
	if (*q == '{') {
		lab = ++q;
		ret = check_labels(&q, nl);
		if (ret)
			return ret;
		lab_end = q++;
		if (lab_end == lab)
			return "{} without labels";
	}
	/* the series sorted by labels, in strcmp()'s order: each once */
	ll = lab_end - lab;
	if (st->prev_labels) {
		cmp = memcmp(st->prev_labels, lab, pl < ll ? pl : ll);
		if (cmp > 0 || (!cmp && pl >= ll))
			return "a metric's series not sorted, or one twice";
	}
	st->prev_labels = lab;
	st->prev_len = ll;
	if (q >= nl || *q != ' ' || !value_ok(q + 1, nl - q - 1))
		return "not a blank and a value after the labels";
	st->fam_samples++;
	return NULL;
}

/*
 * Check @text (@len bytes) as the exposition expo_render() promises; the
 * number of sample lines in *@samples.  NULL, or what is wrong (the
 * thread's buffer).
 */
static const char *check_expo(const char *text, size_t len, unsigned int *samples)
{
	static __thread char why[256];
	struct expo_state st = { .prev_labels = NULL };
	const char *p = text, *end = text + len, *ret = NULL;
	unsigned int lineno = 0;

	*samples = 0;
	if (memchr(text, 0, len))
		return "a NUL byte";
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', end - p);

		lineno++;
		if (!nl) {
			ret = "the last line has no newline";
			break;
		}
		if (*p == '#')
			ret = check_comment(&st, p, nl);
		else if (!(ret = check_sample(&st, p, nl)))
			(*samples)++;
		p = nl + 1;
	}
	if (!ret && st.help && !st.typed)
		ret = "HELP without TYPE";
	if (!ret && st.any_fam && st.typed && !st.fam_samples)
		ret = "a metric without samples";
	if (!ret)
		return NULL;
	snprintf(why, sizeof(why), "line %u: %s", lineno, ret);
	return why;
}

/* The checker on expositions it must take, and on those it must not */
static bool check_expo_selftest(void)
{
	static const char good[] =
		"# HELP a_total A \\\\ \\n \"q\"\n# TYPE a_total counter\n"
		"a_total 1\na_total{k=\"\"} 2\na_total{k=\"a\\\\b\\\"c\\nd\",l=\"\x01\"} 3.5e-07\n"
		"# HELP a_b \n# TYPE a_b gauge\na_b{k=\"v\"} -Inf\n";
	static const char *const bad[] = {
		"# HELP a x\n# TYPE a gauge\na 1",			/* no newline */
		"# HELP a x\n# TYPE a gauge\na{k=\"a\\b\"} 1\n",	/* \b */
		"# HELP a x\n# TYPE a gauge\na{k=\"a\"b\"} 1\n",	/* a quote */
		"# HELP a x\n# TYPE a gauge\na{k=\"b\"} 1\na{k=\"a\"} 1\n",
		"# HELP a x\n# TYPE a gauge\na{k=\"a\"} 1\na{k=\"a\"} 2\n",
		"# TYPE a gauge\n# HELP a x\na 1\n",
		"# HELP a x\n# TYPE a counter\na 1\n",			/* no _total */
		"a 1\n",
		"# HELP a x\n# TYPE a gauge\na{} 1\n",
		"# HELP a x\n# TYPE a gauge\na x\n",
		"# HELP a x\n# TYPE a gauge\na -nan\n",
		"# HELP b x\n# TYPE b gauge\nb 1\n# HELP a x\n# TYPE a gauge\na 1\n",
		"# HELP a x\n# TYPE a gauge\na 1\n# HELP a x\n# TYPE a gauge\na{k=\"v\"} 1\n",
		"# HELP a x\n# TYPE a gauge\na{k=\"v\",k=\"w\"} 1\n",
		"# HELP a x\\y\n# TYPE a gauge\na 1\n",			/* \y */
		"# HELP a x\n# TYPE a gauge\n",
		"# a comment\n",
		"# HELP a x\n# TYPE a gauge\na  1\n",
	};
	unsigned int n, i;
	bool ok = true;

	if (check_expo(good, strlen(good), &n) || n != 4) {
		fprintf(stderr, "exporter_fuzz: the checker refuses a good exposition: %s\n",
			check_expo(good, strlen(good), &n));
		ok = false;
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (!check_expo(bad[i], strlen(bad[i]), &n)) {
			fprintf(stderr, "exporter_fuzz: the checker takes bad exposition %u\n", i);
			ok = false;
		}
	return ok;
}

/* ---- (a) configurations ----------------------------------------------------------- */

struct lines {
	char **v;
	size_t n;
};

static void lines_free(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void lines_insert(struct lines *l, size_t at, char *s)
{
	char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v || !s) {
		fprintf(stderr, "exporter_fuzz: out of memory\n");
		exit(2);
	}
	l->v = v;
	memmove(v + at + 1, v + at, (l->n - at) * sizeof(*v));
	v[at] = s;
	l->n++;
}

static void lines_split(struct lines *l, const char *text)
{
	const char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		lines_insert(l, l->n, strndup(p, nl - p));
		p = *nl ? nl + 1 : nl;
	}
}

static const char *const cfg_names[] = {
	"foo", "a", "a_b", "x1", "ucf_cycles", "pcie_read_bytes", "nic_port_rx_bytes",
	"iio_clockticks", "foo_total", "Foo", "1foo", "_foo", "a-b", "x__total",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
};
static const char *const cfg_pmus[] = {
	"nvidia_ucf_pmu", "nvidia_pcie_pmu", "nvidia_pcie_tgt_pmu", "uncore_iio",
	"uncore_iio_free_running", "upmu_nic", "nvidia", "uncore", "a", "a_b", "Nvidia",
	"nv-pcie", "1abc", "uncore_cha",
};
static const char *const cfg_specs[] = {
	"cycles", "rd_bytes,src_rp_mask=%rp_mask", "wr_bytes,src_bdf=%bdf,src_bdf_en=1",
	"bw_in_port%part", "port_rx_bytes,port=%port", "pcie_rd_count,link=%link",
	"event=0x83,umask=0x4,ch_mask=0xff", "%rp_mask", "%bogus", "rd%", "a\"b", "A",
	"%rp_mask,%port", "%partx", "x=1", "e.v",
};
static const char *const cfg_opts[] = {
	"fixed", "x=4", "x=0.5", "x=0", "x=-1", "x=1e12", "x=1e13", "x=nan", "x=inf", "x=",
	"x=0x10", "per=rp", "per=bdf", "per=part", "per=port", "per=link", "per=none",
	"per=", "bogus", "fixed=1", "help=Some help", "help=a \\ b \"c\"", "help=",
};
static const char *const cfg_nums[] = {
	"0", "1", "5", "49", "50", "64", "65", "200", "3600", "3601", "4096", "4097",
	"60000", "60001", "-1", "+5", "0x10", "5x", "99999999999999999999", "4294967296",
	" ", "",
};
static const char *const cfg_listens[] = {
	"127.0.0.1:9464", "[::1]:9464", "[::1:9464", "::1:9464", "localhost:9464",
	"0.0.0.0:0", "1.2.3.4:65535", "1.2.3.4:65536", "[fe80::1]:1", ":80", "[]:1",
	"1.2.3.4:", "1.2.3.4", "[1.2.3.4]:80", "1.2.3.4:+80", "1.2.3.4:80x", "256.1.1.1:80",
	"[::ffff:1.2.3.4]:80",
};
static const char *const cfg_keys[] = {
	"listen", "cache_ms", "rescan_ms", "max_clients", "timeout_s", "defaults", "series",
	"bdf", "counters", "#", "bogus", "series", "series", "counters", "bdf",
};
static const char *const blanks[] = { " ", " ", " ", "\t", "  ", " \t " };

static void random_bdf(char *buf, size_t len)
{
	static const char alpha[] = "0123456789abcdefABCDEF:.+-x g";
	unsigned int k, m = below(3);

	/* now and then a device or function just out of range */
	snprintf(buf, len, "%04x:%02x:%02x.%x", (unsigned int)below(0x10000),
		 (unsigned int)below(256), (unsigned int)(below(4) ? below(32) : 28 + below(8)),
		 (unsigned int)(below(4) ? below(8) : 6 + below(4)));
	for (k = 0; k < m; k++)
		buf[below(strlen(buf))] = alpha[below(sizeof(alpha) - 1)];
	if (!below(10))
		buf[below(strlen(buf) + 1)] = 0;
}

/* A line from the keywords and their words, mostly right */
static char *random_line(void)
{
	const char *key = PICK(cfg_keys);
	struct str s = { 0 };
	char bdf[32];
	unsigned int i, n;

	if (below(8))
		sputs(&s, below(8) ? "" : PICK(blanks));
	sputs(&s, key);
	sputs(&s, PICK(blanks));
	if (!strcmp(key, "listen")) {
		sputs(&s, PICK(cfg_listens));
	} else if (!strcmp(key, "defaults")) {
		sputs(&s, below(2) ? "on" : below(4) ? "off" : "maybe");
	} else if (!strcmp(key, "series")) {
		sputs(&s, PICK(cfg_names));
		sputs(&s, PICK(blanks));
		sputs(&s, PICK(cfg_pmus));
		sputs(&s, PICK(blanks));
		sputs(&s, PICK(cfg_specs));
		n = below(4);
		for (i = 0; i < n; i++) {
			sputs(&s, PICK(blanks));
			sputs(&s, PICK(cfg_opts));
		}
	} else if (!strcmp(key, "bdf")) {
		random_bdf(bdf, sizeof(bdf));
		sputs(&s, bdf);
	} else if (!strcmp(key, "counters")) {
		sputs(&s, PICK(cfg_pmus));
		sputs(&s, PICK(blanks));
		sputs(&s, PICK(cfg_nums));
	} else if (strcmp(key, "#")) {
		sputs(&s, PICK(cfg_nums));
	} else {
		sputs(&s, "comment");
	}
	if (!below(12)) {
		sputs(&s, PICK(blanks));
		sputs(&s, below(2) ? "x" : PICK(cfg_nums));
	}
	if (!s.p)
		sputs(&s, "");
	return s.p;
}

static void mutate_bytes(char **line)
{
	static const char alpha[] = "az09_=,.%:#\"\\ \t-x";
	size_t l = strlen(*line);
	char *s;

	switch (below(5)) {
	case 0:		/* a byte changed, to one of the words' or any */
		if (l)
			(*line)[below(l)] = below(3) ? alpha[below(sizeof(alpha) - 1)] :
						      (char)(1 + below(255));
		break;
	case 1:		/* cut */
		(*line)[below(l + 1)] = 0;
		break;
	case 2:		/* a byte inserted (NUL: the line ends there, not a NUL byte) */
		s = malloc(l + 2);
		if (!s)
			exit(2);
		{
			size_t at = below(l + 1);

			memcpy(s, *line, at);
			s[at] = below(2) ? alpha[below(sizeof(alpha) - 1)] : (char)(1 + below(255));
			memcpy(s + at + 1, *line + at, l - at + 1);
		}
		free(*line);
		*line = s;
		break;
	case 3:		/* very long */
		s = malloc(l + 1200);
		if (!s)
			exit(2);
		memcpy(s, *line, l);
		{
			size_t k = 1000 + below(60);

			memset(s + l, below(2) ? 'a' : ' ', k);
			s[l + k] = 0;
		}
		free(*line);
		*line = s;
		break;
	default:	/* a word of another line */
		{
			char *r = random_line();
			struct str t = { 0 };

			sputs(&t, *line);
			sputs(&t, PICK(blanks));
			sputs(&t, r + below(strlen(r) + 1));
			free(r);
			free(*line);
			*line = t.p;
		}
	}
}

/* A text of valid lines only, edges included: cfg_parse() takes it. */
static void gen_valid(struct str *text)
{
	static const char *const pmus[] = {
		"nvidia_ucf_pmu", "nvidia_pcie_pmu", "uncore_iio", "upmu_nic", "nvidia", "a",
		"uncore_iio_free_running", "x1_y2",
	};
	static const struct { const char *spec; enum per per; } specs[] = {
		{ "cycles", PER_NONE }, { "event=0x83,umask=0x4,ch_mask=0xff", PER_NONE },
		{ "rd_bytes,src_rp_mask=%rp_mask", PER_RP },
		{ "wr_bytes,src_bdf=%bdf,src_bdf_en=1", PER_BDF }, { "bw_in_port%part", PER_PART },
		{ "port_rx_bytes,port=%port", PER_PORT }, { "pcie_rd_count,link=%link", PER_LINK },
	};
	static const char *const per_word[] = { "", "per=rp", "per=bdf", "per=part", "per=port",
						"per=link" };
	static const char *const factors[] = { "x=4", "x=0.5", "x=1e12", "x=1e-3", "x=2.5e2" };
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
	static const char *const v6[] = { "::1", "fe80::1:2", "::ffff:10.0.0.1", "::" };
	unsigned int i, m, n = 1 + below(14), nbdf = 0, nbud = 0;
	char word[64];
	bool help;

	for (i = 0; i < n; i++) {
		help = false;
		if (below(3))
			sputs(text, PICK(blanks));
		switch (below(11)) {
		case 0:
			/* ports: 1, 65535 or between */
			m = below(3) ? 1 + below(65535) : below(2) ? 1 : 65535;
			if (below(2))
				sprint(text, "listen %u.%u.%u.%u:%u", (unsigned int)below(256),
				       (unsigned int)below(256), (unsigned int)below(256),
				       (unsigned int)below(256), m);
			else
				sprint(text, "listen [%s]:%u", PICK(v6), m);
			break;
		case 1:
			sprint(text, "cache_ms%s%u", PICK(blanks),
			       below(2) ? (unsigned int)below(60001) : below(2) ? 0 : 60000);
			break;
		case 2:
			sprint(text, "rescan_ms %u",
			       below(2) ? 50 + (unsigned int)below(59951) : below(2) ? 50 : 60000);
			break;
		case 3:
			sprint(text, "max_clients %u",
			       below(2) ? 1 + (unsigned int)below(4096) : below(2) ? 1 : 4096);
			break;
		case 4:
			sprint(text, "timeout_s %u",
			       below(2) ? 1 + (unsigned int)below(3600) : below(2) ? 1 : 3600);
			break;
		case 5:
			sputs(text, below(2) ? "defaults on" : "defaults off");
			break;
		case 6:
		case 7: {
			unsigned int k = below(ARRAY_SIZE(specs)), l;
			size_t at = 0;

			/* a name of its own: v<i>_ then up to 48 in all */
			at = snprintf(word, sizeof(word), "v%u_", i);
			l = below(4) ? below(12) : 48 - at;
			for (m = 0; m < l; m++)
				word[at + m] = alnum[below(sizeof(alnum) - 1)];
			word[at + l] = 0;
			sprint(text, "series%s%s%s%s%s%s", PICK(blanks), word, PICK(blanks),
			       PICK(pmus), PICK(blanks), specs[k].spec);
			if (specs[k].per != PER_NONE)
				sprint(text, "%s%s", PICK(blanks), per_word[specs[k].per]);
			if (!below(3))
				sprint(text, " %s", below(2) ? "fixed" : PICK(factors));
			if (!below(2)) {
				/* help: any printable, up to 159, the rest of the line */
				help = true;
				l = below(4) ? below(40) : 159;
				sputs(text, " help=");
				for (m = 0; m < l; m++) {
					char c = below(10) ? (char)(0x20 + below(0x5f)) : '\t';

					sput(text, &c, 1);
				}
			}
			break;
		}
		case 8:
			/* a device of its own: the segment is its number */
			sprint(text, below(2) ? "bdf %04x:%02x:%02x.%x" : "bdf %04X:%02X:%02X.%X",
			       nbdf++, (unsigned int)below(256),
			       below(2) ? (unsigned int)below(32) : 31,
			       below(2) ? (unsigned int)below(8) : 7);
			break;
		case 9:
			sprint(text, "counters c%u_%s %u", nbud++, PICK(pmus),
			       below(2) ? (unsigned int)below(65) : below(2) ? 0 : 64);
			break;
		default:
			sputs(text, below(2) ? "# a comment: listen 1.2.3.4:5 \\ \"" : "");
		}
		if (!help && below(4))
			sputs(text, below(3) ? "" : PICK(blanks));
		if (i + 1 < n || below(2))
			sputs(text, "\n");
	}
	if (!text->p)
		sputs(text, "");
}

/*
 * The text of a generated configuration, in @text (no NUL counted);
 * *@valid if it is of valid lines only.
 */
static void gen_config(struct str *text, bool *valid)
{
	struct lines l = { 0 };
	unsigned int i, n, k = below(100);
	size_t j;

	*valid = false;
	if (k >= 65 && k < 80) {
		*valid = true;
		gen_valid(text);
		return;
	}
	if (k < 40) {
		/* the built-in text, mutated */
		lines_split(&l, cfg_builtin);
		n = 1 + below(4);
		for (i = 0; i < n && l.n; i++) {
			size_t a = below(l.n), b = below(l.n);
			char *t;

			switch (below(7)) {
			case 0:
				free(l.v[a]);
				memmove(l.v + a, l.v + a + 1, (l.n - a - 1) * sizeof(*l.v));
				l.n--;
				break;
			case 1:
				lines_insert(&l, b, strdup(l.v[a]));
				break;
			case 2:
				t = l.v[a];
				l.v[a] = l.v[b];
				l.v[b] = t;
				break;
			case 3:
				free(l.v[a]);
				l.v[a] = random_line();
				break;
			case 4:
				lines_insert(&l, b, random_line());
				break;
			default:
				mutate_bytes(&l.v[a]);
			}
		}
		if (!below(3))
			lines_insert(&l, below(l.n + 1),
				     strdup(below(2) ? "defaults off" : "defaults on"));
	} else if (k < 65) {
		n = below(16);
		for (i = 0; i < n; i++) {
			lines_insert(&l, l.n, random_line());
			if (!below(6))
				mutate_bytes(&l.v[l.n - 1]);
		}
	} else if (k < 92) {
		/* random bytes, mostly printable */
		struct str s = { 0 };

		n = below(400);
		for (i = 0; i < n; i++) {
			char c = below(10) ? (below(12) ? (char)(0x20 + below(0x5f)) : '\n') :
					     (char)below(256);

			sput(&s, &c, 1);
		}
		*text = s;
		if (!text->p)
			sputs(text, "");
		return;
	} else {
		/* the limits: many series, counters or bdf lines */
		unsigned int kind = below(3);

		n = kind == 0 ? 190 + below(80) : kind == 1 ? 20 + below(16) : 58 + below(10);
		if (!below(3))
			lines_insert(&l, 0, strdup("defaults off"));
		for (i = 0; i < n; i++) {
			char buf[128];

			if (kind == 0)
				snprintf(buf, sizeof(buf), "series s%u_%u %s cycles", i,
					 (unsigned int)below(1000), PICK(cfg_pmus));
			else if (kind == 1)
				snprintf(buf, sizeof(buf), "counters p%u %u", i,
					 (unsigned int)below(65));
			else
				snprintf(buf, sizeof(buf), "bdf %04x:%02x:%02x.%x", i,
					 (unsigned int)below(256), (unsigned int)below(32),
					 (unsigned int)below(8));
			lines_insert(&l, l.n, strdup(buf));
		}
		if (!below(4))
			mutate_bytes(&l.v[below(l.n)]);
	}
	for (j = 0; j < l.n; j++) {
		sputs(text, l.v[j]);
		if (j + 1 < l.n || below(4))
			sputs(text, below(40) ? "\n" : "\r\n");
	}
	if (!text->p)
		sputs(text, "");
	lines_free(&l);
}

/* Line @no (from 1) of @text: its start and length; false if none */
static bool text_line(const char *text, size_t len, unsigned int no, size_t *at, size_t *n)
{
	size_t i = 0;
	unsigned int k = 1;

	while (k < no) {
		const char *nl = memchr(text + i, '\n', len - i);

		if (!nl)
			return false;
		i = nl - text + 1;
		k++;
	}
	if (i >= len)
		return false;
	*at = i;
	*n = (memchr(text + i, '\n', len - i) ? (const char *)memchr(text + i, '\n', len - i) :
						   text + len) - (text + i);
	return true;
}

static unsigned int text_lines(const char *text, size_t len)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

/* The blank-separated words of a line, into @w (at most @max of 200 chars) */
static unsigned int words(const char *line, size_t n, char w[][200], unsigned int max)
{
	unsigned int k = 0;
	size_t i = 0;

	while (i < n && k < max) {
		size_t j;

		while (i < n && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= n)
			break;
		for (j = i; j < n && line[j] != ' ' && line[j] != '\t'; j++)
			;
		snprintf(w[k++], 200, "%.*s", (int)(j - i), line + i);
		i = j;
	}
	return k;
}

static bool lower_digits(const char *s, bool first_lower)
{
	if (first_lower && !islower((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool bdf_syntax(const char *w)
{
	static const char pat[] = "xxxx:xx:xx.f";
	size_t i;

	if (strlen(w) != 12)
		return false;
	for (i = 0; i < 12; i++) {
		if (pat[i] == 'x' ? !isxdigit((unsigned char)w[i]) :
		    pat[i] == 'f' ? (w[i] < '0' || w[i] > '7') : w[i] != pat[i])
			return false;
	}
	return isxdigit((unsigned char)w[8]) && strtoul(w + 8, NULL, 16) <= 31;
}

static const char *const holes[] = { NULL, "%rp_mask", "%bdf", "%part", "%port", "%link" };

/* pmu_matches() as the documentation and config.c's comment say */
static bool ref_matches(const char *pmu, const char *prefix)
{
	size_t l = strlen(prefix);
	const char *r;

	if (strncmp(pmu, prefix, l))
		return false;
	r = pmu + l;
	if (!*r)
		return true;
	if (r[0] != '_' || !isxdigit((unsigned char)r[1]))
		return false;
	for (r++; isxdigit((unsigned char)*r); r++)
		;
	if (!*r)
		return true;
	if (strncmp(r, "_rc_", 4) || !isdigit((unsigned char)r[4]))
		return false;
	for (r += 4; isdigit((unsigned char)*r); r++)
		;
	return !*r;
}

static unsigned int ref_counters(const struct config *c, const char *pmu)
{
	unsigned int i, n = 0;
	size_t best = 0;

	for (i = 0; i < c->nr_budget; i++) {
		const char *b = c->budget[i].pmu;
		size_t l = strlen(b);

		if (!strncmp(pmu, b, l) && (pmu[l] == '_' || !pmu[l]) && l > best) {
			best = l;
			n = c->budget[i].counters;
		}
	}
	return n;
}

/* The series names and budgets of the built-in text, once */
static struct lines builtin_series, builtin_budgets;

static void builtin_load(void)
{
	struct lines l = { 0 };
	char w[3][200];
	size_t i;

	lines_split(&l, cfg_builtin);
	for (i = 0; i < l.n; i++) {
		unsigned int k = words(l.v[i], strlen(l.v[i]), w, 3);

		if (k >= 2 && !strcmp(w[0], "series"))
			lines_insert(&builtin_series, builtin_series.n, strdup(w[1]));
		else if (k >= 2 && !strcmp(w[0], "counters"))
			lines_insert(&builtin_budgets, builtin_budgets.n, strdup(w[1]));
	}
	lines_free(&l);
}

static bool in_lines(const struct lines *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* A configuration cfg_parse() took, against the rules and the text */
static void check_config(const struct config *c, const char *text, size_t len)
{
	struct lines file_series = { 0 }, file_budgets = { 0 };
	unsigned int i, j, lines = text_lines(text, len), nser = 0, nbud = 0, nbdf = 0;
	bool defaults = true;
	unsigned char buf[16];
	char w[4][200];
	size_t at, n;

#define BAD(...) do { fail(text, len, __VA_ARGS__); goto out; } while (0)
	/* what the text's lines say */
	for (i = 1, at = 0; i <= lines && at < len; i++, at += n + 1) {
		const char *nl = memchr(text + at, '\n', len - at);
		unsigned int k;

		n = nl ? (size_t)(nl - (text + at)) : len - at;
		k = words(text + at, n, w, 4);
		if (!k || w[0][0] == '#')
			continue;
		/* the words each keyword takes, no more */
		if (strcmp(w[0], "series") &&
		    k != (strcmp(w[0], "counters") ? 2u : 3u))
			BAD("line %u: '%s' with %u words taken", i, w[0], k);
		if (!strcmp(w[0], "series") && k >= 2) {
			nser++;
			if (!in_lines(&file_series, w[1]))
				lines_insert(&file_series, file_series.n, strdup(w[1]));
		} else if (!strcmp(w[0], "counters") && k >= 2) {
			nbud++;
			lines_insert(&file_budgets, file_budgets.n, strdup(w[1]));
		} else if (!strcmp(w[0], "bdf") && k == 2) {
			nbdf++;
			/* the known bug: what sscanf's %x takes more than hex digits */
			if (!bdf_syntax(w[1]) && strpbrk(w[1], "+-xX"))
				known_bug(KB_BDF_SYNTAX, text, len, "bdf '%s' taken", w[1]);
			else if (!bdf_syntax(w[1]))
				BAD("bdf '%s' taken", w[1]);
		} else if (!strcmp(w[0], "defaults") && k == 2) {
			defaults = !strcmp(w[1], "on");
		}
	}
	if (c->defaults != defaults)
		BAD("defaults %d, the text's last word says %d", c->defaults, defaults);
	if (c->nr_series > CFG_MAX_SERIES || c->nr_bdf > CFG_MAX_BDFS ||
	    c->nr_budget > CFG_MAX_BUDGETS)
		BAD("over a limit: %u series, %u bdf, %u counters", c->nr_series, c->nr_bdf,
		    c->nr_budget);
	if (c->nr_bdf != nbdf)
		BAD("%u bdf taken of the text's %u", c->nr_bdf, nbdf);
	if (!defaults && (c->nr_series != nser || c->nr_budget != nbud))
		BAD("defaults off: %u series and %u counters of the text's %u and %u",
		    c->nr_series, c->nr_budget, nser, nbud);
	if (defaults) {
		unsigned int want = nser, wantb = nbud;
		size_t k;

		for (k = 0; k < builtin_series.n; k++)
			want += !in_lines(&file_series, builtin_series.v[k]);
		for (k = 0; k < builtin_budgets.n; k++)
			wantb += !in_lines(&file_budgets, builtin_budgets.v[k]);
		if (c->nr_series != want || c->nr_budget != wantb)
			BAD("%u series and %u counters, want %u and %u (the file's, built-in)",
			    c->nr_series, c->nr_budget, want, wantb);
	}
	for (i = 0; i < c->nr_series; i++) {
		const struct cfg_series *s = &c->series[i];
		size_t l = strlen(s->name);
		const char *h;

		if (!l || l > 48 || !lower_digits(s->name, true) ||
		    (l >= 6 && !strcmp(s->name + l - 6, "_total")))
			BAD("series name '%s' taken", s->name);
		if (strncmp(s->metric, "upmu_", 5) || strcmp(s->metric + 5, s->name))
			BAD("series %s: metric '%s', want upmu_%s", s->name, s->metric, s->name);
		if (!s->pmu[0] || !lower_digits(s->pmu, true))
			BAD("series %s: PMU '%s' taken", s->name, s->pmu);
		if (!s->spec[0] || strspn(s->spec, "abcdefghijklmnopqrstuvwxyz0123456789_=,.%") !=
		    strlen(s->spec))
			BAD("series %s: event '%s' taken", s->name, s->spec);
		if (strlen(s->help) >= sizeof(s->help) ||
		    strcspn(s->help, "\n\r\x01\x7f") != strlen(s->help))
			BAD("series %s: help '%s' taken", s->name, s->help);
		if (s->factor < 0 || s->factor > 1e12 || s->factor != s->factor)
			BAD("series %s: factor %g", s->name, s->factor);
		if (s->per > PER_LINK)
			BAD("series %s: per %d", s->name, s->per);
		if (s->per != PER_NONE && !strstr(s->spec, holes[s->per]))
			BAD("series %s: per=%d without its placeholder in '%s'", s->name, s->per,
			    s->spec);
		for (h = strchr(s->spec, '%'); h; h = strchr(h + 1, '%'))
			if (s->per == PER_NONE || strncmp(h, holes[s->per], strlen(holes[s->per])))
				BAD("series %s: '%s' has a placeholder not of per=%d", s->name,
				    s->spec, s->per);
		for (j = 0; j < i; j++)
			if (!strcmp(c->series[j].name, s->name) &&
			    !strcmp(c->series[j].pmu, s->pmu))
				BAD("series %s of %s twice", s->name, s->pmu);
	}
	for (i = 0; i < c->nr_bdf; i++) {
		const struct cfg_bdf *b = &c->bdf[i];

		if (b->dev > 31 || b->fn > 7)
			BAD("bdf %#x:%#x:%#x.%#x taken", b->seg, b->bus, b->dev, b->fn);
		if (b->seg > 0xffff || b->bus > 0xff) {
			/* a sign: the known bug, seen in the text above */
			known_bug(KB_BDF_SYNTAX, text, len, "bdf %#x:%#x:%#x.%#x taken", b->seg,
				  b->bus, b->dev, b->fn);
			break;
		}
		for (j = 0; j < i; j++)
			if (!memcmp(b, &c->bdf[j], sizeof(*b)))
				BAD("bdf %04x:%02x:%02x.%x twice", b->seg, b->bus, b->dev, b->fn);
	}
	for (i = 0; i < c->nr_budget; i++) {
		if (!c->budget[i].pmu[0] || !lower_digits(c->budget[i].pmu, false) ||
		    c->budget[i].counters > 64)
			BAD("counters %s %u taken", c->budget[i].pmu, c->budget[i].counters);
		for (j = 0; j < i; j++)
			if (!strcmp(c->budget[i].pmu, c->budget[j].pmu))
				BAD("counters %s twice", c->budget[i].pmu);
	}
	if (inet_pton(AF_INET, c->listen_addr, buf) != 1 &&
	    inet_pton(AF_INET6, c->listen_addr, buf) != 1)
		BAD("listen address '%s' taken", c->listen_addr);
	if (!c->port || c->port > 65535 || c->cache_ms > 60000 || c->rescan_ms < 50 ||
	    c->rescan_ms > 60000 || !c->max_clients || c->max_clients > 4096 || !c->timeout_s ||
	    c->timeout_s > 3600)
		BAD("out of range: port %u cache_ms %u rescan_ms %u max_clients %u timeout_s %u",
		    c->port, c->cache_ms, c->rescan_ms, c->max_clients, c->timeout_s);

	/* cfg_counters() and pmu_matches() against the models */
	for (i = 0; i < 8; i++) {
		static const char *const sfx[] = {
			"", "_0", "_1f", "_0_rc_3", "_x", "_", "_0_rc_", "abc", "_free_running_0",
			"_12_rc_0x", "_ab_cd",
		};
		const char *base = c->nr_series && below(2) ? c->series[below(c->nr_series)].pmu :
				   c->nr_budget ? c->budget[below(c->nr_budget)].pmu : "nvidia";
		char pmu[160];
		const char *pre;

		snprintf(pmu, sizeof(pmu), "%s%s", base, PICK(sfx));
		if (cfg_counters(c, pmu) != ref_counters(c, pmu))
			BAD("cfg_counters(%s) %u, want %u", pmu, cfg_counters(c, pmu),
			    ref_counters(c, pmu));
		pre = c->nr_series ? c->series[below(c->nr_series)].pmu : base;
		if (pmu_matches(pmu, pre) != ref_matches(pmu, pre))
			BAD("pmu_matches(%s, %s) %d", pmu, pre, pmu_matches(pmu, pre));
	}
#undef BAD
out:
	lines_free(&file_series);
	lines_free(&file_budgets);
}

static __thread struct config *fz_cfg, *fz_cfg2;

static void fuzz_config(void)
{
	struct str gen = { 0 };
	size_t errlen = below(8) ? 512 : 1 + below(40), len, at, n;
	char *text, *err, prefix[64];
	unsigned int line, lines;
	bool valid;
	int ret, pl;

	gen_config(&gen, &valid);
	/* exactly its bytes: a read past them is ASan's */
	len = gen.n;
	text = malloc(len ? len : 1);
	err = malloc(errlen);
	if (!text || !err)
		exit(2);
	memcpy(text, gen.p, len);
	free(gen.p);
	memset(err, 0x55, errlen);
	cfg_init(fz_cfg);
	ret = cfg_parse(fz_cfg, text, len, WHAT, err, errlen);
	if (valid && ret) {
		fail(text, len, "valid lines: cfg_parse() %d: %.*s", ret, (int)errlen, err);
		goto out;
	}
	if (ret == 0) {
		check_config(fz_cfg, text, len);
		goto out;
	}
	if (ret != -EINVAL) {
		fail(text, len, "cfg_parse() returned %d", ret);
		goto out;
	}
	if (!memchr(err, 0, errlen)) {
		fail(text, len, "the message is not terminated within its %zu bytes", errlen);
		goto out;
	}
	if (errlen < 512) {
		/* truncated: what fits of a message with a line */
		if (strncmp(err, WHAT ":", strlen(err) < 7 ? strlen(err) : 7))
			fail(text, len, "truncated message '%s'", err);
		goto out;
	}
	lines = text_lines(text, len);
	if (sscanf(err, WHAT ":%u: %n", &line, &pl) != 1 || !pl || !err[pl]) {
		if (!strncmp(err, WHAT ": more than ", strlen(WHAT ": more than ")))
			known_bug(KB_MERGE_MSG, text, len, "'%s'", err);
		else
			fail(text, len, "message '%s' is not \"" WHAT ":LINE: message\"", err);
		goto out;
	}
	snprintf(prefix, sizeof(prefix), WHAT ":%u: ", line);
	if (strncmp(err, prefix, strlen(prefix)) || !line || line > lines ||
	    !text_line(text, len, line, &at, &n)) {
		fail(text, len, "message '%s': not one of the text's %u lines", err, lines);
		goto out;
	}
	/*
	 * The lines before it parse, on their own (1 in 4: it costs a parse),
	 * and without the built-in series (with them, the lines of a file
	 * over a limit are an error at its end).
	 */
	if (below(4))
		goto out;
	{
		static const char off[] = "defaults off\n";
		char *pre = malloc(at + sizeof(off) - 1);

		if (!pre)
			exit(2);
		memcpy(pre, text, at);
		memcpy(pre + at, off, sizeof(off) - 1);
		cfg_init(fz_cfg2);
		ret = cfg_parse(fz_cfg2, pre, at + sizeof(off) - 1, WHAT, err, errlen);
		if (ret)
			fail(text, len, "the %u lines before the error line %u do not parse: %s",
			     line - 1, line, err);
		free(pre);
	}
out:
	free(text);
	free(err);
}

/* ---- (b) samples -------------------------------------------------------------------- */

/* Our own escaper: its length, and the text if @out */
static size_t ref_escape(const char *v, char *out)
{
	size_t n = 0;

	for (; *v; v++) {
		const char *e = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" :
				*v == '\n' ? "\\n" : NULL;

		if (e) {
			if (out)
				memcpy(out + n, e, 2);
			n += 2;
		} else {
			if (out)
				out[n] = *v;
			n++;
		}
	}
	if (out)
		out[n] = 0;
	return n;
}

static int key_cmp(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a;
	const struct sample *y = *(const struct sample *const *)b;
	int r = strcmp(x->name, y->name);

	return r ? r : strcmp(x->labels, y->labels);
}

struct span {
	const char *p;
	size_t n;
};

/* A line of the text (a span) against a string, in strcmp()'s order */
static int span_cmp(const void *a, const void *b)
{
	const struct span *k = a;
	const char *w = *(char *const *)b;
	size_t wl = strlen(w);
	int r = memcmp(k->p, w, k->n < wl ? k->n : wl);

	return r ? r : k->n < wl ? -1 : k->n > wl;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void random_name(char *buf, size_t len)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz_";
	static const char rest[] = "abcdefghijklmnopqrstuvwxyz_0123456789";
	size_t n, i;

	do {
		n = 1 + below(len - 1 < 12 ? len - 1 : 12);
		buf[0] = first[below(sizeof(first) - 1)];
		for (i = 1; i < n; i++)
			buf[i] = rest[below(sizeof(rest) - 1)];
		buf[n] = 0;
	} while (n >= 6 && !strcmp(buf + n - 6, "_total"));
}

static double random_double(void)
{
	uint64_t u;
	double d;

	switch (below(4)) {
	case 0:
		return (double)below(1000) / 8;
	case 1:
		return (double)rnd();
	case 2:
		return -(double)below(1000000) / 1000;
	default:
		do {
			u = rnd();
			memcpy(&d, &u, sizeof(d));
		} while (d != d || d - d != 0);	/* finite: see the report on -nan */
		return d;
	}
}

static void fuzz_expo(void)
{
	static const char *const lnames[] = { "pmu", "rp", "k", "a_b", "x1", "socket", "v" };
	char names[8][16], help[8][40], *text, **want;
	const struct sample **keys;
	enum mtype types[8];
	struct samples s = { 0 };
	unsigned int nnames = 1 + below(8), n, i, j, dropped = 99, lines, distinct = 0;
	unsigned int min_lines = 0;
	bool conflict[8] = { false };
	size_t len = 0;
	const char *why;

	for (i = 0; i < nnames; i++) {
		size_t hl = below(sizeof(help[0]));

		random_name(names[i], sizeof(names[i]));
		for (j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]))
				break;
		if (j < i) {	/* another name, as it may be one of the others */
			snprintf(names[i], sizeof(names[i]), "%.10s_%c", names[j], 'a' + i);
		}
		types[i] = below(2) ? M_COUNTER : M_GAUGE;
		for (j = 0; j < hl; j++)
			help[i][j] = below(8) ? (char)(0x20 + below(0x5f)) : below(2) ? '\\' : '\n';
		help[i][hl] = 0;
	}
	n = below(48) ? below(28) : 64 + below(192);
	for (i = 0; i < n; i++) {
		unsigned int nm = below(nnames), nl = below(4), k, l0 = below(ARRAY_SIZE(lnames));
		char labels[1024], esc[256], raw[128];
		size_t ll = 0, el, rl;
		enum mtype t = types[nm];
		bool fits, is_float = below(2);
		int ret;

		if (!below(12))
			t = t == M_COUNTER ? M_GAUGE : M_COUNTER;
		if (s.n && !below(10)) {
			/* a series again, maybe another value */
			const struct sample *o = &s.v[below(s.n)];
			char copy[sizeof(o->labels)];

			/* o is in s.v, which samples_add() may move */
			memcpy(copy, o->labels, sizeof(copy));
			ret = samples_add(&s, o->name, o->help, o->type, o->is_float, rnd(),
					  random_double(), "%s", copy);
			if (ret)
				fail(NULL, 0, "samples_add() of a copy: %d", ret);
			continue;
		}
		labels[0] = 0;
		for (k = 0; k < nl; k++) {
			/* a distinct name each */
			const char *ln = lnames[(l0 + k) % ARRAY_SIZE(lnames)];

			rl = below(8) ? below(32) : below(sizeof(raw));
			for (j = 0; j < rl; j++)
				raw[j] = (char)(1 + below(255));
			raw[rl] = 0;
			el = below(8) ? sizeof(esc) : below(2 * rl + 2);
			fits = label_escape(esc, el, raw);
			if (fits != (ref_escape(raw, NULL) < el)) {
				fail(raw, rl, "label_escape() in %zu bytes: %d", el, fits);
				continue;
			}
			if (!fits)
				continue;
			{
				char ref[256];

				ref_escape(raw, ref);
				if (strcmp(esc, ref)) {
					fail(raw, rl, "label_escape(): '%s', want '%s'", esc, ref);
					continue;
				}
			}
			ll += snprintf(labels + ll, sizeof(labels) - ll, "%s%s=\"%s\"",
				       ll ? "," : "", ln, esc);
		}
		ret = samples_add(&s, names[nm], help[nm], t, is_float, rnd() >> below(64),
				  random_double(), "%s", labels);
		if (ret != (strlen(labels) >= sizeof(s.v->labels) ? -E2BIG : 0))
			fail(labels, strlen(labels), "samples_add(): %d for %zu bytes of labels",
			     ret, strlen(labels));
		if (!ret && t != types[nm])
			conflict[nm] = true;
	}

	/* the lines it may print, sorted */
	want = calloc(s.n ? s.n : 1, sizeof(*want));
	keys = calloc(s.n ? s.n : 1, sizeof(*keys));
	if (!want || !keys)
		exit(2);
	for (i = 0; i < s.n; i++) {
		const struct sample *x = &s.v[i];
		char l[512], v[40];

		if (x->is_float)
			snprintf(v, sizeof(v), "%.17g", x->d);
		else
			snprintf(v, sizeof(v), "%" PRIu64, x->u);
		snprintf(l, sizeof(l), "%s%s%s%s%s %s", x->name,
			 x->type == M_COUNTER ? "_total" : "", x->labels[0] ? "{" : "", x->labels,
			 x->labels[0] ? "}" : "", v);
		want[i] = strdup(l);
		if (!want[i])
			exit(2);
		keys[i] = x;
	}
	/* distinct series, and those sure to be served */
	qsort(keys, s.n, sizeof(*keys), key_cmp);
	for (i = 0; i < s.n; i++) {
		if (i && !key_cmp(&keys[i - 1], &keys[i]))
			continue;
		distinct++;
		for (j = 0; j < nnames; j++)
			if (!strcmp(names[j], keys[i]->name))
				break;
		min_lines += j < nnames && !conflict[j];
	}
	for (j = 0; j < nnames; j++)
		min_lines += conflict[j];
	qsort(want, s.n, sizeof(*want), line_cmp);

	n = s.n;
	text = expo_render(&s, &len, &dropped);
	if (!text) {
		fail(NULL, 0, "expo_render() of %u samples: NULL", n);
		goto out;
	}
	if (len != strlen(text)) {
		fail(text, len, "expo_render(): len %zu, the text %zu", len, strlen(text));
		goto out_text;
	}
	why = check_expo(text, len, &lines);
	if (why) {
		fail(text, len, "expo_render() of %u samples: %s", n, why);
		goto out_text;
	}
	if (lines != n - dropped) {
		fail(text, len, "%u sample lines of %u samples, %u dropped", lines, n, dropped);
		goto out_text;
	}
	for (j = 0; j < nnames && !conflict[j]; j++)
		;
	if (j == nnames ? dropped != n - distinct : lines > distinct || lines < min_lines) {
		fail(text, len, "%u dropped of %u samples, %u series", dropped, n, distinct);
		goto out_text;
	}
	/* each sample line is one of the samples' */
	{
		const char *p = text, *nl;

		for (; (nl = strchr(p, '\n')); p = nl + 1) {
			struct span key = { p, nl - p };

			if (*p == '#')
				continue;
			if (!bsearch(&key, want, n, sizeof(*want), span_cmp))
				fail(text, len, "'%.*s' is not of the samples", (int)key.n, p);
		}
	}
out_text:
	free(text);
out:
	for (i = 0; i < n; i++)
		free(want[i]);
	free(want);
	free(keys);
	samples_free(&s);
}

/* ---- (c) HTTP ------------------------------------------------------------------------ */

enum expect {
	EX_ANY,		/* empty, or a status line */
	EX_METRICS,	/* 200, the exposition */
	EX_HEAD,	/* 200, its headers */
	EX_ROOT,	/* 200 */
	EX_404,
	EX_405,
	EX_TOOBIG,	/* not 200: 431 or another 4xx, or closed */
	EX_TIMEOUT,	/* closed without a word by the server's timeout_s */
};

struct conn {
	bool used, shut, shut_done, eof;
	int fd;
	enum expect ex;
	char *req, *resp;
	size_t req_len, sent, resp_len, resp_cap;
	double started, last;
	unsigned long long input;
};

static struct conn conns[MAX_CONNS];
static unsigned int nconns;
static struct server *srv;
static unsigned long http_done, http_closed, http_status[6], metrics_ok;
static unsigned long long last_scrapes;	/* of the last exposition checked */

/* A header's value in a reply's head (before @end), or NULL */
static const char *header(const char *head, const char *end, const char *name, size_t *vl)
{
	size_t nl = strlen(name);
	const char *p = head;

	while (p < end) {
		const char *e = memmem(p, end - p, "\r\n", 2);

		if (!e)
			e = end;
		if ((size_t)(e - p) > nl + 1 && !strncasecmp(p, name, nl) && p[nl] == ':') {
			const char *v = p + nl + 1;

			while (v < e && *v == ' ')
				v++;
			*vl = e - v;
			return v;
		}
		p = e + 2;
	}
	return NULL;
}

/* Is @c's reply complete: its head and Content-Length bytes (HEAD: none)? */
static bool reply_complete(const struct conn *c)
{
	const char *h = c->resp, *end, *cl;
	size_t vl, body;

	if (c->resp_len < 12)
		return false;
	/* a 1xx first: the final one follows */
	while ((end = memmem(h, c->resp + c->resp_len - h, "\r\n\r\n", 4)) &&
	       !strncmp(h + 8, " 1", 2))
		h = end + 4;
	if (!end || c->resp + c->resp_len - h < 12)
		return false;
	if (c->ex == EX_HEAD)
		return true;
	cl = header(h, end, "Content-Length", &vl);
	if (!cl)
		return false;
	body = strtoul(cl, NULL, 10);
	return (size_t)(c->resp + c->resp_len - (end + 4)) >= body;
}

static const char build_info[] =
	"\nupmu_exporter_build_info{version=\"" EXPORTER_VERSION "\"} 1\n";

static void check_reply(struct conn *c, bool timed_out)
{
	const char *r = c->resp, *head_end, *ct, *cl;
	size_t rl = c->resp_len, vl, cll;
	unsigned int status, n;
	char req[64];
	const char *why;

	snprintf(req, sizeof(req), "%.*s", (int)strcspn(c->req, "\r\n"), c->req);
	cur_input = c->input;
	cur_kind = "http";
	http_done++;
	if (timed_out) {
		fail(c->req, c->req_len, "no reply and not closed in %d ms (%zu bytes of a reply)",
		     IDLE_MS, rl);
		return;
	}
	if (!rl) {
		http_closed++;
		if (c->ex != EX_ANY && c->ex != EX_TOOBIG && c->ex != EX_TIMEOUT)
			fail(c->req, c->req_len, "'%s': closed without a reply", req);
		if (c->ex == EX_TIMEOUT && now_s() - c->started < 0.5)
			fail(c->req, c->req_len, "half-sent: closed at once, not at timeout_s");
		return;
	}
	if (rl < 13 || strncmp(r, "HTTP/1.", 7) || (r[7] != '0' && r[7] != '1') || r[8] != ' ' ||
	    !isdigit((unsigned char)r[9]) || !isdigit((unsigned char)r[10]) ||
	    !isdigit((unsigned char)r[11]) || r[12] != ' ') {
		fail(r, rl, "'%s': the reply does not start with a status line", req);
		return;
	}
	/* skip 100 Continue */
	while (r[9] == '1' && (head_end = memmem(r, c->resp + rl - r, "\r\n\r\n", 4)) &&
	       c->resp + rl - (head_end + 4) >= 13)
		r = head_end + 4;
	status = (r[9] - '0') * 100 + (r[10] - '0') * 10 + (r[11] - '0');
	http_status[status / 100 <= 5 ? status / 100 : 0]++;
	head_end = memmem(r, c->resp + rl - r, "\r\n\r\n", 4);
	switch (c->ex) {
	case EX_METRICS:
	case EX_HEAD:
	case EX_ROOT:
		if (status != 200)
			fail(c->req, c->req_len, "'%s': status %u, want 200", req, status);
		break;
	case EX_404:
		if (status != 404)
			fail(c->req, c->req_len, "'%s': status %u, want 404", req, status);
		break;
	case EX_405:
		if (status != 405)
			fail(c->req, c->req_len, "'%s': status %u, want 405", req, status);
		else if (!head_end || !(ct = header(r, head_end, "Allow", &vl)) ||
			 vl != 9 || strncmp(ct, "GET, HEAD", 9))
			fail(r, rl, "'%s': 405 without Allow: GET, HEAD", req);
		break;
	case EX_TOOBIG:
		if (status < 400 || status > 499)
			fail(c->req, 200, "a header over 16 KiB: status %u, want 4xx", status);
		break;
	case EX_TIMEOUT:
		fail(r, rl, "a half-sent request answered");
		break;
	default:
		break;
	}
	if (status != 200 || !head_end)
		return;
	ct = header(r, head_end, "Content-Type", &vl);
	if (c->ex == EX_METRICS || c->ex == EX_HEAD) {
		if (!ct || vl < 25 || strncmp(ct, "text/plain; version=0.0.4", 25)) {
			fail(r, rl, "'%s': Content-Type '%.*s'", req, ct ? (int)vl : 6,
			     ct ? ct : "(none)");
			return;
		}
	}
	if (!ct || vl < 25 || strncmp(ct, "text/plain; version=0.0.4", 25))
		return;
	/* an exposition: check it whole */
	cl = header(r, head_end, "Content-Length", &vl);
	cll = cl ? strtoul(cl, NULL, 10) : 0;
	if (c->ex == EX_HEAD || !strncmp(c->req, "HEAD", 4)) {
		if (c->ex == EX_HEAD && (size_t)(c->resp + rl - (head_end + 4)))
			fail(r, rl, "HEAD: a body");
		return;
	}
	if (!cl || cll != (size_t)(c->resp + rl - (head_end + 4))) {
		if (c->ex == EX_METRICS)
			fail(r, rl, "'%s': Content-Length %zu of a %zu-byte body", req, cll,
			     (size_t)(c->resp + rl - (head_end + 4)));
		return;
	}
	why = check_expo(head_end + 4, cll, &n);
	if (why)
		fail(head_end + 4, cll, "'%s': the exposition: %s", req, why);
	else if (!memmem(head_end + 4, cll, build_info, sizeof(build_info) - 1) ||
		 !(cl = memmem(head_end + 4, cll, "\nupmu_exporter_scrapes_total ", 29)))
		fail(head_end + 4, cll, "'%s': no build_info or scrapes", req);
	else {
		metrics_ok++;
		last_scrapes = strtoull(cl + 29, NULL, 10);
	}
}

static void conn_end(struct conn *c, bool timed_out)
{
	unsigned long long in = cur_input;
	const char *kind = cur_kind;

	check_reply(c, timed_out);
	cur_input = in;
	cur_kind = kind;
	close(c->fd);
	free(c->req);
	free(c->resp);
	memset(c, 0, sizeof(*c));
	nconns--;
}

/* Move bytes of the connections in flight, waiting up to @ms for some */
static void pump(int ms)
{
	struct pollfd p[MAX_CONNS];
	unsigned int idx[MAX_CONNS], n = 0, i;
	double t = now_s();

	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &conns[i];

		if (!c->used)
			continue;
		p[n].fd = c->fd;
		p[n].events = POLLIN | (c->sent < c->req_len ? POLLOUT : 0);
		p[n].revents = 0;
		idx[n++] = i;
	}
	if (!n)
		return;
	if (poll(p, n, ms) < 0 && errno != EINTR) {
		perror("exporter_fuzz: poll");
		exit(2);
	}
	t = now_s();
	for (i = 0; i < n; i++) {
		struct conn *c = &conns[idx[i]];
		ssize_t r;

		if (p[i].revents & POLLOUT && c->sent < c->req_len) {
			r = send(c->fd, c->req + c->sent, c->req_len - c->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (r > 0) {
				c->sent += r;
				c->last = t;
			} else if (r < 0 && errno != EAGAIN && errno != EINTR) {
				c->sent = c->req_len;	/* the server closed: what it said */
				c->shut = false;
			}
		}
		if (c->sent == c->req_len && c->shut && !c->shut_done) {
			shutdown(c->fd, SHUT_WR);
			c->shut_done = true;
		}
		if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (c->resp_cap - c->resp_len < 4096) {
				char *np;

				if (c->resp_cap >= REPLY_MAX) {
					fail(c->req, c->req_len, "a reply over %d bytes",
					     REPLY_MAX);
					conn_end(c, false);
					continue;
				}
				np = realloc(c->resp, c->resp_cap ? c->resp_cap * 2 : 8192);
				if (!np)
					exit(2);
				c->resp = np;
				c->resp_cap = c->resp_cap ? c->resp_cap * 2 : 8192;
			}
			r = recv(c->fd, c->resp + c->resp_len, c->resp_cap - c->resp_len - 1,
				 MSG_DONTWAIT);
			if (r > 0) {
				c->resp_len += r;
				c->resp[c->resp_len] = 0;
				c->last = t;
			} else if (!r || (errno != EAGAIN && errno != EINTR)) {
				c->eof = true;
			}
		}
		if (c->eof || (c->sent == c->req_len && !c->shut && reply_complete(c)))
			conn_end(c, false);
		else if ((t - c->last) * 1000 > IDLE_MS)
			conn_end(c, true);
	}
}

/* Start @req (taken) on a new connection; waits for a slot. */
static void conn_start(char *req, size_t len, enum expect ex, bool shut)
{
	struct conn *c = NULL;
	int sv[2];
	unsigned int i;

	while (nconns == MAX_CONNS)
		pump(100);
	for (i = 0; i < MAX_CONNS && conns[i].used; i++)
		;
	c = &conns[i];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror("exporter_fuzz: socketpair");
		exit(2);
	}
	if (server_add_connection(srv, sv[0])) {
		/* libmicrohttpd closed sv[0] */
		fail(req, len, "server_add_connection() failed (%u in flight)", nconns);
		close(sv[1]);
		free(req);
		return;
	}
	*c = (struct conn){ .used = true, .fd = sv[1], .req = req, .req_len = len, .ex = ex,
			    .shut = shut, .input = cur_input };
	c->started = c->last = now_s();
	nconns++;
	pump(0);
}

static void conns_drain(void)
{
	while (nconns)
		pump(100);
}

static const struct base {
	const char *req;
	enum expect ex;
} bases[] = {
	{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", EX_METRICS },
	{ "GET /metrics HTTP/1.0\r\n\r\n", EX_METRICS },
	{ "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", EX_HEAD },
	{ "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", EX_ROOT },
	{ "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n", EX_404 },
	{ "GET /metrics/ HTTP/1.1\r\nHost: x\r\n\r\n", EX_404 },
	{ "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", EX_405 },
	{ "GET /metrics?name=x HTTP/1.1\r\nHost: x\r\nAccept: text/plain\r\n"
	  "User-Agent: fuzz\r\n\r\n", EX_METRICS },
	{ "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "5\r\nhello\r\n0\r\n\r\n", EX_METRICS },
	{ "DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n", EX_405 },
	{ "GET /metrics HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
	  "Content-Length: 3\r\n\r\nabc", EX_METRICS },
	{ "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n", EX_METRICS },
};

static char *dup_req(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		exit(2);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* A header of @size bytes in a request to /metrics */
static char *big_request(size_t size, bool many, size_t *len)
{
	struct str s = { 0 };

	sputs(&s, "GET /metrics HTTP/1.1\r\nHost: x\r\n");
	if (many) {
		unsigned int i = 0;

		for (; s.n < size; i++)
			sprint(&s, "X-H%u: %0100u\r\n", i, i);
	} else {
		sputs(&s, "X-Big: ");
		while (s.n < size)
			sputs(&s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	}
	sputs(&s, "\r\n\r\n");
	*len = s.n;
	return s.p;
}

static void mutate_req(struct str *s)
{
	static const char *const tokens[] = {
		"\r\n", "\n", "\r", " ", ":", "GET", "HEAD", "/metrics", "HTTP/1.1", "HTTP/1.0",
		"HTTP/2.0", "Host: x\r\n", "Content-Length: 3\r\n", "Content-Length: -1\r\n",
		"Content-Length: 99999999999999999999\r\n", "Transfer-Encoding: chunked\r\n",
		"\r\n\r\n", "%00", "%2e%2e/", "?", "#", "\t", "\x00", "\xff", "0\r\n\r\n",
		"Connection: close\r\n", "Expect: 100-continue\r\n",
	};
	size_t at = below(s->n + 1), l;
	const char *t;

	switch (below(6)) {
	case 0:		/* a byte */
		if (s->n)
			s->p[below(s->n)] = (char)rnd();
		break;
	case 1:		/* a run deleted */
		if (s->n) {
			l = below(s->n - at + 1);
			memmove(s->p + at, s->p + at + l, s->n - at - l + 1);
			s->n -= l;
		}
		break;
	case 2:		/* a token inserted */
	case 3:
		t = PICK(tokens);
		l = t[0] ? strlen(t) : 1;
		{
			struct str n = { 0 };

			sput(&n, s->p, at);
			sput(&n, t, l);
			sput(&n, s->p + at, s->n - at);
			free(s->p);
			*s = n;
		}
		break;
	case 4:		/* a run doubled */
		if (s->n) {
			struct str n = { 0 };

			l = below(s->n - at + 1);
			sput(&n, s->p, at + l);
			sput(&n, s->p + at, s->n - at);
			free(s->p);
			*s = n;
		}
		break;
	default:	/* CRLF to LF */
		{
			char *p = memmem(s->p, s->n, "\r\n", 2);

			if (p) {
				memmove(p, p + 1, s->n - (p - s->p));
				s->n--;
			}
		}
	}
}

static void fuzz_http(void)
{
	static const char *const methods[] = {
		"PUT", "DELETE", "PATCH", "OPTIONS", "FOO", "get", "POST", "TRACE", "M-SEARCH",
	};
	unsigned int k = below(100);
	const struct base *b = &bases[below(ARRAY_SIZE(bases))];
	struct str s = { 0 };
	size_t len;
	char *req;

	if (k < 25) {
		/* as it is */
		conn_start(dup_req(b->req, strlen(b->req)), strlen(b->req), b->ex, false);
	} else if (k < 65) {
		unsigned int i, n = 1 + below(4);

		sputs(&s, b->req);
		for (i = 0; i < n; i++)
			mutate_req(&s);
		conn_start(s.p ? s.p : dup_req("", 0), s.n, EX_ANY, true);
	} else if (k < 72) {
		const char *m = PICK(methods);

		sprint(&s, "%s /metrics HTTP/1.1\r\nHost: x\r\n\r\n", m);
		/* a method of the grammar: 405 */
		conn_start(s.p, s.n, strcmp(m, "M-SEARCH") && strcmp(m, "TRACE") ? EX_405 : EX_ANY,
			   false);
	} else if (k < 80) {
		req = big_request(16 * 1024 + below(48 * 1024), below(2), &len);
		conn_start(req, len, EX_TOOBIG, true);
	} else if (k < 88) {
		unsigned int i, n = 1 + below(2000);

		for (i = 0; i < n; i++) {
			char c = below(4) ? (char)(0x20 + below(0x5f)) : (char)rnd();

			sput(&s, &c, 1);
		}
		conn_start(s.p, s.n, EX_ANY, true);
	} else if (k < 90) {
		/* half-sent: the server drops it at its timeout */
		len = below(strlen(b->req));
		conn_start(dup_req(b->req, len), len, EX_ANY, true);
	} else {
		/* pipelined, or followed by garbage */
		sputs(&s, b->req);
		if (below(2))
			sputs(&s, bases[below(ARRAY_SIZE(bases))].req);
		else
			sputs(&s, "\x01\x02garbage\r\n\r\n");
		conn_start(s.p, s.n, EX_ANY, true);
	}
}

/* The fixed checks, before the loop; the half-sent one runs alongside it. */
static void http_fixed(void)
{
	size_t i, len;
	char *req;

	cur_kind = "http-fixed";
	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		cur_input = i;
		conn_start(dup_req(bases[i].req, strlen(bases[i].req)), strlen(bases[i].req),
			   bases[i].ex, false);
		conns_drain();
	}
	cur_input = i++;
	req = big_request(20 * 1024, false, &len);
	conn_start(req, len, EX_TOOBIG, true);
	conns_drain();
	cur_input = i++;
	conn_start(dup_req("GET /metrics HTTP/1.1\r\nHost:", 29), 29, EX_TIMEOUT, false);
}

/* ---- main ------------------------------------------------------------------------------ */

static const char usage[] =
	"usage: exporter_fuzz [-n N] [-s SEED] [-f FIRST] [-k KINDS] [-j JOBS] [-v]\n"
	"  KINDS: of c (configurations), e (expositions), h (HTTP); default ceh\n"
	"  JOBS: threads for the configurations and expositions (default 2, at most 8)\n";

static unsigned long long opt_n = 100000, opt_first, opt_seed = 1;
static unsigned int opt_jobs = 2;
static const char *opt_kinds = "ceh";
static double t0;

struct job {
	unsigned int t;
	pthread_t th;
	unsigned long long nc, ne, nh;
	double cpu, wall;
};

/*
 * Input i: the HTTP ones on job 0 (the connections are its), the others
 * spread with a smaller share for job 0 (2 of 3 * JOBS - 1, the others 3
 * each).  An input is the same whichever job runs it.
 */
static unsigned int job_of(unsigned long long i)
{
	unsigned int r = i % (3 * opt_jobs - 1);

	return r < 2 ? 0 : 1 + (r - 2) / 3;
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	unsigned long long i;

	fz_cfg = malloc(sizeof(*fz_cfg));
	fz_cfg2 = malloc(sizeof(*fz_cfg2));
	if (!fz_cfg || !fz_cfg2)
		exit(2);
	for (i = opt_first; i < opt_first + opt_n; i++) {
		unsigned int k;

		rng = opt_seed * 0x2545f4914f6cdd1dULL ^ (i + 1) * 0x9e3779b97f4a7c15ULL;
		rnd();
		k = below(20);
		/* -k: only some kinds; the others' inputs are skipped */
		if (!strchr(opt_kinds, !k ? 'h' : k < 8 ? 'c' : 'e') ||
		    (k ? job_of(i) != j->t : j->t != 0))
			continue;
		cur_input = i;
		if (!k) {
			cur_kind = "http";
			j->nh++;
			fuzz_http();
		} else if (k < 8) {
			cur_kind = "config";
			j->nc++;
			fuzz_config();
		} else {
			cur_kind = "expo";
			j->ne++;
			fuzz_expo();
		}
		if (!j->t && nconns && !(i & 7))
			pump(0);
		if (verbose && !j->t && !((i - opt_first + 1) % 10000))
			fprintf(stderr, "exporter_fuzz: %llu inputs, %.1f s\n", i - opt_first + 1,
				now_s() - t0);
	}
	free(fz_cfg);
	free(fz_cfg2);
	{
		struct timespec ts;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		j->cpu = ts.tv_sec + ts.tv_nsec / 1e9;
		j->wall = now_s() - t0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static const char scfg_text[] =
		"listen 127.0.0.1:9464\ncache_ms 0\ntimeout_s 1\nmax_clients 1024\n";
	const char *soak = getenv("UPMU_SOAK"), *st = getenv("UPMU_EXPORTER_STRICT");
	char dir[] = "/tmp/exporter_fuzz.XXXXXX", err[512], *end;
	unsigned long long nc = 0, ne = 0, nh = 0;
	struct job jobs[8] = { { 0 } };
	static struct collector *col;	/* static: reachable on an early exit */
	static struct config *scfg;
	unsigned long before_metrics;
	bool n_given = false;
	unsigned int j;
	int opt;

	t0 = now_s();
	while ((opt = getopt(argc, argv, "n:s:f:k:j:vh")) != -1) {
		end = "";
		errno = 0;
		switch (opt) {
		case 'n':
			opt_n = strtoull(optarg, &end, 0);
			n_given = true;
			break;
		case 's':
			opt_seed = strtoull(optarg, &end, 0);
			break;
		case 'f':
			opt_first = strtoull(optarg, &end, 0);
			break;
		case 'j':
			opt_jobs = strtoul(optarg, &end, 0);
			if (!opt_jobs || opt_jobs > ARRAY_SIZE(jobs))
				errno = ERANGE;
			break;
		case 'k':
			opt_kinds = optarg;
			if (strspn(opt_kinds, "ceh") != strlen(opt_kinds))
				errno = EINVAL;
			break;
		case 'v':
			verbose = true;
			continue;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
		if (errno || *end || !*optarg) {
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (!n_given && soak && *soak && strcmp(soak, "0"))
		opt_n *= 10;
	/* the bugs it found are fixed: seeing one again is a failure */
	strict = !st || strcmp(st, "0");
	signal(SIGPIPE, SIG_IGN);

	if (!check_expo_selftest())
		return 2;
	/* no PMU: an empty directory of PMUs */
	if (!mkdtemp(dir) || setenv("UPMU_PMU_DEVICES", dir, 1)) {
		perror("exporter_fuzz: a PMU directory");
		return 2;
	}
	scfg = malloc(sizeof(*scfg));
	if (!scfg)
		return 2;
	builtin_load();
	cfg_init(scfg);
	if (cfg_parse(scfg, scfg_text, strlen(scfg_text), "server", err, sizeof(err))) {
		fprintf(stderr, "exporter_fuzz: %s\n", err);
		return 2;
	}
	col = collector_new(scfg);
	srv = col ? server_start(scfg, col, &lock, true, err, sizeof(err)) : NULL;
	if (!srv) {
		fprintf(stderr, "exporter_fuzz: server_start(): %s\n", col ? err : "no collector");
		return 2;
	}
	http_fixed();

	for (j = 1; j < opt_jobs; j++) {
		jobs[j].t = j;
		if (pthread_create(&jobs[j].th, NULL, run_job, &jobs[j])) {
			fprintf(stderr, "exporter_fuzz: cannot start a thread\n");
			return 2;
		}
	}
	run_job(&jobs[0]);
	for (j = 1; j < opt_jobs; j++)
		pthread_join(jobs[j].th, NULL);
	for (j = 0; j < opt_jobs; j++) {
		nc += jobs[j].nc;
		ne += jobs[j].ne;
		nh += jobs[j].nh;
		if (verbose)
			fprintf(stderr, "exporter_fuzz: job %u: %llu configs, %llu expositions, "
				"%llu HTTP, %.1f s CPU, done at %.1f s\n", j, jobs[j].nc,
				jobs[j].ne, jobs[j].nh, jobs[j].cpu, jobs[j].wall);
	}
	conns_drain();

	/* still serving */
	cur_kind = "http-fixed";
	cur_input = opt_first + opt_n;
	before_metrics = metrics_ok;
	conn_start(dup_req(bases[0].req, strlen(bases[0].req)), strlen(bases[0].req), EX_METRICS,
		   false);
	conns_drain();
	if (metrics_ok != before_metrics + 1)
		fail(NULL, 0, "GET /metrics after the loop: no exposition");
	/* cache_ms 0: a snapshot each, counting the scrapes so far */
	else if (last_scrapes < metrics_ok)
		fail(NULL, 0, "GET /metrics after the loop: %llu scrapes, %lu expositions served",
		     last_scrapes, metrics_ok);

	server_stop(srv);
	collector_free(col);
	free(scfg);
	lines_free(&builtin_series);
	lines_free(&builtin_budgets);
	rmdir(dir);

	printf("exporter_fuzz: seed %llu, inputs %llu-%llu, %u jobs: %llu configs, "
	       "%llu expositions, %llu HTTP (%lu replies: %lu 2xx %lu 4xx %lu 5xx, "
	       "%lu closed; %lu expositions); "
	       "known bugs %lu/%lu; %lu failures; %.1f s\n",
	       opt_seed, opt_first, opt_first + opt_n - 1, opt_jobs, nc, ne, nh, http_done,
	       http_status[2], http_status[4], http_status[5], http_closed, metrics_ok, known[0],
	       known[1], failures, now_s() - t0);
	return failures ? 1 : 0;
}
