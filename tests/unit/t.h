/*
 * A tiny TAP producer for the C unit tests: each check prints
 * "ok N - name" or "not ok N - name"; t_done() prints the plan and
 * returns the exit status.
 */
#ifndef T_H
#define T_H

#include <stdio.h>

static int t_n, t_fail;

#define T_OK(cond, ...) do { \
	int t_c_ = (cond) ? 1 : 0; /* evaluated once */ \
	t_n++; \
	if (t_c_) { printf("ok %d - ", t_n); } \
	else { t_fail++; printf("not ok %d - ", t_n); } \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!t_c_) printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
} while (0)

static inline int t_done(void)
{
	printf("1..%d\n", t_n);
	return t_fail ? 1 : 0;
}

#endif
