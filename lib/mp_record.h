/*
 * The records of a meshpipe stream: fixed-size, little-endian, one tag
 * byte first. Each record kind has a C struct whose layout is exactly its
 * wire layout (naturally aligned, explicit padding), and a field table
 * that names every field for the header's layout description and for
 * CSV.  man/meshpipe.5 documents them field by field.
 *
 * All structs here are plain values owned by the caller.
 */
#ifndef MP_RECORD_H
#define MP_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* Stream format version written by this library. */
#define MP_FORMAT_MAJOR 1
#define MP_FORMAT_MINOR 1
/* Minor version of a stream whose header says deps=1 (dep and rel
 * records); other streams are still written as 1.1, byte for byte. */
#define MP_FORMAT_MINOR_DEPS 2
/* Dependency ids one dep record carries at most. */
#define MP_DEP_IDS 4

/*
 * Latest arrival time of a message (units): a simulation must be able to
 * add its delays to it without wrapping around. Readers refuse later
 * times.
 */
#define MP_TIME_MAX (UINT64_C(1) << 62)

/* Record tags. */
enum {
	MP_REC_MSG = 1,  /* a message a source wants sent (wlgen) */
	MP_REC_INJ = 2,  /* a message with its injection policy (sched) */
	MP_REC_PKT = 3,  /* a delivered packet (netrun) */
	MP_REC_DLV = 4,  /* a delivered message (netrun) */
	MP_REC_UTIL = 5, /* port utilization counters (netrun) */
	MP_REC_RUN = 6,  /* end-of-run accounting (netrun) */
	MP_REC_END = 7,  /* stream trailer: record counts (the writer) */
	/* Format 1.2, streams with deps=1 only; not counted by the trailer,
	 * whose layout predates them. */
	MP_REC_DEP = 8,  /* messages the preceding message waits for (wlgen) */
	MP_REC_REL = 9,  /* when a message of a deps stream was released */
	MP_REC_NTAGS = 10
};

/* Stream kinds: what a stream mainly carries (header field). */
enum {
	MP_KIND_MESSAGES = 1,
	MP_KIND_INJECTIONS = 2,
	MP_KIND_DELIVERIES = 3,
	MP_KIND_UTILIZATION = 4,
	MP_KIND_MAX = 4
};

/* Traffic classes and source groups. */
enum { MP_CLASS_BE = 0, MP_CLASS_GT = 1 };
enum { MP_GROUP_INDEP = 0, MP_GROUP_HOT = 1 };
/* Per-message routing choice: the fabric's default, or forced. */
/*
 * Routing strategies: one set of values for a message's mark in a stream
 * (MP_ROUTE_DEFAULT: the fabric's own; a stream may force deterministic
 * or adaptive routing, never derouting) and for the fabric's strategy
 * (struct mp_cfg .route, named deterministic, best and derouting).
 */
enum mp_route {
	MP_ROUTE_DEFAULT = 0,
	MP_ROUTE_DET = 1,
	MP_ROUTE_ADAPTIVE = 2,
	MP_ROUTE_DEROUTE = 3
};

/* MP_REC_MSG and MP_REC_INJ: 40 bytes. */
struct mp_msg {
	uint8_t tag;
	uint8_t cls;      /* traffic class: 0 best-effort, 1 guaranteed */
	uint8_t group;    /* source group: 0 independent, 1 hot-spot sender */
	uint8_t route;    /* MP_ROUTE_*: routing forced for this message */
	uint32_t src;     /* source node */
	uint32_t dst;     /* destination node */
	uint32_t packets; /* length in packets (>= 1) */
	uint64_t id;      /* message id, unique in the stream */
	uint64_t time;    /* arrival: joins the source's job list */
	uint32_t bytes;   /* payload bytes (0 if unknown) */
	uint32_t prio;    /* INJ: priority class, lower first; MSG: 0 */
};

/* MP_REC_PKT: 48 bytes. */
struct mp_pkt {
	uint8_t tag;
	uint8_t cls;
	uint8_t group;
	uint8_t flags;     /* bit 0: took a non-minimal hop */
	uint32_t src;
	uint32_t dst;
	uint32_t seq;      /* packet index in its message, from 0 */
	uint64_t msg;      /* message id */
	uint64_t t_inject; /* source PE port starts injecting it */
	uint64_t t_eject;  /* completely ejected at the destination */
	uint16_t hops;     /* links crossed */
	uint16_t deroutes; /* non-minimal hops among them */
	uint32_t refusals; /* refused attempts it suffered */
};

/* MP_REC_DLV: 56 bytes. */
struct mp_dlv {
	uint8_t tag;
	uint8_t cls;
	uint8_t group;
	uint8_t rsv;
	uint32_t src;
	uint32_t dst;
	uint32_t packets;
	uint64_t id;
	uint64_t t_arrive; /* joined the source's job list */
	uint64_t t_first;  /* its first packet started injection */
	uint64_t t_done;   /* its last packet completely ejected */
	uint32_t bytes;
	uint32_t hops;     /* links crossed by all its packets */
};

