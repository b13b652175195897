/*
 * Unit tests of the deadlock-freedom argument behind netrun's hop-count
 * buffer rule (--deadlock hop-count, the default of the fedx and torus
 * presets): the buffer dependency graph of small instances has no cycle,
 * the same graph without buffer classes does, and the counting rule
 * netrun applies keeps every node's occupancy inside the class structure.
 *
 * The argument, in three steps.
 *
 * 1. Counting rule. A node with B buffers accepts a packet that will
 *    have q hops still to go once there only while it has more than q
 *    free buffers (lib/mp_fabric.c, admit()). Let N_j be the number of
 *    packets held at the node with at least j hops to go. Then always
 *        N_j <= B - j   for every j = 0 .. D            (I)
 *    (accepting a packet with q >= j needs used < B - q <= B - j, so
 *    N_j stays <= B - j afterwards; accepting one with q < j leaves N_j
 *    as it is; a departure lowers it). Conversely every occupancy that
 *    satisfies (I) can be reached by accepting its packets in order of
 *    decreasing q. test_counting() checks both directions exhaustively
 *    for small B and D, by breadth-first search over the occupancies
 *    the rule lets a node pass through.
 *
 * 2. Classes. Number the buffers 0 .. B-1 and let buffer b take packets
 *    with at most B-1-b hops to go: buffer B-1 is reserved for packets
 *    at their destination, B-2 for those one hop away or nearer, and so
 *    on; buffers 0 .. B-1-D take anything. By Hall's theorem (the
 *    allowed sets are nested) such a placement of the held packets exists
 *    exactly when (I) holds; test_counting() finds one by augmenting
 *    paths for every reachable occupancy and none for any other. So the
 *    dynamic rule behaves like a static pool of classes 0 .. D, class q
 *    being the buffers a packet with q hops to go may use, each class
 *    containing the lower ones' reserve.
 *
 * 3. Dependency graph. A packet in class q at switch x (q hops to go)
 *    waits only for a buffer of class q-1 at a neighbour y reached by a
 *    best direction (minimal routing, deterministic or adaptive: the
 *    deterministic direction is one of the best ones), or, at q = 0, for
 *    the PE port, which needs no buffer. Vertices (x, q), edges
 *    (x, q) -> (y, q-1): q falls along every edge, so the graph has no
 *    cycle; test_graph() builds it from lib/mp_topo's tables and checks
 *    by topological sort. With one class (a plain shared pool) the edges
 *    are x -> y and the graph has cycles, which the same sort finds:
 *    the check can fail. Backpressure refusals keep the argument: the
 *    node refuses because it holds a waiting packet of the same message
 *    or for the same destination, which is one hop nearer it (q-1), a
 *    lower class again.
 *
 * In a deadlock every packet waits for ever; take one with the smallest
 * q. At q = 0 the PE port ejects it (the fair PE port of the presets, or
 * --pe-arb eject; with --pe-arb inject, injections refused over and over
 * can keep the port from ejecting, and netrun's detector reports that as
 * a deadlock: the rule cannot help there). Otherwise the neighbour it waits
 * for refuses because free <= q-1, so it holds more than B-q packets
 * while (I) allows at most B-q with q or more to go: one of them has
 * fewer than q to go and also waits for ever, a contradiction.
 * test_counting() checks this last step directly too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_topo.h"
#include "t.h"

/* ------------------------------------------------------------------ */
/* Dependency graphs                                                   */

struct graph {
	uint32_t nv;
	uint32_t *indeg;
	uint32_t *head;     /* adjacency: first edge of each vertex */
	uint32_t *next, *to;
	uint32_t ne, cap;
};

static int graph_init(struct graph *g, uint32_t nv)
{
	memset(g, 0, sizeof *g);
	g->nv = nv;
	g->indeg = calloc(nv, sizeof *g->indeg);
	g->head = malloc(nv * sizeof *g->head);
	if (!g->indeg || !g->head)
		return -1;
	for (uint32_t v = 0; v < nv; v++)
		g->head[v] = UINT32_MAX;
	return 0;
}

