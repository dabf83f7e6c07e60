// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-list: every upmu PMU as sysfs describes it, for scripts.
 *
 *   upmu-list [-j] [PMU ...]
 *
 * A PMU is upmu's when its name is one of upmu's families' (nvidia_*_pmu_*,
 * uncore_{iio,irp,m2pcie,iio_free_running,cha,imc,imc_free_running,m2m,upi,
 * m3upi}_<n>, uncore_pcu, uncore_ubox, upmu_nic_<serial>,
 * upmu_nicdiag_<serial>) and it has associated_cpus (intel_uncore's PMUs of
 * the same names have none).  For each: its perf type, identifier, cpumask,
 * associated_cpus, format fields (format/<field>: "config:0-7"), events
 * (events/<event>: name, perf's encoding "<pmu>/<terms>/" as perf list -j
 * prints it, and unit and scale where sysfs has them), and the files that
 * map it to devices (pci_segment, root_ports, peer, die<N>, pf).  The
 * files are those of Documentation/ABI/testing/.  A PMU argument selects
 * the PMU of that name, or every instance of it ("uncore_cha": uncore_cha_0,
 * uncore_cha_1, ...); one that matches none is an error (exit 1).
 *
 * -j: a JSON array of one object per PMU (json-c), else text.
 */

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "upmu_pmu.h"

#define VAL_LEN		4096

static const char usage[] =
"usage: upmu-list [-j] [PMU ...]\n"
"Every upmu PMU with its type, identifier, cpumask, format fields, events\n"
"(perf's encoding, unit, scale) and device mapping files, from sysfs.\n"
"  -j          JSON: an array of one object per PMU\n"
"  -h, --help  this text\n"
"A PMU is a name (nvidia_ucf_pmu_0) or every instance of one (uncore_cha).\n"
"Example:\n"
"  upmu-list -j uncore_iio | jq '.[] | {pmu, die0: .mapping.die0}'\n"
"  upmu-list nvidia_pcie_pmu_0_rc_1\n";

/* The files that map a PMU to devices (Documentation/ABI/testing/). */
static const char *const mapping_files[] = {
	"pci_segment", "root_ports", "peer", "pf",
};

static regex_t upmu_names;

static int name_cmp(const void *a, const void *b)
{
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* The sorted names of directory @dir's entries (no dot files); NULL on error. */
static char **dir_names(const char *dir, size_t *n)
{
	struct dirent *d;
	char **v = NULL;
	DIR *dp;

	*n = 0;
	dp = opendir(dir);
	if (!dp)
		return NULL;
	while ((d = readdir(dp))) {
		char **nv;

		if (d->d_name[0] == '.')
			continue;
		nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[(*n)++] = strdup(d->d_name);
	}
	closedir(dp);
	if (!v)
		v = calloc(1, sizeof(*v));
	if (v)
		qsort(v, *n, sizeof(*v), name_cmp);
	return v;
}

static void names_free(char **v, size_t n)
{
	while (n--)
		free(v[n]);
	free(v);
}

static bool is_upmu_pmu(const char *pmu)
{
	char buf[16];

	return !regexec(&upmu_names, pmu, 0, NULL, 0) &&
	       pmu_read(pmu, "associated_cpus", buf, sizeof(buf)) != -ENOENT;
}

/* @pmu is @want, or an instance of it: @want "_" digits or hex. */
static bool selected(const char *pmu, const char *want)
{
	size_t l = strlen(want);

	return !strcmp(pmu, want) ||
	       (!strncmp(pmu, want, l) && pmu[l] == '_' && pmu[l + 1] &&
		strspn(pmu + l + 1, "0123456789abcdef") == strlen(pmu + l + 1));
}

static void add_str(struct json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, json_object_new_string(val));
}

/* The PMU's description; NULL if it went away while being read. */
static struct json_object *pmu_describe(const char *pmu)
{
	struct json_object *o, *fmts, *evs, *map;
	char path[512], val[VAL_LEN], enc[VAL_LEN + 256];
	char **names;
	size_t n, i;
	uint64_t type;

	snprintf(path, sizeof(path), "%s/%s/type", pmu_devices_dir(), pmu);
	if (read_u64(path, &type))
		return NULL;
	o = json_object_new_object();
	add_str(o, "pmu", pmu);
	json_object_object_add(o, "type", json_object_new_int64(type));
	add_str(o, "identifier", pmu_read(pmu, "identifier", val, sizeof(val)) ? "" : val);
	add_str(o, "cpumask", pmu_read(pmu, "cpumask", val, sizeof(val)) ? "" : val);
	add_str(o, "associated_cpus",
		pmu_read(pmu, "associated_cpus", val, sizeof(val)) ? "" : val);

	fmts = json_object_new_object();
	snprintf(path, sizeof(path), "%s/%s/format", pmu_devices_dir(), pmu);
	names = dir_names(path, &n);
	for (i = 0; names && i < n; i++) {
		snprintf(path, sizeof(path), "format/%s", names[i]);
		if (!pmu_read(pmu, path, val, sizeof(val)))
			add_str(fmts, names[i], val);
	}
	names_free(names, n);
	json_object_object_add(o, "formats", fmts);

