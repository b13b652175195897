/*
 * Workload generation and trace replay: per-node sources with their own
 * random streams, merged in time order by a binary heap; or a CSV trace
 * read row by row through mp_csv.
 */
#include "mp_workload.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "mp_csv.h"
#include "mp_deps.h"
#include "mp_netrace.h"
#include "mp_rng.h"
#include "mp_topo.h"

/* Purposes of a node's random streams: stream id = node * 8 + purpose. */
enum {
	P_ARR, P_LEN, P_DST, P_CLS, P_ROUTE, P_GT_ARR, P_GT_DST, P_GT_ROUTE,
	NPURPOSE
};

/* Streams that belong to no node (choice of hot nodes and senders). */
#define GLOBAL_STREAM (UINT64_C(1) << 62)
enum { G_HOT_NODES = 1, G_HOT_SENDERS = 2 };

/* Node roles under hot-spot traffic. */
enum { ROLE_INDEP, ROLE_HOT, ROLE_SINK };

/* Largest time a source may reach; beyond it the source stops (readers
 * refuse later times). */
#define TIME_MAX ((double)MP_TIME_MAX)

/* Longest node list written to a header value, in bytes. */
#define LIST_MAX (768u * 1024)

/* One arrival stream: a node's messages, or its separate GT stream. */
struct source {
	uint64_t next;  /* time of its next message */
	double clock;   /* Poisson: the continuous clock */
	uint64_t k;     /* saturated: messages so far */
	double mean;    /* mean inter-arrival, units */
	double p;       /* geometric: probability of a message per unit */
	mp_rng arr, len, dst, cls, route;
	uint32_t node;
	uint8_t gt;     /* the separate guaranteed stream */
	uint8_t live;
};

struct remap {
	uint32_t from, to;
};

struct mp_workload {
	struct mp_wl_cfg c;
	const mp_net *net;
	const mp_topo *topo; /* the network's, when a Cayley mesh */
	uint32_t n;
	double pe_time;
	unsigned load_flits;	/* packet length the load assumes, or 0 */
	unsigned payload;
	double mean_len;
	double hot_share; /* effective */
	uint64_t id;
	char err[640];

	/* generation */
	struct source *src;
	size_t nsrc;
	uint32_t *heap; /* source indices */
	size_t nheap;
	uint8_t *role;  /* NULL without hot spots */
	uint32_t *hot, *senders, *indep, *indep_pos;
	uint32_t nhot, nsend, nindep;
	uint32_t *offs; /* offsets at distance dest_k */
	uint32_t *loc, *locn; /* MP_DST_LOCAL: mp_net_local_dests */
	uint32_t noffs;

	/* replay */
	mp_csv_reader *csv;
	mp_netrace *nt;
	int nt_fd;        /* opened here (to close), or -1 */
	uint64_t nt_count;
	int started;
	int col_time, col_src, col_dst, col_pk, col_bytes, col_cls;
	int col_id, col_after;
	mp_idcount *users_of; /* CSV with dependencies: users per id */
	uint64_t *abuf;       /* the after ids of the current row */
	size_t acap;
	struct remap *map;
	size_t nmap;
	uint64_t last_time;
	uint64_t dropped;
	/* Netrace dependencies (deps mode) */
	int deps;
	mp_depinv *inv;
	const uint64_t *after;
	size_t nafter;
	uint32_t users;
	uint64_t skip, take; /* --region: packets to skip, then to read */
	/* --chains: each a requester, its current server, where it is */
	struct chain {
		uint64_t next, last_id;
		uint32_t a, b;
		int resp, started;
		mp_rng rng;
	} *ch;
	uint64_t dep1;
	uint32_t last_id;
};

static const char *const arrival_names[] = { "poisson", "geometric",
					     "saturated", "bernoulli" };

/* ------------------------------------------------------------------ */
/* Options                                                             */

void mp_wl_cfg_init(struct mp_wl_cfg *c)
{
	memset(c, 0, sizeof *c);
	mp_wl_set(c, "workload", "bimodal", NULL);
	c->seed = 1;
	c->arrival = MP_ARR_POISSON;
	c->dest = MP_DST_UNIFORM;
	c->hot_share = -1;
	c->gt_length = 1;
	c->time_scale = 1;
	c->replay_fd = -1;
	c->region = -1;
	c->think = 100;
}

/* A percentage: "10" and "10%" both mean 0.1. */
static int parse_share(const char *val, double *out, const char *what,
		       mp_err *err)
{
	size_t n = val ? strlen(val) : 0;
	if (n > 0 && val[n - 1] == '%')
		return mp_parse_double(val, 0, 1, 1, out, what, err);
	double v;
	if (mp_parse_double(val, 0, 100, 0, &v, what, err) < 0)
		return -1;
	*out = v / 100;
	return 0;
}

/* An unsigned option in [lo, hi]. */
static int parse_uint(const char *val, unsigned lo, unsigned hi,
		      unsigned *out, const char *what, mp_err *err)
{
	uint64_t v;
	if (mp_parse_u64(val, lo, hi, &v, what, err) < 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* A length in packets: 1 to 10^6. */
static int parse_len(const char *val, unsigned *out, const char *what,
		     mp_err *err)
{
	return parse_uint(val, 1, 1000000, out, what, err);
}

/* Parse "old:new,old:new"; pairs may be NULL to only check. */
static int parse_remap(const char *s, struct remap *pairs, size_t *n,
		       mp_err *err)
{
	size_t k = 0;
	const char *p = s;
	if (!s || !*s)
		return mp_err_set(err, "--remap: empty list");
	while (*p) {
		char buf[64];
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof buf)
			return mp_err_set(err, "--remap: bad entry in '%s' "
					       "(old:new,old:new...)", s);
		memcpy(buf, p, len);
		buf[len] = '\0';
		char *colon = strchr(buf, ':');
		if (!colon)
			return mp_err_set(err, "--remap: '%s' is not old:new", buf);
		*colon = '\0';
		uint64_t a, b;
		if (mp_parse_u64(buf, 0, UINT32_MAX, &a, "--remap", err) < 0 ||
		    mp_parse_u64(colon + 1, 0, UINT32_MAX, &b, "--remap", err) < 0)
			return -1;
		if (pairs) {
			for (size_t i = 0; i < k; i++)
				if (pairs[i].from == a)
					return mp_err_set(err, "--remap: node %llu "
							  "mapped twice",
							  (unsigned long long)a);
			pairs[k].from = (uint32_t)a;
			pairs[k].to = (uint32_t)b;
		}
		k++;
		p += len;
		if (*p == ',' && *++p == '\0')
			return mp_err_set(err, "--remap: trailing comma in '%s'", s);
	}
	*n = k;
	return 0;
}

static int parse_hot_nodes(struct mp_wl_cfg *c, const char *val, mp_err *err)
{
	const char *p = val;
	unsigned k = 0;
	if (!val || !*val)
		return mp_err_set(err, "--hot-nodes: empty list");
	while (*p) {
		char buf[32];
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof buf)
			return mp_err_set(err, "--hot-nodes: bad list '%s' "
					       "(node,node,...)", val);
		memcpy(buf, p, len);
		buf[len] = '\0';
		uint64_t v;
		if (mp_parse_u64(buf, 0, UINT32_MAX, &v, "--hot-nodes", err) < 0)
			return -1;
		if (k == MP_WL_MAXHOT)
			return mp_err_set(err, "--hot-nodes: more than %d nodes",
					  MP_WL_MAXHOT);
		for (unsigned i = 0; i < k; i++)
			if (c->hot_list[i] == v)
				return mp_err_set(err, "--hot-nodes: node %llu "
						  "listed twice",
						  (unsigned long long)v);
		c->hot_list[k++] = (uint32_t)v;
		p += len;
		if (*p == ',' && *++p == '\0')
			return mp_err_set(err, "--hot-nodes: trailing comma in '%s'",
					  val);
	}
	c->hot_nlist = k;
	return 0;
}

