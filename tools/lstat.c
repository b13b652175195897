/*
 * lstat: latency, throughput and utilization statistics of a deliveries
 * stream (netrun's output), grouped as asked, as an aligned text table,
 * CSV or gnuplot data. Memory stays bounded: no per-message storage (see
 * man/lstat.1 for the one join kept for --by length|packets).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_prog.h"
#include "mp_record.h"
#include "mp_stats.h"
#include "mp_stream.h"
#include "mp_util.h"

static const char *prog = "lstat";

enum by { BY_NONE, BY_LENGTH, BY_PACKETS, BY_CLASS, BY_GROUP, BY_SRC,
	  BY_DST, BY_HOPS };
static const char *const by_names[] = { "none", "length", "packets", "class",
					"group", "src", "dst", "hops" };

enum out { OUT_TEXT, OUT_CSV, OUT_PLOT, OUT_PROV };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: lstat [-hq] [--by length|packets|class|group|src|dst|hops]\n"
		"             [--csv | --plot | --prov] [--warmup N] "
		"[--warmup-time T]\n"
		"             [--warmup-packets W] [--measure-packets M] "
		"[--slow-inputs K]\n"
		"             [file]\n");
}

static void help(void)
{
	usage(stdout);
	fputs("Latency, throughput and utilization statistics of a deliveries\n"
	      "stream (netrun's output), from file or standard input.\n"
	      "  --by G            one row per group, then all: length (short,\n"
	      "                    long), packets, class, group (hot,\n"
	      "                    independent), src (or node), dst, hops\n"
	      "  --csv             CSV with a header row\n"
	      "  -h, --help        print this help and exit\n"
	      "  --plot            whitespace-separated columns for gnuplot\n"
	      "  --prov            print only the provenance entries\n"
	      "  -q, --quiet       no provenance under the text table\n"
	      "  --slow-inputs K   slow_time and slow_rate: periods in which\n"
	      "                    every input router accepts K packets\n"
	      "  --warmup N        discard messages with id < N and their packets\n"
	      "  --warmup-packets W, --measure-packets M\n"
	      "                    per source and class, discard the first W\n"
	      "                    packets injected and measure the next M\n"
	      "  --warmup-time T   discard messages that arrived and packets\n"
	      "                    injected before time T\n",
	      stdout);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p)
		mp_die("out of memory");
	return p;
}

/* ---- statistics of one group ---- */

struct acc {
	uint64_t key;
	uint64_t msgs, pkts;
	uint64_t wpkts; /* kept packets ejected by the end of the input */
	mp_moments *mlat, *nlat, *plat, *hops;
	mp_hist *mhist, *phist;
	mp_batch *mbat, *nbat, *pbat;
};

static struct acc *acc_new(uint64_t key)
{
	struct acc *a = xcalloc(1, sizeof *a);
	a->key = key;
	a->mlat = mp_moments_new();
	a->nlat = mp_moments_new();
	a->plat = mp_moments_new();
	a->hops = mp_moments_new();
	a->mhist = mp_hist_new();
	a->phist = mp_hist_new();
	a->mbat = mp_batch_new();
	a->nbat = mp_batch_new();
	a->pbat = mp_batch_new();
	if (!a->mlat || !a->nlat || !a->plat || !a->hops || !a->mhist ||
	    !a->phist || !a->mbat || !a->nbat || !a->pbat)
		mp_die("out of memory");
	return a;
}

static void acc_free(struct acc *a)
{
	mp_moments_free(a->mlat);
	mp_moments_free(a->nlat);
	mp_moments_free(a->plat);
	mp_moments_free(a->hops);
	mp_hist_free(a->mhist);
	mp_hist_free(a->phist);
	mp_batch_free(a->mbat);
	mp_batch_free(a->nbat);
	mp_batch_free(a->pbat);
	free(a);
}

static void acc_msg(struct acc *a, const struct mp_dlv *d)
{
	uint64_t lat = d->t_done - d->t_arrive;
	double norm = (double)lat / d->packets;

	a->msgs++;
	mp_moments_add(a->mlat, (double)lat);
	if (mp_hist_add(a->mhist, lat, 1) < 0)
		mp_die("out of memory");
	mp_batch_add(a->mbat, (double)lat);
	mp_moments_add(a->nlat, norm);
	mp_batch_add(a->nbat, norm);
}

/* Without packet records: a message's packets, counted toward
 * throughput when it completed by the end of the input. */
static void acc_msg_pkts(struct acc *a, const struct mp_dlv *d, int early)
{
	a->pkts += d->packets;
	a->wpkts += early ? d->packets : 0;
}

static void acc_pkt(struct acc *a, uint64_t lat, unsigned hops, int early)
{
	a->pkts++;
	a->wpkts += (uint64_t)early;
	mp_moments_add(a->plat, (double)lat);
	if (mp_hist_add(a->phist, lat, 1) < 0)
		mp_die("out of memory");
	mp_batch_add(a->pbat, (double)lat);
	mp_moments_add(a->hops, hops);
}

/*
 * The groups, sorted by key. For the fixed groupings (length, class,
 * group) the keys are the row order and every row exists from the start.
 */
static struct acc **groups;
static size_t ngroups, capgroups;
static struct acc *all;
static struct acc *last_group;

static struct acc *group(uint64_t key)
{
	if (last_group && last_group->key == key)
		return last_group;
	size_t lo = 0, hi = ngroups;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (groups[mid]->key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ngroups || groups[lo]->key != key) {
		if (ngroups == capgroups) {
			size_t cap = capgroups ? 2 * capgroups : 16;
			struct acc **g = realloc(groups, cap * sizeof *g);
			if (!g)
				mp_die("out of memory");
			groups = g;
			capgroups = cap;
		}
		memmove(groups + lo + 1, groups + lo,
			(ngroups - lo) * sizeof *groups);
		groups[lo] = acc_new(key);
		ngroups++;
	}
	return last_group = groups[lo];
}

/* The group of a delivered message under --by. */
static uint64_t dlv_key(enum by by, const struct mp_dlv *d, uint64_t short_max)
{
	switch (by) {
	case BY_LENGTH: return d->packets > short_max;
	case BY_PACKETS: return d->packets;
	case BY_CLASS: return d->cls;
	case BY_GROUP: return d->group == MP_GROUP_HOT ? 0 : 1;
	case BY_SRC: return d->src;
	case BY_DST: return d->dst;
	case BY_HOPS: return d->hops / d->packets;
	case BY_NONE: break;
	}
	return 0;
}

static void group_name(enum by by, uint64_t key, char *buf, size_t cap)
{
	static const char *const length[] = { "short", "long" };
	static const char *const cls[] = { "best-effort", "guaranteed" };
	static const char *const grp[] = { "hot", "independent" };

	switch (by) {
	case BY_LENGTH:
		snprintf(buf, cap, "%s", length[key]);
		break;
	case BY_CLASS:
		snprintf(buf, cap, "%s", cls[key]);
		break;
	case BY_GROUP:
		snprintf(buf, cap, "%s", grp[key]);
		break;
	default:
		snprintf(buf, cap, "%llu", (unsigned long long)key);
		break;
	}
}

/* ---- packets waiting for their message's length (--by length|packets) ---- */

/*
 * A packet's group is known only at its message's dlv record, but the
 * batch means of a group take its packets in stream order. So the kept
 * packets queue in stream order (a FIFO), each naming its message's
 * instance; a dlv record resolves its instance's group, and the queue's
 * head is handed to the groups while its instance is resolved. An id
 * names a new instance from its first packet after its message's record,
 * so ids may be reused by messages that are not in flight together.
 */
struct sample {
	uint64_t lat;
	uint32_t inst;
	unsigned hops;
	int early; /* ejected before the end-of-input marker */
};

/* A message in flight or resolved with packets still queued. */
struct inst {
	uint64_t key;     /* its group, once resolved */
	size_t left;      /* its packets still in the queue */
	int resolved;
	uint32_t next;    /* free list */
};
static struct inst *insts;
static uint32_t ninst, inst_cap, inst_free = UINT32_MAX;

