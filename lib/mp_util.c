/*
 * Error messages, number parsing with range checks, output files written
 * under a temporary name, CRC-32.
 */
#include "mp_util.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Temporary names not yet committed, for mp_tmpout_unlink_all (a program
 * writes one or two outputs at a time). */
#define TMP_SLOTS 8
static char tmp_slot[TMP_SLOTS][4096];
static volatile sig_atomic_t tmp_used[TMP_SLOTS];

static void tmp_forget(const char *tmp)
{
	for (int i = 0; i < TMP_SLOTS; i++)
		if (tmp_used[i] && strcmp(tmp_slot[i], tmp) == 0) {
			tmp_used[i] = 0;
			return;
		}
}

int mp_opt_err(int c, int opt, const char *word, mp_err *err)
{
	char name[64];
	if (word && strncmp(word, "--", 2) == 0) {
		size_t n = strcspn(word, "=");
		snprintf(name, sizeof name, "%.*s", (int)(n < 60 ? n : 60), word);
	} else if (opt > 0 && opt < 128) {
		snprintf(name, sizeof name, "-%c", opt);
	} else {
		snprintf(name, sizeof name, "%.60s", word ? word : "?");
	}
	if (c == ':')
		return mp_err_set(err, "option '%s' needs a value", name);
	/* getopt_long sets optopt for a known long option given a value
	 * it does not take, and 0 for an unknown one. */
	if (opt != 0 && word && strncmp(word, "--", 2) == 0 &&
	    strchr(word, '='))
		return mp_err_set(err, "option '%s' takes no value", name);
	return mp_err_set(err, "unknown option '%s'", name);
}

int mp_tmpout_open(const char *path, char **tmp, mp_err *err)
{
	struct stat st;
	*tmp = NULL;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (fd < 0)
			return mp_err_set(err, "%s: %s", path, strerror(errno));
		return fd;
	}
	size_t n = strlen(path);
	int slot = -1;
	for (int i = 0; i < TMP_SLOTS && slot < 0; i++)
		if (!tmp_used[i])
			slot = i;
	if (slot < 0 || n + 11 > sizeof tmp_slot[0])
		return mp_err_set(err, "%s: name too long or too many outputs",
				  path);
	char *t = malloc(n + 11); /* ".tmpXXXXXX" and its NUL */
	if (!t)
		return mp_err_set(err, "%s: out of memory", path);
	memcpy(t, path, n);
	memcpy(t + n, ".tmpXXXXXX", 11);
	int fd = mkstemp(t);
	if (fd < 0) {
		int e = errno;
		free(t);
		/* Name the file asked for: its directory is what failed. */
		return mp_err_set(err, "%s: %s", path, strerror(e));
	}
	/* mkstemp makes it 0600; give it what a new file would get. */
	mode_t um = umask(0);
	umask(um);
	(void)fchmod(fd, 0666 & ~um); /* best effort: the data matter more */
	memcpy(tmp_slot[slot], t, n + 11);
	tmp_used[slot] = 1;
	*tmp = t;
	return fd;
}

int mp_tmpout_commit(char *tmp, const char *path, mp_err *err)
{
	if (!tmp)
		return 0;
	tmp_forget(tmp);
	if (rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		free(tmp);
		return mp_err_set(err, "%s: %s", path, strerror(e));
	}
	free(tmp);
	return 0;
}

void mp_tmpout_discard(char *tmp)
{
	if (!tmp)
		return;
	tmp_forget(tmp);
	unlink(tmp);
	free(tmp);
}

void mp_tmpout_unlink_all(void)
{
	for (int i = 0; i < TMP_SLOTS; i++)
		if (tmp_used[i])
			unlink(tmp_slot[i]);
}

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

double mp_phys_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}
