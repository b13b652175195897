/*
 * Fabric options, their checks, and the preset table.
 */
#include "mp_config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_model.h"
#include "mp_opt.h"

struct preset {
	const char *name, *desc, *fabric, *workload;
	const char *time_unit; /* what one unit of time is */
	int load_flits;	       /* wlgen's load is in flits per node per
				* cycle, not PE-port time (mp_cfg_pe_time) */
};

static const struct preset presets[] = {
	{ "po2", "PO2: wrapped hexagonal mesh E_n, 20 buffers, PE overheads "
		 "(Cherkasova et al.)",
	  "model=packet family=hex size=6 route=derouting buffers=20 packet-time=160 "
	  "header-time=12 inject-setup=80 eject-setup=20 links=half "
	  "pe-port=shared bp=message deadlock=none retry=immediate payload=128",
	  "workload=bimodal long=10% short-min=1 short-max=5 long-len=25",
	  "byte", 0 },
	{ "fedx", "Fed-X: 8x8 hexagonally connected torus, 10 buffers "
		  "(HPL-96-17)",
	  "model=packet family=hexrect size=8 route=adaptive buffers=10 packet-time=160 "
	  "header-time=12 inject-setup=0 eject-setup=0 links=half "
	  "pe-port=shared bp=message deadlock=hop-count retry=immediate "
	  "payload=128",
	  "workload=wk-mixture", "byte", 0 },
	{ "torus", "8x8 torus, dimension order, 16-unit packets, separate "
		   "injection and ejection channels",
	  "model=packet family=torus size=8 route=deterministic buffers=16 packet-time=16 "
	  "header-time=1 inject-setup=0 eject-setup=0 links=full "
	  "pe-port=separate bp=none deadlock=hop-count retry=immediate "
	  "payload=16",
	  "workload=uniform", "flit", 0 },
	{ "rs", "Rexford-Shin: 8x8 torus, flit-level routers with virtual "
		"channels, 16-flit packets, dimension order",
	  "model=flit family=torus size=8 route=deterministic buffers=16 "
	  "packet-time=16 header-time=1 inject-setup=0 eject-setup=0 "
	  "links=full pe-port=separate bp=none deadlock=hop-count "
	  "retry=immediate payload=16 packet-flits=16 switching=wormhole",
	  "workload=uniform", "flit", 0 },
	/* Netrace's chip multiprocessor: one unit a cycle, a packet a
	 * 16-byte flit (8-byte requests 1, 72-byte data 5). The packet
	 * model stands in for a flit-level one until there is one. */
	{ "cmp", "8x8 2-D mesh of a chip multiprocessor, dimension order, "
		 "16-byte flits of one cycle (packet model)",
	  "model=packet family=mesh size=8 route=deterministic buffers=16 "
	  "packet-time=1 "
	  "header-time=1 inject-setup=0 eject-setup=0 links=full "
	  "pe-port=separate bp=none deadlock=hop-count retry=immediate "
	  "payload=16",
	  "workload=uniform", "cycle", 0 },
	{ "ncube", "indirect binary n-cube (butterfly) of 2x2 routers, "
		   "synchronous units, FIFOs of B packets (Boughton)",
	  "model=ncube topo=butterfly:2,3 fifo=2 arb=random sink=perfect "
	  "packet-time=1 header-time=0 inject-setup=0 eject-setup=0 "
	  "pe-port=separate payload=1",
	  "workload=uniform arrival=bernoulli", "unit", 0 },
	/* SPEC 3.5: the flit model with the buffer organizations; load in
	 * flits per node per cycle (mp_cfg_pe_time); a hop is one cycle
	 * (router delay 0), the time scale of swsim's estimate. */
	{ "damq", "DAMQ study: unidirectional 8-ary 3-cube, flit-level "
		  "routers, virtual cut-through, 1-flit packets (SPEC 3.5)",
	  "model=flit topo=kary:8,3 route=deterministic buffers=16 "
	  "packet-time=1 header-time=1 inject-setup=0 eject-setup=0 "
	  "links=full pe-port=separate bp=none deadlock=hop-count "
	  "retry=immediate payload=16 packet-flits=1 switching=vct "
	  "buf-org=damq buf-flits=0 router-delay=0",
	  "workload=uniform arrival=geometric", "cycle", 1 },
};

