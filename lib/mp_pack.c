/*
 * The packed record encoding (see mp_pack.h and man/meshpipe.5): varints
 * and per-tag deltas. Two coders: a table-driven one that walks the
 * field tables of mp_record.c and serves every tag and every layout a
 * header declares, and straight-line code for the records that make up
 * nearly all of a stream (msg, inj, pkt, dlv). The straight-line
 * decoders only ever accept: when anything is wrong they hand the record
 * to the table-driven one, which finds the fault and names it.
 */
#include "mp_pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Coded fields (neither the tag nor padding) of a known tag, at most. */
#define MAXF 16

/* A field a newer layout adds, or a field of an unknown tag: skipped. */
struct xfield {
	uint8_t type;  /* MP_F_*: size in bytes */
	char name[24]; /* for messages; cut if longer */
};

struct ptag {
	uint8_t declared; /* records with this tag may appear */
	uint8_t fast;     /* exactly this version's fields: straight-line code */
	uint16_t nextra;  /* coded fields after this version's */
	struct xfield *extra;
};

struct mp_pack {
	int flags;
	const struct mp_field *f[MP_REC_NTAGS][MAXF]; /* coded fields, in order */
	uint8_t nf[MP_REC_NTAGS];
	struct ptag tag[256];
	mp_rec prev[MP_REC_NTAGS]; /* previous record of each tag */
};

/* Varint faults, by how getv_slow found them. */
enum { V_SHORT = 1, V_LONG, V_OVER, V_NONMIN };

