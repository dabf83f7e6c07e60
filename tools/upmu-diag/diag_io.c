// SPDX-License-Identifier: GPL-2.0
/*
 * upmu-diag's flags (command line and -j JSON), data-IDs JSON and CSV.
 * JSON goes through json-c; every value is checked for its type and
 * range, and a bad one is a message naming it, never a crash.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "diag_io.h"
#include "hw/nic_cmd.h"

#define MAX_JSON	(1 << 20)
#define MAX_IDS		4096

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void diag_opts_init(struct diag_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->output, sizeof(o->output), "%s", DIAG_DEFAULT_OUTPUT);
	o->run_time = 1;
	o->log_samples = -1;
	o->mode = UPMU_DIAG_REPETITIVE;
	o->format = UPMU_DIAG_FMT1;
}

/* ---- flag values ----------------------------------------------------------- */

enum kind { K_STR, K_U64, K_INT, K_DOUBLE, K_BOOL };

static const struct flag {
	const char *s, *l;	/* -s, --l; l is also the -j JSON key */
	enum kind kind;
	size_t off;
	uint64_t max;		/* K_U64/K_INT: largest value */
	const char *help;
} flags[] = {
	{ "p", "pci-addr", K_STR, offsetof(struct diag_opts, dev), 0,
	  "device: SERIAL.PF, fwctlN, /dev/fwctl/fwctlN or the PF's sysfs dir" },
	{ "di", "data-ids", K_STR, offsetof(struct diag_opts, data_ids), 0,
	  "data-IDs JSON file (default: the -e list)" },
	{ "o", "output", K_STR, offsetof(struct diag_opts, output), 0,
	  "output CSV file (default " DIAG_DEFAULT_OUTPUT ")" },
	{ "rt", "sample-run-time", K_DOUBLE, offsetof(struct diag_opts, run_time), 0,
	  "total sample run time, s (default 1)" },
	{ "sp", "sample-period", K_U64, offsetof(struct diag_opts, period_ns),
	  UINT64_MAX / 2, "sample period, ns (default: the device's shortest)" },
	{ "ns", "log-num-samples", K_INT, offsetof(struct diag_opts, log_samples), 16,
	  "log2 of the number of samples in the device's buffer" },
	{ "sr", "max-samples-per-read", K_U64, offsetof(struct diag_opts, max_per_read),
	  UINT32_MAX, "max samples per read" },
	{ "sm", "sample-mode", K_INT, offsetof(struct diag_opts, mode), 2,
	  "0 single, 1 repetitive (default), 2 on demand" },
	{ "of", "output-format", K_INT, offsetof(struct diag_opts, format), 2,
	  "output format 0, 1 (default) or 2" },
	{ "f", "force-ownership", K_BOOL, offsetof(struct diag_opts, force), 0,
	  "take the engine over from another user" },
	{ NULL, "sync-start", K_BOOL, offsetof(struct diag_opts, sync), 0,
	  "synchronized start of all data IDs" },
	{ NULL, "data-clear", K_BOOL, offsetof(struct diag_opts, clear), 0,
	  "clear counters each period (with --sync-start)" },
	{ "e", "example-json-path", K_STR, offsetof(struct diag_opts, example), 0,
	  "write the default data-IDs JSON to this path and exit" },
};

#define NR_FLAGS	(sizeof(flags) / sizeof(flags[0]))

static int set_str(const struct flag *f, struct diag_opts *o, const char *v,
		   char *err, size_t len)
{
	char *dst = (char *)o + f->off;

	if (strlen(v) >= DIAG_PATH)
		return fail(err, len, "--%s: value too long", f->l);
	strcpy(dst, v);
	return 0;
}

static int set_num(const struct flag *f, struct diag_opts *o, const char *v,
		   char *err, size_t len)
{
	char *end;
	void *dst = (char *)o + f->off;

	errno = 0;
	if (f->kind == K_DOUBLE) {
		double d = strtod(v, &end);

		if (errno || end == v || *end || !isfinite(d) || d < 0 || d > 1e6)
			return fail(err, len, "--%s: '%s' is not a number of seconds (0 to 1e6)",
				    f->l, v);
		*(double *)dst = d;
		return 0;
	}
	{
		unsigned long long x;

		if (*v == '-' || *v == '+' || *v == ' ')
			return fail(err, len, "--%s: '%s' is not a non-negative integer", f->l, v);
		x = strtoull(v, &end, 0);
		if (errno || end == v || *end)
			return fail(err, len, "--%s: '%s' is not a non-negative integer", f->l, v);
		if (x > f->max)
			return fail(err, len, "--%s: %s is out of range (0 to %" PRIu64 ")",
				    f->l, v, f->max);
		if (f->kind == K_INT)
			*(int *)dst = x;
		else if (f->max == UINT32_MAX)
			*(uint32_t *)dst = x;
		else
			*(uint64_t *)dst = x;
	}
	return 0;
}

