/*
 * swsim: single-switch simulation of input buffer organizations (SPEC
 * 3.5). One switch, cycle by cycle, virtual cut-through, fed either as a
 * bare K x K switch with uniform routing or with the routing
 * probabilities and input channel utilizations that the symmetry of
 * uniform traffic gives in a unidirectional k-ary n-cube or a delta
 * network; it measures the mean wait per packet and estimates the
 * network latency from it. The model is described in swsim(1).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_prog.h"
#include "mp_rng.h"
#include "mp_stats.h"
#include "mp_util.h"

#define PROG "swsim"

#define MAX_PORTS 64
#define MAX_B 64
#define MAX_LOADS 64
#define MAX_NODES (1UL << 20)	/* k-ary n-cube nodes (paths enumerated) */
#define MAX_TERMINALS 1024	/* omega terminals (pairs enumerated) */
#define DEF_CYCLES 100000
#define DEF_BATCHES 20

enum org { ORG_FIFO, ORG_SAFC, ORG_SAMQ, ORG_DAMQ, ORG_OQ };
static const char *org_names[] = { "fifo", "safc", "samq", "damq", "oq" };

enum arb { ARB_RR, ARB_OLDEST };
enum topo { TOPO_BARE, TOPO_KARY, TOPO_OMEGA };

/* What the symmetry of the traffic gives one switch. */
struct feed {
	unsigned ports;			/* K */
	double util[MAX_PORTS];		/* input channel utilization, flits/cycle */
	double prob[MAX_PORTS][MAX_PORTS]; /* routing probability in -> out */
	double out_util[MAX_PORTS];	/* offered output utilization */
	double bottleneck;		/* most loaded class of channel */
	const char *bottleneck_class;
	double hops;			/* mean network links per packet */
	double kd;			/* mean distance per dimension (kary) */
	unsigned n;			/* dimensions or stages */
	char port_name[MAX_PORTS][16];
};

struct cfg {
	enum topo topo;
	unsigned k, n;			/* kary:K,N or omega:A,S */
	unsigned ports;
	enum org org;
	enum arb arb;
	unsigned b;			/* packet flits */
	uint64_t buf_flits;		/* per input; 0 unbounded */
	uint64_t seed, cycles, warmup;
	unsigned batches;
	double confidence;
	int csv, show_probs, self_check;
};

/* A packet in a queue: when its head entered the switch, and its output. */
struct pkt {
	uint64_t t;		/* arrival (or generation, at the source) */
	uint32_t out;
	uint32_t pad;
};

/* A growable ring of packets. */
struct queue {
	struct pkt *a;
	size_t cap, head, len;
	uint64_t flits;		/* flits charged to this queue */
	uint64_t limit;		/* 0: unbounded */
};

struct release {
	uint64_t at;
	uint32_t q;
};

struct input {
	mp_rng arr, dst;
	double lambda;		/* packets per cycle; >= 1/B: saturated */
	int saturated;
	uint64_t next_gen;	/* next generation cycle */
	uint64_t link_free;	/* first cycle the input link is free */
	uint64_t block_since;	/* first cycle the source's head found no room */
	uint64_t xbar_free;	/* first cycle its crossbar input is free */
	struct queue src;	/* packets held at the source */
	struct queue *q;	/* 1 (fifo) or K queues (per output) */
	unsigned nq;
	uint64_t used;		/* flits in use (damq, fifo) */
	uint64_t limit;		/* damq/fifo: F; 0 unbounded */
	struct release *rel;	/* pending space releases, in time order */
	unsigned rel_head, rel_len, rel_cap;
	double cum[MAX_PORTS];	/* cumulative routing probabilities */
};

struct sim {
	const struct cfg *c;
	const struct feed *f;
	unsigned k, b;
	struct input *in;
	struct queue *oq;	/* oq: one queue per output */
	uint64_t *out_free;
	unsigned *rr;
	uint64_t now;
	/* measurement */
	uint64_t t0, t1;
	double *b_wait, *b_src, *b_blk;
	uint64_t *b_n, *b_srcn, *b_flits, *out_flits;
	uint64_t backlog0;
	uint64_t generated, left;	/* whole run */
	int check_failed;
	char check_msg[256];
};

struct result {
	double wait, wait_ci, source_wait, blocked, throughput, throughput_ci;
	double offered;
	uint64_t packets, generated, left, held;
	double out_util[MAX_PORTS];
	int saturated;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: " PROG " [-h] (--topo kary:K,N | --topo omega:A,S | --ports K [--uniform])\n"
		"             --load P[,P...] [--buffer fifo|safc|samq|damq|oq] [--buf-flits F]\n"
		"             [--packet-flits B] [--arb rr|oldest] [--cycles C] [--warmup W]\n"
		"             [--batches M] [--confidence C] [--seed S] [--csv] [--show-probs]\n"
		"             [--self-check]\n"
		"Simulate one switch cycle by cycle and estimate network latency (SPEC 3.5).\n"
		"  --topo kary:K,N      unidirectional K-ary N-cube, dimension-order routing\n"
		"  --topo omega:A,S     delta network of A x A switches, S stages\n"
		"  --ports K            a bare K x K switch (2..%d), uniform routing\n"
		"  --uniform            uniform destinations (the only traffic; default)\n"
		"  --load P             flits per node (or input) per cycle, in (0, 1];\n"
		"                       1 on a bare switch means saturated inputs\n"
		"  --buffer ORG         input buffer organization (default damq)\n"
		"  --buf-flits F        buffer flits per input, 0 unbounded (default 0)\n"
		"  --packet-flits B     flits per packet, 1..%d (default 1)\n"
		"  --arb rr|oldest      crossbar arbitration (default rr, round-robin)\n"
		"  --cycles C           measured cycles (default %d)\n"
		"  --warmup W           cycles discarded first (default C/10)\n"
		"  --batches M          batches for the confidence interval (default %d)\n"
		"  --confidence C       level of the interval, in (0, 1) (default 0.95)\n"
		"  --seed S             random seed (default 1)\n"
		"  --csv                CSV instead of text\n"
		"  --show-probs         print the derived feed only, no simulation\n"
		"  --self-check         recount every queue each cycle\n"
		"  -h, --help           this help\n",
		MAX_PORTS, MAX_B, DEF_CYCLES, DEF_BATCHES);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		mp_die("out of memory");
	return p;
}