static void set_lengths(struct mp_wl_cfg *c, unsigned smin, unsigned smax,
			unsigned llen, double share)
{
	c->short_min = smin;
	c->short_max = smax;
	c->long_len = llen;
	c->long_share = share;
}

static int set_workload(struct mp_wl_cfg *c, const char *val, mp_err *err)
{
	if (!val)
		val = "";
	if (strcmp(val, "bimodal") == 0 || strcmp(val, "wk-mixture") == 0)
		set_lengths(c, 1, 5, 25, 0.1);
	else if (strcmp(val, "wk1-5") == 0)
		set_lengths(c, 1, 5, 25, 0);
	else if (strcmp(val, "wk30") == 0)
		set_lengths(c, 30, 30, 30, 0);
	else if (strcmp(val, "uniform") == 0)
		set_lengths(c, 1, 1, 1, 0);
	else if (strncmp(val, "fixed:", 6) == 0) {
		unsigned k;
		if (parse_len(val + 6, &k, "--workload fixed", err) < 0)
			return -1;
		set_lengths(c, k, k, k, 0);
	} else
		return mp_err_set(err, "--workload: '%s' is not one of bimodal|"
				       "uniform|wk1-5|wk30|wk-mixture|fixed:K",
				  val);
	snprintf(c->workload, sizeof c->workload, "%s", val);
	return 0;
}

static int set_dest(struct mp_wl_cfg *c, const char *val, mp_err *err)
{
	static const char *const names[] = { "uniform", "transpose", "bitcomp",
					     "neighbor" };
	if (!val)
		val = "";
	for (int i = 0; i < 4; i++)
		if (strcmp(val, names[i]) == 0) {
			c->dest = i;
			return 0;
		}
	if (strcmp(val, "any") == 0) {
		c->dest = MP_DST_ANY;
		return 0;
	}
	if (strncmp(val, "distance:", 9) == 0) {
		uint64_t k;
		if (mp_parse_u64(val + 9, 1, 255, &k, "--dest distance", err) < 0)
			return -1;
		c->dest = MP_DST_DISTANCE;
		c->dest_k = (unsigned)k;
		return 0;
	}
	if (strncmp(val, "local:", 6) == 0) {
		uint64_t k;
		if (mp_parse_u64(val + 6, 1, 65534, &k, "--dest local", err) < 0)
			return -1;
		c->dest = MP_DST_LOCAL;
		c->dest_k = (unsigned)k;
		return 0;
	}
	return mp_err_set(err, "--dest: '%s' is not one of uniform|transpose|"
			       "bitcomp|neighbor|distance:K|local:L|any", val);
}

int mp_wl_set(struct mp_wl_cfg *c, const char *name, const char *val,
	      mp_err *err)
{
	char what[48];
	snprintf(what, sizeof what, "--%s", name);

	if (strcmp(name, "workload") == 0)
		return set_workload(c, val, err);
	if (strcmp(name, "uniform") == 0)
		return set_workload(c, "uniform", err);
	if (strcmp(name, "load") == 0)
		return mp_parse_double(val, 1e-6, 10, 0, &c->load, what, err);
	if (strcmp(name, "hot-load") == 0)
		return mp_parse_double(val, 1e-6, 10, 0, &c->hot_load, what, err);
	if (strcmp(name, "gt-load") == 0) {
		double v;
		if (mp_parse_double(val, 0, 10, 0, &v, what, err) < 0)
			return -1;
		if (v != 0 && v < 1e-6)
			return mp_err_set(err, "%s: %s is too small (0 or at least "
					       "1e-06)", what, val);
		c->gt_load = v;
		return 0;
	}
	if (strcmp(name, "long") == 0)
		return parse_share(val, &c->long_share, what, err);
	if (strcmp(name, "hot-share") == 0)
		return parse_share(val, &c->hot_share, what, err);
	if (strcmp(name, "gt-share") == 0)
		return parse_share(val, &c->gt_share, what, err);
	if (strcmp(name, "adaptive-share") == 0)
		return parse_share(val, &c->adaptive_share, what, err);
	if (strcmp(name, "short-min") == 0)
		return parse_len(val, &c->short_min, what, err);
	if (strcmp(name, "short-max") == 0)
		return parse_len(val, &c->short_max, what, err);
	if (strcmp(name, "long-len") == 0)
		return parse_len(val, &c->long_len, what, err);
	if (strcmp(name, "gt-length") == 0)
		return parse_len(val, &c->gt_length, what, err);
	if (strcmp(name, "payload") == 0)
		return parse_uint(val, 1, 1u << 30, &c->payload, what, err);
	if (strcmp(name, "arrival") == 0) {
		if (val && strncmp(val, "model:", 6) == 0) {
			char *end;
			double p = strtod(val + 6, &end);
			if (end == val + 6 || *end || !(p > 0 && p <= 1))
				return mp_err_set(err, "--arrival: model:P needs "
						       "0 < P <= 1, not '%s'",
						  val + 6);
			c->arrival = MP_ARR_MODEL;
			c->model_p = p;
			return 0;
		}
		for (int i = 0; i < 4; i++)
			if (val && strcmp(val, arrival_names[i]) == 0) {
				c->arrival = i;
				return 0;
			}
		return mp_err_set(err, "--arrival: '%s' is not one of poisson|"
				       "geometric|saturated|bernoulli|model:P",
				  val ? val : "");
	}
	if (strcmp(name, "dest") == 0)
		return set_dest(c, val, err);
	if (strcmp(name, "hot-spots") == 0)
		return parse_uint(val, 0, 1000000, &c->hot_spots, what, err);
	if (strcmp(name, "hot-nodes") == 0)
		return parse_hot_nodes(c, val, err);
	if (strcmp(name, "seed") == 0)
		return mp_parse_u64(val, 0, UINT64_MAX, &c->seed, what, err);
	if (strcmp(name, "replay") == 0 || strcmp(name, "netrace") == 0) {
		if (!val || !*val)
			return mp_err_set(err, "--%s: empty file name", name);
		c->replay = val;
		c->replay_fmt = name[0] == 'n' ? MP_WL_NETRACE : MP_WL_CSV;
		return 0;
	}
	if (strcmp(name, "time-scale") == 0)
		return mp_parse_double(val, 1e-12, 1e12, 0, &c->time_scale, what,
				       err);
	if (strcmp(name, "remap") == 0) {
		size_t n;
		if (parse_remap(val, NULL, &n, err) < 0)
			return -1;
		c->remap = val;
		return 0;
	}
	if (strcmp(name, "remap-mod") == 0) {
		c->remap_mod = 1;
		return 0;
	}
	if (strcmp(name, "drop-self") == 0) {
		c->drop_self = 1;
		return 0;
	}
	if (strcmp(name, "chains") == 0)
		return parse_uint(val, 1, 1000000, &c->chains, what, err);
	if (strcmp(name, "think") == 0)
		return mp_parse_double(val, 0, 1e12, 0, &c->think, what, err);
	if (strcmp(name, "no-deps") == 0) {
		c->no_deps = 1;
		return 0;
	}
	if (strcmp(name, "region") == 0) {
		uint64_t v;
		if (mp_parse_u64(val, 0, 99, &v, what, err) < 0)
			return -1;
		c->region = (int)v;
		return 0;
	}
	return 1;
}

