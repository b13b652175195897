/*
 * The packet model (netrun --model packet): a discrete-event,
 * packet-level model of virtual cut-through routers with a central
 * buffer pool per node, half- or full-duplex links (a half-duplex link
 * is one channel shared by its two ends; a full-duplex link is a channel
 * each way), a PE port shared by (or separate for) injection and
 * ejection, NACK refusal with the packet kept at the sender,
 * backpressure, balanced injection, and the event handlers that move
 * packets. The driver (mp_sim.h) holds the messages and the job lists
 * and writes every record; this file reports to it the packets it
 * accepts, moves and delivers. The interface is mp_model.h; the exact
 * rules are in man/netrun.1.
 */
#include "mp_model.h"
#include "mp_sim.h"

#include <stdarg.h>
#include <stddef.h>
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
	EV_INJ_TIMEOUT  /* a: node; balanced-injection starvation time-out */
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
	uint8_t rt;      /* enum mp_route */
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

struct chan {
	struct mp_port p;
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
	struct mp_port pe[2]; /* [0] injection (shared: the PE port); [1] ejection */
	mp_rng rng;
	uint8_t spare[63]; /* to 256 bytes: finding a node is a shift */
};
_Static_assert(sizeof(struct node) == 256, "struct node is not 256 bytes");

typedef struct fabric fabric;

struct fabric {
	mp_sim *sim;
	struct mp_sim_shared *sh; /* the driver's messages and progress */
	struct mp_cfg cfg;
	struct mp_sim_opts o;
	const mp_topo *topo; /* the network's */
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
	mp_evq *q;        /* the driver's */
	int ring[8];
	mp_ni *ni;        /* the driver's job lists */
	uint64_t now;
	uint64_t pending; /* events of the model pending */
	uint64_t refusals, events;
	int failed;
	int watch;        /* failed, o.self_check or the driver's yield: one
			   * test per event */
	int gated;        /* balanced injection is on */
	int notify;       /* --retry notify */
};

MP_PRINTF(2, 3)
static int fail(fabric *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mp_sim_vfail(f->sim, fmt, ap);
	va_end(ap);
	f->failed = 1;
	f->watch = 1;
	return -1;
}

/* The driver failed (output): stop at the end of the event. */
static void failed(fabric *f)
{
	f->failed = 1;
	f->watch = 1;
}

static inline const struct mp_sim_msg *msg(const fabric *f, uint32_t i)
{
	return mp_sim_msg(f->sh, i);
}

/* Offset of dst as seen from x (see mp_topo_offset), without division. */
static inline uint32_t offset(const fabric *f, uint32_t x, uint32_t dst)
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

/* ------------------------------------------------------------------ */
/* Pools and lists                                                     */

/* Rings of the event queue, one per fixed delay. */
enum { R_HDR, R_REF, R_PKT, R_SETUP, R_EJ, R_IREF, NRINGS };

/* Schedule an event a fixed delay (ring) from now. */
static inline void push(fabric *f, int ring, uint16_t type, uint32_t a,
			uint32_t b)
{
	f->pending++;
	if (mp_evq_push_ring(f->q, f->ring[ring], f->now, type, a, b) < 0)
		fail(f, "out of memory (event queue)");
}