static uint32_t inst_new(void)
{
	uint32_t i;
	if (inst_free != UINT32_MAX) {
		i = inst_free;
		inst_free = insts[i].next;
	} else {
		if (ninst == inst_cap) {
			inst_cap = inst_cap ? 2 * inst_cap : 1024;
			insts = realloc(insts, inst_cap * sizeof *insts);
			if (!insts)
				mp_die("out of memory");
		}
		i = ninst++;
	}
	insts[i] = (struct inst){ 0 };
	return i;
}

static void inst_release(uint32_t i)
{
	insts[i].next = inst_free;
	inst_free = i;
}

/* The queue of kept packets, in stream order: a ring. */
static struct sample *q;
static size_t qhead, qn, qcap;

static void q_push(uint64_t lat, unsigned hops, int early, uint32_t inst)
{
	if (qn == qcap) {
		size_t cap = qcap ? 2 * qcap : 4096;
		struct sample *s = xcalloc(cap, sizeof *s);
		for (size_t i = 0; i < qn; i++)
			s[i] = q[(qhead + i) % qcap];
		free(q);
		q = s;
		qcap = cap;
		qhead = 0;
	}
	q[(qhead + qn) % qcap] = (struct sample){ lat, inst, hops, early };
	qn++;
	insts[inst].left++;
}

struct pend {
	uint64_t id;
	int used;
	size_t n;      /* packets arrived under the id, kept or not */
	uint32_t inst;
};

static struct pend *ptab;
static size_t pcap, pcount;

static size_t phash(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	id *= 0xc4ceb9fe1a85ec53ULL;
	id ^= id >> 33;
	return (size_t)id & (pcap - 1);
}

static struct pend *pend_find(uint64_t id)
{
	if (pcap == 0)
		return NULL;
	for (size_t i = phash(id);; i = (i + 1) & (pcap - 1)) {
		if (!ptab[i].used)
			return NULL;
		if (ptab[i].id == id)
			return &ptab[i];
	}
}

static struct pend *pend_insert(uint64_t id);

static void pend_rehash(size_t cap)
{
	struct pend *old = ptab;
	size_t oldcap = pcap;

	ptab = xcalloc(cap, sizeof *ptab);
	pcap = cap;
	pcount = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used) {
			struct pend *e = pend_insert(old[i].id);
			*e = old[i];
		}
	free(old);
}

static struct pend *pend_insert(uint64_t id)
{
	if (2 * (pcount + 1) > pcap)
		pend_rehash(pcap ? 2 * pcap : 1024);
	size_t i = phash(id);
	while (ptab[i].used)
		i = (i + 1) & (pcap - 1);
	ptab[i].used = 1;
	ptab[i].id = id;
	ptab[i].n = 0;
	ptab[i].inst = inst_new();
	pcount++;
	return &ptab[i];
}

/* Remove e, shifting later members of its probe run back (no tombstones). */
static void pend_delete(struct pend *e)
{
	size_t i = (size_t)(e - ptab), j = i;

	for (;;) {
		ptab[i].used = 0;
		for (;;) {
			j = (j + 1) & (pcap - 1);
			if (!ptab[j].used) {
				pcount--;
				return;
			}
			size_t k = phash(ptab[j].id);
			/* Move j back to i unless its home lies cyclically in (i, j]. */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		ptab[i] = ptab[j];
		i = j;
	}
}

/* Hand the queue's head to the groups while its message is resolved; at
 * the end (final), take every resolved packet and return how many had no
 * message record after them. */
static uint64_t q_drain(int final)
{
	uint64_t unmatched = 0;

	while (qn) {
		struct sample *x = &q[qhead];
		struct inst *m = &insts[x->inst];
		if (m->resolved)
			acc_pkt(group(m->key), x->lat, x->hops, x->early);
		else if (final)
			unmatched++;
		else
			break;
		if (--m->left == 0 && m->resolved)
			inst_release(x->inst);
		qhead = (qhead + 1) % qcap;
		qn--;
	}
	return unmatched;
}

/* ---- the per-source, per-class packet window ---- */

/* A packet record kept until the end of the input, when its rank among
 * the packets of its source and class (in injection order) is known. */
struct held {
	uint64_t msg, t_inject, lat;
	uint64_t ord; /* place in the stream */
	uint32_t src, dst, seq;
	uint16_t hops;
	uint8_t cls, group, early, kept;
};
static struct held *held;
static size_t nheld, held_cap;
static struct mp_dlv *hdlv;
static size_t nhdlv, hdlv_cap;

static void held_add(const struct mp_pkt *p, int early)
{
	if (nheld == held_cap) {
		held_cap = held_cap ? 2 * held_cap : 4096;
		held = realloc(held, held_cap * sizeof *held);
		if (!held)
			mp_die("out of memory");
	}
	held[nheld] = (struct held){
		.msg = p->msg, .t_inject = p->t_inject,
		.lat = p->t_eject - p->t_inject, .src = p->src, .dst = p->dst,
		.seq = p->seq, .hops = p->hops, .cls = p->cls,
		.group = p->group, .early = (uint8_t)early, .ord = nheld,
	};
	nheld++;
}

static void hdlv_add(const struct mp_dlv *d)
{
	if (nhdlv == hdlv_cap) {
		hdlv_cap = hdlv_cap ? 2 * hdlv_cap : 4096;
		hdlv = realloc(hdlv, hdlv_cap * sizeof *hdlv);
		if (!hdlv)
			mp_die("out of memory");
	}
	hdlv[nhdlv++] = *d;
}

/* Injection order within a source and class. */
static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	CMP(src);
	CMP(cls);
	CMP(t_inject);
	CMP(msg);
	CMP(seq);
#undef CMP
	return 0;
}

/* By message id, then seq 0 first. */
static int held_msg_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	if (x->msg != y->msg)
		return x->msg < y->msg ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int held_ord_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