static uint64_t parse_u64(const char *s, uint64_t min, uint64_t max, const char *what)
{
	uint64_t v;
	mp_err err;

	if (mp_parse_u64(s, min, max, &v, what, &err) < 0)
		mp_usage_error("%s", err.msg);
	return v;
}

/* "A,B" with both in [min, max]. */
static void parse_pair(const char *s, const char *what, unsigned min1,
		       unsigned max1, unsigned min2, unsigned max2,
		       unsigned *a, unsigned *b)
{
	const char *comma = strchr(s, ',');
	char buf[32];

	if (!comma || (size_t)(comma - s) >= sizeof buf || comma == s ||
	    comma[1] == '\0')
		mp_usage_error("%s: '%s' is not two numbers A,B", what, s);
	memcpy(buf, s, (size_t)(comma - s));
	buf[comma - s] = '\0';
	*a = (unsigned)parse_u64(buf, min1, max1, what);
	*b = (unsigned)parse_u64(comma + 1, min2, max2, what);
}

static void parse_topo(const char *s, struct cfg *c)
{
	if (strncmp(s, "kary:", 5) == 0) {
		c->topo = TOPO_KARY;
		parse_pair(s + 5, "--topo kary", 2, 1024, 1, MAX_PORTS - 1,
			   &c->k, &c->n);
	} else if (strncmp(s, "omega:", 6) == 0) {
		c->topo = TOPO_OMEGA;
		parse_pair(s + 6, "--topo omega", 2, MAX_PORTS, 1, 64, &c->k,
			   &c->n);
	} else {
		mp_usage_error("--topo: unknown topology '%s' (kary:K,N or omega:A,S)", s);
	}
}

static unsigned parse_loads(const char *s, double *loads)
{
	unsigned n = 0;
	const char *p = s;

	for (;;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char buf[64];
		mp_err err;

		if (n == MAX_LOADS)
			mp_usage_error("--load: more than %d loads", MAX_LOADS);
		if (len == 0 || len >= sizeof buf)
			mp_usage_error("--load: '%s' is not a list of loads", s);
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (mp_parse_double(buf, 0.0, 1.0, 0, &loads[n], "--load", &err) < 0)
			mp_usage_error("%s", err.msg);
		if (loads[n] <= 0.0)
			mp_usage_error("--load: %s is out of range (0, 1]", buf);
		n++;
		if (!e)
			break;
		p = e + 1;
	}
	return n;
}

/* ---- the feed: routing probabilities and utilizations by symmetry ---- */

static void finish_feed(struct feed *f, double (*cnt)[MAX_PORTS],
			double rate_per_count, unsigned b)
{
	unsigned k = f->ports;

	for (unsigned o = 0; o < k; o++)
		f->out_util[o] = 0.0;
	for (unsigned i = 0; i < k; i++) {
		double row = 0.0;
		for (unsigned o = 0; o < k; o++)
			row += cnt[i][o];
		f->util[i] = row * rate_per_count * b;
		for (unsigned o = 0; o < k; o++) {
			f->prob[i][o] = row > 0 ? cnt[i][o] / row : 0.0;
			f->out_util[o] += cnt[i][o] * rate_per_count * b;
		}
	}
}

/*
 * Unidirectional k-ary n-cube, dimension order (dimension 0 first), every
 * destination but the source equally likely. By translation symmetry the
 * traffic through one switch is the sum, over the paths from one source,
 * of the port pairs each path uses at each switch it visits. Ports 0..n-1
 * are the links of dimensions 0..n-1, port n the node (injection in,
 * ejection out).
 */
static void feed_kary(const struct cfg *c, double load, struct feed *f)
{
	unsigned k = c->k, n = c->n, K = n + 1;
	uint64_t nodes = 1;
	static double cnt[MAX_PORTS][MAX_PORTS];
	double hops = 0.0;

	for (unsigned d = 0; d < n; d++) {
		if (nodes > MAX_NODES / k)
			mp_usage_error("--topo kary:%u,%u: more than %lu nodes", k, n,
				  (unsigned long)MAX_NODES);
		nodes *= k;
	}
	memset(cnt, 0, sizeof cnt);
	for (uint64_t dst = 1; dst < nodes; dst++) {
		unsigned in = n;	/* injection */
		uint64_t r = dst;
		for (unsigned d = 0; d < n; d++) {
			unsigned off = (unsigned)(r % k);
			r /= k;
			for (unsigned h = 0; h < off; h++) {
				cnt[in][d] += 1.0;
				in = d;
				hops += 1.0;
			}
		}
		cnt[in][n] += 1.0;	/* ejection */
	}
	f->ports = K;
	f->n = n;
	f->hops = hops / (double)(nodes - 1);
	f->kd = f->hops / n;
	/* packets per cycle per node, spread over N-1 destinations */
	finish_feed(f, cnt, load / c->b / (double)(nodes - 1), c->b);
	for (unsigned d = 0; d < n; d++)
		snprintf(f->port_name[d], sizeof f->port_name[d], "dim%u", d);
	snprintf(f->port_name[n], sizeof f->port_name[n], "node");
	/* classes: the links (all dimensions alike), injection, ejection */
	f->bottleneck = load;
	f->bottleneck_class = "injection";
	for (unsigned d = 0; d < n; d++)
		if (f->util[d] > f->bottleneck + 1e-12) {
			f->bottleneck = f->util[d];
			f->bottleneck_class = "link";
		}
}

