/*
 * The packet-level fabric model: nodes with a central buffer pool,
 * channels (a half-duplex link is one channel shared by its two ends; a
 * full-duplex link is a channel each way), PE ports, packets and
 * messages in pools, and the event handlers that move packets. See
 * mp_fabric.h for the interface and man/netrun.1 for the rules.
 */
#include "mp_fabric.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_evq.h"
#include "mp_rng.h"
#include "mp_topo.h"

#define NIL UINT32_MAX
/* Packet slot 0 is no packet: it ends every held list, and its cand has
 * every bit set, so a search for a candidate stops there without a
 * separate test for the end of the list. */
#define HELD_END 0
#define EJECT_BIT 0x80u

enum {
	EV_ROUTE = 1,   /* a: packet; header in and routed at its node */
	EV_XFER_END,    /* a: packet, b: channel; tail has left the sender */
	EV_ATTEMPT_END, /* a: packet, b: channel; refused attempt over */
	EV_INJ_DECIDE,  /* a: node; injection set-up over, node decides */
	EV_INJ_END,     /* a: node; injected packet has left the PE */
	EV_INJ_REFUSED, /* a: node; refused injection attempt over */
	EV_EJ_END,      /* a: packet; completely ejected */
	EV_INJ_TIMEOUT, /* a: node; balanced-injection starvation time-out */
	EV_TIMER_UTIL,  /* utilization snapshot */
	EV_TIMER_CHECK  /* saturation and deadlock checks */
};

enum { P_ROUTING, P_WAITING, P_ATTEMPT, P_MOVING };

/* Why a node refuses a packet (WHY_OK: it accepts). */
enum { WHY_OK, WHY_FULL, WHY_BPMSG, WHY_BPDEST };
enum { USE_INJ = 0, USE_EJ = 1 };

struct pkt {
	uint32_t msg;    /* message slot */
	uint32_t dst;
	uint32_t node;   /* node holding its head */
	uint32_t seq;
	uint32_t refusals;
	uint32_t off;    /* offset of dst from node, for route(): set where
			  * the head moves to node (start_xfer, inj_decide) */
	uint64_t t_inject;
	uint16_t hops, deroutes;
	uint8_t a;       /* deroutes still allowed */
	uint8_t rt;      /* MP_RT_* */
	uint8_t best, nf; /* candidate directions at node; EJECT_BIT */
	uint8_t state;
	uint8_t pe;      /* ejecting through pe[pe] */
	uint8_t live;    /* allocated (not in the free list) */
	uint8_t blk;     /* --retry notify: directions refused, until the
			  * refusing neighbour changes */
	uint8_t blk_why; /* why (WHY_*; WHY_OK: several reasons) */
	uint8_t spare[19]; /* to 64 bytes: finding a packet is a shift */
};
_Static_assert(sizeof(struct pkt) == 64, "struct pkt is not 64 bytes");

/*
 * A packet's place in its node's held list and what the scans of that
 * list test, kept apart from struct pkt (same number): a scan for a
 * candidate or for backpressure then reads 16 bytes per packet, not a
 * line of its own, and at saturation, where those lists are long, the
 * scans are most of the memory traffic and of the mispredicted branches.
 */
struct link {
	uint32_t next, prev; /* held list at node; next: also the free list */
	uint32_t key;    /* backpressure key: destination under --bp
			  * destination, else message slot */
	uint8_t cand;    /* while waiting: the ports it may take now, (best |
			  * nf) & ~blk, or EJECT_BIT; 0 in any other state,
			  * so a search for a candidate tests one byte */
	uint8_t spare[3];
};
_Static_assert(sizeof(struct link) == 16, "struct link is not 16 bytes");

struct msg {
	uint64_t id, t_arrive, t_first;
	uint32_t src, dst, packets, bytes;
	uint32_t sent, delivered, hops;
	uint32_t next_free;
	uint8_t cls, group, rt;
};

struct port {
	uint8_t busy, refusing, last;
	uint64_t busy_start;
	uint64_t accum, refused, xfers, refusals;
};

struct chan {
	struct port p;
	uint8_t looping;      /* refused attempts repeating, no event (below):
			       * why the packet is refused (WHY_*) */
	uint32_t lp_pkt;      /* the packet retrying */
	uint64_t lp_t0;       /* start of its first attempt */
	uint8_t cur;          /* end that is sending */
	uint8_t end_dir[2];
	uint32_t end_node[2]; /* full duplex: end 0 only */
};

struct node {
	uint32_t held_head, held_tail;
	uint32_t used, dest;
	uint32_t att_msg;
	uint64_t att_start;
	uint64_t blocked_since;
	uint8_t timer_pending, force, blocked;
	/* Retry loops this node takes part in: channels it sends on (by
	 * direction), channels it receives on (by its port's direction),
	 * and its PE port's injection attempts. */
	uint8_t out_loops, in_loops, pe_loop; /* pe_loop: why (WHY_*) */
	/* --retry notify: packets at neighbours refused by this node and
	 * waiting for it to change; an injection refused here, waiting. */
	uint8_t blk_dirs[3]; /* by kind (BK_*): directions of the
			      * neighbours with such packets (blk_count) */
	uint8_t inj_wait; /* why the injection was refused (WHY_*), or 0 */
	/* Every candidate bit of its held packets, and perhaps more: a
	 * search for a bit not here ends at once, and one that finds no
	 * packet clears it (first_for). */
	uint8_t cand_any;
	uint64_t pe_lp_t0;
	struct port pe[2]; /* [0] injection (shared: the PE port); [1] ejection */
	mp_rng rng;
	uint8_t spare[63]; /* to 256 bytes: finding a node is a shift */
};
_Static_assert(sizeof(struct node) == 256, "struct node is not 256 bytes");

struct sample {
	uint64_t t, backlog, arrived;
};

struct mp_fabric {
	struct mp_cfg cfg;
	struct mp_fabric_opts o;
	mp_topo *topo;
	uint32_t n;
	unsigned deg;
	uint32_t *rt;      /* by offset: dist | best << 8 | nf << 16 | det << 24 */
	uint32_t *row, *col; /* of each node (rows 1 for hex) */
	uint32_t rows, cols;
	uint32_t orows, ocols; /* issue 17: offset space (mp_topo_offset) */
	uint32_t *nb;      /* n * deg neighbours */
	uint32_t *chan_of; /* n * deg channel of each port */
	uint8_t opp[MP_TOPO_MAXDEG]; /* opposite directions */
	uint64_t cost_ref, cost_iref; /* refused attempt on a link, at a PE */
	int loops;         /* compress retry loops (off: every attempt an event) */
	struct chan *chans;
	uint32_t nchans;
	struct node *nodes;
	uint32_t *blk_cnt; /* --retry notify: see blk_count() */
	uint32_t *chk;     /* self_check()'s counts, when it is on */
	struct pkt *pkts;
	struct link *lk; /* same numbers as pkts */
	uint32_t npkts, pkt_free;
	struct msg *msgs;
	uint32_t nmsgs, msg_free;
	mp_evq *q;
	int ring[8];
	mp_ni *ni;
	mp_emit_fn emit;
	void *ctx;
	uint64_t now;
	uint64_t pending; /* non-timer events pending */
	uint64_t last_progress;
	int status;       /* sticky: saturated (keep going) */
	int trend_sat;
	int input_done;
	int failed;
	int watch;        /* failed, o.self_check or yield: one test per
			   * event */
	int yield;        /* issue 17: mp_fabric_yield asked to return */
	int gated;        /* balanced injection is on */
	int notify;       /* --retry notify */
	int util_asleep, check_asleep; /* timers stopped while idle */
	struct mp_fabric_counts c;
	uint64_t arrived_pkts;
	struct sample *samples;
	size_t nsamples, sample_stride, sample_skip;
	char err[512];
};

MP_PRINTF(2, 3)
static int fail(mp_fabric *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof f->err, fmt, ap);
	va_end(ap);
	f->failed = 1;
	f->watch = 1;
	return -1;
}

/* Offset of dst as seen from x (see mp_topo_offset), without division. */
static inline uint32_t offset(const mp_fabric *f, uint32_t x, uint32_t dst)
{
	if (f->rows == 1)
		return dst >= x ? dst - x : dst + f->n - x;
	int64_t r = (int64_t)f->row[dst] - f->row[x];
	int64_t c = (int64_t)f->col[dst] - f->col[x];
	/* issue 17: the offset space (orows x ocols) is larger than the
	 * grid for the mesh. */
	if (r < 0)
		r += f->orows;
	if (c < 0)
		c += f->ocols;
	return (uint32_t)r * f->ocols + (uint32_t)c;
}

void mp_fabric_defaults(const struct mp_cfg *cfg, struct mp_fabric_opts *o)
{
	uint64_t pe = (uint64_t)mp_cfg_pe_time(cfg);
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->util_interval = 256 * pe;
	o->check_interval = 16 * pe;
	o->deadlock_time = 1000 * (uint64_t)(cfg->packet_time + cfg->header_time +
					    cfg->inject_setup + cfg->eject_setup);
	o->max_backlog = 2000;
}

/* ------------------------------------------------------------------ */
/* Pools and lists                                                     */

/* Rings of the event queue, one per fixed delay. */
enum { R_HDR, R_REF, R_PKT, R_SETUP, R_EJ, R_IREF, NRINGS };

/* Schedule an event a fixed delay (ring) from now. */
static inline void push(mp_fabric *f, int ring, uint16_t type, uint32_t a,
			uint32_t b)
{
	f->pending++;
	if (mp_evq_push_ring(f->q, f->ring[ring], f->now, type, a, b) < 0)
		fail(f, "out of memory (event queue)");
}

