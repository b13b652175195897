/*
 * The simulation driver shared by every switch model (mp_model.h): the
 * message pool, the network interface's job lists under an injection
 * policy (mp_ni.h), the timers (utilization snapshots, saturation and
 * deadlock checks), the trend check at the end of the input, the
 * emission of packet, delivery, utilization and run records, the
 * end-of-run accounting, and the hook for --self-check. A model reports
 * to it the packets it accepts, moves and delivers; the driver turns
 * those into records and counts.
 *
 * Output goes through an emit callback: delivered packets (MP_REC_PKT),
 * delivered messages (MP_REC_DLV), utilization snapshots (MP_REC_UTIL)
 * and, from mp_sim_finish, per-port utilization and the end-of-run
 * accounting (MP_REC_RUN).
 *
 * Ownership: mp_sim_new copies the configuration, options and policy and
 * creates the model; mp_sim_free frees both. Nothing here prints.
 */
#ifndef MP_SIM_H
#define MP_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "mp_config.h"
#include "mp_evq.h"
#include "mp_model.h"
#include "mp_ni.h"
#include "mp_record.h"
#include "mp_util.h"

/* Receives each output record; returns 0, or -1 to abort the run. */
typedef int (*mp_emit_fn)(void *ctx, const mp_rec *rec);

struct mp_sim_opts {
	uint64_t seed;
	uint64_t util_interval;  /* units between utilization snapshots */
	uint64_t check_interval; /* units between saturation/deadlock checks */
	uint64_t deadlock_time;  /* no progress this long with packets inside */
	uint64_t max_backlog;    /* packets queued at sources, per node */
	int keep_going;          /* on saturation: mark it, do not stop */
	int no_packets;          /* do not emit MP_REC_PKT */
	int eager_retries;       /* an event per refused attempt (validation) */
	int self_check;          /* check the model's invariants after every
				  * event (slow; for tests) */
};

/* Fill opts with defaults suited to cfg. */
void mp_sim_defaults(const struct mp_cfg *cfg, struct mp_sim_opts *o);

/* Status of a run, as in MP_REC_RUN. */
enum {
	MP_SIM_OK = MP_RUN_OK,
	MP_SIM_SATURATED = MP_RUN_SATURATED,
	MP_SIM_DEADLOCK = MP_RUN_DEADLOCK,
	MP_SIM_ERROR = 100
};

/*
 * Build a driver running the model `model` (NULL: the first registered)
 * on cfg. Returns NULL with a message in err (unknown model, bad
 * configuration, out of memory).
 */
mp_sim *mp_sim_new(const struct mp_model_ops *model, const struct mp_cfg *cfg,
		   const struct mp_ni_policy *pol, const struct mp_sim_opts *opts,
		   mp_emit_fn emit, void *ctx, mp_err *err);

void mp_sim_free(mp_sim *s);

/* Terminal count of the network. */
uint32_t mp_sim_nodes(const mp_sim *s);

/* The network (read-only). */
const mp_net *mp_sim_net(const mp_sim *s);

/* The model being run. */
const struct mp_model_ops *mp_sim_model(const mp_sim *s);

/* Current simulated time. */
uint64_t mp_sim_now(const mp_sim *s);

/*
 * Process every event before time `until` (all of them, until the
 * network is empty, for UINT64_MAX). Returns MP_SIM_OK, MP_SIM_SATURATED
 * (when the backlog limit was passed and keep_going is off),
 * MP_SIM_DEADLOCK, or MP_SIM_ERROR (message from mp_sim_error).
 */
int mp_sim_run(mp_sim *s, uint64_t until);

/*
 * A message joins its source's job list at m->time (not before the
 * current time; its tag is MP_REC_MSG or MP_REC_INJ, prio the priority
 * class). Returns 0, or -1 (message from mp_sim_error).
 */
int mp_sim_add(mp_sim *s, const struct mp_msg *m);

/*
 * The next message of a time-ordered input: run up to its arrival
 * (mp_sim_run), then add it (mp_sim_add). Returns MP_SIM_OK, or the
 * status that stopped the run (MP_SIM_ERROR when the message was
 * refused).
 */
int mp_sim_offer(mp_sim *s, const struct mp_msg *m);

/*
 * Closed-loop replay (issue 17). mp_sim_yield, called from the emit
 * callback, makes mp_sim_run return after the current event, so the
 * caller can add messages that event released. mp_sim_local delivers a
 * message whose source is its destination without the network: a dlv
 * record at m->time (not before the current time) with no packets and
 * no hops. Returns 0, or -1 (message from mp_sim_error).
 */
void mp_sim_yield(mp_sim *s);
int mp_sim_local(mp_sim *s, const struct mp_msg *m);

/* No more messages will be added (lets the trend check conclude). */
void mp_sim_input_done(mp_sim *s);

/* Packets inside the network or queued at sources, or model events. */
int mp_sim_busy(const mp_sim *s);

/*
 * Emit final per-port utilization and the MP_REC_RUN record with the
 * given status (MP_RUN_*: pass the status the run ended with; a
 * saturation found by the trend check is added). Returns the final
 * status, or MP_SIM_ERROR.
 */
int mp_sim_finish(mp_sim *s, int status);

