/*
 * The fabric simulator: a discrete-event, packet-level model of
 * virtual cut-through routers with a central buffer pool per node,
 * half- or full-duplex links, a PE port shared by (or separate for)
 * injection and ejection, NACK refusal with the packet kept at the
 * sender, backpressure, balanced injection, and a network interface that
 * applies an injection policy (mp_ni.h) against the packets the fabric
 * actually accepts. Topology and routing come from mp_topo; everything
 * a preset sets comes from struct mp_cfg (mp_config.h). The model's
 * exact rules are in man/netrun.1.
 *
 * Output goes through an emit callback: delivered packets (MP_REC_PKT),
 * delivered messages (MP_REC_DLV), utilization snapshots (MP_REC_UTIL)
 * and, from mp_fabric_finish, per-port utilization and the end-of-run
 * accounting (MP_REC_RUN).
 *
 * Ownership: mp_fabric_new copies the configuration and policy; the
 * caller frees the fabric with mp_fabric_free. Nothing here prints.
 */
#ifndef MP_FABRIC_H
#define MP_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "mp_config.h"
#include "mp_ni.h"
#include "mp_record.h"
#include "mp_util.h"

typedef struct mp_fabric mp_fabric;

/* Receives each output record; returns 0, or -1 to abort the run. */
typedef int (*mp_emit_fn)(void *ctx, const mp_rec *rec);

struct mp_fabric_opts {
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
void mp_fabric_defaults(const struct mp_cfg *cfg, struct mp_fabric_opts *o);

/* Status of a run, as in MP_REC_RUN. */
enum {
	MP_FAB_OK = MP_RUN_OK,
	MP_FAB_SATURATED = MP_RUN_SATURATED,
	MP_FAB_DEADLOCK = MP_RUN_DEADLOCK,
	MP_FAB_ERROR = 100
};

/*
 * Build a fabric. Returns NULL with a message in err (bad configuration,
 * out of memory).
 */
mp_fabric *mp_fabric_new(const struct mp_cfg *cfg,
			 const struct mp_ni_policy *pol,
			 const struct mp_fabric_opts *opts, mp_emit_fn emit,
			 void *ctx, mp_err *err);

void mp_fabric_free(mp_fabric *f);

uint32_t mp_fabric_nodes(const mp_fabric *f);

/* Current simulated time. */
uint64_t mp_fabric_now(const mp_fabric *f);

/*
 * Process every event before time `until` (all of them, until the
 * fabric is empty, for UINT64_MAX). Returns MP_FAB_OK, MP_FAB_SATURATED
 * (when the backlog limit was passed and keep_going is off),
 * MP_FAB_DEADLOCK, or MP_FAB_ERROR (message from mp_fabric_error).
 */
int mp_fabric_run(mp_fabric *f, uint64_t until);

/*
 * A message joins its source's job list at m->time (not before the
 * current time; its tag is MP_REC_MSG or MP_REC_INJ, prio the priority
 * class). Returns 0, or -1 (message from mp_fabric_error).
 */
int mp_fabric_add(mp_fabric *f, const struct mp_msg *m);

/*
 * The next message of a time-ordered input: run the fabric up to its
 * arrival (mp_fabric_run), then add it (mp_fabric_add). Returns
 * MP_FAB_OK, or the status that stopped the run (MP_FAB_ERROR when the
 * message was refused).
 */
int mp_fabric_offer(mp_fabric *f, const struct mp_msg *m);

/*
 * Closed-loop replay (issue 17). mp_fabric_yield, called from the emit
 * callback, makes mp_fabric_run return after the current event, so the
 * caller can add messages that event released. mp_fabric_local delivers
 * a message whose source is its destination without the network: a dlv
 * record at m->time (not before the current time) with no packets and
 * no hops. Returns 0, or -1 (message from mp_fabric_error).
 */
void mp_fabric_yield(mp_fabric *f);
int mp_fabric_local(mp_fabric *f, const struct mp_msg *m);

/* No more messages will be added (lets the trend check conclude). */
void mp_fabric_input_done(mp_fabric *f);

/* Packets inside the fabric or queued at sources. */
int mp_fabric_busy(const mp_fabric *f);

/*
 * Emit final per-port utilization and the MP_REC_RUN record with the
 * given status (MP_RUN_*: pass the status the run ended with; a
 * saturation found by the trend check is added). Returns the final
 * status, or MP_FAB_ERROR.
 */
int mp_fabric_finish(mp_fabric *f, int status);

/* Counters for accounting. */
struct mp_fabric_counts {
	uint64_t msgs_in, msgs_done;
	uint64_t pkts_injected, pkts_delivered, pkts_in_flight, pkts_queued;
	uint64_t refusals, events, hops;
	/* Trend check at the end of the input: source backlog halfway
	 * through the input and at its end, packets offered in between. */
	uint64_t backlog_mid, backlog_end, offered_between;
};
void mp_fabric_counts(const mp_fabric *f, struct mp_fabric_counts *c);

/*
 * Describe the state for a diagnostic: the packets held in the fabric
 * (up to `max`), one per line, into buf. Returns the length needed.
 */
size_t mp_fabric_report(const mp_fabric *f, size_t max, char *buf, size_t cap);

/* Message of the last failure. */
const char *mp_fabric_error(const mp_fabric *f);

#endif