static int set_flag(const struct flag *f, struct diag_opts *o, const char *v,
		    char *err, size_t len)
{
	switch (f->kind) {
	case K_STR:
		return set_str(f, o, v, err, len);
	case K_BOOL:
		*(bool *)((char *)o + f->off) = true;
		return 0;
	default:
		return set_num(f, o, v, err, len);
	}
}

int diag_parse_args(int argc, char **argv, struct diag_opts *o, char *err,
		    size_t errlen)
{
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct flag *f = NULL;
		unsigned int k;

		if (!strcmp(a, "list") && i == 1) {
			o->list = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
			continue;
		}
		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			if (i + 1 >= argc)
				return fail(err, errlen, "%s needs a JSON file", a);
			ret = diag_opts_from_json(argv[++i], o, err, errlen);
			if (ret)
				return ret;
			continue;
		}
		for (k = 0; k < NR_FLAGS && !f; k++) {
			if ((a[0] == '-' && flags[k].s && !strcmp(a + 1, flags[k].s)) ||
			    (!strncmp(a, "--", 2) && !strcmp(a + 2, flags[k].l)))
				f = &flags[k];
		}
		if (!f)
			return fail(err, errlen, "unknown argument '%s' (see -h)", a);
		if (f->kind == K_BOOL) {
			ret = set_flag(f, o, NULL, err, errlen);
		} else if (i + 1 >= argc) {
			return fail(err, errlen, "%s needs a value", a);
		} else {
			ret = set_flag(f, o, argv[++i], err, errlen);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- JSON ------------------------------------------------------------------ */

/* Parses all of @text (one JSON value, nothing after it) or NULL. */
static json_object *parse(const char *text, char *err, size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *obj;
	size_t n = strlen(text), end;

	if (!tok) {
		fail(err, len, "out of memory");
		return NULL;
	}
	/* RFC 8259, not json-c's lenient defaults (trailing commas, ...) */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	obj = json_tokener_parse_ex(tok, text, n);
	if (json_tokener_get_error(tok) == json_tokener_continue) {
		fail(err, len, "malformed JSON: it ends before the value does");
		json_object_put(obj);
		json_tokener_free(tok);
		return NULL;
	}
	if (json_tokener_get_error(tok) != json_tokener_success) {
		fail(err, len, "malformed JSON at byte %zu: %s",
		     json_tokener_get_parse_end(tok),
		     json_tokener_error_desc(json_tokener_get_error(tok)));
		json_object_put(obj);
		json_tokener_free(tok);
		return NULL;
	}
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!obj && n == end) {
		fail(err, len, "malformed JSON: incomplete or empty");
		return NULL;
	}
	for (; end < n; end++) {
		if (!strchr(" \t\r\n", text[end])) {
			json_object_put(obj);
			fail(err, len, "malformed JSON: text after the value at byte %zu", end);
			return NULL;
		}
	}
	return obj;
}

