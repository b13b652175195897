/*
 * Timing wheel plus overflow heap. The wheel holds events whose time is
 * less than `base + W` (W slots, one time unit each); slot lists are
 * FIFO linked lists of nodes from a free-listed pool. The heap holds the
 * rest, ordered by (time, sequence), and feeds the wheel as `base`
 * advances, so FIFO order at equal times holds across both.
 */
#include "mp_evq.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

struct node {
	struct mp_ev ev;
	uint32_t next;
};

struct hent {
	uint64_t t, seq;
	struct mp_ev ev;
};

struct mp_evq {
	uint64_t base;  /* no event earlier than base is pending */
	uint64_t mask;  /* W - 1 */
	uint32_t *head, *tail;
	uint64_t *bits; /* non-empty slots */
	size_t nwords;
	uint64_t in_wheel;
	struct node *pool;
	uint32_t pool_cap, free_list;
	struct hent *heap;
	size_t hn, hcap;
	uint64_t seq, pushed;
};

mp_evq *mp_evq_new(uint64_t span)
{
	uint64_t w = 64;
	while (w < span && w < (1u << 24))
		w <<= 1;
	mp_evq *q = calloc(1, sizeof *q);
	if (!q)
		return NULL;
	q->mask = w - 1;
	q->nwords = (size_t)(w / 64);
	q->head = malloc(w * sizeof *q->head);
	q->tail = malloc(w * sizeof *q->tail);
	q->bits = calloc(q->nwords, sizeof *q->bits);
	q->free_list = NIL;
	if (!q->head || !q->tail || !q->bits) {
		mp_evq_free(q);
		return NULL;
	}
	memset(q->head, 0xff, w * sizeof *q->head);
	return q;
}

void mp_evq_free(mp_evq *q)
{
	if (!q)
		return;
	free(q->head);
	free(q->tail);
	free(q->bits);
	free(q->pool);
	free(q->heap);
	free(q);
}

static int wheel_add(mp_evq *q, const struct mp_ev *ev)
{
	uint32_t i = q->free_list;
	if (i == NIL) {
		uint32_t cap = q->pool_cap ? q->pool_cap * 2 : 1024;
		struct node *p = realloc(q->pool, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		q->pool = p;
		for (uint32_t k = cap; k-- > q->pool_cap;) {
			p[k].next = q->free_list;
			q->free_list = k;
		}
		q->pool_cap = cap;
		i = q->free_list;
	}
	q->free_list = q->pool[i].next;
	q->pool[i].ev = *ev;
	q->pool[i].next = NIL;
	uint64_t s = ev->t & q->mask;
	if (q->head[s] == NIL) {
		q->head[s] = i;
		q->bits[s >> 6] |= 1ull << (s & 63);
	} else {
		q->pool[q->tail[s]].next = i;
	}
	q->tail[s] = i;
	q->in_wheel++;
	return 0;
}

static int hless(const struct hent *a, const struct hent *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int heap_add(mp_evq *q, const struct mp_ev *ev)
{
	if (q->hn == q->hcap) {
		size_t cap = q->hcap ? q->hcap * 2 : 64;
		struct hent *h = realloc(q->heap, cap * sizeof *h);
		if (!h)
			return -1;
		q->heap = h;
		q->hcap = cap;
	}
	struct hent e = { ev->t, q->seq++, *ev };
	size_t i = q->hn++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!hless(&e, &q->heap[p]))
			break;
		q->heap[i] = q->heap[p];
		i = p;
	}
	q->heap[i] = e;
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
}

/* Move heap events that now fall inside the wheel's span. */
static int migrate(mp_evq *q)
{
	while (q->hn && q->heap[0].t <= q->base + q->mask) {
		if (wheel_add(q, &q->heap[0].ev) < 0)
			return -1;
		heap_pop(q);
	}
	return 0;
}

int mp_evq_push(mp_evq *q, const struct mp_ev *ev)
{
	q->pushed++;
	if (ev->t < q->base)
		return -1;
	/* Heap events within the span were moved to the wheel when base
	 * advanced, so an event going to the wheel never jumps ahead of an
	 * earlier-scheduled event at the same time. */
	if (ev->t - q->base <= q->mask)
		return wheel_add(q, ev);
	return heap_add(q, ev);
}

/* Distance from base to the next non-empty wheel slot (wheel not empty). */
static uint64_t next_step(const mp_evq *q)
{
	uint64_t s = q->base & q->mask;
	size_t w = (size_t)(s >> 6);
	uint64_t word = q->bits[w] & (~0ull << (s & 63));
	if (word)
		return ((uint64_t)w << 6 | (uint64_t)__builtin_ctzll(word)) - s;
	uint64_t step = 64 - (s & 63);
	for (size_t k = 1; k <= q->nwords; k++) {
		uint64_t b = q->bits[(w + k) % q->nwords];
		if (b)
			return step + (uint64_t)(k - 1) * 64 +
			       (uint64_t)__builtin_ctzll(b);
	}
	return 0; /* not reached: the wheel is not empty */
}

/*
 * Advance base to the next pending event; 0 if there is none. Every heap
 * event is later than every wheel event (the heap only holds times past
 * base + mask, and migrate() runs whenever base moves), so the next event
 * is in the wheel whenever the wheel is not empty.
 */
static int advance(mp_evq *q)
{
	if (q->in_wheel == 0) {
		if (q->hn == 0)
			return 0;
		q->base = q->heap[0].t;
		migrate(q);
		return 1;
	}
	uint64_t step = next_step(q);
	if (step) {
		q->base += step;
		migrate(q);
	}
	return 1;
}

uint64_t mp_evq_peek(mp_evq *q)
{
	/* No side effects: events may still be pushed at times before the
	 * one returned (but not before the last event popped). */
	if (q->in_wheel)
		return q->base + next_step(q);
	return q->hn ? q->heap[0].t : UINT64_MAX;
}

int mp_evq_pop(mp_evq *q, struct mp_ev *ev)
{
	if (!advance(q))
		return 0;
	uint64_t s = q->base & q->mask;
	uint32_t i = q->head[s];
	*ev = q->pool[i].ev;
	q->head[s] = q->pool[i].next;
	if (q->head[s] == NIL)
		q->bits[s >> 6] &= ~(1ull << (s & 63));
	q->pool[i].next = q->free_list;
	q->free_list = i;
	q->in_wheel--;
	return 1;
}

uint64_t mp_evq_size(const mp_evq *q)
{
	return q->in_wheel + q->hn;
}

uint64_t mp_evq_pushed(const mp_evq *q)
{
	return q->pushed;
}
