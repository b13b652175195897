/*
 * Fabric configuration and presets. A preset is data: a named set of
 * option settings for the fabric (used by netrun, and by wlgen for the
 * node count and the load rule) and for the workload (used by wlgen).
 * Options are named as on the command line, without the dashes.
 *
 * struct mp_cfg is a plain value: the caller owns it; nothing to free.
 */
#ifndef MP_CONFIG_H
#define MP_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "mp_net.h"
#include "mp_record.h"
#include "mp_util.h"

enum mp_bp { MP_BP_NONE, MP_BP_MESSAGE, MP_BP_DEST };
enum mp_dl { MP_DL_NONE, MP_DL_HOPCOUNT };
enum mp_pearb { MP_PE_FAIR, MP_PE_INJECT_FIRST, MP_PE_EJECT_FIRST };
enum mp_retry { MP_RETRY_IMMEDIATE, MP_RETRY_NOTIFY };

struct mp_cfg {
	char preset[32];
	char model[16];      /* switch model by name (mp_model.h) */
	char family[16];     /* hex, hexrect, torus, butterfly, crossbar */
	unsigned size;       /* E_n for hex; side for hexrect and torus;
				radix A of butterfly; N of crossbar */
	unsigned rows, cols; /* explicit RxC (0: size x size) */
	int route;           /* enum mp_route (mp_record.h), not DEFAULT */
	unsigned buffers;    /* packet buffers per node (central pool) */
	unsigned packet_time;  /* units to move a packet over a port */
	unsigned header_time;  /* header received and routed */
	unsigned inject_setup; /* PE port connection set-up, injection */
	unsigned eject_setup;  /* PE port connection set-up, ejection */
	int full_duplex;     /* links: 0 half-duplex, 1 a channel each way */
	int pe_separate;     /* PE port: 0 shared in/out, 1 separate */
	int bp;              /* enum mp_bp */
	unsigned buffer_limit;       /* 0: off */
	unsigned buffer_limit_dest;  /* 0: off */
	unsigned buffer_limit_trans; /* 0: off */
	uint64_t inject_timeout;     /* units; 0: never */
	int eject_priority;  /* favour ejection at BufferLimitDest */
	int deadlock;        /* enum mp_dl */
	int pe_arb;          /* enum mp_pearb */
	int retry;           /* enum mp_retry: when a refused packet tries again */
	unsigned payload;    /* payload bytes per packet (segmentation) */
	/* The flit model (lib/mp_flit.c). */
	int switching;       /* enum mp_switching, of the one class */
	unsigned vcs;        /* virtual channels per link and network; 0 auto */
	unsigned vc_buf;     /* flits per virtual channel; 0 auto */
	unsigned packet_flits;
	unsigned router_delay, link_delay, credit_delay; /* cycles */
	unsigned inject_flits, eject_flits; /* per terminal per cycle */
	int arb;             /* enum mp_arb (the ncube model's too) */
	unsigned arb_alpha;  /* MP_ARB_CREDIT: best-effort flits per packet */
	int buf_org;         /* input buffer organization, by index */
	unsigned buf_flits;  /* flits per input port (shared orgs); 0 unbounded */
	int vc_rules;        /* 1: dateline and bubble rules on a torus */
	uint8_t class_sw[2]; /* by class: 0 not named, else 1 + mp_switching */
	/* The synchronous multistage model (mp_ncube.c); its --arb is arb:
	 * random or rr. */
	unsigned stages;     /* butterfly, omega: stages D (A^D terminals) */
	unsigned fifo;       /* packets per router input FIFO (B) */
	double sink_q;       /* sink accepts with this probability per
				unit; 1: perfect */
};

enum mp_switching { MP_SW_WORMHOLE, MP_SW_VCT, MP_SW_PS };
/* Arbitration: the flit model's rr, priority, credit:A and oldest; the
 * ncube model's rr and random (a fair coin). */
enum mp_arb { MP_ARB_RR, MP_ARB_PRIORITY, MP_ARB_CREDIT, MP_ARB_RANDOM,
	      MP_ARB_OLDEST };

/* The names of the switching schemes and traffic classes (by value). */
extern const char *const mp_switching_names[];
extern const char *const mp_class_names[];

/* Set c to the built-in defaults (those of the po2 preset). */
void mp_cfg_init(struct mp_cfg *c);

/* Apply preset name's fabric options. 0, or -1 with a message. */
int mp_cfg_preset(struct mp_cfg *c, const char *name, mp_err *err);

/*
 * Set one fabric option by its long name ("buffers", "route", ...).
 * Returns 0; 1 when name is not a fabric option; -1 when the value is
 * bad (message in err).
 */
int mp_cfg_set(struct mp_cfg *c, const char *name, const char *val,
	       mp_err *err);

/* Check the combination of settings. 0, or -1 with a message. */
int mp_cfg_check(const struct mp_cfg *c, mp_err *err);

/* The network of the configuration (its family and size), built from
 * those values; NULL with a message in err. */
mp_net *mp_cfg_net(const struct mp_cfg *c, mp_err *err);

/* Topology spec of the configuration, e.g. "hex:6", into buf. */
void mp_cfg_topo(const struct mp_cfg *c, char *buf, size_t cap);

/*
 * Effective configuration as option lines ("--buffers 20\n" ...), into
 * buf; returns the length it needed (like snprintf).
 */
size_t mp_cfg_format(const struct mp_cfg *c, char *buf, size_t cap);

/*
 * The PE-port time of one packet in the load rule of SPEC 3.1: with a
 * shared PE port, T_in + T_out (set-up plus packet time each way); with
 * separate injection and ejection channels, the larger of the two. Load
 * u means u / mp_cfg_pe_time() packets per node per unit.
 */
double mp_cfg_pe_time(const struct mp_cfg *c);

/* The packet length in flits when a load is in flits per node per cycle
 * (a preset whose table entry says so: damq), else 0. */
unsigned mp_cfg_load_flits(const struct mp_cfg *c);

/*
 * Call fn(ctx, option, value) for every option of c that --show-config
 * prints and the header records, in order: the driver's, the network's,
 * then those of c's model. Stops at, and returns, the first -1; else 0.
 */
struct mp_opt;
int mp_cfg_each_shown(const struct mp_cfg *c,
		      int (*fn)(void *ctx, const struct mp_opt *o,
				const char *val),
		      void *ctx);

/* The option named name in the driver's, the network's or any model's
 * table (mp_opt.h), or NULL. */
const struct mp_opt *mp_cfg_find_opt(const char *name);

/* The names of the route and bp values, by value, NULL-terminated. */
extern const char *const mp_route_names[];
extern const char *const mp_bp_names[];
extern const char *const mp_pe_arb_names[];

/* Name of a route/bp/pe-arb value for printing. */
const char *mp_route_name(int route);
const char *mp_bp_name(int bp);
const char *mp_pe_arb_name(int arb);

/*
 * Workload options of a preset, as "name=value" words separated by
 * spaces (for wlgen); NULL if there is no such preset.
 */
const char *mp_preset_workload(const char *name);

/* Fabric options of a preset, same form; NULL if no such preset. */
const char *mp_preset_fabric(const char *name);

/* What one unit of time is in a preset ("byte", "flit"); "unit" if no
 * such preset. */
const char *mp_preset_time_unit(const char *name);

/* Name and one-line description of the i-th preset; NULL past the end. */
const char *mp_preset_name(size_t i);
const char *mp_preset_desc(size_t i);

#endif
