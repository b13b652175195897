/*
 * The event queue of the discrete-event simulators. Most events are a
 * fixed delay ahead of the present (a header time, a packet time, a
 * set-up), and events of one delay are scheduled in time order, so each
 * delay gets a FIFO ring: scheduling is an append and the next event is
 * the earliest of a handful of ring heads. Events at other distances
 * (timers, and anything else) go to a binary heap.
 *
 * Events at the same time come out in a fixed order: the rings in the
 * order they were created, FIFO within a ring, then the heap in the
 * order events were pushed. Runs are therefore deterministic.
 *
 * Events are small values copied in and out; the queue owns its memory
 * and grows as needed.
 */
#ifndef MP_EVQ_H
#define MP_EVQ_H

#include <stdint.h>

typedef struct mp_evq mp_evq;

struct mp_ev {
	uint64_t t;
	uint32_t a, b;
	uint16_t type;
};

/* Most rings a queue may have. */
#define MP_EVQ_MAXRINGS 8

/* An empty queue; NULL when out of memory. */
mp_evq *mp_evq_new(void);

void mp_evq_free(mp_evq *q);

/*
 * Add a ring for events `delay` units ahead of the time they are
 * scheduled (or find the one there is). Returns its number, or -1 when
 * there are too many.
 */
int mp_evq_ring(mp_evq *q, uint64_t delay);

/*
 * Schedule an event at now + the ring's delay. `now` must not decrease
 * from one call to the next on the same ring, nor be before the time of
 * the last event popped. Returns 0, or -1 when out of memory.
 */
int mp_evq_push_ring(mp_evq *q, int ring, uint64_t now, uint16_t type,
		     uint32_t a, uint32_t b);

/*
 * Schedule an event at ev->t (not before the last event popped) on the
 * heap. Returns 0, or -1 when out of memory (or ev->t is in the past).
 */
int mp_evq_push(mp_evq *q, const struct mp_ev *ev);

/* Time of the next event, or UINT64_MAX when the queue is empty. */
uint64_t mp_evq_peek(const mp_evq *q);

/* Pop the next event into *ev. Returns 1, or 0 when empty. */
int mp_evq_pop(mp_evq *q, struct mp_ev *ev);

/*
 * Pop the next event into *ev if it is before `until`. Returns 1, or 0
 * when the queue is empty or the next event is at or after `until`.
 */
int mp_evq_pop_before(mp_evq *q, uint64_t until, struct mp_ev *ev);

/* Events pending. */
uint64_t mp_evq_size(const mp_evq *q);

/* Events scheduled since creation. */
uint64_t mp_evq_pushed(const mp_evq *q);

#endif