/* Schedule an event at time t (timers and other irregular events). */
static void push_at(mp_fabric *f, uint64_t t, uint16_t type, uint32_t a,
		    uint32_t b)
{
	struct mp_ev ev = { t, a, b, type };
	if (type < EV_TIMER_UTIL)
		f->pending++;
	if (mp_evq_push(f->q, &ev) < 0)
		fail(f, "out of memory (event queue)");
}

/*
 * The arrays of packets (64 bytes each), their links, the channels and
 * the nodes (256) start on a cache line, so that a record spans as few
 * lines as it can: malloc() promises 16 bytes, and a large block, mapped
 * on its own, starts 16 bytes into its page, which put every packet
 * across two lines.
 * lines_grow: n records, the first `old` moved from a (freed), the rest
 * zeroed; NULL when out of memory (a untouched).
 */
#define LINE 64

static void *lines_grow(void *a, size_t old, size_t n, size_t size)
{
	void *p;
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t bytes = n * size, kept = old * size;
	if (posix_memalign(&p, LINE, bytes ? bytes : LINE) != 0)
		return NULL;
	if (kept)
		memcpy(p, a, kept);
	memset((char *)p + kept, 0, bytes - kept);
	free(a);
	return p;
}

/* Grow the packet pool (the first time, with its slot HELD_END). */
static int pkt_grow(mp_fabric *f)
{
	uint32_t cap = f->npkts ? f->npkts * 2 : 1024;
	struct pkt *p = lines_grow(f->pkts, f->npkts, cap, sizeof *p);
	if (!p)
		return fail(f, "out of memory (packets)");
	f->pkts = p;
	struct link *l = lines_grow(f->lk, f->npkts, cap, sizeof *l);
	if (!l)
		return fail(f, "out of memory (packets)");
	f->lk = l;
	if (f->npkts == 0) {
		memset(&p[HELD_END], 0, sizeof p[HELD_END]);
		memset(&l[HELD_END], 0, sizeof l[HELD_END]);
		l[HELD_END].cand = 0xff;
		f->npkts = HELD_END + 1;
	}
	for (uint32_t i = cap; i-- > f->npkts;) {
		p[i].live = 0;
		l[i].next = f->pkt_free;
		f->pkt_free = i;
	}
	f->npkts = cap;
	return 0;
}

static uint32_t pkt_alloc(mp_fabric *f)
{
	if (f->pkt_free == NIL && pkt_grow(f) < 0)
		return NIL;
	uint32_t i = f->pkt_free;
	f->pkt_free = f->lk[i].next;
	return i;
}

static void pkt_release(mp_fabric *f, uint32_t i)
{
	f->pkts[i].live = 0;
	f->lk[i].next = f->pkt_free;
	f->pkt_free = i;
}

static uint32_t msg_alloc(mp_fabric *f)
{
	if (f->msg_free == NIL) {
		uint32_t cap = f->nmsgs ? f->nmsgs * 2 : 1024;
		struct msg *m = realloc(f->msgs, (size_t)cap * sizeof *m);
		if (!m) {
			fail(f, "out of memory (messages)");
			return NIL;
		}
		f->msgs = m;
		for (uint32_t i = cap; i-- > f->nmsgs;) {
			m[i].next_free = f->msg_free;
			f->msg_free = i;
		}
		f->nmsgs = cap;
	}
	uint32_t i = f->msg_free;
	f->msg_free = f->msgs[i].next_free;
	return i;
}

/* The ports a waiting packet may take now: its best and no-farther
 * directions (or EJECT_BIT), less those refused under --retry notify. */
static inline uint8_t cands_of(const struct pkt *p)
{
	return (uint8_t)((p->best | p->nf) & ~p->blk);
}

/* Packet i waits at x, or its refusals changed: its candidates, and
 * x's summary of them (first_for). */
static inline void set_cands(mp_fabric *f, uint32_t x, uint32_t i)
{
	uint8_t c = cands_of(&f->pkts[i]);
	f->lk[i].cand = c;
	f->nodes[x].cand_any |= c;
}

/* What backpressure compares: the destination under --bp destination,
 * else the message slot. */
static inline uint32_t bp_key(const mp_fabric *f, uint32_t msg, uint32_t dst)
{
	return f->cfg.bp == MP_BP_DEST ? dst : msg;
}

/* Append packet i to node x's list of held (waiting) packets. */
static inline void hold_raw(mp_fabric *f, uint32_t x, uint32_t i)
{
	struct node *n = &f->nodes[x];
	struct link *l = &f->lk[i];
	l->next = HELD_END;
	l->prev = n->held_tail;
	if (n->held_tail == HELD_END)
		n->held_head = i;
	else
		f->lk[n->held_tail].next = i;
	n->held_tail = i;
}

static inline void unhold_raw(mp_fabric *f, uint32_t x, uint32_t i)
{
	struct node *n = &f->nodes[x];
	const struct link *l = &f->lk[i];
	if (l->prev == HELD_END)
		n->held_head = l->next;
	else
		f->lk[l->prev].next = l->next;
	if (l->next == HELD_END)
		n->held_tail = l->prev;
	else
		f->lk[l->next].prev = l->prev;
}

static void touch_left_(mp_fabric *f, uint32_t x, uint32_t i);
static void touch_wait_(mp_fabric *f, uint32_t x, unsigned mask);

/* Cheap guards: most nodes take part in no retry loop. */
static inline void touch_left(mp_fabric *f, uint32_t x, uint32_t i)
{
	if (f->nodes[x].in_loops | f->nodes[x].pe_loop)
		touch_left_(f, x, i);
}

static inline void touch_wait(mp_fabric *f, uint32_t x, unsigned mask)
{
	/* Only loops on the ports in mask are touched (see touch_wait_). */
	const struct node *n = &f->nodes[x];
	if (((n->out_loops | n->in_loops) & mask) ||
	    (n->pe_loop && (mask & EJECT_BIT)))
		touch_wait_(f, x, mask);
}

/* Packet i starts waiting at x: it competes for its candidate ports. */
static inline void hold(mp_fabric *f, uint32_t x, uint32_t i)
{
	hold_raw(f, x, i);
	touch_wait(f, x, f->pkts[i].best | f->pkts[i].nf);
}

/* Packet i stops waiting at x: backpressure at x may relent. */
static void unblock_(mp_fabric *f, uint32_t y, const struct pkt *q);
static inline void unblock(mp_fabric *f, uint32_t y, const struct pkt *q)
{
	const struct node *n = &f->nodes[y];
	if (n->inj_wait | n->blk_dirs[0] | n->blk_dirs[1] | n->blk_dirs[2])
		unblock_(f, y, q);
}

static inline void unhold(mp_fabric *f, uint32_t x, uint32_t i)
{
	unhold_raw(f, x, i);
	touch_left(f, x, i);
	if (f->notify)
		unblock(f, x, &f->pkts[i]);
}

/* ------------------------------------------------------------------ */
/* Ports                                                               */

static void port_start(struct port *pt, uint64_t now, int refusing)
{
	pt->busy = 1;
	pt->refusing = (uint8_t)refusing;
	pt->busy_start = now;
}

static void port_end(struct port *pt, uint64_t now)
{
	uint64_t d = now - pt->busy_start;
	pt->accum += d;
	if (pt->refusing) {
		pt->refused += d;
		pt->refusals++;
	} else {
		pt->xfers++;
	}
	pt->busy = 0;
}

/* Busy and refused time up to now, in-progress use included. */
static void port_sum(const struct port *pt, uint64_t now, uint64_t *busy,
		     uint64_t *refused)
{
	*busy += pt->accum;
	*refused += pt->refused;
	if (pt->busy) {
		*busy += now - pt->busy_start;
		if (pt->refusing)
			*refused += now - pt->busy_start;
	}
}

static uint64_t refusal_cost(unsigned setup, unsigned header)
{
	/* A refusal is learned when the header would have been routed;
	 * it costs at least one unit so a retry loop always advances. */
	uint64_t c = (uint64_t)setup + header;
	return c ? c : 1;
}

/* ------------------------------------------------------------------ */
/* Retry loops                                                         */

/*
 * A refused packet is offered again as soon as its channel is free, and
 * nothing else competes for the channel, so while nothing changes it is
 * refused every cost_ref units: under heavy load most events would be
 * such attempts. Instead, a refusal starts a retry loop that schedules
 * no event: the channel stays busy, and the loop is resolved when
 * something that could change the outcome happens at either end (a
 * packet held or released, a buffer freed, a message arriving at the
 * source) -- touch() below. Resolving counts the attempts that happened
 * in between and schedules the end of the one in progress, so the run
 * is what it would be with an event per attempt, but for the order of
 * events that fall at the same instant. --eager-retries turns it off.
 */

static void resolve_chan(mp_fabric *f, uint32_t c)
{
	struct chan *ch = &f->chans[c];
	uint64_t cost = f->cost_ref;
	uint64_t k = (f->now - ch->lp_t0) / cost;
	uint64_t s = ch->lp_t0 + k * cost;
	uint32_t x = ch->end_node[ch->cur];
	unsigned d = ch->end_dir[ch->cur];
	uint32_t y = f->nb[x * f->deg + d];

	if (k > 0 && s == f->now) {
		/* An attempt ends right now: the next one sees the change. */
		k--;
		s -= cost;
	}
	/* Attempts 1..k came after the first, counted when it started;
	 * attempts 0..k-1 are over. */
	f->pkts[ch->lp_pkt].refusals += (uint32_t)k;
	f->c.refusals += k;
	ch->p.accum += k * cost;
	ch->p.refused += k * cost;
	ch->p.refusals += k;
	ch->p.busy_start = s;
	ch->looping = 0;
	f->nodes[x].out_loops &= (uint8_t)~(1u << d);
	f->nodes[y].in_loops &= (uint8_t)~(1u << f->opp[d]);
	push_at(f, s + cost, EV_ATTEMPT_END, ch->lp_pkt, c);
}

