/*
 * Error messages, number parsing with range checks, CRC-32.
 */
#include "mp_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mp_err_set(mp_err *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		/* Messages quote input (a CSV field may hold a newline):
		 * keep them one line. */
		for (char *p = err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	}
	return -1;
}

int mp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		 const char *what, mp_err *err)
{
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return mp_err_set(err, "%s: empty number", what);
	if (*s == '-' || *s == '+' || *s == ' ' || *s == '\t')
		return mp_err_set(err, "%s: '%s' is not an unsigned integer",
				  what, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return mp_err_set(err, "%s: '%s' is not an unsigned integer",
				  what, s);
	if (errno == ERANGE || v > max)
		return mp_err_set(err, "%s: %s is too large (at most %llu)", what,
				  s, (unsigned long long)max);
	if (v < min)
		return mp_err_set(err, "%s: %s is too small (at least %llu)", what,
				  s, (unsigned long long)min);
	*out = v;
	return 0;
}

int mp_parse_double(const char *s, double min, double max, int pct,
		    double *out, const char *what, mp_err *err)
{
	char *end;
	double v;
	size_t n;
	char buf[64];

	if (s == NULL || *s == '\0')
		return mp_err_set(err, "%s: empty number", what);
	n = strlen(s);
	if (n >= sizeof buf)
		return mp_err_set(err, "%s: '%.20s...' is not a number", what, s);
	memcpy(buf, s, n + 1);
	int is_pct = pct && n > 0 && buf[n - 1] == '%';
	if (is_pct)
		buf[n - 1] = '\0';
	if (buf[0] == ' ' || buf[0] == '\t' || buf[0] == '\0')
		return mp_err_set(err, "%s: '%s' is not a number", what, s);
	errno = 0;
	v = strtod(buf, &end);
	if (*end != '\0' || end == buf)
		return mp_err_set(err, "%s: '%s' is not a number", what, s);
	if (!isfinite(v) || errno == ERANGE)
		return mp_err_set(err, "%s: '%s' is not a finite number", what, s);
	if (is_pct)
		v /= 100.0;
	if (v < min || v > max)
		return mp_err_set(err, "%s: %s is out of range [%g, %g]", what, s,
				  is_pct ? min * 100 : min, is_pct ? max * 100 : max);
	*out = v;
	return 0;
}

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
	crc_ready = 1;
}

uint32_t mp_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!crc_ready)
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