static int dlv_id_cmp(const void *a, const void *b)
{
	const struct mp_dlv *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The held packet that is the first (seq 0) of message id, or NULL. */
static const struct held *held_first(uint64_t id)
{
	size_t lo = 0, hi = nheld;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (held[mid].msg < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nheld && held[lo].msg == id ? &held[lo] : NULL;
}

/* ---- utilization snapshots ---- */

/*
 * Packets offered (by arrival time) and accepted (by ejection time, before
 * the end-of-input mark) in time bins that double in width as time grows,
 * so the second half of the input can be judged in bounded memory once the
 * mark says where it ends.
 */
#define TB_BINS 1024
struct tbins {
	uint64_t width;
	uint64_t n[TB_BINS];
};

static void tb_add(struct tbins *b, uint64_t t, uint64_t count)
{
	if (b->width == 0)
		b->width = 1;
	while (t / b->width >= TB_BINS) {
		for (size_t i = 0; i < TB_BINS / 2; i++)
			b->n[i] = b->n[2 * i] + b->n[2 * i + 1];
		memset(b->n + TB_BINS / 2, 0, TB_BINS / 2 * sizeof b->n[0]);
		b->width *= 2;
	}
	b->n[t / b->width] += count;
}

/* Widen b to width w (a power of two no less than its own). */
static void tb_widen(struct tbins *b, uint64_t w)
{
	if (b->width == 0)
		b->width = 1;
	while (b->width < w) {
		for (size_t i = 0; i < TB_BINS / 2; i++)
			b->n[i] = b->n[2 * i] + b->n[2 * i + 1];
		memset(b->n + TB_BINS / 2, 0, TB_BINS / 2 * sizeof b->n[0]);
		b->width *= 2;
	}
}

/* The count from bin `from` on. */
static uint64_t tb_sum_from(const struct tbins *b, size_t from)
{
	uint64_t s = 0;
	for (size_t i = from; i < TB_BINS; i++)
		s += b->n[i];
	return s;
}

static struct tbins tb_offered, tb_accepted;

struct snap {
	uint64_t t, busy;
	uint32_t nports;
};

/* Most candidate snapshots kept while the window start is unknown. */
#define SNAP_MAX 65536

struct snaps {
	struct snap *s;  /* candidates for the window's first snapshot */
	size_t n, cap;
	struct snap last;
	int have_last;
	struct snap mark; /* taken when the input ended (netrun's marker) */
	int have_mark;
	uint64_t thinned; /* times every other candidate was dropped */
};

static struct snaps util[2]; /* MP_UTIL_PE, MP_UTIL_INTERNAL */
/* Per-port utilizations (MP_UTIL_PORT) summed by channel class. */
#define NPCLS 256
static double pcls_util[NPCLS];
static uint64_t pcls_n[NPCLS];

/*
 * The channel classes of the topology, for bottleneck_util. In a
 * direct network the ports numbered below its degree are links, each
 * port number a class, those from it on the terminal's. In an
 * omega:A,S (switches numbered stage by stage, A^(S-1) to a stage,
 * inputs 0..A-1 and outputs A..2A-1) every link between stages is of
 * one class: the outputs of the switches of stages 0..S-2; a stage-0
 * input (injection), a last-stage output (ejection) and the ports
 * from 2A on are the terminals'.
 */
static struct pclass {
	unsigned n;        /* classes, 0: none known */
	unsigned a;        /* omega: switch radix, else 0 */
	uint64_t links;    /* omega: switches of stages 0..S-2 */
} pclass;

static void pclass_init(const char *topo)
{
	unsigned k, n;
	memset(&pclass, 0, sizeof pclass);
	if (!topo)
		return;
	if (!strncmp(topo, "hex:", 4) || !strncmp(topo, "hexrect:", 8))
		pclass.n = 6;
	else if (!strncmp(topo, "torus:", 6) || !strncmp(topo, "mesh:", 5))
		pclass.n = 4;
	else if (sscanf(topo, "kary:%u,%u", &k, &n) == 2 && n < NPCLS)
		pclass.n = n;
	else if (sscanf(topo, "omega:%u,%u", &k, &n) == 2 && k >= 2 &&
		 n >= 1 && n <= 20) {
		uint64_t per = 1;
		for (unsigned i = 1; i < n; i++)
			per *= k;
		pclass.n = 1;
		pclass.a = k;
		pclass.links = per * (n - 1);
	}
}

/* The class of port `port` of switch `node`, or -1: not a link. */
static int port_class(uint32_t node, uint32_t port)
{
	if (pclass.a)
		return node < pclass.links && port >= pclass.a &&
		       port < 2 * pclass.a ? 0 : -1;
	return port < pclass.n ? (int)port : -1;
}

/*
 * The most loaded class of internal channel against int_util: int_util
 * (over the window) times the ratio of the busiest class's mean
 * utilization to that of all internal ports (over the whole run; the
 * per-port records cover it). A class (pclass): the channels leaving
 * the same port number of their switches, every link of an omega, if
 * at least half as many as the most numerous. NAN without per-port
 * records or a known topology.
 */
static double bottleneck(double intu, unsigned ncls)
{
	double sum = 0, top = 0;
	uint64_t n = 0, most = 0;
	for (unsigned p = 0; p < ncls; p++)
		if (pcls_n[p] > most)
			most = pcls_n[p];
	for (unsigned p = 0; p < ncls; p++) {
		if (!pcls_n[p])
			continue;
		sum += pcls_util[p];
		n += pcls_n[p];
		/* A class is a port number most switches report: a model
		 * reporting a half-duplex link once, at one of its ends,
		 * leaves a few odd ones that are no class. */
		if (pcls_n[p] * 2 >= most &&
		    pcls_util[p] / (double)pcls_n[p] > top)
			top = pcls_util[p] / (double)pcls_n[p];
	}
	if (!n || isnan(intu) || sum <= 0)
		return intu == 0 && n ? 0 : NAN;
	if (top < sum / (double)n) /* never below the mean */
		top = sum / (double)n;
	return intu * top / (sum / (double)n);
}

/*
 * Keep a snapshot that may become the first one at or after the window
 * start. ws is the start if known (fixed) or its current upper bound
 * (count warm-up: the smallest arrival among kept messages so far).
 */
static void snap_add(struct snaps *sp, const struct mp_util *u, uint64_t ws,
		     int fixed)
{
	struct snap s = { u->t, u->busy, u->nports };

	if (!sp->have_last || s.t >= sp->last.t)
		sp->last = s;
	sp->have_last = 1;
	if (fixed && s.t < ws)
		return;
	if (sp->n > 0 && sp->s[sp->n - 1].t >= ws)
		return; /* a snapshot at or after any later start is held */
	if (sp->n == SNAP_MAX) {
		size_t k = 0;
		for (size_t i = 0; i < sp->n; i += 2)
			sp->s[k++] = sp->s[i];
		sp->n = k;
		sp->thinned++;
	}
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? 2 * sp->cap : 64;
		struct snap *p = realloc(sp->s, cap * sizeof *p);
		if (!p)
			mp_die("out of memory");
		sp->s = p;
		sp->cap = cap;
	}
	sp->s[sp->n++] = s;
}

/* The window start bound fell to ws: drop what follows the first at ws. */
static void snap_prune(struct snaps *sp, uint64_t ws)
{
	for (size_t i = 0; i < sp->n; i++)
		if (sp->s[i].t >= ws) {
			sp->n = i + 1;
			return;
		}
}

/*
 * Utilization over [t1, t2]: t1 the first snapshot at or after ws (time
 * 0 with zero counters when ws is 0), t2 the last. When no snapshot lies
 * after ws and before the last, the whole run [0, t2]; *whole says so.
 * NaN when there are no snapshots.
 */
static double snap_util(const struct snaps *sp, uint64_t ws, uint64_t *t1,
			uint64_t *t2, int *whole)
{
	struct snap a = { 0, 0, 0 };
	int found = ws == 0;

	*whole = 0;
	if (!sp->have_last || sp->last.t == 0 || sp->last.nports == 0)
		return NAN;
	/* Up to the end of the input when netrun marked it, so the drain
	 * after the last arrival does not dilute the figure. */
	struct snap end = sp->have_mark && sp->mark.t > ws ? sp->mark : sp->last;
	if (!found)
		for (size_t i = 0; i < sp->n; i++)
			if (sp->s[i].t >= ws && (!found || sp->s[i].t < a.t)) {
				a = sp->s[i];
				found = 1;
			}
	if (!found || a.t >= end.t || a.busy > end.busy) {
		a.t = 0;
		a.busy = 0;
		*whole = 1;
	}
	*t1 = a.t;
	*t2 = end.t;
	return (double)(end.busy - a.busy) /
	       ((double)end.nports * (double)(end.t - a.t));
}

/* ---- output ---- */

enum colkind { C_NAME, C_NUM, C_STATUS };

struct col {
	const char *name;  /* CSV and plot */
	const char *title; /* text table; NULL: not in it */
	int csv;           /* decimals in CSV; -1: %.9g */
	int text;          /* decimals in the text table; -1: %.4g */
};

enum {
	K_GROUP, K_MSGS, K_PKTS, K_THRU, K_MLAT, K_MCI, K_NLAT, K_PLAT, K_PP99,
	K_HOPS, K_PEU, K_INTU, K_OFFERED, K_MSD, K_MCV, K_MMIN, K_MP50, K_MP90,
	K_MP99, K_MP999, K_MMAX, K_NCI, K_PCI, K_PSD, K_PCV, K_PP50, K_PP90,
	K_PP999, K_PMAX, K_STATUS, K_RAW, K_NSD, K_PMIN, K_WSTART, K_WEND,
	K_USTART, K_UEND, K_MAKESPAN, K_TRACE_END, K_DWMEAN, K_DWP99, K_SLOWT,
	K_SLOWR, K_BNU, NCOL
};
/* CSV columns: all, but slow_time and slow_rate only with
 * --slow-inputs. */
static int show_slow;
#define CSV_SKIP(k) (!show_slow && ((k) == K_SLOWT || (k) == K_SLOWR))

static const struct col cols[NCOL] = {
	[K_GROUP] = { "group", "group", 0, 0 },
	[K_MSGS] = { "messages", "messages", 0, 0 },
	[K_PKTS] = { "packets", "packets", 0, 0 },
	[K_THRU] = { "throughput", "throughput", 6, 4 },
	[K_MLAT] = { "msg_lat_mean", "msg_lat", 3, 1 },
	[K_MCI] = { "msg_lat_ci95", "+-ci95", 3, 1 },
	[K_NLAT] = { "norm_lat_mean", "norm_lat", 3, 1 },
	[K_PLAT] = { "pkt_lat_mean", "pkt_lat", 3, 1 },
	[K_PP99] = { "pkt_lat_p99", "pkt_p99", 1, 1 },
	[K_HOPS] = { "hops_mean", "hops", 4, 2 },
	[K_PEU] = { "pe_util", "pe_util", 6, 4 },
	[K_INTU] = { "int_util", "int_util", 6, 4 },
	[K_OFFERED] = { "offered", NULL, 6, 0 },
	[K_MSD] = { "msg_lat_sd", "sd", 3, 1 },
	[K_MCV] = { "msg_lat_cv", "cv", 6, 3 },
	[K_MMIN] = { "msg_lat_min", NULL, 0, 0 },
	[K_MP50] = { "msg_lat_p50", "p50", 1, 1 },
	[K_MP90] = { "msg_lat_p90", NULL, 1, 1 },
	[K_MP99] = { "msg_lat_p99", "p99", 1, 1 },
	[K_MP999] = { "msg_lat_p999", NULL, 1, 1 },
	[K_MMAX] = { "msg_lat_max", NULL, 0, 0 },
	[K_NCI] = { "norm_lat_ci95", NULL, 3, 1 },
	[K_PCI] = { "pkt_lat_ci95", NULL, 3, 1 },
	[K_PSD] = { "pkt_lat_sd", NULL, 3, 1 },
	[K_PCV] = { "pkt_lat_cv", NULL, 6, 3 },
	[K_PP50] = { "pkt_lat_p50", NULL, 1, 1 },
	[K_PP90] = { "pkt_lat_p90", NULL, 1, 1 },
	[K_PP999] = { "pkt_lat_p999", NULL, 1, 1 },
	[K_PMAX] = { "pkt_lat_max", NULL, 0, 0 },
	[K_STATUS] = { "status", NULL, 0, 0 },
	[K_RAW] = { "throughput_raw", "pkt/node/unit", -1, -1 },
	[K_NSD] = { "norm_lat_sd", NULL, 3, 1 },
	[K_PMIN] = { "pkt_lat_min", NULL, 0, 0 },
	[K_WSTART] = { "window_start", NULL, 0, 0 },
	[K_WEND] = { "window_end", NULL, 0, 0 },
	[K_USTART] = { "util_start", NULL, 0, 0 },
	[K_UEND] = { "util_end", NULL, 0, 0 },
	/* The application's view (closed-loop replay): the whole stream. */
	[K_MAKESPAN] = { "makespan", "makespan", 0, 0 },
	[K_TRACE_END] = { "trace_end", "trace_end", 0, 0 },
	[K_DWMEAN] = { "dep_wait_mean", "dep_wait", 3, 1 },
	[K_DWP99] = { "dep_wait_p99", "dep_p99", 1, 1 },
	[K_SLOWT] = { "slow_time", "slow_time", 3, 2 },
	[K_SLOWR] = { "slow_rate", "slow_rate", 6, 4 },
	/* SPEC 3.5's x-axis: the utilization of the most loaded class of
	 * internal channel (the channels of one port number). */
	[K_BNU] = { "bottleneck_util", NULL, 6, 4 },
};

/* Columns of the text table, in order. */
static const int text_cols[] = {
	K_GROUP, K_MSGS, K_PKTS, K_THRU, K_RAW, K_MLAT, K_MCI, K_MSD, K_MCV,
	K_MP50, K_MP99, K_NLAT, K_PLAT, K_PP99, K_HOPS, K_PEU, K_INTU,
	K_MAKESPAN, K_TRACE_END, K_DWMEAN, K_DWP99, K_SLOWT, K_SLOWR
};
#define NTEXT (sizeof text_cols / sizeof text_cols[0])
/* The text columns shown: the four of dependencies only for a stream
 * with them (deps=1), the last two only with --slow-inputs. */
static int tcols[NTEXT];
static size_t ntext;

/* What every row shares: the run, the window, the utilization. */
struct global {
	double nodes, pe_time, offered;
	int have_window;
	uint64_t wstart, wend;
	int marked; /* the window ends at the end of the input */
	double peu, intu, bnu;
	int have_ut;
	uint64_t ut1, ut2;
	const char *status;
	double makespan, trace_end, dw_mean, dw_p99;
	double slow_time, slow_rate; /* --slow-inputs */
};

static double ratio(double a, double b)
{
	return b != 0 ? a / b : NAN;
}

static void row_values(const struct acc *a, const struct global *g,
		       double *v)
{
	for (int k = 0; k < NCOL; k++)
		v[k] = NAN;
	v[K_MSGS] = (double)a->msgs;
	v[K_SLOWT] = g->slow_time;
	v[K_SLOWR] = g->slow_rate;
	v[K_PKTS] = (double)a->pkts;
	if (g->have_window && g->wend > g->wstart && g->nodes > 0) {
		v[K_RAW] = (double)(g->marked ? a->wpkts : a->pkts) /
			   (g->nodes * (double)(g->wend - g->wstart));
		v[K_THRU] = v[K_RAW] * g->pe_time;
	}
	v[K_MLAT] = mp_moments_mean(a->mlat);
	v[K_MCI] = mp_batch_ci95(a->mbat);
	v[K_MSD] = mp_moments_sd(a->mlat);
	v[K_MCV] = ratio(v[K_MSD], v[K_MLAT]);
	if (a->msgs) {
		v[K_MMIN] = (double)mp_hist_min(a->mhist);
		v[K_MMAX] = (double)mp_hist_max(a->mhist);
	}
	v[K_MP50] = mp_hist_quantile(a->mhist, 0.5);
	v[K_MP90] = mp_hist_quantile(a->mhist, 0.9);
	v[K_MP99] = mp_hist_quantile(a->mhist, 0.99);
	v[K_MP999] = mp_hist_quantile(a->mhist, 0.999);
	v[K_NLAT] = mp_moments_mean(a->nlat);
	v[K_NCI] = mp_batch_ci95(a->nbat);
	v[K_NSD] = mp_moments_sd(a->nlat);
	v[K_PLAT] = mp_moments_mean(a->plat);
	v[K_PCI] = mp_batch_ci95(a->pbat);
	v[K_PSD] = mp_moments_sd(a->plat);
	v[K_PCV] = ratio(v[K_PSD], v[K_PLAT]);
	if (a->pkts) {
		v[K_PMIN] = (double)mp_hist_min(a->phist);
		v[K_PMAX] = (double)mp_hist_max(a->phist);
	}
	v[K_PP50] = mp_hist_quantile(a->phist, 0.5);
	v[K_PP90] = mp_hist_quantile(a->phist, 0.9);
	v[K_PP99] = mp_hist_quantile(a->phist, 0.99);
	v[K_PP999] = mp_hist_quantile(a->phist, 0.999);
	v[K_HOPS] = mp_moments_mean(a->hops);
	v[K_PEU] = g->peu;
	v[K_INTU] = g->intu;
	v[K_BNU] = g->bnu;
	v[K_OFFERED] = g->offered;
	if (g->have_window) {
		v[K_WSTART] = (double)g->wstart;
		v[K_WEND] = (double)g->wend;
	}
	if (g->have_ut) {
		v[K_USTART] = (double)g->ut1;
		v[K_UEND] = (double)g->ut2;
	}
	v[K_MAKESPAN] = g->makespan;
	v[K_TRACE_END] = g->trace_end;
	v[K_DWMEAN] = g->dw_mean;
	v[K_DWP99] = g->dw_p99;
}

/* Format column k of a row: "" for a missing value. */
static void cell(char *buf, size_t cap, int k, const char *name,
		 const double *v, const struct global *g, int text)
{
	int prec = text ? cols[k].text : cols[k].csv;

	if (k == K_GROUP)
		snprintf(buf, cap, "%s", name);
	else if (k == K_STATUS)
		snprintf(buf, cap, "%s", g->status ? g->status : "");
	else if (isnan(v[k]) || isinf(v[k]))
		buf[0] = '\0';
	else if (prec < 0)
		snprintf(buf, cap, text ? "%.4g" : "%.9g", v[k]);
	else
		snprintf(buf, cap, "%.*f", prec, v[k]);
}

#define CELL 64

struct row {
	char name[32];
	double v[NCOL];
};

static void print_text(const struct row *rows, size_t n,
		       const struct global *g)
{
	size_t w[sizeof text_cols / sizeof text_cols[0]];
	char buf[CELL];

	for (size_t j = 0; j < ntext; j++)
		w[j] = strlen(cols[tcols[j]].title);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < ntext; j++) {
			cell(buf, sizeof buf, tcols[j], rows[i].name,
			     rows[i].v, g, 1);
			size_t len = buf[0] ? strlen(buf) : 1;
			if (len > w[j])
				w[j] = len;
		}
	for (size_t j = 0; j < ntext; j++)
		printf(j == 0 ? "%-*s" : "  %*s", (int)w[j],
		       cols[tcols[j]].title);
	putchar('\n');
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < ntext; j++) {
			cell(buf, sizeof buf, tcols[j], rows[i].name,
			     rows[i].v, g, 1);
			printf(j == 0 ? "%-*s" : "  %*s", (int)w[j],
			       buf[0] ? buf : "-");
		}
		putchar('\n');
	}
}

