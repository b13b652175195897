/*
 * Record streams: the self-describing header (kind, metadata, provenance,
 * record layouts) and the reader and writer that move records through
 * files and pipes: zstd-compressed with packed records by default, or
 * raw with fixed-size ones. The byte format is specified in
 * man/meshpipe.5.
 *
 * Ownership: mp_hdr_new/mp_hdr_dup return headers the caller frees with
 * mp_hdr_free. A reader owns its header (mp_reader_header) until
 * mp_reader_close. A writer copies the header it is given. Strings
 * returned by getters live as long as their owner and its next change.
 * Nothing here prints or exits: failures return -1 (or NULL) and leave a
 * one-line message, which names the input and the record where it can.
 */
#ifndef MP_STREAM_H
#define MP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "mp_record.h"
#include "mp_util.h"

typedef struct mp_hdr mp_hdr;
typedef struct mp_reader mp_reader;
typedef struct mp_writer mp_writer;

/* The 4-byte magic that starts every uncompressed stream. */
#define MP_MAGIC "\x8dmp\n"

/* Largest metadata section accepted, in bytes. */
#define MP_META_MAX (1u << 20)

/* A new empty header of the given kind; NULL when out of memory. */
mp_hdr *mp_hdr_new(int kind);

/* A copy of h; NULL when out of memory. */
mp_hdr *mp_hdr_dup(const mp_hdr *h);

void mp_hdr_free(mp_hdr *h);

int mp_hdr_kind(const mp_hdr *h);
void mp_hdr_set_kind(mp_hdr *h, int kind);

/* Format version the header was read with (the writer's for new ones). */
unsigned mp_hdr_major(const mp_hdr *h);
unsigned mp_hdr_minor(const mp_hdr *h);

/* Value of key, or NULL when absent. */
const char *mp_hdr_get(const mp_hdr *h, const char *key);

/*
 * Set key to val, replacing an earlier value. Keys are [a-z0-9_.]+,
 * values printable without newlines; returns -1 when they are not or
 * when out of memory.
 */
int mp_hdr_set(mp_hdr *h, const char *key, const char *val);
int mp_hdr_setf(mp_hdr *h, const char *key, const char *fmt, ...)
	MP_PRINTF(3, 4);

/* Remove key if present. */
void mp_hdr_unset(mp_hdr *h, const char *key);

/* Whether the header says deps=1: the stream may hold dep and rel
 * records, and is written as format 1.2. */
int mp_hdr_deps(const mp_hdr *h);

/*
 * Numeric getters: 0 and *v set, or -1 when key is absent or its value
 * is not a number of that type.
 */
int mp_hdr_get_u64(const mp_hdr *h, const char *key, uint64_t *v);
int mp_hdr_get_double(const mp_hdr *h, const char *key, double *v);

/*
 * Append a provenance entry: program name, library version, the seed
 * (when has_seed) and the arguments after the program name (argv[0] is
 * not one of them), shell-quoted. Returns -1 when out of memory.
 */
int mp_hdr_add_prov(mp_hdr *h, const char *prog, int argc, char *const argv[],
		    int has_seed, uint64_t seed);

/* Number of metadata entries, and the i-th key and value, in order. */
size_t mp_hdr_count(const mp_hdr *h);
const char *mp_hdr_key(const mp_hdr *h, size_t i);
const char *mp_hdr_value(const mp_hdr *h, size_t i);

/*
 * Open a stream for reading: path "-" (or NULL) is standard input. The
 * header is read at once. Compressed (zstd) and raw input are told apart
 * by their magic. Returns NULL with a message in err.
 */
mp_reader *mp_reader_open(const char *path, mp_err *err);

/* As mp_reader_open on an open descriptor; name is used in messages. */
mp_reader *mp_reader_fdopen(int fd, const char *name, mp_err *err);

/* The header of the first stream read. */
const mp_hdr *mp_reader_header(const mp_reader *r);

/*
 * Next record into *rec. Returns 1, 0 at the clean end of input, or -1
 * on bad input (message from mp_reader_error). The stream trailer is
 * checked here and not returned; concatenated streams read as one when
 * their kind and node count agree.
 */
int mp_reader_next(mp_reader *r, mp_rec *rec);

/* Message of the last failure: "<input>: record N: what". */
const char *mp_reader_error(const mp_reader *r);

/* Records returned so far (the record number of the last one). */
uint64_t mp_reader_recno(const mp_reader *r);

/* Input name as used in messages ("stdin" or the path). */
const char *mp_reader_name(const mp_reader *r);

/* Whether the input was compressed (of the first stream). */
int mp_reader_compressed(const mp_reader *r);

/* Whether the records were packed (of the first stream). */
int mp_reader_packed(const mp_reader *r);

/*
 * Records of a tag the trailers declared, summed over the streams read
 * so far (valid once mp_reader_next returned 0).
 */
uint64_t mp_reader_declared(const mp_reader *r, int tag);

/* Number of concatenated streams read so far. */
unsigned mp_reader_streams(const mp_reader *r);

/* Close and free; r may be NULL. */
void mp_reader_close(mp_reader *r);

/* Writer flags. */
enum { MP_W_RAW = 1 };

/*
 * Open a stream for writing: path "-" (or NULL) is standard output. The
 * header (copied) is written at once, with the record layouts of this
 * version. Compressed, with packed records, unless flags has MP_W_RAW
 * (raw: fixed-size records). Returns NULL with a message in err.
 */
mp_writer *mp_writer_open(const char *path, const mp_hdr *h, int flags,
			  mp_err *err);

/* Append a record. Returns 0, or -1 when a write failed. */
int mp_writer_put(mp_writer *w, const mp_rec *rec);

/* Push what is buffered down to the file or pipe. Returns 0 or -1. */
int mp_writer_flush(mp_writer *w);

/* Records written so far with this tag. */
uint64_t mp_writer_count(const mp_writer *w, int tag);

/*
 * Write the trailer, flush, close the descriptor (standard output too:
 * a failed close is a failure) and free. Returns 0, or -1 with a message
 * in err. w may be NULL.
 */
int mp_writer_close(mp_writer *w, mp_err *err);

/*
 * Give up on a stream: write no trailer, close the descriptor and free.
 * A reader downstream then reports the stream as cut short instead of
 * taking what was written as complete. w may be NULL.
 */
void mp_writer_abort(mp_writer *w);

/* Message of the last failure of w. */
const char *mp_writer_error(const mp_writer *w);

#endif
