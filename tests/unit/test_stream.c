/*
 * Unit tests of the stream reader and writer (lib/mp_stream.c): round
 * trips of every record kind raw and compressed, headers, concatenated
 * streams, version rules, and torture: every truncated prefix and every
 * flipped header byte must fail with a message, never crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_record.h"
#include "mp_stream.h"
#include "mp_util.h"
#include "t.h"

/* T_OK evaluates its condition twice: evaluate side effects once. */
#define CHECK(cond, ...) do { int ok_ = !!(cond); T_OK(ok_, __VA_ARGS__); } while (0)

static char dir[] = "/tmp/test_stream.XXXXXX";
static char *made[64];
static int nmade;

/* A path in the temporary directory, remembered for removal. */
static const char *tpath(const char *name)
{
	static char buf[8][256];
	static int next;
	char *p = buf[next++ % 8];
	snprintf(p, sizeof buf[0], "%s/%s", dir, name);
	for (int i = 0; i < nmade; i++)
		if (strcmp(made[i], p) == 0)
			return p;
	if (nmade < 64)
		made[nmade++] = strdup(p);
	return p;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
		}
		size_t n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	fclose(f);
	return buf;
}

static void spit(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return;
	fwrite(p, 1, len, f);
	fclose(f);
}

/* Sample records of every kind a stream carries, times from t0. */
static size_t sample(mp_rec *r, uint64_t t0)
{
	size_t n = 0;
	memset(r, 0, 8 * sizeof *r);

	r[n].msg = (struct mp_msg){ .tag = MP_REC_MSG, .cls = 1, .group = 1,
		.route = 2, .src = 3, .dst = 90, .packets = 25, .id = 7,
		.time = t0 + 10, .bytes = 3200, .prio = 0 };
	n++;
	r[n].msg = (struct mp_msg){ .tag = MP_REC_INJ, .src = 90, .dst = 0,
		.packets = 1, .id = 8, .time = t0 + 11, .bytes = 128, .prio = 2 };
	n++;
	r[n].pkt = (struct mp_pkt){ .tag = MP_REC_PKT, .cls = 0, .group = 1,
		.flags = 1, .src = 3, .dst = 90, .seq = 24, .msg = 7,
		.t_inject = t0 + 100, .t_eject = t0 + 900, .hops = 5,
		.deroutes = 1, .refusals = 3 };
	n++;
	r[n].dlv = (struct mp_dlv){ .tag = MP_REC_DLV, .cls = 1, .src = 3,
		.dst = 90, .packets = 25, .id = 7, .t_arrive = t0 + 10,
		.t_first = t0 + 100, .t_done = t0 + 5000, .bytes = 3200,
		.hops = 125 };
	n++;
	r[n].util = (struct mp_util){ .tag = MP_REC_UTIL, .scope = MP_UTIL_PORT,
		.node = 12, .port = 6, .nports = 1, .t = t0 + 5000, .busy = 4000,
		.refused = 300, .transfers = 20, .refusals = 4 };
	n++;
	r[n].run = (struct mp_run){ .tag = MP_REC_RUN, .status = MP_RUN_STOPPED,
		.nodes = 91, .t_end = t0 + 5000, .msgs_in = 2, .msgs_done = 1,
		.pkts_injected = 26, .pkts_delivered = 25, .pkts_in_flight = 1,
		.pkts_queued = 0 };
	n++;
	return n;
}

static mp_hdr *sample_hdr(int kind)
{
	mp_hdr *h = mp_hdr_new(kind);
	mp_hdr_set(h, "nodes", "91");
	mp_hdr_set(h, "topology", "hex");
	return h;
}

static int write_stream(const char *path, const mp_hdr *h, const mp_rec *r,
			size_t n, int flags)
{
	mp_err err;
	mp_writer *w = mp_writer_open(path, h, flags, &err);
	if (!w)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (mp_writer_put(w, &r[i]) < 0) {
			mp_writer_close(w, NULL);
			return -1;
		}
	return mp_writer_close(w, &err);
}

/*
 * Read a whole stream: 0 at a clean end, -1 on failure, with the last
 * message in msg and record counts by tag.
 */