/* Schedule an event at time t (timers and other irregular events). */
static void push_at(fabric *f, uint64_t t, uint16_t type, uint32_t a,
		    uint32_t b)
{
	struct mp_ev ev = { t, a, b, type };
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
static int pkt_grow(fabric *f)
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

static uint32_t pkt_alloc(fabric *f)
{
	if (f->pkt_free == NIL && pkt_grow(f) < 0)
		return NIL;
	uint32_t i = f->pkt_free;
	f->pkt_free = f->lk[i].next;
	return i;
}

static void pkt_release(fabric *f, uint32_t i)
{
	f->pkts[i].live = 0;
	f->lk[i].next = f->pkt_free;
	f->pkt_free = i;
}

/* The ports a waiting packet may take now: its best and no-farther
 * directions (or EJECT_BIT), less those refused under --retry notify. */
static inline uint8_t cands_of(const struct pkt *p)
{
	return (uint8_t)((p->best | p->nf) & ~p->blk);
}

/* Packet i waits at x, or its refusals changed: its candidates, and
 * x's summary of them (first_for). */
static inline void set_cands(fabric *f, uint32_t x, uint32_t i)
{
	uint8_t c = cands_of(&f->pkts[i]);
	f->lk[i].cand = c;
	f->nodes[x].cand_any |= c;
}

/* What backpressure compares: the destination under --bp destination,
 * else the message slot. */
static inline uint32_t bp_key(const fabric *f, uint32_t msg, uint32_t dst)
{
	return f->cfg.bp == MP_BP_DEST ? dst : msg;
}

/* Append packet i to node x's list of held (waiting) packets. */
static inline void hold_raw(fabric *f, uint32_t x, uint32_t i)
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

static inline void unhold_raw(fabric *f, uint32_t x, uint32_t i)
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

static void touch_left_(fabric *f, uint32_t x, uint32_t i);
static void touch_wait_(fabric *f, uint32_t x, unsigned mask);

/* Cheap guards: most nodes take part in no retry loop. */
static inline void touch_left(fabric *f, uint32_t x, uint32_t i)
{
	if (f->nodes[x].in_loops | f->nodes[x].pe_loop)
		touch_left_(f, x, i);
}

static inline void touch_wait(fabric *f, uint32_t x, unsigned mask)
{
	/* Only loops on the ports in mask are touched (see touch_wait_). */
	const struct node *n = &f->nodes[x];
	if (((n->out_loops | n->in_loops) & mask) ||
	    (n->pe_loop && (mask & EJECT_BIT)))
		touch_wait_(f, x, mask);
}

/* Packet i starts waiting at x: it competes for its candidate ports. */
static inline void hold(fabric *f, uint32_t x, uint32_t i)
{
	hold_raw(f, x, i);
	touch_wait(f, x, f->pkts[i].best | f->pkts[i].nf);
}

/* Packet i stops waiting at x: backpressure at x may relent. */
static void unblock_(fabric *f, uint32_t y, const struct pkt *q);
static inline void unblock(fabric *f, uint32_t y, const struct pkt *q)
{
	const struct node *n = &f->nodes[y];
	if (n->inj_wait | n->blk_dirs[0] | n->blk_dirs[1] | n->blk_dirs[2])
		unblock_(f, y, q);
}

static inline void unhold(fabric *f, uint32_t x, uint32_t i)
{
	unhold_raw(f, x, i);
	touch_left(f, x, i);
	if (f->notify)
		unblock(f, x, &f->pkts[i]);
}

/* ------------------------------------------------------------------ */
/* Ports                                                               */

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

static void resolve_chan(fabric *f, uint32_t c)
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
	f->refusals += k;
	ch->p.accum += k * cost;
	ch->p.refused += k * cost;
	ch->p.refusals += k;
	ch->p.busy_start = s;
	ch->looping = 0;
	f->nodes[x].out_loops &= (uint8_t)~(1u << d);
	f->nodes[y].in_loops &= (uint8_t)~(1u << f->opp[d]);
	push_at(f, s + cost, EV_ATTEMPT_END, ch->lp_pkt, c);
}

