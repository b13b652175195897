/*
 * Stream headers, and the reader and writer of record streams: raw or
 * zstd-compressed bytes below, records above, fixed-size little-endian
 * or packed (mp_pack.h) as the header says. The only module that
 * includes <zstd.h>.
 */
#include "mp_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "mp_pack.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define MP_BIG_ENDIAN 1
#else
#define MP_BIG_ENDIAN 0
#endif

/* Fixed part of the header, in bytes. */
#define HDR_FIXED 24
#define ZSTD_MAGIC 0xFD2FB528u
#define ZSTD_SKIP_MAGIC 0x184D2A50u /* low 4 bits vary */
/* Header flags: records packed (format 1.1). Other bits are reserved. */
#define HDR_PACKED 0x0001u
/*
 * zstd level of compressed streams. On packed records level 1 costs
 * sched a third less CPU than level 3 for 1% more bytes (netrun's
 * deliveries: 13% less, 3% more); level -1 saves little more time for
 * 14-18% more bytes. The numbers are in pipelines/bench/README.md.
 */
#define ZSTD_LEVEL 1

/* ------------------------------------------------------------------ */
/* Headers                                                             */

struct kv {
	char *key;
	char *val;
};

struct mp_hdr {
	int kind;
	unsigned major, minor;
	struct kv *kv;
	size_t n, cap;
};

mp_hdr *mp_hdr_new(int kind)
{
	mp_hdr *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->kind = kind;
	h->major = MP_FORMAT_MAJOR;
	h->minor = MP_FORMAT_MINOR;
	return h;
}

void mp_hdr_free(mp_hdr *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++) {
		free(h->kv[i].key);
		free(h->kv[i].val);
	}
	free(h->kv);
	free(h);
}

static int hdr_append(mp_hdr *h, const char *key, const char *val)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 16;
		struct kv *kv = realloc(h->kv, cap * sizeof *kv);
		if (!kv)
			return -1;
		h->kv = kv;
		h->cap = cap;
	}
	char *k = strdup(key), *v = strdup(val);
	if (!k || !v) {
		free(k);
		free(v);
		return -1;
	}
	h->kv[h->n].key = k;
	h->kv[h->n].val = v;
	h->n++;
	return 0;
}

mp_hdr *mp_hdr_dup(const mp_hdr *h)
{
	mp_hdr *c = mp_hdr_new(h->kind);
	if (!c)
		return NULL;
	c->major = h->major;
	c->minor = h->minor;
	for (size_t i = 0; i < h->n; i++)
		if (hdr_append(c, h->kv[i].key, h->kv[i].val) < 0) {
			mp_hdr_free(c);
			return NULL;
		}
	return c;
}

int mp_hdr_kind(const mp_hdr *h)
{
	return h->kind;
}

void mp_hdr_set_kind(mp_hdr *h, int kind)
{
	h->kind = kind;
}

unsigned mp_hdr_major(const mp_hdr *h)
{
	return h->major;
}

unsigned mp_hdr_minor(const mp_hdr *h)
{
	return h->minor;
}

const char *mp_hdr_get(const mp_hdr *h, const char *key)
{
	/* The last value wins, so a later stage's setting overrides. */
	for (size_t i = h->n; i-- > 0;)
		if (strcmp(h->kv[i].key, key) == 0)
			return h->kv[i].val;
	return NULL;
}

static int valid_key(const char *k)
{
	if (*k == '\0')
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') ||
		      *k == '_' || *k == '.'))
			return 0;
	return 1;
}

static int valid_value(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

int mp_hdr_set(mp_hdr *h, const char *key, const char *val)
{
	if (!valid_key(key) || !valid_value(val))
		return -1;
	if (strcmp(key, "prov") != 0)
		for (size_t i = 0; i < h->n; i++)
			if (strcmp(h->kv[i].key, key) == 0) {
				char *v = strdup(val);
				if (!v)
					return -1;
				free(h->kv[i].val);
				h->kv[i].val = v;
				return 0;
			}
	return hdr_append(h, key, val);
}

int mp_hdr_setf(mp_hdr *h, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf)
		return -1;
	return mp_hdr_set(h, key, buf);
}

void mp_hdr_unset(mp_hdr *h, const char *key)
{
	size_t j = 0;
	for (size_t i = 0; i < h->n; i++) {
		if (strcmp(h->kv[i].key, key) == 0) {
			free(h->kv[i].key);
			free(h->kv[i].val);
			continue;
		}
		h->kv[j++] = h->kv[i];
	}
	h->n = j;
}

int mp_hdr_deps(const mp_hdr *h)
{
	const char *v = mp_hdr_get(h, "deps");
	return v && strcmp(v, "1") == 0;
}

int mp_hdr_get_u64(const mp_hdr *h, const char *key, uint64_t *v)
{
	const char *s = mp_hdr_get(h, key);
	if (!s)
		return -1;
	return mp_parse_u64(s, 0, UINT64_MAX, v, key, NULL);
}

int mp_hdr_get_double(const mp_hdr *h, const char *key, double *v)
{
	const char *s = mp_hdr_get(h, key);
	if (!s)
		return -1;
	return mp_parse_double(s, -1e300, 1e300, 0, v, key, NULL);
}

/* Append s to buf (size cap, used *len), shell-quoted when needed. */
static void quote_arg(char *buf, size_t cap, size_t *len, const char *s)
{
	int plain = *s != '\0';
	for (const char *p = s; *p; p++)
		if (!(((*p | 32) >= 'a' && (*p | 32) <= 'z') ||
		      (*p >= '0' && *p <= '9') || strchr("-_.,:/=%+@", *p)))
			plain = 0;
	if (plain) {
		*len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0,
					 "%s", s);
	} else {
		*len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0,
					 "'");
		for (const char *p = s; *p; p++) {
			unsigned char c = (unsigned char)*p;
			if (c == '\'')
				*len += (size_t)snprintf(buf + *len,
						*len < cap ? cap - *len : 0, "'\\''");
			else if (c < 0x20 || c == 0x7f)
				*len += (size_t)snprintf(buf + *len,
						*len < cap ? cap - *len : 0, "?");
			else if (*len + 1 < cap)
				buf[(*len)++] = (char)c, buf[*len] = '\0';
		}
		*len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0,
					 "'");
	}
}

