/*
 * Unit tests of the stream reader and writer (lib/mp_stream.c) and the
 * packed encoding (lib/mp_pack.c): round trips of every record kind raw
 * and compressed, headers, concatenated streams, version rules, and
 * torture: every truncated prefix and every flipped header byte must
 * fail with a message, never crash. Packed records are checked against
 * a reference coder written here from man/meshpipe.5.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* Only for fixtures: zstd(1)'s doings, not the library's (see unzstd). */
#include <zstd.h>

#include "mp_pack.h"
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
	unsigned char *pa = t_slurp(a, &la), *pb = t_slurp(b, &lb);
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
		unsigned char *ba = t_slurp(pa, &la), *bb = t_slurp(pb, &lb);
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
	unsigned char *ba = t_slurp(pa, &la), *bb = t_slurp(pb, &lb);
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
	bb = t_slurp(pb, &lb);
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
	return t_slurp(p, len);
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
 * and an unknown record kind 10 of 16 bytes, both declared in layout
 * lines. This reader reads the first 40 bytes of each msg and skips the
 * rest.
 */
static void test_newer_minor(void)
{
	const char *meta = "nodes=91\n"
			   "layout.1=msg 48 tag:u8@0 src:u32@4 extra:u64@40\n"
			   "layout.10=future 16 tag:u8@0\n";
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
		buf[n] = 10;
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
	/* Tags without a record kind, and the trailer (the writer's own),
	 * are refused by either writer, and the writer stays failed. */
	for (int flags = 0; flags <= MP_W_RAW; flags += MP_W_RAW) {
		w = mp_writer_open(tpath("badtag"), h, flags, &err);
		mp_rec bad = m[0];
		int refused = 0;
		for (int tag = 0; tag < 256; tag++) {
			if (tag >= 1 && tag < MP_REC_END)
				continue;
			bad.msg.tag = (uint8_t)tag;
			refused += w && mp_writer_put(w, &bad) < 0;
		}
		CHECK(refused == 256 - (MP_REC_END - 1) && w &&
		      mp_writer_put(w, &m[0]) < 0 &&
		      mp_writer_close(w, &err) < 0 &&
		      strstr(err.msg, "cannot write a record with tag 0"),
		      "%s writer refuses record tags 0, %d and up: %s",
		      flags ? "raw" : "compressed", MP_REC_END, err.msg);
	}
	mp_hdr_free(h);
}

/* ------------------------------------------------------------------ */
/* Packed records (format 1.1)                                         */

/*
 * The packed encoding as man/meshpipe.5 states it, written here apart
 * from lib/mp_pack.c: the tag byte, then every field of the tag's table
 * but the tag and padding, as an unsigned LEB128 varint; u64 fields as
 * the zigzag of the wrapping difference from the same field of the
 * previous record with the tag. The library must produce and accept
 * exactly these bytes.
 */
static size_t ref_varint(uint64_t v, unsigned char *out)
{
	size_t n = 0;
	do {
		unsigned char b = v & 0x7f;
		v >>= 7;
		out[n++] = (unsigned char)(b | (v ? 0x80 : 0));
	} while (v);
	return n;
}

static size_t ref_pack(const mp_rec *rec, mp_rec *prev, unsigned char *out)
{
	size_t nf, len = 0;
	const struct mp_field *f = mp_rec_fields(rec->tag, &nf);
	out[len++] = rec->tag;
	for (size_t i = 1; i < nf; i++) {
		if (f[i].name[0] == '_')
			continue;
		uint64_t v = mp_rec_get(rec, &f[i]);
		if (f[i].type == MP_F_U64) {
			uint64_t d = v - mp_rec_get(&prev[rec->tag], &f[i]);
			v = (d << 1) ^ (d >> 63 ? UINT64_MAX : 0);
		}
		len += ref_varint(v, out + len);
	}
	prev[rec->tag] = *rec;
	return len;
}

/* zstd's own functions make and take apart compressed streams the way
 * zstd(1) does: a 1.0 compressed stream, the raw form of a packed one. */
static unsigned char *unzstd(const unsigned char *src, size_t n, size_t *len)
{
	size_t cap = 1 << 16;
	unsigned char *out = malloc(cap);
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { src, n, 0 };
	*len = 0;
	while (ib.pos < ib.size) {
		if (cap - *len < (1 << 15))
			out = realloc(out, cap *= 2);
		ZSTD_outBuffer ob = { out + *len, cap - *len, 0 };
		size_t rc = ZSTD_decompressStream(d, &ob, &ib);
		*len += ob.pos;
		if (ZSTD_isError(rc))
			break;
	}
	ZSTD_freeDCtx(d);
	return out;
}

static unsigned char *zstd_of(const unsigned char *src, size_t n, size_t *len)
{
	size_t cap = ZSTD_compressBound(n);
	unsigned char *out = malloc(cap);
	*len = ZSTD_compress(out, cap, src, n, 3);
	return out;
}

