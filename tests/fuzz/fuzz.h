/*
 * Helpers the fuzz targets share: scratch files that hold an input the
 * way the programs see it (a named file), a pipe fed in uneven chunks by
 * a thread (the way they see a pipeline), and the contract checks whose
 * failure is a finding. Built two ways: with libFuzzer by
 * tests/fuzz/run.sh, where a broken contract aborts, and into the
 * regression driver tests/unit/test_fuzz.c (FUZZ_DRIVER defined), where
 * it is counted and reported.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_util.h"

#define FUZZ_UNUSED __attribute__((unused))

/* Contract failures seen (driver mode: the driver reports them). */
static int fuzz_failures;

/* A broken contract: print it; abort under libFuzzer so it is saved. */
MP_PRINTF(1, 2) FUZZ_UNUSED
static void fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	fputs("fuzz: contract broken: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fuzz_failures++;
#ifndef FUZZ_DRIVER
	abort();
#endif
}

/*
 * A message the library returned for bad input must be one line that
 * starts with the input's name and a colon (the program adds its own
 * name in front).
 */
FUZZ_UNUSED
static void fuzz_check_msg(const char *what, const char *msg, const char *name)
{
	size_t n = strlen(name);
	if (msg[0] == '\0')
		fuzz_fail("%s: failed with an empty message", what);
	else if (strncmp(msg, name, n) != 0 || msg[n] != ':' || msg[n + 1] != ' ')
		fuzz_fail("%s: message does not start with '%s: ': %s", what, name,
			  msg);
	else if (strchr(msg, '\n'))
		fuzz_fail("%s: message is more than one line: %s", what, msg);
}

/* A scratch file of this process, created once, removed at exit. */
struct fuzz_file {
	char path[256];
};

static struct fuzz_file fuzz_files[3];
static int fuzz_nfiles;

static void fuzz_cleanup(void)
{
	for (int i = 0; i < fuzz_nfiles; i++)
		unlink(fuzz_files[i].path);
}

/* Path of scratch file i (0..2), made on first use; exits if it cannot. */
FUZZ_UNUSED
static const char *fuzz_path(int i)
{
	static int made[3];
	if (!made[i]) {
		const char *dir = getenv("TMPDIR");
		snprintf(fuzz_files[i].path, sizeof fuzz_files[i].path,
			 "%s/mpfuzz.XXXXXX", dir && *dir ? dir : "/tmp");
		int fd = mkstemp(fuzz_files[i].path);
		if (fd < 0) {
			perror("fuzz: mkstemp");
			exit(1);
		}
		close(fd);
		if (fuzz_nfiles++ == 0)
			atexit(fuzz_cleanup);
		made[i] = 1;
	}
	return fuzz_files[i].path;
}

/* Replace the contents of scratch file i with data; returns its path. */
FUZZ_UNUSED
static const char *fuzz_put(int i, const void *data, size_t size)
{
	const char *p = fuzz_path(i);
	int fd = open(p, O_WRONLY | O_TRUNC);
	const unsigned char *d = data;
	if (fd < 0) {
		perror("fuzz: open scratch file");
		exit(1);
	}
	while (size > 0) {
		ssize_t k = write(fd, d, size);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			perror("fuzz: write scratch file");
			exit(1);
		}
		d += k;
		size -= (size_t)k;
	}
	close(fd);
	return p;
}

/* A pipe fed from a thread in chunks of 1..max bytes, sizes from seed. */
struct fuzz_feed {
	int fds[2];
	const unsigned char *data;
	size_t size;
	uint32_t seed;
	size_t max;
	pthread_t th;
};

static void *fuzz_feed_main(void *arg)
{
	struct fuzz_feed *f = arg;
	size_t off = 0;
	uint32_t x = f->seed | 1;
	while (off < f->size) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		size_t k = 1 + x % f->max;
		if (k > f->size - off)
			k = f->size - off;
		ssize_t w = write(f->fds[1], f->data + off, k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* the reader gave up: EPIPE */
		off += (size_t)w;
	}
	close(f->fds[1]);
	return NULL;
}

/* Start feeding; returns the read end, or -1. */
FUZZ_UNUSED
static int fuzz_feed_start(struct fuzz_feed *f, const void *data, size_t size,
			   uint32_t seed, size_t max)
{
	static int sigpipe_ignored;
	if (!sigpipe_ignored) {
		signal(SIGPIPE, SIG_IGN); /* as the programs do */
		sigpipe_ignored = 1;
	}
	f->data = data;
	f->size = size;
	f->seed = seed;
	f->max = max ? max : 1;
	if (pipe(f->fds) < 0)
		return -1;
	if (pthread_create(&f->th, NULL, fuzz_feed_main, f) != 0) {
		close(f->fds[0]);
		close(f->fds[1]);
		return -1;
	}
	return f->fds[0];
}

/* After the reader closed the read end: wait for the feeding thread. */
FUZZ_UNUSED
static void fuzz_feed_join(struct fuzz_feed *f)
{
	pthread_join(f->th, NULL);
}

/* A seed from the input bytes, so chunking varies with the input. */
FUZZ_UNUSED
static uint32_t fuzz_hash(const unsigned char *d, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 16777619u;
	return h;
}

#endif