static void print_sep(const struct row *rows, size_t n,
		      const struct global *g, int csv)
{
	char buf[CELL];

	if (!csv)
		fputs("# ", stdout);
	for (int k = 0; k < NCOL; k++)
		if (!CSV_SKIP(k))
			printf("%s%s", k ? (csv ? "," : " ") : "",
			       cols[k].name);
	putchar('\n');
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < NCOL; k++) {
			if (CSV_SKIP(k))
				continue;
			cell(buf, sizeof buf, k, rows[i].name, rows[i].v, g, 0);
			if (!csv && buf[0] == '\0')
				strcpy(buf, "-");
			printf("%s%s", k ? (csv ? "," : " ") : "", buf);
		}
		putchar('\n');
	}
}

static void print_prov(const mp_hdr *h, const char *prefix)
{
	for (size_t i = 0; i < mp_hdr_count(h); i++)
		if (strcmp(mp_hdr_key(h, i), "prov") == 0)
			printf("%s%s\n", prefix, mp_hdr_value(h, i));
}

static void finish_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		mp_die("stdout: write failed: %s", strerror(errno));
	if (fclose(stdout) != 0)
		mp_die("stdout: write failed: %s", strerror(errno));
}

/* ---- slow inputs ---- */

/* Acceptance times by input router. */
struct acc_times {
	struct { uint64_t *t; size_t n, cap; } *r;
	size_t nr;
};

