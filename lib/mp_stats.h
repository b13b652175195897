/*
 * Statistics in bounded memory, for lstat and anything else that
 * summarises a long stream of samples: running moments (Welford), a
 * log-linear histogram of non-negative integers for percentiles, batch
 * means for a confidence interval of the mean, and Student t quantiles.
 *
 * Ownership: every type is opaque; the caller creates it with _new and
 * releases it with _free (NULL is accepted by _free). Nothing here prints
 * or exits; allocation failures are returned (NULL or -1). Statistics of
 * too few samples are NaN.
 */
#ifndef MP_STATS_H
#define MP_STATS_H

#include <stdint.h>

typedef struct mp_moments mp_moments;
typedef struct mp_hist mp_hist;
typedef struct mp_batch mp_batch;

/* Running count, mean, variance, min and max. NULL when out of memory. */
mp_moments *mp_moments_new(void);
void mp_moments_free(mp_moments *m);

/* Add one sample (Welford's update). */
void mp_moments_add(mp_moments *m, double x);

/* Fold src into dst (Chan et al.'s pairwise combination). */
void mp_moments_merge(mp_moments *dst, const mp_moments *src);

/* Number of samples. */
uint64_t mp_moments_count(const mp_moments *m);

/* Mean, min, max: NaN when there are no samples. */
double mp_moments_mean(const mp_moments *m);
double mp_moments_min(const mp_moments *m);
double mp_moments_max(const mp_moments *m);

/* Sample variance and standard deviation (n - 1): NaN below 2 samples. */
double mp_moments_var(const mp_moments *m);
double mp_moments_sd(const mp_moments *m);

/*
 * Log-linear (HDR-style) histogram of non-negative integers. Values
 * below 512 have a bucket each; above, each power-of-two range [2^e,
 * 2^(e+1)) is cut into 256 equal buckets of width w = 2^(e-8). A bucket
 * [lo, lo + w) is reported by its centre lo + (w - 1) / 2, clamped to the
 * observed min and max, so a reported quantile differs from the exact
 * sample quantile v by at most v / 512 (|reported - v| <= (w - 1) / 2 <
 * lo / 512 <= v / 512): relative error below MP_HIST_REL_ERR. Memory
 * grows with the largest value seen, at most 14592 counters.
 */
#define MP_HIST_REL_ERR (1.0 / 512)

/* An empty histogram; NULL when out of memory. */
mp_hist *mp_hist_new(void);
void mp_hist_free(mp_hist *h);

/* Count value v n times. 0, or -1 when out of memory (h unchanged). */
int mp_hist_add(mp_hist *h, uint64_t v, uint64_t n);

/* Add src's counts to dst. 0, or -1 when out of memory (dst unchanged). */
int mp_hist_merge(mp_hist *dst, const mp_hist *src);

/* Number of values counted. */
uint64_t mp_hist_count(const mp_hist *h);

/* Smallest and largest value counted (exact); 0 when empty. */
uint64_t mp_hist_min(const mp_hist *h);
uint64_t mp_hist_max(const mp_hist *h);

/*
 * The q-quantile, 0 <= q <= 1, by nearest rank: the value of rank
 * mp_stats_rank(q, n) among the n values sorted, within the relative
 * error above. NaN when empty.
 */
double mp_hist_quantile(const mp_hist *h, double q);

/*
 * Nearest rank of the q-quantile among n sorted values, from 1:
 * ceil(q * n) (with a tolerance of 1e-12 relative for q * n computed in
 * floating point), clamped to [1, n]. 0 when n is 0.
 */
uint64_t mp_stats_rank(double q, uint64_t n);

/*
 * Batch means: samples are grouped, in order, into batches of a common
 * size, starting at 1. At most MP_BATCH_MAX batches are kept: when a
 * batch completes and makes MP_BATCH_MAX, adjacent pairs are merged and
 * the batch size doubles, so between MP_BATCH_MAX / 2 and MP_BATCH_MAX - 1
 * complete batches are kept once there are enough samples. The last,
 * incomplete batch takes no part in the interval.
 *
 * The interval does not use those batches as they are: correlated
 * samples make the means of short batches correlated too, and the
 * interval too narrow. Adjacent pairs are merged (the size doubles, an
 * odd last batch is left out) while the lag-1 autocorrelation r of the
 * b batch means is not small: above both MP_BATCH_R1 and 1.645 /
 * sqrt(b) (what uncorrelated means give in 5% of cases). When that
 * would leave fewer than MP_BATCH_MIN batches, or fewer than
 * MP_BATCH_MIN were kept to begin with, there is no interval. The
 * interval is widened by sqrt((1 + r) / (1 - r)) for r > 0, the factor
 * of an AR(1) series of means.
 */
#define MP_BATCH_MAX 1024
#define MP_BATCH_MIN 10
#define MP_BATCH_R1 0.1

/* An empty batch-means estimator; NULL when out of memory. */
mp_batch *mp_batch_new(void);
void mp_batch_free(mp_batch *b);

/* Add one sample. */
void mp_batch_add(mp_batch *b, double x);

/* Samples added, complete batches kept, and the current batch size. */
uint64_t mp_batch_samples(const mp_batch *b);
unsigned mp_batch_count(const mp_batch *b);
uint64_t mp_batch_size(const mp_batch *b);

/* Mean of complete batch i (0 first); NaN when i is out of range. */
double mp_batch_mean(const mp_batch *b, unsigned i);

/*
 * Half-width of the 95% confidence interval of the mean:
 * t_{0.975, b-1} * sd(batch means) / sqrt(b) * sqrt((1 + r) / (1 - r))
 * over the b batches chosen as above (r: the lag-1 autocorrelation of
 * their means, taken as 0 when negative). NaN when there are too few
 * batches (see above).
 */
double mp_batch_ci95(const mp_batch *b);

/*
 * The same, and the batches it used: their number and size, and the
 * lag-1 autocorrelation of their means (NaN when there is no interval;
 * then *nb and *size say where the merging stopped). Any pointer may be
 * NULL.
 */
double mp_batch_ci95_used(const mp_batch *b, unsigned *nb, uint64_t *size,
			  double *r1);

/*
 * Quantile p of Student's t distribution with df degrees of freedom,
 * computed from the exact distribution function (Abramowitz and Stegun
 * 26.7.3-4) by bisection to 1e-12 relative, and for df > 1000 from the
 * Cornish-Fisher expansion (error below 1e-9). NaN when df is 0 or p is
 * not in (0, 1).
 */
double mp_stats_t_quantile(double p, unsigned long df);

#endif
