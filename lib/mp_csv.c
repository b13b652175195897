/*
 * CSV views of record streams: records formatted as CSV rows, and a CSV
 * reader (libcsv parses the fields; this module adds comment lines, line
 * numbers and the mapping of named columns onto record fields). The only
 * module that includes <csv.h>.
 */
#include "mp_csv.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest physical line and most fields in a row accepted. */
#define LINE_MAX_BYTES (1u << 20)
#define FIELDS_MAX 4096

struct mp_csv_reader {
	FILE *fp;
	int own_fp;
	char *name;
	char err[768];
	int failed, eof;
	struct csv_parser parser;
	int parser_ready;
	/* Physical lines. */
	char *line;
	size_t line_cap;
	uint64_t lineno; /* lines read so far */
	/* The row being assembled by the callbacks, then the current row. */
	char *text;      /* field texts, each NUL-terminated */
	size_t text_len, text_cap;
	size_t *off;     /* offset of each field in text */
	size_t nf, off_cap;
	int in_row;      /* a row has started and not yet ended */
	int row_done;    /* the parser ended the row */
	int row_nul;     /* a field held a NUL byte */
	int row_oom;
	uint64_t row_line; /* line the row started on */
	uint64_t header_line;
	/* Header row and leading comments. */
	char **cols;
	size_t ncols;
	/* For each record tag, the field each column names (or NULL). */
	const struct mp_field **colmap[MP_REC_NTAGS];
	char **comments;
	uint64_t *comment_lines;
	size_t ncomments, comments_cap;
};

MP_PRINTF(3, 4)
static int fail_line(mp_csv_reader *r, uint64_t line, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (line)
		snprintf(r->err, sizeof r->err, "%s: line %" PRIu64 ": %s",
			 r->name, line, what);
	else
		snprintf(r->err, sizeof r->err, "%s: %s", r->name, what);
	r->failed = 1;
	return -1;
}

/* libcsv field callback: append the field to the row being assembled. */
static void on_field(void *s, size_t len, void *data)
{
	mp_csv_reader *r = data;
	if (r->row_oom)
		return;
	if (r->nf == r->off_cap) {
		size_t cap = r->off_cap ? 2 * r->off_cap : 32;
		size_t *o = cap <= FIELDS_MAX + 1 ?
			realloc(r->off, cap * sizeof *o) : NULL;
		if (!o) {
			r->row_oom = 1;
			return;
		}
		r->off = o;
		r->off_cap = cap;
	}
	if (r->text_len + len + 1 > r->text_cap) {
		size_t cap = r->text_cap ? r->text_cap : 256;
		while (r->text_len + len + 1 > cap)
			cap *= 2;
		char *t = realloc(r->text, cap);
		if (!t) {
			r->row_oom = 1;
			return;
		}
		r->text = t;
		r->text_cap = cap;
	}
	if (len && memchr(s, '\0', len))
		r->row_nul = 1;
	r->off[r->nf++] = r->text_len;
	if (len)
		memcpy(r->text + r->text_len, s, len);
	r->text_len += len;
	r->text[r->text_len++] = '\0';
}

/* libcsv row callback: the row is complete. */
static void on_row(int c, void *data)
{
	mp_csv_reader *r = data;
	(void)c;
	r->row_done = 1;
}

/* Only a line feed ends a row, so a physical line ends at most one. */
static int is_term(unsigned char c)
{
	return c == '\n';
}

/* Blanks around unquoted fields, including the CR of CRLF lines. */
static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int blank_line(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_space((unsigned char)s[i]) && s[i] != '\n')
			return 0;
	return 1;
}

/* Strip a trailing "\n" or "\r\n" in place. */
static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

static int add_comment(mp_csv_reader *r, const char *text, uint64_t line)
{
	if (r->ncomments == r->comments_cap) {
		size_t cap = r->comments_cap ? 2 * r->comments_cap : 16;
		char **c = realloc(r->comments, cap * sizeof *c);
		if (!c)
			return -1;
		r->comments = c;
		uint64_t *l = realloc(r->comment_lines, cap * sizeof *l);
		if (!l)
			return -1;
		r->comment_lines = l;
		r->comments_cap = cap;
	}
	char *s = strdup(text);
	if (!s)
		return -1;
	chomp(s);
	r->comments[r->ncomments] = s;
	r->comment_lines[r->ncomments++] = line;
	return 0;
}