#define NPRESETS (sizeof presets / sizeof presets[0])

const char *const mp_route_names[] = { "deterministic", "best", "derouting",
				       NULL };
const char *const mp_bp_names[] = { "none", "message", "destination", NULL };
const char *const mp_switching_names[] = { "wormhole", "vct", "ps", NULL };
const char *const mp_class_names[] = { "be", "gt", NULL };
const char *const mp_pe_arb_names[] = { "fair", "inject", "eject", NULL };
#define route_names mp_route_names
#define pe_names mp_pe_arb_names
#define bp_names mp_bp_names

#define CFG(field) offsetof(struct mp_cfg, field)

const struct mp_opt mp_opt_driver[] = {
	{ "model", MP_OPT_SPECIAL, CFG(model), 0, 0, NULL, "NAME",
	  "switch model (the preset's; see --list-models)", 0 },
	{ "payload", MP_OPT_UINT, CFG(payload), 1, 1u << 30, NULL, "B",
	  "payload bytes per packet (recorded only)", 0 },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL, 0 }
};

const struct mp_opt mp_opt_network[] = {
	{ "topo", MP_OPT_SPECIAL, CFG(family), 0, 0, NULL, "SPEC",
	  "hex:N, hexrect:RxC, torus:RxC, mesh:RxC, butterfly:A,D, "
	  "omega:A,D, crossbar:N, grid:RxC, tree:A,D or kary:K,N", 0 },
	{ "size", MP_OPT_SPECIAL, CFG(size), 0, 0, NULL, "N",
	  "E_N for hex, N x N otherwise", MP_OPT_NOSHOW },
	{ "family", MP_OPT_SPECIAL, CFG(family), 0, 0, NULL, "F",
	  "hex, hexrect or torus (presets)", MP_OPT_HIDDEN },
	{ "stages", MP_OPT_SPECIAL, CFG(stages), 1, 24, NULL, "D",
	  "butterfly of D stages (butterfly:A,D; 2x2 routers unless --topo "
	  "set A)", MP_OPT_NOSHOW },
	{ NULL, 0, 0, 0, 0, NULL, NULL, NULL, 0 }
};

/* The option named name in any table (driver, network, every model's). */
const struct mp_opt *mp_cfg_find_opt(const char *name)
{
	const struct mp_opt *tables[2] = { mp_opt_driver, mp_opt_network };
	for (int t = 0; t < 2; t++)
		for (const struct mp_opt *o = tables[t]; o->name; o++)
			if (strcmp(o->name, name) == 0)
				return o;
	const struct mp_model_ops *m;
	for (size_t i = 0; (m = mp_model_at(i)); i++)
		for (const struct mp_opt *o = m->opts; o && o->name; o++)
			if (strcmp(o->name, name) == 0)
				return o;
	return NULL;
}

const char *mp_route_name(int route)
{
	return route >= MP_ROUTE_DET && route <= MP_ROUTE_DEROUTE ?
	       route_names[route - MP_ROUTE_DET] : "?";
}

const char *mp_bp_name(int bp)
{
	return bp >= 0 && bp <= MP_BP_DEST ? bp_names[bp] : "?";
}

const char *mp_pe_arb_name(int arb)
{
	return arb >= 0 && arb <= MP_PE_EJECT_FIRST ? pe_names[arb] : "?";
}

void mp_cfg_init(struct mp_cfg *c)
{
	memset(c, 0, sizeof *c);
	mp_cfg_preset(c, "po2", NULL);
	c->preset[0] = '\0';
}

static int set_words(struct mp_cfg *c, const char *words, mp_err *err)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", words);
	for (char *save, *w = strtok_r(buf, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		if (!eq)
			return mp_err_set(err, "preset: bad word '%s'", w);
		*eq = '\0';
		int rc = mp_cfg_set(c, w, eq + 1, err);
		if (rc != 0)
			return rc < 0 ? -1 : mp_err_set(err, "preset: unknown "
							     "option '%s'", w);
	}
	return 0;
}

