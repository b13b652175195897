/*
 * Unit tests of the network descriptions (mp_net): links lead back (or,
 * in unidirectional networks, every input port is fed by one link),
 * switch degrees, terminals, dense port ids, node numbering and links
 * equal to mp_topo's for the Cayley meshes, hop distances against their
 * closed forms, and the routing functions: every minimal port brings a
 * packet one hop closer, and following "dor" reaches the destination
 * in exactly the distance.
 */
#include <stdlib.h>
#include <string.h>

#include "mp_net.h"
#include "mp_topo.h"
#include "t.h"

/* Check the structure of spec; links: the link ports each switch has
 * (0: not checked, it varies). */
static mp_net *structure(const char *spec, int bidir, unsigned links)
{
	mp_err err;
	mp_net *n = mp_net_new(spec, &err);
	T_OK(n != NULL, "%s builds%s%s", spec, n ? "" : ": ", n ? "" : err.msg);
	if (!n)
		return NULL;
	uint32_t S = mp_net_switches(n), T = mp_net_terminals(n);
	uint32_t ids = mp_net_port_ids(n);
	unsigned *fed = calloc(ids, sizeof *fed);
	unsigned *seen = calloc(ids, sizeof *seen);
	unsigned back = 0, bad_deg = 0, terms = 0, bad_id = 0;
	for (uint32_t s = 0; s < S; s++) {
		unsigned nl = 0;
		for (unsigned p = 0; p < mp_net_ports(n, s); p++) {
			uint32_t id = mp_net_port_id(n, s, p), peer, peer2;
			unsigned pp, pp2;
			if (id >= ids || seen[id]++)
				bad_id++;
			int k = mp_net_out(n, s, p, &peer, &pp);
			if (k == MP_PORT_TERM)
				terms++;
			if (k != MP_PORT_LINK)
				continue;
			nl++;
			fed[mp_net_port_id(n, peer, pp)]++;
			if (bidir && (mp_net_out(n, peer, pp, &peer2, &pp2) !=
				      MP_PORT_LINK || peer2 != s || pp2 != p))
				back++;
		}
		if (links && nl != links)
			bad_deg++;
	}
	unsigned overfed = 0;
	for (uint32_t id = 0; id < ids; id++)
		if (fed[id] > 1)
			overfed++;
	T_OK(bad_id == 0, "%s: %u port ids, each once", spec, ids);
	T_OK(back == 0 && overfed == 0, "%s: links lead back (%u do not), no "
	     "input port fed twice (%u)", spec, back, overfed);
	if (links)
		T_OK(bad_deg == 0, "%s: every switch has %u links (%u differ)",
		     spec, links, bad_deg);
	T_OK(terms == T, "%s: %u terminals attached (%u ejection ports)", spec,
	     T, terms);
	free(fed);
	free(seen);
	return n;
}

/* Route from every terminal to every other (or the first `lim`): dor
 * reaches in mp_net_dist hops, each minimal port one hop closer, and
 * the distances equal want(src, dst) when given. */
static void routes(mp_net *n, unsigned (*want)(const mp_net *, uint32_t,
					       uint32_t), uint32_t lim)
{
	const char *spec = mp_net_name(n);
	mp_route_fn dor = mp_net_routing("dor"), mini = mp_net_routing("minimal");
	uint32_t T = mp_net_terminals(n);
	unsigned bad_dor = 0, bad_min = 0, bad_dist = 0, pairs = 0;
	unsigned ports[MP_NET_MAXPORTS];
	if (lim > T)
		lim = T;
	for (uint32_t a = 0; a < lim; a++)
		for (uint32_t b = 0; b < T; b++) {
			if (a == b)
				continue;
			pairs++;
			unsigned d = mp_net_dist(n, a, b);
			if (want && d != want(n, a, b))
				bad_dist++;
			uint32_t sw, osw;
			unsigned p, op;
			mp_net_term_in(n, a, &sw, &p);
			mp_net_term_out(n, b, &osw, &op);
			unsigned hops = 0;
			for (;;) {
				unsigned k = dor(n, sw, b, ports, 1);
				uint32_t peer;
				unsigned pp;
				if (k != 1)
					break;
				int kind = mp_net_out(n, sw, ports[0], &peer, &pp);
				if (kind == MP_PORT_TERM) {
					if (peer != b || sw != osw || ports[0] != op)
						hops = ~0u;
					break;
				}
				if (kind != MP_PORT_LINK || ++hops > d)
					break;
				/* every minimal port here is one hop closer */
				unsigned km = mini(n, sw, b, ports + 1,
						   MP_NET_MAXPORTS - 1);
				if (km == 0)
					bad_min++;
				/* in a direct network switch x is terminal x */
				for (unsigned i = 1; mp_net_direct(n) && i <= km;
				     i++) {
					uint32_t q;
					unsigned qp;
					if (mp_net_out(n, sw, ports[i], &q, &qp) !=
						    MP_PORT_LINK ||
					    mp_net_dist(n, q, b) + 1 !=
						    mp_net_dist(n, sw, b))
						bad_min++;
				}
				sw = peer;
			}
			if (hops != d)
				bad_dor++;
		}
	T_OK(bad_dor == 0 && bad_min == 0, "%s: dor reaches the destination "
	     "in the distance on %u pairs (%u wrong, %u minimal ports "
	     "missing or not closer)", spec, pairs, bad_dor, bad_min);
	if (want)
		T_OK(bad_dist == 0, "%s: distances equal the closed form (%u "
		     "differ)", spec, bad_dist);
}