static void graph_free(struct graph *g)
{
	free(g->indeg);
	free(g->head);
	free(g->next);
	free(g->to);
}

/* Add edge u -> v unless it is there already. Returns -1 on no memory. */
static int graph_edge(struct graph *g, uint32_t u, uint32_t v)
{
	for (uint32_t e = g->head[u]; e != UINT32_MAX; e = g->next[e])
		if (g->to[e] == v)
			return 0;
	if (g->ne == g->cap) {
		uint32_t cap = g->cap ? 2 * g->cap : 1024;
		uint32_t *n = realloc(g->next, cap * sizeof *n);
		if (!n)
			return -1;
		g->next = n;
		uint32_t *t = realloc(g->to, cap * sizeof *t);
		if (!t)
			return -1;
		g->to = t;
		g->cap = cap;
	}
	g->to[g->ne] = v;
	g->next[g->ne] = g->head[u];
	g->head[u] = g->ne++;
	g->indeg[v]++;
	return 0;
}

/* Kahn's topological sort: the number of vertices it can order (all of
 * them exactly when the graph has no cycle). */
static uint32_t topo_sorted(const struct graph *g)
{
	uint32_t *deg = malloc(g->nv * sizeof *deg);
	uint32_t *queue = malloc(g->nv * sizeof *queue);
	uint32_t head = 0, tail = 0;
	if (!deg || !queue) {
		free(deg);
		free(queue);
		return 0;
	}
	memcpy(deg, g->indeg, g->nv * sizeof *deg);
	for (uint32_t v = 0; v < g->nv; v++)
		if (deg[v] == 0)
			queue[tail++] = v;
	while (head < tail) {
		uint32_t u = queue[head++];
		for (uint32_t e = g->head[u]; e != UINT32_MAX; e = g->next[e])
			if (--deg[g->to[e]] == 0)
				queue[tail++] = g->to[e];
	}
	free(deg);
	free(queue);
	return tail;
}

/*
 * Build the buffer dependency graph of topology spec under minimal
 * adaptive routing (any best direction), with classes (vertex x *
 * (D+1) + q) or without (vertex x), and check it.
 */
static void test_graph(const char *spec)
{
	mp_err err;
	mp_topo *t = mp_topo_new(spec, &err);
	T_OK(t != NULL, "%s: topology built", spec);
	if (!t)
		return;
	uint32_t n = mp_topo_nodes(t);
	unsigned deg = mp_topo_degree(t), D = mp_topo_diameter(t);
	struct graph cls, flat;
	int ok = graph_init(&cls, n * (D + 1)) == 0 && graph_init(&flat, n) == 0;
	int minimal = 1, det_best = 1;
	for (uint32_t x = 0; ok && x < n; x++)
		for (uint32_t z = 0; ok && z < n; z++) {
			unsigned q = mp_topo_dist(t, x, z);
			if (q == 0)
				continue;
			unsigned best = mp_topo_best(t, x, z);
			if (!(best >> mp_topo_det(t, x, z) & 1))
				det_best = 0;
			for (unsigned d = 0; d < deg; d++) {
				if (!(best >> d & 1))
					continue;
				uint32_t y = mp_topo_neighbor(t, x, d);
				if (mp_topo_dist(t, y, z) != q - 1)
					minimal = 0;
				if (graph_edge(&cls, x * (D + 1) + q,
					       y * (D + 1) + q - 1) < 0 ||
				    graph_edge(&flat, x, y) < 0)
					ok = 0;
			}
		}
	T_OK(ok, "%s: graphs built", spec);
	T_OK(minimal, "%s: every best direction brings the packet one hop "
	     "nearer", spec);
	T_OK(det_best, "%s: the deterministic direction is a best direction",
	     spec);
	uint32_t s = topo_sorted(&cls);
	T_OK(ok && cls.ne > 0 && s == cls.nv,
	     "%s: class graph, %u vertices (x, q = 0..%u), %u edges, has no "
	     "cycle (topological sort orders %u)", spec, cls.nv, D, cls.ne, s);
	s = topo_sorted(&flat);
	T_OK(ok && s < flat.nv,
	     "%s: single-class graph, %u vertices, %u edges, has a cycle "
	     "(topological sort stops after %u)", spec, flat.nv, flat.ne, s);
	graph_free(&cls);
	graph_free(&flat);
	mp_topo_free(t);
}