/* Counters for accounting. */
struct mp_sim_counts {
	uint64_t msgs_in, msgs_done;
	uint64_t pkts_injected, pkts_delivered, pkts_in_flight, pkts_queued;
	uint64_t refusals, events, hops;
	/* Trend check at the end of the input: source backlog halfway
	 * through the input and at its end, packets offered in between. */
	uint64_t backlog_mid, backlog_end, offered_between;
};
void mp_sim_counts(const mp_sim *s, struct mp_sim_counts *c);

/*
 * Describe the state for a diagnostic: the packets held in the network
 * (up to `max`), one per line, into buf. Returns the length needed.
 */
size_t mp_sim_report(const mp_sim *s, size_t max, char *buf, size_t cap);

/* Message of the last failure. */
const char *mp_sim_error(const mp_sim *s);

/* ------------------------------------------------------------------ */
/* For models                                                          */

/* A message as the driver holds it (slot numbers name them). */
struct mp_sim_msg {
	uint64_t id, t_arrive, t_first;
	uint32_t src, dst, packets, bytes;
	uint32_t sent, delivered, hops;
	uint32_t next_free;
	uint8_t cls, group, rt; /* rt: enum mp_route, never DEFAULT */
};

/*
 * What a model reads or counts on its hot paths without a call: the
 * message slots (valid while a message has packets in the network or
 * queued; the array moves when it grows, so read it through this
 * struct each time), and the hop count and time of the last progress
 * the deadlock check reads.
 */
struct mp_sim_shared {
	struct mp_sim_msg *msgs;
	uint64_t hops, last_progress;
	int yield; /* mp_sim_yield: return from run_until after this event */
};
struct mp_sim_shared *mp_sim_shared(mp_sim *s);

/* Message slot i. */
static inline const struct mp_sim_msg *mp_sim_msg(const struct mp_sim_shared *sh,
						  uint32_t i)
{
	return &sh->msgs[i];
}

/* The job lists: mp_ni_head() gives the message a source sends next. */
mp_ni *mp_sim_ni(mp_sim *s);

/* The event queue the model schedules its events in. Event types from
 * MP_SIM_EV_FIRST up are the driver's: pass them to mp_sim_event. */
mp_evq *mp_sim_evq(mp_sim *s);
#define MP_SIM_EV_FIRST 0xff00u

/* The options of the run (seed, eager_retries, self_check ...). */
const struct mp_sim_opts *mp_sim_opts(const mp_sim *s);

/*
 * A driver event popped by the model at time ev->t. Returns MP_SIM_OK,
 * or the status that stops the run.
 */
int mp_sim_event(mp_sim *s, const struct mp_ev *ev);

/*
 * The model accepted a packet of message slot msg from source node at
 * time t_inject (the start of its injection), at time now. Returns the
 * packet's sequence number within its message.
 */
uint32_t mp_sim_accepted(mp_sim *s, uint32_t node, uint32_t msg,
			 uint64_t t_inject, uint64_t now);

/* A packet's head moved over a link at time now. */
static inline void mp_sim_moved(struct mp_sim_shared *sh, uint64_t now)
{
	sh->hops++;
	sh->last_progress = now;
}

/* A delivered packet, as the model reports it. */
struct mp_sim_pkt {
	uint32_t msg, seq;
	uint64_t t_inject;
	uint32_t refusals;
	uint16_t hops, deroutes;
};

/*
 * The packet p was delivered at time now (its message slot may be
 * freed). Returns 0; 1 when the emit callback asked the run to yield
 * (mp_sim_yield: the model returns from run_until after this event);
 * or -1 when the output failed (mp_sim_fail done).
 */
int mp_sim_delivered(mp_sim *s, const struct mp_sim_pkt *p, uint64_t now);

/* Record a failure (the run stops with MP_SIM_ERROR). Returns -1. */
int mp_sim_fail(mp_sim *s, const char *fmt, ...) MP_PRINTF(2, 3);

/* Packets accepted and not yet delivered. */
uint64_t mp_sim_in_flight(const mp_sim *s);

/* Whether packets wait at sources or travel (the model's own events
 * aside). */
int mp_sim_work(const mp_sim *s);

/*
 * Port accounting a model keeps per port: busy time (and the part spent
 * refused), transfers and refusals, for the utilization records.
 */
struct mp_port {
	uint8_t busy, refusing, last;
	uint64_t busy_start;
	uint64_t accum, refused, xfers, refusals;
};

static inline void mp_port_start(struct mp_port *pt, uint64_t now,
				 int refusing)
{
	pt->busy = 1;
	pt->refusing = (uint8_t)refusing;
	pt->busy_start = now;
}

static inline void mp_port_end(struct mp_port *pt, uint64_t now)
{
	uint64_t d = now - pt->busy_start;
	pt->accum += d;
	if (pt->refusing) {
		pt->refused += d;
		pt->refusals++;
	} else {
		pt->xfers++;
	}
	pt->busy = 0;
}

/* Add a port's busy and refused time up to now, in-progress use
 * included, its transfers and refusals to u. */
static inline void mp_port_sum(const struct mp_port *pt, uint64_t now,
			       struct mp_util *u)
{
	u->busy += pt->accum;
	u->refused += pt->refused;
	if (pt->busy) {
		u->busy += now - pt->busy_start;
		if (pt->refusing)
			u->refused += now - pt->busy_start;
	}
	u->transfers += pt->xfers;
	u->refusals += pt->refusals;
}

#endif
