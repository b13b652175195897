/*
 * The flit model (netrun --model flit): a cycle-level model of routers
 * with per-virtual-channel input buffers, credit-based flow control, a
 * crossbar and link arbitration, on a torus, a 2-D mesh or a
 * unidirectional k-ary n-cube with dimension-order routing (mp_net's
 * "dor"), or an omega network with digit routing (an indirect network:
 * a terminal injects at a first-stage input, ejects at a last-stage
 * output). Routers have as many input VCs as their ports and buffer
 * organization need, in bitmaps of W words. Wormhole, virtual
 * cut-through and packet switching per traffic class, each class its
 * own virtual network on the shared links and terminal ports. The
 * timing rules and the zero-load formula are in man/netrun.1.
 *
 * Time advances one cycle at a time, but only routers with something
 * that can move are visited: a router is visited in a cycle when a flit
 * becomes ready in it, a credit returns to it, its terminal has a new
 * message, or it moved a flit in the cycle before. With nothing to
 * visit, time jumps to the next such cycle or to the driver's next
 * event, so idle routers and idle stretches cost nothing.
 */
#include "mp_model.h"
#include "mp_sim.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_evq.h"

#define NIL UINT32_MAX
#define NOPORT 0xffu
#define MAXVN 2 /* virtual networks: one per class */

/*
 * Input buffer organizations, chosen by name (--buf-org, --buffer).
 * vc-fifo: each input virtual channel its own FIFO of vc-buf flits.
 * The others are those of SPEC 3.5 (the study organizations): an
 * input port's buf-flits are split evenly among its virtual-channel
 * classes (the dateline's), and within a class
 *   fifo  one queue;
 *   safc  a queue per output port, the class's flits split evenly
 *         among them, each queue its own crossbar input;
 *   samq  the same queues, one crossbar input per input port;
 *   damq  a queue per output port sharing the class's flits, space
 *         returned upstream only when a packet's tail leaves;
 *   oq    the ideal output-queued switch: queues per output sharing
 *         the flits, a crossbar input each, and every output serves
 *         its packets in the order they arrived at the switch, so a
 *         packet is in its output's queue from the cycle it arrives.
 * Every study organization moves a packet through an output port
 * whole (virtual cut-through: the port is held from header to tail,
 * and taken only with room for the whole packet downstream).
 */
struct buf_org {
	const char *name;
	uint8_t per_out;  /* a queue per output port at each input */
	uint8_t shared;   /* the queues of a class share its flits */
	uint8_t xbar;     /* a crossbar input per queue */
	uint8_t arrival;  /* outputs serve packets in arrival order */
	uint8_t whole;    /* room returns when a packet's tail leaves */
};
static const struct buf_org buf_orgs[] = {
	{ "vc-fifo", 0, 0, 0, 0, 0 },
	{ "fifo", 0, 0, 0, 0, 0 },
	{ "safc", 1, 0, 1, 0, 0 },
	{ "samq", 1, 0, 0, 0, 0 },
	{ "damq", 1, 1, 0, 0, 1 },
	{ "oq", 1, 1, 1, 1, 0 },
};
static const char *const buf_org_names[] = { "vc-fifo", "fifo", "safc",
					     "samq", "damq", "oq", NULL };
static const char *const off_on[] = { "off", "on", NULL };

struct flit {
	uint64_t ready; /* first cycle it may leave this router */
	uint32_t pkt;
	uint32_t idx;   /* flit number in its packet, 0 the header */
};

struct pkt {
	uint32_t msg, seq, dst;
	uint32_t left;     /* flits not yet ejected */
	uint32_t next_free;
	uint64_t t_inject;
	uint16_t hops;
	uint8_t vn, dim, crossed, live;
};

/* An input virtual channel (a queue of an input port): a ring of cap
 * flits, in the flit slab, or its own and growing when unbounded. */
struct ivc {
	struct flit *ring;
	uint32_t base, cap, head, n;
	uint32_t pool;    /* the buffer its room is counted in (an ivc) */
	uint32_t ovc;     /* output VC of the packet at the head, or NIL */
	uint32_t up;      /* the upstream output VC it returns credits to */
	uint8_t oport;    /* output port of the packet at the head */
	uint8_t vn, port, sw_ps;
	uint8_t q;        /* per-output queue: its output port, else NOPORT */
	uint8_t nport;    /* study organizations: the head packet's output
			   * port at the next router, once known */
	uint8_t grow;     /* unbounded: ring malloc'd, grows */
	uint32_t gone;    /* whole: flits of the head packet gone, not freed */
};

/* An output virtual channel (a link's, or the terminal's). */
struct ovc {
	uint32_t pool;    /* the downstream buffer's credits (links only) */
	uint32_t owner;   /* input VC (router-local index) holding it, NIL */
	uint32_t down;    /* global input VC it feeds, NIL: ejection */
	uint32_t router;  /* the router it belongs to */
};

struct oport {
	uint8_t kind;     /* MP_PORT_* */
	uint8_t dim, wrap;
	uint32_t peer;
	uint32_t vc0;     /* first output VC (global index) */
	uint32_t rr;      /* round-robin pointer (router-local VC bit) */
	uint32_t be_quota; /* credit:A arbitration: best-effort flits left */
	uint32_t lock;    /* study organizations: input VC sending a packet */
	uint64_t flits, pkts;
};

struct router {
	uint64_t mask;    /* non-empty input VCs when f->W is 1 (else rmask) */
	uint64_t mark;    /* cycle it is listed for, +1 */
	uint64_t inj_ports; /* its ports a terminal injects at */
	uint32_t ivc0;    /* first input VC (global) */
	uint64_t inj_flits, ej_flits, inj_pkts, ej_pkts;
};

struct tq { /* a FIFO of (time, index) in time order */
	struct tq_e {
		uint64_t t;
		uint32_t x;
	} *e;
	uint32_t head, n, mask;
};

struct vnet {
	int sw;            /* enum mp_switching */
	unsigned vcs, buf; /* per link (vcs: classes of nq queues each) */
	unsigned nq;       /* queues per class: 1, or one per output port */
	unsigned base;     /* first VC of the network at each port */
	unsigned dateline; /* split the VCs by the dateline rule */
	unsigned bubble;   /* a packet entering a ring needs room for two */
	int cls;           /* traffic class it carries, or -1: every class */
};

typedef struct flitm {
	mp_sim *sim;
	const mp_net *net;
	struct mp_sim_shared *sh;
	mp_ni *ni;
	mp_evq *q;
	struct mp_cfg cfg;
	mp_route_fn route;
	uint32_t nr, nports, nvc, nivc, novc;  /* nvc: VCs per port */
	uint32_t W;         /* words of a router's input VC bitmaps */
	uint32_t q0;        /* the first output port (per-output queues) */
	int direct;         /* terminal x at the last port of router x */
	int fast;           /* direct and W = 1: cycle1 */
	unsigned L, R, D, C;
	struct router *r;
	struct oport *op;   /* nr * nports */
	struct ivc *iv;     /* nr * nports * nvc */
	struct ovc *ov;     /* nr * nports * nvc */
	struct flit *slab;
	int32_t *cred;      /* by pool: free flits (credits upstream) */
	uint32_t *pcap;     /* by pool: its flits, 0 unbounded */
	const struct buf_org *org;
	int study;          /* a study organization (not vc-fifo) */
	struct pkt *pkts;
	uint32_t npkts, pkt_free;
	struct vnet vn[MAXVN];
	unsigned nvn;
	int8_t vn_of_cls[2];
	/* Bitmaps of W words over a router's input VCs (router-local
	 * index lv = port * nvc + VC, as many as its ports need). */
	uint64_t *rmask;    /* nr * W: each router's non-empty input VCs
			     * (W > 1; W = 1: router.mask) */
	uint64_t *pmask;    /* nports * W: the VCs of each port */
	uint64_t *vnmask;   /* MAXVN * W: the VCs of each network */
	uint64_t *gtmask;   /* W: the VCs of the gt network */
	uint64_t *req;      /* nports * W: requests per output port */
	uint64_t *scr;      /* 4 * W: scratch of the arbitration */
	uint32_t *term_sw;  /* by terminal: the router it injects at */
	uint32_t *port_term; /* nr * nports: terminal injecting there, NIL */
	unsigned lanes;     /* job-list lanes: one per network, one more for
			     * classes without one (when classes are named) */
	struct tq w_next, w_job, w_inj, w_arr, credits;
	struct tq w_chan;   /* study organizations: injection channels free */
	uint64_t *chan_free; /* nr * nports: first cycle a terminal's
			      * injection channel is free (study) */
	uint32_t *list;     /* routers to visit this cycle */
	uint64_t now, cycles, visits;
	uint64_t next_cycle; /* the first cycle not yet simulated */
	int failed, watch;
} flitm;

