/*
 * Fabric options, their checks, and the preset table.
 */
#include "mp_config.h"

#include <stdio.h>
#include <string.h>

struct preset {
	const char *name, *desc, *fabric, *workload;
	const char *time_unit; /* what one unit of time is */
};

static const struct preset presets[] = {
	{ "po2", "PO2: wrapped hexagonal mesh E_n, 20 buffers, PE overheads "
		 "(Cherkasova et al.)",
	  "family=hex size=6 route=derouting buffers=20 packet-time=160 "
	  "header-time=12 inject-setup=80 eject-setup=20 links=half "
	  "pe-port=shared bp=message deadlock=none retry=immediate payload=128",
	  "workload=bimodal long=10% short-min=1 short-max=5 long-len=25",
	  "byte" },
	{ "fedx", "Fed-X: 8x8 hexagonally connected torus, 10 buffers "
		  "(HPL-96-17)",
	  "family=hexrect size=8 route=adaptive buffers=10 packet-time=160 "
	  "header-time=12 inject-setup=0 eject-setup=0 links=half "
	  "pe-port=shared bp=message deadlock=hop-count retry=immediate "
	  "payload=128",
	  "workload=wk-mixture", "byte" },
	{ "torus", "8x8 torus, dimension order, 16-unit packets, separate "
		   "injection and ejection channels",
	  "family=torus size=8 route=deterministic buffers=16 packet-time=16 "
	  "header-time=1 inject-setup=0 eject-setup=0 links=full "
	  "pe-port=separate bp=none deadlock=hop-count retry=immediate "
	  "payload=16",
	  "workload=uniform", "flit" },
	/* Netrace's chip multiprocessor: one unit a cycle, a packet a
	 * 16-byte flit (8-byte requests 1, 72-byte data 5). The packet
	 * model stands in for a flit-level one until there is one. */
	{ "cmp", "8x8 2-D mesh of a chip multiprocessor, dimension order, "
		 "16-byte flits of one cycle (packet model)",
	  "family=mesh size=8 route=deterministic buffers=16 packet-time=1 "
	  "header-time=1 inject-setup=0 eject-setup=0 links=full "
	  "pe-port=separate bp=none deadlock=hop-count retry=immediate "
	  "payload=16",
	  "workload=uniform", "cycle" },
};

#define NPRESETS (sizeof presets / sizeof presets[0])

static const char *const route_names[] = { "deterministic", "best",
					   "derouting" };
static const char *const bp_names[] = { "none", "message", "destination" };
static const char *const dl_names[] = { "none", "hop-count" };
static const char *const pe_names[] = { "fair", "inject", "eject" };
static const char *const retry_names[] = { "immediate", "notify" };

