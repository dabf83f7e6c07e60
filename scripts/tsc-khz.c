// SPDX-License-Identifier: GPL-2.0
/*
 * Print the host's TSC frequency in kHz.  Under QEMU's TCG the guest's
 * TSC is the host's (rdtsc is emulated with the host's counter), so
 * scripts/vm.sh gives the guest this frequency (tsc_early_khz=) rather
 * than let the guest calibrate it against emulated timers, which a
 * loaded host gets wrong (one 6.1 guest found 908 MHz for 2445 MHz and
 * its clock ran 2.7 times too fast).
 *
 * TSC ticks over 200 ms of CLOCK_MONOTONIC_RAW, each end read between
 * two clock reads at most 20 us apart.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* A TSC read and the time it was taken at, to 20 us. */
static int sample(unsigned long long *tsc, double *t)
{
	int i;

	for (i = 0; i < 1000; i++) {
		double a = now();

		*tsc = __rdtsc();
		*t = now();
		if (*t - a < 20e-6) {
			*t = (a + *t) / 2;
			return 0;
		}
	}
	return -1;
}

int main(void)
{
	struct timespec d = { 0, 200000000 };
	unsigned long long c0, c1;
	double t0, t1, khz;

	if (sample(&c0, &t0))
		return 1;
	nanosleep(&d, NULL);
	if (sample(&c1, &t1))
		return 1;
	khz = (c1 - c0) / (t1 - t0) / 1e3;
	if (khz < 1e5 || khz > 1e7)
		return 1;
	printf("%.0f\n", khz);
	return 0;
}
