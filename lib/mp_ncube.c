/*
 * The synchronous multistage model (netrun --model ncube, SPEC 3.4):
 * Boughton's indirect n-cube routing networks as a cycle-level engine
 * of its own, apart from the event-driven packet model. Time advances
 * in units; each router input holds a FIFO of B packets that accepts a
 * packet in a unit only if it was not full at the start of that unit;
 * each unit a router offers the oldest packet of each non-empty FIFO to
 * the output it needs, conflicts go to a fair coin or round-robin, and
 * a packet leaves when the next stage (or the sink) accepts it. A
 * source offers one packet at a time to its first-stage FIFO. In the
 * crossbar reference there are no FIFOs: the sources' packets contend
 * for the outputs directly and losers retry the same destination.
 *
 * Only routers holding packets and sources with packets to offer cost
 * time in a unit (active lists per stage); an idle network skips ahead
 * to the next event. Stages are processed from the last to the first,
 * so a packet moved in a unit is never moved again in the same unit,
 * and a FIFO's fullness at the start of the unit is its count plus the
 * packet it sent in this unit.
 *
 * Sources are the driver's job lists (open-loop streams from wlgen) or,
 * when the run asks for it (struct mp_sim_opts source_p), Boughton's
 * model source: a new single-packet message with probability P per unit
 * once the source's previous packet was accepted, generated here into
 * the driver until source_n messages exist.
 */
#include "mp_model.h"
#include "mp_sim.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_evq.h"
#include "mp_rng.h"

#define NIL UINT32_MAX
#define PREFILL_ID (UINT64_C(1) << 48) /* ids of --prefill messages */
/* Most FIFO slots the model allocates (packets the network can hold). */
#define MAX_SLOTS (UINT64_C(1) << 27)

enum { EV_GEN = 1 }; /* a: source; the model source makes a packet */

struct pk {
	uint32_t msg, seq, src, next_free;
	uint32_t refusals;
	uint16_t hops;   /* stages to cross from where it entered (every
			  * packet crosses the rest of the network, so
			  * nothing is counted per hop) */
	uint64_t t_inject;
};

struct slot {
	uint32_t pk, dst;
};

struct fifo {
	uint32_t head, n;
	uint64_t sent; /* unit of its last departure (UINT64_MAX: none) */
	uint64_t arr;  /* grid, tree: unit of its last arrival */
};

#define TERM_BIT (UINT32_C(1) << 31) /* grid, tree: next is a terminal */

typedef struct ncube {
	mp_sim *sim;
	struct mp_sim_shared *sh;
	mp_evq *q;
	mp_ni *ni;
	uint32_t n;       /* terminals */
	unsigned A, D, B; /* radix, stages, FIFO size */
	uint32_t W;       /* switches per stage */
	int xbar;         /* crossbar: no FIFOs */
	int graph;        /* grid or tree: routers in any order, routing by
			     table, FIFOs stamped with their arrivals */
	uint32_t nsw, nq; /* routers, FIFOs */
	uint8_t *route;   /* graph: by sw * n + dst, the output */
	uint32_t *loc, *locn; /* model source, --dest local:L: by terminal
				 locn[t] .. locn[t + 1] in loc */
	int omega;        /* omega wiring: digits from the most significant */
	int rr;           /* round-robin arbitration */
	double sink_q;    /* sink acceptance probability (1: perfect) */
	uint64_t t;       /* the next unit to simulate */

	struct fifo *fq;     /* D * n FIFOs: switch sw's input j is sw*A+j */
	struct slot *slots;  /* B per FIFO */
	uint32_t *next;      /* by sw*A + output: the next FIFO, or at the
				last stage the terminal */
	uint32_t *in0;       /* by terminal: its first-stage FIFO */
	uint32_t *pw;        /* A^s: stage s routes on dst / pw[s] % A */
	unsigned *sh2;       /* A = 2: the same digit is dst >> sh2[s] & 1 */
	uint32_t *occ;       /* by switch: packets held */
	uint8_t *inact;      /* by switch: in its stage's active list */
	uint32_t **act;      /* by stage: active switches */
	uint32_t *nact;
	uint32_t *srcs;      /* active sources (job list not empty) */
	uint32_t nsrcs;
	uint8_t *insrc;
	uint32_t *srcref;    /* by source: refusals of its current packet */
	mp_rng *swrng;       /* by switch: arbitration */
	mp_rng *sinkrng;     /* by terminal */
	mp_rng *genrng;      /* by terminal: model source gaps and dsts */
	uint16_t *rrp;       /* by sw*A + output: last input served */
	uint32_t cnt[MP_NET_MAXPORTS], win[MP_NET_MAXPORTS];
	uint32_t touched[MP_NET_MAXPORTS];

	struct pk *pks;
	uint32_t npks, pk_free;
	uint64_t held;       /* packets in FIFOs */

	/* The model source. */
	double P;
	uint64_t gen_n, gen_id, gen_pending;
	int gen_done, ring1;
	uint32_t payload;

	int prefill, prefilled, in_prefill;
	int self_check;
	int failed;
	uint64_t xfers_in, xfers_int, ref_in, ref_int, units, events;
} ncube;

/* ------------------------------------------------------------------ */

static int fail(ncube *m, const char *what)
{
	m->failed = 1;
	return mp_sim_fail(m->sim, "%s", what);
}