/*
 * Read the next row into text/off/nf. Comment lines ('#' in the first
 * column, outside a quoted field) are collected while collect is set and
 * skipped otherwise; blank lines are skipped. Returns 1, 0 at the end of
 * input, -1 on error.
 */
static int read_row(mp_csv_reader *r, int collect)
{
	if (r->failed)
		return -1;
	if (r->eof)
		return 0;
	r->nf = 0;
	r->text_len = 0;
	r->row_done = r->row_nul = r->row_oom = 0;
	r->in_row = 0;
	for (;;) {
		errno = 0;
		ssize_t n = getline(&r->line, &r->line_cap, r->fp);
		if (n < 0) {
			if (ferror(r->fp))
				return fail_line(r, 0, "read failed: %s",
						 strerror(errno ? errno : EIO));
			r->eof = 1;
			if (r->in_row)
				return fail_line(r, r->row_line,
						 "quoted field is not closed");
			return 0;
		}
		r->lineno++;
		if ((size_t)n > LINE_MAX_BYTES)
			return fail_line(r, r->lineno, "line is longer than %u bytes",
					 LINE_MAX_BYTES);
		if (!r->in_row) {
			if (r->line[0] == '#') {
				if (collect && add_comment(r, r->line + 1, r->lineno) < 0)
					return fail_line(r, r->lineno, "out of memory");
				continue;
			}
			if (blank_line(r->line, (size_t)n))
				continue;
			r->in_row = 1;
			r->row_line = r->lineno;
		}
		/* The last line may lack its newline: the row ends there. */
		if (r->line[n - 1] != '\n') {
			if ((size_t)n + 2 > r->line_cap) {
				char *l = realloc(r->line, (size_t)n + 2);
				if (!l)
					return fail_line(r, r->lineno, "out of memory");
				r->line = l;
				r->line_cap = (size_t)n + 2;
			}
			r->line[n++] = '\n';
			r->line[n] = '\0';
		}
		size_t done = csv_parse(&r->parser, r->line, (size_t)n, on_field,
					on_row, r);
		if (done != (size_t)n) {
			int e = csv_error(&r->parser);
			if (e == CSV_EPARSE)
				return fail_line(r, r->lineno, "malformed quoted "
						 "field (a quote inside an unquoted "
						 "field, or text after a closing quote)");
			return fail_line(r, r->lineno, "%s", csv_strerror(e));
		}
		if (r->row_oom)
			return fail_line(r, r->row_line, "out of memory (or more "
					 "than %u fields)", FIELDS_MAX);
		if (r->text_len > LINE_MAX_BYTES)
			return fail_line(r, r->row_line, "row is longer than %u "
					 "bytes", LINE_MAX_BYTES);
		if (r->row_done) {
			r->in_row = 0;
			if (r->row_nul)
				return fail_line(r, r->row_line,
						 "a field holds a NUL byte");
			return 1;
		}
	}
}

/* Whether a field of a table is a CSV column (not padding, not the tag). */
static int is_column_field(const struct mp_field *f)
{
	return f->name[0] != '_' && strcmp(f->name, "tag") != 0;
}

/* The field a column names, or NULL. */
static const struct mp_field *column_field(const struct mp_field *f, size_t n,
					   const char *col)
{
	for (size_t i = 0; i < n; i++)
		if (is_column_field(&f[i]) && strcasecmp(f[i].name, col) == 0)
			return &f[i];
	return NULL;
}

/* Map the columns to the fields of every record tag, once. */
static int map_columns(mp_csv_reader *r)
{
	for (int t = 1; t < MP_REC_NTAGS; t++) {
		size_t n;
		const struct mp_field *f = mp_rec_fields(t, &n);
		r->colmap[t] = calloc(r->ncols ? r->ncols : 1, sizeof *r->colmap[t]);
		if (!r->colmap[t])
			return -1;
		for (size_t i = 0; i < r->ncols; i++)
			r->colmap[t][i] = column_field(f, n, r->cols[i]);
	}
	return 0;
}