int mp_hdr_add_prov(mp_hdr *h, const char *prog, int argc, char *const argv[],
		    int has_seed, uint64_t seed)
{
	char buf[8192];
	size_t len = 0;

	len += (size_t)snprintf(buf, sizeof buf, "%s %s", prog, MP_VERSION);
	if (has_seed)
		len += (size_t)snprintf(buf + len,
					len < sizeof buf ? sizeof buf - len : 0,
					" seed=%llu", (unsigned long long)seed);
	len += (size_t)snprintf(buf + len, len < sizeof buf ? sizeof buf - len : 0,
				" args=");
	for (int i = 0; i < argc && len < sizeof buf; i++) {
		if (i > 0 && len + 1 < sizeof buf)
			buf[len++] = ' ', buf[len] = '\0';
		quote_arg(buf, sizeof buf, &len, argv[i]);
	}
	if (len >= sizeof buf) {
		/* Keep the head of a very long command line. */
		memcpy(buf + sizeof buf - 5, " ...", 5);
	}
	return mp_hdr_set(h, "prov", buf);
}

size_t mp_hdr_count(const mp_hdr *h)
{
	return h->n;
}

const char *mp_hdr_key(const mp_hdr *h, size_t i)
{
	return i < h->n ? h->kv[i].key : NULL;
}

const char *mp_hdr_value(const mp_hdr *h, size_t i)
{
	return i < h->n ? h->kv[i].val : NULL;
}

/* Serialize the metadata, with this version's record layouts. */
static char *hdr_meta(const mp_hdr *h, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return NULL;

	for (int pass = 0; pass < 2; pass++) {
		size_t count = pass == 0 ? h->n : MP_REC_NTAGS;
		for (size_t i = 0; i < count; i++) {
			char line[2048];
			int n;
			if (pass == 0) {
				if (strncmp(h->kv[i].key, "layout.", 7) == 0)
					continue;
				n = snprintf(line, sizeof line, "%s=%s\n",
					     h->kv[i].key, h->kv[i].val);
				if (n < 0 || (size_t)n >= sizeof line) {
					/* Long values (provenance) written directly. */
					size_t need = strlen(h->kv[i].key) +
						      strlen(h->kv[i].val) + 2;
					while (len + need + 1 > cap) {
						char *nb = realloc(buf, cap *= 2);
						if (!nb)
							return free(buf), NULL;
						buf = nb;
					}
					len += (size_t)sprintf(buf + len, "%s=%s\n",
							       h->kv[i].key,
							       h->kv[i].val);
					continue;
				}
			} else {
				size_t nf;
				const struct mp_field *f = mp_rec_fields((int)i, &nf);
				if (!f)
					continue;
				/* dep and rel records: in deps streams only, so
				 * that other streams stay format 1.1. */
				if ((i == MP_REC_DEP || i == MP_REC_REL) &&
				    !mp_hdr_deps(h))
					continue;
				n = snprintf(line, sizeof line, "layout.%zu=%s %zu",
					     i, mp_rec_name((int)i),
					     mp_rec_size((int)i));
				for (size_t k = 0; k < nf && n > 0 &&
						   (size_t)n < sizeof line; k++)
					n += snprintf(line + n, sizeof line - (size_t)n,
						      " %s:u%d@%u", f[k].name,
						      8 * f[k].type, f[k].off);
				if (n > 0 && (size_t)n < sizeof line - 1)
					line[n++] = '\n', line[n] = '\0';
			}
			while (len + (size_t)n + 1 > cap) {
				char *nb = realloc(buf, cap *= 2);
				if (!nb)
					return free(buf), NULL;
				buf = nb;
			}
			memcpy(buf + len, line, (size_t)n + 1);
			len += (size_t)n;
		}
	}
	*lenp = len;
	return buf;
}

/* ------------------------------------------------------------------ */
/* Reader                                                              */

enum { MODE_UNDECIDED, MODE_RAW, MODE_ZSTD };

#define INBUF (1u << 17)
#define PBUF (1u << 17)

struct mp_reader {
	int fd, own_fd;
	char *name;
	char err[768];
	/* Bytes from the descriptor. */
	unsigned char *in;
	size_t in_pos, in_len;
	int eof;
	/* Decompressed bytes (zstd mode). */
	ZSTD_DCtx *dctx;
	unsigned char *pb;
	size_t p_pos, p_len;
	int mode, frame_open, compressed;
	/* Stream state. */
	mp_hdr *hdr;           /* first stream's header */
	int packed;            /* this stream's records are packed */
	int first_packed;      /* the first stream's were */
	mp_pack *pk;           /* their decoder, made on first use */
	size_t size[256];      /* declared record sizes of this stream */
	uint64_t recno;        /* records returned */
	uint64_t seen[MP_REC_NTAGS];     /* in this stream */
	uint64_t declared[MP_REC_NTAGS]; /* summed over trailers */
	uint64_t nodes;        /* 0 when the header does not say */
	uint64_t last_time;    /* of MSG/INJ records, for ordering */
	int deps;              /* this stream says deps=1 */
	int self_ok;           /* dest=any: messages to their own source */
	int after_end;         /* the last record was a trailer */
	unsigned streams;
	int failed;
};

MP_PRINTF(2, 3)
static int rfail(mp_reader *r, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof r->err, "%s: %s", r->name, what);
	r->failed = 1;
	return -1;
}

MP_PRINTF(2, 3)
static int rfail_rec(mp_reader *r, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof r->err, "%s: record %llu: %s", r->name,
		 (unsigned long long)r->recno + 1, what);
	r->failed = 1;
	return -1;
}

/*
 * A failure of the bytes below the records (decompression): located at
 * the record being read once a stream's header is in, so a truncated or
 * corrupt compressed stream is reported like a raw one.
 */
MP_PRINTF(2, 3)
static int rfail_at(mp_reader *r, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (r->hdr && !r->after_end)
		return rfail_rec(r, "%s", what);
	return rfail(r, "%s", what);
}

