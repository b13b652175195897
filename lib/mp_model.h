/*
 * The interface between the simulation driver (mp_sim.h) and a switch
 * model: one table of operations per model, chosen by name. The driver
 * owns the messages, the network interface's job lists, the timers, the
 * checks and every record; a model owns its switches, links and packets,
 * schedules its work as events in the driver's queue (mp_sim_evq) and
 * reports to the driver each packet it accepts from a source
 * (mp_sim_accepted), moves over a link (mp_sim_moved) and delivers
 * (mp_sim_delivered). A model never writes records and never prints.
 *
 * Time is an integer in every model. A cycle-driven model schedules one
 * event per cycle while it holds work, so an empty network costs
 * nothing.
 *
 * To add a model: write lib/mp_<name>.c with a const struct
 * mp_model_ops, declare it below and list it in mp_model.c's registry;
 * tests/unit/test_models.c then runs it through the contract checks.
 *
 * Ownership: the tables are static and read-only.
 */
#ifndef MP_MODEL_H
#define MP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "mp_config.h"
#include "mp_net.h"
#include "mp_opt.h"
#include "mp_record.h"
#include "mp_util.h"

typedef struct mp_sim mp_sim;

struct mp_model_ops {
	const char *name;
	const char *desc; /* one line */
	/* The options of struct mp_cfg the model reads (mp_opt.h); the
	 * others of other models do not apply to it. */
	const struct mp_opt *opts;
	/* What the model offers beyond the contract: MP_MODEL_* below. */
	unsigned caps;
	/* Set the model's own options of a configuration to their defaults
	 * (every preset starts from them); NULL when zero will do. */
	void (*defaults)(struct mp_cfg *cfg);
	/* Build the model on the network net (the driver's, read-only,
	 * alive until the model is freed) for cfg in the driver sim.
	 * Returns the model, or NULL with a message in err (a network or
	 * configuration it cannot model, out of memory). */
	void *(*create)(mp_sim *sim, const mp_net *net, const struct mp_cfg *cfg,
			mp_err *err);
	/* Terminal count of the network the model was built on. */
	uint32_t (*nodes)(const void *m);
	/* The model's time: of the last event it processed, or of the last
	 * message it was told of (job). */
	uint64_t (*now)(const void *m);
	/* Process every event before `until` (all of them, until nothing is
	 * left, for UINT64_MAX); the driver's own events are passed to
	 * mp_sim_event. Returns an MP_SIM_* status. */
	int (*run_until)(void *m, uint64_t until);
	/* A message joined node's job list at time t (the current time). */
	void (*job)(void *m, uint32_t node, uint64_t t);
	/* Events of the model still pending (0: the model is idle). */
	int (*busy)(const void *m);
	/* Recount the model's state; 0, or -1 after mp_sim_fail. */
	int (*self_check)(void *m);
	/* Sum the ports of a scope (MP_UTIL_PE or MP_UTIL_INTERNAL) into
	 * u's busy, refused, transfers, refusals and nports, up to t. */
	void (*util)(const void *m, int scope, uint64_t t, struct mp_util *u);
	/* The k-th port's utilization over the run (node, port, busy ...).
	 * Returns 1, or 0 past the last port. */
	int (*port_util)(const void *m, uint32_t k, uint64_t t,
			 struct mp_util *u);
	/* Refused attempts and events so far. */
	void (*counts)(const void *m, uint64_t *refusals, uint64_t *events);
	/* The packets held (up to max), one per line, appended with
	 * mp_sim_report_line to buf (the driver has emptied it); returns
	 * the length needed. */
	size_t (*report)(const void *m, size_t max, char *buf, size_t cap);
	/* Latency of a packet alone in the network (zero load) over h hops
	 * under cfg: what the contract test checks at very low load. */
	uint64_t (*zero_load)(const struct mp_cfg *cfg, unsigned hops);
	void (*free)(void *m);
};

/* caps: the model generates Boughton's model sources itself (struct
 * mp_sim_opts source_p, source_n); it can start with full buffers
 * (prefill). */
#define MP_MODEL_SOURCES 1u
#define MP_MODEL_PREFILL 2u

/* The packet-level virtual cut-through model (lib/mp_packet.c). */
extern const struct mp_model_ops mp_model_packet;

/* The cycle-level flit model with virtual channels (lib/mp_flit.c). */
extern const struct mp_model_ops mp_model_flit;

/* The synchronous multistage model of SPEC 3.4 (lib/mp_ncube.c). */
extern const struct mp_model_ops mp_model_ncube;

/* The model named name, or NULL. */
const struct mp_model_ops *mp_model_find(const char *name);

/* The i-th registered model; NULL past the end. */
const struct mp_model_ops *mp_model_at(size_t i);

#endif