static void resolve_pe(mp_fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	uint64_t cost = f->cost_iref, setup = f->cfg.inject_setup;
	uint64_t k = (f->now - n->pe_lp_t0) / cost;
	uint64_t s = n->pe_lp_t0 + k * cost;
	struct port *pt = &n->pe[0];

	n->pe_loop = 0;
	if (k > 0 && s == f->now) {
		/* Attempt k-1 ends now; the next one sees the change. */
		k--;
		s -= cost;
	} else if (k > 0 && s + setup >= f->now) {
		/* Attempt k is in its set-up: its decision is still to come. */
		f->c.refusals += k - 1;
		pt->accum += k * cost;
		pt->refused += k * cost;
		pt->refusals += k;
		pt->busy_start = s;
		pt->refusing = 0;
		n->att_start = s;
		push_at(f, s + setup, EV_INJ_DECIDE, x, 0);
		return;
	}
	/* Attempt k was refused (decided); it ends at s + cost. */
	f->c.refusals += k;
	pt->accum += k * cost;
	pt->refused += k * cost;
	pt->refusals += k;
	pt->busy_start = s;
	pt->refusing = 1;
	n->att_start = s;
	push_at(f, s + cost, EV_INJ_REFUSED, x, 0);
}

/* Whether a loop refused for `why` by its packet (msg, dst) ends when
 * packet q stops waiting at the refusing node. */
static int relents(int why, uint32_t msg, uint32_t dst, const struct pkt *q)
{
	return (why == WHY_BPMSG && q->msg == msg) ||
	       (why == WHY_BPDEST && q->dst == dst);
}

/* Node x freed a buffer: loops refused by x for lack of room end. */
static void touch_buf_(mp_fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	unsigned in = n->in_loops;
	while (in) {
		unsigned d = (unsigned)__builtin_ctz(in);
		in &= in - 1;
		uint32_t y = f->nb[x * f->deg + d];
		uint32_t c = f->chan_of[y * f->deg + f->opp[d]];
		if (f->chans[c].looping == WHY_FULL)
			resolve_chan(f, c);
	}
	if (n->pe_loop == WHY_FULL)
		resolve_pe(f, x);
}

static inline void touch_buf(mp_fabric *f, uint32_t x)
{
	if (f->nodes[x].in_loops | f->nodes[x].pe_loop)
		touch_buf_(f, x);
}

/* Packet i stopped waiting at x: loops it blocked by backpressure end. */
static void touch_left_(mp_fabric *f, uint32_t x, uint32_t i)
{
	struct node *n = &f->nodes[x];
	const struct pkt *q = &f->pkts[i];
	unsigned in = n->in_loops;
	while (in) {
		unsigned d = (unsigned)__builtin_ctz(in);
		in &= in - 1;
		uint32_t y = f->nb[x * f->deg + d];
		uint32_t c = f->chan_of[y * f->deg + f->opp[d]];
		const struct pkt *lp = &f->pkts[f->chans[c].lp_pkt];
		if (relents(f->chans[c].looping, lp->msg, lp->dst, q))
			resolve_chan(f, c);
	}
	if (n->pe_loop && relents(n->pe_loop, n->att_msg,
				  f->msgs[n->att_msg].dst, q))
		resolve_pe(f, x);
}

/*
 * A packet starts waiting at x for the directions in mask (EJECT_BIT
 * for the PE port): it competes with the loops on those ports.
 */
static void touch_wait_(mp_fabric *f, uint32_t x, unsigned mask)
{
	struct node *n = &f->nodes[x];
	unsigned out = n->out_loops & mask;
	unsigned in = f->cfg.full_duplex ? 0 : n->in_loops & mask;
	while (out) {
		unsigned d = (unsigned)__builtin_ctz(out);
		out &= out - 1;
		resolve_chan(f, f->chan_of[x * f->deg + d]);
	}
	while (in) {
		unsigned d = (unsigned)__builtin_ctz(in);
		in &= in - 1;
		resolve_chan(f, f->chan_of[x * f->deg + d]);
	}
	if (n->pe_loop && (mask & EJECT_BIT) && !f->cfg.pe_separate)
		resolve_pe(f, x);
}

/* ------------------------------------------------------------------ */
/* Retry on notification (--retry notify)                              */

static void arb_chan(mp_fabric *f, uint32_t c);
static void arb_pe(mp_fabric *f, uint32_t x);

/*
 * Each node counts the packets at its neighbours that it refused and
 * that wait for it to change, by direction and by the kind of change
 * that may let them pass: a freed buffer (BK_FULL), a waiting packet
 * moving on (BK_BP: refused by backpressure), or either (BK_ANY:
 * refused for several reasons). unblock_() then looks only at the
 * neighbours, and as far into their lists, as it has to.
 */
enum { BK_FULL, BK_BP, BK_ANY };

static inline unsigned blk_kind(unsigned why)
{
	return why == WHY_FULL ? BK_FULL : why == WHY_OK ? BK_ANY : BK_BP;
}

static inline uint32_t *blk_count(mp_fabric *f, uint32_t y, unsigned kind,
				  unsigned d)
{
	return &f->blk_cnt[((size_t)y * 3 + kind) * MP_TOPO_MAXDEG + d];
}

static inline void blk_add(mp_fabric *f, uint32_t y, unsigned kind,
			   unsigned d)
{
	++*blk_count(f, y, kind, d);
	f->nodes[y].blk_dirs[kind] |= (uint8_t)(1u << d);
}

static inline void blk_sub(mp_fabric *f, uint32_t y, unsigned kind,
			   unsigned d)
{
	if (--*blk_count(f, y, kind, d) == 0)
		f->nodes[y].blk_dirs[kind] &= (uint8_t)~(1u << d);
}

/* Packet p at x is refused by its neighbour in direction d, for why. */
static void block(mp_fabric *f, uint32_t x, struct pkt *p, unsigned d,
		  unsigned why)
{
	/* Refused for a second reason: any change may let it pass, so
	 * its other refusals count as that kind from now on. */
	unsigned old = p->blk_why, now = p->blk && old != why ? WHY_OK : why;
	if (p->blk && now != old) {
		unsigned m = p->blk;
		while (m) {
			unsigned e = (unsigned)__builtin_ctz(m);
			m &= m - 1;
			uint32_t y = f->nb[x * f->deg + e];
			blk_sub(f, y, blk_kind(old), f->opp[e]);
			blk_add(f, y, BK_ANY, f->opp[e]);
		}
	}
	p->blk_why = (uint8_t)now;
	p->blk |= (uint8_t)(1u << d);
	blk_add(f, f->nb[x * f->deg + d], blk_kind(now), f->opp[d]);
}

/* Packet i stops waiting at x with refused directions: forget them. */
static void drop_blocks(mp_fabric *f, uint32_t x, struct pkt *p)
{
	unsigned m = p->blk, kind = blk_kind(p->blk_why);
	while (m) {
		unsigned d = (unsigned)__builtin_ctz(m);
		m &= m - 1;
		blk_sub(f, f->nb[x * f->deg + d], kind, f->opp[d]);
	}
	p->blk = 0;
}

/*
 * Whether a refusal for `why` of a packet (msg, dst) may be over when
 * node y frees a buffer (moved 0) or its waiting packet of message qmsg
 * for qdst moves on (moved 1).
 */
static int may_pass(unsigned why, uint32_t msg, uint32_t dst, int moved,
		    uint32_t qmsg, uint32_t qdst)
{
	if (why == WHY_OK)
		return 1; /* refused for several reasons: any change counts */
	if (!moved)
		return why == WHY_FULL;
	return (why == WHY_BPMSG && qmsg == msg) ||
	       (why == WHY_BPDEST && qdst == dst);
}

/*
 * Node y freed a buffer (q NULL) or its waiting packet q moved on: the
 * packets y refused for that reason, and its own refused injection, may
 * try again.
 */
static void unblock_(mp_fabric *f, uint32_t y, const struct pkt *q)
{
	struct node *ny = &f->nodes[y];
	/* q's fields, not q: the arbitration below may grow the pool. */
	int moved = q != NULL;
	uint32_t qmsg = q ? q->msg : 0, qdst = q ? q->dst : 0;
	if (ny->inj_wait) {
		const struct msg *m = &f->msgs[ny->att_msg];
		if (may_pass(ny->inj_wait, ny->att_msg, m->dst, moved, qmsg,
			     qdst)) {
			ny->inj_wait = 0;
			arb_pe(f, y);
		}
	}
	/* The kinds of refusal this change may end; directions in order,
	 * and since the arbitration below may change which have refused
	 * packets, the next is found afresh each time. */
	unsigned k1 = moved ? BK_BP : BK_FULL;
	unsigned d = 0;
	for (unsigned dirs = ny->blk_dirs[k1] | ny->blk_dirs[BK_ANY]; dirs;
	     dirs = (ny->blk_dirs[k1] | ny->blk_dirs[BK_ANY]) &
		    ~((2u << d) - 1)) {
		d = (unsigned)__builtin_ctz(dirs);
		/* Only the packets at x that y refused for such a reason
		 * are looked at; the scan ends after the last of them. */
		uint32_t left = *blk_count(f, y, k1, d) +
				*blk_count(f, y, BK_ANY, d);
		uint32_t x = f->nb[y * f->deg + d];
		unsigned bit = 1u << f->opp[d];
		int any = 0;
		for (uint32_t i = f->nodes[x].held_head; left && i != HELD_END;
		     i = f->lk[i].next) {
			struct pkt *p = &f->pkts[i];
			if (!(p->blk & bit))
				continue;
			unsigned kind = blk_kind(p->blk_why);
			if (kind != k1 && kind != BK_ANY)
				continue;
			left--;
			if (may_pass(p->blk_why, p->msg, p->dst, moved, qmsg,
				     qdst)) {
				p->blk &= (uint8_t)~bit;
				if (p->state == P_WAITING)
					set_cands(f, x, i);
				blk_sub(f, y, kind, d);
				any = 1;
			}
		}
		if (any)
			arb_chan(f, f->chan_of[x * f->deg + f->opp[d]]);
	}
}