static const struct preset *find(const char *name)
{
	for (size_t i = 0; i < NPRESETS; i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}

int mp_cfg_preset(struct mp_cfg *c, const char *name, mp_err *err)
{
	const struct preset *p = find(name);
	if (!p) {
		char list[256] = "";
		for (size_t i = 0; i < NPRESETS; i++)
			snprintf(list + strlen(list), sizeof list - strlen(list),
				 "%s%s", i ? ", " : "", presets[i].name);
		return mp_err_set(err, "--preset: unknown preset '%s' (%s)", name,
				  list);
	}
	/* A preset starts from a clean slate so earlier presets leave no
	 * trace; options after it override. */
	memset(c, 0, sizeof *c);
	const struct mp_model_ops *m;
	for (size_t i = 0; (m = mp_model_at(i)); i++)
		if (m->defaults)
			m->defaults(c);
	snprintf(c->preset, sizeof c->preset, "%s", name);
	return set_words(c, p->fabric, err);
}

const char *mp_preset_workload(const char *name)
{
	const struct preset *p = find(name);
	return p ? p->workload : NULL;
}

const char *mp_preset_fabric(const char *name)
{
	const struct preset *p = find(name);
	return p ? p->fabric : NULL;
}

const char *mp_preset_time_unit(const char *name)
{
	const struct preset *p = find(name);
	return p ? p->time_unit : "unit";
}

const char *mp_preset_name(size_t i)
{
	return i < NPRESETS ? presets[i].name : NULL;
}

const char *mp_preset_desc(size_t i)
{
	return i < NPRESETS ? presets[i].desc : NULL;
}

static int pick(const char *val, const char *const *names, int n, int *out,
		const char *opt, mp_err *err)
{
	char list[256] = "";
	for (int i = 0; i < n; i++) {
		if (strcmp(val, names[i]) == 0) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
			 i ? "|" : "", names[i]);
	}
	return mp_err_set(err, "--%s: '%s' is not one of %s", opt, val, list);
}

