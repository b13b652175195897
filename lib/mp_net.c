/*
 * Network descriptions: the builders of mp_net.h, port tables, switch
 * distances for minimal routing, and the routing functions.
 */
#include "mp_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_HEX, F_HEXRECT, F_TORUS, F_MESH, F_KNCUBE, F_KNCUBE_UNI, F_HYPERCUBE,
       F_BUTTERFLY, F_CROSSBAR, F_OMEGA, F_GRID, F_TREE };
static const char *const fam_names[] = { "hex", "hexrect", "torus", "mesh",
	"kncube", "kncube-uni", "hypercube", "butterfly", "crossbar", "omega",
	"grid", "tree" };

/* Largest network whose switch-to-switch distances are tabulated (the
 * Cayley meshes use mp_topo's tables by offset instead). */
#define MAX_DIST_SWITCHES 4096

struct mp_net {
	int fam;
	char name[48];
	uint32_t nsw, nterm, nids;
	unsigned k, dims;     /* kncube, butterfly (a, stages), hypercube */
	unsigned rows, cols;
	uint32_t *base;       /* nsw + 1: first port id of each switch */
	uint8_t *kind;        /* by port id: MP_PORT_* of the output side */
	uint32_t *peer;       /* by port id: switch or terminal */
	uint16_t *peer_port;  /* by port id */
	uint32_t *lat;        /* by port id */
	uint32_t *tin, *tout; /* by terminal: port id of injection, ejection */
	uint32_t *sw_of;      /* by port id: its switch */
	uint16_t *dist;       /* nsw * nsw, or NULL (Cayley: topo) */
	mp_topo *topo;
};

static int fail_oom(mp_err *err)
{
	return mp_err_set(err, "network: out of memory");
}

/* Allocate the tables for nsw switches of nports[] ports. */
static int alloc_ports(mp_net *n, const unsigned *nports, mp_err *err)
{
	n->base = malloc(((size_t)n->nsw + 1) * sizeof *n->base);
	if (!n->base)
		return fail_oom(err);
	uint64_t ids = 0;
	for (uint32_t s = 0; s < n->nsw; s++) {
		n->base[s] = (uint32_t)ids;
		ids += nports ? nports[s] : nports[0];
	}
	if (ids >= UINT32_MAX)
		return mp_err_set(err, "network: too many ports");
	n->base[n->nsw] = (uint32_t)ids;
	n->nids = (uint32_t)ids;
	n->kind = calloc(ids ? ids : 1, 1);
	n->peer = malloc((ids ? ids : 1) * sizeof *n->peer);
	n->peer_port = calloc(ids ? ids : 1, sizeof *n->peer_port);
	n->lat = malloc((ids ? ids : 1) * sizeof *n->lat);
	n->sw_of = malloc((ids ? ids : 1) * sizeof *n->sw_of);
	n->tin = malloc((size_t)n->nterm * sizeof *n->tin);
	n->tout = malloc((size_t)n->nterm * sizeof *n->tout);
	if (!n->kind || !n->peer || !n->peer_port || !n->lat || !n->sw_of ||
	    !n->tin || !n->tout)
		return fail_oom(err);
	for (uint32_t s = 0; s < n->nsw; s++)
		for (uint32_t id = n->base[s]; id < n->base[s + 1]; id++) {
			n->peer[id] = MP_NET_NONE;
			n->lat[id] = 1;
			n->sw_of[id] = s;
		}
	return 0;
}

static void link_out(mp_net *n, uint32_t s, unsigned p, uint32_t t,
		     unsigned q)
{
	uint32_t id = n->base[s] + p;
	n->kind[id] = MP_PORT_LINK;
	n->peer[id] = t;
	n->peer_port[id] = (uint16_t)q;
}

static void attach(mp_net *n, uint32_t term, uint32_t s_in, unsigned p_in,
		   uint32_t s_out, unsigned p_out)
{
	uint32_t id = n->base[s_out] + p_out;
	n->kind[id] = MP_PORT_TERM;
	n->peer[id] = term;
	n->tin[term] = n->base[s_in] + p_in;
	n->tout[term] = id;
}

