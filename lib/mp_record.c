/*
 * Record layouts: sizes, names and field tables, derived from the structs
 * of mp_record.h so that the wire layout and the C layout cannot drift.
 */
#include "mp_record.h"

#include <string.h>

#define F(st, fld, nm) { nm, (uint8_t)sizeof(((struct st *)0)->fld), (uint16_t)offsetof(struct st, fld) }

_Static_assert(sizeof(struct mp_msg) == 40, "msg layout");
_Static_assert(sizeof(struct mp_pkt) == 48, "pkt layout");
_Static_assert(sizeof(struct mp_dlv) == 56, "dlv layout");
_Static_assert(sizeof(struct mp_util) == 56, "util layout");
_Static_assert(sizeof(struct mp_run) == 64, "run layout");
_Static_assert(sizeof(struct mp_end) == 64, "end layout");
_Static_assert(sizeof(struct mp_dep) == 48, "dep layout");
_Static_assert(sizeof(struct mp_rel) == 32, "rel layout");
_Static_assert(sizeof(mp_rec) == 64, "record union");

static const struct mp_field msg_fields[] = {
	F(mp_msg, tag, "tag"), F(mp_msg, cls, "class"),
	F(mp_msg, group, "group"), F(mp_msg, route, "route"),
	F(mp_msg, src, "src"), F(mp_msg, dst, "dst"),
	F(mp_msg, packets, "packets"), F(mp_msg, id, "id"),
	F(mp_msg, time, "time"), F(mp_msg, bytes, "bytes"),
	F(mp_msg, prio, "prio"),
};

static const struct mp_field pkt_fields[] = {
	F(mp_pkt, tag, "tag"), F(mp_pkt, cls, "class"),
	F(mp_pkt, group, "group"), F(mp_pkt, flags, "flags"),
	F(mp_pkt, src, "src"), F(mp_pkt, dst, "dst"),
	F(mp_pkt, seq, "seq"), F(mp_pkt, msg, "msg"),
	F(mp_pkt, t_inject, "t_inject"), F(mp_pkt, t_eject, "t_eject"),
	F(mp_pkt, hops, "hops"), F(mp_pkt, deroutes, "deroutes"),
	F(mp_pkt, refusals, "refusals"),
};

static const struct mp_field dlv_fields[] = {
	F(mp_dlv, tag, "tag"), F(mp_dlv, cls, "class"),
	F(mp_dlv, group, "group"), F(mp_dlv, rsv, "_rsv"),
	F(mp_dlv, src, "src"), F(mp_dlv, dst, "dst"),
	F(mp_dlv, packets, "packets"), F(mp_dlv, id, "id"),
	F(mp_dlv, t_arrive, "t_arrive"), F(mp_dlv, t_first, "t_first"),
	F(mp_dlv, t_done, "t_done"), F(mp_dlv, bytes, "bytes"),
	F(mp_dlv, hops, "hops"),
};

static const struct mp_field util_fields[] = {
	F(mp_util, tag, "tag"), F(mp_util, scope, "scope"),
	F(mp_util, rsv, "_rsv"), F(mp_util, node, "node"),
	F(mp_util, port, "port"), F(mp_util, nports, "nports"),
	F(mp_util, t, "t"), F(mp_util, busy, "busy"),
	F(mp_util, refused, "refused"), F(mp_util, transfers, "transfers"),
	F(mp_util, refusals, "refusals"),
};

static const struct mp_field run_fields[] = {
	F(mp_run, tag, "tag"), F(mp_run, status, "status"),
	F(mp_run, rsv, "_rsv"), F(mp_run, nodes, "nodes"),
	F(mp_run, t_end, "t_end"), F(mp_run, msgs_in, "msgs_in"),
	F(mp_run, msgs_done, "msgs_done"),
	F(mp_run, pkts_injected, "pkts_injected"),
	F(mp_run, pkts_delivered, "pkts_delivered"),
	F(mp_run, pkts_in_flight, "pkts_in_flight"),
	F(mp_run, pkts_queued, "pkts_queued"),
};

static const struct mp_field end_fields[] = {
	F(mp_end, tag, "tag"),
	{ "_rsv1", 1, 1 }, { "_rsv2", 1, 2 }, { "_rsv3", 1, 3 },
	{ "_rsv4", 1, 4 }, { "_rsv5", 1, 5 }, { "_rsv6", 1, 6 },
	{ "_rsv7", 1, 7 },
	{ "n_msg", 8, 8 }, { "n_inj", 8, 16 }, { "n_pkt", 8, 24 },
	{ "n_dlv", 8, 32 }, { "n_util", 8, 40 }, { "n_run", 8, 48 },
	{ "n_end", 8, 56 },
};

