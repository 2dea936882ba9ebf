// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's random streams (rng.h): each operation of a worker is drawn
 * from its stream alone.
 */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ splitmix64(&stream);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

bool rng_chance(struct rng *r, unsigned int pct)
{
	return rng_below(r, 100) < pct;
}

uint32_t rng_u32_edge(struct rng *r, uint32_t near)
{
	static const uint32_t edges[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255,
		256, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
		0xfffffffe, 0xffffffff,
	};

	switch (rng_below(r, 4)) {
	case 0:
		return (uint32_t)rng_next(r);
	case 1:
		return near + (uint32_t)rng_below(r, 3) - 1;
	default:
		return rng_pick(r, edges);
	}
}
