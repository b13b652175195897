/*
 * The analytical flow model of derouting on the C-wrapped hexagonal mesh
 * E_n (SPEC 3.1, "Companion analytical model"): packets move between
 * categories (d, a), d hops still to go and a deroutes still allowed; the
 * expected number of visits to each category per injected packet gives
 * the mean path length pbar(p) at internal port utilization p, and a
 * fixed point p = u_P pbar(p) / (6 s) ties internal to PE port
 * utilization.
 *
 * The model, for a packet at distance d with a deroutes allowed:
 *   q_d(p) = (1/d) / (1 + p + p^2) + (1 - 1/d) / (1 + p^2)
 * is the probability that its next hop takes a best direction (one best
 * direction with probability 1/d, two otherwise). With a > 0 it moves to
 * (d-1, a-1) with probability q_d and deroutes to (d, a-1) otherwise; with
 * a = 0 it always waits for a best direction and moves to (d-1, 0).
 * Packets are injected into (d, d-1) with probability 6d / (N-1).
 * Under a minimal strategy every hop is a best hop (q = 1).
 *
 * Ownership: mp_flow_new returns a model the caller frees with
 * mp_flow_free. Every evaluation overwrites the category flows kept in
 * it, so one model must not be used by two threads at once.
 */
#ifndef MP_FLOW_H
#define MP_FLOW_H

#include <stdint.h>

#include "mp_util.h"

typedef struct mp_flow mp_flow;

/* Sizes of E_n the model accepts (the category table has n(n-1)/2 cells). */
#define MP_FLOW_MIN_N 2
#define MP_FLOW_MAX_N 1024

/* Fixed point: converged when one iteration moves p by less than this. */
#define MP_FLOW_EPS 1e-12
/* Maximal PE utilization: bisection stops when the bracket is this narrow. */
#define MP_FLOW_UTIL_EPS 1e-9

enum mp_flow_strategy {
	MP_FLOW_MINIMAL,	/* deterministic or best paths: never deroutes */
	MP_FLOW_DEROUTING	/* best or no-farther directions (SPEC 3.1) */
};

/* Results of mp_flow_int_util besides -1 (failure). */
#define MP_FLOW_OK 0
#define MP_FLOW_SATURATED 1	/* no fixed point with p < 1 */

/*
 * Build the category flow model of E_n, n in [MP_FLOW_MIN_N,
 * MP_FLOW_MAX_N]. Returns NULL with a message in err when n is out of
 * range or memory runs out.
 */
mp_flow *mp_flow_new(unsigned n, mp_err *err);

/* Free a model (NULL is allowed). */
void mp_flow_free(mp_flow *f);

/* n of E_n. */
unsigned mp_flow_n(const mp_flow *f);

/* Node count N = 3n(n-1) + 1. */
uint32_t mp_flow_nodes(const mp_flow *f);

/* Diameter n - 1: categories have d in [1, n-1] and a in [0, d-1]. */
unsigned mp_flow_diameter(const mp_flow *f);

/* Share of injected packets whose destination is at distance d:
 * 6d / (N-1) for d in [1, n-1], 0 otherwise. */
double mp_flow_inject_share(const mp_flow *f, unsigned d);

/* Mean distance sum_d d * 6d / (N-1), which is (2n-1)/3. */
double mp_flow_mean_dist(const mp_flow *f);

/*
 * Probability q_d(p) that a packet at distance d >= 1 that may deroute
 * takes a best direction at internal utilization p in [0, 1]; see the
 * top of this file. Returns NaN when d = 0 or p is outside [0, 1].
 */
double mp_flow_best_prob(unsigned d, double p);

/*
 * Speed ratio s of an internal port to a PE port:
 * (packet + (inject + eject) / 2) / packet, e.g. (160 + (80+20)/2)/160 =
 * 1.3125 with PE overhead and 1 without. Returns NaN when packet <= 0
 * or a set-up time is negative or not finite.
 */
double mp_flow_speed_ratio(double packet, double inject, double eject);

/*
 * Solve the category flow equations at internal utilization p in [0, 1]
 * for a strategy, in one pass over (d, a) by decreasing d and, within d,
 * decreasing a (every category is fed only from (d+1, *) and (d, a+1)).
 * Stores the expected visits per injected packet of every category (read
 * them with mp_flow_category) and returns pbar(p), their sum: the
 * expected number of link traversals per packet. Returns NaN when p is
 * outside [0, 1] or the strategy is unknown.
 */
double mp_flow_pbar(mp_flow *f, enum mp_flow_strategy st, double p);

/*
 * Expected visits per injected packet of category (d, a) from the last
 * mp_flow_pbar call (0 before any call, and for d outside [1, n-1] or
 * a >= d).
 */
double mp_flow_category(const mp_flow *f, unsigned d, unsigned a);

/*
 * Internal port utilization at PE port utilization u_pe in [0, 1] and
 * speed ratio s > 0: the least fixed point p in [0, 1) of
 * p = u_pe * pbar(p) / (6 s), found by iterating from p = 0 (the
 * iterates rise monotonically to it because pbar does not decrease with
 * p) until the residual |u_pe * pbar(p) / (6 s) - p| is below
 * MP_FLOW_EPS; a step that changes sign halves the relaxation factor.
 * Returns MP_FLOW_OK with *p set; MP_FLOW_SATURATED when an iterate
 * reaches 1 (no fixed point below 1: the internal ports saturate) with
 * *p set to 1; or -1 with a message in err for bad arguments or when the
 * iteration does not converge in a million steps.
 */
int mp_flow_int_util(mp_flow *f, enum mp_flow_strategy st, double u_pe,
		     double s, double *p, mp_err *err);

/*
 * Highest attainable PE port utilization: the supremum of u_pe in [0, 1]
 * for which the fixed point of mp_flow_int_util exists with p < 1 (the
 * PE port saturates at 1, the internal ports at p = 1). For the minimal
 * strategy pbar is the mean distance and this is exactly
 * min(1, 6 s / pbar); for derouting it is found by bisection on u_pe to
 * MP_FLOW_UTIL_EPS and the lower end of the bracket is returned.
 * Returns 0 with *u set, or -1 with a message in err for bad arguments
 * or when a fixed point iteration fails.
 */
int mp_flow_max_pe_util(mp_flow *f, enum mp_flow_strategy st, double s,
			double *u, mp_err *err);

#endif
