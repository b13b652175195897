/*
 * The synchronous multistage model (lib/mp_ncube.c) against what its
 * small cases must give, derived by hand:
 *
 * One 2x2 router, saturated model sources, FIFOs of one packet. A FIFO
 * that is full at the start of a unit cannot accept in it, so a FIFO
 * alternates between accepting and sending. The states at the start of
 * a unit are EE (both FIFOs empty), EF (one full), FFs (both full, same
 * output) and FFd (different outputs); new destinations are uniform.
 *  - Perfect sinks: EE -> FF (FFs or FFd, 1/2 each); FFd -> EE (both
 *    go); FFs -> EF (one goes); EF -> EF (the empty one accepts, the
 *    full one goes). EF absorbs: one packet per unit, 1/2 per input.
 *  - Sinks accepting with probability Q = 1/2: EE -> FFs, FFd (1/2
 *    each); EF -> EF (Q), else FFs or FFd (1/2 each); FFd -> EE (Q^2),
 *    EF (2Q(1-Q)), FFd ((1-Q)^2); FFs -> EF (Q), FFs (1-Q). Balance:
 *    pi = (1, 10, 6, 4) / 21 for (EE, EF, FFs, FFd); packets per unit
 *    Q pi(EF) + Q pi(FFs) + 2Q pi(FFd) = 12/21, so 2/7 per input.
 * The crossbar of 2 outputs, no FIFOs, every source always offering a
 * packet (a loser retries the same destination, a winner draws a new
 * one, so the two destinations are always independent and uniform):
 * 2 packets with probability 1/2, else 1: 3/4 per input, the
 * head-of-line limit for N = 2.
 *
 * Each is checked against the accepted packets per input per unit of a
 * long run, with a 95% confidence interval from batch means.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mp_config.h"
#include "mp_model.h"
#include "mp_sim.h"
#include "t.h"
#include "t_sim.h"

#define BATCH 2000   /* units per batch */
#define NBATCH 200
#define WARM 2000    /* units skipped */

struct count {
	uint64_t batch[NBATCH];
	uint64_t end;      /* input end (model sources' last message) */
	uint64_t pkts, hash;
};

static int emit(void *ctx, const mp_rec *r)
{
	struct count *c = ctx;
	t_mix(&c->hash, r->tag);
	if (r->tag == MP_REC_PKT) {
		c->pkts++;
		t_mix(&c->hash, r->pkt.t_eject ^ (r->pkt.dst << 20));
		if (r->pkt.t_inject >= WARM) {
			uint64_t b = (r->pkt.t_inject - WARM) / BATCH;
			if (b < NBATCH)
				c->batch[b]++;
		}
	}
	if (r->tag == MP_REC_UTIL && r->util.scope == MP_UTIL_PE_INPUT_END)
		c->end = r->util.t;
	return 0;
}

/* Run the ncube model on the options; model sources with probability
 * p make n messages. Returns the run status. */
static int run(const char *const *opts, double p, uint64_t n, uint64_t seed,
	       int self_check, struct count *c)
{
	struct mp_cfg cfg;
	struct mp_sim_opts o;
	struct mp_ni_policy pol = { MP_NI_ALPHA, 0, 0 };
	mp_err err;
	memset(c, 0, sizeof *c);
	c->hash = T_HASH0;
	mp_cfg_init(&cfg);
	if (mp_cfg_preset(&cfg, "ncube", &err) < 0)
		return -1;
	for (size_t i = 0; opts[i]; i += 2)
		if (mp_cfg_set(&cfg, opts[i], opts[i + 1], &err) != 0) {
			printf("# %s\n", err.msg);
			return -1;
		}
	mp_sim_defaults(&cfg, &o);
	o.seed = seed;
	o.source_p = p;
	o.source_n = n;
	o.source_seed = seed + 100;
	o.self_check = self_check;
	mp_sim *sim = mp_sim_new(mp_model_find("ncube"), &cfg, &pol, &o, emit, c,
				 &err);
	if (!sim) {
		printf("# %s\n", err.msg);
		return -1;
	}
	char msg[256];
	int st = t_sim_end(sim, mp_sim_run(sim, UINT64_MAX), msg);
	if (st != MP_SIM_OK)
		printf("# status %d: %s\n", st, msg);
	return st;
}

