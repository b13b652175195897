/*
 * Reader of Netrace traces (the packet trace format of the Netrace
 * project, University of Texas at Austin): a packed little-endian header
 * (magic 0x484A5455, version 1.0, benchmark name, node count, cycles,
 * packets, notes, regions), then packed packet records (cycle, id,
 * address, type, source, destination, node types, dependency count, and
 * that many 32-bit dependency ids). The reader takes the uncompressed
 * bytes; traces are usually bzip2-compressed, and decompressing them is
 * the caller's business (see wlgen(1)).
 *
 * Ownership: mp_netrace_fdopen returns a reader freed by
 * mp_netrace_close, which does not close the descriptor.
 */
#ifndef MP_NETRACE_H
#define MP_NETRACE_H

#include <stdint.h>

#include "mp_util.h"

typedef struct mp_netrace mp_netrace;

struct mp_nt_packet {
	uint64_t cycle;
	uint32_t id;
	uint32_t addr;
	uint8_t type;
	uint8_t src, dst;
	uint8_t node_types;
	uint8_t num_deps;
	const uint32_t *deps; /* num_deps ids, valid until the next call */
};

/*
 * Read the trace header from fd (name for messages). Returns NULL with a
 * message in err for a bad magic, version, or truncated header.
 */
mp_netrace *mp_netrace_fdopen(int fd, const char *name, mp_err *err);

/* Header fields. */
const char *mp_netrace_benchmark(const mp_netrace *t);
unsigned mp_netrace_nodes(const mp_netrace *t);
uint64_t mp_netrace_cycles(const mp_netrace *t);
uint64_t mp_netrace_packets(const mp_netrace *t);
unsigned mp_netrace_regions(const mp_netrace *t);
/* Cycles and packets of region i (0 .. regions-1). */
uint64_t mp_netrace_region_cycles(const mp_netrace *t, unsigned i);
uint64_t mp_netrace_region_packets(const mp_netrace *t, unsigned i);

/*
 * Next packet, with the ids it depends on in p->deps. Returns 1, 0 at
 * the end of the trace, -1 on a truncated or bad record (message from
 * mp_netrace_error: "<name>: packet N: what").
 */
int mp_netrace_next(mp_netrace *t, struct mp_nt_packet *p);

/* Payload bytes of a packet type (8 for requests, 72 for data), or -1
 * for a type the format does not define. */
int mp_netrace_size(unsigned type);

/* Name of a packet type ("ReadReq", ...), or "InvalidCmd". */
const char *mp_netrace_type_name(unsigned type);

const char *mp_netrace_error(const mp_netrace *t);

void mp_netrace_close(mp_netrace *t);

#endif
