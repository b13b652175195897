/*
 * Unit tests of the Netrace reader on traces built here byte by byte:
 * header fields, notes and regions skipped, packets and their
 * dependencies, the packet-type table, and damaged input (every
 * truncated prefix, a bad magic, a bad version).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mp_netrace.h"
#include "t.h"

static size_t put(unsigned char *b, size_t at, const void *p, size_t n)
{
	memcpy(b + at, p, n);
	return at + n;
}

/* A trace: 3 bytes of notes, one region, three packets (2 deps on the
 * second). Returns its length. */
static size_t build(unsigned char *b, float version)
{
	size_t n = 0;
	memset(b, 0, 4096);
	mp_put32(b, 0x484A5455u);
	memcpy(b + 4, &version, 4);
	memcpy(b + 8, "unit-bench", 10);
	b[38] = 16;               /* nodes */
	mp_put64(b + 40, 500);    /* cycles */
	mp_put64(b + 48, 3);      /* packets */
	mp_put32(b + 56, 3);      /* notes length */
	mp_put32(b + 60, 1);      /* regions */
	n = 72;
	n = put(b, n, "hi", 3);
	n += 24;                  /* one region head */
	struct { uint64_t cycle; uint32_t id; uint8_t type, src, dst, nd; } p[3] = {
		{ 7, 0, 1, 3, 9, 0 }, { 40, 1, 2, 9, 3, 2 }, { 41, 2, 6, 15, 0, 0 }
	};
	for (int i = 0; i < 3; i++) {
		mp_put64(b + n, p[i].cycle);
		mp_put32(b + n + 8, p[i].id);
		mp_put32(b + n + 12, 0xabcd0000u + (uint32_t)i);
		b[n + 16] = p[i].type;
		b[n + 17] = p[i].src;
		b[n + 18] = p[i].dst;
		b[n + 19] = 0x21;
		b[n + 20] = p[i].nd;
		n += 21;
		for (int d = 0; d < p[i].nd; d++) {
			mp_put32(b + n, (uint32_t)(100 + d));
			n += 4;
		}
	}
	return n;
}

static int tmpfile_of(const unsigned char *b, size_t n)
{
	char path[] = "/tmp/mp-netrace-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, b, n) != (ssize_t)n)
		return -1;
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* Read a whole trace: packets read, or -1 with the error in msg. */
static int read_all(const unsigned char *b, size_t n, struct mp_nt_packet *out,
		    char *msg, size_t cap)
{
	mp_err e;
	int fd = tmpfile_of(b, n), k = 0, rc;
	mp_netrace *t = mp_netrace_fdopen(fd, "trace", &e);
	if (!t) {
		snprintf(msg, cap, "%s", e.msg);
		close(fd);
		return -1;
	}
	struct mp_nt_packet p;
	while ((rc = mp_netrace_next(t, &p)) > 0)
		if (k < 3)
			out[k++] = p;
	if (rc < 0)
		snprintf(msg, cap, "%s", mp_netrace_error(t));
	mp_netrace_close(t);
	close(fd);
	return rc < 0 ? -1 : k;
}

int main(void)
{
	unsigned char b[4096];
	struct mp_nt_packet p[3];
	char msg[512];
	size_t n = build(b, 1.0f);
	mp_err e;

	int fd = tmpfile_of(b, n);
	mp_netrace *t = mp_netrace_fdopen(fd, "trace", &e);
	T_OK(t != NULL, "a well-formed trace opens");
	T_OK(strcmp(mp_netrace_benchmark(t), "unit-bench") == 0 &&
	     mp_netrace_nodes(t) == 16 && mp_netrace_cycles(t) == 500 &&
	     mp_netrace_packets(t) == 3, "header fields");
	mp_netrace_close(t);
	close(fd);

	int k = read_all(b, n, p, msg, sizeof msg);
	T_OK(k == 3, "three packets read (%d)", k);
	T_OK(p[0].cycle == 7 && p[0].type == 1 && p[0].src == 3 && p[0].dst == 9,
	     "first packet");
	T_OK(p[1].cycle == 40 && p[1].num_deps == 2 && p[1].addr == 0xabcd0001u,
	     "second packet, with two dependencies");
	T_OK(p[2].cycle == 41 && p[2].src == 15 && p[2].dst == 0 &&
	     p[2].node_types == 0x21, "third packet read after the dependencies");

	T_OK(mp_netrace_size(1) == 8 && mp_netrace_size(2) == 72 &&
	     mp_netrace_size(30) == 72 && mp_netrace_size(0) == -1 &&
	     mp_netrace_size(7) == -1 && mp_netrace_size(31) == -1,
	     "packet sizes by type");
	T_OK(strcmp(mp_netrace_type_name(15), "ReadExReq") == 0 &&
	     strcmp(mp_netrace_type_name(200), "InvalidCmd") == 0, "type names");

	/* Every truncated prefix is refused with a message, except the
	 * ones that end exactly between packets. */
	int bad = 0, clean = 0;
	for (size_t cut = 0; cut < n; cut++) {
		k = read_all(b, cut, p, msg, sizeof msg);
		if (k >= 0)
			clean++;
		else if (strncmp(msg, "trace: ", 7) != 0)
			bad++;
	}
	T_OK(bad == 0, "every failing prefix has a located message");
	T_OK(clean == 3, "only the 3 prefixes that end between packets read "
			 "cleanly (%d)", clean);

	build(b, 2.0f);
	T_OK(read_all(b, n, p, msg, sizeof msg) < 0 &&
	     strstr(msg, "version 2 is not supported"), "a newer version: %s", msg);
	build(b, 1.0f);
	b[0] ^= 1;
	T_OK(read_all(b, n, p, msg, sizeof msg) < 0 &&
	     strcmp(msg, "trace: not a Netrace trace (bad magic)") == 0,
	     "bad magic: %s", msg);
	return t_done();
}
