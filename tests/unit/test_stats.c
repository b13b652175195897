/*
 * Unit tests of lib/mp_stats: moments against a two-pass computation,
 * histogram quantiles against exact sorted quantiles within the
 * documented relative error, batch-means coverage on iid normal data,
 * merging, and Student t quantiles against tabulated values.
 */
#include <math.h>
#include <stdlib.h>

#include "mp_rng.h"
#include "mp_stats.h"
#include "t.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double normal(mp_rng *r)
{
	/* Box-Muller; 1 - u keeps the logarithm finite. */
	double u = 1 - mp_rng_unit(r), v = mp_rng_unit(r);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int close_rel(double a, double b, double tol)
{
	return fabs(a - b) <= tol * fmax(fabs(b), 1e-300);
}

static void test_moments(void)
{
	enum { N = 10000 };
	static double x[N];
	mp_rng r;
	mp_moments *m = mp_moments_new(), *a = mp_moments_new(),
		   *b = mp_moments_new();

	T_OK(m && a && b, "moments: allocated");
	T_OK(mp_moments_count(m) == 0 && isnan(mp_moments_mean(m)) &&
		     isnan(mp_moments_sd(m)) && isnan(mp_moments_min(m)),
	     "moments: empty gives NaN");
	mp_rng_seed(&r, 7, 0);
	for (int i = 0; i < N; i++) {
		/* Large offset: a naive sum-of-squares would lose digits. */
		x[i] = 1e6 + 100 * normal(&r);
		mp_moments_add(m, x[i]);
		mp_moments_add(i < N / 3 ? a : b, x[i]);
	}
	double mean = 0, ss = 0, mn = x[0], mx = x[0];
	for (int i = 0; i < N; i++) {
		mean += x[i];
		mn = fmin(mn, x[i]);
		mx = fmax(mx, x[i]);
	}
	mean /= N;
	for (int i = 0; i < N; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	double sd = sqrt(ss / (N - 1));

	T_OK(mp_moments_count(m) == N, "moments: count");
	T_OK(close_rel(mp_moments_mean(m), mean, 1e-12), "moments: mean %.9f vs %.9f",
	     mp_moments_mean(m), mean);
	T_OK(close_rel(mp_moments_sd(m), sd, 1e-8), "moments: sd %.9f vs %.9f",
	     mp_moments_sd(m), sd);
	T_OK(mp_moments_min(m) == mn && mp_moments_max(m) == mx,
	     "moments: min and max");
	mp_moments_merge(a, b);
	T_OK(mp_moments_count(a) == N && close_rel(mp_moments_mean(a), mean, 1e-12) &&
		     close_rel(mp_moments_sd(a), sd, 1e-8) &&
		     mp_moments_min(a) == mn && mp_moments_max(a) == mx,
	     "moments: merge of two parts equals the whole");

	mp_moments *one = mp_moments_new();
	mp_moments_add(one, 3);
	T_OK(mp_moments_mean(one) == 3 && isnan(mp_moments_sd(one)),
	     "moments: one sample has a mean, no sd");
	mp_moments_free(one);
	mp_moments_free(m);
	mp_moments_free(a);
	mp_moments_free(b);
}

/* Check quantiles of h against the sorted values v[0..n). */
static int quantiles_ok(const mp_hist *h, const uint64_t *v, size_t n,
			double *worst)
{
	static const double qs[] = { 0,    0.001, 0.01, 0.1,  0.25, 0.5,
				     0.75, 0.9,   0.99, 0.999, 0.9999, 1 };
	int ok = 1;
	for (size_t j = 0; j < sizeof qs / sizeof qs[0]; j++) {
		uint64_t k = mp_stats_rank(qs[j], n);
		double exact = (double)v[k - 1], got = mp_hist_quantile(h, qs[j]);
		double err = exact > 0 ? fabs(got - exact) / exact : fabs(got);
		if (err > *worst)
			*worst = err;
		if (err > MP_HIST_REL_ERR)
			ok = 0;
	}
	return ok;
}

static void test_hist(void)
{
	enum { N = 200000 };
	static uint64_t v[N];
	mp_rng r;
	mp_hist *h = mp_hist_new(), *a = mp_hist_new(), *b = mp_hist_new();

	T_OK(h && a && b, "hist: allocated");
	T_OK(isnan(mp_hist_quantile(h, 0.5)), "hist: empty quantile is NaN");
	T_OK(mp_stats_rank(0.5, 10) == 5 && mp_stats_rank(0.99, 100) == 99 &&
		     mp_stats_rank(0.999, 1000) == 999 &&
		     mp_stats_rank(0.5, 11) == 6 && mp_stats_rank(0, 7) == 1 &&
		     mp_stats_rank(1, 7) == 7,
	     "hist: nearest ranks");

	/* Small values are exact. */
	for (uint64_t i = 1; i <= 100; i++)
		mp_hist_add(h, i, 1);
	T_OK(mp_hist_quantile(h, 0.5) == 50 && mp_hist_quantile(h, 0.99) == 99 &&
		     mp_hist_quantile(h, 1) == 100 && mp_hist_quantile(h, 0) == 1,
	     "hist: values below 512 are exact");
	mp_hist_free(h);
	h = mp_hist_new();

	/* Heavy-tailed data over many octaves. */
	mp_rng_seed(&r, 11, 0);
	for (size_t i = 0; i < N; i++) {
		double e = mp_rng_exp(&r, 1.0);
		v[i] = (uint64_t)(exp(e * 3) * 100) + mp_rng_below(&r, 1000);
		mp_hist_add(h, v[i], 1);
		mp_hist_add(i % 2 ? a : b, v[i], 1);
	}
	qsort(v, N, sizeof v[0], cmp_u64);
	double worst = 0;
	T_OK(quantiles_ok(h, v, N, &worst),
	     "hist: quantiles within 1/512 relative (worst %.3g)", worst);
	T_OK(mp_hist_count(h) == N && mp_hist_min(h) == v[0] &&
		     mp_hist_max(h) == v[N - 1],
	     "hist: count, min and max exact");
	/* T_OK evaluates its condition twice: no side effects in it. */
	int rc = mp_hist_merge(a, b);
	T_OK(rc == 0, "hist: merge");
	int same = mp_hist_count(a) == N;
	static const double qs[] = { 0.1, 0.5, 0.9, 0.99, 0.999 };
	for (size_t j = 0; j < 5; j++)
		same &= mp_hist_quantile(a, qs[j]) == mp_hist_quantile(h, qs[j]);
	T_OK(same, "hist: merged halves give the quantiles of the whole");

	/* Repeated counts and the largest values. */
	mp_hist *big = mp_hist_new();
	mp_hist_add(big, UINT64_MAX, 3);
	mp_hist_add(big, 1ull << 40, 1);
	double q = mp_hist_quantile(big, 0.5);
	T_OK(mp_hist_count(big) == 4 &&
		     fabs(q - (double)UINT64_MAX) <= (double)UINT64_MAX * MP_HIST_REL_ERR,
	     "hist: huge values, add with a count");
	q = mp_hist_quantile(big, 0);
	T_OK(fabs(q - 0x1p40) <= 0x1p40 * MP_HIST_REL_ERR,
	     "hist: smallest of huge values within the bound");
	mp_hist_free(big);

	/* A single value: its bucket's centre is clamped to it. */
	mp_hist *one = mp_hist_new();
	mp_hist_add(one, 1000, 1);
	T_OK(mp_hist_quantile(one, 0.5) == 1000 && mp_hist_quantile(one, 1) == 1000,
	     "hist: quantile clamped to the observed min and max");
	mp_hist_free(one);

	/* Uniform data in one wide range, every rank. */
	mp_hist *u = mp_hist_new();
	enum { M = 5000 };
	static uint64_t w[M];
	for (size_t i = 0; i < M; i++) {
		w[i] = 1000 + mp_rng_below(&r, 1000000);
		mp_hist_add(u, w[i], 1);
	}
	qsort(w, M, sizeof w[0], cmp_u64);
	int all = 1;
	for (size_t k = 1; k <= M; k++) {
		double qq = (double)k / M;
		double exact = (double)w[mp_stats_rank(qq, M) - 1];
		if (fabs(mp_hist_quantile(u, qq) - exact) > exact * MP_HIST_REL_ERR)
			all = 0;
	}
	T_OK(all, "hist: every rank within the bound on uniform data");
	mp_hist_free(u);
	mp_hist_free(h);
	mp_hist_free(a);
	mp_hist_free(b);
}

static void test_batch_merge(void)
{
	mp_batch *b = mp_batch_new();
	T_OK(b != NULL, "batch: allocated");
	T_OK(isnan(mp_batch_ci95(b)), "batch: no batches, NaN");
	mp_batch_add(b, 1);
	T_OK(mp_batch_count(b) == 1 && isnan(mp_batch_ci95(b)),
	     "batch: one batch, NaN");
	for (int i = 1; i < 9; i++)
		mp_batch_add(b, i % 2 ? 3 : 1);
	T_OK(mp_batch_count(b) == 9 && isnan(mp_batch_ci95(b)),
	     "batch: 9 batches, fewer than %d: NaN", MP_BATCH_MIN);
	mp_batch_add(b, 3);
	/* 1 3 1 3 ...: mean 2, sd sqrt(10 / 9), lag-1 autocorrelation -0.9
	 * (small: no merging, no widening), t(0.975, 9) = 2.262157. */
	unsigned nb = 0;
	uint64_t sz = 0;
	double r1 = 0, ci = mp_batch_ci95_used(b, &nb, &sz, &r1);
	T_OK(close_rel(ci, 2.2621571628 * sqrt(10.0 / 9) / sqrt(10), 1e-6) &&
		     nb == 10 && sz == 1 && close_rel(r1, -0.9, 1e-12),
	     "batch: 10 batches give t * sd / sqrt(b) (%.6f, r1 %.3f)", ci, r1);
	mp_batch_free(b);

	/* A ramp: batch means stay correlated at every size. */
	b = mp_batch_new();
	for (int i = 0; i < 1000; i++)
		mp_batch_add(b, i);
	ci = mp_batch_ci95_used(b, &nb, &sz, &r1);
	T_OK(isnan(ci) && isnan(r1) && nb >= MP_BATCH_MIN &&
		     nb < 2 * MP_BATCH_MIN && nb * sz <= 1000,
	     "batch: a ramp has no interval (merging stopped at %u of %llu)",
	     nb, (unsigned long long)sz);
	mp_batch_free(b);

	b = mp_batch_new();
	for (int i = 0; i < MP_BATCH_MAX - 1; i++)
		mp_batch_add(b, i);
	T_OK(mp_batch_count(b) == MP_BATCH_MAX - 1 && mp_batch_size(b) == 1,
	     "batch: %d samples, as many batches of 1", MP_BATCH_MAX - 1);
	mp_batch_add(b, MP_BATCH_MAX - 1);
	T_OK(mp_batch_count(b) == MP_BATCH_MAX / 2 && mp_batch_size(b) == 2,
	     "batch: the %dth merges pairs: %d batches of 2", MP_BATCH_MAX,
	     MP_BATCH_MAX / 2);
	int ok = 1;
	for (unsigned i = 0; i < MP_BATCH_MAX / 2; i++)
		ok &= mp_batch_mean(b, i) == 2.0 * i + 0.5;
	T_OK(ok, "batch: merged means are the means of the pairs");
	mp_batch_add(b, MP_BATCH_MAX);
	T_OK(mp_batch_count(b) == MP_BATCH_MAX / 2 &&
		     mp_batch_samples(b) == MP_BATCH_MAX + 1,
	     "batch: an incomplete batch is not counted");
	for (int i = MP_BATCH_MAX + 1; i < 2 * MP_BATCH_MAX; i++)
		mp_batch_add(b, i);
	T_OK(mp_batch_count(b) == MP_BATCH_MAX / 2 && mp_batch_size(b) == 4 &&
		     mp_batch_mean(b, MP_BATCH_MAX / 2 - 1) ==
			     2 * MP_BATCH_MAX - 2.5,
	     "batch: %d samples, %d batches of 4", 2 * MP_BATCH_MAX,
	     MP_BATCH_MAX / 2);
	for (int i = 2 * MP_BATCH_MAX; i < 100000; i++) {
		mp_batch_add(b, i);
		if (mp_batch_count(b) >= MP_BATCH_MAX ||
		    mp_batch_count(b) < MP_BATCH_MAX / 2)
			ok = 0;
	}
	T_OK(ok, "batch: never more than %d nor fewer than %d batches",
	     MP_BATCH_MAX - 1, MP_BATCH_MAX / 2);
	uint64_t covered = mp_batch_count(b) * mp_batch_size(b);
	T_OK(covered <= 100000 && 100000 - covered < mp_batch_size(b),
	     "batch: complete batches cover all but the last partial batch");
	T_OK(isnan(mp_batch_mean(b, MP_BATCH_MAX)),
	     "batch: mean out of range is NaN");
	mp_batch_free(b);
}

static void test_batch_coverage(void)
{
	enum { REPS = 400, N = 2000 };
	const double mu = 10, sigma = 3;
	int covered = 0, nan = 0;

	for (int rep = 0; rep < REPS; rep++) {
		mp_rng r;
		mp_batch *b = mp_batch_new();
		mp_rng_seed(&r, 1234, (uint64_t)rep);
		for (int i = 0; i < N; i++)
			mp_batch_add(b, mu + sigma * normal(&r));
		/* The interval is centred on the mean of the complete batches. */
		double s = 0;
		for (unsigned i = 0; i < mp_batch_count(b); i++)
			s += mp_batch_mean(b, i);
		double centre = s / mp_batch_count(b), hw = mp_batch_ci95(b);
		if (isnan(hw))
			nan++;
		else if (fabs(centre - mu) <= hw)
			covered++;
		mp_batch_free(b);
	}
	/*
	 * Binomial(400, 0.95): sd 0.0109; 90%..99% is -4.6 to +3.7 sd, so a
	 * correct interval fails this with probability below 1e-4.
	 */
	double frac = (double)covered / REPS;
	T_OK(nan == 0 && frac >= 0.90 && frac <= 0.99,
	     "batch: 95%% CI covers the true mean in %.1f%% of %d runs",
	     100 * frac, REPS);
}

/* Correlated samples: an AR(1) series x = phi x' + e with phi 0.95 (a
 * correlation time of about 40 samples); the variance of its mean is
 * (1 + phi) / (1 - phi) = 39 times that of independent samples. */
static void test_batch_ar1(void)
{
	enum { REPS = 200, N = 20000 };
	const double phi = 0.95, mu = 5;
	int covered = 0, nan = 0;

	for (int rep = 0; rep < REPS; rep++) {
		mp_rng r;
		mp_batch *b = mp_batch_new();
		mp_moments *m = mp_moments_new();
		mp_rng_seed(&r, 4321, (uint64_t)rep);
		double x = normal(&r) / sqrt(1 - phi * phi);
		for (int i = 0; i < N; i++) {
			x = phi * x + normal(&r);
			mp_batch_add(b, mu + x);
			mp_moments_add(m, mu + x);
		}
		double hw = mp_batch_ci95(b);
		if (isnan(hw))
			nan++;
		else if (fabs(mp_moments_mean(m) - mu) <= hw)
			covered++;
		mp_batch_free(b);
		mp_moments_free(m);
	}
	/* Binomial(200, 0.95): sd 0.0154; 88% is -4.5 sd. */
	double frac = (double)covered / REPS;
	T_OK(nan <= REPS / 20 && frac >= 0.88,
	     "batch: AR(1) 0.95: 95%% CI covers the true mean in %.1f%% of "
	     "%d runs (%d without an interval)", 100 * frac, REPS, nan);
}

static void test_t(void)
{
	struct {
		unsigned long df;
		double p, t, tol;
	} tab[] = {
		{ 1, 0.975, 12.706, 1e-3 },   { 10, 0.975, 2.228, 1e-3 },
		{ 30, 0.975, 2.042, 1e-3 },   { 1, 0.975, 12.7062047362, 1e-8 },
		/* Reference values by numerical integration of the density. */
		{ 2, 0.975, 4.30265272975, 1e-8 },
		{ 5, 0.975, 2.57058183564, 1e-8 },
		{ 10, 0.975, 2.22813885199, 1e-8 },
		{ 30, 0.975, 2.04227245630, 1e-8 },
		{ 63, 0.975, 1.99834054252, 1e-8 },
		{ 4, 0.995, 4.60409487135, 1e-8 },
		{ 1000, 0.975, 1.96233908083, 1e-8 },
		{ 1001, 0.975, 1.96233670528, 1e-8 },
		{ 100000, 0.975, 1.95998770770, 1e-8 },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
		double got = mp_stats_t_quantile(tab[i].p, tab[i].df);
		T_OK(fabs(got - tab[i].t) <= tab[i].tol * tab[i].t,
		     "t: t(%g, %lu) = %.9f (expected %.9f)", tab[i].p, tab[i].df,
		     got, tab[i].t);
	}
	T_OK(mp_stats_t_quantile(0.5, 3) == 0 &&
		     mp_stats_t_quantile(0.025, 10) == -mp_stats_t_quantile(0.975, 10),
	     "t: symmetric");
	T_OK(isnan(mp_stats_t_quantile(0.975, 0)) && isnan(mp_stats_t_quantile(1, 5)) &&
		     isnan(mp_stats_t_quantile(0, 5)),
	     "t: bad arguments give NaN");
}

int main(void)
{
	test_moments();
	test_hist();
	test_batch_merge();
	test_batch_coverage();
	test_batch_ar1();
	test_t();
	return t_done();
}
