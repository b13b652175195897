/*
 * CSV views of record streams: formatting records as CSV rows, and a
 * row reader (libcsv underneath) that turns CSV files with named columns
 * into records. The only module that includes <csv.h>.
 *
 * CSV form of a record kind: a header row naming the fields of the
 * record's field table (mp_record.h) in order, without the tag and
 * padding fields; then one row per record, integers in decimal.
 * Optional leading comment lines "#key=value" carry the stream header
 * ("#kind=messages", metadata, "#prov=..."), so a stream dumped with its
 * metadata turns back into the same stream.
 *
 * Reading follows RFC 4180 (double quotes, "" inside them) and also takes
 * CRLF line ends, blanks around unquoted fields, blank lines, and '#'
 * comment lines anywhere outside a quoted field: those before the header
 * row are kept (mp_csv_comment), later ones skipped. Lines are at most
 * 1 MiB, rows at most 4096 fields.
 *
 * Ownership: mp_csv_open returns a reader freed by mp_csv_close; strings
 * it returns live until the next mp_csv_next or the close.
 */
#ifndef MP_CSV_H
#define MP_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "mp_record.h"
#include "mp_util.h"

typedef struct mp_csv_reader mp_csv_reader;

/*
 * Format the CSV header row of a record tag into buf (with the newline).
 * Returns the length needed, like snprintf.
 */
size_t mp_csv_format_header(int tag, char *buf, size_t cap);

/* Format one record as a CSV row (with the newline); as above. */
size_t mp_csv_format_rec(const mp_rec *rec, char *buf, size_t cap);

/*
 * Open a CSV file ("-" or NULL: standard input) and read its comment
 * lines and header row. Returns NULL with a message in err.
 */
mp_csv_reader *mp_csv_open(const char *path, mp_err *err);

/* Columns of the header row. */
size_t mp_csv_ncols(const mp_csv_reader *r);
const char *mp_csv_colname(const mp_csv_reader *r, size_t i);

/* Index of the column with this name (case-insensitive), or -1. */
int mp_csv_col(const mp_csv_reader *r, const char *name);

/* Comment lines before the header row, without the '#'. */
size_t mp_csv_ncomments(const mp_csv_reader *r);
const char *mp_csv_comment(const mp_csv_reader *r, size_t i);

/* Line number (1-based) of the i-th comment; 0 when there is none. */
uint64_t mp_csv_comment_line(const mp_csv_reader *r, size_t i);

/* Next data row: 1, 0 at end of input, -1 on error (mp_csv_error). */
int mp_csv_next(mp_csv_reader *r);

/* Field i of the current row; NULL when the row has fewer fields. */
const char *mp_csv_field(const mp_csv_reader *r, size_t i);

/* Fields in the current row. */
size_t mp_csv_nfields(const mp_csv_reader *r);

/* Line number (1-based) of the current row in the input. */
uint64_t mp_csv_line(const mp_csv_reader *r);

/* Input name for messages ("stdin" or the path). */
const char *mp_csv_name(const mp_csv_reader *r);

/* Message of the last failure: "<input>: line N: what". */
const char *mp_csv_error(const mp_csv_reader *r);

/*
 * Fill *rec (tag given) from the current row: columns named like the
 * record's fields are read as unsigned integers that must fit the field;
 * fields without a column are zero. Returns 0, or -1 with a message
 * naming the line and column in err.
 */
int mp_csv_to_rec(const mp_csv_reader *r, int tag, mp_rec *rec, mp_err *err);

/*
 * Check the header row against the fields of a record tag before any
 * row is read: 0, or -1 with "<input>: line N: unknown column 'x' ..."
 * in err (so a typo is caught even in a CSV without rows).
 */
int mp_csv_check_columns(const mp_csv_reader *r, int tag, mp_err *err);

void mp_csv_close(mp_csv_reader *r);

#endif