static int uns(const char *val, uint64_t min, uint64_t max, unsigned *out,
	       const char *opt, mp_err *err)
{
	uint64_t v;
	char what[64];
	snprintf(what, sizeof what, "--%s", opt);
	if (mp_parse_u64(val, min, max, &v, what, err) < 0)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* "none", or CLASS=SWITCHING words separated by commas; a class may
 * be named once (over every --class of a command line). */
static int set_classes(struct mp_cfg *c, const char *val, mp_err *err)
{
	char buf[128];
	if (strcmp(val, "none") == 0) {
		c->class_sw[0] = c->class_sw[1] = 0;
		return 0;
	}
	if (strlen(val) >= sizeof buf)
		return mp_err_set(err, "--class: '%s' too long", val);
	snprintf(buf, sizeof buf, "%s", val);
	for (char *save, *w = strtok_r(buf, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');
		int k = 0, sw = 0;
		if (!eq)
			return mp_err_set(err, "--class: '%s' is not CLASS="
					       "wormhole|vct|ps", w);
		*eq = '\0';
		if (pick(w, mp_class_names, 2, &k, "class", err) < 0 ||
		    pick(eq + 1, mp_switching_names, 3, &sw, "class", err) < 0)
			return -1;
		if (c->class_sw[k])
			return mp_err_set(err, "--class: class %s named twice", w);
		c->class_sw[k] = (uint8_t)(1 + sw);
	}
	return 0;
}

int mp_cfg_set(struct mp_cfg *c, const char *name, const char *val,
	       mp_err *err)
{
	if (strcmp(name, "model") == 0) {
		if (strlen(val) >= sizeof c->model || !mp_model_find(val)) {
			char list[256] = "";
			const struct mp_model_ops *m;
			for (size_t i = 0; (m = mp_model_at(i)); i++)
				snprintf(list + strlen(list),
					 sizeof list - strlen(list), "%s%s",
					 i ? "|" : "", m->name);
			return mp_err_set(err, "--model: '%s' is not one of %s",
					  val, list);
		}
		snprintf(c->model, sizeof c->model, "%s", val);
		return 0;
	}

	if (strcmp(name, "family") == 0) {
		if (strcmp(val, "hex") && strcmp(val, "hexrect") &&
		    strcmp(val, "torus") && strcmp(val, "mesh") &&
		    strcmp(val, "butterfly") && strcmp(val, "crossbar") &&
		    strcmp(val, "omega") && strcmp(val, "grid") &&
		    strcmp(val, "tree") && strcmp(val, "kary"))
			return mp_err_set(err, "--family: '%s' is not one of "
					       "hex|hexrect|torus|mesh|butterfly|"
					       "omega|crossbar|grid|tree", val);
		snprintf(c->family, sizeof c->family, "%s", val);
		c->rows = c->cols = 0;
		return 0;
	}
	if (strcmp(name, "stages") == 0) {
		/* --stages D: the butterfly of D stages, of 2x2 routers
		 * unless a butterfly radix was set. */
		unsigned d;
		if (uns(val, 1, 24, &d, "stages", err) < 0)
			return -1;
		if (strcmp(c->family, "butterfly") != 0 &&
		    strcmp(c->family, "omega") != 0) {
			snprintf(c->family, sizeof c->family, "butterfly");
			c->size = 2;
		}
		c->rows = c->cols = 0;
		c->stages = d;
		return 0;
	}
	if (strcmp(name, "sink") == 0) {
		/* perfect, or prob:Q with 0 < Q <= 1 */
		double q;
		char *end;
		if (strcmp(val, "perfect") == 0) {
			c->sink_q = 1;
			return 0;
		}
		if (strncmp(val, "prob:", 5) == 0) {
			q = strtod(val + 5, &end);
			if (end != val + 5 && !*end && q > 0 && q <= 1) {
				c->sink_q = q;
				return 0;
			}
		}
		return mp_err_set(err, "--sink: '%s' is not perfect or prob:Q "
				       "with 0 < Q <= 1", val);
	}
	if (strcmp(name, "topo") == 0) {
		/* "hex:6", "torus:8x4", or a family alone. */
		char fam[16];
		const char *colon = strchr(val, ':');
		size_t fl = colon ? (size_t)(colon - val) : strlen(val);
		if (fl >= sizeof fam)
			return mp_err_set(err, "--topo: bad topology '%s'", val);
		memcpy(fam, val, fl);
		fam[fl] = '\0';
		if (strcmp(fam, "kary") == 0) {
			/* kary:K,N, the unidirectional k-ary n-cube. */
			unsigned k, nd;
			char x, tail;
			if (!colon || sscanf(colon + 1, "%u%c%u%c", &k, &x, &nd,
					     &tail) != 3 || x != ',' ||
			    strspn(colon + 1, "0123456789,") != strlen(colon + 1))
				return mp_err_set(err, "--topo: '%s' is not kary:K,N",
						  val);
			if (k < 2 || k > 1000 || nd < 1 || nd > 20)
				return mp_err_set(err, "--topo: %s needs K >= 2 and "
						       "1 <= N <= 20", val);
			snprintf(c->family, sizeof c->family, "kary");
			c->size = c->rows = k;
			c->cols = nd;
			return 0;
		}
		if (mp_cfg_set(c, "family", fam, err) < 0)
			return mp_err_set(err, "--topo: unknown family in '%s' "
					       "(hex:N, hexrect:RxC, torus:RxC, "
					       "mesh:RxC, butterfly:A,D, omega:A,D, "
					       "crossbar:N, grid:RxC, tree:A,D, "
					       "kary:K,N)",
					  val);
		if (!colon)
			return 0;
		unsigned r, k;
		char x, tail;
		int n = sscanf(colon + 1, "%u%c%u%c", &r, &x, &k, &tail);
		if (n == 4)
			n = 0; /* text after the size: bad size */
		if (strcmp(fam, "butterfly") == 0 || strcmp(fam, "omega") == 0) {
			/* butterfly:A,D (A x A routers, D stages) */
			if (n == 3 && x == ',' && r >= 2 && r <= 128 &&
			    strspn(colon + 1, "0123456789,") == strlen(colon + 1)) {
				if (k < 1 || k > 24)
					return mp_err_set(err, "--topo: '%s': "
							       "1 to 24 stages",
							  val);
				c->size = r;
				c->stages = k;
				return 0;
			}
			return mp_err_set(err, "--topo: bad size in '%s' "
					       "(%s:A,D)", val, fam);
		}
		if (strcmp(fam, "tree") == 0) {
			/* tree:A,D (A-ary, D levels of routers) */
			if (n == 3 && x == ',' && r >= 2 && r <= 255 && k >= 1 &&
			    k <= 20 &&
			    strspn(colon + 1, "0123456789,") == strlen(colon + 1)) {
				c->size = r;
				c->stages = k;
				return 0;
			}
			return mp_err_set(err, "--topo: bad size in '%s' "
					       "(tree:A,D, 2 <= A <= 255, 1 <= D "
					       "<= 20)", val);
		}
		if (strcmp(fam, "crossbar") == 0) {
			if (n == 1 &&
			    strspn(colon + 1, "0123456789") == strlen(colon + 1))
				return uns(colon + 1, 2, 256, &c->size, "topo",
					   err);
			return mp_err_set(err, "--topo: bad size in '%s' "
					       "(crossbar:N)", val);
		}
		if (n == 1 && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
			return uns(colon + 1, 2, 1000, &c->size, "topo", err);
		} else if (n == 3 && x == 'x' && strcmp(fam, "hex") != 0 &&
			   r >= (strcmp(fam, "grid") == 0 ? 1u :
				 strcmp(fam, "mesh") ? 3u : 2u) &&
			   k >= (strcmp(fam, "grid") == 0 ? 1u :
				 strcmp(fam, "mesh") ? 3u : 2u) && r <= 1000 &&
			   k <= 1000) {
			c->rows = r;
			c->cols = k;
			c->size = r;
			return 0;
		}
		return mp_err_set(err, "--topo: bad size in '%s'", val);
	}
	if (strcmp(name, "arb") == 0) {
		/* One option, two models: the flit model takes rr, priority,
		 * oldest and credit:A, the ncube model rr and random; each
		 * refuses the others' when it is built. */
		if (strcmp(val, "rr") == 0 || strcmp(val, "priority") == 0 ||
		    strcmp(val, "random") == 0 || strcmp(val, "oldest") == 0) {
			c->arb = val[0] == 'p' ? MP_ARB_PRIORITY :
				 val[0] == 'o' ? MP_ARB_OLDEST :
				 val[1] == 'a' ? MP_ARB_RANDOM : MP_ARB_RR;
			c->arb_alpha = 0;
			return 0;
		}
		if (strncmp(val, "credit:", 7) == 0) {
			c->arb = MP_ARB_CREDIT;
			return uns(val + 7, 0, 1000000, &c->arb_alpha, "arb", err);
		}
		return mp_err_set(err, "--arb: '%s' is not one of rr|priority|"
				       "credit:A|oldest|random", val);
	}
	if (strcmp(name, "class") == 0)
		return set_classes(c, val, err);
	if (strcmp(name, "size") == 0) {
		c->rows = c->cols = 0;
		return uns(val, 2, 1000, &c->size, name, err);
	}
	if (strcmp(name, "route") == 0 &&
	    (strcmp(val, "adaptive") == 0 || strcmp(val, "minimal") == 0))
		val = "best";
	const struct mp_opt *o = mp_cfg_find_opt(name);
	if (!o || o->type == MP_OPT_SPECIAL)
		return 1;
	char *field = (char *)c + o->off;
	if ((o->flags & MP_OPT_AUTO) && strcmp(val, "auto") == 0) {
		*(unsigned *)(void *)field = 0;
		return 0;
	}
	switch (o->type) {
	case MP_OPT_UINT:
		return uns(val, o->min, o->max, (unsigned *)(void *)field, name,
			   err);
	case MP_OPT_U64: {
		char what[64];
		snprintf(what, sizeof what, "--%s", name);
		return mp_parse_u64(val, o->min, o->max,
				    (uint64_t *)(void *)field, what, err);
	}
	default: {
		int n = 0;
		while (o->choices[n])
			n++;
		int *v = (int *)(void *)field;
		if (pick(val, o->choices, n, v, name, err) == 0) {
			*v += (int)o->min; /* the value of the first name */
			return 0;
		}
		if (strcmp(name, "route") == 0) /* name the alias too */
			return mp_err_set(err, "--route: '%s' is not one of "
					       "deterministic|best|adaptive|"
					       "derouting", val);
		return -1;
	}
	}
}

mp_net *mp_cfg_net(const struct mp_cfg *c, mp_err *err)
{
	if (strcmp(c->family, "butterfly") == 0 ||
	    strcmp(c->family, "omega") == 0 || strcmp(c->family, "tree") == 0)
		return mp_net_make(c->family, c->size, c->stages, err);
	if (strcmp(c->family, "crossbar") == 0)
		return mp_net_make(c->family, c->size, 0, err);
	if (strcmp(c->family, "hex") == 0)
		return mp_net_make(c->family, c->size, 0, err);
	if (strcmp(c->family, "kary") == 0)
		return mp_net_make("kncube-uni", c->rows, c->cols, err);
	return mp_net_make(c->family, c->rows ? c->rows : c->size,
			   c->rows ? c->cols : c->size, err);
}

void mp_cfg_topo(const struct mp_cfg *c, char *buf, size_t cap)
{
	if (strcmp(c->family, "hex") == 0)
		snprintf(buf, cap, "hex:%u", c->size);
	else if (strcmp(c->family, "butterfly") == 0 ||
		 strcmp(c->family, "omega") == 0 ||
		 strcmp(c->family, "tree") == 0)
		snprintf(buf, cap, "%s:%u,%u", c->family, c->size, c->stages);
	else if (strcmp(c->family, "crossbar") == 0)
		snprintf(buf, cap, "crossbar:%u", c->size);
	else if (strcmp(c->family, "kary") == 0)
		snprintf(buf, cap, "kary:%u,%u", c->rows, c->cols);
	else if (c->rows)
		snprintf(buf, cap, "%s:%ux%u", c->family, c->rows, c->cols);
	else
		snprintf(buf, cap, "%s:%ux%u", c->family, c->size, c->size);
}

int mp_cfg_check(const struct mp_cfg *c, mp_err *err)
{
	if (strcmp(c->family, "kary") == 0 && !c->rows)
		return mp_err_set(err, "--size: a k-ary n-cube is sized by "
				       "--topo kary:K,N");
	if (strcmp(c->family, "hex") == 0 && c->size > 128)
		return mp_err_set(err, "--size: hex meshes go up to E128");
	if ((strcmp(c->family, "hexrect") == 0 ||
	     strcmp(c->family, "torus") == 0 ||
	     strcmp(c->family, "mesh") == 0) && c->size < 3 && !c->rows)
		return mp_err_set(err, "--size: %s needs a side of at least 3",
				  c->family);
	if (strcmp(c->family, "butterfly") == 0 ||
	    strcmp(c->family, "omega") == 0) {
		uint64_t n = 1;
		for (unsigned i = 0; i < c->stages && n <= (1u << 20); i++)
			n *= c->size;
		if (c->stages < 1 || n > (1u << 20))
			return mp_err_set(err, "--topo, --stages: %s:%u,%u has more "
					       "than 2^20 inputs", c->family,
					  c->size, c->stages);
	}
	if (c->route == MP_ROUTE_DEROUTE && (strcmp(c->family, "torus") == 0 ||
					  strcmp(c->family, "mesh") == 0))
		return mp_err_set(err, "--route: derouting needs a six-link "
				       "mesh (no no-farther directions on a %s)",
				  c->family);
	if (c->buffer_limit && c->buffer_limit > c->buffers)
		return mp_err_set(err, "--buffer-limit %u exceeds --buffers %u",
				  c->buffer_limit, c->buffers);
	if (c->buffer_limit_dest > c->buffers || c->buffer_limit_trans > c->buffers)
		return mp_err_set(err, "--buffer-limit-dest/-trans exceed "
				       "--buffers %u", c->buffers);
	if (c->header_time > c->packet_time)
		return mp_err_set(err, "--header-time %u exceeds --packet-time %u",
				  c->header_time, c->packet_time);
	return 0;
}

/* prefix and the shortest decimal form of x that reads back as x. */
static void shortest(char *buf, size_t cap, const char *prefix, double x)
{
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, cap, "%s%.*g", prefix, prec, x);
		if (strtod(buf + strlen(prefix), NULL) == x)
			return;
	}
}