/* Length of the header of a raw stream (fixed part and metadata). */
static size_t hdr_len(const unsigned char *s)
{
	return 24 + mp_le32(s + 12);
}

/*
 * Records of every kind at the edges of their fields: zero, every
 * type's maximum, u64 fields going backwards and jumping by 2^63
 * between records. All pass the readers' checks when the header has no
 * node count (message times stay ordered and at most MP_TIME_MAX).
 */
static size_t extremes(mp_rec *r)
{
	const uint64_t M64 = UINT64_MAX, H = UINT64_C(1) << 63;
	const uint32_t M32 = UINT32_MAX;
	size_t n = 0;
	memset(r, 0, 32 * sizeof *r);

	/* Message times never go back, across msg and inj alike. */
	for (int v = 0; v < 4; v++)
		for (int tag = MP_REC_MSG; tag <= MP_REC_INJ; tag++) {
			struct mp_msg *m = &r[n++].msg;
			static const struct mp_msg tmpl[4] = {
				{ .cls = 1, .group = 1, .route = 2, .src = 0,
				  .dst = UINT32_MAX, .packets = UINT32_MAX,
				  .id = UINT64_MAX, .time = 0, .bytes = UINT32_MAX,
				  .prio = UINT32_MAX },
				{ .src = UINT32_MAX, .dst = 0, .packets = 1,
				  .id = UINT64_MAX - (UINT64_C(1) << 63),
				  .time = MP_TIME_MAX },
				{ .src = 1, .dst = 2, .packets = 1, .id = UINT64_MAX,
				  .time = MP_TIME_MAX },
				{ .src = 2, .dst = 1, .packets = 7, .id = 0,
				  .time = MP_TIME_MAX },
			};
			*m = tmpl[v];
			m->tag = (uint8_t)tag;
		}
	r[n++].pkt = (struct mp_pkt){ .tag = MP_REC_PKT, .cls = 255,
		.group = 255, .flags = 255, .src = M32, .dst = M32, .seq = M32,
		.msg = M64, .t_inject = 0, .t_eject = M64, .hops = 65535,
		.deroutes = 65535, .refusals = M32 };
	r[n++].pkt = (struct mp_pkt){ .tag = MP_REC_PKT };
	r[n++].pkt = (struct mp_pkt){ .tag = MP_REC_PKT, .msg = H,
		.t_inject = M64, .t_eject = M64, .seq = 1 };
	r[n++].pkt = (struct mp_pkt){ .tag = MP_REC_PKT, .msg = 0,
		.t_inject = H, .t_eject = H, .hops = 1 };
	r[n++].dlv = (struct mp_dlv){ .tag = MP_REC_DLV, .cls = 255,
		.group = 255, .src = M32, .dst = M32, .packets = M32, .id = M64,
		.t_arrive = 0, .t_first = H, .t_done = M64, .bytes = M32,
		.hops = M32 };
	r[n++].dlv = (struct mp_dlv){ .tag = MP_REC_DLV, .packets = 1,
		.id = M64 - H, .t_arrive = 5, .t_first = 5, .t_done = 5 };
	r[n++].dlv = (struct mp_dlv){ .tag = MP_REC_DLV, .packets = 1,
		.id = 0, .t_arrive = M64, .t_first = M64, .t_done = M64 };
	r[n++].util = (struct mp_util){ .tag = MP_REC_UTIL,
		.scope = MP_UTIL_INTERNAL_INPUT_END, .node = M32, .port = M32,
		.nports = M32, .t = M64, .busy = M64, .refused = M64,
		.transfers = M64, .refusals = M64 };
	r[n++].util = (struct mp_util){ .tag = MP_REC_UTIL };
	r[n++].util = (struct mp_util){ .tag = MP_REC_UTIL, .scope = 2,
		.t = H, .busy = H, .refused = 1, .transfers = H + 1 };
	r[n++].run = (struct mp_run){ .tag = MP_REC_RUN, .status = 3,
		.nodes = M32, .t_end = M64, .msgs_in = M64, .msgs_done = M64,
		.pkts_injected = M64, .pkts_delivered = M64,
		.pkts_in_flight = M64, .pkts_queued = M64 };
	r[n++].run = (struct mp_run){ .tag = MP_REC_RUN };
	return n;
}

/* Read every record of path into r (cap records); -1 on failure. */
static long read_recs(const char *path, mp_rec *r, size_t cap, char *msg,
		      size_t mcap)
{
	mp_err err;
	mp_rec rec;
	long n = 0;
	int rc;
	msg[0] = '\0';
	mp_reader *rd = mp_reader_open(path, &err);
	if (!rd) {
		snprintf(msg, mcap, "%s", err.msg);
		return -1;
	}
	while ((rc = mp_reader_next(rd, &rec)) == 1) {
		if ((size_t)n < cap)
			r[n] = rec;
		n++;
	}
	if (rc < 0)
		snprintf(msg, mcap, "%s", mp_reader_error(rd));
	mp_reader_close(rd);
	return rc < 0 ? -1 : n;
}