static void resolve_pe(fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	uint64_t cost = f->cost_iref, setup = f->cfg.inject_setup;
	uint64_t k = (f->now - n->pe_lp_t0) / cost;
	uint64_t s = n->pe_lp_t0 + k * cost;
	struct mp_port *pt = &n->pe[0];

	n->pe_loop = 0;
	if (k > 0 && s == f->now) {
		/* Attempt k-1 ends now; the next one sees the change. */
		k--;
		s -= cost;
	} else if (k > 0 && s + setup >= f->now) {
		/* Attempt k is in its set-up: its decision is still to come. */
		f->refusals += k - 1;
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
	f->refusals += k;
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
static void touch_buf_(fabric *f, uint32_t x)
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

static inline void touch_buf(fabric *f, uint32_t x)
{
	if (f->nodes[x].in_loops | f->nodes[x].pe_loop)
		touch_buf_(f, x);
}

/* Packet i stopped waiting at x: loops it blocked by backpressure end. */
static void touch_left_(fabric *f, uint32_t x, uint32_t i)
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
				  msg(f, n->att_msg)->dst, q))
		resolve_pe(f, x);
}

/*
 * A packet starts waiting at x for the directions in mask (EJECT_BIT
 * for the PE port): it competes with the loops on those ports.
 */
static void touch_wait_(fabric *f, uint32_t x, unsigned mask)
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

static void arb_chan(fabric *f, uint32_t c);
static void arb_pe(fabric *f, uint32_t x);

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

static inline uint32_t *blk_count(fabric *f, uint32_t y, unsigned kind,
				  unsigned d)
{
	return &f->blk_cnt[((size_t)y * 3 + kind) * MP_TOPO_MAXDEG + d];
}

static inline void blk_add(fabric *f, uint32_t y, unsigned kind,
			   unsigned d)
{
	++*blk_count(f, y, kind, d);
	f->nodes[y].blk_dirs[kind] |= (uint8_t)(1u << d);
}

static inline void blk_sub(fabric *f, uint32_t y, unsigned kind,
			   unsigned d)
{
	if (--*blk_count(f, y, kind, d) == 0)
		f->nodes[y].blk_dirs[kind] &= (uint8_t)~(1u << d);
}

