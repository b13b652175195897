/*
 * FIFO rings (one per fixed delay, power-of-two capacity, growing by
 * doubling) and a binary heap ordered by (time, sequence) for the rest.
 */
#include "mp_evq.h"

#include <stdlib.h>
#include <string.h>

struct ring {
	struct mp_ev *e;
	uint64_t delay;
	uint32_t head, n, mask; /* capacity mask+1 */
};

struct hent {
	uint64_t seq;
	struct mp_ev ev;
};

struct mp_evq {
	/* Time of each ring's head (UINT64_MAX when empty); slot
	 * MP_EVQ_MAXRINGS is the heap's. Kept so that finding the next
	 * event is a scan of one small array. */
	uint64_t ht[MP_EVQ_MAXRINGS + 1];
	struct ring r[MP_EVQ_MAXRINGS];
	int nrings;
	struct hent *heap;
	size_t hn, hcap;
	uint64_t seq, pushed, last;
};

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
	struct ring *r = &q->r[q->nrings];
	r->e = malloc(64 * sizeof *r->e);
	if (!r->e)
		return -1;
	r->delay = delay;
	r->mask = 63;
	return q->nrings++;
}

static int ring_grow(struct ring *r)
{
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

int mp_evq_push_ring(mp_evq *q, int ring, uint64_t now, uint16_t type,
		     uint32_t a, uint32_t b)
{
	struct ring *r = &q->r[ring];
	if (r->n > r->mask && ring_grow(r) < 0)
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

static int hless(const struct hent *x, const struct hent *y)
{
	return x->ev.t < y->ev.t || (x->ev.t == y->ev.t && x->seq < y->seq);
}

int mp_evq_push(mp_evq *q, const struct mp_ev *ev)
{
	if (ev->t < q->last)
		return -1;
	if (q->hn == q->hcap) {
		size_t cap = q->hcap ? q->hcap * 2 : 64;
		struct hent *h = realloc(q->heap, cap * sizeof *h);
		if (!h)
			return -1;
		q->heap = h;
		q->hcap = cap;
	}
	struct hent e = { q->seq++, *ev };
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

static void heap_pop(mp_evq *q)
{
	struct hent last = q->heap[--q->hn];
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

/* Where the next event is: ring index, MP_EVQ_MAXRINGS for the heap,
 * -1 when empty. Ties go to the lower index. */
static inline int next_src(const mp_evq *q, uint64_t *t)
{
	int best = MP_EVQ_MAXRINGS;
	uint64_t bt = q->ht[MP_EVQ_MAXRINGS];
	for (int i = q->nrings; i-- > 0;)
		if (q->ht[i] <= bt) {
			bt = q->ht[i];
			best = i;
		}
	*t = bt;
	return bt == UINT64_MAX ? -1 : best;
}

uint64_t mp_evq_peek(const mp_evq *q)
{
	uint64_t t;
	next_src(q, &t);
	return t;
}

int mp_evq_pop_before(mp_evq *q, uint64_t until, struct mp_ev *ev)
{
	uint64_t t;
	int s = next_src(q, &t);
	if (s < 0 || t >= until)
		return 0;
	if (s == MP_EVQ_MAXRINGS) {
		*ev = q->heap[0].ev;
		heap_pop(q);
	} else {
		struct ring *r = &q->r[s];
		*ev = r->e[r->head];
		r->head = (r->head + 1) & r->mask;
		q->ht[s] = --r->n ? r->e[r->head].t : UINT64_MAX;
	}
	q->last = t;
	return 1;
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
