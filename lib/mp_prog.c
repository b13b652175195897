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
	if (fclose(stdout) != 0)
		mp_die("stdout: write failed: %s", strerror(errno));
}

void mp_usage_help(void)
{
	if (usage_fn)
		usage_fn(stdout);
	mp_close_stdout();
	exit(0);
}
