/*
 * mpcat: look at and convert meshpipe record streams. It prints a
 * stream's header and record counts, dumps records as CSV, turns CSV
 * (recorded traces, edited dumps) back into a stream, and copies any
 * number of streams into one, re-encoded raw or compressed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp_csv.h"
#include "mp_prog.h"
#include "mp_record.h"
#include "mp_stream.h"
#include "mp_util.h"

enum { M_NONE, M_HEADER, M_COUNT, M_CSV, M_FROM_CSV, M_COPY };

/* What the options asked for. */
struct opts {
	int mode;
	int count, csv, force, from_csv, header, meta, raw;
	const char *kind, *output, *rec;
	char **sets;
	size_t nsets;
};

/* The inputs of the stream modes, read one after the other as one. */
struct inputs {
	char **files;
	int nfiles, cur;
	mp_reader *r;
	mp_hdr *first;      /* header of the first input (a copy) */
	uint64_t nodes;     /* of the first input; 0 when not given */
	uint64_t last_time; /* of the last msg/inj record, across inputs */
	uint64_t count[MP_REC_NTAGS];
};

static const char *out_name = "stdout";
static char *out_tmp; /* -o's temporary name until renamed on success */
static const char *out_path;

static void usage(FILE *fp)
{
	fputs("usage: mpcat [-Hn] [file ...]\n"
	      "       mpcat -c [-m] [-o file] [-r rec] [file ...]\n"
	      "       mpcat -C [-f] [--raw] [-k kind] [-o file] [-r rec] "
	      "[-s key=value] ... [csvfile]\n"
	      "       mpcat [--raw] [-o file] file ...\n"
	      "\n"
	      "  -C, --from-csv     read CSV, write a stream\n"
	      "  -c, --csv          dump the records of one kind as CSV\n"
	      "  -f, --force        with -C: write the stream to a terminal too\n"
	      "  -H, --header       print the header of the first stream\n"
	      "  -h, --help         print this help and exit\n"
	      "  -k, --kind KIND    stream kind for -C: messages, injections,\n"
	      "                     deliveries, utilization\n"
	      "  -m, --meta         with -c: first write #kind= and #key=value\n"
	      "                     comment lines of the header\n"
	      "  -n, --count        print the number of records of each kind\n"
	      "  -o, --output FILE  write to FILE instead of standard output\n"
	      "      --raw          write the stream uncompressed\n"
	      "  -r, --rec REC      record kind for -c and -C: msg, inj, pkt,\n"
	      "                     dlv, util, run, dep, rel\n"
	      "  -s, --set KEY=VAL  with -C: set a metadata entry (repeatable)\n"
	      "\n"
	      "With no mode, streams are copied into one stream; when standard\n"
	      "output is a terminal, -H is assumed instead.\n",
	      fp);
}

