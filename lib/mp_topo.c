/*
 * Cayley-graph topologies: generators, and distance and direction tables
 * built once by breadth-first search from node 0.
 */
#include "mp_topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FAM_HEX, FAM_HEXRECT, FAM_TORUS, FAM_MESH };

struct mp_topo {
	int fam;
	char name[48];
	uint32_t n, rows, cols;
	uint32_t orows, ocols, noff; /* offset space (see mp_topo_offset) */
	unsigned deg, diam;
	int32_t gr[MP_TOPO_MAXDEG], gc[MP_TOPO_MAXDEG]; /* generator offsets */
	unsigned opp[MP_TOPO_MAXDEG];
	uint8_t *dist, *best, *nf, *det;
	uint32_t *count_at;
	double mean;
};

static uint32_t wrap(int64_t v, uint32_t m)
{
	int64_t r = v % (int64_t)m;
	return (uint32_t)(r < 0 ? r + m : r);
}

static uint32_t step(const mp_topo *t, uint32_t node, unsigned dir)
{
	uint32_t r = node / t->cols, c = node % t->cols;
	r = wrap((int64_t)r + t->gr[dir], t->rows);
	c = wrap((int64_t)c + t->gc[dir], t->cols);
	return r * t->cols + c;
}

uint32_t mp_topo_offset(const mp_topo *t, uint32_t src, uint32_t dst)
{
	if (t->rows == 1)
		return dst >= src ? dst - src : dst + t->n - src;
	uint32_t sr = src / t->cols, sc = src % t->cols;
	uint32_t dr = dst / t->cols, dc = dst % t->cols;
	uint32_t r = dr >= sr ? dr - sr : dr + t->orows - sr;
	uint32_t c = dc >= sc ? dc - sc : dc + t->ocols - sc;
	return r * t->ocols + c;
}

/*
 * The 2-D mesh is no Cayley graph (a corner sees another neighbourhood
 * than the centre), but distance and the best directions still depend
 * only on the signed offset (dr, dc), |dr| < R, |dc| < C: its tables are
 * indexed by (dr mod 2R-1, dc mod 2C-1), offset 0 still being the node
 * itself. The wrap-around generators give the directions their
 * neighbours; a link across the edge is never on a route (every route
 * is minimal and no table names it).
 */
static int build_mesh(mp_topo *t, mp_err *err)
{
	uint32_t R = t->rows, C = t->cols, n = t->noff;
	t->dist = malloc(n);
	t->best = calloc(n, 1);
	t->nf = calloc(n, 1);
	t->det = calloc(n, 1);
	t->count_at = calloc(R + C, sizeof *t->count_at);
	if (!t->dist || !t->best || !t->nf || !t->det || !t->count_at)
		return mp_err_set(err, "topology: out of memory");
	for (unsigned d = 0; d < 4; d++)
		t->opp[d] = (d + 2) % 4;
	double sum = 0, pairs = 0;
	for (uint32_t i = 0; i < t->orows; i++)
		for (uint32_t j = 0; j < t->ocols; j++) {
			int64_t dr = i < R ? (int64_t)i : (int64_t)i - t->orows;
			int64_t dc = j < C ? (int64_t)j : (int64_t)j - t->ocols;
			uint32_t x = i * t->ocols + j;
			uint64_t ar = (uint64_t)(dr < 0 ? -dr : dr);
			uint64_t ac = (uint64_t)(dc < 0 ? -dc : dc);
			t->dist[x] = (uint8_t)(ar + ac);
			/* Directions 0 (0,+1), 1 (+1,0), 2 (0,-1), 3 (-1,0). */
			unsigned mask = (dc > 0 ? 1u : 0) | (dr > 0 ? 2u : 0) |
					(dc < 0 ? 4u : 0) | (dr < 0 ? 8u : 0);
			t->best[x] = (uint8_t)mask;
			/* Dimension order: columns first. */
			t->det[x] = (uint8_t)(dc > 0 ? 0 : dc < 0 ? 2 :
					       dr > 0 ? 1 : 3);
			/* Ordered pairs at this offset: (R-|dr|)(C-|dc|). */
			double m = (double)(R - ar) * (double)(C - ac);
			if (x) {
				sum += m * (double)(ar + ac);
				pairs += m;
			}
		}
	t->diam = R + C - 2;
	t->mean = pairs > 0 ? sum / pairs : 0;
	/* Seen from node 0, a corner. */
	for (uint32_t y = 0; y < t->n; y++)
		t->count_at[t->dist[mp_topo_offset(t, 0, y)]]++;
	return 0;
}

