/*
 * Option tables: every setting of struct mp_cfg (mp_config.h) described
 * once, by its long option name, type, place in the struct, range or
 * names of values, and help text. One table for the driver, one for the
 * network, and one per model (struct mp_model_ops .opts). From them come
 * the programs' getopt tables and usage text, --show-config, the
 * fabric.* header keys and their reader (mp_config.h), so a new option
 * cannot be missing from one of them.
 *
 * Ownership: the tables are static and read-only; a table ends with an
 * entry whose name is NULL.
 */
#ifndef MP_OPT_H
#define MP_OPT_H

#include <stddef.h>
#include <stdint.h>

enum mp_opt_type {
	MP_OPT_UINT,   /* unsigned, within [min, max] */
	MP_OPT_U64,    /* uint64_t, within [min, max] */
	MP_OPT_CHOICE, /* int: min + the index of its name in choices */
	MP_OPT_SPECIAL /* parsed and printed by mp_config.c by name */
};

struct mp_opt {
	const char *name;   /* long option, without the dashes */
	int type;           /* enum mp_opt_type */
	size_t off;         /* offset of the field in struct mp_cfg */
	uint64_t min, max;  /* MP_OPT_UINT, MP_OPT_U64 */
	const char *const *choices; /* MP_OPT_CHOICE: names, NULL-ended */
	const char *arg;    /* the argument in the usage text */
	const char *help;   /* one line of usage text */
	int flags;          /* MP_OPT_* below */
};

/* Not a command-line option: presets and the header reader only. */
#define MP_OPT_HIDDEN 1
/* Neither shown by --show-config nor written in the header (another
 * option says the same: --size is part of --topo). */
#define MP_OPT_NOSHOW 2
/* MP_OPT_UINT whose value 0 is written and read as "auto" (chosen by
 * the model from other settings); given numbers stay within [min, max]. */
#define MP_OPT_AUTO 4

/* The driver's options (model, payload) and the network's (topo, size). */
extern const struct mp_opt mp_opt_driver[];
extern const struct mp_opt mp_opt_network[];

#endif