/*
 * Omega network of A x A switches, S stages, N = A^S terminals: before
 * each stage a perfect shuffle (rotate the S-digit address left by one
 * digit), then the switch sets the low digit to the destination's digit
 * for that stage, most significant first. Every source-destination pair
 * is enumerated (each destination, the source's own index included, as
 * likely); all switches of all stages are summed and divided by their
 * number: by symmetry each sees the same traffic.
 */
static void feed_omega(const struct cfg *c, double load, struct feed *f)
{
	unsigned a = c->k, s = c->n;
	uint64_t nodes = 1;
	static double cnt[MAX_PORTS][MAX_PORTS];

	for (unsigned d = 0; d < s; d++) {
		if (nodes > MAX_TERMINALS / a)
			mp_usage_error("--topo omega:%u,%u: more than %d terminals", a, s,
				  MAX_TERMINALS);
		nodes *= a;
	}
	memset(cnt, 0, sizeof cnt);
	uint64_t top = nodes / a;
	for (uint64_t src = 0; src < nodes; src++)
		for (uint64_t dst = 0; dst < nodes; dst++) {
			uint64_t p = src, div = top;
			for (unsigned st = 0; st < s; st++) {
				p = (p % top) * a + p / top;	/* shuffle */
				unsigned in = (unsigned)(p % a);
				unsigned out = (unsigned)(dst / div % a);
				div /= a;
				cnt[in][out] += 1.0;
				p = p - in + out;
			}
			if (p != dst)
				mp_die("omega:%u,%u: digit routing missed %lu -> %lu (internal error)",
				    a, s, (unsigned long)src, (unsigned long)dst);
		}
	f->ports = a;
	f->n = s;
	f->hops = s;
	f->kd = 1.0;
	/* each source sends load/B packets per cycle over N destinations;
	 * the counts cover s * N / a switches */
	double per_pair = load / c->b / (double)nodes;
	double switches = (double)s * (double)nodes / a;
	finish_feed(f, cnt, per_pair / switches, c->b);
	for (unsigned i = 0; i < a; i++)
		snprintf(f->port_name[i], sizeof f->port_name[i], "%u", i);
	f->bottleneck = 0.0;
	for (unsigned i = 0; i < a; i++)
		if (f->util[i] > f->bottleneck)
			f->bottleneck = f->util[i];
	if (load > f->bottleneck)
		f->bottleneck = load;
	f->bottleneck_class = "link";
}

static void feed_bare(const struct cfg *c, double load, struct feed *f)
{
	unsigned k = c->ports;

	f->ports = k;
	f->n = 1;
	f->hops = 0;
	f->kd = 0;
	for (unsigned i = 0; i < k; i++) {
		f->util[i] = load;
		f->out_util[i] = load;
		for (unsigned o = 0; o < k; o++)
			f->prob[i][o] = 1.0 / k;
		snprintf(f->port_name[i], sizeof f->port_name[i], "%u", i);
	}
	f->bottleneck = load;
	f->bottleneck_class = "input";
}

static void make_feed(const struct cfg *c, double load, struct feed *f)
{
	memset(f, 0, sizeof *f);
	if (c->topo == TOPO_KARY)
		feed_kary(c, load, f);
	else if (c->topo == TOPO_OMEGA)
		feed_omega(c, load, f);
	else
		feed_bare(c, load, f);
}

/* ---- queues ---- */

static void q_push(struct queue *q, struct pkt p)
{
	if (q->len == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 16;
		struct pkt *na = xcalloc(ncap, sizeof *na);
		for (size_t i = 0; i < q->len; i++)
			na[i] = q->a[(q->head + i) % q->cap];
		free(q->a);
		q->a = na;
		q->cap = ncap;
		q->head = 0;
	}
	q->a[(q->head + q->len) % q->cap] = p;
	q->len++;
}

static inline struct pkt *q_front(struct queue *q)
{
	return q->len ? &q->a[q->head] : NULL;
}

static struct pkt q_pop(struct queue *q)
{
	struct pkt p = q->a[q->head];
	q->head = (q->head + 1) % q->cap;
	q->len--;
	return p;
}

/* ---- the switch ---- */

/*
 * Space per queue for the static organizations: F / K flits rounded down
 * to whole packets. Returns 0 when that is less than one packet.
 */
static uint64_t static_share(uint64_t f, unsigned k, unsigned b)
{
	return f / k / b * b;
}

