// SPDX-License-Identifier: GPL-2.0
/*
 * Samples to the Prometheus text exposition format, version 0.0.4:
 * "# HELP" and "# TYPE" once per metric, counters named <name>_total,
 * series sorted by name and labels, each once.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporter.h"

int samples_add(struct samples *s, const char *name, const char *help, enum mtype type,
		bool is_float, uint64_t u, double d, const char *fmt, ...)
{
	struct sample *x;
	va_list ap;
	int n;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct sample *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	x = &s->v[s->n];
	x->name = name;
	x->help = help;
	x->type = type;
	x->is_float = is_float;
	x->u = u;
	x->d = d;
	va_start(ap, fmt);
	n = vsnprintf(x->labels, sizeof(x->labels), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(x->labels))
		return -E2BIG;
	s->n++;
	return 0;
}

void samples_free(struct samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

bool label_escape(char *buf, size_t len, const char *v)
{
	size_t n = 0;

	for (; *v; v++) {
		const char *e = NULL;
		char c[2] = { *v, 0 };

		if (*v == '\\')
			e = "\\\\";
		else if (*v == '"')
			e = "\\\"";
		else if (*v == '\n')
			e = "\\n";
		else
			e = c;
		if (n + strlen(e) >= len)
			return false;
		memcpy(buf + n, e, strlen(e));
		n += strlen(e);
	}
	if (n >= len)
		return false;
	buf[n] = 0;
	return true;
}

/* (pointers are sorted: a sample is some 300 bytes) */
static int sample_cmp(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a;
	const struct sample *y = *(const struct sample *const *)b;
	int r = strcmp(x->name, y->name);

	return r ? r : strcmp(x->labels, y->labels);
}

struct buf {
	char *p;
	size_t n, cap;
	bool oom;
};

__attribute__((format(printf, 2, 3)))
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *np;
	int n;

	for (;;) {
		if (b->oom)
			return;
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < b->cap - b->n) {
			b->n += n;
			return;
		}
		np = realloc(b->p, b->cap * 2 + n);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = b->cap * 2 + n;
	}
}

/* A HELP text's escapes: backslash and newline. */
static void put_help(struct buf *b, const char *h)
{
	for (; *h; h++) {
		if (*h == '\\')
			put(b, "\\\\");
		else if (*h == '\n')
			put(b, "\\n");
		else
			put(b, "%c", *h);
	}
}

char *expo_render(struct samples *s, size_t *len, unsigned int *dropped)
{
	struct buf b = { .cap = 4096 + s->n * 128 };
	const struct sample *prev = NULL, **v;
	size_t i;

	*dropped = 0;
	b.p = malloc(b.cap);
	v = malloc((s->n ? s->n : 1) * sizeof(*v));
	if (!b.p || !v) {
		free(b.p);
		free(v);
		return NULL;
	}
	b.p[0] = 0;
	for (i = 0; i < s->n; i++)
		v[i] = &s->v[i];
	if (s->n)
		qsort(v, s->n, sizeof(*v), sample_cmp);
	for (i = 0; i < s->n; i++) {
		const struct sample *x = v[i];
		const char *sfx = x->type == M_COUNTER ? "_total" : "";
		bool first = !prev || strcmp(prev->name, x->name);

		if (!first && (prev->type != x->type || !strcmp(prev->labels, x->labels))) {
			/* a second type for a name, or a series twice: a bug, not served */
			(*dropped)++;
			continue;
		}
		if (first) {
			put(&b, "# HELP %s%s ", x->name, sfx);
			put_help(&b, x->help ? x->help : "");
			put(&b, "\n# TYPE %s%s %s\n", x->name, sfx,
			    x->type == M_COUNTER ? "counter" : "gauge");
		}
		put(&b, "%s%s", x->name, sfx);
		if (x->labels[0])
			put(&b, "{%s}", x->labels);
		if (x->is_float && isnan(x->d))
			put(&b, " NaN\n");	/* Go's ParseFloat takes no -nan */
		else if (x->is_float && isinf(x->d))
			put(&b, " %cInf\n", x->d > 0 ? '+' : '-');
		else if (x->is_float)
			put(&b, " %.17g\n", x->d);
		else
			put(&b, " %" PRIu64 "\n", x->u);
		prev = x;
	}
	free(v);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.n;
	return b.p;
}
