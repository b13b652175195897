/*
 * Unit tests of the event queue: events come out in time order, ties in
 * the documented order (rings by creation, FIFO within a ring, then the
 * heap in push order), rings grow, peek has no side effects, and a
 * random mix of ring and heap events matches a sorted reference.
 */
#include <stdlib.h>
#include <string.h>

#include "mp_evq.h"
#include "mp_rng.h"
#include "t.h"

struct ref {
	uint64_t t;
	int src;      /* ring index, or 99 for the heap */
	uint64_t seq; /* push order */
	uint32_t id;
};

static int cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void test_basic(void)
{
	mp_evq *q = mp_evq_new();
	struct mp_ev ev;
	int r12 = mp_evq_ring(q, 12), r160 = mp_evq_ring(q, 160);
	T_OK(r12 == 0 && r160 == 1, "rings are numbered in creation order");
	T_OK(mp_evq_ring(q, 12) == r12, "a second ring of the same delay is the first");
	T_OK(mp_evq_peek(q) == UINT64_MAX && !mp_evq_pop(q, &ev), "empty queue");
	mp_evq_push_ring(q, r160, 0, 1, 1, 0);  /* t = 160 */
	mp_evq_push_ring(q, r12, 148, 2, 2, 0); /* t = 160, ring 0 first */
	struct mp_ev h = { 160, 3, 0, 3 };
	mp_evq_push(q, &h);                     /* t = 160, heap last */
	struct mp_ev h2 = { 5, 4, 0, 4 };
	mp_evq_push(q, &h2);                    /* t = 5 */
	T_OK(mp_evq_peek(q) == 5 && mp_evq_peek(q) == 5, "peek twice, no side effect");
	T_OK(mp_evq_size(q) == 4, "four pending");
	uint32_t order[4];
	for (int i = 0; i < 4; i++) {
		mp_evq_pop(q, &ev);
		order[i] = ev.a;
	}
	T_OK(order[0] == 4 && order[1] == 2 && order[2] == 1 && order[3] == 3,
	     "time order, then ring order, heap last (got %u %u %u %u)",
	     order[0], order[1], order[2], order[3]);
	struct mp_ev past = { 4, 0, 0, 1 };
	T_OK(mp_evq_push(q, &past) < 0, "an event before the last popped is refused");
	mp_evq_push_ring(q, r12, 200, 1, 7, 0);
	T_OK(!mp_evq_pop_before(q, 212, &ev) && mp_evq_pop_before(q, 213, &ev) &&
	     ev.a == 7, "pop_before stops at the limit");
	mp_evq_free(q);
}

static void test_random(void)
{
	enum { N = 200000 };
	mp_evq *q = mp_evq_new();
	uint64_t delays[4] = { 12, 160, 80, 180 };
	int ring[4];
	for (int k = 0; k < 4; k++)
		ring[k] = mp_evq_ring(q, delays[k]);
	struct ref *ref = malloc(N * sizeof *ref);
	struct ref *got = malloc(N * sizeof *got);
	mp_rng r;
	mp_rng_seed(&r, 42, 0);
	uint64_t now = 0, seq = 0;
	size_t nref = 0, ngot = 0;
	int late = 0;
	while (nref < N) {
		if (mp_rng_below(&r, 3)) {
			struct ref e;
			e.seq = seq++;
			e.id = (uint32_t)nref;
			if (mp_rng_below(&r, 8) == 0) {
				struct mp_ev ev = { now + mp_rng_below(&r, 5000), e.id, 0, 9 };
				e.t = ev.t;
				e.src = 99;
				mp_evq_push(q, &ev);
			} else {
				int k = (int)mp_rng_below(&r, 4);
				e.t = now + delays[k];
				e.src = ring[k];
				mp_evq_push_ring(q, ring[k], now, 1, e.id, 0);
			}
			ref[nref++] = e;
		} else {
			struct mp_ev ev;
			if (mp_evq_pop(q, &ev)) {
				if (ev.t < now)
					late++;
				now = ev.t;
				got[ngot++] = ref[ev.a];
			}
		}
	}
	struct mp_ev ev;
	while (mp_evq_pop(q, &ev))
		got[ngot++] = ref[ev.a];
	T_OK(ngot == N, "every event comes out once (%zu of %d)", ngot, N);
	T_OK(late == 0, "never an event earlier than the one before");
	/* The whole order is the reference order: time, then ring by
	 * creation, FIFO within a ring, heap last in push order. */
	qsort(ref, N, sizeof *ref, cmp);
	int bad = 0;
	for (size_t i = 0; i < ngot; i++)
		if (got[i].id != ref[i].id)
			bad++;
	T_OK(bad == 0, "order equals the sorted reference (%d differ)", bad);
	T_OK(mp_evq_pushed(q) == N, "pushed counts every event");
	free(ref);
	free(got);
	mp_evq_free(q);
}

int main(void)
{
	test_basic();
	test_random();
	return t_done();
}