static inline uint64_t zz(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t unzz(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

static inline unsigned char *putv(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/*
 * A varint at *pp, before end: 0 and *pp moved past it, or a V_* fault.
 * The shortest form only, so every record has exactly one encoding: a
 * last byte of zero after others is refused, and so is a tenth byte
 * above 1 (bits past 64) or with a continuation bit.
 */
static int getv_slow(const unsigned char **pp, const unsigned char *end,
		     uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t x = 0;
	for (int i = 0; i < 10; i++) {
		if (p == end)
			return V_SHORT;
		unsigned b = *p++;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (i == 9 && b > 1)
				return V_OVER;
			if (i > 0 && b == 0)
				return V_NONMIN;
			*v = x;
			*pp = p;
			return 0;
		}
	}
	return V_LONG;
}

/*
 * Straight-line decoders: any fault, give up (the caller falls back).
 * They start only with room for MAXF fields of the longest varint at
 * hand (ROOM), so a field needs no test of the end: nearly all are one byte,
 * most others two (a second byte of 0 is not the shortest form, and
 * getv_slow refuses it), the rest at most 10. GETV takes the field's
 * largest value, and its tests fold away where the form cannot exceed
 * it. Nothing here takes the address of p or of a field, which would
 * keep them all in memory.
 */
#define ROOM (1 + 10 * MAXF)
#define GETV(v, max) do { \
	if (p[0] < 0x80) { \
		(v) = p[0]; \
		p++; \
	} else if (p[1] - 1u < 0x7fu) { \
		(v) = (p[0] & 0x7fu) | (uint64_t)p[1] << 7; \
		p += 2; \
		if ((uint64_t)(max) < 0x3fff && (v) > (max)) \
			return 0; \
	} else { \
		uint64_t v_; \
		if (!(p = getv_long(p, &v_)) || v_ > (max)) \
			return 0; \
		(v) = v_; \
	} \
} while (0)

/* The varint at p, 10 bytes at hand: its end and *v, or NULL. */
__attribute__((noinline))
static const unsigned char *getv_long(const unsigned char *p, uint64_t *v)
{
	const unsigned char *q = p;
	return getv_slow(&q, p + 10, v) == 0 ? q : NULL;
}

mp_pack *mp_pack_new(int flags)
{
	mp_pack *pk = calloc(1, sizeof *pk);
	if (!pk)
		return NULL;
	pk->flags = flags;
	for (int t = 1; t < MP_REC_NTAGS; t++) {
		size_t n;
		const struct mp_field *f = mp_rec_fields(t, &n);
		/* f[0] is the tag itself. */
		for (size_t i = 1; i < n; i++)
			if (f[i].name[0] != '_' && pk->nf[t] < MAXF)
				pk->f[t][pk->nf[t]++] = &f[i];
	}
	mp_pack_reset(pk);
	return pk;
}

void mp_pack_free(mp_pack *pk)
{
	if (!pk)
		return;
	for (int t = 0; t < 256; t++)
		free(pk->tag[t].extra);
	free(pk);
}

void mp_pack_reset(mp_pack *pk)
{
	for (int t = 0; t < 256; t++) {
		struct ptag *pt = &pk->tag[t];
		free(pt->extra);
		memset(pt, 0, sizeof *pt);
		/* dep and rel records: only where a header declares them. */
		if (t >= 1 && t < MP_REC_NTAGS && t != MP_REC_DEP &&
		    t != MP_REC_REL) {
			pt->declared = 1;
			pt->fast = !(pk->flags & MP_PACK_GENERIC);
		}
	}
	memset(pk->prev, 0, sizeof pk->prev);
}

/* Parse a decimal number of at most 5 digits at *s. 0, or -1. */
static int small_num(const char **s, unsigned *v)
{
	unsigned x = 0;
	int n = 0;
	while (**s >= '0' && **s <= '9' && n < 6) {
		x = 10 * x + (unsigned)(**s - '0');
		(*s)++;
		n++;
	}
	if (n == 0 || n > 5)
		return -1;
	*v = x;
	return 0;
}

int mp_pack_declare(mp_pack *pk, int tag, uint64_t size, const char *fields,
		    mp_err *err)
{
	size_t nours = 0, ntok = 0, nextra = 0, bytes = 0;
	const struct mp_field *ours = NULL;
	struct xfield *extra = NULL;

	if (tag < 1 || tag > 255)
		return mp_err_set(err, "layout of record tag %d: no such tag", tag);
	if (tag < MP_REC_NTAGS)
		ours = mp_rec_fields(tag, &nours);
	/* Tokens "NAME:uBITS@OFFSET", separated by spaces. */
	for (const char *s = fields;;) {
		while (*s == ' ')
			s++;
		if (*s == '\0')
			break;
		const char *name = s;
		while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		       (*s >= '0' && *s <= '9') || *s == '_')
			s++;
		size_t len = (size_t)(s - name);
		unsigned bits, off;
		if (len == 0 || *s++ != ':' || *s++ != 'u' ||
		    small_num(&s, &bits) < 0 || *s++ != '@' ||
		    small_num(&s, &off) < 0 || (*s != ' ' && *s != '\0') ||
		    (bits != 8 && bits != 16 && bits != 32 && bits != 64)) {
			mp_err_set(err, "layout of record tag %d: field %zu is "
					"malformed", tag, ntok + 1);
			goto bad;
		}
		uint8_t type = (uint8_t)(bits / 8);
		bytes += type;
		if (off + type > size || bytes > size) {
			mp_err_set(err, "layout of record tag %d: field %zu lies "
					"outside its %llu bytes", tag, ntok + 1,
				   (unsigned long long)size);
			goto bad;
		}
		if (ntok == 0 && (len != 3 || memcmp(name, "tag", 3) != 0 ||
				  type != MP_F_U8)) {
			mp_err_set(err, "layout of record tag %d: the first field "
					"is not tag:u8", tag);
			goto bad;
		}
		if (ntok < nours) {
			/* This version's field, as this version has it. */
			if (strlen(ours[ntok].name) != len ||
			    memcmp(ours[ntok].name, name, len) != 0 ||
			    ours[ntok].type != type) {
				mp_err_set(err, "layout of record tag %d: field %zu "
						"is not %s:u%d", tag, ntok + 1,
					   ours[ntok].name, 8 * ours[ntok].type);
				goto bad;
			}
		} else if (ntok > 0 && name[0] != '_') {
			/* Coded, skipped. At most size fields: size <= 4096. */
			struct xfield *x = realloc(extra, (nextra + 1) * sizeof *x);
			if (!x) {
				mp_err_set(err, "out of memory");
				goto bad;
			}
			extra = x;
			extra[nextra].type = type;
			size_t k = len < sizeof x->name ? len : sizeof x->name - 1;
			memcpy(extra[nextra].name, name, k);
			extra[nextra].name[k] = '\0';
			nextra++;
		}
		ntok++;
	}
	if (ntok < (nours ? nours : 1)) {
		mp_err_set(err, "layout of record tag %d lists %zu of its %zu "
				"fields", tag, ntok, nours ? nours : 1);
		goto bad;
	}
	struct ptag *pt = &pk->tag[tag];
	free(pt->extra);
	pt->declared = 1;
	pt->extra = extra;
	pt->nextra = (uint16_t)nextra;
	pt->fast = tag < MP_REC_NTAGS && nextra == 0 &&
		   !(pk->flags & MP_PACK_GENERIC);
	return 0;
bad:
	free(extra);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Table-driven coder                                                  */

/* Out of line: its registers would cost the straight-line coders that
 * share mp_pack_put a prologue and epilogue on every record. */
__attribute__((noinline))
static size_t put_generic(mp_pack *pk, const mp_rec *rec, unsigned char *out)
{
	int t = rec->tag;
	unsigned char *p = out;
	*p++ = (unsigned char)t;
	for (int i = 0; i < pk->nf[t]; i++) {
		const struct mp_field *f = pk->f[t][i];
		uint64_t v = mp_rec_get(rec, f);
		if (f->type == MP_F_U64)
			v = zz(v - mp_rec_get(&pk->prev[t], f));
		p = putv(p, v);
	}
	memcpy(&pk->prev[t], rec, sizeof *rec);
	return (size_t)(p - out);
}

/* Name of a record kind in messages: "pkt", or "tag 9" for a new one. */
static const char *kind(int t, char *buf, size_t cap)
{
	if (t > 0 && t < MP_REC_NTAGS)
		return mp_rec_name(t);
	snprintf(buf, cap, "tag %d", t);
	return buf;
}

/* A varint fault of field `field` of a record with tag t, in err. */
static int vfault(int rc, int t, const char *field, size_t got, mp_err *err)
{
	char buf[16];
	const char *name = kind(t, buf, sizeof buf);
	switch (rc) {
	case V_SHORT:
		mp_err_set(err, "truncated %s record (%zu bytes, field '%s' "
				"incomplete)", name, got, field);
		return MP_PACK_SHORT;
	case V_LONG:
		mp_err_set(err, "%s field '%s': varint longer than 10 bytes", name,
			   field);
		break;
	case V_OVER:
		mp_err_set(err, "%s field '%s': varint beyond 64 bits", name,
			   field);
		break;
	default:
		mp_err_set(err, "%s field '%s': varint not in its shortest form",
			   name, field);
		break;
	}
	return MP_PACK_BAD;
}

static int too_large(int t, const char *field, uint64_t v, int type,
		     mp_err *err)
{
	char buf[16];
	mp_err_set(err, "%s field '%s': %llu too large for u%d",
		   kind(t, buf, sizeof buf), field,
		   (unsigned long long)v, 8 * type);
	return MP_PACK_BAD;
}

static int fits(uint64_t v, int type)
{
	return type == MP_F_U64 || v < (UINT64_C(1) << (8 * type));
}

/* Out of line, as put_generic. */
__attribute__((noinline))
static int get_generic(mp_pack *pk, const unsigned char *p0, size_t n,
		       mp_rec *rec, size_t *used, mp_err *err)
{
	const unsigned char *p = p0 + 1, *end = p0 + n;
	int t = p0[0], rc;
	struct ptag *pt = &pk->tag[t];
	mp_rec r;
	uint64_t v;

	if (!pt->declared) {
		mp_err_set(err, "unknown record tag %d", t);
		return MP_PACK_BAD;
	}
	memset(&r, 0, sizeof r);
	r.tag = (uint8_t)t;
	int nf = t < MP_REC_NTAGS ? pk->nf[t] : 0;
	for (int i = 0; i < nf; i++) {
		const struct mp_field *f = pk->f[t][i];
		if ((rc = getv_slow(&p, end, &v)) != 0)
			return vfault(rc, t, f->name, n, err);
		if (f->type == MP_F_U64)
			v = mp_rec_get(&pk->prev[t], f) + unzz(v);
		else if (!fits(v, f->type))
			return too_large(t, f->name, v, f->type, err);
		mp_rec_set(&r, f, v);
	}
	for (int i = 0; i < pt->nextra; i++) {
		const struct xfield *x = &pt->extra[i];
		if ((rc = getv_slow(&p, end, &v)) != 0)
			return vfault(rc, t, x->name, n, err);
		if (!fits(v, x->type))
			return too_large(t, x->name, v, x->type, err);
	}
	*used = (size_t)(p - p0);
	if (t >= MP_REC_NTAGS)
		return MP_PACK_SKIPPED;
	memcpy(&pk->prev[t], &r, sizeof r);
	memcpy(rec, &r, mp_rec_size(t));
	return 1;
}

/* ------------------------------------------------------------------ */
/* Straight-line coders: the same bytes as the table, field by field.  */

static size_t put_msg(mp_pack *pk, const struct mp_msg *m, unsigned char *out)
{
	struct mp_msg *q = &pk->prev[m->tag].msg;
	unsigned char *p = out;
	*p++ = m->tag;
	p = putv(p, m->cls);
	p = putv(p, m->group);
	p = putv(p, m->route);
	p = putv(p, m->src);
	p = putv(p, m->dst);
	p = putv(p, m->packets);
	p = putv(p, zz(m->id - q->id));
	p = putv(p, zz(m->time - q->time));
	p = putv(p, m->bytes);
	p = putv(p, m->prio);
	*q = *m;
	return (size_t)(p - out);
}

static size_t put_pkt(mp_pack *pk, const struct mp_pkt *k, unsigned char *out)
{
	struct mp_pkt *q = &pk->prev[MP_REC_PKT].pkt;
	unsigned char *p = out;
	*p++ = MP_REC_PKT;
	p = putv(p, k->cls);
	p = putv(p, k->group);
	p = putv(p, k->flags);
	p = putv(p, k->src);
	p = putv(p, k->dst);
	p = putv(p, k->seq);
	p = putv(p, zz(k->msg - q->msg));
	p = putv(p, zz(k->t_inject - q->t_inject));
	p = putv(p, zz(k->t_eject - q->t_eject));
	p = putv(p, k->hops);
	p = putv(p, k->deroutes);
	p = putv(p, k->refusals);
	*q = *k;
	return (size_t)(p - out);
}

static size_t put_dlv(mp_pack *pk, const struct mp_dlv *d, unsigned char *out)
{
	struct mp_dlv *q = &pk->prev[MP_REC_DLV].dlv;
	unsigned char *p = out;
	*p++ = MP_REC_DLV;
	p = putv(p, d->cls);
	p = putv(p, d->group);
	p = putv(p, d->src);
	p = putv(p, d->dst);
	p = putv(p, d->packets);
	p = putv(p, zz(d->id - q->id));
	p = putv(p, zz(d->t_arrive - q->t_arrive));
	p = putv(p, zz(d->t_first - q->t_first));
	p = putv(p, zz(d->t_done - q->t_done));
	p = putv(p, d->bytes);
	p = putv(p, d->hops);
	*q = *d;
	return (size_t)(p - out);
}

/* Each returns the record's length with the record, or 0 to leave it
 * to get_generic. */
static size_t get_msg(mp_pack *pk, const unsigned char *p0, mp_rec *rec)
{
	const unsigned char *p = p0 + 1;
	uint64_t cls, group, route, src, dst, packets, id, time, bytes, prio;
	GETV(cls, UINT8_MAX);
	GETV(group, UINT8_MAX);
	GETV(route, UINT8_MAX);
	GETV(src, UINT32_MAX);
	GETV(dst, UINT32_MAX);
	GETV(packets, UINT32_MAX);
	GETV(id, UINT64_MAX);
	GETV(time, UINT64_MAX);
	GETV(bytes, UINT32_MAX);
	GETV(prio, UINT32_MAX);
	struct mp_msg *q = &pk->prev[p0[0]].msg;
	q->tag = p0[0];
	q->cls = (uint8_t)cls;
	q->group = (uint8_t)group;
	q->route = (uint8_t)route;
	q->src = (uint32_t)src;
	q->dst = (uint32_t)dst;
	q->packets = (uint32_t)packets;
	q->id += unzz(id);
	q->time += unzz(time);
	q->bytes = (uint32_t)bytes;
	q->prio = (uint32_t)prio;
	rec->msg = *q;
	return (size_t)(p - p0);
}

static size_t get_pkt(mp_pack *pk, const unsigned char *p0, mp_rec *rec)
{
	const unsigned char *p = p0 + 1;
	uint64_t cls, group, flags, src, dst, seq, msg, ti, te, hops, der, ref;
	GETV(cls, UINT8_MAX);
	GETV(group, UINT8_MAX);
	GETV(flags, UINT8_MAX);
	GETV(src, UINT32_MAX);
	GETV(dst, UINT32_MAX);
	GETV(seq, UINT32_MAX);
	GETV(msg, UINT64_MAX);
	GETV(ti, UINT64_MAX);
	GETV(te, UINT64_MAX);
	GETV(hops, UINT16_MAX);
	GETV(der, UINT16_MAX);
	GETV(ref, UINT32_MAX);
	struct mp_pkt *q = &pk->prev[MP_REC_PKT].pkt;
	q->tag = MP_REC_PKT;
	q->cls = (uint8_t)cls;
	q->group = (uint8_t)group;
	q->flags = (uint8_t)flags;
	q->src = (uint32_t)src;
	q->dst = (uint32_t)dst;
	q->seq = (uint32_t)seq;
	q->msg += unzz(msg);
	q->t_inject += unzz(ti);
	q->t_eject += unzz(te);
	q->hops = (uint16_t)hops;
	q->deroutes = (uint16_t)der;
	q->refusals = (uint32_t)ref;
	rec->pkt = *q;
	return (size_t)(p - p0);
}

static size_t get_dlv(mp_pack *pk, const unsigned char *p0, mp_rec *rec)
{
	const unsigned char *p = p0 + 1;
	uint64_t cls, group, src, dst, packets, id, ta, tf, td, bytes, hops;
	GETV(cls, UINT8_MAX);
	GETV(group, UINT8_MAX);
	GETV(src, UINT32_MAX);
	GETV(dst, UINT32_MAX);
	GETV(packets, UINT32_MAX);
	GETV(id, UINT64_MAX);
	GETV(ta, UINT64_MAX);
	GETV(tf, UINT64_MAX);
	GETV(td, UINT64_MAX);
	GETV(bytes, UINT32_MAX);
	GETV(hops, UINT32_MAX);
	struct mp_dlv *q = &pk->prev[MP_REC_DLV].dlv;
	q->tag = MP_REC_DLV;
	q->cls = (uint8_t)cls;
	q->group = (uint8_t)group;
	q->rsv = 0;
	q->src = (uint32_t)src;
	q->dst = (uint32_t)dst;
	q->packets = (uint32_t)packets;
	q->id += unzz(id);
	q->t_arrive += unzz(ta);
	q->t_first += unzz(tf);
	q->t_done += unzz(td);
	q->bytes = (uint32_t)bytes;
	q->hops = (uint32_t)hops;
	rec->dlv = *q;
	return (size_t)(p - p0);
}

size_t mp_pack_put(mp_pack *pk, const mp_rec *rec, unsigned char *out)
{
	if (!(pk->flags & MP_PACK_GENERIC))
		switch (rec->tag) {
		case MP_REC_MSG:
		case MP_REC_INJ:
			return put_msg(pk, &rec->msg, out);
		case MP_REC_PKT:
			return put_pkt(pk, &rec->pkt, out);
		case MP_REC_DLV:
			return put_dlv(pk, &rec->dlv, out);
		default:
			break;
		}
	return put_generic(pk, rec, out);
}

size_t mp_pack_get_fast(mp_pack *pk, const unsigned char *p, size_t n,
			mp_rec *rec)
{
	if (n < ROOM || !pk->tag[p[0]].fast)
		return 0;
	switch (p[0]) {
	case MP_REC_MSG:
	case MP_REC_INJ:
		return get_msg(pk, p, rec);
	case MP_REC_PKT:
		return get_pkt(pk, p, rec);
	case MP_REC_DLV:
		return get_dlv(pk, p, rec);
	default:
		return 0;
	}
}

int mp_pack_get(mp_pack *pk, const unsigned char *p, size_t n, mp_rec *rec,
		size_t *used, mp_err *err)
{
	size_t k = mp_pack_get_fast(pk, p, n, rec);
	if (k) {
		*used = k;
		return 1;
	}
	return get_generic(pk, p, n, rec, used, err);
}
