/*
 * What the model unit tests share: a hash of the records a run emits (to
 * compare runs), and the end of a run: after the messages are offered, the
 * input is closed, the simulator runs to the end and finishes, and the
 * simulator is freed.
 */
#ifndef T_SIM_H
#define T_SIM_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mp_rng.h"
#include "mp_sim.h"

/* The hash of no records (FNV-1a's offset basis); t_mix folds v into *h. */
#define T_HASH0 0xcbf29ce484222325ull

static inline void t_mix(uint64_t *h, uint64_t v)
{
	*h = (*h ^ v) * 0x100000001b3ull;
}

/* Message id, *t later by gap (exponential gaps with mean gap unless
 * fixed), from a random terminal of nodes to another; the caller sets the
 * packets and the rest. */
static inline struct mp_msg t_sim_msg(mp_rng *rng, uint64_t id, double *t,
				      double gap, int fixed, uint32_t nodes)
{
	struct mp_msg m;
	memset(&m, 0, sizeof m);
	*t += fixed ? gap : mp_rng_exp(rng, gap);
	m.tag = MP_REC_MSG;
	m.id = id;
	m.time = (uint64_t)*t;
	m.src = (uint32_t)mp_rng_below(rng, nodes);
	do
		m.dst = (uint32_t)mp_rng_below(rng, nodes);
	while (m.dst == m.src);
	return m;
}

/* Ends sim's run when st (the status so far) is MP_SIM_OK, then frees sim.
 * Returns the run's status; errbuf (256 bytes) gets the simulator's message
 * when it is not MP_SIM_OK, and "" when it is. */
static inline int t_sim_end(mp_sim *sim, int st, char *errbuf)
{
	if (st == MP_SIM_OK) {
		mp_sim_input_done(sim);
		st = mp_sim_run(sim, UINT64_MAX);
	}
	if (st == MP_SIM_OK)
		st = mp_sim_finish(sim, st);
	snprintf(errbuf, 256, "%.200s", st == MP_SIM_OK ? "" : mp_sim_error(sim));
	mp_sim_free(sim);
	return st;
}

#endif