/* Two positive numbers "AxB" or "A,B" (or one, for both). */
static int two(const char *s, char sep, unsigned long *a, unsigned long *b)
{
	char *end;
	*a = strtoul(s, &end, 10);
	if (end == s || *a == 0)
		return -1;
	if (*end == '\0') {
		*b = *a;
		return 0;
	}
	if (*end != sep)
		return -1;
	const char *s2 = end + 1;
	*b = strtoul(s2, &end, 10);
	if (end == s2 || *end || *b == 0)
		return -1;
	return 0;
}

static uint64_t ipow(uint64_t a, unsigned e)
{
	uint64_t r = 1;
	while (e--) {
		r *= a;
		if (r > (1u << 20))
			return (1u << 20) + 1;
	}
	return r;
}

/* A direct network from an mp_topo: switch x is node x. */
static int build_cayley(mp_net *n, mp_topo *t, mp_err *err)
{
	n->topo = t;
	if (!n->topo)
		return -1;
	const char *f = mp_topo_family(n->topo);
	n->fam = strcmp(f, "hex") == 0 ? F_HEX : strcmp(f, "hexrect") == 0 ?
		 F_HEXRECT : strcmp(f, "mesh") == 0 ? F_MESH : F_TORUS;
	snprintf(n->name, sizeof n->name, "%s", mp_topo_name(n->topo));
	n->nsw = n->nterm = mp_topo_nodes(n->topo);
	n->rows = mp_topo_rows(n->topo);
	n->cols = mp_topo_cols(n->topo);
	unsigned deg = mp_topo_degree(n->topo), np = deg + 1;
	unsigned *ports = malloc((size_t)n->nsw * sizeof *ports);
	if (!ports)
		return fail_oom(err);
	for (uint32_t x = 0; x < n->nsw; x++)
		ports[x] = np;
	int rc = alloc_ports(n, ports, err);
	free(ports);
	if (rc < 0)
		return -1;
	for (uint32_t x = 0; x < n->nsw; x++) {
		unsigned r, c;
		mp_topo_coords(n->topo, x, &r, &c);
		for (unsigned d = 0; d < deg; d++) {
			uint32_t y = mp_topo_neighbor(n->topo, x, d);
			/* The mesh's directions imply links across its edges,
			 * which lie on no route: not links here. */
			if (n->fam == F_MESH &&
			    ((d == 0 && c + 1 == n->cols) ||
			     (d == 1 && r + 1 == n->rows) || (d == 2 && c == 0) ||
			     (d == 3 && r == 0)))
				continue;
			link_out(n, x, d, y, mp_topo_opposite(n->topo, d));
		}
		attach(n, x, x, deg, x, deg);
	}
	return 0;
}

/* Digits of x in base k. */
static unsigned digit(uint32_t x, unsigned k, unsigned i)
{
	while (i--)
		x /= k;
	return x % k;
}

static uint32_t set_digit(uint32_t x, unsigned k, unsigned i, unsigned v)
{
	uint32_t p = 1;
	for (unsigned j = 0; j < i; j++)
		p *= k;
	return x - digit(x, k, i) * p + v * p;
}

/* x without digit i (base k), the higher digits moved down. */
static uint32_t drop_digit(uint32_t x, unsigned k, unsigned i)
{
	uint32_t p = 1;
	for (unsigned j = 0; j < i; j++)
		p *= k;
	return x % p + x / (p * k) * p;
}

/* v inserted as digit i of w. */
static uint32_t insert_digit(uint32_t w, unsigned k, unsigned i, unsigned v)
{
	uint32_t p = 1;
	for (unsigned j = 0; j < i; j++)
		p *= k;
	return w % p + v * p + w / p * p * k;
}