static uint32_t pk_alloc(ncube *m)
{
	if (m->pk_free == NIL) {
		uint32_t cap = m->npks ? m->npks * 2 : 1024;
		struct pk *p = realloc(m->pks, (size_t)cap * sizeof *p);
		if (!p) {
			fail(m, "out of memory (packets)");
			return NIL;
		}
		m->pks = p;
		for (uint32_t i = cap; i-- > m->npks;) {
			p[i].next_free = m->pk_free;
			m->pk_free = i;
		}
		m->npks = cap;
	}
	uint32_t i = m->pk_free;
	m->pk_free = m->pks[i].next_free;
	return i;
}

static void pk_release(ncube *m, uint32_t i)
{
	m->pks[i].next_free = m->pk_free;
	m->pk_free = i;
}

static inline int full_at_start(const ncube *m, uint32_t qi, uint64_t t)
{
	const struct fifo *f = &m->fq[qi];
	return f->n + (f->sent == t) >= m->B;
}

/* A sink takes a packet offered this unit (prob:Q draws). */
static inline int sink_takes(ncube *m, uint32_t term)
{
	return m->sink_q >= 1 || mp_rng_unit(&m->sinkrng[term]) < m->sink_q;
}

/* The packet at the head of a FIFO was refused by the next stage. */
static inline void refuse(ncube *m, uint32_t pk)
{
	m->pks[pk].refusals++;
	m->ref_int++;
}

/* The packet at the head of FIFO f of switch sw leaves in unit t. */
static inline void pop_head(ncube *m, struct fifo *f, uint32_t sw,
			    uint64_t t)
{
	f->head = f->head + 1 == m->B ? 0 : f->head + 1;
	f->n--;
	f->sent = t;
	m->occ[sw]--;
	m->held--;
	m->xfers_int++;
	mp_sim_moved(m->sh, t);
}

/* Put packet p (for dst) at the tail of FIFO qi (of switch sw) at
 * stage s. */
static inline void push(ncube *m, uint32_t qi, uint32_t sw, unsigned s,
			uint32_t p, uint32_t dst)
{
	struct fifo *f = &m->fq[qi];
	uint32_t k = f->head + f->n;
	if (k >= m->B)
		k -= m->B;
	m->slots[(size_t)qi * m->B + k] = (struct slot){ p, dst };
	f->n++;
	f->arr = m->t;
	m->held++;
	m->occ[sw]++;
	if (!m->inact[sw]) {
		m->inact[sw] = 1;
		m->act[s][m->nact[s]++] = sw;
	}
}

static void activate_src(ncube *m, uint32_t node)
{
	if (!m->insrc[node]) {
		m->insrc[node] = 1;
		m->srcs[m->nsrcs++] = node;
	}
}

/* The model source of node makes its next packet `gap` units after t. */
static void schedule_gen(ncube *m, uint32_t node, uint64_t t, uint64_t gap)
{
	int rc;
	if (m->gen_done)
		return;
	if (gap == 1) {
		rc = mp_evq_push_ring(m->q, m->ring1, t, EV_GEN, node, 0);
	} else {
		struct mp_ev ev = { t + gap, node, 0, EV_GEN };
		rc = mp_evq_push(m->q, &ev);
	}
	if (rc < 0)
		fail(m, "out of memory (event queue)");
	else
		m->gen_pending++;
}

static void generate(ncube *m, uint32_t node, uint64_t t)
{
	struct mp_msg msg;
	if (m->gen_done)
		return;
	memset(&msg, 0, sizeof msg);
	msg.tag = MP_REC_MSG;
	msg.id = m->gen_id++;
	msg.time = t;
	msg.src = node;
	if (m->loc)
		msg.dst = m->loc[m->locn[node] + mp_rng_below(&m->genrng[node],
				  m->locn[node + 1] - m->locn[node])];
	else
		msg.dst = (uint32_t)mp_rng_below(&m->genrng[node], m->n);
	msg.packets = 1;
	msg.bytes = m->payload;
	msg.route = MP_ROUTE_DEFAULT;
	if (mp_sim_add(m->sim, &msg) < 0) {
		m->failed = 1;
		return;
	}
	if (m->gen_id == m->gen_n) {
		/* The model source is the input: it ends here. */
		m->gen_done = 1;
		mp_sim_input_done(m->sim);
	}
}

/* The packet accepted from node's job list at unit t. */
static uint32_t take(ncube *m, uint32_t node, uint32_t mi, uint64_t t)
{
	uint32_t seq = mp_sim_accepted(m->sim, node, mi, t, t);
	uint32_t p = pk_alloc(m);
	if (p == NIL)
		return NIL;
	m->pks[p] = (struct pk){ .msg = mi, .seq = seq, .src = node,
				 .refusals = m->srcref[node],
				 .hops = (uint16_t)(m->graph ? 0 : m->D),
				 .t_inject = t };
	m->srcref[node] = 0;
	if (m->P > 0)
		schedule_gen(m, node, t,
			     m->P >= 1 ? 1 : mp_rng_geometric(&m->genrng[node],
							       m->P));
	return p;
}

static void deliver(ncube *m, uint32_t p, uint32_t term, uint32_t dst,
		    uint64_t t)
{
	struct pk *k = &m->pks[p];
	if (term != dst) {
		fail(m, "internal error: a packet for a terminal reached "
			"another");
		return;
	}
	struct mp_sim_pkt d = { k->msg, k->seq, k->t_inject, k->refusals,
				k->hops, 0 };
	pk_release(m, p);
	if (mp_sim_delivered(m->sim, &d, t + 1) < 0)
		m->failed = 1;
}

