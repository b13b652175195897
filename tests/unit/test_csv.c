/*
 * Unit tests of the CSV module (lib/mp_csv.c): formatting with
 * snprintf's contract, comments and their line numbers, quoted fields
 * spanning lines, column lookup, and records from named columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_csv.h"
#include "mp_record.h"
#include "t.h"

/* T_OK evaluates its condition twice: evaluate side effects once. */
#define CHECK(cond, ...) do { int ok_ = !!(cond); T_OK(ok_, __VA_ARGS__); } while (0)

static char dir[] = "/tmp/test_csv.XXXXXX";
static char path[300];

static mp_csv_reader *open_text(const char *text, mp_err *err)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return NULL;
	fputs(text, f);
	fclose(f);
	return mp_csv_open(path, err);
}

static void test_format(void)
{
	char buf[256], small[8];
	mp_rec rec;

	size_t n = mp_csv_format_header(MP_REC_DLV, buf, sizeof buf);
	CHECK(strcmp(buf, "class,group,src,dst,packets,id,t_arrive,t_first,"
		      "t_done,bytes,hops\n") == 0 && n == strlen(buf),
	      "dlv header row, without tag and padding");
	memset(&rec, 0, sizeof rec);
	rec.util = (struct mp_util){ .tag = MP_REC_UTIL, .scope = 2,
		.node = 0xffffffffu, .port = 6, .nports = 1,
		.t = UINT64_MAX, .busy = 7 };
	n = mp_csv_format_rec(&rec, buf, sizeof buf);
	CHECK(strcmp(buf, "2,4294967295,6,1,18446744073709551615,7,0,0,0\n") ==
	      0, "util row, full-width values");
	size_t m = mp_csv_format_rec(&rec, small, sizeof small);
	CHECK(m == n && strlen(small) == sizeof small - 1 &&
	      strncmp(small, buf, sizeof small - 1) == 0,
	      "a short buffer is cut and the needed length returned");
	CHECK(mp_csv_format_rec(&rec, NULL, 0) == n, "length with no buffer");
	CHECK(mp_csv_format_header(0, buf, sizeof buf) == 0 && buf[0] == '\0',
	      "unknown tag: empty");
}

static void test_reader(void)
{
	mp_err err;
	mp_rec rec;
	mp_csv_reader *r = open_text("#kind=deliveries\n"
				     "\n"
				     "# free text\n"
				     "Src,DST,\"packets\"\r\n"
				     "1,2,3\n"
				     "# skipped after the header\n"
				     "\"4\",\"5\n\",6\n"
				     "7,8,9", &err);
	CHECK(r != NULL, "open");
	if (!r)
		return;
	CHECK(mp_csv_ncomments(r) == 2 &&
	      strcmp(mp_csv_comment(r, 0), "kind=deliveries") == 0 &&
	      strcmp(mp_csv_comment(r, 1), " free text") == 0 &&
	      mp_csv_comment_line(r, 1) == 3, "comments with their lines");
	CHECK(mp_csv_ncols(r) == 3 && strcmp(mp_csv_colname(r, 2), "packets") == 0,
	      "header row, quotes and CR removed");
	CHECK(mp_csv_col(r, "dst") == 1 && mp_csv_col(r, "src") == 0 &&
	      mp_csv_col(r, "hops") == -1, "case-insensitive column lookup");
	CHECK(mp_csv_check_columns(r, MP_REC_DLV, &err) == 0, "columns of dlv");
	CHECK(mp_csv_next(r) == 1 && mp_csv_line(r) == 5 &&
	      mp_csv_nfields(r) == 3, "first row on line 5");
	CHECK(mp_csv_to_rec(r, MP_REC_DLV, &rec, &err) == 0 &&
	      rec.tag == MP_REC_DLV && rec.dlv.src == 1 && rec.dlv.dst == 2 &&
	      rec.dlv.packets == 3 && rec.dlv.t_done == 0, "row to dlv record");
	CHECK(mp_csv_next(r) == 1 && mp_csv_line(r) == 7 &&
	      strcmp(mp_csv_field(r, 1), "5\n") == 0 && !mp_csv_field(r, 3),
	      "quoted field across lines, numbered by its first line");
	CHECK(mp_csv_to_rec(r, MP_REC_DLV, &rec, &err) < 0 &&
	      strstr(err.msg, ": line 7: column 'DST': '5?' is not") != NULL,
	      "bad value located: %s", err.msg);
	CHECK(mp_csv_next(r) == 1 && mp_csv_line(r) == 9 &&
	      strcmp(mp_csv_field(r, 2), "9") == 0, "last line without newline");
	CHECK(mp_csv_next(r) == 0 && mp_csv_next(r) == 0, "end, and stays there");
	mp_csv_close(r);

	r = open_text("src,dst\n1,2\n", &err);
	CHECK(r && mp_csv_check_columns(r, MP_REC_UTIL, &err) < 0 &&
	      strstr(err.msg, "line 1: unknown column 'src' (util records"),
	      "check_columns names the column: %s", err.msg);
	mp_csv_close(r);

	r = open_text("src\n1\n\"2\n", &err);
	CHECK(r && mp_csv_next(r) == 1 && mp_csv_next(r) == -1 &&
	      strstr(mp_csv_error(r), "line 3: quoted field is not closed"),
	      "unclosed quote at the end: %s", r ? mp_csv_error(r) : "");
	mp_csv_close(r);

	r = open_text("", &err);
	CHECK(!r && strstr(err.msg, "no header row"), "empty file: %s", err.msg);
	r = mp_csv_open("/nonexistent/x.csv", &err);
	CHECK(!r && strstr(err.msg, "No such file"), "missing file: %s", err.msg);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/t.csv", dir);
	test_format();
	test_reader();
	unlink(path);
	rmdir(dir);
	return t_done();
}