static int build(mp_net *n, const char *fam, unsigned long a, unsigned long b,
		 mp_err *err)
{
	unsigned *ports = NULL;
	int rc = -1;

	if (strcmp(fam, "kncube") == 0 || strcmp(fam, "kncube-uni") == 0) {
		if (a < 2 || b < 1 || b > 20 || ipow(a, (unsigned)b) > (1u << 20))
			return mp_err_set(err, "network: %s:K,N needs K >= 2, N >= "
					       "1 and at most 2^20 nodes, not "
					       "%lu,%lu", fam, a, b);
		n->fam = fam[6] ? F_KNCUBE_UNI : F_KNCUBE;
		n->k = (unsigned)a;
		n->dims = (unsigned)b;
		n->nsw = n->nterm = (uint32_t)ipow(a, n->dims);
		n->rows = b == 2 ? n->k : 1;
		n->cols = b == 2 ? n->k : n->nsw;
		snprintf(n->name, sizeof n->name, "%s:%lu,%lu", fam, a, b);
	} else if (strcmp(fam, "hypercube") == 0) {
		if (a < 1 || a > 20)
			return mp_err_set(err, "network: hypercube:D needs 1 <= D "
					       "<= 20, not %lu", a);
		n->fam = F_HYPERCUBE;
		n->dims = (unsigned)a;
		n->nsw = n->nterm = 1u << a;
		n->rows = 1;
		n->cols = n->nsw;
		snprintf(n->name, sizeof n->name, "hypercube:%lu", a);
	} else if (strcmp(fam, "butterfly") == 0 || strcmp(fam, "omega") == 0) {
		if (a < 2 || 2 * a > MP_NET_MAXPORTS || b < 1 || b > 20 ||
		    ipow(a, (unsigned)b) > (1u << 20))
			return mp_err_set(err, "network: %s:A,N needs 2 <= "
					       "A <= %d, N >= 1 and at most 2^20 "
					       "terminals, not %lu,%lu", fam,
					  MP_NET_MAXPORTS / 2, a, b);
		n->fam = fam[0] == 'o' ? F_OMEGA : F_BUTTERFLY;
		n->k = (unsigned)a;
		n->dims = (unsigned)b;
		n->nterm = (uint32_t)ipow(a, n->dims);
		n->nsw = n->dims * (n->nterm / n->k);
		n->rows = 1;
		n->cols = n->nterm;
		snprintf(n->name, sizeof n->name, "%s:%lu,%lu", fam, a, b);
	} else if (strcmp(fam, "crossbar") == 0) {
		if (a < 2 || a > MP_NET_MAXPORTS)
			return mp_err_set(err, "network: crossbar:N needs 2 <= N "
					       "<= %d, not %lu", MP_NET_MAXPORTS, a);
		n->fam = F_CROSSBAR;
		n->nsw = 1;
		n->nterm = (uint32_t)a;
		n->rows = 1;
		n->cols = n->nterm;
		snprintf(n->name, sizeof n->name, "crossbar:%lu", a);
	} else if (strcmp(fam, "grid") == 0) {
		if (a * b < 2 || a * b > MAX_DIST_SWITCHES)
			return mp_err_set(err, "network: grid:RxC needs 2 to %d "
					       "routers, not %lux%lu",
					  MAX_DIST_SWITCHES, a, b);
		n->fam = F_GRID;
		n->rows = (unsigned)a;
		n->cols = (unsigned)b;
		n->nsw = n->nterm = (uint32_t)(a * b);
		snprintf(n->name, sizeof n->name, "grid:%lux%lu", a, b);
	} else if (strcmp(fam, "tree") == 0) {
		uint64_t t = ipow(a, (unsigned)(b > 20 ? 21 : b));
		if (a < 2 || a + 1 > MP_NET_MAXPORTS || b < 1 || b > 20 ||
		    (t - 1) / (a - 1) > MAX_DIST_SWITCHES)
			return mp_err_set(err, "network: tree:A,D needs 2 <= A "
					       "<= %d, D >= 1 and at most %d "
					       "routers, not %lu,%lu",
					  MP_NET_MAXPORTS - 1, MAX_DIST_SWITCHES,
					  a, b);
		n->fam = F_TREE;
		n->k = (unsigned)a;
		n->dims = (unsigned)b;
		n->nterm = (uint32_t)t;
		n->nsw = (uint32_t)((t - 1) / (a - 1));
		n->rows = 1;
		n->cols = n->nterm;
		snprintf(n->name, sizeof n->name, "tree:%lu,%lu", a, b);
	} else {
		return mp_err_set(err, "network: unknown family '%s' (hex, "
				       "hexrect, torus, mesh, kncube, kncube-uni, "
				       "hypercube, butterfly, crossbar, omega, "
				       "grid, tree)",
				  fam);
	}
	ports = malloc((size_t)n->nsw * sizeof *ports);
	if (!ports)
		return fail_oom(err);
	unsigned np = n->fam == F_KNCUBE ? 2 * n->dims + 1 :
		      n->fam == F_KNCUBE_UNI || n->fam == F_HYPERCUBE ? n->dims + 1 :
		      n->fam == F_BUTTERFLY || n->fam == F_OMEGA ? 2 * n->k :
		      n->fam == F_GRID ? 5 : n->fam == F_TREE ? n->k + 1 :
		      n->nterm;
	for (uint32_t s = 0; s < n->nsw; s++)
		ports[s] = np;
	if (alloc_ports(n, ports, err) < 0)
		goto out;
	switch (n->fam) {
	case F_KNCUBE:
	case F_KNCUBE_UNI: {
		int bi = n->fam == F_KNCUBE;
		for (uint32_t x = 0; x < n->nsw; x++) {
			for (unsigned i = 0; i < n->dims; i++) {
				unsigned d = digit(x, n->k, i);
				uint32_t up = set_digit(x, n->k, i, (d + 1) % n->k);
				uint32_t dn = set_digit(x, n->k, i,
							(d + n->k - 1) % n->k);
				if (bi) {
					link_out(n, x, 2 * i, up, 2 * i + 1);
					link_out(n, x, 2 * i + 1, dn, 2 * i);
				} else {
					link_out(n, x, i, up, i);
				}
			}
			attach(n, x, x, np - 1, x, np - 1);
		}
		break;
	}
	case F_HYPERCUBE:
		for (uint32_t x = 0; x < n->nsw; x++) {
			for (unsigned i = 0; i < n->dims; i++)
				link_out(n, x, i, x ^ (1u << i), i);
			attach(n, x, x, n->dims, x, n->dims);
		}
		break;
	case F_BUTTERFLY: {
		uint32_t per = n->nterm / n->k, A = n->k;
		for (unsigned s = 0; s < n->dims; s++)
			for (uint32_t w = 0; w < per; w++)
				for (unsigned j = 0; j < A; j++) {
					uint32_t line = insert_digit(w, A, s, j);
					uint32_t sw = s * per + w;
					if (s + 1 < n->dims)
						link_out(n, sw, A + j,
							 (s + 1) * per +
							 drop_digit(line, A, s + 1),
							 digit(line, A, s + 1));
				}
		for (uint32_t t = 0; t < n->nterm; t++)
			attach(n, t, drop_digit(t, A, 0), digit(t, A, 0),
			       (n->dims - 1) * per + drop_digit(t, A, n->dims - 1),
			       A + digit(t, A, n->dims - 1));
		break;
	}
	case F_CROSSBAR:
		for (uint32_t t = 0; t < n->nterm; t++)
			attach(n, t, 0, t, 0, t);
		break;
	case F_OMEGA: {
		/* A perfect shuffle (the line's digits rotated left by one)
		 * before every stage; output j of switch w is line w*A + j,
		 * and after the last stage the line is the terminal. */
		uint32_t per = n->nterm / n->k, A = n->k, N = n->nterm;
#define SHUFFLE(x) ((uint32_t)((uint64_t)(x) * A % N + (x) / per))
		for (unsigned s = 0; s + 1 < n->dims; s++)
			for (uint32_t w = 0; w < per; w++)
				for (unsigned j = 0; j < A; j++) {
					uint32_t l = SHUFFLE(w * A + j);
					link_out(n, s * per + w, A + j,
						 (s + 1) * per + l / A, l % A);
				}
		for (uint32_t t = 0; t < N; t++) {
			uint32_t l = SHUFFLE(t);
			attach(n, t, l / A, l % A, (n->dims - 1) * per + t / A,
			       A + t % A);
		}
#undef SHUFFLE
		break;
	}
	case F_GRID: {
		/* Router r*C + c; ports +col, +row, -col, -row, terminal. */
		uint32_t R = n->rows, C = n->cols;
		for (uint32_t x = 0; x < n->nsw; x++) {
			uint32_t r = x / C, c = x % C;
			if (c + 1 < C)
				link_out(n, x, 0, x + 1, 2);
			if (r + 1 < R)
				link_out(n, x, 1, x + C, 3);
			if (c > 0)
				link_out(n, x, 2, x - 1, 0);
			if (r > 0)
				link_out(n, x, 3, x - C, 1);
			attach(n, x, x, 4, x, 4);
		}
		break;
	}
	case F_TREE: {
		/* Level l (0: the root) holds A^l routers, numbered on from
		 * (A^l - 1) / (A - 1); port j of router i of level l leads
		 * down to router i*A + j of level l + 1 (or at the last level
		 * to terminal i*A + j), port A up to its parent. */
		uint32_t A = n->k, off = 0, w = 1;
		for (unsigned l = 0; l < n->dims; l++, off += w, w *= A)
			for (uint32_t i = 0; i < w; i++)
				for (unsigned j = 0; j < A; j++) {
					uint32_t x = off + i, c = i * A + j;
					if (l + 1 < n->dims) {
						link_out(n, x, j, off + w + c, A);
						link_out(n, off + w + c, A, x, j);
					} else {
						attach(n, c, x, j, x, j);
					}
				}
		break;
	}
	}
	rc = 0;
out:
	free(ports);
	return rc;
}