/* ------------------------------------------------------------------ */
/* The counting rule against the class structure                       */

#define QMAX 8 /* classes 0 .. QMAX-1 */

/* State: c[q] packets held with q hops to go, q = 0 .. D, in base B+1. */
static uint64_t enc(const unsigned *c, unsigned D, unsigned B)
{
	uint64_t s = 0;
	for (unsigned q = D + 1; q-- > 0;)
		s = s * (B + 1) + c[q];
	return s;
}

static void dec(uint64_t s, unsigned *c, unsigned D, unsigned B)
{
	for (unsigned q = 0; q <= D; q++) {
		c[q] = (unsigned)(s % (B + 1));
		s /= B + 1;
	}
}

/* Whether netrun's rule admits a packet with q to go (mp_fabric admit()). */
static int admits(const unsigned *c, unsigned D, unsigned B, unsigned q)
{
	unsigned used = 0;
	for (unsigned j = 0; j <= D; j++)
		used += c[j];
	return used < B && B - used > q;
}

/* Invariant (I): N_j <= B - j for all j. */
static int invariant(const unsigned *c, unsigned D, unsigned B)
{
	unsigned nj = 0;
	for (unsigned j = D + 1; j-- > 0;) {
		nj += c[j];
		if (nj + j > B)
			return 0;
	}
	return 1;
}

/* Kuhn's augmenting path from packet u (to-go go[u]) into buffers b <=
 * B-1-go[u]. */
static int augment(unsigned u, const unsigned *go, unsigned B, int *owner,
		   unsigned char *seen)
{
	for (unsigned b = 0; b + go[u] < B; b++) {
		if (seen[b])
			continue;
		seen[b] = 1;
		if (owner[b] < 0 || augment((unsigned)owner[b], go, B, owner, seen)) {
			owner[b] = (int)u;
			return 1;
		}
	}
	return 0;
}

/* Whether the held packets can be placed in distinct buffers, a packet
 * with q to go in a buffer b <= B-1-q (the class structure). */
static int placeable(const unsigned *c, unsigned D, unsigned B)
{
	unsigned go[64], np = 0;
	int owner[64];
	unsigned char seen[64];
	for (unsigned q = 0; q <= D; q++)
		for (unsigned k = 0; k < c[q]; k++) {
			if (np == 64)
				return 0;
			go[np++] = q;
		}
	if (np > B)
		return 0;
	for (unsigned b = 0; b < B; b++)
		owner[b] = -1;
	for (unsigned u = 0; u < np; u++) {
		memset(seen, 0, sizeof seen);
		if (!augment(u, go, B, owner, seen))
			return 0;
	}
	return 1;
}

/* Check one (B, D); returns the number of mismatches (0: all good) and
 * adds the reachable and candidate counts. */
