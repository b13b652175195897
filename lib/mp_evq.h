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
 * and grows as needed. The structure is in this header only so that the
 * two hot operations can be inlined into the simulator's loop; callers
 * use the functions, never the fields.
 */
#ifndef MP_EVQ_H
#define MP_EVQ_H

#include <stddef.h>
#include <stdint.h>

struct mp_ev {
	uint64_t t;
	uint32_t a, b;
	uint16_t type;
};

/* Most rings a queue may have. */
#define MP_EVQ_MAXRINGS 8

struct mp_evq_ring {
	struct mp_ev *e;
	uint64_t delay;
	uint32_t head, n, mask; /* capacity mask+1, a power of two */
};

struct mp_evq_hent {
	uint64_t seq;
	struct mp_ev ev;
};

typedef struct mp_evq {
	/* Time of each ring's head (UINT64_MAX when empty); slot
	 * MP_EVQ_MAXRINGS is the heap's. */
	uint64_t ht[MP_EVQ_MAXRINGS + 1];
	struct mp_evq_ring r[MP_EVQ_MAXRINGS];
	int nrings;
	struct mp_evq_hent *heap;
	size_t hn, hcap;
	uint64_t seq, pushed, last;
} mp_evq;

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
 * Schedule an event at ev->t (not before the last event popped) on the
 * heap. Returns 0, or -1 when out of memory (or ev->t is in the past).
 */
int mp_evq_push(mp_evq *q, const struct mp_ev *ev);

/* Time of the next event, or UINT64_MAX when the queue is empty. */
uint64_t mp_evq_peek(const mp_evq *q);

/* Pop the next event into *ev. Returns 1, or 0 when empty. */
int mp_evq_pop(mp_evq *q, struct mp_ev *ev);

/* Events pending. */
uint64_t mp_evq_size(const mp_evq *q);

/* Events scheduled since creation. */
uint64_t mp_evq_pushed(const mp_evq *q);

/* Slow paths of the inline functions below (not for direct use). */
int mp_evq_ring_grow_(mp_evq *q, int ring);
void mp_evq_heap_pop_(mp_evq *q, struct mp_ev *ev);

/*
 * Schedule an event at now + the ring's delay. `now` must not decrease
 * from one call to the next on the same ring, nor be before the time of
 * the last event popped. Returns 0, or -1 when out of memory.
 */
static inline int mp_evq_push_ring(mp_evq *q, int ring, uint64_t now,
				   uint16_t type, uint32_t a, uint32_t b)
{
	struct mp_evq_ring *r = &q->r[ring];
	if (r->n > r->mask && mp_evq_ring_grow_(q, ring) < 0)
		return -1;
	struct mp_ev *e = &r->e[(r->head + r->n) & r->mask];
	e->t = now + r->delay;
	e->a = a;
	e->b = b;
	e->type = type;
	if (r->n++ == 0)
		q->ht[ring] = e->t;
	q->pushed++;
	return 0;
}

/*
 * Pop the next event into *ev if it is before `until`. Returns 1, or 0
 * when the queue is empty or the next event is at or after `until`.
 * Ties go to the lower ring, the heap last.
 */
static inline int mp_evq_pop_before(mp_evq *q, uint64_t until,
				    struct mp_ev *ev)
{
	int s = MP_EVQ_MAXRINGS;
	uint64_t t = q->ht[MP_EVQ_MAXRINGS];
	for (int i = q->nrings; i-- > 0;)
		if (q->ht[i] <= t) {
			t = q->ht[i];
			s = i;
		}
	if (t >= until)
		return 0;
	q->last = t;
	if (s == MP_EVQ_MAXRINGS) {
		mp_evq_heap_pop_(q, ev);
		return 1;
	}
	struct mp_evq_ring *r = &q->r[s];
	*ev = r->e[r->head];
	r->head = (r->head + 1) & r->mask;
	q->ht[s] = --r->n ? r->e[r->head].t : UINT64_MAX;
	return 1;
}

#endif