static int same_recs(const mp_rec *a, const mp_rec *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].tag != b[i].tag ||
		    memcmp(a[i].raw, b[i].raw, mp_rec_size(a[i].tag)) != 0)
			return 0;
	return 1;
}

/* The trailer a writer appends after records r[0..n-1]. */
static mp_rec trailer_of(const mp_rec *r, size_t n)
{
	mp_rec end;
	memset(&end, 0, sizeof end);
	end.end.tag = MP_REC_END;
	for (size_t i = 0; i < n; i++)
		end.end.count[r[i].tag - 1]++;
	return end;
}

static void test_packed_round_trip(void)
{
	const char *p = tpath("pk_ext"), *u = tpath("pk_ext_raw");
	mp_rec r[32], back[32], prev[MP_REC_NTAGS];
	char msg[768];
	size_t n = extremes(r);
	mp_hdr *h = mp_hdr_new(MP_KIND_DELIVERIES);

	CHECK(write_stream(p, h, r, n, 0) == 0, "packed: write extreme values "
	     "of every record kind");
	long got = read_recs(p, back, 32, msg, sizeof msg);
	CHECK(got == (long)n && same_recs(r, back, n), "packed: every record "
	     "read back as written (%ld of %zu) %s", got, n, msg);
	mp_err err;
	mp_reader *rd = mp_reader_open(p, &err);
	CHECK(rd && mp_reader_compressed(rd) && mp_reader_packed(rd),
	     "packed: a compressed stream has packed records");
	CHECK(rd && mp_hdr_minor(mp_reader_header(rd)) == 1,
	     "packed: version 1.1");
	mp_reader_close(rd);

	/* The bytes inside the zstd frame: the header with flag bit 0,
	 * then the records exactly as the reference packs them. */
	size_t zlen, len;
	unsigned char *z = t_slurp(p, &zlen);
	unsigned char *s = unzstd(z, zlen, &len);
	size_t hl = hdr_len(s);
	unsigned char ref[32 * MP_PACK_MAX];
	size_t rl = 0;
	memset(prev, 0, sizeof prev);
	for (size_t i = 0; i < n; i++)
		rl += ref_pack(&r[i], prev, ref + rl);
	mp_rec end = trailer_of(r, n);
	rl += ref_pack(&end, prev, ref + rl);
	CHECK(mp_le16(s + 10) == 1, "packed: header flags 1");
	CHECK(len == hl + rl && memcmp(s + hl, ref, rl) == 0,
	     "packed: records are the reference encoding (%zu bytes, %zu "
	     "expected)", len - hl, rl);

	/* Decompressed by zstd(1): raw, packed, read the same. */
	spit(u, s, len);
	got = read_recs(u, back, 32, msg, sizeof msg);
	rd = mp_reader_open(u, &err);
	CHECK(got == (long)n && same_recs(r, back, n) && rd &&
	     !mp_reader_compressed(rd) && mp_reader_packed(rd),
	     "packed: the raw form reads the same %s", msg);
	mp_reader_close(rd);

	/* Raw streams keep the fixed layout, flags 0. */
	write_stream(u, h, r, n, MP_W_RAW);
	free(s);
	s = t_slurp(u, &len);
	hl = hdr_len(s);
	int fixed = mp_le16(s + 10) == 0;
	size_t off = hl;
	for (size_t i = 0; i < n && fixed; i++) {
		fixed = memcmp(s + off, r[i].raw, mp_rec_size(r[i].tag)) == 0;
		off += mp_rec_size(r[i].tag);
	}
	CHECK(fixed && off + 64 == len, "raw: fixed-size records, flags 0");
	free(s);
	free(z);
	mp_hdr_free(h);
}

/* A small xorshift generator: the same records on every run. */
static uint64_t rng_state = 88172645463325252u;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A value of u64 field i: mostly near the last one, sometimes anywhere. */
static uint64_t rnd64(uint64_t last)
{
	switch (rnd() % 8) {
	case 0:
		return rnd();
	case 1:
		return last - rnd() % 1000;
	default:
		return last + rnd() % 300;
	}
}