static unsigned manhattan(const mp_net *n, uint32_t a, uint32_t b)
{
	unsigned ra, ca, rb, cb;
	mp_net_coords(n, a, &ra, &ca);
	mp_net_coords(n, b, &rb, &cb);
	return (ra > rb ? ra - rb : rb - ra) + (ca > cb ? ca - cb : cb - ca);
}

/* tree:A,D: leaf routers t / A meet h levels up, 2h links apart. */
static unsigned tree_dist(const mp_net *n, uint32_t a, uint32_t b)
{
	uint32_t A = mp_net_ports(n, 0) - 1, x = a / A, y = b / A;
	unsigned h = 0;
	for (; x != y; h++) {
		x /= A;
		y /= A;
	}
	return 2 * h;
}

static unsigned popdiff(const mp_net *n, uint32_t a, uint32_t b)
{
	(void)n;
	return (unsigned)__builtin_popcount(a ^ b);
}

static unsigned cube4x3(const mp_net *n, uint32_t a, uint32_t b)
{
	(void)n;
	unsigned d = 0;
	for (int i = 0; i < 3; i++, a /= 4, b /= 4) {
		unsigned up = (b % 4 + 4 - a % 4) % 4;
		d += up < 4 - up ? up : 4 - up;
	}
	return d;
}

static unsigned cube4x3uni(const mp_net *n, uint32_t a, uint32_t b)
{
	(void)n;
	unsigned d = 0;
	for (int i = 0; i < 3; i++, a /= 4, b /= 4)
		d += (b % 4 + 4 - a % 4) % 4;
	return d;
}

static unsigned stages_less_one(const mp_net *n, uint32_t a, uint32_t b)
{
	(void)n;
	(void)a;
	(void)b;
	return 2; /* butterfly:3,3: three stages, two links */
}

static unsigned one_link(const mp_net *n, uint32_t a, uint32_t b)
{
	(void)n;
	(void)a;
	(void)b;
	return 1; /* two stages */
}

/* An omega's destination-tag "dor": on the tabulated omega:A,D, the one
 * port "minimal" gives at every switch (0 ports off dst's path); past the
 * table (omega:2,13: 53248 switches), followed from terminals to a
 * sample of destinations, it arrives in D - 1 links. */
static void omega_dor(const char *small, const char *big)
{
	mp_err err;
	mp_route_fn dor = mp_net_routing("dor"), mini = mp_net_routing("minimal");
	mp_net *n = structure(small, 0, 0);
	unsigned bad = 0, on = 0, p1, p2;
	if (n) {
		for (uint32_t x = 0; x < mp_net_switches(n); x++)
			for (uint32_t b = 0; b < mp_net_terminals(n); b++) {
				unsigned k1 = dor(n, x, b, &p1, 1);
				unsigned k2 = mini(n, x, b, &p2, 1);
				on += k2;
				if (k1 != k2 || (k1 && p1 != p2))
					bad++;
			}
		T_OK(bad == 0 && on > 0, "%s: dor = minimal at every switch and "
		     "destination (%u differ, %u on a path)", small, bad, on);
		mp_net_free(n);
	}
	n = mp_net_new(big, &err);
	T_OK(n != NULL, "%s builds", big);
	if (!n)
		return;
	uint32_t T = mp_net_terminals(n), A = mp_net_ports(n, 0) / 2;
	unsigned D = 0, pairs = 0;
	for (uint32_t t = 1; t < T; t *= A)
		D++;
	bad = 0;
	for (uint32_t a = 0; a < T; a += 97)
		for (uint32_t b = 0; b < T; b += 89) {
			uint32_t sw, osw, peer;
			unsigned p, op, links = 0;
			mp_net_term_in(n, a, &sw, &p);
			mp_net_term_out(n, b, &osw, &op);
			pairs++;
			for (;;) {
				if (dor(n, sw, b, &p, 1) != 1) {
					bad++;
					break;
				}
				int kind = mp_net_out(n, sw, p, &peer, &op);
				if (kind == MP_PORT_TERM) {
					bad += peer != b || links != D - 1;
					break;
				}
				if (kind != MP_PORT_LINK || ++links >= D) {
					bad++;
					break;
				}
				sw = peer;
			}
		}
	T_OK(bad == 0 && pairs > 1000, "%s: dor arrives in %u links (%u of %u "
	     "pairs do not)", big, D - 1, bad, pairs);
	mp_net_free(n);
}