/* Choose among the requesters of output o: requester j, count-th. */
static inline void request(ncube *m, mp_rng *rng, const uint16_t *rrp,
			   unsigned *nt, uint32_t o, uint32_t j)
{
	uint32_t c = ++m->cnt[o];
	if (c == 1) {
		m->win[o] = j;
		m->touched[(*nt)++] = o;
	} else if (!m->rr) {
		/* Reservoir: each of c requesters wins with 1/c. */
		if (mp_rng_below(rng, c) == 0)
			m->win[o] = j;
	} else {
		/* The first requester after the one served last. */
		uint32_t A = m->A, last = rrp[o];
		uint32_t dj = (j + A - last - 1) % A;
		uint32_t dw = (m->win[o] + A - last - 1) % A;
		if (dj < dw)
			m->win[o] = j;
	}
}

static void switch_unit(ncube *m, unsigned s, uint32_t sw, uint64_t t)
{
	const unsigned A = m->A, B = m->B;
	const uint32_t base = sw * A, pw = m->pw[s];
	mp_rng *rng = &m->swrng[sw];
	uint16_t *rrp = &m->rrp[base];
	unsigned nt = 0;

	for (unsigned j = 0; j < A; j++) {
		const struct fifo *f = &m->fq[base + j];
		if (!f->n)
			continue;
		uint32_t dst = m->slots[(size_t)(base + j) * B + f->head].dst;
		request(m, rng, rrp, &nt, dst / pw % A, j);
	}
	for (unsigned i = 0; i < nt; i++) {
		uint32_t o = m->touched[i], j = m->win[o];
		m->cnt[o] = 0;
		if (m->rr)
			rrp[o] = (uint16_t)j;
		uint32_t qi = base + j;
		struct fifo *f = &m->fq[qi];
		struct slot sl = m->slots[(size_t)qi * B + f->head];
		uint32_t nx = m->next[base + o];
		int last = s + 1 == m->D;
		int ok = last ? sink_takes(m, nx) : !full_at_start(m, nx, t);
		if (!ok) {
			refuse(m, sl.pk);
			continue;
		}
		pop_head(m, f, sw, t);
		if (last)
			deliver(m, sl.pk, nx, sl.dst, t);
		else
			push(m, nx, nx / A, s + 1, sl.pk, sl.dst);
	}
}

/*
 * The same for 2 x 2 routers, the networks of the study: no lists of
 * requesters, the routing digit by a shift, the coin one random bit.
 */
static void switch_unit2(ncube *m, unsigned s, uint32_t sw, uint64_t t)
{
	const unsigned B = m->B, sh = m->sh2[s];
	const uint32_t q0 = sw * 2;
	struct fifo *f0 = &m->fq[q0], *f1 = f0 + 1;
	struct slot *s0 = f0->n ? &m->slots[(size_t)q0 * B + f0->head] : NULL;
	struct slot *s1 = f1->n ? &m->slots[(size_t)(q0 + 1) * B + f1->head]
				: NULL;
	struct slot *go[2];
	struct fifo *from[2];
	unsigned ng = 0;
	uint16_t *rrp = &m->rrp[q0];

	if (s0 && s1 && ((s0->dst ^ s1->dst) >> sh & 1) == 0) {
		/* Both want the same output. */
		unsigned o = s0->dst >> sh & 1, j;
		if (m->rr)
			rrp[o] = (uint16_t)(j = rrp[o] ^ 1);
		else
			j = (unsigned)(mp_rng_next(&m->swrng[sw]) >> 63);
		go[0] = j ? s1 : s0;
		from[0] = j ? f1 : f0;
		ng = 1;
	} else {
		if (s0) {
			go[ng] = s0;
			from[ng++] = f0;
			if (m->rr)
				rrp[s0->dst >> sh & 1] = 0;
		}
		if (s1) {
			go[ng] = s1;
			from[ng++] = f1;
			if (m->rr)
				rrp[s1->dst >> sh & 1] = 1;
		}
	}
	int last = s + 1 == m->D;
	for (unsigned i = 0; i < ng; i++) {
		struct slot sl = *go[i];
		struct fifo *f = from[i];
		uint32_t nx = m->next[q0 + (sl.dst >> sh & 1)];
		int ok = last ? sink_takes(m, nx) : !full_at_start(m, nx, t);
		if (!ok) {
			refuse(m, sl.pk);
			continue;
		}
		pop_head(m, f, sw, t);
		if (last)
			deliver(m, sl.pk, nx, sl.dst, t);
		else
			push(m, nx, nx >> 1, s + 1, sl.pk, sl.dst);
	}
}

/*
 * A router of a grid or tree. The routers of a unit are visited in any
 * order, so a FIFO's count at the start of the unit is its count less
 * a packet that arrived in this unit plus one that left in it (a FIFO
 * takes and gives at most one a unit), and a packet that arrived in
 * this unit (at the tail) does not leave in it.
 */
static inline int gfull_at_start(const ncube *m, uint32_t qi, uint64_t t)
{
	const struct fifo *f = &m->fq[qi];
	return f->n - (f->arr == t) + (f->sent == t) >= m->B;
}