/* n random valid records of every kind but end, into r. */
static void random_recs(mp_rec *r, size_t n)
{
	mp_rec last;
	uint64_t mtime = 0;
	memset(&last, 0, sizeof last);
	memset(r, 0, n * sizeof *r);
	for (size_t i = 0; i < n; i++) {
		int tag = 1 + (int)(rnd() % 6);
		size_t nf;
		const struct mp_field *f = mp_rec_fields(tag, &nf);
		r[i].tag = (uint8_t)tag;
		for (size_t k = 1; k < nf; k++) {
			if (f[k].name[0] == '_')
				continue;
			uint64_t v = rnd();
			if (f[k].type == MP_F_U64)
				v = rnd64(mp_rec_get(&last, &f[k]));
			else if (rnd() % 4)
				v %= 200;
			mp_rec_set(&r[i], &f[k], v & (f[k].type == 8 ? UINT64_MAX :
				   (UINT64_C(1) << (8 * f[k].type)) - 1));
		}
		/* What the readers check. */
		switch (tag) {
		case MP_REC_MSG:
		case MP_REC_INJ:
			r[i].msg.cls &= 1;
			r[i].msg.group &= 1;
			r[i].msg.route %= 3;
			r[i].msg.packets |= 1;
			if (r[i].msg.src == r[i].msg.dst)
				r[i].msg.dst ^= 1;
			mtime += rnd() % 4 ? rnd() % 500 : 0;
			r[i].msg.time = mtime;
			break;
		case MP_REC_PKT:
			if (r[i].pkt.t_eject < r[i].pkt.t_inject)
				r[i].pkt.t_eject = r[i].pkt.t_inject;
			break;
		case MP_REC_DLV:
			r[i].dlv.packets |= 1;
			if (r[i].dlv.t_first < r[i].dlv.t_arrive)
				r[i].dlv.t_first = r[i].dlv.t_arrive;
			if (r[i].dlv.t_done < r[i].dlv.t_first)
				r[i].dlv.t_done = r[i].dlv.t_first;
			break;
		case MP_REC_UTIL:
			r[i].util.scope %= 5;
			if (r[i].util.refused > r[i].util.busy)
				r[i].util.refused = r[i].util.busy;
			break;
		default:
			r[i].run.status %= 4;
			break;
		}
		last = r[i];
	}
}

/*
 * The coder alone: the straight-line code, the table-driven code
 * (MP_PACK_GENERIC) and the reference give the same bytes for every
 * record, and both decoders give the records back. MP_PACK_MAX bounds
 * every record.
 */
static void test_pack_coders(void)
{
	enum { N = 20000 };
	mp_rec *r = malloc(N * sizeof *r), prev[MP_REC_NTAGS], back;
	mp_pack *fast = mp_pack_new(0), *gen = mp_pack_new(MP_PACK_GENERIC);
	mp_pack *dfast = mp_pack_new(0), *dgen = mp_pack_new(MP_PACK_GENERIC);
	unsigned char a[MP_PACK_MAX + 16], b[MP_PACK_MAX + 16], c[MP_PACK_MAX + 16];
	size_t bad_bytes = 0, bad_dec = 0, longest = 0, nfirst = 0;
	mp_err err;

	size_t n = extremes(r);
	nfirst = n;
	random_recs(r + n, N - n);
	/* Some records with no constraint at all: every field anything. */
	for (size_t i = N - 2000; i < N; i++)
		for (size_t k = 0; k < 64; k++)
			r[i].raw[k] = (unsigned char)(rnd() >> 56);
	for (size_t i = N - 2000; i < N; i++) {
		int tag = 1 + (int)(i % 7);
		size_t nf;
		const struct mp_field *f = mp_rec_fields(tag, &nf);
		r[i].tag = (uint8_t)tag;
		for (size_t k = 1; k < nf; k++)
			if (f[k].name[0] == '_')
				mp_rec_set(&r[i], &f[k], 0);
	}
	memset(prev, 0, sizeof prev);
	for (size_t i = 0; i < N; i++) {
		size_t la = mp_pack_put(fast, &r[i], a);
		size_t lb = mp_pack_put(gen, &r[i], b);
		size_t lc = ref_pack(&r[i], prev, c);
		if (la != lb || la != lc || memcmp(a, b, la) || memcmp(a, c, la))
			if (!bad_bytes++)
				printf("# record %zu (tag %d): coders disagree\n",
				       i, r[i].tag);
		if (la > longest)
			longest = la;
		size_t used;
		memset(&back, 0xee, sizeof back);
		int rc = mp_pack_get(dfast, a, la, &back, &used, &err);
		int ok = rc == 1 && used == la &&
			 memcmp(back.raw, r[i].raw, mp_rec_size(r[i].tag)) == 0;
		memset(&back, 0xee, sizeof back);
		rc = mp_pack_get(dgen, a, la, &back, &used, &err);
		ok = ok && rc == 1 && used == la &&
		     memcmp(back.raw, r[i].raw, mp_rec_size(r[i].tag)) == 0;
		/* Any shorter prefix is short, and changes nothing. */
		if (la > 1 && mp_pack_get(dfast, a, la - 1, &back, &used, &err) !=
				      MP_PACK_SHORT)
			ok = 0;
		if (!ok && !bad_dec++)
			printf("# record %zu (tag %d): decoded wrong\n", i, r[i].tag);
	}
	CHECK(bad_bytes == 0, "pack: straight-line, table-driven and reference "
	     "coders give the same bytes for %d records (%zu disagree)", N,
	     bad_bytes);
	CHECK(bad_dec == 0, "pack: both decoders give every record back (%zu "
	     "wrong)", bad_dec);

	size_t worst = 0;
	for (int t = 1; t < MP_REC_NTAGS; t++) {
		size_t nf, w = 1;
		const struct mp_field *f = mp_rec_fields(t, &nf);
		for (size_t k = 1; k < nf; k++)
			if (f[k].name[0] != '_')
				w += f[k].type == 1 ? 2 : f[k].type == 2 ? 3 :
				     f[k].type == 4 ? 5 : 10;
		if (w > worst)
			worst = w;
	}
	CHECK(worst <= MP_PACK_MAX && longest <= worst,
	     "pack: longest possible record %zu bytes, MP_PACK_MAX %d, longest "
	     "seen %zu (of the %zu extremes and random ones)", worst,
	     MP_PACK_MAX, longest, nfirst);
	mp_pack_free(fast);
	mp_pack_free(gen);
	mp_pack_free(dfast);
	mp_pack_free(dgen);
	free(r);
}

