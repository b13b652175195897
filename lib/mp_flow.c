/*
 * The flow model of derouting on E_n (SPEC 3.1): category flows, mean
 * path length pbar(p), the utilization fixed point and the highest
 * attainable PE port utilization. See mp_flow.h for the equations.
 */
#include "mp_flow.h"

#include <math.h>
#include <stdlib.h>

/* Fixed point iterations before giving up. */
#define MAX_ITER 1000000

struct mp_flow {
	unsigned n;
	uint32_t nodes;
	double *share;	/* share[d], d = 0 .. n-1 (share[0] = 0) */
	double *cat;	/* visits of (d, a) at cat[tri(d) + a] */
	double mean;
};

/* Row d of the triangle (a = 0 .. d-1) starts after rows 1 .. d-1. */
static size_t tri(unsigned d)
{
	return (size_t)(d - 1) * d / 2;
}

mp_flow *mp_flow_new(unsigned n, mp_err *err)
{
	mp_flow *f;

	if (n < MP_FLOW_MIN_N || n > MP_FLOW_MAX_N) {
		mp_err_set(err, "flow model: n = %u out of range [%d, %d]", n,
			   MP_FLOW_MIN_N, MP_FLOW_MAX_N);
		return NULL;
	}
	f = calloc(1, sizeof *f);
	if (f)
		f->share = calloc(n, sizeof *f->share);
	if (f && f->share)
		f->cat = calloc(tri(n), sizeof *f->cat);
	if (!f || !f->share || !f->cat) {
		mp_flow_free(f);
		mp_err_set(err, "flow model: out of memory");
		return NULL;
	}
	f->n = n;
	f->nodes = 3u * n * (n - 1) + 1;
	/* E_n has 6d nodes at distance d, 1 <= d <= n-1 (SPEC 3.1). */
	for (unsigned d = 1; d < n; d++) {
		f->share[d] = 6.0 * d / (f->nodes - 1);
		f->mean += d * f->share[d];
	}
	return f;
}

void mp_flow_free(mp_flow *f)
{
	if (!f)
		return;
	free(f->share);
	free(f->cat);
	free(f);
}

unsigned mp_flow_n(const mp_flow *f) { return f->n; }
uint32_t mp_flow_nodes(const mp_flow *f) { return f->nodes; }
unsigned mp_flow_diameter(const mp_flow *f) { return f->n - 1; }
double mp_flow_mean_dist(const mp_flow *f) { return f->mean; }

double mp_flow_inject_share(const mp_flow *f, unsigned d)
{
	return d >= 1 && d < f->n ? f->share[d] : 0.0;
}

/*
 * SPEC 3.1 states the probabilities; a reading that produces them: the
 * packet keeps trying its b best and two no-farther ports, each busy
 * independently with probability p, and leaves at the first try on which
 * one is free, preferring a best one. Then
 *   P(best | some port free) = (1 - p^b) / (1 - p^(b+2)),
 * which is 1/(1+p+p^2) for b = 1 and 1/(1+p^2) for b = 2 (and the limits
 * 1/3 and 1/2 at p = 1). A packet at distance d is on an axis, with one
 * best direction, for 6 of the 6d nodes at that distance.
 */
double mp_flow_best_prob(unsigned d, double p)
{
	if (d == 0 || !(p >= 0.0 && p <= 1.0))
		return NAN;
	double one = 1.0 / (1.0 + p + p * p);
	double two = 1.0 / (1.0 + p * p);
	return one / d + (1.0 - 1.0 / d) * two;
}

double mp_flow_speed_ratio(double packet, double inject, double eject)
{
	if (!(packet > 0.0) || !isfinite(packet) || !(inject >= 0.0) ||
	    !isfinite(inject) || !(eject >= 0.0) || !isfinite(eject))
		return NAN;
	return (packet + (inject + eject) / 2.0) / packet;
}

/*
 * Visits of (d, a) = injected into it (a = d-1 only)
 *   + best hops from (d+1, a+1)            [q_{d+1}; a+1 > 0 there]
 *   + deroutes from (d, a+1)               [1 - q_d; a+1 <= d-1]
 *   + best hops from (d+1, 0) when a = 0   [always: a = 0 never deroutes]
 * Every term comes from a larger d or the same d and a larger a, so
 * visiting d downwards and a downwards solves the system in one pass.
 * Each visit is one link traversal, so pbar is the sum of all visits.
 */
