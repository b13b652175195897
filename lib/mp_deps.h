/*
 * Dependencies between the messages of a stream (closed-loop replay):
 * netrun's table of messages that wait and messages waited for, with
 * the queue of messages released by deliveries, and wlgen's inverter,
 * which turns Netrace's lists of dependants ("these packets wait for
 * me") into the stream's lists of dependencies ("I wait for these").
 * The rules are in man/meshpipe.5 (dep and rel records) and netrun(1).
 *
 * Memory: an entry lives from its message's reading until it was
 * delivered and every later message it declared (its users) named it,
 * so it grows with the messages outstanding, not with the trace.
 *
 * Ownership: _new returns an object freed by _free; pointers returned
 * stay valid until the next call on the same object. Nothing here
 * prints.
 */
#ifndef MP_DEPS_H
#define MP_DEPS_H

#include <stddef.h>
#include <stdint.h>

#include "mp_record.h"
#include "mp_util.h"

/* Release rules (netrun --dep-release). */
enum {
	MP_DEP_MAX = 0, /* the later of its trace time and the last delivery */
	MP_DEP_GAP = 1  /* last delivery + trace gap since that dependency */
};

typedef struct mp_deps mp_deps;

/* A new table; NULL when out of memory. */
mp_deps *mp_deps_new(int mode);
void mp_deps_free(mp_deps *d);

/*
 * Start message m (read from input, time its trace time); its dep
 * records follow through mp_deps_dep, then mp_deps_close. Returns 0 or
 * -1 (out of memory; message in err).
 */
int mp_deps_open(mp_deps *d, const struct mp_msg *m, mp_err *err);

/*
 * A dep record of the open message. Returns 0, or -1 with a message in
 * err: the record names another message, or a dependency on an id that
 * is not an earlier message of the stream still expecting users (a
 * forward reference, which could close a cycle, or an unknown id).
 */
int mp_deps_dep(mp_deps *d, const struct mp_dep *r, mp_err *err);

/*
 * The open message is complete; now is the current simulated time.
 * It is queued for release (all it waits for was delivered) or held.
 * Returns 0 or -1 (out of memory).
 */
int mp_deps_close(mp_deps *d, uint64_t now, mp_err *err);

/*
 * Message id was delivered at time t: messages waiting for it that
 * waited for nothing else join the release queue. Returns the number
 * released, or -1 when out of memory.
 */
int mp_deps_delivered(mp_deps *d, uint64_t id, uint64_t t);

/* Release time of the next queued message into *t; 0 when none. */
int mp_deps_peek(const mp_deps *d, uint64_t *t);

/*
 * Take the next queued message (earliest release, then input order):
 * *m with time set to its release time, *rel its rel record.
 * Returns 1, or 0 when the queue is empty.
 */
int mp_deps_pop(mp_deps *d, struct mp_msg *m, struct mp_rel *rel);

/* Messages held (waiting for a delivery), and table entries in use. */
uint64_t mp_deps_held(const mp_deps *d);
size_t mp_deps_entries(const mp_deps *d);

/* wlgen's inverter: waiter -> the ids it waits for. */
typedef struct mp_depinv mp_depinv;

mp_depinv *mp_depinv_new(void);
void mp_depinv_free(mp_depinv *v);

/* Note that message waiter waits for message dep. 0, or -1 (memory). */
int mp_depinv_add(mp_depinv *v, uint64_t waiter, uint64_t dep);

/*
 * Take (and forget) what waiter waits for: returns the count, with the
 * ids in *ids (valid until the next call).
 */
size_t mp_depinv_take(mp_depinv *v, uint64_t waiter, const uint64_t **ids);

/* Waiters noted and not yet taken. */
size_t mp_depinv_pending(const mp_depinv *v);

/* A count per id (wlgen's first pass over a CSV trace). */
typedef struct mp_idcount mp_idcount;

mp_idcount *mp_idcount_new(void);
void mp_idcount_free(mp_idcount *c);

/* Add n to the count of id, inserting it at 0 first. 0, or -1 (memory). */
int mp_idcount_add(mp_idcount *c, uint64_t id, uint32_t n);

/* Whether id is present; its count into *n. */
int mp_idcount_get(const mp_idcount *c, uint64_t id, uint32_t *n);

#endif