MP_PRINTF(1, 2)
static void errx_msg(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("mpcat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Fatal signals: remove an -o file's temporary name, then die of it. */
static void on_signal(int sig)
{
	mp_tmpout_unlink_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The main record of a stream kind: what -c and -C use by default. */
static int main_rec(int kind)
{
	switch (kind) {
	case MP_KIND_INJECTIONS:
		return MP_REC_INJ;
	case MP_KIND_DELIVERIES:
		return MP_REC_DLV;
	case MP_KIND_UTILIZATION:
		return MP_REC_UTIL;
	default:
		return MP_REC_MSG;
	}
}

/* -r REC: a record kind a stream carries (not the trailer). */
static int parse_rec(const char *name)
{
	int tag = mp_rec_tag(name);
	if (tag == 0 || tag == MP_REC_END)
		mp_usage_error("--rec: unknown record kind '%s' (msg, inj, pkt, dlv, "
			  "util, run, dep, rel)", name);
	return tag;
}

/* Whether a metadata value is printable text (as mp_hdr_set demands). */
static int printable(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

static int valid_key(const char *k, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= '0' && k[i] <= '9') ||
		      k[i] == '_' || k[i] == '.'))
			return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

/*
 * Point standard output at -o's file, so every mode writes to fd 1 and
 * a failed run can divert what is still buffered to /dev/null.
 */
static int open_output(const char *path)
{
	mp_err err;
	int fd = mp_tmpout_open(path, &out_tmp, &err);
	if (fd < 0) {
		errx_msg("%s", err.msg);
		return -1;
	}
	if (fd != 1) {
		if (dup2(fd, 1) < 0) {
			errx_msg("%s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		close(fd);
	}
	out_name = path;
	out_path = path;
	return 0;
}

/*
 * After a failure: send the rest of the output (the stream trailer above
 * all) to /dev/null, so a consumer sees a stream cut short, never one
 * that looks complete; remove an -o file.
 */
static void discard_output(void)
{
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0) {
		dup2(fd, 1);
		close(fd);
	}
	mp_tmpout_discard(out_tmp);
	out_tmp = NULL;
}

/* Report a library write error "stdout: what" under the output's name. */
static void report_write(const char *msg)
{
	if (strncmp(msg, "stdout: ", 8) == 0)
		msg += 8;
	errx_msg("%s: %s", out_name, msg);
}

/* Check standard output after a write; -1 (reported) when it failed. */
static int out_ok(void)
{
	if (!ferror(stdout))
		return 0;
	errx_msg("%s: write failed: %s", out_name, strerror(errno ? errno : EIO));
	return -1;
}

/* Flush and close standard output; -1 (reported) on failure. */
static int out_close(void)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		errx_msg("%s: write failed: %s", out_name,
			 strerror(errno ? errno : EIO));
		fclose(stdout);
		return -1;
	}
	if (fclose(stdout) != 0) {
		errx_msg("%s: write failed: %s", out_name, strerror(errno));
		return -1;
	}
	return 0;
}

/* Refuse to run when output would overwrite an input (cat(1) does). */
static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int check_not_output(char **files, int n, const char *path)
{
	struct stat out;
	if (path ? stat(path, &out) != 0 : fstat(1, &out) != 0)
		return 0;
	if (!S_ISREG(out.st_mode))
		return 0;
	for (int i = 0; i < n; i++) {
		struct stat in;
		int is_stdin = strcmp(files[i], "-") == 0;
		if (is_stdin ? fstat(0, &in) != 0 : stat(files[i], &in) != 0)
			continue;
		if (same_file(&in, &out)) {
			errx_msg("%s: input file is also the output",
				 is_stdin ? "stdin" : files[i]);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Record checks                                                       */

/*
 * The checks every stream reader makes (lib/mp_stream.c), made here
 * before writing so a bad CSV row is reported by its line and never
 * becomes a stream that the next program refuses. Returns 0, or -1
 * with the reason in what.
 */
static int check_rec(const mp_rec *rec, uint64_t nodes, int self_ok,
		     uint64_t *last_time, char *what, size_t cap)
{
	unsigned long long n = (unsigned long long)nodes;

	switch (rec->tag) {
	case MP_REC_MSG:
	case MP_REC_INJ: {
		const struct mp_msg *m = &rec->msg;
		unsigned long long id = (unsigned long long)m->id;
		if (m->packets == 0)
			snprintf(what, cap, "message %llu has zero length", id);
		else if (nodes && m->src >= nodes)
			snprintf(what, cap, "source %u out of range (%llu nodes)",
				 m->src, n);
		else if (nodes && m->dst >= nodes)
			snprintf(what, cap, "destination %u out of range (%llu "
				 "nodes)", m->dst, n);
		else if (m->src == m->dst && !self_ok)
			snprintf(what, cap, "message %llu is sent to its own "
				 "source %u", id, m->src);
		else if (m->cls > MP_CLASS_GT)
			snprintf(what, cap, "unknown traffic class %u", m->cls);
		else if (m->group > MP_GROUP_HOT)
			snprintf(what, cap, "unknown source group %u", m->group);
		else if (m->route > MP_ROUTE_ADAPTIVE)
			snprintf(what, cap, "unknown routing choice %u", m->route);
		else if (m->time > MP_TIME_MAX)
			snprintf(what, cap, "time %llu out of range (at most %llu)",
				 (unsigned long long)m->time,
				 (unsigned long long)MP_TIME_MAX);
		else if (m->time < *last_time)
			snprintf(what, cap, "out of time order: time %llu after "
				 "%llu", (unsigned long long)m->time,
				 (unsigned long long)*last_time);
		else {
			*last_time = m->time;
			return 0;
		}
		return -1;
	}
	case MP_REC_PKT:
	case MP_REC_DLV:
		/* src and dst sit at the same offsets in both. */
		if (nodes && (rec->pkt.src >= nodes || rec->pkt.dst >= nodes))
			snprintf(what, cap, "node %u out of range (%llu nodes)",
				 rec->pkt.src >= nodes ? rec->pkt.src : rec->pkt.dst,
				 n);
		else if (rec->tag == MP_REC_PKT &&
			 rec->pkt.t_eject < rec->pkt.t_inject)
			snprintf(what, cap, "packet ejected before it was injected");
		else if (rec->tag == MP_REC_DLV &&
			 (rec->dlv.t_done < rec->dlv.t_first ||
			  rec->dlv.t_first < rec->dlv.t_arrive ||
			  rec->dlv.packets == 0))
			snprintf(what, cap, "inconsistent message delivery times");
		else
			return 0;
		return -1;
	case MP_REC_UTIL:
		if (rec->util.scope > MP_UTIL_INTERNAL_INPUT_END)
			snprintf(what, cap, "bad utilization record (scope %u)",
				 rec->util.scope);
		else if (rec->util.refused > rec->util.busy)
			snprintf(what, cap, "refused time exceeds busy time");
		else
			return 0;
		return -1;
	case MP_REC_RUN:
		if (rec->run.status > MP_RUN_STOPPED) {
			snprintf(what, cap, "bad run record (status %u)",
				 rec->run.status);
			return -1;
		}
		return 0;
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Stream inputs                                                       */

static uint64_t hdr_nodes(const mp_hdr *h)
{
	uint64_t n;
	return mp_hdr_get_u64(h, "nodes", &n) == 0 ? n : 0;
}

/* Open input i; later inputs must agree with the first, as
 * concatenated streams must. 0, or -1 (reported). */
static int in_open(struct inputs *in, int i)
{
	mp_err err;
	mp_reader *r = mp_reader_open(in->files[i], &err);
	if (!r) {
		errx_msg("%s", err.msg);
		return -1;
	}
	const mp_hdr *h = mp_reader_header(r);
	if (!in->first) {
		in->first = mp_hdr_dup(h);
		if (!in->first) {
			errx_msg("%s: out of memory", mp_reader_name(r));
			mp_reader_close(r);
			return -1;
		}
		in->nodes = hdr_nodes(h);
	} else if (mp_hdr_kind(h) != mp_hdr_kind(in->first)) {
		errx_msg("%s: stream of kind %s, the first input is of kind %s",
			 mp_reader_name(r), mp_kind_name(mp_hdr_kind(h)),
			 mp_kind_name(mp_hdr_kind(in->first)));
		mp_reader_close(r);
		return -1;
	} else if (hdr_nodes(h) != in->nodes) {
		errx_msg("%s: stream for %llu nodes, the first input is for %llu",
			 mp_reader_name(r), (unsigned long long)hdr_nodes(h),
			 (unsigned long long)in->nodes);
		mp_reader_close(r);
		return -1;
	}
	in->r = r;
	in->cur = i;
	return 0;
}

/* Next record of all inputs: 1, 0 at the end, -1 (reported). */
static int in_next(struct inputs *in, mp_rec *rec)
{
	for (;;) {
		if (!in->r) {
			if (in->cur + 1 >= in->nfiles)
				return 0;
			if (in_open(in, in->cur + 1) < 0)
				return -1;
		}
		int rc = mp_reader_next(in->r, rec);
		if (rc < 0) {
			errx_msg("%s", mp_reader_error(in->r));
			return -1;
		}
		if (rc == 0) {
			mp_reader_close(in->r);
			in->r = NULL;
			continue;
		}
		if (rec->tag == MP_REC_MSG || rec->tag == MP_REC_INJ) {
			/* The reader checks order within an input; across
			 * inputs, as if they were concatenated. */
			if (rec->msg.time < in->last_time) {
				errx_msg("%s: record %llu: out of time order: time "
					 "%llu after %llu (of an earlier input)",
					 mp_reader_name(in->r),
					 (unsigned long long)mp_reader_recno(in->r),
					 (unsigned long long)rec->msg.time,
					 (unsigned long long)in->last_time);
				return -1;
			}
			in->last_time = rec->msg.time;
		}
		in->count[rec->tag]++;
		return 1;
	}
}

static void in_close(struct inputs *in)
{
	mp_reader_close(in->r);
	in->r = NULL;
	mp_hdr_free(in->first);
	in->first = NULL;
}

/* ------------------------------------------------------------------ */
/* Modes                                                               */

static void print_counts(const struct inputs *in)
{
	for (int t = 1; t < MP_REC_NTAGS; t++)
		if (in->count[t])
			printf("%s %llu\n", mp_rec_name(t),
			       (unsigned long long)in->count[t]);
}

/* -H and -n. */
static int run_header(struct inputs *in, const struct opts *o)
{
	mp_rec rec;
	int rc;

	if (in_open(in, 0) < 0)
		return 1;
	if (o->header) {
		const mp_hdr *h = in->first;
		unsigned np = 0;
		printf("kind: %s\n", mp_kind_name(mp_hdr_kind(h)));
		printf("version: %u.%u\n", mp_hdr_major(h), mp_hdr_minor(h));
		printf("encoding: %s, %s records\n",
		       mp_reader_compressed(in->r) ? "compressed (zstd)" : "raw",
		       mp_reader_packed(in->r) ? "packed" : "fixed-size");
		for (size_t i = 0; i < mp_hdr_count(h); i++)
			if (strcmp(mp_hdr_key(h, i), "prov") != 0)
				printf("%s=%s\n", mp_hdr_key(h, i),
				       mp_hdr_value(h, i));
		for (size_t i = 0; i < mp_hdr_count(h); i++)
			if (strcmp(mp_hdr_key(h, i), "prov") == 0)
				printf("prov %u: %s\n", ++np, mp_hdr_value(h, i));
		if (out_ok() < 0)
			return 1;
	}
	if (!o->count)
		return out_close() < 0 ? 1 : 0;
	while ((rc = in_next(in, &rec)) > 0)
		;
	if (rc < 0)
		return 1;
	print_counts(in);
	return out_close() < 0 ? 1 : 0;
}

/* -c: records of one kind as CSV. */
static int run_csv(struct inputs *in, const struct opts *o)
{
	char buf[1024];
	mp_rec rec;
	int rc;

	if (in_open(in, 0) < 0)
		return 1;
	const mp_hdr *h = in->first;
	int tag = o->rec ? parse_rec(o->rec) : main_rec(mp_hdr_kind(h));
	if (o->meta) {
		printf("#kind=%s\n", mp_kind_name(mp_hdr_kind(h)));
		for (size_t i = 0; i < mp_hdr_count(h); i++)
			if (strncmp(mp_hdr_key(h, i), "layout.", 7) != 0)
				printf("#%s=%s\n", mp_hdr_key(h, i),
				       mp_hdr_value(h, i));
	}
	mp_csv_format_header(tag, buf, sizeof buf);
	fputs(buf, stdout);
	if (out_ok() < 0)
		return 1;
	while ((rc = in_next(in, &rec)) > 0) {
		if (rec.tag != tag)
			continue;
		mp_csv_format_rec(&rec, buf, sizeof buf);
		errno = 0;
		fputs(buf, stdout);
		if (out_ok() < 0)
			return 1;
	}
	if (rc < 0)
		return 1;
	return out_close() < 0 ? 1 : 0;
}

/* Close a writer; after a failure, without letting the trailer out. */
static int finish_writer(mp_writer *w, int failed)
{
	mp_err err;
	if (failed)
		discard_output();
	if (mp_writer_close(w, &err) < 0) {
		if (!failed)
			report_write(err.msg);
		return 1;
	}
	return failed;
}

/* Copy mode: every record of every input into one stream. */
static int run_copy(struct inputs *in, const struct opts *o, int argc,
		    char **argv)
{
	mp_err err;
	mp_rec rec;
	int rc;

	if (in_open(in, 0) < 0)
		return 1;
	mp_hdr *h = mp_hdr_dup(in->first);
	if (!h || mp_hdr_add_prov(h, "mpcat", argc, argv, 0, 0) < 0) {
		mp_hdr_free(h);
		errx_msg("out of memory");
		return 1;
	}
	mp_writer *w = mp_writer_open("-", h, o->raw ? MP_W_RAW : 0, &err);
	mp_hdr_free(h);
	if (!w) {
		report_write(err.msg);
		discard_output();
		return 1;
	}
	while ((rc = in_next(in, &rec)) > 0)
		if (mp_writer_put(w, &rec) < 0) {
			report_write(mp_writer_error(w));
			return finish_writer(w, 1);
		}
	return finish_writer(w, rc < 0);
}

/*
 * A comment of a CSV: "kind=NAME" gives the kind, "key=value" a
 * metadata entry, anything else is free text. Returns 0, or -1
 * (reported).
 */
static int csv_comment(const mp_csv_reader *cr, size_t i, mp_hdr *h,
		       int *kind)
{
	const char *c = mp_csv_comment(cr, i);
	const char *eq = strchr(c, '=');
	uint64_t line = mp_csv_comment_line(cr, i);
	const char *name = mp_csv_name(cr);
	size_t klen;

	if (!eq)
		return 0;
	klen = (size_t)(eq - c);
	for (size_t k = 0; k < klen; k++)
		if (!((c[k] | 32) >= 'a' && (c[k] | 32) <= 'z') &&
		    !(c[k] >= '0' && c[k] <= '9') && !strchr("_.-", c[k]))
			return 0; /* free text that happens to hold a '=' */
	if (!valid_key(c, klen)) {
		errx_msg("%s: line %llu: bad metadata key '%.*s' (keys are made "
			 "of a-z, 0-9, '_' and '.')", name,
			 (unsigned long long)line, (int)klen, c);
		return -1;
	}
	if (klen == 4 && strncmp(c, "kind", 4) == 0) {
		*kind = mp_kind_from_name(eq + 1);
		if (!*kind) {
			errx_msg("%s: line %llu: unknown stream kind '%s'", name,
				 (unsigned long long)line, eq + 1);
			return -1;
		}
		return 0;
	}
	if (strncmp(c, "layout.", 7) == 0)
		return 0; /* the writer describes its own layouts */
	if (!printable(eq + 1)) {
		errx_msg("%s: line %llu: metadata value of '%.*s' holds a control "
			 "character", name, (unsigned long long)line, (int)klen, c);
		return -1;
	}
	char key[256];
	if (klen >= sizeof key) {
		errx_msg("%s: line %llu: metadata key is too long", name,
			 (unsigned long long)line);
		return -1;
	}
	memcpy(key, c, klen);
	key[klen] = '\0';
	if (mp_hdr_set(h, key, eq + 1) < 0) {
		errx_msg("%s: out of memory", name);
		return -1;
	}
	return 0;
}

/* -C: CSV to a stream. */
static int run_from_csv(const char *path, const struct opts *o, int argc,
			char **argv)
{
	mp_err err;
	mp_rec rec;
	char what[256];
	int kind = MP_KIND_MESSAGES, rc, failed = 0;

	if (!o->output && isatty(1)) {
		errx_msg("stdout is a terminal: not writing a binary stream "
			 "there (redirect it or use -o)");
		return 1;
	}
	mp_csv_reader *cr = mp_csv_open(path, &err);
	if (!cr) {
		errx_msg("%s", err.msg);
		return 1;
	}
	const char *name = mp_csv_name(cr);
	mp_hdr *h = mp_hdr_new(kind);
	if (!h) {
		errx_msg("out of memory");
		mp_csv_close(cr);
		return 1;
	}
	for (size_t i = 0; i < mp_csv_ncomments(cr); i++)
		if (csv_comment(cr, i, h, &kind) < 0)
			goto fail;
	if (o->kind)
		kind = mp_kind_from_name(o->kind);
	mp_hdr_set_kind(h, kind);
	for (size_t i = 0; i < o->nsets; i++) {
		char *eq = strchr(o->sets[i], '=');
		*eq = '\0';
		rc = mp_hdr_set(h, o->sets[i], eq + 1);
		*eq = '=';
		if (rc < 0) {
			errx_msg("out of memory");
			goto fail;
		}
	}
	int tag = o->rec ? parse_rec(o->rec) : main_rec(kind);
	if (mp_csv_check_columns(cr, tag, &err) < 0) {
		errx_msg("%s", err.msg);
		goto fail;
	}
	uint64_t nodes = 0;
	const char *ns = mp_hdr_get(h, "nodes");
	if (ns && mp_parse_u64(ns, 1, UINT32_MAX, &nodes, "nodes", &err) < 0) {
		errx_msg("%s: metadata %s", name, err.msg);
		goto fail;
	}
	/* As a reader: a message may go to its own source in a deps=1
	 * stream or with dest=any (meshpipe(5) "Validation"). */
	const char *dest = mp_hdr_get(h, "dest");
	int self_ok = mp_hdr_deps(h) || (dest && strcmp(dest, "any") == 0);
	if (mp_hdr_add_prov(h, "mpcat", argc, argv, 0, 0) < 0) {
		errx_msg("out of memory");
		goto fail;
	}

	mp_writer *w = mp_writer_open("-", h, o->raw ? MP_W_RAW : 0, &err);
	mp_hdr_free(h);
	h = NULL;
	if (!w) {
		report_write(err.msg);
		discard_output();
		mp_csv_close(cr);
		return 1;
	}
	uint64_t last_time = 0, row = 0;
	/* Message ids must be unique: without an id column, number the
	 * messages in row order (as wlgen --replay does), not all 0. */
	int number = (tag == MP_REC_MSG || tag == MP_REC_INJ) &&
		     mp_csv_col(cr, "id") < 0;
	while ((rc = mp_csv_next(cr)) > 0) {
		if (mp_csv_to_rec(cr, tag, &rec, &err) < 0) {
			errx_msg("%s", err.msg);
			failed = 1;
			break;
		}
		if (number)
			rec.msg.id = row;
		row++;
		if (check_rec(&rec, nodes, self_ok, &last_time, what,
			      sizeof what) < 0) {
			errx_msg("%s: line %llu: %s", name,
				 (unsigned long long)mp_csv_line(cr), what);
			failed = 1;
			break;
		}
		if (mp_writer_put(w, &rec) < 0) {
			report_write(mp_writer_error(w));
			failed = 1;
			break;
		}
	}
	if (rc < 0) {
		errx_msg("%s", mp_csv_error(cr));
		failed = 1;
	}
	mp_csv_close(cr);
	return finish_writer(w, failed);
fail:
	mp_hdr_free(h);
	mp_csv_close(cr);
	return 1;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "count", no_argument, NULL, 'n' },
		{ "csv", no_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ "from-csv", no_argument, NULL, 'C' },
		{ "header", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "kind", required_argument, NULL, 'k' },
		{ "meta", no_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "raw", no_argument, NULL, 'R' },
		{ "rec", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	/* Static, so early exits leave nothing unreachable behind. */
	static struct opts o;
	static char **pargv;
	int c;

	mp_prog_init("mpcat", usage);

	/* A closed pipe downstream ends mpcat as it would any writer. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* getopt_long permutes argv: keep the command line for provenance. */
	int pargc = argc - 1;
	pargv = malloc((size_t)argc * sizeof *pargv);
	o.sets = malloc((size_t)argc * sizeof *o.sets);
	if (!pargv || !o.sets) {
		errx_msg("out of memory");
		return 1;
	}
	for (int i = 1; i < argc; i++)
		pargv[i - 1] = argv[i];

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":CcfHhk:mno:r:s:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'C':
			o.from_csv = 1;
			break;
		case 'c':
			o.csv = 1;
			break;
		case 'H':
			o.header = 1;
			break;
		case 'h':
			usage(stdout);
			return out_close() < 0 ? 1 : 0;
		case 'k':
			if (!mp_kind_from_name(optarg))
				mp_usage_error("--kind: unknown stream kind '%s' "
					  "(messages, injections, deliveries, "
					  "utilization)", optarg);
			o.kind = optarg;
			break;
		case 'm':
			o.meta = 1;
			break;
		case 'n':
			o.count = 1;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'R':
			o.raw = 1;
			break;
		case 'r':
			parse_rec(optarg);
			o.rec = optarg;
			break;
		case 's': {
			const char *eq = strchr(optarg, '=');
			if (!eq || !valid_key(optarg, (size_t)(eq - optarg)))
				mp_usage_error("--set: '%s' is not key=value (keys "
					  "are made of a-z, 0-9, '_' and '.')",
					  optarg);
			if (strncmp(optarg, "kind=", 5) == 0 ||
			    strncmp(optarg, "layout.", 7) == 0)
				mp_usage_error("--set: '%.*s' is not a metadata key "
					  "you can set (use --kind for the kind)",
					  (int)(eq - optarg), optarg);
			if (!printable(eq + 1))
				mp_usage_error("--set: the value of '%.*s' holds a "
					  "control character",
					  (int)(eq - optarg), optarg);
			o.sets[o.nsets++] = optarg;
			break;
		}
		case 'f':
			o.force = 1;
			break;
		default: {
			mp_err err;
			mp_opt_err(c, optopt, argv[optind - 1], &err);
			mp_usage_error("%s", err.msg);
		}
		}
	}
	argc -= optind;
	argv += optind;

	if (o.csv + o.from_csv + (o.header || o.count) > 1)
		mp_usage_error("-c, -C and -H/-n are different modes: choose one");
	if (o.meta && !o.csv)
		mp_usage_error("--meta goes with --csv");
	if ((o.kind || o.nsets) && !o.from_csv)
		mp_usage_error("--kind and --set go with --from-csv");
	if (o.rec && !o.csv && !o.from_csv)
		mp_usage_error("--rec goes with --csv or --from-csv");
	if (o.raw && (o.csv || o.header || o.count))
		mp_usage_error("--raw goes with --from-csv or a copy");
	if (o.from_csv && argc > 1)
		mp_usage_error("--from-csv reads one CSV file");

	if (o.from_csv && !o.output && isatty(1) && !o.force)
		mp_usage_error("standard output is a terminal: -C writes a binary "
			  "stream; pipe it, use -o FILE, or force with -f");
	if (o.force && !o.from_csv)
		mp_usage_error("--force goes with --from-csv");
	if (o.from_csv)
		o.mode = M_FROM_CSV;
	else if (o.csv)
		o.mode = M_CSV;
	else if (o.header)
		o.mode = M_HEADER;
	else if (o.count)
		o.mode = M_COUNT;
	else if (o.output || !isatty(1))
		o.mode = M_COPY;
	else {
		if (argc == 0 && isatty(0))
			mp_usage_error("standard input is a terminal: give a stream "
				  "file or pipe one in");
		o.mode = M_HEADER;
		o.header = 1;
	}

	if (o.mode != M_FROM_CSV && argc == 0 && isatty(0))
		mp_usage_error("standard input is a terminal: give a stream file or "
			  "pipe one in");
	static char *stdin_only[] = { (char *)"-" };
	struct inputs in;
	memset(&in, 0, sizeof in);
	in.files = argc > 0 ? argv : stdin_only;
	in.nfiles = argc > 0 ? argc : 1;

	if (check_not_output(in.files, in.nfiles, o.output) < 0)
		return 1;
	if (o.output && open_output(o.output) < 0)
		return 1;

	int rc;
	switch (o.mode) {
	case M_FROM_CSV:
		rc = run_from_csv(argc > 0 ? argv[0] : "-", &o, pargc, pargv);
		break;
	case M_CSV:
		rc = run_csv(&in, &o);
		break;
	case M_COPY:
		rc = run_copy(&in, &o, pargc, pargv);
		break;
	default:
		rc = run_header(&in, &o);
		break;
	}
	in_close(&in);
	if (rc != 0) {
		discard_output();
	} else if (out_tmp) {
		mp_err err;
		char *t = out_tmp;
		out_tmp = NULL;
		if (mp_tmpout_commit(t, out_path, &err) < 0) {
			errx_msg("%s", err.msg);
			rc = 1;
		}
	}
	free(pargv);
	free(o.sets);
	return rc;
}
