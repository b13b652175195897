/*
 * Dependency bookkeeping of closed-loop replay: an open-addressing hash
 * of message ids to entries (linear probing, deletion by backward
 * shift, so memory follows the live entries), a pool of entries with a
 * free list, and a binary heap of released messages ordered by release
 * time, then by input order (deterministic).
 */
#include "mp_deps.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

/* ---- id -> index hash ------------------------------------------------ */

struct slot {
	uint64_t key;
	uint32_t val; /* NIL: empty */
};

struct hash {
	struct slot *s;
	size_t cap, n; /* cap a power of two */
};

static size_t hslot(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

static int hgrow(struct hash *h)
{
	size_t cap = h->cap ? 2 * h->cap : 1024;
	struct slot *s = malloc(cap * sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < cap; i++)
		s[i].val = NIL;
	for (size_t i = 0; i < h->cap; i++) {
		if (h->s[i].val == NIL)
			continue;
		size_t j = hslot(h->s[i].key, cap);
		while (s[j].val != NIL)
			j = (j + 1) & (cap - 1);
		s[j] = h->s[i];
	}
	free(h->s);
	h->s = s;
	h->cap = cap;
	return 0;
}

static uint32_t hget(const struct hash *h, uint64_t k)
{
	if (!h->cap)
		return NIL;
	for (size_t j = hslot(k, h->cap);; j = (j + 1) & (h->cap - 1)) {
		if (h->s[j].val == NIL)
			return NIL;
		if (h->s[j].key == k)
			return h->s[j].val;
	}
}

/* Insert k (absent). 0, or -1 when out of memory. */
static int hput(struct hash *h, uint64_t k, uint32_t v)
{
	if (2 * (h->n + 1) > h->cap && hgrow(h) < 0)
		return -1;
	size_t j = hslot(k, h->cap);
	while (h->s[j].val != NIL)
		j = (j + 1) & (h->cap - 1);
	h->s[j].key = k;
	h->s[j].val = v;
	h->n++;
	return 0;
}

static void hdel(struct hash *h, uint64_t k)
{
	size_t m = h->cap - 1, j = hslot(k, h->cap);
	while (h->s[j].val != NIL && h->s[j].key != k)
		j = (j + 1) & m;
	if (h->s[j].val == NIL)
		return;
	h->n--;
	/* Backward shift: move later entries of the run into the hole. */
	for (size_t i = j;;) {
		h->s[i].val = NIL;
		size_t k2 = i;
		for (;;) {
			k2 = (k2 + 1) & m;
			if (h->s[k2].val == NIL)
				return;
			size_t home = hslot(h->s[k2].key, h->cap);
			/* Stays if its home lies cyclically in (i, k2]. */
			if (i <= k2 ? (i < home && home <= k2)
				    : (i < home || home <= k2))
				continue;
			break;
		}
		h->s[i] = h->s[k2];
		i = k2;
	}
}

/* ---- netrun's table ---------------------------------------------------- */

struct ent {
	struct mp_msg msg;    /* the message (held until released) */
	uint64_t t_done;      /* delivered at (when delivered) */
	uint64_t t_last;      /* latest delivery among its dependencies */
	uint64_t trace_last;  /* trace time of that dependency */
	uint64_t users;       /* later messages yet to name it */
	uint32_t nwait;       /* dependencies not yet delivered */
	uint32_t ndeps;       /* dependencies named */
	uint32_t *waiters;    /* entries waiting for it */
	uint32_t nwaiters, capw;
	uint32_t next_free;
	uint8_t delivered, released, any_dep;
};

struct qitem {
	uint64_t t, seq;
	uint32_t e;
};

struct mp_deps {
	int mode;
	struct hash h;
	struct ent *e;
	uint32_t ne, cape, free_e;
	struct qitem *q;
	size_t nq, capq;
	uint64_t seq, held;
	uint32_t cur; /* entry of the open message, or NIL */
	int cur_has_entry;
};

mp_deps *mp_deps_new(int mode)
{
	mp_deps *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->mode = mode;
	d->free_e = NIL;
	d->cur = NIL;
	return d;
}

void mp_deps_free(mp_deps *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->ne; i++)
		free(d->e[i].waiters);
	free(d->e);
	free(d->h.s);
	free(d->q);
	free(d);
}