static int read_all(const char *path, uint64_t *count, char *msg, size_t cap)
{
	mp_err err;
	mp_rec rec;
	int rc;
	if (count)
		memset(count, 0, MP_REC_NTAGS * sizeof *count);
	msg[0] = '\0';
	mp_reader *r = mp_reader_open(path, &err);
	if (!r) {
		snprintf(msg, cap, "%s", err.msg);
		return -1;
	}
	while ((rc = mp_reader_next(r, &rec)) == 1)
		if (count)
			count[rec.tag]++;
	if (rc < 0)
		snprintf(msg, cap, "%s", mp_reader_error(r));
	mp_reader_close(r);
	return rc;
}

static int bytes_equal(const char *a, const char *b)
{
	size_t la, lb;
	unsigned char *pa = slurp(a, &la), *pb = slurp(b, &lb);
	int eq = pa && pb && la == lb && memcmp(pa, pb, la) == 0;
	free(pa);
	free(pb);
	return eq;
}

static void test_round_trip(int flags)
{
	const char *mode = flags & MP_W_RAW ? "raw" : "compressed";
	const char *a = tpath(flags & MP_W_RAW ? "rt_raw_a" : "rt_z_a");
	const char *b = tpath(flags & MP_W_RAW ? "rt_raw_b" : "rt_z_b");
	mp_rec recs[8], rec;
	size_t n = sample(recs, 0);
	mp_err err;

	mp_hdr *h = sample_hdr(MP_KIND_DELIVERIES);
	CHECK(write_stream(a, h, recs, n, flags) == 0, "%s: write every record "
	     "kind", mode);
	mp_hdr_free(h);

	mp_reader *r = mp_reader_open(a, &err);
	CHECK(r != NULL, "%s: open", mode);
	if (!r)
		return;
	CHECK(mp_reader_compressed(r) == !(flags & MP_W_RAW),
	     "%s: compression detected", mode);
	mp_hdr *h2 = mp_hdr_dup(mp_reader_header(r));
	mp_writer *w = mp_writer_open(b, h2, flags, &err);
	mp_hdr_free(h2);
	size_t got = 0;
	int same = 1, rc;
	while ((rc = mp_reader_next(r, &rec)) == 1) {
		if (got < n && (rec.tag != recs[got].tag ||
				memcmp(rec.raw, recs[got].raw,
				       mp_rec_size(rec.tag)) != 0))
			same = 0;
		got++;
		mp_writer_put(w, &rec);
	}
	CHECK(rc == 0 && got == n && same, "%s: every record read back as "
	     "written (%zu of %zu)", mode, got, n);
	int decl = 1;
	for (int t = 1; t < MP_REC_END; t++)
		if (mp_reader_declared(r, t) != 1)
			decl = 0;
	CHECK(decl, "%s: the trailer declares one record of each kind", mode);
	CHECK(mp_reader_streams(r) == 1, "%s: one stream", mode);
	mp_reader_close(r);
	CHECK(mp_writer_close(w, &err) == 0, "%s: re-write", mode);
	CHECK(bytes_equal(a, b), "%s: re-written stream is byte-identical", mode);
}

