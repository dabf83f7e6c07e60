/* SPDX-License-Identifier: GPL-2.0 */
/*
 * upmu-exporter: the uncore PMUs' counters in the Prometheus text format
 * (Documentation/upmu-exporter.rst).  The parts, each in a file of its
 * own so that the host tests and the fuzzer take them one by one:
 *
 *   config.c   the configuration file, and the built-in series
 *   expo.c     samples -> exposition text (format 0.0.4)
 *   collect.c  PMUs -> events -> samples (perf_event_open, sysfs)
 *   http.c     the HTTP side on libmicrohttpd, and the snapshot cache
 */
#ifndef __UPMU_EXPORTER_H__
#define __UPMU_EXPORTER_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EXPORTER_VERSION	"0.1"

/* ---- configuration ---------------------------------------------------- */

/* How one series line expands over a PMU's parts */
enum per {
	PER_NONE,
	PER_RP,		/* each root port of a PCIE PMU: %rp_mask, label rp */
	PER_BDF,	/* each configured BDF below the RC: %bdf, labels bdf, rp */
	PER_PART,	/* each IIO part with a root port: %part, label part */
	PER_PORT,	/* each NIC port: %port, label port */
	PER_LINK,	/* each NIC PCIe link: %link, label link */
};

#define CFG_MAX_SERIES	256
#define CFG_MAX_BDFS	64
#define CFG_MAX_BUDGETS	32

struct cfg_series {
	char name[64];		/* as configured */
	char metric[72];	/* upmu_<name>, served as upmu_<name>_total */
	char pmu[64];		/* PMU name prefix: the PMU or its instances */
	char spec[192];		/* perf's event terms, with %rp_mask etc. */
	char help[160];
	double factor;		/* count * factor = base units; 0: from sysfs */
	enum per per;
	bool fixed;		/* a fixed or free-running counter: no budget */
};

struct cfg_bdf {
	unsigned int seg, bus, dev, fn;
};

struct cfg_budget {
	char pmu[64];		/* PMU name prefix */
	unsigned int counters;	/* general counters per box; 0: unlimited */
};

struct config {
	char listen_addr[80];	/* numeric IPv4 or IPv6 address */
	unsigned int port;
	unsigned int cache_ms;	/* a snapshot serves scrapes this long */
	unsigned int rescan_ms;	/* PMUs looked for (gone, new) this often */
	unsigned int max_clients;
	unsigned int timeout_s;	/* an idle or half-sent request's life */
	bool defaults;		/* the built-in series too */
	struct cfg_series series[CFG_MAX_SERIES];
	unsigned int nr_series;
	struct cfg_bdf bdf[CFG_MAX_BDFS];
	unsigned int nr_bdf;
	struct cfg_budget budget[CFG_MAX_BUDGETS];
	unsigned int nr_budget;
};

/* The built-in configuration text (series and budgets), as documented. */
extern const char cfg_builtin[];

void cfg_init(struct config *c);
/*
 * Parse @text (@len bytes, no NUL needed) into @c, which cfg_init() set
 * up; @what names it in messages.  0, or -EINVAL with the first error,
 * "<what>:<line>: <message>", in @err.
 */
int cfg_parse(struct config *c, const char *text, size_t len, const char *what,
	      char *err, size_t errlen);
/* cfg_parse() of a file; -errno with @err set. */
int cfg_load(struct config *c, const char *path, char *err, size_t errlen);
/* The general-counter budget of @pmu: the longest matching prefix's, or 0. */
unsigned int cfg_counters(const struct config *c, const char *pmu);
/* Is @pmu @prefix, or an instance of it (@prefix "_" then more)? */
bool pmu_matches(const char *pmu, const char *prefix);

/* ---- samples and their exposition -------------------------------------- */

enum mtype { M_COUNTER, M_GAUGE };

struct sample {
	const char *name;	/* metric name, without _total */
	const char *help;
	enum mtype type;
	char labels[256];	/* 'k="v",k2="v2"', escaped; may be empty */
	bool is_float;
	uint64_t u;
	double d;
};

struct samples {
	struct sample *v;
	size_t n, cap;
};

/* Append one; its labels from @fmt.  0 or -ENOMEM. */
int samples_add(struct samples *s, const char *name, const char *help, enum mtype type,
		bool is_float, uint64_t u, double d, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
void samples_free(struct samples *s);
/*
 * Escape @v as a label value (backslash, double quote, newline) into
 * @buf; false if it does not fit.
 */
bool label_escape(char *buf, size_t len, const char *v);
/*
 * The exposition (text format 0.0.4) of @s, sorted by name then labels:
 * a malloc'ed string of *@len bytes, or NULL.  A name that appears with
 * two types, or a series twice, is left out after its first and counted
 * in *@dropped.
 */
char *expo_render(struct samples *s, size_t *len, unsigned int *dropped);

/* ---- collection -------------------------------------------------------- */

struct collector;

struct collector *collector_new(const struct config *c);
void collector_free(struct collector *col);
/* Look for PMUs gone and new, open and close their events. */
void collector_rescan(struct collector *col);
/* Read every event into @s (with the self metrics). 0 or -ENOMEM. */
int collector_read(struct collector *col, struct samples *s);
/* The events open, one perf event spec (PMU/terms/) a line, once per PMU. */
void collector_list_events(struct collector *col, FILE *f);
/* What collector_rescan() could not open or fit, for --check-config. */
void collector_report(struct collector *col, FILE *f);

#endif
