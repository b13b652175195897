/*
 * The configuration and the injection policy in stream headers.
 */
#include "mp_hdrcfg.h"

#include <stdio.h>
#include <string.h>

#include "mp_opt.h"

/* The header key of option o: fabric.<name>, dashes as underscores. */
static void opt_key(const struct mp_opt *o, char *key, size_t cap)
{
	snprintf(key, cap, "fabric.%s", o->name);
	for (char *k = key; *k; k++)
		if (*k == '-')
			*k = '_';
}

static int hdr_one(void *ctx, const struct mp_opt *o, const char *val)
{
	char key[64];
	opt_key(o, key, sizeof key);
	return mp_hdr_set(ctx, key, val);
}

int mp_cfg_hdr_write(const struct mp_cfg *c, mp_hdr *h)
{
	if (mp_hdr_set(h, "fabric.preset", c->preset[0] ? c->preset : "none") < 0)
		return -1;
	return mp_cfg_each_shown(c, hdr_one, h);
}

int mp_cfg_hdr_read(const mp_hdr *h, struct mp_cfg *c, mp_err *err)
{
	const char *p = mp_hdr_get(h, "fabric.preset");
	mp_cfg_init(c);
	if (!p)
		return mp_err_set(err, "no fabric.preset key: not written by "
				       "netrun");
	if (strcmp(p, "none") != 0 && mp_cfg_preset(c, p, err) < 0)
		return -1;
	/* The model first: it says which options follow. */
	const char *model = mp_hdr_get(h, "fabric.model");
	if (model && mp_cfg_set(c, "model", model, err) != 0)
		return -1;
	for (size_t i = 0; i < mp_hdr_count(h); i++) {
		const char *k = mp_hdr_key(h, i);
		char name[64];
		if (strncmp(k, "fabric.", 7) != 0 || strlen(k + 7) >= sizeof name)
			continue;
		snprintf(name, sizeof name, "%s", k + 7);
		for (char *q = name; *q; q++)
			if (*q == '_')
				*q = '-';
		const struct mp_opt *o = mp_cfg_find_opt(name);
		if (!o || (o->flags & (MP_OPT_NOSHOW | MP_OPT_HIDDEN)))
			continue; /* fabric.preset, fabric.seed, ... */
		int rc = mp_cfg_set(c, name, mp_hdr_value(h, i), err);
		if (rc != 0)
			return rc < 0 ? -1 : mp_err_set(err, "%s: not an option",
							 k);
	}
	return mp_cfg_check(c, err);
}

int mp_ni_policy_write(const struct mp_ni_policy *pol, mp_hdr *h)
{
	int rc = 0;
	if (pol->kind == MP_NI_SRF) {
		rc |= mp_hdr_set(h, "sched.policy", "srf");
		mp_hdr_unset(h, "sched.alpha");
	} else {
		rc |= mp_hdr_set(h, "sched.policy",
				 pol->alpha == 0 ? "fifo" : "alpha");
		rc |= mp_hdr_setf(h, "sched.alpha", "%.17g", pol->alpha);
	}
	rc |= mp_hdr_set(h, "sched.class_priority", pol->class_prio ? "1" : "0");
	return rc ? -1 : 0;
}

int mp_ni_policy_read(const mp_hdr *h, struct mp_ni_policy *pol, mp_err *err)
{
	const char *p = mp_hdr_get(h, "sched.policy");
	memset(pol, 0, sizeof *pol);
	if (mp_hdr_kind(h) != MP_KIND_INJECTIONS || !p || strcmp(p, "fifo") == 0)
		return 0;
	if (strcmp(p, "alpha") == 0) {
		double a;
		pol->kind = MP_NI_ALPHA;
		if (mp_hdr_get_double(h, "sched.alpha", &a) < 0 || !(a >= 0))
			return mp_err_set(err, "header: bad or missing sched.alpha");
		pol->alpha = a;
	} else if (strcmp(p, "srf") == 0) {
		pol->kind = MP_NI_SRF;
	} else {
		return mp_err_set(err, "header: unknown injection policy '%s'", p);
	}
	const char *cp = mp_hdr_get(h, "sched.class_priority");
	pol->class_prio = cp && strcmp(cp, "1") == 0;
	return 0;
}