const char *mp_route_name(int route)
{
	return route >= 0 && route <= MP_RT_DEROUTE ? route_names[route] : "?";
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

int mp_cfg_set(struct mp_cfg *c, const char *name, const char *val,
	       mp_err *err)
{
	const uint64_t T = 1000000; /* largest time parameter */

	if (strcmp(name, "family") == 0) {
		if (strcmp(val, "hex") && strcmp(val, "hexrect") &&
		    strcmp(val, "torus") && strcmp(val, "mesh"))
			return mp_err_set(err, "--family: '%s' is not one of "
					       "hex|hexrect|torus|mesh", val);
		snprintf(c->family, sizeof c->family, "%s", val);
		c->rows = c->cols = 0;
		return 0;
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
		if (mp_cfg_set(c, "family", fam, err) < 0)
			return mp_err_set(err, "--topo: unknown family in '%s' "
					       "(hex:N, hexrect:RxC, torus:RxC, "
					       "mesh:RxC)",
					  val);
		if (!colon)
			return 0;
		unsigned r, k;
		char x;
		int n = sscanf(colon + 1, "%u%c%u", &r, &x, &k);
		if (n == 1 && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
			return uns(colon + 1, 2, 1000, &c->size, "topo", err);
		} else if (n == 3 && x == 'x' && strcmp(fam, "hex") != 0 &&
			   r >= (strcmp(fam, "mesh") ? 3u : 2u) &&
			   k >= (strcmp(fam, "mesh") ? 3u : 2u) && r <= 1000 &&
			   k <= 1000) {
			c->rows = r;
			c->cols = k;
			c->size = r;
			return 0;
		}
		return mp_err_set(err, "--topo: bad size in '%s'", val);
	}
	if (strcmp(name, "size") == 0) {
		c->rows = c->cols = 0;
		return uns(val, 2, 1000, &c->size, name, err);
	}
	if (strcmp(name, "route") == 0) {
		if (strcmp(val, "adaptive") == 0 || strcmp(val, "minimal") == 0)
			val = "best";
		if (pick(val, route_names, 3, &c->route, name, NULL) == 0)
			return 0;
		return mp_err_set(err, "--route: '%s' is not one of deterministic|"
				       "best|adaptive|derouting", val);
	}
	if (strcmp(name, "buffers") == 0)
		return uns(val, 1, 1000000, &c->buffers, name, err);
	if (strcmp(name, "packet-time") == 0)
		return uns(val, 1, T, &c->packet_time, name, err);
	if (strcmp(name, "header-time") == 0)
		return uns(val, 0, T, &c->header_time, name, err);
	if (strcmp(name, "inject-setup") == 0)
		return uns(val, 0, T, &c->inject_setup, name, err);
	if (strcmp(name, "eject-setup") == 0)
		return uns(val, 0, T, &c->eject_setup, name, err);
	if (strcmp(name, "links") == 0) {
		static const char *const l[] = { "half", "full" };
		return pick(val, l, 2, &c->full_duplex, name, err);
	}
	if (strcmp(name, "pe-port") == 0) {
		static const char *const l[] = { "shared", "separate" };
		return pick(val, l, 2, &c->pe_separate, name, err);
	}
	if (strcmp(name, "bp") == 0)
		return pick(val, bp_names, 3, &c->bp, name, err);
	if (strcmp(name, "buffer-limit") == 0)
		return uns(val, 0, 1000000, &c->buffer_limit, name, err);
	if (strcmp(name, "buffer-limit-dest") == 0)
		return uns(val, 0, 1000000, &c->buffer_limit_dest, name, err);
	if (strcmp(name, "buffer-limit-trans") == 0)
		return uns(val, 0, 1000000, &c->buffer_limit_trans, name, err);
	if (strcmp(name, "inject-timeout") == 0) {
		uint64_t v;
		if (mp_parse_u64(val, 0, 1000000000000ull, &v, "--inject-timeout",
				 err) < 0)
			return -1;
		c->inject_timeout = v;
		return 0;
	}
	if (strcmp(name, "eject-priority") == 0) {
		static const char *const l[] = { "off", "on" };
		return pick(val, l, 2, &c->eject_priority, name, err);
	}
	if (strcmp(name, "deadlock") == 0)
		return pick(val, dl_names, 2, &c->deadlock, name, err);
	if (strcmp(name, "pe-arb") == 0)
		return pick(val, pe_names, 3, &c->pe_arb, name, err);
	if (strcmp(name, "retry") == 0)
		return pick(val, retry_names, 2, &c->retry, name, err);
	if (strcmp(name, "payload") == 0)
		return uns(val, 1, 1u << 30, &c->payload, name, err);
	return 1;
}

void mp_cfg_topo(const struct mp_cfg *c, char *buf, size_t cap)
{
	if (strcmp(c->family, "hex") == 0)
		snprintf(buf, cap, "hex:%u", c->size);
	else if (c->rows)
		snprintf(buf, cap, "%s:%ux%u", c->family, c->rows, c->cols);
	else
		snprintf(buf, cap, "%s:%ux%u", c->family, c->size, c->size);
}

int mp_cfg_check(const struct mp_cfg *c, mp_err *err)
{
	if (strcmp(c->family, "hex") == 0 && c->size > 128)
		return mp_err_set(err, "--size: hex meshes go up to E128");
	if (strcmp(c->family, "hex") != 0 && c->size < 3 && !c->rows)
		return mp_err_set(err, "--size: %s needs a side of at least 3",
				  c->family);
	if (c->route == MP_RT_DEROUTE && (strcmp(c->family, "torus") == 0 ||
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

size_t mp_cfg_format(const struct mp_cfg *c, char *buf, size_t cap)
{
	char topo[64];
	mp_cfg_topo(c, topo, sizeof topo);
	int n = snprintf(buf, cap,
		"--preset %s\n--topo %s\n--route %s\n--buffers %u\n"
		"--packet-time %u\n--header-time %u\n--inject-setup %u\n"
		"--eject-setup %u\n--links %s\n--pe-port %s\n--pe-arb %s\n"
		"--bp %s\n--buffer-limit %u\n--buffer-limit-dest %u\n"
		"--buffer-limit-trans %u\n--inject-timeout %llu\n"
		"--eject-priority %s\n--deadlock %s\n--retry %s\n--payload %u\n",
		c->preset[0] ? c->preset : "none", topo, mp_route_name(c->route),
		c->buffers, c->packet_time, c->header_time, c->inject_setup,
		c->eject_setup, c->full_duplex ? "full" : "half",
		c->pe_separate ? "separate" : "shared", pe_names[c->pe_arb],
		mp_bp_name(c->bp), c->buffer_limit, c->buffer_limit_dest,
		c->buffer_limit_trans, (unsigned long long)c->inject_timeout,
		c->eject_priority ? "on" : "off", dl_names[c->deadlock],
		retry_names[c->retry], c->payload);
	return n < 0 ? 0 : (size_t)n;
}

double mp_cfg_pe_time(const struct mp_cfg *c)
{
	double tin = (double)c->inject_setup + c->packet_time;
	double tout = (double)c->eject_setup + c->packet_time;
	if (c->pe_separate)
		return tin > tout ? tin : tout;
	return tin + tout;
}