static unsigned zero(const mp_net *n, uint32_t a, uint32_t b)
{
	(void)n;
	(void)a;
	(void)b;
	return 0;
}

/* The Cayley meshes: the same numbering, links, coordinates and
 * distances as mp_topo, and minimal ports = mp_topo's best mask. */
static void same_as_topo(const char *spec)
{
	mp_err err;
	mp_net *n = structure(spec, 1, 0);
	mp_topo *t = mp_topo_new(spec, &err);
	if (!n || !t) {
		mp_net_free(n);
		mp_topo_free(t);
		return;
	}
	unsigned deg = mp_topo_degree(t), bad = 0, bad_best = 0, bad_det = 0;
	uint32_t N = mp_topo_nodes(t);
	mp_route_fn mini = mp_net_routing("minimal"), dor = mp_net_routing("dor");
	T_OK(mp_net_switches(n) == N && mp_net_terminals(n) == N &&
	     mp_net_direct(n), "%s: %u switches and terminals", spec, N);
	for (uint32_t x = 0; x < N; x++) {
		unsigned r1, c1, r2, c2, tp;
		uint32_t peer, ts;
		mp_net_coords(n, x, &r1, &c1);
		mp_topo_coords(t, x, &r2, &c2);
		mp_net_term_in(n, x, &ts, &tp);
		if (r1 != r2 || c1 != c2 || ts != x || tp != deg ||
		    mp_net_ports(n, x) != deg + 1)
			bad++;
		for (unsigned d = 0; d < deg; d++) {
			unsigned pp;
			if (mp_net_out(n, x, d, &peer, &pp) != MP_PORT_LINK ||
			    peer != mp_topo_neighbor(t, x, d) ||
			    pp != mp_topo_opposite(t, d))
				bad++;
		}
		for (uint32_t y = 0; y < N; y += 1 + N / 40) {
			if (y == x)
				continue;
			unsigned ports[8], k = mini(n, x, y, ports, 8), mask = 0;
			for (unsigned i = 0; i < k; i++)
				mask |= 1u << ports[i];
			if (mask != mp_topo_best(t, x, y) ||
			    mp_net_dist(n, x, y) != mp_topo_dist(t, x, y))
				bad_best++;
			if (dor(n, x, y, ports, 1) != 1 ||
			    ports[0] != mp_topo_det(t, x, y))
				bad_det++;
		}
	}
	T_OK(bad == 0, "%s: numbering, coordinates and links equal mp_topo's "
	     "(%u differ)", spec, bad);
	T_OK(bad_best == 0 && bad_det == 0, "%s: minimal = mp_topo best (%u "
	     "differ), dor = mp_topo det (%u differ)", spec, bad_best, bad_det);
	routes(n, NULL, 12);
	mp_net_free(n);
	mp_topo_free(t);
}