static uint32_t ent_alloc(mp_deps *d)
{
	uint32_t i;
	if (d->free_e != NIL) {
		i = d->free_e;
		d->free_e = d->e[i].next_free;
	} else {
		if (d->ne == d->cape) {
			uint32_t cap = d->cape ? 2 * d->cape : 1024;
			struct ent *e = realloc(d->e, cap * sizeof *e);
			if (!e)
				return NIL;
			d->e = e;
			d->cape = cap;
		}
		i = d->ne++;
		d->e[i].waiters = NULL;
		d->e[i].capw = 0;
	}
	struct ent *x = &d->e[i];
	uint32_t *w = x->waiters, capw = x->capw;
	memset(x, 0, sizeof *x);
	x->waiters = w;
	x->capw = capw;
	return i;
}

static void ent_free(mp_deps *d, uint32_t i)
{
	hdel(&d->h, d->e[i].msg.id);
	/* Keep a small waiter array for reuse; drop big ones. */
	if (d->e[i].capw > 16) {
		free(d->e[i].waiters);
		d->e[i].waiters = NULL;
		d->e[i].capw = 0;
	}
	d->e[i].next_free = d->free_e;
	d->free_e = i;
}

static int q_less(const struct qitem *a, const struct qitem *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int q_push(mp_deps *d, uint64_t t, uint32_t e)
{
	if (d->nq == d->capq) {
		size_t cap = d->capq ? 2 * d->capq : 256;
		struct qitem *q = realloc(d->q, cap * sizeof *q);
		if (!q)
			return -1;
		d->q = q;
		d->capq = cap;
	}
	size_t i = d->nq++;
	struct qitem it = { t, d->seq++, e };
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!q_less(&it, &d->q[p]))
			break;
		d->q[i] = d->q[p];
		i = p;
	}
	d->q[i] = it;
	return 0;
}

/* Release time of entry x, whose dependencies were all delivered. */
static uint64_t release_time(const mp_deps *d, const struct ent *x,
			     uint64_t now)
{
	uint64_t t = x->msg.time;
	if (x->any_dep) {
		if (d->mode == MP_DEP_GAP) {
			uint64_t gap = x->msg.time > x->trace_last ?
					       x->msg.time - x->trace_last : 0;
			t = x->t_last + gap;
		} else if (x->t_last > t) {
			t = x->t_last;
		}
	}
	return t > now ? t : now;
}

int mp_deps_open(mp_deps *d, const struct mp_msg *m, mp_err *err)
{
	uint32_t i = ent_alloc(d);
	if (i == NIL)
		return mp_err_set(err, "out of memory (dependencies)");
	d->e[i].msg = *m;
	d->cur = i;
	d->cur_has_entry = 0;
	return 0;
}

/* Note that x depends on entry y (already delivered or not). */
static int depend(mp_deps *d, uint32_t xi, uint32_t yi)
{
	struct ent *x = &d->e[xi], *y = &d->e[yi];
	x->ndeps++;
	y->users--;
	if (y->delivered) {
		if (!x->any_dep || y->t_done >= x->t_last) {
			x->t_last = y->t_done;
			x->trace_last = y->msg.time;
		}
		x->any_dep = 1;
		if (y->users == 0)
			ent_free(d, yi);
		return 0;
	}
	if (y->nwaiters == y->capw) {
		uint32_t cap = y->capw ? 2 * y->capw : 4;
		uint32_t *w = realloc(y->waiters, cap * sizeof *w);
		if (!w)
			return -1;
		y->waiters = w;
		y->capw = cap;
	}
	y->waiters[y->nwaiters++] = xi;
	x->nwait++;
	return 0;
}