static int build(mp_topo *t, mp_err *err)
{
	uint32_t n = t->n;
	t->dist = malloc(n);
	t->best = calloc(n, 1);
	t->nf = calloc(n, 1);
	t->det = calloc(n, 1);
	uint32_t *queue = malloc(n * sizeof *queue);
	if (!t->dist || !t->best || !t->nf || !t->det || !queue) {
		free(queue);
		return mp_err_set(err, "topology: out of memory");
	}
	/* Opposite directions: the generator that undoes each one. */
	for (unsigned d = 0; d < t->deg; d++) {
		t->opp[d] = d;
		for (unsigned e = 0; e < t->deg; e++)
			if (step(t, step(t, 0, d), e) == 0 && e != d)
				t->opp[d] = e;
	}
	memset(t->dist, 0xff, n);
	t->dist[0] = 0;
	uint32_t head = 0, tail = 0;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t x = queue[head++];
		for (unsigned d = 0; d < t->deg; d++) {
			uint32_t y = step(t, x, d);
			if (t->dist[y] == 0xff) {
				if (t->dist[x] + 1 >= 0xff) {
					free(queue);
					return mp_err_set(err, "topology: diameter too large");
				}
				t->dist[y] = (uint8_t)(t->dist[x] + 1);
				queue[tail++] = y;
			}
		}
	}
	free(queue);
	if (tail != n)
		return mp_err_set(err, "topology: %s is not connected", t->name);
	t->diam = 0;
	double sum = 0;
	for (uint32_t x = 0; x < n; x++) {
		if (t->dist[x] > t->diam)
			t->diam = t->dist[x];
		sum += t->dist[x];
	}
	t->mean = n > 1 ? sum / (n - 1) : 0;
	t->count_at = calloc(t->diam + 1, sizeof *t->count_at);
	if (!t->count_at)
		return mp_err_set(err, "topology: out of memory");
	for (uint32_t x = 0; x < n; x++)
		t->count_at[t->dist[x]]++;

	/*
	 * Offset x seen from node 0 is node x. A direction d is best when
	 * the neighbour in direction d is one step closer to x.
	 */
	for (uint32_t x = 1; x < n; x++) {
		unsigned mask = 0;
		for (unsigned d = 0; d < t->deg; d++) {
			uint32_t y = step(t, 0, d);
			if (t->dist[mp_topo_offset(t, y, x)] + 1 == t->dist[x])
				mask |= 1u << d;
		}
		t->best[x] = (uint8_t)mask;
		unsigned nf = 0;
		if (t->fam != FAM_TORUS) {
			for (unsigned d = 0; d < t->deg; d++) {
				unsigned l = (d + t->deg - 1) % t->deg;
				unsigned r = (d + 1) % t->deg;
				if (!(mask >> d & 1) && ((mask >> l & 1) || (mask >> r & 1)))
					nf |= 1u << d;
			}
		}
		t->nf[x] = (uint8_t)nf;
		/* Deterministic: for six-direction meshes the first best
		 * direction in circular order (so a path runs along one
		 * axis, then the other); for the torus, the first best
		 * direction in the order columns (+, -) then rows (+, -),
		 * which is dimension-order routing. */
		static const unsigned torus_order[4] = { 0, 2, 1, 3 };
		unsigned pick = 0;
		if (t->fam == FAM_TORUS) {
			for (unsigned i = 0; i < 4; i++)
				if (mask >> torus_order[i] & 1) {
					pick = torus_order[i];
					break;
				}
		} else {
			for (unsigned d = 0; d < t->deg; d++) {
				unsigned prev = (d + t->deg - 1) % t->deg;
				if ((mask >> d & 1) && !(mask >> prev & 1)) {
					pick = d;
					break;
				}
			}
		}
		t->det[x] = (uint8_t)pick;
	}
	return 0;
}