static void graph_switch(ncube *m, uint32_t sw, uint64_t t)
{
	const unsigned A = m->A, B = m->B;
	const uint32_t base = sw * A;
	mp_rng *rng = &m->swrng[sw];
	uint16_t *rrp = &m->rrp[base];
	unsigned nt = 0;

	for (unsigned j = 0; j < A; j++) {
		const struct fifo *f = &m->fq[base + j];
		if (!f->n || (f->n == 1 && f->arr == t))
			continue;
		uint32_t dst = m->slots[(size_t)(base + j) * B + f->head].dst;
		request(m, rng, rrp, &nt, m->route[(size_t)sw * m->n + dst], j);
	}
	for (unsigned i = 0; i < nt; i++) {
		uint32_t o = m->touched[i], j = m->win[o];
		m->cnt[o] = 0;
		if (m->rr)
			rrp[o] = (uint16_t)j;
		uint32_t qi = base + j;
		struct fifo *f = &m->fq[qi];
		struct slot sl = m->slots[(size_t)qi * B + f->head];
		uint32_t nx = m->next[base + o];
		int last = (nx & TERM_BIT) != 0;
		int ok = last ? sink_takes(m, nx & ~TERM_BIT)
			      : !gfull_at_start(m, nx, t);
		if (!ok) {
			refuse(m, sl.pk);
			continue;
		}
		pop_head(m, f, sw, t);
		m->pks[sl.pk].hops++;
		if (last)
			deliver(m, sl.pk, nx & ~TERM_BIT, sl.dst, t);
		else
			push(m, nx, nx / A, 0, sl.pk, sl.dst);
	}
}

static void graph_unit(ncube *m, uint64_t t)
{
	uint32_t *L = m->act[0], na = m->nact[0], k = 0;
	for (uint32_t i = 0; i < na; i++)
		graph_switch(m, L[i], t);
	/* Routers that received their first packet joined at the end;
	 * routers emptied in the unit may have received one since. */
	for (uint32_t i = 0; i < na; i++) {
		uint32_t sw = L[i];
		if (m->occ[sw])
			L[k++] = sw;
		else
			m->inact[sw] = 0;
	}
	for (uint32_t i = na; i < m->nact[0]; i++)
		L[k++] = L[i];
	m->nact[0] = k;
}

/* Sources offer to their first-stage FIFOs. */
static void sources_unit(ncube *m, uint64_t t)
{
	const struct mp_sim_msg *msgs;
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->nsrcs; i++) {
		uint32_t node = m->srcs[i];
		uint32_t mi = mp_ni_head(m->ni, node);
		uint32_t qi = m->in0[node];
		if (!full_at_start(m, qi, t)) {
			msgs = m->sh->msgs;
			uint32_t dst = msgs[mi].dst;
			uint32_t p = take(m, node, mi, t);
			if (p == NIL)
				return;
			m->xfers_in++;
			push(m, qi, qi / m->A, 0, p, dst);
		} else {
			m->srcref[node]++;
			m->ref_in++;
		}
		if (mp_ni_head(m->ni, node) != MP_NI_NONE)
			m->srcs[k++] = node;
		else
			m->insrc[node] = 0;
	}
	m->nsrcs = k;
}

/* The crossbar: sources contend for the outputs themselves. */
static void xbar_unit(ncube *m, uint64_t t)
{
	unsigned nt = 0;
	for (uint32_t i = 0; i < m->nsrcs; i++) {
		uint32_t node = m->srcs[i];
		uint32_t mi = mp_ni_head(m->ni, node);
		request(m, &m->swrng[0], m->rrp, &nt, m->sh->msgs[mi].dst, node);
		m->srcref[node]++; /* undone for the winners that go */
	}
	for (unsigned i = 0; i < nt; i++) {
		uint32_t o = m->touched[i], node = m->win[o];
		m->cnt[o] = 0;
		if (m->rr)
			m->rrp[o] = (uint16_t)node;
		if (m->sink_q < 1 && !(mp_rng_unit(&m->sinkrng[o]) < m->sink_q))
			continue;
		m->srcref[node]--;
		uint32_t mi = mp_ni_head(m->ni, node);
		uint32_t p = take(m, node, mi, t);
		if (p == NIL)
			return;
		m->xfers_in++;
		m->xfers_int++;
		mp_sim_moved(m->sh, t);
		deliver(m, p, o, o, t);
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < m->nsrcs; i++) {
		uint32_t node = m->srcs[i];
		if (mp_ni_head(m->ni, node) != MP_NI_NONE)
			m->srcs[k++] = node;
		else
			m->insrc[node] = 0;
	}
	m->ref_in += k;
	m->nsrcs = k;
}

static int ncube_self_check(void *mo);
static void ncube_free(void *mo);

static void unit(ncube *m, uint64_t t)
{
	m->units++;
	if (m->xbar) {
		xbar_unit(m, t);
	} else if (m->graph) {
		graph_unit(m, t);
		sources_unit(m, t);
	} else {
		for (unsigned s = m->D; s-- > 0;) {
			uint32_t *L = m->act[s], k = 0, na = m->nact[s];
			for (uint32_t i = 0; i < na; i++) {
				uint32_t sw = L[i];
				if (m->A == 2)
					switch_unit2(m, s, sw, t);
				else
					switch_unit(m, s, sw, t);
				if (m->occ[sw])
					L[k++] = sw;
				else
					m->inact[sw] = 0;
			}
			/* Stage s gains switches only from stage s - 1 and
			 * the sources, processed after it. */
			m->nact[s] = k;
		}
		sources_unit(m, t);
	}
}