static void sim_init(struct sim *s, const struct cfg *c, const struct feed *f)
{
	unsigned k = f->ports;

	memset(s, 0, sizeof *s);
	s->c = c;
	s->f = f;
	s->k = k;
	s->b = c->b;
	s->in = xcalloc(k, sizeof *s->in);
	s->out_free = xcalloc(k, sizeof *s->out_free);
	s->rr = xcalloc(k, sizeof *s->rr);
	s->out_flits = xcalloc(k, sizeof *s->out_flits);
	s->b_wait = xcalloc(c->batches, sizeof *s->b_wait);
	s->b_src = xcalloc(c->batches, sizeof *s->b_src);
	s->b_blk = xcalloc(c->batches, sizeof *s->b_blk);
	s->b_n = xcalloc(c->batches, sizeof *s->b_n);
	s->b_srcn = xcalloc(c->batches, sizeof *s->b_srcn);
	s->b_flits = xcalloc(c->batches, sizeof *s->b_flits);
	if (c->org == ORG_OQ)
		s->oq = xcalloc(k, sizeof *s->oq);
	for (unsigned i = 0; i < k; i++) {
		struct input *in = &s->in[i];
		mp_rng_seed(&in->arr, c->seed, 2 * (uint64_t)i);
		mp_rng_seed(&in->dst, c->seed, 2 * (uint64_t)i + 1);
		in->lambda = f->util[i] / c->b;
		in->saturated = f->util[i] >= 1.0 - 1e-12;
		in->block_since = UINT64_MAX;
		if (in->lambda > 0 && !in->saturated)
			in->next_gen = mp_rng_geometric(&in->arr, in->lambda) - 1;
		else
			in->next_gen = UINT64_MAX;
		double acc = 0.0;
		unsigned last = 0;
		for (unsigned o = 0; o < k; o++) {
			acc += f->prob[i][o];
			in->cum[o] = acc;
			if (f->prob[i][o] > 0)
				last = o;
		}
		for (unsigned o = last; o < k; o++)
			in->cum[o] = 2.0;	/* rounding never picks past the last */
		switch (c->org) {
		case ORG_FIFO:
		case ORG_OQ:
			in->nq = 1;
			break;
		default:
			in->nq = k;
		}
		in->q = xcalloc(in->nq, sizeof *in->q);
		if (c->buf_flits && (c->org == ORG_SAFC || c->org == ORG_SAMQ))
			for (unsigned o = 0; o < k; o++)
				in->q[o].limit = static_share(c->buf_flits, k, c->b);
		if (c->org == ORG_FIFO || c->org == ORG_DAMQ)
			in->limit = c->buf_flits;
		in->rel_cap = k + 1;
		in->rel = xcalloc(in->rel_cap, sizeof *in->rel);
	}
}

static void sim_free(struct sim *s)
{
	for (unsigned i = 0; i < s->k; i++) {
		for (unsigned q = 0; q < s->in[i].nq; q++)
			free(s->in[i].q[q].a);
		free(s->in[i].q);
		free(s->in[i].src.a);
		free(s->in[i].rel);
	}
	if (s->oq)
		for (unsigned o = 0; o < s->k; o++)
			free(s->oq[o].a);
	free(s->oq);
	free(s->in);
	free(s->out_free);
	free(s->rr);
	free(s->out_flits);
	free(s->b_wait);
	free(s->b_src);
	free(s->b_blk);
	free(s->b_n);
	free(s->b_srcn);
	free(s->b_flits);
}

static unsigned draw_out(struct input *in, unsigned k)
{
	double u = mp_rng_unit(&in->dst);
	unsigned o = 0;

	while (o + 1 < k && u >= in->cum[o])
		o++;
	return o;
}

/* Packets held at sources or in buffers. */
static uint64_t backlog(const struct sim *s)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < s->k; i++) {
		n += s->in[i].src.len;
		for (unsigned q = 0; q < s->in[i].nq; q++)
			n += s->in[i].q[q].len;
	}
	if (s->oq)
		for (unsigned o = 0; o < s->k; o++)
			n += s->oq[o].len;
	return n;
}

/* The queue of input i holding packets for output o. */
static inline struct queue *queue_for(struct sim *s, unsigned i, unsigned o)
{
	struct input *in = &s->in[i];

	switch (s->c->org) {
	case ORG_OQ:
		return &s->oq[o];
	case ORG_FIFO:
		return &in->q[0];
	default:
		return &in->q[o];
	}
}

/* Is there room at input i for a packet to output o? */
static int room(struct sim *s, unsigned i, unsigned o)
{
	struct input *in = &s->in[i];
	unsigned b = s->b;

	switch (s->c->org) {
	case ORG_OQ:
		return 1;
	case ORG_FIFO:
	case ORG_DAMQ:
		return !in->limit || in->used + b <= in->limit;
	default:
		return !in->q[o].limit || in->q[o].flits + b <= in->q[o].limit;
	}
}

static void charge(struct sim *s, unsigned i, unsigned o, int64_t flits)
{
	struct input *in = &s->in[i];

	if (s->c->org == ORG_OQ)
		return;
	in->used = (uint64_t)((int64_t)in->used + flits);
	queue_for(s, i, o)->flits = (uint64_t)((int64_t)queue_for(s, i, o)->flits + flits);
}

static void record(struct sim *s, unsigned o, uint64_t wait)
{
	const struct cfg *c = s->c;

	if (s->now < s->t0 || s->now >= s->t1)
		return;
	unsigned bi = (unsigned)((s->now - s->t0) * c->batches / c->cycles);
	s->b_wait[bi] += (double)wait;
	s->b_n[bi]++;
	s->b_flits[bi] += s->b;
	s->out_flits[o] += s->b;
}

/*
 * Arbitration: each free output, taken in an order that rotates every
 * cycle, grants one eligible packet (its head arrived in an earlier
 * cycle) whose crossbar input is free: a greedy maximal matching.
 */
