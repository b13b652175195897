/*
 * Netrace trace reader: buffered reads from a descriptor, explicit
 * little-endian decoding of the packed header and packet records, and the
 * packet-type table of the format.
 */
#include "mp_netrace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT_MAGIC 0x484A5455u
#define NT_HEADER 72     /* packed header, its 8 trailing bytes unused */
#define NT_PACKET 21     /* packed packet record before its dependencies */
#define NT_REGION 24     /* seek offset, cycles, packets */

struct mp_netrace {
	int fd;
	char *name;
	char err[512];
	unsigned char buf[1 << 16];
	size_t pos, len;
	int eof;
	char bench[31];
	unsigned nodes;
	uint64_t cycles, packets, nread;
	unsigned nregions;
	uint64_t rcycles[100], rpackets[100];
	uint32_t deps[255];
};

/* Types 1..30; sizes in bytes, -1 where the format defines no type. */
static const struct { const char *name; int size; } types[] = {
	[1] = { "ReadReq", 8 },          [2] = { "ReadResp", 72 },
	[3] = { "ReadRespWithInvalidate", 72 },
	[4] = { "WriteReq", 72 },        [5] = { "WriteResp", 8 },
	[6] = { "Writeback", 72 },       [13] = { "UpgradeReq", 8 },
	[14] = { "UpgradeResp", 8 },     [15] = { "ReadExReq", 8 },
	[16] = { "ReadExResp", 72 },     [25] = { "BadAddressError", 8 },
	[27] = { "InvalidateReq", 8 },   [28] = { "InvalidateResp", 8 },
	[29] = { "DowngradeReq", 8 },    [30] = { "DowngradeResp", 72 },
};

int mp_netrace_size(unsigned type)
{
	if (type >= sizeof types / sizeof types[0] || !types[type].name)
		return -1;
	return types[type].size;
}

const char *mp_netrace_type_name(unsigned type)
{
	if (type >= sizeof types / sizeof types[0] || !types[type].name)
		return "InvalidCmd";
	return types[type].name;
}

MP_PRINTF(2, 3)
static int tfail(mp_netrace *t, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(t->err, sizeof t->err, "%s: %s", t->name, what);
	return -1;
}

/*
 * Copy n bytes into dst. Returns n, fewer at end of input, or -1 on a
 * read error.
 */
static ssize_t take(mp_netrace *t, void *dst, size_t n)
{
	size_t done = 0;
	while (done < n) {
		if (t->pos == t->len) {
			if (t->eof)
				break;
			ssize_t k = read(t->fd, t->buf, sizeof t->buf);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return tfail(t, "read failed: %s", strerror(errno));
			if (k == 0) {
				t->eof = 1;
				break;
			}
			t->pos = 0;
			t->len = (size_t)k;
		}
		size_t c = t->len - t->pos < n - done ? t->len - t->pos : n - done;
		memcpy((unsigned char *)dst + done, t->buf + t->pos, c);
		t->pos += c;
		done += c;
	}
	return (ssize_t)done;
}

