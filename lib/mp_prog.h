/*
 * What every program does the same way on the way out: a fatal error
 * ("prog: what" on stderr, exit 1), a usage error (one line on stderr,
 * "prog: what; try 'prog -h'", exit 2), and -h (the usage text on stdout, exit
 * 0, a failed write of stdout being an error). The functions do not
 * return, and say so to the compiler, so no caller has a path that falls
 * through after them. This is the one part of lib/ that prints and
 * exits: it is for programs only.
 *
 * Ownership: mp_prog_init keeps the name and the usage function; both
 * must live as long as the program.
 */
#ifndef MP_PROG_H
#define MP_PROG_H

#include <stdio.h>

#include "mp_util.h"

#define MP_NORETURN __attribute__((noreturn))

/* The program's name and its usage text printer (to fp). */
void mp_prog_init(const char *name, void (*usage)(FILE *fp));

/* The program's name as given to mp_prog_init. */
const char *mp_prog_name(void);

/* "prog: message" on stderr; exit 1. */
MP_NORETURN void mp_die(const char *fmt, ...) MP_PRINTF(1, 2);

/* "prog: message; try 'prog -h'" on stderr; exit 2. */
MP_NORETURN void mp_usage_error(const char *fmt, ...) MP_PRINTF(1, 2);

/* The usage text on stdout; exit 0 (1 when stdout cannot be written). */
MP_NORETURN void mp_usage_help(void);

/* Close stdout; a failed write is fatal (exit 1). */
void mp_close_stdout(void);

#endif
