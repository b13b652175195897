/*
 * Random numbers: xoshiro256** generators, each derived from a
 * (seed, stream id) pair so that every node or entity has its own
 * independent stream (changing one node's parameters never reshuffles
 * another's), and the distributions the workloads and fabrics draw from.
 *
 * mp_rng is a plain value type (32 bytes): embed it, copy it, no free.
 */
#ifndef MP_RNG_H
#define MP_RNG_H

#include <stdint.h>

typedef struct mp_rng {
	uint64_t s[4];
} mp_rng;

/* Initialise r from seed and a stream id (e.g. a node number). */
void mp_rng_seed(mp_rng *r, uint64_t seed, uint64_t stream);

/* Next 64 random bits. */
static inline uint64_t mp_rng_next(mp_rng *r)
{
	uint64_t *s = r->s;
	uint64_t x = s[1] * 5;
	uint64_t result = ((x << 7) | (x >> 57)) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = (s[3] << 45) | (s[3] >> 19);
	return result;
}

/* Uniform double in [0, 1), 53 bits. */
static inline double mp_rng_unit(mp_rng *r)
{
	return (double)(mp_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n), unbiased; n must be >= 1. */
uint64_t mp_rng_below(mp_rng *r, uint64_t n);

/* Exponential variate with the given mean (> 0). */
double mp_rng_exp(mp_rng *r, double mean);

/*
 * Geometric variate: the number of Bernoulli(p) trials up to and
 * including the first success (>= 1); p in (0, 1].
 */
uint64_t mp_rng_geometric(mp_rng *r, double p);

/* 1 with probability p, else 0. */
static inline int mp_rng_bernoulli(mp_rng *r, double p)
{
	return mp_rng_unit(r) < p;
}

#endif