static uint64_t check_counting(unsigned B, unsigned D, uint64_t *nreach,
			       uint64_t *ncand)
{
	uint64_t ns = 1;
	for (unsigned q = 0; q <= D; q++)
		ns *= B + 1;
	/* Reachable occupancies have at most B packets: C(B+D+1, D+1) of
	 * them, far fewer than ns. */
	uint64_t qcap = 1;
	for (unsigned k = 1; k <= D + 1; k++)
		qcap = qcap * (B + k) / k;
	unsigned char *seen = calloc(ns, 1);
	uint64_t *queue = malloc(qcap * sizeof *queue);
	if (!seen || !queue) {
		free(seen);
		free(queue);
		return 1;
	}
	unsigned c[QMAX];
	uint64_t head = 0, tail = 0, reach = 0;
	memset(c, 0, sizeof c);
	queue[tail++] = enc(c, D, B);
	seen[queue[0]] = 1;
	/* Breadth-first search: arrivals the rule admits, any departure. */
	while (head < tail) {
		uint64_t s = queue[head++];
		reach++;
		for (unsigned q = 0; q <= D; q++) {
			dec(s, c, D, B);
			if (admits(c, D, B, q)) {
				c[q]++;
				uint64_t t = enc(c, D, B);
				if (!seen[t]) {
					seen[t] = 1;
					queue[tail++] = t;
				}
				c[q]--;
			}
			if (c[q] > 0) {
				c[q]--;
				uint64_t t = enc(c, D, B);
				if (!seen[t]) {
					seen[t] = 1;
					queue[tail++] = t;
				}
			}
		}
	}
	/* Every occupancy with at most B packets: reachable <=> (I) <=>
	 * placeable in classes; and the step of the deadlock argument. */
	uint64_t bad_inv = 0, bad_place = 0, bad_step = 0, cand = 0;
	for (uint64_t s = 0; s < ns; s++) {
		unsigned used = 0;
		dec(s, c, D, B);
		for (unsigned q = 0; q <= D; q++)
			used += c[q];
		if (used > B)
			continue;
		cand++;
		int r = seen[s] != 0;
		if (invariant(c, D, B) != r)
			bad_inv++;
		if (placeable(c, D, B) != r)
			bad_place++;
		/* A refusal of a packet with q-1 to go (it moves from a node
		 * where it had q) means the node holds one with fewer than q. */
		for (unsigned q = 1; r && q <= D; q++)
			if (!admits(c, D, B, q - 1)) {
				unsigned lower = 0;
				for (unsigned j = 0; j < q; j++)
					lower += c[j];
				if (lower == 0)
					bad_step++;
			}
	}
	if (bad_inv || bad_place || bad_step)
		printf("# B=%u D=%u: %llu reachable of %llu; mismatches: "
		       "invariant %llu, placement %llu, refusal step %llu\n", B, D,
		       (unsigned long long)reach, (unsigned long long)cand,
		       (unsigned long long)bad_inv, (unsigned long long)bad_place,
		       (unsigned long long)bad_step);
	*nreach += reach;
	*ncand += cand;
	free(seen);
	free(queue);
	return bad_inv + bad_place + bad_step + (reach == 0);
}

/* All D < B (netrun needs B >= D+1) with at most QMAX classes and at
 * most 2^25 encoded states. */
static void test_counting(unsigned B)
{
	uint64_t bad = 0, reach = 0, cand = 0;
	unsigned dmax = 0;
	for (unsigned D = 0; D < B && D < QMAX; D++) {
		uint64_t ns = 1;
		for (unsigned q = 0; q <= D; q++)
			ns *= B + 1;
		if (ns > (uint64_t)1 << 25)
			break;
		bad += check_counting(B, D, &reach, &cand);
		dmax = D;
	}
	T_OK(bad == 0, "B=%u buffers, D=0..%u: the %llu occupancies the rule "
	     "reaches (of %llu with at most B packets) are exactly those with "
	     "N_j <= B-j and those placeable in classes; a refusal always "
	     "leaves a nearer packet", B, dmax, (unsigned long long)reach,
	     (unsigned long long)cand);
}

int main(void)
{
	test_graph("hexrect:4x4");
	test_graph("hexrect:8x8");
	test_graph("torus:4x4");
	test_graph("hexrect:6x10");
	/* Up to the 10 buffers of Fed-X. */
	for (unsigned B = 1; B <= 10; B++)
		test_counting(B);
	/* The rule is what needs D+1 buffers: with B = D a packet with D to
	 * go is never admitted, even at an empty node. */
	unsigned z[QMAX] = { 0 };
	T_OK(!admits(z, 5, 5, 5) && admits(z, 5, 6, 5),
	     "an empty node admits a packet with D to go only when B > D");
	return t_done();
}
