/*
 * The event queue of the discrete-event simulators: a timing wheel for
 * the near future (most events are a fixed delay ahead: a header time, a
 * packet time) with a bitmap to skip empty slots, and a binary heap for
 * events farther away than the wheel spans. Events at the same time come
 * out in the order they were scheduled (FIFO), so runs are deterministic.
 *
 * Events are small values (time, type, two 32-bit arguments) copied in
 * and out; the queue owns its memory and grows as needed.
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

/*
 * A queue whose wheel spans at least `span` time units (rounded up to a
 * power of two, at least 64). Returns NULL when out of memory.
 */
mp_evq *mp_evq_new(uint64_t span);

void mp_evq_free(mp_evq *q);

/*
 * Schedule an event at time ev->t, which must not be before the time of
 * the last event popped. Returns 0, or -1 when out of memory.
 */
int mp_evq_push(mp_evq *q, const struct mp_ev *ev);

/* Time of the next event, or UINT64_MAX when the queue is empty. */
uint64_t mp_evq_peek(mp_evq *q);

/* Pop the next event into *ev. Returns 1, or 0 when empty. */
int mp_evq_pop(mp_evq *q, struct mp_ev *ev);

/* Events pending. */
uint64_t mp_evq_size(const mp_evq *q);

/* Events pushed since creation. */
uint64_t mp_evq_pushed(const mp_evq *q);

#endif