/* ------------------------------------------------------------------ */
/* Admission                                                           */

/*
 * Whether node y accepts a packet of message slot m for dst that will
 * have at most q hops to go after arriving (q 0 without the hop-count
 * rule): WHY_OK, or why not.
 */
static inline int admit(const mp_fabric *f, uint32_t y, uint32_t m,
			uint32_t dst, unsigned q)
{
	const struct node *n = &f->nodes[y];
	/* No free buffer (q 0), or the hop-count rule (a forward-count
	 * controller): a packet with q hops to go needs more than q free
	 * buffers, so packets nearer their destination always find room
	 * and no cycle of waits can form. used never exceeds buffers. */
	if (f->cfg.buffers - n->used <= q)
		return WHY_FULL;
	if (f->cfg.bp != MP_BP_NONE) {
		uint32_t key = bp_key(f, m, dst);
		for (uint32_t i = n->held_head; i != HELD_END;
		     i = f->lk[i].next)
			if (f->lk[i].key == key)
				return f->cfg.bp == MP_BP_DEST ? WHY_BPDEST :
								 WHY_BPMSG;
	}
	return WHY_OK;
}

/* ------------------------------------------------------------------ */
/* Moving packets                                                      */

static void arb_pe(mp_fabric *f, uint32_t x);
static void inj_decide(mp_fabric *f, uint32_t x);
static inline uint32_t first_for(mp_fabric *f, uint32_t x, unsigned bit);
static inline uint32_t first_from(const mp_fabric *f, uint32_t i,
				  unsigned bit);

/* A first_for() result not computed yet (never a packet number). */
#define UNKNOWN (UINT32_MAX - 1)

/*
 * Offer packet i, held or routed at x, to the channel of direction d.
 * What the caller already knows saves list scans on a refusal: `from`
 * is where other packets at x that may take d can start in x's held
 * list (UNKNOWN: its head), and `oth` is the first packet waiting at
 * the channel's other end (HELD_END: none; UNKNOWN: not known).
 */
static void start_xfer(mp_fabric *f, uint32_t x, uint32_t i, unsigned d,
		       uint32_t from, uint32_t oth)
{
	struct pkt *p = &f->pkts[i];
	uint32_t c = f->chan_of[x * f->deg + d];
	struct chan *ch = &f->chans[c];
	uint32_t y = f->nb[x * f->deg + d];
	unsigned a_after = p->a ? p->a - 1u : 0u;
	int in_list = p->state == P_WAITING || p->state == P_ATTEMPT;

	f->lk[i].cand = 0; /* moving on, or attempting: no longer a candidate */

	ch->cur = (ch->end_node[0] == x && ch->end_dir[0] == d) ? 0 : 1;
	/* The offset of its destination from y: the hop-count rule needs
	 * it before, for the hops the packet may still take (distance plus
	 * deroutes), route() after a transfer; most offers are refused. */
	uint32_t off = NIL;
	unsigned q = 0;
	if (f->cfg.deadlock == MP_DL_HOPCOUNT) {
		off = offset(f, y, p->dst);
		q = (f->rt[off] & 0xff) + a_after;
	}
	int why = admit(f, y, p->msg, p->dst, q);
	if (why == WHY_OK) {
		port_start(&ch->p, f->now, 0);
		if (p->blk)
			drop_blocks(f, x, p);
		if (!(p->best >> d & 1))
			p->deroutes++;
		p->state = P_ROUTING;
		p->node = y;
		p->off = off != NIL ? off : offset(f, y, p->dst);
		p->hops++;
		p->a = (uint8_t)a_after;
		f->nodes[y].used++;
		if (p->dst == y)
			f->nodes[y].dest++;
		if (f->gated && f->nodes[y].pe_loop)
			resolve_pe(f, y); /* the gate may have closed */
		f->c.hops++;
		f->last_progress = f->now;
		push(f, R_HDR, EV_ROUTE, i, 0);
		push(f, R_PKT, EV_XFER_END, i, c);
		/* Last: leaving x's waiting list may start other transfers. */
		if (in_list)
			unhold(f, x, i);
	} else {
		port_start(&ch->p, f->now, 1);
		if (!in_list)
			hold_raw(f, x, i); /* attempting: not a contender */
		p->state = P_ATTEMPT;
		p->refusals++;
		f->c.refusals++;
		if (f->notify) {
			/* Not offered to y again until what refused it at y
			 * changes (a change during this attempt counts). */
			block(f, x, p, d, (unsigned)why);
		}
		int alone = 0;
		if (f->loops) {
			alone = (from == UNKNOWN ? first_for(f, x, 1u << d) :
				 first_from(f, from, 1u << d)) == HELD_END;
		}
		if (alone && !f->cfg.full_duplex) {
			/* Packet i no longer counts (cand 0), even when it
			 * was found as the other end's too (y == x). */
			if (oth == UNKNOWN || oth == i)
				oth = first_for(f, y, 1u << f->opp[d]);
			alone = oth == HELD_END;
		}
		if (alone) {
			/* Nothing else waits for this channel: retry without
			 * events until something changes. */
			ch->looping = (uint8_t)why;
			ch->lp_pkt = i;
			ch->lp_t0 = f->now;
			f->nodes[x].out_loops |= (uint8_t)(1u << d);
			f->nodes[y].in_loops |= (uint8_t)(1u << f->opp[d]);
		} else {
			push(f, R_REF, EV_ATTEMPT_END, i, c);
		}
	}
}

/*
 * Offer packet i at x to a free channel among its candidates: best
 * directions first, then no-farther ones, a random one of the free when
 * there are several. Returns 1 when an offer was made.
 */
static inline int try_free(mp_fabric *f, uint32_t x, uint32_t i)
{
	const struct pkt *p = &f->pkts[i];
	const uint32_t *co = f->chan_of + (size_t)x * f->deg;
	for (int pass = 0; pass < 2; pass++) {
		unsigned mask = pass == 0 ? p->best : p->nf;
		unsigned freed[MP_TOPO_MAXDEG], k = 0;
		mask &= 0x7fu & ~(unsigned)p->blk;
		while (mask) {
			unsigned d = (unsigned)__builtin_ctz(mask);
			mask &= mask - 1;
			if (!f->chans[co[d]].p.busy)
				freed[k++] = d;
		}
		if (k) {
			unsigned d = freed[k == 1 ? 0 :
					   mp_rng_below(&f->nodes[x].rng, k)];
			start_xfer(f, x, i, d, UNKNOWN, UNKNOWN);
			return 1;
		}
	}
	return 0;
}

/* First waiting packet from i on in its held list that may use bit, or
 * HELD_END. */
static inline uint32_t first_from(const mp_fabric *f, uint32_t i,
				  unsigned bit)
{
	/* By pointer: the step is then a load, a shift and an add. */
	const struct link *l = &f->lk[i];
	while (!(l->cand & bit))
		l = &f->lk[l->next];
	return (uint32_t)(l - f->lk);
}

/* First waiting packet at x that may use direction d (or eject), or
 * HELD_END. */
static inline uint32_t first_for(mp_fabric *f, uint32_t x, unsigned bit)
{
	struct node *n = &f->nodes[x];
	if (!(n->cand_any & bit))
		return HELD_END;
	uint32_t i = first_from(f, n->held_head, bit);
	if (i == HELD_END)
		n->cand_any &= (uint8_t)~bit;
	return i;
}

/* A channel is free: give it to a waiting packet at one of its ends. */
static void arb_chan(mp_fabric *f, uint32_t c)
{
	struct chan *ch = &f->chans[c];
	if (ch->p.busy)
		return;
	uint32_t e0 = first_for(f, ch->end_node[0], 1u << ch->end_dir[0]);
	uint32_t e1;
	int end;
	if (f->cfg.full_duplex)
		e1 = HELD_END;
	else if (e0 != HELD_END && ch->p.last != 0)
		e1 = UNKNOWN; /* end 0 goes whatever waits at end 1 */
	else
		e1 = first_for(f, ch->end_node[1], 1u << ch->end_dir[1]);
	if (e0 != HELD_END && e1 != HELD_END)
		end = ch->p.last == 0 ? 1 : 0; /* alternate directions */
	else if (e0 != HELD_END)
		end = 0;
	else if (e1 != HELD_END)
		end = 1;
	else
		return;
	/* The packets ahead of the chosen one may not take this channel. */
	uint32_t i = end ? e1 : e0;
	start_xfer(f, ch->end_node[end], i, ch->end_dir[end], f->lk[i].next,
		   end ? e0 : e1);
}