static void arbitrate(struct sim *s)
{
	const struct cfg *c = s->c;
	unsigned k = s->k, b = s->b;
	uint64_t now = s->now;
	unsigned start = (unsigned)(now % k);

	for (unsigned oi = 0; oi < k; oi++) {
		unsigned o = start + oi < k ? start + oi : start + oi - k;
		if (s->out_free[o] > now)
			continue;
		int best = -1;
		uint64_t best_t = UINT64_MAX;
		if (c->org == ORG_OQ) {
			struct pkt *p = q_front(&s->oq[o]);
			if (p && p->t < now)
				best = 0;
		} else {
			for (unsigned j = 0; j < k; j++) {
				unsigned i = s->rr[o] + j;
				if (i >= k)
					i -= k;
				struct input *in = &s->in[i];
				if (c->org != ORG_SAFC && in->xbar_free > now)
					continue;
				struct pkt *p = q_front(c->org == ORG_FIFO ?
							&in->q[0] : &in->q[o]);
				if (!p || p->out != o || p->t >= now)
					continue;
				if (c->arb == ARB_RR) {
					best = (int)i;
					break;
				}
				if (p->t < best_t) {
					best_t = p->t;
					best = (int)i;
				}
			}
		}
		if (best < 0)
			continue;
		struct queue *q;
		struct pkt p;
		unsigned i;
		if (c->org == ORG_OQ) {
			q = &s->oq[o];
			p = q_pop(q);
			i = p.pad;
		} else {
			i = (unsigned)best;
			q = queue_for(s, i, o);
			p = q_pop(q);
			s->rr[o] = i + 1 < k ? i + 1 : 0;
			s->in[i].xbar_free = now + b;
			/* space is freed as the last flit leaves */
			struct input *in = &s->in[i];
			if (in->rel_len == in->rel_cap)
				mp_die("internal error: release ring full");
			in->rel[(in->rel_head + in->rel_len) % in->rel_cap] =
				(struct release){ now + b - 1, o };
			in->rel_len++;
		}
		s->out_free[o] = now + b;
		s->left++;
		record(s, o, now - p.t - 1);
	}
}

static void releases(struct sim *s)
{
	for (unsigned i = 0; i < s->k; i++) {
		struct input *in = &s->in[i];
		while (in->rel_len && in->rel[in->rel_head].at <= s->now) {
			charge(s, i, in->rel[in->rel_head].q, -(int64_t)s->b);
			in->rel_head = (in->rel_head + 1) % in->rel_cap;
			in->rel_len--;
		}
	}
}

/* Source-side waits are recorded when the head enters the switch. */
static void record_src(struct sim *s, uint64_t w, uint64_t blocked)
{
	if (s->now < s->t0 || s->now >= s->t1)
		return;
	unsigned bi = (unsigned)((s->now - s->t0) * s->c->batches / s->c->cycles);
	s->b_src[bi] += (double)w;
	s->b_blk[bi] += (double)blocked;
	s->b_srcn[bi]++;
}

static void arrivals(struct sim *s)
{
	unsigned k = s->k;
	uint64_t now = s->now;
	unsigned start = (unsigned)(now % k);

	for (unsigned ii = 0; ii < k; ii++) {
		unsigned i = start + ii < k ? start + ii : start + ii - k;
		struct input *in = &s->in[i];
		while (in->next_gen == now) {
			q_push(&in->src, (struct pkt){ now, draw_out(in, k), 0 });
			s->generated++;
			in->next_gen = now + mp_rng_geometric(&in->arr, in->lambda);
		}
		if (in->link_free > now)
			continue;
		if (in->saturated && in->src.len == 0) {
			q_push(&in->src, (struct pkt){ now, draw_out(in, k), 0 });
			s->generated++;
		}
		struct pkt *h = q_front(&in->src);
		if (!h)
			continue;
		if (!room(s, i, h->out)) {
			if (in->block_since == UINT64_MAX)
				in->block_since = now;
			continue;
		}
		struct pkt p = q_pop(&in->src);
		record_src(s, now - p.t,
			   in->block_since == UINT64_MAX ? 0 : now - in->block_since);
		in->block_since = UINT64_MAX;
		q_push(queue_for(s, i, p.out), (struct pkt){ now, p.out, i });
		charge(s, i, p.out, (int64_t)s->b);
		in->link_free = now + s->b;
	}
}

static void self_check(struct sim *s)
{
	uint64_t held = backlog(s);

	if (s->generated != s->left + held) {
		snprintf(s->check_msg, sizeof s->check_msg,
			 "cycle %lu: %lu packets generated, %lu left, %lu held",
			 (unsigned long)s->now, (unsigned long)s->generated,
			 (unsigned long)s->left, (unsigned long)held);
		s->check_failed = 1;
	}
	for (unsigned i = 0; i < s->k && !s->check_failed; i++) {
		struct input *in = &s->in[i];
		uint64_t total = 0, pending = 0;
		for (unsigned r = 0; r < in->rel_len; r++)
			pending += s->b;
		for (unsigned q = 0; q < in->nq; q++) {
			struct queue *qu = &in->q[q];
			uint64_t qp = 0, last = 0;
			for (unsigned r = 0; r < in->rel_len; r++)
				if (in->rel[(in->rel_head + r) % in->rel_cap].q == q ||
				    in->nq == 1)
					qp += s->b;
			for (size_t j = 0; j < qu->len; j++) {
				struct pkt *p = &qu->a[(qu->head + j) % qu->cap];
				if (in->nq > 1 && p->out != q) {
					snprintf(s->check_msg, sizeof s->check_msg,
						 "cycle %lu: input %u queue %u holds a packet for output %u",
						 (unsigned long)s->now, i, q, p->out);
					s->check_failed = 1;
				}
				if (p->t < last) {
					snprintf(s->check_msg, sizeof s->check_msg,
						 "cycle %lu: input %u queue %u out of FIFO order",
						 (unsigned long)s->now, i, q);
					s->check_failed = 1;
				}
				last = p->t;
			}
			if (s->c->org != ORG_OQ && qu->flits != qu->len * s->b + qp) {
				snprintf(s->check_msg, sizeof s->check_msg,
					 "cycle %lu: input %u queue %u counts %lu flits, recount %lu",
					 (unsigned long)s->now, i, q, (unsigned long)qu->flits,
					 (unsigned long)(qu->len * s->b + qp));
				s->check_failed = 1;
			}
			if (qu->limit && qu->flits > qu->limit) {
				snprintf(s->check_msg, sizeof s->check_msg,
					 "cycle %lu: input %u queue %u holds %lu flits, limit %lu",
					 (unsigned long)s->now, i, q, (unsigned long)qu->flits,
					 (unsigned long)qu->limit);
				s->check_failed = 1;
			}
			total += qu->len * s->b;
		}
		if (s->c->org != ORG_OQ && in->used != total + pending) {
			snprintf(s->check_msg, sizeof s->check_msg,
				 "cycle %lu: input %u counts %lu flits, recount %lu",
				 (unsigned long)s->now, i, (unsigned long)in->used,
				 (unsigned long)(total + pending));
			s->check_failed = 1;
		}
		if (in->limit && in->used > in->limit) {
			snprintf(s->check_msg, sizeof s->check_msg,
				 "cycle %lu: input %u holds %lu flits, limit %lu",
				 (unsigned long)s->now, i, (unsigned long)in->used,
				 (unsigned long)in->limit);
			s->check_failed = 1;
		}
	}
}