/* MP_REC_UTIL scopes. */
enum {
	MP_UTIL_PE = 0,       /* all PE ports, cumulative from time 0 */
	MP_UTIL_INTERNAL = 1, /* all internal channels, cumulative */
	MP_UTIL_PORT = 2,     /* one port over the whole run */
	/* As MP_UTIL_PE and MP_UTIL_INTERNAL, taken when the last message
	 * arrived: records before these in the stream happened by then, the
	 * rest is the drain. */
	MP_UTIL_PE_INPUT_END = 3,
	MP_UTIL_INTERNAL_INPUT_END = 4
};

/* MP_REC_UTIL: 56 bytes. Times are port-time units summed over ports. */
struct mp_util {
	uint8_t tag;
	uint8_t scope;      /* MP_UTIL_* */
	uint16_t rsv;
	uint32_t node;      /* node of a port; 0xffffffff for aggregates */
	uint32_t port;      /* port number (direction; degree = PE port) */
	uint32_t nports;    /* ports summed (1 for a port) */
	uint64_t t;         /* counters cover [0, t) */
	uint64_t busy;      /* time busy, refused attempts included */
	uint64_t refused;   /* part of busy spent on refused attempts */
	uint64_t transfers; /* packets carried */
	uint64_t refusals;  /* attempts refused */
};

/* MP_REC_RUN status. */
enum {
	MP_RUN_OK = 0,
	MP_RUN_SATURATED = 1,
	MP_RUN_DEADLOCK = 2,
	MP_RUN_STOPPED = 3 /* stopped early by a time or count limit */
};

/* MP_REC_RUN: 64 bytes, once at the end of netrun's output. */
struct mp_run {
	uint8_t tag;
	uint8_t status;     /* MP_RUN_* */
	uint16_t rsv;
	uint32_t nodes;
	uint64_t t_end;     /* simulated time at the end */
	uint64_t msgs_in;   /* messages read */
	uint64_t msgs_done; /* messages completely delivered */
	uint64_t pkts_injected;
	uint64_t pkts_delivered;
	uint64_t pkts_in_flight; /* accepted, not delivered */
	uint64_t pkts_queued;    /* still waiting at sources, never accepted */
};

/*
 * MP_REC_DEP: 48 bytes. Follows the msg (or inj) record it belongs to,
 * after any other dep records of that message; n ids in after[0..n-1],
 * unused ones zero.
 */
struct mp_dep {
	uint8_t tag;
	uint8_t n;          /* ids used, 1 .. MP_DEP_IDS */
	uint16_t rsv;
	uint32_t users;     /* later messages that will name this one (in
			     * the message's first dep record; else 0) */
	uint64_t msg;       /* id of the message that waits */
	uint64_t after[MP_DEP_IDS]; /* ids of messages it waits for */
};

/* MP_REC_REL: 32 bytes, netrun's account of one message of a deps
 * stream: when its trace said, when it joined its source's job list. */
struct mp_rel {
	uint8_t tag;
	uint8_t rsv;
	uint16_t rsv2;
	uint32_t ndeps;     /* messages it waited for */
	uint64_t msg;       /* message id */
	uint64_t t_trace;   /* its time in the trace (msg record's time) */
	uint64_t t_release; /* released: t_arrive of its dlv record */
};

/* MP_REC_END: 64 bytes, the last record of a stream. */
struct mp_end {
	uint8_t tag;
	uint8_t rsv[7];
	uint64_t count[7]; /* records written, by tag 1..7 (count[tag-1]) */
};

typedef union mp_rec {
	uint8_t tag;
	struct mp_msg msg;
	struct mp_pkt pkt;
	struct mp_dlv dlv;
	struct mp_util util;
	struct mp_run run;
	struct mp_end end;
	struct mp_dep dep;
	struct mp_rel rel;
	unsigned char raw[64];
} mp_rec;

/* Field types of the field tables. */
enum { MP_F_U8 = 1, MP_F_U16 = 2, MP_F_U32 = 4, MP_F_U64 = 8 };

struct mp_field {
	const char *name; /* names starting with '_' are padding: zero */
	uint8_t type;     /* MP_F_*: also its size in bytes */
	uint16_t off;
};

/* Size in bytes of a record with this tag; 0 for an unknown tag. */
size_t mp_rec_size(int tag);

/* Short name of a tag ("msg", "inj", ...); NULL for an unknown tag. */
const char *mp_rec_name(int tag);

/* Tag with this short name, or 0. */
int mp_rec_tag(const char *name);

/* Field table of a tag; *n receives its length. NULL if unknown. */
const struct mp_field *mp_rec_fields(int tag, size_t *n);

/* Read field f of rec as an integer. */
uint64_t mp_rec_get(const mp_rec *rec, const struct mp_field *f);

/* Set field f of rec; returns -1 if v does not fit the field's type. */
int mp_rec_set(mp_rec *rec, const struct mp_field *f, uint64_t v);

/* Name of a stream kind ("messages", ...); NULL if unknown. */
const char *mp_kind_name(int kind);

/* Kind with this name, or 0. */
int mp_kind_from_name(const char *name);

#endif