mp_netrace *mp_netrace_fdopen(int fd, const char *name, mp_err *err)
{
	mp_netrace *t = calloc(1, sizeof *t);
	unsigned char h[NT_HEADER];
	if (!t || !(t->name = strdup(name))) {
		free(t);
		mp_err_set(err, "%s: out of memory", name);
		return NULL;
	}
	t->fd = fd;
	ssize_t k = take(t, h, sizeof h);
	if (k < 0)
		goto fail;
	if (k < 4 || mp_le32(h) != NT_MAGIC) {
		tfail(t, "not a Netrace trace (bad magic)");
		goto fail;
	}
	if ((size_t)k < sizeof h) {
		tfail(t, "truncated Netrace header (%zd of %d bytes)", k, NT_HEADER);
		goto fail;
	}
	uint32_t vbits = mp_le32(h + 4);
	float version;
	memcpy(&version, &vbits, 4);
	if (version != 1.0f) {
		tfail(t, "Netrace version %g is not supported (1.0 is)",
		      (double)version);
		goto fail;
	}
	memcpy(t->bench, h + 8, 30);
	t->bench[30] = '\0';
	for (char *c = t->bench; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	t->nodes = h[38];
	t->cycles = mp_le64(h + 40);
	t->packets = mp_le64(h + 48);
	uint32_t notes = mp_le32(h + 56), regions = mp_le32(h + 60);
	if (notes >= 8192 || regions > 100) {
		tfail(t, "implausible Netrace header (%u bytes of notes, %u "
			 "regions)", notes, regions);
		goto fail;
	}
	/* Notes skipped; region heads kept (cycles and packets). */
	unsigned char skip[256];
	size_t left = (size_t)notes;
	while (left > 0) {
		size_t c = left < sizeof skip ? left : sizeof skip;
		k = take(t, skip, c);
		if (k < 0)
			goto fail;
		if ((size_t)k < c) {
			tfail(t, "truncated Netrace header (notes and regions)");
			goto fail;
		}
		left -= c;
	}
	for (unsigned i = 0; i < regions; i++) {
		unsigned char rh[NT_REGION];
		k = take(t, rh, sizeof rh);
		if (k < 0)
			goto fail;
		if ((size_t)k < sizeof rh) {
			tfail(t, "truncated Netrace header (region %u)", i);
			goto fail;
		}
		t->rcycles[i] = mp_le64(rh + 8);
		t->rpackets[i] = mp_le64(rh + 16);
	}
	t->nregions = regions;
	return t;
fail:
	mp_err_set(err, "%s", t->err);
	mp_netrace_close(t);
	return NULL;
}

const char *mp_netrace_benchmark(const mp_netrace *t) { return t->bench; }
unsigned mp_netrace_nodes(const mp_netrace *t) { return t->nodes; }
uint64_t mp_netrace_cycles(const mp_netrace *t) { return t->cycles; }
uint64_t mp_netrace_packets(const mp_netrace *t) { return t->packets; }
unsigned mp_netrace_regions(const mp_netrace *t) { return t->nregions; }

uint64_t mp_netrace_region_cycles(const mp_netrace *t, unsigned i)
{
	return i < t->nregions ? t->rcycles[i] : 0;
}

uint64_t mp_netrace_region_packets(const mp_netrace *t, unsigned i)
{
	return i < t->nregions ? t->rpackets[i] : 0;
}

int mp_netrace_next(mp_netrace *t, struct mp_nt_packet *p)
{
	unsigned char r[NT_PACKET];
	ssize_t k = take(t, r, sizeof r);
	if (k < 0)
		return -1;
	if (k == 0)
		return 0;
	if ((size_t)k < sizeof r)
		return tfail(t, "packet %llu: truncated (%zd of %d bytes)",
			     (unsigned long long)t->nread + 1, k, NT_PACKET);
	p->cycle = mp_le64(r);
	p->id = mp_le32(r + 8);
	p->addr = mp_le32(r + 12);
	p->type = r[16];
	p->src = r[17];
	p->dst = r[18];
	p->node_types = r[19];
	p->num_deps = r[20];
	unsigned char deps[4 * 255];
	size_t nd = 4u * p->num_deps;
	k = take(t, deps, nd);
	if (k < 0)
		return -1;
	if ((size_t)k < nd)
		return tfail(t, "packet %llu: truncated dependency list",
			     (unsigned long long)t->nread + 1);
	for (unsigned i = 0; i < p->num_deps; i++)
		t->deps[i] = mp_le32(deps + 4 * i);
	p->deps = t->deps;
	t->nread++;
	return 1;
}

const char *mp_netrace_error(const mp_netrace *t)
{
	return t->err;
}

void mp_netrace_close(mp_netrace *t)
{
	if (!t)
		return;
	free(t->name);
	free(t);
}
