/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers the bench programs share: time, medians. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_MEDIAN	64	/* most values median() takes */

static inline double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n (1 to BENCH_MAX_MEDIAN) values; @v is left as it is. */
static inline double median(const double *v, int n)
{
	double s[BENCH_MAX_MEDIAN];

	if (n > BENCH_MAX_MEDIAN)
		n = BENCH_MAX_MEDIAN;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

#endif