static void test_header(void)
{
	const char *p = tpath("hdr");
	char *argv[] = { (char *)"--load", (char *)"0.6", (char *)"it's here",
			 (char *)"--x=a b" };
	mp_rec recs[8];
	mp_err err;

	mp_hdr *h = mp_hdr_new(MP_KIND_MESSAGES);
	CHECK(mp_hdr_set(h, "nodes", "91") == 0, "set nodes");
	CHECK(mp_hdr_set(h, "fabric.buffers", "20") == 0, "set a dotted key");
	CHECK(mp_hdr_set(h, "workload", "bimodal short=1..5 long=25 (10%)") == 0,
	     "set a value with spaces and '='");
	CHECK(mp_hdr_setf(h, "load", "%.2f", 0.6) == 0, "setf");
	CHECK(mp_hdr_set(h, "nodes", "127") == 0, "replace a value");
	CHECK(mp_hdr_set(h, "Bad", "x") < 0, "upper-case key refused");
	CHECK(mp_hdr_set(h, "a b", "x") < 0, "key with a space refused");
	CHECK(mp_hdr_set(h, "k", "line\nbreak") < 0, "value with newline refused");
	CHECK(mp_hdr_add_prov(h, "wlgen", 4, argv, 1, 42) == 0, "add prov");
	CHECK(mp_hdr_add_prov(h, "sched", 0, NULL, 0, 0) == 0, "add second prov");
	size_t n = sample(recs, 0);
	/* A messages stream carries msg records only in practice, but any
	 * kind may pass through. */
	CHECK(write_stream(p, h, recs, n, 0) == 0, "write");
	mp_hdr_free(h);

	mp_reader *r = mp_reader_open(p, &err);
	CHECK(r != NULL, "open");
	if (!r)
		return;
	const mp_hdr *g = mp_reader_header(r);
	CHECK(mp_hdr_kind(g) == MP_KIND_MESSAGES, "kind");
	CHECK(mp_hdr_major(g) == MP_FORMAT_MAJOR && mp_hdr_minor(g) ==
	     MP_FORMAT_MINOR, "version");
	uint64_t v;
	CHECK(mp_hdr_get_u64(g, "nodes", &v) == 0 && v == 127, "nodes read back");
	CHECK(strcmp(mp_hdr_get(g, "fabric.buffers"), "20") == 0, "dotted key");
	CHECK(strcmp(mp_hdr_get(g, "workload"),
		    "bimodal short=1..5 long=25 (10%)") == 0, "value with spaces");
	double d;
	CHECK(mp_hdr_get_double(g, "load", &d) == 0 && d == 0.6, "double value");
	CHECK(mp_hdr_get(g, "absent") == NULL, "absent key");
	const char *prov[2] = { NULL, NULL };
	int np = 0;
	const char *order[8];
	int nk = 0;
	for (size_t i = 0; i < mp_hdr_count(g); i++) {
		const char *k = mp_hdr_key(g, i);
		if (strcmp(k, "prov") == 0 && np < 2)
			prov[np++] = mp_hdr_value(g, i);
		if (strncmp(k, "layout.", 7) != 0 && nk < 8)
			order[nk++] = k;
	}
	CHECK(nk == 6 && strcmp(order[0], "nodes") == 0 &&
	     strcmp(order[3], "load") == 0 && strcmp(order[4], "prov") == 0,
	     "metadata order kept");
	CHECK(np == 2, "two provenance entries");
	CHECK(prov[0] && strncmp(prov[0], "wlgen " MP_VERSION " seed=42 args=",
				 18 + strlen(MP_VERSION)) == 0,
	     "prov names program, version and seed: %s",
	     prov[0] ? prov[0] : "(none)");
	CHECK(prov[0] && strstr(prov[0], "'it'\\''s here'") &&
	     strstr(prov[0], "'--x=a b'"), "prov quotes arguments");
	CHECK(prov[1] && strcmp(prov[1], "sched " MP_VERSION " args=") == 0,
	     "second prov: %s", prov[1] ? prov[1] : "(none)");
	CHECK(mp_hdr_get(g, "layout.1") != NULL, "record layouts described");
	mp_reader_close(r);
}