mp_csv_reader *mp_csv_open(const char *path, mp_err *err)
{
	int is_stdin = !path || strcmp(path, "-") == 0;
	const char *name = is_stdin ? "stdin" : path;
	mp_csv_reader *r = calloc(1, sizeof *r);
	if (!r) {
		mp_err_set(err, "%s: out of memory", name);
		return NULL;
	}
	r->name = strdup(name);
	if (!r->name || csv_init(&r->parser, CSV_STRICT | CSV_STRICT_FINI |
						     CSV_APPEND_NULL) != 0) {
		mp_err_set(err, "%s: out of memory", name);
		mp_csv_close(r);
		return NULL;
	}
	r->parser_ready = 1;
	csv_set_term_func(&r->parser, is_term);
	csv_set_space_func(&r->parser, is_space);
	if (is_stdin) {
		r->fp = stdin;
	} else {
		r->fp = fopen(path, "r");
		if (!r->fp) {
			mp_err_set(err, "%s: %s", path, strerror(errno));
			mp_csv_close(r);
			return NULL;
		}
		r->own_fp = 1;
	}

	int rc = read_row(r, 1);
	if (rc == 0)
		fail_line(r, 0, "no header row");
	if (rc <= 0) {
		mp_err_set(err, "%s", r->err);
		mp_csv_close(r);
		return NULL;
	}
	r->cols = calloc(r->nf, sizeof *r->cols);
	if (!r->cols) {
		mp_err_set(err, "%s: out of memory", name);
		mp_csv_close(r);
		return NULL;
	}
	r->ncols = r->nf;
	for (size_t i = 0; i < r->nf; i++) {
		const char *c = r->text + r->off[i];
		if (*c == '\0')
			fail_line(r, r->row_line, "header row: column %zu has no "
				  "name", i + 1);
		for (const char *p = c; *p && !r->failed; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				fail_line(r, r->row_line, "header row: the name "
					  "of column %zu holds a control "
					  "character", i + 1);
		for (size_t j = 0; j < i && !r->failed; j++)
			if (strcasecmp(r->cols[j], c) == 0)
				fail_line(r, r->row_line, "header row: column '%s' "
					  "appears twice", c);
		if (!r->failed && !(r->cols[i] = strdup(c)))
			fail_line(r, 0, "out of memory");
		if (r->failed) {
			mp_err_set(err, "%s", r->err);
			mp_csv_close(r);
			return NULL;
		}
	}
	if (map_columns(r) < 0) {
		mp_err_set(err, "%s: out of memory", name);
		mp_csv_close(r);
		return NULL;
	}
	r->header_line = r->row_line;
	r->nf = 0;
	return r;
}

size_t mp_csv_ncols(const mp_csv_reader *r)
{
	return r->ncols;
}

const char *mp_csv_colname(const mp_csv_reader *r, size_t i)
{
	return i < r->ncols ? r->cols[i] : NULL;
}

int mp_csv_col(const mp_csv_reader *r, const char *name)
{
	for (size_t i = 0; i < r->ncols; i++)
		if (strcasecmp(r->cols[i], name) == 0)
			return (int)i;
	return -1;
}

size_t mp_csv_ncomments(const mp_csv_reader *r)
{
	return r->ncomments;
}

const char *mp_csv_comment(const mp_csv_reader *r, size_t i)
{
	return i < r->ncomments ? r->comments[i] : NULL;
}

uint64_t mp_csv_comment_line(const mp_csv_reader *r, size_t i)
{
	return i < r->ncomments ? r->comment_lines[i] : 0;
}

int mp_csv_next(mp_csv_reader *r)
{
	return read_row(r, 0);
}

const char *mp_csv_field(const mp_csv_reader *r, size_t i)
{
	return i < r->nf ? r->text + r->off[i] : NULL;
}

size_t mp_csv_nfields(const mp_csv_reader *r)
{
	return r->nf;
}

uint64_t mp_csv_line(const mp_csv_reader *r)
{
	return r->row_line;
}

const char *mp_csv_name(const mp_csv_reader *r)
{
	return r->name;
}

const char *mp_csv_error(const mp_csv_reader *r)
{
	return r->err;
}

int mp_csv_check_columns(const mp_csv_reader *r, int tag, mp_err *err)
{
	if (tag <= 0 || tag >= MP_REC_NTAGS || tag == MP_REC_END)
		return mp_err_set(err, "%s: record tag %d cannot be read from "
				  "CSV", r->name, tag);
	for (size_t i = 0; i < r->ncols; i++)
		if (!r->colmap[tag][i])
			return mp_err_set(err, "%s: line %" PRIu64 ": unknown "
					  "column '%s' (%s records have no such "
					  "field)", r->name, r->header_line,
					  r->cols[i], mp_rec_name(tag));
	return 0;
}

/*
 * A value as an error message shows it: control characters as '?', at
 * most cap-4 bytes then "...", so a message stays one line. Returns
 * whether the value is all decimal digits.
 */
static int show_value(const char *v, char *out, size_t cap)
{
	size_t n = 0;
	int digits = 1;
	for (const char *p = v; *p; p++)
		if (*p < '0' || *p > '9')
			digits = 0;
	for (; *v && n + 4 < cap; v++)
		out[n++] = (unsigned char)*v < 0x20 || *v == 0x7f ? '?' : *v;
	if (*v)
		memcpy(out + n, "...", 3), n += 3;
	out[n] = '\0';
	return digits;
}

int mp_csv_to_rec(const mp_csv_reader *r, int tag, mp_rec *rec, mp_err *err)
{
	if (tag <= 0 || tag >= MP_REC_NTAGS || tag == MP_REC_END)
		return mp_err_set(err, "%s: line %" PRIu64 ": record tag %d "
				  "cannot be read from CSV", r->name,
				  r->row_line, tag);
	if (r->nf != r->ncols)
		return mp_err_set(err, "%s: line %" PRIu64 ": %zu field%s, the "
				  "header row has %zu column%s", r->name,
				  r->row_line, r->nf, r->nf == 1 ? "" : "s",
				  r->ncols, r->ncols == 1 ? "" : "s");
	memset(rec, 0, sizeof *rec);
	rec->tag = (uint8_t)tag;
	for (size_t i = 0; i < r->ncols; i++) {
		const struct mp_field *fd = r->colmap[tag][i];
		const char *v = r->text + r->off[i];
		uint64_t max = fd ? (fd->type == MP_F_U64 ? UINT64_MAX :
				     (UINT64_C(1) << (8 * fd->type)) - 1) : 0;
		uint64_t x;

		if (!fd)
			return mp_err_set(err, "%s: line %" PRIu64 ": unknown "
					  "column '%s' (%s records have no such "
					  "field)", r->name, r->row_line,
					  r->cols[i], mp_rec_name(tag));
		if (*v == '\0')
			return mp_err_set(err, "%s: line %" PRIu64 ": column '%s' "
					  "is empty", r->name, r->row_line,
					  r->cols[i]);
		if (mp_parse_u64(v, 0, max, &x, "", NULL) < 0) {
			char shown[80];
			int digits = show_value(v, shown, sizeof shown);
			if (!digits)
				return mp_err_set(err, "%s: line %" PRIu64 ": column "
						  "'%s': '%s' is not an unsigned "
						  "integer", r->name, r->row_line,
						  r->cols[i], shown);
			return mp_err_set(err, "%s: line %" PRIu64 ": column '%s': "
					  "%s is too large (at most %" PRIu64 ")",
					  r->name, r->row_line, r->cols[i], shown,
					  max);
		}
		mp_rec_set(rec, fd, x);
	}
	return 0;
}

void mp_csv_close(mp_csv_reader *r)
{
	if (!r)
		return;
	if (r->own_fp)
		fclose(r->fp);
	if (r->parser_ready)
		csv_free(&r->parser);
	for (size_t i = 0; i < r->ncols; i++)
		free(r->cols[i]);
	free(r->cols);
	for (int t = 0; t < MP_REC_NTAGS; t++)
		free(r->colmap[t]);
	for (size_t i = 0; i < r->ncomments; i++)
		free(r->comments[i]);
	free(r->comments);
	free(r->comment_lines);
	free(r->line);
	free(r->text);
	free(r->off);
	free(r->name);
	free(r);
}

/* Append to buf like snprintf, tracking the length needed in *len. */
MP_PRINTF(4, 5)
static void bprintf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + (*len < cap ? *len : cap),
			  *len < cap ? cap - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

size_t mp_csv_format_header(int tag, char *buf, size_t cap)
{
	size_t n, len = 0;
	const struct mp_field *f = mp_rec_fields(tag, &n);
	int first = 1;

	if (cap)
		buf[0] = '\0';
	if (!f)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_column_field(&f[i]))
			continue;
		bprintf(buf, cap, &len, "%s%s", first ? "" : ",", f[i].name);
		first = 0;
	}
	bprintf(buf, cap, &len, "\n");
	return len;
}

size_t mp_csv_format_rec(const mp_rec *rec, char *buf, size_t cap)
{
	size_t n, len = 0;
	const struct mp_field *f = mp_rec_fields(rec->tag, &n);
	int first = 1;

	if (cap)
		buf[0] = '\0';
	if (!f)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_column_field(&f[i]))
			continue;
		bprintf(buf, cap, &len, "%s%" PRIu64, first ? "" : ",",
			mp_rec_get(rec, &f[i]));
		first = 0;
	}
	bprintf(buf, cap, &len, "\n");
	return len;
}
