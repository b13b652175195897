/*
 * xoshiro256** seeded through splitmix64, and distributions on top of it.
 */
#include "mp_rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void mp_rng_seed(mp_rng *r, uint64_t seed, uint64_t stream)
{
	/* Mix the stream id through its own splitmix step so that nearby
	 * (seed, stream) pairs give unrelated states. */
	uint64_t x = seed;
	uint64_t a = splitmix64(&x);
	uint64_t y = stream ^ 0xD1B54A32D192ED03ull;
	uint64_t b = splitmix64(&y);
	uint64_t z = a ^ (b * 0x9E3779B97F4A7C15ull);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&z);
	if ((r->s[0] | r->s[1] | r->s[2] | r->s[3]) == 0)
		r->s[0] = 1;
}

uint64_t mp_rng_below(mp_rng *r, uint64_t n)
{
	/* Lemire's nearly divisionless method. */
	uint64_t x = mp_rng_next(r);
	__uint128_t m = (__uint128_t)x * n;
	uint64_t l = (uint64_t)m;
	if (l < n) {
		uint64_t t = -n % n;
		while (l < t) {
			x = mp_rng_next(r);
			m = (__uint128_t)x * n;
			l = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double mp_rng_exp(mp_rng *r, double mean)
{
	/* 1 - U is in (0, 1], so the log is finite. */
	return -mean * log(1.0 - mp_rng_unit(r));
}

uint64_t mp_rng_geometric(mp_rng *r, double p)
{
	if (p >= 1.0)
		return 1;
	double u = 1.0 - mp_rng_unit(r);
	double k = ceil(log(u) / log1p(-p));
	if (k < 1)
		k = 1;
	if (k > 9.0e18)
		k = 9.0e18;
	return (uint64_t)k;
}
