/*
 * Unit tests of lib/mp_rng: the distributions against their moments
 * (bounds of about four standard errors, fixed seeds so the outcome is
 * reproducible), uniformity of mp_rng_below by a chi-square test,
 * independence and reproducibility of (seed, stream) streams.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mp_rng.h"
#include "t.h"

#define N 200000

static void test_exp(void)
{
	mp_rng r;
	double s = 0, s2 = 0, mn = INFINITY;
	mp_rng_seed(&r, 1, 0);
	for (int i = 0; i < N; i++) {
		double x = mp_rng_exp(&r, 10.0);
		s += x;
		s2 += x * x;
		if (x < mn)
			mn = x;
	}
	double mean = s / N, var = s2 / N - mean * mean;
	/* se of the mean: 10 / sqrt(N) = 0.022; of the variance:
	 * sqrt((9 - 1) * 10^4 / N) = 0.63 (fourth moment 9 mean^4). */
	T_OK(fabs(mean - 10) < 0.09, "exponential mean %.4f within 0.09 of 10",
	     mean);
	T_OK(fabs(var - 100) < 2.6, "exponential variance %.3f within 2.6 of 100",
	     var);
	T_OK(mn >= 0, "exponential variates are not negative (min %g)", mn);
}

static void test_geometric(void)
{
	mp_rng r;
	double s = 0;
	uint64_t mn = UINT64_MAX;
	mp_rng_seed(&r, 2, 0);
	for (int i = 0; i < N; i++) {
		uint64_t k = mp_rng_geometric(&r, 0.2);
		s += (double)k;
		if (k < mn)
			mn = k;
	}
	double mean = s / N;
	/* mean 1/p = 5, variance (1-p)/p^2 = 20: se 0.01. */
	T_OK(fabs(mean - 5) < 0.04, "geometric mean %.4f within 0.04 of 5", mean);
	T_OK(mn == 1, "geometric variates start at 1 (min %llu)",
	     (unsigned long long)mn);
	int ones = 1;
	for (int i = 0; i < 1000; i++)
		ones &= mp_rng_geometric(&r, 1.0) == 1;
	T_OK(ones, "geometric with p = 1 is always 1");
}

static void test_below(void)
{
	mp_rng r;
	enum { K = 10 };
	uint64_t cnt[K] = { 0 };
	int inrange = 1;
	mp_rng_seed(&r, 3, 0);
	for (int i = 0; i < N; i++) {
		uint64_t x = mp_rng_below(&r, K);
		if (x >= K)
			inrange = 0;
		else
			cnt[x]++;
	}
	T_OK(inrange, "mp_rng_below(10) stays in [0, 10)");
	double chi = 0, e = (double)N / K;
	for (int i = 0; i < K; i++)
		chi += (cnt[i] - e) * (cnt[i] - e) / e;
	/* 9 degrees of freedom: P(chi2 > 27.88) = 0.001. */
	T_OK(chi < 27.88, "mp_rng_below(10) chi-square %.2f < 27.88 (9 df, 0.1%%)",
	     chi);

	/* An odd bound close to 2^64 exercises the rejection step. */
	uint64_t big = UINT64_C(3) << 62, above = 0;
	inrange = 1;
	for (int i = 0; i < 10000; i++) {
		uint64_t x = mp_rng_below(&r, big);
		if (x >= big)
			inrange = 0;
		if (x >= big / 2)
			above++;
	}
	T_OK(inrange, "mp_rng_below(3 * 2^62) stays in range");
	T_OK(above > 4800 && above < 5200, "mp_rng_below(3 * 2^62): upper half "
	     "%llu of 10000", (unsigned long long)above);
	int zero = 1;
	for (int i = 0; i < 100; i++)
		zero &= mp_rng_below(&r, 1) == 0;
	T_OK(zero, "mp_rng_below(1) is 0");
}

static void test_unit_bernoulli(void)
{
	mp_rng r;
	int inrange = 1, hits = 0;
	mp_rng_seed(&r, 4, 0);
	for (int i = 0; i < N; i++) {
		double u = mp_rng_unit(&r);
		if (u < 0 || u >= 1)
			inrange = 0;
		hits += mp_rng_bernoulli(&r, 0.3);
	}
	T_OK(inrange, "mp_rng_unit stays in [0, 1)");
	/* se sqrt(0.21 / N) = 0.001. */
	T_OK(fabs((double)hits / N - 0.3) < 0.0041, "bernoulli(0.3) frequency "
	     "%.4f", (double)hits / N);
}

static void test_streams(void)
{
	mp_rng a, b, c;
	mp_rng_seed(&a, 1, 0);
	mp_rng_seed(&b, 1, 1);
	mp_rng_seed(&c, 2, 0);
	int same_ab = 0, same_ac = 0;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = mp_rng_next(&a), y = mp_rng_next(&b),
			 z = mp_rng_next(&c);
		same_ab += x == y;
		same_ac += x == z;
	}
	T_OK(same_ab == 0, "streams 0 and 1 of one seed differ");
	T_OK(same_ac == 0, "seeds 1 and 2 of one stream differ");

	/* Neighbouring stream ids (node * 8 + purpose) are uncorrelated:
	 * the correlation of paired uniforms has se 1 / sqrt(N). */
	double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
	mp_rng_seed(&a, 7, 8);
	mp_rng_seed(&b, 7, 9);
	for (int i = 0; i < N; i++) {
		double x = mp_rng_unit(&a), y = mp_rng_unit(&b);
		sx += x;
		sy += y;
		sxy += x * y;
		sxx += x * x;
		syy += y * y;
	}
	double cov = sxy / N - sx / N * sy / N;
	double rho = cov / sqrt((sxx / N - sx / N * sx / N) *
				(syy / N - sy / N * sy / N));
	T_OK(fabs(rho) < 4 / sqrt(N), "streams 8 and 9: correlation %.5f < %.5f",
	     rho, 4 / sqrt(N));
}

static void test_reproducible(void)
{
	mp_rng a, b;
	uint64_t x[100];
	mp_rng_seed(&a, 12345, 678);
	for (int i = 0; i < 100; i++)
		x[i] = mp_rng_next(&a);
	mp_rng_seed(&b, 12345, 678);
	int same = 1;
	for (int i = 0; i < 100; i++)
		same &= mp_rng_next(&b) == x[i];
	T_OK(same, "re-seeding gives the same sequence");

	/* A copy continues identically (plain value type). */
	mp_rng c = a;
	same = 1;
	for (int i = 0; i < 100; i++)
		same &= mp_rng_next(&a) == mp_rng_next(&c);
	T_OK(same, "a copied generator continues identically");

	mp_rng z;
	memset(&z, 0, sizeof z);
	mp_rng_seed(&z, 0, 0);
	T_OK((z.s[0] | z.s[1] | z.s[2] | z.s[3]) != 0,
	     "seed 0, stream 0 gives a non-zero state");
}

int main(void)
{
	test_exp();
	test_geometric();
	test_below();
	test_unit_bernoulli();
	test_streams();
	test_reproducible();
	return t_done();
}