/*
 * Long streams: records straddle the reader's buffers, compressed (the
 * decompressed buffer) and raw (the input buffer).
 */
static void test_packed_long(void)
{
	enum { N = 60000 };
	const char *p = tpath("pk_long"), *u = tpath("pk_long_raw");
	mp_rec *r = malloc(N * sizeof *r), *back = malloc(N * sizeof *back);
	char msg[768];
	random_recs(r, N);
	mp_hdr *h = mp_hdr_new(MP_KIND_MESSAGES);
	write_stream(p, h, r, N, 0);
	long got = read_recs(p, back, N, msg, sizeof msg);
	CHECK(got == N && same_recs(r, back, N), "packed: %d records read back "
	     "across buffer boundaries, compressed %s", N, msg);
	size_t zlen, len;
	unsigned char *z = t_slurp(p, &zlen), *s = unzstd(z, zlen, &len);
	spit(u, s, len);
	got = read_recs(u, back, N, msg, sizeof msg);
	CHECK(got == N && same_recs(r, back, N) && len > (1 << 18),
	     "packed: the same raw, %zu bytes %s", len, msg);
	/* Determinism: the same records give the same bytes. */
	const char *p2 = tpath("pk_long2");
	write_stream(p2, h, r, N, 0);
	CHECK(bytes_equal(p, p2), "packed: the same records, the same bytes");
	free(s);
	free(z);
	free(r);
	free(back);
	mp_hdr_free(h);
}

/* Concatenate files a and b into c. */
static void cat2(const char *a, const char *b, const char *c)
{
	size_t la, lb;
	unsigned char *ba = t_slurp(a, &la), *bb = t_slurp(b, &lb);
	unsigned char *all = malloc(la + lb + 1);
	memcpy(all, ba, la);
	memcpy(all + la, bb, lb);
	spit(c, all, la + lb);
	free(ba);
	free(bb);
	free(all);
}

/* Write r[0..n-1] to path as encoding e: 0 packed (compressed), 1 the
 * old compressed form (a raw stream in a zstd frame), 2 raw fixed-size,
 * 3 raw packed (zstd -d of 0). */
static void write_as(const char *path, const mp_rec *r, size_t n, int e)
{
	mp_hdr *h = mp_hdr_new(MP_KIND_DELIVERIES);
	write_stream(path, h, r, n, e == 1 || e == 2 ? MP_W_RAW : 0);
	mp_hdr_free(h);
	if (e == 1 || e == 3) {
		size_t len, out;
		unsigned char *s = t_slurp(path, &len);
		unsigned char *t = e == 1 ? zstd_of(s, len, &out) :
					    unzstd(s, len, &out);
		spit(path, t, out);
		free(s);
		free(t);
	}
}

/*
 * A packed stream after and before a stream of format 1.0 (a raw stream
 * in a zstd frame, as zstd(1) makes it), after another packed one, and
 * raw packed after and before raw fixed-size: each stream is read by
 * its own header, and the delta state starts over at every header.
 */
static void test_packed_concat(void)
{
	static const int pairs[][2] = { { 0, 1 }, { 1, 0 }, { 0, 0 }, { 3, 2 },
					{ 2, 3 }, { 3, 0 } };
	static const char *const names[] = { "packed", "old compressed",
					     "raw fixed", "raw packed" };
	const char *pa = tpath("pc_a"), *pb = tpath("pc_b"), *pc = tpath("pc_ab");
	mp_rec ab[64], back[64];
	char msg[768];
	size_t na = extremes(ab), nb = extremes(ab + na);
	/* Message times in order across the two; the second stream's
	 * other fields differ from the first's, so that a delta state
	 * carried over would show. */
	for (size_t i = 0; i < na + nb; i++) {
		if (ab[i].tag == MP_REC_MSG || ab[i].tag == MP_REC_INJ)
			ab[i].msg.time = i < na ? (ab[i].msg.time ? 100 : 0) :
						  MP_TIME_MAX;
		if (i >= na && ab[i].tag == MP_REC_PKT)
			ab[i].pkt.t_inject = ab[i].pkt.t_eject = 1000 + i;
		if (i >= na && ab[i].tag == MP_REC_DLV)
			ab[i].dlv.id += 12345;
	}
	for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
		write_as(pa, ab, na, pairs[k][0]);
		write_as(pb, ab + na, nb, pairs[k][1]);
		cat2(pa, pb, pc);
		long got = read_recs(pc, back, 64, msg, sizeof msg);
		mp_err err;
		mp_reader *r = mp_reader_open(pc, &err);
		mp_rec rec;
		while (r && mp_reader_next(r, &rec) == 1)
			;
		CHECK(got == (long)(na + nb) && same_recs(ab, back, na + nb) &&
		     r && mp_reader_streams(r) == 2 &&
		     mp_reader_packed(r) == (pairs[k][0] == 0 || pairs[k][0] == 3),
		     "%s + %s: read as one, every record as written %s",
		     names[pairs[k][0]], names[pairs[k][1]], msg);
		mp_reader_close(r);
	}
}