static const struct mp_field dep_fields[] = {
	F(mp_dep, tag, "tag"), F(mp_dep, n, "n"),
	F(mp_dep, rsv, "_rsv"), F(mp_dep, users, "users"),
	F(mp_dep, msg, "msg"),
	{ "after0", 8, 16 }, { "after1", 8, 24 }, { "after2", 8, 32 },
	{ "after3", 8, 40 },
};

static const struct mp_field rel_fields[] = {
	F(mp_rel, tag, "tag"), F(mp_rel, rsv, "_rsv"),
	F(mp_rel, rsv2, "_rsv2"), F(mp_rel, ndeps, "ndeps"),
	F(mp_rel, msg, "msg"), F(mp_rel, t_trace, "t_trace"),
	F(mp_rel, t_release, "t_release"),
};

struct layout {
	const char *name;
	size_t size;
	const struct mp_field *fields;
	size_t nfields;
};

#define L(nm, st, tab) { nm, sizeof(struct st), tab, sizeof tab / sizeof tab[0] }

static const struct layout layouts[MP_REC_NTAGS] = {
	[MP_REC_MSG] = L("msg", mp_msg, msg_fields),
	[MP_REC_INJ] = L("inj", mp_msg, msg_fields),
	[MP_REC_PKT] = L("pkt", mp_pkt, pkt_fields),
	[MP_REC_DLV] = L("dlv", mp_dlv, dlv_fields),
	[MP_REC_UTIL] = L("util", mp_util, util_fields),
	[MP_REC_RUN] = L("run", mp_run, run_fields),
	[MP_REC_END] = L("end", mp_end, end_fields),
	[MP_REC_DEP] = L("dep", mp_dep, dep_fields),
	[MP_REC_REL] = L("rel", mp_rel, rel_fields),
};

size_t mp_rec_size(int tag)
{
	return tag > 0 && tag < MP_REC_NTAGS ? layouts[tag].size : 0;
}

const char *mp_rec_name(int tag)
{
	return tag > 0 && tag < MP_REC_NTAGS ? layouts[tag].name : NULL;
}

int mp_rec_tag(const char *name)
{
	for (int t = 1; t < MP_REC_NTAGS; t++)
		if (strcmp(layouts[t].name, name) == 0)
			return t;
	return 0;
}

const struct mp_field *mp_rec_fields(int tag, size_t *n)
{
	if (tag <= 0 || tag >= MP_REC_NTAGS) {
		*n = 0;
		return NULL;
	}
	*n = layouts[tag].nfields;
	return layouts[tag].fields;
}

uint64_t mp_rec_get(const mp_rec *rec, const struct mp_field *f)
{
	const unsigned char *p = rec->raw + f->off;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (f->type) {
	case MP_F_U8:
		memcpy(&v8, p, 1);
		return v8;
	case MP_F_U16:
		memcpy(&v16, p, 2);
		return v16;
	case MP_F_U32:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

int mp_rec_set(mp_rec *rec, const struct mp_field *f, uint64_t v)
{
	unsigned char *p = rec->raw + f->off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (f->type) {
	case MP_F_U8:
		if (v > UINT8_MAX)
			return -1;
		memcpy(p, &v8, 1);
		return 0;
	case MP_F_U16:
		if (v > UINT16_MAX)
			return -1;
		memcpy(p, &v16, 2);
		return 0;
	case MP_F_U32:
		if (v > UINT32_MAX)
			return -1;
		memcpy(p, &v32, 4);
		return 0;
	default:
		memcpy(p, &v, 8);
		return 0;
	}
}

static const char *const kind_names[] = {
	[MP_KIND_MESSAGES] = "messages",
	[MP_KIND_INJECTIONS] = "injections",
	[MP_KIND_DELIVERIES] = "deliveries",
	[MP_KIND_UTILIZATION] = "utilization",
};

const char *mp_kind_name(int kind)
{
	return kind >= 1 && kind <= MP_KIND_MAX ? kind_names[kind] : NULL;
}

int mp_kind_from_name(const char *name)
{
	for (int k = 1; k <= MP_KIND_MAX; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return 0;
}
