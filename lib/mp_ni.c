/*
 * Job lists as one binary heap per node and lane, keyed by (priority class,
 * priority, arrival sequence), with a position table so the message
 * being sent can have its priority lowered in place.
 */
#include "mp_ni.h"

#include <stdlib.h>
#include <string.h>

struct ent {
	uint32_t pclass;
	uint32_t id;
	double prio;
	uint64_t seq;
};

struct heap {
	struct ent *e;
	uint32_t n, cap;
};

struct mp_ni {
	struct mp_ni_policy pol;
	uint32_t nodes;
	unsigned lanes;
	uint8_t lane_of[MP_NI_CLASSES];
	struct heap *h;      /* node * lanes + lane */
	uint64_t *clock;
	uint32_t *pos;       /* by message id: index in its heap */
	uint8_t *lane;       /* by message id: its lane */
	uint32_t pos_cap;
	uint64_t seq;
};

mp_ni *mp_ni_new(uint32_t nodes, const struct mp_ni_policy *pol)
{
	mp_ni *ni = calloc(1, sizeof *ni);
	if (!ni)
		return NULL;
	ni->pol = *pol;
	ni->nodes = nodes;
	ni->lanes = 1;
	ni->h = calloc(nodes, sizeof *ni->h);
	ni->clock = calloc(nodes, sizeof *ni->clock);
	if (!ni->h || !ni->clock) {
		mp_ni_free(ni);
		return NULL;
	}
	return ni;
}

void mp_ni_free(mp_ni *ni)
{
	if (!ni)
		return;
	if (ni->h)
		for (uint32_t i = 0; i < ni->nodes * ni->lanes; i++)
			free(ni->h[i].e);
	free(ni->h);
	free(ni->clock);
	free(ni->pos);
	free(ni->lane);
	free(ni);
}

int mp_ni_set_lanes(mp_ni *ni, unsigned lanes, const uint8_t *lane_of_cls)
{
	if (lanes < 1 || lanes > MP_NI_MAXLANES || ni->seq)
		return -1;
	for (unsigned k = 0; k < MP_NI_CLASSES; k++)
		if (lane_of_cls[k] >= lanes)
			return -1;
	struct heap *h = calloc((size_t)ni->nodes * lanes, sizeof *h);
	if (!h)
		return -1;
	for (uint32_t i = 0; i < ni->nodes * ni->lanes; i++)
		free(ni->h[i].e);
	free(ni->h);
	ni->h = h;
	ni->lanes = lanes;
	memcpy(ni->lane_of, lane_of_cls, sizeof ni->lane_of);
	return 0;
}

unsigned mp_ni_lanes(const mp_ni *ni)
{
	return ni->lanes;
}

static int less(const struct ent *a, const struct ent *b)
{
	if (a->pclass != b->pclass)
		return a->pclass < b->pclass;
	if (a->prio != b->prio)
		return a->prio < b->prio;
	return a->seq < b->seq;
}

static void place(mp_ni *ni, struct heap *h, uint32_t i, const struct ent *e)
{
	h->e[i] = *e;
	ni->pos[e->id] = i;
}

static void sift_up(mp_ni *ni, struct heap *h, uint32_t i)
{
	struct ent e = h->e[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!less(&e, &h->e[p]))
			break;
		place(ni, h, i, &h->e[p]);
		i = p;
	}
	place(ni, h, i, &e);
}

static void sift_down(mp_ni *ni, struct heap *h, uint32_t i)
{
	struct ent e = h->e[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && less(&h->e[c + 1], &h->e[c]))
			c++;
		if (!less(&h->e[c], &e))
			break;
		place(ni, h, i, &h->e[c]);
		i = c;
	}
	place(ni, h, i, &e);
}

int mp_ni_add(mp_ni *ni, uint32_t node, uint32_t id, uint32_t packets,
	      uint32_t pclass, uint32_t cls)
{
	unsigned ln = cls < MP_NI_CLASSES ? ni->lane_of[cls] : 0;
	struct heap *h = &ni->h[(size_t)node * ni->lanes + ln];
	if (id >= ni->pos_cap) {
		uint32_t cap = ni->pos_cap ? ni->pos_cap : 1024;
		while (cap <= id)
			cap *= 2;
		uint32_t *p = realloc(ni->pos, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		ni->pos = p;
		uint8_t *l = realloc(ni->lane, cap);
		if (!l)
			return -1;
		ni->lane = l;
		ni->pos_cap = cap;
	}
	ni->lane[id] = (uint8_t)ln;
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 4;
		struct ent *e = realloc(h->e, (size_t)cap * sizeof *e);
		if (!e)
			return -1;
		h->e = e;
		h->cap = cap;
	}
	struct ent e;
	e.pclass = ni->pol.class_prio ? pclass : 0;
	e.id = id;
	e.seq = ni->seq++;
	if (ni->pol.kind == MP_NI_SRF)
		e.prio = packets;
	else
		e.prio = (double)ni->clock[node] + ni->pol.alpha * packets;
	h->e[h->n] = e;
	ni->pos[id] = h->n;
	h->n++;
	sift_up(ni, h, h->n - 1);
	return 0;
}

uint32_t mp_ni_head(const mp_ni *ni, uint32_t node)
{
	const struct heap *h = &ni->h[(size_t)node * ni->lanes];
	return h->n ? h->e[0].id : MP_NI_NONE;
}

uint32_t mp_ni_head_lane(const mp_ni *ni, uint32_t node, unsigned lane)
{
	const struct heap *h = &ni->h[(size_t)node * ni->lanes + lane];
	return h->n ? h->e[0].id : MP_NI_NONE;
}

void mp_ni_accepted(mp_ni *ni, uint32_t node, uint32_t id, uint32_t left)
{
	struct heap *h = &ni->h[(size_t)node * ni->lanes + ni->lane[id]];
	uint32_t i = ni->pos[id];
	ni->clock[node]++;
	if (left == 0) {
		h->n--;
		if (i != h->n) {
			place(ni, h, i, &h->e[h->n]);
			/* The moved element may belong above or below i. */
			sift_down(ni, h, i);
			sift_up(ni, h, i);
		}
		return;
	}
	if (ni->pol.kind == MP_NI_SRF)
		h->e[i].prio = left;
	else
		h->e[i].prio -= ni->pol.alpha;
	sift_up(ni, h, i);
}

uint64_t mp_ni_clock(const mp_ni *ni, uint32_t node)
{
	return ni->clock[node];
}

uint32_t mp_ni_len(const mp_ni *ni, uint32_t node)
{
	uint32_t n = 0;
	for (unsigned l = 0; l < ni->lanes; l++)
		n += ni->h[(size_t)node * ni->lanes + l].n;
	return n;
}

void mp_ni_schedule(struct mp_msg *m, const struct mp_ni_policy *pol,
		    uint32_t segment)
{
	m->tag = MP_REC_INJ;
	m->prio = pol->class_prio && m->cls != MP_CLASS_GT;
	if (segment && m->bytes)
		m->packets = (uint32_t)(((uint64_t)m->bytes + segment - 1) / segment);
}