/* Mean and 95% half-width of the batches' packets per input per unit. */
static void batches(const struct count *c, unsigned inputs, double *mean,
		    double *ci)
{
	double s = 0, s2 = 0;
	for (int b = 0; b < NBATCH; b++) {
		double x = (double)c->batch[b] / BATCH / inputs;
		s += x;
		s2 += x * x;
	}
	*mean = s / NBATCH;
	double var = (s2 - NBATCH * *mean * *mean) / (NBATCH - 1);
	*ci = 1.96 * sqrt(var > 0 ? var / NBATCH : 0);
}

/* Check the throughput of a saturated run against `want`. */
static void check(const char *name, const char *const *opts, unsigned inputs,
		  double want)
{
	struct count c;
	/* Enough messages that the input outlasts the batches. */
	uint64_t n = (uint64_t)((WARM + BATCH * (NBATCH + 1)) * inputs);
	int st = run(opts, 1, n, 5, 0, &c);
	T_OK(st == MP_SIM_OK && c.end >= WARM + (uint64_t)BATCH * NBATCH,
	     "%s: saturated run of %llu units", name,
	     (unsigned long long)c.end);
	double mean, ci;
	batches(&c, inputs, &mean, &ci);
	/* A chain absorbed in a deterministic state has no variance: the
	 * interval is then the rounding of the mean. */
	if (ci < 1e-12)
		ci = 1e-12;
	T_OK(fabs(mean - want) <= ci, "%s: throughput %.6f +- %.6f, derived "
	     "%.6f", name, mean, ci, want);
}

int main(void)
{
	static const char *const one_b1[] = { "stages", "1", "fifo", "1", NULL };
	static const char *const one_b1_q[] = { "stages", "1", "fifo", "1",
						"sink", "prob:0.5", NULL };
	static const char *const xbar2[] = { "topo", "crossbar:2", NULL };
	static const char *const xbar2_rr[] = { "topo", "crossbar:2", "arb",
						"rr", NULL };
	check("2x2 router, B = 1, perfect sinks", one_b1, 2, 0.5);
	check("2x2 router, B = 1, sinks Q = 1/2", one_b1_q, 2, 2.0 / 7);
	check("crossbar N = 2, no FIFOs", xbar2, 2, 0.75);
	check("crossbar N = 2, no FIFOs, round-robin", xbar2_rr, 2, 0.75);

	/* Model sources: every message made is delivered, the same seed
	 * gives the same records, the self-check holds after every unit,
	 * on a network of several stages, each arbitration and sink. */
	static const char *const nets[][9] = {
		{ "stages", "4", "fifo", "2", NULL },
		{ "stages", "3", "fifo", "1", "arb", "rr", NULL },
		{ "topo", "butterfly:4,2", "fifo", "3", "sink", "prob:0.7", NULL },
		{ "topo", "crossbar:5", "sink", "prob:0.6", NULL },
		{ "topo", "omega:2,5", "fifo", "2", "arb", "rr", NULL },
		{ "topo", "omega:3,3", "fifo", "1", NULL },
	};
	for (size_t k = 0; k < sizeof nets / sizeof nets[0]; k++) {
		struct count a, b;
		int s1 = run(nets[k], 0.6, 3000, 7, 1, &a);
		int s2 = run(nets[k], 0.6, 3000, 7, 1, &b);
		T_OK(s1 == MP_SIM_OK && s2 == MP_SIM_OK,
		     "net %zu: model sources, self-check clean", k);
		T_OK(a.pkts == 3000, "net %zu: 3000 made, %llu delivered", k,
		     (unsigned long long)a.pkts);
		T_OK(a.hash == b.hash, "net %zu: same seed, same records", k);
		run(nets[k], 0.6, 3000, 8, 0, &b);
		T_OK(a.hash != b.hash, "net %zu: another seed, other records", k);
	}
	return t_done();
}
