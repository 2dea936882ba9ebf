/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzer's random streams: xoshiro256**, seeded through splitmix64
 * from a seed and a stream number, so that worker K of seed N always draws
 * the same numbers (Documentation/fuzzing.rst, "Seeds, workers and
 * replaying").
 */
#ifndef FUZZ_RNG_H
#define FUZZ_RNG_H

#include <stdbool.h>
#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* True with probability pct / 100. */
bool rng_chance(struct rng *r, unsigned int pct);
/* One of the n values of a table. */
#define rng_pick(r, table) ((table)[rng_below((r), ARRAY_SIZE(table))])
/* A 32-bit value, half the time from a list of boundaries around @near. */
uint32_t rng_u32_edge(struct rng *r, uint32_t near);

#endif
