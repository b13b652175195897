/*
 * The packed record encoding of compressed streams: each record is its
 * tag byte, then its fields as LEB128 varints, the u64 ones (ids, times,
 * counters) as the zigzag of their difference from the same field of the
 * previous record with that tag. zstd then has a quarter of the bytes of
 * the fixed layout to compress, and far more alike. man/meshpipe.5
 * specifies it byte by byte; lib/mp_stream.c uses it for the records of
 * streams whose header says so.
 *
 * Ownership: an mp_pack is the state of one reader or writer (the field
 * list of every tag and the previous record of each), made by
 * mp_pack_new and freed by mp_pack_free. Nothing here prints or exits:
 * failures leave a message in the caller's mp_err.
 */
#ifndef MP_PACK_H
#define MP_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "mp_record.h"
#include "mp_util.h"

typedef struct mp_pack mp_pack;

/* Room mp_pack_put needs: the longest packed record of this version. */
#define MP_PACK_MAX 80

/*
 * mp_pack_new flags. MP_PACK_GENERIC codes every tag with the
 * table-driven coder instead of the straight-line code of the frequent
 * ones (msg, inj, pkt, dlv); the bytes are the same, and tests compare.
 */
enum { MP_PACK_GENERIC = 1 };

/* mp_pack_get results other than 1 (a record). */
enum { MP_PACK_SKIPPED = 0, MP_PACK_BAD = -1, MP_PACK_SHORT = -2 };

/* A new coder, reset (mp_pack_reset); NULL when out of memory. */
mp_pack *mp_pack_new(int flags);

/* Free pk; pk may be NULL. */
void mp_pack_free(mp_pack *pk);

/*
 * Start a stream: every tag of this version with this version's field
 * list, no other tag, and every field's previous value zero.
 */
void mp_pack_reset(mp_pack *pk);

/*
 * Take the field list of a header's layout line for tag (1 to 255):
 * fields is what follows NAME and SIZE ("tag:u8@0 class:u8@1 ..."), size
 * the record size the line gives. The list must start with the tag and
 * fit in size bytes; a known tag's list must start with this version's
 * fields, in order, with their names and types (a newer minor version
 * adds fields after them, which are read and dropped); a tag this
 * version does not know is declared, and its records are skipped.
 * Returns 0, or -1 with a message in err.
 */
int mp_pack_declare(mp_pack *pk, int tag, uint64_t size, const char *fields,
		    mp_err *err);

/*
 * Write the packed form of rec, whose tag must be one of this version's,
 * to out (room for MP_PACK_MAX bytes). Returns the number of bytes.
 * Padding fields are not written: they are zero by definition.
 */
size_t mp_pack_put(mp_pack *pk, const mp_rec *rec, unsigned char *out);

/*
 * Decode the record starting at p, of which n >= 1 bytes are at hand.
 * Returns 1 with the record in *rec, or MP_PACK_SKIPPED for a record of
 * a declared tag this version does not know, both with *used its length
 * in bytes; MP_PACK_SHORT when the record goes on past the n bytes (call
 * again with more; err says where it was cut); MP_PACK_BAD for a bad
 * record, with a message in err (an undeclared tag, a varint longer than
 * 10 bytes or than its shortest form, or a value too large for its
 * field). Only a decoded record changes the coder's state.
 */
int mp_pack_get(mp_pack *pk, const unsigned char *p, size_t n, mp_rec *rec,
		size_t *used, mp_err *err);

/*
 * mp_pack_get's common case, with nothing to say on failure: a msg,
 * inj, pkt or dlv record of this version's layout, well-formed, with
 * room for the longest such record in the n bytes at hand. Returns its
 * length in bytes with the record in *rec, or 0, having changed
 * nothing: then mp_pack_get decodes the record or finds its fault.
 */
size_t mp_pack_get_fast(mp_pack *pk, const unsigned char *p, size_t n,
			mp_rec *rec);

#endif