/* The layout line this version writes for tag t ("msg 40 tag:u8@0 ..."). */
static void layout_of(int t, char *buf, size_t cap)
{
	size_t nf, len;
	const struct mp_field *f = mp_rec_fields(t, &nf);
	len = (size_t)snprintf(buf, cap, "%s %zu", mp_rec_name(t), mp_rec_size(t));
	for (size_t i = 0; i < nf; i++)
		len += (size_t)snprintf(buf + len, cap - len, " %s:u%d@%u",
					f[i].name, 8 * f[i].type, f[i].off);
}

/* A raw stream: header (version 1.1, flags, metadata meta) and body. */
static size_t make_stream(unsigned char *buf, int flags, const char *meta,
			  const unsigned char *body, size_t blen)
{
	size_t ml = strlen(meta);
	memcpy(buf, MP_MAGIC, 4);
	mp_put16(buf + 4, MP_FORMAT_MAJOR);
	mp_put16(buf + 6, MP_FORMAT_MINOR);
	mp_put16(buf + 8, MP_KIND_MESSAGES);
	mp_put16(buf + 10, (uint16_t)flags);
	mp_put32(buf + 12, (uint32_t)ml);
	mp_put32(buf + 16, 0);
	mp_put32(buf + 20, 0);
	memcpy(buf + 24, meta, ml);
	reseal(buf);
	memcpy(buf + 24 + ml, body, blen);
	return 24 + ml + blen;
}

/*
 * A packed record of tag t that would be valid after sample()'s first
 * record (u64 fields one more than the last, the others 1, dst 2), but
 * for field `name`, whose varint is the n bytes given.
 */
static size_t craft(unsigned char *out, int t, const char *name,
		    const unsigned char *bytes, size_t n)
{
	size_t nf, len = 0;
	const struct mp_field *f = mp_rec_fields(t, &nf);
	out[len++] = (unsigned char)t;
	for (size_t i = 1; i < nf; i++) {
		if (f[i].name[0] == '_')
			continue;
		if (strcmp(f[i].name, name) == 0) {
			memcpy(out + len, bytes, n);
			len += n;
		} else {
			out[len++] = f[i].type == MP_F_U64 ? 2 :
				     strcmp(f[i].name, "dst") == 0 ? 2 : 1;
		}
	}
	return len;
}

/*
 * Bad packed records, raw and compressed: each stops the reader at the
 * record, with the record's number and what is wrong with it.
 */