int mp_wl_set_words(struct mp_wl_cfg *c, const char *words, mp_err *err)
{
	char buf[1024];
	if (snprintf(buf, sizeof buf, "%s", words) >= (int)sizeof buf)
		return mp_err_set(err, "workload words too long");
	for (char *save, *w = strtok_r(buf, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		if (eq)
			*eq = '\0';
		int rc = mp_wl_set(c, w, eq ? eq + 1 : NULL, err);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return mp_err_set(err, "unknown workload option '%s'", w);
	}
	return 0;
}

double mp_wl_mean_length(const struct mp_wl_cfg *c)
{
	double s = (c->short_min + (double)c->short_max) / 2;
	return (1 - c->long_share) * s + c->long_share * c->long_len;
}

/* ------------------------------------------------------------------ */
/* Building                                                            */

static uint32_t add_offset(const mp_workload *w, uint32_t node, uint32_t off)
{
	uint32_t R = mp_topo_rows(w->topo), C = mp_topo_cols(w->topo);
	uint32_t r = node / C, c = node % C;
	return ((r + off / C) % R) * C + (c + off % C) % C;
}

/* Choose hot nodes and hot senders; set roles and the independent list. */
static int setup_hot(mp_workload *w, mp_err *err)
{
	const struct mp_wl_cfg *c = &w->c;
	uint32_t n = w->n;
	unsigned k = c->hot_nlist ? c->hot_nlist : c->hot_spots;

	if (c->hot_nlist && c->hot_spots && c->hot_spots != c->hot_nlist)
		return mp_err_set(err, "--hot-spots %u disagrees with the %u nodes "
				       "of --hot-nodes", c->hot_spots, c->hot_nlist);
	if (!k) {
		if (c->hot_share > 0)
			return mp_err_set(err, "--hot-share needs --hot-spots or "
					       "--hot-nodes");
		if (c->hot_load > 0)
			return mp_err_set(err, "--hot-load needs --hot-spots or "
					       "--hot-nodes");
		w->hot_share = 0;
		return 0;
	}
	if (c->dest != MP_DST_UNIFORM)
		return mp_err_set(err, "--dest: hot spots need --dest uniform");
	if (k >= n)
		return mp_err_set(err, "--hot-spots: %u hot nodes leave no sender "
				       "among %u nodes", k, n);
	w->hot_share = c->hot_share < 0 ? 0.3 : c->hot_share;
	w->role = calloc(n, 1);
	w->hot = malloc(k * sizeof *w->hot);
	uint32_t *perm = malloc(n * sizeof *perm);
	if (!w->role || !w->hot || !perm) {
		free(perm);
		return mp_err_set(err, "out of memory");
	}
	if (c->hot_nlist) {
		for (unsigned i = 0; i < k; i++) {
			if (c->hot_list[i] >= n) {
				free(perm);
				return mp_err_set(err, "--hot-nodes: node %u out of "
						       "range (%u nodes)",
						  c->hot_list[i], n);
			}
			w->role[c->hot_list[i]] = ROLE_SINK;
		}
	} else {
		/* Partial Fisher-Yates on a stream of its own. */
		mp_rng g;
		mp_rng_seed(&g, c->seed, GLOBAL_STREAM + G_HOT_NODES);
		for (uint32_t i = 0; i < n; i++)
			perm[i] = i;
		for (uint32_t i = 0; i < k; i++) {
			uint32_t j = i + (uint32_t)mp_rng_below(&g, n - i);
			uint32_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
			w->role[perm[i]] = ROLE_SINK;
		}
	}
	/* Hot senders: a share of all PEs, drawn from the other nodes. */
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (w->role[i] != ROLE_SINK)
			perm[m++] = i;
	double want = floor(w->hot_share * n + 0.5);
	uint32_t ns = want > m ? m : (uint32_t)want;
	mp_rng g;
	mp_rng_seed(&g, c->seed, GLOBAL_STREAM + G_HOT_SENDERS);
	for (uint32_t i = 0; i < ns; i++) {
		uint32_t j = i + (uint32_t)mp_rng_below(&g, m - i);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
		w->role[perm[i]] = ROLE_HOT;
	}
	free(perm);

	w->senders = malloc((ns ? ns : 1) * sizeof *w->senders);
	w->indep = malloc(n * sizeof *w->indep);
	w->indep_pos = malloc(n * sizeof *w->indep_pos);
	if (!w->senders || !w->indep || !w->indep_pos)
		return mp_err_set(err, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		w->indep_pos[i] = 0;
		if (w->role[i] == ROLE_SINK)
			w->hot[w->nhot++] = i;
		else if (w->role[i] == ROLE_HOT)
			w->senders[w->nsend++] = i;
		else {
			w->indep_pos[i] = w->nindep;
			w->indep[w->nindep++] = i;
		}
	}
	if (w->nindep == 1)
		return mp_err_set(err, "--hot-share: leaves a single independent "
				       "node (%u), which has nobody to send to",
				  w->indep[0]);
	return 0;
}

static int setup_dest(mp_workload *w, mp_err *err)
{
	const mp_topo *t = w->topo;
	if (!t && (w->c.dest == MP_DST_TRANSPOSE || w->c.dest == MP_DST_NEIGHBOR ||
		   w->c.dest == MP_DST_DISTANCE))
		return mp_err_set(err, "--dest: this pattern needs a hex, hexrect "
				       "or torus network, not %s",
				  mp_net_name(w->net));
	if (t && strcmp(mp_topo_family(t), "mesh") == 0 &&
	    (w->c.dest == MP_DST_DISTANCE || w->c.dest == MP_DST_NEIGHBOR))
		return mp_err_set(err, "--dest: %s needs a topology whose nodes "
				       "all see the same neighbourhood, not %s",
				  w->c.dest == MP_DST_DISTANCE ? "distance" :
								 "neighbor",
				  mp_topo_name(t));
	if (w->c.dest == MP_DST_ANY && mp_net_direct(w->net))
		return mp_err_set(err, "--dest: any needs an indirect network "
				       "(omega, butterfly, crossbar, tree), whose "
				       "terminals inject and eject at different "
				       "ports, not %s", mp_net_name(w->net));
	switch (w->c.dest) {
	case MP_DST_TRANSPOSE:
		if (strcmp(mp_topo_family(t), "hex") == 0 ||
		    mp_topo_rows(t) != mp_topo_cols(t))
			return mp_err_set(err, "--dest: transpose needs a square "
					       "hexrect or torus topology, not %s",
					  mp_net_name(w->net));
		break;
	case MP_DST_BITCOMP:
		if (w->n & (w->n - 1))
			return mp_err_set(err, "--dest: bitcomp needs a power-of-two "
					       "node count, not %u (%s)",
					  w->n, mp_net_name(w->net));
		break;
	case MP_DST_LOCAL:
		return mp_net_local_dests(w->net, w->c.dest_k, &w->loc, &w->locn,
					  err);
	case MP_DST_DISTANCE: {
		unsigned d = w->c.dest_k, diam = mp_topo_diameter(t);
		if (d < 1 || d > diam)
			return mp_err_set(err, "--dest: distance:%u is outside 1..%u "
					       "(the diameter of %s)",
					  d, diam, mp_net_name(w->net));
		const uint8_t *dist = mp_topo_dist_table(t);
		w->offs = malloc(mp_topo_count_at(t, d) * sizeof *w->offs);
		if (!w->offs)
			return mp_err_set(err, "out of memory");
		for (uint32_t o = 1; o < w->n; o++)
			if (dist[o] == d)
				w->offs[w->noffs++] = o;
		break;
	}
	default:
		break;
	}
	return 0;
}

/* Heap order: time, then node, then the GT stream after the main one. */
static int before(const mp_workload *w, uint32_t a, uint32_t b)
{
	const struct source *x = &w->src[a], *y = &w->src[b];
	if (x->next != y->next)
		return x->next < y->next;
	if (x->node != y->node)
		return x->node < y->node;
	return x->gt < y->gt;
}

static void sift_down(mp_workload *w, size_t i)
{
	uint32_t *h = w->heap;
	size_t n = w->nheap;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && before(w, h[l], h[m]))
			m = l;
		if (r < n && before(w, h[r], h[m]))
			m = r;
		if (m == i)
			return;
		uint32_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void sift_up(mp_workload *w, size_t i)
{
	uint32_t *h = w->heap;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(w, h[i], h[p]))
			return;
		uint32_t t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

/* Move a source to its next arrival; clears live past the time range. */
static void advance(mp_workload *w, struct source *s)
{
	switch (w->c.arrival) {
	case MP_ARR_POISSON:
		s->clock += mp_rng_exp(&s->arr, s->mean);
		if (!(s->clock < TIME_MAX))
			s->live = 0;
		else
			s->next = (uint64_t)s->clock;
		break;
	case MP_ARR_SATURATED: {
		double t = floor((double)++s->k * s->mean);
		if (!(t < TIME_MAX))
			s->live = 0;
		else
			s->next = (uint64_t)t;
		break;
	}
	default: { /* geometric, bernoulli */
		uint64_t g = mp_rng_geometric(&s->arr, s->p);
		if ((double)s->next + (double)g >= TIME_MAX)
			s->live = 0;
		else
			s->next += g;
		break;
	}
	}
}

/* First arrival of a source, from time 0. */
static void first(mp_workload *w, struct source *s)
{
	switch (w->c.arrival) {
	case MP_ARR_POISSON:
		s->clock = 0;
		advance(w, s);
		break;
	case MP_ARR_SATURATED:
		s->k = 0;
		s->next = 0;
		break;
	default:
		/* Trials at units 0, 1, 2, ...: the first success. */
		s->next = mp_rng_geometric(&s->arr, s->p) - 1;
		break;
	}
}

static int setup_sources(mp_workload *w, mp_err *err)
{
	const struct mp_wl_cfg *c = &w->c;
	uint32_t n = w->n;
	int gt = c->gt_load > 0;
	double load = c->load;

	if (c->arrival == MP_ARR_MODEL) {
		/* Closed loop: netrun's model makes the messages. */
		if ((c->dest != MP_DST_UNIFORM && c->dest != MP_DST_LOCAL) ||
		    c->hot_spots || c->hot_nlist ||
		    c->gt_load > 0 || c->gt_share > 0 || c->adaptive_share > 0 ||
		    c->short_max != 1 || (c->long_share > 0 && c->long_len != 1))
			return mp_err_set(err, "--arrival model:P: single-packet "
					       "messages to uniform or local:L "
					       "destinations only (--workload "
					       "uniform)");
		return 0;
	}
	if (load == 0) {
		if (c->arrival != MP_ARR_SATURATED)
			return mp_err_set(err, "give --load (the offered load)");
		load = 1;
	}
	w->nsrc = (size_t)n * (gt ? 2 : 1);
	w->src = calloc(w->nsrc, sizeof *w->src);
	w->heap = malloc(w->nsrc * sizeof *w->heap);
	if (!w->src || !w->heap)
		return mp_err_set(err, "out of memory");
	for (size_t i = 0; i < w->nsrc; i++) {
		struct source *s = &w->src[i];
		uint32_t node = (uint32_t)(i % n);
		int role = w->role ? w->role[node] : ROLE_INDEP;
		uint64_t base = (uint64_t)node * NPURPOSE;
		s->node = node;
		s->gt = i >= n;
		if (role == ROLE_SINK)
			continue;
		if (s->gt) {
			s->mean = c->gt_length * w->pe_time / c->gt_load;
			mp_rng_seed(&s->arr, c->seed, base + P_GT_ARR);
			mp_rng_seed(&s->dst, c->seed, base + P_GT_DST);
			mp_rng_seed(&s->route, c->seed, base + P_GT_ROUTE);
		} else {
			double u = role == ROLE_HOT && c->hot_load > 0 ? c->hot_load
								       : load;
			s->mean = w->mean_len * w->pe_time / u;
			mp_rng_seed(&s->arr, c->seed, base + P_ARR);
			mp_rng_seed(&s->len, c->seed, base + P_LEN);
			mp_rng_seed(&s->dst, c->seed, base + P_DST);
			mp_rng_seed(&s->cls, c->seed, base + P_CLS);
			mp_rng_seed(&s->route, c->seed, base + P_ROUTE);
		}
		s->p = 1 / s->mean;
		if ((c->arrival == MP_ARR_GEOMETRIC ||
		     c->arrival == MP_ARR_BERNOULLI) && s->p > 1)
			return mp_err_set(err, "--arrival: %s arrivals allow at most "
					       "one message per unit per node (the "
					       "load asks for %g)",
					  arrival_names[c->arrival], s->p);
		s->live = 1;
		first(w, s);
		if (s->live) {
			w->heap[w->nheap] = (uint32_t)i;
			sift_up(w, w->nheap++);
		}
	}
	return 0;
}

mp_workload *mp_workload_new(const struct mp_wl_cfg *wc,
			     const struct mp_wl_shape *shape, mp_err *err)
{
	mp_workload *w = calloc(1, sizeof *w);
	if (w)
		w->nt_fd = -1;
	if (!w) {
		mp_err_set(err, "out of memory");
		return NULL;
	}
	w->c = *wc;
	w->net = shape->net;
	w->topo = mp_net_topo(shape->net);
	const char *spec = mp_net_name(shape->net);
	w->n = mp_net_terminals(shape->net);
	w->pe_time = shape->pe_time;
	w->load_flits = shape->load_flits;
	w->payload = wc->payload ? wc->payload : shape->payload;
	w->mean_len = mp_wl_mean_length(wc);
	if (w->payload == 0) {
		mp_err_set(err, "--payload: must be at least 1");
		goto fail;
	}
	if (w->n < 2) {
		mp_err_set(err, "topology: %s has a single node", spec);
		goto fail;
	}
	if (wc->replay) {
		int nt = wc->replay_fmt == MP_WL_NETRACE;
		if (nt && !wc->no_deps && wc->drop_self) {
			mp_err_set(err, "--drop-self: only with --no-deps (with "
					"dependencies netrun delivers a packet to "
					"its own node locally)");
			goto fail;
		}
		if (!nt && wc->region >= 0) {
			mp_err_set(err, "--region: only with --netrace");
			goto fail;
		}
		w->deps = nt && !wc->no_deps;
		if (w->deps && !(w->inv = mp_depinv_new())) {
			mp_err_set(err, "out of memory");
			goto fail;
		}
		if (wc->remap) {
			size_t n = strlen(wc->remap) / 4 + 1;
			w->map = malloc(n * sizeof *w->map);
			if (!w->map) {
				mp_err_set(err, "out of memory");
				goto fail;
			}
			if (parse_remap(wc->remap, w->map, &w->nmap, err) < 0)
				goto fail;
		}
		return w;
	}
	if (wc->chains) {
		/* Request / response chains: no load, lengths from bytes,
		 * servers drawn uniformly: options that shape other
		 * workloads would be ignored without a word. */
		const char *ign = wc->dest != MP_DST_UNIFORM ? "--dest" :
				  wc->hot_spots || wc->hot_nlist ? "--hot-spots/--hot-nodes" :
				  wc->load > 0 ? "--load" :
				  wc->gt_load > 0 || wc->gt_share > 0 ? "--gt-load/--gt-share" :
				  NULL;
		if (ign) {
			mp_err_set(err, "--chains: %s does not apply (a chain's "
				   "server is uniform, its pace --think)", ign);
			goto fail;
		}
		w->deps = 1;
		w->ch = calloc(wc->chains, sizeof *w->ch);
		if (!w->ch) {
			mp_err_set(err, "out of memory");
			goto fail;
		}
		for (unsigned i = 0; i < wc->chains; i++) {
			struct chain *c = &w->ch[i];
			mp_rng_seed(&c->rng, wc->seed, i);
			c->a = (uint32_t)mp_rng_below(&c->rng, w->n);
			c->b = (uint32_t)mp_rng_below(&c->rng, w->n - 1);
			c->b += c->b >= c->a;
			c->next = (uint64_t)floor(mp_rng_exp(&c->rng, wc->think));
		}
		return w;
	}
	if (wc->short_min > wc->short_max) {
		mp_err_set(err, "--short-min %u exceeds --short-max %u",
			   wc->short_min, wc->short_max);
		goto fail;
	}
	unsigned maxlen = wc->short_max;
	if (wc->long_share > 0 && wc->long_len > maxlen)
		maxlen = wc->long_len;
	if (wc->gt_load > 0 && wc->gt_length > maxlen)
		maxlen = wc->gt_length;
	if ((uint64_t)maxlen * w->payload > UINT32_MAX) {
		mp_err_set(err, "--payload: messages of %u packets of %u bytes "
				"overflow the 32-bit bytes field",
			   maxlen, w->payload);
		goto fail;
	}
	if (setup_hot(w, err) < 0 || setup_dest(w, err) < 0 ||
	    setup_sources(w, err) < 0)
		goto fail;
	return w;
fail:
	mp_workload_free(w);
	return NULL;
}

void mp_workload_free(mp_workload *w)
{
	if (!w)
		return;
	free(w->src);
	free(w->heap);
	free(w->role);
	free(w->hot);
	free(w->senders);
	free(w->indep);
	free(w->indep_pos);
	free(w->offs);
	free(w->loc);
	free(w->locn);
	free(w->map);
	if (w->csv)
		mp_csv_close(w->csv);
	mp_netrace_close(w->nt);
	if (w->nt_fd >= 0)
		close(w->nt_fd);
	mp_depinv_free(w->inv);
	free(w->ch);
	mp_idcount_free(w->users_of);
	free(w->abuf);
	free(w);
}

int mp_workload_has_deps(const mp_workload *w)
{
	return w->deps;
}

void mp_workload_deps(const mp_workload *w, const uint64_t **after, size_t *n,
		      uint32_t *users)
{
	*after = w->after;
	*n = w->deps ? w->nafter : 0;
	*users = w->deps ? w->users : 0;
}

/* ------------------------------------------------------------------ */
/* Generation                                                          */

static uint32_t pick_dst(const mp_workload *w, const struct source *s,
			 mp_rng *r)
{
	uint32_t node = s->node, n = w->n;
	if (w->role) {
		if (w->role[node] == ROLE_HOT)
			return w->hot[mp_rng_below(r, w->nhot)];
		uint32_t j = (uint32_t)mp_rng_below(r, w->nindep - 1);
		if (j >= w->indep_pos[node])
			j++;
		return w->indep[j];
	}
	switch (w->c.dest) {
	case MP_DST_TRANSPOSE: {
		unsigned row, col;
		mp_topo_coords(w->topo, node, &row, &col);
		if (row != col)
			return col * mp_topo_cols(w->topo) + row;
		break; /* the diagonal sends uniformly */
	}
	case MP_DST_BITCOMP:
		return ~node & (n - 1);
	case MP_DST_NEIGHBOR:
		return mp_topo_neighbor(w->topo, node, (unsigned)mp_rng_below(
						r, mp_topo_degree(w->topo)));
	case MP_DST_DISTANCE:
		return add_offset(w, node, w->offs[mp_rng_below(r, w->noffs)]);
	case MP_DST_LOCAL:
		return w->loc[w->locn[node] +
			      mp_rng_below(r, w->locn[node + 1] - w->locn[node])];
	case MP_DST_ANY:
		return (uint32_t)mp_rng_below(r, n);
	default:
		break;
	}
	uint32_t j = (uint32_t)mp_rng_below(r, n - 1);
	return j >= node ? j + 1 : j;
}

static int gen_next(mp_workload *w, struct mp_msg *m)
{
	const struct mp_wl_cfg *c = &w->c;
	if (w->nheap == 0)
		return 0;
	uint32_t i = w->heap[0];
	struct source *s = &w->src[i];

	memset(m, 0, sizeof *m);
	m->tag = MP_REC_MSG;
	m->src = s->node;
	m->time = s->next;
	m->group = w->role && w->role[s->node] == ROLE_HOT ? MP_GROUP_HOT
							   : MP_GROUP_INDEP;
	if (s->gt) {
		m->packets = c->gt_length;
		m->cls = MP_CLASS_GT;
	} else {
		if (c->long_share > 0 && mp_rng_unit(&s->len) < c->long_share)
			m->packets = c->long_len;
		else
			m->packets = c->short_min + (uint32_t)mp_rng_below(
				&s->len, c->short_max - c->short_min + 1);
		if (c->gt_share > 0 && mp_rng_unit(&s->cls) < c->gt_share)
			m->cls = MP_CLASS_GT;
	}
	m->dst = pick_dst(w, s, &s->dst);
	if (c->adaptive_share > 0 && mp_rng_unit(&s->route) < c->adaptive_share)
		m->route = MP_ROUTE_ADAPTIVE;
	m->bytes = m->packets * w->payload;
	m->id = w->id++;

	advance(w, s);
	if (!s->live)
		w->heap[0] = w->heap[--w->nheap];
	sift_down(w, 0);
	return 1;
}

/* ------------------------------------------------------------------ */
/* Replay                                                              */

MP_PRINTF(2, 3)
static int rfail(mp_workload *w, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (w->nt)
		snprintf(w->err, sizeof w->err, "%s: packet %llu: %s", w->c.replay,
			 (unsigned long long)w->nt_count, what);
	else
		snprintf(w->err, sizeof w->err, "%s: line %llu: %s",
			 mp_csv_name(w->csv),
			 (unsigned long long)mp_csv_line(w->csv), what);
	return -1;
}

static int col2(const mp_csv_reader *r, const char *a, const char *b)
{
	int i = mp_csv_col(r, a);
	return i >= 0 || !b ? i : mp_csv_col(r, b);
}

/*
 * Parse an 'after' cell, ids separated by ';' (empty: none), into
 * w->abuf. Returns the count, or -1 with a message in e.
 */
static long parse_after(mp_workload *w, const char *f, mp_err *e)
{
	size_t n = 0;
	while (f && *f) {
		char *end;
		errno = 0;
		if (*f < '0' || *f > '9')
			return mp_err_set(e, "after: '%s' is not a list of ids "
					     "separated by ';'", f);
		unsigned long long v = strtoull(f, &end, 10);
		if (errno || (*end && *end != ';'))
			return mp_err_set(e, "after: '%s' is not a list of ids "
					     "separated by ';'", f);
		if (n == w->acap) {
			size_t cap = w->acap ? 2 * w->acap : 8;
			uint64_t *a = realloc(w->abuf, cap * sizeof *a);
			if (!a)
				return mp_err_set(e, "out of memory");
			w->abuf = a;
			w->acap = cap;
		}
		w->abuf[n++] = v;
		f = *end ? end + 1 : end;
	}
	return (long)n;
}

/* The id of the current CSV row (its 'id' cell, or the row count). */
static int row_id(mp_workload *w, uint64_t row, uint64_t *id, mp_err *e)
{
	if (w->col_id < 0) {
		*id = row;
		return 0;
	}
	const char *f = mp_csv_field(w->csv, (size_t)w->col_id);
	if (!f || !*f)
		return mp_err_set(e, "no id");
	return mp_parse_u64(f, 0, UINT64_MAX, id, "id", e);
}

/*
 * A CSV trace with an 'after' column: a first pass over the file checks
 * that ids are unique and that each row waits only for earlier rows,
 * and counts how many later rows name each id (the users of its dep
 * record); then the file is read again from the start.
 */
static int csv_deps_pass(mp_workload *w, mp_err *err)
{
	const char *path = w->c.replay;
	if (strcmp(path, "-") == 0)
		return mp_err_set(err, "%s: an 'after' column needs a file, read "
				       "twice, not standard input",
				  mp_csv_name(w->csv));
	if (w->c.drop_self)
		return mp_err_set(err, "--drop-self: only with --no-deps (with "
				       "dependencies netrun delivers a message "
				       "to its own node locally)");
	if (!(w->users_of = mp_idcount_new()))
		return mp_err_set(err, "out of memory");
	uint64_t row = 0;
	mp_err e;
	int rc;
	while ((rc = mp_csv_next(w->csv)) > 0) {
		uint64_t id;
		uint32_t k;
		long n;
		if (row_id(w, row, &id, &e) < 0 ||
		    (n = parse_after(w, mp_csv_field(w->csv,
						     (size_t)w->col_after),
				     &e)) < 0)
			goto bad;
		for (long i = 0; i < n; i++) {
			if (!mp_idcount_get(w->users_of, w->abuf[i], &k)) {
				mp_err_set(&e, "after: %llu is not the id of an "
					       "earlier row (a forward reference "
					       "or a cycle)",
					   (unsigned long long)w->abuf[i]);
				goto bad;
			}
			if (mp_idcount_add(w->users_of, w->abuf[i], 1) < 0)
				return mp_err_set(err, "out of memory");
		}
		if (mp_idcount_get(w->users_of, id, &k)) {
			mp_err_set(&e, "id %llu repeats", (unsigned long long)id);
			goto bad;
		}
		if (mp_idcount_add(w->users_of, id, 0) < 0)
			return mp_err_set(err, "out of memory");
		row++;
	}
	if (rc < 0)
		return mp_err_set(err, "%s", mp_csv_error(w->csv));
	mp_csv_close(w->csv);
	if (!(w->csv = mp_csv_open(path, err)))
		return -1;
	w->deps = 1;
	return 0;
bad:
	return mp_err_set(err, "%s: line %llu: %s", mp_csv_name(w->csv),
			  (unsigned long long)mp_csv_line(w->csv), e.msg);
}

int mp_workload_start(mp_workload *w, mp_err *err)
{
	if (!w->c.replay || w->started)
		return 0;
	if (w->c.replay_fmt == MP_WL_NETRACE) {
		int fd = w->c.replay_fd;
		const char *path = w->c.replay;
		if (fd < 0 && strcmp(path, "-") == 0) {
			fd = 0;
		} else if (fd < 0) {
			fd = w->nt_fd = open(path, O_RDONLY);
			if (fd < 0)
				return mp_err_set(err, "%s: %s", path,
						  strerror(errno));
		}
		w->nt = mp_netrace_fdopen(fd, strcmp(path, "-") ? path : "stdin",
					  err);
		if (!w->nt)
			return -1;
		w->started = 1;
		w->take = UINT64_MAX;
		if (w->c.region >= 0) {
			unsigned nr = mp_netrace_regions(w->nt);
			if ((unsigned)w->c.region >= nr)
				return mp_err_set(err, "--region: %s has %u "
						       "region%s (0 .. %u)",
						  path, nr, nr == 1 ? "" : "s",
						  nr ? nr - 1 : 0);
			for (int i = 0; i < w->c.region; i++)
				w->skip += mp_netrace_region_packets(w->nt,
								     (unsigned)i);
			w->take = mp_netrace_region_packets(w->nt,
							    (unsigned)w->c.region);
		}
		return 0;
	}
	w->csv = mp_csv_open(w->c.replay, err);
	if (!w->csv)
		return -1;
	w->started = 1;
	const char *name = mp_csv_name(w->csv);
	w->col_time = col2(w->csv, "time", NULL);
	w->col_src = col2(w->csv, "src", "source");
	w->col_dst = col2(w->csv, "dst", "destination");
	w->col_pk = col2(w->csv, "packets", "length");
	w->col_bytes = col2(w->csv, "bytes", NULL);
	w->col_cls = col2(w->csv, "class", NULL);
	w->col_id = col2(w->csv, "id", NULL);
	w->col_after = col2(w->csv, "after", NULL);
	if (w->col_time < 0)
		return mp_err_set(err, "%s: no 'time' column", name);
	if (w->col_src < 0)
		return mp_err_set(err, "%s: no 'src' (or 'source') column", name);
	if (w->col_dst < 0)
		return mp_err_set(err, "%s: no 'dst' (or 'destination') column",
				  name);
	if (w->col_pk < 0 && w->col_bytes < 0)
		return mp_err_set(err, "%s: no 'packets' (or 'length') nor 'bytes' "
				       "column", name);
	if (w->col_after >= 0 && !w->c.no_deps)
		return csv_deps_pass(w, err);
	return 0;
}

static const char *cell(mp_workload *w, int col, const char *what)
{
	const char *f = mp_csv_field(w->csv, (size_t)col);
	if (!f || !*f) {
		rfail(w, "no %s", what);
		return NULL;
	}
	return f;
}

static int64_t remap_node(mp_workload *w, uint64_t v, const char *what);

/* Node id of a cell after remapping; -1 on error. */
static int64_t node_of(mp_workload *w, int col, const char *what)
{
	const char *f = cell(w, col, what);
	mp_err e;
	uint64_t v;
	if (!f)
		return -1;
	if (mp_parse_u64(f, 0, UINT32_MAX, &v, what, &e) < 0)
		return rfail(w, "%s", e.msg);
	return remap_node(w, v, what);
}

/* A trace's node id after --remap and --remap-mod; -1 when out of range. */
static int64_t remap_node(mp_workload *w, uint64_t v, const char *what)
{
	for (size_t i = 0; i < w->nmap; i++)
		if (w->map[i].from == v) {
			v = w->map[i].to;
			break;
		}
	if (w->c.remap_mod)
		v %= w->n;
	if (v >= w->n)
		return rfail(w, "%s %llu out of range (%u nodes)", what,
			     (unsigned long long)v, w->n);
	return (int64_t)v;
}

/* The next Netrace packet as a message of its payload bytes. */
static int netrace_next(mp_workload *w, struct mp_msg *m)
{
	struct mp_nt_packet p;
	for (;;) {
		int rc = mp_netrace_next(w->nt, &p);
		if (rc < 0) {
			snprintf(w->err, sizeof w->err, "%s",
				 mp_netrace_error(w->nt));
			return -1;
		}
		if (rc == 0) {
			/* The header's count tells a trace cut at a packet
			 * boundary from a whole one. */
			uint64_t want = mp_netrace_packets(w->nt);
			if (w->c.region >= 0 ? w->skip > 0 || w->take > 0 :
					       w->nt_count < want)
				return rfail(w, "the trace ends after %llu of its "
						"%llu packets (truncated?)",
					     (unsigned long long)w->nt_count,
					     (unsigned long long)want);
			return 0;
		}
		w->nt_count++;
		if (w->deps) {
			/* Dependants must follow: ids increase (as Netrace
			 * numbers its packets). */
			if (w->nt_count > 1 && p.id <= w->last_id)
				return rfail(w, "packet id %u after id %u (ids "
						"must increase)", p.id,
					     (unsigned)w->last_id);
			w->last_id = p.id;
			for (unsigned k = 0; k < p.num_deps; k++)
				if (p.deps[k] <= p.id)
					return rfail(w, "packet id %u has packet "
							"id %u, not a later one, "
							"waiting for it (a cycle)",
						     p.id, p.deps[k]);
		}
		if (w->skip > 0) {
			/* --region: packets of the regions before; what waits
			 * for them will find them done. */
			w->skip--;
			continue;
		}
		if (w->take == 0)
			return 0;
		w->take--;
		double t = floor((double)p.cycle * w->c.time_scale + 0.5);
		if (!(t < TIME_MAX))
			return rfail(w, "cycle %llu scaled by %g is too large",
				     (unsigned long long)p.cycle, w->c.time_scale);
		uint64_t time = (uint64_t)t;
		if (time < w->last_time)
			return rfail(w, "cycle %llu is before the previous "
					"packet's (packets must be in time order)",
				     (unsigned long long)p.cycle);
		w->last_time = time;
		int size = mp_netrace_size(p.type);
		if (size < 0)
			return rfail(w, "unknown Netrace packet type %u", p.type);
		int64_t src = remap_node(w, p.src, "src");
		if (src < 0)
			return -1;
		int64_t dst = remap_node(w, p.dst, "dst");
		if (dst < 0)
			return -1;
		if (src == dst && !w->deps) {
			if (w->c.drop_self) {
				w->dropped++;
				continue;
			}
			return rfail(w, "src and dst are both %lld (--drop-self "
					"skips such packets)", (long long)src);
		}
		memset(m, 0, sizeof *m);
		m->tag = MP_REC_MSG;
		m->src = (uint32_t)src;
		m->dst = (uint32_t)dst;
		m->bytes = (uint32_t)size;
		m->packets = (uint32_t)((size + w->payload - 1) / w->payload);
		m->time = time;
		m->id = w->id++;
		if (w->deps) {
			/* Netrace lists, with each packet, the packets that
			 * wait for it; the stream lists what a message waits
			 * for. */
			m->id = p.id;
			w->nafter = mp_depinv_take(w->inv, p.id, &w->after);
			w->users = p.num_deps;
			for (unsigned k = 0; k < p.num_deps; k++) {
				if (mp_depinv_add(w->inv, p.deps[k], p.id) < 0)
					return rfail(w, "out of memory");
			}
		}
		return 1;
	}
}

static int replay_next(mp_workload *w, struct mp_msg *m)
{
	mp_err e;
	if (!w->started) {
		if (mp_workload_start(w, &e) < 0) {
			snprintf(w->err, sizeof w->err, "%s", e.msg);
			return -1;
		}
	}
	if (w->nt)
		return netrace_next(w, m);
	for (;;) {
		int rc = mp_csv_next(w->csv);
		if (rc < 0) {
			snprintf(w->err, sizeof w->err, "%s", mp_csv_error(w->csv));
			return -1;
		}
		if (rc == 0)
			return 0;

		const char *f = cell(w, w->col_time, "time");
		double t;
		if (!f)
			return -1;
		if (mp_parse_double(f, 0, 1e300, 0, &t, "time", &e) < 0)
			return rfail(w, "%s", e.msg);
		t = floor(t * w->c.time_scale + 0.5);
		if (!(t < TIME_MAX))
			return rfail(w, "time %s scaled by %g is too large", f,
				     w->c.time_scale);
		uint64_t time = (uint64_t)t;
		if (time < w->last_time)
			return rfail(w, "time %llu is before the previous row's %llu "
					"(rows must be in time order)",
				     (unsigned long long)time,
				     (unsigned long long)w->last_time);
		w->last_time = time;

		int64_t src = node_of(w, w->col_src, "src");
		if (src < 0)
			return -1;
		int64_t dst = node_of(w, w->col_dst, "dst");
		if (dst < 0)
			return -1;

		uint64_t packets = 0, bytes = 0;
		if (w->col_pk >= 0) {
			if (!(f = cell(w, w->col_pk, "packets")))
				return -1;
			if (mp_parse_u64(f, 1, UINT32_MAX, &packets, "packets", &e) < 0)
				return rfail(w, "%s", e.msg);
		}
		if (w->col_bytes >= 0) {
			if (!(f = cell(w, w->col_bytes, "bytes")))
				return -1;
			if (mp_parse_u64(f, 0, UINT32_MAX, &bytes, "bytes", &e) < 0)
				return rfail(w, "%s", e.msg);
			if (w->col_pk < 0)
				packets = bytes ? (bytes + w->payload - 1) / w->payload
						: 1;
		} else {
			bytes = packets * w->payload;
			if (bytes > UINT32_MAX)
				return rfail(w, "%llu packets of %u bytes overflow "
						"the 32-bit bytes field",
					     (unsigned long long)packets, w->payload);
		}

		int cls = 0;
		if (w->col_cls >= 0) {
			f = mp_csv_field(w->csv, (size_t)w->col_cls);
			if (!f || !*f || strcmp(f, "0") == 0 ||
			    strcasecmp(f, "be") == 0)
				cls = MP_CLASS_BE;
			else if (strcmp(f, "1") == 0 || strcasecmp(f, "gt") == 0)
				cls = MP_CLASS_GT;
			else {
				/* Through mp_err_set: the field may hold a
				 * newline. */
				mp_err_set(&e, "class '%s' is not 0, 1, be or gt", f);
				return rfail(w, "%s", e.msg);
			}
		}

		if (src == dst && !w->deps) {
			if (w->c.drop_self) {
				w->dropped++;
				continue;
			}
			return rfail(w, "src and dst are both %lld (--drop-self "
					"skips such rows)", (long long)src);
		}
		memset(m, 0, sizeof *m);
		m->tag = MP_REC_MSG;
		m->cls = (uint8_t)cls;
		m->src = (uint32_t)src;
		m->dst = (uint32_t)dst;
		m->packets = (uint32_t)packets;
		m->bytes = (uint32_t)bytes;
		m->time = time;
		m->id = w->id++;
		if (w->deps) {
			/* Checked by the first pass. */
			long n;
			if (row_id(w, m->id, &m->id, &e) < 0 ||
			    (n = parse_after(w, mp_csv_field(w->csv,
							     (size_t)w->col_after),
					     &e)) < 0)
				return rfail(w, "%s", e.msg);
			w->after = w->abuf;
			w->nafter = (size_t)n;
			if (!mp_idcount_get(w->users_of, m->id, &w->users))
				w->users = 0;
		}
		return 1;
	}
}

/* ------------------------------------------------------------------ */
/* Access                                                              */

/*
 * The next message of the chains: the chain with the earliest next
 * message (then the lowest number); a request (8 bytes) from its
 * requester to its server, then the response (72 bytes) back, each
 * waiting for the one before in its chain and followed after a think
 * time (exponential, mean --think, rounded) by the next; after a
 * response the requester picks another server.
 */
static int chains_next(mp_workload *w, struct mp_msg *m)
{
	unsigned k = 0;
	for (unsigned i = 1; i < w->c.chains; i++)
		if (w->ch[i].next < w->ch[k].next)
			k = i;
	struct chain *c = &w->ch[k];
	if (c->next >= TIME_MAX)
		return rfail(w, "chain %u: time %llu out of range", k,
			     (unsigned long long)c->next);
	unsigned bytes = c->resp ? 72 : 8;
	memset(m, 0, sizeof *m);
	m->tag = MP_REC_MSG;
	m->src = c->resp ? c->b : c->a;
	m->dst = c->resp ? c->a : c->b;
	m->bytes = bytes;
	m->packets = (bytes + w->payload - 1) / w->payload;
	m->time = c->next;
	m->id = w->id++;
	w->nafter = c->started;
	w->dep1 = c->last_id;
	w->after = &w->dep1;
	w->users = 1;
	c->started = 1;
	c->last_id = m->id;
	if (c->resp) {
		c->b = (uint32_t)mp_rng_below(&c->rng, w->n - 1);
		c->b += c->b >= c->a;
	}
	c->resp = !c->resp;
	c->next += 1 + (uint64_t)floor(mp_rng_exp(&c->rng, w->c.think));
	return 1;
}

int mp_workload_next(mp_workload *w, struct mp_msg *msg)
{
	if (w->c.chains)
		return chains_next(w, msg);
	if (w->c.arrival == MP_ARR_MODEL && !w->c.replay)
		return 0;
	return w->c.replay ? replay_next(w, msg) : gen_next(w, msg);
}

const char *mp_workload_error(const mp_workload *w)
{
	return w->err;
}

uint32_t mp_workload_nodes(const mp_workload *w)
{
	return w->n;
}

uint64_t mp_workload_dropped(const mp_workload *w)
{
	return w->dropped;
}

const uint32_t *mp_workload_hot_nodes(const mp_workload *w, size_t *n)
{
	*n = w->nhot;
	return w->hot;
}

const uint32_t *mp_workload_hot_senders(const mp_workload *w, size_t *n)
{
	*n = w->nsend;
	return w->senders;
}

/* Set key to the comma-separated list v[0..n). */
static int set_list(mp_hdr *h, const char *key, const uint32_t *v, size_t n)
{
	size_t cap = n * 11 + 1, len = 0;
	if (cap > LIST_MAX)
		return -1;
	char *buf = malloc(cap);
	if (!buf)
		return -1;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%u", i ? "," : "",
					v[i]);
	int rc = mp_hdr_set(h, key, buf);
	free(buf);
	return rc;
}