/* --prefill: every FIFO full at time 0, destinations uniform. */
static void prefill(ncube *m)
{
	mp_rng r;
	uint64_t id = PREFILL_ID;
	mp_rng_seed(&r, mp_sim_opts(m->sim)->seed, UINT64_C(3) << 40);
	m->prefilled = 1;
	if (m->xbar)
		return;
	m->in_prefill = 1; /* its messages skip the job lists' sources */
	for (unsigned s = 0; s < m->D && !m->failed; s++)
		for (uint32_t qi = s * m->n; qi < (s + 1) * m->n; qi++) {
			/* The FIFO's line. The stages before it fixed s digits
			 * of it, which its packets' destinations share: in a
			 * butterfly the line's low s digits are the
			 * destination's; in omega, once shuffled, its digits
			 * 1..s are the destination's top s. */
			uint32_t w = qi / m->A - s * m->W, j = qi % m->A;
			uint32_t as = 1, line, fixed, mult;
			for (unsigned i = 0; i < s; i++)
				as *= m->A;
			if (m->omega) {
				line = w * m->A + j;
				fixed = line / m->A % as * (m->n / as);
				mult = 1;
			} else {
				line = w / as * as * m->A + j * as + w % as;
				fixed = line % as;
				mult = as;
			}
			for (unsigned b = 0; b < m->B; b++) {
				struct mp_msg msg;
				memset(&msg, 0, sizeof msg);
				msg.tag = MP_REC_MSG;
				msg.id = id++;
				msg.src = line; /* nominal: the FIFO's line */
				msg.dst = fixed + mult * (uint32_t)
					  mp_rng_below(&r, m->n / as);
				msg.packets = 1;
				msg.bytes = m->payload;
				msg.route = MP_ROUTE_DEFAULT;
				if (mp_sim_add(m->sim, &msg) < 0) {
					m->failed = 1;
					return;
				}
				uint32_t mi = mp_ni_head(m->ni, line);
				uint32_t seq = mp_sim_accepted(m->sim, line, mi, 0,
							       0);
				uint32_t p = pk_alloc(m);
				if (p == NIL)
					return;
				m->pks[p] = (struct pk){ .msg = mi, .seq = seq,
							 .src = line,
							 .hops = (uint16_t)(m->D - s) };
				push(m, qi, qi / m->A, s, p, msg.dst);
			}
		}
	m->in_prefill = 0;
}

/* ------------------------------------------------------------------ */
/* The model's operations                                              */