static void test_packed_corrupt(void)
{
	static const unsigned char over11[] = { 0x80, 0x80, 0x80, 0x80, 0x80,
		0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	static const unsigned char bits65[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0x02 };
	static const unsigned char u32over[] = { 0x80, 0x80, 0x80, 0x80, 0x10 };
	static const unsigned char u32max[] = { 0xff, 0xff, 0xff, 0xff, 0x0f };
	static const unsigned char u8over[] = { 0x80, 0x02 };
	static const unsigned char u16over[] = { 0x80, 0x80, 0x04 };
	static const unsigned char nonmin[] = { 0x85, 0x00 };
	static const unsigned char one[] = { 0x01 };
	static const struct {
		int tag;
		const char *field;
		const unsigned char *bytes;
		size_t n;
		const char *want;
	} cases[] = {
		{ 1, "src", over11, 11, "record 2: msg field 'src': varint longer "
					"than 10 bytes" },
		{ 1, "id", bits65, 10, "record 2: msg field 'id': varint beyond 64 "
				       "bits" },
		{ 1, "src", u32over, 5, "record 2: msg field 'src': 4294967296 "
					"too large for u32" },
		{ 1, "class", u8over, 2, "record 2: msg field 'class': 256 too "
					 "large for u8" },
		{ 3, "hops", u16over, 3, "record 2: pkt field 'hops': 65536 too "
					 "large for u16" },
		{ 4, "bytes", u32over, 5, "record 2: dlv field 'bytes': 4294967296 "
					  "too large for u32" },
		{ 1, "dst", nonmin, 2, "record 2: msg field 'dst': varint not in "
				       "its shortest form" },
		{ 10, "", one, 1, "record 2: unknown record tag 10" },
	};
	const char *p = tpath("pk_bad"), *pz = tpath("pk_badz");
	unsigned char body[256], buf[4096];
	char msg[768];
	size_t len, zl;
	mp_rec first[8], prev[MP_REC_NTAGS];

	sample(first, 0);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		memset(prev, 0, sizeof prev);
		size_t bl = ref_pack(&first[0], prev, body);
		bl += craft(body + bl, cases[k].tag, cases[k].field,
			    cases[k].bytes, cases[k].n);
		len = make_stream(buf, 1, "", body, bl);
		spit(p, buf, len);
		int ok = read_all(p, NULL, msg, sizeof msg) < 0 &&
			 strstr(msg, cases[k].want) != NULL;
		unsigned char *z = zstd_of(buf, len, &zl);
		spit(pz, z, zl);
		free(z);
		char zmsg[768];
		int zok = read_all(pz, NULL, zmsg, sizeof zmsg) < 0 &&
			  strstr(zmsg, cases[k].want) != NULL;
		CHECK(ok && zok, "packed, raw and compressed: %s (%s)",
		     cases[k].want, ok ? zmsg : msg);
	}

	/* The largest values that fit are not errors: the record reads
	 * (and the stream ends without its trailer). */
	memset(prev, 0, sizeof prev);
	size_t bl = ref_pack(&first[0], prev, body);
	bl += craft(body + bl, 1, "src", u32max, 5);
	len = make_stream(buf, 1, "", body, bl);
	spit(p, buf, len);
	CHECK(read_all(p, NULL, msg, sizeof msg) < 0 &&
	     strstr(msg, "record 3: stream cut short"),
	     "packed: a u32 field at 4294967295 reads: %s", msg);

	/* A record cut by the end of input, in each of its fields. */
	memset(prev, 0, sizeof prev);
	bl = ref_pack(&first[0], prev, body);
	size_t start = bl;
	bl += ref_pack(&first[2], prev, body + bl); /* a pkt record */
	int cuts_ok = 1;
	for (size_t cut = start + 1; cut < bl && cuts_ok; cut++) {
		len = make_stream(buf, 1, "", body, cut);
		spit(p, buf, len);
		cuts_ok = read_all(p, NULL, msg, sizeof msg) < 0 &&
			  strstr(msg, "record 2: truncated pkt record (") &&
			  strstr(msg, "incomplete)");
		unsigned char *z = zstd_of(buf, len, &zl);
		spit(pz, z, zl);
		free(z);
		char zmsg[768];
		cuts_ok = cuts_ok && read_all(pz, NULL, zmsg, sizeof zmsg) < 0 &&
			  strcmp(strchr(zmsg, ':'), strchr(msg, ':')) == 0;
	}
	CHECK(cuts_ok, "packed: a pkt record cut at each of its %zu bytes, raw "
	     "and compressed: %s", bl - start, msg);
	len = make_stream(buf, 1, "", body, start + 3);
	spit(p, buf, len);
	read_all(p, NULL, msg, sizeof msg);
	CHECK(strstr(msg, "record 2: truncated pkt record (3 bytes, field "
		      "'flags' incomplete)") != NULL, "packed: the cut named: %s",
	     msg);
}

/* Every prefix of a raw packed stream and every changed record byte:
 * exit 1 with a located message, or (a changed byte) a clean read. */
static void test_packed_torture(void)
{
	const char *p = tpath("pk_tort");
	mp_rec recs[8];
	size_t n = sample(recs, 0), len, bad = 0, first_bad = 0, unlocated = 0;
	char msg[768];
	static const unsigned char masks[] = { 0x01, 0x40, 0x80, 0xff };

	mp_hdr *h = sample_hdr(MP_KIND_DELIVERIES);
	write_stream(p, h, recs, n, 0);
	mp_hdr_free(h);
	size_t zl;
	unsigned char *z = t_slurp(p, &zl), *s = unzstd(z, zl, &len);
	free(z);
	size_t hl = hdr_len(s);
	for (size_t k = 0; k < len; k++) {
		spit(p, s, k);
		if (read_all(p, NULL, msg, sizeof msg) != -1 ||
		    strncmp(msg, p, strlen(p)) != 0 ||
		    (k >= hl && !strstr(msg, ": record "))) {
			if (!bad++)
				first_bad = k;
		}
	}
	CHECK(bad == 0, "packed raw: all %zu truncated prefixes fail with a "
	     "located message (first bad: %zu)", len, first_bad);
	unsigned char *c = malloc(len);
	size_t failed = 0;
	for (size_t k = hl; k < len; k++)
		for (size_t m = 0; m < sizeof masks; m++) {
			memcpy(c, s, len);
			c[k] ^= masks[m];
			spit(p, c, len);
			int rc = read_all(p, NULL, msg, sizeof msg);
			if (rc < 0) {
				failed++;
				if (!strstr(msg, ": record ") && !unlocated++)
					printf("# byte %zu ^ %02x: %s\n", k, masks[m],
					       msg);
			}
		}
	CHECK(unlocated == 0 && failed > 0, "packed raw: every changed record "
	     "byte reads or fails located (%zu of %zu fail)", failed,
	     (len - hl) * sizeof masks);
	free(c);
	free(s);
}