static void test_concat(void)
{
	static const int combos[4][2] = {
		{ MP_W_RAW, MP_W_RAW }, { 0, MP_W_RAW }, { MP_W_RAW, 0 }, { 0, 0 },
	};
	static const char *names[4] = { "raw+raw", "zstd+raw", "raw+zstd",
					"zstd+zstd" };
	mp_rec a[8], b[8];
	size_t na = sample(a, 0), nb = sample(b, 100000);
	char msg[768];
	uint64_t count[MP_REC_NTAGS];
	mp_err err;

	for (int c = 0; c < 4; c++) {
		const char *pa = tpath("cat_a"), *pb = tpath("cat_b");
		const char *pc = tpath("cat_ab");
		mp_hdr *h = sample_hdr(MP_KIND_DELIVERIES);
		write_stream(pa, h, a, na, combos[c][0]);
		mp_hdr_set(h, "seed", "2");
		write_stream(pb, h, b, nb - 1, combos[c][1]);
		mp_hdr_free(h);
		size_t la, lb;
		unsigned char *ba = slurp(pa, &la), *bb = slurp(pb, &lb);
		unsigned char *all = malloc(la + lb);
		memcpy(all, ba, la);
		memcpy(all + la, bb, lb);
		spit(pc, all, la + lb);
		free(ba);
		free(bb);
		free(all);

		int rc = read_all(pc, count, msg, sizeof msg);
		CHECK(rc == 0, "%s: read as one stream %s", names[c], msg);
		CHECK(count[MP_REC_MSG] == 2 && count[MP_REC_PKT] == 2 &&
		     count[MP_REC_RUN] == 1, "%s: counts summed", names[c]);
		mp_reader *r = mp_reader_open(pc, &err);
		mp_rec rec;
		while (r && mp_reader_next(r, &rec) == 1)
			;
		CHECK(r && mp_reader_streams(r) == 2 &&
		     mp_reader_declared(r, MP_REC_DLV) == 2 &&
		     mp_reader_declared(r, MP_REC_RUN) == 1,
		     "%s: two streams, trailers summed", names[c]);
		CHECK(r && strcmp(mp_hdr_get(mp_reader_header(r), "topology"),
				 "hex") == 0 && !mp_hdr_get(mp_reader_header(r),
							     "seed"),
		     "%s: header is the first stream's", names[c]);
		mp_reader_close(r);
	}

	/* Streams of different kinds or node counts do not concatenate. */
	const char *pa = tpath("cat_a"), *pb = tpath("cat_b"), *pc = tpath("cat_ab");
	mp_hdr *h = sample_hdr(MP_KIND_DELIVERIES);
	write_stream(pa, h, a, na, MP_W_RAW);
	mp_hdr_set_kind(h, MP_KIND_MESSAGES);
	write_stream(pb, h, b, 1, MP_W_RAW);
	size_t la, lb;
	unsigned char *ba = slurp(pa, &la), *bb = slurp(pb, &lb);
	unsigned char *all = malloc(la + lb);
	memcpy(all, ba, la);
	memcpy(all + la, bb, lb);
	spit(pc, all, la + lb);
	CHECK(read_all(pc, NULL, msg, sizeof msg) < 0 && strstr(msg, "kind"),
	     "different kinds refused: %s", msg);
	free(bb);
	mp_hdr_set_kind(h, MP_KIND_DELIVERIES);
	mp_hdr_set(h, "nodes", "37");
	write_stream(pb, h, b, 1, MP_W_RAW);
	bb = slurp(pb, &lb);
	all = realloc(all, la + lb);
	memcpy(all + la, bb, lb);
	spit(pc, all, la + lb);
	CHECK(read_all(pc, NULL, msg, sizeof msg) < 0 && strstr(msg, "nodes"),
	     "different node counts refused: %s", msg);
	free(ba);
	free(bb);
	free(all);
	mp_hdr_free(h);
}

/* Write a small sample stream and return its bytes. */
static unsigned char *small_stream(int flags, size_t *len)
{
	const char *p = tpath("small");
	mp_rec recs[8];
	size_t n = sample(recs, 0);
	mp_hdr *h = sample_hdr(MP_KIND_MESSAGES);
	write_stream(p, h, recs, n, flags);
	mp_hdr_free(h);
	return slurp(p, len);
}

static void test_truncated(int flags)
{
	const char *mode = flags & MP_W_RAW ? "raw" : "compressed";
	size_t len;
	unsigned char *s = small_stream(flags, &len);
	const char *p = tpath("prefix");
	char msg[768];
	size_t bad = 0, first_bad = 0;

	for (size_t k = 0; k < len; k++) {
		spit(p, s, k);
		if (read_all(p, NULL, msg, sizeof msg) != -1 || msg[0] == '\0' ||
		    strncmp(msg, p, strlen(p)) != 0) {
			if (!bad++)
				first_bad = k;
		}
	}
	CHECK(bad == 0, "%s: all %zu truncated prefixes fail with a located "
	     "message (first bad: %zu)", mode, len, first_bad);

	/* Without the trailer, a raw stream is "cut short". */
	if (flags & MP_W_RAW) {
		spit(p, s, len - mp_rec_size(MP_REC_END));
		read_all(p, NULL, msg, sizeof msg);
		CHECK(strstr(msg, "cut short") != NULL, "no trailer: %s", msg);
	}
	spit(p, s, len);
	CHECK(read_all(p, NULL, msg, sizeof msg) == 0, "%s: whole stream reads",
	     mode);
	free(s);
}