static char *slurp(const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f) {
		fail(err, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(MAX_JSON + 1);
	if (!buf) {
		fclose(f);
		fail(err, len, "out of memory");
		return NULL;
	}
	n = fread(buf, 1, MAX_JSON + 1, f);
	if (ferror(f) || n > MAX_JSON) {
		fail(err, len, "%s: %s", path, ferror(f) ? "read error" : "larger than 1 MiB");
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	if (strlen(buf) != n) {
		fail(err, len, "%s: contains a NUL byte", path);
		free(buf);
		return NULL;
	}
	return buf;
}

/* A JSON value as the string a command-line flag would give. */
static int json_flag_value(const struct flag *f, json_object *v, char *buf,
			   size_t n, char *err, size_t len)
{
	switch (json_object_get_type(v)) {
	case json_type_string:
		if (f->kind != K_STR)
			break;
		if (strlen(json_object_get_string(v)) >= n)
			return fail(err, len, "\"%s\": value too long", f->l);
		snprintf(buf, n, "%s", json_object_get_string(v));
		return 0;
	case json_type_int:
		if (f->kind != K_U64 && f->kind != K_INT && f->kind != K_DOUBLE)
			break;
		if (json_object_get_int64(v) < 0)
			return fail(err, len, "\"%s\": negative value", f->l);
		snprintf(buf, n, "%" PRIu64, json_object_get_uint64(v));
		return 0;
	case json_type_double:
		if (f->kind != K_DOUBLE)
			break;
		snprintf(buf, n, "%.17g", json_object_get_double(v));
		return 0;
	case json_type_boolean:
		if (f->kind != K_BOOL)
			break;
		snprintf(buf, n, "%d", json_object_get_boolean(v));
		return 0;
	default:
		break;
	}
	return fail(err, len, "\"%s\": wrong type (%s expected)", f->l,
		    f->kind == K_STR ? "string" : f->kind == K_BOOL ? "boolean" : "number");
}

int diag_opts_from_json_str(const char *text, struct diag_opts *o, char *err,
			    size_t errlen)
{
	json_object *obj = parse(text, err, errlen);
	int ret = 0;

	if (!obj)
		return -EINVAL;
	if (!json_object_is_type(obj, json_type_object)) {
		json_object_put(obj);
		return fail(err, errlen, "flags JSON: an object expected");
	}
	json_object_object_foreach(obj, key, val) {
		const struct flag *f = NULL;
		char buf[DIAG_PATH];
		unsigned int k;

		for (k = 0; k < NR_FLAGS && !f; k++)
			if (!strcmp(key, flags[k].l))
				f = &flags[k];
		if (!f) {
			ret = fail(err, errlen, "flags JSON: unknown key \"%s\"", key);
			break;
		}
		ret = json_flag_value(f, val, buf, sizeof(buf), err, errlen);
		if (ret)
			break;
		if (f->kind == K_BOOL)
			*(bool *)((char *)o + f->off) = buf[0] == '1';
		else
			ret = set_flag(f, o, buf, err, errlen);
		if (ret)
			break;
	}
	json_object_put(obj);
	return ret;
}

int diag_opts_from_json(const char *path, struct diag_opts *o, char *err,
			size_t errlen)
{
	char *text = slurp(path, err, errlen);
	int ret;

	if (!text)
		return -EINVAL;
	ret = diag_opts_from_json_str(text, o, err, errlen);
	if (ret) {
		size_t l = strlen(err);

		/* name the file in the message */
		if (l + strlen(path) + 3 < errlen) {
			memmove(err + strlen(path) + 2, err, l + 1);
			memcpy(err, path, strlen(path));
			memcpy(err + strlen(path), ": ", 2);
		}
	}
	free(text);
	return ret;
}

void diag_ids_free(struct diag_ids *ids)
{
	unsigned int i;

	for (i = 0; ids->name && i < ids->n; i++)
		free(ids->name[i]);
	free(ids->name);
	free(ids->id);
	memset(ids, 0, sizeof(*ids));
}

static int ids_add(struct diag_ids *ids, uint64_t id, const char *name)
{
	char buf[96];
	unsigned int n = ids->n;
	uint64_t *i2 = realloc(ids->id, (n + 1) * sizeof(*i2));
	char **n2;

	if (!i2)
		return -ENOMEM;
	ids->id = i2;
	n2 = realloc(ids->name, (n + 1) * sizeof(*n2));
	if (!n2)
		return -ENOMEM;
	ids->name = n2;
	if (!name) {
		upmu_diag_id_name(id, buf, sizeof(buf));
		name = buf;
	}
	ids->name[n] = strdup(name);
	if (!ids->name[n])
		return -ENOMEM;
	ids->id[n] = id;
	ids->n++;
	return 0;
}

/* A CSV column name: no commas, quotes or control characters. */
static bool good_name(const char *s)
{
	if (!*s || strlen(s) > 80)
		return false;
	for (; *s; s++)
		if (*s == ',' || *s == '"' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

int diag_ids_from_json_str(const char *text, struct diag_ids *ids, char *err,
			   size_t errlen)
{
	json_object *obj = parse(text, err, errlen), *arr;
	size_t i, n;
	int ret = 0;

	memset(ids, 0, sizeof(*ids));
	if (!obj)
		return -EINVAL;
	if (json_object_is_type(obj, json_type_array))
		arr = obj;
	else if (!json_object_is_type(obj, json_type_object) ||
		 !json_object_object_get_ex(obj, "data_ids", &arr) ||
		 !json_object_is_type(arr, json_type_array)) {
		json_object_put(obj);
		return fail(err, errlen, "data-IDs JSON: {\"data_ids\": [...]} expected");
	}
	n = json_object_array_length(arr);
	if (!n || n > MAX_IDS)
		ret = fail(err, errlen, "data-IDs JSON: %zu data IDs (1 to %d expected)", n, MAX_IDS);
	for (i = 0; !ret && i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i), *v, *nm = NULL;
		const char *name = NULL;
		uint64_t id = 0, id2;
		bool has_id = false;

		if (json_object_is_type(e, json_type_string)) {
			v = e;
		} else if (json_object_is_type(e, json_type_object)) {
			json_object_object_foreach(e, key, val) {
				(void)val;
				if (strcmp(key, "data_id") && strcmp(key, "name")) {
					ret = fail(err, errlen, "data_ids[%zu]: unknown key \"%s\"", i, key);
					break;
				}
			}
			if (ret)
				break;
			if (json_object_object_get_ex(e, "name", &nm)) {
				if (!json_object_is_type(nm, json_type_string) ||
				    !good_name(json_object_get_string(nm))) {
					ret = fail(err, errlen, "data_ids[%zu]: \"name\" must be a string of 1-80 characters without commas, quotes or control characters", i);
					break;
				}
				name = json_object_get_string(nm);
			}
			if (!json_object_object_get_ex(e, "data_id", &v))
				v = nm;
		} else {
			ret = fail(err, errlen, "data_ids[%zu]: an object or a string expected", i);
			break;
		}
		if (!v) {
			ret = fail(err, errlen, "data_ids[%zu]: no \"data_id\" or \"name\"", i);
			break;
		}
		if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0) {
			id = json_object_get_uint64(v);
			has_id = true;
		} else if (json_object_is_type(v, json_type_string)) {
			has_id = !upmu_diag_id_parse(json_object_get_string(v), &id);
		}
		if (!has_id) {
			ret = fail(err, errlen, "data_ids[%zu]: \"%s\" is not a data ID (0x... or a name of 'upmu-diag list')",
				   i, json_object_get_string(v));
			break;
		}
		/* a name that is a data ID's must be that ID's */
		if (name && v != nm && !upmu_diag_id_parse(name, &id2) && id2 != id) {
			ret = fail(err, errlen, "data_ids[%zu]: name \"%s\" is another data ID than 0x%016" PRIx64,
				   i, name, id);
			break;
		}
		ret = ids_add(ids, id, name);
		if (ret)
			fail(err, errlen, "out of memory");
	}
	json_object_put(obj);
	if (ret)
		diag_ids_free(ids);
	return ret;
}

int diag_ids_from_json(const char *path, struct diag_ids *ids, char *err,
		       size_t errlen)
{
	char *text = slurp(path, err, errlen);
	int ret;

	memset(ids, 0, sizeof(*ids));
	if (!text)
		return -EINVAL;
	ret = diag_ids_from_json_str(text, ids, err, errlen);
	free(text);
	return ret;
}

char *diag_ids_to_json_str(const struct diag_ids *ids)
{
	json_object *obj = json_object_new_object(), *arr = json_object_new_array();
	char hex[24], *s = NULL;
	unsigned int i;

	if (!obj || !arr)
		goto out;
	for (i = 0; i < ids->n; i++) {
		json_object *e = json_object_new_object();

		if (!e)
			goto out;
		snprintf(hex, sizeof(hex), "0x%016" PRIx64, ids->id[i]);
		json_object_object_add(e, "name", json_object_new_string(ids->name[i]));
		json_object_object_add(e, "data_id", json_object_new_string(hex));
		json_object_array_add(arr, e);
	}
	json_object_object_add(obj, "data_ids", arr);
	arr = NULL;
	s = strdup(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
out:
	json_object_put(arr);
	json_object_put(obj);
	return s;
}

int diag_ids_to_json(const char *path, const struct diag_ids *ids)
{
	char *s = diag_ids_to_json_str(ids);
	FILE *f;
	int ret = 0;

	if (!s)
		return -ENOMEM;
	f = fopen(path, "w");
	if (!f) {
		ret = -errno;
	} else {
		if (fprintf(f, "%s\n", s) < 0)
			ret = -EIO;
		if (fclose(f))
			ret = -errno;
	}
	free(s);
	return ret;
}

int diag_ids_default(struct diag_ids *ids)
{
	static const uint32_t hi[] = {
		NIC_DID_RX_BYTES, NIC_DID_TX_BYTES, NIC_DID_RX_PACKETS,
		NIC_DID_TX_PACKETS, NIC_DID_RX_CQE, NIC_DID_TX_CQE,
		NIC_DID_ICMC_HITS, NIC_DID_ICMC_MISSES,
	};
	unsigned int i;

	memset(ids, 0, sizeof(*ids));
	for (i = 0; i < sizeof(hi) / sizeof(hi[0]); i++) {
		if (ids_add(ids, NIC_DID(hi[i], 0), NULL)) {
			diag_ids_free(ids);
			return -ENOMEM;
		}
	}
	return 0;
}

/* ---- CSV ------------------------------------------------------------------- */

void diag_csv_header(FILE *f, const struct diag_ids *ids)
{
	unsigned int i;

	fprintf(f, "sample_id,first_timestamp_ns,last_timestamp_ns");
	for (i = 0; i < ids->n; i++)
		fprintf(f, ",%s", ids->name[i]);
	fputc('\n', f);
}

void diag_csv_row(FILE *f, const struct upmu_diag_sample *s,
		  const uint64_t *values, unsigned int n)
{
	unsigned int i;

	fprintf(f, "%" PRIu32 ",%" PRIu64 ",%" PRIu64, s->sample_id, s->ts_first,
		s->ts_last);
	for (i = 0; i < n; i++)
		fprintf(f, ",%" PRIu64, values[i]);
	fputc('\n', f);
}