int mp_workload_describe(const mp_workload *w, mp_hdr *h)
{
	const struct mp_wl_cfg *c = &w->c;
	int rc = 0;
	rc |= mp_hdr_setf(h, "nodes", "%u", w->n);
	rc |= mp_hdr_set(h, "topology", mp_net_name(w->net));
	rc |= mp_hdr_setf(h, "pe_time", "%g", w->pe_time);
	rc |= mp_hdr_setf(h, "payload", "%u", w->payload);
	if (w->load_flits)
		rc |= mp_hdr_setf(h, "packet_flits", "%u", w->load_flits);
	rc |= mp_hdr_setf(h, "seed", "%llu", (unsigned long long)c->seed);
	if (c->replay && w->nt) {
		rc |= mp_hdr_set(h, "workload", "netrace");
		rc |= mp_hdr_set(h, "replay", c->replay);
		rc |= mp_hdr_set(h, "netrace.benchmark",
				 mp_netrace_benchmark(w->nt));
		rc |= mp_hdr_setf(h, "netrace.nodes", "%u",
				  mp_netrace_nodes(w->nt));
		rc |= mp_hdr_setf(h, "netrace.cycles", "%llu",
				  (unsigned long long)mp_netrace_cycles(w->nt));
		rc |= mp_hdr_setf(h, "netrace.packets", "%llu",
				  (unsigned long long)mp_netrace_packets(w->nt));
		if (w->deps) {
			rc |= mp_hdr_setf(h, "netrace.regions", "%u",
					  mp_netrace_regions(w->nt));
			if (c->region >= 0)
				rc |= mp_hdr_setf(h, "netrace.region", "%d",
						  c->region);
			rc |= mp_hdr_set(h, "deps", "1");
		}
	} else if (c->replay) {
		rc |= mp_hdr_set(h, "workload", "replay");
		rc |= mp_hdr_set(h, "replay", c->replay);
		if (w->deps)
			rc |= mp_hdr_set(h, "deps", "1");
	}
	if (c->replay) {
		rc |= mp_hdr_setf(h, "time_scale", "%g", c->time_scale);
		if (c->remap)
			rc |= mp_hdr_set(h, "remap", c->remap);
		if (c->remap_mod)
			rc |= mp_hdr_set(h, "remap_mod", "1");
		if (c->drop_self)
			rc |= mp_hdr_set(h, "drop_self", "1");
		return rc ? -1 : 0;
	}
	if (c->chains) {
		rc |= mp_hdr_set(h, "workload", "chains");
		rc |= mp_hdr_setf(h, "chains", "%u", c->chains);
		rc |= mp_hdr_setf(h, "think", "%g", c->think);
		rc |= mp_hdr_set(h, "deps", "1");
		return rc ? -1 : 0;
	}
	rc |= mp_hdr_set(h, "workload", c->workload);
	if (c->arrival == MP_ARR_MODEL) {
		rc |= mp_hdr_setf(h, "load", "%.9g", c->model_p);
		rc |= mp_hdr_setf(h, "arrival", "model:%.9g", c->model_p);
	} else {
		rc |= mp_hdr_setf(h, "load", "%g",
				  c->load > 0 ? c->load : 1.0);
		rc |= mp_hdr_set(h, "arrival", arrival_names[c->arrival]);
	}
	static const char *const dn[] = { "uniform", "transpose", "bitcomp",
					  "neighbor" };
	if (c->dest == MP_DST_DISTANCE)
		rc |= mp_hdr_setf(h, "dest", "distance:%u", c->dest_k);
	else if (c->dest == MP_DST_LOCAL)
		rc |= mp_hdr_setf(h, "dest", "local:%u", c->dest_k);
	else if (c->dest == MP_DST_ANY)
		rc |= mp_hdr_set(h, "dest", "any");
	else
		rc |= mp_hdr_set(h, "dest", dn[c->dest]);
	rc |= mp_hdr_setf(h, "short_min", "%u", c->short_min);
	rc |= mp_hdr_setf(h, "short_max", "%u", c->short_max);
	rc |= mp_hdr_setf(h, "long_len", "%u", c->long_len);
	rc |= mp_hdr_setf(h, "long_share", "%g", c->long_share);
	rc |= mp_hdr_setf(h, "mean_length", "%g", w->mean_len);
	if (w->role) {
		rc |= set_list(h, "hot_nodes", w->hot, w->nhot);
		rc |= set_list(h, "hot_senders", w->senders, w->nsend);
		rc |= mp_hdr_setf(h, "hot_share", "%g", w->hot_share);
		rc |= mp_hdr_setf(h, "hot_load", "%g",
				  c->hot_load > 0 ? c->hot_load
						  : c->load > 0 ? c->load : 1.0);
	}
	if (c->gt_share > 0)
		rc |= mp_hdr_setf(h, "gt_share", "%g", c->gt_share);
	if (c->gt_load > 0) {
		rc |= mp_hdr_setf(h, "gt_load", "%g", c->gt_load);
		rc |= mp_hdr_setf(h, "gt_length", "%u", c->gt_length);
	}
	if (c->adaptive_share > 0)
		rc |= mp_hdr_setf(h, "adaptive_share", "%g", c->adaptive_share);
	return rc ? -1 : 0;
}
