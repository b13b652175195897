/*
 * Bounded-memory statistics: Welford moments, a log-linear histogram for
 * percentiles, batch means for confidence intervals, and Student t
 * quantiles. See mp_stats.h for the exact error bounds.
 */
#include "mp_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- moments ---- */

struct mp_moments {
	uint64_t n;
	double mean, m2, min, max;
};

mp_moments *mp_moments_new(void)
{
	return calloc(1, sizeof(mp_moments));
}

void mp_moments_free(mp_moments *m)
{
	free(m);
}

void mp_moments_add(mp_moments *m, double x)
{
	m->n++;
	double d = x - m->mean;
	m->mean += d / (double)m->n;
	m->m2 += d * (x - m->mean);
	if (m->n == 1 || x < m->min)
		m->min = x;
	if (m->n == 1 || x > m->max)
		m->max = x;
}

void mp_moments_merge(mp_moments *dst, const mp_moments *src)
{
	if (src->n == 0)
		return;
	if (dst->n == 0) {
		*dst = *src;
		return;
	}
	double na = (double)dst->n, nb = (double)src->n, n = na + nb;
	double d = src->mean - dst->mean;
	dst->mean += d * nb / n;
	dst->m2 += src->m2 + d * d * na * nb / n;
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t mp_moments_count(const mp_moments *m)
{
	return m->n;
}

double mp_moments_mean(const mp_moments *m)
{
	return m->n ? m->mean : NAN;
}

double mp_moments_min(const mp_moments *m)
{
	return m->n ? m->min : NAN;
}

double mp_moments_max(const mp_moments *m)
{
	return m->n ? m->max : NAN;
}

double mp_moments_var(const mp_moments *m)
{
	return m->n >= 2 ? m->m2 / (double)(m->n - 1) : NAN;
}

double mp_moments_sd(const mp_moments *m)
{
	return sqrt(mp_moments_var(m));
}

/* ---- histogram ---- */

/*
 * Bucket index: values below 2^9 are their own bucket; a value with its
 * highest bit e >= 9 goes to octave e, sub-bucket v >> (e - 8) in
 * [256, 512).
 */
#define H_EXACT 512u
#define H_SUB 256u
#define H_NBUCKETS (H_EXACT + (64 - 9) * H_SUB)

struct mp_hist {
	uint64_t *c;   /* counts, cap entries */
	size_t cap;
	uint64_t n, min, max;
};

static size_t hist_index(uint64_t v)
{
	if (v < H_EXACT)
		return (size_t)v;
	int e = 63 - __builtin_clzll(v);
	return H_EXACT + (size_t)(e - 9) * H_SUB + (size_t)((v >> (e - 8)) - H_SUB);
}

/* Lowest value and width of bucket i. */
static void hist_bucket(size_t i, uint64_t *lo, uint64_t *w)
{
	if (i < H_EXACT) {
		*lo = i;
		*w = 1;
		return;
	}
	size_t k = i - H_EXACT;
	unsigned e = 9 + (unsigned)(k / H_SUB);
	*lo = (uint64_t)(H_SUB + k % H_SUB) << (e - 8);
	*w = (uint64_t)1 << (e - 8);
}

mp_hist *mp_hist_new(void)
{
	return calloc(1, sizeof(mp_hist));
}

void mp_hist_free(mp_hist *h)
{
	if (h) {
		free(h->c);
		free(h);
	}
}

/* Make room for bucket i (in whole octaves). 0, or -1 out of memory. */
static int hist_grow(mp_hist *h, size_t i)
{
	if (i < h->cap)
		return 0;
	size_t cap = i < H_EXACT ? H_EXACT :
				   H_EXACT + ((i - H_EXACT) / H_SUB + 1) * H_SUB;
	uint64_t *c = realloc(h->c, cap * sizeof *c);
	if (!c)
		return -1;
	memset(c + h->cap, 0, (cap - h->cap) * sizeof *c);
	h->c = c;
	h->cap = cap;
	return 0;
}

int mp_hist_add(mp_hist *h, uint64_t v, uint64_t n)
{
	if (n == 0)
		return 0;
	size_t i = hist_index(v);
	if (hist_grow(h, i) < 0)
		return -1;
	h->c[i] += n;
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (h->n == 0 || v > h->max)
		h->max = v;
	h->n += n;
	return 0;
}

int mp_hist_merge(mp_hist *dst, const mp_hist *src)
{
	if (src->n == 0)
		return 0;
	if (hist_grow(dst, src->cap - 1) < 0)
		return -1;
	for (size_t i = 0; i < src->cap; i++)
		dst->c[i] += src->c[i];
	if (dst->n == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->n == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	return 0;
}

uint64_t mp_hist_count(const mp_hist *h)
{
	return h->n;
}

uint64_t mp_hist_min(const mp_hist *h)
{
	return h->min;
}

uint64_t mp_hist_max(const mp_hist *h)
{
	return h->max;
}

uint64_t mp_stats_rank(double q, uint64_t n)
{
	if (n == 0)
		return 0;
	if (!(q > 0))
		return 1;
	if (q >= 1)
		return n;
	double x = ceil(q * (double)n * (1 - 1e-12));
	if (x < 1)
		return 1;
	if (x >= (double)n)
		return n;
	return (uint64_t)x;
}

double mp_hist_quantile(const mp_hist *h, double q)
{
	if (h->n == 0 || isnan(q))
		return NAN;
	uint64_t k = mp_stats_rank(q, h->n), cum = 0;
	size_t i;
	for (i = 0; i < h->cap; i++) {
		cum += h->c[i];
		if (cum >= k)
			break;
	}
	uint64_t lo, w;
	hist_bucket(i, &lo, &w);
	double r = (double)lo + (double)(w - 1) / 2;
	if (r < (double)h->min)
		r = (double)h->min;
	if (r > (double)h->max)
		r = (double)h->max;
	return r;
}

/* ---- batch means ---- */

struct mp_batch {
	uint64_t size;     /* samples per batch */
	uint64_t n;        /* samples added */
	uint64_t ncur;     /* samples in the incomplete batch */
	double cur;        /* their sum */
	unsigned nb;       /* complete batches */
	double sum[MP_BATCH_MAX];
};

mp_batch *mp_batch_new(void)
{
	mp_batch *b = calloc(1, sizeof *b);
	if (b)
		b->size = 1;
	return b;
}

void mp_batch_free(mp_batch *b)
{
	free(b);
}

void mp_batch_add(mp_batch *b, double x)
{
	b->n++;
	b->cur += x;
	if (++b->ncur < b->size)
		return;
	b->sum[b->nb++] = b->cur;
	b->cur = 0;
	b->ncur = 0;
	if (b->nb == MP_BATCH_MAX) {
		for (unsigned i = 0; i < MP_BATCH_MAX / 2; i++)
			b->sum[i] = b->sum[2 * i] + b->sum[2 * i + 1];
		b->nb = MP_BATCH_MAX / 2;
		b->size *= 2;
	}
}

uint64_t mp_batch_samples(const mp_batch *b)
{
	return b->n;
}

unsigned mp_batch_count(const mp_batch *b)
{
	return b->nb;
}

uint64_t mp_batch_size(const mp_batch *b)
{
	return b->size;
}

double mp_batch_mean(const mp_batch *b, unsigned i)
{
	return i < b->nb ? b->sum[i] / (double)b->size : NAN;
}

/* Lag-1 autocorrelation of x[0..n-1] about its mean m; 0 when constant. */
static double lag1(const double *x, unsigned n, double m)
{
	double num = 0, den = 0;
	for (unsigned i = 0; i < n; i++) {
		double d = x[i] - m;
		den += d * d;
		if (i + 1 < n)
			num += d * (x[i + 1] - m);
	}
	return den > 0 ? num / den : 0;
}

static double mean_of(const double *x, unsigned n)
{
	double s = 0;
	for (unsigned i = 0; i < n; i++)
		s += x[i];
	return s / n;
}

double mp_batch_ci95_used(const mp_batch *b, unsigned *nbp, uint64_t *sizep,
			  double *r1p)
{
	double x[MP_BATCH_MAX]; /* batch means */
	unsigned nb = b->nb;
	uint64_t size = b->size;
	double r1 = NAN, ci = NAN;

	for (unsigned i = 0; i < nb; i++)
		x[i] = b->sum[i] / (double)size;
	while (nb >= MP_BATCH_MIN) {
		double mean = mean_of(x, nb);
		r1 = lag1(x, nb, mean);
		/* Small: below MP_BATCH_R1, or within the noise of an
		 * estimate from nb means of uncorrelated batches (one-sided
		 * 5%: sd about 1/sqrt(nb)). */
		double lim = 1.645 / sqrt((double)nb);
		if (r1 <= (lim > MP_BATCH_R1 ? lim : MP_BATCH_R1)) {
			double ss = 0;
			for (unsigned i = 0; i < nb; i++)
				ss += (x[i] - mean) * (x[i] - mean);
			double sd = sqrt(ss / (nb - 1));
			ci = mp_stats_t_quantile(0.975, nb - 1) * sd /
			     sqrt((double)nb);
			/* What correlation is left widens the interval
			 * as it would for an AR(1) series of means. */
			if (r1 > 0)
				ci *= sqrt((1 + r1) / (1 - r1));
			break;
		}
		if (nb / 2 < MP_BATCH_MIN) {
			r1 = NAN;
			break;
		}
		for (unsigned i = 0; i < nb / 2; i++)
			x[i] = (x[2 * i] + x[2 * i + 1]) / 2;
		nb /= 2;
		size *= 2;
	}
	if (isnan(ci))
		r1 = NAN;
	if (nbp)
		*nbp = nb;
	if (sizep)
		*sizep = size;
	if (r1p)
		*r1p = r1;
	return ci;
}

double mp_batch_ci95(const mp_batch *b)
{
	return mp_batch_ci95_used(b, NULL, NULL, NULL);
}

/* ---- Student t ---- */

/*
 * P(|T| <= t) for T with nu degrees of freedom, t >= 0: Abramowitz and
 * Stegun 26.7.3 (nu odd) and 26.7.4 (nu even), exact finite series.
 */
static double t_central(double t, unsigned long nu)
{
	double th = atan(t / sqrt((double)nu));
	double s = sin(th), c = cos(th), c2 = c * c;

	if (nu % 2) {
		double sum = 0;
		if (nu > 1) {
			double term = c;
			sum = c;
			for (unsigned long k = 3; k + 2 <= nu; k += 2) {
				term *= c2 * (double)(k - 1) / (double)k;
				sum += term;
			}
		}
		return 2 / M_PI * (th + s * sum);
	}
	double term = 1, sum = 1;
	for (unsigned long k = 2; k + 2 <= nu; k += 2) {
		term *= c2 * (double)(k - 1) / (double)k;
		sum += term;
	}
	return s * sum;
}

/* Standard normal quantile by bisection on erfc (to double precision). */
static double z_quantile(double p)
{
	double lo = -40, hi = 40;
	for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
		double mid = (lo + hi) / 2;
		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double mp_stats_t_quantile(double p, unsigned long df)
{
	if (df == 0 || !(p > 0 && p < 1))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -mp_stats_t_quantile(1 - p, df);
	if (df > 1000) {
		/* Cornish-Fisher expansion in 1/df (Abramowitz and Stegun 26.7.5). */
		double z = z_quantile(p), z2 = z * z, v = (double)df;
		double g1 = (z2 + 1) * z / 4;
		double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
		double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
		double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 -
			     945) * z / 92160;
		return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) +
		       g4 / (v * v * v * v);
	}
	double target = 2 * p - 1, lo = 0, hi = 1;
	while (t_central(hi, df) < target && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 2000 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (t_central(mid, df) < target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
