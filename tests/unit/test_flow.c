/*
 * Unit tests of the derouting flow model (lib/mp_flow): category flows
 * worked by hand on E_2 and E_3, the mean distance at p = 0, an
 * independent backward recursion for pbar, the fixed point and the
 * maximal PE utilization.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mp_flow.h"
#include "mp_topo.h"
#include "t.h"

#define S_OVER 1.3125	/* (160 + (80+20)/2) / 160 */

static int near(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/*
 * Expected hops still to go from category (d, a), by a backward
 * recursion independent of the forward flow pass in the library:
 *   H(0, a) = 0, H(d, 0) = d,
 *   H(d, a) = 1 + q_d H(d-1, a-1) + (1 - q_d) H(d, a-1).
 */
static double hops(unsigned d, unsigned a, double p)
{
	if (d == 0)
		return 0.0;
	if (a == 0)
		return d;
	double q = mp_flow_best_prob(d, p);
	return 1.0 + q * hops(d - 1, a - 1, p) + (1.0 - q) * hops(d, a - 1, p);
}

static double pbar_backward(unsigned n, double p)
{
	double N1 = 3.0 * n * (n - 1), sum = 0.0;
	for (unsigned d = 1; d < n; d++)
		sum += 6.0 * d / N1 * hops(d, d - 1, p);
	return sum;
}

static void test_new(void)
{
	mp_err err = { "" };
	mp_flow *f = mp_flow_new(1, &err);
	T_OK(f == NULL && strstr(err.msg, "n = 1") != NULL,
	     "n = 1 refused: %s", err.msg);
	f = mp_flow_new(MP_FLOW_MAX_N + 1, &err);
	T_OK(f == NULL, "n = %d refused", MP_FLOW_MAX_N + 1);
	mp_flow_free(NULL);

	f = mp_flow_new(6, &err);
	T_OK(f && mp_flow_n(f) == 6 && mp_flow_nodes(f) == 91 &&
	     mp_flow_diameter(f) == 5, "E_6: 91 nodes, diameter 5");
	double sum = 0.0;
	for (unsigned d = 0; d <= 6; d++)
		sum += mp_flow_inject_share(f, d);
	T_OK(near(sum, 1.0, 1e-15) && mp_flow_inject_share(f, 0) == 0.0 &&
	     mp_flow_inject_share(f, 6) == 0.0 &&
	     near(mp_flow_inject_share(f, 5), 30.0 / 90, 1e-15),
	     "E_6 injection shares 6d/90 sum to 1");
	T_OK(mp_flow_category(f, 3, 1) == 0.0, "no flows before a solve");
	mp_flow_free(f);
}

static void test_best_prob(void)
{
	T_OK(isnan(mp_flow_best_prob(0, 0.5)) && isnan(mp_flow_best_prob(2, -0.1)) &&
	     isnan(mp_flow_best_prob(2, 1.1)) && isnan(mp_flow_best_prob(2, NAN)),
	     "best_prob refuses d = 0 and p outside [0, 1]");
	int ok = 1;
	for (unsigned d = 1; d <= 20; d++) {
		ok &= mp_flow_best_prob(d, 0.0) == 1.0;
		ok &= near(mp_flow_best_prob(d, 1.0),
			   1.0 / (3.0 * d) + (1.0 - 1.0 / d) / 2.0, 1e-15);
	}
	T_OK(ok, "q_d(0) = 1 and q_d(1) = 1/(3d) + (1-1/d)/2");
	/* d = 1: the single neighbour direction is on an axis. */
	T_OK(near(mp_flow_best_prob(1, 0.5), 1.0 / 1.75, 1e-15),
	     "q_1(0.5) = 1/(1+p+p^2) = 4/7");
	/* d = 2: half one best, half two: (4/7 + 4/5) / 2 = 24/35. */
	T_OK(near(mp_flow_best_prob(2, 0.5), 24.0 / 35, 1e-15),
	     "q_2(0.5) = 24/35");
}

static void test_speed_ratio(void)
{
	T_OK(mp_flow_speed_ratio(160, 80, 20) == S_OVER, "s = 1.3125 with overhead");
	T_OK(mp_flow_speed_ratio(160, 0, 0) == 1.0, "s = 1 without overhead");
	T_OK(isnan(mp_flow_speed_ratio(0, 80, 20)) &&
	     isnan(mp_flow_speed_ratio(160, -1, 20)) &&
	     isnan(mp_flow_speed_ratio(160, 80, INFINITY)),
	     "s refuses a zero packet time and negative set-up");
}

/*
 * E_2: 7 nodes, all six destinations at distance 1, so every packet is
 * injected into (1, 0) and takes one hop: pbar = 1 at any p, for both
 * strategies; nothing can deroute (a = d-1 = 0).
 */
static void test_e2(void)
{
	mp_err err;
	mp_flow *f = mp_flow_new(2, &err);
	int ok = 1;
	for (int i = 0; i <= 10; i++) {
		double p = i / 10.0;
		ok &= mp_flow_pbar(f, MP_FLOW_DEROUTING, p) == 1.0;
		ok &= mp_flow_category(f, 1, 0) == 1.0;
		ok &= mp_flow_pbar(f, MP_FLOW_MINIMAL, p) == 1.0;
	}
	T_OK(ok, "E_2: pbar = 1 and flow(1,0) = 1 for p in [0, 1]");
	T_OK(mp_flow_mean_dist(f) == 1.0, "E_2: mean distance 1");
	mp_flow_free(f);
}

/*
 * E_3: 19 nodes; 6 at distance 1 (share 1/3), 12 at distance 2 (2/3).
 * Categories (1,0), (2,1), (2,0). With q = q_2(p):
 *   F(2,1) = 2/3                         injected
 *   F(2,0) = 2/3 (1 - q)                 derouted from (2,1)
 *   F(1,0) = 1/3 + 2/3 q + 2/3 (1 - q)   injected + best from (2,1)
 *          = 1                           + best from (2,0)
 *   pbar   = 2/3 + 2/3 (1-q) + 1 = 5/3 + 2/3 (1 - q_2(p)).
 * p = 0: q = 1, pbar = 5/3 = (2*3-1)/3.
 * p = 0.5: q = 24/35, pbar = 5/3 + 22/105 = 197/105.
 * p = 1: q = 5/12, pbar = 5/3 + 7/18 = 37/18.
 */
static void test_e3(void)
{
	mp_err err;
	mp_flow *f = mp_flow_new(3, &err);
	double pb;

	pb = mp_flow_pbar(f, MP_FLOW_DEROUTING, 0.0);
	T_OK(near(pb, 5.0 / 3, 1e-15), "E_3: pbar(0) = 5/3 (got %.17g)", pb);
	T_OK(near(mp_flow_category(f, 2, 0), 0.0, 1e-15),
	     "E_3: nobody deroutes at p = 0");

	pb = mp_flow_pbar(f, MP_FLOW_DEROUTING, 0.5);
	T_OK(near(pb, 197.0 / 105, 1e-14), "E_3: pbar(0.5) = 197/105 (got %.17g)",
	     pb);
	T_OK(near(mp_flow_category(f, 2, 1), 2.0 / 3, 1e-15) &&
	     near(mp_flow_category(f, 2, 0), 2.0 / 3 * 11 / 35, 1e-15) &&
	     near(mp_flow_category(f, 1, 0), 1.0, 1e-15),
	     "E_3: flows at p = 0.5: (2,1) 2/3, (2,0) 22/105, (1,0) 1");
	T_OK(mp_flow_category(f, 2, 2) == 0.0 && mp_flow_category(f, 3, 0) == 0.0 &&
	     mp_flow_category(f, 0, 0) == 0.0, "E_3: no categories outside the triangle");

	pb = mp_flow_pbar(f, MP_FLOW_DEROUTING, 1.0);
	T_OK(near(pb, 37.0 / 18, 1e-14), "E_3: pbar(1) = 37/18 (got %.17g)", pb);

	pb = mp_flow_pbar(f, MP_FLOW_MINIMAL, 0.5);
	T_OK(near(pb, 5.0 / 3, 1e-15) && mp_flow_category(f, 2, 0) == 0.0,
	     "E_3 minimal: pbar(0.5) = 5/3, no deroutes");
	T_OK(isnan(mp_flow_pbar(f, MP_FLOW_DEROUTING, 1.5)) &&
	     isnan(mp_flow_pbar(f, MP_FLOW_DEROUTING, -0.5)) &&
	     isnan(mp_flow_pbar(f, (enum mp_flow_strategy)7, 0.5)),
	     "E_3: pbar refuses p outside [0, 1] and unknown strategies");
	mp_flow_free(f);
}

/*
 * E_4, p = 0.5, by hand in terms of q2 = q_2 = 24/35 and
 * q3 = q_3 = (1/3)(4/7) + (2/3)(4/5) = 4/21 + 8/15 = 76/105.
 * Shares: 6/36, 12/36, 18/36 for d = 1, 2, 3.
 *   F(3,2) = 1/2
 *   F(3,1) = 1/2 (1-q3)           F(3,0) = 1/2 (1-q3)^2
 *   F(2,1) = 1/3 + 1/2 q3         (injected + best from (3,2))
 *   F(2,0) = (1-q2) F(2,1) + q3 F(3,1) + F(3,0)
 *   F(1,0) = 1
 */
static void test_e4(void)
{
	mp_err err;
	mp_flow *f = mp_flow_new(4, &err);
	double q2 = 24.0 / 35, q3 = 76.0 / 105;
	double f32 = 0.5, f31 = 0.5 * (1 - q3), f30 = 0.5 * (1 - q3) * (1 - q3);
	double f21 = 1.0 / 3 + 0.5 * q3;
	double f20 = (1 - q2) * f21 + q3 * f31 + f30;
	double pb = mp_flow_pbar(f, MP_FLOW_DEROUTING, 0.5);

	T_OK(near(mp_flow_best_prob(3, 0.5), q3, 1e-15), "q_3(0.5) = 76/105");
	T_OK(near(mp_flow_category(f, 3, 2), f32, 1e-15) &&
	     near(mp_flow_category(f, 3, 1), f31, 1e-15) &&
	     near(mp_flow_category(f, 3, 0), f30, 1e-15) &&
	     near(mp_flow_category(f, 2, 1), f21, 1e-15) &&
	     near(mp_flow_category(f, 2, 0), f20, 1e-15) &&
	     near(mp_flow_category(f, 1, 0), 1.0, 1e-15),
	     "E_4: category flows at p = 0.5 match the hand solution");
	T_OK(near(pb, f32 + f31 + f30 + f21 + f20 + 1.0, 1e-14),
	     "E_4: pbar(0.5) = sum of the flows = %.12f", pb);
	mp_flow_free(f);
}

/* Properties over n = 2..16. */
static void test_properties(void)
{
	mp_err err;
	int ok_mean = 1, ok_zero = 1, ok_min = 1, ok_inc = 1, ok_back = 1;
	int ok_one = 1, ok_best = 1, ok_topo = 1;

	for (unsigned n = 2; n <= 16; n++) {
		mp_flow *f = mp_flow_new(n, &err);
		double mean = (2.0 * n - 1) / 3;

		ok_mean &= near(mp_flow_mean_dist(f), mean, 1e-13);
		ok_zero &= near(mp_flow_pbar(f, MP_FLOW_DEROUTING, 0.0), mean, 1e-13);

		/* The topology module agrees: 6d nodes at distance d. */
		char spec[16];
		snprintf(spec, sizeof spec, "hex:%u", n);
		mp_topo *t = mp_topo_new(spec, &err);
		ok_topo &= t != NULL && mp_topo_nodes(t) == mp_flow_nodes(f) &&
			   mp_topo_diameter(t) == n - 1 &&
			   near(mp_topo_mean_dist(t), mp_flow_mean_dist(f), 1e-12);
		for (unsigned d = 1; t && d < n; d++)
			ok_topo &= mp_topo_count_at(t, d) == 6 * d;
		mp_topo_free(t);

		double prev = -1.0;
		for (int i = 0; i <= 100; i++) {
			double p = i / 100.0;
			double pb = mp_flow_pbar(f, MP_FLOW_DEROUTING, p);
			/* Every packet reaches distance 1 once, with a = 0. */
			ok_one &= near(mp_flow_category(f, 1, 0), 1.0, 1e-12);
			/* Best hops per packet = mean distance; the rest of
			 * pbar are deroutes. */
			double best = 0.0;
			for (unsigned d = 1; d < n; d++) {
				double q = mp_flow_best_prob(d, p);
				best += mp_flow_category(f, d, 0);
				for (unsigned a = 1; a < d; a++)
					best += q * mp_flow_category(f, d, a);
			}
			ok_best &= near(best, mean, 1e-12);
			ok_back &= near(pb, pbar_backward(n, p), 1e-12);
			if (n >= 3 && i > 0)
				ok_inc &= pb > prev;
			else
				ok_inc &= pb >= prev;
			prev = pb;
			ok_min &= near(mp_flow_pbar(f, MP_FLOW_MINIMAL, p), mean, 1e-13);
		}
		mp_flow_free(f);
	}
	T_OK(ok_mean, "mean distance = (2n-1)/3 for n = 2..16");
	T_OK(ok_zero, "derouting pbar(0) = (2n-1)/3 for n = 2..16");
	T_OK(ok_topo, "hex:n of mp_topo has 6d nodes at distance d, same mean");
	T_OK(ok_min, "minimal pbar(p) = (2n-1)/3 for all p");
	T_OK(ok_inc, "derouting pbar strictly increases with p (n >= 3)");
	T_OK(ok_one, "flow through (1,0) is 1 packet per packet");
	T_OK(ok_best, "best hops per packet sum to the mean distance");
	T_OK(ok_back, "forward flow pbar = backward recursion pbar");
}

static void test_fixed_point(void)
{
	mp_err err = { "" };
	double ss[2] = { S_OVER, 1.0 };
	int ok_res = 1, ok_min = 1, ok_half = 1, ok_sat = 1;

	for (unsigned n = 2; n <= 16; n++) {
		mp_flow *f = mp_flow_new(n, &err);
		double mean = mp_flow_mean_dist(f);
		for (int k = 0; k < 2; k++) {
			double s = ss[k];
			for (int i = 1; i <= 20; i++) {
				double u = i / 20.0, p;
				for (int st = 0; st < 2; st++) {
					int r = mp_flow_int_util(f, st, u, s, &p, &err);
					if (r == MP_FLOW_OK) {
						double g = u * mp_flow_pbar(f, st, p) / (6 * s);
						ok_res &= fabs(g - p) < 1e-10 && p < 1.0;
					} else {
						ok_sat &= r == MP_FLOW_SATURATED && p == 1.0;
						/* saturated only when u is above the maximum */
						double m;
						ok_sat &= mp_flow_max_pe_util(f, st, s, &m, &err) == 0 &&
							  u >= m - 1e-9;
					}
				}
				if (mp_flow_int_util(f, MP_FLOW_MINIMAL, u, s, &p, &err) ==
				    MP_FLOW_OK)
					ok_min &= near(p, u * mean / (6 * s), 1e-12);
				else
					ok_min &= u * mean / (6 * s) >= 1.0;
			}
			double p;
			ok_half &= mp_flow_int_util(f, MP_FLOW_MINIMAL, 0.5, s, &p,
						    &err) == MP_FLOW_OK &&
				   near(p, 0.5 * mean / (6 * s), 1e-12);
		}
		mp_flow_free(f);
	}
	T_OK(ok_res, "fixed point residual below 1e-10, p < 1");
	T_OK(ok_sat, "saturation reported only above the maximal utilization");
	T_OK(ok_min, "minimal internal utilization = u * (2n-1)/3 / (6s)");
	T_OK(ok_half, "minimal internal utilization at u = 0.5 = 0.5 pbar / (6s)");

	mp_flow *f = mp_flow_new(16, &err);
	double p = 0.0;
	/* 10.333 / 7.875 > 1: the internal ports saturate first. */
	T_OK(mp_flow_int_util(f, MP_FLOW_MINIMAL, 1.0, S_OVER, &p, &err) ==
	     MP_FLOW_SATURATED && p == 1.0, "E_16 minimal at u = 1 saturates");
	T_OK(mp_flow_int_util(f, MP_FLOW_MINIMAL, 0.0, S_OVER, &p, &err) ==
	     MP_FLOW_OK && p == 0.0, "u = 0 gives p = 0");
	T_OK(mp_flow_int_util(f, MP_FLOW_MINIMAL, 1.5, S_OVER, &p, &err) == -1 &&
	     strstr(err.msg, "PE utilization") != NULL,
	     "u = 1.5 refused: %s", err.msg);
	T_OK(mp_flow_int_util(f, MP_FLOW_DEROUTING, 0.5, 0.0, &p, &err) == -1 &&
	     strstr(err.msg, "speed ratio") != NULL, "s = 0 refused: %s", err.msg);
	T_OK(mp_flow_max_pe_util(f, MP_FLOW_DEROUTING, NAN, &p, &err) == -1,
	     "max util refuses s = NaN");
	T_OK(mp_flow_int_util(f, (enum mp_flow_strategy)9, 0.5, 1.0, &p, &err) == -1,
	     "unknown strategy refused");
	mp_flow_free(f);
}

static void test_max_util(void)
{
	mp_err err;
	double ss[2] = { S_OVER, 1.0 };
	int ok_min = 1, ok_order = 1, ok_grid = 1, ok_edge = 1, ok_s = 1;

	for (unsigned n = 2; n <= 16; n++) {
		mp_flow *f = mp_flow_new(n, &err);
		double mean = mp_flow_mean_dist(f);
		double prev_der = 0.0;
		for (int k = 0; k < 2; k++) {
			double s = ss[k], umin, uder, p;
			ok_min &= mp_flow_max_pe_util(f, MP_FLOW_MINIMAL, s, &umin,
						      &err) == 0 &&
				  umin == fmin(1.0, 6 * s / mean);
			ok_order &= mp_flow_max_pe_util(f, MP_FLOW_DEROUTING, s, &uder,
							&err) == 0 && uder <= umin;
			/*
			 * A fixed point p < 1 exists at u iff u = phi(p) for
			 * some p, phi(p) = 6 s p / pbar(p); so the maximum is
			 * min(1, sup phi) -- checked on a grid that includes
			 * p = 1, where phi peaks for these n.
			 */
			double best = 0.0;
			for (int i = 1; i <= 1000; i++) {
				double x = i / 1000.0;
				double phi = 6 * s * x / mp_flow_pbar(f, MP_FLOW_DEROUTING, x);
				if (phi > best)
					best = phi;
			}
			ok_grid &= near(uder, fmin(1.0, best), 2e-9);
			if (uder < 1.0) {
				ok_edge &= mp_flow_int_util(f, MP_FLOW_DEROUTING,
							    uder - 1e-6, s, &p,
							    &err) == MP_FLOW_OK;
				ok_edge &= mp_flow_int_util(f, MP_FLOW_DEROUTING,
							    uder + 1e-6, s, &p,
							    &err) == MP_FLOW_SATURATED;
			}
			/* Without overhead (s = 1) the PE port is relatively
			 * faster, so less PE utilization fills the fabric. */
			if (k == 1)
				ok_s &= uder <= prev_der;
			prev_der = uder;
		}
		mp_flow_free(f);
	}
	T_OK(ok_min, "minimal max = min(1, 6s / mean) for n = 2..16");
	T_OK(ok_order, "derouting max <= minimal max");
	T_OK(ok_grid, "derouting max = min(1, max over p of 6 s p / pbar(p))");
	T_OK(ok_edge, "fixed point exists just below the max, not just above");
	T_OK(ok_s, "s = 1 gives no higher max than s = 1.3125");
}

int main(void)
{
	test_new();
	test_best_prob();
	test_speed_ratio();
	test_e2();
	test_e3();
	test_e4();
	test_properties();
	test_fixed_point();
	test_max_util();
	return t_done();
}