/* Re-seal a hand-edited raw header: recompute its CRC. */
static void reseal(unsigned char *s)
{
	uint32_t meta_len = mp_le32(s + 12);
	uint32_t c = mp_crc32(0, s, 16);
	c = mp_crc32(c, s + 20, 4);
	c = mp_crc32(c, s + 24, meta_len);
	mp_put32(s + 16, c);
}

static void test_corrupt(void)
{
	size_t len;
	unsigned char *s = small_stream(MP_W_RAW, &len);
	unsigned char *c = malloc(len);
	const char *p = tpath("corrupt");
	char msg[768];
	size_t hdr_len = 24 + mp_le32(s + 12), bad = 0, first_bad = 0;
	static const unsigned char masks[] = { 0x01, 0x80, 0xff };

	for (size_t k = 0; k < hdr_len; k++)
		for (size_t m = 0; m < sizeof masks; m++) {
			memcpy(c, s, len);
			c[k] ^= masks[m];
			spit(p, c, len);
			if (read_all(p, NULL, msg, sizeof msg) != -1 ||
			    msg[0] == '\0') {
				if (!bad++)
					first_bad = k;
			}
		}
	CHECK(bad == 0, "every flipped byte of the %zu-byte header is refused "
	     "(first bad: %zu)", hdr_len, first_bad);

	memcpy(c, s, len);
	mp_put16(c + 4, MP_FORMAT_MAJOR + 1);
	reseal(c);
	spit(p, c, len);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "newer"),
	     "newer major refused: %s", msg);

	memcpy(c, s, len);
	c[0] = 'M';
	spit(p, c, len);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "magic"),
	     "wrong magic: %s", msg);
	spit(p, "this is a text file, not a meshpipe stream\n", 43);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "magic"),
	     "text input: %s", msg);
	spit(p, "", 0);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "empty"),
	     "empty input: %s", msg);

	/* The trailer's count of msg records, one too many. */
	memcpy(c, s, len);
	size_t end = len - mp_rec_size(MP_REC_END);
	mp_put64(c + end + 8, mp_le64(c + end + 8) + 1);
	spit(p, c, len);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "trailer"),
	     "trailer count mismatch: %s", msg);

	/* Reserved flags set (with a valid CRC): refused by name. Bit 0
	 * says the records are packed; the others are reserved. */
	memcpy(c, s, len);
	mp_put16(c + 10, 2);
	reseal(c);
	spit(p, c, len);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "reserved"),
	     "reserved header bits: %s", msg);

	/* An unknown record tag of this version's range. */
	memcpy(c, s, len);
	c[hdr_len] = 0;
	spit(p, c, len);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 &&
	     strstr(msg, "record 1: unknown record tag"), "tag 0: %s", msg);
	free(c);
	free(s);
}

/*
 * A stream of a newer minor version: msg records lengthened to 48 bytes
 * and an unknown record kind 9 of 16 bytes, both declared in layout
 * lines. This reader reads the first 40 bytes of each msg and skips the
 * rest.
 */