static int parse_dims(const char *s, uint32_t *r, uint32_t *c)
{
	char *end;
	unsigned long a = strtoul(s, &end, 10);
	if (end == s || a == 0 || a > 65535)
		return -1;
	if (*end == '\0') {
		*r = *c = (uint32_t)a;
		return 0;
	}
	if (*end != 'x')
		return -1;
	const char *s2 = end + 1;
	unsigned long b = strtoul(s2, &end, 10);
	if (end == s2 || *end || b == 0 || b > 65535)
		return -1;
	*r = (uint32_t)a;
	*c = (uint32_t)b;
	return 0;
}

mp_topo *mp_topo_make(const char *family, uint32_t a, uint32_t b, mp_err *err)
{
	mp_topo *t = calloc(1, sizeof *t);
	if (!t) {
		mp_err_set(err, "topology: out of memory");
		return NULL;
	}
	if (strcmp(family, "hex") == 0) {
		uint32_t n = a;
		if (n < 2 || n > 128) {
			mp_err_set(err, "topology: hex size must be 2..128, not %u",
				   n);
			goto fail;
		}
		t->fam = FAM_HEX;
		t->rows = 1;
		t->n = t->cols = 3 * n * (n - 1) + 1;
		t->deg = 6;
		int32_t g[6] = { 1, (int32_t)(3 * n - 1), (int32_t)(3 * n - 2),
				 -1, -(int32_t)(3 * n - 1), -(int32_t)(3 * n - 2) };
		for (int i = 0; i < 6; i++)
			t->gr[i] = 0, t->gc[i] = g[i];
		snprintf(t->name, sizeof t->name, "hex:%u", n);
	} else if (strcmp(family, "hexrect") == 0 ||
		   strcmp(family, "torus") == 0 || strcmp(family, "mesh") == 0) {
		uint32_t r = a, c = b;
		int hexr = family[0] == 'h', mesh = family[0] == 'm';
		if (r < 2 || c < 2 || r > 65535 || c > 65535 ||
		    (uint64_t)r * c > 1000000) {
			mp_err_set(err, "topology: bad size %ux%u (RxC, each >= 2, "
					"at most 10^6 nodes)", r, c);
			goto fail;
		}
		if (!hexr && !mesh && (r < 3 || c < 3)) {
			mp_err_set(err, "topology: torus sides must be >= 3 (a "
					"ring of 2 has one link, not two)");
			goto fail;
		}
		t->rows = r;
		t->cols = c;
		t->n = r * c;
		if (hexr) {
			static const int32_t hr[6] = { 0, 1, 1, 0, -1, -1 };
			static const int32_t hc[6] = { 1, 1, 0, -1, -1, 0 };
			if (r < 3 || c < 3) {
				mp_err_set(err, "topology: hexrect sides must be >= 3");
				goto fail;
			}
			t->fam = FAM_HEXRECT;
			t->deg = 6;
			memcpy(t->gr, hr, sizeof hr);
			memcpy(t->gc, hc, sizeof hc);
		} else {
			static const int32_t tr[4] = { 0, 1, 0, -1 };
			static const int32_t tc[4] = { 1, 0, -1, 0 };
			t->fam = mesh ? FAM_MESH : FAM_TORUS;
			t->deg = 4;
			memcpy(t->gr, tr, sizeof tr);
			memcpy(t->gc, tc, sizeof tc);
		}
		snprintf(t->name, sizeof t->name, "%s:%ux%u",
			 hexr ? "hexrect" : mesh ? "mesh" : "torus", r, c);
	} else {
		mp_err_set(err, "topology: unknown family '%s' (hex, hexrect, "
				"torus, mesh)", family);
		goto fail;
	}
	if (t->fam == FAM_MESH && t->rows + t->cols - 2 >= 0xff) {
		mp_err_set(err, "topology: mesh:%ux%u: diameter too large",
			   t->rows, t->cols);
		goto fail;
	}
	t->orows = t->fam == FAM_MESH ? 2 * t->rows - 1 : t->rows;
	t->ocols = t->fam == FAM_MESH ? 2 * t->cols - 1 : t->cols;
	t->noff = t->fam == FAM_MESH ? t->orows * t->ocols : t->n;
	if ((t->fam == FAM_MESH ? build_mesh(t, err) : build(t, err)) < 0)
		goto fail;
	return t;
fail:
	mp_topo_free(t);
	return NULL;
}