/* Distances between switches by breadth-first search from each. */
static int tabulate(mp_net *n, mp_err *err)
{
	uint32_t S = n->nsw;
	if (S > MAX_DIST_SWITCHES)
		return 0; /* minimal routing refuses it */
	n->dist = malloc((size_t)S * S * sizeof *n->dist);
	uint32_t *q = malloc((size_t)S * sizeof *q);
	if (!n->dist || !q) {
		free(q);
		return fail_oom(err);
	}
	memset(n->dist, 0xff, (size_t)S * S * sizeof *n->dist);
	for (uint32_t a = 0; a < S; a++) {
		uint16_t *d = n->dist + (size_t)a * S;
		uint32_t h = 0, t = 0;
		d[a] = 0;
		q[t++] = a;
		while (h < t) {
			uint32_t x = q[h++];
			for (uint32_t id = n->base[x]; id < n->base[x + 1]; id++) {
				if (n->kind[id] != MP_PORT_LINK)
					continue;
				uint32_t y = n->peer[id];
				if (d[y] == 0xffff) {
					d[y] = (uint16_t)(d[x] + 1);
					q[t++] = y;
				}
			}
		}
	}
	free(q);
	return 0;
}

/* Finish n (distances) or free it. */
static mp_net *done(mp_net *n, int rc, mp_err *err)
{
	if (rc == 0 && !n->topo)
		rc = tabulate(n, err);
	if (rc < 0) {
		mp_net_free(n);
		return NULL;
	}
	return n;
}

