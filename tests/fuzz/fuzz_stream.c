/*
 * Fuzz target for the stream reader (lib/mp_stream.c), as sched, netrun,
 * lstat and mpcat use it: the input is opened as a named file and read to
 * the end, and read again from a pipe fed in uneven chunks. Contracts:
 * both reads end the same way (same records and message; for corrupt
 * compressed input, at least both fail); a failure is one line naming
 * the input; after a clean end the trailers' counts match the records
 * returned; and whatever was read, written back out (raw or compressed,
 * as sched and mpcat copy do) reads back identically.
 */
#include <inttypes.h>

#include "fuzz.h"
#include "mp_csv.h"
#include "mp_record.h"
#include "mp_stream.h"

/* What one read of a stream gave. */
struct stream_result {
	int rc;               /* last mp_reader_next: 0 clean end, -1 error */
	int opened;
	char msg[768];        /* the failure, without the input's name */
	uint64_t nrec;
	uint64_t count[MP_REC_NTAGS];
	uint32_t digest;      /* of the records returned, in order */
	mp_rec *recs;         /* kept when keep is set */
	size_t cap;
};

static void result_free(struct stream_result *s)
{
	free(s->recs);
	memset(s, 0, sizeof *s);
}

/* The message without its leading "<name>: ". */
static void strip_name(char *dst, size_t cap, const char *msg, const char *name)
{
	size_t n = strlen(name);
	if (strncmp(msg, name, n) == 0 && msg[n] == ':')
		msg += n + (msg[n + 1] == ' ' ? 2 : 1);
	snprintf(dst, cap, "%s", msg);
}

/* Header values the programs parse as numbers: must not crash. */
static void touch_header(const mp_hdr *h)
{
	static const char *const keys[] = { "nodes", "short_max", "pe_time",
					    "load", "sched.alpha", "packet_time",
					    "payload", "messages", "seed" };
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		uint64_t u;
		double d;
		(void)mp_hdr_get_u64(h, keys[i], &u);
		(void)mp_hdr_get_double(h, keys[i], &d);
	}
	for (size_t i = 0; i < mp_hdr_count(h); i++)
		if (!mp_hdr_key(h, i) || !mp_hdr_value(h, i))
			fuzz_fail("header entry %zu has no key or value", i);
	(void)mp_kind_name(mp_hdr_kind(h));
}

/* A record as mpcat -c writes it: must fit mpcat's 1024-byte buffer. */
static void touch_csv(const mp_rec *rec)
{
	char buf[1024];
	size_t n = mp_csv_format_rec(rec, buf, sizeof buf);
	if (n == 0 || n >= sizeof buf || buf[n - 1] != '\n')
		fuzz_fail("record with tag %d formats to %zu CSV bytes", rec->tag,
			  n);
}

/*
 * What the reader returns has passed its checks (meshpipe(5),
 * Validation): a record that breaks them would reach a program.
 */
static void check_valid(const mp_rec *rec, uint64_t nodes, int deps,
			uint64_t *last)
{
	const struct mp_msg *m = &rec->msg;
	switch (rec->tag) {
	case MP_REC_MSG:
	case MP_REC_INJ:
		/* A deps stream may send to the source itself. */
		if (m->packets == 0 || (m->src == m->dst && !deps) ||
		    (nodes && (m->src >= nodes || m->dst >= nodes)) ||
		    m->cls > MP_CLASS_GT || m->group > MP_GROUP_HOT ||
		    m->route > MP_ROUTE_ADAPTIVE || m->time > MP_TIME_MAX ||
		    m->time < *last)
			fuzz_fail("reader returned a bad message: src %u dst %u "
				  "packets %u time %" PRIu64 " (after %" PRIu64 ")",
				  m->src, m->dst, m->packets, m->time, *last);
		*last = m->time;
		break;
	case MP_REC_PKT:
		if (rec->pkt.t_eject < rec->pkt.t_inject ||
		    (nodes && (rec->pkt.src >= nodes || rec->pkt.dst >= nodes)))
			fuzz_fail("reader returned a bad packet record");
		break;
	case MP_REC_DLV:
		if (rec->dlv.packets == 0 || rec->dlv.t_first < rec->dlv.t_arrive ||
		    rec->dlv.t_done < rec->dlv.t_first ||
		    (nodes && (rec->dlv.src >= nodes || rec->dlv.dst >= nodes)))
			fuzz_fail("reader returned a bad delivery record");
		break;
	case MP_REC_UTIL:
		if (rec->util.scope > MP_UTIL_INTERNAL_INPUT_END ||
		    rec->util.refused > rec->util.busy)
			fuzz_fail("reader returned a bad utilization record");
		break;
	case MP_REC_RUN:
		if (rec->run.status > MP_RUN_STOPPED)
			fuzz_fail("reader returned a bad run record");
		break;
	case MP_REC_DEP:
		if (!deps || rec->dep.n > MP_DEP_IDS ||
		    (rec->dep.n == 0 && rec->dep.users == 0))
			fuzz_fail("reader returned a bad dep record");
		break;
	case MP_REC_REL:
		if (!deps || rec->rel.t_release < rec->rel.t_trace)
			fuzz_fail("reader returned a bad rel record");
		break;
	default:
		break;
	}
}

