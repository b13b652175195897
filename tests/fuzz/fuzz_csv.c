/*
 * Fuzz target for the CSV importer (lib/mp_csv.c), as mpcat -C uses it:
 * the input is opened as a CSV file and every row is turned into a
 * record of each kind (msg, inj, pkt, dlv, util, run). Contracts: every
 * failure is one line naming the file; the comment lines and columns the
 * reader reports are well formed; and a row it accepts, formatted back
 * as CSV, gives the same field values.
 */
#include <inttypes.h>

#include "fuzz.h"
#include "mp_csv.h"
#include "mp_record.h"
#include "mp_stream.h"

/* A record formatted by mp_csv_format_rec must hold its field values. */
static void check_format(const mp_rec *rec)
{
	char buf[1024];
	size_t nf;
	const struct mp_field *f = mp_rec_fields(rec->tag, &nf);
	size_t n = mp_csv_format_rec(rec, buf, sizeof buf);
	if (n == 0 || n >= sizeof buf) {
		fuzz_fail("tag %d: formatted row of %zu bytes", rec->tag, n);
		return;
	}
	char *s = buf;
	for (size_t i = 0; i < nf; i++) {
		if (f[i].name[0] == '_' || strcmp(f[i].name, "tag") == 0)
			continue;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(s, &end, 10);
		if (errno || end == s || (*end != ',' && *end != '\n') ||
		    v != mp_rec_get(rec, &f[i])) {
			fuzz_fail("tag %d: field %s formats as '%.30s'", rec->tag,
				  f[i].name, s);
			return;
		}
		s = end + 1;
	}
	if (*s != '\0')
		fuzz_fail("tag %d: formatted row has extra text '%.30s'", rec->tag,
			  s);
}

/* The metadata comments, as mpcat -C turns them into a header. */
static void comments_to_header(const mp_csv_reader *cr)
{
	mp_hdr *h = mp_hdr_new(MP_KIND_MESSAGES);
	if (!h)
		return;
	for (size_t i = 0; i < mp_csv_ncomments(cr); i++) {
		const char *c = mp_csv_comment(cr, i);
		if (!c) {
			fuzz_fail("comment %zu is missing", i);
			break;
		}
		if (strchr(c, '\n'))
			fuzz_fail("comment %zu holds a newline", i);
		if (mp_csv_comment_line(cr, i) == 0)
			fuzz_fail("comment %zu has no line number", i);
		const char *eq = strchr(c, '=');
		if (!eq || eq == c || eq - c > 200)
			continue;
		char key[256];
		memcpy(key, c, (size_t)(eq - c));
		key[eq - c] = '\0';
		if (strcmp(key, "kind") == 0) {
			int k = mp_kind_from_name(eq + 1);
			if (k)
				mp_hdr_set_kind(h, k);
			continue;
		}
		/* Refused when the key or value is malformed: fine. */
		if (mp_hdr_set(h, key, eq + 1) == 0 &&
		    strcmp(mp_hdr_get(h, key), eq + 1) != 0 &&
		    strcmp(key, "prov") != 0)
			fuzz_fail("metadata '%s' did not keep its value", key);
	}
	mp_hdr_free(h);
}

static void fuzz_csv(const uint8_t *data, size_t size)
{
	static const int tags[] = { MP_REC_MSG, MP_REC_INJ, MP_REC_PKT,
				    MP_REC_DLV, MP_REC_UTIL, MP_REC_RUN };
	const char *p = fuzz_put(0, data, size);

	for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
		mp_err err;
		mp_csv_reader *cr = mp_csv_open(p, &err);
		if (!cr) {
			fuzz_check_msg("mp_csv_open", err.msg, p);
			return; /* the same for every kind */
		}
		if (mp_csv_ncols(cr) == 0)
			fuzz_fail("a header row without columns was accepted");
		for (size_t i = 0; i < mp_csv_ncols(cr); i++) {
			const char *c = mp_csv_colname(cr, i);
			if (!c || !*c || mp_csv_col(cr, c) != (int)i)
				fuzz_fail("column %zu is empty or not found by name",
					  i + 1);
		}
		if (t == 0)
			comments_to_header(cr);
		if (mp_csv_check_columns(cr, tags[t], &err) < 0)
			fuzz_check_msg("mp_csv_check_columns", err.msg, p);
		int rc;
		uint64_t rows = 0, last_line = 0;
		while ((rc = mp_csv_next(cr)) == 1) {
			mp_rec rec;
			rows++;
			if (mp_csv_line(cr) <= last_line)
				fuzz_fail("row %" PRIu64 " is on line %" PRIu64
					  ", the one before on %" PRIu64, rows,
					  mp_csv_line(cr), last_line);
			last_line = mp_csv_line(cr);
			for (size_t i = 0; i < mp_csv_nfields(cr); i++)
				if (!mp_csv_field(cr, i))
					fuzz_fail("field %zu of %zu is missing", i,
						  mp_csv_nfields(cr));
			if (mp_csv_to_rec(cr, tags[t], &rec, &err) == 0) {
				if (rec.tag != tags[t])
					fuzz_fail("record has tag %d, asked %d",
						  rec.tag, tags[t]);
				check_format(&rec);
			} else {
				fuzz_check_msg("mp_csv_to_rec", err.msg, p);
			}
		}
		if (rc < 0) {
			fuzz_check_msg("mp_csv_next", mp_csv_error(cr), p);
			if (mp_csv_next(cr) != -1)
				fuzz_fail("mp_csv_next went on after a failure");
		}
		mp_csv_close(cr);
	}
}

#ifndef FUZZ_DRIVER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_csv(data, size);
	return 0;
}
#endif