static int cayley(const char *fam)
{
	return strcmp(fam, "hex") == 0 || strcmp(fam, "hexrect") == 0 ||
	       strcmp(fam, "torus") == 0 || strcmp(fam, "mesh") == 0;
}

mp_net *mp_net_make(const char *family, uint32_t a, uint32_t b, mp_err *err)
{
	mp_net *n = calloc(1, sizeof *n);
	if (!n) {
		fail_oom(err);
		return NULL;
	}
	if (cayley(family))
		return done(n, build_cayley(n, mp_topo_make(family, a, b, err),
					    err), err);
	return done(n, build(n, family, a, b, err), err);
}

mp_net *mp_net_new(const char *spec, mp_err *err)
{
	char fam[16];
	const char *colon = strchr(spec, ':');
	if (!colon || (size_t)(colon - spec) >= sizeof fam) {
		mp_err_set(err, "network: bad spec '%s' (FAMILY:SIZE)", spec);
		return NULL;
	}
	memcpy(fam, spec, (size_t)(colon - spec));
	fam[colon - spec] = '\0';
	const char *arg = colon + 1;
	if (cayley(fam)) {
		mp_net *n = calloc(1, sizeof *n);
		if (!n) {
			fail_oom(err);
			return NULL;
		}
		return done(n, build_cayley(n, mp_topo_new(spec, err), err), err);
	}
	unsigned long a, b;
	char sep = strcmp(fam, "mesh") == 0 || strcmp(fam, "grid") == 0 ? 'x'
									: ',';
	int one = strcmp(fam, "hypercube") == 0 || strcmp(fam, "crossbar") == 0;
	if (two(arg, sep, &a, &b) < 0 || (one && a != b) ||
	    a > UINT32_MAX || b > UINT32_MAX) {
		mp_err_set(err, "network: bad size in '%s'", spec);
		return NULL;
	}
	return mp_net_make(fam, (uint32_t)a, (uint32_t)b, err);
}