/* Read more descriptor bytes; returns bytes read, 0 at EOF, -1 on error. */
static ssize_t fill_in(mp_reader *r)
{
	if (r->eof)
		return 0;
	if (r->in_pos > 0 && r->in_pos == r->in_len)
		r->in_pos = r->in_len = 0;
	if (r->in_len == INBUF) {
		memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
		r->in_len -= r->in_pos;
		r->in_pos = 0;
	}
	for (;;) {
		ssize_t n = read(r->fd, r->in + r->in_len, INBUF - r->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rfail(r, "read failed: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			r->eof = 1;
		r->in_len += (size_t)n;
		return n;
	}
}

/* Decide raw or zstd from the next 4 input bytes. 0, 1 at EOF, -1. */
static int decide_mode(mp_reader *r)
{
	while (r->in_len - r->in_pos < 4 && !r->eof) {
		if (r->in_pos > 0) {
			memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
			r->in_len -= r->in_pos;
			r->in_pos = 0;
		}
		if (fill_in(r) < 0)
			return -1;
	}
	size_t avail = r->in_len - r->in_pos;
	if (avail == 0)
		return 1;
	uint32_t m = avail >= 4 ? mp_le32(r->in + r->in_pos) : 0;
	if (m == ZSTD_MAGIC || (m & 0xFFFFFFF0u) == ZSTD_SKIP_MAGIC) {
		r->mode = MODE_ZSTD;
		r->frame_open = 0;
		if (r->streams == 0)
			r->compressed = 1;
		if (!r->dctx && !(r->dctx = ZSTD_createDCtx()))
			return rfail(r, "out of memory");
		if (!r->pb && !(r->pb = malloc(PBUF)))
			return rfail(r, "out of memory");
	} else {
		r->mode = MODE_RAW;
	}
	return 0;
}

/*
 * Make n plain bytes (n <= INBUF, PBUF) contiguous at the read position
 * and return them; NULL at EOF (r->failed tells an error), with *got the
 * number of bytes that were available.
 */
static const unsigned char *need(mp_reader *r, size_t n, size_t *got)
{
	for (;;) {
		if (r->mode == MODE_UNDECIDED) {
			int d = decide_mode(r);
			if (d != 0) {
				*got = 0;
				return NULL;
			}
		}
		if (r->mode == MODE_RAW) {
			if (r->in_len - r->in_pos >= n)
				return r->in + r->in_pos;
			if (r->eof) {
				*got = r->in_len - r->in_pos;
				return NULL;
			}
			if (r->in_pos + n > INBUF) {
				memmove(r->in, r->in + r->in_pos, r->in_len - r->in_pos);
				r->in_len -= r->in_pos;
				r->in_pos = 0;
			}
			if (fill_in(r) < 0) {
				*got = 0;
				return NULL;
			}
			continue;
		}
		/* zstd */
		if (r->p_len - r->p_pos >= n)
			return r->pb + r->p_pos;
		if (r->p_pos > 0) {
			memmove(r->pb, r->pb + r->p_pos, r->p_len - r->p_pos);
			r->p_len -= r->p_pos;
			r->p_pos = 0;
		}
		if (!r->frame_open && r->p_len == r->p_pos) {
			/* Between frames with nothing pending: the next bytes
			 * may start another frame, a raw stream, or nothing. */
			int d = decide_mode(r);
			if (d != 0) {
				*got = 0;
				return NULL;
			}
			if (r->mode == MODE_RAW)
				continue;
		}
		if (r->in_pos == r->in_len) {
			if (r->eof || fill_in(r) <= 0) {
				*got = r->failed ? 0 : r->p_len - r->p_pos;
				if (!r->failed && r->frame_open)
					rfail_at(r, "compressed input is truncated");
				return NULL;
			}
		}
		ZSTD_inBuffer ib = { r->in, r->in_len, r->in_pos };
		ZSTD_outBuffer ob = { r->pb, PBUF, r->p_len };
		size_t ret = ZSTD_decompressStream(r->dctx, &ob, &ib);
		r->in_pos = ib.pos;
		r->p_len = ob.pos;
		if (ZSTD_isError(ret)) {
			rfail_at(r, "corrupt compressed input: %s",
				 ZSTD_getErrorName(ret));
			*got = 0;
			return NULL;
		}
		r->frame_open = ret != 0;
	}
}

/* The read position in the plain bytes, and how many are there
 * contiguously without reading more (mode raw or zstd). */
static inline const unsigned char *here(const mp_reader *r)
{
	return r->mode == MODE_RAW ? r->in + r->in_pos : r->pb + r->p_pos;
}

static inline size_t buffered(const mp_reader *r)
{
	return r->mode == MODE_RAW ? r->in_len - r->in_pos : r->p_len - r->p_pos;
}

/* need(), with its common case inline: the bytes are there already. */
static inline const unsigned char *need_fast(mp_reader *r, size_t n,
					     size_t *got)
{
	if (r->mode != MODE_UNDECIDED && buffered(r) >= n)
		return here(r);
	return need(r, n, got);
}

static void consume(mp_reader *r, size_t n)
{
	if (r->mode == MODE_RAW)
		r->in_pos += n;
	else
		r->p_pos += n;
}

/* Copy n plain bytes of any length into dst. 0, or -1 (truncated). */
static int read_bytes(mp_reader *r, unsigned char *dst, size_t n)
{
	while (n > 0) {
		size_t chunk = n < 4096 ? n : 4096, got;
		const unsigned char *p = need(r, chunk, &got);
		if (!p) {
			if (got == 0 || got >= chunk)
				return -1;
			/* Take what there is; the next need() reports EOF. */
			chunk = got;
			p = r->mode == MODE_RAW ? r->in + r->in_pos : r->pb + r->p_pos;
			memcpy(dst, p, chunk);
			consume(r, chunk);
			dst += chunk;
			n -= chunk;
			continue;
		}
		memcpy(dst, p, chunk);
		consume(r, chunk);
		dst += chunk;
		n -= chunk;
	}
	return 0;
}

/*
 * Parse "layout.N=name size fields..." lines into r->size, and for a
 * packed stream, the field lists into its decoder.
 */
static int parse_layouts(mp_reader *r, const mp_hdr *h)
{
	if (r->packed) {
		if (!r->pk && !(r->pk = mp_pack_new(0)))
			return rfail(r, "out of memory");
		mp_pack_reset(r->pk);
	}
	memset(r->size, 0, sizeof r->size);
	for (int t = 1; t < MP_REC_NTAGS; t++)
		r->size[t] = mp_rec_size(t);
	/* Only a header that declares them admits dep and rel records. */
	r->size[MP_REC_DEP] = r->size[MP_REC_REL] = 0;
	for (size_t i = 0; i < h->n; i++) {
		const char *k = h->kv[i].key;
		if (strncmp(k, "layout.", 7) != 0)
			continue;
		uint64_t tag, size;
		char name[64];
		int fields = 0; /* where the field list starts, after the size */
		if (mp_parse_u64(k + 7, 1, 255, &tag, k, NULL) < 0)
			return rfail(r, "header: bad layout key '%s'", k);
		if (sscanf(h->kv[i].val, "%63s %" SCNu64 "%n", name, &size,
			   &fields) != 2 || size < 1 || size > 4096)
			return rfail(r, "header: bad layout of record tag %d",
				     (int)tag);
		if (tag < MP_REC_NTAGS) {
			size_t ours = mp_rec_size((int)tag);
			if (strcmp(name, mp_rec_name((int)tag)) != 0)
				return rfail(r, "header: record tag %d is '%s', "
						"expected '%s'", (int)tag, name,
					     mp_rec_name((int)tag));
			if (size < ours)
				return rfail(r, "header: %s records are %d bytes, "
						"expected at least %zu", name,
					     (int)size, ours);
		}
		r->size[tag] = (size_t)size;
		if (r->packed) {
			mp_err err;
			if (mp_pack_declare(r->pk, (int)tag, size,
					    h->kv[i].val + fields, &err) < 0)
				return rfail(r, "header: %s", err.msg);
		}
	}
	return 0;
}

/*
 * Read a stream header at the current position into a new mp_hdr.
 * Returns the header, or NULL (message in r). first tells whether this
 * is the start of input (EOF there is "empty input"); *packed receives
 * whether the stream's records are packed.
 */
static mp_hdr *read_header(mp_reader *r, int first, int *packed)
{
	unsigned char fixed[HDR_FIXED];
	size_t got;
	const unsigned char *p = need(r, HDR_FIXED, &got);

	if (!p) {
		if (r->failed)
			return NULL;
		if (first && got == 0)
			rfail(r, "empty input: no stream header");
		else
			rfail(r, "truncated stream header (%zu of %d bytes)", got,
			      HDR_FIXED);
		return NULL;
	}
	memcpy(fixed, p, HDR_FIXED);
	if (memcmp(fixed, MP_MAGIC, 4) != 0) {
		rfail(r, "not a meshpipe stream (bad magic)");
		return NULL;
	}
	consume(r, HDR_FIXED);
	unsigned major = mp_le16(fixed + 4), minor = mp_le16(fixed + 6);
	unsigned kind = mp_le16(fixed + 8), flags = mp_le16(fixed + 10);
	uint32_t meta_len = mp_le32(fixed + 12);
	uint32_t crc = mp_le32(fixed + 16);
	uint32_t rsv = mp_le32(fixed + 20);

	if (major > MP_FORMAT_MAJOR) {
		rfail(r, "stream format version %u.%u is newer than this "
			 "program's %d.%d: upgrade meshpipe to read it",
		      major, minor, MP_FORMAT_MAJOR, MP_FORMAT_MINOR);
		return NULL;
	}
	if (major < 1) {
		rfail(r, "stream format version %u.%u is not supported", major,
		      minor);
		return NULL;
	}
	if ((flags & ~HDR_PACKED) != 0 || rsv != 0) {
		rfail(r, "header: reserved bits are set (corrupt header?)");
		return NULL;
	}
	if (kind < 1 || kind > MP_KIND_MAX) {
		rfail(r, "header: unknown stream kind %u", kind);
		return NULL;
	}
	if (meta_len > MP_META_MAX) {
		rfail(r, "header: metadata of %u bytes is too large", meta_len);
		return NULL;
	}
	unsigned char *meta = malloc(meta_len + 1);
	if (!meta) {
		rfail(r, "out of memory");
		return NULL;
	}
	if (read_bytes(r, meta, meta_len) < 0) {
		free(meta);
		if (!r->failed)
			rfail(r, "truncated stream header (metadata)");
		return NULL;
	}
	meta[meta_len] = '\0';
	uint32_t c = mp_crc32(0, fixed, 16);
	c = mp_crc32(c, fixed + 20, 4);
	c = mp_crc32(c, meta, meta_len);
	if (c != crc) {
		free(meta);
		rfail(r, "header: checksum mismatch (corrupt header)");
		return NULL;
	}
	mp_hdr *h = mp_hdr_new((int)kind);
	if (!h) {
		free(meta);
		rfail(r, "out of memory");
		return NULL;
	}
	h->major = major;
	h->minor = minor;
	*packed = (flags & HDR_PACKED) != 0;
	char *s = (char *)meta, *end = s + meta_len;
	unsigned line = 0;
	while (s < end) {
		char *nl = memchr(s, '\n', (size_t)(end - s));
		line++;
		if (!nl) {
			rfail(r, "header: metadata line %u is not terminated", line);
			goto bad;
		}
		*nl = '\0';
		char *eq = strchr(s, '=');
		if (!eq) {
			rfail(r, "header: metadata line %u has no '='", line);
			goto bad;
		}
		*eq = '\0';
		if (!valid_key(s) || !valid_value(eq + 1)) {
			rfail(r, "header: metadata line %u is malformed", line);
			goto bad;
		}
		if (hdr_append(h, s, eq + 1) < 0) {
			rfail(r, "out of memory");
			goto bad;
		}
		s = nl + 1;
	}
	free(meta);
	return h;
bad:
	free(meta);
	mp_hdr_free(h);
	return NULL;
}

/* Set up per-stream state from a freshly read header. */
static int begin_stream(mp_reader *r, mp_hdr *h, int packed)
{
	r->packed = packed;
	if (r->streams == 0)
		r->first_packed = packed;
	if (parse_layouts(r, h) < 0)
		return -1;
	const char *nodes = mp_hdr_get(h, "nodes");
	uint64_t n = 0;
	if (nodes && (mp_parse_u64(nodes, 1, UINT32_MAX, &n, "nodes", NULL) < 0))
		return rfail(r, "header: bad node count '%s'", nodes);
	if (r->streams > 0) {
		if (h->kind != r->hdr->kind)
			return rfail(r, "concatenated stream %u is of kind %s, the "
					"first is %s", r->streams + 1,
				     mp_kind_name(h->kind),
				     mp_kind_name(r->hdr->kind));
		if (n != r->nodes)
			return rfail(r, "concatenated stream %u is for %llu nodes, "
					"the first for %llu", r->streams + 1,
				     (unsigned long long)n,
				     (unsigned long long)r->nodes);
		if (mp_hdr_deps(h) != r->deps)
			return rfail(r, "concatenated stream %u %s dependencies, "
					"the first %s", r->streams + 1,
				     r->deps ? "has no" : "has",
				     r->deps ? "has" : "has none");
	}
	r->nodes = n;
	r->deps = mp_hdr_deps(h);
	{
		const char *d = mp_hdr_get(h, "dest");
		r->self_ok = d && strcmp(d, "any") == 0;
	}
	memset(r->seen, 0, sizeof r->seen);
	r->after_end = 0;
	r->streams++;
	return 0;
}

mp_reader *mp_reader_fdopen(int fd, const char *name, mp_err *err)
{
	mp_reader *r = calloc(1, sizeof *r);
	if (!r) {
		mp_err_set(err, "%s: out of memory", name);
		return NULL;
	}
	r->fd = fd;
	r->name = strdup(name);
	r->in = malloc(INBUF);
	if (!r->name || !r->in) {
		mp_err_set(err, "%s: out of memory", name);
		mp_reader_close(r);
		return NULL;
	}
	int packed = 0;
	r->hdr = read_header(r, 1, &packed);
	if (!r->hdr || begin_stream(r, r->hdr, packed) < 0) {
		mp_err_set(err, "%s", r->err);
		mp_reader_close(r);
		return NULL;
	}
	return r;
}

mp_reader *mp_reader_open(const char *path, mp_err *err)
{
	if (!path || strcmp(path, "-") == 0)
		return mp_reader_fdopen(0, "stdin", err);
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		mp_err_set(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	mp_reader *r = mp_reader_fdopen(fd, path, err);
	if (!r)
		close(fd);
	else
		r->own_fd = 1;
	return r;
}

const mp_hdr *mp_reader_header(const mp_reader *r)
{
	return r->hdr;
}

/* Swap a record read on a big-endian host into host order. */
static void rec_from_wire(mp_rec *rec)
{
#if MP_BIG_ENDIAN
	size_t n;
	const struct mp_field *f = mp_rec_fields(rec->tag, &n);
	unsigned char tmp[64];
	memcpy(tmp, rec->raw, sizeof tmp);
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = tmp + f[i].off;
		uint64_t v = f[i].type == 1 ? p[0] : f[i].type == 2 ? mp_le16(p) :
			     f[i].type == 4 ? mp_le32(p) : mp_le64(p);
		mp_rec_set(rec, &f[i], v);
	}
#else
	(void)rec;
#endif
}

/* Write rec, of `size` bytes (mp_rec_size of its tag), to out. */
static void rec_to_wire(const mp_rec *rec, unsigned char *out, size_t size)
{
#if MP_BIG_ENDIAN
	size_t n;
	const struct mp_field *f = mp_rec_fields(rec->tag, &n);
	memset(out, 0, size);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = mp_rec_get(rec, &f[i]);
		unsigned char *p = out + f[i].off;
		if (f[i].type == 1)
			p[0] = (unsigned char)v;
		else if (f[i].type == 2)
			mp_put16(p, (uint16_t)v);
		else if (f[i].type == 4)
			mp_put32(p, (uint32_t)v);
		else
			mp_put64(p, v);
	}
#else
	memcpy(out, rec->raw, size);
#endif
}

/*
 * Checks every reader makes, so every program rejects the same way.
 * Inline in each of mp_reader_next's paths: a call costs a record some
 * 20 instructions.
 */
__attribute__((always_inline))
static inline int validate(mp_reader *r, const mp_rec *rec)
{
	switch (rec->tag) {
	case MP_REC_MSG:
	case MP_REC_INJ: {
		const struct mp_msg *m = &rec->msg;
		if (m->packets == 0)
			return rfail_rec(r, "message %llu has zero length",
					 (unsigned long long)m->id);
		if (r->nodes && m->src >= r->nodes)
			return rfail_rec(r, "source %u out of range (%llu nodes)",
					 m->src, (unsigned long long)r->nodes);
		if (r->nodes && m->dst >= r->nodes)
			return rfail_rec(r, "destination %u out of range (%llu "
					    "nodes)", m->dst,
					 (unsigned long long)r->nodes);
		/* In a deps stream netrun delivers such a message locally;
		 * with dest=any (an indirect network) it crosses it. */
		if (m->src == m->dst && !r->deps && !r->self_ok)
			return rfail_rec(r, "message %llu is sent to its own "
					    "source %u", (unsigned long long)m->id,
					 m->src);
		if (m->cls > MP_CLASS_GT)
			return rfail_rec(r, "unknown traffic class %u", m->cls);
		if (m->group > MP_GROUP_HOT)
			return rfail_rec(r, "unknown source group %u", m->group);
		if (m->route > MP_ROUTE_ADAPTIVE)
			return rfail_rec(r, "unknown routing choice %u", m->route);
		if (m->time > MP_TIME_MAX)
			return rfail_rec(r, "time %llu out of range (at most %llu)",
					 (unsigned long long)m->time,
					 (unsigned long long)MP_TIME_MAX);
		if (m->time < r->last_time)
			return rfail_rec(r, "out of time order: time %llu after %llu",
					 (unsigned long long)m->time,
					 (unsigned long long)r->last_time);
		r->last_time = m->time;
		break;
	}
	case MP_REC_PKT:
	case MP_REC_DLV:
		if (r->nodes && (rec->pkt.src >= r->nodes || rec->pkt.dst >= r->nodes))
			return rfail_rec(r, "node %u out of range (%llu nodes)",
					 rec->pkt.src >= r->nodes ? rec->pkt.src :
								    rec->pkt.dst,
					 (unsigned long long)r->nodes);
		if (rec->tag == MP_REC_PKT &&
		    rec->pkt.t_eject < rec->pkt.t_inject)
			return rfail_rec(r, "packet ejected before it was injected");
		if (rec->tag == MP_REC_DLV &&
		    (rec->dlv.t_done < rec->dlv.t_first ||
		     rec->dlv.t_first < rec->dlv.t_arrive || rec->dlv.packets == 0))
			return rfail_rec(r, "inconsistent message delivery times");
		if (rec->tag == MP_REC_DLV && rec->dlv.rsv != 0)
			return rfail_rec(r, "reserved field is not zero");
		break;
	case MP_REC_UTIL:
		if (rec->util.scope > MP_UTIL_INTERNAL_INPUT_END ||
		    rec->util.rsv != 0)
			return rfail_rec(r, "bad utilization record");
		if (rec->util.refused > rec->util.busy)
			return rfail_rec(r, "refused time exceeds busy time");
		break;
	case MP_REC_RUN:
		if (rec->run.status > MP_RUN_STOPPED || rec->run.rsv != 0)
			return rfail_rec(r, "bad run record");
		break;
	case MP_REC_DEP:
		if (rec->dep.n > MP_DEP_IDS || rec->dep.rsv != 0 ||
		    (rec->dep.n == 0 && rec->dep.users == 0))
			return rfail_rec(r, "bad dep record");
		for (int k = rec->dep.n; k < MP_DEP_IDS; k++)
			if (rec->dep.after[k] != 0)
				return rfail_rec(r, "bad dep record");
		break;
	case MP_REC_REL:
		if (rec->rel.rsv != 0 || rec->rel.rsv2 != 0 ||
		    rec->rel.t_release < rec->rel.t_trace)
			return rfail_rec(r, "bad rel record");
		break;
	default:
		break;
	}
	return 0;
}

/* A record decoded: the checks, then it counts and is returned. */
__attribute__((always_inline))
static inline int deliver(mp_reader *r, const mp_rec *rec)
{
	if (validate(r, rec) < 0)
		return -1;
	r->seen[rec->tag]++;
	r->recno++;
	return 1;
}

/*
 * Decode the packed record whose first byte is at p into *rec: 1, or
 * MP_PACK_SKIPPED for a record of a newer version's kind, or -1. A
 * record may go on past the bytes at hand: then more are made
 * contiguous, and decoding starts over (rarely: once a buffer).
 */
static int read_packed(mp_reader *r, const unsigned char *p, mp_rec *rec)
{
	size_t n = buffered(r), used, got;
	mp_err err;
	for (;;) {
		int rc = mp_pack_get(r->pk, p, n, rec, &used, &err);
		if (rc == MP_PACK_SHORT) {
			p = need(r, n + 1, &got);
			if (!p)
				return r->failed ? -1 : rfail_rec(r, "%s", err.msg);
			n = buffered(r);
			continue;
		}
		if (rc == MP_PACK_BAD)
			return rfail_rec(r, "%s", err.msg);
		consume(r, used);
		return rc;
	}
}

/* mp_reader_next, all of it: raw records, trailers, the next stream,
 * reading more, faults. */
__attribute__((noinline))
static int next_slow(mp_reader *r, mp_rec *rec)
{
	if (r->failed)
		return -1;
	for (;;) {
		size_t got;
		const unsigned char *p = need_fast(r, 1, &got);
		if (!p) {
			if (r->failed)
				return -1;
			if (r->after_end)
				return 0;
			return rfail_rec(r, "stream cut short: no trailer after "
					    "%llu records",
					 (unsigned long long)r->recno);
		}
		if (r->after_end) {
			/* Another stream follows: header, then records. */
			int packed = 0;
			mp_hdr *h = read_header(r, 0, &packed);
			if (!h)
				return -1;
			int rc = begin_stream(r, h, packed);
			mp_hdr_free(h);
			if (rc < 0)
				return -1;
			continue;
		}
		int tag = p[0];
		if (r->packed) {
			int rc = read_packed(r, p, rec);
			if (rc < 0)
				return -1;
			if (rc == MP_PACK_SKIPPED)
				continue;
		} else {
			size_t size = r->size[tag];
			if (size == 0)
				return rfail_rec(r, "unknown record tag %d", tag);
			p = need_fast(r, size, &got);
			if (!p) {
				if (r->failed)
					return -1;
				return rfail_rec(r, "truncated %s record (%zu of "
						    "%zu bytes)",
						 tag < MP_REC_NTAGS ?
							 mp_rec_name(tag) :
							 "unknown",
						 got, size);
			}
			if (tag >= MP_REC_NTAGS) {
				/* A record kind of a newer minor version. */
				consume(r, size);
				continue;
			}
			memcpy(rec->raw, p, mp_rec_size(tag));
			consume(r, size);
			rec_from_wire(rec);
		}
		if (tag == MP_REC_END) {
			for (int t = 1; t < MP_REC_END; t++) {
				if (rec->end.count[t - 1] != r->seen[t])
					return rfail_rec(r, "trailer says %llu %s "
							    "records, read %llu",
							 (unsigned long long)
								 rec->end.count[t - 1],
							 mp_rec_name(t),
							 (unsigned long long)r->seen[t]);
				r->declared[t] += rec->end.count[t - 1];
			}
			for (int i = 0; i < 7; i++)
				if (rec->end.rsv[i])
					return rfail_rec(r, "reserved field is not "
							    "zero");
			r->after_end = 1;
			/* Trailers are numbered but not returned. */
			r->recno++;
			if (r->mode == MODE_RAW)
				r->mode = MODE_UNDECIDED;
			continue;
		}
		return deliver(r, rec);
	}
}

/*
 * The common cases of mp_reader_next, each in a function of its own so
 * that one costs the other nothing: a record whole in the plain bytes
 * at hand, of a stream not yet ended (after a trailer come a header's
 * bytes), packed (msg, inj, pkt or dlv) or fixed-size (a kind of this
 * version, not the trailer). Anything else, and any fault, is for
 * next_slow.
 */
__attribute__((noinline))
static int next_packed(mp_reader *r, mp_rec *rec)
{
	if (!r->failed && !r->after_end && r->mode != MODE_UNDECIDED) {
		size_t used = mp_pack_get_fast(r->pk, here(r), buffered(r), rec);
		if (used) {
			consume(r, used);
			return deliver(r, rec);
		}
	}
	return next_slow(r, rec);
}

__attribute__((noinline))
static int next_fixed(mp_reader *r, mp_rec *rec)
{
	if (!r->failed && !r->after_end && r->mode != MODE_UNDECIDED) {
		const unsigned char *p = here(r);
		size_t n = buffered(r);
		int tag = n > 0 ? p[0] : 0;
		size_t size = r->size[tag];
		if (tag >= 1 && tag < MP_REC_END && size > 0 && n >= size) {
			memcpy(rec->raw, p, mp_rec_size(tag));
			consume(r, size);
			rec_from_wire(rec);
			return deliver(r, rec);
		}
	}
	return next_slow(r, rec);
}

int mp_reader_next(mp_reader *r, mp_rec *rec)
{
	return r->packed ? next_packed(r, rec) : next_fixed(r, rec);
}

const char *mp_reader_error(const mp_reader *r)
{
	return r->err;
}

uint64_t mp_reader_recno(const mp_reader *r)
{
	return r->recno;
}

const char *mp_reader_name(const mp_reader *r)
{
	return r->name;
}

int mp_reader_compressed(const mp_reader *r)
{
	return r->compressed;
}

int mp_reader_packed(const mp_reader *r)
{
	return r->first_packed;
}

uint64_t mp_reader_declared(const mp_reader *r, int tag)
{
	return tag > 0 && tag < MP_REC_NTAGS ? r->declared[tag] : 0;
}

unsigned mp_reader_streams(const mp_reader *r)
{
	return r->streams;
}

void mp_reader_close(mp_reader *r)
{
	if (!r)
		return;
	if (r->own_fd)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	mp_pack_free(r->pk);
	mp_hdr_free(r->hdr);
	free(r->in);
	free(r->pb);
	free(r->name);
	free(r);
}

/* ------------------------------------------------------------------ */
/* Writer                                                              */

#define WBUF (1u << 17)
_Static_assert(sizeof(mp_rec) <= MP_PACK_MAX, "room for a raw record");

struct mp_writer {
	int fd;
	char *name;
	char *tmp;         /* -o's temporary name until the close renames it */
	char err[768];
	int raw, failed;
	ZSTD_CCtx *cctx;
	mp_pack *pk;       /* records packed (compressed streams) */
	unsigned char *wb; /* plain bytes not yet compressed or written */
	size_t w_len;
	unsigned char *ob; /* compressed bytes */
	size_t ob_cap;
	uint64_t count[MP_REC_NTAGS];
	int deps; /* the header says deps=1: dep and rel records allowed */
};

MP_PRINTF(2, 3)
static int wfail(mp_writer *w, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(w->err, sizeof w->err, "%s: %s", w->name, what);
	w->failed = 1;
	return -1;
}

static int write_all(mp_writer *w, const unsigned char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(w->fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return wfail(w, "write failed: %s", strerror(errno));
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Compress or write the plain buffer with the given zstd directive. */
static int drain(mp_writer *w, ZSTD_EndDirective mode)
{
	if (w->failed)
		return -1;
	if (w->raw) {
		int rc = write_all(w, w->wb, w->w_len);
		w->w_len = 0;
		return rc;
	}
	ZSTD_inBuffer ib = { w->wb, w->w_len, 0 };
	for (;;) {
		ZSTD_outBuffer ob = { w->ob, w->ob_cap, 0 };
		size_t left = ZSTD_compressStream2(w->cctx, &ob, &ib, mode);
		if (ZSTD_isError(left))
			return wfail(w, "compression failed: %s",
				     ZSTD_getErrorName(left));
		if (ob.pos && write_all(w, w->ob, ob.pos) < 0)
			return -1;
		if (mode == ZSTD_e_continue ? ib.pos == ib.size : left == 0)
			break;
	}
	w->w_len = 0;
	return 0;
}

static int wput(mp_writer *w, const unsigned char *p, size_t n)
{
	while (n > 0) {
		if (w->w_len == WBUF && drain(w, ZSTD_e_continue) < 0)
			return -1;
		size_t k = WBUF - w->w_len < n ? WBUF - w->w_len : n;
		memcpy(w->wb + w->w_len, p, k);
		w->w_len += k;
		p += k;
		n -= k;
	}
	return 0;
}

mp_writer *mp_writer_open(const char *path, const mp_hdr *h, int flags,
			  mp_err *err)
{
	int to_stdout = !path || strcmp(path, "-") == 0;
	const char *name = to_stdout ? "stdout" : path;
	mp_writer *w = calloc(1, sizeof *w);
	if (!w) {
		mp_err_set(err, "%s: out of memory", name);
		return NULL;
	}
	w->fd = -1;
	w->name = strdup(name);
	w->wb = malloc(WBUF);
	w->raw = flags & MP_W_RAW;
	w->deps = mp_hdr_deps(h);
	if (!w->name || !w->wb)
		goto oom;
	if (!w->raw) {
		w->cctx = ZSTD_createCCtx();
		w->ob_cap = ZSTD_CStreamOutSize();
		w->ob = malloc(w->ob_cap);
		w->pk = mp_pack_new(0);
		if (!w->cctx || !w->ob || !w->pk)
			goto oom;
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
				       ZSTD_LEVEL);
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	}
	if (to_stdout) {
		w->fd = 1;
	} else {
		w->fd = mp_tmpout_open(path, &w->tmp, err);
		if (w->fd < 0) {
			mp_writer_abort(w);
			return NULL;
		}
	}

	size_t meta_len;
	char *meta = hdr_meta(h, &meta_len);
	if (!meta)
		goto oom;
	unsigned char fixed[HDR_FIXED];
	memcpy(fixed, MP_MAGIC, 4);
	mp_put16(fixed + 4, MP_FORMAT_MAJOR);
	mp_put16(fixed + 6, mp_hdr_deps(h) ? MP_FORMAT_MINOR_DEPS :
					    MP_FORMAT_MINOR);
	mp_put16(fixed + 8, (uint16_t)h->kind);
	mp_put16(fixed + 10, w->pk ? HDR_PACKED : 0);
	mp_put32(fixed + 12, (uint32_t)meta_len);
	mp_put32(fixed + 20, 0);
	uint32_t c = mp_crc32(0, fixed, 16);
	c = mp_crc32(c, fixed + 20, 4);
	c = mp_crc32(c, meta, meta_len);
	mp_put32(fixed + 16, c);
	int rc = wput(w, fixed, HDR_FIXED);
	if (rc == 0)
		rc = wput(w, (unsigned char *)meta, meta_len);
	free(meta);
	if (rc < 0) {
		mp_err_set(err, "%s", w->err);
		mp_writer_abort(w);
		return NULL;
	}
	return w;
oom:
	mp_err_set(err, "%s: out of memory", name);
	mp_writer_abort(w);
	return NULL;
}

/* A fixed-size record, with room for it. */
__attribute__((noinline))
static int put_raw(mp_writer *w, const mp_rec *rec)
{
	size_t size = mp_rec_size(rec->tag);
	rec_to_wire(rec, w->wb + w->w_len, size);
	w->w_len += size;
	w->count[rec->tag]++;
	return 0;
}

/*
 * Add rec, of a tag with a size, to the buffer, which has room for it
 * (MP_PACK_MAX bytes: any record, packed or fixed-size). Packing needs
 * no registers saved here; the raw case is out of line.
 */
static inline int put_room(mp_writer *w, const mp_rec *rec)
{
	if (!w->pk)
		return put_raw(w, rec);
	w->count[rec->tag]++;
	w->w_len += mp_pack_put(w->pk, rec, w->wb + w->w_len);
	return 0;
}

/* mp_writer_put's rare cases: a failed writer, a tag that cannot be
 * written, a full buffer. */
__attribute__((noinline))
static int put_slow(mp_writer *w, const mp_rec *rec)
{
	if (w->failed)
		return -1;
	if (rec->tag < 1 || rec->tag >= MP_REC_NTAGS || rec->tag == MP_REC_END ||
	    (rec->tag > MP_REC_END && !w->deps))
		return wfail(w, "cannot write a record with tag %d", rec->tag);
	if (drain(w, ZSTD_e_continue) < 0)
		return -1;
	return put_room(w, rec);
}

int mp_writer_put(mp_writer *w, const mp_rec *rec)
{
	/*
	 * Every tag from 1 to MP_REC_END - 1 has a size, at most
	 * sizeof(mp_rec) <= MP_PACK_MAX; the trailer is the writer's own.
	 * The common case takes a few tests and the coder.
	 */
	if (w->failed || rec->tag < 1 || rec->tag >= MP_REC_END ||
	    WBUF - w->w_len < MP_PACK_MAX)
		return put_slow(w, rec);
	return put_room(w, rec);
}

int mp_writer_flush(mp_writer *w)
{
	return drain(w, w->raw ? ZSTD_e_continue : ZSTD_e_flush);
}

uint64_t mp_writer_count(const mp_writer *w, int tag)
{
	return tag > 0 && tag < MP_REC_NTAGS ? w->count[tag] : 0;
}

const char *mp_writer_error(const mp_writer *w)
{
	return w->err;
}

void mp_writer_abort(mp_writer *w)
{
	if (!w)
		return;
	/* What is buffered is dropped, and a compressed frame is left
	 * unfinished, so nothing can pass for a complete stream. */
	if (w->fd >= 0)
		close(w->fd);
	mp_tmpout_discard(w->tmp);
	ZSTD_freeCCtx(w->cctx);
	mp_pack_free(w->pk);
	free(w->wb);
	free(w->ob);
	free(w->name);
	free(w);
}

int mp_writer_close(mp_writer *w, mp_err *err)
{
	int rc = 0;
	if (!w)
		return 0;
	if (w->fd >= 0 && !w->failed) {
		mp_rec end;
		memset(&end, 0, sizeof end);
		end.end.tag = MP_REC_END;
		for (int t = 1; t < MP_REC_END; t++)
			end.end.count[t - 1] = w->count[t];
		unsigned char buf[MP_PACK_MAX > 64 ? MP_PACK_MAX : 64];
		size_t n = mp_rec_size(MP_REC_END);
		if (w->pk)
			n = mp_pack_put(w->pk, &end, buf);
		else
			rec_to_wire(&end, buf, n);
		if (wput(w, buf, n) == 0)
			drain(w, ZSTD_e_end);
	}
	if (w->fd >= 0 && close(w->fd) < 0 && !w->failed)
		wfail(w, "close failed: %s", strerror(errno));
	if (w->failed) {
		mp_tmpout_discard(w->tmp);
	} else {
		mp_err e;
		if (mp_tmpout_commit(w->tmp, w->name, &e) < 0)
			wfail(w, "%s", e.msg + strlen(w->name) + 2);
	}
	w->tmp = NULL;
	if (w->failed) {
		mp_err_set(err, "%s", w->err);
		rc = -1;
	}
	ZSTD_freeCCtx(w->cctx);
	mp_pack_free(w->pk);
	free(w->wb);
	free(w->ob);
	free(w->name);
	free(w);
	return rc;
}