	evs = json_object_new_array();
	snprintf(path, sizeof(path), "%s/%s/events", pmu_devices_dir(), pmu);
	names = dir_names(path, &n);
	for (i = 0; names && i < n; i++) {
		struct json_object *e;

		if (strchr(names[i], '.'))	/* <event>.unit, <event>.scale */
			continue;
		snprintf(path, sizeof(path), "events/%s", names[i]);
		if (pmu_read(pmu, path, val, sizeof(val)))
			continue;
		e = json_object_new_object();
		add_str(e, "name", names[i]);
		snprintf(enc, sizeof(enc), "%s/%s/", pmu, val);
		add_str(e, "encoding", enc);
		snprintf(path, sizeof(path), "events/%s.unit", names[i]);
		if (!pmu_read(pmu, path, val, sizeof(val)))
			add_str(e, "unit", val);
		snprintf(path, sizeof(path), "events/%s.scale", names[i]);
		if (!pmu_read(pmu, path, val, sizeof(val)))
			add_str(e, "scale", val);
		json_object_array_add(evs, e);
	}
	names_free(names, n);
	json_object_object_add(o, "events", evs);

	map = json_object_new_object();
	for (i = 0; i < sizeof(mapping_files) / sizeof(mapping_files[0]); i++)
		if (!pmu_read(pmu, mapping_files[i], val, sizeof(val)))
			add_str(map, mapping_files[i], val);
	snprintf(path, sizeof(path), "%s/%s", pmu_devices_dir(), pmu);
	names = dir_names(path, &n);
	for (i = 0; names && i < n; i++) {
		if (strncmp(names[i], "die", 3) || !names[i][3] ||
		    strspn(names[i] + 3, "0123456789") != strlen(names[i] + 3))
			continue;
		if (!pmu_read(pmu, names[i], val, sizeof(val)))
			add_str(map, names[i], val);
	}
	names_free(names, n);
	json_object_object_add(o, "mapping", map);
	return o;
}

static void print_text(struct json_object *o)
{
	struct json_object *evs = json_object_object_get(o, "events");
	size_t i;

	printf("%s: type %d, identifier %s, cpumask %s, associated_cpus %s\n",
	       json_object_get_string(json_object_object_get(o, "pmu")),
	       json_object_get_int(json_object_object_get(o, "type")),
	       json_object_get_string(json_object_object_get(o, "identifier")),
	       json_object_get_string(json_object_object_get(o, "cpumask")),
	       json_object_get_string(json_object_object_get(o, "associated_cpus")));
	json_object_object_foreach(json_object_object_get(o, "formats"), fk, fv)
		printf("  format %s = %s\n", fk, json_object_get_string(fv));
	for (i = 0; i < json_object_array_length(evs); i++) {
		struct json_object *e = json_object_array_get_idx(evs, i), *u, *s;

		printf("  event %s", json_object_get_string(json_object_object_get(e, "encoding")));
		if (json_object_object_get_ex(e, "unit", &u))
			printf(" unit %s", json_object_get_string(u));
		if (json_object_object_get_ex(e, "scale", &s))
			printf(" scale %s", json_object_get_string(s));
		putchar('\n');
	}
	json_object_object_foreach(json_object_object_get(o, "mapping"), mk, mv)
		printf("  %s = %s\n", mk, json_object_get_string(mv));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct json_object *all;
	bool json = false, *hit;
	char **pmus;
	size_t n, i;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (regcomp(&upmu_names, "^(nvidia_(ucf|pcie|pcie_tgt|cmem_latency|nvlink_c2c|nvclink|nvdlink)_pmu_[0-9]+(_rc_[0-9]+)?|uncore_(iio|irp|m2pcie|iio_free_running|cha|imc|imc_free_running|m2m|upi|m3upi)_[0-9]+|uncore_(pcu|ubox)|upmu_nic(diag)?_[0-9a-f]+)$",
		    REG_EXTENDED | REG_NOSUB))
		return 1;
	pmus = dir_names(pmu_devices_dir(), &n);
	if (!pmus) {
		fprintf(stderr, "upmu-list: %s: %s\n", pmu_devices_dir(), strerror(errno));
		return 1;
	}
	hit = calloc(argc, sizeof(*hit));
	all = json_object_new_array();
	if (!hit || !all) {
		fprintf(stderr, "upmu-list: %s\n", strerror(ENOMEM));
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct json_object *o;
		bool sel = optind == argc;
		int a;

		if (!is_upmu_pmu(pmus[i]))
			continue;
		/* every argument that selects it (the last "no such PMU" check) */
		for (a = optind; a < argc; a++) {
			if (selected(pmus[i], argv[a])) {
				hit[a] = true;
				sel = true;
			}
		}
		if (!sel)
			continue;
		o = pmu_describe(pmus[i]);
		if (!o)
			continue;
		if (json)
			json_object_array_add(all, o);
		else {
			print_text(o);
			json_object_put(o);
		}
	}
	for (c = optind; c < argc; c++) {
		if (!hit[c]) {
			fprintf(stderr, "upmu-list: %s: no upmu PMU of that name\n", argv[c]);
			ret = 1;
		}
	}
	if (json)
		puts(json_object_to_json_string_ext(all, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(all);
	free(hit);
	names_free(pmus, n);
	regfree(&upmu_names);
	return ret;
}
