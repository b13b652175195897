/*
 * FIFO rings (one per fixed delay, power-of-two capacity, growing by
 * doubling) and a binary heap ordered by (time, sequence) for the rest.
 */
#include "mp_evq.h"

#include <stdlib.h>
#include <string.h>

mp_evq *mp_evq_new(void)
{
	mp_evq *q = calloc(1, sizeof(struct mp_evq));
	if (q)
		for (int i = 0; i <= MP_EVQ_MAXRINGS; i++)
			q->ht[i] = UINT64_MAX;
	return q;
}

void mp_evq_free(mp_evq *q)
{
	if (!q)
		return;
	for (int i = 0; i < q->nrings; i++)
		free(q->r[i].e);
	free(q->heap);
	free(q);
}

int mp_evq_ring(mp_evq *q, uint64_t delay)
{
	/* Events of equal delays share a ring: fewer heads to compare. */
	for (int i = 0; i < q->nrings; i++)
		if (q->r[i].delay == delay)
			return i;
	if (q->nrings == MP_EVQ_MAXRINGS)
		return -1;
	struct mp_evq_ring *r = &q->r[q->nrings];
	r->e = malloc(64 * sizeof *r->e);
	if (!r->e)
		return -1;
	r->delay = delay;
	r->mask = 63;
	return q->nrings++;
}

int mp_evq_ring_grow_(mp_evq *q, int ring)
{
	struct mp_evq_ring *r = &q->r[ring];
	uint32_t cap = r->mask + 1;
	struct mp_ev *e = malloc(2 * (size_t)cap * sizeof *e);
	if (!e)
		return -1;
	/* Unroll the ring into the new array, oldest first. */
	for (uint32_t i = 0; i < r->n; i++)
		e[i] = r->e[(r->head + i) & r->mask];
	free(r->e);
	r->e = e;
	r->head = 0;
	r->mask = 2 * cap - 1;
	return 0;
}

static int hless(const struct mp_evq_hent *x, const struct mp_evq_hent *y)
{
	return x->ev.t < y->ev.t || (x->ev.t == y->ev.t && x->seq < y->seq);
}

int mp_evq_push(mp_evq *q, const struct mp_ev *ev)
{
	if (ev->t < q->last)
		return -1;
	if (q->hn == q->hcap) {
		size_t cap = q->hcap ? q->hcap * 2 : 64;
		struct mp_evq_hent *h = realloc(q->heap, cap * sizeof *h);
		if (!h)
			return -1;
		q->heap = h;
		q->hcap = cap;
	}
	struct mp_evq_hent e = { q->seq++, *ev };
	size_t i = q->hn++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!hless(&e, &q->heap[p]))
			break;
		q->heap[i] = q->heap[p];
		i = p;
	}
	q->heap[i] = e;
	q->ht[MP_EVQ_MAXRINGS] = q->heap[0].ev.t;
	q->pushed++;
	return 0;
}

void mp_evq_heap_pop_(mp_evq *q, struct mp_ev *ev)
{
	*ev = q->heap[0].ev;
	struct mp_evq_hent last = q->heap[--q->hn];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->hn)
			break;
		if (c + 1 < q->hn && hless(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!hless(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->hn)
		q->heap[i] = last;
	q->ht[MP_EVQ_MAXRINGS] = q->hn ? q->heap[0].ev.t : UINT64_MAX;
}

uint64_t mp_evq_peek(const mp_evq *q)
{
	uint64_t t = q->ht[MP_EVQ_MAXRINGS];
	for (int i = 0; i < q->nrings; i++)
		if (q->ht[i] < t)
			t = q->ht[i];
	return t;
}

int mp_evq_pop(mp_evq *q, struct mp_ev *ev)
{
	return mp_evq_pop_before(q, UINT64_MAX, ev);
}

uint64_t mp_evq_size(const mp_evq *q)
{
	uint64_t n = q->hn;
	for (int i = 0; i < q->nrings; i++)
		n += q->r[i].n;
	return n;
}

uint64_t mp_evq_pushed(const mp_evq *q)
{
	return q->pushed;
}