/*
 * Half-width of the confidence interval of the mean of n batch means x
 * at level conf: t_{(1+conf)/2, n-1} * sd / sqrt(n).
 */
static double half_width(const double *x, unsigned n, double conf)
{
	double m = 0, m2 = 0;

	if (n < 2)
		return NAN;
	for (unsigned i = 0; i < n; i++) {
		double d = x[i] - m;
		m += d / (i + 1);
		m2 += d * (x[i] - m);
	}
	return mp_stats_t_quantile(0.5 + conf / 2, n - 1) *
	       sqrt(m2 / (n - 1)) / sqrt((double)n);
}

static void run(const struct cfg *c, const struct feed *f, struct result *r)
{
	struct sim s;
	double confl = c->confidence;

	sim_init(&s, c, f);
	s.t0 = c->warmup;
	s.t1 = c->warmup + c->cycles;
	for (s.now = 0; s.now < s.t1; s.now++) {
		if (s.now == s.t0)
			s.backlog0 = backlog(&s);
		arbitrate(&s);
		releases(&s);
		arrivals(&s);
		if (c->self_check) {
			self_check(&s);
			if (s.check_failed)
				mp_die("self-check: %s", s.check_msg);
		}
	}
	memset(r, 0, sizeof *r);
	double sw = 0, ss = 0, sb = 0;
	uint64_t n = 0, ns = 0;
	for (unsigned bi = 0; bi < c->batches; bi++) {
		sw += s.b_wait[bi];
		ss += s.b_src[bi];
		sb += s.b_blk[bi];
		n += s.b_n[bi];
		ns += s.b_srcn[bi];
	}
	r->packets = n;
	r->wait = n ? sw / n / c->b : NAN;
	r->source_wait = ns ? ss / ns : NAN;
	r->blocked = ns ? sb / ns : NAN;
	/* batch means of the wait, each batch a mean over its packets */
	double *x = xcalloc(c->batches, sizeof *x);
	unsigned nb = 0;
	for (unsigned bi = 0; bi < c->batches; bi++)
		if (s.b_n[bi])
			x[nb++] = s.b_wait[bi] / s.b_n[bi] / c->b;
	r->wait_ci = nb == c->batches ? half_width(x, nb, confl) : NAN;
	/* and of the throughput, each batch's flits over its cycles */
	for (unsigned bi = 0; bi < c->batches; bi++) {
		uint64_t lo = bi * c->cycles / c->batches;
		uint64_t hi = (bi + 1) * c->cycles / c->batches;
		x[bi] = (double)s.b_flits[bi] / (double)(hi - lo) / s.k;
	}
	r->throughput_ci = half_width(x, c->batches, confl);
	free(x);
	uint64_t flits = 0;
	for (unsigned o = 0; o < s.k; o++) {
		r->out_util[o] = (double)s.out_flits[o] / (double)c->cycles;
		flits += s.out_flits[o];
	}
	r->throughput = (double)flits / (double)c->cycles / s.k;
	r->offered = 0;
	for (unsigned i = 0; i < s.k; i++) {
		r->offered += f->util[i] > 1 ? 1 : f->util[i];
		if (s.in[i].saturated)
			r->saturated = 1;
	}
	r->offered /= s.k;
	r->generated = s.generated;
	r->left = s.left;
	r->held = backlog(&s);
	/* growing backlog: more than 1% of the ports' capacity over the run */
	if ((double)backlog(&s) > (double)s.backlog0 + 0.01 * s.k * (double)c->cycles / c->b)
		r->saturated = 1;
	sim_free(&s);
}

/* ---- output ---- */

static void show_feed(const struct cfg *c, const struct feed *f, double load,
		      int first)
{
	unsigned k = f->ports;

	if (c->csv) {
		if (first) {
			printf("load,input,util");
			for (unsigned o = 0; o < k; o++)
				printf(",p_%s", f->port_name[o]);
			printf("\n");
		}
		for (unsigned i = 0; i < k; i++) {
			printf("%g,%s,%.6f", load, f->port_name[i], f->util[i]);
			for (unsigned o = 0; o < k; o++)
				printf(",%.6f", f->prob[i][o]);
			printf("\n");
		}
		return;
	}
	printf("load %g flits per %s per cycle; %u x %u switch\n", load,
	       c->topo == TOPO_BARE ? "input" : "node", k, k);
	if (c->topo != TOPO_BARE)
		printf("mean hops %.6f, per %s %.6f; bottleneck %s utilization %.6f\n",
		       f->hops, c->topo == TOPO_KARY ? "dimension (kd)" : "stage",
		       c->topo == TOPO_KARY ? f->kd : 1.0, f->bottleneck_class,
		       f->bottleneck);
	printf("%-6s %9s", "input", "util");
	for (unsigned o = 0; o < k; o++)
		printf(" %9s", f->port_name[o]);
	printf("\n");
	for (unsigned i = 0; i < k; i++) {
		printf("%-6s %9.6f", f->port_name[i], f->util[i]);
		for (unsigned o = 0; o < k; o++)
			printf(" %9.6f", f->prob[i][o]);
		printf("\n");
	}
	printf("%-6s %9s", "output", "");
	for (unsigned o = 0; o < k; o++)
		printf(" %9.6f", f->out_util[o]);
	printf("  (offered utilization)\n");
}