static int fail(flitm *f, const char *fmt, ...) MP_PRINTF(2, 3);
static int fail(flitm *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mp_sim_vfail(f->sim, fmt, ap);
	va_end(ap);
	f->failed = f->watch = 1;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Time queues                                                         */

static int tq_push(flitm *f, struct tq *q, uint64_t t, uint32_t x)
{
	if (q->n > q->mask) {
		uint32_t cap = (q->mask + 1) * 2;
		struct tq_e *e = malloc((size_t)cap * sizeof *e);
		if (!e)
			return fail(f, "out of memory (time queue)");
		for (uint32_t i = 0; i < q->n; i++)
			e[i] = q->e[(q->head + i) & q->mask];
		free(q->e);
		q->e = e;
		q->head = 0;
		q->mask = cap - 1;
	}
	struct tq_e *s = &q->e[(q->head + q->n) & q->mask];
	s->t = t;
	s->x = x;
	q->n++;
	return 0;
}

static inline uint64_t tq_peek(const struct tq *q)
{
	return q->n ? q->e[q->head].t : UINT64_MAX;
}

static inline uint32_t tq_pop(struct tq *q)
{
	uint32_t x = q->e[q->head].x;
	q->head = (q->head + 1) & q->mask;
	q->n--;
	return x;
}

static int tq_init(struct tq *q)
{
	q->mask = 255;
	q->e = malloc(256 * sizeof *q->e);
	return q->e ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Packets                                                             */

static uint32_t pkt_alloc(flitm *f)
{
	if (f->pkt_free == NIL) {
		uint32_t cap = f->npkts ? f->npkts * 2 : 1024;
		struct pkt *p = realloc(f->pkts, (size_t)cap * sizeof *p);
		if (!p) {
			fail(f, "out of memory (packets)");
			return NIL;
		}
		f->pkts = p;
		for (uint32_t i = cap; i-- > f->npkts;) {
			p[i].live = 0;
			p[i].next_free = f->pkt_free;
			f->pkt_free = i;
		}
		f->npkts = cap;
	}
	uint32_t i = f->pkt_free;
	f->pkt_free = f->pkts[i].next_free;
	return i;
}

static void pkt_release(flitm *f, uint32_t i)
{
	f->pkts[i].live = 0;
	f->pkts[i].next_free = f->pkt_free;
	f->pkt_free = i;
}

/* ------------------------------------------------------------------ */
/* The cycle                                                           */

/* List router x for the current cycle t (once). */
static inline void visit(flitm *f, uint32_t x, uint64_t t, uint32_t *n)
{
	if (f->r[x].mark != t + 1) {
		f->r[x].mark = t + 1;
		f->list[(*n)++] = x;
	}
}

static inline struct flit *fifo_at(const struct ivc *c, uint32_t k)
{
	uint32_t i = c->head + k;
	if (i >= c->cap)
		i -= c->cap;
	return &c->ring[i];
}

/* Double the ring of an unbounded queue. */
static int ring_grow(flitm *f, struct ivc *c)
{
	uint32_t cap = c->cap * 2;
	struct flit *r = malloc((size_t)cap * sizeof *r);
	if (!r)
		return fail(f, "out of memory (unbounded buffer)");
	for (uint32_t i = 0; i < c->n; i++)
		r[i] = *fifo_at(c, i);
	free(c->ring);
	c->ring = r;
	c->head = 0;
	c->cap = cap;
	return 0;
}

/* Bitmaps of input VCs (W words; W a constant 1 in the common case,
 * where i < 64). */
static inline void bm_set(uint64_t *m, uint32_t i)
{
	m[i >> 6] |= 1ull << (i & 63);
}

static inline void bm_setw(uint64_t *m, uint32_t i, const uint32_t W)
{
	if (W == 1)
		m[0] |= 1ull << (i & 63);
	else
		m[i >> 6] |= 1ull << (i & 63);
}

static inline void bm_clr(uint64_t *m, uint32_t i, const uint32_t W)
{
	if (W == 1)
		m[0] &= ~(1ull << (i & 63));
	else
		m[i >> 6] &= ~(1ull << (i & 63));
}

/* Router x's bitmap of non-empty input VCs (W: f->W). */
static inline uint64_t *rmask(flitm *f, uint32_t x, const uint32_t W)
{
	return W == 1 ? &f->r[x].mask : &f->rmask[(size_t)x * W];
}

/* Take new packets from the job lists of the terminals injecting at
 * router x (its own in a direct network, those of its input ports at
 * an omega's first stage) into free injection VCs of their network
 * (study organizations: into the injection input buffer, when the
 * queue of the packet's output has room and the channel is free).
 * Each network has its own lane of the job list (mp_ni_set_lanes)
 * when classes are named, so a class never waits behind another whose
 * injection VCs are busy. */
static inline __attribute__((always_inline)) int
inject_lane(flitm *f, uint32_t x, uint32_t tp, uint32_t term, unsigned lane,
	    uint64_t t);
static inline __attribute__((always_inline)) void
inject(flitm *f, uint32_t x, uint64_t t, const int direct)
{
	if (direct) { /* terminal x at the last port */
		for (unsigned l = 0; l < f->lanes; l++)
			if (inject_lane(f, x, f->nports - 1, x, l, t) < 0)
				return;
		return;
	}
	for (uint64_t m = f->r[x].inj_ports; m; m &= m - 1) {
		uint32_t p = (uint32_t)__builtin_ctzll(m);
		uint32_t term = f->port_term[x * f->nports + p];
		for (unsigned l = 0; l < f->lanes; l++)
			if (inject_lane(f, x, p, term, l, t) < 0)
				return;
	}
}

/* Terminal term's packets into the injection VCs of port tp of
 * router x. */
static inline __attribute__((always_inline)) int
inject_lane(flitm *f, uint32_t x, uint32_t tp, uint32_t term, unsigned lane,
	    uint64_t t)
{
	struct router *r = &f->r[x];
	for (;;) {
		uint32_t mi = mp_ni_head_lane(f->ni, term, lane);
		if (mi == MP_NI_NONE)
			return 0;
		const struct mp_sim_msg *m = mp_sim_msg(f->sh, mi);
		int v = m->cls < 2 ? f->vn_of_cls[m->cls] : -1;
		if (v < 0) {
			fail(f, "message %llu: class %u (%s) has no --class "
				"setting", (unsigned long long)m->id, m->cls,
			     m->cls < 2 ? mp_class_names[m->cls] : "unknown");
			return -1;
		}
		const struct vnet *vn = &f->vn[v];
		uint32_t lv = tp * f->nvc + vn->base, k, q = 0;
		uint64_t *cf = f->chan_free + (size_t)x * f->nports + tp;
		if (f->study && *cf > t)
			return 0; /* the channel still carries a packet */
		if (vn->nq > 1) { /* the queue of its output port */
			unsigned port;
			if (f->route(f->net, x, m->dst, &port, 1) != 1 ||
			    port - f->q0 >= vn->nq) {
				fail(f, "no route from switch %u to terminal %u", x,
				     m->dst);
				return -1;
			}
			q = port - f->q0;
		}
		/* The first VC of queue q that is empty (study: the first
		 * class whose queue has room). */
		for (k = q; k < vn->vcs * vn->nq; k += vn->nq)
			if (f->study ? f->cred[f->iv[r->ivc0 + lv + k].pool] >=
					       (int32_t)f->L
				     : f->iv[r->ivc0 + lv + k].n == 0)
				break;
		if (k >= vn->vcs * vn->nq)
			return 0;
		uint32_t pi = pkt_alloc(f);
		if (pi == NIL)
			return -1;
		struct pkt *p = &f->pkts[pi];
		p->msg = mi;
		p->dst = m->dst;
		p->left = f->L;
		p->t_inject = t;
		p->hops = 0;
		p->vn = (uint8_t)v;
		p->dim = NOPORT;
		p->crossed = 0;
		p->live = 1;
		p->seq = mp_sim_accepted(f->sim, term, mi, t, t);
		struct ivc *c = &f->iv[r->ivc0 + lv + k];
		if (f->study) {
			/* Into the input buffer behind what it holds; the
			 * channel is busy for the packet's flit times. */
			while (c->n + f->L > c->cap)
				if (!c->grow || ring_grow(f, c) < 0) {
					if (!f->failed)
						fail(f, "router %u: a packet into a "
							"full injection buffer", x);
					return -1;
				}
			for (uint32_t j = 0; j < f->L; j++) {
				struct flit *fl = fifo_at(c, c->n + j);
				fl->ready = t + f->R;
				fl->pkt = pi;
				fl->idx = j;
			}
			c->n += f->L;
			f->cred[c->pool] -= (int32_t)f->L;
			*cf = t + (f->L + f->cfg.inject_flits - 1) /
				  f->cfg.inject_flits;
			if (tq_push(f, &f->w_chan, *cf, x) < 0)
				return -1;
		} else {
			for (uint32_t j = 0; j < f->L; j++) {
				struct flit *fl = &c->ring[j];
				fl->ready = t + f->R;
				fl->pkt = pi;
				fl->idx = j;
			}
			c->head = 0;
			c->n = f->L;
		}
		bm_set(rmask(f, x, f->W), lv + k);
		r->inj_pkts++;
		if (f->R && tq_push(f, &f->w_inj, t + f->R, x) < 0)
			return -1;
	}
}

/* The output port of the packet p at the head of input VC c of router
 * x, from the routing function, once per packet; -1 (and the model
 * failed) when there is none. */
static int route_head(flitm *f, uint32_t x, struct ivc *c,
		      const struct pkt *p)
{
	unsigned port;
	if (f->route(f->net, x, p->dst, &port, 1) != 1 ||
	    port >= f->nports ||
	    f->op[x * f->nports + port].kind == MP_PORT_NONE) {
		fail(f, "no route from switch %u to terminal %u", x, p->dst);
		return -1;
	}
	c->oport = (uint8_t)port;
	return 0;
}

/* Try to give the packet at the head of input VC lv of router x an
 * output VC; returns it, or NIL. */
static uint32_t allocate(flitm *f, uint32_t x, uint32_t lv, struct ivc *c,
			 const struct flit *h, uint64_t t)
{
	struct pkt *p = &f->pkts[h->pkt];
	const struct vnet *vn = &f->vn[c->vn];
	if (c->oport == NOPORT && route_head(f, x, c, p) < 0)
		return NIL;
	if (vn->sw == MP_SW_PS) {
		/* Store and forward: the whole packet is here and ready. */
		uint32_t tail = f->L - 1 - h->idx;
		if (c->n <= tail || fifo_at(c, tail)->ready > t)
			return NIL;
	}
	const struct oport *o = &f->op[x * f->nports + c->oport];
	unsigned lo = 0, hi = vn->vcs;
	if (o->kind == MP_PORT_LINK && vn->dateline) {
		unsigned cls = o->dim == p->dim ? p->crossed : 0, half = vn->vcs / 2;
		lo = cls ? half : 0;
		hi = cls ? vn->vcs : half;
	}
	uint32_t first = o->vc0 + vn->base;
	/* Whole packets: room for this one, and under the bubble rule for
	 * one more when it enters a ring (from its source, or turning). */
	int32_t need = (int32_t)f->L;
	if (vn->bubble && o->dim != p->dim)
		need *= 2;
	for (unsigned v = lo; v < hi; v++) {
		struct ovc *ov = &f->ov[first + v];
		if (ov->owner != NIL)
			continue;
		if (o->kind == MP_PORT_LINK && vn->sw != MP_SW_WORMHOLE &&
		    f->cred[ov->pool] < need)
			continue;
		ov->owner = lv;
		c->ovc = first + v;
		return c->ovc;
	}
	return NIL;
}

/*
 * Study organizations: the output VC the packet at the head of input
 * VC c of router x (its header ready) would take: its dateline class,
 * and with per-output queues the queue of its output port at the next
 * router. NIL while another packet holds the output port or the buffer
 * downstream has no room for the whole packet.
 */
static uint32_t study_target(flitm *f, uint32_t x, struct ivc *c,
			     const struct flit *h)
{
	struct pkt *p = &f->pkts[h->pkt];
	const struct vnet *vn = &f->vn[c->vn];
	/* A per-output queue holds only packets routed to its port. */
	if (c->oport == NOPORT) {
		if (c->q != NOPORT)
			c->oport = c->q;
		else if (route_head(f, x, c, p) < 0)
			return NIL;
	}
	const struct oport *o = &f->op[x * f->nports + c->oport];
	if (o->lock != NIL)
		return NIL;
	if (vn->sw == MP_SW_PS) {
		uint32_t tail = f->L - 1 - h->idx;
		if (c->n <= tail || fifo_at(c, tail)->ready > f->now)
			return NIL;
	}
	unsigned cls = 0, q = 0;
	if (o->kind == MP_PORT_LINK && vn->dateline)
		cls = o->dim == p->dim ? p->crossed : 0;
	if (o->kind == MP_PORT_LINK && vn->nq > 1) {
		unsigned port = c->nport;
		if (port == NOPORT &&
		    (f->route(f->net, o->peer, p->dst, &port, 1) != 1 ||
		     port - f->q0 >= vn->nq)) {
			fail(f, "no route from switch %u to terminal %u", o->peer,
			     p->dst);
			return NIL;
		}
		c->nport = (uint8_t)port;
		q = port - f->q0;
	}
	uint32_t ovc = o->vc0 + vn->base + cls * vn->nq + q;
	if (o->kind == MP_PORT_LINK) {
		int32_t need = (int32_t)f->L;
		if (vn->bubble && o->dim != p->dim)
			need *= 2;
		if (f->cred[f->ov[ovc].pool] < need)
			return NIL;
	}
	return ovc;
}

/* Move the head flit of input VC lv of router x through its output VC
 * at cycle t (W: f->W, a constant where it is 1). */
static inline __attribute__((always_inline)) void
move(flitm *f, uint32_t x, uint32_t lv, uint64_t t, const uint32_t W)
{
	struct router *r = &f->r[x];
	struct ivc *c = &f->iv[r->ivc0 + lv];
	struct flit fl = *fifo_at(c, 0);
	struct ovc *ov = &f->ov[c->ovc];
	struct oport *o = &f->op[x * f->nports + c->oport];
	struct pkt *p = &f->pkts[fl.pkt];

	if (++c->head == c->cap)
		c->head = 0;
	if (--c->n == 0)
		bm_clr(rmask(f, x, W), lv, W);
	if (c->up == NIL) {
		r->inj_flits++;
		/* Study organizations: the injection buffer's room, at once
		 * (per flit, or DAMQ: the packet's when its tail leaves). */
		if (!f->study)
			;
		else if (!f->org->whole)
			f->cred[c->pool]++;
		else if (fl.idx < f->L - 1)
			c->gone++;
		else {
			f->cred[c->pool] += (int32_t)f->L;
			c->gone = 0;
		}
	} else if (!f->org->whole)
		tq_push(f, &f->credits, t + f->C, c->up);
	else if (fl.idx < f->L - 1)
		c->gone++;
	else { /* DAMQ: the packet's room at once, when its tail leaves */
		for (uint32_t j = 0; j < f->L; j++)
			tq_push(f, &f->credits, t + f->C, c->up);
		c->gone = 0;
	}
	f->sh->last_progress = t;
	o->flits++;
	if (ov->down != NIL) {
		struct ivc *d = &f->iv[ov->down];
		if (d->n == d->cap && (!d->grow || ring_grow(f, d) < 0)) {
			if (!f->failed)
				fail(f, "router %u: a flit into a full buffer", o->peer);
			return;
		}
		struct flit *s = fifo_at(d, d->n);
		s->ready = t + f->D + f->R;
		s->pkt = fl.pkt;
		s->idx = fl.idx;
		d->n++;
		bm_setw(rmask(f, o->peer, W), ov->down - f->r[o->peer].ivc0, W);
		f->cred[ov->pool]--;
		tq_push(f, &f->w_arr, t + f->D + f->R, o->peer);
		if (fl.idx == 0) {
			o->pkts++;
			p->hops++;
			mp_sim_moved(f->sh, t);
			if (o->dim != p->dim) {
				p->dim = o->dim;
				p->crossed = 0;
			}
			if (o->wrap)
				p->crossed = 1;
		}
	} else {
		r->ej_flits++;
		p->left -= 1;
		if (fl.idx == 0)
			o->pkts++;
	}
	if (fl.idx == f->L - 1) {
		if (f->study)
			o->lock = NIL;
		ov->owner = NIL;
		c->ovc = NIL;
		c->oport = c->nport = NOPORT;
		if (ov->down == NIL) {
			struct mp_sim_pkt d = {
				.msg = p->msg,
				.seq = p->seq,
				.t_inject = p->t_inject,
				.hops = p->hops,
			};
			r->ej_pkts++;
			pkt_release(f, fl.pkt);
			if (mp_sim_delivered(f->sim, &d, t) < 0)
				f->failed = f->watch = 1;
		}
	}
}

/* Pick one of the requests in q (W words) by round-robin from *rr. */
static inline uint32_t rr_pick(const uint64_t *q, const uint32_t W,
			       uint32_t *rr)
{
	if (W == 1) {
		uint64_t hi = q[0] & (~0ull << (*rr & 63));
		uint32_t w = (uint32_t)__builtin_ctzll(hi ? hi : q[0]);
		*rr = w + 1;
		return w;
	}
	uint32_t s = *rr < W * 64 ? *rr : 0, w0 = s >> 6, b = 0;
	uint64_t m = q[w0] & (~0ull << (s & 63));
	if (m) {
		b = w0 * 64 + (uint32_t)__builtin_ctzll(m);
	} else {
		for (uint32_t k = 1; k <= W; k++) {
			uint32_t wd = w0 + k < W ? w0 + k : w0 + k - W;
			if (q[wd]) {
				b = wd * 64 + (uint32_t)__builtin_ctzll(q[wd]);
				break;
			}
		}
	}
	*rr = b + 1;
	return b;
}

/* Of the requests in q (W words), the one whose head flit was ready
 * first (arrived first), ties broken round-robin from *rr. */
static uint32_t oldest_pick(flitm *f, const struct router *r,
			    const uint64_t *q, uint32_t W, uint32_t *rr)
{
	uint32_t s = *rr < W * 64 ? *rr : 0, w0 = s >> 6, best = 0;
	uint64_t bt = UINT64_MAX;
	for (uint32_t k = 0; k <= W; k++) {
		uint32_t wd = w0 + k < W ? w0 + k : w0 + k - W;
		uint64_t m = q[wd];
		if (k == 0)
			m &= ~0ull << (s & 63);
		else if (k == W)
			m &= ~(~0ull << (s & 63));
		for (; m; m &= m - 1) {
			uint32_t w = wd * 64 + (uint32_t)__builtin_ctzll(m);
			uint64_t t = fifo_at(&f->iv[r->ivc0 + w], 0)->ready;
			if (t < bt) {
				bt = t;
				best = w;
			}
		}
	}
	*rr = best + 1;
	return best;
}

/* One cycle of router x: injection, VC allocation, switch allocation
 * and arbitration of each output port, the moves. Returns whether a
 * flit moved. Bitmaps of W words: cycle1 has W = 1 a constant, for
 * routers of at most 64 input VCs, cycle_n any W. */
static inline __attribute__((always_inline)) int
cycle_w(flitm *f, uint32_t x, uint64_t t, const uint32_t W, const int direct)
{
	struct router *r = &f->r[x];
	/* W == 1: bitmaps on the stack, each its own (none escapes but q,
	 * so the others stay in registers) */
	uint64_t req1[64], gone1[1], busy1[1], hold1[1], q1[1];
	uint64_t *req = W == 1 ? req1 : f->req;
	uint64_t *gone = W == 1 ? gone1 : f->scr; /* input VCs of ports
						   * that used their turn */
	uint64_t *busy_in = W == 1 ? busy1 : f->scr + W;
	uint64_t *holders = W == 1 ? hold1 : f->scr + 2 * W;
	uint64_t *q = W == 1 ? q1 : f->scr + 3 * W;
	const uint64_t *rm = rmask(f, x, W);
	uint64_t ports = 0; /* output ports with requests */
	inject(f, x, t, direct);
	for (uint32_t wd = 0; wd < W; wd++)
		for (uint64_t m = rm[wd]; m; m &= m - 1) {
			uint32_t lv = wd * 64 + (uint32_t)__builtin_ctzll(m);
			struct ivc *c = &f->iv[r->ivc0 + lv];
			const struct flit *h = fifo_at(c, 0);
			if (h->ready > t)
				continue;
			uint32_t o = c->ovc;
			if (o == NIL) {
				o = f->study ? study_target(f, x, c, h) :
				    allocate(f, x, lv, c, h, t);
				if (o == NIL)
					continue;
			}
			if (f->ov[o].down != NIL && f->cred[f->ov[o].pool] <= 0)
				continue;
			uint64_t *rq = &req[c->oport * W];
			if (!(ports >> c->oport & 1)) {
				ports |= 1ull << c->oport;
				for (uint32_t k = 0; k < W; k++)
					rq[k] = 0;
			}
			bm_setw(rq, lv, W);
		}
	if (!ports)
		return 0;
	/* Output ports in turn, from a place that rotates with time; an
	 * input port sends one flit per cycle, a terminal's injection
	 * port inject-flits, its ejection port takes eject-flits. */
	uint32_t np = f->nports;
	uint32_t used[64] = { 0 }, used_inj[MAXVN] = { 0 };
	uint32_t start = (uint32_t)(t % np);
	for (uint32_t k = 0; k < W; k++)
		gone[k] = busy_in[k] = holders[k] = 0;
	/* Study organizations: an input port with one crossbar input that
	 * is sending a packet starts no other before its tail has gone. */
	for (uint32_t po = 0; f->study && po < np; po++) {
		uint32_t w = f->op[x * np + po].lock;
		if (w == NIL)
			continue;
		uint32_t pi = w / f->nvc;
		bm_setw(holders, w, W);
		if (!f->org->xbar) /* the injection port's as well */
			for (uint32_t k = 0; k < W; k++)
				busy_in[k] |= f->pmask[pi * W + k];
	}
	for (uint32_t k = 0; k < W; k++)
		busy_in[k] &= ~holders[k];
	for (uint32_t k = 0; k < np; k++) {
		uint32_t po = start + k < np ? start + k : start + k - np;
		if (!(ports >> po & 1))
			continue;
		struct oport *o = &f->op[x * np + po];
		uint64_t *rq = &req[po * W];
		uint32_t quota = (direct ? po == np - 1 : o->kind == MP_PORT_TERM) ?
				 f->cfg.eject_flits : 1;
		for (uint32_t g = 0; g < quota; g++) {
			uint64_t any = 0, gt = 0, be = 0;
			for (uint32_t j = 0; j < W; j++) {
				q[j] = rq[j] & ~gone[j] & ~busy_in[j];
				if (f->study && o->lock != NIL)
					q[j] &= o->lock >> 6 == j ?
						1ull << (o->lock & 63) : 0;
				any |= q[j];
			}
			if (!any)
				break;
			uint32_t w;
			if (f->org->arrival || f->cfg.arb == MP_ARB_OLDEST) {
				w = oldest_pick(f, r, q, W, &o->rr);
			} else if (f->cfg.arb == MP_ARB_RR) {
				w = rr_pick(q, W, &o->rr);
			} else {
				for (uint32_t j = 0; j < W; j++) {
					gt |= q[j] & f->gtmask[j];
					be |= q[j] & ~f->gtmask[j];
				}
				if (!gt || !be) {
					w = rr_pick(q, W, &o->rr);
				} else if (f->cfg.arb == MP_ARB_PRIORITY ||
					   o->be_quota == 0) {
					for (uint32_t j = 0; j < W; j++)
						q[j] &= f->gtmask[j];
					w = rr_pick(q, W, &o->rr);
				} else {
					for (uint32_t j = 0; j < W; j++)
						q[j] &= ~f->gtmask[j];
					w = rr_pick(q, W, &o->rr);
					o->be_quota--;
				}
			}
			if (f->cfg.arb == MP_ARB_CREDIT &&
			    (f->gtmask[w >> 6] >> (w & 63) & 1) &&
			    fifo_at(&f->iv[r->ivc0 + w], 0)->idx == 0)
				o->be_quota = f->cfg.arb_alpha;
			bm_clr(rq, w, W);
			uint32_t pi = w / f->nvc;
			int inj = direct ? pi == np - 1 :
				  (int)(r->inj_ports >> pi & 1);
			struct ivc *cw = &f->iv[r->ivc0 + w];
			if (f->study && cw->ovc == NIL) { /* take the port */
				cw->ovc = study_target(f, x, cw, fifo_at(cw, 0));
				if (cw->ovc == NIL) {
					fail(f, "router %u: lost its output VC", x);
					return 1;
				}
				f->ov[cw->ovc].owner = w;
				o->lock = w;
			}
			if (inj && f->nvn > 1) { /* a port per network */
				unsigned v = cw->vn;
				if (++used_inj[v] == f->cfg.inject_flits)
					for (uint32_t j = 0; j < W; j++)
						gone[j] |= f->pmask[pi * W + j] &
							   f->vnmask[v * W + j];
			} else if (f->org->xbar && (!inj || f->study)) {
				bm_setw(gone, w, W); /* a crossbar input per queue */
			} else if (++used[pi] == (inj && !f->study ?
						  f->cfg.inject_flits : 1)) {
				for (uint32_t j = 0; j < W; j++)
					gone[j] |= f->pmask[pi * W + j];
			}
			move(f, x, w, t, W);
		}
	}
	return 1;
}

static int cycle1(flitm *f, uint32_t x, uint64_t t)
{
	return cycle_w(f, x, t, 1, 1);
}

static int cycle_n(flitm *f, uint32_t x, uint64_t t)
{
	return cycle_w(f, x, t, f->W, f->direct);
}

static int self_check(flitm *f);

/* Run every cycle before `until`. */
static int flit_run_until(void *m, uint64_t until)
{
	flitm *f = m;
	struct mp_ev ev;
	if (f->failed)
		return MP_SIM_ERROR;
	f->ni = mp_sim_ni(f->sim);
	for (;;) {
		uint64_t tm = tq_peek(&f->w_next), x;
		if ((x = tq_peek(&f->w_job)) < tm)
			tm = x;
		if ((x = tq_peek(&f->w_inj)) < tm)
			tm = x;
		if ((x = tq_peek(&f->w_chan)) < tm)
			tm = x;
		if ((x = tq_peek(&f->w_arr)) < tm)
			tm = x;
		if ((x = tq_peek(&f->credits)) < tm)
			tm = x;
		uint64_t td = mp_evq_peek(f->q);
		if (tm == UINT64_MAX && until == UINT64_MAX && !mp_sim_work(f->sim))
			return MP_SIM_OK;
		if (td <= tm) {
			if (td >= until || !mp_evq_pop_before(f->q, until, &ev))
				return MP_SIM_OK;
			f->now = ev.t;
			int st = mp_sim_event(f->sim, &ev);
			if (st == MP_SIM_ERROR)
				return MP_SIM_ERROR;
			if (st != MP_SIM_OK)
				return st;
			continue;
		}
		if (tm >= until)
			return MP_SIM_OK;
		uint64_t t = tm;
		uint32_t n = 0;
		f->now = t;
		f->cycles++;
		while (tq_peek(&f->credits) == t) {
			uint32_t o = tq_pop(&f->credits);
			f->cred[f->ov[o].pool]++;
			visit(f, f->ov[o].router, t, &n);
		}
		while (tq_peek(&f->w_next) == t)
			visit(f, tq_pop(&f->w_next), t, &n);
		while (tq_peek(&f->w_job) == t)
			visit(f, tq_pop(&f->w_job), t, &n);
		while (tq_peek(&f->w_inj) == t)
			visit(f, tq_pop(&f->w_inj), t, &n);
		while (tq_peek(&f->w_chan) == t)
			visit(f, tq_pop(&f->w_chan), t, &n);
		while (tq_peek(&f->w_arr) == t)
			visit(f, tq_pop(&f->w_arr), t, &n);
		f->visits += n;
		for (uint32_t i = 0; i < n; i++)
			if (f->fast ? cycle1(f, f->list[i], t) :
			    cycle_n(f, f->list[i], t))
				tq_push(f, &f->w_next, t + 1, f->list[i]);
		f->next_cycle = t + 1;
		if (f->watch) {
			if (!f->failed)
				self_check(f);
			if (f->failed)
				return MP_SIM_ERROR;
		}
		/* Closed-loop replay (mp_sim_yield): a delivery in this cycle
		 * released messages; the caller adds them, and they start
		 * from the next cycle (flit_job). The cycle is never cut
		 * short. */
		if (f->sh->yield) {
			f->sh->yield = 0;
			return MP_SIM_OK;
		}
	}
}

/* ------------------------------------------------------------------ */
/* Self-check                                                          */

/*
 * Recount what the model keeps incrementally: each input VC's flits
 * (in packet order, within its capacity, its bit in the router's mask),
 * the credits of each buffer (credits + flits in its queues + credits
 * on their way back = its size, never negative; a shared buffer never
 * holds more than its size), each per-output queue's flits (all of
 * them routed to its output port), the output ports held whole,
 * the ownership of output VCs (an owner holds it, and holds only it),
 * and each packet's flits (those not yet ejected are in the buffers).
 */
MP_COLD static int self_check(flitm *f)
{
	unsigned long long t = f->now;
	uint32_t *cnt = calloc((size_t)f->npkts + 2 * (size_t)f->nivc + 1,
			       sizeof *cnt);
	uint32_t *pend = cnt + f->npkts, *occ = pend + f->nivc;
	uint64_t *mask = calloc(f->W, sizeof *mask);
	if (!cnt || !mask) {
		free(cnt);
		free(mask);
		return fail(f, "out of memory (self-check)");
	}
	int rc = 0;
	for (uint32_t i = 0; i < f->credits.n; i++)
		pend[f->ov[f->credits.e[(f->credits.head + i) &
				      f->credits.mask].x].pool]++;
	/* A DAMQ buffer's room: its flits, and those of packets partly
	 * gone (freed only when the tail leaves). */
	for (uint32_t i = 0; i < f->nivc; i++)
		occ[f->iv[i].pool] += f->iv[i].n + f->iv[i].gone;
	for (uint32_t x = 0; x < f->nr && !rc; x++) {
		const struct router *r = &f->r[x];
		memset(mask, 0, f->W * sizeof *mask);
		for (uint32_t lv = 0; lv < f->nports * f->nvc && !rc; lv++) {
			const struct ivc *c = &f->iv[r->ivc0 + lv];
			if (c->n > c->cap)
				rc = fail(f, "self-check at t=%llu: router %u VC %u "
					     "holds %u flits, room for %u", t, x, lv,
					  c->n, c->cap);
			if (c->n)
				bm_set(mask, lv);
			for (uint32_t k = 0; k < c->n && !rc; k++) {
				const struct flit *a = fifo_at(c, k);
				if (a->pkt >= f->npkts || !f->pkts[a->pkt].live) {
					rc = fail(f, "self-check at t=%llu: router "
						     "%u VC %u holds a flit of no "
						     "packet", t, x, lv);
					break;
				}
				cnt[a->pkt]++;
				unsigned port;
				if (c->q != NOPORT && a->idx == 0 &&
				    (f->route(f->net, x, f->pkts[a->pkt].dst, &port,
					      1) != 1 || port != c->q))
					rc = fail(f, "self-check at t=%llu: router "
						     "%u queue %u of output %u holds "
						     "a packet for another output", t,
						  x, lv, c->q);
				if (k && a->idx && (fifo_at(c, k - 1)->pkt !=
						    a->pkt ||
						    fifo_at(c, k - 1)->idx + 1 !=
						    a->idx))
					rc = fail(f, "self-check at t=%llu: router "
						     "%u VC %u: flits out of order",
						  t, x, lv);
			}
			if (c->ovc != NIL && f->ov[c->ovc].owner != lv)
				rc = fail(f, "self-check at t=%llu: router %u VC %u "
					     "uses output VC %u, owned by %u", t,
					  x, lv, c->ovc, f->ov[c->ovc].owner);
			if (c->ovc != NIL && f->ov[c->ovc].router != x)
				rc = fail(f, "self-check at t=%llu: router %u VC %u "
					     "holds output VC %u of another router",
					  t, x, lv, c->ovc);
		}
		for (uint32_t p = 0; p < f->nports && f->study && !rc; p++) {
			const struct oport *o = &f->op[x * f->nports + p];
			if (o->lock == NIL)
				continue;
			const struct ivc *c = &f->iv[r->ivc0 + o->lock];
			if (c->ovc == NIL || c->oport != p)
				rc = fail(f, "self-check at t=%llu: router %u port "
					     "%u held by VC %u, which does not use "
					     "it", t, x, p, o->lock);
		}
		for (uint32_t k = 0; k < f->W && !rc; k++)
			if (mask[k] != rmask(f, x, f->W)[k])
				rc = fail(f, "self-check at t=%llu: router %u "
					     "non-empty VCs %#llx, not %#llx (VCs "
					     "%u..)", t, x,
					  (unsigned long long)rmask(f, x, f->W)[k],
					  (unsigned long long)mask[k], k * 64);
	}
	for (uint32_t o = 0; o < f->novc && !rc; o++) {
		const struct ovc *ov = &f->ov[o];
		if (ov->owner != NIL &&
		    f->iv[f->r[ov->router].ivc0 + ov->owner].ovc != o)
			rc = fail(f, "self-check at t=%llu: output VC %u owned by "
				     "VC %u of router %u, which does not hold it",
				  t, o, ov->owner, ov->router);
	}
	for (uint32_t i = 0; i < f->nivc && !rc; i++) {
		const struct ivc *d = &f->iv[i];
		if (d->pool != i || (d->up == NIL && !f->study) || !f->pcap[i])
			continue; /* not a link's buffer, or unbounded */
		if (occ[i] > f->pcap[i])
			rc = fail(f, "self-check at t=%llu: buffer %u holds %u "
				     "flits, room for %u", t, i, occ[i],
				  f->pcap[i]);
		else if (f->cred[i] < 0 ||
			 (uint64_t)f->cred[i] + occ[i] + pend[i] != f->pcap[i])
			rc = fail(f, "self-check at t=%llu: buffer %u has %d "
				     "credits, %u flits, %u credits returning, "
				     "room %u", t, i, f->cred[i], occ[i], pend[i],
				  f->pcap[i]);
	}
	uint64_t live = 0;
	for (uint32_t i = 0; i < f->npkts && !rc; i++) {
		if (!f->pkts[i].live)
			continue;
		live++;
		if (cnt[i] != f->pkts[i].left)
			rc = fail(f, "self-check at t=%llu: packet %u has %u flits "
				     "in buffers, %u not ejected", t, i, cnt[i],
				  f->pkts[i].left);
	}
	if (!rc && live != mp_sim_in_flight(f->sim))
		rc = fail(f, "self-check at t=%llu: %llu packets live, %llu "
			     "accepted and not delivered", t,
			  (unsigned long long)live,
			  (unsigned long long)mp_sim_in_flight(f->sim));
	free(cnt);
	free(mask);
	return rc;
}

static int flit_self_check(void *m)
{
	return self_check(m);
}

/* ------------------------------------------------------------------ */
/* Interface                                                           */

static void flit_free(void *m)
{
	flitm *f = m;
	if (!f)
		return;
	for (uint32_t i = 0; f->iv && i < f->nivc; i++)
		if (f->iv[i].grow)
			free(f->iv[i].ring);
	free(f->r);
	free(f->rmask);
	free(f->pmask);
	free(f->vnmask);
	free(f->gtmask);
	free(f->req);
	free(f->scr);
	free(f->term_sw);
	free(f->port_term);
	free(f->op);
	free(f->iv);
	free(f->ov);
	free(f->slab);
	free(f->cred);
	free(f->pcap);
	free(f->pkts);
	free(f->list);
	free(f->w_next.e);
	free(f->w_job.e);
	free(f->w_inj.e);
	free(f->w_chan.e);
	free(f->chan_free);
	free(f->w_arr.e);
	free(f->credits.e);
	free(f);
}

/* The VCs and buffer of a network of switching sw under cfg. */
static void vnet_size(const struct mp_cfg *c, int sw, int cls,
		      unsigned *vcs, unsigned *buf)
{
	unsigned L = c->packet_flits;
	if (sw == MP_SW_WORMHOLE) {
		*vcs = c->vcs ? c->vcs : 2;
		*buf = c->vc_buf ? c->vc_buf : 1;
	} else {
		*vcs = c->vcs ? c->vcs : 1;
		*buf = c->vc_buf ? c->vc_buf : 4 * L;
	}
	(void)cls;
}

static void *flit_create(mp_sim *sim, const mp_net *net,
			 const struct mp_cfg *cfg, mp_err *err)
{
	const char *fam = mp_net_family(net);
	int torus = strcmp(fam, "torus") == 0;
	int kary = strcmp(fam, "kncube-uni") == 0;
	int omega = strcmp(fam, "omega") == 0;
	int ring = torus || kary; /* has rings: dateline or bubble rules */
	unsigned K = 0, N = 0;
	if (!torus && !kary && !omega && strcmp(fam, "mesh") != 0) {
		mp_err_set(err, "--model flit: needs a torus:RxC, mesh:RxC, "
				"kary:K,N or omega:A,S network, not %s",
			   mp_net_name(net));
		return NULL;
	}
	if (kary && sscanf(mp_net_name(net), "kncube-uni:%u,%u", &K, &N) != 2) {
		mp_err_set(err, "--model flit: bad network %s", mp_net_name(net));
		return NULL;
	}
	if (cfg->buf_org < 0 ||
	    (size_t)cfg->buf_org >= sizeof buf_orgs / sizeof buf_orgs[0]) {
		mp_err_set(err, "--buffer: unknown organization");
		return NULL;
	}
	const struct buf_org *org = &buf_orgs[cfg->buf_org];
	int study = cfg->buf_org != 0;
	if (study && (cfg->class_sw[0] || cfg->class_sw[1])) {
		mp_err_set(err, "--buffer %s: one class only (no --class)",
			   org->name);
		return NULL;
	}
	if (study && cfg->switching == MP_SW_WORMHOLE) {
		mp_err_set(err, "--buffer %s: needs --switching vct or ps",
			   org->name);
		return NULL;
	}
	if (study && cfg->vc_buf) {
		mp_err_set(err, "--vc-buf: --buffer %s is sized by --buf-flits",
			   org->name);
		return NULL;
	}
	if (!study && cfg->buf_flits) {
		mp_err_set(err, "--buf-flits: applies to --buffer fifo, safc, "
				"samq, damq or oq (vc-fifo: --vc-buf)");
		return NULL;
	}
	if (cfg->arb == MP_ARB_RANDOM) { /* the ncube model's */
		mp_err_set(err, "--arb: the flit model arbitrates rr, priority, "
				"oldest or credit:A, not random");
		return NULL;
	}
	flitm *f = calloc(1, sizeof *f);
	if (!f) {
		mp_err_set(err, "out of memory");
		return NULL;
	}
	f->sim = sim;
	f->net = net;
	f->cfg = *cfg;
	f->org = org;
	f->study = study;
	f->sh = mp_sim_shared(sim);
	f->ni = mp_sim_ni(sim);
	f->q = mp_sim_evq(sim);
	f->route = mp_net_routing("dor");
	f->L = cfg->packet_flits;
	f->R = cfg->router_delay;
	f->D = cfg->link_delay;
	f->C = cfg->credit_delay;
	f->pkt_free = NIL;
	f->watch = mp_sim_opts(sim)->self_check;
	f->vn_of_cls[0] = f->vn_of_cls[1] = -1;
	f->nr = mp_net_switches(net);
	f->nports = mp_net_ports(net, 0);
	/* An omega's switch: inputs 0..A-1, outputs A..2A-1 (mp_net). */
	f->q0 = omega ? f->nports / 2 : 0;
	f->direct = !omega;
	f->fast = 0;
	if (f->nports > 64) {
		mp_err_set(err, "--model flit: at most 64 ports per router, not "
				"%u (%s)", f->nports, mp_net_name(net));
		goto fail;
	}

	/* Virtual networks: one per named class, or one for all. */
	if (cfg->class_sw[0] || cfg->class_sw[1]) {
		for (int k = 1; k >= 0; k--) /* gt first */
			if (cfg->class_sw[k]) {
				f->vn[f->nvn].sw = cfg->class_sw[k] - 1;
				f->vn[f->nvn].cls = k;
				f->vn_of_cls[k] = (int8_t)f->nvn++;
			}
	} else {
		f->vn[0].sw = cfg->switching;
		f->vn[0].cls = -1;
		f->nvn = 1;
		f->vn_of_cls[0] = f->vn_of_cls[1] = 0;
	}
	/* Source queues: with named classes, a job-list lane per network
	 * and one more for a class without a network (refused when it
	 * reaches the head). */
	f->lanes = 1;
	if (cfg->class_sw[0] || cfg->class_sw[1]) {
		uint8_t lane_of[MP_NI_CLASSES];
		for (int k = 0; k < MP_NI_CLASSES; k++)
			lane_of[k] = (uint8_t)(f->vn_of_cls[k] >= 0 ?
					       f->vn_of_cls[k] : (int)f->nvn);
		f->lanes = f->nvn + 1;
		mp_sim_set_lanes(sim, f->lanes, lane_of);
	}
	unsigned nvc = 0, F = cfg->buf_flits;
	for (unsigned v = 0; v < f->nvn; v++) {
		struct vnet *vn = &f->vn[v];
		vnet_size(cfg, vn->sw, vn->cls, &vn->vcs, &vn->buf);
		vn->nq = 1;
		if (study) {
			/* The input's F flits split evenly among the classes,
			 * and by static organizations among the queues of a
			 * class; rounded down. 0: unbounded. */
			vn->vcs = cfg->vcs ? cfg->vcs : ring && cfg->vc_rules ? 2 : 1;
			vn->nq = org->per_out ? f->nports - f->q0 : 1;
			unsigned fc = F / vn->vcs;
			vn->buf = org->shared ? fc : fc / vn->nq;
			unsigned need = ring && cfg->vc_rules && vn->vcs == 1 ?
					2 * f->L : f->L;
			if (F && vn->buf < need) {
				mp_err_set(err, "--buf-flits %u: --buffer %s leaves "
						"%u flits per %s, less than %s (%u "
						"flits)", F, org->name, vn->buf,
					   org->shared ? "class" : "queue",
					   need > f->L ? "two packets (the bubble "
					   "rule)" : "one packet", need);
				goto fail;
			}
		}
		vn->base = nvc;
		nvc += vn->vcs * vn->nq;
		const char *nm = vn->cls < 0 ? "" : mp_class_names[vn->cls];
		if (!study && vn->sw != MP_SW_WORMHOLE && vn->buf < f->L) {
			mp_err_set(err, "--vc-buf %u: %s%s%s needs room for a whole "
					"packet (%u flits)", vn->buf, nm,
				   *nm ? " " : "", mp_switching_names[vn->sw], f->L);
			goto fail;
		}
		if (!cfg->vc_rules)
			continue; /* deadlock possible: the driver detects it */
		if (ring && vn->vcs >= 2)
			vn->dateline = 1;
		if (ring && vn->vcs == 1 && vn->sw != MP_SW_WORMHOLE) {
			vn->bubble = 1;
			if (!study && vn->buf < 2 * f->L) {
				mp_err_set(err, "--vc-buf %u: %s on one virtual "
						"channel of a torus needs room for two "
						"packets (%u flits, the bubble rule)",
					   vn->buf, mp_switching_names[vn->sw],
					   2 * f->L);
				goto fail;
			}
		}
		if (ring && vn->sw == MP_SW_WORMHOLE && vn->vcs < 2) {
			mp_err_set(err, "--vcs 1: wormhole on a torus needs 2 "
					"virtual channels (the dateline rule; --vc-rules "
					"off lifts it)");
			goto fail;
		}
	}
	f->nvc = nvc;
	/* Input VCs per router: as many as its ports and organization
	 * need, in bitmaps of W words. */
	uint32_t per = f->nports * nvc;
	if ((uint64_t)f->nr * per > (1u << 28)) {
		mp_err_set(err, "--vcs%s: %u routers of %u ports x %u virtual "
				"channels, more than %u in all", study ?
			   ", --buffer" : "", f->nr, f->nports, nvc, 1u << 28);
		goto fail;
	}
	/* What the queues' state and flit rings will take (a ring holds
	 * its VC's buffer, an unbounded one starts at two packets): refuse
	 * in one line what this machine cannot hold, rather than be killed
	 * by the kernel half-way through setting it up. */
	{
		double rcap = 2.0 * f->L;
		for (unsigned v = 0; v < f->nvn; v++)
			if (f->vn[v].buf > rcap)
				rcap = f->vn[v].buf;
		double need = (double)f->nr * per *
			      (sizeof(struct ivc) + sizeof(struct ovc) +
			       2 * sizeof(int32_t) + rcap * sizeof(struct flit));
		double have = mp_phys_bytes();
		if (have > 0 && need > have) {
			mp_err_set(err, "--topo, --buf-flits: %u routers of %u "
					"queues need about %.1f GB, more than "
					"this machine's %.1f GB", f->nr, per,
				   need / 1e9, have / 1e9);
			goto fail;
		}
	}
	uint32_t W = f->W = (per + 63) / 64;
	f->fast = W == 1 && f->direct;
	uint32_t nterm = mp_net_terminals(net);
	f->nivc = f->novc = f->nr * per;
	f->rmask = calloc((size_t)f->nr * W, sizeof *f->rmask);
	f->pmask = calloc((size_t)f->nports * W, sizeof *f->pmask);
	f->vnmask = calloc((size_t)MAXVN * W, sizeof *f->vnmask);
	f->gtmask = calloc(W, sizeof *f->gtmask);
	f->req = calloc((size_t)f->nports * W, sizeof *f->req);
	f->scr = calloc(4 * (size_t)W, sizeof *f->scr);
	f->term_sw = calloc(nterm, sizeof *f->term_sw);
	f->port_term = malloc((size_t)f->nr * f->nports * sizeof *f->port_term);
	f->r = calloc(f->nr, sizeof *f->r);
	f->op = calloc((size_t)f->nr * f->nports, sizeof *f->op);
	f->iv = calloc(f->nivc, sizeof *f->iv);
	f->ov = calloc(f->novc, sizeof *f->ov);
	f->cred = calloc(f->nivc, sizeof *f->cred);
	f->pcap = calloc(f->nivc, sizeof *f->pcap);
	f->list = malloc(f->nr * sizeof *f->list);
	f->chan_free = calloc((size_t)f->nr * f->nports, sizeof *f->chan_free);
	if (!f->r || !f->op || !f->iv || !f->ov || !f->list || !f->cred ||
	    !f->pcap || !f->rmask || !f->pmask || !f->vnmask || !f->gtmask ||
	    !f->req || !f->scr || !f->term_sw || !f->port_term || tq_init(&f->w_next) || tq_init(&f->w_job) ||
	    tq_init(&f->w_inj) || tq_init(&f->w_arr) || tq_init(&f->credits) ||
	    tq_init(&f->w_chan) || !f->chan_free) {
		mp_err_set(err, "out of memory");
		goto fail;
	}
	for (uint32_t p = 0; p < f->nports; p++)
		for (uint32_t v = 0; v < nvc; v++)
			bm_set(&f->pmask[p * W], p * nvc + v);
	for (unsigned v = 0; v < f->nvn; v++)
		for (uint32_t p = 0; p < f->nports; p++)
			for (unsigned k = 0; k < f->vn[v].vcs * f->vn[v].nq; k++) {
				uint32_t lv = p * nvc + f->vn[v].base + k;
				bm_set(&f->vnmask[v * W], lv);
				if (f->vn[v].cls == MP_CLASS_GT)
					bm_set(f->gtmask, lv);
			}
	/* Terminals: where each injects (the terminal port of its router
	 * in a direct network, an input of the first stage in an omega). */
	for (uint32_t i = 0; i < f->nr * f->nports; i++)
		f->port_term[i] = NIL;
	for (uint32_t t = 0; t < nterm; t++) {
		uint32_t sw;
		unsigned p;
		mp_net_term_in(net, t, &sw, &p);
		f->term_sw[t] = sw;
		f->port_term[sw * f->nports + p] = t;
		f->r[sw].inj_ports |= 1ull << p;
		if (f->nvn > 1 && f->r[sw].inj_ports & ~(1ull << p)) {
			mp_err_set(err, "--class: one network per class needs one "
					"terminal per router (not %s)",
				   mp_net_name(net));
			goto fail;
		}
	}
	/* Buffers: a link input VC holds its network's vc-buf flits, an
	 * injection VC one packet; under a study organization every input
	 * queue, the injection port's included, holds its share of
	 * buf-flits. An unbounded queue has a ring of its own that grows. */
	uint64_t slab = 0;
	for (uint32_t x = 0; x < f->nr; x++) {
		if (mp_net_ports(net, x) != f->nports) {
			mp_err_set(err, "--model flit: switches of unequal ports");
			goto fail;
		}
		f->r[x].ivc0 = x * per;
		for (uint32_t p = 0; p < f->nports; p++)
			for (unsigned v = 0; v < f->nvn; v++) {
				const struct vnet *vn = &f->vn[v];
				for (unsigned k = 0; k < vn->vcs * vn->nq; k++) {
					uint32_t i = x * per + p * nvc + vn->base + k;
					struct ivc *c = &f->iv[i];
					int inj = (int)(f->r[x].inj_ports >> p & 1);
					int none = omega && p >= f->q0; /* an output */
					c->pool = i;
					c->cap = inj && !study ? f->L :
						 none ? 0 : vn->buf;
					if (study && org->shared)
						c->pool = i - k % vn->nq;
					if (!none && study && !F) {
						c->cap = 2 * f->L;
						c->grow = 1;
						c->ring = malloc(c->cap * sizeof *c->ring);
						if (!c->ring) {
							mp_err_set(err, "out of memory");
							goto fail;
						}
					} else {
						c->base = (uint32_t)slab;
						slab += c->cap;
					}
					if (c->pool == i) {
						f->pcap[i] = c->grow ? 0 : vn->buf;
						f->cred[i] = c->grow ? INT32_MAX / 2 :
							     (int32_t)vn->buf;
					}
					c->q = vn->nq > 1 ? (uint8_t)(k % vn->nq + f->q0) :
						NOPORT;
					c->ovc = NIL;
					c->up = NIL;
					c->oport = c->nport = NOPORT;
					c->vn = (uint8_t)v;
					c->port = (uint8_t)p;
				}
			}
	}
	if (slab > (1u << 26)) {
		mp_err_set(err, "--vc-buf, --buf-flits, --packet-flits: buffers "
				"of %llu flits in all, more than %u",
			   (unsigned long long)slab, 1u << 26);
		goto fail;
	}
	f->slab = calloc(slab ? slab : 1, sizeof *f->slab);
	if (!f->slab) {
		mp_err_set(err, "out of memory (buffers)");
		goto fail;
	}
	for (uint32_t i = 0; i < f->nivc; i++)
		if (!f->iv[i].grow)
			f->iv[i].ring = f->slab + f->iv[i].base;
	for (uint32_t x = 0; x < f->nr; x++) {
		unsigned row, col;
		mp_net_coords(net, x, &row, &col);
		for (uint32_t p = 0; p < f->nports; p++) {
			struct oport *o = &f->op[x * f->nports + p];
			uint32_t peer;
			unsigned pp;
			o->kind = (uint8_t)mp_net_out(net, x, p, &peer, &pp);
			o->vc0 = x * per + p * nvc;
			o->peer = peer;
			o->lock = NIL;
			o->dim = (uint8_t)(kary ? p : p & 1);
			if (o->kind == MP_PORT_LINK && kary) {
				/* port p: +1 in dimension p; the wrap from
				 * digit K-1 to 0 is the dateline */
				uint32_t d = x;
				for (uint32_t j = 0; j < p; j++)
					d /= K;
				o->wrap = (uint8_t)(d % K == K - 1);
			} else if (o->kind == MP_PORT_LINK && !omega) {
				unsigned r2, c2;
				mp_net_coords(net, peer, &r2, &c2);
				o->wrap = (uint8_t)((r2 > row ? r2 - row : row - r2) > 1 ||
						    (c2 > col ? c2 - col : col - c2) > 1);
			}
			for (uint32_t v = 0; v < nvc; v++) {
				struct ovc *ov = &f->ov[o->vc0 + v];
				ov->owner = NIL;
				ov->router = x;
				ov->down = NIL;
				if (o->kind == MP_PORT_LINK) {
					ov->down = peer * per + pp * nvc + v;
					f->iv[ov->down].up = o->vc0 + v;
					ov->pool = f->iv[ov->down].pool;
				}
			}
		}
	}
	return f;
fail:
	flit_free(f);
	return NULL;
}

static uint32_t flit_nodes(const void *m)
{
	const flitm *f = m;
	return mp_net_terminals(f->net);
}

static uint64_t flit_now(const void *m)
{
	const flitm *f = m;
	return f->now;
}

static int flit_busy(const void *m)
{
	const flitm *f = m;
	return f->w_next.n || f->w_job.n || f->w_inj.n || f->w_arr.n ||
	       f->credits.n || f->w_chan.n;
}

static void flit_job(void *m, uint32_t x, uint64_t t)
{
	flitm *f = m;
	f->ni = mp_sim_ni(f->sim);
	f->now = t;
	/* A message released by a delivery of cycle t (closed-loop replay)
	 * joins in the next cycle: cycle t was simulated already. Terminal
	 * x injects at router term_sw[x]. */
	tq_push(f, &f->w_job, t < f->next_cycle ? f->next_cycle : t,
		f->term_sw[x]);
}

/* Terminal ports (PE scope): flits injected and ejected; links
 * (internal scope): flits sent. Busy time is one cycle per flit. */
static void flit_util(const void *m, int scope, uint64_t t, struct mp_util *u)
{
	const flitm *f = m;
	(void)t;
	if (scope == MP_UTIL_PE) {
		for (uint32_t x = 0; x < f->nr; x++) {
			u->busy += f->r[x].inj_flits + f->r[x].ej_flits;
			u->transfers += f->r[x].inj_pkts + f->r[x].ej_pkts;
		}
		u->nports = 2 * mp_net_terminals(f->net);
	} else {
		uint32_t n = 0;
		for (uint32_t k = 0; k < f->nr * f->nports; k++)
			if (f->op[k].kind == MP_PORT_LINK) {
				u->busy += f->op[k].flits;
				u->transfers += f->op[k].pkts;
				n++;
			}
		u->nports = n;
	}
}

/* The link ports of each router, then each terminal's injection and
 * ejection (ports nports-1 and nports). In an omega, every output port
 * of each switch (an input port: 0), then the flits injected at each
 * switch (port nports). */
static int flit_port_util(const void *m, uint32_t k, uint64_t t,
			  struct mp_util *u)
{
	const flitm *f = m;
	(void)t;
	uint32_t nl = f->nr * f->nports;
	if (k < nl) {
		u->node = k / f->nports;
		u->port = k % f->nports;
		if (u->port == f->nports - 1 && mp_net_direct(f->net)) {
			const struct router *r = &f->r[u->node];
			u->busy = r->ej_flits;
			u->transfers = r->ej_pkts;
			u->port = f->nports;
			return 1;
		}
		u->busy = f->op[k].flits;
		u->transfers = f->op[k].pkts;
		return 1;
	}
	k -= nl;
	if (k >= f->nr)
		return 0;
	u->node = k;
	u->port = mp_net_direct(f->net) ? f->nports - 1 : f->nports;
	u->busy = f->r[k].inj_flits;
	u->transfers = f->r[k].inj_pkts;
	return 1;
}

static void flit_counts(const void *m, uint64_t *refusals, uint64_t *events)
{
	const flitm *f = m;
	*refusals = 0;
	*events = f->visits;
}

static size_t flit_report(const void *mo, size_t max, char *buf, size_t cap)
{
	const flitm *f = mo;
	size_t len = 0, lines = 0;
	for (uint32_t i = 0; i < f->nivc && lines < max; i++) {
		const struct ivc *c = &f->iv[i];
		if (!c->n)
			continue;
		const struct flit *h = &c->ring[c->head];
		const struct pkt *p = &f->pkts[h->pkt];
		const struct mp_sim_msg *m = mp_sim_msg(f->sh, p->msg);
		uint32_t per = f->nports * f->nvc;
		mp_sim_report_line(buf, cap, &len,
				   "packet %u of message %llu (%u -> %u) at "
				   "router %u port %u VC %u: flit %u of %u at the "
				   "head, %u flits buffered, %s\n", p->seq,
				   (unsigned long long)m->id, m->src, p->dst,
				   i / per, c->port, i % f->nvc, h->idx, f->L,
				   c->n, c->ovc == NIL ? "waiting for a VC"
						       : "holding an output VC");
		lines++;
	}
	return len;
}

/*
 * Alone in the network, over h hops: the header leaves each of the
 * h + 1 routers R cycles after it arrived and crosses h links of D
 * cycles; the tail follows P(L-1) cycles behind, where P(j) = j unless
 * wormhole buffers are shorter than the credit loop RT = R + D + C, in
 * which case flits go B at a time every RT cycles: P(j) = (j / B) RT +
 * j % B. Packet switching waits for the tail at every router.
 */
static uint64_t flit_zero_load(const struct mp_cfg *c, unsigned hops)
{
	uint64_t H = hops, R = c->router_delay, D = c->link_delay;
	uint64_t L = c->packet_flits, j = L - 1;
	int sw = c->class_sw[0] ? c->class_sw[0] - 1 :
		 c->class_sw[1] ? c->class_sw[1] - 1 : c->switching;
	unsigned vcs, B;
	vnet_size(c, sw, 0, &vcs, &B);
	if (sw == MP_SW_PS)
		return (H + 1) * (R + L - 1) + H * D;
	uint64_t rt = R + D + c->credit_delay, P = j;
	if (sw == MP_SW_WORMHOLE && hops > 0 && B < rt)
		P = j / B * rt + j % B;
	return (H + 1) * R + H * D + P;
}

static void flit_defaults(struct mp_cfg *c)
{
	c->switching = MP_SW_WORMHOLE;
	c->vcs = 0;
	c->vc_buf = 0;
	c->packet_flits = 16;
	c->router_delay = 1;
	c->link_delay = 1;
	c->credit_delay = 1;
	c->inject_flits = 1;
	c->eject_flits = 1;
	c->arb = MP_ARB_RR;
	c->arb_alpha = 0;
	c->buf_org = 0;
	c->buf_flits = 0;
	c->vc_rules = 1;
	c->class_sw[0] = c->class_sw[1] = 0;
}

#define CFG(field) offsetof(struct mp_cfg, field)

static const struct mp_opt flit_opts[] = {
	{ "switching", MP_OPT_CHOICE, CFG(switching), 0, 0, mp_switching_names,
	  "S", "wormhole | vct (virtual cut-through) | ps (store and forward)",
	  0 },
	{ "class", MP_OPT_SPECIAL, CFG(class_sw), 0, 0, NULL, "C=S",
	  "class be or gt on its own virtual network with switching S", 0 },
	{ "vcs", MP_OPT_UINT, CFG(vcs), 1, 64, NULL, "N",
	  "virtual channels per link and network (auto: 2 wormhole, 1 else)",
	  MP_OPT_AUTO },
	{ "vc-buf", MP_OPT_UINT, CFG(vc_buf), 1, 1u << 20, NULL, "F",
	  "flits per virtual channel (auto: 1 wormhole, 4 packets else)",
	  MP_OPT_AUTO },
	{ "packet-flits", MP_OPT_UINT, CFG(packet_flits), 1, 1u << 16, NULL,
	  "L", "flits per packet", 0 },
	{ "router-delay", MP_OPT_UINT, CFG(router_delay), 0, 1000, NULL, "T",
	  "cycles from a flit's arrival to its first possible departure", 0 },
	{ "link-delay", MP_OPT_UINT, CFG(link_delay), 1, 1000, NULL, "T",
	  "cycles a flit takes over a link", 0 },
	{ "credit-delay", MP_OPT_UINT, CFG(credit_delay), 1, 1000, NULL, "T",
	  "cycles from a flit's departure to its credit's use upstream", 0 },
	{ "inject-flits", MP_OPT_UINT, CFG(inject_flits), 1, 64, NULL, "N",
	  "flits a terminal injects per cycle", 0 },
	{ "eject-flits", MP_OPT_UINT, CFG(eject_flits), 1, 64, NULL, "N",
	  "flits a terminal receives per cycle", 0 },
	{ "arb", MP_OPT_SPECIAL, CFG(arb), 0, 0, NULL, "A",
	  "link arbitration: rr | priority | oldest | credit:A", 0 },
	{ "buf-org", MP_OPT_CHOICE, CFG(buf_org), 0, 0, buf_org_names, "B",
	  "input buffers: vc-fifo | fifo | safc | samq | damq | oq", 0 },
	{ "buffer", MP_OPT_CHOICE, CFG(buf_org), 0, 0, buf_org_names, "B",
	  "the same as --buf-org", MP_OPT_NOSHOW },
	{ "buf-flits", MP_OPT_UINT, CFG(buf_flits), 0, 1u << 20, NULL, "F",
	  "flits per input port, --buffer other than vc-fifo (0: unbounded)",
	  0 },
	{ "vc-rules", MP_OPT_CHOICE, CFG(vc_rules), 0, 0, off_on, "on|off",
	  "dateline and bubble rules on a torus (off: may deadlock)", 0 },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL, 0 }
};

const struct mp_model_ops mp_model_flit = {
	.name = "flit",
	.desc = "cycle-level routers with virtual channels and credits: "
		"wormhole, virtual cut-through, packet switching",
	.opts = flit_opts,
	.defaults = flit_defaults,
	.create = flit_create,
	.nodes = flit_nodes,
	.now = flit_now,
	.run_until = flit_run_until,
	.job = flit_job,
	.busy = flit_busy,
	.self_check = flit_self_check,
	.util = flit_util,
	.port_util = flit_port_util,
	.counts = flit_counts,
	.report = flit_report,
	.zero_load = flit_zero_load,
	.free = flit_free,
};