mp_topo *mp_topo_new(const char *spec, mp_err *err)
{
	const char *colon = strchr(spec, ':');
	char fam[16];
	if (!colon || (size_t)(colon - spec) >= sizeof fam)
		goto bad;
	memcpy(fam, spec, (size_t)(colon - spec));
	fam[colon - spec] = '\0';
	const char *arg = colon + 1;
	if (strcmp(fam, "hex") == 0) {
		char *end;
		unsigned long n = strtoul(arg, &end, 10);
		if (end == arg || *end || n < 2 || n > 128) {
			mp_err_set(err, "topology: hex size must be 2..128, not '%s'",
				   arg);
			return NULL;
		}
		return mp_topo_make(fam, (uint32_t)n, 0, err);
	}
	if (strcmp(fam, "hexrect") == 0 || strcmp(fam, "torus") == 0 ||
	    strcmp(fam, "mesh") == 0) {
		uint32_t r, c;
		if (parse_dims(arg, &r, &c) < 0) {
			mp_err_set(err, "topology: bad size '%s' (RxC, each >= 2, "
					"at most 10^6 nodes)", arg);
			return NULL;
		}
		return mp_topo_make(fam, r, c, err);
	}
bad:
	mp_err_set(err, "topology: unknown '%s' (hex:N, hexrect:RxC, torus:RxC, "
			"mesh:RxC)",
		   spec);
	return NULL;
}

void mp_topo_free(mp_topo *t)
{
	if (!t)
		return;
	free(t->dist);
	free(t->best);
	free(t->nf);
	free(t->det);
	free(t->count_at);
	free(t);
}

const char *mp_topo_name(const mp_topo *t) { return t->name; }

const char *mp_topo_family(const mp_topo *t)
{
	return t->fam == FAM_HEX ? "hex" : t->fam == FAM_HEXRECT ? "hexrect" :
	       t->fam == FAM_MESH ? "mesh" : "torus";
}

uint32_t mp_topo_offsets(const mp_topo *t) { return t->noff; }

uint32_t mp_topo_nodes(const mp_topo *t) { return t->n; }
unsigned mp_topo_degree(const mp_topo *t) { return t->deg; }
unsigned mp_topo_diameter(const mp_topo *t) { return t->diam; }
unsigned mp_topo_rows(const mp_topo *t) { return t->rows; }
unsigned mp_topo_cols(const mp_topo *t) { return t->cols; }

uint32_t mp_topo_neighbor(const mp_topo *t, uint32_t node, unsigned dir)
{
	return step(t, node, dir);
}

unsigned mp_topo_opposite(const mp_topo *t, unsigned dir)
{
	return t->opp[dir];
}

unsigned mp_topo_dist(const mp_topo *t, uint32_t src, uint32_t dst)
{
	return t->dist[mp_topo_offset(t, src, dst)];
}

const uint8_t *mp_topo_dist_table(const mp_topo *t) { return t->dist; }
const uint8_t *mp_topo_best_table(const mp_topo *t) { return t->best; }
const uint8_t *mp_topo_nofarther_table(const mp_topo *t) { return t->nf; }
const uint8_t *mp_topo_det_table(const mp_topo *t) { return t->det; }

unsigned mp_topo_best(const mp_topo *t, uint32_t src, uint32_t dst)
{
	return t->best[mp_topo_offset(t, src, dst)];
}

unsigned mp_topo_nofarther(const mp_topo *t, uint32_t src, uint32_t dst)
{
	return t->nf[mp_topo_offset(t, src, dst)];
}

unsigned mp_topo_det(const mp_topo *t, uint32_t src, uint32_t dst)
{
	return t->det[mp_topo_offset(t, src, dst)];
}

double mp_topo_mean_dist(const mp_topo *t) { return t->mean; }

uint32_t mp_topo_count_at(const mp_topo *t, unsigned d)
{
	return d <= t->diam ? t->count_at[d] : 0;
}

void mp_topo_coords(const mp_topo *t, uint32_t node, unsigned *row,
		    unsigned *col)
{
	*row = node / t->cols;
	*col = node % t->cols;
}
