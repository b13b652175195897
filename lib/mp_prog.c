/*
 * The programs' shared exits: fatal errors, usage errors and -h.
 */
#include "mp_prog.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "meshpipe";
static void (*usage_fn)(FILE *fp);

void mp_prog_init(const char *name, void (*usage)(FILE *fp))
{
	prog = name;
	usage_fn = usage;
}

const char *mp_prog_name(void)
{
	return prog;
}

MP_PRINTF(1, 0)
static void say(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void mp_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	exit(1);
}

void mp_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; try '%s -h'\n", prog);
	exit(2);
}

void mp_close_stdout(void)
{
	/* A write that failed while the buffer was flushed on the way
	 * (more than a buffer of output) leaves the error flag, and its
	 * errno if nothing changed it since; fclose may then succeed. */
	int bad = ferror(stdout);
	int e = bad ? errno : 0;
	if (fflush(stdout) != 0 && !e)
		e = errno;
	if (fclose(stdout) != 0 && !e)
		e = errno ? errno : EIO;
	if (bad && !e)
		e = EIO;
	if (e)
		mp_die("stdout: write failed: %s", strerror(e));
}

void mp_usage_help(void)
{
	if (usage_fn)
		usage_fn(stdout);
	mp_close_stdout();
	exit(0);
}
