/*
 * Unit tests of the option tables (mp_opt.h) and what is made from
 * them: every option of every preset, set to each of its values (or its
 * range's ends), survives the header (mp_cfg_hdr_write, then
 * mp_cfg_hdr_read) and --show-config (mp_cfg_format, then mp_cfg_set of
 * each line) unchanged, and a change of any one option changes the
 * header, so no option can be left out of either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mp_config.h"
#include "mp_hdrcfg.h"
#include "mp_model.h"
#include "mp_opt.h"
#include "t.h"

/* The topology's size fields as --topo RxC leaves them. */
static void norm(struct mp_cfg *c)
{
	if (strcmp(c->family, "hex") == 0) {
		c->rows = c->cols = 0;
	} else if (!c->rows) {
		c->rows = c->cols = c->size;
	}
	if (c->rows)
		c->size = c->rows;
}

/* Every field equal (the topology's size however it was given). */
static int same(const struct mp_cfg *a, const struct mp_cfg *b)
{
	struct mp_cfg x = *a, y = *b;
	norm(&x);
	norm(&y);
	return memcmp(&x, &y, sizeof x) == 0;
}

/* Header text of c (its fabric keys, in order). */
static void hdr_text(const struct mp_cfg *c, char *buf, size_t cap)
{
	mp_hdr *h = mp_hdr_new(MP_KIND_DELIVERIES);
	size_t len = 0;
	buf[0] = '\0';
	if (!h || mp_cfg_hdr_write(c, h) < 0) {
		mp_hdr_free(h);
		return;
	}
	for (size_t i = 0; i < mp_hdr_count(h) && len < cap; i++) {
		int n = snprintf(buf + len, cap - len, "%s=%s\n", mp_hdr_key(h, i),
				 mp_hdr_value(h, i));
		len += n > 0 ? (size_t)n : 0;
	}
	mp_hdr_free(h);
}

/* c back from its header, and from its --show-config lines. */
static int round_trip(const struct mp_cfg *c, const char *what)
{
	mp_err err;
	struct mp_cfg b;
	int ok = 1;
	mp_hdr *h = mp_hdr_new(MP_KIND_DELIVERIES);
	if (!h || mp_cfg_hdr_write(c, h) < 0 || mp_cfg_hdr_read(h, &b, &err) < 0 ||
	    !same(c, &b)) {
		printf("# %s: header round trip fails\n", what);
		ok = 0;
	}
	mp_hdr_free(h);
	char buf[4096], *save;
	mp_cfg_format(c, buf, sizeof buf);
	mp_cfg_init(&b);
	for (char *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		if (strncmp(line, "--", 2) != 0 || !sp)
			return 0;
		*sp = '\0';
		if (strcmp(line + 2, "preset") == 0) {
			if (strcmp(sp + 1, "none") != 0 &&
			    mp_cfg_preset(&b, sp + 1, &err) < 0)
				ok = 0;
		} else if (mp_cfg_set(&b, line + 2, sp + 1, &err) != 0) {
			ok = 0;
		}
	}
	if (!same(c, &b)) {
		printf("# %s: --show-config round trip fails\n", what);
		ok = 0;
	}
	return ok;
}

int main(void)
{
	const char *p;
	for (size_t i = 0; (p = mp_preset_name(i)); i++) {
		struct mp_cfg base;
		mp_err err;
		mp_cfg_init(&base);
		T_OK(mp_cfg_preset(&base, p, &err) == 0, "%s: preset", p);
		T_OK(round_trip(&base, p), "%s: header and --show-config give the "
		     "configuration back", p);
		char h0[4096];
		hdr_text(&base, h0, sizeof h0);
		const struct mp_model_ops *m = mp_model_find(base.model);
		T_OK(m != NULL, "%s: names model %s", p, base.model);
		if (!m)
			continue;
		const struct mp_opt *tables[3] = { mp_opt_driver, mp_opt_network,
						   m->opts };
		unsigned tried = 0, lost = 0, unseen = 0, nopts = 0;
		for (int t = 0; t < 3; t++)
			for (const struct mp_opt *o = tables[t]; o->name; o++) {
				const char *vals[8];
				char lo[32], hi[32];
				int nv = 0;
				if (o->type == MP_OPT_CHOICE) {
					for (int k = 0; o->choices[k] && nv < 8; k++)
						vals[nv++] = o->choices[k];
				} else if (o->type == MP_OPT_UINT ||
					   o->type == MP_OPT_U64) {
					snprintf(lo, sizeof lo, "%llu",
						 (unsigned long long)o->min);
					snprintf(hi, sizeof hi, "%llu",
						 (unsigned long long)o->min + 1);
					vals[nv++] = lo;
					vals[nv++] = hi;
				} else if (strcmp(o->name, "sink") == 0) {
					vals[nv++] = "prob:0.25";
					vals[nv++] = "prob:0.123456789";
					vals[nv++] = "perfect";
				} else if (strcmp(o->name, "arb") == 0) {
					vals[nv++] = "priority";
					vals[nv++] = "credit:3";
					vals[nv++] = "random";
				} else if (strcmp(o->name, "class") == 0) {
					vals[nv++] = "gt=ps";
					vals[nv++] = "be=vct,gt=wormhole";
				}
				nopts += nv > 0;
				for (int k = 0; k < nv; k++) {
					struct mp_cfg c = base;
					char what[128], h1[4096];
					if (mp_cfg_set(&c, o->name, vals[k], &err) != 0 ||
					    mp_cfg_check(&c, &err) < 0)
						continue; /* not a valid whole */
					tried++;
					snprintf(what, sizeof what, "%s --%s %s", p,
						 o->name, vals[k]);
					if (!round_trip(&c, what))
						lost++;
					hdr_text(&c, h1, sizeof h1);
					if (!same(&c, &base) && strcmp(h0, h1) == 0) {
						printf("# %s: header unchanged\n",
						       what);
						unseen++;
					}
				}
			}
		/* at least one valid change of every option tried */
		T_OK(tried >= nopts && nopts > 3 && lost == 0, "%s: %u "
		     "single-option changes of %u options come back from the "
		     "header and --show-config (%u do not)", p, tried, nopts,
		     lost);
		T_OK(unseen == 0, "%s: every change of an option changes the "
		     "header (%u do not)", p, unseen);
	}
	return t_done();
}