/* Routing decision for packet i at its node. */
static void route(mp_fabric *f, uint32_t i)
{
	struct pkt *p = &f->pkts[i];
	uint32_t x = p->node;
	uint32_t off = p->off;
	uint32_t rt = f->rt[off];

	if (off == 0) {
		p->best = EJECT_BIT;
		p->nf = 0;
		p->state = P_WAITING;
		set_cands(f, x, i);
		hold(f, x, i);
		arb_pe(f, x);
		return;
	}
	switch (p->rt) {
	case MP_RT_DET:
		p->best = (uint8_t)(1u << (rt >> 24));
		p->nf = 0;
		break;
	case MP_RT_BEST:
		p->best = (uint8_t)(rt >> 8);
		p->nf = 0;
		break;
	default:
		p->best = (uint8_t)(rt >> 8);
		p->nf = p->a ? (uint8_t)(rt >> 16) : 0;
		break;
	}
	/* Still P_ROUTING here: start_xfer must not unlink it from a list. */
	if (!try_free(f, x, i)) {
		p->state = P_WAITING;
		set_cands(f, x, i);
		hold(f, x, i);
	}
}

/* ------------------------------------------------------------------ */
/* PE ports                                                            */

/* Whether balanced injection lets node x inject now. */
static int gate_open(const mp_fabric *f, const struct node *n)
{
	const struct mp_cfg *c = &f->cfg;
	if (c->buffer_limit && n->used >= c->buffer_limit)
		return 0;
	if (c->buffer_limit_dest && n->dest >= c->buffer_limit_dest)
		return 0;
	if (c->buffer_limit_trans && n->used - n->dest >= c->buffer_limit_trans)
		return 0;
	return 1;
}

static int can_inject(mp_fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	if (mp_ni_head(f->ni, x) == MP_NI_NONE || n->inj_wait)
		return 0;
	if (n->force || gate_open(f, n)) {
		n->blocked = 0;
		return 1;
	}
	if (!n->blocked) {
		n->blocked = 1;
		n->blocked_since = f->now;
	}
	if (f->cfg.inject_timeout && !n->timer_pending) {
		n->timer_pending = 1;
		push_at(f, n->blocked_since + f->cfg.inject_timeout,
			EV_INJ_TIMEOUT, x, 0);
	}
	return 0;
}

static void start_inject(mp_fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	n->force = 0;
	n->att_msg = mp_ni_head(f->ni, x);
	n->att_start = f->now;
	port_start(&n->pe[0], f->now, 0);
	n->pe[0].last = USE_INJ;
	if (f->cfg.inject_setup)
		push(f, R_SETUP, EV_INJ_DECIDE, x, 0);
	else
		inj_decide(f, x);
}

static void start_eject(mp_fabric *f, uint32_t x, uint32_t i, int which)
{
	struct node *n = &f->nodes[x];
	struct pkt *p = &f->pkts[i];
	p->state = P_MOVING;
	f->lk[i].cand = 0;
	p->pe = (uint8_t)which;
	port_start(&n->pe[which], f->now, 0);
	n->pe[which].last = USE_EJ;
	push(f, R_EJ, EV_EJ_END, i, 0);
	unhold(f, x, i); /* last: it may start other transfers */
}

/* The PE port of x may be free: start an ejection or an injection. */
static void arb_pe(mp_fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	const struct mp_cfg *c = &f->cfg;

	if (c->pe_separate) {
		if (!n->pe[1].busy) {
			uint32_t e = first_for(f, x, EJECT_BIT);
			if (e != HELD_END)
				start_eject(f, x, e, 1);
		}
		if (!n->pe[0].busy && can_inject(f, x))
			start_inject(f, x);
		return;
	}
	if (n->pe[0].busy)
		return;
	uint32_t e = first_for(f, x, EJECT_BIT);
	int inj = can_inject(f, x);
	if (e == HELD_END && !inj)
		return;
	int eject;
	if (e == HELD_END)
		eject = 0;
	else if (!inj)
		eject = 1;
	else if (c->eject_priority && c->buffer_limit_dest &&
		 n->dest >= c->buffer_limit_dest && !n->force)
		eject = 1; /* a timed-out source still gets its one attempt */
	else if (c->pe_arb == MP_PE_INJECT_FIRST)
		eject = 0;
	else if (c->pe_arb == MP_PE_EJECT_FIRST)
		eject = 1;
	else
		eject = n->pe[0].last == USE_INJ; /* fair: alternate */
	if (eject)
		start_eject(f, x, e, 0);
	else
		start_inject(f, x);
}

/* Injection set-up over: node x accepts the packet or refuses it. */
static void inj_decide(mp_fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	uint32_t mi = n->att_msg;
	struct msg *m = &f->msgs[mi];
	uint32_t off = offset(f, x, m->dst);
	unsigned d = f->rt[off] & 0xff;
	unsigned a0 = m->rt == MP_RT_DEROUTE && d > 0 ? d - 1 : 0;

	int why = admit(f, x, mi, m->dst,
			f->cfg.deadlock == MP_DL_HOPCOUNT ? d + a0 : 0);
	if (why != WHY_OK) {
		n->pe[0].refusing = 1;
		f->c.refusals++;
		/* Retry without events while the PE port would go on
		 * retrying this message: the gate is open, no ejection is
		 * waiting, and it is still the head of the job list (one
		 * that arrived during this attempt's set-up is chosen at
		 * the next attempt, not after the loop). */
		if (f->notify)
			n->inj_wait = (uint8_t)why; /* until that changes here */
		if (f->loops && mp_ni_head(f->ni, x) == mi && gate_open(f, n) &&
		    (f->cfg.pe_separate ||
		     first_for(f, x, EJECT_BIT) == HELD_END)) {
			n->pe_loop = (uint8_t)why;
			n->pe_lp_t0 = n->att_start;
		} else {
			push(f, R_IREF, EV_INJ_REFUSED, x, 0);
		}
		return;
	}
	uint32_t i = pkt_alloc(f);
	if (i == NIL)
		return;
	struct pkt *p = &f->pkts[i];
	memset(p, 0, sizeof *p);
	p->msg = mi;
	p->dst = m->dst;
	p->node = x;
	p->off = off;
	p->seq = m->sent;
	p->t_inject = n->att_start;
	p->a = (uint8_t)(a0 > 255 ? 255 : a0);
	p->rt = m->rt;
	p->state = P_ROUTING;
	p->live = 1;
	f->lk[i] = (struct link){
		.prev = NIL, .next = NIL,
		.key = bp_key(f, mi, m->dst),
	};
	if (m->sent == 0)
		m->t_first = n->att_start;
	m->sent++;
	mp_ni_accepted(f->ni, x, mi, m->packets - m->sent);
	n->used++;
	f->c.pkts_injected++;
	f->c.pkts_queued--;
	f->last_progress = f->now;
	push(f, R_HDR, EV_ROUTE, i, 0);
	push(f, R_PKT, EV_INJ_END, x, 0);
}

static int emit(mp_fabric *f, const mp_rec *r)
{
	if (f->emit(f->ctx, r) < 0)
		return fail(f, "output failed");
	return 0;
}

static void ej_end(mp_fabric *f, uint32_t i)
{
	struct pkt *p = &f->pkts[i];
	uint32_t x = p->node;
	struct node *n = &f->nodes[x];
	struct msg *m = &f->msgs[p->msg];
	mp_rec r;

	port_end(&n->pe[p->pe], f->now);
	n->used--;
	n->dest--;
	touch_buf(f, x);
	if (f->notify)
		unblock(f, x, NULL);
	f->c.pkts_delivered++;
	f->last_progress = f->now;
	m->delivered++;
	m->hops += p->hops;
	/* The writers read a record's own fields (or its bytes up to its
	 * size): setting the member, padding-free, is enough, with no
	 * clearing of the whole union first. */
	if (!f->o.no_packets) {
		r.pkt = (struct mp_pkt){
			.tag = MP_REC_PKT,
			.cls = m->cls,
			.group = m->group,
			.flags = p->deroutes ? 1 : 0,
			.src = m->src,
			.dst = m->dst,
			.seq = p->seq,
			.msg = m->id,
			.t_inject = p->t_inject,
			.t_eject = f->now,
			.hops = p->hops,
			.deroutes = p->deroutes,
			.refusals = p->refusals,
		};
		emit(f, &r);
	}
	pkt_release(f, i);
	if (m->delivered == m->packets) {
		r.dlv = (struct mp_dlv){
			.tag = MP_REC_DLV,
			.cls = m->cls,
			.group = m->group,
			.src = m->src,
			.dst = m->dst,
			.packets = m->packets,
			.id = m->id,
			.t_arrive = m->t_arrive,
			.t_first = m->t_first,
			.t_done = f->now,
			.bytes = m->bytes,
			.hops = m->hops,
		};
		emit(f, &r);
		f->c.msgs_done++;
		m->next_free = f->msg_free;
		f->msg_free = p->msg;
	}
	arb_pe(f, x);
}

/* ------------------------------------------------------------------ */
/* Timers                                                              */

