/*
 * Workloads: the message streams wlgen writes. A workload is either
 * generated (bimodal or fixed message lengths, Poisson, geometric or
 * saturated arrivals per node, uniform, permutation, fixed-distance or
 * hot-spot destinations, traffic classes) or replayed from a recorded
 * CSV trace, and comes out one message at a time in global time order.
 *
 * Randomness: every node draws from its own streams, derived from
 * (seed, node * 8 + purpose) with mp_rng_seed, so changing one node's
 * parameters never reshuffles another node's messages. Per-node arrival
 * streams are merged with a binary heap, ties broken by node id.
 *
 * Ownership: struct mp_wl_cfg is a plain value owned by the caller; the
 * strings it points at (replay path, remap list) must outlive the
 * workload built from it, and so must the network of struct mp_wl_shape.
 * mp_workload_new returns a workload freed with mp_workload_free.
 * Nothing here prints or exits.
 */
#ifndef MP_WORKLOAD_H
#define MP_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "mp_config.h"
#include "mp_net.h"
#include "mp_record.h"
#include "mp_stream.h"
#include "mp_util.h"

typedef struct mp_workload mp_workload;

/* Arrival processes per node. */
enum mp_wl_arrival {
	MP_ARR_POISSON,   /* exponential inter-arrival, continuous clock */
	MP_ARR_GEOMETRIC, /* a Bernoulli trial per unit */
	MP_ARR_SATURATED, /* deterministic, back to back at the PE port */
	MP_ARR_BERNOULLI, /* Bernoulli trials per unit: same as geometric */
	MP_ARR_MODEL      /* Boughton's model source (model:P): closed
			     loop, so no messages here; the stream
			     declares it and netrun's model generates it */
};

/* Destination rules. */
enum mp_wl_dest {
	MP_DST_UNIFORM,
	MP_DST_TRANSPOSE,
	MP_DST_BITCOMP,
	MP_DST_NEIGHBOR,
	MP_DST_DISTANCE,
	MP_DST_LOCAL,    /* uniform among the others within dest_k hops */
	MP_DST_ANY       /* uniform over every terminal, the source's too
			  * (indirect networks) */
};

/* Most hot nodes that can be listed explicitly (--hot-nodes). */
#define MP_WL_MAXHOT 256

struct mp_wl_cfg {
	char workload[32];     /* bimodal, uniform, wk1-5, wk30, wk-mixture,
				  fixed:K */
	uint64_t seed;
	double load;           /* offered load (SPEC 3.1 rule); 0: not set */
	double hot_load;       /* hot senders' load; 0: same as load */
	int arrival;           /* enum mp_wl_arrival */
	double model_p;        /* MP_ARR_MODEL: probability per unit */
	int dest;              /* enum mp_wl_dest */
	unsigned dest_k;       /* hops for MP_DST_DISTANCE, MP_DST_LOCAL */
	unsigned short_min, short_max; /* short lengths, uniform in range */
	unsigned long_len;     /* long message length */
	double long_share;     /* fraction of long messages, 0..1 */
	unsigned payload;      /* payload bytes per packet; 0: the fabric's */
	unsigned hot_spots;    /* number of hot nodes (0: none) */
	uint32_t hot_list[MP_WL_MAXHOT]; /* explicit hot nodes */
	unsigned hot_nlist;    /* entries of hot_list (0: chosen from seed) */
	double hot_share;      /* fraction of PEs sending to hot nodes;
				  negative: not set (0.3 with hot spots) */
	double gt_share;       /* fraction of messages of class GT */
	double gt_load;        /* load of a separate GT stream; 0: none */
	unsigned gt_length;    /* packets per message of that stream */
	double adaptive_share; /* fraction of messages with route=2 */
	const char *replay;    /* trace to replay; NULL: generate */
	int replay_fmt;        /* MP_WL_CSV or MP_WL_NETRACE */
	int replay_fd;         /* Netrace: an open descriptor giving the
				  uncompressed trace, or -1 to open replay */
	double time_scale;     /* replay: multiply trace times */
	const char *remap;     /* replay: "old:new,..." or NULL */
	int remap_mod;         /* replay: node ids modulo the node count */
	int drop_self;         /* replay: skip rows with src == dst */
	int no_deps;           /* Netrace: drop dependencies (open loop) */
	unsigned chains;       /* generate N request/response chains */
	double think;          /* chains: mean think time between messages */
	int region;            /* Netrace: only this region; -1: all */
};