void mp_net_free(mp_net *n)
{
	if (!n)
		return;
	free(n->base);
	free(n->kind);
	free(n->peer);
	free(n->peer_port);
	free(n->lat);
	free(n->sw_of);
	free(n->tin);
	free(n->tout);
	free(n->dist);
	mp_topo_free(n->topo);
	free(n);
}

const char *mp_net_name(const mp_net *n)
{
	return n->name;
}

const char *mp_net_family(const mp_net *n)
{
	return fam_names[n->fam];
}

uint32_t mp_net_switches(const mp_net *n)
{
	return n->nsw;
}

uint32_t mp_net_terminals(const mp_net *n)
{
	return n->nterm;
}

int mp_net_direct(const mp_net *n)
{
	return n->fam != F_BUTTERFLY && n->fam != F_CROSSBAR &&
	       n->fam != F_OMEGA && n->fam != F_TREE;
}

unsigned mp_net_ports(const mp_net *n, uint32_t sw)
{
	return n->base[sw + 1] - n->base[sw];
}

int mp_net_out(const mp_net *n, uint32_t sw, unsigned port, uint32_t *peer,
	       unsigned *peer_port)
{
	uint32_t id = n->base[sw] + port;
	*peer = n->peer[id];
	*peer_port = n->peer_port[id];
	return n->kind[id];
}

unsigned mp_net_latency(const mp_net *n, uint32_t sw, unsigned port)
{
	return n->lat[n->base[sw] + port];
}

uint32_t mp_net_port_id(const mp_net *n, uint32_t sw, unsigned port)
{
	return n->base[sw] + port;
}

uint32_t mp_net_port_ids(const mp_net *n)
{
	return n->nids;
}

void mp_net_term_in(const mp_net *n, uint32_t t, uint32_t *sw, unsigned *port)
{
	*sw = n->sw_of[n->tin[t]];
	*port = n->tin[t] - n->base[*sw];
}

void mp_net_term_out(const mp_net *n, uint32_t t, uint32_t *sw, unsigned *port)
{
	*sw = n->sw_of[n->tout[t]];
	*port = n->tout[t] - n->base[*sw];
}

unsigned mp_net_rows(const mp_net *n)
{
	return n->rows;
}

unsigned mp_net_cols(const mp_net *n)
{
	return n->cols;
}

void mp_net_coords(const mp_net *n, uint32_t t, unsigned *row, unsigned *col)
{
	if (n->topo) {
		mp_topo_coords(n->topo, t, row, col);
		return;
	}
	*row = t / n->cols;
	*col = t % n->cols;
}

const mp_topo *mp_net_topo(const mp_net *n)
{
	return n->topo;
}

/* Distance from switch a to switch b (UINT32_MAX: unreachable or not
 * tabulated). */
static uint32_t sw_dist(const mp_net *n, uint32_t a, uint32_t b)
{
	if (n->topo)
		return mp_topo_dist(n->topo, a, b);
	if (!n->dist)
		return UINT32_MAX;
	uint16_t d = n->dist[(size_t)a * n->nsw + b];
	return d == 0xffff ? UINT32_MAX : d;
}

unsigned mp_net_dist(const mp_net *n, uint32_t src, uint32_t dst)
{
	uint32_t a, b;
	unsigned p;
	mp_net_term_in(n, src, &a, &p);
	mp_net_term_out(n, dst, &b, &p);
	return (unsigned)sw_dist(n, a, b);
}