/* The value of option o in c as the option takes it, into buf. */
static void opt_value(const struct mp_cfg *c, const struct mp_opt *o,
		      char *buf, size_t cap)
{
	const char *field = (const char *)c + o->off;
	switch (o->type) {
	case MP_OPT_UINT:
		if ((o->flags & MP_OPT_AUTO) &&
		    *(const unsigned *)(const void *)field == 0)
			snprintf(buf, cap, "auto");
		else
			snprintf(buf, cap, "%u",
				 *(const unsigned *)(const void *)field);
		break;
	case MP_OPT_U64:
		snprintf(buf, cap, "%llu", (unsigned long long)
			 *(const uint64_t *)(const void *)field);
		break;
	case MP_OPT_CHOICE:
		snprintf(buf, cap, "%s", o->choices[*(const int *)(const void *)
						     field - (int)o->min]);
		break;
	default:
		if (strcmp(o->name, "topo") == 0)
			mp_cfg_topo(c, buf, cap);
		else if (strcmp(o->name, "model") == 0)
			snprintf(buf, cap, "%s", c->model);
		else if (strcmp(o->name, "sink") == 0 && c->sink_q >= 1)
			snprintf(buf, cap, "perfect");
		else if (strcmp(o->name, "sink") == 0)
			shortest(buf, cap, "prob:", c->sink_q);
		else if (strcmp(o->name, "arb") == 0 && c->arb == MP_ARB_CREDIT)
			snprintf(buf, cap, "credit:%u", c->arb_alpha);
		else if (strcmp(o->name, "arb") == 0)
			snprintf(buf, cap, "%s", c->arb == MP_ARB_RANDOM ? "random" :
				 c->arb == MP_ARB_OLDEST ? "oldest" :
				 c->arb == MP_ARB_PRIORITY ? "priority" : "rr");
		else if (strcmp(o->name, "class") == 0 &&
			 (c->class_sw[0] || c->class_sw[1]))
			snprintf(buf, cap, "%s%s%s%s%s%s",
				 c->class_sw[1] ? "gt=" : "",
				 c->class_sw[1] ?
				 mp_switching_names[c->class_sw[1] - 1] : "",
				 c->class_sw[0] && c->class_sw[1] ? "," : "",
				 c->class_sw[0] ? "be=" : "",
				 c->class_sw[0] ?
				 mp_switching_names[c->class_sw[0] - 1] : "", "");
		else if (strcmp(o->name, "class") == 0)
			snprintf(buf, cap, "none");
		else
			snprintf(buf, cap, "?");
		break;
	}
}