/* Trace formats of replay. */
enum { MP_WL_CSV = 0, MP_WL_NETRACE = 1 };

/* Set c to the defaults: bimodal 1..5 / 25 with 10% long, Poisson,
 * uniform destinations, seed 1, load not set. */
void mp_wl_cfg_init(struct mp_wl_cfg *c);

/*
 * Set one workload option by its long name, as on wlgen's command line
 * ("load", "long", "workload", ...; flags such as "uniform" ignore val).
 * Setting "workload" resets the message lengths to that workload's.
 * Returns 0; 1 when name is not a workload option; -1 when the value is
 * bad, with a message naming the option ("--load: ...") in err.
 */
int mp_wl_set(struct mp_wl_cfg *c, const char *name, const char *val,
	      mp_err *err);

/*
 * Apply "name=value" words separated by spaces (a preset's workload,
 * mp_preset_workload) through mp_wl_set. Returns 0 or -1 with a message.
 */
int mp_wl_set_words(struct mp_wl_cfg *c, const char *words, mp_err *err);

/* Mean message length in packets of the configured length mix. */
double mp_wl_mean_length(const struct mp_wl_cfg *c);

/*
 * What a workload needs of the network it is for: its terminals (their
 * count, and coordinates and neighbours for permutation and distance
 * destinations), the PE-port time of a packet that turns a load into
 * arrival rates (mp_cfg_pe_time), the payload per packet, and the
 * packet length in flits when the load is in flits (mp_cfg_load_flits;
 * 0 otherwise), which the header records so netrun can check it.
 */
struct mp_wl_shape {
	const mp_net *net;
	double pe_time;
	unsigned payload;
	unsigned load_flits;
};

/*
 * Build a workload for a network of the given shape. Checks the combination of settings (a load is needed unless
 * replaying or saturated, destinations must suit the topology, ...).
 * Does not open a replay trace yet (mp_workload_start). Returns NULL with
 * a message naming the option in err.
 */
mp_workload *mp_workload_new(const struct mp_wl_cfg *wc,
			     const struct mp_wl_shape *shape, mp_err *err);

/*
 * Open the replay trace and read its header row (no-op when
 * generating). Returns 0, or -1 with "<trace>: line N: what" in err.
 */
int mp_workload_start(mp_workload *w, mp_err *err);

/*
 * The next message (tag MP_REC_MSG, ids 0, 1, 2, ...) in non-decreasing
 * time order into *msg. Returns 1; 0 at the end of a replayed trace, and
 * at once for model sources (MP_ARR_MODEL: the stream only declares
 * them); other generation never ends. -1 on a bad trace row, with the
 * message from
 * mp_workload_error ("<trace>: line N: what").
 */
int mp_workload_next(mp_workload *w, struct mp_msg *msg);

/* Message of the last failure of mp_workload_next. */
const char *mp_workload_error(const mp_workload *w);

/* Node count of the fabric. */
uint32_t mp_workload_nodes(const mp_workload *w);

/*
 * Whether messages carry dependencies (a Netrace replay without
 * --no-deps): the stream then says deps=1 and each message may be
 * followed by dep records.
 */
int mp_workload_has_deps(const mp_workload *w);

/*
 * Dependencies of the message mp_workload_next returned last: the ids
 * it waits for (*n of them in *after, valid until the next call) and
 * *users, how many later messages will name it. 0 for both without
 * dependencies.
 */
void mp_workload_deps(const mp_workload *w, const uint64_t **after, size_t *n,
		      uint32_t *users);

/* Replay: rows skipped because src == dst (with drop_self). */
uint64_t mp_workload_dropped(const mp_workload *w);

/*
 * Hot nodes and hot senders, sorted; *n receives the count (0 without
 * hot spots). Valid while w lives.
 */
const uint32_t *mp_workload_hot_nodes(const mp_workload *w, size_t *n);
const uint32_t *mp_workload_hot_senders(const mp_workload *w, size_t *n);

/*
 * Describe the workload in header metadata: nodes, topology, pe_time,
 * payload, seed, workload, and for generated workloads load, arrival,
 * dest, lengths, shares, mean_length and the hot_nodes / hot_senders
 * lists; for replays the trace and its scaling. Returns 0, or -1 when out
 * of memory or when a list is too long for a header.
 */
int mp_workload_describe(const mp_workload *w, mp_hdr *h);

void mp_workload_free(mp_workload *w);

#endif