int main(void)
{
	mp_err err;
	same_as_topo("hex:4");
	same_as_topo("hex:6");
	same_as_topo("hexrect:5x6");
	same_as_topo("torus:8x8");
	same_as_topo("torus:6x4");

	mp_net *n = structure("mesh:5x7", 1, 0);
	if (n) {
		routes(n, manhattan, 35);
		uint32_t peer;
		unsigned pp;
		T_OK(mp_net_out(n, 0, 2, &peer, &pp) == MP_PORT_NONE &&
		     mp_net_out(n, 0, 3, &peer, &pp) == MP_PORT_NONE &&
		     mp_net_out(n, 34, 0, &peer, &pp) == MP_PORT_NONE,
		     "mesh:5x7: no wrap-around at the border");
		mp_net_free(n);
	}
	if ((n = structure("kncube:4,3", 1, 6))) {
		routes(n, cube4x3, 64);
		mp_net_free(n);
	}
	if ((n = structure("kncube-uni:4,3", 0, 3))) {
		routes(n, cube4x3uni, 64);
		mp_net_free(n);
	}
	if ((n = structure("hypercube:6", 1, 6))) {
		routes(n, popdiff, 64);
		mp_net_free(n);
	}
	if ((n = structure("butterfly:3,3", 0, 0))) {
		T_OK(mp_net_switches(n) == 27 && mp_net_terminals(n) == 27 &&
		     !mp_net_direct(n), "butterfly:3,3: 3 stages of 9 switches, "
		     "27 terminals, indirect");
		routes(n, stages_less_one, 27);
		mp_net_free(n);
	}
	omega_dor("omega:3,3", "omega:2,13");
	omega_dor("omega:2,5", "omega:4,7");
	if ((n = structure("butterfly:40,2", 0, 0))) {
		T_OK(mp_net_ports(n, 0) == 80, "butterfly:40,2: 80-port switches");
		routes(n, one_link, 3);
		mp_net_free(n);
	}
	if ((n = structure("crossbar:100", 0, 0))) {
		T_OK(mp_net_switches(n) == 1 && mp_net_ports(n, 0) == 100,
		     "crossbar:100: one switch of 100 ports");
		routes(n, zero, 100);
		mp_net_free(n);
	}
	if ((n = structure("grid:5x7", 1, 0))) {
		routes(n, manhattan, 35);
		T_OK(mp_net_direct(n) && mp_net_ports(n, 0) == 5,
		     "grid:5x7: direct, routers of 5 ports");
		mp_net_free(n);
	}
	if ((n = structure("grid:1x4", 1, 0))) {
		routes(n, manhattan, 4);
		mp_net_free(n);
	}
	if ((n = structure("tree:3,3", 1, 0))) {
		T_OK(mp_net_switches(n) == 13 && mp_net_terminals(n) == 27 &&
		     !mp_net_direct(n) && mp_net_ports(n, 12) == 4,
		     "tree:3,3: 1 + 3 + 9 routers of 4 ports, 27 terminals");
		uint32_t peer;
		unsigned pp;
		T_OK(mp_net_out(n, 0, 3, &peer, &pp) == MP_PORT_NONE &&
		     mp_net_out(n, 5, 3, &peer, &pp) == MP_PORT_LINK &&
		     peer == 1 && pp == 1 &&
		     mp_net_out(n, 12, 2, &peer, &pp) == MP_PORT_TERM &&
		     peer == 26, "tree:3,3: no parent at the root, router 5 "
		     "is child 1 of router 1, terminal 26 at port 2 of router 12");
		routes(n, tree_dist, 27);
		mp_net_free(n);
	}
	if ((n = structure("tree:2,1", 1, 0))) {
		routes(n, zero, 2);
		mp_net_free(n);
	}
	/* Local destinations: grid:3x3 within 1 hop: 2 at a corner, 3 at
	 * an edge, 4 at the centre; tree:3,2 within 1: the 2 siblings;
	 * within 2 everybody else. */
	if ((n = mp_net_new("grid:3x3", &err))) {
		uint32_t *l, *st;
		int rc = mp_net_local_dests(n, 1, &l, &st, &err);
		T_OK(rc == 0 && st[1] - st[0] == 2 && st[2] - st[1] == 3 &&
		     st[5] - st[4] == 4 && st[9] == 24 && l[st[4]] == 1 &&
		     l[st[4] + 3] == 7, "grid:3x3 local:1: 24 pairs, the "
		     "centre's 1, 3, 5, 7");
		if (rc == 0) {
			free(l);
			free(st);
		}
		mp_net_free(n);
	}
	if ((n = mp_net_new("tree:3,2", &err))) {
		uint32_t *l, *st;
		int rc = mp_net_local_dests(n, 1, &l, &st, &err);
		T_OK(rc == 0 && st[9] == 18 && l[st[4]] == 3 && l[st[4] + 1] == 5,
		     "tree:3,2 local:1: siblings only (4: 3 and 5)");
		if (rc == 0) {
			free(l);
			free(st);
		}
		rc = mp_net_local_dests(n, 2, &l, &st, &err);
		T_OK(rc == 0 && st[9] == 72, "tree:3,2 local:2: all 72 pairs");
		if (rc == 0) {
			free(l);
			free(st);
		}
		mp_net_free(n);
	}
	if ((n = mp_net_new("butterfly:2,3", &err))) {
		uint32_t *l, *st;
		T_OK(mp_net_local_dests(n, 1, &l, &st, &err) < 0 && err.msg[0],
		     "butterfly:2,3 local:1 is refused: %s", err.msg);
		mp_net_free(n);
	}
	static const char *const bad[] = { "hex:1", "mesh:1x5", "kncube:1,3",
		"hypercube:0", "butterfly:200,2", "crossbar:1", "ring:5", "torus",
		"kncube:2,30", "grid:1x1", "grid:65x64", "grid:0x3", "tree:1,3",
		"tree:2,13", "tree:256,1", "tree:2,0", "tree:2,21" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		n = mp_net_new(bad[i], &err);
		T_OK(n == NULL && err.msg[0], "%s is refused: %s", bad[i],
		     n ? "" : err.msg);
		mp_net_free(n);
	}
	T_OK(mp_net_routing("no-such") == NULL, "unknown routing is refused");
	return t_done();
}