int mp_deps_dep(mp_deps *d, const struct mp_dep *r, mp_err *err)
{
	uint32_t xi = d->cur;
	if (xi == NIL || d->e[xi].msg.id != r->msg)
		return mp_err_set(err, "dep record of message %llu does not "
				       "follow that message",
				  (unsigned long long)r->msg);
	if (r->n > MP_DEP_IDS)
		return mp_err_set(err, "dep record of message %llu: %u ids "
				       "(at most %d)",
				  (unsigned long long)r->msg, r->n, MP_DEP_IDS);
	d->e[xi].users += r->users;
	for (unsigned k = 0; k < r->n; k++) {
		uint64_t a = r->after[k];
		uint32_t yi = hget(&d->h, a);
		if (a == r->msg || yi == NIL || d->e[yi].users == 0)
			return mp_err_set(err, "message %llu waits for %llu, "
					       "which is not an earlier message "
					       "expecting it (a forward "
					       "reference or a cycle)",
					  (unsigned long long)r->msg,
					  (unsigned long long)a);
		if (depend(d, xi, yi) < 0)
			return mp_err_set(err, "out of memory (dependencies)");
	}
	return 0;
}

int mp_deps_close(mp_deps *d, uint64_t now, mp_err *err)
{
	uint32_t xi = d->cur;
	if (xi == NIL)
		return 0;
	d->cur = NIL;
	struct ent *x = &d->e[xi];
	if (x->users > 0 || x->nwait > 0) {
		if (hget(&d->h, x->msg.id) != NIL)
			return mp_err_set(err, "message id %llu appears twice "
					       "among messages still "
					       "referenced",
					  (unsigned long long)x->msg.id);
		if (hput(&d->h, x->msg.id, xi) < 0)
			return mp_err_set(err, "out of memory (dependencies)");
	}
	if (x->nwait > 0) {
		d->held++;
		return 0;
	}
	if (q_push(d, release_time(d, x, now), xi) < 0)
		return mp_err_set(err, "out of memory (dependencies)");
	return 0;
}

int mp_deps_delivered(mp_deps *d, uint64_t id, uint64_t t)
{
	uint32_t yi = hget(&d->h, id);
	if (yi == NIL || !d->e[yi].released || d->e[yi].delivered)
		return 0;
	int n = 0;
	d->e[yi].delivered = 1;
	d->e[yi].t_done = t;
	for (uint32_t k = 0; k < d->e[yi].nwaiters; k++) {
		struct ent *y = &d->e[yi];
		struct ent *x = &d->e[y->waiters[k]];
		if (!x->any_dep || t >= x->t_last) {
			x->t_last = t;
			x->trace_last = y->msg.time;
		}
		x->any_dep = 1;
		/* The open message is queued or held by mp_deps_close. */
		if (--x->nwait == 0 && y->waiters[k] != d->cur) {
			d->held--;
			if (q_push(d, release_time(d, x, t), y->waiters[k]) < 0)
				return -1;
			n++;
		}
	}
	d->e[yi].nwaiters = 0;
	if (d->e[yi].users == 0)
		ent_free(d, yi);
	return n;
}

int mp_deps_peek(const mp_deps *d, uint64_t *t)
{
	if (d->nq == 0)
		return 0;
	*t = d->q[0].t;
	return 1;
}

int mp_deps_pop(mp_deps *d, struct mp_msg *m, struct mp_rel *rel)
{
	if (d->nq == 0)
		return 0;
	struct qitem top = d->q[0], last = d->q[--d->nq];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= d->nq)
			break;
		if (c + 1 < d->nq && q_less(&d->q[c + 1], &d->q[c]))
			c++;
		if (!q_less(&d->q[c], &last))
			break;
		d->q[i] = d->q[c];
		i = c;
	}
	if (d->nq > 0)
		d->q[i] = last;
	struct ent *x = &d->e[top.e];
	*m = x->msg;
	m->time = top.t;
	memset(rel, 0, sizeof *rel);
	rel->tag = MP_REC_REL;
	rel->ndeps = x->ndeps;
	rel->msg = x->msg.id;
	rel->t_trace = x->msg.time;
	rel->t_release = top.t;
	x->released = 1;
	/* An entry nobody names again and nobody waits on is done. */
	if (x->users == 0 && x->nwaiters == 0) {
		if (hget(&d->h, x->msg.id) == top.e)
			ent_free(d, top.e);
		else {
			x->next_free = d->free_e;
			d->free_e = top.e;
		}
	}
	return 1;
}

uint64_t mp_deps_held(const mp_deps *d)
{
	return d->held;
}