double mp_flow_pbar(mp_flow *f, enum mp_flow_strategy st, double p)
{
	double pbar = 0.0, q_up = 1.0;

	if (!(p >= 0.0 && p <= 1.0) ||
	    (st != MP_FLOW_MINIMAL && st != MP_FLOW_DEROUTING))
		return NAN;
	for (unsigned d = f->n - 1; d >= 1; d--) {
		double q = st == MP_FLOW_MINIMAL ? 1.0 : mp_flow_best_prob(d, p);
		double *row = f->cat + tri(d);
		const double *up = d + 1 < f->n ? f->cat + tri(d + 1) : NULL;

		for (unsigned a = d; a-- > 0;) {
			double v = a == d - 1 ? f->share[d] : 0.0;
			if (up)
				v += q_up * up[a + 1];
			if (a + 1 <= d - 1)
				v += (1.0 - q) * row[a + 1];
			if (up && a == 0)
				v += up[0];
			row[a] = v;
			pbar += v;
		}
		q_up = q;
	}
	return pbar;
}

double mp_flow_category(const mp_flow *f, unsigned d, unsigned a)
{
	if (d < 1 || d >= f->n || a >= d)
		return 0.0;
	return f->cat[tri(d) + a];
}

static int check_args(enum mp_flow_strategy st, double s, mp_err *err)
{
	if (st != MP_FLOW_MINIMAL && st != MP_FLOW_DEROUTING)
		return mp_err_set(err, "flow model: unknown strategy %d", (int)st);
	if (!(s > 0.0) || !isfinite(s))
		return mp_err_set(err, "flow model: speed ratio %g is not positive",
				  s);
	return 0;
}

int mp_flow_int_util(mp_flow *f, enum mp_flow_strategy st, double u_pe,
		     double s, double *p, mp_err *err)
{
	double x = 0.0, w = 1.0, last = 0.0;

	if (check_args(st, s, err) < 0)
		return -1;
	if (!(u_pe >= 0.0 && u_pe <= 1.0))
		return mp_err_set(err, "flow model: PE utilization %g outside [0, 1]",
				  u_pe);
	for (long i = 0; i < MAX_ITER; i++) {
		double g = u_pe * mp_flow_pbar(f, st, x) / (6.0 * s);
		double step = w * (g - x);

		if (x + step >= 1.0) {
			*p = 1.0;
			return MP_FLOW_SATURATED;
		}
		if (fabs(g - x) < MP_FLOW_EPS) {
			*p = g;
			return MP_FLOW_OK;
		}
		/* Iterates of a non-decreasing map do not turn back; damp if
		 * rounding or a bad pbar makes them oscillate. */
		if (i > 0 && (step > 0) != (last > 0))
			w /= 2.0;
		last = step;
		x += step;
		if (x < 0.0)
			x = 0.0;
	}
	return mp_err_set(err,
			  "flow model: E_%u: fixed point at PE utilization %g did "
			  "not converge in %d iterations", f->n, u_pe, MAX_ITER);
}

int mp_flow_max_pe_util(mp_flow *f, enum mp_flow_strategy st, double s,
			double *u, mp_err *err)
{
	double lo = 0.0, hi = 1.0, p;
	int r;

	if (check_args(st, s, err) < 0)
		return -1;
	if (st == MP_FLOW_MINIMAL) {
		double m = 6.0 * s / f->mean;
		*u = m < 1.0 ? m : 1.0;
		return 0;
	}
	/* The set of u with a fixed point below 1 is an interval [0, u*):
	 * a larger u raises u * pbar(p) / (6 s) at every p. */
	r = mp_flow_int_util(f, st, 1.0, s, &p, err);
	if (r < 0)
		return -1;
	if (r == MP_FLOW_OK) {
		*u = 1.0;
		return 0;
	}
	while (hi - lo > MP_FLOW_UTIL_EPS) {
		double mid = lo + (hi - lo) / 2.0;
		r = mp_flow_int_util(f, st, mid, s, &p, err);
		if (r < 0)
			return -1;
		if (r == MP_FLOW_OK)
			lo = mid;
		else
			hi = mid;
	}
	*u = lo;
	return 0;
}
