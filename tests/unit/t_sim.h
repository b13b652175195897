/*
 * The end of a unit test's simulator run, shared by the model tests:
 * after the messages are offered, the input is closed, the simulator runs
 * to the end and finishes, and the simulator is freed.
 */
#ifndef T_SIM_H
#define T_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "mp_sim.h"

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
