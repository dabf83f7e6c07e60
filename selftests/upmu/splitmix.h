/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SplitMix64 (Steele, Lea and Flood, 2014): the fuzzers' random numbers,
 * reproducible from a seed, the whole state one 64-bit word.
 */
#ifndef UPMU_SPLITMIX_H
#define UPMU_SPLITMIX_H

#include <stdint.h>

/* The next number of the sequence at *@s */
static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One in [0, @n), or 0 when @n is 0 */
static inline uint64_t splitmix64_below(uint64_t *s, uint64_t n)
{
	return n ? splitmix64(s) % n : 0;
}

#endif