static void test_newer_minor(void)
{
	const char *meta = "nodes=91\n"
			   "layout.1=msg 48 tag:u8@0 src:u32@4 extra:u64@40\n"
			   "layout.9=future 16 tag:u8@0\n";
	size_t ml = strlen(meta);
	unsigned char buf[1024];
	size_t n = 0;
	mp_rec m[8];

	memcpy(buf, MP_MAGIC, 4);
	mp_put16(buf + 4, MP_FORMAT_MAJOR);
	mp_put16(buf + 6, MP_FORMAT_MINOR + 1);
	mp_put16(buf + 8, MP_KIND_MESSAGES);
	mp_put16(buf + 10, 0);
	mp_put32(buf + 12, (uint32_t)ml);
	mp_put32(buf + 20, 0);
	memcpy(buf + 24, meta, ml);
	reseal(buf);
	n = 24 + ml;
	sample(m, 0);
	m[1] = m[0];
	m[1].msg.id = 9;
	m[1].msg.time = 99;
	for (int i = 0; i < 2; i++) {
		memcpy(buf + n, m[i].raw, 40);
		memset(buf + n + 40, 0xee, 8);
		n += 48;
		memset(buf + n, 0, 16);
		buf[n] = 9;
		buf[n + 1] = 0x55;
		n += 16;
	}
	memset(buf + n, 0, 64);
	buf[n] = MP_REC_END;
	mp_put64(buf + n + 8, 2);
	n += 64;
	const char *p = tpath("minor");
	spit(p, buf, n);

	mp_err err;
	mp_rec rec;
	mp_reader *r = mp_reader_open(p, &err);
	CHECK(r != NULL, "newer minor: opened (%s)", r ? "" : err.msg);
	if (!r)
		return;
	int got = 0, same = 1, rc;
	while ((rc = mp_reader_next(r, &rec)) == 1) {
		if (got < 2 && memcmp(rec.raw, m[got].raw, 40) != 0)
			same = 0;
		got++;
	}
	CHECK(rc == 0 && got == 2 && same, "newer minor: lengthened records read, "
	     "unknown kind skipped (%d records) %s", got,
	     rc < 0 ? mp_reader_error(r) : "");
	CHECK(mp_hdr_minor(mp_reader_header(r)) == MP_FORMAT_MINOR + 1,
	     "newer minor: version reported");
	mp_reader_close(r);

	/* A layout that shortens a known record is refused. */
	const char *meta2 = "layout.1=msg 32 tag:u8@0\n";
	ml = strlen(meta2);
	mp_put32(buf + 12, (uint32_t)ml);
	memcpy(buf + 24, meta2, ml);
	reseal(buf);
	spit(p, buf, 24 + ml);
	char msg[768];
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "at least"),
	     "shortened layout refused: %s", msg);
}

static void test_validation(void)
{
	const char *p = tpath("valid");
	mp_rec m[8];
	char msg[768];

	sample(m, 0);
	m[1] = m[0];
	m[1].msg.dst = 91;
	m[1].msg.time = 20;
	mp_hdr *h = sample_hdr(MP_KIND_MESSAGES);
	write_stream(p, h, m, 2, MP_W_RAW);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 &&
	     strstr(msg, "valid: record 2: destination 91 out of range (91 nodes)"),
	     "node out of range, located: %s", msg);
	m[1].msg.dst = 5;
	m[1].msg.time = 1;
	write_stream(p, h, m, 2, 0);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 && strstr(msg, "record 2: "
	     "out of time order"), "time order: %s", msg);
	mp_hdr_free(h);
}

static void test_write_fail(void)
{
	mp_err err;
	mp_rec m[8];
	sample(m, 0);
	mp_hdr *h = sample_hdr(MP_KIND_MESSAGES);
	mp_writer *w = mp_writer_open("/dev/full", h, 0, &err);
	CHECK(w != NULL, "open /dev/full");
	if (w) {
		mp_writer_put(w, &m[0]);
		CHECK(mp_writer_close(w, &err) < 0 && strstr(err.msg, "write failed"),
		     "a full device is reported: %s", err.msg);
	}
	CHECK(mp_writer_open(tpath("no/such/dir"), h, 0, &err) == NULL &&
	     err.msg[0], "unopenable output: %s", err.msg);
	mp_hdr_free(h);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_round_trip(MP_W_RAW);
	test_round_trip(0);
	test_header();
	test_concat();
	test_truncated(MP_W_RAW);
	test_truncated(0);
	test_corrupt();
	test_newer_minor();
	test_validation();
	test_write_fail();
	for (int i = 0; i < nmade; i++) {
		unlink(made[i]);
		free(made[i]);
	}
	rmdir(dir);
	return t_done();
}