static void util_snapshot(mp_fabric *f, int scope, uint64_t t)
{
	mp_rec r;
	memset(&r, 0, sizeof r);
	r.util.tag = MP_REC_UTIL;
	r.util.scope = (uint8_t)scope;
	r.util.node = UINT32_MAX;
	r.util.t = t;
	if (scope == MP_UTIL_PE || scope == MP_UTIL_PE_INPUT_END) {
		int k = f->cfg.pe_separate ? 2 : 1;
		for (uint32_t x = 0; x < f->n; x++)
			for (int w = 0; w < k; w++) {
				const struct port *pt = &f->nodes[x].pe[w];
				port_sum(pt, t, &r.util.busy, &r.util.refused);
				r.util.transfers += pt->xfers;
				r.util.refusals += pt->refusals;
			}
		r.util.nports = f->n * (uint32_t)k;
	} else {
		for (uint32_t c = 0; c < f->nchans; c++) {
			const struct port *pt = &f->chans[c].p;
			port_sum(pt, t, &r.util.busy, &r.util.refused);
			r.util.transfers += pt->xfers;
			r.util.refusals += pt->refusals;
		}
		r.util.nports = f->nchans;
	}
	emit(f, &r);
}

static void take_sample(mp_fabric *f)
{
	/* Keep at most 1024 samples: when full, drop every other one and
	 * sample half as often. */
	if (f->sample_skip++ % f->sample_stride)
		return;
	if (f->nsamples == 1024) {
		for (size_t i = 0; i < 512; i++)
			f->samples[i] = f->samples[2 * i];
		f->nsamples = 512;
		f->sample_stride *= 2;
	}
	struct sample s = { f->now, f->c.pkts_queued, f->arrived_pkts };
	f->samples[f->nsamples++] = s;
}

/* Returns a run status other than OK when the run must stop. */
static int check(mp_fabric *f)
{
	if (!f->input_done)
		take_sample(f);
	if (f->c.pkts_queued > f->o.max_backlog * f->n) {
		if (!f->o.keep_going) {
			snprintf(f->err, sizeof f->err,
				 "saturated at time %llu: %llu packets queued at "
				 "sources (more than %llu per node)",
				 (unsigned long long)f->now,
				 (unsigned long long)f->c.pkts_queued,
				 (unsigned long long)f->o.max_backlog);
			return MP_FAB_SATURATED;
		}
		f->status = MP_FAB_SATURATED;
	}
	if (f->c.pkts_injected > f->c.pkts_delivered &&
	    f->now - f->last_progress >= f->o.deadlock_time) {
		snprintf(f->err, sizeof f->err,
			 "deadlock at time %llu: no packet moved for %llu units "
			 "with %llu packets in the fabric",
			 (unsigned long long)f->now,
			 (unsigned long long)(f->now - f->last_progress),
			 (unsigned long long)(f->c.pkts_injected -
					      f->c.pkts_delivered));
		return MP_FAB_DEADLOCK;
	}
	return MP_FAB_OK;
}

/* ------------------------------------------------------------------ */
/* Interface                                                           */

mp_fabric *mp_fabric_new(const struct mp_cfg *cfg,
			 const struct mp_ni_policy *pol,
			 const struct mp_fabric_opts *opts, mp_emit_fn emitfn,
			 void *ctx, mp_err *err)
{
	char spec[64];
	if (mp_cfg_check(cfg, err) < 0)
		return NULL;
	mp_fabric *f = calloc(1, sizeof *f);
	if (!f) {
		mp_err_set(err, "out of memory");
		return NULL;
	}
	f->cfg = *cfg;
	f->o = *opts;
	f->emit = emitfn;
	f->ctx = ctx;
	f->pkt_free = f->msg_free = NIL;
	f->gated = cfg->buffer_limit || cfg->buffer_limit_dest ||
		   cfg->buffer_limit_trans;
	f->notify = cfg->retry == MP_RETRY_NOTIFY;
	f->loops = !opts->eager_retries && !f->notify;
	f->cost_ref = refusal_cost(0, cfg->header_time);
	f->cost_iref = refusal_cost(cfg->inject_setup, cfg->header_time);
	mp_cfg_topo(cfg, spec, sizeof spec);
	f->topo = mp_topo_new(spec, err);
	if (!f->topo)
		goto fail;
	f->n = mp_topo_nodes(f->topo);
	f->deg = mp_topo_degree(f->topo);
	for (unsigned d = 0; d < f->deg; d++)
		f->opp[d] = (uint8_t)mp_topo_opposite(f->topo, d);
	if (cfg->deadlock == MP_DL_HOPCOUNT) {
		unsigned D = mp_topo_diameter(f->topo);
		unsigned need = cfg->route == MP_RT_DEROUTE ? 2 * D : D + 1;
		if (cfg->buffers < need) {
			mp_err_set(err, "--deadlock hop-count needs at least %u "
					"buffers on %s with %s routing", need, spec,
				   mp_route_name(cfg->route));
			goto fail;
		}
	}
	f->rows = mp_topo_rows(f->topo);
	f->cols = mp_topo_cols(f->topo);
	/* issue 17: tables by offset (more offsets than nodes: mesh). */
	uint32_t noff = mp_topo_offsets(f->topo);
	f->orows = noff == f->n ? f->rows : 2 * f->rows - 1;
	f->ocols = noff == f->n ? f->cols : 2 * f->cols - 1;
	f->rt = malloc((size_t)noff * sizeof *f->rt);
	f->row = malloc((size_t)f->n * sizeof *f->row);
	f->col = malloc((size_t)f->n * sizeof *f->col);
	if (!f->rt || !f->row || !f->col) {
		mp_err_set(err, "out of memory");
		goto fail;
	}
	/* The topology's tables by offset, packed into one word each. */
	const uint8_t *dist = mp_topo_dist_table(f->topo);
	const uint8_t *best = mp_topo_best_table(f->topo);
	const uint8_t *nf = mp_topo_nofarther_table(f->topo);
	const uint8_t *det = mp_topo_det_table(f->topo);
	for (uint32_t x = 0; x < f->n; x++) {
		unsigned r, c;
		mp_topo_coords(f->topo, x, &r, &c);
		f->row[x] = r;
		f->col[x] = c;
	}
	for (uint32_t x = 0; x < noff; x++)
		f->rt[x] = (uint32_t)dist[x] | (uint32_t)best[x] << 8 |
			   (uint32_t)nf[x] << 16 | (uint32_t)det[x] << 24;
	size_t nd = (size_t)f->n * f->deg;
	f->nb = malloc(nd * sizeof *f->nb);
	f->chan_of = malloc(nd * sizeof *f->chan_of);
	f->chans = lines_grow(NULL, 0, nd, sizeof *f->chans);
	f->nodes = lines_grow(NULL, 0, f->n, sizeof *f->nodes);
	f->blk_cnt = calloc((size_t)f->n * 3 * MP_TOPO_MAXDEG,
			    sizeof *f->blk_cnt);
	f->watch = f->o.self_check;
	if (f->o.self_check)
		f->chk = malloc((size_t)f->n * (3 + 3 * MP_TOPO_MAXDEG) *
				sizeof *f->chk);
	f->samples = malloc(1024 * sizeof *f->samples);
	f->sample_stride = 1;
	f->q = mp_evq_new();
	if (f->q) {
		uint64_t hdr = cfg->header_time, setup = cfg->inject_setup;
		uint64_t delays[NRINGS] = {
			[R_HDR] = hdr,
			[R_REF] = refusal_cost(0, cfg->header_time),
			[R_PKT] = cfg->packet_time,
			[R_SETUP] = setup,
			[R_EJ] = (uint64_t)cfg->eject_setup + cfg->packet_time,
			[R_IREF] = refusal_cost(cfg->inject_setup,
						cfg->header_time) - setup,
		};
		/* Without an injection set-up its ring would stay empty
		 * and only lengthen every pop (start_inject never uses it;
		 * rings made later keep their order). */
		for (int k = 0; k < NRINGS; k++)
			f->ring[k] = k == R_SETUP && !setup ? -1 :
				     mp_evq_ring(f->q, delays[k]);
	}
	f->ni = mp_ni_new(f->n, pol);
	if (!f->nb || !f->chan_of || !f->chans || !f->nodes || !f->q || !f->ni ||
	    !f->samples || !f->blk_cnt || (f->o.self_check && !f->chk)) {
		mp_err_set(err, "out of memory");
		goto fail;
	}
	for (uint32_t x = 0; x < f->n; x++)
		for (unsigned d = 0; d < f->deg; d++) {
			f->nb[x * f->deg + d] = mp_topo_neighbor(f->topo, x, d);
			f->chan_of[x * f->deg + d] = NIL;
		}
	/* Channels: a half-duplex link is one channel for both ends. */
	for (uint32_t x = 0; x < f->n; x++)
		for (unsigned d = 0; d < f->deg; d++) {
			if (f->chan_of[x * f->deg + d] != NIL)
				continue;
			uint32_t c = f->nchans++;
			struct chan *ch = &f->chans[c];
			ch->end_node[0] = x;
			ch->end_dir[0] = (uint8_t)d;
			f->chan_of[x * f->deg + d] = c;
			if (!cfg->full_duplex) {
				uint32_t y = f->nb[x * f->deg + d];
				unsigned e = mp_topo_opposite(f->topo, d);
				ch->end_node[1] = y;
				ch->end_dir[1] = (uint8_t)e;
				f->chan_of[y * f->deg + e] = c;
			}
		}
	for (uint32_t x = 0; x < f->n; x++) {
		struct node *n = &f->nodes[x];
		n->held_head = n->held_tail = HELD_END;
		n->pe[0].last = USE_EJ; /* so the first choice is injection */
		n->pe[1].last = USE_INJ;
		mp_rng_seed(&n->rng, f->o.seed, x);
	}
	pkt_grow(f); /* the lists' end is needed from the start */
	if (f->o.util_interval)
		push_at(f, f->o.util_interval, EV_TIMER_UTIL, 0, 0);
	if (f->o.check_interval)
		push_at(f, f->o.check_interval, EV_TIMER_CHECK, 0, 0);
	if (f->failed) {
		mp_err_set(err, "%s", f->err);
		goto fail;
	}
	return f;
fail:
	mp_fabric_free(f);
	return NULL;
}