/* Packet p at x is refused by its neighbour in direction d, for why. */
static void block(fabric *f, uint32_t x, struct pkt *p, unsigned d,
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
static void drop_blocks(fabric *f, uint32_t x, struct pkt *p)
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
static void unblock_(fabric *f, uint32_t y, const struct pkt *q)
{
	struct node *ny = &f->nodes[y];
	/* q's fields, not q: the arbitration below may grow the pool. */
	int moved = q != NULL;
	uint32_t qmsg = q ? q->msg : 0, qdst = q ? q->dst : 0;
	if (ny->inj_wait) {
		const struct mp_sim_msg *m = msg(f, ny->att_msg);
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
static inline int admit(const fabric *f, uint32_t y, uint32_t m,
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

static void arb_pe(fabric *f, uint32_t x);
static void inj_decide(fabric *f, uint32_t x);
static inline uint32_t first_for(fabric *f, uint32_t x, unsigned bit);
static inline uint32_t first_from(const fabric *f, uint32_t i,
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
static void start_xfer(fabric *f, uint32_t x, uint32_t i, unsigned d,
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
		mp_port_start(&ch->p, f->now, 0);
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
		mp_sim_moved(f->sh, f->now);
		push(f, R_HDR, EV_ROUTE, i, 0);
		push(f, R_PKT, EV_XFER_END, i, c);
		/* Last: leaving x's waiting list may start other transfers. */
		if (in_list)
			unhold(f, x, i);
	} else {
		mp_port_start(&ch->p, f->now, 1);
		if (!in_list)
			hold_raw(f, x, i); /* attempting: not a contender */
		p->state = P_ATTEMPT;
		p->refusals++;
		f->refusals++;
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
static inline int try_free(fabric *f, uint32_t x, uint32_t i)
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
static inline uint32_t first_from(const fabric *f, uint32_t i,
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
static inline uint32_t first_for(fabric *f, uint32_t x, unsigned bit)
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
static void arb_chan(fabric *f, uint32_t c)
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
static void route(fabric *f, uint32_t i)
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
	case MP_ROUTE_DET:
		p->best = (uint8_t)(1u << (rt >> 24));
		p->nf = 0;
		break;
	case MP_ROUTE_ADAPTIVE:
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
static int gate_open(const fabric *f, const struct node *n)
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

static int can_inject(fabric *f, uint32_t x)
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

static void start_inject(fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	n->force = 0;
	n->att_msg = mp_ni_head(f->ni, x);
	n->att_start = f->now;
	mp_port_start(&n->pe[0], f->now, 0);
	n->pe[0].last = USE_INJ;
	if (f->cfg.inject_setup)
		push(f, R_SETUP, EV_INJ_DECIDE, x, 0);
	else
		inj_decide(f, x);
}

static void start_eject(fabric *f, uint32_t x, uint32_t i, int which)
{
	struct node *n = &f->nodes[x];
	struct pkt *p = &f->pkts[i];
	p->state = P_MOVING;
	f->lk[i].cand = 0;
	p->pe = (uint8_t)which;
	mp_port_start(&n->pe[which], f->now, 0);
	n->pe[which].last = USE_EJ;
	push(f, R_EJ, EV_EJ_END, i, 0);
	unhold(f, x, i); /* last: it may start other transfers */
}

/* The PE port of x may be free: start an ejection or an injection. */
static void arb_pe(fabric *f, uint32_t x)
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
static void inj_decide(fabric *f, uint32_t x)
{
	struct node *n = &f->nodes[x];
	uint32_t mi = n->att_msg;
	const struct mp_sim_msg *m = msg(f, mi);
	uint32_t off = offset(f, x, m->dst);
	unsigned d = f->rt[off] & 0xff;
	unsigned a0 = m->rt == MP_ROUTE_DEROUTE && d > 0 ? d - 1 : 0;

	int why = admit(f, x, mi, m->dst,
			f->cfg.deadlock == MP_DL_HOPCOUNT ? d + a0 : 0);
	if (why != WHY_OK) {
		n->pe[0].refusing = 1;
		f->refusals++;
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
	p->t_inject = n->att_start;
	p->a = (uint8_t)(a0 > 255 ? 255 : a0);
	p->rt = m->rt;
	p->state = P_ROUTING;
	p->live = 1;
	f->lk[i] = (struct link){
		.prev = NIL, .next = NIL,
		.key = bp_key(f, mi, m->dst),
	};
	p->seq = mp_sim_accepted(f->sim, x, mi, n->att_start, f->now);
	n->used++;
	push(f, R_HDR, EV_ROUTE, i, 0);
	push(f, R_PKT, EV_INJ_END, x, 0);
}

static void ej_end(fabric *f, uint32_t i)
{
	struct pkt *p = &f->pkts[i];
	uint32_t x = p->node;
	struct node *n = &f->nodes[x];

	mp_port_end(&n->pe[p->pe], f->now);
	n->used--;
	n->dest--;
	touch_buf(f, x);
	if (f->notify)
		unblock(f, x, NULL);
	struct mp_sim_pkt d = {
		.msg = p->msg,
		.seq = p->seq,
		.t_inject = p->t_inject,
		.refusals = p->refusals,
		.hops = p->hops,
		.deroutes = p->deroutes,
	};
	pkt_release(f, i);
	int rc = mp_sim_delivered(f->sim, &d, f->now);
	if (rc < 0)
		failed(f);
	else if (rc > 0)
		f->watch = 1; /* issue 17: mp_sim_yield */
	arb_pe(f, x);
}

/* ------------------------------------------------------------------ */
/* Interface                                                           */

static void packet_free(void *m);

static void *packet_create(mp_sim *sim, const mp_net *net,
			   const struct mp_cfg *cfg, mp_err *err)
{
	const char *spec = mp_net_name(net);
	const struct mp_sim_opts *opts = mp_sim_opts(sim);
	fabric *f = calloc(1, sizeof *f);
	if (!f) {
		mp_err_set(err, "out of memory");
		return NULL;
	}
	f->sim = sim;
	f->sh = mp_sim_shared(sim);
	f->cfg = *cfg;
	f->o = *opts;
	f->pkt_free = NIL;
	f->gated = cfg->buffer_limit || cfg->buffer_limit_dest ||
		   cfg->buffer_limit_trans;
	f->notify = cfg->retry == MP_RETRY_NOTIFY;
	f->loops = !opts->eager_retries && !f->notify;
	f->cost_ref = refusal_cost(0, cfg->header_time);
	f->cost_iref = refusal_cost(cfg->inject_setup, cfg->header_time);
	/* The model uses the Cayley meshes' tables by offset. */
	f->topo = mp_net_topo(net);
	if (!f->topo) {
		mp_err_set(err, "the packet model needs a hex, hexrect or torus "
				"network, not %s", spec);
		goto fail;
	}
	f->n = mp_topo_nodes(f->topo);
	f->deg = mp_topo_degree(f->topo);
	for (unsigned d = 0; d < f->deg; d++)
		f->opp[d] = (uint8_t)mp_topo_opposite(f->topo, d);
	if (cfg->deadlock == MP_DL_HOPCOUNT) {
		unsigned D = mp_topo_diameter(f->topo);
		unsigned need = cfg->route == MP_ROUTE_DEROUTE ? 2 * D : D + 1;
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
	f->q = mp_sim_evq(sim);
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
	if (!f->nb || !f->chan_of || !f->chans || !f->nodes || !f->q ||
	    f->ring[R_HDR] < 0 || !f->blk_cnt || (f->o.self_check && !f->chk)) {
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
	if (pkt_grow(f) < 0) { /* the lists' end is needed from the start */
		mp_err_set(err, "out of memory");
		goto fail;
	}
	return f;
fail:
	packet_free(f);
	return NULL;
}

static void packet_free(void *m)
{
	fabric *f = m;
	if (!f)
		return;
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
	free(f);
}

static uint32_t packet_nodes(const void *m)
{
	const fabric *f = m;
	return f->n;
}

static uint64_t packet_now(const void *m)
{
	const fabric *f = m;
	return f->now;
}

static int packet_busy(const void *m)
{
	const fabric *f = m;
	return f->pending > 0;
}

static void packet_job(void *m, uint32_t x, uint64_t t)
{
	fabric *f = m;
	f->ni = mp_sim_ni(f->sim);
	f->now = t;
	if (f->nodes[x].pe_loop)
		resolve_pe(f, x); /* the job list's head may change */
	f->nodes[x].inj_wait = 0;
	arb_pe(f, x);
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
MP_COLD static int self_check(fabric *f)
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
	if (live != mp_sim_in_flight(f->sim))
		return fail(f, "self-check at t=%llu: %llu packets live, %llu "
			       "injected and not delivered", t,
			    (unsigned long long)live,
			    (unsigned long long)mp_sim_in_flight(f->sim));
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

static int packet_self_check(void *m)
{
	return self_check(m);
}

static int packet_run_until(void *m, uint64_t until)
{
	fabric *f = m;
	struct mp_ev ev;
	if (f->failed)
		return MP_SIM_ERROR;
	f->ni = mp_sim_ni(f->sim);
	if (f->sh->yield)
		f->watch = 1;
	for (;;) {
		if (until == UINT64_MAX && !f->pending && !mp_sim_work(f->sim))
			return MP_SIM_OK;
		if (!mp_evq_pop_before(f->q, until, &ev))
			return MP_SIM_OK;
		f->now = ev.t;
		f->events++;
		if (ev.type >= MP_SIM_EV_FIRST) {
			int st = mp_sim_event(f->sim, &ev);
			if (st == MP_SIM_ERROR)
				failed(f);
			else if (st != MP_SIM_OK)
				return st;
			if (f->sh->yield)
				f->watch = 1;
		} else {
			f->pending--;
		}
		switch (ev.type) {
		case EV_ROUTE:
			route(f, ev.a);
			break;
		case EV_XFER_END: {
			struct chan *ch = &f->chans[ev.b];
			uint32_t x = ch->end_node[ch->cur];
			mp_port_end(&ch->p, f->now);
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
			mp_port_end(&ch->p, f->now);
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
			mp_port_end(&f->nodes[ev.a].pe[0], f->now);
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
		}
		if (f->watch) { /* failed, checking, or yielding */
			if (!f->failed && f->o.self_check)
				self_check(f);
			if (f->failed)
				return MP_SIM_ERROR;
			/* issue 17: return after the event that asked. */
			if (f->sh->yield) {
				f->sh->yield = 0;
				f->watch = f->o.self_check;
				return MP_SIM_OK;
			}
		}
	}
}

/* Sum a scope's ports: the PE ports (both of each node when they are
 * separate) or the internal channels. */
static void packet_util(const void *m, int scope, uint64_t t,
			struct mp_util *u)
{
	const fabric *f = m;
	if (scope == MP_UTIL_PE) {
		int k = f->cfg.pe_separate ? 2 : 1;
		for (uint32_t x = 0; x < f->n; x++)
			for (int w = 0; w < k; w++)
				mp_port_sum(&f->nodes[x].pe[w], t, u);
		u->nports = f->n * (uint32_t)k;
	} else {
		for (uint32_t c = 0; c < f->nchans; c++)
			mp_port_sum(&f->chans[c].p, t, u);
		u->nports = f->nchans;
	}
}

/* The channels (named by the end that created them), then the PE
 * ports (ports deg and deg+1 of their node). */
static int packet_port_util(const void *m, uint32_t k, uint64_t t,
			    struct mp_util *u)
{
	const fabric *f = m;
	const struct mp_port *pt;
	if (k < f->nchans) {
		u->node = f->chans[k].end_node[0];
		u->port = f->chans[k].end_dir[0];
		pt = &f->chans[k].p;
	} else {
		uint32_t w = f->cfg.pe_separate ? 2 : 1;
		k -= f->nchans;
		if (k >= f->n * w)
			return 0;
		u->node = k / w;
		u->port = f->deg + k % w;
		pt = &f->nodes[k / w].pe[k % w];
	}
	mp_port_sum(pt, t, u);
	return 1;
}

static void packet_counts(const void *m, uint64_t *refusals, uint64_t *events)
{
	const fabric *f = m;
	*refusals = f->refusals;
	*events = f->events;
}

static size_t packet_report(const void *mo, size_t max, char *buf, size_t cap)
{
	const fabric *f = mo;
	static const char *const st[] = { "being routed", "waiting",
					  "refused, retrying", "moving on" };
	size_t len = 0, lines = 0;
	for (uint32_t i = 0; i < f->npkts && lines < max; i++) {
		const struct pkt *p = &f->pkts[i];
		if (!p->live)
			continue;
		const struct mp_sim_msg *m = msg(f, p->msg);
		const struct node *n = &f->nodes[p->node];
		mp_sim_report_line(buf, cap, &len,
				   "packet %u of message %llu (%u -> %u) at node "
				   "%u (%u/%u buffers): %s, directions 0x%02x\n",
				   p->seq, (unsigned long long)m->id, m->src,
				   p->dst, p->node, n->used, f->cfg.buffers,
				   st[p->state], (unsigned)(p->best | p->nf));
		lines++;
	}
	return len;
}

/* Alone in the network, a packet over h hops takes the injection
 * set-up, h + 1 routing decisions (one per node it enters, its source
 * included), the ejection set-up and one packet time (cut-through). */
static uint64_t packet_zero_load(const struct mp_cfg *c, unsigned hops)
{
	return (uint64_t)c->inject_setup + (uint64_t)c->header_time * (hops + 1) +
	       c->eject_setup + c->packet_time;
}

#define CFG(field) offsetof(struct mp_cfg, field)
#define T_MAX 1000000 /* largest time parameter */

static const char *const links_names[] = { "half", "full", NULL };
static const char *const pe_port_names[] = { "shared", "separate", NULL };
static const char *const off_on[] = { "off", "on", NULL };
static const char *const dl_names[] = { "none", "hop-count", NULL };
static const char *const retry_names[] = { "immediate", "notify", NULL };

static const struct mp_opt packet_opts[] = {
	{ "route", MP_OPT_CHOICE, CFG(route), MP_ROUTE_DET, 0, mp_route_names,
	  "R", "deterministic | best (adaptive) | derouting", 0 },
	{ "buffers", MP_OPT_UINT, CFG(buffers), 1, 1000000, NULL,
	  "N", "packet buffers per node (central pool)", 0 },
	{ "packet-time", MP_OPT_UINT, CFG(packet_time), 1, T_MAX, NULL,
	  "T", "units to move a packet over a port", 0 },
	{ "header-time", MP_OPT_UINT, CFG(header_time), 0, T_MAX, NULL,
	  "T", "units to receive and route a header", 0 },
	{ "inject-setup", MP_OPT_UINT, CFG(inject_setup), 0, T_MAX, NULL,
	  "T", "PE port set-up before an injection", 0 },
	{ "eject-setup", MP_OPT_UINT, CFG(eject_setup), 0, T_MAX, NULL,
	  "T", "PE port set-up before an ejection", 0 },
	{ "links", MP_OPT_CHOICE, CFG(full_duplex), 0, 0, links_names,
	  "half|full", "half-duplex links or a channel each way", 0 },
	{ "pe-port", MP_OPT_CHOICE, CFG(pe_separate), 0, 0, pe_port_names,
	  "shared|separate", "PE port shared by injection and ejection", 0 },
	{ "pe-arb", MP_OPT_CHOICE, CFG(pe_arb), 0, 0, mp_pe_arb_names,
	  "fair|inject|eject", "who wins a shared PE port", 0 },
	{ "bp", MP_OPT_CHOICE, CFG(bp), 0, 0, mp_bp_names,
	  "none|message|destination", "backpressure refusal rule", 0 },
	{ "buffer-limit", MP_OPT_UINT, CFG(buffer_limit), 0, 1000000, NULL,
	  "N", "inject only below N occupied buffers (0: off)", 0 },
	{ "buffer-limit-dest", MP_OPT_UINT, CFG(buffer_limit_dest), 0, 1000000,
	  NULL, "N", "... and below N destination buffers", 0 },
	{ "buffer-limit-trans", MP_OPT_UINT, CFG(buffer_limit_trans), 0, 1000000,
	  NULL, "N", "... and below N transit buffers", 0 },
	{ "inject-timeout", MP_OPT_U64, CFG(inject_timeout), 0, 1000000000000ull,
	  NULL, "T", "injection blocked this long goes anyway (0: never)", 0 },
	{ "eject-priority", MP_OPT_CHOICE, CFG(eject_priority), 0, 0, off_on,
	  "on|off", "favour ejection at the destination limit", 0 },
	{ "deadlock", MP_OPT_CHOICE, CFG(deadlock), 0, 0, dl_names,
	  "none|hop-count", "buffer allocation rule", 0 },
	{ "retry", MP_OPT_CHOICE, CFG(retry), 0, 0, retry_names,
	  "immediate|notify", "a refused packet tries again at once, or when "
	  "the refusing node frees a buffer or a packet", 0 },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL, 0 }
};

const struct mp_model_ops mp_model_packet = {
	.name = "packet",
	.desc = "event-driven, packet-level virtual cut-through routers with "
		"a central buffer pool per node",
	.opts = packet_opts,
	.create = packet_create,
	.nodes = packet_nodes,
	.now = packet_now,
	.run_until = packet_run_until,
	.job = packet_job,
	.busy = packet_busy,
	.self_check = packet_self_check,
	.util = packet_util,
	.port_util = packet_port_util,
	.counts = packet_counts,
	.report = packet_report,
	.zero_load = packet_zero_load,
	.free = packet_free,
};