/*
 * A packed stream of a newer minor version: msg records with a field
 * added after this version's, a new record kind 10 with a padding field;
 * both declared by layout lines. The reader reads what it knows (by the
 * table-driven decoder: the layout is not its own) and skips the rest.
 * Field lists that contradict this version's are refused.
 */
static void test_packed_newer_minor(void)
{
	char l1[512], meta[2048];
	unsigned char body[1024], buf[4096];
	mp_rec m[8], prev[MP_REC_NTAGS], back[8];
	size_t bl = 0;
	char msg[768];
	const char *p = tpath("pk_minor");

	layout_of(MP_REC_MSG, l1, sizeof l1);
	l1[4] = '4', l1[5] = '8'; /* "msg 40" -> "msg 48" */
	snprintf(meta, sizeof meta, "nodes=91\nlayout.1=%s extra:u64@40\n"
		 "layout.10=future 16 tag:u8@0 a:u32@4 _pad:u32@8 b:u16@12\n", l1);
	sample(m, 0);
	m[1] = m[0];
	m[1].msg.id = UINT64_MAX;
	m[1].msg.time = 99;
	memset(prev, 0, sizeof prev);
	for (int i = 0; i < 2; i++) {
		bl += ref_pack(&m[i], prev, body + bl);
		bl += ref_varint(UINT64_MAX - (uint64_t)i, body + bl); /* extra */
		body[bl++] = 10;                   /* a future record */
		bl += ref_varint(70000, body + bl);
		bl += ref_varint(65535, body + bl);
	}
	mp_rec end = trailer_of(m, 2);
	bl += ref_pack(&end, prev, body + bl);
	spit(p, buf, make_stream(buf, 1, meta, body, bl));
	long got = read_recs(p, back, 8, msg, sizeof msg);
	CHECK(got == 2 && same_recs(m, back, 2), "packed newer minor: records "
	     "read, added field and new kind skipped (%ld records) %s", got, msg);

	/* The added field must still fit its type. */
	bl = 0;
	memset(prev, 0, sizeof prev);
	bl += ref_pack(&m[0], prev, body + bl);
	body[bl++] = 1;
	body[bl++] = 10;
	bl += ref_varint(UINT64_C(1) << 32, body + bl);
	bl += ref_varint(1, body + bl);
	spit(p, buf, make_stream(buf, 1, meta, body, bl));
	read_all(p, NULL, msg, sizeof msg);
	CHECK(strstr(msg, "record 2: tag 10 field 'a': 4294967296 too large for "
		      "u32") != NULL, "packed newer minor: a new kind's fields "
	     "checked: %s", msg);

	static const struct {
		const char *line, *want;
	} bad[] = {
		{ "layout.3=pkt 48 tag:u8@0 class:u8@1 group:u8@2 flags:u8@3 "
		  "src:u32@4 dst:u32@8 seq:u16@12 msg:u64@16 t_inject:u64@24 "
		  "t_eject:u64@32 hops:u16@40 deroutes:u16@42 refusals:u32@44",
		  "field 7 is not seq:u32" },
		{ "layout.1=msg 40", "lists 0 of its 11 fields" },
		{ "layout.10=future 8 tag:u8@0 a:u64@0", "outside its 8 bytes" },
		{ "layout.10=future 8 a:u8@0", "the first field is not tag:u8" },
		{ "layout.10=future 8 tag:u8@0 a:u12@1", "field 2 is malformed" },
		{ "layout.10=future 8 tag:u8@0 a:u8", "field 2 is malformed" },
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		snprintf(meta, sizeof meta, "%s\n", bad[k].line);
		spit(p, buf, make_stream(buf, 1, meta, body, 0));
		read_all(p, NULL, msg, sizeof msg);
		CHECK(strstr(msg, "header: layout of record tag") &&
		     strstr(msg, bad[k].want), "packed: layout refused: %s", msg);
		/* The same line in a raw stream is documentation only. */
		unsigned char endrec[64] = { MP_REC_END };
		spit(p, buf, make_stream(buf, 0, meta, endrec, 64));
		CHECK(read_all(p, NULL, msg, sizeof msg) == 0 ||
		     strstr(msg, "at least"), "fixed-size: not read as a field "
		     "list: %s", msg);
	}
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
	test_packed_round_trip();
	test_pack_coders();
	test_packed_long();
	test_packed_concat();
	test_packed_corrupt();
	test_packed_torture();
	test_packed_newer_minor();
	for (int i = 0; i < nmade; i++) {
		unlink(made[i]);
		free(made[i]);
	}
	rmdir(dir);
	return t_done();
}