void mp_fabric_free(mp_fabric *f)
{
	if (!f)
		return;
	mp_topo_free(f->topo);
	free(f->rt);
	free(f->row);
	free(f->col);
	free(f->nb);
	free(f->chan_of);
	free(f->chans);
	free(f->nodes);
	free(f->blk_cnt);
	free(f->chk);
	free(f->pkts);
	free(f->lk);
	free(f->msgs);
	free(f->samples);
	mp_evq_free(f->q);
	mp_ni_free(f->ni);
	free(f);
}

uint32_t mp_fabric_nodes(const mp_fabric *f)
{
	return f->n;
}

uint64_t mp_fabric_now(const mp_fabric *f)
{
	return f->now;
}

int mp_fabric_busy(const mp_fabric *f)
{
	return f->pending > 0 || f->c.pkts_queued > 0 ||
	       f->c.pkts_injected > f->c.pkts_delivered;
}

int mp_fabric_add(mp_fabric *f, const struct mp_msg *in)
{
	if (in->time < f->now)
		return fail(f, "message %llu arrives at %llu, before the current "
			       "time %llu", (unsigned long long)in->id,
			    (unsigned long long)in->time,
			    (unsigned long long)f->now);
	if (in->src >= f->n || in->dst >= f->n)
		return fail(f, "message %llu: node out of range (%u nodes)",
			    (unsigned long long)in->id, f->n);
	uint32_t mi = msg_alloc(f);
	if (mi == NIL)
		return -1;
	struct msg *m = &f->msgs[mi];
	memset(m, 0, sizeof *m);
	m->id = in->id;
	m->t_arrive = in->time;
	m->src = in->src;
	m->dst = in->dst;
	m->packets = in->packets;
	m->bytes = in->bytes;
	m->cls = in->cls;
	m->group = in->group;
	m->rt = in->route == MP_ROUTE_DET ? MP_RT_DET :
		in->route == MP_ROUTE_ADAPTIVE ? MP_RT_BEST : (uint8_t)f->cfg.route;
	f->now = in->time;
	if (f->util_asleep) {
		uint64_t iv = f->o.util_interval;
		f->util_asleep = 0;
		push_at(f, (f->now / iv + 1) * iv, EV_TIMER_UTIL, 0, 0);
	}
	if (f->check_asleep) {
		uint64_t iv = f->o.check_interval;
		f->check_asleep = 0;
		push_at(f, (f->now / iv + 1) * iv, EV_TIMER_CHECK, 0, 0);
	}
	f->c.msgs_in++;
	f->c.pkts_queued += in->packets;
	f->arrived_pkts += in->packets;
	if (mp_ni_add(f->ni, in->src, mi, in->packets,
		      in->tag == MP_REC_INJ ? in->prio : 0) < 0)
		return fail(f, "out of memory (job lists)");
	if (f->nodes[in->src].pe_loop)
		resolve_pe(f, in->src); /* the job list's head may change */
	f->nodes[in->src].inj_wait = 0;
	arb_pe(f, in->src);
	return f->failed ? -1 : 0;
}

/* issue 17: closed-loop replay (lib/mp_deps.c) drives these two. */
void mp_fabric_yield(mp_fabric *f)
{
	f->yield = 1;
	f->watch = 1;
}

int mp_fabric_local(mp_fabric *f, const struct mp_msg *in)
{
	if (in->time < f->now)
		return fail(f, "message %llu arrives at %llu, before the current "
			       "time %llu", (unsigned long long)in->id,
			    (unsigned long long)in->time,
			    (unsigned long long)f->now);
	if (in->src >= f->n || in->dst >= f->n)
		return fail(f, "message %llu: node out of range (%u nodes)",
			    (unsigned long long)in->id, f->n);
	f->now = in->time;
	f->c.msgs_in++;
	f->c.msgs_done++;
	mp_rec r;
	r.dlv = (struct mp_dlv){
		.tag = MP_REC_DLV,
		.cls = in->cls,
		.group = in->group,
		.src = in->src,
		.dst = in->dst,
		.packets = in->packets,
		.id = in->id,
		.t_arrive = in->time,
		.t_first = in->time,
		.t_done = in->time,
		.bytes = in->bytes,
	};
	return emit(f, &r);
}

int mp_fabric_offer(mp_fabric *f, const struct mp_msg *m)
{
	int st = mp_fabric_run(f, m->time);
	if (st != MP_FAB_OK)
		return st;
	return mp_fabric_add(f, m) < 0 ? MP_FAB_ERROR : MP_FAB_OK;
}

void mp_fabric_input_done(mp_fabric *f)
{
	f->input_done = 1;
	/* Mark the end of the input in the output: what lstat measures as
	 * accepted throughput ends here, before the drain. */
	util_snapshot(f, MP_UTIL_PE_INPUT_END, f->now);
	util_snapshot(f, MP_UTIL_INTERNAL_INPUT_END, f->now);
	/* Trend check: compare the backlog at the end of the input with
	 * the backlog halfway through; queues that grew by more than 5% of
	 * the packets offered meanwhile (and by more than 2 packets per
	 * node) are growing without bound. */
	if (f->nsamples < 4)
		return;
	uint64_t t_mid = f->now / 2;
	size_t k = 0;
	while (k < f->nsamples && f->samples[k].t < t_mid)
		k++;
	if (k >= f->nsamples)
		return;
	const struct sample *s = &f->samples[k];
	f->c.backlog_mid = s->backlog;
	f->c.backlog_end = f->c.pkts_queued;
	f->c.offered_between = f->arrived_pkts - s->arrived;
	if (f->c.pkts_queued > s->backlog) {
		uint64_t growth = f->c.pkts_queued - s->backlog;
		if (growth * 20 > f->c.offered_between && growth > 2ull * f->n)
			f->trend_sat = 1;
	}
}

/* ------------------------------------------------------------------ */
/* Self-check (--self-check)                                           */

/*
 * Recount what the fabric keeps incrementally and compare: buffers in
 * use, packets for the node itself, the held lists, each packet's
 * candidate ports, retry loops, and the counts of refused packets under
 * --retry notify. Returns 0, or -1 with the first difference (fail()).
 * O(nodes + packets + channels) each time.
 */
MP_COLD static int self_check(mp_fabric *f)
{
	uint32_t *at = f->chk, *dst = f->chk + f->n, *held = f->chk + 2 * f->n;
	uint32_t *blk = f->chk + 3 * f->n; /* 3 kinds x MAXDEG per node */
	unsigned long long t = f->now;
	memset(f->chk, 0, (size_t)f->n * (3 + 3 * MP_TOPO_MAXDEG) *
				  sizeof *f->chk);
	uint64_t live = 0;
	for (uint32_t i = HELD_END + 1; i < f->npkts; i++) {
		const struct pkt *p = &f->pkts[i];
		if (!p->live)
			continue;
		live++;
		if (p->node >= f->n)
			return fail(f, "self-check at t=%llu: packet %u at node %u",
				    t, i, p->node);
		at[p->node]++;
		if (p->dst == p->node)
			dst[p->node]++;
		unsigned want = p->state == P_WAITING ? cands_of(p) : 0;
		if (f->lk[i].cand != want)
			return fail(f, "self-check at t=%llu: packet %u (state %d) "
				       "has candidates %#x, not %#x", t, i, p->state,
				    f->lk[i].cand, want);
		if (f->lk[i].key != bp_key(f, p->msg, p->dst))
			return fail(f, "self-check at t=%llu: packet %u has "
				       "backpressure key %u", t, i, f->lk[i].key);
		if (p->state == P_WAITING || p->state == P_ATTEMPT)
			held[p->node]++;
		if (p->blk && !f->notify)
			return fail(f, "self-check at t=%llu: packet %u refused "
				       "directions without --retry notify", t, i);
		for (unsigned m = p->blk; m; m &= m - 1) {
			unsigned d = (unsigned)__builtin_ctz(m);
			uint32_t y = f->nb[p->node * f->deg + d];
			blk[((size_t)y * 3 + blk_kind(p->blk_why)) * MP_TOPO_MAXDEG +
			    f->opp[d]]++;
		}
	}
	if (live != f->c.pkts_injected - f->c.pkts_delivered)
		return fail(f, "self-check at t=%llu: %llu packets live, %llu "
			       "injected and not delivered", t,
			    (unsigned long long)live,
			    (unsigned long long)(f->c.pkts_injected -
						 f->c.pkts_delivered));
	/* A buffer stays taken at the sender until the tail has left. */
	for (uint32_t c = 0; c < f->nchans; c++) {
		const struct chan *ch = &f->chans[c];
		if (ch->p.busy && !ch->p.refusing)
			at[ch->end_node[ch->cur]]++;
		if (ch->looping) {
			const struct pkt *p = &f->pkts[ch->lp_pkt];
			if (!p->live || p->state != P_ATTEMPT ||
			    p->node != ch->end_node[ch->cur] || !ch->p.busy ||
			    !ch->p.refusing)
				return fail(f, "self-check at t=%llu: channel %u "
					       "loops on packet %u, which is not "
					       "attempting it", t, c, ch->lp_pkt);
		}
	}
	for (uint32_t x = 0; x < f->n; x++) {
		const struct node *n = &f->nodes[x];
		if (n->used != at[x] || n->dest != dst[x] || n->used > f->cfg.buffers)
			return fail(f, "self-check at t=%llu: node %u counts %u "
				       "buffers used (%u for itself), there are %u "
				       "(%u)", t, x, n->used, n->dest, at[x], dst[x]);
		uint32_t k = 0, prev = HELD_END;
		unsigned cands = 0;
		for (uint32_t i = n->held_head; i != HELD_END; i = f->lk[i].next) {
			if (++k > held[x] || f->lk[i].prev != prev ||
			    f->pkts[i].node != x)
				return fail(f, "self-check at t=%llu: the held list "
					       "of node %u is broken at packet %u",
					    t, x, i);
			prev = i;
			cands |= f->lk[i].cand;
		}
		if (cands & ~(unsigned)n->cand_any)
			return fail(f, "self-check at t=%llu: node %u has "
				       "candidates %#x, not all in %#x", t, x,
				    cands, n->cand_any);
		if (k != held[x] || n->held_tail != prev)
			return fail(f, "self-check at t=%llu: node %u holds %u "
				       "packets in its list, %u waiting", t, x, k,
				    held[x]);
		for (unsigned kind = 0; kind < 3; kind++) {
			unsigned dirs = 0;
			for (unsigned d = 0; d < f->deg; d++) {
				uint32_t want = blk[((size_t)x * 3 + kind) *
						    MP_TOPO_MAXDEG + d];
				if (*blk_count(f, x, kind, d) != want)
					return fail(f, "self-check at t=%llu: node "
						       "%u counts %u packets refused "
						       "in direction %u (kind %u), "
						       "there are %u", t, x,
						    *blk_count(f, x, kind, d), d,
						    kind, want);
				if (want)
					dirs |= 1u << d;
			}
			if (n->blk_dirs[kind] != dirs)
				return fail(f, "self-check at t=%llu: node %u "
					       "directions with refused packets "
					       "%#x, not %#x", t, x,
					    n->blk_dirs[kind], dirs);
		}
	}
	return 0;
}