/* Call fn for every option of c that --show-config and the header
 * give, in order: the driver's, the network's, then its model's. */
int mp_cfg_each_shown(const struct mp_cfg *c,
		      int (*fn)(void *ctx, const struct mp_opt *o,
				const char *val),
		      void *ctx)
{
	const struct mp_model_ops *m = mp_model_find(c->model);
	const struct mp_opt *tables[3] = { mp_opt_driver, mp_opt_network,
					   m ? m->opts : NULL };
	char val[64];
	for (int t = 0; t < 3; t++)
		for (const struct mp_opt *o = tables[t]; o && o->name; o++) {
			if (o->flags & (MP_OPT_NOSHOW | MP_OPT_HIDDEN))
				continue;
			opt_value(c, o, val, sizeof val);
			if (fn(ctx, o, val) < 0)
				return -1;
		}
	return 0;
}

struct fmt {
	char *buf;
	size_t cap, len;
};

static int fmt_one(void *ctx, const struct mp_opt *o, const char *val)
{
	struct fmt *f = ctx;
	int n = snprintf(f->buf + (f->len < f->cap ? f->len : f->cap),
			 f->len < f->cap ? f->cap - f->len : 0, "--%s %s\n",
			 o->name, val);
	f->len += n > 0 ? (size_t)n : 0;
	return 0;
}

size_t mp_cfg_format(const struct mp_cfg *c, char *buf, size_t cap)
{
	struct fmt f = { buf, cap, 0 };
	int n = snprintf(buf, cap, "--preset %s\n",
			 c->preset[0] ? c->preset : "none");
	f.len = n > 0 ? (size_t)n : 0;
	mp_cfg_each_shown(c, fmt_one, &f);
	return f.len;
}

unsigned mp_cfg_load_flits(const struct mp_cfg *c)
{
	const struct preset *p = find(c->preset);
	return p && p->load_flits ? c->packet_flits : 0;
}

double mp_cfg_pe_time(const struct mp_cfg *c)
{
	if (mp_cfg_load_flits(c))
		return c->packet_flits; /* load in flits per node per cycle */
	double tin = (double)c->inject_setup + c->packet_time;
	double tout = (double)c->eject_setup + c->packet_time;
	if (c->pe_separate)
		return tin > tout ? tin : tout;
	return tin + tout;
}