int mp_net_local_dests(const mp_net *n, unsigned L, uint32_t **list,
		       uint32_t **start, mp_err *err)
{
	uint32_t N = n->nterm;
	uint64_t cnt = 0;
	*list = NULL;
	*start = malloc(((size_t)N + 1) * sizeof **start);
	if (!*start)
		return fail_oom(err);
	for (int pass = 0; pass < 2; pass++) {
		cnt = 0;
		for (uint32_t t = 0; t < N; t++) {
			(*start)[t] = (uint32_t)cnt;
			for (uint32_t u = 0; u < N; u++) {
				if (u == t)
					continue;
				unsigned d = mp_net_dist(n, t, u);
				if (d == UINT32_MAX && !pass) {
					free(*start);
					*start = NULL;
					return mp_err_set(err, "--dest local:%u: "
							       "distances in %s "
							       "are not known",
							  L, n->name);
				}
				if (d <= L) {
					if (pass)
						(*list)[cnt] = u;
					cnt++;
				}
			}
			if (cnt == (*start)[t] && !pass) {
				free(*start);
				*start = NULL;
				return mp_err_set(err, "--dest local:%u: terminal "
						       "%u of %s has no other "
						       "within %u hops", L, t,
						  n->name, L);
			}
		}
		(*start)[N] = (uint32_t)cnt;
		if (!pass) {
			if (cnt >= UINT32_MAX ||
			    !(*list = malloc((cnt ? cnt : 1) * sizeof **list))) {
				free(*start);
				*start = NULL;
				return fail_oom(err);
			}
		}
	}
	return 0;
}

static unsigned route_minimal(const mp_net *n, uint32_t sw, uint32_t dst,
			      unsigned *ports, unsigned max)
{
	uint32_t out = n->tout[dst], osw = n->sw_of[out];
	unsigned k = 0;
	if (sw == osw) {
		if (max)
			ports[k++] = out - n->base[sw];
		return k;
	}
	uint32_t here = sw_dist(n, sw, osw);
	if (here == UINT32_MAX)
		return 0;
	for (uint32_t id = n->base[sw]; id < n->base[sw + 1] && k < max; id++)
		if (n->kind[id] == MP_PORT_LINK &&
		    sw_dist(n, n->peer[id], osw) + 1 == here)
			ports[k++] = id - n->base[sw];
	return k;
}

static unsigned route_dor(const mp_net *n, uint32_t sw, uint32_t dst,
			  unsigned *ports, unsigned max)
{
	uint32_t osw = n->sw_of[n->tout[dst]];
	if (max == 0)
		return 0;
	if (n->fam == F_OMEGA) {
		/* Destination-tag routing, which needs no distance table
		 * (none past MAX_DIST_SWITCHES switches): stage s sets the
		 * line's lowest digit, which the D - 1 - s shuffles after
		 * it carry to digit D - 1 - s of the terminal. */
		uint32_t per = n->nterm / n->k, s = sw / per, p = 1;
		if (s >= n->dims)
			return 0;
		for (uint32_t i = 0; i < s; i++)
			p *= n->k; /* A^s <= per */
		/* On dst's path, the switch's lowest s digits are dst's
		 * highest. */
		if (sw % per % p != dst / (n->nterm / p))
			return 0;
		ports[0] = n->k + digit(dst, n->k, n->dims - 1 - s);
		return 1;
	}
	if (sw == osw || n->fam == F_BUTTERFLY || n->fam == F_CROSSBAR ||
	    n->fam == F_TREE)
		return route_minimal(n, sw, dst, ports, 1);
	switch (n->fam) {
	case F_HEX:
	case F_HEXRECT:
	case F_TORUS:
		ports[0] = mp_topo_det(n->topo, sw, osw);
		return 1;
	case F_MESH:
	case F_GRID: {
		unsigned r = sw / n->cols, c = sw % n->cols;
		unsigned dr = osw / n->cols, dc = osw % n->cols;
		ports[0] = dc > c ? 0 : dc < c ? 2 : dr > r ? 1 : 3;
		return 1;
	}
	case F_HYPERCUBE:
		ports[0] = (unsigned)__builtin_ctz(sw ^ osw);
		return 1;
	default: { /* k-ary n-cubes: the lowest dimension that differs */
		for (unsigned i = 0; i < n->dims; i++) {
			unsigned a = digit(sw, n->k, i), b = digit(osw, n->k, i);
			if (a == b)
				continue;
			if (n->fam == F_KNCUBE_UNI) {
				ports[0] = i;
			} else {
				unsigned up = (b + n->k - a) % n->k;
				ports[0] = up <= n->k - up ? 2 * i : 2 * i + 1;
			}
			return 1;
		}
		return 0;
	}
	}
}

mp_route_fn mp_net_routing(const char *name)
{
	if (strcmp(name, "minimal") == 0)
		return route_minimal;
	if (strcmp(name, "dor") == 0)
		return route_dor;
	return NULL;
}