int mp_fabric_run(mp_fabric *f, uint64_t until)
{
	struct mp_ev ev;
	if (f->failed)
		return MP_FAB_ERROR;
	for (;;) {
		if (until == UINT64_MAX && !mp_fabric_busy(f))
			return MP_FAB_OK;
		if (!mp_evq_pop_before(f->q, until, &ev))
			return MP_FAB_OK;
		f->now = ev.t;
		f->c.events++;
		if (ev.type < EV_TIMER_UTIL)
			f->pending--;
		switch (ev.type) {
		case EV_ROUTE:
			route(f, ev.a);
			break;
		case EV_XFER_END: {
			struct chan *ch = &f->chans[ev.b];
			uint32_t x = ch->end_node[ch->cur];
			port_end(&ch->p, f->now);
			ch->p.last = ch->cur;
			f->nodes[x].used--;
			touch_buf(f, x);
			if (f->notify)
				unblock(f, x, NULL);
			arb_chan(f, ev.b);
			/* A freed buffer may open balanced injection. */
			if (f->gated && !f->nodes[x].pe[0].busy)
				arb_pe(f, x);
			break;
		}
		case EV_ATTEMPT_END: {
			struct chan *ch = &f->chans[ev.b];
			uint32_t x = ch->end_node[ch->cur];
			struct pkt *p = &f->pkts[ev.a];
			port_end(&ch->p, f->now);
			ch->p.last = ch->cur;
			/* The refused packet goes behind the others waiting
			 * (not a change that could end other retry loops). */
			if (f->lk[ev.a].next != HELD_END) {
				unhold_raw(f, x, ev.a);
				hold_raw(f, x, ev.a);
			}
			p->state = P_WAITING;
			set_cands(f, x, ev.a);
			arb_chan(f, ev.b);
			if (p->state == P_WAITING && !try_free(f, x, ev.a))
				touch_wait(f, x, p->best | p->nf);
			break;
		}
		case EV_INJ_DECIDE:
			inj_decide(f, ev.a);
			break;
		case EV_INJ_END:
		case EV_INJ_REFUSED:
			port_end(&f->nodes[ev.a].pe[0], f->now);
			arb_pe(f, ev.a);
			break;
		case EV_EJ_END:
			ej_end(f, ev.a);
			break;
		case EV_INJ_TIMEOUT: {
			struct node *n = &f->nodes[ev.a];
			n->timer_pending = 0;
			if (!n->blocked)
				break;
			if (f->now >= n->blocked_since + f->cfg.inject_timeout) {
				n->force = 1;
				arb_pe(f, ev.a);
			} else {
				n->timer_pending = 1;
				push_at(f, n->blocked_since + f->cfg.inject_timeout,
				     EV_INJ_TIMEOUT, ev.a, 0);
			}
			break;
		}
		/* The timers sleep while the fabric is empty (nothing changes
		 * then), so a long gap between messages costs nothing; the
		 * next message wakes them on their grid (mp_fabric_add). */
		case EV_TIMER_UTIL:
			util_snapshot(f, MP_UTIL_PE, f->now);
			util_snapshot(f, MP_UTIL_INTERNAL, f->now);
			if (mp_fabric_busy(f))
				push_at(f, f->now + f->o.util_interval,
					EV_TIMER_UTIL, 0, 0);
			else
				f->util_asleep = 1;
			break;
		case EV_TIMER_CHECK: {
			int st = check(f);
			if (st != MP_FAB_OK)
				return st;
			if (mp_fabric_busy(f))
				push_at(f, f->now + f->o.check_interval,
					EV_TIMER_CHECK, 0, 0);
			else
				f->check_asleep = 1;
			break;
		}
		}
		if (f->watch) { /* failed, checking, or yielding */
			if (!f->failed && f->o.self_check)
				self_check(f);
			if (f->failed)
				return MP_FAB_ERROR;
			/* issue 17: return after the event that asked. */
			if (f->yield) {
				f->yield = 0;
				f->watch = f->o.self_check;
				return MP_FAB_OK;
			}
		}
	}
}

int mp_fabric_finish(mp_fabric *f, int status)
{
	mp_rec r;
	if (f->failed)
		return MP_FAB_ERROR;
	if (status == MP_FAB_OK && (f->status == MP_FAB_SATURATED || f->trend_sat))
		status = MP_FAB_SATURATED;
	util_snapshot(f, MP_UTIL_PE, f->now);
	util_snapshot(f, MP_UTIL_INTERNAL, f->now);
	for (uint32_t c = 0; c < f->nchans; c++) {
		memset(&r, 0, sizeof r);
		r.util.tag = MP_REC_UTIL;
		r.util.scope = MP_UTIL_PORT;
		r.util.node = f->chans[c].end_node[0];
		r.util.port = f->chans[c].end_dir[0];
		r.util.nports = 1;
		r.util.t = f->now;
		port_sum(&f->chans[c].p, f->now, &r.util.busy, &r.util.refused);
		r.util.transfers = f->chans[c].p.xfers;
		r.util.refusals = f->chans[c].p.refusals;
		emit(f, &r);
	}
	for (uint32_t x = 0; x < f->n; x++)
		for (int w = 0; w < (f->cfg.pe_separate ? 2 : 1); w++) {
			const struct port *pt = &f->nodes[x].pe[w];
			memset(&r, 0, sizeof r);
			r.util.tag = MP_REC_UTIL;
			r.util.scope = MP_UTIL_PORT;
			r.util.node = x;
			r.util.port = f->deg + (unsigned)w;
			r.util.nports = 1;
			r.util.t = f->now;
			port_sum(pt, f->now, &r.util.busy, &r.util.refused);
			r.util.transfers = pt->xfers;
			r.util.refusals = pt->refusals;
			emit(f, &r);
		}
	memset(&r, 0, sizeof r);
	r.run.tag = MP_REC_RUN;
	r.run.status = (uint8_t)status;
	r.run.nodes = f->n;
	r.run.t_end = f->now;
	r.run.msgs_in = f->c.msgs_in;
	r.run.msgs_done = f->c.msgs_done;
	r.run.pkts_injected = f->c.pkts_injected;
	r.run.pkts_delivered = f->c.pkts_delivered;
	r.run.pkts_in_flight = f->c.pkts_injected - f->c.pkts_delivered;
	r.run.pkts_queued = f->c.pkts_queued;
	emit(f, &r);
	return f->failed ? MP_FAB_ERROR : status;
}

void mp_fabric_counts(const mp_fabric *f, struct mp_fabric_counts *c)
{
	*c = f->c;
	c->pkts_in_flight = f->c.pkts_injected - f->c.pkts_delivered;
}

size_t mp_fabric_report(const mp_fabric *f, size_t max, char *buf, size_t cap)
{
	static const char *const st[] = { "being routed", "waiting",
					  "refused, retrying", "moving on" };
	size_t len = 0, lines = 0;
	if (cap)
		buf[0] = '\0';
	for (uint32_t i = 0; i < f->npkts && lines < max; i++) {
		const struct pkt *p = &f->pkts[i];
		if (!p->live)
			continue;
		const struct msg *m = &f->msgs[p->msg];
		const struct node *n = &f->nodes[p->node];
		int k = snprintf(buf + len, len < cap ? cap - len : 0,
				 "packet %u of message %llu (%u -> %u) at node %u "
				 "(%u/%u buffers): %s, directions 0x%02x\n",
				 p->seq, (unsigned long long)m->id, m->src, p->dst,
				 p->node, n->used, f->cfg.buffers, st[p->state],
				 (unsigned)(p->best | p->nf));
		len += k > 0 ? (size_t)k : 0;
		lines++;
	}
	return len;
}

const char *mp_fabric_error(const mp_fabric *f)
{
	return f->err;
}