static void times_add(struct acc_times *a, uint64_t router, uint64_t t)
{
	if (router >= a->nr) {
		size_t nr = a->nr ? a->nr : 64;
		while (nr <= router)
			nr *= 2;
		a->r = realloc(a->r, nr * sizeof *a->r);
		if (!a->r)
			mp_die("out of memory");
		memset(a->r + a->nr, 0, (nr - a->nr) * sizeof *a->r);
		a->nr = nr;
	}
	if (a->r[router].n == a->r[router].cap) {
		size_t cap = a->r[router].cap ? 2 * a->r[router].cap : 64;
		uint64_t *p = realloc(a->r[router].t, cap * sizeof *p);
		if (!p)
			mp_die("out of memory");
		a->r[router].t = p;
		a->r[router].cap = cap;
	}
	a->r[router].t[a->r[router].n++] = t;
}

static void times_free(struct acc_times *a)
{
	for (size_t i = 0; i < a->nr; i++)
		free(a->r[i].t);
	free(a->r);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/*
 * Cut [start, end) into periods: each ends when every input router
 * that accepted anything has accepted k packets since it began (the
 * slowest one's k-th acceptance, plus its unit). Returns the mean
 * period length (NaN when no period fits), the count in *np.
 */
static double slow_periods(struct acc_times *a, uint64_t k, uint64_t start,
			   uint64_t end, uint64_t *np)
{
	size_t nr = 0;
	for (size_t i = 0; i < a->nr; i++)
		if (a->r[i].n) {
			qsort(a->r[i].t, a->r[i].n, sizeof *a->r[i].t, cmp_u64);
			nr++;
		}
	size_t *idx = calloc(a->nr ? a->nr : 1, sizeof *idx);
	if (!idx)
		mp_die("out of memory");
	uint64_t t0 = start, periods = 0;
	double sum = 0;
	for (int go = nr > 0; go;) {
		uint64_t t1 = 0;
		for (size_t i = 0; i < a->nr && go; i++) {
			if (!a->r[i].n)
				continue;
			while (idx[i] < a->r[i].n && a->r[i].t[idx[i]] < t0)
				idx[i]++;
			if (idx[i] + k > a->r[i].n ||
			    a->r[i].t[idx[i] + k - 1] >= end)
				go = 0;
			else if (a->r[i].t[idx[i] + k - 1] + 1 > t1)
				t1 = a->r[i].t[idx[i] + k - 1] + 1;
		}
		if (!go)
			break;
		sum += (double)(t1 - t0);
		periods++;
		t0 = t1;
	}
	free(idx);
	if (np)
		*np = periods;
	return periods ? sum / (double)periods : NAN;
}

/* ---- main ---- */

static const char *const status_names[] = { "ok", "saturated", "deadlock",
					    "stopped" };

/* Which of two run statuses to report: deadlock, saturated, stopped, ok. */
static int worse_status(int a, int b)
{
	static const int rank[] = { 0, 2, 3, 1 };
	return rank[b] > rank[a] ? b : a;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "plot", no_argument, NULL, 'p' },
		{ "prov", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "measure-packets", required_argument, NULL, 'M' },
		{ "slow-inputs", required_argument, NULL, 'S' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "warmup-packets", required_argument, NULL, 'K' },
		{ "warmup-time", required_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	enum by by = BY_NONE;
	enum out out = OUT_TEXT;
	int nout = 0, quiet = 0, have_wn = 0, have_wt = 0, c;
	uint64_t warm_n = 0, warm_t = 0, warm_p = 0, meas_p = UINT64_MAX;
	uint64_t slow_k = 0;
	int have_wp = 0;
	mp_err err;

	mp_prog_init(prog, usage);

	/* A closed pipe downstream ends lstat as it would any writer. */
	signal(SIGPIPE, SIG_DFL);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hq", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': {
			size_t i;
			/* "node" is the source node, as the README has it. */
			const char *name = strcmp(optarg, "node") == 0 ? "src" :
					   optarg;
			for (i = 0; i < sizeof by_names / sizeof by_names[0]; i++)
				if (strcmp(name, by_names[i]) == 0)
					break;
			if (i == sizeof by_names / sizeof by_names[0])
				mp_usage_error("--by: unknown grouping '%s'", optarg);
			by = (enum by)i;
			break;
		}
		case 'c':
			out = OUT_CSV;
			nout++;
			break;
		case 'h':
			help();
			finish_stdout();
			return 0;
		case 'p':
			out = OUT_PLOT;
			nout++;
			break;
		case 'P':
			out = OUT_PROV;
			nout++;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'S':
			if (mp_parse_u64(optarg, 1, UINT32_MAX, &slow_k,
					 "--slow-inputs", &err) < 0)
				mp_usage_error("%s", err.msg);
			show_slow = 1;
			break;
		case 'K':
		case 'M':
			if (mp_parse_u64(optarg, c == 'K' ? 0 : 1, UINT64_MAX,
					 c == 'K' ? &warm_p : &meas_p,
					 c == 'K' ? "--warmup-packets" :
						    "--measure-packets", &err) < 0)
				mp_usage_error("%s", err.msg);
			have_wp = 1;
			break;
		case 'w':
		case 'W':
			if (mp_parse_u64(optarg, 0, UINT64_MAX,
					 c == 'w' ? &warm_n : &warm_t,
					 c == 'w' ? "--warmup" : "--warmup-time",
					 &err) < 0)
				mp_usage_error("%s", err.msg);
			if (c == 'w')
				have_wn = 1;
			else
				have_wt = 1;
			break;
		default:
			mp_opt_err(c, optopt, argv[optind - 1], &err);
			mp_usage_error("%s", err.msg);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		mp_usage_error("more than one input");
	if (nout > 1)
		mp_usage_error("--csv, --plot and --prov exclude each other");
	if (argc == 0 && isatty(STDIN_FILENO))
		mp_usage_error("standard input is a terminal: give a file or pipe "
			    "a stream (... | netrun | lstat)");
	if (have_wp && (have_wn || have_wt))
		mp_usage_error("--warmup-packets and --measure-packets exclude "
			       "--warmup and --warmup-time");

	mp_reader *r = mp_reader_open(argc ? argv[0] : "-", &err);
	if (!r)
		mp_die("%s", err.msg);
	const mp_hdr *h = mp_reader_header(r);
	const char *input = mp_reader_name(r);
	if (out == OUT_PROV) {
		print_prov(h, "");
		mp_reader_close(r);
		finish_stdout();
		return 0;
	}
	if (mp_hdr_kind(h) != MP_KIND_DELIVERIES) {
		const char *k = mp_kind_name(mp_hdr_kind(h));
		mp_die("%s: a stream of kind %s, not deliveries", input,
		    k ? k : "unknown");
	}

	uint64_t short_max = 5, hnodes = 0;
	double pe_time = NAN, offered = NAN;
	if (mp_hdr_get(h, "short_max") &&
	    mp_hdr_get_u64(h, "short_max", &short_max) < 0)
		mp_die("%s: header: bad short_max '%s'", input,
		    mp_hdr_get(h, "short_max"));
	if (mp_hdr_get(h, "nodes") && mp_hdr_get_u64(h, "nodes", &hnodes) < 0)
		mp_die("%s: header: bad nodes '%s'", input, mp_hdr_get(h, "nodes"));
	if (mp_hdr_get(h, "pe_time") &&
	    (mp_hdr_get_double(h, "pe_time", &pe_time) < 0 || !(pe_time > 0)))
		mp_die("%s: header: bad pe_time '%s'", input,
		    mp_hdr_get(h, "pe_time"));
	if (mp_hdr_get(h, "load") && mp_hdr_get_double(h, "load", &offered) < 0)
		mp_die("%s: header: bad load '%s'", input, mp_hdr_get(h, "load"));
	/* netrun --no-packets: the run delivered packets it did not write. */
	const char *pr = mp_hdr_get(h, "pkt_records");
	if (pr && strcmp(pr, "0") != 0 && strcmp(pr, "1") != 0)
		mp_die("%s: header: bad pkt_records '%s'", input, pr);
	int no_pkts = pr && strcmp(pr, "0") == 0;

	/* The synchronous model's throughput is Boughton's: packets
	 * accepted (injected) in the window, not ejected in it. */
	const char *fmodel = mp_hdr_get(h, "fabric.model");
	int acc_rule = fmodel && strcmp(fmodel, "ncube") == 0;
	/* --slow-inputs: an input router is a first-stage router of A
	 * inputs in a butterfly:A,D or a leaf router of a tree:A,D (else
	 * each input alone). */
	unsigned slow_a = 1;
	const char *topo = mp_hdr_get(h, "topology");
	pclass_init(topo);
	if (topo && (strncmp(topo, "butterfly:", 10) == 0 ||
		     strncmp(topo, "omega:", 6) == 0 ||
		     strncmp(topo, "tree:", 5) == 0) &&
	    sscanf(strchr(topo, ':') + 1, "%u", &slow_a) != 1)
		slow_a = 1;
	if (slow_a < 1)
		slow_a = 1;
	struct acc_times slow = { 0 };

	/* Fixed groupings have all their rows from the start. */
	if (by == BY_LENGTH || by == BY_CLASS || by == BY_GROUP) {
		group(0);
		group(1);
	}
	all = acc_new(0);
	int join = by == BY_LENGTH || by == BY_PACKETS;

	uint64_t n_dlv = 0, n_pkt = 0, kept_dlv = 0, kept_pkt = 0;
	uint64_t t_last = 0, max_node = 0;
	int have_node = 0;
	uint64_t ws = have_wn ? UINT64_MAX : warm_t; /* window start (bound) */
	int ws_fixed = !have_wn;
	int nruns = 0, status = MP_RUN_OK;
	int mark = 0;        /* the end-of-input marker was read */
	int nmarks = 0;      /* markers read (one per concatenated run) */
	uint64_t mark_t = 0; /* its time: the last arrival */
	/* The application's view: last delivery, last trace time (of rel
	 * records in a deps stream, else of arrivals), dependency wait. */
	uint64_t makespan = 0, trace_dlv = 0, trace_rel = 0, nrel = 0;
	mp_moments *dw = mp_moments_new();
	mp_hist *dwh = mp_hist_new();
	if (!dw || !dwh)
		mp_die("out of memory");
	struct mp_run run = { 0 };
	mp_rec rec;
	int rc;

	while ((rc = mp_reader_next(r, &rec)) == 1) {
		switch (rec.tag) {
		case MP_REC_DLV: {
			const struct mp_dlv *d = &rec.dlv;
			n_dlv++;
			if (d->t_done > t_last)
				t_last = d->t_done;
			if (d->t_done > makespan)
				makespan = d->t_done;
			if (d->t_arrive > trace_dlv)
				trace_dlv = d->t_arrive;
			uint64_t mx = d->src > d->dst ? d->src : d->dst;
			if (!have_node || mx > max_node)
				max_node = mx;
			have_node = 1;
			tb_add(&tb_offered, d->t_arrive, d->packets);
			if (have_wp) {
				hdlv_add(d);
				break;
			}
			uint64_t key = dlv_key(by, d, short_max);
			if (join) {
				struct pend *e = pend_find(d->id);
				/* Packets are matched to their message by id:
				 * more than it has means two messages in
				 * flight share one. */
				if (e && e->n > d->packets)
					mp_die("%s: record %llu: message %llu has %u "
					    "packets but %zu arrived under its id: "
					    "message ids are not unique", input,
					    (unsigned long long)mp_reader_recno(r),
					    (unsigned long long)d->id, d->packets,
					    e->n);
				if (e) {
					struct inst *m = &insts[e->inst];
					m->key = key;
					m->resolved = 1;
					if (m->left == 0)
						inst_release(e->inst);
					pend_delete(e);
					q_drain(0);
				}
			}
			if ((have_wn && d->id < warm_n) ||
			    (have_wt && d->t_arrive < warm_t))
				break;
			kept_dlv++;
			acc_msg(all, d);
			if (by != BY_NONE)
				acc_msg(group(key), d);
			if (no_pkts) {
				acc_msg_pkts(all, d, !mark);
				if (by != BY_NONE)
					acc_msg_pkts(group(key), d, !mark);
			}
			if (have_wn && d->t_arrive < ws) {
				ws = d->t_arrive;
				snap_prune(&util[0], ws);
				snap_prune(&util[1], ws);
			}
			break;
		}
		case MP_REC_PKT: {
			const struct mp_pkt *p = &rec.pkt;
			n_pkt++;
			if (p->t_eject > t_last)
				t_last = p->t_eject;
			uint64_t mx = p->src > p->dst ? p->src : p->dst;
			if (!have_node || mx > max_node)
				max_node = mx;
			have_node = 1;
			if (!mark)
				tb_add(&tb_accepted, p->t_eject, 1);
			if (have_wp) {
				held_add(p, !mark);
				break;
			}
			int kept = !((have_wn && p->msg < warm_n) ||
				     (have_wt && p->t_inject < warm_t));
			uint64_t lat = p->t_eject - p->t_inject;
			int early = !mark || (acc_rule && p->t_inject < mark_t);
			if (kept) {
				kept_pkt++;
				acc_pkt(all, lat, p->hops, early);
				if (slow_k)
					times_add(&slow, p->src / slow_a,
						  p->t_inject);
			}
			if (join) {
				struct pend *e = pend_find(p->msg);
				if (!e)
					e = pend_insert(p->msg);
				e->n++;
				if (kept)
					q_push(lat, p->hops, early, e->inst);
				break;
			}
			if (!kept || by == BY_NONE)
				break;
			uint64_t key = 0;
			switch (by) {
			case BY_CLASS: key = p->cls; break;
			case BY_GROUP: key = p->group == MP_GROUP_HOT ? 0 : 1; break;
			case BY_SRC: key = p->src; break;
			case BY_DST: key = p->dst; break;
			case BY_HOPS: key = p->hops; break;
			default: break;
			}
			acc_pkt(group(key), lat, p->hops, early);
			break;
		}
		case MP_REC_UTIL:
			if (rec.util.scope == MP_UTIL_PORT && rec.util.t > 0 &&
			    port_class(rec.util.node, rec.util.port) >= 0) {
				int pc = port_class(rec.util.node, rec.util.port);
				pcls_util[pc] += (double)rec.util.busy /
						 (double)rec.util.t;
				pcls_n[pc]++;
			}
			if (rec.util.scope == MP_UTIL_PE ||
			    rec.util.scope == MP_UTIL_INTERNAL)
				snap_add(&util[rec.util.scope], &rec.util, ws,
					 ws_fixed);
			if (rec.util.scope == MP_UTIL_PE_INPUT_END ||
			    rec.util.scope == MP_UTIL_INTERNAL_INPUT_END) {
				/* The last message arrived here: what follows
				 * is the drain. */
				int k = rec.util.scope - MP_UTIL_PE_INPUT_END;
				snap_add(&util[k], &rec.util, ws, ws_fixed);
				util[k].mark = (struct snap){ rec.util.t,
							      rec.util.busy,
							      rec.util.nports };
				util[k].have_mark = 1;
				if (k == 0)
					nmarks++;
				mark = 1;
				mark_t = rec.util.t;
			}
			break;
		case MP_REC_REL: {
			uint64_t w = rec.rel.t_release - rec.rel.t_trace;
			nrel++;
			if (rec.rel.t_trace > trace_rel)
				trace_rel = rec.rel.t_trace;
			mp_moments_add(dw, (double)w);
			if (mp_hist_add(dwh, w, 1) < 0)
				mp_die("out of memory");
			break;
		}
		case MP_REC_RUN:
			if (nruns == 0) {
				run = rec.run;
			} else {
				if (rec.run.t_end > run.t_end)
					run.t_end = rec.run.t_end;
				run.msgs_in += rec.run.msgs_in;
				run.msgs_done += rec.run.msgs_done;
				run.pkts_injected += rec.run.pkts_injected;
				run.pkts_delivered += rec.run.pkts_delivered;
				run.pkts_in_flight += rec.run.pkts_in_flight;
				run.pkts_queued += rec.run.pkts_queued;
			}
			status = worse_status(status, rec.run.status);
			nruns++;
			break;
		default:
			break;
		}
	}
	if (rc < 0)
		mp_die("%s", mp_reader_error(r));
	if (no_pkts && n_pkt)
		mp_die("%s: %llu packet records, but the header says the stream "
		    "has none (pkt_records=0)", input, (unsigned long long)n_pkt);
	if (nruns && (n_dlv != run.msgs_done ||
		      (!no_pkts && n_pkt != run.pkts_delivered)))
		mp_die("%s: counts not conserved: the run record says %llu messages "
		    "and %llu packets delivered, the stream has %llu message and "
		    "%llu packet records",
		    input, (unsigned long long)run.msgs_done,
		    (unsigned long long)run.pkts_delivered,
		    (unsigned long long)n_dlv, (unsigned long long)n_pkt);

	/* The packet window: rank each source's packets of a class in
	 * injection order; keep ranks W .. W+M-1, and the messages whose
	 * first packet is kept. */
	if (have_wp) {
		qsort(held, nheld, sizeof *held, held_cmp);
		uint64_t rank = 0;
		for (size_t i = 0; i < nheld; i++) {
			if (i && (held[i].src != held[i - 1].src ||
				  held[i].cls != held[i - 1].cls))
				rank = 0;
			held[i].kept = rank >= warm_p && rank - warm_p < meas_p;
			rank++;
		}
		qsort(held, nheld, sizeof *held, held_msg_cmp);
		/* Messages in stream order (batch means), kept when their
		 * first packet is. */
		for (size_t i = 0; i < nhdlv; i++) {
			const struct mp_dlv *d = &hdlv[i];
			const struct held *f = held_first(d->id);
			uint64_t key = dlv_key(by, d, short_max);
			if (!f || !f->kept)
				continue;
			kept_dlv++;
			acc_msg(all, d);
			if (by != BY_NONE)
				acc_msg(group(key), d);
		}
		/* Then messages in id order, to give packets their message's
		 * length for --by length and --by packets, and packets back
		 * in stream order. */
		qsort(hdlv, nhdlv, sizeof *hdlv, dlv_id_cmp);
		qsort(held, nheld, sizeof *held, held_ord_cmp);
		for (size_t i = 0; i < nheld; i++) {
			const struct held *p = &held[i];
			if (!p->kept)
				continue;
			kept_pkt++;
			acc_pkt(all, p->lat, p->hops, p->early);
			uint64_t key = 0;
			switch (by) {
			case BY_LENGTH:
			case BY_PACKETS: {
				/* the message's length: find its record */
				size_t lo = 0, hi = nhdlv;
				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;
					if (hdlv[mid].id < p->msg)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo == nhdlv || hdlv[lo].id != p->msg)
					continue; /* its message was not delivered */
				key = by == BY_LENGTH ?
				      hdlv[lo].packets > short_max : hdlv[lo].packets;
				break;
			}
			case BY_CLASS: key = p->cls; break;
			case BY_GROUP: key = p->group == MP_GROUP_HOT ? 0 : 1; break;
			case BY_SRC: key = p->src; break;
			case BY_DST: key = p->dst; break;
			case BY_HOPS: key = p->hops; break;
			case BY_NONE: continue;
			}
			acc_pkt(group(key), p->lat, p->hops, p->early);
		}
		free(held);
		free(hdlv);
	}

	/* Packets whose message was never seen delivered after them. */
	uint64_t unmatched = q_drain(1);
	free(q);
	free(insts);
	free(ptab);

	struct global g = { 0 };
	g.nodes = hnodes ? (double)hnodes :
		  nruns && run.nodes ? (double)run.nodes :
		  have_node ? (double)max_node + 1 : NAN;
	g.pe_time = pe_time;
	g.offered = offered;

	/* Saturation judged by throughput too: over the second half of the
	 * input, the packets accepted (ejected by the end of the input)
	 * against those offered (arrived). A stable run's deficit is the
	 * change in what is queued and in flight, a few packets per node;
	 * a saturated one's grows with the run. */
	int run_status = status, sat_judged = 0, sat_thru = 0;
	const char *sat_why = NULL;
	uint64_t half_t = 0, half_off = 0, half_acc = 0;
	double half_def = NAN;
	if (no_pkts)
		sat_why = "no packet records";
	else if (nmarks == 0)
		sat_why = "no end-of-input mark";
	else if (nmarks > 1)
		sat_why = "several runs concatenated";
	else if (!(g.nodes > 0))
		sat_why = "number of nodes unknown";
	else {
		uint64_t w = tb_offered.width > tb_accepted.width ?
			     tb_offered.width : tb_accepted.width;
		tb_widen(&tb_offered, w);
		tb_widen(&tb_accepted, w);
		size_t b = (size_t)((mark_t / 2 + w - 1) / w);
		half_t = (uint64_t)b * w;
		if (b >= TB_BINS || half_t >= mark_t) {
			sat_why = "input too short";
		} else {
			sat_judged = 1;
			half_off = tb_sum_from(&tb_offered, b);
			half_acc = tb_sum_from(&tb_accepted, b);
			half_def = ((double)half_off - (double)half_acc) /
				   g.nodes;
			sat_thru = (double)half_acc < 0.99 * (double)half_off &&
				   half_def > 2.0;
			if (sat_thru)
				status = worse_status(status, MP_RUN_SATURATED);
		}
	}
	g.status = nruns || sat_thru ? status_names[status] : NULL;
	g.have_window = ws != UINT64_MAX;
	g.wstart = g.have_window ? ws : 0;
	g.wend = nruns ? run.t_end : t_last;
	g.makespan = n_dlv ? (double)makespan : NAN;
	g.trace_end = nrel ? (double)trace_rel : n_dlv ? (double)trace_dlv : NAN;
	g.dw_mean = nrel ? mp_moments_mean(dw) : NAN;
	g.dw_p99 = nrel ? mp_hist_quantile(dwh, 0.99) : NAN;
	mp_moments_free(dw);
	mp_hist_free(dwh);
	for (size_t j = 0; j < NTEXT; j++) {
		int k = text_cols[j];
		if ((k == K_MAKESPAN || k == K_TRACE_END || k == K_DWMEAN ||
		     k == K_DWP99) && !mp_hdr_deps(h))
			continue;
		if ((k == K_SLOWT || k == K_SLOWR) && !slow_k)
			continue;
		tcols[ntext++] = k;
	}
	/* A replay's input ends when its trace does, long before most of
	 * its deliveries for a short trace: its window runs to the last
	 * delivery instead of the end-of-input mark. */
	if (mp_hdr_get(h, "replay"))
		nmarks = 0;
	if (nmarks == 1) {
		g.wend = mark_t;
		g.marked = 1;
	} else {
		/* Several runs concatenated: each has its own end of
		 * input; measure to the last delivery instead. */
		util[0].have_mark = util[1].have_mark = 0;
	}
	g.slow_time = g.slow_rate = NAN;
	if (slow_k && g.have_window) {
		double st = slow_periods(&slow, slow_k, g.wstart, g.wend, NULL);
		g.slow_time = st;
		g.slow_rate = (double)slow_k / (slow_a * st);
	}
	g.peu = g.intu = g.bnu = NAN;
	int whole[2] = { 0, 0 };
	if (g.have_window) {
		uint64_t t1, t2;
		g.peu = snap_util(&util[0], ws, &t1, &t2, &whole[0]);
		if (!isnan(g.peu)) {
			g.have_ut = 1;
			g.ut1 = t1;
			g.ut2 = t2;
		}
		g.intu = snap_util(&util[1], ws, &t1, &t2, &whole[1]);
		g.bnu = bottleneck(g.intu, pclass.n);
		if (!g.have_ut && !isnan(g.intu)) {
			g.have_ut = 1;
			g.ut1 = t1;
			g.ut2 = t2;
		}
	}

	size_t nrows = ngroups + 1;
	struct row *rows = xcalloc(nrows, sizeof *rows);
	for (size_t i = 0; i < ngroups; i++) {
		group_name(by, groups[i]->key, rows[i].name, sizeof rows[i].name);
		row_values(groups[i], &g, rows[i].v);
	}
	snprintf(rows[ngroups].name, sizeof rows[ngroups].name, "all");
	row_values(all, &g, rows[ngroups].v);

	if (out == OUT_CSV || out == OUT_PLOT) {
		print_sep(rows, nrows, &g, out == OUT_CSV);
	} else {
		print_text(rows, nrows, &g);
		switch (nruns || sat_thru ? status : -1) {
		case MP_RUN_OK:
			printf("# status: ok\n");
			break;
		case MP_RUN_SATURATED:
			printf("# status: SATURATED: the fabric did not carry the "
			       "offered load (queues grew without bound); these "
			       "are not steady-state values\n");
			break;
		case MP_RUN_DEADLOCK:
			printf("# status: DEADLOCK: the fabric stopped making "
			       "progress; undelivered packets are missing here\n");
			break;
		case MP_RUN_STOPPED:
			printf("# status: stopped early by a time or count limit\n");
			break;
		default:
			printf("# status: unknown (no run record)\n");
			break;
		}
		printf("# saturation: run record: %s; second half of the input",
		       nruns ? status_names[run_status] : "none");
		if (sat_judged)
			printf(" [%llu, %llu]: accepted %llu of %llu packets "
			       "offered (%.4f; %.1f per node short): %s "
			       "(saturated below 0.99 and over 2 per node "
			       "short)\n",
			       (unsigned long long)half_t,
			       (unsigned long long)mark_t,
			       (unsigned long long)half_acc,
			       (unsigned long long)half_off,
			       half_off ? (double)half_acc / (double)half_off :
					  1.0,
			       half_def, sat_thru ? "saturated" : "ok");
		else
			printf(": not judged (%s)\n", sat_why);
		printf("# warm-up: ");
		if (have_wn)
			printf("messages with id < %llu%s",
			       (unsigned long long)warm_n, have_wt ? ", " : "");
		if (have_wt)
			printf("before time %llu", (unsigned long long)warm_t);
		if (have_wp)
			printf("per source and class, the first %llu packets "
			       "(then %llu measured)", (unsigned long long)warm_p,
			       (unsigned long long)meas_p);
		if (!have_wn && !have_wt && !have_wp)
			printf("none");
		printf("; discarded %llu messages, %llu packets\n",
		       (unsigned long long)(n_dlv - kept_dlv),
		       (unsigned long long)(n_pkt - kept_pkt));
		if (g.have_window) {
			const char *unit = mp_hdr_get(h, "time_unit");
			printf("# window: [%llu, %llu]", (unsigned long long)g.wstart,
			       (unsigned long long)g.wend);
			if (unit)
				printf(" (unit: %s)", unit);
			if (g.marked)
				printf(", to the last arrival (throughput: %s "
				       "by then)", no_pkts ?
				       "packets of the messages completed" :
				       acc_rule ? "packets accepted" :
				       "packets ejected");
			if (g.have_ut)
				printf("; utilization over [%llu, %llu]%s",
				       (unsigned long long)g.ut1,
				       (unsigned long long)g.ut2,
				       whole[0] || whole[1] ?
					       " (no snapshot after the warm-up: "
					       "whole run)" :
					       "");
			else
				printf("; no utilization records");
			putchar('\n');
		} else {
			printf("# window: empty (the warm-up discarded every "
			       "message)\n");
		}
		printf("# counts: %llu messages and %llu packets read",
		       (unsigned long long)n_dlv, (unsigned long long)n_pkt);
		if (no_pkts)
			printf(" (the stream has no packet records: netrun "
			       "--no-packets; no packet latency)");
		if (nruns)
			printf("; as the run record says (%llu messages in, %llu "
			       "packets injected, %llu in flight, %llu queued)\n",
			       (unsigned long long)run.msgs_in,
			       (unsigned long long)run.pkts_injected,
			       (unsigned long long)run.pkts_in_flight,
			       (unsigned long long)run.pkts_queued);
		else
			printf("; no run record to check them against\n");
		if (unmatched)
			printf("# note: %llu packets were not followed by their "
			       "message's delivery record: counted in all only\n",
			       (unsigned long long)unmatched);
		if (slow_k) {
			uint64_t np = 0;
			if (g.have_window)
				slow_periods(&slow, slow_k, g.wstart, g.wend, &np);
			printf("# slow inputs: %llu periods in which every input "
			       "router (%u input%s) accepted %llu packets; "
			       "slow_time the mean length of a period, slow_rate "
			       "%llu / (%u slow_time)\n",
			       (unsigned long long)np, slow_a, slow_a > 1 ? "s" : "",
			       (unsigned long long)slow_k,
			       (unsigned long long)slow_k, slow_a);
		}
		if (isnan(pe_time))
			printf("# note: no pe_time in the header: throughput in "
			       "load units unknown\n");
		if (!quiet)
			print_prov(h, "# prov: ");
	}

	for (size_t i = 0; i < ngroups; i++)
		acc_free(groups[i]);
	free(groups);
	acc_free(all);
	free(rows);
	times_free(&slow);
	free(util[0].s);
	free(util[1].s);
	mp_reader_close(r);
	finish_stdout();
	return 0;
}