/* Read everything from reader r into s. */
static void drain_reader(mp_reader *r, struct stream_result *s, int keep)
{
	mp_rec rec;
	int rc;
	uint64_t nodes = 0, last = 0;
	(void)mp_hdr_get_u64(mp_reader_header(r), "nodes", &nodes);
	int deps = mp_hdr_deps(mp_reader_header(r));
	s->digest = 2166136261u;
	while ((rc = mp_reader_next(r, &rec)) == 1) {
		size_t size = mp_rec_size(rec.tag);
		if (size == 0 || rec.tag == MP_REC_END) {
			fuzz_fail("reader returned a record with tag %d", rec.tag);
			break;
		}
		s->count[rec.tag]++;
		s->nrec++;
		for (size_t i = 0; i < size; i++)
			s->digest = (s->digest ^ rec.raw[i]) * 16777619u;
		if (keep) {
			if (s->nrec > s->cap) {
				size_t cap = s->cap ? 2 * s->cap : 64;
				mp_rec *p = realloc(s->recs, cap * sizeof *p);
				if (!p) {
					fuzz_fail("out of memory");
					break;
				}
				s->recs = p;
				s->cap = cap;
			}
			s->recs[s->nrec - 1] = rec;
		}
		touch_csv(&rec);
		check_valid(&rec, nodes, deps, &last);
	}
	s->rc = rc;
	if (rc < 0) {
		fuzz_check_msg("mp_reader_next", mp_reader_error(r),
			       mp_reader_name(r));
		strip_name(s->msg, sizeof s->msg, mp_reader_error(r),
			   mp_reader_name(r));
		/* A failed reader stays failed. */
		if (mp_reader_next(r, &rec) != -1)
			fuzz_fail("mp_reader_next went on after a failure");
	} else if (rc == 0) {
		for (int t = 1; t < MP_REC_END; t++)
			if (mp_reader_declared(r, t) != s->count[t])
				fuzz_fail("trailers declare %" PRIu64 " %s records, "
					  "%" PRIu64 " were returned",
					  mp_reader_declared(r, t), mp_rec_name(t),
					  s->count[t]);
	} else {
		fuzz_fail("mp_reader_next returned %d", rc);
	}
}

/* Open path (or fd when path is NULL) and read it all. */
static mp_reader *read_stream(const char *path, int fd, const char *name,
			      struct stream_result *s, int keep)
{
	mp_err err;
	mp_reader *r = path ? mp_reader_open(path, &err) :
			      mp_reader_fdopen(fd, name, &err);
	memset(s, 0, sizeof *s);
	if (!r) {
		s->rc = -1;
		fuzz_check_msg("mp_reader_open", err.msg, path ? path : name);
		strip_name(s->msg, sizeof s->msg, err.msg, path ? path : name);
		return NULL;
	}
	s->opened = 1;
	touch_header(mp_reader_header(r));
	drain_reader(r, s, keep);
	return r;
}

