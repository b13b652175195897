/*
 * Small helpers every meshpipe module and program shares: the error
 * buffer the library fills instead of printing, range-checked number
 * parsing, and CRC-32.
 *
 * Ownership: mp_err is a caller-owned buffer; functions that fail write a
 * one-line message into it and never print or exit.
 */
#ifndef MP_UTIL_H
#define MP_UTIL_H

#include <stddef.h>
#include <stdint.h>

#ifndef MP_VERSION
#define MP_VERSION "0.0.0"
#endif

#define MP_PRINTF(f, a) __attribute__((format(printf, f, a)))
/* Rarely run: kept out of line, away from the hot code. */
#define MP_COLD __attribute__((cold, noinline))

typedef struct mp_err {
	char msg[512];
} mp_err;

/*
 * Set err's message (printf format), control characters shown as '?'
 * so it stays one line; err may be NULL. Returns -1.
 */
int mp_err_set(mp_err *err, const char *fmt, ...) MP_PRINTF(2, 3);

/*
 * Parse an unsigned decimal integer in [min, max]. Returns 0, or -1 with
 * a message naming `what` (an option name) in err.
 */
int mp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		 const char *what, mp_err *err);

/*
 * Parse a finite real number in [min, max] (NaN and infinities are
 * refused). A trailing '%' divides by 100 when pct is non-zero.
 * Returns 0, or -1 with a message in err.
 */
int mp_parse_double(const char *s, double min, double max, int pct,
		    double *out, const char *what, mp_err *err);

/*
 * Output files are written under a temporary name in the same directory
 * and renamed over the real one on success, so a file is never left half
 * overwritten. mp_tmpout_open opens path for writing: a regular file, or
 * one that does not exist yet, as "path.tmpXXXXXX" (*tmp gets that name,
 * malloc'ed; the caller passes it to mp_tmpout_commit or
 * mp_tmpout_discard); anything else (a device, a FIFO) in place (*tmp
 * NULL). Returns the descriptor, or -1 with a message in err.
 */
int mp_tmpout_open(const char *path, char **tmp, mp_err *err);

/* Rename tmp to path (nothing when tmp is NULL) and free tmp. Returns 0,
 * or -1 with a message in err (tmp is then removed). */
int mp_tmpout_commit(char *tmp, const char *path, mp_err *err);

/* Remove tmp and free it (nothing when NULL). */
void mp_tmpout_discard(char *tmp);

/* Remove every temporary file not yet committed or discarded; only
 * unlink(2), so a signal handler may call it before the program dies. */
void mp_tmpout_unlink_all(void);

/*
 * What getopt(_long) with opterr = 0 and an optstring starting with ':'
 * found wrong, as one message: c is what it returned (':' a missing
 * value, anything else an unknown option), opt its optopt, word the
 * argument it was looking at (argv[optind - 1]). Returns -1.
 */
int mp_opt_err(int c, int opt, const char *word, mp_err *err);

/* CRC-32 (IEEE 802.3 polynomial) of buf, continuing from crc (start at 0). */
uint32_t mp_crc32(uint32_t crc, const void *buf, size_t len);

/* Little-endian loads and stores, independent of the host's byte order. */
/* This machine's physical memory in bytes, or 0 when unknown. */
double mp_phys_bytes(void);

static inline uint16_t mp_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t mp_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static inline uint64_t mp_le64(const unsigned char *p)
{
	return (uint64_t)mp_le32(p) | (uint64_t)mp_le32(p + 4) << 32;
}
static inline void mp_put16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}
static inline void mp_put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}
static inline void mp_put64(unsigned char *p, uint64_t v)
{
	mp_put32(p, (uint32_t)v);
	mp_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