static void *ncube_create(mp_sim *sim, const mp_net *net,
			  const struct mp_cfg *cfg, mp_err *err)
{
	const char *fam = mp_net_family(net);
	const struct mp_sim_opts *o = mp_sim_opts(sim);
	int xbar = strcmp(fam, "crossbar") == 0;
	int omega = strcmp(fam, "omega") == 0;
	int graph = strcmp(fam, "grid") == 0 || strcmp(fam, "tree") == 0;
	if (!xbar && !omega && !graph && strcmp(fam, "butterfly") != 0) {
		mp_err_set(err, "--model ncube: needs a butterfly (--stages D, "
				"--topo butterfly:A,D), an omega (--topo "
				"omega:A,D), a crossbar (--topo crossbar:N), a "
				"grid (--topo grid:RxC) or a tree (--topo "
				"tree:A,D), not %s", mp_net_name(net));
		return NULL;
	}
	if (graph && o->prefill) {
		mp_err_set(err, "--prefill: the ncube model prefills butterflies "
				"and omega networks only, not %s",
			   mp_net_name(net));
		return NULL;
	}
	if (cfg->arb != MP_ARB_RANDOM && cfg->arb != MP_ARB_RR) {
		mp_err_set(err, "--arb: the ncube model arbitrates random or rr");
		return NULL;
	}
	if (cfg->fifo < 1) {
		mp_err_set(err, "--fifo: at least 1 packet per FIFO");
		return NULL;
	}
	if (!(cfg->sink_q > 0 && cfg->sink_q <= 1)) {
		mp_err_set(err, "--sink: perfect or prob:Q with 0 < Q <= 1");
		return NULL;
	}
	ncube *m = calloc(1, sizeof *m);
	if (!m) {
		mp_err_set(err, "out of memory");
		return NULL;
	}
	m->sim = sim;
	m->sh = mp_sim_shared(sim);
	m->q = mp_sim_evq(sim);
	m->n = mp_net_terminals(net);
	m->xbar = xbar;
	m->omega = omega;
	m->graph = graph;
	m->nsw = mp_net_switches(net);
	/* A grid's or tree's routers are one "stage" of nsw routers of
	 * A ports (the most any has). */
	m->A = xbar ? m->n : graph ? mp_net_ports(net, 0) : cfg->size;
	m->D = xbar || graph ? 1 : cfg->stages;
	m->W = xbar ? 1 : graph ? m->nsw : m->n / m->A;
	m->B = xbar ? 1 : cfg->fifo;
	m->rr = cfg->arb == MP_ARB_RR;
	m->sink_q = cfg->sink_q;
	m->payload = cfg->payload;
	m->pk_free = NIL;
	m->self_check = o->self_check;
	m->prefill = o->prefill;
	m->P = o->source_p;
	m->gen_n = o->source_n;
	uint64_t nsw = (uint64_t)m->D * m->W, nq = nsw * m->A;
	m->nq = (uint32_t)nq;
	if (nq * m->B > MAX_SLOTS) {
		mp_err_set(err, "--model ncube: %llu FIFOs of %u packets are "
				"more than %llu packets to hold",
			   (unsigned long long)nq, m->B,
			   (unsigned long long)MAX_SLOTS);
		free(m);
		return NULL;
	}
	m->fq = malloc(nq * sizeof *m->fq);
	m->slots = malloc(nq * m->B * sizeof *m->slots);
	m->next = malloc(nq * sizeof *m->next);
	m->in0 = malloc((size_t)m->n * sizeof *m->in0);
	m->pw = malloc((size_t)m->D * sizeof *m->pw);
	m->sh2 = malloc((size_t)m->D * sizeof *m->sh2);
	m->occ = calloc(nsw, sizeof *m->occ);
	m->inact = calloc(nsw, 1);
	m->act = calloc(m->D, sizeof *m->act);
	m->nact = calloc(m->D, sizeof *m->nact);
	m->srcs = malloc((size_t)m->n * sizeof *m->srcs);
	m->insrc = calloc(m->n, 1);
	m->srcref = calloc(m->n, sizeof *m->srcref);
	m->swrng = malloc(nsw * sizeof *m->swrng);
	m->sinkrng = malloc((size_t)m->n * sizeof *m->sinkrng);
	m->genrng = malloc((size_t)m->n * sizeof *m->genrng);
	m->rrp = malloc(nq * sizeof *m->rrp);
	int bad = !m->fq || !m->slots || !m->next || !m->in0 || !m->pw || !m->sh2 ||
		  !m->occ || !m->inact || !m->act || !m->nact || !m->srcs ||
		  !m->insrc || !m->srcref || !m->swrng || !m->sinkrng ||
		  !m->genrng || !m->rrp;
	for (unsigned s = 0; !bad && s < m->D; s++)
		bad = !(m->act[s] = malloc((size_t)m->W * sizeof *m->act[s]));
	if (bad) {
		mp_err_set(err, "out of memory");
		goto fail;
	}
	for (uint64_t i = 0; i < nq; i++) {
		m->fq[i] = (struct fifo){ 0, 0, UINT64_MAX, UINT64_MAX };
		/* round-robin: input 0 is served first */
		m->rrp[i] = (uint16_t)((xbar ? m->n : m->A) - 1);
	}
	/* The butterfly's stage s sets digit s of the line (mp_net.h);
	 * omega's sets the lowest digit of a line rotated left before each
	 * stage, so stage s takes the destination's digits from the most
	 * significant. Either way the packet reaches its destination. */
	for (unsigned s = 0, p = 1; s < m->D; s++, p *= m->A) {
		m->pw[omega ? m->D - 1 - s : s] = p;
		m->sh2[omega ? m->D - 1 - s : s] = s;
	}
	/* The wiring, from the network description: output j of a switch
	 * is port A + j of a butterfly switch, port j of the crossbar. */
	for (uint32_t sw = 0; sw < nsw; sw++) {
		mp_rng_seed(&m->swrng[sw], o->seed, sw);
		for (unsigned j = 0; j < (xbar ? m->n : m->A); j++) {
			uint32_t peer;
			unsigned pp;
			int kind = mp_net_out(net, sw, xbar || graph ? j : m->A + j,
					      &peer, &pp);
			if (kind == MP_PORT_LINK)
				m->next[sw * m->A + j] = peer * m->A + pp;
			else if (kind == MP_PORT_TERM)
				m->next[sw * m->A + j] = peer | (graph ? TERM_BIT : 0);
			else if (graph)
				m->next[sw * m->A + j] = NIL; /* never routed to */
			else {
				mp_err_set(err, "--model ncube: internal error: "
						"switch %u output %u leads nowhere",
					   sw, j);
				goto fail;
			}
		}
	}
	for (uint32_t t = 0; t < m->n; t++) {
		uint32_t sw;
		unsigned port;
		mp_net_term_in(net, t, &sw, &port);
		m->in0[t] = sw * m->A + port;
		mp_rng_seed(&m->sinkrng[t], o->seed, (UINT64_C(1) << 40) + t);
		mp_rng_seed(&m->genrng[t], o->source_seed, t);
	}
	if (graph) {
		/* The routing table: "dor" (mp_net.h: a grid's columns,
		 * then rows; a tree's one path). */
		mp_route_fn rf = mp_net_routing("dor");
		if ((uint64_t)m->nsw * m->n > MAX_SLOTS) {
			mp_err_set(err, "--model ncube: %s is too large for "
					"its routing table", mp_net_name(net));
			goto fail;
		}
		m->route = malloc((size_t)m->nsw * m->n);
		if (!m->route) {
			mp_err_set(err, "out of memory");
			goto fail;
		}
		for (uint32_t sw = 0; sw < m->nsw; sw++)
			for (uint32_t d = 0; d < m->n; d++) {
				unsigned port;
				if (rf(net, sw, d, &port, 1) != 1 || port >= m->A ||
				    m->next[sw * m->A + port] == NIL) {
					mp_err_set(err, "--model ncube: internal "
							"error: no route from router "
							"%u to %u", sw, d);
					goto fail;
				}
				m->route[(size_t)sw * m->n + d] = (uint8_t)port;
			}
	}
	if (o->source_local) {
		if (!m->gen_n) {
			mp_err_set(err, "local destinations: only for the model "
					"source (wlgen --arrival model:P)");
			goto fail;
		}
		if (mp_net_local_dests(net, o->source_local, &m->loc, &m->locn,
				       err) < 0)
			goto fail;
	}
	if (m->gen_n) {
		if (!(m->P > 0 && m->P <= 1)) {
			mp_err_set(err, "model source: P must be in (0, 1]");
			goto fail;
		}
		m->ring1 = mp_evq_ring(m->q, 1);
		if (m->ring1 < 0) {
			mp_err_set(err, "event queue: too many rings");
			goto fail;
		}
		/* Trials at units 0, 1, 2 ...: the first success. */
		for (uint32_t t = 0; t < m->n; t++) {
			uint64_t g = m->P >= 1 ? 1 :
				     mp_rng_geometric(&m->genrng[t], m->P);
			struct mp_ev ev = { g - 1, t, 0, EV_GEN };
			if (mp_evq_push(m->q, &ev) < 0) {
				mp_err_set(err, "out of memory");
				goto fail;
			}
			m->gen_pending++;
		}
	} else {
		m->P = 0;
	}
	return m;
fail:
	ncube_free(m);
	return NULL;
}