/* Write what was read as a new stream, read it back, compare. */
static void round_trip(const mp_hdr *h, const struct stream_result *s,
		       int flags)
{
	mp_err err;
	mp_hdr *c = mp_hdr_dup(h);
	char *argv[] = { (char *)"fuzz", (char *)"--round-trip" };
	if (!c || mp_hdr_add_prov(c, "fuzz", 2, argv, 1, 42) < 0) {
		mp_hdr_free(c);
		fuzz_fail("header copy failed");
		return;
	}
	const char *p = fuzz_path(1);
	mp_writer *w = mp_writer_open(p, c, flags, &err);
	if (!w) {
		/* A header the reader accepted must be writable. */
		fuzz_fail("writer refused a header the reader accepted: %s",
			  err.msg);
		mp_hdr_free(c);
		return;
	}
	for (uint64_t i = 0; i < s->nrec; i++)
		if (mp_writer_put(w, &s->recs[i]) < 0) {
			fuzz_fail("writer refused record %" PRIu64 ": %s", i + 1,
				  mp_writer_error(w));
			break;
		}
	if (mp_writer_close(w, &err) < 0) {
		fuzz_fail("writer close failed: %s", err.msg);
		mp_hdr_free(c);
		return;
	}
	mp_reader *r = mp_reader_open(p, &err);
	if (!r) {
		fuzz_fail("rewritten stream refused: %s", err.msg);
		mp_hdr_free(c);
		return;
	}
	/* Same metadata (layouts are the writer's own), same records. */
	const mp_hdr *h2 = mp_reader_header(r);
	if (mp_hdr_kind(h2) != mp_hdr_kind(h))
		fuzz_fail("round trip changed the kind");
	for (size_t i = 0, j = 0; i < mp_hdr_count(c); i++) {
		const char *k = mp_hdr_key(c, i);
		if (strncmp(k, "layout.", 7) == 0)
			continue;
		while (j < mp_hdr_count(h2) &&
		       strncmp(mp_hdr_key(h2, j), "layout.", 7) == 0)
			j++;
		if (j >= mp_hdr_count(h2) || strcmp(mp_hdr_key(h2, j), k) != 0 ||
		    strcmp(mp_hdr_value(h2, j), mp_hdr_value(c, i)) != 0) {
			fuzz_fail("round trip changed metadata entry '%s'", k);
			break;
		}
		j++;
	}
	mp_rec rec;
	uint64_t n = 0;
	int rc;
	while ((rc = mp_reader_next(r, &rec)) == 1) {
		if (n >= s->nrec || rec.tag != s->recs[n].tag ||
		    memcmp(rec.raw, s->recs[n].raw, mp_rec_size(rec.tag)) != 0) {
			fuzz_fail("round trip changed record %" PRIu64, n + 1);
			break;
		}
		n++;
	}
	if (rc < 0)
		fuzz_fail("rewritten stream fails: %s", mp_reader_error(r));
	else if (rc == 0 && n != s->nrec)
		fuzz_fail("round trip read %" PRIu64 " of %" PRIu64 " records", n,
			  s->nrec);
	mp_reader_close(r);
	mp_hdr_free(c);
}

static void fuzz_stream(const uint8_t *data, size_t size)
{
	struct stream_result a, b;
	const char *p = fuzz_put(0, data, size);
	mp_reader *r = read_stream(p, -1, NULL, &a, 1);

	/* The same bytes through a pipe, in uneven chunks. */
	uint32_t seed = fuzz_hash(data, size);
	struct fuzz_feed feed;
	int fd = fuzz_feed_start(&feed, data, size, seed, 1 + seed % 300);
	if (fd >= 0) {
		mp_reader *r2 = read_stream(NULL, fd, "stdin", &b, 0);
		mp_reader_close(r2);
		close(fd);
		fuzz_feed_join(&feed);
		/* zstd finds corruption at a point that depends on how
		 * much input it was given at once: then only the failure
		 * itself must agree. Otherwise, the records and message. */
		int zstd = strstr(a.msg, "compressed input") ||
			   strstr(b.msg, "compressed input");
		if (a.rc != b.rc || (!(a.rc < 0 && zstd) &&
				     (a.nrec != b.nrec || a.digest != b.digest ||
				      strcmp(a.msg, b.msg) != 0)))
			fuzz_fail("file and pipe reads differ: %d %" PRIu64
				  " records '%s' / %d %" PRIu64 " records '%s'",
				  a.rc, a.nrec, a.msg, b.rc, b.nrec, b.msg);
		result_free(&b);
	}

	if (r && a.rc == 0)
		round_trip(mp_reader_header(r), &a, seed & 1 ? MP_W_RAW : 0);
	mp_reader_close(r);
	result_free(&a);
}

#ifndef FUZZ_DRIVER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_stream(data, size);
	return 0;
}
#endif