size_t mp_deps_entries(const mp_deps *d)
{
	return d->h.n;
}

/* ---- wlgen's inverter ---------------------------------------------- */

struct inv {
	uint64_t *ids;
	uint32_t n, cap;
	uint32_t next_free;
};

struct mp_depinv {
	struct hash h;
	struct inv *v;
	uint32_t nv, capv, free_v;
	uint64_t *out;
	size_t capout;
};

mp_depinv *mp_depinv_new(void)
{
	mp_depinv *v = calloc(1, sizeof *v);
	if (v)
		v->free_v = NIL;
	return v;
}

void mp_depinv_free(mp_depinv *v)
{
	if (!v)
		return;
	for (uint32_t i = 0; i < v->nv; i++)
		free(v->v[i].ids);
	free(v->v);
	free(v->h.s);
	free(v->out);
	free(v);
}

int mp_depinv_add(mp_depinv *v, uint64_t waiter, uint64_t dep)
{
	uint32_t i = hget(&v->h, waiter);
	if (i == NIL) {
		if (v->free_v != NIL) {
			i = v->free_v;
			v->free_v = v->v[i].next_free;
		} else {
			if (v->nv == v->capv) {
				uint32_t cap = v->capv ? 2 * v->capv : 1024;
				struct inv *nv = realloc(v->v, cap * sizeof *nv);
				if (!nv)
					return -1;
				v->v = nv;
				v->capv = cap;
			}
			i = v->nv++;
			memset(&v->v[i], 0, sizeof v->v[i]);
		}
		v->v[i].n = 0;
		if (hput(&v->h, waiter, i) < 0)
			return -1;
	}
	struct inv *x = &v->v[i];
	if (x->n == x->cap) {
		uint32_t cap = x->cap ? 2 * x->cap : 4;
		uint64_t *ids = realloc(x->ids, cap * sizeof *ids);
		if (!ids)
			return -1;
		x->ids = ids;
		x->cap = cap;
	}
	x->ids[x->n++] = dep;
	return 0;
}

size_t mp_depinv_take(mp_depinv *v, uint64_t waiter, const uint64_t **ids)
{
	uint32_t i = hget(&v->h, waiter);
	if (i == NIL)
		return 0;
	struct inv *x = &v->v[i];
	size_t n = x->n;
	if (n > v->capout) {
		uint64_t *o = realloc(v->out, n * sizeof *o);
		if (!o)
			return 0;
		v->out = o;
		v->capout = n;
	}
	memcpy(v->out, x->ids, n * sizeof *x->ids);
	*ids = v->out;
	hdel(&v->h, waiter);
	if (x->cap > 16) {
		free(x->ids);
		x->ids = NULL;
		x->cap = 0;
	}
	x->n = 0;
	x->next_free = v->free_v;
	v->free_v = i;
	return n;
}

size_t mp_depinv_pending(const mp_depinv *v)
{
	return v->h.n;
}

/* ---- counts by id ------------------------------------------------ */

struct mp_idcount {
	struct hash h;
	uint32_t *v;
	uint32_t nv, capv;
};

mp_idcount *mp_idcount_new(void)
{
	return calloc(1, sizeof(mp_idcount));
}

void mp_idcount_free(mp_idcount *c)
{
	if (!c)
		return;
	free(c->h.s);
	free(c->v);
	free(c);
}

int mp_idcount_add(mp_idcount *c, uint64_t id, uint32_t n)
{
	uint32_t i = hget(&c->h, id);
	if (i == NIL) {
		if (c->nv == c->capv) {
			uint32_t cap = c->capv ? 2 * c->capv : 1024;
			uint32_t *v = realloc(c->v, cap * sizeof *v);
			if (!v)
				return -1;
			c->v = v;
			c->capv = cap;
		}
		i = c->nv++;
		c->v[i] = 0;
		if (hput(&c->h, id, i) < 0)
			return -1;
	}
	c->v[i] += n;
	return 0;
}

int mp_idcount_get(const mp_idcount *c, uint64_t id, uint32_t *n)
{
	uint32_t i = hget(&c->h, id);
	if (i == NIL)
		return 0;
	*n = c->v[i];
	return 1;
}