static uint32_t ncube_nodes(const void *mo)
{
	return ((const ncube *)mo)->n;
}

static uint64_t ncube_now(const void *mo)
{
	return ((const ncube *)mo)->t;
}

static int ncube_work(const ncube *m)
{
	return m->held || m->nsrcs;
}

static int ncube_busy(const void *mo)
{
	const ncube *m = mo;
	return ncube_work(m) || (!m->gen_done && m->gen_pending);
}

static int ncube_run_until(void *mo, uint64_t until)
{
	ncube *m = mo;
	struct mp_ev ev;
	if (m->failed)
		return MP_SIM_ERROR;
	m->ni = mp_sim_ni(m->sim);
	if (m->prefill && !m->prefilled) {
		prefill(m);
		if (m->failed)
			return MP_SIM_ERROR;
	}
	for (;;) {
		uint64_t t = m->t;
		if (t >= until)
			return MP_SIM_OK;
		while (mp_evq_pop_before(m->q, t + 1, &ev)) {
			m->events++;
			if (ev.type >= MP_SIM_EV_FIRST) {
				int st = mp_sim_event(m->sim, &ev);
				if (st != MP_SIM_OK)
					return st;
				if (m->sh->yield) {
					m->sh->yield = 0;
					return MP_SIM_OK;
				}
				continue;
			}
			m->gen_pending--;
			generate(m, ev.a, t);
			if (m->failed)
				return MP_SIM_ERROR;
		}
		if (ncube_work(m)) {
			unit(m, t);
			m->t = t + 1;
			if (m->failed)
				return MP_SIM_ERROR;
			if (m->self_check && ncube_self_check(m) < 0)
				return MP_SIM_ERROR;
			/* Closed-loop replay (mp_sim_yield): a delivery in this
			 * unit released messages; the caller adds them, from
			 * the next unit on. The unit is never cut short. */
			if (m->sh->yield) {
				m->sh->yield = 0;
				return MP_SIM_OK;
			}
			continue;
		}
		/* Idle: nothing changes until the next event. */
		if (until == UINT64_MAX && (m->gen_done || !m->gen_pending) &&
		    !mp_sim_work(m->sim))
			return MP_SIM_OK;
		uint64_t nx = mp_evq_peek(m->q);
		if (nx >= until) {
			if (until != UINT64_MAX)
				m->t = until;
			return MP_SIM_OK;
		}
		m->t = nx;
	}
}

static void ncube_job(void *mo, uint32_t node, uint64_t t)
{
	ncube *m = mo;
	if (t > m->t)
		m->t = t;
	if (!m->in_prefill)
		activate_src(m, node);
}

static int ncube_self_check(void *mo)
{
	ncube *m = mo;
	char what[160];
	uint64_t held = 0;
	uint32_t nsw = m->D * m->W;
	what[0] = '\0';
	for (uint32_t sw = 0; sw < nsw && !what[0]; sw++) {
		uint32_t occ = 0;
		for (unsigned j = 0; j < m->A; j++) {
			const struct fifo *f = &m->fq[sw * m->A + j];
			if (f->n > m->B || f->head >= m->B)
				snprintf(what, sizeof what, "switch %u input %u "
					 "holds %u of %u", sw, j, f->n, m->B);
			occ += f->n;
		}
		held += occ;
		if (occ != m->occ[sw])
			snprintf(what, sizeof what, "switch %u: %u packets "
				 "counted, %u held", sw, m->occ[sw], occ);
		if (occ && !m->inact[sw])
			snprintf(what, sizeof what, "switch %u holds packets "
				 "and is not active", sw);
	}
	if (!what[0] && held != m->held)
		snprintf(what, sizeof what, "%llu packets counted, %llu held",
			 (unsigned long long)m->held, (unsigned long long)held);
	if (!what[0] && mp_sim_in_flight(m->sim) != held)
		snprintf(what, sizeof what, "the driver has %llu packets in "
			 "flight, the FIFOs %llu",
			 (unsigned long long)mp_sim_in_flight(m->sim),
			 (unsigned long long)held);
	for (uint32_t t = 0; t < m->n && !what[0]; t++)
		if ((mp_ni_head(m->ni, t) != MP_NI_NONE) != m->insrc[t])
			snprintf(what, sizeof what, "source %u: active %d, job "
				 "list %s", t, m->insrc[t],
				 mp_ni_head(m->ni, t) != MP_NI_NONE ? "not empty"
								    : "empty");
	if (!what[0])
		return 0;
	m->failed = 1;
	return mp_sim_fail(m->sim, "self-check at unit %llu: %s",
			   (unsigned long long)m->t, what);
}