static double latency_est(const struct cfg *c, const struct feed *f, double w)
{
	double b = c->b;

	if (c->topo == TOPO_KARY)
		return (1 + w * b) * f->n * f->kd + b;
	return (1 + w * b) * f->n + b;
}

static void fmt_num(char *buf, size_t len, double v, int sat_blank)
{
	if (isnan(v) || sat_blank)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "%.6f", v);
}

static void print_csv_header(const struct cfg *c)
{
	if (c->topo == TOPO_BARE)
		printf("load,throughput,wait,wait_ci,throughput_ci,source_wait,blocked,offered,packets,status\n");
	else
		printf("load,bottleneck_util,wait,latency_est,wait_ci,throughput,offered,hops,kd,source_wait,blocked,packets,status\n");
}

static void print_result(const struct cfg *c, const struct feed *f, double load,
			 const struct result *r)
{
	char w[32], ci[32], sw[32], lat[32], tci[32], bl[32];
	const char *st = r->saturated ? "saturated" : "ok";

	fmt_num(w, sizeof w, r->wait, 0);
	fmt_num(ci, sizeof ci, r->wait_ci, 0);
	fmt_num(sw, sizeof sw, r->source_wait, 0);
	fmt_num(tci, sizeof tci, r->throughput_ci, 0);
	fmt_num(bl, sizeof bl, r->blocked, 0);
	fmt_num(lat, sizeof lat, latency_est(c, f, r->wait),
		r->saturated || isnan(r->wait));
	if (c->csv) {
		if (c->topo == TOPO_BARE)
			printf("%g,%.6f,%s,%s,%s,%s,%s,%.6f,%lu,%s\n", load,
			       r->throughput, w, ci, tci, sw, bl, r->offered,
			       (unsigned long)r->packets, st);
		else
			printf("%g,%.6f,%s,%s,%s,%.6f,%.6f,%.6f,%.6f,%s,%s,%lu,%s\n",
			       load, f->bottleneck, w, lat, ci, r->throughput,
			       r->offered, f->hops, f->kd, sw, bl,
			       (unsigned long)r->packets, st);
		return;
	}
	char fl[32];
	if (c->buf_flits)
		snprintf(fl, sizeof fl, "%lu flits", (unsigned long)c->buf_flits);
	else
		snprintf(fl, sizeof fl, "unbounded");
	printf("buffer %s, %s per input, %u-flit packets, arbitration %s\n",
	       org_names[c->org], fl, c->b,
	       c->arb == ARB_RR ? "round-robin" : "oldest-first");
	printf("cycles %lu after %lu of warm-up, seed %lu; %lu packets measured\n",
	       (unsigned long)c->cycles, (unsigned long)c->warmup,
	       (unsigned long)c->seed, (unsigned long)r->packets);
	printf("packets         generated %lu, left %lu, held %lu\n",
	       (unsigned long)r->generated, (unsigned long)r->left,
	       (unsigned long)r->held);
	printf("wait w          %s packet times (+- %s, %g%% CI, %u batches)\n",
	       w, ci, c->confidence * 100, c->batches);
	printf("source wait     %s cycles, of which blocked by a full buffer %s\n",
	       sw, bl);
	printf("throughput      %.6f (+- %s) flits per cycle per output (offered %.6f)\n",
	       r->throughput, tci, r->offered);
	printf("output util    ");
	for (unsigned o = 0; o < f->ports; o++)
		printf(" %s=%.6f", f->port_name[o], r->out_util[o]);
	printf("\n");
	if (c->topo != TOPO_BARE)
		printf("latency est. T  %s cycles\n", lat[0] ? lat : "- (saturated)");
	printf("status          %s\n", st);
}

/* Flush and close stdout; a failed write or close is a failure. */
static int finish(void)
{
	int bad = ferror(stdout);

	errno = 0;
	if (fflush(stdout) != 0)
		bad = 1;
	if (fclose(stdout) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, PROG ": stdout: write failed%s%s\n",
			errno ? ": " : "", errno ? strerror(errno) : "");
		return 1;
	}
	return 0;
}

enum {
	OPT_ARB = 256,
	OPT_BATCHES,
	OPT_BUF_FLITS,
	OPT_BUFFER,
	OPT_CONFIDENCE,
	OPT_CSV,
	OPT_CYCLES,
	OPT_LOAD,
	OPT_PACKET_FLITS,
	OPT_PORTS,
	OPT_SEED,
	OPT_SELF_CHECK,
	OPT_SHOW_PROBS,
	OPT_TOPO,
	OPT_UNIFORM,
	OPT_WARMUP
};

static const struct option longopts[] = {
	{ "arb", required_argument, NULL, OPT_ARB },
	{ "batches", required_argument, NULL, OPT_BATCHES },
	{ "buf-flits", required_argument, NULL, OPT_BUF_FLITS },
	{ "buffer", required_argument, NULL, OPT_BUFFER },
	{ "confidence", required_argument, NULL, OPT_CONFIDENCE },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "cycles", required_argument, NULL, OPT_CYCLES },
	{ "help", no_argument, NULL, 'h' },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "packet-flits", required_argument, NULL, OPT_PACKET_FLITS },
	{ "ports", required_argument, NULL, OPT_PORTS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "self-check", no_argument, NULL, OPT_SELF_CHECK },
	{ "show-probs", no_argument, NULL, OPT_SHOW_PROBS },
	{ "topo", required_argument, NULL, OPT_TOPO },
	{ "uniform", no_argument, NULL, OPT_UNIFORM },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ NULL, 0, NULL, 0 }
};