static void ncube_util(const void *mo, int scope, uint64_t t,
		       struct mp_util *u)
{
	const ncube *m = mo;
	(void)t;
	/* Every transfer and every refused offer takes one unit. */
	if (scope == MP_UTIL_PE) {
		u->nports += m->n;
		u->transfers += m->xfers_in;
		u->refusals += m->ref_in;
		u->refused += m->ref_in;
		u->busy += m->xfers_in + m->ref_in;
	} else {
		u->nports += m->nq;
		u->transfers += m->xfers_int;
		u->refusals += m->ref_int;
		u->refused += m->ref_int;
		u->busy += m->xfers_int + m->ref_int;
	}
}

static int ncube_port_util(const void *mo, uint32_t k, uint64_t t,
			   struct mp_util *u)
{
	(void)mo;
	(void)k;
	(void)t;
	(void)u;
	return 0; /* aggregates only */
}

static void ncube_counts(const void *mo, uint64_t *refusals, uint64_t *events)
{
	const ncube *m = mo;
	*refusals = m->ref_in + m->ref_int;
	*events = m->events + m->units;
}

static size_t ncube_report(const void *mo, size_t max, char *buf, size_t cap)
{
	const ncube *m = mo;
	size_t len = 0, lines = 0;
	for (uint32_t qi = 0; qi < m->nq && lines < max; qi++) {
		const struct fifo *f = &m->fq[qi];
		for (uint32_t i = 0; i < f->n && lines < max; i++, lines++) {
			uint32_t k = (f->head + i) % m->B;
			const struct slot *sl = &m->slots[(size_t)qi * m->B + k];
			const struct mp_sim_msg *g = &m->sh->msgs[m->pks[sl->pk].msg];
			mp_sim_report_line(buf, cap, &len,
					   "  message %llu packet %u (%u -> %u): "
					   "stage %u switch %u input %u, place "
					   "%u\n", (unsigned long long)g->id,
					   m->pks[sl->pk].seq, g->src, sl->dst,
					   m->graph ? 0 : qi / m->n, qi / m->A,
					   qi % m->A, i);
		}
	}
	return len;
}

static uint64_t ncube_zero_load(const struct mp_cfg *c, unsigned hops)
{
	/* A packet enters its first FIFO in its arrival unit and leaves
	 * each stage one unit later; the crossbar has no FIFOs. The
	 * delivery time is the end of the unit the sink accepted it. */
	return strcmp(c->family, "crossbar") == 0 ? hops : (uint64_t)hops + 1;
}

/* Its own options' defaults (the ncube preset's but the shared --arb,
 * which stays the flit model's rr until a preset or option sets it). */
static void ncube_defaults(struct mp_cfg *c)
{
	c->fifo = 2;
	c->sink_q = 1;
}

static void ncube_free(void *mo)
{
	ncube *m = mo;
	if (!m)
		return;
	for (unsigned s = 0; m->act && s < m->D; s++)
		free(m->act[s]);
	free(m->act);
	free(m->nact);
	free(m->fq);
	free(m->slots);
	free(m->next);
	free(m->in0);
	free(m->pw);
	free(m->sh2);
	free(m->occ);
	free(m->inact);
	free(m->srcs);
	free(m->insrc);
	free(m->srcref);
	free(m->swrng);
	free(m->sinkrng);
	free(m->genrng);
	free(m->rrp);
	free(m->route);
	free(m->loc);
	free(m->locn);
	free(m->pks);
	free(m);
}

#define CFG(field) offsetof(struct mp_cfg, field)

static const struct mp_opt ncube_opts[] = {
	{ "arb", MP_OPT_SPECIAL, CFG(arb), 0, 0, NULL, "random|rr",
	  "conflicts: a fair coin, or round-robin", 0 },
	{ "fifo", MP_OPT_UINT, CFG(fifo), 1, 4096, NULL, "B",
	  "packets per router input FIFO", 0 },
	{ "sink", MP_OPT_SPECIAL, CFG(sink_q), 0, 0, NULL, "perfect|prob:Q",
	  "sinks accept every unit, or with probability Q", 0 },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL, 0 }
};

const struct mp_model_ops mp_model_ncube = {
	.name = "ncube",
	.desc = "synchronous multistage networks (butterfly, crossbar, grid, "
		"tree) with input FIFOs, Boughton's model",
	.opts = ncube_opts,
	.caps = MP_MODEL_SOURCES | MP_MODEL_PREFILL,
	.defaults = ncube_defaults,
	.create = ncube_create,
	.nodes = ncube_nodes,
	.now = ncube_now,
	.run_until = ncube_run_until,
	.job = ncube_job,
	.busy = ncube_busy,
	.self_check = ncube_self_check,
	.util = ncube_util,
	.port_util = ncube_port_util,
	.counts = ncube_counts,
	.report = ncube_report,
	.zero_load = ncube_zero_load,
	.free = ncube_free,
};