int main(int argc, char **argv)
{
	struct cfg c = {
		.org = ORG_DAMQ, .arb = ARB_RR, .b = 1, .seed = 1,
		.cycles = DEF_CYCLES, .batches = DEF_BATCHES,
		.confidence = 0.95,
	};
	double loads[MAX_LOADS];
	unsigned nloads = 0;
	int warmup_given = 0, topo_given = 0, ports_given = 0;
	int ch;
	mp_err err;

	mp_prog_init(PROG, usage);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_ARB:
			if (strcmp(optarg, "rr") == 0)
				c.arb = ARB_RR;
			else if (strcmp(optarg, "oldest") == 0)
				c.arb = ARB_OLDEST;
			else
				mp_usage_error("--arb: unknown arbitration '%s' (rr or oldest)", optarg);
			break;
		case OPT_BATCHES:
			c.batches = (unsigned)parse_u64(optarg, 2, 1000, "--batches");
			break;
		case OPT_BUF_FLITS:
			c.buf_flits = parse_u64(optarg, 0, 1000000000, "--buf-flits");
			break;
		case OPT_BUFFER: {
			int found = 0;
			for (unsigned i = 0; i < sizeof org_names / sizeof *org_names; i++)
				if (strcmp(optarg, org_names[i]) == 0) {
					c.org = (enum org)i;
					found = 1;
				}
			if (!found)
				mp_usage_error("--buffer: unknown organization '%s' (fifo, safc, samq, damq or oq)",
					  optarg);
			break;
		}
		case OPT_CONFIDENCE:
			if (mp_parse_double(optarg, 0.0, 1.0, 0, &c.confidence,
					    "--confidence", &err) < 0)
				mp_usage_error("%s", err.msg);
			if (c.confidence <= 0 || c.confidence >= 1)
				mp_usage_error("--confidence: %s is out of range (0, 1)", optarg);
			break;
		case OPT_CSV:
			c.csv = 1;
			break;
		case OPT_CYCLES:
			c.cycles = parse_u64(optarg, 1, 1000000000000ULL, "--cycles");
			break;
		case 'h':
			signal(SIGPIPE, SIG_DFL); /* a closed pipe ends us as any writer */
			usage(stdout);
			return finish();
		case OPT_LOAD:
			nloads = parse_loads(optarg, loads);
			break;
		case OPT_PACKET_FLITS:
			c.b = (unsigned)parse_u64(optarg, 1, MAX_B, "--packet-flits");
			break;
		case OPT_PORTS:
			c.ports = (unsigned)parse_u64(optarg, 2, MAX_PORTS, "--ports");
			ports_given = 1;
			break;
		case OPT_SEED:
			c.seed = parse_u64(optarg, 0, UINT64_MAX, "--seed");
			break;
		case OPT_SELF_CHECK:
			c.self_check = 1;
			break;
		case OPT_SHOW_PROBS:
			c.show_probs = 1;
			break;
		case OPT_TOPO:
			parse_topo(optarg, &c);
			topo_given = 1;
			break;
		case OPT_UNIFORM:
			break;
		case OPT_WARMUP:
			c.warmup = parse_u64(optarg, 0, 1000000000000ULL, "--warmup");
			warmup_given = 1;
			break;
		default: {
			mp_err oe;
			mp_opt_err(ch, optopt, argv[optind - 1], &oe);
			mp_usage_error("%s", oe.msg);
		}
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 0)
		mp_usage_error("unexpected argument '%s'", argv[0]);
	if (topo_given && ports_given)
		mp_usage_error("--topo and --ports exclude each other");
	if (!topo_given && !ports_given)
		mp_usage_error("give --topo or --ports");
	if (!nloads)
		mp_usage_error("give --load");
	if (!topo_given)
		c.topo = TOPO_BARE;
	if (!warmup_given)
		c.warmup = c.cycles / 10;
	if (c.cycles < c.batches)
		mp_usage_error("--cycles %lu is fewer than --batches %u",
			  (unsigned long)c.cycles, c.batches);
	unsigned k = c.topo == TOPO_KARY ? c.n + 1 :
		     c.topo == TOPO_OMEGA ? c.k : c.ports;
	if (k > MAX_PORTS)
		mp_usage_error("the switch would have %u ports (at most %d)", k, MAX_PORTS);
	if (c.buf_flits && c.org != ORG_OQ) {
		if (c.buf_flits < c.b)
			mp_usage_error("--buf-flits %lu is less than one %u-flit packet",
				  (unsigned long)c.buf_flits, c.b);
		if ((c.org == ORG_SAFC || c.org == ORG_SAMQ) &&
		    static_share(c.buf_flits, k, c.b) == 0)
			mp_usage_error("--buf-flits %lu split over %u queues is less than one %u-flit packet each",
				  (unsigned long)c.buf_flits, k, c.b);
	}

	signal(SIGPIPE, SIG_DFL); /* a closed pipe ends us as any writer */
	static struct feed f;
	for (unsigned li = 0; li < nloads; li++) {
		make_feed(&c, loads[li], &f);
		if (c.show_probs) {
			if (!c.csv && li)
				printf("\n");
			show_feed(&c, &f, loads[li], li == 0);
			continue;
		}
		struct result r;
		run(&c, &f, &r);
		if (c.csv) {
			if (li == 0)
				print_csv_header(&c);
		} else {
			if (li)
				printf("\n");
			show_feed(&c, &f, loads[li], li == 0);
		}
		print_result(&c, &f, loads[li], &r);
		if (ferror(stdout))
			break;
	}
	return finish();
}
